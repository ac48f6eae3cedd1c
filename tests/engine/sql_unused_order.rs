//! ORDER BY clauses SQLite resolves but never codes, differentially
//! against the reference SQLite 3.54.1: an EXISTS test's (whatever its
//! SELECT holds: GROUP BY, aggregates, DISTINCT, windows, LIMIT) and an
//! aggregate query's without GROUP BY. The resolver's errors there stand
//! (no such column, table or function, wrong number of arguments, a
//! window function misused); the code generator's do not (an aggregate
//! of an enclosing query, a subquery or row value of the wrong width).
//! Where the ORDER BY is coded (a scalar subquery, IN) they all stand.

use crate::sql_common::{ours_open, run_ours, run_ref, RefDb};

const SETUP: &str = "CREATE TABLE t1(a, b); CREATE TABLE t2(x, y); INSERT INTO t1 VALUES(1, 2), (5, 6); INSERT INTO t2 VALUES(3, 4);";

const QUERIES: &[&str] = &[
    "SELECT 1 FROM t1 WHERE EXISTS (SELECT x FROM t2 ORDER BY %)",
    "SELECT 1 FROM t1 WHERE EXISTS (SELECT count(*) FROM t2 ORDER BY %)",
    "SELECT 1 FROM t1 WHERE EXISTS (SELECT x FROM t2 GROUP BY x ORDER BY %)",
    "SELECT 1 FROM t1 WHERE EXISTS (SELECT x FROM t2 ORDER BY % LIMIT 1)",
    "SELECT 1 FROM t1 WHERE EXISTS (SELECT x FROM t2 ORDER BY % LIMIT 0)",
    "SELECT 1 FROM t1 WHERE NOT EXISTS (SELECT DISTINCT x FROM t2 ORDER BY %)",
    "SELECT 1 FROM t1 WHERE EXISTS (SELECT count(*) OVER () FROM t2 ORDER BY %)",
    "SELECT 1 FROM t1 LEFT JOIN t2 ON EXISTS (SELECT count(*) FROM t2 AS z ORDER BY %)",
    "SELECT count(*) FROM t1 WHERE EXISTS (SELECT x FROM t2 ORDER BY %)",
    "SELECT (SELECT count(*) FROM t2 ORDER BY %) FROM t1",
    "SELECT (SELECT count(*) FROM t2 ORDER BY % LIMIT 1) FROM t1",
    "SELECT (SELECT x FROM t2 ORDER BY %) FROM t1",
    "SELECT 1 FROM t1 WHERE (SELECT count(*) FROM t2 ORDER BY %)",
    "SELECT 1 FROM t1 WHERE a IN (SELECT x FROM t2 ORDER BY %)",
    "SELECT 1 FROM t1 WHERE a IN (SELECT count(*) FROM t2 ORDER BY %)",
    "SELECT count(*) FROM t2 ORDER BY %",
    "SELECT * FROM (SELECT x FROM t2 ORDER BY %)",
];

const TERMS: &[&str] = &[
    "nosuch",
    "t2.nosuch",
    "abs(1, 2)",
    "nofunc(1)",
    "row_number()",
    "count(*) OVER ()",
    "(SELECT nosuch)",
    "(SELECT 1 FROM nosuchtab)",
    "(SELECT 1, 2)",
    "(SELECT x FROM t2 ORDER BY (SELECT 1, 2))",
    "(1, 2)",
    "min(t1.a)",
    "1 + min(t1.a)",
    "typeof(min(t1.a))",
    "count(*)",
    "count(nosuch)",
    "3",
    "x COLLATE nocase",
];

#[test]
fn unused_order_by_reports_only_the_resolvers_errors() {
    let mut ours = ours_open();
    let reference = RefDb::open();
    assert_eq!(run_ours(&mut ours, SETUP), run_ref(&reference, SETUP));
    for q in QUERIES {
        for t in TERMS {
            let sql = q.replace('%', t);
            assert_eq!(run_ours(&mut ours, &sql), run_ref(&reference, &sql), "SQL: {sql}");
        }
    }
}

/// The fuzzer's cases (seeds 137 and 182), shrunk.
#[test]
fn fuzz_found_exists_order_by_of_outer_aggregates() {
    let mut ours = ours_open();
    let reference = RefDb::open();
    let setup = "CREATE TABLE t1(c0 BLOB COLLATE BINARY, c1, c2 BLOB, c3 VARCHAR(5)); CREATE TABLE t2(c0 NUMERIC, c1 BLOB, c2 COLLATE RTRIM); INSERT INTO t1 VALUES(1, 2, 3, 'x'); INSERT INTO t2 VALUES(1, 2, 3);";
    assert_eq!(run_ours(&mut ours, setup), run_ref(&reference, setup));
    for sql in [
        "SELECT NULL FROM t1 AS a0_0 LEFT JOIN t2 AS a0_1 ON (EXISTS (SELECT min((a0_0.c3 COLLATE BINARY)), count(*) FROM t2 AS a1_0 ORDER BY (min((a0_0.c3 COLLATE BINARY)) COLLATE BINARY) DESC NULLS LAST, typeof(min((a0_0.c3 COLLATE BINARY))), (count(*) COLLATE BINARY) NULLS LAST, typeof(count(*)) LIMIT 4))",
        "SELECT NULL FROM t1 AS a0_0 CROSS JOIN t1 AS a0_1 WHERE (EXISTS (SELECT (a1_0.c0 COLLATE BINARY), total((a0_1.c0 COLLATE BINARY)) FROM t1 AS a1_0 GROUP BY (a1_0.c0 COLLATE BINARY) ORDER BY ((a1_0.c0 COLLATE BINARY) COLLATE BINARY) DESC NULLS LAST, (total((a0_1.c0 COLLATE BINARY)) COLLATE BINARY) DESC, typeof(total((a0_0.c0 COLLATE BINARY))) LIMIT 0 OFFSET 2))",
    ] {
        assert_eq!(run_ours(&mut ours, sql), run_ref(&reference, sql), "SQL: {sql}");
    }
}
