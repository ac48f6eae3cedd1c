//! `x IN ((SELECT ...))`: SQLite's parser makes an IN list whose one item
//! is a (parenthesized) subquery the `x IN (SELECT ...)` it means, so it
//! must be that everywhere ours looks at an IN, differentially against
//! the reference SQLite 3.54.1: its result over every row of the subquery
//! (a rowid or index lookup, a virtual table's constraint, NOT IN, row
//! values), the order names are resolved in (the subquery before the left
//! side), and the expression height (the IN node stands over the
//! subquery's SELECT, one level lower than over a list item), also with a
//! lowered `SQLITE_LIMIT_EXPR_DEPTH` and in every clause the deep fuzzer
//! puts it in (fuzz cases deep-18 and deep-38). With them, two height
//! rules the towers showed: ON clauses count as ANDed onto the WHERE
//! clause for the subqueries inside them, and a row value weighs 1.
#![allow(unsafe_code)]

use crate::sql_common::LIMIT_EXPR_DEPTH;
use crate::sql_common::{check_each, ours_open, run_ours, run_ref, Outcome, RefDb};
use libsqlite3_sys as ffi;

const SETUP: &str = "CREATE TABLE t(a INTEGER PRIMARY KEY, b);
    CREATE TABLE u(x, y);
    CREATE INDEX ux ON u(x);
    INSERT INTO t VALUES(1, 'a'), (2, 'b'), (3, 'c'), (4, NULL);
    INSERT INTO u VALUES(3, 1), (1, 2), (NULL, 3), (5, 4), (3, 5);";

/// Every row of the subquery counts, not only its first (as it would for
/// a list of one scalar subquery), whatever way the IN is evaluated.
#[test]
fn an_in_over_a_parenthesized_subquery_reads_all_its_rows() {
    check_each(
        SETUP,
        &[
            "SELECT a FROM t WHERE a IN ((SELECT x FROM u)) ORDER BY a",
            "SELECT a FROM t WHERE a IN (((SELECT x FROM u))) ORDER BY a",
            "SELECT a FROM t WHERE a NOT IN ((SELECT x FROM u WHERE x IS NOT NULL)) ORDER BY a",
            "SELECT x, y FROM u WHERE x IN ((SELECT a FROM t WHERE a > 1)) ORDER BY y",
            "SELECT x, y FROM u WHERE x IN ((SELECT a FROM t)) AND y > 1 ORDER BY y",
            "SELECT a, a IN ((SELECT x FROM u)), a NOT IN ((SELECT x FROM u)), a IN ((SELECT x FROM u WHERE x > 9)) FROM t ORDER BY a",
            "SELECT (a, b) IN ((SELECT y, 'a' FROM u)), (a, 'b') IN (((SELECT x - 1, 'b' FROM u))) FROM t ORDER BY a",
            "SELECT a FROM t WHERE b IN ((SELECT b FROM t AS t2 WHERE t2.a = t.a)) ORDER BY a",
            "SELECT t.a, u.y FROM t LEFT JOIN u ON u.x = t.a WHERE u.y IN ((SELECT 1 UNION SELECT 5)) ORDER BY 1, 2",
            "SELECT 2 IN ((SELECT a FROM t)), 1 IN ((SELECT 1 UNION SELECT 2)), 3 IN ((SELECT 1), 3), 5 IN ((VALUES(4), (5)))",
            "SELECT a FROM t WHERE a IN ((SELECT x, y FROM u))",
            "SELECT a FROM t WHERE (a, b) IN ((SELECT x FROM u))",
            // A virtual table offered the term as an IN constraint.
            "SELECT value FROM json_each('[1, 2, 3, 4, 5]') WHERE value IN ((SELECT x FROM u)) ORDER BY value",
            "SELECT key FROM json_each('{\"a\": 1, \"b\": 2, \"c\": 3}') WHERE key IN (((SELECT b FROM t))) ORDER BY key",
            "SELECT name FROM pragma_table_info('u') WHERE name IN ((SELECT 'x' UNION SELECT 'y')) ORDER BY name",
            // In DML.
            "UPDATE u SET y = y + 10 WHERE x IN ((SELECT a FROM t WHERE a < 4)); SELECT * FROM u ORDER BY y",
            "DELETE FROM t WHERE a IN ((SELECT x FROM u)); SELECT * FROM t ORDER BY a",
        ],
    );
}

/// The subquery's names are resolved before the left side's, as for
/// `x IN (SELECT ...)`; the first error met is the one reported.
#[test]
fn names_are_resolved_subquery_first() {
    check_each(
        SETUP,
        &[
            "SELECT nosuch1 IN ((SELECT nosuch2))",
            "SELECT nosuch1 IN (((SELECT nosuch2)))",
            "SELECT nosuch1 NOT IN ((SELECT nosuch2 FROM u))",
            "SELECT nosuch1 IN ((SELECT x FROM u))",
            "SELECT x IN ((SELECT nosuch2)) FROM u",
            "SELECT a FROM t WHERE nosuch1 IN ((SELECT nosuch2 FROM u))",
            "SELECT abs(nosuch1 IN ((SELECT nosuch2))) + nosuch3",
            "SELECT nosuch0, nosuch1 IN ((SELECT nosuch2))",
            "SELECT nosuch1 IN ((SELECT 1), (SELECT nosuch2))",
            "UPDATE u SET y = nosuch1 IN ((SELECT nosuch2))",
            "SELECT a FROM t ORDER BY nosuch1 IN ((SELECT nosuch2))",
            "SELECT 1 IN ((SELECT nosuch2 FROM nosuchtable))",
        ],
    );
}

/// `SELECT <e>` on both engines with the expression depth limit at
/// `depth`: the same rows or the same error.
fn same_at_depth(depth: i32, setup: &str, sql: &str) -> Vec<Outcome> {
    let mut ours = ours_open();
    let reference = RefDb::open();
    assert_eq!(run_ours(&mut ours, setup), run_ref(&reference, setup), "setup");
    assert_eq!(ours.limit(LIMIT_EXPR_DEPTH, depth), unsafe { ffi::sqlite3_limit(reference.0, LIMIT_EXPR_DEPTH, depth) });
    let (a, b) = (run_ours(&mut ours, sql), run_ref(&reference, sql));
    assert_eq!(a, b, "\nlimit {depth}, SQL ({} bytes): {}", sql.len(), sql.chars().take(300).collect::<String>());
    a
}

/// Towers of `l IN ((...))` around each other: heights as SQLite counts
/// them, at and past a lowered limit and at the default one.
#[test]
fn heights_count_the_in_over_the_select() {
    let forms: [(&str, &str); 7] = [
        ("1 IN ((SELECT ", "))"),
        ("1 NOT IN ((SELECT ", "))"),
        ("1 IN (((SELECT ", ")))"),
        ("a IN ((SELECT ", "))"),
        ("-(1 IN ((SELECT ", ")))"),
        ("(1, 2) IN ((SELECT 1, 1 IN ((SELECT ", "))))"),
        ("(1, 2) IN ((SELECT 1, ", "))"),
    ];
    for (open, close) in forms {
        for levels in 1..9 {
            let e = format!("{}1{}", open.repeat(levels), close.repeat(levels));
            for depth in [4, 7, 10, 13] {
                same_at_depth(depth, "CREATE TABLE t(a, b, c); INSERT INTO t VALUES(1, 2, 3)", &format!("SELECT {e}"));
                same_at_depth(depth, "CREATE TABLE t(a, b, c); INSERT INTO t VALUES(1, 2, 3)", &format!("SELECT a FROM t WHERE {e}"));
            }
        }
        // Past the default limit of 1000 (the subqueries nest 250 deep).
        for levels in [240, 330, 500] {
            let e = format!("{}1{}", open.repeat(levels), close.repeat(levels));
            same_at_depth(1000, "CREATE TABLE t(a, b, c)", &format!("SELECT {e}"));
        }
    }
}

/// The deep fuzzer's form `l IN (<e>)` with `<e>` a scalar subquery, in
/// the clauses it uses (fuzz cases deep-18 and deep-38 were such towers
/// mixed with other wrappers).
#[test]
fn towers_in_every_clause() {
    let setup = "CREATE TABLE t(a, b, c); INSERT INTO t VALUES(1, 'x', 2), (2, 'y', 3)";
    let wrappers: [(&str, &str); 5] =
        [("'a' IN ((SELECT ", "))"), ("abs(", ")"), ("(SELECT max(", ") FROM t)"), ("b IN ((SELECT ", "))"), ("CASE WHEN 1 THEN ", " END")];
    for levels in [3usize, 12, 40, 90] {
        let mut e = "c".to_string();
        for i in 0..levels {
            let (o, c) = wrappers[(i * 7 + levels) % wrappers.len()];
            e = format!("{o}{e}{c}");
        }
        for depth in [12, 30, 1000] {
            for sql in [
                format!("SELECT {e} FROM t"),
                format!("SELECT a FROM t WHERE {e}"),
                format!("SELECT a FROM t ORDER BY {e}"),
                format!("SELECT t.a FROM t JOIN t AS u ON {e}"),
                format!("SELECT t.a FROM t JOIN t AS u ON u.a = t.a WHERE {e}"),
                format!("SELECT t.a FROM t JOIN t AS u ON {e} WHERE t.a > 0"),
                format!("SELECT t.a FROM t JOIN t AS u ON {e} JOIN t AS v ON v.a = u.a"),
                format!("WITH w(x) AS (SELECT {e} FROM t) SELECT x FROM w"),
            ] {
                same_at_depth(depth, setup, &sql);
            }
        }
    }
}

/// A row value is a node of height 1 whatever its fields hold (SQLite's
/// parser gives it no height of its own; each field was checked as it was
/// built), also inside nested subqueries and ON clauses.
#[test]
fn row_values_weigh_one() {
    let setup = "CREATE TABLE t(a, b, c); INSERT INTO t VALUES(1, 'x', 2), (2, 'y', 3)";
    for depth in [3, 5, 7] {
        for sql in [
            "SELECT (1, 2) IN (SELECT 1, (1, 2) IN (SELECT 1, 1))",
            "SELECT (1, 2) IN (SELECT 1, (1, 2) IN (SELECT 1, (1, 2) IN (SELECT 1, 1)))",
            "SELECT (1, 1+1+1+1+1+1) = (1, 2)",
            "SELECT (1, 1+1+1+1+1+1+1+1) = (1, 2)",
            "SELECT (1, (1, 1+1+1+1+1+1) = (1, 2)) = (1, 2)",
            "SELECT 1 WHERE (1, (1, (SELECT 1+1+1+1+1) ) = (1, 2)) = (1, 2)",
            "SELECT 1 WHERE (1, (1, (SELECT 1+1+1+1+1+1) ) = (1, 2)) = (1, 2)",
            "SELECT (SELECT (1, (SELECT 1+1+1+1) ) = (1, 2))",
            "SELECT a FROM t WHERE (a, b) IN (SELECT a, b FROM t WHERE (a, (SELECT c)) = (1, 2))",
            "SELECT t.a FROM t JOIN t AS u ON (u.a, (SELECT 1+1+1)) = (t.a, 3)",
            "SELECT CASE (1, 2) WHEN (1, 2) THEN 1 END",
            "SELECT ((1, 1+1+1) = (1, 2)) + 1",
        ] {
            same_at_depth(depth, setup, sql);
        }
    }
}
