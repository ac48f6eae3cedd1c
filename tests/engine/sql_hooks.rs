//! Connection hooks: commit, rollback, update, progress, trace.
use crate::sql_common;
use ringlite::connection::Hook;
use std::sync::{Arc, Mutex};

#[test]
fn commit_rollback_update_hooks() {
    let mut c = sql_common::ours_open();
    let log = Arc::new(Mutex::new(Vec::<String>::new()));
    let (l1, l2, l3) = (log.clone(), log.clone(), log.clone());
    c.set_hook(Hook::Commit(Some(Box::new(move || {
        l1.lock().unwrap().push("commit".into());
        false
    }))));
    c.set_hook(Hook::Rollback(Some(Box::new(move || l2.lock().unwrap().push("rollback".into())))));
    c.set_hook(Hook::Update(Some(Box::new(move |op, db, t, r| l3.lock().unwrap().push(format!("{op} {db} {t} {r}"))))));
    sql_common::run_ours(&mut c, "CREATE TABLE t(a); INSERT INTO t VALUES(1); BEGIN; INSERT INTO t VALUES(2); ROLLBACK; DELETE FROM t WHERE a = 1; SELECT 1;");
    let got = log.lock().unwrap().clone();
    assert_eq!(got, vec!["commit", "18 main t 1", "commit", "18 main t 2", "rollback", "9 main t 1", "commit"]);
    // A commit hook returning true turns the commit into a rollback.
    c.set_hook(Hook::Commit(Some(Box::new(|| true))));
    let out = sql_common::run_ours(&mut c, "INSERT INTO t VALUES(3); SELECT count(*) FROM t;");
    assert_eq!(out[0], sql_common::Outcome::Error { code: 19, message: "constraint failed".into() });
}

#[test]
fn progress_handler_interrupts() {
    let mut c = sql_common::ours_open();
    c.set_hook(Hook::Progress(10, Some(std::sync::Arc::new(|_| true))));
    let out = sql_common::run_ours(&mut c, "WITH x AS (SELECT 1) SELECT 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12");
    assert_eq!(out[0], sql_common::Outcome::Error { code: 9, message: "interrupted".into() });
}

/// Update-hook callback of the reference: appends "op db table rowid".
extern "C" fn ref_update_hook(log: *mut std::os::raw::c_void, op: i32, db: *const std::os::raw::c_char, t: *const std::os::raw::c_char, rowid: i64) {
    // SAFETY: `log` is the `Vec<String>` given to sqlite3_update_hook, alive
    // while the connection runs statements; the names are C strings.
    unsafe {
        let log = &mut *(log as *mut Vec<String>);
        let (db, t) = (std::ffi::CStr::from_ptr(db).to_string_lossy(), std::ffi::CStr::from_ptr(t).to_string_lossy());
        log.push(format!("{op} {db} {t} {rowid}"));
    }
}

/// INSERT ... SELECT * between tables of the same shape copies records
/// (the transfer), with or without indexes, with the source's rowids or
/// new ones: the update hook hears every row as SQLite reports it.
#[test]
fn transfer_update_hook_as_sqlite() {
    let setup = "CREATE TABLE s(a INTEGER, b TEXT); INSERT INTO s VALUES(1, 'x'), (2, 'y'), (3, 'z'); DELETE FROM s WHERE a = 2;
        CREATE TABLE d1(a INTEGER, b TEXT); CREATE TABLE d2(a INTEGER, b TEXT); CREATE INDEX s_b ON s(b); CREATE INDEX d2_b ON d2(b);
        CREATE TABLE p(id INTEGER PRIMARY KEY, v TEXT); INSERT INTO p VALUES(7, 'q'), (9, 'r'); CREATE TABLE p2(id INTEGER PRIMARY KEY, v TEXT);";
    let work = "INSERT INTO d1 SELECT * FROM s; INSERT INTO d1 SELECT * FROM s; INSERT INTO d2 SELECT * FROM s; INSERT INTO d2 SELECT * FROM s;
        INSERT INTO p2 SELECT * FROM p; INSERT INTO p2 SELECT * FROM p; SELECT last_insert_rowid(), total_changes();";
    let mut ours = sql_common::ours_open();
    sql_common::run_ours(&mut ours, setup);
    let log = Arc::new(Mutex::new(Vec::<String>::new()));
    let l = log.clone();
    ours.set_hook(Hook::Update(Some(Box::new(move |op, db, t, r| l.lock().unwrap().push(format!("{op} {db} {t} {r}"))))));
    let ours_out = sql_common::run_ours(&mut ours, work);
    let reference = sql_common::RefDb::open();
    sql_common::run_ref(&reference, setup);
    let mut ref_log: Vec<String> = Vec::new();
    // SAFETY: `ref_log` outlives every statement run on `reference` below,
    // and the hook is removed before it is read.
    unsafe { libsqlite3_sys::sqlite3_update_hook(reference.0, Some(ref_update_hook), &mut ref_log as *mut Vec<String> as *mut _) };
    let ref_out = sql_common::run_ref(&reference, work);
    unsafe { libsqlite3_sys::sqlite3_update_hook(reference.0, None, std::ptr::null_mut()) };
    assert_eq!(ours_out, ref_out);
    assert_eq!(*log.lock().unwrap(), ref_log);
    assert!(ref_log.len() >= 8, "{ref_log:?}");
}

/// An interrupted write inside an explicit transaction ends the whole
/// transaction (SQLite cannot tell how far the statement got); an
/// interrupted read leaves it open. (Outcomes seen on SQLite 3.54.1.)
#[test]
fn interrupted_write_rolls_back_the_transaction_but_a_read_does_not() {
    let mut c = sql_common::ours_open();
    sql_common::run_ours(&mut c, "CREATE TABLE t1(a); INSERT INTO t1 VALUES(1),(2); BEGIN; INSERT INTO t1 VALUES(3);");
    c.set_hook(Hook::Progress(1, Some(std::sync::Arc::new(|_| true))));
    let out = sql_common::run_ours(&mut c, "INSERT INTO t1 VALUES(4)");
    assert_eq!(out[0], sql_common::Outcome::Error { code: 9, message: "interrupted".into() });
    c.set_hook(Hook::Progress(0, None));
    let out = sql_common::run_ours(&mut c, "COMMIT");
    assert_eq!(out[0], sql_common::Outcome::Error { code: 1, message: "cannot commit - no transaction is active".into() });
    let out = sql_common::run_ours(&mut c, "SELECT count(*) FROM t1");
    assert_eq!(out[0], sql_common::Outcome::Rows { names: vec!["count(*)".into()], rows: vec![vec![sql_common::V::Int(2)]] });

    sql_common::run_ours(&mut c, "BEGIN; INSERT INTO t1 VALUES(5);");
    c.set_hook(Hook::Progress(1, Some(std::sync::Arc::new(|_| true))));
    let out = sql_common::run_ours(&mut c, "SELECT * FROM t1");
    assert_eq!(out[0], sql_common::Outcome::Error { code: 9, message: "interrupted".into() });
    c.set_hook(Hook::Progress(0, None));
    let out = sql_common::run_ours(&mut c, "COMMIT; SELECT count(*) FROM t1");
    assert_eq!(out[1], sql_common::Outcome::Rows { names: vec!["count(*)".into()], rows: vec![vec![sql_common::V::Int(3)]] });
}
