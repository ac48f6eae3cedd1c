//! The authorizer's `SQLITE_READ` and `SQLITE_FUNCTION` calls of a SELECT
//! in the order SQLite's resolver makes them, not in the order the code
//! reads the columns: the result list (a `*` as the columns it stands
//! for), HAVING, WHERE, the ON clauses (SQLite moves them into WHERE),
//! the ORDER BY (a term naming a result alias or a column number reads
//! nothing), the GROUP BY; within an expression a function before its
//! arguments, `x LIKE y` as `like(y, x)`, a subquery where it is met (an
//! IN's before its left operand). A column of a table, virtual table
//! included, is asked about each time a name resolves to it.
//! The answers are kept per SELECT (`StatementState::auth_answers`), so that
//! the code reading a column (`emit_column`) or calling a function
//! (`expr`) does not ask again. A subquery of an expression is compiled
//! later, with its own walk: its calls are asked ahead here, in place
//! (its arms the last first, as SQLite resolves a compound), against the
//! scope it will have, and their answers wait for its compile
//! (`auth::AuthAhead`); one whose FROM is more than tables of the schema
//! is asked about when compiled. A read the statement makes without
//! naming the column is asked where it is coded.
//! A view's columns are asked about as the view's (SQLite's READ of
//! `view.col`, besides those of the tables inside), and each view, CTE or
//! subquery in FROM then gets the `SQLITE_SELECT` SQLite asks when it
//! flattens or compiles one (a view's or CTE's name the context), then
//! the `SQLITE_READ` of `table.""` for each table of FROM no column of
//! which was read (SQLite's `colUsed` empty), as SQLite asks as it codes
//! the FROM clause.

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
    pub resolved: bool,
    /// The SELECT is an IN's that SQLite reads straight from a table or
    /// index without coding it (`auth.rs`): no check of its FROM.
    not_coded: bool,
    /// The checks SQLite makes as it flattens or compiles the body of
    /// FROM item N (a view, CTE or subquery): asked after that item's own
    /// `SQLITE_SELECT`.
    nested: Vec<(usize, Vec<Deferred>)>,
    /// The place in FROM of the item being opened.
    opening: usize,
}

impl AuthAnswers {
    /// The answers of a SELECT about to be compiled (`not_coded`: an IN's
    /// SQLite does not code, see the field).
    pub fn new(not_coded: bool) -> AuthAnswers {
        AuthAnswers { not_coded, ..Default::default() }
    }
}

/// A check SQLite makes once a SELECT's names are resolved, as it
/// flattens or codes the SELECT.
#[derive(Clone)]
enum Deferred {
    /// `SQLITE_SELECT` of a view, CTE (its name the context) or subquery
    /// (none) in FROM.
    Select(Option<String>),
    /// `SQLITE_RECURSIVE` of a recursive CTE (its name the context).
    Recursive(String),
    /// `SQLITE_READ` of `table.""` in database `db` (as written): a FROM
    /// item no column of which is read.
    Unread(String, Option<String>),
}

/// One thing SQLite's resolver asks the authorizer about.
pub(super) enum AuthEvent<'a, 'b> {
    /// A name (qualifier, name) that may resolve to a column.
    Name(Option<String>, String),
    /// A function call: its name, argument count and expression address.
    Call(String, usize, usize),
    /// A subquery, resolved where the walk meets it (an IN's before its
    /// left operand).
    Subquery(&'a ast::Select<'b>),
}

/// (a column read of a `*`, an event, whether a result alias may be named
/// there)
pub(super) type Step<'a, 'b> = (Option<crate::sql::resolve::ColumnRef>, Option<AuthEvent<'a, 'b>>, bool);

pub(super) fn collect<'a, 'b>(e: &'a Expr<'b>, out: &mut Vec<AuthEvent<'a, 'b>>) {
    walk(e, &mut |x| {
        if let Some((lhs, _, sel)) = as_in_select(x) {
            out.push(AuthEvent::Subquery(sel));
            collect(lhs, out);
            return false;
        }
        match x {
            Expr::Id(id) => out.push(AuthEvent::Name(None, unquote(id.0))),
            Expr::Qualified(t, c) | Expr::DoublyQualified(_, t, c) => out.push(AuthEvent::Name(Some(unquote(t.0)), unquote(c.0))),
            Expr::Subquery(sel) | Expr::Exists(sel) => {
                out.push(AuthEvent::Subquery(sel));
                return false;
            }
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

/// The events of the ORDER BY terms (`true`) and GROUP BY terms: a
/// column number reads nothing, nor does an ORDER BY term naming a result
/// alias (SQLite matches it to the result column; a GROUP BY term
/// resolves as a name).
pub(super) fn collect_ordering<'a, 'b>(ordering: &[(&'a Expr<'b>, bool)], aliases: &[(String, &Expr<'_>)], out: &mut Vec<AuthEvent<'a, 'b>>) {
    for (e, order) in ordering {
        let by_alias = *order && matches!(e, Expr::Id(id) if aliases.iter().any(|(a, _)| a.eq_ci(&unquote(id.0))));
        if !by_alias && !matches!(e, Expr::Literal(ast::Literal::Numeric(_))) {
            collect(e, out);
        }
    }
}

/// The name and database as written of each item of a FROM clause, in
/// order (`None`: a subquery); `None` where a parenthesized join makes the
/// items' order another than the one written.
fn written_names(from: &ast::FromClause<'_>) -> Option<Vec<Option<(String, Option<String>)>>> {
    let tables = from.select.into_iter().chain(from.joins.iter().flat_map(|j| j.iter()).map(|j| &j.table));
    tables
        .map(|t| match t {
            ast::SelectTable::Table(qn, ..) | ast::SelectTable::TableCall(qn, ..) => {
                Some(Some((unquote(qn.name.0), qn.db_name.as_ref().map(|d| unquote(d.0)))))
            }
            ast::SelectTable::Select(..) => Some(None),
            ast::SelectTable::Sub(..) => None,
        })
        .collect()
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
        written: Option<&ast::FromClause<'_>>,
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
        let mut all: Vec<Step<'_, '_>> = Vec::new();
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
        collect_ordering(ordering, &aliases, &mut rest);
        all.extend(rest.into_iter().map(|ev| (None, Some(ev), true)));
        // (The FROM items a name read a column of, not the rowid: SQLite's
        // `colUsed`, set whatever the answer.)
        let mut used = vec![false; self.names.scopes.last().map_or(0, |s| s.items.len())];
        // (A USING/NATURAL join uses its columns on both sides, unless the
        // column is that side's rowid.)
        for it in from.iter().filter(|it| !it.using.is_empty()) {
            for j in &it.on {
                let crate::sql::model::from::JoinTerm::ColEq(l, r) = j else { continue };
                for c in l.iter().chain([r]).filter(|c| c.depth == 0 && c.column.is_some()) {
                    if let Some(u) = used.get_mut(c.item) {
                        *u = true;
                    }
                }
            }
        }
        self.ask_steps(all, &aliases, &mut used, 0)?;
        // SQLite runs a query with window functions as a subquery of one,
        // a SELECT of its own; then the views and CTEs of FROM, each a
        // SELECT of its own with its name as context.
        if windows {
            self.authorize(crate::sql::codegen::auth::action::SELECT, None, None, None)?;
        }
        let mine = self.stmt.auth_answers.pop().unwrap_or_default();
        let names = written.and_then(written_names).filter(|n| n.len() == from.len());
        let mut checks = Vec::new();
        for (k, it) in from.iter().enumerate() {
            if let Some(name) = self.names.scopes.last().and_then(|s| s.items.get(it.item)).and_then(|i| i.object_name.clone()) {
                let materialized = self.cte_at(&name).is_some_and(|(_, d)| d.materialized);
                if !(materialized && self.stmt.auth_materialized.iter().any(|n| n.eq_ci(&name))) {
                    checks.push(Deferred::Select(Some(name.clone())));
                }
                if materialized {
                    self.stmt.auth_materialized.push(name.clone());
                }
                // (A recursive CTE: its recursive query, then its setup
                // query's SELECT and each recursive arm's.)
                if let Some(at) = self.stmt.auth_recursive.iter().position(|(n, _)| n.eq_ci(&name)) {
                    let (_, selects) = self.stmt.auth_recursive.remove(at);
                    checks.push(Deferred::Recursive(name.clone()));
                    checks.extend(std::iter::repeat_n(Deferred::Select(Some(name)), selects));
                }
            } else if names.as_ref().is_some_and(|n| matches!(n.get(k), Some(None))) {
                checks.push(Deferred::Select(None));
            }
            checks.extend(mine.nested.iter().filter(|(at, _)| *at == k).flat_map(|(_, v)| v.iter().map(Deferred::clone)));
        }
        if let Some(names) = names.filter(|_| !mine.not_coded) {
            self.unread_tables(from, &names, &used, &mut checks);
        }
        // (Inside the FROM of a SELECT still being resolved, they wait
        // for that SELECT's own, after the item this one is the body of.)
        let r = match self.stmt.auth_answers.last_mut().filter(|a| !a.resolved) {
            Some(outer) => {
                let at = outer.opening;
                outer.nested.push((at, checks));
                Ok(())
            }
            None => checks.into_iter().try_for_each(|c| match c {
                Deferred::Select(Some(name)) => self.authorize_from_select(&name).map(|_| ()),
                Deferred::Recursive(name) => self.authorize_in_context(Some(&name), crate::sql::codegen::auth::action::RECURSIVE, None, None, None).map(|_| ()),
                Deferred::Select(None) => self.authorize_in_context(None, crate::sql::codegen::auth::action::SELECT, None, None, None).map(|_| ()),
                Deferred::Unread(name, db) => self.authorize(crate::sql::codegen::auth::action::READ, Some(&name), Some(""), db.as_deref()).map(|_| ()),
            }),
        };
        self.stmt.auth_answers.push(AuthAnswers { resolved: true, nested: Vec::new(), ..mine });
        r
    }

    /// Ask the authorizer about `steps` in order: each name as what it
    /// resolves to, each known function, each subquery's own (asked
    /// ahead). `ahead`: how many subquery scopes asked ahead are above the
    /// SELECT whose `used` FROM items these are; the answers are kept for
    /// the code only when none is (`ahead == 0`).
    pub(super) fn ask_steps(&mut self, steps: Vec<Step<'_, '_>>, aliases: &[(String, &Expr<'_>)], used: &mut [bool], ahead: usize) -> Result<()> {
        for (col, ev, alias_ok) in steps {
            let r = match (col, ev) {
                (Some(r), _) => r,
                // (The rowid an UPDATE ... FROM's join carries is read
                // without a name in SQLite.)
                (None, Some(AuthEvent::Name(_, n))) if n == crate::sql::resolve::INTERNAL_ROWID => continue,
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
                    if let Some(a) = self.stmt.auth_answers.last_mut().filter(|_| ahead == 0) {
                        a.calls.insert(at, allowed);
                    }
                    continue;
                }
                (None, Some(AuthEvent::Subquery(sel))) => {
                    self.ask_ahead(sel, used, ahead)?;
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
            let json_table = self.stmt.json_tables.iter().find(|(c, _)| *c == r.cursor).map(|(_, n)| *n);
            let allowed = if !table.is_empty() {
                self.authorize_read_named(&table, r.column, declared.as_deref())
            } else if let (Some(json), Some(column)) = (json_table, declared.as_deref()) {
                // json_each and json_tree are eponymous virtual tables in
                // SQLite, their columns asked about in main.
                self.authorize_column_read(json, column, 0)
            } else if let (Some(view), Some(column)) = (object.and_then(|o| self.view_named(&o)), declared) {
                // A view's column is asked about as the view's.
                self.authorize_column_read(&view.0, &column, view.1)
            } else {
                continue;
            };
            if r.depth == ahead && r.column.is_some() {
                if let Some(u) = used.get_mut(r.item) {
                    *u = true;
                }
            }
            if ahead > 0 {
                continue;
            }
            let key = (r.cursor, r.column.map_or(-1, |c| c as i64));
            if let Some(a) = self.stmt.auth_answers.last_mut() {
                // (A name read twice is asked twice; a NULL answer holds.)
                let slot = a.reads.entry(key).or_insert(true);
                *slot &= allowed;
            }
        }
        Ok(())
    }

    /// SQLite's `SQLITE_READ` of `name.""` for each table, virtual table
    /// or table-valued function of FROM that no name read a column of
    /// (`SELECT count(*) FROM t`, a rowid alone), in FROM order: the
    /// name as written, the database as written (a view's or trigger's
    /// body names its own). IGNORE changes nothing; DENY fails.
    fn unread_tables(
        &self,
        from: &[crate::sql::model::from::FromItem<'_, '_>],
        names: &[Option<(String, Option<String>)>],
        used: &[bool],
        out: &mut Vec<Deferred>,
    ) {
        for (it, name) in from.iter().zip(names) {
            let Some((name, db)) = name else { continue };
            let table = self.names.scopes.last().and_then(|s| s.items.get(it.item)).filter(|i| i.object_name.is_none() && !i.table.is_empty());
            if (table.is_none() && it.table_fn.is_none()) || used.get(it.item).copied().unwrap_or(true) {
                continue;
            }
            // (An UPDATE ... FROM's target is SQLite's copy of the
            // statement's: the database as the statement wrote it.)
            let target = self.stmt.auth_update_from.as_deref().is_some_and(|t| t.eq_ci(name));
            let db = match target {
                true => self.stmt.auth_update_db.clone(),
                false => self.names.home_db.map(|d| self.db_name(d)).or(db.clone()),
            };
            out.push(Deferred::Unread(name.clone(), db));
        }
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
