//! `X IS NULL` / `X IS NOT NULL` (any spelling: `ISNULL`, `NOTNULL`,
//! `NOT NULL`, `IS (NULL)`) folded to `0` / `1` where SQLite 3.54.1 folds
//! them: inside the WHERE clause and ON clauses of a loop nest (subqueries
//! aside, which fold their own), when `X` (parentheses and COLLATE aside)
//! names a NOT NULL column, the rowid or the INTEGER PRIMARY KEY of a
//! table the loop nest never NULL-fills: not the right table of a LEFT
//! JOIN that outer-join reduction kept, nor a table of a join with RIGHT
//! or FULL JOIN up to that join. A column of an outer query counts as its
//! loop nest registered it. Result columns, ORDER BY, window and FILTER
//! clauses keep the test, as on SQLite (it shows on a file whose NOT NULL
//! column holds a NULL: `SELECT a IS NULL` is 1, `WHERE a IS NULL` finds
//! nothing). A folded WHERE term reads no table, so it is tested once
//! before the loops: `WHERE d IS NULL` on a NOT NULL `d` runs no loop.
//!
//! Invariant: a node is folded only when both its address and its
//! operand's address are the recorded ones (a temporary expression built
//! later at a reused address is not mistaken for it), and only while the
//! statement that recorded it compiles (checked: null_fold_recorded_node).

use crate::sql::codegen::Compiler;
use crate::sql::model::expr_shape::{strip_parens, walk};
use crate::sql::model::from::{FromItem, JoinTerm};
use crate::sql::parse::unquoted;
use crate::util::ascii::AsciiLower;
use sqlite3_parser::ast::{self, Expr, Operator};
use std::sync::Arc;

fn address(e: &Expr<'_>) -> usize {
    e as *const Expr<'_> as usize
}

/// The operand of a NULL test and the value it folds to (0 for IS NULL).
fn null_test<'x, 'y>(e: &'x Expr<'y>) -> Option<(&'x Expr<'y>, i64)> {
    let is_null = |x: &Expr<'_>| matches!(strip_parens(x), Expr::Literal(ast::Literal::Null));
    match e {
        Expr::IsNull(x) => Some((x, 0)),
        Expr::NotNull(x) => Some((x, 1)),
        Expr::Binary(x, Operator::Is, n) if is_null(n) => Some((x, 0)),
        Expr::Binary(x, Operator::IsNot, n) if is_null(n) => Some((x, 1)),
        _ => None,
    }
}

/// `e` without parentheses and COLLATE clauses around it.
fn bare<'x, 'y>(mut e: &'x Expr<'y>) -> &'x Expr<'y> {
    loop {
        match strip_parens(e) {
            Expr::Collate(x, _) => e = x,
            x => return x,
        }
    }
}

impl Compiler<'_> {
    /// Register the tables of `items` no NULL row of this loop nest
    /// reaches, then record each NULL test of `terms` and of the items'
    /// ON clauses that reads a NOT NULL column of a registered table (see
    /// the module doc). `last_right`: the item of the last RIGHT or FULL
    /// JOIN.
    pub(in crate::sql::codegen) fn fold_null_tests(&mut self, items: &[FromItem<'_, '_>], terms: &[&Expr<'_>], last_right: Option<usize>) {
        for (i, it) in items.iter().enumerate() {
            // (Not a virtual table's: what its module is offered stays
            // as it was.)
            let null_filled = it.left || last_right.is_some_and(|k| i <= k) || it.vtab.is_some();
            if let (Some(t), false) = (&it.table, null_filled) {
                self.select.null_fold_tables.push((it.cursor, Arc::clone(t)));
            }
        }
        if self.select.null_fold_tables.is_empty() {
            return;
        }
        let mut found: Vec<(usize, usize, i64)> = Vec::new();
        let mut all: Vec<&Expr<'_>> = terms.to_vec();
        for it in items {
            for j in &it.on {
                if let JoinTerm::Expr(e) = j {
                    all.push(e);
                }
            }
        }
        for t in all {
            let mut here: Vec<(&Expr<'_>, &Expr<'_>, i64)> = Vec::new();
            walk(t, &mut |x| {
                if let Some((operand, value)) = null_test(x) {
                    here.push((x, operand, value));
                }
                true
            });
            for (node, operand, value) in here {
                if self.never_null_column(bare(operand)) {
                    found.push((address(node), address(operand), value));
                }
            }
        }
        if found.is_empty() {
            return;
        }
        self.select.null_folds.extend(found);
        // (Terms' table dependencies were read before the folds.)
        if let Some(m) = self.names.name_memo.as_mut() {
            m.deps.clear();
        }
    }

    /// Whether `e` names a column that is never NULL in a registered table.
    fn never_null_column(&mut self, e: &Expr<'_>) -> bool {
        let found = match e {
            Expr::Id(id) => self.resolve_name(None, &unquoted(id.0)),
            Expr::Qualified(q, c) => self.resolve_name(Some(&unquoted(q.0)), &unquoted(c.0)),
            Expr::DoublyQualified(d, q, c) => match self.db_index(&unquoted(d.0)) {
                Some(db) => crate::sql::resolve::resolve_in(&mut self.names.scopes, Some(db), Some(&unquoted(q.0)), &unquoted(c.0)),
                None => return false,
            },
            _ => return false,
        };
        let Ok(Some(r)) = found else { return false };
        let Some((_, t)) = self.select.null_fold_tables.iter().rev().find(|(c, _)| *c == r.cursor) else { return false };
        // (The name must reach that very table: a cursor number of another
        // program, a trigger's NEW and OLD rows, are not it.)
        let scopes = &self.names.scopes;
        let same = scopes.len().checked_sub(1 + r.depth).and_then(|i| scopes[i].items.get(r.item)).is_some_and(|it| it.db == t.db && it.table.eq_ci(&t.name));
        if !same {
            return false;
        }
        match r.column {
            None => true,
            Some(c) => t.rowid_alias == Some(c) || t.columns.get(c).is_some_and(|col| col.not_null),
        }
    }

    /// The integer a recorded NULL test folds to (see the module doc).
    pub(in crate::sql::codegen) fn null_fold(&self, e: &Expr<'_>) -> Option<i64> {
        if self.select.null_folds.is_empty() {
            return None;
        }
        let (operand, value) = null_test(e)?;
        let (a, o) = (address(e), address(operand));
        let folded = self.select.null_folds.iter().find(|(n, op, _)| *n == a && *op == o)?.2;
        // (A node found at the recorded addresses is the test recorded.)
        // invariant: null_fold_recorded_node
        debug_assert_eq!(folded, value, "a NULL test folded from another node's record");
        Some(folded)
    }
}
