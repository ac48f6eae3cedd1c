//! # `sqlite3_db_status`: the connection's counters
//!
//! What each `SQLITE_DBSTATUS_*` verb reports, as SQLite 3.54.1's
//! `sqlite3_db_status64` computes it (status.c), from ringlite's own
//! figures:
//!
//! - `CACHE_HIT`, `CACHE_MISS`, `CACHE_WRITE`, `CACHE_SPILL`: the sum of
//!   every database's pager counters (`pager/stats.rs`); a reset zeroes
//!   each counter after it is read, as SQLite's does. The high-water mark
//!   is 0.
//! - `CACHE_USED` (and `CACHE_USED_SHARED`, the same: no page cache is
//!   shared between connections): the bytes the pagers' caches hold.
//! - `SCHEMA_USED`, `STMT_USED`: estimates of the heap the parsed schemas
//!   and the prepared statements hold (sizes of ringlite's structures and
//!   texts, not an allocator's figures, so they differ from SQLite's).
//! - `DEFERRED_FKS`: 1 while a deferred foreign key violation is
//!   unresolved in the open transaction, else 0.
//! - `LOOKASIDE_*`: ringlite has no lookaside allocator; SQLite reports 0
//!   for all four when lookaside is disabled, and so does ringlite.
//! - `TEMPBUF_SPILL`: the bytes the connection's sorters wrote to their
//!   temporary files (their runs as ringlite lays them out, not SQLite's
//!   PMAs); SQLite adds the pages a temporary database wrote to its file,
//!   which ringlite does not count (see `pager/stats.rs`). Reset like the
//!   pager counters.
//!
//! Invariant: reading changes nothing but what a reset zeroes: the four
//! pager counters and the spill count (checked: db_status_reads_only).

use super::Connection;
use crate::pager::stats::CacheStat;
use crate::sql::schema::{Column, Index, IndexColumn, Schema, SchemaRow, Table};
use std::mem::size_of;
use std::sync::atomic::Ordering;

/// `SQLITE_DBSTATUS_*` verbs (sqlite3.h).
pub mod verb {
    /// Lookaside slots in use.
    pub const LOOKASIDE_USED: i32 = 0;
    /// Page cache bytes.
    pub const CACHE_USED: i32 = 1;
    /// Schema bytes.
    pub const SCHEMA_USED: i32 = 2;
    /// Prepared statement bytes.
    pub const STMT_USED: i32 = 3;
    /// Lookaside hits (high-water only).
    pub const LOOKASIDE_HIT: i32 = 4;
    /// Lookaside misses for size (high-water only).
    pub const LOOKASIDE_MISS_SIZE: i32 = 5;
    /// Lookaside misses for want of a slot (high-water only).
    pub const LOOKASIDE_MISS_FULL: i32 = 6;
    /// Pager cache hits.
    pub const CACHE_HIT: i32 = 7;
    /// Pager cache misses.
    pub const CACHE_MISS: i32 = 8;
    /// Pages written.
    pub const CACHE_WRITE: i32 = 9;
    /// Unresolved deferred foreign keys.
    pub const DEFERRED_FKS: i32 = 10;
    /// Page cache bytes, shared caches divided among their connections.
    pub const CACHE_USED_SHARED: i32 = 11;
    /// Pages spilled mid-transaction.
    pub const CACHE_SPILL: i32 = 12;
    /// Bytes spilled to temporary files.
    pub const TEMPBUF_SPILL: i32 = 13;
}

/// Heap bytes of one database's parsed schema (an estimate).
fn schema_bytes(s: &Schema) -> usize {
    let column = |c: &Column| size_of::<Column>() + c.name.len() + c.decltype.as_ref().map_or(0, String::len);
    let table = |name: &str, t: &Table| {
        name.len()
            + size_of::<Table>()
            + t.name.len()
            + t.sql.len()
            + t.view_select.as_ref().map_or(0, String::len)
            + t.columns.iter().map(column).sum::<usize>()
    };
    let index = |name: &str, i: &Index| {
        name.len()
            + size_of::<Index>()
            + i.name.len()
            + i.table.len()
            + i.sql.as_ref().map_or(0, String::len)
            + i.where_sql.as_ref().map_or(0, String::len)
            + i.columns.len() * size_of::<IndexColumn>()
    };
    let row = |r: &SchemaRow| size_of::<SchemaRow>() + r.0.len() + r.1.len() + r.2.len() + r.4.as_ref().map_or(0, String::len);
    s.tables.iter().map(|(k, t)| table(k, t)).sum::<usize>() + s.indexes.iter().map(|(k, i)| index(k, i)).sum::<usize>() + s.rows.iter().map(row).sum::<usize>()
}

impl Connection {
    /// `sqlite3_db_status64(op, reset)`: (current, high-water), or `None`
    /// for a verb SQLite does not know (`SQLITE_ERROR`).
    pub fn db_status(&mut self, op: i32, reset: bool) -> Option<(i64, i64)> {
        let pager_sum = |c: &Connection, which: CacheStat| -> i64 {
            let n: u64 = c.state.dbs.iter().map(|d| d.btree.pager().cache_stat(which, reset)).fold(0, u64::wrapping_add);
            n as i64
        };
        #[cfg(debug_assertions)]
        let counters = |c: &Connection| -> Vec<u64> {
            let mut v: Vec<u64> = c
                .state
                .dbs
                .iter()
                .flat_map(|d| [CacheStat::Hit, CacheStat::Miss, CacheStat::Write, CacheStat::Spill].map(|w| d.btree.pager().cache_stat(w, false)))
                .collect();
            v.push(c.state.temp_spill_bytes.load(Ordering::Relaxed));
            v
        };
        #[cfg(debug_assertions)]
        let before = counters(self);
        let current = match op {
            verb::LOOKASIDE_USED | verb::LOOKASIDE_HIT | verb::LOOKASIDE_MISS_SIZE | verb::LOOKASIDE_MISS_FULL => 0,
            verb::CACHE_USED | verb::CACHE_USED_SHARED => self.state.dbs.iter().map(|d| d.btree.pager().mem_used() as i64).sum(),
            verb::SCHEMA_USED => self.schemas.iter().map(|s| schema_bytes(s) as i64).sum(),
            verb::STMT_USED => self.statement_stats().iter().map(|s| super::stmt_registry::StmtStats::get(&s.mem)).sum(),
            verb::CACHE_HIT => pager_sum(self, CacheStat::Hit),
            verb::CACHE_MISS => pager_sum(self, CacheStat::Miss),
            verb::CACHE_WRITE => pager_sum(self, CacheStat::Write),
            verb::CACHE_SPILL => pager_sum(self, CacheStat::Spill),
            verb::DEFERRED_FKS => i64::from(self.state.fk_deferred.0 > 0 || self.state.fk_deferred.1 > 0),
            verb::TEMPBUF_SPILL => {
                let n = &self.state.temp_spill_bytes;
                (if reset { n.swap(0, Ordering::Relaxed) } else { n.load(Ordering::Relaxed) }) as i64
            }
            _ => return None,
        };
        // invariant: db_status_reads_only
        #[cfg(debug_assertions)]
        debug_assert!(reset || counters(self) == before, "sqlite3_db_status without reset changed a counter");
        // (Every verb's high-water mark is 0 here: SQLite's non-zero ones
        // are the lookaside figures, 0 without lookaside.)
        Some((current, 0))
    }
}
