//! Name resolution: which FROM item and column an identifier means, with
//! SQLite's messages (`no such column: x`, `ambiguous column name: x`,
//! `no such table: x`).
//!
//! Scopes nest: a subquery's scope sits on top of its enclosing query's,
//! and an identifier not found in the innermost scope is looked up
//! outward (a correlated reference). Invariant: a lookup that reaches an
//! outer scope marks every scope it passed as correlated.

use crate::error::{Error, Result};
use crate::util::ascii::AsciiLower;
use crate::value::affinity::Affinity;
use std::sync::Arc;

/// One column visible through a FROM item.
#[derive(Debug, Clone)]
pub struct ScopeColumn {
    /// Name.
    pub name: String,
    /// Affinity (BLOB for none).
    pub affinity: Affinity,
    /// A subquery's column whose expression has no affinity at all (it
    /// compares as BLOB, but a view reading it shows no type for it).
    pub without_affinity: bool,
    /// Collation name, when declared.
    pub collation: Option<String>,
    /// Declared type.
    pub decltype: Option<String>,
    /// Hidden from `*` (the right side of USING/NATURAL).
    pub hidden: bool,
    /// A table-valued function's argument column (json_each's `json` and
    /// `root`, SQLite's HIDDEN virtual-table columns): found by name, left
    /// out of both `*` and `t.*`.
    pub argument: bool,
    /// A column of a parenthesized join (`t1 JOIN (t2 JOIN t3)`): the
    /// table (or alias) inside it the column comes from, which qualifies
    /// it as the item's own name does.
    pub source: Option<String>,
    /// The database of `source`, when it is a table.
    pub source_db: Option<usize>,
}

/// One FROM item: a table, view, or subquery, read through `cursor`.
#[derive(Debug, Clone)]
pub struct ScopeItem {
    /// The name used to qualify columns (alias or table name).
    pub name: String,
    /// The real table name (column origin), empty for subqueries.
    pub table: String,
    /// The database holding `table`.
    pub db: usize,
    /// Cursor reading the rows.
    pub cursor: i32,
    /// Columns (shared with the table's cached list, see
    /// `Table::scope_columns`; copied when one is hidden).
    pub columns: Arc<Vec<ScopeColumn>>,
    /// The INTEGER PRIMARY KEY column.
    pub rowid_alias: Option<usize>,
    /// Whether `rowid` names the rowid (real tables).
    pub has_rowid: bool,
    /// The columns this item was joined on by USING or NATURAL: `x.col`
    /// naming one of them is not ambiguous with an earlier item also
    /// called `x`.
    pub using: Vec<String>,
    /// The view or CTE this item reads (`name` may be an alias of it):
    /// legacy full column names are TABLE.COLUMN with its name.
    pub object_name: Option<String>,
    /// The database of the view this item reads: as in SQLite (whose
    /// FROM item keeps a view's schema), `db.view.column` names it.
    pub view_db: Option<usize>,
}

/// A resolved column reference.
#[derive(Debug, Clone)]
pub struct ColumnRef {
    /// Scope depth counted from the innermost (0).
    pub depth: usize,
    /// Item index in that scope.
    pub item: usize,
    /// Cursor.
    pub cursor: i32,
    /// Column index, or `None` for the rowid.
    pub column: Option<usize>,
    /// Affinity.
    pub affinity: Affinity,
    /// Collation.
    pub collation: Option<String>,
}

/// The FROM items of one SELECT (or the target of UPDATE/DELETE).
#[derive(Debug, Clone, Default)]
pub struct Scope {
    /// Items in FROM order.
    pub items: Vec<ScopeItem>,
    /// A lookup passed through this scope to an outer one.
    pub correlated: bool,
}

fn is_rowid_name(n: &str) -> bool {
    n.eq_ci("rowid") || n.eq_ci("oid") || n.eq_ci("_rowid_")
}

/// The column `name` reads in `item` (`Some(None)`: the rowid) and the
/// visible column of that name, if any (scanned once: every identifier of
/// every statement comes through here).
fn column_of(item: &ScopeItem, name: &str) -> Option<(Option<usize>, Option<usize>)> {
    if let Some(i) = item.columns.iter().position(|c| c.name.eq_ci(name)) {
        return Some((if item.rowid_alias == Some(i) { None } else { Some(i) }, Some(i)));
    }
    if item.has_rowid && is_rowid_name(name) {
        return Some((None, None));
    }
    None
}

/// Column `name` of the table `qualifier` inside a parenthesized join
/// item (see [`ScopeColumn::source`]).
fn source_column_of(item: &ScopeItem, db: Option<usize>, qualifier: &str, name: &str) -> Option<usize> {
    // (Most items have no such column: the source is tested first.)
    item.columns.iter().position(|c| c.source.as_deref().is_some_and(|s| s.eq_ci(qualifier)) && c.name.eq_ci(name) && db.is_none_or(|d| c.source_db == Some(d)))
}

/// Resolve `[qualifier.]name` through `scopes` (innermost last).
/// `Ok(None)` when nothing matches (the caller may try other meanings).
pub fn resolve(scopes: &mut [Scope], qualifier: Option<&str>, name: &str) -> Result<Option<ColumnRef>> {
    resolve_in(scopes, None, qualifier, name)
}

/// Whether `q` (in `db.q.column`, `db` when given) names `item`. As in
/// SQLite, a schema table read without an alias answers to its legacy
/// and its new name alike (`sqlite_master`/`sqlite_schema`, for TEMP
/// `sqlite_temp_master`/`sqlite_temp_schema`, which `temp.sqlite_master`
/// also names).
fn qualifier_names(item: &ScopeItem, db: Option<usize>, q: &str) -> bool {
    if item.name.eq_ci(q) {
        return true;
    }
    if !item.name.eq_ci(&item.table) {
        return false;
    }
    let is = |s: &str, names: [&str; 2]| names.iter().any(|n| s.eq_ci(n));
    const MAIN: [&str; 2] = ["sqlite_master", "sqlite_schema"];
    const TEMP: [&str; 2] = ["sqlite_temp_master", "sqlite_temp_schema"];
    if item.db == 1 {
        is(&item.name, TEMP) && (is(q, TEMP) || (db == Some(1) && is(q, MAIN)))
    } else {
        is(&item.name, MAIN) && is(q, MAIN)
    }
}

/// Resolve `db.qualifier.name` (a three-part name): as [`resolve`], only
/// items reading a table of database `db` match when it is given.
pub fn resolve_in(scopes: &mut [Scope], db: Option<usize>, qualifier: Option<&str>, name: &str) -> Result<Option<ColumnRef>> {
    let n = scopes.len();
    for depth in 0..n {
        let si = n - 1 - depth;
        let scope = &scopes[si];
        let mut found: Option<ColumnRef> = None;
        // (Found as a table's column inside a parenthesized join: another
        // table of that name makes `t.col` ambiguous.)
        let mut by_source = false;
        // An unqualified `rowid` that some item has as a real column names
        // that column: the implicit rowids of the others do not compete
        // with it (as in SQLite; two implicit ones are ambiguous).
        let real_rowid_column =
            qualifier.is_none() && is_rowid_name(name) && scope.items.iter().any(|it| it.columns.iter().any(|c| !c.hidden && c.name.eq_ci(name)));
        for (ii, item) in scope.items.iter().enumerate() {
            if let Some(q) = qualifier {
                if !qualifier_names(item, db, q) {
                    // A table inside a parenthesized join.
                    if let Some(c) = source_column_of(item, db, q, name) {
                        if found.is_some() {
                            return Err(Error::sql(format!("ambiguous column name: {q}.{name}")));
                        }
                        let col = &item.columns[c];
                        found =
                            Some(ColumnRef { depth, item: ii, cursor: item.cursor, column: Some(c), affinity: col.affinity, collation: col.collation.clone() });
                        by_source = true;
                    }
                    continue;
                }
            }
            if db.is_some_and(|d| if item.table.is_empty() { item.view_db != Some(d) } else { item.db != d }) {
                continue;
            }
            if let Some((col, visible_col)) = column_of(item, name) {
                if real_rowid_column && visible_col.is_none() {
                    continue;
                }
                if qualifier.is_none() {
                    if let Some(vc) = visible_col {
                        if item.columns[vc].hidden {
                            continue;
                        }
                    }
                }
                if found.is_some() {
                    if qualifier.is_none() {
                        return Err(Error::sql(format!("ambiguous column name: {name}")));
                    }
                    // Two items of that name: ambiguous, unless this one
                    // was joined to the other on that column. (Items of
                    // different databases are told apart by callers that
                    // pass `db`; those that do not keep the first.)
                    let same_db = found.as_ref().is_some_and(|f| scope.items[f.item].db == item.db);
                    if by_source || (same_db && !item.using.iter().any(|u| u.eq_ci(name))) {
                        return Err(Error::sql(format!("ambiguous column name: {}.{name}", qualifier.unwrap_or_default())));
                    }
                    continue;
                }
                let (aff, coll) = match visible_col {
                    Some(vc) => (item.columns[vc].affinity, item.columns[vc].collation.clone()),
                    None => (Affinity::Integer, None),
                };
                found = Some(ColumnRef { depth, item: ii, cursor: item.cursor, column: col, affinity: aff, collation: coll });
            }
        }
        if let Some(f) = found {
            for s in scopes.iter_mut().skip(si + 1) {
                s.correlated = true;
            }
            return Ok(Some(f));
        }
    }
    Ok(None)
}

/// The name the SQL that UPDATE and DELETE compile internally uses for the
/// target's rowid: a table may have columns named rowid, oid and _rowid_,
/// which hide the rowid from those names.
pub const INTERNAL_ROWID: &str = "_ringlite_rowid_";

/// The internal name (then the column's number) the query collecting an
/// UPDATE of a virtual table reads a column the statement leaves with
/// (`dml/vtab_dml.rs`); it resolves as the item's rowid.
pub const UNCHANGED_VALUE: &str = "_ringlite_unchanged_";
/// The internal name (then the column's number) of the subtype that read
/// left (`NOCHANGE_SUBTYPE` where the module left the value out).
pub const UNCHANGED_FLAG: &str = "_ringlite_unchanged_flag_";

/// The rowid of the innermost scope's item named `qualifier` (the first
/// item with a rowid when none), whatever its columns are called.
pub fn resolve_rowid(scopes: &[Scope], qualifier: Option<&str>) -> Option<ColumnRef> {
    let scope = scopes.last()?;
    let (ii, item) = scope.items.iter().enumerate().find(|(_, it)| it.has_rowid && qualifier.is_none_or(|q| it.name.eq_ci(q)))?;
    Some(ColumnRef { depth: 0, item: ii, cursor: item.cursor, column: None, affinity: Affinity::Integer, collation: None })
}

/// The message for a column that resolved nowhere.
pub fn no_such_column(qualifier: Option<&str>, name: &str) -> Error {
    match qualifier {
        Some(q) => Error::sql(format!("no such column: {q}.{name}")),
        None => Error::sql(format!("no such column: {name}")),
    }
}
