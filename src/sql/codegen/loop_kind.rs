//! How an open loop of a FROM clause reads its table: what
//! `close_loops` must emit to advance and end it (`from.rs`). Shared by
//! the loop openers (`from.rs`, `index_scan.rs`, `inner_table.rs`,
//! `vtab_scan.rs`, `multi_or.rs`) and by the one-pass writes that look at the loop a
//! WHERE clause chose (`without_rowid.rs`).

/// The kind of an open loop, with the cursors and addresses closing it.
pub(crate) enum LoopKind {
    Scan(i32, usize),
    /// Every row of a table, forwards or (`true`) backwards: (cursor, top,
    /// backwards). Its step counts as SQLITE_STMTSTATUS_FULLSCAN_STEP.
    FullScan(i32, usize, bool),
    /// A table (or the values of a rowid IN list) read from its last row
    /// to its first.
    ScanBack(i32, usize),
    /// An index read from its last entry to its first.
    IndexBack(i32, usize),
    Once,
    Index(i32, usize),
    /// An index loop inside a loop over IN-list values:
    /// (index cursor, index top, values cursor, values top, values next,
    /// both read backwards).
    InIndex(i32, usize, i32, usize, i32, bool),
    /// Rowid lookups for each IN-list value: (values cursor, values top).
    InRowid(i32, usize),
    /// A virtual table's scan: (cursor, top), closed by `VNext`.
    Virtual(i32, usize),
    /// A virtual table's scan run once per value of an IN list: (cursor,
    /// top, values cursor, values top, values next label).
    VirtualIn(i32, usize, i32, usize, i32),
    /// A MULTI-INDEX OR loop (`multi_or.rs`): the body is a subroutine
    /// its branches call, returning through this register.
    Or(i32),
}
