//! Facts about the loops of a join while `open_loops_with` opens them
//! one inside the other: where an empty table's scan jumps, whether the
//! loops around the one being opened find one row per pass, whether the
//! loop is a branch of a MULTI-INDEX OR.

/// Facts about the join loops around the one being opened.
#[derive(Default)]
pub struct LoopContext {
    /// While `open_loops_with` opens a level: where a full scan of its
    /// table jumps when the table is empty (the end of the outermost loop
    /// it is inner-joined with).
    pub empty_scan_halt: Option<i32>,
    /// The last loop opened by `open_access` finds at most one row per
    /// pass (a rowid or whole-UNIQUE-key equality): the loops inside it
    /// may still give the query's order.
    pub loop_one_row: bool,
    /// Every loop outside the one being opened finds at most one row per
    /// pass: an automatic index would be built for a single probe (the
    /// join order does not take one there either).
    pub outer_loops_one_row: bool,
    /// Opening the lookup of one branch of a MULTI-INDEX OR loop
    /// (`query/multi_or.rs`): no OR of its own, and a covering index is
    /// shown as SQLite shows it but the table row is still read.
    pub in_or_branch: bool,
    /// The columns the WHERE loop of an UPDATE or DELETE reads (set just
    /// before its loops open, taken by its one `open_access`): an index
    /// search holding them all is read without looking up the table row,
    /// which the statement's own seek by rowid then positions, as
    /// SQLite's `DeferredSeek` defers it. The plan, and its EXPLAIN QUERY
    /// PLAN text, are SQLite's for a DML loop (no covering index).
    pub dml_where_uses: Option<crate::sql::plan::goal::ColumnUses>,
}
