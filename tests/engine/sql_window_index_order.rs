//! A window's sort served by the loops: when an index gives the rows in
//! the order of the window computed first (PARTITION BY, then ORDER BY),
//! no sort is made for it, and a window with the same keys as the one
//! computed before it sorts nothing either (SQLite 3.54.1's plan shows one
//! `USE TEMP B-TREE FOR ORDER BY` per other window). Rows and their order
//! must be SQLite's, including over an index whose collation orders
//! differently from BINARY and with frames that depend on the order.
use crate::sql_common::{check_each, ours_open, run_ours, run_ref, RefDb};

const SETUP: &str = "CREATE TABLE t5(a, b, c, d TEXT COLLATE nocase);
CREATE INDEX t5ab ON t5(a, b);
CREATE INDEX t5d ON t5(d);
INSERT INTO t5 VALUES(1, 2, 3, 'b'), (2, 1, 4, 'B'), (1, 1, 5, 'a'), (3, 3, 6, 'C'), (2, 2, 7, 'c'), (1, 3, 8, 'A'), (3, 1, 9, 'd');";

const QUERIES: &[&str] = &[
    "SELECT a, b, sum(c) OVER (ORDER BY a, b) FROM t5",
    "SELECT a, b, sum(c) OVER (PARTITION BY a ORDER BY b) FROM t5",
    "SELECT a, b, sum(c) OVER (ORDER BY a, b), sum(c) OVER (PARTITION BY a ORDER BY b) FROM t5",
    "SELECT a, b, sum(c) OVER (ORDER BY b, a), sum(c) OVER (PARTITION BY b ORDER BY a) FROM t5",
    "SELECT a, b, sum(c) OVER (ORDER BY b), sum(c) OVER (ORDER BY a) FROM t5",
    "SELECT a, b, sum(c) OVER (ORDER BY a DESC, b DESC) FROM t5",
    "SELECT a, b, group_concat(c, ',') OVER (ORDER BY a ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM t5",
    "SELECT a, b, row_number() OVER (ORDER BY a), rank() OVER (ORDER BY a) FROM t5 WHERE a > 1",
    "SELECT d, group_concat(c, ',') OVER (ORDER BY d) FROM t5",
    "SELECT d, group_concat(c, ',') OVER (ORDER BY d RANGE BETWEEN 1 PRECEDING AND 2 PRECEDING) FROM t5",
    "SELECT d, count(*) OVER (PARTITION BY d) FROM t5",
    "SELECT d, group_concat(c, ',') OVER (ORDER BY d COLLATE binary) FROM t5",
    "SELECT a, sum(c) OVER () FROM t5",
    "SELECT a, b, sum(c) OVER (ORDER BY a, b) FROM t5 ORDER BY c",
];

#[test]
fn window_rows_match_sqlite_with_index_orders() {
    check_each(SETUP, QUERIES);
}

/// The number of sorts the plan shows: SQLite's for each query.
#[test]
fn window_sorts_shown_as_sqlite_shows_them() {
    let mut ours = ours_open();
    let reference = RefDb::open();
    run_ours(&mut ours, SETUP);
    run_ref(&reference, SETUP);
    for q in QUERIES {
        let sql = format!("EXPLAIN QUERY PLAN {q}");
        let count = |o: Vec<crate::sql_common::Outcome>| format!("{o:?}").matches("USE TEMP B-TREE FOR ORDER BY").count();
        assert_eq!(count(run_ours(&mut ours, &sql)), count(run_ref(&reference, &sql)), "sorts in the plan of {q}");
    }
}
