-- .mode json: values of every storage class, headers off and on
CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c REAL, d BLOB);
INSERT INTO t VALUES (1, 'one', 1.5, NULL), (2, '', NULL, x'cafe'), (3, 'quote "q", comma', -2.25, NULL), (4, NULL, 1e10, NULL), (5, 'ünïcödé', 0.0, NULL);
.mode json
SELECT * FROM t ORDER BY a;
SELECT a, b FROM t WHERE a > 2 ORDER BY a DESC;
.headers on
SELECT a AS "first col", b AS "x" FROM t ORDER BY a;
SELECT 1 AS one, 'two' AS two; SELECT 3 AS three;
.headers off
SELECT count(*) FROM t;
.nullvalue NULL
SELECT b, c FROM t ORDER BY a;
SELECT * FROM t WHERE 0;
