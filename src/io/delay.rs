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
//! Invariants: every delayed request sits in the shared `pending` list
//! until it is finished, exactly once, by [`DelayBackend::poll`]; the
//! inner completion's result (buffer included) moves to the outer one
//! unchanged, so the pager cannot tell this backend from the inner one
//! except by time.

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

/// Per-request delays.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Delays {
    /// Added to every read.
    pub read: Duration,
    /// Added to every sync (fsync or fdatasync).
    pub sync: Duration,
}

impl Delays {
    /// Parse `read_us,fsync_us` (microseconds), e.g. `100,1000`.
    pub fn parse(spec: &str) -> Option<Delays> {
        let (r, s) = spec.split_once(',')?;
        let us = |x: &str| x.trim().parse::<u64>().ok().map(Duration::from_micros);
        Some(Delays { read: us(r)?, sync: us(s)? })
    }
}

/// A delayed request not yet handed back.
struct Pending {
    deadline: Instant,
    inner: Completion,
    outer: Completion,
}

/// The pending requests and the descriptor woken at their deadlines,
/// shared by the backend and its files.
#[derive(Default)]
struct Shared {
    pending: Mutex<Vec<Pending>>,
    wake: super::wake_fd::WakeFd,
}

type Queue = Arc<Shared>;

/// The wrapper backend.
pub struct DelayBackend {
    inner: Arc<dyn IoBackend>,
    delays: Delays,
    pending: Queue,
    name: &'static str,
}

impl DelayBackend {
    /// Wrap `inner`, delaying its reads and syncs by `delays`.
    pub fn new(inner: Arc<dyn IoBackend>, delays: Delays) -> Self {
        let name = match inner.name() {
            "io_uring" => "delay(io_uring)",
            "sync" => "delay(sync)",
            _ => "delay",
        };
        DelayBackend { inner, delays, pending: Arc::default(), name }
    }

    /// Finish every request whose deadline has passed and whose inner
    /// request is done; returns how many, and the earliest remaining
    /// deadline with whether any remaining inner request is still running.
    fn reap(&self) -> (usize, Option<Instant>, bool) {
        let now = Instant::now();
        let mut queue = self.pending.pending.lock().unwrap_or_else(|p| p.into_inner());
        let mut finished = 0;
        let mut next: Option<Instant> = None;
        let mut inner_busy = false;
        queue.retain(|p| {
            let inner_done = p.inner.is_done();
            if inner_done && p.deadline <= now {
                p.outer.complete(p.inner.take());
                finished += 1;
                return false;
            }
            inner_busy |= !inner_done;
            if p.deadline > now {
                next = Some(next.map_or(p.deadline, |n| n.min(p.deadline)));
            }
            true
        });
        (finished, next, inner_busy)
    }
}

/// A file of [`DelayBackend`].
struct DelayFile {
    inner: Arc<dyn File>,
    delays: Delays,
    pending: Queue,
}

impl DelayFile {
    fn delayed(&self, inner: Completion, delay: Duration) -> Completion {
        if delay.is_zero() {
            return inner;
        }
        let outer = Completion::new();
        let deadline = Instant::now() + delay;
        let p = Pending { deadline, inner, outer: outer.clone() };
        self.pending.pending.lock().unwrap_or_else(|e| e.into_inner()).push(p);
        self.pending.wake.arm_before(deadline);
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
        Ok(Arc::new(DelayFile { inner, delays: self.delays, pending: self.pending.clone() }))
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
        assert_eq!(Delays::parse("100,1000"), Some(Delays { read: Duration::from_micros(100), sync: Duration::from_millis(1) }));
        assert_eq!(Delays::parse("100"), None);
        assert_eq!(Delays::parse("x,1"), None);
    }

    #[test]
    fn read_completes_only_after_its_delay() {
        let inner: Arc<dyn IoBackend> = Arc::new(MemoryBackend::new());
        let delays = Delays { read: Duration::from_millis(20), sync: Duration::from_millis(30) };
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
        let b = DelayBackend::new(inner, Delays { read: Duration::from_millis(2), sync: Duration::ZERO });
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
}
