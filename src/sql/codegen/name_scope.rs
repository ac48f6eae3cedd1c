//! Name resolution's state for one statement: the scopes a name is
//! looked up in (innermost last), the result-column aliases usable in
//! WHERE/GROUP BY/HAVING/ORDER BY, the USING/NATURAL equalities of joins,
//! the database unqualified names bind to, and how deep the SELECT being
//! compiled is nested.

use crate::sql::resolve::Scope;
use std::collections::HashMap;

/// What names mean where the code being compiled stands.
#[derive(Default)]
pub struct NameScope {
    /// Name-resolution scopes, innermost last.
    pub scopes: Vec<Scope>,
    /// Result-column aliases usable in WHERE/GROUP BY/HAVING/ORDER BY,
    /// innermost SELECT last.
    pub aliases: Vec<Aliases>,
    /// While a join order is searched: names resolved so far (see
    /// `plan::name_memo`).
    pub name_memo: Option<crate::sql::plan::name_memo::NameMemo>,
    /// While `expr_deps_through_aliases` runs: a result alias of the
    /// innermost SELECT counts as what its expression reads.
    pub deps_through_aliases: bool,
    /// For an accumulator of `agg_regs`, the one of an enclosing query its
    /// entry replaced (the same call text): what that text means where
    /// the enclosing query's expression is compiled (a result alias named
    /// in a subquery).
    pub agg_shadowed: crate::util::fast_hash::FastMap<i32, i32>,
    /// USING/NATURAL equalities by the cursor of their left table: its
    /// column and the right table's, for the inner joins the planner may
    /// place the right table outside (SQLite offers the term to a left
    /// virtual table too).
    pub using_left_terms: HashMap<i32, Vec<(crate::sql::resolve::ColumnRef, crate::sql::resolve::ColumnRef)>>,
    /// USING/NATURAL equalities of joins the planner reorders (inner
    /// joins, outer ones once reduced), by the cursor of their left
    /// table: its column and the right table's. The left table may be
    /// looked up by them when the right one is read outside it.
    pub using_reordered: HashMap<i32, Vec<(crate::sql::resolve::ColumnRef, crate::sql::resolve::ColumnRef)>>,
    /// Compiling the body of a view or trigger stored in this database:
    /// its unqualified names mean objects of that database only, as
    /// SQLite binds them (`None`: the search order, temp views/triggers).
    pub home_db: Option<usize>,
    /// While a compound's ORDER BY is resolved: the plain column references
    /// of its later SELECTs (column name, result position).
    pub later_compound_columns: Vec<(String, usize)>,
    /// And the result expressions of its later SELECTs as written (text,
    /// result position): a term written as one of them names that column.
    pub later_compound_exprs: Vec<(String, usize)>,
    /// How many SELECTs enclose the code being compiled.
    pub select_depth: usize,
    /// The `select_depth` of the SELECT carrying a DML statement's own
    /// WHERE (`Compiler::compile_dml_where`), 0 outside one: row widths
    /// are checked as written down to that level (`row_value.rs`).
    pub dml_where_level: usize,
    /// The expression at which name resolution is to fail as too deep
    /// (its address in the statement's tree), if any
    /// (`sql::parse_limits::DeferredDepth`).
    pub depth_point: Option<usize>,
    /// The names of the WINDOW clause of the SELECT whose clauses are
    /// being walked for their names (`None`: not known there, no window
    /// is looked up).
    pub window_defs: Option<Vec<String>>,
}

/// The result-column aliases of one SELECT.
#[derive(Debug, Clone, Default)]
pub struct Aliases {
    /// (alias, expression as SQL text, re-parsed where used).
    pub list: Vec<(String, String)>,
    /// How many scopes were open with the SELECT's own innermost: its
    /// expressions name columns (and aggregates) of those scopes only,
    /// even where a subquery names the alias.
    pub scope_depth: usize,
}
