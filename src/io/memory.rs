//! # The `memory` backend: files that live in RAM
//!
//! Used for `:memory:` and temporary databases and by tests. Each backend
//! instance has its own namespace of files; every handle opened on a name
//! shares the same bytes and the same [`LocalLocks`], so two handles on one
//! file lock against each other as two connections would. Requests finish
//! inside `submit`, like the `sync` backend.
//!
//! `delete_on_close` is not needed here: the namespace dies with the
//! backend.
//!
//! Invariant: reads past the end return zeros and a short byte count;
//! writes past the end extend the file with zeros in between (checked:
//! memory_file_zero_fill).

use super::lock::LocalLocks;
use super::shm::{ShmHandle, ShmNode};
use super::{Buffer, Completion, CompletionResult, File, IoBackend, LockLevel, OpenOptions};
use crate::error::{Error, Result, SQLITE_CANTOPEN, SQLITE_IOERR_DELETE_NOENT};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

fn guard<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The bytes and lock table of one in-memory file.
#[derive(Debug, Default)]
pub struct MemData {
    bytes: Mutex<Vec<u8>>,
    locks: Mutex<LocalLocks>,
    shm: Mutex<std::sync::Weak<ShmNode>>,
}

impl MemData {
    /// Copy `buf.len()` bytes at `offset` into `buf`; returns bytes read.
    pub fn read_into(&self, offset: u64, buf: &mut [u8]) -> usize {
        let bytes = guard(&self.bytes);
        let start = (offset as usize).min(bytes.len());
        let n = (bytes.len() - start).min(buf.len());
        buf[..n].copy_from_slice(&bytes[start..start + n]);
        buf[n..].fill(0);
        n
    }

    /// Write `data` at `offset`, growing the file as needed.
    pub fn write_at(&self, offset: u64, data: &[u8]) {
        let mut bytes = guard(&self.bytes);
        let end = offset as usize + data.len();
        if bytes.len() < end {
            bytes.resize(end, 0);
        }
        bytes[offset as usize..end].copy_from_slice(data);
    }

    /// Cut or extend to `size` bytes.
    pub fn set_len(&self, size: u64) {
        guard(&self.bytes).resize(size as usize, 0);
    }

    /// Replace the whole content (the simulation's power loss).
    pub fn replace(&self, bytes: Vec<u8>) {
        *guard(&self.bytes) = bytes;
    }

    /// Current length.
    pub fn len(&self) -> u64 {
        guard(&self.bytes).len() as u64
    }

    /// Whether the file is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The heap shared memory of this database file, created on first use
    /// and kept while any handle maps it.
    pub fn shm_node(&self) -> Arc<ShmNode> {
        let mut w = guard(&self.shm);
        if let Some(n) = w.upgrade() {
            return n;
        }
        let n = ShmNode::heap();
        *w = Arc::downgrade(&n);
        n
    }

    /// A copy of the whole content.
    pub fn snapshot(&self) -> Vec<u8> {
        guard(&self.bytes).clone()
    }
}

/// A namespace of in-memory files, shared by the backends that keep data
/// in RAM.
#[derive(Debug, Default)]
pub struct MemFs {
    files: Mutex<HashMap<String, Arc<MemData>>>,
}

impl MemFs {
    /// Open `path` per `opts`.
    pub fn open(&self, path: &str, opts: OpenOptions) -> Result<Arc<MemData>> {
        let mut files = guard(&self.files);
        match files.get(path) {
            Some(_) if opts.create && opts.exclusive => Err(Error::code(SQLITE_CANTOPEN)),
            Some(d) => Ok(d.clone()),
            None if opts.create => {
                let d = Arc::new(MemData::default());
                files.insert(path.to_string(), d.clone());
                Ok(d)
            }
            None => Err(Error::code(SQLITE_CANTOPEN)),
        }
    }

    /// Remove `path`.
    pub fn delete(&self, path: &str) -> Result<()> {
        match guard(&self.files).remove(path) {
            Some(_) => Ok(()),
            None => Err(Error::new(SQLITE_IOERR_DELETE_NOENT, "disk I/O error")),
        }
    }

    /// Whether `path` exists (journals and WALs: and are not empty).
    pub fn exists(&self, path: &str) -> bool {
        let needs_content = path.ends_with("-journal") || path.ends_with("-wal");
        guard(&self.files).get(path).is_some_and(|d| !needs_content || !d.is_empty())
    }

    /// The data of `path`, if it exists.
    pub fn get(&self, path: &str) -> Option<Arc<MemData>> {
        guard(&self.files).get(path).cloned()
    }

    /// Create or replace `path` with `bytes` (tests: crash images).
    pub fn put(&self, path: &str, bytes: Vec<u8>) {
        let d = Arc::new(MemData::default());
        *guard(&d.bytes) = bytes;
        guard(&self.files).insert(path.to_string(), d);
    }
}

/// Lock state of one handle on a [`MemData`].
#[derive(Debug)]
pub struct MemLockHandle {
    data: Arc<MemData>,
    level: Mutex<LockLevel>,
}

impl MemLockHandle {
    /// A handle holding no lock.
    pub fn new(data: Arc<MemData>) -> Self {
        MemLockHandle { data, level: Mutex::new(LockLevel::None) }
    }
    /// See [`File::lock`].
    pub fn lock(&self, level: LockLevel) -> bool {
        let mut held = guard(&self.level);
        guard(&self.data.locks).lock(&mut held, level)
    }
    /// See [`File::unlock`].
    pub fn unlock(&self, level: LockLevel) {
        let mut held = guard(&self.level);
        guard(&self.data.locks).unlock(&mut held, level)
    }
    /// See [`File::check_reserved_lock`].
    pub fn check_reserved(&self) -> bool {
        guard(&self.data.locks).reserved()
    }
    /// See [`File::lock_level`].
    pub fn level(&self) -> LockLevel {
        *guard(&self.level)
    }
}

impl Drop for MemLockHandle {
    fn drop(&mut self) {
        self.unlock(LockLevel::None);
    }
}

/// The in-memory backend.
#[derive(Debug, Default)]
pub struct MemoryBackend {
    fs: MemFs,
}

impl MemoryBackend {
    /// An empty namespace.
    pub fn new() -> Self {
        MemoryBackend::default()
    }

    /// The files (tests inspect and forge them).
    pub fn fs(&self) -> &MemFs {
        &self.fs
    }
}

/// A handle on an in-memory file.
#[derive(Debug)]
pub struct MemFile {
    data: Arc<MemData>,
    locks: MemLockHandle,
    shm: Mutex<ShmHandle>,
}

impl File for MemFile {
    fn read(&self, offset: u64, mut buf: Buffer) -> Result<Completion> {
        let n = self.data.read_into(offset, &mut buf);
        Ok(Completion::ready(Ok(CompletionResult { bytes: n, buffer: Some(buf) })))
    }
    fn read_now(&self, offset: u64, buf: &mut [u8]) -> Option<Result<usize>> {
        Some(Ok(self.data.read_into(offset, buf)))
    }
    fn write(&self, offset: u64, buf: Buffer) -> Result<Completion> {
        self.data.write_at(offset, &buf);
        Ok(Completion::ready(Ok(CompletionResult { bytes: buf.len(), buffer: Some(buf) })))
    }
    fn sync(&self, _data_only: bool) -> Result<Completion> {
        Ok(Completion::ready(Ok(CompletionResult { bytes: 0, buffer: None })))
    }
    fn truncate(&self, size: u64) -> Result<Completion> {
        self.data.set_len(size);
        Ok(Completion::ready(Ok(CompletionResult { bytes: 0, buffer: None })))
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

impl IoBackend for MemoryBackend {
    fn name(&self) -> &'static str {
        "memory"
    }
    fn open(&self, path: &str, opts: OpenOptions) -> Result<Arc<dyn File>> {
        let data = self.fs.open(path, opts)?;
        Ok(Arc::new(MemFile { locks: MemLockHandle::new(data.clone()), data, shm: Mutex::default() }))
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
    fn poll(&self, _timeout: Option<Duration>) -> Result<usize> {
        Ok(0)
    }
}

#[cfg(test)]
mod tests {
    use super::MemData;

    #[test]
    fn past_the_end_reads_zeros_and_writes_fill_with_zeros() {
        let f = MemData::default();
        f.write_at(5, b"abc");
        let mut buf = [9u8; 10];
        let n = f.read_into(6, &mut buf);
        // invariant: memory_file_zero_fill
        assert_eq!((f.len(), n, &buf[..]), (8, 2, &b"bc\0\0\0\0\0\0\0\0"[..]));
        let mut head = [9u8; 5];
        assert_eq!((f.read_into(0, &mut head), head), (5, [0; 5]));
        assert_eq!(f.read_into(100, &mut head), 0);
    }
}
