//! FTS4's `merge=X,Y` and `automerge=N` commands against the reference
//! SQLite: how the arguments are read and stored, the segments a merge
//! that completes leaves (byte for byte, with SQLite's reserved blockid
//! ranges and marker block), queries and `integrity-check` after
//! automatic merges, and a merge SQLite left half done finished by
//! ringlite (and checked by both).

use crate::ext_fts3::{same_steps, Words};
use crate::sql_common::{ours_open, run_ours, run_ref, Outcome, RefDb};
use ringlite::{Connection, OpenFlags};

const DUMP: &str = "SELECT level, idx, start_block, leaves_end_block, end_block, hex(root) FROM t_segdir;; \
                    SELECT blockid, typeof(block), hex(block) FROM t_segments;; SELECT id, hex(value) FROM t_stat;;";

const QUERIES: &str = "SELECT docid FROM t WHERE t MATCH 'w11';; SELECT docid FROM t WHERE t MATCH 'app* OR w3*';; \
                       SELECT count(*) FROM t WHERE t MATCH 'w12 w13';; INSERT INTO t(t) VALUES('integrity-check');;";

/// `n` transactions of `per` documents each (one level-0 segment each).
fn batches(seed: u64, n: usize, per: usize, words: usize) -> String {
    let mut w = Words(seed);
    let mut s = String::new();
    for i in 0..n {
        s.push_str("BEGIN;;");
        for _ in 0..per {
            s.push_str(&format!("INSERT INTO t VALUES('{}');;", w.text(words)));
        }
        if i % 3 == 2 {
            s.push_str(&format!("DELETE FROM t WHERE docid = {};;", 1 + i * per / 2));
        }
        s.push_str("COMMIT;;");
    }
    s
}

/// `n` transactions of `per` documents over a wide vocabulary (so the
/// merged segment needs interior nodes of more than one height).
fn wide_batches(n: usize, per: usize) -> String {
    let mut x: u64 = 12345;
    let mut s = String::new();
    for _ in 0..n {
        s.push_str("BEGIN;;");
        for _ in 0..per {
            let words: Vec<String> = (0..20)
                .map(|_| {
                    x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    format!("w{}", (x >> 33) % 30000)
                })
                .collect();
            s.push_str(&format!("INSERT INTO t VALUES('{}');;", words.join(" ")));
        }
        s.push_str("COMMIT;;");
    }
    s
}

#[test]
fn merge_and_automerge_arguments() {
    let mut ours = ours_open();
    let r = RefDb::open();
    let mut s = String::from("CREATE VIRTUAL TABLE t USING fts4(x);; CREATE VIRTUAL TABLE f3 USING fts3(x);;");
    for cmd in [
        "merge=5",
        "merge=abc",
        "merge=0,2",
        "merge=5,1",
        "merge=5,17",
        "merge=5,2",
        "merge= 5,2",
        "merge=5,2 ",
        "merge=-1,2",
        "merge=5,0",
        "merge=5,",
        "merge=",
        "merge=,2",
        "merge=5x",
        "merge=00005,02",
        "merge=+5,2",
        "merge=5,2,3",
        "merge=99999999999,2",
        "MERGE=5,2",
        "automerge=1",
        "automerge=16",
        "automerge=0",
        "automerge=x",
        "automerge=-1",
        "automerge=2 ",
        "automerge=100",
        "automerge=2x",
        "automerge=",
        "automerge= 3",
        "AutoMerge=4",
    ] {
        s.push_str(&format!("SELECT total_changes();; INSERT INTO t(t) VALUES('{cmd}');; SELECT total_changes();; SELECT id, quote(value) FROM t_stat;;"));
    }
    s.push_str("SELECT name FROM sqlite_master WHERE name LIKE 'f3%';; INSERT INTO f3(f3) VALUES('merge=4,2');;");
    s.push_str("SELECT name FROM sqlite_master WHERE name LIKE 'f3%';; INSERT INTO f3(f3) VALUES('automerge=3');;");
    s.push_str("SELECT id, quote(value) FROM f3_stat;;");
    same_steps(&mut ours, &r, &s);
}

/// Merges that finish within the budget leave the reference's records.
#[test]
fn complete_merges_match_byte_for_byte() {
    for (page, n, per, words, cmd) in [
        (4096, 8, 1, 3, "merge=100"),
        (4096, 7, 1, 3, "merge=100"),
        (4096, 3, 1, 3, "merge=100,3"),
        (512, 8, 50, 20, "merge=100000,2"),
        (512, 3, 300, 20, "merge=100000,2"),
        (1024, 12, 40, 30, "merge=100000,4"),
    ] {
        let mut ours = ours_open();
        let r = RefDb::open();
        let setup = format!("PRAGMA page_size = {page};; CREATE VIRTUAL TABLE t USING fts4(x, prefix='1,2');; {}", batches(n as u64, n, per, words));
        same_steps(&mut ours, &r, &setup);
        same_steps(&mut ours, &r, DUMP);
        same_steps(&mut ours, &r, &format!("SELECT total_changes();; INSERT INTO t(t) VALUES('{cmd}');; SELECT total_changes();;"));
        same_steps(&mut ours, &r, DUMP);
        same_steps(&mut ours, &r, QUERIES);
        // More writes over the merged index: promotion sees its size.
        same_steps(&mut ours, &r, &batches(99, 2, per, words));
        same_steps(&mut ours, &r, DUMP);
        same_steps(&mut ours, &r, QUERIES);
    }
}

/// A merged segment with interior nodes of heights 1 and 2.
#[test]
fn complete_merge_with_a_deep_tree_matches() {
    let mut ours = ours_open();
    let r = RefDb::open();
    let setup = format!("PRAGMA page_size = 512;; CREATE VIRTUAL TABLE t USING fts4(x);; {}", wide_batches(3, 300));
    same_steps(&mut ours, &r, &setup);
    same_steps(&mut ours, &r, "INSERT INTO t(t) VALUES('merge=100000,2');;");
    same_steps(&mut ours, &r, DUMP);
    same_steps(&mut ours, &r, "SELECT count(*) FROM t_segments WHERE substr(block, 1, 1) = x'02';; INSERT INTO t(t) VALUES('integrity-check');;");
}

/// `optimize` over the same segments (SQLite's other writer).
#[test]
fn optimize_with_a_deep_tree_matches() {
    let mut ours = ours_open();
    let r = RefDb::open();
    let setup = format!("PRAGMA page_size = 512;; CREATE VIRTUAL TABLE t USING fts4(x);; {}", wide_batches(3, 300));
    same_steps(&mut ours, &r, &setup);
    same_steps(&mut ours, &r, "INSERT INTO t(t) VALUES('optimize');;");
    same_steps(&mut ours, &r, DUMP);
}

/// Rows of a script's outcomes that are not the shadow tables.
fn run_on(path: &str, ours: bool, sql: &str) -> Vec<Outcome> {
    let mut out = Vec::new();
    if ours {
        let mut c = Connection::open(path, OpenFlags(OpenFlags::READWRITE | OpenFlags::CREATE)).unwrap();
        for s in sql.split(";;").map(str::trim).filter(|s| !s.is_empty()) {
            out.extend(run_ours(&mut c, s));
        }
    } else {
        let db = RefDb::open_path(path);
        for s in sql.split(";;").map(str::trim).filter(|s| !s.is_empty()) {
            out.extend(run_ref(&db, s));
        }
    }
    out
}

/// With automerge set, queries and the integrity check agree with the
/// reference after many transactions (the segments may be laid out
/// differently: SQLite stops a merge halfway where ringlite finishes it).
#[test]
fn automerge_keeps_queries_and_integrity() {
    let mut ours = ours_open();
    let r = RefDb::open();
    let mut s = String::from("PRAGMA page_size = 1024;; CREATE VIRTUAL TABLE t USING fts4(x);; INSERT INTO t(t) VALUES('automerge=2');;");
    s.push_str(&batches(5, 40, 20, 25));
    same_steps(&mut ours, &r, &s);
    same_steps(&mut ours, &r, QUERIES);
    let count = "SELECT count(*) <= 8 FROM t_segdir;; INSERT INTO t(t) VALUES('integrity-check');;";
    same_steps(&mut ours, &r, count);
}

/// A merge SQLite leaves half done (`%_stat` row 1 names it) is finished
/// by ringlite; both then read and check the file.
#[test]
fn half_done_merge_finished_by_the_other_engine() {
    let dir = tempfile::tempdir().unwrap();
    for ours_first in [false, true] {
        let path = dir.path().join(format!("m{ours_first}.db"));
        let p = path.to_str().unwrap();
        let setup = format!("PRAGMA page_size = 512;; CREATE VIRTUAL TABLE t USING fts4(x);; {}", batches(3, 10, 30, 20));
        run_on(p, ours_first, &setup);
        run_on(p, ours_first, "INSERT INTO t(t) VALUES('merge=20,4');; INSERT INTO t(t) VALUES('merge=20,4');;");
        let check =
            "INSERT INTO t(t) VALUES('integrity-check');; SELECT docid FROM t WHERE t MATCH 'w11 OR alpha';; SELECT count(*) FROM t WHERE t MATCH 'w3*';;";
        let a = run_on(p, !ours_first, check);
        assert!(a.iter().all(|o| matches!(o, Outcome::Rows { .. })), "{a:?}");
        for _ in 0..40 {
            run_on(p, !ours_first, "INSERT INTO t(t) VALUES('merge=50,2');;");
        }
        let b = run_on(p, ours_first, check);
        let c = run_on(p, !ours_first, check);
        assert_eq!(a, b);
        assert_eq!(b, c);
        let segs = run_on(p, ours_first, "SELECT count(*) = 1 FROM t_segdir;;");
        assert_eq!(segs, run_on(p, !ours_first, "SELECT 1 AS \"count(*) = 1\";;"), "one segment left");
    }
}

/// Promotion after a new segment is all or nothing: one segment above it
/// larger than 1.5 times its size keeps every higher level in place.
#[test]
fn promotion_is_all_or_nothing() {
    for big in [5, 100000] {
        let mut ours = ours_open();
        let r = RefDb::open();
        let s = format!(
            "CREATE VIRTUAL TABLE t USING fts4(x);; INSERT INTO t VALUES('doc 0 alpha');; INSERT INTO t VALUES('doc 1 alpha');; \
             INSERT INTO t VALUES('doc 2 alpha');; UPDATE t_segdir SET level = 2, idx = 0, end_block = '0 {big}' WHERE idx = 0;; \
             UPDATE t_segdir SET level = 1, idx = 0, end_block = '0 5' WHERE idx = 1;; UPDATE t_segdir SET idx = 0 WHERE idx = 2;; \
             INSERT INTO t VALUES('some new document text here');; SELECT level, idx, end_block FROM t_segdir;; \
             INSERT INTO t(t) VALUES('integrity-check');;"
        );
        same_steps(&mut ours, &r, &s);
    }
}

/// A damaged totals record (`%_stat` row 0) is "malformed" for a query
/// whose tokens' doclists spill past a node, as SQLite reads it then
/// (fts3misc.test 4.x); a small query does not read it.
#[test]
fn damaged_totals_are_malformed_for_large_queries() {
    let mut ours = ours_open();
    let r = RefDb::open();
    same_steps(
        &mut ours,
        &r,
        "PRAGMA page_size = 512;; CREATE VIRTUAL TABLE t4 USING fts4;; CREATE VIRTUAL TABLE s4 USING fts4;; \
         WITH s(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM s WHERE i<2000) INSERT INTO t4 SELECT 'a b c a b c a b c' FROM s;; \
         INSERT INTO s4 VALUES('a b c');; \
         SELECT count(*) FROM t4 WHERE t4 MATCH '\"a b c\" OR \"c a b\"';; SELECT quote(value) FROM t4_stat WHERE id = 0;;",
    );
    for v in ["X'D00FF00FF83E00'", "X'00D00FF00FF83E'", "'text'", "X'D00FF00FF83E'"] {
        let s = format!(
            "UPDATE t4_stat SET value = {v} WHERE id = 0;; UPDATE s4_stat SET value = {v} WHERE id = 0;; \
             SELECT count(*) FROM t4 WHERE t4 MATCH '\"a b c\" OR \"c a b\"';; SELECT count(*) FROM t4 WHERE t4 MATCH 'a';; \
             SELECT count(*) FROM s4 WHERE s4 MATCH 'a b';;"
        );
        same_steps(&mut ours, &r, &s);
    }
}

/// An oversized varint in a doclist (ten bytes all with the high bit) is
/// read as SQLite reads it, not refused (fts3corrupt3.test 1.3).
#[test]
fn oversized_varints_are_read_as_sqlite_reads_them() {
    let mut ours = ours_open();
    let r = RefDb::open();
    same_steps(
        &mut ours,
        &r,
        "PRAGMA page_size = 512;; CREATE VIRTUAL TABLE t1 USING fts3;; BEGIN;; INSERT INTO t1 VALUES('one');; INSERT INTO t1 VALUES('one');; \
         INSERT INTO t1 VALUES('one');; COMMIT;; SELECT quote(root) FROM t1_segdir;; \
         UPDATE t1_segdir SET root = X'00036F6E650EFFFFFFFFFFFFFFFFFFFFFFFF0200';; SELECT rowid FROM t1 WHERE t1 MATCH 'one';; \
         UPDATE t1_segdir SET root = X'00036F6E650BFFFFFFFFFFFFFFFFFFFFFF';; SELECT rowid FROM t1 WHERE t1 MATCH 'one';;",
    );
}

/// One statement writing more than the pending-data limit flushes where
/// SQLite flushes (its estimate: each term's doclist so far, the term and
/// a hash entry), so the segments match (fts4opt.test 1.8).
#[test]
fn large_statements_flush_where_sqlite_flushes() {
    for (docs, words) in [(1500, 25), (6000, 30)] {
        let mut ours = ours_open();
        let r = RefDb::open();
        let mut w = Words(docs as u64);
        let mut s = String::from("CREATE TABLE src(x);; BEGIN;;");
        for i in 0..docs {
            s.push_str(&format!("INSERT INTO src VALUES('{} n{i}');;", w.text(words)));
        }
        s.push_str("COMMIT;; CREATE VIRTUAL TABLE t USING fts4(x, prefix='1,2,3');; INSERT INTO t(x) SELECT x FROM src;;");
        s.push_str("SELECT level, idx, start_block, leaves_end_block, end_block FROM t_segdir;; DELETE FROM t WHERE rowid % 3 = 0;;");
        s.push_str("SELECT level, idx, start_block, leaves_end_block, end_block FROM t_segdir;;");
        same_steps(&mut ours, &r, &s);
    }
}
