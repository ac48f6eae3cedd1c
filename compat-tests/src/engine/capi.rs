//! # The C ABI backend: a `libsqlite3.so.0` loaded at run time
//!
//! For ringlite's own C library (`capi/`), and meanwhile for the system
//! SQLite, which checks this backend itself. The library is opened with
//! `RTLD_LOCAL | RTLD_DEEPBIND` so that neither its calls into its own
//! `sqlite3_*` symbols nor ours resolve to the bundled reference linked
//! into this binary. Function pointers are looked up once per connection
//! and copied out of the `Library`, which stays loaded until the process
//! ends (see [`load`]).

use super::{Cell, Engine, EngineError, Interrupter, Rows};
use libloading::os::unix::{Library, RTLD_LOCAL, RTLD_NOW};
use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::sync::{Arc, Mutex, OnceLock};

type Db = *mut c_void;
type Stmt = *mut c_void;

const SQLITE_OK: c_int = 0;
const SQLITE_ROW: c_int = 100;
const SQLITE_DONE: c_int = 101;
const SQLITE_INTEGER: c_int = 1;
const SQLITE_FLOAT: c_int = 2;
const SQLITE_TEXT: c_int = 3;
const SQLITE_BLOB: c_int = 4;
const OPEN_READWRITE: c_int = 0x2;
const OPEN_CREATE: c_int = 0x4;
/// glibc's RTLD_DEEPBIND: the library prefers its own symbols.
const RTLD_DEEPBIND: c_int = 0x8;

/// The C API subset the harness calls.
#[derive(Clone, Copy)]
struct Api {
    open_v2: unsafe extern "C" fn(*const c_char, *mut Db, c_int, *const c_char) -> c_int,
    close_v2: unsafe extern "C" fn(Db) -> c_int,
    extended_result_codes: unsafe extern "C" fn(Db, c_int) -> c_int,
    prepare_v2: unsafe extern "C" fn(Db, *const c_char, c_int, *mut Stmt, *mut *const c_char) -> c_int,
    step: unsafe extern "C" fn(Stmt) -> c_int,
    finalize: unsafe extern "C" fn(Stmt) -> c_int,
    column_count: unsafe extern "C" fn(Stmt) -> c_int,
    column_type: unsafe extern "C" fn(Stmt, c_int) -> c_int,
    column_int64: unsafe extern "C" fn(Stmt, c_int) -> i64,
    column_double: unsafe extern "C" fn(Stmt, c_int) -> f64,
    column_text: unsafe extern "C" fn(Stmt, c_int) -> *const u8,
    column_blob: unsafe extern "C" fn(Stmt, c_int) -> *const c_void,
    column_bytes: unsafe extern "C" fn(Stmt, c_int) -> c_int,
    errmsg: unsafe extern "C" fn(Db) -> *const c_char,
    extended_errcode: unsafe extern "C" fn(Db) -> c_int,
    interrupt: unsafe extern "C" fn(Db),
    limit: unsafe extern "C" fn(Db, c_int, c_int) -> c_int,
}

pub struct CApi {
    api: Api,
    db: Db,
}

/// Libraries loaded so far, by path. They are never unloaded: a Rust
/// library (ringlite's) registers thread-local destructors that would run
/// at exit from unmapped code after a `dlclose`.
static LOADED: OnceLock<Mutex<HashMap<String, &'static Library>>> = OnceLock::new();

fn load(path: &str) -> Result<&'static Library, EngineError> {
    let mut loaded = LOADED.get_or_init(|| Mutex::new(HashMap::new())).lock().unwrap();
    if let Some(lib) = loaded.get(path) {
        return Ok(lib);
    }
    let lib = unsafe { Library::open(Some(path), RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND) }.map_err(|e| load_error(format!("cannot load {path}: {e}")))?;
    let lib: &'static Library = Box::leak(Box::new(lib));
    loaded.insert(path.to_string(), lib);
    Ok(lib)
}

#[derive(Clone, Copy)]
struct DbHandle(Db);
unsafe impl Send for DbHandle {}
unsafe impl Sync for DbHandle {}

fn load_error(what: String) -> EngineError {
    EngineError { code: 1, message: what, partial: None }
}

impl CApi {
    pub fn open(path: &str) -> Result<CApi, EngineError> {
        CApi::open_with(path, ":memory:", OPEN_READWRITE | OPEN_CREATE)
    }

    /// An existing database file, read-write.
    pub fn open_path(lib: &str, db_path: &str) -> Result<CApi, EngineError> {
        CApi::open_with(lib, db_path, OPEN_READWRITE)
    }

    fn open_with(path: &str, db_path: &str, flags: c_int) -> Result<CApi, EngineError> {
        let lib = load(path)?;
        macro_rules! sym {
            ($name:literal) => {
                *unsafe { lib.get(concat!($name, "\0").as_bytes()) }.map_err(|e| load_error(format!("{path}: missing {}: {e}", $name)))?
            };
        }
        let api = Api {
            open_v2: sym!("sqlite3_open_v2"),
            close_v2: sym!("sqlite3_close_v2"),
            extended_result_codes: sym!("sqlite3_extended_result_codes"),
            prepare_v2: sym!("sqlite3_prepare_v2"),
            step: sym!("sqlite3_step"),
            finalize: sym!("sqlite3_finalize"),
            column_count: sym!("sqlite3_column_count"),
            column_type: sym!("sqlite3_column_type"),
            column_int64: sym!("sqlite3_column_int64"),
            column_double: sym!("sqlite3_column_double"),
            column_text: sym!("sqlite3_column_text"),
            column_blob: sym!("sqlite3_column_blob"),
            column_bytes: sym!("sqlite3_column_bytes"),
            errmsg: sym!("sqlite3_errmsg"),
            extended_errcode: sym!("sqlite3_extended_errcode"),
            interrupt: sym!("sqlite3_interrupt"),
            limit: sym!("sqlite3_limit"),
        };
        let mut db: Db = std::ptr::null_mut();
        let name = CString::new(db_path).map_err(|_| load_error("NUL in path".into()))?;
        let rc = unsafe { (api.open_v2)(name.as_ptr(), &mut db, flags, std::ptr::null()) };
        let engine = CApi { api, db };
        if rc != SQLITE_OK {
            let err = if db.is_null() { load_error(format!("sqlite3_open_v2 failed with {rc}")) } else { engine.error() };
            return Err(err);
        }
        unsafe { (api.extended_result_codes)(db, 1) };
        Ok(engine)
    }

    fn error(&self) -> EngineError {
        unsafe {
            let msg = (self.api.errmsg)(self.db);
            EngineError {
                code: (self.api.extended_errcode)(self.db),
                message: if msg.is_null() { String::new() } else { CStr::from_ptr(msg).to_string_lossy().into_owned() },
                partial: None,
            }
        }
    }

    unsafe fn read_cell(&self, stmt: Stmt, i: c_int) -> Cell {
        let a = &self.api;
        let bytes = |p: *const u8| {
            let n = (a.column_bytes)(stmt, i) as usize;
            if p.is_null() {
                Vec::new()
            } else {
                std::slice::from_raw_parts(p, n).to_vec()
            }
        };
        match (a.column_type)(stmt, i) {
            SQLITE_INTEGER => Cell::Integer((a.column_int64)(stmt, i)),
            SQLITE_FLOAT => Cell::Real((a.column_double)(stmt, i)),
            SQLITE_TEXT => Cell::Text(bytes((a.column_text)(stmt, i))),
            SQLITE_BLOB => Cell::Blob(bytes((a.column_blob)(stmt, i) as *const u8)),
            _ => Cell::Null,
        }
    }
}

impl Drop for CApi {
    fn drop(&mut self) {
        if !self.db.is_null() {
            unsafe { (self.api.close_v2)(self.db) };
        }
    }
}

impl Engine for CApi {
    fn run(&mut self, sql: &str) -> Result<Rows, EngineError> {
        let a = self.api;
        let bytes = sql.as_bytes();
        let mut offset = 0usize;
        let mut result = Rows::default();
        while offset < bytes.len() {
            let rest = &bytes[offset..];
            let start = rest.as_ptr() as *const c_char;
            let mut stmt: Stmt = std::ptr::null_mut();
            let mut tail: *const c_char = std::ptr::null();
            let rc = unsafe { (a.prepare_v2)(self.db, start, rest.len() as c_int, &mut stmt, &mut tail) };
            if rc != SQLITE_OK {
                return Err(self.error());
            }
            let consumed = if tail.is_null() { rest.len() } else { tail as usize - start as usize };
            offset += consumed.max(1);
            if stmt.is_null() {
                continue;
            }
            let columns = unsafe { (a.column_count)(stmt) }.max(0) as usize;
            let mut rows = Vec::new();
            let outcome = loop {
                match unsafe { (a.step)(stmt) } {
                    SQLITE_ROW => rows.push((0..columns as c_int).map(|i| unsafe { self.read_cell(stmt, i) }).collect()),
                    SQLITE_DONE => break Ok(()),
                    _ => break Err(()),
                }
            };
            let rc = unsafe { (a.finalize)(stmt) };
            if outcome.is_err() || rc != SQLITE_OK {
                let mut e = self.error();
                e.partial = (columns > 0).then_some(Rows { columns, rows });
                return Err(e);
            }
            if columns > 0 {
                result = Rows { columns, rows };
            }
        }
        Ok(result)
    }

    fn interrupter(&self) -> Interrupter {
        let handle = DbHandle(self.db);
        let interrupt = self.api.interrupt;
        Arc::new(move || {
            let h = handle;
            unsafe { interrupt(h.0) }
        })
    }

    fn limit(&mut self, id: i32, value: i32) -> i32 {
        unsafe { (self.api.limit)(self.db, id, value) }
    }
}
