//! A write in autocommit mode on a connection that also has a read
//! statement open (stepped, not finished): SQLite commits the write when
//! the write statement ends, as if the read were not there (the read keeps
//! a read transaction: its SHARED lock in rollback-journal mode, its
//! snapshot in WAL mode). Checked against the reference library: what a
//! second connection sees and may do right after the write, and what
//! `sqlite3_get_autocommit` and `sqlite3_txn_state` say meanwhile, in both
//! journal modes.

use crate::sql_common::{run_ours, run_ref, Outcome, RefDb};
use libsqlite3_sys as ffi;
use ringlite::{Connection, OpenFlags, StepResult};
use std::ffi::CString;

/// One step of a scenario: connection `a` (which holds the open read) or
/// the second connection `b`.
#[derive(Clone, Copy)]
enum Act {
    /// `a`: prepare the reader and step it once.
    OpenRead(&'static str),
    /// `a`: step the reader once more.
    StepRead,
    /// `a`: reset the reader.
    EndRead,
    /// Run SQL on `a`.
    A(&'static str),
    /// Run SQL on `b`.
    B(&'static str),
    /// `a`'s autocommit flag and transaction state of main and of all.
    State,
}

fn outcome_text(o: &[Outcome]) -> String {
    format!("{o:?}")
}

fn ours(path: &str, setup: &str, acts: &[Act]) -> Vec<String> {
    let flags = OpenFlags(OpenFlags::READWRITE | OpenFlags::CREATE);
    let mut a = Connection::open(path, flags).unwrap();
    let mut b = Connection::open(path, flags).unwrap();
    run_ours(&mut a, setup);
    let mut log = Vec::new();
    let mut reader = None;
    for act in acts {
        match *act {
            Act::OpenRead(sql) => {
                let mut st = a.prepare(sql.as_bytes()).unwrap().0.unwrap();
                log.push(format!("read {:?}", st.step(&mut a).map(|r| r == StepResult::Row).map_err(|e| e.primary())));
                reader = Some(st);
            }
            Act::StepRead => {
                let st = reader.as_mut().unwrap();
                log.push(format!("read {:?}", st.step(&mut a).map(|r| r == StepResult::Row).map_err(|e| e.primary())));
            }
            Act::EndRead => reader.as_mut().unwrap().reset(&mut a),
            Act::A(sql) => log.push(format!("a {}", outcome_text(&run_ours(&mut a, sql)))),
            Act::B(sql) => log.push(format!("b {}", outcome_text(&run_ours(&mut b, sql)))),
            Act::State => log.push(format!("state {} {} {}", a.autocommit(), a.txn_state(Some("main")), a.txn_state(None))),
        }
    }
    if let Some(mut st) = reader {
        st.reset(&mut a);
    }
    log
}

fn theirs(path: &str, setup: &str, acts: &[Act]) -> Vec<String> {
    let a = RefDb::open_path(path);
    let b = RefDb::open_path(path);
    run_ref(&a, setup);
    let mut log = Vec::new();
    let mut reader: *mut ffi::sqlite3_stmt = std::ptr::null_mut();
    let step = |st: *mut ffi::sqlite3_stmt| {
        // SAFETY: a live statement of connection `a`.
        let rc = unsafe { ffi::sqlite3_step(st) };
        match rc {
            ffi::SQLITE_ROW => "Ok(true)".to_string(),
            ffi::SQLITE_DONE => "Ok(false)".to_string(),
            e => format!("Err({})", e & 0xff),
        }
    };
    for act in acts {
        match *act {
            Act::OpenRead(sql) => {
                let c = CString::new(sql).unwrap();
                // SAFETY: `a` is open; the statement is finalized below.
                unsafe { ffi::sqlite3_prepare_v2(a.0, c.as_ptr(), -1, &mut reader, std::ptr::null_mut()) };
                log.push(format!("read {}", step(reader)));
            }
            Act::StepRead => log.push(format!("read {}", step(reader))),
            // SAFETY: the reader is a live statement.
            Act::EndRead => unsafe {
                ffi::sqlite3_reset(reader);
            },
            Act::A(sql) => log.push(format!("a {}", outcome_text(&run_ref(&a, sql)))),
            Act::B(sql) => log.push(format!("b {}", outcome_text(&run_ref(&b, sql)))),
            // SAFETY: `a` is open.
            Act::State => unsafe {
                let auto = ffi::sqlite3_get_autocommit(a.0) != 0;
                let main = ffi::sqlite3_txn_state(a.0, c"main".as_ptr());
                let all = ffi::sqlite3_txn_state(a.0, std::ptr::null());
                log.push(format!("state {auto} {main} {all}"));
            },
        }
    }
    // SAFETY: finalized before its connection closes (NULL is a no-op).
    unsafe { ffi::sqlite3_finalize(reader) };
    log
}

/// Run the scenario on each library, each on a new file, in both
/// journal modes; the logs must be the same.
fn same(setup: &str, acts: &[Act]) {
    for mode in ["delete", "wal"] {
        let setup = format!("PRAGMA journal_mode={mode}; {setup}");
        let dir = tempfile::tempdir().unwrap();
        let p1 = dir.path().join("ours.db");
        let p2 = dir.path().join("theirs.db");
        let o = ours(p1.to_str().unwrap(), &setup, acts);
        let t = theirs(p2.to_str().unwrap(), &setup, acts);
        assert_eq!(o, t, "journal_mode={mode}");
    }
}

const SETUP: &str = "CREATE TABLE t(x); INSERT INTO t VALUES(1),(2),(3); CREATE TABLE u(y)";

#[test]
fn an_insert_beside_an_open_read_commits_when_it_ends() {
    use Act::*;
    same(
        SETUP,
        &[
            OpenRead("SELECT x FROM t"),
            State,
            A("INSERT INTO u VALUES(9)"),
            State,
            B("SELECT count(*) FROM u"),
            // (Journal mode: `a`'s read keeps SHARED, so `b` cannot commit.)
            B("INSERT INTO u VALUES(10)"),
            B("SELECT count(*) FROM u"),
            StepRead,
            State,
            A("SELECT count(*) FROM u"),
            StepRead,
            StepRead,
            State,
            B("INSERT INTO u VALUES(11)"),
            A("SELECT count(*) FROM u"),
        ],
    );
}

#[test]
fn update_and_delete_beside_an_open_read_of_the_same_table() {
    use Act::*;
    same(
        SETUP,
        &[
            OpenRead("SELECT x FROM t"),
            A("UPDATE t SET x = x * 10 WHERE x = 3"),
            State,
            B("SELECT group_concat(x) FROM t"),
            StepRead,
            A("DELETE FROM t WHERE x = 1"),
            B("SELECT group_concat(x) FROM t"),
            StepRead,
            StepRead,
            State,
            EndRead,
            State,
        ],
    );
}

#[test]
fn a_failed_write_beside_an_open_read_ends_its_write_transaction() {
    use Act::*;
    same(
        "CREATE TABLE t(x); INSERT INTO t VALUES(1),(2),(3); CREATE TABLE u(y UNIQUE); INSERT INTO u VALUES(1)",
        &[
            OpenRead("SELECT x FROM t"),
            A("INSERT INTO u VALUES(2),(1)"),
            State,
            B("SELECT count(*) FROM u"),
            B("INSERT INTO u VALUES(3)"),
            A("INSERT OR FAIL INTO u VALUES(4),(1)"),
            State,
            B("SELECT group_concat(y) FROM u"),
            EndRead,
            State,
        ],
    );
}

#[test]
fn an_explicit_transaction_beside_an_open_read_waits_for_its_commit() {
    use Act::*;
    same(
        SETUP,
        &[
            OpenRead("SELECT x FROM t"),
            A("BEGIN"),
            A("INSERT INTO u VALUES(9)"),
            State,
            B("SELECT count(*) FROM u"),
            A("COMMIT"),
            State,
            B("SELECT count(*) FROM u"),
            StepRead,
            A("SAVEPOINT s1"),
            A("INSERT INTO u VALUES(10)"),
            A("RELEASE s1"),
            State,
            B("SELECT count(*) FROM u"),
            EndRead,
            State,
        ],
    );
}

#[test]
fn a_wal_write_beside_a_read_of_a_checkpointed_log_reads_its_own_pages_back() {
    use Act::*;
    // The read starts on a log wholly checkpointed (SQLite's READ0, which
    // ignores the log); the write's pages, pushed out of a small cache,
    // come back from the log.
    same(
        "PRAGMA cache_size=2; CREATE TABLE t(x); INSERT INTO t VALUES(1),(2),(3); CREATE TABLE u(y);
         PRAGMA wal_checkpoint(TRUNCATE)",
        &[
            OpenRead("SELECT x FROM t"),
            A("WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i < 200) INSERT INTO u SELECT randomblob(900) FROM c"),
            State,
            A("SELECT count(*), sum(length(y)) FROM u"),
            B("SELECT count(*), sum(length(y)) FROM u"),
            StepRead,
            A("PRAGMA integrity_check"),
            EndRead,
            A("SELECT count(*), sum(length(y)) FROM u"),
        ],
    );
}

#[test]
fn an_fts5vocab_cursor_stops_once_a_write_beside_it_reaches_the_index() {
    use Act::*;
    // (SQLite's fts5vocab2.test 5.x.) The INSERT commits as it ends: its
    // terms are flushed and the vocabulary cursor open over the old index
    // stops with SQLITE_ABORT; the row stays.
    same(
        "CREATE VIRTUAL TABLE t1 USING fts5(a); CREATE VIRTUAL TABLE v1 USING fts5vocab(t1, instance);
         INSERT INTO t1 VALUES('one'), ('two'), ('three'), ('four')",
        &[OpenRead("SELECT * FROM v1"), A("INSERT INTO t1 VALUES('five')"), StepRead, EndRead, A("SELECT * FROM t1")],
    );
    // INSERT ... SELECT from the vocabulary table hands each row to the
    // fts5 table as it is read: once the pending terms are flushed (over
    // a megabyte) the read stops.
    same(
        "CREATE VIRTUAL TABLE t1 USING fts5(a); CREATE VIRTUAL TABLE v1 USING fts5vocab(t1, instance);
         WITH s(i) AS (VALUES(1) UNION ALL SELECT i+1 FROM s WHERE i<100)
         INSERT INTO t1 SELECT 'State Emergency Service (SES), Rural Fire Service (RFS) and Volunteers' FROM s",
        &[A("INSERT INTO t1 SELECT randomblob(3000) FROM v1"), A("SELECT count(*) FROM t1"), A("INSERT INTO t1(t1) VALUES('integrity-check')")],
    );
}
