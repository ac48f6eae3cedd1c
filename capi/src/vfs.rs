//! # `sqlite3_vfs_find`: the default VFS object
//!
//! ringlite's I/O layer opens database files itself, so no VFS is ever
//! consulted for them. Applications still look up the default VFS to ask
//! for the time, randomness, full pathnames or file existence; the "unix"
//! object here answers those through the operating system. Its `xOpen`
//! reports `SQLITE_CANTOPEN`: files cannot be opened through it (yet), and
//! registering other VFSes is not supported.

use crate::abi::sqlite3_vfs;
use crate::consts::*;
use crate::types::{sqlite3_file, sqlite3_filename, sqlite3_int64, sqlite3_syscall_ptr};
use std::ffi::{c_char, c_int, c_void, CStr};
use std::time::{SystemTime, UNIX_EPOCH};

/// Milliseconds from the Julian day epoch to the Unix epoch.
const UNIX_EPOCH_JD_MS: i64 = 210_866_760_000_000;
const MAX_PATHNAME: c_int = 512;

unsafe extern "C" fn x_open(_: *mut sqlite3_vfs, _: sqlite3_filename, _: *mut sqlite3_file, _: c_int, _: *mut c_int) -> c_int {
    SQLITE_CANTOPEN
}

unsafe extern "C" fn x_delete(_: *mut sqlite3_vfs, name: *const c_char, _sync_dir: c_int) -> c_int {
    if name.is_null() {
        return SQLITE_MISUSE;
    }
    if libc::unlink(name) == 0 {
        SQLITE_OK
    } else if std::io::Error::last_os_error().raw_os_error() == Some(libc::ENOENT) {
        SQLITE_IOERR_DELETE_NOENT
    } else {
        SQLITE_IOERR_DELETE
    }
}

unsafe extern "C" fn x_access(_: *mut sqlite3_vfs, name: *const c_char, flags: c_int, out: *mut c_int) -> c_int {
    if name.is_null() || out.is_null() {
        return SQLITE_MISUSE;
    }
    let mode = match flags {
        SQLITE_ACCESS_READWRITE => libc::R_OK | libc::W_OK,
        SQLITE_ACCESS_READ => libc::R_OK,
        _ => libc::F_OK,
    };
    *out = (libc::access(name, mode) == 0) as c_int;
    SQLITE_OK
}

unsafe extern "C" fn x_full_pathname(_: *mut sqlite3_vfs, name: *const c_char, n_out: c_int, out: *mut c_char) -> c_int {
    if name.is_null() || out.is_null() || n_out <= 0 {
        return SQLITE_MISUSE;
    }
    let given = CStr::from_ptr(name).to_bytes();
    let mut full = Vec::new();
    if given.first() != Some(&b'/') {
        match std::env::current_dir() {
            Ok(d) => full.extend_from_slice(d.as_os_str().as_encoded_bytes()),
            Err(_) => return SQLITE_CANTOPEN,
        }
        full.push(b'/');
    }
    full.extend_from_slice(given);
    if full.len() >= n_out as usize {
        return SQLITE_CANTOPEN;
    }
    std::ptr::copy_nonoverlapping(full.as_ptr(), out as *mut u8, full.len());
    *out.add(full.len()) = 0;
    SQLITE_OK
}

unsafe extern "C" fn x_dl_open(_: *mut sqlite3_vfs, _: *const c_char) -> *mut c_void {
    std::ptr::null_mut()
}

unsafe extern "C" fn x_dl_error(_: *mut sqlite3_vfs, n: c_int, out: *mut c_char) {
    let msg = b"loading extensions is not supported by ringlite yet";
    if n > 0 && !out.is_null() {
        let len = msg.len().min(n as usize - 1);
        std::ptr::copy_nonoverlapping(msg.as_ptr(), out as *mut u8, len);
        *out.add(len) = 0;
    }
}

unsafe extern "C" fn x_dl_sym(_: *mut sqlite3_vfs, _: *mut c_void, _: *const c_char) -> Option<unsafe extern "C" fn()> {
    None
}

unsafe extern "C" fn x_dl_close(_: *mut sqlite3_vfs, _: *mut c_void) {}

unsafe extern "C" fn x_randomness(_: *mut sqlite3_vfs, n: c_int, out: *mut c_char) -> c_int {
    crate::misc::sqlite3_randomness(n, out as *mut c_void);
    n.max(0)
}

unsafe extern "C" fn x_sleep(_: *mut sqlite3_vfs, micros: c_int) -> c_int {
    std::thread::sleep(std::time::Duration::from_micros(micros.max(0) as u64));
    micros.max(0)
}

fn now_jd_ms() -> i64 {
    let ms = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64);
    UNIX_EPOCH_JD_MS + ms
}

unsafe extern "C" fn x_current_time(_: *mut sqlite3_vfs, out: *mut f64) -> c_int {
    if !out.is_null() {
        *out = now_jd_ms() as f64 / 86_400_000.0;
    }
    SQLITE_OK
}

unsafe extern "C" fn x_get_last_error(_: *mut sqlite3_vfs, _: c_int, _: *mut c_char) -> c_int {
    0
}

unsafe extern "C" fn x_current_time_int64(_: *mut sqlite3_vfs, out: *mut sqlite3_int64) -> c_int {
    if !out.is_null() {
        *out = now_jd_ms();
    }
    SQLITE_OK
}

unsafe extern "C" fn x_set_system_call(_: *mut sqlite3_vfs, _: *const c_char, _: sqlite3_syscall_ptr) -> c_int {
    SQLITE_NOTFOUND
}

unsafe extern "C" fn x_get_system_call(_: *mut sqlite3_vfs, _: *const c_char) -> sqlite3_syscall_ptr {
    None
}

unsafe extern "C" fn x_next_system_call(_: *mut sqlite3_vfs, _: *const c_char) -> *const c_char {
    std::ptr::null()
}

/// The VFS object: immutable, shared by every caller.
struct DefaultVfs(sqlite3_vfs);
unsafe impl Sync for DefaultVfs {}

static UNIX_VFS: DefaultVfs = DefaultVfs(sqlite3_vfs {
    iVersion: 3,
    szOsFile: std::mem::size_of::<sqlite3_file>() as c_int,
    mxPathname: MAX_PATHNAME,
    pNext: std::ptr::null_mut(),
    zName: c"unix".as_ptr(),
    pAppData: std::ptr::null_mut(),
    xOpen: Some(x_open),
    xDelete: Some(x_delete),
    xAccess: Some(x_access),
    xFullPathname: Some(x_full_pathname),
    xDlOpen: Some(x_dl_open),
    xDlError: Some(x_dl_error),
    xDlSym: Some(x_dl_sym),
    xDlClose: Some(x_dl_close),
    xRandomness: Some(x_randomness),
    xSleep: Some(x_sleep),
    xCurrentTime: Some(x_current_time),
    xGetLastError: Some(x_get_last_error),
    xCurrentTimeInt64: Some(x_current_time_int64),
    xSetSystemCall: Some(x_set_system_call),
    xGetSystemCall: Some(x_get_system_call),
    xNextSystemCall: Some(x_next_system_call),
});

#[no_mangle]
pub unsafe extern "C" fn sqlite3_vfs_find(zVfsName: *const c_char) -> *mut sqlite3_vfs {
    ffi_guard!(std::ptr::null_mut(), {
        let default = &UNIX_VFS.0 as *const sqlite3_vfs as *mut sqlite3_vfs;
        if zVfsName.is_null() || CStr::from_ptr(zVfsName).to_bytes() == b"unix" {
            default
        } else {
            std::ptr::null_mut()
        }
    })
}
