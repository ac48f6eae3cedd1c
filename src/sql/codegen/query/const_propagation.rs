//! SQLite's WHERE-clause constant propagation, where it shows: a WHERE
//! whose AND terms include `column = constant` has the other occurrences
//! of that column read as the constant (under the column's affinity), and
//! a term left with no column at all is then a constant term, tested once
//! before the loops. So `a = 3 AND a > 4` runs no loop, and a virtual
//! table's xFilter is not called, while xBestIndex still sees both terms
//! as written (SQLite marks the column, it does not rewrite the term).
//!
//! The rules are SQLite's `propagateConstants`: the constant must be
//! constant, carry no affinity and compare under BINARY; the first term
//! from the end fixes a column (a later duplicate is ignored); the term
//! fixing a column keeps that occurrence; when a fixed column has BLOB
//! affinity, only operands of comparisons are replaced (the right one
//! unless the left has TEXT affinity), and elsewhere only columns of
//! other affinities. ON terms of outer joins take no part (they are not
//! among the terms given here). Unlike SQLite the pass runs once (a column
//! fixed through another fixed column is not followed).
//!
//! Invariant: the terms are only tested here, never changed: each is
//! still tested in its loop as written, so a test here only ends the
//! query early when SQLite's would.

use crate::error::Result;
use crate::sql::codegen::{ColumnSource, Compiler};
use crate::sql::model::expr_shape::{is_syntactic_constant, strip_parens, walk};
use crate::sql::plan::prelude::*;
use crate::sql::resolve::ColumnRef;
use crate::util::ascii::AsciiLower;
use crate::value::affinity::Affinity;
use crate::vdbe::program::{Opcode, P4};
use sqlite3_parser::ast::{Expr, Operator};

/// A column fixed to a constant by a WHERE term.
struct Fixed<'x, 'y> {
    column: ColumnRef,
    value: &'x Expr<'y>,
    /// The column node of the term that fixes it (kept as written).
    node: usize,
}

fn address(e: &Expr<'_>) -> usize {
    e as *const Expr<'_> as usize
}

/// Whether `e` is constant as SQLite's `sqlite3ExprIsConstant` sees it,
/// narrowed: a syntactic constant without a CAST.
fn is_plain_constant(e: &Expr<'_>) -> bool {
    let mut cast = false;
    walk(e, &mut |x| {
        cast |= matches!(x, Expr::Cast { .. });
        !cast
    });
    !cast && is_syntactic_constant(e)
}

fn is_comparison(op: &Operator) -> bool {
    matches!(op, Operator::Equals | Operator::NotEquals | Operator::Less | Operator::LessEquals | Operator::Greater | Operator::GreaterEquals | Operator::Is)
}

/// What propagation fixed in one SELECT's WHERE.
pub(in crate::sql::codegen) struct Propagation<'x, 'y> {
    fixed: Vec<Fixed<'x, 'y>>,
    has_aff_blob: bool,
}

impl Compiler<'_> {
    /// The columns `terms` (the WHERE's AND terms) fix, `None` when none
    /// (see the module doc). The column nodes propagation replaces are
    /// recorded in `const_fixed_nodes`: SQLite offers no constraint read
    /// from the right side of a comparison through such a node.
    pub(in crate::sql::codegen) fn propagate_constants<'x, 'y>(&mut self, terms: &[&'x Expr<'y>]) -> Option<Propagation<'x, 'y>> {
        if terms.len() < 2 {
            return None;
        }
        let mut fixed: Vec<Fixed<'_, '_>> = Vec::new();
        let mut has_aff_blob = false;
        for t in terms.iter().rev() {
            let Expr::Binary(l, Operator::Equals, r) = strip_parens(t) else { continue };
            let collation = {
                let lc = self.expr_collation(l);
                let rc = self.expr_collation(r);
                crate::sql::codegen::expr::row_value::pick_collation(lc.as_ref(), rc.as_ref()).map(|c| c.to_string())
            };
            if collation.is_some_and(|c| !c.eq_ci("BINARY")) {
                continue;
            }
            for (col_side, value) in [(&**r, &**l), (&**l, &**r)] {
                let col_node = strip_parens(col_side);
                let Some(column) = self.plain_column(col_node) else { continue };
                if !is_plain_constant(value) || self.expr_affinity(value).is_some() {
                    continue;
                }
                if fixed.iter().any(|f| f.column.cursor == column.cursor && f.column.column == column.column) {
                    continue;
                }
                has_aff_blob |= column.affinity == Affinity::Blob;
                fixed.push(Fixed { column, value, node: address(col_node) });
            }
        }
        if fixed.is_empty() {
            return None;
        }
        let p = Propagation { fixed, has_aff_blob };
        for t in terms {
            let (nodes, _) = self.fixed_nodes(t, &p);
            self.select.const_fixed_nodes.extend(nodes);
        }
        Some(p)
    }

    /// Test before the loops, jumping to `skip` when false, each of
    /// `terms` that propagation `p` leaves without a column.
    pub(in crate::sql::codegen) fn propagated_constant_tests(&mut self, terms: &[&Expr<'_>], p: &Propagation<'_, '_>, skip: i32) -> Result<()> {
        // (A row-value equality is its pairs, as SQLite splits it: a pair
        // may be constant when the whole is not.)
        let mut tests: Vec<(&Expr<'_>, Option<(&Expr<'_>, bool)>)> = Vec::new();
        for t in terms {
            match strip_parens(t) {
                Expr::Binary(Expr::Parenthesized(ls), op @ (Operator::Equals | Operator::Is), Expr::Parenthesized(rs))
                    if ls.len() > 1 && ls.len() == rs.len() =>
                {
                    tests.extend(ls.iter().zip(rs.iter()).map(|(l, r)| (l, Some((r, *op == Operator::Is)))));
                }
                _ => tests.push((t, None)),
            }
        }
        for (t, pair) in tests {
            let constant = match pair {
                None => self.fixed_nodes(t, p).1,
                Some((r, _)) => {
                    let (ln, lall) = self.fixed_nodes(t, p);
                    let (rn, rall) = self.fixed_nodes(r, p);
                    // (A side without a column is constant already.)
                    (lall || (ln.is_empty() && self.is_column_free(t)))
                        && (rall || (rn.is_empty() && self.is_column_free(r)))
                        && !(ln.is_empty() && rn.is_empty())
                }
            };
            if !constant {
                continue;
            }
            // The fixed columns read their constants (under the column's
            // affinity, as SQLite codes an EP_FixedCol column) while the
            // term is tested.
            let mut saved = Vec::new();
            for f in &p.fixed {
                let reg = self.b.reg();
                self.expr(f.value, reg)?;
                if f.column.affinity != Affinity::Blob {
                    self.b.add4(Opcode::Affinity, reg, 1, 0, P4::affinity(f.column.affinity.letter().to_string()), 0);
                }
                let key = (f.column.cursor, f.column.column.map_or(-1, |c| c as i64));
                saved.push((key, self.frame.col_map.insert(key, ColumnSource::Register(reg))));
            }
            let r = match pair {
                None => self.where_term_if_false(t, skip),
                Some((rhs, is)) => self.pair_if_false(t, rhs, is, skip),
            };
            for (key, old) in saved.into_iter().rev() {
                match old {
                    Some(o) => self.frame.col_map.insert(key, o),
                    None => self.frame.col_map.remove(&key),
                };
            }
            r?;
        }
        Ok(())
    }

    /// Jump to `skip` unless `l = r` (`l IS r`) holds, as one pair of a
    /// row-value equality compares.
    fn pair_if_false(&mut self, l: &Expr<'_>, r: &Expr<'_>, is: bool, skip: i32) -> Result<()> {
        let lf = self.eval_row(l)?;
        let rf = self.eval_row(r)?;
        let t = self.b.reg();
        self.compare_rows(Opcode::Eq, is, &lf, &rf, t, true)?;
        self.b.add(Opcode::IfNot, t, skip, 1);
        Ok(())
    }

    /// Whether `e` reads no column and holds no subquery.
    fn is_column_free(&mut self, e: &Expr<'_>) -> bool {
        let mut free = true;
        walk(e, &mut |x| {
            free &= !matches!(
                x,
                Expr::Id(_)
                    | Expr::Name(_)
                    | Expr::Qualified(..)
                    | Expr::DoublyQualified(..)
                    | Expr::Subquery(_)
                    | Expr::Exists(_)
                    | Expr::InSelect { .. }
                    | Expr::InTable { .. }
                    | Expr::Raise(..)
            );
            free
        });
        free
    }

    /// The column nodes of `t` propagation replaces, and whether they are
    /// all of its columns (none of them a subquery's).
    fn fixed_nodes(&mut self, t: &Expr<'_>, p: &Propagation<'_, '_>) -> (Vec<usize>, bool) {
        // Operands of comparisons, replaced even for BLOB affinity (a
        // right one only when the left has no TEXT affinity).
        let mut operands: Vec<usize> = Vec::new();
        let mut comparisons: Vec<(&Expr<'_>, &Expr<'_>)> = Vec::new();
        let mut columns: Vec<&Expr<'_>> = Vec::new();
        let mut other = false;
        walk(t, &mut |x| {
            match x {
                Expr::Binary(l, op, r) if is_comparison(op) => comparisons.push((l, r)),
                Expr::Id(_) | Expr::Name(_) | Expr::Qualified(..) => columns.push(x),
                Expr::DoublyQualified(..) | Expr::Subquery(_) | Expr::Exists(_) | Expr::InSelect { .. } | Expr::InTable { .. } | Expr::Raise(..) => {
                    other = true
                }
                _ => {}
            }
            true
        });
        for (l, r) in comparisons {
            operands.push(address(strip_parens(l)));
            if self.expr_affinity(l) != Some(Affinity::Text) {
                operands.push(address(strip_parens(r)));
            }
        }
        let mut nodes = Vec::new();
        let mut all = !other && !columns.is_empty();
        for c in columns {
            let a = address(c);
            let fixed = self
                .plain_column(c)
                .and_then(|r| p.fixed.iter().find(|f| f.column.cursor == r.cursor && f.column.column == r.column))
                .is_some_and(|f| f.node != a && (!p.has_aff_blob || f.column.affinity != Affinity::Blob || operands.contains(&a)));
            if fixed {
                nodes.push(a);
            } else {
                all = false;
            }
        }
        (nodes, all)
    }
}
