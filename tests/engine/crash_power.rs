//! Power loss at scale: thousands of seeded runs on the simulated disk,
//! each losing power at a random point of a transaction (in the middle of
//! its cache spills, its journal or WAL writes, its fsyncs, its database
//! writes or its journal finalization), in every journal mode that uses a
//! file and in WAL mode, optionally tearing the last write of each file.
//!
//! After the crash the disk image is checked twice, independently:
//! - real SQLite opens a copy (so SQLite rolls back our hot journal or
//!   recovers our WAL): `integrity_check` is ok and the rows are exactly
//!   those of the last committed transaction, or of the interrupted one if
//!   its commit had reached its durable point;
//! - we reopen the image ourselves (our recovery): the same rows, our
//!   integrity check clean, and the database stays writable.
//!
//! `RINGLITE_CRASH_RUNS=n` sets the number of runs (default: a count that
//! takes a few seconds), `RINGLITE_CRASH_SEED=s` the first seed (to replay
//! one failing run: `RINGLITE_CRASH_SEED=s RINGLITE_CRASH_RUNS=1`).

use crate::wal_support;

use ringlite::btree::{Btree, Cursor, InsertKey, SeekResult};
use ringlite::io::sim::{SimBackend, SimConfig};
use ringlite::io::{IoBackend, IoContext};
use ringlite::{IoPoll, Poll};
use std::sync::Arc;
use wal_support::*;

const DB: &str = "crash.db";
const DEFAULT_RUNS: u64 = 600;

/// One operation of a transaction on table `t`.
#[derive(Clone)]
enum Op {
    Put(i64, i64, String),
    Delete(i64),
}

/// A random transaction and the model it produces when committed.
fn plan_txn(rng: &mut Rng, model: &Model, ops: usize, big: bool) -> (Vec<Op>, Model) {
    let mut after = model.clone();
    let mut plan = Vec::new();
    for _ in 0..ops {
        let k = rng.below(400) as i64 + 1;
        if rng.below(4) == 0 {
            after.remove(&k);
            plan.push(Op::Delete(k));
        } else {
            // Now and then a value that spills onto overflow pages.
            let n = if big && rng.below(8) == 0 { 1000 + rng.below(5000) } else { rng.below(250) } as usize;
            let v = (rng.next() as i64 >> 8, rng.text(n));
            after.insert(k, v.clone());
            plan.push(Op::Put(k, v.0, v.1));
        }
    }
    (plan, after)
}

/// Drives resumable operations against the simulated disk, counting the
/// polls; when the budget runs out the power fails there (`Ok(None)`).
struct Driver {
    sim: Arc<SimBackend>,
    budget: Option<u64>,
    polls: u64,
}

impl Driver {
    fn run<T>(&mut self, mut op: impl FnMut() -> IoPoll<T>) -> Option<T> {
        let mut idle = 0;
        loop {
            match op().unwrap_or_else(|e| panic!("operation failed without any injected error: {e:?}")) {
                Poll::Ready(v) => return Some(v),
                Poll::Pending => {
                    if self.budget == Some(0) {
                        return None;
                    }
                    if let Some(b) = &mut self.budget {
                        *b -= 1;
                    }
                    self.polls += 1;
                    if self.sim.poll(None).unwrap() == 0 {
                        idle += 1;
                        assert!(idle < 1000, "Pending with nothing in flight");
                    }
                }
            }
        }
    }

    /// Run a whole transaction; `false` if the power failed before its
    /// commit returned.
    fn txn(&mut self, bt: &mut Btree, root: u32, plan: &[Op]) -> bool {
        if self.run(|| bt.begin_write(false)).is_none() {
            return false;
        }
        let mut c = Cursor::new(root, true, None);
        for op in plan {
            let done = match op {
                Op::Put(k, a, b) => {
                    let rec = encode(&[V::Int(*a), V::Text(b.clone())]);
                    self.run(|| c.insert(bt, InsertKey::Rowid(*k), &rec)).is_some()
                }
                Op::Delete(k) => match self.run(|| c.seek_rowid(bt, *k)) {
                    None => false,
                    Some(SeekResult::Found) => self.run(|| c.delete(bt)).is_some(),
                    Some(_) => true,
                },
            };
            if !done {
                return false;
            }
        }
        self.run(|| bt.commit()).is_some()
    }
}

/// What a run does, derived from its seed.
#[derive(Debug)]
struct Setup {
    mode: &'static str,
    page_size: u32,
    small_cache: bool,
    /// `synchronous=NORMAL`: the last commits may be lost (WAL; TRUNCATE
    /// journals are not synced after truncation), but what survives is a
    /// prefix of them.
    normal: bool,
    autocheckpoint: u32,
    torn: bool,
    /// `auto_vacuum=FULL`: commits move pages and truncate the file.
    autovacuum: bool,
}

impl Setup {
    fn new(seed: u64, rng: &mut Rng) -> Setup {
        let mode = ["delete", "truncate", "persist", "wal"][(seed % 4) as usize];
        Setup {
            mode,
            page_size: [512, 1024, 4096][rng.below(3) as usize],
            small_cache: rng.below(3) == 0,
            normal: rng.below(3) == 0,
            autocheckpoint: [0, 8, 30][rng.below(3) as usize],
            torn: rng.below(2) == 0,
            autovacuum: rng.below(3) == 0,
        }
    }
}

/// Copy the simulated files (not the `-shm`) to a real directory and open
/// them with SQLite, which recovers them.
fn sqlite_view(sim: &SimBackend) -> (tempfile::TempDir, Sqlite) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("copy.db").to_str().unwrap().to_string();
    std::fs::write(&path, sim.fs().get(DB).unwrap().snapshot()).unwrap();
    for suffix in ["-journal", "-wal"] {
        if let Some(f) = sim.fs().get(&format!("{DB}{suffix}")) {
            std::fs::write(format!("{path}{suffix}"), f.snapshot()).unwrap();
        }
    }
    let db = Sqlite::open(&path);
    (dir, db)
}

fn open(io: &IoContext, setup: &Setup) -> Btree {
    let mut bt = open_btree(io, DB);
    if setup.small_cache {
        // Transactions outgrow the cache: spills write the journal (and
        // database pages) or WAL frames before the commit.
        bt.set_cache_size(8);
    }
    if setup.normal {
        bt.set_synchronous(1);
    }
    bt.set_wal_autocheckpoint(setup.autocheckpoint);
    bt
}

fn crash_run(seed: u64) {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let setup = Setup::new(seed, &mut rng);
    let ctx = format!("seed {seed} {setup:?}");
    let sim = Arc::new(SimBackend::new(SimConfig { seed, reorder: true, max_per_poll: 1 + rng.below(3) as usize, fail_one_in: 0 }));
    let io = IoContext::new(sim.clone());
    let mut bt = open(&io, &setup);
    assert_eq!(bt.set_page_size(setup.page_size), setup.page_size, "{ctx}");
    // (auto_vacuum first: as in SQLite, only a file with no page yet takes
    // it, and entering WAL writes page 1.)
    if setup.autovacuum {
        io.block_on(|| bt.begin_write(false)).unwrap();
        assert!(io.block_on(|| bt.set_auto_vacuum(1)).unwrap(), "{ctx}");
        io.block_on(|| bt.commit()).unwrap();
    }
    assert_eq!(bt.set_journal_mode(setup.mode, false), setup.mode, "{ctx}");
    let root = create_table(&io, &mut bt);
    if setup.normal {
        // The schema itself must survive: make it durable.
        io.block_on(|| bt.checkpoint(ringlite::pager::wal::CheckpointMode::Passive)).unwrap();
    }

    // A few transactions that complete, measuring how many polls one takes.
    let mut driver = Driver { sim: sim.clone(), budget: None, polls: 0 };
    let mut model = Model::new();
    let mut history = vec![model.clone()];
    let mut longest = 0;
    for _ in 0..1 + rng.below(3) {
        let ops = 10 + rng.below(40) as usize;
        let (plan, after) = plan_txn(&mut rng, &model, ops, true);
        let start = driver.polls;
        assert!(driver.txn(&mut bt, root, &plan), "{ctx}");
        longest = longest.max(driver.polls - start);
        model = after;
        history.push(model.clone());
    }

    // The transaction the power fails in (or just after).
    let ops = 10 + rng.below(40) as usize;
    let (plan, after) = plan_txn(&mut rng, &model, ops, true);
    driver.budget = Some(rng.below(longest + longest / 4 + 2));
    let committed = driver.txn(&mut bt, root, &plan);
    if setup.torn {
        sim.power_loss_torn();
    } else {
        sim.power_loss();
    }
    bt.pager_mut().abandon();
    drop(bt);

    // Which states may the disk hold now?
    let allowed: Vec<&Model> = if setup.normal {
        // Any prefix of the commits (the interrupted one included).
        history.iter().chain(std::iter::once(&after)).collect()
    } else if committed {
        vec![&after]
    } else {
        vec![&model, &after]
    };

    // SQLite recovers a copy of the crash image.
    let sqlite_saw = {
        let (_dir, db) = sqlite_view(&sim);
        let rows = sqlite_rows(&db);
        assert_eq!(db.integrity(), "Text(\"ok\")", "{ctx}: SQLite's integrity_check after crash");
        rows
    };
    assert!(
        allowed.contains(&&sqlite_saw),
        "{ctx}: SQLite sees a state that was never committed (committed={committed}, {} rows; before {}, after {}, history {:?})",
        sqlite_saw.len(),
        model.len(),
        after.len(),
        history.iter().map(|h| (h.len(), h == &sqlite_saw)).collect::<Vec<_>>()
    );

    // We recover the image ourselves and see the same.
    let mut bt = open(&io, &setup);
    let ours = our_rows(&io, &mut bt, root);
    assert_eq!(ours, sqlite_saw, "{ctx}: our recovery and SQLite's disagree");
    io.block_on(|| bt.begin_read()).unwrap();
    let problems = io.block_on(|| bt.integrity_check(&[1, root], 10)).unwrap();
    io.block_on(|| bt.commit()).unwrap();
    assert!(problems.is_empty(), "{ctx}: {problems:?}");

    // Still a working database: one more transaction, checked by SQLite.
    let mut model = ours;
    random_txn(&io, &mut bt, root, &mut model, &mut rng, 20);
    assert_eq!(our_rows(&io, &mut bt, root), model, "{ctx}");
    drop(bt);
    let (_dir, db) = sqlite_view(&sim);
    assert_eq!(db.integrity(), "Text(\"ok\")", "{ctx}: after a commit following recovery");
    assert_eq!(sqlite_rows(&db), model, "{ctx}");
}

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
}

#[test]
fn power_loss_at_random_points_keeps_exactly_the_committed_transactions() {
    let runs = env_u64("RINGLITE_CRASH_RUNS").unwrap_or(DEFAULT_RUNS);
    let first = env_u64("RINGLITE_CRASH_SEED").unwrap_or(1);
    let started = std::time::Instant::now();
    let trace = std::env::var("RINGLITE_CRASH_TRACE").is_ok();
    for seed in first..first + runs {
        if trace {
            eprintln!("seed {seed}");
        }
        crash_run(seed);
    }
    eprintln!("{runs} power-loss runs from seed {first} in {:.1?}", started.elapsed());
}
