-- .schema, .tables, .indexes on a schema with every kind of object
CREATE TABLE zeta(a, b);
CREATE TABLE alpha(id INTEGER PRIMARY KEY AUTOINCREMENT, c UNIQUE);
CREATE INDEX zeta_a ON zeta(a);
CREATE INDEX zeta_ab ON zeta(a, b DESC);
CREATE VIEW v1 AS SELECT a, b AS "bee", a+1 FROM zeta;
CREATE TRIGGER tr AFTER INSERT ON zeta BEGIN INSERT INTO alpha(c) VALUES (new.a); END;
CREATE TABLE "odd name"(x);
CREATE TABLE t1(x); CREATE TABLE t2(x); CREATE TABLE t3(x); CREATE TABLE t4(x); CREATE TABLE t5(x);
CREATE TABLE a_rather_long_table_name_for_columns(x);
.schema
.schema zeta
.schema alpha
.schema nomatch
.tables
.tables t%
.tables zeta
.indexes
.indexes zeta
.indexes alpha
