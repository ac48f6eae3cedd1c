-- .echo prints each input, .databases lists attached files, .tables names them
.echo on
SELECT 1;
-- comment
SELECT 2,
  3;
.headers on
ATTACH 'other.db' AS aux;
CREATE TABLE aux.x(a);
CREATE TABLE main.y(b);
.databases
.tables
.echo off
SELECT 4;
CREATE TEMP VIEW tv AS SELECT 1 AS one;
CREATE INDEX aux.xi ON x(a);
CREATE UNIQUE INDEX aux.xu ON x(a);
.schema
