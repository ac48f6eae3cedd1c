//! Test support: a backend wrapping another whose main database files,
//! and deletes, report chosen calls to a watcher; every call is forwarded
//! unchanged. Tests use the watcher to run other work at a precise point
//! of a commit or checkpoint (`sql_super_journal`, `wal_checkpoint_restart`).

use ringlite::io::{Buffer, Completion, File, FileHint, FileKind, FileModes, IoBackend, LockLevel, OpenOptions, ShmRegion};
use ringlite::Result;
use std::sync::Arc;

/// What a test watches; every method does nothing unless overridden.
pub trait MainDbWatcher: Send + Sync + 'static {
    /// After a sync of the main database file `path` returned.
    fn after_sync(&self, _path: &str) {}
    /// Before a shared-memory region of a main database file is mapped.
    fn before_shm_map(&self) {}
    /// After a shared-memory lock call on a main database file.
    fn after_shm_lock(&self, _offset: usize, _n: usize, _exclusive: bool, _lock: bool, _granted: bool) {}
    /// Before (`after` false) and after (true) a delete of `path`.
    fn around_delete(&self, _path: &str, _after: bool) {}
}

/// `inner` with its main database files and deletes watched.
pub struct WatchedBackend<W>(pub Arc<dyn IoBackend>, pub Arc<W>);

impl<W: MainDbWatcher> IoBackend for WatchedBackend<W> {
    fn name(&self) -> &'static str {
        self.0.name()
    }
    fn open(&self, path: &str, opts: OpenOptions) -> Result<Arc<dyn File>> {
        let f = self.0.open(path, opts)?;
        Ok(if opts.kind == FileKind::MainDb { Arc::new(WatchedFile(f, path.to_string(), self.1.clone())) } else { f })
    }
    fn delete(&self, path: &str, sync_dir: bool) -> Result<()> {
        self.1.around_delete(path, false);
        let r = self.0.delete(path, sync_dir);
        self.1.around_delete(path, true);
        r
    }
    fn delete_request(&self, path: &str, sync_dir: bool) -> Result<Completion> {
        self.1.around_delete(path, false);
        let r = self.0.delete_request(path, sync_dir);
        self.1.around_delete(path, true);
        r
    }
    fn exists(&self, path: &str) -> Result<bool> {
        self.0.exists(path)
    }
    fn full_path(&self, path: &str) -> Result<String> {
        self.0.full_path(path)
    }
    fn poll(&self, timeout: Option<std::time::Duration>) -> Result<usize> {
        self.0.poll(timeout)
    }
}

/// A main database file (its path) whose watched calls are reported.
struct WatchedFile<W>(Arc<dyn File>, String, Arc<W>);

impl<W: MainDbWatcher> File for WatchedFile<W> {
    fn read(&self, offset: u64, buf: Buffer) -> Result<Completion> {
        self.0.read(offset, buf)
    }
    fn write(&self, offset: u64, buf: Buffer) -> Result<Completion> {
        self.0.write(offset, buf)
    }
    fn sync(&self, data_only: bool) -> Result<Completion> {
        // (The sync backend's requests are done when they return.)
        let c = self.0.sync(data_only)?;
        self.2.after_sync(&self.1);
        Ok(c)
    }
    fn truncate(&self, size: u64) -> Result<Completion> {
        self.0.truncate(size)
    }
    fn size(&self) -> Result<u64> {
        self.0.size()
    }
    fn read_now(&self, offset: u64, buf: &mut [u8]) -> Option<Result<usize>> {
        self.0.read_now(offset, buf)
    }
    fn size_request(&self) -> Result<Completion> {
        self.0.size_request()
    }
    fn has_moved(&self) -> Result<bool> {
        self.0.has_moved()
    }
    fn sibling_exists(&self, suffix: &str) -> Option<bool> {
        self.0.sibling_exists(suffix)
    }
    fn sector_size(&self) -> u32 {
        self.0.sector_size()
    }
    fn device_characteristics(&self) -> u32 {
        self.0.device_characteristics()
    }
    fn modes(&self) -> Option<&FileModes> {
        self.0.modes()
    }
    fn lock(&self, level: LockLevel) -> Result<bool> {
        self.0.lock(level)
    }
    fn unlock(&self, level: LockLevel) -> Result<()> {
        self.0.unlock(level)
    }
    fn check_reserved_lock(&self) -> Result<bool> {
        self.0.check_reserved_lock()
    }
    fn lock_level(&self) -> LockLevel {
        self.0.lock_level()
    }
    fn shm_map(&self, region: usize, region_size: usize, extend: bool) -> Result<Option<ShmRegion>> {
        self.2.before_shm_map();
        self.0.shm_map(region, region_size, extend)
    }
    fn shm_lock(&self, offset: usize, n: usize, exclusive: bool, lock: bool) -> Result<bool> {
        let r = self.0.shm_lock(offset, n, exclusive, lock);
        self.2.after_shm_lock(offset, n, exclusive, lock, matches!(r, Ok(true)));
        r
    }
    fn external_reader(&self) -> Result<bool> {
        self.0.external_reader()
    }
    fn shm_unmap(&self, delete: bool) -> Result<()> {
        self.0.shm_unmap(delete)
    }
    fn hint(&self, hint: FileHint) {
        self.0.hint(hint)
    }
    fn opened_read_only(&self) -> bool {
        self.0.opened_read_only()
    }
    fn persist_wal(&self) -> bool {
        self.0.persist_wal()
    }
    fn has_shared_memory(&self) -> bool {
        self.0.has_shared_memory()
    }
}
