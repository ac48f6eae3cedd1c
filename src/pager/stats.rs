//! # The pager's counters for `sqlite3_db_status`
//!
//! SQLite's pager counts, per pager, cache hits, cache misses, pages
//! written and pages spilled (`Pager.aStat`), and `sqlite3_db_status`
//! sums them over a connection's databases (`SQLITE_DBSTATUS_CACHE_HIT`,
//! `_MISS`, `_WRITE`, `_SPILL`), zeroing a counter after reading it when
//! asked to reset. This module keeps the same four counters and the
//! pager's estimate of the memory its cache holds (`_CACHE_USED`).
//!
//! What counts:
//! - a **miss** is a page read submitted to the database file or the WAL
//!   (read-ahead included: it is a read the cache could not answer);
//! - a **hit** is a B-tree descent onto a page found in cache, or a fetch
//!   of a cached page: the points where SQLite's B-tree asks its pager for
//!   a page. ringlite's cursors keep their pages between rows where
//!   SQLite's ask again, so the counts are of the same kind but not equal;
//! - a **write** is a page written to the database file by a commit or a
//!   cache spill (rollback modes), or a frame appended to the WAL; pages
//!   a rollback or recovery writes back are not counted, nor those of an
//!   in-memory or temporary database (SQLite's `:memory:` has no file to
//!   write; its temporary databases count the writes of a cache that
//!   overflowed into a file, which ringlite's do not count yet);
//! - a **spill** is a dirty page written before its commit because the
//!   cache overflowed (it is counted as a write too, as in SQLite).
//!
//! Invariant: counters only grow (never wrap), except through
//! [`Pager::cache_stat`]'s reset (checked: pager_stats_grow); they live in `Cell`s because hits are counted where the B-tree
//! only borrows the pager (its page reads take `&self`).

use super::Pager;
use std::cell::Cell;

/// The four counters SQLite's pager keeps in `aStat`.
#[derive(Debug, Default)]
pub struct PagerStats {
    hit: Cell<u64>,
    miss: Cell<u64>,
    write: Cell<u64>,
    spill: Cell<u64>,
}

/// Which counter [`Pager::cache_stat`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheStat {
    /// `SQLITE_DBSTATUS_CACHE_HIT`.
    Hit,
    /// `SQLITE_DBSTATUS_CACHE_MISS`.
    Miss,
    /// `SQLITE_DBSTATUS_CACHE_WRITE`.
    Write,
    /// `SQLITE_DBSTATUS_CACHE_SPILL`.
    Spill,
}

fn bump(c: &Cell<u64>, n: u64) {
    // invariant: pager_stats_grow
    debug_assert!(c.get().checked_add(n).is_some(), "a pager counter wrapped");
    c.set(c.get().wrapping_add(n));
}

impl PagerStats {
    fn cell(&self, which: CacheStat) -> &Cell<u64> {
        match which {
            CacheStat::Hit => &self.hit,
            CacheStat::Miss => &self.miss,
            CacheStat::Write => &self.write,
            CacheStat::Spill => &self.spill,
        }
    }
}

impl Pager {
    /// Count a page found in cache where the B-tree asked for it.
    #[inline]
    pub fn count_hit(&self) {
        bump(&self.stats.hit, 1);
    }

    /// Count a page read submitted to a file.
    pub(super) fn count_miss(&self) {
        bump(&self.stats.miss, 1);
    }

    /// Count `n` pages written to the database file or the WAL (not for
    /// an in-memory database, whose SQLite counterpart writes no file).
    pub(super) fn count_writes(&self, n: usize) {
        if !self.opts.memory {
            bump(&self.stats.write, n as u64);
        }
    }

    /// Count `n` pages written by a cache spill (also counted as writes).
    pub(super) fn count_spill(&self, n: usize) {
        bump(&self.stats.spill, n as u64);
        self.count_writes(n);
    }

    /// One counter's value; zeroed after reading when `reset` is set (as
    /// SQLite's `sqlite3PagerCacheStat`).
    pub fn cache_stat(&self, which: CacheStat, reset: bool) -> u64 {
        let c = self.stats.cell(which);
        if reset {
            c.replace(0)
        } else {
            c.get()
        }
    }

    /// Approximate heap bytes held by this pager's cache: the cached pages
    /// with their bookkeeping, the pager itself and one page of scratch
    /// space (the terms of SQLite's `sqlite3PagerMemUsed`).
    pub fn mem_used(&self) -> usize {
        self.cache.mem_used() + std::mem::size_of::<Pager>() + self.page_size as usize
    }
}
