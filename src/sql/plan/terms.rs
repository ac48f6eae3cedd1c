//! WHERE terms: the conjuncts of a boolean expression and the shape of a
//! term that can drive a lookup (`column op expression`).

use sqlite3_parser::ast::{self, Expr, Operator};

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

/// A comparison operator usable by a lookup.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LookupOp {
    /// `=` (or IS).
    Eq,
    /// `<`.
    Lt,
    /// `<=`.
    Le,
    /// `>`.
    Gt,
    /// `>=`.
    Ge,
}

impl LookupOp {
    /// From an AST operator.
    pub fn from_op(op: Operator) -> Option<LookupOp> {
        Some(match op {
            Operator::Equals => LookupOp::Eq,
            Operator::Less => LookupOp::Lt,
            Operator::LessEquals => LookupOp::Le,
            Operator::Greater => LookupOp::Gt,
            Operator::GreaterEquals => LookupOp::Ge,
            _ => return None,
        })
    }

    /// The operator with its operands swapped (`5 > a` is `a < 5`).
    pub fn swapped(self) -> LookupOp {
        match self {
            LookupOp::Eq => LookupOp::Eq,
            LookupOp::Lt => LookupOp::Gt,
            LookupOp::Le => LookupOp::Ge,
            LookupOp::Gt => LookupOp::Lt,
            LookupOp::Ge => LookupOp::Le,
        }
    }
}

/// A term `item.column op expr` where `expr` does not depend on `item`.
#[derive(Debug, Clone)]
pub struct LookupTerm<'a, 'b> {
    /// FROM item index.
    pub item: usize,
    /// Column (`None` for the rowid).
    pub column: Option<usize>,
    /// Operator with the column on the left.
    pub op: LookupOp,
    /// The other side.
    pub expr: &'a Expr<'b>,
    /// FROM items the other side needs (bit mask).
    pub expr_deps: u64,
}

/// The column a name node refers to: `(qualifier, column)` for `c`,
/// `t.c` and `db.t.c` (the database name is not needed to resolve it);
/// `None` for any other node.
pub fn column_name(e: &Expr<'_>) -> Option<(Option<String>, String)> {
    use crate::sql::parse::unquote;
    match e {
        Expr::Id(id) => Some((None, unquote(id.0))),
        Expr::Qualified(t, c) | Expr::DoublyQualified(_, t, c) => Some((Some(unquote(t.0)), unquote(c.0))),
        _ => None,
    }
}

/// The column names `e` reads (see [`column_name`]), in visiting order,
/// not entering subqueries.
pub fn column_names(e: &Expr<'_>) -> Vec<(Option<String>, String)> {
    let mut names = Vec::new();
    walk(e, &mut |x| {
        names.extend(column_name(x));
        true
    });
    names
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
