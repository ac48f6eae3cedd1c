//! `PRAGMA trusted_schema` and the risk levels of functions and virtual
//! tables, differentially against SQLite 3.54.1: an application function
//! registered `SQLITE_DIRECTONLY` is refused ("unsafe use of f()") from
//! the schema (view and trigger bodies, CHECK, DEFAULT, generated
//! columns, index keys and partial-index WHERE clauses of non-TEMP
//! objects), one not registered `SQLITE_INNOCUOUS` too while the schema
//! is not trusted; TEMP objects may use both. Virtual tables read from a
//! view or trigger body follow their module's risk (dbstat direct-only,
//! the table-valued pragmas normal, FTS5 and R*Tree innocuous).
#![allow(unsafe_code)]

use crate::sql_common::{ours_open, run_ours, run_ref, RefDb};
use libsqlite3_sys as ffi;
use ringlite::value::Value;
use ringlite::vdbe::func::{FuncDef, FuncFlags, FuncKind, FunctionContext, ScalarFunction};
use ringlite::Connection;
use std::ffi::CString;
use std::os::raw::c_int;
use std::sync::Arc;

/// f(x) = x.
struct Identity;

impl ScalarFunction for Identity {
    fn call(&self, _: &mut FunctionContext<'_>, args: &[Value]) -> ringlite::Result<Value> {
        Ok(args[0].clone())
    }
}

unsafe extern "C" fn ref_identity(ctx: *mut ffi::sqlite3_context, _: c_int, argv: *mut *mut ffi::sqlite3_value) {
    ffi::sqlite3_result_value(ctx, *argv);
}

/// The identity function `name` with one argument on both libraries:
/// innocuous, plain (neither) or direct-only, deterministic or not.
fn register(ours: &mut Connection, reference: &RefDb, name: &str, risk: i32, deterministic: bool) {
    let flags = FuncFlags { deterministic, direct_only: risk == 2, innocuous: risk == 0, subtype: false, builtin: false };
    ours.create_function(FuncDef { name: name.into(), n_args: 1, flags, kind: FuncKind::Scalar(Arc::new(Identity)) }).expect("create_function");
    let mut rep = ffi::SQLITE_UTF8;
    if deterministic {
        rep |= ffi::SQLITE_DETERMINISTIC;
    }
    rep |= match risk {
        0 => ffi::SQLITE_INNOCUOUS,
        2 => ffi::SQLITE_DIRECTONLY,
        _ => 0,
    };
    let c = CString::new(name).unwrap();
    let rc = unsafe { ffi::sqlite3_create_function_v2(reference.0, c.as_ptr(), 1, rep, std::ptr::null_mut(), Some(ref_identity), None, None, None) };
    assert_eq!(rc, 0);
}

/// Fresh connections with f1 innocuous, f2 plain, f3 direct-only (all
/// deterministic) and n2/n3 plain/direct-only non-deterministic.
fn pair() -> (Connection, RefDb) {
    let mut ours = ours_open();
    let reference = RefDb::open();
    run_ref(&reference, "pragma foreign_keys = off");
    for (name, risk, det) in [("f1", 0, true), ("f2", 1, true), ("f3", 2, true), ("n2", 1, false), ("n3", 2, false)] {
        register(&mut ours, &reference, name, risk, det);
    }
    (ours, reference)
}

/// Each statement in turn on both; every outcome must agree.
fn script(steps: &[&str]) {
    let (mut ours, reference) = pair();
    for sql in steps {
        let a = run_ours(&mut ours, sql);
        let b = run_ref(&reference, sql);
        assert_eq!(a, b, "\nSQL: {sql}");
    }
}

#[test]
fn generated_columns_check_and_default() {
    script(&[
        "CREATE TABLE t1(a, b AS (f1(a+1)), c AS (f2(a+2))); INSERT INTO t1 VALUES(100),(200)",
        "SELECT a, b, c FROM t1",
        "PRAGMA trusted_schema",
        "PRAGMA trusted_schema=OFF",
        "PRAGMA trusted_schema",
        "SELECT a, b FROM t1",
        "SELECT a, b, c FROM t1",
        "SELECT * FROM t1",
        "INSERT INTO t1(a) VALUES(1)",
        "PRAGMA trusted_schema=ON",
        "CREATE TABLE t2(a, b AS (f3(a+1)))",
        "PRAGMA trusted_schema=OFF",
        "CREATE TEMP TABLE temp1(a, b AS (f3(a+1))); INSERT INTO temp1(a) VALUES(100),(900); SELECT * FROM temp1",
        "CREATE TABLE c1(a, CHECK(f3(a)==a))",
        "CREATE TABLE c2(a, CHECK(f2(a)==a))",
        "CREATE TABLE c3(a, CHECK(n2(a)==a))",
        "CREATE TABLE c4(a, CHECK(f1(a)==a)); INSERT INTO c4 VALUES(1); SELECT * FROM c4",
        "PRAGMA trusted_schema=ON",
        "CREATE TABLE c2(a, CHECK(f2(a)==a)); INSERT INTO c2 VALUES(1)",
        "CREATE TABLE c5(a, CHECK(n3(a)==a))",
        "PRAGMA trusted_schema=OFF",
        "INSERT INTO c2 VALUES(2)",
        "SELECT * FROM c2",
        "CREATE TEMP TABLE temp2(a, b, CHECK(f3(b)==b)); INSERT INTO temp2 VALUES(1,2),('x','y'); SELECT * FROM temp2",
        "CREATE TABLE d1(a, b DEFAULT (f2(25)))",
        "INSERT INTO d1(a) VALUES(1)",
        "INSERT INTO d1(a, b) VALUES(1, 2)",
        "CREATE TABLE d2(a, b DEFAULT (f3(25)))",
        "PRAGMA trusted_schema=ON",
        "INSERT INTO d2(a) VALUES(1)",
        "INSERT INTO d1(a) VALUES(3); SELECT * FROM d1",
        "CREATE TEMP TABLE temp3(a, b DEFAULT (f3(31))); INSERT INTO temp3(a) VALUES(22); SELECT * FROM temp3",
    ]);
}

#[test]
fn indexes() {
    script(&[
        "CREATE TABLE t4(a,b,c); INSERT INTO t4 VALUES(1,2,3),('a','b','c'),(4,'d',0)",
        "CREATE TEMP TABLE temp4(a,b,c); INSERT INTO temp4 SELECT * FROM t4",
        "CREATE INDEX t4a ON t4(a) WHERE f3(c)",
        "PRAGMA trusted_schema=OFF",
        "CREATE INDEX t4a ON t4(a) WHERE f2(c)",
        "CREATE INDEX t4a ON t4(a) WHERE f1(c); SELECT a FROM t4 WHERE f1(c) ORDER BY a",
        "PRAGMA trusted_schema=ON",
        "CREATE INDEX t4b ON t4(b) WHERE f2(c); SELECT b FROM t4 WHERE f2(c) ORDER BY b",
        "PRAGMA trusted_schema=OFF",
        "INSERT INTO t4 VALUES(5,6,7)",
        "UPDATE t4 SET c = 9 WHERE a = 1",
        "SELECT b FROM t4 WHERE f2(c) ORDER BY b",
        "CREATE INDEX temp4a ON temp4(a) WHERE f3(c); SELECT a FROM temp4 WHERE f2(c) ORDER BY a",
        "CREATE TABLE t5(a,b,c); INSERT INTO t5 VALUES(1,2,3),(4,5,6),(7,0,-3)",
        "CREATE INDEX t5x1 ON t5(a+f3(b))",
        "CREATE INDEX t5x1 ON t5(a+f2(b))",
        "CREATE INDEX t5x1 ON t5(a+f1(b)); SELECT * FROM t5 INDEXED BY t5x1 WHERE a+f1(b)=3",
        "PRAGMA trusted_schema=ON",
        "CREATE INDEX t5x2 ON t5(b+f2(c)); SELECT * FROM t5 INDEXED BY t5x2 WHERE b+f2(c)=11",
        "PRAGMA trusted_schema=OFF",
        "INSERT INTO t5 VALUES(1,1,1)",
        "SELECT count(*) FROM t5",
        "CREATE TEMP TABLE temp5(a,b,c); INSERT INTO temp5 SELECT * FROM t5",
        "CREATE INDEX temp5x1 ON temp5(a+f3(b)); SELECT * FROM temp5 INDEXED BY temp5x1 WHERE a+f3(b)=7",
    ]);
}

#[test]
fn views_and_triggers() {
    script(&[
        "CREATE TABLE t1(a,b,c); INSERT INTO t1 VALUES(1,2,3),(100,50,75),(-11,22,-33)",
        "CREATE VIEW v1a AS SELECT f3(a+b) FROM t1; SELECT f3(a+b) FROM t1",
        "SELECT * FROM v1a",
        "PRAGMA trusted_schema=OFF",
        "SELECT * FROM v1a",
        "DROP VIEW v1a; CREATE TEMP VIEW v1a AS SELECT f3(a+b) FROM t1; SELECT * FROM v1a",
        "CREATE VIEW v1b AS SELECT f2(b+c) FROM t1; SELECT f2(b+c) FROM t1",
        "CREATE VIEW v1c AS SELECT f1(a), (SELECT f2(2)) FROM t1",
        "CREATE VIEW v1d AS SELECT random() IS NOT NULL, abs(-1), count(*) FROM t1",
        "SELECT * FROM v1d",
        "PRAGMA trusted_schema=ON",
        "SELECT * FROM v1b",
        "PRAGMA trusted_schema=OFF",
        "SELECT * FROM v1b",
        "SELECT * FROM v1c",
        "CREATE TEMP VIEW tv AS SELECT * FROM v1b",
        "SELECT * FROM tv",
        "WITH w AS (SELECT * FROM v1b) SELECT * FROM w",
        "SELECT * FROM (SELECT * FROM v1b)",
        "DROP VIEW v1b; CREATE TEMP VIEW v1b AS SELECT f2(b+c) FROM t1; SELECT * FROM v1b",
        "DELETE FROM t1; CREATE TABLE t2(x)",
        "CREATE TRIGGER r1 AFTER INSERT ON t1 BEGIN INSERT INTO t2(x) SELECT f3(new.a); END",
        "INSERT INTO t1 VALUES(7,6,5)",
        "SELECT * FROM t1; SELECT * FROM t2",
        "DROP TRIGGER r1; CREATE TRIGGER r1 AFTER INSERT ON t1 BEGIN INSERT INTO t2(x) SELECT f2(new.a)+100; END",
        "PRAGMA trusted_schema=ON",
        "INSERT INTO t1 VALUES(7,6,5); SELECT * FROM t1, t2",
        "DELETE FROM t1; DELETE FROM t2; PRAGMA trusted_schema=OFF",
        "INSERT INTO t1 VALUES(7,6,5)",
        "SELECT * FROM t1; SELECT * FROM t2",
        "DROP TRIGGER r1; CREATE TEMP TRIGGER r2 AFTER INSERT ON t1 BEGIN INSERT INTO t2(x) SELECT f3(new.a) + f2(new.b); END",
        "INSERT INTO t1 VALUES(1,2,3); SELECT * FROM t2",
        "CREATE TRIGGER r3 AFTER DELETE ON t1 BEGIN INSERT INTO t2(x) VALUES(f2(old.a)); END",
        "DELETE FROM t1",
        "SELECT * FROM t1",
    ]);
}

#[test]
fn aggregates_in_views() {
    // (count() and group_concat() are built in: innocuous.)
    script(&[
        "CREATE TABLE t(a); INSERT INTO t VALUES(1),(2)",
        "CREATE VIEW v AS SELECT count(*), group_concat(f2(a)) FROM t",
        "PRAGMA trusted_schema=OFF",
        "SELECT * FROM v",
        "PRAGMA trusted_schema=1",
        "SELECT * FROM v",
        "PRAGMA trusted_schema=no",
        "PRAGMA trusted_schema",
        "SELECT name FROM pragma_function_list WHERE builtin AND flags & 0x200000 = 0 ORDER BY 1",
    ]);
}

#[test]
fn virtual_tables_in_views() {
    script(&[
        "CREATE TABLE t(a); CREATE VIEW vp AS SELECT count(*) FROM pragma_table_info('t')",
        "CREATE VIEW vj AS SELECT count(*) FROM json_each('[1,2]')",
        "CREATE VIEW vl AS SELECT count(*) FROM pragma_function_list WHERE name = 'abs'",
        "SELECT * FROM vp, vj, vl",
        "PRAGMA trusted_schema=OFF",
        "SELECT * FROM vp",
        "SELECT * FROM vj",
        "SELECT * FROM vl",
        "CREATE TEMP VIEW tvp AS SELECT count(*) FROM pragma_table_info('t'); SELECT * FROM tvp",
        "SELECT count(*) FROM pragma_table_info('t')",
        "CREATE TRIGGER tr AFTER INSERT ON t BEGIN SELECT * FROM pragma_table_info('t'); END",
        "INSERT INTO t VALUES(1)",
        "PRAGMA trusted_schema=ON",
        "INSERT INTO t VALUES(1)",
        "SELECT count(*) FROM t",
    ]);
}

#[test]
fn builtin_modules_in_views_and_triggers() {
    script(&[
        "CREATE VIRTUAL TABLE f USING fts5(x); CREATE VIRTUAL TABLE r USING rtree(id, a, b)",
        "CREATE VIEW vf AS SELECT count(*) FROM f; CREATE VIEW vr AS SELECT count(*) FROM r; CREATE VIEW vd AS SELECT count(*) > 0 FROM dbstat",
        "CREATE TABLE x(a); CREATE TRIGGER tx AFTER INSERT ON x BEGIN INSERT INTO f VALUES(new.a); INSERT INTO r VALUES(new.a, 1, 2); END",
        "SELECT * FROM vf, vr",
        "SELECT * FROM vd",
        "PRAGMA trusted_schema=OFF",
        "SELECT * FROM vf, vr",
        "SELECT * FROM vd",
        "INSERT INTO x VALUES(1)",
        "SELECT count(*) FROM f",
        "CREATE TEMP VIEW tvd AS SELECT count(*) > 0 FROM dbstat; SELECT * FROM tvd",
    ]);
}

/// A schema read while it is not trusted: a generated column, CHECK or
/// index expression calling a function that is not innocuous makes the
/// whole schema unreadable (SQLite resolves them as it reads the schema);
/// trusting it again reads it.
#[test]
fn schema_read_untrusted() {
    let dir = tempfile::tempdir().unwrap();
    for object in [
        "CREATE TABLE g(a, b AS (f2(a)))",
        "CREATE TABLE c(a CHECK (f2(a)))",
        "CREATE TABLE i(a); CREATE INDEX ix ON i(f2(a))",
        "CREATE TABLE p(a); CREATE INDEX px ON p(a) WHERE f2(a)",
        "CREATE TABLE d(a, b DEFAULT (f2(1)))",
        "CREATE VIEW v AS SELECT f2(1)",
        "CREATE TABLE k(a, b AS (f1(a)))",
    ] {
        let path = dir.path().join("s.db");
        let _ = std::fs::remove_file(&path);
        let (mut ours, reference) = {
            let flags = ringlite::OpenFlags(ringlite::OpenFlags::READWRITE | ringlite::OpenFlags::CREATE);
            let mut ours = Connection::open(&format!("{}.ours", path.display()), flags).expect("open");
            let reference = RefDb::open_path(&format!("{}.ref", path.display()));
            for (name, risk, det) in [("f1", 0, true), ("f2", 1, true), ("f3", 2, true)] {
                register(&mut ours, &reference, name, risk, det);
            }
            (ours, reference)
        };
        for sql in ["SELECT count(*) FROM sqlite_schema", object, "CREATE TABLE plain(x)"] {
            assert_eq!(run_ours(&mut ours, sql), run_ref(&reference, sql), "\nSQL: {sql}");
        }
        drop(ours);
        drop(reference);
        let flags = ringlite::OpenFlags(ringlite::OpenFlags::READWRITE | ringlite::OpenFlags::CREATE);
        let mut ours = Connection::open(&format!("{}.ours", path.display()), flags).expect("open");
        let reference = RefDb::open_path(&format!("{}.ref", path.display()));
        for (name, risk, det) in [("f1", 0, true), ("f2", 1, true), ("f3", 2, true)] {
            register(&mut ours, &reference, name, risk, det);
        }
        for sql in [
            "PRAGMA trusted_schema = off",
            "SELECT count(*) FROM plain",
            "PRAGMA trusted_schema = on",
            "SELECT count(*) FROM plain",
            "PRAGMA trusted_schema = off",
            "SELECT count(*) FROM plain",
            "SELECT * FROM sqlite_schema ORDER BY name",
        ] {
            assert_eq!(run_ours(&mut ours, sql), run_ref(&reference, sql), "\nobject: {object}\nSQL: {sql}");
        }
        let _ = std::fs::remove_file(format!("{}.ours", path.display()));
        let _ = std::fs::remove_file(format!("{}.ref", path.display()));
    }
}
