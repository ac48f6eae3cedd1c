//! Collations carried through subqueries, views and CTEs (TCL tkt3997),
//! differentially against SQLite.
mod sql_common;
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
