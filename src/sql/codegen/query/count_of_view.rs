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
//! SELECT without WHERE, GROUP BY, HAVING, DISTINCT or aggregate. Also
//! as in SQLite, the sum is an expression as high as the arms are many:
//! past `SQLITE_LIMIT_EXPR_DEPTH` arms it is "Expression tree is too
//! large". Left to the ordinary plan here (the answer is the same): arms
//! that are VALUES, a compound with ORDER BY or a WITH of its own, and
//! views outside `main`.

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
        let arms = text.matches("(SELECT count(*)").count();
        // (The sum's height: one node per arm over the subquery's two.)
        if arms + 1 > self.env.max_expr_depth {
            return Err(Error::sql(format!("Expression tree is too large (maximum depth {})", self.env.max_expr_depth)));
        }
        if let Some(n) = column_name {
            text.push_str(&format!(" AS \"{}\"", n.replace('"', "\"\"")));
        }
        Ok(Some(text))
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

fn from_text(f: &FromClause<'_>) -> String {
    ast_text(f)
}
