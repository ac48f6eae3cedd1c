//! INSERT ... SELECT row by row as SQLite codes it: the SELECT a
//! co-routine whose rows are inserted as they come, except when the
//! table has triggers or the SELECT reads it (a table copied into itself,
//! through a view, a subquery or an index), where all rows are taken
//! first; and REPLACE on a rowid conflict removing the old row's index
//! entries only, the insert overwriting its table entry. Results, change
//! counts, index contents and integrity must be SQLite's.
use crate::sql_common::check;

const SETUP: &str = "CREATE TABLE src(a INTEGER PRIMARY KEY, b INT, c TEXT);
WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 30)
INSERT INTO src SELECT i, (i * 7) % 11, 'v' || (i % 4) FROM k;
CREATE TABLE t(a INTEGER PRIMARY KEY, b INT, c TEXT);
CREATE INDEX tb ON t(b); CREATE UNIQUE INDEX tc ON t(c, b);";

fn script(body: &str) -> String {
    format!(
        "{SETUP}\n{body}\nSELECT changes(), total_changes();\nSELECT * FROM t ORDER BY a;\nSELECT b, a FROM t INDEXED BY tb WHERE b > -1e9;\n\
         SELECT c, b, a FROM t INDEXED BY tc WHERE c > '';\nPRAGMA integrity_check;"
    )
}

#[test]
fn insert_select_streams_or_materialises_as_sqlite() {
    for body in [
        "INSERT INTO t SELECT a, b, c || a FROM src;",
        "INSERT INTO t SELECT a, b, c || a FROM src WHERE b > 3 ORDER BY b DESC LIMIT 7;",
        "INSERT INTO t(b, c) SELECT b, c || a FROM src UNION ALL SELECT b + 1, c || 'x' || a FROM src WHERE a < 5;",
        "INSERT INTO t(b, c) SELECT b, group_concat(a) FROM src GROUP BY b;",
        "INSERT INTO t(b, c) SELECT DISTINCT b, c FROM src;",
        // The SELECT reads the table: all its rows first.
        "INSERT INTO t SELECT a, b, c || a FROM src WHERE a < 6; INSERT INTO t(b, c) SELECT b + 100, c || 'y' FROM t;",
        "INSERT INTO t SELECT a, b, c || a FROM src WHERE a < 6; CREATE VIEW v AS SELECT * FROM t; INSERT INTO t(b, c) SELECT b + 1, c || 'z' FROM v;",
        "INSERT INTO t SELECT a, b, c || a FROM src WHERE a < 6; INSERT INTO t(b, c) SELECT (SELECT count(*) FROM t), c || a FROM src;",
        "INSERT INTO t SELECT a, b, c || a FROM src WHERE a < 6; INSERT INTO t(b, c) SELECT b, c || a FROM src WHERE b IN (SELECT b FROM t);",
        // Rows see the inserts before them (SQLite's co-routine).
        "INSERT INTO t(b, c) SELECT last_insert_rowid(), 'w' || a FROM src;",
        "INSERT INTO t(b, c) SELECT total_changes(), 'w' || a FROM src;",
        // Triggers: all rows first, whatever the trigger writes.
        "CREATE TABLE log(x); CREATE TRIGGER tr AFTER INSERT ON t BEGIN DELETE FROM src WHERE a = new.a + 1; INSERT INTO log VALUES(new.a); END;\n\
         INSERT INTO t SELECT a, b, c || a FROM src; SELECT count(*) FROM log;",
        // A failure part-way undoes the rows already inserted.
        "INSERT INTO t SELECT a, b, c FROM src;",
        "INSERT INTO t SELECT a, b, c || a FROM src WHERE a < 3; INSERT INTO t SELECT a + 10, b, CASE a WHEN 9 THEN 'v' || (a - 8) || 'x' ELSE c || 'q' || a END FROM src;",
        "INSERT INTO t(a, b, c) SELECT a, b, c FROM src WHERE a < 4 UNION ALL SELECT 2, 0, 'dup';",
        "INSERT OR IGNORE INTO t SELECT a % 9, b, c || a FROM src;",
    ] {
        check(&script(body));
    }
}

#[test]
fn replace_on_rowid_overwrites_as_sqlite() {
    for body in [
        "INSERT INTO t SELECT a, b, c || a FROM src; REPLACE INTO t SELECT a, b + 1, c || a FROM src WHERE a % 3 = 0;",
        "INSERT INTO t SELECT a, b, c || a FROM src; REPLACE INTO t(a, b, c) VALUES (4, 99, 'new'), (5, 98, 'v13'), (100, 1, 'v1' || 'x');",
        // Conflicts on the rowid and on the UNIQUE index at once.
        "INSERT INTO t SELECT a, b, c || a FROM src; REPLACE INTO t VALUES (7, 3, 'v12');",
        "INSERT INTO t SELECT a, b, c || a FROM src; INSERT OR REPLACE INTO t SELECT a % 10, b, c || (a % 10) FROM src;",
        "INSERT INTO t SELECT a, b, c || a FROM src; REPLACE INTO t SELECT a, b, c || a FROM t WHERE a < 10;",
        // A partial index and an expression index.
        "CREATE INDEX tp ON t(c) WHERE b > 5; CREATE INDEX te ON t(b * 2, lower(c));\n\
         INSERT INTO t SELECT a, b, c || a FROM src; REPLACE INTO t SELECT a, 10 - b, upper(c) || a FROM src;\n\
         SELECT c FROM t INDEXED BY tp WHERE b > 5 ORDER BY c; SELECT a FROM t INDEXED BY te WHERE b * 2 > 4 ORDER BY a;",
        // Foreign keys and recursive DELETE triggers keep the full deletion.
        "PRAGMA foreign_keys = ON; CREATE TABLE ch(p REFERENCES t ON DELETE CASCADE);\n\
         INSERT INTO t SELECT a, b, c || a FROM src; INSERT INTO ch VALUES (3), (4);\n\
         REPLACE INTO t VALUES (3, 1, 'r'); SELECT * FROM ch;",
        "PRAGMA recursive_triggers = ON; CREATE TABLE log(x);\n\
         CREATE TRIGGER td AFTER DELETE ON t BEGIN INSERT INTO log VALUES (old.a); END;\n\
         INSERT INTO t SELECT a, b, c || a FROM src; REPLACE INTO t VALUES (3, 1, 'r'), (4, 2, 'v04'); SELECT * FROM log;",
        // UPDATE moving a row onto another's rowid.
        "INSERT INTO t SELECT a, b, c || a FROM src; UPDATE OR REPLACE t SET a = a + 1 WHERE a = 5;",
    ] {
        check(&script(body));
    }
}
