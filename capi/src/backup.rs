//! # The online backup API: `sqlite3_backup_*`
//!
//! A `sqlite3_backup` is a boxed [`BackupHandle`]: the engine's
//! [`Backup`] plus the two connections it copies between. Each call locks
//! the destination, then the source (the order SQLite documents for its
//! own mutexes), and runs the engine with both connections.
//!
//! Error handling follows `c3ref/backup_finish.txt`: `SQLITE_BUSY` and
//! `SQLITE_LOCKED` from a step may be retried; any other error is sticky
//! (every later step returns it) and is what `sqlite3_backup_finish`
//! returns and records on the destination connection. `backup_init`
//! records its failures on the destination and returns NULL.

use crate::consts::*;
use crate::error::{clear_error, report, set_error};
use crate::handle::{db_ref, sqlite3};
use crate::types::sqlite3_backup;
use ringlite::connection::backup::Backup;
use std::ffi::{c_char, c_int, CStr};

/// What a `sqlite3_backup*` points at.
pub struct BackupHandle {
    backup: Backup,
    dest: *mut sqlite3,
    src: *mut sqlite3,
    /// The sticky error (extended code, message), once a step failed.
    error: Option<(i32, String)>,
    /// The last step's result code.
    last_rc: c_int,
}

unsafe fn name_of(p: *const c_char) -> String {
    // SAFETY: the caller guarantees: `p` is NULL or NUL-terminated (or readable for the length given with
    // it).
    unsafe {
        if p.is_null() {
            "main".to_string()
        } else {
            CStr::from_ptr(p).to_string_lossy().into_owned()
        }
    }
}

unsafe fn handle<'a>(p: *mut sqlite3_backup) -> Option<&'a mut BackupHandle> {
    // SAFETY: the caller guarantees: `p` is NULL or a backup from `sqlite3_backup_init` not yet finished.
    unsafe { (p as *mut BackupHandle).as_mut() }
}

/// `sqlite3_backup_init`: Start an online backup of `zSourceName` of `pSource` into `zDestName` of `pDest`.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_backup_init(
    pDest: *mut sqlite3,
    zDestName: *const c_char,
    pSource: *mut sqlite3,
    zSourceName: *const c_char,
) -> *mut sqlite3_backup {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pDest` is NULL or a connection this
    // library opened and has not freed; `pSource` is NULL or a connection this library opened and has not
    // freed; `zDestName`, `zSourceName` are NULL or NUL-terminated (or readable for the length given with
    // them).
    unsafe {
        crate::ffi_guard!(std::ptr::null_mut(), {
            let Some(dest) = db_ref(pDest) else {
                return std::ptr::null_mut();
            };
            let _gd = dest.lock.lock();
            let Some(src) = db_ref(pSource) else {
                set_error(dest, SQLITE_MISUSE, None);
                return std::ptr::null_mut();
            };
            let _gs = src.lock.lock();
            if pDest == pSource {
                set_error(dest, SQLITE_ERROR, Some("source and destination must be distinct"));
                return std::ptr::null_mut();
            }
            let (dn, sn) = (name_of(zDestName), name_of(zSourceName));
            let made = dest.with_conn(|d| src.with_conn(|s| Backup::new(d, &dn, s, &sn)));
            match made.and_then(|r| r).and_then(|r| r) {
                Ok(backup) => {
                    clear_error(dest);
                    src.pins.set(src.pins.get() + 1);
                    let h = Box::new(BackupHandle { backup, dest: pDest, src: pSource, error: None, last_rc: SQLITE_OK });
                    Box::into_raw(h) as *mut sqlite3_backup
                }
                Err(e) => {
                    report(dest, &e);
                    std::ptr::null_mut()
                }
            }
        })
    }
}

/// `sqlite3_backup_step`: Copy up to `nPage` pages (all if negative); SQLITE_DONE when complete.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_backup_step(p: *mut sqlite3_backup, nPage: c_int) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `p` is NULL or a backup from
    // `sqlite3_backup_init` not yet finished.
    unsafe {
        crate::ffi_guard!(SQLITE_INTERNAL, {
            let Some(h) = handle(p) else {
                return SQLITE_MISUSE;
            };
            if let Some((code, _)) = &h.error {
                return *code & 0xff;
            }
            let (Some(dest), Some(src)) = (db_ref(h.dest), db_ref(h.src)) else {
                return SQLITE_MISUSE;
            };
            let _gd = dest.lock.lock();
            let _gs = src.lock.lock();
            let r = dest.with_conn(|d| src.with_conn(|s| h.backup.step(d, s, nPage)));
            let rc = match r.and_then(|r| r).and_then(|r| r) {
                Ok(true) => SQLITE_DONE,
                Ok(false) => SQLITE_OK,
                Err(e) => {
                    let primary = e.code & 0xff;
                    if primary != SQLITE_BUSY && primary != SQLITE_LOCKED {
                        h.error = Some((e.code, e.message.clone()));
                    }
                    primary
                }
            };
            h.last_rc = rc;
            rc
        })
    }
}

/// `sqlite3_backup_finish`: End a backup, rolling back an unfinished copy; returns its sticky error.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_backup_finish(p: *mut sqlite3_backup) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `p` is NULL or a backup from
    // `sqlite3_backup_init` not yet finished.
    unsafe {
        crate::ffi_guard!(SQLITE_INTERNAL, {
            if p.is_null() {
                return SQLITE_OK;
            }
            let h = Box::from_raw(p as *mut BackupHandle);
            let src = h.src;
            let rc = finish(h);
            crate::close::unpin(src);
            rc
        })
    }
}

/// The body of `sqlite3_backup_finish`, holding the destination's lock
/// (the handle comes back from the pointer the application held).
#[allow(clippy::boxed_local, reason = "the box is the handle the application held; finishing drops it")]
unsafe fn finish(mut h: Box<BackupHandle>) -> c_int {
    // SAFETY: the caller guarantees: `h` is the handle `sqlite3_backup_init` boxed, taken back from the
    // application's pointer; its destination connection is still open (SQLite's contract: finish a backup
    // before closing its connections).
    unsafe {
        let Some(dest) = db_ref(h.dest) else {
            return SQLITE_MISUSE;
        };
        let _gd = dest.lock.lock();
        // (The source is pinned until now; a zombie one has no pager to
        // tell, and the copy's record of its changes went with it.)
        let src = db_ref(h.src);
        let _gs = src.map(|s| s.lock.lock());
        let finished = dest
            .with_conn(|d| match src.map(|s| s.with_conn(|s| h.backup.finish(d, Some(s)))) {
                Some(Ok(r)) => r,
                _ => h.backup.finish(d, None),
            })
            .and_then(|r| r);
        let outcome = match (&h.error, finished) {
            (Some((code, msg)), _) => Some((*code, msg.clone())),
            (None, Err(e)) => Some((e.code, e.message.clone())),
            (None, Ok(())) => None,
        };
        match outcome {
            Some((code, msg)) => {
                set_error(dest, code, Some(&msg));
                code & 0xff
            }
            None => {
                clear_error(dest);
                SQLITE_OK
            }
        }
    }
}

/// `sqlite3_backup_remaining`: Pages still to copy after the last step.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_backup_remaining(p: *mut sqlite3_backup) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `p` is NULL or a backup from
    // `sqlite3_backup_init` not yet finished.
    unsafe {
        crate::ffi_guard!(0, {
            match handle(p) {
                Some(h) => h.backup.remaining() as c_int,
                None => 0,
            }
        })
    }
}

/// `sqlite3_backup_pagecount`: Pages in the source database at the last step.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_backup_pagecount(p: *mut sqlite3_backup) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `p` is NULL or a backup from
    // `sqlite3_backup_init` not yet finished.
    unsafe {
        crate::ffi_guard!(0, {
            match handle(p) {
                Some(h) => h.backup.page_count() as c_int,
                None => 0,
            }
        })
    }
}
