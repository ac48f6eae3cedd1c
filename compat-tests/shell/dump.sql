-- .dump of tables, rows of every type, autoincrement, indexes, views, triggers
CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c REAL, d BLOB, e);
INSERT INTO t VALUES (1, 'it''s', 2.5, x'00ff10', NULL), (2, NULL, -1.0, NULL, 7), (3, '', 1.25e10, x'', 'x');
CREATE TABLE seq(id INTEGER PRIMARY KEY AUTOINCREMENT, v);
INSERT INTO seq(v) VALUES ('a'), ('b');
CREATE TABLE "select"("from" TEXT, [to] INT);
INSERT INTO "select" VALUES ('x', 1);
CREATE INDEX tb ON t(b);
CREATE VIEW tv AS SELECT a FROM t;
CREATE TRIGGER seq_tr AFTER DELETE ON seq BEGIN DELETE FROM t WHERE a = old.id; END;
.dump
.dump seq
.dump t%
