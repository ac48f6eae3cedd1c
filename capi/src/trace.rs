//! # Tracing: `sqlite3_trace_v2`, and the legacy `sqlite3_trace`/`profile`
//!
//! Tracing is done here, at the C API, where statements start and finish:
//! a statement's first `sqlite3_step` after a reset reports
//! `SQLITE_TRACE_STMT` (the legacy trace gets the SQL with its parameters
//! expanded), every row `SQLITE_TRACE_ROW`, its end (DONE, error, reset or
//! finalize) `SQLITE_TRACE_PROFILE` with the nanoseconds it ran, and closing
//! the connection `SQLITE_TRACE_CLOSE`. The engine is not asked to trace.
//!
//! Callbacks are copied out before they are called, so they may install
//! other callbacks or use the connection.

use crate::consts::*;
use crate::error::misuse;
use crate::handle::{db_ref, sqlite3, sqlite3_stmt};
use crate::slots::{SendPtr, Tracers};
use crate::types::sqlite3_uint64;
use std::ffi::{c_char, c_int, c_uint, c_void};
use std::time::Instant;

fn tracers(db: &sqlite3) -> Tracers {
    db.hooks.try_borrow().map(|h| h.tracing).unwrap_or_default()
}

/// A statement begins running (its first step since a reset).
pub unsafe fn statement_starts(p: *mut sqlite3_stmt) {
    // SAFETY: the caller guarantees: `p` is NULL or a statement from `sqlite3_prepare*` not yet finalized.
    unsafe {
        let s = &mut *p;
        let db = s.db();
        let t = tracers(db);
        let profiled = t.profile.is_some() || t.v2.is_some_and(|(mask, _, _)| mask & SQLITE_TRACE_PROFILE as c_uint != 0);
        s.started = Some(profiled.then(Instant::now));
        // Run from a callback of a running statement: SQLite traces such a
        // statement as an SQL comment.
        let nested = !db.lent.get().is_null();
        if let Some((mask, f, ctx)) = t.v2 {
            if mask & SQLITE_TRACE_STMT as c_uint != 0 {
                let commented = nested.then(|| {
                    let mut z = b"-- ".to_vec();
                    z.extend_from_slice(s.sql.as_bytes());
                    crate::error::cstring(z)
                });
                let sql = commented.as_ref().unwrap_or(&s.sql);
                f(SQLITE_TRACE_STMT as c_uint, ctx.get(), p as *mut c_void, sql.as_ptr() as *mut c_void);
            }
        }
        if let Some((f, ctx)) = t.legacy {
            match crate::stmt::expanded_sql(s, nested) {
                Some(sql) => {
                    let expanded = crate::error::cstring(sql);
                    f(ctx.get(), expanded.as_ptr());
                }
                None => f(ctx.get(), std::ptr::null()),
            }
        }
    }
}

/// The statement produced a row.
pub unsafe fn statement_row(p: *mut sqlite3_stmt) {
    // SAFETY: the caller guarantees: `p` is NULL or a statement from `sqlite3_prepare*` not yet finalized.
    unsafe {
        let t = tracers((*p).db());
        if let Some((mask, f, ctx)) = t.v2 {
            if mask & SQLITE_TRACE_ROW as c_uint != 0 {
                f(SQLITE_TRACE_ROW as c_uint, ctx.get(), p as *mut c_void, std::ptr::null_mut());
            }
        }
    }
}

/// The statement finished (DONE, error, reset or finalize): report its run
/// time if it had started.
pub unsafe fn statement_ends(p: *mut sqlite3_stmt) {
    // SAFETY: the caller guarantees: `p` is NULL or a statement from `sqlite3_prepare*` not yet finalized.
    unsafe {
        let s = &mut *p;
        let Some(Some(start)) = s.started.take() else {
            return;
        };
        let t = tracers(s.db());
        let mut nanos = start.elapsed().as_nanos().min(i64::MAX as u128) as i64;
        if let Some((mask, f, ctx)) = t.v2 {
            if mask & SQLITE_TRACE_PROFILE as c_uint != 0 {
                f(SQLITE_TRACE_PROFILE as c_uint, ctx.get(), p as *mut c_void, &mut nanos as *mut i64 as *mut c_void);
            }
        }
        if let Some((f, ctx)) = t.profile {
            f(ctx.get(), s.sql.as_ptr(), nanos as u64);
        }
    }
}

/// The connection is closing.
pub unsafe fn connection_closes(db: *mut sqlite3) {
    // SAFETY: the caller guarantees: `db` is NULL or a connection this library opened and has not freed.
    unsafe {
        let t = tracers(&*db);
        if let Some((mask, f, ctx)) = t.v2 {
            if mask & SQLITE_TRACE_CLOSE as c_uint != 0 {
                f(SQLITE_TRACE_CLOSE as c_uint, ctx.get(), db as *mut c_void, std::ptr::null_mut());
            }
        }
    }
}

/// Call `xCallback(uMask event, pCtx, P, X)` for the events in `uMask`
/// (SQLITE_TRACE_STMT, PROFILE, ROW, CLOSE) on `db`. A zero mask or NULL
/// callback turns tracing off.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_trace_v2(
    db: *mut sqlite3,
    uMask: c_uint,
    xCallback: Option<unsafe extern "C" fn(c_uint, *mut c_void, *mut c_void, *mut c_void) -> c_int>,
    pCtx: *mut c_void,
) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed; `xCallback`, when set, is safe to call with the arguments the API
    // documents until unregistered.
    unsafe {
        ffi_guard!(SQLITE_INTERNAL, {
            let Some(d) = db_ref(db) else {
                return misuse();
            };
            let _g = d.lock.lock();
            let mut h = d.hooks.borrow_mut();
            // As in SQLite, the three share one event mask: v2 tracing turns
            // the legacy trace and profile off.
            h.tracing = Tracers { v2: xCallback.filter(|_| uMask != 0).map(|f| (uMask, f, SendPtr(pCtx))), legacy: None, profile: None };
            SQLITE_OK
        })
    }
}

/// Deprecated: call `xTrace(pArg, zSql)` as each statement starts. Returns
/// the previous argument.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_trace(db: *mut sqlite3, xTrace: Option<unsafe extern "C" fn(*mut c_void, *const c_char)>, pArg: *mut c_void) -> *mut c_void {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed; `pArg` is NULL or valid for what the API does with it (read for the
    // length given, or handed back to callbacks untouched); `xTrace`, when set, is safe to call with the
    // arguments the API documents until unregistered.
    unsafe {
        ffi_guard!(std::ptr::null_mut(), {
            let Some(d) = db_ref(db) else {
                return std::ptr::null_mut();
            };
            let _g = d.lock.lock();
            let mut h = d.hooks.borrow_mut();
            let old = h.tracing.legacy.map_or(std::ptr::null_mut(), |(_, p)| p.get());
            // The legacy trace replaces v2 tracing and turns the profile off.
            h.tracing = Tracers { v2: None, legacy: xTrace.map(|f| (f, SendPtr(pArg))), profile: None };
            old
        })
    }
}

/// Deprecated: call `xProfile(pArg, zSql, ns)` as each statement ends with
/// its run time in nanoseconds. Returns the previous argument.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_profile(
    db: *mut sqlite3,
    xProfile: Option<unsafe extern "C" fn(*mut c_void, *const c_char, sqlite3_uint64)>,
    pArg: *mut c_void,
) -> *mut c_void {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed; `pArg` is NULL or valid for what the API does with it (read for the
    // length given, or handed back to callbacks untouched); `xProfile`, when set, is safe to call with the
    // arguments the API documents until unregistered.
    unsafe {
        ffi_guard!(std::ptr::null_mut(), {
            let Some(d) = db_ref(db) else {
                return std::ptr::null_mut();
            };
            let _g = d.lock.lock();
            let mut h = d.hooks.borrow_mut();
            let old = h.tracing.profile.map_or(std::ptr::null_mut(), |(_, p)| p.get());
            // The profile turns the legacy trace off and keeps v2 tracing.
            h.tracing.legacy = None;
            h.tracing.profile = xProfile.map(|f| (f, SendPtr(pArg)));
            old
        })
    }
}
