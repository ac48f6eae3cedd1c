//! # The `delay` backend: slow, far-away storage, simulated
//!
//! A wrapper around another backend that makes every read and every sync
//! take at least a configured time, as if the file lived on a network
//! volume or object store. It exists for benchmarks (the "slow storage"
//! experiment of `ringlite-bench`) and is never chosen unless asked for:
//! `RINGLITE_IO_DELAY=read_us,fsync_us` (see [`crate::io::select`]).
//!
//! How the delay works: a read or sync is handed to the inner backend at
//! once, but the caller gets a *different* completion, which this backend
//! finishes only once both the inner request has finished and its
//! deadline (submission time + delay) has passed. Submission therefore
//! returns at once; an async connection's VM suspends as it would on a
//! real slow device, and many tenants' delays overlap. A blocking
//! connection waits in [`IoBackend::poll`], which sleeps until the nearest
//! deadline. Writes and truncates pass straight through (the inner
//! completion is returned unchanged): their cost is paid at the sync,
//! where durable storage pays it.
//!
//! An application sleeping in its own event loop gets a descriptor
//! ([`IoBackend::event_fd`], `sqlite3_io_fd`) that becomes readable when a
//! deadline passes or the inner backend has completions (see
//! [`super::wake_fd`]), as an io_uring backend's eventfd does.
//!
//! A device serves a limited number of requests at once. With a depth
//! (`RINGLITE_IO_DELAY=read_us,fsync_us,depth[,fair|fifo]`) at most
//! `depth` delayed requests are in service at a time per backend (for
//! async connections: per thread, the thread's ring); the others wait,
//! and a request's delay starts when it enters service (when the one whose
//! place it takes was due, not when a poll noticed). Which waiting request
//! goes next is the queue's policy ([`FairQueue`]): `fair` (the default)
//! takes the tenants (open files) in turn, and lets no tenant have more
//! than half the depth (rounded up) in service at once, so one tenant's
//! burst (a scan's 32 reads ahead) neither holds up the others' lookups
//! nor takes every place a lookup arriving next would find free; `fifo`
//! serves in submission order, as a queue with no notion of tenants does.
//! Without a depth the device serves everything at once, as before.
//!
//! Invariants: every delayed request sits in the shared state, first in
//! `waiting` (only while `depth` requests are in service) then in `in_service`,
//! until it is finished, exactly once, by [`DelayBackend::poll`]; `in_service`
//! never holds more than `depth` (when set) (checked: delay_depth); the inner
//! completion's result (buffer included) moves to the outer one unchanged, so
//! the pager cannot tell this backend from the inner one except by time.

use super::fair_queue::{FairQueue, QueuePolicy};
use super::{Buffer, Completion, File, IoBackend, LockLevel, OpenOptions, ShmRegion};
use crate::error::Result;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Reads and syncs submitted through any delay backend of this process
/// (benchmarks report them per operation, to compare with SQLite's).
static READS: AtomicU64 = AtomicU64::new(0);
static SYNCS: AtomicU64 = AtomicU64::new(0);

/// Process-wide `(reads, syncs)` submitted through delay backends so far.
pub fn counts() -> (u64, u64) {
    (READS.load(Ordering::Relaxed), SYNCS.load(Ordering::Relaxed))
}

/// Per-request delays, and the simulated device's queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Delays {
    /// Added to every read.
    pub read: Duration,
    /// Added to every sync (fsync or fdatasync).
    pub sync: Duration,
    /// Delayed requests in service at once per backend (0: no limit).
    pub depth: u32,
    /// Which waiting request enters service next (with a `depth`).
    pub policy: QueuePolicy,
}

impl Delays {
    /// Parse `read_us,fsync_us[,depth[,fair|fifo]]` (microseconds), e.g.
    /// `100,1000` or `1000,1000,4,fifo`.
    pub fn parse(spec: &str) -> Option<Delays> {
        let mut it = spec.split(',');
        let us = |x: Option<&str>| x?.trim().parse::<u64>().ok().map(Duration::from_micros);
        let (read, sync) = (us(it.next())?, us(it.next())?);
        let depth = match it.next() {
            Some(d) => d.trim().parse().ok()?,
            None => 0,
        };
        let policy = match it.next() {
            Some(p) => QueuePolicy::parse(p)?,
            None => QueuePolicy::Fair,
        };
        if it.next().is_some() {
            return None;
        }
        Some(Delays { read, sync, depth, policy })
    }

    /// Only the two delays: no queue.
    pub fn new(read: Duration, sync: Duration) -> Delays {
        Delays { read, sync, depth: 0, policy: QueuePolicy::Fair }
    }
}

/// A delayed request in service, not yet handed back.
struct Pending {
    deadline: Instant,
    /// The file's key (its tenant in the queue).
    key: u64,
    inner: Completion,
    outer: Completion,
}

/// A delayed request waiting for the device (its inner request is
/// already submitted: only the simulated time waits).
struct Waiting {
    submitted: Instant,
    key: u64,
    delay: Duration,
    inner: Completion,
    outer: Completion,
}

/// The simulated device's requests.
struct State {
    in_service: Vec<Pending>,
    waiting: FairQueue<Waiting>,
    /// The keys of the finished requests, in order (for the tests).
    #[cfg(test)]
    finished: Vec<u64>,
}

/// The requests and the descriptor woken at their deadlines, shared by
/// the backend and its files.
struct Shared {
    state: Mutex<State>,
    depth: usize,
    /// Most requests of one file in service at once.
    quota: usize,
    wake: super::wake_fd::WakeFd,
}

type Queue = Arc<Shared>;

impl Shared {
    fn new(d: Delays) -> Self {
        let depth = if d.depth == 0 { usize::MAX } else { d.depth as usize };
        let quota = match d.policy {
            QueuePolicy::Fair if d.depth > 0 => depth.div_ceil(2),
            _ => usize::MAX,
        };
        let state = State {
            in_service: Vec::new(),
            waiting: FairQueue::new(d.policy),
            #[cfg(test)]
            finished: Vec::new(),
        };
        Shared { state: Mutex::new(state), depth, quota, wake: Default::default() }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Put waiting requests in service while there is room, each starting
    /// at the next of `freed` (when a finished request was due) or at its
    /// submission, whichever is later. Returns the earliest deadline given
    /// (to arm the descriptor for) and whether one is already due.
    fn admit(&self, st: &mut State, now: Instant, freed: &mut dyn Iterator<Item = Instant>) -> (Option<Instant>, bool) {
        let (mut earliest, mut due) = (None::<Instant>, false);
        while st.in_service.len() < self.depth {
            let State { in_service, waiting, .. } = &mut *st;
            let at_quota = |k: u64| in_service.iter().filter(|p| p.key == k).count() >= self.quota;
            let Some(w) = waiting.pop_if(|k| !at_quota(k)) else { break };
            let deadline = freed.next().unwrap_or(now).max(w.submitted) + w.delay;
            due |= deadline <= now;
            earliest = Some(earliest.map_or(deadline, |e| e.min(deadline)));
            in_service.push(Pending { deadline, key: w.key, inner: w.inner, outer: w.outer });
        }
        // invariant: delay_depth
        debug_assert!(st.in_service.len() <= self.depth);
        (earliest, due)
    }
}

/// The wrapper backend.
pub struct DelayBackend {
    inner: Arc<dyn IoBackend>,
    delays: Delays,
    pending: Queue,
    name: &'static str,
    /// The key of the next file opened (its tenant in the fair queue).
    next_key: AtomicU64,
}

impl DelayBackend {
    /// Wrap `inner`, delaying its reads and syncs by `delays`.
    pub fn new(inner: Arc<dyn IoBackend>, delays: Delays) -> Self {
        let name = match inner.name() {
            "io_uring" => "delay(io_uring)",
            "sync" => "delay(sync)",
            _ => "delay",
        };
        DelayBackend { inner, delays, pending: Arc::new(Shared::new(delays)), name, next_key: AtomicU64::new(1) }
    }

    /// Finish every request whose deadline has passed and whose inner
    /// request is done; returns how many, and the earliest remaining
    /// deadline with whether any remaining inner request is still running.
    fn reap(&self) -> (usize, Option<Instant>, bool) {
        let mut st = self.pending.lock();
        let mut finished = 0;
        loop {
            let now = Instant::now();
            // When each finished request was due: a waiting request takes
            // the place of one and starts then (a late poll does not make
            // the simulated device slower).
            let mut freed: Vec<(Instant, u64)> = Vec::new();
            st.in_service.retain(|p| {
                if p.inner.is_done() && p.deadline <= now {
                    p.outer.complete(p.inner.take());
                    freed.push((p.deadline, p.key));
                    return false;
                }
                true
            });
            freed.sort_unstable();
            #[cfg(test)]
            st.finished.extend(freed.iter().map(|f| f.1));
            finished += freed.len();
            let (_, due) = self.pending.admit(&mut st, now, &mut freed.into_iter().map(|f| f.0));
            if !due {
                break;
            }
        }
        let now = Instant::now();
        let next = st.in_service.iter().filter(|p| p.deadline > now).map(|p| p.deadline).min();
        let inner_busy = st.in_service.iter().any(|p| !p.inner.is_done());
        (finished, next, inner_busy)
    }
}

/// A file of [`DelayBackend`].
struct DelayFile {
    inner: Arc<dyn File>,
    delays: Delays,
    pending: Queue,
    /// This file's queue in the fair queue.
    key: u64,
}

impl DelayFile {
    fn delayed(&self, inner: Completion, delay: Duration) -> Completion {
        if delay.is_zero() {
            return inner;
        }
        let outer = Completion::new();
        let now = Instant::now();
        let mut st = self.pending.lock();
        st.waiting.push(self.key, Waiting { submitted: now, key: self.key, delay, inner, outer: outer.clone() });
        // In service now if there is room (else when a request in service
        // is finished, by a poll, which then arms the descriptor for it).
        let (earliest, _) = self.pending.admit(&mut st, now, &mut std::iter::empty());
        drop(st);
        if let Some(deadline) = earliest {
            self.pending.wake.arm_before(deadline);
        }
        outer
    }
}

impl File for DelayFile {
    fn has_moved(&self) -> Result<bool> {
        self.inner.has_moved()
    }
    fn read(&self, offset: u64, buf: Buffer) -> Result<Completion> {
        let c = self.inner.read(offset, buf)?;
        READS.fetch_add(1, Ordering::Relaxed);
        Ok(self.delayed(c, self.delays.read))
    }
    fn write(&self, offset: u64, buf: Buffer) -> Result<Completion> {
        self.inner.write(offset, buf)
    }
    fn sync(&self, data_only: bool) -> Result<Completion> {
        let c = self.inner.sync(data_only)?;
        SYNCS.fetch_add(1, Ordering::Relaxed);
        Ok(self.delayed(c, self.delays.sync))
    }
    fn truncate(&self, size: u64) -> Result<Completion> {
        self.inner.truncate(size)
    }
    fn size(&self) -> Result<u64> {
        self.inner.size()
    }
    fn external_reader(&self) -> Result<bool> {
        self.inner.external_reader()
    }
    fn modes(&self) -> Option<&super::FileModes> {
        self.inner.modes()
    }
    fn hint(&self, hint: super::FileHint) {
        self.inner.hint(hint)
    }
    fn size_request(&self) -> Result<Completion> {
        self.inner.size_request()
    }
    fn sibling_exists(&self, suffix: &str) -> Option<bool> {
        self.inner.sibling_exists(suffix)
    }
    fn lock(&self, level: LockLevel) -> Result<bool> {
        self.inner.lock(level)
    }
    fn unlock(&self, level: LockLevel) -> Result<()> {
        self.inner.unlock(level)
    }
    fn check_reserved_lock(&self) -> Result<bool> {
        self.inner.check_reserved_lock()
    }
    fn lock_level(&self) -> LockLevel {
        self.inner.lock_level()
    }
    fn shm_map(&self, region: usize, region_size: usize, extend: bool) -> Result<Option<ShmRegion>> {
        self.inner.shm_map(region, region_size, extend)
    }
    fn shm_lock(&self, offset: usize, n: usize, exclusive: bool, lock: bool) -> Result<bool> {
        self.inner.shm_lock(offset, n, exclusive, lock)
    }
    fn shm_unmap(&self, delete: bool) -> Result<()> {
        self.inner.shm_unmap(delete)
    }
}

impl IoBackend for DelayBackend {
    fn name(&self) -> &'static str {
        self.name
    }
    fn open(&self, path: &str, opts: OpenOptions) -> Result<Arc<dyn File>> {
        let inner = self.inner.open(path, opts)?;
        let key = self.next_key.fetch_add(1, Ordering::Relaxed);
        Ok(Arc::new(DelayFile { inner, delays: self.delays, pending: self.pending.clone(), key }))
    }
    fn delete(&self, path: &str, sync_dir: bool) -> Result<()> {
        self.inner.delete(path, sync_dir)
    }
    fn exists(&self, path: &str) -> Result<bool> {
        self.inner.exists(path)
    }
    fn delete_request(&self, path: &str, sync_dir: bool) -> Result<Completion> {
        self.inner.delete_request(path, sync_dir)
    }
    fn exists_request(&self, path: &str) -> Result<Completion> {
        // Metadata is not delayed (nor is SQLite's xAccess in the bench's
        // slow VFS): only reads and syncs are.
        self.inner.exists_request(path)
    }
    fn full_path(&self, path: &str) -> Result<String> {
        self.inner.full_path(path)
    }

    fn event_fd(&self) -> Option<i32> {
        self.pending.wake.fd(|| self.inner.event_fd())
    }

    fn poll(&self, timeout: Option<Duration>) -> Result<usize> {
        let (n, next) = self.poll_inner(timeout)?;
        self.pending.wake.rearm(n > 0, next);
        Ok(n)
    }
}

impl DelayBackend {
    /// [`IoBackend::poll`], also returning the earliest deadline left.
    fn poll_inner(&self, timeout: Option<Duration>) -> Result<(usize, Option<Instant>)> {
        let until = timeout.map(|t| Instant::now() + t);
        loop {
            // Submit what the inner backend has queued and reap what it has.
            // Something the inner backend finished may be a write the
            // caller waits for: return, the caller polls again if not.
            let reaped = self.inner.poll(Some(Duration::ZERO))?;
            let (finished, next, inner_busy) = self.reap();
            if finished + reaped > 0 {
                return Ok((finished + reaped, next));
            }
            let now = Instant::now();
            if until.is_some_and(|u| u <= now) {
                return Ok((0, next));
            }
            let deadline = match next {
                Some(d) => d,
                // Deadlines passed, inner requests still running: wait
                // for the inner backend (bounded, then look again).
                None if inner_busy => now + Duration::from_millis(1),
                // Nothing of ours in flight: whatever the inner backend
                // has (writes, truncates) is its business.
                None => return Ok((self.inner.poll(timeout)?, None)),
            };
            let wake = until.map_or(deadline, |u| u.min(deadline));
            let wait = wake.saturating_duration_since(now);
            if inner_busy {
                self.inner.poll(Some(wait))?;
            } else {
                std::thread::sleep(wait);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::memory::MemoryBackend;

    #[test]
    fn parses_delay_spec() {
        assert_eq!(Delays::parse("100,1000"), Some(Delays::new(Duration::from_micros(100), Duration::from_millis(1))));
        let q = Delays::parse("100,1000,4,fifo").unwrap();
        assert_eq!((q.depth, q.policy), (4, QueuePolicy::Fifo));
        assert_eq!(Delays::parse("100,1000,4").unwrap().policy, QueuePolicy::Fair);
        assert_eq!(Delays::parse("100,1000,4,lifo"), None);
        assert_eq!(Delays::parse("100"), None);
        assert_eq!(Delays::parse("x,1"), None);
    }

    #[test]
    fn read_completes_only_after_its_delay() {
        let inner: Arc<dyn IoBackend> = Arc::new(MemoryBackend::new());
        let delays = Delays::new(Duration::from_millis(20), Duration::from_millis(30));
        let b = DelayBackend::new(inner, delays);
        let f = b.open("/delay-test.db", OpenOptions { create: true, ..OpenOptions::default() }).unwrap();
        let w = f.write(0, Buffer::from_vec(vec![7u8; 16])).unwrap();
        assert!(w.is_done(), "writes pass through undelayed");
        let t = Instant::now();
        let r = f.read(0, Buffer::zeroed(16)).unwrap();
        assert!(!r.is_done(), "submission returns before the delay");
        assert_eq!(b.poll(Some(Duration::ZERO)).unwrap(), 0);
        while !r.is_done() {
            b.poll(None).unwrap();
        }
        assert!(t.elapsed() >= delays.read);
        let res = r.take().unwrap();
        assert_eq!(res.bytes, 16);
        assert_eq!(&res.buffer.unwrap()[..], &[7u8; 16][..]);
        let t = Instant::now();
        let s = f.sync(false).unwrap();
        while !s.is_done() {
            b.poll(None).unwrap();
        }
        assert!(t.elapsed() >= delays.sync);
        s.take().unwrap();
    }

    #[test]
    fn event_fd_wakes_a_sleeper_when_a_read_is_due() {
        let inner: Arc<dyn IoBackend> = Arc::new(MemoryBackend::new());
        let b = DelayBackend::new(inner, Delays::new(Duration::from_millis(2), Duration::ZERO));
        let fd = b.event_fd().expect("a descriptor");
        let f = b.open("/delay-fd-test.db", OpenOptions { create: true, ..OpenOptions::default() }).unwrap();
        f.write(0, Buffer::from_vec(vec![1u8; 16])).unwrap();
        let r = f.read(0, Buffer::zeroed(16)).unwrap();
        assert!(crate::io::wake_fd::readable_within(fd, 5000), "readable once the deadline passed");
        assert!(!r.is_done(), "finished only by a poll");
        assert_eq!(b.poll(Some(Duration::ZERO)).unwrap(), 1);
        assert!(r.is_done());
        // Nothing left: after one more empty poll it is not readable.
        assert_eq!(b.poll(Some(Duration::ZERO)).unwrap(), 0);
        assert!(!crate::io::wake_fd::readable_within(fd, 0));
    }

    /// The order in which a device of `depth` finishes 8 reads of one
    /// file submitted before one read of another, under `policy` (the
    /// files' numbers: 0 the burst's, 1 the quiet one's).
    fn finish_order(depth: u32, policy: QueuePolicy) -> Vec<u8> {
        let inner: Arc<dyn IoBackend> = Arc::new(MemoryBackend::new());
        let d = Delays { depth, policy, ..Delays::new(Duration::from_micros(200), Duration::ZERO) };
        let b = DelayBackend::new(inner, d);
        let opts = OpenOptions { create: true, ..OpenOptions::default() };
        let (noisy, quiet) = (b.open("/delay-noisy.db", opts).unwrap(), b.open("/delay-quiet.db", opts).unwrap());
        noisy.write(0, Buffer::from_vec(vec![1u8; 16])).unwrap();
        quiet.write(0, Buffer::from_vec(vec![2u8; 16])).unwrap();
        let mut reqs: Vec<(u8, Completion)> = (0..8).map(|_| (0, noisy.read(0, Buffer::zeroed(16)).unwrap())).collect();
        reqs.push((1, quiet.read(0, Buffer::zeroed(16)).unwrap()));
        while !reqs.is_empty() {
            b.poll(None).unwrap();
            let (done, left): (Vec<_>, Vec<_>) = reqs.into_iter().partition(|r| r.1.is_done());
            for (who, c) in done {
                let r = c.take().unwrap();
                assert_eq!(r.buffer.unwrap()[0], who + 1, "each read got its own file's bytes");
            }
            reqs = left;
        }
        // (A late poll finishes several at once: the log has their order.)
        let log = b.pending.lock().finished.clone();
        log.iter().map(|&k| u8::from(k != log[0])).collect()
    }

    #[test]
    fn a_fair_queue_serves_the_quiet_file_before_the_burst_ends() {
        // The quiet read waits behind the read in service and one turn of
        // the burst's queue, not all eight.
        assert_eq!(finish_order(1, QueuePolicy::Fair), vec![0, 0, 1, 0, 0, 0, 0, 0, 0]);
        assert_eq!(finish_order(1, QueuePolicy::Fifo), vec![0, 0, 0, 0, 0, 0, 0, 0, 1]);
        // Depth 2: the burst may hold one place (its quota), so the quiet
        // read finds the other free and is in service at once; first come,
        // first served it waits behind the burst.
        for (policy, in_service) in [(QueuePolicy::Fair, true), (QueuePolicy::Fifo, false)] {
            let inner: Arc<dyn IoBackend> = Arc::new(MemoryBackend::new());
            let d = Delays { depth: 2, policy, ..Delays::new(Duration::from_secs(60), Duration::ZERO) };
            let b = DelayBackend::new(inner, d);
            let opts = OpenOptions { create: true, ..OpenOptions::default() };
            let (noisy, quiet) = (b.open("/delay-noisy.db", opts).unwrap(), b.open("/delay-quiet.db", opts).unwrap());
            let burst: Vec<Completion> = (0..8).map(|_| noisy.read(0, Buffer::zeroed(16)).unwrap()).collect();
            let _q = quiet.read(0, Buffer::zeroed(16)).unwrap();
            let st = b.pending.lock();
            let keys: Vec<u64> = st.in_service.iter().map(|p| p.key).collect();
            assert_eq!(keys.len(), 2);
            assert_eq!(keys.contains(&2), in_service, "{policy:?}: {keys:?}");
            assert_eq!(st.waiting.len(), 7);
            drop(burst);
        }
    }
}
