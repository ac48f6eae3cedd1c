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
use crate::sql_common::{LIMIT_COLUMN, LIMIT_EXPR_DEPTH};
use libsqlite3_sys as ffi;
use ringlite::{Connection, StepResult};
use std::ffi::{CStr, CString};

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

/// SQLite resolves a compound's LIMIT, then its arms from the last to the
/// first, then its ORDER BY: of several arms with unknown names, the last
/// one's is reported, in every compound form and wherever it stands.
#[test]
fn compound_arms_report_the_last_arms_name_error_first() {
    let setup = "CREATE TABLE t(a, b); CREATE TABLE u(c, d)";
    for op in ["UNION", "UNION ALL", "INTERSECT", "EXCEPT"] {
        for sql in [
            format!("SELECT x1 FROM t {op} SELECT x2 FROM t"),
            format!("SELECT x1 FROM t {op} SELECT x2 FROM t {op} SELECT x3 FROM t"),
            format!("SELECT x1 FROM t {op} SELECT a FROM t {op} SELECT x3 FROM t"),
            format!("SELECT x1 FROM t {op} SELECT x2 FROM t {op} SELECT a FROM t"),
            format!("SELECT x1 FROM t {op} SELECT x2 FROM t ORDER BY 1"),
            format!("SELECT x1 FROM t {op} SELECT x2 FROM t ORDER BY zz"),
            format!("SELECT a FROM t {op} SELECT c FROM u ORDER BY zz"),
            format!("SELECT a FROM t WHERE y1 {op} SELECT c FROM u WHERE y2"),
            format!("SELECT * FROM (SELECT x1 FROM t {op} SELECT x2 FROM t)"),
            format!("SELECT (SELECT x1 FROM t {op} SELECT x2 FROM t)"),
            format!("SELECT 1 WHERE 1 IN (SELECT x1 FROM t {op} SELECT x2 FROM t)"),
            format!("WITH c AS (SELECT x1 FROM t {op} SELECT x2 FROM t) SELECT * FROM c"),
            format!("SELECT x1 FROM t {op} VALUES(x2)"),
            format!("VALUES(x1) {op} SELECT x2 FROM t"),
            format!("SELECT max(x1) FROM t {op} SELECT x2 FROM t"),
            format!("INSERT INTO t(a) SELECT x1 FROM t {op} SELECT x2 FROM t"),
            format!("SELECT x1 FROM t {op} SELECT x2 FROM t LIMIT zz"),
            format!("SELECT a FROM t {op} SELECT x2 FROM t LIMIT zz"),
            format!("SELECT x1 FROM t {op} SELECT c FROM u JOIN t ON zz"),
            format!("SELECT a FROM t GROUP BY a HAVING x1 {op} SELECT x2 FROM t"),
            format!("SELECT a FROM t {op} SELECT a FROM t {op} SELECT a, b FROM t"),
            format!("SELECT x1 FROM t {op} SELECT a, b FROM t"),
            format!("SELECT a, b FROM t {op} SELECT x2 FROM t"),
            format!("SELECT x1 FROM nosuch {op} SELECT x2 FROM t"),
        ] {
            same_phase(setup, &[], &sql);
        }
        let view = format!("{setup}; CREATE VIEW v AS SELECT x1 FROM t {op} SELECT x2 FROM t");
        same_phase(&view, &[], "SELECT * FROM v");
        let trigger = format!("{setup}; CREATE TRIGGER tr AFTER INSERT ON t BEGIN INSERT INTO u SELECT x1, 1 FROM t {op} SELECT x2, 2 FROM t; END");
        same_phase(&trigger, &[], "INSERT INTO t VALUES(1, 2)");
    }
    same_phase(setup, &[], "SELECT x1 FROM t UNION SELECT x2 FROM t INTERSECT SELECT x3 FROM t EXCEPT SELECT x4 FROM t");
}

/// Views and CTEs expanded past `SQLITE_LIMIT_EXPR_DEPTH` are "nested too
/// deep", found while the FROM clauses are expanded: before the heights
/// SQLite meets after that (`*` expanded, a leaf at a limit of 0, the
/// running height of a scalar subquery), and, for a CTE, once as many
/// cursors are numbered as the limit.
#[test]
fn views_and_ctes_nested_past_a_small_depth_limit() {
    fn views(n: usize) -> String {
        let mut s = String::from("CREATE TABLE t(a, b); CREATE VIEW v0 AS SELECT a FROM t;");
        for i in 1..n {
            s += &format!("CREATE VIEW v{i} AS SELECT a FROM v{};", i - 1);
        }
        s
    }
    fn ctes(n: usize) -> String {
        let mut q = String::from("c0 AS (SELECT a FROM t)");
        for i in 1..n {
            q += &format!(", c{i} AS (SELECT a FROM c{})", i - 1);
        }
        format!("WITH {q} SELECT * FROM c{}", n - 1)
    }
    fn nested_ctes(n: usize) -> String {
        let mut q = String::from("SELECT a FROM t");
        for i in 0..n {
            q = format!("WITH c{i} AS ({q}) SELECT a FROM c{i}");
        }
        q
    }
    for limit in [0, 1, 2, 3, 5] {
        let l = [(LIMIT_EXPR_DEPTH, limit)];
        for n in [1, 2, 3, 6] {
            let last = n - 1;
            for sql in [
                format!("SELECT * FROM v{last}"),
                format!("SELECT a FROM v{last}"),
                format!("SELECT 1 FROM v{last}"),
                format!("SELECT (SELECT a FROM v{last})"),
                format!("SELECT * FROM t, v{last}"),
                format!("SELECT * FROM t, t AS t2, v{last}"),
                format!("INSERT INTO t SELECT a, a FROM v{last}"),
                format!("DELETE FROM t WHERE a IN (SELECT a FROM v{last})"),
            ] {
                same_phase(&views(n), &l, &sql);
            }
            same_phase("CREATE TABLE t(a, b)", &l, &ctes(n));
            same_phase("CREATE TABLE t(a, b)", &l, &nested_ctes(n));
        }
        for sql in [
            "WITH c AS (SELECT 1) SELECT * FROM t, c",
            "WITH c AS (SELECT 1) SELECT * FROM c",
            "WITH c AS (SELECT 1) SELECT * FROM t, t AS t2, c",
            "SELECT * FROM nosuch",
            "SELECT a FROM nosuch",
            "SELECT * FROM t, t AS t2, nosuch",
            "SELECT * FROM t, t AS t2 WHERE x",
            "SELECT nosuch FROM t",
        ] {
            same_phase("CREATE TABLE t(a, b)", &l, sql);
        }
    }
}

/// A compound SQLite codes as a merge of its arms (one that removes rows,
/// or is sorted) builds ORDER BY terms of height 2.
#[test]
fn compounds_coded_as_a_merge_under_an_expression_depth_of_one() {
    let setup = "CREATE TABLE t(a, b)";
    for sql in [
        "SELECT a FROM t UNION SELECT b FROM t",
        "SELECT a FROM t UNION ALL SELECT b FROM t",
        "SELECT a FROM t INTERSECT SELECT b FROM t",
        "SELECT a FROM t EXCEPT SELECT b FROM t",
        "SELECT a FROM t UNION ALL SELECT b FROM t ORDER BY 1",
        "SELECT a FROM t UNION ALL SELECT b FROM t LIMIT 1",
        "SELECT 1 UNION SELECT 2 ORDER BY 1",
    ] {
        for limit in [1, 2] {
            same_phase(setup, &[(LIMIT_EXPR_DEPTH, limit)], sql);
        }
    }
}

/// A trigger's body is checked against the expression depth in force
/// when the trigger is coded (each expression's own height: not the
/// running height through its subqueries), and at CREATE TRIGGER only
/// by the parser.
#[test]
fn trigger_bodies_checked_against_the_depth_limit_when_coded() {
    let setup = "CREATE TABLE t(a, b); CREATE TABLE u(c, d)";
    let deep = vec!["1"; 30].join("+");
    let bodies = [
        format!("INSERT INTO u VALUES({deep}, 1)"),
        "INSERT INTO u VALUES(new.a, 1)".to_string(),
        "UPDATE u SET c = c + 1 WHERE d = new.a".to_string(),
        "DELETE FROM u WHERE c IN (SELECT a FROM t)".to_string(),
        "UPDATE u SET c = (SELECT a FROM t)".to_string(),
        "DELETE FROM u WHERE EXISTS (SELECT a FROM t)".to_string(),
        "SELECT 1 UNION SELECT 2 UNION SELECT 3".to_string(),
        "INSERT INTO u SELECT ?1, ?2".to_string(),
        "SELECT a, b, a, b FROM t".to_string(),
        "SELECT 1 WHERE 1 IN (SELECT a FROM t)".to_string(),
        "SELECT 1 WHERE EXISTS (SELECT 1 FROM t)".to_string(),
        "SELECT (SELECT a FROM t)".to_string(),
        "DELETE FROM u WHERE c IN (SELECT a + 1 FROM t)".to_string(),
        "DELETE FROM u WHERE c IN (SELECT 1 FROM t WHERE a)".to_string(),
        "UPDATE u SET c = (SELECT a FROM t WHERE b)".to_string(),
        "INSERT INTO u SELECT (SELECT a FROM t), 1".to_string(),
        "INSERT INTO u SELECT a, 1 FROM t WHERE 1 IN (SELECT a FROM t)".to_string(),
    ];
    for limit in [0, 1, 2, 3, 10] {
        let l = [(LIMIT_EXPR_DEPTH, limit)];
        for body in &bodies {
            let create = format!("CREATE TRIGGER tr AFTER INSERT ON t BEGIN {body}; END");
            same_phase(setup, &l, &create);
            let with_trigger = format!("{setup}; {create}");
            same_phase(&with_trigger, &l, "INSERT INTO t VALUES(1, 2)");
        }
        for cond in [deep.as_str(), "new.a IN (SELECT a FROM t)", "new.a IN (SELECT a + 1 FROM t)", "EXISTS (SELECT 1 FROM t WHERE a)"] {
            let when = format!("CREATE TRIGGER tr AFTER INSERT ON t WHEN {cond} BEGIN SELECT 1; END");
            same_phase(setup, &l, &when);
            same_phase(&format!("{setup}; {when}"), &l, "INSERT INTO t VALUES(1, 2)");
        }
    }
}

/// Under `SQLITE_LIMIT_COLUMN` below the schema table's 5 columns, the
/// statements SQLite runs to record a schema row fail: CREATE TABLE and
/// CREATE VIEW while compiling, CREATE INDEX and CREATE TRIGGER when the
/// row is read back.
#[test]
fn ddl_under_a_column_limit_below_the_schema_tables_width() {
    let setup = "CREATE TABLE t(a, b); CREATE TABLE u(c, d); CREATE VIEW v AS SELECT 1";
    for limit in [1, 2, 4, 5] {
        for sql in [
            "CREATE TRIGGER tr AFTER INSERT ON t BEGIN SELECT 1; END",
            "CREATE TEMP TRIGGER tr AFTER INSERT ON t BEGIN SELECT 1; END",
            "CREATE TABLE x(a)",
            "CREATE TEMP TABLE x(a)",
            "CREATE TABLE IF NOT EXISTS t(a)",
            "CREATE VIEW w AS SELECT 1",
            "CREATE INDEX i ON t(a)",
            "CREATE TABLE y AS SELECT 1",
            "EXPLAIN CREATE TABLE x(a)",
            "EXPLAIN CREATE INDEX i ON t(a)",
            "DROP TABLE u",
            "DROP VIEW v",
        ] {
            same_phase(setup, &[(LIMIT_COLUMN, limit)], sql);
        }
    }
}

/// `*` over a FROM clause naming one table or view twice without
/// distinct aliases: SQLite expands it to `db.name.column`, which both
/// items match, so the prepare fails with "ambiguous column name" unless
/// USING or NATURAL joined them on that column.
#[test]
fn star_over_an_item_named_twice_is_ambiguous() {
    let setup = "CREATE TABLE t(a); CREATE TABLE t0(a, b); CREATE VIEW v0 AS SELECT a FROM t0; INSERT INTO t0 VALUES (1, 2);
                 ATTACH ':memory:' AS aux; CREATE TABLE aux.t0(a, b)";
    for sql in [
        "SELECT * FROM t JOIN v0 JOIN v0",
        "SELECT * FROM v0 JOIN v0",
        "SELECT * FROM t0 JOIN t0",
        "SELECT t0.* FROM t0, t0",
        "SELECT * FROM t0 JOIN t0 USING(a)",
        "SELECT * FROM t0 NATURAL JOIN t0",
        "SELECT * FROM t0 JOIN t0 USING(a, b)",
        "SELECT * FROM main.t0, aux.t0",
        "SELECT * FROM t0 AS x, t0 AS x",
        "SELECT * FROM t0 AS t0, t0",
        "SELECT * FROM t0 LEFT JOIN t0",
        "SELECT * FROM t0 RIGHT JOIN t0 USING(a)",
        "SELECT * FROM t0 JOIN t JOIN t0 USING(b)",
        "SELECT * FROM t0 JOIN v0 USING(a) JOIN t0 USING(a)",
        "SELECT * FROM t JOIN v0 AS x JOIN v0",
        "SELECT * FROM t JOIN v0 JOIN v0 USING(a)",
        "SELECT t.* FROM t0, t, t0",
        "SELECT count(*) FROM t0, t0",
        "SELECT * FROM (SELECT * FROM t0 JOIN t0)",
        "SELECT * FROM json_each('[1]'), json_each('[2]')",
    ] {
        same_phase(setup, &[], sql);
    }
}
