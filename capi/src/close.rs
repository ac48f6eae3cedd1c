//! # Closing connections
//!
//! `sqlite3_close` refuses (SQLITE_BUSY) while statements, backups or blob
//! handles are alive; `sqlite3_close_v2` instead marks the handle a zombie
//! that the last of them frees (`sqlite3_finalize`, the end of a backup or
//! blob handle: [`free_db`], [`unpin`]). Freeing a handle forgets its
//! callbacks and client data, then drops its extension libraries last.

use crate::consts::*;
use crate::error::{misuse, set_error};
use crate::handle::{sqlite3, DB_OPEN, DB_SICK, DB_ZOMBIE};
use std::ffi::c_int;
use std::sync::atomic::Ordering;

/// Free a handle whose statements are all gone.
pub unsafe fn free_db(db: *mut sqlite3) {
    // SAFETY: the caller guarantees: `db` is NULL or a connection this library opened and has not freed.
    unsafe {
        // First: a `sqlite3_release_memory` walking the connections finishes
        // with this one before it goes.
        crate::open_handles::unregister(db);
        let d = &*db;
        d.magic.store(0, Ordering::Release);
        if let Ok(mut c) = d.conn.try_borrow_mut() {
            if let Some(conn) = c.as_mut() {
                let _ = conn.close();
            }
            *c = None;
        }
        d.file_objects.borrow_mut().clear();
        crate::slots::clear_all(d);
        let cd = std::mem::take(&mut *d.client_data.borrow_mut());
        for (_, p, destroy) in cd {
            crate::memory::release(destroy, p);
        }
        let extensions = crate::extension::detach(db);
        drop(Box::from_raw(db));
        // Last: the functions and collations just dropped may have lived in
        // the connection's extension libraries.
        drop(extensions);
    }
}

unsafe fn close_impl(db: *mut sqlite3, deferred: bool) -> c_int {
    // SAFETY: the caller guarantees: `db` is NULL or a connection this library opened and has not freed.
    unsafe {
        if db.is_null() {
            return SQLITE_OK;
        }
        let d = &*db;
        let magic = d.magic.load(Ordering::Acquire);
        if magic != DB_OPEN && magic != DB_SICK {
            return misuse();
        }
        {
            let _g = d.lock.lock();
            if d.conn.try_borrow_mut().is_err() {
                // Closing from inside one of its own callbacks.
                return misuse();
            }
            if d.in_use() {
                if !deferred {
                    set_error(d, SQLITE_BUSY, Some("unable to close due to unfinalized statements or unfinished backups"));
                    return SQLITE_BUSY;
                }
                // A zombie, as in SQLite: the statements, blob handles and
                // backups still alive keep working on the engine connection,
                // which `free_db` closes when the last of them is gone.
                crate::trace::connection_closes(db);
                // Closed for the application: sqlite3_io_ready no longer
                // reports it.
                if let Ok(Some(c)) = d.conn.try_borrow().as_deref() {
                    c.set_io_tag(0);
                }
                d.magic.store(DB_ZOMBIE, Ordering::Release);
                return SQLITE_OK;
            }
        }
        crate::trace::connection_closes(db);
        free_db(db);
        SQLITE_OK
    }
}

/// Close `db` and free its resources. SQLITE_BUSY while it still has
/// unfinalized statements, backups or blob handles; NULL is harmless.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_close(db: *mut sqlite3) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed.
    unsafe { ffi_guard!(SQLITE_INTERNAL, { close_impl(db, false) }) }
}

/// Close `db`; if statements or backups are still open, the connection becomes
/// a zombie closed when the last of them goes. Returns SQLITE_OK.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_close_v2(db: *mut sqlite3) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed.
    unsafe { ffi_guard!(SQLITE_INTERNAL, { close_impl(db, true) }) }
}

/// A blob handle or backup stopped using `db` (see [`sqlite3::pins`]): a
/// `close_v2` zombie nothing uses any more is freed. Call it without
/// holding the connection's lock.
pub unsafe fn unpin(db: *mut sqlite3) {
    // SAFETY: the caller guarantees: `db` is NULL or a connection this library opened and has not freed.
    unsafe {
        let Some(d) = db.as_ref() else { return };
        d.pins.set(d.pins.get().saturating_sub(1));
        if d.magic.load(std::sync::atomic::Ordering::Acquire) == DB_ZOMBIE && !d.in_use() {
            free_db(db);
        }
    }
}
