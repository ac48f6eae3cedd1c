//! # The `sync` backend: plain positioned system calls
//!
//! Every request runs inside `submit` (pread/pwrite/fsync/ftruncate via the
//! standard library's positioned I/O) and its completion is already done
//! when the call returns, so [`IoBackend::poll`] has nothing to reap.
//! Locks use the POSIX protocol of [`super::lock`], so this backend shares
//! database files correctly with real SQLite processes.
//!
//! Invariant: a handle's descriptor is closed only through
//! [`lock::release_inode`], which defers the close while any connection of
//! this process holds a lock on the same inode (checked:
//! descriptor_close_deferred).

use super::lock::{self, InodeLock};
use super::lock_style::{self, LockStyle};
use super::{Buffer, Completion, CompletionResult, File, IoBackend, LockLevel, OpenOptions};
use crate::error::{Error, Result, SQLITE_IOERR_DELETE, SQLITE_IOERR_FSYNC, SQLITE_IOERR_READ, SQLITE_IOERR_TRUNCATE, SQLITE_IOERR_WRITE};
use std::os::unix::fs::{FileExt, MetadataExt};
use std::os::unix::io::AsRawFd;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The synchronous backend.
#[derive(Debug, Default)]
pub struct SyncBackend;

impl SyncBackend {
    /// A new backend.
    pub fn new() -> Self {
        SyncBackend
    }
}

/// A file opened by [`SyncBackend`].
pub struct SyncFile {
    file: Option<std::fs::File>,
    path: String,
    dev: u64,
    ino: u64,
    inode: InodeLock,
    level: Mutex<LockLevel>,
    delete_on_close: bool,
    shm: super::shm::FileShm,
    /// Main database files: their directory, for journal and WAL probes.
    siblings: Option<super::sibling::Siblings>,
    /// The directory is synced with the next sync (see
    /// [`super::needs_dir_sync`]).
    dir_sync_pending: std::sync::atomic::AtomicBool,
    modes: super::FileModes,
    /// How the file is locked (`lock_style.rs` unless POSIX).
    lock_style: super::lock_style::LockStyle,
}

fn io_err(code: i32) -> Error {
    Error::new(code, "disk I/O error")
}

impl SyncFile {
    fn fs(&self) -> Result<&std::fs::File> {
        self.file.as_ref().ok_or_else(|| io_err(crate::error::SQLITE_IOERR))
    }
}

/// Read `buf.len()` bytes at `offset` (fewer at the end of the file, the
/// rest of `buf` zero-filled): the number read.
fn read_into(f: &std::fs::File, offset: u64, buf: &mut [u8]) -> Result<usize> {
    let mut done = 0;
    while done < buf.len() {
        match f.read_at(&mut buf[done..], offset + done as u64) {
            Ok(0) => break,
            Ok(n) => done += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return Err(io_err(SQLITE_IOERR_READ)),
        }
    }
    buf[done..].fill(0);
    Ok(done)
}

impl File for SyncFile {
    fn has_moved(&self) -> Result<bool> {
        Ok(!self.delete_on_close && !self.path.is_empty() && super::path_has_moved(&self.path, self.dev, self.ino))
    }
    fn read(&self, offset: u64, mut buf: Buffer) -> Result<Completion> {
        let f = self.fs()?;
        let r = read_into(f, offset, &mut buf);
        Ok(Completion::ready(r.map(|done| CompletionResult { bytes: done, buffer: Some(buf) })))
    }

    fn read_now(&self, offset: u64, buf: &mut [u8]) -> Option<Result<usize>> {
        Some(self.fs().and_then(|f| read_into(f, offset, buf)))
    }

    fn write(&self, offset: u64, buf: Buffer) -> Result<Completion> {
        let f = self.fs()?;
        let result = f.write_all_at(&buf, offset).map_err(|e| match e.raw_os_error() {
            Some(libc::ENOSPC) => Error::code(crate::error::SQLITE_FULL),
            _ => io_err(SQLITE_IOERR_WRITE),
        });
        let len = buf.len();
        Ok(Completion::ready(result.map(|_| CompletionResult { bytes: len, buffer: Some(buf) })))
    }

    fn sync(&self, data_only: bool) -> Result<Completion> {
        let f = self.fs()?;
        if self.dir_sync_pending.swap(false, std::sync::atomic::Ordering::Relaxed) {
            super::sync_parent_dir(&self.path);
        }
        let r = if data_only { f.sync_data() } else { f.sync_all() };
        Ok(Completion::ready(r.map(|_| CompletionResult { bytes: 0, buffer: None }).map_err(|_| io_err(SQLITE_IOERR_FSYNC))))
    }

    fn truncate(&self, size: u64) -> Result<Completion> {
        let f = self.fs()?;
        let r = f.set_len(self.modes.chunked(size));
        Ok(Completion::ready(r.map(|_| CompletionResult { bytes: 0, buffer: None }).map_err(|_| io_err(SQLITE_IOERR_TRUNCATE))))
    }

    fn external_reader(&self) -> Result<bool> {
        self.shm.external_reader()
    }

    fn modes(&self) -> Option<&super::FileModes> {
        Some(&self.modes)
    }

    fn hint(&self, hint: super::FileHint) {
        // With chunks, the file grows to the next whole chunk before the
        // pages past its end are written (SQLite's unix VFS, SIZE_HINT).
        // A failure here is not an error: the writes extend the file.
        if let (super::FileHint::SizeHint(want), Ok(f)) = (hint, self.fs()) {
            let target = self.modes.chunked(want);
            if self.modes.chunk_size() > 0 && super::os_file_size(f).is_ok_and(|have| have < target) {
                let _ = f.set_len(target);
            }
        }
    }

    fn size(&self) -> Result<u64> {
        super::os_file_size(self.fs()?).map_err(|_| io_err(crate::error::SQLITE_IOERR_FSTAT))
    }

    fn lock(&self, level: LockLevel) -> Result<bool> {
        let fd = self.fs()?.as_raw_fd();
        let mut held = self.level.lock().unwrap_or_else(|p| p.into_inner());
        match self.lock_style {
            LockStyle::Posix => lock::lock(fd, &self.inode, &mut held, level),
            style => lock_style::lock(style, &self.path, &mut held, level),
        }
    }

    fn unlock(&self, level: LockLevel) -> Result<()> {
        let fd = self.fs()?.as_raw_fd();
        let mut held = self.level.lock().unwrap_or_else(|p| p.into_inner());
        match self.lock_style {
            LockStyle::Posix => lock::unlock(fd, &self.inode, &mut held, level),
            style => lock_style::unlock(style, &self.path, &mut held, level),
        }
    }

    fn check_reserved_lock(&self) -> Result<bool> {
        if self.lock_style != LockStyle::Posix {
            return lock_style::check_reserved(self.lock_style, &self.path, self.lock_level());
        }
        if self.lock_level() > LockLevel::Shared {
            return Ok(true);
        }
        lock::check_reserved(self.fs()?.as_raw_fd(), &self.inode)
    }

    fn has_shared_memory(&self) -> bool {
        self.lock_style == LockStyle::Posix
    }

    fn lock_level(&self) -> LockLevel {
        *self.level.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn shm_map(&self, region: usize, region_size: usize, extend: bool) -> Result<Option<super::ShmRegion>> {
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

impl Drop for SyncFile {
    fn drop(&mut self) {
        let _ = self.shm.unmap(false);
        let _ = self.unlock(LockLevel::None);
        if let Some(f) = self.file.take() {
            lock::release_inode(self.dev, self.ino, &self.inode, f);
        }
        if self.delete_on_close {
            let _ = std::fs::remove_file(super::os_path::os_path(&self.path));
        }
    }
}

impl IoBackend for SyncBackend {
    fn name(&self) -> &'static str {
        "sync"
    }

    fn open(&self, path: &str, opts: OpenOptions) -> Result<Arc<dyn File>> {
        let (file, meta) = crate::io::posix_open::open(path, &opts)?;
        let (dev, ino) = (meta.dev(), meta.ino());
        let inode = lock::acquire_inode(dev, ino);
        Ok(Arc::new(SyncFile {
            file: Some(file),
            path: path.to_string(),
            dev,
            ino,
            inode,
            level: Mutex::new(LockLevel::None),
            delete_on_close: opts.delete_on_close,
            shm: super::shm::FileShm::new(dev, ino, path),
            siblings: if opts.kind == super::FileKind::MainDb && !opts.delete_on_close { super::sibling::Siblings::open(path) } else { None },
            dir_sync_pending: super::needs_dir_sync(&opts).into(),
            modes: super::FileModes::default(),
            lock_style: opts.lock_style,
        }))
    }

    fn delete(&self, path: &str, sync_dir: bool) -> Result<()> {
        match std::fs::remove_file(super::os_path::os_path(path)) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(Error::new(crate::error::SQLITE_IOERR_DELETE_NOENT, "disk I/O error")),
            Err(_) => return Err(io_err(SQLITE_IOERR_DELETE)),
        }
        if sync_dir {
            super::sync_parent_dir(path);
        }
        Ok(())
    }

    fn exists(&self, path: &str) -> Result<bool> {
        // Journals and WALs only count when they hold something.
        let needs_content = path.ends_with("-journal") || path.ends_with("-wal");
        Ok(std::fs::metadata(super::os_path::os_path(path)).map(|m| !needs_content || m.len() > 0).unwrap_or(false))
    }

    fn full_path(&self, path: &str) -> Result<String> {
        let p = super::os_path::os_path(path);
        let abs =
            if p.is_absolute() { p.to_path_buf() } else { std::env::current_dir().map_err(|_| Error::code(crate::error::SQLITE_CANTOPEN_FULLPATH))?.join(p) };
        Ok(super::os_path::from_os(&abs))
    }

    fn poll(&self, _timeout: Option<Duration>) -> Result<usize> {
        Ok(0)
    }
}
