//! # `sqlite3_serialize` and `sqlite3_deserialize`
//!
//! The engine ([`ringlite::Connection::serialize`]/`deserialize`) always
//! works on copies; this layer moves bytes across the ABI. `serialize`
//! returns memory from `sqlite3_malloc64`, which the caller frees. With
//! `SQLITE_SERIALIZE_NOCOPY` it returns NULL (there is never a contiguous
//! in-memory image to lend) but still reports the size. `deserialize`
//! copies `szDb` bytes, then frees the caller's buffer when
//! `SQLITE_DESERIALIZE_FREEONCLOSE` is set: nothing refers to it
//! afterwards, so freeing at once is indistinguishable from freeing at
//! close. The buffer-size limit `szBuf` of a non-resizeable image is not
//! enforced: the in-memory copy may grow.

use crate::consts::*;
use crate::error::{finish, report};
use crate::handle::db_ref;
use crate::handle::sqlite3;
use crate::types::*;
use std::ffi::{c_char, c_uchar, c_uint, c_void, CStr};

unsafe fn schema_name(p: *const c_char) -> Option<String> {
    // SAFETY: the caller guarantees: `p` is NULL or NUL-terminated (or readable for the length given with
    // it).
    unsafe { (!p.is_null()).then(|| CStr::from_ptr(p).to_string_lossy().into_owned()) }
}

/// `sqlite3_serialize`: The bytes of database `zSchema`, in memory from sqlite3_malloc64.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_serialize(db: *mut sqlite3, zSchema: *const c_char, piSize: *mut sqlite3_int64, mFlags: c_uint) -> *mut c_uchar {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed; `piSize` is NULL or a live `sqlite3_int64` this library or SQLite's
    // API contract provides; `zSchema` is NULL or NUL-terminated (or readable for the length given with it).
    unsafe {
        crate::ffi_guard!(std::ptr::null_mut(), {
            let Some(h) = db_ref(db) else {
                return std::ptr::null_mut();
            };
            let _g = h.lock.lock();
            let schema = schema_name(zSchema);
            let image = match h.with_conn(|c| c.serialize(schema.as_deref())).and_then(|r| r) {
                Ok(Some(image)) => image,
                Ok(None) => return std::ptr::null_mut(),
                Err(e) => {
                    report(h, &e);
                    return std::ptr::null_mut();
                }
            };
            if !piSize.is_null() {
                *piSize = image.len() as sqlite3_int64;
            }
            if mFlags & SQLITE_SERIALIZE_NOCOPY as c_uint != 0 {
                return std::ptr::null_mut();
            }
            let p = crate::memory::sqlite3_malloc64(image.len().max(1) as sqlite3_uint64) as *mut c_uchar;
            if !p.is_null() {
                std::ptr::copy_nonoverlapping(image.as_ptr(), p, image.len());
            }
            p
        })
    }
}

/// `sqlite3_deserialize`: Replace database `zSchema` with an in-memory copy of `pData`.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_deserialize(
    db: *mut sqlite3,
    zSchema: *const c_char,
    pData: *mut c_uchar,
    szDb: sqlite3_int64,
    szBuf: sqlite3_int64,
    mFlags: c_uint,
) -> std::ffi::c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed; `zSchema`, `pData` are NULL or NUL-terminated (or readable for the
    // length given with them).
    unsafe {
        crate::ffi_guard!(SQLITE_INTERNAL, {
            let free_buffer = || {
                if mFlags & SQLITE_DESERIALIZE_FREEONCLOSE as c_uint != 0 && !pData.is_null() {
                    crate::memory::sqlite3_free(pData as *mut c_void);
                }
            };
            let Some(h) = db_ref(db) else {
                free_buffer();
                return SQLITE_MISUSE;
            };
            let _g = h.lock.lock();
            if szDb < 0 || szBuf < 0 || (pData.is_null() && szDb > 0) {
                free_buffer();
                return SQLITE_MISUSE;
            }
            let image: &[u8] = if szDb == 0 { &[] } else { std::slice::from_raw_parts(pData, szDb as usize) };
            let schema = schema_name(zSchema);
            let read_only = mFlags & SQLITE_DESERIALIZE_READONLY as c_uint != 0;
            let r = h.with_conn(|c| c.deserialize(schema.as_deref(), image, read_only)).and_then(|r| r);
            free_buffer();
            finish(h, r)
        })
    }
}
