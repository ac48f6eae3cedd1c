//! # The ring: in-flight requests, per-file ordering, submission, reaping
//!
//! Owns the `io_uring` instance and every request between `submit` and
//! its completion. A request is kept in a slab slot whose index is the
//! SQE's `user_data`; the slot owns the request's [`Buffer`] and an `Arc`
//! of the file handle, so neither the memory the kernel writes into nor
//! the descriptor it uses can go away while the request is in flight.
//!
//! Invariants:
//! - A buffer handed to the kernel is neither touched, resized nor dropped
//!   until the CQE naming its slot has been reaped (the slot is the sole
//!   owner; dropping the ring first waits for every in-flight request)
//!   (checked: uring_buffers_owned).
//! - Per file, a sync or truncate is a barrier, as it is on the `sync`
//!   backend where requests run in submission order: it is issued only
//!   when every earlier request on that file has completed, and requests
//!   submitted after it wait (in FIFO order, in `held`) until it has
//!   completed. Reads and writes with no barrier between them run in
//!   parallel (checked: uring_barrier_order).
//! - SQEs are only pushed here; the kernel sees them at the next
//!   [`Ring::enter`] (one `io_uring_enter` per poll), except when the
//!   submission queue is full, which forces an early submit.
//! - Path operations (`Op::Exists`, a `statx` of a path; `Op::Unlink`)
//!   belong to no file and are not ordered with anything; the slot owns
//!   the path and the `statx` buffer the kernel fills, like a read's
//!   buffer (checked: uring_path_ops_unordered).
//! - Short reads and writes (and `EINTR`/`EAGAIN`) are continued by
//!   resubmitting the rest; a read that hits end of file completes with
//!   the bytes read and the rest of the buffer zero-filled (checked:
//!   uring_short_io_continued).

#![allow(unsafe_code, reason = "the io_uring rings: raw syscalls and the kernel's shared queue memory")]

use super::file::FileHandle;
use crate::error::{
    Error, Result, SQLITE_FULL, SQLITE_IOERR, SQLITE_IOERR_DELETE, SQLITE_IOERR_DELETE_NOENT, SQLITE_IOERR_FSTAT, SQLITE_IOERR_FSYNC, SQLITE_IOERR_READ,
    SQLITE_IOERR_TRUNCATE, SQLITE_IOERR_WRITE,
};
use crate::io::{Buffer, Completion, CompletionResult};
use io_uring::{opcode, squeue, types, IoUring};
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;

/// What a request does.
pub(super) enum Op {
    Read {
        buf: Buffer,
        offset: u64,
        done: usize,
    },
    Write {
        buf: Buffer,
        offset: u64,
        done: usize,
    },
    Sync {
        data_only: bool,
    },
    /// fsync of the file's directory, ordered with the file's requests like
    /// a sync of the file; the slot owns the directory's descriptor.
    SyncDir {
        dir: std::fs::File,
    },
    Truncate {
        size: u64,
    },
    /// Whether `path` exists (non-empty if `needs_content`): a `statx`.
    Exists {
        path: std::ffi::CString,
        buf: Box<libc::statx>,
        needs_content: bool,
    },
    /// Delete `path`.
    Unlink {
        path: std::ffi::CString,
    },
    /// The file's size: a `statx` of the descriptor (`AT_EMPTY_PATH`).
    Size {
        buf: Box<libc::statx>,
    },
}

impl Op {
    fn is_barrier(&self) -> bool {
        matches!(self, Op::Sync { .. } | Op::SyncDir { .. } | Op::Truncate { .. })
    }

    /// Whether the request may change its file's size.
    fn resizes(&self) -> bool {
        matches!(self, Op::Write { .. } | Op::Truncate { .. })
    }
}

/// One submitted request.
pub(super) struct Request {
    pub completion: Completion,
    /// The file it works on (`None`: a path operation, unordered).
    pub file: Option<Arc<FileHandle>>,
    pub op: Op,
}

/// Ordering state of one file (see the module invariants).
#[derive(Default)]
struct FileQueue {
    /// Requests handed to the kernel and not reaped yet.
    issued: usize,
    /// Whether one of the issued requests is a barrier.
    barrier_issued: bool,
    /// Slots waiting for their turn, in submission order.
    held: VecDeque<usize>,
    /// Writes and truncates among the issued and held requests (see
    /// [`Ring::size_may_change`]).
    resizing: usize,
}

pub(super) struct Ring {
    ring: IoUring,
    slots: Vec<Option<Request>>,
    free: Vec<usize>,
    files: HashMap<u64, FileQueue>,
    /// Requests submitted and not completed (issued or held).
    outstanding: usize,
    /// Whether the kernel has `IORING_OP_FTRUNCATE` (6.9+).
    has_ftruncate: bool,
    /// Whether the kernel has `IORING_OP_STATX` (5.6+).
    has_statx: bool,
    /// Whether the kernel has `IORING_OP_UNLINKAT` (5.11+).
    has_unlinkat: bool,
    /// Issued requests of no file (existence checks), not reaped yet.
    unordered_issued: usize,
    /// Whether `io_uring_enter` takes a timeout (`IORING_FEAT_EXT_ARG`).
    has_ext_arg: bool,
    /// An eventfd registered with the ring; see `enter`.
    event_fd: i32,
    /// Whether the eventfd was handed out for an external event loop
    /// ([`Ring::export_event_fd`]); until then polls leave it alone.
    event_fd_exported: bool,
    /// Scratch for the CQEs of one reap (kept, not reallocated per poll).
    cqe_buf: Vec<(u64, i32)>,
}

fn io_err(code: i32) -> Error {
    Error::new(code, "disk I/O error")
}

fn errno_to_error(errno: i32, default: i32) -> Error {
    match errno {
        libc::ENOSPC => Error::code(SQLITE_FULL),
        _ => io_err(default),
    }
}

impl Ring {
    /// Set up a ring of `entries` submission slots with `event_fd`
    /// registered for completion notification.
    pub fn new(entries: u32, event_fd: i32) -> std::io::Result<Ring> {
        // COOP_TASKRUN: the kernel runs this ring's task work (completions
        // of requests its workers finished) when the thread next enters
        // the kernel, instead of interrupting it with an IPI wherever it
        // runs. A thread serving many tenants makes system calls all the
        // time, so nothing waits long; the interrupts cost it a fifth of
        // its time on an idle machine (`slow` bench, bench/RESULTS.md). A
        // thread asleep (in the ring or in an external epoll) is still
        // woken (`TWA_SIGNAL_NO_IPI` wakes interruptible sleepers), and
        // TASKRUN_FLAG tells `enter` when task work waits. Kernels before
        // 5.19 refuse the flags: set up without them there.
        let ring: IoUring = match IoUring::builder().setup_cqsize(entries * 4).setup_coop_taskrun().setup_taskrun_flag().build(entries) {
            Ok(r) => r,
            Err(e) if e.raw_os_error() == Some(libc::EINVAL) => IoUring::builder().setup_cqsize(entries * 4).build(entries)?,
            Err(e) => return Err(e),
        };
        let mut probe = io_uring::Probe::new();
        ring.submitter().register_probe(&mut probe)?;
        // The basic operations must really work (seccomp filters may allow
        // the setup call but deny the opcodes' use later via the probe).
        for code in [opcode::Read::CODE, opcode::Write::CODE, opcode::Fsync::CODE] {
            if !probe.is_supported(code) {
                return Err(std::io::Error::from_raw_os_error(libc::ENOSYS));
            }
        }
        ring.submitter().register_eventfd(event_fd)?;
        let has_ext_arg = ring.params().is_feature_ext_arg();
        Ok(Ring {
            has_ftruncate: probe.is_supported(opcode::Ftruncate::CODE),
            has_statx: probe.is_supported(opcode::Statx::CODE),
            has_unlinkat: probe.is_supported(opcode::UnlinkAt::CODE),
            unordered_issued: 0,
            event_fd_exported: false,
            has_ext_arg,
            ring,
            slots: Vec::new(),
            free: Vec::new(),
            files: HashMap::new(),
            outstanding: 0,
            event_fd,
            cqe_buf: Vec::new(),
        })
    }

    /// Whether size checks can be requests (`IORING_OP_STATX`).
    pub fn has_statx(&self) -> bool {
        self.has_statx
    }

    /// Whether existence checks are made as requests. They are not: as
    /// IORING_OP_STATX requests they run on the kernel's io-wq workers,
    /// which on a small machine take a core from the thread driving the
    /// tenants (`slow` bench, 2 cores: async read-mostly throughput 0.68x
    /// SQLite's with them, 0.93-1.02x without; bench/RESULTS.md). Nothing
    /// orders them after other requests, so the system call made at once
    /// answers the same.
    pub fn statx_probes(&self) -> bool {
        false
    }

    /// Whether a write or truncate of file `id` is issued or waiting:
    /// without one, a size read now answers what a request ordered after
    /// every earlier one would.
    pub fn size_may_change(&self, id: u64) -> bool {
        self.files.get(&id).is_some_and(|q| q.resizing > 0)
    }

    /// Whether deletes can be requests (`IORING_OP_UNLINKAT`).
    pub fn has_unlinkat(&self) -> bool {
        self.has_unlinkat
    }

    /// The eventfd is going to an external event loop: from now on every
    /// poll keeps it meaningful (see [`Ring::enter`]).
    pub fn export_event_fd(&mut self) {
        self.event_fd_exported = true;
    }

    pub fn disable_ftruncate(&mut self) {
        self.has_ftruncate = false;
    }

    /// Requests submitted and not completed.
    pub fn outstanding(&self) -> usize {
        self.outstanding
    }

    /// Accept a request: it is issued (pushed as an SQE) now or held
    /// behind a barrier of its file.
    pub fn submit(&mut self, req: Request) -> Result<()> {
        // invariant: uring_path_ops_unordered
        debug_assert_eq!(
            matches!(req.op, Op::Exists { .. } | Op::Unlink { .. }),
            req.file.is_none(),
            "a path operation with a file, or a file operation without one"
        );
        let file_id = req.file.as_ref().map(|f| f.id);
        let barrier = req.op.is_barrier();
        let resizes = req.op.resizes();
        let slot = match self.free.pop() {
            Some(s) => {
                self.slots[s] = Some(req);
                s
            }
            None => {
                self.slots.push(Some(req));
                self.slots.len() - 1
            }
        };
        self.outstanding += 1;
        let Some(file_id) = file_id else {
            return self.issue_or_free(slot);
        };
        let q = self.files.entry(file_id).or_default();
        q.resizing += resizes as usize;
        let must_wait = !q.held.is_empty() || q.barrier_issued || (barrier && q.issued > 0);
        if must_wait {
            q.held.push_back(slot);
            return Ok(());
        }
        self.issue_or_free(slot)
    }

    /// Issue `slot`; if it cannot be queued, forget the request.
    fn issue_or_free(&mut self, slot: usize) -> Result<()> {
        let r = self.issue(slot);
        if r.is_err() {
            if let Some(req) = self.slots[slot].take() {
                self.free.push(slot);
                self.outstanding -= 1;
                self.forget_resize(&req);
            }
        }
        r
    }

    /// A request of the file's `resizing` count is gone.
    fn forget_resize(&mut self, req: &Request) {
        if let (Some(f), true) = (&req.file, req.op.resizes()) {
            if let Some(q) = self.files.get_mut(&f.id) {
                q.resizing -= 1;
            }
        }
    }

    /// Hand slot `slot` to the kernel (or, for a truncate the kernel cannot
    /// do, run it here and complete it at once).
    fn issue(&mut self, slot: usize) -> Result<()> {
        let Some(req) = self.slots[slot].as_mut() else {
            return Err(Error::new(crate::error::SQLITE_INTERNAL, "io_uring slot lost"));
        };
        let file_id = req.file.as_ref().map(|f| f.id);
        let barrier = req.op.is_barrier();
        match file_id {
            Some(id) => {
                let q = self.files.entry(id).or_default();
                // invariant: uring_barrier_order
                debug_assert!(!q.barrier_issued && (!barrier || q.issued == 0), "a request of file {id} issued across a barrier");
                q.issued += 1;
                q.barrier_issued |= barrier;
            }
            None => self.unordered_issued += 1,
        }
        let req = self.slots[slot].as_mut().expect("slot checked above");
        let fd = match &req.op {
            Op::SyncDir { dir } => types::Fd(std::os::unix::io::AsRawFd::as_raw_fd(dir)),
            _ => types::Fd(req.file.as_ref().map_or(libc::AT_FDCWD, |f| f.fd())),
        };
        let entry = match &mut req.op {
            Op::Read { buf, offset, done } => {
                let rest = &mut buf[*done..];
                // The kernel writes through this pointer later. Sound
                // because the slot owns `buf` until the CQE for `slot` is
                // reaped, the buffer is never resized or touched meanwhile,
                // and moving the slot moves only the Vec header, not its
                // heap allocation.
                opcode::Read::new(fd, rest.as_mut_ptr(), rest.len() as u32).offset(*offset + *done as u64).build()
            }
            Op::Write { buf, offset, done } => {
                let rest = &buf[*done..];
                opcode::Write::new(fd, rest.as_ptr(), rest.len() as u32).offset(*offset + *done as u64).build()
            }
            Op::Sync { data_only } => {
                let flags = if *data_only { types::FsyncFlags::DATASYNC } else { types::FsyncFlags::empty() };
                opcode::Fsync::new(fd).flags(flags).build()
            }
            Op::SyncDir { .. } => opcode::Fsync::new(fd).build(),
            Op::Exists { path, buf, .. } => {
                // The kernel copies the path when the SQE is submitted and
                // writes `buf` when the lookup is done; the slot owns both
                // until the CQE is reaped (module invariants).
                let out: *mut libc::statx = &mut **buf;
                opcode::Statx::new(fd, path.as_ptr(), out.cast()).mask(libc::STATX_SIZE).build()
            }
            Op::Unlink { path } => opcode::UnlinkAt::new(fd, path.as_ptr()).build(),
            Op::Size { buf } => {
                let out: *mut libc::statx = &mut **buf;
                opcode::Statx::new(fd, c"".as_ptr(), out.cast()).flags(libc::AT_EMPTY_PATH).mask(libc::STATX_SIZE).build()
            }
            Op::Truncate { size } if self.has_ftruncate => opcode::Ftruncate::new(fd, *size).build(),
            Op::Truncate { size } => {
                // Kernels before 6.9 have no ftruncate opcode: do it here;
                // its turn in the file's order has come, so this is exact.
                let result = match &req.file {
                    Some(f) => f.set_len(*size).map(|_| 0).map_err(|e| e.raw_os_error().unwrap_or(libc::EIO)),
                    None => Err(libc::EBADF),
                };
                self.finish(slot, result);
                return Ok(());
            }
        };
        if let Err(e) = self.push(entry.user_data(slot as u64)) {
            self.unissue(file_id, barrier);
            return Err(e);
        }
        Ok(())
    }

    fn push(&mut self, entry: squeue::Entry) -> Result<()> {
        // SAFETY: every pointer in `entry` points into a buffer owned by the
        // slot named by its user_data, which outlives the request (see the
        // module invariants); fd-only entries reference no memory.
        if unsafe { self.ring.submission().push(&entry) }.is_ok() {
            return Ok(());
        }
        // Submission queue full: hand what is queued to the kernel now.
        self.ring.submit().map_err(|_| io_err(SQLITE_IOERR))?;
        // SAFETY: as above.
        unsafe { self.ring.submission().push(&entry) }.map_err(|_| io_err(SQLITE_IOERR))
    }

    /// Submit queued SQEs, wait as `timeout` says, reap CQEs and complete
    /// their requests. Returns how many requests completed.
    pub fn enter(&mut self, timeout: Option<Duration>) -> Result<usize> {
        // Reset the eventfd before reaping: a CQE posted after this point
        // makes it readable again, so an external epoll loop never misses
        // one. (Only when someone sleeps on it: an external loop, or the
        // timed wait below on kernels without EXT_ARG.)
        let event_fd_used = self.event_fd_exported || !self.has_ext_arg;
        if event_fd_used {
            self.drain_event_fd();
        }
        let cq_ready = !self.ring.completion().is_empty();
        let want_wait = self.outstanding > 0 && !cq_ready && timeout != Some(Duration::ZERO);
        let r = if !want_wait {
            // Nothing to hand over and no completions held back in the
            // kernel (overflow): the completion queue is read in memory,
            // no system call needed. (Completions the kernel finishes as
            // task work interrupt this thread and are posted anyway.)
            let sq = self.ring.submission();
            if sq.is_empty() && !sq.cq_overflow() && !sq.taskrun() {
                Ok(0)
            } else {
                drop(sq);
                self.ring.submit()
            }
        } else {
            match timeout {
                None => self.ring.submit_and_wait(1),
                Some(d) if self.has_ext_arg => {
                    let ts = types::Timespec::from(d);
                    let args = types::SubmitArgs::new().timespec(&ts);
                    self.ring.submitter().submit_with_args(1, &args)
                }
                Some(d) => self.ring.submit().inspect(|_| self.wait_event_fd(d)),
            }
        };
        match r {
            Ok(_) => {}
            Err(e) if matches!(e.raw_os_error(), Some(libc::ETIME) | Some(libc::EINTR) | Some(libc::EBUSY)) => {}
            Err(_) => return Err(io_err(SQLITE_IOERR)),
        }
        let done = self.reap()?;
        // Completions reaped here may belong to statements the caller has
        // not stepped yet: an event loop that polls (with no wait) just
        // before it sleeps must wake at once, not sleep on them (with every
        // request already reaped nothing would wake it). So the descriptor
        // stays readable until a poll reaps nothing.
        if done > 0 && self.event_fd_exported {
            self.signal_event_fd();
        }
        Ok(done)
    }

    fn signal_event_fd(&self) {
        let one = 1u64;
        // SAFETY: writing 8 bytes from a local u64 to our own eventfd.
        unsafe { libc::write(self.event_fd, (&one as *const u64).cast(), 8) };
    }

    fn drain_event_fd(&self) {
        let mut v = 0u64;
        // SAFETY: reading 8 bytes into a local u64 from our own non-blocking
        // eventfd; failure (EAGAIN when already zero) is harmless.
        unsafe { libc::read(self.event_fd, (&mut v as *mut u64).cast(), 8) };
    }

    fn wait_event_fd(&self, d: Duration) {
        let mut pfd = libc::pollfd { fd: self.event_fd, events: libc::POLLIN, revents: 0 };
        let ms = d.as_millis().min(i32::MAX as u128) as i32;
        // SAFETY: one valid pollfd on the stack.
        unsafe { libc::poll(&mut pfd, 1, ms) };
    }

    fn reap(&mut self) -> Result<usize> {
        let mut done = 0;
        // (The CQEs are copied out first: handling one may push SQEs.
        // The buffer is kept from poll to poll.)
        let mut cqes = std::mem::take(&mut self.cqe_buf);
        loop {
            cqes.clear();
            cqes.extend(self.ring.completion().map(|c| (c.user_data(), c.result())));
            if cqes.is_empty() {
                break;
            }
            for &(user_data, res) in &cqes {
                match self.on_cqe(user_data as usize, res) {
                    Ok(n) => done += n,
                    Err(e) => {
                        self.cqe_buf = cqes;
                        return Err(e);
                    }
                }
            }
        }
        self.cqe_buf = cqes;
        // Continuations and released requests pushed while reaping go to
        // the kernel now rather than at the next poll.
        if !self.ring.submission().is_empty() {
            self.ring.submit().map_err(|_| io_err(SQLITE_IOERR))?;
        }
        Ok(done)
    }

    /// Handle one CQE; returns 1 if its request completed, 0 if it was
    /// continued.
    fn on_cqe(&mut self, slot: usize, res: i32) -> Result<usize> {
        let Some(req) = self.slots.get_mut(slot).and_then(|s| s.as_mut()) else {
            return Ok(0);
        };
        let file_id = req.file.as_ref().map(|f| f.id);
        if res == -libc::EINTR || res == -libc::EAGAIN {
            self.reissue(slot, file_id)?;
            return Ok(0);
        }
        if res > 0 {
            match &mut req.op {
                Op::Read { buf, done, .. } | Op::Write { buf, done, .. } => {
                    *done += res as usize;
                    // invariant: uring_short_io_continued
                    if *done < buf.len() {
                        self.reissue(slot, file_id)?;
                        return Ok(0);
                    }
                }
                _ => {}
            }
        }
        let result = if res < 0 { Err(-res) } else { Ok(res as usize) };
        self.finish(slot, result);
        Ok(1)
    }

    /// Push the rest of a partly done request again (it stays issued).
    fn reissue(&mut self, slot: usize, file_id: Option<u64>) -> Result<()> {
        let barrier = self.slots[slot].as_ref().is_some_and(|r| r.op.is_barrier());
        self.unissue(file_id, barrier);
        self.issue(slot)
    }

    /// Undo the bookkeeping of [`Ring::issue`] for a request that is no
    /// longer in the kernel's hands.
    fn unissue(&mut self, file_id: Option<u64>, barrier: bool) {
        match file_id {
            Some(id) => {
                if let Some(q) = self.files.get_mut(&id) {
                    q.issued -= 1;
                    if barrier {
                        q.barrier_issued = false;
                    }
                }
            }
            None => self.unordered_issued -= 1,
        }
    }

    /// Complete the request in `slot` with `result` (errno on failure),
    /// free the slot and release requests of its file that waited.
    fn finish(&mut self, slot: usize, result: std::result::Result<usize, i32>) {
        let Some(req) = self.slots[slot].take() else { return };
        self.free.push(slot);
        self.outstanding -= 1;
        self.forget_resize(&req);
        let file_id = req.file.as_ref().map(|f| f.id);
        let outcome = match req.op {
            Op::Read { mut buf, done, .. } => match result {
                Ok(_) => {
                    buf[done..].fill(0);
                    Ok(CompletionResult { bytes: done, buffer: Some(buf) })
                }
                Err(e) => Err(errno_to_error(e, SQLITE_IOERR_READ)),
            },
            Op::Write { buf, done, .. } => match result {
                // A zero-byte write of a non-empty buffer would loop forever.
                Ok(_) if done < buf.len() => Err(io_err(SQLITE_IOERR_WRITE)),
                Ok(_) => Ok(CompletionResult { bytes: done, buffer: Some(buf) }),
                Err(e) => Err(errno_to_error(e, SQLITE_IOERR_WRITE)),
            },
            Op::Sync { .. } => result.map(|_| CompletionResult { bytes: 0, buffer: None }).map_err(|_| io_err(SQLITE_IOERR_FSYNC)),
            // As in SQLite, a directory that cannot be synced fails nothing.
            Op::SyncDir { .. } => Ok(CompletionResult { bytes: 0, buffer: None }),
            Op::Truncate { .. } => result.map(|_| CompletionResult { bytes: 0, buffer: None }).map_err(|_| io_err(SQLITE_IOERR_TRUNCATE)),
            Op::Size { buf } => match result {
                Ok(_) => Ok(CompletionResult { bytes: buf.stx_size as usize, buffer: None }),
                Err(_) => Err(io_err(SQLITE_IOERR_FSTAT)),
            },
            // The errors of the `sync` backend's delete.
            Op::Unlink { .. } => match result {
                Ok(_) => Ok(CompletionResult { bytes: 0, buffer: None }),
                Err(libc::ENOENT) => Err(Error::new(SQLITE_IOERR_DELETE_NOENT, "disk I/O error")),
                Err(_) => Err(io_err(SQLITE_IOERR_DELETE)),
            },
            // As `std::fs::metadata(..).map_or(false, ..)`: any failure
            // (ENOENT, EACCES, ...) means "does not exist".
            Op::Exists { buf, needs_content, .. } => {
                let exists = result.is_ok() && (!needs_content || buf.stx_size > 0);
                Ok(CompletionResult { bytes: exists as usize, buffer: None })
            }
        };
        req.completion.complete(outcome);
        let Some(file_id) = file_id else {
            self.unordered_issued -= 1;
            return;
        };
        let barrier_done = {
            let q = self.files.entry(file_id).or_default();
            q.issued -= 1;
            q.barrier_issued && q.issued == 0
        };
        if barrier_done {
            if let Some(q) = self.files.get_mut(&file_id) {
                q.barrier_issued = false;
            }
        }
        self.release_held(file_id);
    }

    /// Issue the held requests of a file whose turn has come.
    fn release_held(&mut self, file_id: u64) {
        loop {
            let Some(q) = self.files.get_mut(&file_id) else { return };
            let Some(&front) = q.held.front() else {
                if q.issued == 0 {
                    self.files.remove(&file_id);
                }
                return;
            };
            let barrier = self.slots[front].as_ref().is_some_and(|r| r.op.is_barrier());
            if q.barrier_issued || (barrier && q.issued > 0) {
                return;
            }
            q.held.pop_front();
            if let Err(e) = self.issue(front) {
                // Could not even queue it: fail this request, keep going.
                if let Some(req) = self.slots[front].take() {
                    self.free.push(front);
                    self.outstanding -= 1;
                    self.forget_resize(&req);
                    req.completion.complete(Err(e));
                }
            }
        }
    }
}

impl Drop for Ring {
    fn drop(&mut self) {
        // The kernel may still write into buffers the slots own: wait for
        // every issued request before the slots (and buffers) are freed.
        let mut guard = 0;
        while (self.unordered_issued > 0 || self.files.values().any(|q| q.issued > 0)) && guard < 1_000_000 {
            if self.ring.submit_and_wait(1).is_err() {
                guard += 1;
            }
            let _ = self.reap();
        }
        // invariant: uring_buffers_owned
        debug_assert!(
            guard == 1_000_000 || (self.unordered_issued == 0 && self.files.values().all(|q| q.issued == 0)),
            "io_uring dropped with requests in flight"
        );
    }
}
