//! # Files of the io_uring backend
//!
//! A [`UringFile`] is what the pager holds; its reads, writes, syncs and
//! truncates become requests on the backend's ring and return pending
//! completions. Size, locks and shared memory are synchronous and use the
//! same POSIX lock code and `-shm` mapping as the `sync` backend
//! ([`crate::io::lock`], [`crate::io::shm`]), so
//! both backends (and real SQLite processes) share database files
//! correctly.
//!
//! Invariant: the descriptor lives in a `FileHandle` that every request
//! keeps an `Arc` of, so it stays open until the last request on it has
//! been reaped, even if the `UringFile` was dropped meanwhile; it is closed
//! only through [`lock::release_inode`] (deferred while this process holds
//! a lock on the inode) (checked: descriptor_close_deferred).

use super::ring::{Op, Request};
use super::Shared;
use crate::error::{Error, Result, SQLITE_IOERR};
use crate::io::lock::{self, InodeLock};
use crate::io::lock_style::LockStyle;
use crate::io::shm::FileShm;
use crate::io::{Buffer, Completion, File, LockLevel, ShmRegion};
use std::os::unix::io::AsRawFd;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};

static NEXT_FILE_ID: AtomicU64 = AtomicU64::new(1);

/// The open descriptor and what closing it needs.
pub(super) struct FileHandle {
    /// Unique per open, keys the ring's per-file ordering.
    pub id: u64,
    file: Option<std::fs::File>,
    dev: u64,
    ino: u64,
    pub inode: InodeLock,
    path: String,
    delete_on_close: bool,
}

impl FileHandle {
    pub fn new(file: std::fs::File, dev: u64, ino: u64, path: &str, delete_on_close: bool) -> FileHandle {
        FileHandle {
            id: NEXT_FILE_ID.fetch_add(1, Ordering::Relaxed),
            inode: lock::acquire_inode(dev, ino),
            file: Some(file),
            dev,
            ino,
            path: path.to_string(),
            delete_on_close,
        }
    }

    pub fn fd(&self) -> i32 {
        self.file.as_ref().map_or(-1, |f| f.as_raw_fd())
    }

    pub fn set_len(&self, size: u64) -> std::io::Result<()> {
        match &self.file {
            Some(f) => f.set_len(size),
            None => Err(std::io::Error::from_raw_os_error(libc::EBADF)),
        }
    }

    fn std_file(&self) -> Result<&std::fs::File> {
        self.file.as_ref().ok_or_else(|| Error::new(SQLITE_IOERR, "disk I/O error"))
    }
}

impl Drop for FileHandle {
    fn drop(&mut self) {
        if let Some(f) = self.file.take() {
            lock::release_inode(self.dev, self.ino, &self.inode, f);
        }
        if self.delete_on_close {
            let _ = std::fs::remove_file(crate::io::os_path::os_path(&self.path));
        }
    }
}

/// A file opened by [`super::IoUringBackend`].
pub struct UringFile {
    pub(super) handle: Arc<FileHandle>,
    /// The WAL index (`-shm`), the same shared memory the `sync` backend
    /// and SQLite processes use.
    pub(super) shm: FileShm,
    pub(super) shared: Arc<Shared>,
    pub(super) level: Mutex<LockLevel>,
    /// Main database files: their directory, for journal and WAL probes.
    pub(super) siblings: Option<crate::io::sibling::Siblings>,
    /// The directory is synced with the next sync (see
    /// [`crate::io::needs_dir_sync`]).
    pub(super) dir_sync_pending: std::sync::atomic::AtomicBool,
    pub(super) modes: crate::io::FileModes,
    /// How [`File::read_now`] answers on this file: a [`ReadNow`] as `u8`
    /// (the file system decides, so it is per file: a database on tmpfs
    /// must not turn the fast path off for one on ext4).
    pub(super) read_now: AtomicU8,
    /// How the file is locked (`io/lock_style.rs` unless POSIX).
    pub(super) lock_style: LockStyle,
}

/// How a small read of cached bytes is answered at once.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(u8)]
pub(super) enum ReadNow {
    /// `preadv2(RWF_NOWAIT)`: fails with `EAGAIN` rather than wait.
    NoWait = 0,
    /// A plain `pread`: the file lives in memory (tmpfs, ramfs), where
    /// `RWF_NOWAIT` is refused but a read never waits for a device (the
    /// kernel's io_uring would hand every read of it to a worker thread).
    Memory = 1,
    /// Neither: every read goes through the ring.
    Never = 2,
}

impl ReadNow {
    /// What the file system of `file` allows.
    pub(super) fn of(file: &std::fs::File) -> ReadNow {
        // (Magic numbers of linux/magic.h.)
        const TMPFS_MAGIC: i64 = 0x0102_1994;
        const RAMFS_MAGIC: i64 = 0x8584_58f6;
        // SAFETY: fstatfs only writes the struct we hand it; the
        // descriptor is open for the call.
        let mut st: libc::statfs = unsafe { std::mem::zeroed() };
        if unsafe { libc::fstatfs(file.as_raw_fd(), &mut st) } != 0 {
            return ReadNow::NoWait;
        }
        #[allow(clippy::unnecessary_cast, reason = "`statfs::f_type` is a different integer type on other targets")]
        let kind = st.f_type as i64;
        if kind == TMPFS_MAGIC || kind == RAMFS_MAGIC {
            ReadNow::Memory
        } else {
            ReadNow::NoWait
        }
    }
}

impl UringFile {
    fn submit(&self, op: Op) -> Result<Completion> {
        let completion = Completion::new();
        let req = Request { completion: completion.clone(), file: Some(self.handle.clone()), op };
        self.shared.ring().submit(req)?;
        Ok(completion)
    }
}

impl File for UringFile {
    fn has_moved(&self) -> Result<bool> {
        let h = &self.handle;
        Ok(!h.delete_on_close && !h.path.is_empty() && crate::io::path_has_moved(&h.path, h.dev, h.ino))
    }
    fn read(&self, offset: u64, buf: Buffer) -> Result<Completion> {
        self.submit(Op::Read { buf, offset, done: 0 })
    }

    fn write(&self, offset: u64, buf: Buffer) -> Result<Completion> {
        self.submit(Op::Write { buf, offset, done: 0 })
    }

    fn read_now(&self, offset: u64, buf: &mut [u8]) -> Option<Result<usize>> {
        let mode = self.read_now.load(Ordering::Relaxed);
        if mode == ReadNow::Never as u8 || self.shared.ring().size_may_change(self.handle.id) {
            return None;
        }
        let flags = if mode == ReadNow::Memory as u8 { 0 } else { libc::RWF_NOWAIT };
        let fd = self.handle.std_file().ok()?.as_raw_fd();
        let mut done = 0;
        while done < buf.len() {
            let rest = &mut buf[done..];
            let iov = libc::iovec { iov_base: rest.as_mut_ptr().cast(), iov_len: rest.len() };
            // SAFETY: one iovec describing memory of `buf`, borrowed
            // mutably and so alive and unaliased for the call.
            let r = unsafe { libc::preadv2(fd, &iov, 1, (offset + done as u64) as libc::off_t, flags) };
            if r == 0 {
                break;
            }
            if r < 0 {
                let e = std::io::Error::last_os_error().raw_os_error();
                if matches!(e, Some(libc::EOPNOTSUPP) | Some(libc::ENOSYS) | Some(libc::EINVAL)) {
                    self.read_now.store(ReadNow::Never as u8, Ordering::Relaxed);
                }
                // (EAGAIN: not cached. Errors are the ring read's to report.)
                return None;
            }
            done += r as usize;
        }
        buf[done..].fill(0);
        Some(Ok(done))
    }

    fn sync(&self, data_only: bool) -> Result<Completion> {
        if self.dir_sync_pending.swap(false, Ordering::Relaxed) {
            // Queued before the file's sync, which waits for it: the
            // caller waits on that one and so on both. (Opening the
            // directory is a system call made here, like the journal's
            // own open; the fsync itself goes through the ring.)
            if let Some(dir) = crate::io::open_parent_dir(&self.handle.path) {
                self.submit(Op::SyncDir { dir })?;
            }
        }
        self.submit(Op::Sync { data_only })
    }

    fn truncate(&self, size: u64) -> Result<Completion> {
        self.submit(Op::Truncate { size: self.modes.chunked(size) })
    }

    fn external_reader(&self) -> Result<bool> {
        self.shm.external_reader()
    }

    fn modes(&self) -> Option<&crate::io::FileModes> {
        Some(&self.modes)
    }

    fn hint(&self, hint: crate::io::FileHint) {
        // With chunks, the file grows to the next whole chunk before the
        // pages past its end are written (SQLite's unix VFS, SIZE_HINT):
        // a truncate request, ordered after what was submitted before it.
        // Its outcome is not awaited; a failure leaves the writes to
        // extend the file.
        if let crate::io::FileHint::SizeHint(want) = hint {
            let target = self.modes.chunked(want);
            if self.modes.chunk_size() > 0 && self.size().is_ok_and(|have| have < target) {
                let _ = self.submit(Op::Truncate { size: target });
            }
        }
    }

    fn size_request(&self) -> Result<Completion> {
        // With no write or truncate in flight on the file (a read
        // transaction's header read may be), the size read at once is the
        // one a request would see, without a trip through the kernel's
        // workers, which costs a query tens of microseconds (see
        // `Ring::statx_probes`).
        let at_once = {
            let ring = self.shared.ring();
            !ring.has_statx() || !ring.size_may_change(self.handle.id)
        };
        if at_once {
            let size = self.size()?;
            return Ok(Completion::ready(Ok(crate::io::CompletionResult { bytes: size as usize, buffer: None })));
        }
        // SAFETY: an all-zero `statx` is a valid value of this plain C struct.
        let buf: Box<libc::statx> = Box::new(unsafe { std::mem::zeroed() });
        self.submit(Op::Size { buf })
    }

    fn size(&self) -> Result<u64> {
        crate::io::os_file_size(self.handle.std_file()?).map_err(|_| Error::new(crate::error::SQLITE_IOERR_FSTAT, "disk I/O error"))
    }

    fn lock(&self, level: LockLevel) -> Result<bool> {
        let fd = self.handle.std_file()?.as_raw_fd();
        let mut held = self.level.lock().unwrap_or_else(|p| p.into_inner());
        match self.lock_style {
            LockStyle::Posix => lock::lock(fd, &self.handle.inode, &mut held, level),
            style => crate::io::lock_style::lock(style, &self.handle.path, &mut held, level),
        }
    }

    fn unlock(&self, level: LockLevel) -> Result<()> {
        let fd = self.handle.std_file()?.as_raw_fd();
        let mut held = self.level.lock().unwrap_or_else(|p| p.into_inner());
        match self.lock_style {
            LockStyle::Posix => lock::unlock(fd, &self.handle.inode, &mut held, level),
            style => crate::io::lock_style::unlock(style, &self.handle.path, &mut held, level),
        }
    }

    fn has_shared_memory(&self) -> bool {
        self.lock_style == LockStyle::Posix
    }

    fn check_reserved_lock(&self) -> Result<bool> {
        if self.lock_style != LockStyle::Posix {
            return crate::io::lock_style::check_reserved(self.lock_style, &self.handle.path, self.lock_level());
        }
        if self.lock_level() > LockLevel::Shared {
            return Ok(true);
        }
        lock::check_reserved(self.handle.std_file()?.as_raw_fd(), &self.handle.inode)
    }

    fn lock_level(&self) -> LockLevel {
        *self.level.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn shm_map(&self, region: usize, region_size: usize, extend: bool) -> Result<Option<ShmRegion>> {
        self.shm.map(region, region_size, extend)
    }

    fn shm_lock(&self, offset: usize, n: usize, exclusive: bool, lock: bool) -> Result<bool> {
        self.shm.lock(offset, n, exclusive, lock)
    }

    fn shm_unmap(&self, delete: bool) -> Result<()> {
        self.shm.unmap(delete)
    }

    fn sibling_exists(&self, suffix: &str) -> Option<bool> {
        self.siblings.as_ref().map(|s| s.exists(suffix))
    }
}

impl Drop for UringFile {
    fn drop(&mut self) {
        let _ = self.shm.unmap(false);
        let _ = self.unlock(LockLevel::None);
    }
}
