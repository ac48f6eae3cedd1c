-- tabs, html and tcl modes; mode switches keep or reset separators
CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c REAL, d BLOB);
INSERT INTO t VALUES (1, 'one', 1.5, NULL), (2, '', NULL, x'cafe'), (3, 'quote "q", comma', -2.25, NULL), (4, NULL, 1e10, NULL), (5, 'ünïcödé', 0.0, NULL);
.mode tabs
SELECT a, b, c FROM t ORDER BY a;
.headers on
SELECT a, b FROM t WHERE a < 3;
.mode html
SELECT a, b FROM t ORDER BY a;
.mode tcl
SELECT a, b FROM t ORDER BY a;
.mode csv
.mode list
SELECT a, b FROM t WHERE a < 3;
.mode
