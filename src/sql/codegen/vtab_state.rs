//! The statement's virtual-table cursors and what the planner agreed
//! with their modules (xBestIndex plans, the WHERE terms a module
//! decides, the LIMIT/OFFSET it takes, the columns it is told are used).

use std::collections::HashMap;

/// The statement's virtual-table cursors and their modules' plans.
#[derive(Default)]
pub struct VtabState {
    /// Compiling the query that collects an UPDATE of a virtual table: the
    /// registers receiving, per column, the subtype its unchanged read
    /// left (`dml/vtab_dml.rs`); empty otherwise.
    pub unchanged_flags: Vec<i32>,
    /// Set while a failed compound's arms are compiled again only to find
    /// the error SQLite's resolver reports first: modules are not asked
    /// then (SQLite fails before planning, so they never hear of it).
    pub unasked: bool,
    /// Cursors open on virtual tables: their columns are read by
    /// `VColumn`/`VRowid`.
    pub cursors: HashMap<i32, std::sync::Arc<crate::vdbe::vtab::VtabInstance>>,
    /// The WHERE terms (by address) the last virtual-table loop opened
    /// has its module decide (`omit`): not tested again in the loop.
    pub consumed: Vec<usize>,
    /// The USING/NATURAL equalities the last virtual-table loop opened
    /// has its module decide (`omit`), as (this table's cursor and
    /// column, -1 the rowid; the other side's cursor and column): not
    /// tested again either (SQLite's are WHERE terms like any other).
    pub consumed_using: Vec<(i32, i32, i32, i32)>,
    /// The LIMIT/OFFSET the SELECT being compiled offers its one virtual
    /// table (taken by that table's loop).
    pub limit_offer: Option<crate::sql::plan::vtab::LimitOffer>,
    /// The plans SQLite's calls gave each virtual table of a join while
    /// its order was chosen (by cursor), taken by the table's loop.
    pub plans: Vec<crate::sql::plan::vtab::VtabPlans>,
    /// The loop that took the offer has its module skip the OFFSET rows.
    pub offset_omitted: bool,
    /// `colUsed` of each virtual-table cursor whose SELECT could tell
    /// every column the statement reads of it, correlated subqueries
    /// included (see `plan::goal::vtab_col_uses`).
    pub col_used: HashMap<i32, u64>,
    /// The tables scanned with a plan their module said yields at most
    /// one row (`SQLITE_INDEX_SCAN_UNIQUE`, outside an IN loop).
    pub unique_scans: Vec<std::sync::Arc<crate::vdbe::vtab::VtabInstance>>,
}
