//! # Changeset iterators and `sqlite3changeset_apply*`
//!
//! A `sqlite3_changeset_iter` is either started by the application over a
//! changeset (it reads one change per `next`) or made by apply for one
//! call of the conflict handler (it holds that change, the conflicting row
//! or the foreign key count; `next` and `finalize` on it are misuse). The
//! values handed out by `_old`, `_new` and `_conflict` live in the
//! iterator until it moves or is finalized, as SQLite promises.

use crate::consts::*;
use crate::handle::{db_ref, lend_to_callback, sqlite3};
use crate::session::{input, on_conn, read_stream};
use crate::types::*;
use crate::value::sqlite3_value;
use ringlite::ext::session::{self as es, ApplyHandler, Item, Reader};
use ringlite::value::Value;
use ringlite::Connection;
use std::ffi::{c_char, c_int, c_uchar, c_void, CString};

use crate::session::SQLITE_CHANGESETSTART_INVERT;

/// What a `sqlite3_changeset_iter` points to.
pub struct IterHandle {
    reader: Option<Reader>,
    current: Option<Item>,
    table_name: CString,
    pk: Vec<u8>,
    /// Values handed out for the current change (boxed: the pointers
    /// handed out must not move when the vector grows).
    #[allow(clippy::vec_box, reason = "C holds pointers to the boxed values: they must not move when the vector grows")]
    handed: Vec<Box<sqlite3_value>>,
    /// The conflicting row (handler iterators of DATA and CONFLICT).
    conflict: Option<Vec<Value>>,
    /// The violation count (handler iterator of FOREIGN_KEY).
    fk: Option<i64>,
    /// The first error met, reported again by finalize.
    error: c_int,
}

impl IterHandle {
    fn new(reader: Option<Reader>) -> IterHandle {
        IterHandle { reader, current: None, table_name: CString::default(), pk: Vec::new(), handed: Vec::new(), conflict: None, fk: None, error: SQLITE_OK }
    }

    fn set_current(&mut self, item: Option<Item>) {
        self.handed.clear();
        if let Some(it) = &item {
            self.table_name = crate::error::cstring(it.table.name.as_str());
            self.pk = it.table.pk.clone();
        }
        self.current = item;
    }

    /// Into a pointer for C.
    pub fn into_raw(self) -> *mut sqlite3_changeset_iter {
        Box::into_raw(Box::new(self)) as *mut sqlite3_changeset_iter
    }

    /// The change the iterator is on (changegroup_add_change).
    pub fn current_item(&self) -> Option<&Item> {
        self.current.as_ref()
    }
}

unsafe fn iter<'a>(p: *mut sqlite3_changeset_iter) -> Option<&'a mut IterHandle> {
    // SAFETY: the caller guarantees: `p` is NULL or a live `sqlite3_changeset_iter` this library or SQLite's
    // API contract provides.
    unsafe { (p as *mut IterHandle).as_mut() }
}

/// The iterator behind a C pointer (changegroup_add_change).
pub unsafe fn iter_ref<'a>(p: *mut sqlite3_changeset_iter) -> Option<&'a IterHandle> {
    // SAFETY: the caller guarantees: `p` is NULL or a live `sqlite3_changeset_iter` this library or SQLite's
    // API contract provides.
    unsafe { (p as *const IterHandle).as_ref() }
}

unsafe fn start(pp: *mut *mut sqlite3_changeset_iter, data: Vec<u8>, flags: c_int) -> c_int {
    // SAFETY: the caller guarantees: `pp` is NULL or writable.
    unsafe {
        if pp.is_null() {
            return SQLITE_MISUSE;
        }
        let reader = Reader::new(data, flags & SQLITE_CHANGESETSTART_INVERT != 0);
        *pp = IterHandle::new(Some(reader)).into_raw();
        SQLITE_OK
    }
}

/// Create in `*pp` an iterator over the changeset of `nChangeset` bytes at
/// `pChangeset`; step it with sqlite3changeset_next.
#[no_mangle]
pub unsafe extern "C" fn sqlite3changeset_start(pp: *mut *mut sqlite3_changeset_iter, nChangeset: c_int, pChangeset: *mut c_void) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pChangeset` is NULL or valid for
    // what the API does with it (read for the length given, or handed back to callbacks untouched); `pp` is
    // NULL or writable.
    unsafe { crate::ffi_guard!(SQLITE_MISUSE, { sqlite3changeset_start_v2(pp, nChangeset, pChangeset, 0) }) }
}

/// sqlite3changeset_start with `flags` (SQLITE_CHANGESETSTART_INVERT iterates
/// over the inverse changeset).
#[no_mangle]
pub unsafe extern "C" fn sqlite3changeset_start_v2(pp: *mut *mut sqlite3_changeset_iter, nChangeset: c_int, pChangeset: *mut c_void, flags: c_int) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pChangeset` is NULL or valid for
    // what the API does with it (read for the length given, or handed back to callbacks untouched); `pp` is
    // NULL or writable.
    unsafe {
        crate::ffi_guard!(SQLITE_MISUSE, {
            match input(nChangeset, pChangeset) {
                Ok(b) => start(pp, b.to_vec(), flags),
                Err(rc) => rc,
            }
        })
    }
}

/// sqlite3changeset_start reading through `xInput(pIn, p, &n)`.
#[no_mangle]
pub unsafe extern "C" fn sqlite3changeset_start_strm(
    pp: *mut *mut sqlite3_changeset_iter,
    xInput: Option<unsafe extern "C" fn(*mut c_void, *mut c_void, *mut c_int) -> c_int>,
    pIn: *mut c_void,
) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pp` is NULL or writable; `xInput`,
    // when set, is safe to call with the arguments the API documents until unregistered.
    unsafe { crate::ffi_guard!(SQLITE_MISUSE, { sqlite3changeset_start_v2_strm(pp, xInput, pIn, 0) }) }
}

/// sqlite3changeset_start_v2 reading through `xInput`.
#[no_mangle]
pub unsafe extern "C" fn sqlite3changeset_start_v2_strm(
    pp: *mut *mut sqlite3_changeset_iter,
    xInput: Option<unsafe extern "C" fn(*mut c_void, *mut c_void, *mut c_int) -> c_int>,
    pIn: *mut c_void,
    flags: c_int,
) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pp` is NULL or writable; `xInput`,
    // when set, is safe to call with the arguments the API documents until unregistered.
    unsafe {
        crate::ffi_guard!(SQLITE_MISUSE, {
            match read_stream(xInput, pIn) {
                Ok(b) => start(pp, b, flags),
                Err(rc) => {
                    if !pp.is_null() {
                        *pp = std::ptr::null_mut();
                    }
                    rc
                }
            }
        })
    }
}

/// Move the iterator to the next change: SQLITE_ROW, SQLITE_DONE at the end,
/// or an error code for a corrupt changeset.
#[no_mangle]
pub unsafe extern "C" fn sqlite3changeset_next(pIter: *mut sqlite3_changeset_iter) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pIter` is NULL or a live
    // `sqlite3_changeset_iter` this library or SQLite's API contract provides.
    unsafe {
        crate::ffi_guard!(SQLITE_MISUSE, {
            let Some(it) = iter(pIter) else {
                return SQLITE_MISUSE;
            };
            if it.error != SQLITE_OK {
                return it.error;
            }
            let Some(r) = it.reader.as_mut() else {
                return SQLITE_MISUSE;
            };
            match r.next_item() {
                Ok(Some(item)) => {
                    it.set_current(Some(item));
                    SQLITE_ROW
                }
                Ok(None) => {
                    it.set_current(None);
                    SQLITE_DONE
                }
                Err(e) => {
                    it.set_current(None);
                    it.error = e.primary();
                    it.error
                }
            }
        })
    }
}

/// The current change's table name, column count, operation and indirect
/// flag, written through the non-NULL pointers.
#[no_mangle]
pub unsafe extern "C" fn sqlite3changeset_op(
    pIter: *mut sqlite3_changeset_iter,
    pzTab: *mut *const c_char,
    pnCol: *mut c_int,
    pOp: *mut c_int,
    pbIndirect: *mut c_int,
) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pIter` is NULL or a live
    // `sqlite3_changeset_iter` this library or SQLite's API contract provides; `pzTab`, `pnCol`, `pOp`,
    // `pbIndirect` are NULL or writable.
    unsafe {
        crate::ffi_guard!(SQLITE_MISUSE, {
            let Some(it) = iter(pIter) else {
                return SQLITE_MISUSE;
            };
            let Some(c) = &it.current else {
                return SQLITE_MISUSE;
            };
            if !pzTab.is_null() {
                *pzTab = it.table_name.as_ptr();
            }
            if !pnCol.is_null() {
                *pnCol = it.pk.len() as c_int;
            }
            if !pOp.is_null() {
                *pOp = c.change.op;
            }
            if !pbIndirect.is_null() {
                *pbIndirect = c_int::from(c.change.indirect);
            }
            SQLITE_OK
        })
    }
}

/// Point `*pabPK` at an array of one byte per column, nonzero for primary-key
/// columns, and set `*pnCol` to its length.
#[no_mangle]
pub unsafe extern "C" fn sqlite3changeset_pk(pIter: *mut sqlite3_changeset_iter, pabPK: *mut *mut c_uchar, pnCol: *mut c_int) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pIter` is NULL or a live
    // `sqlite3_changeset_iter` this library or SQLite's API contract provides; `pabPK`, `pnCol` are NULL or
    // writable.
    unsafe {
        crate::ffi_guard!(SQLITE_MISUSE, {
            let Some(it) = iter(pIter) else {
                return SQLITE_MISUSE;
            };
            if it.current.is_none() {
                if !pabPK.is_null() {
                    *pabPK = std::ptr::null_mut();
                }
                if !pnCol.is_null() {
                    *pnCol = 0;
                }
                return SQLITE_MISUSE;
            }
            if !pabPK.is_null() {
                *pabPK = it.pk.as_mut_ptr();
            }
            if !pnCol.is_null() {
                *pnCol = it.pk.len() as c_int;
            }
            SQLITE_OK
        })
    }
}

/// Hand out field `i` of the current change's old (`which` 0), new (1)
/// or conflicting row (2).
unsafe fn field(p: *mut sqlite3_changeset_iter, i: c_int, out: *mut *mut sqlite3_value, which: u8) -> c_int {
    // SAFETY: the caller guarantees: `p` is NULL or a live `sqlite3_changeset_iter` this library or SQLite's
    // API contract provides; `out` is NULL or writable.
    unsafe {
        if !out.is_null() {
            *out = std::ptr::null_mut();
        }
        let Some(it) = iter(p) else {
            return SQLITE_MISUSE;
        };
        let Some(c) = &it.current else {
            return SQLITE_MISUSE;
        };
        let op = c.change.op;
        let value: Option<Value> = match which {
            0 if op == es::OP_UPDATE || op == es::OP_DELETE => {
                if i < 0 || i as usize >= it.pk.len() {
                    return SQLITE_RANGE;
                }
                c.change.old.get(i as usize).cloned().flatten()
            }
            1 if op == es::OP_UPDATE || op == es::OP_INSERT => {
                if i < 0 || i as usize >= it.pk.len() {
                    return SQLITE_RANGE;
                }
                c.change.new.get(i as usize).cloned().flatten()
            }
            2 => {
                let Some(row) = &it.conflict else {
                    return SQLITE_MISUSE;
                };
                if i < 0 || i as usize >= it.pk.len() {
                    return SQLITE_RANGE;
                }
                row.get(i as usize).cloned()
            }
            _ => return SQLITE_MISUSE,
        };
        if let Some(v) = value {
            let mut b = Box::new(sqlite3_value::new(v));
            if !out.is_null() {
                *out = &mut *b;
            }
            it.handed.push(b);
        }
        SQLITE_OK
    }
}

/// The old value of column `iVal` of the current UPDATE or DELETE in
/// `*ppValue` (NULL when an UPDATE left it unchanged).
#[no_mangle]
pub unsafe extern "C" fn sqlite3changeset_old(pIter: *mut sqlite3_changeset_iter, iVal: c_int, ppValue: *mut *mut sqlite3_value) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pIter` is NULL or a live
    // `sqlite3_changeset_iter` this library or SQLite's API contract provides; `ppValue` is NULL or writable.
    unsafe { crate::ffi_guard!(SQLITE_MISUSE, { field(pIter, iVal, ppValue, 0) }) }
}

/// The new value of column `iVal` of the current UPDATE or INSERT in
/// `*ppValue` (NULL when an UPDATE left it unchanged).
#[no_mangle]
pub unsafe extern "C" fn sqlite3changeset_new(pIter: *mut sqlite3_changeset_iter, iVal: c_int, ppValue: *mut *mut sqlite3_value) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pIter` is NULL or a live
    // `sqlite3_changeset_iter` this library or SQLite's API contract provides; `ppValue` is NULL or writable.
    unsafe { crate::ffi_guard!(SQLITE_MISUSE, { field(pIter, iVal, ppValue, 1) }) }
}

/// Inside a conflict handler: the conflicting row's value of column `iVal`.
#[no_mangle]
pub unsafe extern "C" fn sqlite3changeset_conflict(pIter: *mut sqlite3_changeset_iter, iVal: c_int, ppValue: *mut *mut sqlite3_value) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pIter` is NULL or a live
    // `sqlite3_changeset_iter` this library or SQLite's API contract provides; `ppValue` is NULL or writable.
    unsafe { crate::ffi_guard!(SQLITE_MISUSE, { field(pIter, iVal, ppValue, 2) }) }
}

/// Inside a conflict handler for SQLITE_CHANGESET_FOREIGN_KEY: the number of
/// foreign-key violations in `*pnOut`.
#[no_mangle]
pub unsafe extern "C" fn sqlite3changeset_fk_conflicts(pIter: *mut sqlite3_changeset_iter, pnOut: *mut c_int) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pIter` is NULL or a live
    // `sqlite3_changeset_iter` this library or SQLite's API contract provides; `pnOut` is NULL or writable.
    unsafe {
        crate::ffi_guard!(SQLITE_MISUSE, {
            let Some(it) = iter(pIter) else {
                return SQLITE_MISUSE;
            };
            let Some(n) = it.fk else { return SQLITE_MISUSE };
            if !pnOut.is_null() {
                *pnOut = n as c_int;
            }
            SQLITE_OK
        })
    }
}

/// Free the iterator; returns the first error it met while iterating.
#[no_mangle]
pub unsafe extern "C" fn sqlite3changeset_finalize(pIter: *mut sqlite3_changeset_iter) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pIter` is NULL or a live
    // `sqlite3_changeset_iter` this library or SQLite's API contract provides.
    unsafe {
        crate::ffi_guard!(SQLITE_MISUSE, {
            let Some(it) = iter(pIter) else {
                return SQLITE_OK;
            };
            if it.reader.is_none() {
                return SQLITE_MISUSE;
            }
            let rc = it.error;
            drop(Box::from_raw(pIter as *mut IterHandle));
            rc
        })
    }
}

type FilterFn = unsafe extern "C" fn(*mut c_void, *const c_char) -> c_int;
type FilterIterFn = unsafe extern "C" fn(*mut c_void, *mut sqlite3_changeset_iter) -> c_int;
type ConflictFn = unsafe extern "C" fn(*mut c_void, c_int, *mut sqlite3_changeset_iter) -> c_int;

/// The application's callbacks, called with the connection lent.
struct CHandler<'a> {
    d: &'a sqlite3,
    filter: Option<FilterFn>,
    filter_iter: Option<FilterIterFn>,
    conflict: ConflictFn,
    ctx: *mut c_void,
}

impl ApplyHandler for CHandler<'_> {
    fn filter(&mut self, conn: &mut Connection, item: &Item) -> bool {
        let d = self.d;
        if let Some(f) = self.filter {
            let z = crate::error::cstring(item.table.name.as_str());
            return lend_to_callback(d, Some(conn), || unsafe { f(self.ctx, z.as_ptr()) }) != 0;
        }
        true
    }

    fn filter_change(&mut self, conn: &mut Connection, item: &Item) -> bool {
        let Some(f) = self.filter_iter else {
            return true;
        };
        let mut h = IterHandle::new(None);
        h.set_current(Some(item.clone()));
        let p = h.into_raw();
        let r = lend_to_callback(self.d, Some(conn), || unsafe { f(self.ctx, p) });
        drop(unsafe { Box::from_raw(p as *mut IterHandle) });
        r != 0
    }

    fn conflict(&mut self, conn: &mut Connection, kind: i32, item: Option<&Item>, row: Option<&[Value]>, fk: i64) -> i32 {
        let mut h = IterHandle::new(None);
        h.set_current(item.cloned());
        h.conflict = row.map(<[Value]>::to_vec);
        if kind == es::CONFLICT_FOREIGN_KEY {
            h.fk = Some(fk);
        }
        let p = h.into_raw();
        let f = self.conflict;
        let r = lend_to_callback(self.d, Some(conn), || unsafe { f(self.ctx, kind, p) });
        drop(unsafe { Box::from_raw(p as *mut IterHandle) });
        r
    }
}

#[allow(clippy::too_many_arguments, reason = "the arguments of `sqlite3changeset_apply_v3` and its siblings, passed through")]
unsafe fn apply(
    db: *mut sqlite3,
    data: Result<Vec<u8>, c_int>,
    filter: Option<FilterFn>,
    filter_iter: Option<FilterIterFn>,
    conflict: Option<ConflictFn>,
    ctx: *mut c_void,
    pp_rebase: *mut *mut c_void,
    pn_rebase: *mut c_int,
    flags: c_int,
) -> c_int {
    // SAFETY: the caller guarantees: `db` is NULL or a connection this library opened and has not freed;
    // `ctx` is NULL or valid for what the API does with it (read for the length given, or handed back to
    // callbacks untouched); `pp_rebase`, `pn_rebase` are NULL or writable.
    unsafe {
        let Some(d) = db_ref(db) else {
            return SQLITE_MISUSE;
        };
        let data = match data {
            Ok(b) => b,
            Err(rc) => return rc,
        };
        let Some(conflict) = conflict else {
            return SQLITE_MISUSE;
        };
        let _g = d.lock.lock();
        let mut h = CHandler { d, filter, filter_iter, conflict, ctx };
        match on_conn(d, |c| es::apply(c, &data, flags, &mut h)) {
            Ok(rebase) => {
                // (A patchset gives no rebase buffer: the outputs are left alone.)
                if !pp_rebase.is_null() && !pn_rebase.is_null() && data.first() != Some(&b'P') {
                    return crate::session::hand_out(&rebase, pn_rebase, pp_rebase);
                }
                SQLITE_OK
            }
            Err(e) => {
                if e.message.contains("not supported") {
                    crate::error::set_error(d, SQLITE_ERROR, Some(&e.message));
                    return SQLITE_ERROR;
                }
                e.primary()
            }
        }
    }
}

/// Apply the changeset of `nChangeset` bytes at `pChangeset` to `db`, asking
/// `xFilter(pCtx, zTab)` whether to take each table and
/// `xConflict(pCtx, eConflict, pIter)` what to do on a conflict (OMIT,
/// REPLACE or ABORT).
#[no_mangle]
pub unsafe extern "C" fn sqlite3changeset_apply(
    db: *mut sqlite3,
    nChangeset: c_int,
    pChangeset: *mut c_void,
    xFilter: Option<unsafe extern "C" fn(*mut c_void, *const c_char) -> c_int>,
    xConflict: Option<unsafe extern "C" fn(*mut c_void, c_int, *mut sqlite3_changeset_iter) -> c_int>,
    pCtx: *mut c_void,
) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed; `pChangeset` is NULL or valid for what the API does with it (read for
    // the length given, or handed back to callbacks untouched); `xFilter`, when set, is safe to call with the
    // arguments the API documents until unregistered.
    unsafe {
        crate::ffi_guard!(SQLITE_MISUSE, {
            apply(db, input(nChangeset, pChangeset).map(<[u8]>::to_vec), xFilter, None, xConflict, pCtx, std::ptr::null_mut(), std::ptr::null_mut(), 0)
        })
    }
}

/// sqlite3changeset_apply that can return a rebase buffer in `*ppRebase`
/// (`*pnRebase` bytes) and takes `flags` (SQLITE_CHANGESETAPPLY_*).
#[no_mangle]
pub unsafe extern "C" fn sqlite3changeset_apply_v2(
    db: *mut sqlite3,
    nChangeset: c_int,
    pChangeset: *mut c_void,
    xFilter: Option<unsafe extern "C" fn(*mut c_void, *const c_char) -> c_int>,
    xConflict: Option<unsafe extern "C" fn(*mut c_void, c_int, *mut sqlite3_changeset_iter) -> c_int>,
    pCtx: *mut c_void,
    ppRebase: *mut *mut c_void,
    pnRebase: *mut c_int,
    flags: c_int,
) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed; `pChangeset` is NULL or valid for what the API does with it (read for
    // the length given, or handed back to callbacks untouched); `xFilter`, when set, is safe to call with the
    // arguments the API documents until unregistered.
    unsafe {
        crate::ffi_guard!(SQLITE_MISUSE, {
            apply(db, input(nChangeset, pChangeset).map(<[u8]>::to_vec), xFilter, None, xConflict, pCtx, ppRebase, pnRebase, flags)
        })
    }
}

/// sqlite3changeset_apply reading through `xInput(pIn, p, &n)`.
#[no_mangle]
pub unsafe extern "C" fn sqlite3changeset_apply_strm(
    db: *mut sqlite3,
    xInput: Option<unsafe extern "C" fn(*mut c_void, *mut c_void, *mut c_int) -> c_int>,
    pIn: *mut c_void,
    xFilter: Option<unsafe extern "C" fn(*mut c_void, *const c_char) -> c_int>,
    xConflict: Option<unsafe extern "C" fn(*mut c_void, c_int, *mut sqlite3_changeset_iter) -> c_int>,
    pCtx: *mut c_void,
) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed; `xInput`, when set, is safe to call with the arguments the API
    // documents until unregistered.
    unsafe {
        crate::ffi_guard!(SQLITE_MISUSE, { apply(db, read_stream(xInput, pIn), xFilter, None, xConflict, pCtx, std::ptr::null_mut(), std::ptr::null_mut(), 0) })
    }
}

/// sqlite3changeset_apply_v2 reading through `xInput`.
#[no_mangle]
pub unsafe extern "C" fn sqlite3changeset_apply_v2_strm(
    db: *mut sqlite3,
    xInput: Option<unsafe extern "C" fn(*mut c_void, *mut c_void, *mut c_int) -> c_int>,
    pIn: *mut c_void,
    xFilter: Option<unsafe extern "C" fn(*mut c_void, *const c_char) -> c_int>,
    xConflict: Option<unsafe extern "C" fn(*mut c_void, c_int, *mut sqlite3_changeset_iter) -> c_int>,
    pCtx: *mut c_void,
    ppRebase: *mut *mut c_void,
    pnRebase: *mut c_int,
    flags: c_int,
) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed; `xInput`, when set, is safe to call with the arguments the API
    // documents until unregistered.
    unsafe { crate::ffi_guard!(SQLITE_MISUSE, { apply(db, read_stream(xInput, pIn), xFilter, None, xConflict, pCtx, ppRebase, pnRebase, flags,) }) }
}

/// sqlite3changeset_apply_v2 whose filter is called per change with the
/// iterator.
#[no_mangle]
pub unsafe extern "C" fn sqlite3changeset_apply_v3(
    db: *mut sqlite3,
    nChangeset: c_int,
    pChangeset: *mut c_void,
    xFilter: Option<unsafe extern "C" fn(*mut c_void, *mut sqlite3_changeset_iter) -> c_int>,
    xConflict: Option<unsafe extern "C" fn(*mut c_void, c_int, *mut sqlite3_changeset_iter) -> c_int>,
    pCtx: *mut c_void,
    ppRebase: *mut *mut c_void,
    pnRebase: *mut c_int,
    flags: c_int,
) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed; `pChangeset` is NULL or valid for what the API does with it (read for
    // the length given, or handed back to callbacks untouched); `xFilter`, when set, is safe to call with the
    // arguments the API documents until unregistered.
    unsafe {
        crate::ffi_guard!(SQLITE_MISUSE, {
            apply(db, input(nChangeset, pChangeset).map(<[u8]>::to_vec), None, xFilter, xConflict, pCtx, ppRebase, pnRebase, flags)
        })
    }
}

/// sqlite3changeset_apply_v3 reading through `xInput`.
#[no_mangle]
pub unsafe extern "C" fn sqlite3changeset_apply_v3_strm(
    db: *mut sqlite3,
    xInput: Option<unsafe extern "C" fn(*mut c_void, *mut c_void, *mut c_int) -> c_int>,
    pIn: *mut c_void,
    xFilter: Option<unsafe extern "C" fn(*mut c_void, *mut sqlite3_changeset_iter) -> c_int>,
    xConflict: Option<unsafe extern "C" fn(*mut c_void, c_int, *mut sqlite3_changeset_iter) -> c_int>,
    pCtx: *mut c_void,
    ppRebase: *mut *mut c_void,
    pnRebase: *mut c_int,
    flags: c_int,
) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed; `xInput`, when set, is safe to call with the arguments the API
    // documents until unregistered.
    unsafe { crate::ffi_guard!(SQLITE_MISUSE, { apply(db, read_stream(xInput, pIn), None, xFilter, xConflict, pCtx, ppRebase, pnRebase, flags,) }) }
}
