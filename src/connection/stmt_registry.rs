//! # The connection's prepared statements, as `sqlite_stmt` lists them
//!
//! A statement is owned by its caller, not by the connection, so the
//! connection keeps a weak reference to each statement's published
//! figures ([`StmtStats`]): what `sqlite3_stmt_status` and the
//! `sqlite_stmt` virtual table report (stmt.txt). The statement publishes
//! them when a step returns and when it is reset, as SQLite adds a run's
//! counts when the VM returns: a statement reading `sqlite_stmt` sees
//! itself busy with the counts of its earlier steps.
//!
//! Invariants: the registry lists statements in prepare order; a
//! statement dropped (finalized) leaves only a dead weak reference, pruned
//! on the next registration or listing, so listing never shows it.

use super::Connection;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Weak};

/// The figures of one prepared statement, as last published.
#[derive(Debug, Default)]
pub struct StmtStats {
    /// The SQL text it was prepared from.
    pub sql: String,
    /// Result columns.
    pub ncol: AtomicI64,
    /// `sqlite3_stmt_readonly`.
    pub readonly: AtomicBool,
    /// Stepped and neither done nor reset.
    pub busy: AtomicBool,
    /// SQLITE_STMTSTATUS_FULLSCAN_STEP.
    pub fullscan_steps: AtomicI64,
    /// SQLITE_STMTSTATUS_SORT.
    pub sorts: AtomicI64,
    /// SQLITE_STMTSTATUS_AUTOINDEX.
    pub autoindex_rows: AtomicI64,
    /// SQLITE_STMTSTATUS_VM_STEP.
    pub vm_steps: AtomicI64,
    /// SQLITE_STMTSTATUS_REPREPARE.
    pub reprepares: AtomicI64,
    /// SQLITE_STMTSTATUS_RUN.
    pub runs: AtomicI64,
    /// SQLITE_STMTSTATUS_MEMUSED (ringlite's estimate of the heap the
    /// program holds, not SQLite's allocator's figure).
    pub mem: AtomicI64,
}

impl StmtStats {
    /// Figures of a statement just prepared from `sql`.
    pub fn new(sql: String) -> StmtStats {
        StmtStats { sql, ..Default::default() }
    }

    /// One figure (relaxed: the statement and its reader run on the
    /// connection's thread, under its lock).
    pub fn get(v: &AtomicI64) -> i64 {
        v.load(Ordering::Relaxed)
    }
}

/// The connection's list of weak references, oldest first.
#[derive(Default)]
pub struct StmtRegistry {
    entries: Vec<Weak<StmtStats>>,
}

impl StmtRegistry {
    fn prune(&mut self) {
        self.entries.retain(|w| w.strong_count() > 0);
    }
}

impl Connection {
    /// Record a statement just prepared.
    pub(super) fn register_statement(&mut self, stats: &Arc<StmtStats>) {
        let reg = &mut self.stmt_registry;
        if reg.entries.len() >= 16 && reg.entries.len().is_power_of_two() {
            reg.prune();
        }
        reg.entries.push(Arc::downgrade(stats));
    }

    /// The live prepared statements' figures, newest first (the order of
    /// `sqlite3_next_stmt` and of `sqlite_stmt`).
    pub fn statement_stats(&mut self) -> Vec<Arc<StmtStats>> {
        self.stmt_registry.prune();
        self.stmt_registry.entries.iter().rev().filter_map(Weak::upgrade).collect()
    }
}
