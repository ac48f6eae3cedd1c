//! Tables: DDL, DML and queries, differentially against SQLite.
use crate::sql_common;
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
    check(
        "CREATE TABLE t(a UNIQUE, b); INSERT INTO t VALUES(1,1); INSERT OR IGNORE INTO t VALUES(1,2); INSERT OR REPLACE INTO t VALUES(1,3); SELECT * FROM t;",
    );
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

/// CREATE UNIQUE INDEX over rows holding duplicates: equal keys are found
/// next to each other in sorted order, NULLs never conflict, collations,
/// numeric equality across types and partial indexes decide as in SQLite.
#[test]
fn unique_index_built_over_duplicates() {
    check_each(
        "CREATE TABLE t(a, b, c TEXT, d TEXT COLLATE NOCASE);
         INSERT INTO t VALUES(1, 2, 'x', 'x'), (1, 3, 'X', 'X'), (NULL, 1, 'y', 'y'), (NULL, 1, NULL, NULL), (1.0, 9, '1', 'z'), (5, 2, x'00', 'w');
         WITH RECURSIVE n(i) AS (SELECT 10 UNION ALL SELECT i + 1 FROM n WHERE i < 900) INSERT INTO t SELECT i, -i, 'k' || i, 'K' || i FROM n;",
        &[
            "CREATE UNIQUE INDEX u ON t(a); PRAGMA integrity_check",
            "CREATE UNIQUE INDEX u ON t(a, b); PRAGMA integrity_check; SELECT count(*) FROM t WHERE a = 1",
            "CREATE UNIQUE INDEX u ON t(b, a); PRAGMA integrity_check",
            "CREATE UNIQUE INDEX u ON t(c); PRAGMA integrity_check",
            "CREATE UNIQUE INDEX u ON t(d); PRAGMA integrity_check",
            "CREATE UNIQUE INDEX u ON t(c COLLATE NOCASE)",
            "CREATE UNIQUE INDEX u ON t(a DESC, b DESC); PRAGMA integrity_check",
            "CREATE UNIQUE INDEX u ON t(abs(b))",
            "CREATE UNIQUE INDEX u ON t(b) WHERE a > 1; PRAGMA integrity_check; SELECT b FROM t WHERE a > 1 AND b = 2",
            "CREATE UNIQUE INDEX u ON t(b) WHERE a >= 1",
            "DELETE FROM t WHERE a = 1 AND b = 3; CREATE UNIQUE INDEX u ON t(a); PRAGMA integrity_check",
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
    check("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT n FROM r LIMIT 5;");
    check("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT n * 2 FROM r LIMIT 3 OFFSET 4;");
    check("CREATE TABLE q(a); REINDEX q; REINDEX nocase; REINDEX nosuch;");
    check("WITH RECURSIVE fib(a, b) AS (SELECT 0, 1 UNION ALL SELECT b, a+b FROM fib WHERE b < 100) SELECT group_concat(a) FROM fib;");
}

#[test]
fn alter_table() {
    check_each(
        "CREATE TABLE t(a INTEGER PRIMARY KEY, b UNIQUE); CREATE INDEX tb ON t(b); INSERT INTO t VALUES(1,'x'),(2,'y');",
        &[
            "ALTER TABLE t ADD COLUMN c INTEGER DEFAULT 7; SELECT * FROM t; INSERT INTO t(a,b) VALUES(3,'z'); SELECT * FROM t WHERE c = 7;",
            "ALTER TABLE t ADD d TEXT DEFAULT 'dd' NOT NULL; SELECT a, d FROM t; UPDATE t SET b = b || '!' WHERE a = 1; SELECT * FROM t;",
            "SELECT sql FROM sqlite_schema ORDER BY name",
            "ALTER TABLE t ADD COLUMN e NOT NULL",
            "ALTER TABLE t ADD COLUMN b",
            "ALTER TABLE t RENAME TO u; SELECT * FROM u WHERE b = 'y'; SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY name;",
            "SELECT * FROM t",
            "ALTER TABLE nosuch ADD COLUMN x",
            "CREATE TABLE al(a INTEGER, b TEXT, c INTEGER DEFAULT 7); CREATE INDEX al_b ON al(b); INSERT INTO al(a, b) VALUES(1,'x'),(2,'y');",
            "ALTER TABLE al RENAME COLUMN b TO bee; SELECT a, bee FROM al ORDER BY a; SELECT sql FROM sqlite_schema WHERE tbl_name = 'al' ORDER BY name;",
            "ALTER TABLE al DROP COLUMN c; SELECT * FROM al ORDER BY a; SELECT sql FROM sqlite_schema WHERE name = 'al';",
            "ALTER TABLE al DROP COLUMN bee",
            "ALTER TABLE al RENAME COLUMN nosuch TO z",
            "ALTER TABLE al DROP COLUMN a; SELECT * FROM al; SELECT sql FROM sqlite_schema WHERE name = 'al';",
        ],
    );
}

#[test]
fn upsert() {
    check_each(
        "CREATE TABLE kv(k TEXT PRIMARY KEY, v INTEGER, n INTEGER DEFAULT 0); CREATE TABLE r(id INTEGER PRIMARY KEY, x);",
        &[
            "INSERT INTO kv(k, v) VALUES('a', 1) ON CONFLICT(k) DO UPDATE SET v = v + excluded.v, n = n + 1; SELECT * FROM kv;",
            "INSERT INTO kv(k, v) VALUES('a', 5) ON CONFLICT(k) DO UPDATE SET v = v + excluded.v, n = n + 1; SELECT * FROM kv;",
            "INSERT INTO kv(k, v) VALUES('a', 9),('b', 2) ON CONFLICT DO NOTHING; SELECT * FROM kv; SELECT changes();",
            "INSERT INTO kv(k, v) VALUES('b', 100) ON CONFLICT(k) DO UPDATE SET v = excluded.v WHERE excluded.v > v; SELECT * FROM kv;",
            "INSERT INTO kv(k, v) VALUES('b', 1) ON CONFLICT(k) DO UPDATE SET v = excluded.v WHERE excluded.v > v; SELECT * FROM kv;",
            "INSERT INTO r VALUES(1, 'one') ON CONFLICT(id) DO UPDATE SET x = 'again:' || excluded.x; INSERT INTO r VALUES(1, 'uno') ON CONFLICT(id) DO UPDATE SET x = 'again:' || excluded.x; SELECT * FROM r;",
            "INSERT INTO kv(k, v) VALUES('z', 1) ON CONFLICT(v) DO NOTHING",
        ],
    );
}

#[test]
fn returning() {
    check_each(
        "CREATE TABLE t(id INTEGER PRIMARY KEY, a, b DEFAULT 'd');",
        &[
            "INSERT INTO t(a) VALUES(1),(2) RETURNING id, a, b",
            "INSERT INTO t VALUES(10, 'x', 'y') RETURNING *",
            "UPDATE t SET a = a || '!' WHERE id > 1 RETURNING id, a AS new_a",
            "DELETE FROM t WHERE id = 10 RETURNING a, b",
            "DELETE FROM t RETURNING id",
            "SELECT count(*) FROM t",
        ],
    );
}

#[test]
fn autoincrement() {
    check_each(
        "CREATE TABLE t(id INTEGER PRIMARY KEY AUTOINCREMENT, x); CREATE TABLE u(id INTEGER PRIMARY KEY AUTOINCREMENT, y);",
        &[
            "SELECT type, name, tbl_name, rootpage, sql FROM sqlite_schema",
            "INSERT INTO t(x) VALUES('a'),('b'),('c'); SELECT * FROM t; SELECT * FROM sqlite_sequence;",
            "DELETE FROM t WHERE id = 3; INSERT INTO t(x) VALUES('d'); SELECT * FROM t; SELECT * FROM sqlite_sequence;",
            "INSERT INTO t VALUES(100, 'e'); INSERT INTO t(x) VALUES('f'); INSERT INTO u(y) VALUES(1); SELECT * FROM t; SELECT * FROM sqlite_sequence ORDER BY name;",
            "DROP TABLE t; SELECT * FROM sqlite_sequence;",
            "CREATE TABLE v(id TEXT PRIMARY KEY AUTOINCREMENT)",
        ],
    );
}

#[test]
fn window_functions() {
    check_each(
        "CREATE TABLE w(g TEXT, x INTEGER); INSERT INTO w VALUES('a',1),('a',2),('a',2),('b',3),('b',5),('c',NULL);",
        &[
            "SELECT g, x, row_number() OVER (ORDER BY g, x), rank() OVER (ORDER BY x), dense_rank() OVER (ORDER BY x) FROM w ORDER BY g, x",
            "SELECT g, x, sum(x) OVER (PARTITION BY g ORDER BY x) FROM w ORDER BY g, x",
            "SELECT g, x, count(*) OVER (PARTITION BY g), max(x) OVER () FROM w ORDER BY g, x",
            "SELECT g, avg(x) OVER (PARTITION BY g) AS a FROM w ORDER BY a DESC, g",
            "SELECT x, row_number() OVER (PARTITION BY g ORDER BY x DESC) AS r FROM w ORDER BY g, r",
            "SELECT g, x, lag(x) OVER (ORDER BY g, x), lead(x, 1, -1) OVER (ORDER BY g, x), lag(x, 2) OVER (PARTITION BY g ORDER BY x) FROM w ORDER BY g, x",
            "SELECT g, x, first_value(x) OVER (PARTITION BY g ORDER BY x), last_value(x) OVER (PARTITION BY g ORDER BY x), nth_value(x, 2) OVER (PARTITION BY g ORDER BY x) FROM w ORDER BY g, x",
            "SELECT row_number() FROM w",
            "SELECT g, x, percent_rank() OVER (ORDER BY x), cume_dist() OVER (ORDER BY x) FROM w ORDER BY g, x",
            "SELECT g, x, ntile(2) OVER (ORDER BY g, x), ntile(4) OVER (PARTITION BY g ORDER BY x), ntile(10) OVER () FROM w ORDER BY g, x",
            "SELECT ntile(0) OVER (ORDER BY x) FROM w",
            "SELECT g, x, sum(x) OVER (PARTITION BY g ORDER BY x ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM w ORDER BY g, x",
            "SELECT g, x, first_value(x) OVER win, last_value(x) OVER win FROM w WINDOW win AS (PARTITION BY g ORDER BY x ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) ORDER BY g, x",
            "SELECT x, count(*) OVER (ORDER BY x RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING), sum(x) OVER (ORDER BY x ROWS UNBOUNDED PRECEDING) FROM w ORDER BY x",
            "SELECT x, sum(x) OVER nowin FROM w",
            "SELECT g, x, sum(x) OVER (ORDER BY g, x ROWS BETWEEN 1 PRECEDING AND CURRENT ROW), count(*) OVER (PARTITION BY g ORDER BY x ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING), total(x) OVER (ORDER BY g, x ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING), avg(x) OVER (ORDER BY g, x ROWS BETWEEN 2 FOLLOWING AND 3 FOLLOWING) FROM w ORDER BY g, x",
        ],
    );
}

#[test]
fn right_join() {
    check_each(
        "CREATE TABLE l(id, x); CREATE TABLE r(id, y); INSERT INTO l VALUES(1,'l1'),(2,'l2'),(3,'l3'),(NULL,'lnull'); INSERT INTO r VALUES(2,'r2'),(3,'r3'),(3,'r3b'),(4,'r4'),(NULL,'rnull');",
        &[
            "SELECT x, y FROM l RIGHT JOIN r ON l.id = r.id ORDER BY y",
            "SELECT * FROM l RIGHT OUTER JOIN r ON l.id = r.id WHERE r.id IS NOT NULL ORDER BY y, x",
            "SELECT count(*), count(x) FROM l RIGHT JOIN r ON l.id = r.id",
            "SELECT x, y FROM l FULL OUTER JOIN r ON l.id = r.id ORDER BY x, y",
            "SELECT x, y FROM l FULL JOIN r ON l.id = r.id WHERE x IS NULL OR y IS NULL ORDER BY x, y",
            "CREATE INDEX rid ON r(id); SELECT x, y FROM l FULL JOIN r ON l.id = r.id ORDER BY y, x",
        ],
    );
}

#[test]
fn triggers() {
    check_each(
        "CREATE TABLE acct(id INTEGER PRIMARY KEY, bal INTEGER); CREATE TABLE log(msg TEXT);
         CREATE TRIGGER acct_ins AFTER INSERT ON acct BEGIN INSERT INTO log VALUES('ins ' || new.id || ' ' || new.bal); END;
         CREATE TRIGGER acct_upd BEFORE UPDATE OF bal ON acct WHEN new.bal < 0 BEGIN SELECT RAISE(ABORT, 'negative balance'); END;
         CREATE TRIGGER acct_del AFTER DELETE ON acct BEGIN INSERT INTO log VALUES('del ' || old.id); UPDATE acct SET bal = bal + old.bal WHERE id = 1; END;",
        &[
            "INSERT INTO acct VALUES(1, 10), (2, 20); SELECT * FROM log; SELECT changes();",
            "UPDATE acct SET bal = -5 WHERE id = 1",
            "UPDATE acct SET bal = 5 WHERE id = 1; SELECT * FROM acct;",
            "DELETE FROM acct WHERE id = 2; SELECT * FROM acct; SELECT * FROM log; SELECT changes();",
            "SELECT type, name, tbl_name, sql FROM sqlite_schema WHERE type = 'trigger' ORDER BY name",
            "DROP TRIGGER acct_ins; INSERT INTO acct VALUES(3, 3); SELECT count(*) FROM log;",
            "DROP TRIGGER nosuch",
            "CREATE TRIGGER acct_upd AFTER INSERT ON acct BEGIN SELECT 1; END",
            "CREATE TRIGGER ign BEFORE INSERT ON log WHEN new.msg LIKE 'x%' BEGIN SELECT RAISE(IGNORE); END; INSERT INTO log VALUES('xa'), ('yb'); SELECT * FROM log WHERE msg IN ('xa','yb');",
            "DROP TABLE acct; SELECT name FROM sqlite_schema ORDER BY name",
        ],
    );
}

#[test]
fn temp_tables() {
    check_each(
        "CREATE TABLE m(a); INSERT INTO m VALUES(1),(2);",
        &[
            "CREATE TEMP TABLE t(x INTEGER PRIMARY KEY, y UNIQUE); INSERT INTO t VALUES(1,'a'),(2,'b'); SELECT * FROM t;",
            "SELECT m.a, t.y FROM m JOIN t ON m.a = t.x ORDER BY 1",
            "CREATE INDEX ty ON t(y); SELECT x FROM t WHERE y = 'b'; INSERT INTO t VALUES(3,'a');",
            "SELECT type, name, tbl_name, sql FROM sqlite_temp_master ORDER BY name",
            "SELECT name FROM sqlite_schema ORDER BY name",
            "BEGIN; INSERT INTO t VALUES(5,'e'); INSERT INTO m VALUES(5); ROLLBACK; SELECT count(*) FROM t; SELECT count(*) FROM m;",
            "UPDATE t SET y = y || '!' WHERE x = 1; DELETE FROM t WHERE x = 2; SELECT * FROM t;",
            "CREATE TEMP VIEW v AS SELECT x * 10 AS z FROM t; SELECT * FROM v;",
            "DROP TABLE t; SELECT * FROM t",
            "SELECT count(*) FROM sqlite_temp_master",
        ],
    );
}

#[test]
fn strict_tables() {
    check_each(
        "CREATE TABLE s(a INTEGER, b TEXT, c REAL, d ANY, e BLOB, f INT NOT NULL DEFAULT 0) STRICT;",
        &[
            "INSERT INTO s(a, b) VALUES('abc', 'x')",
            "INSERT INTO s(a, b, c, d) VALUES('12', 34, 5, '7'); SELECT a, typeof(a), b, typeof(b), c, typeof(c), d, typeof(d) FROM s;",
            "INSERT INTO s(c) VALUES('x')",
            "INSERT INTO s(e) VALUES(1)",
            "INSERT INTO s(a) VALUES(1.5)",
            "UPDATE s SET b = x'00'",
            "CREATE TABLE s2(a VARCHAR) STRICT",
            "CREATE TABLE s3(a) STRICT",
        ],
    );
}

#[test]
fn partial_indexes() {
    check_each(
        "CREATE TABLE ix(a, b); CREATE UNIQUE INDEX ixp ON ix(a) WHERE b > 0; INSERT INTO ix VALUES(1, 1), (1, 0), (2, 5);",
        &[
            "INSERT INTO ix VALUES(1, 9)",
            "INSERT INTO ix VALUES(1, -1); SELECT count(*) FROM ix WHERE a = 1;",
            "UPDATE ix SET b = 3 WHERE b = 0",
            "DELETE FROM ix WHERE b > 0; INSERT INTO ix VALUES(1, 7); SELECT * FROM ix ORDER BY a, b;",
            "CREATE INDEX ixq ON ix(b) WHERE a = 1; SELECT sql FROM sqlite_schema WHERE name = 'ixq'; PRAGMA integrity_check;",
        ],
    );
}

#[test]
fn create_table_as_select() {
    check_each(
        "CREATE TABLE src(a INTEGER, b TEXT, c REAL, d NUMERIC, e); INSERT INTO src VALUES(1,'x',1.5,2,x'00'),(2,'y',2.5,3,NULL);",
        &[
            "CREATE TABLE t2 AS SELECT a, b, c, d, e, a+1 AS f FROM src; SELECT * FROM t2; SELECT sql FROM sqlite_schema WHERE name = 't2';",
            "CREATE TABLE t3 AS SELECT a AS x, a AS x FROM src WHERE a > 1; SELECT * FROM t3; SELECT sql FROM sqlite_schema WHERE name = 't3';",
            "CREATE TABLE t4 AS SELECT 1; SELECT * FROM t4; PRAGMA table_info(t4);",
            "CREATE TABLE t2 AS SELECT 1",
        ],
    );
}
