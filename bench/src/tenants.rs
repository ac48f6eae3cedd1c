//! # Suite `tenants`: many small databases on few cores
//!
//! The multi-tenant microbenchmark of the seed paper (section 4.1): N
//! tenants, each with its own ~1 MiB database holding
//! `users(id INTEGER PRIMARY KEY, username TEXT)`, each running
//! `SELECT * FROM users LIMIT 100` 1,000 times; N = 1, 10, 20, ..., 100.
//! Every query's latency (from its first step to `Done`, so it includes
//! time spent waiting for a core) goes into an `hdrhistogram`.
//!
//! Configurations:
//! - `sqlite threads`: real SQLite, one OS thread per tenant;
//! - `ringlite threads`: ringlite blocking connections, one thread per
//!   tenant;
//! - `ringlite async`: connections opened with `OpenFlags::ASYNC`; all
//!   tenants are state machines spread over one thread per core; a tenant
//!   runs at most 10 steps per turn and yields as soon as a step returns
//!   `StepResult::Io`. Runs only when the engine really is asynchronous: a
//!   probe query must see at least one `StepResult::Io`, otherwise the row
//!   says "not yet available" (pass `--force-async` to run the scheduler
//!   anyway, e.g. to measure its overhead).
//!
//! Invariant: all configurations read the same tenant files (byte copies
//! of one base built by SQLite); the workload is read-only, so they never
//! contend for locks.

use crate::data::{remove_db, Rng};
use crate::engine::{Engine, Ringlite, Sqlite, R};
use hdrhistogram::Histogram;
use ringlite::{OpenFlags, StepResult};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Barrier};
use std::time::Instant;

/// The query every tenant runs.
pub const QUERY: &str = "SELECT * FROM users LIMIT 100";

/// Steps a tenant may run per scheduler turn (as in the paper).
const STEPS_PER_TURN: usize = 10;

/// One configuration's latency distribution at one N.
pub struct Point {
    /// Number of tenants.
    pub tenants: usize,
    /// Configuration name.
    pub config: &'static str,
    /// Percentiles p50, p90, p99, p99.9 in microseconds, or why absent.
    pub result: Result<[f64; 4], String>,
}

/// Suite sizes.
pub struct Sizes {
    /// Tenant counts to run.
    pub counts: Vec<usize>,
    /// Queries per tenant.
    pub queries: usize,
    /// Rows in each tenant's `users` (about 1 MiB of file).
    pub users: u64,
}

/// Sizes for a full or `--quick` run.
pub fn sizes(quick: bool) -> Sizes {
    if quick {
        Sizes { counts: vec![1, 4], queries: 20, users: 500 }
    } else {
        Sizes { counts: std::iter::once(1).chain((10..=100).step_by(10)).collect(), queries: 1000, users: 20_000 }
    }
}

fn new_hist() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 3_600_000_000_000, 3).expect("valid histogram bounds")
}

fn percentiles(h: &Histogram<u64>) -> [f64; 4] {
    [50.0, 90.0, 99.0, 99.9].map(|q| h.value_at_quantile(q / 100.0) as f64 / 1000.0)
}

/// Build the base tenant database and `max` copies of it.
fn prepare_files(dir: &Path, sz: &Sizes) -> R<Vec<PathBuf>> {
    let base = dir.join("tenant-base.db");
    crate::data::build_base(&base, "CREATE TABLE users(id INTEGER PRIMARY KEY, username TEXT);", |db| {
        let mut rng = Rng::new(99);
        let mut s = db.prepare("INSERT INTO users(username) VALUES (?1)")?;
        for _ in 0..sz.users {
            let len = 20 + rng.below(40) as usize;
            let w = rng.word(len);
            db.bind_text(&mut s, 1, &w)?;
            db.step(&mut s)?;
            db.reset(&mut s);
        }
        db.finalize(s);
        Ok(())
    })?;
    let max = sz.counts.iter().copied().max().unwrap_or(1);
    (0..max)
        .map(|i| {
            let p = dir.join(format!("tenant-{i}.db"));
            remove_db(&p);
            std::fs::copy(&base, &p).map_err(|e| e.to_string())?;
            Ok(p)
        })
        .collect()
}

/// Thread per tenant, blocking engine `E`.
fn threads<E: Engine + 'static>(files: &[PathBuf], queries: usize) -> R<[f64; 4]> {
    let barrier = Arc::new(Barrier::new(files.len()));
    let handles: Vec<_> = files
        .iter()
        .cloned()
        .map(|path| {
            let barrier = barrier.clone();
            std::thread::spawn(move || -> R<Histogram<u64>> {
                let mut db = E::open(&path)?;
                db.exec(crate::data::PRAGMAS)?;
                let mut st = db.prepare(QUERY)?;
                let mut h = new_hist();
                barrier.wait();
                for _ in 0..queries {
                    let t = Instant::now();
                    let mut rows = 0;
                    while db.step(&mut st)? {
                        rows += 1;
                    }
                    db.reset(&mut st);
                    h.saturating_record(t.elapsed().as_nanos() as u64);
                    if rows != 100 {
                        return Err(format!("{}: {rows} rows instead of 100", E::NAME));
                    }
                }
                db.finalize(st);
                Ok(h)
            })
        })
        .collect();
    let mut all = new_hist();
    for h in handles {
        let h = h.join().map_err(|_| "tenant thread panicked".to_string())??;
        all.add(&h).map_err(|e| e.to_string())?;
    }
    Ok(percentiles(&all))
}

/// One tenant of the async scheduler: a connection, its statement, and
/// where it is in its sequence of queries.
struct Tenant {
    db: Ringlite,
    stmt: ringlite::Statement,
    done: usize,
    rows: usize,
    started: Option<Instant>,
}

/// Whether the engine's async mode really returns `StepResult::Io`.
fn async_probe(path: &Path) -> R<bool> {
    let mut db = Ringlite::open_flags(path, OpenFlags::ASYNC)?;
    let mut st = db.prepare(QUERY)?;
    let mut saw_io = false;
    loop {
        match st.step(&mut db.conn).map_err(|e| e.to_string())? {
            StepResult::Row => {}
            StepResult::Done => break,
            StepResult::Io => saw_io = true,
        }
    }
    st.reset(&mut db.conn);
    Ok(saw_io)
}

/// All tenants as state machines over one thread per core.
fn async_tenants(files: &[PathBuf], queries: usize) -> R<[f64; 4]> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get()).min(files.len());
    let barrier = Arc::new(Barrier::new(cores));
    let handles: Vec<_> = (0..cores)
        .map(|core| {
            let mine: Vec<PathBuf> = files.iter().skip(core).step_by(cores).cloned().collect();
            let barrier = barrier.clone();
            std::thread::spawn(move || -> R<Histogram<u64>> {
                let mut tenants = Vec::new();
                for p in &mine {
                    let mut db = Ringlite::open_flags(p, OpenFlags::ASYNC)?;
                    let stmt = db.prepare(QUERY)?;
                    tenants.push(Tenant { db, stmt, done: 0, rows: 0, started: None });
                }
                let mut h = new_hist();
                barrier.wait();
                let mut live = tenants.len();
                while live > 0 {
                    live = 0;
                    for t in tenants.iter_mut().filter(|t| t.done < queries) {
                        live += 1;
                        turn(t, &mut h)?;
                    }
                }
                for mut t in tenants {
                    t.stmt.reset(&mut t.db.conn);
                }
                Ok(h)
            })
        })
        .collect();
    let mut all = new_hist();
    for h in handles {
        let h = h.join().map_err(|_| "scheduler thread panicked".to_string())??;
        all.add(&h).map_err(|e| e.to_string())?;
    }
    Ok(percentiles(&all))
}

/// One scheduler turn: at most STEPS_PER_TURN steps, stopping at I/O.
fn turn(t: &mut Tenant, h: &mut Histogram<u64>) -> R<()> {
    for _ in 0..STEPS_PER_TURN {
        let started = *t.started.get_or_insert_with(Instant::now);
        match t.stmt.step(&mut t.db.conn).map_err(|e| format!("ringlite async step: {e}"))? {
            StepResult::Row => t.rows += 1,
            StepResult::Io => return Ok(()),
            StepResult::Done => {
                h.saturating_record(started.elapsed().as_nanos() as u64);
                if t.rows != 100 {
                    return Err(format!("ringlite async: {} rows instead of 100", t.rows));
                }
                t.stmt.reset(&mut t.db.conn);
                t.rows = 0;
                t.started = None;
                t.done += 1;
                return Ok(());
            }
        }
    }
    Ok(())
}

/// Run the suite; returns the points (for the plot) and the Markdown.
pub fn run(quick: bool, force_async: bool, dir: &Path) -> R<(Vec<Point>, String)> {
    let sz = sizes(quick);
    let files = prepare_files(dir, &sz)?;
    let async_ok = force_async || async_probe(&files[0])?;
    let mut points = Vec::new();
    for &n in &sz.counts {
        let f = &files[..n];
        eprintln!("tenants: N = {n}");
        points.push(Point { tenants: n, config: "sqlite threads", result: threads::<Sqlite>(f, sz.queries) });
        points.push(Point { tenants: n, config: "ringlite threads", result: threads::<Ringlite>(f, sz.queries) });
        let result = if async_ok {
            async_tenants(f, sz.queries)
        } else {
            Err("not yet available: OpenFlags::ASYNC connections never return StepResult::Io (no asynchronous I/O backend yet)".into())
        };
        points.push(Point { tenants: n, config: "ringlite async", result });
    }
    let md = markdown(&points, sz.queries);
    Ok((points, md))
}

fn markdown(points: &[Point], queries: usize) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "### tenants: `{QUERY}` × {queries} per tenant, latency in µs\n");
    let _ = writeln!(s, "| tenants | configuration | p50 | p90 | p99 | p99.9 | p99 ratio vs SQLite |");
    let _ = writeln!(s, "|---:|---|---:|---:|---:|---:|---:|");
    for p in points {
        let sqlite_p99 = points.iter().find(|q| q.tenants == p.tenants && q.config == "sqlite threads").and_then(|q| q.result.as_ref().ok()).map(|r| r[2]);
        match &p.result {
            Ok(r) => {
                let ratio = sqlite_p99.filter(|&b| b > 0.0).map_or("n/a".into(), |b| format!("{:.2}×", r[2] / b));
                let _ = writeln!(s, "| {} | {} | {:.1} | {:.1} | {:.1} | {:.1} | {} |", p.tenants, p.config, r[0], r[1], r[2], r[3], ratio);
            }
            Err(e) => {
                let _ = writeln!(s, "| {} | {} | {e} | | | | |", p.tenants, p.config);
            }
        }
    }
    s
}
