//! # Suite `openloop`: what a multi-tenant runtime's users feel
//!
//! The seed paper's experiment is a closed loop (every tenant re-issues
//! its query the moment the last one ends) and counts latency from a
//! query's first step. A serverless runtime sees neither: requests arrive
//! when users send them, whether or not the previous ones are done, and
//! a user waits from the moment the request arrived. So here:
//!
//! - every tenant has its own database file (`users(id INTEGER PRIMARY
//!   KEY, username TEXT)`, [`Sizes::users`] rows) and receives requests
//!   as a Poisson process; all tenants together at `load` × the measured
//!   capacity (50%, 80%, 95%);
//! - a request is 10 point lookups by random key (read-only mix), or, in
//!   the mixed workload, 20% of requests are one `UPDATE` (autocommit,
//!   rollback journal, `synchronous=NORMAL`);
//! - latency runs from the request's arrival to its last row;
//! - storage: `cached` (default cache, every page read at open), or slow
//!   (`100us`, `1ms` added to every read and sync: ringlite's
//!   `RINGLITE_IO_DELAY`, SQLite's sleeping VFS of [`crate::slowvfs`])
//!   with `cache_size=10` pages, so most lookups go to storage;
//! - systems, in the same run, on the same files: `ringlite async` (one
//!   scheduler thread per core, [`crate::openloop_run::async_run`]),
//!   `sqlite thread/tenant` (one OS thread per tenant, where the OS
//!   allows it), `sqlite pool N` (N = 2, 4, 8, 16, 64 workers; the table
//!   shows the best, as a runtime would pick it, and lists the others).
//!
//! Capacity, per tenant count, workload and storage: each system served
//! an unbounded backlog (every request arriving at once) for
//! [`Sizes::cap_secs`]; the best throughput of them all is the machine's
//! capacity, and loads are fractions of it. A system that cannot keep up
//! drops the requests it had not started by the end of the run plus
//! [`Sizes::secs`] (counted in the table; its percentiles then cover only
//! what it served).
//!
//! Noisy neighbour (`noisy=R`): tenant 0 also sends R full scans of its
//! table per second; every load point then runs each system a second
//! time with them, and the table sets the other tenants' p99.9 next to
//! the quiet run's (the bound: at most 2x).
//!
//! A device of limited depth (`depth=D`): slow storage serves D delayed
//! requests at once per ringlite scheduler thread (its ring's queue,
//! `RINGLITE_IO_DELAY=us,us,D,fair|fifo`) and D × threads for SQLite's
//! process (first come, first served); the others wait. That is where a
//! noisy neighbour's scan (32 reads in flight) competes with the others'
//! lookups; `ioq=fair,fifo` runs ringlite async with its ring's queue
//! served tenant by tenant (`ringlite async`) and first come, first served
//! (`ringlite async fifo`).
//!
//! Files live in `/dev/shm` when there is one, so storage costs exactly
//! the configured delay. Every system reads the same files; the mixed
//! workload's updates change names, never the size of the tables much.

use crate::data::{remove_db, Rng};
use crate::engine::{Engine, Sqlite, R};
use crate::openloop_run::{self, Kind, Outcome, Req, Storage, LOOKUPS};
use crate::sched::Turns;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Suite sizes (all overridable from the command line).
#[derive(Clone, Debug)]
pub struct Sizes {
    /// Tenant counts.
    pub counts: Vec<usize>,
    /// Loads, as fractions of capacity.
    pub loads: Vec<f64>,
    /// Pool sizes tried for SQLite.
    pub pools: Vec<usize>,
    /// Seconds of arrivals per load point.
    pub secs: f64,
    /// Seconds of the saturated run that measures capacity.
    pub cap_secs: f64,
    /// Rows per tenant database.
    pub users: u64,
    /// Storage kinds: `cached`, `100us`, `1ms`.
    pub storages: Vec<String>,
    /// Workloads: `read`, `mixed`.
    pub mixes: Vec<String>,
    /// Skip the thread-per-tenant system.
    pub no_tpt: bool,
    /// Full scans per second sent to tenant 0, the noisy neighbour (0:
    /// none). Each load point then runs twice, without and with it, and
    /// the table gives the others' p99.9 in both.
    pub noisy: f64,
    /// ringlite async: `PRAGMA step_quantum` of every tenant, µs (0: none).
    pub step_quantum_us: u64,
    /// Passes over its table of one noisy-neighbour request.
    pub scan_passes: u32,
    /// ringlite async's scheduler threads (0: one per core). More threads
    /// than cores is no design anyone would pick; it tells, on a machine
    /// other work is contending for, how much of a gap to the SQLite
    /// pools is the kernel giving 16 threads a larger share than 2.
    pub async_threads: usize,
    /// Slow storage: requests the simulated device serves at once (0: no
    /// limit; per scheduler thread for ringlite async, that times the
    /// threads for SQLite's process-wide device).
    pub io_depth: u32,
    /// ringlite async's queue policies to run (`fair`, `fifo`: each its
    /// own system; `fair` is labelled plain `ringlite async`).
    pub io_queues: Vec<String>,
}

impl Sizes {
    /// Full or `--quick` sizes.
    pub fn new(quick: bool) -> Sizes {
        if quick {
            Sizes {
                counts: vec![8],
                loads: vec![0.5],
                pools: vec![2],
                secs: 0.2,
                cap_secs: 0.1,
                users: 200,
                storages: vec!["cached".into(), "100us".into()],
                mixes: vec!["mixed".into()],
                no_tpt: false,
                noisy: 0.0,
                step_quantum_us: 50,
                scan_passes: 1,
                async_threads: 0,
                io_depth: 0,
                io_queues: vec!["fair".into()],
            }
        } else {
            Sizes {
                counts: vec![100, 1000, 10_000],
                loads: vec![0.5, 0.8, 0.95],
                pools: vec![2, 4, 8, 16, 64],
                secs: 5.0,
                cap_secs: 1.0,
                users: 2000,
                storages: vec!["cached".into(), "100us".into(), "1ms".into()],
                mixes: vec!["read".into(), "mixed".into()],
                no_tpt: false,
                noisy: 0.0,
                step_quantum_us: 50,
                scan_passes: 1,
                async_threads: 0,
                io_depth: 0,
                io_queues: vec!["fair".into()],
            }
        }
    }

    /// Apply `key=value` overrides: `loads=50,80`, `pools=2,8`, `secs=2`,
    /// `cap=0.5`, `users=500`, `storage=cached,1ms`, `mix=read`, `tpt=0`,
    /// `noisy=200` (full scans per second by a noisy neighbour),
    /// `passes=10` (table passes per noisy scan), `squantum=50` (ringlite
    /// async's `PRAGMA step_quantum`, µs; 0: none), `athreads=16` (ringlite
    /// async's scheduler threads; 0: one per core), `depth=4` (slow
    /// storage serves 4 requests at once), `ioq=fair,fifo` (ringlite
    /// async's queue policies to compare).
    pub fn set(&mut self, spec: &str) -> R<()> {
        for kv in spec.split(';').filter(|s| !s.trim().is_empty()) {
            let (k, v) = kv.split_once('=').ok_or_else(|| format!("expected key=value in {kv:?}"))?;
            let list = || v.split(',').map(str::trim).filter(|s| !s.is_empty());
            let bad = |e: String| format!("{k}: {e}");
            match k.trim() {
                "loads" => self.loads = list().map(|x| x.parse::<f64>().map(|p| p / 100.0).map_err(|e| bad(e.to_string()))).collect::<R<_>>()?,
                "pools" => self.pools = list().map(|x| x.parse().map_err(|e: std::num::ParseIntError| bad(e.to_string()))).collect::<R<_>>()?,
                "secs" => self.secs = v.parse().map_err(|e: std::num::ParseFloatError| bad(e.to_string()))?,
                "cap" => self.cap_secs = v.parse().map_err(|e: std::num::ParseFloatError| bad(e.to_string()))?,
                "users" => self.users = v.parse().map_err(|e: std::num::ParseIntError| bad(e.to_string()))?,
                "storage" => self.storages = list().map(String::from).collect(),
                "mix" => self.mixes = list().map(String::from).collect(),
                "tpt" => self.no_tpt = v.trim() == "0",
                "noisy" => self.noisy = v.parse().map_err(|e: std::num::ParseFloatError| bad(e.to_string()))?,
                "passes" => self.scan_passes = v.parse().map_err(|e: std::num::ParseIntError| bad(e.to_string()))?,
                "athreads" => self.async_threads = v.parse().map_err(|e: std::num::ParseIntError| bad(e.to_string()))?,
                "depth" => self.io_depth = v.parse().map_err(|e: std::num::ParseIntError| bad(e.to_string()))?,
                "ioq" => {
                    self.io_queues = list().map(String::from).collect();
                    if let Some(q) = self.io_queues.iter().find(|q| !matches!(q.as_str(), "fair" | "fifo")) {
                        return Err(bad(format!("unknown queue policy {q:?} (fair, fifo)")));
                    }
                }
                "squantum" => self.step_quantum_us = v.parse().map_err(|e: std::num::ParseIntError| bad(e.to_string()))?,
                _ => return Err(format!("unknown openloop setting {k:?}")),
            }
        }
        Ok(())
    }
}

fn storage_of(name: &str) -> R<Storage> {
    match name {
        "cached" => Ok(Storage { delay_us: 0, cache_size: -2000, warm: true, step_quantum_us: 50, scan_passes: 1, io_depth: 0, io_fifo: false }),
        "100us" => Ok(Storage { delay_us: 100, cache_size: 10, warm: false, step_quantum_us: 50, scan_passes: 1, io_depth: 0, io_fifo: false }),
        "1ms" => Ok(Storage { delay_us: 1000, cache_size: 10, warm: false, step_quantum_us: 50, scan_passes: 1, io_depth: 0, io_fifo: false }),
        _ => Err(format!("unknown storage {name:?} (cached, 100us, 1ms)")),
    }
}

fn write_pct_of(mix: &str) -> R<u64> {
    match mix {
        "read" => Ok(0),
        "mixed" => Ok(20),
        _ => Err(format!("unknown mix {mix:?} (read, mixed)")),
    }
}

/// One system's result at one point.
#[derive(Clone, Debug)]
pub struct Point {
    /// Tenants.
    pub tenants: usize,
    /// Workload.
    pub mix: String,
    /// Storage.
    pub storage: String,
    /// Fraction of capacity offered.
    pub load: f64,
    /// System (`ringlite async`, `sqlite thread/tenant`, `sqlite pool N`).
    pub system: String,
    /// p50, p99, p99.9, p99.99 in µs, served requests per second, CPU µs
    /// per request, dropped requests; or why there is none.
    pub result: Result<Stats, String>,
    /// With a noisy neighbour (`noisy` set): the others' p99.9, µs.
    pub noisy_p999: Option<Result<f64, String>>,
    /// With a noisy neighbour: the others' p99, µs (more samples behind
    /// it than behind the p99.9 of a short run).
    pub noisy_p99: Option<f64>,
}

/// The numbers of one run.
#[derive(Clone, Copy, Debug)]
pub struct Stats {
    /// p50, p99, p99.9, p99.99 latency, µs.
    pub pct: [f64; 4],
    /// Requests served per second of wall time.
    pub tput: f64,
    /// Process CPU per served request, µs.
    pub cpu_us: f64,
    /// Requests dropped (not started in time).
    pub dropped: usize,
    /// Requests served.
    pub served: usize,
}

fn stats(mut o: Outcome) -> Stats {
    o.lat.sort_unstable();
    let q = |p: f64| -> f64 {
        if o.lat.is_empty() {
            return f64::NAN;
        }
        let i = ((o.lat.len() as f64 - 1.0) * p).round() as usize;
        o.lat[i.min(o.lat.len() - 1)] as f64 / 1000.0
    };
    let served = o.lat.len();
    Stats {
        pct: [q(0.5), q(0.99), q(0.999), q(0.9999)],
        tput: served as f64 / o.wall.as_secs_f64().max(1e-9),
        cpu_us: o.cpu.as_secs_f64() * 1e6 / served.max(1) as f64,
        dropped: o.dropped,
        served,
    }
}

/// Requests of `secs` seconds at `rate` per second over `tenants`
/// (Poisson: exponential gaps; each request's tenant uniform, so each
/// tenant's arrivals are Poisson too). `rate` infinite: all at 0.
fn arrivals(tenants: usize, rate: f64, secs: f64, count_cap: usize, users: u64, write_pct: u64, seed: u64) -> Vec<Req> {
    let mut rng = Rng::new(seed);
    let mut t = 0.0f64;
    let mut out = Vec::new();
    while out.len() < count_cap {
        if rate.is_finite() {
            // (53 random bits for a uniform in (0, 1].)
            let u = ((rng.next() >> 11) as f64 + 1.0) / (1u64 << 53) as f64;
            t += -u.ln() / rate;
            if t >= secs {
                break;
            }
        }
        let tenant = rng.below(tenants as u64) as usize;
        let kind = if rng.below(100) < write_pct {
            let len = 20 + rng.below(40) as usize;
            Kind::Write(rng.below(users) as i64 + 1, rng.word(len))
        } else {
            let mut keys = [0i64; LOOKUPS];
            for k in &mut keys {
                *k = rng.below(users) as i64 + 1;
            }
            Kind::Read(keys)
        };
        out.push(Req { at: Duration::from_secs_f64(t), tenant, kind });
    }
    out
}

/// `reqs` with the noisy neighbour's scans added: tenant 0 sends `rate`
/// full scans per second, evenly spaced, over `secs` (kept in arrival
/// order, as the runners expect).
fn with_noisy(reqs: &[Req], rate: f64, secs: f64) -> Vec<Req> {
    let n = (rate * secs) as usize;
    let mut out: Vec<Req> = reqs.to_vec();
    out.extend((0..n).map(|i| Req { at: Duration::from_secs_f64(i as f64 / rate), tenant: 0, kind: Kind::Scan }));
    out.sort_by_key(|r| r.at);
    out
}

fn scratch(dir: &Path) -> R<tempfile::TempDir> {
    let shm = Path::new("/dev/shm");
    let parent = if shm.is_dir() { shm } else { dir };
    tempfile::Builder::new().prefix("ringlite-bench-openloop").tempdir_in(parent).map_err(|e| e.to_string())
}

fn prepare_files(dir: &Path, sz: &Sizes) -> R<Vec<PathBuf>> {
    let base = dir.join("base.db");
    crate::data::build_users_base(&base, sz.users, 5)?;
    // The base is in rollback-journal mode whatever data::PRAGMAS says:
    // SQLite's slow VFS has no shared memory (no WAL).
    {
        let mut db = Sqlite::open(&base)?;
        db.exec("PRAGMA journal_mode=DELETE;")?;
    }
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

/// Every system of the suite: (label, pool size or 0 for the others).
fn systems(sz: &Sizes) -> Vec<(String, usize)> {
    let mut v: Vec<(String, usize)> =
        sz.io_queues.iter().map(|q| (if q == "fifo" { "ringlite async fifo" } else { "ringlite async" }.to_string(), 0)).collect();
    if !sz.no_tpt {
        v.push(("sqlite thread/tenant".into(), 0));
    }
    v.extend(sz.pools.iter().map(|&p| (format!("sqlite pool {p}"), p)));
    v
}

fn run_one(system: &str, pool: usize, files: &[PathBuf], reqs: &[Req], st: Storage, stop: Duration, cores: usize) -> R<Outcome> {
    match system {
        "ringlite async" => openloop_run::async_run(files, reqs, st, stop, cores, Turns::DEFAULT),
        "ringlite async fifo" => openloop_run::async_run(files, reqs, Storage { io_fifo: true, ..st }, stop, cores, Turns::DEFAULT),
        "sqlite thread/tenant" => openloop_run::tenant_threads(files, reqs, st, stop),
        _ => openloop_run::pool(files, reqs, st, stop, pool),
    }
}

/// Run the suite; returns the points (for the plots) and the Markdown.
pub fn run(sz: &Sizes, dir: &Path) -> R<(Vec<Point>, String)> {
    let scratch = scratch(dir)?;
    let files = prepare_files(scratch.path(), sz)?;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let athreads = if sz.async_threads > 0 { sz.async_threads } else { cores };
    let mut points = Vec::new();
    let mut md = String::new();
    let _ = writeln!(
        md,
        "### openloop: Poisson arrivals, latency from arrival to last row (µs), {cores} cores ({athreads} async scheduler threads), {} rows per tenant, {} s per point\n",
        sz.users, sz.secs
    );
    let _ = writeln!(md, "Request: {LOOKUPS} point lookups (`read`), or 20% of requests one `UPDATE` (`mixed`). `best pool` is the SQLite pool with the fewest dropped requests, then the lowest p99.9.\n");
    for storage in &sz.storages {
        let st = Storage { step_quantum_us: sz.step_quantum_us, scan_passes: sz.scan_passes, io_depth: sz.io_depth, ..storage_of(storage)? };
        if st.delay_us > 0 {
            crate::slowvfs::set_delays(st.delay_us, st.delay_us);
            crate::slowvfs::set_depth(sz.io_depth as usize * athreads);
        }
        for mix in &sz.mixes {
            let wp = write_pct_of(mix)?;
            for &n in &sz.counts {
                let files = &files[..n];
                eprintln!("openloop: {storage} {mix} {n} tenants: capacity");
                // Capacity: every system on an unbounded backlog.
                let backlog = arrivals(n, f64::INFINITY, 0.0, 2_000_000usize.min((200_000.0 * sz.cap_secs.max(0.05)) as usize), sz.users, wp, 11);
                let stop = Duration::from_secs_f64(sz.cap_secs);
                let mut cap_rows = Vec::new();
                let mut capacity = 0.0f64;
                for (name, pool) in systems(sz) {
                    let r = run_one(&name, pool, files, &backlog, st, stop, athreads).map(stats);
                    if let Ok(s) = &r {
                        capacity = capacity.max(s.tput);
                    }
                    cap_rows.push((name, r));
                }
                let _ = writeln!(md, "#### {storage}, {mix}, {n} tenants\n");
                let caps: Vec<String> = cap_rows
                    .iter()
                    .map(|(name, r)| match r {
                        Ok(s) => format!("{name} {:.0}/s ({:.1} CPU µs/req)", s.tput, s.cpu_us),
                        Err(e) => format!("{name}: {e}"),
                    })
                    .collect();
                let _ = writeln!(md, "Capacity (saturated, {} s): {}; used: {capacity:.0} requests/s.\n", sz.cap_secs, caps.join(", "));
                if capacity <= 0.0 {
                    let _ = writeln!(md, "no system served anything: skipped\n");
                    continue;
                }
                if sz.noisy > 0.0 {
                    let _ = writeln!(md, "Noisy neighbour: tenant 0 also runs `{}` {} times a second; last column: the other tenants' p99.9 in a second run with it (ratio to the quiet run), and their p99 (ratio). ringlite async: `PRAGMA step_quantum={}`. Device depth: {}.\n", openloop_run::scan_sql(sz.scan_passes), sz.noisy, sz.step_quantum_us, if sz.io_depth == 0 { "unlimited".to_string() } else { format!("{} per async thread, {} for SQLite", sz.io_depth, sz.io_depth as usize * athreads) });
                }
                let _ = writeln!(
                    md,
                    "| load | system | p50 | p99 | p99.9 | p99.99 | served/s | CPU µs/req | dropped | other pools p99.9 | p99.9 with noisy neighbour |"
                );
                let _ = writeln!(md, "|---:|---|---:|---:|---:|---:|---:|---:|---:|---|---:|");
                for &load in &sz.loads {
                    eprintln!("openloop: {storage} {mix} {n} tenants: load {:.0}%", load * 100.0);
                    let reqs = arrivals(n, load * capacity, sz.secs, usize::MAX, sz.users, wp, 1000 + (load * 100.0) as u64);
                    let stop = Duration::from_secs_f64(sz.secs * 2.0);
                    let noisy = (sz.noisy > 0.0).then(|| with_noisy(&reqs, sz.noisy, sz.secs));
                    let mut here: Vec<Point> = Vec::new();
                    for (name, pool) in systems(sz) {
                        let result = run_one(&name, pool, files, &reqs, st, stop, athreads).map(stats);
                        let noisy_pct = noisy.as_ref().map(|nr| run_one(&name, pool, files, nr, st, stop, athreads).map(|o| stats(o).pct));
                        let noisy_p999 = noisy_pct.as_ref().map(|r| r.as_ref().map(|p| p[2]).map_err(Clone::clone));
                        let noisy_p99 = noisy_pct.and_then(|r| r.ok()).map(|p| p[1]);
                        here.push(Point { tenants: n, mix: mix.clone(), storage: storage.clone(), load, system: name, result, noisy_p999, noisy_p99 });
                    }
                    table_rows(&mut md, load, &mut here);
                    points.extend(here);
                }
                md.push('\n');
            }
        }
    }
    Ok((points, md))
}

/// Rows for one load point: async, thread/tenant, the best pool (its
/// point is relabelled `sqlite best pool` for the plots; the others stay).
fn table_rows(md: &mut String, load: f64, here: &mut [Point]) {
    let pools: Vec<usize> = (0..here.len()).filter(|&i| here[i].system.starts_with("sqlite pool")).collect();
    let best = pools.iter().copied().filter(|&i| here[i].result.is_ok()).min_by(|&a, &b| {
        let (x, y) = (here[a].result.as_ref().ok(), here[b].result.as_ref().ok());
        let key = |s: Option<&Stats>| s.map_or((usize::MAX, f64::INFINITY), |s| (s.dropped, s.pct[2]));
        let (kx, ky) = (key(x), key(y));
        kx.0.cmp(&ky.0).then(kx.1.partial_cmp(&ky.1).unwrap_or(std::cmp::Ordering::Equal))
    });
    let others: Vec<String> = pools
        .iter()
        .filter(|&&i| Some(i) != best)
        .map(|&i| match &here[i].result {
            Ok(s) => format!("{}: {:.0}{}", here[i].system.trim_start_matches("sqlite "), s.pct[2], if s.dropped > 0 { " (dropped)" } else { "" }),
            Err(_) => format!("{}: failed", here[i].system.trim_start_matches("sqlite ")),
        })
        .collect();
    for (i, run) in here.iter().enumerate() {
        let is_pool = run.system.starts_with("sqlite pool");
        if is_pool && Some(i) != best {
            continue;
        }
        let label = if is_pool { format!("sqlite best pool ({} threads)", run.system.trim_start_matches("sqlite pool ")) } else { run.system.clone() };
        let other = if is_pool { others.join(", ") } else { String::new() };
        let noisy = match (&run.noisy_p999, &run.result) {
            (Some(Ok(p)), Ok(s)) => {
                format!("{p:.0} ({:.1}x; p99 {:.0}, {:.1}x)", p / s.pct[2], run.noisy_p99.unwrap_or(0.0), run.noisy_p99.unwrap_or(0.0) / s.pct[1])
            }
            (Some(Ok(p)), Err(_)) => format!("{p:.0}"),
            (Some(Err(e)), _) => e.clone(),
            (None, _) => String::new(),
        };
        match &run.result {
            Ok(s) => {
                let _ = writeln!(
                    md,
                    "| {:.0}% | {label} | {:.0} | {:.0} | {:.0} | {:.0} | {:.0} | {:.1} | {} | {other} | {noisy} |",
                    load * 100.0,
                    s.pct[0],
                    s.pct[1],
                    s.pct[2],
                    s.pct[3],
                    s.tput,
                    s.cpu_us,
                    if s.dropped > 0 { format!("{} of {}", s.dropped, s.dropped + s.served) } else { "0".into() }
                );
            }
            Err(e) => {
                let _ = writeln!(md, "| {:.0}% | {label} | {e} | | | | | | | | {noisy} |", load * 100.0);
            }
        }
    }
    if let Some(b) = best {
        here[b].system = "sqlite best pool".into();
    }
}
