//! Memory held by one open connection after it has read a database much
//! bigger than its cache, against SQLite at the same `cache_size`: ours
//! is counted by a global allocator wrapper (everything this process
//! allocates while only our connection exists), SQLite's by
//! `sqlite3_memory_used()`. Ours must not be above SQLite's (a margin of
//! 10% for allocator rounding); the numbers are printed.

mod storage_support;

use libsqlite3_sys as ffi;
use ringlite::{Connection, OpenFlags, StepResult};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};
use storage_support::*;

struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        LIVE.fetch_add(l.size() as isize, Ordering::Relaxed);
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size() as isize, Ordering::Relaxed);
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        LIVE.fetch_add(n as isize - l.size() as isize, Ordering::Relaxed);
        unsafe { System.realloc(p, l, n) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn our_scan(conn: &mut Connection, sql: &str) {
    let (stmt, _) = conn.prepare(sql.as_bytes()).unwrap();
    let mut stmt = stmt.unwrap();
    while stmt.step(conn).unwrap() == StepResult::Row {}
}

#[test]
#[allow(unsafe_code)]
fn connection_memory_is_not_above_sqlite_at_the_same_cache_size() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mem.db").to_str().unwrap().to_string();
    {
        let db = Sqlite::open(&path);
        db.exec("PRAGMA page_size=4096; CREATE TABLE t(a INTEGER PRIMARY KEY, b); CREATE INDEX tb ON t(b);");
        db.exec("WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM c WHERE n<20000) INSERT INTO t SELECT n, hex(randomblob(200)) FROM c;");
    }
    let file_kib = std::fs::metadata(&path).unwrap().len() / 1024;
    let scans = ["SELECT sum(length(b)) FROM t", "SELECT count(*) FROM t WHERE b > 'A'", "SELECT max(a) FROM t"];
    for cache_size in [-2000i64, 100, 500] {
        let setup = format!("PRAGMA cache_size={cache_size}");
        // SQLite.
        let theirs = {
            let base = unsafe { ffi::sqlite3_memory_used() };
            let db = Sqlite::open(&path);
            db.exec(&setup);
            for s in scans {
                db.query(s);
            }
            let used = unsafe { ffi::sqlite3_memory_used() } - base;
            drop(db);
            used
        };
        // Ours.
        let ours = {
            let base = LIVE.load(Ordering::Relaxed);
            let mut conn = Connection::open(&path, OpenFlags(OpenFlags::READWRITE)).unwrap();
            our_scan(&mut conn, &setup);
            for s in scans {
                our_scan(&mut conn, s);
            }
            let used = LIVE.load(Ordering::Relaxed) - base;
            drop(conn);
            used as i64
        };
        eprintln!("cache_size={cache_size} (file {file_kib} KiB): ours {} KiB, SQLite {} KiB", ours / 1024, theirs / 1024);
        assert!(ours as f64 <= theirs as f64 * 1.1, "cache_size={cache_size}: ours {ours} bytes, SQLite {theirs}");
    }
}
