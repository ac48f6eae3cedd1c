//! Transient tables (DISTINCT sets, IN lists, materialized CTEs, compound
//! SELECTs, a recursive CTE's UNION set) bigger than SQLite's transient
//! cache write their rows to a temporary file and read them back
//! (`vdbe/ephemeral_spill.rs`, and a keyed table's B-tree's pages,
//! `vdbe/ephemeral_tree.rs`); under `PRAGMA temp_store=MEMORY` they stay
//! in memory. Either way, blocking or async, the results are SQLite's.

use crate::async_support;
#[allow(dead_code, unsafe_code)]
use crate::sql_common;
use async_support::*;
use ringlite::io::IoContext;

// (About 60 bytes a row: 40,000 rows are past the 1.5 MB a transient
// table keeps in memory.)
const SETUP: &str = "CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c INTEGER);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i<40000)
INSERT INTO t SELECT i, printf('%05d', (i * 7919) % 40000) || printf('%.50c', '~'), i % 7 FROM n;";

// (The statement and whether SQLite's transient tables for it open a file:
// the IN lists' B-trees, past the 1.5 MB of rows, still fit in the 2000 KiB
// cache, in SQLite's and in ours, `vdbe/ephemeral_tree.rs`.)
const QUERIES: &[(&str, bool)] = &[
    ("SELECT count(*), sum(length(k)), min(k), max(k) FROM (SELECT DISTINCT b || 'x' AS k FROM t)", true),
    ("SELECT count(DISTINCT b), count(DISTINCT a % 977), count(DISTINCT c) FROM t", true),
    ("SELECT count(*), sum(a) FROM t WHERE b IN (SELECT b FROM t WHERE a % 3 <> 0)", false),
    ("SELECT a, b FROM t WHERE b || '' IN (SELECT b FROM t WHERE a % 3 <> 0) ORDER BY a DESC LIMIT 7", false),
    ("WITH m AS MATERIALIZED (SELECT a, b FROM t) SELECT count(*), max(b), sum(a) FROM m WHERE a % 2 = 0", true),
    ("SELECT count(*) FROM (SELECT b FROM t UNION SELECT b || 'u' FROM t WHERE a % 2 = 0)", true),
    ("SELECT count(*), max(b) FROM (SELECT b FROM t INTERSECT SELECT b FROM t WHERE a % 3 = 0)", true),
    ("SELECT count(*), min(b) FROM (SELECT b FROM t EXCEPT SELECT b FROM t WHERE a % 3 = 0)", true),
    ("SELECT b FROM (SELECT DISTINCT b || 'd' AS b FROM t) ORDER BY b DESC LIMIT 5 OFFSET 1000", true),
    ("WITH RECURSIVE r(x, s) AS (SELECT 1, printf('%.50c', 'r') UNION SELECT x + 1, s FROM r WHERE x < 40000) SELECT count(*), max(x) FROM r", true),
];

/// `q`'s rows on a fresh connection to "db" with `temp_store` and a
/// 50-page cache (also used by `sql_transient_tree`).
pub(crate) fn rows_of(io: &IoContext, is_async: bool, temp_store: &str, q: &str) -> Run {
    let mut c = open(io, "db", is_async);
    must(&mut c, &format!("PRAGMA temp_store={temp_store}; PRAGMA cache_size=50"));
    let r = must(&mut c, q);
    c.close().unwrap();
    r
}

/// `run`'s rows are the reference's for `q`.
pub(crate) fn assert_sqlites_rows(reference: &sql_common::RefDb, q: &str, run: &Run) {
    let want = match sql_common::run_ref(reference, q).pop() {
        Some(sql_common::Outcome::Rows { rows, .. }) => rows,
        other => panic!("reference: {other:?}"),
    };
    // The two V types have the same variants: compare their spelling.
    assert_eq!(format!("{want:?}"), format!("{:?}", run.rows), "{q}");
}

#[test]
fn big_transient_tables_spill_and_give_sqlites_results() {
    let backend = sim(7, 3);
    let io = IoContext::new(backend.clone());
    let mut w = open(&io, "db", false);
    must(&mut w, SETUP);
    w.close().unwrap();
    let reference = sql_common::RefDb::open();
    sql_common::run_ref(&reference, SETUP);

    for (i, &(q, spills)) in QUERIES.iter().enumerate() {
        let before = backend.submitted();
        let in_memory = rows_of(&io, false, "MEMORY", q);
        let memory_requests = backend.submitted() - before;
        let before = backend.submitted();
        let spilled = rows_of(&io, false, "FILE", q);
        let spill_requests = backend.submitted() - before;
        // (The same statement reads the same pages: the difference is the
        // transient file's.)
        if spills {
            assert!(spill_requests > memory_requests, "{q}: {spill_requests} requests vs {memory_requests} in memory: no spill?");
        } else {
            assert_eq!(spill_requests, memory_requests, "{q}: a file SQLite does not open");
        }
        assert_eq!(spilled.rows, in_memory.rows, "{q}");
        // On an async connection the spill's reads and writes wait inside
        // the instruction; the rows are the same. (A few queries: a debug
        // build takes its time over these tables.)
        if i < 3 {
            let spilled_async = rows_of(&io, true, "FILE", q);
            assert_eq!(spilled_async.rows, in_memory.rows, "{q} (async)");
        }
        assert_sqlites_rows(&reference, q, &spilled);
    }
}

/// Statements that change a table through a big IN list or a DISTINCT set
/// read from the same table (the transient table spills while the table
/// is written), then the table's contents: SQLite's.
#[test]
fn writes_through_spilled_transient_tables_give_sqlites_table() {
    let backend = sim(11, 2);
    let io = IoContext::new(backend);
    let reference = sql_common::RefDb::open();
    let mut c = open(&io, "db", false);
    let steps = [
        SETUP,
        "UPDATE t SET c = c + 10 WHERE b IN (SELECT b FROM t WHERE a % 4 = 0)",
        "DELETE FROM t WHERE a IN (SELECT a FROM t WHERE b LIKE '%1~%' UNION SELECT a + 1 FROM t WHERE c = 3)",
        "INSERT INTO t(b, c) SELECT DISTINCT b || 'n', 99 FROM t WHERE a % 2 = 0",
        "SELECT count(*), sum(a), sum(c), max(b), min(b) FROM t",
        "SELECT a, b, c FROM t ORDER BY b LIMIT 3 OFFSET 20000",
        "PRAGMA integrity_check",
    ];
    for s in steps {
        let ours = must(&mut c, s);
        let want = match sql_common::run_ref(&reference, s).pop() {
            Some(sql_common::Outcome::Rows { rows, .. }) => rows,
            other => panic!("reference: {other:?}"),
        };
        assert_eq!(format!("{want:?}"), format!("{:?}", ours.rows), "{s}");
    }
}
