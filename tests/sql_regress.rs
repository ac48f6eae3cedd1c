//! Regressions found with the sqllogictest corpus.
mod sql_common;
use sql_common::check_each_unordered as check_each;

const SETUP: &str = "CREATE TABLE t1(a1 INTEGER, b1 INTEGER, c1 INTEGER, d1 INTEGER, e1 INTEGER, x1 VARCHAR(30));
INSERT INTO t1 VALUES(1,2,3,4,5,'a'),(6,7,8,9,10,'b'),(11,12,13,14,15,'c'),(16,17,18,19,20,'d'),(1,7,13,19,25,'e');
CREATE INDEX t1i1 ON t1(a1,b1,c1,d1,e1,x1);
CREATE INDEX t1i2 ON t1(b1,c1,d1,e1,x1);";

#[test]
fn or_of_in_lists() {
    check_each(
        SETUP,
        &[
            "SELECT x1 FROM t1 WHERE d1 in (4,19) OR (e1=10 AND a1=6) OR (e1=15 OR 20=b1)",
            "SELECT x1 FROM t1 WHERE a1 in (1,11) OR b1 in (17)",
            "SELECT a1 FROM t1 EXCEPT SELECT a1 FROM t1 WHERE a1 > 10",
            "SELECT a1 FROM t1 WHERE NOT (a1 in (1,6) OR (b1=12 AND c1=13))",
            "SELECT e1 FROM t1 UNION SELECT d1 FROM t1 WHERE (4=d1 OR 19=b1)",
            "SELECT a1 FROM t1 WHERE a1 = 1 AND b1 = 7",
            "SELECT a1 FROM t1 WHERE b1 > 7 AND b1 <= 17",
        ],
    );
}

#[test]
fn in_list_lookups_and_desc_indexes() {
    check_each(
        "CREATE TABLE t(id INTEGER PRIMARY KEY, a INTEGER, b TEXT); CREATE INDEX ta ON t(a DESC); CREATE INDEX tb ON t(b);
         INSERT INTO t VALUES(1,5,'x'),(2,NULL,'y'),(3,7,NULL),(4,5,'5'),(5,-1,'z');",
        &[
            "SELECT * FROM t WHERE id IN (1,3,3,NULL,'4',9)",
            "SELECT * FROM t WHERE a IN (5,'7',NULL)",
            "SELECT * FROM t WHERE b IN ('x',5,'z')",
            "SELECT * FROM t WHERE a > 0",
            "SELECT * FROM t WHERE a < 6",
            "SELECT * FROM t WHERE a >= 5 AND a <= 7",
            "SELECT x.id, y.id FROM t AS x, t AS y WHERE x.a = y.a AND y.b IN ('x','5')",
        ],
    );
}

#[test]
fn fuzz_findings() {
    sql_common::check("CREATE TABLE t0(c0 BLOB); SELECT 2 FROM t0 ORDER BY (2 COLLATE BINARY), typeof(2) LIMIT 0;");
    sql_common::check("CREATE TABLE t0(c0, c1 REAL); INSERT INTO t0 VALUES('a ', -2.25); SELECT ('1e2' << c1), ('1e2' | 0), (' 7x' & 15) FROM t0;");
    sql_common::check("CREATE TABLE t0(c0 BLOB, c1 NUMERIC); SELECT a2.c0 FROM t0 AS a0 WHERE a2.c1;");
    sql_common::check("CREATE TABLE t0(c0 TEXT, c1 VARCHAR(5)); INSERT INTO t0 VALUES(' 7', '10'), ('x', ' 7'); SELECT a.c0, b.c1 FROM t0 AS a JOIN t0 AS b ON (CAST(b.c1 AS INTEGER) IN (SELECT a.c0 FROM t0));");
    sql_common::check("CREATE TABLE t(a TEXT); INSERT INTO t VALUES('1'),('2'); SELECT 1 IN (SELECT a FROM t), 3 IN (SELECT a FROM t), '1' IN (SELECT a FROM t);");
}

#[test]
fn nulls_first_last() {
    sql_common::check_each(
        "CREATE TABLE t(a, b); INSERT INTO t VALUES(1,'x'),(NULL,'y'),(3,NULL),(2,'z');",
        &[
            "SELECT * FROM t ORDER BY a NULLS LAST",
            "SELECT * FROM t ORDER BY a DESC NULLS FIRST, b",
            "SELECT * FROM t ORDER BY b ASC NULLS FIRST",
            "SELECT a FROM t UNION SELECT 5 ORDER BY 1 NULLS LAST",
        ],
    );
}
