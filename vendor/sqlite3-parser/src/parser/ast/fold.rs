//! SQLite's parse-time fold of `x AND 0` (`sqlite3ExprAnd`): an AND one
//! of whose sides is the literal 0 (`EP_IsFalse`) and neither of whose
//! sides holds a function call (`EP_HasFunc`, which subqueries do not
//! pass up) is built as the integer 0, so what it dropped is never
//! resolved, compiled or counted in a height. The parser builds such an
//! AND as [`Expr::FoldedAnd`], which keeps the AND as written for its
//! text.
//!
//! Cost: SQLite keeps both facts as flags on each node. Here the false
//! literal is read off the operand itself (parentheses, signs and null
//! tests walked in a loop), and a function call is searched for with an
//! explicit stack that stops at folded ANDs (no call) and at the nodes
//! already found to hold one ([`CallMemo`]): each node is searched at most
//! once per statement, so a chain of any length folds in linear time and
//! without recursion.

use std::collections::HashSet;

use super::{Expr, Literal, Operator};

/// The nodes of the statement being parsed known to hold a function call:
/// an AND over a false literal that did not fold records the side that
/// held one, so a longer chain over it asks in O(1).
#[derive(Default)]
pub struct CallMemo(HashSet<usize>);

impl CallMemo {
    /// Forget the nodes of a finished statement.
    pub fn clear(&mut self) {
        self.0.clear();
    }

    /// Whether `e` holds a function call outside subqueries (recording it).
    fn has_call(&mut self, e: &Expr<'_>) -> bool {
        let mut stack = vec![e];
        while let Some(x) = stack.pop() {
            if self.0.contains(&(x as *const Expr<'_> as usize)) {
                return self.record(e);
            }
            // (Pushed one by one: no iterator adapters to instantiate.)
            match x {
                // (LIKE, GLOB, REGEXP and MATCH are calls of functions.)
                Expr::FunctionCall { .. } | Expr::FunctionCallStar { .. } | Expr::Like { .. } => {
                    return self.record(e)
                }
                Expr::Unary(_, y)
                | Expr::IsNull(y)
                | Expr::NotNull(y)
                | Expr::Cast { expr: y, .. }
                | Expr::Collate(y, _)
                | Expr::InSelect { lhs: y, .. }
                | Expr::InTable { lhs: y, .. } => stack.push(y),
                Expr::Binary(l, _, r) => {
                    stack.push(l);
                    stack.push(r);
                }
                Expr::Between {
                    lhs, start, end, ..
                } => {
                    stack.push(lhs);
                    stack.push(start);
                    stack.push(end);
                }
                Expr::Case {
                    base,
                    when_then_pairs,
                    else_expr,
                } => {
                    if let Some(b) = base {
                        stack.push(b);
                    }
                    if let Some(x) = else_expr {
                        stack.push(x);
                    }
                    for (w, t) in when_then_pairs.iter() {
                        stack.push(w);
                        stack.push(t);
                    }
                }
                Expr::InList { lhs, rhs, .. } => {
                    stack.push(lhs);
                    for y in rhs.iter().copied().flatten() {
                        stack.push(y);
                    }
                }
                Expr::Parenthesized(v) => {
                    for y in v.iter() {
                        stack.push(y);
                    }
                }
                _ => {}
            }
        }
        false
    }

    fn record(&mut self, e: &Expr<'_>) -> bool {
        self.0.insert(e as *const Expr<'_> as usize);
        true
    }

    /// Whether the AND of the (allocated) operands `l` and `r` folds to 0.
    pub fn and_folds(&mut self, l: &Expr<'_>, r: &Expr<'_>) -> bool {
        (is_false(l) || is_false(r)) && !self.has_call(l) && !self.has_call(r)
    }
}

/// Whether `e` is what SQLite's parser marks false (`EP_IsFalse`): an
/// integer literal of value 0 (decimal or hexadecimal), an AND it folded
/// to that literal or a null test it folded to 0, parentheses aside.
pub fn is_false(e: &Expr<'_>) -> bool {
    match strip_parens(e) {
        Expr::Literal(Literal::Numeric(t)) => {
            match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
                Some(h) => !h.is_empty() && h.bytes().all(|c| c == b'0'),
                None => t.bytes().all(|c| c == b'0'),
            }
        }
        Expr::FoldedAnd(_) => true,
        Expr::IsNull(x) => never_null(x),
        Expr::Binary(x, Operator::Is, n)
            if matches!(strip_parens(n), Expr::Literal(Literal::Null)) =>
        {
            never_null(x)
        }
        _ => false,
    }
}

/// Whether SQLite's parser knows `e` is never NULL, so that a null test of
/// it folds to an integer (`sqlite3PExprIsNull`): a numeric, string or
/// blob literal under signs and parentheses, or a term it folded to an
/// integer itself (a folded AND, a null test of such a term).
pub fn never_null(mut e: &Expr<'_>) -> bool {
    loop {
        e = match strip_parens(e) {
            Expr::Unary(super::UnaryOperator::Positive | super::UnaryOperator::Negative, x) => x,
            Expr::Literal(Literal::Numeric(_) | Literal::String(_) | Literal::Blob(_))
            | Expr::FoldedAnd(_) => return true,
            Expr::IsNull(x) | Expr::NotNull(x) => x,
            Expr::Binary(x, Operator::Is | Operator::IsNot, n)
                if matches!(strip_parens(n), Expr::Literal(Literal::Null)) =>
            {
                x
            }
            _ => return false,
        }
    }
}

fn strip_parens<'a, 'b>(mut e: &'a Expr<'b>) -> &'a Expr<'b> {
    while let Expr::Parenthesized(v) = e {
        if v.len() != 1 {
            break;
        }
        e = &v[0];
    }
    e
}
