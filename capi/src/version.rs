//! # Version information
//!
//! The SQLite version and source id the library reports are chosen when the
//! shared library is linked (`capi/shim/version.c`): by default SQLite
//! 3.54.1's, or with `make SQLITE_VERSION_FROM=system` those of the system's
//! `sqlite3.h`, so programs that compare them at start-up (the `sqlite3`
//! shell) accept the library. The engine is told them once, at
//! initialization, so `sqlite_version()` in SQL agrees with
//! `sqlite3_libversion()`; the source id carries ringlite's marker after
//! SQLite's 84 characters.

use std::ffi::{c_char, c_int, CStr, CString};
use std::sync::OnceLock;

use ringlite::vdbe::func::builtins::core::{report_sqlite_version, sqlite_source_id, sqlite_version};

extern "C" {
    /// `sqlite3_version[]`, the API's data symbol, defined in `version.c`.
    static sqlite3_version: [c_char; 0];
    static ringlite_reported_source_id: [c_char; 0];
}

/// The linked-in strings handed to the engine. Idempotent and cheap after
/// the first call (every open calls it through `config::initialize`).
pub fn publish() {
    static DONE: OnceLock<()> = OnceLock::new();
    DONE.get_or_init(|| {
        // SAFETY: both symbols are NUL-terminated arrays defined in version.c.
        let (version, source_id) =
            unsafe { (CStr::from_ptr(std::ptr::addr_of!(sqlite3_version).cast()), CStr::from_ptr(std::ptr::addr_of!(ringlite_reported_source_id).cast())) };
        report_sqlite_version(version.to_str().unwrap_or("3.54.1"), &source_id.to_string_lossy());
    });
}

/// "x.y.z" as x*1000000 + y*1000 + z, as SQLITE_VERSION_NUMBER is made.
fn version_number(version: &str) -> c_int {
    let mut parts = version.split('.').map(|p| p.parse::<c_int>().unwrap_or(0));
    let (x, y, z) = (parts.next().unwrap_or(0), parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    x * 1_000_000 + y * 1000 + z
}

/// The library's version string, "3.54.1" unless the link chose another.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_libversion() -> *const c_char {
    std::ptr::addr_of!(sqlite3_version).cast()
}

/// The library's source identifier: date, time and hash of the SQLite
/// release it implements, then ringlite's marker.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_sourceid() -> *const c_char {
    ffi_guard!(std::ptr::null(), {
        publish();
        static Z: OnceLock<CString> = OnceLock::new();
        Z.get_or_init(|| CString::new(sqlite_source_id()).unwrap_or_default()).as_ptr()
    })
}

/// The library's version as an integer (3054001 for 3.54.1).
#[no_mangle]
pub unsafe extern "C" fn sqlite3_libversion_number() -> c_int {
    ffi_guard!(0, {
        publish();
        static N: OnceLock<c_int> = OnceLock::new();
        *N.get_or_init(|| version_number(sqlite_version()))
    })
}

use ringlite::vdbe::func::builtins::core::{compile_option_used, COMPILE_OPTIONS};

/// The engine's compile options as C strings, made once: the pointers
/// `sqlite3_compileoption_get` hands out stay valid for the process.
fn options_z() -> &'static [std::ffi::CString] {
    static Z: std::sync::OnceLock<Vec<std::ffi::CString>> = std::sync::OnceLock::new();
    Z.get_or_init(|| COMPILE_OPTIONS.iter().filter_map(|o| std::ffi::CString::new(*o).ok()).collect())
}

/// 1 if the compile option `zOptName` (with or without its SQLITE_ prefix) is
/// part of this build, else 0.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_compileoption_used(zOptName: *const c_char) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `zOptName` is NULL or NUL-terminated
    // (or readable for the length given with it).
    unsafe {
        ffi_guard!(0, {
            if zOptName.is_null() {
                return 0;
            }
            compile_option_used(&std::ffi::CStr::from_ptr(zOptName).to_string_lossy()) as c_int
        })
    }
}

/// The `N`-th compile option of this build (without SQLITE_), or NULL past the
/// last.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_compileoption_get(N: c_int) -> *const c_char {
    ffi_guard!(std::ptr::null(), { usize::try_from(N).ok().and_then(|i| options_z().get(i)).map_or(std::ptr::null(), |c| c.as_ptr()) })
}

/// The threading mode the library was built with: 1 (serialized).
#[no_mangle]
pub unsafe extern "C" fn sqlite3_threadsafe() -> c_int {
    1
}
