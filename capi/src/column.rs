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

#[no_mangle]
pub unsafe extern "C" fn sqlite3_column_blob(arg0: *mut sqlite3_stmt, iCol: c_int) -> *const c_void {
    ffi_guard!(std::ptr::null(), { column(arg0, iCol, std::ptr::null(), |v| v.blob_ptr()) })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_column_double(arg0: *mut sqlite3_stmt, iCol: c_int) -> f64 {
    ffi_guard!(0.0, { column(arg0, iCol, 0.0, |v| v.double()) })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_column_int(arg0: *mut sqlite3_stmt, iCol: c_int) -> c_int {
    ffi_guard!(0, { column(arg0, iCol, 0, |v| v.int64() as c_int) })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_column_int64(arg0: *mut sqlite3_stmt, iCol: c_int) -> sqlite3_int64 {
    ffi_guard!(0, { column(arg0, iCol, 0, |v| v.int64()) })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_column_text(arg0: *mut sqlite3_stmt, iCol: c_int) -> *const c_uchar {
    ffi_guard!(std::ptr::null(), { column(arg0, iCol, std::ptr::null(), |v| v.text_ptr_in_place()) })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_column_text16(arg0: *mut sqlite3_stmt, iCol: c_int) -> *const c_void {
    ffi_guard!(std::ptr::null(), { column(arg0, iCol, std::ptr::null(), |v| v.text16_ptr()) })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_column_value(arg0: *mut sqlite3_stmt, iCol: c_int) -> *mut sqlite3_value {
    ffi_guard!(std::ptr::null_mut(), { column(arg0, iCol, std::ptr::null_mut(), |v| { v as *mut sqlite3_value }) })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_column_bytes(arg0: *mut sqlite3_stmt, iCol: c_int) -> c_int {
    ffi_guard!(0, { column(arg0, iCol, 0, |v| v.bytes()) })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_column_bytes16(arg0: *mut sqlite3_stmt, iCol: c_int) -> c_int {
    ffi_guard!(0, { column(arg0, iCol, 0, |v| v.bytes16()) })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_column_type(arg0: *mut sqlite3_stmt, iCol: c_int) -> c_int {
    ffi_guard!(SQLITE_NULL, { column(arg0, iCol, SQLITE_NULL, |v| v.type_code()) })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_column_count(pStmt: *mut sqlite3_stmt) -> c_int {
    ffi_guard!(0, { stmt_ref(pStmt).map_or(0, |s| s.stmt.column_count() as c_int) })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_data_count(pStmt: *mut sqlite3_stmt) -> c_int {
    ffi_guard!(0, {
        stmt_ref(pStmt).map_or(0, |s| {
            let _g = s.db().lock.lock();
            s.stmt.data_count() as c_int
        })
    })
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

#[no_mangle]
pub unsafe extern "C" fn sqlite3_column_name(arg0: *mut sqlite3_stmt, N: c_int) -> *const c_char {
    ffi_guard!(std::ptr::null(), { meta(arg0, N, Meta::Name, false) as *const c_char })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_column_name16(arg0: *mut sqlite3_stmt, N: c_int) -> *const c_void {
    ffi_guard!(std::ptr::null(), { meta(arg0, N, Meta::Name, true) })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_column_database_name(arg0: *mut sqlite3_stmt, arg1: c_int) -> *const c_char {
    ffi_guard!(std::ptr::null(), { meta(arg0, arg1, Meta::Database, false) as *const c_char })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_column_database_name16(arg0: *mut sqlite3_stmt, arg1: c_int) -> *const c_void {
    ffi_guard!(std::ptr::null(), { meta(arg0, arg1, Meta::Database, true) })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_column_table_name(arg0: *mut sqlite3_stmt, arg1: c_int) -> *const c_char {
    ffi_guard!(std::ptr::null(), { meta(arg0, arg1, Meta::Table, false) as *const c_char })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_column_table_name16(arg0: *mut sqlite3_stmt, arg1: c_int) -> *const c_void {
    ffi_guard!(std::ptr::null(), { meta(arg0, arg1, Meta::Table, true) })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_column_origin_name(arg0: *mut sqlite3_stmt, arg1: c_int) -> *const c_char {
    ffi_guard!(std::ptr::null(), { meta(arg0, arg1, Meta::Origin, false) as *const c_char })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_column_origin_name16(arg0: *mut sqlite3_stmt, arg1: c_int) -> *const c_void {
    ffi_guard!(std::ptr::null(), { meta(arg0, arg1, Meta::Origin, true) })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_column_decltype(arg0: *mut sqlite3_stmt, arg1: c_int) -> *const c_char {
    ffi_guard!(std::ptr::null(), { meta(arg0, arg1, Meta::Decltype, false) as *const c_char })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_column_decltype16(arg0: *mut sqlite3_stmt, arg1: c_int) -> *const c_void {
    ffi_guard!(std::ptr::null(), { meta(arg0, arg1, Meta::Decltype, true) })
}
