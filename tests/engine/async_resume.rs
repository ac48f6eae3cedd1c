//! Resuming never repeats or loses a row: queries of every shape (scans,
//! seeks, joins, sorts, aggregates, subqueries, writes) run on a cold async
//! connection over the simulated backend, under many seeds that change the
//! order and batching of completions, and must give exactly what a blocking
//! connection gives. Two async connections sharing one context, stepped in
//! turn, must each get their own rows. A suspended statement stepped
//! again before any completion answers `Io` and submits nothing.

use crate::async_support;
use async_support::*;
use ringlite::io::IoContext;
use ringlite::StepResult;

const SETUP: &str = "CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c);
CREATE INDEX tb ON t(b);
CREATE TABLE u(x INTEGER, y TEXT);
CREATE INDEX ux ON u(x);
CREATE TABLE t2(a INTEGER PRIMARY KEY, b TEXT, c);
CREATE INDEX t2b ON t2(b);
CREATE TABLE u2(x INTEGER, y TEXT);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i<2000)
INSERT INTO t SELECT i, printf('%05d', (i * 7919) % 2000) || printf('%.30c', '.'),
  CASE WHEN i % 97 = 0 THEN zeroblob(6000) ELSE i * 1.5 END FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i<1500)
INSERT INTO u SELECT i % 700, 'y' || i FROM n;";

const QUERIES: &[&str] = &[
    "SELECT a, b FROM t",
    "SELECT a, b, length(c) FROM t ORDER BY b DESC",
    "SELECT a FROM t WHERE b > '01000' AND b < '01100' ORDER BY b",
    "SELECT x, count(*), min(y) FROM u GROUP BY x ORDER BY 2 DESC, 1",
    "SELECT t.a, u.y FROM t JOIN u ON u.x = t.a WHERE t.a % 3 = 0 ORDER BY t.a, u.y",
    "SELECT a FROM t WHERE a IN (SELECT x FROM u WHERE x > 690) ORDER BY a",
    "SELECT count(*), sum(a), total(c) FROM t",
    "SELECT DISTINCT substr(b, 1, 2) FROM t ORDER BY 1",
    "SELECT a, (SELECT count(*) FROM u WHERE u.x = t.a) FROM t WHERE a BETWEEN 100 AND 160",
    "SELECT y FROM u WHERE x = 5 UNION ALL SELECT b FROM t WHERE a = 5",
    "UPDATE t SET c = a WHERE a % 5 = 0",
    "DELETE FROM u WHERE x > 600",
    "INSERT INTO u SELECT a + 10000, b FROM t WHERE a < 300",
    "SELECT x, y FROM u WHERE x > 500 ORDER BY x, y",
    // The INSERT ... SELECT * transfer: records (some with overflow pages)
    // and index entries copied as they are.
    "INSERT INTO t2 SELECT * FROM t",
    "INSERT INTO u2 SELECT * FROM u",
    "SELECT a, b, length(c) FROM t2 INDEXED BY t2b WHERE b > '0'",
    "SELECT rowid, x, y FROM u2",
];

fn disk(seed: u64, max_per_poll: usize) -> IoContext {
    let io = IoContext::new(sim(seed, max_per_poll));
    let mut c = open(&io, "db", false);
    must(&mut c, SETUP);
    c.close().unwrap();
    io
}

#[test]
fn async_answers_equal_blocking_answers_under_many_seeds() {
    // The blocking reference, on a simulated disk of its own.
    let reference = disk(99, 1);
    let mut blocking = open(&reference, "db", false);
    let expected: Vec<_> = QUERIES.iter().map(|q| must(&mut blocking, q).rows).collect();
    blocking.close().unwrap();
    for seed in 1..=8u64 {
        let io = disk(seed, 1 + (seed as usize % 4));
        let mut total_ios = 0;
        for (q, want) in QUERIES.iter().zip(&expected) {
            // Each query starts cold: a fresh connection per query.
            let mut a = open(&io, "db", true);
            let got = must(&mut a, q);
            a.close().unwrap();
            total_ios += got.ios;
            assert_eq!(&got.rows, want, "seed {seed}: {q}");
        }
        assert!(total_ios > QUERIES.len(), "seed {seed}: only {total_ios} suspensions");
    }
}

/// Step `st` once on `conn`: `Some(row)`, `None` at the end, and count a
/// suspension (without polling: the caller polls the shared context).
fn step_once(conn: &mut ringlite::Connection, st: &mut ringlite::Statement, rows: &mut Vec<Vec<V>>, ios: &mut usize) -> bool {
    match st.step(conn).expect("step") {
        StepResult::Row => {
            rows.push((0..st.column_count()).map(|i| v(st.column(i))).collect());
            true
        }
        StepResult::Io => {
            *ios += 1;
            true
        }
        StepResult::Done => false,
    }
}

#[test]
fn two_connections_on_one_context_interleave_without_mixing_rows() {
    let io = disk(7, 3);
    let q1 = "SELECT a, b FROM t ORDER BY b";
    let q2 = "SELECT x, y FROM u WHERE x % 2 = 1";
    let mut b = open(&io, "db", false);
    let want1 = must(&mut b, q1).rows;
    let want2 = must(&mut b, q2).rows;
    b.close().unwrap();

    let mut c1 = open(&io, "db", true);
    let mut c2 = open(&io, "db", true);
    let mut s1 = c1.prepare(q1.as_bytes()).unwrap().0.unwrap();
    let mut s2 = c2.prepare(q2.as_bytes()).unwrap().0.unwrap();
    let (mut r1, mut r2, mut ios1, mut ios2) = (Vec::new(), Vec::new(), 0, 0);
    let (mut live1, mut live2) = (true, true);
    while live1 || live2 {
        // At most a few steps each per turn, then one poll of the shared
        // context reaps completions for both.
        for _ in 0..3 {
            if live1 {
                live1 = step_once(&mut c1, &mut s1, &mut r1, &mut ios1);
            }
            if live2 {
                live2 = step_once(&mut c2, &mut s2, &mut r2, &mut ios2);
            }
        }
        c1.io_poll(0).unwrap();
    }
    s1.reset(&mut c1);
    s2.reset(&mut c2);
    assert!(ios1 > 0 && ios2 > 0);
    assert_eq!(r1, want1);
    assert_eq!(r2, want2);
}

#[test]
fn two_statements_of_one_connection_interleave_on_a_cold_cache() {
    for seed in [3u64, 4, 5] {
        let io = disk(seed, 2);
        let q1 = "SELECT a, b, length(c) FROM t";
        let q2 = "SELECT y, x FROM u ORDER BY x DESC, y";
        let q3 = "SELECT a FROM t WHERE b >= '01500' ORDER BY b";
        let mut b = open(&io, "db", false);
        let want: Vec<_> = [q1, q2, q3].iter().map(|q| must(&mut b, q).rows).collect();
        b.close().unwrap();

        let mut c = open(&io, "db", true);
        let mut sts: Vec<_> = [q1, q2, q3].iter().map(|q| c.prepare(q.as_bytes()).unwrap().0.unwrap()).collect();
        let mut rows = vec![Vec::new(); 3];
        let mut live = [true; 3];
        let mut ios = 0;
        while live.iter().any(|l| *l) {
            for k in 0..3 {
                if live[k] {
                    live[k] = step_once(&mut c, &mut sts[k], &mut rows[k], &mut ios);
                }
            }
            c.io_poll(0).unwrap();
        }
        for st in sts.iter_mut() {
            st.reset(&mut c);
        }
        assert!(ios > 0);
        assert_eq!(rows, want, "seed {seed}");
    }
}

/// Trigger programs (recursive triggers) suspend inside their frames: a
/// trigger that fires itself 40 levels deep, reading cold pages at every
/// level, resumes exactly where it stopped under every seed.
#[test]
fn recursive_trigger_programs_resume_inside_their_frames() {
    const TRIGGER: &str = "CREATE TABLE chain(n INTEGER PRIMARY KEY, s);
CREATE TRIGGER ch AFTER INSERT ON chain WHEN new.n < 40 BEGIN
  INSERT INTO chain VALUES(new.n + 1, (SELECT b FROM t WHERE a = new.n * 37 + 1) || (SELECT count(*) FROM u WHERE x = new.n));
  UPDATE t SET c = new.n WHERE a = new.n * 41;
END;";
    let run_on = |io: &IoContext, is_async: bool| {
        let mut c = open(io, "db", is_async);
        must(&mut c, "PRAGMA recursive_triggers = 1");
        let ins = must(&mut c, "INSERT INTO chain VALUES(1, 'x')");
        let rows = must(&mut c, "SELECT n, s FROM chain ORDER BY n").rows;
        let touched = must(&mut c, "SELECT a, c FROM t WHERE a % 41 = 0 AND a <= 1640 ORDER BY a").rows;
        c.close().unwrap();
        (rows, touched, ins.ios)
    };
    let reference = disk(99, 1);
    let mut setup = open(&reference, "db", false);
    must(&mut setup, TRIGGER);
    setup.close().unwrap();
    let (want_rows, want_touched, _) = run_on(&reference, false);
    assert_eq!(want_rows.len(), 40);
    for seed in 1..=4u64 {
        let io = disk(seed, 1 + (seed as usize % 3));
        let mut setup = open(&io, "db", false);
        must(&mut setup, TRIGGER);
        setup.close().unwrap();
        let (rows, touched, ios) = run_on(&io, true);
        assert_eq!(rows, want_rows, "seed {seed}");
        assert_eq!(touched, want_touched, "seed {seed}");
        assert!(ios > 1, "seed {seed}: only {ios} suspensions");
    }
}

/// A suspended statement stepped again before any of its connection's
/// requests completed answers `Io` (at once, without re-running the VM:
/// `io::notify`) and submits nothing more; after polls it resumes and
/// gives exactly the blocking connection's rows.
#[test]
fn steps_before_any_completion_answer_io_and_submit_nothing() {
    let backend = sim(11, 1);
    let io = IoContext::new(backend.clone());
    let mut setup = open(&io, "db", false);
    must(&mut setup, SETUP);
    let q = "SELECT a, b FROM t WHERE a % 7 = 0";
    let want = must(&mut setup, q).rows;
    setup.close().unwrap();
    let mut c = open(&io, "db", true);
    let mut st = c.prepare(q.as_bytes()).unwrap().0.unwrap();
    let (mut rows, mut ios, mut repeats) = (Vec::<Vec<V>>::new(), 0, 0);
    loop {
        match st.step(&mut c).expect("step") {
            StepResult::Row => rows.push((0..st.column_count()).map(|i| v(st.column(i))).collect()),
            StepResult::Done => break,
            StepResult::Io => {
                ios += 1;
                let submitted = backend.submitted();
                for _ in 0..5 {
                    assert!(matches!(st.step(&mut c).expect("step"), StepResult::Io));
                    repeats += 1;
                }
                assert_eq!(backend.submitted(), submitted, "a waiting statement submitted again");
                c.io_poll(-1).unwrap();
            }
        }
    }
    st.reset(&mut c);
    assert!(ios > 0 && repeats > 0);
    assert_eq!(rows, want);
}
