//! # Callbacks: commit/rollback/update hooks, progress handler, authorizer,
//! trace, busy handler
//!
//! Each C callback and its user-data pointer are wrapped in a Rust closure
//! and installed with `Connection::set_hook`; the previous user data is kept
//! here so the `*_hook` functions can return it, as SQLite does.

use crate::consts::*;
use crate::error::misuse;
use crate::handle::{db_ref, sqlite3};
use ringlite::connection::Hook;
use std::ffi::{c_char, c_int, c_uint, c_void, CString};
use crate::types::{sqlite3_int64, sqlite3_uint64};

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
    pub trace: Option<SendPtr>,
    pub profile: Option<SendPtr>,
    pub legacy_trace: Option<SendPtr>,
    pub wal: Option<SendPtr>,
    pub preupdate: Option<SendPtr>,
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
pub unsafe extern "C" fn sqlite3_commit_hook(arg0: *mut sqlite3, arg1: Option<unsafe extern "C" fn(*mut c_void) -> c_int>, arg2: *mut c_void) -> *mut c_void {
    ffi_guard!(std::ptr::null_mut(), {
        let Some(d) = db_ref(arg0) else { return std::ptr::null_mut() };
        let _g = d.lock.lock();
        let p = SendPtr(arg2);
        install(d, Hook::Commit(arg1.map(|f| Box::new(move || unsafe { f(p.get()) != 0 }) as Box<dyn FnMut() -> bool + Send>)));
        old(&mut d.hooks.borrow_mut().commit, arg1.map(|_| p))
    })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_rollback_hook(arg0: *mut sqlite3, arg1: Option<unsafe extern "C" fn(*mut c_void)>, arg2: *mut c_void) -> *mut c_void {
    ffi_guard!(std::ptr::null_mut(), {
        let Some(d) = db_ref(arg0) else { return std::ptr::null_mut() };
        let _g = d.lock.lock();
        let p = SendPtr(arg2);
        install(d, Hook::Rollback(arg1.map(|f| Box::new(move || unsafe { f(p.get()) }) as Box<dyn FnMut() + Send>)));
        old(&mut d.hooks.borrow_mut().rollback, arg1.map(|_| p))
    })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_update_hook(
    arg0: *mut sqlite3,
    arg1: Option<unsafe extern "C" fn(*mut c_void, c_int, *const c_char, *const c_char, sqlite3_int64)>,
    arg2: *mut c_void,
) -> *mut c_void {
    ffi_guard!(std::ptr::null_mut(), {
        let Some(d) = db_ref(arg0) else { return std::ptr::null_mut() };
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
pub unsafe extern "C" fn sqlite3_progress_handler(arg0: *mut sqlite3, arg1: c_int, arg2: Option<unsafe extern "C" fn(*mut c_void) -> c_int>, arg3: *mut c_void) {
    ffi_guard!((), {
        let Some(d) = db_ref(arg0) else { return };
        let _g = d.lock.lock();
        let p = SendPtr(arg3);
        let cb = if arg1 > 0 { arg2 } else { None };
        install(d, Hook::Progress(arg1.max(0), cb.map(|f| Box::new(move || unsafe { f(p.get()) != 0 }) as Box<dyn FnMut() -> bool + Send>)));
    })
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
    xAuth: Option<unsafe extern "C" fn(*mut c_void, c_int, *const c_char, *const c_char, *const c_char, *const c_char) -> c_int>,
    pUserData: *mut c_void,
) -> c_int {
    ffi_guard!(SQLITE_INTERNAL, {
        let Some(d) = db_ref(arg0) else { return misuse() };
        let _g = d.lock.lock();
        let p = SendPtr(pUserData);
        install(
            d,
            Hook::Authorizer(xAuth.map(|f| {
                Box::new(move |action: i32, a: Option<&str>, b: Option<&str>, c: Option<&str>, e: Option<&str>| {
                    let (a, b, c, e) = (opt_c(a), opt_c(b), opt_c(c), opt_c(e));
                    unsafe { f(p.get(), action, ptr_of(&a), ptr_of(&b), ptr_of(&c), ptr_of(&e)) }
                }) as Box<dyn FnMut(i32, Option<&str>, Option<&str>, Option<&str>, Option<&str>) -> i32 + Send>
            })),
        );
        SQLITE_OK
    })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_trace_v2(
    arg0: *mut sqlite3,
    uMask: c_uint,
    xCallback: Option<unsafe extern "C" fn(c_uint, *mut c_void, *mut c_void, *mut c_void) -> c_int>,
    pCtx: *mut c_void,
) -> c_int {
    ffi_guard!(SQLITE_INTERNAL, {
        let Some(d) = db_ref(arg0) else { return misuse() };
        let _g = d.lock.lock();
        let p = SendPtr(pCtx);
        let dbp = SendPtr(arg0 as *mut c_void);
        let mask = if xCallback.is_some() { uMask } else { 0 };
        // The engine reports the statement's SQL; C callbacks receive the
        // sqlite3_stmt* being stepped in P, and the SQL or the time in X.
        install(
            d,
            Hook::Trace(
                mask,
                xCallback.map(|f| {
                    Box::new(move |event: u32, sql: &str, nanos: i64| {
                        let text = crate::error::cstring(sql);
                        let mut t = nanos;
                        let x = if event == SQLITE_TRACE_PROFILE as u32 { &mut t as *mut i64 as *mut c_void } else { text.as_ptr() as *mut c_void };
                        unsafe {
                            let stmt = (*(dbp.get() as *mut sqlite3)).current_stmt.get();
                            f(event, p.get(), stmt as *mut c_void, x);
                        }
                    }) as Box<dyn FnMut(u32, &str, i64) + Send>
                }),
            ),
        );
        d.hooks.borrow_mut().trace = xCallback.map(|_| p);
        SQLITE_OK
    })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_trace(arg0: *mut sqlite3, xTrace: Option<unsafe extern "C" fn(*mut c_void, *const c_char)>, arg2: *mut c_void) -> *mut c_void {
    ffi_guard!(std::ptr::null_mut(), {
        let Some(d) = db_ref(arg0) else { return std::ptr::null_mut() };
        let _g = d.lock.lock();
        let p = SendPtr(arg2);
        install(
            d,
            Hook::Trace(
                if xTrace.is_some() { SQLITE_TRACE_STMT as u32 } else { 0 },
                xTrace.map(|f| {
                    Box::new(move |_e: u32, sql: &str, _n: i64| {
                        let text = crate::error::cstring(sql);
                        unsafe { f(p.get(), text.as_ptr()) }
                    }) as Box<dyn FnMut(u32, &str, i64) + Send>
                }),
            ),
        );
        old(&mut d.hooks.borrow_mut().legacy_trace, xTrace.map(|_| p))
    })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_profile(arg0: *mut sqlite3, xProfile: Option<unsafe extern "C" fn(*mut c_void, *const c_char, sqlite3_uint64)>, arg2: *mut c_void) -> *mut c_void {
    ffi_guard!(std::ptr::null_mut(), {
        let Some(d) = db_ref(arg0) else { return std::ptr::null_mut() };
        let _g = d.lock.lock();
        let p = SendPtr(arg2);
        install(
            d,
            Hook::Trace(
                if xProfile.is_some() { SQLITE_TRACE_PROFILE as u32 } else { 0 },
                xProfile.map(|f| {
                    Box::new(move |_e: u32, sql: &str, n: i64| {
                        let text = crate::error::cstring(sql);
                        unsafe { f(p.get(), text.as_ptr(), n.max(0) as u64) }
                    }) as Box<dyn FnMut(u32, &str, i64) + Send>
                }),
            ),
        );
        old(&mut d.hooks.borrow_mut().profile, xProfile.map(|_| p))
    })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_busy_handler(arg0: *mut sqlite3, arg1: Option<unsafe extern "C" fn(*mut c_void, c_int) -> c_int>, arg2: *mut c_void) -> c_int {
    ffi_guard!(SQLITE_INTERNAL, {
        let Some(d) = db_ref(arg0) else { return misuse() };
        let _g = d.lock.lock();
        let p = SendPtr(arg2);
        let h = arg1.map(|f| Box::new(move |n: i32| unsafe { f(p.get(), n) != 0 }) as ringlite::connection::BusyHandler);
        let _ = d.with_conn(|c| c.set_busy_handler(h));
        SQLITE_OK
    })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_busy_timeout(arg0: *mut sqlite3, ms: c_int) -> c_int {
    ffi_guard!(SQLITE_INTERNAL, {
        let Some(d) = db_ref(arg0) else { return misuse() };
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
        let Some(d) = db_ref(arg0) else { return std::ptr::null_mut() };
        let _g = d.lock.lock();
        old(&mut d.hooks.borrow_mut().wal, arg1.map(|_| SendPtr(arg2)))
    })
}
