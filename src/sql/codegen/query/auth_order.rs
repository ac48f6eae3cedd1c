//! The authorizer's `SQLITE_READ` and `SQLITE_FUNCTION` calls of a SELECT
//! in the order SQLite's resolver makes them, not in the order the code
//! reads the columns: the result list (a `*` as the columns it stands
//! for), HAVING, WHERE, the ON clauses (SQLite moves them into WHERE),
//! the ORDER BY (a term naming a result alias or a column number reads
//! nothing), the GROUP BY; within an expression a function before its
//! arguments, `x LIKE y` as `like(y, x)`. A column of a table, virtual
//! table included, is asked about each time a name resolves to it.
//! The answers are kept per SELECT (`StatementState::auth_answers`), so that
//! the code reading a column (`emit_column`) or calling a function
//! (`expr`) does not ask again; a read or call not met here (a subquery
//! in an expression, compiled later with its own walk, or a read the
//! statement makes without naming the column) is asked where it is coded.
//! A view's columns are asked about as the view's (SQLite's READ of
//! `view.col`, besides those of the tables inside), and each view or CTE
//! in FROM then gets the `SQLITE_SELECT` SQLite asks when it flattens or
//! compiles one, its name the context.

use crate::error::Result;
use crate::sql::codegen::Compiler;
use crate::sql::model::expr_shape::{as_in_select, walk};
use crate::sql::model::query::ResultItem;
use crate::sql::parse::{unquote, unquoted};
use crate::util::ascii::AsciiLower;
use sqlite3_parser::ast::{self, Expr, LikeOperator};

/// What one SELECT's resolution asked the authorizer.
#[derive(Default)]
pub struct AuthAnswers {
    /// By (cursor, column; -1 the rowid): whether the read is allowed
    /// (`false`: it reads NULL).
    pub reads: crate::util::fast_hash::FastMap<(i32, i64), bool>,
    /// By the call's expression address: whether the call is allowed.
    pub calls: crate::util::fast_hash::FastMap<usize, bool>,
    /// Set once the SELECT's names are resolved: a SELECT compiled before
    /// (a view's or CTE's body, in its FROM) is part of its resolution.
    resolved: bool,
    /// The `SQLITE_SELECT` contexts of views and CTEs inside the body of
    /// FROM item N, asked after that item's own (SQLite meets them as it
    /// flattens or compiles the item).
    nested_selects: Vec<(usize, Vec<String>)>,
    /// The place in FROM of the item being opened.
    opening: usize,
}

/// One thing SQLite's resolver asks the authorizer about.
enum AuthEvent {
    /// A name (qualifier, name) that may resolve to a column.
    Name(Option<String>, String),
    /// A function call: its name, argument count and expression address.
    Call(String, usize, usize),
}

fn collect(e: &Expr<'_>, out: &mut Vec<AuthEvent>) {
    walk(e, &mut |x| {
        // (A subquery is asked about where it is compiled.)
        if let Some((lhs, _, _)) = as_in_select(x) {
            collect(lhs, out);
            return false;
        }
        match x {
            Expr::Id(id) => out.push(AuthEvent::Name(None, unquote(id.0))),
            Expr::Qualified(t, c) | Expr::DoublyQualified(_, t, c) => out.push(AuthEvent::Name(Some(unquote(t.0)), unquote(c.0))),
            Expr::Subquery(_) | Expr::Exists(_) => return false,
            Expr::FunctionCall { name, args, filter_over, .. } => {
                out.push(AuthEvent::Call(unquoted(name.0).into_owned(), args.map_or(0, |a| a.len()), x as *const Expr<'_> as usize));
                // (Its arguments, ORDER BY and FILTER as the shape walk
                // visits them; then a window's PARTITION BY and ORDER BY.)
                let mut first = true;
                walk(x, &mut |y| {
                    if std::mem::take(&mut first) {
                        return true;
                    }
                    collect(y, out);
                    false
                });
                if let Some(ast::Over::Window(w)) = filter_over.as_ref().and_then(|t| t.over_clause) {
                    for p in w.partition_by.iter().flat_map(|p| p.iter()) {
                        collect(p, out);
                    }
                    for o in w.order_by.iter().flat_map(|o| o.iter()) {
                        collect(&o.expr, out);
                    }
                }
                return false;
            }
            Expr::FunctionCallStar { name, .. } => {
                out.push(AuthEvent::Call(unquoted(name.0).into_owned(), 0, x as *const Expr<'_> as usize));
            }
            Expr::Like { lhs, op, rhs, escape, .. } => {
                let name = match op {
                    LikeOperator::Like => "like",
                    LikeOperator::Glob => "glob",
                    LikeOperator::Match => "match",
                    LikeOperator::Regexp => "regexp",
                };
                out.push(AuthEvent::Call(name.to_string(), 2 + usize::from(escape.is_some()), x as *const Expr<'_> as usize));
                collect(rhs, out);
                collect(lhs, out);
                if let Some(esc) = escape {
                    collect(esc, out);
                }
                return false;
            }
            _ => {}
        }
        true
    });
}

impl Compiler<'_> {
    /// Ask the authorizer about the names and calls of one SELECT in
    /// SQLite's resolver order (see the module comment); the answers go
    /// to the innermost `auth_answers`. `ordering`: the ORDER BY terms
    /// (`true`) then the GROUP BY terms; a column number reads nothing,
    /// nor does an ORDER BY term naming a result alias (SQLite matches
    /// it to the result column; a GROUP BY term resolves as a name).
    pub(in crate::sql::codegen) fn authorize_in_resolver_order(
        &mut self,
        items: &[ResultItem<'_, '_>],
        clauses: &[&Expr<'_>],
        ordering: &[(&Expr<'_>, bool)],
        from: &[crate::sql::model::from::FromItem<'_, '_>],
        windows: bool,
    ) -> Result<()> {
        debug_assert!(self.stmt.authorizer.is_some() && !self.stmt.auth_answers.is_empty());
        let aliases: Vec<(String, &Expr<'_>)> = items
            .iter()
            .filter_map(|it| match it {
                ResultItem::Expr(e, Some(a)) => Some((a.clone(), *e)),
                _ => None,
            })
            .collect();
        let mut events = Vec::new();
        let mut star_reads = Vec::new();
        for it in items {
            match it {
                ResultItem::Expr(e, _) => collect(e, &mut events),
                // (The read of a `*` column is asked as its name is.)
                ResultItem::Col(r, ..) => {
                    star_reads.push((events.len(), r.clone()));
                }
            }
        }
        // (column read of a `*`, event, whether a result alias may be
        // named there)
        let mut all: Vec<(Option<crate::sql::resolve::ColumnRef>, Option<AuthEvent>, bool)> = Vec::new();
        let mut star = star_reads.into_iter().peekable();
        for (k, ev) in events.into_iter().enumerate() {
            while star.peek().is_some_and(|(at, _)| *at == k) {
                all.push((star.next().map(|(_, r)| r), None, false));
            }
            all.push((None, Some(ev), false));
        }
        all.extend(star.map(|(_, r)| (Some(r), None, false)));
        let mut rest = Vec::new();
        // Table-valued-function arguments: after the result list, before
        // HAVING and WHERE, as SQLite resolves them.
        for it in from {
            let args = it.vtab.as_ref().map(|v| v.args).or(it.table_fn.map(|(a, _)| a)).unwrap_or_default();
            for a in args {
                collect(a, &mut rest);
            }
        }
        for e in clauses {
            collect(e, &mut rest);
        }
        for (e, order) in ordering {
            let by_alias = *order && matches!(e, Expr::Id(id) if aliases.iter().any(|(a, _)| a.eq_ci(&unquote(id.0))));
            if !by_alias && !matches!(e, Expr::Literal(ast::Literal::Numeric(_))) {
                collect(e, &mut rest);
            }
        }
        all.extend(rest.into_iter().map(|ev| (None, Some(ev), true)));
        for (col, ev, alias_ok) in all {
            let r = match (col, ev) {
                (Some(r), _) => r,
                (None, Some(AuthEvent::Name(q, n))) => match self.resolve_name(q.as_deref(), &n) {
                    Ok(Some(r)) => r,
                    // A result alias stands for a copy of its expression,
                    // read again when that is a column.
                    Ok(None) if alias_ok && q.is_none() => {
                        let Some((_, e)) = aliases.iter().find(|(a, _)| a.eq_ci(&n)) else { continue };
                        let found = match e {
                            Expr::Id(id) => self.resolve_name(None, &unquote(id.0)),
                            Expr::Qualified(t, c) | Expr::DoublyQualified(_, t, c) => self.resolve_name(Some(&unquote(t.0)), &unquote(c.0)),
                            _ => Ok(None),
                        };
                        match found {
                            Ok(Some(r)) => r,
                            _ => continue,
                        }
                    }
                    _ => continue,
                },
                (None, Some(AuthEvent::Call(name, n_args, at))) => {
                    // (An unknown function is reported, not asked about.)
                    if self.lookup_function(&name, n_args).is_err() {
                        continue;
                    }
                    let allowed = self.authorize_function(&name)?;
                    if let Some(a) = self.stmt.auth_answers.last_mut() {
                        a.calls.insert(at, allowed);
                    }
                    continue;
                }
                (None, None) => continue,
            };
            let scope_item = self.names.scopes.len().checked_sub(1 + r.depth).and_then(|s| self.names.scopes.get(s)).and_then(|s| s.items.get(r.item));
            let Some((table, declared, object)) =
                scope_item.map(|i| (i.table.clone(), r.column.and_then(|c| i.columns.get(c)).map(|c| c.name.clone()), i.object_name.clone()))
            else {
                continue;
            };
            let allowed = if !table.is_empty() {
                self.authorize_read_named(&table, r.column, declared.as_deref())
            } else if let (Some(view), Some(column)) = (object.and_then(|o| self.view_named(&o)), declared) {
                // A view's column is asked about as the view's.
                self.authorize_column_read(&view.0, &column, view.1)
            } else {
                continue;
            };
            let key = (r.cursor, r.column.map_or(-1, |c| c as i64));
            if let Some(a) = self.stmt.auth_answers.last_mut() {
                // (A name read twice is asked twice; a NULL answer holds.)
                let slot = a.reads.entry(key).or_insert(true);
                *slot &= allowed;
            }
        }
        // SQLite runs a query with window functions as a subquery of one,
        // a SELECT of its own; then the views and CTEs of FROM, each a
        // SELECT of its own with its name as context.
        if windows {
            self.authorize(crate::sql::codegen::auth::action::SELECT, None, None, None)?;
        }
        let mine = self.stmt.auth_answers.pop().unwrap_or_default();
        let mut selects = Vec::new();
        for (k, it) in from.iter().enumerate() {
            if let Some(name) = self.names.scopes.last().and_then(|s| s.items.get(it.item)).and_then(|i| i.object_name.clone()) {
                selects.push(name);
            }
            selects.extend(mine.nested_selects.iter().filter(|(at, _)| *at == k).flat_map(|(_, v)| v.iter().cloned()));
        }
        // (Inside the FROM of a SELECT still being resolved, they wait
        // for that SELECT's own, after the item this one is the body of.)
        let r = match self.stmt.auth_answers.last_mut().filter(|a| !a.resolved) {
            Some(outer) => {
                let at = outer.opening;
                outer.nested_selects.push((at, selects));
                Ok(())
            }
            None => selects.iter().try_for_each(|name| self.authorize_from_select(name).map(|_| ())),
        };
        self.stmt.auth_answers.push(AuthAnswers { resolved: true, nested_selects: Vec::new(), ..mine });
        r
    }

    /// Note the place in FROM of the item about to be opened (a view's
    /// or CTE's body compiled for it defers its SELECTs to after it).
    pub(in crate::sql::codegen) fn note_from_position(&mut self, position: usize) {
        if let Some(a) = self.stmt.auth_answers.last_mut() {
            a.opening = position;
        }
    }

    /// The view (its name and database) a FROM item's object name stands
    /// for, when no CTE of that name hides it.
    fn view_named(&self, name: &str) -> Option<(String, usize)> {
        if self.cte_at(name).is_some() {
            return None;
        }
        let t = self.env.schema.table(name)?;
        t.view_select.is_some().then(|| (t.name.clone(), t.db))
    }
}
