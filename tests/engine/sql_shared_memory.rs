//! Named in-memory databases shared by the connections of the process
//! (`file:x?mode=memory&cache=shared`, `file::memory:?cache=shared`, the
//! SHAREDCACHE flag, ATTACH of such a URI), differentially against the
//! reference SQLite, whose shared cache gives the same visibility: each
//! step runs on a ringlite connection and on the reference connection
//! opened with the same name and flags, and their outcomes must match.
//!
//! Every test uses names of its own: both registries are process-wide and
//! the tests of this binary run in parallel.

use crate::sql_common::{run_ours, run_ref, Outcome, RefDb};
use libsqlite3_sys as ffi;
use ringlite::{Connection, OpenFlags, StepResult};
use std::ffi::CString;

const RWC_URI: i32 = OpenFlags::READWRITE | OpenFlags::CREATE | OpenFlags::URI;

/// One connection on each engine, opened alike.
struct Both {
    ours: Option<Connection>,
    reference: Option<RefDb>,
}

fn open_both(name: &str, flags: i32) -> Result<Both, (Outcome, Outcome)> {
    let ours = Connection::open(name, OpenFlags(flags));
    let mut db = std::ptr::null_mut();
    let c = CString::new(name).unwrap();
    let rc = unsafe { ffi::sqlite3_open_v2(c.as_ptr(), &mut db, flags, std::ptr::null()) };
    let reference = RefDb(db);
    match ours {
        Ok(o) if rc == 0 => Ok(Both { ours: Some(o), reference: Some(reference) }),
        ours => {
            let a = match ours {
                Ok(_) => Outcome::Rows { names: vec![], rows: vec![] },
                Err(e) => Outcome::Error { code: e.primary(), message: e.message.clone() },
            };
            let b = if rc == 0 {
                Outcome::Rows { names: vec![], rows: vec![] }
            } else {
                let msg = unsafe { std::ffi::CStr::from_ptr(ffi::sqlite3_errmsg(db)) };
                Outcome::Error { code: rc & 0xff, message: msg.to_string_lossy().into_owned() }
            };
            Err((a, b))
        }
    }
}

fn open(name: &str, flags: i32) -> Both {
    open_both(name, flags).unwrap_or_else(|(a, b)| panic!("open {name}: ours {a:?}, reference {b:?}"))
}

impl Both {
    /// Run `sql` on both; the outcomes must be equal. Returns ours.
    fn run(&mut self, sql: &str) -> Vec<Outcome> {
        let a = run_ours(self.ours.as_mut().unwrap(), sql);
        let b = run_ref(self.reference.as_ref().unwrap(), sql);
        assert_eq!(a, b, "\nSQL: {sql}\nours: {a:?}\nref:  {b:?}");
        a
    }

    fn close(&mut self) {
        if let Some(mut c) = self.ours.take() {
            c.close().unwrap();
        }
        self.reference = None;
    }
}

fn rows(n: i64) -> Vec<Outcome> {
    vec![Outcome::Rows { names: vec!["count(*)".into()], rows: vec![vec![crate::sql_common::V::Int(n)]] }]
}

#[test]
fn two_and_three_connections_see_each_others_commits() {
    for name in ["file:shm_two?mode=memory&cache=shared", "file::memory:?cache=shared"] {
        let mut a = open(name, RWC_URI);
        let mut b = open(name, RWC_URI);
        // As on a private in-memory database: the journal stays in
        // memory, and the file is locked per transaction (normal mode).
        a.run("PRAGMA journal_mode; PRAGMA journal_mode=wal; PRAGMA journal_mode=delete; PRAGMA locking_mode; PRAGMA page_size");
        a.run("CREATE TABLE t(x); INSERT INTO t VALUES (1), (2)");
        assert_eq!(b.run("SELECT count(*) FROM t"), rows(2));
        let mut c = open(name, RWC_URI);
        c.run("BEGIN; INSERT INTO t VALUES (3); COMMIT");
        assert_eq!(a.run("SELECT count(*) FROM t"), rows(3));
        b.run("CREATE INDEX ti ON t(x); INSERT INTO t SELECT x + 10 FROM t");
        assert_eq!(a.run("SELECT count(*) FROM t WHERE x > 10"), rows(3));
        c.run("SELECT name FROM sqlite_schema ORDER BY name");
        for x in [&mut a, &mut b, &mut c] {
            x.run("PRAGMA database_list");
        }
        c.run("PRAGMA integrity_check");
        // A rolled-back change is seen by nobody.
        a.run("BEGIN; DELETE FROM t; ROLLBACK");
        assert_eq!(c.run("SELECT count(*) FROM t"), rows(6));
        for x in [&mut a, &mut b, &mut c] {
            x.close();
        }
    }
}

#[test]
fn different_names_are_different_databases() {
    let mut a = open("file:shm_name_a?mode=memory&cache=shared", RWC_URI);
    let mut b = open("file:shm_name_b?mode=memory&cache=shared", RWC_URI);
    a.run("CREATE TABLE t(x); INSERT INTO t VALUES (1)");
    b.run("SELECT count(*) FROM t");
    b.run("CREATE TABLE t(y, z); INSERT INTO t VALUES (1, 2), (3, 4)");
    assert_eq!(a.run("SELECT count(*) FROM t"), rows(1));
    // The query string's order does not matter: the name does.
    let mut a2 = open("file:shm_name_a?cache=shared&mode=memory", RWC_URI);
    assert_eq!(a2.run("SELECT count(*) FROM t"), rows(1));
}

#[test]
fn the_database_lives_while_a_connection_has_it_and_dies_with_the_last() {
    let name = "file:shm_lifetime?mode=memory&cache=shared";
    let mut a = open(name, RWC_URI);
    a.run("CREATE TABLE t(x); INSERT INTO t VALUES (1)");
    let mut b = open(name, RWC_URI);
    a.close();
    assert_eq!(b.run("SELECT count(*) FROM t"), rows(1));
    let mut c = open(name, RWC_URI);
    b.close();
    assert_eq!(c.run("SELECT count(*) FROM t"), rows(1));
    c.close();
    let mut d = open(name, RWC_URI);
    d.run("SELECT count(*) FROM t");
    d.run("SELECT count(*) FROM sqlite_schema");
}

#[test]
fn private_memory_databases_stay_private() {
    let cases: &[(&str, i32)] = &[
        (":memory:", OpenFlags::READWRITE | OpenFlags::CREATE),
        (":memory:", OpenFlags::READWRITE | OpenFlags::CREATE | OpenFlags::SHAREDCACHE),
        ("file::memory:", RWC_URI),
        ("file:shm_private?mode=memory", RWC_URI),
        ("file:shm_private2?mode=memory&cache=private", RWC_URI | OpenFlags::SHAREDCACHE),
        ("file:?mode=memory&cache=shared", RWC_URI),
    ];
    for &(name, flags) in cases {
        let mut a = open(name, flags);
        let mut b = open(name, flags);
        a.run("CREATE TABLE t(x); INSERT INTO t VALUES (1)");
        let seen = b.run("SELECT count(*) FROM t");
        assert!(matches!(seen[0], Outcome::Error { .. }), "{name}: {seen:?}");
    }
}

#[test]
fn the_sharedcache_flag_shares_uri_memory_databases() {
    for name in ["file:shm_flag?mode=memory", "file::memory:"] {
        let flags = RWC_URI | OpenFlags::SHAREDCACHE;
        let mut a = open(name, flags);
        let mut b = open(name, flags);
        a.run("CREATE TABLE t(x); INSERT INTO t VALUES (1)");
        assert_eq!(b.run("SELECT count(*) FROM t"), rows(1), "{name}");
        a.close();
        b.close();
    }
}

#[test]
fn a_bad_cache_mode_is_refused_as_sqlite_refuses_it() {
    let (a, b) = match open_both("file:shm_bad?mode=memory&cache=public", RWC_URI) {
        Err(pair) => pair,
        Ok(_) => panic!("opened"),
    };
    assert_eq!(a, b);
}

#[test]
fn attach_of_a_shared_name_shares_between_connections() {
    let mut a = open(":memory:", RWC_URI);
    let mut b = open(":memory:", RWC_URI);
    a.run("ATTACH 'file:shm_attach?mode=memory&cache=shared' AS aux");
    b.run("ATTACH 'file:shm_attach?mode=memory&cache=shared' AS aux");
    a.run("CREATE TABLE aux.t(x); INSERT INTO aux.t VALUES (1), (2)");
    assert_eq!(b.run("SELECT count(*) FROM aux.t"), rows(2));
    b.run("INSERT INTO aux.t VALUES (3)");
    assert_eq!(a.run("SELECT count(*) FROM t"), rows(3));
    // The main database of another connection is the same database.
    let mut c = open("file:shm_attach?mode=memory&cache=shared", RWC_URI);
    assert_eq!(c.run("SELECT count(*) FROM t"), rows(3));
    a.run("DETACH aux");
    b.run("DETACH aux");
    c.close();
    b.run("ATTACH 'file:shm_attach?mode=memory&cache=shared' AS aux");
    b.run("SELECT count(*) FROM aux.sqlite_schema");
}

fn exec(c: &mut Connection, sql: &str) -> ringlite::error::Result<()> {
    let mut rest = sql.as_bytes();
    while !rest.is_empty() {
        let (stmt, used) = c.prepare(rest)?;
        rest = &rest[used..];
        let Some(mut s) = stmt else { continue };
        let r = loop {
            match s.step(c) {
                Ok(StepResult::Row) | Ok(StepResult::Io) => {}
                Ok(StepResult::Done) => break Ok(()),
                Err(e) => break Err(e),
            }
        };
        s.reset(c);
        r?;
    }
    Ok(())
}

/// Threads each with a connection on one shared name, committing with a
/// busy timeout (and retrying a transaction that still reports busy):
/// every commit's row is there, nothing else, and the file is sound.
/// (Ours only: SQLite's shared cache answers these conflicts with
/// SQLITE_LOCKED and unlock notification instead of busy handlers.)
#[test]
fn threads_committing_into_one_shared_memory_database_lose_no_rows() {
    const NAME: &str = "file:shm_threads?mode=memory&cache=shared";
    const THREADS: i64 = 4;
    const TXNS: i64 = 40;
    let mut keeper = Connection::open(NAME, OpenFlags(RWC_URI)).unwrap();
    exec(&mut keeper, "CREATE TABLE t(th, seq, PRIMARY KEY(th, seq))").unwrap();
    let handles: Vec<_> = (0..THREADS)
        .map(|th| {
            std::thread::spawn(move || {
                let mut c = Connection::open(NAME, OpenFlags(RWC_URI)).unwrap();
                c.set_busy_timeout(10_000);
                let mut busy_retries = 0;
                for seq in 0..TXNS {
                    let (begin, reads) = match seq % 3 {
                        0 => ("BEGIN", "SELECT count(*) FROM t;"),
                        1 => ("BEGIN IMMEDIATE", ""),
                        _ => ("BEGIN EXCLUSIVE", "SELECT max(seq) FROM t;"),
                    };
                    loop {
                        let sql = format!("{begin}; {reads} INSERT INTO t VALUES ({th}, {seq}); COMMIT");
                        match exec(&mut c, &sql) {
                            Ok(()) => break,
                            Err(e) if e.primary() == 5 => {
                                let _ = exec(&mut c, "ROLLBACK");
                                busy_retries += 1;
                            }
                            Err(e) => panic!("thread {th} txn {seq}: {e}"),
                        }
                    }
                    if seq % 5 == 0 {
                        exec(&mut c, "SELECT count(*) FROM t").unwrap();
                    }
                }
                busy_retries
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    let mut check = Connection::open(NAME, OpenFlags(RWC_URI)).unwrap();
    use crate::sql_common::V;
    let counted = run_ours(&mut check, "SELECT count(*), count(DISTINCT th * 1000 + seq) FROM t");
    let Outcome::Rows { rows, .. } = &counted[0] else { panic!("{counted:?}") };
    assert_eq!(rows, &vec![vec![V::Int(THREADS * TXNS), V::Int(THREADS * TXNS)]]);
    let ic = run_ours(&mut check, "PRAGMA integrity_check");
    let Outcome::Rows { rows, .. } = &ic[0] else { panic!("{ic:?}") };
    assert_eq!(rows, &vec![vec![V::Text(b"ok".to_vec())]]);
    // Another connection can write at once afterwards.
    exec(&mut keeper, "INSERT INTO t VALUES (-1, -1)").unwrap();
}

fn error_code(o: &[Outcome]) -> Option<i32> {
    o.iter().find_map(|x| match x {
        Outcome::Error { code, .. } => Some(*code),
        _ => None,
    })
}

/// The documented difference: sharing is by file locks, so a second
/// writer gets SQLITE_BUSY ("database is locked") where SQLite's shared
/// cache gives SQLITE_LOCKED, and a reader reads the last committed state
/// while another connection's write is uncommitted (SQLite refuses it
/// with SQLITE_LOCKED). Once the writer commits both agree again.
#[test]
fn conflicts_answer_busy_where_the_shared_cache_answers_locked() {
    let name = "file:shm_conflict?mode=memory&cache=shared";
    let mut a = open(name, RWC_URI);
    let mut b = open(name, RWC_URI);
    a.run("CREATE TABLE t(x); INSERT INTO t VALUES (1)");
    a.run("BEGIN; INSERT INTO t VALUES (2)");
    let ours = run_ours(b.ours.as_mut().unwrap(), "BEGIN IMMEDIATE");
    let reference = run_ref(b.reference.as_ref().unwrap(), "BEGIN IMMEDIATE");
    assert_eq!(error_code(&ours), Some(5), "{ours:?}");
    assert!(matches!(error_code(&reference), Some(5) | Some(6)), "{reference:?}");
    let ours = run_ours(b.ours.as_mut().unwrap(), "SELECT count(*) FROM t");
    let reference = run_ref(b.reference.as_ref().unwrap(), "SELECT count(*) FROM t");
    assert_eq!(ours, rows(1));
    assert_eq!(error_code(&reference), Some(6), "{reference:?}");
    a.run("COMMIT");
    assert_eq!(b.run("SELECT count(*) FROM t"), rows(2));
    b.run("INSERT INTO t VALUES (3)");
    assert_eq!(a.run("SELECT count(*) FROM t"), rows(3));
}
