//! `x IN (...)` on a rowid, on an async connection: when a seek of the
//! list has to wait for a page, the descents of the next keys of the list
//! are requested at once (`src/vdbe/exec/seek_ahead.rs`), so the statement
//! suspends a few times per window of keys instead of once per key. The
//! rows are SQLite's, the pages read are the ones a blocking connection
//! reads, and on cached data nothing is read but the header every read
//! transaction checks.

use crate::async_support;
#[allow(dead_code, unsafe_code)]
use crate::sql_common;
use async_support::*;
use ringlite::io::IoContext;

/// 6,000 rows of ~90 bytes: about 150 leaves under two interior levels.
const SETUP: &str = "CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i<6000)
INSERT INTO t SELECT i, printf('%04d', i % 1000) || printf('%.80c', '~') FROM n;";

/// 100 keys spread over the table (each on its own leaf, mostly), in an
/// order unlike the table's, with a duplicate, a missing key, a text key
/// and a NULL among them.
fn in_list() -> String {
    let mut keys: Vec<String> = (0..100).map(|i| ((i * 2371) % 6000 + 1).to_string()).collect();
    keys.extend(["17".into(), "99999".into(), "'42'".into(), "NULL".into(), "'x'".into()]);
    keys.join(",")
}

#[test]
fn an_in_list_requests_the_next_keys_descents_together() {
    let backend = sim(11, 64);
    let io = IoContext::new(backend.clone());
    let mut w = open(&io, "db", false);
    must(&mut w, SETUP);
    w.close().unwrap();
    let reference = sql_common::RefDb::open();
    sql_common::run_ref(&reference, SETUP);

    let queries = [
        format!("SELECT a, substr(b, 1, 4) FROM t WHERE a IN ({})", in_list()),
        format!("SELECT sum(length(b)), count(*) FROM t WHERE a IN ({})", in_list()),
        format!("SELECT a FROM t WHERE a IN ({}) ORDER BY a DESC", in_list()),
        "SELECT count(*) FROM t WHERE a IN (SELECT (a * 2371) % 6000 + 1 FROM t WHERE a <= 100)".to_string(),
    ];
    for q in &queries {
        let want = match sql_common::run_ref(&reference, q).pop() {
            Some(sql_common::Outcome::Rows { rows, .. }) => rows,
            other => panic!("reference: {other:?}"),
        };
        // Blocking: one read per page of each descent, in sequence.
        let before = backend.submitted();
        let mut c = open(&io, "db", false);
        let blocking = must(&mut c, q);
        c.close().unwrap();
        let blocking_reads = backend.submitted() - before;

        let before = backend.submitted();
        let mut c = open(&io, "db", true);
        let cold = must(&mut c, q);
        let async_reads = backend.submitted() - before;
        // Cached now: the same statement reads only the header its read
        // transaction checks first (once, as any statement does).
        let before = backend.submitted();
        let warm = must(&mut c, q);
        assert!(backend.submitted() - before <= 1, "{q}: reads on cached data");
        assert!(warm.ios <= 1, "{q}: waited on cached data");
        c.close().unwrap();

        assert_eq!(format!("{want:?}"), format!("{:?}", blocking.rows), "{q}");
        assert_eq!(format!("{want:?}"), format!("{:?}", cold.rows), "{q}");
        assert_eq!(format!("{want:?}"), format!("{:?}", warm.rows), "{q}");
        // The same pages, not more (every key requested is one the list
        // will seek).
        assert!(async_reads <= blocking_reads, "{q}: {async_reads} reads async, {blocking_reads} blocking");
        // About 100 leaves: one suspension per key without the prefetch;
        // with it, a few per window of 32 keys (the sim completes up to
        // 64 requests per poll, in random order).
        assert!(cold.ios < 40, "{q}: {} suspensions for {blocking_reads} pages", cold.ios);
    }
}

/// 6,000 rows, each pointing at another row (`c`), for joins by column.
const JOIN_SETUP: &str = "CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c INTEGER);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i<6000)
INSERT INTO t SELECT i, printf('%04d', i % 1000) || printf('%.80c', '~'), (i * 4099) % 6000 + 1 FROM n;";

/// The inner side of a join on an async connection: when its seek waits,
/// the keys of the outer loop's next rows are computed from the cached
/// rows and their descents requested together (`seek_ahead::run_ahead`).
/// SQLite's rows; no page a blocking connection does not read, but for
/// the outer scan's own read-ahead; far fewer suspensions than pages.
#[test]
fn a_join_requests_the_inner_descents_of_the_next_outer_rows() {
    let backend = sim(12, 64);
    let io = IoContext::new(backend.clone());
    let mut w = open(&io, "db", false);
    must(&mut w, JOIN_SETUP);
    w.close().unwrap();
    let reference = sql_common::RefDb::open();
    sql_common::run_ref(&reference, JOIN_SETUP);

    let queries = [
        // By a column of the outer row.
        "SELECT sum(length(y.b)), count(*) FROM t x JOIN t y ON y.a = x.c WHERE x.a BETWEEN 1 AND 150",
        // Computed keys, three tables (the third's key from the second's row).
        "SELECT sum(length(z.b)), count(*) FROM t x JOIN t y ON y.a = (x.a * 2371) % 6000 + 1 JOIN t z ON z.a = y.c WHERE x.a <= 150",
        "SELECT sum(z.a), count(*) FROM t x JOIN t y ON y.a = (x.a * 2371) % 6000 + 1 JOIN t z ON z.a = (y.a * 97) % 6000 + 1 WHERE x.a <= 150",
        // Inner rows missing (LEFT JOIN's NULL rows), a filter on the outer row.
        "SELECT x.a, y.a, substr(y.b, 1, 4) FROM t x LEFT JOIN t y ON y.a = x.c + 5900 WHERE x.a <= 120",
        "SELECT count(*), sum(y.c) FROM t x JOIN t y ON y.a = x.c WHERE x.a <= 400 AND x.c % 3 = 0",
        // Text keys and NULLs in the outer row.
        "SELECT count(*) FROM t x JOIN t y ON y.a = CASE WHEN x.a % 5 = 0 THEN NULL ELSE x.c END WHERE x.a <= 150",
    ];
    for q in queries {
        let want = match sql_common::run_ref(&reference, q).pop() {
            Some(sql_common::Outcome::Rows { rows, .. }) => rows,
            other => panic!("reference: {other:?}"),
        };
        let before = backend.submitted();
        let mut c = open(&io, "db", false);
        let blocking = must(&mut c, q);
        c.close().unwrap();
        let blocking_reads = backend.submitted() - before;

        let before = backend.submitted();
        let mut c = open(&io, "db", true);
        let cold = must(&mut c, q);
        let async_reads = backend.submitted() - before;
        let before = backend.submitted();
        let warm = must(&mut c, q);
        assert!(backend.submitted() - before <= 1, "{q}: reads on cached data (but the header)");
        assert!(warm.ios <= 1, "{q}: waited on cached data (but for the header)");
        c.close().unwrap();

        assert_eq!(format!("{want:?}"), format!("{:?}", blocking.rows), "{q}");
        assert_eq!(format!("{want:?}"), format!("{:?}", cold.rows), "{q}");
        assert_eq!(format!("{want:?}"), format!("{:?}", warm.rows), "{q}");
        eprintln!("{q}: {async_reads} reads async ({} suspensions), {blocking_reads} blocking", cold.ios);
        assert!(async_reads <= blocking_reads + 8, "{q}: {async_reads} reads async, {blocking_reads} blocking");
    }
}

/// `k IN (...)` on an indexed column: the index descents of the list's
/// next keys are requested together (the index holds 60-byte keys: about
/// 110 leaves), and the table lookups of the rows they find, run ahead
/// from the list's next values through the cached index pages.
#[test]
fn an_in_list_on_an_index_requests_the_next_keys_descents_together() {
    const SETUP: &str = "CREATE TABLE u(k TEXT, v INTEGER);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i<6000)
INSERT INTO u SELECT printf('%06d', i) || printf('%.60c', '-'), i FROM n;
CREATE INDEX uk ON u(k);";
    let backend = sim(13, 64);
    let io = IoContext::new(backend.clone());
    let mut w = open(&io, "db", false);
    must(&mut w, SETUP);
    w.close().unwrap();
    let reference = sql_common::RefDb::open();
    sql_common::run_ref(&reference, SETUP);
    let mut keys: Vec<String> = (0..100).map(|i| format!("printf('%06d', {}) || printf('%.60c', '-')", (i * 2371) % 6000 + 1)).collect();
    keys.extend(["'000017'".into(), "NULL".into(), "42".into()]);
    let list = keys.join(",");
    let queries = [
        // Covering: the index alone.
        format!("SELECT count(*), max(k) FROM u WHERE k IN ({list})"),
        format!("SELECT k FROM u WHERE k IN ({list}) ORDER BY k DESC"),
        // And the table's rows.
        format!("SELECT sum(v) FROM u WHERE k IN ({list})"),
    ];
    for q in &queries {
        let want = match sql_common::run_ref(&reference, q).pop() {
            Some(sql_common::Outcome::Rows { rows, .. }) => rows,
            other => panic!("reference: {other:?}"),
        };
        let before = backend.submitted();
        let mut c = open(&io, "db", false);
        let blocking = must(&mut c, q);
        c.close().unwrap();
        let blocking_reads = backend.submitted() - before;
        let before = backend.submitted();
        let mut c = open(&io, "db", true);
        let cold = must(&mut c, q);
        let async_reads = backend.submitted() - before;
        c.close().unwrap();
        assert_eq!(format!("{want:?}"), format!("{:?}", blocking.rows), "{q}");
        assert_eq!(format!("{want:?}"), format!("{:?}", cold.rows), "{q}");
        eprintln!("{}: {async_reads} reads async ({} suspensions), {blocking_reads} blocking", &q[..40], cold.ios);
        assert!(async_reads <= blocking_reads, "{q}: {async_reads} reads async, {blocking_reads} blocking");
        // Without the prefetch: about one suspension per key (two with
        // the table lookups after the index, `sum(v)`).
        assert!(cold.ios < 60, "{q}: {} suspensions for {blocking_reads} pages", cold.ios);
    }
}
