//! The checks SQLite's resolver makes on a new table's own expressions
//! (its CHECK constraints, then its generated columns in column order)
//! when CREATE TABLE ends, or ALTER TABLE ADD COLUMN re-reads it: each
//! expression walked in the resolver's order (`query/name_order.rs`'s
//! events: a call's arguments walked whatever their outcome, a later name
//! replacing an error), a subquery or a parameter ending the walk of that
//! expression with "X prohibited in ...", a non-deterministic function
//! in a generated column noted and the walk going on, and a name no
//! column answers ending it with "no such column". Across expressions SQLite keeps the last "prohibited" message
//! but not a later unknown name's (measured on 3.54.1: `d AS (y), e AS
//! ((SELECT 1))` says "subqueries prohibited in generated columns",
//! `d AS (y), e AS (z)` "no such column: y").
//!
//! Only the names are compiled here (into a scratch program); the full
//! compile of the expressions follows when this finds nothing.

use crate::error::Error;
use crate::sql::codegen::Compiler;
use crate::sql::schema::Table;
use sqlite3_parser::ast::Expr;

/// What the walk of one expression found.
enum Found {
    /// An unknown name or function: kept only if nothing came before.
    Resolve(Error),
    /// A construct the expression may not hold: replaces what came before.
    Prohibited(Error),
}

impl Compiler<'_> {
    /// The error SQLite's resolver leaves for `table`'s CHECK constraints
    /// and generated columns, if any (see the module doc).
    pub fn self_reference_error(&mut self, table: &Table) -> Option<Error> {
        let mut exprs: Vec<(String, &'static str, i32)> = table.checks.iter().map(|(_, text)| (text.clone(), "CHECK constraints", 2)).collect();
        exprs.extend(table.columns.iter().filter_map(|c| c.generated.as_ref()).map(|g| (g.expr.clone(), "generated columns", 3)));
        let saved = std::mem::take(&mut self.b);
        self.b.n_regs = saved.n_regs;
        self.b.n_cursors = saved.n_cursors;
        let row = self.b.regs(table.columns.len());
        let rowid = self.b.reg();
        let target = self.b.reg();
        let mut kept: Option<Error> = None;
        // (Double-quoted strings in these expressions are DDL's:
        // `DQS_DDL`.)
        let outer = std::mem::replace(&mut self.stmt.ddl_names, true);
        for (text, what, pure) in &exprs {
            let found = self.walk_self_reference(table, text, what, *pure, row, rowid, target);
            match found {
                Some(Found::Prohibited(e)) => kept = Some(e),
                Some(Found::Resolve(e)) => kept = kept.or(Some(e)),
                None => {}
            }
        }
        self.stmt.ddl_names = outer;
        self.b = saved;
        kept
    }

    fn walk_self_reference(&mut self, table: &Table, text: &str, what: &str, pure: i32, row: i32, rowid: i32, target: i32) -> Option<Found> {
        use crate::sql::codegen::query::name_order::{name_events, skip_to_list_end, NameEvent};
        let generated = pure == 3;
        let mut found: Option<Found> = None;
        let r = crate::sql::parse::with_expr(text, |e| {
            let events = name_events(e);
            self.with_row_scope(table, row, rowid, |c| {
                // (The walk of `name_order.rs`: a call's errors are noted
                // and its arguments walked; a failing name, subquery or
                // parameter ends the walk up to the innermost call, as
                // does any other node once an error stands.)
                let mut open = 0usize;
                let mut i = 0;
                while i < events.len() {
                    let failure = match &events[i] {
                        NameEvent::FunctionStart(call) => {
                            open += 1;
                            if let Some(noted) = call.and_then(|x| c.self_ref_call(x, generated, pure)) {
                                found = Some(noted);
                            }
                            None
                        }
                        NameEvent::FunctionEnd => {
                            open -= 1;
                            None
                        }
                        NameEvent::Subquery(_) | NameEvent::InTable => Some(Found::Prohibited(Error::sql(format!("subqueries prohibited in {what}")))),
                        NameEvent::Parameter => Some(Found::Prohibited(Error::sql(format!("parameters prohibited in {what}")))),
                        NameEvent::Name(.., n) => c.with_pure_context(pure, |c| c.expr(n, target)).err().map(Found::Resolve),
                        NameEvent::Widths(l, r, end) => {
                            crate::sql::codegen::query::name_order::written_widths_differ(l, r, *end).then(|| Found::Resolve(Error::sql("row value misused")))
                        }
                        NameEvent::Node | NameEvent::WindowList(..) | NameEvent::Filter => None,
                    };
                    let stops = failure.is_some()
                        || (found.is_some() && matches!(events[i], NameEvent::Node | NameEvent::Parameter | NameEvent::InTable | NameEvent::Subquery(_)));
                    i += 1;
                    if failure.is_some() {
                        found = failure;
                    }
                    if !stops {
                        continue;
                    }
                    if open == 0 {
                        break;
                    }
                    i = skip_to_list_end(&events, i, true);
                }
                Ok(())
            })
        });
        match r {
            // A text that does not parse is left to the full compile.
            Err(_) => None,
            Ok(()) => found,
        }
    }

    /// What a call (or CURRENT_TIME and the like, calls to SQLite's parser)
    /// leaves noted as the walk meets it: an unknown function, a
    /// non-deterministic one in a generated column, one the schema may not
    /// call. The walk goes on into its arguments.
    fn self_ref_call(&mut self, call: &Expr<'_>, generated: bool, pure: i32) -> Option<Found> {
        let non_deterministic = || Found::Prohibited(Error::sql("non-deterministic functions prohibited in generated columns"));
        let (name, n) = match call {
            Expr::FunctionCall { name, args, .. } => (crate::sql::parse::unquote(name.0), args.as_ref().map_or(0, |a| a.len())),
            Expr::FunctionCallStar { name, .. } => (crate::sql::parse::unquote(name.0), 0),
            _ => return generated.then(non_deterministic),
        };
        let def = match self.lookup_function(&name, n) {
            Ok(def) => def,
            Err(e) => return Some(Found::Resolve(e)),
        };
        let mut noted = (generated && !def.flags.deterministic).then(non_deterministic);
        // (SQLite checks the schema's trust in the function after, its
        // message replacing.)
        if let Err(e) = self.with_pure_context(pure, |c| c.check_function_usable(&name, &def)) {
            noted = Some(Found::Prohibited(e));
        }
        noted
    }
}
