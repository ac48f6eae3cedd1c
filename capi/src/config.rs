//! # Library and connection configuration
//!
//! `sqlite3_initialize`/`shutdown`, the Rust side of the variadic
//! `sqlite3_config` / `sqlite3_db_config` (the C shim forwards the arguments
//! by op). The error log `SQLITE_CONFIG_LOG` installs is kept in `error.rs`.
//!
//! Options that change how SQLite allocates or locks (MALLOC, MUTEX,
//! PCACHE2, HEAP, ...) have no counterpart in ringlite: they are accepted
//! where SQLite would accept them and change nothing, except those that hand
//! back a structure to fill, which return SQLITE_ERROR ("not supported").

use crate::consts::*;
use crate::handle::{db_ref, sqlite3};
use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::atomic::{AtomicBool, Ordering};

static URI: AtomicBool = AtomicBool::new(false);
static INITIALIZED: AtomicBool = AtomicBool::new(false);

/// Whether filenames are URIs by default (`SQLITE_CONFIG_URI`).
pub fn uri_default() -> bool {
    URI.load(Ordering::Relaxed)
}

/// Mark the library initialized (open does it implicitly).
pub fn initialize() {
    if !INITIALIZED.swap(true, Ordering::Relaxed) {
        ringlite::util::prng::set_seeder(crate::random::seed_from_default_vfs);
    }
}

/// Initialize the library. Called automatically by the functions that need it;
/// calling it again is harmless. Returns SQLITE_OK.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_initialize() -> c_int {
    ffi_guard!(SQLITE_INTERNAL, {
        initialize();
        SQLITE_OK
    })
}

/// Undo sqlite3_initialize; every connection should be closed first. Returns
/// SQLITE_OK.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_shutdown() -> c_int {
    ffi_guard!(SQLITE_INTERNAL, {
        INITIALIZED.store(false, Ordering::Relaxed);
        SQLITE_OK
    })
}

/// Set up the operating-system layer (the default VFS). Called by
/// sqlite3_initialize; returns SQLITE_OK.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_os_init() -> c_int {
    ffi_guard!(SQLITE_INTERNAL, { SQLITE_OK })
}

/// Release the operating-system layer's resources. Returns SQLITE_OK.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_os_end() -> c_int {
    ffi_guard!(SQLITE_INTERNAL, { SQLITE_OK })
}

/// `sqlite3_config` after the shim pulled the op's arguments.
#[no_mangle]
pub unsafe extern "C" fn ringlite_capi_config(op: c_int, i0: i64, i1: i64, p0: *mut c_void, p1: *mut c_void) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `p0`, `p1` are NULL or valid for
    // what the API does with them (read for the length given, or handed back to callbacks untouched).
    unsafe {
        ffi_guard!(SQLITE_INTERNAL, {
            let _ = i1;
            match op {
                SQLITE_CONFIG_SINGLETHREAD | SQLITE_CONFIG_MULTITHREAD | SQLITE_CONFIG_SERIALIZED => SQLITE_OK,
                SQLITE_CONFIG_LOG => {
                    let f: Option<crate::error::LogFn> = std::mem::transmute::<*mut c_void, Option<crate::error::LogFn>>(p0);
                    crate::error::set_log(f.map(|f| (f, p1)));
                    SQLITE_OK
                }
                SQLITE_CONFIG_URI => {
                    URI.store(i0 != 0, Ordering::Relaxed);
                    SQLITE_OK
                }
                SQLITE_CONFIG_MEMSTATUS
                | SQLITE_CONFIG_LOOKASIDE
                | SQLITE_CONFIG_COVERING_INDEX_SCAN
                | SQLITE_CONFIG_MMAP_SIZE
                | SQLITE_CONFIG_STMTJRNL_SPILL
                | SQLITE_CONFIG_SMALL_MALLOC
                | SQLITE_CONFIG_SORTERREF_SIZE
                | SQLITE_CONFIG_MEMDB_MAXSIZE
                | SQLITE_CONFIG_PMASZ
                | SQLITE_CONFIG_PAGECACHE
                | SQLITE_CONFIG_WIN32_HEAPSIZE => SQLITE_OK,
                SQLITE_CONFIG_PCACHE_HDRSZ => {
                    if !p0.is_null() {
                        *(p0 as *mut c_int) = 0;
                    }
                    SQLITE_OK
                }
                _ => {
                    crate::error::log(SQLITE_ERROR, &format!("sqlite3_config({op}) is not supported by ringlite yet"));
                    SQLITE_ERROR
                }
            }
        })
    }
}

/// `sqlite3_db_config` after the shim pulled the op's arguments.
#[no_mangle]
pub unsafe extern "C" fn ringlite_capi_db_config(
    db: *mut sqlite3,
    op: c_int,
    value: c_int,
    out: *mut c_int,
    name: *const c_char,
    p: *mut c_void,
    sz: c_int,
    cnt: c_int,
) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed; `name` is NULL or NUL-terminated (or readable for the length given
    // with it); `p` is NULL or valid for what the API does with it (read for the length given, or handed back
    // to callbacks untouched); `out` is NULL or writable.
    unsafe {
        ffi_guard!(SQLITE_INTERNAL, {
            let _ = (p, sz, cnt);
            let Some(d) = db_ref(db) else {
                return crate::error::misuse();
            };
            let _g = d.lock.lock();
            match op {
                SQLITE_DBCONFIG_MAINDBNAME => {
                    let _ = name.as_ref().map(|n| CStr::from_ptr(n));
                    SQLITE_OK
                }
                SQLITE_DBCONFIG_LOOKASIDE => SQLITE_OK,
                SQLITE_DBCONFIG_ENABLE_FKEY
                | SQLITE_DBCONFIG_LEGACY_ALTER_TABLE
                | SQLITE_DBCONFIG_WRITABLE_SCHEMA
                | SQLITE_DBCONFIG_TRUSTED_SCHEMA
                | SQLITE_DBCONFIG_DQS_DML
                | SQLITE_DBCONFIG_DQS_DDL
                | SQLITE_DBCONFIG_DEFENSIVE
                | SQLITE_DBCONFIG_ENABLE_TRIGGER
                | SQLITE_DBCONFIG_ENABLE_VIEW => {
                    let flag = match op {
                        SQLITE_DBCONFIG_ENABLE_FKEY => ringlite::ConfigFlag::ForeignKeys,
                        SQLITE_DBCONFIG_LEGACY_ALTER_TABLE => ringlite::ConfigFlag::LegacyAlterTable,
                        SQLITE_DBCONFIG_TRUSTED_SCHEMA => ringlite::ConfigFlag::TrustedSchema,
                        SQLITE_DBCONFIG_DQS_DML => ringlite::ConfigFlag::DqsDml,
                        SQLITE_DBCONFIG_DQS_DDL => ringlite::ConfigFlag::DqsDdl,
                        SQLITE_DBCONFIG_DEFENSIVE => ringlite::ConfigFlag::Defensive,
                        SQLITE_DBCONFIG_ENABLE_TRIGGER => ringlite::ConfigFlag::EnableTrigger,
                        SQLITE_DBCONFIG_ENABLE_VIEW => ringlite::ConfigFlag::EnableView,
                        _ => ringlite::ConfigFlag::WritableSchema,
                    };
                    let set = (value >= 0).then_some(value > 0);
                    match d.with_conn(|c| c.config_flag(flag, set)) {
                        Ok(now) => {
                            if !out.is_null() {
                                *out = now as c_int;
                            }
                            SQLITE_OK
                        }
                        Err(e) => {
                            crate::error::set_error(d, e.code, Some(&e.message));
                            e.primary()
                        }
                    }
                }
                // The switch of `fts3_tokenizer()`, kept by the engine's
                // tokenizer names (on by default, as Debian builds SQLite).
                SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER => {
                    let reg = match d.with_conn(|c| c.extension_state::<ringlite::ext::fts3::tokenizer::registry::Registry>()) {
                        Ok(r) => r,
                        Err(_) => return SQLITE_MISUSE,
                    };
                    if value >= 0 {
                        reg.set_enabled(value > 0);
                    }
                    if !out.is_null() {
                        *out = reg.enabled() as c_int;
                    }
                    SQLITE_OK
                }
                // Switches kept here for the feature that reads them (loading
                // extensions: `extension.rs`) or for features ringlite lacks
                // (scan status) or whose guarantee it keeps anyway (its plans
                // never change with statistics): the flag is what it says, and
                // the feature's own API answers for itself.
                SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION | SQLITE_DBCONFIG_ENABLE_QPSG | SQLITE_DBCONFIG_STMT_SCANSTATUS => {
                    let mut cfg = d.db_config.borrow_mut();
                    let cur = cfg.entry(op).or_insert(0);
                    if value >= 0 {
                        *cur = (value > 0) as i32;
                    }
                    if !out.is_null() {
                        *out = *cur;
                    }
                    SQLITE_OK
                }
                SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE => {
                    let now = match d.with_conn(|c| c.no_checkpoint_on_close(if value >= 0 { Some(value > 0) } else { None })) {
                        Ok(v) => v,
                        Err(_) => return SQLITE_MISUSE,
                    };
                    if !out.is_null() {
                        *out = now as c_int;
                    }
                    SQLITE_OK
                }
                // Behaviours ringlite has one way only: asking reports it,
                // asking for it succeeds, asking for the other is refused (the
                // out value still tells the truth, for callers that ignore the
                // result code).
                SQLITE_DBCONFIG_ENABLE_TRIGGER..=SQLITE_DBCONFIG_MAX if op != SQLITE_DBCONFIG_FP_DIGITS => {
                    let fixed = match op {
                        SQLITE_DBCONFIG_ENABLE_ATTACH_CREATE | SQLITE_DBCONFIG_ENABLE_ATTACH_WRITE | SQLITE_DBCONFIG_ENABLE_COMMENTS => 1,
                        _ => 0,
                    };
                    if !out.is_null() {
                        *out = fixed;
                    }
                    if value >= 0 && (value > 0) as c_int != fixed {
                        crate::error::set_error(
                            d,
                            SQLITE_ERROR,
                            Some(&format!("sqlite3_db_config({op}, {}) is not supported by ringlite yet", (value > 0) as c_int)),
                        );
                        return SQLITE_ERROR;
                    }
                    SQLITE_OK
                }
                // An op SQLite does not know either: an error, with the
                // connection's error state untouched.
                _ if !(SQLITE_DBCONFIG_MAINDBNAME..=SQLITE_DBCONFIG_MAX).contains(&op) => SQLITE_ERROR,
                _ => {
                    crate::error::set_error(d, SQLITE_ERROR, Some(&format!("sqlite3_db_config({op}) is not supported by ringlite yet")));
                    SQLITE_ERROR
                }
            }
        })
    }
}

/// `sqlite3_test_control`: no test hooks in ringlite.
#[no_mangle]
pub unsafe extern "C" fn ringlite_capi_test_control(op: c_int) -> c_int {
    ffi_guard!(0, {
        let _ = op;
        0
    })
}
