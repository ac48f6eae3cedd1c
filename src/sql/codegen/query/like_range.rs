//! The range terms SQLite's WHERE analysis adds beside a LIKE or GLOB
//! term with a literal prefix (`exprAnalyze`'s LIKE optimization):
//! `x >= 'abc' COLLATE NOCASE` and `x < 'abd' COLLATE NOCASE` (BINARY for
//! GLOB), each a COLLATE node over a copy of the left operand `x` and a
//! comparison over that: two heights above `x`, held to
//! `SQLITE_LIMIT_EXPR_DEPTH` as any node its parser builds. So the
//! parser's `a LIKE 'a%' LIKE 'a%' ...` at the limit's height is
//! "Expression tree is too large" once it is a WHERE term (SQLite fails
//! as it codes the loops, after every name of the statement resolved:
//! `StatementState::codegen_error`).
//!
//! The shape (`isLikeOrGlob`): a term at the top AND level of the WHERE
//! clause or of an ON clause (not under NOT, not an OR's branch); LIKE or
//! GLOB, as the operator or the built-in `like()`/`glob()` call; a string
//! literal pattern whose literal prefix `plan::like_prefix` finds. A
//! prefix that reads as a number stops it unless `x` is a column of TEXT
//! affinity.

use crate::sql::codegen::Compiler;
use crate::sql::plan::like_prefix::{like_prefix, prefix_is_numeric};
use crate::util::ascii::AsciiLower;
use crate::value::affinity::Affinity;
use sqlite3_parser::ast::{Expr, LikeOperator};

impl Compiler<'_> {
    /// Record the height error of the range terms SQLite adds for the
    /// LIKE/GLOB terms among `terms` (the AND terms of a WHERE clause and
    /// its ON clauses, as the loops are opened), if any is too high.
    pub(in crate::sql::codegen) fn check_like_ranges(&mut self, terms: &[&Expr<'_>]) {
        let max = self.env.max_expr_depth;
        for &t in terms {
            if self.stmt.codegen_error.is_some() {
                return;
            }
            let Some((lhs, prefix)) = like_operand(t) else { continue };
            if crate::sql::parse_limits::height(lhs) + 2 <= max {
                continue;
            }
            let text_column =
                matches!(lhs, Expr::Id(_) | Expr::Name(_) | Expr::Qualified(..) | Expr::DoublyQualified(..)) && self.expr_affinity(lhs) == Some(Affinity::Text);
            if text_column || !prefix_is_numeric(&prefix) {
                self.codegen_too_deep();
            }
        }
    }
}

/// The left operand and the pattern's literal prefix of `t` when it is a
/// LIKE or GLOB SQLite's optimization takes.
fn like_operand<'a, 'b>(t: &'a Expr<'b>) -> Option<(&'a Expr<'b>, Vec<u8>)> {
    match t {
        Expr::Parenthesized(v) if v.len() == 1 => like_operand(&v[0]),
        Expr::Like { lhs, not: false, op: op @ (LikeOperator::Like | LikeOperator::Glob), rhs, escape } => {
            let like = *op == LikeOperator::Like;
            // (GLOB has no three-argument form.)
            if !like && escape.is_some() {
                return None;
            }
            Some((lhs, like_prefix(rhs, *escape, like)?))
        }
        Expr::FunctionCall { name, distinctness: None, args: Some(args), order_by: None, filter_over: None } => {
            let name = crate::sql::parse::unquote(name.0);
            let like = match args.len() {
                2 | 3 if name.eq_ci("like") => true,
                2 if name.eq_ci("glob") => false,
                _ => return None,
            };
            Some((&args[1], like_prefix(&args[0], args.get(2), like)?))
        }
        _ => None,
    }
}
