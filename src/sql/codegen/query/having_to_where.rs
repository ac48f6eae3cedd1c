//! The HAVING-to-WHERE move of an aggregate query with GROUP BY, as
//! SQLite makes it: a HAVING conjunct that reads nothing but the GROUP BY
//! terms (and constants, parameters, deterministic functions) has the same
//! value on every row of a group, so it is tested on each row before
//! grouping instead of on each group after it. The statement then compiles
//! exactly as if it had been written in the WHERE clause (after the
//! WHERE's own terms), which is what SQLite's tests check.
//!
//! Invariant: a conjunct moves only when that cannot change the result:
//! every GROUP BY term compares with BINARY collation (under another, rows
//! of one group may differ in it), and every column the conjunct reads is
//! inside a subexpression written exactly as one of those terms (COLLATE
//! clauses around either aside) (which
//! themselves name table columns, not result aliases). A conjunct that is
//! the constant 0 (or FALSE) stays, as in SQLite.

use crate::sql::codegen::Compiler;
use crate::sql::model::expr_shape::walk;
use crate::sql::parse::unquote;
use crate::util::ascii::AsciiLower;
use crate::vdbe::func::FuncKind;
use sqlite3_parser::ast::{Expr, Literal};

impl Compiler<'_> {
    /// Move the HAVING conjuncts that only read GROUP BY terms to the end
    /// of `where_terms` (see the module doc).
    pub(in crate::sql::codegen) fn move_having_to_where<'a, 'b>(
        &mut self,
        group_by: &'a [Expr<'b>],
        having: &mut Vec<&'a Expr<'b>>,
        where_terms: &mut Vec<&'a Expr<'b>>,
    ) {
        if having.is_empty() {
            return;
        }
        let mut keys: Vec<String> = Vec::new();
        for g in group_by {
            if !self.is_binary_group_key(g) {
                return;
            }
            keys.push(without_collate(g).to_string());
        }
        let mut kept = Vec::with_capacity(having.len());
        for t in having.drain(..) {
            if !is_always_false(t) && self.reads_only_keys(t, &keys) {
                where_terms.push(t);
            } else {
                kept.push(t);
            }
        }
        *having = kept;
    }

    /// Whether a GROUP BY term groups with BINARY collation and names
    /// only table columns (no ordinal, no result alias).
    fn is_binary_group_key(&mut self, g: &Expr<'_>) -> bool {
        if crate::sql::model::expr_shape::parse_time_integer(g).is_some() {
            return false;
        }
        for (q, n) in crate::sql::plan::terms::column_names(g) {
            match self.resolve_name(q.as_deref(), &n) {
                Ok(Some(r)) if r.depth == 0 => {}
                _ => return false,
            }
        }
        match self.expr_collation(g) {
            None => true,
            Some((name, _)) => name.eq_ci("BINARY"),
        }
    }

    /// Whether every column `e` reads lies inside a subexpression written
    /// as one of `keys`, and it holds nothing whose value may differ
    /// between rows of a group otherwise (a subquery, a non-deterministic
    /// or aggregate function).
    fn reads_only_keys(&self, e: &Expr<'_>, keys: &[String]) -> bool {
        let mut ok = true;
        walk(e, &mut |x| {
            if !ok {
                return false;
            }
            if keys.iter().any(|k| displays_as(without_collate(x), k)) {
                return false;
            }
            match x {
                Expr::Id(_) | Expr::Name(_) | Expr::Qualified(..) | Expr::DoublyQualified(..) => ok = false,
                Expr::Subquery(_) | Expr::Exists(_) | Expr::InSelect { .. } | Expr::InTable { .. } | Expr::Raise(..) | Expr::FunctionCallStar { .. } => {
                    ok = false
                }
                Expr::FunctionCall { name, args, filter_over, .. } => {
                    let n = args.map_or(0, |a| a.len());
                    let def = self.env.funcs.find(&unquote(name.0), n);
                    ok = filter_over.is_none() && def.is_some_and(|d| d.flags.deterministic && matches!(d.kind, FuncKind::Scalar(_)));
                }
                _ => {}
            }
            ok
        });
        ok
    }
}

/// `e` without the COLLATE clauses around it: SQLite matches a term with
/// a GROUP BY term that differs from it only by those.
fn without_collate<'x, 'b>(mut e: &'x Expr<'b>) -> &'x Expr<'b> {
    while let Expr::Collate(inner, _) = e {
        e = inner;
    }
    e
}

/// SQLite's "always false" term: the integer 0 or FALSE written alone.
fn is_always_false(e: &Expr<'_>) -> bool {
    match e {
        Expr::Literal(Literal::Numeric(n)) => n.parse::<i64>().is_ok_and(|v| v == 0),
        Expr::Id(id) => unquote(id.0).eq_ci("false"),
        _ => false,
    }
}

/// Whether `e` written out is exactly `text`: compared as it is
/// formatted, stopping at the first difference (most expressions differ
/// from a key in their first characters; nothing is allocated).
fn displays_as(e: &Expr<'_>, text: &str) -> bool {
    struct Compare<'t>(&'t str);
    impl std::fmt::Write for Compare<'_> {
        fn write_str(&mut self, s: &str) -> std::fmt::Result {
            match self.0.strip_prefix(s) {
                Some(rest) => {
                    self.0 = rest;
                    Ok(())
                }
                None => Err(std::fmt::Error),
            }
        }
    }
    let mut rest = Compare(text);
    std::fmt::write(&mut rest, format_args!("{e}")).is_ok() && rest.0.is_empty()
}
