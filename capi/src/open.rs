//! # Opening connections
//!
//! `sqlite3_open*` always hand back a handle when memory allows, also on
//! failure: the handle then only answers `errcode`/`errmsg` and must still be
//! closed, as SQLite specifies (closing is in `close.rs`).

use crate::consts::*;
use crate::convert::utf16_to_utf8;
use crate::error::{cstring, misuse, report, set_error};
use crate::handle::{sqlite3, DB_SICK};
use ringlite::{Connection, Error, OpenFlags};
use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::atomic::Ordering;

/// The common body of every open function.
pub unsafe fn open_impl(filename: &[u8], pp_db: *mut *mut sqlite3, flags: c_int, vfs: *const c_char) -> c_int {
    // SAFETY: the caller guarantees: `vfs` is NULL or NUL-terminated (or readable for the length given with
    // it); `pp_db` is NULL or writable.
    unsafe {
        if pp_db.is_null() {
            return misuse();
        }
        *pp_db = std::ptr::null_mut();
        crate::config::initialize();
        let base = flags & (SQLITE_OPEN_READONLY | SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
        let bad_flags = base != SQLITE_OPEN_READONLY && base != SQLITE_OPEN_READWRITE && base != (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
        let name = ringlite::io::os_path::from_bytes(filename).into_owned();
        let mut eff = flags;
        if crate::config::uri_default() {
            eff |= SQLITE_OPEN_URI;
        }
        if eff & SQLITE_OPEN_PRIVATECACHE == 0 && crate::misc::SHARED_CACHE_DEFAULT.load(Ordering::Relaxed) {
            eff |= SQLITE_OPEN_SHAREDCACHE;
        }
        let opened = if bad_flags {
            // Like SQLite: a handle that reports the misuse.
            Err(Error::code(SQLITE_MISUSE))
        } else {
            open_through_vfs(filename, &name, eff, vfs)
        };
        let (conn, err, app_vfs) = match opened {
            Ok((c, b)) => (Some(c), None, b),
            Err(e) => (None, Some(e), None),
        };
        let db = sqlite3::new(conn, cstring(filename.to_vec()));
        db.extended_codes.set(flags & SQLITE_OPEN_EXRESCODE != 0);
        let raw = Box::into_raw(db);
        crate::open_handles::register(raw);
        *pp_db = raw;
        let d = &*raw;
        // Async connections are reported by sqlite3_io_ready under their handle.
        if let Ok(Some(c)) = d.conn.try_borrow().as_deref() {
            c.set_io_tag(raw as usize);
        }
        // One retry count for the busy handler, whether the engine or an
        // application VFS (SQLITE_FCNTL_BUSYHANDLER) calls it, as SQLite's.
        if let (Ok(Some(c)), Ok(h)) = (d.conn.try_borrow_mut().as_deref_mut(), d.hooks.try_borrow()) {
            c.share_busy_count(h.vfs_busy_count.clone());
        }
        if let Some(b) = app_vfs {
            b.set_handle(raw as *mut c_void);
        }
        match err {
            None => {
                set_error(d, SQLITE_OK, None);
                crate::fts5_api::register(raw);
                if let Ok(Some(c)) = d.conn.try_borrow().as_deref() {
                    crate::fts3_tokenizer::register(c);
                }
                // As in SQLite, a failing automatic extension fails the open
                // and leaves a handle that only reports the error.
                let rc = crate::auto_extension::run_on_open(raw);
                if rc != SQLITE_OK {
                    d.magic.store(DB_SICK, Ordering::Release);
                }
                rc
            }
            Some(e) => report(d, &e),
        }
    }
}

/// Open `name` through the VFS that `vfs=` (in a URI) or `vfs` names,
/// else the default one (see `vfs::route`); with the backend when that is
/// an application's VFS.
unsafe fn open_through_vfs(
    filename: &[u8],
    name: &str,
    flags: c_int,
    vfs: *const c_char,
) -> Result<(Connection, Option<std::sync::Arc<crate::vfs_backend::VfsBackend>>), Error> {
    // SAFETY: the caller guarantees: `vfs` is NULL or NUL-terminated (or readable for the length given with
    // it).
    unsafe {
        let params = if flags & SQLITE_OPEN_URI != 0 { crate::uri::uri_params(filename) } else { Vec::new() };
        let wanted = match params.iter().rev().find(|(k, _)| k == b"vfs") {
            Some((_, v)) => Some(v.clone()),
            None if vfs.is_null() => None,
            None => Some(CStr::from_ptr(vfs).to_bytes().to_vec()),
        };
        let object = crate::vfs::find(wanted.as_deref());
        if object.is_null() {
            return Err(Error::sql(format!("no such vfs: {}", String::from_utf8_lossy(wanted.as_deref().unwrap_or_default()))));
        }
        match crate::vfs::route(object) {
            crate::vfs::Route::Native => Ok((Connection::open_with_lock_style(name, OpenFlags(flags), crate::vfs::lock_style(object))?, None)),
            crate::vfs::Route::Memdb => Ok((Connection::open(name, OpenFlags(flags | SQLITE_OPEN_MEMORY))?, None)),
            crate::vfs::Route::Application(v) => {
                let backend = std::sync::Arc::new(crate::vfs_backend::VfsBackend::new(v, params));
                Ok((Connection::open_with_backend(name, OpenFlags(flags), backend.clone())?, Some(backend)))
            }
        }
    }
}

unsafe fn bytes_of(p: *const c_char) -> Vec<u8> {
    // SAFETY: the caller guarantees: `p` is NULL or NUL-terminated (or readable for the length given with
    // it).
    unsafe {
        if p.is_null() {
            Vec::new()
        } else {
            CStr::from_ptr(p).to_bytes().to_vec()
        }
    }
}

/// Open (creating if needed) the database file `filename`, UTF-8, read-write,
/// and store the new connection in `*ppDb`. ":memory:" opens a private
/// in-memory database, "" a temporary one. Even on error `*ppDb` gets a handle
/// to read the message from and to close.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_open(filename: *const c_char, ppDb: *mut *mut sqlite3) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `filename` is NULL or NUL-terminated
    // (or readable for the length given with it); `ppDb` is NULL or writable.
    unsafe { ffi_guard!(SQLITE_INTERNAL, { open_impl(&bytes_of(filename), ppDb, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, std::ptr::null(),) }) }
}

/// sqlite3_open with a UTF-16 file name; the database's text encoding
/// defaults to UTF-16 in native byte order.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_open16(filename: *const c_void, ppDb: *mut *mut sqlite3) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `filename` is NULL or valid for what
    // the API does with it (read for the length given, or handed back to callbacks untouched); `ppDb` is NULL
    // or writable.
    unsafe {
        ffi_guard!(SQLITE_INTERNAL, {
            let name = utf16_to_utf8(filename, -1);
            open_impl(&name, ppDb, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, std::ptr::null())
        })
    }
}

/// sqlite3_open with `flags` (SQLITE_OPEN_READONLY, READWRITE, CREATE, URI,
/// NOMUTEX, ... and ringlite's SQLITE_OPEN_ASYNC, whose connections return
/// SQLITE_IO from sqlite3_step instead of blocking) and the VFS named `zVfs`
/// (NULL for the default).
#[no_mangle]
pub unsafe extern "C" fn sqlite3_open_v2(filename: *const c_char, ppDb: *mut *mut sqlite3, flags: c_int, zVfs: *const c_char) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `filename`, `zVfs` are NULL or
    // NUL-terminated (or readable for the length given with them); `ppDb` is NULL or writable.
    unsafe { ffi_guard!(SQLITE_INTERNAL, { open_impl(&bytes_of(filename), ppDb, flags, zVfs) }) }
}
