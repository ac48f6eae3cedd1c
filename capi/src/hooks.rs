//! # Callbacks: commit/rollback/update hooks, progress handler, authorizer,
//! busy handler (tracing is in `trace.rs`)
//!
//! Each C callback and its user-data pointer are wrapped in a Rust closure
//! and installed with `Connection::set_hook`; the previous user data is kept
//! here so the `*_hook` functions can return it, as SQLite does.

use crate::consts::*;
use crate::error::misuse;
use crate::handle::{db_ref, sqlite3};
use crate::types::sqlite3_int64;
use ringlite::connection::Hook;
use std::ffi::{c_char, c_int, c_void, CString};

/// A raw pointer a callback closure may carry to another thread: the
/// connection lock serializes every call.
#[derive(Clone, Copy)]
pub struct SendPtr(pub *mut c_void);
unsafe impl Send for SendPtr {}
unsafe impl Sync for SendPtr {}
impl SendPtr {
    /// The pointer (a method, so closures capture the whole wrapper).
    pub fn get(self) -> *mut c_void {
        self.0
    }
}

/// User-data pointers of the installed callbacks.
#[derive(Default)]
pub struct HookSlots {
    pub commit: Option<SendPtr>,
    pub rollback: Option<SendPtr>,
    pub update: Option<SendPtr>,
    /// Tracing callbacks (`trace.rs`).
    pub tracing: crate::trace::Tracers,
    pub wal: Option<SendPtr>,
    pub preupdate: Option<SendPtr>,
    /// The progress handler in force. The engine holds a trampoline that
    /// reads this at every tick, so a handler removed or replaced from
    /// inside a callback (while the connection is busy stepping, when the
    /// engine cannot be reached) is never called again.
    pub progress: Option<(unsafe extern "C" fn(*mut c_void) -> c_int, SendPtr)>,
}

/// Forget every callback (close).
pub fn clear_all(d: &sqlite3) {
    if let Ok(mut h) = d.hooks.try_borrow_mut() {
        *h = HookSlots::default();
    }
}

fn install(d: &sqlite3, hook: Hook) {
    let _ = d.with_conn(|c| c.set_hook(hook));
}

fn old(slot: &mut Option<SendPtr>, new: Option<SendPtr>) -> *mut c_void {
    std::mem::replace(slot, new).map_or(std::ptr::null_mut(), |p| p.get())
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_commit_hook(
    arg0: *mut sqlite3,
    arg1: Option<unsafe extern "C" fn(*mut c_void) -> c_int>,
    arg2: *mut c_void,
) -> *mut c_void {
    ffi_guard!(std::ptr::null_mut(), {
        let Some(d) = db_ref(arg0) else {
            return std::ptr::null_mut();
        };
        let _g = d.lock.lock();
        let p = SendPtr(arg2);
        install(
            d,
            Hook::Commit(arg1.map(|f| {
                Box::new(move || unsafe { f(p.get()) != 0 }) as Box<dyn FnMut() -> bool + Send>
            })),
        );
        old(&mut d.hooks.borrow_mut().commit, arg1.map(|_| p))
    })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_rollback_hook(
    arg0: *mut sqlite3,
    arg1: Option<unsafe extern "C" fn(*mut c_void)>,
    arg2: *mut c_void,
) -> *mut c_void {
    ffi_guard!(std::ptr::null_mut(), {
        let Some(d) = db_ref(arg0) else {
            return std::ptr::null_mut();
        };
        let _g = d.lock.lock();
        let p = SendPtr(arg2);
        install(
            d,
            Hook::Rollback(
                arg1.map(|f| Box::new(move || unsafe { f(p.get()) }) as Box<dyn FnMut() + Send>),
            ),
        );
        old(&mut d.hooks.borrow_mut().rollback, arg1.map(|_| p))
    })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_update_hook(
    arg0: *mut sqlite3,
    arg1: Option<
        unsafe extern "C" fn(*mut c_void, c_int, *const c_char, *const c_char, sqlite3_int64),
    >,
    arg2: *mut c_void,
) -> *mut c_void {
    ffi_guard!(std::ptr::null_mut(), {
        let Some(d) = db_ref(arg0) else {
            return std::ptr::null_mut();
        };
        let _g = d.lock.lock();
        let p = SendPtr(arg2);
        install(
            d,
            Hook::Update(arg1.map(|f| {
                Box::new(move |op: i32, db: &str, table: &str, rowid: i64| {
                    let db = crate::error::cstring(db);
                    let table = crate::error::cstring(table);
                    unsafe { f(p.get(), op, db.as_ptr(), table.as_ptr(), rowid) }
                }) as Box<dyn FnMut(i32, &str, &str, i64) + Send>
            })),
        );
        old(&mut d.hooks.borrow_mut().update, arg1.map(|_| p))
    })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_progress_handler(
    arg0: *mut sqlite3,
    arg1: c_int,
    arg2: Option<unsafe extern "C" fn(*mut c_void) -> c_int>,
    arg3: *mut c_void,
) {
    ffi_guard!((), {
        let Some(d) = db_ref(arg0) else { return };
        let _g = d.lock.lock();
        let current = if arg1 > 0 { arg2.map(|f| (f, SendPtr(arg3))) } else { None };
        d.hooks.borrow_mut().progress = current;
        // The trampoline looks the handler up at call time; it is installed
        // (or removed) in the engine when the engine can be reached. If the
        // connection is busy stepping, the slot above already governs.
        let handle = SendPtr(d as *const sqlite3 as *mut c_void);
        install(
            d,
            Hook::Progress(
                arg1.max(0),
                current.map(|_| {
                    Box::new(move || unsafe { call_progress(handle) }) as Box<dyn FnMut() -> bool + Send>
                }),
            ),
        );
    })
}

/// Run the progress handler in force for the handle behind `handle`.
///
/// # Safety
/// `handle` points to a live `sqlite3` handle: the engine's hooks die with
/// the connection, which the handle owns.
unsafe fn call_progress(handle: SendPtr) -> bool {
    let d = &*(handle.get() as *const sqlite3);
    // Copy the callback out so the borrow ends before C code runs (it may
    // set a new handler).
    let current = d.hooks.try_borrow().ok().and_then(|h| h.progress);
    match current {
        Some((f, p)) => f(p.get()) != 0,
        None => false,
    }
}

fn opt_c(s: Option<&str>) -> Option<CString> {
    s.map(crate::error::cstring)
}

fn ptr_of(s: &Option<CString>) -> *const c_char {
    s.as_ref().map_or(std::ptr::null(), |c| c.as_ptr())
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_set_authorizer(
    arg0: *mut sqlite3,
    xAuth: Option<
        unsafe extern "C" fn(
            *mut c_void,
            c_int,
            *const c_char,
            *const c_char,
            *const c_char,
            *const c_char,
        ) -> c_int,
    >,
    pUserData: *mut c_void,
) -> c_int {
    ffi_guard!(SQLITE_INTERNAL, {
        let Some(d) = db_ref(arg0) else {
            return misuse();
        };
        let _g = d.lock.lock();
        // The engine does not consult an authorizer yet: accepting one would
        // let a deny callback be silently ignored, so refuse it.
        if xAuth.is_some() {
            crate::error::set_error(d, SQLITE_ERROR, Some("sqlite3_set_authorizer is not supported by ringlite yet"));
            return SQLITE_ERROR;
        }
        let p = SendPtr(pUserData);
        install(
            d,
            Hook::Authorizer(xAuth.map(|f| {
                Box::new(
                    move |action: i32,
                          a: Option<&str>,
                          b: Option<&str>,
                          c: Option<&str>,
                          e: Option<&str>| {
                        let (a, b, c, e) = (opt_c(a), opt_c(b), opt_c(c), opt_c(e));
                        unsafe {
                            f(
                                p.get(),
                                action,
                                ptr_of(&a),
                                ptr_of(&b),
                                ptr_of(&c),
                                ptr_of(&e),
                            )
                        }
                    },
                )
                    as Box<
                        dyn FnMut(
                                i32,
                                Option<&str>,
                                Option<&str>,
                                Option<&str>,
                                Option<&str>,
                            ) -> i32
                            + Send,
                    >
            })),
        );
        SQLITE_OK
    })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_busy_handler(
    arg0: *mut sqlite3,
    arg1: Option<unsafe extern "C" fn(*mut c_void, c_int) -> c_int>,
    arg2: *mut c_void,
) -> c_int {
    ffi_guard!(SQLITE_INTERNAL, {
        let Some(d) = db_ref(arg0) else {
            return misuse();
        };
        let _g = d.lock.lock();
        let p = SendPtr(arg2);
        let h = arg1.map(|f| {
            Box::new(move |n: i32| unsafe { f(p.get(), n) != 0 })
                as ringlite::connection::BusyHandler
        });
        let _ = d.with_conn(|c| c.set_busy_handler(h));
        SQLITE_OK
    })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_busy_timeout(arg0: *mut sqlite3, ms: c_int) -> c_int {
    ffi_guard!(SQLITE_INTERNAL, {
        let Some(d) = db_ref(arg0) else {
            return misuse();
        };
        let _g = d.lock.lock();
        let _ = d.with_conn(|c| c.set_busy_timeout(ms));
        SQLITE_OK
    })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_wal_hook(
    arg0: *mut sqlite3,
    arg1: Option<unsafe extern "C" fn(*mut c_void, *mut sqlite3, *const c_char, c_int) -> c_int>,
    arg2: *mut c_void,
) -> *mut c_void {
    ffi_guard!(std::ptr::null_mut(), {
        // Registered but never called: ringlite does not run WAL mode yet.
        let Some(d) = db_ref(arg0) else {
            return std::ptr::null_mut();
        };
        let _g = d.lock.lock();
        old(&mut d.hooks.borrow_mut().wal, arg1.map(|_| SendPtr(arg2)))
    })
}
