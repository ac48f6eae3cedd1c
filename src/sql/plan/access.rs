//! Access-path choice for one FROM item of a join: which WHERE terms can
//! drive a rowid lookup, an index search or an IN-list probe, and how good
//! each path is (the join order built from these is in `join_order.rs`).
//! A comparison of two rows written out lends its fields: `(a, b) = (x, y)`
//! gives `a = x` and `b = y`, an ordering bounds the first fields only
//! (`(a, b) > (x, y)` gives `a >= x`). Two OR shapes lend lookups too, as
//! SQLite's WHERE analysis derives them: an OR of equalities on one
//! column is an IN list (`or_in_list`), and a two-way OR the bound its
//! branches combine into (`multi_or::combined_disjunct_bounds`); the OR
//! itself stays the filter.
//!
//! Invariant: a term is only usable for a lookup when its other side
//! depends on tables placed earlier and its affinity and collation let
//! the index order decide the comparison: a column's key stands for the
//! column under the collation it declares, and a comparison under another
//! collation is keyed to the index columns sorting the column by that one
//! (`column_lookup_keys`), or to none.

use crate::sql::model::expr_shape::strip_parens;
use crate::sql::model::expr_shape::{has_subquery, walk};
use crate::sql::model::from::FromItem;
use crate::sql::parse::{unquote, unquoted};
use crate::sql::plan::facts::PlanFacts;
use crate::sql::plan::terms::LookupOp;
use crate::util::ascii::AsciiLower;
use crate::value::affinity::Affinity;
use crate::vdbe::program::P4;
use sqlite3_parser::ast::{Expr, Operator};

/// The lookups WHERE terms offer a loop: `column op value`, IN lists, ORs
/// of equalities (implemented for every
/// [`PlanFacts`]).
pub trait Access<'b>: PlanFacts {
    /// Terms `column op expr` of item `it` whose other side is available
    /// before loop `lvl`, with affinity and collation an index can honour.
    fn lookup_candidates<'a>(&mut self, it: &FromItem<'a, 'b>, before: u64, terms: &[&'a Expr<'b>]) -> Vec<(Option<usize>, LookupOp, &'a Expr<'b>)> {
        self.lookup_candidates_deps(it, before, terms).into_iter().map(|(c, op, e, _)| (c, op, e)).collect()
    }

    /// [`Self::lookup_candidates`], each with the items its value side
    /// reads (those usable with a smaller `before` are the ones whose
    /// items it contains: the join order resolves once, then filters).
    fn lookup_candidates_deps<'a>(&mut self, it: &FromItem<'a, 'b>, before: u64, terms: &[&'a Expr<'b>]) -> Vec<(Option<usize>, LookupOp, &'a Expr<'b>, u64)> {
        let mut out = Vec::new();
        let Some(table) = it.table.as_ref() else { return out };
        // (One list for every term: allocated once.)
        // (The flag: the column side is written on the right, which
        // matters for the comparison's collation.)
        let mut sides: Vec<(&'a Expr<'b>, &'a Expr<'b>, LookupOp, bool)> = Vec::new();
        let mut or_sides: Vec<(&'a Expr<'b>, &'a Expr<'b>, LookupOp)> = Vec::new();
        for t in terms {
            // `a op b` may drive a lookup on either side; `col BETWEEN x
            // AND y` is `col >= x AND col <= y` for the planner.
            // Between rows, `(a, b) = (x, y)` implies `a = x` and `b = y`,
            // and an ordering of rows bounds their first fields:
            // `(a, b) > (x, y)` implies `a >= x` (the term stays a filter).
            // (The sides are `(column side, value side, operator)`.)
            sides.clear();
            match t {
                // A two-way OR lends the bound its branches combine into
                // (`a > 2 OR (a = 2 AND b > 2)` gives `a >= 2`).
                Expr::Binary(_, Operator::Or, _) => {
                    or_sides.clear();
                    crate::sql::plan::multi_or::combined_disjunct_bounds(t, &mut or_sides);
                    if or_sides.is_empty() {
                        continue;
                    }
                    sides.extend(or_sides.iter().map(|&(c, o, op)| (c, o, op, false)));
                }
                Expr::Binary(l, op, r) => match (LookupOp::from_op(*op), row_pairs(l, r)) {
                    (None, _) => continue,
                    (Some(lop), None) => sides.extend([(&**l, &**r, lop, false), (&**r, &**l, lop.swapped(), true)]),
                    (Some(LookupOp::Eq), Some(pairs)) => {
                        for (a, b) in pairs {
                            sides.extend([(a, b, LookupOp::Eq, false), (b, a, LookupOp::Eq, true)]);
                        }
                    }
                    (Some(lop), Some(pairs)) => {
                        let bound = if matches!(lop, LookupOp::Lt | LookupOp::Le) { LookupOp::Le } else { LookupOp::Ge };
                        let (a, b) = pairs[0];
                        sides.extend([(a, b, bound, false), (b, a, bound.swapped(), true)]);
                    }
                },
                Expr::Between { lhs, not: false, start, end } => match (row_pairs(lhs, start), row_pairs(lhs, end)) {
                    (None, None) => sides.extend([(&**lhs, &**start, LookupOp::Ge, false), (&**lhs, &**end, LookupOp::Le, false)]),
                    (Some(low), Some(high)) => sides.extend([(low[0].0, low[0].1, LookupOp::Ge, false), (high[0].0, high[0].1, LookupOp::Le, false)]),
                    _ => continue,
                },
                _ => continue,
            }
            for &(col_side, other, opx, col_right) in &sides {
                // (A COLLATE on the column names the column all the same,
                // as SQLite's `sqlite3ExprSkipCollate`; the comparison's
                // collation below still sees it.)
                let col_named = crate::sql::model::expr_shape::strip_collate_and_parens(col_side);
                // `t.col` names a column of this item only when `t` is its
                // name (or, inside a parenthesized join, a table it holds):
                // other names are left without resolving them.
                if let Expr::Qualified(q, _) = col_named {
                    let named = self
                        .scopes()
                        .last()
                        .and_then(|s| s.items.get(it.item))
                        .is_none_or(|item| item.name.eq_ci(&unquoted(q.0)) || item.columns.iter().any(|c| c.source.is_some()));
                    if !named {
                        continue;
                    }
                }
                let cref = match col_named {
                    Expr::Id(id) => self.resolve_name(None, &unquoted(id.0)).ok().flatten(),
                    Expr::Qualified(q, c) => self.resolve_name(Some(&unquoted(q.0)), &unquoted(c.0)).ok().flatten(),
                    _ => None,
                };
                // (Sides that cannot drive a lookup on this item are left
                // before the costlier dependency walk of the other side.)
                match &cref {
                    Some(c) if c.depth != 0 || c.item != it.item => continue,
                    None if matches!(col_named, Expr::Id(_) | Expr::Qualified(..) | Expr::Literal(_)) || has_subquery(col_side) => continue,
                    _ => {}
                }
                if has_subquery(other) {
                    continue;
                }
                let deps = self.expr_deps(other);
                if deps & !before != 0 {
                    continue;
                }
                let Some(cref) = cref else {
                    // An indexed expression of this table.
                    if !matches!(col_side, Expr::Id(_) | Expr::Qualified(..) | Expr::Literal(_)) && !has_subquery(col_side) {
                        let item_name = self.scopes().last().and_then(|s| s.items.get(it.item)).map(|i| i.name.clone()).unwrap_or_default();
                        for k in self.expr_lookup_keys(it.item, &item_name, table, col_side, other) {
                            out.push((Some(k), opx, other, deps));
                        }
                    }
                    continue;
                };
                if cref.depth != 0 || cref.item != it.item {
                    continue;
                }
                // Affinity must let the index order decide the comparison.
                let col_aff = match cref.column {
                    Some(c) => table.columns[c].affinity,
                    None => Affinity::Integer,
                };
                let other_aff = self.expr_affinity(other);
                let ok_aff = match other_aff {
                    None => true,
                    Some(a) => col_aff.is_numeric() || a == col_aff,
                };
                if !ok_aff {
                    continue;
                }
                // The rowid is compared as a number: any collation.
                let Some(c) = cref.column else {
                    out.push((None, opx, other, deps));
                    continue;
                };
                // The comparison's collation (the left operand's first)
                // must be the index column's: the column's own key when
                // it declares it, else the keys of the index columns
                // sorting it by that collation (as SQLite's
                // `whereScanNext` compares the term's with `azColl[j]`).
                let coll = match if col_right { self.comparison_collation(other, col_side) } else { self.comparison_collation(col_side, other) } {
                    Ok(P4::Coll(c)) => c.name.ascii_upper(),
                    Ok(_) => "BINARY".to_string(),
                    Err(_) => continue,
                };
                for k in self.column_lookup_keys(table, c, &coll) {
                    out.push((Some(k), opx, other, deps));
                }
            }
        }
        out
    }

    /// `column IN (list)` terms on item `it` whose values are available
    /// before it and carry no affinity of their own.
    /// An OR of equalities on one column (`a = 1 OR a = 2`) is one of
    /// them, as `a IN (1, 2)` (see [`Self::or_in_list`]).
    fn in_candidates<'a>(&mut self, it: &FromItem<'a, 'b>, before: u64, terms: &[&'a Expr<'b>]) -> Vec<(Option<usize>, Vec<&'a Expr<'b>>)> {
        self.in_candidates_deps(it, before, terms).into_iter().map(|(c, l, _)| (c, l)).collect()
    }

    /// [`Self::in_candidates`], each with the items its values read.
    fn in_candidates_deps<'a>(&mut self, it: &FromItem<'a, 'b>, before: u64, terms: &[&'a Expr<'b>]) -> Vec<(Option<usize>, Vec<&'a Expr<'b>>, u64)> {
        let mut out = Vec::new();
        for t in terms {
            if let Some((column, values)) = self.or_in_list(it, t) {
                let mut deps = 0u64;
                let usable = values.iter().all(|v| {
                    let d = self.expr_deps(v);
                    deps |= d;
                    d & !before == 0
                });
                if usable {
                    out.push((column, values, deps));
                }
                continue;
            }
            let Expr::InList { lhs, not: false, rhs: Some(list) } = t else { continue };
            // (`x IN ((SELECT ...))` is an IN over the subquery's rows, not
            // a list of one value.)
            if list.is_empty() || crate::sql::model::expr_shape::in_list_subquery(list).is_some() {
                continue;
            }
            // (The list compares under the left side's collation: a
            // COLLATE there keys the term to the index columns sorting the
            // column by that one.)
            let (lhs_named, written) = match &**lhs {
                Expr::Collate(inner, name) => (crate::sql::model::expr_shape::strip_collate_and_parens(inner), Some(unquote(name).ascii_upper())),
                e => (e, None),
            };
            let cref = match lhs_named {
                Expr::Id(id) => self.resolve_name(None, &unquoted(id.0)).ok().flatten(),
                Expr::Qualified(q, c) => self.resolve_name(Some(&unquoted(q.0)), &unquoted(c.0)).ok().flatten(),
                _ => None,
            };
            let Some(cref) = cref else { continue };
            if cref.depth != 0 || cref.item != it.item || cref.collation.is_some() {
                continue;
            }
            let key = match (cref.column, written, it.table.as_ref()) {
                (Some(c), Some(coll), Some(table)) => match self.column_lookup_keys(table, c, &coll).first() {
                    Some(&k) => Some(k),
                    None => continue,
                },
                (column, _, _) => column,
            };
            let mut ok = true;
            let mut deps = 0u64;
            for e in list.iter() {
                if has_subquery(e) {
                    ok = false;
                    break;
                }
                let d = self.expr_deps(e);
                if d & !before != 0 || self.expr_affinity(e).is_some() {
                    ok = false;
                    break;
                }
                deps |= d;
            }
            if ok {
                out.push((key, list.iter().collect(), deps));
            }
        }
        out
    }

    /// SQLite's OR-to-IN (the first case of whereexpr.c's OR analysis):
    /// an OR term every branch of which is `column = value` (either side)
    /// on one column of `it`, each value without subqueries and with no
    /// affinity or the column's, compared under the column's collation:
    /// that column (`None`: the rowid) and the values in written order.
    /// SQLite then reads the term as `column IN (values)` and no longer
    /// as a MULTI-INDEX OR ("case 1 trumps case 2"); IS, IN and AND
    /// branches keep it an OR.
    fn or_in_list<'a>(&mut self, it: &FromItem<'a, 'b>, term: &'a Expr<'b>) -> Option<(Option<usize>, Vec<&'a Expr<'b>>)> {
        if !matches!(strip_parens(term), Expr::Binary(_, Operator::Or, _)) || it.table.is_none() {
            return None;
        }
        let mut branches = Vec::new();
        crate::sql::plan::multi_or::disjuncts(term, &mut branches);
        // The sides of each branch naming a column of `it`, resolved once.
        let mut sides: Vec<[Option<Option<usize>>; 2]> = Vec::with_capacity(branches.len());
        for b in &branches {
            let Expr::Binary(l, Operator::Equals, r) = b else { return None };
            let mut pair = [None, None];
            for (k, e) in [&**l, &**r].into_iter().enumerate() {
                let cref = match strip_parens(e) {
                    Expr::Id(id) => self.resolve_name(None, &unquoted(id.0)).ok().flatten(),
                    Expr::Qualified(q, c) => self.resolve_name(Some(&unquoted(q.0)), &unquoted(c.0)).ok().flatten(),
                    _ => None,
                };
                if let Some(c) = cref.filter(|c| c.depth == 0 && c.item == it.item && c.collation.is_none()) {
                    pair[k] = Some(c.column);
                }
            }
            if pair == [None, None] {
                return None;
            }
            sides.push(pair);
        }
        let table = it.table.clone()?;
        let col_aff = |c: Option<usize>| c.map_or(Affinity::Integer, |c| table.columns[c].affinity);
        // The column: one the first branch compares, found in every other.
        'column: for column in sides[0].iter().flatten().copied() {
            let mut values = Vec::with_capacity(branches.len());
            for (b, pair) in branches.iter().zip(&sides) {
                let Expr::Binary(l, _, r) = b else { return None };
                let value: &'a Expr<'b> = if pair[0] == Some(column) {
                    r
                } else if pair[1] == Some(column) {
                    l
                } else {
                    continue 'column;
                };
                if has_subquery(value) || self.expr_affinity(value).is_some_and(|a| a != col_aff(column)) {
                    continue 'column;
                }
                let col_side: &Expr<'_> = if std::ptr::eq(value, &**r) { l } else { r };
                let coll_ok = match self.comparison_collation(col_side, value).ok() {
                    Some(P4::Coll(c)) => column.and_then(|c| table.columns[c].collation.as_deref()).unwrap_or("BINARY").eq_ci(&c.name),
                    _ => true,
                };
                if !coll_ok {
                    continue 'column;
                }
                values.push(value);
            }
            return Some((column, values));
        }
        None
    }

    /// Whether `e` reads a column of an enclosing query.
    fn refs_outer(&mut self, e: &Expr<'_>) -> bool {
        let mut names: Vec<(Option<String>, String)> = Vec::new();
        walk(e, &mut |x| {
            match x {
                Expr::Id(id) => names.push((None, unquote(id.0))),
                Expr::Name(n) => names.push((None, unquote(n.0))),
                Expr::Qualified(t, c) | Expr::DoublyQualified(_, t, c) => names.push((Some(unquote(t.0)), unquote(c.0))),
                _ => {}
            }
            true
        });
        names.iter().any(|(q, n)| matches!(self.resolve_name(q.as_deref(), n), Ok(Some(r)) if r.depth > 0))
    }
}

impl<'b, T: PlanFacts> Access<'b> for T {}

/// The pairs of fields of two rows written out with the same width, each
/// field a single value; None for anything else.
fn row_pairs<'a, 'b>(l: &'a Expr<'b>, r: &'a Expr<'b>) -> Option<Vec<(&'a Expr<'b>, &'a Expr<'b>)>> {
    use crate::sql::model::expr_shape::{may_be_row, strip_parens};
    match (strip_parens(l), strip_parens(r)) {
        (Expr::Parenthesized(a), Expr::Parenthesized(b)) if a.len() == b.len() && a.len() > 1 => {
            if a.iter().chain(b.iter()).any(may_be_row) {
                return None;
            }
            Some(a.iter().zip(b.iter()).collect())
        }
        _ => None,
    }
}
