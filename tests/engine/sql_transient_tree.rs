//! Keyed transient tables (DISTINCT sets, IN lists, GROUP BY and
//! count(DISTINCT) sets, a recursive CTE's ordered queue and UNION set,
//! UNION/EXCEPT/INTERSECT sets) that outgrow SQLite's transient cache move
//! into a B-tree of their own on a temporary pager (`vdbe/ephemeral_tree.rs`)
//! whose cache spills to a transient file. Across that boundary (rows
//! before and after the move, probes, deletes, walks both ways, collations,
//! mixed types) the results are SQLite's.

use crate::async_support;
#[allow(dead_code, unsafe_code)]
use crate::sql_common;
use crate::sql_transient_spill::{assert_sqlites_rows, rows_of};
use async_support::*;
use ringlite::io::IoContext;

// (About 60 bytes a key: 40,000 keys are past the 1.5 MB a transient
// table keeps in memory, and past the tree's 2000 KiB cache.)
const SETUP: &str = "CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c INTEGER);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i<40000)
INSERT INTO t SELECT i, printf('%05d', (i * 7919) % 40000) || printf('%.50c', '~'), i % 7 FROM n;";

const QUERIES: &[&str] = &[
    // DISTINCT under a collation, and of mixed types.
    "SELECT count(*), min(k), max(k) FROM (SELECT DISTINCT CASE WHEN a % 2 THEN upper(b) ELSE b END COLLATE NOCASE AS k FROM t)",
    "SELECT count(*), typeof(min(k)), max(k), sum(typeof(k) = 'blob') FROM
       (SELECT DISTINCT CASE a % 4 WHEN 0 THEN a WHEN 1 THEN b WHEN 2 THEN CAST(b AS BLOB) ELSE a * 1.5 END AS k FROM t)",
    // A DISTINCT set read back in order, both ways.
    "SELECT k FROM (SELECT DISTINCT b || 'q' AS k FROM t) ORDER BY k DESC LIMIT 3",
    "SELECT count(DISTINCT b), count(DISTINCT b || c), count(DISTINCT substr(b, 1, 3)) FROM t",
    // GROUP BY through the sorter, and count(DISTINCT) sets per group.
    "SELECT k, count(*), max(a) FROM (SELECT substr(b, 1, 4) AS k, a FROM t) GROUP BY k ORDER BY 2 DESC, 1 LIMIT 5",
    "SELECT c, count(DISTINCT b || (a % 5)) FROM t GROUP BY c ORDER BY c",
    // IN lists: two columns, and NOT IN with a NULL among the values.
    "SELECT count(*), sum(a) FROM t WHERE (b, c) IN (SELECT b, c FROM t WHERE a % 5 <> 0)",
    "SELECT count(*) FROM t WHERE b || 'z' NOT IN (SELECT CASE WHEN a = 77 THEN NULL ELSE b || 'z' END FROM t WHERE a % 3 = 0)",
    "SELECT count(*) FROM t WHERE b || 'z' NOT IN (SELECT b || 'z' FROM t WHERE a % 3 = 0)",
    // A recursive CTE: its ordered queue (entries deleted as they are
    // taken) and its UNION set.
    "WITH RECURSIVE r(x, s) AS (SELECT 1, printf('%.50c', 'p') UNION ALL
       SELECT x * 2 + y, s FROM r, (SELECT 0 AS y UNION ALL SELECT 1) WHERE x < 40000 ORDER BY 1)
     SELECT count(*), sum(x), max(x), (SELECT group_concat(x) FROM (SELECT x FROM r LIMIT 8 OFFSET 50000)) FROM r",
    "WITH RECURSIVE r(x, s) AS (SELECT 1, printf('%.50c', 'u') UNION SELECT (x * 3) % 40009, s FROM r WHERE x < 40008) SELECT count(*), sum(x) FROM r",
    // Compound sets: EXCEPT deletes from the set, INTERSECT probes it.
    "SELECT count(*), max(k), min(k) FROM (SELECT b AS k FROM t EXCEPT SELECT b FROM t WHERE a % 5 = 0 UNION SELECT b || 'e' FROM t WHERE c = 1)",
    "SELECT count(*) FROM (SELECT b FROM t INTERSECT SELECT b FROM t WHERE a % 3 = 0 EXCEPT SELECT b FROM t WHERE c = 2)",
    "SELECT b FROM t UNION SELECT b || 'v' FROM t ORDER BY 1 DESC LIMIT 3",
];

#[test]
fn keyed_transient_tables_in_a_btree_give_sqlites_results() {
    let backend = sim(5, 3);
    let io = IoContext::new(backend.clone());
    let mut w = open(&io, "db", false);
    must(&mut w, SETUP);
    w.close().unwrap();
    let reference = sql_common::RefDb::open();
    sql_common::run_ref(&reference, SETUP);

    for (i, q) in QUERIES.iter().enumerate() {
        let spilled = rows_of(&io, false, "FILE", q);
        // (Kept in memory and on an async connection, a few queries: a
        // debug build takes its time over these tables.)
        if i < 2 {
            let in_memory = rows_of(&io, false, "MEMORY", q);
            assert_eq!(spilled.rows, in_memory.rows, "{q}");
            let spilled_async = rows_of(&io, true, "FILE", q);
            assert_eq!(spilled_async.rows, in_memory.rows, "{q} (async)");
        }
        assert_sqlites_rows(&reference, q, &spilled);
    }
}

/// A big DISTINCT set's tree outgrows its 2000 KiB cache: its pager writes
/// pages to the transient file and reads them back (more requests than the
/// same statement kept in memory), with the rows unchanged.
#[test]
fn a_keyed_transient_tree_spills_its_pages() {
    let backend = sim(9, 2);
    let io = IoContext::new(backend.clone());
    let mut w = open(&io, "db", false);
    must(&mut w, SETUP);
    w.close().unwrap();
    let q = "SELECT count(*), max(k) FROM (SELECT DISTINCT b || (a % 3) AS k FROM t)";
    let before = backend.submitted();
    let in_memory = rows_of(&io, false, "MEMORY", q);
    let memory_requests = backend.submitted() - before;
    let before = backend.submitted();
    let spilled = rows_of(&io, false, "FILE", q);
    let spill_requests = backend.submitted() - before;
    assert!(spill_requests > memory_requests, "{spill_requests} requests vs {memory_requests} in memory: no spill?");
    assert_eq!(spilled.rows, in_memory.rows);
}
