//! Of two errors in one statement, the one SQLite names: its resolver's
//! walk (`sql/codegen/query/name_order.rs`) compared with the reference
//! SQLite 3.54.1, message and code, class by class as the deep fuzzer
//! found them (`compat-tests/fuzz-runs.md`).

#![allow(unsafe_code)]

use crate::sql_common::{check_each, ours_open, run_ours, run_ref, RefDb, LIMIT_EXPR_DEPTH};
use libsqlite3_sys as ffi;

const SETUP: &str = "CREATE TABLE t(a INTEGER, b TEXT, c REAL); CREATE TABLE u(a, b, d);";

/// `x IS NULL` walks its operand as a call walks its arguments (the walk
/// goes on past it), and `x IS name` resolves the name before `x`.
#[test]
fn is_null_and_is_name_in_resolver_order() {
    check_each(
        SETUP,
        &[
            "SELECT a IS c IS c",
            "SELECT x1 IS x2 FROM t",
            "SELECT x1 IS NOT x2 FROM t",
            "SELECT x1 IS x2 COLLATE nocase FROM t",
            "SELECT x1 IS (x2) FROM t",
            "SELECT x1 IS NOT likely(x2) FROM t",
            "SELECT x1 IS t.x2 FROM t",
            "SELECT x1 IS NOT DISTINCT FROM x2 FROM t",
            "SELECT x1 IS true, x1 IS NOT false FROM t",
            "SELECT abs(x1) + (a IS x2) FROM t",
            "SELECT abs(x1) + (a IS b) FROM t",
            "SELECT abs(x1) + (x3 IS b) FROM t",
            "SELECT (x1 IS NULL) + x2 FROM t",
            "SELECT (x1 IS (NULL)) + x2 FROM t",
            "SELECT (x1 IS NULL COLLATE binary) + x2 FROM t",
            "SELECT (x1 NOTNULL) + x2 FROM t",
            "SELECT (x1 ISNULL) + x2 FROM t",
            "SELECT (x1 NOT NULL) + x2 FROM t",
            "SELECT (x1 IS NOT NULL) + (x2 + x3) FROM t",
            "SELECT (x1 IS NOT NULL) + (x2 IS NULL) FROM t",
            "SELECT coalesce((b) IS NULL, x2)",
            "SELECT a FROM t WHERE (x1 + 1) IS NULL AND x2",
            "SELECT a FROM t WHERE x1 IS NULL AND x2 = 1",
        ],
    );
}

/// The ON clauses are ANDed onto the WHERE clause before names are
/// resolved: one walk, in join order, after the result list and HAVING.
#[test]
fn on_clauses_resolve_with_the_where_clause() {
    check_each(
        SETUP,
        &[
            "SELECT t.a FROM t JOIN t AS v ON abs(a) OR b",
            "SELECT t.a FROM t JOIN t AS v ON nullif(CASE coalesce(ifnull(a, 0), 1) OR b WHEN 1 THEN 2 END, 3)",
            "SELECT t.a FROM t JOIN u ON x1 WHERE x2",
            "SELECT t.a FROM t JOIN u ON x1 JOIN t AS v ON x2",
            "SELECT t.a FROM t JOIN u ON x1 JOIN t AS v ON x2 WHERE x3",
            "SELECT t.a FROM t JOIN u ON x1 WHERE abs(x2)",
            "SELECT t.a FROM t LEFT JOIN u ON x1 WHERE abs(x2)",
            "SELECT t.a FROM t JOIN u ON abs(x1) JOIN t AS v ON x2",
            "SELECT x3 FROM t JOIN u ON x1 WHERE x2",
            "SELECT t.a FROM t JOIN u ON u.d = t.a WHERE abs(x2)",
            "SELECT t.a FROM t JOIN u USING (a) JOIN t AS v ON x2 WHERE abs(x1)",
            "SELECT t.a FROM t NATURAL JOIN u JOIN t AS v ON x2 WHERE abs(x1)",
        ],
    );
}

/// An ambiguous name fails where the walk meets it, as an unknown one:
/// a later name can replace it.
#[test]
fn ambiguous_names_in_resolver_order() {
    check_each(
        SETUP,
        &[
            "SELECT abs(a) + b FROM t, u",
            "SELECT abs(a) + x1 FROM t, u",
            "SELECT abs(x1) + b FROM t, u",
            "SELECT a + x1 FROM t, u",
            "SELECT coalesce(a, x1) FROM t, u",
            "SELECT t.a FROM t, u WHERE abs(a) OR b",
            "SELECT t.a FROM t, u WHERE abs(a) OR d",
            "SELECT t.a FROM t, u GROUP BY abs(a) HAVING b",
            "SELECT t.a FROM t, u ORDER BY abs(a) + b",
        ],
    );
}

/// A table's CHECK constraints and generated columns are walked as any
/// expression: a subquery or parameter fails where it stands, a call's
/// arguments are walked whatever their outcome.
#[test]
fn check_constraints_and_generated_columns_in_resolver_order() {
    check_each(
        SETUP,
        &[
            "CREATE TABLE k1(x CHECK(coalesce((SELECT 1), t.a)))",
            "CREATE TABLE k2(x CHECK(coalesce(abs((SELECT 1)), y)))",
            "CREATE TABLE k3(x CHECK(coalesce(y, (SELECT 1))))",
            "CREATE TABLE k4(x CHECK((SELECT 1) + y))",
            "CREATE TABLE k5(x CHECK(coalesce(ifnull(y IN (1, z), 0), w)))",
            "CREATE TABLE k6(x CHECK(coalesce(nosuchfn(y), x)))",
            "CREATE TABLE k7(x CHECK(coalesce(nosuchfn(x), y)))",
            "CREATE TABLE k8(x CHECK(coalesce(?1, y)))",
            "CREATE TABLE k9(x CHECK(abs(y) + ?1))",
            "CREATE TABLE k10(x CHECK((y IS NULL) + z))",
            "CREATE TABLE k11(x, g AS (coalesce(random(), y)))",
            "CREATE TABLE k12(x, g AS (coalesce(abs(y), current_time)))",
            "CREATE TABLE k13(x, g AS (coalesce(abs(y), (SELECT 1))))",
        ],
    );
}

/// A window function looks up the window it names once its arguments
/// resolved (its lists are walked all the same); a FILTER clause is
/// walked after them, and only for an aggregate.
#[test]
fn named_windows_and_filter_clauses_in_resolver_order() {
    check_each(
        SETUP,
        &[
            "SELECT max(a) OVER w, x1 FROM t",
            "SELECT max(a) OVER w, x1 FROM t WINDOW v AS ()",
            "SELECT max(x1) OVER w FROM t",
            "SELECT x1, max(a) OVER w FROM t",
            "SELECT max(a) OVER (w ORDER BY x1) FROM t",
            "SELECT max(a) OVER (w ORDER BY b) FROM t WINDOW v AS ()",
            "SELECT count(*) FILTER (WHERE x1) OVER w FROM t",
            "SELECT max(a) OVER w FROM t WINDOW w AS (PARTITION BY x2), v AS (ORDER BY x3)",
            "SELECT abs(a) FILTER (WHERE x1), x2 FROM t",
            "SELECT abs(x2) FILTER (WHERE x1) FROM t",
            "SELECT count(*) FILTER (WHERE x1) OVER (PARTITION BY x2) FROM t",
            "SELECT sum(x2) FILTER (WHERE x1) OVER (PARTITION BY x3) FROM t",
            "SELECT sum(a) FILTER (WHERE x1) OVER (PARTITION BY x3) FROM t",
            "SELECT sum(a) FILTER (WHERE x1), x2 FROM t",
            "SELECT coalesce(sum(a) FILTER (WHERE x1), x2) FROM t",
        ],
    );
}

/// The height of nested subqueries, SQLite's resolver's check, fails as
/// the walk enters the expression past the limit: a name met before it,
/// in the subquery's own walk, is named instead.
#[test]
fn the_running_height_fails_where_the_walk_enters_it() {
    let mut ours = ours_open();
    let reference = RefDb::open();
    assert_eq!(run_ours(&mut ours, SETUP), run_ref(&reference, SETUP));
    ours.limit(LIMIT_EXPR_DEPTH, 12);
    // SAFETY: the reference connection is open for the whole test.
    unsafe { ffi::sqlite3_limit(reference.0, LIMIT_EXPR_DEPTH, 12) };
    for sql in [
        "SELECT 1+1+1+(SELECT x1 FROM t WHERE 1+1+1+1+1+1+1)",
        "SELECT 1+1+1+(SELECT 1 FROM t WHERE 1+1+1+1+1+1+1 AND x1)",
        "SELECT 1+1+1+(SELECT x1 FROM t WHERE (SELECT 1+1+1+1+1+1))",
        "SELECT 1+1+1+(SELECT 1 FROM t WHERE (SELECT 1+1+1+1+1+1) AND x1)",
        "SELECT 1+1+1+(SELECT (SELECT x1 FROM t WHERE (SELECT 1+1+1+1+1)))",
        "SELECT 1+1+1+(SELECT coalesce(x1, (SELECT 1 FROM t WHERE (SELECT 1+1+1+1+1))))",
        "SELECT 1+1+1+(SELECT abs(x1) + (SELECT 1 FROM t WHERE (SELECT 1+1+1+1+1)))",
        "SELECT 1+1+1+1+1+(SELECT 1 FROM t AS v JOIN t AS w ON x1 WHERE 1+1+1+1+1)",
    ] {
        assert_eq!(run_ours(&mut ours, sql), run_ref(&reference, sql), "{sql}");
    }
}

/// A FROM clause's tables are expanded before its subqueries are
/// resolved: a missing table after a subquery is named first.
#[test]
fn a_missing_table_after_a_from_subquery_is_named_first() {
    check_each(
        SETUP,
        &[
            "SELECT x1 FROM (SELECT x2) JOIN nosucht",
            "SELECT x1 FROM (SELECT x2), t, nosucht",
            "SELECT x1 FROM nosucht, (SELECT x2)",
            "SELECT x1 FROM (SELECT x2) AS s JOIN t ON x3",
            "WITH c AS (SELECT 1) SELECT x1 FROM (SELECT x2), c",
            "SELECT x1 FROM (SELECT x2), json_each('[1]'), pragma_table_info('t')",
        ],
    );
}

/// An ORDER BY term naming a result alias (also through COLLATE or
/// parentheses) is matched to that result column before names resolve, so
/// a name the FROM clause holds twice is not ambiguous there; in an
/// expression, or in GROUP BY, it still is (resolver01.test 1.x).
#[test]
fn order_by_aliases_match_before_names_resolve() {
    check_each(
        "CREATE TABLE t1(x, y); INSERT INTO t1 VALUES(11, 22); CREATE TABLE t2(y, z); INSERT INTO t2 VALUES(33, 44); CREATE TABLE t3(x, y); INSERT INTO t3 VALUES(11, 44), (33, 22);",
        &[
            "SELECT 1 AS y FROM t1, t2 ORDER BY y",
            "SELECT 1 AS Y FROM t1, t2 ORDER BY \"y\"",
            "SELECT 1 AS y FROM t1, t2 ORDER BY y COLLATE nocase",
            "SELECT 1 AS y FROM t1, t2 ORDER BY (y)",
            "SELECT 1 AS yy FROM t1, t2 ORDER BY y",
            "SELECT 1 AS y FROM t1, t2 ORDER BY y + 1",
            "SELECT 1 AS y FROM t1, t2 GROUP BY x ORDER BY y",
            "SELECT 1 AS y FROM t1, t2 GROUP BY y",
            "SELECT 1 AS y FROM t1, t2 ORDER BY nosuch, y",
            "SELECT x AS y FROM t3 ORDER BY y",
            "SELECT x AS yy FROM t3 ORDER BY y",
            "SELECT x AS z, y FROM t1, t2 ORDER BY 2",
            "SELECT x AS z FROM t3 ORDER BY t3.z",
        ],
    );
}

/// What a clause lets a call be, SQLite's NC_AllowAgg and NC_AllowWin: a
/// window function in WHERE, GROUP BY, HAVING, LIMIT or an UPDATE, an
/// aggregate where the query computes none, a plain function with OVER
/// fail at the call, so a later name replaces the error only until the
/// walk stops.
#[test]
fn misused_aggregates_and_windows_in_resolver_order() {
    check_each(
        SETUP,
        &[
            "SELECT a FROM t WHERE max(a) OVER () AND x1",
            "SELECT a FROM t GROUP BY max(a) OVER (), x1",
            "SELECT a FROM t WHERE max(a) OVER () GROUP BY x1",
            "SELECT a FROM t GROUP BY a HAVING max(a) OVER () ORDER BY x1",
            "SELECT a FROM t WHERE max(a) OVER (PARTITION BY x1)",
            "SELECT a FROM t WHERE nosuchfn(a) AND max(a) OVER ()",
            "SELECT a FROM t WHERE max(a) OVER () AND (SELECT x1)",
            "SELECT a FROM t WHERE max(a) OVER () AND a IN (SELECT x1)",
            "UPDATE t SET a = max(a) OVER () WHERE x1",
            "UPDATE t SET a = max(a) OVER () + x1",
            "SELECT a FROM t WHERE a = 1 AND max(a) OVER () = 2 AND x1 = 3",
            "SELECT a FROM t WHERE (max(a) OVER ()) + 1 AND x1",
            "SELECT a FROM t GROUP BY a HAVING sum(x1) AND max(a) OVER ()",
            "SELECT a FROM t WHERE sum(a) + 1 AND x1",
            "SELECT a FROM t WHERE sum(a) GROUP BY x1",
            "SELECT a FROM t WHERE sum(a) ORDER BY x1",
            "SELECT a FROM t WHERE sum(a) FILTER (WHERE x1)",
            "SELECT a FROM t WHERE count(*) + 1 AND x1",
            "SELECT sum(a) FROM t WHERE sum(a) + 1 AND x1",
            "SELECT sum(a) FROM t HAVING max(a) OVER () + 1 ORDER BY x1",
            "SELECT a FROM t GROUP BY max(a) OVER () + 1, x1",
            "SELECT a FROM t GROUP BY sum(a), x1",
            "SELECT a FROM t WHERE row_number() OVER () + 1 AND x1",
            "SELECT a FROM t WHERE a + max(a) OVER (ORDER BY x1)",
            "SELECT a FROM t WHERE max(a) FILTER (WHERE x1) OVER () + 1",
            "SELECT a FROM t WHERE abs(max(a) OVER ()) AND x1 + 1",
            "SELECT a FROM t WHERE abs(a) OVER () + 1 AND x1",
            "SELECT a FROM t WHERE abs(a) OVER () AND x1",
            "SELECT abs(a) OVER () + 1, x1 FROM t",
            "SELECT a FROM t WHERE sum(a) OVER () + 1 AND x1",
            "SELECT max(sum(a)) OVER () + 1, x1 FROM t",
            "DELETE FROM t WHERE max(a) OVER () + 1 AND x1",
            "UPDATE t SET a = sum(a) + 1, b = x1",
            "UPDATE t SET b = sum(a) + 1, a = x1",
            "UPDATE t SET a = 1 FROM u WHERE sum(u.a) + 1 AND x1",
            "UPDATE t SET a = sum(u.a) + 1 FROM u WHERE x1",
            "INSERT INTO t VALUES (max(1) OVER () + 1, x1, 2)",
            "INSERT INTO t VALUES (sum(1) + 1, x1, 2)",
            "INSERT INTO t SELECT 1, 2, 3 WHERE max(1) OVER () + 1 AND x1",
            "VALUES (1, 2), (max(1) OVER () + 1, x1)",
            "SELECT t.a FROM t JOIN u ON x1 + 1 WHERE sum(t.a) + 1",
            "SELECT t.a FROM t JOIN u ON sum(t.a) + 1 WHERE x1",
            "SELECT a FROM t LIMIT max(1) OVER () + 1 OFFSET x1",
            "SELECT a FROM t LIMIT sum(1) + 1 OFFSET x1",
            "SELECT a FROM t LIMIT max(1) OVER () + x1",
            "SELECT a FROM t UNION SELECT b FROM u LIMIT sum(1) + 1 OFFSET x1",
            "SELECT a FROM t WHERE (SELECT sum(t.a) FROM u) + 1 AND x1",
        ],
    );
}

/// An ORDER BY or GROUP BY term that is an integer names a result column
/// and is not resolved: outside 1..=65535 it fails where it stands, past
/// the result columns once the clause's names resolved.
#[test]
fn ordinals_out_of_range_in_resolver_order() {
    check_each(
        SETUP,
        &[
            "SELECT x1 FROM t ORDER BY 5",
            "SELECT a FROM t WHERE x1 ORDER BY 5",
            "SELECT a FROM t ORDER BY 0, x1",
            "SELECT a FROM t ORDER BY x1, 0",
            "SELECT a FROM t ORDER BY 5, x1",
            "SELECT a FROM t ORDER BY 70000, x1",
            "SELECT a FROM t GROUP BY x1 ORDER BY 0",
            "SELECT a FROM t GROUP BY 5 ORDER BY x1",
            "SELECT a FROM t GROUP BY 0, x1",
            "SELECT a FROM t GROUP BY x1, 0",
            "SELECT a FROM t GROUP BY a HAVING x1 ORDER BY 0",
            "SELECT DISTINCT a FROM t WHERE x1 ORDER BY 5",
            "SELECT a FROM t ORDER BY -1 COLLATE nocase, x1",
            "SELECT a FROM t ORDER BY (+2), x1",
            "SELECT a FROM t WHERE EXISTS (SELECT a, 3 FROM t ORDER BY 2 DESC LIMIT 1)",
            "SELECT a FROM t WHERE EXISTS (SELECT a FROM t ORDER BY 2, x1)",
        ],
    );
}

/// RETURNING is resolved after the statement's body, first as the result
/// list of `SELECT ... FROM table` (aggregates allowed), then a `TABLE.*`
/// is refused, then its names again with no aggregate or window function.
#[test]
fn returning_in_resolver_order() {
    check_each(
        SETUP,
        &[
            "UPDATE t SET a = 1 RETURNING sum(a) + 1, x1",
            "UPDATE t SET a = 1 RETURNING sum(x1)",
            "UPDATE t SET a = 1 RETURNING sum(a)",
            "UPDATE t SET a = 1 RETURNING max(a) OVER ()",
            "UPDATE t SET a = 1 RETURNING nosuchfn(a), x1",
            "UPDATE t SET a = 1 RETURNING u.*",
            "UPDATE t SET a = 1 RETURNING t.*, x1",
            "UPDATE t SET a = x2 RETURNING t.*",
            "DELETE FROM t RETURNING t.*",
            "DELETE FROM t RETURNING x1, t.*",
            "DELETE FROM t WHERE x2 RETURNING sum(a)",
            "DELETE FROM t RETURNING a = (1, 2), x1",
            "DELETE FROM t RETURNING x1, a = (1, 2)",
            "DELETE FROM t RETURNING a IN (SELECT 1 FROM nosuch), x1",
            "INSERT INTO t VALUES (1, 2, 3) RETURNING row_number() OVER (), x1",
            "INSERT INTO t VALUES (1, 2, 3) RETURNING abs(x1) + x2",
            "INSERT INTO t VALUES (1, 2, 3) RETURNING *, x1",
            "INSERT INTO t VALUES (1, 2, 3) RETURNING a, b + 1 AS bb, *",
        ],
    );
}

/// A comparison or BETWEEN of operands of different widths is refused as
/// the resolver enters it, a subquery's width counted with its `*`
/// expanded in a SELECT; a row IN a list of rows of another width fails
/// the parse.
#[test]
fn row_value_widths_in_resolver_order() {
    check_each(
        SETUP,
        &[
            "SELECT a FROM t WHERE a = (SELECT 1, 2) AND x1",
            "SELECT a FROM t WHERE x1 AND a = (SELECT 1, 2)",
            "SELECT a FROM t WHERE (a, b) = (SELECT 1, 2, 3) AND x1",
            "SELECT a FROM t WHERE (a, b) = (SELECT * FROM u) AND x1",
            "SELECT a FROM t WHERE (a, b, c) = (SELECT * FROM u) AND x1",
            "SELECT a FROM t WHERE (a, b) BETWEEN (1, 2) AND (3, 4, 5) AND x1",
            "SELECT a FROM t WHERE a BETWEEN (1, 2) AND 3 AND x1",
            "SELECT a FROM t WHERE a NOT BETWEEN 1 AND (2, 3) AND x1",
            "SELECT a FROM t WHERE (a, b) IN ((1, 2), (3, 4, 5)) AND x1",
            "SELECT a FROM t WHERE (a, b) IN (1, 2) AND x1",
            "SELECT a FROM nosuch WHERE (a, b) IN (1, 2)",
            "SELECT a FROM t WHERE (a, b) IN ((1, 2), (3, 4)) AND x1",
            "SELECT a FROM t WHERE a IN (SELECT 1, 2) AND x1",
            "SELECT a FROM t WHERE (a, b) = (1, 2, 3) AND x1",
            "DELETE FROM t WHERE (a, b) = (1, 2, 3) AND x1",
            "DELETE FROM t WHERE a = (SELECT * FROM u) AND x1",
            "UPDATE t SET a = 1 WHERE (a, b) = (SELECT * FROM u) AND x1",
        ],
    );
}

/// An unknown collation is found generating code, after every name
/// resolved.
#[test]
fn unknown_collations_after_names() {
    check_each(
        SETUP,
        &[
            "SELECT a FROM t ORDER BY a COLLATE nosuchcoll, x1",
            "SELECT a FROM t ORDER BY x1, a COLLATE nosuchcoll",
            "SELECT DISTINCT a COLLATE nosuchcoll, x1 FROM t",
            "SELECT a FROM t WHERE a IN (SELECT b COLLATE nosuchcoll FROM u) AND x1",
            "SELECT x1 FROM t UNION SELECT a COLLATE nosuchcoll FROM u",
            "SELECT a FROM t ORDER BY a COLLATE nosuchcoll",
            "SELECT a FROM t GROUP BY a COLLATE nosuchcoll HAVING x1",
        ],
    );
}

/// "ON clause references tables to its right" is checked once the
/// query's names resolved.
#[test]
fn on_clause_to_the_right_after_names() {
    check_each(
        SETUP,
        &[
            "SELECT t.a FROM t LEFT JOIN u ON v.a = 1 LEFT JOIN t AS v",
            "SELECT t.a FROM t LEFT JOIN u ON v.a = 1 LEFT JOIN t AS v WHERE x1",
            "SELECT x1 FROM t LEFT JOIN u ON v.a = 1 LEFT JOIN t AS v",
            "SELECT t.a FROM t LEFT JOIN u ON v.a = x1 LEFT JOIN t AS v",
            "SELECT t.a FROM t LEFT JOIN u ON x1 = v.a LEFT JOIN t AS v",
            "SELECT t.a FROM t LEFT JOIN u ON v.a = 1 LEFT JOIN t AS v ON x3",
            "SELECT t.a FROM t RIGHT JOIN u ON v.a = 1 JOIN t AS v",
            "SELECT t.a FROM t JOIN u USING (x1) JOIN nosuch",
            "SELECT t.a FROM t JOIN u USING (x1) WHERE x2",
        ],
    );
}

/// SQLite expands the whole SELECT, the subqueries of its expressions
/// included, before it resolves a name: a missing table there (or in an
/// `x IN table`, or a `TABLE.*` naming no table) comes first; an UPDATE's
/// or DELETE's WHERE expands a subquery where its resolver meets it.
#[test]
fn missing_tables_of_subqueries_before_names() {
    check_each(
        SETUP,
        &[
            "SELECT x1 FROM t WHERE a IN (SELECT 1 FROM nosuch)",
            "SELECT a FROM t WHERE x1 AND a IN (SELECT 1 FROM nosuch)",
            "SELECT a FROM t WHERE x1 AND EXISTS (SELECT 1 FROM nosuch)",
            "SELECT x1, (SELECT 1 FROM nosuch) FROM t",
            "SELECT a FROM t WHERE x1 + (SELECT 1 FROM nosuch)",
            "SELECT a FROM t WHERE abs((SELECT 1 FROM nosuch)) + x1",
            "SELECT a FROM t ORDER BY x1, (SELECT 1 FROM nosuch)",
            "SELECT a FROM t WHERE a IN nosuch AND x1",
            "SELECT a FROM t WHERE x1 AND a IN nosuch",
            "SELECT (SELECT 1 FROM nosuch) FROM t WHERE (SELECT 1 FROM nosuch2)",
            "SELECT a FROM t WHERE a IN (SELECT 1 FROM nosuch2) ORDER BY (SELECT 1 FROM nosuch)",
            "SELECT * FROM (SELECT x2) WHERE a IN (SELECT 1 FROM nosuch)",
            "SELECT a FROM t WHERE a IN (WITH c AS (SELECT 1) SELECT 1 FROM c) AND x1",
            "SELECT a FROM t WHERE a IN (WITH c AS (SELECT 1 FROM nosuch) SELECT 1) AND x1",
            "SELECT a FROM t WHERE a IN (WITH c AS (SELECT 1 FROM nosuch) SELECT 1 FROM c) AND x1",
            "SELECT a FROM t WHERE a IN (SELECT 1 FROM json_each('[1]')) AND x1",
            "INSERT INTO t SELECT x1, 2, 3 WHERE EXISTS (SELECT 1 FROM nosuch)",
            "SELECT x1 FROM t WHERE a IN (SELECT nosuch.* FROM u)",
            "SELECT x1 FROM t WHERE a IN (SELECT u.* FROM u AS v)",
            "SELECT x1 FROM t WHERE a IN (SELECT v.a FROM u AS v)",
            "UPDATE t SET a = x1 WHERE a IN (SELECT 1 FROM nosuch)",
            "DELETE FROM t WHERE x1 AND a IN (SELECT 1 FROM nosuch)",
            "DELETE FROM t WHERE a IN (SELECT 1 FROM nosuch) AND x1",
            "INSERT INTO t VALUES (x1, (SELECT 1 FROM nosuch), 3)",
        ],
    );
}

#[test]
fn ctes_are_in_scope_for_the_subqueries_of_their_consumers() {
    check_each(
        SETUP,
        &[
            "SELECT (WITH w AS (SELECT a+1 AS b) SELECT (SELECT b FROM w) FROM w) FROM (SELECT 1 AS a)",
            "WITH w AS (SELECT 1 AS b) SELECT (SELECT b FROM w) FROM w",
            "WITH w AS (SELECT 1 AS b) SELECT (SELECT b FROM w), x1 FROM t",
            "WITH w AS (SELECT 1 AS b) SELECT x1 FROM t WHERE a IN (SELECT b FROM w)",
            "WITH w AS (SELECT 1 AS b) SELECT x1 FROM t WHERE a IN w",
            "WITH w AS (SELECT 1 AS b) SELECT EXISTS (SELECT 1 FROM (SELECT b FROM w)) FROM t",
            "SELECT (WITH w AS (SELECT 1 AS b) SELECT (SELECT b FROM nosuch) FROM w), x1 FROM t",
            "SELECT (WITH w AS (SELECT 1 AS b) SELECT (SELECT b FROM w) FROM w), x1 FROM t",
        ],
    );
}
