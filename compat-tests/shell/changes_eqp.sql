-- .changes and .eqp, EXPLAIN QUERY PLAN as a tree
CREATE TABLE t(a INTEGER PRIMARY KEY, b);
CREATE INDEX tb ON t(b);
.changes on
INSERT INTO t VALUES (1, 'x'), (2, 'y'), (3, 'x');
UPDATE t SET b = 'z' WHERE b = 'x';
SELECT count(*) FROM t;
DELETE FROM t WHERE a = 1; DELETE FROM t WHERE a = 2;
.changes off
EXPLAIN QUERY PLAN SELECT * FROM t WHERE a = 1;
.eqp on
SELECT b FROM t WHERE b = 'z';
SELECT * FROM t ORDER BY b;
.eqp off
SELECT 'done';
