//! The storage engine's key scenarios on the io_uring backend: the same
//! pager/B-tree workload (insert, scan, seek, delete, commit, rollback,
//! savepoints, cache spill) produces the same rows and the same file bytes
//! as on the `sync` backend, real SQLite reads the io_uring-written file
//! with integrity_check ok, and a hot journal left by a crashed commit is
//! rolled back through the ring.

use crate::storage_support;

use ringlite::btree::{Btree, Cursor, InsertKey, SeekResult, TreeKind};
use ringlite::io::sync::SyncBackend;
use ringlite::io::{IoContext, IoUringBackend};
use std::collections::BTreeMap;
use std::sync::Arc;
use storage_support::*;

fn uring() -> IoContext {
    IoContext::new(Arc::new(IoUringBackend::new().expect("io_uring available on the test machine")))
}

fn sync() -> IoContext {
    IoContext::new(Arc::new(SyncBackend::new()))
}

fn rows(io: &IoContext, bt: &mut Btree, root: u32) -> BTreeMap<i64, Vec<u8>> {
    let mut c = Cursor::new(root, false, None);
    let mut out = BTreeMap::new();
    let mut more = io.block_on(|| c.first(bt)).unwrap();
    while more {
        out.insert(c.rowid(), payload(io, &mut c, bt));
        more = io.block_on(|| c.next(bt)).unwrap();
    }
    out
}

/// What a workload observed, compared between backends.
#[derive(Debug, PartialEq)]
struct Observed {
    rows: BTreeMap<i64, Vec<u8>>,
    seeks: Vec<(i64, SeekResult, i64)>,
    count_after_rollback: u64,
    integrity: Vec<String>,
    file: Vec<u8>,
}

fn workload(io: &IoContext, path: &str, small_cache: bool) -> Observed {
    let mut bt = open_btree(io, path);
    if small_cache {
        bt.set_cache_size(10);
    }
    io.block_on(|| bt.begin_write(false)).unwrap();
    let root = create_tree(io, &mut bt, TreeKind::Table);
    add_schema_row(io, &mut bt, 1, "table", "t", "t", root, "CREATE TABLE t(a,b)");
    let mut c = Cursor::new(root, true, None);
    let mut rng = Rng(42);
    for i in 0..2000i64 {
        let key = rng.below(10_000) as i64;
        let rec = encode(&[V::Int(i), V::Text(rng.text((i % 11 * 97) as usize))]);
        io.block_on(|| c.insert(&mut bt, InsertKey::Rowid(key), &rec)).unwrap();
    }
    io.block_on(|| bt.commit()).unwrap();

    // A transaction that is rolled back.
    io.block_on(|| bt.begin_write(false)).unwrap();
    for i in 0..500 {
        if io.block_on(|| c.seek_rowid(&mut bt, i * 7)).unwrap() == SeekResult::Found {
            io.block_on(|| c.delete(&mut bt)).unwrap();
        }
    }
    io.block_on(|| bt.rollback()).unwrap();
    io.block_on(|| bt.begin_read()).unwrap();
    let count_after_rollback = io.block_on(|| c.count(&mut bt)).unwrap();
    io.block_on(|| bt.commit()).unwrap();

    // Deletes and a savepoint that is rolled back, then committed.
    io.block_on(|| bt.begin_write(false)).unwrap();
    for i in 0..3000 {
        if io.block_on(|| c.seek_rowid(&mut bt, i * 3)).unwrap() == SeekResult::Found {
            io.block_on(|| c.delete(&mut bt)).unwrap();
        }
    }
    io.block_on(|| bt.savepoint_open(1)).unwrap();
    for i in 20_000..20_300 {
        io.block_on(|| c.insert(&mut bt, InsertKey::Rowid(i), &encode(&[V::Blob(vec![1; 900])]))).unwrap();
    }
    io.block_on(|| bt.savepoint_rollback(0)).unwrap();
    io.block_on(|| bt.commit()).unwrap();

    io.block_on(|| bt.begin_read()).unwrap();
    let mut seeks = Vec::new();
    for probe in [-5, 0, 1, 333, 5000, 9999, 12_000] {
        let r = io.block_on(|| c.seek_rowid(&mut bt, probe)).unwrap();
        let at = if c.is_valid() { c.rowid() } else { i64::MIN };
        seeks.push((probe, r, at));
    }
    let rows = rows(io, &mut bt, root);
    let integrity = io.block_on(|| bt.integrity_check(&[1, root], 10)).unwrap();
    io.block_on(|| bt.commit()).unwrap();
    drop(bt);
    Observed { rows, seeks, count_after_rollback, integrity, file: std::fs::read(path).unwrap() }
}

fn same_as_sync(small_cache: bool) {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("sync.db").to_str().unwrap().to_string();
    let b = dir.path().join("uring.db").to_str().unwrap().to_string();
    let on_sync = workload(&sync(), &a, small_cache);
    let io = uring();
    assert_eq!(io.backend().name(), "io_uring");
    let on_uring = workload(&io, &b, small_cache);
    assert!(on_uring.integrity.is_empty(), "{:?}", on_uring.integrity);
    assert!(!on_uring.rows.is_empty());
    assert_eq!(on_sync.rows, on_uring.rows);
    assert_eq!(on_sync.seeks, on_uring.seeks);
    assert_eq!(on_sync.count_after_rollback, on_uring.count_after_rollback);
    assert!(on_sync.file == on_uring.file, "database files differ between backends");

    let db = Sqlite::open(&b);
    assert_eq!(db.integrity(), "Text(\"ok\")");
    let n = db.query("SELECT count(*) FROM t");
    assert_eq!(n, vec![vec![V::Int(on_uring.rows.len() as i64)]]);
}

#[test]
fn workload_matches_sync_backend_and_sqlite_reads_it() {
    same_as_sync(false);
}

#[test]
fn workload_with_cache_spill_matches_sync_backend() {
    same_as_sync(true);
}

#[test]
fn hot_journal_from_crashed_commit_is_rolled_back_through_the_ring() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("hot.db").to_str().unwrap().to_string();
    let io = uring();
    let mut bt = open_btree(&io, &path);
    io.block_on(|| bt.begin_write(false)).unwrap();
    let root = create_tree(&io, &mut bt, TreeKind::Table);
    add_schema_row(&io, &mut bt, 1, "table", "t", "t", root, "CREATE TABLE t(a,b)");
    let mut c = Cursor::new(root, true, None);
    for i in 0..300i64 {
        let rec = encode(&[V::Int(i), V::Text("x".repeat((i % 7 * 300) as usize))]);
        io.block_on(|| c.insert(&mut bt, InsertKey::Rowid(i), &rec)).unwrap();
    }
    io.block_on(|| bt.commit()).unwrap();
    io.block_on(|| bt.begin_read()).unwrap();
    let before = rows(&io, &mut bt, root);
    io.block_on(|| bt.commit()).unwrap();

    io.block_on(|| bt.begin_write(false)).unwrap();
    for i in (0..300).step_by(2) {
        if io.block_on(|| c.seek_rowid(&mut bt, i)).unwrap() == SeekResult::Found {
            io.block_on(|| c.delete(&mut bt)).unwrap();
        }
    }
    for i in 1000..1200 {
        io.block_on(|| c.insert(&mut bt, InsertKey::Rowid(i), &encode(&[V::Blob(vec![7; 700])]))).unwrap();
    }
    bt.pager_mut().crash_commit_after_pages(3);
    assert!(io.block_on(|| bt.commit()).is_err());
    drop(bt);
    assert!(std::path::Path::new(&format!("{path}-journal")).exists());

    let mut bt = open_btree(&io, &path);
    io.block_on(|| bt.begin_read()).unwrap();
    assert_eq!(rows(&io, &mut bt, root), before);
    assert!(io.block_on(|| bt.integrity_check(&[1, root], 10)).unwrap().is_empty());
    io.block_on(|| bt.commit()).unwrap();
    drop(bt);
    assert!(!std::path::Path::new(&format!("{path}-journal")).exists());
    assert_eq!(Sqlite::open(&path).integrity(), "Text(\"ok\")");
}

#[test]
fn database_written_by_sqlite_is_read_through_the_ring() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("theirs.db").to_str().unwrap().to_string();
    {
        let db = Sqlite::open(&path);
        db.exec("CREATE TABLE t(a,b); WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i<3000) INSERT INTO t SELECT i, printf('%.*c', i%500, 'q') FROM n;");
    }
    let io = uring();
    let mut bt = open_btree(&io, &path);
    io.block_on(|| bt.begin_read()).unwrap();
    let got = rows(&io, &mut bt, 2);
    io.block_on(|| bt.commit()).unwrap();
    assert_eq!(got.len(), 3000);
    let db = Sqlite::open(&path);
    for (id, rec) in got.iter().step_by(97) {
        let want = db.query(&format!("SELECT a, b FROM t WHERE rowid={id}"));
        assert_eq!(&encode(&want[0]), rec);
    }
}

#[test]
fn journal_modes_commit_and_roll_back_through_the_ring() {
    for inline_truncate in [false, true] {
        for mode in ["truncate", "persist", "memory", "off", "delete"] {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("jm.db").to_str().unwrap().to_string();
            let backend = Arc::new(IoUringBackend::new().unwrap());
            if inline_truncate {
                backend.disable_ftruncate_opcode();
            }
            let io = IoContext::new(backend);
            let mut bt = open_btree(&io, &path);
            assert_eq!(bt.set_journal_mode(mode, false), mode);
            io.block_on(|| bt.begin_write(false)).unwrap();
            let root = create_tree(&io, &mut bt, TreeKind::Table);
            add_schema_row(&io, &mut bt, 1, "table", "t", "t", root, "CREATE TABLE t(a,b)");
            let mut c = Cursor::new(root, true, None);
            for i in 0..400i64 {
                io.block_on(|| c.insert(&mut bt, InsertKey::Rowid(i), &encode(&[V::Int(i), V::Blob(vec![i as u8; 300])]))).unwrap();
            }
            io.block_on(|| bt.commit()).unwrap();
            io.block_on(|| bt.begin_read()).unwrap();
            let committed = rows(&io, &mut bt, root);
            io.block_on(|| bt.commit()).unwrap();
            // Shrink the file in a transaction that is rolled back (memory
            // and off journals cannot roll back a spilled file, so keep it
            // small), then in one that commits.
            io.block_on(|| bt.begin_write(false)).unwrap();
            for i in 0..200 {
                if io.block_on(|| c.seek_rowid(&mut bt, i)).unwrap() == SeekResult::Found {
                    io.block_on(|| c.delete(&mut bt)).unwrap();
                }
            }
            io.block_on(|| bt.rollback()).unwrap();
            io.block_on(|| bt.begin_read()).unwrap();
            assert_eq!(rows(&io, &mut bt, root), committed, "{mode}");
            io.block_on(|| bt.commit()).unwrap();
            io.block_on(|| bt.begin_write(false)).unwrap();
            io.block_on(|| bt.clear_tree(root)).unwrap();
            io.block_on(|| bt.commit()).unwrap();
            drop(bt);
            let db = Sqlite::open(&path);
            assert_eq!(db.integrity(), "Text(\"ok\")", "{mode}");
            assert_eq!(db.query("SELECT count(*) FROM t"), vec![vec![V::Int(0)]], "{mode}");
        }
    }
}
