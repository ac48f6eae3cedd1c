//! Online backup (`connection::backup`) against real SQLite: copies made
//! by ringlite pass SQLite's integrity_check and hold the same rows, in
//! one step or page by page, into empty and non-empty destinations, and an
//! unfinished backup leaves the destination untouched.
#![allow(unsafe_code)]
use crate::sql_common;
use ringlite::connection::backup::Backup;
use ringlite::{Connection, OpenFlags};
use sql_common::*;

fn open_file(path: &str) -> Connection {
    Connection::open(path, OpenFlags(OpenFlags::READWRITE | OpenFlags::CREATE)).expect("open")
}

const SETUP: &str = "CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c BLOB);
CREATE INDEX tb ON t(b);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i<400)
INSERT INTO t SELECT i, printf('row %d %s', i, hex(randomblob(20))), zeroblob(i*7) FROM n;
CREATE TABLE u(x, y); INSERT INTO u VALUES(1,'one'),(2,'two');
CREATE VIEW v AS SELECT a FROM t WHERE a<5;";

const QUERIES: &str = "SELECT count(*), sum(a), sum(length(c)), max(b) FROM t;
SELECT * FROM u ORDER BY x; SELECT * FROM v; SELECT name FROM sqlite_schema ORDER BY name;";

fn rows(conn: &mut Connection) -> Vec<Outcome> {
    run_ours(conn, QUERIES)
}

#[test]
fn backup_to_file_in_one_step_is_valid_for_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let mut src = sql_common::ours_open();
    run_ours(&mut src, SETUP);
    let path = dir.path().join("dest.db");
    let mut dest = open_file(path.to_str().unwrap());
    let mut b = Backup::new(&dest, "main", &src, "main").unwrap();
    assert!(b.step(&mut dest, &mut src, -1).unwrap());
    assert_eq!(b.remaining(), 0);
    b.finish(&mut dest, Some(&mut src)).unwrap();
    let expect = rows(&mut src);
    assert_eq!(rows(&mut dest), expect);
    drop(dest);
    let r = RefDb::open_path(path.to_str().unwrap());
    assert_eq!(run_ref(&r, "PRAGMA integrity_check"), vec![Outcome::Rows { names: vec!["integrity_check".into()], rows: vec![vec![V::Text(b"ok".to_vec())]] }]);
    assert_eq!(run_ref(&r, QUERIES), expect);
}

#[test]
fn backup_page_by_page_over_a_larger_destination() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("src.db");
    let r = RefDb::open_path(path.to_str().unwrap());
    run_ref(&r, SETUP);
    let mut src = open_file(path.to_str().unwrap());
    let dpath = dir.path().join("dest.db");
    let mut dest = open_file(dpath.to_str().unwrap());
    run_ours(
        &mut dest,
        "CREATE TABLE big(x); WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i<3000) INSERT INTO big SELECT randomblob(300) FROM n;",
    );
    let mut b = Backup::new(&dest, "main", &src, "main").unwrap();
    let mut steps = 0;
    while !b.step(&mut dest, &mut src, 5).unwrap() {
        steps += 1;
        assert_eq!(b.remaining() + 5 * steps, b.page_count());
    }
    b.finish(&mut dest, Some(&mut src)).unwrap();
    assert!(steps > 3);
    let expect = run_ref(&r, QUERIES);
    assert_eq!(rows(&mut dest), expect);
    drop(dest);
    let d = RefDb::open_path(dpath.to_str().unwrap());
    assert_eq!(run_ref(&d, "PRAGMA integrity_check; PRAGMA page_count"), run_ref(&r, "PRAGMA integrity_check; PRAGMA page_count"));
    assert_eq!(run_ref(&d, QUERIES), expect);
}

#[test]
fn unfinished_backup_rolls_back_and_source_changes_restart() {
    let mut src = sql_common::ours_open();
    run_ours(&mut src, SETUP);
    let mut dest = sql_common::ours_open();
    run_ours(&mut dest, "CREATE TABLE keep(x); INSERT INTO keep VALUES(42);");
    let mut b = Backup::new(&dest, "main", &src, "main").unwrap();
    assert!(!b.step(&mut dest, &mut src, 2).unwrap());
    b.finish(&mut dest, Some(&mut src)).unwrap();
    assert_eq!(run_ours(&mut dest, "SELECT x FROM keep"), vec![Outcome::Rows { names: vec!["x".into()], rows: vec![vec![V::Int(42)]] }]);

    let mut b = Backup::new(&dest, "main", &src, "main").unwrap();
    assert!(!b.step(&mut dest, &mut src, 2).unwrap());
    run_ours(&mut src, "INSERT INTO u VALUES(3,'three')");
    assert!(b.step(&mut dest, &mut src, -1).unwrap());
    b.finish(&mut dest, Some(&mut src)).unwrap();
    assert_eq!(rows(&mut dest), rows(&mut src));
}

#[test]
fn unknown_database_and_busy_destination() {
    let src = sql_common::ours_open();
    let mut dest = sql_common::ours_open();
    let e = Backup::new(&dest, "nosuch", &src, "main").unwrap_err();
    assert_eq!(e.message, "unknown database nosuch");
    run_ours(&mut dest, "BEGIN; CREATE TABLE x(y);");
    let e = Backup::new(&dest, "main", &src, "main").unwrap_err();
    assert_eq!(e.message, "destination database is in use");
}

#[test]
fn backup_into_a_file_with_another_page_size() {
    let dir = tempfile::tempdir().unwrap();
    let mut src = sql_common::ours_open();
    run_ours(&mut src, SETUP);
    let path = dir.path().join("small_pages.db");
    let mut dest = open_file(path.to_str().unwrap());
    run_ours(&mut dest, "PRAGMA page_size=1024; CREATE TABLE old(x); INSERT INTO old VALUES(randomblob(5000));");
    let mut other = open_file(path.to_str().unwrap());
    assert_eq!(run_ours(&mut other, "PRAGMA page_size"), vec![Outcome::Rows { names: vec!["page_size".into()], rows: vec![vec![V::Int(1024)]] }]);
    let mut b = Backup::new(&dest, "main", &src, "main").unwrap();
    assert!(b.step(&mut dest, &mut src, 3).unwrap());
    b.finish(&mut dest, Some(&mut src)).unwrap();
    let expect = rows(&mut src);
    assert_eq!(rows(&mut dest), expect);
    assert_eq!(rows(&mut other), expect);
    drop((dest, other));
    let r = RefDb::open_path(path.to_str().unwrap());
    assert_eq!(
        run_ref(&r, "PRAGMA integrity_check; PRAGMA page_size"),
        vec![
            Outcome::Rows { names: vec!["integrity_check".into()], rows: vec![vec![V::Text(b"ok".to_vec())]] },
            Outcome::Rows { names: vec!["page_size".into()], rows: vec![vec![V::Int(4096)]] },
        ]
    );
    assert_eq!(run_ref(&r, QUERIES), expect);

    // An in-memory destination cannot change its page size.
    let mut mem = sql_common::ours_open();
    run_ours(&mut mem, "PRAGMA page_size=1024; CREATE TABLE x(y);");
    let mut b = Backup::new(&mem, "main", &src, "main").unwrap();
    assert_eq!(b.step(&mut mem, &mut src, -1).unwrap_err().primary(), 8);
    b.finish(&mut mem, Some(&mut src)).unwrap();
}

#[test]
fn prepare_sees_tables_another_connection_created() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.db");
    let mut a = open_file(path.to_str().unwrap());
    let mut b = open_file(path.to_str().unwrap());
    run_ours(&mut a, "CREATE TABLE first(x)");
    run_ours(&mut b, "SELECT * FROM first");
    run_ours(&mut a, "CREATE TABLE second(x)");
    assert_eq!(run_ours(&mut b, "SELECT * FROM second"), vec![Outcome::Rows { names: vec!["x".into()], rows: vec![] }]);
}
