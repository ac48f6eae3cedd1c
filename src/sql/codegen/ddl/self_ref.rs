//! The checks SQLite's resolver makes on a new table's own expressions
//! (its CHECK constraints, then its generated columns in column order)
//! when CREATE TABLE ends, or ALTER TABLE ADD COLUMN re-reads it: each
//! expression walked node before operands, a subquery or a parameter
//! ending the walk of that expression with "X prohibited in ...", a
//! non-deterministic function in a generated column noted and the walk
//! going on, and a name no column answers ending it with "no such
//! column". Across expressions SQLite keeps the last "prohibited" message
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

/// The nodes of one expression the checks look at, in the resolver's
/// order.
enum Node<'a, 'b> {
    Name(&'a Expr<'b>),
    Function(String, usize),
    NowLiteral,
    Subquery,
    Parameter,
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
        let generated = pure == 3;
        let mut found: Option<Found> = None;
        let r = crate::sql::parse::with_expr(text, |e| {
            let mut nodes: Vec<Node<'_, '_>> = Vec::new();
            crate::sql::model::expr_shape::walk(e, &mut |x| {
                match x {
                    Expr::Subquery(_) | Expr::Exists(_) | Expr::InSelect { .. } | Expr::InTable { .. } => {
                        nodes.push(Node::Subquery);
                        return false;
                    }
                    Expr::Variable(_) => nodes.push(Node::Parameter),
                    Expr::Id(_) | Expr::Qualified(..) | Expr::DoublyQualified(..) => nodes.push(Node::Name(x)),
                    Expr::FunctionCall { name, args, .. } => {
                        nodes.push(Node::Function(crate::sql::parse::unquote(name.0), args.as_ref().map_or(0, |a| a.len())))
                    }
                    Expr::FunctionCallStar { name, .. } => nodes.push(Node::Function(crate::sql::parse::unquote(name.0), 0)),
                    Expr::Literal(
                        sqlite3_parser::ast::Literal::CurrentDate | sqlite3_parser::ast::Literal::CurrentTime | sqlite3_parser::ast::Literal::CurrentTimestamp,
                    ) => nodes.push(Node::NowLiteral),
                    _ => {}
                }
                true
            });
            self.with_row_scope(table, row, rowid, |c| {
                for node in nodes {
                    match node {
                        Node::Subquery => {
                            found = Some(Found::Prohibited(Error::sql(format!("subqueries prohibited in {what}"))));
                            break;
                        }
                        Node::Parameter => {
                            found = Some(Found::Prohibited(Error::sql(format!("parameters prohibited in {what}"))));
                            break;
                        }
                        Node::Name(n) => {
                            if let Err(e) = c.with_pure_context(pure, |c| c.expr(n, target)) {
                                // An unknown name replaces what this
                                // expression noted before it.
                                found = Some(Found::Resolve(e));
                                break;
                            }
                        }
                        Node::Function(name, n) => match c.lookup_function(&name, n) {
                            Ok(def) => {
                                if generated && !def.flags.deterministic {
                                    found = Some(Found::Prohibited(Error::sql("non-deterministic functions prohibited in generated columns")));
                                }
                                // (SQLite checks the schema's trust in the
                                // function after, its message replacing.)
                                if let Err(e) = c.with_pure_context(pure, |c| c.check_function_usable(&name, &def)) {
                                    found = Some(Found::Prohibited(e));
                                }
                            }
                            Err(e) => {
                                found = Some(Found::Resolve(e));
                                break;
                            }
                        },
                        Node::NowLiteral if generated => {
                            found = Some(Found::Prohibited(Error::sql("non-deterministic functions prohibited in generated columns")))
                        }
                        Node::NowLiteral => {}
                    }
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
}
