//! Tables: DDL, DML and queries, differentially against SQLite.
mod sql_common;
use sql_common::{check, check_each};

#[test]
fn create_insert_select() {
    check("CREATE TABLE t(a INTEGER, b TEXT, c REAL); INSERT INTO t VALUES(1,'x',1.5),(2,'y',2); SELECT * FROM t; SELECT a, b FROM t WHERE a > 1; SELECT rowid, * FROM t;");
}

#[test]
fn affinity_on_insert() {
    check("CREATE TABLE t(i INTEGER, t TEXT, r REAL, n NUMERIC, b BLOB, x); INSERT INTO t VALUES('12','12','12','12','12','12'),(1.0,1.0,1,'1.5e1',x'01',3.0); SELECT i, typeof(i), t, typeof(t), r, typeof(r), n, typeof(n), b, typeof(b), x, typeof(x) FROM t;");
}

#[test]
fn integer_primary_key_and_rowid() {
    check("CREATE TABLE t(id INTEGER PRIMARY KEY, v); INSERT INTO t(v) VALUES('a'); INSERT INTO t VALUES(10,'b'); INSERT INTO t(v) VALUES('c'); SELECT id, rowid, v FROM t; SELECT * FROM t WHERE id = 10; SELECT last_insert_rowid();");
    check("CREATE TABLE t(id INTEGER PRIMARY KEY, v); INSERT INTO t VALUES(1,'a'); INSERT INTO t VALUES(1,'b');");
}

#[test]
fn constraints() {
    check("CREATE TABLE t(a UNIQUE, b NOT NULL); INSERT INTO t VALUES(1,2); INSERT INTO t VALUES(1,3);");
    check("CREATE TABLE t(a UNIQUE, b NOT NULL); INSERT INTO t VALUES(1,NULL);");
    check("CREATE TABLE t(a, b, UNIQUE(a,b)); INSERT INTO t VALUES(1,2),(1,3); INSERT INTO t VALUES(1,2);");
    check("CREATE TABLE t(a PRIMARY KEY, b); INSERT INTO t VALUES('x',1); INSERT INTO t VALUES('x',2);");
    check("CREATE TABLE t(a UNIQUE, b); INSERT INTO t VALUES(1,1); INSERT OR IGNORE INTO t VALUES(1,2); INSERT OR REPLACE INTO t VALUES(1,3); SELECT * FROM t;");
    check("CREATE TABLE t(a); CREATE TABLE t(b);");
    check("CREATE TABLE IF NOT EXISTS t(a); CREATE TABLE IF NOT EXISTS t(b); SELECT * FROM t;");
}

#[test]
fn schema_table() {
    check("CREATE TABLE t(a INTEGER PRIMARY KEY, b UNIQUE, c); CREATE INDEX i ON t(c); SELECT type, name, tbl_name, rootpage, sql FROM sqlite_schema;");
    check("create table if not exists T1 ( a int , b text );SELECT sql FROM sqlite_master;");
}

#[test]
fn update_delete() {
    check_each(
        "CREATE TABLE t(a INTEGER PRIMARY KEY, b, c); INSERT INTO t VALUES(1,'x',10),(2,'y',20),(3,'z',30); CREATE INDEX tb ON t(b);",
        &[
            "UPDATE t SET c = c + 1 WHERE a >= 2; SELECT * FROM t; SELECT changes();",
            "UPDATE t SET b = 'w' WHERE b = 'x'; SELECT * FROM t WHERE b = 'w'; SELECT * FROM t WHERE b = 'x';",
            "DELETE FROM t WHERE a = 2; SELECT * FROM t; SELECT changes(), total_changes();",
            "UPDATE t SET a = 7 WHERE a = 3; SELECT * FROM t;",
            "DELETE FROM t; SELECT count(*) FROM t; SELECT changes();",
        ],
    );
}

#[test]
fn ordering_limit_distinct() {
    check_each(
        "CREATE TABLE t(a, b); INSERT INTO t VALUES(3,'c'),(1,'a'),(2,'b'),(1,'z'),(NULL,'n');",
        &[
            "SELECT * FROM t ORDER BY a",
            "SELECT * FROM t ORDER BY a DESC, b",
            "SELECT b FROM t ORDER BY 1 DESC LIMIT 2",
            "SELECT b FROM t ORDER BY b LIMIT 2 OFFSET 1",
            "SELECT DISTINCT a FROM t ORDER BY a",
            "SELECT a AS x FROM t ORDER BY x",
            "SELECT * FROM t LIMIT 0",
            "SELECT a FROM t ORDER BY 3",
        ],
    );
}

#[test]
fn aggregates() {
    check_each(
        "CREATE TABLE t(a, b); INSERT INTO t VALUES(1,10),(1,20),(2,5),(3,NULL),(2,7);",
        &[
            "SELECT count(*), count(b), sum(b), avg(b), min(b), max(b), total(b) FROM t",
            "SELECT a, count(*), sum(b) FROM t GROUP BY a",
            "SELECT a, sum(b) FROM t GROUP BY a HAVING sum(b) > 10",
            "SELECT a, count(*) AS n FROM t GROUP BY a ORDER BY n DESC, a",
            "SELECT count(DISTINCT a) FROM t",
            "SELECT count(*) FROM t WHERE a > 5",
            "SELECT a+1, max(b) FROM t GROUP BY a+1",
            "SELECT group_concat(b) FROM t",
            "SELECT sum(b) FROM t WHERE 0",
        ],
    );
}

#[test]
fn joins_and_subqueries() {
    check_each(
        "CREATE TABLE t1(a, b); CREATE TABLE t2(a, c); INSERT INTO t1 VALUES(1,'x'),(2,'y'),(3,'z'); INSERT INTO t2 VALUES(1,100),(3,300),(3,301);",
        &[
            "SELECT * FROM t1, t2 WHERE t1.a = t2.a",
            "SELECT t1.b, t2.c FROM t1 JOIN t2 ON t1.a = t2.a ORDER BY 2",
            "SELECT * FROM t1 LEFT JOIN t2 ON t1.a = t2.a",
            "SELECT * FROM t1 LEFT JOIN t2 USING(a)",
            "SELECT * FROM t1 NATURAL JOIN t2",
            "SELECT b, (SELECT max(c) FROM t2 WHERE t2.a = t1.a) FROM t1",
            "SELECT b FROM t1 WHERE a IN (SELECT a FROM t2)",
            "SELECT b FROM t1 WHERE a NOT IN (SELECT a FROM t2)",
            "SELECT b FROM t1 WHERE EXISTS (SELECT 1 FROM t2 WHERE t2.a = t1.a)",
            "SELECT * FROM (SELECT a*2 AS d FROM t1) WHERE d > 2",
            "SELECT x.a FROM t1 AS x WHERE x.a = 2",
            "SELECT a FROM t1, t2",
            "SELECT nosuch FROM t1",
            "SELECT * FROM nosuch",
        ],
    );
}

#[test]
fn compound() {
    check_each(
        "CREATE TABLE t1(a); CREATE TABLE t2(a); INSERT INTO t1 VALUES(1),(2),(2),(3); INSERT INTO t2 VALUES(2),(3),(4);",
        &[
            "SELECT a FROM t1 UNION SELECT a FROM t2",
            "SELECT a FROM t1 UNION ALL SELECT a FROM t2",
            "SELECT a FROM t1 INTERSECT SELECT a FROM t2",
            "SELECT a FROM t1 EXCEPT SELECT a FROM t2",
            "SELECT a FROM t1 UNION SELECT a FROM t2 ORDER BY 1 DESC LIMIT 2",
            "SELECT a FROM t1 UNION ALL SELECT a FROM t2 UNION SELECT 9",
            "SELECT 1, 2 UNION SELECT 3",
        ],
    );
}

#[test]
fn views_and_ctes() {
    check_each(
        "CREATE TABLE t(a, b); INSERT INTO t VALUES(1,2),(3,4); CREATE VIEW v AS SELECT a+b AS s FROM t;",
        &["SELECT * FROM v", "SELECT s FROM v WHERE s > 3", "WITH c(x) AS (SELECT a FROM t) SELECT x*10 FROM c", "DROP VIEW v; SELECT * FROM v"],
    );
}

#[test]
fn indexes() {
    check_each(
        "CREATE TABLE t(a INTEGER, b TEXT, c); CREATE INDEX ta ON t(a); CREATE UNIQUE INDEX tb ON t(b); INSERT INTO t VALUES(1,'one',1),(2,'two',2),(3,'three',3),(NULL,'n',4),(2,'deux',5);",
        &[
            "SELECT * FROM t WHERE a = 2",
            "SELECT * FROM t WHERE a = '2'",
            "SELECT * FROM t WHERE a > 1",
            "SELECT * FROM t WHERE a >= 2 AND a < 3",
            "SELECT * FROM t WHERE a < 3",
            "SELECT * FROM t WHERE b = 'two'",
            "INSERT INTO t VALUES(9,'two',9)",
            "DROP INDEX ta; SELECT * FROM t WHERE a = 2",
            "CREATE UNIQUE INDEX tc ON t(a)",
            "DROP TABLE t; SELECT * FROM t",
        ],
    );
}

#[test]
fn transactions() {
    check_each(
        "CREATE TABLE t(a UNIQUE);",
        &[
            "BEGIN; INSERT INTO t VALUES(1); INSERT INTO t VALUES(2); ROLLBACK; SELECT * FROM t;",
            "BEGIN; INSERT INTO t VALUES(1); COMMIT; SELECT * FROM t;",
            "BEGIN; INSERT INTO t VALUES(5); INSERT INTO t VALUES(1); INSERT INTO t VALUES(6); COMMIT; SELECT * FROM t;",
            "SAVEPOINT s; INSERT INTO t VALUES(7); ROLLBACK TO s; INSERT INTO t VALUES(8); RELEASE s; SELECT * FROM t;",
            "COMMIT",
            "ROLLBACK",
            "BEGIN; BEGIN;",
        ],
    );
}

#[test]
fn recursive_ctes() {
    check("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 10) SELECT x FROM c;");
    check("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c LIMIT 5) SELECT sum(x), count(*) FROM c;");
    check("WITH RECURSIVE c(x) AS (SELECT 1 UNION SELECT x % 3 + 1 FROM c) SELECT x FROM c;");
    check("CREATE TABLE e(p, c); INSERT INTO e VALUES(1,2),(1,3),(2,4),(4,5); WITH RECURSIVE d(n, depth) AS (SELECT 1, 0 UNION ALL SELECT e.c, d.depth+1 FROM e JOIN d ON e.p = d.n) SELECT n, depth FROM d ORDER BY n;");
    check("WITH RECURSIVE fib(a, b) AS (SELECT 0, 1 UNION ALL SELECT b, a+b FROM fib WHERE b < 100) SELECT group_concat(a) FROM fib;");
}
