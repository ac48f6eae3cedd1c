//! # `sqlite3_result_*`: what an application-defined function returns
//!
//! Each call replaces the context's result. Text and blob arguments are
//! copied at once; a destructor other than `SQLITE_STATIC` /
//! `SQLITE_TRANSIENT` is then called on the caller's buffer, which is when
//! SQLite would be done with it at the latest.

use crate::consts::*;
use crate::convert::{c_len, utf16_to_utf8, utf16_value_to_utf8};
use crate::function::sqlite3_context;
use crate::printf::sqlite3_str;
use crate::types::{sqlite3_destructor_type, sqlite3_int64, sqlite3_uint64};
use crate::value::sqlite3_value;
use ringlite::value::Value;
use ringlite::Error;
use std::ffi::{c_char, c_int, c_uchar, c_uint, c_void};

/// Call a `bind_*`/`result_*` destructor unless it is STATIC (NULL) or
/// TRANSIENT (-1).
pub unsafe fn release(d: sqlite3_destructor_type, p: *mut c_void) {
    if let Some(f) = d {
        if f as usize != usize::MAX {
            f(p);
        }
    }
}

unsafe fn set(c: *mut sqlite3_context, v: Value) {
    if let Some(c) = c.as_mut() {
        c.result = v;
        c.error = None;
        c.pointer = None;
    }
}

unsafe fn bytes(p: *const c_void, n: i64) -> Vec<u8> {
    if p.is_null() || n <= 0 {
        Vec::new()
    } else {
        std::slice::from_raw_parts(p as *const u8, n as usize).to_vec()
    }
}

/// A text result: `n` bytes, NUL characters included (SQLite keeps them:
/// `length()` stops at the first, `hex()` and the column's bytes do not),
/// or up to the first NUL when `n < 0`.
unsafe fn text(p: *const c_char, n: i64) -> Vec<u8> {
    if p.is_null() {
        return Vec::new();
    }
    let len = if n < 0 { c_len(p, -1) } else { n as usize };
    std::slice::from_raw_parts(p as *const u8, len).to_vec()
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_result_blob(arg0: *mut sqlite3_context, arg1: *const c_void, arg2: c_int, arg3: sqlite3_destructor_type) {
    sqlite3_result_blob64(arg0, arg1, arg2.max(0) as u64, arg3)
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_result_blob64(arg0: *mut sqlite3_context, arg1: *const c_void, arg2: sqlite3_uint64, arg3: sqlite3_destructor_type) {
    ffi_guard!((), {
        if arg1.is_null() {
            set(arg0, Value::Null);
        } else {
            set(arg0, Value::Blob(bytes(arg1, arg2 as i64)));
        }
        release(arg3, arg1 as *mut c_void);
    })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_result_double(arg0: *mut sqlite3_context, arg1: f64) {
    ffi_guard!((), { set(arg0, if arg1.is_nan() { Value::Null } else { Value::Real(arg1) },) })
}

unsafe fn set_error(c: *mut sqlite3_context, code: i32, msg: String) {
    if let Some(c) = c.as_mut() {
        c.error = Some(Error::new(code, msg));
    }
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_result_error(arg0: *mut sqlite3_context, arg1: *const c_char, arg2: c_int) {
    ffi_guard!((), {
        let code = arg0.as_ref().and_then(|c| c.error.as_ref()).map_or(SQLITE_ERROR, |e| e.code);
        let msg = String::from_utf8_lossy(&text(arg1, arg2 as i64)).into_owned();
        set_error(arg0, code, msg)
    })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_result_error16(arg0: *mut sqlite3_context, arg1: *const c_void, arg2: c_int) {
    ffi_guard!((), {
        let code = arg0.as_ref().and_then(|c| c.error.as_ref()).map_or(SQLITE_ERROR, |e| e.code);
        let msg = String::from_utf8_lossy(&utf16_to_utf8(arg1, arg2 as i64)).into_owned();
        set_error(arg0, code, msg)
    })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_result_error_toobig(arg0: *mut sqlite3_context) {
    ffi_guard!((), { set_error(arg0, SQLITE_TOOBIG, "string or blob too big".into()) })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_result_error_nomem(arg0: *mut sqlite3_context) {
    ffi_guard!((), { set_error(arg0, SQLITE_NOMEM, "out of memory".into()) })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_result_error_code(arg0: *mut sqlite3_context, arg1: c_int) {
    ffi_guard!((), {
        let code = if arg1 == SQLITE_OK { SQLITE_ERROR } else { arg1 };
        let msg = match arg0.as_ref().and_then(|c| c.error.as_ref()) {
            Some(e) => e.message.clone(),
            None => ringlite::error::errstr(code).to_string(),
        };
        set_error(arg0, code, msg)
    })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_result_int(arg0: *mut sqlite3_context, arg1: c_int) {
    ffi_guard!((), { set(arg0, Value::Integer(arg1 as i64)) })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_result_int64(arg0: *mut sqlite3_context, arg1: sqlite3_int64) {
    ffi_guard!((), { set(arg0, Value::Integer(arg1)) })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_result_null(arg0: *mut sqlite3_context) {
    ffi_guard!((), { set(arg0, Value::Null) })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_result_text(arg0: *mut sqlite3_context, arg1: *const c_char, arg2: c_int, arg3: sqlite3_destructor_type) {
    ffi_guard!((), {
        if arg1.is_null() {
            set(arg0, Value::Null);
        } else {
            set(arg0, Value::Text(text(arg1, arg2 as i64)));
        }
        release(arg3, arg1 as *mut c_void);
    })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_result_text64(
    arg0: *mut sqlite3_context,
    z: *const c_char,
    n: sqlite3_uint64,
    arg3: sqlite3_destructor_type,
    encoding: c_uchar,
) {
    ffi_guard!((), {
        let enc = encoding as c_int & !SQLITE_UTF16_ALIGNED;
        if z.is_null() {
            set(arg0, Value::Null);
        } else if enc == SQLITE_UTF16 || enc == SQLITE_UTF16LE || enc == SQLITE_UTF16BE {
            set(arg0, Value::Text(utf16_any(z as *const c_void, n.min(i64::MAX as u64) as i64, enc)));
        } else {
            set(arg0, Value::Text(text(z, n.min(i64::MAX as u64) as i64)));
        }
        release(arg3, z as *mut c_void);
    })
}

/// UTF-16 in the given byte order to UTF-8: `n` bytes (NUL characters
/// kept), or up to the first NUL unit when `n < 0`.
pub unsafe fn utf16_any(p: *const c_void, n: i64, enc: c_int) -> Vec<u8> {
    let native = if cfg!(target_endian = "little") { SQLITE_UTF16LE } else { SQLITE_UTF16BE };
    if enc == SQLITE_UTF16 || enc == native {
        return utf16_value_to_utf8(p, n);
    }
    let q = p as *const u16;
    let mut units = Vec::new();
    let mut i = 0usize;
    loop {
        if n >= 0 && (i * 2 + 1) as i64 >= n {
            break;
        }
        let u = (*q.add(i)).swap_bytes();
        if u == 0 && n < 0 {
            break;
        }
        units.push(u);
        i += 1;
    }
    String::from_utf16_lossy(&units).into_bytes()
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_result_text16(arg0: *mut sqlite3_context, arg1: *const c_void, arg2: c_int, arg3: sqlite3_destructor_type) {
    ffi_guard!((), {
        if arg1.is_null() {
            set(arg0, Value::Null);
        } else {
            set(arg0, Value::Text(utf16_value_to_utf8(arg1, arg2 as i64)));
        }
        release(arg3, arg1 as *mut c_void);
    })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_result_text16le(arg0: *mut sqlite3_context, arg1: *const c_void, arg2: c_int, arg3: sqlite3_destructor_type) {
    ffi_guard!((), {
        set(arg0, if arg1.is_null() { Value::Null } else { Value::Text(utf16_any(arg1, arg2 as i64, SQLITE_UTF16LE)) });
        release(arg3, arg1 as *mut c_void);
    })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_result_text16be(arg0: *mut sqlite3_context, arg1: *const c_void, arg2: c_int, arg3: sqlite3_destructor_type) {
    ffi_guard!((), {
        set(arg0, if arg1.is_null() { Value::Null } else { Value::Text(utf16_any(arg1, arg2 as i64, SQLITE_UTF16BE)) });
        release(arg3, arg1 as *mut c_void);
    })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_result_value(arg0: *mut sqlite3_context, arg1: *mut sqlite3_value) {
    ffi_guard!((), {
        let Some(v) = arg1.as_ref() else {
            return set(arg0, Value::Null);
        };
        set(arg0, v.value.clone());
        if let Some(c) = arg0.as_mut() {
            c.subtype = v.subtype;
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_result_pointer(arg0: *mut sqlite3_context, arg1: *mut c_void, arg2: *const c_char, arg3: sqlite3_destructor_type) {
    ffi_guard!((), {
        set(arg0, Value::Null);
        // The engine carries no pointer values yet: the result reads as NULL
        // and the pointer is released at once.
        release(arg3, arg1);
        let _ = arg2;
    })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_result_zeroblob(arg0: *mut sqlite3_context, n: c_int) {
    ffi_guard!((), { set(arg0, Value::zero_blob(n.max(0) as usize)) })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_result_zeroblob64(arg0: *mut sqlite3_context, n: sqlite3_uint64) -> c_int {
    ffi_guard!(SQLITE_INTERNAL, {
        if n > 1_000_000_000 {
            sqlite3_result_error_toobig(arg0);
            return SQLITE_TOOBIG;
        }
        set(arg0, Value::zero_blob(n as usize));
        SQLITE_OK
    })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_result_subtype(arg0: *mut sqlite3_context, arg1: c_uint) {
    ffi_guard!((), {
        if let Some(c) = arg0.as_mut() {
            c.subtype = arg1;
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_result_str(arg0: *mut sqlite3_context, arg1: *mut sqlite3_str, arg2: c_int) {
    ffi_guard!((), {
        let Some(s) = arg1.as_mut() else { return };
        if s.errcode != SQLITE_OK {
            set_error(arg0, s.errcode, ringlite::error::errstr(s.errcode).into());
        } else {
            let mut t = s.buf.clone();
            if arg2 >= 0 {
                t.truncate(arg2 as usize);
            }
            set(arg0, Value::Text(t));
        }
        drop(Box::from_raw(arg1));
    })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_vtab_nochange(arg0: *mut sqlite3_context) -> c_int {
    ffi_guard!(0, {
        if arg0.is_null() {
            return 0;
        }
        (*arg0).nochange as c_int
    })
}
