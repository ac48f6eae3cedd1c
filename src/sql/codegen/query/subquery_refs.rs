//! The columns of the SELECT being compiled that a subquery written in it
//! reads (its correlation), found before the subquery is compiled: what
//! tells the planner when a subquery's value is known (a virtual table's
//! constraint `x = (SELECT ...)` is usable once the tables it reads are
//! placed outside) and which columns a statement reads.
//!
//! Invariant: the search is syntactic and errs towards "unknown" (`None`):
//! a name that a FROM item of the subquery might provide while the outer
//! SELECT has a column of that name too, a WITH clause, a window
//! definition or a FROM item whose inside is not walked make the answer
//! unknown, never a smaller set than SQLite's resolution gives.

use crate::sql::codegen::query::outer_aggregate::Level;
use crate::sql::codegen::Compiler;
use crate::sql::model::expr_shape::{walk, window_spec_exprs};
use crate::sql::resolve::ColumnRef;
use sqlite3_parser::ast::{self, Expr, JoinConstraint, OneSelect, ResultColumn, SelectTable};

impl Compiler<'_> {
    /// The columns of the innermost scope's items that `sel` reads, or
    /// `None` when that cannot be told from the text.
    pub(crate) fn subquery_outer_refs(&mut self, sel: &ast::Select<'_>) -> Option<Vec<ColumnRef>> {
        let mut out = Vec::new();
        self.refs_of_select(sel, &mut Vec::new(), &mut out)?;
        Some(out)
    }

    fn refs_of_select(&mut self, sel: &ast::Select<'_>, levels: &mut Vec<Level>, out: &mut Vec<ColumnRef>) -> Option<()> {
        if sel.with.is_some() {
            return None;
        }
        let cores = std::iter::once(&sel.body.select).chain(sel.body.compounds.iter().flat_map(|c| c.iter().map(|c| &c.select)));
        for (i, core) in cores.enumerate() {
            let mut exprs: Vec<&Expr<'_>> = Vec::new();
            let pushed = match core {
                OneSelect::Values(rows) => {
                    exprs.extend(rows.iter().flat_map(|r| r.iter()));
                    false
                }
                OneSelect::Select { columns, from, where_clause, group_by, having, window_clause, .. } => {
                    if window_clause.is_some() {
                        return None;
                    }
                    if let Some(f) = from {
                        let tables = f.select.into_iter().chain(f.joins.iter().flat_map(|j| j.iter().map(|j| &j.table)));
                        for t in tables {
                            match t {
                                // (A subquery in FROM sees the enclosing
                                // queries, not its siblings.)
                                SelectTable::Select(s, _) => self.refs_of_select(s, levels, out)?,
                                SelectTable::TableCall(_, Some(args), _) if !args.is_empty() => return None,
                                SelectTable::Sub(..) => return None,
                                _ => {}
                            }
                        }
                        for j in f.joins.iter().flat_map(|j| j.iter()) {
                            if let Some(JoinConstraint::On(e)) = &j.constraint {
                                exprs.push(e);
                            }
                        }
                    }
                    levels.push(self.level_of(from.as_ref(), false));
                    for c in columns.iter() {
                        if let ResultColumn::Expr(x, _) = c {
                            exprs.push(x);
                        }
                    }
                    exprs.extend(where_clause.iter().copied());
                    exprs.extend(group_by.iter().flat_map(|g| g.iter()));
                    exprs.extend(having.iter().copied());
                    true
                }
            };
            if i == 0 {
                exprs.extend(sel.order_by.iter().flat_map(|o| o.iter().map(|t| &t.expr)));
                if let Some(l) = sel.limit {
                    exprs.push(&l.expr);
                    exprs.extend(l.offset.iter());
                }
            }
            let r = exprs.into_iter().try_for_each(|x| self.refs_of_expr(x, levels, out));
            if pushed {
                levels.pop();
            }
            r?;
        }
        Some(())
    }

    fn refs_of_expr(&mut self, x: &Expr<'_>, levels: &mut Vec<Level>, out: &mut Vec<ColumnRef>) -> Option<()> {
        let mut names: Vec<(Option<String>, String)> = Vec::new();
        let mut nested: Vec<&ast::Select<'_>> = Vec::new();
        let mut more: Vec<&Expr<'_>> = Vec::new();
        walk(x, &mut |y| {
            names.extend(crate::sql::plan::terms::column_name(y));
            more.extend(window_spec_exprs(y));
            if let Expr::Subquery(s) | Expr::Exists(s) | Expr::InSelect { rhs: s, .. } = y {
                nested.push(s);
            }
            true
        });
        for (q, n) in names {
            match levels.iter().map(|l| l.knows(q.as_deref(), &n)).find(|k| *k != Some(false)) {
                // One of the subquery's own items has it.
                Some(Some(true)) => continue,
                // Perhaps its own: unknown if the outer SELECT has it too.
                Some(None) => {
                    if self.resolve_name(q.as_deref(), &n).ok().flatten().is_some_and(|r| r.depth == 0) {
                        return None;
                    }
                    continue;
                }
                _ => {}
            }
            match self.resolve_name(q.as_deref(), &n) {
                Ok(Some(r)) if r.depth == 0 => out.push(r),
                Ok(_) => {}
                Err(_) => return None,
            }
        }
        for s in nested {
            self.refs_of_select(s, levels, out)?;
        }
        more.into_iter().try_for_each(|e| self.refs_of_expr(e, levels, out))
    }
}
