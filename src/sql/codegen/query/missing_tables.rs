//! Tables named in the subqueries of an expression that do not exist.
//!
//! SQLite expands the FROM clauses of a whole statement, those of the
//! subqueries in its expressions included, before it resolves any name:
//! "no such table" in a subquery of a compound's ORDER BY term (even in a
//! window definition there) comes before "ORDER BY term does not match any
//! column". This finds the first such name the way the compound arms' own
//! check does (`compound::check_arm_tables_exist`): plain table names only;
//! a name that may be a CTE, a schema table, a pragma or an eponymous table
//! is left to the compile, which errs towards no report.

use crate::sql::codegen::Compiler;
use crate::sql::model::expr_shape::{walk, window_spec_exprs};
use crate::util::ascii::AsciiLower;
use sqlite3_parser::ast::{self, Expr, OneSelect, ResultColumn, Select, SelectTable};

impl Compiler<'_> {
    /// The first missing table named in a subquery of `e`, if any.
    pub(in crate::sql::codegen) fn missing_table_in_expr(&self, e: &Expr<'_>) -> Option<String> {
        let mut subqueries: Vec<&Select<'_>> = Vec::new();
        let mut specs: Vec<&Expr<'_>> = Vec::new();
        walk(e, &mut |x| {
            specs.extend(window_spec_exprs(x));
            if let Expr::Subquery(s) | Expr::Exists(s) | Expr::InSelect { rhs: s, .. } = x {
                subqueries.push(s);
            }
            true
        });
        specs
            .into_iter()
            .find_map(|x| self.missing_table_in_expr(x))
            .or_else(|| subqueries.into_iter().find_map(|s| self.missing_table_in_select(s, &mut Vec::new())))
    }

    /// `ctes`: the CTE names the WITH clauses around `sel` define.
    fn missing_table_in_select(&self, sel: &Select<'_>, ctes: &mut Vec<String>) -> Option<String> {
        let depth = ctes.len();
        if let Some(w) = &sel.with {
            ctes.extend(w.ctes.iter().map(|c| crate::sql::parse::unquote(c.tbl_name.0)));
            for c in w.ctes.iter() {
                if let Some(m) = self.missing_table_in_select(c.select, ctes) {
                    ctes.truncate(depth);
                    return Some(m);
                }
            }
        }
        let arms: Vec<&OneSelect<'_>> = std::iter::once(&sel.body.select).chain(sel.body.compounds.iter().flat_map(|c| c.iter().map(|c| &c.select))).collect();
        let mut found = None;
        for arm in arms.into_iter().rev() {
            found = self.missing_table_in_arm(arm, ctes);
            if found.is_some() {
                break;
            }
        }
        if found.is_none() {
            found = sel.order_by.iter().flat_map(|o| o.iter()).find_map(|t| self.missing_table_in_expr(&t.expr));
        }
        ctes.truncate(depth);
        found
    }

    fn missing_table_in_arm(&self, arm: &OneSelect<'_>, ctes: &mut Vec<String>) -> Option<String> {
        let OneSelect::Select { columns, from, where_clause, group_by, having, window_clause, .. } = arm else { return None };
        if let Some(from) = from {
            for t in from.select.into_iter().chain(from.joins.iter().flat_map(|j| j.iter().map(|j| &j.table))) {
                match t {
                    SelectTable::Table(qn, _, _) if qn.db_name.is_none() => {
                        let name = crate::sql::parse::unquote(qn.name.0);
                        if !self.may_exist(&name, ctes) {
                            return Some(name);
                        }
                    }
                    SelectTable::Select(s, _) => {
                        if let Some(m) = self.missing_table_in_select(s, ctes) {
                            return Some(m);
                        }
                    }
                    // (A parenthesized join: left to the compile.)
                    _ => {}
                }
            }
        }
        let mut exprs: Vec<&Expr<'_>> = columns
            .iter()
            .filter_map(|c| match c {
                ResultColumn::Expr(x, _) => Some(x),
                _ => None,
            })
            .collect();
        exprs.extend(where_clause.iter().copied());
        exprs.extend(group_by.iter().flat_map(|g| g.iter()));
        exprs.extend(having.iter().copied());
        for w in window_clause.iter().flat_map(|w| w.iter()) {
            exprs.extend(w.window.partition_by.iter().flat_map(|p| p.iter()));
            exprs.extend(w.window.order_by.iter().flat_map(|o| o.iter().map(|t| &t.expr)));
        }
        exprs.into_iter().find_map(|x| self.missing_table_in_expr(x))
    }

    /// The first plain table of `from` that does not exist, when a
    /// subquery comes before it: SQLite expands a FROM clause's tables
    /// before its subqueries (whose name errors would otherwise come
    /// first here).
    pub(in crate::sql::codegen) fn missing_table_after_subquery(&self, from: &ast::FromClause<'_>) -> Option<String> {
        let mut subquery_before = false;
        for t in from.select.into_iter().chain(from.joins.iter().flat_map(|j| j.iter().map(|j| &j.table))) {
            match t {
                SelectTable::Select(..) => subquery_before = true,
                SelectTable::Table(qn, _, _) if subquery_before && qn.db_name.is_none() => {
                    let name = crate::sql::parse::unquote(qn.name.0);
                    if !self.may_exist(&name, &[]) {
                        return Some(name);
                    }
                }
                _ => {}
            }
        }
        None
    }

    /// Whether `name` may name something a FROM item can read: a table
    /// or view of the schema, a CTE, a schema table, a pragma or an
    /// eponymous table (or anything this check does not know).
    fn may_exist(&self, name: &str, ctes: &[String]) -> bool {
        let lower = name.ascii_lower();
        lower.starts_with("sqlite_")
            || lower.starts_with("pragma_")
            || matches!(lower.as_str(), "json_each" | "json_tree" | "jsonb_each" | "jsonb_tree" | "dbstat" | "fts5vocab" | "fts3tokenize" | "generate_series")
            || ctes.iter().any(|c| c.eq_ci(name))
            || self.cte(name).is_some()
            || self.frame.recursive.iter().any(|r| r.name.eq_ci(name))
            || self.env.schema.table_in(self.names.home_db, name).is_some()
            || self.env.schema.table_in(None, name).is_some()
    }
}
