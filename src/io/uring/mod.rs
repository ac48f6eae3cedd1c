//! # The `io_uring` backend
//!
//! Reads, writes, syncs and truncates become SQEs on one ring; `submit`
//! only queues them and returns a pending [`Completion`](crate::io::Completion). [`IoBackend::poll`]
//! is the single place that talks to the kernel: one `io_uring_enter` both
//! submits everything queued since the last poll and (if asked) waits, then
//! the CQEs are reaped and their completions finished. So a thread serving
//! many connections (one ring per thread, see [`crate::io::select`]) pays
//! one system call for all of their requests.
//!
//! Requests other than data transfer, there for the thread serving many
//! connections (the kernel runs them on its io-wq workers, so that thread
//! does not pay them inline): the existence checks at the start of every
//! read transaction (hot journal, `-wal`) and the database file's size
//! then are `IORING_OP_STATX` requests, and deleting the journal at commit
//! is `IORING_OP_UNLINKAT` (freeing the file's pages is the expensive
//! part), where the kernel has those opcodes. What stays synchronous:
//! opening files, deleting with a directory sync, [`File::size`](super::File::size),
//! and locks (the same POSIX protocol as the `sync` backend, which never
//! waits anyway). Truncate uses `IORING_OP_FTRUNCATE` where the kernel has
//! it (6.9+) and otherwise runs inline when its turn comes.
//!
//! An eventfd is registered with the ring ([`IoBackend::event_fd`]): it is
//! readable whenever CQEs are waiting to be reaped, so an external event
//! loop can sleep in epoll and call `poll(Some(ZERO))` when it fires. Once
//! handed out, a poll that reaped completions leaves it readable (their
//! statements have not seen them yet; a loop polling just before it sleeps
//! must not sleep on them). The kernel finishes some requests (those its
//! io-wq workers ran, buffered reads retried after a page-cache miss,
//! completions while the completion queue is full) as task work of the
//! submitting thread. The ring is set up with `COOP_TASKRUN` (where the
//! kernel has it, 5.19+): a running thread is not interrupted for that
//! work, which waits for its next system call (a thread driving tenants
//! makes them all the time; the interrupts cost it a fifth of its time),
//! while a sleeping one is still woken to run it, so an external
//! `epoll_wait` may fail with `EINTR`, which callers treat as a wakeup.
//!
//! Registered (fixed) buffers are not used: the pager's buffers are owned
//! `Vec`s that move into the request, so fixed buffers would need a copy
//! out of a registered pool per request. `examples/uring_bench.rs` measured
//! that copy costing more than the page pinning it saves for 4 KiB pages
//! (numbers in its header).
//!
//! Threads: the ring sits behind a mutex, and `poll(None)` holds it while
//! the kernel waits. Rings are per thread ([`crate::io::select`]), so this
//! only matters if a connection is moved to another thread: its submits
//! then wait until the owning thread's poll returns (at the next
//! completion), which is correct but not concurrent.
//!
//! Setup needs kernel 5.6+ (the opcode probe); anything less, or a denied
//! setup, is an error here and a silent fallback to `sync` in `select`.
//!
//! The backend's invariants are stated where they are kept: `ring.rs`
//! (buffer ownership, per-file ordering of barriers) and [`mod@file`]
//! (descriptor lifetime).

#![allow(unsafe_code, reason = "submits reads and writes into buffers the kernel fills while the request is in flight")]

pub mod file;
mod ring;

use super::{File, IoBackend, LockLevel, OpenOptions};
use crate::error::{Error, Result};
use file::{FileHandle, UringFile};
use ring::Ring;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::fs::MetadataExt;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

/// Submission queue entries per ring (the completion queue is 4x as big;
/// more requests than this in flight just submit early).
const RING_ENTRIES: u32 = 256;

/// State shared by the backend and its files.
pub(crate) struct Shared {
    ring: Mutex<Ring>,
    /// Declared after `ring`, so the ring (which drains in-flight requests
    /// on drop) is gone before the eventfd is closed.
    event_fd: OwnedFd,
}

impl Shared {
    fn ring(&self) -> MutexGuard<'_, Ring> {
        self.ring.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The io_uring backend.
pub struct IoUringBackend {
    shared: Arc<Shared>,
    paths: super::sync::SyncBackend,
}

impl IoUringBackend {
    /// Set up a ring. Fails (with the OS error as an `SQLITE_IOERR`-class
    /// error) where io_uring is unavailable: old kernels (`ENOSYS`),
    /// `kernel.io_uring_disabled`, seccomp filters (`EPERM`).
    pub fn new() -> Result<IoUringBackend> {
        // SAFETY: eventfd(2) with constant flags; the result is checked
        // before it is wrapped as an owned descriptor.
        let raw = unsafe { libc::eventfd(0, libc::EFD_CLOEXEC | libc::EFD_NONBLOCK) };
        if raw < 0 {
            return Err(Error::from(std::io::Error::last_os_error()));
        }
        // SAFETY: `raw` is a fresh descriptor nobody else owns.
        let event_fd = unsafe { OwnedFd::from_raw_fd(raw) };
        let ring = Ring::new(RING_ENTRIES, event_fd.as_raw_fd()).map_err(|e| Error::new(crate::error::SQLITE_IOERR, format!("io_uring setup failed: {e}")))?;
        Ok(IoUringBackend { shared: Arc::new(Shared { ring: Mutex::new(ring), event_fd }), paths: super::sync::SyncBackend::new() })
    }

    /// Behave as on kernels before 6.9 (no `IORING_OP_FTRUNCATE`): truncates
    /// run inline when their turn comes. For tests of that path.
    #[doc(hidden)]
    pub fn disable_ftruncate_opcode(&self) {
        self.shared.ring().disable_ftruncate();
    }

    /// Requests submitted and not yet completed.
    pub fn in_flight(&self) -> usize {
        self.shared.ring().outstanding()
    }
}

impl IoBackend for IoUringBackend {
    fn name(&self) -> &'static str {
        "io_uring"
    }

    fn open(&self, path: &str, opts: OpenOptions) -> Result<Arc<dyn File>> {
        let (file, meta) = crate::io::posix_open::open(path, &opts)?;
        let read_now = file::ReadNow::of(&file) as u8;
        let handle = FileHandle::new(file, meta.dev(), meta.ino(), path, opts.delete_on_close);
        Ok(Arc::new(UringFile {
            handle: Arc::new(handle),
            shm: super::shm::FileShm::new(meta.dev(), meta.ino(), path),
            shared: self.shared.clone(),
            level: Mutex::new(LockLevel::None),
            siblings: if opts.kind == super::FileKind::MainDb && !opts.delete_on_close { super::sibling::Siblings::open(path) } else { None },
            dir_sync_pending: super::needs_dir_sync(&opts).into(),
            modes: crate::io::FileModes::default(),
            read_now: read_now.into(),
            lock_style: opts.lock_style,
        }))
    }

    fn delete(&self, path: &str, sync_dir: bool) -> Result<()> {
        self.paths.delete(path, sync_dir)
    }

    fn exists(&self, path: &str) -> Result<bool> {
        self.paths.exists(path)
    }

    fn delete_request(&self, path: &str, sync_dir: bool) -> Result<super::Completion> {
        let mut ring = self.shared.ring();
        // Syncing the directory after the unlink stays synchronous.
        let path_c = std::ffi::CString::new(crate::io::os_path::to_bytes(path).into_owned()).ok().filter(|_| ring.has_unlinkat() && !sync_dir);
        let Some(path_c) = path_c else {
            drop(ring);
            return Ok(super::Completion::ready(self.paths.delete(path, sync_dir).map(|()| super::CompletionResult { bytes: 0, buffer: None })));
        };
        let completion = super::Completion::new();
        ring.submit(ring::Request { completion: completion.clone(), file: None, op: ring::Op::Unlink { path: path_c } })?;
        Ok(completion)
    }

    fn exists_request(&self, path: &str) -> Result<super::Completion> {
        let mut ring = self.shared.ring();
        if !ring.has_statx() || !ring.statx_probes() {
            drop(ring);
            let exists = self.paths.exists(path)?;
            return Ok(super::Completion::ready(Ok(super::CompletionResult { bytes: exists as usize, buffer: None })));
        }
        // Journals and WALs only count when they hold something (as in
        // the `sync` backend's `exists`).
        let needs_content = path.ends_with("-journal") || path.ends_with("-wal");
        let Ok(path) = std::ffi::CString::new(crate::io::os_path::to_bytes(path).into_owned()) else {
            return Ok(super::Completion::ready(Ok(super::CompletionResult { bytes: 0, buffer: None })));
        };
        let completion = super::Completion::new();
        // SAFETY: an all-zero `statx` is a valid value of this plain C struct.
        let buf: Box<libc::statx> = Box::new(unsafe { std::mem::zeroed() });
        ring.submit(ring::Request { completion: completion.clone(), file: None, op: ring::Op::Exists { path, buf, needs_content } })?;
        Ok(completion)
    }

    fn full_path(&self, path: &str) -> Result<String> {
        self.paths.full_path(path)
    }

    fn poll(&self, timeout: Option<Duration>) -> Result<usize> {
        self.shared.ring().enter(timeout)
    }

    fn event_fd(&self) -> Option<i32> {
        self.shared.ring().export_event_fd();
        Some(self.shared.event_fd.as_raw_fd())
    }
}
