//! The write path's shortcuts against real SQLite: prepared INSERT,
//! UPDATE and DELETE statements run again and again (so their cursors
//! start from the previous run's position: `btree/near.rs`), with rowids
//! that append, prepend, land next to the last one or anywhere, on a
//! small cache (pages evicted under the hints), interleaved with writes to
//! another table and index (which must not make the hints stale) and with
//! savepoint rollbacks and transaction boundaries (which must). Every
//! statement's outcome is compared, then the tables, and both engines'
//! integrity checks pass on the file ringlite wrote.
#![allow(unsafe_code)]

use crate::sql_common;

use libsqlite3_sys as ffi;
use ringlite::value::Value;
use ringlite::{Connection, OpenFlags, StepResult};
use sql_common::{run_ours, run_ref, Outcome, RefDb, V};
use std::ffi::{CStr, CString};

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const STATEMENTS: &[&str] = &[
    "INSERT INTO t(a, b, c) VALUES (?1, ?2, ?3)",
    "INSERT OR REPLACE INTO t(a, b, c) VALUES (?1, ?2, ?3)",
    "INSERT INTO t(b, c) VALUES (?2, ?3)",
    "UPDATE t SET b = ?2 WHERE a = ?1",
    "DELETE FROM t WHERE a = ?1",
    "INSERT INTO u(x, y) VALUES (?1, ?2)",
    "UPDATE t SET a = ?3 WHERE a = ?1",
];

/// Prepared statements of the reference, reused like ringlite's.
struct RefStmts(Vec<*mut ffi::sqlite3_stmt>);

impl RefStmts {
    fn prepare(db: &RefDb) -> RefStmts {
        RefStmts(
            STATEMENTS
                .iter()
                .map(|sql| {
                    let c = CString::new(*sql).unwrap();
                    let mut st = std::ptr::null_mut();
                    assert_eq!(unsafe { ffi::sqlite3_prepare_v2(db.0, c.as_ptr(), -1, &mut st, std::ptr::null_mut()) }, 0, "{sql}");
                    st
                })
                .collect(),
        )
    }

    fn run(&self, db: &RefDb, i: usize, args: &[Value]) -> Outcome {
        let st = self.0[i];
        unsafe {
            for (j, a) in args.iter().enumerate() {
                let k = j as i32 + 1;
                if ffi::sqlite3_bind_parameter_count(st) < k {
                    continue;
                }
                match a {
                    Value::Integer(v) => ffi::sqlite3_bind_int64(st, k, *v),
                    Value::Text(t) => ffi::sqlite3_bind_text(st, k, t.as_ptr().cast(), t.len() as i32, ffi::SQLITE_TRANSIENT()),
                    _ => ffi::sqlite3_bind_null(st, k),
                };
            }
            let rc = ffi::sqlite3_step(st);
            let out = if rc == ffi::SQLITE_DONE {
                Outcome::Rows { names: vec![], rows: vec![] }
            } else {
                Outcome::Error { code: rc & 0xff, message: CStr::from_ptr(ffi::sqlite3_errmsg(db.0)).to_string_lossy().into_owned() }
            };
            ffi::sqlite3_reset(st);
            out
        }
    }
}

impl Drop for RefStmts {
    fn drop(&mut self) {
        for &st in &self.0 {
            unsafe { ffi::sqlite3_finalize(st) };
        }
    }
}

fn run_prepared(conn: &mut Connection, st: &mut ringlite::Statement, args: &[Value]) -> Outcome {
    for (j, a) in args.iter().enumerate() {
        if j < st.parameter_count() {
            st.bind(j + 1, a.clone()).unwrap();
        }
    }
    let out = loop {
        match st.step(conn) {
            Ok(StepResult::Done) => break Outcome::Rows { names: vec![], rows: vec![] },
            Ok(StepResult::Io) => continue,
            Ok(StepResult::Row) => panic!("no rows expected"),
            Err(e) => break Outcome::Error { code: e.primary(), message: e.message.clone() },
        }
    };
    st.reset(conn);
    out
}

/// A rowid by one of several patterns around the rowids used so far.
fn pick_rowid(rng: &mut Rng, lo: &mut i64, hi: &mut i64, last: &mut i64) -> i64 {
    let r = match rng.below(10) {
        0..=3 => *hi + 1 + rng.below(3) as i64,
        4 => *lo - 1 - rng.below(3) as i64,
        5..=6 => *last + rng.below(5) as i64 - 2,
        7 => *last,
        _ => *lo + rng.below((*hi - *lo + 1).max(1) as u64) as i64,
    };
    *lo = (*lo).min(r);
    *hi = (*hi).max(r);
    *last = r;
    r
}

fn scenario(seed: u64, steps: usize, cache_pages: i64) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.db");
    let path = path.to_str().unwrap();
    let setup = format!(
        "PRAGMA cache_size={cache_pages}; PRAGMA synchronous=OFF; CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c INTEGER); CREATE INDEX t_c ON t(c); CREATE INDEX t_b ON t(b);
         CREATE TABLE u(x INTEGER PRIMARY KEY, y TEXT); CREATE INDEX u_y ON u(y);"
    );
    let mut ours = Connection::open(path, OpenFlags(OpenFlags::READWRITE | OpenFlags::CREATE)).unwrap();
    let reference = RefDb::open();
    assert_eq!(run_ours(&mut ours, &setup), run_ref(&reference, &setup));
    let mut stmts: Vec<ringlite::Statement> = STATEMENTS.iter().map(|sql| ours.prepare(sql.as_bytes()).unwrap().0.unwrap()).collect();
    let ref_stmts = RefStmts::prepare(&reference);
    let mut rng = Rng(seed | 1);
    let (mut lo, mut hi, mut last) = (1000i64, 1000i64, 1000i64);
    let mut in_txn = false;
    for step in 0..steps {
        // Transaction boundaries and savepoint rollbacks now and then.
        let control = match rng.below(60) {
            0 if !in_txn => Some("BEGIN"),
            1 if in_txn => Some("COMMIT"),
            2 => Some("SAVEPOINT s"),
            3 => Some("ROLLBACK TO s"),
            4 => Some("RELEASE s"),
            _ => None,
        };
        if let Some(sql) = control {
            let a = run_ours(&mut ours, sql);
            let b = run_ref(&reference, sql);
            assert_eq!(a, b, "step {step}: {sql}");
            in_txn = unsafe { ffi::sqlite3_get_autocommit(reference.0) } == 0;
        }
        let which = match rng.below(20) {
            0..=8 => 0,
            9..=10 => 1,
            11..=12 => 2,
            13..=14 => 3,
            15 => 4,
            16..=18 => 5,
            _ => 6,
        };
        let rowid = pick_rowid(&mut rng, &mut lo, &mut hi, &mut last);
        let len = if rng.below(50) == 0 { 3000 + rng.below(6000) as usize } else { 1 + rng.below(60) as usize };
        let text: String = (0..len).map(|i| (b'a' + ((i as u64 * 7 + rng.below(26)) % 26) as u8) as char).collect();
        let third = if which == 6 { pick_rowid(&mut rng, &mut lo, &mut hi, &mut last) } else { rng.below(1000) as i64 };
        let args = [Value::Integer(rowid), Value::Text(text.into_bytes()), Value::Integer(third)];
        let a = run_prepared(&mut ours, &mut stmts[which], &args);
        let b = ref_stmts.run(&reference, which, &args);
        assert_eq!(a, b, "step {step}: {} with {rowid}", STATEMENTS[which]);
    }
    if in_txn {
        assert_eq!(run_ours(&mut ours, "COMMIT"), run_ref(&reference, "COMMIT"));
    }
    for q in ["SELECT a, b, c FROM t ORDER BY a", "SELECT c, a FROM t ORDER BY c, a", "SELECT x, y FROM u ORDER BY x", "PRAGMA integrity_check"] {
        let a = run_ours(&mut ours, q);
        let b = run_ref(&reference, q);
        assert_eq!(a, b, "{q}");
    }
    for st in stmts.iter_mut() {
        st.reset(&mut ours);
    }
    drop(stmts);
    ours.close().unwrap();
    // The file ringlite wrote, checked by SQLite itself.
    let check = RefDb::open_path(path);
    let r = run_ref(&check, "PRAGMA integrity_check");
    assert_eq!(r, vec![Outcome::Rows { names: vec!["integrity_check".into()], rows: vec![vec![V::Text(b"ok".to_vec())]] }]);
}

#[test]
fn repeated_writes_match_sqlite_with_a_small_cache() {
    for seed in 1..=3 {
        scenario(seed, 2500, 12);
    }
}

#[test]
fn repeated_writes_match_sqlite_with_a_big_cache() {
    scenario(99, 4000, 2000);
}

/// UPDATEs that change the length of random rows' text leave freeblocks
/// and fragments behind; a longer cell that the page holds only once its
/// free space is gathered is written after repacking the page in place
/// (`Btree::defragment`). Savepoint rollbacks undo some of them. The rows
/// and the integrity check must match SQLite's.
#[test]
fn updates_that_need_the_page_repacked() {
    let mut rng = Rng(0x5eed_1234);
    let word = |rng: &mut Rng, n: u64| (0..n).map(|_| (b'a' + rng.below(26) as u8) as char).collect::<String>();
    let mut setup = String::from("PRAGMA cache_size=10; CREATE TABLE t(id INTEGER PRIMARY KEY, u TEXT); BEGIN;");
    for i in 1..=400 {
        let n = 20 + rng.below(40);
        setup += &format!("INSERT INTO t VALUES({i}, '{}');", word(&mut rng, n));
    }
    setup += "COMMIT;";
    for round in 0..16 {
        let savepoint = round % 4 == 3;
        if savepoint {
            setup += "SAVEPOINT s;";
        }
        for _ in 0..100 {
            let id = 1 + rng.below(400);
            let n = 1 + rng.below(90);
            setup += &format!("UPDATE t SET u='{}' WHERE id={id};", word(&mut rng, n));
        }
        if savepoint {
            setup += "ROLLBACK TO s; RELEASE s;";
        }
    }
    sql_common::check_each(&setup, &["SELECT id, u FROM t ORDER BY id", "SELECT count(*), sum(length(u)) FROM t", "PRAGMA integrity_check"]);
}

/// Rows appended to a table whose root leaf is full: the root's cells
/// move to a child and the new row starts a leaf of its own (SQLite's
/// balance_deeper then balance_quick), so the file grows page for page
/// as SQLite's (tkt2920.test fills a 40-page limit exactly).
#[test]
fn appends_past_a_full_root_leaf_grow_as_sqlite() {
    use crate::sql_common::*;
    let setup = "PRAGMA page_size=1024; PRAGMA auto_vacuum=0; CREATE TABLE filler(fill); CREATE TABLE w(a INTEGER PRIMARY KEY, b)";
    let step = "INSERT INTO filler VALUES(zeroblob(1024)); INSERT INTO w(b) VALUES(zeroblob(300)); PRAGMA page_count";
    let dir = tempfile::tempdir().unwrap();
    let (po, pr) = (dir.path().join("o.db"), dir.path().join("r.db"));
    let mut ours = ringlite::Connection::open(po.to_str().unwrap(), ringlite::OpenFlags(ringlite::OpenFlags::READWRITE | ringlite::OpenFlags::CREATE)).unwrap();
    let r = RefDb::open_path(pr.to_str().unwrap());
    assert_eq!(run_ours(&mut ours, setup), run_ref(&r, setup));
    for i in 0..40 {
        assert_eq!(run_ours(&mut ours, step), run_ref(&r, step), "insert {i}");
    }
    let check = "PRAGMA integrity_check; SELECT count(*), sum(length(fill)) FROM filler";
    assert_eq!(run_ours(&mut ours, check), run_ref(&r, check));
}

/// UPDATEs that grow rows by a few bytes (a NULL column given a number,
/// then a longer number, as speedtest1's 230-250 do) on pages with
/// freeblocks and fragments from deletes: the old cell's bytes, merged
/// with the free bytes beside them, mostly hold the longer cell without
/// repacking the page (`after_free` in `btree/insert.rs`). Rows, counts
/// and the integrity check match SQLite's, and SQLite reads the file
/// ringlite wrote and finds it sound.
#[test]
fn rows_that_grow_in_place_match_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.db");
    let path = path.to_str().unwrap();
    let mut rng = Rng(0x0917_2026);
    let mut setup = String::from("PRAGMA page_size=1024; CREATE TABLE t(a INTEGER PRIMARY KEY, b INTEGER, c TEXT); CREATE INDEX t_b ON t(b); BEGIN;");
    for i in 1..=1500 {
        let n = 5 + rng.below(60);
        let c: String = (0..n).map(|_| (b'a' + rng.below(26) as u8) as char).collect();
        setup += &format!("INSERT INTO t VALUES({i}, {}, '{c}');", rng.below(100_000));
    }
    setup += "COMMIT; DELETE FROM t WHERE a % 7 = 3; ALTER TABLE t ADD COLUMN d;";
    let mut rounds = vec![
        "UPDATE t SET d = b * 2 WHERE b BETWEEN 1000 AND 60000".to_string(),
        "UPDATE t SET d = b * 3 WHERE a % 2 = 0".into(),
        "UPDATE t SET d = b * 40000".into(),
    ];
    for _ in 0..6 {
        let lo = rng.below(90_000);
        rounds.push(format!("UPDATE t SET d = d * 1000 + 7, c = substr(c, 2) WHERE b BETWEEN {lo} AND {}", lo + 20_000));
        rounds.push(format!("DELETE FROM t WHERE b BETWEEN {lo} AND {}", lo + 300));
        rounds.push(format!("UPDATE t SET c = c || 'xy' WHERE a % 5 = {}", rng.below(5)));
    }
    let mut ours = Connection::open(path, OpenFlags(OpenFlags::READWRITE | OpenFlags::CREATE)).unwrap();
    let reference = RefDb::open();
    assert_eq!(run_ours(&mut ours, &setup), run_ref(&reference, &setup));
    for (i, sql) in rounds.iter().enumerate() {
        let sql = if i % 4 == 3 { format!("SAVEPOINT s; {sql}; ROLLBACK TO s; RELEASE s; {sql}") } else { sql.clone() };
        assert_eq!(run_ours(&mut ours, &sql), run_ref(&reference, &sql), "{sql}");
    }
    for q in ["SELECT a, b, c, d FROM t ORDER BY a", "SELECT count(*), sum(length(c)), sum(d) FROM t", "PRAGMA integrity_check"] {
        assert_eq!(run_ours(&mut ours, q), run_ref(&reference, q), "{q}");
    }
    ours.close().unwrap();
    let check = RefDb::open_path(path);
    let r = run_ref(&check, "PRAGMA integrity_check; SELECT count(*) FROM t");
    assert_eq!(r[0], Outcome::Rows { names: vec!["integrity_check".into()], rows: vec![vec![V::Text(b"ok".to_vec())]] });
}

/// The layout of each B-tree page of a file: its header fields (kind, cell
/// count, first freeblock, content start, fragment bytes), its cell
/// pointers and its freeblock chain (offset, size). Two files with the
/// same rows and the same layouts hold the same cells at the same places.
fn page_layouts(path: &str) -> Vec<Vec<usize>> {
    let bytes = std::fs::read(path).unwrap();
    let page_size = match u16::from_be_bytes([bytes[16], bytes[17]]) {
        1 => 65536,
        n => n as usize,
    };
    let get = |p: &[u8], at: usize| usize::from(u16::from_be_bytes([p[at], p[at + 1]]));
    bytes
        .chunks(page_size)
        .enumerate()
        .map(|(i, p)| {
            let hoff = if i == 0 { 100 } else { 0 };
            let kind = usize::from(p[hoff]);
            if ![2, 5, 10, 13].contains(&kind) {
                return vec![kind];
            }
            let ncells = get(p, hoff + 3);
            let ptrs = hoff + if kind == 2 || kind == 5 { 12 } else { 8 };
            let mut layout = vec![kind, ncells, get(p, hoff + 1), get(p, hoff + 5), usize::from(p[hoff + 7])];
            layout.extend((0..ncells).map(|c| get(p, ptrs + 2 * c)));
            let mut block = get(p, hoff + 1);
            while block != 0 && layout.len() < 4 * page_size {
                layout.extend([block, get(p, block + 2)]);
                block = get(p, block);
            }
            layout
        })
        .collect()
}

/// Rows that grow on pages that hold them only once their free space is
/// gathered (SQLite's defragmentPage, run by its allocateSpace: with one
/// or two freeblocks the cells move as they lie; with more, they are
/// repacked in pointer order): every page's layout is the one SQLite
/// leaves, so that the file's bytes are SQLite's but for the free ones.
#[test]
fn rows_that_grow_leave_sqlites_page_layout() {
    let dir = tempfile::tempdir().unwrap();
    let (po, pr) = (dir.path().join("o.db"), dir.path().join("r.db"));
    let (po, pr) = (po.to_str().unwrap(), pr.to_str().unwrap());
    let mut rng = Rng(0x1a70_2026);
    let mut setup = String::from("PRAGMA page_size=1024; CREATE TABLE t(a INTEGER PRIMARY KEY, b INTEGER, c TEXT); BEGIN;");
    for i in 1..=1200 {
        let n = 5 + rng.below(40);
        let c: String = (0..n).map(|_| (b'a' + rng.below(26) as u8) as char).collect();
        setup += &format!("INSERT INTO t VALUES({i}, {}, '{c}');", rng.below(100_000));
    }
    setup += "COMMIT; DELETE FROM t WHERE a % 9 = 4; DELETE FROM t WHERE a % 23 = 5; ALTER TABLE t ADD COLUMN d;";
    let mut ours = Connection::open(po, OpenFlags(OpenFlags::READWRITE | OpenFlags::CREATE)).unwrap();
    let reference = RefDb::open_path(pr);
    assert_eq!(run_ours(&mut ours, &setup), run_ref(&reference, &setup));
    for sql in [
        "UPDATE t SET d = b % 100",
        "UPDATE t SET d = d * 300 WHERE a % 2 = 0",
        "UPDATE t SET d = d * 70000 + 1 WHERE a % 3 = 1",
        "UPDATE t SET c = c || 'xyz' WHERE a % 5 = 2",
        "UPDATE t SET c = substr(c, 3), d = d * 1000 WHERE a % 4 = 3",
    ] {
        assert_eq!(run_ours(&mut ours, sql), run_ref(&reference, sql), "{sql}");
    }
    let check = "SELECT count(*), sum(length(c)), sum(d) FROM t; PRAGMA integrity_check";
    assert_eq!(run_ours(&mut ours, check), run_ref(&reference, check));
    ours.close().unwrap();
    drop(reference);
    let (a, b) = (page_layouts(po), page_layouts(pr));
    assert_eq!(a.len(), b.len(), "page count");
    for (i, (x, y)) in a.iter().zip(&b).enumerate() {
        assert_eq!(x, y, "page {}", i + 1);
    }
}
