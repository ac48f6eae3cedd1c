//! # Connection state queries and small utilities
//!
//! Row counts, autocommit and transaction state, interrupt, limits, sleep,
//! randomness, client data, and ringlite's async I/O extension
//! (`sqlite3_io_poll`, `sqlite3_io_fd`).

use crate::consts::*;
use crate::error::misuse;
use crate::handle::{db_ref, sqlite3};
use crate::types::sqlite3_int64;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::atomic::Ordering;

fn conn_value<T>(
    db: *mut sqlite3,
    default: T,
    f: impl FnOnce(&mut ringlite::Connection) -> T,
) -> T {
    let Some(d) = (unsafe { db_ref(db) }) else {
        return default;
    };
    let _g = d.lock.lock();
    d.with_conn(f).unwrap_or(default)
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_last_insert_rowid(arg0: *mut sqlite3) -> sqlite3_int64 {
    ffi_guard!(0, { conn_value(arg0, 0, |c| c.last_insert_rowid()) })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_set_last_insert_rowid(arg0: *mut sqlite3, arg1: sqlite3_int64) {
    ffi_guard!((), {
        conn_value(arg0, (), |c| c.set_last_insert_rowid(arg1))
    })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_changes(arg0: *mut sqlite3) -> c_int {
    ffi_guard!(0, { conn_value(arg0, 0, |c| c.changes() as c_int) })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_changes64(arg0: *mut sqlite3) -> sqlite3_int64 {
    ffi_guard!(0, { conn_value(arg0, 0, |c| c.changes()) })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_total_changes(arg0: *mut sqlite3) -> c_int {
    ffi_guard!(0, { conn_value(arg0, 0, |c| c.total_changes() as c_int) })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_total_changes64(arg0: *mut sqlite3) -> sqlite3_int64 {
    ffi_guard!(0, { conn_value(arg0, 0, |c| c.total_changes()) })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_get_autocommit(arg0: *mut sqlite3) -> c_int {
    ffi_guard!(0, { conn_value(arg0, 1, |c| c.autocommit() as c_int) })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_txn_state(arg0: *mut sqlite3, zSchema: *const c_char) -> c_int {
    ffi_guard!(-1, {
        let schema = if zSchema.is_null() {
            None
        } else {
            Some(CStr::from_ptr(zSchema).to_string_lossy().into_owned())
        };
        conn_value(arg0, -1, |c| c.txn_state(schema.as_deref()))
    })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_interrupt(arg0: *mut sqlite3) {
    ffi_guard!((), {
        // No lock: the point is to reach a connection busy in another thread.
        if let Some(d) = crate::handle::db_ref_any(arg0) {
            d.interrupt.store(true, Ordering::Relaxed);
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_is_interrupted(arg0: *mut sqlite3) -> c_int {
    ffi_guard!(0, {
        crate::handle::db_ref_any(arg0).map_or(0, |d| d.interrupt.load(Ordering::Relaxed) as c_int)
    })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_limit(arg0: *mut sqlite3, id: c_int, newVal: c_int) -> c_int {
    ffi_guard!(-1, { conn_value(arg0, -1, |c| c.limit(id, newVal)) })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_sleep(arg0: c_int) -> c_int {
    ffi_guard!(0, {
        let ms = arg0.max(0);
        std::thread::sleep(std::time::Duration::from_millis(ms as u64));
        ms
    })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_randomness(N: c_int, P: *mut c_void) {
    ffi_guard!((), {
        if N <= 0 || P.is_null() {
            return;
        }
        let buf = std::slice::from_raw_parts_mut(P as *mut u8, N as usize);
        let mut filled = 0;
        while filled < buf.len() {
            let r = libc::getrandom(
                buf[filled..].as_mut_ptr() as *mut c_void,
                buf.len() - filled,
                0,
            );
            if r <= 0 {
                break;
            }
            filled += r as usize;
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_get_clientdata(
    arg0: *mut sqlite3,
    arg1: *const c_char,
) -> *mut c_void {
    ffi_guard!(std::ptr::null_mut(), {
        let Some(d) = db_ref(arg0) else {
            return std::ptr::null_mut();
        };
        if arg1.is_null() {
            return std::ptr::null_mut();
        }
        let _g = d.lock.lock();
        let key = CStr::from_ptr(arg1);
        d.client_data
            .borrow()
            .iter()
            .find(|(k, _, _)| k.as_c_str() == key)
            .map_or(std::ptr::null_mut(), |e| e.1)
    })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_set_clientdata(
    arg0: *mut sqlite3,
    arg1: *const c_char,
    arg2: *mut c_void,
    arg3: Option<unsafe extern "C" fn(*mut c_void)>,
) -> c_int {
    ffi_guard!(SQLITE_INTERNAL, {
        let Some(d) = db_ref(arg0) else {
            return misuse();
        };
        if arg1.is_null() {
            return misuse();
        }
        let _g = d.lock.lock();
        let key = CStr::from_ptr(arg1).to_owned();
        let old = {
            let mut cd = d.client_data.borrow_mut();
            let old = cd
                .iter()
                .position(|(k, _, _)| *k == key)
                .map(|i| cd.remove(i));
            if !arg2.is_null() {
                cd.insert(0, (key, arg2, arg3));
            }
            old
        };
        if let Some((_, p, destroy)) = old {
            crate::result::release(destroy, p);
        }
        SQLITE_OK
    })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_db_status(
    arg0: *mut sqlite3,
    op: c_int,
    pCur: *mut c_int,
    pHiwtr: *mut c_int,
    resetFlg: c_int,
) -> c_int {
    ffi_guard!(SQLITE_INTERNAL, {
        let _ = resetFlg;
        if db_ref(arg0).is_none()
            || pCur.is_null()
            || pHiwtr.is_null()
            || !(0..=SQLITE_DBSTATUS_MAX).contains(&op)
        {
            return misuse();
        }
        *pCur = 0;
        *pHiwtr = 0;
        SQLITE_OK
    })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_db_status64(
    arg0: *mut sqlite3,
    op: c_int,
    pCur: *mut sqlite3_int64,
    pHiwtr: *mut sqlite3_int64,
    resetFlg: c_int,
) -> c_int {
    ffi_guard!(SQLITE_INTERNAL, {
        let _ = resetFlg;
        if db_ref(arg0).is_none()
            || pCur.is_null()
            || pHiwtr.is_null()
            || !(0..=SQLITE_DBSTATUS_MAX).contains(&op)
        {
            return misuse();
        }
        *pCur = 0;
        *pHiwtr = 0;
        SQLITE_OK
    })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_db_cacheflush(arg0: *mut sqlite3) -> c_int {
    ffi_guard!(SQLITE_INTERNAL, {
        if db_ref(arg0).is_some() {
            SQLITE_OK
        } else {
            misuse()
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_db_release_memory(arg0: *mut sqlite3) -> c_int {
    ffi_guard!(SQLITE_INTERNAL, {
        if db_ref(arg0).is_some() {
            SQLITE_OK
        } else {
            misuse()
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_enable_shared_cache(arg0: c_int) -> c_int {
    ffi_guard!(SQLITE_INTERNAL, {
        let _ = arg0;
        SQLITE_OK
    })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_wal_autocheckpoint(db: *mut sqlite3, N: c_int) -> c_int {
    ffi_guard!(SQLITE_INTERNAL, {
        let _ = N;
        if db_ref(db).is_some() {
            SQLITE_OK
        } else {
            misuse()
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_wal_checkpoint(db: *mut sqlite3, zDb: *const c_char) -> c_int {
    sqlite3_wal_checkpoint_v2(
        db,
        zDb,
        SQLITE_CHECKPOINT_PASSIVE,
        std::ptr::null_mut(),
        std::ptr::null_mut(),
    )
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_wal_checkpoint_v2(
    db: *mut sqlite3,
    zDb: *const c_char,
    eMode: c_int,
    pnLog: *mut c_int,
    pnCkpt: *mut c_int,
) -> c_int {
    ffi_guard!(SQLITE_INTERNAL, {
        // Databases are never in WAL mode yet: SQLite reports -1 frames and
        // succeeds for a non-WAL database.
        let _ = zDb;
        if db_ref(db).is_none() {
            return misuse();
        }
        if !(SQLITE_CHECKPOINT_PASSIVE..=SQLITE_CHECKPOINT_TRUNCATE).contains(&eMode) {
            return SQLITE_MISUSE;
        }
        if !pnLog.is_null() {
            *pnLog = -1;
        }
        if !pnCkpt.is_null() {
            *pnCkpt = -1;
        }
        SQLITE_OK
    })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_file_control(
    db: *mut sqlite3,
    zDbName: *const c_char,
    op: c_int,
    arg: *mut c_void,
) -> c_int {
    ffi_guard!(SQLITE_INTERNAL, {
        // No VFS-level controls exist yet: every opcode is unknown, which
        // SQLite reports as SQLITE_NOTFOUND.
        let _ = (zDbName, op, arg);
        if db_ref(db).is_none() {
            return misuse();
        }
        SQLITE_NOTFOUND
    })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_enable_load_extension(db: *mut sqlite3, onoff: c_int) -> c_int {
    ffi_guard!(SQLITE_INTERNAL, {
        // Accepted like SQLite; loading itself is not supported.
        let _ = onoff;
        if db_ref(db).is_none() {
            return misuse();
        }
        SQLITE_OK
    })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_load_extension(
    db: *mut sqlite3,
    zFile: *const c_char,
    zProc: *const c_char,
    pzErrMsg: *mut *mut c_char,
) -> c_int {
    ffi_guard!(SQLITE_INTERNAL, {
        let _ = (zFile, zProc);
        let msg = "loading extensions is not supported by ringlite yet";
        if !pzErrMsg.is_null() {
            *pzErrMsg = crate::memory::malloc_cstr(msg.as_bytes());
        }
        let Some(d) = db_ref(db) else { return misuse() };
        let _g = d.lock.lock();
        crate::error::set_error(d, SQLITE_ERROR, Some(msg));
        SQLITE_ERROR
    })
}

/// ringlite extension: wait up to `timeout_ms` for I/O of an async
/// connection (opened with `SQLITE_OPEN_ASYNC`) to complete, after
/// `sqlite3_step` returned `SQLITE_IO`. Blocking connections never wait.
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

/// ringlite extension: a file descriptor that becomes readable when I/O of
/// an async connection completes, for event loops; -1 when there is none
/// (blocking connections).
#[no_mangle]
pub unsafe extern "C" fn sqlite3_io_fd(db: *mut sqlite3) -> c_int {
    ffi_guard!(-1, { conn_value(db, -1, |c| c.io_fd().unwrap_or(-1)) })
}

/// ringlite extension: `sqlite3_step` on a connection opened with
/// `SQLITE_OPEN_ASYNC` returns this instead of blocking when the statement
/// waits for I/O; call `sqlite3_io_poll` (or wait on `sqlite3_io_fd`) and
/// step again. A primary result code SQLite does not use.
pub const SQLITE_IO: i32 = 200;

/// ringlite extension: `sqlite3_open_v2` flag making `sqlite3_step` return
/// `SQLITE_IO` instead of blocking on I/O. A bit SQLite does not use.
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
    arg0: Option<unsafe extern "C" fn(*mut c_void, sqlite3_int64, c_int)>,
    arg1: *mut c_void,
    arg2: sqlite3_int64,
) -> c_int {
    let _ = (arg0, arg1, arg2);
    SQLITE_OK
}

/// Only meaningful in SQLite's CEROD builds; nothing to activate here.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_activate_cerod(zPassPhrase: *const c_char) {
    let _ = zPassPhrase;
}

/// No automatic extension can be registered (see `sqlite3_auto_extension`),
/// so there is nothing to reset.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_reset_auto_extension() {}

/// Returns 0: the entry point was not registered.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_cancel_auto_extension(
    xEntryPoint: Option<unsafe extern "C" fn()>,
) -> c_int {
    let _ = xEntryPoint;
    0
}

/// Snapshots are never handed out (`sqlite3_snapshot_get` is not supported),
/// so only NULL can arrive here.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_snapshot_free(arg0: *mut crate::types::sqlite3_snapshot) {
    ffi_guard!((), { crate::memory::sqlite3_free(arg0 as *mut c_void) })
}
