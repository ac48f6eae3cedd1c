//! WITHOUT ROWID tables at the SQL layer, differentially against SQLite:
//! files written by SQLite are read by ringlite with the same results,
//! and what ringlite does not support yet is refused with SQLite's
//! "not supported" error rather than misbehaving.
mod sql_common;
use ringlite::{Connection, OpenFlags};
use sql_common::{run_ours, run_ref, RefDb};

/// Tables covering the record layouts: PK not leading the declaration,
/// composite keys with DESC and a collation, an INTEGER PRIMARY KEY (an
/// ordinary key column here), long rows spilling to overflow pages, and
/// enough rows for a multi-level tree; plus a secondary and a UNIQUE index.
const SETUP: &str = "
CREATE TABLE kv(k TEXT PRIMARY KEY, v) WITHOUT ROWID;
INSERT INTO kv VALUES('b',2),('a',1),('c',NULL),('B','upper');
CREATE TABLE mid(x, y INTEGER, z TEXT COLLATE NOCASE, PRIMARY KEY(z, y DESC)) WITHOUT ROWID;
INSERT INTO mid VALUES(1,1,'a'),(2,2,'A2'),(3,3,'a2x'),(4,1,'b'),(5,2,'b'),(6,9,'Z');
CREATE TABLE ipk(id INTEGER PRIMARY KEY, name TEXT UNIQUE, n REAL) WITHOUT ROWID;
WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM s WHERE i < 2000)
  INSERT INTO ipk SELECT i*7 % 2003, 'name' || i || printf('%.*c', i % 300, 'x'), i / 3.0 FROM s;
CREATE INDEX ipk_n ON ipk(n);
";

const QUERIES: &[&str] = &[
    "SELECT * FROM kv",
    "SELECT v, k FROM kv WHERE k > 'a'",
    "SELECT * FROM mid",
    "SELECT x, z FROM mid WHERE y = 2 ORDER BY x",
    "SELECT count(*), sum(id), max(length(name)), min(n) FROM ipk",
    "SELECT id, length(name), n FROM ipk WHERE id BETWEEN 100 AND 140",
    "SELECT id FROM ipk WHERE name = 'name77' || printf('%.*c', 77, 'x')",
    "SELECT kv.k, mid.x FROM kv JOIN mid ON mid.y = kv.v ORDER BY 1, 2",
    "SELECT rowid FROM kv",
    "SELECT * FROM kv WHERE rowid = 1",
    "SELECT * FROM kv WHERE k = 'b'",
    "SELECT * FROM kv WHERE k = 'B'",
    "SELECT * FROM kv WHERE k = NULL",
    "SELECT * FROM mid WHERE z = 'B'",
    "SELECT * FROM mid WHERE z = 'b' AND y = 2",
    "SELECT * FROM mid WHERE y = 2 AND z = 'a2'",
    "SELECT * FROM mid WHERE z = 'a' COLLATE BINARY",
    "SELECT id, n FROM ipk WHERE id = 140",
    "SELECT id, n FROM ipk WHERE id = '140'",
    "SELECT id, n FROM ipk WHERE id = 140.0",
    "SELECT a.id, b.id FROM ipk AS a JOIN ipk AS b ON b.id = a.id + 1 WHERE a.id < 20 ORDER BY 1",
    "SELECT id FROM ipk WHERE id > 1990",
    "SELECT id FROM ipk WHERE id >= 1990 AND id < 1995",
    "SELECT id FROM ipk WHERE id <= 5",
    "SELECT id FROM ipk WHERE id < '5'",
    "SELECT id FROM ipk WHERE id > 1995.5",
    "SELECT k FROM kv WHERE k >= 'a' AND k <= 'b'",
    "SELECT * FROM mid WHERE z = 'a2' AND y > 1",
    "SELECT * FROM mid WHERE z = 'b' AND y < 2",
    "SELECT * FROM mid WHERE z = 'b' AND y >= 1 AND y <= 2",
    "SELECT * FROM mid WHERE z > 'A' AND z < 'b'",
    "SELECT * FROM mid WHERE z < 'B'",
    "SELECT id FROM ipk WHERE id > NULL",
    "PRAGMA integrity_check",
];

#[test]
fn reads_sqlite_written_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("wr.db");
    let path = path.to_str().unwrap();
    {
        let r = RefDb::open_path(path);
        for o in run_ref(&r, SETUP) {
            assert!(!matches!(o, sql_common::Outcome::Error { .. }), "setup failed: {o:?}");
        }
    }
    let r = RefDb::open_path(path);
    let mut ours = Connection::open(path, OpenFlags(OpenFlags::READWRITE)).expect("open");
    for q in QUERIES {
        let mine = run_ours(&mut ours, q);
        let theirs = run_ref(&r, q);
        assert_eq!(mine, theirs, "query: {q}");
        if !q.contains("rowid") && !q.contains("NULL") {
            assert!(matches!(&mine[0], sql_common::Outcome::Rows { rows, .. } if !rows.is_empty()), "{q}: {mine:?}");
        }
    }
}

#[test]
fn unsupported_writes_are_refused() {
    let refused = |out: &[sql_common::Outcome]| matches!(&out[0], sql_common::Outcome::Error { message, .. } if message.contains("WITHOUT ROWID tables is not supported"));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("wr.db");
    let path = path.to_str().unwrap();
    drop(RefDb::open_path(path));
    let mut ours = Connection::open(path, OpenFlags(OpenFlags::READWRITE)).expect("open");
    let mine = run_ours(&mut ours, "CREATE TABLE u(a PRIMARY KEY, b UNIQUE) WITHOUT ROWID");
    assert!(refused(&mine), "{mine:?}");
    {
        let r = RefDb::open_path(path);
        run_ref(&r, "CREATE TABLE t(a PRIMARY KEY, b) WITHOUT ROWID; INSERT INTO t VALUES(1,2)");
    }
    let mut ours = Connection::open(path, OpenFlags(OpenFlags::READWRITE)).expect("open");
    for q in ["UPDATE t SET b = 5 RETURNING a", "DELETE FROM t RETURNING a", "CREATE INDEX tb ON t(b)", "INSERT INTO t VALUES(7,8) RETURNING a"] {
        let mine = run_ours(&mut ours, q);
        assert!(refused(&mine), "{q}: {mine:?}");
    }
    run_ours(&mut ours, "INSERT INTO t VALUES(3,4); UPDATE t SET b = b * 10 WHERE a = 1");
    drop(ours);
    let r = RefDb::open_path(path);
    let out = run_ref(&r, "PRAGMA integrity_check; SELECT * FROM t");
    assert_eq!(format!("{out:?}"), format!("{:?}", vec![
        sql_common::Outcome::Rows { names: vec!["integrity_check".into()], rows: vec![vec![sql_common::V::Text(b"ok".to_vec())]] },
        sql_common::Outcome::Rows { names: vec!["a".into(), "b".into()], rows: vec![vec![sql_common::V::Int(1), sql_common::V::Int(20)], vec![sql_common::V::Int(3), sql_common::V::Int(4)]] },
    ]));
}

#[test]
fn primary_key_missing_and_autoincrement() {
    let mut ours = sql_common::ours_open();
    let r = RefDb::open();
    for q in [
        "CREATE TABLE t(a, b) WITHOUT ROWID",
        "CREATE TABLE t(a INTEGER PRIMARY KEY AUTOINCREMENT, b) WITHOUT ROWID",
    ] {
        assert_eq!(run_ours(&mut ours, q), run_ref(&r, q), "{q}");
    }
}

/// Create and fill a WITHOUT ROWID table with ringlite, then compare the
/// results with SQLite running the same script, and check the file
/// ringlite wrote with SQLite's integrity_check.
#[test]
fn create_insert_written_file_checks_ok() {
    let script = "
CREATE TABLE t(a TEXT, b INTEGER, c COLLATE NOCASE, PRIMARY KEY(c, b DESC)) WITHOUT ROWID;
INSERT INTO t VALUES('x', 1, 'k1'), ('y', 2, 'K1'), ('z', 3, 'k2');
INSERT INTO t VALUES('dup', 1, 'K1');
INSERT OR IGNORE INTO t VALUES('ign', 2, 'k1');
INSERT OR REPLACE INTO t VALUES('rep', 3, 'K2');
SELECT changes();
INSERT INTO t VALUES('n', NULL, 'k3');
INSERT INTO t(a, b, c) SELECT a || '2', b + 10, c FROM t;
SELECT * FROM t;
SELECT count(*), total_changes() FROM t;
CREATE TABLE big(k INTEGER PRIMARY KEY, v) WITHOUT ROWID;
WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM s WHERE i < 3000)
  INSERT INTO big SELECT (i * 7919) % 3001, printf('%.*c', i % 500, 'v') FROM s;
SELECT count(*), sum(k), sum(length(v)) FROM big;
SELECT k, length(v) FROM big WHERE k < 10;
DELETE FROM big WHERE k % 3 = 0;
UPDATE big SET v = v || 'tail' WHERE k % 5 = 1;
SELECT changes();
UPDATE big SET k = k + 100000 WHERE k < 50;
SELECT changes(), min(k), max(k) FROM big;
UPDATE big SET k = 1 WHERE k = 100002;
UPDATE OR IGNORE big SET k = 1 WHERE k = 100002;
UPDATE OR REPLACE big SET k = 2 WHERE k = 100004;
SELECT changes(), count(*) FROM big WHERE k IN (1, 2, 100002, 100004);
UPDATE big SET rowid = 3;
UPDATE big SET k = NULL WHERE k = 2;
UPDATE t SET c = upper(c), a = a || '!' WHERE b < 3;
SELECT * FROM t;
UPDATE OR REPLACE t SET c = 'k1' WHERE c = 'K2';
SELECT * FROM t;
SELECT changes();
DELETE FROM t AS x WHERE x.a LIKE '%2';
SELECT changes(), count(*) FROM t;
DELETE FROM t;
SELECT changes(), count(*) FROM t;
SELECT count(*), sum(k), sum(length(v)) FROM big;
CREATE TABLE nopk(a, b) WITHOUT ROWID;
SELECT rowid FROM t;
";
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ours.db");
    let path = path.to_str().unwrap();
    let mut ours = Connection::open(path, OpenFlags(OpenFlags::READWRITE | OpenFlags::CREATE)).expect("open");
    let r = RefDb::open();
    let mut rest = script;
    while let Some(end) = rest.find(";\n") {
        let stmt = &rest[..=end];
        rest = &rest[end + 2..];
        assert_eq!(run_ours(&mut ours, stmt), run_ref(&r, stmt), "statement: {stmt}");
    }
    drop(ours);
    let check = RefDb::open_path(path);
    for q in ["PRAGMA integrity_check", "SELECT * FROM t", "SELECT count(*) FROM big", "SELECT count(*), sum(k), sum(length(v)) FROM big"] {
        let theirs = run_ref(&check, q);
        let reference = run_ref(&r, q);
        assert_eq!(theirs, reference, "{q}");
    }
}

/// Statements on a WITHOUT ROWID table made by ringlite, each run on a
/// fresh copy of the setup, against SQLite.
#[test]
fn statements_match_sqlite() {
    sql_common::check_each("CREATE TABLE t(a, b TEXT PRIMARY KEY, c) WITHOUT ROWID; INSERT INTO t VALUES(1,'x',3),(2,'y',4),(3,'a',5);", &[
        "SELECT count(*) FROM t",
        "SELECT max(b), min(b) FROM t",
        "SELECT * FROM t ORDER BY b",
        "SELECT * FROM t ORDER BY b DESC LIMIT 2",
        "INSERT INTO t(rowid, b) VALUES(5, 'q')",
        "INSERT INTO t(b) VALUES('q'); SELECT last_insert_rowid(), changes()",
        "ALTER TABLE t ADD COLUMN d DEFAULT 9; SELECT * FROM t; INSERT INTO t VALUES(1,'zz',2,3); SELECT * FROM t WHERE b = 'zz'",
        "DROP TABLE t; SELECT name FROM sqlite_master",
        "SELECT b, count(*) FROM t GROUP BY b",
        "SELECT DISTINCT a FROM t",
        "SELECT * FROM t WHERE b > 'b'",
        "SELECT * FROM t WHERE b IN ('x','a')",
        "PRAGMA table_info(t)",
        "SELECT * FROM t AS p, t AS q WHERE p.b = q.b",
        "ALTER TABLE t RENAME TO t2; SELECT * FROM t2 WHERE b = 'x'",
        "REPLACE INTO t VALUES(7,'x',8); SELECT * FROM t",
    ]);
}
