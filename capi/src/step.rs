//! # Running statements: `sqlite3_step`, `reset`, `finalize`
//!
//! `step` maps the engine's [`StepResult`] onto SQLITE_ROW / SQLITE_DONE /
//! SQLITE_IO (async connections) and errors onto their codes. A statement
//! that finished (DONE or error) is reset automatically by the next `step`,
//! as SQLite has done since 3.7. The code of a failed step is returned again
//! by `reset` and `finalize`.

use crate::consts::SQLITE_IO;
use crate::consts::*;
use crate::error::{misuse, report, set_error};
use crate::handle::{sqlite3_stmt, stmt_ref, Stepping, DB_ZOMBIE};
use ringlite::StepResult;
use std::ffi::c_int;
use std::sync::atomic::Ordering;

/// Run `pStmt` to its next result row: SQLITE_ROW with a row to read,
/// SQLITE_DONE when finished, or an error code. On a connection opened with
/// SQLITE_OPEN_ASYNC it returns SQLITE_IO (ringlite) while waiting for I/O:
/// wait (sqlite3_io_poll) and step again.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_step(pStmt: *mut sqlite3_stmt) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pStmt` is NULL or a statement from
    // `sqlite3_prepare*` not yet finalized.
    unsafe {
        ffi_guard!(SQLITE_INTERNAL, {
            let Some(s) = stmt_ref(pStmt) else {
                return misuse();
            };
            let db = s.db();
            let _g = db.lock.lock();
            // (Stepped again from one of its own callbacks.)
            if Stepping::contains(db, pStmt) {
                return misuse();
            }
            // A statement of a zombie connection (closed by close_v2 while
            // the statement lived) still runs, as in SQLite.
            if !db.is_open() && db.magic.load(Ordering::Acquire) != DB_ZOMBIE {
                return misuse();
            }
            s.clear_row();
            if s.finished {
                let stmt = &mut s.stmt;
                let _ = db.with_conn(|c| stmt.reset(c));
                s.finished = false;
            }
            if !s.stmt.busy() && db.conn.try_borrow().map(|c| c.as_ref().is_some_and(|c| c.autocommit())).unwrap_or(false) {
                // A new statement in autocommit mode starts without a pending
                // interrupt, as in SQLite.
                db.interrupt.store(false, Ordering::Relaxed);
            }
            s.ran = true;
            crate::slots::reset_vfs_busy_count(db);
            if s.started.is_none() {
                crate::trace::statement_starts(pStmt);
            }
            let outer = db.current_stmt.replace(pStmt);
            let stmt = &mut s.stmt;
            // A statement about to start is compiled again if the schema or
            // a registry changed since prepare; one naming a collation that
            // is now unknown gives `sqlite3_collation_needed`'s callback its
            // chance and is stepped again, as SQLite's reprepare does
            // (once per missing name, as in prepare).
            let starting = !stmt.busy();
            let mut asked: Vec<String> = Vec::new();
            let r = loop {
                let r = Stepping::during(db, pStmt, || db.with_conn(|c| stmt.step(c))).and_then(|r| r);
                if let (Err(e), true) = (&r, starting) {
                    if let Some(name) = e.message.strip_prefix("no such collation sequence: ") {
                        if !asked.iter().any(|n| n == name) && crate::collation::ask_for_collation(db, s.db, name) {
                            asked.push(name.to_string());
                            continue;
                        }
                    }
                }
                break r;
            };
            db.current_stmt.set(outer);
            match r {
                Ok(StepResult::Row) => {
                    set_error(db, SQLITE_ROW, None);
                    crate::trace::statement_row(pStmt);
                    SQLITE_ROW
                }
                Ok(StepResult::Done) => {
                    s.finished = true;
                    s.last_rc = SQLITE_OK;
                    s.last_msg = None;
                    crate::trace::statement_ends(pStmt);
                    crate::function::statement_halted(pStmt);
                    set_error(db, SQLITE_DONE, None);
                    SQLITE_DONE
                }
                Ok(StepResult::Io) => {
                    set_error(db, SQLITE_IO, None);
                    SQLITE_IO
                }
                Err(e) => {
                    s.finished = true;
                    s.last_rc = e.code;
                    s.last_msg = Some(e.message.clone());
                    crate::trace::statement_ends(pStmt);
                    crate::function::statement_halted(pStmt);
                    report(db, &e)
                }
            }
        })
    }
}

/// Rewind `pStmt` to run again from the start, keeping its bindings. Returns
/// the error of the last step, if any, else SQLITE_OK.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_reset(pStmt: *mut sqlite3_stmt) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pStmt` is NULL or a statement from
    // `sqlite3_prepare*` not yet finalized.
    unsafe {
        ffi_guard!(SQLITE_INTERNAL, {
            if pStmt.is_null() {
                return SQLITE_OK;
            }
            let Some(s) = stmt_ref(pStmt) else {
                return misuse();
            };
            let db = s.db();
            let _g = db.lock.lock();
            if Stepping::contains(db, pStmt) {
                return misuse();
            }
            s.clear_row();
            crate::trace::statement_ends(pStmt);
            crate::function::statement_halted(pStmt);
            let stmt = &mut s.stmt;
            if let Err(e) = db.with_conn(|c| stmt.reset(c)) {
                return report(db, &e);
            }
            s.finished = false;
            s.conclude()
        })
    }
}

/// Destroy `pStmt`. Returns the error of its last step, if any; NULL is
/// harmless.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_finalize(pStmt: *mut sqlite3_stmt) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pStmt` is NULL or a statement from
    // `sqlite3_prepare*` not yet finalized.
    unsafe {
        ffi_guard!(SQLITE_INTERNAL, {
            if pStmt.is_null() {
                return SQLITE_OK;
            }
            let Some(s) = stmt_ref(pStmt) else {
                return misuse();
            };
            let dbp = s.db;
            let db = s.db();
            let rc;
            {
                let _g = db.lock.lock();
                if Stepping::contains(db, pStmt) {
                    return misuse();
                }
                crate::trace::statement_ends(pStmt);
                crate::function::statement_halted(pStmt);
                let stmt = &mut s.stmt;
                let _ = db.with_conn(|c| stmt.reset(c));
                rc = s.conclude();
                db.stmts.borrow_mut().retain(|&p| p != pStmt);
                s.release_bound(None);
                s.magic = 0;
                drop(Box::from_raw(pStmt));
            }
            if db.magic.load(Ordering::Acquire) == DB_ZOMBIE && !db.in_use() {
                crate::close::free_db(dbp);
            }
            rc
        })
    }
}
