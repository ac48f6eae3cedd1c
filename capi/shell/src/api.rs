//! # The C API, loaded at run time
//!
//! The shell is a C API client like any program linked to
//! `libsqlite3.so.0`, but it loads the library with `dlopen` instead of
//! linking it, for three reasons: the installed shell always runs on the
//! ringlite library installed beside it (`$ORIGIN/../lib`), never on the
//! system's SQLite that the dynamic loader would otherwise prefer; the
//! shell builds in seconds without a second link-time-optimised copy of
//! the engine; and `--lib PATH` runs the very same shell on SQLite itself,
//! which is how its tests tell a shell difference from a library one.
//!
//! Invariants: every function pointer of [`Api`] is resolved before the
//! first call (a library lacking one is refused at load); the optional
//! ringlite extensions are `None` on a library without them; the
//! `Library` is kept alive as long as the pointers (it is never unloaded).

use libloading::Library;
use std::ffi::{c_char, c_double, c_int, c_void, CStr};
use std::path::{Path, PathBuf};

pub type Db = c_void;
pub type Stmt = c_void;

pub const SQLITE_OK: c_int = 0;
pub const SQLITE_ROW: c_int = 100;
pub const SQLITE_DONE: c_int = 101;
/// ringlite: `sqlite3_step` on an async connection waits for I/O.
pub const SQLITE_IO: c_int = 200;
pub const SQLITE_INTEGER: c_int = 1;
pub const SQLITE_FLOAT: c_int = 2;
pub const SQLITE_TEXT: c_int = 3;
pub const SQLITE_BLOB: c_int = 4;
pub const SQLITE_NULL: c_int = 5;
pub const SQLITE_OPEN_READONLY: c_int = 0x1;
pub const SQLITE_OPEN_READWRITE: c_int = 0x2;
pub const SQLITE_OPEN_CREATE: c_int = 0x4;
pub const SQLITE_OPEN_URI: c_int = 0x40;
/// ringlite: statements of the connection return `SQLITE_IO` instead of blocking.
pub const SQLITE_OPEN_ASYNC: c_int = 0x4000_0000;

macro_rules! api_table {
    ($( $name:ident : fn($($arg:ty),*) $(-> $ret:ty)? ;)*) => {
        /// The C API functions the shell calls.
        pub struct Api {
            _lib: Library,
            pub path: PathBuf,
            $(pub $name: unsafe extern "C" fn($($arg),*) $(-> $ret)?,)*
            /// `sqlite3_mprintf`, for SQLite's own float formats.
            pub mprintf_f64: unsafe extern "C" fn(*const c_char, ...) -> *mut c_char,
            /// ringlite's `sqlite3_io_poll` (None on SQLite).
            pub io_poll: Option<unsafe extern "C" fn(*mut Db, c_int) -> c_int>,
        }

        impl Api {
            fn resolve(lib: Library, path: PathBuf) -> Result<Api, String> {
                // SAFETY: each symbol is looked up by its C name and given
                // the signature the header declares for it.
                unsafe {
                    $(let $name = *lib
                        .get::<unsafe extern "C" fn($($arg),*) $(-> $ret)?>(concat!("sqlite3_", stringify!($name), "\0").as_bytes())
                        .map_err(|e| format!("{}: {e}", path.display()))?;)*
                    let mprintf_f64 = *lib
                        .get::<unsafe extern "C" fn(*const c_char, ...) -> *mut c_char>(b"sqlite3_mprintf\0")
                        .map_err(|e| format!("{}: {e}", path.display()))?;
                    let io_poll = lib.get::<unsafe extern "C" fn(*mut Db, c_int) -> c_int>(b"sqlite3_io_poll\0").ok().map(|s| *s);
                    Ok(Api { _lib: lib, path, $($name,)* mprintf_f64, io_poll })
                }
            }
        }
    };
}

api_table! {
    open_v2: fn(*const c_char, *mut *mut Db, c_int, *const c_char) -> c_int;
    close_v2: fn(*mut Db) -> c_int;
    prepare_v2: fn(*mut Db, *const c_char, c_int, *mut *mut Stmt, *mut *const c_char) -> c_int;
    step: fn(*mut Stmt) -> c_int;
    finalize: fn(*mut Stmt) -> c_int;
    reset: fn(*mut Stmt) -> c_int;
    column_count: fn(*mut Stmt) -> c_int;
    column_name: fn(*mut Stmt, c_int) -> *const c_char;
    column_type: fn(*mut Stmt, c_int) -> c_int;
    column_text: fn(*mut Stmt, c_int) -> *const u8;
    column_blob: fn(*mut Stmt, c_int) -> *const c_void;
    column_bytes: fn(*mut Stmt, c_int) -> c_int;
    column_double: fn(*mut Stmt, c_int) -> c_double;
    errmsg: fn(*mut Db) -> *const c_char;
    error_offset: fn(*mut Db) -> c_int;
    changes64: fn(*mut Db) -> i64;
    total_changes64: fn(*mut Db) -> i64;
    complete: fn(*const c_char) -> c_int;
    libversion: fn() -> *const c_char;
    sourceid: fn() -> *const c_char;
    bind_text: fn(*mut Stmt, c_int, *const c_char, c_int, isize) -> c_int;
    bind_null: fn(*mut Stmt, c_int) -> c_int;
    bind_parameter_count: fn(*mut Stmt) -> c_int;
    bind_parameter_name: fn(*mut Stmt, c_int) -> *const c_char;
    bind_value: fn(*mut Stmt, c_int, *const c_void) -> c_int;
    column_value: fn(*mut Stmt, c_int) -> *mut c_void;
    stmt_isexplain: fn(*mut Stmt) -> c_int;
    get_autocommit: fn(*mut Db) -> c_int;
    interrupt: fn(*mut Db);
    free: fn(*mut c_void);
    keyword_check: fn(*const c_char, c_int) -> c_int;
    db_readonly: fn(*mut Db, *const c_char) -> c_int;
}

/// `SQLITE_TRANSIENT`: the library copies a bound value.
pub const TRANSIENT: isize = -1;

impl Api {
    /// Loads the library: `explicit` when given, else the ringlite library
    /// installed beside the shell, else the build tree's.
    pub fn load(explicit: Option<&Path>) -> Result<Api, String> {
        let candidates: Vec<PathBuf> = match explicit {
            Some(p) => vec![p.to_path_buf()],
            None => {
                let mut v = Vec::new();
                if let Some(dir) = std::env::current_exe().ok().and_then(|e| e.parent().map(Path::to_path_buf)) {
                    v.push(dir.join("../lib/libsqlite3.so.0"));
                }
                // `cargo run` and the build tree: build/lib of this workspace.
                v.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../build/lib/libsqlite3.so.0"));
                v
            }
        };
        let mut errors = Vec::new();
        for path in candidates {
            if !path.exists() {
                errors.push(format!("{}: not found", path.display()));
                continue;
            }
            // SAFETY: loading a SQLite-compatible library runs only its
            // initialisers, which have no preconditions.
            match unsafe { Library::new(&path) } {
                Ok(lib) => return Api::resolve(lib, path.canonicalize().unwrap_or(path)),
                Err(e) => errors.push(format!("{}: {e}", path.display())),
            }
        }
        Err(format!("cannot load the ringlite library ({}); use --lib PATH", errors.join("; ")))
    }

    pub fn libversion_str(&self) -> String {
        // SAFETY: both return static NUL-terminated strings.
        unsafe { cstr((self.libversion)()) }
    }

    pub fn sourceid_str(&self) -> String {
        // SAFETY: as above.
        unsafe { cstr((self.sourceid)()) }
    }

    /// `sqlite3_complete`: does `sql` end with a complete statement?
    pub fn is_complete(&self, sql: &str) -> bool {
        let c = std::ffi::CString::new(sql.replace('\0', " ")).unwrap_or_default();
        // SAFETY: a NUL-terminated string.
        unsafe { (self.complete)(c.as_ptr()) != 0 }
    }

    /// A float formatted by the library's printf (`%!.20g` and the like).
    pub fn format_f64(&self, fmt: &str, v: f64) -> String {
        let f = std::ffi::CString::new(fmt).unwrap_or_default();
        // SAFETY: the format takes exactly one double; the result is
        // freed with sqlite3_free.
        unsafe {
            let p = (self.mprintf_f64)(f.as_ptr(), v);
            if p.is_null() {
                return String::new();
            }
            let s = cstr(p);
            (self.free)(p.cast());
            s
        }
    }
}

/// A C string copied out (lossy for bytes that are not UTF-8); "" for NULL.
///
/// # Safety
/// `p` is NULL or points to a NUL-terminated string.
pub unsafe fn cstr(p: *const c_char) -> String {
    if p.is_null() {
        return String::new();
    }
    CStr::from_ptr(p).to_string_lossy().into_owned()
}
