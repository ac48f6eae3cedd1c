-- quote and insert modes: SQL literals
CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c REAL, d BLOB);
INSERT INTO t VALUES (1, 'one', 1.5, NULL), (2, '', NULL, x'cafe'), (3, 'quote "q", comma', -2.25, NULL), (4, NULL, 1e10, NULL), (5, 'ünïcödé', 0.0, NULL);
.mode quote
SELECT * FROM t ORDER BY a;
.headers on
SELECT a, b FROM t ORDER BY a;
.mode insert
SELECT a, b, d FROM t ORDER BY a;
.headers off
.mode insert other_table
SELECT * FROM t WHERE a < 3 ORDER BY a;
.mode insert "weird name"
SELECT a FROM t WHERE a = 1;
.mode insert select
SELECT a FROM t WHERE a = 1;
