//! Subqueries inside window definitions and FROM items as SQLite 3.54.1
//! reads them: an enclosing query's aggregate written in a subquery of a
//! window's ORDER BY makes that query an aggregate one; JSON table-valued
//! functions named without arguments (eponymous tables, no rows). Each
//! compared with the reference.

use crate::sql_common::check_each;

#[test]
fn outer_aggregates_in_subqueries_of_window_definitions() {
    let setup = "create table t1(b, x); create table t2(c, d);";
    let queries = [
        "SELECT max(b) OVER (ORDER BY sum((SELECT c FROM t2 UNION SELECT x ORDER BY c))) FROM t1",
        "SELECT sum(b) OVER (ORDER BY (SELECT max(b) OVER (ORDER BY sum(x)) AS e ORDER BY e)) FROM t1",
        "SELECT sum(b) OVER (ORDER BY (SELECT max(b) OVER ())) FROM t1",
        "SELECT (SELECT max(b) OVER (ORDER BY sum(x))) FROM t1",
        "SELECT (SELECT sum(x)) FROM t1",
        // (3.54.1 accepts this one, which 3.40.1 refused as a misuse.)
        "SELECT (SELECT max(b) OVER (ORDER BY (SELECT y FROM (SELECT sum(x) AS y FROM t2)))) FROM t1",
        "SELECT sum(b) OVER (ORDER BY (SELECT max(b) OVER (ORDER BY sum((SELECT x AS c UNION SELECT 1234 ORDER BY c))) AS e ORDER BY e)) FROM t1",
        "SELECT (SELECT sum((SELECT x + c)) FROM t2) FROM t1",
        "SELECT b, (SELECT count((SELECT o.x WHERE o.x IN (SELECT d FROM t2))) FROM t2) FROM t1 AS o GROUP BY b",
        "SELECT sum(b) OVER (PARTITION BY (SELECT sum(x))) FROM t1",
        "SELECT count(*) OVER (ORDER BY (SELECT total(x) + 1)), b FROM t1",
        "SELECT b, sum(b) OVER (ORDER BY (SELECT b)) FROM t1 ORDER BY b",
    ];
    let mut setups = vec![setup.to_string()];
    setups.push(format!("{setup} insert into t1 values (1, 2), (3, 4), (3, 5); insert into t2 values (7, 8);"));
    for s in setups {
        check_each(&s, &queries);
    }
}

#[test]
fn json_table_functions_named_without_arguments() {
    check_each(
        "create table t1(a, b, c); create table t2(d); insert into t1 values ('[1,2]', 2, 3);",
        &[
            "SELECT * FROM t1 LEFT JOIN t2 ON (SELECT b FROM json_each ORDER BY 1)",
            "SELECT * FROM json_each",
            "SELECT count(*) FROM json_tree",
            "SELECT key, value FROM jsonb_each AS j",
            "SELECT count(*) FROM jsonb_tree",
            "SELECT (SELECT count(*) FROM json_each) FROM t1",
            "SELECT * FROM t1, json_each AS j",
            "SELECT * FROM main.json_each",
        ],
    );
}

#[test]
fn ctes_expanded_into_too_many_cursors_are_nested_too_deep() {
    // SQLite expands every reference to a CTE (materialized or not) and
    // refuses the statement once its expansion has numbered as many
    // cursors as SQLITE_LIMIT_EXPR_DEPTH.
    let nest = |m: &str| {
        format!(
            "WITH c AS {m} ( WITH c AS {m} ( WITH c AS {m} ( WITH c AS {m} ( WITH c AS (VALUES(0)) SELECT 1 FROM c LEFT JOIN c ON ltrim(1)) \
             SELECT 1 FROM c,c,c,c,c,c,c,c,c) SELECT 2 FROM c,c,c,c,c,c,c,c,c) SELECT 3 FROM c,c,c,c,c,c,c,c,c) SELECT 4 FROM c,c,c,c,c,c,c,c,c"
        )
    };
    let q1 = nest("NOT MATERIALIZED");
    let q2 = nest("MATERIALIZED");
    let q3 = "WITH c AS ( WITH c AS ( WITH c AS ( WITH c AS (VALUES(0)) SELECT 1 FROM c LEFT JOIN c ON ltrim(1)) SELECT 1 FROM c,c,c,c,c,c,c,c,c) \
              SELECT 2 FROM c,c,c,c,c,c,c,c,c) SELECT 3 FROM c,c,c,c,c,c,c,c,c";
    let q4 = "WITH RECURSIVE c AS NOT MATERIALIZED (WITH c AS (VALUES(0)) SELECT 1 FROM c LEFT JOIN c ON ltrim(1)) SELECT count(*) FROM c,c,c,c,c,c,c,c,c";
    check_each("", &[&format!("WITH RECURSIVE {}", &q1[5..]), &q1, &q2, q3, q4]);
}

#[test]
fn missing_tables_in_compound_order_by_subqueries_come_first() {
    check_each(
        "create table t1(a, b, c); create table t2(a, b, c); create view v2 as select 1;",
        &[
            "SELECT a,c,b FROM t1 INTERSECT SELECT a,b,c FROM t1 ORDER BY (SELECT nth_value(a,2) OVER w1 WINDOW w1 AS (ORDER BY ((SELECT 1 FROM v1))))",
            "SELECT a,c,b FROM t1 INTERSECT SELECT a,b,c FROM t1 ORDER BY (SELECT nth_value(a,2) OVER w1 WINDOW w1 AS (ORDER BY ((SELECT 1 FROM t2))))",
            "SELECT a FROM t1 UNION SELECT b FROM t1 ORDER BY (SELECT 1 FROM v1)",
            "SELECT a FROM t1 UNION SELECT b FROM t1 ORDER BY (SELECT 1 FROM v2)",
            "SELECT a FROM t1 UNION SELECT b FROM t1 ORDER BY (SELECT nosuchcol)",
            "SELECT a FROM t1 UNION SELECT b FROM t1 ORDER BY 1, (SELECT x FROM (SELECT 1 AS x) JOIN nosuch)",
            "SELECT a FROM t1 UNION SELECT b FROM t1 ORDER BY (WITH nosuch AS (SELECT 1) SELECT * FROM nosuch)",
            "SELECT a FROM t1 UNION SELECT b FROM t1 ORDER BY (SELECT 1 FROM json_each)",
            "SELECT a FROM t1 UNION SELECT b FROM t1 ORDER BY EXISTS (SELECT 1 FROM t2 WHERE a IN (SELECT 1 FROM gone))",
        ],
    );
}
