//! C types of the API that are plain aliases or that ringlite does not model
//! yet (opaque to both sides); the structures with public layouts are in
//! `abi.rs`. The header declares them itself (see
//! `cbindgen.toml`): `sqlite3_int64` must be `long long` exactly, which no Rust
//! type spells.

use std::ffi::{c_char, c_int, c_void};

/// `long long` in C.
pub type sqlite3_int64 = i64;
/// `unsigned long long` in C.
pub type sqlite3_uint64 = u64;
/// A database filename as SQLite hands it to VFSes and URI functions.
pub type sqlite3_filename = *const c_char;
/// Coordinate type of R-Tree callbacks.
pub type sqlite3_rtree_dbl = f64;
/// Destructor argument of `bind_*`/`result_*` (also `SQLITE_STATIC` = 0,
/// `SQLITE_TRANSIENT` = -1).
pub type sqlite3_destructor_type = Option<unsafe extern "C" fn(*mut c_void)>;
/// `sqlite3_exec` row callback.
pub type sqlite3_callback = Option<unsafe extern "C" fn(*mut c_void, c_int, *mut *mut c_char, *mut *mut c_char) -> c_int>;
/// VFS system-call override.
pub type sqlite3_syscall_ptr = Option<unsafe extern "C" fn()>;
/// `void volatile *`: a region of WAL-index shared memory from `xShmMap`
/// (the header spells the qualifier, which Rust has no type for).
pub type sqlite3_shm_ptr = *mut c_void;

macro_rules! opaque {
    ($($name:ident),* $(,)?) => {$(
        /// Opaque: not modelled by ringlite yet.
        #[repr(C)]
        pub struct $name {
            _private: [u8; 0],
        }
    )*};
}

opaque!(
    sqlite3_api_routines,
    sqlite3_blob,
    sqlite3_pcache,
    sqlite3_pcache_methods,
    sqlite3_backup,
    sqlite3_session,
    sqlite3_changeset_iter,
    sqlite3_changegroup,
    sqlite3_rebaser,
);
