//! GROUP BY over rows that arrive in group order (an index or the rowid
//! read in key order): groups are detected on the fly, as the loops run,
//! with no sorter in between.
//!
//! Invariant: only used when the planner reported the outermost loop's
//! order as serving every GROUP BY term (`plan::order`), so equal keys are
//! adjacent; the comparison of consecutive keys uses the same collations
//! as the sorter-based path.

use crate::error::Result;
use crate::sql::codegen::query::aggregate::AggCall;
use crate::sql::codegen::query::nested_loops::Loop;
use crate::sql::codegen::Compiler;
use crate::sql::model::query::{ResultItem, RowCtx};
use crate::sql::resolve::ColumnRef;
use crate::value::record::KeyInfo;
use crate::vdbe::program::{Opcode, P4};
use sqlite3_parser::ast::{Expr, SortedColumn};
use std::sync::Arc;

/// The state shared by the loop body and the output subroutine.
pub(in crate::sql::codegen) struct StreamedGroups<'g, 'a, 'b> {
    /// The GROUP BY expressions.
    pub groups: &'g [&'a Expr<'b>],
    /// How group keys compare.
    pub key_info: Arc<KeyInfo>,
    /// Register: 1 once a group has started.
    pub has_group: i32,
    /// Registers holding the group's last row's plain columns.
    pub col_regs: i32,
}

impl<'b> Compiler<'_> {
    /// Emit the body of `loops` (already open) and close them: start a
    /// group when the key changes (outputting the previous one), step the
    /// aggregates; after the loops, output the last group.
    pub(in crate::sql::codegen) fn stream_groups<'a>(
        &mut self,
        g: StreamedGroups<'_, 'a, 'b>,
        loops: Vec<Loop>,
        aggs: &[AggCall<'a, 'b>],
        cols: &[ColumnRef],
        items: &[ResultItem<'a, 'b>],
        having: &[&'a Expr<'b>],
        order_by: Option<&'a [SortedColumn<'b>]>,
        ctx: &RowCtx,
    ) -> Result<()> {
        let ng = g.groups.len();
        let prev = self.b.regs(ng);
        let cur = self.b.regs(ng);
        let out_ret = self.b.reg();
        let first_row = self.b.reg();
        let output = self.b.label();
        let new_group = self.b.label();
        let init = self.b.label();
        let same = self.b.label();
        for (i, e) in g.groups.iter().enumerate() {
            self.expr(e, cur + i as i32)?;
        }
        self.b.add(Opcode::IfNot, g.has_group, new_group, 0);
        self.b.add4(Opcode::Compare, cur, prev, ng as i32, P4::KeyInfo(g.key_info.clone()), 0);
        self.b.add(Opcode::Jump, new_group, same, new_group);
        self.b.bind(new_group);
        self.b.add(Opcode::IfNot, g.has_group, init, 0);
        self.b.add(Opcode::Gosub, out_ret, output, 0);
        self.b.bind(init);
        self.b.add(Opcode::Copy, cur, prev, ng as i32 - 1);
        self.reset_aggs(aggs);
        self.b.add(Opcode::Integer, 1, g.has_group, 0);
        self.b.add(Opcode::Integer, 0, first_row, 0);
        self.b.bind(same);
        // Bare columns come from the group's first row, or the row holding
        // a min()/max()'s best value (see `step_row_and_bare_columns`).
        self.step_row_and_bare_columns(
            aggs,
            |c, i| {
                let args = c.b.regs(aggs[i].args.len());
                for (k, e) in aggs[i].args.iter().enumerate() {
                    c.expr(e, args + k as i32)?;
                }
                Ok(args)
            },
            cols.len(),
            g.col_regs,
            first_row,
            |c, i, reg| c.emit_column(&cols[i], reg),
        )?;
        self.close_loops(loops);
        let done = self.b.label();
        self.b.add(Opcode::IfNot, g.has_group, done, 0);
        self.b.add(Opcode::Gosub, out_ret, output, 0);
        self.b.add(Opcode::Goto, 0, done, 0);
        self.b.bind(output);
        let ret = self.b.label();
        self.agg_output(aggs, cols, g.col_regs, items, having, order_by, ctx, ret)?;
        self.b.bind(ret);
        self.b.add(Opcode::Return, out_ret, 0, 0);
        self.b.bind(done);
        Ok(())
    }
}
