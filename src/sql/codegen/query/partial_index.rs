//! When a partial index may drive a loop: its rows are the table's rows
//! for which its WHERE clause is true, so a loop may read the index
//! instead of the table only when the query's own terms imply that
//! clause (`partialindex.txt`, "Queries Using Partial Indexes").
//!
//! The test is SQLite's: every AND-term of the index's WHERE clause must
//! be implied by one term of the query that reads only this table. A
//! term implies a condition when it is the same expression (compared in
//! the normal form of `index_expr.rs`: the table's qualifier dropped,
//! identifiers and keywords in one case), when the condition is an OR one
//! of whose sides it implies, or when the condition is `x IS NOT NULL`
//! and the term is a comparison that can only be true for a non-NULL `x`
//! (`x > 5`, `x = ?`, `x BETWEEN ...`, `x IN (...)`, `x LIKE ...`, also
//! through arithmetic on `x`). For the right table of an outer join only
//! its ON terms count: WHERE terms are tested after the row may have been
//! made NULL. UPDATE and DELETE ask the same of their WHERE clause when
//! they name a partial index in INDEXED BY.
//!
//! Invariant: `partial_index_usable` is true only if every row the
//! query's terms accept is in the index; false loses a plan, never a row.

use crate::error::{Error, Result};
use crate::sql::codegen::expr::index_expr::normal_form;
use crate::sql::codegen::Compiler;
use crate::sql::model::expr_shape::{conjuncts, has_subquery};
use crate::sql::model::from::{FromItem, JoinTerm};
use crate::sql::schema::{Index, Table};
use crate::util::ascii::AsciiLower;
use sqlite3_parser::ast::{Expr, Operator, UnaryOperator};

/// A query term that reads only the item, in normal form.
struct Term<'e, 'b> {
    expr: &'e Expr<'b>,
    normal: String,
}

impl Compiler<'_> {
    /// The indexes that may drive FROM item `it`'s loop: none under NOT
    /// INDEXED, only the named one under INDEXED BY, and partial ones only
    /// where `terms` imply their WHERE clause. INDEXED BY a partial index
    /// the terms do not imply leaves no plan: SQLite's "no query solution".
    pub fn loop_indexes(&mut self, it: &FromItem<'_, '_>, table: &Table, terms: &[&Expr<'_>]) -> Result<Vec<Index>> {
        let named: Vec<Index> = self
            .env
            .schema
            .indexes_of(table)
            .into_iter()
            .filter(|i| match &it.index_hint {
                None => true,
                Some(None) => false,
                Some(Some(n)) => i.name.eq_ci(n),
            })
            .cloned()
            .collect();
        let mut usable = Vec::with_capacity(named.len());
        for idx in named {
            if self.partial_index_usable(it, &idx, terms) {
                usable.push(idx);
            } else if matches!(it.index_hint, Some(Some(_))) {
                return Err(Error::sql("no query solution"));
            }
        }
        Ok(usable)
    }

    /// Whether `idx` (partial or not) may drive the loop of FROM item `it`
    /// under the query terms `terms`.
    pub fn partial_index_usable(&mut self, it: &FromItem<'_, '_>, idx: &Index, terms: &[&Expr<'_>]) -> bool {
        let Some(where_sql) = &idx.where_sql else { return true };
        let item_name = self.names.scopes.last().map(|s| s.items[it.item].name.clone()).unwrap_or_default();
        let me = 1u64 << it.item.min(63);
        // The right table of an outer join: only its ON terms hold for
        // every row read from it.
        let mut on_terms = Vec::new();
        if it.left {
            for j in &it.on {
                if let JoinTerm::Expr(e) = j {
                    conjuncts(e, &mut on_terms);
                }
            }
        }
        let candidates: Vec<&Expr<'_>> = if it.left { on_terms } else { terms.to_vec() };
        let mine: Vec<&Expr<'_>> = candidates.into_iter().filter(|t| self.expr_deps(t) == me).collect();
        where_implied(where_sql, &mine, &item_name)
    }
}

/// Whether the query terms `terms` (each reading only the table called
/// `item_name` in the query) imply a partial index's WHERE clause.
pub(crate) fn where_implied(where_sql: &str, terms: &[&Expr<'_>], item_name: &str) -> bool {
    let mine: Vec<Term> = terms.iter().filter(|t| !has_subquery(t)).map(|t| Term { expr: t, normal: normal_form(&t.to_string(), Some(item_name)) }).collect();
    if mine.is_empty() {
        return false;
    }
    crate::sql::parse::with_expr(where_sql, |w| {
        let mut conditions = Vec::new();
        conjuncts(w, &mut conditions);
        Ok(conditions.iter().all(|c| mine.iter().any(|t| implies(t, c, item_name))))
    })
    .unwrap_or(false)
}

/// Whether the query term implies the index condition `cond`.
fn implies(term: &Term<'_, '_>, cond: &Expr<'_>, item_name: &str) -> bool {
    if term.normal == normal_form(&cond.to_string(), None) {
        return true;
    }
    match cond {
        Expr::Parenthesized(v) if v.len() == 1 => implies(term, &v[0], item_name),
        Expr::Binary(l, Operator::Or, r) => implies(term, l, item_name) || implies(term, r, item_name),
        Expr::NotNull(x) | Expr::Binary(x, Operator::IsNot, Expr::Literal(sqlite3_parser::ast::Literal::Null)) => {
            let want = normal_form(&x.to_string(), None);
            implies_not_null(term.expr, &want, item_name)
        }
        _ => false,
    }
}

/// Whether `e` being true requires the expression whose normal form is
/// `want` to be non-NULL.
fn implies_not_null(e: &Expr<'_>, want: &str, item_name: &str) -> bool {
    use Operator::*;
    match e {
        Expr::Parenthesized(v) if v.len() == 1 => implies_not_null(&v[0], want, item_name),
        Expr::Binary(l, op, r) => match op {
            Equals | NotEquals | Less | LessEquals | Greater | GreaterEquals => operand_needs(l, want, item_name) || operand_needs(r, want, item_name),
            _ => false,
        },
        Expr::Between { lhs, not: false, start, end } => [lhs, start, end].iter().any(|x| operand_needs(x, want, item_name)),
        // (Not `x IN ((SELECT ...))`: IN a subquery.)
        Expr::InList { lhs, not: false, rhs: Some(list) } if !list.is_empty() && crate::sql::model::expr_shape::in_list_subquery(list).is_none() => {
            operand_needs(lhs, want, item_name)
        }
        Expr::Like { lhs, not: false, escape: None, .. } => operand_needs(lhs, want, item_name),
        _ => false,
    }
}

/// Whether the operand `e` of a comparison is NULL whenever the
/// expression `want` is (it is that expression, or arithmetic on it).
fn operand_needs(e: &Expr<'_>, want: &str, item_name: &str) -> bool {
    use Operator::*;
    if normal_form(&e.to_string(), Some(item_name)) == want {
        return true;
    }
    match e {
        Expr::Parenthesized(v) if v.len() == 1 => operand_needs(&v[0], want, item_name),
        Expr::Binary(l, Add | Subtract | Multiply | Divide | Modulus | BitwiseAnd | BitwiseOr | LeftShift | RightShift | Concat, r) => {
            operand_needs(l, want, item_name) || operand_needs(r, want, item_name)
        }
        Expr::Unary(UnaryOperator::Negative | UnaryOperator::Positive | UnaryOperator::BitwiseNot, x) | Expr::Collate(x, _) => {
            operand_needs(x, want, item_name)
        }
        _ => false,
    }
}
