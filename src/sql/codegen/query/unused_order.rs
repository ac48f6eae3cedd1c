//! Clauses SQLite resolves but never codes: the ORDER BY of a
//! SELECT whose rows feed an EXISTS test (removed after name resolution,
//! whatever the SELECT holds), and that of an aggregate query without
//! GROUP BY or a SELECT without FROM (one row at most: its sorter is
//! never built), and the subqueries in an EXISTS test's result columns
//! (replaced by a constant once resolved). The resolver's
//! errors in such terms stand (no such column or function, wrong number
//! of arguments, misuse of a window function, a subquery's own errors of
//! those kinds); the errors SQLite finds only while generating code do
//! not (an aggregate misused, a subquery or row value of the wrong
//! width).
//!
//! The terms are compiled into a scratch program that is thrown away; the
//! compiler's bookkeeping that a later compile reads is restored, so the
//! statement's program is as if the ORDER BY were absent. (A parameter
//! met there keeps its number, as SQLite's parser numbers it.)

use crate::error::{Error, Result};
use crate::sql::codegen::Compiler;
use sqlite3_parser::ast::{self, SortedColumn};

/// Whether SQLite reports `e` only while generating code (never while
/// resolving names), so that it cannot arise from a term never coded.
fn found_by_codegen_only(e: &Error) -> bool {
    e.message.starts_with("misuse of aggregate: ") || e.message.starts_with("sub-select returns ") || e.message == "row value misused"
}

impl Compiler<'_> {
    /// Resolve the ORDER BY `terms` that name no result column
    /// (`order_map[i]` is `None`) without coding them: the resolver's
    /// errors are returned, the code generator's dropped.
    pub(in crate::sql::codegen) fn resolve_unused_order(&mut self, terms: &[SortedColumn<'_>], order_map: &[Option<usize>]) -> Result<()> {
        for (i, t) in terms.iter().enumerate() {
            if order_map.get(i).copied().flatten().is_some() {
                continue;
            }
            // Names first: an aggregate refused while coding stops the
            // compile before its arguments are looked at.
            self.check_names(&t.expr)?;
            // (A window function is allowed there, but means something
            // only in a query computing windows: it is not compiled.)
            if crate::sql::model::expr_shape::has_window_call(&t.expr) {
                continue;
            }
            match self.compile_scratch(|c| {
                let r = c.b.reg();
                // (An aggregate here is this query's or misused: the
                // misuse is a code generator's error, as in SQLite.)
                let saved = std::mem::replace(&mut c.frame.in_aggregate_query, true);
                let res = c.expr(&t.expr, r);
                c.frame.in_aggregate_query = saved;
                res
            }) {
                Err(e) if !found_by_codegen_only(&e) => return Err(e),
                _ => {}
            }
        }
        Ok(())
    }

    /// Resolve result column `e` of an EXISTS subquery, which SQLite
    /// resolves and then drops: its names were checked, but a subquery in
    /// it is compiled into a scratch program for the errors SQLite's
    /// resolver meets inside (the code generator's are dropped).
    pub(in crate::sql::codegen) fn resolve_dropped_subqueries(&mut self, e: &ast::Expr<'_>) -> Result<()> {
        if !crate::sql::model::expr_shape::has_subquery(e) {
            return Ok(());
        }
        match self.compile_scratch(|c| {
            let r = c.b.reg();
            c.expr(e, r)
        }) {
            Err(e) if !found_by_codegen_only(&e) => Err(e),
            _ => Ok(()),
        }
    }

    /// Run `f` against a scratch program: nothing it emits is kept, and
    /// the bookkeeping a later compile reads comes back as it was.
    fn compile_scratch<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        let saved_b = std::mem::take(&mut self.b);
        self.b.n_regs = saved_b.n_regs;
        self.b.n_cursors = saved_b.n_cursors;
        let eqp = self.stmt.eqp.len();
        let ephem_records = self.frame.ephem_records.clone();
        let col_map = self.frame.col_map.clone();
        let using_coalesce = self.frame.using_coalesce.clone();
        let record_positions = self.frame.record_positions.clone();
        let agg_regs = self.frame.agg_regs.clone();
        let subquery_affinity = self.select.subquery_affinity.clone();
        let subquery_column = self.naming.subquery_column.clone();
        let r = f(self);
        self.naming.subquery_column = subquery_column;
        self.select.subquery_affinity = subquery_affinity;
        self.frame.agg_regs = agg_regs;
        self.frame.record_positions = record_positions;
        self.frame.using_coalesce = using_coalesce;
        self.frame.col_map = col_map;
        self.frame.ephem_records = ephem_records;
        self.stmt.eqp.truncate(eqp);
        self.b = saved_b;
        r
    }
}
