//! Database files holding virtual tables whose module is not registered,
//! differentially against SQLite: the file is written by the reference
//! (which has FTS5 and R*Tree built in) plus one table of a module neither
//! engine has (`nosuchmod`, stored through `writable_schema` as SQLite
//! itself stores a virtual table). The schema must load, ordinary and
//! shadow tables must work, and every use of a virtual table must fail with
//! SQLite's "no such module" error at the same step (prepare or run).
//!
//! Also non-ASCII identifiers (table, column, index, trigger, view names,
//! and the names in error messages), which once split a character inside
//! the compiler.

use crate::sql_common::{check_each, run_ours, run_ref, Outcome, RefDb, V};
use libsqlite3_sys as ffi;
use ringlite::{Connection, OpenFlags, StepResult};
use std::ffi::{CStr, CString};
use std::path::{Path, PathBuf};

/// The file every test starts from: an ordinary table, FTS5 and R*Tree
/// tables with their shadow tables, and a table of an unknown module.
const SETUP: &str = "CREATE TABLE x(a); INSERT INTO x VALUES(1);
    CREATE VIRTUAL TABLE f USING fts5(a); INSERT INTO f VALUES('hello');
    CREATE VIRTUAL TABLE r USING rtree(id, x0, x1); INSERT INTO r VALUES(1, 2, 3);
    PRAGMA writable_schema=ON;
    INSERT INTO sqlite_schema VALUES('table','c','c',0,'CREATE VIRTUAL TABLE c USING nosuchmod(z, \"a b\", 3)');
    PRAGMA writable_schema=OFF;";

/// Write the file with the reference into `dir/name`.
fn build(dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(name);
    let db = RefDb::open_path(path.to_str().unwrap());
    for o in run_ref(&db, SETUP) {
        assert!(!matches!(o, Outcome::Error { .. }), "setup failed: {o:?}");
    }
    path
}

/// What one statement did, telling a prepare error from a run error.
#[derive(Debug, Clone, PartialEq)]
enum Phased {
    Rows(Vec<String>, Vec<Vec<V>>),
    /// (extended code, message)
    PrepareError(i32, String),
    RunError(i32, String),
}

fn value_of(v: &ringlite::value::Value) -> V {
    use ringlite::value::Value;
    match v {
        Value::Null | Value::Pointer(_) => V::Null,
        Value::Integer(i) => V::Int(*i),
        Value::Real(r) => V::Real(r.to_bits()),
        Value::Text(t) => V::Text(t.clone()),
        Value::Blob(b) => V::Blob(b.clone()),
        Value::ZeroBlob(n) => V::Blob(vec![0; *n]),
    }
}

/// Every statement of `sql` on ringlite; stops at a prepare error.
fn phased_ours(conn: &mut Connection, sql: &str) -> Vec<Phased> {
    let mut out = Vec::new();
    let mut rest = sql.as_bytes();
    while !rest.iter().all(u8::is_ascii_whitespace) {
        let (stmt, tail) = match conn.prepare(rest) {
            Ok(x) => x,
            Err(e) => {
                out.push(Phased::PrepareError(e.code, e.message));
                return out;
            }
        };
        rest = &rest[tail..];
        let Some(mut st) = stmt else { continue };
        let names: Vec<String> = (0..st.column_count()).map(|i| st.column_name(i).to_string()).collect();
        let mut rows = Vec::new();
        let res = loop {
            match st.step(conn) {
                Ok(StepResult::Row) => rows.push((0..st.column_count()).map(|i| value_of(st.column(i))).collect()),
                Ok(StepResult::Done) => break Phased::Rows(names, rows),
                Ok(StepResult::Io) => continue,
                Err(e) => break Phased::RunError(e.code, e.message),
            }
        };
        st.reset(conn);
        out.push(res);
    }
    out
}

/// Every statement of `sql` on the reference; stops at a prepare error.
fn phased_ref(db: &RefDb, sql: &str) -> Vec<Phased> {
    let mut out = Vec::new();
    let c = CString::new(sql).unwrap();
    let mut tail: *const std::os::raw::c_char = c.as_ptr();
    // SAFETY: `db.0` is an open connection; `tail` stays inside `c`, which
    // outlives the loop; each statement is finalized before the next.
    unsafe {
        let errmsg = || CStr::from_ptr(ffi::sqlite3_errmsg(db.0)).to_string_lossy().into_owned();
        while *tail != 0 {
            let mut st = std::ptr::null_mut();
            if ffi::sqlite3_prepare_v2(db.0, tail, -1, &mut st, &mut tail) != ffi::SQLITE_OK {
                out.push(Phased::PrepareError(ffi::sqlite3_extended_errcode(db.0), errmsg()));
                return out;
            }
            if st.is_null() {
                continue;
            }
            let n = ffi::sqlite3_column_count(st);
            let names = (0..n).map(|i| CStr::from_ptr(ffi::sqlite3_column_name(st, i)).to_string_lossy().into_owned()).collect();
            let mut rows = Vec::new();
            let res = loop {
                match ffi::sqlite3_step(st) {
                    ffi::SQLITE_ROW => rows.push(
                        (0..n)
                            .map(|i| match ffi::sqlite3_column_type(st, i) {
                                ffi::SQLITE_INTEGER => V::Int(ffi::sqlite3_column_int64(st, i)),
                                ffi::SQLITE_FLOAT => V::Real(ffi::sqlite3_column_double(st, i).to_bits()),
                                ffi::SQLITE_NULL => V::Null,
                                ty => {
                                    let p = if ty == ffi::SQLITE_TEXT { ffi::sqlite3_column_text(st, i) } else { ffi::sqlite3_column_blob(st, i) as *const u8 };
                                    let len = ffi::sqlite3_column_bytes(st, i) as usize;
                                    let bytes = if p.is_null() { Vec::new() } else { std::slice::from_raw_parts(p, len).to_vec() };
                                    if ty == ffi::SQLITE_TEXT {
                                        V::Text(bytes)
                                    } else {
                                        V::Blob(bytes)
                                    }
                                }
                            })
                            .collect(),
                    ),
                    ffi::SQLITE_DONE => break Phased::Rows(names, rows),
                    _ => break Phased::RunError(ffi::sqlite3_extended_errcode(db.0), errmsg()),
                }
            };
            ffi::sqlite3_finalize(st);
            out.push(res);
        }
    }
    out
}

/// Run each script on its own copy of the file, on both engines, and
/// require the same outcome statement by statement.
fn check_scripts(scripts: &[&str]) {
    check_scripts_with(scripts, |o| o);
}

/// [`check_scripts`] comparing outcomes after `view`.
fn check_scripts_with(scripts: &[&str], view: impl Fn(Vec<Phased>) -> Vec<Phased>) {
    let dir = tempfile::tempdir().unwrap();
    for (n, sql) in scripts.iter().enumerate() {
        let theirs = build(dir.path(), &format!("ref{n}.db"));
        let ours_path = dir.path().join(format!("ours{n}.db"));
        std::fs::copy(&theirs, &ours_path).unwrap();
        let expected = phased_ref(&RefDb::open_path(theirs.to_str().unwrap()), sql);
        let mut conn = Connection::open(ours_path.to_str().unwrap(), OpenFlags(OpenFlags::READWRITE)).unwrap();
        let got = phased_ours(&mut conn, sql);
        assert_eq!(view(got), view(expected), "\nSQL: {sql}");
    }
}

fn no_module(module: &str) -> Phased {
    Phased::PrepareError(1, format!("no such module: {module}"))
}

#[test]
fn reference_writes_fts5_and_rtree() {
    let db = RefDb::open();
    let used = phased_ref(&db, "SELECT sqlite_compileoption_used('ENABLE_FTS5'), sqlite_compileoption_used('ENABLE_RTREE')");
    assert_eq!(
        used,
        vec![Phased::Rows(
            vec!["sqlite_compileoption_used('ENABLE_FTS5')".into(), "sqlite_compileoption_used('ENABLE_RTREE')".into()],
            vec![vec![V::Int(1), V::Int(1)]]
        )]
    );
}

#[test]
fn schema_loads_and_other_tables_work() {
    check_scripts(&[
        "SELECT count(*) FROM sqlite_master",
        "SELECT type, name, tbl_name, rootpage, sql FROM sqlite_master ORDER BY rowid",
        "SELECT sql FROM sqlite_schema WHERE sql IS NOT NULL ORDER BY tbl_name, type DESC, name",
        "SELECT * FROM x",
        "PRAGMA integrity_check",
        "PRAGMA quick_check",
        "PRAGMA integrity_check(c)",
        "PRAGMA integrity_check(x)",
        // Shadow tables are ordinary tables while their module is absent.
        "SELECT * FROM f_data ORDER BY id",
        "SELECT * FROM f_idx",
        "SELECT * FROM f_content",
        "SELECT * FROM f_docsize",
        "SELECT * FROM f_config",
        "SELECT * FROM r_node",
        "SELECT * FROM r_rowid",
        "SELECT * FROM r_parent",
        "PRAGMA table_info(f_idx)",
        "SELECT * FROM pragma_table_list WHERE name IN ('c', 'x', 'sqlite_schema') ORDER BY name",
        "PRAGMA index_list(c)",
        "PRAGMA foreign_key_list(c)",
        "PRAGMA index_info(c)",
        "PRAGMA trusted_schema",
        "WITH w AS (SELECT * FROM c) SELECT 1",
        "SELECT * FROM temp.c",
        "DROP INDEX c",
    ]);
}

#[test]
fn every_use_of_an_unknown_module_fails_at_prepare() {
    let uses = [
        "SELECT * FROM c",
        "SELECT * FROM main.c",
        "SELECT rowid FROM c",
        "SELECT 1 FROM c WHERE 0",
        "SELECT * FROM c NOT INDEXED",
        "SELECT * FROM x, c",
        "SELECT * FROM c AS t1 JOIN x ON t1.z = x.a",
        "SELECT * FROM x LEFT JOIN c",
        "SELECT * FROM x WHERE a IN c",
        "SELECT * FROM x WHERE a IN (SELECT z FROM c)",
        "SELECT (SELECT count(*) FROM c)",
        "SELECT * FROM c WHERE z MATCH 'a'",
        "SELECT * FROM c('hello')",
        "SELECT count(*) FROM c",
        "SELECT max(rowid) FROM c",
        "SELECT * FROM c ORDER BY z LIMIT 1",
        "SELECT 1 UNION SELECT * FROM c",
        "WITH w AS (SELECT * FROM c) SELECT * FROM w",
        "CREATE TABLE t2 AS SELECT * FROM c",
        "UPDATE x SET a = 1 FROM c",
        "INSERT INTO c SELECT * FROM x",
        "INSERT INTO c DEFAULT VALUES",
        "INSERT INTO c VALUES(1) RETURNING *",
        "DELETE FROM c WHERE rowid = 1",
        "UPDATE c SET z = 1 WHERE rowid = 1",
        "INSERT INTO c VALUES(1)",
        "REPLACE INTO c VALUES(1)",
        "INSERT INTO c VALUES(1) ON CONFLICT DO NOTHING",
        "INSERT INTO x SELECT * FROM c",
        "UPDATE c SET z = 1",
        "UPDATE x SET a = (SELECT z FROM c)",
        "DELETE FROM c",
        "DELETE FROM x WHERE a IN (SELECT * FROM c)",
        "PRAGMA table_info(c)",
        "PRAGMA main.table_info(c)",
        "PRAGMA table_xinfo(c)",
        "EXPLAIN SELECT * FROM c",
        "EXPLAIN QUERY PLAN SELECT * FROM c",
        "DROP TABLE c",
        "DROP TABLE IF EXISTS c",
        "DROP VIEW c",
        "ALTER TABLE c RENAME TO d",
    ];
    check_scripts(&uses);
    // (The differential run above proves the message and the step.)
    let dir = tempfile::tempdir().unwrap();
    let path = build(dir.path(), "t.db");
    let mut conn = Connection::open(path.to_str().unwrap(), OpenFlags(OpenFlags::READWRITE)).unwrap();
    assert_eq!(phased_ours(&mut conn, "SELECT * FROM c"), vec![no_module("nosuchmod")]);
}

/// The table-valued pragma runs when it is first read: that is when it
/// connects the table.
#[test]
fn table_valued_pragma_fails_when_run() {
    check_scripts(&["SELECT * FROM pragma_table_info('c')", "SELECT * FROM pragma_table_xinfo('c')", "SELECT * FROM x, pragma_table_info('c')"]);
}

#[test]
fn views_and_triggers_fail_when_used() {
    check_scripts(&[
        "CREATE VIEW v AS SELECT * FROM c; SELECT name FROM sqlite_master WHERE type = 'view'; SELECT * FROM v",
        "CREATE VIEW v AS SELECT * FROM c; PRAGMA table_info(v)",
        "CREATE VIEW v AS SELECT * FROM c; DROP VIEW v; SELECT count(*) FROM sqlite_master",
        "CREATE TRIGGER tt AFTER INSERT ON x BEGIN INSERT INTO c VALUES(1); END; SELECT count(*) FROM x; INSERT INTO x VALUES(2)",
        "CREATE TEMP TRIGGER tt AFTER INSERT ON x BEGIN DELETE FROM c; END; INSERT INTO x VALUES(1)",
        "CREATE TRIGGER tt AFTER DELETE ON x BEGIN SELECT * FROM c; END; DELETE FROM x",
    ]);
}

#[test]
fn ddl_on_virtual_tables() {
    check_scripts(&[
        "ALTER TABLE c ADD COLUMN y",
        "ALTER TABLE c RENAME COLUMN z TO y",
        "ALTER TABLE c DROP COLUMN z",
        "ALTER TABLE c RENAME TO x",
        "CREATE INDEX i ON c(z)",
        "CREATE TRIGGER tt AFTER INSERT ON c BEGIN SELECT 1; END",
        "CREATE TABLE c(a)",
        "CREATE VIEW c AS SELECT 1",
        "CREATE INDEX c ON x(a)",
        "ANALYZE; SELECT * FROM sqlite_stat1 ORDER BY tbl, idx",
        "ANALYZE c",
        "REINDEX c",
        // The other tables of the file are altered as usual.
        "ALTER TABLE x RENAME TO y; SELECT name, tbl_name, sql FROM sqlite_master ORDER BY rowid",
        "ALTER TABLE x ADD COLUMN b; ALTER TABLE x RENAME a TO q; SELECT * FROM x; SELECT sql FROM sqlite_master WHERE name = 'x'",
        "ALTER TABLE x ADD COLUMN b; ALTER TABLE x DROP COLUMN b; SELECT sql FROM sqlite_master WHERE name = 'x'",
        "ALTER TABLE f_data RENAME TO g_data; SELECT name FROM sqlite_master WHERE rootpage > 0 ORDER BY rowid",
        "DROP TABLE x; SELECT name FROM sqlite_master ORDER BY rowid",
        "DROP TABLE f_data; SELECT count(*) FROM sqlite_master",
    ]);
}

/// A foreign key whose parent is a virtual table has no parent key.
/// (ringlite reports every foreign key mismatch when the statement runs,
/// SQLite when it is prepared: only the outcome is compared.)
#[test]
fn foreign_key_to_a_virtual_table() {
    let run_time = |o: Vec<Phased>| o.into_iter().map(|p| if let Phased::PrepareError(c, m) = p { Phased::RunError(c, m) } else { p }).collect();
    // (The reference is built with foreign keys on by default.)
    check_scripts_with(&["PRAGMA foreign_keys = ON; CREATE TABLE f2(a REFERENCES c(z)); INSERT INTO f2 VALUES(1)"], run_time);
}

/// ALTER TABLE of another table checks every view and trigger, and one
/// that uses a virtual table fails on its missing module, when the
/// statement runs (as SQLite's "error in view ..." comes).
#[test]
fn alter_table_sees_views_and_triggers_using_a_virtual_table() {
    check_scripts(&[
        "CREATE VIEW v AS SELECT * FROM c; ALTER TABLE x RENAME TO y",
        "CREATE VIEW v AS SELECT * FROM c; ALTER TABLE x RENAME a TO b",
        "CREATE VIEW v AS SELECT * FROM c; ALTER TABLE x ADD COLUMN q; SELECT sql FROM sqlite_master WHERE name = 'x'",
        "CREATE VIEW v AS SELECT * FROM c; ALTER TABLE x DROP COLUMN a",
        "CREATE VIEW v AS WITH w AS (SELECT * FROM c) SELECT 1; ALTER TABLE x RENAME TO y; SELECT name FROM sqlite_master WHERE name = 'y'",
        "CREATE TRIGGER tt AFTER INSERT ON x BEGIN INSERT INTO c VALUES(1); END; ALTER TABLE x RENAME TO y",
        "CREATE TRIGGER tt AFTER INSERT ON x BEGIN SELECT * FROM c; END; ALTER TABLE x RENAME a TO b",
    ]);
}

#[test]
fn create_virtual_table_of_an_unknown_module_fails_when_run() {
    check_scripts(&[
        "CREATE VIRTUAL TABLE q USING nosuchmod2(a); SELECT count(*) FROM sqlite_master",
        "CREATE VIRTUAL TABLE q USING nosuchmod2",
        "CREATE VIRTUAL TABLE temp.q USING nosuchmod2(a)",
        "CREATE VIRTUAL TABLE \"çé\" USING \"nosuch mod\"(x)",
        "CREATE VIRTUAL TABLE IF NOT EXISTS c USING nosuchmod2(a)",
        "CREATE VIRTUAL TABLE IF NOT EXISTS x USING nosuchmod2(a)",
        "CREATE VIRTUAL TABLE c USING nosuchmod2(a)",
        "CREATE VIRTUAL TABLE x USING nosuchmod2(a)",
        "CREATE VIRTUAL TABLE sqlite_q USING nosuchmod2(a)",
        "CREATE VIRTUAL TABLE nodb.q USING nosuchmod2(a)",
        "ATTACH ':memory:' AS aux; CREATE VIRTUAL TABLE aux.q USING nosuchmod2(a)",
        // A failed CREATE VIRTUAL TABLE leaves the transaction open and
        // the statements before it in place.
        "BEGIN; INSERT INTO x VALUES(7); CREATE VIRTUAL TABLE q USING nosuchmod2(a); SELECT count(*) FROM x; COMMIT; SELECT count(*) FROM x",
    ]);
}

#[test]
fn attached_file_with_virtual_tables() {
    let dir = tempfile::tempdir().unwrap();
    let other = build(dir.path(), "other.db");
    let attach = format!("ATTACH '{}' AS aux;", other.to_str().unwrap());
    check_scripts(&[
        &format!("{attach} SELECT * FROM aux.x"),
        &format!("{attach} SELECT * FROM aux.c"),
        &format!("{attach} SELECT count(*) FROM aux.f_data"),
        &format!("{attach} PRAGMA aux.integrity_check"),
        &format!("{attach} DROP TABLE aux.c"),
    ]);
}

/// The module-dependent uses of the FTS5 and R*Tree tables: the reference
/// has those modules, so the comparison is with the message SQLite gives
/// for a module it lacks (checked differentially above with `nosuchmod`).
#[test]
fn fts5_and_rtree_tables_need_their_module() {
    let dir = tempfile::tempdir().unwrap();
    let path = build(dir.path(), "t.db");
    let mut conn = Connection::open(path.to_str().unwrap(), OpenFlags(OpenFlags::READWRITE)).unwrap();
    // (R*Tree is built in now: `r` is readable, see ext_rtree.rs.)
    // fts5 is built in too (src/ext/fts5, see ext_fts5.rs).
    for sql in ["SELECT * FROM f", "SELECT a FROM f('hello')"] {
        assert_eq!(phased_ours(&mut conn, sql), vec![Phased::Rows(vec!["a".into()], vec![vec![V::Text(b"hello".to_vec())]])], "{sql}");
    }
    // The reference, with the modules, reads them.
    let reference = RefDb::open_path(path.to_str().unwrap());
    assert_eq!(
        run_ref(&reference, "SELECT a FROM f WHERE f MATCH 'hello'"),
        vec![Outcome::Rows { names: vec!["a".into()], rows: vec![vec![V::Text(b"hello".to_vec())]] }]
    );
}

/// Writes by ringlite to a file holding virtual tables leave a file SQLite
/// finds valid, its FTS5 and R*Tree tables still working.
#[test]
fn our_writes_keep_the_file_valid_for_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let path = build(dir.path(), "t.db");
    let p = path.to_str().unwrap();
    {
        let mut conn = Connection::open(p, OpenFlags(OpenFlags::READWRITE)).unwrap();
        let script = "INSERT INTO x SELECT value FROM json_each('[2,3,4,5]');
            CREATE TABLE y(k INTEGER PRIMARY KEY, v TEXT); CREATE INDEX yv ON y(v);
            INSERT INTO y(v) SELECT printf('row %d', value) FROM json_each('[1,2,3,4,5,6,7,8,9]');
            UPDATE x SET a = a * 10; DELETE FROM y WHERE k % 2 = 0;
            ALTER TABLE y ADD COLUMN w DEFAULT 'w';
            VACUUM;";
        for o in run_ours(&mut conn, script) {
            assert!(!matches!(o, Outcome::Error { .. }), "{o:?}");
        }
    }
    let reference = RefDb::open_path(p);
    let ok = vec![Outcome::Rows { names: vec!["integrity_check".into()], rows: vec![vec![V::Text(b"ok".to_vec())]] }];
    assert_eq!(run_ref(&reference, "PRAGMA integrity_check"), ok);
    assert_eq!(run_ref(&reference, "SELECT sum(a) FROM x"), vec![Outcome::Rows { names: vec!["sum(a)".into()], rows: vec![vec![V::Int(150)]] }]);
    assert_eq!(run_ref(&reference, "SELECT count(*) FROM y"), vec![Outcome::Rows { names: vec!["count(*)".into()], rows: vec![vec![V::Int(5)]] }]);
    assert_eq!(
        run_ref(&reference, "SELECT a FROM f WHERE f MATCH 'hello'"),
        vec![Outcome::Rows { names: vec!["a".into()], rows: vec![vec![V::Text(b"hello".to_vec())]] }]
    );
    assert_eq!(run_ref(&reference, "SELECT id FROM r WHERE x0 >= 2"), vec![Outcome::Rows { names: vec!["id".into()], rows: vec![vec![V::Int(1)]] }]);
    assert_eq!(
        run_ref(&reference, "INSERT INTO f VALUES('world'); SELECT count(*) FROM f WHERE f MATCH 'world'; PRAGMA integrity_check"),
        vec![Outcome::Rows { names: vec![], rows: vec![] }, Outcome::Rows { names: vec!["count(*)".into()], rows: vec![vec![V::Int(1)]] }, ok[0].clone()]
    );
}

#[test]
fn vacuum_keeps_virtual_tables() {
    check_scripts(&[
        "VACUUM; SELECT type, name, tbl_name, rootpage, sql FROM sqlite_master WHERE rootpage = 0 ORDER BY name",
        "CREATE VIEW v AS SELECT * FROM x; VACUUM; SELECT type, name, sql FROM sqlite_master WHERE rootpage = 0 ORDER BY name; SELECT * FROM c",
        "VACUUM; SELECT * FROM f_content; PRAGMA integrity_check",
    ]);
}

#[test]
fn blob_open_on_a_virtual_table() {
    let dir = tempfile::tempdir().unwrap();
    let path = build(dir.path(), "t.db");
    let mut conn = Connection::open(path.to_str().unwrap(), OpenFlags(OpenFlags::READWRITE)).unwrap();
    let Err(err) = conn.blob_open("main", "c", "z", 1, false) else { panic!("a virtual table has no blobs") };
    assert_eq!((err.code, err.message.as_str()), (1, "cannot open virtual table: c"));
}

/// Names that are not ASCII, some with the seventh byte (where the
/// `sqlite_` prefix ends) inside a character, in every kind of statement
/// that names a schema object, and in the error messages that quote them.
#[test]
fn names_in_error_messages_as_sqlite_writes_them() {
    // "%T": the token as the statement spells it; "%s": the name.
    check_each(
        "CREATE TABLE t(a); CREATE VIEW v AS SELECT 1; CREATE TRIGGER tr AFTER INSERT ON t BEGIN SELECT 1; END;",
        &[
            "CREATE TABLE \"t\"(b)",
            "CREATE TABLE [t](b)",
            "CREATE TABLE main.`t`(b)",
            "CREATE TABLE 't'(b)",
            "CREATE VIEW \"v\" AS SELECT 2",
            "CREATE VIEW [t] AS SELECT 2",
            "CREATE TRIGGER \"tr\" AFTER INSERT ON t BEGIN SELECT 1; END",
            "CREATE TRIGGER main.[tr] AFTER INSERT ON t BEGIN SELECT 1; END",
            "CREATE INDEX \"t\" ON t(a)",
            "CREATE TABLE q(a, \"A\")",
            "CREATE TABLE q([a], `A`)",
            "CREATE TABLE \"t\"\"q\"(a); CREATE TABLE \"t\"\"q\"(a)",
            "ALTER TABLE t RENAME COLUMN \"nosuch\" TO b",
            "ALTER TABLE t RENAME COLUMN [nosuch] TO b",
            "ALTER TABLE t DROP COLUMN \"nosuch\"",
            "ALTER TABLE t DROP COLUMN nosuch",
        ],
    );
}

#[test]
fn non_ascii_identifiers() {
    for n in ["tä", "sqliteé", "ääääääää", "sqlitä_x", "日本語テーブル", "😀😀", "Ää"] {
        let q = format!("\"{n}\"");
        let scripts = [
            format!("CREATE TABLE {q}(a); INSERT INTO {q} VALUES(1); SELECT * FROM {q}; SELECT name FROM sqlite_master"),
            format!("CREATE TABLE {n}(a); SELECT * FROM {n}"),
            format!("CREATE TABLE t({q} INT, b); CREATE INDEX i ON t({q}); INSERT INTO t VALUES(1, 2); SELECT {q} FROM t WHERE {q} = 1; PRAGMA index_info(i)"),
            format!("CREATE TABLE t(a); CREATE INDEX {q} ON t(a); PRAGMA index_list(t); DROP INDEX {q}"),
            format!("CREATE TABLE t(a); ALTER TABLE t RENAME TO {q}; SELECT name, sql FROM sqlite_master"),
            format!("CREATE TABLE {q}(a); ALTER TABLE {q} ADD COLUMN b; ALTER TABLE {q} RENAME a TO {q}; SELECT sql FROM sqlite_master"),
            format!("CREATE TABLE {q}(a, b); ALTER TABLE {q} DROP COLUMN a; SELECT sql FROM sqlite_master"),
            format!("CREATE TABLE {q}(a); DROP TABLE {q}; SELECT count(*) FROM sqlite_master"),
            format!("CREATE VIEW {q} AS SELECT 1 AS {q}; SELECT * FROM {q}; PRAGMA table_info({q}); DROP VIEW {q}"),
            format!("CREATE TABLE t(a); CREATE TRIGGER {q} AFTER INSERT ON t BEGIN SELECT 1; END; DROP TRIGGER {q}"),
            format!("CREATE TABLE {q}(a); CREATE TRIGGER tr AFTER INSERT ON {q} BEGIN SELECT 1; END; INSERT INTO {q} VALUES(1)"),
            format!("SELECT * FROM {q}"),
            format!("SELECT {q} FROM (SELECT 1 AS a)"),
            format!("SELECT t.{q} FROM (SELECT 1 AS a) AS t"),
            format!("SELECT {q}.a FROM (SELECT 1 AS a)"),
            format!("SELECT 1 AS {q} ORDER BY {q}"),
            format!("SELECT {n}(1)"),
            format!("PRAGMA {n}"),
            format!("CREATE TABLE t(a COLLATE {q})"),
            format!("ATTACH ':memory:' AS {q}; CREATE TABLE {q}.t(a); SELECT * FROM {q}.t; DETACH {q}"),
            format!("CREATE TABLE {q}(a UNIQUE); INSERT INTO {q} VALUES(1), (1)"),
            format!("CREATE TABLE {q}(a NOT NULL); INSERT INTO {q} VALUES(NULL)"),
            format!("CREATE TABLE {q}(a CHECK(a > 0)); INSERT INTO {q} VALUES(0)"),
            format!("CREATE TABLE {q}({q} INTEGER PRIMARY KEY, b); INSERT INTO {q} VALUES(1, 1), (1, 2)"),
            format!("CREATE TABLE {q}(a PRIMARY KEY, b) WITHOUT ROWID; INSERT INTO {q} VALUES(1, 1), (1, 2)"),
            format!("CREATE TABLE t(a UNIQUE); CREATE TABLE {q}(b REFERENCES t(a)); PRAGMA foreign_keys = 1; INSERT INTO {q} VALUES(5)"),
            format!("CREATE VIRTUAL TABLE {q} USING {q}(a)"),
            format!("CREATE TABLE {q} AS SELECT 1 AS {q}, 2 AS {q}; SELECT * FROM {q}"),
            format!("CREATE TABLE {q}(a); CREATE TABLE {q}(b)"),
            format!("CREATE TABLE {q}(a); CREATE VIEW {q} AS SELECT 1"),
            format!("CREATE TABLE t(a); CREATE TRIGGER {q} AFTER INSERT ON t BEGIN SELECT 1; END; CREATE TRIGGER {q} AFTER INSERT ON t BEGIN SELECT 2; END"),
            format!("CREATE TABLE t(a); ALTER TABLE t RENAME COLUMN {q} TO b"),
            format!("CREATE TABLE t(a, b); ALTER TABLE t DROP COLUMN {q}"),
            format!("CREATE TABLE t({q}, {q})"),
            format!("WITH {q}(a) AS (SELECT 1) SELECT * FROM {q}"),
            format!("CREATE TABLE t(a); INSERT INTO t({q}) VALUES(1)"),
            format!("CREATE TABLE t(a); UPDATE t SET {q} = 1"),
            format!("REINDEX {q}"),
            format!("ANALYZE {q}"),
            format!("SAVEPOINT {q}; RELEASE {q}"),
            format!("SELECT :{n}, @{n}, ${n}"),
            format!("CREATE TABLE t(a {n}(10)); PRAGMA table_info(t)"),
            format!("SELECT CAST(1 AS {n})"),
        ];
        for s in &scripts {
            check_each("", &[s.as_str()]);
        }
    }
    // SQLite folds only ASCII letters: "Ää" and "ää" are two names, "ÄX"
    // and "Äx" one.
    check_each(
        "CREATE TABLE \"Ää\"(a); CREATE TABLE \"ää\"(b); CREATE TABLE \"ÄX\"(c);",
        &[
            "SELECT * FROM \"Äx\"",
            "SELECT name FROM sqlite_master ORDER BY name",
            "CREATE TABLE \"äX\"(d)",
            "CREATE TABLE \"Äx\"(d)",
            "CREATE INDEX \"ÄÄ\" ON \"Ää\"(a); CREATE INDEX \"Ää\" ON \"ää\"(b)",
        ],
    );
}

/// A `%` in a `file:` URI that two hex digits do not follow (here one is
/// followed by a character of two bytes) stays as it is.
#[test]
fn uri_percent_before_a_multibyte_character() {
    let dir = tempfile::tempdir().unwrap();
    let uri = format!("file:{}/a%1é%41.db", dir.path().to_str().unwrap());
    let mut conn = Connection::open(&uri, OpenFlags(OpenFlags::READWRITE | OpenFlags::CREATE | OpenFlags::URI)).unwrap();
    assert!(!run_ours(&mut conn, "CREATE TABLE t(a)").iter().any(|o| matches!(o, Outcome::Error { .. })));
    assert!(dir.path().join("a%1éA.db").exists());
}

/// The module arguments SQLite accepts (any tokens, nested parentheses,
/// quoted names and options) all load as virtual-table entries.
#[test]
fn module_argument_forms_load() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("forms.db");
    let p = path.to_str().unwrap();
    let setup = "CREATE TABLE src(a, b);
        CREATE VIRTUAL TABLE \"a b\" USING fts5(\"c d\", e UNINDEXED, tokenize = 'porter unicode61 remove_diacritics 2', prefix = '2 3');
        CREATE VIRTUAL TABLE ext USING fts5(a, b, content = 'src', content_rowid = 'rowid');
        CREATE VIRTUAL TABLE f4 USING fts4(a, b, tokenize=simple, matchinfo=fts3, order=DESC);
        CREATE VIRTUAL TABLE IF NOT EXISTS f3 USING fts3(a);
        CREATE VIRTUAL TABLE ri USING rtree_i32(id, minx, maxx, +aux TEXT);
        CREATE VIRTUAL TABLE main.[q r] USING rtree(id, a, b);
        PRAGMA writable_schema = ON;
        INSERT INTO sqlite_schema VALUES('table', 'odd', 'odd', 0, 'CREATE VIRTUAL TABLE odd USING \"no such\"(x = (1, (2)), ''y'', [z], -3.5e1, a b c)');
        INSERT INTO sqlite_schema VALUES('table', 'bare', 'bare', 0, 'CREATE VIRTUAL TABLE bare USING nomodule');
        PRAGMA writable_schema = OFF;";
    for o in run_ref(&RefDb::open_path(p), setup) {
        assert!(!matches!(o, Outcome::Error { .. }), "setup failed: {o:?}");
    }
    let mut conn = Connection::open(p, OpenFlags(OpenFlags::READWRITE)).unwrap();
    let list = "SELECT name FROM pragma_table_list WHERE type = 'virtual' ORDER BY name";
    assert_eq!(phased_ours(&mut conn, list), phased_ref(&RefDb::open_path(p), list));
    let count = "SELECT count(*) FROM sqlite_master; PRAGMA integrity_check";
    assert_eq!(phased_ours(&mut conn, count), phased_ref(&RefDb::open_path(p), count));
    for (table, module) in [("odd", "no such"), ("bare", "nomodule")] {
        assert_eq!(phased_ours(&mut conn, &format!("SELECT * FROM {table}")), vec![no_module(module)], "{table}");
    }
    // FTS3/FTS4, FTS5 (with external content) and R*Tree are built in
    // (src/ext): read as the reference reads them.
    for t in ["f4", "f3", "ri", "[q r]", "\"a b\"", "ext"] {
        let q = format!("SELECT * FROM {t}");
        assert_eq!(phased_ours(&mut conn, &q), phased_ref(&RefDb::open_path(p), &q), "{t}");
    }
    // The two the reference cannot connect either, differentially.
    for sql in ["SELECT * FROM odd", "SELECT * FROM bare", "DROP TABLE bare"] {
        assert_eq!(phased_ours(&mut conn, sql), phased_ref(&RefDb::open_path(p), sql), "{sql}");
    }
}

/// `pragma_table_info(m.name)` joined to the schema: SQLite runs the
/// pragma for each name, and fails when it reaches a virtual table.
#[test]
fn correlated_table_valued_pragma_fails_at_a_virtual_table() {
    check_scripts(&[
        "SELECT m.name, p.name FROM sqlite_master m, pragma_table_info(m.name) p WHERE m.name = 'x'",
        "SELECT m.name, p.name FROM sqlite_master m, pragma_table_info(m.name) p WHERE m.name IN ('x', 'c')",
        "SELECT m.name, p.* FROM sqlite_master m JOIN pragma_table_info(m.name) p WHERE m.name NOT IN ('f', 'r') ORDER BY 1, 2",
        "SELECT m.name, p.name FROM sqlite_master m, pragma_table_xinfo(m.name) p WHERE m.name = 'c'",
        "SELECT m.name, p.name FROM sqlite_master m LEFT JOIN pragma_table_info(m.name) p WHERE m.type = 'index'",
        "SELECT count(*) FROM sqlite_master m, pragma_index_list(m.name) p",
        "SELECT name, (SELECT count(*) FROM pragma_table_info(m.name)) FROM sqlite_master m WHERE name IN ('x', 'f_data')",
        "SELECT name, (SELECT count(*) FROM pragma_table_info(m.name)) FROM sqlite_master m WHERE name IN ('x', 'c')",
        "SELECT m.name FROM sqlite_master m WHERE m.rootpage > 0 AND EXISTS (SELECT 1 FROM pragma_table_info(m.name) WHERE name = 'a')",
        // (The reference has FTS5 and R*Tree: only `c` fails on both.)
        "SELECT m.name FROM sqlite_master m WHERE m.name NOT IN ('f', 'r') AND EXISTS (SELECT 1 FROM pragma_table_info(m.name) WHERE name = 'a')",
    ]);
}
