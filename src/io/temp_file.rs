//! # Temporary database files that live in memory until they outgrow the cache
//!
//! SQLite keeps a temporary database (the `temp` schema, a database opened
//! with the name `""`) in its page cache and opens a file for it only when
//! the cache must spill: then its VFS's `xOpen` is called with
//! `SQLITE_OPEN_TEMP_DB`, no name, and delete-on-close. A small temporary
//! database never reaches the VFS at all. An application VFS sees exactly
//! that, so ringlite does the same when a connection uses one:
//! [`TempBackend`] gives the pager of such a database a [`TempFile`] that
//! holds the bytes in memory while they fit in the pager's cache (the
//! pager tells it the cache's size, [`File::cache_bound`]) and, on the
//! first write past it, opens the file through the application's backend,
//! copies what it holds there and from then on forwards every call.
//!
//! As in SQLite, a temporary file is never locked, never synced (SQLite's
//! pager sets `noSync` for temporary files; the `SQLITE_FCNTL_SYNC` notice
//! still reaches the file) and is deleted by its close. Notices sent
//! before the file exists are dropped, as SQLite's reach no file then.
//!
//! A transient table's B-tree (`vdbe/ephemeral_tree.rs`) lives in such a
//! file too, with every connection: opened as `SQLITE_OPEN_TRANSIENT_DB`
//! ([`TempBackend::transient`]) under a name of its own for backends that
//! need one (an application VFS is given none, as SQLite gives none), at
//! the first page its pager writes (its cache is full), holding nothing
//! in memory itself.
//!
//! Invariant: once [`Stage::File`], never back to memory; the bytes the
//! memory stage held are all in the file before the write that opened it
//! (checked: temp_file_copied).

use super::{Buffer, Completion, CompletionResult, File, FileHint, FileKind, IoBackend, LockLevel, OpenOptions};
use crate::error::Result;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

/// Where a temporary file's bytes are.
enum Stage {
    /// In memory: still within the pager's cache size.
    Memory(Vec<u8>),
    /// In a file opened through the application's backend.
    File(Arc<dyn File>),
}

/// A temporary database file (see the module doc).
pub struct TempFile {
    spill_to: Arc<dyn IoBackend>,
    stage: Mutex<Stage>,
    /// Bytes the memory stage may hold (the pager's cache, in bytes).
    bound: AtomicU64,
    /// The pages' size, the unit the file is written in when opened.
    page_size: AtomicU32,
    /// What the file is opened as.
    kind: FileKind,
    /// The name it is opened under (empty: none, an application VFS's
    /// temporary database); deleted at the drop.
    name: String,
}

fn done(bytes: usize, buffer: Option<Buffer>) -> Result<Completion> {
    Ok(Completion::ready(Ok(CompletionResult { bytes, buffer })))
}

impl TempFile {
    /// A temporary file that opens through `spill_to` when it outgrows
    /// its bound.
    pub fn new(spill_to: Arc<dyn IoBackend>, kind: FileKind, name: String) -> TempFile {
        TempFile {
            spill_to,
            kind,
            name,
            stage: Mutex::new(Stage::Memory(Vec::new())),
            // (SQLite's default cache: 2000 KiB; the pager sets its own.
            // A transient B-tree's file opens at the pager's first spill,
            // as SQLite's pager opens it: nothing is held here.)
            bound: AtomicU64::new(if kind == FileKind::Transient { 0 } else { 2000 * 1024 }),
            page_size: AtomicU32::new(4096),
        }
    }

    fn stage(&self) -> MutexGuard<'_, Stage> {
        self.stage.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The file, once opened.
    fn opened(&self) -> Option<Arc<dyn File>> {
        match &*self.stage() {
            Stage::File(f) => Some(f.clone()),
            Stage::Memory(_) => None,
        }
    }

    /// Whether the file was opened through the application's backend.
    pub fn is_open(&self) -> bool {
        self.opened().is_some()
    }

    /// Open the file and copy the memory stage's bytes into it, a page
    /// per write as SQLite's pager writes (whole pages only: the memory
    /// stage holds whole pages).
    fn open_file(&self, bytes: &[u8]) -> Result<Arc<dyn File>> {
        let opts = OpenOptions { read_only: false, create: true, exclusive: true, delete_on_close: true, kind: self.kind, ..Default::default() };
        let f = self.spill_to.open(&self.name, opts)?;
        let ps = self.page_size.load(Ordering::Relaxed).max(512) as usize;
        let mut pending = Vec::new();
        for (i, page) in bytes.chunks(ps).enumerate() {
            pending.push(f.write((i * ps) as u64, Buffer::from_vec(page.to_vec()))?);
        }
        for c in pending {
            while !c.is_done() {
                self.spill_to.poll(None)?;
            }
            c.take()?;
        }
        // invariant: temp_file_copied
        debug_assert!(!f.size().is_ok_and(|n| n < bytes.len() as u64), "a temporary file opened without the memory stage's bytes");
        Ok(f)
    }
}

impl File for TempFile {
    fn read(&self, offset: u64, mut buf: Buffer) -> Result<Completion> {
        let f = {
            let stage = self.stage();
            match &*stage {
                Stage::File(f) => f.clone(),
                Stage::Memory(bytes) => {
                    let start = (offset as usize).min(bytes.len());
                    let n = (bytes.len() - start).min(buf.len());
                    buf[..n].copy_from_slice(&bytes[start..start + n]);
                    buf[n..].fill(0);
                    return done(n, Some(buf));
                }
            }
        };
        f.read(offset, buf)
    }
    fn write(&self, offset: u64, buf: Buffer) -> Result<Completion> {
        let f = {
            let mut stage = self.stage();
            match &mut *stage {
                Stage::File(f) => f.clone(),
                Stage::Memory(bytes) => {
                    let end = offset as usize + buf.len();
                    if end as u64 <= self.bound.load(Ordering::Relaxed) {
                        if bytes.len() < end {
                            bytes.resize(end, 0);
                        }
                        bytes[offset as usize..end].copy_from_slice(&buf);
                        return done(buf.len(), Some(buf));
                    }
                    // Past the cache: the file opens now, as SQLite's
                    // pager opens it at its first spill.
                    let f = self.open_file(bytes)?;
                    *stage = Stage::File(f.clone());
                    f
                }
            }
        };
        f.write(offset, buf)
    }
    fn sync(&self, _data_only: bool) -> Result<Completion> {
        done(0, None)
    }
    fn truncate(&self, size: u64) -> Result<Completion> {
        let f = {
            let mut stage = self.stage();
            match &mut *stage {
                Stage::File(f) => f.clone(),
                Stage::Memory(bytes) => {
                    bytes.resize(size as usize, 0);
                    return done(0, None);
                }
            }
        };
        f.truncate(size)
    }
    fn size(&self) -> Result<u64> {
        let f = match &*self.stage() {
            Stage::File(f) => f.clone(),
            Stage::Memory(bytes) => return Ok(bytes.len() as u64),
        };
        f.size()
    }
    fn sector_size(&self) -> u32 {
        self.opened().map_or(4096, |f| f.sector_size())
    }
    fn device_characteristics(&self) -> u32 {
        self.opened().map_or(super::iocap::POWERSAFE_OVERWRITE, |f| f.device_characteristics())
    }
    // (Never locked: one connection's own file, as SQLite's temporary
    // files are opened exclusively and not locked.)
    fn lock(&self, _level: LockLevel) -> Result<bool> {
        Ok(true)
    }
    fn unlock(&self, _level: LockLevel) -> Result<()> {
        Ok(())
    }
    fn check_reserved_lock(&self) -> Result<bool> {
        Ok(false)
    }
    fn lock_level(&self) -> LockLevel {
        LockLevel::None
    }
    fn hint(&self, hint: FileHint) {
        if let Some(f) = self.opened() {
            f.hint(hint);
        }
    }
    fn pragma(&self, name: &str, arg: Option<&str>) -> Option<Result<Option<String>>> {
        self.opened()?.pragma(name, arg)
    }
    fn mmap_size(&self) -> Option<Result<i64>> {
        match self.opened() {
            Some(f) => f.mmap_size(),
            None => Some(Ok(0)),
        }
    }
    fn has_shared_memory(&self) -> bool {
        false
    }
    fn cache_bound(&self, cache_bytes: u64, page_size: u32) {
        if self.kind != FileKind::Transient {
            self.bound.store(cache_bytes, Ordering::Relaxed);
        }
        self.page_size.store(page_size, Ordering::Relaxed);
    }
    fn as_any(&self) -> Option<&dyn std::any::Any> {
        // (The application's own file, for `sqlite3_file_control`, once
        // there is one.)
        None
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        // Backends that honour delete_on_close remove it when the last
        // handle goes; in-memory namespaces need the explicit delete.
        let stage = std::mem::replace(&mut *self.stage(), Stage::Memory(Vec::new()));
        if matches!(stage, Stage::File(_)) && !self.name.is_empty() {
            drop(stage);
            let _ = self.spill_to.delete(&self.name, false);
        }
    }
}

/// The backend of a temporary database whose connection uses an
/// application VFS, or of a transient table's B-tree: its database file
/// is a [`TempFile`] spilling to that backend; anything else it is asked
/// to open (nothing, as its journal is kept in memory or not at all)
/// lives in memory.
pub struct TempBackend {
    memory: super::memory::MemoryBackend,
    spill_to: Arc<dyn IoBackend>,
    /// What its database file opens as.
    kind: FileKind,
}

impl TempBackend {
    /// Temporary files spilling to `spill_to`.
    pub fn new(spill_to: Arc<dyn IoBackend>) -> TempBackend {
        TempBackend { memory: super::memory::MemoryBackend::new(), spill_to, kind: FileKind::TempDb }
    }

    /// The file of a transient table's B-tree, spilling to `spill_to`.
    pub fn transient(spill_to: Arc<dyn IoBackend>) -> TempBackend {
        TempBackend { kind: FileKind::Transient, ..TempBackend::new(spill_to) }
    }
}

/// A name of its own for a transient file (a backend that opens files by
/// name needs one; an application VFS is given none).
fn transient_name() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    std::env::temp_dir().join(format!("ringlite-etree-{}-{n}", std::process::id())).to_string_lossy().into_owned()
}

impl IoBackend for TempBackend {
    fn name(&self) -> &'static str {
        // (What PRAGMA io_backend reports for a temporary database.)
        "memory"
    }
    fn open(&self, path: &str, opts: OpenOptions) -> Result<Arc<dyn File>> {
        match opts.kind {
            FileKind::MainDb => {
                let name = if self.kind == FileKind::Transient { transient_name() } else { String::new() };
                Ok(Arc::new(TempFile::new(self.spill_to.clone(), self.kind, name)))
            }
            // The journals that spill (`pager/temp_journal.rs`,
            // `pager/subjournal.rs`) open their files on the VFS.
            FileKind::TempJournal | FileKind::SubJournal => self.spill_to.open(path, opts),
            _ => self.memory.open(path, opts),
        }
    }
    fn delete(&self, path: &str, sync_dir: bool) -> Result<()> {
        self.memory.delete(path, sync_dir)
    }
    fn exists(&self, path: &str) -> Result<bool> {
        self.memory.exists(path)
    }
    fn full_path(&self, path: &str) -> Result<String> {
        Ok(path.to_string())
    }
    fn spills_temp_journal(&self) -> bool {
        true
    }
    fn spills_statement_journals(&self) -> bool {
        true
    }
    fn poll(&self, timeout: Option<Duration>) -> Result<usize> {
        // (The application's backend completes its requests inside their
        // submission; the memory stage needs no polling.)
        self.spill_to.poll(timeout.or(Some(Duration::ZERO)))
    }
    fn current_time_jd_ms(&self) -> Option<i64> {
        self.spill_to.current_time_jd_ms()
    }
    fn has_clock(&self) -> bool {
        self.spill_to.has_clock()
    }
    fn sleep(&self, d: Duration) {
        self.spill_to.sleep(d)
    }
}
