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
use crate::memory::release;
use crate::result::utf16_any;
use crate::types::{sqlite3_destructor_type, sqlite3_int64, sqlite3_uint64};
use crate::value::sqlite3_value;
use ringlite::value::Value;
use ringlite::Error;
use std::ffi::{c_char, c_int, c_uchar, c_void, CStr};

/// What a bind stores: a value, or text or blob bytes copied into the
/// parameter's own buffer (reused from its last binding: a statement bound
/// and run in a loop allocates nothing per bind).
pub enum Bind<'a> {
    Value(Value),
    Bytes { text: bool, bytes: &'a [u8] },
}

impl From<Value> for Bind<'_> {
    fn from(v: Value) -> Self {
        Bind::Value(v)
    }
}

/// Bind `v`, copied from the application's buffer `buf`, to parameter `i`,
/// and take charge of the buffer's destructor.
unsafe fn bind_buffer<'a>(p: *mut sqlite3_stmt, i: c_int, v: impl Into<Bind<'a>>, buf: *mut c_void, destroy: sqlite3_destructor_type) -> c_int {
    // SAFETY: the caller guarantees: `p` is NULL or a statement from `sqlite3_prepare*` not yet finalized;
    // `buf` is NULL or valid for what the API does with it (read for the length given, or handed back to
    // callbacks untouched); `destroy`, when set, is safe to call with the arguments the API documents until
    // unregistered.
    unsafe {
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
}

/// Bind `v` to parameter `i` of `p`, with SQLite's checks.
pub unsafe fn bind<'a>(p: *mut sqlite3_stmt, i: c_int, v: impl Into<Bind<'a>>) -> c_int {
    // SAFETY: the caller guarantees: `p` is NULL or a statement from `sqlite3_prepare*` not yet finalized.
    unsafe { bind_checked(p, i, v.into(), true) }
}

/// [`bind`], with or without the `SQLITE_LIMIT_LENGTH` check (SQLite does
/// not apply it to `sqlite3_bind_zeroblob`, only to `bind_zeroblob64`).
unsafe fn bind_checked(p: *mut sqlite3_stmt, i: c_int, v: Bind<'_>, check_length: bool) -> c_int {
    // SAFETY: the caller guarantees: `p` is NULL or a statement from `sqlite3_prepare*` not yet finalized.
    unsafe {
        let Some(s) = stmt_ref(p) else {
            return crate::error::misuse();
        };
        let db = s.db();
        let _g = db.lock.lock();
        if s.stmt.busy() {
            let e = Error::new(SQLITE_MISUSE, "bad parameter or other API misuse");
            crate::error::log(SQLITE_MISUSE, &format!("bind on a busy prepared statement: [{}]", s.stmt.sql()));
            return report(db, &e);
        }
        if i < 1 || i as usize > s.stmt.parameter_count() {
            set_error(db, SQLITE_RANGE, None);
            return visible_code(db, SQLITE_RANGE);
        }
        s.release_bound(Some(i as usize));
        if check_length {
            let len = match &v {
                Bind::Value(v @ (Value::Text(_) | Value::Blob(_) | Value::ZeroBlob(_))) => Some(v.byte_len()),
                Bind::Value(_) => None,
                Bind::Bytes { bytes, .. } => Some(bytes.len()),
            };
            if let Some(len) = len {
                // Inside a callback of this connection the limit cannot be read;
                // the compile-time maximum applies then.
                let limit = db.with_conn(|c| c.limit_value(SQLITE_LIMIT_LENGTH)).unwrap_or(1_000_000_000);
                if len as i64 > i64::from(limit) {
                    set_error(db, SQLITE_TOOBIG, None);
                    return visible_code(db, SQLITE_TOOBIG);
                }
            }
        }
        let r = match v {
            Bind::Value(v) => s.stmt.bind(i as usize, v),
            Bind::Bytes { text, bytes } => s.stmt.bind_bytes(i as usize, text, bytes),
        };
        match r {
            Ok(()) => SQLITE_OK,
            Err(e) => report(db, &e),
        }
    }
}

/// The application's `n` bytes at `p` (none for a NULL pointer).
unsafe fn bytes<'a>(p: *const c_void, n: usize) -> &'a [u8] {
    // SAFETY: the caller guarantees: `p` is NULL or valid for what the API does with it (read for the length
    // given, or handed back to callbacks untouched).
    unsafe {
        if p.is_null() || n == 0 {
            &[]
        } else {
            std::slice::from_raw_parts(p as *const u8, n)
        }
    }
}

unsafe fn raw(p: *const c_void, n: usize) -> Vec<u8> {
    // SAFETY: the caller guarantees: `p` is NULL or valid for what the API does with it (read for the length
    // given, or handed back to callbacks untouched).
    unsafe {
        if p.is_null() || n == 0 {
            Vec::new()
        } else {
            std::slice::from_raw_parts(p as *const u8, n).to_vec()
        }
    }
}

/// Bind a copy of the `n` bytes at `zData` as a BLOB to parameter `i` (1-based)
/// of `pStmt`; a NULL `zData` binds NULL. `xDel` is SQLITE_STATIC,
/// SQLITE_TRANSIENT or a destructor called when the buffer is no longer needed.
/// Returns SQLITE_OK, SQLITE_RANGE for a bad index, SQLITE_TOOBIG, or
/// SQLITE_MISUSE while the statement runs.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_bind_blob(pStmt: *mut sqlite3_stmt, i: c_int, zData: *const c_void, n: c_int, xDel: sqlite3_destructor_type) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pStmt` is NULL or a statement from
    // `sqlite3_prepare*` not yet finalized; `zData` is NULL or valid for what the API does with it (read for
    // the length given, or handed back to callbacks untouched); `xDel`, when set, is safe to call with the
    // arguments the API documents until unregistered.
    unsafe {
        ffi_guard!(SQLITE_INTERNAL, {
            let v = if zData.is_null() { Bind::Value(Value::Null) } else { Bind::Bytes { text: false, bytes: bytes(zData, n.max(0) as usize) } };
            bind_buffer(pStmt, i, v, zData as *mut c_void, xDel)
        })
    }
}

/// sqlite3_bind_blob with a 64-bit length; a length beyond the library's limit
/// gives SQLITE_TOOBIG (and `xDel` is called at once).
#[no_mangle]
pub unsafe extern "C" fn sqlite3_bind_blob64(
    pStmt: *mut sqlite3_stmt,
    i: c_int,
    zData: *const c_void,
    nData: sqlite3_uint64,
    xDel: sqlite3_destructor_type,
) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pStmt` is NULL or a statement from
    // `sqlite3_prepare*` not yet finalized; `zData` is NULL or valid for what the API does with it (read for
    // the length given, or handed back to callbacks untouched); `xDel`, when set, is safe to call with the
    // arguments the API documents until unregistered.
    unsafe {
        ffi_guard!(SQLITE_INTERNAL, {
            if nData > i32::MAX as u64 {
                release(xDel, zData as *mut c_void);
                return SQLITE_TOOBIG;
            }
            let v = if zData.is_null() { Bind::Value(Value::Null) } else { Bind::Bytes { text: false, bytes: bytes(zData, nData as usize) } };
            bind_buffer(pStmt, i, v, zData as *mut c_void, xDel)
        })
    }
}

/// Bind the floating-point value `rValue` to parameter `i` of `pStmt` (a NaN
/// binds NULL). Returns SQLITE_OK, SQLITE_RANGE or SQLITE_MISUSE.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_bind_double(pStmt: *mut sqlite3_stmt, i: c_int, rValue: f64) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pStmt` is NULL or a statement from
    // `sqlite3_prepare*` not yet finalized.
    unsafe { ffi_guard!(SQLITE_INTERNAL, { bind(pStmt, i, if rValue.is_nan() { Value::Null } else { Value::Real(rValue) },) }) }
}

/// Bind the 32-bit integer `iValue` to parameter `i` of `pStmt`.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_bind_int(pStmt: *mut sqlite3_stmt, i: c_int, iValue: c_int) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pStmt` is NULL or a statement from
    // `sqlite3_prepare*` not yet finalized.
    unsafe { ffi_guard!(SQLITE_INTERNAL, { bind(pStmt, i, Value::Integer(iValue as i64)) }) }
}

/// Bind the 64-bit integer `iValue` to parameter `i` of `pStmt`.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_bind_int64(pStmt: *mut sqlite3_stmt, i: c_int, iValue: sqlite3_int64) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pStmt` is NULL or a statement from
    // `sqlite3_prepare*` not yet finalized.
    unsafe { ffi_guard!(SQLITE_INTERNAL, { bind(pStmt, i, Value::Integer(iValue)) }) }
}

/// Bind NULL to parameter `i` of `pStmt`.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_bind_null(pStmt: *mut sqlite3_stmt, i: c_int) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pStmt` is NULL or a statement from
    // `sqlite3_prepare*` not yet finalized.
    unsafe { ffi_guard!(SQLITE_INTERNAL, { bind(pStmt, i, Value::Null) }) }
}

/// Bind UTF-8 text to parameter `i` of `pStmt`: `nData` bytes at `zData`, or up
/// to its NUL terminator when `nData` is negative. `xDel` as for
/// sqlite3_bind_blob. A NULL `zData` binds NULL.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_bind_text(pStmt: *mut sqlite3_stmt, i: c_int, zData: *const c_char, nData: c_int, xDel: sqlite3_destructor_type) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pStmt` is NULL or a statement from
    // `sqlite3_prepare*` not yet finalized; `zData` is NULL or NUL-terminated (or readable for the length
    // given with it); `xDel`, when set, is safe to call with the arguments the API documents until
    // unregistered.
    unsafe {
        ffi_guard!(SQLITE_INTERNAL, {
            let v = if zData.is_null() {
                Bind::Value(Value::Null)
            } else {
                let n = if nData < 0 { c_len(zData, -1) } else { nData as usize };
                Bind::Bytes { text: true, bytes: bytes(zData as *const c_void, n) }
            };
            bind_buffer(pStmt, i, v, zData as *mut c_void, xDel)
        })
    }
}

/// Bind UTF-16 text in the machine's byte order (`nData` bytes, or up to a
/// two-byte NUL when negative) to parameter `i`; it is stored as UTF-8.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_bind_text16(pStmt: *mut sqlite3_stmt, i: c_int, zData: *const c_void, nData: c_int, xDel: sqlite3_destructor_type) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pStmt` is NULL or a statement from
    // `sqlite3_prepare*` not yet finalized; `zData` is NULL or valid for what the API does with it (read for
    // the length given, or handed back to callbacks untouched); `xDel`, when set, is safe to call with the
    // arguments the API documents until unregistered.
    unsafe {
        ffi_guard!(SQLITE_INTERNAL, {
            let v = if zData.is_null() { Value::Null } else { Value::Text(utf16_value_to_utf8(zData, nData as i64)) };
            bind_buffer(pStmt, i, v, zData as *mut c_void, xDel)
        })
    }
}

/// Bind text of a 64-bit length in the encoding `encoding` (SQLITE_UTF8,
/// SQLITE_UTF16, SQLITE_UTF16LE or SQLITE_UTF16BE) to parameter `i`; too long
/// a text gives SQLITE_TOOBIG and `xDel` is called at once.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_bind_text64(
    pStmt: *mut sqlite3_stmt,
    i: c_int,
    zData: *const c_char,
    nData: sqlite3_uint64,
    xDel: sqlite3_destructor_type,
    encoding: c_uchar,
) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pStmt` is NULL or a statement from
    // `sqlite3_prepare*` not yet finalized; `zData` is NULL or NUL-terminated (or readable for the length
    // given with it); `xDel`, when set, is safe to call with the arguments the API documents until
    // unregistered.
    unsafe {
        ffi_guard!(SQLITE_INTERNAL, {
            if nData > i32::MAX as u64 {
                release(xDel, zData as *mut c_void);
                return SQLITE_TOOBIG;
            }
            let enc = encoding as c_int & !SQLITE_UTF16_ALIGNED;
            let v = if zData.is_null() {
                Value::Null
            } else if enc == SQLITE_UTF16 || enc == SQLITE_UTF16LE || enc == SQLITE_UTF16BE {
                Value::Text(utf16_any(zData as *const c_void, nData as i64, enc))
            } else {
                Value::Text(raw(zData as *const c_void, nData as usize))
            };
            bind_buffer(pStmt, i, v, zData as *mut c_void, xDel)
        })
    }
}

/// Bind a copy of the value `pValue` (its type and content) to parameter `i`.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_bind_value(pStmt: *mut sqlite3_stmt, i: c_int, pValue: *const sqlite3_value) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pStmt` is NULL or a statement from
    // `sqlite3_prepare*` not yet finalized; `pValue` is NULL or a value this library handed out, still alive.
    unsafe {
        ffi_guard!(SQLITE_INTERNAL, {
            let v = pValue.as_ref().map_or(Value::Null, |v| v.value.clone());
            bind(pStmt, i, v)
        })
    }
}

/// Bind a pointer of type `zPType` to parameter `i`; SQL sees it as NULL.
/// `xDestructor` runs when the binding is replaced or the statement is
/// finalized (see `pointer.rs`).
#[no_mangle]
pub unsafe extern "C" fn sqlite3_bind_pointer(
    pStmt: *mut sqlite3_stmt,
    i: c_int,
    pPtr: *mut c_void,
    zPType: *const c_char,
    xDestructor: sqlite3_destructor_type,
) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pStmt` is NULL or a statement from
    // `sqlite3_prepare*` not yet finalized; `zPType` is NULL or NUL-terminated (or readable for the length
    // given with it); `pPtr` is NULL or valid for what the API does with it (read for the length given, or
    // handed back to callbacks untouched); `xDestructor`, when set, is safe to call with the arguments the
    // API documents until unregistered.
    unsafe { ffi_guard!(SQLITE_INTERNAL, { bind(pStmt, i, crate::pointer::pointer_value(pPtr, zPType, xDestructor)) }) }
}

/// Bind a BLOB of `n` zero bytes to parameter `i` (a negative `n` binds an
/// empty BLOB).
#[no_mangle]
pub unsafe extern "C" fn sqlite3_bind_zeroblob(pStmt: *mut sqlite3_stmt, i: c_int, n: c_int) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pStmt` is NULL or a statement from
    // `sqlite3_prepare*` not yet finalized.
    unsafe { ffi_guard!(SQLITE_INTERNAL, { bind_checked(pStmt, i, Value::zero_blob(n.max(0) as usize).into(), false) }) }
}

/// sqlite3_bind_zeroblob with a 64-bit size; more than the length limit gives
/// SQLITE_TOOBIG.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_bind_zeroblob64(pStmt: *mut sqlite3_stmt, i: c_int, n: sqlite3_uint64) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pStmt` is NULL or a statement from
    // `sqlite3_prepare*` not yet finalized.
    unsafe {
        ffi_guard!(SQLITE_INTERNAL, {
            // Checked before the range and busy checks, and without touching
            // the error state, as SQLite does.
            let limit = match stmt_ref(pStmt) {
                Some(s) => {
                    let db = s.db();
                    let _g = db.lock.lock();
                    db.with_conn(|c| c.limit_value(SQLITE_LIMIT_LENGTH)).unwrap_or(1_000_000_000)
                }
                None => return crate::error::misuse(),
            };
            if n > limit as u64 {
                return SQLITE_TOOBIG;
            }
            bind_checked(pStmt, i, Value::zero_blob(n as usize).into(), false)
        })
    }
}

/// The largest parameter index of `pStmt` (0 when it has no parameters).
#[no_mangle]
pub unsafe extern "C" fn sqlite3_bind_parameter_count(pStmt: *mut sqlite3_stmt) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pStmt` is NULL or a statement from
    // `sqlite3_prepare*` not yet finalized.
    unsafe { ffi_guard!(0, { stmt_ref(pStmt).map_or(0, |s| s.stmt.parameter_count() as c_int) }) }
}

/// The name of parameter `i` of `pStmt` with its prefix (`:a`, `@a`, `$a`,
/// `?7`), or NULL for a nameless `?` parameter or an index out of range.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_bind_parameter_name(pStmt: *mut sqlite3_stmt, i: c_int) -> *const c_char {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pStmt` is NULL or a statement from
    // `sqlite3_prepare*` not yet finalized.
    unsafe {
        ffi_guard!(std::ptr::null(), {
            let Some(s) = stmt_ref(pStmt) else {
                return std::ptr::null();
            };
            if i < 1 {
                return std::ptr::null();
            }
            let _g = s.db().lock.lock();
            let Some(name) = s.stmt.parameter_name(i as usize).map(|n| cstring(n).into_bytes_with_nul()) else {
                return std::ptr::null();
            };
            s.names.entry((20, i as usize)).or_insert(name).as_ptr() as *const c_char
        })
    }
}

/// The index of the parameter named `zName` (prefix included), or 0 if `pStmt`
/// has none by that name.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_bind_parameter_index(pStmt: *mut sqlite3_stmt, zName: *const c_char) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pStmt` is NULL or a statement from
    // `sqlite3_prepare*` not yet finalized; `zName` is NULL or NUL-terminated (or readable for the length
    // given with it).
    unsafe {
        ffi_guard!(0, {
            let Some(s) = stmt_ref(pStmt) else { return 0 };
            if zName.is_null() {
                return 0;
            }
            let name = CStr::from_ptr(zName).to_string_lossy();
            s.stmt.parameter_index(&name) as c_int
        })
    }
}

/// Set every parameter of `pStmt` back to NULL. Returns SQLITE_OK.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_clear_bindings(pStmt: *mut sqlite3_stmt) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pStmt` is NULL or a statement from
    // `sqlite3_prepare*` not yet finalized.
    unsafe {
        ffi_guard!(SQLITE_INTERNAL, {
            let Some(s) = stmt_ref(pStmt) else {
                return crate::error::misuse();
            };
            let _g = s.db().lock.lock();
            s.stmt.clear_bindings();
            s.release_bound(None);
            SQLITE_OK
        })
    }
}

/// Deprecated: copy the bindings of `pFromStmt` to `pToStmt`, which must have
/// the same number of parameters (SQLITE_ERROR otherwise).
#[no_mangle]
pub unsafe extern "C" fn sqlite3_transfer_bindings(pFromStmt: *mut sqlite3_stmt, pToStmt: *mut sqlite3_stmt) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pFromStmt` is NULL or a statement
    // from `sqlite3_prepare*` not yet finalized; `pToStmt` is NULL or a statement from `sqlite3_prepare*` not
    // yet finalized.
    unsafe {
        ffi_guard!(SQLITE_INTERNAL, {
            let (Some(_), Some(_)) = (stmt_ref(pFromStmt), stmt_ref(pToStmt)) else {
                return crate::error::misuse();
            };
            // The engine does not expose bound values for reading yet.
            SQLITE_ERROR
        })
    }
}
