//! # Loadable extensions: `sqlite3_load_extension` and `load_extension()`
//!
//! Loads a shared library with `dlopen` (through `libloading`), finds its
//! entry point and calls it with the connection and the API table of
//! [`crate::api_routines`], following SQLite's documented rules:
//! - file name: as given, then with ".so" appended (only if the first try
//!   failed); an empty name or one longer than SQLite's path limit is
//!   refused without trying;
//! - entry point: the one given; else `sqlite3_extension_init`, then
//!   `sqlite3_X_init` where X is the lower-cased ASCII letters of the file
//!   name from the last '/' to the first following '.', after dropping an
//!   initial "lib" (any case);
//! - errors: `SQLITE_ERROR`, the message in `*pzErrMsg` only (the
//!   connection's error state is left alone, as SQLite leaves it); the
//!   message is the dynamic loader's own text when it has one, as SQLite's
//!   unix VFS reports it;
//! - an entry point returning `SQLITE_OK_LOAD_PERMANENTLY` keeps its library
//!   loaded for the life of the process; any other library stays loaded
//!   until its connection is freed, after the connection's functions and
//!   collations (whose code lives in the library) are gone.
//!
//! Two switches, as in SQLite: the C API (`sqlite3_load_extension`) is
//! allowed by `SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION` (kept in the handle's
//! `db_config` map by `config.rs`) or `sqlite3_enable_load_extension`; the
//! SQL function `load_extension()` only by the latter. The engine's builtin
//! `load_extension()` answers "not authorized"; enabling the SQL switch
//! registers, once per connection, the function of this module in its
//! place, which checks the switch at every call (so disabling again makes
//! it answer "not authorized" too). An application that defined its own
//! `load_extension` before enabling has it replaced then.
//!
//! Invariant: [`LOADED`] holds an entry for a handle only between the first
//! enable/load on it and [`detach`], which `open::free_db` calls just
//! before releasing the handle (closing the libraries after); its lock is
//! never held while an entry point runs (an entry point may load further
//! extensions).

use crate::consts::*;
use crate::error::misuse;
use crate::function::sqlite3_context;
use crate::handle::{db_ref, sqlite3};
use crate::value::sqlite3_value;
use libloading::os::unix::{Library, RTLD_GLOBAL, RTLD_NOW};
use std::collections::BTreeMap;
use std::ffi::{c_char, c_int, c_void, CStr, OsStr};
use std::os::unix::ffi::OsStrExt;
use std::sync::Mutex;

/// SQLite's `SQLITE_MAX_PATHLEN` on unix: longer file names are refused
/// before `dlopen` sees them.
const MAX_PATHLEN: usize = 4096;

/// The suffix tried after the name as given.
const SUFFIX: &str = "so";

/// An extension's entry point (`sqlite3_loadext_entry`).
pub type EntryPoint = unsafe extern "C" fn(*mut sqlite3, *mut *mut c_char, *const c_void) -> c_int;

/// What one connection has loaded, and its SQL switch.
#[derive(Default)]
struct Loaded {
    /// `sqlite3_enable_load_extension` was last called with a true value.
    sql_enabled: bool,
    /// The SQL function of this module is registered on the connection.
    sql_function: bool,
    /// Libraries to close when the connection goes, in load order.
    libraries: Vec<Library>,
}

/// Per-connection state, keyed by the handle's address.
static LOADED: Mutex<BTreeMap<usize, Loaded>> = Mutex::new(BTreeMap::new());

fn with_loaded<T>(db: *const sqlite3, f: impl FnOnce(&mut Loaded) -> T) -> T {
    let mut all = LOADED.lock().unwrap_or_else(|e| e.into_inner());
    f(all.entry(db as usize).or_default())
}

/// The libraries a connection being freed had loaded; dropping this closes
/// them, newest first (a later library may use an earlier one).
pub struct Detached(Vec<Library>);

impl Drop for Detached {
    fn drop(&mut self) {
        while let Some(lib) = self.0.pop() {
            let _ = lib.close();
        }
    }
}

/// Forget the handle at `db`, which is being freed, and hand back its
/// libraries, to be dropped once everything of the connection that may
/// call into them (functions, collations, their destructors) is gone.
/// Taken before the handle's memory is released, so that a new handle at
/// the same address never sees or loses this one's state.
pub fn detach(db: *const sqlite3) -> Detached {
    let entry = LOADED.lock().unwrap_or_else(|e| e.into_inner()).remove(&(db as usize));
    Detached(entry.map(|l| l.libraries).unwrap_or_default())
}

/// Whether the C API may load extensions on `d`.
fn c_api_enabled(d: &sqlite3) -> bool {
    d.db_config.borrow().get(&SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION).is_some_and(|&v| v != 0)
}

/// The message of the most recent failed `dl*` call of this thread, if it
/// has not been read yet (SQLite's unix VFS reports exactly that text).
fn pending_dlerror() -> Option<String> {
    // SAFETY: dlerror has no preconditions; its string is copied at once.
    unsafe {
        let p = libc::dlerror();
        (!p.is_null()).then(|| CStr::from_ptr(p).to_string_lossy().into_owned())
    }
}

/// The default entry point derived from a file name (second choice after
/// `sqlite3_extension_init`).
pub fn derived_entry_point(file: &[u8]) -> Vec<u8> {
    let base = match file.iter().rposition(|&b| b == b'/') {
        Some(i) => &file[i + 1..],
        None => file,
    };
    let base = if base.len() >= 3 && base[..3].eq_ignore_ascii_case(b"lib") { &base[3..] } else { base };
    let mut name = b"sqlite3_".to_vec();
    name.extend(base.iter().take_while(|&&b| b != b'.').filter(|b| b.is_ascii_alphabetic()).map(|b| b.to_ascii_lowercase()));
    name.extend_from_slice(b"_init");
    name
}

/// The dynamic loader's own message for a failure, when it gave one.
fn loader_text(e: libloading::Error) -> Option<String> {
    match e {
        libloading::Error::DlOpen { .. } | libloading::Error::DlSym { .. } => Some(e.to_string()),
        _ => None,
    }
}

/// Open the library `file` names, with SQLite's fallback to the suffixed
/// name. `Err` carries the message SQLite reports.
fn open_library(file: &[u8]) -> Result<Library, String> {
    let sqlite_text = || {
        let shown = &file[..file.len().min(MAX_PATHLEN)];
        format!("unable to open shared library [{}]", String::from_utf8_lossy(shown))
    };
    if file.is_empty() || file.len() > MAX_PATHLEN {
        // Refused before dlopen (an empty name would be the program
        // itself); SQLite still reports whatever the loader last said.
        return Err(pending_dlerror().unwrap_or_else(sqlite_text));
    }
    let flags = RTLD_NOW | RTLD_GLOBAL;
    // SAFETY: loading a library runs its initialisers; that is what the
    // caller asked for, as with SQLite.
    let mut last = match unsafe { Library::open(Some(OsStr::from_bytes(file)), flags) } {
        Ok(lib) => return Ok(lib),
        Err(e) => loader_text(e),
    };
    if file.len() + 1 + SUFFIX.len() <= MAX_PATHLEN {
        let mut alt = file.to_vec();
        alt.push(b'.');
        alt.extend_from_slice(SUFFIX.as_bytes());
        // SAFETY: as above.
        match unsafe { Library::open(Some(OsStr::from_bytes(&alt)), flags) } {
            Ok(lib) => return Ok(lib),
            Err(e) => last = loader_text(e),
        }
    }
    Err(last.unwrap_or_else(sqlite_text))
}

/// Look `name` up in `lib`: the entry point, or the loader's message (None
/// when it gave none, or the symbol's value is NULL).
fn entry_point(lib: &Library, name: &[u8]) -> Result<EntryPoint, Option<String>> {
    // SAFETY: the symbol's address is read as a plain pointer first.
    match unsafe { lib.get::<*mut c_void>(name) } {
        Ok(sym) if !(*sym).is_null() => {
            // SAFETY: used as SQLite uses it: as an entry point with
            // sqlite3_loadext_entry's signature.
            Ok(unsafe { std::mem::transmute::<*mut c_void, EntryPoint>(*sym) })
        }
        Ok(_) => Err(None),
        Err(e) => Err(loader_text(e)),
    }
}

/// Load `file` into `db` (its lock held by the caller). `Err` carries the
/// message for `*pzErrMsg`.
unsafe fn load(d: &sqlite3, db: *mut sqlite3, file: &[u8], proc_: Option<&[u8]>) -> Result<(), String> {
    // SAFETY: the caller guarantees: `db` is NULL or a connection this library opened and has not freed.
    unsafe {
        if !c_api_enabled(d) {
            return Err("not authorized".into());
        }
        let lib = open_library(file)?;
        let mut entry = entry_point(&lib, proc_.unwrap_or(b"sqlite3_extension_init"));
        let mut entry_name = proc_.unwrap_or(b"sqlite3_extension_init").to_vec();
        if entry.is_err() && proc_.is_none() {
            entry_name = derived_entry_point(file);
            entry = entry_point(&lib, &entry_name);
        }
        let init = match entry {
            Ok(f) => f,
            Err(loader_msg) => {
                let _ = lib.close();
                // The loader's text replaces SQLite's own when there is one.
                return Err(loader_msg.unwrap_or_else(|| {
                    format!("no entry point [{}] in shared library [{}]", String::from_utf8_lossy(&entry_name), String::from_utf8_lossy(file))
                }));
            }
        };
        let mut init_msg: *mut c_char = std::ptr::null_mut();
        let rc = init(db, &mut init_msg, crate::api_routines::table());
        let text = (!init_msg.is_null()).then(|| CStr::from_ptr(init_msg).to_string_lossy().into_owned());
        crate::memory::sqlite3_free(init_msg as *mut c_void);
        match rc {
            SQLITE_OK => {
                with_loaded(db, |l| l.libraries.push(lib));
                Ok(())
            }
            SQLITE_OK_LOAD_PERMANENTLY => {
                // Never closed: the process keeps the library.
                let _ = lib.into_raw();
                Ok(())
            }
            _ => {
                let _ = lib.close();
                Err(format!("error during initialization: {}", text.unwrap_or_default()))
            }
        }
    }
}

/// Load the shared library `zFile` and call its entry point `zProc` (or the
/// name derived from the file name when NULL) with `db` and the API table.
/// Needs sqlite3_enable_load_extension first; `*pzErrMsg` gets a message to
/// free with sqlite3_free on failure.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_load_extension(db: *mut sqlite3, zFile: *const c_char, zProc: *const c_char, pzErrMsg: *mut *mut c_char) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed; `zFile`, `zProc` are NULL or NUL-terminated (or readable for the
    // length given with them); `pzErrMsg` is NULL or writable.
    unsafe {
        ffi_guard!(SQLITE_INTERNAL, {
            if !pzErrMsg.is_null() {
                *pzErrMsg = std::ptr::null_mut();
            }
            let Some(d) = db_ref(db) else { return misuse() };
            let _g = d.lock.lock();
            let file = if zFile.is_null() { &[][..] } else { CStr::from_ptr(zFile).to_bytes() };
            let proc_ = (!zProc.is_null()).then(|| CStr::from_ptr(zProc).to_bytes());
            match load(d, db, file, proc_) {
                Ok(()) => SQLITE_OK,
                Err(msg) => {
                    if !pzErrMsg.is_null() {
                        *pzErrMsg = crate::memory::malloc_cstr(msg.as_bytes());
                    }
                    SQLITE_ERROR
                }
            }
        })
    }
}

/// Allow (`onoff` nonzero) or forbid sqlite3_load_extension and SQL's
/// load_extension() on `db`. Returns SQLITE_OK.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_enable_load_extension(db: *mut sqlite3, onoff: c_int) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed.
    unsafe {
        ffi_guard!(SQLITE_INTERNAL, {
            let Some(d) = db_ref(db) else { return misuse() };
            let _g = d.lock.lock();
            let on = onoff != 0;
            d.db_config.borrow_mut().insert(SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, on as i32);
            let register = with_loaded(db, |l| {
                l.sql_enabled = on;
                on && !std::mem::replace(&mut l.sql_function, true)
            });
            if register {
                for n_arg in [1, 2] {
                    let rc = crate::function::create_function(
                        db,
                        crate::function::FunctionSpec {
                            name: "load_extension".into(),
                            n_arg,
                            // Direct-only, as SQLite's: never from a view, a
                            // trigger or a schema expression.
                            text_rep: SQLITE_UTF8 | SQLITE_DIRECTONLY,
                            user_data: std::ptr::null_mut(),
                            x_func: Some(load_extension_sql),
                            x_step: None,
                            x_final: None,
                            x_value: None,
                            x_inverse: None,
                            x_destroy: None,
                        },
                    );
                    if rc != SQLITE_OK {
                        with_loaded(db, |l| l.sql_function = false);
                        return rc;
                    }
                }
            }
            SQLITE_OK
        })
    }
}

/// The SQL function `load_extension(X[,Y])` of a connection whose SQL
/// switch has been turned on (see the module doc).
unsafe extern "C" fn load_extension_sql(ctx: *mut sqlite3_context, argc: c_int, argv: *mut *mut sqlite3_value) {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `ctx` is the context of the function
    // call in progress; `argv` is NULL or writable.
    unsafe {
        let db = crate::function::sqlite3_context_db_handle(ctx);
        if !with_loaded(db, |l| l.sql_enabled) {
            crate::result::sqlite3_result_error(ctx, c"not authorized".as_ptr(), -1);
            return;
        }
        let file = crate::value::sqlite3_value_text(*argv) as *const c_char;
        let proc_ = if argc == 2 { crate::value::sqlite3_value_text(*argv.add(1)) as *const c_char } else { std::ptr::null() };
        if file.is_null() {
            return;
        }
        let mut msg: *mut c_char = std::ptr::null_mut();
        if sqlite3_load_extension(db, file, proc_, &mut msg) != SQLITE_OK {
            crate::result::sqlite3_result_error(ctx, msg, -1);
            crate::memory::sqlite3_free(msg as *mut c_void);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::derived_entry_point;

    #[test]
    fn entry_point_names_follow_sqlite_rule() {
        // The examples of SQLite's documentation and its source comments.
        let cases: &[(&str, &str)] = &[
            ("/usr/local/lib/libExample5.4.3.so", "sqlite3_example_init"),
            ("samplelib", "sqlite3_samplelib_init"),
            ("./libdemoext.so", "sqlite3_demoext_init"),
            ("demoext", "sqlite3_demoext_init"),
            ("LIBfoo_bar-2.so", "sqlite3_foobar_init"),
            ("/a.b/lib", "sqlite3__init"),
            ("dir/.hidden.so", "sqlite3__init"),
        ];
        for (file, want) in cases {
            assert_eq!(String::from_utf8(derived_entry_point(file.as_bytes())).unwrap(), *want, "{file}");
        }
    }
}
