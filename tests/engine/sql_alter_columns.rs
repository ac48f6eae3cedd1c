//! ALTER TABLE ADD and DROP COLUMN against the reference SQLite 3.54.1:
//! the rows kept (a VIRTUAL generated column dropped from a WITHOUT ROWID
//! table, STORED ones, rowid tables), the errors and their order (a
//! trigger broken before the drop, one broken by it), and a
//! `sqlite_schema` row edited under `writable_schema` (malformed).

use crate::sql_common::*;

#[test]
fn drop_column_keeps_rows() {
    for wo in ["", "WITHOUT ROWID"] {
        for vs in ["VIRTUAL", "STORED"] {
            for drop in ["c", "a", "d"] {
                check(&format!(
                    "CREATE TABLE 'my table'(a, b PRIMARY KEY, c AS (a+b) {vs}, d) {wo};
                     INSERT INTO \"my table\"(a, b, d) VALUES(1, 2, 'hello'), (3, 4, 'world');
                     ALTER TABLE \"my table\" DROP COLUMN {drop};
                     SELECT * FROM \"my table\";
                     SELECT count(*) FROM \"my table\";
                     PRAGMA integrity_check;
                     SELECT sql FROM sqlite_schema"
                ));
            }
            check(&format!(
                "CREATE TABLE x1(a, b, c PRIMARY KEY, d AS (b+c) {vs}, e) {wo};
                 INSERT INTO x1(a, b, c, e) VALUES(1, 2, 3, 4), (5, 6, 7, 8), (9, 10, 11, 12);
                 CREATE INDEX x1e ON x1(e, d);
                 ALTER TABLE x1 DROP COLUMN d;
                 SELECT * FROM x1;
                 ALTER TABLE x1 DROP COLUMN a;
                 SELECT * FROM x1 ORDER BY e;
                 PRAGMA integrity_check"
            ));
        }
    }
}

#[test]
fn drop_column_trigger_errors() {
    let setup = "CREATE TABLE p1(a PRIMARY KEY, b UNIQUE); CREATE TABLE c1(x, y, z)";
    for body in [
        "INSERT INTO p1 VALUES(new.y, new.xyz)",
        "INSERT INTO p1 VALUES(new.y, new.z)",
        "INSERT INTO p1 VALUES(new.x, new.rowid)",
        "INSERT INTO p1 VALUES(old.y, 1)",
        "INSERT INTO p1 VALUES(new.\"y\", new.[nope])",
        "INSERT INTO p1 VALUES(new.x, new.oid)",
    ] {
        for drop in ["y", "z", "x"] {
            check(&format!(
                "{setup}; CREATE TRIGGER tr AFTER INSERT ON c1 BEGIN {body}; END; ALTER TABLE c1 DROP COLUMN {drop}; SELECT sql FROM sqlite_schema"
            ));
        }
    }
}

#[test]
fn drop_column_of_an_edited_schema_row_is_malformed() {
    for sql in ["CREATE INDEX t1b ON t1(b)", "CREATE VIEW t2(x,y,z) AS SELECT b,a,c FROM t1"] {
        check(&format!(
            "CREATE TABLE t1(a,b,c); CREATE TABLE t2(x,y,z); INSERT INTO t2 VALUES(1,2,3);
             PRAGMA writable_schema=ON;
             UPDATE sqlite_schema SET sql='{sql}' WHERE name='t2';
             PRAGMA writable_schema=OFF;
             ALTER TABLE t2 DROP COLUMN z;
             SELECT * FROM t2"
        ));
    }
}

/// A column still named after the drop, in the words of SQLite 3.54.1:
/// written in double quotes, the message carries its string-literal hint.
#[test]
fn drop_column_names_a_quoted_reference_with_the_hint() {
    for s in [
        "CREATE TABLE t1(a,b); CREATE INDEX x1 on t1(\"b\"); ALTER TABLE t1 DROP COLUMN b",
        "CREATE TABLE t1(a,b); CREATE INDEX x1 on t1(b, \"b\"); ALTER TABLE t1 DROP COLUMN b",
        "CREATE TABLE t1(a,'b'); CREATE INDEX x1 on t1(\"B\"); ALTER TABLE t1 DROP COLUMN b",
        "CREATE TABLE t1(a,\"b\"); CREATE INDEX \"b\" on t1(a, b); ALTER TABLE t1 DROP COLUMN b",
        "CREATE TABLE t1(a,b); CREATE INDEX x1 on t1(a) WHERE \"b\" > 0; ALTER TABLE t1 DROP COLUMN b",
        "CREATE TABLE t1(a,b); CREATE INDEX x1 on t1(a, \"b\"+1); ALTER TABLE t1 DROP COLUMN b",
        "CREATE TABLE t1(a,b, c AS (\"b\"+1)); ALTER TABLE t1 DROP COLUMN b",
        "CREATE TABLE t1(a,b, c AS (b+1)); ALTER TABLE t1 DROP COLUMN b",
        "CREATE TABLE t1(a,b CHECK (\"b\">0), c CHECK(\"a\">0)); ALTER TABLE t1 DROP COLUMN a",
        "CREATE TABLE t1(a,b, CHECK(a>0)); ALTER TABLE t1 DROP COLUMN a",
    ] {
        check(s);
    }
}

/// `PRAGMA writable_schema=RESET` turns the flag off and reads the schema
/// again: a table made STRICT by editing its row is checked as STRICT.
#[test]
fn writable_schema_reset_reloads_the_schema() {
    check(
        "CREATE TABLE t1(id ANY PRIMARY KEY, x TEXT);
         INSERT INTO t1 VALUES(1,2),('three','four'),(x'5555','six'),(NULL,'eight');
         PRAGMA writable_schema=ON;
         UPDATE sqlite_schema SET sql=(sql||'STRICT') WHERE name='t1';
         PRAGMA writable_schema=RESET;
         PRAGMA writable_schema;
         PRAGMA integrity_check(t1);
         SELECT sql FROM sqlite_schema",
    );
    check(
        "CREATE TABLE t(a, b);
         PRAGMA writable_schema=1;
         UPDATE sqlite_schema SET sql='CREATE TABLE t(a, b, c)' WHERE name='t';
         SELECT * FROM t;
         PRAGMA writable_schema=reset;
         SELECT * FROM t;
         INSERT INTO t VALUES(1, 2, 3);
         SELECT * FROM t",
    );
}

/// DROP COLUMN after the schema text was written in other ways (TEMP,
/// an attached database, comments and odd spacing, an earlier ALTER in
/// the same connection): the row still holds the table, nothing is
/// reported malformed.
#[test]
fn drop_column_after_other_schema_texts() {
    check(
        "CREATE TEMP TABLE tt(a, b, c); INSERT INTO tt VALUES(1,2,3); ALTER TABLE tt DROP COLUMN b; SELECT * FROM tt;
         CREATE   TABLE /* x */ \"odd\" ( a ,  b -- c
         , c ) ; INSERT INTO odd VALUES(1,2,3); ALTER TABLE odd DROP COLUMN c; SELECT * FROM odd; SELECT sql FROM sqlite_schema WHERE name='odd';
         CREATE TABLE r(a, b, c, d); ALTER TABLE r RENAME COLUMN a TO z; ALTER TABLE r ADD COLUMN e DEFAULT 5; ALTER TABLE r DROP COLUMN b; ALTER TABLE r DROP COLUMN e;
         ALTER TABLE r RENAME TO r2; ALTER TABLE r2 DROP COLUMN c; SELECT sql FROM sqlite_schema WHERE name='r2';
         ATTACH ':memory:' AS aux; CREATE TABLE aux.t(a, b, c); INSERT INTO aux.t VALUES(1,2,3); ALTER TABLE aux.t DROP COLUMN a; SELECT * FROM aux.t",
    );
}

/// The CREATE TABLE text left by DROP COLUMN, spacing and comments
/// included, as SQLite cuts it (apps compare schema texts).
#[test]
fn drop_column_text_is_cut_as_sqlite_cuts_it() {
    for def in [
        "CREATE TABLE t(a, b , c  )",
        "CREATE TABLE t(a, b, c , PRIMARY KEY(a))",
        "CREATE TABLE t(a ,  b  , c)",
        "CREATE TABLE t(  a ,  b  , c)",
        "CREATE TABLE t(a, b /* x */ , c /* y */ )",
        "CREATE TABLE t(a INT DEFAULT (1), b TEXT CHECK(b != ','), c, CONSTRAINT k UNIQUE(a))",
        "CREATE TABLE t(a, b, c, CHECK(a > 0), FOREIGN KEY(b) REFERENCES t(a))",
        "CREATE TABLE t(a,b,c)",
        "CREATE TABLE t(a UNIQUE, b CONSTRAINT u UNIQUE ON CONFLICT REPLACE, c CHECK(c NOT IN (SELECT 1)), UNIQUE(c))",
        "CREATE TABLE t(a, b, c, UNIQUE(b), PRIMARY KEY(a))",
        "CREATE TABLE \"t\"(\"a\" , [b] , `c` -- end\n)",
    ] {
        for col in ["a", "b", "c"] {
            check(&format!("{def}; ALTER TABLE t DROP COLUMN {col}; SELECT sql FROM sqlite_schema"));
        }
    }
}
