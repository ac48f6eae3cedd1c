//! DML forms checked against the reference SQLite where the compat scripts
//! cannot look: parameter numbering (`?` are numbered in source order, SET
//! before FROM before WHERE, whatever order the code is generated in),
//! parameter names and counts, and the errors and offsets of ORDER BY/LIMIT
//! on DELETE/UPDATE (accepted as Debian's build accepts them).
#![allow(unsafe_code)]

use crate::sql_common;
use libsqlite3_sys as ffi;
use ringlite::value::Value;
use ringlite::StepResult;
use sql_common::*;
use std::ffi::CString;

/// Run `setup`, then `stmt` with integer parameters `binds`, then `query`
/// on both engines; return ringlite's and the reference's outcomes.
fn both(setup: &str, stmt: &str, binds: &[i64], query: &str) -> (Vec<Outcome>, Vec<Outcome>) {
    let mut ours = ours_open();
    run_ours(&mut ours, setup);
    let (st, _) = ours.prepare(stmt.as_bytes()).expect("prepare");
    let mut st = st.expect("statement");
    for (i, b) in binds.iter().enumerate() {
        st.bind(i + 1, Value::Integer(*b)).unwrap();
    }
    while let Ok(StepResult::Row | StepResult::Io) = st.step(&mut ours) {}
    st.reset(&mut ours);
    let ours_out = run_ours(&mut ours, query);

    let r = RefDb::open();
    run_ref(&r, setup);
    unsafe {
        let c = CString::new(stmt).unwrap();
        let mut p = std::ptr::null_mut();
        assert_eq!(ffi::sqlite3_prepare_v2(r.0, c.as_ptr(), -1, &mut p, std::ptr::null_mut()), 0);
        for (i, b) in binds.iter().enumerate() {
            ffi::sqlite3_bind_int64(p, i as i32 + 1, *b);
        }
        while ffi::sqlite3_step(p) == ffi::SQLITE_ROW {}
        ffi::sqlite3_finalize(p);
    }
    let ref_out = run_ref(&r, query);
    (ours_out, ref_out)
}

const SETUP: &str = "CREATE TABLE t(id INTEGER PRIMARY KEY, a, b); INSERT INTO t VALUES(1,0,0),(2,0,0),(3,0,0);
    CREATE TABLE d(id, v); INSERT INTO d VALUES(1,10),(2,20),(3,30);";

#[test]
fn update_parameters_in_source_order() {
    for (stmt, binds) in [
        ("UPDATE t SET a = ? WHERE id = ?", &[7, 2][..]),
        ("UPDATE t SET a = ?, b = ? WHERE id > ?", &[7, 8, 1][..]),
        ("UPDATE t SET a = d.v + ? FROM d WHERE d.id = t.id AND d.v > ?", &[5, 15][..]),
        ("UPDATE t SET (a, b) = (?, ?) WHERE id = ?", &[4, 5, 3][..]),
        ("WITH c(k) AS (SELECT ?) UPDATE t SET a = ? WHERE id IN c", &[2, 9][..]),
        ("WITH c(k) AS (SELECT ?) DELETE FROM t WHERE id = ? OR id IN c", &[1, 3][..]),
    ] {
        let (ours, theirs) = both(SETUP, stmt, binds, "SELECT * FROM t ORDER BY id");
        assert_eq!(ours, theirs, "{stmt}");
    }
}

/// `sqlite3_bind_parameter_count` and `_name` for each number.
fn parameters_ours(setup: &str, stmt: &str) -> Vec<Option<String>> {
    let mut ours = ours_open();
    run_ours(&mut ours, setup);
    let (st, _) = ours.prepare(stmt.as_bytes()).expect("prepare");
    let st = st.expect("statement");
    (1..=st.parameter_count()).map(|i| st.parameter_name(i).map(str::to_string)).collect()
}

fn parameters_ref(setup: &str, stmt: &str) -> Vec<Option<String>> {
    let r = RefDb::open();
    run_ref(&r, setup);
    unsafe {
        let c = CString::new(stmt).unwrap();
        let mut p = std::ptr::null_mut();
        assert_eq!(ffi::sqlite3_prepare_v2(r.0, c.as_ptr(), -1, &mut p, std::ptr::null_mut()), 0);
        let n = ffi::sqlite3_bind_parameter_count(p);
        let out = (1..=n)
            .map(|i| {
                let name = ffi::sqlite3_bind_parameter_name(p, i);
                (!name.is_null()).then(|| std::ffi::CStr::from_ptr(name).to_string_lossy().into_owned())
            })
            .collect();
        ffi::sqlite3_finalize(p);
        out
    }
}

#[test]
fn parameter_names_and_count_follow_source_order() {
    for stmt in [
        "SELECT :b, ?, :a, ?5, ?, :b",
        "UPDATE t SET a = :x, b = ? WHERE id = :y AND a = ?",
        "UPDATE t SET a = d.v + :k FROM d WHERE d.id = ?",
        "WITH c AS (SELECT ? AS z) SELECT * FROM c, c AS c2",
        "WITH c AS (SELECT :w AS z) DELETE FROM t WHERE id IN c AND a = ?",
        "INSERT INTO t VALUES(?, ?, ?) ON CONFLICT(id) DO UPDATE SET a = ?, b = :n",
    ] {
        assert_eq!(parameters_ours(SETUP, stmt), parameters_ref(SETUP, stmt), "{stmt}");
    }
}

/// Named parameters as SQLite reads them: `::` inside the name and a
/// TCL-style array suffix `(...)` (up to `)`, no white space) on every
/// sigil; a name of no identifier character, or a suffix left open, is
/// an unrecognized token on both.
#[test]
fn parameter_names_take_tcl_array_suffixes() {
    for stmt in ["SELECT $x(id), :a::b, @n(1,2), $::y, #v(), $a(b)c", "DELETE FROM t WHERE id = $x(id)"] {
        assert_eq!(parameters_ours(SETUP, stmt), parameters_ref(SETUP, stmt), "{stmt}");
    }
    for stmt in ["SELECT $x(a b)", "SELECT $x(a", "SELECT $(a)"] {
        let mut ours = ours_open();
        let e = ours.prepare(stmt.as_bytes()).err().unwrap_or_else(|| panic!("{stmt}"));
        let r = RefDb::open();
        let theirs = unsafe {
            let c = CString::new(stmt).unwrap();
            let mut p = std::ptr::null_mut();
            let rc = ffi::sqlite3_prepare_v2(r.0, c.as_ptr(), -1, &mut p, std::ptr::null_mut());
            ffi::sqlite3_finalize(p);
            assert_ne!(rc, 0, "{stmt}");
            std::ffi::CStr::from_ptr(ffi::sqlite3_errmsg(r.0)).to_string_lossy().into_owned()
        };
        assert_eq!(e.message, theirs, "{stmt}");
    }
}

fn error_offset_ours(stmt: &str) -> (String, i32) {
    let mut ours = ours_open();
    run_ours(&mut ours, "CREATE TABLE t(id INTEGER PRIMARY KEY, a, b)");
    let e = ours.prepare(stmt.as_bytes()).err().expect(stmt);
    let off = ringlite::sql::error_offset::locate(stmt.as_bytes(), &e).map_or(-1, |o| o as i32);
    (e.message.clone(), off)
}

/// ORDER BY and LIMIT on DELETE/UPDATE are accepted as with
/// SQLITE_ENABLE_UPDATE_DELETE_LIMIT (Debian's build; the bundled
/// reference lacks it): what stays an error, with its offset, as Debian's
/// SQLite 3.40.1 gives them (`sqlite3_errmsg`, `sqlite3_error_offset`).
#[test]
fn order_by_and_limit_on_delete_and_update_errors() {
    for (stmt, msg, offset) in [
        ("DELETE FROM t WHERE 1 LIMIT 2 ORDER BY 1", "near \"ORDER\": syntax error", 30),
        ("DELETE FROM t LIMIT", "incomplete input", -1),
        ("CREATE TRIGGER tr AFTER DELETE ON t BEGIN SELECT 1 ORDER BY 1; UPDATE t SET a = 1 ORDER BY a; END", "near \"ORDER\": syntax error", 82),
        ("CREATE TRIGGER tr AFTER DELETE ON t BEGIN DELETE FROM t LIMIT 1; END", "near \"LIMIT\": syntax error", 56),
        ("DELETE FROM t WHERE a OFFSET 1", "near \"OFFSET\": syntax error", 22),
        ("UPDATE t SET a = (SELECT 1 ORDER BY 1 LIMIT 1) ORDER BY a", "ORDER BY without LIMIT on UPDATE", -1),
        ("DELETE FROM nosuch LIMIT 1", "no such table: nosuch", -1),
    ] {
        assert_eq!(error_offset_ours(stmt), (msg.to_string(), offset), "{stmt}");
    }
    for stmt in ["WITH c AS (SELECT 1 LIMIT 1) DELETE FROM t RETURNING a LIMIT 1", "DELETE FROM t ORDER BY id LIMIT 1"] {
        let mut ours = ours_open();
        run_ours(&mut ours, "CREATE TABLE t(id INTEGER PRIMARY KEY, a, b)");
        assert!(ours.prepare(stmt.as_bytes()).is_ok(), "{stmt}");
    }
}

#[test]
fn anonymous_parameters_keep_their_text_in_column_names() {
    for sql in ["SELECT ?, ? + 1, :x", "SELECT * FROM (SELECT ?, ? + 1)", "WITH c AS (SELECT ? AS z, ?) SELECT * FROM c"] {
        let mut ours = ours_open();
        let r = RefDb::open();
        assert_eq!(run_ours(&mut ours, sql), run_ref(&r, sql), "{sql}");
    }
}
