//! STORED generated columns against real SQLite on disk: a file ringlite
//! writes passes SQLite's integrity_check and reads the same in SQLite,
//! and a file SQLite writes reads the same in ringlite (and takes further
//! writes from ringlite that SQLite then checks).
#![allow(unsafe_code)]
use crate::sql_common;
use ringlite::{Connection, OpenFlags};
use sql_common::*;

const SETUP: &str = "CREATE TABLE g(a INTEGER, b TEXT, s INTEGER AS (a * 2) STORED, u TEXT GENERATED ALWAYS AS (upper(b) || s) STORED, d);
CREATE INDEX gs ON g(s); CREATE UNIQUE INDEX gu ON g(u);
WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM k WHERE i<500)
INSERT INTO g(a, b, d) SELECT i, 'x' || i, zeroblob(i % 7) FROM k;
UPDATE g SET a = a + 1000 WHERE a % 3 = 0; DELETE FROM g WHERE a % 5 = 0;";

const QUERIES: &str = "SELECT count(*), sum(s), max(u), min(u) FROM g;
SELECT a, s, u FROM g WHERE s > 2000 ORDER BY s LIMIT 5; SELECT a FROM g WHERE u = 'X7' || 14;
PRAGMA table_xinfo(g); PRAGMA table_info(g);";

fn ok_integrity() -> Vec<Outcome> {
    vec![Outcome::Rows { names: vec!["integrity_check".into()], rows: vec![vec![V::Text(b"ok".to_vec())]] }]
}

fn open(path: &str) -> Connection {
    Connection::open(path, OpenFlags(OpenFlags::READWRITE | OpenFlags::CREATE)).unwrap()
}

#[test]
fn ringlite_file_reads_the_same_in_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let ours_path = dir.path().join("ours.db");
    let ref_path = dir.path().join("ref.db");
    let mut ours = open(ours_path.to_str().unwrap());
    let r = RefDb::open_path(ref_path.to_str().unwrap());
    let setup = run_ours(&mut ours, SETUP);
    assert!(!setup.iter().any(|o| matches!(o, Outcome::Error { .. })), "{setup:?}");
    assert_eq!(setup, run_ref(&r, SETUP));
    drop(ours);
    let reader = RefDb::open_path(ours_path.to_str().unwrap());
    assert_eq!(run_ref(&reader, "PRAGMA integrity_check"), ok_integrity());
    assert_eq!(run_ref(&reader, QUERIES), run_ref(&r, QUERIES));
}

#[test]
fn sqlite_file_reads_the_same_in_ringlite() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ref.db");
    let r = RefDb::open_path(path.to_str().unwrap());
    run_ref(&r, SETUP);
    drop(r);
    let mut ours = open(path.to_str().unwrap());
    let r = RefDb::open_path(dir.path().join("ref2.db").to_str().unwrap());
    run_ref(&r, SETUP);
    assert_eq!(run_ours(&mut ours, QUERIES), run_ref(&r, QUERIES));
    let more = "INSERT INTO g(a, b) VALUES(7777, 'q'); UPDATE g SET b = 'w' WHERE a < 20;";
    assert_eq!(run_ours(&mut ours, more), run_ref(&r, more));
    drop(ours);
    let reader = RefDb::open_path(path.to_str().unwrap());
    assert_eq!(run_ref(&reader, "PRAGMA integrity_check"), ok_integrity());
    assert_eq!(run_ref(&reader, QUERIES), run_ref(&r, QUERIES));
}
