//! # Connection state queries and small utilities
//!
//! Row counts, autocommit and transaction state, interrupt, limits, sleep,
//! client data, status, cache and WAL checkpoint calls (ringlite's async
//! I/O API is in `async_io.rs`, `sqlite3_randomness` in `random.rs`).

use crate::consts::*;
use crate::error::misuse;
use crate::exec::pragma_row;
use crate::handle::{conn_value, db_ref, sqlite3};
use crate::types::sqlite3_int64;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::atomic::Ordering;

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
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed; `zSchema` is NULL or NUL-terminated (or readable for the length given
    // with it).
    unsafe {
        ffi_guard!(-1, {
            let schema = if zSchema.is_null() { None } else { Some(CStr::from_ptr(zSchema).to_string_lossy().into_owned()) };
            conn_value(db, -1, |c| c.txn_state(schema.as_deref()))
        })
    }
}

/// Make the statements running on `db` stop at the next opportunity with
/// SQLITE_INTERRUPT. Safe to call from another thread.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_interrupt(db: *mut sqlite3) {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed.
    unsafe {
        ffi_guard!((), {
            // No lock: the point is to reach a connection busy in another thread.
            if let Some(d) = crate::handle::db_ref_any(db) {
                d.interrupt.store(true, Ordering::Relaxed);
            }
        })
    }
}

/// 1 if an interrupt of `db` is pending, else 0.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_is_interrupted(db: *mut sqlite3) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed.
    unsafe { ffi_guard!(0, { crate::handle::db_ref_any(db).map_or(0, |d| d.interrupt.load(Ordering::Relaxed) as c_int) }) }
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

/// The pointer stored on `db` under `zName` with sqlite3_set_clientdata, or
/// NULL.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_get_clientdata(db: *mut sqlite3, zName: *const c_char) -> *mut c_void {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed; `zName` is NULL or NUL-terminated (or readable for the length given
    // with it).
    unsafe {
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
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed; `zName` is NULL or NUL-terminated (or readable for the length given
    // with it); `pData` is NULL or valid for what the API does with it (read for the length given, or handed
    // back to callbacks untouched); `xDestructor`, when set, is safe to call with the arguments the API
    // documents until unregistered.
    unsafe {
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
                crate::memory::release(destroy, p);
            }
            SQLITE_OK
        })
    }
}

/// Read the per-connection counter `op` (SQLITE_DBSTATUS_*) of `db` into
/// `*pCur` and its highest value into `*pHiwtr`, resetting it when `resetFlg`
/// is set (the cache hit, miss, write and spill counters are zeroed after
/// the read, as SQLite's). SQLITE_ERROR for an unknown `op`. What each
/// verb counts: `Connection::db_status` (`src/connection/db_status.rs`).
/// The values are `sqlite3_db_status64`'s, masked to 31 bits as SQLite
/// masks them.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_db_status(db: *mut sqlite3, op: c_int, pCur: *mut c_int, pHiwtr: *mut c_int, resetFlg: c_int) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed; `pCur`, `pHiwtr` are NULL or writable.
    unsafe {
        ffi_guard!(SQLITE_INTERNAL, {
            if pCur.is_null() || pHiwtr.is_null() {
                return misuse();
            }
            let Some((cur, hi)) = db_status(db, op, resetFlg != 0) else {
                return if db_ref(db).is_none() { misuse() } else { SQLITE_ERROR };
            };
            *pCur = (cur & 0x7fff_ffff) as c_int;
            *pHiwtr = (hi & 0x7fff_ffff) as c_int;
            SQLITE_OK
        })
    }
}

/// The counters of `sqlite3_db_status64`: `None` for a null or closed
/// connection (misuse) or an unknown verb (an error, not a misuse, in
/// SQLite 3.54.1).
unsafe fn db_status(db: *mut sqlite3, op: c_int, reset: bool) -> Option<(i64, i64)> {
    // SAFETY: the caller's contract: `db` is NULL or a connection this library opened and has not freed.
    let d = unsafe { db_ref(db) }?;
    if !(0..=SQLITE_DBSTATUS_MAX).contains(&op) {
        return None;
    }
    let _g = d.lock.lock();
    d.with_conn(|c| c.db_status(op, reset)).ok().flatten()
}

/// sqlite3_db_status with 64-bit counters.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_db_status64(db: *mut sqlite3, op: c_int, pCur: *mut sqlite3_int64, pHiwtr: *mut sqlite3_int64, resetFlg: c_int) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed; `pCur` is NULL or a live `sqlite3_int64` this library or SQLite's API
    // contract provides; `pHiwtr` is NULL or a live `sqlite3_int64` this library or SQLite's API contract
    // provides.
    unsafe {
        ffi_guard!(SQLITE_INTERNAL, {
            if pCur.is_null() || pHiwtr.is_null() {
                return misuse();
            }
            let Some((cur, hi)) = db_status(db, op, resetFlg != 0) else {
                return if db_ref(db).is_none() { misuse() } else { SQLITE_ERROR };
            };
            *pCur = cur;
            *pHiwtr = hi;
            SQLITE_OK
        })
    }
}

/// Write the connection's dirty cached pages to disk without committing;
/// ringlite keeps none between statements and returns SQLITE_OK.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_db_cacheflush(db: *mut sqlite3) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed.
    unsafe {
        ffi_guard!(SQLITE_INTERNAL, {
            if db_ref(db).is_some() {
                SQLITE_OK
            } else {
                misuse()
            }
        })
    }
}

/// Frees the connection's clean cached pages (those no running statement
/// holds; uncommitted changes stay), as SQLite does.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_db_release_memory(db: *mut sqlite3) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed.
    unsafe {
        ffi_guard!(SQLITE_INTERNAL, {
            let Some(d) = db_ref(db) else {
                return misuse();
            };
            let _g = d.lock.lock();
            let _ = d.with_conn(|c| c.release_memory());
            SQLITE_OK
        })
    }
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

/// Checkpoint a WAL database of `db` automatically once its log passes `N`
/// pages (0 or less turns it off). Returns SQLITE_OK.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_wal_autocheckpoint(db: *mut sqlite3, N: c_int) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed.
    unsafe {
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
}

/// Run a PASSIVE checkpoint of schema `zDb` (NULL or "" for all) of `db`.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_wal_checkpoint(db: *mut sqlite3, zDb: *const c_char) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed; `zDb` is NULL or NUL-terminated (or readable for the length given
    // with it).
    unsafe { sqlite3_wal_checkpoint_v2(db, zDb, SQLITE_CHECKPOINT_PASSIVE, std::ptr::null_mut(), std::ptr::null_mut()) }
}

/// Checkpoint schema `zDb` of `db` in mode `eMode` (SQLITE_CHECKPOINT_PASSIVE,
/// FULL, RESTART or TRUNCATE); `*pnLog` and `*pnCkpt` receive the log's size
/// and the frames checkpointed, in pages (-1 on error).
#[no_mangle]
pub unsafe extern "C" fn sqlite3_wal_checkpoint_v2(db: *mut sqlite3, zDb: *const c_char, eMode: c_int, pnLog: *mut c_int, pnCkpt: *mut c_int) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed; `zDb` is NULL or NUL-terminated (or readable for the length given
    // with it); `pnLog`, `pnCkpt` are NULL or writable.
    unsafe {
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
            crate::slots::reset_vfs_busy_count(d);
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
}

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
pub unsafe extern "C" fn sqlite3_snapshot_free(pSnapshot: *mut crate::abi::sqlite3_snapshot) {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pSnapshot` is NULL or a live
    // `sqlite3_snapshot` this library or SQLite's API contract provides.
    unsafe { ffi_guard!((), { crate::memory::sqlite3_free(pSnapshot as *mut c_void) }) }
}
