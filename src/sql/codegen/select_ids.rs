//! The numbers EXPLAIN QUERY PLAN gives subqueries ("LIST SUBQUERY 2"):
//! SQLite numbers each SELECT core as its parser finishes reading it, so
//! a core comes after every SELECT written inside it (its WITH clause,
//! result columns, FROM items, WHERE, GROUP BY, HAVING, ORDER BY and
//! LIMIT, in that order) and after the cores written before it. A
//! compound's number is that of its last core (SQLite's expression points
//! at the rightmost SELECT of a compound).
//!
//! Only the statement's own syntax tree is numbered: a subquery compiled
//! from other text (a view's or a CTE's body, read again) is not found
//! and gets a number after the statement's (see `PlanLines::select_id`).

use sqlite3_parser::ast::{self, Expr, FromClause, OneSelect, ResultColumn, SelectTable};
use std::collections::HashMap;

/// Number the SELECTs of `sel` (a statement's); the map is keyed by each
/// `ast::Select`'s address; `next` is the last number given.
pub fn number_select(sel: &ast::Select<'_>, ids: &mut HashMap<usize, i32>, next: &mut i32) {
    if let Some(w) = &sel.with {
        for cte in w.ctes.iter() {
            number_select(cte.select, ids, next);
        }
    }
    let cores: Vec<&OneSelect<'_>> = std::iter::once(&sel.body.select).chain(sel.body.compounds.iter().flat_map(|c| c.iter().map(|c| &c.select))).collect();
    let last = cores.len() - 1;
    for (i, core) in cores.into_iter().enumerate() {
        number_core(core, ids, next);
        if i == last {
            // (ORDER BY and LIMIT are read with the last core.)
            for t in sel.order_by.iter().flat_map(|o| o.iter()) {
                number_expr(&t.expr, ids, next);
            }
            if let Some(l) = sel.limit {
                number_expr(&l.expr, ids, next);
                if let Some(o) = &l.offset {
                    number_expr(o, ids, next);
                }
            }
        }
        *next += 1;
    }
    debug_assert!(*next > 0);
    ids.insert(sel as *const ast::Select<'_> as usize, *next);
}

fn number_core(core: &OneSelect<'_>, ids: &mut HashMap<usize, i32>, next: &mut i32) {
    match core {
        OneSelect::Values(rows) => {
            for e in rows.iter().flat_map(|r| r.iter()) {
                number_expr(e, ids, next);
            }
        }
        OneSelect::Select { columns, from, where_clause, group_by, having, .. } => {
            for c in columns.iter() {
                if let ResultColumn::Expr(e, _) = c {
                    number_expr(e, ids, next);
                }
            }
            if let Some(f) = from {
                number_from(f, ids, next);
            }
            for e in where_clause.iter().copied().chain(group_by.iter().flat_map(|g| g.iter())).chain(having.iter().copied()) {
                number_expr(e, ids, next);
            }
        }
    }
}

fn number_from(f: &FromClause<'_>, ids: &mut HashMap<usize, i32>, next: &mut i32) {
    let table = |t: &SelectTable<'_>, ids: &mut HashMap<usize, i32>, next: &mut i32| match t {
        SelectTable::Select(s, _) => number_select(s, ids, next),
        SelectTable::Sub(f, _) => number_from(f, ids, next),
        SelectTable::TableCall(_, Some(args), _) => {
            for a in args.iter() {
                number_expr(a, ids, next);
            }
        }
        _ => {}
    };
    if let Some(t) = f.select {
        table(t, ids, next);
    }
    for j in f.joins.iter().flat_map(|j| j.iter()) {
        table(&j.table, ids, next);
        if let Some(ast::JoinConstraint::On(e)) = &j.constraint {
            number_expr(e, ids, next);
        }
    }
}

/// Number the subqueries of `e`, in the order they are written.
fn number_expr(e: &Expr<'_>, ids: &mut HashMap<usize, i32>, next: &mut i32) {
    match e {
        Expr::Between { lhs, start, end, .. } => {
            number_expr(lhs, ids, next);
            number_expr(start, ids, next);
            number_expr(end, ids, next);
        }
        Expr::Binary(l, _, r) => {
            number_expr(l, ids, next);
            number_expr(r, ids, next);
        }
        // (SQLite numbered the SELECTs the fold then dropped.)
        Expr::FoldedAnd(and) => number_expr(and, ids, next),
        Expr::Case { base, when_then_pairs, else_expr } => {
            if let Some(b) = base {
                number_expr(b, ids, next);
            }
            for (w, t) in when_then_pairs.iter() {
                number_expr(w, ids, next);
                number_expr(t, ids, next);
            }
            if let Some(x) = else_expr {
                number_expr(x, ids, next);
            }
        }
        Expr::Cast { expr: x, .. } | Expr::Collate(x, _) | Expr::IsNull(x) | Expr::NotNull(x) | Expr::Unary(_, x) => number_expr(x, ids, next),
        Expr::FunctionCall { args, order_by, filter_over, .. } => {
            for a in args.iter().flat_map(|a| a.iter()) {
                number_expr(a, ids, next);
            }
            if let Some(ast::FunctionCallOrder::SortList(terms)) = order_by {
                for t in terms.iter() {
                    number_expr(&t.expr, ids, next);
                }
            }
            if let Some(x) = filter_over.as_ref().and_then(|t| t.filter_clause) {
                number_expr(x, ids, next);
            }
        }
        Expr::FunctionCallStar { filter_over: Some(ast::FunctionTail { filter_clause: Some(x), .. }), .. } => number_expr(x, ids, next),
        Expr::InList { lhs, rhs, .. } => {
            number_expr(lhs, ids, next);
            for a in rhs.iter().flat_map(|a| a.iter()) {
                number_expr(a, ids, next);
            }
        }
        Expr::InTable { lhs, args, .. } => {
            number_expr(lhs, ids, next);
            for a in args.iter().flat_map(|a| a.iter()) {
                number_expr(a, ids, next);
            }
        }
        Expr::Like { lhs, rhs, escape, .. } => {
            number_expr(lhs, ids, next);
            number_expr(rhs, ids, next);
            if let Some(x) = escape {
                number_expr(x, ids, next);
            }
        }
        Expr::Parenthesized(v) => {
            for x in v.iter() {
                number_expr(x, ids, next);
            }
        }
        Expr::Raise(_, Some(x)) => number_expr(x, ids, next),
        Expr::InSelect { lhs, rhs, .. } => {
            number_expr(lhs, ids, next);
            number_select(rhs, ids, next);
        }
        Expr::Exists(s) | Expr::Subquery(s) => number_select(s, ids, next),
        _ => {}
    }
}
