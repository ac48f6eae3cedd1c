//! Query flattening (SQLite's "Query Flattening", `optoverview.html` §12),
//! for the case that needs no rewriting: a view or FROM subquery whose
//! body only projects a prefix of one table's columns, unchanged, is read
//! as that table itself. The outer query's loops then scan or search the
//! table directly (its indexes, its rowid), as SQLite's plan does after
//! it flattens the subquery, instead of filling a temporary table first.
//!
//! Interface: `from.rs` asks [`Compiler::flat_projection`] with the
//! parsed body of a view or subquery before materialising it; on `Some`
//! it opens the table under the item's name with the projected columns
//! (`open_flat_table`) and compiles no body.
//!
//! Why only a prefix projection: the item's scope columns are then the
//! table's first columns, with the same names, positions, affinities,
//! collations and declared types, so every column reference the outer
//! query resolves reads exactly the value the temporary table held, and
//! nothing else in the outer query changes (names, origins, `*`).
//!
//! Conditions (a subset of SQLite's, so a body is flattened only where
//! SQLite flattens it too):
//! - the statement is a SELECT (`SelectContext::flatten`): DML keeps
//!   reading a snapshot of what it may write; no authorizer is set (its
//!   calls are SQLite's for the body); the legacy column-naming pragmas
//!   are off;
//! - the item is no CTE (a CTE's body is bound lexically, and SQLite
//!   materialises one used twice) and not the right table of a RIGHT or
//!   FULL JOIN (the caller's check);
//! - the body is one SELECT without WITH, DISTINCT, WHERE, GROUP BY,
//!   HAVING, WINDOW, ORDER BY or LIMIT, reading one rowid table (not a
//!   view, virtual table, CTE, or one with generated columns), unqualified
//!   and without INDEXED BY;
//! - result column i is table column i (`*` for all of them, or its name,
//!   qualified or not), named exactly as the table names it (and as the
//!   view's column list, if any).

use crate::sql::parse::unquote;
use crate::sql::plan::facts::PlanFacts;
use crate::sql::schema::Table;
use crate::util::ascii::AsciiLower;
use sqlite3_parser::ast::{self, Expr, OneSelect, ResultColumn, Select, SelectTable};
use std::sync::Arc;

/// A body read as its table.
pub struct FlatTable {
    /// The table read.
    pub table: Arc<Table>,
    /// How many of its columns (a prefix) the item shows.
    pub width: usize,
    /// The name EXPLAIN QUERY PLAN shows: the body's alias of the table,
    /// else its name.
    pub plan_name: String,
}

/// Views a body may read through, each flattened in turn (a guard: a
/// view defined circularly is not flattened, the usual expansion reports
/// it).
const MAX_NESTED_VIEWS: usize = 8;

/// Reading a FROM subquery or view as the table under it (implemented for every
/// [`PlanFacts`]).
pub trait Flatten: PlanFacts {
    /// The table `sel` (a view's body when `view`, else a FROM
    /// subquery's; `cols` the view's declared column names) may be read
    /// as, when it is flattened.
    fn flat_projection(&self, sel: &Select<'_>, cols: Option<&[String]>, view: bool) -> Option<FlatTable> {
        // (Under the legacy naming pragmas a name shows the item it was
        // read through: left to the materialised item's naming.)
        let legacy_names = self.settings().full_column_names || !self.settings().short_column_names;
        if !self.flatten_enabled() || self.has_authorizer() || legacy_names {
            return None;
        }
        self.flat_body(sel, cols, view, self.home_db(), 0)
    }

    /// [`Self::flat_projection`] with the database unqualified names in
    /// `sel` look in first (`home`) and how many views deep it is.
    fn flat_body(&self, sel: &Select<'_>, cols: Option<&[String]>, view: bool, home: Option<usize>, depth: usize) -> Option<FlatTable> {
        if sel.with.is_some() || sel.order_by.is_some() || sel.limit.is_some() || sel.body.compounds.as_ref().is_some_and(|c| !c.is_empty()) {
            return None;
        }
        let OneSelect::Select { distinctness: None, columns, from: Some(from), where_clause: None, group_by: None, having: None, window_clause: None } =
            &sel.body.select
        else {
            return None;
        };
        if from.joins.as_ref().is_some_and(|j| !j.is_empty()) {
            return None;
        }
        let Some(SelectTable::Table(qn, alias, None)) = from.select else { return None };
        if qn.db_name.is_some() {
            return None;
        }
        let name = unquote(qn.name.0);
        // (Inside a view's body the statement's CTEs are out of scope.)
        if name.ascii_lower().starts_with("sqlite_") || depth == 0 && self.has_cte(&name) {
            return None;
        }
        let read = self.schema().shared_table_in(home, &name)?;
        // What the body reads: the table, or through a view that is itself
        // flattened, a prefix of the table's columns.
        let (inner, shown) = match &read.view_select {
            Some(view_sql) => {
                // (Expanding it would nest one view deeper: past the limit,
                // that expansion reports the error.)
                let too_deep = self.view_depth() + depth + 1 >= self.max_expr_depth();
                if depth >= MAX_NESTED_VIEWS || too_deep || self.expanding().iter().any(|v| v.eq_ci(&name)) {
                    return None;
                }
                let view_home = (read.db != 1).then_some(read.db);
                let cols = read.view_columns.as_deref();
                let inner = crate::sql::parse::with_first_statement(view_sql.as_bytes(), |cmd, _| {
                    Ok(match cmd {
                        Some(ast::Cmd::Stmt(ast::Stmt::Select(s))) => self.flat_body(s, cols, true, view_home, depth + 1),
                        _ => None,
                    })
                })
                .ok()??;
                // (An alias of the view names nothing the plan shows.)
                let shown = inner.plan_name.clone();
                (inner, shown)
            }
            None => {
                if read.virtual_table.is_some() || read.without_rowid.is_some() || read.columns.iter().any(|c| c.generated.is_some()) {
                    return None;
                }
                let shown = match alias {
                    Some(ast::As::As(n) | ast::As::Elided(n)) => unquote(n.0),
                    None => read.name.clone(),
                };
                (FlatTable { table: read.clone(), width: read.columns.len(), plan_name: shown.clone() }, shown)
            }
        };
        let qualifier = match alias {
            Some(ast::As::As(n) | ast::As::Elided(n)) => unquote(n.0),
            None => read.name.clone(),
        };
        let table = &inner.table;
        let visible = &table.columns[..inner.width];
        let width = match columns {
            [ResultColumn::Star] => visible.len(),
            [ResultColumn::TableStar(t)] if unquote(t.0).eq_ci(&qualifier) => visible.len(),
            _ => {
                for (i, rc) in columns.iter().enumerate() {
                    let ResultColumn::Expr(e, as_name) = rc else { return None };
                    let written = match e {
                        Expr::Id(id) => unquote(id.0),
                        Expr::Qualified(q, n) if unquote(q.0).eq_ci(&qualifier) => unquote(n.0),
                        _ => return None,
                    };
                    let col = visible.get(i)?;
                    if !col.name.eq_ci(&written) {
                        return None;
                    }
                    // (A view names an unaliased column by its declared
                    // name, a subquery by the name as written: the item's
                    // must be the table's, for `*` and the column's origin.)
                    let named = match as_name {
                        Some(ast::As::As(n) | ast::As::Elided(n)) => unquote(n.0),
                        None if view => col.name.clone(),
                        None => written,
                    };
                    if named != col.name {
                        return None;
                    }
                }
                columns.len()
            }
        };
        if width == 0 || cols.is_some_and(|c| c.len() != width || c.iter().zip(visible.iter()).any(|(n, col)| *n != col.name)) {
            return None;
        }
        // An index's WHERE clause or expressions are resolved in the
        // item's scope: every column they may name must be in it.
        if width < table.columns.len() && self.schema().indexes_of(table).iter().any(|i| i.where_sql.is_some() || i.columns.iter().any(|c| c.expr.is_some())) {
            return None;
        }
        Some(FlatTable { table: table.clone(), width, plan_name: shown })
    }
}

impl<T: PlanFacts> Flatten for T {}
