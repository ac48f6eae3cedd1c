//! # The session extension's C API: session objects and shared helpers
//!
//! A thin layer over `ringlite::ext::session`. A `sqlite3_session` owns
//! the engine [`Session`] behind a mutex shared with the pre-update
//! listener it adds to its connection (beside the application's own hook,
//! so both may be used at once); deleting the session removes the
//! listener. Blobs handed to the application are `sqlite3_malloc`ed.
//! The streaming (`_strm`) forms read their whole input through `xInput`
//! first and write their output through `xOutput` in chunks of the
//! `SQLITE_SESSION_CONFIG_STRMSIZE` size.
//!
//! Iterators and apply are in `session_iter.rs`, changegroups, concat
//! and invert in `session_group.rs`.

use crate::consts::*;
use crate::handle::{db_ref, sqlite3};
use crate::slots::SendPtr;
use crate::types::*;
use ringlite::ext::session::Session;
use ringlite::Connection;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Arc, Mutex};

/// Why a changeset conflict handler is called (its eConflict argument).
pub const SQLITE_CHANGESET_DATA: i32 = 1;
pub const SQLITE_CHANGESET_NOTFOUND: i32 = 2;
pub const SQLITE_CHANGESET_CONFLICT: i32 = 3;
pub const SQLITE_CHANGESET_CONSTRAINT: i32 = 4;
pub const SQLITE_CHANGESET_FOREIGN_KEY: i32 = 5;
/// What a changeset conflict handler answers: skip the change, overwrite
/// the row, or abandon the whole apply.
pub const SQLITE_CHANGESET_OMIT: i32 = 0;
pub const SQLITE_CHANGESET_REPLACE: i32 = 1;
pub const SQLITE_CHANGESET_ABORT: i32 = 2;
/// Option of sqlite3session_config: the chunk size of the streaming calls.
pub const SQLITE_SESSION_CONFIG_STRMSIZE: i32 = 1;
/// Options of sqlite3session_object_config.
pub const SQLITE_SESSION_OBJCONFIG_SIZE: i32 = 1;
pub const SQLITE_SESSION_OBJCONFIG_ROWID: i32 = 2;
/// Option of sqlite3changegroup_config: the group works on patchsets.
pub const SQLITE_CHANGEGROUP_CONFIG_PATCHSET: i32 = 1;
/// Flag of sqlite3changeset_start_v2: iterate over the inverse changeset.
pub const SQLITE_CHANGESETSTART_INVERT: i32 = 2;
/// Flags of sqlite3changeset_apply_v2 and _v3.
pub const SQLITE_CHANGESETAPPLY_NOSAVEPOINT: i32 = 1;
pub const SQLITE_CHANGESETAPPLY_INVERT: i32 = 2;
pub const SQLITE_CHANGESETAPPLY_IGNORENOOP: i32 = 4;
pub const SQLITE_CHANGESETAPPLY_FKNOACTION: i32 = 8;
pub const SQLITE_CHANGESETAPPLY_NOUPDATELOOP: i32 = 16;

/// Streaming chunk size (`SQLITE_SESSION_CONFIG_STRMSIZE`).
static STRM_SIZE: AtomicI32 = AtomicI32::new(1024);

/// `xInput` of the streaming forms.
pub(crate) type InputFn = unsafe extern "C" fn(*mut c_void, *mut c_void, *mut c_int) -> c_int;
/// `xOutput` of the streaming forms.
pub(crate) type OutputFn = unsafe extern "C" fn(*mut c_void, *const c_void, c_int) -> c_int;

/// What a `sqlite3_session` points to.
struct SessionHandle {
    db: *mut sqlite3,
    core: Arc<Mutex<Session>>,
    listener: u64,
}

unsafe fn session<'a>(p: *mut sqlite3_session) -> Option<&'a SessionHandle> {
    // SAFETY: the caller guarantees: `p` is NULL or a live `sqlite3_session` this library or SQLite's API
    // contract provides.
    unsafe { (p as *const SessionHandle).as_ref() }
}

/// Read a whole stream through `xInput`.
pub unsafe fn read_stream(x: Option<InputFn>, p: *mut c_void) -> Result<Vec<u8>, c_int> {
    // SAFETY: the caller guarantees: `p` is NULL or valid for what the API does with it (read for the length
    // given, or handed back to callbacks untouched).
    unsafe {
        let Some(x) = x else {
            return Err(SQLITE_MISUSE);
        };
        let chunk = STRM_SIZE.load(Ordering::Relaxed).max(1) as usize;
        let mut all = Vec::new();
        loop {
            let mut buf = vec![0u8; chunk];
            let mut n = chunk as c_int;
            let rc = x(p, buf.as_mut_ptr() as *mut c_void, &mut n);
            if rc != SQLITE_OK {
                return Err(rc);
            }
            if n <= 0 {
                return Ok(all);
            }
            all.extend_from_slice(&buf[..(n as usize).min(chunk)]);
        }
    }
}

/// Write `data` through `xOutput` in chunks.
pub unsafe fn write_stream(x: Option<OutputFn>, p: *mut c_void, data: &[u8]) -> c_int {
    // SAFETY: the caller guarantees: `p` is NULL or valid for what the API does with it (read for the length
    // given, or handed back to callbacks untouched).
    unsafe {
        let Some(x) = x else { return SQLITE_MISUSE };
        let chunk = STRM_SIZE.load(Ordering::Relaxed).max(1) as usize;
        for part in data.chunks(chunk) {
            let rc = x(p, part.as_ptr() as *const c_void, part.len() as c_int);
            if rc != SQLITE_OK {
                return rc;
            }
        }
        SQLITE_OK
    }
}

/// Hand `data` out as a `sqlite3_malloc`ed blob (NULL when empty).
pub unsafe fn hand_out(data: &[u8], pn: *mut c_int, pp: *mut *mut c_void) -> c_int {
    // SAFETY: the caller guarantees: `pn`, `pp` are NULL or writable.
    unsafe {
        let mut rc = SQLITE_OK;
        let mut p = std::ptr::null_mut();
        if !data.is_empty() {
            p = crate::memory::alloc(data.len() as u64);
            if p.is_null() {
                rc = SQLITE_NOMEM;
            } else {
                std::ptr::copy_nonoverlapping(data.as_ptr(), p as *mut u8, data.len());
            }
        }
        if !pn.is_null() {
            *pn = if p.is_null() { 0 } else { data.len() as c_int };
        }
        if !pp.is_null() {
            *pp = p;
        }
        rc
    }
}

/// Zero both outputs (error paths).
pub unsafe fn clear_out(pn: *mut c_int, pp: *mut *mut c_void) {
    // SAFETY: the caller guarantees: `pn`, `pp` are NULL or writable.
    unsafe {
        if !pn.is_null() {
            *pn = 0;
        }
        if !pp.is_null() {
            *pp = std::ptr::null_mut();
        }
    }
}

/// The bytes of an input blob (`n` may be 0 with a NULL pointer).
pub unsafe fn input<'a>(n: c_int, p: *const c_void) -> Result<&'a [u8], c_int> {
    // SAFETY: the caller guarantees: `p` is NULL or valid for what the API does with it (read for the length
    // given, or handed back to callbacks untouched).
    unsafe {
        if n < 0 || (n > 0 && p.is_null()) {
            return Err(SQLITE_MISUSE);
        }
        if n == 0 {
            return Ok(&[]);
        }
        Ok(std::slice::from_raw_parts(p as *const u8, n as usize))
    }
}

/// Run `f` on the connection of `d` (lent by a running statement if
/// there is one).
pub fn on_conn<T>(d: &sqlite3, f: impl FnOnce(&mut Connection) -> ringlite::Result<T>) -> ringlite::Result<T> {
    d.with_conn(f).and_then(|r| r)
}

/// Create a session recording the changes of schema `zDb` of `db` in
/// `*ppSession`. It starts enabled with no table attached.
#[no_mangle]
pub unsafe extern "C" fn sqlite3session_create(db: *mut sqlite3, zDb: *const c_char, ppSession: *mut *mut sqlite3_session) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed; `zDb` is NULL or NUL-terminated (or readable for the length given
    // with it); `ppSession` is NULL or writable.
    unsafe {
        crate::ffi_guard!(SQLITE_MISUSE, {
            if ppSession.is_null() {
                return SQLITE_MISUSE;
            }
            *ppSession = std::ptr::null_mut();
            let Some(d) = db_ref(db) else {
                return SQLITE_MISUSE;
            };
            if zDb.is_null() {
                return SQLITE_MISUSE;
            }
            let _g = d.lock.lock();
            let name = CStr::from_ptr(zDb).to_string_lossy().into_owned();
            let core = Arc::new(Mutex::new(Session::new(&name)));
            let listener_core = core.clone();
            let hook: ringlite::vdbe::exec::preupdate::PreUpdateHook = Arc::new(move |host, ev| {
                let Some(conn) = Connection::from_host(host) else {
                    return;
                };
                // (A session busy elsewhere on this thread, e.g. its filter
                // writing rows, does not record that write.)
                if let Ok(mut s) = listener_core.try_lock() {
                    let _ = s.on_change(conn, ev);
                }
            });
            match d.with_conn(|c| c.add_preupdate_listener(hook)) {
                Ok(listener) => {
                    *ppSession = Box::into_raw(Box::new(SessionHandle { db, core, listener })) as *mut sqlite3_session;
                    SQLITE_OK
                }
                Err(e) => crate::error::report(d, &e),
            }
        })
    }
}

/// Delete the session `pSession`; delete it before closing its connection.
#[no_mangle]
pub unsafe extern "C" fn sqlite3session_delete(pSession: *mut sqlite3_session) {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pSession` is NULL or a live
    // `sqlite3_session` this library or SQLite's API contract provides.
    unsafe {
        crate::ffi_guard!((), {
            if pSession.is_null() {
                return;
            }
            let h = Box::from_raw(pSession as *mut SessionHandle);
            if let Some(d) = db_ref(h.db) {
                let _g = d.lock.lock();
                let _ = d.with_conn(|c| c.remove_preupdate_listener(h.listener));
            }
        })
    }
}

/// Run `f` on the session's engine object.
unsafe fn with_session<T>(p: *mut sqlite3_session, none: T, f: impl FnOnce(&mut Session) -> T) -> T {
    // SAFETY: the caller guarantees: `p` is NULL or a live `sqlite3_session` this library or SQLite's API
    // contract provides.
    unsafe {
        let Some(h) = session(p) else { return none };
        let Ok(mut s) = h.core.lock() else {
            return none;
        };
        f(&mut s)
    }
}

/// Set option `op` (SQLITE_SESSION_OBJCONFIG_SIZE or _ROWID) of the session;
/// `*(int*)pArg` is the new value (negative to only read) and receives the
/// current one.
#[no_mangle]
pub unsafe extern "C" fn sqlite3session_object_config(pSession: *mut sqlite3_session, op: c_int, pArg: *mut c_void) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pSession` is NULL or a live
    // `sqlite3_session` this library or SQLite's API contract provides; `pArg` is NULL or valid for what the
    // API does with it (read for the length given, or handed back to callbacks untouched).
    unsafe {
        crate::ffi_guard!(SQLITE_MISUSE, {
            with_session(pSession, SQLITE_MISUSE, |s| {
                let arg = pArg as *mut c_int;
                if arg.is_null() {
                    return SQLITE_MISUSE;
                }
                match op {
                    SQLITE_SESSION_OBJCONFIG_SIZE => {
                        let mut rc = SQLITE_OK;
                        if *arg >= 0 {
                            if s.tables.is_empty() {
                                s.size_enabled = *arg > 0;
                            } else {
                                rc = SQLITE_MISUSE;
                            }
                        }
                        *arg = c_int::from(s.size_enabled);
                        rc
                    }
                    SQLITE_SESSION_OBJCONFIG_ROWID => {
                        let mut rc = SQLITE_OK;
                        if *arg >= 0 {
                            if s.tables.is_empty() {
                                s.rowid_tables = *arg > 0;
                            } else {
                                rc = SQLITE_MISUSE;
                            }
                        }
                        *arg = c_int::from(s.rowid_tables);
                        rc
                    }
                    _ => SQLITE_MISUSE,
                }
            })
        })
    }
}

/// Turn the session's recording on (`bEnable` 1) or off (0); a negative value
/// only asks. Returns the current state.
#[no_mangle]
pub unsafe extern "C" fn sqlite3session_enable(pSession: *mut sqlite3_session, bEnable: c_int) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pSession` is NULL or a live
    // `sqlite3_session` this library or SQLite's API contract provides.
    unsafe {
        crate::ffi_guard!(0, {
            with_session(pSession, 0, |s| {
                if bEnable >= 0 {
                    s.enabled = bEnable > 0;
                }
                c_int::from(s.enabled)
            })
        })
    }
}

/// Mark the changes recorded from now on as indirect (`bIndirect` 1) or not;
/// negative only asks. Returns the current flag.
#[no_mangle]
pub unsafe extern "C" fn sqlite3session_indirect(pSession: *mut sqlite3_session, bIndirect: c_int) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pSession` is NULL or a live
    // `sqlite3_session` this library or SQLite's API contract provides.
    unsafe {
        crate::ffi_guard!(0, {
            with_session(pSession, 0, |s| {
                if bIndirect >= 0 {
                    s.indirect = bIndirect > 0;
                }
                c_int::from(s.indirect)
            })
        })
    }
}

/// Record changes of table `zTab`, or of every table when NULL. Tables
/// without a PRIMARY KEY are not recorded.
#[no_mangle]
pub unsafe extern "C" fn sqlite3session_attach(pSession: *mut sqlite3_session, zTab: *const c_char) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pSession` is NULL or a live
    // `sqlite3_session` this library or SQLite's API contract provides; `zTab` is NULL or NUL-terminated (or
    // readable for the length given with it).
    unsafe {
        crate::ffi_guard!(SQLITE_MISUSE, {
            let name = (!zTab.is_null()).then(|| CStr::from_ptr(zTab).to_string_lossy().into_owned());
            with_session(pSession, SQLITE_MISUSE, |s| {
                s.attach(name.as_deref());
                SQLITE_OK
            })
        })
    }
}

/// With every table attached, ask `xFilter(pCtx, zTab)` before recording a
/// table's first change; 0 leaves the table out.
#[no_mangle]
pub unsafe extern "C" fn sqlite3session_table_filter(
    pSession: *mut sqlite3_session,
    xFilter: Option<unsafe extern "C" fn(*mut c_void, *const c_char) -> c_int>,
    pCtx: *mut c_void,
) {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pSession` is NULL or a live
    // `sqlite3_session` this library or SQLite's API contract provides; `xFilter`, when set, is safe to call
    // with the arguments the API documents until unregistered.
    unsafe {
        crate::ffi_guard!((), {
            let ctx = SendPtr(pCtx);
            with_session(pSession, (), |s| {
                s.filter = xFilter.map(|f| {
                    Box::new(move |name: &str| {
                        let z = crate::error::cstring(name);
                        f(ctx.get(), z.as_ptr()) != 0
                    }) as ringlite::ext::session::TableFilter
                });
            })
        })
    }
}

/// The changeset or patchset of a session.
unsafe fn session_blob(p: *mut sqlite3_session, patchset: bool) -> Result<Vec<u8>, c_int> {
    // SAFETY: the caller guarantees: `p` is NULL or a live `sqlite3_session` this library or SQLite's API
    // contract provides.
    unsafe {
        let Some(h) = session(p) else {
            return Err(SQLITE_MISUSE);
        };
        let Some(d) = db_ref(h.db) else {
            return Err(SQLITE_MISUSE);
        };
        let _g = d.lock.lock();
        let Ok(mut s) = h.core.lock() else {
            return Err(SQLITE_MISUSE);
        };
        on_conn(d, |c| s.changeset(c, patchset)).map_err(|e| e.primary())
    }
}

/// Write the recorded changes as a changeset into a buffer `*ppChangeset` of
/// `*pnChangeset` bytes, to free with sqlite3_free.
#[no_mangle]
pub unsafe extern "C" fn sqlite3session_changeset(pSession: *mut sqlite3_session, pnChangeset: *mut c_int, ppChangeset: *mut *mut c_void) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pSession` is NULL or a live
    // `sqlite3_session` this library or SQLite's API contract provides; `pnChangeset`, `ppChangeset` are NULL
    // or writable.
    unsafe {
        crate::ffi_guard!(SQLITE_MISUSE, {
            clear_out(pnChangeset, ppChangeset);
            match session_blob(pSession, false) {
                Ok(b) => hand_out(&b, pnChangeset, ppChangeset),
                Err(rc) => rc,
            }
        })
    }
}

/// Write the recorded changes as a patchset (changeset without the old values
/// of updated and deleted rows other than the keys).
#[no_mangle]
pub unsafe extern "C" fn sqlite3session_patchset(pSession: *mut sqlite3_session, pnPatchset: *mut c_int, ppPatchset: *mut *mut c_void) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pSession` is NULL or a live
    // `sqlite3_session` this library or SQLite's API contract provides; `pnPatchset`, `ppPatchset` are NULL
    // or writable.
    unsafe {
        crate::ffi_guard!(SQLITE_MISUSE, {
            clear_out(pnPatchset, ppPatchset);
            match session_blob(pSession, true) {
                Ok(b) => hand_out(&b, pnPatchset, ppPatchset),
                Err(rc) => rc,
            }
        })
    }
}

/// sqlite3session_changeset handing the output to `xOutput(pOut, p, n)` in
/// pieces.
#[no_mangle]
pub unsafe extern "C" fn sqlite3session_changeset_strm(
    pSession: *mut sqlite3_session,
    xOutput: Option<unsafe extern "C" fn(*mut c_void, *const c_void, c_int) -> c_int>,
    pOut: *mut c_void,
) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pSession` is NULL or a live
    // `sqlite3_session` this library or SQLite's API contract provides; `xOutput`, when set, is safe to call
    // with the arguments the API documents until unregistered.
    unsafe {
        crate::ffi_guard!(SQLITE_MISUSE, {
            match session_blob(pSession, false) {
                Ok(b) => write_stream(xOutput, pOut, &b),
                Err(rc) => rc,
            }
        })
    }
}

/// sqlite3session_patchset handing the output to `xOutput(pOut, p, n)`.
#[no_mangle]
pub unsafe extern "C" fn sqlite3session_patchset_strm(
    pSession: *mut sqlite3_session,
    xOutput: Option<unsafe extern "C" fn(*mut c_void, *const c_void, c_int) -> c_int>,
    pOut: *mut c_void,
) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pSession` is NULL or a live
    // `sqlite3_session` this library or SQLite's API contract provides; `xOutput`, when set, is safe to call
    // with the arguments the API documents until unregistered.
    unsafe {
        crate::ffi_guard!(SQLITE_MISUSE, {
            match session_blob(pSession, true) {
                Ok(b) => write_stream(xOutput, pOut, &b),
                Err(rc) => rc,
            }
        })
    }
}

/// `sqlite3session_changeset_size`: 0 unless enabled by
/// `SQLITE_SESSION_OBJCONFIG_SIZE`, then the size a changeset would have
/// now (an upper limit, as documented).
#[no_mangle]
pub unsafe extern "C" fn sqlite3session_changeset_size(pSession: *mut sqlite3_session) -> sqlite3_int64 {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pSession` is NULL or a live
    // `sqlite3_session` this library or SQLite's API contract provides.
    unsafe {
        crate::ffi_guard!(0, {
            let enabled = with_session(pSession, false, |s| s.size_enabled);
            if !enabled {
                return 0;
            }
            session_blob(pSession, false).map_or(0, |b| b.len() as sqlite3_int64)
        })
    }
}

/// 1 if the session has recorded no change, else 0.
#[no_mangle]
pub unsafe extern "C" fn sqlite3session_isempty(pSession: *mut sqlite3_session) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pSession` is NULL or a live
    // `sqlite3_session` this library or SQLite's API contract provides.
    unsafe { crate::ffi_guard!(1, { with_session(pSession, 1, |s| c_int::from(s.is_empty())) }) }
}

/// `sqlite3session_memory_used`: an estimate of what the records hold.
#[no_mangle]
pub unsafe extern "C" fn sqlite3session_memory_used(pSession: *mut sqlite3_session) -> sqlite3_int64 {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pSession` is NULL or a live
    // `sqlite3_session` this library or SQLite's API contract provides.
    unsafe { crate::ffi_guard!(0, { with_session(pSession, 0, |s| s.memory_used() as sqlite3_int64) }) }
}

/// Record in the session the changes that would turn table `zTbl` of schema
/// `zFromDb` into the session's table of the same name.
/// `*pzErrMsg` receives a message to free with sqlite3_free on error.
#[no_mangle]
pub unsafe extern "C" fn sqlite3session_diff(pSession: *mut sqlite3_session, zFromDb: *const c_char, zTbl: *const c_char, pzErrMsg: *mut *mut c_char) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pSession` is NULL or a live
    // `sqlite3_session` this library or SQLite's API contract provides; `zFromDb`, `zTbl` are NULL or
    // NUL-terminated (or readable for the length given with them); `pzErrMsg` is NULL or writable.
    unsafe {
        crate::ffi_guard!(SQLITE_MISUSE, {
            if !pzErrMsg.is_null() {
                *pzErrMsg = std::ptr::null_mut();
            }
            let Some(h) = session(pSession) else {
                return SQLITE_MISUSE;
            };
            let Some(d) = db_ref(h.db) else {
                return SQLITE_MISUSE;
            };
            if zFromDb.is_null() || zTbl.is_null() {
                return SQLITE_MISUSE;
            }
            let from = CStr::from_ptr(zFromDb).to_string_lossy().into_owned();
            let tbl = CStr::from_ptr(zTbl).to_string_lossy().into_owned();
            let _g = d.lock.lock();
            let Ok(mut s) = h.core.lock() else {
                return SQLITE_MISUSE;
            };
            match on_conn(d, |c| s.diff(c, &from, &tbl)) {
                Ok(()) => SQLITE_OK,
                Err(e) => {
                    if !pzErrMsg.is_null() && !e.message.is_empty() {
                        *pzErrMsg = crate::memory::malloc_cstr(e.message.as_bytes());
                    }
                    e.primary()
                }
            }
        })
    }
}

/// Set the library-wide session option `op` (SQLITE_SESSION_CONFIG_STRMSIZE);
/// `*(int*)pArg` is the new value (negative only reads) and receives the
/// current one.
#[no_mangle]
pub unsafe extern "C" fn sqlite3session_config(op: c_int, pArg: *mut c_void) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pArg` is NULL or valid for what the
    // API does with it (read for the length given, or handed back to callbacks untouched).
    unsafe {
        crate::ffi_guard!(SQLITE_MISUSE, {
            let arg = pArg as *mut c_int;
            if op != SQLITE_SESSION_CONFIG_STRMSIZE || arg.is_null() {
                return SQLITE_MISUSE;
            }
            if *arg > 0 {
                STRM_SIZE.store(*arg, Ordering::Relaxed);
            }
            *arg = STRM_SIZE.load(Ordering::Relaxed);
            SQLITE_OK
        })
    }
}
