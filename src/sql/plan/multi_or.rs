//! OR terms answered as a union of lookups (SQLite's MULTI-INDEX OR): a
//! WHERE term `x OR y OR ...` on one table, every branch of which can be
//! answered by a rowid lookup, an index search or an IN-list probe, is
//! read branch by branch, each row once (the loop itself is emitted by
//! `codegen/query/multi_or.rs`).
//!
//! The choice follows SQLite's costs without statistics: a branch finds
//! one row through the rowid or a complete UNIQUE key, ten through other
//! index equalities (per IN value), a quarter of the table per range
//! bound; the OR finds the sum of its branches. Each branch is planned
//! with the other WHERE terms of its level ANDed to it (SQLite's
//! `pAndExpr`), so `(a=1 OR b=2) AND rowid>5` bounds a branch by rowid.
//!
//! Invariant: a plan is only offered when every branch has a lookup;
//! one branch without any makes the OR a filter of whatever else the
//! loop reads (a union containing a full scan is never cheaper) (checked:
//! multi_or_every_branch).

use crate::sql::model::expr_shape::{conjuncts, has_subquery, strip_parens};
use crate::sql::model::from::FromItem;
use crate::sql::plan::facts::PlanFacts;
use crate::sql::plan::prelude::*;
use crate::sql::plan::terms::LookupOp;
use crate::sql::schema::{Index, Table};
use sqlite3_parser::ast::{Expr, Operator};

/// Rows assumed in a table without statistics (as `join_order`).
pub const TABLE_ROWS: f64 = 1_000_000.0;
/// Rows an equality on a non-unique index prefix finds.
pub const INDEX_EQ_ROWS: f64 = 10.0;

/// An OR term to read as a union of lookups.
pub struct OrPlan<'a, 'b> {
    /// The OR term itself (still checked in the loop body).
    pub term: &'a Expr<'b>,
    /// Its branches, in written order.
    pub branches: Vec<&'a Expr<'b>>,
    /// The other terms of the level, ANDed to each branch when planning
    /// its lookup.
    pub others: Vec<&'a Expr<'b>>,
    /// Estimated rows found (the sum over the branches).
    pub rows: f64,
}

/// SQLite's whereCombineDisjuncts: the bounds a two-way OR implies where
/// one comparison of each branch (the branch itself, or one of its AND
/// terms) compares the same column with the same value in compatible
/// directions: `a > 2 OR (a = 2 AND b > 2)` gives `a >= 2`, `a < 2 OR
/// a = 2` gives `a <= 2`, `(a = 2 AND c = 1) OR (a = 2 AND c = 2)` gives
/// `a = 2`. Pushed to `out` as `(column side, value side, operator)` in
/// both orientations, as [`Compiler::lookup_candidates`] takes a term's
/// sides; which side names a column of the loop is its to decide. The
/// bound is a virtual term: it drives a lookup, the OR stays the filter.
pub fn combined_disjunct_bounds<'a, 'b>(term: &'a Expr<'b>, out: &mut Vec<(&'a Expr<'b>, &'a Expr<'b>, LookupOp)>) {
    let mut branches = Vec::new();
    disjuncts(term, &mut branches);
    let [one, two] = branches[..] else { return };
    let comparisons = |branch: &'a Expr<'b>| {
        let mut terms = Vec::new();
        conjuncts(branch, &mut terms);
        let mut out: Vec<(&'a Expr<'b>, &'a Expr<'b>, LookupOp)> = Vec::new();
        for t in terms {
            if let Expr::Binary(l, op, r) = strip_parens(t) {
                if let Some(lop) = LookupOp::from_op(*op) {
                    if !matches!(strip_parens(l), Expr::Parenthesized(v) if v.len() > 1) && !matches!(strip_parens(r), Expr::Parenthesized(v) if v.len() > 1) {
                        out.extend([(&**l, &**r, lop), (&**r, &**l, lop.swapped())]);
                    }
                }
            }
        }
        out
    };
    let (left, right) = (comparisons(one), comparisons(two));
    let below = |op: LookupOp| matches!(op, LookupOp::Eq | LookupOp::Lt | LookupOp::Le);
    let above = |op: LookupOp| matches!(op, LookupOp::Eq | LookupOp::Gt | LookupOp::Ge);
    for &(col, value, op1) in &left {
        if !matches!(strip_parens(col), Expr::Id(_) | Expr::Qualified(..) | Expr::DoublyQualified(..)) {
            continue;
        }
        for &(col2, value2, op2) in &right {
            if !((below(op1) && below(op2)) || (above(op1) && above(op2))) || col.to_string() != col2.to_string() || value.to_string() != value2.to_string() {
                continue;
            }
            let op = if op1 == op2 {
                op1
            } else if below(op1) && below(op2) {
                LookupOp::Le
            } else {
                LookupOp::Ge
            };
            out.push((col, value, op));
        }
    }
}

/// The branches of `e` when it is an OR (through parentheses), in
/// written order.
pub fn disjuncts<'a, 'b>(e: &'a Expr<'b>, out: &mut Vec<&'a Expr<'b>>) {
    match strip_parens(e) {
        Expr::Binary(l, Operator::Or, r) => {
            disjuncts(l, out);
            disjuncts(r, out);
        }
        other => out.push(other),
    }
}

/// The union of lookups an OR term offers (implemented for every
/// [`PlanFacts`]).
pub trait MultiOr<'b>: PlanFacts {
    /// The cheapest OR term of `terms` whose every branch has a lookup on
    /// `it` (tables in `before` placed), with its estimated rows; `None`
    /// when there is none, inside an OR branch (no nesting, as SQLite),
    /// or under INDEXED BY / NOT INDEXED.
    fn multi_or_plan<'a>(&mut self, it: &FromItem<'a, 'b>, table: &Table, before: u64, terms: &[&'a Expr<'b>], indexes: &[Index]) -> Option<OrPlan<'a, 'b>> {
        if self.in_or_branch() || it.index_hint.is_some() {
            return None;
        }
        let me = 1u64 << it.item.min(63);
        let mut best: Option<OrPlan<'a, 'b>> = None;
        for (k, t) in terms.iter().enumerate() {
            let mut branches = Vec::new();
            disjuncts(t, &mut branches);
            // (An OR read as an IN list is no union: SQLite's OR-to-IN.)
            if branches.len() < 2 || self.expr_deps(t) & !(before | me) != 0 || self.or_in_list(it, t).is_some() {
                continue;
            }
            let others: Vec<&'a Expr<'b>> = terms.iter().enumerate().filter(|(j, o)| *j != k && !has_subquery(o)).map(|(_, o)| *o).collect();
            let mut rows = 0.0;
            let mut all = true;
            for b in &branches {
                let mut sub = Vec::new();
                conjuncts(b, &mut sub);
                sub.extend(others.iter().copied());
                match self.branch_rows(it, table, before, &sub, indexes) {
                    Some(r) => rows += r,
                    // invariant: multi_or_every_branch
                    None => {
                        all = false;
                        break;
                    }
                }
            }
            if all && best.as_ref().is_none_or(|b| rows < b.rows) {
                best = Some(OrPlan { term: t, branches, others, rows });
            }
        }
        best
    }

    /// Rows the path `open_access` takes without the OR finds: `best` is
    /// its best index search (score: 4 per leading equality, 1 per bound
    /// after them; the index; the equalities), `cands` and `ins` the
    /// lookup terms; with an order some scan gives (`goal`), at most the
    /// whole table.
    fn single_path_rows(
        &mut self,
        table: &Table,
        indexes: &[Index],
        best: Option<(usize, &Index, usize)>,
        cands: &[(Option<usize>, LookupOp, &Expr<'_>)],
        ins: &[(Option<usize>, Vec<&Expr<'_>>)],
        goal: Option<&crate::sql::plan::order::OrderGoal>,
    ) -> f64 {
        let mut rows = TABLE_ROWS;
        if let Some((score, idx, eqs)) = best {
            let range = (score - 4 * eqs) as i32;
            let base = if eqs == 0 {
                TABLE_ROWS
            } else if idx.unique && eqs >= idx.columns.len() {
                1.0
            } else {
                INDEX_EQ_ROWS
            };
            rows = rows.min((base / 4f64.powi(range)).max(1.0));
        }
        for idx in indexes {
            if let Some((_, list)) = idx.columns.first().and_then(|f| f.column).and_then(|c| ins.iter().find(|(x, _)| *x == Some(c))) {
                rows = rows.min(list.len() as f64 * INDEX_EQ_ROWS);
            }
        }
        let rowid_bounds = bounds_on(cands, None);
        if rowid_bounds > 0 {
            rows = rows.min(TABLE_ROWS / 4f64.powi(rowid_bounds));
        }
        let _ = (table, goal);
        rows
    }

    /// Rows the best lookup of one OR branch (its conjuncts `terms`)
    /// finds, or `None` when it has none.
    fn branch_rows<'a>(&mut self, it: &FromItem<'a, 'b>, table: &Table, before: u64, terms: &[&'a Expr<'b>], indexes: &[Index]) -> Option<f64> {
        if table.without_rowid.is_some() && self.without_rowid_key_eqs(it, table, before, terms) > 0 {
            return Some(1.0);
        }
        let cands = self.lookup_candidates(it, before, terms);
        if cands.iter().any(|(c, op, _)| c.is_none() && *op == LookupOp::Eq) {
            return Some(1.0);
        }
        let ins = self.in_candidates(it, before, terms);
        let mut best: Option<f64> = ins.iter().find(|(c, _)| c.is_none()).map(|(_, l)| l.len() as f64);
        let mut consider = |rows: f64| {
            if best.is_none_or(|b| rows < b) {
                best = Some(rows);
            }
        };
        let rowid_bounds = bounds_on(&cands, None);
        if rowid_bounds > 0 {
            consider(TABLE_ROWS / 4f64.powi(rowid_bounds));
        }
        for idx in indexes {
            let keys: Vec<Option<usize>> = idx.columns.iter().map(|ic| self.index_lookup_key(table, ic)).collect();
            let eqs = keys.iter().take_while(|k| k.is_some() && cands.iter().any(|(c, op, _)| c == *k && *op == LookupOp::Eq)).count();
            let range = keys.get(eqs).copied().flatten().map_or(0, |k| bounds_on(&cands, Some(k)));
            if eqs > 0 || range > 0 {
                let base = if eqs == 0 {
                    TABLE_ROWS
                } else if idx.unique && eqs == keys.len() {
                    1.0
                } else {
                    INDEX_EQ_ROWS
                };
                consider((base / 4f64.powi(range)).max(1.0));
            } else if let Some((_, list)) = keys.first().copied().flatten().and_then(|c| ins.iter().find(|(x, _)| *x == Some(c))) {
                consider(list.len() as f64 * INDEX_EQ_ROWS);
            }
        }
        best
    }
}

impl<'b, T: PlanFacts> MultiOr<'b> for T {}

/// How many bounds (0 to 2: a lower and an upper) the candidates put on
/// `key` (`None`: the rowid).
fn bounds_on(cands: &[(Option<usize>, LookupOp, &Expr<'_>)], key: Option<usize>) -> i32 {
    let lower = cands.iter().any(|(c, op, _)| *c == key && matches!(op, LookupOp::Gt | LookupOp::Ge));
    let upper = cands.iter().any(|(c, op, _)| *c == key && matches!(op, LookupOp::Lt | LookupOp::Le));
    lower as i32 + upper as i32
}
