//! # The `sim` backend: deterministic delayed I/O for tests
//!
//! Files live in RAM (a [`MemFs`]), but no request finishes inside
//! `submit`: each is queued and only performed when [`IoBackend::poll`]
//! reaps it, possibly out of submission order, possibly failing with an
//! injected `SQLITE_IOERR_*`. Everything is driven by a seeded generator,
//! so a failing run replays exactly. This is what proves that the layers
//! above return `Pending`, keep their state, and never redo a side effect.
//!
//! [`SimBackend::power_loss`] models a disk losing power: each file keeps
//! its content as of its last sync plus a random in-order subset of the
//! writes performed since.
//!
//! Reordering keeps the one ordering every backend promises (see
//! [`File`]): per file, a sync or truncate is performed only after every
//! request submitted before it on that file, and no later request on that
//! file is performed before it.
//!
//! Invariant: a request's effect on the file happens at the moment its
//! completion is marked done, never earlier (checked:
//! sim_effect_at_completion).

use super::memory::{MemData, MemFs, MemLockHandle};
use super::{Buffer, Completion, CompletionResult, File, IoBackend, LockLevel, OpenOptions};
use crate::error::{Error, Result, SQLITE_IOERR_FSYNC, SQLITE_IOERR_READ, SQLITE_IOERR_WRITE};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

fn guard<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// How the simulation misbehaves.
#[derive(Debug, Clone, Copy)]
pub struct SimConfig {
    /// Seed of the generator.
    pub seed: u64,
    /// Complete queued requests in random order instead of FIFO.
    pub reorder: bool,
    /// Each `poll` reaps at most this many requests (at least 1).
    pub max_per_poll: usize,
    /// One request in `fail_one_in` fails (0: never).
    pub fail_one_in: u32,
}

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig { seed: 1, reorder: true, max_per_poll: 1, fail_one_in: 0 }
    }
}

enum Op {
    Read(u64, Buffer),
    Write(u64, Buffer),
    Sync,
    Truncate(u64),
}

struct Queued {
    path: Arc<str>,
    data: Arc<MemData>,
    op: Op,
    completion: Completion,
}

struct SimState {
    rng: u64,
    queue: Vec<Queued>,
    submitted: u64,
    completed: u64,
    /// Syncs performed, per file path.
    syncs: std::collections::HashMap<String, u64>,
}

impl SimState {
    fn next(&mut self) -> u64 {
        // xorshift64*: small, deterministic, good enough to shuffle.
        let mut x = self.rng;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.rng = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

/// A write or truncate performed since the file's last sync.
enum Unsynced {
    Write(u64, Vec<u8>),
    Truncate(u64),
}

/// What a power loss may leave of one file: its content at the last sync
/// plus any in-order subset of the changes since.
struct Durability {
    data: Arc<MemData>,
    synced: Vec<u8>,
    since: Vec<Unsynced>,
}

/// The simulated backend.
pub struct SimBackend {
    fs: MemFs,
    config: Mutex<SimConfig>,
    state: Arc<Mutex<SimState>>,
    durability: Mutex<Vec<Durability>>,
    /// Reads of the file with exactly this path fail (targeted injection).
    failing_reads: Mutex<Option<String>>,
}

impl SimBackend {
    /// A simulation with `config`.
    pub fn new(config: SimConfig) -> Self {
        SimBackend {
            fs: MemFs::default(),
            state: Arc::new(Mutex::new(SimState { rng: config.seed | 1, queue: Vec::new(), submitted: 0, completed: 0, syncs: Default::default() })),
            config: Mutex::new(config),
            durability: Mutex::new(Vec::new()),
            failing_reads: Mutex::new(None),
        }
    }

    /// Make every read of the file named `path` fail with
    /// `SQLITE_IOERR_READ` when it is reaped (`None`: stop). Unlike
    /// [`SimConfig::fail_one_in`] this picks the victim, so a test can
    /// check that the error reaches the statement that needed the page and
    /// no other.
    pub fn fail_reads_of(&self, path: Option<&str>) {
        *guard(&self.failing_reads) = path.map(str::to_string);
    }

    /// Record a request about to be performed, for [`SimBackend::power_loss`].
    fn track(&self, q: &Queued) {
        let mut d = guard(&self.durability);
        let i = match d.iter().position(|t| Arc::ptr_eq(&t.data, &q.data)) {
            Some(i) => i,
            None => {
                d.push(Durability { data: q.data.clone(), synced: q.data.snapshot(), since: Vec::new() });
                d.len() - 1
            }
        };
        let t = &mut d[i];
        match &q.op {
            Op::Read(..) => {}
            Op::Write(off, buf) => t.since.push(Unsynced::Write(*off, buf.to_vec())),
            Op::Truncate(size) => t.since.push(Unsynced::Truncate(*size)),
            Op::Sync => {
                t.synced = t.data.snapshot();
                t.since.clear();
            }
        }
    }

    /// Power loss: queued requests are dropped (as [`SimBackend::crash`])
    /// and every file keeps its content as of its last sync plus a random
    /// in-order subset of the writes and truncates performed since.
    pub fn power_loss(&self) {
        self.lose_power(false);
    }

    /// Power loss that also tears writes: of each file's unsynced writes
    /// that survive, the last one reaches the disk only partly (a random
    /// prefix of its bytes; the rest of its range keeps the old content),
    /// as when the power fails in the middle of a multi-sector write.
    pub fn power_loss_torn(&self) {
        self.lose_power(true);
    }

    fn lose_power(&self, tear: bool) {
        self.crash();
        let mut st = guard(&self.state);
        for t in guard(&self.durability).drain(..) {
            let mut image = t.synced;
            let kept: Vec<Unsynced> = t.since.into_iter().filter(|_| !st.next().is_multiple_of(2)).collect();
            let last_write = kept.iter().rposition(|u| matches!(u, Unsynced::Write(..)));
            for (i, u) in kept.into_iter().enumerate() {
                match u {
                    Unsynced::Write(off, mut bytes) => {
                        if tear && Some(i) == last_write && !bytes.is_empty() {
                            let keep = (st.next() % bytes.len() as u64) as usize;
                            bytes.truncate(keep);
                        }
                        let end = off as usize + bytes.len();
                        if image.len() < end {
                            image.resize(end, 0);
                        }
                        image[off as usize..end].copy_from_slice(&bytes);
                    }
                    Unsynced::Truncate(size) => image.resize(size as usize, 0),
                }
            }
            t.data.replace(image);
        }
    }

    /// The files.
    pub fn fs(&self) -> &MemFs {
        &self.fs
    }

    /// Change the error rate (0: no errors).
    pub fn set_fail_one_in(&self, n: u32) {
        guard(&self.config).fail_one_in = n;
    }

    /// Requests submitted so far.
    pub fn submitted(&self) -> u64 {
        guard(&self.state).submitted
    }

    /// fsyncs performed on the file at `path` so far.
    pub fn syncs(&self, path: &str) -> u64 {
        guard(&self.state).syncs.get(path).copied().unwrap_or(0)
    }

    /// Requests still queued.
    pub fn in_flight(&self) -> usize {
        guard(&self.state).queue.len()
    }

    /// Drop every queued request without performing it (a crash).
    pub fn crash(&self) {
        guard(&self.state).queue.clear();
    }
}

/// A handle on a simulated file.
pub struct SimFile {
    path: Arc<str>,
    data: Arc<MemData>,
    locks: MemLockHandle,
    shm: Mutex<super::shm::ShmHandle>,
    state: Arc<Mutex<SimState>>,
}

impl SimFile {
    fn enqueue(&self, op: Op) -> Result<Completion> {
        let completion = Completion::new();
        let mut st = guard(&self.state);
        st.submitted += 1;
        st.queue.push(Queued { path: self.path.clone(), data: self.data.clone(), op, completion: completion.clone() });
        Ok(completion)
    }
}

impl File for SimFile {
    fn read(&self, offset: u64, buf: Buffer) -> Result<Completion> {
        self.enqueue(Op::Read(offset, buf))
    }
    fn write(&self, offset: u64, buf: Buffer) -> Result<Completion> {
        self.enqueue(Op::Write(offset, buf))
    }
    fn sync(&self, _data_only: bool) -> Result<Completion> {
        self.enqueue(Op::Sync)
    }
    fn truncate(&self, size: u64) -> Result<Completion> {
        self.enqueue(Op::Truncate(size))
    }
    fn size(&self) -> Result<u64> {
        Ok(self.data.len())
    }
    fn lock(&self, level: LockLevel) -> Result<bool> {
        Ok(self.locks.lock(level))
    }
    fn unlock(&self, level: LockLevel) -> Result<()> {
        self.locks.unlock(level);
        Ok(())
    }
    fn check_reserved_lock(&self) -> Result<bool> {
        Ok(self.locks.check_reserved())
    }
    fn lock_level(&self) -> LockLevel {
        self.locks.level()
    }
    fn shm_map(&self, region: usize, region_size: usize, extend: bool) -> Result<Option<super::ShmRegion>> {
        guard(&self.shm).map(|| Ok(self.data.shm_node()), region, region_size, extend)
    }
    fn shm_lock(&self, offset: usize, n: usize, exclusive: bool, lock: bool) -> Result<bool> {
        guard(&self.shm).lock(offset, n, exclusive, lock)
    }
    fn shm_unmap(&self, delete: bool) -> Result<()> {
        guard(&self.shm).unmap(delete)
    }
}

fn is_barrier(op: &Op) -> bool {
    matches!(op, Op::Sync | Op::Truncate(_))
}

/// Indexes of the queued requests that may be performed now: those with
/// no barrier before them on their file and, for a barrier, nothing at all
/// before it on its file. Never empty when the queue is not (the first
/// request is always eligible).
fn eligible(queue: &[Queued]) -> Vec<usize> {
    let mut out = Vec::new();
    for (i, q) in queue.iter().enumerate() {
        let mut earlier = queue[..i].iter().filter(|e| e.path == q.path);
        let blocked = if is_barrier(&q.op) { earlier.next().is_some() } else { earlier.any(|e| is_barrier(&e.op)) };
        if !blocked {
            out.push(i);
        }
    }
    out
}

fn perform(q: Queued, fail: bool) {
    let result = match q.op {
        Op::Read(_, _) if fail => Err(Error::new(SQLITE_IOERR_READ, "disk I/O error")),
        Op::Write(_, _) | Op::Truncate(_) if fail => Err(Error::new(SQLITE_IOERR_WRITE, "disk I/O error")),
        Op::Sync if fail => Err(Error::new(SQLITE_IOERR_FSYNC, "disk I/O error")),
        Op::Read(off, mut buf) => {
            let n = q.data.read_into(off, &mut buf);
            Ok(CompletionResult { bytes: n, buffer: Some(buf) })
        }
        Op::Write(off, buf) => {
            q.data.write_at(off, &buf);
            Ok(CompletionResult { bytes: buf.len(), buffer: Some(buf) })
        }
        Op::Sync => Ok(CompletionResult { bytes: 0, buffer: None }),
        Op::Truncate(size) => {
            q.data.set_len(size);
            Ok(CompletionResult { bytes: 0, buffer: None })
        }
    };
    q.completion.complete(result);
}

impl IoBackend for SimBackend {
    fn name(&self) -> &'static str {
        "sim"
    }
    fn open(&self, path: &str, opts: OpenOptions) -> Result<Arc<dyn File>> {
        let data = self.fs.open(path, opts)?;
        Ok(Arc::new(SimFile { path: path.into(), locks: MemLockHandle::new(data.clone()), data, state: self.state.clone(), shm: Mutex::default() }))
    }
    fn delete(&self, path: &str, _sync_dir: bool) -> Result<()> {
        self.fs.delete(path)
    }
    fn exists(&self, path: &str) -> Result<bool> {
        Ok(self.fs.exists(path))
    }
    fn full_path(&self, path: &str) -> Result<String> {
        Ok(path.to_string())
    }
    fn poll(&self, timeout: Option<Duration>) -> Result<usize> {
        let cfg = *guard(&self.config);
        let failing_reads = guard(&self.failing_reads).clone();
        let mut st = guard(&self.state);
        if st.queue.is_empty() {
            return Ok(0);
        }
        // A zero timeout may find nothing ready yet; a blocking poll
        // always reaps at least one.
        let mut n = 1 + (st.next() as usize) % cfg.max_per_poll.max(1);
        if timeout == Some(Duration::ZERO) && st.next().is_multiple_of(2) {
            n = 0;
        }
        let mut reaped = Vec::new();
        for _ in 0..n {
            if st.queue.is_empty() {
                break;
            }
            let idx = if cfg.reorder {
                let eligible = eligible(&st.queue);
                eligible[(st.next() as usize) % eligible.len()]
            } else {
                0
            };
            let mut fail = cfg.fail_one_in > 0 && st.next().is_multiple_of(cfg.fail_one_in as u64);
            let q = st.queue.remove(idx);
            fail |= matches!(q.op, Op::Read(..)) && failing_reads.as_deref() == Some(&*q.path);
            reaped.push((q, fail));
        }
        st.completed += reaped.len() as u64;
        for (q, fail) in &reaped {
            if matches!(q.op, Op::Sync) && !fail {
                *st.syncs.entry(q.path.to_string()).or_insert(0) += 1;
            }
        }
        drop(st);
        let count = reaped.len();
        for (q, fail) in reaped {
            if !fail {
                self.track(&q);
            }
            perform(q, fail);
        }
        Ok(count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_complete_only_when_polled() {
        let sim = SimBackend::new(SimConfig { seed: 9, reorder: true, max_per_poll: 1, fail_one_in: 0 });
        let f = sim.open("x", OpenOptions { create: true, ..Default::default() }).unwrap();
        let w = f.write(0, Buffer::from_vec(vec![1, 2, 3])).unwrap();
        assert!(!w.is_done());
        // invariant: sim_effect_at_completion
        assert_eq!(f.size().unwrap(), 0, "nothing happens before the completion");
        while !w.is_done() {
            sim.poll(None).unwrap();
        }
        w.take().unwrap();
        let r = f.read(1, Buffer::zeroed(4)).unwrap();
        sim.poll(None).unwrap();
        let res = r.take().unwrap();
        assert_eq!(res.bytes, 2);
        assert_eq!(&res.buffer.unwrap()[..], &[2, 3, 0, 0]);
    }

    #[test]
    fn reordering_keeps_syncs_and_truncates_in_file_order() {
        for seed in 1..50 {
            let sim = SimBackend::new(SimConfig { seed, reorder: true, max_per_poll: 3, fail_one_in: 0 });
            let f = sim.open("x", OpenOptions { create: true, ..Default::default() }).unwrap();
            let g = sim.open("y", OpenOptions { create: true, ..Default::default() }).unwrap();
            let w1 = f.write(0, Buffer::from_vec(vec![1; 8])).unwrap();
            let w2 = f.write(8, Buffer::from_vec(vec![2; 8])).unwrap();
            let other = g.write(0, Buffer::from_vec(vec![3; 8])).unwrap();
            let s = f.sync(false).unwrap();
            let t = f.truncate(4).unwrap();
            let w3 = f.write(0, Buffer::from_vec(vec![4; 2])).unwrap();
            while !w3.is_done() || !other.is_done() {
                sim.poll(None).unwrap();
                if s.is_done() {
                    assert!(w1.is_done() && w2.is_done(), "seed {seed}: sync before an earlier write");
                }
                if t.is_done() {
                    assert!(s.is_done(), "seed {seed}: truncate before an earlier sync");
                }
                if w3.is_done() {
                    assert!(t.is_done(), "seed {seed}: write before an earlier truncate");
                }
            }
            assert_eq!(f.size().unwrap(), 4);
        }
    }

    #[test]
    fn injected_failures_are_reported() {
        let sim = SimBackend::new(SimConfig { seed: 1, reorder: false, max_per_poll: 1, fail_one_in: 1 });
        let f = sim.open("x", OpenOptions { create: true, ..Default::default() }).unwrap();
        let s = f.sync(false).unwrap();
        sim.poll(None).unwrap();
        assert_eq!(s.take().unwrap_err().code, crate::error::SQLITE_IOERR_FSYNC);
    }
}
