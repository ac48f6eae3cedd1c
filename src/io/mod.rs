//! # I/O layer
//!
//! Owns every system call that touches a database, journal, WAL or `-shm`
//! file. The pager above submits requests (read, write, sync, truncate) and
//! collects completions later; submitting never blocks.
//!
//! ## Ownership of buffers
//! A request takes its [`Buffer`] by value and the [`Completion`] gives it
//! back. While a request is in flight nobody else can touch its memory, so
//! the kernel (io_uring) may write into it without any aliasing.
//!
//! ## Backends
//! - `uring`: io_uring, the default for async connections when a ring can be
//!   set up; falls back to `sync` without the user noticing.
//! - `sync`: pread/pwrite; a request completes before `submit` returns.
//! - `memory`: `:memory:` databases and tests; named shared ones
//!   (`cache=shared`) through the registry of [`shared_memory`].
//! - `sim`: deterministic simulation for tests (delays, reordering, short
//!   reads, injected errors, power loss).
//! - `delay`: wraps another backend and makes reads and syncs slow (slow
//!   storage benchmarks; only with `RINGLITE_IO_DELAY`, see [`select`]).
//!
//! An [`IoContext`] is one submission/completion queue shared by the
//! connections of one thread; [`IoContext::wait`] is the only place a
//! blocking caller blocks.
//!
//! ## Locks and shared memory
//! File locks (SQLite's POSIX advisory byte-range protocol, with the
//! per-process inode table that makes POSIX locks work between connections
//! of one process) and the WAL-index shared memory are synchronous
//! operations on [`File`]: they never wait, they fail with `SQLITE_BUSY`.
//! The shared memory itself (the mmapped `-shm` file, or heap memory for
//! in-memory backends) and its lock slots live in [`shm`].

mod buffer;
mod completion;
pub mod delay;
pub mod fair_queue;
pub mod file_modes;
pub mod lock;
pub mod lock_style;
pub mod memory;
pub mod notify;
pub mod os_path;
pub mod posix_open;
pub mod select;
pub mod shared_memory;
pub mod shm;
pub mod sibling;
pub mod sim;
pub mod sync;
pub mod temp_file;
pub mod uring;
pub mod wake_fd;
pub mod zeros;

pub use buffer::Buffer;
pub use completion::{Completion, CompletionResult};
pub use file_modes::FileModes;
pub use select::backend_for;
pub use uring::IoUringBackend;

use crate::error::Result;
use std::sync::Arc;
use std::time::Duration;

/// The result of an operation that may have to wait for I/O.
pub type IoPoll<T> = crate::Result<std::task::Poll<T>>;

/// Unwraps a `Poll::Ready` or returns `Ok(Poll::Pending)` from the enclosing
/// function: the `?` of resumable code. (Exported at the crate root:
/// `crate::ready!`.)
#[macro_export]
macro_rules! ready {
    ($e:expr) => {
        match $e {
            ::std::task::Poll::Ready(v) => v,
            ::std::task::Poll::Pending => return Ok(::std::task::Poll::Pending),
        }
    };
}

/// The size of an open OS file: `lseek(SEEK_END)`, a third of the cost of
/// an `fstat` (which fills a whole `stat` to answer one field), asked at
/// every read transaction. Moving the file position is harmless: no
/// backend uses it, every read and write names its offset.
pub(crate) fn os_file_size(file: &std::fs::File) -> std::io::Result<u64> {
    use std::io::Seek;
    let mut f = file;
    f.seek(std::io::SeekFrom::End(0))
}

/// Whether a file opened with `opts` must have its directory synced
/// together with its first sync: a rollback journal or WAL that may have
/// just been created. Until its directory entry is on disk, a
/// power loss can make the file vanish however often the file itself was
/// synced, and with it a hot journal (the database is left half written)
/// or committed transactions in the WAL. SQLite's unix VFS does the same
/// (`UNIXFILE_DIRSYNC`); the main database file is not covered, in
/// SQLite either.
pub(crate) fn needs_dir_sync(opts: &OpenOptions) -> bool {
    opts.create && !opts.read_only && !opts.delete_on_close && matches!(opts.kind, FileKind::MainJournal | FileKind::Wal)
}

/// Directory syncs made so far by this process, per directory (tests
/// check that a new journal's or WAL's directory was synced; a sync
/// costs far more than this count).
static DIR_SYNCS: std::sync::Mutex<Vec<(std::path::PathBuf, u64)>> = std::sync::Mutex::new(Vec::new());

/// How many times this process synced the directory `dir`.
pub fn dir_syncs(dir: &std::path::Path) -> u64 {
    let syncs = DIR_SYNCS.lock().unwrap_or_else(|p| p.into_inner());
    syncs.iter().find(|(d, _)| d == dir).map_or(0, |(_, n)| *n)
}

fn count_dir_sync(dir: &std::path::Path) {
    let mut syncs = DIR_SYNCS.lock().unwrap_or_else(|p| p.into_inner());
    match syncs.iter_mut().find(|(d, _)| d == dir) {
        Some((_, n)) => *n += 1,
        None => syncs.push((dir.to_path_buf(), 1)),
    }
}

fn parent_dir(path: &str) -> std::path::PathBuf {
    let path = os_path::os_path(path);
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty());
    dir.unwrap_or_else(|| std::path::Path::new(".")).to_path_buf()
}

/// Open the directory holding `path` for an fsync (and count the sync
/// that follows). `None` when it cannot be opened; as in SQLite, a
/// directory that cannot be synced does not fail the transaction (some
/// file systems refuse it).
pub(crate) fn open_parent_dir(path: &str) -> Option<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    let dir = parent_dir(path);
    let f = std::fs::OpenOptions::new().read(true).custom_flags(libc::O_DIRECTORY).open(&dir).ok()?;
    count_dir_sync(&dir);
    Some(f)
}

/// fsync the directory holding `path`, ignoring failures (see
/// [`open_parent_dir`]).
pub(crate) fn sync_parent_dir(path: &str) {
    if let Some(d) = open_parent_dir(path) {
        let _ = d.sync_all();
    }
}

/// File-level lock states, in SQLite's order (see `lockingv3.txt`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum LockLevel {
    /// No lock held.
    None,
    /// Reading is allowed; many connections may hold it.
    Shared,
    /// Intends to write; one holder, readers still allowed.
    Reserved,
    /// Waiting for readers to drain before taking exclusive.
    Pending,
    /// Writing the database file; sole holder.
    Exclusive,
}

/// How a file is opened.
#[derive(Debug, Clone, Copy, Default)]
pub struct OpenOptions {
    /// Open for reading only.
    pub read_only: bool,
    /// Create the file if it is missing.
    pub create: bool,
    /// Fail if the file exists (with `create`).
    pub exclusive: bool,
    /// Delete the file when it is closed (temp files).
    pub delete_on_close: bool,
    /// What the file is, for backends that treat kinds differently.
    pub kind: FileKind,
    /// How a main database file is locked (native backends; others lock
    /// their own way).
    pub lock_style: lock_style::LockStyle,
}

/// What a file holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum FileKind {
    /// The main database file.
    #[default]
    MainDb,
    /// A rollback journal.
    MainJournal,
    /// A write-ahead log.
    Wal,
    /// A temporary file of the engine's own (a sorter's spill file:
    /// SQLite opens those as temporary journals).
    Temp,
    /// A temporary database's file (`temp` schema, a database named
    /// `""`), opened once it outgrows the cache ([`temp_file`]).
    TempDb,
    /// A statement journal spilled to a temporary file (no name, deleted
    /// on close).
    SubJournal,
    /// A temporary database's rollback journal spilled to a temporary
    /// file (no name, deleted on close; `pager/temp_journal.rs`).
    TempJournal,
    /// An ephemeral table's rows past its budget (SQLite's transient
    /// B-trees' files, `SQLITE_OPEN_TRANSIENT_DB`: no name, deleted on
    /// close; `vdbe/ephemeral_spill.rs`).
    Transient,
    /// A super-journal: the names of the journals of a transaction that
    /// writes several databases (its deletion commits them all).
    SuperJournal,
}

/// `SQLITE_IOCAP_*` bits a file's [`File::device_characteristics`] may
/// answer (`c3ref/c_iocap_atomic.txt`); the pager reads the ones SQLite's
/// pager reads.
pub mod iocap {
    /// Data appended to a file is written before the file's size grows:
    /// a journal needs no record count (SQLite writes -1).
    pub const SAFE_APPEND: u32 = 0x0000_0200;
    /// Writes reach the disk in the order they were made: the journal
    /// needs no sync of its own before the database is written.
    pub const SEQUENTIAL: u32 = 0x0000_0400;
    /// A power loss changes no byte that was not written: the sector size
    /// does not matter (the pager uses 512).
    pub const POWERSAFE_OVERWRITE: u32 = 0x0000_1000;
}

/// The sector size the pager lays its journal out with for `file`, as
/// SQLite's pager derives it: 512 when the device is powersafe-overwrite,
/// else the file's own, below 32 taken as 512 and capped at 64 KiB.
pub fn journal_sector_size(file: &dyn File) -> u32 {
    if file.device_characteristics() & iocap::POWERSAFE_OVERWRITE != 0 {
        return 512;
    }
    match file.sector_size() {
        n if n < 32 => 512,
        n => n.min(0x1_0000),
    }
}

/// Notices to a database file, sent when SQLite sends the matching
/// `SQLITE_FCNTL_*` to its VFS.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileHint {
    /// `SQLITE_FCNTL_SIZE_HINT`: the file is about to grow to this size
    /// (a commit or checkpoint writing past its end).
    SizeHint(u64),
    /// `SQLITE_FCNTL_SYNC`: right before the database file's sync of a
    /// commit (in its place under `synchronous=OFF`), with the name of
    /// the transaction's super-journal when it has one.
    Sync(Option<std::sync::Arc<str>>),
    /// `SQLITE_FCNTL_COMMIT_PHASETWO`: a transaction is committed, its
    /// locks not yet released.
    CommitPhaseTwo,
    /// `SQLITE_FCNTL_CKPT_START`: a checkpoint is about to copy WAL
    /// frames into the database file (the WAL is synced).
    CheckpointStart,
    /// `SQLITE_FCNTL_CKPT_DONE`: the checkpoint's copying is over (the
    /// database file not yet synced).
    CheckpointDone,
    /// `SQLITE_FCNTL_MMAP_SIZE`: `PRAGMA mmap_size` set the limit of the
    /// database file's memory mapping to this many bytes (0: none).
    MmapSize(i64),
    /// Not a notice: the WAL's page size, told before frames are written,
    /// so that a file splitting its writes as SQLite's WAL module makes
    /// them (an application VFS's) knows the frame layout even when this
    /// connection never read or wrote the log's header (another one, or
    /// a VFS that replicates the log, wrote it).
    WalPageSize(u32),
}

/// An open file. Reads, writes, syncs and truncates are asynchronous
/// requests; everything else is synchronous and never waits.
///
/// Ordering every backend keeps: per file, a sync or truncate takes effect
/// only after every request submitted before it on that file has
/// completed, and requests submitted after it wait for it. So a caller
/// may submit writes and the sync that makes them durable together, and
/// wait once. Reads and writes with no barrier between them may complete
/// in any order.
pub trait File: Send + Sync {
    /// Submit a read of `buf.len()` bytes at `offset`. The completion holds
    /// the buffer and the number of bytes read (short at end of file); the
    /// rest of the buffer is zero-filled, whatever it held before (the
    /// pager reads into recycled page buffers).
    fn read(&self, offset: u64, buf: Buffer) -> Result<Completion>;
    /// Submit a write of the whole buffer at `offset`.
    fn write(&self, offset: u64, buf: Buffer) -> Result<Completion>;
    /// Submit an fsync (`data_only`: fdatasync).
    fn sync(&self, data_only: bool) -> Result<Completion>;
    /// Submit a truncate to `size` bytes.
    fn truncate(&self, size: u64) -> Result<Completion>;
    /// Current size in bytes.
    fn size(&self) -> Result<u64>;
    /// A small read answered at once, without a request, when that costs
    /// no waiting: the bytes are in the OS page cache and no write or
    /// truncate of the file is in flight (io_uring: `preadv2` with
    /// `RWF_NOWAIT`; a plain `pread` on tmpfs and ramfs, which refuse
    /// that flag and hold every byte in memory; the `sync` backend: the
    /// `pread` its [`File::read`] makes). For the header a read
    /// transaction reads at its start, which would otherwise make every
    /// transaction of an async connection suspend once even on cached
    /// data, and cost every transaction a buffer and a completion. Reads
    /// into `buf`, the caller's; the number of bytes read, the rest of
    /// `buf` zero-filled. `None`: not answered here; use [`File::read`].
    /// Backends that simulate latency keep the default (`None`).
    fn read_now(&self, _offset: u64, _buf: &mut [u8]) -> Option<Result<usize>> {
        None
    }
    /// [`File::size`] as a request (ordered like a read): the completion's
    /// `bytes` is the size. io_uring asks the kernel with `statx` on its
    /// workers, sparing the caller's thread a system call; the other
    /// backends answer at once.
    fn size_request(&self) -> Result<Completion> {
        let size = self.size()?;
        Ok(Completion::ready(Ok(CompletionResult { bytes: size as usize, buffer: None })))
    }
    /// Whether the file was renamed or deleted since it was opened: its
    /// name now leads to another file or to none. A rollback journal made
    /// next to that name would not protect this file, so SQLite refuses
    /// to write then (`SQLITE_READONLY_DBMOVED`). Files without a name in
    /// a directory answer `false`.
    fn has_moved(&self) -> Result<bool> {
        Ok(false)
    }
    /// Whether the file `<this file's path><suffix>` exists, as
    /// [`IoBackend::exists`] answers it, asked beside this file (see
    /// [`sibling`]); `None` when this file cannot tell and the caller must
    /// ask the backend by path.
    fn sibling_exists(&self, suffix: &str) -> Option<bool> {
        let _ = suffix;
        None
    }
    /// The sector size the file's device writes in (`xSectorSize`):
    /// SQLite's unix VFS answers 4096.
    fn sector_size(&self) -> u32 {
        4096
    }
    /// The device's `SQLITE_IOCAP_*` bits (`xDeviceCharacteristics`, see
    /// [`iocap`]): SQLite's unix VFS answers powersafe-overwrite.
    fn device_characteristics(&self) -> u32 {
        if self.modes().is_none_or(|m| m.powersafe_overwrite()) {
            iocap::POWERSAFE_OVERWRITE
        } else {
            0
        }
    }
    /// The settings an application may change on this file through
    /// `sqlite3_file_control` (see [`FileModes`]); `None` for files that
    /// keep none (memory, simulated, and application VFS files, whose own
    /// `xFileControl` answers).
    fn modes(&self) -> Option<&FileModes> {
        None
    }
    /// Move to a stronger lock level. `Ok(false)` means another connection
    /// holds a conflicting lock (the caller turns it into `SQLITE_BUSY`).
    fn lock(&self, level: LockLevel) -> Result<bool>;
    /// Move down to `level` (`None` or `Shared`).
    fn unlock(&self, level: LockLevel) -> Result<()>;
    /// Whether any connection (in any process) holds a RESERVED or
    /// stronger lock.
    fn check_reserved_lock(&self) -> Result<bool>;
    /// The current lock level held through this handle.
    fn lock_level(&self) -> LockLevel;
    /// Map region `region` (of `region_size` bytes) of the WAL-index shared
    /// memory that belongs to this database file, creating it if `extend`.
    /// `Ok(None)` when it does not exist and `extend` is false.
    fn shm_map(&self, region: usize, region_size: usize, extend: bool) -> Result<Option<ShmRegion>> {
        let _ = (region, region_size, extend);
        Err(crate::error::Error::unsupported("shared memory on this backend"))
    }
    /// Take (`lock`) or release shm lock slots `offset..offset+n`, shared or
    /// exclusive, as `xShmLock` does. `Ok(false)` means busy.
    fn shm_lock(&self, offset: usize, n: usize, exclusive: bool, lock: bool) -> Result<bool> {
        let _ = (offset, n, exclusive, lock);
        Err(crate::error::Error::unsupported("shared memory on this backend"))
    }
    /// Whether a connection of another process has a WAL read
    /// transaction open on this database (`SQLITE_FCNTL_EXTERNAL_READER`):
    /// `false` when this file has no shared memory mapped.
    fn external_reader(&self) -> Result<bool> {
        Ok(false)
    }
    /// Drop the shared memory mapping; delete it if `delete`.
    fn shm_unmap(&self, delete: bool) -> Result<()> {
        let _ = delete;
        Ok(())
    }
    /// A notice SQLite's pager gives its VFS (through `xFileControl`) at
    /// the same moments; files that have no use for it ignore it.
    fn hint(&self, hint: FileHint) {
        let _ = hint;
    }
    /// Whether the file was opened read-only although read-write was
    /// asked (an application VFS's `xOpen` said so in its output flags):
    /// the database is then read-only, as in SQLite.
    fn opened_read_only(&self) -> bool {
        false
    }
    /// Whether the WAL is to be kept when the last connection closes
    /// (`SQLITE_FCNTL_PERSIST_WAL` asked of the database file).
    fn persist_wal(&self) -> bool {
        self.modes().is_some_and(|m| m.persist_wal())
    }
    /// `PRAGMA name` or `PRAGMA name=arg` offered to the file before the
    /// engine handles it (SQLite's `SQLITE_FCNTL_PRAGMA`): `None` when the
    /// file has no answer (the engine goes on), else the one result text
    /// (`None`: no rows) or the error to report.
    fn pragma(&self, name: &str, arg: Option<&str>) -> Option<Result<Option<String>>> {
        let _ = (name, arg);
        None
    }
    /// The file's answer to `SQLITE_FCNTL_MMAP_SIZE` asked with -1 (what
    /// `PRAGMA mmap_size` reports): `None` when the file does not answer
    /// (no row). The engine's own files are never mapped: 0, as SQLite
    /// built without mmap reports.
    fn mmap_size(&self) -> Option<Result<i64>> {
        Some(Ok(0))
    }
    /// Whether [`File::shm_map`] can work here. SQLite refuses WAL mode
    /// on a VFS without shared-memory methods, leaving the journal mode
    /// as it was.
    fn has_shared_memory(&self) -> bool {
        true
    }
    /// The pager's cache holds at most `cache_bytes` of pages of
    /// `page_size` bytes (told at open and whenever either changes): a
    /// temporary database's file stays in memory until it outgrows that
    /// ([`temp_file`]); other files ignore it.
    fn cache_bound(&self, cache_bytes: u64, page_size: u32) {
        let _ = (cache_bytes, page_size);
    }
    /// The file as `Any`, for a backend defined outside the engine that
    /// reaches its own files behind the engine's handles (the C API's
    /// application-VFS files answer `sqlite3_file_control` that way).
    fn as_any(&self) -> Option<&dyn std::any::Any> {
        None
    }
}

/// [`File::has_moved`] for a file opened at `path` as inode `ino` of
/// device `dev`.
pub(crate) fn path_has_moved(path: &str, dev: u64, ino: u64) -> bool {
    use std::os::unix::fs::MetadataExt;
    match std::fs::metadata(os_path::os_path(path)) {
        Ok(m) => m.dev() != dev || m.ino() != ino,
        Err(_) => true,
    }
}

/// A mapped region of the WAL index, shared between processes. Reads and
/// writes go through the accessor methods, which use atomic or volatile
/// access as the WAL protocol requires.
#[derive(Clone)]
pub struct ShmRegion(pub Arc<dyn ShmMemory>);

/// Memory behind a [`ShmRegion`].
pub trait ShmMemory: Send + Sync {
    /// Size in bytes.
    fn len(&self) -> usize;
    /// Whether the region has no bytes.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Read `out.len()` bytes at `offset`.
    fn read(&self, offset: usize, out: &mut [u8]);
    /// Write `data` at `offset`.
    fn write(&self, offset: usize, data: &[u8]);
    /// Atomic 32-bit load at a 4-byte aligned offset.
    fn load_u32(&self, offset: usize) -> u32;
    /// Atomic 32-bit store at a 4-byte aligned offset.
    fn store_u32(&self, offset: usize, value: u32);
    /// A full memory barrier.
    fn barrier(&self);
    /// The address of the first byte, for memory that stays at one
    /// address while mapped (a C VFS's `xShmMap` hands it out); `None`
    /// for memory reached only through the methods above.
    fn as_ptr(&self) -> Option<*mut u8> {
        None
    }
}

/// A backend: opens files and drives their requests to completion.
pub trait IoBackend: Send + Sync {
    /// Name reported by `PRAGMA io_backend` ("io_uring", "sync", ...).
    fn name(&self) -> &'static str;
    /// Open a file.
    fn open(&self, path: &str, opts: OpenOptions) -> Result<Arc<dyn File>>;
    /// Delete a file; `sync_dir` asks for the directory to be synced after.
    fn delete(&self, path: &str, sync_dir: bool) -> Result<()>;
    /// [`IoBackend::delete`] as a request, completing with its outcome. A
    /// backend that can unlink asynchronously (io_uring's `unlinkat`)
    /// does, so the kernel frees the file's pages off the caller's thread;
    /// the others delete at once.
    fn delete_request(&self, path: &str, sync_dir: bool) -> Result<Completion> {
        Ok(Completion::ready(self.delete(path, sync_dir).map(|()| CompletionResult { bytes: 0, buffer: None })))
    }
    /// Whether a file exists (and, for journals, is not empty; an
    /// application VFS answers as its `xAccess` does, and an empty journal
    /// is then found not hot when its first byte is read).
    fn exists(&self, path: &str) -> Result<bool>;
    /// [`IoBackend::exists`] as a request: the completion's `bytes` is 1
    /// when the file exists (non-empty for journals), 0 when it does not.
    /// A backend that can ask the kernel asynchronously (io_uring's
    /// `statx`) does, so the path lookup runs off the caller's thread and
    /// overlaps with the caller's other requests; the others answer at
    /// once.
    fn exists_request(&self, path: &str) -> Result<Completion> {
        let exists = self.exists(path)?;
        Ok(Completion::ready(Ok(CompletionResult { bytes: exists as usize, buffer: None })))
    }
    /// Canonical absolute path, as `xFullPathname` gives it.
    fn full_path(&self, path: &str) -> Result<String>;
    /// Submit queued requests and reap completions. `timeout`: `Some(ZERO)`
    /// returns at once, `Some(d)` waits at most `d` for one completion,
    /// `None` waits until at least one completes (returns at once if nothing
    /// is in flight). Returns how many completions were reaped.
    fn poll(&self, timeout: Option<Duration>) -> Result<usize>;
    /// The current time as a Julian day in milliseconds, when this
    /// backend has a clock of its own (an application VFS's
    /// `xCurrentTimeInt64`); `None`: the system clock.
    fn current_time_jd_ms(&self) -> Option<i64> {
        None
    }
    /// Whether [`IoBackend::current_time_jd_ms`] answers (asked without
    /// reading the clock: SQLite reads an application VFS's clock only
    /// for 'now').
    fn has_clock(&self) -> bool {
        false
    }
    /// Sleep for `d` (the busy timeout's waits): an application VFS's
    /// `xSleep`, else the thread's own sleep.
    fn sleep(&self, d: Duration) {
        std::thread::sleep(d)
    }
    /// Whether a statement journal that outgrows SQLite's spill size goes
    /// to a temporary file ([`FileKind::SubJournal`]), as SQLite's does:
    /// an application VFS sees the file open when SQLite opens it.
    /// ringlite's own backends keep statement journals in memory.
    fn spills_statement_journals(&self) -> bool {
        false
    }
    /// A temporary database on this backend keeps its rollback journal in
    /// a temporary file ([`FileKind::Temp`]) once it passes 64 KiB, as
    /// SQLite's does (`pager/temp_journal.rs`): the backend of a temporary
    /// database whose connection uses an application VFS.
    fn spills_temp_journal(&self) -> bool {
        false
    }
    /// A file descriptor that becomes readable when completions are waiting
    /// (io_uring's registered eventfd), for an external epoll loop.
    fn event_fd(&self) -> Option<i32> {
        None
    }
}

/// The I/O context a connection uses: its backend plus the wait loop.
#[derive(Clone)]
pub struct IoContext {
    backend: Arc<dyn IoBackend>,
    /// How the databases opened through this context lock their files
    /// (the `unix-*` VFS the connection was opened with).
    lock_style: lock_style::LockStyle,
    /// The backend has a clock of its own (asked once, here: function
    /// calls check this flag, not the backend).
    has_clock: bool,
}

impl IoContext {
    /// Wrap a backend.
    pub fn new(backend: Arc<dyn IoBackend>) -> Self {
        let has_clock = backend.has_clock();
        IoContext { backend, lock_style: lock_style::LockStyle::Posix, has_clock }
    }

    /// This context with database files locked in `style`.
    pub fn with_lock_style(mut self, style: lock_style::LockStyle) -> Self {
        self.lock_style = style;
        self
    }

    /// How the databases opened through this context lock their files.
    pub fn lock_style(&self) -> lock_style::LockStyle {
        self.lock_style
    }

    /// Whether [`IoBackend::current_time_jd_ms`] answers.
    pub fn has_clock(&self) -> bool {
        self.has_clock
    }

    /// The backend.
    pub fn backend(&self) -> &Arc<dyn IoBackend> {
        &self.backend
    }

    /// Block until `c` has completed.
    pub fn wait(&self, c: &Completion) -> Result<()> {
        while !c.is_done() {
            self.backend.poll(None)?;
        }
        Ok(())
    }

    /// Block until at least one request completes (a blocking statement's
    /// answer to `Poll::Pending`).
    pub fn wait_any(&self) -> Result<()> {
        self.backend.poll(None).map(|_| ())
    }

    /// Run a resumable operation to completion, blocking between attempts.
    pub fn block_on<T>(&self, mut op: impl FnMut() -> crate::IoPoll<T>) -> Result<T> {
        loop {
            match op()? {
                std::task::Poll::Ready(v) => return Ok(v),
                std::task::Poll::Pending => self.wait_any()?,
            }
        }
    }
}
