//! # Suite `slow`: far-away storage, cold caches, 100 tenants
//!
//! The second experiment of issue #5: storage where every read costs
//! [`READ_US`] and every sync [`SYNC_US`] on top of the local disk (as a
//! network volume would), page caches kept cold, and 100 tenants each
//! with its own ~1 MiB `users` database running a plan of point reads
//! (`SELECT username FROM users WHERE id=?`) and updates
//! (`UPDATE users SET username=? WHERE id=?`, rollback journal,
//! `synchronous=FULL`, so each commit pays several syncs).
//!
//! Configurations, on identical fresh copies of the tenant files:
//! - `sqlite threads`: real SQLite, one thread per tenant, through the
//!   `delay` VFS of [`crate::slowvfs`] (it sleeps in xRead/xSync);
//! - `ringlite threads`: blocking ringlite connections, one thread per
//!   tenant, `RINGLITE_IO_DELAY` set (their reads wait in the backend);
//! - `ringlite async 1 thread`: ringlite async connections, all tenants
//!   on ONE thread (the scheduler of [`crate::sched`]): while one
//!   tenant's read is in flight the others run.
//!
//! Files live in RAM (`/dev/shm`, when present): the storage cost is the
//! configured delay alone, the same for both engines, not this machine's
//! disk (whose real fsync costs more than the simulated one).
//!
//! Cold cache: every connection is opened fresh for the run with
//! `cache_size=10` pages (≈ 40 KiB against a 1 MiB database), so random
//! point reads mostly miss in the engine's cache. Both engines still read
//! through the OS page cache (the files were just copied); the added
//! delay dominates the cost of a read either way.
//!
//! Throughput is operations over the wall time from the common start to
//! the last tenant's end; latencies are per operation. `CPU µs/op` is the
//! CPU time the configuration's threads used per operation (for the async
//! one: the whole process, so the kernel's io_uring workers count too; the
//! scheduler thread's own share is the last column), the figure that does
//! not depend on how much of a loaded machine the configuration got.

use crate::data::{remove_db, Rng};
use crate::engine::{Engine, Ringlite, Sqlite, R};
use crate::sched::{self, Bind, Op, Run, Setup};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Delay per read, microseconds.
pub const READ_US: u64 = 100;
/// Delay per sync, microseconds.
pub const SYNC_US: u64 = 1000;

const INIT: &str = "PRAGMA cache_size=10; PRAGMA journal_mode=DELETE; PRAGMA synchronous=FULL;";
const READ: &str = "SELECT username FROM users WHERE id=?1";
const UPDATE: &str = "UPDATE users SET username=?2 WHERE id=?1";

struct Sizes {
    tenants: usize,
    ops: usize,
    users: u64,
}

fn sizes(quick: bool) -> Sizes {
    if quick {
        Sizes { tenants: 3, ops: 10, users: 300 }
    } else {
        Sizes { tenants: 100, ops: 200, users: 20_000 }
    }
}

/// Tenant plans: `write_pct` percent updates, the rest point reads, of
/// random existing rows (deterministic per tenant).
fn plans(sz: &Sizes, write_pct: u64) -> Vec<Vec<Op>> {
    (0..sz.tenants)
        .map(|t| {
            let mut rng = Rng::new(1000 + t as u64);
            (0..sz.ops)
                .map(|_| {
                    let id = rng.below(sz.users) as i64 + 1;
                    if rng.below(100) < write_pct {
                        let len = 20 + rng.below(40) as usize;
                        Op { stmt: 1, binds: vec![Bind::Int(id), Bind::Text(rng.word(len))], rows: 0 }
                    } else {
                        Op { stmt: 0, binds: vec![Bind::Int(id)], rows: 1 }
                    }
                })
                .collect()
        })
        .collect()
}

/// Fresh copies of the base for one configuration.
fn copies(base: &Path, dir: &Path, tag: &str, n: usize) -> R<Vec<PathBuf>> {
    (0..n)
        .map(|i| {
            let p = dir.join(format!("slow-{tag}-{i}.db"));
            remove_db(&p);
            std::fs::copy(base, &p).map_err(|e| format!("copy: {e}"))?;
            Ok(p)
        })
        .collect()
}

/// Clears `RINGLITE_IO_DELAY` when dropped, even on early return.
struct DelayEnv;

impl DelayEnv {
    fn set() -> DelayEnv {
        // Single-threaded here: every tenant thread of the previous
        // configuration has been joined.
        std::env::set_var("RINGLITE_IO_DELAY", format!("{READ_US},{SYNC_US}"));
        DelayEnv
    }
}

impl Drop for DelayEnv {
    fn drop(&mut self) {
        std::env::remove_var("RINGLITE_IO_DELAY");
    }
}

/// Where the tenant files go: RAM (`/dev/shm`) when there is one, so that
/// the configured delays, not this machine's disk, are the storage cost
/// (a real fsync here costs several milliseconds, more than the delay).
fn scratch(dir: &Path) -> R<tempfile::TempDir> {
    let shm = Path::new("/dev/shm");
    let parent = if shm.is_dir() { shm } else { dir };
    tempfile::Builder::new().prefix("ringlite-bench-slow").tempdir_in(parent).map_err(|e| e.to_string())
}

fn delta(before: (u64, u64), after: (u64, u64)) -> (u64, u64) {
    (after.0 - before.0, after.1 - before.1)
}

/// Run the suite: whether any configuration failed, and the Markdown.
/// `only`/`skip` filter the rows by their "workload configuration" name
/// (e.g. `--only "mixed (30% updates) ringlite async"` for `perf`);
/// without the SQLite row the ratio columns say `n/a`.
pub fn run(quick: bool, only: Option<&str>, skip: Option<&str>, dir: &Path) -> R<(bool, String)> {
    let wanted = |workload: &str, config: &str| {
        let name = format!("{workload} {config}");
        only.is_none_or(|o| name.contains(o)) && skip.is_none_or(|s| !name.contains(s))
    };
    let sz = sizes(quick);
    let scratch = scratch(dir)?;
    let dir = scratch.path();
    let base = dir.join("slow-base.db");
    crate::data::build_users_base(&base, sz.users, 7)?;
    crate::slowvfs::set_delays(READ_US, SYNC_US);
    let setup = Setup { init: INIT, stmts: vec![READ, UPDATE] };
    let mut failed = false;
    let mut md = String::new();
    let _ = writeln!(
        md,
        "### slow: {} tenants × {} ops, +{READ_US} µs per read, +{SYNC_US} µs per sync, cache_size=10 pages, files in {}; latency in µs\n",
        sz.tenants,
        sz.ops,
        if dir.starts_with("/dev/shm") { "RAM (/dev/shm)" } else { "the temp dir" }
    );
    let _ = writeln!(md, "| workload | configuration | ops/s | p50 | p90 | p99 | p99.9 | throughput vs SQLite | p99 vs SQLite | reads/op | syncs/op | CPU µs/op | scheduler on CPU / waiting for CPU |");
    let _ = writeln!(md, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (workload, write_pct) in [("read-mostly (5% updates)", 5), ("mixed (30% updates)", 30)] {
        eprintln!("slow: {workload}");
        let p = plans(&sz, write_pct);
        // (configuration, run, storage reads and syncs during the run,
        // opening included).
        let mut results: Vec<(&str, R<Run>, (u64, u64))> = Vec::new();
        if wanted(workload, "sqlite threads") {
            let files = copies(&base, dir, "sqlite", sz.tenants)?;
            let before = crate::slowvfs::counts();
            let r = sched::threads::<Sqlite, _>(&files, &setup, p.clone(), |f: &Path| Sqlite::open_vfs(f, Some(crate::slowvfs::NAME)));
            results.push(("sqlite threads", r, delta(before, crate::slowvfs::counts())));
        }
        {
            let _env = DelayEnv::set();
            if wanted(workload, "ringlite threads") {
                let files = copies(&base, dir, "ringlite-threads", sz.tenants)?;
                let before = ringlite::io::delay::counts();
                let r = sched::threads::<Ringlite, _>(&files, &setup, p.clone(), |f: &Path| Ringlite::open(f));
                results.push(("ringlite threads", r, delta(before, ringlite::io::delay::counts())));
            }
            if wanted(workload, "ringlite async 1 thread") {
                let files = copies(&base, dir, "ringlite-async", sz.tenants)?;
                let before = ringlite::io::delay::counts();
                let r = sched::async_tenants(&files, &setup, p.clone(), 1, sched::Turns::DEFAULT);
                results.push(("ringlite async 1 thread", r, delta(before, ringlite::io::delay::counts())));
            }
        }
        let base_run = results.iter().find(|r| r.0 == "sqlite threads").and_then(|r| r.1.as_ref().ok()).map(|r| (r.throughput(), r.percentiles()[2]));
        for (config, r, (reads, syncs)) in &results {
            match r {
                Ok(r) => {
                    let q = r.percentiles();
                    let (tp, p99) =
                        base_run.map_or(("n/a".into(), "n/a".into()), |(t, p)| (format!("{:.2}×", r.throughput() / t), format!("{:.2}×", q[2] / p)));
                    let per = |n: &u64| *n as f64 / r.ops.max(1) as f64;
                    let _ = writeln!(
                        md,
                        "| {workload} | {config} | {:.0} | {:.1} | {:.1} | {:.1} | {:.1} | {tp} | {p99} | {:.2} | {:.2} | {} | {} |",
                        r.throughput(),
                        q[0],
                        q[1],
                        q[2],
                        q[3],
                        per(reads),
                        per(syncs),
                        r.cpu_us_per_op().map_or(String::new(), |c| format!("{c:.1}")),
                        match (r.cpu_busy, r.cpu_wait) {
                            (Some(b), Some(w)) => format!("{:.0}% / {:.0}%", b * 100.0, w * 100.0),
                            _ => String::new(),
                        }
                    );
                }
                Err(e) => {
                    failed = true;
                    let _ = writeln!(md, "| {workload} | {config} | FAILED: {} | | | | | | | | | | |", e.chars().take(100).collect::<String>());
                }
            }
        }
    }
    Ok((failed, md))
}
