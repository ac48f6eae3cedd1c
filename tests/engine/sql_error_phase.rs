//! Whether an error comes from `sqlite3_prepare` or from `sqlite3_step`,
//! differentially against the reference SQLite 3.54.1: a C program sees
//! the difference in prepare_v2's return code. ALTER TABLE's checks of
//! the schema it leaves (SQLite's program runs them: "error in view v
//! after drop column: ..."), the column existing rows cannot take (NOT
//! NULL without a default: refused only when the table has a row), DDL
//! under `SQLITE_LIMIT_EXPR_DEPTH` below 3 (SQLite's nested statements),
//! and plain statements under that limit at 0, 1 and 2 (`*` expanded to
//! columns of height 1, 2 or 3). Also the first of two name errors where
//! SQLite's resolver meets it: an UPDATE's SET list before its WHERE, a
//! query's ORDER BY and GROUP BY after its result list, HAVING and WHERE,
//! a window's PARTITION BY with its function.
#![allow(unsafe_code)]

use crate::sql_common::{ours_open, run_ours, run_ref, RefDb};
use libsqlite3_sys as ffi;
use ringlite::{Connection, StepResult};
use std::ffi::{CStr, CString};

const LIMIT_EXPR_DEPTH: i32 = 3;

/// Where a statement ended: ("prepare" | "step" | "done", primary code,
/// message).
type Phase = (&'static str, i32, String);

fn phase_ours(conn: &mut Connection, sql: &str) -> Phase {
    let mut st = match conn.prepare_terminated(sql.as_bytes()) {
        Ok((Some(st), _)) => st,
        Ok((None, _)) => return ("done", 0, String::new()),
        Err(e) => return ("prepare", e.primary(), e.message.clone()),
    };
    let r = loop {
        match st.step(conn) {
            Ok(StepResult::Row) | Ok(StepResult::Io) => continue,
            Ok(StepResult::Done) => break ("done", 0, String::new()),
            Err(e) => break ("step", e.primary(), e.message.clone()),
        }
    };
    st.reset(conn);
    r
}

fn phase_ref(db: &RefDb, sql: &str) -> Phase {
    let c = CString::new(sql).unwrap();
    unsafe {
        let mut st = std::ptr::null_mut();
        let rc = ffi::sqlite3_prepare_v2(db.0, c.as_ptr(), -1, &mut st, std::ptr::null_mut());
        let msg = || CStr::from_ptr(ffi::sqlite3_errmsg(db.0)).to_string_lossy().into_owned();
        if rc != 0 {
            return ("prepare", rc & 0xff, msg());
        }
        if st.is_null() {
            return ("done", 0, String::new());
        }
        let mut rc = ffi::SQLITE_ROW;
        while rc == ffi::SQLITE_ROW {
            rc = ffi::sqlite3_step(st);
        }
        let r = if rc == ffi::SQLITE_DONE { ("done", 0, String::new()) } else { ("step", rc & 0xff, msg()) };
        ffi::sqlite3_finalize(st);
        r
    }
}

/// `setup` on fresh databases, then `limits`, then `sql`: it must end in
/// the same phase with the same code and message on both.
fn same_phase(setup: &str, limits: &[(i32, i32)], sql: &str) {
    let mut ours = ours_open();
    let reference = RefDb::open();
    assert_eq!(run_ours(&mut ours, setup), run_ref(&reference, setup), "setup: {setup}");
    for &(id, v) in limits {
        assert_eq!(ours.limit(id, v), unsafe { ffi::sqlite3_limit(reference.0, id, v) }, "limit {id}");
    }
    let (a, b) = (phase_ours(&mut ours, sql), phase_ref(&reference, sql));
    assert_eq!(a, b, "\nsetup: {setup}\nlimits: {limits:?}\nSQL: {sql}");
    // And the schema (and rows) afterwards are the same.
    let after = "SELECT type, name, sql FROM sqlite_schema ORDER BY name";
    for &(id, _) in limits {
        ours.limit(id, 1000);
        unsafe { ffi::sqlite3_limit(reference.0, id, 1000) };
    }
    assert_eq!(run_ours(&mut ours, after), run_ref(&reference, after), "schema after: {sql}");
}

#[test]
fn alter_table_errors_found_by_the_program_fail_the_step() {
    let cases = [
        ("CREATE TABLE e(a)", "ALTER TABLE e ADD COLUMN c NOT NULL"),
        ("CREATE TABLE e(a); INSERT INTO e VALUES(1)", "ALTER TABLE e ADD COLUMN c NOT NULL"),
        ("CREATE TABLE e(a); INSERT INTO e VALUES(1); DELETE FROM e", "ALTER TABLE e ADD COLUMN c NOT NULL"),
        ("CREATE TABLE e(a)", "ALTER TABLE e ADD COLUMN c NOT NULL DEFAULT NULL"),
        ("CREATE TABLE e(a); INSERT INTO e VALUES(1)", "ALTER TABLE e ADD COLUMN c NOT NULL DEFAULT NULL"),
        ("CREATE TABLE e(a)", "ALTER TABLE e ADD COLUMN c INTEGER NOT NULL CHECK(c > 0)"),
        ("CREATE TABLE e(a INT) STRICT", "ALTER TABLE e ADD COLUMN c INT NOT NULL"),
        ("CREATE TABLE e(a PRIMARY KEY) WITHOUT ROWID", "ALTER TABLE e ADD COLUMN c NOT NULL"),
        ("CREATE TABLE e(a PRIMARY KEY) WITHOUT ROWID; INSERT INTO e VALUES(1)", "ALTER TABLE e ADD COLUMN c NOT NULL"),
        ("CREATE TABLE e(a); INSERT INTO e VALUES(1)", "ALTER TABLE e ADD COLUMN c NOT NULL DEFAULT 3"),
        ("CREATE TABLE e(a); INSERT INTO e VALUES(1)", "ALTER TABLE e ADD COLUMN c DEFAULT (1+1)"),
        ("CREATE TABLE e(a); INSERT INTO e VALUES(1)", "ALTER TABLE e ADD COLUMN c AS (a) STORED"),
        ("CREATE TABLE e(a)", "ALTER TABLE e ADD COLUMN c AS (nosuch)"),
        ("CREATE TABLE e(a, b); CREATE INDEX ei ON e(a)", "ALTER TABLE e DROP COLUMN a"),
        ("CREATE TABLE e(a, b); CREATE VIEW v AS SELECT a FROM e", "ALTER TABLE e DROP COLUMN a"),
        ("CREATE TABLE e(a, b); CREATE TRIGGER tr AFTER INSERT ON e BEGIN SELECT new.a; END", "ALTER TABLE e DROP COLUMN a"),
        ("CREATE TABLE e(a, b CHECK(a > 0))", "ALTER TABLE e DROP COLUMN a"),
        ("CREATE TABLE e(a, b AS (a))", "ALTER TABLE e DROP COLUMN a"),
        ("CREATE TABLE e(a, b, c AS (b))", "ALTER TABLE e DROP COLUMN b"),
        ("CREATE TABLE e(a, b AS (1))", "ALTER TABLE e DROP COLUMN a"),
        ("CREATE TABLE e(a, b)", "ALTER TABLE e DROP COLUMN c"),
        ("CREATE TABLE e(a PRIMARY KEY, b)", "ALTER TABLE e DROP COLUMN a"),
        ("CREATE TABLE e(a UNIQUE, b)", "ALTER TABLE e DROP COLUMN a"),
        ("CREATE TABLE e(a)", "ALTER TABLE e DROP COLUMN a"),
        ("CREATE TABLE e(a, b); CREATE VIEW v AS SELECT nosuch FROM e", "ALTER TABLE e DROP COLUMN b"),
        ("CREATE TABLE e(a, b); CREATE VIEW v AS SELECT nosuch FROM e", "ALTER TABLE e RENAME a TO c"),
        ("CREATE TABLE e(a, b); CREATE VIEW v AS SELECT nosuch FROM e", "ALTER TABLE e RENAME TO f"),
        ("CREATE TABLE e(a, b); CREATE VIEW v AS SELECT a FROM e", "ALTER TABLE e RENAME a TO b"),
        ("CREATE TABLE e(a, b)", "ALTER TABLE e RENAME nosuch TO c"),
        ("CREATE TABLE e(a, b); CREATE TRIGGER tr AFTER INSERT ON e BEGIN INSERT INTO nosuch VALUES(1); END", "ALTER TABLE e RENAME a TO c"),
        ("CREATE TABLE e(a, b); CREATE VIEW v AS SELECT nosuch FROM e", "ALTER TABLE e ADD COLUMN c"),
        ("CREATE TABLE e(a, b); INSERT INTO e VALUES(1, 1), (1, 2)", "CREATE UNIQUE INDEX u ON e(a)"),
        ("CREATE TABLE e(a, b); INSERT INTO e VALUES(1, 1)", "CREATE INDEX u ON e(abs(-9223372036854775808))"),
        ("CREATE TABLE e(a, b)", "CREATE INDEX u ON e(nosuch)"),
        ("CREATE TABLE e(a, b)", "CREATE INDEX u ON e(random())"),
    ];
    for (setup, sql) in cases {
        same_phase(setup, &[], sql);
    }
}

#[test]
fn ddl_under_a_low_expression_depth_fails_where_sqlite_fails() {
    let setup = "CREATE TABLE t(a); INSERT INTO t VALUES(5); CREATE VIEW v AS SELECT a FROM t; CREATE INDEX i0 ON t(a); \
                 CREATE TRIGGER tr0 AFTER DELETE ON t BEGIN SELECT 1; END; CREATE TABLE t2(x, y)";
    let statements = [
        "CREATE TABLE u(x)",
        "CREATE TEMP TABLE tt(x)",
        "CREATE INDEX i ON t(a)",
        "CREATE VIEW v2 AS SELECT 1",
        "CREATE TRIGGER tr AFTER INSERT ON t BEGIN DELETE FROM t; END",
        "VACUUM",
        "ANALYZE",
        "DROP INDEX i0",
        "DROP VIEW v",
        "DROP TRIGGER tr0",
        "DROP TABLE t2",
        "DROP TABLE IF EXISTS nosuch",
        "ALTER TABLE t ADD COLUMN b",
        "ALTER TABLE t RENAME TO t9",
        "REINDEX",
        "INSERT INTO t DEFAULT VALUES",
        "PRAGMA user_version = 3",
        "BEGIN",
    ];
    for depth in [0, 1, 2] {
        for sql in statements {
            same_phase(setup, &[(LIMIT_EXPR_DEPTH, depth)], sql);
        }
    }
}

#[test]
fn plain_statements_under_an_expression_depth_below_three() {
    let setup = "CREATE TABLE t(a); INSERT INTO t VALUES(5); CREATE TABLE t2(a, y)";
    let statements = [
        "SELECT 1",
        "SELECT 1+1",
        "SELECT * FROM t",
        "SELECT t.* FROM t",
        "SELECT * FROM t, t2",
        "SELECT t.* FROM t, t2",
        "SELECT * FROM t JOIN t2 USING(a)",
        "SELECT * FROM (SELECT a FROM t)",
        "SELECT * FROM (SELECT 1), t",
        "SELECT *, a FROM t",
        "SELECT count(*) FROM t",
        "SELECT a FROM t WHERE a = 1",
        "INSERT INTO t VALUES(1)",
        "INSERT INTO t SELECT * FROM t",
        "UPDATE t SET a = a + 1",
        "DELETE FROM t WHERE a",
        "VALUES(1), (2)",
    ];
    for depth in [0, 1, 2, 3] {
        for sql in statements {
            same_phase(setup, &[(LIMIT_EXPR_DEPTH, depth)], sql);
        }
    }
}

#[test]
fn two_name_errors_in_update_and_grouped_queries_as_sqlite() {
    let setup = "CREATE TABLE t(a, b); CREATE TABLE u(c, d)";
    for sql in [
        "UPDATE t SET a = nosuch1 WHERE nosuch2",
        "UPDATE t SET a = 1 WHERE nosuch2 AND b = nosuch3",
        "UPDATE t SET a = nosuch1, b = nosuch3 WHERE nosuch2",
        "UPDATE t SET a = b, b = nosuch3 WHERE nosuch2",
        "UPDATE t SET (a, b) = (nosuch1, 1) WHERE nosuch2",
        "UPDATE t SET a = (SELECT nosuch1) WHERE nosuch2",
        "UPDATE t SET a = (SELECT c FROM u WHERE nosuch1) WHERE nosuch2",
        "UPDATE t SET a = 1 WHERE nosuch2 RETURNING nosuch1",
        "UPDATE t SET a = nosuch1 RETURNING nosuch2",
        "UPDATE t SET a = nosuch1 FROM u WHERE nosuch2",
        "UPDATE t SET a = c FROM u WHERE nosuch2",
        "UPDATE t SET nosuchcol = 1 WHERE nosuch2",
        "UPDATE t SET a = nosuch1 WHERE (SELECT nosuch2)",
        "UPDATE t AS x SET a = x.nosuch1 WHERE nosuch2",
        "UPDATE t SET a = abs(nosuch1) WHERE nosuch2",
        "SELECT nosuch1 FROM t GROUP BY nosuch2",
        "SELECT count(*) FROM t GROUP BY nosuch2 ORDER BY nosuch1",
        "SELECT (SELECT nosuch1) FROM t GROUP BY nosuch2",
        "SELECT a FROM t GROUP BY nosuch2 ORDER BY nosuch1",
        "SELECT a FROM t GROUP BY nosuch2 ORDER BY 1",
        "SELECT a AS x FROM t GROUP BY nosuch2 ORDER BY x",
        "SELECT a AS x FROM t GROUP BY x ORDER BY nosuch1",
        "SELECT a FROM t GROUP BY nosuch2, nosuch1",
        "SELECT a FROM t WHERE nosuch3 GROUP BY nosuch2 ORDER BY nosuch1",
        "SELECT a FROM t GROUP BY a HAVING nosuch3 ORDER BY nosuch1",
        "SELECT a FROM t GROUP BY (SELECT nosuch1), nosuch2",
        "SELECT a AS x FROM t GROUP BY nosuch2 HAVING x",
        "SELECT sum(a) OVER (PARTITION BY nosuch2), nosuch1 FROM t",
        "SELECT sum(nosuch3) OVER (PARTITION BY nosuch2), nosuch1 FROM t",
        "SELECT sum(a) OVER (ORDER BY nosuch2), nosuch1 FROM t",
        "SELECT count(*) OVER (PARTITION BY nosuch2), nosuch1 FROM t",
        "SELECT a, sum(b) OVER (PARTITION BY a ORDER BY b) FROM t GROUP BY a, b ORDER BY 1",
    ] {
        let mut ours = ours_open();
        let reference = RefDb::open();
        run_ours(&mut ours, setup);
        run_ref(&reference, setup);
        assert_eq!(run_ours(&mut ours, sql), run_ref(&reference, sql), "{sql}");
    }
}
