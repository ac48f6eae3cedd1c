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

/// The expressions inside the stored CREATE text, as SQLite checks them
/// when it runs each CREATE again while reading the schema: CHECK
/// constraints, DEFAULT values, generated columns, index expressions and
/// partial-index WHERE clauses (unknown functions, collations, parameters
/// in a DEFAULT and generated-column loops pass then).
#[test]
fn corrupt_schema_expressions_are_checked() {
    let tables = [
        "CREATE TABLE t9(a CHECK(b>0))",
        "CREATE TABLE t9(a, CHECK(zz>0))",
        "CREATE TABLE t9(a, CHECK((SELECT 1)))",
        "CREATE TABLE t9(a, CHECK(zz + (SELECT 1)))",
        "CREATE TABLE t9(a, CHECK(?1))",
        "CREATE TABLE t9(a, CHECK(nosuchfunc(a)))",
        "CREATE TABLE t9(a, CHECK(max(a)))",
        "CREATE TABLE t9(a, CHECK(row_number() OVER ()))",
        "CREATE TABLE t9(a DEFAULT (b))",
        "CREATE TABLE t9(a DEFAULT (nosuchfunc()))",
        "CREATE TABLE t9(a DEFAULT ((SELECT 1)))",
        "CREATE TABLE t9(a DEFAULT (?))",
        "CREATE TABLE t9(a DEFAULT (random()))",
        "CREATE TABLE t9(a, b AS (zz))",
        "CREATE TABLE t9(a, b AS ((SELECT 1)))",
        "CREATE TABLE t9(a, b AS (zz + (SELECT 1)))",
        "CREATE TABLE t9(a, b AS (a + (SELECT 1)))",
        "CREATE TABLE t9(a, b AS (random()))",
        "CREATE TABLE t9(a, b AS (nosuchfunc(a)))",
        "CREATE TABLE t9(a, b AS (count(a)))",
        "CREATE TABLE t9(a, b AS (b))",
        "CREATE TABLE t9(a, b AS (c), c AS (b))",
        "CREATE TABLE t9(a, b AS (?))",
        "CREATE TABLE t9(a INTEGER PRIMARY KEY AS (1))",
        "CREATE TABLE t9(a, b AS (a) DEFAULT 5)",
        "CREATE TABLE t9(a, b DEFAULT 5 AS (a))",
        "CREATE TABLE t9(a AS (1))",
        "CREATE TABLE t9(a COLLATE nosuchcoll)",
        "CREATE TABLE t9(a CHECK(zz), b AS ((SELECT 1)))",
    ];
    let indexes = [
        "CREATE INDEX i9 ON t1(zz)",
        "CREATE INDEX i9 ON t1(a+zz)",
        "CREATE INDEX i9 ON t1((SELECT 1))",
        "CREATE INDEX i9 ON t1(random())",
        "CREATE INDEX i9 ON t1(nosuchfunc(a))",
        "CREATE INDEX i9 ON t1(max(a))",
        "CREATE INDEX i9 ON t1(?)",
        "CREATE INDEX i9 ON t1(a) WHERE zz",
        "CREATE INDEX i9 ON t1(a) WHERE random()",
        "CREATE INDEX i9 ON t1(a) WHERE (SELECT 1)",
        "CREATE INDEX i9 ON t1(a) WHERE nosuchfunc(a)",
        "CREATE INDEX i9 ON t1(a) WHERE ?",
        "CREATE INDEX i9 ON t1(a COLLATE nosuchcoll)",
        "CREATE INDEX i9 ON t1(rowid)",
        "CREATE INDEX i9 ON t1(t1.a)",
        "CREATE INDEX i9 ON t1(likelihood(a, 2))",
    ];
    let rows = tables.iter().map(|t| ("table", "t9", "t9", *t)).chain(indexes.iter().map(|i| ("index", "i9", "t1", *i)));
    for (ty, name, tbl, text) in rows {
        let change = insert(&format!("'{ty}','{name}','{tbl}',5,'{}'", text.replace('\'', "''")));
        compare(&change, "SELECT * FROM t1");
    }
}

/// SQLite's first SELECT on a connection reads the schema (to learn the
/// text encoding) and fails on a corrupt row; once that read has met a
/// row, a SELECT naming no table compiles without the schema and runs,
/// while one naming a table still fails.
#[test]
fn corrupt_schema_select_without_table_after_a_failed_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.db").to_str().unwrap().to_string();
    {
        let r = RefDb::open_path(&path);
        run_ref(&r, &format!("{SETUP} PRAGMA writable_schema=ON; {}", update("tbl_name='tx' WHERE name='t1'")));
    }
    let r = RefDb::open_path(&path);
    let mut c = Connection::open(&path, OpenFlags(OpenFlags::READWRITE)).unwrap();
    for sql in [
        "SELECT 1",
        "SELECT 1",
        "SELECT * FROM t1",
        "SELECT 2, (SELECT 3) UNION ALL VALUES(4, 5)",
        "VALUES(6)",
        "SELECT * FROM sqlite_master",
        "SELECT 'from'",
        "CREATE TABLE t5(x)",
        "SELECT 8",
    ] {
        assert_eq!(run_ours(&mut c, sql), run_ref(&r, sql), "{sql}");
    }
    // A schema read that met no row (an empty file) leaves the flag unset.
    let r = RefDb::open_path(dir.path().join("e_ref.db").to_str().unwrap());
    let mut c = Connection::open(dir.path().join("e.db").to_str().unwrap(), OpenFlags(OpenFlags::READWRITE | OpenFlags::CREATE)).unwrap();
    for sql in ["SELECT 1", "CREATE TABLE a(x)", "SELECT 2", "SELECT * FROM a"] {
        assert_eq!(run_ours(&mut c, sql), run_ref(&r, sql), "{sql}");
    }
}

/// Trees sharing a root page: SQLite counts a tree's entries in its
/// structure pass, which stops at a page already met, so of the objects
/// sharing a root only the first walked has entries and the indexes of
/// the others are reported with the wrong number of entries.
#[test]
fn corrupt_schema_shared_roots_count_entries_once() {
    let root = |n: &str| format!("(SELECT rootpage FROM sqlite_master WHERE name='{n}')");
    for change in [
        insert(&format!("'table','t9','t9',{},'CREATE TABLE t9(a,b,c)'", root("t1"))),
        insert(&format!("'table','t9','t9',{},'CREATE TABLE t9(x)'", root("t2"))),
        insert(&format!("'index','i9','t2',{},'CREATE INDEX i9 ON t2(y)'", root("i1"))),
        insert(&format!("'index','i9','t1',{},'CREATE INDEX i9 ON t1(c)'", root("sqlite_autoindex_t2_1"))),
        insert(&format!("'index','i9','t2',{},'CREATE INDEX i9 ON t2(x)'", root("sqlite_autoindex_t2_1"))),
        update(&format!("rootpage={} WHERE name='t2'", root("t1"))),
        update(&format!("rootpage={} WHERE name='i1'", root("sqlite_autoindex_t2_2"))),
        update(&format!("rootpage={} WHERE name='i1'", root("sqlite_autoindex_t2_1"))),
    ] {
        let change = format!("INSERT INTO t2 VALUES(1,2),(3,4),(5,6); {change}");
        for sql in ["PRAGMA integrity_check", "PRAGMA quick_check"] {
            compare(&change, sql);
        }
    }
    // (Read as an index, the other's tree fails the check with
    // SQLITE_CORRUPT in SQLite; ours reports the structure first.)
    compare(&insert(&format!("'index','i9','t1',{},'CREATE INDEX i9 ON t1(a)'", root("t1"))), "PRAGMA quick_check");
}

/// `PRAGMA writable_schema=RESET` turns the pragma off and reads the
/// schema again: a table made STRICT by editing its row is checked as
/// STRICT at once (strict2.test 3.0).
#[test]
fn writable_schema_reset_reads_the_schema_again() {
    let sql = "CREATE TABLE t1(id ANY PRIMARY KEY, x TEXT);
        INSERT INTO t1 VALUES(1,2),('three','four'),(x'5555','six'),(NULL,'eight');
        PRAGMA writable_schema=ON;
        UPDATE sqlite_schema SET sql=(sql||'STRICT') WHERE name='t1';
        PRAGMA writable_schema=RESET; PRAGMA writable_schema;
        PRAGMA integrity_check(t1); SELECT sql FROM sqlite_schema;
        PRAGMA writable_schema='reset'; PRAGMA quick_check";
    let mut ours = crate::sql_common::ours_open();
    assert_eq!(run_ours(&mut ours, sql), run_ref(&RefDb::open(), sql));
}

/// The connection's own pragmas (foreign_keys, busy_timeout, ...) are
/// compiled without reading the schema, as SQLite's: they run on a file
/// that is not a database, or whose schema is corrupt, where any statement
/// reading the schema fails.
#[test]
fn connection_pragmas_run_without_reading_the_schema() {
    let dir = tempfile::tempdir().unwrap();
    let steps = [
        "PRAGMA foreign_keys=ON",
        "PRAGMA foreign_keys",
        "PRAGMA recursive_triggers=1",
        "PRAGMA recursive_triggers",
        "PRAGMA busy_timeout=250",
        "PRAGMA busy_timeout",
        "PRAGMA case_sensitive_like=1",
        "PRAGMA automatic_index",
        "PRAGMA query_only",
        "PRAGMA defer_foreign_keys",
        "PRAGMA main.legacy_alter_table",
        "SELECT 1",
        "PRAGMA foreign_keys",
    ];
    // A file that is not a database (larger than a page).
    for (name, bytes) in [("n.db", vec![b'x'; 5000])] {
        let ours_path = dir.path().join(name);
        let ref_path = dir.path().join(format!("ref_{name}"));
        std::fs::write(&ours_path, &bytes).unwrap();
        std::fs::write(&ref_path, &bytes).unwrap();
        let mut c = Connection::open(ours_path.to_str().unwrap(), OpenFlags(OpenFlags::READWRITE)).unwrap();
        let r = RefDb::open_path(ref_path.to_str().unwrap());
        for sql in steps {
            assert_eq!(run_ours(&mut c, sql), run_ref(&r, sql), "{sql}");
        }
    }
    // A corrupt schema row.
    let path = dir.path().join("s.db").to_str().unwrap().to_string();
    {
        let r = RefDb::open_path(&path);
        run_ref(&r, &format!("{SETUP} PRAGMA writable_schema=ON; {}", update("tbl_name='tx' WHERE name='t1'")));
    }
    let r = RefDb::open_path(&path);
    let mut c = Connection::open(&path, OpenFlags(OpenFlags::READWRITE)).unwrap();
    for sql in steps {
        assert_eq!(run_ours(&mut c, sql), run_ref(&r, sql), "{sql}");
    }
}

/// A connection keeps what it learned of each schema row's text from one
/// read of the schema to the next (`sql/schema/stored_check.rs`): when
/// another connection then damages the rows, every check is still made
/// against the rows as they are now. Here the connection read the schema,
/// appended rows with CREATEs, and read it again after an ALTER TABLE
/// before the damage (also a text the expression checks refuse).
#[test]
fn corrupt_schema_is_checked_again_after_another_connection_changes_it() {
    for change in [
        update("sql='CREATE TABLE t1(a,c,d)' WHERE name='t1'"),
        update("sql='CREATE TABLE t3(x,y)' WHERE name='t3'"),
        update("name='t9' WHERE name='t1'"),
        update("tbl_name='t1' WHERE name='i3'"),
        update("rootpage=999 WHERE name='t3'"),
        update("rootpage=(SELECT rootpage FROM sqlite_master WHERE name='i1') WHERE name='i3'"),
        insert("'table','t3','t3',5,'CREATE TABLE t3(z)'"),
        insert("'index','i3','t1',5,'CREATE INDEX i3 ON t1(c)'"),
        insert("'trigger','r3','t3',0,'CREATE TRIGGER r3 AFTER INSERT ON t3 BEGIN SELECT 5; END'"),
        "DELETE FROM sqlite_master WHERE name='t3'".into(),
        "DELETE FROM sqlite_master WHERE name='t1'".into(),
        // (The expression checks' memo, `connection/schema_expr_load.rs`.)
        update("sql='CREATE TABLE t1(a,b DEFAULT (a),c)' WHERE name='t1'"),
        update("sql='CREATE TABLE t1(a,b,c CHECK(zz))' WHERE name='t1'"),
        update("sql='CREATE TABLE t3(x,y AS (zz))' WHERE name='t3'"),
        update("sql='CREATE TABLE t3(x PRIMARY KEY AS (1),y)' WHERE name='t3'"),
        insert("'table','t4','t4',5,'CREATE TABLE t4(a DEFAULT ((SELECT 1)))'"),
    ] {
        // The same steps on two files, one read by each library through a
        // connection that stays open.
        let dir = tempfile::tempdir().unwrap();
        let paths = ["ours.db", "ref.db"].map(|f| dir.path().join(f).to_str().unwrap().to_string());
        for path in &paths {
            for o in run_ref(&RefDb::open_path(path), SETUP) {
                assert!(!matches!(o, Outcome::Error { .. }), "{o:?}");
            }
        }
        let mut c = Connection::open(&paths[0], OpenFlags(OpenFlags::READWRITE)).unwrap();
        let r = RefDb::open_path(&paths[1]);
        let warm = "SELECT * FROM t1; CREATE TABLE t3(x); CREATE INDEX i3 ON t3(x); ALTER TABLE t3 ADD COLUMN y; VACUUM; SELECT * FROM t3";
        assert_eq!(run_ours(&mut c, warm), run_ref(&r, warm));
        for path in &paths {
            // (A schema version no read saw yet makes both read it again.)
            for o in run_ref(&RefDb::open_path(path), &format!("PRAGMA writable_schema=ON; {change}; PRAGMA schema_version=1000")) {
                assert!(!matches!(o, Outcome::Error { .. }), "{change}: {o:?}");
            }
        }
        let sql = "SELECT * FROM t1; SELECT count(*) FROM sqlite_master";
        assert_eq!(run_ours(&mut c, sql), run_ref(&r, sql), "after {change}");
    }
}

/// Pragmas SQLite's pragma table does not mark as needing the schema
/// (header fields, lists, the connection's settings, and names it does not
/// know) run on a file whose schema fails to read, each on a fresh
/// connection and in a row on one; those marked (and `encoding`) fail with
/// the schema's error. Once that read has met a row, a SELECT of CTEs and
/// subqueries compiles without the schema too (a table, a qualified name
/// or a table-valued function in FROM still reads it).
#[test]
fn pragmas_and_cte_selects_run_without_the_schema_as_sqlites() {
    let steps = [
        "PRAGMA user_version",
        "PRAGMA main.user_version",
        "PRAGMA temp.user_version",
        "PRAGMA nosuch.user_version",
        "PRAGMA application_id",
        "PRAGMA schema_version",
        "PRAGMA freelist_count",
        "PRAGMA page_size",
        "PRAGMA database_list",
        "PRAGMA cache_spill",
        "PRAGMA journal_size_limit",
        "PRAGMA wal_autocheckpoint",
        "PRAGMA temp_store",
        "PRAGMA secure_delete",
        "PRAGMA mmap_size",
        "PRAGMA no_such_pragma",
        "SELECT count(*) > 100 FROM pragma_function_list",
        "PRAGMA integrity_check",
        "PRAGMA quick_check",
        "PRAGMA page_count",
        "PRAGMA encoding",
        "PRAGMA table_info(t1)",
        "PRAGMA journal_mode",
        "PRAGMA auto_vacuum",
        "PRAGMA max_page_count",
        "PRAGMA table_list",
        "PRAGMA user_version=5",
        "PRAGMA user_version",
        "PRAGMA application_id=9",
        "PRAGMA application_id",
        "WITH c(x) AS (SELECT 1) SELECT x FROM c",
        "SELECT * FROM (SELECT 1)",
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x<3) SELECT x FROM c",
        "WITH c AS (SELECT 1) SELECT * FROM c WHERE 1 IN c",
        "WITH c AS (SELECT 1) SELECT (SELECT count(*) FROM c)",
        "WITH a AS (SELECT * FROM b), b AS (SELECT 1) SELECT * FROM a",
        "WITH c AS (SELECT 1) SELECT * FROM c NATURAL JOIN (c AS d)",
        "WITH c AS (SELECT * FROM c) SELECT * FROM c",
        "WITH c AS (SELECT 1) SELECT * FROM main.c",
        "WITH c AS (SELECT 1) SELECT * FROM c, t1",
        "SELECT * FROM generate_series(1, 3)",
    ];
    let dir = tempfile::tempdir().unwrap();
    let changes = [
        update("sql='CREATE TABLE t2(x,y' WHERE name='t2'"),
        update("tbl_name='tx' WHERE name='t1'"),
        update("rootpage=1000 WHERE name='t2'"),
        insert("'index','i9','nosuch',5,'CREATE INDEX i9 ON nosuch(b)'"),
    ];
    for (n, change) in changes.iter().enumerate() {
        let path = dir.path().join(format!("s{n}.db")).to_str().unwrap().to_string();
        {
            let r = RefDb::open_path(&path);
            run_ref(&r, &format!("PRAGMA page_size=1024; {SETUP} PRAGMA user_version=7; PRAGMA writable_schema=ON; {change}"));
        }
        let bytes = std::fs::read(&path).unwrap();
        // One file name for both libraries (database_list shows it),
        // written again before each.
        let file = dir.path().join(format!("w{n}.db"));
        let file = file.to_str().unwrap();
        // Each on a fresh connection (its first statement).
        for sql in steps {
            std::fs::write(file, &bytes).unwrap();
            let ours = run_ours(&mut Connection::open(file, OpenFlags(OpenFlags::READWRITE)).unwrap(), sql);
            std::fs::write(file, &bytes).unwrap();
            assert_eq!(ours, run_ref(&RefDb::open_path(file), sql), "{change}: fresh {sql}");
        }
        // In a row on one connection (after a failed read of the schema).
        std::fs::write(file, &bytes).unwrap();
        let mut c = Connection::open(file, OpenFlags(OpenFlags::READWRITE)).unwrap();
        let ours: Vec<_> = steps.iter().map(|sql| run_ours(&mut c, sql)).collect();
        drop(c);
        std::fs::write(file, &bytes).unwrap();
        let r = RefDb::open_path(file);
        for (sql, ours) in steps.iter().zip(ours) {
            assert_eq!(ours, run_ref(&r, sql), "{change}: {sql}");
        }
    }
    // A file that is not a database: what reads the header fails.
    let file = dir.path().join("n.db");
    let file = file.to_str().unwrap();
    for sql in ["PRAGMA page_size", "PRAGMA user_version", "PRAGMA freelist_count", "PRAGMA no_such_pragma", "PRAGMA cache_spill", "SELECT 1"] {
        std::fs::write(file, vec![b'x'; 5000]).unwrap();
        let ours = run_ours(&mut Connection::open(file, OpenFlags(OpenFlags::READWRITE)).unwrap(), sql);
        std::fs::write(file, vec![b'x'; 5000]).unwrap();
        assert_eq!(ours, run_ref(&RefDb::open_path(file), sql), "not a database: {sql}");
    }
}

/// An index whose root page is a table's tree, or a table on an index's
/// tree, or a table whose root reads as 0: the integrity check reports the
/// page met twice, then fails with SQLITE_CORRUPT where a cursor finds its
/// root of the other kind (SQLite fails the statement there rather than
/// reporting it as a row). The trees are listed in SQLite's order, views
/// included (with a root of 0): a view listed first makes the check
/// partial, so pages never used are not reported.
#[test]
fn roots_of_the_other_kind_fail_the_check_as_sqlites() {
    let root = |n: &str| format!("(SELECT rootpage FROM sqlite_master WHERE name='{n}')");
    let setups = [
        // The view last: listed first.
        "CREATE TABLE t1(a INTEGER PRIMARY KEY, b TEXT, c); CREATE INDEX i1 ON t1(b); CREATE TABLE t2(x,y); \
         CREATE VIEW v1 AS SELECT * FROM t1; INSERT INTO t1 VALUES(1,'a',1),(2,'b',2); INSERT INTO t2 VALUES(1,2);",
        // No view.
        "CREATE TABLE t1(a INTEGER PRIMARY KEY, b TEXT, c); CREATE INDEX i1 ON t1(b); CREATE TABLE t2(x,y); \
         INSERT INTO t1 VALUES(1,'a',1),(2,'b',2); INSERT INTO t2 VALUES(1,2);",
    ];
    let changes = [
        update(&format!("rootpage={} WHERE name='i1'", root("t2"))),
        update(&format!("rootpage={} WHERE name='t2'", root("i1"))),
        update("rootpage=0 WHERE name='t2'"),
    ];
    let dir = tempfile::tempdir().unwrap();
    for (s, setup) in setups.iter().enumerate() {
        for (n, change) in changes.iter().enumerate() {
            let path = dir.path().join(format!("s{s}_{n}.db")).to_str().unwrap().to_string();
            {
                let r = RefDb::open_path(&path);
                run_ref(&r, &format!("{setup} PRAGMA writable_schema=ON; {change}"));
            }
            let bytes = std::fs::read(&path).unwrap();
            let file = dir.path().join("w.db");
            let file = file.to_str().unwrap();
            for sql in [
                "PRAGMA integrity_check",
                "PRAGMA quick_check",
                "PRAGMA integrity_check(t1)",
                "PRAGMA integrity_check(t2)",
                "PRAGMA quick_check(t2)",
                "SELECT * FROM t2",
                "SELECT count(*) FROM t2",
            ] {
                std::fs::write(file, &bytes).unwrap();
                let ours = run_ours(&mut Connection::open(file, OpenFlags(OpenFlags::READWRITE)).unwrap(), sql);
                std::fs::write(file, &bytes).unwrap();
                assert_eq!(ours, run_ref(&RefDb::open_path(file), sql), "{setup} {change}: {sql}");
            }
        }
    }
}
