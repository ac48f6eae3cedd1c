//! Model-based tests: random insert/delete/seek sequences on table and
//! index trees, checked against a `BTreeMap` after every step, on the
//! memory backend and on the delayed, reordering simulation backend (with
//! a tiny cache, so operations constantly hit `Pending` and resume).

use crate::storage_support;

use proptest::prelude::*;
use ringlite::btree::{Btree, BtreeOptions, Cursor, InsertKey, SeekOp, SeekResult, TreeKind};
use ringlite::io::sim::{SimBackend, SimConfig};
use ringlite::io::IoContext;
use ringlite::value::collation::Collation;
use ringlite::value::record::{KeyField, KeyInfo};
use ringlite::{IoPoll, Poll};
use std::cell::Cell;
use std::collections::BTreeMap;
use std::sync::Arc;
use storage_support::*;

#[derive(Debug, Clone)]
enum Op {
    Insert(i64, usize),
    Delete(i64),
    Seek(i64),
    Commit,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0i64..400, 0usize..1500).prop_map(|(k, n)| Op::Insert(k, n)),
        3 => (0i64..400).prop_map(Op::Delete),
        2 => (0i64..400).prop_map(Op::Seek),
        1 => Just(Op::Commit),
    ]
}

/// Runs resumable calls, counting how often they said `Pending`.
struct Driver {
    io: IoContext,
    pendings: Cell<u64>,
}

impl Driver {
    fn run<T>(&self, mut f: impl FnMut() -> IoPoll<T>) -> T {
        loop {
            match f().expect("operation failed") {
                Poll::Ready(v) => return v,
                Poll::Pending => {
                    self.pendings.set(self.pendings.get() + 1);
                    self.io.wait_any().unwrap();
                }
            }
        }
    }
}

fn payload_of(key: i64, n: usize) -> Vec<u8> {
    (0..n).map(|i| (key as usize * 31 + i) as u8).collect()
}

fn open(sim: bool, seed: u64) -> (Driver, Btree) {
    let (io, opts) = if sim {
        let cfg = SimConfig { seed, reorder: true, max_per_poll: 3, fail_one_in: 0 };
        (IoContext::new(Arc::new(SimBackend::new(cfg))), BtreeOptions { create: true, ..Default::default() })
    } else {
        (IoContext::new(Arc::new(ringlite::io::sync::SyncBackend::new())), BtreeOptions { memory: true, ..Default::default() })
    };
    let mut bt = Btree::open(&io, "model.db", opts).unwrap();
    bt.set_page_size(512);
    bt.set_cache_size(10);
    (Driver { io, pendings: Cell::new(0) }, bt)
}

fn check_table(d: &Driver, bt: &mut Btree, root: u32, model: &BTreeMap<i64, usize>) {
    let mut c = Cursor::new(root, false, None);
    let mut more = d.run(|| c.first(bt));
    let mut got = Vec::new();
    while more {
        let p = d.run(|| c.payload(bt).map(|p| p.map(|s| s.to_vec())));
        got.push((c.rowid(), p));
        more = d.run(|| c.next(bt));
    }
    let want: Vec<_> = model.iter().map(|(k, n)| (*k, payload_of(*k, *n))).collect();
    assert_eq!(got.len(), want.len());
    assert!(got == want, "table content differs from the model");
}

fn table_model(ops: Vec<Op>, sim: bool) {
    let (d, mut bt) = open(sim, 99);
    let bt = &mut bt;
    d.run(|| bt.begin_write(false));
    let root = d.run(|| bt.create_tree(TreeKind::Table));
    let mut model = BTreeMap::new();
    let mut c = Cursor::new(root, true, None);
    // A second cursor parked on an entry must survive everyone's changes.
    let mut watcher = Cursor::new(root, false, None);
    let mut watched: Option<i64> = None;
    for op in ops {
        match op {
            Op::Insert(k, n) => {
                let p = payload_of(k, n);
                d.run(|| c.insert(bt, InsertKey::Rowid(k), &p));
                model.insert(k, n);
                if watched.is_none() {
                    assert_eq!(d.run(|| watcher.seek_rowid(bt, k)), SeekResult::Found);
                    watched = Some(k);
                }
            }
            Op::Delete(k) => {
                let r = d.run(|| c.seek_rowid(bt, k));
                assert_eq!(r == SeekResult::Found, model.contains_key(&k));
                if r == SeekResult::Found {
                    d.run(|| c.delete(bt));
                    model.remove(&k);
                    // next() after delete lands on the successor.
                    let more = d.run(|| c.next(bt));
                    match model.range(k + 1..).next() {
                        Some((succ, _)) => {
                            assert!(more);
                            assert_eq!(c.rowid(), *succ);
                        }
                        None => assert!(!more),
                    }
                    if watched == Some(k) {
                        watched = None;
                        watcher = Cursor::new(root, false, None);
                    }
                }
            }
            Op::Seek(k) => {
                let r = d.run(|| c.seek_rowid(bt, k));
                match r {
                    SeekResult::Found => assert!(model.contains_key(&k)),
                    SeekResult::After => assert_eq!(model.range(k..).next().map(|e| *e.0), Some(c.rowid())),
                    SeekResult::Before => {
                        assert!(model.range(k..).next().is_none());
                        assert_eq!(model.keys().last().copied(), Some(c.rowid()));
                    }
                    SeekResult::Empty => assert!(model.is_empty()),
                }
            }
            Op::Commit => {
                d.run(|| bt.commit());
                d.run(|| bt.begin_write(false));
            }
        }
        if let Some(w) = watched {
            assert!(watcher.is_valid());
            assert_eq!(watcher.rowid(), w);
            let p = d.run(|| watcher.payload(bt).map(|p| p.map(|s| s.to_vec())));
            assert_eq!(p, payload_of(w, model[&w]));
        }
        check_table(&d, bt, root, &model);
    }
    let errors = d.run(|| bt.integrity_check(&[1, root], 10));
    assert!(errors.is_empty(), "{errors:?}");
    // Emptying the tree shrinks it back to its root.
    let keys: Vec<i64> = model.keys().copied().collect();
    for k in keys {
        assert_eq!(d.run(|| c.seek_rowid(bt, k)), SeekResult::Found);
        d.run(|| c.delete(bt));
    }
    assert_eq!(d.run(|| c.count(bt)), 0);
    let errors = d.run(|| bt.integrity_check(&[1, root], 10));
    assert!(errors.is_empty(), "{errors:?}");
    let free = d.run(|| bt.meta(ringlite::btree::Meta::FreelistCount));
    let pages = d.run(|| bt.page_count());
    assert_eq!(pages - free, 2, "only page 1 and the root stay in use");
    d.run(|| bt.commit());
    if sim {
        assert!(d.pendings.get() > 0, "the simulation must have made operations wait");
    }
}

#[test]
fn btree_and_cursor_are_send() {
    fn send<T: Send>() {}
    send::<Btree>();
    send::<Cursor>();
}

fn index_model(keys: Vec<(u16, usize)>, deletes: Vec<usize>, sim: bool) {
    let (d, mut bt) = open(sim, 7);
    let bt = &mut bt;
    d.run(|| bt.begin_write(false));
    let root = d.run(|| bt.create_tree(TreeKind::Index));
    let ki = Arc::new(KeyInfo { fields: vec![KeyField { collation: Collation::binary(), descending: false }; 2] });
    let mut c = Cursor::new(root, true, Some(ki.clone()));
    // Keyed by the entry's fields, whose order is the index order.
    let mut model = BTreeMap::new();
    let fields = |k: u16, n: usize| (format!("{k:05}{}", "x".repeat(n)), k as i64);
    for (k, n) in &keys {
        let f = fields(*k, *n);
        let r = encode(&[V::Text(f.0.clone()), V::Int(f.1)]);
        d.run(|| c.insert(bt, InsertKey::Index(&r), &[]));
        model.insert(f, r);
    }
    let all: Vec<Vec<u8>> = model.values().cloned().collect();
    for i in deletes {
        if all.is_empty() {
            break;
        }
        let r = &all[i % all.len()];
        let dec = storage_support::decode(r);
        let (V::Text(t), V::Int(k)) = (&dec[0], &dec[1]) else { panic!() };
        let mk = (t.clone(), *k);
        if !model.contains_key(&mk) {
            continue;
        }
        let key = ringlite::value::record::Record::parse(r).and_then(|r| r.values()).unwrap();
        assert!(d.run(|| c.seek_index(bt, &key, SeekOp::Ge)));
        assert_eq!(&d.run(|| c.payload(bt).map(|p| p.map(|s| s.to_vec()))), r);
        d.run(|| c.delete(bt));
        model.remove(&mk);
        // Check order and content after every delete.
        let mut it = Cursor::new(root, false, Some(ki.clone()));
        let mut got = Vec::new();
        let mut more = d.run(|| it.first(bt));
        while more {
            got.push(d.run(|| it.payload(bt).map(|p| p.map(|s| s.to_vec()))));
            more = d.run(|| it.next(bt));
        }
        assert!(got.iter().eq(model.values()), "index content differs");
    }
    let errors = d.run(|| bt.integrity_check(&[1, root], 10));
    assert!(errors.is_empty(), "{errors:?}");
    d.run(|| bt.commit());
}

proptest! {
    // PROPTEST_CASES raises the count for a soak run.
    #![proptest_config(ProptestConfig::with_cases(std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(24)))]

    #[test]
    fn table_matches_model(ops in prop::collection::vec(op(), 1..120)) {
        table_model(ops, false);
    }

    #[test]
    fn table_matches_model_under_simulation(ops in prop::collection::vec(op(), 1..80)) {
        table_model(ops, true);
    }

    #[test]
    fn index_matches_model(keys in prop::collection::vec((0u16..2000, 0usize..300), 1..150), deletes in prop::collection::vec(0usize..1000, 0..150)) {
        index_model(keys, deletes, false);
    }

    #[test]
    fn index_matches_model_under_simulation(keys in prop::collection::vec((0u16..2000, 0usize..300), 1..100), deletes in prop::collection::vec(0usize..1000, 0..100)) {
        index_model(keys, deletes, true);
    }
}

#[derive(Debug, Clone)]
enum TxOp {
    Insert(i64, usize),
    Delete(i64),
    SavepointOpen,
    SavepointRollback,
    SavepointRelease,
    Commit,
    Rollback,
}

fn tx_op() -> impl Strategy<Value = TxOp> {
    prop_oneof![
        8 => (0i64..300, 0usize..1200).prop_map(|(k, n)| TxOp::Insert(k, n)),
        4 => (0i64..300).prop_map(TxOp::Delete),
        2 => Just(TxOp::SavepointOpen),
        1 => Just(TxOp::SavepointRollback),
        1 => Just(TxOp::SavepointRelease),
        1 => Just(TxOp::Commit),
        1 => Just(TxOp::Rollback),
    ]
}

/// Savepoints, statement rollbacks and transaction rollbacks against a
/// stack of model snapshots.
fn savepoint_model(ops: Vec<TxOp>, sim: bool) {
    let (d, mut bt) = open(sim, 31);
    let bt = &mut bt;
    d.run(|| bt.begin_write(false));
    let root = d.run(|| bt.create_tree(TreeKind::Table));
    d.run(|| bt.commit());
    d.run(|| bt.begin_write(false));
    let mut committed: BTreeMap<i64, usize> = BTreeMap::new();
    let mut model = committed.clone();
    let mut saves: Vec<BTreeMap<i64, usize>> = Vec::new();
    let mut c = Cursor::new(root, true, None);
    for op in ops {
        match op {
            TxOp::Insert(k, n) => {
                let p = payload_of(k, n);
                d.run(|| c.insert(bt, InsertKey::Rowid(k), &p));
                model.insert(k, n);
            }
            TxOp::Delete(k) => {
                if d.run(|| c.seek_rowid(bt, k)) == SeekResult::Found {
                    d.run(|| c.delete(bt));
                    model.remove(&k);
                }
            }
            TxOp::SavepointOpen => {
                d.run(|| bt.savepoint_open(saves.len()));
                saves.push(model.clone());
            }
            TxOp::SavepointRollback => {
                if let Some(s) = saves.last() {
                    d.run(|| bt.savepoint_rollback(saves.len() - 1));
                    model = s.clone();
                }
            }
            TxOp::SavepointRelease => {
                if !saves.is_empty() {
                    saves.pop();
                    d.run(|| bt.savepoint_release(saves.len()));
                }
            }
            TxOp::Commit => {
                d.run(|| bt.commit());
                committed = model.clone();
                saves.clear();
                d.run(|| bt.begin_write(false));
            }
            TxOp::Rollback => {
                d.run(|| bt.rollback());
                model = committed.clone();
                saves.clear();
                d.run(|| bt.begin_write(false));
            }
        }
        check_table(&d, bt, root, &model);
    }
    let errors = d.run(|| bt.integrity_check(&[1, root], 10));
    assert!(errors.is_empty(), "{errors:?}");
    d.run(|| bt.commit());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(24)))]

    #[test]
    fn savepoints_match_model(ops in prop::collection::vec(tx_op(), 1..120)) {
        savepoint_model(ops, false);
    }

    #[test]
    fn savepoints_match_model_under_simulation(ops in prop::collection::vec(tx_op(), 1..80)) {
        savepoint_model(ops, true);
    }
}

/// A reader walks the table forward while a writer inserts and deletes
/// around it: every key present for the whole walk is seen exactly once,
/// in increasing order, and nothing deleted before being reached is seen.
fn concurrent_walk(ops: Vec<(bool, i64)>, sim: bool) {
    let (d, mut bt) = open(sim, 5);
    let bt = &mut bt;
    d.run(|| bt.begin_write(false));
    let root = d.run(|| bt.create_tree(TreeKind::Table));
    let mut w = Cursor::new(root, true, None);
    let mut present = std::collections::BTreeSet::new();
    for k in (0..400).step_by(2) {
        let p = payload_of(k, (k as usize * 7) % 600);
        d.run(|| w.insert(bt, InsertKey::Rowid(k), &p));
        present.insert(k);
    }
    let stable: std::collections::BTreeSet<i64> = present.iter().copied().filter(|k| !ops.iter().any(|(_, o)| o == k)).collect();
    let mut r = Cursor::new(root, false, None);
    let mut seen = Vec::new();
    let mut more = d.run(|| r.first(bt));
    let mut ops = ops.into_iter();
    while more {
        let k = r.rowid();
        assert!(present.contains(&k), "saw {k}, which is not in the table");
        seen.push(k);
        if let Some((insert, key)) = ops.next() {
            if insert {
                let p = payload_of(key, 300);
                d.run(|| w.insert(bt, InsertKey::Rowid(key), &p));
                present.insert(key);
            } else if d.run(|| w.seek_rowid(bt, key)) == SeekResult::Found {
                d.run(|| w.delete(bt));
                present.remove(&key);
            }
        }
        more = d.run(|| r.next(bt));
    }
    assert!(seen.windows(2).all(|p| p[0] < p[1]), "increasing order");
    for k in stable {
        assert!(seen.contains(&k), "stable key {k} missed");
    }
    d.run(|| bt.commit());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(24)))]

    #[test]
    fn walking_while_writing(ops in prop::collection::vec((any::<bool>(), 0i64..420), 0..300)) {
        concurrent_walk(ops, false);
    }

    #[test]
    fn walking_while_writing_under_simulation(ops in prop::collection::vec((any::<bool>(), 0i64..420), 0..150)) {
        concurrent_walk(ops, true);
    }
}

/// Random operations with injected I/O errors on the simulation: after any
/// error the transaction is rolled back (which may fail too) and a fresh
/// connection must see exactly the last committed state.
fn errors_model(ops: Vec<Op>, seed: u64) {
    use ringlite::btree::BtreeOptions;
    let sim = Arc::new(SimBackend::new(SimConfig { seed, reorder: true, max_per_poll: 2, fail_one_in: 0 }));
    let io = IoContext::new(sim.clone());
    let open_bt = || {
        let mut bt = Btree::open(&io, "err.db", BtreeOptions { create: true, ..Default::default() }).unwrap();
        bt.set_cache_size(10);
        bt
    };
    let mut bt = open_bt();
    bt.set_page_size(512);
    io.block_on(|| bt.begin_write(false)).unwrap();
    let root = io.block_on(|| bt.create_tree(TreeKind::Table)).unwrap();
    io.block_on(|| bt.commit()).unwrap();
    let mut committed: BTreeMap<i64, usize> = BTreeMap::new();
    let mut model = committed.clone();
    let verify = |bt: &mut Btree, want: &BTreeMap<i64, usize>| {
        let d = Driver { io: io.clone(), pendings: Cell::new(0) };
        d.run(|| bt.begin_read());
        check_table(&d, bt, root, want);
        let errors = d.run(|| bt.integrity_check(&[1, root], 10));
        assert!(errors.is_empty(), "{errors:?}");
        d.run(|| bt.commit());
    };
    sim.set_fail_one_in(9);
    let mut in_txn = false;
    let mut c = Cursor::new(root, true, None);
    for op in ops {
        let r: ringlite::Result<()> = (|| {
            if !in_txn {
                io.block_on(|| bt.begin_write(false))?;
                in_txn = true;
            }
            match op {
                Op::Insert(k, n) => {
                    let p = payload_of(k, n);
                    io.block_on(|| c.insert(&mut bt, InsertKey::Rowid(k), &p))?;
                    model.insert(k, n);
                }
                Op::Delete(k) | Op::Seek(k) => {
                    if io.block_on(|| c.seek_rowid(&mut bt, k))? == SeekResult::Found && matches!(op, Op::Delete(_)) {
                        io.block_on(|| c.delete(&mut bt))?;
                        model.remove(&k);
                    }
                }
                Op::Commit => {
                    io.block_on(|| bt.commit())?;
                    in_txn = false;
                    committed = model.clone();
                }
            }
            Ok(())
        })();
        if std::env::var("RINGLITE_DEBUG_ERRORS").is_ok() {
            eprintln!("{op:?} -> {r:?} (committed {})", committed.len());
        }
        if r.is_err() {
            let _ = io.block_on(|| bt.rollback());
            drop(bt);
            sim.set_fail_one_in(0);
            bt = open_bt();
            verify(&mut bt, &committed);
            sim.set_fail_one_in(9);
            model = committed.clone();
            in_txn = false;
            c = Cursor::new(root, true, None);
        }
    }
    sim.set_fail_one_in(0);
    if in_txn {
        let _ = io.block_on(|| bt.rollback());
    }
    drop(bt);
    let mut bt = open_bt();
    verify(&mut bt, &committed);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(24)))]

    #[test]
    fn injected_errors_never_lose_committed_data(ops in prop::collection::vec(op(), 1..60), seed in 1u64..1000) {
        errors_model(ops, seed);
    }
}

/// Power loss in the middle of commits: the commit is driven a random
/// number of steps, the simulation drops every request still queued, and a
/// fresh connection must find either the old or the new state (the new one
/// if the commit had finished), never anything else.
fn crash_model(ops: Vec<Op>, seed: u64, steps: Vec<u8>) {
    use ringlite::btree::BtreeOptions;
    let sim = Arc::new(SimBackend::new(SimConfig { seed, reorder: true, max_per_poll: 2, fail_one_in: 0 }));
    let io = IoContext::new(sim.clone());
    let open_bt = |cache: i64| {
        let mut bt = Btree::open(&io, "crash.db", BtreeOptions { create: true, ..Default::default() }).unwrap();
        bt.set_cache_size(cache);
        bt
    };
    let mut bt = open_bt(10);
    bt.set_page_size(512);
    let d = Driver { io: io.clone(), pendings: Cell::new(0) };
    d.run(|| bt.begin_write(false));
    let root = d.run(|| bt.create_tree(TreeKind::Table));
    d.run(|| bt.commit());
    let mut committed: BTreeMap<i64, usize> = BTreeMap::new();
    let mut model = committed.clone();
    let mut c = Cursor::new(root, true, None);
    let mut steps = steps.into_iter().cycle();
    d.run(|| bt.begin_write(false));
    for op in ops {
        match op {
            Op::Insert(k, n) => {
                let p = payload_of(k, n);
                d.run(|| c.insert(&mut bt, InsertKey::Rowid(k), &p));
                model.insert(k, n);
            }
            Op::Delete(k) | Op::Seek(k) => {
                if d.run(|| c.seek_rowid(&mut bt, k)) == SeekResult::Found && matches!(op, Op::Delete(_)) {
                    d.run(|| c.delete(&mut bt));
                    model.remove(&k);
                }
            }
            Op::Commit => {
                let budget = steps.next().unwrap_or(0);
                let mut finished = false;
                for _ in 0..budget {
                    if bt.commit().unwrap().is_ready() {
                        finished = true;
                        break;
                    }
                    io.backend().poll(None).unwrap();
                }
                if finished {
                    committed = model.clone();
                } else {
                    sim.crash();
                    drop(bt);
                    bt = open_bt(10);
                    d.run(|| bt.begin_read());
                    let mut r = Cursor::new(root, false, None);
                    let mut got = BTreeMap::new();
                    let mut more = d.run(|| r.first(&mut bt));
                    while more {
                        let p = d.run(|| r.payload(&mut bt).map(|p| p.map(|s| s.len())));
                        got.insert(r.rowid(), p);
                        more = d.run(|| r.next(&mut bt));
                    }
                    let errors = d.run(|| bt.integrity_check(&[1, root], 10));
                    assert!(errors.is_empty(), "{errors:?}");
                    d.run(|| bt.commit());
                    if got == model {
                        committed = model.clone();
                    } else {
                        assert_eq!(got, committed, "after a crash: neither the old nor the new state");
                    }
                    model = committed.clone();
                    c = Cursor::new(root, true, None);
                }
                d.run(|| bt.begin_write(false));
            }
        }
    }
    d.run(|| bt.commit());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(24)))]

    #[test]
    fn crashes_during_commit_leave_old_or_new_state(ops in prop::collection::vec(op(), 1..80), seed in 1u64..1000, steps in prop::collection::vec(0u8..12, 1..8)) {
        crash_model(ops, seed, steps);
    }
}
