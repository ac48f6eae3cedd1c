//! # Application-defined SQL functions
//!
//! `sqlite3_create_function*` wrap the C callbacks as the engine's
//! [`ScalarFunction`] / [`AggregateFunction`]. Each call builds a
//! `sqlite3_context` on the stack and an array of `sqlite3_value`s for the
//! arguments, calls the C function, and turns what it set with
//! `sqlite3_result_*` into the engine's `Result<Value>`.
//!
//! The user data's destructor (`xDestroy`) runs when the last reference to
//! the definition goes: when the function is replaced or deleted, or the
//! connection closes, as SQLite documents.

use crate::consts::*;
use crate::error::{cstring, finish, misuse};
use crate::handle::{db_ref, sqlite3};
use crate::value::sqlite3_value;
use ringlite::value::Value;
use ringlite::vdbe::func::{AggregateFunction, AggregateState, FuncDef, FuncFlags, FuncKind, FunctionContext, ScalarFunction};
use ringlite::Error;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::{Arc, Mutex};

pub(crate) type XFunc = unsafe extern "C" fn(*mut sqlite3_context, c_int, *mut *mut sqlite3_value);
type XFinal = unsafe extern "C" fn(*mut sqlite3_context);
type XDestroy = unsafe extern "C" fn(*mut c_void);

/// The `sqlite3_context` of one call of an application-defined function.
pub struct sqlite3_context {
    /// The result set so far (NULL until a `result_*` call).
    pub result: Value,
    /// Set by `sqlite3_result_error*`.
    pub error: Option<Error>,
    /// `sqlite3_result_subtype`.
    pub subtype: u32,
    /// The definition being called.
    pub func: *const CFunction,
    /// The aggregate's memory slot (`sqlite3_aggregate_context`); NULL for
    /// scalar calls.
    pub agg_slot: *mut *mut c_void,
    /// The call's arguments (for auxdata keyed by argument value).
    pub args: *const [Value],
    /// A virtual table's xColumn called for an UPDATE that does not change
    /// the column (`sqlite3_vtab_nochange`).
    pub nochange: bool,
}

impl sqlite3_context {
    pub(crate) fn new(func: &CFunction, agg_slot: *mut *mut c_void, args: &[Value]) -> sqlite3_context {
        sqlite3_context { result: Value::Null, error: None, subtype: 0, func, agg_slot, args, nochange: false }
    }

    pub(crate) fn outcome(self, fctx: &mut FunctionContext<'_>) -> ringlite::Result<Value> {
        if let Some(e) = self.error {
            return Err(e);
        }
        fctx.result_subtype = self.subtype;
        Ok(self.result)
    }
}

/// A function registered from C.
pub struct CFunction {
    /// The connection it was registered on (`sqlite3_context_db_handle`).
    pub db: *mut sqlite3,
    /// `pApp` (`sqlite3_user_data`).
    pub user_data: *mut c_void,
    x_func: Option<XFunc>,
    x_step: Option<XFunc>,
    x_final: Option<XFinal>,
    x_value: Option<XFinal>,
    x_inverse: Option<XFunc>,
    x_destroy: Option<XDestroy>,
    /// `sqlite3_set_auxdata` entries.
    auxdata: Mutex<Vec<AuxEntry>>,
}

/// One `sqlite3_set_auxdata` entry.
struct AuxEntry {
    /// The argument it belongs to, and the value it was computed for.
    arg: c_int,
    value: Value,
    data: *mut c_void,
    destroy: Option<XDestroy>,
    /// The statement whose run set it (0: none known): the end of that
    /// run (done, error, reset or finalize) releases the entry, as SQLite
    /// releases a statement's auxdata when it halts.
    stmt: usize,
}

impl AuxEntry {
    unsafe fn release(self) {
        // SAFETY: the caller guarantees: `destroy` is the destructor the application gave
        // `sqlite3_set_auxdata` for `data`; the entry is consumed, so it runs once.
        unsafe {
            if let Some(d) = self.destroy {
                d(self.data);
            }
        }
    }
}

/// The functions holding auxdata set by each running statement, so that
/// [`statement_halted`] finds them (weakly: a function replaced meanwhile
/// has released its entries already).
static AUX_HOLDERS: Mutex<Vec<(usize, std::sync::Weak<CFunction>)>> = Mutex::new(Vec::new());

/// The run of `stmt` ended (done, error, reset or finalize): release the
/// auxdata it set, after the locks are dropped (a destructor may call the
/// API).
pub unsafe fn statement_halted(stmt: *mut crate::handle::sqlite3_stmt) {
    // SAFETY: the caller guarantees: `stmt` is NULL or a statement from `sqlite3_prepare*` not yet finalized.
    unsafe {
        let key = stmt as usize;
        let holders: Vec<_> = {
            let mut all = AUX_HOLDERS.lock().unwrap_or_else(|e| e.into_inner());
            if all.is_empty() {
                return;
            }
            let (mine, rest) = std::mem::take(&mut *all).into_iter().partition(|(s, _)| *s == key);
            *all = rest;
            mine
        };
        for (_, weak) in holders {
            let Some(func) = weak.upgrade() else { continue };
            let released: Vec<AuxEntry> = {
                let mut aux = func.auxdata.lock().unwrap_or_else(|e| e.into_inner());
                let (gone, kept) = std::mem::take(&mut *aux).into_iter().partition(|e| e.stmt == key);
                *aux = kept;
                gone
            };
            for e in released {
                e.release();
            }
        }
    }
}

/// Remember that `func` (a pointer into an `Arc<CFunction>`, as every
/// context's is) holds auxdata of statement `stmt`.
unsafe fn note_aux_holder(stmt: usize, func: *const CFunction) {
    // SAFETY: the caller guarantees: `func` is NULL or a live `CFunction` this library or SQLite's API
    // contract provides.
    unsafe {
        std::sync::Arc::increment_strong_count(func);
        let strong = std::sync::Arc::from_raw(func);
        let mut all = AUX_HOLDERS.lock().unwrap_or_else(|e| e.into_inner());
        if !all.iter().any(|(s, w)| *s == stmt && std::ptr::eq(w.as_ptr(), func)) {
            all.push((stmt, Arc::downgrade(&strong)));
        }
    }
}

impl CFunction {
    /// What a virtual table's xColumn sees as its context's function
    /// (`sqlite3_context_db_handle` answers `db`), or what a function a
    /// table overloads through xFindFunction calls.
    pub(crate) fn for_vtab(db: *mut sqlite3, user_data: *mut c_void, x_func: Option<XFunc>) -> CFunction {
        CFunction { db, user_data, x_func, x_step: None, x_final: None, x_value: None, x_inverse: None, x_destroy: None, auxdata: Mutex::new(Vec::new()) }
    }
}

/// The definition of the function a virtual table returns from
/// xFindFunction: `name` with `n_args` arguments calling `x_func` with
/// user data `user_data`.
pub(crate) fn overload_def(db: *mut sqlite3, name: &str, n_args: c_int, x_func: XFunc, user_data: *mut c_void) -> Arc<FuncDef> {
    let cf = Arc::new(CFunction::for_vtab(db, user_data, Some(x_func)));
    Arc::new(FuncDef {
        name: name.to_string(),
        n_args,
        flags: FuncFlags { deterministic: false, direct_only: false, innocuous: false, subtype: false, builtin: false },
        kind: FuncKind::Scalar(Arc::new(CScalar(cf))),
    })
}

// C callbacks are called only under the connection's lock.
unsafe impl Send for CFunction {}
unsafe impl Sync for CFunction {}

impl Drop for CFunction {
    fn drop(&mut self) {
        let aux = std::mem::take(self.auxdata.get_mut().unwrap_or_else(|e| e.into_inner()));
        for e in aux {
            unsafe { e.release() };
        }
        if let Some(d) = self.x_destroy {
            unsafe { d(self.user_data) };
        }
    }
}

/// The `sqlite3_value`s of a call's arguments, with their subtypes and
/// bound-parameter marks (`FunctionContext::arg_subtypes`,
/// `arg_from_bind`; shorter slices: none for the rest).
pub(crate) fn call_args(args: &[Value], subtypes: &[u32], from_bind: &[bool]) -> Vec<sqlite3_value> {
    args.iter()
        .enumerate()
        .map(|(i, v)| {
            let mut sv = sqlite3_value::new(v.clone());
            sv.subtype = subtypes.get(i).copied().unwrap_or(0);
            sv.from_bind = from_bind.get(i).copied().unwrap_or(false);
            sv
        })
        .collect()
}

unsafe fn invoke(f: XFunc, ctx: &mut sqlite3_context, args: &mut [sqlite3_value]) {
    // SAFETY: the caller guarantees: `f` is the application's function registered for this call; `ctx` and
    // `args` live for the whole call.
    unsafe {
        let mut ptrs: Vec<*mut sqlite3_value> = args.iter_mut().map(|a| a as *mut _).collect();
        f(ctx, ptrs.len() as c_int, crate::c_array::callback_array(&mut ptrs));
    }
}

/// Run `call` (a C callback of `func`) with the engine connection the VM
/// lent to the call reachable from the function's handle (so the callback
/// may run SQL on it, see `handle.rs`), and the VM's counters published
/// there, so that `sqlite3_changes` and the like answer them. Nested
/// calls put the outer values back.
pub(crate) fn with_counters<T>(func: &CFunction, fctx: &mut FunctionContext<'_>, call: impl FnOnce() -> T) -> T {
    let db = unsafe { crate::handle::db_ref_any(func.db) };
    let counters = crate::handle::CallCounters { last_insert_rowid: fctx.last_insert_rowid, changes: fctx.changes, total_changes: fctx.total_changes };
    let Some(d) = db else { return call() };
    let outer = d.counters_in_call.replace(Some(counters));
    let r = crate::handle::lend_to_callback(d, fctx.host.as_deref_mut(), call);
    d.counters_in_call.set(outer);
    r
}

struct CScalar(Arc<CFunction>);

impl ScalarFunction for CScalar {
    fn call(&self, fctx: &mut FunctionContext<'_>, args: &[Value]) -> ringlite::Result<Value> {
        let f = &*self.0;
        let Some(x) = f.x_func else {
            return Err(Error::sql("function has no implementation"));
        };
        let mut ctx = sqlite3_context::new(f, std::ptr::null_mut(), args);
        let mut argv = call_args(args, fctx.arg_subtypes, fctx.arg_from_bind);
        with_counters(f, fctx, || unsafe { invoke(x, &mut ctx, &mut argv) });
        ctx.outcome(fctx)
    }
}

struct CAggregate(Arc<CFunction>);

struct CAggState {
    func: Arc<CFunction>,
    mem: *mut c_void,
}

unsafe impl Send for CAggState {}

impl Drop for CAggState {
    fn drop(&mut self) {
        unsafe { crate::memory::sqlite3_free(self.mem) };
    }
}

impl AggregateFunction for CAggregate {
    fn start(&self) -> Box<dyn AggregateState> {
        Box::new(CAggState { func: self.0.clone(), mem: std::ptr::null_mut() })
    }
    fn has_inverse(&self) -> bool {
        self.0.x_inverse.is_some() && self.0.x_value.is_some()
    }
}

impl CAggState {
    fn run_step(&mut self, x: Option<XFunc>, fctx: &mut FunctionContext<'_>, args: &[Value]) -> ringlite::Result<()> {
        let func = self.func.clone();
        let Some(x) = x else {
            return Err(Error::sql("function has no implementation"));
        };
        let mut ctx = sqlite3_context::new(&func, &mut self.mem, args);
        let mut argv = call_args(args, fctx.arg_subtypes, fctx.arg_from_bind);
        with_counters(&func, fctx, || unsafe { invoke(x, &mut ctx, &mut argv) });
        ctx.outcome(fctx).map(|_| ())
    }

    fn run_final(&mut self, x: Option<XFinal>, fctx: &mut FunctionContext<'_>) -> ringlite::Result<Value> {
        let func = self.func.clone();
        let Some(x) = x else {
            return Err(Error::sql("function has no implementation"));
        };
        let mut ctx = sqlite3_context::new(&func, &mut self.mem, &[]);
        with_counters(&func, fctx, || unsafe { x(&mut ctx) });
        ctx.outcome(fctx)
    }
}

impl AggregateState for CAggState {
    fn step(&mut self, fctx: &mut FunctionContext<'_>, args: &[Value]) -> ringlite::Result<()> {
        let x = self.func.x_step;
        self.run_step(x, fctx, args)
    }
    fn inverse(&mut self, fctx: &mut FunctionContext<'_>, args: &[Value]) -> ringlite::Result<()> {
        let x = self.func.x_inverse;
        self.run_step(x, fctx, args)
    }
    fn value(&mut self, fctx: &mut FunctionContext<'_>) -> ringlite::Result<Value> {
        let x = self.func.x_value;
        self.run_final(x, fctx)
    }
    fn finalize(&mut self, fctx: &mut FunctionContext<'_>) -> ringlite::Result<Value> {
        let x = self.func.x_final;
        let v = self.run_final(x, fctx);
        unsafe { crate::memory::sqlite3_free(self.mem) };
        self.mem = std::ptr::null_mut();
        v
    }
}

/// Everything `create_function*` may be given.
pub struct FunctionSpec {
    pub name: String,
    pub n_arg: c_int,
    pub text_rep: c_int,
    pub user_data: *mut c_void,
    pub x_func: Option<XFunc>,
    pub x_step: Option<XFunc>,
    pub x_final: Option<XFinal>,
    pub x_value: Option<XFinal>,
    pub x_inverse: Option<XFunc>,
    pub x_destroy: Option<XDestroy>,
}

/// The common body of every `create_function` variant.
pub unsafe fn create_function(db: *mut sqlite3, spec: FunctionSpec) -> c_int {
    // SAFETY: the caller guarantees: `db` is NULL or a connection this library opened and has not freed.
    unsafe {
        let Some(d) = db_ref(db) else { return misuse() };
        let _g = d.lock.lock();
        let scalar = spec.x_func.is_some();
        let aggregate = spec.x_step.is_some() || spec.x_final.is_some();
        let bad = spec.n_arg < -1
            || spec.n_arg > 1000
            || (scalar && aggregate)
            || (spec.x_step.is_some() != spec.x_final.is_some())
            || (spec.x_value.is_some() != spec.x_inverse.is_some())
            || spec.name.is_empty()
            || spec.name.len() > 255;
        if bad {
            if let Some(dx) = spec.x_destroy {
                dx(spec.user_data);
            }
            return crate::error::report(d, &Error::code(SQLITE_MISUSE));
        }
        if !scalar && !aggregate {
            if let Some(dx) = spec.x_destroy {
                dx(spec.user_data);
            }
            let name = spec.name.clone();
            let r = d.with_conn(|c| c.delete_function(&name, spec.n_arg)).and_then(|r| r);
            return finish(d, r);
        }
        let flags = FuncFlags {
            deterministic: spec.text_rep & SQLITE_DETERMINISTIC != 0,
            direct_only: spec.text_rep & SQLITE_DIRECTONLY != 0,
            innocuous: spec.text_rep & SQLITE_INNOCUOUS != 0,
            subtype: spec.text_rep & (SQLITE_SUBTYPE | SQLITE_RESULT_SUBTYPE) != 0,
            builtin: false,
        };
        let cf = Arc::new(CFunction {
            db,
            user_data: spec.user_data,
            x_func: spec.x_func,
            x_step: spec.x_step,
            x_final: spec.x_final,
            x_value: spec.x_value,
            x_inverse: spec.x_inverse,
            x_destroy: spec.x_destroy,
            auxdata: Mutex::new(Vec::new()),
        });
        let kind = if scalar { FuncKind::Scalar(Arc::new(CScalar(cf))) } else { FuncKind::Aggregate(Arc::new(CAggregate(cf))) };
        let def = FuncDef { name: spec.name, n_args: spec.n_arg, flags, kind };
        let r = d.with_conn(|c| c.create_function(def)).and_then(|r| r);
        finish(d, r)
    }
}

unsafe fn name_of(p: *const c_char) -> String {
    // SAFETY: the caller guarantees: `p` is NULL or NUL-terminated (or readable for the length given with
    // it).
    unsafe {
        if p.is_null() {
            String::new()
        } else {
            CStr::from_ptr(p).to_string_lossy().into_owned()
        }
    }
}

/// Register an SQL function `zFunctionName` taking `nArg` arguments (-1 for
/// any): a scalar one with `xFunc`, an aggregate with `xStep` and `xFinal`.
/// `eTextRep` names the encoding and may carry SQLITE_DETERMINISTIC and the
/// other flags; `pApp` is returned by sqlite3_user_data.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_create_function(
    db: *mut sqlite3,
    zFunctionName: *const c_char,
    nArg: c_int,
    eTextRep: c_int,
    pApp: *mut c_void,
    xFunc: Option<unsafe extern "C" fn(*mut sqlite3_context, c_int, *mut *mut sqlite3_value)>,
    xStep: Option<unsafe extern "C" fn(*mut sqlite3_context, c_int, *mut *mut sqlite3_value)>,
    xFinal: Option<unsafe extern "C" fn(*mut sqlite3_context)>,
) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed; `zFunctionName` is NULL or NUL-terminated (or readable for the length
    // given with it); `pApp` is NULL or valid for what the API does with it (read for the length given, or
    // handed back to callbacks untouched); `xFunc`, `xStep`, `xFinal`, when set, are safe to call with the
    // arguments the API documents until unregistered.
    unsafe { sqlite3_create_function_v2(db, zFunctionName, nArg, eTextRep, pApp, xFunc, xStep, xFinal, None) }
}

/// sqlite3_create_function with a UTF-16 name.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_create_function16(
    db: *mut sqlite3,
    zFunctionName: *const c_void,
    nArg: c_int,
    eTextRep: c_int,
    pApp: *mut c_void,
    xFunc: Option<unsafe extern "C" fn(*mut sqlite3_context, c_int, *mut *mut sqlite3_value)>,
    xStep: Option<unsafe extern "C" fn(*mut sqlite3_context, c_int, *mut *mut sqlite3_value)>,
    xFinal: Option<unsafe extern "C" fn(*mut sqlite3_context)>,
) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed; `zFunctionName`, `pApp` are NULL or valid for what the API does with
    // them (read for the length given, or handed back to callbacks untouched); `xFunc`, `xStep`, `xFinal`,
    // when set, are safe to call with the arguments the API documents until unregistered.
    unsafe {
        ffi_guard!(SQLITE_INTERNAL, {
            let name = String::from_utf8_lossy(&crate::convert::utf16_to_utf8(zFunctionName, -1)).into_owned();
            let spec = FunctionSpec {
                name,
                n_arg: nArg,
                text_rep: eTextRep,
                user_data: pApp,
                x_func: xFunc,
                x_step: xStep,
                x_final: xFinal,
                x_value: None,
                x_inverse: None,
                x_destroy: None,
            };
            create_function(db, spec)
        })
    }
}

/// sqlite3_create_function with `xDestroy`, called on `pApp` when the function
/// is replaced or the connection closes.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_create_function_v2(
    db: *mut sqlite3,
    zFunctionName: *const c_char,
    nArg: c_int,
    eTextRep: c_int,
    pApp: *mut c_void,
    xFunc: Option<unsafe extern "C" fn(*mut sqlite3_context, c_int, *mut *mut sqlite3_value)>,
    xStep: Option<unsafe extern "C" fn(*mut sqlite3_context, c_int, *mut *mut sqlite3_value)>,
    xFinal: Option<unsafe extern "C" fn(*mut sqlite3_context)>,
    xDestroy: Option<unsafe extern "C" fn(*mut c_void)>,
) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed; `zFunctionName` is NULL or NUL-terminated (or readable for the length
    // given with it); `pApp` is NULL or valid for what the API does with it (read for the length given, or
    // handed back to callbacks untouched); `xFunc`, `xStep`, `xFinal`, `xDestroy`, when set, are safe to call
    // with the arguments the API documents until unregistered.
    unsafe {
        ffi_guard!(SQLITE_INTERNAL, {
            let spec = FunctionSpec {
                name: name_of(zFunctionName),
                n_arg: nArg,
                text_rep: eTextRep,
                user_data: pApp,
                x_func: xFunc,
                x_step: xStep,
                x_final: xFinal,
                x_value: None,
                x_inverse: None,
                x_destroy: xDestroy,
            };
            create_function(db, spec)
        })
    }
}

/// Register an aggregate window function: `xStep`, `xFinal`, `xValue` (the
/// current value) and `xInverse` (remove a row from the window); with
/// `xValue` and `xInverse` NULL it is an ordinary aggregate.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_create_window_function(
    db: *mut sqlite3,
    zFunctionName: *const c_char,
    nArg: c_int,
    eTextRep: c_int,
    pApp: *mut c_void,
    xStep: Option<unsafe extern "C" fn(*mut sqlite3_context, c_int, *mut *mut sqlite3_value)>,
    xFinal: Option<unsafe extern "C" fn(*mut sqlite3_context)>,
    xValue: Option<unsafe extern "C" fn(*mut sqlite3_context)>,
    xInverse: Option<unsafe extern "C" fn(*mut sqlite3_context, c_int, *mut *mut sqlite3_value)>,
    xDestroy: Option<unsafe extern "C" fn(*mut c_void)>,
) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed; `zFunctionName` is NULL or NUL-terminated (or readable for the length
    // given with it); `pApp` is NULL or valid for what the API does with it (read for the length given, or
    // handed back to callbacks untouched); `xStep`, `xFinal`, `xValue`, `xInverse`, `xDestroy`, when set, are
    // safe to call with the arguments the API documents until unregistered.
    unsafe {
        ffi_guard!(SQLITE_INTERNAL, {
            let spec = FunctionSpec {
                name: name_of(zFunctionName),
                n_arg: nArg,
                text_rep: eTextRep,
                user_data: pApp,
                x_func: None,
                x_step: xStep,
                x_final: xFinal,
                x_value: xValue,
                x_inverse: xInverse,
                x_destroy: xDestroy,
            };
            create_function(db, spec)
        })
    }
}

unsafe fn ctx<'a>(p: *mut sqlite3_context) -> Option<&'a mut sqlite3_context> {
    // SAFETY: the caller guarantees: `p` is the context of the function call in progress.
    unsafe {
        if p.is_null() {
            None
        } else {
            Some(&mut *p)
        }
    }
}

/// Memory of `nBytes` zeroed bytes private to this aggregate's current group,
/// allocated on the first call and the same pointer afterwards. With
/// `nBytes` <= 0 before any allocation it returns NULL.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_aggregate_context(pCtx: *mut sqlite3_context, nBytes: c_int) -> *mut c_void {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pCtx` is the context of the
    // function call in progress.
    unsafe {
        ffi_guard!(std::ptr::null_mut(), {
            let Some(c) = ctx(pCtx) else {
                return std::ptr::null_mut();
            };
            if c.agg_slot.is_null() {
                return std::ptr::null_mut();
            }
            let slot = &mut *c.agg_slot;
            if slot.is_null() && nBytes > 0 {
                let p = crate::memory::sqlite3_malloc(nBytes);
                if !p.is_null() {
                    std::ptr::write_bytes(p as *mut u8, 0, nBytes as usize);
                }
                *slot = p;
            }
            *slot
        })
    }
}

/// The `pApp` pointer the running function was registered with.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_user_data(pCtx: *mut sqlite3_context) -> *mut c_void {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pCtx` is the context of the
    // function call in progress.
    unsafe {
        ffi_guard!(std::ptr::null_mut(), {
            match ctx(pCtx) {
                Some(c) if !c.func.is_null() => (*c.func).user_data,
                _ => std::ptr::null_mut(),
            }
        })
    }
}

/// The connection the running function was called on.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_context_db_handle(pCtx: *mut sqlite3_context) -> *mut sqlite3 {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pCtx` is the context of the
    // function call in progress.
    unsafe {
        ffi_guard!(std::ptr::null_mut(), {
            match ctx(pCtx) {
                Some(c) if !c.func.is_null() => (*c.func).db,
                _ => std::ptr::null_mut(),
            }
        })
    }
}

fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Integer(x), Value::Integer(y)) => x == y,
        (Value::Real(x), Value::Real(y)) => x.to_bits() == y.to_bits(),
        (Value::Text(x), Value::Text(y)) | (Value::Blob(x), Value::Blob(y)) => x == y,
        (Value::ZeroBlob(_) | Value::Blob(_), Value::ZeroBlob(_) | Value::Blob(_)) => a.as_ref().to_text() == b.as_ref().to_text(),
        _ => false,
    }
}

/// The data attached with sqlite3_set_auxdata to argument `N` of the running
/// function, if that argument is still the same constant; NULL otherwise.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_get_auxdata(pCtx: *mut sqlite3_context, N: c_int) -> *mut c_void {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pCtx` is the context of the
    // function call in progress.
    unsafe {
        ffi_guard!(std::ptr::null_mut(), {
            let Some(c) = ctx(pCtx) else {
                return std::ptr::null_mut();
            };
            if c.func.is_null() || N < 0 {
                return std::ptr::null_mut();
            }
            let args = &*c.args;
            let Some(arg) = args.get(N as usize) else {
                return std::ptr::null_mut();
            };
            let aux = (*c.func).auxdata.lock().unwrap_or_else(|e| e.into_inner());
            aux.iter().find(|e| e.arg == N && same_value(&e.value, arg)).map_or(std::ptr::null_mut(), |e| e.data)
        })
    }
}

/// Attach `pAux` to argument `N` of the running function for later calls with
/// the same constant argument; `xDelete` is called on it when it is dropped.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_set_auxdata(pCtx: *mut sqlite3_context, N: c_int, pAux: *mut c_void, xDelete: Option<unsafe extern "C" fn(*mut c_void)>) {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pCtx` is the context of the
    // function call in progress; `pAux` is NULL or valid for what the API does with it (read for the length
    // given, or handed back to callbacks untouched); `xDelete`, when set, is safe to call with the arguments
    // the API documents until unregistered.
    unsafe {
        ffi_guard!((), {
            let Some(c) = ctx(pCtx) else { return };
            let args = &*c.args;
            let arg = if N >= 0 { args.get(N as usize) } else { None };
            let (Some(arg), false) = (arg, c.func.is_null()) else {
                if let Some(d) = xDelete {
                    d(pAux);
                }
                return;
            };
            let stmt = crate::handle::db_ref_any((*c.func).db).map_or(0, |d| d.current_stmt.get() as usize);
            if stmt != 0 {
                note_aux_holder(stmt, c.func);
            }
            let replaced = {
                let mut aux = (*c.func).auxdata.lock().unwrap_or_else(|e| e.into_inner());
                let old = aux.iter().position(|e| e.arg == N).map(|pos| aux.remove(pos));
                aux.push(AuxEntry { arg: N, value: arg.clone(), data: pAux, destroy: xDelete, stmt });
                old
            };
            if let Some(e) = replaced {
                e.release();
            }
        })
    }
}

/// Deprecated: the number of rows the current aggregate has stepped over.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_aggregate_count(pCtx: *mut sqlite3_context) -> c_int {
    ffi_guard!(0, {
        let _ = pCtx;
        0
    })
}

/// Make sure a function `zFuncName` with `nArg` arguments exists, so that a
/// virtual table may overload it; if none does, one that raises an error is
/// registered. Returns SQLITE_OK.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_overload_function(db: *mut sqlite3, zFuncName: *const c_char, nArg: c_int) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed; `zFuncName` is NULL or NUL-terminated (or readable for the length
    // given with it).
    unsafe {
        ffi_guard!(SQLITE_INTERNAL, {
            let Some(d) = db_ref(db) else { return misuse() };
            if zFuncName.is_null() || nArg < -2 {
                return misuse();
            }
            let _g = d.lock.lock();
            // As SQLite: a function that already answers this name and count
            // stays; otherwise a placeholder that refuses to run, which a
            // virtual table's xFindFunction may stand in for.
            // The lookup runs a statement; the error state stays as it was.
            let saved = std::mem::take(&mut *d.error.borrow_mut());
            let exists = function_exists(db, zFuncName, nArg);
            *d.error.borrow_mut() = saved;
            if exists {
                return SQLITE_OK;
            }
            let name = CStr::from_ptr(zFuncName).to_bytes();
            create_function(
                db,
                FunctionSpec {
                    name: name_of(zFuncName),
                    n_arg: nArg,
                    text_rep: SQLITE_UTF8,
                    user_data: crate::memory::malloc_cstr(name) as *mut c_void,
                    x_func: Some(invalid_function),
                    x_step: None,
                    x_final: None,
                    x_value: None,
                    x_inverse: None,
                    x_destroy: Some(crate::memory::sqlite3_free),
                },
            )
        })
    }
}

/// Whether a function (application-defined or built in) answers `name`
/// with `n_arg` arguments, exactly or taking any number: the lookup
/// `sqlite3_overload_function` makes. Asked through the connection's
/// `pragma_function_list`, which lists both kinds.
unsafe fn function_exists(db: *mut sqlite3, name: *const c_char, n_arg: c_int) -> bool {
    // SAFETY: the caller guarantees: `db` is NULL or a connection this library opened and has not freed;
    // `name` is NULL or NUL-terminated (or readable for the length given with it).
    unsafe {
        let sql = c"SELECT 1 FROM pragma_function_list WHERE lower(name) = lower(?1) AND narg IN (?2, -1)";
        let mut st = std::ptr::null_mut();
        if crate::prepare::sqlite3_prepare_v2(db, sql.as_ptr(), -1, &mut st, std::ptr::null_mut()) != SQLITE_OK {
            return false;
        }
        crate::bind::sqlite3_bind_text(st, 1, name, -1, None);
        crate::bind::sqlite3_bind_int(st, 2, n_arg);
        let found = crate::step::sqlite3_step(st) == SQLITE_ROW;
        crate::step::sqlite3_finalize(st);
        found
    }
}

/// The placeholder `sqlite3_overload_function` registers; its user data is
/// the function's name.
unsafe extern "C" fn invalid_function(ctx: *mut sqlite3_context, _argc: c_int, _argv: *mut *mut sqlite3_value) {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `ctx` is the context of the function
    // call in progress; `_argv` is NULL or writable.
    unsafe {
        let name = sqlite3_user_data(ctx) as *const c_char;
        let name = if name.is_null() { String::new() } else { CStr::from_ptr(name).to_string_lossy().into_owned() };
        let msg = format!("unable to use function {name} in the requested context");
        crate::result::sqlite3_result_error(ctx, cstring(msg).as_ptr(), -1);
    }
}
