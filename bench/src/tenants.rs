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
//!   tenants are state machines spread over one thread per core; a
//!   tenant's turn runs its query until it completes or a step returns
//!   `StepResult::Io`, with a 50 µs quantum, and only tenants whose I/O
//!   finished are stepped after a poll ([`crate::sched::Turns::DEFAULT`]);
//! - `ringlite async (paper: 10 steps/turn)`: the same connections under
//!   the seed paper's scheduler (at most 10 steps per turn, every tenant
//!   stepped on every pass), for comparison. A probe
//!   query checks that the engine really suspends (io_uring available);
//!   if not, the table says the async rows ran on the synchronous
//!   fallback.
//!
//! Invariant: all configurations read the same tenant files (byte copies
//! of one base built by SQLite); the workload is read-only, so they never
//! contend for locks.

use crate::data::remove_db;
use crate::engine::{Engine, Ringlite, Sqlite, R};
use crate::sched::{self, Op, Run, Setup};
use ringlite::{OpenFlags, StepResult};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The label of the seed paper's scheduler configuration.
pub const PAPER: &str = "ringlite async (paper: 10 steps/turn)";

/// The query every tenant runs.
pub const QUERY: &str = "SELECT * FROM users LIMIT 100";

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
        Sizes { counts: vec![1, 3], queries: 5, users: 300 }
    } else {
        Sizes { counts: std::iter::once(1).chain((10..=100).step_by(10)).collect(), queries: 1000, users: 20_000 }
    }
}

/// Build the base tenant database and `max` copies of it.
fn prepare_files(dir: &Path, sz: &Sizes) -> R<Vec<PathBuf>> {
    let base = dir.join("tenant-base.db");
    crate::data::build_users_base(&base, sz.users, 99)?;
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

/// Whether the engine's async mode really returns `StepResult::Io`.
fn async_probe(path: &Path) -> R<bool> {
    let mut db = Ringlite::open_flags(path, OpenFlags::ASYNC)?;
    let mut st = db.prepare(QUERY)?;
    let mut saw_io = false;
    loop {
        match st.step(&mut db.conn).map_err(|e| e.to_string())? {
            StepResult::Row => {}
            StepResult::Done => break,
            StepResult::Io => {
                saw_io = true;
                db.conn.io_poll(-1).map_err(|e| e.to_string())?;
            }
        }
    }
    st.reset(&mut db.conn);
    Ok(saw_io)
}

/// Run the suite; returns the points (for the plot) and the Markdown.
pub fn run(quick: bool, counts: Option<Vec<usize>>, dir: &Path) -> R<(Vec<Point>, String)> {
    let mut sz = sizes(quick);
    if let Some(c) = counts.filter(|c| !c.is_empty()) {
        sz.counts = c;
    }
    let files = prepare_files(dir, &sz)?;
    let saw_io = async_probe(&files[0])?;
    let setup = Setup { init: crate::data::PRAGMAS, stmts: vec![QUERY] };
    let plan = || -> Vec<Vec<Op>> { vec![vec![Op { stmt: 0, binds: Vec::new(), rows: 100 }; sz.queries]; files.len()] };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut points = Vec::new();
    for &n in &sz.counts {
        let f = &files[..n];
        let plans = || plan()[..n].to_vec();
        eprintln!("tenants: N = {n}");
        let pct = |r: R<Run>| r.map(|r| r.percentiles());
        points.push(Point { tenants: n, config: "sqlite threads", result: pct(sched::threads::<Sqlite, _>(f, &setup, plans(), |p: &Path| Sqlite::open(p))) });
        points.push(Point {
            tenants: n,
            config: "ringlite threads",
            result: pct(sched::threads::<Ringlite, _>(f, &setup, plans(), |p: &Path| Ringlite::open(p))),
        });
        points.push(Point { tenants: n, config: "ringlite async", result: pct(sched::async_tenants(f, &setup, plans(), cores, sched::Turns::DEFAULT)) });
        points.push(Point { tenants: n, config: PAPER, result: pct(sched::async_tenants(f, &setup, plans(), cores, sched::Turns::Paper)) });
    }
    let mut md = markdown(&points, sz.queries);
    if !saw_io {
        md.push_str("\nNote: the async probe never saw `StepResult::Io` (no io_uring here?): the async rows ran on the synchronous fallback backend.\n");
    }
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
