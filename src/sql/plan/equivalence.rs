//! Transitive constraints: lookups a WHERE term `a = b` between two
//! columns lends through the other column, as SQLite's WHERE analysis
//! finds them (`termIsEquivalence` and the equivalence classes its term
//! scan follows, `optoverview.html` "transitive constraints"). With
//! `t.a = x.v AND x.v > 0`, `t.a` may be searched for `> 0` before `x`
//! is read; with `x.v = 1`, for `= 1`.
//!
//! An `=` term is an equivalence when both sides are columns of this
//! query whose affinities are the same or both numeric and whose
//! comparison collation is BINARY or the one both columns declare. The
//! class of a column is followed through up to ten such terms.
//!
//! Invariant: the terms are only read: each is still tested where its
//! tables are read, so a lookup taken from one only narrows the rows a
//! loop reads to those the WHERE clause would keep.

use crate::sql::model::expr_shape::{has_subquery, strip_parens};
use crate::sql::model::from::FromItem;
use crate::sql::plan::facts::PlanFacts;
use crate::sql::plan::prelude::*;
use crate::sql::plan::terms::LookupOp;
use crate::sql::resolve::ColumnRef;
use crate::util::ascii::AsciiLower;
use crate::value::affinity::Affinity;
use crate::vdbe::program::P4;
use sqlite3_parser::ast::{Expr, Operator};

/// Columns followed in one class at most (SQLite's scan keeps 11).
const MAX_CLASS: usize = 11;

/// A lookup on a column of the item taken through its class: (the item's
/// column, `None` the rowid; operator; the value; items the value reads;
/// the position of the term constraining the equivalent column).
pub(crate) type EquivalentLookup<'a, 'b> = (Option<usize>, LookupOp, &'a Expr<'b>, u64, usize);

fn same_column(a: &ColumnRef, b: &ColumnRef) -> bool {
    a.cursor == b.cursor && a.column == b.column
}

/// Lookups through columns the terms make equal (implemented for every
/// [`PlanFacts`]).
pub trait Equivalence<'b>: PlanFacts {
    /// The comparison collation of `l` and `r` by name (`BINARY` when
    /// none is chosen); `None` when it cannot be resolved.
    fn collation_name(&mut self, l: &Expr<'_>, r: &Expr<'_>) -> Option<String> {
        match self.comparison_collation(l, r).ok()? {
            P4::Coll(c) => Some(c.name.to_string()),
            _ => Some("BINARY".into()),
        }
    }

    /// Lookups of item `it` (a table read by an inner loop's rules: not
    /// the right side of an outer join) that `terms` give through the
    /// equivalence classes of its columns, with values available once the
    /// items in `before` are read.
    fn equivalent_lookups<'a>(&mut self, it: &FromItem<'a, 'b>, before: u64, terms: &[&'a Expr<'b>]) -> Vec<EquivalentLookup<'a, 'b>> {
        let mut out = Vec::new();
        let Some(table) = it.table.clone() else { return out };
        if terms.len() < 2 || it.left || it.matched.is_some() || it.vtab.is_some() {
            return out;
        }
        // The equivalence terms.
        let mut pairs: Vec<(ColumnRef, ColumnRef)> = Vec::new();
        for t in terms {
            let Expr::Binary(l, Operator::Equals, r) = strip_parens(t) else { continue };
            let (l, r) = (strip_parens(l), strip_parens(r));
            let (Some(a), Some(b)) = (self.plain_column(l), self.plain_column(r)) else { continue };
            if a.affinity != b.affinity && !(a.affinity.is_numeric() && b.affinity.is_numeric()) {
                continue;
            }
            let Some(coll) = self.collation_name(l, r) else { continue };
            let declared = |c: &ColumnRef| c.collation.clone().unwrap_or_else(|| "BINARY".into());
            let same_declared = declared(&a).eq_ci(&coll) && declared(&b).eq_ci(&coll);
            if !(coll.eq_ci("BINARY") || same_declared) {
                continue;
            }
            pairs.push((a, b));
        }
        if pairs.is_empty() {
            return out;
        }
        // Per column of the item in some term: the columns of its class.
        let mut classes: Vec<(ColumnRef, Vec<ColumnRef>)> = Vec::new();
        for (a, b) in &pairs {
            for c in [a, b] {
                if c.item == it.item && !classes.iter().any(|(o, _)| same_column(o, c)) {
                    classes.push((c.clone(), vec![c.clone()]));
                }
            }
        }
        for (_, class) in &mut classes {
            let mut i = 0;
            while i < class.len() && class.len() < MAX_CLASS {
                let c = class[i].clone();
                for (a, b) in &pairs {
                    for (x, y) in [(a, b), (b, a)] {
                        if same_column(x, &c) && !class.iter().any(|m| same_column(m, y)) && class.len() < MAX_CLASS {
                            class.push(y.clone());
                        }
                    }
                }
                i += 1;
            }
        }
        // Terms constraining another column of a class.
        // (Column side, value, operator, the column written on the right.)
        let mut sides: Vec<(&'a Expr<'b>, &'a Expr<'b>, LookupOp, bool)> = Vec::new();
        for (k, t) in terms.iter().enumerate() {
            sides.clear();
            match strip_parens(t) {
                Expr::Binary(l, op, r) => match LookupOp::from_op(*op) {
                    Some(lop) => sides.extend([(&**l, &**r, lop, false), (&**r, &**l, lop.swapped(), true)]),
                    None => continue,
                },
                Expr::Between { lhs, not: false, start, end } => sides.extend([(&**lhs, &**start, LookupOp::Ge, false), (&**lhs, &**end, LookupOp::Le, false)]),
                _ => continue,
            }
            for &(col_side, value, op, col_right) in &sides {
                let Some(c) = self.plain_column(strip_parens(col_side)) else { continue };
                let origins: Vec<ColumnRef> =
                    classes.iter().filter(|(o, class)| !same_column(o, &c) && class[1..].iter().any(|m| same_column(m, &c))).map(|(o, _)| o.clone()).collect();
                if origins.is_empty() || has_subquery(value) {
                    continue;
                }
                let deps = self.expr_deps(value);
                if deps & !before != 0 || deps & (1u64 << it.item.min(63)) != 0 {
                    continue;
                }
                // (The comparison's collation: the left operand's first.)
                let coll = if col_right { self.collation_name(value, col_side) } else { self.collation_name(col_side, value) };
                let Some(coll) = coll else { continue };
                for origin in origins {
                    // As for a term on the column itself: an affinity and a
                    // collation the index order honours.
                    let col_aff = match origin.column {
                        Some(i) => table.columns[i].affinity,
                        None => Affinity::Integer,
                    };
                    if self.expr_affinity(value).is_some_and(|a| !col_aff.is_numeric() && a != col_aff) {
                        continue;
                    }
                    let col_coll = origin.column.and_then(|i| table.columns[i].collation.clone()).unwrap_or_else(|| "BINARY".into());
                    if !coll.eq_ci(&col_coll) {
                        continue;
                    }
                    out.push((origin.column, op, value, deps, k));
                }
            }
        }
        out
    }
}

impl<'b, T: PlanFacts> Equivalence<'b> for T {}
