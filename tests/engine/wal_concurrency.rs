//! Concurrency in WAL mode: snapshots of readers while another connection
//! writes (ours and real SQLite in one process), one writer at a time
//! (`SQLITE_BUSY`), stale snapshots cannot write (`SQLITE_BUSY_SNAPSHOT`),
//! checkpoint modes against readers, automatic checkpoints.

use crate::wal_support;

use ringlite::btree::Btree;
use ringlite::io::sync::SyncBackend;
use ringlite::io::IoContext;
use ringlite::pager::wal::CheckpointMode;
use std::sync::Arc;
use wal_support::*;

fn setup(path: &str) -> (IoContext, Btree, u32) {
    let io = IoContext::new(Arc::new(SyncBackend::new()));
    let mut bt = open_btree(&io, path);
    assert_eq!(bt.set_journal_mode("wal", false), "wal");
    let root = create_table(&io, &mut bt);
    (io, bt, root)
}

#[test]
fn readers_keep_their_snapshot_and_writers_exclude_each_other() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.db");
    let path = path.to_str().unwrap();
    let (io, mut a, root) = setup(path);
    let mut model = Model::new();
    let mut rng = Rng(5);
    random_txn(&io, &mut a, root, &mut model, &mut rng, 50);
    let mut b = open_btree(&io, path);
    assert_eq!(b.journal_mode(), "delete", "not attached before its first read");
    io.block_on(|| b.begin_read()).unwrap();
    assert_eq!(b.journal_mode(), "wal");
    let before = model.clone();
    assert_eq!(our_rows_in_txn(&io, &mut b, root), before);
    random_txn(&io, &mut a, root, &mut model, &mut rng, 50);
    assert_eq!(our_rows_in_txn(&io, &mut b, root), before, "snapshot isolation");
    // B's snapshot is stale: it cannot become a writer.
    let e = io.block_on(|| b.begin_write(false)).unwrap_err();
    assert_eq!(e.code, 517, "SQLITE_BUSY_SNAPSHOT");
    io.block_on(|| b.commit()).unwrap();
    assert_eq!(our_rows(&io, &mut b, root), model);
    // One writer at a time.
    io.block_on(|| a.begin_write(false)).unwrap();
    let e = io.block_on(|| b.begin_write(false)).unwrap_err();
    assert_eq!(e.code, 5, "SQLITE_BUSY");
    io.block_on(|| a.rollback()).unwrap();
    random_txn(&io, &mut b, root, &mut model, &mut rng, 20);
    assert_eq!(our_rows(&io, &mut a, root), model);
    // Leaving WAL mode needs the only connection.
    assert_eq!(a.set_journal_mode("delete", false), "wal");
    drop(b);
    assert_eq!(a.set_journal_mode("delete", false), "delete");
    assert!(!std::path::Path::new(&format!("{path}-wal")).exists());
    let bytes = std::fs::read(path).unwrap();
    assert_eq!((bytes[18], bytes[19]), (1, 1));
    let db = Sqlite::open(path);
    assert_eq!(db.query("PRAGMA journal_mode")[0][0], V::Text("delete".into()));
    assert_eq!(sqlite_rows(&db), model);
    assert_eq!(db.integrity(), "Text(\"ok\")");
}

#[test]
fn ours_and_sqlite_in_one_process_see_consistent_snapshots() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.db");
    let path = path.to_str().unwrap();
    let (io, mut bt, root) = setup(path);
    let mut model = Model::new();
    let mut rng = Rng(11);
    random_txn(&io, &mut bt, root, &mut model, &mut rng, 40);
    let db = Sqlite::open(path);
    db.exec("PRAGMA wal_autocheckpoint=0");
    assert_eq!(sqlite_rows(&db), model);
    bt.set_wal_autocheckpoint(0);
    for round in 0..4 {
        // SQLite reads a snapshot while we write.
        db.exec("BEGIN");
        let snap = model.clone();
        assert_eq!(sqlite_rows(&db), snap);
        random_txn(&io, &mut bt, root, &mut model, &mut rng, 40);
        assert_eq!(sqlite_rows(&db), snap, "round {round}: SQLite keeps its snapshot");
        db.exec("COMMIT");
        assert_eq!(sqlite_rows(&db), model);
        // We read a snapshot while SQLite writes.
        io.block_on(|| bt.begin_read()).unwrap();
        let snap = model.clone();
        assert_eq!(our_rows_in_txn(&io, &mut bt, root), snap);
        let k = rng.below(500) as i64 + 1;
        let v = (round as i64, rng.text(30));
        db.exec(&format!("INSERT OR REPLACE INTO t(rowid,a,b) VALUES({k},{},'{}')", v.0, v.1));
        model.insert(k, v);
        assert_eq!(our_rows_in_txn(&io, &mut bt, root), snap, "round {round}: we keep our snapshot");
        io.block_on(|| bt.commit()).unwrap();
        assert_eq!(our_rows(&io, &mut bt, root), model);
    }
    assert_eq!(db.integrity(), "Text(\"ok\")");
}

#[test]
fn checkpoint_modes_respect_readers() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("k.db");
    let path = path.to_str().unwrap();
    let (io, mut a, root) = setup(path);
    a.set_wal_autocheckpoint(0);
    let mut model = Model::new();
    let mut rng = Rng(21);
    random_txn(&io, &mut a, root, &mut model, &mut rng, 50);
    let (busy, m1, c1) = io.block_on(|| a.checkpoint(CheckpointMode::Passive)).unwrap();
    assert!(!busy && m1 > 0 && c1 == m1, "{m1} {c1}");
    random_txn(&io, &mut a, root, &mut model, &mut rng, 50);
    // A reader pinned at the current end.
    let mut b = open_btree(&io, path);
    io.block_on(|| b.begin_read()).unwrap();
    let pinned = model.clone();
    // invariant: wal_snapshot_reads
    assert_eq!(our_rows_in_txn(&io, &mut b, root), pinned);
    let (_, m2, _) = io.block_on(|| a.checkpoint(CheckpointMode::Passive)).unwrap();
    random_txn(&io, &mut a, root, &mut model, &mut rng, 50);
    let (busy, m3, c3) = io.block_on(|| a.checkpoint(CheckpointMode::Passive)).unwrap();
    // invariant: checkpoint_spares_readers
    assert!(!busy && m3 > m2 && c3 == m2, "passive stops at the reader's mark: {m2} {m3} {c3}");
    let (busy, m, c) = io.block_on(|| a.checkpoint(CheckpointMode::Full)).unwrap();
    assert!(busy && m == m3 && c == m2, "full is busy while the reader needs older pages");
    // invariant: checkpoint_spares_readers
    assert_eq!(our_rows_in_txn(&io, &mut b, root), pinned, "the reader is unaffected");
    io.block_on(|| b.commit()).unwrap();
    let (busy, m, c) = io.block_on(|| a.checkpoint(CheckpointMode::Restart)).unwrap();
    assert_eq!((busy, m, c), (false, m3, m3));
    // The next write restarts the log from its first frame.
    random_txn(&io, &mut a, root, &mut model, &mut rng, 5);
    let (busy, m, c) = io.block_on(|| a.checkpoint(CheckpointMode::Passive)).unwrap();
    assert!(!busy && m < m3 && c == m, "restarted log: {m} {c}");
    let (busy, m, c) = io.block_on(|| a.checkpoint(CheckpointMode::Truncate)).unwrap();
    assert_eq!((busy, m, c), (false, 0, 0));
    assert_eq!(std::fs::metadata(format!("{path}-wal")).unwrap().len(), 0);
    assert_eq!(our_rows(&io, &mut b, root), model);
    let db = Sqlite::open(path);
    assert_eq!(sqlite_rows(&db), model);
    assert_eq!(db.integrity(), "Text(\"ok\")");
}

#[test]
fn autocheckpoint_keeps_the_log_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("auto.db");
    let path = path.to_str().unwrap();
    let (io, mut a, root) = setup(path);
    let mut model = Model::new();
    let mut rng = Rng(99);
    let frame = 24 + a.page_size() as u64;
    for _ in 0..150 {
        random_txn(&io, &mut a, root, &mut model, &mut rng, 30);
    }
    let len = std::fs::metadata(format!("{path}-wal")).unwrap().len();
    assert!(len <= 32 + 1100 * frame, "log restarted after checkpoints: {len}");
    let (_, log, _) = io.block_on(|| a.checkpoint(CheckpointMode::Passive)).unwrap();
    assert!(log < 1100, "{log}");
    // Disabled: the log only grows.
    a.set_wal_autocheckpoint(0);
    io.block_on(|| a.checkpoint(CheckpointMode::Truncate)).unwrap();
    for _ in 0..150 {
        random_txn(&io, &mut a, root, &mut model, &mut rng, 30);
    }
    let (_, log, done) = io.block_on(|| a.checkpoint(CheckpointMode::Passive)).unwrap();
    assert!(log > 1000 && done == log, "{log} {done}");
    let db = Sqlite::open(path);
    assert_eq!(sqlite_rows(&db), model);
    assert_eq!(db.integrity(), "Text(\"ok\")");
}

/// The checkpoint results asserted above, as real SQLite reports them for
/// the same situation (two SQLite connections), so the shapes agree.
#[test]
fn sqlite_reports_the_same_checkpoint_shapes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.db");
    let path = path.to_str().unwrap();
    let a = Sqlite::open(path);
    a.exec("PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0; CREATE TABLE t(a,b); INSERT INTO t VALUES(1,'x')");
    let ckpt = |mode: &str| -> (bool, i64, i64) {
        let r = a.query(&format!("PRAGMA wal_checkpoint({mode})"));
        match (&r[0][0], &r[0][1], &r[0][2]) {
            (V::Int(b), V::Int(l), V::Int(c)) => (*b != 0, *l, *c),
            other => panic!("{other:?}"),
        }
    };
    let (busy, m1, c1) = ckpt("PASSIVE");
    assert!(!busy && m1 > 0 && c1 == m1);
    a.exec("INSERT INTO t VALUES(2,'y')");
    let b = Sqlite::open(path);
    b.exec("BEGIN");
    b.query("SELECT count(*) FROM t");
    let (_, m2, _) = ckpt("PASSIVE");
    a.exec("INSERT INTO t VALUES(3,'z')");
    let (busy, m3, c3) = ckpt("PASSIVE");
    assert!(!busy && m3 > m2 && c3 == m2);
    let (busy, m, c) = ckpt("FULL");
    assert!(busy && m == m3 && c == m2);
    b.exec("COMMIT");
    assert_eq!(ckpt("RESTART"), (false, m3, m3));
    a.exec("INSERT INTO t VALUES(4,'w')");
    let (busy, m, c) = ckpt("PASSIVE");
    assert!(!busy && m < m3 && c == m);
    assert_eq!(ckpt("TRUNCATE"), (false, 0, 0));
}
