//! Double-quoted strings switched off (`SQLITE_DBCONFIG_DQS_DML` and
//! `SQLITE_DBCONFIG_DQS_DDL`, quote.test): a double-quoted name that is
//! no column is then "no such column" with SQLite's hint, in the
//! statement's text (DML) or in a CREATE statement's CHECK constraints,
//! generated columns and index expressions (DDL); a schema read from the
//! file keeps its strings; `writable_schema` with DQS_DML lets DDL have
//! them. Each combination against the reference SQLite 3.54.1.

use crate::sql_common::{ours_open, run_ours, run_ref, RefDb};
use libsqlite3_sys as ffi;
use std::os::raw::c_int;

fn set(ours: &mut ringlite::Connection, reference: &RefDb, dml: bool, ddl: bool) {
    for (flag, op, on) in [(ringlite::ConfigFlag::DqsDml, ffi::SQLITE_DBCONFIG_DQS_DML, dml), (ringlite::ConfigFlag::DqsDdl, ffi::SQLITE_DBCONFIG_DQS_DDL, ddl)]
    {
        let now = ours.config_flag(flag, Some(on));
        let mut r: c_int = -1;
        unsafe { ffi::sqlite3_db_config(reference.0, op, on as c_int, &mut r as *mut c_int) };
        assert_eq!(now, r != 0);
    }
}

#[test]
fn double_quoted_strings_follow_the_dqs_switches() {
    let statements = [
        "CREATE TABLE xyz(a, b, c CHECK (c!=\"null\") )",
        "CREATE INDEX i2 ON t1(x, y, z||\"abc\")",
        "CREATE INDEX i3 ON t1(\"w\")",
        "CREATE INDEX i4 ON t1(x) WHERE z=\"w\"",
        "CREATE INDEX i5 ON t1(\"x\")",
        "CREATE TABLE g(a, b AS (a || \"s\"))",
        "SELECT \"abc\"",
        "SELECT \"x\", \"q\" FROM t1",
        "SELECT * FROM t1 WHERE z = \"w\"",
        "INSERT INTO t1 VALUES(\"a\", 1, 2)",
        "UPDATE t1 SET z = \"k\" WHERE x = 1",
        "CREATE VIEW v AS SELECT \"s\" AS s",
        "SELECT count(*) FROM t1 GROUP BY \"g\"",
    ];
    for (dml, ddl) in [(true, true), (false, true), (true, false), (false, false)] {
        for s in statements {
            let mut ours = ours_open();
            let reference = RefDb::open();
            let setup = "CREATE TABLE t1(x, y, z); INSERT INTO t1 VALUES(1, 2, 'w')";
            assert_eq!(run_ours(&mut ours, setup), run_ref(&reference, setup));
            set(&mut ours, &reference, dml, ddl);
            let q = format!("{s}; SELECT name, sql FROM sqlite_schema ORDER BY name");
            let (a, b) = (run_ours(&mut ours, &q), run_ref(&reference, &q));
            assert_eq!(a, b, "\nDQS_DML={dml} DQS_DDL={ddl}: {s}");
        }
    }
}

/// With writable_schema on and DQS_DML on, DDL may hold double-quoted
/// strings even with DQS_DDL off; read back from the file, the schema
/// keeps them.
#[test]
fn schema_strings_survive_dqs_off() {
    let dir = std::env::temp_dir().join(format!("ringlite-dqs-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let path = dir.join("q.db");
    let _ = std::fs::remove_file(&path);
    let p = path.to_str().unwrap();
    let mut ours = ringlite::Connection::open(p, ringlite::OpenFlags(ringlite::OpenFlags::READWRITE | ringlite::OpenFlags::CREATE)).unwrap();
    let reference = RefDb::open_path(&format!("{p}-ref"));
    set(&mut ours, &reference, true, false);
    let setup = "CREATE TABLE t1(x, y, z);
        PRAGMA writable_schema = 1;
        CREATE TABLE xyz(a, b, c CHECK (c!=\"null\") );
        CREATE INDEX i2 ON t1(x, y, z||\"abc\");
        CREATE INDEX i3 ON t1(\"w\"||\"\");
        CREATE INDEX i4 ON t1(x) WHERE z=\"w\";
        PRAGMA writable_schema = 0";
    assert_eq!(run_ours(&mut ours, setup), run_ref(&reference, setup));
    drop(ours);
    drop(reference);
    let mut ours = ringlite::Connection::open(p, ringlite::OpenFlags(ringlite::OpenFlags::READWRITE | ringlite::OpenFlags::CREATE)).unwrap();
    let reference = RefDb::open_path(&format!("{p}-ref"));
    set(&mut ours, &reference, false, false);
    for q in [
        "INSERT INTO xyz VALUES(1, 2, 3)",
        "INSERT INTO xyz VALUES(1, 2, 'null')",
        "INSERT INTO t1 VALUES(1, 2, 3), (4, 5, 'w')",
        "SELECT * FROM t1 WHERE z='w'",
        "SELECT sql FROM sqlite_master",
        "PRAGMA integrity_check",
    ] {
        let (a, b) = (run_ours(&mut ours, q), run_ref(&reference, q));
        assert_eq!(a, b, "\n{q}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
