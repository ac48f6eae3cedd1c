//! `X IS NULL` / `X IS NOT NULL` on a NOT NULL column folded where SQLite
//! 3.54.1 folds it: in WHERE and ON clauses (and a subquery's WHERE
//! reading an outer column), for tables no outer join NULL-fills, after
//! LEFT JOIN strength reduction; not in result columns, ORDER BY, FILTER
//! or window clauses. The fold shows on a file whose NOT NULL column holds
//! a NULL (written before the constraint, through `writable_schema`):
//! every query must give SQLite's rows.
use crate::sql_common::check_each_unordered;

const SETUP: &str = "CREATE TABLE t3(a, b, c INTEGER PRIMARY KEY, g AS (b), s AS (b) STORED);
INSERT INTO t3(a, b) VALUES(NULL, NULL);
INSERT INTO t3(a, b) VALUES(5, 6);
CREATE TABLE u(x);
INSERT INTO u VALUES(1);
PRAGMA writable_schema = ON;
UPDATE sqlite_schema SET sql = 'CREATE TABLE t3(a NOT NULL, b, c INTEGER PRIMARY KEY, g AS (b) NOT NULL, s AS (b) STORED NOT NULL)' WHERE name = 't3';
PRAGMA writable_schema = RESET;
CREATE VIEW v3 AS SELECT a, b FROM t3;";

#[test]
fn null_tests_fold_as_sqlite_folds_them() {
    check_each_unordered(
        SETUP,
        &[
            "SELECT a IS NULL, a ISNULL, a IS NOT NULL, a NOTNULL, a NOT NULL, g IS NULL, s IS NULL, c IS NULL, rowid IS NULL FROM t3",
            "SELECT * FROM t3 WHERE a IS NULL",
            "SELECT count(*) FROM t3 WHERE a IS NOT NULL",
            "SELECT * FROM t3 WHERE g IS NULL",
            "SELECT * FROM t3 WHERE s IS NULL",
            "SELECT * FROM t3 WHERE a ISNULL",
            "SELECT * FROM t3 WHERE NOT (a NOT NULL)",
            "SELECT * FROM t3 WHERE CASE WHEN a IS NULL THEN 1 ELSE 0 END",
            "SELECT * FROM t3 WHERE coalesce(a IS NULL, 5)",
            "SELECT * FROM t3 WHERE iif(a IS NULL, 1, 0)",
            "SELECT * FROM t3 WHERE (a IS NULL) BETWEEN 1 AND 1",
            "SELECT * FROM t3 WHERE a IS NULL IN (1, 2)",
            "SELECT * FROM t3 WHERE (a IS NULL) = 1",
            "SELECT * FROM t3 WHERE a COLLATE nocase IS NULL",
            "SELECT * FROM t3 WHERE (a) IS NULL",
            "SELECT * FROM t3 WHERE a IS (NULL)",
            "SELECT * FROM t3 WHERE t3.a IS NULL OR b = 6",
            "SELECT * FROM u JOIN t3 ON a IS NULL",
            "SELECT x, t3.a FROM u LEFT JOIN t3 ON a IS NULL",
            "SELECT x, t3.a FROM u LEFT JOIN t3 ON 1 WHERE a IS NULL",
            "SELECT x, t3.a FROM u LEFT JOIN t3 ON 1 WHERE a IS NULL AND b IS NULL",
            "SELECT x, t3.a FROM u LEFT JOIN t3 ON 1 WHERE a IS NULL AND t3.c > 0",
            "SELECT x, t3.a FROM u LEFT JOIN t3 ON 1 WHERE (a IS NULL OR x = 1) AND t3.c > 0",
            "SELECT x, t3.a FROM t3 RIGHT JOIN u ON 1 WHERE a IS NULL AND t3.c > 0",
            "SELECT x, t3.a FROM t3 FULL JOIN u ON 1 WHERE a IS NULL",
            "SELECT t3.a FROM t3 NATURAL LEFT JOIN u WHERE t3.a IS NULL",
            "SELECT count(*) FROM t3 GROUP BY a HAVING max(a) IS NULL",
            "SELECT (SELECT count(*) FROM u WHERE t3.a IS NULL) FROM t3",
            "SELECT * FROM t3 WHERE (SELECT t3.a IS NULL)",
            "SELECT * FROM t3 WHERE (SELECT count(*) FROM u WHERE t3.a IS NULL)",
            "SELECT * FROM (SELECT * FROM t3) WHERE a IS NULL",
            "SELECT * FROM (SELECT * FROM t3 LIMIT 5) WHERE a IS NULL",
            "SELECT * FROM (SELECT a + 0 AS a FROM t3) WHERE a IS NULL",
            "WITH w AS MATERIALIZED (SELECT * FROM t3) SELECT a FROM w WHERE a IS NULL",
            "SELECT * FROM v3 WHERE a IS NULL",
            "SELECT a IS NULL FROM v3",
            "SELECT a FROM t3 ORDER BY a IS NULL, c",
            "SELECT count(*) FILTER (WHERE a IS NULL) FROM t3",
            "SELECT count(*) OVER (PARTITION BY a IS NULL) FROM t3",
            "SELECT sum(a IS NULL) FROM t3",
            "SELECT a IS NULL IS NULL, a IS NOT NULL AND a IS NULL FROM t3",
            "SELECT EXISTS (SELECT 1 FROM t3 WHERE a IS NULL)",
            "SELECT x FROM u WHERE EXISTS (SELECT 1 FROM t3 WHERE a IS NULL)",
            "SELECT x FROM u WHERE EXISTS (SELECT t3.a IS NULL FROM t3)",
            "UPDATE t3 SET b = 7 WHERE a IS NULL",
            "SELECT b FROM t3",
            "DELETE FROM t3 WHERE a IS NULL",
            "SELECT count(*) FROM t3",
        ],
    );
}

/// A WHERE clause that folds to false runs no loop: the reference's
/// `notnull2.test` counts (fewer than 100 VM steps over 1,000 rows).
#[test]
fn folded_false_where_runs_no_loop() {
    check_each_unordered(
        "CREATE TABLE t1(a, b); CREATE TABLE t2(c, d NOT NULL);
         WITH x(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM x WHERE i < 1000) INSERT INTO t1 SELECT i, i FROM x;
         INSERT INTO t2 SELECT * FROM t1;",
        &[
            "SELECT * FROM t1 LEFT JOIN t2 WHERE a = c AND d IS NULL",
            "SELECT * FROM (SELECT * FROM t2) WHERE d IS NULL",
            "SELECT * FROM t2 WHERE d IS NULL",
            "SELECT (d IS NOT NULL) FROM t2 WHERE 0 == (d IS NOT NULL)",
            "SELECT count(*) FROM t2 WHERE EXISTS (SELECT t2.d IS NULL FROM t1 WHERE t1.a = 450)",
            "SELECT count(*) FROM t2 WHERE EXISTS (SELECT t2.c IS NULL FROM t1 WHERE t1.a = 450)",
        ],
    );
}
