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

#[no_mangle]
pub unsafe extern "C" fn sqlite3_libversion() -> *const c_char {
    sqlite3_version.as_ptr() as *const c_char
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_sourceid() -> *const c_char {
    SOURCE_ID_Z.as_ptr() as *const c_char
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_libversion_number() -> c_int {
    VERSION_NUMBER
}

/// Compile options reported by `sqlite3_compileoption_get`/`_used`, without
/// the `SQLITE_` prefix.
const OPTIONS: &[&str] = &[
    "ATOMIC_INTRINSICS=1",
    "DEFAULT_MEMSTATUS=0",
    "ENABLE_COLUMN_METADATA",
    "THREADSAFE=1",
];
static OPTIONS_Z: [&[u8]; 4] = [
    b"ATOMIC_INTRINSICS=1\0",
    b"DEFAULT_MEMSTATUS=0\0",
    b"ENABLE_COLUMN_METADATA\0",
    b"THREADSAFE=1\0",
];

#[no_mangle]
pub unsafe extern "C" fn sqlite3_compileoption_used(zOptName: *const c_char) -> c_int {
    ffi_guard!(0, {
        if zOptName.is_null() {
            return 0;
        }
        let name = std::ffi::CStr::from_ptr(zOptName).to_string_lossy();
        let name = name
            .strip_prefix("SQLITE_")
            .or_else(|| name.strip_prefix("sqlite_"))
            .unwrap_or(&name)
            .to_string();
        OPTIONS.iter().any(|o| {
            let (key, _) = o.split_once('=').unwrap_or((o, ""));
            key.eq_ignore_ascii_case(&name) || o.eq_ignore_ascii_case(&name)
        }) as c_int
    })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_compileoption_get(N: c_int) -> *const c_char {
    ffi_guard!(std::ptr::null(), {
        if N < 0 || N as usize >= OPTIONS_Z.len() {
            std::ptr::null()
        } else {
            OPTIONS_Z[N as usize].as_ptr() as *const c_char
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_threadsafe() -> c_int {
    1
}
