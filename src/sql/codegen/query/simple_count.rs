//! `SELECT count(*) FROM t`: the entries of one B-tree counted page by
//! page instead of a loop over every row.
//!
//! As in SQLite, the shortcut applies only to exactly that shape: one
//! real table (not a view, subquery, CTE or table function, no INDEXED
//! BY/NOT INDEXED), no WHERE, GROUP BY or HAVING, and one result column
//! that is the built-in `count(*)` itself (no DISTINCT, no FILTER). The
//! B-tree counted is the narrowest index holding every row (not a partial
//! one) when one is narrower than the table's rows, as the full scan the
//! shortcut replaces would read, else the table's own tree (for a WITHOUT
//! ROWID table, its key tree); every such tree has one entry per row, so
//! the answer is the same.

use crate::error::Result;
use crate::sql::codegen::query::aggregate::AggCall;
use crate::sql::codegen::Compiler;
use crate::sql::model::from::FromItem;
use crate::sql::model::query::{ResultItem, RowCtx};
use crate::sql::plan::order::{index_is_narrower, index_width};
use crate::util::ascii::AsciiLower;
use crate::vdbe::func::FuncKind;
use crate::vdbe::program::{Opcode, P4};
use sqlite3_parser::ast::{Expr, SortedColumn};

impl<'b> Compiler<'_> {
    /// Emit the whole query if it is a simple count; `false` (nothing
    /// emitted) otherwise.
    pub(in crate::sql::codegen) fn simple_count<'a>(
        &mut self,
        from: &[FromItem<'a, 'b>],
        terms: &[&'a Expr<'b>],
        aggs: &[AggCall<'a, 'b>],
        items: &[ResultItem<'a, 'b>],
        has_columns: bool,
        having: &[&'a Expr<'b>],
        order_by: Option<&'a [SortedColumn<'b>]>,
        ctx: &RowCtx,
    ) -> Result<bool> {
        let [it] = from else { return Ok(false) };
        let [agg] = aggs else { return Ok(false) };
        let Some(table) = it.table.clone() else { return Ok(false) };
        let is_count = agg.def.name.eq_ci("count")
            && agg.def.flags.builtin
            && matches!(agg.def.kind, FuncKind::Aggregate(_))
            && agg.args.is_empty()
            && !agg.distinct
            && matches!(agg.call, Some(Expr::FunctionCallStar { filter_over: None, .. }));
        let lone_item = matches!(items, [ResultItem::Expr(e, _)] if agg.call.is_some_and(|c| std::ptr::eq(*e, c)));
        if !is_count
            || !lone_item
            || has_columns
            || !terms.is_empty()
            || !having.is_empty()
            || it.left
            || it.matched.is_some()
            || it.table_fn.is_some()
            || it.index_hint.is_some()
            || table.view_select.is_some()
        {
            return Ok(false);
        }
        let item_name = it.plan_name.clone().unwrap_or_else(|| self.names.scopes.last().map(|s| s.items[it.item].name.clone()).unwrap_or_default());
        let narrow = self
            .env
            .schema
            .indexes_of(&table)
            .into_iter()
            .filter(|i| i.where_sql.is_none())
            .rev()
            .filter(|i| match &table.without_rowid {
                // (A WITHOUT ROWID table's own tree is its key index; a
                // secondary index also holds the key columns, so it is
                // narrower only if it leaves some column out.)
                Some(pk) => {
                    let mut cols: Vec<usize> = i.columns.iter().filter_map(|c| c.column).chain(pk.iter().map(|k| k.0)).collect();
                    cols.sort_unstable();
                    cols.dedup();
                    i.columns.iter().all(|c| c.column.is_some()) && cols.len() < table.columns.len()
                }
                None => index_is_narrower(&table, i),
            })
            .min_by_key(|i| index_width(&table, i))
            .cloned();
        let counted = match narrow {
            Some(idx) => {
                let cur = self.b.cursor();
                let ki = self.index_key_info(&idx)?;
                self.b.add4(Opcode::OpenRead, cur, idx.root as i32, idx.db as i32, P4::KeyInfo(ki), 0);
                self.comment(&idx.name);
                self.stmt.eqp.push(format_args!("SCAN {item_name} USING COVERING INDEX {}", idx.name));
                cur
            }
            None => {
                self.stmt.eqp.push(format_args!("SCAN {item_name}"));
                it.cursor
            }
        };
        self.b.add(Opcode::Count, counted, agg.acc, 0);
        let saved = self.frame.agg_regs.clone();
        let saved_depth = std::mem::replace(&mut self.frame.agg_scope_depth, self.names.scopes.len());
        self.frame.agg_regs.insert(agg.key.clone(), agg.acc);
        let r = (|| -> Result<()> {
            let regs = self.b.regs(items.len());
            self.compute_items(items, regs)?;
            self.emit_row(ctx, order_by, regs, items.len())
        })();
        self.frame.agg_regs = saved;
        self.frame.agg_scope_depth = saved_depth;
        r.map(|()| true)
    }
}
