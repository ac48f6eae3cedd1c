//! VACUUM and VACUUM INTO against real SQLite: the same script run on both
//! engines gives the same rows (rowids included) after VACUUM, an empty
//! freelist, a file that passes SQLite's integrity_check, and SQLite's
//! errors inside a transaction or with statements running.
#![allow(unsafe_code)]
use crate::sql_common;
use ringlite::{Connection, OpenFlags, StepResult};
use sql_common::*;

const SETUP: &str = "PRAGMA user_version=7; PRAGMA application_id=1234;
CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c BLOB);
CREATE TABLE n(x, y UNIQUE, [odd, name] DEFAULT 3, [é] DEFAULT 'e');
CREATE TABLE s(id INTEGER PRIMARY KEY AUTOINCREMENT, v);
CREATE INDEX tb ON t(b);
CREATE INDEX nx ON n(x) WHERE x > 10;
CREATE VIEW v AS SELECT a, b FROM t WHERE a % 50 = 0;
CREATE TRIGGER tr AFTER INSERT ON n WHEN new.x = 5 BEGIN INSERT INTO t(b) VALUES('trig'); END;
WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM k WHERE i<600)
INSERT INTO t SELECT i, printf('row %d', i), zeroblob(i * 5 % 3000) FROM k;
WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM k WHERE i<300)
INSERT INTO n(x, y) SELECT i * 3, 'y' || i FROM k;
INSERT INTO s(v) VALUES(1000),(1001),(1002); DELETE FROM s WHERE id = 3;
DELETE FROM t WHERE a % 4 <> 0; DELETE FROM n WHERE rowid % 3 = 0;";

const QUERIES: &str = "SELECT count(*), sum(a), sum(length(c)), max(b) FROM t;
SELECT rowid, * FROM n ORDER BY rowid LIMIT 5; SELECT rowid, x FROM n ORDER BY rowid DESC LIMIT 3;
SELECT * FROM s; SELECT * FROM sqlite_sequence; SELECT count(*) FROM v;
SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY name;
PRAGMA user_version; PRAGMA application_id;
SELECT x FROM n WHERE x > 880 ORDER BY x; INSERT INTO s(v) VALUES(5); SELECT * FROM s; INSERT INTO n(x, y) VALUES(5, 'z'); SELECT a, b FROM t WHERE b = 'trig';";

fn ok_integrity() -> Vec<Outcome> {
    vec![Outcome::Rows { names: vec!["integrity_check".into()], rows: vec![vec![V::Text(b"ok".to_vec())]] }]
}

fn open(path: &str) -> Connection {
    Connection::open(path, OpenFlags(OpenFlags::READWRITE | OpenFlags::CREATE)).unwrap()
}

#[test]
fn vacuum_in_place_matches_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let ours_path = dir.path().join("ours.db");
    let ref_path = dir.path().join("ref.db");
    let mut ours = open(ours_path.to_str().unwrap());
    let r = RefDb::open_path(ref_path.to_str().unwrap());
    let setup = run_ours(&mut ours, SETUP);
    assert!(!setup.iter().any(|o| matches!(o, Outcome::Error { .. })), "{setup:?}");
    assert_eq!(setup, run_ref(&r, SETUP));
    let size_before = std::fs::metadata(&ours_path).unwrap().len();
    // A second SQLite connection with a warm cache sees the new file.
    let watcher = RefDb::open_path(ours_path.to_str().unwrap());
    assert_eq!(run_ref(&watcher, "SELECT count(*) FROM t"), run_ref(&r, "SELECT count(*) FROM t"));
    assert_eq!(run_ours(&mut ours, "VACUUM"), vec![Outcome::Rows { names: vec![], rows: vec![] }]);
    assert_eq!(run_ref(&r, "VACUUM"), vec![Outcome::Rows { names: vec![], rows: vec![] }]);
    let size_after = std::fs::metadata(&ours_path).unwrap().len();
    assert!(size_after < size_before, "{size_after} >= {size_before}");
    assert_eq!(run_ref(&watcher, "PRAGMA integrity_check"), ok_integrity());
    assert_eq!(
        run_ref(&watcher, "SELECT count(*), sum(a) FROM t; PRAGMA freelist_count"),
        run_ref(&r, "SELECT count(*), sum(a) FROM t; PRAGMA freelist_count")
    );
    drop(watcher);
    assert_eq!(run_ours(&mut ours, QUERIES), run_ref(&r, QUERIES));
    drop(ours);
    let check = RefDb::open_path(ours_path.to_str().unwrap());
    assert_eq!(run_ref(&check, "PRAGMA integrity_check"), ok_integrity());
    assert_eq!(run_ref(&check, "PRAGMA freelist_count"), run_ref(&r, "PRAGMA freelist_count"));
    // B-tree fill differs a little from SQLite's (balancing), not more.
    let pages = |db: &RefDb| match &run_ref(db, "PRAGMA page_count")[0] {
        Outcome::Rows { rows, .. } => match rows[0][0] {
            V::Int(n) => n,
            _ => 0,
        },
        _ => 0,
    };
    assert!(pages(&check) * 10 <= pages(&r) * 11, "{} pages, SQLite {}", pages(&check), pages(&r));
}

#[test]
fn vacuum_into_a_new_file_matches_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let mut ours = ours_open();
    let r = RefDb::open();
    run_ours(&mut ours, SETUP);
    run_ref(&r, SETUP);
    let ours_copy = dir.path().join("ours_copy.db");
    let ref_copy = dir.path().join("ref_copy.db");
    let sql = |p: &std::path::Path| format!("VACUUM INTO '{}'", p.display());
    assert_eq!(run_ours(&mut ours, &sql(&ours_copy)), run_ref(&r, &sql(&ref_copy)));
    // Again into an existing file: refused.
    assert_eq!(run_ours(&mut ours, &sql(&ours_copy)), run_ref(&r, &sql(&ref_copy)));
    let a = RefDb::open_path(ours_copy.to_str().unwrap());
    let b = RefDb::open_path(ref_copy.to_str().unwrap());
    assert_eq!(run_ref(&a, "PRAGMA integrity_check"), ok_integrity());
    assert_eq!(run_ref(&a, QUERIES), run_ref(&b, QUERIES));
    // The source is unchanged and still usable.
    assert_eq!(run_ours(&mut ours, "SELECT count(*) FROM t; PRAGMA user_version"), run_ref(&r, "SELECT count(*) FROM t; PRAGMA user_version"));
}

#[test]
fn vacuum_errors_match_sqlite() {
    let mut ours = ours_open();
    let r = RefDb::open();
    let script = "CREATE TABLE t(x); INSERT INTO t VALUES(1),(2); BEGIN; VACUUM; ROLLBACK; VACUUM nosuch; VACUUM temp; VACUUM main;";
    assert_eq!(run_ours(&mut ours, script), run_ref(&r, script));
    // A statement still running.
    let (st, _) = ours.prepare(b"SELECT x FROM t").unwrap();
    let mut st = st.unwrap();
    assert_eq!(st.step(&mut ours).unwrap(), StepResult::Row);
    let got = run_ours(&mut ours, "VACUUM");
    st.reset(&mut ours);
    unsafe {
        use libsqlite3_sys as ffi;
        let mut rs = std::ptr::null_mut();
        ffi::sqlite3_prepare_v2(r.0, c"SELECT x FROM t".as_ptr(), -1, &mut rs, std::ptr::null_mut());
        assert_eq!(ffi::sqlite3_step(rs), ffi::SQLITE_ROW);
        let want = run_ref(&r, "VACUUM");
        ffi::sqlite3_finalize(rs);
        assert_eq!(got, want);
    }
}

#[test]
fn vacuum_of_a_wal_database_stays_wal_and_readable_by_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("wal.db");
    let mut ours = open(path.to_str().unwrap());
    let r = RefDb::open();
    let script = "PRAGMA journal_mode=WAL; CREATE TABLE t(a INTEGER PRIMARY KEY, b);
        WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM k WHERE i<3000) INSERT INTO t SELECT i, randomblob(50) FROM k;
        DELETE FROM t WHERE a > 100;";
    run_ours(&mut ours, script);
    run_ref(
        &r,
        "CREATE TABLE t(a INTEGER PRIMARY KEY, b); WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM k WHERE i<100) INSERT INTO t SELECT i, 0 FROM k;",
    );
    let other = RefDb::open_path(path.to_str().unwrap());
    assert_eq!(run_ref(&other, "SELECT count(*), sum(a) FROM t"), run_ref(&r, "SELECT count(*), sum(a) FROM t"));
    assert_eq!(run_ours(&mut ours, "VACUUM"), vec![Outcome::Rows { names: vec![], rows: vec![] }]);
    assert_eq!(
        run_ref(&other, "PRAGMA journal_mode; PRAGMA integrity_check; PRAGMA freelist_count; SELECT count(*), sum(a) FROM t"),
        run_ref(&r, "SELECT 'wal'; PRAGMA integrity_check; PRAGMA freelist_count; SELECT count(*), sum(a) FROM t")
            .into_iter()
            .enumerate()
            .map(|(i, o)| match (i, o) {
                (0, Outcome::Rows { rows, .. }) => Outcome::Rows { names: vec!["journal_mode".into()], rows },
                (_, o) => o,
            })
            .collect::<Vec<_>>()
    );
    assert_eq!(
        run_ours(&mut ours, "SELECT count(*), sum(a) FROM t; PRAGMA journal_mode"),
        vec![
            Outcome::Rows { names: vec!["count(*)".into(), "sum(a)".into()], rows: vec![vec![V::Int(100), V::Int(5050)]] },
            Outcome::Rows { names: vec!["journal_mode".into()], rows: vec![vec![V::Text(b"wal".to_vec())]] },
        ]
    );
}

#[test]
fn vacuum_waits_for_readers() {
    // Two ringlite connections: fcntl locks do not separate two libraries
    // in one process, our own lock table does.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("busy.db");
    let mut ours = open(path.to_str().unwrap());
    run_ours(&mut ours, "CREATE TABLE t(x); INSERT INTO t VALUES(1),(2);");
    let mut reader = open(path.to_str().unwrap());
    run_ours(&mut reader, "BEGIN; SELECT count(*) FROM t;");
    let busy = run_ours(&mut ours, "VACUUM");
    assert_eq!(busy, vec![Outcome::Error { code: 5, message: "database is locked".into() }]);
    run_ours(&mut reader, "COMMIT");
    assert_eq!(
        run_ours(&mut ours, "VACUUM; SELECT count(*) FROM t"),
        vec![Outcome::Rows { names: vec![], rows: vec![] }, Outcome::Rows { names: vec!["count(*)".into()], rows: vec![vec![V::Int(2)]] },]
    );
    assert_eq!(
        run_ours(&mut reader, "PRAGMA integrity_check; SELECT count(*) FROM t"),
        vec![
            Outcome::Rows { names: vec!["integrity_check".into()], rows: vec![vec![V::Text(b"ok".to_vec())]] },
            Outcome::Rows { names: vec!["count(*)".into()], rows: vec![vec![V::Int(2)]] },
        ]
    );
    drop((ours, reader));
    let check = RefDb::open_path(path.to_str().unwrap());
    assert_eq!(run_ref(&check, "PRAGMA integrity_check"), ok_integrity());
}

#[test]
fn vacuum_applies_a_new_page_size_like_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    for (n, size) in [(1, 1024), (2, 8192), (3, 65536)] {
        let ours_path = dir.path().join(format!("ps{n}.db"));
        let ref_path = dir.path().join(format!("ps{n}_ref.db"));
        let mut ours = open(ours_path.to_str().unwrap());
        let r = RefDb::open_path(ref_path.to_str().unwrap());
        let setup = format!("{SETUP} PRAGMA page_size; PRAGMA page_size={size}; PRAGMA page_size; VACUUM; PRAGMA page_size;");
        assert_eq!(run_ours(&mut ours, &setup), run_ref(&r, &setup));
        let mut other = open(ours_path.to_str().unwrap());
        assert_eq!(run_ours(&mut ours, QUERIES), run_ref(&r, QUERIES));
        assert_eq!(run_ours(&mut other, "PRAGMA page_size; SELECT count(*), sum(a) FROM t"), run_ref(&r, "PRAGMA page_size; SELECT count(*), sum(a) FROM t"));
        drop((ours, other));
        let check = RefDb::open_path(ours_path.to_str().unwrap());
        assert_eq!(run_ref(&check, "PRAGMA integrity_check"), ok_integrity());
        assert_eq!(
            run_ref(&check, "PRAGMA page_size; PRAGMA freelist_count; SELECT count(*) FROM n"),
            run_ref(&r, "PRAGMA page_size; PRAGMA freelist_count; SELECT count(*) FROM n")
        );
        assert!(!dir.path().join(format!("ps{n}.db-journal")).exists());
    }
    // In-memory and WAL databases keep their page size (SQLite's rule).
    let mut mem = ours_open();
    let r = RefDb::open();
    let s = "CREATE TABLE t(x); INSERT INTO t VALUES(1); PRAGMA page_size=1024; VACUUM; PRAGMA page_size; SELECT * FROM t;";
    assert_eq!(run_ours(&mut mem, s), run_ref(&r, s));
}

/// `PRAGMA auto_vacuum` on a database with tables takes effect at the next
/// VACUUM (and only then); VACUUM otherwise keeps the mode; SQLite's
/// integrity_check (which checks the pointer map) passes. Page counts are
/// not compared: the two engines pack B-tree pages differently.
#[test]
fn vacuum_applies_a_pending_auto_vacuum_mode() {
    for (from, to) in [(0, 1), (0, 2), (1, 0), (2, 0), (1, 1), (2, 1)] {
        let dir = tempfile::tempdir().unwrap();
        let ours_path = dir.path().join("ours.db");
        let ref_path = dir.path().join("ref.db");
        let mut ours = open(ours_path.to_str().unwrap());
        let r = RefDb::open_path(ref_path.to_str().unwrap());
        let script = format!(
            "PRAGMA auto_vacuum={from}; CREATE TABLE t(a INTEGER PRIMARY KEY, b);
             WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM k WHERE i<400)
             INSERT INTO t SELECT i, randomblob(300) FROM k;
             PRAGMA auto_vacuum={to}; PRAGMA auto_vacuum; VACUUM; PRAGMA auto_vacuum; PRAGMA freelist_count;
             DELETE FROM t WHERE a > 100; VACUUM; PRAGMA auto_vacuum; PRAGMA freelist_count;
             PRAGMA integrity_check; SELECT count(*), sum(length(b)) FROM t"
        );
        let theirs = run_ref(&r, &script);
        assert_eq!(run_ours(&mut ours, &script), theirs, "auto_vacuum {from} -> {to}");
        drop(ours);
        let checker = RefDb::open_path(ours_path.to_str().unwrap());
        assert_eq!(run_ref(&checker, "PRAGMA integrity_check"), ok_integrity(), "auto_vacuum {from} -> {to}");
    }
}

#[test]
fn vacuum_into_keeps_auto_vacuum() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src.db");
    let copy = dir.path().join("copy.db");
    let mut ours = open(src.to_str().unwrap());
    let script =
        format!("PRAGMA auto_vacuum=INCREMENTAL; CREATE TABLE t(a, b); INSERT INTO t VALUES(1, zeroblob(9000)); VACUUM INTO '{}'", copy.to_str().unwrap());
    let out = run_ours(&mut ours, &script);
    assert!(!out.iter().any(|o| matches!(o, Outcome::Error { .. })), "{out:?}");
    let checker = RefDb::open_path(copy.to_str().unwrap());
    assert_eq!(
        run_ref(&checker, "PRAGMA auto_vacuum; PRAGMA integrity_check"),
        vec![Outcome::Rows { names: vec!["auto_vacuum".into()], rows: vec![vec![V::Int(2)]] }, ok_integrity()[0].clone()]
    );
}

/// VACUUM copies a leaf's cells onto the new tree's last leaf in runs
/// (`Cursor::append_leaf_run`), leaving rows that overflow, leaves that
/// fill, and keys out of order to the one-entry insert: rows of every
/// size interleaved, index entries under NOCASE and DESC, on small and
/// auto-vacuum pages, read back the same as SQLite's own VACUUM gives
/// them, in a file SQLite finds sound.
#[test]
fn vacuum_copies_mixed_rows_in_leaf_runs() {
    let setup = "CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c BLOB);
        CREATE TABLE u(x, y COLLATE NOCASE, z);
        CREATE UNIQUE INDEX uy ON u(y); CREATE INDEX uxz ON u(x, z DESC); CREATE INDEX tb ON t(b);
        WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM k WHERE i<3000)
        INSERT INTO t SELECT i * 3, printf('row %d %.*c', i, i % 37, 'x'), CASE WHEN i % 11 = 0 THEN zeroblob(i % 5000) ELSE randomblob(i % 40) END FROM k;
        WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM k WHERE i<3000)
        INSERT INTO u SELECT CASE i % 4 WHEN 0 THEN NULL WHEN 1 THEN i WHEN 2 THEN 'v' || i ELSE i * 0.5 END, printf('Y%06d', i), i % 9 FROM k;
        DELETE FROM t WHERE a % 5 = 0; DELETE FROM u WHERE rowid % 3 = 0;";
    let queries = "SELECT count(*), sum(a), sum(length(c)), max(b), min(b) FROM t;
        SELECT a, length(c) FROM t WHERE a % 97 = 0 ORDER BY a;
        SELECT y FROM u INDEXED BY uy WHERE y >= 'y002' ORDER BY y LIMIT 7;
        SELECT x, z FROM u INDEXED BY uxz ORDER BY x, z DESC LIMIT 9;
        SELECT b FROM t INDEXED BY tb ORDER BY b DESC LIMIT 5; PRAGMA freelist_count;";
    for pre in ["PRAGMA page_size=1024;", "PRAGMA auto_vacuum=FULL;", ""] {
        let dir = tempfile::tempdir().unwrap();
        let ours_path = dir.path().join("ours.db");
        let ref_path = dir.path().join("ref.db");
        let mut ours = open(ours_path.to_str().unwrap());
        let r = RefDb::open_path(ref_path.to_str().unwrap());
        let script = format!("{pre} {setup} VACUUM;");
        let out = run_ours(&mut ours, &script);
        assert!(!out.iter().any(|o| matches!(o, Outcome::Error { .. })), "{pre}: {out:?}");
        run_ref(&r, &script);
        assert_eq!(run_ours(&mut ours, queries), run_ref(&r, queries), "{pre}");
        drop(ours);
        let check = RefDb::open_path(ours_path.to_str().unwrap());
        assert_eq!(run_ref(&check, "PRAGMA integrity_check"), ok_integrity(), "{pre}");
        assert_eq!(run_ref(&check, queries), run_ref(&r, queries), "{pre}");
    }
}

/// VACUUM of a database holding sqlite_stat1 (after ANALYZE) keeps it,
/// its rows and root page where SQLite puts them (e_totalchanges.test).
/// (The bundled reference has STAT4, Debian's build and ringlite do not:
/// its sqlite_stat4 is dropped.)
#[test]
fn vacuum_keeps_the_statistics_tables() {
    let setup = "CREATE TABLE a(x INTEGER PRIMARY KEY, y); CREATE INDEX ay ON a(y);
        WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM k WHERE i<200) INSERT INTO a SELECT i, i % 7 FROM k;
        ANALYZE; DROP TABLE IF EXISTS sqlite_stat4; CREATE TABLE b(p, q); INSERT INTO b VALUES(1, 2); DELETE FROM a WHERE x % 3 = 0;
        INSERT INTO sqlite_stat1 VALUES('b', NULL, '1');";
    let dir = tempfile::tempdir().unwrap();
    let ours_path = dir.path().join("ours.db");
    let ref_path = dir.path().join("ref.db");
    let mut ours = open(ours_path.to_str().unwrap());
    let r = RefDb::open_path(ref_path.to_str().unwrap());
    assert_eq!(run_ours(&mut ours, setup), run_ref(&r, setup));
    let after = "VACUUM; SELECT type, name, rootpage FROM sqlite_schema ORDER BY rowid; SELECT * FROM sqlite_stat1 ORDER BY tbl, idx;
        SELECT count(*) FROM a; PRAGMA integrity_check; PRAGMA freelist_count";
    assert_eq!(run_ours(&mut ours, after), run_ref(&r, after));
    drop(ours);
    let check = RefDb::open_path(ours_path.to_str().unwrap());
    assert_eq!(run_ref(&check, "PRAGMA integrity_check"), ok_integrity());
}

/// ANALYZE and VACUUM change no row an application counts:
/// `total_changes()` stays (e_totalchanges.test 2.3).
#[test]
fn analyze_and_vacuum_leave_total_changes() {
    check_each(
        "CREATE TABLE t(a, b); CREATE INDEX i ON t(a); INSERT INTO t VALUES(1, 2), (3, 4);",
        &["ANALYZE; SELECT total_changes()", "VACUUM; SELECT total_changes()", "ANALYZE; VACUUM; SELECT total_changes(), changes()"],
    );
}

/// VACUUM of a database whose every table was dropped leaves a one-page
/// file (an empty schema on page 1), with or without a new page size, as
/// SQLite's: ours wrote no page and kept the old ones, which
/// integrity_check then reported as "never used" (misc3.test).
#[test]
fn vacuum_of_an_emptied_database_leaves_one_page() {
    let dir = tempfile::tempdir().unwrap();
    for (n, extra) in [(1, ""), (2, "PRAGMA page_size=1024;"), (3, "PRAGMA auto_vacuum=1;")] {
        let ours_path = dir.path().join(format!("e{n}.db"));
        let ref_path = dir.path().join(format!("e{n}_ref.db"));
        let mut ours = open(ours_path.to_str().unwrap());
        let r = RefDb::open_path(ref_path.to_str().unwrap());
        let script = format!(
            "PRAGMA user_version=9; CREATE TABLE t(a UNIQUE, b); INSERT INTO t VALUES(1, randomblob(3000)); CREATE TABLE u(x);
             DROP TABLE t; DROP TABLE u; PRAGMA page_count; {extra} VACUUM;
             PRAGMA page_count; PRAGMA freelist_count; PRAGMA page_size; PRAGMA user_version; PRAGMA integrity_check;
             CREATE TABLE w(x); INSERT INTO w VALUES(1); SELECT * FROM w; PRAGMA integrity_check"
        );
        assert_eq!(run_ours(&mut ours, &script), run_ref(&r, &script), "case {n}");
        drop(ours);
        assert_eq!(std::fs::metadata(&ours_path).unwrap().len(), std::fs::metadata(&ref_path).unwrap().len(), "case {n}");
        let check = RefDb::open_path(ours_path.to_str().unwrap());
        assert_eq!(run_ref(&check, "PRAGMA integrity_check"), ok_integrity(), "case {n}");
    }
}
