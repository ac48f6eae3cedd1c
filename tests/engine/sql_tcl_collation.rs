//! Collations carried through subqueries, views and CTEs (TCL tkt3997),
//! differentially against SQLite.
use crate::sql_common;
use sql_common::check_each;

#[test]
fn subquery_columns_keep_their_collation() {
    check_each(
        "CREATE TABLE t(name COLLATE nocase, other); INSERT INTO t VALUES('b', 'B'),('A', 'a'),('c', 'C'),('B', 'b');
         CREATE VIEW v AS SELECT name, other COLLATE rtrim AS o FROM t;",
        &[
            "SELECT name FROM (SELECT name FROM t) ORDER BY name, rowid",
            "SELECT name FROM (SELECT name FROM t) WHERE name = 'a'",
            "SELECT o FROM (SELECT other COLLATE nocase AS o FROM t) ORDER BY o, 1",
            "SELECT name FROM v WHERE name = 'b' ORDER BY 1",
            "SELECT o FROM v WHERE o = 'a  '",
            "WITH w AS (SELECT * FROM t) SELECT name FROM w WHERE name = 'C'",
            "SELECT x FROM (SELECT name AS x FROM t UNION ALL SELECT other FROM t) ORDER BY x, 1",
        ],
    );
}

#[test]
fn a_column_on_the_left_decides_the_comparison_collation() {
    check_each(
        "CREATE TABLE t0(c0 COLLATE NOCASE); INSERT INTO t0(c0) VALUES ('B');
         CREATE VIEW v0(c0, c1) AS SELECT DISTINCT t0.c0, 'a' FROM t0;
         CREATE TABLE tt(a, b COLLATE NOCASE); INSERT INTO tt VALUES('a','B'),('C','c');",
        &[
            "SELECT count(*) FROM v0 WHERE c1 >= c0",
            "SELECT count(*) FROM v0 WHERE c0 <= c1",
            "SELECT count(*) FROM (SELECT c0, 'a' AS c1 FROM t0) WHERE c1 >= c0",
            "SELECT a >= b, b <= a, +a >= b, a COLLATE binary >= b, (a) >= b, CAST(a AS TEXT) >= b, -a >= b, a = b, b = a FROM tt ORDER BY 1",
            "SELECT a COLLATE nocase AS a FROM tt ORDER BY a",
            "SELECT b AS x FROM tt ORDER BY x DESC",
            "SELECT count(*) FROM tt WHERE a >= b",
        ],
    );
}
