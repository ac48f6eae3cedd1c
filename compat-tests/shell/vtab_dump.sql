-- .dump of a database with an FTS5 table: writable_schema and shadow tables
CREATE VIRTUAL TABLE f USING fts5(a);
INSERT INTO f VALUES ('hello world'), ('second row');
CREATE TABLE n(x);
INSERT INTO n VALUES (1);
.dump
