//! # The VFS list: `sqlite3_vfs_register`, `_unregister`, `_find`
//!
//! SQLite keeps its VFS objects in a singly linked list through their
//! `pNext` fields; the first one is the default. Registering an object
//! already in the list moves it (to the front when it becomes the
//! default, else right after the default); unregistering unlinks it. The
//! list starts as SQLite 3.54.1's does on Linux: `unix`, `memdb`,
//! `unix-excl`, `unix-dotfile`, `unix-none`.
//!
//! Invariants: the `Vec` under [`LIST`] is the list's order, and every
//! member's `pNext` points to its successor (rewritten under the lock at
//! each change, as SQLite writes them); built-in objects live for the
//! whole process. Which object a connection opens with decides its I/O
//! path (see [`route`]).

use crate::abi::sqlite3_vfs;
use crate::consts::*;
use std::ffi::{c_char, c_int, CStr};
use std::sync::{Mutex, MutexGuard, OnceLock};

/// Built-in objects, in the list's initial order.
struct Builtins {
    unix: *mut sqlite3_vfs,
    memdb: *mut sqlite3_vfs,
    others: [*mut sqlite3_vfs; 3],
}
// SAFETY: the objects are leaked and only their `pNext` is ever written,
// under `LIST`'s lock.
unsafe impl Send for Builtins {}
unsafe impl Sync for Builtins {}

fn builtins() -> &'static Builtins {
    static B: OnceLock<Builtins> = OnceLock::new();
    B.get_or_init(|| {
        let make = |name: &'static CStr| Box::into_raw(Box::new(crate::vfs_unix::unix_vfs_object(name)));
        Builtins { unix: make(c"unix"), memdb: make(c"memdb"), others: [make(c"unix-excl"), make(c"unix-dotfile"), make(c"unix-none")] }
    })
}

/// The list, in order (raw pointers kept as addresses).
struct List(Vec<usize>);

static LIST: Mutex<Option<List>> = Mutex::new(None);

fn list() -> MutexGuard<'static, Option<List>> {
    let mut g = LIST.lock().unwrap_or_else(|p| p.into_inner());
    if g.is_none() {
        let b = builtins();
        let mut v = vec![b.unix as usize, b.memdb as usize];
        v.extend(b.others.iter().map(|p| *p as usize));
        let l = List(v);
        relink(&l);
        *g = Some(l);
    }
    g
}

fn relink(l: &List) {
    for (i, &p) in l.0.iter().enumerate() {
        let next = l.0.get(i + 1).copied().unwrap_or(0) as *mut sqlite3_vfs;
        // SAFETY: every member is a live VFS object (the application keeps
        // registered ones alive until it unregisters them).
        unsafe { (*(p as *mut sqlite3_vfs)).pNext = next };
    }
}

/// The object named `name` (`None`: the default), as `sqlite3_vfs_find`.
pub fn find(name: Option<&[u8]>) -> *mut sqlite3_vfs {
    let g = list();
    let Some(l) = g.as_ref() else {
        return std::ptr::null_mut();
    };
    let found = match name {
        None => l.0.first().copied(),
        // SAFETY: members are live and their names NUL-terminated.
        Some(n) => l.0.iter().copied().find(|&p| unsafe {
            let z = (*(p as *mut sqlite3_vfs)).zName;
            !z.is_null() && CStr::from_ptr(z).to_bytes() == n
        }),
    };
    found.unwrap_or(0) as *mut sqlite3_vfs
}

/// The built-in "unix" object, the VFS of connections on the engine's own
/// I/O (`SQLITE_FCNTL_VFS_POINTER`).
pub fn unix_object() -> *mut sqlite3_vfs {
    builtins().unix
}

/// How a connection opened through `vfs` does its I/O.
pub enum Route {
    /// One of our own unwrapped file objects: the engine's native I/O
    /// (io_uring or positioned system calls, its own POSIX locks), which
    /// is what that object's methods would do anyway, minus the calls.
    Native,
    /// The `memdb` object: an in-memory database.
    Memdb,
    /// An application's object: every file operation through its methods.
    Application(*mut sqlite3_vfs),
}

/// The route for `vfs` (non-null, from [`find`]).
pub fn route(vfs: *mut sqlite3_vfs) -> Route {
    let b = builtins();
    if vfs == b.memdb {
        Route::Memdb
    } else if vfs == b.unix || b.others.contains(&vfs) {
        Route::Native
    } else {
        Route::Application(vfs)
    }
}

/// How connections opened on built-in object `vfs` lock their database
/// files: `unix-dotfile` with a lock directory, `unix-none` not at all,
/// the others with POSIX locks.
pub fn lock_style(vfs: *mut sqlite3_vfs) -> ringlite::io::lock_style::LockStyle {
    use ringlite::io::lock_style::LockStyle;
    let b = builtins();
    if vfs == b.others[1] {
        LockStyle::Dotfile
    } else if vfs == b.others[2] {
        LockStyle::None
    } else {
        LockStyle::Posix
    }
}

/// The VFS object named `zVfsName` (NULL: the default one, the first in
/// the list), or NULL when none is registered under that name. The list
/// starts as SQLite's does on Linux: "unix" (the default), "memdb",
/// "unix-excl", "unix-dotfile", "unix-none".
///
/// "unix" opens real files (an application may wrap it: copy the
/// object, replace methods, register the copy). Connections opened on
/// the built-in objects themselves use ringlite's own I/O (io_uring or
/// pread/pwrite, POSIX locks shared with SQLite processes) without
/// calling them; "unix-dotfile" locks with a `<database>.lock` directory
/// and "unix-none" does not lock, as SQLite's do ("unix-excl" locks as
/// "unix"). "memdb" opens a private in-memory database.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_vfs_find(zVfsName: *const c_char) -> *mut sqlite3_vfs {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `zVfsName` is NULL or NUL-terminated
    // (or readable for the length given with it).
    unsafe {
        ffi_guard!(std::ptr::null_mut(), {
            crate::config::initialize();
            if zVfsName.is_null() {
                find(None)
            } else {
                find(Some(CStr::from_ptr(zVfsName).to_bytes()))
            }
        })
    }
}

/// Register `vfs`, moving it if it is already in the list: to the front
/// with `makeDflt` (or when the list is empty), else right after the
/// default. The application keeps the object alive while registered
/// and while connections opened through it are open.
///
/// A connection opened through an application's VFS (by `zVfs` of
/// `sqlite3_open_v2`, the `vfs=` URI parameter, or as the default) does
/// all the file I/O of its database files through it: `xOpen` for the
/// main database (under its `xFullPathname`, URI parameters readable with
/// `sqlite3_uri_parameter`), the rollback journal and the WAL (names in
/// the same block, as `sqlite3_filename_journal`/`_wal` give them) and
/// temporary spill files (NULL name); `xRead`/`xWrite`/`xTruncate`/
/// `xSync`/`xFileSize`; `xLock`/`xUnlock`/`xCheckReservedLock` (the VFS
/// owns locking); `xShmMap`/`xShmLock`/`xShmBarrier`/`xShmUnmap` in WAL
/// mode (WAL is refused, the mode kept, on a VFS without them);
/// `xDelete`/`xAccess`; `xCurrentTimeInt64` (or `xCurrentTime`) for
/// 'now'; `xSleep` for the busy timeout's waits (SQLite's schedule).
/// `xSectorSize` and `xDeviceCharacteristics` of the database file shape
/// the rollback journal as in SQLite: headers padded to the sector size
/// (512 on a POWERSAFE_OVERWRITE device), every page of a sector larger
/// than a page journaled and rewritten together, the record count left
/// at -1 on a SAFE_APPEND device, no journal sync on a SEQUENTIAL one;
/// the journal's writes are SQLite's (header blocks, then each record's
/// page number, image and checksum). A main database file that `xOpen`
/// opened read-only (SQLITE_OPEN_READONLY in its output flags) makes
/// the database read-only. `xFileControl` receives SQLITE_FCNTL_PRAGMA
/// (the VFS may answer pragmas), SIZE_HINT, SYNC, COMMIT_PHASETWO,
/// HAS_MOVED and PERSIST_WAL, and whatever `sqlite3_file_control` passes
/// on.
///
/// Not used (ringlite's own behaviour stands): the ATOMIC and
/// BATCH_ATOMIC capabilities (as in SQLite builds without atomic-write
/// support), `xFetch`/`xUnfetch` (no memory-mapped I/O), `xRandomness`,
/// `xDl*`. In-memory and temporary databases stay in memory without the
/// VFS; no super-journal is ever opened.
///
/// An application VFS is synchronous: on an `SQLITE_OPEN_ASYNC`
/// connection its calls block inside `sqlite3_step`, which then never
/// returns `SQLITE_IO`.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_vfs_register(vfs: *mut sqlite3_vfs, makeDflt: c_int) -> c_int {
    ffi_guard!(SQLITE_MISUSE, {
        if vfs.is_null() {
            return crate::error::misuse();
        }
        crate::config::initialize();
        let mut g = list();
        let Some(l) = g.as_mut() else {
            return SQLITE_ERROR;
        };
        l.0.retain(|&p| p != vfs as usize);
        if makeDflt != 0 || l.0.is_empty() {
            l.0.insert(0, vfs as usize);
        } else {
            l.0.insert(1, vfs as usize);
        }
        relink(l);
        SQLITE_OK
    })
}

/// Unlink `vfs` (no effect when it is not registered). Connections open
/// through it keep using it: the application must not free it before
/// they are closed.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_vfs_unregister(vfs: *mut sqlite3_vfs) -> c_int {
    ffi_guard!(SQLITE_MISUSE, {
        if vfs.is_null() {
            return crate::error::misuse();
        }
        let mut g = list();
        if let Some(l) = g.as_mut() {
            l.0.retain(|&p| p != vfs as usize);
            relink(l);
        }
        SQLITE_OK
    })
}
