//! FROM items materialised from SQL text: a view's or CTE's body (or a
//! FROM subquery given as text) compiled into a temporary table, with the
//! CTE scoping rules of `from.rs` (the body sees the WITH clauses around
//! its own and the queries outside the one naming it) and the nesting
//! depth SQLite counts for views and subqueries.
//!
//! Invariant: the scopes replaced while a body compiles are restored
//! (`enter_cte_scopes`/`leave_cte_scopes`), their correlation marks kept;
//! a body compiled without error leaves the scopes it was given as it
//! found them (checked: cte_scopes_restored).

use crate::error::{Error, Result};
use crate::sql::codegen::query::pushdown::Offer;
use crate::sql::codegen::Compiler;
use crate::sql::model::from::FromItem;
use crate::sql::model::query::Dest;
use crate::sql::parse::with_first_statement;
use crate::sql::plan::prelude::*;
use crate::vdbe::program::Opcode;
use sqlite3_parser::ast::{self};

impl<'b> Compiler<'_> {
    pub(in crate::sql::codegen) fn open_subquery_text<'a>(
        &mut self,
        sql: &str,
        name: String,
        cols: Option<Vec<String>>,
        out: &mut Vec<FromItem<'a, 'b>>,
    ) -> Result<()> {
        self.open_subquery_text_named(sql, name, cols, None, out)
    }

    /// `open_subquery_text` for a view: `view` is its name and CREATE VIEW
    /// statement, whose result list names the columns.
    pub(in crate::sql::codegen) fn open_subquery_text_named<'a>(
        &mut self,
        sql: &str,
        name: String,
        cols: Option<Vec<String>>,
        view: Option<(String, String)>,
        out: &mut Vec<FromItem<'a, 'b>>,
    ) -> Result<()> {
        self.open_subquery_text_in(sql, name, cols, view, false, &Offer::none(), out)
    }

    /// `open_subquery_text_named`; with `correlated` (a CTE body) the
    /// SELECT may read the columns of the queries around the one whose
    /// FROM clause is being opened (not that one's own items: a FROM
    /// subquery is no join partner of its neighbours).
    pub(in crate::sql::codegen) fn open_subquery_text_in<'a>(
        &mut self,
        sql: &str,
        name: String,
        cols: Option<Vec<String>>,
        view: Option<(String, String)>,
        correlated: bool,
        offer: &Offer<'_, '_>,
        out: &mut Vec<FromItem<'a, 'b>>,
    ) -> Result<()> {
        let (view_name, view_text) = view.unzip();
        let saved_aliases = std::mem::take(&mut self.names.aliases);
        let saved_scopes = self.enter_cte_scopes(correlated);
        // (The temporary table's cursor, numbered once the body is known
        // not to be flattened.)
        let mut opened = None;
        // The FROM clauses counted are told apart by address: those of the
        // body parsed here live only while it is compiled (a later parse,
        // of another reference to the same CTE, may reuse the addresses,
        // and must be counted again, as SQLite expands every reference).
        let saved_counted = std::mem::take(&mut self.expansion.counted_froms);
        let info = with_first_statement(sql.as_bytes(), |cmd, _| match cmd {
            Some(ast::Cmd::Stmt(ast::Stmt::Select(sel))) => {
                // The first SELECT's width is checked against the column
                // list before its compound arms are compared (SQLite's order).
                if let (Some(c), Some(n)) = (&cols, first_select_width(sel)) {
                    if c.len() != n {
                        return Err(match view_name.as_deref() {
                            Some(view) => Error::sql(format!("expected {} columns for '{view}' but got {n}", c.len())),
                            None => Error::sql(format!("table {name} has {n} values for {} columns", c.len())),
                        });
                    }
                }
                if offer.flatten && !correlated {
                    if let Some(flat) = self.flat_projection(sel, cols.as_deref(), view_text.is_some()) {
                        return Ok(Err(flat));
                    }
                }
                let cur = self.b.cursor();
                self.b.add(Opcode::OpenEphemeral, cur, 0, 0);
                opened = Some((cur, self.b.insns.len() - 1));
                let is_view = view_text.is_some();
                if let Some(text) = &view_text {
                    self.naming.view_texts.push(super::column_text::IndexedText::new(text.clone()));
                }
                self.naming.view_names_text = view_text;
                // (A view's columns are named as with the default naming
                // settings.)
                // (The outer WHERE terms this body may also test.)
                let bump = sqlite3_parser::Bump::new();
                let pushed = super::pushdown::pushed_term(self, sel, &offer.terms, offer.unqualified, Some(&name), cols.as_deref(), &bump);
                let info = self.with_text_depth_point(sel, |c| {
                    if is_view {
                        c.with_default_names(|c| c.compile_select_pushed(sel, Dest::EphemTable(cur), pushed.as_ref()))
                    } else {
                        c.compile_select_pushed(sel, Dest::EphemTable(cur), pushed.as_ref())
                    }
                });
                self.naming.view_names_text = None;
                if is_view {
                    self.naming.view_texts.pop();
                }
                info.map(Ok)
            }
            _ => Err(Error::sql("malformed view or CTE")),
        });
        self.expansion.counted_froms = saved_counted;
        // invariant: cte_scopes_restored
        debug_assert!(info.is_err() || self.names.scopes.is_empty() || self.names.scopes.len() == saved_scopes.len(), "a body left its scopes changed");
        self.leave_cte_scopes(saved_scopes);
        self.names.aliases = saved_aliases;
        let info = match info? {
            Ok(info) => info,
            Err(flat) => {
                // No temporary table: the caller's MATERIALIZE line goes.
                self.stmt.eqp.drop_last_heading();
                return self.open_flat_table(flat, name, out);
            }
        };
        let (cur, addr) = opened.expect("a body compiled into its temporary table");
        if let Some(c) = &cols {
            if let (Some(view), true) = (view_name, c.len() != info.n_columns) {
                return Err(Error::sql(format!("expected {} columns for '{view}' but got {}", c.len(), info.n_columns)));
            }
            if c.len() != info.n_columns {
                return Err(Error::sql(format!("table {name} has {} values for {} columns", info.n_columns, c.len())));
            }
        }
        self.b.insns[addr].p2 = info.n_columns as i32;
        self.check_subquery_collations(&info)?;
        self.push_subquery_item(cur, name, &info, cols, out);
        Ok(())
    }

    /// Run `f` (the compile of `sel`, a view's or CTE's body parsed again
    /// from its text) with the resolver's height limit pointed at the
    /// expression of `sel` where SQLite meets it
    /// (`parse_limits::resolver_depth_point`), so that it fails there, in
    /// SQLite's order with the name errors around it, as in the
    /// statement's own tree.
    pub(in crate::sql::codegen) fn with_text_depth_point<R>(&mut self, sel: &ast::Select<'_>, f: impl FnOnce(&mut Self) -> Result<R>) -> Result<R> {
        let Some(point) = crate::sql::parse_limits::resolver_depth_point(sel, self.env.max_expr_depth) else { return f(self) };
        let saved = self.names.depth_point.replace(point);
        let r = f(self);
        self.names.depth_point = saved;
        r
    }

    /// The name-resolution scopes a materialised body is compiled in:
    /// none, or with `correlated` those around the query whose FROM clause
    /// is being opened, that query's own scope standing empty (a lookup
    /// passing it marks it correlated). Returns the scopes to restore with
    /// [`Self::leave_cte_scopes`].
    pub(in crate::sql::codegen) fn enter_cte_scopes(&mut self, correlated: bool) -> Vec<crate::sql::resolve::Scope> {
        let saved = std::mem::take(&mut self.names.scopes);
        if correlated && !saved.is_empty() {
            self.names.scopes = saved[..saved.len() - 1].to_vec();
            self.names.scopes.push(Default::default());
        }
        saved
    }

    pub(in crate::sql::codegen) fn leave_cte_scopes(&mut self, mut saved: Vec<crate::sql::resolve::Scope>) {
        let passed = std::mem::take(&mut self.names.scopes);
        // Lookups that reached an outer query passed through the query
        // using the CTE too: it is correlated as well, and so are the
        // outer scopes the lookups passed.
        for (s, p) in saved.iter_mut().zip(passed.iter()) {
            s.correlated |= p.correlated;
        }
        self.names.scopes = saved;
    }
}

/// How many result columns the first SELECT of `sel` has, when that is
/// known without resolving names (no `*`).
fn first_select_width(sel: &ast::Select<'_>) -> Option<usize> {
    match &sel.body.select {
        ast::OneSelect::Select { columns, .. } => columns.iter().all(|c| matches!(c, ast::ResultColumn::Expr(..))).then_some(columns.len()),
        ast::OneSelect::Values(rows) => rows.first().map(|r| r.len()),
    }
}
