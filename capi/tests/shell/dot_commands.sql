CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c REAL);
CREATE INDEX tb ON t(b);
INSERT INTO t VALUES (1, 'one', 1.5), (2, 'two, with comma', NULL), (3, 'quote "q"', -2.25);
.schema
.schema t
.indexes t
-- (.schema of a view runs a PRAGMA from inside a shell SQL function: not
-- yet possible on ringlite, see the README on re-entrancy)
CREATE VIEW v AS SELECT a, b FROM t WHERE a > 1;
.tables
.mode list
SELECT * FROM t ORDER BY a;
.headers on
.mode csv
SELECT * FROM t ORDER BY a;
.mode column
SELECT * FROM t ORDER BY a;
.mode json
SELECT * FROM t ORDER BY a;
.mode line
SELECT * FROM t ORDER BY a;
.mode box
SELECT * FROM t ORDER BY a;
.mode markdown
SELECT * FROM t ORDER BY a;
.mode table
SELECT * FROM t ORDER BY a;
.mode quote
SELECT * FROM t ORDER BY a;
.mode insert t2
SELECT * FROM t ORDER BY a;
.mode tabs
SELECT * FROM v;
.headers off
.mode list
.separator |
SELECT count(*), sum(c) FROM t;
.nullvalue NULL
SELECT b, c FROM t ORDER BY a;
