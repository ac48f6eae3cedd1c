//! `SELECT count(*) FROM <UNION ALL of plain arms>` (a subquery or a
//! view) as SQLite's count-of-view optimization computes it: the sum of
//! one `(SELECT count(*) FROM <arm's FROM>)` per arm, each of which is
//! then a B-tree count (`simple_count.rs`) instead of a scan of every
//! row of every arm.
//!
//! The shape is SQLite's (`countOfViewOptimization`): the query's only
//! result column is `count(*)`; it has no WHERE, GROUP BY, HAVING,
//! window or ORDER BY and one FROM item, a subquery or a view (not a
//! CTE); that is a compound of UNION ALL only, without LIMIT, each arm a
//! SELECT without WHERE, GROUP BY, HAVING, DISTINCT or aggregate. Left
//! to the ordinary plan here (the answer is the same): arms that are
//! VALUES, a compound with ORDER BY or a WITH of its own, and views
//! outside `main`.
//!
//! SQLite builds the sum wherever it has that shape (VALUES arms, ORDER
//! BY and views of any schema included), once every name of the
//! statement is resolved, and the sum is an expression as high as the
//! arms are many: past `SQLITE_LIMIT_EXPR_DEPTH` it is "Expression tree
//! is too large" ([`Compiler::count_of_view_height`]; a multi-row VALUES
//! is as many arms as SQLite makes of it, `parse_limits::values_arms`),
//! which the statement fails with once compiled
//! (`StatementState::codegen_error`).

use crate::error::{Error, Result};
use crate::sql::codegen::Compiler;
use crate::sql::parse::{ast_text, unquoted};
use crate::util::ascii::AsciiLower;
use sqlite3_parser::ast::{self, CompoundOperator, Expr, FromClause, OneSelect, ResultColumn, Select, SelectTable};

impl Compiler<'_> {
    /// The rewritten statement for `sel` when it has the shape (see the
    /// module doc), or `None`: `SELECT <sum> [AS name]` (its LIMIT stays
    /// the caller's). `named`: the result column keeps the name it is
    /// written with (a query whose names come from the statement's text
    /// needs none).
    pub(in crate::sql::codegen) fn count_of_view_text(&self, sel: &Select<'_>, named: bool) -> Result<Option<String>> {
        if sel.order_by.is_some() || sel.body.compounds.as_ref().is_some_and(|c| !c.is_empty()) {
            return Ok(None);
        }
        let OneSelect::Select {
            distinctness: None,
            columns: [ResultColumn::Expr(Expr::FunctionCallStar { name, filter_over: None }, alias)],
            from: Some(from),
            where_clause: None,
            group_by: None,
            having: None,
            window_clause: None,
        } = &sel.body.select
        else {
            return Ok(None);
        };
        if !unquoted(name.0).eq_ci("count") || from.joins.as_ref().is_some_and(|j| !j.is_empty()) {
            return Ok(None);
        }
        let mut text = String::from("SELECT ");
        let column_name = match alias {
            Some(ast::As::As(n) | ast::As::Elided(n)) => Some(unquoted(n.0).to_string()),
            None if named => Some(format!("{}(*)", name.0)),
            None => None,
        };
        match from.select {
            Some(SelectTable::Select(sub, _)) => {
                if !self.append_arm_counts(sub, &mut text) {
                    return Ok(None);
                }
            }
            Some(SelectTable::Table(qn, _, None)) if qn.db_name.is_none() => {
                let name = unquoted(qn.name.0);
                let is_cte = self.frame.ctes.iter().any(|level| level.contains_key(&name.ascii_lower()));
                let view = self.env.schema.table_in(Some(0), &name).filter(|_| self.env.schema.table_in(Some(1), &name).is_none());
                // (Views refused: the ordinary path says so.)
                let enabled = self.env.settings.enable_view;
                let Some(view_sql) = view.and_then(|t| t.view_select.as_deref()).filter(|_| !is_cte && enabled) else { return Ok(None) };
                let fits = crate::sql::parse::with_first_statement(view_sql.as_bytes(), |cmd, _| match cmd {
                    Some(ast::Cmd::Stmt(ast::Stmt::Select(sub))) => Ok(self.append_arm_counts(sub, &mut text)),
                    _ => Ok(false),
                })
                .map_err(|_| Error::sql("malformed view"));
                if !fits.unwrap_or(false) {
                    return Ok(None);
                }
            }
            _ => return Ok(None),
        }
        if let Some(n) = column_name {
            text.push_str(&format!(" AS \"{}\"", n.replace('"', "\"\"")));
        }
        Ok(Some(text))
    }

    /// The height of the sum SQLite's count-of-view optimization makes of
    /// `sel` (see the module doc), `None` when it does not apply: one
    /// `(SELECT count(*) ...)` of height 2 per arm (the last one's holds
    /// the compound's ORDER BY, its terms turned into column numbers under
    /// their COLLATEs), added from the right, each `+` one higher.
    pub(in crate::sql::codegen) fn count_of_view_height(&self, sel: &Select<'_>) -> Option<usize> {
        if sel.order_by.is_some() || sel.body.compounds.as_ref().is_some_and(|c| !c.is_empty()) {
            return None;
        }
        let OneSelect::Select {
            columns: [ResultColumn::Expr(e, _)],
            from: Some(from),
            where_clause: None,
            group_by: None,
            having: None,
            window_clause: None,
            ..
        } = &sel.body.select
        else {
            return None;
        };
        if !is_count_star(e) || from.joins.as_ref().is_some_and(|j| !j.is_empty()) {
            return None;
        }
        match from.select {
            Some(SelectTable::Select(sub, _)) => self.arms_height(sub, false),
            Some(SelectTable::Table(qn, _, None)) => {
                let name = unquoted(qn.name.0);
                let db = match &qn.db_name {
                    Some(d) => Some(self.db_index(&unquoted(d.0))?),
                    None if self.frame.ctes.iter().any(|level| level.contains_key(&name.ascii_lower())) => return None,
                    None => self.names.home_db,
                };
                let view_sql = self.env.schema.table_in(db, &name)?.view_select.as_deref()?;
                // (A view's body was parsed as the schema was read.)
                crate::sql::parse::with_first_statement(view_sql.as_bytes(), |cmd, _| match cmd {
                    Some(ast::Cmd::Stmt(ast::Stmt::Select(sub))) => Ok(self.arms_height(sub, true)),
                    _ => Ok(None),
                })
                .ok()
                .flatten()
            }
            _ => None,
        }
    }

    /// [`Self::count_of_view_height`] of the compound `sub`; `stored`: its
    /// text was parsed from the schema.
    fn arms_height(&self, sub: &Select<'_>, stored: bool) -> Option<usize> {
        let compounds = sub.body.compounds.as_deref().unwrap_or(&[]);
        if sub.limit.is_some() || compounds.iter().any(|c| c.operator != CompoundOperator::UnionAll) {
            return None;
        }
        // (A multi-row VALUES parsed after a WITH, or from the schema, is
        // always a compound of its rows.)
        let rows_apart = stored || sub.with.is_some() || !self.frame.ctes.is_empty() || !self.dml.firing.is_empty();
        let funcs = self.env.funcs;
        let constant: crate::sql::parse_limits::ConstantFn<'_> = &|name: &str, n: usize| funcs.is_constant_call(name, n);
        // Each arm becomes `SELECT count(*) FROM <its FROM>`, itself
        // coded the same way when that FROM is one compound subquery: the
        // highest sum of those (`nested`).
        let (mut arms, mut nested) = (0usize, 0usize);
        for (k, arm) in std::iter::once(&sub.body.select).chain(compounds.iter().map(|c| &c.select)).enumerate() {
            match arm {
                OneSelect::Select { distinctness, columns, from, where_clause: None, group_by: None, having: None, .. } => {
                    if matches!(distinctness, Some(ast::Distinctness::Distinct)) || self.arm_has_aggregate(columns) {
                        return None;
                    }
                    arms += 1;
                    if let Some(f) = from.as_ref().filter(|f| f.joins.as_ref().is_none_or(|j| j.is_empty())) {
                        if let Some(SelectTable::Select(inner, _)) = f.select {
                            nested = nested.max(self.arms_height(inner, stored).unwrap_or(0));
                        }
                    }
                }
                OneSelect::Select { .. } => return None,
                // (A VALUES list after the first arm is one arm, `SELECT *
                // FROM (<its rows>)` when SQLite makes its rows a compound,
                // whose count is a sum again.)
                OneSelect::Values(rows) if k > 0 => {
                    arms += 1;
                    let rows = crate::sql::parse_limits::values_arms(rows, rows_apart, Some(constant));
                    if rows > 1 {
                        nested = nested.max(rows + 1);
                    }
                }
                OneSelect::Values(rows) => arms += crate::sql::parse_limits::values_arms(rows, rows_apart, Some(constant)),
            }
        }
        if arms < 2 {
            return None;
        }
        let order = sub.order_by.iter().flat_map(|o| o.iter()).map(|t| collates_over(&t.expr) + 1).max().unwrap_or(0);
        Some((2usize.max(order + 1) + (arms - 1)).max(nested))
    }

    /// Append `(SELECT count(*) FROM ...) + ...` for the arms of `sub`;
    /// `false` when it is not a compound of plain UNION ALL arms.
    fn append_arm_counts(&self, sub: &Select<'_>, text: &mut String) -> bool {
        let Some(compounds) = sub.body.compounds.as_ref().filter(|c| !c.is_empty()) else { return false };
        if sub.with.is_some() || sub.order_by.is_some() || sub.limit.is_some() || compounds.iter().any(|c| c.operator != CompoundOperator::UnionAll) {
            return false;
        }
        let arms = std::iter::once(&sub.body.select).chain(compounds.iter().map(|c| &c.select));
        let mut terms = Vec::with_capacity(compounds.len() + 1);
        for arm in arms {
            let OneSelect::Select { distinctness, columns, from, where_clause: None, group_by: None, having: None, window_clause: None } = arm else {
                return false;
            };
            if matches!(distinctness, Some(ast::Distinctness::Distinct)) || self.arm_has_aggregate(columns) {
                return false;
            }
            terms.push(match from {
                Some(f) => format!("(SELECT count(*) FROM {})", from_text(f)),
                None => "(SELECT count(*))".to_string(),
            });
        }
        text.push_str(&terms.join(" + "));
        true
    }

    fn arm_has_aggregate(&self, columns: &[ResultColumn<'_>]) -> bool {
        columns.iter().any(|c| match c {
            ResultColumn::Expr(e, _) => {
                let mut found = false;
                crate::sql::model::expr_shape::walk(e, &mut |x| {
                    found = found || crate::sql::codegen::is_aggregate_call(self, x);
                    !found
                });
                found
            }
            _ => false,
        })
    }
}

/// `count(*)` or `count()`, as SQLite's optimization recognises it (no
/// FILTER or OVER; parentheses make no node).
fn is_count_star(e: &Expr<'_>) -> bool {
    match e {
        Expr::Parenthesized(v) if v.len() == 1 => is_count_star(&v[0]),
        Expr::FunctionCallStar { name, filter_over: None } => unquoted(name.0).eq_ci("count"),
        Expr::FunctionCall { name, distinctness: None, args, order_by: None, filter_over: None } => {
            args.is_none_or(|a| a.is_empty()) && unquoted(name.0).eq_ci("count")
        }
        _ => false,
    }
}

/// How many COLLATE nodes stand over `e` (under parentheses).
fn collates_over(e: &Expr<'_>) -> usize {
    let mut n = 0;
    let mut e = e;
    loop {
        match e {
            Expr::Parenthesized(v) if v.len() == 1 => e = &v[0],
            Expr::Collate(x, _) => {
                n += 1;
                e = x;
            }
            _ => return n,
        }
    }
}

fn from_text(f: &FromClause<'_>) -> String {
    ast_text(f)
}
