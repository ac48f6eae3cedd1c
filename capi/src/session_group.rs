//! # Changegroups, rebasers, concat and invert
//!
//! `sqlite3_changegroup` owns an engine [`ChangeGroup`];
//! `sqlite3_rebaser` an engine [`Rebaser`];
//! `sqlite3changeset_concat` and `_invert` (and their streaming forms)
//! are one engine call between an input and an output blob. Changes
//! built field by field (`sqlite3changegroup_change_*`) need a table the
//! group knows from a changeset added. `sqlite3changegroup_schema` makes
//! the group look tables up in a database of a connection (which must
//! outlive the group, as in SQLite).

use crate::consts::*;
use crate::session::{clear_out, hand_out, input, read_stream, write_stream, SQLITE_CHANGEGROUP_CONFIG_PATCHSET};
use crate::types::*;
use ringlite::ext::session::{self as es, ChangeGroup, Rebaser};
use std::ffi::{c_int, c_void};

unsafe fn group<'a>(p: *mut sqlite3_changegroup) -> Option<&'a mut ChangeGroup> {
    // SAFETY: the caller guarantees: `p` is NULL or a live `sqlite3_changegroup` this library or SQLite's API
    // contract provides.
    unsafe { (p as *mut ChangeGroup).as_mut() }
}

/// Create an empty changegroup in `*pp`, to combine changesets.
#[no_mangle]
pub unsafe extern "C" fn sqlite3changegroup_new(pp: *mut *mut sqlite3_changegroup) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pp` is NULL or writable.
    unsafe {
        crate::ffi_guard!(SQLITE_MISUSE, {
            if pp.is_null() {
                return SQLITE_MISUSE;
            }
            *pp = Box::into_raw(Box::<ChangeGroup>::default()) as *mut sqlite3_changegroup;
            SQLITE_OK
        })
    }
}

/// Delete the changegroup `pGrp`.
#[no_mangle]
pub unsafe extern "C" fn sqlite3changegroup_delete(pGrp: *mut sqlite3_changegroup) {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pGrp` is NULL or a live
    // `sqlite3_changegroup` this library or SQLite's API contract provides.
    unsafe {
        crate::ffi_guard!((), {
            if !pGrp.is_null() {
                drop(Box::from_raw(pGrp as *mut ChangeGroup));
            }
        })
    }
}

/// Add the changeset or patchset of `nData` bytes at `pData` to the group,
/// merging changes of the same rows.
#[no_mangle]
pub unsafe extern "C" fn sqlite3changegroup_add(pGrp: *mut sqlite3_changegroup, nData: c_int, pData: *mut c_void) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pGrp` is NULL or a live
    // `sqlite3_changegroup` this library or SQLite's API contract provides; `pData` is NULL or valid for what
    // the API does with it (read for the length given, or handed back to callbacks untouched).
    unsafe {
        crate::ffi_guard!(SQLITE_MISUSE, {
            let Some(g) = group(pGrp) else {
                return SQLITE_MISUSE;
            };
            match input(nData, pData) {
                Ok(b) => g.add(b).map_or_else(|e| e.primary(), |()| SQLITE_OK),
                Err(rc) => rc,
            }
        })
    }
}

/// sqlite3changegroup_add reading the input through `xInput(pIn, p, &n)`.
#[no_mangle]
pub unsafe extern "C" fn sqlite3changegroup_add_strm(
    pGrp: *mut sqlite3_changegroup,
    xInput: Option<unsafe extern "C" fn(*mut c_void, *mut c_void, *mut c_int) -> c_int>,
    pIn: *mut c_void,
) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pGrp` is NULL or a live
    // `sqlite3_changegroup` this library or SQLite's API contract provides; `xInput`, when set, is safe to
    // call with the arguments the API documents until unregistered.
    unsafe {
        crate::ffi_guard!(SQLITE_MISUSE, {
            let Some(g) = group(pGrp) else {
                return SQLITE_MISUSE;
            };
            match read_stream(xInput, pIn) {
                Ok(b) => g.add(&b).map_or_else(|e| e.primary(), |()| SQLITE_OK),
                Err(rc) => rc,
            }
        })
    }
}

/// Add the change the iterator `pIter` points at to the group.
#[no_mangle]
pub unsafe extern "C" fn sqlite3changegroup_add_change(pGrp: *mut sqlite3_changegroup, pIter: *mut sqlite3_changeset_iter) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pGrp` is NULL or a live
    // `sqlite3_changegroup` this library or SQLite's API contract provides; `pIter` is NULL or a live
    // `sqlite3_changeset_iter` this library or SQLite's API contract provides.
    unsafe {
        crate::ffi_guard!(SQLITE_MISUSE, {
            let Some(g) = group(pGrp) else {
                return SQLITE_MISUSE;
            };
            let Some(it) = crate::session_iter::iter_ref(pIter) else {
                return SQLITE_MISUSE;
            };
            let Some(item) = it.current_item() else {
                return SQLITE_MISUSE;
            };
            g.add_item(item.clone()).map_or_else(|e| e.primary(), |()| SQLITE_OK)
        })
    }
}

/// Write the group's combined changes into a buffer `*ppData` of `*pnData`
/// bytes, to free with sqlite3_free.
#[no_mangle]
pub unsafe extern "C" fn sqlite3changegroup_output(pGrp: *mut sqlite3_changegroup, pnData: *mut c_int, ppData: *mut *mut c_void) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pGrp` is NULL or a live
    // `sqlite3_changegroup` this library or SQLite's API contract provides; `pnData`, `ppData` are NULL or
    // writable.
    unsafe {
        crate::ffi_guard!(SQLITE_MISUSE, {
            clear_out(pnData, ppData);
            let Some(g) = group(pGrp) else {
                return SQLITE_MISUSE;
            };
            hand_out(&g.output(), pnData, ppData)
        })
    }
}

/// sqlite3changegroup_output writing through `xOutput(pOut, p, n)`.
#[no_mangle]
pub unsafe extern "C" fn sqlite3changegroup_output_strm(
    pGrp: *mut sqlite3_changegroup,
    xOutput: Option<unsafe extern "C" fn(*mut c_void, *const c_void, c_int) -> c_int>,
    pOut: *mut c_void,
) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pGrp` is NULL or a live
    // `sqlite3_changegroup` this library or SQLite's API contract provides; `xOutput`, when set, is safe to
    // call with the arguments the API documents until unregistered.
    unsafe {
        crate::ffi_guard!(SQLITE_MISUSE, {
            let Some(g) = group(pGrp) else {
                return SQLITE_MISUSE;
            };
            write_stream(xOutput, pOut, &g.output())
        })
    }
}

/// Set the changegroup option `op` through `pArg` (as sqlite3session_config).
#[no_mangle]
pub unsafe extern "C" fn sqlite3changegroup_config(pGrp: *mut sqlite3_changegroup, op: c_int, pArg: *mut c_void) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pGrp` is NULL or a live
    // `sqlite3_changegroup` this library or SQLite's API contract provides; `pArg` is NULL or valid for what
    // the API does with it (read for the length given, or handed back to callbacks untouched).
    unsafe {
        crate::ffi_guard!(SQLITE_MISUSE, {
            let Some(g) = group(pGrp) else {
                return SQLITE_MISUSE;
            };
            let arg = pArg as *mut c_int;
            if op != SQLITE_CHANGEGROUP_CONFIG_PATCHSET || arg.is_null() {
                return SQLITE_MISUSE;
            }
            if *arg >= 0 && g.is_empty() {
                g.patchset = Some(*arg > 0);
            }
            *arg = c_int::from(g.patchset == Some(true));
            SQLITE_OK
        })
    }
}

/// Write the changeset that undoes the `nIn` bytes at `pIn` into `*ppOut`
/// (`*pnOut` bytes, to free with sqlite3_free).
#[no_mangle]
pub unsafe extern "C" fn sqlite3changeset_invert(nIn: c_int, pIn: *const c_void, pnOut: *mut c_int, ppOut: *mut *mut c_void) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pIn` is NULL or valid for what the
    // API does with it (read for the length given, or handed back to callbacks untouched); `pnOut`, `ppOut`
    // are NULL or writable.
    unsafe {
        crate::ffi_guard!(SQLITE_MISUSE, {
            clear_out(pnOut, ppOut);
            match input(nIn, pIn).map(|b| es::invert(b).map_err(|e| e.primary())) {
                Ok(Ok(b)) => hand_out(&b, pnOut, ppOut),
                Ok(Err(rc)) | Err(rc) => rc,
            }
        })
    }
}

/// sqlite3changeset_invert with streamed input and output.
#[no_mangle]
pub unsafe extern "C" fn sqlite3changeset_invert_strm(
    xInput: Option<unsafe extern "C" fn(*mut c_void, *mut c_void, *mut c_int) -> c_int>,
    pIn: *mut c_void,
    xOutput: Option<unsafe extern "C" fn(*mut c_void, *const c_void, c_int) -> c_int>,
    pOut: *mut c_void,
) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `xInput`, when set, is safe to call
    // with the arguments the API documents until unregistered.
    unsafe {
        crate::ffi_guard!(SQLITE_MISUSE, {
            match read_stream(xInput, pIn).map(|b| es::invert(&b).map_err(|e| e.primary())) {
                Ok(Ok(b)) => write_stream(xOutput, pOut, &b),
                Ok(Err(rc)) | Err(rc) => rc,
            }
        })
    }
}

/// Concatenate changeset A (`nA` bytes at `pA`) and B into one changeset in
/// `*ppOut` (`*pnOut` bytes, free with sqlite3_free).
#[no_mangle]
pub unsafe extern "C" fn sqlite3changeset_concat(nA: c_int, pA: *mut c_void, nB: c_int, pB: *mut c_void, pnOut: *mut c_int, ppOut: *mut *mut c_void) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pA`, `pB` are NULL or valid for
    // what the API does with them (read for the length given, or handed back to callbacks untouched);
    // `pnOut`, `ppOut` are NULL or writable.
    unsafe {
        crate::ffi_guard!(SQLITE_MISUSE, {
            // (On error the outputs are left alone, as SQLite does.)
            let (a, b) = match (input(nA, pA), input(nB, pB)) {
                (Ok(a), Ok(b)) => (a, b),
                (Err(rc), _) | (_, Err(rc)) => return rc,
            };
            match es::concat(a, b) {
                Ok(out) => hand_out(&out, pnOut, ppOut),
                Err(e) => e.primary(),
            }
        })
    }
}

/// sqlite3changeset_concat with streamed inputs and output.
#[no_mangle]
pub unsafe extern "C" fn sqlite3changeset_concat_strm(
    xInputA: Option<unsafe extern "C" fn(*mut c_void, *mut c_void, *mut c_int) -> c_int>,
    pInA: *mut c_void,
    xInputB: Option<unsafe extern "C" fn(*mut c_void, *mut c_void, *mut c_int) -> c_int>,
    pInB: *mut c_void,
    xOutput: Option<unsafe extern "C" fn(*mut c_void, *const c_void, c_int) -> c_int>,
    pOut: *mut c_void,
) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `xInputA`, when set, is safe to call
    // with the arguments the API documents until unregistered.
    unsafe {
        crate::ffi_guard!(SQLITE_MISUSE, {
            let (a, b) = match (read_stream(xInputA, pInA), read_stream(xInputB, pInB)) {
                (Ok(a), Ok(b)) => (a, b),
                (Err(rc), _) | (_, Err(rc)) => return rc,
            };
            match es::concat(&a, &b) {
                Ok(out) => write_stream(xOutput, pOut, &out),
                Err(e) => e.primary(),
            }
        })
    }
}

unsafe fn rebaser<'a>(p: *mut sqlite3_rebaser) -> Option<&'a mut Rebaser> {
    // SAFETY: the caller guarantees: `p` is NULL or a live `sqlite3_rebaser` this library or SQLite's API
    // contract provides.
    unsafe { (p as *mut Rebaser).as_mut() }
}

/// Create a rebaser in `*ppNew`.
#[no_mangle]
pub unsafe extern "C" fn sqlite3rebaser_create(ppNew: *mut *mut sqlite3_rebaser) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `ppNew` is NULL or writable.
    unsafe {
        crate::ffi_guard!(SQLITE_MISUSE, {
            if ppNew.is_null() {
                return SQLITE_MISUSE;
            }
            *ppNew = Box::into_raw(Box::<Rebaser>::default()) as *mut sqlite3_rebaser;
            SQLITE_OK
        })
    }
}

/// Give the rebaser the rebase buffer (`nRebase` bytes at `pRebase`) that an
/// sqlite3changeset_apply_v2 produced.
#[no_mangle]
pub unsafe extern "C" fn sqlite3rebaser_configure(pRebaser: *mut sqlite3_rebaser, nRebase: c_int, pRebase: *const c_void) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pRebaser` is NULL or a live
    // `sqlite3_rebaser` this library or SQLite's API contract provides; `pRebase` is NULL or valid for what
    // the API does with it (read for the length given, or handed back to callbacks untouched).
    unsafe {
        crate::ffi_guard!(SQLITE_MISUSE, {
            let Some(r) = rebaser(pRebaser) else {
                return SQLITE_MISUSE;
            };
            match input(nRebase, pRebase) {
                Ok(b) => r.configure(b).map_or_else(|e| e.primary(), |()| SQLITE_OK),
                Err(rc) => rc,
            }
        })
    }
}

/// Rebase the changeset of `nIn` bytes at `pIn` against the rebaser's buffers
/// into `*ppOut` (`*pnOut` bytes, free with sqlite3_free).
#[no_mangle]
pub unsafe extern "C" fn sqlite3rebaser_rebase(
    pRebaser: *mut sqlite3_rebaser,
    nIn: c_int,
    pIn: *const c_void,
    pnOut: *mut c_int,
    ppOut: *mut *mut c_void,
) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pRebaser` is NULL or a live
    // `sqlite3_rebaser` this library or SQLite's API contract provides; `pIn` is NULL or valid for what the
    // API does with it (read for the length given, or handed back to callbacks untouched); `pnOut`, `ppOut`
    // are NULL or writable.
    unsafe {
        crate::ffi_guard!(SQLITE_MISUSE, {
            clear_out(pnOut, ppOut);
            let Some(r) = rebaser(pRebaser) else {
                return SQLITE_MISUSE;
            };
            match input(nIn, pIn).map(|b| r.rebase(b).map_err(|e| e.primary())) {
                Ok(Ok(b)) => hand_out(&b, pnOut, ppOut),
                Ok(Err(rc)) | Err(rc) => rc,
            }
        })
    }
}

/// sqlite3rebaser_rebase with streamed input and output.
#[no_mangle]
pub unsafe extern "C" fn sqlite3rebaser_rebase_strm(
    pRebaser: *mut sqlite3_rebaser,
    xInput: Option<unsafe extern "C" fn(*mut c_void, *mut c_void, *mut c_int) -> c_int>,
    pIn: *mut c_void,
    xOutput: Option<unsafe extern "C" fn(*mut c_void, *const c_void, c_int) -> c_int>,
    pOut: *mut c_void,
) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pRebaser` is NULL or a live
    // `sqlite3_rebaser` this library or SQLite's API contract provides; `xInput`, when set, is safe to call
    // with the arguments the API documents until unregistered.
    unsafe {
        crate::ffi_guard!(SQLITE_MISUSE, {
            let Some(r) = rebaser(pRebaser) else {
                return SQLITE_MISUSE;
            };
            match read_stream(xInput, pIn).map(|b| r.rebase(&b).map_err(|e| e.primary())) {
                Ok(Ok(b)) => write_stream(xOutput, pOut, &b),
                Ok(Err(rc)) | Err(rc) => rc,
            }
        })
    }
}

/// Delete the rebaser `p`.
#[no_mangle]
pub unsafe extern "C" fn sqlite3rebaser_delete(p: *mut sqlite3_rebaser) {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `p` is NULL or a live
    // `sqlite3_rebaser` this library or SQLite's API contract provides.
    unsafe {
        crate::ffi_guard!((), {
            if !p.is_null() {
                drop(Box::from_raw(p as *mut Rebaser));
            }
        })
    }
}

/// Report a builder error: its code, and its message through `pzErr`.
unsafe fn built(r: ringlite::Result<()>, pzErr: *mut *mut std::ffi::c_char) -> c_int {
    // SAFETY: the caller guarantees: `pzErr` is NULL or writable.
    unsafe {
        match r {
            Ok(()) => SQLITE_OK,
            Err(e) => {
                if !pzErr.is_null() && !e.message.is_empty() {
                    *pzErr = crate::memory::malloc_cstr(e.message.as_bytes());
                }
                e.primary()
            }
        }
    }
}

/// Start building a change by hand in the group: operation `eOp`
/// (SQLITE_INSERT, UPDATE or DELETE) on table `zTab`, indirect if
/// `bIndirect`. `*pzErr` receives a message to free on error.
#[no_mangle]
pub unsafe extern "C" fn sqlite3changegroup_change_begin(
    pGrp: *mut sqlite3_changegroup,
    eOp: c_int,
    zTab: *const std::ffi::c_char,
    bIndirect: c_int,
    pzErr: *mut *mut std::ffi::c_char,
) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pGrp` is NULL or a live
    // `sqlite3_changegroup` this library or SQLite's API contract provides; `zTab` is NULL or NUL-terminated
    // (or readable for the length given with it); `pzErr` is NULL or writable.
    unsafe {
        crate::ffi_guard!(SQLITE_MISUSE, {
            if !pzErr.is_null() {
                *pzErr = std::ptr::null_mut();
            }
            let Some(g) = group(pGrp) else {
                return SQLITE_MISUSE;
            };
            if zTab.is_null() {
                return SQLITE_MISUSE;
            }
            let name = std::ffi::CStr::from_ptr(zTab).to_string_lossy();
            built(g.change_begin(eOp, &name, bIndirect != 0), pzErr)
        })
    }
}

unsafe fn set_value(p: *mut sqlite3_changegroup, new: c_int, col: c_int, v: ringlite::value::Value) -> c_int {
    // SAFETY: the caller guarantees: `p` is NULL or a live `sqlite3_changegroup` this library or SQLite's API
    // contract provides.
    unsafe {
        let Some(g) = group(p) else {
            return SQLITE_MISUSE;
        };
        g.change_value(new != 0, col, v).map_or_else(|e| e.primary(), |()| SQLITE_OK)
    }
}

/// Set old (`bNew` 0) or new (1) value of column `iCol` of the change being
/// built to the integer `iVal`.
#[no_mangle]
pub unsafe extern "C" fn sqlite3changegroup_change_int64(pGrp: *mut sqlite3_changegroup, bNew: c_int, iCol: c_int, iVal: sqlite3_int64) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pGrp` is NULL or a live
    // `sqlite3_changegroup` this library or SQLite's API contract provides.
    unsafe { crate::ffi_guard!(SQLITE_MISUSE, { set_value(pGrp, bNew, iCol, ringlite::value::Value::Integer(iVal)) }) }
}

/// Set old or new value of column `iCol` of the change being built to NULL.
#[no_mangle]
pub unsafe extern "C" fn sqlite3changegroup_change_null(pGrp: *mut sqlite3_changegroup, bNew: c_int, iCol: c_int) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pGrp` is NULL or a live
    // `sqlite3_changegroup` this library or SQLite's API contract provides.
    unsafe { crate::ffi_guard!(SQLITE_MISUSE, { set_value(pGrp, bNew, iCol, ringlite::value::Value::Null) }) }
}

/// Set old or new value of column `iCol` of the change being built to `fVal`.
#[no_mangle]
pub unsafe extern "C" fn sqlite3changegroup_change_double(pGrp: *mut sqlite3_changegroup, bNew: c_int, iCol: c_int, fVal: f64) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pGrp` is NULL or a live
    // `sqlite3_changegroup` this library or SQLite's API contract provides.
    unsafe { crate::ffi_guard!(SQLITE_MISUSE, { set_value(pGrp, bNew, iCol, ringlite::value::Value::Real(fVal)) }) }
}

/// Set old or new value of column `iCol` to the text of `nVal` bytes at
/// `pVal` (to the NUL when negative).
#[no_mangle]
pub unsafe extern "C" fn sqlite3changegroup_change_text(
    pGrp: *mut sqlite3_changegroup,
    bNew: c_int,
    iCol: c_int,
    pVal: *const std::ffi::c_char,
    nVal: c_int,
) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pGrp` is NULL or a live
    // `sqlite3_changegroup` this library or SQLite's API contract provides; `pVal` is NULL or NUL-terminated
    // (or readable for the length given with it).
    unsafe {
        crate::ffi_guard!(SQLITE_MISUSE, {
            if pVal.is_null() {
                return SQLITE_MISUSE;
            }
            let bytes = if nVal < 0 {
                std::ffi::CStr::from_ptr(pVal).to_bytes().to_vec()
            } else {
                std::slice::from_raw_parts(pVal as *const u8, nVal as usize).to_vec()
            };
            set_value(pGrp, bNew, iCol, ringlite::value::Value::Text(bytes))
        })
    }
}

/// Set old or new value of column `iCol` to the BLOB of `nVal` bytes at
/// `pVal`.
#[no_mangle]
pub unsafe extern "C" fn sqlite3changegroup_change_blob(pGrp: *mut sqlite3_changegroup, bNew: c_int, iCol: c_int, pVal: *const c_void, nVal: c_int) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pGrp` is NULL or a live
    // `sqlite3_changegroup` this library or SQLite's API contract provides; `pVal` is NULL or valid for what
    // the API does with it (read for the length given, or handed back to callbacks untouched).
    unsafe {
        crate::ffi_guard!(SQLITE_MISUSE, {
            match input(nVal.max(0), pVal) {
                Ok(b) => set_value(pGrp, bNew, iCol, ringlite::value::Value::Blob(b.to_vec())),
                Err(rc) => rc,
            }
        })
    }
}

/// Add the change being built to the group, or drop it when `bDiscard` is
/// set. `*pzErr` receives a message to free on error.
#[no_mangle]
pub unsafe extern "C" fn sqlite3changegroup_change_finish(pGrp: *mut sqlite3_changegroup, bDiscard: c_int, pzErr: *mut *mut std::ffi::c_char) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pGrp` is NULL or a live
    // `sqlite3_changegroup` this library or SQLite's API contract provides; `pzErr` is NULL or writable.
    unsafe {
        crate::ffi_guard!(SQLITE_MISUSE, {
            if !pzErr.is_null() {
                *pzErr = std::ptr::null_mut();
            }
            let Some(g) = group(pGrp) else {
                return SQLITE_MISUSE;
            };
            built(g.change_finish(bDiscard != 0), pzErr)
        })
    }
}

/// Check changes added to the group from now on against the tables of schema
/// `zDb` of `db`, widening them with the columns' defaults.
#[no_mangle]
pub unsafe extern "C" fn sqlite3changegroup_schema(pGrp: *mut sqlite3_changegroup, db: *mut crate::handle::sqlite3, zDb: *const std::ffi::c_char) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pGrp` is NULL or a live
    // `sqlite3_changegroup` this library or SQLite's API contract provides; `db` is NULL or a connection this
    // library opened and has not freed; `zDb` is NULL or NUL-terminated (or readable for the length given
    // with it).
    unsafe {
        crate::ffi_guard!(SQLITE_MISUSE, {
            let Some(g) = group(pGrp) else {
                return SQLITE_MISUSE;
            };
            if crate::handle::db_ref(db).is_none() || zDb.is_null() {
                return SQLITE_MISUSE;
            }
            let db = crate::slots::SendPtr(db as *mut c_void);
            let schema = std::ffi::CStr::from_ptr(zDb).to_string_lossy().into_owned();
            let lookup: es::SchemaLookup = Box::new(move |table: &str| {
                // SAFETY: the application keeps the connection open while the
                // changegroup uses it (SQLite's rule for this call).
                let Some(d) = crate::handle::db_ref(db.get() as *mut crate::handle::sqlite3) else {
                    return Err(ringlite::Error::code(SQLITE_MISUSE));
                };
                let _g = d.lock.lock();
                crate::session::on_conn(d, |c| es::table_schema(c, &schema, table))
            });
            g.set_schema(lookup).map_or_else(|e| e.primary(), |()| SQLITE_OK)
        })
    }
}
