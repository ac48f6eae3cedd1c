//! # R*Tree query functions from C
//!
//! `sqlite3_rtree_query_callback` and the older
//! `sqlite3_rtree_geometry_callback` (rtree.txt §6) register an SQL
//! function whose result, on the right of `MATCH` against an R*Tree
//! column, makes the tree walk ask the C callback about every node box and
//! entry. The engine side is `ringlite::ext::rtree::geometry`; this file
//! adapts its two traits to the C structures.
//!
//! Invariants: one `sqlite3_rtree_query_info` per MATCH per query, at a
//! fixed address for the query's life (the callback may keep `pUser` in
//! it); `xDelUser(pUser)` runs once when the query's walk ends; the
//! registration's `xDestructor(pContext)` runs once, when the function is
//! replaced or the connection closes (or at once if registering fails).

use crate::abi::{sqlite3_rtree_geometry, sqlite3_rtree_query_info};
use crate::error::{finish, misuse};
use crate::handle::db_ref;
use crate::handle::sqlite3;
use crate::types::sqlite3_rtree_dbl;
use crate::value::sqlite3_value;
use ringlite::error::Error;
use ringlite::ext::rtree::geometry::{self, GeometryCallback, GeometryMatch, Probe, NOT_WITHIN, PARTLY_WITHIN};
use ringlite::value::Value;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::Arc;

// (Spelled out in the signatures below too: cbindgen writes aliases as
// unknown C types.)
type XQuery = unsafe extern "C" fn(*mut sqlite3_rtree_query_info) -> c_int;
type XGeom = unsafe extern "C" fn(*mut sqlite3_rtree_geometry, c_int, *mut sqlite3_rtree_dbl, *mut c_int) -> c_int;
type XDestroy = unsafe extern "C" fn(*mut c_void);

#[derive(Clone, Copy)]
enum Callback {
    Query(XQuery),
    Geometry(XGeom),
}

/// A registration: the callback and its context.
struct CRegistration {
    callback: Callback,
    context: *mut c_void,
    destructor: Option<XDestroy>,
}

// SAFETY: the C API makes the application responsible for its context
// being usable from whichever thread runs the connection's queries, as
// SQLite does.
unsafe impl Send for CRegistration {}
unsafe impl Sync for CRegistration {}

impl Drop for CRegistration {
    fn drop(&mut self) {
        if let Some(d) = self.destructor {
            // SAFETY: the application's destructor for its own context.
            unsafe { d(self.context) };
        }
    }
}

impl GeometryCallback for CRegistration {
    fn start(&self, params: Vec<f64>, values: Vec<Value>) -> ringlite::Result<Box<dyn GeometryMatch>> {
        let mut m = Box::new(CMatch {
            callback: self.callback,
            info: Box::new(sqlite3_rtree_query_info {
                pContext: self.context,
                nParam: params.len() as c_int,
                aParam: std::ptr::null_mut(),
                pUser: std::ptr::null_mut(),
                xDelUser: None,
                aCoord: std::ptr::null_mut(),
                anQueue: std::ptr::null_mut(),
                nCoord: 0,
                iLevel: 0,
                mxLevel: 0,
                iRowid: 0,
                rParentScore: 0.0,
                eParentWithin: 0,
                eWithin: 0,
                rScore: 0.0,
                apSqlParam: std::ptr::null_mut(),
            }),
            params,
            values: values.into_iter().map(sqlite3_value::new).collect(),
            value_ptrs: Vec::new(),
            coords: Vec::new(),
            queue: Vec::new(),
        });
        // (`values` is never resized after this: the pointers stay valid.)
        m.value_ptrs = m.values.iter_mut().map(|v| v as *mut sqlite3_value).collect();
        m.info.aParam = crate::c_array::callback_array(&mut m.params);
        m.info.apSqlParam = crate::c_array::callback_array(&mut m.value_ptrs);
        Ok(m)
    }
}

/// One MATCH of one query (the buffers the C structure points into).
struct CMatch {
    callback: Callback,
    info: Box<sqlite3_rtree_query_info>,
    params: Vec<f64>,
    values: Vec<sqlite3_value>,
    value_ptrs: Vec<*mut sqlite3_value>,
    coords: Vec<f64>,
    queue: Vec<u32>,
}

// SAFETY: the raw pointers point into buffers this value owns.
unsafe impl Send for CMatch {}

impl Drop for CMatch {
    fn drop(&mut self) {
        if let Some(d) = self.info.xDelUser {
            // SAFETY: the callback's own destructor for its own data.
            unsafe { d(self.info.pUser) };
        }
    }
}

impl GeometryMatch for CMatch {
    fn test(&mut self, p: &Probe<'_>) -> ringlite::Result<(i32, f64)> {
        self.coords.clear();
        self.coords.extend_from_slice(p.coords);
        self.queue.clear();
        self.queue.extend_from_slice(p.queue);
        let info = &mut *self.info;
        info.aCoord = self.coords.as_mut_ptr();
        info.nCoord = self.coords.len() as c_int;
        info.anQueue = self.queue.as_mut_ptr();
        info.iLevel = p.level;
        info.mxLevel = p.max_level;
        info.iRowid = p.rowid;
        info.rParentScore = p.parent_score;
        info.eParentWithin = p.parent_within;
        info.eWithin = p.parent_within;
        info.rScore = p.parent_score;
        match self.callback {
            Callback::Query(f) => {
                // SAFETY: `info` and every buffer it points into live in
                // `self` for the call.
                let rc = unsafe { f(info) };
                if rc != 0 {
                    return Err(Error::code(rc));
                }
                Ok((info.eWithin, info.rScore))
            }
            Callback::Geometry(f) => {
                let mut res: c_int = 0;
                let n = info.nCoord;
                // SAFETY: the geometry structure is the query structure's
                // first five fields, laid out alike.
                let rc = unsafe { f(info as *mut sqlite3_rtree_query_info as *mut sqlite3_rtree_geometry, n, self.coords.as_mut_ptr(), &mut res) };
                if rc != 0 {
                    return Err(Error::code(rc));
                }
                Ok((if res != 0 { PARTLY_WITHIN } else { NOT_WITHIN }, 0.0))
            }
        }
    }
}

unsafe fn register(db: *mut sqlite3, name: *const c_char, reg: CRegistration) -> c_int {
    // SAFETY: the caller guarantees: `db` is NULL or a connection this library opened and has not freed;
    // `name` is NULL or NUL-terminated (or readable for the length given with it).
    unsafe {
        let Some(d) = db_ref(db) else {
            drop(reg);
            return misuse();
        };
        if name.is_null() {
            drop(reg);
            return misuse();
        }
        let name = CStr::from_ptr(name).to_string_lossy().into_owned();
        let _g = d.lock.lock();
        let reg: Arc<dyn GeometryCallback> = Arc::new(reg);
        let r = d.with_conn(|c| geometry::register(c, &name, reg)).and_then(|r| r);
        finish(d, r)
    }
}

/// Register `zGeom` as an SQL function whose result, on the right of
/// `MATCH` against an R*Tree column, makes the query call `xGeom` for every
/// node box and entry: `*pRes` non-zero keeps it. The walk is depth-first.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_rtree_geometry_callback(
    db: *mut sqlite3,
    zGeom: *const c_char,
    xGeom: Option<unsafe extern "C" fn(*mut sqlite3_rtree_geometry, c_int, *mut sqlite3_rtree_dbl, *mut c_int) -> c_int>,
    pContext: *mut c_void,
) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed; `zGeom` is NULL or NUL-terminated (or readable for the length given
    // with it); `xGeom`, when set, is safe to call with the arguments the API documents until unregistered.
    unsafe {
        crate::ffi_guard!(crate::consts::SQLITE_ERROR, {
            let Some(x) = xGeom else { return misuse() };
            register(db, zGeom, CRegistration { callback: Callback::Geometry(x), context: pContext, destructor: None })
        })
    }
}

/// Register `zQueryFunc` as an SQL function whose result, on the right of
/// `MATCH` against an R*Tree column, makes the query ask `xQueryFunc` how
/// much of each node box and entry lies in its shape and with what score;
/// smaller scores are visited first. `xDestructor(pContext)` runs when the
/// function is replaced or the connection closes.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_rtree_query_callback(
    db: *mut sqlite3,
    zQueryFunc: *const c_char,
    xQueryFunc: Option<unsafe extern "C" fn(*mut sqlite3_rtree_query_info) -> c_int>,
    pContext: *mut c_void,
    xDestructor: Option<unsafe extern "C" fn(*mut c_void)>,
) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed; `zQueryFunc` is NULL or NUL-terminated (or readable for the length
    // given with it); `xQueryFunc`, when set, is safe to call with the arguments the API documents until
    // unregistered.
    unsafe {
        crate::ffi_guard!(crate::consts::SQLITE_ERROR, {
            let reg = |callback| CRegistration { callback, context: pContext, destructor: xDestructor };
            match xQueryFunc {
                Some(x) => register(db, zQueryFunc, reg(Callback::Query(x))),
                None => {
                    drop(reg(Callback::Query(noop_query)));
                    misuse()
                }
            }
        })
    }
}

unsafe extern "C" fn noop_query(_: *mut sqlite3_rtree_query_info) -> c_int {
    0
}
