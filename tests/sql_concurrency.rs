//! Interleaved statements on one connection and two connections on one
//! file.
mod sql_common;
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
