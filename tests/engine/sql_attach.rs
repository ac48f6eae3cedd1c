//! ATTACH against real SQLite: a database file written by SQLite
//! (libsqlite3-sys) is attached to a ringlite connection, read and written
//! through qualified and unqualified names, inside transactions that span
//! main and the attached file; the same script runs on SQLite on copies of
//! the same files, with the same outcomes, and SQLite then reads our files
//! back and finds them intact (after a VACUUM of the attached file too). Also: schema changes made to the attached
//! file by another connection are noticed, and statements prepared before
//! a DETACH/ATTACH see the databases attached when they run.
#![allow(unsafe_code)]
use crate::sql_common;
use ringlite::{Connection, OpenFlags, StepResult};
use sql_common::*;

fn open(path: &str) -> Connection {
    Connection::open(path, OpenFlags(OpenFlags::READWRITE | OpenFlags::CREATE)).unwrap()
}

fn ok_integrity() -> Vec<Outcome> {
    vec![Outcome::Rows { names: vec!["integrity_check".into()], rows: vec![vec![V::Text(b"ok".to_vec())]] }]
}

fn no_errors(out: &[Outcome]) -> bool {
    !out.iter().any(|o| matches!(o, Outcome::Error { .. }))
}

/// What SQLite puts in the file before it is attached.
const AUX_SETUP: &str = "PRAGMA user_version = 42;
CREATE TABLE items(id INTEGER PRIMARY KEY, name TEXT, qty INT);
CREATE INDEX items_name ON items(name);
CREATE TABLE log(msg TEXT UNIQUE);
CREATE TABLE seqd(id INTEGER PRIMARY KEY AUTOINCREMENT, v);
WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM k WHERE i<300)
INSERT INTO items SELECT i, printf('item %03d', i), i * 7 % 50 FROM k;
INSERT INTO seqd(v) VALUES('x'),('y');";

/// Run on both engines with the file attached as `aux` (main is its own file).
const SCRIPT: &str = "CREATE TABLE items(id INTEGER PRIMARY KEY, note);
INSERT INTO items VALUES(1, 'main row');
SELECT count(*), sum(qty), max(name) FROM aux.items;
SELECT * FROM items;
SELECT * FROM aux.items WHERE name = 'item 150';
PRAGMA aux.user_version; PRAGMA user_version;
PRAGMA aux.index_list(items);
SELECT type, name, tbl_name FROM aux.sqlite_schema ORDER BY name;
BEGIN;
INSERT INTO main.items VALUES(2, 'in txn');
WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM k WHERE i<500)
INSERT INTO aux.items(name, qty) SELECT printf('new %04d', i), i FROM k;
UPDATE aux.items SET qty = qty + 1000 WHERE id % 10 = 0;
DELETE FROM aux.items WHERE id % 7 = 3;
INSERT INTO log VALUES('attached write');
COMMIT;
SELECT count(*), sum(qty), min(name), max(name) FROM aux.items;
SELECT * FROM main.items ORDER BY id;
BEGIN;
INSERT INTO aux.log VALUES('rolled back');
DELETE FROM aux.items;
INSERT INTO main.items VALUES(3, 'rolled back');
ROLLBACK;
SELECT count(*) FROM aux.items; SELECT * FROM log; SELECT count(*) FROM main.items;
INSERT INTO aux.log VALUES('second write');
SELECT * FROM log;
INSERT INTO seqd(v) VALUES('z'); SELECT * FROM aux.seqd; SELECT * FROM aux.sqlite_sequence;
CREATE TABLE aux.extra(a, b);
CREATE INDEX aux.extra_b ON extra(b);
INSERT INTO extra SELECT id, name FROM aux.items WHERE id < 50;
SELECT count(*) FROM aux.extra WHERE b > 'item 020';
PRAGMA aux.user_version = 43;
PRAGMA aux.integrity_check; PRAGMA integrity_check;
SELECT m.note, a.name FROM main.items AS m JOIN aux.items AS a USING(id) ORDER BY id;
DROP INDEX aux.extra_b;
SELECT name FROM aux.sqlite_schema ORDER BY name;
DELETE FROM aux.items WHERE id % 2 = 0;
VACUUM aux;
PRAGMA aux.freelist_count;
SELECT count(*), sum(qty) FROM aux.items;";

fn attach_sql(path: &std::path::Path) -> String {
    format!("ATTACH DATABASE '{}' AS aux", path.to_str().unwrap().replace('\'', "''"))
}

#[test]
fn attached_sqlite_file_is_read_written_and_stays_valid() {
    let dir = tempfile::tempdir().unwrap();
    let (ours_aux, ref_aux) = (dir.path().join("ours_aux.db"), dir.path().join("ref_aux.db"));
    {
        let writer = RefDb::open_path(ours_aux.to_str().unwrap());
        let out = run_ref(&writer, AUX_SETUP);
        assert!(no_errors(&out), "{out:?}");
    }
    std::fs::copy(&ours_aux, &ref_aux).unwrap();
    let mut ours = open(dir.path().join("ours_main.db").to_str().unwrap());
    let reference = RefDb::open_path(dir.path().join("ref_main.db").to_str().unwrap());
    assert_eq!(run_ours(&mut ours, &attach_sql(&ours_aux)), run_ref(&reference, &attach_sql(&ref_aux)));
    assert_eq!(ours.db_filename("aux").as_deref(), Some(std::fs::canonicalize(&ours_aux).unwrap().to_str().unwrap()));
    assert_eq!(ours.db_readonly("aux"), 0);
    for stmt in SCRIPT.split_inclusive(';') {
        let stmt = stmt.trim();
        if stmt.is_empty() {
            continue;
        }
        let a = run_ours(&mut ours, stmt);
        let b = run_ref(&reference, stmt);
        assert_eq!(a, b, "\nSQL: {stmt}");
        assert!(no_errors(&a), "{stmt}: {a:?}");
    }
    // A transaction spanning both: each file's pager commits.
    assert_eq!(ours.txn_state(Some("aux")), 0);
    assert_eq!(run_ours(&mut ours, "DETACH aux"), run_ref(&reference, "DETACH aux"));
    drop(ours);
    drop(reference);
    // SQLite reads the file ringlite wrote: intact, and the same as the
    // one SQLite wrote running the same statements.
    let check_ours = RefDb::open_path(ours_aux.to_str().unwrap());
    let check_ref = RefDb::open_path(ref_aux.to_str().unwrap());
    assert_eq!(run_ref(&check_ours, "PRAGMA integrity_check"), ok_integrity());
    let dump = "SELECT * FROM items ORDER BY id; SELECT * FROM log; SELECT * FROM extra ORDER BY a; SELECT * FROM sqlite_sequence;
        PRAGMA user_version; SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY name; SELECT name FROM items WHERE name > 'new 0490'";
    assert_eq!(run_ref(&check_ours, dump), run_ref(&check_ref, dump));
    let main_ours = RefDb::open_path(dir.path().join("ours_main.db").to_str().unwrap());
    assert_eq!(run_ref(&main_ours, "PRAGMA integrity_check"), ok_integrity());
    assert_eq!(run_ref(&main_ours, "SELECT * FROM items ORDER BY id").len(), 1);
}

fn query_all(conn: &mut Connection, sql: &str) -> Vec<Outcome> {
    run_ours(conn, sql)
}

#[test]
fn schema_change_by_another_connection_is_noticed() {
    let dir = tempfile::tempdir().unwrap();
    let aux = dir.path().join("aux.db");
    let other = RefDb::open_path(aux.to_str().unwrap());
    assert!(no_errors(&run_ref(&other, "CREATE TABLE t(a); INSERT INTO t VALUES(1)")));
    let mut ours = open(":memory:");
    assert!(no_errors(&run_ours(&mut ours, &attach_sql(&aux))));
    let (st, _) = ours.prepare(b"SELECT * FROM aux.t").unwrap();
    let mut st = st.unwrap();
    assert_eq!(st.step(&mut ours).unwrap(), StepResult::Row);
    assert_eq!(st.column_count(), 1);
    st.reset(&mut ours);
    // Another connection changes aux's schema: the prepared statement is
    // compiled again (it now has two columns) and new objects are found.
    assert!(no_errors(&run_ref(&other, "ALTER TABLE t ADD COLUMN b DEFAULT 'bee'; CREATE TABLE u(x); INSERT INTO u VALUES(5)")));
    assert_eq!(st.step(&mut ours).unwrap(), StepResult::Row);
    assert_eq!(st.column_count(), 2);
    st.reset(&mut ours);
    let got = query_all(&mut ours, "SELECT * FROM u; SELECT b FROM aux.t");
    assert_eq!(
        got,
        vec![
            Outcome::Rows { names: vec!["x".into()], rows: vec![vec![V::Int(5)]] },
            Outcome::Rows { names: vec!["b".into()], rows: vec![vec![V::Text(b"bee".to_vec())]] },
        ]
    );
    // And ringlite's writes are seen by the other connection.
    assert!(no_errors(&run_ours(&mut ours, "INSERT INTO aux.u VALUES(6); CREATE TABLE aux.w(y)")));
    assert_eq!(
        run_ref(&other, "SELECT sum(x) FROM u; SELECT name FROM sqlite_schema WHERE name = 'w'"),
        vec![
            Outcome::Rows { names: vec!["sum(x)".into()], rows: vec![vec![V::Int(11)]] },
            Outcome::Rows { names: vec!["name".into()], rows: vec![vec![V::Text(b"w".to_vec())]] },
        ]
    );
}

#[test]
fn statements_follow_detach_and_attach() {
    let dir = tempfile::tempdir().unwrap();
    let (one, two) = (dir.path().join("one.db"), dir.path().join("two.db"));
    assert!(no_errors(&run_ref(&RefDb::open_path(one.to_str().unwrap()), "CREATE TABLE t(v); INSERT INTO t VALUES('one')")));
    assert!(no_errors(&run_ref(&RefDb::open_path(two.to_str().unwrap()), "CREATE TABLE t(v); INSERT INTO t VALUES('two')")));
    let mut ours = open(":memory:");
    assert!(no_errors(&run_ours(&mut ours, &format!("{}; ATTACH '{}' AS other", attach_sql(&one), two.to_str().unwrap()))));
    let (st, _) = ours.prepare(b"SELECT v FROM other.t").unwrap();
    let mut st = st.unwrap();
    assert_eq!(st.step(&mut ours).unwrap(), StepResult::Row);
    assert!(matches!(st.column(0), ringlite::value::Value::Text(t) if t.as_slice() == b"two"));
    assert_eq!(st.column_origin(0), Some(("other", "t", "v")));
    st.reset(&mut ours);
    // Detaching aux moves "other" down one slot: the statement is compiled
    // again and still reads other.
    assert!(no_errors(&run_ours(&mut ours, "DETACH aux")));
    assert_eq!(st.step(&mut ours).unwrap(), StepResult::Row);
    assert!(matches!(st.column(0), ringlite::value::Value::Text(t) if t.as_slice() == b"two"));
    st.reset(&mut ours);
    // Detach refused while a statement reads it, as in SQLite.
    assert_eq!(st.step(&mut ours).unwrap(), StepResult::Row);
    let busy = run_ours(&mut ours, "DETACH other");
    assert!(matches!(&busy[0], Outcome::Error { message, .. } if message == "database other is locked"), "{busy:?}");
    st.reset(&mut ours);
    assert!(no_errors(&run_ours(&mut ours, &format!("DETACH other; ATTACH '{}' AS other", one.to_str().unwrap()))));
    assert_eq!(st.step(&mut ours).unwrap(), StepResult::Row);
    assert!(matches!(st.column(0), ringlite::value::Value::Text(t) if t.as_slice() == b"one"));
    st.reset(&mut ours);
    // A statement reading main does not keep aux attached (as in SQLite);
    // one reading a database attached after aux does (its number would
    // shift under it).
    assert!(no_errors(&run_ours(&mut ours, &format!("CREATE TABLE m(x); INSERT INTO m VALUES(1); {}", attach_sql(&two)))));
    let (on_main, _) = ours.prepare(b"SELECT x FROM main.m").unwrap();
    let mut on_main = on_main.unwrap();
    assert_eq!(on_main.step(&mut ours).unwrap(), StepResult::Row);
    assert!(no_errors(&run_ours(&mut ours, "DETACH aux")));
    on_main.reset(&mut ours);
    assert!(no_errors(&run_ours(&mut ours, &attach_sql(&two))));
    let (on_later, _) = ours.prepare(b"SELECT v FROM aux.t").unwrap();
    let mut on_later = on_later.unwrap();
    assert_eq!(on_later.step(&mut ours).unwrap(), StepResult::Row);
    let busy = run_ours(&mut ours, "DETACH other");
    assert!(matches!(&busy[0], Outcome::Error { message, .. } if message == "database other is locked"), "{busy:?}");
    on_later.reset(&mut ours);
    assert!(no_errors(&run_ours(&mut ours, "DETACH other")));
    assert_eq!(on_later.step(&mut ours).unwrap(), StepResult::Row);
    assert!(matches!(on_later.column(0), ringlite::value::Value::Text(t) if t.as_slice() == b"two"));
    on_later.reset(&mut ours);
    assert_eq!(ours.db_filename("nosuch"), None);
    assert_eq!(ours.db_readonly("nosuch"), -1);
}

#[test]
fn read_only_connection_attaches_read_only() {
    let dir = tempfile::tempdir().unwrap();
    let (main, aux) = (dir.path().join("main.db"), dir.path().join("aux.db"));
    assert!(no_errors(&run_ref(&RefDb::open_path(main.to_str().unwrap()), "CREATE TABLE m(x)")));
    assert!(no_errors(&run_ref(&RefDb::open_path(aux.to_str().unwrap()), "CREATE TABLE t(x); INSERT INTO t VALUES(1)")));
    let mut ours = Connection::open(main.to_str().unwrap(), OpenFlags(OpenFlags::READONLY)).unwrap();
    assert!(no_errors(&run_ours(&mut ours, &attach_sql(&aux))));
    assert_eq!(ours.db_readonly("aux"), 1);
    let out = run_ours(&mut ours, "SELECT x FROM aux.t; INSERT INTO aux.t VALUES(2)");
    assert_eq!(out[0], Outcome::Rows { names: vec!["x".into()], rows: vec![vec![V::Int(1)]] });
    assert!(matches!(&out[1], Outcome::Error { code: 8, .. }), "{out:?}");
}

/// COMMIT refused with SQLITE_BUSY (a reader holds a lock) leaves the
/// transaction open, for a retry, as in SQLite: with one database and with
/// a transaction writing main and an attached file.
fn commit_busy_keeps_transaction(attached: bool) {
    let dir = tempfile::tempdir().unwrap();
    let (main, aux) = (dir.path().join("main.db"), dir.path().join("aux.db"));
    assert!(no_errors(&run_ref(&RefDb::open_path(main.to_str().unwrap()), "CREATE TABLE t(x); INSERT INTO t VALUES(1)")));
    assert!(no_errors(&run_ref(&RefDb::open_path(aux.to_str().unwrap()), "CREATE TABLE t(x); INSERT INTO t VALUES(1)")));
    let mut writer = open(main.to_str().unwrap());
    let mut reader = open(if attached { aux.to_str().unwrap() } else { main.to_str().unwrap() });
    assert!(no_errors(&run_ours(&mut writer, &attach_sql(&aux))));
    // The reader holds a read transaction while it is on a row.
    let (st, _) = reader.prepare(b"SELECT x FROM t").unwrap();
    let mut st = st.unwrap();
    assert_eq!(st.step(&mut reader).unwrap(), StepResult::Row);
    let out = run_ours(&mut writer, "BEGIN; INSERT INTO main.t VALUES(2); INSERT INTO aux.t VALUES(2); COMMIT");
    assert!(matches!(out.last(), Some(Outcome::Error { code: 5, .. })), "{out:?}");
    assert!(!writer.autocommit(), "the transaction stays open after a busy COMMIT");
    st.reset(&mut reader);
    let out = run_ours(&mut writer, "COMMIT");
    assert!(no_errors(&out), "{out:?}");
    let got = run_ref(&RefDb::open_path(main.to_str().unwrap()), &format!("{}; SELECT count(*) FROM main.t; SELECT count(*) FROM aux.t", attach_sql(&aux)));
    assert_eq!(got[1], Outcome::Rows { names: vec!["count(*)".into()], rows: vec![vec![V::Int(2)]] });
    assert_eq!(got[2], Outcome::Rows { names: vec!["count(*)".into()], rows: vec![vec![V::Int(2)]] });
}

#[test]
fn busy_commit_of_main_keeps_the_transaction() {
    commit_busy_keeps_transaction(false);
}

#[test]
fn busy_commit_of_attached_file_keeps_the_transaction_and_commits_nothing() {
    commit_busy_keeps_transaction(true);
}

#[test]
fn uri_filenames_and_database_list() {
    let dir = tempfile::tempdir().unwrap();
    let aux = dir.path().join("aux db.sqlite");
    assert!(no_errors(&run_ref(&RefDb::open_path(aux.to_str().unwrap()), "CREATE TABLE t(x); INSERT INTO t VALUES(7)")));
    let main = dir.path().join("main.db");
    let mut ours = Connection::open(main.to_str().unwrap(), OpenFlags(OpenFlags::READWRITE | OpenFlags::CREATE | OpenFlags::URI)).unwrap();
    let uri = format!("file:{}?mode=ro", aux.to_str().unwrap().replace(' ', "%20"));
    let out = run_ours(&mut ours, &format!("ATTACH '{uri}' AS r; ATTACH 'file::memory:' AS m; SELECT x FROM r.t; INSERT INTO r.t VALUES(8)"));
    assert_eq!(out[2], Outcome::Rows { names: vec!["x".into()], rows: vec![vec![V::Int(7)]] });
    assert!(matches!(&out[3], Outcome::Error { code: 8, .. }), "{out:?}");
    assert_eq!(ours.db_readonly("r"), 1);
    assert_eq!(ours.db_readonly("m"), 0);
    let list = run_ours(&mut ours, "PRAGMA database_list");
    let canon = |p: &std::path::Path| V::Text(std::fs::canonicalize(p).unwrap().to_str().unwrap().as_bytes().to_vec());
    assert_eq!(
        list[0],
        Outcome::Rows {
            names: vec!["seq".into(), "name".into(), "file".into()],
            rows: vec![
                vec![V::Int(0), V::Text(b"main".to_vec()), canon(&main)],
                vec![V::Int(2), V::Text(b"r".to_vec()), canon(&aux)],
                vec![V::Int(3), V::Text(b"m".to_vec()), V::Text(Vec::new())],
            ]
        }
    );
}

#[test]
fn unqualified_journal_mode_applies_to_attached_files() {
    let dir = tempfile::tempdir().unwrap();
    let script = |aux: &std::path::Path| {
        format!(
            "{}; CREATE TABLE aux.t(x); PRAGMA journal_mode=WAL; PRAGMA aux.journal_mode; PRAGMA main.journal_mode;
             INSERT INTO aux.t VALUES(1); PRAGMA aux.journal_mode=DELETE; PRAGMA aux.journal_mode; PRAGMA journal_mode; PRAGMA journal_mode=persist; PRAGMA aux.journal_mode",
            attach_sql(aux)
        )
    };
    let mut ours = open(dir.path().join("ours.db").to_str().unwrap());
    let reference = RefDb::open_path(dir.path().join("ref.db").to_str().unwrap());
    let a = run_ours(&mut ours, &script(&dir.path().join("ours_aux.db")));
    let b = run_ref(&reference, &script(&dir.path().join("ref_aux.db")));
    assert_eq!(a, b);
    assert!(no_errors(&a), "{a:?}");
}
