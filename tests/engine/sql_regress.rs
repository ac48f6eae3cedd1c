//! Regressions found with the sqllogictest corpus.
use crate::sql_common;
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
    sql_common::check(
        "CREATE TABLE t(a TEXT); INSERT INTO t VALUES('1'),('2'); SELECT 1 IN (SELECT a FROM t), 3 IN (SELECT a FROM t), '1' IN (SELECT a FROM t);",
    );
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

#[test]
fn prefiltered_inner_tables() {
    check_each(
        "CREATE TABLE a(id INTEGER PRIMARY KEY, x, y REAL); CREATE TABLE b(id INTEGER PRIMARY KEY, x, y);
         INSERT INTO a VALUES(1,1,1.0),(2,2,2.5),(3,3,3.0),(4,NULL,4.0); INSERT INTO b VALUES(10,1,'p'),(20,2,'q'),(30,3,'r');",
        &[
            "SELECT a.id, b.id, a.y FROM a, b WHERE a.x IN (1,3) AND b.y <> 'q' AND a.y < 4",
            "SELECT a.id, b.id FROM b, a WHERE a.x > 1 AND b.id >= 20",
            "SELECT (SELECT count(*) FROM a, b AS c WHERE c.x = b.x AND a.x < 3) FROM b",
        ],
    );
}

#[test]
fn fuzz_findings_2() {
    sql_common::check("CREATE TABLE t0(c0, c1); SELECT NULL FROM t0 AS a WHERE (NOT EXISTS (SELECT zz.c0 FROM t0 AS b));");
    sql_common::check("CREATE TABLE t0(c0); INSERT INTO t0 VALUES(1),(2); SELECT 9223372036854775807, c0 FROM t0 ORDER BY (9223372036854775807 COLLATE BINARY) DESC, c0 LIMIT 1;");
    sql_common::check("CREATE TABLE t0(c0); INSERT INTO t0 VALUES(1); SELECT c0 FROM t0 WHERE EXISTS (SELECT c0, 3 FROM t0 ORDER BY 2 DESC LIMIT 1); SELECT 1 WHERE EXISTS (SELECT 0 FROM t0 ORDER BY 3);");
}

#[test]
fn checks_collations_groupby() {
    check_each(
        "CREATE TABLE p(id INTEGER PRIMARY KEY, name TEXT CHECK(length(name) < 10), qty INTEGER, CONSTRAINT pos CHECK (qty >= 0)); CREATE TABLE c(a TEXT COLLATE NOCASE); INSERT INTO c VALUES('apple'),('BANANA'),('Apple'),('cherry');",
        &[
            "INSERT INTO p VALUES(1, 'x', 1); INSERT INTO p VALUES(2, 'y', -1);",
            "INSERT INTO p VALUES(3, 'a very long name', 1);",
            "INSERT INTO p VALUES(4, NULL, NULL); INSERT OR IGNORE INTO p VALUES(5, 'z', -5); SELECT * FROM p;",
            "UPDATE p SET qty = -1 WHERE id = 1;",
            "SELECT a FROM c ORDER BY 1",
            "SELECT count(*), count(DISTINCT a) FROM c WHERE a = 'APPLE'",
            "SELECT 'x' || 'y' COLLATE NOCASE = 'XY'",
            "SELECT length(a), count(*) FROM c GROUP BY 1 ORDER BY 1",
            "SELECT sum(length(a)) FROM c GROUP BY sum(1)",
            "SELECT a FROM c ORDER BY a LIMIT 1, 2",
        ],
    );
}

#[test]
fn row_values() {
    check_each(
        "CREATE TABLE t(a, b); INSERT INTO t VALUES(1,1),(1,2),(2,1),(2,NULL),(NULL,3);",
        &[
            "SELECT (1, 2) = (1, 2), (1, 2) < (1, 3), (1, NULL) = (1, 2), (1, NULL) < (2, 0), (2, NULL) <= (2, 1), (1, 2) <> (1, 3), (1,2) IS (1,2)",
            "SELECT a, b FROM t WHERE (a, b) > (1, 1) ORDER BY a, b",
            "SELECT a, b FROM t WHERE (a, b) <= (2, 0) ORDER BY a, b",
            "SELECT (1, 2) = (1, 2, 3)",
            "SELECT (1, 2) BETWEEN (0, 0) AND (1, 5), (2, 0) NOT BETWEEN (1, 9) AND (2, 1), (a, b) BETWEEN (1, 2) AND (2, 0) FROM t ORDER BY a, b",
        ],
    );
}

#[test]
fn rowid_after_max() {
    check_each(
        "CREATE TABLE t(a INTEGER PRIMARY KEY, b); INSERT INTO t VALUES(9223372036854775807, 'max');",
        &["INSERT INTO t(b) VALUES('r1'), ('r2'); SELECT count(*), count(DISTINCT a), min(a) > 0 FROM t;"],
    );
}
