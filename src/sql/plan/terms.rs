//! WHERE terms: the conjuncts of a boolean expression and the shape of a
//! term that can drive a lookup (`column op expression`).

use crate::sql::model::expr_shape::walk;
use sqlite3_parser::ast::{Expr, Operator};

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
