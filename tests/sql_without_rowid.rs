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
        if !q.contains("rowid") {
            assert!(matches!(&mine[0], sql_common::Outcome::Rows { rows, .. } if !rows.is_empty()), "{q}: {mine:?}");
        }
    }
}

#[test]
fn unsupported_writes_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("wr.db");
    let path = path.to_str().unwrap();
    drop(RefDb::open_path(path));
    let mut ours = Connection::open(path, OpenFlags(OpenFlags::READWRITE)).expect("open");
    let mine = run_ours(&mut ours, "CREATE TABLE t(a PRIMARY KEY, b) WITHOUT ROWID");
    assert!(matches!(&mine[0], sql_common::Outcome::Error { message, .. } if message.contains("WITHOUT ROWID tables is not supported")), "{mine:?}");
    {
        let r = RefDb::open_path(path);
        run_ref(&r, "CREATE TABLE t(a PRIMARY KEY, b) WITHOUT ROWID; INSERT INTO t VALUES(1,2)");
    }
    let mut ours = Connection::open(path, OpenFlags(OpenFlags::READWRITE)).expect("open");
    for q in ["INSERT INTO t VALUES(3,4)", "UPDATE t SET b = 5", "DELETE FROM t"] {
        let mine = run_ours(&mut ours, q);
        assert!(matches!(&mine[0], sql_common::Outcome::Error { message, .. } if message.contains("WITHOUT ROWID tables is not supported")), "{q}: {mine:?}");
    }
    let r = RefDb::open_path(path);
    assert_eq!(run_ours(&mut ours, "SELECT * FROM t"), run_ref(&r, "SELECT * FROM t"));
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
