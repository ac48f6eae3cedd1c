//! Orders a loop can deliver: whether reading a table in rowid order, or
//! an index in its key order (forwards or backwards), yields the rows in
//! the order an ORDER BY, a GROUP BY or a min()/max() asks for, so that
//! no sorter is needed.
//!
//! Invariant: an order is only reported as served when it certainly is:
//! every term names a column of the loop's table with the collation the
//! index sorts by, all terms run in one direction relative to the index
//! (GROUP BY only needs equal keys adjacent, so any direction), and no
//! term asks for a non-default NULL placement. Terms on columns pinned
//! by an equality of the index prefix are constant and skipped. Anything
//! else is "not served" and the caller sorts: a wrong-order shortcut
//! would change results.

use crate::sql::schema::{Index, Table};
use crate::util::ascii::AsciiLower;

/// One term of the wanted order.
#[derive(Debug, Clone)]
pub struct OrderTerm {
    /// Table column, `None` for the rowid.
    pub column: Option<usize>,
    /// DESC.
    pub desc: bool,
    /// The collation the term compares with (upper case).
    pub collation: String,
}

/// What a query wants from the order of its outermost loop.
#[derive(Debug, Clone)]
pub struct OrderGoal {
    /// FROM item (scope position) every term reads.
    pub item: usize,
    /// The terms, in ORDER BY / GROUP BY order.
    pub terms: Vec<OrderTerm>,
    /// GROUP BY: each term may run in either direction.
    pub grouping: bool,
    /// min()/max(): the first row of the order is the only one needed
    /// (the plan text then says SEARCH for a full scan).
    pub min_max: bool,
    /// What `sqlite3_vtab_distinct` tells a virtual table of this order:
    /// 0 the order itself, 1 GROUP BY, 2 DISTINCT (the terms are the
    /// result columns, any order with equal rows adjacent will do),
    /// 3 DISTINCT with ORDER BY.
    pub vtab_distinct: i32,
}

/// How a scan serves a goal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Served {
    /// The order is not produced.
    No,
    /// Reading forwards produces it.
    Forward,
    /// Reading backwards produces it.
    Backward,
}

impl Served {
    /// Whether the order is produced one way or the other.
    pub fn yes(self) -> bool {
        self != Served::No
    }
}

/// The collation an index key column sorts by (upper case).
pub fn index_collation(table: &Table, ic: &crate::sql::schema::IndexColumn) -> String {
    ic.collation
        .clone()
        .or_else(|| ic.column.and_then(|c| table.columns.get(c)).and_then(|c| c.collation.clone()))
        .unwrap_or_else(|| "BINARY".into())
        .ascii_upper()
}

/// Record the direction `rev` for one more term; `false` when it
/// contradicts the direction of the earlier terms.
fn agree(dir: &mut Option<bool>, rev: bool) -> bool {
    match *dir {
        None => {
            *dir = Some(rev);
            true
        }
        Some(d) => d == rev,
    }
}

fn served(dir: Option<bool>) -> Served {
    if dir == Some(true) {
        Served::Backward
    } else {
        Served::Forward
    }
}

/// Whether reading the table in rowid order serves `goal`.
pub fn rowid_serves(goal: &OrderGoal) -> Served {
    if goal.grouping {
        // Grouping by the rowid (and anything else) is grouping by row.
        return if goal.terms.iter().any(|t| t.column.is_none()) { Served::Forward } else { Served::No };
    }
    match goal.terms.first() {
        Some(t) if t.column.is_none() => {
            if goal.grouping || !t.desc {
                Served::Forward
            } else {
                Served::Backward
            }
        }
        None => Served::Forward,
        _ => Served::No,
    }
}

/// Whether reading index `idx` (its first `n_eq` key columns pinned by
/// equalities) serves `goal`.
pub fn index_serves(goal: &OrderGoal, table: &Table, idx: &Index, n_eq: usize) -> Served {
    // (`sqlite_stat1` may call the index's order unusable.)
    if idx.stat.as_ref().is_some_and(|s| s.unordered) {
        return Served::No;
    }
    if goal.grouping {
        return index_groups(goal, table, idx, n_eq);
    }
    let mut dir: Option<bool> = None;
    let mut pos = n_eq;
    for t in &goal.terms {
        let rowid_alias = t.column.is_some() && t.column == table.rowid_alias;
        let column = if rowid_alias { None } else { t.column };
        // A column pinned by the equality prefix is one value throughout
        // (when the term compares as the index does).
        let pinned =
            idx.columns[..n_eq.min(idx.columns.len())].iter().any(|ic| ic.column.is_some() && ic.column == column && index_collation(table, ic) == t.collation);
        if pinned {
            continue;
        }
        if pos == idx.columns.len() {
            // Entries holding a WITHOUT ROWID table's whole key are
            // unique: no ties left to order.
            if entries_unique(table, idx) {
                return served(dir);
            }
            // Each entry ends with the rowid, ascending: after all key
            // columns it orders ties, and being unique it orders all.
            if column.is_none() {
                let rev = t.desc && !goal.grouping;
                return if agree(&mut dir, rev) { served(dir) } else { Served::No };
            }
            return Served::No;
        }
        let ic = &idx.columns[pos];
        if ic.column.is_none() || ic.column != column || index_collation(table, ic) != t.collation {
            return Served::No;
        }
        let rev = !goal.grouping && (t.desc != ic.descending);
        if !agree(&mut dir, rev) {
            return Served::No;
        }
        pos += 1;
    }
    served(dir)
}

/// GROUP BY terms may be taken in any order: the key columns after the
/// equality prefix must be the terms (each once), or the terms must end
/// with the rowid after all key columns.
fn index_groups(goal: &OrderGoal, table: &Table, idx: &Index, n_eq: usize) -> Served {
    let norm = |c: Option<usize>| if c.is_some() && c == table.rowid_alias { None } else { c };
    let mut left: Vec<(Option<usize>, &str)> = goal.terms.iter().map(|t| (norm(t.column), t.collation.as_str())).collect();
    // Terms pinned by the equality prefix are constant.
    left.retain(|(c, coll)| {
        !idx.columns[..n_eq.min(idx.columns.len())].iter().any(|ic| ic.column.is_some() && ic.column == *c && index_collation(table, ic) == *coll)
    });
    for ic in idx.columns.iter().skip(n_eq) {
        if left.is_empty() {
            return Served::Forward;
        }
        let coll = index_collation(table, ic);
        match left.iter().position(|(c, cl)| ic.column.is_some() && *c == ic.column && *cl == coll) {
            Some(p) => {
                left.remove(p);
            }
            None => return Served::No,
        }
    }
    match left.as_slice() {
        [] | [(None, _)] => Served::Forward,
        _ if entries_unique(table, idx) => Served::Forward,
        _ => Served::No,
    }
}

/// Whether every entry of `idx` is unique because it holds the whole
/// PRIMARY KEY of a WITHOUT ROWID table (whose key columns are NOT NULL):
/// its PRIMARY KEY itself, or a secondary index with its key suffix.
fn entries_unique(table: &Table, idx: &Index) -> bool {
    table.without_rowid.is_some() && table.index_suffix(idx).is_empty()
}

/// SQLite's `sqlite3LogEstFromDouble`: [`log_est`] of a cost.
pub fn log_est_f64(x: f64) -> i32 {
    if x.is_nan() || x <= 1.0 {
        return 0;
    }
    if x <= 2_000_000_000.0 {
        return log_est(x as u64);
    }
    let e = ((x.to_bits() >> 52) & 0x7ff) as i32 - 1022;
    e * 10
}

/// SQLite's logarithmic estimate (10 * log2(x), roughly) used to compare
/// row widths.
pub fn log_est(mut x: u64) -> i32 {
    const TAIL: [i32; 8] = [0, 2, 3, 5, 6, 7, 8, 9];
    let mut y = 40i32;
    if x < 8 {
        if x < 2 {
            return 0;
        }
        while x < 8 {
            y -= 10;
            x <<= 1;
        }
    } else {
        while x > 255 {
            y += 40;
            x >>= 4;
        }
        while x > 15 {
            y += 10;
            x >>= 1;
        }
    }
    TAIL[(x & 7) as usize] + y - 10
}

/// Estimated width of a column, in units of 4 bytes: text and blob
/// declared types are wide (or as wide as a declared size), others one.
fn column_width(table: &Table, c: usize) -> u64 {
    let Some(col) = table.columns.get(c) else { return 1 };
    let Some(decl) = col.decltype.as_deref() else { return 1 };
    if col.affinity.is_numeric() {
        return 1;
    }
    // The first number in parentheses, when there is one.
    if let Some(open) = decl.find('(') {
        let digits: String = decl[open + 1..].trim_start().chars().take_while(|ch| ch.is_ascii_digit()).collect();
        let v: u64 = digits.parse().unwrap_or(0);
        return (v / 4 + 1).min(255);
    }
    16
}

/// Estimated width of a table's rows, as a logarithmic estimate
/// comparable with [`index_width`] (SQLite's `szTabRow`).
pub fn table_width(table: &Table) -> i32 {
    if let Some(size) = table.stat.and_then(|s| s.size) {
        return size;
    }
    let mut w: u64 = (0..table.columns.len()).map(|c| column_width(table, c)).sum();
    if table.rowid_alias.is_none() {
        w += 1;
    }
    log_est(w * 4)
}

/// Whether an index's entries are estimated narrower than the table's
/// rows (a full scan then reads the covering index instead).
pub fn index_is_narrower(table: &Table, idx: &Index) -> bool {
    // (SQLite never scans an index `sqlite_stat1` calls unordered in
    // place of the table.)
    !idx.stat.as_ref().is_some_and(|s| s.unordered) && index_width(table, idx) < table_width(table)
}

/// Estimated width of an index entry (key columns and rowid), as a
/// logarithmic estimate comparable between indexes.
pub fn index_width(table: &Table, idx: &Index) -> i32 {
    if let Some(size) = idx.stat.as_ref().and_then(|s| s.size) {
        return size;
    }
    let w: u64 = idx.columns.iter().map(|ic| ic.column.map_or(1, |c| column_width(table, c))).sum::<u64>() + 1;
    log_est(w * 4)
}
