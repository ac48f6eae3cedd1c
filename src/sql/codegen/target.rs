//! The table a statement writes, as INSERT, UPDATE, DELETE, their
//! triggers and the integrity check share it: the table opened with its
//! indexes ([`WriteTarget`]), the conflict resolution in effect
//! ([`OnConflict`]), the change that fires triggers ([`Event`]), the
//! scope naming the target's columns, where each column sits in a stored
//! record, SQLite's message for a UNIQUE failure, and the RETURNING
//! clause's rows being collected ([`Returning`], `dml/returning.rs`). Code of every
//! statement family may use it; it uses none of them.

use crate::sql::resolve::{Scope, ScopeItem};
use crate::sql::schema::{Index, Table};
use crate::vdbe::exec::txn::{ON_ERROR_FAIL, ON_ERROR_ROLLBACK};
use sqlite3_parser::ast::ResolveType;

/// A table opened for writing with its indexes.
pub struct WriteTarget {
    /// The table.
    pub table: Table,
    /// Table cursor.
    pub cursor: i32,
    /// Indexes and their cursors.
    pub indexes: Vec<(Index, i32)>,
}

/// Conflict resolution in effect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnConflict {
    /// The statement names none: each constraint's own ON CONFLICT
    /// clause applies, ABORT where it has none.
    Default,
    /// ABORT.
    Abort,
    /// FAIL.
    Fail,
    /// ROLLBACK.
    Rollback,
    /// IGNORE.
    Ignore,
    /// REPLACE.
    Replace,
}

impl OnConflict {
    /// From the AST.
    pub fn from_ast(r: Option<ResolveType>) -> OnConflict {
        match r {
            Some(ResolveType::Fail) => OnConflict::Fail,
            Some(ResolveType::Rollback) => OnConflict::Rollback,
            Some(ResolveType::Ignore) => OnConflict::Ignore,
            Some(ResolveType::Replace) => OnConflict::Replace,
            Some(ResolveType::Abort) => OnConflict::Abort,
            None => OnConflict::Default,
        }
    }

    /// The resolution for one constraint: the statement's when it names
    /// one, else the constraint's `ON CONFLICT` clause, else ABORT.
    pub fn for_constraint(self, own: Option<ResolveType>) -> OnConflict {
        match (self, own) {
            (OnConflict::Default, Some(r)) => OnConflict::from_ast(Some(r)),
            (OnConflict::Default, None) => OnConflict::Abort,
            (oc, _) => oc,
        }
    }

    pub(crate) fn halt_action(self) -> i32 {
        match self {
            OnConflict::Rollback => ON_ERROR_ROLLBACK as i32,
            OnConflict::Fail => ON_ERROR_FAIL as i32,
            _ => 0,
        }
    }
}

/// Which change fires a trigger.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// INSERT.
    Insert,
    /// UPDATE (of the given columns).
    Update,
    /// DELETE.
    Delete,
}

/// The scope item of a table being written.
pub fn target_scope(table: &Table, alias: Option<String>, cursor: i32) -> Scope {
    Scope {
        items: vec![ScopeItem {
            name: alias.unwrap_or_else(|| table.name.clone()),
            table: table.name.clone(),
            db: table.db,
            cursor,
            columns: table.scope_columns(),
            rowid_alias: table.rowid_alias,
            has_rowid: table.without_rowid.is_none(),
            using: Vec::new(),
            object_name: None,
            view_db: None,
        }],
        correlated: false,
    }
}

/// Where each table column sits in a record of `table` (stored order).
pub fn positions_of(table: &Table) -> Vec<usize> {
    let mut positions = vec![0; table.columns.len()];
    for (pos, col) in table.record_columns().into_iter().enumerate() {
        positions[col] = pos;
    }
    positions
}

/// A key column's description for a UNIQUE failure: `t.c` for a column;
/// an index with any expression is named as `index 'i'` instead.
pub fn unique_failure_message(table: &Table, idx: &Index) -> String {
    if idx.columns.iter().any(|c| c.column.is_none()) {
        return format!("UNIQUE constraint failed: index '{}'", idx.name);
    }
    let cols: Vec<String> = idx.columns.iter().filter_map(|c| c.column).map(|c| format!("{}.{}", table.name, table.columns[c].name)).collect();
    format!("UNIQUE constraint failed: {}", cols.join(", "))
}

/// The RETURNING clause of the statement being compiled.
#[derive(Clone)]
pub struct Returning {
    /// Temporary table collecting the rows.
    pub cursor: i32,
    /// The expressions, as SQL text.
    pub exprs: Vec<String>,
    /// Until the first row's values are compiled: the clause as written
    /// (its `*` left out) and whether it has a `TABLE.*`, for the checks
    /// SQLite makes before it codes the clause (`dml/returning.rs`).
    pub unchecked: Option<(String, bool)>,
}
