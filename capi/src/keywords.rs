//! # SQL keywords: `sqlite3_keyword_count`, `keyword_name`, `keyword_check`
//!
//! The words SQLite's tokenizer treats as keywords (`lang_keywords.txt`).

use std::ffi::{c_char, c_int};

const KEYWORDS: &[&str] = &[
    "ABORT",
    "ACTION",
    "ADD",
    "AFTER",
    "ALL",
    "ALTER",
    "ALWAYS",
    "ANALYZE",
    "AND",
    "AS",
    "ASC",
    "ATTACH",
    "AUTOINCREMENT",
    "BEFORE",
    "BEGIN",
    "BETWEEN",
    "BY",
    "CASCADE",
    "CASE",
    "CAST",
    "CHECK",
    "COLLATE",
    "COLUMN",
    "COMMIT",
    "CONFLICT",
    "CONSTRAINT",
    "CREATE",
    "CROSS",
    "CURRENT",
    "CURRENT_DATE",
    "CURRENT_TIME",
    "CURRENT_TIMESTAMP",
    "DATABASE",
    "DEFAULT",
    "DEFERRABLE",
    "DEFERRED",
    "DELETE",
    "DESC",
    "DETACH",
    "DISTINCT",
    "DO",
    "DROP",
    "EACH",
    "ELSE",
    "END",
    "ESCAPE",
    "EXCEPT",
    "EXCLUDE",
    "EXCLUSIVE",
    "EXISTS",
    "EXPLAIN",
    "FAIL",
    "FILTER",
    "FIRST",
    "FOLLOWING",
    "FOR",
    "FOREIGN",
    "FROM",
    "FULL",
    "GENERATED",
    "GLOB",
    "GROUP",
    "GROUPS",
    "HAVING",
    "IF",
    "IGNORE",
    "IMMEDIATE",
    "IN",
    "INDEX",
    "INDEXED",
    "INITIALLY",
    "INNER",
    "INSERT",
    "INSTEAD",
    "INTERSECT",
    "INTO",
    "IS",
    "ISNULL",
    "JOIN",
    "KEY",
    "LAST",
    "LEFT",
    "LIKE",
    "LIMIT",
    "MATCH",
    "MATERIALIZED",
    "NATURAL",
    "NO",
    "NOT",
    "NOTHING",
    "NOTNULL",
    "NULL",
    "NULLS",
    "OF",
    "OFFSET",
    "ON",
    "OR",
    "ORDER",
    "OTHERS",
    "OUTER",
    "OVER",
    "PARTITION",
    "PLAN",
    "PRAGMA",
    "PRECEDING",
    "PRIMARY",
    "QUERY",
    "RAISE",
    "RANGE",
    "RECURSIVE",
    "REFERENCES",
    "REGEXP",
    "REINDEX",
    "RELEASE",
    "RENAME",
    "REPLACE",
    "RESTRICT",
    "RETURNING",
    "RIGHT",
    "ROLLBACK",
    "ROW",
    "ROWS",
    "SAVEPOINT",
    "SELECT",
    "SET",
    "TABLE",
    "TEMP",
    "TEMPORARY",
    "THEN",
    "TIES",
    "TO",
    "TRANSACTION",
    "TRIGGER",
    "UNBOUNDED",
    "UNION",
    "UNIQUE",
    "UPDATE",
    "USING",
    "VACUUM",
    "VALUES",
    "VIEW",
    "VIRTUAL",
    "WHEN",
    "WHERE",
    "WINDOW",
    "WITH",
    "WITHOUT",
];

/// The number of SQL keywords the parser knows.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_keyword_count() -> c_int {
    ffi_guard!(0, { KEYWORDS.len() as c_int })
}

/// Point `*pzName` at keyword number `i` (0-based, not NUL-terminated) and set
/// `*pnName` to its length. Returns SQLITE_OK, or SQLITE_ERROR when `i` is out
/// of range.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_keyword_name(i: c_int, pzName: *mut *const c_char, pnName: *mut c_int) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pzName`, `pnName` are NULL or
    // writable.
    unsafe {
        ffi_guard!(crate::consts::SQLITE_ERROR, {
            if i < 0 || i as usize >= KEYWORDS.len() {
                return crate::consts::SQLITE_ERROR;
            }
            let k = KEYWORDS[i as usize];
            if !pzName.is_null() {
                *pzName = k.as_ptr() as *const c_char;
            }
            if !pnName.is_null() {
                *pnName = k.len() as c_int;
            }
            crate::consts::SQLITE_OK
        })
    }
}

/// 1 if the `nName` bytes at `zName` spell an SQL keyword (any case), else 0.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_keyword_check(zName: *const c_char, nName: c_int) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `zName` is NULL or NUL-terminated
    // (or readable for the length given with it).
    unsafe {
        ffi_guard!(0, {
            if zName.is_null() || nName <= 0 {
                return 0;
            }
            let w = std::slice::from_raw_parts(zName as *const u8, nName as usize);
            KEYWORDS.iter().any(|k| k.as_bytes().eq_ignore_ascii_case(w)) as c_int
        })
    }
}
