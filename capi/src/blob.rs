//! # Incremental blob I/O: `sqlite3_blob_*`
//!
//! A `sqlite3_blob` is a boxed [`BlobHandle`]: the engine's [`Blob`] and
//! the connection it belongs to. Every call locks that connection.
//!
//! Error reporting follows SQLite: `blob_open` and `blob_reopen` record
//! their failure with its message on the connection (`blob_reopen` of an
//! expired handle answers `SQLITE_ABORT` and leaves the error state as it
//! was); `blob_read`/`blob_write` record the bare code; `blob_close`
//! reports the last read/write failure, as finalizing a statement does.

use crate::consts::*;
use crate::error::{clear_error, report, set_error, visible_code};
use crate::handle::{db_ref, sqlite3};
use crate::types::*;
use ringlite::connection::blob::Blob;
use std::ffi::{c_char, c_int, c_void, CStr};

/// What a `sqlite3_blob*` points at.
pub struct BlobHandle {
    blob: Blob,
    db: *mut sqlite3,
}

unsafe fn text_arg(p: *const c_char) -> Option<String> {
    // SAFETY: the caller guarantees: `p` is NULL or NUL-terminated (or readable for the length given with
    // it).
    unsafe { (!p.is_null()).then(|| CStr::from_ptr(p).to_string_lossy().into_owned()) }
}

unsafe fn handle<'a>(p: *mut sqlite3_blob) -> Option<&'a mut BlobHandle> {
    // SAFETY: the caller guarantees: `p` is NULL or a blob handle from `sqlite3_blob_open` not yet closed.
    unsafe { (p as *mut BlobHandle).as_mut() }
}

/// `sqlite3_blob_open`: a handle on one value, for reading or (`flags`
/// nonzero) writing.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_blob_open(
    db: *mut sqlite3,
    zDb: *const c_char,
    zTable: *const c_char,
    zColumn: *const c_char,
    iRow: sqlite3_int64,
    flags: c_int,
    ppBlob: *mut *mut sqlite3_blob,
) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed; `zDb`, `zTable`, `zColumn` are NULL or NUL-terminated (or readable
    // for the length given with them); `ppBlob` is NULL or writable.
    unsafe {
        crate::ffi_guard!(SQLITE_INTERNAL, {
            if ppBlob.is_null() {
                return SQLITE_MISUSE;
            }
            *ppBlob = std::ptr::null_mut();
            let Some(conn) = db_ref(db) else {
                return SQLITE_MISUSE;
            };
            let _g = conn.lock.lock();
            let (Some(table), Some(column)) = (text_arg(zTable), text_arg(zColumn)) else {
                return SQLITE_MISUSE;
            };
            let schema = text_arg(zDb).unwrap_or_else(|| "main".into());
            let opened = conn.with_conn(|c| c.blob_open(&schema, &table, &column, iRow, flags != 0)).and_then(|r| r);
            match opened {
                Ok(blob) => {
                    clear_error(conn);
                    conn.pins.set(conn.pins.get() + 1);
                    *ppBlob = Box::into_raw(Box::new(BlobHandle { blob, db })) as *mut sqlite3_blob;
                    SQLITE_OK
                }
                Err(e) => report(conn, &e),
            }
        })
    }
}

/// `sqlite3_blob_reopen`: move the handle to another row of its table.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_blob_reopen(pBlob: *mut sqlite3_blob, iRow: sqlite3_int64) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pBlob` is NULL or a blob handle
    // from `sqlite3_blob_open` not yet closed.
    unsafe {
        crate::ffi_guard!(SQLITE_INTERNAL, {
            let Some(h) = handle(pBlob) else {
                return SQLITE_MISUSE;
            };
            let Some(db) = db_ref(h.db) else {
                return SQLITE_MISUSE;
            };
            let _g = db.lock.lock();
            match db.with_conn(|c| h.blob.reopen(c, iRow)).and_then(|r| r) {
                Ok(()) => SQLITE_OK,
                Err(e) if e.code == SQLITE_ABORT => visible_code(db, SQLITE_ABORT),
                Err(e) => report(db, &e),
            }
        })
    }
}

/// `sqlite3_blob_close`: release the handle; reports the last failed
/// read or write.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_blob_close(pBlob: *mut sqlite3_blob) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pBlob` is NULL or a blob handle
    // from `sqlite3_blob_open` not yet closed.
    unsafe {
        crate::ffi_guard!(SQLITE_INTERNAL, {
            if pBlob.is_null() {
                return SQLITE_OK;
            }
            let mut h = Box::from_raw(pBlob as *mut BlobHandle);
            let Some(db) = crate::handle::db_ref_any(h.db) else {
                return SQLITE_MISUSE;
            };
            let rc = {
                let _g = db.lock.lock();
                // A close that succeeds leaves the connection's error state as
                // it was (SQLite's: the last failed blob call still shows).
                match db.with_conn(|c| h.blob.close(c)).and_then(|r| r) {
                    Ok(()) => SQLITE_OK,
                    Err(e) => answer(db, Err(e)),
                }
            };
            crate::close::unpin(h.db);
            rc
        })
    }
}

/// `sqlite3_blob_bytes`: size of the value (0 once the handle expired).
#[no_mangle]
pub unsafe extern "C" fn sqlite3_blob_bytes(pBlob: *mut sqlite3_blob) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pBlob` is NULL or a blob handle
    // from `sqlite3_blob_open` not yet closed.
    unsafe {
        crate::ffi_guard!(0, {
            match handle(pBlob) {
                Some(h) => h.blob.bytes() as c_int,
                None => 0,
            }
        })
    }
}

/// `sqlite3_blob_read`: copy `N` bytes from `iOffset` into `Z`.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_blob_read(pBlob: *mut sqlite3_blob, Z: *mut c_void, N: c_int, iOffset: c_int) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pBlob` is NULL or a blob handle
    // from `sqlite3_blob_open` not yet closed; `Z` is NULL or valid for what the API does with it (read for
    // the length given, or handed back to callbacks untouched).
    unsafe {
        crate::ffi_guard!(SQLITE_INTERNAL, {
            let Some(h) = handle(pBlob) else {
                return SQLITE_MISUSE;
            };
            let Some(db) = db_ref(h.db) else {
                return SQLITE_MISUSE;
            };
            let _g = db.lock.lock();
            let mut buf = vec![0u8; N.max(0) as usize];
            let r = if N < 0 || (Z.is_null() && N > 0) {
                Err(ringlite::Error::code(SQLITE_ERROR))
            } else {
                db.with_conn(|c| h.blob.read(c, iOffset as i64, &mut buf)).and_then(|r| r)
            };
            if r.is_ok() && !buf.is_empty() {
                std::ptr::copy_nonoverlapping(buf.as_ptr(), Z as *mut u8, buf.len());
            }
            answer(db, r)
        })
    }
}

/// `sqlite3_blob_write`: overwrite `n` bytes at `iOffset` with `z`; the
/// value's size never changes.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_blob_write(pBlob: *mut sqlite3_blob, z: *const c_void, n: c_int, iOffset: c_int) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pBlob` is NULL or a blob handle
    // from `sqlite3_blob_open` not yet closed; `z` is NULL or valid for what the API does with it (read for
    // the length given, or handed back to callbacks untouched).
    unsafe {
        crate::ffi_guard!(SQLITE_INTERNAL, {
            let Some(h) = handle(pBlob) else {
                return SQLITE_MISUSE;
            };
            let Some(db) = db_ref(h.db) else {
                return SQLITE_MISUSE;
            };
            let _g = db.lock.lock();
            let r = if n < 0 || (z.is_null() && n > 0) {
                Err(ringlite::Error::code(SQLITE_ERROR))
            } else {
                let data: &[u8] = if n == 0 { &[] } else { std::slice::from_raw_parts(z as *const u8, n as usize) };
                db.with_conn(|c| h.blob.write(c, iOffset as i64, data)).and_then(|r| r)
            };
            answer(db, r)
        })
    }
}

/// The result code of a blob call, with the connection's error state set
/// to match (cleared on success).
fn answer(db: &sqlite3, r: Result<(), ringlite::Error>) -> c_int {
    match r {
        Ok(()) => {
            clear_error(db);
            SQLITE_OK
        }
        Err(e) => {
            set_error(db, e.code, None);
            visible_code(db, e.code)
        }
    }
}
