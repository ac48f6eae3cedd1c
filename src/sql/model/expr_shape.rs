//! Facts read off an expression's syntax alone, before any name is
//! resolved: its top-level AND terms, a walk over its nodes (not entering
//! subqueries), whether it holds a subquery or a window function call,
//! whether it may be a row value, whether SQLite's parser folds it to
//! false. The planner and code generation both ask them.
//!
//! An AND that SQLite's parser folds to `0` (`x AND 0`) comes out of the
//! parser as the leaf `Expr::FoldedAnd` (`sqlite3_parser::ast::fold`):
//! [`conjuncts`] and [`walk`] do not enter it, so what it dropped is never
//! resolved, compiled or counted, as in SQLite.

use sqlite3_parser::ast::{self, fold, Expr, Operator, Over};

/// Whether `e` is an AND SQLite's parser replaced by the literal 0 as it
/// built it (`sqlite3ExprAnd`): one side is a false literal and neither
/// holds a function call. The other side is then dropped unresolved:
/// `SELECT nosuch AND 0` is 0. The parser decided it
/// ([`Expr::FoldedAnd`]).
pub fn folds_to_false(e: &Expr<'_>) -> bool {
    matches!(e, Expr::FoldedAnd(_))
}

/// The integer SQLite's parser makes of `e`, as an ORDER BY or GROUP BY
/// term reads it for a column number (`sqlite3ExprIsInteger` after the
/// parser's folds): an integer literal (decimal or hexadecimal), under
/// unary `+`/`-` and parentheses; an AND folded to 0 ([`folds_to_false`]);
/// `X IS NULL`/`X ISNULL` (0) or `X IS NOT NULL`/`X NOTNULL` (1) of a
/// literal that cannot be NULL. So `ORDER BY (1 IS NULL)` is column 0,
/// out of range, as on SQLite. (A loop: a chain of signs costs its length.)
pub fn parse_time_integer(e: &Expr<'_>) -> Option<i64> {
    let mut negative = false;
    let mut x = strip_parens(e);
    loop {
        match x {
            Expr::Unary(ast::UnaryOperator::Positive, y) => x = strip_parens(y),
            Expr::Unary(ast::UnaryOperator::Negative, y) => {
                negative = !negative;
                x = strip_parens(y);
            }
            _ => break,
        }
    }
    let value = match x {
        Expr::Literal(ast::Literal::Numeric(t)) => match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
            // (A hexadecimal literal is the 64-bit pattern it spells.)
            Some(h) if !h.is_empty() && h.len() <= 16 => u64::from_str_radix(h, 16).ok().map(|v| v as i64),
            Some(_) => None,
            None => t.parse::<i64>().ok(),
        },
        Expr::FoldedAnd(_) => Some(0),
        Expr::IsNull(y) => fold::never_null(y).then_some(0),
        Expr::NotNull(y) => fold::never_null(y).then_some(1),
        Expr::Binary(y, Operator::Is, n) if is_null_literal(n) => fold::never_null(y).then_some(0),
        Expr::Binary(y, Operator::IsNot, n) if is_null_literal(n) => fold::never_null(y).then_some(1),
        _ => None,
    }?;
    Some(if negative { value.saturating_neg() } else { value })
}

fn is_null_literal(e: &Expr<'_>) -> bool {
    matches!(strip_parens(e), Expr::Literal(ast::Literal::Null))
}

/// Split `e` at top-level ANDs.
pub fn conjuncts<'a, 'b>(e: &'a Expr<'b>, out: &mut Vec<&'a Expr<'b>>) {
    match e {
        Expr::Binary(l, Operator::And, r) => {
            conjuncts(l, out);
            conjuncts(r, out);
        }
        Expr::Parenthesized(v) if v.len() == 1 => conjuncts(&v[0], out),
        _ => out.push(e),
    }
}

/// Visit `e` and its sub-expressions (not entering subqueries); `f`
/// returns `false` to skip a node's children.
pub fn walk<'a, 'b>(e: &'a Expr<'b>, f: &mut dyn FnMut(&'a Expr<'b>) -> bool) {
    if !f(e) {
        return;
    }
    match e {
        Expr::Between { lhs, start, end, .. } => {
            walk(lhs, f);
            walk(start, f);
            walk(end, f);
        }
        Expr::Binary(l, _, r) => {
            walk(l, f);
            walk(r, f);
        }
        Expr::Case { base, when_then_pairs, else_expr } => {
            if let Some(b) = base {
                walk(b, f);
            }
            for (w, t) in when_then_pairs.iter() {
                walk(w, f);
                walk(t, f);
            }
            if let Some(x) = else_expr {
                walk(x, f);
            }
        }
        Expr::Cast { expr, .. } => walk(expr, f),
        Expr::Collate(x, _) => walk(x, f),
        Expr::FunctionCall { args, order_by, filter_over, .. } => {
            for a in args.iter().flat_map(|a| a.iter()) {
                walk(a, f);
            }
            // (An aggregate's ORDER BY and FILTER clause read columns as
            // its arguments do.)
            if let Some(ast::FunctionCallOrder::SortList(terms)) = order_by {
                for t in terms.iter() {
                    walk(&t.expr, f);
                }
            }
            if let Some(x) = filter_over.as_ref().and_then(|t| t.filter_clause) {
                walk(x, f);
            }
        }
        Expr::FunctionCallStar { filter_over: Some(ast::FunctionTail { filter_clause: Some(x), .. }), .. } => walk(x, f),
        Expr::InList { lhs, rhs, .. } => {
            walk(lhs, f);
            for a in rhs.iter().flat_map(|a| a.iter()) {
                walk(a, f);
            }
        }
        Expr::InSelect { lhs, .. } | Expr::InTable { lhs, .. } => walk(lhs, f),
        Expr::IsNull(x) | Expr::NotNull(x) | Expr::Unary(_, x) => walk(x, f),
        Expr::Like { lhs, rhs, escape, .. } => {
            walk(lhs, f);
            walk(rhs, f);
            if let Some(x) = escape {
                walk(x, f);
            }
        }
        Expr::Parenthesized(v) => {
            for x in v.iter() {
                walk(x, f);
            }
        }
        _ => {}
    }
}

/// Whether `e` contains a subquery (outside nested subqueries' insides).
/// Whether `e` is a constant by its syntax: no column name, function
/// call, subquery (nor `IN table`) or RAISE in it.
pub fn is_syntactic_constant(e: &Expr<'_>) -> bool {
    let mut constant = true;
    walk(e, &mut |x| {
        constant &= !matches!(
            x,
            Expr::Id(_)
                | Expr::Name(_)
                | Expr::Qualified(..)
                | Expr::DoublyQualified(..)
                | Expr::FunctionCall { .. }
                | Expr::FunctionCallStar { .. }
                | Expr::Subquery(_)
                | Expr::Exists(_)
                | Expr::InSelect { .. }
                | Expr::InTable { .. }
                | Expr::Raise(..)
        );
        constant
    });
    constant
}

pub fn has_subquery(e: &Expr<'_>) -> bool {
    let mut found = false;
    walk(e, &mut |x| {
        if matches!(x, Expr::Subquery(_) | Expr::Exists(_) | Expr::InSelect { .. } | Expr::InTable { .. }) {
            found = true;
        }
        true
    });
    found
}

/// The expressions of a window call's own window (`OVER (PARTITION BY
/// ... ORDER BY ...)` written inline) and of its FILTER clause, which an
/// expression walk does not enter: an aggregate there is one of the
/// query's (a named window's are in the WINDOW clause).
pub fn window_spec_exprs<'a, 'b>(e: &'a Expr<'b>) -> Vec<&'a Expr<'b>> {
    let mut out = Vec::new();
    let (Expr::FunctionCall { filter_over: Some(f), .. } | Expr::FunctionCallStar { filter_over: Some(f), .. }) = e else { return out };
    if f.over_clause.is_none() {
        return out;
    }
    out.extend(f.filter_clause);
    if let Some(Over::Window(w)) = f.over_clause {
        out.extend(w.partition_by.iter().flat_map(|p| p.iter()));
        out.extend(w.order_by.iter().flat_map(|o| o.iter().map(|t| &t.expr)));
    }
    out
}

/// Whether `e` contains a window function call.
pub fn has_window_call(e: &Expr<'_>) -> bool {
    let mut found = false;
    walk(e, &mut |x| {
        if window_of(x).is_some() {
            found = true;
        }
        true
    });
    found
}

/// Whether `e` itself is a window function call.
pub fn is_window_call(e: &Expr<'_>) -> bool {
    window_of(e).is_some()
}

pub fn window_of<'a, 'b>(e: &'a Expr<'b>) -> Option<&'a Over<'b>> {
    match e {
        Expr::FunctionCall { filter_over: Some(f), .. } | Expr::FunctionCallStar { filter_over: Some(f), .. } => f.over_clause,
        _ => None,
    }
}

/// Whether `e` may stand for several values: a row written out, or a
/// subquery with several result columns or a `*`.
pub fn may_be_row(e: &Expr<'_>) -> bool {
    match e {
        Expr::Parenthesized(v) if v.len() == 1 => may_be_row(&v[0]),
        Expr::Parenthesized(_) => true,
        Expr::Subquery(sel) => written_select_width(sel) > 1 || select_has_star(sel),
        _ => false,
    }
}

pub fn written_select_width(sel: &ast::Select<'_>) -> usize {
    match &sel.body.select {
        ast::OneSelect::Select { columns, .. } => columns.len(),
        ast::OneSelect::Values(rows) => rows.first().map_or(1, |r| r.len()),
    }
}

pub fn select_has_star(sel: &ast::Select<'_>) -> bool {
    match &sel.body.select {
        ast::OneSelect::Select { columns, .. } => columns.iter().any(|c| matches!(c, ast::ResultColumn::Star | ast::ResultColumn::TableStar(_))),
        ast::OneSelect::Values(_) => false,
    }
}

/// The subquery an IN list stands for when it is one subquery,
/// parentheses aside: SQLite's parser builds `x IN ((SELECT ...))` as
/// `x IN (SELECT ...)` (a list of one item that is a SELECT; a list of
/// one constant is `x == +e` instead). Everything that looks at an IN
/// list (code generation, name order, heights, the planner) asks this
/// first, so the two spellings are one node everywhere.
pub fn in_list_subquery<'a, 'b>(list: &'a [Expr<'b>]) -> Option<&'a ast::Select<'b>> {
    match list {
        [item] => match strip_parens(item) {
            Expr::Subquery(s) => Some(s),
            _ => None,
        },
        _ => None,
    }
}

/// `e` as the `x IN (SELECT ...)` SQLite's parser makes of it: (left
/// side, NOT, subquery) of an `InSelect`, or of an IN list of one
/// subquery ([`in_list_subquery`]).
pub fn as_in_select<'a, 'b>(e: &'a Expr<'b>) -> Option<(&'a Expr<'b>, bool, &'a ast::Select<'b>)> {
    match e {
        Expr::InSelect { lhs, not, rhs } => Some((*lhs, *not, *rhs)),
        Expr::InList { lhs, not, rhs: Some(list) } => in_list_subquery(list).map(|s| (*lhs, *not, s)),
        _ => None,
    }
}

/// `e` without the parentheses of `((x))`.
/// `e` under any COLLATE and the single parentheses around it (SQLite's
/// parser makes no node of the parentheses; its IS, ORDER BY aliases and
/// index terms look through COLLATE).
pub fn strip_collate_and_parens<'a, 'e>(mut e: &'a Expr<'e>) -> &'a Expr<'e> {
    loop {
        match e {
            Expr::Collate(x, _) => e = x,
            Expr::Parenthesized(v) if v.len() == 1 => e = &v[0],
            _ => return e,
        }
    }
}

pub fn strip_parens<'a, 'e>(mut e: &'a Expr<'e>) -> &'a Expr<'e> {
    while let Expr::Parenthesized(v) = e {
        if v.len() != 1 {
            break;
        }
        e = &v[0];
    }
    e
}

/// What an aggregate call reads: its arguments and its FILTER condition
/// (None when `call` is not a function call).
pub fn aggregate_inputs<'a, 'b>(call: &'a Expr<'b>) -> Option<Vec<&'a Expr<'b>>> {
    match call {
        Expr::FunctionCall { args, filter_over, order_by, .. } => {
            let mut v: Vec<&Expr<'_>> = args.map(|a| a.iter().collect()).unwrap_or_default();
            v.extend(filter_over.as_ref().and_then(|f| f.filter_clause));
            if let Some(ast::FunctionCallOrder::SortList(terms)) = order_by {
                v.extend(terms.iter().map(|t| &t.expr));
            }
            Some(v)
        }
        Expr::FunctionCallStar { filter_over: Some(f), .. } => Some(f.filter_clause.into_iter().collect()),
        _ => None,
    }
}

/// The collation a comparison of two operands uses: an explicit one on
/// the left, else on the right, else the left's, else the right's (None:
/// BINARY).
pub fn pick_collation<'a>(l: Option<&'a (String, bool)>, r: Option<&'a (String, bool)>) -> Option<&'a str> {
    match (l, r) {
        (Some((n, true)), _) => Some(n),
        (_, Some((n, true))) => Some(n),
        (Some((n, false)), _) => Some(n),
        (_, Some((n, false))) => Some(n),
        _ => None,
    }
}
