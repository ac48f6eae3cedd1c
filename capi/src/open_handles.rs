//! # Every open connection of the process
//!
//! `sqlite3_release_memory` frees cache pages of all connections, not of
//! one: it needs to reach every `sqlite3` handle that is alive. A handle
//! is registered here when `open` makes it and removed first thing when
//! it is freed ([`crate::close::free_db`]), so a walk holding the registry's
//! mutex only ever sees live handles (freeing waits for the walk to end).
//!
//! Locking order: the registry's mutex, then a connection's lock, and that
//! one only tried ([`ReentrantLock::try_enter`](crate::lock::ReentrantLock::try_enter)):
//! a connection another thread is using is skipped, never waited for, so a
//! thread holding its connection's lock while it opens or closes another
//! (which takes the registry's mutex) cannot deadlock with a walk.

use crate::handle::sqlite3;
use std::collections::HashSet;
use std::sync::Mutex;

/// The handles alive, by address.
static OPEN: Mutex<Option<HashSet<usize>>> = Mutex::new(None);

fn open_set() -> std::sync::MutexGuard<'static, Option<HashSet<usize>>> {
    OPEN.lock().unwrap_or_else(|p| p.into_inner())
}

/// `db` was just made by open.
pub fn register(db: *mut sqlite3) {
    open_set().get_or_insert_with(HashSet::new).insert(db as usize);
}

/// `db` is about to be freed: after this no walk reaches it (one under
/// way finishes first).
pub fn unregister(db: *mut sqlite3) {
    if let Some(s) = open_set().as_mut() {
        s.remove(&(db as usize));
    }
}

/// Call `f` on each live handle whose lock this thread has or can take at
/// once, holding that lock, until `f` returns `false`.
pub fn for_each_available(mut f: impl FnMut(&sqlite3) -> bool) {
    let set = open_set();
    let Some(s) = set.as_ref() else { return };
    for &p in s {
        // SAFETY: registered handles are alive until `unregister`, which
        // waits for the mutex held here.
        let d = unsafe { &*(p as *const sqlite3) };
        if !d.lock.try_enter() {
            continue;
        }
        let go_on = f(d);
        d.lock.leave();
        if !go_on {
            break;
        }
    }
}
