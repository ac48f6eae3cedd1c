//! `PRAGMA step_quantum`: a step of an async connection that has run for
//! its quantum stops at a jump and answers `StepResult::Io` with nothing in
//! flight. Every statement shape (aggregates, sorts, joins, windows,
//! recursive CTEs, writes firing triggers, RETURNING) must give exactly
//! SQLite's rows, changes and final contents however often it is cut, a
//! yielded connection must be reported ready, and another tenant of the
//! thread must be able to finish its work while the long statement is cut.
//! A quantum of 1 µs cuts at (almost) every clock check: the test asserts
//! only that a statement of tens of thousands of instructions was cut at
//! least once, never how often.

use crate::sql_common::{from_value, run_ref, Outcome, RefDb};
use ringlite::{Connection, OpenFlags, StepResult};

const SETUP: &str = "CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c);
CREATE INDEX tb ON t(b);
CREATE TABLE log(op TEXT, a, n);
CREATE TRIGGER tu AFTER UPDATE ON t BEGIN INSERT INTO log VALUES('u', new.a, (SELECT count(*) FROM log)); END;
CREATE TRIGGER td BEFORE DELETE ON t BEGIN INSERT INTO log VALUES('d', old.a, old.c); END;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i<3000)
INSERT INTO t SELECT i, printf('%05d', (i * 7919) % 3000), i * 1.5 FROM n;";

const QUERIES: &[&str] = &[
    "SELECT count(*), sum(a), total(c), group_concat(b, '') IS NOT NULL FROM t",
    "SELECT a, b FROM t ORDER BY b DESC, a LIMIT 50 OFFSET 1000",
    "SELECT substr(b, 1, 2) AS k, count(*), max(c) FROM t GROUP BY k ORDER BY k",
    "SELECT x.a, y.a FROM t AS x JOIN t AS y ON y.a = x.a * 2 WHERE x.a % 7 = 0 ORDER BY x.a",
    "SELECT a, sum(c) OVER (ORDER BY a ROWS BETWEEN 3 PRECEDING AND CURRENT ROW) FROM t WHERE a % 50 = 0",
    "WITH RECURSIVE r(i, s) AS (SELECT 1, 0 UNION ALL SELECT i+1, s+i FROM r WHERE i < 5000) SELECT max(i), max(s) FROM r",
    "SELECT a FROM t WHERE a IN (SELECT a * 3 FROM t WHERE a < 500) AND b > '02000' ORDER BY a",
    "SELECT DISTINCT substr(b, 3, 1) FROM t ORDER BY 1",
    "UPDATE t SET c = c + 1 WHERE a % 3 = 0",
    "SELECT changes(), total_changes()",
    "DELETE FROM t WHERE a % 11 = 0 RETURNING a, c",
    "SELECT changes(), last_insert_rowid()",
    "INSERT INTO t(b, c) SELECT b || 'x', a FROM t WHERE a < 400",
    "SELECT changes(), last_insert_rowid()",
    "SELECT op, count(*), sum(a), sum(n) FROM log GROUP BY op ORDER BY op",
    "SELECT count(*), sum(a), sum(c), min(b), max(b) FROM t",
];

fn open_async() -> Connection {
    Connection::open(":memory:", OpenFlags(OpenFlags::READWRITE | OpenFlags::CREATE | OpenFlags::ASYNC)).expect("open")
}

/// Run every statement of `sql`: its outcomes (as `sql_common` reports
/// them) and how many times a step answered `StepResult::Io`.
fn run_counting(conn: &mut Connection, sql: &str) -> (Vec<Outcome>, usize) {
    let mut out = Vec::new();
    let mut ios = 0;
    let mut rest = sql.as_bytes();
    while !rest.iter().all(|c| c.is_ascii_whitespace()) {
        let (st, tail) = conn.prepare_terminated(rest).expect("prepare");
        rest = &rest[tail..];
        let Some(mut st) = st else { continue };
        let names: Vec<String> = (0..st.column_count()).map(|i| st.column_name(i).to_string()).collect();
        let mut rows = Vec::new();
        let res = loop {
            match st.step(conn) {
                Ok(StepResult::Row) => rows.push((0..st.column_count()).map(|i| from_value(st.column(i))).collect()),
                Ok(StepResult::Done) => break Outcome::Rows { names, rows },
                Ok(StepResult::Io) => {
                    ios += 1;
                    // Nothing in flight (an in-memory database): a poll
                    // asked to wait must return at once.
                    conn.io_poll(-1).expect("poll");
                }
                Err(e) => break Outcome::Error { code: e.primary(), message: e.message.clone() },
            }
        };
        st.reset(conn);
        out.push(res);
    }
    (out, ios)
}

fn one_int(conn: &mut Connection, sql: &str) -> i64 {
    let (out, _) = run_counting(conn, sql);
    match out.as_slice() {
        [Outcome::Rows { rows, .. }] if rows.len() == 1 => match rows[0][0] {
            crate::sql_common::V::Int(i) => i,
            ref v => panic!("{sql}: {v:?}"),
        },
        o => panic!("{sql}: {o:?}"),
    }
}

#[test]
fn cut_statements_give_sqlites_answers() {
    let reference = RefDb::open();
    let mut ours = open_async();
    assert_eq!(one_int(&mut ours, "PRAGMA step_quantum=1"), 1);
    let (a, _) = run_counting(&mut ours, SETUP);
    let b = run_ref(&reference, SETUP);
    assert_eq!(a, b, "setup");
    let mut total = 0;
    for q in QUERIES {
        let (a, ios) = run_counting(&mut ours, q);
        let b = run_ref(&reference, q);
        assert_eq!(a, b, "\nSQL: {q}");
        total += ios;
    }
    // (An in-memory database never waits for I/O: every Io was a cut.)
    assert!(total >= QUERIES.len(), "only {total} cuts over {} statements", QUERIES.len());
}

#[test]
fn pragma_reports_the_quantum_in_force() {
    let mut a = open_async();
    assert_eq!(one_int(&mut a, "PRAGMA step_quantum"), 0);
    assert_eq!(one_int(&mut a, "PRAGMA step_quantum=250"), 250);
    assert_eq!(one_int(&mut a, "PRAGMA step_quantum"), 250);
    assert_eq!(one_int(&mut a, "PRAGMA step_quantum=-5"), 0);
    // Off: a long statement on an in-memory database runs in one step.
    let (_, ios) = run_counting(&mut a, "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM r WHERE i < 20000) SELECT sum(i) FROM r");
    assert_eq!(ios, 0);
    // Blocking connections never hand a wait to their caller: no quantum.
    let mut b = crate::sql_common::ours_open();
    assert_eq!(one_int(&mut b, "PRAGMA step_quantum=50"), 0);
    assert_eq!(one_int(&mut b, "PRAGMA step_quantum"), 0);
}

/// Two tenants on one thread, as a scheduler serving ready connections
/// runs them: the long aggregate of one is cut, its connection reported
/// ready, and the other's short queries all finish before it does.
#[test]
fn a_cut_tenant_is_reported_ready_and_lets_others_finish() {
    let long_sql = "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM r WHERE i < 200000) SELECT count(*), sum(i) FROM r";
    let mut noisy = open_async();
    let mut quiet = open_async();
    noisy.set_io_tag(1);
    quiet.set_io_tag(2);
    assert_eq!(one_int(&mut noisy, "PRAGMA step_quantum=1"), 1);
    run_counting(&mut quiet, "CREATE TABLE k(id INTEGER PRIMARY KEY, v); INSERT INTO k VALUES(1, 'one'), (2, 'two');");
    let mut ready = Vec::new();
    noisy.io_ready(&mut ready, usize::MAX);
    ready.clear();

    let mut long = noisy.prepare(long_sql.as_bytes()).unwrap().0.unwrap();
    let mut short = quiet.prepare(b"SELECT v FROM k WHERE id = 2").unwrap().0.unwrap();
    let (mut cuts, mut short_done, mut long_row) = (0, 0, None);
    loop {
        match long.step(&mut noisy).unwrap() {
            StepResult::Io => {
                cuts += 1;
                ready.clear();
                assert_eq!(noisy.io_ready(&mut ready, usize::MAX), 1, "a cut statement's connection is ready at once");
                assert_eq!(ready, vec![1]);
            }
            StepResult::Row => {
                long_row = Some((0..2).map(|i| from_value(long.column(i))).collect::<Vec<_>>());
                continue;
            }
            StepResult::Done => break,
        }
        // The other tenant's turn between two cuts.
        if short_done < 5 {
            let mut got = None;
            loop {
                match short.step(&mut quiet).unwrap() {
                    StepResult::Row => got = Some(from_value(short.column(0))),
                    StepResult::Done => break,
                    StepResult::Io => panic!("an in-memory lookup waited"),
                }
            }
            short.reset(&mut quiet);
            assert_eq!(got, Some(crate::sql_common::V::Text(b"two".to_vec())));
            short_done += 1;
        }
    }
    use crate::sql_common::V::Int;
    assert_eq!(long_row, Some(vec![Int(200_000), Int(200_000 * 200_001 / 2)]));
    assert_eq!(short_done, 5, "the short queries all ran while the long one was cut ({cuts} cuts)");
    assert!(cuts >= 5);
    ready.clear();
    assert_eq!(noisy.io_ready(&mut ready, usize::MAX), 0, "finished: nothing left to report");
}
