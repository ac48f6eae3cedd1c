//! # `sqlite3_exec` and `sqlite3_get_table`
//!
//! Both run every statement of a string in turn through the public
//! prepare/step/finalize path. An error message for the caller is allocated
//! with `sqlite3_malloc`, as SQLite documents (freed with `sqlite3_free`).

use crate::consts::*;
use crate::error::{misuse, set_error};
use crate::handle::{db_ref, sqlite3, sqlite3_stmt};
use crate::memory::malloc_cstr;
use crate::types::sqlite3_callback;
use std::ffi::{c_char, c_int, c_void, CStr};

unsafe fn set_errmsg(db: *mut sqlite3, errmsg: *mut *mut c_char, rc: c_int) {
    // SAFETY: the caller guarantees: `db` is NULL or a connection this library opened and has not freed;
    // `errmsg` is NULL or writable.
    unsafe {
        if errmsg.is_null() {
            return;
        }
        *errmsg = if rc == SQLITE_OK { std::ptr::null_mut() } else { malloc_cstr(CStr::from_ptr(crate::error::sqlite3_errmsg(db)).to_bytes()) };
    }
}

/// The body of `sqlite3_exec`.
pub unsafe fn exec(db: *mut sqlite3, sql: *const c_char, cb: sqlite3_callback, arg: *mut c_void, errmsg: *mut *mut c_char) -> c_int {
    // SAFETY: the caller guarantees: `db` is NULL or a connection this library opened and has not freed;
    // `sql` is NULL or NUL-terminated (or readable for the length given with it); `arg` is NULL or valid for
    // what the API does with it (read for the length given, or handed back to callbacks untouched); `errmsg`
    // is NULL or writable; `cb`, when set, is safe to call with the arguments the API documents until
    // unregistered.
    unsafe {
        if !errmsg.is_null() {
            *errmsg = std::ptr::null_mut();
        }
        let Some(d) = db_ref(db) else { return misuse() };
        let _g = d.lock.lock();
        if sql.is_null() {
            return SQLITE_OK;
        }
        let mut rest = sql;
        let mut rc = SQLITE_OK;
        while *rest != 0 {
            let mut stmt: *mut sqlite3_stmt = std::ptr::null_mut();
            let mut tail: *const c_char = std::ptr::null();
            rc = crate::prepare::sqlite3_prepare_v2(db, rest, -1, &mut stmt, &mut tail);
            if rc != SQLITE_OK {
                break;
            }
            if tail.is_null() || tail == rest && stmt.is_null() {
                break;
            }
            rest = tail;
            if stmt.is_null() {
                continue;
            }
            let ncol = crate::column::sqlite3_column_count(stmt);
            let mut names: Vec<*mut c_char> = Vec::new();
            let mut first_row = true;
            loop {
                rc = crate::step::sqlite3_step(stmt);
                if rc == crate::consts::SQLITE_IO {
                    // An async connection: exec completes its own I/O.
                    crate::async_io::sqlite3_io_poll(db, -1);
                    continue;
                }
                let have_row = rc == SQLITE_ROW;
                // PRAGMA empty_result_callbacks: a statement without rows
                // calls back once, with the names and no values.
                let empty = rc == SQLITE_DONE && first_row && cb.is_some() && d.with_conn(|c| c.empty_result_callbacks()).unwrap_or(false);
                if empty {
                    names = (0..ncol).map(|i| crate::column::sqlite3_column_name(stmt, i) as *mut c_char).collect();
                    let f = cb.unwrap_or_else(unreachable_cb);
                    if f(arg, ncol, std::ptr::null_mut(), names.as_mut_ptr()) != 0 {
                        crate::step::sqlite3_finalize(stmt);
                        set_error(d, SQLITE_ABORT, None);
                        let rc = crate::error::visible_code(d, SQLITE_ABORT);
                        set_errmsg(db, errmsg, rc);
                        return rc;
                    }
                }
                if cb.is_some() && have_row {
                    if first_row {
                        names = (0..ncol).map(|i| crate::column::sqlite3_column_name(stmt, i) as *mut c_char).collect();
                        first_row = false;
                    }
                    let mut values: Vec<*mut c_char> = (0..ncol).map(|i| crate::column::sqlite3_column_text(stmt, i) as *mut c_char).collect();
                    let f = cb.unwrap_or_else(unreachable_cb);
                    if f(arg, ncol, values.as_mut_ptr(), names.as_mut_ptr()) != 0 {
                        crate::step::sqlite3_finalize(stmt);
                        set_error(d, SQLITE_ABORT, None);
                        let rc = crate::error::visible_code(d, SQLITE_ABORT);
                        set_errmsg(db, errmsg, rc);
                        return rc;
                    }
                }
                if !have_row {
                    break;
                }
            }
            if rc == SQLITE_DONE {
                rc = crate::step::sqlite3_finalize(stmt);
            } else {
                crate::step::sqlite3_finalize(stmt);
                // finalize cleared nothing: keep the step's error.
            }
            if rc != SQLITE_OK && rc != SQLITE_DONE {
                break;
            }
            rc = SQLITE_OK;
        }
        set_errmsg(db, errmsg, rc);
        rc
    }
}

fn unreachable_cb() -> unsafe extern "C" fn(*mut c_void, c_int, *mut *mut c_char, *mut *mut c_char) -> c_int {
    unsafe extern "C" fn none(_: *mut c_void, _: c_int, _: *mut *mut c_char, _: *mut *mut c_char) -> c_int {
        0
    }
    none
}

/// Run the semicolon-separated statements of `sql` one after the other; for
/// each result row `callback(pArg, nCol, azValues, azNames)` is called (a
/// nonzero return aborts with SQLITE_ABORT). On error `*errmsg`, if not NULL,
/// receives a message to free with sqlite3_free.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_exec(db: *mut sqlite3, sql: *const c_char, callback: sqlite3_callback, pArg: *mut c_void, errmsg: *mut *mut c_char) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed; `sql` is NULL or NUL-terminated (or readable for the length given
    // with it); `pArg` is NULL or valid for what the API does with it (read for the length given, or handed
    // back to callbacks untouched); `errmsg` is NULL or writable; `callback`, when set, is safe to call with
    // the arguments the API documents until unregistered.
    unsafe { ffi_guard!(SQLITE_INTERNAL, { exec(db, sql, callback, pArg, errmsg) }) }
}

/// Rows collected by `sqlite3_get_table`.
struct Table {
    cells: Vec<*mut c_char>,
    ncol: c_int,
    nrow: c_int,
}

unsafe extern "C" fn collect(arg: *mut c_void, n: c_int, values: *mut *mut c_char, names: *mut *mut c_char) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `arg` is NULL or valid for what the
    // API does with it (read for the length given, or handed back to callbacks untouched); `values`, `names`
    // are NULL or writable.
    unsafe {
        let t = &mut *(arg as *mut Table);
        if t.nrow == 0 && t.cells.len() == 1 {
            t.ncol = n;
            for i in 0..n as usize {
                t.cells.push(malloc_cstr(CStr::from_ptr(*names.add(i)).to_bytes()));
            }
        }
        for i in 0..n as usize {
            let v = *values.add(i);
            t.cells.push(if v.is_null() { std::ptr::null_mut() } else { malloc_cstr(CStr::from_ptr(v).to_bytes()) });
        }
        t.nrow += 1;
        0
    }
}

/// Legacy: run `zSql` and return every row as strings in `*pazResult` (the
/// column names first), with the row and column counts in `*pnRow` and
/// `*pnColumn`. Free the table with sqlite3_free_table.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_get_table(
    db: *mut sqlite3,
    zSql: *const c_char,
    pazResult: *mut *mut *mut c_char,
    pnRow: *mut c_int,
    pnColumn: *mut c_int,
    pzErrmsg: *mut *mut c_char,
) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed; `zSql` is NULL or NUL-terminated (or readable for the length given
    // with it); `pazResult`, `pnRow`, `pnColumn`, `pzErrmsg` are NULL or writable.
    unsafe {
        ffi_guard!(SQLITE_INTERNAL, {
            if pazResult.is_null() {
                return misuse();
            }
            *pazResult = std::ptr::null_mut();
            // cells[0] holds the entry count, as free_table expects.
            let mut t = Table { cells: vec![std::ptr::null_mut()], ncol: 0, nrow: 0 };
            let rc = exec(db, zSql, Some(collect), &mut t as *mut Table as *mut c_void, pzErrmsg);
            let arr = crate::memory::alloc((t.cells.len() * std::mem::size_of::<*mut c_char>()) as u64) as *mut *mut c_char;
            let count = t.cells.len();
            t.cells[0] = count as *mut c_char;
            std::ptr::copy_nonoverlapping(t.cells.as_ptr(), arr, count);
            if rc != SQLITE_OK {
                sqlite3_free_table(arr.add(1));
                return rc;
            }
            *pazResult = arr.add(1);
            if !pnRow.is_null() {
                *pnRow = t.nrow;
            }
            if !pnColumn.is_null() {
                *pnColumn = t.ncol;
            }
            SQLITE_OK
        })
    }
}

/// Free a result table made by sqlite3_get_table.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_free_table(result: *mut *mut c_char) {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `result` is NULL or writable.
    unsafe {
        ffi_guard!((), {
            if result.is_null() {
                return;
            }
            let base = result.sub(1);
            let n = *base as usize;
            for i in 1..n {
                crate::memory::sqlite3_free(*base.add(i) as *mut c_void);
            }
            crate::memory::sqlite3_free(base as *mut c_void);
        })
    }
}

/// Runs a one-row PRAGMA through the public statement API (so async
/// connections complete their own I/O, as documented for non-step calls)
/// and returns the row's integers; `Err(rc)` with the error left on `db`.
pub(crate) unsafe fn pragma_row(db: *mut sqlite3, sql: &str) -> Result<Vec<i64>, c_int> {
    // SAFETY: the caller guarantees: `db` is NULL or a connection this library opened and has not freed.
    unsafe {
        let sql = std::ffi::CString::new(sql).map_err(|_| SQLITE_MISUSE)?;
        let mut stmt: *mut crate::handle::sqlite3_stmt = std::ptr::null_mut();
        let rc = crate::prepare::sqlite3_prepare_v2(db, sql.as_ptr(), -1, &mut stmt, std::ptr::null_mut());
        if rc != SQLITE_OK {
            return Err(rc);
        }
        let mut row = Vec::new();
        let rc = loop {
            let rc = crate::step::sqlite3_step(stmt);
            if rc == SQLITE_IO {
                crate::async_io::sqlite3_io_poll(db, -1);
                continue;
            }
            if rc == SQLITE_ROW && row.is_empty() {
                let n = crate::column::sqlite3_column_count(stmt);
                row = (0..n).map(|i| crate::column::sqlite3_column_int64(stmt, i)).collect();
                continue;
            }
            break rc;
        };
        let frc = crate::step::sqlite3_finalize(stmt);
        match (rc, frc) {
            (SQLITE_DONE, SQLITE_OK) => Ok(row),
            (SQLITE_DONE, e) => Err(e),
            (e, _) => Err(e),
        }
    }
}
