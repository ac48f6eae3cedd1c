//! # `sqlite3_index_info` for a C module's xBestIndex
//!
//! The engine's [`IndexInfo`] laid out as SQLite's header declares it,
//! followed in memory by what the `sqlite3_vtab_*` helpers called from
//! xBestIndex read (the collations, constant right-hand values, IN and
//! DISTINCT facts): SQLite keeps the same kind of hidden tail after the
//! structure, so a module's pointer to the structure finds it.
//!
//! Invariant: the arrays and strings the structure points to live until
//! xBestIndex returns; the answer is copied back before they go, and an
//! `idxStr` the module allocated is freed here when `needToFreeIdxStr`
//! says so.

use crate::abi::{sqlite3_index_constraint, sqlite3_index_constraint_usage, sqlite3_index_info, sqlite3_index_orderby, sqlite3_vtab};
use crate::consts::*;
use crate::handle::sqlite3;
use crate::value::sqlite3_value;
use ringlite::error::Error;
use ringlite::vtab::IndexInfo;
use std::ffi::{c_char, c_int, c_void, CStr, CString};

/// The structure the module sees, and its hidden tail.
#[repr(C)]
struct IndexInfoCall {
    info: sqlite3_index_info,
    /// The engine's question (collations, rhs, IN, DISTINCT).
    question: *mut IndexInfo,
    collations: Vec<CString>,
    rhs: Vec<Option<Box<sqlite3_value>>>,
}

type XBestIndex = unsafe extern "C" fn(*mut sqlite3_vtab, *mut sqlite3_index_info) -> c_int;

/// Ask xBestIndex `x` of `vtab` about `q` and copy its answer into `q`.
pub(crate) unsafe fn call_best_index(_db: *mut sqlite3, vtab: *mut sqlite3_vtab, x: XBestIndex, q: &mut IndexInfo) -> ringlite::Result<()> {
    // SAFETY: the caller guarantees: `_db` is NULL or a connection this library opened and has not freed;
    // `vtab` is NULL or a live `sqlite3_vtab` this library or SQLite's API contract provides.
    unsafe {
        let mut cons: Vec<sqlite3_index_constraint> = q
            .constraints
            .iter()
            .map(|c| sqlite3_index_constraint { iColumn: c.column, op: c.op, usable: c.usable as u8, iTermOffset: c.term_offset })
            .collect();
        let mut order: Vec<sqlite3_index_orderby> = q.order_by.iter().map(|o| sqlite3_index_orderby { iColumn: o.column, desc: o.desc as u8 }).collect();
        let mut usage: Vec<sqlite3_index_constraint_usage> = q.usage.iter().map(|_| sqlite3_index_constraint_usage { argvIndex: 0, omit: 0 }).collect();
        let collations = q.collations.iter().map(|c| crate::error::cstring(c.as_bytes().to_vec())).collect();
        let rhs = q.rhs.iter().map(|v| v.clone().map(|v| Box::new(sqlite3_value::new(v)))).collect();
        let mut call = Box::new(IndexInfoCall {
            info: sqlite3_index_info {
                nConstraint: cons.len() as c_int,
                aConstraint: crate::c_array::callback_array(&mut cons),
                nOrderBy: order.len() as c_int,
                aOrderBy: crate::c_array::callback_array(&mut order),
                aConstraintUsage: crate::c_array::callback_array(&mut usage),
                idxNum: 0,
                idxStr: std::ptr::null_mut(),
                needToFreeIdxStr: 0,
                orderByConsumed: 0,
                estimatedCost: q.estimated_cost,
                estimatedRows: q.estimated_rows,
                idxFlags: 0,
                colUsed: q.col_used,
            },
            question: q as *mut IndexInfo,
            collations,
            rhs,
        });
        let rc = x(vtab, &mut call.info);
        let info = &call.info;
        let idx_str = if info.idxStr.is_null() { None } else { Some(CStr::from_ptr(info.idxStr).to_string_lossy().into_owned()) };
        if info.needToFreeIdxStr != 0 && !info.idxStr.is_null() {
            crate::memory::sqlite3_free(info.idxStr as *mut c_void);
        }
        if rc != SQLITE_OK {
            let mut message = None;
            if !(*vtab).zErrMsg.is_null() {
                message = Some(CStr::from_ptr((*vtab).zErrMsg).to_string_lossy().into_owned());
                crate::memory::sqlite3_free((*vtab).zErrMsg as *mut c_void);
                (*vtab).zErrMsg = std::ptr::null_mut();
            }
            return Err(match message {
                Some(m) => Error::new(rc, m),
                None => Error::code(rc),
            });
        }
        for (u, out) in usage.iter().zip(q.usage.iter_mut()) {
            out.argv_index = u.argvIndex;
            out.omit = u.omit != 0;
        }
        q.idx_num = info.idxNum;
        q.idx_str = idx_str;
        q.order_by_consumed = info.orderByConsumed != 0;
        q.estimated_cost = info.estimatedCost;
        q.estimated_rows = info.estimatedRows;
        q.idx_flags = info.idxFlags;
        Ok(())
    }
}

/// The call `p` points into, when it is one of ours.
unsafe fn call_of<'a>(p: *mut sqlite3_index_info) -> Option<&'a mut IndexInfoCall> {
    // SAFETY: the caller guarantees: `p` is NULL or a live `sqlite3_index_info` this library or SQLite's API
    // contract provides.
    unsafe {
        if p.is_null() {
            return None;
        }
        Some(&mut *(p as *mut IndexInfoCall))
    }
}

/// `sqlite3_vtab_collation`: inside xBestIndex, the name of the collating
/// sequence constraint `iCons` compares with ("BINARY" by default).
#[no_mangle]
pub unsafe extern "C" fn sqlite3_vtab_collation(pIdxInfo: *mut sqlite3_index_info, iCons: c_int) -> *const c_char {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pIdxInfo` is NULL or a live
    // `sqlite3_index_info` this library or SQLite's API contract provides.
    unsafe {
        crate::ffi_guard!(std::ptr::null(), {
            let Some(c) = call_of(pIdxInfo) else { return std::ptr::null() };
            match c.collations.get(iCons as usize) {
                Some(s) if iCons >= 0 => s.as_ptr(),
                _ => std::ptr::null(),
            }
        })
    }
}

/// `sqlite3_vtab_distinct`: inside xBestIndex, what order the planner
/// needs: 0 the full ORDER BY, 1 equal rows adjacent (GROUP BY), 2 equal
/// rows adjacent and duplicates optional (DISTINCT), 3 sorted and
/// duplicates optional (DISTINCT with ORDER BY).
#[no_mangle]
pub unsafe extern "C" fn sqlite3_vtab_distinct(pIdxInfo: *mut sqlite3_index_info) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pIdxInfo` is NULL or a live
    // `sqlite3_index_info` this library or SQLite's API contract provides.
    unsafe {
        crate::ffi_guard!(0, {
            match call_of(pIdxInfo) {
                Some(c) => (*c.question).distinct,
                None => 0,
            }
        })
    }
}

/// `sqlite3_vtab_in`: whether constraint `iCons` is an IN the module may
/// take all at once (`bHandle` 1 asks for it, 0 declines, -1 only asks).
#[no_mangle]
pub unsafe extern "C" fn sqlite3_vtab_in(pIdxInfo: *mut sqlite3_index_info, iCons: c_int, bHandle: c_int) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pIdxInfo` is NULL or a live
    // `sqlite3_index_info` this library or SQLite's API contract provides.
    unsafe {
        crate::ffi_guard!(0, {
            let Some(c) = call_of(pIdxInfo) else { return 0 };
            let q = &mut *c.question;
            let i = iCons as usize;
            if iCons < 0 || i >= q.is_in.len() || !q.is_in[i] {
                return 0;
            }
            if bHandle >= 0 {
                q.in_handled[i] = bHandle != 0;
            }
            1
        })
    }
}

/// Step the IN list `pVal` carries (an xFilter argument taken with
/// `sqlite3_vtab_in`): from the first value, or the next one. The value
/// handed out stays valid until the next step (it is kept on `pVal`).
unsafe fn in_step(pVal: *mut sqlite3_value, ppOut: *mut *mut sqlite3_value, first: bool) -> c_int {
    // SAFETY: the caller guarantees: `pVal` is NULL or a value this library handed out, still alive; `ppOut`
    // is NULL or writable.
    unsafe {
        if !ppOut.is_null() {
            *ppOut = std::ptr::null_mut();
        }
        let Some(v) = pVal.as_ref() else { return SQLITE_MISUSE };
        // Observed: any other value is an SQLITE_ERROR.
        let ringlite::value::Value::Pointer(p) = &v.value else { return SQLITE_ERROR };
        let Some(list) = p.downcast_ref::<ringlite::vtab::in_list::InList>() else { return SQLITE_ERROR };
        let mut it = v.in_iter.borrow_mut();
        let at = if first { 0 } else { it.0 };
        let Some(item) = list.values.get(at) else {
            it.0 = at;
            it.1 = None;
            return SQLITE_DONE;
        };
        it.0 = at + 1;
        let out = it.1.insert(Box::new(sqlite3_value::new(item.clone())));
        if !ppOut.is_null() {
            *ppOut = &mut **out;
        }
        SQLITE_OK
    }
}

/// `sqlite3_vtab_in_first`: the first value of an IN list handed over by
/// `sqlite3_vtab_in` (`SQLITE_DONE` when empty, `SQLITE_ERROR` for any
/// other value, `SQLITE_MISUSE` for none).
#[no_mangle]
pub unsafe extern "C" fn sqlite3_vtab_in_first(pVal: *mut sqlite3_value, ppOut: *mut *mut sqlite3_value) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pVal` is NULL or a value this
    // library handed out, still alive; `ppOut` is NULL or writable.
    unsafe { crate::ffi_guard!(SQLITE_MISUSE, { in_step(pVal, ppOut, true) }) }
}

/// `sqlite3_vtab_in_next`: the next value of an IN list handed over by
/// `sqlite3_vtab_in` (see `sqlite3_vtab_in_first`).
#[no_mangle]
pub unsafe extern "C" fn sqlite3_vtab_in_next(pVal: *mut sqlite3_value, ppOut: *mut *mut sqlite3_value) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pVal` is NULL or a value this
    // library handed out, still alive; `ppOut` is NULL or writable.
    unsafe { crate::ffi_guard!(SQLITE_MISUSE, { in_step(pVal, ppOut, false) }) }
}

/// `sqlite3_vtab_rhs_value`: the right-hand value of constraint `iCons`
/// when it is known while planning (a constant), else `SQLITE_NOTFOUND`.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_vtab_rhs_value(pIdxInfo: *mut sqlite3_index_info, iCons: c_int, ppVal: *mut *mut sqlite3_value) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pIdxInfo` is NULL or a live
    // `sqlite3_index_info` this library or SQLite's API contract provides; `ppVal` is NULL or writable.
    unsafe {
        crate::ffi_guard!(SQLITE_MISUSE, {
            if !ppVal.is_null() {
                *ppVal = std::ptr::null_mut();
            }
            let Some(c) = call_of(pIdxInfo) else { return SQLITE_MISUSE };
            if iCons < 0 || iCons as usize >= c.rhs.len() {
                return SQLITE_MISUSE;
            }
            match c.rhs[iCons as usize].as_mut() {
                Some(v) => {
                    if !ppVal.is_null() {
                        *ppVal = &mut **v as *mut sqlite3_value;
                    }
                    SQLITE_OK
                }
                None => SQLITE_NOTFOUND,
            }
        })
    }
}
