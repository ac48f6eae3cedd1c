//! VALUES (...), (...) as a SELECT: each row computed and sent to the
//! destination in turn (through a sorter or a LIMIT as any SELECT's rows).

use super::select::is_cast;
use crate::error::{Error, Result};
use crate::sql::codegen::Compiler;
use crate::sql::model::query::{Dest, ResultItem, RowCtx, SelectInfo};
use crate::sql::resolve::Scope;
use crate::value::affinity::Affinity;
use sqlite3_parser::ast::{self, OneSelect, SortedColumn};

impl Compiler<'_> {
    /// VALUES (...), (...): each row emitted in turn.
    pub(super) fn compile_values<'a, 'b>(
        &mut self,
        core: &'a OneSelect<'b>,
        order_by: Option<&'a [SortedColumn<'b>]>,
        limit: Option<&ast::Limit<'_>>,
        dest: Dest,
    ) -> Result<SelectInfo> {
        let OneSelect::Values(rows) = core else { return Err(Error::sql("malformed VALUES")) };
        let n = rows.first().map_or(0, |r| r.len());
        for r in rows.iter() {
            if r.len() != n {
                return Err(Error::sql("all VALUES must have the same number of terms"));
            }
        }
        let compound_limit = self.select.compound_limit.take();
        self.names.scopes.push(Scope::default());
        let result = (|| -> Result<SelectInfo> {
            // Rows with names make SQLite's VALUES a compound SELECT, whose
            // last arm it resolves first: its name errors come first.
            if rows.len() > 1 {
                for row in rows.iter().rev() {
                    let named: Vec<&ast::Expr<'_>> = row.iter().collect();
                    self.check_names_in(&named)?;
                }
            }
            let end = self.b.label();
            let lim = match compound_limit {
                Some((regs, _)) => Some(regs),
                None => self.setup_limit(limit, end)?,
            };
            let names: Vec<String> = (1..=n).map(|i| format!("column{i}")).collect();
            let mut ctx = RowCtx { dest, sorter: None, order_map: Vec::new(), distinct: None, limit: lim, end, top_n: false };
            let items: Vec<ResultItem<'_, '_>> = rows[0].iter().map(|e| ResultItem::Expr(e, None)).collect();
            if let Some(terms) = order_by {
                ctx.order_map = self.order_by_map(terms, &items, &names, true)?;
                self.open_order_sorter(&mut ctx, terms, &items, n)?;
            }
            if rows.len() == 1 && self.items_have_aggregates(&items) {
                // One row of VALUES is a SELECT without FROM: its
                // aggregates make it an aggregate query over one row.
                self.compile_aggregate(&[], &[], &items, None, None, &[], order_by, &mut ctx)?;
            } else {
                // Every row is built in the same registers, as SQLite's
                // co-routine does: each is consumed (stored, yielded or
                // output) before the next is computed, and the program
                // stays linear in the rows, not in rows times columns of
                // registers.
                let regs = self.b.regs(n);
                let temps_only = ctx.sorter.is_none() || ctx.order_map.iter().all(Option::is_some);
                let mut sending_regs: Option<usize> = None;
                for row in rows.iter() {
                    if row.iter().any(crate::sql::model::expr_shape::has_window_call) {
                        // A row calling a window function is a SELECT of its
                        // own: its windows see that one row.
                        let text = format!("SELECT {}", row.iter().map(|e| e.to_string()).collect::<Vec<_>>().join(", "));
                        let done = self.b.label();
                        crate::sql::parse::with_first_statement(text.as_bytes(), |cmd, _| match cmd {
                            Some(ast::Cmd::Stmt(ast::Stmt::Select(sel))) => self.compile_select(sel, Dest::Row { reg: regs, done }).map(|_| ()),
                            _ => Err(Error::sql("malformed VALUES")),
                        })?;
                        self.b.bind(done);
                    } else {
                        for (i, e) in row.iter().enumerate() {
                            // (Several rows are a compound: an aggregate in one
                            // is refused when generating code, as SQLite does.)
                            let misuse_at_codegen = rows.len() > 1 || self.frame.in_aggregate_query;
                            let saved = std::mem::replace(&mut self.frame.in_aggregate_query, misuse_at_codegen);
                            let r = self.expr(e, regs + i as i32);
                            self.frame.in_aggregate_query = saved;
                            r?;
                        }
                    }
                    // The registers sending a row on (its record, rowid,
                    // sorter key) are the first row's again: they are dead
                    // once the row is sent. (Not when an ORDER BY term is
                    // computed there: its constants must keep theirs.)
                    match sending_regs.filter(|_| temps_only) {
                        Some(mark) => {
                            let after_row = std::mem::replace(&mut self.b.n_regs, mark);
                            self.emit_row(&ctx, order_by, regs, n)?;
                            self.b.n_regs = self.b.n_regs.max(after_row);
                        }
                        None => {
                            sending_regs = Some(self.b.n_regs);
                            self.emit_row(&ctx, order_by, regs, n)?;
                        }
                    }
                }
            }
            self.emit_sorter_output(&ctx, n);
            self.b.bind(end);
            let affinities = rows[0].iter().map(|_| None).collect();
            // Each row is an arm of a compound as far as the types of a
            // table made from the rows go (`create_as.rs`).
            let mut arms = Vec::new();
            if rows.len() > 1 {
                for row in rows.iter() {
                    let mut arm = SelectInfo { n_columns: n, ..Default::default() };
                    for e in row.iter() {
                        arm.affinities.push(self.result_affinity(e));
                        arm.data_types.push(self.value_kinds(e));
                        arm.casts.push(is_cast(e));
                    }
                    arms.push(arm);
                }
            }
            let (data_types, casts) = match rows.len() {
                1 => (rows[0].iter().map(|e| self.value_kinds(e)).collect(), rows[0].iter().map(is_cast).collect()),
                _ => (Vec::new(), Vec::new()),
            };
            let row0_affinities: Vec<Option<Affinity>> = if rows.len() == 1 { rows[0].iter().map(|e| self.result_affinity(e)).collect() } else { affinities };
            Ok(SelectInfo {
                n_columns: n,
                correlated: false,
                first_affinity: None,
                table_names: names.clone(),
                written_names: names.clone(),
                names,
                affinities: row0_affinities,
                decltypes: vec![None; n],
                origins: vec![None; n],
                collations: vec![None; n],
                data_types,
                casts,
                arms,
                sources: Vec::new(),
            })
        })();
        let scope = self.names.scopes.pop().unwrap_or_default();
        let mut info = result?;
        info.correlated = scope.correlated;
        Ok(info)
    }
}
