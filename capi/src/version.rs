//! # Version information
//!
//! The strings come from build-time settings (see `build.rs`): by default
//! SQLite 3.54.1, or, with `make SQLITE_VERSION_FROM=system`, the version and
//! source id of the system's `sqlite3.h`, so programs that compare them at
//! start-up (the `sqlite3` shell) accept the library.

use std::ffi::{c_char, c_int};

/// The version string, e.g. "3.54.1".
pub const VERSION: &str = env!("RINGLITE_SQLITE_VERSION");
/// The source id string.
pub const SOURCE_ID: &str = env!("RINGLITE_SQLITE_SOURCE_ID");

const fn parse_number(s: &str) -> i32 {
    let b = s.as_bytes();
    let mut i = 0;
    let mut v = 0i32;
    while i < b.len() {
        v = v * 10 + (b[i] - b'0') as i32;
        i += 1;
    }
    v
}

/// The version number, e.g. 3054001.
pub const VERSION_NUMBER: i32 = parse_number(env!("RINGLITE_SQLITE_VERSION_NUMBER"));

const fn nul_terminated<const N: usize>(s: &str) -> [u8; N] {
    let mut out = [0u8; N];
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        out[i] = b[i];
        i += 1;
    }
    out
}

/// `sqlite3_version[]`, the data symbol.
#[no_mangle]
pub static sqlite3_version: [u8; VERSION.len() + 1] = nul_terminated(VERSION);

static SOURCE_ID_Z: [u8; SOURCE_ID.len() + 1] = nul_terminated(SOURCE_ID);

/// The library's version string, "3.54.1" unless the build set another.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_libversion() -> *const c_char {
    sqlite3_version.as_ptr() as *const c_char
}

/// The library's source identifier (date, time and hash) of the SQLite
/// release it implements.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_sourceid() -> *const c_char {
    SOURCE_ID_Z.as_ptr() as *const c_char
}

/// The library's version as an integer (3054001 for 3.54.1).
#[no_mangle]
pub unsafe extern "C" fn sqlite3_libversion_number() -> c_int {
    VERSION_NUMBER
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
    ffi_guard!(0, {
        if zOptName.is_null() {
            return 0;
        }
        compile_option_used(&std::ffi::CStr::from_ptr(zOptName).to_string_lossy()) as c_int
    })
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
