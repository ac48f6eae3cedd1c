//! # The API's public structures, with SQLite's layouts
//!
//! Structures that applications fill in or read (VFS and file method
//! tables, virtual-table module and index descriptions, allocator, mutex
//! and page-cache method tables, snapshots). ringlite calls through an
//! application's VFS and file method tables (`vfs_backend.rs`) and a
//! virtual-table module's (`vtab.rs`); `sqlite3_config` refuses the
//! allocator, mutex and page-cache tables as not supported (`config.rs`). Their layouts are part of the ABI: code written against
//! SQLite's header compiles against ours and sees the same offsets (checked
//! by `capi/tests/run.sh` against the reference header). Each field's doc
//! comment lands in include/sqlite3.h.
//!
//! One thing C says that Rust cannot: SQLite declares `xShmMap`'s last
//! parameter `void volatile**`; here it is `void**`, the same in the ABI.

use crate::function::sqlite3_context;
use crate::handle::sqlite3;
use crate::mutex::sqlite3_mutex;
use crate::types::{sqlite3_filename, sqlite3_int64, sqlite3_pcache, sqlite3_shm_ptr, sqlite3_syscall_ptr, sqlite3_uint64};
use crate::value::sqlite3_value;
use std::ffi::{c_char, c_int, c_uchar, c_uint, c_void};

/// An open file. A VFS's xOpen fills in one of `szOsFile` bytes, whose
/// first member is this structure.
#[repr(C)]
pub struct sqlite3_file {
    /// The file's methods.
    pub pMethods: *const sqlite3_io_methods,
}

/// The methods of an open file, called by the library on the files its VFS
/// opened.
#[repr(C)]
pub struct sqlite3_io_methods {
    /// Which methods exist: 1 up to xDeviceCharacteristics, 2 adds the shared-memory ones, 3 xFetch and xUnfetch.
    pub iVersion: c_int,
    /// Close the file.
    pub xClose: Option<unsafe extern "C" fn(*mut sqlite3_file) -> c_int>,
    /// Read amount bytes at offset into the buffer; a short read fills the rest with zeros and returns SQLITE_IOERR_SHORT_READ.
    pub xRead: Option<unsafe extern "C" fn(*mut sqlite3_file, *mut c_void, c_int, sqlite3_int64) -> c_int>,
    /// Write amount bytes from the buffer at offset.
    pub xWrite: Option<unsafe extern "C" fn(*mut sqlite3_file, *const c_void, c_int, sqlite3_int64) -> c_int>,
    /// Cut the file to the given size.
    pub xTruncate: Option<unsafe extern "C" fn(*mut sqlite3_file, sqlite3_int64) -> c_int>,
    /// Flush the file to stable storage (SQLITE_SYNC_* flags).
    pub xSync: Option<unsafe extern "C" fn(*mut sqlite3_file, c_int) -> c_int>,
    /// Store the file's size in bytes.
    pub xFileSize: Option<unsafe extern "C" fn(*mut sqlite3_file, *mut sqlite3_int64) -> c_int>,
    /// Raise the file's lock to the given SQLITE_LOCK_* level.
    pub xLock: Option<unsafe extern "C" fn(*mut sqlite3_file, c_int) -> c_int>,
    /// Lower the file's lock to the given level.
    pub xUnlock: Option<unsafe extern "C" fn(*mut sqlite3_file, c_int) -> c_int>,
    /// Store whether any connection holds a RESERVED or higher lock.
    pub xCheckReservedLock: Option<unsafe extern "C" fn(*mut sqlite3_file, *mut c_int) -> c_int>,
    /// Answer a file-control opcode (SQLITE_NOTFOUND for unknown ones).
    pub xFileControl: Option<unsafe extern "C" fn(*mut sqlite3_file, c_int, *mut c_void) -> c_int>,
    /// The device's atomic write size in bytes.
    pub xSectorSize: Option<unsafe extern "C" fn(*mut sqlite3_file) -> c_int>,
    /// The SQLITE_IOCAP_* flags of the device.
    pub xDeviceCharacteristics: Option<unsafe extern "C" fn(*mut sqlite3_file) -> c_int>,
    /// Map region n (of the given size) of the WAL index's shared memory.
    pub xShmMap: Option<unsafe extern "C" fn(*mut sqlite3_file, c_int, c_int, c_int, *mut sqlite3_shm_ptr) -> c_int>,
    /// Take or release shared-memory locks (SQLITE_SHM_* flags).
    pub xShmLock: Option<unsafe extern "C" fn(*mut sqlite3_file, c_int, c_int, c_int) -> c_int>,
    /// Memory barrier between shared-memory accesses.
    pub xShmBarrier: Option<unsafe extern "C" fn(*mut sqlite3_file)>,
    /// Unmap the shared memory, deleting it when asked.
    pub xShmUnmap: Option<unsafe extern "C" fn(*mut sqlite3_file, c_int) -> c_int>,
    /// Hand out a pointer to file content mapped in memory, or NULL.
    pub xFetch: Option<unsafe extern "C" fn(*mut sqlite3_file, sqlite3_int64, c_int, *mut *mut c_void) -> c_int>,
    /// Give back a pointer from xFetch.
    pub xUnfetch: Option<unsafe extern "C" fn(*mut sqlite3_file, sqlite3_int64, *mut c_void) -> c_int>,
}

/// A virtual file system: how the library opens, deletes and checks files,
/// and gets time and randomness. Register one with sqlite3_vfs_register.
#[repr(C)]
pub struct sqlite3_vfs {
    /// Which methods exist: 1 up to xGetLastError, 2 adds xCurrentTimeInt64, 3 the system-call ones.
    pub iVersion: c_int,
    /// The size of this VFS's sqlite3_file subclass, allocated by the caller of xOpen.
    pub szOsFile: c_int,
    /// The longest path name xFullPathname may produce.
    pub mxPathname: c_int,
    /// Next VFS in the registry (owned by the library).
    pub pNext: *mut sqlite3_vfs,
    /// The VFS's name, unique in the registry.
    pub zName: *const c_char,
    /// Free for the VFS's own use.
    pub pAppData: *mut c_void,
    /// Open a file: fill in the sqlite3_file and its pMethods (NULL pMethods on failure).
    pub xOpen: Option<unsafe extern "C" fn(*mut sqlite3_vfs, sqlite3_filename, *mut sqlite3_file, c_int, *mut c_int) -> c_int>,
    /// Delete a file, syncing its directory when asked.
    pub xDelete: Option<unsafe extern "C" fn(*mut sqlite3_vfs, *const c_char, c_int) -> c_int>,
    /// Store whether a file exists or is readable/writable (SQLITE_ACCESS_*).
    pub xAccess: Option<unsafe extern "C" fn(*mut sqlite3_vfs, *const c_char, c_int, *mut c_int) -> c_int>,
    /// Write the absolute path of a file name.
    pub xFullPathname: Option<unsafe extern "C" fn(*mut sqlite3_vfs, *const c_char, c_int, *mut c_char) -> c_int>,
    /// Open a shared library (loadable extensions).
    pub xDlOpen: Option<unsafe extern "C" fn(*mut sqlite3_vfs, *const c_char) -> *mut c_void>,
    /// Write the last shared-library error.
    pub xDlError: Option<unsafe extern "C" fn(*mut sqlite3_vfs, c_int, *mut c_char)>,
    /// Look up a symbol of a shared library.
    pub xDlSym: Option<unsafe extern "C" fn(*mut sqlite3_vfs, *mut c_void, *const c_char) -> Option<unsafe extern "C" fn()>>,
    /// Close a shared library.
    pub xDlClose: Option<unsafe extern "C" fn(*mut sqlite3_vfs, *mut c_void)>,
    /// Fill a buffer with random bytes (seeds the PRNG).
    pub xRandomness: Option<unsafe extern "C" fn(*mut sqlite3_vfs, c_int, *mut c_char) -> c_int>,
    /// Sleep for some microseconds; return how many were slept.
    pub xSleep: Option<unsafe extern "C" fn(*mut sqlite3_vfs, c_int) -> c_int>,
    /// Store the current time as a Julian day number.
    pub xCurrentTime: Option<unsafe extern "C" fn(*mut sqlite3_vfs, *mut f64) -> c_int>,
    /// Describe the last OS error.
    pub xGetLastError: Option<unsafe extern "C" fn(*mut sqlite3_vfs, c_int, *mut c_char) -> c_int>,
    /// Store the current time in milliseconds since the Julian epoch.
    pub xCurrentTimeInt64: Option<unsafe extern "C" fn(*mut sqlite3_vfs, *mut sqlite3_int64) -> c_int>,
    /// Override a system call of the VFS (testing).
    pub xSetSystemCall: Option<unsafe extern "C" fn(*mut sqlite3_vfs, *const c_char, sqlite3_syscall_ptr) -> c_int>,
    /// The current implementation of a system call.
    pub xGetSystemCall: Option<unsafe extern "C" fn(*mut sqlite3_vfs, *const c_char) -> sqlite3_syscall_ptr>,
    /// Name of the system call after the named one.
    pub xNextSystemCall: Option<unsafe extern "C" fn(*mut sqlite3_vfs, *const c_char) -> *const c_char>,
}

/// A memory allocator (`SQLITE_CONFIG_MALLOC`); installing one is not
/// supported by ringlite yet (sqlite3_config returns SQLITE_ERROR).
#[repr(C)]
pub struct sqlite3_mem_methods {
    /// Allocate memory.
    pub xMalloc: Option<unsafe extern "C" fn(c_int) -> *mut c_void>,
    /// Free memory.
    pub xFree: Option<unsafe extern "C" fn(*mut c_void)>,
    /// Resize an allocation.
    pub xRealloc: Option<unsafe extern "C" fn(*mut c_void, c_int) -> *mut c_void>,
    /// The size of an allocation.
    pub xSize: Option<unsafe extern "C" fn(*mut c_void) -> c_int>,
    /// Round a request up to the size xMalloc would give.
    pub xRoundup: Option<unsafe extern "C" fn(c_int) -> c_int>,
    /// Initialize the allocator.
    pub xInit: Option<unsafe extern "C" fn(*mut c_void) -> c_int>,
    /// Shut the allocator down.
    pub xShutdown: Option<unsafe extern "C" fn(*mut c_void)>,
    /// Argument of xInit and xShutdown.
    pub pAppData: *mut c_void,
}

/// A mutex implementation (`SQLITE_CONFIG_MUTEX`); installing one is not
/// supported by ringlite yet (sqlite3_config returns SQLITE_ERROR).
#[repr(C)]
pub struct sqlite3_mutex_methods {
    /// Initialize the mutex system.
    pub xMutexInit: Option<unsafe extern "C" fn() -> c_int>,
    /// Shut it down.
    pub xMutexEnd: Option<unsafe extern "C" fn() -> c_int>,
    /// Allocate a mutex (as sqlite3_mutex_alloc).
    pub xMutexAlloc: Option<unsafe extern "C" fn(c_int) -> *mut sqlite3_mutex>,
    /// Free a mutex.
    pub xMutexFree: Option<unsafe extern "C" fn(*mut sqlite3_mutex)>,
    /// Lock, waiting.
    pub xMutexEnter: Option<unsafe extern "C" fn(*mut sqlite3_mutex)>,
    /// Lock if free (SQLITE_OK) or SQLITE_BUSY.
    pub xMutexTry: Option<unsafe extern "C" fn(*mut sqlite3_mutex) -> c_int>,
    /// Unlock.
    pub xMutexLeave: Option<unsafe extern "C" fn(*mut sqlite3_mutex)>,
    /// Nonzero if held by the caller (assertions).
    pub xMutexHeld: Option<unsafe extern "C" fn(*mut sqlite3_mutex) -> c_int>,
    /// Nonzero if not held by the caller.
    pub xMutexNotheld: Option<unsafe extern "C" fn(*mut sqlite3_mutex) -> c_int>,
}

/// A virtual table implementation, registered with sqlite3_create_module.
#[repr(C)]
pub struct sqlite3_module {
    /// Which methods exist: 1 up to xRename, 2 adds the savepoint ones, 3 xShadowName, 4 xIntegrity.
    pub iVersion: c_int,
    /// Create a new virtual table (CREATE VIRTUAL TABLE), declaring its columns with sqlite3_declare_vtab.
    pub xCreate: Option<unsafe extern "C" fn(*mut sqlite3, *mut c_void, c_int, *const *const c_char, *mut *mut sqlite3_vtab, *mut *mut c_char) -> c_int>,
    /// Connect to an existing virtual table (schema load).
    pub xConnect: Option<unsafe extern "C" fn(*mut sqlite3, *mut c_void, c_int, *const *const c_char, *mut *mut sqlite3_vtab, *mut *mut c_char) -> c_int>,
    /// Choose how to run a query from its constraints and ORDER BY.
    pub xBestIndex: Option<unsafe extern "C" fn(*mut sqlite3_vtab, *mut sqlite3_index_info) -> c_int>,
    /// Release a table instance.
    pub xDisconnect: Option<unsafe extern "C" fn(*mut sqlite3_vtab) -> c_int>,
    /// Release a table instance and drop its storage (DROP TABLE).
    pub xDestroy: Option<unsafe extern "C" fn(*mut sqlite3_vtab) -> c_int>,
    /// Open a cursor.
    pub xOpen: Option<unsafe extern "C" fn(*mut sqlite3_vtab, *mut *mut sqlite3_vtab_cursor) -> c_int>,
    /// Close a cursor.
    pub xClose: Option<unsafe extern "C" fn(*mut sqlite3_vtab_cursor) -> c_int>,
    /// Start a scan with the plan xBestIndex chose and its arguments.
    pub xFilter: Option<unsafe extern "C" fn(*mut sqlite3_vtab_cursor, c_int, *const c_char, c_int, *mut *mut sqlite3_value) -> c_int>,
    /// Move the cursor to the next row.
    pub xNext: Option<unsafe extern "C" fn(*mut sqlite3_vtab_cursor) -> c_int>,
    /// Nonzero once the cursor is past the last row.
    pub xEof: Option<unsafe extern "C" fn(*mut sqlite3_vtab_cursor) -> c_int>,
    /// Give column i of the current row with a sqlite3_result_* call.
    pub xColumn: Option<unsafe extern "C" fn(*mut sqlite3_vtab_cursor, *mut sqlite3_context, c_int) -> c_int>,
    /// Store the current row's rowid.
    pub xRowid: Option<unsafe extern "C" fn(*mut sqlite3_vtab_cursor, *mut sqlite3_int64) -> c_int>,
    /// Delete, insert or update a row (NULL for read-only tables).
    pub xUpdate: Option<unsafe extern "C" fn(*mut sqlite3_vtab, c_int, *mut *mut sqlite3_value, *mut sqlite3_int64) -> c_int>,
    /// Start a transaction.
    pub xBegin: Option<unsafe extern "C" fn(*mut sqlite3_vtab) -> c_int>,
    /// First phase of a commit.
    pub xSync: Option<unsafe extern "C" fn(*mut sqlite3_vtab) -> c_int>,
    /// Commit.
    pub xCommit: Option<unsafe extern "C" fn(*mut sqlite3_vtab) -> c_int>,
    /// Roll back.
    pub xRollback: Option<unsafe extern "C" fn(*mut sqlite3_vtab) -> c_int>,
    /// Offer an overloading implementation of an SQL function for this table.
    pub xFindFunction: Option<
        unsafe extern "C" fn(
            *mut sqlite3_vtab,
            c_int,
            *const c_char,
            *mut Option<unsafe extern "C" fn(*mut sqlite3_context, c_int, *mut *mut sqlite3_value)>,
            *mut *mut c_void,
        ) -> c_int,
    >,
    /// Rename the table (ALTER TABLE RENAME).
    pub xRename: Option<unsafe extern "C" fn(*mut sqlite3_vtab, *const c_char) -> c_int>,
    /// Open savepoint n.
    pub xSavepoint: Option<unsafe extern "C" fn(*mut sqlite3_vtab, c_int) -> c_int>,
    /// Release savepoint n.
    pub xRelease: Option<unsafe extern "C" fn(*mut sqlite3_vtab, c_int) -> c_int>,
    /// Roll back to savepoint n.
    pub xRollbackTo: Option<unsafe extern "C" fn(*mut sqlite3_vtab, c_int) -> c_int>,
    /// Nonzero if a table-name suffix names one of the module's shadow tables.
    pub xShadowName: Option<unsafe extern "C" fn(*const c_char) -> c_int>,
    /// Check the table's consistency (PRAGMA integrity_check).
    pub xIntegrity: Option<unsafe extern "C" fn(*mut sqlite3_vtab, *const c_char, *const c_char, c_int, *mut *mut c_char) -> c_int>,
}

/// One WHERE-clause constraint given to xBestIndex.
#[repr(C)]
pub struct sqlite3_index_constraint {
    /// Column constrained (-1 for the rowid).
    pub iColumn: c_int,
    /// Operator (SQLITE_INDEX_CONSTRAINT_*).
    pub op: c_uchar,
    /// Nonzero if the constraint can be used in this plan.
    pub usable: c_uchar,
    /// Used internally; leave alone.
    pub iTermOffset: c_int,
}

/// One ORDER BY term given to xBestIndex.
#[repr(C)]
pub struct sqlite3_index_orderby {
    /// Column number.
    pub iColumn: c_int,
    /// Nonzero for descending order.
    pub desc: c_uchar,
}

/// How xBestIndex uses a constraint.
#[repr(C)]
pub struct sqlite3_index_constraint_usage {
    /// If positive, the constraint's value is argument argvIndex-1 of xFilter.
    pub argvIndex: c_int,
    /// Nonzero if the library need not check the constraint again.
    pub omit: c_uchar,
}

/// The question and answer of xBestIndex.
#[repr(C)]
pub struct sqlite3_index_info {
    /// Input: the number of constraints.
    pub nConstraint: c_int,
    /// Input: the WHERE-clause constraints.
    pub aConstraint: *mut sqlite3_index_constraint,
    /// Input: the number of ORDER BY terms.
    pub nOrderBy: c_int,
    /// Input: the ORDER BY terms.
    pub aOrderBy: *mut sqlite3_index_orderby,
    /// Output: how each constraint is used.
    pub aConstraintUsage: *mut sqlite3_index_constraint_usage,
    /// Output: a number passed to xFilter.
    pub idxNum: c_int,
    /// Output: a string passed to xFilter.
    pub idxStr: *mut c_char,
    /// Output: nonzero if idxStr must be freed with sqlite3_free.
    pub needToFreeIdxStr: c_int,
    /// Output: nonzero if rows come out already in ORDER BY order.
    pub orderByConsumed: c_int,
    /// Output: estimated cost of the plan.
    pub estimatedCost: f64,
    /// Output: estimated number of rows.
    pub estimatedRows: sqlite3_int64,
    /// Output: SQLITE_INDEX_SCAN_* flags.
    pub idxFlags: c_int,
    /// Input: the columns the statement uses (bit 63 for the 64th and later).
    pub colUsed: sqlite3_uint64,
}

/// The base of a virtual table instance.
#[repr(C)]
pub struct sqlite3_vtab {
    /// The module of this table.
    pub pModule: *const sqlite3_module,
    /// Used internally; leave alone.
    pub nRef: c_int,
    /// An error message from sqlite3_mprintf, which the library frees.
    pub zErrMsg: *mut c_char,
}

/// The base of a virtual table cursor.
#[repr(C)]
pub struct sqlite3_vtab_cursor {
    /// The table this cursor scans.
    pub pVtab: *mut sqlite3_vtab,
}

/// A page of an application page cache.
#[repr(C)]
pub struct sqlite3_pcache_page {
    /// The page's content.
    pub pBuf: *mut c_void,
    /// Extra bytes the library keeps with the page.
    pub pExtra: *mut c_void,
}

/// An application page cache (`SQLITE_CONFIG_PCACHE2`); installing one is
/// not supported by ringlite yet (sqlite3_config returns SQLITE_ERROR).
#[repr(C)]
pub struct sqlite3_pcache_methods2 {
    /// Structure version (1 or 2).
    pub iVersion: c_int,
    /// Argument of xInit and xShutdown.
    pub pArg: *mut c_void,
    /// Initialize the cache implementation.
    pub xInit: Option<unsafe extern "C" fn(*mut c_void) -> c_int>,
    /// Shut it down.
    pub xShutdown: Option<unsafe extern "C" fn(*mut c_void)>,
    /// Create a cache of pages of a size, extra bytes, purgeable or not.
    pub xCreate: Option<unsafe extern "C" fn(c_int, c_int, c_int) -> *mut sqlite3_pcache>,
    /// Set the suggested maximum number of pages.
    pub xCachesize: Option<unsafe extern "C" fn(*mut sqlite3_pcache, c_int)>,
    /// The number of pages in the cache.
    pub xPagecount: Option<unsafe extern "C" fn(*mut sqlite3_pcache) -> c_int>,
    /// Find a page by number, creating it as asked.
    pub xFetch: Option<unsafe extern "C" fn(*mut sqlite3_pcache, c_uint, c_int) -> *mut sqlite3_pcache_page>,
    /// Release a page, discarding it when asked.
    pub xUnpin: Option<unsafe extern "C" fn(*mut sqlite3_pcache, *mut sqlite3_pcache_page, c_int)>,
    /// Change a page's number.
    pub xRekey: Option<unsafe extern "C" fn(*mut sqlite3_pcache, *mut sqlite3_pcache_page, c_uint, c_uint)>,
    /// Drop the pages from a number on.
    pub xTruncate: Option<unsafe extern "C" fn(*mut sqlite3_pcache, c_uint)>,
    /// Destroy the cache.
    pub xDestroy: Option<unsafe extern "C" fn(*mut sqlite3_pcache)>,
    /// Free as much memory as possible.
    pub xShrink: Option<unsafe extern "C" fn(*mut sqlite3_pcache)>,
}

/// A database snapshot of a WAL database (opaque bytes); the snapshot
/// functions are not supported by ringlite yet.
#[repr(C)]
pub struct sqlite3_snapshot {
    /// Opaque content.
    pub hidden: [c_uchar; 48],
}

/// What an R*Tree geometry callback (`sqlite3_rtree_geometry_callback`)
/// is handed: the same structure for every call of one MATCH in one query.
#[repr(C)]
pub struct sqlite3_rtree_geometry {
    /// The `pContext` given at registration.
    pub pContext: *mut c_void,
    /// Number of arguments the SQL function was called with.
    pub nParam: c_int,
    /// Those arguments as numbers.
    pub aParam: *mut f64,
    /// The callback's own per-query data (NULL at first).
    pub pUser: *mut c_void,
    /// Called with `pUser` when the query ends, if set.
    pub xDelUser: Option<unsafe extern "C" fn(*mut c_void)>,
}

/// What an R*Tree query callback (`sqlite3_rtree_query_callback`) is
/// handed for each node box or entry, and where it answers (`eWithin`,
/// `rScore`). Its first five fields are those of
/// [`sqlite3_rtree_geometry`].
#[repr(C)]
pub struct sqlite3_rtree_query_info {
    /// The `pContext` given at registration.
    pub pContext: *mut c_void,
    /// Number of arguments of the SQL function.
    pub nParam: c_int,
    /// Those arguments as numbers.
    pub aParam: *mut f64,
    /// The callback's own per-query data (NULL at first).
    pub pUser: *mut c_void,
    /// Called with `pUser` when the query ends, if set.
    pub xDelUser: Option<unsafe extern "C" fn(*mut c_void)>,
    /// Lower and upper bound per dimension of the box or entry.
    pub aCoord: *mut f64,
    /// Entries waiting in the priority queue, per level (`mxLevel + 1`).
    pub anQueue: *mut c_uint,
    /// Number of coordinates (twice the dimensions).
    pub nCoord: c_int,
    /// Level of the box: 0 for an entry.
    pub iLevel: c_int,
    /// Level of the root.
    pub mxLevel: c_int,
    /// The entry's id (entries only).
    pub iRowid: sqlite3_int64,
    /// Score the containing node was given.
    pub rParentScore: f64,
    /// Visibility the containing node was given.
    pub eParentWithin: c_int,
    /// Out: NOT_WITHIN, PARTLY_WITHIN or FULLY_WITHIN.
    pub eWithin: c_int,
    /// Out: the score; smaller scores are visited first.
    pub rScore: f64,
    /// The SQL function's arguments as values.
    pub apSqlParam: *mut *mut sqlite3_value,
}
