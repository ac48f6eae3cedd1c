//! Model-based tests: random insert/delete/seek sequences on table and
//! index trees, checked against a `BTreeMap` after every step, on the
//! memory backend and on the delayed, reordering simulation backend (with
//! a tiny cache, so operations constantly hit `Pending` and resume).

mod storage_support;

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
