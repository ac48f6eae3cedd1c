//! The authorizer calls of a subquery asked ahead: SQLite resolves the
//! names of a subquery of an expression where the enclosing SELECT's
//! resolution meets it (and an UPDATE's values and an UPDATE's or
//! DELETE's WHERE before any code), while ringlite resolves them as it
//! compiles them, later. These walks ask the calls in SQLite's order
//! against the scope the subquery will have and keep the answers for its
//! compile (`auth::AuthAhead`). Invariant: only a subquery whose FROM
//! items are tables of the schema joined without USING or NATURAL is
//! asked about ahead; no answer is recorded for the code here (the
//! subquery's own walk records them as it takes them).

use super::auth_order::{collect, collect_ordering, AuthEvent, Step};
use crate::error::Result;
use crate::sql::codegen::Compiler;
use crate::sql::parse::unquote;
use crate::util::ascii::AsciiLower;
use sqlite3_parser::ast::{self, Expr};

impl Compiler<'_> {
    /// Ask the authorizer about a subquery's names and calls where
    /// SQLite's resolver meets it, its arms right to left as SQLite
    /// resolves a compound; the answers wait for its compile
    /// (`auth::AuthAhead`). Only a subquery whose FROM items are all
    /// tables of the schema joined without USING or NATURAL is asked
    /// about ahead; any other asks when it is compiled.
    pub(super) fn ask_ahead(&mut self, sel: &ast::Select<'_>, used: &mut [bool], ahead: usize) -> Result<()> {
        let key = crate::sql::codegen::auth::ahead_key(sel);
        if sel.with.is_some() || self.stmt.auth_ahead.was_asked(key) {
            return Ok(());
        }
        let arms: Vec<&ast::OneSelect<'_>> =
            std::iter::once(&sel.body.select).chain(sel.body.compounds.iter().flat_map(|c| c.iter()).map(|c| &c.select)).collect();
        let mut scopes = Vec::with_capacity(arms.len());
        for arm in &arms {
            match self.ahead_scope(arm) {
                Some(scope) => scopes.push(scope),
                None => return Ok(()),
            }
        }
        // (A compound's ORDER BY names its result columns.)
        let order_by = if arms.len() == 1 { sel.order_by } else { None };
        let before = self.stmt.auth_ahead.begin_asking(key);
        let correlated: Vec<bool> = self.names.scopes.iter().map(|s| s.correlated).collect();
        let mut r = Ok(());
        for (arm, scope) in arms.iter().zip(scopes).rev() {
            self.names.scopes.push(scope);
            r = self.ask_arm(arm, order_by, used, ahead + 1);
            self.names.scopes.pop();
            if r.is_err() {
                break;
            }
        }
        for (s, c) in self.names.scopes.iter_mut().zip(correlated) {
            s.correlated = c;
        }
        self.stmt.auth_ahead.end_asking(before);
        r
    }

    /// [`Self::ask_ahead`] for a compound SELECT compiled without an
    /// enclosing SELECT's walk having asked (a statement's own, a FROM
    /// subquery's): its arms' names before any arm is compiled.
    pub(in crate::sql::codegen) fn ask_compound_ahead(&mut self, sel: &ast::Select<'_>) -> Result<()> {
        self.ask_ahead(sel, &mut [], 0)
    }

    /// Ask the authorizer about an UPDATE's assigned value as SQLite
    /// resolves it, before it checks the column, the target table the
    /// innermost scope: the expression `e`, or the row-value subquery
    /// `sel` (resolved once, for its first column); the answers wait for
    /// the code of statement `owner` (`auth::AuthAhead`).
    pub(in crate::sql::codegen) fn ask_value_ahead(&mut self, e: Option<&Expr<'_>>, sel: Option<&ast::Select<'_>>, owner: usize) -> Result<()> {
        let mut events = Vec::new();
        if let Some(e) = e {
            collect(e, &mut events);
        }
        events.extend(sel.map(AuthEvent::Subquery));
        let steps = events.into_iter().map(|ev| (None, Some(ev), false)).collect();
        let before = self.stmt.auth_ahead.begin_asking(owner);
        let r = self.ask_steps(steps, &[], &mut [], 1);
        self.stmt.auth_ahead.end_asking(before);
        r
    }

    /// Ask the authorizer about an UPDATE's or DELETE's WHERE clause as
    /// SQLite resolves it, before any code, the target table `table`
    /// (named `alias`) the scope; the answers wait for the code of
    /// statement `owner` (`auth::AuthAhead`).
    pub(in crate::sql::codegen) fn ask_where_ahead(
        &mut self,
        table: &crate::sql::schema::Table,
        alias: Option<String>,
        w: &Expr<'_>,
        owner: usize,
    ) -> Result<()> {
        let mut events = Vec::new();
        collect(w, &mut events);
        let steps = events.into_iter().map(|ev| (None, Some(ev), false)).collect();
        self.names.scopes.push(crate::sql::codegen::target::target_scope(table, alias, -1));
        let before = self.stmt.auth_ahead.begin_asking(owner);
        let r = self.ask_steps(steps, &[], &mut [], 1);
        self.stmt.auth_ahead.end_asking(before);
        self.names.scopes.pop();
        r
    }

    /// The scope a subquery's arm will have, for asking about its names
    /// ahead: `None` unless every FROM item is a table of the schema
    /// (not a view, virtual table or CTE) joined without USING/NATURAL.
    fn ahead_scope(&self, arm: &ast::OneSelect<'_>) -> Option<crate::sql::resolve::Scope> {
        let ast::OneSelect::Select { from: Some(from), .. } = arm else { return Some(Default::default()) };
        let mut scope = crate::sql::resolve::Scope::default();
        let joins = from.joins.iter().flat_map(|j| j.iter());
        for (k, (t, join)) in from.select.into_iter().map(|t| (t, None)).chain(joins.map(|j| (&j.table, Some(j)))).enumerate() {
            if let Some(j) = join {
                let natural = matches!(j.operator, ast::JoinOperator::TypedJoin(Some(t)) if t.contains(ast::JoinType::NATURAL));
                if natural || matches!(j.constraint, Some(ast::JoinConstraint::Using(_))) {
                    return None;
                }
            }
            let ast::SelectTable::Table(qn, alias, _) = t else { return None };
            let name = unquote(qn.name.0);
            if qn.db_name.is_some() || self.cte_at(&name).is_some() {
                return None;
            }
            let table = self.env.schema.table(&name).filter(|t| t.root != 0 && t.virtual_table.is_none() && t.view_select.is_none())?;
            let alias = alias.as_ref().map(|a| match a {
                ast::As::As(n) | ast::As::Elided(n) => unquote(n.0),
            });
            scope.items.push(crate::sql::resolve::ScopeItem {
                name: alias.unwrap_or_else(|| table.name.clone()),
                table: table.name.clone(),
                db: table.db,
                // (Never coded: no cursor of the program's.)
                cursor: -2 - k as i32,
                columns: table.scope_columns(),
                rowid_alias: table.rowid_alias,
                has_rowid: table.without_rowid.is_none(),
                using: Vec::new(),
                object_name: None,
                view_db: None,
            });
        }
        Some(scope)
    }

    /// [`Self::ask_ahead`] for one arm, its scope the innermost.
    fn ask_arm(&mut self, arm: &ast::OneSelect<'_>, order_by: Option<&[ast::SortedColumn<'_>]>, used: &mut [bool], ahead: usize) -> Result<()> {
        let ast::OneSelect::Select { columns, from, where_clause, group_by, having, .. } = arm else { return Ok(()) };
        let mut events = Vec::new();
        let mut aliases = Vec::new();
        let items = self.names.scopes.last().map(|s| s.items.clone()).unwrap_or_default();
        for rc in columns.iter() {
            match rc {
                ast::ResultColumn::Expr(e, alias) => {
                    collect(e, &mut events);
                    if let Some(ast::As::As(n) | ast::As::Elided(n)) = alias {
                        aliases.push((unquote(n.0), e));
                    }
                }
                ast::ResultColumn::Star => {
                    for it in &items {
                        events.extend(it.columns.iter().filter(|c| !c.hidden).map(|c| AuthEvent::Name(Some(it.name.clone()), c.name.clone())));
                    }
                }
                ast::ResultColumn::TableStar(t) => {
                    let t = unquote(t.0);
                    for it in items.iter().filter(|it| it.name.eq_ci(&t)) {
                        events.extend(it.columns.iter().filter(|c| !c.hidden).map(|c| AuthEvent::Name(Some(it.name.clone()), c.name.clone())));
                    }
                }
            }
        }
        let aliases: Vec<(String, &Expr<'_>)> = aliases.into_iter().collect();
        let mut steps: Vec<Step<'_, '_>> = events.into_iter().map(|ev| (None, Some(ev), false)).collect();
        let mut rest = Vec::new();
        for e in having.iter().chain(where_clause.iter()) {
            collect(e, &mut rest);
        }
        for j in from.iter().flat_map(|f| f.joins.iter().flat_map(|j| j.iter())) {
            if let Some(ast::JoinConstraint::On(e)) = &j.constraint {
                collect(e, &mut rest);
            }
        }
        let ordering: Vec<(&Expr<'_>, bool)> =
            order_by.iter().flat_map(|o| o.iter()).map(|t| (&t.expr, true)).chain(group_by.iter().flat_map(|g| g.iter()).map(|e| (e, false))).collect();
        collect_ordering(&ordering, &aliases, &mut rest);
        steps.extend(rest.into_iter().map(|ev| (None, Some(ev), true)));
        self.ask_steps(steps, &aliases, used, ahead)
    }
}
