//! # The runners of the open-loop suite
//!
//! Each runner serves the same list of requests ([`Req`], sorted by
//! arrival time) on the same tenant files and returns every completed
//! request's latency, counted from its *arrival* (so time spent queued
//! behind other requests counts, as a user sees it) to its last row.
//!
//! - [`async_run`]: ringlite async connections, tenants split over one
//!   thread per core; a thread admits the requests that have arrived,
//!   runs each runnable tenant until its request completes or suspends on
//!   I/O (50 µs quantum), polls its ring, and steps only the tenants
//!   `io_ready` names. With nothing to run it sleeps on `io_fd` (with I/O
//!   in flight) or until the next arrival.
//! - [`tenant_threads`]: real SQLite, one OS thread per tenant, sleeping
//!   until each of its requests arrives.
//! - [`pool`]: real SQLite on a fixed pool of threads taking requests in
//!   arrival order (a FIFO queue); a tenant's connection is used by one
//!   worker at a time.
//!
//! Overload: a request not started by `stop` (an offset from the start)
//! is dropped and counted, so an overloaded configuration ends in bounded
//! time; its percentiles then describe only what it served and the table
//! says so.
//!
//! Invariant: every runner checks each statement's row count; a fast
//! wrong answer fails the run.

use crate::engine::{Engine, Ringlite, Sqlite, R};
use crate::sched::Turns;
use ringlite::value::Value;
use ringlite::{OpenFlags, StepResult};
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Point lookups per read request.
pub const LOOKUPS: usize = 10;
/// A read: one row by primary key.
pub const READ: &str = "SELECT username FROM users WHERE id=?1";
/// A write: one row updated.
pub const WRITE: &str = "UPDATE users SET username=?2 WHERE id=?1";

/// What a request does.
#[derive(Clone, Debug)]
pub enum Kind {
    /// [`LOOKUPS`] point reads.
    Read([i64; LOOKUPS]),
    /// One update.
    Write(i64, String),
    /// The noisy neighbour's full scan ([`SCAN`]); not counted in the
    /// latencies or the dropped requests (the others' are what is judged).
    Scan,
}

/// The noisy neighbour's request: a full scan of its table.
pub const SCAN: &str = "SELECT sum(length(username)) FROM users";

/// The noisy neighbour's request reading its table `passes` times in one
/// statement ([`SCAN`] for 1): a longer single step, the case a quantum
/// inside the engine is for.
pub fn scan_sql(passes: u32) -> String {
    if passes <= 1 {
        return SCAN.to_string();
    }
    format!("WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM k WHERE i<{passes}) SELECT sum(length(username)) FROM k, users")
}

impl Kind {
    /// Whether the request's latency is measured (everything but the
    /// noisy neighbour's scans).
    pub fn counted(&self) -> bool {
        !matches!(self, Kind::Scan)
    }
}

/// One request: when it arrives (offset from the run's start), for whom.
#[derive(Clone, Debug)]
pub struct Req {
    /// Arrival, from the start.
    pub at: Duration,
    /// Tenant index.
    pub tenant: usize,
    /// What it does.
    pub kind: Kind,
}

/// How a run went.
pub struct Outcome {
    /// Latency of every completed request, nanoseconds.
    pub lat: Vec<u64>,
    /// Requests dropped (not started by the stop time).
    pub dropped: usize,
    /// From the start to the last completion.
    pub wall: Duration,
    /// Process CPU time over the run (every thread, kernel workers too).
    pub cpu: Duration,
}

/// Connection settings and what storage the tenants sit on.
#[derive(Clone, Copy, Debug)]
pub struct Storage {
    /// Added to every read and sync, µs (0: plain files).
    pub delay_us: u64,
    /// Pages of cache per connection (negative: KiB, as the pragma).
    pub cache_size: i64,
    /// Read every page at open, so the run starts warm.
    pub warm: bool,
    /// ringlite async: `PRAGMA step_quantum` of every tenant, µs (0:
    /// none, a statement's step runs until it ends or waits for I/O).
    pub step_quantum_us: u64,
    /// Passes over its table of one noisy-neighbour request ([`scan_sql`]).
    pub scan_passes: u32,
    /// Delayed requests the simulated device serves at once (0: no
    /// limit): per scheduler thread for ringlite async (its ring's
    /// `RINGLITE_IO_DELAY` depth), for the whole process for SQLite.
    pub io_depth: u32,
    /// ringlite async: its ring lets waiting requests through first come,
    /// first served instead of tenant by tenant.
    pub io_fifo: bool,
}

impl Storage {
    fn init_sql(&self) -> String {
        format!("PRAGMA cache_size={}; PRAGMA journal_mode=DELETE; PRAGMA synchronous=NORMAL;", self.cache_size)
    }
}

const WARM: &str = "SELECT sum(length(username)) FROM users";

fn process_cpu() -> Duration {
    // SAFETY: getrusage only writes the struct we hand it.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) } != 0 {
        return Duration::ZERO;
    }
    let tv = |t: libc::timeval| Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64);
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

fn sleep_until(t: Instant) {
    let now = Instant::now();
    if t > now {
        std::thread::sleep(t - now);
    }
}

/// Holds threads that have opened their tenants until the common start
/// time is set (or the run is abandoned: `None`).
#[derive(Default)]
struct Gate {
    state: Mutex<(usize, Option<Option<Instant>>)>,
    cv: std::sync::Condvar,
}

impl Gate {
    /// A thread has opened its tenants; wait for the start (`None`: abandoned).
    fn arrive_and_wait(&self) -> Option<Instant> {
        let mut g = self.state.lock().unwrap_or_else(|p| p.into_inner());
        g.0 += 1;
        self.cv.notify_all();
        loop {
            if let Some(s) = g.1 {
                return s;
            }
            g = self.cv.wait(g).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// Wait until `n` threads arrived.
    fn wait_arrived(&self, n: usize) {
        let mut g = self.state.lock().unwrap_or_else(|p| p.into_inner());
        while g.0 < n {
            g = self.cv.wait(g).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// Release the threads, to start at `start`.
    fn release(&self, start: Option<Instant>) {
        let mut g = self.state.lock().unwrap_or_else(|p| p.into_inner());
        g.1 = Some(start);
        self.cv.notify_all();
    }
}

fn join_all(handles: Vec<std::thread::JoinHandle<R<Part>>>) -> R<Vec<Part>> {
    let mut parts = Vec::new();
    let mut err = None;
    for h in handles {
        match h.join().map_err(|_| "a benchmark thread panicked".to_string()).and_then(|r| r) {
            Ok(p) => parts.push(p),
            Err(e) => err = Some(e),
        }
    }
    match err {
        Some(e) => Err(e),
        None => Ok(parts),
    }
}

/// One SQLite tenant: connection and its two statements.
struct SqliteTenant {
    db: Sqlite,
    read: <Sqlite as Engine>::Stmt,
    write: <Sqlite as Engine>::Stmt,
    scan: <Sqlite as Engine>::Stmt,
}

fn open_sqlite(path: &Path, st: Storage) -> R<SqliteTenant> {
    let mut db = if st.delay_us > 0 { Sqlite::open_vfs(path, Some(crate::slowvfs::NAME))? } else { Sqlite::open(path)? };
    db.exec(&st.init_sql())?;
    if st.warm {
        let mut w = db.prepare(WARM)?;
        db.drain(&mut w)?;
        db.finalize(w);
    }
    let read = db.prepare(READ)?;
    let write = db.prepare(WRITE)?;
    let scan = db.prepare(&scan_sql(st.scan_passes))?;
    Ok(SqliteTenant { db, read, write, scan })
}

fn serve_sqlite(t: &mut SqliteTenant, kind: &Kind) -> R<()> {
    match kind {
        Kind::Read(keys) => {
            for &k in keys {
                t.db.bind_i64(&mut t.read, 1, k)?;
                let mut rows = 0;
                while t.db.step(&mut t.read)? {
                    rows += 1;
                }
                t.db.reset(&mut t.read);
                if rows != 1 {
                    return Err(format!("sqlite: {rows} rows for key {k}"));
                }
            }
        }
        Kind::Write(id, name) => {
            t.db.bind_i64(&mut t.write, 1, *id)?;
            t.db.bind_text(&mut t.write, 2, name)?;
            while t.db.step(&mut t.write)? {}
            t.db.reset(&mut t.write);
        }
        Kind::Scan => {
            while t.db.step(&mut t.scan)? {}
            t.db.reset(&mut t.scan);
        }
    }
    Ok(())
}

fn close_sqlite(mut t: SqliteTenant) {
    t.db.finalize(t.read);
    t.db.finalize(t.write);
    t.db.finalize(t.scan);
}

/// Results of one thread: latencies, dropped, last completion.
type Part = (Vec<u64>, usize, Option<Instant>);

fn combine(parts: Vec<Part>, start: Instant, cpu: Duration) -> Outcome {
    let mut lat = Vec::new();
    let mut dropped = 0;
    let mut last = start;
    for (l, d, e) in parts {
        lat.extend(l);
        dropped += d;
        if let Some(e) = e {
            last = last.max(e);
        }
    }
    Outcome { lat, dropped, wall: last.saturating_duration_since(start), cpu }
}

/// SQLite, one thread per tenant.
pub fn tenant_threads(files: &[PathBuf], reqs: &[Req], st: Storage, stop: Duration) -> R<Outcome> {
    let mut per: Vec<Vec<Req>> = vec![Vec::new(); files.len()];
    for r in reqs {
        per[r.tenant].push(r.clone());
    }
    let gate = Arc::new(Gate::default());
    let mut handles = Vec::new();
    let mut spawn_err = None;
    for (path, mine) in files.iter().cloned().zip(per) {
        let gate = gate.clone();
        let h = std::thread::Builder::new().stack_size(256 << 10).spawn(move || -> R<Part> {
            let opened = open_sqlite(&path, st);
            let start = gate.arrive_and_wait().ok_or("abandoned")?;
            let mut t = opened?;
            let (mut lat, mut dropped, mut last) = (Vec::with_capacity(mine.len()), 0, None);
            for r in &mine {
                let arrival = start + r.at;
                sleep_until(arrival);
                if Instant::now() > start + stop {
                    dropped += usize::from(r.kind.counted());
                    continue;
                }
                serve_sqlite(&mut t, &r.kind)?;
                let end = Instant::now();
                if r.kind.counted() {
                    lat.push(end.saturating_duration_since(arrival).as_nanos() as u64);
                    last = Some(end);
                }
            }
            close_sqlite(t);
            Ok((lat, dropped, last))
        });
        match h {
            Ok(h) => handles.push(h),
            Err(e) => {
                spawn_err = Some(format!("the OS refused tenant thread {}: {e}", handles.len()));
                break;
            }
        }
    }
    if let Some(e) = spawn_err {
        gate.wait_arrived(handles.len());
        gate.release(None);
        let _ = join_all(handles);
        return Err(e);
    }
    gate.wait_arrived(handles.len());
    let cpu0 = process_cpu();
    let start = Instant::now() + Duration::from_millis(5);
    gate.release(Some(start));
    let parts = join_all(handles)?;
    Ok(combine(parts, start, process_cpu().saturating_sub(cpu0)))
}

/// SQLite on `threads` workers taking requests in arrival order.
pub fn pool(files: &[PathBuf], reqs: &[Req], st: Storage, stop: Duration, threads: usize) -> R<Outcome> {
    let tenants: Vec<Mutex<SqliteTenant>> = files.iter().map(|p| open_sqlite(p, st).map(Mutex::new)).collect::<R<_>>()?;
    let tenants = Arc::new(tenants);
    let reqs: Arc<Vec<Req>> = Arc::new(reqs.to_vec());
    let next = Arc::new(AtomicUsize::new(0));
    let cpu0 = process_cpu();
    let start = Instant::now() + Duration::from_millis(5);
    let handles: Vec<_> = (0..threads)
        .map(|_| {
            let (tenants, reqs, next) = (tenants.clone(), reqs.clone(), next.clone());
            std::thread::spawn(move || -> R<Part> {
                let (mut lat, mut dropped, mut last) = (Vec::new(), 0, None);
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(r) = reqs.get(i) else { break };
                    let arrival = start + r.at;
                    sleep_until(arrival);
                    if Instant::now() > start + stop {
                        dropped += usize::from(r.kind.counted());
                        continue;
                    }
                    let mut t = tenants[r.tenant].lock().map_err(|_| "tenant lock poisoned")?;
                    serve_sqlite(&mut t, &r.kind)?;
                    drop(t);
                    let end = Instant::now();
                    if r.kind.counted() {
                        lat.push(end.saturating_duration_since(arrival).as_nanos() as u64);
                        last = Some(end);
                    }
                }
                Ok((lat, dropped, last))
            })
        })
        .collect();
    let parts = join_all(handles);
    let cpu = process_cpu().saturating_sub(cpu0);
    if let Ok(tenants) = Arc::try_unwrap(tenants) {
        for t in tenants {
            if let Ok(t) = t.into_inner() {
                close_sqlite(t);
            }
        }
    }
    Ok(combine(parts?, start, cpu))
}

/// A ringlite async tenant.
struct AsyncTenant {
    db: Ringlite,
    read: ringlite::Statement,
    write: ringlite::Statement,
    scan: ringlite::Statement,
    /// Indexes (into the thread's requests) arrived and not finished; the
    /// front one is in progress.
    queue: VecDeque<usize>,
    /// Progress of the front request: lookups done, rows of the current
    /// statement, whether its parameters are bound.
    sub: usize,
    rows: usize,
    bound: bool,
}

/// Sets `RINGLITE_IO_DELAY` for the duration (async connections pick
/// their backend when opened).
struct DelayEnv(bool);

impl DelayEnv {
    fn set(st: Storage) -> DelayEnv {
        let us = st.delay_us;
        if us == 0 {
            return DelayEnv(false);
        }
        let queue = if st.io_depth == 0 { String::new() } else { format!(",{},{}", st.io_depth, if st.io_fifo { "fifo" } else { "fair" }) };
        // Set before the scheduler threads start; removed after they end.
        std::env::set_var("RINGLITE_IO_DELAY", format!("{us},{us}{queue}"));
        DelayEnv(true)
    }
}

impl Drop for DelayEnv {
    fn drop(&mut self) {
        if self.0 {
            std::env::remove_var("RINGLITE_IO_DELAY");
        }
    }
}

fn open_async(path: &Path, st: Storage) -> R<AsyncTenant> {
    let mut db = Ringlite::open_flags(path, OpenFlags::ASYNC)?;
    let mut sqls: Vec<String> = st.init_sql().split(';').map(str::trim).filter(|s| !s.is_empty()).map(String::from).collect();
    if st.warm {
        sqls.push(WARM.into());
    }
    if st.step_quantum_us > 0 {
        sqls.push(format!("PRAGMA step_quantum={}", st.step_quantum_us));
    }
    for sql in &sqls {
        let mut s = db.prepare(sql)?;
        loop {
            match s.step(&mut db.conn).map_err(|e| format!("ringlite async {sql:?}: {e}"))? {
                StepResult::Row => {}
                StepResult::Done => break,
                StepResult::Io => {
                    db.conn.io_poll(-1).map_err(|e| e.to_string())?;
                }
            }
        }
        s.reset(&mut db.conn);
    }
    let read = db.prepare(READ)?;
    let write = db.prepare(WRITE)?;
    let scan = db.prepare(&scan_sql(st.scan_passes))?;
    Ok(AsyncTenant { db, read, write, scan, queue: VecDeque::new(), sub: 0, rows: 0, bound: false })
}

/// How a turn ended.
enum End {
    /// The front request completed (the tenant may have more).
    Completed,
    /// The quantum passed mid-request.
    Preempted,
    /// A step needs I/O.
    Io,
}

/// Run the front request of `t` until it completes, suspends or the
/// quantum passes.
fn turn(t: &mut AsyncTenant, kind: &Kind, quantum: Option<Duration>) -> R<End> {
    let began = Instant::now();
    let mut steps = 0u32;
    loop {
        let (st, lookups) = match kind {
            Kind::Read(_) => (&mut t.read, LOOKUPS),
            Kind::Write(..) => (&mut t.write, 1),
            Kind::Scan => (&mut t.scan, 1),
        };
        if !t.bound {
            match kind {
                Kind::Read(keys) => st.bind(1, Value::Integer(keys[t.sub])),
                Kind::Write(id, name) => st.bind(1, Value::Integer(*id)).and_then(|()| st.bind(2, Value::text(name.as_str()))),
                Kind::Scan => Ok(()),
            }
            .map_err(|e| e.to_string())?;
            t.bound = true;
        }
        match st.step(&mut t.db.conn).map_err(|e| format!("ringlite async step: {e}"))? {
            StepResult::Io => return Ok(End::Io),
            StepResult::Row => t.rows += 1,
            StepResult::Done => {
                st.reset(&mut t.db.conn);
                let want = usize::from(!matches!(kind, Kind::Write(..)));
                if t.rows != want {
                    return Err(format!("ringlite async: {} rows instead of {want}", t.rows));
                }
                t.rows = 0;
                t.bound = false;
                t.sub += 1;
                if t.sub == lookups {
                    t.sub = 0;
                    return Ok(End::Completed);
                }
            }
        }
        steps += 1;
        if quantum.is_some_and(|q| steps.is_multiple_of(8) && began.elapsed() >= q) {
            return Ok(End::Preempted);
        }
    }
}

/// Sleep until `fd` is readable or `until` (nanosecond timeout).
fn wait_fd(fd: i32, until: Instant) {
    let d = until.saturating_duration_since(Instant::now());
    let ts = libc::timespec { tv_sec: d.as_secs() as libc::time_t, tv_nsec: d.subsec_nanos() as libc::c_long };
    let mut p = libc::pollfd { fd, events: libc::POLLIN, revents: 0 };
    // SAFETY: one valid pollfd and timespec for the duration of the call.
    unsafe {
        libc::ppoll(&mut p, 1, &ts, std::ptr::null());
    }
}

/// One scheduler thread: its tenants and their requests.
fn async_thread(tenants: &mut [AsyncTenant], reqs: &[Req], local: &[usize], start: Instant, stop: Duration, turns: Turns) -> R<Part> {
    let quantum = match turns {
        Turns::UntilIo { quantum } => quantum,
        Turns::Paper => return Err("the open-loop suite runs the default scheduler only".into()),
    };
    for (i, t) in tenants.iter().enumerate() {
        t.db.conn.set_io_tag(i + 1);
    }
    let fd = tenants.first().and_then(|t| t.db.conn.io_fd());
    let (mut lat, mut dropped, mut last) = (Vec::with_capacity(reqs.len()), 0usize, None);
    let mut runnable: VecDeque<usize> = VecDeque::new();
    let mut suspended = vec![false; tenants.len()];
    let mut waiting = 0usize;
    let mut ready = Vec::new();
    let mut next = 0usize;
    let stop_at = start + stop;
    sleep_until(start);
    loop {
        // Admit what has arrived.
        let now = Instant::now();
        while next < reqs.len() && start + reqs[next].at <= now {
            let j = local[reqs[next].tenant];
            let t = &mut tenants[j];
            if now > stop_at {
                dropped += usize::from(reqs[next].kind.counted());
            } else {
                if t.queue.is_empty() {
                    runnable.push_back(j);
                }
                t.queue.push_back(next);
            }
            next += 1;
        }
        for _ in 0..runnable.len() {
            let Some(j) = runnable.pop_front() else { break };
            let t = &mut tenants[j];
            let Some(&ri) = t.queue.front() else { continue };
            match turn(t, &reqs[ri].kind, quantum)? {
                End::Completed => {
                    let end = Instant::now();
                    if reqs[ri].kind.counted() {
                        lat.push(end.saturating_duration_since(start + reqs[ri].at).as_nanos() as u64);
                        last = Some(end);
                    }
                    t.queue.pop_front();
                    if end > stop_at {
                        // Requests queued behind it have not started.
                        dropped += t.queue.iter().filter(|&&q| reqs[q].kind.counted()).count();
                        t.queue.clear();
                    }
                    if !t.queue.is_empty() {
                        runnable.push_back(j);
                    }
                }
                End::Preempted => runnable.push_back(j),
                End::Io => {
                    suspended[j] = true;
                    waiting += 1;
                }
            }
        }
        if waiting > 0 {
            let conn = &tenants[0].db.conn;
            // Submit, reap, and take what is ready (tenants whose I/O
            // finished, or whose step was cut by its quantum: those are
            // ready at once) before deciding to sleep.
            conn.io_poll(0).map_err(|e| format!("io_poll: {e}"))?;
            take_ready(conn, &mut ready, &mut suspended, &mut waiting, &mut runnable);
            if runnable.is_empty() && waiting > 0 {
                let until = reqs.get(next).map_or(Instant::now() + Duration::from_millis(50), |r| start + r.at);
                match fd {
                    Some(fd) => wait_fd(fd, until),
                    None => std::thread::sleep(Duration::from_micros(20)),
                }
                conn.io_poll(0).map_err(|e| format!("io_poll: {e}"))?;
                take_ready(conn, &mut ready, &mut suspended, &mut waiting, &mut runnable);
            }
        } else if runnable.is_empty() {
            match reqs.get(next) {
                Some(r) => sleep_until(start + r.at),
                None => break,
            }
        }
    }
    Ok((lat, dropped, last))
}

/// Move the suspended tenants `io_ready` names to the back of `runnable`.
fn take_ready(conn: &ringlite::Connection, ready: &mut Vec<usize>, suspended: &mut [bool], waiting: &mut usize, runnable: &mut VecDeque<usize>) {
    ready.clear();
    conn.io_ready(ready, usize::MAX);
    for &tag in ready.iter() {
        let j = tag - 1;
        if std::mem::take(&mut suspended[j]) {
            *waiting -= 1;
            runnable.push_back(j);
        }
    }
}

/// ringlite async, tenants over `threads` scheduler threads.
pub fn async_run(files: &[PathBuf], reqs: &[Req], st: Storage, stop: Duration, threads: usize, turns: Turns) -> R<Outcome> {
    let threads = threads.clamp(1, files.len().max(1));
    let _env = DelayEnv::set(st);
    // Tenant i runs on thread i % threads, as local tenant i / threads.
    let mut mine: Vec<Vec<Req>> = vec![Vec::new(); threads];
    for r in reqs {
        mine[r.tenant % threads].push(r.clone());
    }
    let gate = Arc::new(Gate::default());
    let handles: Vec<_> = mine
        .into_iter()
        .enumerate()
        .map(|(k, reqs)| {
            let paths: Vec<PathBuf> = files.iter().skip(k).step_by(threads).cloned().collect();
            let gate = gate.clone();
            std::thread::spawn(move || -> R<Part> {
                let opened: R<Vec<AsyncTenant>> = paths.iter().map(|p| open_async(p, st)).collect();
                let start = gate.arrive_and_wait().ok_or("abandoned")?;
                let mut tenants = opened?;
                let local: Vec<usize> = (0..threads * (tenants.len() + 1)).map(|i| i / threads).collect();
                let r = async_thread(&mut tenants, &reqs, &local, start, stop, turns);
                for mut t in tenants {
                    t.read.reset(&mut t.db.conn);
                    t.write.reset(&mut t.db.conn);
                    t.scan.reset(&mut t.db.conn);
                }
                r
            })
        })
        .collect();
    gate.wait_arrived(handles.len());
    let cpu0 = process_cpu();
    let start = Instant::now() + Duration::from_millis(5);
    gate.release(Some(start));
    let parts = join_all(handles)?;
    Ok(combine(parts, start, process_cpu().saturating_sub(cpu0)))
}
