//! LEFT JOIN strength reduction (SQLite's "OUTER JOIN strength
//! reduction", `sqlite3ExprImpliesNonNullRow`): a LEFT JOIN whose right
//! table cannot be the NULL row of any row the query keeps (a WHERE term
//! is false or NULL when all of that table's columns are NULL: `t.c IS
//! NOT NULL`, `t.c = x`, `t.c > 5`, `t.c IN (...)`) is an inner join.
//! Its null row is never produced, its ON terms become WHERE terms, and
//! the join may be reordered, as SQLite plans it.
//!
//! Invariant: an item is reduced only when the rules below prove the
//! null row is rejected (a false "yes" would drop rows); they are
//! SQLite's, including where SQLite misses a case (a NOT NULL test that
//! is not the first leaf of its AND, a term inside a function, CASE or
//! `IS`), so that plans and row orders stay SQLite's. Joins with a RIGHT
//! or FULL JOIN in the FROM clause are left as written.
//!
//! SQLite asks this of its WHERE clause with every ON clause ANDed after
//! it in FROM order (an outer join's ON terms never count, an inner
//! join's do); the tree shape matters, since only a node reached as the
//! left side of an AND (or the root) gets the top-level treatment
//! (`IS NOT NULL` and `likely()` seen through, AND split further).

use crate::sql::codegen::Compiler;
use crate::sql::model::from::{FromItem, JoinTerm};
use crate::util::ascii::AsciiLower;
use sqlite3_parser::ast::{Expr, Literal, Operator, UnaryOperator};

/// One operand of SQLite's chain `((WHERE AND on1) AND on2) ...`.
enum Part<'e, 'x> {
    /// An expression: the WHERE clause or an inner join's ON clause.
    Expr(&'e Expr<'x>),
    /// An outer join's ON clause, or a join term SQLite does not have:
    /// never implies anything.
    Opaque,
    /// An inner join's USING column: `left = right`, as the items read.
    ColEq(Option<usize>, usize),
}

/// The expression inside parentheses around one expression (SQLite's
/// trees have no node for them).
fn unparen<'e, 'x>(mut e: &'e Expr<'x>) -> &'e Expr<'x> {
    while let Expr::Parenthesized(v) = e {
        match v.as_slice() {
            [one] => e = one,
            _ => break,
        }
    }
    e
}

impl<'b> Compiler<'_> {
    /// Clear `left` on every LEFT JOIN item that the WHERE clause (and
    /// the inner joins' ON clauses) makes non-null.
    pub(in crate::sql::codegen) fn reduce_outer_joins(&mut self, items: &mut [FromItem<'_, 'b>], where_clause: Option<&Expr<'_>>) {
        if !items.iter().any(|it| it.left) || items.iter().any(|it| it.matched.is_some()) {
            return;
        }
        let vtabs = items.iter().filter(|it| it.vtab.is_some() && it.item < 64).fold(0u64, |m, it| m | 1 << it.item);
        for i in 0..items.len() {
            if !items[i].left || items[i].item >= 64 {
                continue;
            }
            // The chain as it stands now: an item reduced before this one
            // has an inner join's ON clause.
            let mut parts: Vec<Part<'_, '_>> = where_clause.map(Part::Expr).into_iter().collect();
            for it in items.iter().skip(1) {
                for j in &it.on {
                    parts.push(match j {
                        JoinTerm::Expr(e) if !it.left => Part::Expr(e),
                        JoinTerm::ColEq(l, r) if !it.left => Part::ColEq(l.first().filter(|_| l.len() == 1).map(|c| c.item), r.item),
                        JoinTerm::Expr(_) | JoinTerm::ColEq(..) => Part::Opaque,
                        // (A table-valued pragma's argument: no such term
                        // in SQLite's chain.)
                        JoinTerm::ExprEq(..) | JoinTerm::FailWhen(..) => continue,
                    });
                }
            }
            if !parts.is_empty() && self.chain_implies(&parts, items[i].item, vtabs) {
                items[i].left = false;
            }
        }
    }

    /// The top-level test on the chain of `parts` (an AND of all but the
    /// last, then the last).
    fn chain_implies(&mut self, parts: &[Part<'_, '_>], target: usize, vtabs: u64) -> bool {
        let (last, rest) = parts.split_last().expect("a part");
        if rest.is_empty() {
            return match last {
                Part::Expr(e) => self.top_implies(e, target, vtabs),
                other => self.part_walk(other, target, vtabs),
            };
        }
        if self.chain_implies(rest, target, vtabs) {
            return true;
        }
        // The right side of the AND: split further if it is an AND.
        match last {
            Part::Expr(e) => self.and_spine_implies(e, target, vtabs),
            other => self.part_walk(other, target, vtabs),
        }
    }

    fn part_walk(&mut self, part: &Part<'_, '_>, target: usize, vtabs: u64) -> bool {
        match part {
            Part::Expr(e) => self.walk_implies(e, target, vtabs),
            Part::Opaque => false,
            Part::ColEq(l, r) => {
                let is_vtab = |i: usize| i < 64 && vtabs & (1 << i) != 0;
                !(l.is_some_and(is_vtab) || is_vtab(*r)) && (*l == Some(target) || *r == target)
            }
        }
    }

    /// SQLite's `sqlite3ExprImpliesNonNullRow` on one expression: COLLATE
    /// and `likely()` seen through, `x IS NOT NULL` as `x`, an AND split.
    fn top_implies(&mut self, e: &Expr<'_>, target: usize, vtabs: u64) -> bool {
        let mut e = unparen(e);
        loop {
            match e {
                Expr::Collate(x, _) => e = unparen(x),
                Expr::FunctionCall { name, args: Some(args), .. }
                    if !args.is_empty() && ["likely", "unlikely", "likelihood"].iter().any(|n| name.0.eq_ci(n)) =>
                {
                    e = unparen(&args[0])
                }
                _ => break,
            }
        }
        // (`x IS NOT NULL` is SQLite's NOTNULL too.)
        if let Expr::NotNull(x) | Expr::Binary(x, Operator::IsNot, Expr::Literal(Literal::Null)) = e {
            return self.walk_implies(x, target, vtabs);
        }
        self.and_spine_implies(e, target, vtabs)
    }

    /// An AND's left sides get the top-level test, the last right side
    /// only the walk.
    fn and_spine_implies(&mut self, e: &Expr<'_>, target: usize, vtabs: u64) -> bool {
        let mut p = unparen(e);
        while let Expr::Binary(l, Operator::And, r) = p {
            if self.top_implies(l, target, vtabs) {
                return true;
            }
            p = unparen(r);
        }
        self.walk_implies(p, target, vtabs)
    }

    /// The scope item a column reference reads (depth 0 only).
    fn column_item(&mut self, e: &Expr<'_>) -> Option<usize> {
        if !matches!(e, Expr::Id(_) | Expr::Name(_) | Expr::Qualified(..) | Expr::DoublyQualified(..)) {
            return None;
        }
        let deps = self.expr_deps(e);
        (deps != u64::MAX && deps.count_ones() == 1).then_some(deps.trailing_zeros() as usize)
    }

    /// SQLite's walk (`impliesNotNullRow`): whether `e` is NULL or false
    /// whenever every column of item `target` is NULL.
    fn walk_implies(&mut self, e: &Expr<'_>, target: usize, vtabs: u64) -> bool {
        let e = unparen(e);
        match e {
            Expr::Id(_) | Expr::Name(_) | Expr::Qualified(..) | Expr::DoublyQualified(..) => self.column_item(e) == Some(target),
            Expr::Binary(l, Operator::And | Operator::Or, r) => self.walk_implies(l, target, vtabs) && self.walk_implies(r, target, vtabs),
            // IS, IS NOT (and IS TRUE): true for NULLs. `->` and `->>`
            // are functions.
            Expr::Binary(_, Operator::Is | Operator::IsNot | Operator::ArrowRight | Operator::ArrowRightShift, _) => false,
            Expr::Binary(l, op, r) => {
                if matches!(op, Operator::Equals | Operator::NotEquals | Operator::Less | Operator::LessEquals | Operator::Greater | Operator::GreaterEquals) {
                    // A virtual table may accept `x = NULL`.
                    let vtab_side = |me: &mut Self, x: &Expr<'_>| me.column_item(unparen(x)).is_some_and(|i| i < 64 && vtabs & (1 << i) != 0);
                    if vtab_side(self, l) || vtab_side(self, r) {
                        return false;
                    }
                }
                self.walk_implies(l, target, vtabs) || self.walk_implies(r, target, vtabs)
            }
            Expr::Unary(UnaryOperator::Not | UnaryOperator::Negative | UnaryOperator::Positive | UnaryOperator::BitwiseNot, x) => {
                self.walk_implies(x, target, vtabs)
            }
            Expr::Cast { expr, .. } => self.walk_implies(expr, target, vtabs),
            Expr::Collate(x, _) => self.walk_implies(x, target, vtabs),
            // `x NOT IN ()` can be true: only a list with values.
            // (`x IN ((SELECT ...))` is IN a subquery.)
            Expr::InList { lhs, rhs: Some(list), .. } if !list.is_empty() && crate::sql::model::expr_shape::in_list_subquery(list).is_none() => {
                self.walk_implies(lhs, target, vtabs)
            }
            Expr::Between { lhs, start, end, .. } => {
                self.walk_implies(lhs, target, vtabs) || (self.walk_implies(start, target, vtabs) && self.walk_implies(end, target, vtabs))
            }
            // IS NULL, NOT NULL, functions (LIKE and GLOB too), CASE, row
            // values, IN a subquery, subqueries: not looked into.
            _ => false,
        }
    }
}
