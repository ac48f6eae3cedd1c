//! # Error reporting: `sqlite3_errcode`, `errmsg`, `errstr`, ...
//!
//! Every API call that can fail records a failure in the connection's
//! [`ErrorState`](crate::handle::ErrorState) (always the extended code) and
//! returns the code the caller sees: the primary code unless extended result
//! codes are on. Success is recorded only by the calls SQLite records it
//! for: open, prepare, step (ROW/DONE), exec, and reset/finalize of a
//! statement that ran; binds and registrations leave the state alone.
//!
//! The error log (`SQLITE_CONFIG_LOG`, `sqlite3_log`) is here too: the
//! failures SQLite logs are reported from here.

use crate::consts::*;
use crate::handle::{db_ref, db_ref_any, sqlite3};
use ringlite::Error;
use std::ffi::{c_char, c_int, c_void, CStr, CString};

/// The application's error log callback (`SQLITE_CONFIG_LOG`).
pub type LogFn = unsafe extern "C" fn(*mut c_void, c_int, *const c_char);

struct LogTarget(Option<(LogFn, *mut c_void)>);
unsafe impl Send for LogTarget {}

static LOG: std::sync::Mutex<LogTarget> = std::sync::Mutex::new(LogTarget(None));

/// Install (or remove) the log callback (`SQLITE_CONFIG_LOG`).
pub fn set_log(target: Option<(LogFn, *mut c_void)>) {
    if let Ok(mut l) = LOG.lock() {
        l.0 = target;
    }
}

/// Whether a log callback is installed.
pub fn log_enabled() -> bool {
    LOG.lock().map(|l| l.0.is_some()).unwrap_or(false)
}

/// Send a message to the application's log callback, if any.
pub fn log(code: c_int, msg: &str) {
    let target = LOG.lock().ok().and_then(|l| l.0);
    if let Some((f, arg)) = target {
        let m = cstring(msg);
        unsafe { f(arg, code, m.as_ptr()) };
    }
}

/// SQLite's text for `code`, NUL-terminated and static.
pub fn errstr_c(code: i32) -> &'static CStr {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    static TABLE: OnceLock<Mutex<HashMap<&'static str, &'static CStr>>> = OnceLock::new();
    // SQLite has no text of its own for SQLITE_INTERNAL.
    let s = if code == SQLITE_INTERNAL { "unknown error" } else { ringlite::error::errstr(code) };
    let mut t = TABLE.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    t.entry(s).or_insert_with(|| Box::leak(CString::new(s).unwrap_or_default().into_boxed_c_str()))
}

/// Make a C string of `s`, dropping interior NULs (C cannot carry them).
pub fn cstring(s: impl Into<Vec<u8>>) -> CString {
    let mut v: Vec<u8> = s.into();
    v.retain(|&b| b != 0);
    CString::new(v).unwrap_or_default()
}

/// Record an outcome on `db`: `code` is the extended code, `message` `None`
/// means SQLite's generic text for it.
pub fn set_error(db: &sqlite3, code: i32, message: Option<&str>) {
    if let Ok(mut e) = db.error.try_borrow_mut() {
        // As SQLite's sqlite3SystemError: the thread's errno when the error
        // is recorded (what the unix VFS's xGetLastError answers), kept
        // until the next such error; applications read it to tell "no
        // such file" from "permission denied".
        if code != SQLITE_IOERR_NOMEM && matches!(code & 0xff, SQLITE_CANTOPEN | SQLITE_IOERR) {
            e.sys_errno = last_os_errno();
        }
        e.code = code;
        e.message = message.map(cstring);
        e.offset = -1;
        e.message16 = None;
    }
}

/// Record `err` and return what the API call returns for it.
pub fn report(db: &sqlite3, err: &Error) -> c_int {
    set_error(db, err.code, Some(&err.message));
    visible_code(db, err.code)
}

/// The code an API call returns for extended code `code`.
pub fn visible_code(db: &sqlite3, code: i32) -> c_int {
    if db.extended_codes.get() {
        code
    } else {
        code & 0xff
    }
}

/// Record success (`SQLITE_OK`).
pub fn clear_error(db: &sqlite3) {
    set_error(db, SQLITE_OK, None);
}

/// Convert an engine result into a return code, recording a failure on
/// `db`. Success leaves the error state alone, as SQLite's registration
/// functions (create_function, create_collation, ...) do.
pub fn finish(db: &sqlite3, r: ringlite::Result<()>) -> c_int {
    match r {
        Ok(()) => SQLITE_OK,
        Err(e) => report(db, &e),
    }
}

/// For generated stubs with a connection: record "not supported" on it.
pub unsafe fn unsupported_on(db: *mut sqlite3, name: &str) {
    // SAFETY: the caller guarantees: `db` is NULL or a connection this library opened and has not freed.
    unsafe {
        if let Some(db) = db_ref(db) {
            let _g = db.lock.lock();
            set_error(db, SQLITE_ERROR, Some(&format!("{name} is not supported by ringlite yet")));
        }
    }
}

/// For generated stubs without a connection: log "not supported".
pub fn unsupported_global(name: &str) {
    log(SQLITE_ERROR, &format!("{name} is not supported by ringlite yet"));
}

/// The error `SQLITE_MISUSE` that SQLite reports for a bad handle (also
/// logged, as SQLite does).
pub fn misuse() -> c_int {
    log(SQLITE_MISUSE, "API call with invalid database connection pointer");
    SQLITE_MISUSE
}

/// The primary result code of the connection's most recent failed API call
/// (SQLITE_OK when the last call succeeded).
#[no_mangle]
pub unsafe extern "C" fn sqlite3_errcode(db: *mut sqlite3) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed.
    unsafe {
        ffi_guard!(SQLITE_INTERNAL, {
            if db.is_null() {
                return SQLITE_NOMEM;
            }
            match db_ref_any(db) {
                Some(d) => {
                    let _g = d.lock.lock();
                    let code = d.error.borrow().code;
                    visible_code(d, code)
                }
                None => SQLITE_MISUSE,
            }
        })
    }
}

/// sqlite3_errcode with the extended code (e.g. SQLITE_CONSTRAINT_UNIQUE).
#[no_mangle]
pub unsafe extern "C" fn sqlite3_extended_errcode(db: *mut sqlite3) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed.
    unsafe {
        ffi_guard!(SQLITE_INTERNAL, {
            if db.is_null() {
                return SQLITE_NOMEM;
            }
            match db_ref_any(db) {
                Some(d) => {
                    let _g = d.lock.lock();
                    let code = d.error.borrow().code;
                    code
                }
                None => SQLITE_MISUSE,
            }
        })
    }
}

/// The English message of the connection's most recent error, UTF-8; valid
/// until the next call on the connection.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_errmsg(db: *mut sqlite3) -> *const c_char {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed.
    unsafe {
        ffi_guard!(std::ptr::null(), {
            if db.is_null() {
                return errstr_c(SQLITE_NOMEM).as_ptr();
            }
            match db_ref_any(db) {
                Some(d) => {
                    let _g = d.lock.lock();
                    let e = d.error.borrow();
                    match &e.message {
                        Some(m) if e.code != SQLITE_OK => m.as_ptr(),
                        _ => errstr_c(e.code).as_ptr(),
                    }
                }
                None => errstr_c(SQLITE_MISUSE).as_ptr(),
            }
        })
    }
}

/// sqlite3_errmsg in UTF-16.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_errmsg16(db: *mut sqlite3) -> *const c_void {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed.
    unsafe {
        ffi_guard!(std::ptr::null(), {
            static NOMEM16: [u16; 14] = utf16_lit(b"out of memory");
            static MISUSE16: [u16; 34] = utf16_lit(b"bad parameter or other API misuse");
            if db.is_null() {
                return NOMEM16.as_ptr() as *const c_void;
            }
            match db_ref_any(db) {
                Some(d) => {
                    let _g = d.lock.lock();
                    let text = CStr::from_ptr(sqlite3_errmsg(db)).to_string_lossy().into_owned();
                    let mut e = d.error.borrow_mut();
                    let mut v: Vec<u16> = text.encode_utf16().collect();
                    v.push(0);
                    e.message16 = Some(v);
                    e.message16.as_ref().map_or(std::ptr::null(), |v| v.as_ptr() as *const c_void)
                }
                None => MISUSE16.as_ptr() as *const c_void,
            }
        })
    }
}

/// ASCII literal to NUL-terminated UTF-16, at compile time.
const fn utf16_lit<const N: usize>(s: &[u8]) -> [u16; N] {
    let mut out = [0u16; N];
    let mut i = 0;
    while i < s.len() && i < N - 1 {
        out[i] = s[i] as u16;
        i += 1;
    }
    out
}

/// The English description of result code `code` (a static string).
#[no_mangle]
pub unsafe extern "C" fn sqlite3_errstr(code: c_int) -> *const c_char {
    ffi_guard!(std::ptr::null(), { errstr_c(code).as_ptr() })
}

/// The byte offset in the SQL text of the token the last error refers to, or
/// -1 when it does not point at one.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_error_offset(db: *mut sqlite3) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed.
    unsafe {
        ffi_guard!(-1, {
            match db_ref_any(db) {
                Some(d) => {
                    let _g = d.lock.lock();
                    let off = d.error.borrow().offset;
                    off
                }
                None => -1,
            }
        })
    }
}

/// Set the connection's current error code to `errcode` and its message to
/// `zErrMsg` (NULL for the code's standard text). Returns SQLITE_OK.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_set_errmsg(db: *mut sqlite3, errcode: c_int, zErrMsg: *const c_char) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed; `zErrMsg` is NULL or NUL-terminated (or readable for the length given
    // with it).
    unsafe {
        ffi_guard!(SQLITE_INTERNAL, {
            let Some(d) = db_ref_any(db) else {
                return misuse();
            };
            let _g = d.lock.lock();
            let msg = if zErrMsg.is_null() { None } else { Some(CStr::from_ptr(zErrMsg).to_string_lossy().into_owned()) };
            set_error(d, errcode, msg.as_deref());
            SQLITE_OK
        })
    }
}

/// Turn extended result codes on (`onoff` nonzero) or off for the values the
/// connection's functions return. Returns SQLITE_OK.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_extended_result_codes(db: *mut sqlite3, onoff: c_int) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed.
    unsafe {
        ffi_guard!(SQLITE_INTERNAL, {
            let Some(d) = db_ref(db) else { return misuse() };
            let _g = d.lock.lock();
            d.extended_codes.set(onoff != 0);
            SQLITE_OK
        })
    }
}

/// The thread's `errno`, as SQLite's unix VFS reads it (`xGetLastError`).
pub fn last_os_errno() -> i32 {
    std::io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

/// The operating system's error number recorded with the connection's last
/// `SQLITE_CANTOPEN` or `SQLITE_IOERR` (0 if none yet, or `db` is not a
/// connection).
#[no_mangle]
pub unsafe extern "C" fn sqlite3_system_errno(db: *mut sqlite3) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed.
    unsafe {
        ffi_guard!(0, {
            let Some(d) = db_ref_any(db) else { return 0 };
            let _g = d.lock.lock();
            d.error.try_borrow().map_or(0, |e| e.sys_errno)
        })
    }
}
