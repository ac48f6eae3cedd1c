//! # The planner's question to a virtual table (`sqlite3_index_info`)
//!
//! Inputs: the WHERE constraints on the table's columns (usable or not for
//! this plan), the ORDER BY the query wants, and the columns it reads.
//! Outputs, filled by [`super::VTab::best_index`]: which constraints reach
//! xFilter and in which argument (`argv_index`, 1-based, each used once),
//! which need no test afterwards (`omit`), the plan's number and string,
//! its cost and row estimate, whether the rows come in the ORDER BY's
//! order, and flags (`SQLITE_INDEX_SCAN_UNIQUE`).
//!
//! Invariant: `constraints`, `usage`, `collations`, `rhs` and `is_in`
//! have one entry per constraint, in the same order (checked:
//! index_info_parallel).

use crate::value::Value;

/// Constraint operators, with SQLite's numbers (`SQLITE_INDEX_CONSTRAINT_*`).
pub struct ConstraintOp;

impl ConstraintOp {
    pub const EQ: u8 = 2;
    pub const GT: u8 = 4;
    pub const LE: u8 = 8;
    pub const LT: u8 = 16;
    pub const GE: u8 = 32;
    pub const MATCH: u8 = 64;
    pub const LIKE: u8 = 65;
    pub const GLOB: u8 = 66;
    pub const REGEXP: u8 = 67;
    pub const NE: u8 = 68;
    pub const ISNOT: u8 = 69;
    pub const ISNOTNULL: u8 = 70;
    pub const ISNULL: u8 = 71;
    pub const IS: u8 = 72;
    pub const LIMIT: u8 = 73;
    pub const OFFSET: u8 = 74;
    /// The first operator a module's xFindFunction may return.
    pub const FUNCTION: u8 = 150;
}

/// `SQLITE_INDEX_SCAN_UNIQUE`: the plan yields at most one row.
pub const SCAN_UNIQUE: i32 = 1;
/// `SQLITE_INDEX_SCAN_HEX`: EXPLAIN QUERY PLAN shows idxNum in hex.
pub const SCAN_HEX: i32 = 2;

/// One constraint `column op value` (`aConstraint[]`).
#[derive(Debug, Clone, PartialEq)]
pub struct IndexConstraint {
    /// The column (-1 the rowid).
    pub column: i32,
    /// A [`ConstraintOp`] value.
    pub op: u8,
    /// Whether this plan may use it (its value is known when xFilter runs).
    pub usable: bool,
    /// Which WHERE term it came from (the planner's own number).
    pub term_offset: i32,
}

/// One ORDER BY term (`aOrderBy[]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IndexOrderBy {
    /// The column (-1 the rowid).
    pub column: i32,
    /// DESC.
    pub desc: bool,
}

/// How a plan uses a constraint (`aConstraintUsage[]`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ConstraintUsage {
    /// The constraint's value is xFilter's argument `argv_index - 1` (0: not
    /// passed).
    pub argv_index: i32,
    /// The VM need not test the constraint again.
    pub omit: bool,
}

/// The question and its answer.
#[derive(Debug, Clone)]
pub struct IndexInfo {
    /// Inputs: the constraints.
    pub constraints: Vec<IndexConstraint>,
    /// Inputs: the ORDER BY terms the plan could consume.
    pub order_by: Vec<IndexOrderBy>,
    /// Outputs: per constraint.
    pub usage: Vec<ConstraintUsage>,
    /// Output: the plan number passed to xFilter.
    pub idx_num: i32,
    /// Output: the plan string passed to xFilter.
    pub idx_str: Option<String>,
    /// Output: the rows come in the ORDER BY's order.
    pub order_by_consumed: bool,
    /// Output: the cost (disk accesses, roughly).
    pub estimated_cost: f64,
    /// Output: rows expected.
    pub estimated_rows: i64,
    /// Output: `SCAN_UNIQUE`, `SCAN_HEX`.
    pub idx_flags: i32,
    /// Input: the columns the statement reads (bit 63 stands for every
    /// column from 63 on).
    pub col_used: u64,
    /// Input (`sqlite3_vtab_collation`): each constraint's collation.
    pub collations: Vec<String>,
    /// Input (`sqlite3_vtab_rhs_value`): the constraint's right-hand value
    /// when it is a constant.
    pub rhs: Vec<Option<Value>>,
    /// Input (`sqlite3_vtab_in`): the constraint is an `IN (...)` that may
    /// be handed over as a whole.
    pub is_in: Vec<bool>,
    /// Output (`sqlite3_vtab_in(.., 1)`): the module takes the IN list
    /// at once.
    pub in_handled: Vec<bool>,
    /// Input (`sqlite3_vtab_distinct`): 0 plain, 1 GROUP BY, 2 DISTINCT,
    /// 3 DISTINCT and ORDER BY.
    pub distinct: i32,
}

impl IndexInfo {
    /// A question with these inputs and SQLite's default answer (no
    /// constraint used, cost SQLITE_BIG_DBL / 2 = 5e98 and 25 rows, as
    /// SQLite initialises it: a module that sets no cost sees that value).
    pub fn new(constraints: Vec<IndexConstraint>, order_by: Vec<IndexOrderBy>, col_used: u64) -> IndexInfo {
        let n = constraints.len();
        IndexInfo {
            constraints,
            order_by,
            usage: vec![ConstraintUsage::default(); n],
            idx_num: 0,
            idx_str: None,
            order_by_consumed: false,
            estimated_cost: 1e99 / 2.0,
            estimated_rows: 25,
            idx_flags: 0,
            col_used,
            collations: vec!["BINARY".to_string(); n],
            rhs: vec![None; n],
            is_in: vec![false; n],
            in_handled: vec![false; n],
            distinct: 0,
        }
    }

    /// Whether the per-constraint arrays have one entry per constraint.
    pub fn parallel(&self) -> bool {
        let n = self.constraints.len();
        self.usage.len() == n && self.collations.len() == n && self.rhs.len() == n && self.is_in.len() == n && self.in_handled.len() == n
    }
}
