//! # Connection state queries and small utilities
//!
//! Row counts, autocommit and transaction state, interrupt, limits, sleep,
//! randomness, client data, and ringlite's async I/O extension
//! (`sqlite3_io_poll`, `sqlite3_io_ready`, `sqlite3_io_fd`).

use crate::consts::*;
use crate::error::misuse;
use crate::handle::{db_ref, sqlite3};
use crate::types::sqlite3_int64;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::atomic::Ordering;

fn conn_value<T>(db: *mut sqlite3, default: T, f: impl FnOnce(&mut ringlite::Connection) -> T) -> T {
    let Some(d) = (unsafe { db_ref(db) }) else {
        return default;
    };
    let _g = d.lock.lock();
    d.with_conn(f).unwrap_or(default)
}

/// A connection counter: from the engine connection, or, while a user
/// function of the connection runs (the connection is lent to the step),
/// what the VM passed to that call.
fn counter(db: *mut sqlite3, of_conn: impl FnOnce(&mut ringlite::Connection) -> i64, in_call: impl FnOnce(crate::handle::CallCounters) -> i64) -> i64 {
    let Some(d) = (unsafe { db_ref(db) }) else {
        return 0;
    };
    let _g = d.lock.lock();
    match d.with_conn(of_conn) {
        Ok(v) => v,
        Err(_) => d.counters_in_call.get().map_or(0, in_call),
    }
}

/// The rowid of the most recent successful INSERT into a rowid table on `db`
/// (0 if none).
#[no_mangle]
pub unsafe extern "C" fn sqlite3_last_insert_rowid(db: *mut sqlite3) -> sqlite3_int64 {
    ffi_guard!(0, { counter(db, |c| c.last_insert_rowid(), |k| k.last_insert_rowid) })
}

/// Set the value sqlite3_last_insert_rowid reports to `iRowid`.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_set_last_insert_rowid(db: *mut sqlite3, iRowid: sqlite3_int64) {
    ffi_guard!((), { conn_value(db, (), |c| c.set_last_insert_rowid(iRowid)) })
}

/// The number of rows the most recent INSERT, UPDATE or DELETE on `db`
/// changed (triggers' changes not counted).
#[no_mangle]
pub unsafe extern "C" fn sqlite3_changes(db: *mut sqlite3) -> c_int {
    ffi_guard!(0, { counter(db, |c| c.changes(), |k| k.changes) as c_int })
}

/// sqlite3_changes as a 64-bit count.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_changes64(db: *mut sqlite3) -> sqlite3_int64 {
    ffi_guard!(0, { counter(db, |c| c.changes(), |k| k.changes) })
}

/// The number of rows changed by every INSERT, UPDATE and DELETE since `db`
/// was opened, triggers included.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_total_changes(db: *mut sqlite3) -> c_int {
    ffi_guard!(0, { counter(db, |c| c.total_changes(), |k| k.total_changes) as c_int })
}

/// sqlite3_total_changes as a 64-bit count.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_total_changes64(db: *mut sqlite3) -> sqlite3_int64 {
    ffi_guard!(0, { counter(db, |c| c.total_changes(), |k| k.total_changes) })
}

/// 1 if `db` is in autocommit mode (no explicit transaction open), else 0.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_get_autocommit(db: *mut sqlite3) -> c_int {
    ffi_guard!(0, { conn_value(db, 1, |c| c.autocommit() as c_int) })
}

/// The transaction state of schema `zSchema`, or the highest over all schemas
/// when NULL: SQLITE_TXN_NONE, SQLITE_TXN_READ or SQLITE_TXN_WRITE; -1 for an
/// unknown schema.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_txn_state(db: *mut sqlite3, zSchema: *const c_char) -> c_int {
    ffi_guard!(-1, {
        let schema = if zSchema.is_null() { None } else { Some(CStr::from_ptr(zSchema).to_string_lossy().into_owned()) };
        conn_value(db, -1, |c| c.txn_state(schema.as_deref()))
    })
}

/// Make the statements running on `db` stop at the next opportunity with
/// SQLITE_INTERRUPT. Safe to call from another thread.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_interrupt(db: *mut sqlite3) {
    ffi_guard!((), {
        // No lock: the point is to reach a connection busy in another thread.
        if let Some(d) = crate::handle::db_ref_any(db) {
            d.interrupt.store(true, Ordering::Relaxed);
        }
    })
}

/// 1 if an interrupt of `db` is pending, else 0.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_is_interrupted(db: *mut sqlite3) -> c_int {
    ffi_guard!(0, { crate::handle::db_ref_any(db).map_or(0, |d| d.interrupt.load(Ordering::Relaxed) as c_int) })
}

/// Set the run-time limit `id` (SQLITE_LIMIT_*) of `db` to `newVal`, capped at
/// its compile-time maximum; a negative `newVal` leaves it. Returns the
/// previous value, or -1 for an unknown `id`.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_limit(db: *mut sqlite3, id: c_int, newVal: c_int) -> c_int {
    ffi_guard!(-1, { conn_value(db, -1, |c| c.limit(id, newVal)) })
}

/// Sleep for at least `ms` milliseconds; returns the milliseconds slept.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_sleep(ms: c_int) -> c_int {
    ffi_guard!(0, {
        let ms = ms.max(0);
        std::thread::sleep(std::time::Duration::from_millis(ms as u64));
        ms
    })
}

/// Fill the `N` bytes at `P` with pseudo-random bytes from the process's
/// generator (SQLite's ChaCha20 generator, seeded from the default VFS's
/// `xRandomness`); `N` <= 0 or a NULL `P` resets it, so that the next call
/// seeds it again.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_randomness(N: c_int, P: *mut c_void) {
    ffi_guard!((), {
        crate::config::initialize();
        if N <= 0 || P.is_null() {
            ringlite::util::prng::reset();
            return;
        }
        ringlite::util::prng::fill(std::slice::from_raw_parts_mut(P as *mut u8, N as usize));
    })
}

/// The seed of the process's generator: 44 bytes from the default VFS's
/// `xRandomness`, as SQLite seeds its own (a VFS giving fixed bytes makes
/// `random()` repeat SQLite's numbers).
pub fn seed_from_default_vfs(seed: &mut [u8; 44]) {
    let vfs = crate::vfs::find(None);
    // SAFETY: registered VFS objects stay valid while registered (the
    // application's promise); xRandomness writes at most 44 bytes.
    unsafe {
        if let Some(x) = vfs.as_ref().and_then(|v| v.xRandomness) {
            x(vfs, seed.len() as c_int, seed.as_mut_ptr() as *mut c_char);
        }
    }
}

/// The pointer stored on `db` under `zName` with sqlite3_set_clientdata, or
/// NULL.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_get_clientdata(db: *mut sqlite3, zName: *const c_char) -> *mut c_void {
    ffi_guard!(std::ptr::null_mut(), {
        let Some(d) = db_ref(db) else {
            return std::ptr::null_mut();
        };
        if zName.is_null() {
            return std::ptr::null_mut();
        }
        let _g = d.lock.lock();
        let key = CStr::from_ptr(zName);
        d.client_data.borrow().iter().find(|(k, _, _)| k.as_c_str() == key).map_or(std::ptr::null_mut(), |e| e.1)
    })
}

/// Store `pData` on `db` under `zName`, calling `xDestructor` on the pointer it
/// replaces and, at close, on itself. NULL removes the entry.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_set_clientdata(
    db: *mut sqlite3,
    zName: *const c_char,
    pData: *mut c_void,
    xDestructor: Option<unsafe extern "C" fn(*mut c_void)>,
) -> c_int {
    ffi_guard!(SQLITE_INTERNAL, {
        let Some(d) = db_ref(db) else {
            return misuse();
        };
        if zName.is_null() {
            return misuse();
        }
        let _g = d.lock.lock();
        let key = CStr::from_ptr(zName).to_owned();
        let old = {
            let mut cd = d.client_data.borrow_mut();
            let old = cd.iter().position(|(k, _, _)| *k == key).map(|i| cd.remove(i));
            if !pData.is_null() {
                cd.insert(0, (key, pData, xDestructor));
            }
            old
        };
        if let Some((_, p, destroy)) = old {
            crate::result::release(destroy, p);
        }
        SQLITE_OK
    })
}

/// Read the per-connection counter `op` (SQLITE_DBSTATUS_*) of `db` into
/// `*pCur` and its highest value into `*pHiwtr`, resetting it when `resetFlg`
/// is set. SQLITE_ERROR for an unknown `op`. ringlite keeps none of these
/// counters yet: both read 0.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_db_status(db: *mut sqlite3, op: c_int, pCur: *mut c_int, pHiwtr: *mut c_int, resetFlg: c_int) -> c_int {
    ffi_guard!(SQLITE_INTERNAL, {
        let _ = resetFlg;
        if db_ref(db).is_none() || pCur.is_null() || pHiwtr.is_null() {
            return misuse();
        }
        if !(0..=SQLITE_DBSTATUS_MAX).contains(&op) {
            // An unknown op is an error, not a misuse (SQLite 3.54.1).
            return SQLITE_ERROR;
        }
        *pCur = 0;
        *pHiwtr = 0;
        SQLITE_OK
    })
}

/// sqlite3_db_status with 64-bit counters.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_db_status64(db: *mut sqlite3, op: c_int, pCur: *mut sqlite3_int64, pHiwtr: *mut sqlite3_int64, resetFlg: c_int) -> c_int {
    ffi_guard!(SQLITE_INTERNAL, {
        let _ = resetFlg;
        if db_ref(db).is_none() || pCur.is_null() || pHiwtr.is_null() {
            return misuse();
        }
        if !(0..=SQLITE_DBSTATUS_MAX).contains(&op) {
            // An unknown op is an error, not a misuse (SQLite 3.54.1).
            return SQLITE_ERROR;
        }
        *pCur = 0;
        *pHiwtr = 0;
        SQLITE_OK
    })
}

/// Write the connection's dirty cached pages to disk without committing;
/// ringlite keeps none between statements and returns SQLITE_OK.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_db_cacheflush(db: *mut sqlite3) -> c_int {
    ffi_guard!(SQLITE_INTERNAL, {
        if db_ref(db).is_some() {
            SQLITE_OK
        } else {
            misuse()
        }
    })
}

/// Frees the connection's clean cached pages (those no running statement
/// holds; uncommitted changes stay), as SQLite does.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_db_release_memory(db: *mut sqlite3) -> c_int {
    ffi_guard!(SQLITE_INTERNAL, {
        let Some(d) = db_ref(db) else {
            return misuse();
        };
        let _g = d.lock.lock();
        let _ = d.with_conn(|c| c.release_memory());
        SQLITE_OK
    })
}

/// `sqlite3_enable_shared_cache`'s process-wide default: connections
/// opened later without `SQLITE_OPEN_PRIVATECACHE` get
/// `SQLITE_OPEN_SHAREDCACHE` (only named in-memory databases share
/// anything, see the engine's `io::shared_memory`).
pub(crate) static SHARED_CACHE_DEFAULT: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Set whether connections opened afterwards may share caches (`onoff`).
/// ringlite records the setting; every connection has its own cache.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_enable_shared_cache(onoff: c_int) -> c_int {
    ffi_guard!(SQLITE_INTERNAL, {
        SHARED_CACHE_DEFAULT.store(onoff != 0, std::sync::atomic::Ordering::Relaxed);
        SQLITE_OK
    })
}

/// Runs a one-row PRAGMA through the public statement API (so async
/// connections complete their own I/O, as documented for non-step calls)
/// and returns the row's integers; `Err(rc)` with the error left on `db`.
pub(crate) unsafe fn pragma_row(db: *mut sqlite3, sql: &str) -> Result<Vec<i64>, c_int> {
    let sql = std::ffi::CString::new(sql).map_err(|_| SQLITE_MISUSE)?;
    let mut stmt: *mut crate::handle::sqlite3_stmt = std::ptr::null_mut();
    let rc = crate::prepare::sqlite3_prepare_v2(db, sql.as_ptr(), -1, &mut stmt, std::ptr::null_mut());
    if rc != SQLITE_OK {
        return Err(rc);
    }
    let mut row = Vec::new();
    let rc = loop {
        let rc = crate::step::sqlite3_step(stmt);
        if rc == SQLITE_IO {
            sqlite3_io_poll(db, -1);
            continue;
        }
        if rc == SQLITE_ROW && row.is_empty() {
            let n = crate::column::sqlite3_column_count(stmt);
            row = (0..n).map(|i| crate::column::sqlite3_column_int64(stmt, i)).collect();
            continue;
        }
        break rc;
    };
    let frc = crate::step::sqlite3_finalize(stmt);
    match (rc, frc) {
        (SQLITE_DONE, SQLITE_OK) => Ok(row),
        (SQLITE_DONE, e) => Err(e),
        (e, _) => Err(e),
    }
}

/// Checkpoint a WAL database of `db` automatically once its log passes `N`
/// pages (0 or less turns it off). Returns SQLITE_OK.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_wal_autocheckpoint(db: *mut sqlite3, N: c_int) -> c_int {
    ffi_guard!(SQLITE_INTERNAL, {
        let Some(d) = db_ref(db) else { return misuse() };
        // The automatic checkpoint replaces any sqlite3_wal_hook callback.
        if let Ok(mut h) = d.hooks.try_borrow_mut() {
            h.wal = None;
        }
        crate::hooks::install_wal(d, false);
        match pragma_row(db, &format!("PRAGMA wal_autocheckpoint={}", N.max(0))) {
            Ok(_) => SQLITE_OK,
            Err(rc) => rc,
        }
    })
}

/// Run a PASSIVE checkpoint of schema `zDb` (NULL or "" for all) of `db`.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_wal_checkpoint(db: *mut sqlite3, zDb: *const c_char) -> c_int {
    sqlite3_wal_checkpoint_v2(db, zDb, SQLITE_CHECKPOINT_PASSIVE, std::ptr::null_mut(), std::ptr::null_mut())
}

/// Checkpoint schema `zDb` of `db` in mode `eMode` (SQLITE_CHECKPOINT_PASSIVE,
/// FULL, RESTART or TRUNCATE); `*pnLog` and `*pnCkpt` receive the log's size
/// and the frames checkpointed, in pages (-1 on error).
#[no_mangle]
pub unsafe extern "C" fn sqlite3_wal_checkpoint_v2(db: *mut sqlite3, zDb: *const c_char, eMode: c_int, pnLog: *mut c_int, pnCkpt: *mut c_int) -> c_int {
    ffi_guard!(SQLITE_INTERNAL, {
        let Some(d) = db_ref(db) else { return misuse() };
        if !pnLog.is_null() {
            *pnLog = -1;
        }
        if !pnCkpt.is_null() {
            *pnCkpt = -1;
        }
        if !(SQLITE_CHECKPOINT_PASSIVE..=SQLITE_CHECKPOINT_TRUNCATE).contains(&eMode) {
            return SQLITE_MISUSE;
        }
        // NULL or "" names every database; ringlite checkpoints main then
        // (attached WAL databases are checkpointed when named).
        let mut schema = "main".to_string();
        if !zDb.is_null() && *zDb != 0 {
            let name = std::ffi::CStr::from_ptr(zDb).to_string_lossy().into_owned();
            if name.eq_ignore_ascii_case("temp") {
                return SQLITE_OK;
            }
            if !crate::metadata::database_names(db).iter().any(|n| n.eq_ignore_ascii_case(&name)) {
                crate::error::set_error(d, SQLITE_ERROR, Some(&format!("unknown database: {name}")));
                return SQLITE_ERROR;
            }
            schema = name;
        }
        let mode = ["PASSIVE", "FULL", "RESTART", "TRUNCATE"][eMode as usize];
        let quoted = format!("\"{}\"", schema.replace('"', "\"\""));
        match pragma_row(db, &format!("PRAGMA {quoted}.wal_checkpoint({mode})")) {
            Ok(row) if row.len() == 3 => {
                if !pnLog.is_null() {
                    *pnLog = row[1] as c_int;
                }
                if !pnCkpt.is_null() {
                    *pnCkpt = row[2] as c_int;
                }
                if row[0] != 0 {
                    SQLITE_BUSY
                } else {
                    SQLITE_OK
                }
            }
            Ok(_) => SQLITE_OK,
            Err(rc) => rc,
        }
    })
}

/// ringlite extension: drive the I/O of async connections (opened with
/// `SQLITE_OPEN_ASYNC`). Hands every request queued since the last call to
/// the kernel, then reaps finished ones: `timeout_ms` 0 does not wait, a
/// positive value waits at most that many milliseconds for one to finish,
/// a negative one waits until at least one finishes (returns at once when
/// nothing is in flight). Call it after `sqlite3_step` answered `SQLITE_IO`,
/// then step again.
///
/// All async connections opened on one thread share one I/O context (one
/// io_uring ring): a poll through any of them serves all of them, so a
/// thread serving many databases polls once per turn, not once per
/// connection. A request that fails does not fail the poll: its error
/// (`SQLITE_IOERR_READ`, `SQLITE_IOERR_WRITE`, `SQLITE_IOERR_FSYNC`, ...)
/// is returned by the next `sqlite3_step` of the statement that needed it.
/// Returns `SQLITE_OK`, or an error when the ring itself fails. On a
/// blocking connection it returns `SQLITE_OK` without waiting.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_io_poll(db: *mut sqlite3, timeout_ms: c_int) -> c_int {
    ffi_guard!(SQLITE_INTERNAL, {
        let Some(d) = db_ref(db) else {
            return misuse();
        };
        let _g = d.lock.lock();
        let rc = d.with_conn(|c| match c.io_poll(timeout_ms) {
            Ok(_) => SQLITE_OK,
            Err(e) => {
                crate::error::set_error(d, e.code, Some(&e.message));
                e.code
            }
        });
        rc.unwrap_or(SQLITE_MISUSE)
    })
}

/// ringlite extension: a file descriptor (an eventfd registered with the
/// ring) that becomes readable when completions are waiting to be reaped,
/// for programs that sleep in their own event loop (epoll, poll, libuv,
/// ...): the same descriptor for every async connection of the thread.
/// `sqlite3_step` only queues requests, so call `sqlite3_io_poll(db, 0)`
/// before sleeping on the descriptor (that submits them), and again when it
/// fires (that reaps the completions and re-arms it); then step again. A
/// poll that reaped completions leaves the descriptor readable (the
/// completions may belong to statements not stepped since), so a loop that
/// polls just before sleeping wakes at once rather than sleeping on them;
/// a poll that reaps nothing re-arms it. The descriptor belongs to the
/// library: do not read or close it.
///
/// The wait on it may end with `EINTR` although no signal handler ran: the
/// kernel finishes some io_uring requests (buffered reads retried after a
/// page-cache miss, completions while the completion queue is full) as work
/// of the thread that submitted them, and interrupts that thread's sleep to
/// run it. Treat `EINTR` as a wakeup: poll, step, and sleep again.
///
/// Under `RINGLITE_IO_DELAY` (simulated slow storage) the descriptor is an
/// epoll instance watching a timer set to the next read's deadline and the
/// ring's eventfd: the same rules apply.
///
/// Returns -1 when there is none: blocking connections, and async ones
/// where no ring could be set up (they then never answer `SQLITE_IO`).
#[no_mangle]
pub unsafe extern "C" fn sqlite3_io_fd(db: *mut sqlite3) -> c_int {
    ffi_guard!(-1, { conn_value(db, -1, |c| c.io_fd().unwrap_or(-1)) })
}

/// ringlite extension: which async connections to step after a poll.
/// Writes into `aDb` up to `nDb` connections of the calling thread whose
/// I/O requests finished since they were last reported, oldest first, and
/// takes them off the thread's ready list; returns how many it wrote (0
/// when none is ready), or -1 for a bad argument (`db` not an open
/// connection, `nDb` negative, `aDb` NULL with `nDb` positive).
///
/// A runtime serving many tenants on one thread steps only these
/// connections' suspended statements after `sqlite3_io_poll`, instead of
/// every statement that answered `SQLITE_IO`: the cost of a poll and of
/// this call is that of the requests that finished, not of the number of
/// idle connections. A loop looks like:
///
/// ```c
/// sqlite3_io_poll(any, -1);            // submit, wait for a completion
/// sqlite3 *ready[64]; int n;
/// while ((n = sqlite3_io_ready(any, ready, 64)) > 0)
///   for (int i = 0; i < n; i++) step_suspended_statements_of(ready[i]);
/// ```
///
/// `db` names the thread's ready list: any async connection opened on the
/// same thread gives the same answer (the list holds every async
/// connection opened on that thread, as the I/O ring does). A connection
/// is reported once however many of its requests finished, and again
/// after a later request finishes. A statement that answered `SQLITE_IO`
/// with none of its connection's requests in flight (it will retry at
/// once) reports its connection straight away. So a wakeup is never lost,
/// but one may be spurious: a statement stepped then answers `SQLITE_IO`
/// again at once, without running. Connections closed (or made zombies by
/// `sqlite3_close_v2`) are no longer reported. Blocking connections are
/// never on the list; with them (or where async connections fell back to
/// blocking I/O) it returns 0.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_io_ready(db: *mut sqlite3, aDb: *mut *mut sqlite3, nDb: c_int) -> c_int {
    ffi_guard!(-1, {
        let Some(d) = db_ref(db) else {
            return -1;
        };
        if nDb < 0 || (aDb.is_null() && nDb > 0) {
            return -1;
        }
        let _g = d.lock.lock();
        let mut tags = Vec::with_capacity((nDb as usize).min(1024));
        let n = d.with_conn(|c| c.io_ready(&mut tags, nDb as usize)).unwrap_or(0);
        debug_assert_eq!(n, tags.len());
        for (i, t) in tags.into_iter().enumerate() {
            *aDb.add(i) = t as *mut sqlite3;
        }
        n as c_int
    })
}

/// ringlite extension: `sqlite3_open_v2` flag making `sqlite3_step` return
/// `SQLITE_IO` instead of blocking on disk I/O. A bit SQLite does not use.
///
/// Only `sqlite3_step` returns `SQLITE_IO`. These calls may do I/O on an
/// async connection and complete it before they return, blocking the
/// thread (on the shared ring) while they wait, as SQLite's would:
/// `sqlite3_open_v2` (the file header), `sqlite3_prepare*` (reading the
/// schema when it is not loaded or has changed), `sqlite3_exec` and
/// `sqlite3_get_table` (they step to the end), `sqlite3_reset` and
/// `sqlite3_finalize` of a statement left in the middle of a write
/// (committing or rolling back), `sqlite3_table_column_metadata` (schema),
/// and `sqlite3_close` (rolling back an open transaction). `sqlite3_step`
/// itself still blocks in three cases: rolling back after an error,
/// re-reading a schema another connection changed, and sleeping in the
/// busy handler or busy timeout when another connection holds a lock.
/// A statement stepped from inside a callback of a running statement of
/// the same connection (an application-defined function or the progress
/// handler running SQL) never returns `SQLITE_IO` either: the callback
/// could not hand it on, so it completes its I/O blocking.
///
/// The connections of one thread share one I/O context; where io_uring is
/// unavailable they silently use blocking pread/pwrite and never return
/// `SQLITE_IO` (`PRAGMA io_backend` tells which).
///
/// A connection opened through an application VFS (`sqlite3_vfs_register`)
/// does its I/O by calling the VFS's methods, which are synchronous: with
/// this flag those calls block inside `sqlite3_step` as without it, and
/// `sqlite3_step` never returns `SQLITE_IO` (`PRAGMA io_backend` says
/// `vfs`).
pub const SQLITE_OPEN_ASYNC: i32 = 0x4000_0000;

/// `sqlite3_temp_directory`: accepted and ignored (ringlite keeps temporary
/// data in memory).
#[no_mangle]
pub static mut sqlite3_temp_directory: *mut c_char = std::ptr::null_mut();

/// `sqlite3_data_directory`: relative database names are resolved against
/// the process's working directory, as on Unix SQLite.
#[no_mangle]
pub static mut sqlite3_data_directory: *mut c_char = std::ptr::null_mut();

/// Deprecated; a no-op in SQLite too.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_global_recover() -> c_int {
    SQLITE_OK
}

/// Deprecated; a no-op in SQLite too.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_thread_cleanup() {}

/// Deprecated; a no-op in SQLite too.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_memory_alarm(
    xCallback: Option<unsafe extern "C" fn(*mut c_void, sqlite3_int64, c_int)>,
    pArg: *mut c_void,
    iThreshold: sqlite3_int64,
) -> c_int {
    let _ = (xCallback, pArg, iThreshold);
    SQLITE_OK
}

/// Only meaningful in SQLite's CEROD builds; nothing to activate here.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_activate_cerod(zPassPhrase: *const c_char) {
    let _ = zPassPhrase;
}

/// Snapshots are never handed out (`sqlite3_snapshot_get` is not supported),
/// so only NULL can arrive here.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_snapshot_free(pSnapshot: *mut crate::types::sqlite3_snapshot) {
    ffi_guard!((), { crate::memory::sqlite3_free(pSnapshot as *mut c_void) })
}
