//! # `sqlite3_mutex_*`: mutexes for applications and extensions
//!
//! Every mutex is recursive (SQLite's FAST mutexes may be, and code may not
//! rely on them not being). Static mutexes (`SQLITE_MUTEX_STATIC_*`) are
//! allocated once and never freed. `sqlite3_db_mutex` returns a mutex that
//! is the connection's own lock, so holding it really keeps other threads
//! out of that connection.

use crate::consts::*;
use crate::lock::ReentrantLock;
use std::ffi::c_int;
use std::sync::OnceLock;

/// The `sqlite3_mutex` object.
pub struct sqlite3_mutex {
    lock: *const ReentrantLock,
    /// The lock itself, for mutexes that own theirs.
    owned: Option<Box<ReentrantLock>>,
}

unsafe impl Send for sqlite3_mutex {}
unsafe impl Sync for sqlite3_mutex {}

impl sqlite3_mutex {
    fn new_owned() -> Box<sqlite3_mutex> {
        let owned = Box::new(ReentrantLock::default());
        let lock = &*owned as *const ReentrantLock;
        Box::new(sqlite3_mutex { lock, owned: Some(owned) })
    }

    /// A mutex standing for an existing lock (a connection's).
    pub fn borrowing(lock: &ReentrantLock) -> Box<sqlite3_mutex> {
        Box::new(sqlite3_mutex { lock, owned: None })
    }

    /// Placeholder while the handle that will own the lock is built.
    pub fn unset() -> Box<sqlite3_mutex> {
        Box::new(sqlite3_mutex { lock: std::ptr::null(), owned: None })
    }

    fn lock(&self) -> &ReentrantLock {
        unsafe { &*self.lock }
    }
}

struct StaticMutexes(Vec<usize>);

fn static_mutex(id: c_int) -> *mut sqlite3_mutex {
    static TABLE: OnceLock<StaticMutexes> = OnceLock::new();
    let t = TABLE.get_or_init(|| StaticMutexes((0..16).map(|_| Box::into_raw(sqlite3_mutex::new_owned()) as usize).collect()));
    t.0.get(id as usize).map_or(std::ptr::null_mut(), |&p| p as *mut sqlite3_mutex)
}

/// Allocate a mutex: SQLITE_MUTEX_FAST or SQLITE_MUTEX_RECURSIVE make a new
/// one, the SQLITE_MUTEX_STATIC_* ids return a shared static one. NULL for
/// an unknown `id`.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_mutex_alloc(id: c_int) -> *mut sqlite3_mutex {
    ffi_guard!(std::ptr::null_mut(), {
        match id {
            SQLITE_MUTEX_FAST | SQLITE_MUTEX_RECURSIVE => Box::into_raw(sqlite3_mutex::new_owned()),
            id if (2..16).contains(&id) => static_mutex(id),
            _ => std::ptr::null_mut(),
        }
    })
}

/// Free a mutex from sqlite3_mutex_alloc (static mutexes are left alone).
#[no_mangle]
pub unsafe extern "C" fn sqlite3_mutex_free(p: *mut sqlite3_mutex) {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `p` is NULL or a live
    // `sqlite3_mutex` this library or SQLite's API contract provides.
    unsafe {
        ffi_guard!((), {
            if let Some(m) = p.as_ref() {
                if m.owned.is_some() && !(0..16).any(|id| static_mutex(id) == p) {
                    drop(Box::from_raw(p));
                }
            }
        })
    }
}

/// Lock `p`, waiting as long as needed; a recursive mutex may be entered again
/// by its holder. NULL is ignored.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_mutex_enter(p: *mut sqlite3_mutex) {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `p` is NULL or a live
    // `sqlite3_mutex` this library or SQLite's API contract provides.
    unsafe {
        ffi_guard!((), {
            if let Some(m) = p.as_ref() {
                m.lock().enter();
            }
        })
    }
}

/// Lock `p` if it is free: SQLITE_OK if locked, SQLITE_BUSY otherwise.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_mutex_try(p: *mut sqlite3_mutex) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `p` is NULL or a live
    // `sqlite3_mutex` this library or SQLite's API contract provides.
    unsafe {
        ffi_guard!(SQLITE_BUSY, {
            match p.as_ref() {
                Some(m) if m.lock().try_enter() => SQLITE_OK,
                Some(_) => SQLITE_BUSY,
                None => SQLITE_OK,
            }
        })
    }
}

/// Unlock `p`, which the calling thread holds.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_mutex_leave(p: *mut sqlite3_mutex) {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `p` is NULL or a live
    // `sqlite3_mutex` this library or SQLite's API contract provides.
    unsafe {
        ffi_guard!((), {
            if let Some(m) = p.as_ref() {
                m.lock().leave();
            }
        })
    }
}

/// Nonzero if the calling thread holds `p` (or `p` is NULL); for assertions.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_mutex_held(p: *mut sqlite3_mutex) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `p` is NULL or a live
    // `sqlite3_mutex` this library or SQLite's API contract provides.
    unsafe { ffi_guard!(1, { p.as_ref().is_none_or(|m| m.lock().held()) as c_int }) }
}

/// Nonzero if the calling thread does not hold `p` (or `p` is NULL).
#[no_mangle]
pub unsafe extern "C" fn sqlite3_mutex_notheld(p: *mut sqlite3_mutex) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `p` is NULL or a live
    // `sqlite3_mutex` this library or SQLite's API contract provides.
    unsafe { ffi_guard!(1, { p.as_ref().is_none_or(|m| !m.lock().held()) as c_int }) }
}
