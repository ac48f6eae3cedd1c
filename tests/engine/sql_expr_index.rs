//! Indexes on expressions and VIRTUAL generated columns against real
//! SQLite on disk: a file ringlite writes passes SQLite's integrity_check
//! (which recomputes every index key, expressions and VIRTUAL columns
//! included, from the row) and reads the same in SQLite; a file SQLite
//! writes reads the same in ringlite and takes further writes from
//! ringlite that SQLite then checks.
#![allow(unsafe_code)]
use crate::sql_common;
use ringlite::{Connection, OpenFlags};
use sql_common::*;

const SETUP: &str = "CREATE TABLE t(a INTEGER, b TEXT, c REAL, v INTEGER AS (a * 3) VIRTUAL, w TEXT AS (lower(b) || '/' || v), d);
CREATE INDEX t_lower ON t(lower(b));
CREATE INDEX t_expr ON t(a + 1 DESC, substr(b, 2) COLLATE nocase, c);
CREATE UNIQUE INDEX t_u ON t(abs(a), length(b)) WHERE a > 10;
CREATE INDEX t_v ON t(v, w);
CREATE INDEX t_cast ON t(CAST(a AS TEXT), c * 2, 'b', 7);
WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM k WHERE i<400)
INSERT INTO t(a, b, c, d) SELECT i, 'Name' || i, i / 4, zeroblob(i % 5) FROM k;
UPDATE t SET b = upper(b) WHERE a % 3 = 0; DELETE FROM t WHERE a % 7 = 0;
REPLACE INTO t(rowid, a, b, c) VALUES(5, 1005, 'rep', 2.5);
INSERT INTO t(a, b) VALUES(2000, 'x') ON CONFLICT DO NOTHING;
INSERT OR IGNORE INTO t(a, b) VALUES(-12, 'Name12');
ALTER TABLE t ADD COLUMN e AS (c + a) VIRTUAL;
CREATE INDEX t_e ON t(e);
INSERT INTO t(a, b, c) VALUES(3000, 'after', 1);";

const QUERIES: &str = "SELECT count(*), sum(v), max(w), min(w), sum(e) FROM t;
SELECT a, b, v, w, e FROM t WHERE lower(b) = 'name12';
SELECT a, v FROM t WHERE v > 1100 ORDER BY v LIMIT 5;
SELECT a FROM t WHERE a + 1 = 42; SELECT a, e FROM t WHERE e = 3001;
SELECT typeof(v), typeof(w), typeof(e) FROM t WHERE a = 1;
PRAGMA table_xinfo(t); PRAGMA index_xinfo(t_expr); PRAGMA index_list(t);";

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
    assert_eq!(run_ours(&mut ours, QUERIES), run_ref(&r, QUERIES));
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
    let more = "INSERT INTO t(a, b, c) VALUES(7777, 'Q', 0.5); UPDATE t SET b = 'w' || a, c = c + 1 WHERE a < 40;
DELETE FROM t WHERE a BETWEEN 100 AND 120; REPLACE INTO t(rowid, a, b) VALUES(8, 8, 'eight');";
    assert_eq!(run_ours(&mut ours, more), run_ref(&r, more));
    let unique = "INSERT INTO t(a, b) VALUES(-1005, 'abc')";
    assert_eq!(run_ours(&mut ours, unique), run_ref(&r, unique));
    drop(ours);
    let reader = RefDb::open_path(path.to_str().unwrap());
    assert_eq!(run_ref(&reader, "PRAGMA integrity_check"), ok_integrity());
    assert_eq!(run_ref(&reader, QUERIES), run_ref(&r, QUERIES));
}

/// A WHERE term that repeats an indexed expression (any spelling of the
/// same expression: case, spacing, the table's name or alias as
/// qualifier) searches the index as SQLite does; other terms scan.
#[test]
fn where_terms_use_expression_indexes_as_sqlite_does() {
    let setup = "CREATE TABLE t(a INTEGER, b TEXT COLLATE nocase, c, v AS (a * 2));
INSERT INTO t(a, b, c) VALUES(1,'Abc',2),(2,'xyz',3),(3,NULL,4),(4,'ABC',5);
CREATE INDEX i1 ON t(lower(b)); CREATE INDEX i2 ON t(a + 1 DESC, c); CREATE INDEX i3 ON t(v);
CREATE INDEX i4 ON t(substr(b, 2) COLLATE nocase);";
    let queries = [
        "SELECT a FROM t WHERE lower(b) = 'abc'",
        "SELECT a FROM t WHERE LOWER( t.b ) = 'abc'",
        "SELECT a FROM t AS x WHERE lower(x.b) = 'abc'",
        "SELECT a FROM t WHERE a+1 > 2",
        "SELECT a FROM t WHERE a+1 > 2 AND a+1 < 5",
        "SELECT a FROM t WHERE a+1 = 3 AND c > 1",
        "SELECT a FROM t WHERE v = 4",
        "SELECT a FROM t WHERE 3 = 1+a",
        "SELECT a FROM t WHERE substr(b, 2) = 'BC'",
        "SELECT a FROM t WHERE b || 'x' = 'abcx'",
    ];
    check_plans(setup, &queries);
}
