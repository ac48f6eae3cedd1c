//! # Application VFSes: the engine's I/O through `sqlite3_vfs` methods
//!
//! A connection opened through an application's VFS object (by name, by
//! `vfs=`, or because the application registered it as the default) gets
//! a [`VfsBackend`] as its engine I/O backend. Every file the engine opens
//! for it (main database, rollback journal, WAL, temporary files) is a
//! [`VfsFile`]: an `sqlite3_file` of the object's `szOsFile` bytes filled
//! by its `xOpen`, and every read, write, sync, truncate, size, lock and
//! shared-memory operation calls the file's `sqlite3_io_methods`. The VFS
//! owns locking: the engine's own POSIX locks are not used on this path.
//!
//! An application VFS is synchronous: each request runs inside the call
//! that submits it and its completion is ready when the call returns, as
//! with the engine's `sync` backend. On an `SQLITE_OPEN_ASYNC` connection
//! such calls simply block; `sqlite3_step` then never returns `SQLITE_IO`.
//!
//! Journal writes reach the VFS as SQLite's pager makes them (header
//! blocks of `min(page, sector)` bytes, then each record's page number,
//! image and checksum as three writes), WAL writes as SQLite's WAL
//! module makes them; the pager reads `xSectorSize` and
//! `xDeviceCharacteristics` through [`File::sector_size`] and
//! [`File::device_characteristics`].
//!
//! Notices: `xFileControl` gets what SQLite's pager, B-tree, WAL and
//! sorter send, in their order: `MMAP_SIZE` (files of version-3 methods)
//! and `PDB` as a database file opens, `MMAP_SIZE` again when its WAL
//! opens and when `PRAGMA mmap_size` sets a limit (then pages past the
//! first are read through `xFetch`), the engine's [`FileHint`]s
//! (`SIZE_HINT`, `SYNC`, `COMMIT_PHASETWO`, `CKPT_START`/`CKPT_DONE`),
//! `HAS_MOVED`, `PERSIST_WAL` and `PRAGMA`; sorter spill files get
//! SQLite's mmap maximum. `BUSYHANDLER` goes to each database file as it
//! opens, with SQLite's pair (function, argument): a VFS that waits for a
//! lock may call it to run the connection's busy handler or busy timeout
//! (`hooks::invoke_busy_for_vfs`, SQLite's count and schedule).
//!
//! Not sent, as SQLite 3.54.1 built as its reference and Debian build it
//! does not send them: `BEGIN_ATOMIC_WRITE`/`COMMIT_ATOMIC_WRITE`/
//! `ROLLBACK_ATOMIC_WRITE` (only with `SQLITE_ENABLE_BATCH_ATOMIC_WRITE`):
//! a device answering `SQLITE_IOCAP_BATCH_ATOMIC` (or `ATOMIC*`, which
//! only `SQLITE_ENABLE_ATOMIC_WRITE` reads) gets a rollback journal as any
//! other (t_vfs_notices.c checks it against SQLite).
//!
//! Names: the main database file is opened under its full pathname (from
//! `xFullPathname`) in SQLite's filename layout (`uri::build`: URI
//! parameters, then the journal and WAL names), so the VFS may call
//! `sqlite3_uri_parameter` and `sqlite3_filename_journal`/`_wal` on it;
//! the journal and WAL are opened with pointers into that same block, as
//! SQLite does. Temporary files (sorter spills; statement journals once
//! past SQLite's 64 KiB spill size, `pager/subjournal.rs`) get a null
//! name. Files open when SQLite opens them: the rollback journal at the
//! transaction's first change, a statement journal as it spills.
//!
//! Hot-journal recovery as SQLite's: the journal opened read-only to read
//! its first byte, then read-write and synced before it is played back,
//! the database's `SQLITE_FCNTL_SYNC` (null) before its sync; existence
//! is what the VFS's `xAccess` answers.
//!
//! Invariants: a [`VfsFile`]'s memory is freed only after `xClose` when
//! `xOpen` set `pMethods` (SQLite's rule, also on a failed open); a name
//! block outlives every file opened with a pointer into it (each file
//! holds an `Arc` of it).

use crate::abi::sqlite3_file;
use crate::abi::{sqlite3_io_methods, sqlite3_vfs};
use crate::consts::*;
use crate::types::sqlite3_int64;
use ringlite::io::{Buffer, Completion, CompletionResult, File, FileHint, FileKind, IoBackend, LockLevel, OpenOptions, ShmMemory, ShmRegion};
use ringlite::{Error, Result};
use std::ffi::{c_char, c_int, c_void, CString};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Address ranges of the live database name blocks: `(start, journal
/// name, WAL name, database file object)`, so `sqlite3_filename_database`
/// can map a journal's or WAL's name back to its database's, and
/// `sqlite3_database_file_object` any of the three names to the database
/// file's `sqlite3_file` (0 while it is not open), as SQLite's layout
/// allows.
static LIVE_BLOCKS: Mutex<Vec<(usize, usize, usize, usize)>> = Mutex::new(Vec::new());

/// The database name of the block holding journal or WAL name `p`.
pub fn database_of(p: *const c_char) -> Option<*const c_char> {
    let blocks = LIVE_BLOCKS.lock().unwrap_or_else(|e| e.into_inner());
    let a = p as usize;
    blocks.iter().find(|&&(_, j, w, _)| a == j || a == w).map(|&(s, _, _, _)| s as *const c_char)
}

/// The database file object whose xOpen was given the database, journal
/// or WAL name `p` (`sqlite3_database_file_object`); `None` for a name
/// that is not one of those or whose database file is closed.
pub fn file_object_of(p: *const c_char) -> Option<*mut sqlite3_file> {
    let blocks = LIVE_BLOCKS.lock().unwrap_or_else(|e| e.into_inner());
    let a = p as usize;
    blocks.iter().find(|&&(s, j, w, _)| a == s || a == j || a == w).and_then(|&(_, _, _, f)| (f != 0).then_some(f as *mut sqlite3_file))
}

/// Record (or, with 0, forget) the file object of the database whose name
/// block starts at `base`.
fn set_file_object(base: usize, file: usize) {
    let mut blocks = LIVE_BLOCKS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(b) = blocks.iter_mut().find(|b| b.0 == base) {
        b.3 = file;
    }
}

/// A filename handed to `xOpen`, with the offsets of the journal and WAL
/// names inside it (0: none).
struct NameBlock {
    bytes: Vec<u8>,
    journal: usize,
    wal: usize,
}

impl NameBlock {
    fn plain(name: &str) -> NameBlock {
        let mut bytes = name.as_bytes().to_vec();
        bytes.extend_from_slice(b"\0\0\0\0");
        NameBlock { bytes, journal: 0, wal: 0 }
    }

    fn database(full: &str, params: &[(Vec<u8>, Vec<u8>)]) -> NameBlock {
        let bytes = crate::uri::build(full.as_bytes(), params, true);
        // The two names after the parameters' terminating empty key.
        let mut i = full.len() + 1;
        while bytes.get(i).is_some_and(|&c| c != 0) {
            for _ in 0..2 {
                i += bytes[i..].iter().position(|&c| c == 0).unwrap_or(0) + 1;
            }
        }
        let journal = i + 1;
        let wal = journal + bytes[journal..].iter().position(|&c| c == 0).unwrap_or(0) + 1;
        debug_assert!(bytes[journal..].starts_with(full.as_bytes()));
        let base = bytes.as_ptr() as usize;
        LIVE_BLOCKS.lock().unwrap_or_else(|e| e.into_inner()).push((base, base + journal, base + wal, 0));
        NameBlock { bytes, journal, wal }
    }
}

impl Drop for NameBlock {
    fn drop(&mut self) {
        if self.journal != 0 {
            let base = self.bytes.as_ptr() as usize;
            LIVE_BLOCKS.lock().unwrap_or_else(|e| e.into_inner()).retain(|&(s, _, _, _)| s != base);
        }
    }
}

/// A file object that is not open (`pMethods` NULL), what
/// `SQLITE_FCNTL_JOURNAL_POINTER` hands out when no journal or WAL is.
pub fn closed_file() -> *mut sqlite3_file {
    struct Closed(std::cell::UnsafeCell<sqlite3_file>);
    // SAFETY: never written by ringlite; a caller may only look at its
    // null pMethods.
    unsafe impl Sync for Closed {}
    static CLOSED: Closed = Closed(std::cell::UnsafeCell::new(sqlite3_file { pMethods: std::ptr::null() }));
    CLOSED.0.get()
}

/// A filename's URI parameters, decoded (`uri::uri_params`).
type UriParams = Vec<(Vec<u8>, Vec<u8>)>;

/// The engine backend of a connection opened through an application VFS.
pub struct VfsBackend {
    vfs: *mut sqlite3_vfs,
    /// The URI parameters of the connection's filename, carried by the
    /// name of the first database file opened (the main one).
    params: Mutex<Option<UriParams>>,
    /// Database name blocks by the engine's path (journal and WAL names
    /// point into them).
    names: Mutex<Vec<(String, Arc<NameBlock>)>>,
    /// The database files open through this backend, by engine path.
    dbs: Mutex<Vec<(String, std::sync::Weak<VfsFile>)>>,
    /// Temporary files opened with `SQLITE_OPEN_DELETEONCLOSE`: the VFS
    /// deletes them, so the engine's delete of their paths is not passed on
    /// (SQLite never calls `xDelete` for them).
    deleted_on_close: Mutex<Vec<String>>,
    /// The connection's handle, where `SQLITE_FCNTL_PDB` points (boxed: its
    /// address is handed to the VFS and must not move); null until the
    /// handle exists.
    handle: Box<std::sync::atomic::AtomicPtr<c_void>>,
    /// What `SQLITE_FCNTL_BUSYHANDLER` points to: SQLite's pair of the
    /// function a VFS may call while it waits for a lock and its argument
    /// (boxed, as is the argument: their addresses are handed out).
    busy_pair: Box<BusyPair>,
    _busy_target: Box<BusyTarget>,
}

/// The argument of `SQLITE_FCNTL_BUSYHANDLER`, laid out as SQLite's pager
/// lays it out: `int (*)(void*)`, then the pointer to pass it.
#[repr(C)]
struct BusyPair {
    invoke: unsafe extern "C" fn(*mut c_void) -> c_int,
    arg: *mut c_void,
}

/// What [`vfs_invoke_busy`] is called with: where the connection's handle
/// is (the backend's `handle` cell) and its VFS.
struct BusyTarget {
    handle: *const std::sync::atomic::AtomicPtr<c_void>,
    vfs: *mut sqlite3_vfs,
}

/// The function `SQLITE_FCNTL_BUSYHANDLER` gives a VFS: invokes the
/// connection's busy handler, as SQLite's B-tree's does (0: give up).
unsafe extern "C" fn vfs_invoke_busy(arg: *mut c_void) -> c_int {
    ffi_guard!(0, {
        // SAFETY: `arg` is the backend's BusyTarget, which (with the cell
        // it points to) lives as long as the backend and so outlives the
        // files the VFS may call this from.
        let t = unsafe { &*(arg as *const BusyTarget) };
        let db = unsafe { &*t.handle }.load(std::sync::atomic::Ordering::Acquire);
        if db.is_null() {
            // The handle is not made yet: no handler can be set either.
            return 0;
        }
        // SAFETY: the handle is live while its connection's files are.
        unsafe { crate::hooks::invoke_busy_for_vfs(db as *const crate::handle::sqlite3, t.vfs) }
    })
}

// SAFETY: SQLite requires VFS objects to be usable from any thread; the
// backend holds only the object's address and its own locked state.
unsafe impl Send for VfsBackend {}
unsafe impl Sync for VfsBackend {}

/// An error from a VFS method's result code.
fn err(rc: c_int) -> Error {
    Error::code(rc)
}

impl VfsBackend {
    /// A backend calling `vfs` (non-null, registered or kept alive by the
    /// application while the connection is open).
    pub fn new(vfs: *mut sqlite3_vfs, params: UriParams) -> VfsBackend {
        let handle = Box::new(std::sync::atomic::AtomicPtr::new(std::ptr::null_mut()));
        let target = Box::new(BusyTarget { handle: &*handle, vfs });
        let busy_pair = Box::new(BusyPair { invoke: vfs_invoke_busy, arg: &*target as *const BusyTarget as *mut c_void });
        VfsBackend {
            vfs,
            params: Mutex::new(Some(params)),
            names: Mutex::new(Vec::new()),
            dbs: Mutex::new(Vec::new()),
            deleted_on_close: Mutex::new(Vec::new()),
            handle,
            busy_pair,
            _busy_target: target,
        }
    }

    /// The connection's handle exists now: the pointer `SQLITE_FCNTL_PDB`
    /// handed out points to it from here on.
    pub fn set_handle(&self, db: *mut c_void) {
        self.handle.store(db, std::sync::atomic::Ordering::Release);
    }

    /// `SQLITE_FCNTL_BUSYHANDLER`, sent as a database file opens (after
    /// its header is read, before PDB), as SQLite's B-tree does.
    fn send_busy_handler(&self, f: &VfsFile) {
        let pair: *const BusyPair = &*self.busy_pair;
        // SAFETY: BUSYHANDLER takes a pointer to SQLite's pair, which the
        // VFS may keep: it lives as long as this backend.
        unsafe { f.file_control(SQLITE_FCNTL_BUSYHANDLER, pair as *mut c_void) };
    }

    /// `SQLITE_FCNTL_PDB`, sent as a database file opens, as SQLite's
    /// B-tree does. The pointed-to `sqlite3*` is null until `sqlite3_open*`
    /// has made the handle (for the files of that open; SQLite's is set
    /// already), then the connection's.
    fn send_pdb(&self, f: &VfsFile) {
        let cell: *const std::sync::atomic::AtomicPtr<c_void> = &*self.handle;
        // SAFETY: PDB takes a pointer to an `sqlite3*`; an AtomicPtr has
        // the layout of a pointer and lives as long as this backend, which
        // outlives its files.
        unsafe { f.file_control(SQLITE_FCNTL_PDB, cell as *mut c_void) };
    }

    /// `SQLITE_FCNTL_MMAP_SIZE` to a database file, as SQLite's pager
    /// sends it (to files whose methods are version 3 or later).
    fn send_mmap_size(f: &VfsFile, limit: i64) {
        if f.methods().is_some_and(|m| m.iVersion >= 3) {
            let mut n: sqlite3_int64 = limit;
            // SAFETY: MMAP_SIZE takes a pointer to an sqlite3_int64.
            unsafe { f.file_control(SQLITE_FCNTL_MMAP_SIZE, &mut n as *mut sqlite3_int64 as *mut c_void) };
        }
    }

    fn vfs(&self) -> &sqlite3_vfs {
        // SAFETY: the application keeps the object alive (see `new`).
        unsafe { &*self.vfs }
    }

    fn open_dbs(&self) -> std::sync::MutexGuard<'_, Vec<(String, std::sync::Weak<VfsFile>)>> {
        self.dbs.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn names(&self) -> std::sync::MutexGuard<'_, Vec<(String, Arc<NameBlock>)>> {
        self.names.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The block a file at `path` is opened with, and the offset of its
    /// name in it.
    fn name_for(&self, path: &str, kind: FileKind) -> Result<(Arc<NameBlock>, usize)> {
        if kind == FileKind::MainDb {
            let full = self.full_path(path)?;
            let params = self.params.lock().unwrap_or_else(|p| p.into_inner()).take().unwrap_or_default();
            let block = Arc::new(NameBlock::database(&full, &params));
            let mut names = self.names();
            names.retain(|(p, _)| p != path);
            names.push((path.to_string(), block.clone()));
            return Ok((block, 0));
        }
        for (suffix, pick) in [("-journal", 0), ("-wal", 1)] {
            if let Some(db) = path.strip_suffix(suffix) {
                if let Some((_, b)) = self.names().iter().find(|(p, _)| p == db) {
                    let off = if pick == 0 { b.journal } else { b.wal };
                    if off != 0 {
                        return Ok((b.clone(), off));
                    }
                }
            }
        }
        Ok((Arc::new(NameBlock::plain(path)), 0))
    }

    /// The name the VFS knows the file at `path` by (for xDelete/xAccess).
    fn c_name(&self, path: &str) -> Result<CString> {
        let (block, off) = self.name_for(path, FileKind::MainJournal)?;
        let end = block.bytes[off..].iter().position(|&c| c == 0).unwrap_or(0);
        CString::new(&block.bytes[off..off + end]).map_err(|_| Error::code(SQLITE_CANTOPEN))
    }

    fn access(&self, name: &CString, flags: c_int) -> Result<bool> {
        let Some(x_access) = self.vfs().xAccess else {
            return Err(Error::unsupported("a VFS without xAccess"));
        };
        let mut out: c_int = 0;
        // SAFETY: a valid VFS object and NUL-terminated name.
        let rc = unsafe { x_access(self.vfs, name.as_ptr(), flags, &mut out) };
        if rc != SQLITE_OK {
            return Err(Error::new(SQLITE_IOERR_ACCESS, "disk I/O error"));
        }
        Ok(out != 0)
    }
}

fn open_flags(opts: &OpenOptions) -> c_int {
    let mode = if opts.read_only { SQLITE_OPEN_READONLY } else { SQLITE_OPEN_READWRITE | if opts.create { SQLITE_OPEN_CREATE } else { 0 } };
    let kind = match opts.kind {
        FileKind::MainDb => SQLITE_OPEN_MAIN_DB,
        FileKind::MainJournal => SQLITE_OPEN_MAIN_JOURNAL,
        FileKind::Wal => SQLITE_OPEN_WAL,
        FileKind::Temp | FileKind::TempJournal => SQLITE_OPEN_TEMP_JOURNAL,
        FileKind::TempDb => SQLITE_OPEN_TEMP_DB,
        FileKind::SubJournal => SQLITE_OPEN_SUBJOURNAL,
        FileKind::Transient => SQLITE_OPEN_TRANSIENT_DB,
        FileKind::SuperJournal => SQLITE_OPEN_SUPER_JOURNAL,
    };
    let extra = if opts.delete_on_close { SQLITE_OPEN_DELETEONCLOSE } else { 0 } | if opts.exclusive { SQLITE_OPEN_EXCLUSIVE } else { 0 };
    mode | kind | extra
}

impl IoBackend for VfsBackend {
    fn name(&self) -> &'static str {
        "vfs"
    }

    fn open(&self, path: &str, opts: OpenOptions) -> Result<Arc<dyn File>> {
        let v = self.vfs();
        let Some(x_open) = v.xOpen else {
            return Err(Error::code(SQLITE_CANTOPEN));
        };
        let temp = matches!(opts.kind, FileKind::Temp | FileKind::TempDb | FileKind::SubJournal | FileKind::TempJournal | FileKind::Transient);
        let (block, off) = if temp { (Arc::new(NameBlock::plain("")), 0) } else { self.name_for(path, opts.kind)? };
        let size = (v.szOsFile.max(0) as usize).max(std::mem::size_of::<sqlite3_file>());
        // SAFETY: calloc of a positive size; checked for null.
        let file = unsafe { libc::calloc(1, size) } as *mut sqlite3_file;
        if file.is_null() {
            return Err(Error::code(SQLITE_NOMEM));
        }
        let name: *const c_char = if temp { std::ptr::null() } else { block.bytes[off..].as_ptr() as *const c_char };
        if opts.kind == FileKind::MainDb {
            // (Known from the start of xOpen, as SQLite's pager's file.)
            set_file_object(block.bytes.as_ptr() as usize, file as usize);
        }
        let mut out_flags: c_int = 0;
        // SAFETY: a valid VFS, a zeroed file of szOsFile bytes, a name
        // that lives in `block` as long as the file (or null).
        let rc = unsafe { x_open(self.vfs, name, file, open_flags(&opts), &mut out_flags) };
        let f = VfsFile {
            file,
            vfs: self.vfs,
            wal: opts.kind == FileKind::Wal,
            wal_page_size: std::sync::atomic::AtomicU32::new(0),
            journal: opts.kind == FileKind::MainJournal,
            main_db: opts.kind == FileKind::MainDb,
            mmap_limit: std::sync::atomic::AtomicI64::new(0),
            read_only_out: !opts.read_only && out_flags & SQLITE_OPEN_READONLY != 0,
            journal_geometry: std::sync::atomic::AtomicU64::new(0),
            shm_held: Mutex::new([ShmHold::None; SQLITE_SHM_NLOCK as usize]),
            _name: block,
            level: Mutex::new(LockLevel::None),
        };
        if rc != SQLITE_OK {
            // `f`'s drop closes it if xOpen set pMethods, and frees it.
            drop(f);
            return Err(if rc & 0xff == SQLITE_CANTOPEN || rc == SQLITE_OK { err(SQLITE_CANTOPEN) } else { err(rc) });
        }
        if f.methods().is_none() {
            return Err(Error::code(SQLITE_CANTOPEN));
        }
        let f = Arc::new(f);
        match opts.kind {
            FileKind::MainDb => {
                {
                    let mut dbs = self.open_dbs();
                    dbs.retain(|(p, w)| p != path && w.strong_count() > 0);
                    dbs.push((path.to_string(), Arc::downgrade(&f)));
                }
                // The notices SQLite's pager and B-tree send a database
                // file as they open it: the mmap limit (set while the
                // pager is made, again with the cache size, and once more
                // with the
                // connection's default), the busy handler (between the
                // last two), the connection.
                VfsBackend::send_mmap_size(&f, 0);
                VfsBackend::send_mmap_size(&f, 0);
                self.send_busy_handler(&f);
                VfsBackend::send_mmap_size(&f, 0);
                self.send_pdb(&f);
            }
            // SQLite's pager tells the database file its mmap limit again
            // once its WAL is open.
            FileKind::Wal => {
                let db = path.strip_suffix("-wal").and_then(|db| self.open_dbs().iter().find(|(p, _)| p == db).and_then(|(_, w)| w.upgrade()));
                if let Some(db) = db {
                    VfsBackend::send_mmap_size(&db, db.mmap_limit.load(std::sync::atomic::Ordering::Relaxed));
                }
            }
            FileKind::Temp => {
                // SQLite's sorter lets the VFS map its spill files up to
                // the build's mmap maximum (whatever the methods' version).
                let mut n: sqlite3_int64 = crate::file_control::MAX_MMAP_SIZE;
                // SAFETY: MMAP_SIZE takes a pointer to an sqlite3_int64.
                unsafe { f.file_control(SQLITE_FCNTL_MMAP_SIZE, &mut n as *mut sqlite3_int64 as *mut c_void) };
            }
            _ => {}
        }
        if opts.delete_on_close {
            self.deleted_on_close.lock().unwrap_or_else(|p| p.into_inner()).push(path.to_string());
        }
        Ok(f)
    }

    fn delete(&self, path: &str, sync_dir: bool) -> Result<()> {
        {
            let mut gone = self.deleted_on_close.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(i) = gone.iter().position(|p| p == path) {
                gone.swap_remove(i);
                return Ok(());
            }
        }
        let name = self.c_name(path)?;
        let Some(x_delete) = self.vfs().xDelete else {
            return Err(Error::unsupported("a VFS without xDelete"));
        };
        // SAFETY: valid VFS and name.
        let rc = unsafe { x_delete(self.vfs, name.as_ptr(), sync_dir as c_int) };
        if rc == SQLITE_OK {
            Ok(())
        } else {
            Err(err(rc))
        }
    }

    fn exists(&self, path: &str) -> Result<bool> {
        let name = self.c_name(path)?;
        if !self.access(&name, SQLITE_ACCESS_EXISTS)? {
            return Ok(false);
        }
        if let Some(db) = path.strip_suffix("-wal") {
            // A WAL beside an empty database file is no reason to enter
            // WAL mode (and opening it would be one more xOpen than
            // SQLite makes); otherwise its presence is enough.
            let db_file = self.open_dbs().iter().find(|(p, _)| p == db).and_then(|(_, f)| f.upgrade());
            return Ok(db_file.is_none_or(|f| f.size().unwrap_or(1) > 0));
        }
        // (A journal the VFS says exists but that is empty, an emptied
        // journal of journal_mode=TRUNCATE, is found not hot when recovery
        // reads its first byte, as SQLite finds it: no open here.)
        Ok(true)
    }

    fn full_path(&self, path: &str) -> Result<String> {
        let v = self.vfs();
        let Some(x_full) = v.xFullPathname else {
            return Ok(path.to_string());
        };
        let n = (v.mxPathname.max(0) as usize + 1).max(2);
        let mut out = vec![0u8; n];
        let name = CString::new(path).map_err(|_| Error::code(SQLITE_CANTOPEN_FULLPATH))?;
        // SAFETY: valid VFS, name and an output buffer of n bytes.
        let rc = unsafe { x_full(self.vfs, name.as_ptr(), n as c_int, out.as_mut_ptr() as *mut c_char) };
        // SQLITE_OK_SYMLINK is success too.
        if rc & 0xff != SQLITE_OK {
            return Err(err(rc));
        }
        let len = out.iter().position(|&c| c == 0).unwrap_or(n);
        Ok(String::from_utf8_lossy(&out[..len]).into_owned())
    }

    fn current_time_jd_ms(&self) -> Option<i64> {
        let v = self.vfs();
        if v.iVersion >= 2 {
            if let Some(x) = v.xCurrentTimeInt64 {
                let mut t: sqlite3_int64 = 0;
                // SAFETY: a valid VFS and an out pointer.
                return (unsafe { x(self.vfs, &mut t) } == SQLITE_OK).then_some(t);
            }
        }
        let x = v.xCurrentTime?;
        let mut d: f64 = 0.0;
        // SAFETY: as above.
        (unsafe { x(self.vfs, &mut d) } == SQLITE_OK).then_some((d * 86_400_000.0) as i64)
    }

    fn has_clock(&self) -> bool {
        let v = self.vfs();
        (v.iVersion >= 2 && v.xCurrentTimeInt64.is_some()) || v.xCurrentTime.is_some()
    }

    fn spills_statement_journals(&self) -> bool {
        true
    }

    fn sleep(&self, d: Duration) {
        match self.vfs().xSleep {
            // SAFETY: a valid VFS object. (Its answer, the time slept, is
            // not needed, as in SQLite.)
            Some(x) => unsafe {
                x(self.vfs, d.as_micros().min(i32::MAX as u128) as c_int);
            },
            None => std::thread::sleep(d),
        }
    }

    fn poll(&self, _timeout: Option<Duration>) -> Result<usize> {
        // Every request completed inside its submission.
        Ok(0)
    }
}

/// How a file holds one WAL-index lock slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ShmHold {
    None,
    Shared,
    Exclusive,
}

/// A file opened through an application VFS.
pub struct VfsFile {
    file: *mut sqlite3_file,
    vfs: *mut sqlite3_vfs,
    /// A write-ahead log (its writes are split as SQLite's are).
    wal: bool,
    /// The WAL's page size once seen in its header (0: not yet).
    wal_page_size: std::sync::atomic::AtomicU32,
    /// A rollback journal (its writes are split as SQLite's are).
    journal: bool,
    /// A database file (pages past the first are read through `xFetch`
    /// while `mmap_limit` is positive, as SQLite's pager does).
    main_db: bool,
    /// The limit `PRAGMA mmap_size` gave (`SQLITE_FCNTL_MMAP_SIZE`).
    mmap_limit: std::sync::atomic::AtomicI64,
    /// Asked read-write, `xOpen` answered SQLITE_OPEN_READONLY.
    read_only_out: bool,
    /// The journal's sector size (high half) and page size (low half)
    /// once seen in a header written (0: not yet).
    journal_geometry: std::sync::atomic::AtomicU64,
    /// How this file holds each WAL-index lock slot.
    shm_held: Mutex<[ShmHold; SQLITE_SHM_NLOCK as usize]>,
    _name: Arc<NameBlock>,
    level: Mutex<LockLevel>,
}

// SAFETY: the VFS's file methods are callable from any thread (SQLite's
// contract); the engine serializes a connection's use of its files.
unsafe impl Send for VfsFile {}
unsafe impl Sync for VfsFile {}

fn done(r: std::result::Result<CompletionResult, Error>) -> Result<Completion> {
    Ok(Completion::ready(r))
}

impl VfsFile {
    fn methods(&self) -> Option<&sqlite3_io_methods> {
        // SAFETY: `file` is live until drop; pMethods is null or a table
        // the VFS keeps alive while the file is open.
        unsafe { (*self.file).pMethods.as_ref() }
    }

    /// The `sqlite3_file` (for `sqlite3_file_control`'s FILE_POINTER).
    pub fn raw(&self) -> *mut sqlite3_file {
        self.file
    }

    /// The VFS object that opened it (`SQLITE_FCNTL_VFS_POINTER`).
    pub fn vfs(&self) -> *mut sqlite3_vfs {
        self.vfs
    }

    /// Call `xFileControl`; `SQLITE_NOTFOUND` when the VFS has none.
    ///
    /// # Safety
    /// `arg` must be what the documentation of `op` says its caller
    /// passes (the VFS dereferences it).
    pub unsafe fn file_control(&self, op: c_int, arg: *mut c_void) -> c_int {
        match self.methods().and_then(|m| m.xFileControl) {
            // SAFETY: a live file; `arg` as the caller promised.
            Some(x) => unsafe { x(self.file, op, arg) },
            None => SQLITE_NOTFOUND,
        }
    }

    /// WAL files: note the page size from a header written or read at
    /// offset 0 (big-endian at bytes 8..12).
    fn learn_wal_page_size(&self, offset: u64, bytes: &[u8]) {
        if offset == 0 && bytes.len() >= 32 {
            let ps = u32::from_be_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]);
            if ps.is_power_of_two() && (512..=65536).contains(&ps) {
                self.wal_page_size.store(ps, std::sync::atomic::Ordering::Relaxed);
            }
        }
    }

    /// How many bytes of a WAL write starting at `offset` go in one
    /// `xWrite`, so that the VFS sees SQLite's pattern: the 32-byte
    /// header alone, then each frame as its 24-byte header and its page
    /// (some VFSes keep the log in memory and insist on that). `None`:
    /// not a WAL, or its page size is not known yet (one write).
    fn wal_piece(&self, offset: u64) -> Option<usize> {
        if !self.wal {
            return None;
        }
        let ps = self.wal_page_size.load(std::sync::atomic::Ordering::Relaxed) as u64;
        if ps == 0 {
            return None;
        }
        if offset < 32 {
            return Some((32 - offset) as usize);
        }
        let in_frame = (offset - 32) % (24 + ps);
        Some(if in_frame < 24 { (24 - in_frame) as usize } else { (24 + ps - in_frame) as usize })
    }

    /// Journal files: the lengths of the `xWrite` calls a write of `buf`
    /// at `offset` is made into, so that the VFS sees SQLite's pattern: a
    /// header sector as blocks of `min(page, sector)` bytes, each record
    /// as its page number, its image and its checksum; anything else
    /// (record counts, a spoiled byte) as one write.
    fn journal_pieces(&self, offset: u64, buf: &[u8]) -> Vec<usize> {
        use std::sync::atomic::Ordering::Relaxed;
        let len = buf.len();
        let known = self.journal_geometry.load(Relaxed);
        let (mut sector, mut page) = ((known >> 32) as usize, (known & 0xffff_ffff) as usize);
        let mut pieces = Vec::new();
        let mut pos = 0;
        if len >= 28 {
            let s = u32::from_be_bytes([buf[20], buf[21], buf[22], buf[23]]) as usize;
            let p = u32::from_be_bytes([buf[24], buf[25], buf[26], buf[27]]) as usize;
            let plausible = s.is_power_of_two() && s >= 32 && p.is_power_of_two() && (512..=65536).contains(&p);
            let header = plausible && offset.is_multiple_of(s as u64) && len >= s && if known == 0 { offset == 0 } else { (s, p) == (sector, page) };
            if header {
                (sector, page) = (s, p);
                self.journal_geometry.store(((s as u64) << 32) | p as u64, Relaxed);
                let block = p.min(s);
                while pos < s {
                    pieces.push(block);
                    pos += block;
                }
            }
        }
        debug_assert!(sector == 0 || sector.is_power_of_two());
        let record = page + 8;
        if page != 0 && len > pos && (len - pos).is_multiple_of(record) {
            while pos < len {
                pieces.extend([4, page, 4]);
                pos += record;
            }
        }
        if pos < len {
            pieces.push(len - pos);
        }
        pieces
    }

    /// A database page past the first read through `xFetch`, as SQLite's
    /// pager reads pages while `PRAGMA mmap_size` is positive (methods of
    /// version 3 or later): true when the VFS handed out the bytes, which
    /// are copied and handed back with `xUnfetch` at once (SQLite keeps
    /// the mapping while the page is in use). False: read with `xRead`
    /// (SQLite's fallback when `xFetch` gives no pointer).
    fn fetched(&self, offset: u64, buf: &mut [u8]) -> bool {
        let len = buf.len() as u64;
        if !self.main_db || offset < len || !offset.is_multiple_of(len) || self.mmap_limit.load(std::sync::atomic::Ordering::Relaxed) <= 0 {
            return false;
        }
        let Some(m) = self.methods().filter(|m| m.iVersion >= 3) else { return false };
        let (Some(fetch), Some(unfetch)) = (m.xFetch, m.xUnfetch) else { return false };
        let mut p: *mut c_void = std::ptr::null_mut();
        // SAFETY: a live file and an out pointer.
        let rc = unsafe { fetch(self.file, offset as sqlite3_int64, buf.len() as c_int, &mut p) };
        if rc != SQLITE_OK || p.is_null() {
            return false;
        }
        // SAFETY: the VFS maps at least `len` readable bytes at `p` until
        // the xUnfetch below.
        unsafe {
            std::ptr::copy_nonoverlapping(p as *const u8, buf.as_mut_ptr(), buf.len());
            unfetch(self.file, offset as sqlite3_int64, p);
        }
        true
    }

    fn file_size(&self) -> std::result::Result<u64, c_int> {
        let Some(x) = self.methods().and_then(|m| m.xFileSize) else {
            return Err(SQLITE_IOERR_FSTAT);
        };
        let mut n: sqlite3_int64 = 0;
        // SAFETY: a live file and an out pointer.
        let rc = unsafe { x(self.file, &mut n) };
        if rc == SQLITE_OK {
            Ok(n.max(0) as u64)
        } else {
            Err(rc)
        }
    }
}

impl File for VfsFile {
    fn read(&self, offset: u64, mut buf: Buffer) -> Result<Completion> {
        let Some(x) = self.methods().and_then(|m| m.xRead) else {
            return done(Err(err(SQLITE_IOERR_READ)));
        };
        let len = buf.len();
        if len == 0 {
            // SQLite never asks a VFS for nothing (some VFSes assert so).
            return done(Ok(CompletionResult { bytes: 0, buffer: Some(buf) }));
        }
        if self.fetched(offset, &mut buf) {
            return done(Ok(CompletionResult { bytes: len, buffer: Some(buf) }));
        }
        let mut rc = SQLITE_OK;
        let mut pos = 0;
        while pos < len && rc == SQLITE_OK {
            let at = offset + pos as u64;
            let piece = match self.wal_piece(at) {
                Some(n) => n.min(len - pos),
                // A WAL whose page size is not known yet: its header
                // alone first (then the header tells the frame size).
                None if self.wal && at < 32 => (32 - at as usize).min(len - pos),
                None => len - pos,
            };
            // SAFETY: a live file and room for `piece` bytes at `pos`.
            rc = unsafe { x(self.file, buf[pos..].as_mut_ptr() as *mut c_void, piece as c_int, (offset + pos as u64) as sqlite3_int64) };
            pos += piece;
            if self.wal && offset == 0 && pos == 32 && rc == SQLITE_OK {
                self.learn_wal_page_size(0, &buf[..32]);
            }
        }
        if rc == SQLITE_IOERR_SHORT_READ {
            // Whatever follows the short piece is past the end too.
            buf[pos.min(len)..].fill(0);
        }
        if self.wal && rc == SQLITE_OK {
            self.learn_wal_page_size(offset, &buf);
        }
        let bytes = match rc {
            SQLITE_OK => len,
            SQLITE_IOERR_SHORT_READ => {
                // The VFS zero-filled the rest; how much was real data
                // the file's size tells (the engine reads a short header
                // as such).
                let size = self.file_size().unwrap_or(offset);
                (size.saturating_sub(offset) as usize).min(len)
            }
            rc => return done(Err(err(rc))),
        };
        done(Ok(CompletionResult { bytes, buffer: Some(buf) }))
    }

    fn write(&self, offset: u64, buf: Buffer) -> Result<Completion> {
        let Some(x) = self.methods().and_then(|m| m.xWrite) else {
            return done(Err(err(SQLITE_IOERR_WRITE)));
        };
        let len = buf.len();
        if len == 0 {
            return done(Ok(CompletionResult { bytes: 0, buffer: Some(buf) }));
        }
        if self.wal {
            self.learn_wal_page_size(offset, &buf);
        }
        if self.journal {
            let mut pos = 0;
            for piece in self.journal_pieces(offset, &buf) {
                // SAFETY: a live file and `piece` readable bytes at `pos`.
                let rc = unsafe { x(self.file, buf[pos..].as_ptr() as *const c_void, piece as c_int, (offset + pos as u64) as sqlite3_int64) };
                if rc != SQLITE_OK {
                    return done(Err(err(rc)));
                }
                pos += piece;
            }
            debug_assert_eq!(pos, len);
            return done(Ok(CompletionResult { bytes: len, buffer: Some(buf) }));
        }
        let mut pos = 0;
        while pos < len {
            let piece = self.wal_piece(offset + pos as u64).map_or(len - pos, |n| n.min(len - pos));
            // SAFETY: a live file and `piece` readable bytes at `pos`.
            let rc = unsafe { x(self.file, buf[pos..].as_ptr() as *const c_void, piece as c_int, (offset + pos as u64) as sqlite3_int64) };
            if rc != SQLITE_OK {
                return done(Err(err(rc)));
            }
            pos += piece;
        }
        done(Ok(CompletionResult { bytes: len, buffer: Some(buf) }))
    }

    fn sync(&self, data_only: bool) -> Result<Completion> {
        let Some(x) = self.methods().and_then(|m| m.xSync) else {
            return done(Err(err(SQLITE_IOERR_FSYNC)));
        };
        let flags = SQLITE_SYNC_NORMAL | if data_only { SQLITE_SYNC_DATAONLY } else { 0 };
        // SAFETY: a live file.
        let rc = unsafe { x(self.file, flags) };
        done(if rc == SQLITE_OK { Ok(CompletionResult { bytes: 0, buffer: None }) } else { Err(err(rc)) })
    }

    fn truncate(&self, size: u64) -> Result<Completion> {
        let Some(x) = self.methods().and_then(|m| m.xTruncate) else {
            return done(Err(err(SQLITE_IOERR_TRUNCATE)));
        };
        // SAFETY: a live file.
        let rc = unsafe { x(self.file, size as sqlite3_int64) };
        done(if rc == SQLITE_OK { Ok(CompletionResult { bytes: 0, buffer: None }) } else { Err(err(rc)) })
    }

    fn size(&self) -> Result<u64> {
        self.file_size().map_err(err)
    }

    fn has_moved(&self) -> Result<bool> {
        let mut moved: c_int = 0;
        // SAFETY: HAS_MOVED takes a pointer to an int.
        let rc = unsafe { self.file_control(SQLITE_FCNTL_HAS_MOVED, &mut moved as *mut c_int as *mut c_void) };
        Ok(rc == SQLITE_OK && moved != 0)
    }

    fn sector_size(&self) -> u32 {
        match self.methods().and_then(|m| m.xSectorSize) {
            // SAFETY: a live file. (A negative answer counts as tiny.)
            Some(x) => unsafe { x(self.file) }.max(0) as u32,
            None => 4096,
        }
    }

    fn device_characteristics(&self) -> u32 {
        match self.methods().and_then(|m| m.xDeviceCharacteristics) {
            // SAFETY: a live file.
            Some(x) => (unsafe { x(self.file) }) as u32,
            None => 0,
        }
    }

    fn lock(&self, level: LockLevel) -> Result<bool> {
        let Some(x) = self.methods().and_then(|m| m.xLock) else {
            return Err(err(SQLITE_IOERR_LOCK));
        };
        let mut held = self.level.lock().unwrap_or_else(|p| p.into_inner());
        if *held >= level {
            return Ok(true);
        }
        // SAFETY: a live file.
        let rc = unsafe { x(self.file, crate::vfs_unix::level_number(level)) };
        match rc {
            SQLITE_OK => {
                *held = level;
                Ok(true)
            }
            SQLITE_BUSY => Ok(false),
            rc => Err(err(rc)),
        }
    }

    fn unlock(&self, level: LockLevel) -> Result<()> {
        let Some(x) = self.methods().and_then(|m| m.xUnlock) else {
            return Err(err(SQLITE_IOERR_UNLOCK));
        };
        let mut held = self.level.lock().unwrap_or_else(|p| p.into_inner());
        if *held <= level {
            return Ok(());
        }
        // SAFETY: a live file.
        let rc = unsafe { x(self.file, crate::vfs_unix::level_number(level)) };
        if rc != SQLITE_OK {
            return Err(err(rc));
        }
        *held = level;
        Ok(())
    }

    fn check_reserved_lock(&self) -> Result<bool> {
        let Some(x) = self.methods().and_then(|m| m.xCheckReservedLock) else {
            return Err(err(SQLITE_IOERR_CHECKRESERVEDLOCK));
        };
        let mut out: c_int = 0;
        // SAFETY: a live file and an out pointer.
        let rc = unsafe { x(self.file, &mut out) };
        if rc != SQLITE_OK {
            return Err(err(rc));
        }
        Ok(out != 0)
    }

    fn lock_level(&self) -> LockLevel {
        *self.level.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn shm_map(&self, region: usize, region_size: usize, extend: bool) -> Result<Option<ShmRegion>> {
        let m = self.methods();
        let (Some(x), Some(barrier)) = (m.filter(|m| m.iVersion >= 2).and_then(|m| m.xShmMap), m.and_then(|m| m.xShmBarrier)) else {
            return Err(Error::unsupported("WAL mode through a VFS without shared memory"));
        };
        let mut p: *mut c_void = std::ptr::null_mut();
        // SAFETY: a live file and an out pointer.
        let rc = unsafe { x(self.file, region as c_int, region_size as c_int, extend as c_int, &mut p) };
        if rc != SQLITE_OK && rc != SQLITE_READONLY {
            return Err(err(rc));
        }
        if p.is_null() {
            return Ok(None);
        }
        Ok(Some(ShmRegion(Arc::new(VfsShm { ptr: p as *mut u8, len: region_size, file: self.file, barrier }))))
    }

    fn shm_lock(&self, offset: usize, n: usize, exclusive: bool, lock: bool) -> Result<bool> {
        let Some(x) = self.methods().and_then(|m| m.xShmLock) else {
            return Err(Error::unsupported("WAL mode through a VFS without shared memory"));
        };
        let mut held = self.shm_held.lock().unwrap_or_else(|p| p.into_inner());
        let slots = offset..(offset + n).min(SQLITE_SHM_NLOCK as usize);
        if lock {
            let flags = SQLITE_SHM_LOCK | if exclusive { SQLITE_SHM_EXCLUSIVE } else { SQLITE_SHM_SHARED };
            // SAFETY: a live file.
            return match unsafe { x(self.file, offset as c_int, n as c_int, flags) } {
                SQLITE_OK => {
                    for i in slots {
                        held[i] = if exclusive { ShmHold::Exclusive } else { ShmHold::Shared };
                    }
                    Ok(true)
                }
                SQLITE_BUSY => Ok(false),
                rc => Err(err(rc)),
            };
        }
        // An unlock names the kind of lock it releases, as SQLite's do (a
        // VFS may insist: shared locks are one slot at a time): each run
        // of slots held the same way is released with its own kind.
        let mut i = slots.start;
        while i < slots.end {
            let kind = held[i];
            let mut j = i + 1;
            while j < slots.end && held[j] == kind {
                j += 1;
            }
            let excl = match kind {
                ShmHold::Exclusive => true,
                ShmHold::Shared => false,
                ShmHold::None => {
                    i = j;
                    continue;
                }
            };
            if !excl {
                // One call per shared slot.
                j = i + 1;
            }
            let flags = SQLITE_SHM_UNLOCK | if excl { SQLITE_SHM_EXCLUSIVE } else { SQLITE_SHM_SHARED };
            // SAFETY: a live file.
            let rc = unsafe { x(self.file, i as c_int, (j - i) as c_int, flags) };
            if rc != SQLITE_OK {
                return Err(err(rc));
            }
            for h in &mut held[i..j] {
                *h = ShmHold::None;
            }
            i = j;
        }
        Ok(true)
    }

    fn shm_unmap(&self, delete: bool) -> Result<()> {
        let Some(x) = self.methods().filter(|m| m.iVersion >= 2).and_then(|m| m.xShmUnmap) else {
            return Ok(());
        };
        // SAFETY: a live file.
        let rc = unsafe { x(self.file, delete as c_int) };
        if rc == SQLITE_OK {
            Ok(())
        } else {
            Err(err(rc))
        }
    }

    fn hint(&self, hint: FileHint) {
        // The VFS's answer changes nothing: SQLite ignores it too.
        match hint {
            FileHint::SizeHint(size) => {
                let mut n = size as sqlite3_int64;
                // SAFETY: SIZE_HINT takes a pointer to an sqlite3_int64.
                unsafe { self.file_control(SQLITE_FCNTL_SIZE_HINT, &mut n as *mut sqlite3_int64 as *mut c_void) };
            }
            FileHint::Sync(super_journal) => {
                // The argument: the transaction's super-journal's name, or
                // null when it has none (one database written).
                let name = super_journal.and_then(|n| CString::new(n.as_bytes()).ok());
                let arg = name.as_ref().map_or(std::ptr::null_mut(), |n| n.as_ptr() as *mut c_void);
                // SAFETY: SYNC takes a NUL-terminated name or null.
                unsafe { self.file_control(SQLITE_FCNTL_SYNC, arg) };
            }
            FileHint::CommitPhaseTwo => {
                // SAFETY: COMMIT_PHASETWO takes no argument.
                unsafe { self.file_control(SQLITE_FCNTL_COMMIT_PHASETWO, std::ptr::null_mut()) };
            }
            FileHint::CheckpointStart => {
                // SAFETY: CKPT_START takes no argument.
                unsafe { self.file_control(SQLITE_FCNTL_CKPT_START, std::ptr::null_mut()) };
            }
            FileHint::MmapSize(limit) => {
                self.mmap_limit.store(limit, std::sync::atomic::Ordering::Relaxed);
                VfsBackend::send_mmap_size(self, limit);
            }
            FileHint::CheckpointDone => {
                // SAFETY: CKPT_DONE takes no argument.
                unsafe { self.file_control(SQLITE_FCNTL_CKPT_DONE, std::ptr::null_mut()) };
            }
            FileHint::WalPageSize(ps) => {
                // (Not sent to the VFS: the frame layout of `wal_piece`.)
                if self.wal && ps.is_power_of_two() && (512..=65536).contains(&ps) {
                    self.wal_page_size.store(ps, std::sync::atomic::Ordering::Relaxed);
                }
            }
        };
    }

    fn opened_read_only(&self) -> bool {
        self.read_only_out
    }

    fn mmap_size(&self) -> Option<Result<i64>> {
        let mut n: sqlite3_int64 = -1;
        // SAFETY: MMAP_SIZE takes a pointer to an sqlite3_int64 (-1: a
        // question).
        match unsafe { self.file_control(SQLITE_FCNTL_MMAP_SIZE, &mut n as *mut sqlite3_int64 as *mut c_void) } {
            SQLITE_OK => Some(Ok(n)),
            SQLITE_NOTFOUND => None,
            rc => Some(Err(err(rc))),
        }
    }

    fn persist_wal(&self) -> bool {
        let mut flag: c_int = -1;
        // SAFETY: PERSIST_WAL takes a pointer to an int (-1: a question).
        unsafe { self.file_control(SQLITE_FCNTL_PERSIST_WAL, &mut flag as *mut c_int as *mut c_void) == SQLITE_OK && flag > 0 }
    }

    fn pragma(&self, name: &str, arg: Option<&str>) -> Option<Result<Option<String>>> {
        let name = CString::new(name).ok()?;
        let arg = match arg {
            Some(a) => Some(CString::new(a).ok()?),
            None => None,
        };
        let mut args: [*mut c_char; 4] = [
            std::ptr::null_mut(),
            name.as_ptr() as *mut c_char,
            arg.as_ref().map_or(std::ptr::null_mut(), |a| a.as_ptr() as *mut c_char),
            std::ptr::null_mut(),
        ];
        // SAFETY: PRAGMA takes an array of four strings, the first for
        // the answer.
        let rc = unsafe { self.file_control(SQLITE_FCNTL_PRAGMA, args.as_mut_ptr() as *mut c_void) };
        let text = if args[0].is_null() {
            None
        } else {
            // SAFETY: the VFS left a string from sqlite3_malloc there, ours
            // to free (SQLite's contract for this control).
            unsafe {
                let t = std::ffi::CStr::from_ptr(args[0]).to_string_lossy().into_owned();
                crate::memory::sqlite3_free(args[0] as *mut c_void);
                Some(t)
            }
        };
        match rc {
            SQLITE_NOTFOUND => None,
            SQLITE_OK => Some(Ok(text)),
            rc => Some(Err(match text {
                Some(t) => Error::new(rc, t),
                None => Error::code(rc),
            })),
        }
    }

    fn has_shared_memory(&self) -> bool {
        self.methods().is_some_and(|m| m.iVersion >= 2 && m.xShmMap.is_some() && m.xShmLock.is_some() && m.xShmBarrier.is_some())
    }

    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }
}

impl Drop for VfsFile {
    fn drop(&mut self) {
        if self.main_db {
            set_file_object(self._name.bytes.as_ptr() as usize, 0);
        }
        if let Some(x) = self.methods().and_then(|m| m.xClose) {
            // SAFETY: a file whose xOpen set pMethods is closed once.
            unsafe { x(self.file) };
        }
        // SAFETY: allocated by calloc in `open`, not used after this.
        unsafe { libc::free(self.file as *mut c_void) };
    }
}

/// A region of WAL-index memory a VFS mapped with `xShmMap`.
struct VfsShm {
    ptr: *mut u8,
    len: usize,
    file: *mut sqlite3_file,
    barrier: unsafe extern "C" fn(*mut sqlite3_file),
}

// SAFETY: shared memory accessed through volatile copies and atomics; the
// VFS keeps it mapped until xShmUnmap, after which the engine drops it.
unsafe impl Send for VfsShm {}
unsafe impl Sync for VfsShm {}

impl VfsShm {
    fn in_bounds(&self, offset: usize, n: usize) -> bool {
        offset.checked_add(n).is_some_and(|e| e <= self.len)
    }

    fn atomic(&self, offset: usize) -> Option<&std::sync::atomic::AtomicU32> {
        if !offset.is_multiple_of(4) || !self.in_bounds(offset, 4) || !(self.ptr as usize).is_multiple_of(4) {
            return None;
        }
        // SAFETY: aligned and in bounds of the live mapping.
        Some(unsafe { &*(self.ptr.add(offset) as *const std::sync::atomic::AtomicU32) })
    }
}

impl ShmMemory for VfsShm {
    fn len(&self) -> usize {
        self.len
    }
    fn read(&self, offset: usize, out: &mut [u8]) {
        if !self.in_bounds(offset, out.len()) {
            return;
        }
        for (i, b) in out.iter_mut().enumerate() {
            // SAFETY: in bounds of the live mapping.
            *b = unsafe { std::ptr::read_volatile(self.ptr.add(offset + i)) };
        }
    }
    fn write(&self, offset: usize, data: &[u8]) {
        if !self.in_bounds(offset, data.len()) {
            return;
        }
        for (i, b) in data.iter().enumerate() {
            // SAFETY: in bounds of the live mapping.
            unsafe { std::ptr::write_volatile(self.ptr.add(offset + i), *b) };
        }
    }
    fn load_u32(&self, offset: usize) -> u32 {
        self.atomic(offset).map_or(0, |a| a.load(std::sync::atomic::Ordering::SeqCst))
    }
    fn store_u32(&self, offset: usize, value: u32) {
        if let Some(a) = self.atomic(offset) {
            a.store(value, std::sync::atomic::Ordering::SeqCst)
        }
    }
    fn barrier(&self) {
        std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
        // SAFETY: the file that mapped this region is open while the
        // engine uses the region.
        unsafe { (self.barrier)(self.file) };
    }
    fn as_ptr(&self) -> Option<*mut u8> {
        Some(self.ptr)
    }
}
