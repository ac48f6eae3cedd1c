//! # `sqlite3_result_*`: what an application-defined function returns
//!
//! Each call replaces the context's result. Text and blob arguments are
//! copied at once; a destructor other than `SQLITE_STATIC` /
//! `SQLITE_TRANSIENT` is then called on the caller's buffer, which is when
//! SQLite would be done with it at the latest.

use crate::consts::*;
use crate::convert::{c_len, utf16_to_utf8, utf16_value_to_utf8};
use crate::function::sqlite3_context;
use crate::memory::release;
use crate::printf::sqlite3_str;
use crate::types::{sqlite3_destructor_type, sqlite3_int64, sqlite3_uint64};
use crate::value::sqlite3_value;
use ringlite::value::Value;
use ringlite::Error;
use std::ffi::{c_char, c_int, c_uchar, c_uint, c_void};

unsafe fn set(c: *mut sqlite3_context, v: Value) {
    // SAFETY: the caller guarantees: `c` is the context of the function call in progress.
    unsafe {
        if let Some(c) = c.as_mut() {
            c.result = v;
            c.error = None;
            // A value is set: xColumn no longer leaves it unchanged
            // (`sqlite3_vtab_nochange` answers 0 from here, as in SQLite).
            c.nochange = false;
        }
    }
}

unsafe fn bytes(p: *const c_void, n: i64) -> Vec<u8> {
    // SAFETY: the caller guarantees: `p` is NULL or valid for what the API does with it (read for the length
    // given, or handed back to callbacks untouched).
    unsafe {
        if p.is_null() || n <= 0 {
            Vec::new()
        } else {
            std::slice::from_raw_parts(p as *const u8, n as usize).to_vec()
        }
    }
}

/// A text result: `n` bytes, NUL characters included (SQLite keeps them:
/// `length()` stops at the first, `hex()` and the column's bytes do not),
/// or up to the first NUL when `n < 0`.
unsafe fn text(p: *const c_char, n: i64) -> Vec<u8> {
    // SAFETY: the caller guarantees: `p` is NULL or NUL-terminated (or readable for the length given with
    // it).
    unsafe {
        if p.is_null() {
            return Vec::new();
        }
        let len = if n < 0 { c_len(p, -1) } else { n as usize };
        std::slice::from_raw_parts(p as *const u8, len).to_vec()
    }
}

/// Make a copy of the `n` bytes at `z` the BLOB result of the running
/// function; `xDel` as for sqlite3_bind_blob.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_result_blob(pCtx: *mut sqlite3_context, z: *const c_void, n: c_int, xDel: sqlite3_destructor_type) {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pCtx` is the context of the
    // function call in progress; `z` is NULL or valid for what the API does with it (read for the length
    // given, or handed back to callbacks untouched); `xDel`, when set, is safe to call with the arguments the
    // API documents until unregistered.
    unsafe { sqlite3_result_blob64(pCtx, z, n.max(0) as u64, xDel) }
}

/// sqlite3_result_blob with a 64-bit length (too long gives the
/// "string or blob too big" error).
#[no_mangle]
pub unsafe extern "C" fn sqlite3_result_blob64(pCtx: *mut sqlite3_context, z: *const c_void, n: sqlite3_uint64, xDel: sqlite3_destructor_type) {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pCtx` is the context of the
    // function call in progress; `z` is NULL or valid for what the API does with it (read for the length
    // given, or handed back to callbacks untouched); `xDel`, when set, is safe to call with the arguments the
    // API documents until unregistered.
    unsafe {
        ffi_guard!((), {
            if z.is_null() {
                set(pCtx, Value::Null);
            } else {
                set(pCtx, Value::Blob(bytes(z, n as i64)));
            }
            release(xDel, z as *mut c_void);
        })
    }
}

/// Make `rVal` the function's result.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_result_double(pCtx: *mut sqlite3_context, rVal: f64) {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pCtx` is the context of the
    // function call in progress.
    unsafe { ffi_guard!((), { set(pCtx, if rVal.is_nan() { Value::Null } else { Value::Real(rVal) },) }) }
}

unsafe fn set_error(c: *mut sqlite3_context, code: i32, msg: String) {
    // SAFETY: the caller guarantees: `c` is the context of the function call in progress.
    unsafe {
        if let Some(c) = c.as_mut() {
            c.error = Some(Error::new(code, msg));
        }
    }
}

/// Make the function fail with the message of `n` bytes at `z` (up to the NUL
/// when `n` is negative), code SQLITE_ERROR unless set otherwise.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_result_error(pCtx: *mut sqlite3_context, z: *const c_char, n: c_int) {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pCtx` is the context of the
    // function call in progress; `z` is NULL or NUL-terminated (or readable for the length given with it).
    unsafe {
        ffi_guard!((), {
            let code = pCtx.as_ref().and_then(|c| c.error.as_ref()).map_or(SQLITE_ERROR, |e| e.code);
            let msg = String::from_utf8_lossy(&text(z, n as i64)).into_owned();
            set_error(pCtx, code, msg)
        })
    }
}

/// sqlite3_result_error with a UTF-16 message.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_result_error16(pCtx: *mut sqlite3_context, z: *const c_void, n: c_int) {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pCtx` is the context of the
    // function call in progress; `z` is NULL or valid for what the API does with it (read for the length
    // given, or handed back to callbacks untouched).
    unsafe {
        ffi_guard!((), {
            let code = pCtx.as_ref().and_then(|c| c.error.as_ref()).map_or(SQLITE_ERROR, |e| e.code);
            let msg = String::from_utf8_lossy(&utf16_to_utf8(z, n as i64)).into_owned();
            set_error(pCtx, code, msg)
        })
    }
}

/// Make the function fail with SQLITE_TOOBIG ("string or blob too big").
#[no_mangle]
pub unsafe extern "C" fn sqlite3_result_error_toobig(pCtx: *mut sqlite3_context) {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pCtx` is the context of the
    // function call in progress.
    unsafe { ffi_guard!((), { set_error(pCtx, SQLITE_TOOBIG, "string or blob too big".into()) }) }
}

/// Make the function fail with SQLITE_NOMEM.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_result_error_nomem(pCtx: *mut sqlite3_context) {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pCtx` is the context of the
    // function call in progress.
    unsafe { ffi_guard!((), { set_error(pCtx, SQLITE_NOMEM, "out of memory".into()) }) }
}

/// Set the result code the function's failure reports to `errCode`.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_result_error_code(pCtx: *mut sqlite3_context, errCode: c_int) {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pCtx` is the context of the
    // function call in progress.
    unsafe {
        ffi_guard!((), {
            let code = if errCode == SQLITE_OK { SQLITE_ERROR } else { errCode };
            let msg = match pCtx.as_ref().and_then(|c| c.error.as_ref()) {
                Some(e) => e.message.clone(),
                None => ringlite::error::errstr(code).to_string(),
            };
            set_error(pCtx, code, msg)
        })
    }
}

/// Make the 32-bit integer `iVal` the function's result.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_result_int(pCtx: *mut sqlite3_context, iVal: c_int) {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pCtx` is the context of the
    // function call in progress.
    unsafe { ffi_guard!((), { set(pCtx, Value::Integer(iVal as i64)) }) }
}

/// Make the 64-bit integer `iVal` the function's result.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_result_int64(pCtx: *mut sqlite3_context, iVal: sqlite3_int64) {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pCtx` is the context of the
    // function call in progress.
    unsafe { ffi_guard!((), { set(pCtx, Value::Integer(iVal)) }) }
}

/// Make NULL the function's result.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_result_null(pCtx: *mut sqlite3_context) {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pCtx` is the context of the
    // function call in progress.
    unsafe { ffi_guard!((), { set(pCtx, Value::Null) }) }
}

/// Make a copy of the UTF-8 text at `z` (`n` bytes, or up to the NUL when
/// negative) the function's result; `xDel` as for sqlite3_bind_text.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_result_text(pCtx: *mut sqlite3_context, z: *const c_char, n: c_int, xDel: sqlite3_destructor_type) {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pCtx` is the context of the
    // function call in progress; `z` is NULL or NUL-terminated (or readable for the length given with it);
    // `xDel`, when set, is safe to call with the arguments the API documents until unregistered.
    unsafe {
        ffi_guard!((), {
            if z.is_null() {
                set(pCtx, Value::Null);
            } else {
                set(pCtx, Value::Text(text(z, n as i64)));
            }
            release(xDel, z as *mut c_void);
        })
    }
}

/// Text result of a 64-bit length in encoding `encoding` (SQLITE_UTF8,
/// SQLITE_UTF16, SQLITE_UTF16LE or SQLITE_UTF16BE).
#[no_mangle]
pub unsafe extern "C" fn sqlite3_result_text64(
    pCtx: *mut sqlite3_context,
    z: *const c_char,
    n: sqlite3_uint64,
    xDel: sqlite3_destructor_type,
    encoding: c_uchar,
) {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pCtx` is the context of the
    // function call in progress; `z` is NULL or NUL-terminated (or readable for the length given with it);
    // `xDel`, when set, is safe to call with the arguments the API documents until unregistered.
    unsafe {
        ffi_guard!((), {
            let enc = encoding as c_int & !SQLITE_UTF16_ALIGNED;
            if z.is_null() {
                set(pCtx, Value::Null);
            } else if enc == SQLITE_UTF16 || enc == SQLITE_UTF16LE || enc == SQLITE_UTF16BE {
                set(pCtx, Value::Text(utf16_any(z as *const c_void, n.min(i64::MAX as u64) as i64, enc)));
            } else {
                set(pCtx, Value::Text(text(z, n.min(i64::MAX as u64) as i64)));
            }
            release(xDel, z as *mut c_void);
        })
    }
}

/// UTF-16 in the given byte order to UTF-8: `n` bytes (NUL characters
/// kept), or up to the first NUL unit when `n < 0`.
pub unsafe fn utf16_any(p: *const c_void, n: i64, enc: c_int) -> Vec<u8> {
    // SAFETY: the caller guarantees: `p` is NULL or valid for what the API does with it (read for the length
    // given, or handed back to callbacks untouched).
    unsafe {
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
}

/// Text result given in UTF-16, machine byte order.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_result_text16(pCtx: *mut sqlite3_context, z: *const c_void, n: c_int, xDel: sqlite3_destructor_type) {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pCtx` is the context of the
    // function call in progress; `z` is NULL or valid for what the API does with it (read for the length
    // given, or handed back to callbacks untouched); `xDel`, when set, is safe to call with the arguments the
    // API documents until unregistered.
    unsafe {
        ffi_guard!((), {
            if z.is_null() {
                set(pCtx, Value::Null);
            } else {
                set(pCtx, Value::Text(utf16_value_to_utf8(z, n as i64)));
            }
            release(xDel, z as *mut c_void);
        })
    }
}

/// Text result given in UTF-16 little-endian.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_result_text16le(pCtx: *mut sqlite3_context, z: *const c_void, n: c_int, xDel: sqlite3_destructor_type) {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pCtx` is the context of the
    // function call in progress; `z` is NULL or valid for what the API does with it (read for the length
    // given, or handed back to callbacks untouched); `xDel`, when set, is safe to call with the arguments the
    // API documents until unregistered.
    unsafe {
        ffi_guard!((), {
            set(pCtx, if z.is_null() { Value::Null } else { Value::Text(utf16_any(z, n as i64, SQLITE_UTF16LE)) });
            release(xDel, z as *mut c_void);
        })
    }
}

/// Text result given in UTF-16 big-endian.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_result_text16be(pCtx: *mut sqlite3_context, z: *const c_void, n: c_int, xDel: sqlite3_destructor_type) {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pCtx` is the context of the
    // function call in progress; `z` is NULL or valid for what the API does with it (read for the length
    // given, or handed back to callbacks untouched); `xDel`, when set, is safe to call with the arguments the
    // API documents until unregistered.
    unsafe {
        ffi_guard!((), {
            set(pCtx, if z.is_null() { Value::Null } else { Value::Text(utf16_any(z, n as i64, SQLITE_UTF16BE)) });
            release(xDel, z as *mut c_void);
        })
    }
}

/// Make a copy of `pValue` the function's result.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_result_value(pCtx: *mut sqlite3_context, pValue: *mut sqlite3_value) {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pCtx` is the context of the
    // function call in progress; `pValue` is NULL or a value this library handed out, still alive.
    unsafe {
        ffi_guard!((), {
            let Some(v) = pValue.as_ref() else {
                return set(pCtx, Value::Null);
            };
            set(pCtx, v.value.clone());
            if let Some(c) = pCtx.as_mut() {
                c.subtype = v.subtype;
            }
        })
    }
}

/// Pointer result of type `zPType`, seen as NULL by SQL (see `pointer.rs`).
#[no_mangle]
pub unsafe extern "C" fn sqlite3_result_pointer(pCtx: *mut sqlite3_context, pPtr: *mut c_void, zPType: *const c_char, xDestructor: sqlite3_destructor_type) {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pCtx` is the context of the
    // function call in progress; `zPType` is NULL or NUL-terminated (or readable for the length given with
    // it); `pPtr` is NULL or valid for what the API does with it (read for the length given, or handed back
    // to callbacks untouched); `xDestructor`, when set, is safe to call with the arguments the API documents
    // until unregistered.
    unsafe {
        ffi_guard!((), {
            if pCtx.is_null() {
                release(xDestructor, pPtr);
                return;
            }
            set(pCtx, crate::pointer::pointer_value(pPtr, zPType, xDestructor));
        })
    }
}

/// Make a BLOB of `n` zero bytes the function's result.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_result_zeroblob(pCtx: *mut sqlite3_context, n: c_int) {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pCtx` is the context of the
    // function call in progress.
    unsafe { ffi_guard!((), { set(pCtx, Value::zero_blob(n.max(0) as usize)) }) }
}

/// sqlite3_result_zeroblob with a 64-bit size; SQLITE_TOOBIG beyond the length
/// limit, else SQLITE_OK.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_result_zeroblob64(pCtx: *mut sqlite3_context, n: sqlite3_uint64) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pCtx` is the context of the
    // function call in progress.
    unsafe {
        ffi_guard!(SQLITE_INTERNAL, {
            if n > 1_000_000_000 {
                sqlite3_result_error_toobig(pCtx);
                return SQLITE_TOOBIG;
            }
            set(pCtx, Value::zero_blob(n as usize));
            SQLITE_OK
        })
    }
}

/// Give the function's result the subtype `eSubtype` (its low 8 bits).
#[no_mangle]
pub unsafe extern "C" fn sqlite3_result_subtype(pCtx: *mut sqlite3_context, eSubtype: c_uint) {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pCtx` is the context of the
    // function call in progress.
    unsafe {
        ffi_guard!((), {
            if let Some(c) = pCtx.as_mut() {
                c.subtype = eSubtype;
            }
        })
    }
}

/// Make the text of the builder `pStr` (its first `n` bytes when `n` >= 0) the
/// function's result, or its error if it failed, and free the builder.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_result_str(pCtx: *mut sqlite3_context, pStr: *mut sqlite3_str, n: c_int) {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pCtx` is the context of the
    // function call in progress; `pStr` is NULL or a live `sqlite3_str` this library or SQLite's API contract
    // provides.
    unsafe {
        ffi_guard!((), {
            let Some(s) = pStr.as_mut() else { return };
            if s.errcode != SQLITE_OK {
                set_error(pCtx, s.errcode, ringlite::error::errstr(s.errcode).into());
            } else {
                let mut t = s.buf.clone();
                if n >= 0 {
                    t.truncate(n as usize);
                }
                set(pCtx, Value::Text(t));
            }
            drop(Box::from_raw(pStr));
        })
    }
}

/// Inside a virtual table's xColumn during an UPDATE: 1 if the column is not
/// being changed, so the method may skip computing it; else 0.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_vtab_nochange(pCtx: *mut sqlite3_context) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pCtx` is the context of the
    // function call in progress.
    unsafe {
        ffi_guard!(0, {
            if pCtx.is_null() {
                return 0;
            }
            (*pCtx).nochange as c_int
        })
    }
}
