//! # `sqlite3_column_*`: the current row and result-column metadata
//!
//! Each column of the current row is copied once into a `sqlite3_value`
//! cached in the statement ([`ColumnCache`](crate::handle::ColumnCache));
//! every accessor reads through it with the `value_*` conversion rules, so
//! returned pointers stay valid until the next step, reset or finalize, as
//! `c3ref/column_blob.txt` promises. A column index outside the row reads
//! as NULL and sets the connection's error to SQLITE_RANGE.
//!
//! Names (column name, declared type, origin) are made once per statement
//! and kept until finalize.

use crate::consts::*;
use crate::error::cstring;
use crate::handle::{sqlite3_stmt, stmt_ref};
use crate::types::sqlite3_int64;
use crate::value::sqlite3_value;
use std::ffi::{c_char, c_int, c_uchar, c_void};

/// Apply `f` to the cached value of column `i` of the current row (the
/// statement's NULL value when there is no such column), holding the
/// connection's lock meanwhile; `default` for a bad statement handle.
pub unsafe fn column<T>(p: *mut sqlite3_stmt, i: c_int, default: T, f: impl FnOnce(&mut sqlite3_value) -> T) -> T {
    // SAFETY: the caller guarantees: `p` is NULL or a statement from `sqlite3_prepare*` not yet finalized.
    unsafe {
        let Some(s) = stmt_ref(p) else { return default };
        let db = s.db();
        let _g = db.lock.lock();
        let n = s.stmt.data_count();
        if i < 0 || i as usize >= n {
            // SQLite reads NULL here and records SQLITE_RANGE as the
            // connection's error (also when there is no current row).
            crate::error::set_error(db, SQLITE_RANGE, None);
            return f(&mut s.null_value);
        }
        let i = i as usize;
        let row = s.cache.row;
        if s.cache.values.len() < n {
            s.cache.values.resize_with(n, || (row.wrapping_sub(1), Box::default()));
        }
        let (filled_in, v) = &mut s.cache.values[i];
        if *filled_in != row {
            v.refill(s.stmt.column(i));
            *filled_in = row;
        }
        f(v)
    }
}

/// The BLOB of column `iCol` (0-based) of the current row of `pStmt`; NULL for
/// a zero-length value. Valid until the column is converted or the statement
/// steps, resets or is finalized.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_column_blob(pStmt: *mut sqlite3_stmt, iCol: c_int) -> *const c_void {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pStmt` is NULL or a statement from
    // `sqlite3_prepare*` not yet finalized.
    unsafe { ffi_guard!(std::ptr::null(), { column(pStmt, iCol, std::ptr::null(), |v| v.blob_ptr()) }) }
}

/// Column `iCol` of the current row converted to a double.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_column_double(pStmt: *mut sqlite3_stmt, iCol: c_int) -> f64 {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pStmt` is NULL or a statement from
    // `sqlite3_prepare*` not yet finalized.
    unsafe { ffi_guard!(0.0, { column(pStmt, iCol, 0.0, |v| v.double()) }) }
}

/// Column `iCol` of the current row converted to a 32-bit integer (the low 32
/// bits of its 64-bit value).
#[no_mangle]
pub unsafe extern "C" fn sqlite3_column_int(pStmt: *mut sqlite3_stmt, iCol: c_int) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pStmt` is NULL or a statement from
    // `sqlite3_prepare*` not yet finalized.
    unsafe { ffi_guard!(0, { column(pStmt, iCol, 0, |v| v.int64() as c_int) }) }
}

/// Column `iCol` of the current row converted to a 64-bit integer.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_column_int64(pStmt: *mut sqlite3_stmt, iCol: c_int) -> sqlite3_int64 {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pStmt` is NULL or a statement from
    // `sqlite3_prepare*` not yet finalized.
    unsafe { ffi_guard!(0, { column(pStmt, iCol, 0, |v| v.int64()) }) }
}

/// Column `iCol` of the current row as NUL-terminated UTF-8 text (NULL for an
/// SQL NULL). Valid until the next step, reset, finalize or conversion.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_column_text(pStmt: *mut sqlite3_stmt, iCol: c_int) -> *const c_uchar {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pStmt` is NULL or a statement from
    // `sqlite3_prepare*` not yet finalized.
    unsafe { ffi_guard!(std::ptr::null(), { column(pStmt, iCol, std::ptr::null(), |v| v.text_ptr_in_place()) }) }
}

/// Column `iCol` of the current row as NUL-terminated UTF-16 text in the
/// machine's byte order.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_column_text16(pStmt: *mut sqlite3_stmt, iCol: c_int) -> *const c_void {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pStmt` is NULL or a statement from
    // `sqlite3_prepare*` not yet finalized.
    unsafe { ffi_guard!(std::ptr::null(), { column(pStmt, iCol, std::ptr::null(), |v| v.text16_ptr()) }) }
}

/// Column `iCol` of the current row as an unprotected sqlite3_value, valid
/// until the statement steps again; copy it with sqlite3_value_dup to keep it.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_column_value(pStmt: *mut sqlite3_stmt, iCol: c_int) -> *mut sqlite3_value {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pStmt` is NULL or a statement from
    // `sqlite3_prepare*` not yet finalized.
    unsafe { ffi_guard!(std::ptr::null_mut(), { column(pStmt, iCol, std::ptr::null_mut(), |v| { v as *mut sqlite3_value }) }) }
}

/// The size in bytes of column `iCol` as a BLOB or UTF-8 text (converting it
/// to text first if it is a number), without the NUL terminator.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_column_bytes(pStmt: *mut sqlite3_stmt, iCol: c_int) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pStmt` is NULL or a statement from
    // `sqlite3_prepare*` not yet finalized.
    unsafe { ffi_guard!(0, { column(pStmt, iCol, 0, |v| v.bytes()) }) }
}

/// The size in bytes of column `iCol` as UTF-16 text, without the terminator.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_column_bytes16(pStmt: *mut sqlite3_stmt, iCol: c_int) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pStmt` is NULL or a statement from
    // `sqlite3_prepare*` not yet finalized.
    unsafe { ffi_guard!(0, { column(pStmt, iCol, 0, |v| v.bytes16()) }) }
}

/// The datatype code of column `iCol` of the current row: SQLITE_INTEGER,
/// SQLITE_FLOAT, SQLITE_TEXT, SQLITE_BLOB or SQLITE_NULL.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_column_type(pStmt: *mut sqlite3_stmt, iCol: c_int) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pStmt` is NULL or a statement from
    // `sqlite3_prepare*` not yet finalized.
    unsafe { ffi_guard!(SQLITE_NULL, { column(pStmt, iCol, SQLITE_NULL, |v| v.type_code()) }) }
}

/// The number of columns `pStmt` returns (0 for a statement that returns no
/// data, such as an UPDATE).
#[no_mangle]
pub unsafe extern "C" fn sqlite3_column_count(pStmt: *mut sqlite3_stmt) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pStmt` is NULL or a statement from
    // `sqlite3_prepare*` not yet finalized.
    unsafe { ffi_guard!(0, { stmt_ref(pStmt).map_or(0, |s| s.stmt.column_count() as c_int) }) }
}

/// The number of columns of the current row: as sqlite3_column_count while
/// the statement has a row, 0 otherwise.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_data_count(pStmt: *mut sqlite3_stmt) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pStmt` is NULL or a statement from
    // `sqlite3_prepare*` not yet finalized.
    unsafe {
        ffi_guard!(0, {
            stmt_ref(pStmt).map_or(0, |s| {
                let _g = s.db().lock.lock();
                s.stmt.data_count() as c_int
            })
        })
    }
}

/// Which per-column string.
#[derive(Clone, Copy)]
enum Meta {
    Name,
    Decltype,
    Database,
    Table,
    Origin,
}

/// A per-column string, made once and kept in the statement: UTF-8 when
/// `wide` is false, UTF-16 otherwise.
unsafe fn meta(p: *mut sqlite3_stmt, i: c_int, what: Meta, wide: bool) -> *const c_void {
    // SAFETY: the caller guarantees: `p` is NULL or a statement from `sqlite3_prepare*` not yet finalized.
    unsafe {
        let Some(s) = stmt_ref(p) else {
            return std::ptr::null();
        };
        let _g = s.db().lock.lock();
        if i < 0 || i as usize >= s.stmt.column_count() {
            return std::ptr::null();
        }
        let i = i as usize;
        // (As in SQLite, names handed out before the statement was compiled
        // again are no longer valid.)
        if s.names_generation != s.stmt.recompiles() {
            s.names.clear();
            s.names_generation = s.stmt.recompiles();
        }
        let key = (what as u8 * 2 + wide as u8, i);
        if !s.names.contains_key(&key) {
            let text: Option<String> = match what {
                Meta::Name => Some(s.stmt.column_name(i).to_string()),
                Meta::Decltype => s.stmt.column_decltype(i).map(str::to_string),
                Meta::Database => s.stmt.column_origin(i).map(|o| o.0.to_string()),
                Meta::Table => s.stmt.column_origin(i).map(|o| o.1.to_string()),
                Meta::Origin => s.stmt.column_origin(i).map(|o| o.2.to_string()),
            };
            let Some(text) = text else {
                return std::ptr::null();
            };
            let bytes = if wide {
                let units = crate::convert::utf8_to_utf16z(text.as_bytes());
                units.iter().flat_map(|u| u.to_ne_bytes()).collect()
            } else {
                cstring(text).into_bytes_with_nul()
            };
            s.names.insert(key, bytes);
        }
        s.names.get(&key).map_or(std::ptr::null(), |v| v.as_ptr() as *const c_void)
    }
}

/// The name of result column `N` (its AS name, or one ringlite derives as
/// SQLite does), UTF-8; NULL if `N` is out of range.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_column_name(pStmt: *mut sqlite3_stmt, N: c_int) -> *const c_char {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pStmt` is NULL or a statement from
    // `sqlite3_prepare*` not yet finalized.
    unsafe { ffi_guard!(std::ptr::null(), { meta(pStmt, N, Meta::Name, false) as *const c_char }) }
}

/// sqlite3_column_name in UTF-16.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_column_name16(pStmt: *mut sqlite3_stmt, N: c_int) -> *const c_void {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pStmt` is NULL or a statement from
    // `sqlite3_prepare*` not yet finalized.
    unsafe { ffi_guard!(std::ptr::null(), { meta(pStmt, N, Meta::Name, true) }) }
}

/// The schema name ("main", "temp" or an attached name) of the table column
/// that result column `N` comes from, or NULL for an expression.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_column_database_name(pStmt: *mut sqlite3_stmt, N: c_int) -> *const c_char {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pStmt` is NULL or a statement from
    // `sqlite3_prepare*` not yet finalized.
    unsafe { ffi_guard!(std::ptr::null(), { meta(pStmt, N, Meta::Database, false) as *const c_char }) }
}

/// sqlite3_column_database_name in UTF-16.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_column_database_name16(pStmt: *mut sqlite3_stmt, N: c_int) -> *const c_void {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pStmt` is NULL or a statement from
    // `sqlite3_prepare*` not yet finalized.
    unsafe { ffi_guard!(std::ptr::null(), { meta(pStmt, N, Meta::Database, true) }) }
}

/// The name of the table that result column `N` comes from, or NULL for an
/// expression.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_column_table_name(pStmt: *mut sqlite3_stmt, N: c_int) -> *const c_char {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pStmt` is NULL or a statement from
    // `sqlite3_prepare*` not yet finalized.
    unsafe { ffi_guard!(std::ptr::null(), { meta(pStmt, N, Meta::Table, false) as *const c_char }) }
}

/// sqlite3_column_table_name in UTF-16.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_column_table_name16(pStmt: *mut sqlite3_stmt, N: c_int) -> *const c_void {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pStmt` is NULL or a statement from
    // `sqlite3_prepare*` not yet finalized.
    unsafe { ffi_guard!(std::ptr::null(), { meta(pStmt, N, Meta::Table, true) }) }
}

/// The name of the table column that result column `N` comes from, or NULL
/// for an expression.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_column_origin_name(pStmt: *mut sqlite3_stmt, N: c_int) -> *const c_char {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pStmt` is NULL or a statement from
    // `sqlite3_prepare*` not yet finalized.
    unsafe { ffi_guard!(std::ptr::null(), { meta(pStmt, N, Meta::Origin, false) as *const c_char }) }
}

/// sqlite3_column_origin_name in UTF-16.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_column_origin_name16(pStmt: *mut sqlite3_stmt, N: c_int) -> *const c_void {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pStmt` is NULL or a statement from
    // `sqlite3_prepare*` not yet finalized.
    unsafe { ffi_guard!(std::ptr::null(), { meta(pStmt, N, Meta::Origin, true) }) }
}

/// The declared type of the table column behind result column `N` (as written
/// in its CREATE TABLE), or NULL for an expression or an untyped column.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_column_decltype(pStmt: *mut sqlite3_stmt, N: c_int) -> *const c_char {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pStmt` is NULL or a statement from
    // `sqlite3_prepare*` not yet finalized.
    unsafe { ffi_guard!(std::ptr::null(), { meta(pStmt, N, Meta::Decltype, false) as *const c_char }) }
}

/// sqlite3_column_decltype in UTF-16.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_column_decltype16(pStmt: *mut sqlite3_stmt, N: c_int) -> *const c_void {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pStmt` is NULL or a statement from
    // `sqlite3_prepare*` not yet finalized.
    unsafe { ffi_guard!(std::ptr::null(), { meta(pStmt, N, Meta::Decltype, true) }) }
}
