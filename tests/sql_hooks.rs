//! Connection hooks: commit, rollback, update, progress, trace.
mod sql_common;
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
    c.set_hook(Hook::Progress(10, Some(Box::new(|| true))));
    let out = sql_common::run_ours(&mut c, "WITH x AS (SELECT 1) SELECT 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12");
    assert_eq!(out[0], sql_common::Outcome::Error { code: 9, message: "interrupted".into() });
}
