//! SQLite's "HAVING clause on a non-aggregate query", decided for every
//! SELECT of a statement the way SQLite decides it while resolving names,
//! before any code is generated.
//!
//! SQLite resolves a statement's names in one pass, subqueries included,
//! and refuses a HAVING on a SELECT whose result columns hold no
//! aggregate of its own (an aggregate belongs to the innermost query one
//! of its columns comes from) and which has no GROUP BY. Ours decides a
//! SELECT's kind while generating it, so an error that SQLite finds only
//! when generating code (`misuse of aggregate: f()`, an ORDER BY term out
//! of range) could come first, and a subquery ours never generates (the
//! result columns of EXISTS) would not be checked at all.
//! [`Compiler::has_non_aggregate_having`] answers for the whole
//! statement.
//!
//! Invariant: the search is syntactic and errs towards "aggregate": a
//! name a FROM item might provide (see `outer_aggregate::Level`) binds
//! the call to that item's query, and a name no level provides binds it
//! where it is written, so no valid statement is refused.

use crate::sql::codegen::query::outer_aggregate::Level;

use crate::sql::codegen::Compiler;
use crate::sql::model::expr_shape::aggregate_inputs;
use crate::sql::model::expr_shape::walk;
use crate::sql::plan::terms::column_name;
use sqlite3_parser::ast::{self, Expr, OneSelect, ResultColumn, SelectTable};

impl Compiler<'_> {
    /// Whether some SELECT of `sel` (itself or a subquery anywhere in it)
    /// has a HAVING clause but is not an aggregate query.
    pub(in crate::sql::codegen) fn has_non_aggregate_having(&self, sel: &ast::Select<'_>) -> bool {
        // (Most statements have no HAVING at all: not walked.)
        if !self.stmt.sql.windows(6).any(|w| w.eq_ignore_ascii_case(b"having")) {
            return false;
        }
        let mut levels = Vec::new();
        self.select_has_bad_having(sel, &mut levels, false)
    }

    fn select_has_bad_having(&self, sel: &ast::Select<'_>, levels: &mut Vec<Level>, in_with: bool) -> bool {
        let in_with = in_with || sel.with.is_some();
        if let Some(w) = &sel.with {
            if w.ctes.iter().any(|c| self.select_has_bad_having(c.select, levels, in_with)) {
                return true;
            }
        }
        let cores = std::iter::once(&sel.body.select).chain(sel.body.compounds.iter().flat_map(|c| c.iter().map(|c| &c.select)));
        for (i, core) in cores.enumerate() {
            let OneSelect::Select { columns, from, where_clause, group_by, having, window_clause, .. } = core else {
                // VALUES rows may hold subqueries.
                if let OneSelect::Values(rows) = core {
                    if rows.iter().flat_map(|r| r.iter()).any(|e| self.expr_has_bad_having(e, levels, in_with)) {
                        return true;
                    }
                }
                continue;
            };
            // FROM subqueries are resolved first, seeing only the levels
            // around this SELECT.
            if let Some(f) = from {
                let tables = f.select.into_iter().chain(f.joins.iter().flat_map(|j| j.iter().map(|j| &j.table)));
                for t in tables {
                    if self.table_has_bad_having(t, levels, in_with) {
                        return true;
                    }
                }
            }
            levels.push(self.level_of(from.as_ref(), in_with));
            let here = levels.len();
            let mut own_aggregate = group_by.is_some();
            let mut exprs: Vec<&Expr<'_>> = Vec::new();
            for c in columns.iter() {
                if let ResultColumn::Expr(x, _) = c {
                    own_aggregate = own_aggregate || self.binds_aggregate_at(x, levels, here);
                    exprs.push(x);
                }
            }
            let bad = having.is_some() && !own_aggregate;
            exprs.extend(where_clause.iter().copied());
            exprs.extend(group_by.iter().flat_map(|g| g.iter()));
            exprs.extend(having.iter().copied());
            if let Some(f) = from {
                for j in f.joins.iter().flat_map(|j| j.iter()) {
                    if let Some(ast::JoinConstraint::On(e)) = &j.constraint {
                        exprs.push(e);
                    }
                }
            }
            if i == 0 {
                exprs.extend(sel.order_by.iter().flat_map(|o| o.iter().map(|t| &t.expr)));
            }
            for d in window_clause.iter().flat_map(|w| w.iter()) {
                exprs.extend(d.window.partition_by.iter().flat_map(|p| p.iter()));
                exprs.extend(d.window.order_by.iter().flat_map(|o| o.iter().map(|t| &t.expr)));
            }
            let nested_bad = exprs.into_iter().any(|e| self.expr_has_bad_having(e, levels, in_with));
            levels.pop();
            if bad || nested_bad {
                return true;
            }
        }
        false
    }

    fn table_has_bad_having(&self, t: &SelectTable<'_>, levels: &mut Vec<Level>, in_with: bool) -> bool {
        match t {
            SelectTable::Select(s, _) => self.select_has_bad_having(s, levels, in_with),
            SelectTable::Sub(f, _) => {
                let tables = f.select.into_iter().chain(f.joins.iter().flat_map(|j| j.iter().map(|j| &j.table)));
                tables.into_iter().any(|t| self.table_has_bad_having(t, levels, in_with))
            }
            SelectTable::TableCall(_, Some(args), _) => args.iter().any(|e| self.expr_has_bad_having(e, levels, in_with)),
            _ => false,
        }
    }

    fn expr_has_bad_having(&self, e: &Expr<'_>, levels: &mut Vec<Level>, in_with: bool) -> bool {
        let mut subqueries: Vec<&ast::Select<'_>> = Vec::new();
        walk(e, &mut |x| {
            if let Expr::Subquery(s) | Expr::Exists(s) | Expr::InSelect { rhs: s, .. } = x {
                subqueries.push(s);
            }
            true
        });
        subqueries.into_iter().any(|s| self.select_has_bad_having(s, levels, in_with))
    }

    /// Whether `e` (a result column of the SELECT at `levels[here - 1]`,
    /// subqueries included) holds an aggregate call belonging to that
    /// SELECT.
    fn binds_aggregate_at(&self, e: &Expr<'_>, levels: &mut Vec<Level>, here: usize) -> bool {
        let mut calls: Vec<&Expr<'_>> = Vec::new();
        let mut subqueries: Vec<&ast::Select<'_>> = Vec::new();
        walk(e, &mut |x| {
            if crate::sql::codegen::names_aggregate_function(self, x) {
                calls.push(x);
                return false;
            }
            if let Expr::Subquery(s) | Expr::Exists(s) | Expr::InSelect { rhs: s, .. } = x {
                subqueries.push(s);
            }
            true
        });
        let depth = levels.len();
        if calls.iter().any(|c| match binding_level(c, levels) {
            None => depth == here,
            Some(l) => l + 1 == here,
        }) {
            return true;
        }
        // A subquery's aggregate over this SELECT's columns is this
        // SELECT's too.
        subqueries.into_iter().any(|s| self.subquery_binds_at(s, levels, here))
    }

    fn subquery_binds_at(&self, sel: &ast::Select<'_>, levels: &mut Vec<Level>, here: usize) -> bool {
        let cores = std::iter::once(&sel.body.select).chain(sel.body.compounds.iter().flat_map(|c| c.iter().map(|c| &c.select)));
        for (i, core) in cores.enumerate() {
            let OneSelect::Select { columns, from, where_clause, group_by, having, .. } = core else {
                continue;
            };
            levels.push(self.level_of(from.as_ref(), true));
            let mut exprs: Vec<&Expr<'_>> = columns.iter().filter_map(|c| if let ResultColumn::Expr(x, _) = c { Some(x) } else { None }).collect();
            exprs.extend(where_clause.iter().copied());
            exprs.extend(group_by.iter().flat_map(|g| g.iter()));
            exprs.extend(having.iter().copied());
            if i == 0 {
                exprs.extend(sel.order_by.iter().flat_map(|o| o.iter().map(|t| &t.expr)));
            }
            let found = exprs.into_iter().any(|x| self.binds_aggregate_at(x, levels, here));
            levels.pop();
            if found {
                return true;
            }
        }
        false
    }
}

/// The index in `levels` of the query the aggregate `call` belongs to:
/// the innermost level providing one of the columns its inputs name;
/// `None` when it names none (it belongs where it is written) or a name
/// no level provides.
fn binding_level(call: &Expr<'_>, levels: &[Level]) -> Option<usize> {
    let inputs = aggregate_inputs(call).unwrap_or_default();
    let mut names: Vec<(Option<String>, String)> = Vec::new();
    let mut has_subquery = false;
    for a in inputs {
        walk(a, &mut |x| {
            names.extend(column_name(x));
            has_subquery |= matches!(x, Expr::Subquery(_) | Expr::Exists(_) | Expr::InSelect { .. });
            true
        });
    }
    if names.is_empty() || has_subquery {
        return None;
    }
    let mut innermost: Option<usize> = None;
    for (q, n) in &names {
        match (0..levels.len()).rev().find(|&l| levels[l].provides(q.as_deref(), n)) {
            Some(l) => innermost = Some(innermost.map_or(l, |i| i.max(l))),
            None => return None,
        }
    }
    innermost
}
