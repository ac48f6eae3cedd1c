//! # `fts5_api`: tokenizers and auxiliary functions from C
//!
//! Every connection has the SQL function `fts5(?1)`: given a pointer value
//! of type "fts5_api_ptr" (`sqlite3_bind_pointer`), it writes there the
//! connection's [`fts5_api`], as SQLite's does. What the application
//! registers through it goes into the engine's
//! `ringlite::ext::fts5::extension::Extensions`, behind its safe traits:
//! - a C tokenizer (v1 or v2 methods) is a [`CTokenizerFactory`], its
//!   instances [`CTokenizerInstance`] (xDelete runs when the last table
//!   using one is gone, the user data's xDestroy when the name is
//!   replaced or the connection closes);
//! - xFindTokenizer(_v2) hands out methods of ours over whatever the name
//!   means (a built-in tokenizer or a registered one), so C code can wrap
//!   any tokenizer;
//! - an auxiliary function is a [`CAuxFunction`], called with the
//!   `Fts5ExtensionApi` of `fts5_aux.rs`.
//!
//! Invariant: the `fts5_api` object stays at one address for the life of
//! the `fts5` function (the connection's), so pointers handed out stay
//! valid; so do the user-data objects of found tokenizers.

use crate::consts::*;
use crate::fts5_abi::*;
use crate::function::{sqlite3_context, CFunction};
use crate::handle::sqlite3;
use crate::value::sqlite3_value;
use ringlite::ext::fts5::extension::{AuxFunction, AuxRow, CustomTokenizer, EmitToken, Extensions, TokenizerFactory};
use ringlite::ext::fts5::tokenizer::{constructor_error, Tokenizer};
use ringlite::value::Value;
use ringlite::vdbe::func::{FuncDef, FuncFlags, FuncKind, FunctionContext, ScalarFunction};
use ringlite::{Error, Result};
use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::{Arc, Mutex};

type XDestroy = Option<unsafe extern "C" fn(*mut c_void)>;

/// The connection's `fts5_api` and what it needs.
#[repr(C)]
struct ApiObject {
    /// First, so that a `*mut fts5_api` is a `*mut ApiObject`.
    base: fts5_api,
    db: *mut sqlite3,
    ext: Arc<Extensions>,
    /// User data handed out by xFindTokenizer(_v2), kept until close
    /// (boxed: C holds pointers to them while the vector grows).
    #[allow(clippy::vec_box, reason = "C holds pointers to the boxed values: they must not move when the vector grows")]
    found: Mutex<Vec<Box<FoundTokenizer>>>,
    /// Registered tokenizers whose methods were handed out, kept so the
    /// methods stay where they were.
    keep: Mutex<Vec<Arc<dyn TokenizerFactory>>>,
}

// Used only under the connection's lock, like the handle it points to.
unsafe impl Send for ApiObject {}
unsafe impl Sync for ApiObject {}

/// The SQL function `fts5(ptr)`.
struct Fts5Func(Box<ApiObject>);

impl ScalarFunction for Fts5Func {
    fn call(&self, _ctx: &mut FunctionContext<'_>, args: &[Value]) -> Result<Value> {
        let Some(v) = args.first() else { return Ok(Value::Null) };
        let p = unsafe { crate::pointer::pointer_of(v, c"fts5_api_ptr".as_ptr()) } as *mut *const fts5_api;
        if !p.is_null() {
            unsafe { *p = &self.0.base };
        }
        Ok(Value::Null)
    }
}

/// Give the connection of `db` its `fts5()` function.
pub unsafe fn register(db: *mut sqlite3) {
    // SAFETY: the caller guarantees: `db` is NULL or a connection this library opened and has not freed.
    unsafe {
        let Some(d) = crate::handle::db_ref_any(db) else { return };
        let mut guard = d.conn.borrow_mut();
        let Some(conn) = guard.as_mut() else { return };
        let api = Box::new(ApiObject {
            base: fts5_api {
                iVersion: 3,
                xCreateTokenizer: Some(create_tokenizer),
                xFindTokenizer: Some(find_tokenizer),
                xCreateFunction: Some(create_function),
                xCreateTokenizer_v2: Some(create_tokenizer_v2),
                xFindTokenizer_v2: Some(find_tokenizer_v2),
            },
            db,
            ext: conn.extension_state::<ringlite::ext::fts5::extension::Extensions>(),
            found: Mutex::new(Vec::new()),
            keep: Mutex::new(Vec::new()),
        });
        let def = FuncDef { name: "fts5".into(), n_args: 1, flags: FuncFlags::default(), kind: FuncKind::Scalar(Arc::new(Fts5Func(api))) };
        let _ = conn.create_function(def);
    }
}

unsafe fn api_of<'a>(p: *mut fts5_api) -> Option<&'a ApiObject> {
    // SAFETY: the caller guarantees: `p` is NULL or writable.
    unsafe { (p as *const ApiObject).as_ref() }
}

unsafe fn name_of(z: *const c_char) -> Option<String> {
    // SAFETY: the caller guarantees: `z` is NULL or NUL-terminated (or readable for the length given with
    // it).
    unsafe { (!z.is_null()).then(|| String::from_utf8_lossy(CStr::from_ptr(z).to_bytes()).into_owned()) }
}

unsafe fn put_out<T>(out: *mut T, v: T) {
    // SAFETY: the caller guarantees: `out` is NULL or a live `T` this library or SQLite's API contract
    // provides.
    unsafe {
        if !out.is_null() {
            *out = v;
        }
    }
}

unsafe fn release(d: XDestroy, p: *mut c_void) {
    // SAFETY: the caller guarantees: `p` is NULL or valid for what the API does with it (read for the length
    // given, or handed back to callbacks untouched).
    unsafe {
        if let Some(f) = d {
            f(p);
        }
    }
}

// ---- tokenizers registered from C ----

/// A tokenizer's C methods.
#[derive(Clone, Copy)]
enum CMethods {
    V1(fts5_tokenizer),
    V2(fts5_tokenizer_v2),
}

/// A tokenizer registered with xCreateTokenizer(_v2).
struct CTokenizerFactory {
    methods: CMethods,
    user: *mut c_void,
    destroy: XDestroy,
}

unsafe impl Send for CTokenizerFactory {}
unsafe impl Sync for CTokenizerFactory {}

impl Drop for CTokenizerFactory {
    fn drop(&mut self) {
        unsafe { release(self.destroy, self.user) };
    }
}

impl TokenizerFactory for CTokenizerFactory {
    fn create(&self, args: &[String]) -> Result<Arc<dyn CustomTokenizer>> {
        let owned: Vec<Vec<u8>> = args.iter().map(|a| a.bytes().chain([0]).collect()).collect();
        let mut argv: Vec<*const c_char> = owned.iter().map(|a| a.as_ptr() as *const c_char).collect();
        let x_create = match self.methods {
            CMethods::V1(m) => m.xCreate,
            CMethods::V2(m) => m.xCreate,
        };
        let Some(x_create) = x_create else { return Err(constructor_error()) };
        let mut inst: *mut Fts5Tokenizer = std::ptr::null_mut();
        let rc = unsafe { x_create(self.user, crate::c_array::callback_array(&mut argv), argv.len() as c_int, &mut inst) };
        if rc != SQLITE_OK {
            return Err(constructor_error());
        }
        Ok(Arc::new(CTokenizerInstance { methods: self.methods, inst }))
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// An instance a C tokenizer's xCreate made.
struct CTokenizerInstance {
    methods: CMethods,
    inst: *mut Fts5Tokenizer,
}

unsafe impl Send for CTokenizerInstance {}
unsafe impl Sync for CTokenizerInstance {}

impl Drop for CTokenizerInstance {
    fn drop(&mut self) {
        let x_delete = match self.methods {
            CMethods::V1(m) => m.xDelete,
            CMethods::V2(m) => m.xDelete,
        };
        if let Some(d) = x_delete {
            unsafe { d(self.inst) };
        }
    }
}

/// What a C tokenizer's xToken callback reaches: the engine's sink and
/// the first error it gave.
struct EmitState<'a, 'b> {
    emit: &'a mut EmitToken<'b>,
    err: Option<Error>,
}

unsafe extern "C" fn emit_trampoline(ctx: *mut c_void, tflags: c_int, tok: *const c_char, n: c_int, start: c_int, end: c_int) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `tok` is NULL or NUL-terminated (or
    // readable for the length given with it); `ctx` is NULL or valid for what the API does with it (read for
    // the length given, or handed back to callbacks untouched).
    unsafe {
        crate::ffi_guard!(SQLITE_ERROR, {
            let st = &mut *(ctx as *mut EmitState<'_, '_>);
            let bytes = if tok.is_null() || n <= 0 { &[][..] } else { std::slice::from_raw_parts(tok as *const u8, n as usize) };
            match (st.emit)(bytes, start.max(0) as usize, end.max(0) as usize, tflags & FTS5_TOKEN_COLOCATED != 0) {
                Ok(()) => SQLITE_OK,
                Err(e) => {
                    let rc = if e.code == SQLITE_OK { SQLITE_ERROR } else { e.code };
                    st.err = Some(e);
                    rc
                }
            }
        })
    }
}

impl CustomTokenizer for CTokenizerInstance {
    fn tokenize(&self, text: &[u8], reason: i32, locale: Option<&[u8]>, emit: &mut EmitToken<'_>) -> Result<()> {
        let mut st = EmitState { emit, err: None };
        let ctx = &mut st as *mut EmitState<'_, '_> as *mut c_void;
        let (zt, nt) = (text.as_ptr() as *const c_char, text.len() as c_int);
        let rc = unsafe {
            match self.methods {
                CMethods::V1(m) => match m.xTokenize {
                    Some(f) => f(self.inst, ctx, reason, zt, nt, Some(emit_trampoline)),
                    None => SQLITE_ERROR,
                },
                CMethods::V2(m) => match m.xTokenize {
                    Some(f) => {
                        let (zl, nl) = locale.map_or((std::ptr::null(), 0), |l| (l.as_ptr() as *const c_char, l.len() as c_int));
                        f(self.inst, ctx, reason, zt, nt, zl, nl, Some(emit_trampoline))
                    }
                    None => SQLITE_ERROR,
                },
            }
        };
        if let Some(e) = st.err {
            return Err(e);
        }
        if rc != SQLITE_OK {
            return Err(Error::code(rc));
        }
        Ok(())
    }
}

unsafe fn add_tokenizer(p_api: *mut fts5_api, z_name: *const c_char, user: *mut c_void, methods: CMethods, destroy: XDestroy) -> c_int {
    // SAFETY: the caller guarantees: `z_name` is NULL or NUL-terminated (or readable for the length given
    // with it); `user` is NULL or valid for what the API does with it (read for the length given, or handed
    // back to callbacks untouched); `p_api` is NULL or writable.
    unsafe {
        let (Some(api), Some(name)) = (api_of(p_api), name_of(z_name)) else {
            release(destroy, user);
            return SQLITE_MISUSE;
        };
        api.ext.add_tokenizer(&name, Arc::new(CTokenizerFactory { methods, user, destroy }));
        SQLITE_OK
    }
}

unsafe extern "C" fn create_tokenizer(p_api: *mut fts5_api, z_name: *const c_char, user: *mut c_void, tok: *mut fts5_tokenizer, destroy: XDestroy) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `z_name` is NULL or NUL-terminated
    // (or readable for the length given with it); `user` is NULL or valid for what the API does with it (read
    // for the length given, or handed back to callbacks untouched); `p_api`, `tok` are NULL or writable.
    unsafe {
        crate::ffi_guard!(SQLITE_ERROR, {
            let Some(m) = tok.as_ref() else {
                return SQLITE_MISUSE;
            };
            add_tokenizer(p_api, z_name, user, CMethods::V1(*m), destroy)
        })
    }
}

unsafe extern "C" fn create_tokenizer_v2(
    p_api: *mut fts5_api,
    z_name: *const c_char,
    user: *mut c_void,
    tok: *mut fts5_tokenizer_v2,
    destroy: XDestroy,
) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `z_name` is NULL or NUL-terminated
    // (or readable for the length given with it); `user` is NULL or valid for what the API does with it (read
    // for the length given, or handed back to callbacks untouched); `p_api`, `tok` are NULL or writable.
    unsafe {
        crate::ffi_guard!(SQLITE_ERROR, {
            let Some(m) = tok.as_ref() else {
                return SQLITE_MISUSE;
            };
            // Versions after 2 may have members this library does not know.
            if m.iVersion > 2 {
                return SQLITE_ERROR;
            }
            add_tokenizer(p_api, z_name, user, CMethods::V2(*m), destroy)
        })
    }
}

// ---- tokenizers found from C ----

/// The user data of a tokenizer handed out by xFindTokenizer(_v2): the
/// name and the registry to build it from.
struct FoundTokenizer {
    name: String,
    ext: Arc<Extensions>,
}

const BUILTIN_TOKENIZERS: [&str; 4] = ["unicode61", "ascii", "porter", "trigram"];

/// Our user data for tokenizer `z_name` (NULL: the default), or NULL when
/// there is no such tokenizer.
unsafe fn find(p_api: *mut fts5_api, z_name: *const c_char) -> *mut c_void {
    // SAFETY: the caller guarantees: `z_name` is NULL or NUL-terminated (or readable for the length given
    // with it); `p_api` is NULL or writable.
    unsafe {
        let Some(api) = api_of(p_api) else { return std::ptr::null_mut() };
        let name = name_of(z_name).unwrap_or_else(|| "unicode61".into());
        let known = api.ext.tokenizer(&name).is_some() || BUILTIN_TOKENIZERS.iter().any(|b| b.eq_ignore_ascii_case(&name));
        if !known {
            return std::ptr::null_mut();
        }
        let f = Box::new(FoundTokenizer { name, ext: api.ext.clone() });
        let p = &*f as *const FoundTokenizer as *mut c_void;
        api.found.lock().unwrap_or_else(|e| e.into_inner()).push(f);
        p
    }
}

/// The C tokenizer registered as `z_name`, if that is what the name means.
unsafe fn registered<'a>(p_api: *mut fts5_api, z_name: *const c_char) -> Option<(&'a ApiObject, Arc<dyn TokenizerFactory>)> {
    // SAFETY: the caller guarantees: `z_name` is NULL or NUL-terminated (or readable for the length given
    // with it); `p_api` is NULL or writable.
    unsafe {
        let api = api_of(p_api)?;
        let f = api.ext.tokenizer(&name_of(z_name)?)?;
        f.as_any().is::<CTokenizerFactory>().then_some((api, f))
    }
}

unsafe extern "C" fn find_tokenizer(p_api: *mut fts5_api, z_name: *const c_char, pp_user: *mut *mut c_void, out: *mut fts5_tokenizer) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `z_name` is NULL or NUL-terminated
    // (or readable for the length given with it); `p_api`, `pp_user`, `out` are NULL or writable.
    unsafe {
        crate::ffi_guard!(SQLITE_ERROR, {
            // A v1 tokenizer from C is handed back as registered, as SQLite does.
            if let Some((_, f)) = registered(p_api, z_name) {
                if let Some(cf) = f.as_any().downcast_ref::<CTokenizerFactory>() {
                    if let CMethods::V1(m) = cf.methods {
                        put_out(pp_user, cf.user);
                        if let Some(o) = out.as_mut() {
                            *o = m;
                        }
                        return SQLITE_OK;
                    }
                }
            }
            let user = find(p_api, z_name);
            if !pp_user.is_null() {
                *pp_user = user;
            }
            if let Some(o) = out.as_mut() {
                *o = if user.is_null() { fts5_tokenizer { xCreate: None, xDelete: None, xTokenize: None } } else { FOUND_V1 };
            }
            if user.is_null() {
                SQLITE_ERROR
            } else {
                SQLITE_OK
            }
        })
    }
}

unsafe extern "C" fn find_tokenizer_v2(p_api: *mut fts5_api, z_name: *const c_char, pp_user: *mut *mut c_void, pp_out: *mut *mut fts5_tokenizer_v2) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `z_name` is NULL or NUL-terminated
    // (or readable for the length given with it); `p_api`, `pp_user`, `pp_out` are NULL or writable.
    unsafe {
        crate::ffi_guard!(SQLITE_ERROR, {
            // A v2 tokenizer from C is handed back as registered (its methods
            // stay where the registry keeps them until the connection closes).
            if let Some((api, f)) = registered(p_api, z_name) {
                if let Some(cf) = f.as_any().downcast_ref::<CTokenizerFactory>() {
                    if let CMethods::V2(m) = &cf.methods {
                        put_out(pp_user, cf.user);
                        put_out(pp_out, m as *const fts5_tokenizer_v2 as *mut fts5_tokenizer_v2);
                        api.keep.lock().unwrap_or_else(|e| e.into_inner()).push(f.clone());
                        return SQLITE_OK;
                    }
                }
            }
            let user = find(p_api, z_name);
            if !pp_user.is_null() {
                *pp_user = user;
            }
            if !pp_out.is_null() {
                *pp_out = if user.is_null() { std::ptr::null_mut() } else { &FOUND_V2 as *const fts5_tokenizer_v2 as *mut fts5_tokenizer_v2 };
            }
            if user.is_null() {
                SQLITE_ERROR
            } else {
                SQLITE_OK
            }
        })
    }
}

static FOUND_V1: fts5_tokenizer = fts5_tokenizer { xCreate: Some(found_create), xDelete: Some(found_delete), xTokenize: Some(found_tokenize) };
// Observed: SQLite reports version 0 for the methods xFindTokenizer_v2 hands
// out over a built-in or version-1 tokenizer.
static FOUND_V2: fts5_tokenizer_v2 =
    fts5_tokenizer_v2 { iVersion: 0, xCreate: Some(found_create), xDelete: Some(found_delete), xTokenize: Some(found_tokenize_v2) };

unsafe extern "C" fn found_create(user: *mut c_void, az_arg: *mut *const c_char, n_arg: c_int, pp_out: *mut *mut Fts5Tokenizer) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `user` is NULL or valid for what the
    // API does with it (read for the length given, or handed back to callbacks untouched); `az_arg`, `pp_out`
    // are NULL or writable.
    unsafe {
        crate::ffi_guard!(SQLITE_ERROR, {
            let Some(f) = (user as *const FoundTokenizer).as_ref() else {
                return SQLITE_MISUSE;
            };
            let mut words = vec![f.name.clone()];
            for i in 0..n_arg.max(0) as usize {
                let a = *az_arg.add(i);
                words.push(name_of(a).unwrap_or_default());
            }
            match Tokenizer::build(&words, &|name| f.ext.tokenizer(name)) {
                Ok(t) => {
                    if !pp_out.is_null() {
                        *pp_out = Box::into_raw(Box::new(t)) as *mut Fts5Tokenizer;
                    }
                    SQLITE_OK
                }
                Err(_) => SQLITE_ERROR,
            }
        })
    }
}

unsafe extern "C" fn found_delete(p: *mut Fts5Tokenizer) {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `p` is NULL or a live
    // `Fts5Tokenizer` this library or SQLite's API contract provides.
    unsafe {
        crate::ffi_guard!((), {
            if !p.is_null() {
                drop(Box::from_raw(p as *mut Tokenizer));
            }
        })
    }
}

unsafe fn found_run(
    p: *mut Fts5Tokenizer,
    ctx: *mut c_void,
    flags: c_int,
    text: *const c_char,
    n: c_int,
    locale: Option<&[u8]>,
    x_token: fts5_token_callback,
) -> c_int {
    // SAFETY: the caller guarantees: `p` is NULL or a live `Fts5Tokenizer` this library or SQLite's API
    // contract provides; `text` is NULL or NUL-terminated (or readable for the length given with it); `ctx`
    // is NULL or valid for what the API does with it (read for the length given, or handed back to callbacks
    // untouched).
    unsafe {
        let Some(t) = (p as *const Tokenizer).as_ref() else {
            return SQLITE_MISUSE;
        };
        tokenize_to_c(t, text, n, flags, locale, ctx, x_token)
    }
}

/// Run `t` over the C text `text` (`n` bytes) and report each token to
/// the application's callback `x_token` as FTS5 does (`ctx` first, the
/// colocated flag, the token, its byte range); a callback's non-OK code
/// stops the walk and is returned. Shared by a found tokenizer's
/// xTokenize and an auxiliary function's xTokenize.
pub(crate) unsafe fn tokenize_to_c(
    t: &Tokenizer,
    text: *const c_char,
    n: c_int,
    flags: c_int,
    locale: Option<&[u8]>,
    ctx: *mut c_void,
    x_token: fts5_token_callback,
) -> c_int {
    // SAFETY: the caller guarantees: `text` is NULL or NUL-terminated (or readable for the length given with
    // it); `ctx` is NULL or valid for what the API does with it (read for the length given, or handed back to
    // callbacks untouched).
    unsafe {
        let Some(x) = x_token else { return SQLITE_MISUSE };
        let bytes = if text.is_null() || n <= 0 { &[][..] } else { std::slice::from_raw_parts(text as *const u8, n as usize) };
        let r = t.tokenize_each(bytes, flags, locale, &mut |tok, start, end, colocated| {
            let rc = x(ctx, if colocated { FTS5_TOKEN_COLOCATED } else { 0 }, tok.as_ptr() as *const c_char, tok.len() as c_int, start as c_int, end as c_int);
            if rc == SQLITE_OK {
                Ok(())
            } else {
                Err(Error::code(rc))
            }
        });
        match r {
            Ok(()) => SQLITE_OK,
            Err(e) if e.code == SQLITE_OK => SQLITE_ERROR,
            Err(e) => e.code,
        }
    }
}

unsafe extern "C" fn found_tokenize(
    p: *mut Fts5Tokenizer,
    ctx: *mut c_void,
    flags: c_int,
    text: *const c_char,
    n: c_int,
    x_token: fts5_token_callback,
) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `p` is NULL or a live
    // `Fts5Tokenizer` this library or SQLite's API contract provides; `text` is NULL or NUL-terminated (or
    // readable for the length given with it); `ctx` is NULL or valid for what the API does with it (read for
    // the length given, or handed back to callbacks untouched).
    unsafe { crate::ffi_guard!(SQLITE_ERROR, { found_run(p, ctx, flags, text, n, None, x_token) }) }
}

#[allow(clippy::too_many_arguments, reason = "the C signature of `fts5_tokenizer_v2::xTokenize`")]
unsafe extern "C" fn found_tokenize_v2(
    p: *mut Fts5Tokenizer,
    ctx: *mut c_void,
    flags: c_int,
    text: *const c_char,
    n: c_int,
    locale: *const c_char,
    n_locale: c_int,
    x_token: fts5_token_callback,
) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `p` is NULL or a live
    // `Fts5Tokenizer` this library or SQLite's API contract provides; `text`, `locale` are NULL or
    // NUL-terminated (or readable for the length given with them); `ctx` is NULL or valid for what the API
    // does with it (read for the length given, or handed back to callbacks untouched).
    unsafe {
        crate::ffi_guard!(SQLITE_ERROR, {
            let loc = (!locale.is_null() && n_locale > 0).then(|| std::slice::from_raw_parts(locale as *const u8, n_locale as usize));
            found_run(p, ctx, flags, text, n, loc, x_token)
        })
    }
}

// ---- auxiliary functions ----

/// An auxiliary function registered with xCreateFunction.
struct CAuxFunction {
    x: unsafe extern "C" fn(*const Fts5ExtensionApi, *mut Fts5Context, *mut sqlite3_context, c_int, *mut *mut sqlite3_value),
    user: *mut c_void,
    destroy: XDestroy,
    /// What `sqlite3_context_db_handle` answers during the call.
    func: CFunction,
}

unsafe impl Send for CAuxFunction {}
unsafe impl Sync for CAuxFunction {}

impl Drop for CAuxFunction {
    fn drop(&mut self) {
        unsafe { release(self.destroy, self.user) };
    }
}

impl AuxFunction for CAuxFunction {
    fn call(&self, fctx: &mut FunctionContext<'_>, row: AuxRow<'_>, args: &[Value]) -> Result<Value> {
        let mut ctx = sqlite3_context::new(&self.func, std::ptr::null_mut(), args);
        let mut argv = crate::function::call_args(args, &[], &[]);
        let mut ptrs: Vec<*mut sqlite3_value> = argv.iter_mut().map(|a| a as *mut _).collect();
        let mut fts = Fts5Context::new(row, self.user);
        let x = self.x;
        crate::function::with_counters(&self.func, fctx, || unsafe {
            x(&crate::fts5_aux::EXTENSION_API, &mut fts, &mut ctx, ptrs.len() as c_int, crate::c_array::callback_array(&mut ptrs));
        });
        drop(fts);
        ctx.outcome(fctx)
    }
}

unsafe extern "C" fn create_function(p_api: *mut fts5_api, z_name: *const c_char, user: *mut c_void, x: fts5_extension_function, destroy: XDestroy) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `z_name` is NULL or NUL-terminated
    // (or readable for the length given with it); `user` is NULL or valid for what the API does with it (read
    // for the length given, or handed back to callbacks untouched); `p_api` is NULL or writable.
    unsafe {
        crate::ffi_guard!(SQLITE_ERROR, {
            let (Some(api), Some(name), Some(x)) = (api_of(p_api), name_of(z_name), x) else {
                release(destroy, user);
                return SQLITE_MISUSE;
            };
            // As SQLite: the name is known to SQL, failing outside an fts5 table.
            let rc = crate::function::sqlite3_overload_function(api.db, z_name, -1);
            if rc != SQLITE_OK {
                release(destroy, user);
                return rc;
            }
            let func = CFunction::for_vtab(api.db, user, None);
            api.ext.add_function(&name, Arc::new(CAuxFunction { x, user, destroy, func }));
            SQLITE_OK
        })
    }
}
