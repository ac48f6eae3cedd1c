//! # `sqlite3_bind_*`: parameter values
//!
//! Values are copied into the engine statement at once. A destructor other
//! than `SQLITE_STATIC`/`SQLITE_TRANSIENT` is called when SQLite would call
//! it: when the binding is replaced or cleared or the statement finalized,
//! and at once when the bind fails. Binding a running statement is
//! `SQLITE_MISUSE`; an index outside `1..=bind_parameter_count` is
//! `SQLITE_RANGE`.

use crate::consts::*;
use crate::convert::{c_len, utf16_value_to_utf8};
use crate::error::{cstring, report, set_error, visible_code};
use crate::handle::{sqlite3_stmt, stmt_ref};
use crate::result::{release, utf16_any};
use crate::types::{sqlite3_destructor_type, sqlite3_int64, sqlite3_uint64};
use crate::value::sqlite3_value;
use ringlite::value::Value;
use ringlite::Error;
use std::ffi::{c_char, c_int, c_uchar, c_void, CStr};

/// Bind `v`, copied from the application's buffer `buf`, to parameter `i`,
/// and take charge of the buffer's destructor.
unsafe fn bind_buffer(p: *mut sqlite3_stmt, i: c_int, v: Value, buf: *mut c_void, destroy: sqlite3_destructor_type) -> c_int {
    let rc = bind(p, i, v);
    match destroy {
        Some(f) if f as usize != usize::MAX && !buf.is_null() => {
            if rc == SQLITE_OK {
                if let Some(s) = stmt_ref(p) {
                    s.bound.push((i as usize, f, buf));
                    return rc;
                }
            }
            f(buf);
        }
        _ => {}
    }
    rc
}

/// Bind `v` to parameter `i` of `p`, with SQLite's checks.
pub unsafe fn bind(p: *mut sqlite3_stmt, i: c_int, v: Value) -> c_int {
    bind_checked(p, i, v, true)
}

/// [`bind`], with or without the `SQLITE_LIMIT_LENGTH` check (SQLite does
/// not apply it to `sqlite3_bind_zeroblob`, only to `bind_zeroblob64`).
unsafe fn bind_checked(p: *mut sqlite3_stmt, i: c_int, v: Value, check_length: bool) -> c_int {
    let Some(s) = stmt_ref(p) else {
        return crate::error::misuse();
    };
    let db = s.db();
    let _g = db.lock.lock();
    if s.stmt.busy() {
        let e = Error::new(SQLITE_MISUSE, "bad parameter or other API misuse");
        crate::config::log(SQLITE_MISUSE, &format!("bind on a busy prepared statement: [{}]", s.stmt.sql()));
        return report(db, &e);
    }
    if i < 1 || i as usize > s.stmt.parameter_count() {
        set_error(db, SQLITE_RANGE, None);
        return visible_code(db, SQLITE_RANGE);
    }
    s.release_bound(Some(i as usize));
    if check_length {
        if let Value::Text(_) | Value::Blob(_) | Value::ZeroBlob(_) = &v {
            // Inside a callback of this connection the limit cannot be read;
            // the compile-time maximum applies then.
            let limit = db.with_conn(|c| c.limit_value(SQLITE_LIMIT_LENGTH)).unwrap_or(1_000_000_000);
            if v.byte_len() as i64 > i64::from(limit) {
                set_error(db, SQLITE_TOOBIG, None);
                return visible_code(db, SQLITE_TOOBIG);
            }
        }
    }
    match s.stmt.bind(i as usize, v) {
        Ok(()) => SQLITE_OK,
        Err(e) => report(db, &e),
    }
}

unsafe fn raw(p: *const c_void, n: usize) -> Vec<u8> {
    if p.is_null() || n == 0 {
        Vec::new()
    } else {
        std::slice::from_raw_parts(p as *const u8, n).to_vec()
    }
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_bind_blob(arg0: *mut sqlite3_stmt, arg1: c_int, arg2: *const c_void, n: c_int, arg4: sqlite3_destructor_type) -> c_int {
    ffi_guard!(SQLITE_INTERNAL, {
        let v = if arg2.is_null() { Value::Null } else { Value::Blob(raw(arg2, n.max(0) as usize)) };
        bind_buffer(arg0, arg1, v, arg2 as *mut c_void, arg4)
    })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_bind_blob64(
    arg0: *mut sqlite3_stmt,
    arg1: c_int,
    arg2: *const c_void,
    arg3: sqlite3_uint64,
    arg4: sqlite3_destructor_type,
) -> c_int {
    ffi_guard!(SQLITE_INTERNAL, {
        if arg3 > i32::MAX as u64 {
            release(arg4, arg2 as *mut c_void);
            return SQLITE_TOOBIG;
        }
        let v = if arg2.is_null() { Value::Null } else { Value::Blob(raw(arg2, arg3 as usize)) };
        bind_buffer(arg0, arg1, v, arg2 as *mut c_void, arg4)
    })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_bind_double(arg0: *mut sqlite3_stmt, arg1: c_int, arg2: f64) -> c_int {
    ffi_guard!(SQLITE_INTERNAL, { bind(arg0, arg1, if arg2.is_nan() { Value::Null } else { Value::Real(arg2) },) })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_bind_int(arg0: *mut sqlite3_stmt, arg1: c_int, arg2: c_int) -> c_int {
    ffi_guard!(SQLITE_INTERNAL, { bind(arg0, arg1, Value::Integer(arg2 as i64)) })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_bind_int64(arg0: *mut sqlite3_stmt, arg1: c_int, arg2: sqlite3_int64) -> c_int {
    ffi_guard!(SQLITE_INTERNAL, { bind(arg0, arg1, Value::Integer(arg2)) })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_bind_null(arg0: *mut sqlite3_stmt, arg1: c_int) -> c_int {
    ffi_guard!(SQLITE_INTERNAL, { bind(arg0, arg1, Value::Null) })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_bind_text(arg0: *mut sqlite3_stmt, arg1: c_int, arg2: *const c_char, arg3: c_int, arg4: sqlite3_destructor_type) -> c_int {
    ffi_guard!(SQLITE_INTERNAL, {
        let v = if arg2.is_null() {
            Value::Null
        } else {
            let n = if arg3 < 0 { c_len(arg2, -1) } else { arg3 as usize };
            Value::Text(raw(arg2 as *const c_void, n))
        };
        bind_buffer(arg0, arg1, v, arg2 as *mut c_void, arg4)
    })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_bind_text16(arg0: *mut sqlite3_stmt, arg1: c_int, arg2: *const c_void, arg3: c_int, arg4: sqlite3_destructor_type) -> c_int {
    ffi_guard!(SQLITE_INTERNAL, {
        let v = if arg2.is_null() { Value::Null } else { Value::Text(utf16_value_to_utf8(arg2, arg3 as i64)) };
        bind_buffer(arg0, arg1, v, arg2 as *mut c_void, arg4)
    })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_bind_text64(
    arg0: *mut sqlite3_stmt,
    arg1: c_int,
    arg2: *const c_char,
    arg3: sqlite3_uint64,
    arg4: sqlite3_destructor_type,
    encoding: c_uchar,
) -> c_int {
    ffi_guard!(SQLITE_INTERNAL, {
        if arg3 > i32::MAX as u64 {
            release(arg4, arg2 as *mut c_void);
            return SQLITE_TOOBIG;
        }
        let enc = encoding as c_int & !SQLITE_UTF16_ALIGNED;
        let v = if arg2.is_null() {
            Value::Null
        } else if enc == SQLITE_UTF16 || enc == SQLITE_UTF16LE || enc == SQLITE_UTF16BE {
            Value::Text(utf16_any(arg2 as *const c_void, arg3 as i64, enc))
        } else {
            Value::Text(raw(arg2 as *const c_void, arg3 as usize))
        };
        bind_buffer(arg0, arg1, v, arg2 as *mut c_void, arg4)
    })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_bind_value(arg0: *mut sqlite3_stmt, arg1: c_int, arg2: *const sqlite3_value) -> c_int {
    ffi_guard!(SQLITE_INTERNAL, {
        let v = arg2.as_ref().map_or(Value::Null, |v| v.value.clone());
        bind(arg0, arg1, v)
    })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_bind_pointer(
    arg0: *mut sqlite3_stmt,
    arg1: c_int,
    arg2: *mut c_void,
    arg3: *const c_char,
    arg4: sqlite3_destructor_type,
) -> c_int {
    ffi_guard!(SQLITE_INTERNAL, {
        // Pointer values read as NULL in SQL; the engine does not carry the
        // pointer itself yet, so it is released once bound.
        let _ = arg3;
        bind_buffer(arg0, arg1, Value::Null, arg2, arg4)
    })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_bind_zeroblob(arg0: *mut sqlite3_stmt, arg1: c_int, n: c_int) -> c_int {
    ffi_guard!(SQLITE_INTERNAL, { bind_checked(arg0, arg1, Value::zero_blob(n.max(0) as usize), false) })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_bind_zeroblob64(arg0: *mut sqlite3_stmt, arg1: c_int, arg2: sqlite3_uint64) -> c_int {
    ffi_guard!(SQLITE_INTERNAL, {
        // Checked before the range and busy checks, and without touching
        // the error state, as SQLite does.
        let limit = match stmt_ref(arg0) {
            Some(s) => {
                let db = s.db();
                let _g = db.lock.lock();
                db.with_conn(|c| c.limit_value(SQLITE_LIMIT_LENGTH)).unwrap_or(1_000_000_000)
            }
            None => return crate::error::misuse(),
        };
        if arg2 > limit as u64 {
            return SQLITE_TOOBIG;
        }
        bind_checked(arg0, arg1, Value::zero_blob(arg2 as usize), false)
    })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_bind_parameter_count(arg0: *mut sqlite3_stmt) -> c_int {
    ffi_guard!(0, { stmt_ref(arg0).map_or(0, |s| s.stmt.parameter_count() as c_int) })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_bind_parameter_name(arg0: *mut sqlite3_stmt, arg1: c_int) -> *const c_char {
    ffi_guard!(std::ptr::null(), {
        let Some(s) = stmt_ref(arg0) else {
            return std::ptr::null();
        };
        if arg1 < 1 {
            return std::ptr::null();
        }
        let _g = s.db().lock.lock();
        let Some(name) = s.stmt.parameter_name(arg1 as usize).map(|n| cstring(n).into_bytes_with_nul()) else {
            return std::ptr::null();
        };
        s.names.entry((20, arg1 as usize)).or_insert(name).as_ptr() as *const c_char
    })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_bind_parameter_index(arg0: *mut sqlite3_stmt, zName: *const c_char) -> c_int {
    ffi_guard!(0, {
        let Some(s) = stmt_ref(arg0) else { return 0 };
        if zName.is_null() {
            return 0;
        }
        let name = CStr::from_ptr(zName).to_string_lossy();
        s.stmt.parameter_index(&name) as c_int
    })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_clear_bindings(arg0: *mut sqlite3_stmt) -> c_int {
    ffi_guard!(SQLITE_INTERNAL, {
        let Some(s) = stmt_ref(arg0) else {
            return crate::error::misuse();
        };
        let _g = s.db().lock.lock();
        s.stmt.clear_bindings();
        s.release_bound(None);
        SQLITE_OK
    })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_transfer_bindings(arg0: *mut sqlite3_stmt, arg1: *mut sqlite3_stmt) -> c_int {
    ffi_guard!(SQLITE_INTERNAL, {
        let (Some(_), Some(_)) = (stmt_ref(arg0), stmt_ref(arg1)) else {
            return crate::error::misuse();
        };
        // The engine does not expose bound values for reading yet.
        SQLITE_ERROR
    })
}
