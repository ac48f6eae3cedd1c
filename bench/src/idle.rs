//! # Suite `idle`: what an idle tenant costs
//!
//! A runtime keeps many tenants' databases open while few of them are
//! busy, so the bytes an open, idle connection holds and the time to open
//! a tenant's database and answer its first query decide how many tenants
//! fit on a machine. For each engine: N tenants (each its own copy of a
//! `users` database of 2,000 rows, 30 pages), opened on one thread, each
//! running one point query (`SELECT username FROM users WHERE id=?`) on a
//! cold engine cache; then kept open, idle.
//!
//! Reported: heap bytes per idle tenant (growth of the C heap, where
//! SQLite allocates, plus the Rust heap, counted by [`crate::heap`], over
//! the N opens, divided by N), with `cache_size=10` pages (a runtime's
//! small per-tenant budget) and, for SQLite, also with the default cache
//! after `sqlite3_db_release_memory`; and open + first query time per
//! tenant (the files are in the OS page cache: this is CPU, not disk).
//! ringlite is measured with blocking and with async connections (the
//! runtime's case; they share the thread's ring).

use crate::data::remove_db;
use crate::engine::{Engine, Ringlite, Sqlite, R};
use ringlite::{OpenFlags, StepResult};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const QUERY: &str = "SELECT username FROM users WHERE id=?1";
const USERS: u64 = 2000;

fn c_heap_in_use() -> i64 {
    // SAFETY: mallinfo2 only reads the allocator's statistics.
    let mi = unsafe { libc::mallinfo2() };
    (mi.uordblks + mi.hblkhd) as i64
}

fn files(dir: &Path, n: usize) -> R<Vec<PathBuf>> {
    let base = dir.join("idle-base.db");
    crate::data::build_users_base(&base, USERS, 3)?;
    (0..n)
        .map(|i| {
            let p = dir.join(format!("idle-{i}.db"));
            remove_db(&p);
            std::fs::copy(&base, &p).map_err(|e| e.to_string())?;
            Ok(p)
        })
        .collect()
}

/// One engine configuration: open every file, set the cache, run the
/// first query; returns (bytes per tenant, time per tenant).
fn measure<T>(paths: &[PathBuf], mut open_and_query: impl FnMut(&Path, u64) -> R<T>, after: impl Fn(&mut T)) -> R<(i64, Duration)> {
    let before = c_heap_in_use();
    let t0 = Instant::now();
    let (conns, rust) = crate::heap::counting(|| -> R<Vec<T>> {
        let mut v = Vec::with_capacity(paths.len());
        for (i, p) in paths.iter().enumerate() {
            let mut c = open_and_query(p, i as u64 % USERS + 1)?;
            after(&mut c);
            v.push(c);
        }
        Ok(v)
    });
    let elapsed = t0.elapsed();
    let conns = conns?;
    let bytes = c_heap_in_use() - before + rust;
    drop(conns);
    let n = paths.len().max(1);
    Ok((bytes / n as i64, elapsed / n as u32))
}

fn sqlite_tenant(p: &Path, id: u64, cache: &str) -> R<Sqlite> {
    let mut db = Sqlite::open(p)?;
    db.exec(&format!("PRAGMA cache_size={cache};"))?;
    let mut s = db.prepare(QUERY)?;
    db.bind_i64(&mut s, 1, id as i64)?;
    let mut rows = 0;
    while db.step(&mut s)? {
        rows += 1;
    }
    db.finalize(s);
    if rows != 1 {
        return Err(format!("sqlite: {rows} rows"));
    }
    Ok(db)
}

/// A full scan of a tenant's table: every page of it through the cache.
const SCAN: &str = "SELECT sum(length(username)) FROM users";

fn sqlite_scanned(p: &Path, id: u64) -> R<Sqlite> {
    let mut db = sqlite_tenant(p, id, "-2000")?;
    let mut s = db.prepare(SCAN)?;
    db.drain(&mut s)?;
    db.finalize(s);
    Ok(db)
}

fn ringlite_tenant(p: &Path, id: u64, cache: &str, flags: i32) -> R<Ringlite> {
    ringlite_tenant_then(p, id, cache, flags, None)
}

fn ringlite_tenant_then(p: &Path, id: u64, cache: &str, flags: i32, then: Option<&str>) -> R<Ringlite> {
    let mut db = Ringlite::open_flags(p, flags)?;
    for sql in [format!("PRAGMA cache_size={cache}"), format!("SELECT username FROM users WHERE id={id}")].into_iter().chain(then.map(String::from)) {
        let mut s = db.prepare(&sql)?;
        let mut rows = 0;
        loop {
            match s.step(&mut db.conn).map_err(|e| e.to_string())? {
                StepResult::Row => rows += 1,
                StepResult::Done => break,
                StepResult::Io => {
                    db.conn.io_poll(-1).map_err(|e| e.to_string())?;
                }
            }
        }
        s.reset(&mut db.conn);
        if sql.starts_with("SELECT") && rows != 1 {
            return Err(format!("ringlite: {rows} rows"));
        }
    }
    Ok(db)
}

/// Cost of one scheduler wakeup (`io_poll(0)` then `io_ready`) on a
/// thread with `k` idle async tenants open (each ran a query, so each was
/// on the ready list once and was taken off): nanoseconds per wakeup,
/// the best batch's.
fn poll_cost(paths: &[PathBuf], k: usize) -> R<f64> {
    let tenants: Vec<Ringlite> =
        paths[..k.min(paths.len())].iter().enumerate().map(|(i, p)| ringlite_tenant(p, i as u64 % USERS + 1, "10", OpenFlags::ASYNC)).collect::<R<_>>()?;
    for (i, t) in tenants.iter().enumerate() {
        t.conn.set_io_tag(i + 1);
    }
    let conn = &tenants[0].conn;
    let mut ready = Vec::new();
    conn.io_ready(&mut ready, usize::MAX);
    // The best of 20 batches: on a shared machine one preemption of the
    // thread (milliseconds) would otherwise dominate a batch's nanoseconds.
    const ROUNDS: u32 = 2_000;
    let mut per = f64::INFINITY;
    for _ in 0..20 {
        let t0 = Instant::now();
        for _ in 0..ROUNDS {
            conn.io_poll(0).map_err(|e| e.to_string())?;
            ready.clear();
            conn.io_ready(&mut ready, usize::MAX);
        }
        per = per.min(t0.elapsed().as_nanos() as f64 / f64::from(ROUNDS));
    }
    if !ready.is_empty() {
        return Err(format!("{} idle tenants reported ready", ready.len()));
    }
    Ok(per)
}

/// Run the suite (Markdown).
pub fn run(quick: bool, counts: Option<Vec<usize>>, dir: &Path) -> R<String> {
    let n = counts.and_then(|c| c.into_iter().max()).unwrap_or(if quick { 20 } else { 1000 });
    let paths = files(dir, n)?;
    let mut md = String::new();
    let _ = writeln!(md, "### idle: {n} tenants open on one thread after one cold point query each\n");
    let _ = writeln!(md, "| engine | cache | heap per idle tenant | open + first query per tenant |");
    let _ = writeln!(md, "|---|---|---:|---:|");
    let mut row = |engine: &str, cache: &str, r: R<(i64, Duration)>| match r {
        Ok((b, t)) => {
            let _ = writeln!(md, "| {engine} | {cache} | {:.1} KiB | {:.0} µs |", b as f64 / 1024.0, t.as_secs_f64() * 1e6);
        }
        Err(e) => {
            let _ = writeln!(md, "| {engine} | {cache} | {e} | |");
        }
    };
    // A discarded round first: the first opens of a process pay one-time
    // costs (allocator arenas, SQLite's initialization).
    let _ = measure(&paths, |p, id| sqlite_tenant(p, id, "10"), |_| {});
    let _ = measure(&paths, |p, id| ringlite_tenant(p, id, "10", OpenFlags::ASYNC), |_| {});
    row("sqlite", "cache_size=10", measure(&paths, |p, id| sqlite_tenant(p, id, "10"), |_| {}));
    row("sqlite", "default, then sqlite3_db_release_memory", measure(&paths, |p, id| sqlite_tenant(p, id, "-2000"), |db| db.release_memory()));
    row("ringlite blocking", "cache_size=10", measure(&paths, |p, id| ringlite_tenant(p, id, "10", 0), |_| {}));
    row("ringlite async", "cache_size=10", measure(&paths, |p, id| ringlite_tenant(p, id, "10", OpenFlags::ASYNC), |_| {}));
    row(
        "ringlite async",
        "default, then release_memory",
        measure(
            &paths,
            |p, id| ringlite_tenant(p, id, "-2000", OpenFlags::ASYNC),
            |db| {
                db.conn.release_memory();
            },
        ),
    );
    // Each tenant also scanned its whole table (30 pages) with the default
    // cache: what its cache keeps, without and with a budget shared by
    // every connection of the process (ringlite: page caches only,
    // `ringlite::pager::cache::set_budget`, what `sqlite3_soft_heap_limit64`
    // sets; SQLite's soft heap limit counts all of its memory).
    let budget: usize = 16 << 20;
    row("sqlite", "default, full scan", measure(&paths, sqlite_scanned, |_| {}));
    // SAFETY: sets a process-wide number; no connection is being used.
    unsafe { libsqlite3_sys::sqlite3_soft_heap_limit64(budget as i64) };
    row("sqlite", &format!("default, full scan, soft heap limit {} MiB", budget >> 20), measure(&paths, sqlite_scanned, |_| {}));
    // SAFETY: as above.
    unsafe { libsqlite3_sys::sqlite3_soft_heap_limit64(0) };
    let scanned = |p: &Path, id: u64| ringlite_tenant_then(p, id, "-2000", OpenFlags::ASYNC, Some(SCAN));
    row("ringlite async", "default, full scan", measure(&paths, scanned, |_| {}));
    ringlite::pager::cache::set_budget(budget);
    let peak = std::cell::Cell::new(0usize);
    let r = measure(&paths, scanned, |_| peak.set(peak.get().max(ringlite::pager::cache::held_bytes())));
    let held = peak.get();
    ringlite::pager::cache::set_budget(0);
    row("ringlite async", &format!("default, full scan, page budget {} MiB (pages held at most: {} KiB)", budget >> 20, held >> 10), r);
    let small = 10.min(n);
    let (a, b) = (poll_cost(&paths, small), poll_cost(&paths, n));
    match (a, b) {
        (Ok(a), Ok(b)) => {
            let _ = writeln!(
                md,
                "\nA scheduler wakeup (`io_poll(0)` + `io_ready`, nothing finished) on a thread with {small} idle async tenants: {a:.0} ns; with {n}: {b:.0} ns."
            );
        }
        (a, b) => {
            let _ = writeln!(md, "\nwakeup cost: {:?} / {:?}", a.err(), b.err());
        }
    }
    Ok(md)
}
