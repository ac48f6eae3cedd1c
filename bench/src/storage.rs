//! # Suite `storage`: the B-tree and pager under load
//!
//! Point lookups by rowid and by index on a warm cache, a full scan, bulk
//! insert in one transaction, many small transactions (WAL with
//! `synchronous=NORMAL`, and the rollback journal for comparison), and heap
//! memory per open connection.
//!
//! "Warm" means: the database file is in the OS page cache and the
//! connection has already scanned the table once; the table (about 7 MB)
//! is larger than the 2 MB `cache_size` both engines use, so lookups still
//! exercise cache replacement, as they would in SQLite's default setup.

use crate::data::{build_base, fill_t, open_copy, permutation, remove_db, Rng, PRAGMAS};
use crate::engine::{Engine, Ringlite, Sqlite, R};
use crate::harness::{measure, measure_with_setup, pair, Config, Outcome, Row};
use std::path::Path;

const SCHEMA: &str = "CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c INTEGER); CREATE INDEX t_c ON t(c);";

/// Sizes of the suite (reduced by `--quick`).
struct Sizes {
    rows: u64,
    lookups: u64,
    inserts: u64,
    small_txns: u64,
    connections: u64,
}

fn sizes(cfg: Config) -> Sizes {
    if cfg.quick {
        Sizes { rows: 300, lookups: 300, inserts: 300, small_txns: 3, connections: 2 }
    } else {
        Sizes { rows: 100_000, lookups: 100_000, inserts: 100_000, small_txns: 1_000, connections: 10 }
    }
}

/// Run the suite; `dir` is the run's scratch directory.
pub fn run(cfg: Config, dir: &Path) -> R<Vec<Row>> {
    let sz = sizes(cfg);
    let base = dir.join("storage-base.db");
    let mut rng = Rng::new(42);
    let cvals = permutation(sz.rows, &mut rng);
    build_base(&base, SCHEMA, |db| fill_t(db, sz.rows, &cvals, &mut rng))?;
    let keys: Vec<i64> = (0..sz.lookups).map(|_| rng.below(sz.rows) as i64 + 1).collect();
    let ckeys: Vec<i64> = keys.iter().map(|&k| cvals[k as usize - 1]).collect();

    let mut rows = Vec::new();
    let by_rowid = "SELECT b FROM t WHERE rowid=?1";
    let by_index = "SELECT b FROM t WHERE c=?1";
    for (what, sql, keys) in [("rowid", by_rowid, &keys), ("index (c=?)", by_index, &ckeys)] {
        for in_txn in [true, false] {
            let how = if in_txn { "in one read transaction" } else { "autocommit each" };
            pair(
                cfg,
                &mut rows,
                format!("{} point lookups by {what}, {how}", sz.lookups),
                sz.lookups,
                || lookups::<Sqlite>(cfg, &base, dir, sql, keys, in_txn),
                || lookups::<Ringlite>(cfg, &base, dir, sql, keys, in_txn),
            );
        }
    }
    pair(
        cfg,
        &mut rows,
        format!("full scan sum(length(b)), {} rows", sz.rows),
        sz.rows,
        || scan::<Sqlite>(cfg, &base, dir),
        || scan::<Ringlite>(cfg, &base, dir),
    );
    pair(
        cfg,
        &mut rows,
        format!("{} inserts in one transaction (indexed table)", sz.inserts),
        sz.inserts,
        || bulk_insert::<Sqlite>(cfg, dir, sz.inserts),
        || bulk_insert::<Ringlite>(cfg, dir, sz.inserts),
    );
    pair(
        cfg,
        &mut rows,
        format!("{} small transactions, WAL, synchronous=NORMAL", sz.small_txns),
        sz.small_txns,
        || small_txns::<Sqlite>(cfg, dir, sz.small_txns, true),
        || small_txns::<Ringlite>(cfg, dir, sz.small_txns, true),
    );
    pair(
        cfg,
        &mut rows,
        format!("{} small transactions, rollback journal, synchronous=FULL (1 timed run)", sz.small_txns),
        sz.small_txns,
        || small_txns::<Sqlite>(cfg, dir, sz.small_txns, false),
        || small_txns::<Ringlite>(cfg, dir, sz.small_txns, false),
    );
    pair(
        cfg,
        &mut rows,
        "heap per open connection after a full scan (cache_size=-2000)".into(),
        0,
        || memory_per_conn::<Sqlite>(&base, dir, sz.connections),
        || memory_per_conn::<Ringlite>(&base, dir, sz.connections),
    );
    Ok(rows)
}

/// Unwrap the setup of a measurement into an outcome.
fn attempt(f: impl FnOnce() -> R<Outcome>) -> Outcome {
    f().unwrap_or_else(Outcome::Failed)
}

fn warm<E: Engine>(db: &mut E) -> R<u64> {
    let mut s = db.prepare("SELECT a, b, c FROM t")?;
    let sum = db.drain(&mut s)?;
    db.finalize(s);
    Ok(sum)
}

/// `keys.len()` lookups with one prepared statement. `in_txn`: all inside
/// one read transaction (pure B-tree work); otherwise each lookup is its
/// own transaction (adds the per-statement file lock and change-counter
/// check both engines do in rollback-journal mode).
fn lookups<E: Engine>(cfg: Config, base: &Path, dir: &Path, sql: &str, keys: &[i64], in_txn: bool) -> Outcome {
    attempt(|| {
        let mut db: E = open_copy(base, dir, "lookup")?;
        warm(&mut db)?;
        let mut st = db.prepare(sql)?;
        let out = measure(cfg, || {
            if in_txn {
                db.exec("BEGIN")?;
            }
            let mut sum = 0u64;
            for &k in keys {
                db.bind_i64(&mut st, 1, k)?;
                if db.step(&mut st)? {
                    sum += db.col_len(&st, 0) as u64;
                }
                db.reset(&mut st);
            }
            if in_txn {
                db.exec("COMMIT")?;
            }
            Ok(sum)
        });
        db.finalize(st);
        Ok(out)
    })
}

fn scan<E: Engine>(cfg: Config, base: &Path, dir: &Path) -> Outcome {
    attempt(|| {
        let mut db: E = open_copy(base, dir, "scan")?;
        let mut st = db.prepare("SELECT sum(length(b)) FROM t")?;
        let out = measure(cfg, || db.drain(&mut st));
        db.finalize(st);
        Ok(out)
    })
}

fn fresh<E: Engine>(dir: &Path, tag: &str, extra: &str) -> R<E> {
    let path = dir.join(format!("{tag}-{}.db", E::NAME));
    remove_db(&path);
    let mut db = E::open(&path)?;
    db.exec("PRAGMA page_size=4096;")?;
    db.exec(PRAGMAS)?;
    db.exec(extra)?;
    db.exec(SCHEMA)?;
    Ok(db)
}

fn bulk_insert<E: Engine>(cfg: Config, dir: &Path, n: u64) -> Outcome {
    let mut rng = Rng::new(7);
    let cvals = permutation(n, &mut rng);
    let words: Vec<String> = (0..n)
        .map(|_| {
            let len = 10 + rng.below(50) as usize;
            rng.word(len)
        })
        .collect();
    measure_with_setup(
        cfg,
        || fresh::<E>(dir, "insert", ""),
        |mut db| {
            db.exec("BEGIN")?;
            let mut ins = db.prepare("INSERT INTO t(a, b, c) VALUES (?1, ?2, ?3)")?;
            for i in 0..n as usize {
                db.bind_i64(&mut ins, 1, i as i64 + 1)?;
                db.bind_text(&mut ins, 2, &words[i])?;
                db.bind_i64(&mut ins, 3, cvals[i])?;
                db.step(&mut ins)?;
                db.reset(&mut ins);
            }
            db.finalize(ins);
            db.exec("COMMIT")?;
            Ok(n)
        },
    )
}

fn small_txns<E: Engine>(cfg: Config, dir: &Path, n: u64, wal: bool) -> Outcome {
    if wal {
        // Ask for WAL and believe only what the engine reports back.
        let probe = attempt(|| {
            let mut db = fresh::<E>(dir, "walprobe", "")?;
            let mode = db.query_text("PRAGMA journal_mode=WAL")?;
            Ok(if mode.eq_ignore_ascii_case("wal") { Outcome::Bytes(0) } else { Outcome::Unsupported(format!("journal_mode=WAL answers {mode:?}")) })
        });
        if !matches!(probe, Outcome::Bytes(_)) {
            return probe;
        }
    }
    let extra = if wal { "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;" } else { "" };
    // The rollback-journal variant is fsync-bound (tens of seconds per
    // run on a shared disk): one timed run is all it can afford.
    let cfg = if wal { cfg } else { Config { runs: 1, ..cfg } };
    measure_with_setup(
        cfg,
        || fresh::<E>(dir, if wal { "txn-wal" } else { "txn-rollback" }, extra),
        |mut db| {
            let mut ins = db.prepare("INSERT INTO t(b, c) VALUES (?1, ?2)")?;
            for i in 0..n as i64 {
                db.bind_text(&mut ins, 1, "a small row")?;
                db.bind_i64(&mut ins, 2, i)?;
                db.step(&mut ins)?;
                db.reset(&mut ins);
            }
            db.finalize(ins);
            Ok(n)
        },
    )
}

/// Bytes the C heap (glibc malloc: SQLite's allocations) holds now.
fn c_heap_in_use() -> i64 {
    // SAFETY: mallinfo2 only reads the allocator's statistics.
    let mi = unsafe { libc::mallinfo2() };
    (mi.uordblks + mi.hblkhd) as i64
}

/// Open `k` connections on one file, scan the table on each (filling the
/// page cache up to cache_size), and report the heap growth per
/// connection: the C heap's (SQLite) plus the Rust heap's (ringlite,
/// counted by [`crate::heap`]), so one figure covers either engine.
fn memory_per_conn<E: Engine>(base: &Path, dir: &Path, k: u64) -> Outcome {
    attempt(|| {
        let path = dir.join(format!("mem-{}.db", E::NAME));
        remove_db(&path);
        std::fs::copy(base, &path).map_err(|e| e.to_string())?;
        let before = c_heap_in_use();
        let (conns, rust_growth) = crate::heap::counting(|| -> Result<Vec<E>, String> {
            let mut conns = Vec::new();
            for _ in 0..k {
                let mut db = E::open(&path)?;
                db.exec(PRAGMAS)?;
                warm(&mut db)?;
                conns.push(db);
            }
            Ok(conns)
        });
        let conns = conns?;
        let after = c_heap_in_use() + rust_growth;
        drop(conns);
        Ok(Outcome::Bytes((after - before).max(0) as u64 / k.max(1)))
    })
}
