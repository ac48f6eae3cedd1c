//! # Callbacks: commit/rollback/update hooks, progress and busy handlers,
//! WAL hook (tracing is in `trace.rs`, the authorizer in `authorizer.rs`)
//!
//! The C callback in force and its user-data pointer live in the handle's
//! [`HookSlots`]. The engine only ever holds a *trampoline*: a closure that
//! looks the callback up in those slots at the moment it fires. So a hook
//! replaced or removed from inside a callback (while `sqlite3_step` holds
//! the engine connection and it cannot be reached) takes effect at once,
//! exactly as in SQLite, and a removed callback is never called again.
//!
//! Invariant: a slot is copied out (the `RefCell` borrow ends) before the C
//! callback runs, so the callback may install other callbacks freely.

use crate::consts::*;
use crate::error::misuse;
use crate::handle::{db_ref, sqlite3};
use crate::slots::{HookSlots, SendPtr};
use crate::types::sqlite3_int64;
use ringlite::connection::Hook;
use std::ffi::{c_char, c_int, c_void};

/// Give the engine a hook (or take it away). When the engine is busy (the
/// call comes from inside a callback) nothing changes there: the slots
/// already govern what the trampoline does.
pub fn install(d: &sqlite3, hook: Hook) {
    let _ = d.with_conn(|c| c.set_hook(hook));
}

/// The handle as a pointer trampolines may carry.
pub fn handle_ptr(d: &sqlite3) -> SendPtr {
    SendPtr(d as *const sqlite3 as *mut c_void)
}

/// Copy one slot out of the handle behind `handle`.
///
/// # Safety
/// `handle` points to a live `sqlite3`: the engine's trampolines die with
/// the engine connection, which the handle owns.
pub unsafe fn slot<T: Copy>(handle: SendPtr, pick: impl FnOnce(&HookSlots) -> Option<T>) -> Option<T> {
    // SAFETY: the caller guarantees: `handle` points to a live `sqlite3` (see the Safety section above).
    unsafe {
        let d = &*(handle.get() as *const sqlite3);
        d.hooks.try_borrow().ok().and_then(|h| pick(&h))
    }
}

pub fn user_data<F>(old: Option<(F, SendPtr)>) -> *mut c_void {
    old.map_or(std::ptr::null_mut(), |(_, p)| p.get())
}

/// Call `xCallback(pArg)` whenever a transaction is about to commit on `db`; a
/// nonzero return turns the commit into a rollback. NULL removes the hook.
/// Returns the previous hook's argument.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_commit_hook(
    db: *mut sqlite3,
    xCallback: Option<unsafe extern "C" fn(*mut c_void) -> c_int>,
    pArg: *mut c_void,
) -> *mut c_void {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed; `xCallback`, when set, is safe to call with the arguments the API
    // documents until unregistered.
    unsafe {
        ffi_guard!(std::ptr::null_mut(), {
            let Some(d) = db_ref(db) else {
                return std::ptr::null_mut();
            };
            let _g = d.lock.lock();
            let new = xCallback.map(|f| (f, SendPtr(pArg)));
            let old = std::mem::replace(&mut d.hooks.borrow_mut().commit, new);
            let h = handle_ptr(d);
            install(
                d,
                Hook::Commit(new.map(|_| {
                    Box::new(move || match slot(h, |s| s.commit) {
                        Some((f, p)) => f(p.get()) != 0,
                        None => false,
                    }) as Box<dyn FnMut() -> bool + Send>
                })),
            );
            user_data(old)
        })
    }
}

/// Call `xCallback(pArg)` whenever a transaction of `db` rolls back. Returns
/// the previous hook's argument.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_rollback_hook(db: *mut sqlite3, xCallback: Option<unsafe extern "C" fn(*mut c_void)>, pArg: *mut c_void) -> *mut c_void {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed; `pArg` is NULL or valid for what the API does with it (read for the
    // length given, or handed back to callbacks untouched); `xCallback`, when set, is safe to call with the
    // arguments the API documents until unregistered.
    unsafe {
        ffi_guard!(std::ptr::null_mut(), {
            let Some(d) = db_ref(db) else {
                return std::ptr::null_mut();
            };
            let _g = d.lock.lock();
            let new = xCallback.map(|f| (f, SendPtr(pArg)));
            let old = std::mem::replace(&mut d.hooks.borrow_mut().rollback, new);
            let h = handle_ptr(d);
            install(
                d,
                Hook::Rollback(new.map(|_| {
                    Box::new(move || {
                        if let Some((f, p)) = slot(h, |s| s.rollback) {
                            f(p.get())
                        }
                    }) as Box<dyn FnMut() + Send>
                })),
            );
            user_data(old)
        })
    }
}

/// Call `xCallback(pArg, op, zDb, zTable, rowid)` for every row a statement
/// inserts, updates or deletes in a rowid table of `db` (op is SQLITE_INSERT,
/// SQLITE_UPDATE or SQLITE_DELETE). Returns the previous hook's argument.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_update_hook(
    db: *mut sqlite3,
    xCallback: Option<unsafe extern "C" fn(*mut c_void, c_int, *const c_char, *const c_char, sqlite3_int64)>,
    pArg: *mut c_void,
) -> *mut c_void {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed; `pArg` is NULL or valid for what the API does with it (read for the
    // length given, or handed back to callbacks untouched); `xCallback`, when set, is safe to call with the
    // arguments the API documents until unregistered.
    unsafe {
        ffi_guard!(std::ptr::null_mut(), {
            let Some(d) = db_ref(db) else {
                return std::ptr::null_mut();
            };
            let _g = d.lock.lock();
            let new = xCallback.map(|f| (f, SendPtr(pArg)));
            let old = std::mem::replace(&mut d.hooks.borrow_mut().update, new);
            let h = handle_ptr(d);
            install(
                d,
                Hook::Update(new.map(|_| {
                    Box::new(move |op: i32, db: &str, table: &str, rowid: i64| {
                        if let Some((f, p)) = slot(h, |s| s.update) {
                            let db = crate::error::cstring(db);
                            let table = crate::error::cstring(table);
                            f(p.get(), op, db.as_ptr(), table.as_ptr(), rowid)
                        }
                    }) as Box<dyn FnMut(i32, &str, &str, i64) + Send>
                })),
            );
            user_data(old)
        })
    }
}

/// Call `xProgress(pArg)` about every `nOps` virtual-machine steps while `db`
/// runs a statement; a nonzero return interrupts it. `nOps` < 1 or a NULL
/// callback removes the handler.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_progress_handler(
    db: *mut sqlite3,
    nOps: c_int,
    xProgress: Option<unsafe extern "C" fn(*mut c_void) -> c_int>,
    pArg: *mut c_void,
) {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed; `xProgress`, when set, is safe to call with the arguments the API
    // documents until unregistered.
    unsafe {
        ffi_guard!((), {
            let Some(d) = db_ref(db) else { return };
            let _g = d.lock.lock();
            let current = if nOps > 0 { xProgress.map(|f| (f, SendPtr(pArg))) } else { None };
            d.hooks.borrow_mut().progress = current;
            let h = handle_ptr(d);
            install(
                d,
                Hook::Progress(
                    nOps.max(0),
                    current.map(|_| {
                        std::sync::Arc::new(move |host: &mut dyn ringlite::vdbe::host::VmHost| match slot(h, |s| s.progress) {
                            Some((f, p)) => {
                                let d = &*(h.get() as *const sqlite3);
                                crate::handle::lend_to_callback(d, Some(host), || f(p.get()) != 0)
                            }
                            None => false,
                        }) as ringlite::vdbe::ProgressHandler
                    }),
                ),
            );
        })
    }
}

/// Call `xBusy(pArg, n)` when `db` finds a database locked, n counting the
/// retries; returning 0 gives up with SQLITE_BUSY, nonzero tries again.
/// Replaces any busy timeout.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_busy_handler(db: *mut sqlite3, xBusy: Option<unsafe extern "C" fn(*mut c_void, c_int) -> c_int>, pArg: *mut c_void) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed; `xBusy`, when set, is safe to call with the arguments the API
    // documents until unregistered.
    unsafe {
        ffi_guard!(SQLITE_INTERNAL, {
            let Some(d) = db_ref(db) else {
                return misuse();
            };
            let _g = d.lock.lock();
            let new = xBusy.map(|f| (f, SendPtr(pArg)));
            {
                let mut h = d.hooks.borrow_mut();
                h.busy = new;
                h.busy_timeout_ms = 0;
                h.vfs_busy_count.store(0, std::sync::atomic::Ordering::Relaxed);
            }
            let h = handle_ptr(d);
            let trampoline = new.map(|_| {
                Box::new(move |n: i32| match slot(h, |s| s.busy) {
                    Some((f, p)) => f(p.get(), n) != 0,
                    None => false,
                }) as ringlite::connection::BusyHandler
            });
            let _ = d.with_conn(|c| c.set_busy_handler(trampoline));
            SQLITE_OK
        })
    }
}

/// The busy handler in force, called by an application VFS through what
/// `SQLITE_FCNTL_BUSYHANDLER` gave it (SQLite's `sqlite3InvokeBusyHandler`):
/// the application's handler with the retry count, or the busy timeout's
/// wait on SQLite's schedule through `vfs`'s `xSleep`; 0 (give up) when
/// there is none or it gave up already since the count was last reset.
///
/// # Safety
/// `db` points to a live handle; `vfs` is its connection's VFS object.
pub unsafe fn invoke_busy_for_vfs(db: *const sqlite3, vfs: *mut crate::abi::sqlite3_vfs) -> c_int {
    // SAFETY: the caller guarantees: `db` is NULL or a connection this library opened and has not freed;
    // `vfs` is NULL or a live `sqlite3_vfs` this library or SQLite's API contract provides.
    unsafe {
        let d = &*db;
        // Copied out: the borrow ends before the callback runs (module doc).
        let Some((busy, timeout, n)) =
            d.hooks.try_borrow().ok().map(|h| (h.busy, h.busy_timeout_ms, h.vfs_busy_count.load(std::sync::atomic::Ordering::Relaxed)))
        else {
            return 0;
        };
        if n < 0 {
            return 0;
        }
        let retry = match busy {
            Some((f, p)) => f(p.get(), n) != 0,
            None if timeout > 0 => {
                // sqliteDefaultBusyCallback's schedule, as the engine's own
                // retries (`ConnState::busy_retry`) follow it.
                const DELAYS: [c_int; 12] = [1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100];
                let (mut delay, prior) = match DELAYS.get(n as usize) {
                    Some(&d) => (d, DELAYS[..n as usize].iter().sum::<c_int>()),
                    None => (100, DELAYS[..11].iter().sum::<c_int>() + 100 * (n - 11)),
                };
                if prior + delay > timeout {
                    delay = timeout - prior;
                }
                if delay <= 0 {
                    false
                } else {
                    if let Some(sleep) = (*vfs).xSleep {
                        sleep(vfs, delay * 1000);
                    }
                    true
                }
            }
            None => return 0,
        };
        if let Ok(h) = d.hooks.try_borrow() {
            h.vfs_busy_count.store(if retry { n.saturating_add(1) } else { -1 }, std::sync::atomic::Ordering::Relaxed);
        }
        retry as c_int
    }
}

/// Make `db` retry for up to `ms` milliseconds when a database is locked
/// before returning SQLITE_BUSY; 0 or less removes the busy handler.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_busy_timeout(db: *mut sqlite3, ms: c_int) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed.
    unsafe {
        ffi_guard!(SQLITE_INTERNAL, {
            let Some(d) = db_ref(db) else {
                return misuse();
            };
            let _g = d.lock.lock();
            // A timeout replaces any busy handler.
            {
                let mut h = d.hooks.borrow_mut();
                h.busy = None;
                h.busy_timeout_ms = ms.max(0);
                h.vfs_busy_count.store(0, std::sync::atomic::Ordering::Relaxed);
            }
            let _ = d.with_conn(|c| c.set_busy_timeout(ms));
            SQLITE_OK
        })
    }
}

/// Call `xCallback(pArg, db, zDb, nPages)` after each commit to a database in
/// WAL mode. Returns the previous hook's argument.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_wal_hook(
    db: *mut sqlite3,
    xCallback: Option<unsafe extern "C" fn(*mut c_void, *mut sqlite3, *const c_char, c_int) -> c_int>,
    pArg: *mut c_void,
) -> *mut c_void {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed; `xCallback`, when set, is safe to call with the arguments the API
    // documents until unregistered.
    unsafe {
        ffi_guard!(std::ptr::null_mut(), {
            let Some(d) = db_ref(db) else {
                return std::ptr::null_mut();
            };
            let _g = d.lock.lock();
            let new = xCallback.map(|f| (f, SendPtr(pArg)));
            let old = std::mem::replace(&mut d.hooks.borrow_mut().wal, new);
            install_wal(d, new.is_some());
            user_data(old)
        })
    }
}

/// Give the engine the WAL trampoline (or take it away). In SQLite the
/// automatic checkpoint is itself the default WAL hook, so a user hook
/// replaces it: `wal_autocheckpoint` reads 0 while one is installed.
pub fn install_wal(d: &sqlite3, on: bool) {
    let h = handle_ptr(d);
    install(
        d,
        Hook::Wal(on.then(|| {
            std::sync::Arc::new(move |host: &mut dyn ringlite::vdbe::host::VmHost, name: &str, frames: i32| unsafe {
                match slot(h, |s| s.wal) {
                    Some((f, p)) => {
                        let name = std::ffi::CString::new(name).unwrap_or_default();
                        let d = &*(h.get() as *const sqlite3);
                        crate::handle::lend_to_callback(d, Some(host), || f(p.get(), h.get() as *mut sqlite3, name.as_ptr(), frames))
                    }
                    None => 0,
                }
            }) as ringlite::vdbe::WalHook
        })),
    );
    if on {
        let _ = unsafe { crate::exec::pragma_row(h.get() as *mut sqlite3, "PRAGMA wal_autocheckpoint=0") };
    }
}
