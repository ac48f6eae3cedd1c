//! SQL text holding bytes that are not UTF-8 (Latin-1 literals and names,
//! as DBD::SQLite's tests send), differentially against SQLite: never a
//! panic (the parser crate once unwrapped its tokens as `str`); string
//! literals keep their bytes as SQLite's do (in values and comparisons);
//! a name, or a definition the schema stores, that is not UTF-8 is refused
//! with an error that says so; such bytes in comments are white space.
#![allow(unsafe_code)]

use crate::sql_common::{from_value, ours_open, RefDb, V};
use libsqlite3_sys as ffi;
use ringlite::StepResult;
use std::cell::Cell;

/// The error for a name that is not UTF-8 (SQLite keeps its raw bytes).
const NOT_UTF8: &str = "SQL text that is not UTF-8 is not supported by ringlite yet";

thread_local! {
    static PANICKED: Cell<bool> = const { Cell::new(false) };
}

/// The rows of every statement of `sql`, or the first error's message.
type Outcome = Result<Vec<Vec<V>>, String>;

/// Run `sql` on ringlite; asserts that no panic happened on this thread
/// meanwhile (a caught panic still printed on the application's stderr).
fn ours(sql: &[u8]) -> Outcome {
    PANICKED.with(|p| p.set(false));
    let mut conn = ours_open();
    let mut rows = Vec::new();
    let mut rest = sql;
    let r = loop {
        let (st, tail) = match conn.prepare(rest) {
            Ok(x) => x,
            Err(e) => break Err(e.message),
        };
        rest = &rest[tail..];
        let Some(mut st) = st else { break Ok(rows) };
        loop {
            match st.step(&mut conn) {
                Ok(StepResult::Row) => rows.push((0..st.column_count()).map(|i| from_value(st.column(i))).collect()),
                Ok(StepResult::Io) => continue,
                Ok(StepResult::Done) => break,
                Err(e) => return Err(e.message),
            }
        }
    };
    assert!(!PANICKED.with(|p| p.get()), "panic while preparing {:?}", String::from_utf8_lossy(sql));
    r
}

fn reference(sql: &[u8]) -> Outcome {
    let db = RefDb::open();
    let c = std::ffi::CString::new(sql).unwrap();
    let mut tail = c.as_ptr();
    let mut rows = Vec::new();
    // SAFETY: a NUL-terminated copy outliving the statements, each
    // finalized before the next.
    unsafe {
        while *tail != 0 {
            let mut st = std::ptr::null_mut();
            if ffi::sqlite3_prepare_v2(db.0, tail, -1, &mut st, &mut tail) != 0 {
                return Err(std::ffi::CStr::from_ptr(ffi::sqlite3_errmsg(db.0)).to_string_lossy().into_owned());
            }
            if st.is_null() {
                continue;
            }
            while ffi::sqlite3_step(st) == ffi::SQLITE_ROW {
                let row = (0..ffi::sqlite3_column_count(st))
                    .map(|i| match ffi::sqlite3_column_type(st, i) {
                        ffi::SQLITE_INTEGER => V::Int(ffi::sqlite3_column_int64(st, i)),
                        ffi::SQLITE_TEXT => {
                            let p = ffi::sqlite3_column_text(st, i);
                            V::Text(std::slice::from_raw_parts(p, ffi::sqlite3_column_bytes(st, i) as usize).to_vec())
                        }
                        _ => V::Null,
                    })
                    .collect();
                rows.push(row);
            }
            ffi::sqlite3_finalize(st);
        }
    }
    Ok(rows)
}

#[test]
fn bytes_not_utf8_in_sql_text() {
    let previous = std::sync::Arc::new(std::panic::take_hook());
    let chained = previous.clone();
    std::panic::set_hook(Box::new(move |info| {
        PANICKED.with(|p| p.set(true));
        chained(info)
    }));
    // String literals: the same values as SQLite's; comments: white space.
    for sql in [
        &b"SELECT 'caf\xe9', length('caf\xe9'), hex('caf\xe9'), quote('caf\xe9'), typeof('caf\xe9'), upper('caf\xe9'), 'caf\xe9' = 'caf\xe9'"[..],
        b"SELECT length('\xff\xfe'), hex('\xc3'), length('a\xc3'), 'a\xe9' < 'a\xea', 'x\xe9' LIKE 'X\xe9', '\xe9' GLOB '\xe9*'",
        b"CREATE TABLE t(a TEXT, b); INSERT INTO t(a) VALUES('\xe9t\xe9'); INSERT INTO t(b) VALUES(1); \
          SELECT hex(a), count(*) FROM t WHERE a IN ('\xe9t\xe9', 'd\xe9f') GROUP BY a ORDER BY a",
        b"WITH c(x) AS (SELECT 'caf\xe9') SELECT hex(x), (SELECT hex(x) FROM c WHERE x = 'caf\xe9') FROM c",
        // (U+10FF7F, the character below those standing for bytes, with
        // an invalid byte.)
        b"SELECT hex('\xf4\x8f\xbd\xbf\xe9'), hex('\xf4\x8f\xbd\xbf')",
        b"SELECT hex('it''s \xe9')",
        b"SELECT 1 -- caf\xe9",
        b"SELECT /* \xe9 */ 2",
        b"SELECT 3 /* \xff",
    ] {
        assert_eq!(ours(sql), reference(sql), "{:?}", String::from_utf8_lossy(sql));
    }
    // Names SQLite keeps the bytes of: refused, saying why.
    for sql in [
        &b"CREATE TABLE t\xe9(c\xe9 TEXT)"[..],
        b"SELECT 1 AS \"\xe9\"",
        b"SELECT 1 AS \xe9",
        b"CREATE VIRTUAL TABLE f USING fts5(x, c\xe9)",
        // (Definitions: the schema keeps their text as a `String`.)
        b"CREATE TABLE d(a TEXT DEFAULT 'd\xe9f')",
        b"CREATE VIEW v AS SELECT 'caf\xe9'",
        b"CREATE TABLE d(a); ALTER TABLE d ADD COLUMN b DEFAULT '\xe9'",
    ] {
        assert!(reference(sql).is_ok());
        assert_eq!(ours(sql), Err(NOT_UTF8.into()), "{:?}", String::from_utf8_lossy(sql));
    }
    // Malformed tokens: an error on both, and no panic.
    for sql in [&b"SELECT x'\xe9'"[..], b"SELECT 1\xe9", b"SELECT [\xe9", b"SELECT '\xe9", b"\xe9"] {
        assert!(ours(sql).is_err() && reference(sql).is_err(), "{:?}", String::from_utf8_lossy(sql));
    }
    drop(std::panic::take_hook());
    if let Ok(previous) = std::sync::Arc::try_unwrap(previous) {
        std::panic::set_hook(previous);
    }
}
