//! # The pre-update hook: `sqlite3_preupdate_hook` and its accessors
//!
//! The engine tells the trampoline of each row change before it is made
//! (`ringlite::vdbe::exec::preupdate`). While the C callback runs, a copy
//! of the change sits in the handle ([`Current`]) for
//! `sqlite3_preupdate_old`, `_new`, `_count`, `_depth` and `_blobwrite`,
//! and the callback is lent the connection (the session extension queries
//! it from there). Values handed out stay valid until the callback
//! returns, as SQLite promises. A callback whose SQL changes rows hears of
//! those changes nested; each level restores what the outer one saw.

use crate::consts::*;
use crate::error::set_error;
use crate::handle::{db_ref, sqlite3};
use crate::hooks::{handle_ptr, install, slot, user_data};
use crate::slots::{Change, PreUpdateState, SendPtr};
use crate::types::sqlite3_int64;
use crate::value::sqlite3_value;
use ringlite::connection::Hook;
use std::ffi::{c_char, c_int, c_void};

const SQLITE_DELETE: i32 = 9;
const SQLITE_INSERT: i32 = 18;

/// Call `xPreUpdate(pCtx, db, op, zDb, zTable, iKey1, iKey2)` just before each
/// row change of `db`; inside it sqlite3_preupdate_old/new/count/depth read
/// the row. Returns the previous hook's argument.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_preupdate_hook(
    db: *mut sqlite3,
    xPreUpdate: Option<unsafe extern "C" fn(*mut c_void, *mut sqlite3, c_int, *const c_char, *const c_char, sqlite3_int64, sqlite3_int64)>,
    pCtx: *mut c_void,
) -> *mut c_void {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed; `pCtx` is NULL or valid for what the API does with it (read for the
    // length given, or handed back to callbacks untouched); `xPreUpdate`, when set, is safe to call with the
    // arguments the API documents until unregistered.
    unsafe {
        crate::ffi_guard!(std::ptr::null_mut(), {
            let Some(d) = db_ref(db) else {
                return std::ptr::null_mut();
            };
            let _g = d.lock.lock();
            let new = xPreUpdate.map(|f| (f, SendPtr(pCtx)));
            let old = std::mem::replace(&mut d.hooks.borrow_mut().preupdate, new);
            let h = handle_ptr(d);
            install(
                d,
                Hook::PreUpdate(new.map(|_| {
                    std::sync::Arc::new(move |host: &mut dyn ringlite::vdbe::host::VmHost, ev: &ringlite::vdbe::exec::preupdate::PreUpdate<'_>| {
                        let Some((f, p)) = slot(h, |s| s.preupdate) else { return };
                        let d = &*(h.get() as *const sqlite3);
                        let change = Change {
                            op: ev.op,
                            old: ev.old.clone(),
                            new: ev.new.clone(),
                            depth: ev.depth,
                            blob_write: ev.blob_write,
                            rowid_field: !ev.without_rowid,
                        };
                        let outer = std::mem::replace(&mut *d.preupdate.borrow_mut(), PreUpdateState { change: Some(change), handed: Vec::new() });
                        let zdb = crate::error::cstring(ev.db);
                        let ztable = crate::error::cstring(ev.table);
                        crate::handle::lend_to_callback(d, Some(host), || {
                            f(p.get(), h.get() as *mut sqlite3, ev.op, zdb.as_ptr(), ztable.as_ptr(), ev.key1, ev.key2)
                        });
                        *d.preupdate.borrow_mut() = outer;
                    }) as ringlite::vdbe::exec::preupdate::PreUpdateHook
                })),
            );
            user_data(old)
        })
    }
}

/// Hand out column `i` of the old (`old`) or new row of the change being
/// told: `SQLITE_MISUSE` outside a callback or for the row the operation
/// does not have, `SQLITE_RANGE` for a column out of range (with SQLite's
/// quirk: the column just past the last of a rowid table is a misuse).
unsafe fn hand_out(db: *mut sqlite3, i: c_int, out: *mut *mut sqlite3_value, old: bool) -> c_int {
    // SAFETY: the caller guarantees: `db` is NULL or a connection this library opened and has not freed;
    // `out` is NULL or writable.
    unsafe {
        let Some(d) = db_ref(db) else { return SQLITE_MISUSE };
        let _g = d.lock.lock();
        let mut cur = d.preupdate.borrow_mut();
        let PreUpdateState { change, handed } = &mut *cur;
        let rc = match change {
            Some(c) if (old && c.op != SQLITE_INSERT) || (!old && c.op != SQLITE_DELETE) => {
                let row = if old { &c.old } else { &c.new };
                match row.as_ref().and_then(|r| usize::try_from(i).ok().and_then(|i| r.get(i))) {
                    Some(v) if !out.is_null() => {
                        let mut b = Box::new(sqlite3_value::new(v.clone()));
                        *out = &mut *b;
                        handed.push(b);
                        SQLITE_OK
                    }
                    Some(_) => SQLITE_MISUSE,
                    // (SQLite's own answers: a negative column is out of
                    // range, one past the last a misuse.)
                    None if c.rowid_field && row.as_ref().is_some_and(|r| i as usize == r.len()) => SQLITE_MISUSE,
                    None => SQLITE_RANGE,
                }
            }
            _ => SQLITE_MISUSE,
        };
        drop(cur);
        set_error(d, rc, None);
        rc
    }
}

/// `sqlite3_preupdate_old`: column N of the row before the change (UPDATE
/// and DELETE), valid until the pre-update callback returns.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_preupdate_old(db: *mut sqlite3, iIdx: c_int, ppValue: *mut *mut sqlite3_value) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed; `ppValue` is NULL or writable.
    unsafe { crate::ffi_guard!(SQLITE_MISUSE, { hand_out(db, iIdx, ppValue, true) }) }
}

/// `sqlite3_preupdate_new`: column N of the row after the change (INSERT
/// and UPDATE), valid until the pre-update callback returns.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_preupdate_new(db: *mut sqlite3, iIdx: c_int, ppValue: *mut *mut sqlite3_value) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed; `ppValue` is NULL or writable.
    unsafe { crate::ffi_guard!(SQLITE_MISUSE, { hand_out(db, iIdx, ppValue, false) }) }
}

/// What the change being told says (0 or `none` outside a callback).
unsafe fn told<T>(db: *mut sqlite3, none: T, pick: impl FnOnce(&Change) -> T) -> T {
    // SAFETY: the caller guarantees: `db` is NULL or a connection this library opened and has not freed.
    unsafe {
        let Some(d) = db_ref(db) else { return none };
        let _g = d.lock.lock();
        let cur = d.preupdate.borrow();
        cur.change.as_ref().map_or(none, pick)
    }
}

/// `sqlite3_preupdate_count`: the number of columns of the row changed.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_preupdate_count(db: *mut sqlite3) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed.
    unsafe { crate::ffi_guard!(0, { told(db, 0, |c| c.old.as_ref().or(c.new.as_ref()).map_or(0, |r| r.len() as c_int)) }) }
}

/// `sqlite3_preupdate_depth`: 0 for a change made by the statement, 1 by
/// a trigger it fired, and so on.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_preupdate_depth(db: *mut sqlite3) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed.
    unsafe { crate::ffi_guard!(0, { told(db, 0, |c| c.depth) }) }
}

/// `sqlite3_preupdate_blobwrite`: the column `sqlite3_blob_write` is
/// writing, or -1 (ringlite does not tell the hook of blob writes).
#[no_mangle]
pub unsafe extern "C" fn sqlite3_preupdate_blobwrite(db: *mut sqlite3) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed.
    unsafe { crate::ffi_guard!(-1, { told(db, -1, |c| c.blob_write) }) }
}
