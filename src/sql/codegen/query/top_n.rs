//! # ORDER BY ... LIMIT n over an expensive select list: keep the top n
//!
//! SQLite sorts a query with a LIMIT in a temporary index that never
//! holds more than LIMIT rows: each row's sort key is computed first,
//! and a row whose key is not below the largest kept one (once LIMIT rows
//! are kept) is dropped before the other result columns are computed; a
//! row that enters evicts the largest. So a select list with expensive
//! columns (FTS5's `highlight()`/`snippet()` under `ORDER BY bm25(t)`,
//! subqueries, application functions) is computed for few rows, not for
//! every row the loops produce.
//!
//! Ringlite does the same for the plain (non-aggregate) SELECT when the
//! select list has a function call or subquery the ORDER BY does not
//! name, there is a LIMIT and no OFFSET, DISTINCT or row values: the
//! sorter opened for the ORDER BY becomes a temporary index of records
//! (key, sequence, result columns). The sequence number keeps equal keys
//! in arrival order and a row equal to the largest kept one is dropped,
//! so the rows and their order are those of a full stable sort cut at
//! LIMIT. The ORDER BY terms that name result columns are computed once,
//! before the check, and copied into the key.
//!
//! Invariant: in this mode the index holds at most LIMIT rows (LIMIT
//! positive; a negative LIMIT keeps every row), and result columns are
//! computed only for rows that enter it.

use crate::error::Result;
use crate::sql::codegen::Compiler;
use crate::sql::model::expr_shape::walk;
use crate::sql::model::query::{needs_null_key, ResultItem, RowCtx};
use crate::vdbe::program::{Opcode, P4};
use sqlite3_parser::ast::{Expr, SortedColumn};

impl Compiler<'_> {
    /// Whether the rows of this plain SELECT go through a top-n index:
    /// the sorter is still needed, LIMIT without OFFSET, no DISTINCT, no
    /// row values, and a result column not named by the ORDER BY calls a
    /// function or runs a subquery.
    pub(crate) fn wants_top_n(&self, ctx: &RowCtx, items: &[ResultItem<'_, '_>], extra_width: usize) -> bool {
        if ctx.sorter.is_none() || ctx.distinct.is_some() || extra_width > 0 {
            return false;
        }
        if ctx.limit.as_ref().is_none_or(|l| l.offset.is_some()) {
            return false;
        }
        let named: Vec<usize> = ctx.order_map.iter().flatten().copied().collect();
        items.iter().enumerate().any(|(i, it)| match it {
            ResultItem::Expr(e, _) if !named.contains(&i) => {
                let mut costly = false;
                walk(e, &mut |x| {
                    if matches!(x, Expr::FunctionCall { .. } | Expr::FunctionCallStar { .. } | Expr::Subquery(_) | Expr::Exists(_) | Expr::InSelect { .. }) {
                        costly = true;
                    }
                    !costly
                });
                costly
            }
            _ => false,
        })
    }

    /// Turn the sorter of `ctx` into the top-n index (records of `n`
    /// result columns after the key and a sequence number).
    pub(crate) fn open_top_n(&mut self, ctx: &mut RowCtx, n: usize) {
        let Some((sorter, nk)) = ctx.sorter else { return };
        if let Some(i) = self.b.insns.iter_mut().rev().find(|i| i.opcode == Opcode::SorterOpen && i.p1 == sorter) {
            // (Fields past the KeyInfo's, the sequence, compare ascending.)
            i.opcode = Opcode::OpenEphemeral;
            i.p2 = (nk + 1 + n) as i32;
            ctx.top_n = true;
        }
    }

    /// The ORDER BY key of one row into `base..`: each term copied from
    /// its result column or computed, a term sorted NULLS LAST preceded by
    /// its is-NULL flag (`needs_null_key`).
    pub(crate) fn emit_sort_keys(&mut self, ctx: &RowCtx, terms: &[SortedColumn<'_>], regs: i32, base: i32) -> Result<()> {
        let mut k = 0i32;
        for (i, t) in terms.iter().enumerate() {
            let flag = needs_null_key(t);
            let at = base + k + flag as i32;
            match ctx.order_map[i] {
                Some(col) => {
                    self.b.add(Opcode::SCopy, regs + col as i32, at, 0);
                }
                None => {
                    // An aggregate reached here is in the ORDER BY of a
                    // query computing none: SQLite accepts it when
                    // resolving and fails generating code.
                    let saved = std::mem::replace(&mut self.frame.in_aggregate_query, true);
                    let r = self.expr(&t.expr, at);
                    self.frame.in_aggregate_query = saved;
                    r?
                }
            }
            if flag {
                let f = base + k;
                let done = self.b.label();
                self.b.add(Opcode::Integer, 1, f, 0);
                self.b.add(Opcode::IsNull, at, done, 0);
                self.b.add(Opcode::Integer, 0, f, 0);
                self.b.bind(done);
            }
            k += 1 + flag as i32;
        }
        Ok(())
    }

    /// One row of the loops into the top-n index: the key first, the row
    /// dropped if it cannot be among the first LIMIT, the other result
    /// columns computed only for a row that enters.
    pub(crate) fn emit_top_n_row(&mut self, ctx: &RowCtx, terms: &[SortedColumn<'_>], items: &[ResultItem<'_, '_>], regs: i32) -> Result<()> {
        let (Some((index, nk)), Some(limit)) = (ctx.sorter, ctx.limit.as_ref()) else { return Ok(()) };
        let n = items.len();
        let named: Vec<bool> = (0..n).map(|i| ctx.order_map.contains(&Some(i))).collect();
        self.compute_items_where(items, regs, &named)?;
        let base = self.b.regs(nk + 1 + n);
        self.emit_sort_keys(ctx, terms, regs, base)?;
        self.b.add(Opcode::Sequence, index, base + nk as i32, 0);
        let (check, insert, skip) = (self.b.label(), self.b.label(), self.b.label());
        // A negative LIMIT keeps every row.
        self.b.add(Opcode::IfPos, limit.limit, check, 0);
        self.b.add(Opcode::Goto, 0, insert, 0);
        self.b.bind(check);
        let count = self.b.reg();
        self.b.add(Opcode::Count, index, count, 0);
        self.b.add(Opcode::Lt, limit.limit, insert, count);
        // Full: a row not below the largest kept one is dropped, else the
        // largest makes room.
        self.b.add(Opcode::Last, index, insert, 0);
        self.b.add4(Opcode::IdxLE, index, skip, base, P4::Int64(nk as i64), 0);
        self.b.add(Opcode::Delete, index, 0, 0);
        self.b.bind(insert);
        let rest: Vec<bool> = named.iter().map(|x| !x).collect();
        self.compute_items_where(items, regs, &rest)?;
        for i in 0..n {
            self.b.add(Opcode::SCopy, regs + i as i32, base + (nk + 1 + i) as i32, 0);
        }
        let rec = self.b.reg();
        self.b.add(Opcode::MakeRecord, base, (nk + 1 + n) as i32, rec);
        self.b.add(Opcode::IdxInsert, index, rec, 0);
        self.b.bind(skip);
        Ok(())
    }

    /// After the loops: the kept rows, in index order, to the destination.
    pub(crate) fn emit_top_n_output(&mut self, ctx: &RowCtx, n: usize) {
        let Some((index, nk)) = ctx.sorter else { return };
        let done = self.b.label();
        self.b.add(Opcode::Rewind, index, done, 0);
        let top = self.b.here();
        let out = self.b.regs(n);
        for i in 0..n {
            self.b.add(Opcode::Column, index, (nk + 1 + i) as i32, out + i as i32);
        }
        self.emit_final(ctx.dest, out, n, ctx.limit, ctx.end);
        self.b.add(Opcode::Next, index, top as i32, 0);
        self.b.bind(done);
    }
}
