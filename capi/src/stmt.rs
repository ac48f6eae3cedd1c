//! # Statement introspection: SQL text, status, the statement list

use crate::consts::*;

use crate::handle::{db_ref, sqlite3, sqlite3_stmt, stmt_ref};
use std::ffi::{c_char, c_int};

/// The SQL text `pStmt` was prepared from (UTF-8, owned by the statement).
#[no_mangle]
pub unsafe extern "C" fn sqlite3_sql(pStmt: *mut sqlite3_stmt) -> *const c_char {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pStmt` is NULL or a statement from
    // `sqlite3_prepare*` not yet finalized.
    unsafe { ffi_guard!(std::ptr::null(), { stmt_ref(pStmt).map_or(std::ptr::null(), |s| s.sql.as_ptr()) }) }
}

/// The statement's SQL with its bound parameters written in as literals, to
/// free with sqlite3_free; NULL when out of memory.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_expanded_sql(pStmt: *mut sqlite3_stmt) -> *mut c_char {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pStmt` is NULL or a statement from
    // `sqlite3_prepare*` not yet finalized.
    unsafe {
        ffi_guard!(std::ptr::null_mut(), {
            let Some(s) = stmt_ref(pStmt) else {
                return std::ptr::null_mut();
            };
            let _g = s.db().lock.lock();
            match expanded_sql(s, false) {
                Some(sql) => crate::memory::malloc_cstr(&sql),
                None => std::ptr::null_mut(),
            }
        })
    }
}

/// The statement's SQL with its parameters expanded, or `None` when that
/// is as long as the connection's `SQLITE_LIMIT_LENGTH` or longer (SQLite
/// then answers NULL; the unexpanded text counts too).
///
/// `nested`: the statement runs from inside a callback of another one
/// (SQLite's trace of such a statement): then, as in SQLite, parameters
/// are not expanded and every line is made an SQL comment (`-- `).
pub fn expanded_sql(s: &sqlite3_stmt, nested: bool) -> Option<Vec<u8>> {
    let sql = if nested {
        let mut out = Vec::with_capacity(s.sql.as_bytes().len() + 8);
        for line in s.sql.as_bytes().split_inclusive(|&b| b == b'\n') {
            out.extend_from_slice(b"-- ");
            out.extend_from_slice(line);
        }
        out
    } else if s.stmt.parameter_count() == 0 {
        // Nothing to expand: SQLite gives the text exactly as prepared.
        s.sql.as_bytes().to_vec()
    } else {
        s.stmt.expanded_sql(s.sql.as_bytes())
    };
    // (Unknown while a callback of the statement's own step runs: the
    // engine connection is lent to that step; then there is no bound.)
    let limit = s.db().with_conn(|c| c.limit_value(SQLITE_LIMIT_LENGTH)).unwrap_or(i32::MAX);
    (sql.len() < limit.max(0) as usize).then_some(sql)
}

/// The statement's SQL normalized (literals replaced by `?`, spacing and case
/// standardised); owned by the statement.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_normalized_sql(pStmt: *mut sqlite3_stmt) -> *const c_char {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pStmt` is NULL or a statement from
    // `sqlite3_prepare*` not yet finalized.
    unsafe {
        ffi_guard!(std::ptr::null(), {
            // SQLite returns NULL unless built with SQLITE_ENABLE_NORMALIZE.
            let _ = stmt_ref(pStmt);
            std::ptr::null()
        })
    }
}

/// 1 if `pStmt` does not write to the database itself, else 0.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_stmt_readonly(pStmt: *mut sqlite3_stmt) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pStmt` is NULL or a statement from
    // `sqlite3_prepare*` not yet finalized.
    unsafe { ffi_guard!(0, { stmt_ref(pStmt).map_or(1, |s| s.stmt.readonly() as c_int) }) }
}

/// 1 for an EXPLAIN statement, 2 for EXPLAIN QUERY PLAN, 0 otherwise.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_stmt_isexplain(pStmt: *mut sqlite3_stmt) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pStmt` is NULL or a statement from
    // `sqlite3_prepare*` not yet finalized.
    unsafe { ffi_guard!(0, { stmt_ref(pStmt).map_or(0, |s| s.stmt.explain_mode()) }) }
}

/// Change the statement's EXPLAIN mode to `eMode`. Asking for the mode it
/// already has returns SQLITE_OK; changing it is not supported by ringlite
/// yet (SQLITE_ERROR with a message saying so).
#[no_mangle]
pub unsafe extern "C" fn sqlite3_stmt_explain(pStmt: *mut sqlite3_stmt, eMode: c_int) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pStmt` is NULL or a statement from
    // `sqlite3_prepare*` not yet finalized.
    unsafe {
        ffi_guard!(SQLITE_INTERNAL, {
            let Some(s) = stmt_ref(pStmt) else {
                return SQLITE_MISUSE;
            };
            if s.stmt.explain_mode() == eMode {
                return SQLITE_OK;
            }
            crate::error::set_error(s.db(), SQLITE_ERROR, Some("sqlite3_stmt_explain is not supported by ringlite yet"));
            SQLITE_ERROR
        })
    }
}

/// 1 if `pStmt` has started stepping and is neither done nor reset, else 0.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_stmt_busy(pStmt: *mut sqlite3_stmt) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pStmt` is NULL or a statement from
    // `sqlite3_prepare*` not yet finalized.
    unsafe { ffi_guard!(0, { stmt_ref(pStmt).map_or(0, |s| (s.stmt.busy() && !s.finished) as c_int) }) }
}

/// Read the statement counter `op` (SQLITE_STMTSTATUS_*) of `pStmt`,
/// resetting it to 0 when `resetFlg` is set.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_stmt_status(pStmt: *mut sqlite3_stmt, op: c_int, resetFlg: c_int) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pStmt` is NULL or a statement from
    // `sqlite3_prepare*` not yet finalized.
    unsafe {
        ffi_guard!(0, {
            let Some(s) = stmt_ref(pStmt) else { return 0 };
            let _g = s.db().lock.lock();
            s.stmt.status_reset(op, resetFlg != 0).clamp(0, i32::MAX as i64) as c_int
        })
    }
}

/// The connection `pStmt` belongs to.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_db_handle(pStmt: *mut sqlite3_stmt) -> *mut sqlite3 {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pStmt` is NULL or a statement from
    // `sqlite3_prepare*` not yet finalized.
    unsafe { ffi_guard!(std::ptr::null_mut(), { stmt_ref(pStmt).map_or(std::ptr::null_mut(), |s| s.db) }) }
}

/// The prepared statement of `pDb` after `pStmt` (the first one when `pStmt`
/// is NULL), or NULL after the last.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_next_stmt(pDb: *mut sqlite3, pStmt: *mut sqlite3_stmt) -> *mut sqlite3_stmt {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pDb` is NULL or a connection this
    // library opened and has not freed; `pStmt` is NULL or a statement from `sqlite3_prepare*` not yet
    // finalized.
    unsafe {
        ffi_guard!(std::ptr::null_mut(), {
            let Some(d) = db_ref(pDb) else {
                return std::ptr::null_mut();
            };
            let _g = d.lock.lock();
            let list = d.stmts.borrow();
            if pStmt.is_null() {
                return list.first().copied().unwrap_or(std::ptr::null_mut());
            }
            match list.iter().position(|&p| p == pStmt) {
                Some(i) => list.get(i + 1).copied().unwrap_or(std::ptr::null_mut()),
                None => std::ptr::null_mut(),
            }
        })
    }
}

/// Deprecated: 1 if `pStmt` is not a valid statement, else 0.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_expired(pStmt: *mut sqlite3_stmt) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pStmt` is NULL or a statement from
    // `sqlite3_prepare*` not yet finalized.
    unsafe { ffi_guard!(1, { stmt_ref(pStmt).is_none() as c_int }) }
}

/// Reset the statement's scan counters; ringlite keeps none, so it does
/// nothing.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_stmt_scanstatus_reset(pStmt: *mut sqlite3_stmt) {
    ffi_guard!((), {
        let _ = pStmt;
    })
}
