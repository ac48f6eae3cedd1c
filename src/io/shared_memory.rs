//! # Named in-memory databases shared by the connections of the process
//!
//! SQLite lets every connection of a process that opens the same URI name
//! with `cache=shared` (`file:memdb1?mode=memory&cache=shared`,
//! `file::memory:?cache=shared`, or such a URI with
//! `SQLITE_OPEN_SHAREDCACHE`) see one in-memory database, which lives
//! while at least one connection has it open (`inmemorydb.txt`).
//!
//! This module owns the process-wide registry that makes that so: a name
//! maps to one [`MemoryBackend`] whose files every such connection opens.
//! The registry holds only weak references, so the database dies with
//! the last connection (and its statements) that held the backend; the
//! next open of the name starts an empty one. Dead entries are swept on
//! every lookup.
//!
//! The sharing is by file locks, not a shared page cache: each connection
//! has its own pager on the one memory file and they coordinate by the
//! rollback-journal lock rules of [`super::lock::LocalLocks`] (readers and
//! a writer exclude each other as on a file database; busy handlers and
//! timeouts apply). So where SQLite's shared cache answers a conflict
//! with table-level locks (`SQLITE_LOCKED`, "database table is locked"),
//! ours gives `SQLITE_BUSY` ("database is locked") at the database level,
//! and `PRAGMA read_uncommitted` has no effect: a reader never sees
//! another connection's uncommitted rows; a reader may read the last
//! committed state while another connection has written but not yet
//! committed (SQLite refuses it with `SQLITE_LOCKED`). Settings SQLite
//! keeps in the shared cache stay per connection here: a `PRAGMA
//! journal_mode` (MEMORY or OFF) set by one connection is not seen by the
//! others, and `PRAGMA data_version` counts only other connections'
//! commits, as for a file database (SQLite's shared pager counts every
//! commit of the cache). A connection opened read-only on a shared name
//! stays read-only here; SQLite's shared cache gives it the read-write
//! database the first connection opened.
//!
//! Invariant: for a given name, at most one live backend exists at a time
//! (checked: one_shared_backend).

use super::memory::MemoryBackend;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, Weak};

fn registry() -> &'static Mutex<HashMap<String, Weak<MemoryBackend>>> {
    static REGISTRY: OnceLock<Mutex<HashMap<String, Weak<MemoryBackend>>>> = OnceLock::new();
    REGISTRY.get_or_init(Mutex::default)
}

/// The backend holding the shared in-memory database `name`, created
/// empty if no connection has it open.
pub fn backend(name: &str) -> Arc<MemoryBackend> {
    let mut map = registry().lock().unwrap_or_else(|p| p.into_inner());
    map.retain(|_, w| w.strong_count() > 0);
    if let Some(b) = map.get(name).and_then(Weak::upgrade) {
        return b;
    }
    let b = Arc::new(MemoryBackend::new());
    map.insert(name.to_string(), Arc::downgrade(&b));
    // invariant: one_shared_backend
    debug_assert!(map.get(name).is_some_and(|w| w.strong_count() == 1));
    b
}

/// The path of the database file inside a shared backend.
pub const DB_PATH: &str = "shared.db";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_backend_per_live_name_and_none_after_the_last_drop() {
        let a = backend("registry-test-a");
        let a2 = backend("registry-test-a");
        assert!(Arc::ptr_eq(&a, &a2));
        let b = backend("registry-test-b");
        assert!(!Arc::ptr_eq(&a, &b));
        let weak = Arc::downgrade(&a);
        drop(a);
        drop(a2);
        assert!(weak.upgrade().is_none());
        let again = backend("registry-test-a");
        assert!(!Arc::ptr_eq(&again, &b));
    }
}
