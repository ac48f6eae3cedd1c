//! WAL mode on the io_uring backend: frames, the `-shm` index and
//! checkpoints go through the ring (shared memory through the same
//! `FileShm` as the sync backend), and real SQLite agrees both ways.

use crate::wal_support;

use ringlite::io::{IoContext, IoUringBackend};
use ringlite::pager::wal::CheckpointMode;
use std::sync::Arc;
use wal_support::*;

fn uring_io() -> IoContext {
    IoContext::new(Arc::new(IoUringBackend::new().expect("io_uring available on the test machine")))
}

#[test]
fn sqlite_reads_our_wal_and_checkpoint_written_through_the_ring() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w.db");
    let path = path.to_str().unwrap();
    let io = uring_io();
    let mut bt = open_btree(&io, path);
    assert_eq!(bt.set_journal_mode("wal", false), "wal");
    let root = create_table(&io, &mut bt);
    let mut model = Model::new();
    let mut rng = Rng(4242);
    for _ in 0..8 {
        random_txn(&io, &mut bt, root, &mut model, &mut rng, 40);
    }
    assert_eq!(our_rows(&io, &mut bt, root), model);
    assert!(std::fs::metadata(format!("{path}-wal")).unwrap().len() > 32);
    let db = Sqlite::open(path);
    assert_eq!(sqlite_rows(&db), model);
    assert_eq!(db.integrity(), "Text(\"ok\")");
    random_txn(&io, &mut bt, root, &mut model, &mut rng, 30);
    assert_eq!(sqlite_rows(&db), model, "SQLite sees our later commit");
    let r = io.block_on(|| bt.checkpoint(CheckpointMode::Truncate)).unwrap();
    assert_eq!(r, (false, 0, 0));
    assert_eq!(std::fs::metadata(format!("{path}-wal")).unwrap().len(), 0);
    assert_eq!(sqlite_rows(&db), model);
    assert_eq!(db.integrity(), "Text(\"ok\")");
    assert_eq!(our_rows(&io, &mut bt, root), model);
}

#[test]
fn we_read_sqlites_wal_through_the_ring() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.db");
    let path = path.to_str().unwrap();
    let db = Sqlite::open(path);
    db.exec("PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0; CREATE TABLE t(a,b)");
    let mut model = Model::new();
    for k in 1..=300i64 {
        let v = (k * 3, format!("v{k}"));
        db.exec(&format!("INSERT INTO t(rowid,a,b) VALUES({k},{},'{}')", v.0, v.1));
        model.insert(k, v);
    }
    assert!(std::fs::metadata(format!("{path}-wal")).unwrap().len() > 32);
    let V::Int(root) = db.query("SELECT rootpage FROM sqlite_schema WHERE name='t'")[0][0].clone() else { panic!() };
    let io = uring_io();
    let mut bt = open_btree(&io, path);
    assert_eq!(our_rows(&io, &mut bt, root as u32), model);
    assert_eq!(bt.journal_mode(), "wal");
    // We write, SQLite (still connected through the shared index) sees it.
    let mut rng = Rng(5);
    random_txn(&io, &mut bt, root as u32, &mut model, &mut rng, 50);
    assert_eq!(sqlite_rows(&db), model);
    assert_eq!(db.integrity(), "Text(\"ok\")");
}
