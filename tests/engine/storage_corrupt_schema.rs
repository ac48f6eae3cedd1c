//! Schema tables SQLite refuses to read: each row of `sqlite_schema` is
//! checked as the schema is read (type, name and table name against the
//! CREATE text, root pages, orphan automatic indexes, CREATE errors), and a
//! failing row makes every statement needing the schema fail with
//! "malformed database schema (NAME)". Files are written by the reference
//! under `PRAGMA writable_schema`, then read by both libraries.

use crate::sql_common::{run_ours, run_ref, Outcome, RefDb};
use ringlite::{Connection, OpenFlags};

const SETUP: &str = "CREATE TABLE t1(a,b,c); INSERT INTO t1 VALUES(1,2,3); CREATE INDEX i1 ON t1(b); \
    CREATE VIEW v2 AS SELECT 15,22; CREATE TRIGGER r1 AFTER INSERT ON t1 BEGIN SELECT 5; END; \
    CREATE TABLE t2(x PRIMARY KEY, y UNIQUE);";

/// The file after `change` (run with writable_schema on), and what the
/// reference says to `sql` on a fresh connection.
fn compare(change: &str, sql: &str) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.db").to_str().unwrap().to_string();
    {
        let r = RefDb::open_path(&path);
        for o in run_ref(&r, &format!("{SETUP} PRAGMA writable_schema=ON; {change}")) {
            assert!(!matches!(o, Outcome::Error { .. }), "{change}: {o:?}");
        }
    }
    let want = run_ref(&RefDb::open_path(&path), sql);
    let mut c = Connection::open(&path, OpenFlags(OpenFlags::READWRITE)).unwrap();
    assert_eq!(run_ours(&mut c, sql), want, "after {change}");
}

fn update(set: &str) -> String {
    format!("UPDATE sqlite_master SET {set}")
}

fn insert(values: &str) -> String {
    format!("INSERT INTO sqlite_master VALUES({values})")
}

#[test]
fn corrupt_schema_names_types_and_tables_are_checked() {
    for change in [
        update("tbl_name=NULL WHERE name='t1'"),
        update("tbl_name='tx' WHERE name='t1'"),
        update("type='tabl' WHERE name='t1'"),
        update("name='t9' WHERE name='t1'"),
        update("tbl_name='T1' WHERE name='t1'"),
        update("type='view' WHERE name='t1'"),
        update("tbl_name='tx' WHERE name='i1'"),
        update("type='table' WHERE name='i1'"),
        update("type='view' WHERE name='i1'"),
        update("type='table' WHERE name='v2'"),
        update("type='view' WHERE name='r1'"),
        update("tbl_name='v2' WHERE name='r1'"),
        update("name=NULL, sql=NULL WHERE name='i1'"),
        insert("NULL,'t9','t9',5,'CREATE TABLE t9(a)'"),
        insert("'table','tX','tX',5,'CREATE TABLE t9(a,,b)'"),
        insert("'trigger','r9','t9',0,'CREATE TEMP TRIGGER r9 AFTER INSERT ON t1 BEGIN SELECT 5; END'"),
        insert("'view','t9','t9',0,'CREATE VIRTUAL TABLE t9 USING fts5(a)'"),
    ] {
        compare(&change, "SELECT * FROM t1; SELECT count(*) FROM sqlite_master");
    }
}

#[test]
fn corrupt_schema_sql_text_is_checked() {
    for change in [
        update("sql='nonsense'"),
        update("sql='create nonsense' WHERE name='t1'"),
        update("sql='CREATE TABLE t1(a,a)' WHERE name='t1'"),
        update("sql='' WHERE name='t1'"),
        update("sql='  CREATE TABLE t1(a,b,c)' WHERE name='t1'"),
        update("sql='SELECT 1' WHERE name='t1'"),
        update("sql='x' WHERE name='sqlite_autoindex_t2_1'"),
        update("sql=NULL WHERE name='t1'"),
        update("sql=NULL WHERE name='r1'"),
        update("sql='CREATE TABLE t1(a,b,c) ' WHERE name='t1'"),
        insert("'table','t9','t9',5,5"),
        insert("'table','t9','t9',5,'cr'"),
        insert("'table','t9','t9',5,'CREATE TABLE t9(a'"),
        insert("'table','t9','t9',5,'cReate TABLE t9(a)'"),
        insert("'index','i9','t1',5,'CREATE INDEX i9 ON t1(c); SELECT 1'"),
        insert("'index','i9','t1',5,'CREATE INDEX i9 ON t1(c);   '"),
        insert("'index','i9','t1',5,'CREATE INDEX i9 ON t1(c);'"),
        insert("'index','i9','t1',5,'CREATE INDEX i9 ON t1(c) -- x'"),
        insert("'table','t9','t9',5,'CREATE TABLE t9 AS SELECT 1'"),
        insert("'table','t9','t9',5,'CREATE TABLE main.t9(a)'"),
        insert("'index','i9','t1',5,'CREATE INDEX main.i9 ON t1(c)'"),
        insert("'trigger','r9','t1',0,'CREATE TRIGGER main.r9 AFTER INSERT ON t1 BEGIN SELECT 5; END'"),
        insert("'table','t9','t9',5,'CREATE TABLE t9(a INTEGER PRIMARY KEY, b PRIMARY KEY)'"),
        insert("'table','t9','t9',5,'CREATE TABLE t9(a, b) WITHOUT ROWID'"),
        insert("'table','t9','t9',5,'CREATE TABLE t9(a FOO) STRICT'"),
        insert("'table','t9','t9',5,'CREATE TABLE t9(a, UNIQUE(zz))'"),
        insert("'view','v9','v9',0,'CREATE VIEW v9 AS SELECT ?'"),
        insert("'view','v9','v9',0,'CREATE VIEW v9 AS SELECT nosuch FROM nosuch'"),
    ] {
        compare(&change, "SELECT * FROM t1; SELECT count(*) FROM sqlite_master");
    }
}

#[test]
fn corrupt_schema_objects_are_entered_in_row_order() {
    for change in [
        insert("'table','t1','t1',5,'CREATE TABLE t1(z)'"),
        insert("'table','t1','t1',5,'CREATE TABLE IF NOT EXISTS t1(a)'"),
        insert("'index','i1','t1',5,'CREATE INDEX i1 ON t1(c)'"),
        insert("'table','i1','i1',5,'CREATE TABLE i1(a)'"),
        insert("'index','t2','t1',5,'CREATE INDEX t2 ON t1(c)'"),
        insert("'view','t2','t2',0,'CREATE VIEW t2 AS SELECT 1'"),
        insert("'table','sqlite_master','sqlite_master',1,'CREATE TABLE sqlite_master(a)'"),
        insert("'index','i9','t1',5,'CREATE INDEX i9 ON t1(zz)'"),
        insert("'index','i9','v2',5,'CREATE INDEX i9 ON v2(c)'"),
        insert("'trigger','r1','t1',0,'CREATE TRIGGER r1 AFTER INSERT ON t1 BEGIN SELECT 5; END'"),
        insert("'trigger','r9','tz',0,'CREATE TRIGGER r9 AFTER INSERT ON tz BEGIN SELECT 5; END'"),
        insert("'trigger','r9','v2',0,'CREATE TRIGGER r9 AFTER INSERT ON v2 BEGIN SELECT 5; END'"),
        insert("'trigger','r9','t1',0,'CREATE TRIGGER r9 INSTEAD OF INSERT ON t1 BEGIN SELECT 5; END'"),
        insert("'trigger','r9','sqlite_master',0,'CREATE TRIGGER r9 AFTER INSERT ON sqlite_master BEGIN SELECT 5; END'"),
        insert("'trigger','r9','t1',0,'CREATE TRIGGER IF NOT EXISTS r1 AFTER INSERT ON t1 BEGIN SELECT 5; END'"),
        insert("'whatever','t9','t9',5,NULL"),
        insert("'whatever',NULL,'t9',5,NULL"),
        "INSERT INTO sqlite_master(rowid,type,name,tbl_name,rootpage,sql) VALUES(0,'index','i9','t1',5,'CREATE INDEX i9 ON t1(c)')".into(),
        "DELETE FROM sqlite_master WHERE name='t1'".into(),
        "DELETE FROM sqlite_master WHERE name='t2'".into(),
        update("name='sqlite_autoindex_t2_9' WHERE name='sqlite_autoindex_t2_1'"),
    ] {
        compare(&change, "SELECT * FROM t1; SELECT count(*) FROM sqlite_master");
    }
}

#[test]
fn corrupt_schema_root_pages_are_checked() {
    for change in [
        update("rootpage=NULL WHERE name='t1'"),
        update("rootpage=999 WHERE name='t1'"),
        update("rootpage='abc' WHERE name='t1'"),
        update("rootpage=-1 WHERE name='t1'"),
        update("rootpage=1 WHERE name='t1'"),
        update("rootpage=999 WHERE name='i1'"),
        update("rootpage=1 WHERE name='i1'"),
        update("rootpage=0 WHERE name='sqlite_autoindex_t2_1'"),
        update("rootpage=999 WHERE name='sqlite_autoindex_t2_1'"),
        update("rootpage=rootpage+1000 WHERE name='r1'"),
        insert("'table','t9','t9',5.5,'CREATE TABLE t9(a)'"),
        insert("'table','t9','t9','5','CREATE TABLE t9(a)'"),
        insert("'table','t9','t9','','CREATE TABLE t9(a)'"),
        insert("'table','t9','t9',' 5','CREATE TABLE t9(a)'"),
        insert("'table','t9','t9',x'05','CREATE TABLE t9(a)'"),
        insert("'table','t9','t9',4294967297,'CREATE TABLE t9(a)'"),
        insert("'view','v9','v9',5,'CREATE VIEW v9 AS SELECT 1'"),
        // (SQLite then reads sqlite_master through that index: only t1 is
        // compared.)
        insert("'index','i9','sqlite_master',5,'CREATE INDEX i9 ON sqlite_master(name)'"),
        insert("'table','t9','t9',5,'CREATE VIRTUAL TABLE t9 USING nosuchmod'"),
        insert("'index','i9','t1',(SELECT rootpage FROM sqlite_master WHERE name='i1'),'CREATE INDEX i9 ON t1(c)'"),
        insert("'index','sqlite_autoindex_t2_2','t2',(SELECT rootpage FROM sqlite_master WHERE name='sqlite_autoindex_t2_1'),NULL"),
    ] {
        compare(&change, "SELECT * FROM t1");
    }
}

/// Under writable_schema the rows are not checked: the schema loads with
/// what it could read (so the damage can be repaired).
#[test]
fn corrupt_schema_is_read_under_writable_schema() {
    compare(&update("tbl_name='tx' WHERE name='t1'"), "PRAGMA writable_schema=ON; SELECT * FROM t1; SELECT name FROM sqlite_master ORDER BY 1");
}

/// A table whose root page reads as 0 loads, but a check of it fails
/// with SQLITE_CORRUPT, as any read of it does.
#[test]
fn corrupt_schema_table_root_zero_fails_integrity_check() {
    for sql in ["PRAGMA quick_check", "PRAGMA integrity_check", "SELECT * FROM t9", "SELECT * FROM t1"] {
        compare(&insert("'table','t9','t9',0,'CREATE TABLE t9(a)'"), sql);
    }
}

/// ALTER TABLE RENAME rewrites each schema row by type and name: a trigger
/// sharing its name with an index left the index's row replaced by the
/// trigger's and the trigger's own row stale (which the checks above then
/// refused). The rows must be SQLite's after the rename.
#[test]
fn corrupt_schema_not_written_by_rename_when_a_trigger_shares_an_index_name() {
    let sql = "CREATE TABLE log(x, a, b); CREATE TABLE tbl(a, b); CREATE TABLE t1(a, b); CREATE INDEX i1 ON t1(a, b);
        CREATE TRIGGER t1 AFTER INSERT ON tbl BEGIN INSERT INTO log VALUES('after insert', new.a, new.b); END;
        CREATE TRIGGER i1 AFTER DELETE ON tbl BEGIN INSERT INTO log VALUES('after delete', old.a, old.b); END;
        ALTER TABLE t1 RENAME TO t2; ALTER TABLE tbl RENAME TO tbl2;
        SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY rowid; PRAGMA integrity_check";
    let mut ours = crate::sql_common::ours_open();
    assert_eq!(run_ours(&mut ours, sql), run_ref(&RefDb::open(), sql));
}
