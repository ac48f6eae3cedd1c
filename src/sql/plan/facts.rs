//! What the planner asks of the compile it plans for: how a name
//! resolves, which FROM items an expression reads, the affinity and
//! collation of an operand, the indexes a loop may use, and the few
//! switches of the statement being compiled (`PlanFacts`). The code
//! generator implements it (`codegen/plan_facts.rs`); the planner's
//! extension traits (`access::Access`, `goal::Goals`, `join_order::JoinOrder`,
//! ...) are implemented for every `PlanFacts`, so `plan/` names no
//! code-generation type and codegen calls the planner as methods of the
//! compiler.
//!
//! Invariant: every method here only reads the compile's state, except
//! the planner's own memos (`name_memo`, `vtab_col_used`, `vtab_plans`),
//! which the planner alone fills; asking a fact emits no instruction.

use crate::error::Result;
use crate::sql::model::from::FromItem;
use crate::sql::plan::name_memo::NameMemo;
use crate::sql::plan::vtab::{Asked, VtabPlans};
use crate::sql::resolve::{ColumnRef, Scope};
use crate::sql::schema::{Index, IndexColumn, Schema, Table};
use crate::value::affinity::Affinity;
use crate::vdbe::program::P4;
use crate::vdbe::settings::Settings;
use crate::vdbe::vtab::VtabInstance;
use sqlite3_parser::ast::{Expr, Select};
use std::collections::HashMap;

/// The facts of a compile the planner reads (see the module doc).
pub trait PlanFacts: Sized {
    /// The schema the statement compiles against.
    fn schema(&self) -> &Schema;
    /// The connection's pragma switches.
    fn settings(&self) -> &Settings;
    /// SQLITE_LIMIT_EXPR_DEPTH.
    fn max_expr_depth(&self) -> usize;
    /// The name-resolution scopes, innermost last.
    fn scopes(&self) -> &[Scope];
    /// The database unqualified names look in first.
    fn home_db(&self) -> Option<usize>;
    /// The join-order search's memo of resolutions.
    fn name_memo(&mut self) -> &mut Option<NameMemo>;
    /// USING/NATURAL equalities where the table at `cursor` is the left one.
    fn using_left_terms(&self, cursor: i32) -> Option<&Vec<(ColumnRef, ColumnRef)>>;
    /// The `colUsed` masks of the virtual tables, by cursor.
    fn vtab_col_used(&mut self) -> &mut HashMap<i32, u64>;
    /// The plans asked of virtual tables while the join was ordered.
    fn vtab_plans(&mut self) -> &mut Vec<VtabPlans>;
    /// `inst` as the planner asks it (see [`Asked`]).
    fn vtab_asked<'x>(&'x self, inst: &'x VtabInstance) -> Asked<'x>;
    /// The triggers firing around the statement (event name, cursor).
    fn firing(&self) -> &[(String, i32)];
    /// Compiling a branch of an OR union's loop.
    fn in_or_branch(&self) -> bool;
    /// Column nodes constant propagation replaced (by address).
    fn const_fixed_nodes(&self) -> &[usize];
    /// Flattening FROM subqueries and views is on.
    fn flatten_enabled(&self) -> bool;
    /// An authorizer watches the compile.
    fn has_authorizer(&self) -> bool;
    /// A CTE (or a recursive CTE being compiled) named `name` is in scope.
    fn has_cte(&self, name: &str) -> bool;
    /// How many views deep the expansion stands.
    fn view_depth(&self) -> usize;
    /// The views being expanded, outermost first.
    fn expanding(&self) -> &[String];

    /// What `qualifier.name` resolves to.
    fn resolve_name(&mut self, qualifier: Option<&str>, name: &str) -> Result<Option<ColumnRef>>;
    /// The FROM items `e` reads (`u64::MAX`: unknown before the loops).
    fn expr_deps(&mut self, e: &Expr<'_>) -> u64;
    /// [`Self::expr_deps`], a result alias of the SELECT being planned
    /// counted as the items its expression reads (SQLite substitutes the
    /// expression for the alias where a table-valued function's argument
    /// names one).
    fn expr_deps_through_aliases(&mut self, e: &Expr<'_>) -> u64;
    /// The affinity of `e`, if it has one.
    fn expr_affinity(&mut self, e: &Expr<'_>) -> Option<Affinity>;
    /// The collation of `e` and whether it is explicit.
    fn expr_collation(&mut self, e: &Expr<'_>) -> Option<(String, bool)>;
    /// The collation comparing `l` with `r`.
    fn comparison_collation(&mut self, l: &Expr<'_>, r: &Expr<'_>) -> Result<P4>;
    /// The indexed expressions of `table` a lookup by `other` may use.
    fn expr_lookup_keys(&mut self, item: usize, item_name: &str, table: &Table, col_side: &Expr<'_>, other: &Expr<'_>) -> Vec<usize>;
    /// The lookup keys of a comparison of column `c` under `collation`
    /// (upper case).
    fn column_lookup_keys(&mut self, table: &Table, c: usize, collation: &str) -> Vec<usize>;
    /// The key an index column is looked up by.
    fn index_lookup_key(&mut self, table: &Table, ic: &IndexColumn) -> Option<usize>;
    /// The indexes a loop over `it` may use.
    fn loop_indexes(&mut self, it: &FromItem<'_, '_>, table: &Table, terms: &[&Expr<'_>]) -> Result<Vec<Index>>;
    /// How many leading PRIMARY KEY columns `=` terms fix.
    fn without_rowid_key_eqs<'a>(&mut self, it: &FromItem<'a, '_>, table: &Table, before: u64, terms: &[&'a Expr<'_>]) -> usize;
    /// The outer columns a subquery reads (`None`: unknown).
    fn subquery_outer_refs(&mut self, sel: &Select<'_>) -> Option<Vec<ColumnRef>>;
    /// Whether index `idx` of item `item` holds every column read of it.
    fn index_covers(table: &Table, idx: &Index, item: usize, uses: &[(usize, Option<usize>)]) -> bool;
}
