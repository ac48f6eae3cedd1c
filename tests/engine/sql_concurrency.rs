//! Interleaved statements on one connection and two connections on one
//! file.
use crate::sql_common;
use ringlite::value::Value;
use ringlite::{Connection, OpenFlags, StepResult};

fn exec(c: &mut Connection, sql: &str) {
    for o in sql_common::run_ours(c, sql) {
        if let sql_common::Outcome::Error { message, .. } = o {
            panic!("{sql}: {message}");
        }
    }
}

#[test]
fn update_while_reading() {
    let mut c = sql_common::ours_open();
    exec(&mut c, "CREATE TABLE t(a INTEGER PRIMARY KEY, b); INSERT INTO t VALUES(1,0),(2,0),(3,0);");
    let (r, _) = c.prepare(b"SELECT a FROM t ORDER BY a").unwrap();
    let mut r = r.unwrap();
    let mut seen = Vec::new();
    while r.step(&mut c).unwrap() == StepResult::Row {
        let a = match r.column(0) {
            Value::Integer(i) => *i,
            _ => panic!(),
        };
        seen.push(a);
        let (w, _) = c.prepare(b"UPDATE t SET b = b + ?1 WHERE a = ?1").unwrap();
        let mut w = w.unwrap();
        w.bind(1, Value::Integer(a)).unwrap();
        assert_eq!(w.step(&mut c).unwrap(), StepResult::Done);
        w.reset(&mut c);
    }
    r.reset(&mut c);
    assert_eq!(seen, vec![1, 2, 3]);
    let out = sql_common::run_ours(&mut c, "SELECT group_concat(b) FROM t");
    assert_eq!(out[0], sql_common::Outcome::Rows { names: vec!["group_concat(b)".into()], rows: vec![vec![sql_common::V::Text(b"1,2,3".to_vec())]] });
    assert!(c.autocommit());
    assert_eq!(c.txn_state(None), 0);
}

#[test]
fn two_connections_one_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.db");
    let p = path.to_str().unwrap();
    let flags = OpenFlags(OpenFlags::READWRITE | OpenFlags::CREATE);
    let mut a = Connection::open(p, flags).unwrap();
    let mut b = Connection::open(p, flags).unwrap();
    exec(&mut a, "CREATE TABLE t(x); INSERT INTO t VALUES(1);");
    // b sees a's schema change and rows.
    let out = sql_common::run_ours(&mut b, "SELECT x FROM t");
    assert_eq!(out[0], sql_common::Outcome::Rows { names: vec!["x".into()], rows: vec![vec![sql_common::V::Int(1)]] });
    exec(&mut a, "BEGIN; INSERT INTO t VALUES(2);");
    // a holds a write lock; b can still read the committed state.
    let out = sql_common::run_ours(&mut b, "SELECT count(*) FROM t");
    assert_eq!(out[0], sql_common::Outcome::Rows { names: vec!["count(*)".into()], rows: vec![vec![sql_common::V::Int(1)]] });
    let out = sql_common::run_ours(&mut b, "INSERT INTO t VALUES(3)");
    assert!(matches!(out[0], sql_common::Outcome::Error { code: 5, .. }), "{out:?}");
    exec(&mut a, "COMMIT");
    exec(&mut b, "INSERT INTO t VALUES(3)");
    let out = sql_common::run_ours(&mut a, "SELECT group_concat(x) FROM t");
    assert_eq!(out[0], sql_common::Outcome::Rows { names: vec!["group_concat(x)".into()], rows: vec![vec![sql_common::V::Text(b"1,2,3".to_vec())]] });
    // The file is readable by SQLite itself.
    drop(a);
    drop(b);
    let r = sql_common::RefDb::open_path(p);
    let out = sql_common::run_ref(&r, "PRAGMA integrity_check; SELECT count(*) FROM t;");
    assert_eq!(out[0], sql_common::Outcome::Rows { names: vec!["integrity_check".into()], rows: vec![vec![sql_common::V::Text(b"ok".to_vec())]] });
}

#[test]
fn connection_and_statement_are_send() {
    fn is_send<T: Send>() {}
    is_send::<Connection>();
    is_send::<ringlite::Statement>();
}

#[test]
fn prepare_tails_and_empty_input() {
    let mut c = sql_common::ours_open();
    let (st, tail) = c.prepare(b"  -- only a comment\n").unwrap();
    assert!(st.is_none());
    assert_eq!(tail, 20);
    let sql = b"SELECT 1; SELECT 2";
    let (st, tail) = c.prepare(sql).unwrap();
    assert!(st.is_some());
    assert_eq!(&sql[tail..], b" SELECT 2");
    let (st, tail) = c.prepare(b"SELECT 3").unwrap();
    assert!(st.is_some());
    assert_eq!(tail, 8);
}

#[test]
fn files_with_unsupported_objects_stay_usable() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("y.db");
    let p = path.to_str().unwrap();
    {
        let r = sql_common::RefDb::open_path(p);
        let out = sql_common::run_ref(&r, "CREATE TABLE ok(a); INSERT INTO ok VALUES(1); CREATE TABLE wr(k PRIMARY KEY, v) WITHOUT ROWID; CREATE TABLE pi(a, b); CREATE INDEX pii ON pi(a) WHERE b > 0; INSERT INTO pi VALUES(1, 1); CREATE TABLE st(a INTEGER) STRICT;");
        assert!(out.iter().all(|o| matches!(o, sql_common::Outcome::Rows { .. })), "{out:?}");
    }
    let mut c = Connection::open(p, OpenFlags(OpenFlags::READWRITE)).unwrap();
    let out = sql_common::run_ours(
        &mut c,
        "SELECT a FROM ok; SELECT a, b FROM pi; SELECT * FROM st; INSERT INTO pi VALUES(2, 2), (3, -1); DELETE FROM pi WHERE a = 1;",
    );
    assert_eq!(out[0], sql_common::Outcome::Rows { names: vec!["a".into()], rows: vec![vec![sql_common::V::Int(1)]] });
    assert!(matches!(out[1], sql_common::Outcome::Rows { .. }));
    assert!(matches!(out[2], sql_common::Outcome::Rows { .. }));
    drop(c);
    // What ringlite wrote keeps SQLite's partial index consistent.
    let r = sql_common::RefDb::open_path(p);
    let out = sql_common::run_ref(&r, "PRAGMA integrity_check; SELECT a FROM pi WHERE b > 0;");
    assert_eq!(out[0], sql_common::Outcome::Rows { names: vec!["integrity_check".into()], rows: vec![vec![sql_common::V::Text(b"ok".to_vec())]] });
    assert_eq!(out[1], sql_common::Outcome::Rows { names: vec!["a".into()], rows: vec![vec![sql_common::V::Int(2)]] });
    drop(r);
    let mut c = Connection::open(p, OpenFlags(OpenFlags::READWRITE)).unwrap();
    // WITHOUT ROWID tables are readable and indexable.
    assert!(matches!(sql_common::run_ours(&mut c, "SELECT * FROM wr")[0], sql_common::Outcome::Rows { .. }));
    let out = sql_common::run_ours(&mut c, "CREATE INDEX wrv ON wr(v)");
    assert!(matches!(&out[0], sql_common::Outcome::Rows { .. }), "{out:?}");
}

#[test]
fn parameter_numbering_and_names() {
    let mut c = sql_common::ours_open();
    let (st, _) = c.prepare(b"SELECT ?1, :name, @x, $y, ?, ?9, :name, ?").unwrap();
    let st = st.unwrap();
    assert_eq!(st.parameter_count(), 10);
    assert_eq!(st.parameter_name(1), Some("?1"));
    assert_eq!(st.parameter_name(2), Some(":name"));
    assert_eq!(st.parameter_name(4), Some("$y"));
    assert_eq!(st.parameter_name(5), None);
    assert_eq!(st.parameter_name(9), Some("?9"));
    assert_eq!(st.parameter_index(":name"), 2);
    assert_eq!(st.parameter_index("@x"), 3);
}

/// A BEGIN IMMEDIATE that finds the database locked fails with "database
/// is locked" and leaves the connection in autocommit mode (it takes the
/// lock before switching autocommit off, as SQLite does), also when a busy
/// timeout makes it retry.
#[test]
fn begin_immediate_on_a_locked_database_stays_in_autocommit() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("busy.db");
    let path = path.to_str().unwrap();
    let flags = OpenFlags(OpenFlags::READWRITE | OpenFlags::CREATE);
    let mut a = Connection::open(path, flags).unwrap();
    let mut b = Connection::open(path, flags).unwrap();
    exec(&mut a, "CREATE TABLE t1(x); INSERT INTO t1 VALUES(1);");
    exec(&mut b, "BEGIN EXCLUSIVE");
    for timeout in [0, 30] {
        a.set_busy_timeout(timeout);
        for sql in ["BEGIN IMMEDIATE", "BEGIN EXCLUSIVE"] {
            let out = sql_common::run_ours(&mut a, sql);
            assert_eq!(out[0], sql_common::Outcome::Error { code: 5, message: "database is locked".into() }, "{sql}, timeout {timeout}");
            assert!(a.autocommit(), "{sql}, timeout {timeout}");
        }
    }
    exec(&mut b, "COMMIT");
    exec(&mut a, "BEGIN IMMEDIATE; INSERT INTO t1 VALUES(2); COMMIT;");
}
