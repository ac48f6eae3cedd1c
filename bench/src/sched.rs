//! # Running many tenants: threads versus one async scheduler
//!
//! The `tenants` and `slow` suites share this: every tenant owns one
//! database file and runs a fixed plan of operations (a prepared
//! statement, its bindings, the number of rows it must return). Each
//! operation's latency, from its first step to its last, goes into an
//! `hdrhistogram`; so it includes time spent waiting for a core or for
//! storage, which is the point.
//!
//! Two ways to run the same plans:
//! - [`threads`]: one OS thread per tenant, blocking engine calls (real
//!   SQLite, or ringlite without `ASYNC`);
//! - [`async_tenants`]: ringlite connections opened with `OpenFlags::ASYNC`,
//!   all tenants as state machines over a few threads, turns as [`Turns`]
//!   says:
//!   - [`Turns::UntilIo`] (the default): a tenant's turn runs its
//!     operation until it completes or a step returns `StepResult::Io`
//!     (or, with a quantum, until the quantum has passed: a long scan
//!     then lets the others run). A suspended tenant is stepped again
//!     only once `Connection::io_ready` (`sqlite3_io_ready`) names it, so
//!     a pass costs the tenants that can run, not every tenant.
//!   - [`Turns::Paper`]: the seed paper's configuration, kept for
//!     comparison: at most [`STEPS_PER_TURN`] steps per turn, and every
//!     unfinished tenant is stepped on every pass, waiting or not.
//!
//!   After a pass the thread polls its I/O ring: without waiting if some
//!   tenant could go on, blocking until a completion if all wait for I/O.
//!
//! Invariant: the tenants of one scheduler thread were all opened on that
//! thread, so they share its ring (see `ringlite::io::select`) and one
//! `io_poll` serves them all.

use crate::engine::{Engine, Ringlite, R};
use hdrhistogram::Histogram;
use ringlite::value::Value;
use ringlite::{OpenFlags, StepResult};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

/// Steps a tenant may run per scheduler turn (the seed paper's ten).
pub const STEPS_PER_TURN: usize = 10;

/// How the async scheduler shares a thread between its tenants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Turns {
    /// The seed paper's: [`STEPS_PER_TURN`] steps per turn, every tenant
    /// stepped on every pass.
    Paper,
    /// Until the operation completes or suspends on I/O, or the quantum
    /// (if any) has passed; suspended tenants wait for `io_ready`.
    UntilIo {
        /// Longest turn of a tenant whose statement keeps producing rows.
        quantum: Option<Duration>,
    },
}

impl Turns {
    /// The default: no step limit, a 50 µs quantum.
    pub const DEFAULT: Turns = Turns::UntilIo { quantum: Some(Duration::from_micros(50)) };
}

/// A value bound to a statement parameter.
#[derive(Debug, Clone)]
pub enum Bind {
    /// An integer.
    Int(i64),
    /// Text.
    Text(String),
}

/// One operation of a tenant's plan.
#[derive(Debug, Clone)]
pub struct Op {
    /// Index into the suite's statement list.
    pub stmt: usize,
    /// Parameters 1, 2, ...
    pub binds: Vec<Bind>,
    /// Rows the operation must return (checked: a fast wrong answer is
    /// not a result).
    pub rows: usize,
}

/// What a run produced: every operation's latency (ns) and the wall time
/// from the common start to the last tenant's end.
pub struct Run {
    /// Latency per operation, nanoseconds.
    pub hist: Histogram<u64>,
    /// Wall time of the whole run.
    pub wall: Duration,
    /// Operations done.
    pub ops: u64,
    /// Async runs: CPU time of the scheduler threads (user + system) over
    /// their wall time, summed over threads: 1.0 means one core fully
    /// busy, so the run was bound by CPU, not by storage.
    pub cpu_busy: Option<f64>,
    /// Async runs: time the scheduler threads were runnable but waiting
    /// for a CPU (Linux schedstat run delay) over their wall time, summed:
    /// how much a loaded machine starved them.
    pub cpu_wait: Option<f64>,
    /// CPU time the run's work used, all of its threads: thread-per-tenant
    /// runs sum each tenant thread's CPU from its first operation to its
    /// last; async runs take the process's CPU over the scheduling (the
    /// scheduler threads plus the kernel's io_uring workers, which run the
    /// offloaded requests). On a loaded machine throughput follows the CPU
    /// share a configuration gets; CPU per operation does not.
    pub cpu: Option<Duration>,
}

impl Run {
    /// p50, p90, p99, p99.9 in microseconds.
    pub fn percentiles(&self) -> [f64; 4] {
        [50.0, 90.0, 99.0, 99.9].map(|q| self.hist.value_at_quantile(q / 100.0) as f64 / 1000.0)
    }

    /// CPU microseconds per operation (see [`Run::cpu`]).
    pub fn cpu_us_per_op(&self) -> Option<f64> {
        self.cpu.map(|c| c.as_secs_f64() * 1e6 / self.ops.max(1) as f64)
    }

    /// Operations per second over the wall time.
    pub fn throughput(&self) -> f64 {
        self.ops as f64 / self.wall.as_secs_f64().max(1e-9)
    }
}

/// What every tenant connection does before its plan: settings SQL, and
/// the statements the plan's ops index.
#[derive(Clone)]
pub struct Setup {
    /// Run once per connection after opening (pragmas).
    pub init: &'static str,
    /// The statements, prepared once per connection.
    pub stmts: Vec<&'static str>,
}

fn new_hist() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 3_600_000_000_000, 3).expect("valid histogram bounds")
}

/// One thread's share of a run: its histogram, start, end, operations,
/// CPU time.
type Part = (Histogram<u64>, Instant, Instant, u64, Duration);

fn merge(parts: Vec<Part>) -> R<Run> {
    let mut hist = new_hist();
    let (mut start, mut end, mut ops, mut cpu) = (None::<Instant>, None::<Instant>, 0, Duration::ZERO);
    for (h, s, e, n, c) in parts {
        cpu += c;
        hist.add(&h).map_err(|e| e.to_string())?;
        start = Some(start.map_or(s, |x| x.min(s)));
        end = Some(end.map_or(e, |x| x.max(e)));
        ops += n;
    }
    let wall = match (start, end) {
        (Some(s), Some(e)) => e.saturating_duration_since(s),
        _ => Duration::ZERO,
    };
    Ok(Run { hist, wall, ops, cpu_busy: None, cpu_wait: None, cpu: Some(cpu) })
}

/// Time the calling thread has spent runnable but not running (the
/// second field of `/proc/thread-self/schedstat`); zero if unavailable.
fn thread_run_delay() -> Duration {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1).and_then(|n| n.parse::<u64>().ok()))
        .map_or(Duration::ZERO, Duration::from_nanos)
}

/// CPU time (user + system) the calling thread has used so far.
fn thread_cpu() -> Duration {
    rusage_cpu(libc::RUSAGE_THREAD)
}

/// CPU time (user + system) of the whole process (every thread) so far.
fn process_cpu() -> Duration {
    rusage_cpu(libc::RUSAGE_SELF)
}

fn rusage_cpu(who: libc::c_int) -> Duration {
    // SAFETY: getrusage only writes the struct we hand it.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(who, &mut ru) } != 0 {
        return Duration::ZERO;
    }
    let tv = |t: libc::timeval| Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64);
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

/// One thread per tenant; `open` opens a tenant's file with engine `E`.
pub fn threads<E, F>(files: &[PathBuf], setup: &Setup, plans: Vec<Vec<Op>>, open: F) -> R<Run>
where
    E: Engine + 'static,
    F: Fn(&Path) -> R<E> + Send + Sync + Clone + 'static,
{
    let barrier = Arc::new(Barrier::new(files.len()));
    let handles: Vec<_> = files
        .iter()
        .cloned()
        .zip(plans)
        .map(|(path, plan)| {
            let (barrier, setup, open) = (barrier.clone(), setup.clone(), open.clone());
            std::thread::spawn(move || -> R<Part> {
                let opened = open(&path).and_then(|mut db| {
                    db.exec(setup.init)?;
                    let stmts = setup.stmts.iter().map(|s| db.prepare(s)).collect::<R<Vec<_>>>()?;
                    Ok((db, stmts))
                });
                // Wait even on failure, or the other threads never start.
                barrier.wait();
                let (mut db, mut stmts) = opened?;
                let mut h = new_hist();
                let cpu0 = thread_cpu();
                let start = Instant::now();
                for op in &plan {
                    let t = Instant::now();
                    let st = &mut stmts[op.stmt];
                    for (i, b) in op.binds.iter().enumerate() {
                        match b {
                            Bind::Int(v) => db.bind_i64(st, i + 1, *v)?,
                            Bind::Text(v) => db.bind_text(st, i + 1, v)?,
                        }
                    }
                    let mut rows = 0;
                    while db.step(st)? {
                        rows += 1;
                    }
                    db.reset(st);
                    h.saturating_record(t.elapsed().as_nanos() as u64);
                    if rows != op.rows {
                        return Err(format!("{}: {rows} rows instead of {}", E::NAME, op.rows));
                    }
                }
                let end = Instant::now();
                let cpu = thread_cpu().saturating_sub(cpu0);
                for st in stmts {
                    db.finalize(st);
                }
                Ok((h, start, end, plan.len() as u64, cpu))
            })
        })
        .collect();
    let mut parts = Vec::new();
    for h in handles {
        parts.push(h.join().map_err(|_| "tenant thread panicked".to_string())??);
    }
    merge(parts)
}

/// One tenant of the async scheduler.
struct Tenant {
    db: Ringlite,
    stmts: Vec<ringlite::Statement>,
    plan: Vec<Op>,
    next: usize,
    rows: usize,
    started: Option<Instant>,
}

/// How a tenant's turn ended.
#[derive(PartialEq, Eq)]
enum TurnEnd {
    /// It used its steps or finished an operation: it can go on.
    Ready,
    /// A step needs I/O.
    Io,
}

/// All tenants as state machines over `threads` threads (tenant `i` on
/// thread `i % threads`), with async ringlite connections.
pub fn async_tenants(files: &[PathBuf], setup: &Setup, plans: Vec<Vec<Op>>, threads: usize, turns: Turns) -> R<Run> {
    let threads = threads.clamp(1, files.len().max(1));
    let mut per_thread: Vec<Vec<(PathBuf, Vec<Op>)>> = (0..threads).map(|_| Vec::new()).collect();
    for (i, (f, p)) in files.iter().cloned().zip(plans).enumerate() {
        per_thread[i % threads].push((f, p));
    }
    let barrier = Arc::new(Barrier::new(threads));
    let handles: Vec<_> = per_thread
        .into_iter()
        .map(|mine| {
            let (barrier, setup) = (barrier.clone(), setup.clone());
            let named = std::thread::Builder::new().name("async-sched".into());
            named.spawn(move || -> R<(Part, Duration, Duration)> {
                // (With several scheduler threads each would count the
                // others' CPU too: the process figure is for one.)
                let opened = open_async(mine, &setup);
                barrier.wait();
                let mut tenants = opened?;
                let ops: u64 = tenants.iter().map(|t| t.plan.len() as u64).sum();
                let mut h = new_hist();
                let cpu0 = thread_cpu();
                let process0 = process_cpu();
                let wait0 = thread_run_delay();
                let start = Instant::now();
                let result = match turns {
                    Turns::Paper => schedule(&mut tenants, &mut h),
                    Turns::UntilIo { quantum } => schedule_ready(&mut tenants, &mut h, quantum),
                };
                let end = Instant::now();
                let cpu = thread_cpu().saturating_sub(cpu0);
                let process = process_cpu().saturating_sub(process0);
                let starved = thread_run_delay().saturating_sub(wait0);
                for mut t in tenants {
                    for st in &mut t.stmts {
                        st.reset(&mut t.db.conn);
                    }
                }
                result?;
                Ok(((h, start, end, ops, process), cpu, starved))
            })
        })
        .collect::<std::io::Result<Vec<_>>>()
        .map_err(|e| format!("spawning a scheduler thread: {e}"))?;
    let mut parts = Vec::new();
    let (mut cpu, mut starved) = (Duration::ZERO, Duration::ZERO);
    for h in handles {
        let (part, c, w) = h.join().map_err(|_| "scheduler thread panicked".to_string())??;
        parts.push(part);
        cpu += c;
        starved += w;
    }
    let mut run = merge(parts)?;
    run.cpu_busy = Some(cpu.as_secs_f64() / run.wall.as_secs_f64().max(1e-9));
    run.cpu_wait = Some(starved.as_secs_f64() / run.wall.as_secs_f64().max(1e-9));
    Ok(run)
}

fn open_async(mine: Vec<(PathBuf, Vec<Op>)>, setup: &Setup) -> R<Vec<Tenant>> {
    let mut tenants = Vec::new();
    for (path, plan) in mine {
        let mut db = Ringlite::open_flags(&path, OpenFlags::ASYNC)?;
        // Settings run to completion (polling) before the timed part.
        let mut rest = setup.init.trim();
        while !rest.is_empty() {
            let (one, tail) = rest.split_once(';').unwrap_or((rest, ""));
            rest = tail.trim();
            if one.trim().is_empty() {
                continue;
            }
            let mut st = db.prepare(one)?;
            loop {
                match st.step(&mut db.conn).map_err(|e| format!("ringlite async {one:?}: {e}"))? {
                    StepResult::Row => {}
                    StepResult::Done => break,
                    StepResult::Io => {
                        db.conn.io_poll(-1).map_err(|e| e.to_string())?;
                    }
                }
            }
            st.reset(&mut db.conn);
        }
        let stmts = setup.stmts.iter().map(|s| db.prepare(s)).collect::<R<Vec<_>>>()?;
        tenants.push(Tenant { db, stmts, plan, next: 0, rows: 0, started: None });
    }
    Ok(tenants)
}

/// [`Turns::UntilIo`]: a queue of the tenants that can run; a tenant
/// that suspends leaves it until `io_ready` names its connection.
fn schedule_ready(tenants: &mut [Tenant], h: &mut Histogram<u64>, quantum: Option<Duration>) -> R<()> {
    for (i, t) in tenants.iter().enumerate() {
        t.db.conn.set_io_tag(i + 1);
    }
    let mut runnable: std::collections::VecDeque<usize> = (0..tenants.len()).filter(|&i| !tenants[i].plan.is_empty()).collect();
    let mut suspended = vec![false; tenants.len()];
    let mut waiting = 0usize;
    let mut ready = Vec::new();
    loop {
        for _ in 0..runnable.len() {
            let Some(i) = runnable.pop_front() else { break };
            let t = &mut tenants[i];
            match turn_until_io(t, h, quantum)? {
                TurnEnd::Ready if t.next < t.plan.len() => runnable.push_back(i),
                TurnEnd::Ready => {}
                TurnEnd::Io => {
                    suspended[i] = true;
                    waiting += 1;
                }
            }
        }
        if waiting == 0 {
            if runnable.is_empty() {
                return Ok(());
            }
            continue;
        }
        let timeout = if runnable.is_empty() { -1 } else { 0 };
        let conn = &tenants[0].db.conn;
        conn.io_poll(timeout).map_err(|e| format!("io_poll: {e}"))?;
        ready.clear();
        conn.io_ready(&mut ready, usize::MAX);
        for &tag in &ready {
            let i = tag - 1;
            if std::mem::take(&mut suspended[i]) {
                waiting -= 1;
                runnable.push_back(i);
            }
        }
    }
}

/// One [`Turns::UntilIo`] turn: the current operation until it ends or
/// suspends, or the quantum has passed.
fn turn_until_io(t: &mut Tenant, h: &mut Histogram<u64>, quantum: Option<Duration>) -> R<TurnEnd> {
    let began = quantum.map(|_| Instant::now());
    let mut steps = 0u32;
    loop {
        let op = &t.plan[t.next];
        let st = &mut t.stmts[op.stmt];
        if t.started.is_none() {
            t.started = Some(Instant::now());
            bind_op(st, op)?;
        }
        match st.step(&mut t.db.conn).map_err(|e| format!("ringlite async step: {e}"))? {
            StepResult::Row => t.rows += 1,
            StepResult::Io => return Ok(TurnEnd::Io),
            StepResult::Done => {
                finish_op(t, h)?;
                return Ok(TurnEnd::Ready);
            }
        }
        steps += 1;
        // (The clock is read every 16 rows: a row costs well under the
        // quantum's sixteenth.)
        if let (Some(b), Some(q)) = (began, quantum) {
            if steps.is_multiple_of(16) && b.elapsed() >= q {
                return Ok(TurnEnd::Ready);
            }
        }
    }
}

fn bind_op(st: &mut ringlite::Statement, op: &Op) -> R<()> {
    for (i, b) in op.binds.iter().enumerate() {
        let v = match b {
            Bind::Int(v) => Value::Integer(*v),
            Bind::Text(s) => Value::text(s.as_str()),
        };
        st.bind(i + 1, v).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// The current operation returned `Done`: record it, check its rows, go
/// to the next.
fn finish_op(t: &mut Tenant, h: &mut Histogram<u64>) -> R<()> {
    let op = &t.plan[t.next];
    let started = t.started.take().unwrap_or_else(Instant::now);
    h.saturating_record(started.elapsed().as_nanos() as u64);
    t.stmts[op.stmt].reset(&mut t.db.conn);
    if t.rows != op.rows {
        return Err(format!("ringlite async: {} rows instead of {}", t.rows, op.rows));
    }
    t.rows = 0;
    t.next += 1;
    Ok(())
}

/// [`Turns::Paper`]: round-robin over the tenants until every plan is done.
fn schedule(tenants: &mut [Tenant], h: &mut Histogram<u64>) -> R<()> {
    loop {
        let mut live = false;
        let mut any_ready = false;
        let mut any_io = false;
        for t in tenants.iter_mut().filter(|t| t.next < t.plan.len()) {
            live = true;
            match turn(t, h)? {
                TurnEnd::Ready => any_ready = true,
                TurnEnd::Io => any_io = true,
            }
        }
        if !live {
            return Ok(());
        }
        if any_io {
            // Submit what the pass queued; if nobody can go on, sleep in
            // the ring until something completes.
            let timeout = if any_ready { 0 } else { -1 };
            tenants[0].db.conn.io_poll(timeout).map_err(|e| format!("io_poll: {e}"))?;
        }
    }
}

/// One [`Turns::Paper`] turn: at most STEPS_PER_TURN steps, stopping at I/O.
fn turn(t: &mut Tenant, h: &mut Histogram<u64>) -> R<TurnEnd> {
    for _ in 0..STEPS_PER_TURN {
        let op = &t.plan[t.next];
        let st = &mut t.stmts[op.stmt];
        if t.started.is_none() {
            t.started = Some(Instant::now());
            bind_op(st, op)?;
        }
        match st.step(&mut t.db.conn).map_err(|e| format!("ringlite async step: {e}"))? {
            StepResult::Row => t.rows += 1,
            StepResult::Io => return Ok(TurnEnd::Io),
            StepResult::Done => {
                finish_op(t, h)?;
                return Ok(TurnEnd::Ready);
            }
        }
    }
    Ok(TurnEnd::Ready)
}
