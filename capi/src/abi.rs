//! # The API's public structures, with SQLite's layouts
//!
//! Structures that applications fill in or read (VFS and file method
//! tables, virtual-table module and index descriptions, allocator, mutex
//! and page-cache method tables, snapshots). ringlite does not call through
//! them yet (the functions taking them report "not supported"), but their
//! layouts are part of the ABI: code written against SQLite's header
//! compiles against ours and sees the same offsets (checked by
//! `capi/tests/run.sh` against the system header).
//!
//! One thing C says that Rust cannot: SQLite declares `xShmMap`'s last
//! parameter `void volatile**`; here it is `void**`, the same in the ABI.

#![allow(non_snake_case)]

use crate::function::sqlite3_context;
use crate::mutex::sqlite3_mutex;
use crate::types::{sqlite3, sqlite3_filename, sqlite3_int64, sqlite3_pcache, sqlite3_shm_ptr, sqlite3_syscall_ptr, sqlite3_uint64};
use crate::value::sqlite3_value;
use std::ffi::{c_char, c_int, c_uchar, c_uint, c_void};

/// An open file, as a VFS subclasses it.
#[repr(C)]
pub struct sqlite3_file {
    /// The file's methods.
    pub pMethods: *const sqlite3_io_methods,
}

/// The methods of an open file.
#[repr(C)]
pub struct sqlite3_io_methods {
    pub iVersion: c_int,
    pub xClose: Option<unsafe extern "C" fn(*mut sqlite3_file) -> c_int>,
    pub xRead: Option<unsafe extern "C" fn(*mut sqlite3_file, *mut c_void, c_int, sqlite3_int64) -> c_int>,
    pub xWrite: Option<unsafe extern "C" fn(*mut sqlite3_file, *const c_void, c_int, sqlite3_int64) -> c_int>,
    pub xTruncate: Option<unsafe extern "C" fn(*mut sqlite3_file, sqlite3_int64) -> c_int>,
    pub xSync: Option<unsafe extern "C" fn(*mut sqlite3_file, c_int) -> c_int>,
    pub xFileSize: Option<unsafe extern "C" fn(*mut sqlite3_file, *mut sqlite3_int64) -> c_int>,
    pub xLock: Option<unsafe extern "C" fn(*mut sqlite3_file, c_int) -> c_int>,
    pub xUnlock: Option<unsafe extern "C" fn(*mut sqlite3_file, c_int) -> c_int>,
    pub xCheckReservedLock: Option<unsafe extern "C" fn(*mut sqlite3_file, *mut c_int) -> c_int>,
    pub xFileControl: Option<unsafe extern "C" fn(*mut sqlite3_file, c_int, *mut c_void) -> c_int>,
    pub xSectorSize: Option<unsafe extern "C" fn(*mut sqlite3_file) -> c_int>,
    pub xDeviceCharacteristics: Option<unsafe extern "C" fn(*mut sqlite3_file) -> c_int>,
    pub xShmMap: Option<unsafe extern "C" fn(*mut sqlite3_file, c_int, c_int, c_int, *mut sqlite3_shm_ptr) -> c_int>,
    pub xShmLock: Option<unsafe extern "C" fn(*mut sqlite3_file, c_int, c_int, c_int) -> c_int>,
    pub xShmBarrier: Option<unsafe extern "C" fn(*mut sqlite3_file)>,
    pub xShmUnmap: Option<unsafe extern "C" fn(*mut sqlite3_file, c_int) -> c_int>,
    pub xFetch: Option<unsafe extern "C" fn(*mut sqlite3_file, sqlite3_int64, c_int, *mut *mut c_void) -> c_int>,
    pub xUnfetch: Option<unsafe extern "C" fn(*mut sqlite3_file, sqlite3_int64, *mut c_void) -> c_int>,
}

/// A virtual file system.
#[repr(C)]
pub struct sqlite3_vfs {
    pub iVersion: c_int,
    pub szOsFile: c_int,
    pub mxPathname: c_int,
    pub pNext: *mut sqlite3_vfs,
    pub zName: *const c_char,
    pub pAppData: *mut c_void,
    pub xOpen: Option<unsafe extern "C" fn(*mut sqlite3_vfs, sqlite3_filename, *mut sqlite3_file, c_int, *mut c_int) -> c_int>,
    pub xDelete: Option<unsafe extern "C" fn(*mut sqlite3_vfs, *const c_char, c_int) -> c_int>,
    pub xAccess: Option<unsafe extern "C" fn(*mut sqlite3_vfs, *const c_char, c_int, *mut c_int) -> c_int>,
    pub xFullPathname: Option<unsafe extern "C" fn(*mut sqlite3_vfs, *const c_char, c_int, *mut c_char) -> c_int>,
    pub xDlOpen: Option<unsafe extern "C" fn(*mut sqlite3_vfs, *const c_char) -> *mut c_void>,
    pub xDlError: Option<unsafe extern "C" fn(*mut sqlite3_vfs, c_int, *mut c_char)>,
    pub xDlSym: Option<unsafe extern "C" fn(*mut sqlite3_vfs, *mut c_void, *const c_char) -> Option<unsafe extern "C" fn()>>,
    pub xDlClose: Option<unsafe extern "C" fn(*mut sqlite3_vfs, *mut c_void)>,
    pub xRandomness: Option<unsafe extern "C" fn(*mut sqlite3_vfs, c_int, *mut c_char) -> c_int>,
    pub xSleep: Option<unsafe extern "C" fn(*mut sqlite3_vfs, c_int) -> c_int>,
    pub xCurrentTime: Option<unsafe extern "C" fn(*mut sqlite3_vfs, *mut f64) -> c_int>,
    pub xGetLastError: Option<unsafe extern "C" fn(*mut sqlite3_vfs, c_int, *mut c_char) -> c_int>,
    pub xCurrentTimeInt64: Option<unsafe extern "C" fn(*mut sqlite3_vfs, *mut sqlite3_int64) -> c_int>,
    pub xSetSystemCall: Option<unsafe extern "C" fn(*mut sqlite3_vfs, *const c_char, sqlite3_syscall_ptr) -> c_int>,
    pub xGetSystemCall: Option<unsafe extern "C" fn(*mut sqlite3_vfs, *const c_char) -> sqlite3_syscall_ptr>,
    pub xNextSystemCall: Option<unsafe extern "C" fn(*mut sqlite3_vfs, *const c_char) -> *const c_char>,
}

/// A memory allocator (`SQLITE_CONFIG_MALLOC`).
#[repr(C)]
pub struct sqlite3_mem_methods {
    pub xMalloc: Option<unsafe extern "C" fn(c_int) -> *mut c_void>,
    pub xFree: Option<unsafe extern "C" fn(*mut c_void)>,
    pub xRealloc: Option<unsafe extern "C" fn(*mut c_void, c_int) -> *mut c_void>,
    pub xSize: Option<unsafe extern "C" fn(*mut c_void) -> c_int>,
    pub xRoundup: Option<unsafe extern "C" fn(c_int) -> c_int>,
    pub xInit: Option<unsafe extern "C" fn(*mut c_void) -> c_int>,
    pub xShutdown: Option<unsafe extern "C" fn(*mut c_void)>,
    pub pAppData: *mut c_void,
}

/// A mutex implementation (`SQLITE_CONFIG_MUTEX`).
#[repr(C)]
pub struct sqlite3_mutex_methods {
    pub xMutexInit: Option<unsafe extern "C" fn() -> c_int>,
    pub xMutexEnd: Option<unsafe extern "C" fn() -> c_int>,
    pub xMutexAlloc: Option<unsafe extern "C" fn(c_int) -> *mut sqlite3_mutex>,
    pub xMutexFree: Option<unsafe extern "C" fn(*mut sqlite3_mutex)>,
    pub xMutexEnter: Option<unsafe extern "C" fn(*mut sqlite3_mutex)>,
    pub xMutexTry: Option<unsafe extern "C" fn(*mut sqlite3_mutex) -> c_int>,
    pub xMutexLeave: Option<unsafe extern "C" fn(*mut sqlite3_mutex)>,
    pub xMutexHeld: Option<unsafe extern "C" fn(*mut sqlite3_mutex) -> c_int>,
    pub xMutexNotheld: Option<unsafe extern "C" fn(*mut sqlite3_mutex) -> c_int>,
}

/// A virtual table implementation.
#[repr(C)]
pub struct sqlite3_module {
    pub iVersion: c_int,
    pub xCreate: Option<unsafe extern "C" fn(*mut sqlite3, *mut c_void, c_int, *const *const c_char, *mut *mut sqlite3_vtab, *mut *mut c_char) -> c_int>,
    pub xConnect: Option<unsafe extern "C" fn(*mut sqlite3, *mut c_void, c_int, *const *const c_char, *mut *mut sqlite3_vtab, *mut *mut c_char) -> c_int>,
    pub xBestIndex: Option<unsafe extern "C" fn(*mut sqlite3_vtab, *mut sqlite3_index_info) -> c_int>,
    pub xDisconnect: Option<unsafe extern "C" fn(*mut sqlite3_vtab) -> c_int>,
    pub xDestroy: Option<unsafe extern "C" fn(*mut sqlite3_vtab) -> c_int>,
    pub xOpen: Option<unsafe extern "C" fn(*mut sqlite3_vtab, *mut *mut sqlite3_vtab_cursor) -> c_int>,
    pub xClose: Option<unsafe extern "C" fn(*mut sqlite3_vtab_cursor) -> c_int>,
    pub xFilter: Option<unsafe extern "C" fn(*mut sqlite3_vtab_cursor, c_int, *const c_char, c_int, *mut *mut sqlite3_value) -> c_int>,
    pub xNext: Option<unsafe extern "C" fn(*mut sqlite3_vtab_cursor) -> c_int>,
    pub xEof: Option<unsafe extern "C" fn(*mut sqlite3_vtab_cursor) -> c_int>,
    pub xColumn: Option<unsafe extern "C" fn(*mut sqlite3_vtab_cursor, *mut sqlite3_context, c_int) -> c_int>,
    pub xRowid: Option<unsafe extern "C" fn(*mut sqlite3_vtab_cursor, *mut sqlite3_int64) -> c_int>,
    pub xUpdate: Option<unsafe extern "C" fn(*mut sqlite3_vtab, c_int, *mut *mut sqlite3_value, *mut sqlite3_int64) -> c_int>,
    pub xBegin: Option<unsafe extern "C" fn(*mut sqlite3_vtab) -> c_int>,
    pub xSync: Option<unsafe extern "C" fn(*mut sqlite3_vtab) -> c_int>,
    pub xCommit: Option<unsafe extern "C" fn(*mut sqlite3_vtab) -> c_int>,
    pub xRollback: Option<unsafe extern "C" fn(*mut sqlite3_vtab) -> c_int>,
    pub xFindFunction: Option<
        unsafe extern "C" fn(
            *mut sqlite3_vtab,
            c_int,
            *const c_char,
            *mut Option<unsafe extern "C" fn(*mut sqlite3_context, c_int, *mut *mut sqlite3_value)>,
            *mut *mut c_void,
        ) -> c_int,
    >,
    pub xRename: Option<unsafe extern "C" fn(*mut sqlite3_vtab, *const c_char) -> c_int>,
    pub xSavepoint: Option<unsafe extern "C" fn(*mut sqlite3_vtab, c_int) -> c_int>,
    pub xRelease: Option<unsafe extern "C" fn(*mut sqlite3_vtab, c_int) -> c_int>,
    pub xRollbackTo: Option<unsafe extern "C" fn(*mut sqlite3_vtab, c_int) -> c_int>,
    pub xShadowName: Option<unsafe extern "C" fn(*const c_char) -> c_int>,
    pub xIntegrity: Option<unsafe extern "C" fn(*mut sqlite3_vtab, *const c_char, *const c_char, c_int, *mut *mut c_char) -> c_int>,
}

/// One WHERE-clause constraint given to xBestIndex.
#[repr(C)]
pub struct sqlite3_index_constraint {
    pub iColumn: c_int,
    pub op: c_uchar,
    pub usable: c_uchar,
    pub iTermOffset: c_int,
}

/// One ORDER BY term given to xBestIndex.
#[repr(C)]
pub struct sqlite3_index_orderby {
    pub iColumn: c_int,
    pub desc: c_uchar,
}

/// How xBestIndex uses a constraint.
#[repr(C)]
pub struct sqlite3_index_constraint_usage {
    pub argvIndex: c_int,
    pub omit: c_uchar,
}

/// The question and answer of xBestIndex.
#[repr(C)]
pub struct sqlite3_index_info {
    pub nConstraint: c_int,
    pub aConstraint: *mut sqlite3_index_constraint,
    pub nOrderBy: c_int,
    pub aOrderBy: *mut sqlite3_index_orderby,
    pub aConstraintUsage: *mut sqlite3_index_constraint_usage,
    pub idxNum: c_int,
    pub idxStr: *mut c_char,
    pub needToFreeIdxStr: c_int,
    pub orderByConsumed: c_int,
    pub estimatedCost: f64,
    pub estimatedRows: sqlite3_int64,
    pub idxFlags: c_int,
    pub colUsed: sqlite3_uint64,
}

/// The base of a virtual table instance.
#[repr(C)]
pub struct sqlite3_vtab {
    pub pModule: *const sqlite3_module,
    pub nRef: c_int,
    pub zErrMsg: *mut c_char,
}

/// The base of a virtual table cursor.
#[repr(C)]
pub struct sqlite3_vtab_cursor {
    pub pVtab: *mut sqlite3_vtab,
}

/// A page of an application page cache.
#[repr(C)]
pub struct sqlite3_pcache_page {
    pub pBuf: *mut c_void,
    pub pExtra: *mut c_void,
}

/// An application page cache (`SQLITE_CONFIG_PCACHE2`).
#[repr(C)]
pub struct sqlite3_pcache_methods2 {
    pub iVersion: c_int,
    pub pArg: *mut c_void,
    pub xInit: Option<unsafe extern "C" fn(*mut c_void) -> c_int>,
    pub xShutdown: Option<unsafe extern "C" fn(*mut c_void)>,
    pub xCreate: Option<unsafe extern "C" fn(c_int, c_int, c_int) -> *mut sqlite3_pcache>,
    pub xCachesize: Option<unsafe extern "C" fn(*mut sqlite3_pcache, c_int)>,
    pub xPagecount: Option<unsafe extern "C" fn(*mut sqlite3_pcache) -> c_int>,
    pub xFetch: Option<unsafe extern "C" fn(*mut sqlite3_pcache, c_uint, c_int) -> *mut sqlite3_pcache_page>,
    pub xUnpin: Option<unsafe extern "C" fn(*mut sqlite3_pcache, *mut sqlite3_pcache_page, c_int)>,
    pub xRekey: Option<unsafe extern "C" fn(*mut sqlite3_pcache, *mut sqlite3_pcache_page, c_uint, c_uint)>,
    pub xTruncate: Option<unsafe extern "C" fn(*mut sqlite3_pcache, c_uint)>,
    pub xDestroy: Option<unsafe extern "C" fn(*mut sqlite3_pcache)>,
    pub xShrink: Option<unsafe extern "C" fn(*mut sqlite3_pcache)>,
}

/// A database snapshot (opaque bytes).
#[repr(C)]
pub struct sqlite3_snapshot {
    pub hidden: [c_uchar; 48],
}
