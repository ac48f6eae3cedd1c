//! # A slow-storage VFS for real SQLite
//!
//! The SQLite side of the `slow` suite: a VFS named `delay`, registered
//! (not as the default) through `libsqlite3-sys`, that wraps the default
//! (unix) VFS and sleeps in `xRead` and `xSync` for the configured time
//! before doing the real call, as a thread-per-connection engine blocks on
//! far-away storage. It mirrors ringlite's `RINGLITE_IO_DELAY` backend
//! (`src/io/delay.rs`): same per-read and per-sync delays, writes and
//! truncates undelayed.
//!
//! Layout: a file object of this VFS is a [`DelayFile`] header followed in
//! the same allocation by the wrapped VFS's own file object (SQLite
//! allocates `szOsFile` bytes, which is ours plus the wrapped one's). The
//! methods table is version 1 (no shared memory, no memory mapping): the
//! suite runs in rollback-journal mode, and without `xFetch` every page
//! really goes through `xRead`, as in ringlite.
//!
//! A device serving a limited number of requests at once ([`set_depth`],
//! ringlite's `RINGLITE_IO_DELAY=...,depth,fifo`): every delayed call takes
//! the server that frees first and starts when it does (first come, first
//! served: the threads' calls have no notion of tenants), so with `depth`
//! servers busy a call waits for one before its own delay.
//!
//! Invariant: the VFS is registered once per process and never
//! unregistered; the delays are process-wide atomics set by [`set_delays`];
//! `SERVERS` holds, per server of the device, when it is next free (empty:
//! no limit).

use libsqlite3_sys as ffi;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, Once};
use std::time::{Duration, Instant};

/// The VFS name to pass to `sqlite3_open_v2`.
pub const NAME: &CStr = c"delay";

static READ_US: AtomicU64 = AtomicU64::new(0);
static SYNC_US: AtomicU64 = AtomicU64::new(0);
static REGISTER: Once = Once::new();
static READS: AtomicU64 = AtomicU64::new(0);
static SYNCS: AtomicU64 = AtomicU64::new(0);
static SERVERS: Mutex<Vec<Instant>> = Mutex::new(Vec::new());

/// Serve delayed calls `depth` at a time (0: all at once), first come,
/// first served.
pub fn set_depth(depth: usize) {
    let mut s = SERVERS.lock().unwrap_or_else(|p| p.into_inner());
    s.clear();
    s.resize(depth, Instant::now());
}

/// `(xRead, xSync)` calls through this VFS so far.
pub fn counts() -> (u64, u64) {
    (READS.load(Ordering::Relaxed), SYNCS.load(Ordering::Relaxed))
}

/// Set the delays (microseconds) and make sure the VFS is registered.
pub fn set_delays(read_us: u64, sync_us: u64) {
    READ_US.store(read_us, Ordering::Relaxed);
    SYNC_US.store(sync_us, Ordering::Relaxed);
    REGISTER.call_once(register);
}

#[repr(C)]
struct DelayFile {
    base: ffi::sqlite3_file,
    real: *mut ffi::sqlite3_file,
}

const HEADER: usize = std::mem::size_of::<DelayFile>();

fn sleep_us(us: &AtomicU64) {
    let us = us.load(Ordering::Relaxed);
    if us == 0 {
        return;
    }
    let delay = Duration::from_micros(us);
    let end = {
        let mut servers = SERVERS.lock().unwrap_or_else(|p| p.into_inner());
        match servers.iter_mut().min() {
            None => None,
            Some(free_at) => {
                let end = (*free_at).max(Instant::now()) + delay;
                *free_at = end;
                Some(end)
            }
        }
    };
    match end {
        None => std::thread::sleep(delay),
        Some(end) => std::thread::sleep(end.saturating_duration_since(Instant::now())),
    }
}

/// The wrapped file of `f`.
unsafe fn real(f: *mut ffi::sqlite3_file) -> *mut ffi::sqlite3_file {
    (*f.cast::<DelayFile>()).real
}

/// The wrapped file's methods.
unsafe fn m(f: *mut ffi::sqlite3_file) -> &'static ffi::sqlite3_io_methods {
    &*(*real(f)).pMethods
}

unsafe extern "C" fn x_close(f: *mut ffi::sqlite3_file) -> c_int {
    let r = real(f);
    let rc = m(f).xClose.map_or(ffi::SQLITE_OK, |x| x(r));
    (*f).pMethods = std::ptr::null();
    rc
}
unsafe extern "C" fn x_read(f: *mut ffi::sqlite3_file, buf: *mut c_void, n: c_int, off: ffi::sqlite3_int64) -> c_int {
    READS.fetch_add(1, Ordering::Relaxed);
    sleep_us(&READ_US);
    m(f).xRead.map_or(ffi::SQLITE_IOERR_READ, |x| x(real(f), buf, n, off))
}
unsafe extern "C" fn x_write(f: *mut ffi::sqlite3_file, buf: *const c_void, n: c_int, off: ffi::sqlite3_int64) -> c_int {
    m(f).xWrite.map_or(ffi::SQLITE_IOERR_WRITE, |x| x(real(f), buf, n, off))
}
unsafe extern "C" fn x_truncate(f: *mut ffi::sqlite3_file, size: ffi::sqlite3_int64) -> c_int {
    m(f).xTruncate.map_or(ffi::SQLITE_IOERR_TRUNCATE, |x| x(real(f), size))
}
unsafe extern "C" fn x_sync(f: *mut ffi::sqlite3_file, flags: c_int) -> c_int {
    SYNCS.fetch_add(1, Ordering::Relaxed);
    sleep_us(&SYNC_US);
    m(f).xSync.map_or(ffi::SQLITE_IOERR_FSYNC, |x| x(real(f), flags))
}
unsafe extern "C" fn x_file_size(f: *mut ffi::sqlite3_file, size: *mut ffi::sqlite3_int64) -> c_int {
    m(f).xFileSize.map_or(ffi::SQLITE_IOERR_FSTAT, |x| x(real(f), size))
}
unsafe extern "C" fn x_lock(f: *mut ffi::sqlite3_file, level: c_int) -> c_int {
    m(f).xLock.map_or(ffi::SQLITE_IOERR_LOCK, |x| x(real(f), level))
}
unsafe extern "C" fn x_unlock(f: *mut ffi::sqlite3_file, level: c_int) -> c_int {
    m(f).xUnlock.map_or(ffi::SQLITE_IOERR_UNLOCK, |x| x(real(f), level))
}
unsafe extern "C" fn x_check_reserved(f: *mut ffi::sqlite3_file, out: *mut c_int) -> c_int {
    m(f).xCheckReservedLock.map_or(ffi::SQLITE_IOERR_CHECKRESERVEDLOCK, |x| x(real(f), out))
}
unsafe extern "C" fn x_file_control(f: *mut ffi::sqlite3_file, op: c_int, arg: *mut c_void) -> c_int {
    m(f).xFileControl.map_or(ffi::SQLITE_NOTFOUND, |x| x(real(f), op, arg))
}
unsafe extern "C" fn x_sector_size(f: *mut ffi::sqlite3_file) -> c_int {
    m(f).xSectorSize.map_or(4096, |x| x(real(f)))
}
unsafe extern "C" fn x_device_characteristics(f: *mut ffi::sqlite3_file) -> c_int {
    m(f).xDeviceCharacteristics.map_or(0, |x| x(real(f)))
}

static METHODS: ffi::sqlite3_io_methods = ffi::sqlite3_io_methods {
    iVersion: 1,
    xClose: Some(x_close),
    xRead: Some(x_read),
    xWrite: Some(x_write),
    xTruncate: Some(x_truncate),
    xSync: Some(x_sync),
    xFileSize: Some(x_file_size),
    xLock: Some(x_lock),
    xUnlock: Some(x_unlock),
    xCheckReservedLock: Some(x_check_reserved),
    xFileControl: Some(x_file_control),
    xSectorSize: Some(x_sector_size),
    xDeviceCharacteristics: Some(x_device_characteristics),
    xShmMap: None,
    xShmLock: None,
    xShmBarrier: None,
    xShmUnmap: None,
    xFetch: None,
    xUnfetch: None,
};

unsafe extern "C" fn x_open(vfs: *mut ffi::sqlite3_vfs, name: *const c_char, f: *mut ffi::sqlite3_file, flags: c_int, out_flags: *mut c_int) -> c_int {
    let wrapped = (*vfs).pAppData.cast::<ffi::sqlite3_vfs>();
    let inner = f.cast::<u8>().add(HEADER).cast::<ffi::sqlite3_file>();
    let df = f.cast::<DelayFile>();
    (*df).base.pMethods = std::ptr::null();
    (*df).real = inner;
    let Some(open) = (*wrapped).xOpen else {
        return ffi::SQLITE_CANTOPEN;
    };
    let rc = open(wrapped, name, inner, flags, out_flags);
    // SQLite calls xClose only if pMethods is set: set it only when the
    // wrapped file is open and needs closing.
    if !(*inner).pMethods.is_null() {
        (*df).base.pMethods = &METHODS;
    }
    rc
}

fn register() {
    unsafe {
        let wrapped = ffi::sqlite3_vfs_find(std::ptr::null());
        if wrapped.is_null() {
            return;
        }
        // Everything but opening goes straight to the wrapped VFS (its
        // other methods do not depend on which VFS object they are given).
        let mut vfs: ffi::sqlite3_vfs = std::ptr::read(wrapped);
        vfs.szOsFile = (*wrapped).szOsFile + HEADER as c_int;
        vfs.pNext = std::ptr::null_mut();
        vfs.zName = NAME.as_ptr();
        vfs.pAppData = wrapped.cast();
        vfs.xOpen = Some(x_open);
        ffi::sqlite3_vfs_register(Box::into_raw(Box::new(vfs)), 0);
    }
}
