//! Which paths of an async connection really suspend: each query runs on a
//! fresh connection (empty page cache) over the simulated backend, which
//! completes nothing inside a submit, so a path that needs a page must
//! answer `StepResult::Io`; a path that blocked inside the engine instead
//! would show zero suspensions. Every answer is compared with a blocking
//! connection reading the same file.
//!
//! Covered: full scan, rowid seek, index seek, overflow pages, commit
//! (journal and database writes plus their syncs) in rollback-journal and
//! WAL mode, and the cache spill of a transaction bigger than the cache.
//! Sorts that spill to a temporary file: `async_sort.rs`.

use crate::async_support;
use async_support::*;
use ringlite::io::IoContext;

const ROWS: i64 = 3000;

const SETUP: &str = "CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c BLOB);
CREATE INDEX tb ON t(b);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i<3000)
INSERT INTO t SELECT i, 'k' || i || printf('%.40c', '-'),
  CASE WHEN i % 100 = 0 THEN CAST(printf('%.20000c', char(65 + i % 26)) || i AS BLOB) ELSE i END FROM n;";

fn key(a: i64) -> String {
    format!("k{a}{}", "-".repeat(40))
}

/// A simulated disk holding the test table, written by a blocking
/// connection (in WAL mode if `wal`).
fn disk(seed: u64, wal: bool) -> IoContext {
    let io = IoContext::new(sim(seed, 2));
    let mut c = open(&io, "db", false);
    if wal {
        must(&mut c, "PRAGMA journal_mode=WAL");
    }
    must(&mut c, SETUP);
    c.close().unwrap();
    io
}

/// `sql` on a cold async connection and on a cold blocking one.
fn cold(io: &IoContext, sql: &str) -> (Run, Run) {
    let mut a = open(io, "db", true);
    let ra = must(&mut a, sql);
    a.close().unwrap();
    let mut b = open(io, "db", false);
    let rb = must(&mut b, sql);
    b.close().unwrap();
    assert_eq!(rb.ios, 0, "a blocking connection never answers Io");
    (ra, rb)
}

#[test]
fn cold_scan_suspends_and_returns_every_row_once() {
    let io = disk(1, false);
    // (NOT INDEXED: the covering index tb would be read instead, as SQLite
    // does, in b's order.)
    let (a, b) = cold(&io, "SELECT a, b FROM t NOT INDEXED");
    assert!(a.ios > 10, "a cold scan of ~40 pages suspended only {} times", a.ios);
    assert_eq!(a.rows.len() as i64, ROWS);
    assert_eq!(a.rows, b.rows);
    let ids: Vec<V> = (1..=ROWS).map(V::Int).collect();
    assert_eq!(a.rows.iter().map(|r| r[0].clone()).collect::<Vec<_>>(), ids, "no row repeated or lost");
}

#[test]
fn cold_rowid_seek_suspends() {
    let io = disk(2, false);
    let (a, b) = cold(&io, "SELECT a, b FROM t WHERE a = 2345");
    assert!(a.ios > 0);
    assert_eq!(a.rows, vec![vec![V::Int(2345), V::Text(key(2345).into_bytes())]]);
    assert_eq!(a.rows, b.rows);
}

#[test]
fn cold_index_seek_suspends() {
    let io = disk(3, false);
    let sql = format!("SELECT a FROM t WHERE b = '{}'", key(1234));
    let plan = cold(&io, &format!("EXPLAIN QUERY PLAN {sql}")).0;
    let detail = match plan.rows.first().and_then(|r| r.get(3)) {
        Some(V::Text(t)) => String::from_utf8_lossy(t).into_owned(),
        other => panic!("no query plan: {other:?}"),
    };
    assert!(detail.contains("USING COVERING INDEX tb"), "the query must use the index: {detail}");
    let (a, b) = cold(&io, &sql);
    assert!(a.ios > 0);
    assert_eq!(a.rows, vec![vec![V::Int(1234)]]);
    assert_eq!(a.rows, b.rows);
}

#[test]
fn overflow_read_suspends_once_the_leaf_is_cached() {
    let io = disk(4, false);
    let mut a = open(&io, "db", true);
    must(&mut a, "BEGIN");
    let leaf = must(&mut a, "SELECT a FROM t WHERE a = 700");
    assert!(leaf.ios > 0);
    let again = must(&mut a, "SELECT a FROM t WHERE a = 700");
    assert_eq!(again.ios, 0, "the path to the leaf is cached now");
    // The tail of a 20 KB value lives on its last overflow pages.
    let sql = "SELECT hex(substr(c, 19995, 10)) FROM t WHERE a = 700";
    let tail = must(&mut a, sql);
    assert!(tail.ios > 0, "reading overflow pages must suspend");
    must(&mut a, "COMMIT");
    a.close().unwrap();
    let mut b = open(&io, "db", false);
    assert_eq!(tail.rows, must(&mut b, sql).rows);
    assert_eq!(tail.rows, vec![vec![V::Text(b"595959595959373030".to_vec())]]);
}

/// An explicit transaction's COMMIT on an async connection: journal and
/// database writes and their syncs all suspend, and the result is there
/// for the next connection.
fn commit_suspends(wal: bool) {
    let io = disk(5 + wal as u64, wal);
    let mut a = open(&io, "db", true);
    must(&mut a, "BEGIN");
    must(&mut a, "INSERT INTO t(b, c) SELECT b || 'new', a FROM t WHERE a <= 500");
    let commit = must(&mut a, "COMMIT");
    assert!(commit.ios > 0, "COMMIT wrote and synced without suspending (wal={wal})");
    // Autocommit: the commit inside the statement's Halt suspends too.
    let auto = must(&mut a, "UPDATE t SET b = b || '!' WHERE a = 3001");
    assert!(auto.ios > 0);
    a.close().unwrap();
    let mut b = open(&io, "db", false);
    let n = must(&mut b, "SELECT count(*), max(a), (SELECT b FROM t WHERE a = 3001) FROM t").rows;
    assert_eq!(n, vec![vec![V::Int(ROWS + 500), V::Int(ROWS + 500), V::Text(format!("{}new!", key(1)).into_bytes())]]);
    assert_eq!(must(&mut b, "PRAGMA integrity_check").rows, vec![vec![V::Text(b"ok".to_vec())]]);
}

#[test]
fn commit_suspends_in_rollback_journal_mode() {
    commit_suspends(false);
}

#[test]
fn commit_suspends_in_wal_mode() {
    commit_suspends(true);
}

/// A transaction bigger than the page cache spills dirty pages before it
/// commits (journal synced, pages written): on an async connection those
/// writes suspend the INSERT itself, and the result is whole.
#[test]
fn cache_spill_inside_a_big_transaction_suspends() {
    for wal in [false, true] {
        let io = disk(9, wal);
        let mut a = open(&io, "db", true);
        must(&mut a, "PRAGMA cache_size=10");
        must(&mut a, "BEGIN; CREATE TABLE big(x)");
        // All pages of `big` are new: nothing to read, so every suspension
        // of this INSERT is a spill's write or sync.
        let insert =
            must(&mut a, "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i<3000) INSERT INTO big SELECT printf('%.200c', 'b') || i FROM n");
        assert!(insert.ios > 0, "a spill wrote without suspending (wal={wal})");
        must(&mut a, "COMMIT");
        a.close().unwrap();
        let mut b = open(&io, "db", false);
        assert_eq!(must(&mut b, "SELECT count(*), count(DISTINCT x) FROM big").rows, vec![vec![V::Int(3000), V::Int(3000)]]);
        assert_eq!(must(&mut b, "PRAGMA integrity_check").rows, vec![vec![V::Text(b"ok".to_vec())]]);
        b.close().unwrap();
    }
}
