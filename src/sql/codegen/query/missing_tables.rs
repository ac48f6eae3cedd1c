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
        self.missing_table_in_expr_under(e, &mut Vec::new())
    }

    /// [`Compiler::missing_table_in_expr`] inside the WITH clauses that
    /// define `ctes` (a subquery of a CTE's consumer sees its names).
    fn missing_table_in_expr_under(&self, e: &Expr<'_>, ctes: &mut Vec<String>) -> Option<String> {
        let mut subqueries: Vec<&Select<'_>> = Vec::new();
        let mut specs: Vec<&Expr<'_>> = Vec::new();
        let mut in_tables: Vec<String> = Vec::new();
        walk(e, &mut |x| {
            specs.extend(window_spec_exprs(x));
            match x {
                Expr::Subquery(s) | Expr::Exists(s) | Expr::InSelect { rhs: s, .. } => subqueries.push(s),
                // (`x IN t` and `x IN f(...)` are SQLite's `x IN (SELECT *
                // FROM t)`: a table the expansion looks up.)
                Expr::InTable { rhs, .. } if rhs.db_name.is_none() => in_tables.push(crate::sql::parse::unquote(rhs.name.0)),
                _ => {}
            }
            true
        });
        if let Some(m) = specs.into_iter().find_map(|x| self.missing_table_in_expr_under(x, ctes)) {
            return Some(m);
        }
        if let Some(m) = in_tables.into_iter().find(|t| !self.may_exist(t, ctes)) {
            return Some(m);
        }
        subqueries.into_iter().find_map(|s| self.missing_table_in_select(s, ctes))
    }

    /// `ctes`: the CTE names the WITH clauses around `sel` define.
    /// (One recursion per nested subquery, each on a stack grown as the
    /// compile's are: `with_stack`.)
    fn missing_table_in_select(&self, sel: &Select<'_>, ctes: &mut Vec<String>) -> Option<String> {
        crate::sql::parse::with_stack(|| self.missing_table_in_select_here(sel, ctes))
    }

    fn missing_table_in_select_here(&self, sel: &Select<'_>, ctes: &mut Vec<String>) -> Option<String> {
        let depth = ctes.len();
        // (A CTE's body is expanded where a FROM clause names it, never if
        // none does: left to the compile.)
        if let Some(w) = &sel.with {
            ctes.extend(w.ctes.iter().map(|c| crate::sql::parse::unquote(c.tbl_name.0)));
        }
        let arms: Vec<&OneSelect<'_>> = std::iter::once(&sel.body.select).chain(sel.body.compounds.iter().flat_map(|c| c.iter().map(|c| &c.select))).collect();
        let mut found = None;
        // (The last arm is walked first, with the compound's ORDER BY and
        // LIMIT, as SQLite's tree holds them.)
        for (k, arm) in arms.into_iter().rev().enumerate() {
            let tail = if k == 0 { (sel.order_by, sel.limit) } else { (None, None) };
            found = self.missing_table_in_arm(arm, tail.0, tail.1, ctes);
            if found.is_some() {
                break;
            }
        }
        ctes.truncate(depth);
        found
    }

    /// The first missing table of `arm` (with the ORDER BY and LIMIT that
    /// follow it) in the order SQLite's expansion meets them: its FROM
    /// clause (a subquery there expanded in its place), a `TABLE.*` of its
    /// result list naming no FROM item, then the subqueries of its result
    /// list, WHERE with the ON clauses, GROUP BY, HAVING, ORDER BY, LIMIT
    /// and WINDOW clause.
    fn missing_table_in_arm(
        &self,
        arm: &OneSelect<'_>,
        order_by: Option<&[ast::SortedColumn<'_>]>,
        limit: Option<&ast::Limit<'_>>,
        ctes: &mut Vec<String>,
    ) -> Option<String> {
        let OneSelect::Select { columns, from, where_clause, group_by, having, window_clause, .. } = arm else { return None };
        let mut ons: Vec<&Expr<'_>> = Vec::new();
        if let Some(from) = from {
            let joins = from.joins.iter().flat_map(|j| j.iter());
            ons.extend(joins.clone().filter_map(|j| match &j.constraint {
                Some(ast::JoinConstraint::On(e)) => Some(e),
                _ => None,
            }));
            let tables: Vec<&SelectTable<'_>> = from.select.into_iter().chain(joins.map(|j| &j.table)).collect();
            for t in &tables {
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
            // (An unaliased parenthesized join names the tables inside it:
            // left to the compile.)
            let named = |q: &str| {
                tables.iter().any(|t| match t {
                    SelectTable::Table(qn, alias, _) | SelectTable::TableCall(qn, _, alias) => match alias {
                        Some(ast::As::As(a) | ast::As::Elided(a)) => crate::sql::parse::unquote(a.0).eq_ci(q),
                        None => crate::sql::parse::unquote(qn.name.0).eq_ci(q),
                    },
                    SelectTable::Select(_, Some(ast::As::As(a) | ast::As::Elided(a))) | SelectTable::Sub(_, Some(ast::As::As(a) | ast::As::Elided(a))) => {
                        crate::sql::parse::unquote(a.0).eq_ci(q)
                    }
                    SelectTable::Sub(_, None) => true,
                    SelectTable::Select(_, None) => false,
                })
            };
            // (A USING or NATURAL join's columns are checked first: left
            // to the compile.)
            let using = from.joins.iter().flat_map(|j| j.iter()).any(|j| {
                matches!(j.constraint, Some(ast::JoinConstraint::Using(_)))
                    || matches!(j.operator, ast::JoinOperator::TypedJoin(Some(t)) if t.contains(ast::JoinType::NATURAL))
            });
            for c in columns.iter().filter(|_| !using) {
                if let ResultColumn::TableStar(q) = c {
                    let q = crate::sql::parse::unquote(q.0);
                    if !named(&q) {
                        return Some(q);
                    }
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
        exprs.extend(ons);
        exprs.extend(group_by.iter().flat_map(|g| g.iter()));
        exprs.extend(having.iter().copied());
        exprs.extend(order_by.iter().flat_map(|o| o.iter().map(|t| &t.expr)));
        exprs.extend(limit.iter().flat_map(|l| std::iter::once(&l.expr).chain(l.offset.as_ref())));
        for w in window_clause.iter().flat_map(|w| w.iter()) {
            exprs.extend(w.window.partition_by.iter().flat_map(|p| p.iter()));
            exprs.extend(w.window.order_by.iter().flat_map(|o| o.iter().map(|t| &t.expr)));
        }
        exprs.into_iter().find_map(|x| self.missing_table_in_expr_under(x, ctes))
    }

    /// The first missing table SQLite's expansion of the SELECT `arm` (with
    /// its ORDER BY and LIMIT) meets, its expressions' subqueries included:
    /// it expands the whole statement before it resolves any name, so this
    /// comes before every name error.
    pub(in crate::sql::codegen) fn missing_table_in_query(
        &self,
        arm: &OneSelect<'_>,
        order_by: Option<&[ast::SortedColumn<'_>]>,
        limit: Option<&ast::Limit<'_>>,
    ) -> Option<String> {
        self.missing_table_in_arm(arm, order_by, limit, &mut Vec::new())
    }

    /// "no such table: NAME" for a name looked up where this compile binds
    /// unqualified names (a view's or trigger's own database).
    pub(in crate::sql::codegen) fn no_such_table(&self, name: &str) -> crate::error::Error {
        match self.names.home_db {
            Some(db) => crate::error::Error::sql(format!("no such table: {}.{name}", self.db_name(db))),
            None => crate::error::Error::sql(format!("no such table: {name}")),
        }
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
            || self.env.vtabs.is_some_and(|r| r.module(name).is_some())
    }
}
