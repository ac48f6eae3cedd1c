//! # Virtual tables written in C: `sqlite3_module` as an engine module
//!
//! `sqlite3_create_module[_v2]` registers a [`CModule`] wrapping the
//! application's `sqlite3_module`; the engine calls it through the traits
//! of `ringlite::vtab`, and each call reaches the C method with the
//! connection lent (`handle::lend_to_callback`), so the method may run SQL
//! on its own connection, as SQLite allows; xBestIndex too, while the
//! statement it plans is compiled (the compile reads snapshots of the
//! schema and the registries, see `connection/prepare.rs`).
//!
//! Errors: a method's return code becomes the engine error, with the
//! message the method left in `pVtab->zErrMsg` (freed and cleared here, as
//! SQLite does) or SQLite's text for the code.
//!
//! Lifetimes: the module's destructor (`xDestroy` of `_v2`) runs when the
//! module is replaced or dropped and no table uses it any more, or at once
//! when registration fails; a table's `xDisconnect` runs when the engine
//! drops its last reference (schema change, close), unless `xDestroy` ran
//! (DROP TABLE); a cursor's `xClose` when the VM closes it.
//!
//! Invariant: the `sqlite3` a module was registered on outlives every call
//! into it (the engine connection, which owns the registry, lives inside
//! that handle).

use crate::abi::{sqlite3_module, sqlite3_vtab, sqlite3_vtab_cursor};
use crate::consts::*;
use crate::function::{sqlite3_context, CFunction};
use crate::handle::{db_ref, lend_to_callback, sqlite3};
use crate::types::sqlite3_int64;
use crate::value::sqlite3_value;
use ringlite::error::Error;
use ringlite::value::Value;
use ringlite::vdbe::host::VmHost;
use ringlite::vtab::{ColumnContext, Connected, IndexInfo, Module, ModuleKind, VTab, VTabCursor, VtabConfig};
use std::cell::RefCell;
use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::sync::Arc;

type XDestroy = unsafe extern "C" fn(*mut c_void);

/// A module registered from C.
pub struct CModule {
    db: *mut sqlite3,
    module: *const sqlite3_module,
    aux: *mut c_void,
    destroy: Option<XDestroy>,
}

// Called only under the connection's lock, by the thread holding it.
unsafe impl Send for CModule {}
unsafe impl Sync for CModule {}

impl Drop for CModule {
    fn drop(&mut self) {
        if let Some(d) = self.destroy {
            unsafe { d(self.aux) };
        }
    }
}

thread_local! {
    /// Constructors running (innermost last): the connection, and what
    /// `sqlite3_declare_vtab`/`sqlite3_vtab_config` set during the call.
    static DECLARING: RefCell<Vec<(usize, Option<String>, VtabConfig)>> = const { RefCell::new(Vec::new()) };
    /// The conflict mode of the xUpdate running (`sqlite3_vtab_on_conflict`).
    static ON_CONFLICT: std::cell::Cell<c_int> = const { std::cell::Cell::new(SQLITE_ABORT) };
}

/// The engine error for `rc` from a method of `vtab`: its `zErrMsg`
/// (freed and cleared) or SQLite's text for the code.
unsafe fn vtab_error(vtab: *mut sqlite3_vtab, rc: c_int) -> Error {
    // SAFETY: the caller guarantees: `vtab` is NULL or a live `sqlite3_vtab` this library or SQLite's API
    // contract provides.
    unsafe {
        let mut message = None;
        if !vtab.is_null() && !(*vtab).zErrMsg.is_null() {
            message = Some(CStr::from_ptr((*vtab).zErrMsg).to_string_lossy().into_owned());
            crate::memory::sqlite3_free((*vtab).zErrMsg as *mut c_void);
            (*vtab).zErrMsg = std::ptr::null_mut();
        }
        match message {
            Some(m) => Error::new(rc, m),
            None => Error::code(rc),
        }
    }
}

/// Run `call` lent `host` when there is one.
unsafe fn lent<T>(db: *mut sqlite3, host: Option<&mut dyn VmHost>, call: impl FnOnce() -> T) -> T {
    // SAFETY: the caller guarantees: `db` is NULL or a connection this library opened and has not freed.
    unsafe {
        match db_ref(db) {
            Some(d) => lend_to_callback(d, host, call),
            None => call(),
        }
    }
}

impl CModule {
    unsafe fn construct(&self, host: &mut dyn VmHost, args: &[String], create: bool) -> ringlite::Result<Connected> {
        // SAFETY: the caller guarantees: `self.module` is the `sqlite3_module` the application registered,
        // alive while the module is; its callbacks get the connection handle and pointers valid for the call.
        unsafe {
            let m = &*self.module;
            let x = if create { m.xCreate } else { m.xConnect };
            let name = args.get(2).cloned().unwrap_or_default();
            let Some(x) = x else { return Err(Error::sql(format!("no such module: {}", args.first().map_or("", |s| s.as_str())))) };
            let cargs: Vec<CString> = args.iter().map(|a| crate::error::cstring(a.as_bytes().to_vec())).collect();
            let ptrs: Vec<*const c_char> = cargs.iter().map(|c| c.as_ptr()).collect();
            let mut vtab: *mut sqlite3_vtab = std::ptr::null_mut();
            let mut zerr: *mut c_char = std::ptr::null_mut();
            DECLARING.with(|d| d.borrow_mut().push((self.db as usize, None, VtabConfig::default())));
            let rc = lent(self.db, Some(host), || x(self.db, self.aux, ptrs.len() as c_int, ptrs.as_ptr(), &mut vtab, &mut zerr));
            let (schema, config) = DECLARING.with(|d| d.borrow_mut().pop()).map(|(_, s, c)| (s, c)).unwrap_or((None, VtabConfig::default()));
            if rc != SQLITE_OK {
                let msg = if zerr.is_null() {
                    format!("vtable constructor failed: {name}")
                } else {
                    let m = CStr::from_ptr(zerr).to_string_lossy().into_owned();
                    crate::memory::sqlite3_free(zerr as *mut c_void);
                    m
                };
                return Err(Error::new(rc, msg));
            }
            if !zerr.is_null() {
                crate::memory::sqlite3_free(zerr as *mut c_void);
            }
            if vtab.is_null() {
                return Err(Error::sql(format!("vtable constructor failed: {name}")));
            }
            (*vtab).pModule = self.module;
            (*vtab).nRef = 1;
            (*vtab).zErrMsg = std::ptr::null_mut();
            let table = Arc::new(CTable { db: self.db, module: self.module, vtab, destroyed: std::sync::atomic::AtomicBool::new(false) });
            let Some(schema) = schema else {
                // (Dropping the table disconnects it.)
                drop(table);
                return Err(Error::sql(format!("vtable constructor did not declare schema: {name}")));
            };
            Ok(Connected { table, schema, config })
        }
    }
}

impl Module for CModule {
    fn kind(&self) -> ModuleKind {
        let m = unsafe { &*self.module };
        match m.xCreate {
            None => ModuleKind::EponymousOnly,
            Some(c) if m.xConnect.is_some_and(|x| x as usize == c as usize) => ModuleKind::Eponymous,
            Some(_) => ModuleKind::Regular,
        }
    }
    fn create(&self, host: &mut dyn VmHost, args: &[String]) -> ringlite::Result<Connected> {
        unsafe { self.construct(host, args, true) }
    }
    fn connect(&self, host: &mut dyn VmHost, args: &[String]) -> ringlite::Result<Connected> {
        unsafe { self.construct(host, args, false) }
    }
    fn shadow_name(&self, suffix: &str) -> bool {
        let m = unsafe { &*self.module };
        match m.xShadowName {
            Some(f) if m.iVersion >= 3 => {
                let c = crate::error::cstring(suffix.as_bytes().to_vec());
                unsafe { f(c.as_ptr()) != 0 }
            }
            _ => false,
        }
    }
}

/// A table made by a C module.
pub struct CTable {
    db: *mut sqlite3,
    module: *const sqlite3_module,
    vtab: *mut sqlite3_vtab,
    destroyed: std::sync::atomic::AtomicBool,
}

unsafe impl Send for CTable {}
unsafe impl Sync for CTable {}

impl Drop for CTable {
    fn drop(&mut self) {
        if self.destroyed.load(std::sync::atomic::Ordering::Relaxed) {
            return;
        }
        unsafe {
            if let Some(x) = (*self.module).xDisconnect {
                x(self.vtab);
            }
        }
    }
}

impl CTable {
    fn m(&self) -> &sqlite3_module {
        unsafe { &*self.module }
    }

    /// Call a method taking only the table, lent `host`; an absent method
    /// succeeds.
    fn simple(&self, host: &mut dyn VmHost, x: Option<unsafe extern "C" fn(*mut sqlite3_vtab) -> c_int>) -> ringlite::Result<()> {
        let Some(x) = x else { return Ok(()) };
        let rc = unsafe { lent(self.db, Some(host), || x(self.vtab)) };
        if rc != SQLITE_OK {
            return Err(unsafe { vtab_error(self.vtab, rc) });
        }
        Ok(())
    }

    fn numbered(&self, host: &mut dyn VmHost, x: Option<unsafe extern "C" fn(*mut sqlite3_vtab, c_int) -> c_int>, n: i32) -> ringlite::Result<()> {
        if self.m().iVersion < 2 {
            return Ok(());
        }
        let Some(x) = x else { return Ok(()) };
        let rc = unsafe { lent(self.db, Some(host), || x(self.vtab, n)) };
        if rc != SQLITE_OK {
            return Err(unsafe { vtab_error(self.vtab, rc) });
        }
        Ok(())
    }
}

impl VTab for CTable {
    fn best_index(&self, host: Option<&mut dyn VmHost>, info: &mut IndexInfo) -> ringlite::Result<()> {
        let Some(x) = self.m().xBestIndex else { return Ok(()) };
        unsafe { lent(self.db, host, || crate::vtab_index::call_best_index(self.db, self.vtab, x, info)) }
    }
    fn open(&self, host: &mut dyn VmHost) -> ringlite::Result<Box<dyn VTabCursor>> {
        let Some(x) = self.m().xOpen else { return Err(Error::code(SQLITE_ERROR)) };
        let mut cur: *mut sqlite3_vtab_cursor = std::ptr::null_mut();
        let rc = unsafe { lent(self.db, Some(host), || x(self.vtab, &mut cur)) };
        if rc != SQLITE_OK {
            return Err(unsafe { vtab_error(self.vtab, rc) });
        }
        if cur.is_null() {
            return Err(Error::code(SQLITE_ERROR));
        }
        unsafe { (*cur).pVtab = self.vtab };
        Ok(Box::new(CCursor { db: self.db, module: self.module, vtab: self.vtab, cur }))
    }
    fn destroy(&self, host: &mut dyn VmHost) -> ringlite::Result<()> {
        let x = self.m().xDestroy.or(self.m().xDisconnect);
        self.simple(host, x)?;
        self.destroyed.store(true, std::sync::atomic::Ordering::Relaxed);
        Ok(())
    }
    fn writable(&self) -> bool {
        self.m().xUpdate.is_some()
    }
    fn update(&self, host: &mut dyn VmHost, args: &[Value], on_conflict: i32, nochange: &[bool]) -> ringlite::Result<Option<i64>> {
        let Some(x) = self.m().xUpdate else { return Err(Error::code(SQLITE_READONLY)) };
        let mut vals: Vec<sqlite3_value> = args
            .iter()
            .zip(nochange.iter().chain(std::iter::repeat(&false)))
            .map(|(v, nc)| {
                let mut sv = sqlite3_value::new(v.clone());
                sv.nochange = *nc;
                sv
            })
            .collect();
        let mut ptrs: Vec<*mut sqlite3_value> = vals.iter_mut().map(|v| v as *mut _).collect();
        let mut rowid: sqlite3_int64 = 0;
        let outer = ON_CONFLICT.with(|c| c.replace(on_conflict));
        let rc = unsafe { lent(self.db, Some(host), || x(self.vtab, ptrs.len() as c_int, ptrs.as_mut_ptr(), &mut rowid)) };
        ON_CONFLICT.with(|c| c.set(outer));
        if rc != SQLITE_OK {
            return Err(unsafe { vtab_error(self.vtab, rc) });
        }
        // An INSERT (argv[0] NULL) reports the new row's rowid.
        Ok((args.len() > 1 && args[0].is_null()).then_some(rowid))
    }
    fn transactional(&self) -> bool {
        self.m().xBegin.is_some()
    }
    fn begin(&self, host: &mut dyn VmHost) -> ringlite::Result<()> {
        self.simple(host, self.m().xBegin)
    }
    fn sync(&self, host: &mut dyn VmHost) -> ringlite::Result<()> {
        self.simple(host, self.m().xSync)
    }
    fn commit(&self, host: &mut dyn VmHost) -> ringlite::Result<()> {
        self.simple(host, self.m().xCommit)
    }
    fn rollback(&self, host: &mut dyn VmHost) -> ringlite::Result<()> {
        self.simple(host, self.m().xRollback)
    }
    fn savepoint(&self, host: &mut dyn VmHost, n: i32) -> ringlite::Result<()> {
        self.numbered(host, self.m().xSavepoint, n)
    }
    fn release(&self, host: &mut dyn VmHost, n: i32) -> ringlite::Result<()> {
        self.numbered(host, self.m().xRelease, n)
    }
    fn rollback_to(&self, host: &mut dyn VmHost, n: i32) -> ringlite::Result<()> {
        self.numbered(host, self.m().xRollbackTo, n)
    }
    fn can_rename(&self) -> bool {
        self.m().xRename.is_some()
    }
    fn rename(&self, host: &mut dyn VmHost, new_name: &str) -> ringlite::Result<()> {
        let Some(x) = self.m().xRename else { return Ok(()) };
        let c = crate::error::cstring(new_name.as_bytes().to_vec());
        let rc = unsafe { lent(self.db, Some(host), || x(self.vtab, c.as_ptr())) };
        if rc != SQLITE_OK {
            return Err(unsafe { vtab_error(self.vtab, rc) });
        }
        Ok(())
    }
    fn find_function(&self, n_args: i32, name: &str) -> Option<(Arc<ringlite::vdbe::func::FuncDef>, i32)> {
        let x = self.m().xFindFunction?;
        let c = crate::error::cstring(name.as_bytes().to_vec());
        let mut f: Option<crate::function::XFunc> = None;
        let mut arg: *mut c_void = std::ptr::null_mut();
        let r = unsafe { x(self.vtab, n_args, c.as_ptr(), &mut f, &mut arg) };
        if r == 0 {
            return None;
        }
        let f = f?;
        Some((crate::function::overload_def(self.db, name, n_args, f, arg), r))
    }
    fn has_integrity(&self) -> bool {
        self.m().iVersion >= 4 && self.m().xIntegrity.is_some()
    }
    fn integrity(&self, host: &mut dyn VmHost, schema: &str, table: &str, flags: i32) -> ringlite::Result<Option<String>> {
        let Some(x) = self.m().xIntegrity.filter(|_| self.m().iVersion >= 4) else { return Ok(None) };
        let s = crate::error::cstring(schema.as_bytes().to_vec());
        let t = crate::error::cstring(table.as_bytes().to_vec());
        let mut zerr: *mut c_char = std::ptr::null_mut();
        let rc = unsafe { lent(self.db, Some(host), || x(self.vtab, s.as_ptr(), t.as_ptr(), flags, &mut zerr)) };
        let msg = if zerr.is_null() {
            None
        } else {
            let m = unsafe { CStr::from_ptr(zerr) }.to_string_lossy().into_owned();
            unsafe { crate::memory::sqlite3_free(zerr as *mut c_void) };
            Some(m)
        };
        if rc != SQLITE_OK {
            return Err(Error::code(rc));
        }
        Ok(msg)
    }
}

/// A cursor of a C module.
struct CCursor {
    db: *mut sqlite3,
    module: *const sqlite3_module,
    vtab: *mut sqlite3_vtab,
    cur: *mut sqlite3_vtab_cursor,
}

unsafe impl Send for CCursor {}

impl Drop for CCursor {
    fn drop(&mut self) {
        unsafe {
            if let Some(x) = (*self.module).xClose {
                x(self.cur);
            }
        }
    }
}

impl CCursor {
    fn m(&self) -> &sqlite3_module {
        unsafe { &*self.module }
    }
    fn check(&self, rc: c_int) -> ringlite::Result<()> {
        if rc != SQLITE_OK {
            return Err(unsafe { vtab_error(self.vtab, rc) });
        }
        Ok(())
    }
}

impl VTabCursor for CCursor {
    fn filter(&mut self, host: &mut dyn VmHost, idx_num: i32, idx_str: Option<&str>, args: &[Value]) -> ringlite::Result<()> {
        let Some(x) = self.m().xFilter else { return Ok(()) };
        let s = idx_str.map(|s| crate::error::cstring(s.as_bytes().to_vec()));
        let mut vals: Vec<sqlite3_value> = args.iter().map(|v| sqlite3_value::new(v.clone())).collect();
        let mut ptrs: Vec<*mut sqlite3_value> = vals.iter_mut().map(|v| v as *mut _).collect();
        let sp = s.as_ref().map_or(std::ptr::null(), |c| c.as_ptr());
        let rc = unsafe { lent(self.db, Some(host), || x(self.cur, idx_num, sp, ptrs.len() as c_int, crate::c_array::callback_array(&mut ptrs))) };
        self.check(rc)
    }
    fn next(&mut self, host: &mut dyn VmHost) -> ringlite::Result<()> {
        let Some(x) = self.m().xNext else { return Ok(()) };
        let rc = unsafe { lent(self.db, Some(host), || x(self.cur)) };
        self.check(rc)
    }
    fn eof(&mut self) -> bool {
        match self.m().xEof {
            Some(x) => unsafe { x(self.cur) != 0 },
            None => true,
        }
    }
    fn column(&mut self, host: &mut dyn VmHost, ctx: &mut ColumnContext) -> ringlite::Result<Value> {
        let Some(x) = self.m().xColumn else { return Ok(Value::Null) };
        let func = CFunction::for_vtab(self.db, std::ptr::null_mut(), None);
        let mut c = sqlite3_context::new(&func, std::ptr::null_mut(), &[]);
        c.nochange = ctx.nochange;
        let rc = unsafe { lent(self.db, Some(host), || x(self.cur, &mut c, ctx.column as c_int)) };
        if let Some(e) = c.error.take() {
            return Err(e);
        }
        self.check(rc)?;
        ctx.subtype = c.subtype;
        // Still set: the method set no result for an unchanged column.
        ctx.left_unchanged = c.nochange;
        Ok(std::mem::take(&mut c.result))
    }
    fn rowid(&mut self, host: &mut dyn VmHost) -> ringlite::Result<i64> {
        let Some(x) = self.m().xRowid else { return Ok(0) };
        let mut id: sqlite3_int64 = 0;
        let rc = unsafe { lent(self.db, Some(host), || x(self.cur, &mut id)) };
        self.check(rc)?;
        Ok(id)
    }
}

unsafe fn register(db: *mut sqlite3, zName: *const c_char, p: *const sqlite3_module, aux: *mut c_void, destroy: Option<XDestroy>) -> c_int {
    // SAFETY: the caller guarantees: `db` is NULL or a connection this library opened and has not freed; `p`
    // is NULL or a live `sqlite3_module` this library or SQLite's API contract provides; `zName` is NULL or
    // NUL-terminated (or readable for the length given with it); `aux` is NULL or valid for what the API does
    // with it (read for the length given, or handed back to callbacks untouched).
    unsafe {
        let Some(d) = db_ref(db) else {
            if let Some(x) = destroy {
                x(aux);
            }
            return crate::error::misuse();
        };
        let _g = d.lock.lock();
        if zName.is_null() {
            if let Some(x) = destroy {
                x(aux);
            }
            return crate::error::misuse();
        }
        let name = CStr::from_ptr(zName).to_string_lossy().into_owned();
        // A NULL module drops the module of that name (destroying its own
        // client data); the client data passed with it is not SQLite's to
        // destroy (APSW passes NULL there, and its destructor reads it).
        let module: Option<Arc<dyn Module>> = if p.is_null() { None } else { Some(Arc::new(CModule { db, module: p, aux, destroy })) };
        let r = d.with_conn(|c| c.create_module(&name, module)).and_then(|r| r);
        crate::error::finish(d, r)
    }
}

/// `sqlite3_create_module`: register the virtual-table module `zName` on
/// `db` with the methods of `p`; `pClientData` reaches its xCreate and
/// xConnect. A module of the same name is replaced.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_create_module(db: *mut sqlite3, zName: *const c_char, p: *const sqlite3_module, pClientData: *mut c_void) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed; `p` is NULL or a live `sqlite3_module` this library or SQLite's API
    // contract provides; `zName` is NULL or NUL-terminated (or readable for the length given with it);
    // `pClientData` is NULL or valid for what the API does with it (read for the length given, or handed back
    // to callbacks untouched).
    unsafe { crate::ffi_guard!(SQLITE_ERROR, { register(db, zName, p, pClientData, None) }) }
}

/// `sqlite3_create_module_v2`: the destructor runs when the module is
/// replaced, dropped or the connection closes (or at once on failure). A
/// NULL module drops the module of that name; the client data passed with
/// it is never destroyed.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_create_module_v2(
    db: *mut sqlite3,
    zName: *const c_char,
    p: *const sqlite3_module,
    pClientData: *mut c_void,
    xDestroy: Option<unsafe extern "C" fn(*mut c_void)>,
) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed; `p` is NULL or a live `sqlite3_module` this library or SQLite's API
    // contract provides; `zName` is NULL or NUL-terminated (or readable for the length given with it);
    // `pClientData` is NULL or valid for what the API does with it (read for the length given, or handed back
    // to callbacks untouched); `xDestroy`, when set, is safe to call with the arguments the API documents
    // until unregistered.
    unsafe { crate::ffi_guard!(SQLITE_ERROR, { register(db, zName, p, pClientData, xDestroy) }) }
}

/// `sqlite3_drop_modules`: remove every module not named in `azKeep`
/// (a NULL-terminated list, or NULL for none).
#[no_mangle]
pub unsafe extern "C" fn sqlite3_drop_modules(db: *mut sqlite3, azKeep: *mut *const c_char) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed; `azKeep` is NULL or writable.
    unsafe {
        crate::ffi_guard!(SQLITE_ERROR, {
            let Some(d) = db_ref(db) else { return crate::error::misuse() };
            let _g = d.lock.lock();
            let mut keep = Vec::new();
            if !azKeep.is_null() {
                let mut i = 0;
                while !(*azKeep.add(i)).is_null() {
                    keep.push(CStr::from_ptr(*azKeep.add(i)).to_string_lossy().into_owned());
                    i += 1;
                }
            }
            let r = d.with_conn(|c| c.drop_modules(&keep));
            crate::error::finish(d, r)
        })
    }
}

/// `sqlite3_declare_vtab`: from inside xCreate or xConnect, declare the
/// table's columns with the CREATE TABLE statement `zSQL`. SQLITE_MISUSE
/// anywhere else.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_declare_vtab(db: *mut sqlite3, zSQL: *const c_char) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed; `zSQL` is NULL or NUL-terminated (or readable for the length given
    // with it).
    unsafe {
        crate::ffi_guard!(SQLITE_ERROR, {
            let Some(d) = db_ref(db) else { return crate::error::misuse() };
            let _g = d.lock.lock();
            if zSQL.is_null() {
                return crate::error::misuse();
            }
            let sql = CStr::from_ptr(zSQL).to_string_lossy().into_owned();
            let open = DECLARING.with(|s| s.borrow().last().is_some_and(|(p, _, _)| *p == db as usize));
            if !open {
                return crate::error::report(d, &Error::code(SQLITE_MISUSE));
            }
            if let Err(e) = ringlite::sql::vtab_decl::check_declaration(&sql) {
                return crate::error::report(d, &Error::new(SQLITE_ERROR, e.message));
            }
            DECLARING.with(|s| {
                if let Some(top) = s.borrow_mut().last_mut() {
                    top.1 = Some(sql);
                }
            });
            crate::error::clear_error(d);
            SQLITE_OK
        })
    }
}

/// `sqlite3_vtab_config` (the C shim passes the one integer argument
/// SQLITE_VTAB_CONSTRAINT_SUPPORT takes): only inside xCreate/xConnect.
#[no_mangle]
pub unsafe extern "C" fn ringlite_capi_vtab_config(db: *mut sqlite3, op: c_int, arg: c_int) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed.
    unsafe {
        crate::ffi_guard!(SQLITE_ERROR, {
            let Some(d) = db_ref(db) else { return crate::error::misuse() };
            let _g = d.lock.lock();
            let ok = DECLARING.with(|s| {
                let mut s = s.borrow_mut();
                let Some(top) = s.last_mut().filter(|(p, _, _)| *p == db as usize) else { return false };
                match op {
                    SQLITE_VTAB_CONSTRAINT_SUPPORT => top.2.constraint_support = arg != 0,
                    SQLITE_VTAB_INNOCUOUS => top.2.innocuous = true,
                    SQLITE_VTAB_DIRECTONLY => top.2.direct_only = true,
                    SQLITE_VTAB_USES_ALL_SCHEMAS => top.2.uses_all_schemas = true,
                    _ => return false,
                }
                true
            });
            if !ok {
                return crate::error::report(d, &Error::code(SQLITE_MISUSE));
            }
            SQLITE_OK
        })
    }
}

/// `sqlite3_vtab_on_conflict`: the conflict mode of the running xUpdate
/// (SQLITE_ROLLBACK, SQLITE_ABORT, SQLITE_FAIL, SQLITE_IGNORE or
/// SQLITE_REPLACE).
#[no_mangle]
pub unsafe extern "C" fn sqlite3_vtab_on_conflict(db: *mut sqlite3) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed.
    unsafe {
        crate::ffi_guard!(SQLITE_MISUSE, {
            if db_ref(db).is_none() {
                return crate::error::misuse();
            }
            ON_CONFLICT.with(|c| c.get())
        })
    }
}
