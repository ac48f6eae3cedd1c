//! # Suite `steady`: CPU per request in the steady state, one thread
//!
//! The open-loop suite measures CPU per request over whole runs on a
//! machine shared with other work; the opening of the tenants and the
//! threads of the other systems blur it. This suite isolates the steady
//! state: N tenants (each its own copy of the open-loop `users`
//! database) are opened and warmed on one thread *before* the clock
//! starts; then one thread serves requests back to back (10 point lookups
//! each, tenant chosen at random), and the suite reports
//!
//! - process CPU per request (`getrusage(RUSAGE_SELF)`, so io_uring's
//!   kernel workers of the process count too),
//! - the serving thread's own CPU per request (`CLOCK_THREAD_CPUTIME_ID`),
//! - for async connections, `SQLITE_IO` suspensions per request (on
//!   cached data a statement should never suspend),
//!
//! for SQLite, ringlite blocking and ringlite async, in the same run on
//! the same files. CPU time, not wall time: the machine may be shared.

use crate::data::{remove_db, Rng};
use crate::engine::{Engine, Ringlite, Sqlite, R};
use ringlite::value::Value;
use ringlite::{OpenFlags, StepResult};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

const READ: &str = "SELECT username FROM users WHERE id=?1";
const WARM: &str = "SELECT sum(length(username)) FROM users";
const INIT: &str = "PRAGMA journal_mode=DELETE; PRAGMA synchronous=NORMAL;";
const USERS: u64 = 2000;
const LOOKUPS: usize = 10;

fn cpu_of(who: i32) -> Duration {
    // SAFETY: getrusage only writes the struct we hand it.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(who, &mut ru) } != 0 {
        return Duration::ZERO;
    }
    let tv = |t: libc::timeval| Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64);
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

fn thread_cpu() -> Duration {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime only writes the timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// (process CPU, thread CPU, minor faults) now.
fn snap() -> (Duration, Duration, i64) {
    // SAFETY: as in cpu_of.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    (cpu_of(libc::RUSAGE_SELF), thread_cpu(), ru.ru_minflt)
}

fn files(dir: &Path, n: usize) -> R<Vec<PathBuf>> {
    let shm = Path::new("/dev/shm");
    let dir = if shm.is_dir() { shm.to_path_buf() } else { dir.to_path_buf() };
    let base = dir.join("ringlite-steady-base.db");
    crate::data::build_users_base(&base, USERS, 5)?;
    {
        let mut db = Sqlite::open(&base)?;
        db.exec("PRAGMA journal_mode=DELETE;")?;
    }
    (0..n)
        .map(|i| {
            let p = dir.join(format!("ringlite-steady-{i}.db"));
            remove_db(&p);
            std::fs::copy(&base, &p).map_err(|e| e.to_string())?;
            Ok(p)
        })
        .collect()
}

fn cleanup(paths: &[PathBuf]) {
    for p in paths {
        remove_db(p);
    }
    if let Some(d) = paths.first().and_then(|p| p.parent()) {
        remove_db(&d.join("ringlite-steady-base.db"));
    }
}

/// The keys of `reqs` requests: (tenant, keys).
fn requests(n: usize, reqs: usize) -> Vec<(usize, [i64; LOOKUPS])> {
    let mut rng = Rng::new(77);
    (0..reqs)
        .map(|_| {
            let t = rng.below(n as u64) as usize;
            let mut k = [0i64; LOOKUPS];
            for x in &mut k {
                *x = rng.below(USERS) as i64 + 1;
            }
            (t, k)
        })
        .collect()
}

/// One measurement: (process CPU µs/req, thread CPU µs/req, suspensions/req, minor faults/req).
type Cost = (f64, f64, f64, f64);

fn cost(before: (Duration, Duration, i64), reqs: usize, ios: usize) -> Cost {
    let after = snap();
    let per = |d: Duration| d.as_secs_f64() * 1e6 / reqs as f64;
    (per(after.0.saturating_sub(before.0)), per(after.1.saturating_sub(before.1)), ios as f64 / reqs as f64, (after.2 - before.2) as f64 / reqs as f64)
}

fn run_engine<E: Engine>(paths: &[PathBuf], work: &[(usize, [i64; LOOKUPS])]) -> R<Cost> {
    let mut t: Vec<(E, E::Stmt)> = Vec::with_capacity(paths.len());
    for p in paths {
        let mut db = E::open(p)?;
        db.exec(INIT)?;
        let mut w = db.prepare(WARM)?;
        while db.step(&mut w)? {}
        db.finalize(w);
        let s = db.prepare(READ)?;
        t.push((db, s));
    }
    let before = snap();
    for (tenant, keys) in work {
        let (db, s) = &mut t[*tenant];
        for &k in keys {
            db.bind_i64(s, 1, k)?;
            let mut rows = 0;
            while db.step(s)? {
                rows += 1;
            }
            db.reset(s);
            if rows != 1 {
                return Err(format!("{}: {rows} rows for key {k}", E::NAME));
            }
        }
    }
    let c = cost(before, work.len(), 0);
    for (mut db, s) in t {
        db.finalize(s);
    }
    Ok(c)
}

fn step_async(db: &mut Ringlite, s: &mut ringlite::Statement, ios: &mut usize) -> R<bool> {
    loop {
        match s.step(&mut db.conn).map_err(|e| format!("ringlite async step: {e}"))? {
            StepResult::Row => return Ok(true),
            StepResult::Done => return Ok(false),
            StepResult::Io => {
                *ios += 1;
                db.conn.io_poll(-1).map_err(|e| e.to_string())?;
            }
        }
    }
}

fn run_async(paths: &[PathBuf], work: &[(usize, [i64; LOOKUPS])]) -> R<Cost> {
    let mut t: Vec<(Ringlite, ringlite::Statement)> = Vec::with_capacity(paths.len());
    let mut ios = 0;
    for (i, p) in paths.iter().enumerate() {
        let mut db = Ringlite::open_flags(p, OpenFlags::ASYNC)?;
        db.conn.set_io_tag(i + 1);
        for sql in INIT.split(';').map(str::trim).filter(|s| !s.is_empty()).chain([WARM]) {
            let mut s = db.prepare(sql)?;
            while step_async(&mut db, &mut s, &mut ios)? {}
            s.reset(&mut db.conn);
        }
        let s = db.prepare(READ)?;
        t.push((db, s));
    }
    let mut ready = Vec::new();
    ios = 0;
    let before = snap();
    for (tenant, keys) in work {
        let (db, s) = &mut t[*tenant];
        for &k in keys {
            s.bind(1, Value::Integer(k)).map_err(|e| e.to_string())?;
            let mut rows = 0;
            while step_async(db, s, &mut ios)? {
                rows += 1;
            }
            s.reset(&mut db.conn);
            if rows != 1 {
                return Err(format!("ringlite async: {rows} rows for key {k}"));
            }
        }
        // What a scheduler does between turns: ask which tenants are ready.
        ready.clear();
        db.conn.io_ready(&mut ready, usize::MAX);
    }
    let c = cost(before, work.len(), ios);
    for (mut db, mut s) in t {
        s.reset(&mut db.conn);
    }
    Ok(c)
}

/// Run the suite at each tenant count; `only` picks one engine (for
/// profiling: "sqlite", "blocking", "async").
pub fn run(quick: bool, counts: Option<Vec<usize>>, only: Option<&str>, dir: &Path) -> R<String> {
    let counts = counts.filter(|c| !c.is_empty()).unwrap_or_else(|| if quick { vec![4] } else { vec![100, 1000] });
    let reqs = if quick { 200 } else { 20_000 };
    let max = counts.iter().copied().max().unwrap_or(1);
    let paths = files(dir, max)?;
    let mut md = String::new();
    let _ = writeln!(md, "### steady: CPU per request after the tenants are open (one thread, {reqs} requests of {LOOKUPS} cached point lookups)\n");
    let _ = writeln!(md, "| tenants | engine | process CPU µs/req | thread CPU µs/req | vs SQLite (process) | SQLITE_IO per req | minor faults per req |");
    let _ = writeln!(md, "|---:|---|---:|---:|---:|---:|---:|");
    let want = |name: &str| only.is_none_or(|o| name.contains(o));
    for &n in &counts {
        let work = requests(n, reqs);
        let mut base = None;
        let mut rows: Vec<(&str, Cost)> = Vec::new();
        if want("sqlite") {
            let c = run_engine::<Sqlite>(&paths[..n], &work)?;
            base = Some(c.0);
            rows.push(("sqlite", c));
        }
        if want("ringlite blocking") {
            rows.push(("ringlite blocking", run_engine::<Ringlite>(&paths[..n], &work)?));
        }
        if want("ringlite async") {
            rows.push(("ringlite async", run_async(&paths[..n], &work)?));
        }
        for (name, c) in rows {
            let ratio = base.map_or(String::new(), |b| format!("{:.2}x", c.0 / b));
            let _ = writeln!(md, "| {n} | {name} | {:.1} | {:.1} | {ratio} | {:.2} | {:.2} |", c.0, c.1, c.2, c.3);
        }
    }
    cleanup(&paths);
    Ok(md)
}
