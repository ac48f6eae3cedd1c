//! WAL mode on the simulated backend: delayed and reordered completions
//! give the same results as real files, and a power loss in the middle of a
//! commit (queued writes dropped, or a torn last frame) leaves exactly the
//! committed transactions, for us and for real SQLite.

use crate::wal_support;

use ringlite::io::sim::{SimBackend, SimConfig};
use ringlite::io::{IoBackend, IoContext};
use std::sync::Arc;
use std::time::Duration;
use wal_support::*;

const DB: &str = "sim.db";

fn sim(seed: u64) -> Arc<SimBackend> {
    Arc::new(SimBackend::new(SimConfig { seed, reorder: true, max_per_poll: 1 + (seed % 3) as usize, fail_one_in: 0 }))
}

/// Copy the simulated database and WAL (not the `-shm`) to real files and
/// let SQLite read them.
fn sqlite_view(sim: &SimBackend) -> (tempfile::TempDir, Sqlite) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("copy.db");
    let path = path.to_str().unwrap().to_string();
    std::fs::write(&path, sim.fs().get(DB).unwrap().snapshot()).unwrap();
    if let Some(w) = sim.fs().get(&format!("{DB}-wal")) {
        std::fs::write(format!("{path}-wal"), w.snapshot()).unwrap();
    }
    let db = Sqlite::open(&path);
    (dir, db)
}

#[test]
fn delayed_reordered_io_gives_the_same_database() {
    for seed in 1..6u64 {
        let s = sim(seed);
        let io = IoContext::new(s.clone());
        let mut bt = open_btree(&io, DB);
        assert_eq!(bt.set_journal_mode("wal", false), "wal");
        bt.set_wal_autocheckpoint(40);
        let root = create_table(&io, &mut bt);
        if seed % 2 == 0 {
            // Small cache: transactions spill frames into the log.
            bt.set_cache_size(10);
        }
        let mut model = Model::new();
        let mut rng = Rng(seed * 31);
        for _ in 0..12 {
            random_txn(&io, &mut bt, root, &mut model, &mut rng, 40);
        }
        assert_eq!(our_rows(&io, &mut bt, root), model, "seed {seed}");
        let (_dir, db) = sqlite_view(&s);
        assert_eq!(sqlite_rows(&db), model, "seed {seed}");
        assert_eq!(db.integrity(), "Text(\"ok\")");
        // A resumable checkpoint on delayed I/O empties the log.
        let r = io.block_on(|| bt.checkpoint(ringlite::pager::wal::CheckpointMode::Truncate)).unwrap();
        assert_eq!(r, (false, 0, 0));
        assert_eq!(s.fs().get(&format!("{DB}-wal")).unwrap().len(), 0);
        let (_dir, db) = sqlite_view(&s);
        assert_eq!(sqlite_rows(&db), model, "seed {seed} after checkpoint");
        assert_eq!(our_rows(&io, &mut bt, root), model);
    }
}

#[test]
fn power_loss_mid_commit_keeps_only_committed_transactions() {
    for seed in 1..13u64 {
        let s = sim(seed);
        let io = IoContext::new(s.clone());
        let mut bt = open_btree(&io, DB);
        assert_eq!(bt.set_journal_mode("wal", false), "wal");
        bt.set_wal_autocheckpoint(0);
        let root = create_table(&io, &mut bt);
        let mut model = Model::new();
        let mut rng = Rng(seed * 101);
        for _ in 0..4 {
            random_txn(&io, &mut bt, root, &mut model, &mut rng, 40);
        }
        let before = model.clone();
        let torn = seed % 3 == 0;
        let mut after = model.clone();
        if torn {
            // The last transaction reaches the file but its last frame is
            // torn by the power loss.
            random_txn(&io, &mut bt, root, &mut after, &mut rng, 40);
            let wal = s.fs().get(&format!("{DB}-wal")).unwrap();
            let len = wal.len();
            wal.set_len(len - 1 - rng.below(bt.page_size() as u64));
        } else {
            // Stop the commit with its requests queued, let a few complete,
            // then lose the rest.
            io.block_on(|| bt.begin_write(false)).unwrap();
            let mut c = ringlite::btree::Cursor::new(root, true, None);
            for i in 0..30 {
                let rec = encode(&[V::Int(i), V::Text(rng.text(200))]);
                io.block_on(|| c.insert(&mut bt, ringlite::btree::InsertKey::Rowid(1000 + i), &rec)).unwrap();
                after.insert(1000 + i, (i, String::new()));
            }
            let _ = bt.commit();
            for _ in 0..rng.below(3) {
                let _ = s.poll(Some(Duration::ZERO));
            }
            s.crash();
        }
        bt.pager_mut().abandon();
        drop(bt);
        let mut bt = open_btree(&io, DB);
        let rows = our_rows(&io, &mut bt, root);
        if torn {
            assert_eq!(rows, before, "seed {seed}: torn transaction dropped");
        } else {
            let keys: Vec<_> = rows.keys().copied().collect();
            let new_keys: Vec<_> = after.keys().copied().collect();
            assert!(rows == before || keys == new_keys, "seed {seed}: all or nothing");
        }
        let (_dir, db) = sqlite_view(&s);
        assert_eq!(sqlite_rows(&db), rows, "seed {seed}: SQLite agrees");
        assert_eq!(db.integrity(), "Text(\"ok\")");
        // Still writable after recovery.
        let mut model = rows;
        random_txn(&io, &mut bt, root, &mut model, &mut rng, 20);
        assert_eq!(our_rows(&io, &mut bt, root), model);
    }
}

#[test]
fn power_loss_drops_only_unsynced_writes() {
    for seed in 1..11u64 {
        let s = sim(seed);
        let io = IoContext::new(s.clone());
        let mut bt = open_btree(&io, DB);
        assert_eq!(bt.set_journal_mode("wal", false), "wal");
        bt.set_wal_autocheckpoint(25);
        let root = create_table(&io, &mut bt);
        if seed % 3 == 0 {
            bt.set_cache_size(10);
        }
        let full = seed % 2 == 0;
        if !full {
            // Make the schema durable, then commit without fsyncs.
            io.block_on(|| bt.checkpoint(ringlite::pager::wal::CheckpointMode::Passive)).unwrap();
            bt.set_synchronous(1);
        }
        let mut model = Model::new();
        let mut history = vec![model.clone()];
        let mut rng = Rng(seed * 7);
        for _ in 0..10 {
            random_txn(&io, &mut bt, root, &mut model, &mut rng, 30);
            history.push(model.clone());
        }
        s.power_loss();
        bt.pager_mut().abandon();
        drop(bt);
        let mut bt = open_btree(&io, DB);
        let rows = our_rows(&io, &mut bt, root);
        if full {
            assert_eq!(rows, model, "seed {seed}: synchronous=FULL keeps every commit");
        } else {
            assert!(history.contains(&rows), "seed {seed}: NORMAL keeps a prefix of the commits");
        }
        let (_dir, db) = sqlite_view(&s);
        assert_eq!(sqlite_rows(&db), rows, "seed {seed}: SQLite agrees");
        assert_eq!(db.integrity(), "Text(\"ok\")");
    }
}
