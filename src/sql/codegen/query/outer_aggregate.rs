//! Aggregates of an enclosing query written inside its subqueries.
//!
//! In SQLite an aggregate call belongs to the innermost query whose FROM
//! clause one of its arguments names: `SELECT (SELECT count(t.a) FROM u)
//! FROM t` counts the rows of `t`, making the outer query an aggregate
//! query, and the subquery reads the finished count. Before a SELECT is
//! compiled, [`Compiler::outer_aggregates_in`] finds such calls in the
//! subqueries of its result columns, HAVING and ORDER BY, so that the
//! SELECT computes them with its own aggregates; while its output is
//! computed, `agg_regs` maps each call to its accumulator and the subquery
//! reads that register.
//!
//! Invariant: the search is syntactic and errs towards "not ours": a
//! column name that a subquery's FROM item might provide (a table having
//! that column, or an item whose columns are not known before it is
//! compiled: a view, a subquery, a CTE, a table function) keeps the call
//! in the subquery, which then compiles it as before.

use crate::sql::codegen::Compiler;
use crate::sql::model::expr_shape::aggregate_inputs;
use crate::sql::model::expr_shape::walk;
use crate::sql::parse::unquote;
use crate::util::ascii::AsciiLower;
use sqlite3_parser::ast::{self, Expr, OneSelect, ResultColumn, SelectTable};

/// What a subquery's FROM clause provides to names inside it.
pub(in crate::sql::codegen) struct Level {
    /// Names that qualify its columns (aliases or table names).
    qualifiers: Vec<String>,
    /// Column names of its items; `None` when some item's columns are not
    /// known (any unqualified name may then be its own).
    columns: Option<Vec<String>>,
    /// An item whose qualifying name is not known (a parenthesized join).
    opaque: bool,
}

impl Level {
    /// Whether an item of this level has the column: `Some(true)` surely
    /// (its qualifier, or a column of a table whose columns are known),
    /// `Some(false)` surely not, `None` when an item's columns are not
    /// known before it is compiled.
    pub(in crate::sql::codegen) fn knows(&self, qualifier: Option<&str>, name: &str) -> Option<bool> {
        match qualifier {
            Some(q) if self.qualifiers.iter().any(|x| x.eq_ci(q)) => Some(true),
            Some(_) if self.opaque => None,
            Some(_) => Some(false),
            None if self.provides(None, name) && self.columns.is_none() => None,
            None => Some(self.provides(None, name)),
        }
    }

    pub(in crate::sql::codegen) fn provides(&self, qualifier: Option<&str>, name: &str) -> bool {
        match qualifier {
            Some(q) => self.opaque || self.qualifiers.iter().any(|x| x.eq_ci(q)),
            None => match &self.columns {
                None => true,
                Some(cols) => {
                    let rowid = ["rowid", "oid", "_rowid_"].iter().any(|r| r.eq_ci(name));
                    (rowid && !self.qualifiers.is_empty()) || cols.iter().any(|c| c.eq_ci(name))
                }
            },
        }
    }
}

impl<'b> Compiler<'_> {
    /// The aggregate calls inside subqueries of `e` that belong to the
    /// SELECT being compiled (the innermost scope): every column their
    /// arguments name is one of its columns or of a query enclosing it,
    /// and at least one is its own.
    pub(in crate::sql::codegen) fn outer_aggregates_in<'a>(&mut self, e: &'a Expr<'b>) -> Vec<&'a Expr<'b>> {
        let mut out = Vec::new();
        let mut levels = Vec::new();
        for sel in subqueries_of(e) {
            self.visit_subquery(sel, &mut levels, &mut out);
        }
        out
    }

    /// As [`Self::outer_aggregates_in`], for the one subquery `sel`.
    pub(in crate::sql::codegen) fn outer_aggregates_of<'a>(&mut self, sel: &'a ast::Select<'b>) -> Vec<&'a Expr<'b>> {
        let mut out = Vec::new();
        self.visit_subquery(sel, &mut Vec::new(), &mut out);
        out
    }

    fn visit_subquery<'a>(&mut self, sel: &'a ast::Select<'b>, levels: &mut Vec<Level>, out: &mut Vec<&'a Expr<'b>>) {
        let cores = std::iter::once(&sel.body.select).chain(sel.body.compounds.iter().flat_map(|c| c.iter().map(|c| &c.select)));
        for (i, core) in cores.enumerate() {
            let OneSelect::Select { columns, from, where_clause, group_by, having, .. } = core else { continue };
            // A FROM item's subquery (and the body of a CTE of this
            // subquery that its FROM names) sees the enclosing queries'
            // columns but not its sibling items': it is visited before
            // this level's names are pushed.
            if let Some(from) = from.as_ref() {
                let mut inner: Vec<&'a ast::Select<'b>> = Vec::new();
                from_subqueries(from, sel.with.as_ref(), &mut inner);
                for s in inner {
                    self.visit_subquery(s, levels, out);
                }
            }
            levels.push(self.level_of(from.as_ref(), sel.with.is_some()));
            let mut exprs: Vec<&'a Expr<'b>> = Vec::new();
            for c in columns.iter() {
                if let ResultColumn::Expr(x, _) = c {
                    exprs.push(x);
                }
            }
            exprs.extend(where_clause.iter().copied());
            exprs.extend(group_by.iter().flat_map(|g| g.iter()));
            exprs.extend(having.iter().copied());
            if i == 0 {
                exprs.extend(sel.order_by.iter().flat_map(|o| o.iter().map(|t| &t.expr)));
            }
            // (The windows of window calls hold expressions too.) In the
            // order written, as SQLite lists a query's aggregates.
            for x in exprs {
                self.visit_expr(x, levels, out);
            }
            levels.pop();
        }
    }

    /// The calls of `x` (and of the subqueries in it) that belong here,
    /// in the order SQLite's walk meets them (an IN's left operand before
    /// its subquery; a window's definition after its call).
    fn visit_expr<'a>(&mut self, x: &'a Expr<'b>, levels: &mut Vec<Level>, out: &mut Vec<&'a Expr<'b>>) {
        enum Found<'a, 'b> {
            Call(&'a Expr<'b>),
            Subquery(&'a ast::Select<'b>),
            Walk(&'a Expr<'b>),
        }
        let mut found: Vec<Found<'a, 'b>> = Vec::new();
        let mut windows: Vec<&'a Expr<'b>> = Vec::new();
        {
            let me: &Compiler<'_> = self;
            walk(x, &mut |y| {
                if crate::sql::codegen::is_aggregate_call(me, y) {
                    found.push(Found::Call(y));
                    return false;
                }
                windows.extend(crate::sql::model::expr_shape::window_spec_exprs(y));
                match y {
                    Expr::InSelect { lhs, rhs, .. } => {
                        found.push(Found::Walk(lhs));
                        found.push(Found::Subquery(rhs));
                        false
                    }
                    Expr::Subquery(s) | Expr::Exists(s) => {
                        found.push(Found::Subquery(s));
                        true
                    }
                    _ => true,
                }
            });
        }
        for f in found {
            match f {
                Found::Call(call) => {
                    if self.belongs_here(call, levels) && !out.iter().any(|o: &&Expr<'_>| o.to_string() == call.to_string()) {
                        out.push(call);
                    }
                }
                Found::Walk(e) => self.visit_expr(e, levels, out),
                Found::Subquery(s) => self.visit_subquery(s, levels, out),
            }
        }
        for w in windows {
            self.visit_expr(w, levels, out);
        }
    }

    /// Whether the columns `call`'s arguments name skip every subquery
    /// level and include one of the current SELECT's.
    fn belongs_here(&mut self, call: &Expr<'_>, levels: &[Level]) -> bool {
        let Some(args) = aggregate_inputs(call) else { return false };
        let mut names: Vec<(Option<String>, String)> = Vec::new();
        for a in args {
            // (Names inside a subquery of the argument count unless that
            // subquery's own FROM may provide them.)
            if !self.free_names(a, &mut Vec::new(), &mut names) {
                return false;
            }
        }
        let mut own = false;
        for (q, n) in names {
            if levels.iter().any(|l| l.provides(q.as_deref(), &n)) {
                return false;
            }
            // (Only depth 0 is looked at: a deeper match is an enclosing
            // query's column, which does not decide.)
            let depth0 = {
                let scopes = &mut self.names.scopes;
                let Some(last) = scopes.last_mut() else { return false };
                crate::sql::resolve::resolve(std::slice::from_mut(last), q.as_deref(), &n)
            };
            if let Ok(Some(_)) = depth0 {
                own = true;
            }
        }
        own
    }

    /// The column names `e` reads that no level of `inner` (the FROM
    /// clauses of subqueries of `e` around them) may provide. False where
    /// that cannot be told or the call is better left to the subquery (a
    /// subquery with a FROM clause). A subquery's ORDER BY may name its
    /// result aliases: it is not looked at; a compound's arms are.
    fn free_names(&self, e: &Expr<'_>, inner: &mut Vec<Level>, out: &mut Vec<(Option<String>, String)>) -> bool {
        let mut subqueries: Vec<&ast::Select<'_>> = Vec::new();
        let mut lhs: Vec<&Expr<'_>> = Vec::new();
        walk(e, &mut |x| match x {
            Expr::Subquery(s) | Expr::Exists(s) => {
                subqueries.push(s);
                false
            }
            Expr::InSelect { lhs: l, rhs, .. } => {
                lhs.push(l);
                subqueries.push(rhs);
                false
            }
            _ => {
                if let Some((q, n)) = crate::sql::plan::terms::column_name(x) {
                    if !inner.iter().any(|l| l.provides(q.as_deref(), &n)) {
                        out.push((q, n));
                    }
                }
                true
            }
        });
        for l in lhs {
            if !self.free_names(l, inner, out) {
                return false;
            }
        }
        for sel in subqueries {
            let cores = std::iter::once(&sel.body.select).chain(sel.body.compounds.iter().flat_map(|c| c.iter().map(|c| &c.select)));
            for core in cores {
                let OneSelect::Select { columns, from, where_clause, group_by, having, .. } = core else { continue };
                // (A subquery with a FROM clause in an aggregate's argument
                // is left where it is: read by the enclosing query's
                // aggregate loop it would need to be correlated with
                // that query's rows, which its compile does not know.)
                if from.is_some() {
                    return false;
                }
                inner.push(self.level_of(from.as_ref(), sel.with.is_some()));
                let mut exprs: Vec<&Expr<'_>> = Vec::new();
                for c in columns.iter() {
                    if let ResultColumn::Expr(x, _) = c {
                        exprs.push(x);
                    }
                }
                exprs.extend(where_clause.iter().copied());
                exprs.extend(group_by.iter().flat_map(|g| g.iter()));
                exprs.extend(having.iter().copied());
                let ok = exprs.into_iter().all(|x| self.free_names(x, inner, out));
                inner.pop();
                if !ok {
                    return false;
                }
            }
        }
        true
    }

    /// The names a FROM clause provides. `with`: the subquery has its own
    /// WITH clause (its names may be CTEs).
    pub(in crate::sql::codegen) fn level_of(&self, from: Option<&ast::FromClause<'_>>, with: bool) -> Level {
        let mut level = Level { qualifiers: Vec::new(), columns: Some(Vec::new()), opaque: false };
        let Some(from) = from else { return level };
        let tables = from.select.into_iter().chain(from.joins.iter().flat_map(|j| j.iter().map(|j| &j.table)));
        for t in tables {
            let alias = |a: &Option<ast::As<'_>>| match a {
                Some(ast::As::As(n) | ast::As::Elided(n)) => Some(unquote(n.0)),
                None => None,
            };
            match t {
                SelectTable::Table(qn, a, _) => {
                    let name = unquote(qn.name.0);
                    level.qualifiers.push(alias(a).unwrap_or_else(|| name.clone()));
                    let table = if with || (qn.db_name.is_none() && self.cte(&name).is_some()) { None } else { self.env.schema.table(&name) };
                    match (table, level.columns.as_mut()) {
                        (Some(t), Some(cols)) if t.view_select.is_none() => cols.extend(t.columns.iter().map(|c| c.name.clone())),
                        _ => level.columns = None,
                    }
                }
                SelectTable::TableCall(qn, _, a) => {
                    level.qualifiers.push(alias(a).unwrap_or_else(|| unquote(qn.name.0)));
                    level.columns = None;
                }
                SelectTable::Select(_, a) => {
                    // (Without an alias no qualified name can reach it:
                    // the names inside a subquery stay inside.)
                    if let Some(n) = alias(a) {
                        level.qualifiers.push(n);
                    }
                    level.columns = None;
                }
                SelectTable::Sub(_, a) => {
                    if let Some(n) = alias(a) {
                        level.qualifiers.push(n);
                    }
                    level.opaque = true;
                    level.columns = None;
                }
            }
        }
        level
    }
}

/// The subqueries of the FROM clause `from` (nested joins included) and
/// the bodies of the CTEs of `with` that it names as tables.
fn from_subqueries<'a, 'b>(from: &'a ast::FromClause<'b>, with: Option<&'a ast::With<'b>>, out: &mut Vec<&'a ast::Select<'b>>) {
    let tables = from.select.into_iter().chain(from.joins.iter().flat_map(|j| j.iter().map(|j| &j.table)));
    for t in tables {
        match t {
            SelectTable::Select(s, _) => out.push(s),
            SelectTable::Sub(f, _) => from_subqueries(f, with, out),
            SelectTable::Table(qn, _, _) if qn.db_name.is_none() => {
                let name = unquote(qn.name.0);
                if let Some(cte) = with.and_then(|w| w.ctes.iter().find(|c| unquote(c.tbl_name.0).eq_ci(&name))) {
                    if !out.iter().any(|o| std::ptr::eq(*o, cte.select)) {
                        out.push(cte.select);
                    }
                }
            }
            _ => {}
        }
    }
}

/// The subqueries directly inside `e` (not those nested in them, nor
/// those in a window function's arguments: an aggregate there is a misuse;
/// those of its window definition are).
fn subqueries_of<'a, 'b>(e: &'a Expr<'b>) -> Vec<&'a ast::Select<'b>> {
    let mut out = Vec::new();
    walk(e, &mut |x| {
        // (Only the call itself is looked at: asking at each node whether
        // a window call is somewhere below it made this quadratic.)
        if crate::sql::model::expr_shape::is_window_call(x) {
            // (Its window's PARTITION BY and ORDER BY are the query's
            // own expressions: their subqueries count.)
            for w in crate::sql::model::expr_shape::window_spec_exprs(x) {
                out.extend(subqueries_of(w));
            }
            return false;
        }
        if let Expr::Subquery(s) | Expr::Exists(s) | Expr::InSelect { rhs: s, .. } = x {
            out.push(*s);
        }
        true
    });
    out
}
