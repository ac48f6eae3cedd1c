//! # Compiling SQL: `sqlite3_prepare*`
//!
//! All six variants come here: UTF-16 text is converted to UTF-8 first and
//! the tail pointer mapped back. `nByte < 0` reads to the first NUL;
//! `nByte >= 0` reads at most that many bytes, stopping early at a NUL.
//! A new statement goes to the front of the connection's list (the order
//! `sqlite3_next_stmt` walks).

use crate::consts::*;
use crate::error::{cstring, misuse, report, set_error};
use crate::handle::{db_ref, sqlite3, sqlite3_stmt, ColumnCache, STMT_LIVE};
use std::ffi::{c_char, c_int, c_uint, c_void};

/// Prepare the first statement of `sql`; returns the code and the number of
/// bytes of `sql` consumed.
pub unsafe fn prepare_bytes(db: *mut sqlite3, sql: &[u8], pp: *mut *mut sqlite3_stmt) -> (c_int, usize) {
    // SAFETY: the caller guarantees: `db` is NULL or a connection this library opened and has not freed; `pp`
    // is NULL or writable.
    unsafe { prepare_text(db, sql, true, pp) }
}

/// [`prepare_bytes`], for a text whose end is a NUL (`terminated`) or its
/// given length: past SQLITE_LIMIT_SQL_LENGTH SQLite's parser refuses the
/// first with "string or blob too big", its prepare the second with
/// "statement too long" (`Connection::prepare_terminated` and
/// `Connection::prepare`).
unsafe fn prepare_text(db: *mut sqlite3, sql: &[u8], terminated: bool, pp: *mut *mut sqlite3_stmt) -> (c_int, usize) {
    // SAFETY: the caller guarantees: `db` is NULL or a connection this library opened and has not freed; `pp`
    // is NULL or writable.
    unsafe {
        if pp.is_null() {
            return (misuse(), 0);
        }
        *pp = std::ptr::null_mut();
        let Some(d) = db_ref(db) else {
            return (misuse(), 0);
        };
        let _g = d.lock.lock();
        crate::slots::reset_vfs_busy_count(d);
        let prepare = |c: &mut ringlite::connection::Connection| if terminated { c.prepare_terminated(sql) } else { c.prepare(sql) };
        let mut r = d.with_conn(prepare).and_then(|r| r);
        // An unknown collation: give `sqlite3_collation_needed`'s callback a
        // chance to register it, then try again (once per missing name).
        let mut asked: Vec<String> = Vec::new();
        while let Err(e) = &r {
            let Some(name) = e.message.strip_prefix("no such collation sequence: ") else { break };
            if asked.iter().any(|n| n == name) || !crate::collation::ask_for_collation(d, db, name) {
                break;
            }
            asked.push(name.to_string());
            r = d.with_conn(prepare).and_then(|r| r);
        }
        match r {
            Err(e) => {
                let rc = report(d, &e);
                if let Some(off) = ringlite::sql::error_offset::locate(sql, &e) {
                    d.error.borrow_mut().offset = off as i32;
                }
                (rc, 0)
            }
            Ok((None, used)) => {
                set_error(d, SQLITE_OK, None);
                (SQLITE_OK, used)
            }
            Ok((Some(stmt), used)) => {
                // sqlite3_sql gives the statement's text exactly as it was given:
                // from the start of the input to the tail.
                let text = cstring(sql[..used.min(sql.len())].to_vec());
                let s = Box::new(sqlite3_stmt {
                    magic: STMT_LIVE,
                    db,
                    stmt,
                    sql: text,
                    cache: ColumnCache::default(),
                    names: Default::default(),
                    names_generation: 0,
                    normalized: None,
                    finished: false,
                    last_rc: SQLITE_OK,
                    last_msg: None,
                    ran: false,
                    started: None,
                    bound: Vec::new(),
                    null_value: Box::default(),
                });
                let raw = Box::into_raw(s);
                d.stmts.borrow_mut().insert(0, raw);
                *pp = raw;
                set_error(d, SQLITE_OK, None);
                (SQLITE_OK, used)
            }
        }
    }
}

unsafe fn prepare8(db: *mut sqlite3, z: *const c_char, n: c_int, pp: *mut *mut sqlite3_stmt, tail: *mut *const c_char) -> c_int {
    // SAFETY: the caller guarantees: `db` is NULL or a connection this library opened and has not freed; `z`
    // is NULL or NUL-terminated (or readable for the length given with it); `pp`, `tail` are NULL or
    // writable.
    unsafe {
        if !pp.is_null() {
            *pp = std::ptr::null_mut();
        }
        if z.is_null() {
            if let Some(d) = db_ref(db) {
                set_error(d, SQLITE_MISUSE, None);
            }
            return misuse();
        }
        let len = crate::convert::c_len(z, if n < 0 { -1 } else { n as i64 });
        let sql = std::slice::from_raw_parts(z as *const u8, len);
        let terminated = n < 0 || (n > 0 && *z.add(n as usize - 1) == 0);
        let (rc, used) = prepare_text(db, sql, terminated, pp);
        if !tail.is_null() {
            *tail = z.add(used);
        }
        rc
    }
}

unsafe fn prepare16(db: *mut sqlite3, z: *const c_void, n: c_int, pp: *mut *mut sqlite3_stmt, tail: *mut *const c_void) -> c_int {
    // SAFETY: the caller guarantees: `db` is NULL or a connection this library opened and has not freed; `z`
    // is NULL or valid for what the API does with it (read for the length given, or handed back to callbacks
    // untouched); `pp`, `tail` are NULL or writable.
    unsafe {
        if !pp.is_null() {
            *pp = std::ptr::null_mut();
        }
        if z.is_null() {
            return misuse();
        }
        let utf8 = crate::convert::utf16_to_utf8(z, n as i64);
        let (rc, used) = prepare_bytes(db, &utf8, pp);
        if !tail.is_null() {
            let consumed = String::from_utf8_lossy(&utf8[..used.min(utf8.len())]).encode_utf16().count();
            *tail = (z as *const u16).add(consumed) as *const c_void;
        }
        rc
    }
}

/// Legacy form of sqlite3_prepare_v2: errors of a changed schema come from
/// sqlite3_step as SQLITE_SCHEMA and sqlite3_step's codes are less precise.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_prepare(
    db: *mut sqlite3,
    zSql: *const c_char,
    nByte: c_int,
    ppStmt: *mut *mut sqlite3_stmt,
    pzTail: *mut *const c_char,
) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed; `zSql` is NULL or NUL-terminated (or readable for the length given
    // with it); `ppStmt`, `pzTail` are NULL or writable.
    unsafe { ffi_guard!(SQLITE_INTERNAL, { prepare8(db, zSql, nByte, ppStmt, pzTail) }) }
}

/// Compile the first statement of `zSql` (UTF-8; `nByte` bytes, or up to the
/// NUL when negative) into `*ppStmt`, and point `*pzTail` past it. `*ppStmt`
/// is NULL for empty input or on error. Returns SQLITE_OK or an error code.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_prepare_v2(
    db: *mut sqlite3,
    zSql: *const c_char,
    nByte: c_int,
    ppStmt: *mut *mut sqlite3_stmt,
    pzTail: *mut *const c_char,
) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed; `zSql` is NULL or NUL-terminated (or readable for the length given
    // with it); `ppStmt`, `pzTail` are NULL or writable.
    unsafe { ffi_guard!(SQLITE_INTERNAL, { prepare8(db, zSql, nByte, ppStmt, pzTail) }) }
}

/// sqlite3_prepare_v2 with `prepFlags` (SQLITE_PREPARE_PERSISTENT,
/// SQLITE_PREPARE_NO_VTAB, ...).
#[no_mangle]
pub unsafe extern "C" fn sqlite3_prepare_v3(
    db: *mut sqlite3,
    zSql: *const c_char,
    nByte: c_int,
    prepFlags: c_uint,
    ppStmt: *mut *mut sqlite3_stmt,
    pzTail: *mut *const c_char,
) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed; `zSql` is NULL or NUL-terminated (or readable for the length given
    // with it); `ppStmt`, `pzTail` are NULL or writable.
    unsafe {
        // PERSISTENT and NORMALIZE change nothing observable here. NO_VTAB is
        // not applied to an application's statements yet (ringlite's own
        // extensions use `Connection::prepare_no_vtab`).
        let _ = prepFlags;
        ffi_guard!(SQLITE_INTERNAL, { prepare8(db, zSql, nByte, ppStmt, pzTail) })
    }
}

/// sqlite3_prepare for UTF-16 SQL text.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_prepare16(
    db: *mut sqlite3,
    zSql: *const c_void,
    nByte: c_int,
    ppStmt: *mut *mut sqlite3_stmt,
    pzTail: *mut *const c_void,
) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed; `zSql` is NULL or valid for what the API does with it (read for the
    // length given, or handed back to callbacks untouched); `ppStmt`, `pzTail` are NULL or writable.
    unsafe { ffi_guard!(SQLITE_INTERNAL, { prepare16(db, zSql, nByte, ppStmt, pzTail) }) }
}

/// sqlite3_prepare_v2 for UTF-16 SQL text (`nByte` counts bytes).
#[no_mangle]
pub unsafe extern "C" fn sqlite3_prepare16_v2(
    db: *mut sqlite3,
    zSql: *const c_void,
    nByte: c_int,
    ppStmt: *mut *mut sqlite3_stmt,
    pzTail: *mut *const c_void,
) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed; `zSql` is NULL or valid for what the API does with it (read for the
    // length given, or handed back to callbacks untouched); `ppStmt`, `pzTail` are NULL or writable.
    unsafe { ffi_guard!(SQLITE_INTERNAL, { prepare16(db, zSql, nByte, ppStmt, pzTail) }) }
}

/// sqlite3_prepare_v3 for UTF-16 SQL text.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_prepare16_v3(
    db: *mut sqlite3,
    zSql: *const c_void,
    nByte: c_int,
    prepFlags: c_uint,
    ppStmt: *mut *mut sqlite3_stmt,
    pzTail: *mut *const c_void,
) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed; `zSql` is NULL or valid for what the API does with it (read for the
    // length given, or handed back to callbacks untouched); `ppStmt`, `pzTail` are NULL or writable.
    unsafe {
        let _ = prepFlags;
        ffi_guard!(SQLITE_INTERNAL, { prepare16(db, zSql, nByte, ppStmt, pzTail) })
    }
}
