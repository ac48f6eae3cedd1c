//! WAL files exchanged with real SQLite: what we write in WAL mode (WAL
//! and `-shm` present, no checkpoint) is read by SQLite, and what SQLite
//! leaves in its WAL is read by us.

use crate::wal_support;

use ringlite::io::sync::SyncBackend;
use ringlite::io::IoContext;
use ringlite::pager::wal::CheckpointMode;
use std::sync::Arc;
use wal_support::*;

fn sync_io() -> IoContext {
    IoContext::new(Arc::new(SyncBackend::new()))
}

#[test]
fn sqlite_reads_our_wal_then_our_truncate_checkpoint() {
    for seed in 1..4u64 {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("w.db");
        let path = path.to_str().unwrap();
        let io = sync_io();
        let mut bt = open_btree(&io, path);
        assert_eq!(bt.set_journal_mode("wal", false), "wal");
        let root = create_table(&io, &mut bt);
        let mut model = Model::new();
        let mut rng = Rng(seed * 7919);
        for _ in 0..8 {
            random_txn(&io, &mut bt, root, &mut model, &mut rng, 40);
        }
        assert_eq!(our_rows(&io, &mut bt, root), model);
        let wal_len = std::fs::metadata(format!("{path}-wal")).unwrap().len();
        assert!(wal_len > 32, "frames are in the WAL");
        let db_bytes = std::fs::read(path).unwrap();
        assert_eq!((db_bytes[18], db_bytes[19]), (2, 2));
        {
            let db = Sqlite::open(path);
            assert_eq!(db.query("PRAGMA journal_mode")[0][0], V::Text("wal".into()));
            assert_eq!(sqlite_rows(&db), model, "seed {seed}");
            assert_eq!(db.integrity(), "Text(\"ok\")");
            // Our connection still reads after SQLite rebuilt the index.
            assert_eq!(our_rows(&io, &mut bt, root), model);
            random_txn(&io, &mut bt, root, &mut model, &mut rng, 30);
            assert_eq!(sqlite_rows(&db), model, "SQLite sees our later commit");
            let r = io.block_on(|| bt.checkpoint(CheckpointMode::Truncate)).unwrap();
            assert_eq!(r, (false, 0, 0));
            assert_eq!(std::fs::metadata(format!("{path}-wal")).unwrap().len(), 0);
            assert_eq!(sqlite_rows(&db), model);
            assert_eq!(db.integrity(), "Text(\"ok\")");
        }
        assert_eq!(our_rows(&io, &mut bt, root), model);
    }
}

#[test]
fn we_read_sqlites_wal() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.db");
    let path = path.to_str().unwrap();
    let db = Sqlite::open(path);
    db.exec("PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0; CREATE TABLE t(a,b)");
    let mut model = Model::new();
    let mut rng = Rng(99);
    for _ in 0..10 {
        db.exec("BEGIN");
        for _ in 0..50 {
            let k = rng.below(400) as i64 + 1;
            if rng.below(4) == 0 {
                db.exec(&format!("DELETE FROM t WHERE rowid={k}"));
                model.remove(&k);
            } else {
                let n = rng.below(200) as usize;
                let v = (rng.next() as i64 >> 8, rng.text(n));
                db.exec(&format!("INSERT OR REPLACE INTO t(rowid,a,b) VALUES({k},{},'{}')", v.0, v.1));
                model.insert(k, v);
            }
        }
        db.exec("COMMIT");
    }
    assert!(std::fs::metadata(format!("{path}-wal")).unwrap().len() > 32);
    let io = sync_io();
    let mut bt = open_btree(&io, path);
    let root = db.query("SELECT rootpage FROM sqlite_schema WHERE name='t'")[0][0].clone();
    let V::Int(root) = root else { panic!() };
    assert_eq!(our_rows(&io, &mut bt, root as u32), model);
    assert_eq!(bt.journal_mode(), "wal");
    // A copy of the files without SQLite's -shm: we recover the index.
    let dir2 = tempfile::tempdir().unwrap();
    let p2 = dir2.path().join("c.db");
    let p2 = p2.to_str().unwrap();
    std::fs::copy(path, p2).unwrap();
    std::fs::copy(format!("{path}-wal"), format!("{p2}-wal")).unwrap();
    let io2 = sync_io();
    let mut bt2 = open_btree(&io2, p2);
    assert_eq!(our_rows(&io2, &mut bt2, root as u32), model);
    drop(bt2);
    assert!(!std::path::Path::new(&format!("{p2}-wal")).exists(), "last close checkpoints and deletes the WAL");
    let check = Sqlite::open(p2);
    assert_eq!(sqlite_rows(&check), model);
    assert_eq!(check.integrity(), "Text(\"ok\")");
}

/// A damaged WAL (any byte of a frame flipped, or cut anywhere) never
/// panics and never shows a half transaction: what we read is one of the
/// committed states, and SQLite reads the same from the same files.
#[test]
fn damaged_wal_yields_a_committed_prefix() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src.db");
    let src = src.to_str().unwrap();
    let db = Sqlite::open(src);
    db.exec("PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0; CREATE TABLE t(a,b)");
    let mut model = Model::new();
    let mut history = vec![model.clone()];
    let mut rng = Rng(4);
    for _ in 0..6 {
        db.exec("BEGIN");
        for _ in 0..30 {
            let k = rng.below(300) as i64 + 1;
            let n = rng.below(200) as usize;
            let v = (rng.next() as i64 >> 8, rng.text(n));
            db.exec(&format!("INSERT OR REPLACE INTO t(rowid,a,b) VALUES({k},{},'{}')", v.0, v.1));
            model.insert(k, v);
        }
        db.exec("COMMIT");
        history.push(model.clone());
    }
    let V::Int(root) = db.query("SELECT rootpage FROM sqlite_schema WHERE name='t'")[0][0].clone() else { panic!() };
    let wal = std::fs::read(format!("{src}-wal")).unwrap();
    let main = std::fs::read(src).unwrap();
    for case in 0..24u64 {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("c.db");
        let p = p.to_str().unwrap();
        std::fs::write(p, &main).unwrap();
        let mut w = wal.clone();
        let pos = 32 + rng.below(w.len() as u64 - 32) as usize;
        if case % 2 == 0 {
            w[pos] ^= 1 << rng.below(8);
        } else {
            w.truncate(pos);
        }
        std::fs::write(format!("{p}-wal"), &w).unwrap();
        let io = sync_io();
        let mut bt = open_btree(&io, p);
        io.block_on(|| bt.begin_read()).unwrap();
        // The schema may be in a dropped frame: then `t` does not exist yet.
        let rows = if io.block_on(|| bt.page_count()).unwrap() >= root as u32 { our_rows_in_txn(&io, &mut bt, root as u32) } else { Model::new() };
        io.block_on(|| bt.commit()).unwrap();
        assert!(history.contains(&rows), "case {case}: a committed state");
        bt.pager_mut().abandon();
        drop(bt);
        let check = Sqlite::open(p);
        if let Ok(r) = check.try_query("SELECT rowid, a, b FROM t ORDER BY rowid") {
            assert_eq!(r.len(), rows.len(), "case {case}: SQLite agrees");
        }
    }
}

/// A transaction bigger than the cache spills uncommitted frames into the
/// log: committed, SQLite sees it; rolled back, nobody does, and the next
/// commit reuses the log space.
#[test]
fn big_transactions_spill_into_the_log() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.db");
    let path = path.to_str().unwrap();
    let io = sync_io();
    let mut bt = open_btree(&io, path);
    assert_eq!(bt.set_journal_mode("wal", false), "wal");
    bt.set_wal_autocheckpoint(0);
    let root = create_table(&io, &mut bt);
    bt.set_cache_size(20);
    let mut model = Model::new();
    let mut rng = Rng(8);
    random_txn(&io, &mut bt, root, &mut model, &mut rng, 600);
    let db = Sqlite::open(path);
    assert_eq!(sqlite_rows(&db), model);
    let wal_before = std::fs::metadata(format!("{path}-wal")).unwrap().len();
    // Rolled back after spilling.
    let mut lost = model.clone();
    io.block_on(|| bt.begin_write(false)).unwrap();
    let mut c = ringlite::btree::Cursor::new(root, true, None);
    for i in 0..400i64 {
        let rec = encode(&[V::Int(i), V::Text(rng.text(300))]);
        io.block_on(|| c.insert(&mut bt, ringlite::btree::InsertKey::Rowid(i + 1), &rec)).unwrap();
        lost.insert(i + 1, (i, String::new()));
        io.block_on(|| bt.pager_mut().maybe_spill()).unwrap();
    }
    assert!(std::fs::metadata(format!("{path}-wal")).unwrap().len() > wal_before, "frames were spilled");
    assert_eq!(sqlite_rows(&db), model, "uncommitted frames are invisible");
    io.block_on(|| bt.rollback()).unwrap();
    assert_eq!(our_rows(&io, &mut bt, root), model);
    random_txn(&io, &mut bt, root, &mut model, &mut rng, 300);
    assert_eq!(our_rows(&io, &mut bt, root), model);
    assert_eq!(sqlite_rows(&db), model);
    assert_eq!(db.integrity(), "Text(\"ok\")");
    drop(db);
    // A fresh recovery agrees too.
    bt.pager_mut().abandon();
    drop(bt);
    let check = Sqlite::open(path);
    assert_eq!(sqlite_rows(&check), model);
}
