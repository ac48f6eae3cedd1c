//! The compiler as the planner sees it: `plan::facts::PlanFacts` answered
//! from the compile's state (name scopes, the connection's environment,
//! the virtual-table and loop state) and the resolution, affinity and
//! collation code of `expr/`, so that `plan/` names no codegen type.
//!
//! Invariant: each method forwards to the compiler's own field or method
//! of the same meaning; none emits an instruction.

use crate::error::Result;
use crate::sql::codegen::Compiler;
use crate::sql::model::from::FromItem;
use crate::sql::plan::facts::PlanFacts;
use crate::sql::plan::name_memo::NameMemo;
use crate::sql::plan::vtab::{Asked, VtabPlans};
use crate::sql::resolve::{ColumnRef, Scope};
use crate::sql::schema::{Index, IndexColumn, Schema, Table};
use crate::util::ascii::AsciiLower;
use crate::value::affinity::Affinity;
use crate::vdbe::program::P4;
use crate::vdbe::settings::Settings;
use crate::vdbe::vtab::VtabInstance;
use sqlite3_parser::ast::{Expr, Select};
use std::collections::HashMap;

impl PlanFacts for Compiler<'_> {
    fn schema(&self) -> &Schema {
        self.env.schema
    }
    fn settings(&self) -> &Settings {
        &self.env.settings
    }
    fn max_expr_depth(&self) -> usize {
        self.env.max_expr_depth
    }
    fn scopes(&self) -> &[Scope] {
        &self.names.scopes
    }
    fn home_db(&self) -> Option<usize> {
        self.names.home_db
    }
    fn name_memo(&mut self) -> &mut Option<NameMemo> {
        &mut self.names.name_memo
    }
    fn using_left_terms(&self, cursor: i32) -> Option<&Vec<(ColumnRef, ColumnRef)>> {
        self.names.using_left_terms.get(&cursor)
    }
    fn vtab_col_used(&mut self) -> &mut HashMap<i32, u64> {
        &mut self.vtab.col_used
    }
    fn vtab_plans(&mut self) -> &mut Vec<VtabPlans> {
        &mut self.vtab.plans
    }
    fn vtab_asked<'x>(&'x self, inst: &'x VtabInstance) -> Asked<'x> {
        Compiler::vtab_asked(self, inst)
    }
    fn firing(&self) -> &[(String, i32)] {
        &self.dml.firing
    }
    fn in_or_branch(&self) -> bool {
        self.loops.in_or_branch
    }
    fn const_fixed_nodes(&self) -> &[usize] {
        &self.select.const_fixed_nodes
    }
    fn flatten_enabled(&self) -> bool {
        self.select.flatten
    }
    fn has_authorizer(&self) -> bool {
        self.stmt.authorizer.is_some()
    }
    fn has_cte(&self, name: &str) -> bool {
        self.cte_at(name).is_some() || self.frame.recursive.iter().any(|r| r.name.eq_ci(name))
    }
    fn view_depth(&self) -> usize {
        self.expansion.view_depth
    }
    fn expanding(&self) -> &[String] {
        &self.expansion.expanding
    }

    fn resolve_name(&mut self, qualifier: Option<&str>, name: &str) -> Result<Option<ColumnRef>> {
        Compiler::resolve_name(self, qualifier, name)
    }
    fn expr_deps(&mut self, e: &Expr<'_>) -> u64 {
        Compiler::expr_deps(self, e)
    }
    fn expr_deps_through_aliases(&mut self, e: &Expr<'_>) -> u64 {
        Compiler::expr_deps_through_aliases(self, e)
    }
    fn expr_affinity(&mut self, e: &Expr<'_>) -> Option<Affinity> {
        Compiler::expr_affinity(self, e)
    }
    fn expr_collation(&mut self, e: &Expr<'_>) -> Option<(String, bool)> {
        Compiler::expr_collation(self, e)
    }
    fn comparison_collation(&mut self, l: &Expr<'_>, r: &Expr<'_>) -> Result<P4> {
        Compiler::comparison_collation(self, l, r)
    }
    fn expr_lookup_keys(&mut self, item: usize, item_name: &str, table: &Table, col_side: &Expr<'_>, other: &Expr<'_>) -> Vec<usize> {
        Compiler::expr_lookup_keys(self, item, item_name, table, col_side, other)
    }
    fn column_lookup_keys(&mut self, table: &Table, c: usize, collation: &str) -> Vec<usize> {
        Compiler::column_lookup_keys(self, table, c, collation)
    }
    fn index_lookup_key(&mut self, table: &Table, ic: &IndexColumn) -> Option<usize> {
        Compiler::index_lookup_key(self, table, ic)
    }
    fn loop_indexes(&mut self, it: &FromItem<'_, '_>, table: &Table, terms: &[&Expr<'_>]) -> Result<Vec<Index>> {
        Compiler::loop_indexes(self, it, table, terms)
    }
    fn without_rowid_key_eqs<'a>(&mut self, it: &FromItem<'a, '_>, table: &Table, before: u64, terms: &[&'a Expr<'_>]) -> usize {
        Compiler::without_rowid_key_eqs(self, it, table, before, terms)
    }
    fn subquery_outer_refs(&mut self, sel: &Select<'_>) -> Option<Vec<ColumnRef>> {
        Compiler::subquery_outer_refs(self, sel)
    }
    fn index_covers(table: &Table, idx: &Index, item: usize, uses: &[(usize, Option<usize>)]) -> bool {
        Compiler::index_covers(table, idx, item, uses)
    }
}
