//! Sorting more rows than the page cache holds spills sorted runs to a
//! temporary file and merges them back; on an async connection every spill
//! write and merge read suspends the statement like a page read. Results
//! (including the order of ties) equal the in-memory sort's and real
//! SQLite's.

use crate::async_support;
#[allow(dead_code, unsafe_code)]
use crate::sql_common;
use async_support::*;
use ringlite::io::IoContext;

// (512-byte pages: a sorter keeps at least 250 pages of rows in memory,
// as SQLite's does, so the small records of the last queries need small
// pages to spill.)
const SETUP: &str = "PRAGMA page_size=512; CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c INTEGER);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i<9000)
INSERT INTO t SELECT i, printf('%04d', (i * 7919) % 1000) || printf('%.80c', '~'), i % 7 FROM n;";

const QUERIES: &[&str] = &[
    "SELECT b, a FROM t ORDER BY b",
    "SELECT c, b, a FROM t ORDER BY c DESC, b",
    "SELECT substr(b, 1, 3) AS k, count(*), sum(a) FROM t GROUP BY k ORDER BY k",
    "SELECT DISTINCT b FROM t ORDER BY b DESC",
    "SELECT a, c FROM t ORDER BY c, a DESC",
];

fn sorted_rows(io: &IoContext, is_async: bool, cache: &str, q: &str) -> Run {
    let mut c = open(io, "db", is_async);
    must(&mut c, &format!("PRAGMA cache_size={cache}"));
    let r = must(&mut c, q);
    c.close().unwrap();
    r
}

#[test]
fn big_sorts_spill_suspend_and_match_the_in_memory_sort() {
    let backend = sim(5, 3);
    let io = IoContext::new(backend.clone());
    let mut w = open(&io, "db", false);
    must(&mut w, SETUP);
    w.close().unwrap();
    let reference = sql_common::RefDb::open();
    sql_common::run_ref(&reference, SETUP);

    for q in QUERIES {
        // A 100 MB budget: no spill.
        let in_memory = sorted_rows(&io, false, "-100000", q);
        let before = backend.submitted();
        let spilled = sorted_rows(&io, true, "16", q);
        let spill_requests = backend.submitted() - before;
        let before = backend.submitted();
        // (A scan reading the same pages the same way, read-ahead
        // included, without the sort.)
        let _scan = sorted_rows(&io, true, "16", "SELECT sum(length(b)) FROM t");
        let scan_requests = backend.submitted() - before;
        assert!(spill_requests > scan_requests, "{q}: {spill_requests} requests vs {scan_requests} for a scan: no spill?");
        // The statement suspended, and its spill went through the async
        // backend (the request count above). Comparing suspension counts
        // with the plain scan's no longer shows the spill's own: since
        // scans read ahead, a scan's suspensions vary with the order
        // completions arrive in by more than a spill adds (73 against 78
        // in one run).
        assert!(spilled.ios > 0, "{q}");
        assert_eq!(spilled.rows, in_memory.rows, "{q}");
        // And both are SQLite's answer.
        let want = match sql_common::run_ref(&reference, q).pop() {
            Some(sql_common::Outcome::Rows { rows, .. }) => rows,
            other => panic!("reference: {other:?}"),
        };
        // The two V types have the same variants: compare their spelling.
        assert_eq!(format!("{want:?}"), format!("{:?}", spilled.rows), "{q}");
    }
}

/// ORDER BY ... LIMIT keeps only LIMIT + OFFSET rows in the sorter (cut
/// back as rows arrive): the rows and their order, ties included, are
/// SQLite's, spilled or not, through every statement form that sorts its
/// output (plain, DISTINCT, aggregate, compound, window).
#[test]
fn limited_sorts_keep_the_first_rows_of_the_full_sort() {
    const LIMITED: &[&str] = &[
        "SELECT b, a FROM t ORDER BY b LIMIT 25",
        "SELECT c, b, a FROM t ORDER BY c DESC, b LIMIT 40 OFFSET 3000",
        "SELECT a, c FROM t ORDER BY c LIMIT 1",
        "SELECT a, c FROM t ORDER BY c DESC LIMIT 2 OFFSET 1",
        "SELECT a, b FROM t ORDER BY c LIMIT 5000",
        "SELECT a FROM t ORDER BY c, b LIMIT 7 OFFSET -3",
        "SELECT a FROM t ORDER BY b DESC LIMIT -1 OFFSET 5990",
        "SELECT a FROM t ORDER BY b LIMIT 0",
        "SELECT a FROM t WHERE c = 3 ORDER BY b LIMIT 3, 4",
        "SELECT DISTINCT c FROM t ORDER BY c DESC LIMIT 3",
        "SELECT c, count(*), max(b) FROM t GROUP BY c ORDER BY 2 DESC, 1 LIMIT 2",
        "SELECT a FROM t WHERE a < 100 UNION ALL SELECT a FROM t WHERE a > 5900 ORDER BY 1 DESC LIMIT 5",
        "SELECT a, sum(c) OVER (ORDER BY a) FROM t ORDER BY c, a DESC LIMIT 4",
        "SELECT a, b FROM t ORDER BY substr(b, 2, 2), a DESC LIMIT 30",
    ];
    let backend = sim(5, 3);
    let io = IoContext::new(backend.clone());
    let mut w = open(&io, "db", false);
    must(&mut w, SETUP);
    w.close().unwrap();
    let reference = sql_common::RefDb::open();
    sql_common::run_ref(&reference, SETUP);
    for q in LIMITED {
        let want = match sql_common::run_ref(&reference, q).pop() {
            Some(sql_common::Outcome::Rows { rows, .. }) => rows,
            other => panic!("reference: {other:?}"),
        };
        for (is_async, cache) in [(false, "-100000"), (true, "16")] {
            let got = sorted_rows(&io, is_async, cache, q);
            assert_eq!(format!("{want:?}"), format!("{:?}", got.rows), "{q} (cache_size {cache})");
        }
    }
}
