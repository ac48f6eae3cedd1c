//! Connections of one process, each on its own thread, sharing one file:
//! every transaction whose COMMIT succeeded is in the file, nothing else
//! is, no lock outlives the transactions, and the busy handler behaves as
//! SQLite's (a writer waiting for the write lock holds no read lock, so
//! two connections never wait on each other until their timeouts).
//!
//! The sizes here are bounded for `make test`; `SOAK_SECONDS` (see
//! [`soak_from_env`], `make soak`) runs the mixed workload for longer.

use ringlite::error::Error;
use ringlite::{Connection, OpenFlags, StepResult};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Barrier, Mutex};
use std::time::{Duration, Instant};

const SQLITE_BUSY: i32 = 5;

/// Run every statement of `sql` to completion; async connections wait
/// for their I/O with `io_poll`.
fn exec(c: &mut Connection, sql: &str) -> Result<Vec<Vec<ringlite::value::Value>>, Error> {
    let mut rest = sql.as_bytes();
    let mut rows = Vec::new();
    while !rest.is_empty() {
        let (stmt, used) = c.prepare(rest)?;
        rest = &rest[used..];
        let Some(mut s) = stmt else { continue };
        rows.clear();
        loop {
            match s.step(c) {
                Ok(StepResult::Row) => rows.push((0..s.column_count()).map(|i| s.column(i).clone()).collect()),
                Ok(StepResult::Done) => break,
                Ok(StepResult::Io) => {
                    c.io_poll(100)?;
                }
                Err(e) => {
                    s.reset(c);
                    return Err(e);
                }
            }
        }
        s.reset(c);
    }
    Ok(rows)
}

fn count(c: &mut Connection, sql: &str) -> i64 {
    match exec(c, sql).unwrap_or_else(|e| panic!("{sql}: {e}"))[0][0] {
        ringlite::value::Value::Integer(n) => n,
        ref v => panic!("{sql}: {v:?}"),
    }
}

#[derive(Clone, Copy, Debug)]
struct Workload {
    journal: &'static str,
    /// "" for autocommit inserts, else the BEGIN statement.
    begin: &'static str,
    writers: usize,
    txns: usize,
    busy_ms: i32,
    readers: usize,
    /// Writers on odd threads open their connection with the ASYNC flag.
    mix_async: bool,
}

/// What a run produced: the rows each writer committed (thread, seq).
struct Outcome {
    committed: Vec<(i64, i64)>,
    failures: usize,
}

fn open(path: &str, is_async: bool) -> Connection {
    let mut flags = OpenFlags::READWRITE | OpenFlags::CREATE;
    if is_async {
        flags |= OpenFlags::ASYNC;
    }
    Connection::open(path, OpenFlags(flags)).unwrap()
}

/// One writer transaction; `Ok(true)` when its COMMIT succeeded. A failed
/// transaction is rolled back as an application would.
fn write_one(c: &mut Connection, w: &Workload, thread: usize, seq: usize) -> bool {
    let insert = format!("INSERT INTO t(thread, seq, pad) VALUES({thread}, {seq}, randomblob(200))");
    if w.begin.is_empty() {
        return match exec(c, &insert) {
            Ok(_) => true,
            Err(e) => {
                assert_eq!(e.primary(), SQLITE_BUSY, "{insert}: {e}");
                false
            }
        };
    }
    let r = exec(c, w.begin).and_then(|_| exec(c, &insert)).and_then(|_| exec(c, "COMMIT"));
    match r {
        Ok(_) => true,
        Err(e) => {
            assert_eq!(e.primary(), SQLITE_BUSY, "{w:?}: {e}");
            if !c.autocommit() {
                exec(c, "ROLLBACK").unwrap();
            }
            false
        }
    }
}

fn run(path: &str, w: Workload, stop_after: Option<Duration>) -> Outcome {
    {
        let mut c = open(path, false);
        // (Another thread may be checkpointing or writing already.)
        c.set_busy_timeout(5_000);
        exec(&mut c, &format!("PRAGMA journal_mode={}", w.journal)).unwrap();
        exec(&mut c, "CREATE TABLE IF NOT EXISTS t(thread INT, seq INT, pad BLOB); CREATE INDEX IF NOT EXISTS t_seq ON t(seq)").unwrap();
    }
    let committed = Arc::new(Mutex::new(Vec::new()));
    let failures = Arc::new(AtomicU64::new(0));
    let done = Arc::new(AtomicBool::new(false));
    let start = Arc::new(Barrier::new(w.writers + w.readers));
    let deadline = stop_after.map(|d| Instant::now() + d);
    let mut handles = Vec::new();
    for t in 0..w.writers {
        let (path, committed, failures, start) = (path.to_string(), committed.clone(), failures.clone(), start.clone());
        handles.push(std::thread::spawn(move || {
            let mut c = open(&path, w.mix_async && t % 2 == 1);
            c.set_busy_timeout(w.busy_ms);
            start.wait();
            let mut seq = 0;
            while deadline.map_or(seq < w.txns, |d| Instant::now() < d) {
                if write_one(&mut c, &w, t, seq) {
                    committed.lock().unwrap().push((t as i64, seq as i64));
                } else {
                    failures.fetch_add(1, Ordering::Relaxed);
                }
                seq += 1;
            }
        }));
    }
    let mut readers = Vec::new();
    for _ in 0..w.readers {
        let (path, done, start) = (path.to_string(), done.clone(), start.clone());
        readers.push(std::thread::spawn(move || {
            let mut c = open(&path, false);
            c.set_busy_timeout(w.busy_ms);
            start.wait();
            let mut last = 0;
            while !done.load(Ordering::Relaxed) {
                match exec(&mut c, "SELECT count(*) FROM t") {
                    Ok(rows) => {
                        let ringlite::value::Value::Integer(n) = rows[0][0] else { panic!() };
                        assert!(n >= last, "a reader saw committed rows disappear: {n} after {last}");
                        last = n;
                    }
                    Err(e) => assert_eq!(e.primary(), SQLITE_BUSY, "reader: {e}"),
                }
                assert!(c.autocommit());
            }
        }));
    }
    for h in handles {
        h.join().unwrap();
    }
    done.store(true, Ordering::Relaxed);
    for h in readers {
        h.join().unwrap();
    }
    let committed = std::mem::take(&mut *committed.lock().unwrap());
    Outcome { committed, failures: failures.load(Ordering::Relaxed) as usize }
}

/// The file holds exactly the committed rows, is intact, and another
/// connection can write at once (no lock was left behind).
fn check(path: &str, out: &Outcome, w: &Workload) {
    let mut c = open(path, false);
    let mut rows: Vec<(i64, i64)> = exec(&mut c, "SELECT thread, seq FROM t")
        .unwrap()
        .iter()
        .map(|r| match (&r[0], &r[1]) {
            (ringlite::value::Value::Integer(a), ringlite::value::Value::Integer(b)) => (*a, *b),
            other => panic!("{other:?}"),
        })
        .collect();
    rows.sort_unstable();
    let mut want = out.committed.clone();
    want.sort_unstable();
    assert_eq!(rows.len(), want.len(), "{w:?}: {} rows in the file, {} committed ({} failed)", rows.len(), want.len(), out.failures);
    assert_eq!(rows, want, "{w:?}");
    let ok = exec(&mut c, "PRAGMA integrity_check").unwrap();
    assert!(matches!(&ok[..], [row] if matches!(&row[..], [ringlite::value::Value::Text(t)] if t == b"ok")), "{w:?}: {ok:?}");
    // No busy timeout: any lock left behind would make this fail.
    exec(&mut c, "BEGIN IMMEDIATE; INSERT INTO t(thread, seq) VALUES(-1, -1); COMMIT").unwrap_or_else(|e| panic!("{w:?}: writing afterwards: {e}"));
    assert_eq!(count(&mut c, "SELECT count(*) FROM t WHERE thread = -1"), 1);
    // The reference SQLite agrees.
    drop(c);
    let r = rusqlite_free_check(path);
    assert_eq!(r, (want.len() as i64 + 1, "ok".to_string()), "{w:?}");
}

/// Row count and integrity_check verdict of the reference SQLite.
fn rusqlite_free_check(path: &str) -> (i64, String) {
    let db = crate::sql_common::RefDb::open_path(path);
    let out = crate::sql_common::run_ref(&db, "SELECT count(*) FROM t; PRAGMA integrity_check;");
    let n = match &out[0] {
        crate::sql_common::Outcome::Rows { rows, .. } => match rows[0][0] {
            crate::sql_common::V::Int(n) => n,
            ref v => panic!("{v:?}"),
        },
        o => panic!("{o:?}"),
    };
    let verdict = match &out[1] {
        crate::sql_common::Outcome::Rows { rows, .. } => match &rows[0][0] {
            crate::sql_common::V::Text(t) => String::from_utf8_lossy(t).into_owned(),
            v => panic!("{v:?}"),
        },
        o => panic!("{o:?}"),
    };
    (n, verdict)
}

fn run_and_check(w: Workload) -> Outcome {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shared.db");
    let p = path.to_str().unwrap();
    let out = run(p, w, None);
    check(p, &out, &w);
    out
}

const JOURNALS: [&str; 2] = ["delete", "wal"];

#[test]
fn autocommit_and_immediate_writers_all_commit() {
    // With a busy timeout, a writer that takes the write lock up front
    // (or in one statement) always gets its turn, as in SQLite.
    for journal in JOURNALS {
        for begin in ["", "BEGIN IMMEDIATE", "BEGIN EXCLUSIVE"] {
            let w = Workload { journal, begin, writers: 8, txns: 25, busy_ms: 20_000, readers: 2, mix_async: false };
            let out = run_and_check(w);
            assert_eq!(out.failures, 0, "{w:?}");
            assert_eq!(out.committed.len(), 8 * 25);
        }
    }
}

#[test]
fn deferred_writers_never_deadlock() {
    // Deferred transactions upgrade from no lock: the one refused gives its
    // read lock back while it waits, so the writer ahead of it commits.
    // (Four threads: on SQLite all commit; under heavier contention SQLite
    // too may let one wait out its timeout.)
    for journal in JOURNALS {
        let w = Workload { journal, begin: "BEGIN", writers: 4, txns: 50, busy_ms: 20_000, readers: 1, mix_async: false };
        let out = run_and_check(w);
        assert_eq!(out.failures, 0, "{w:?}");
    }
}

/// Sixteen writers (and two readers) with and without a busy timeout:
/// whatever got through is exactly what the file holds, and no lock is
/// left behind. Only the writers that wait are sure to get through:
/// without a timeout a rollback-journal commit needs a moment when
/// neither reader holds SHARED, which SQLite does not promise either
/// (asserting progress there made this test fail in loaded runs).
#[test]
fn sixteen_threads_without_and_with_timeouts() {
    for journal in JOURNALS {
        for (begin, busy_ms) in [("BEGIN", 0), ("BEGIN", 2_000), ("", 0), ("BEGIN IMMEDIATE", 0), ("BEGIN IMMEDIATE", 2_000)] {
            let w = Workload { journal, begin, writers: 16, txns: 10, busy_ms, readers: 2, mix_async: false };
            let out = run_and_check(w);
            if busy_ms > 0 {
                assert!(!out.committed.is_empty(), "{w:?}");
            }
        }
    }
}

#[test]
fn async_and_blocking_connections_share_a_file() {
    for journal in JOURNALS {
        for begin in ["", "BEGIN IMMEDIATE", "BEGIN"] {
            let w = Workload { journal, begin, writers: 4, txns: 20, busy_ms: 20_000, readers: 1, mix_async: true };
            let out = run_and_check(w);
            if begin != "BEGIN" {
                assert_eq!(out.failures, 0, "{w:?}");
            }
        }
    }
}

/// WAL: checkpoints (automatic and `PRAGMA wal_checkpoint`, on another
/// connection of the process) racing the writers that restart the log
/// once it is all copied back. A checkpoint that read the index header
/// just before a restart must not copy the restarted log's frames (or the
/// stale ones behind them) under the old header's bounds: that overwrote
/// database pages with old versions ("database disk image is malformed"
/// to a reader, found by the soak).
#[test]
fn wal_checkpoints_racing_log_restarts() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("restart.db");
    let p = path.to_str().unwrap().to_string();
    let done = Arc::new(AtomicBool::new(false));
    let ckpt = {
        let (p, done) = (p.clone(), done.clone());
        std::thread::spawn(move || {
            // (The table appears once `run` creates it.)
            let mut c = open(&p, false);
            c.set_busy_timeout(2_000);
            let (mut n, mut mine) = (0u64, Vec::new());
            while !done.load(Ordering::Relaxed) {
                let mode = ["PASSIVE", "PASSIVE", "PASSIVE", "RESTART", "PASSIVE", "TRUNCATE"][(n % 6) as usize];
                if let Err(e) = exec(&mut c, &format!("PRAGMA wal_checkpoint({mode})")) {
                    assert_eq!(e.primary(), SQLITE_BUSY, "checkpoint: {e}");
                }
                // The checkpointer writes too: from a cache that missed
                // the commits its checkpoint copied, the insert would
                // damage the tables (or lose rows).
                let w = Workload { journal: "wal", begin: "", writers: 1, txns: 0, busy_ms: 2_000, readers: 0, mix_async: false };
                if exec(&mut c, "SELECT 1 FROM t LIMIT 0").is_ok() && write_one(&mut c, &w, 1000, n as usize) {
                    mine.push((1000, n as i64));
                }
                n += 1;
            }
            mine
        })
    };
    let mut all = Outcome { committed: Vec::new(), failures: 0 };
    let mut last = None;
    for (begin, mix_async) in [("BEGIN", true), ("", false), ("BEGIN IMMEDIATE", true)] {
        let w = Workload { journal: "wal", begin, writers: 6, txns: 40, busy_ms: 5_000, readers: 3, mix_async };
        let out = run(&p, w, None);
        // (Rows of each phase repeat the (thread, seq) pairs: `check`
        // compares them as multisets.)
        all.committed.extend(out.committed);
        all.failures += out.failures;
        last = Some(w);
    }
    done.store(true, Ordering::Relaxed);
    all.committed.extend(ckpt.join().unwrap());
    check(&p, &all, &last.unwrap());
}

/// WAL: a connection whose cached pages predate another connection's
/// commit checkpoints with TRUNCATE (restarting the log): its next read
/// transaction must still see that commit, not its cached pages (the
/// restart left it holding a header equal to the live one).
#[test]
fn wal_truncate_checkpoint_does_not_keep_a_stale_cache() {
    for async_checkpointer in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("trunc.db");
        let p = p.to_str().unwrap();
        let mut a = open(p, async_checkpointer);
        exec(&mut a, "PRAGMA journal_mode=wal; PRAGMA wal_autocheckpoint=0; CREATE TABLE t(x INTEGER PRIMARY KEY, y)").unwrap();
        exec(&mut a, "INSERT INTO t(y) VALUES(randomblob(300)), (randomblob(300))").unwrap();
        assert_eq!(count(&mut a, "SELECT count(*) FROM t"), 2);
        let mut b = open(p, false);
        exec(&mut b, "PRAGMA wal_autocheckpoint=0").unwrap();
        for _ in 0..3 {
            exec(&mut b, "INSERT INTO t(y) SELECT randomblob(300) FROM t").unwrap();
        }
        assert_eq!(count(&mut b, "SELECT count(*) FROM t"), 16);
        exec(&mut a, "PRAGMA wal_checkpoint(TRUNCATE)").unwrap();
        assert_eq!(count(&mut a, "SELECT count(*) FROM t"), 16, "async: {async_checkpointer}");
        let ok = exec(&mut a, "PRAGMA integrity_check").unwrap();
        assert!(matches!(&ok[..], [row] if matches!(&row[..], [ringlite::value::Value::Text(t)] if t == b"ok")), "{ok:?}");
        // And writing from the stale view would have damaged the file.
        exec(&mut a, "INSERT INTO t(y) VALUES(1)").unwrap();
        drop((a, b));
        let mut c = open(p, false);
        assert_eq!(count(&mut c, "SELECT count(*) FROM t"), 17);
    }
}

#[test]
fn a_reader_in_a_transaction_gets_busy_at_once_and_keeps_its_snapshot() {
    // SQLite calls no busy handler for a write refused while the
    // connection reads: waiting would hold SHARED against the writer.
    for journal in JOURNALS {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("r.db");
        let p = p.to_str().unwrap();
        let mut a = open(p, false);
        exec(&mut a, &format!("PRAGMA journal_mode={journal}; CREATE TABLE t(x); INSERT INTO t VALUES(1)")).unwrap();
        let mut b = open(p, false);
        b.set_busy_timeout(60_000);
        exec(&mut a, "BEGIN; INSERT INTO t VALUES(2)").unwrap();
        exec(&mut b, "BEGIN").unwrap();
        assert_eq!(count(&mut b, "SELECT count(*) FROM t"), 1);
        let t0 = Instant::now();
        let e = exec(&mut b, "INSERT INTO t VALUES(3)").unwrap_err();
        assert_eq!(e.primary(), SQLITE_BUSY);
        assert!(t0.elapsed() < Duration::from_secs(30), "the busy handler was called");
        assert_eq!(count(&mut b, "SELECT count(*) FROM t"), 1);
        exec(&mut b, "ROLLBACK").unwrap();
        exec(&mut a, "COMMIT").unwrap();
        assert_eq!(count(&mut b, "SELECT count(*) FROM t"), 2);
    }
}

#[test]
fn closing_a_connection_mid_transaction_releases_its_locks() {
    for journal in JOURNALS {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("c.db");
        let p = p.to_str().unwrap();
        let mut a = open(p, false);
        exec(&mut a, &format!("PRAGMA journal_mode={journal}; CREATE TABLE t(x)")).unwrap();
        for begin in ["BEGIN IMMEDIATE", "BEGIN EXCLUSIVE", "BEGIN; SELECT * FROM t"] {
            let mut b = open(p, false);
            exec(&mut b, begin).unwrap();
            exec(&mut b, "INSERT INTO t VALUES(1)").unwrap();
            drop(b);
            exec(&mut a, "BEGIN IMMEDIATE; INSERT INTO t VALUES(2); COMMIT").unwrap_or_else(|e| panic!("{journal} {begin}: {e}"));
        }
        assert_eq!(count(&mut a, "SELECT count(*) FROM t WHERE x = 1"), 0);
        assert_eq!(count(&mut a, "SELECT count(*) FROM t WHERE x = 2"), 3);
    }
}

/// The long soak: `SOAK_SECONDS=600 cargo test --release --test engine
/// sql_threads_one_file::soak -- --ignored` (`make soak`): 16 threads of
/// every transaction kind for that long, in each journal mode.
#[test]
#[ignore]
fn soak() {
    let secs = soak_from_env();
    for journal in JOURNALS {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("soak.db");
        let p = path.to_str().unwrap();
        let mut all = Outcome { committed: Vec::new(), failures: 0 };
        for (i, begin) in ["", "BEGIN", "BEGIN IMMEDIATE", "BEGIN EXCLUSIVE"].into_iter().enumerate() {
            let w = Workload { journal, begin, writers: 16, txns: 0, busy_ms: 2_000, readers: 2, mix_async: i % 2 == 1 };
            let out = run(p, w, Some(Duration::from_secs_f64(secs / 8.0)));
            all.committed.extend(out.committed);
            all.failures += out.failures;
            // Each phase's rows carry its own thread numbers.
            let mut c = open(p, false);
            exec(&mut c, &format!("UPDATE t SET thread = thread + {} WHERE thread BETWEEN 0 AND 15", 100 * (i + 1))).unwrap();
            for (t, _) in all.committed.iter_mut().filter(|(t, _)| (0..16).contains(t)) {
                *t += 100 * (i as i64 + 1);
            }
        }
        eprintln!("soak {journal}: {} committed, {} refused busy", all.committed.len(), all.failures);
        check(p, &all, &Workload { journal, begin: "soak", writers: 16, txns: 0, busy_ms: 2_000, readers: 2, mix_async: true });
    }
}

fn soak_from_env() -> f64 {
    std::env::var("SOAK_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(60.0)
}
