//! # The built-in "unix" VFS objects
//!
//! What `sqlite3_vfs_find("unix")` returns. Its `xOpen` opens real files:
//! each `sqlite3_file` it fills holds one of the engine's own `sync`
//! backend files (positioned system calls, SQLite's POSIX lock protocol
//! with the per-process inode table, the mmapped `-shm` file), so an
//! application that wraps this object ("find unix, copy its pointer,
//! register a shim that calls through") gets the same files, locks and
//! shared memory as connections on the native path, and interoperates
//! with them and with other SQLite processes.
//!
//! Connections opened through one of these objects unwrapped never call
//! them: they take the engine's native path (see `vfs::route`), which is
//! the same I/O without a C call per page.
//!
//! Invariants: a file's `pMethods` is set only once its engine file is
//! open (so SQLite's rule "xClose only when pMethods is set" frees
//! everything); the mapped shared-memory regions handed out by `xShmMap`
//! stay alive in the file until `xShmUnmap` or `xClose`.

use crate::abi::sqlite3_file;
use crate::abi::{sqlite3_io_methods, sqlite3_vfs};
use crate::consts::*;
use crate::types::{sqlite3_filename, sqlite3_int64, sqlite3_syscall_ptr};
use ringlite::io::{Buffer, File, FileKind, IoBackend, LockLevel, OpenOptions, ShmRegion};
use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

/// Milliseconds from the Julian day epoch to the Unix epoch.
const UNIX_EPOCH_JD_MS: i64 = 210_866_760_000_000;
const MAX_PATHNAME: c_int = 512;

unsafe extern "C" fn x_delete(_: *mut sqlite3_vfs, name: *const c_char, _sync_dir: c_int) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `_` is NULL or a live `sqlite3_vfs`
    // this library or SQLite's API contract provides; `name` is NULL or NUL-terminated (or readable for the
    // length given with it).
    unsafe {
        if name.is_null() {
            return SQLITE_MISUSE;
        }
        if libc::unlink(name) == 0 {
            SQLITE_OK
        } else if std::io::Error::last_os_error().raw_os_error() == Some(libc::ENOENT) {
            SQLITE_IOERR_DELETE_NOENT
        } else {
            SQLITE_IOERR_DELETE
        }
    }
}

unsafe extern "C" fn x_access(_: *mut sqlite3_vfs, name: *const c_char, flags: c_int, out: *mut c_int) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `_` is NULL or a live `sqlite3_vfs`
    // this library or SQLite's API contract provides; `name` is NULL or NUL-terminated (or readable for the
    // length given with it); `out` is NULL or writable.
    unsafe {
        if name.is_null() || out.is_null() {
            return SQLITE_MISUSE;
        }
        let mode = match flags {
            SQLITE_ACCESS_READWRITE => libc::R_OK | libc::W_OK,
            SQLITE_ACCESS_READ => libc::R_OK,
            _ => {
                // Existence, as SQLite's unix VFS answers it: an empty regular
                // file does not count (an emptied journal is no journal).
                let mut st: libc::stat = std::mem::zeroed();
                let found = libc::stat(name, &mut st) == 0 && ((st.st_mode & libc::S_IFMT) != libc::S_IFREG || st.st_size > 0);
                *out = found as c_int;
                return SQLITE_OK;
            }
        };
        *out = (libc::access(name, mode) == 0) as c_int;
        SQLITE_OK
    }
}

unsafe extern "C" fn x_full_pathname(_: *mut sqlite3_vfs, name: *const c_char, n_out: c_int, out: *mut c_char) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `_` is NULL or a live `sqlite3_vfs`
    // this library or SQLite's API contract provides; `name`, `out` are NULL or NUL-terminated (or readable
    // for the length given with them).
    unsafe {
        if name.is_null() || out.is_null() || n_out <= 0 {
            return SQLITE_MISUSE;
        }
        let given = CStr::from_ptr(name).to_bytes();
        let mut full = Vec::new();
        if given.first() != Some(&b'/') {
            match std::env::current_dir() {
                Ok(d) => full.extend_from_slice(d.as_os_str().as_encoded_bytes()),
                Err(_) => return SQLITE_CANTOPEN,
            }
            full.push(b'/');
        }
        full.extend_from_slice(given);
        if full.len() >= n_out as usize {
            return SQLITE_CANTOPEN;
        }
        std::ptr::copy_nonoverlapping(full.as_ptr(), out as *mut u8, full.len());
        *out.add(full.len()) = 0;
        SQLITE_OK
    }
}

unsafe extern "C" fn x_dl_open(_: *mut sqlite3_vfs, name: *const c_char) -> *mut c_void {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `_` is NULL or a live `sqlite3_vfs`
    // this library or SQLite's API contract provides; `name` is NULL or NUL-terminated (or readable for the
    // length given with it).
    unsafe { libc::dlopen(name, libc::RTLD_NOW | libc::RTLD_GLOBAL) }
}

unsafe extern "C" fn x_dl_error(_: *mut sqlite3_vfs, n: c_int, out: *mut c_char) {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `_` is NULL or a live `sqlite3_vfs`
    // this library or SQLite's API contract provides; `out` is NULL or NUL-terminated (or readable for the
    // length given with it).
    unsafe {
        let e = libc::dlerror();
        let msg = if e.is_null() { &b"unknown dlopen error"[..] } else { CStr::from_ptr(e).to_bytes() };
        if n > 0 && !out.is_null() {
            let len = msg.len().min(n as usize - 1);
            std::ptr::copy_nonoverlapping(msg.as_ptr(), out as *mut u8, len);
            *out.add(len) = 0;
        }
    }
}

unsafe extern "C" fn x_dl_sym(_: *mut sqlite3_vfs, handle: *mut c_void, name: *const c_char) -> Option<unsafe extern "C" fn()> {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `_` is NULL or a live `sqlite3_vfs`
    // this library or SQLite's API contract provides; `name` is NULL or NUL-terminated (or readable for the
    // length given with it); `handle` is NULL or valid for what the API does with it (read for the length
    // given, or handed back to callbacks untouched).
    unsafe {
        let p = libc::dlsym(handle, name);
        // SAFETY: a symbol's address, typed as the generic function pointer
        // the interface uses (null becomes None).
        std::mem::transmute::<*mut c_void, Option<unsafe extern "C" fn()>>(p)
    }
}

unsafe extern "C" fn x_dl_close(_: *mut sqlite3_vfs, handle: *mut c_void) {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `_` is NULL or a live `sqlite3_vfs`
    // this library or SQLite's API contract provides; `handle` is NULL or valid for what the API does with it
    // (read for the length given, or handed back to callbacks untouched).
    unsafe {
        if !handle.is_null() {
            libc::dlclose(handle);
        }
    }
}

/// The system's random bytes (as SQLite's unix VFS reads `/dev/urandom`):
/// what seeds the process's generator when this object is the default.
unsafe extern "C" fn x_randomness(_: *mut sqlite3_vfs, n: c_int, out: *mut c_char) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `_` is NULL or a live `sqlite3_vfs`
    // this library or SQLite's API contract provides; `out` is NULL or NUL-terminated (or readable for the
    // length given with it).
    unsafe {
        if n <= 0 || out.is_null() {
            return 0;
        }
        let buf = std::slice::from_raw_parts_mut(out as *mut u8, n as usize);
        buf.fill(0);
        let mut filled = 0;
        while filled < buf.len() {
            let r = libc::getrandom(buf[filled..].as_mut_ptr() as *mut c_void, buf.len() - filled, 0);
            if r <= 0 {
                break;
            }
            filled += r as usize;
        }
        n
    }
}

unsafe extern "C" fn x_sleep(_: *mut sqlite3_vfs, micros: c_int) -> c_int {
    std::thread::sleep(std::time::Duration::from_micros(micros.max(0) as u64));
    micros.max(0)
}

fn now_jd_ms() -> i64 {
    let ms = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64);
    UNIX_EPOCH_JD_MS + ms
}

unsafe extern "C" fn x_current_time(_: *mut sqlite3_vfs, out: *mut f64) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `_` is NULL or a live `sqlite3_vfs`
    // this library or SQLite's API contract provides; `out` is NULL or writable.
    unsafe {
        if !out.is_null() {
            *out = now_jd_ms() as f64 / 86_400_000.0;
        }
        SQLITE_OK
    }
}

unsafe extern "C" fn x_get_last_error(_: *mut sqlite3_vfs, _: c_int, _: *mut c_char) -> c_int {
    // SQLite's unix VFS answers the thread's errno.
    crate::error::last_os_errno()
}

unsafe extern "C" fn x_current_time_int64(_: *mut sqlite3_vfs, out: *mut sqlite3_int64) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `_` is NULL or a live `sqlite3_vfs`
    // this library or SQLite's API contract provides; `out` is NULL or a live `sqlite3_int64` this library or
    // SQLite's API contract provides.
    unsafe {
        if !out.is_null() {
            *out = now_jd_ms();
        }
        SQLITE_OK
    }
}

unsafe extern "C" fn x_set_system_call(_: *mut sqlite3_vfs, _: *const c_char, _: sqlite3_syscall_ptr) -> c_int {
    SQLITE_NOTFOUND
}

unsafe extern "C" fn x_get_system_call(_: *mut sqlite3_vfs, _: *const c_char) -> sqlite3_syscall_ptr {
    None
}

unsafe extern "C" fn x_next_system_call(_: *mut sqlite3_vfs, _: *const c_char) -> *const c_char {
    std::ptr::null()
}

/// A file opened by the "unix" object: `base` first, as SQLite's
/// subclassing of `sqlite3_file` requires.
#[repr(C)]
struct UnixFile {
    base: sqlite3_file,
    /// The engine file (a leaked box; taken back by `xClose`).
    file: *mut Arc<dyn File>,
    /// Regions handed out by `xShmMap` (a leaked box).
    regions: *mut Vec<ShmRegion>,
}

/// The `sqlite3_file` of a database file a connection opened on the
/// engine's own I/O, for `SQLITE_FCNTL_FILE_POINTER` and
/// `SQLITE_FCNTL_JOURNAL_POINTER`: the "unix" object's methods on the
/// connection's own engine file, so an application calling through it
/// reads, locks and controls the very file the connection uses, as with
/// SQLite. Owned by the connection's handle until close; never closed by
/// the application (SQLite's objects are not theirs to close either).
pub struct NativeFileObject(Box<UnixFile>);

impl NativeFileObject {
    /// An object for `file` (a file of a blocking connection: its
    /// requests complete at submission).
    pub fn new(file: Arc<dyn File>) -> NativeFileObject {
        NativeFileObject(Box::new(UnixFile {
            base: sqlite3_file { pMethods: &UNIX_IO_METHODS.0 },
            file: Box::into_raw(Box::new(file)),
            regions: Box::into_raw(Box::new(Vec::new())),
        }))
    }

    /// Whether this object stands for `file`.
    pub fn is_for(&self, file: &Arc<dyn File>) -> bool {
        // SAFETY: `file` is set at construction and freed only by drop.
        !self.0.file.is_null() && Arc::ptr_eq(unsafe { &*self.0.file }, file)
    }

    /// The object as SQLite's API hands it out.
    pub fn raw(&mut self) -> *mut sqlite3_file {
        &mut self.0.base
    }
}

impl Drop for NativeFileObject {
    fn drop(&mut self) {
        // SAFETY: the object is ours; xClose frees what `new` leaked.
        unsafe { x_close(self.raw()) };
    }
}

/// The code of an engine error, as a VFS method returns it.
fn code_of(e: &ringlite::Error) -> c_int {
    e.code
}

unsafe fn engine_file<'a>(f: *mut sqlite3_file) -> Option<&'a Arc<dyn File>> {
    // SAFETY: the caller guarantees: `f` is NULL or a live `sqlite3_file` this library or SQLite's API
    // contract provides.
    unsafe {
        let u = f as *mut UnixFile;
        if f.is_null() || (*u).file.is_null() {
            None
        } else {
            Some(&*(*u).file)
        }
    }
}

/// The outcome of a request of the `sync` backend (complete at submission).
fn finished(c: ringlite::Result<ringlite::io::Completion>) -> ringlite::Result<ringlite::io::CompletionResult> {
    let c = c?;
    // (A native file of an async connection completes later: its object
    // is never handed out, see `NativeFileObject`.)
    if !c.is_done() {
        return Err(ringlite::Error::new(SQLITE_IOERR, "disk I/O error (request of an async connection)"));
    }
    c.take()
}

fn kind_of(flags: c_int) -> FileKind {
    if flags & SQLITE_OPEN_MAIN_DB != 0 {
        FileKind::MainDb
    } else if flags & (SQLITE_OPEN_MAIN_JOURNAL | SQLITE_OPEN_SUPER_JOURNAL) != 0 {
        FileKind::MainJournal
    } else if flags & SQLITE_OPEN_WAL != 0 {
        FileKind::Wal
    } else {
        FileKind::Temp
    }
}

/// A fresh name for a nameless (temporary) file.
pub fn temp_name() -> String {
    static SEQ: AtomicU64 = AtomicU64::new(0);
    let dir = std::env::var("SQLITE_TMPDIR").ok().or_else(|| std::env::var("TMPDIR").ok()).unwrap_or_else(|| "/var/tmp".into());
    let dir = if std::path::Path::new(&dir).is_dir() { dir } else { "/tmp".into() };
    let mut r = [0u8; 8];
    // SAFETY: an 8-byte buffer.
    unsafe { crate::random::sqlite3_randomness(8, r.as_mut_ptr() as *mut c_void) };
    format!("{dir}/etilqs_{:x}{:016x}{}", std::process::id(), u64::from_ne_bytes(r), SEQ.fetch_add(1, Ordering::Relaxed))
}

unsafe extern "C" fn x_open(vfs: *mut sqlite3_vfs, name: sqlite3_filename, f: *mut sqlite3_file, flags: c_int, out_flags: *mut c_int) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `vfs` is NULL or a live
    // `sqlite3_vfs` this library or SQLite's API contract provides; `f` is NULL or a live `sqlite3_file` this
    // library or SQLite's API contract provides; `name` is NULL or NUL-terminated (or readable for the length
    // given with it); `out_flags` is NULL or writable.
    unsafe {
        if f.is_null() {
            return SQLITE_MISUSE;
        }
        let u = f as *mut UnixFile;
        (*u).base.pMethods = std::ptr::null();
        let (path, delete_on_close) = if name.is_null() {
            (temp_name(), true)
        } else {
            (String::from_utf8_lossy(CStr::from_ptr(name).to_bytes()).into_owned(), flags & SQLITE_OPEN_DELETEONCLOSE != 0)
        };
        let opts = OpenOptions {
            read_only: flags & SQLITE_OPEN_READONLY != 0,
            create: flags & SQLITE_OPEN_CREATE != 0,
            exclusive: flags & SQLITE_OPEN_EXCLUSIVE != 0,
            delete_on_close,
            kind: kind_of(flags),
            // (The `unix-dotfile`/`unix-none` objects lock their way.)
            lock_style: if flags & SQLITE_OPEN_MAIN_DB != 0 { crate::vfs::lock_style(vfs) } else { Default::default() },
        };
        let file = match ringlite::io::sync::SyncBackend::new().open(&path, opts) {
            Ok(file) => file,
            Err(e) if e.primary() == SQLITE_CANTOPEN => return e.code,
            Err(_) => return SQLITE_CANTOPEN,
        };
        if flags & SQLITE_OPEN_MAIN_DB != 0 && !name.is_null() {
            if let Some(m) = file.modes() {
                m.set_powersafe_overwrite(crate::uri::sqlite3_uri_boolean(name, c"psow".as_ptr(), 1) != 0);
            }
        }
        (*u).file = Box::into_raw(Box::new(file));
        (*u).regions = Box::into_raw(Box::new(Vec::new()));
        (*u).base.pMethods = &UNIX_IO_METHODS.0;
        if !out_flags.is_null() {
            *out_flags = flags;
        }
        SQLITE_OK
    }
}

unsafe extern "C" fn x_close(f: *mut sqlite3_file) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `f` is NULL or a live `sqlite3_file`
    // this library or SQLite's API contract provides.
    unsafe {
        let u = f as *mut UnixFile;
        if f.is_null() {
            return SQLITE_OK;
        }
        if !(*u).regions.is_null() {
            drop(Box::from_raw((*u).regions));
            (*u).regions = std::ptr::null_mut();
        }
        if !(*u).file.is_null() {
            drop(Box::from_raw((*u).file));
            (*u).file = std::ptr::null_mut();
        }
        (*u).base.pMethods = std::ptr::null();
        SQLITE_OK
    }
}

unsafe extern "C" fn x_read(f: *mut sqlite3_file, out: *mut c_void, amt: c_int, off: sqlite3_int64) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `f` is NULL or a live `sqlite3_file`
    // this library or SQLite's API contract provides; `out` is NULL or valid for what the API does with it
    // (read for the length given, or handed back to callbacks untouched).
    unsafe {
        let Some(file) = engine_file(f) else { return SQLITE_IOERR_READ };
        if amt < 0 || off < 0 || out.is_null() {
            return SQLITE_IOERR_READ;
        }
        match finished(file.read(off as u64, Buffer::zeroed(amt as usize))) {
            Ok(r) => {
                let dst = std::slice::from_raw_parts_mut(out as *mut u8, amt as usize);
                match r.buffer {
                    Some(b) => dst.copy_from_slice(&b[..amt as usize]),
                    None => dst.fill(0),
                }
                // The rest is zero-filled, as SQLite's short-read rule asks.
                if r.bytes < amt as usize {
                    SQLITE_IOERR_SHORT_READ
                } else {
                    SQLITE_OK
                }
            }
            Err(e) => code_of(&e),
        }
    }
}

unsafe extern "C" fn x_write(f: *mut sqlite3_file, data: *const c_void, amt: c_int, off: sqlite3_int64) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `f` is NULL or a live `sqlite3_file`
    // this library or SQLite's API contract provides; `data` is NULL or valid for what the API does with it
    // (read for the length given, or handed back to callbacks untouched).
    unsafe {
        let Some(file) = engine_file(f) else { return SQLITE_IOERR_WRITE };
        if amt < 0 || off < 0 || (data.is_null() && amt > 0) {
            return SQLITE_IOERR_WRITE;
        }
        let bytes = if amt == 0 { Vec::new() } else { std::slice::from_raw_parts(data as *const u8, amt as usize).to_vec() };
        match finished(file.write(off as u64, Buffer::from_vec(bytes))) {
            Ok(_) => SQLITE_OK,
            Err(e) => code_of(&e),
        }
    }
}

unsafe extern "C" fn x_truncate(f: *mut sqlite3_file, size: sqlite3_int64) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `f` is NULL or a live `sqlite3_file`
    // this library or SQLite's API contract provides.
    unsafe {
        let Some(file) = engine_file(f) else { return SQLITE_IOERR_TRUNCATE };
        match finished(file.truncate(size.max(0) as u64)) {
            Ok(_) => SQLITE_OK,
            Err(e) => code_of(&e),
        }
    }
}

unsafe extern "C" fn x_sync(f: *mut sqlite3_file, flags: c_int) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `f` is NULL or a live `sqlite3_file`
    // this library or SQLite's API contract provides.
    unsafe {
        let Some(file) = engine_file(f) else { return SQLITE_IOERR_FSYNC };
        match finished(file.sync(flags & SQLITE_SYNC_DATAONLY != 0)) {
            Ok(_) => SQLITE_OK,
            Err(e) => code_of(&e),
        }
    }
}

unsafe extern "C" fn x_file_size(f: *mut sqlite3_file, out: *mut sqlite3_int64) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `f` is NULL or a live `sqlite3_file`
    // this library or SQLite's API contract provides; `out` is NULL or a live `sqlite3_int64` this library or
    // SQLite's API contract provides.
    unsafe {
        let Some(file) = engine_file(f) else { return SQLITE_IOERR_FSTAT };
        match file.size() {
            Ok(n) => {
                if !out.is_null() {
                    *out = n as sqlite3_int64;
                }
                SQLITE_OK
            }
            Err(e) => code_of(&e),
        }
    }
}

/// SQLite's lock level numbers.
pub fn level_of(n: c_int) -> Option<LockLevel> {
    Some(match n {
        SQLITE_LOCK_NONE => LockLevel::None,
        SQLITE_LOCK_SHARED => LockLevel::Shared,
        SQLITE_LOCK_RESERVED => LockLevel::Reserved,
        SQLITE_LOCK_PENDING => LockLevel::Pending,
        SQLITE_LOCK_EXCLUSIVE => LockLevel::Exclusive,
        _ => return None,
    })
}

/// The number SQLite gives `level`.
pub fn level_number(level: LockLevel) -> c_int {
    match level {
        LockLevel::None => SQLITE_LOCK_NONE,
        LockLevel::Shared => SQLITE_LOCK_SHARED,
        LockLevel::Reserved => SQLITE_LOCK_RESERVED,
        LockLevel::Pending => SQLITE_LOCK_PENDING,
        LockLevel::Exclusive => SQLITE_LOCK_EXCLUSIVE,
    }
}

unsafe extern "C" fn x_lock(f: *mut sqlite3_file, level: c_int) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `f` is NULL or a live `sqlite3_file`
    // this library or SQLite's API contract provides.
    unsafe {
        let (Some(file), Some(level)) = (engine_file(f), level_of(level)) else { return SQLITE_IOERR_LOCK };
        if file.lock_level() >= level {
            return SQLITE_OK;
        }
        match file.lock(level) {
            Ok(true) => SQLITE_OK,
            Ok(false) => SQLITE_BUSY,
            Err(e) => code_of(&e),
        }
    }
}

unsafe extern "C" fn x_unlock(f: *mut sqlite3_file, level: c_int) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `f` is NULL or a live `sqlite3_file`
    // this library or SQLite's API contract provides.
    unsafe {
        let (Some(file), Some(level)) = (engine_file(f), level_of(level)) else { return SQLITE_IOERR_UNLOCK };
        if file.lock_level() <= level {
            return SQLITE_OK;
        }
        match file.unlock(level) {
            Ok(()) => SQLITE_OK,
            Err(e) => code_of(&e),
        }
    }
}

unsafe extern "C" fn x_check_reserved_lock(f: *mut sqlite3_file, out: *mut c_int) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `f` is NULL or a live `sqlite3_file`
    // this library or SQLite's API contract provides; `out` is NULL or writable.
    unsafe {
        let Some(file) = engine_file(f) else { return SQLITE_IOERR_CHECKRESERVEDLOCK };
        match file.check_reserved_lock() {
            Ok(held) => {
                if !out.is_null() {
                    *out = held as c_int;
                }
                SQLITE_OK
            }
            Err(e) => code_of(&e),
        }
    }
}

unsafe extern "C" fn x_file_control(f: *mut sqlite3_file, op: c_int, arg: *mut c_void) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `f` is NULL or a live `sqlite3_file`
    // this library or SQLite's API contract provides; `arg` is NULL or valid for what the API does with it
    // (read for the length given, or handed back to callbacks untouched).
    unsafe {
        match engine_file(f) {
            Some(file) => crate::file_control::unix_file_control(file.as_ref(), op, arg),
            None => SQLITE_NOTFOUND,
        }
    }
}

unsafe extern "C" fn x_sector_size(_: *mut sqlite3_file) -> c_int {
    4096
}

unsafe extern "C" fn x_device_characteristics(f: *mut sqlite3_file) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `f` is NULL or a live `sqlite3_file`
    // this library or SQLite's API contract provides.
    unsafe { engine_file(f).map_or(0, |file| file.device_characteristics() as c_int) }
}

unsafe extern "C" fn x_shm_map(f: *mut sqlite3_file, region: c_int, size: c_int, extend: c_int, pp: *mut *mut c_void) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `f` is NULL or a live `sqlite3_file`
    // this library or SQLite's API contract provides; `pp` is NULL or writable.
    unsafe {
        let u = f as *mut UnixFile;
        let Some(file) = engine_file(f) else { return SQLITE_IOERR_SHMMAP };
        if pp.is_null() || region < 0 || size <= 0 {
            return SQLITE_IOERR_SHMMAP;
        }
        *pp = std::ptr::null_mut();
        match file.shm_map(region as usize, size as usize, extend != 0) {
            Ok(None) => SQLITE_OK,
            Ok(Some(r)) => match r.0.as_ptr() {
                Some(p) => {
                    *pp = p as *mut c_void;
                    (*(*u).regions).push(r);
                    SQLITE_OK
                }
                None => SQLITE_IOERR_SHMMAP,
            },
            Err(e) => code_of(&e),
        }
    }
}

unsafe extern "C" fn x_shm_lock(f: *mut sqlite3_file, offset: c_int, n: c_int, flags: c_int) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `f` is NULL or a live `sqlite3_file`
    // this library or SQLite's API contract provides.
    unsafe {
        let Some(file) = engine_file(f) else { return SQLITE_IOERR_SHMLOCK };
        if offset < 0 || n <= 0 || offset + n > SQLITE_SHM_NLOCK {
            return SQLITE_MISUSE;
        }
        match file.shm_lock(offset as usize, n as usize, flags & SQLITE_SHM_EXCLUSIVE != 0, flags & SQLITE_SHM_LOCK != 0) {
            Ok(true) => SQLITE_OK,
            Ok(false) => SQLITE_BUSY,
            Err(e) => code_of(&e),
        }
    }
}

unsafe extern "C" fn x_shm_barrier(_: *mut sqlite3_file) {
    std::sync::atomic::fence(Ordering::SeqCst);
}

unsafe extern "C" fn x_shm_unmap(f: *mut sqlite3_file, delete: c_int) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `f` is NULL or a live `sqlite3_file`
    // this library or SQLite's API contract provides.
    unsafe {
        let u = f as *mut UnixFile;
        let Some(file) = engine_file(f) else { return SQLITE_OK };
        (*(*u).regions).clear();
        match file.shm_unmap(delete != 0) {
            Ok(()) => SQLITE_OK,
            Err(e) => code_of(&e),
        }
    }
}

unsafe extern "C" fn x_fetch(_: *mut sqlite3_file, _: sqlite3_int64, _: c_int, pp: *mut *mut c_void) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `_` is NULL or a live `sqlite3_file`
    // this library or SQLite's API contract provides; `pp` is NULL or writable.
    unsafe {
        // No memory-mapped reads: the caller reads through xRead instead.
        if !pp.is_null() {
            *pp = std::ptr::null_mut();
        }
        SQLITE_OK
    }
}

unsafe extern "C" fn x_unfetch(_: *mut sqlite3_file, _: sqlite3_int64, _: *mut c_void) -> c_int {
    SQLITE_OK
}

struct Methods(sqlite3_io_methods);
// SAFETY: immutable table of function pointers.
unsafe impl Sync for Methods {}

static UNIX_IO_METHODS: Methods = Methods(sqlite3_io_methods {
    iVersion: 3,
    xClose: Some(x_close),
    xRead: Some(x_read),
    xWrite: Some(x_write),
    xTruncate: Some(x_truncate),
    xSync: Some(x_sync),
    xFileSize: Some(x_file_size),
    xLock: Some(x_lock),
    xUnlock: Some(x_unlock),
    xCheckReservedLock: Some(x_check_reserved_lock),
    xFileControl: Some(x_file_control),
    xSectorSize: Some(x_sector_size),
    xDeviceCharacteristics: Some(x_device_characteristics),
    xShmMap: Some(x_shm_map),
    xShmLock: Some(x_shm_lock),
    xShmBarrier: Some(x_shm_barrier),
    xShmUnmap: Some(x_shm_unmap),
    xFetch: Some(x_fetch),
    xUnfetch: Some(x_unfetch),
});

/// A "unix" VFS object named `name` (the list's built-ins share methods).
pub fn unix_vfs_object(name: &'static CStr) -> sqlite3_vfs {
    sqlite3_vfs {
        iVersion: 3,
        szOsFile: std::mem::size_of::<UnixFile>() as c_int,
        mxPathname: MAX_PATHNAME,
        pNext: std::ptr::null_mut(),
        zName: name.as_ptr(),
        pAppData: std::ptr::null_mut(),
        xOpen: Some(x_open),
        xDelete: Some(x_delete),
        xAccess: Some(x_access),
        xFullPathname: Some(x_full_pathname),
        xDlOpen: Some(x_dl_open),
        xDlError: Some(x_dl_error),
        xDlSym: Some(x_dl_sym),
        xDlClose: Some(x_dl_close),
        xRandomness: Some(x_randomness),
        xSleep: Some(x_sleep),
        xCurrentTime: Some(x_current_time),
        xGetLastError: Some(x_get_last_error),
        xCurrentTimeInt64: Some(x_current_time_int64),
        xSetSystemCall: Some(x_set_system_call),
        xGetSystemCall: Some(x_get_system_call),
        xNextSystemCall: Some(x_next_system_call),
    }
}
