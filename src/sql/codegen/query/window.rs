//! Window functions with their default frames: `row_number()`, `rank()`,
//! `dense_rank()`, and aggregates `OVER (PARTITION BY ... ORDER BY ...)`.
//!
//! The rows of the query are first stored in a temporary table; then, per
//! window definition, they are sorted by partition and order keys and
//! walked with two cursors over two copies of the sorted rows: the
//! leading one steps the aggregates over a whole peer group (rows with
//! equal keys), the trailing one hands each row of that group its value
//! (the default frame ends at the last peer of the current row; without
//! ORDER BY the whole partition is one peer group). Values are kept per
//! row and picked up when the result rows are produced. ROWS frames with
//! offsets step a fresh accumulator per row; RANGE/GROUPS frames with
//! offsets and EXCLUDE clauses are framed in `window_frame`. Frames not
//! covered there, and the other window functions, are reported as not
//! supported.
//!
//! SQLite's parse-time rules hold: a frame may not start after its end
//! ("unsupported frame specification", checked for the definitions of
//! a WINDOW clause too, used or not), and an offset that is not a constant (a
//! column, a function call, a subquery) is NULL, refused when the frame
//! is first used. Aggregates inside a window's definition make the query
//! an aggregate one. The rows come out in the first window's order, so an
//! ORDER BY that order serves is not sorted again. The calls, their
//! windows as written and the parse-time frame check are `window_spec.rs`'s.

use crate::error::Result;
use crate::sql::codegen::query::window_frame::{Bound, Exclude, FrameScan};
use crate::sql::codegen::query::window_spec::{Frame, WinCall, WinKind, WinSpec};
use crate::sql::codegen::{ColumnSource, Compiler};
use crate::sql::model::expr_shape::walk;
use crate::sql::model::expr_shape::window_of;
use crate::sql::model::from::FromItem;
use crate::sql::model::query::{ResultItem, RowCtx};
use crate::sql::parse::unquote;
use crate::sql::plan::prelude::*;
use crate::sql::resolve::ColumnRef;
use crate::util::ascii::AsciiLower;
use crate::value::record::{KeyField, KeyInfo};
use crate::vdbe::func::{FuncDef, FuncKind};
use crate::vdbe::program::{Opcode, P4};
use sqlite3_parser::ast::{self, Expr, SortOrder, SortedColumn};
use std::sync::Arc;

impl<'b> Compiler<'_> {
    /// `flag` = 1 when `value` is NULL, else 0: the sort-key field that
    /// orders NULLs as NULLS FIRST/LAST asks.
    fn null_flag(&mut self, value: i32, flag: i32) {
        let done = self.b.label();
        self.b.add(Opcode::Integer, 1, flag, 0);
        self.b.add(Opcode::IsNull, value, done, 0);
        self.b.add(Opcode::Integer, 0, flag, 0);
        self.b.bind(done);
    }

    fn window_key_info(&mut self, spec: &WinSpec<'_, '_>) -> Result<Arc<KeyInfo>> {
        let mut fields = Vec::new();
        for e in spec.partition_by.unwrap_or(&[]) {
            let coll = match self.expr_collation(e) {
                Some((n, _)) => self.collation(&n)?,
                None => crate::value::collation::Collation::binary(),
            };
            fields.push(KeyField { collation: coll, descending: false });
        }
        for t in spec.order_by.unwrap_or(&[]) {
            let coll = match self.expr_collation(&t.expr) {
                Some((n, _)) => self.collation(&n)?,
                None => crate::value::collation::Collation::binary(),
            };
            let descending = matches!(t.order, Some(SortOrder::Desc));
            // NULLS FIRST/LAST against the default: an "is NULL" key first.
            if crate::sql::model::query::needs_null_key(t) {
                fields.push(KeyField { collation: crate::value::collation::Collation::binary(), descending });
            }
            fields.push(KeyField { collation: coll, descending });
        }
        Ok(Arc::new(KeyInfo { fields }))
    }

    /// Compile a SELECT whose result or ORDER BY uses window functions.
    pub fn compile_window<'a>(
        &mut self,
        from: &[FromItem<'a, 'b>],
        terms: &[&'a Expr<'b>],
        items: &[ResultItem<'a, 'b>],
        order_by: Option<&'a [SortedColumn<'b>]>,
        defs: Option<&'a [ast::WindowDef<'b>]>,
        ctx: &mut RowCtx,
        grouping: Option<(Option<&'a [Expr<'b>]>, &[&'a Expr<'b>])>,
    ) -> Result<()> {
        let defs = defs.unwrap_or(&[]);
        let mut calls: Vec<WinCall<'a, 'b>> = Vec::new();
        let mut cols: Vec<ColumnRef> = Vec::new();
        for it in items {
            match it {
                ResultItem::Expr(e, _) => {
                    self.collect_windows(e, defs, &mut calls)?;
                    self.collect_plain_columns(e, &mut cols);
                }
                ResultItem::Col(r, _, _) => cols.push(r.clone()),
            }
        }
        // A window call in a result column (its arguments, FILTER, PARTITION
        // BY, ORDER BY) cannot name the SELECT's own aliases.
        for c in &calls {
            let mut exprs: Vec<&Expr<'_>> = c.args.clone();
            exprs.extend(c.spec.partition_by.unwrap_or(&[]).iter());
            exprs.extend(c.spec.order_by.unwrap_or(&[]).iter().map(|t| &t.expr));
            self.refuse_own_aliases(&exprs)?;
        }
        for t in order_by.unwrap_or(&[]) {
            self.collect_windows(&t.expr, defs, &mut calls)?;
            self.collect_plain_columns(&t.expr, &mut cols);
        }
        // A subquery in the output may read any column of the row (a
        // correlated reference is not collected above): keep them all, as
        // an aggregate query does.
        let outputs = items.iter().filter_map(|it| if let ResultItem::Expr(e, _) = it { Some(*e) } else { None });
        if outputs.chain(order_by.unwrap_or(&[]).iter().map(|t| &t.expr)).any(crate::sql::model::expr_shape::has_subquery) {
            self.collect_all_columns(from, &mut cols);
        }
        // Rows come out in the first window's order: an ORDER BY that
        // order already satisfies needs no sort (as in SQLite, where the
        // windows' subquery order serves it).
        if let (Some(first), Some(terms), true) = (calls.first(), order_by, ctx.sorter.is_some()) {
            if order_served_by_window(terms, &ctx.order_map, items, &first.spec) {
                self.drop_sorter(ctx);
            }
        }
        // In an aggregate query the windows run over the groups: the
        // aggregates named outside window calls are stored with each group.
        let mut agg_calls: Vec<&'a Expr<'b>> = Vec::new();
        if grouping.is_some() {
            let exprs = items.iter().filter_map(|it| match it {
                ResultItem::Expr(e, _) => Some(*e),
                ResultItem::Col(..) => None,
            });
            for e in exprs.chain(order_by.unwrap_or(&[]).iter().map(|t| &t.expr)) {
                self.collect_outer_aggregates(e, &mut agg_calls);
            }
        }
        // Row layout in the stored table: plain columns, those aggregates,
        // then per call its arguments, partition keys and order keys.
        let nc = cols.len() + agg_calls.len();
        let mut layout: Vec<(usize, usize, usize, usize)> = Vec::new(); // (args at, n args, keys at, n keys)
        let mut width = nc;
        for c in &calls {
            let nk = c.spec.partition_by.map_or(0, |p| p.len()) + c.spec.order_by.map_or(0, crate::sql::model::query::key_width);
            layout.push((width, c.args.len(), width + c.args.len(), nk));
            width += c.args.len() + nk;
        }
        let store = self.b.cursor();
        self.b.add(Opcode::OpenEphemeral, store, width as i32, 0);
        let mut served = false;
        if let Some((group_by, having)) = grouping {
            // One stored row per group, from the aggregate query itself.
            let mut stored: Vec<ResultItem<'a, 'b>> = cols.iter().map(|c| ResultItem::Col(c.clone(), String::new(), true)).collect();
            stored.extend(agg_calls.iter().map(|e| ResultItem::Expr(e, None)));
            for c in &calls {
                stored.extend(c.args.iter().map(|e| ResultItem::Expr(e, None)));
                stored.extend(c.spec.partition_by.unwrap_or(&[]).iter().map(|e| ResultItem::Expr(e, None)));
                for t in c.spec.order_by.unwrap_or(&[]) {
                    // A NULLS FIRST/LAST term's flag field gets the value
                    // too; `window_pass` turns it into the flag.
                    if crate::sql::model::query::needs_null_key(t) {
                        stored.push(ResultItem::Expr(&t.expr, None));
                    }
                    stored.push(ResultItem::Expr(&t.expr, None));
                }
            }
            let end = self.b.label();
            let mut sctx = RowCtx {
                dest: crate::sql::model::query::Dest::EphemTable(store),
                sorter: None,
                order_map: Vec::new(),
                distinct: None,
                limit: None,
                end,
                top_n: false,
            };
            self.compile_aggregate(from, terms, &stored, Some(items), group_by, having, None, &mut sctx)?;
            self.b.bind(end);
        } else {
            served = self.fill_window_store(from, terms, &cols, &calls, &layout, store, width)?;
        }
        self.window_output(&calls, &layout, &cols, &agg_calls, store, items, order_by, ctx, served)
    }

    /// "no such column" for a name in `exprs` that is only one of the
    /// SELECT's own result aliases.
    fn refuse_own_aliases(&mut self, exprs: &[&Expr<'_>]) -> Result<()> {
        let mut ids: Vec<String> = Vec::new();
        for e in exprs {
            crate::sql::model::expr_shape::walk(e, &mut |x| {
                if let Expr::Id(id) = x {
                    ids.push(unquote(id.0));
                }
                true
            });
        }
        for id in ids {
            let own = self.names.aliases.last().is_some_and(|l| l.list.iter().any(|(n, _)| n.eq_ci(&id)));
            if own && self.resolve_name(None, &id).ok().flatten().is_none() {
                return Err(crate::sql::resolve::no_such_column(None, &id));
            }
        }
        Ok(())
    }

    /// Store the query's rows for the windows: plain columns, then each
    /// call's arguments and keys.
    fn fill_window_store<'a>(
        &mut self,
        from: &[FromItem<'a, 'b>],
        terms: &[&'a Expr<'b>],
        cols: &[ColumnRef],
        calls: &[WinCall<'a, 'b>],
        layout: &[(usize, usize, usize, usize)],
        store: i32,
        width: usize,
    ) -> Result<bool> {
        // The loops are asked for the order of the window computed first
        // (the last one written with its keys), as SQLite's innermost
        // query is; when they give it, that window sorts nothing.
        let goal = calls.last().and_then(|c| self.window_goal(&c.spec));
        let req = crate::sql::plan::goal::LoopRequest { goal, uses: None };
        let (loops, served) = self.open_loops_with(from, terms, &req)?;
        let regs = self.b.regs(width.max(1));
        for (i, c) in cols.iter().enumerate() {
            self.emit_column(c, regs + i as i32)?;
        }
        for (ci, c) in calls.iter().enumerate() {
            let (at, na, kat, _) = layout[ci];
            for (k, a) in c.args.iter().enumerate() {
                self.expr(a, regs + (at + k) as i32)?;
            }
            let mut k = kat;
            for e in c.spec.partition_by.unwrap_or(&[]) {
                self.expr(e, regs + k as i32)?;
                k += 1;
            }
            for t in c.spec.order_by.unwrap_or(&[]) {
                if crate::sql::model::query::needs_null_key(t) {
                    let (flag, value) = (regs + k as i32, regs + k as i32 + 1);
                    self.expr(&t.expr, value)?;
                    self.null_flag(value, flag);
                    k += 2;
                } else {
                    self.expr(&t.expr, regs + k as i32)?;
                    k += 1;
                }
            }
            let _ = na;
        }
        let rec = self.b.reg();
        let rid = self.b.reg();
        self.b.add(Opcode::MakeRecord, regs, width as i32, rec);
        self.b.add(Opcode::NewRowid, store, rid, 0);
        self.b.add(Opcode::Insert, store, rec, rid);
        self.close_loops(loops);
        Ok(served)
    }

    /// The order of `spec`'s sort (PARTITION BY ascending, then ORDER BY)
    /// as a goal for the loops, when each key is a plain column of one
    /// FROM item.
    fn window_goal(&mut self, spec: &WinSpec<'_, '_>) -> Option<crate::sql::plan::order::OrderGoal> {
        // (Each key under the collation it sorts with, made explicit: the
        // goal is built from sort terms.)
        let keys: Vec<(&Expr<'_>, Option<SortOrder>, Option<ast::NullsOrder>)> = spec
            .partition_by
            .unwrap_or(&[])
            .iter()
            .map(|e| (e, None, None))
            .chain(spec.order_by.unwrap_or(&[]).iter().map(|t| (&t.expr, t.order, t.nulls)))
            .collect();
        if keys.is_empty() {
            return None;
        }
        let names: Vec<String> = keys.iter().map(|(e, _, _)| self.expr_collation(e).map_or_else(|| "BINARY".to_string(), |c| c.0)).collect();
        let terms: Vec<SortedColumn<'_>> =
            keys.iter().zip(&names).map(|((e, order, nulls), n)| SortedColumn { expr: Expr::Collate(e, n.as_str()), order: *order, nulls: *nulls }).collect();
        self.order_by_goal(&terms, &[], &[])
    }

    /// Compute the windows over the stored rows and produce the result.
    fn window_output<'a>(
        &mut self,
        calls: &[WinCall<'a, 'b>],
        layout: &[(usize, usize, usize, usize)],
        cols: &[ColumnRef],
        agg_calls: &[&'a Expr<'b>],
        store: i32,
        items: &[ResultItem<'a, 'b>],
        order_by: Option<&'a [SortedColumn<'b>]>,
        ctx: &RowCtx,
        served: bool,
    ) -> Result<()> {
        let nc = cols.len() + agg_calls.len();
        // Per call: its values by stored rowid. As in SQLite, the windows
        // are computed last one first, each sorting the rows in the order
        // the one before left them (the sort is stable), and the result
        // comes out in the first window's order.
        let mut specs: Vec<String> = Vec::new();
        for c in calls {
            let spec = window_spec_text(&c.spec);
            if !specs.contains(&spec) {
                specs.push(spec);
            }
        }
        let mut value_tables = vec![0; calls.len()];
        let mut input: Option<(i32, usize)> = None;
        // The rows are in a window's order when its keys begin the order
        // they are in: the order the loops gave for the first window
        // computed (`served`), or the keys the last sort used. No sort
        // then, as in SQLite, whose plan shows one sort per other window.
        let first_keys = specs.last().and_then(|sp| calls.iter().find(|c| &window_spec_text(&c.spec) == sp)).map(|c| window_sort_keys(&c.spec));
        let mut sorted_by: Option<Vec<String>> = first_keys.filter(|_| served);
        for spec in specs.iter().rev() {
            let mut last = None;
            let keys = calls.iter().find(|c| &window_spec_text(&c.spec) == spec).map(|c| window_sort_keys(&c.spec)).unwrap_or_default();
            let presorted = sorted_by.as_ref().map_or(keys.is_empty(), |o| o.starts_with(&keys));
            if !presorted {
                self.stmt.eqp.push(format_args!("USE TEMP B-TREE FOR ORDER BY"));
            }
            for (ci, c) in calls.iter().enumerate().filter(|(_, c)| &window_spec_text(&c.spec) == spec) {
                let vt = self.b.cursor();
                self.b.add(Opcode::OpenEphemeral, vt, 1, 0);
                value_tables[ci] = vt;
                last = Some(self.window_pass(c, layout[ci], store, vt, input, presorted)?);
            }
            if !presorted {
                sorted_by = Some(keys);
            }
            input = last.or(input);
        }

        // Output rows in the first window's order.
        let end = self.b.label();
        let srid = self.b.reg();
        let top = match input {
            Some((sorted, rid_col)) => {
                self.b.add(Opcode::Rewind, sorted, end, 0);
                let top = self.b.here();
                self.b.add(Opcode::Column, sorted, rid_col as i32, srid);
                self.b.add(Opcode::SeekRowid, store, end, srid);
                top
            }
            None => {
                self.b.add(Opcode::Rewind, store, end, 0);
                let top = self.b.here();
                self.b.add(Opcode::Rowid, store, srid, 0);
                top
            }
        };
        let next = self.b.label();
        let col_regs = self.b.regs(nc.max(1));
        for i in 0..nc {
            self.b.add(Opcode::Column, store, i as i32, col_regs + i as i32);
        }
        // The mappings are this query's only (see `aggregate.rs`).
        let saved_maps = (self.frame.agg_regs.clone(), self.frame.col_map.clone());
        let saved_depth = std::mem::replace(&mut self.frame.agg_scope_depth, self.names.scopes.len());
        for (ci, c) in calls.iter().enumerate() {
            self.b.add(Opcode::SeekRowid, value_tables[ci], next, srid);
            self.b.add(Opcode::Column, value_tables[ci], 0, c.result);
            if let Some(old) = self.frame.agg_regs.insert(c.key.clone(), c.result).filter(|&old| old != c.result) {
                self.names.agg_shadowed.insert(c.result, old);
            }
        }
        for (i, c) in cols.iter().enumerate() {
            self.frame.col_map.insert((c.cursor, c.column.map_or(-1, |x| x as i64)), ColumnSource::Register(col_regs + i as i32));
        }
        for (i, e) in agg_calls.iter().enumerate() {
            self.frame.agg_regs.insert(e.to_string(), col_regs + (cols.len() + i) as i32);
        }
        let r = (|| -> Result<()> {
            let out = self.b.regs(items.len());
            self.compute_items(items, out)?;
            self.emit_row(ctx, order_by, out, items.len())
        })();
        (self.frame.agg_regs, self.frame.col_map) = saved_maps;
        self.frame.agg_scope_depth = saved_depth;
        r?;
        self.b.bind(next);
        self.b.add(Opcode::Next, input.map_or(store, |(sorted, _)| sorted), top as i32, 0);
        self.b.bind(end);
        Ok(())
    }

    /// The aggregate calls in `e` outside window calls (each once).
    fn collect_outer_aggregates<'a>(&self, e: &'a Expr<'b>, out: &mut Vec<&'a Expr<'b>>) {
        walk(e, &mut |x| {
            if window_of(x).is_some() {
                return false;
            }
            if crate::sql::codegen::is_aggregate_call(self, x) {
                let text = x.to_string();
                if !out.iter().any(|y| y.to_string() == text) {
                    out.push(x);
                }
                return false;
            }
            true
        });
    }

    /// SQLite computes sum(), total() and avg() over a frame whose start
    /// moves by adding the rows that enter and removing those that leave
    /// (its inverse step), so an infinite value that has left the frame
    /// leaves a NaN behind (inf - inf) for the rest of the partition: the
    /// result is NULL from then on. Ours steps a fresh accumulator per row;
    /// this tracks the rows that left (`[first frame start, lo)` of the
    /// partition, each looked at once) and makes `value` NULL once one of
    /// them held an infinity.
    fn sliding_sum_nan(
        &mut self,
        lo: i32,
        part_start: i32,
        peek: i32,
        part_keys: Option<(usize, i32, Arc<KeyInfo>)>,
        nk: usize,
        na: usize,
        filtered: bool,
        value: i32,
    ) {
        let (poison, upto, seen_part, one, x, d) = (self.b.reg(), self.b.reg(), self.b.reg(), self.b.reg(), self.b.reg(), self.b.reg());
        // A new partition (its first row's frame start is where rows begin
        // to leave).
        let same_part = self.b.label();
        self.b.add4(Opcode::Eq, part_start, same_part, seen_part, P4::None, 0);
        self.b.add(Opcode::SCopy, part_start, seen_part, 0);
        self.b.add(Opcode::SCopy, lo, upto, 0);
        self.b.add(Opcode::Integer, 0, poison, 0);
        self.b.bind(same_part);
        self.b.add(Opcode::Integer, 1, one, 0);
        let scanned = self.b.label();
        let scan = self.b.here();
        self.b.add4(Opcode::Ge, lo, scanned, upto, P4::None, 0);
        let skip = self.b.label();
        self.b.add(Opcode::SeekRowid, peek, skip, upto);
        if let Some((np, trail, pki)) = &part_keys {
            // (Past the partition's last row: nothing more left a frame.)
            let (pk, tk) = (self.b.regs(*np), self.b.regs(*np));
            for k in 0..*np {
                self.b.add(Opcode::Column, peek, k as i32, pk + k as i32);
                self.b.add(Opcode::Column, *trail, k as i32, tk + k as i32);
            }
            let same = self.b.label();
            self.b.add4(Opcode::Compare, pk, tk, *np as i32, P4::KeyInfo(pki.clone()), 0);
            self.b.add(Opcode::Jump, scanned, same, scanned);
            self.b.bind(same);
        }
        if filtered {
            let f = self.b.reg();
            self.b.add(Opcode::Column, peek, (nk + na) as i32, f);
            self.b.add(Opcode::IfNot, f, skip, 1);
        }
        self.b.add(Opcode::Column, peek, (nk + 1) as i32, x);
        self.b.add(Opcode::IsNull, x, skip, 0);
        // (x - x is NULL, a NaN, exactly when x is infinite.)
        self.b.add(Opcode::Subtract, x, x, d);
        self.b.add(Opcode::NotNull, d, skip, 0);
        self.b.add(Opcode::Integer, 1, poison, 0);
        self.b.bind(skip);
        self.b.add(Opcode::Add, one, upto, upto);
        self.b.add(Opcode::Goto, 0, scan as i32, 0);
        self.b.bind(scanned);
        let keep = self.b.label();
        self.b.add(Opcode::IfNot, poison, keep, 0);
        self.b.add(Opcode::Null, 0, value, 0);
        self.b.bind(keep);
    }

    fn collect_plain_columns(&mut self, e: &Expr<'_>, out: &mut Vec<ColumnRef>) {
        for (q, n) in crate::sql::plan::terms::column_names(e) {
            if let Ok(Some(r)) = self.resolve_name(q.as_deref(), &n) {
                if r.depth == 0 && !out.iter().any(|c| c.cursor == r.cursor && c.column == r.column) {
                    out.push(r);
                }
            }
        }
    }

    /// Compute one window call's value for every stored row, reading the
    /// rows in `input`'s order (a sorted copy of an earlier pass and the
    /// column holding the stored rowid) or else in stored order. Returns
    /// this pass's sorted copy, for the next pass and the output.
    fn window_pass(
        &mut self,
        c: &WinCall<'_, '_>,
        layout: (usize, usize, usize, usize),
        store: i32,
        values: i32,
        input: Option<(i32, usize)>,
        presorted: bool,
    ) -> Result<(i32, usize)> {
        let (at, na, kat, nk) = layout;
        let np = c.spec.partition_by.map_or(0, |p| p.len());
        let ki = self.window_key_info(&c.spec)?;
        // An application's aggregate with an inverse over a ROWS frame
        // with offsets runs as SQLite runs it: one accumulator per
        // partition, rows entering the frame stepped, rows leaving it
        // removed with xInverse, each row's result from xValue, and xFinal
        // once at the partition's end (its value and error unused). The
        // built-in ones get the same results from a fresh accumulator per
        // row (see `sliding_sum_nan` for the one difference).
        let moving = matches!((&c.kind, c.frame), (WinKind::Agg(def), Frame::Rows(..))
            if !def.flags.builtin && matches!(&def.kind, FuncKind::Aggregate(a) if a.has_inverse()));
        // The partition's accumulator is stepped by the leading cursor for
        // the frames that grow with the peer groups; the other frames step
        // accumulators of their own. An application's function is given
        // its xFinal at each partition's end, as in SQLite.
        let leading_acc = !matches!(c.frame, Frame::Rows(..) | Frame::Value(_));
        let final_at_end = matches!(&c.kind, WinKind::Agg(def) if !def.flags.builtin) && (moving || leading_acc);
        // Sort (keys, rowid, args) and keep copies of the sorted rows. Rows
        // read in this window's order already (`presorted`: the loops gave
        // it, or the pass before sorted by the same keys) are copied as
        // they come, without a sort, as SQLite then has none.
        let w = nk + 1 + na;
        let sorter = self.b.cursor();
        let lead = self.b.cursor();
        let trail = self.b.cursor();
        let peek = self.b.cursor();
        if presorted {
            for cur in [lead, trail, peek] {
                self.b.add(Opcode::OpenEphemeral, cur, w as i32, 0);
            }
        } else {
            self.b.add4(Opcode::SorterOpen, sorter, w as i32, 0, P4::KeyInfo(ki.clone()), 0);
        }
        let end = self.b.label();
        let reader = input.map_or(store, |(sorted, _)| sorted);
        self.b.add(Opcode::Rewind, reader, end, 0);
        let top = self.b.here();
        let regs = self.b.regs(w);
        if let Some((sorted, rid_col)) = input {
            let srid = self.b.reg();
            self.b.add(Opcode::Column, sorted, rid_col as i32, srid);
            self.b.add(Opcode::SeekRowid, store, end, srid);
        }
        for k in 0..nk {
            self.b.add(Opcode::Column, store, (kat + k) as i32, regs + k as i32);
        }
        // The NULL flag of a NULLS FIRST/LAST term is (re)computed from the
        // value after it: the rows of an aggregate query store the value in
        // both fields.
        let mut k = np;
        for t in c.spec.order_by.unwrap_or(&[]) {
            if crate::sql::model::query::needs_null_key(t) {
                let (flag, value) = (regs + k as i32, regs + k as i32 + 1);
                self.null_flag(value, flag);
                k += 2;
            } else {
                k += 1;
            }
        }
        debug_assert_eq!(k, nk);
        self.b.add(Opcode::Rowid, store, regs + nk as i32, 0);
        for k in 0..na {
            self.b.add(Opcode::Column, store, (at + k) as i32, regs + (nk + 1 + k) as i32);
        }
        let rec = self.b.reg();
        self.b.add(Opcode::MakeRecord, regs, w as i32, rec);
        if presorted {
            let seq = self.b.reg();
            self.b.add(Opcode::NewRowid, lead, seq, 0);
            for cur in [lead, trail, peek] {
                self.b.add(Opcode::Insert, cur, rec, seq);
            }
        } else {
            self.b.add(Opcode::SorterInsert, sorter, rec, 0);
        }
        self.b.add(Opcode::Next, reader, top as i32, 0);
        self.b.bind(end);
        if !presorted {
            let sorted_end = self.b.label();
            let drec = self.b.reg();
            let pseudo = self.b.cursor();
            self.b.add(Opcode::OpenEphemeral, lead, w as i32, 0);
            self.b.add(Opcode::OpenEphemeral, trail, w as i32, 0);
            self.b.add(Opcode::OpenEphemeral, peek, w as i32, 0);
            self.b.add(Opcode::OpenPseudo, pseudo, drec, w as i32);
            self.b.add(Opcode::SorterSort, sorter, sorted_end, 0);
            let stop = self.b.here();
            self.b.add(Opcode::SorterData, sorter, drec, pseudo);
            let seq = self.b.reg();
            self.b.add(Opcode::NewRowid, lead, seq, 0);
            self.b.add(Opcode::Insert, lead, drec, seq);
            self.b.add(Opcode::Insert, trail, drec, seq);
            self.b.add(Opcode::Insert, peek, drec, seq);
            self.b.add(Opcode::SorterNext, sorter, stop as i32, 0);
            self.b.bind(sorted_end);
        }

        // Walk peer groups.
        let done = self.b.label();
        let rownum = self.b.reg();
        let dense = self.b.reg();
        let group_first = self.b.reg();
        let count = self.b.reg();
        let eof = self.b.reg();
        let cur = self.b.regs(nk.max(1));
        let prev = self.b.regs(nk.max(1));
        let args = self.b.regs(na.max(1));
        self.b.add(Opcode::Integer, 0, eof, 0);
        self.b.add(Opcode::Rewind, lead, done, 0);
        self.b.add(Opcode::Rewind, trail, done, 0);
        // Offsets are checked once there is a row (a query without rows
        // never fails on them, as in SQLite).
        let frame_offs = match c.frame {
            Frame::Value(f) => self.frame_offsets(&f, c.offsets)?,
            _ => (0, 0),
        };
        for k in 0..nk {
            self.b.add(Opcode::Column, lead, k as i32, cur + k as i32);
        }
        let new_part = self.b.label();
        let group = self.b.label();
        // First row: a new partition.
        self.b.add(Opcode::Goto, 0, new_part, 0);
        let outer = self.b.here();
        if np > 0 {
            let pk = Arc::new(KeyInfo { fields: ki.fields[..np].to_vec() });
            self.b.add4(Opcode::Compare, cur, prev, np as i32, P4::KeyInfo(pk), 0);
            self.b.add(Opcode::Jump, new_part, group, new_part);
        } else {
            self.b.add(Opcode::Goto, 0, group, 0);
        }
        self.b.bind(new_part);
        self.b.add(Opcode::Integer, 0, rownum, 0);
        self.b.add(Opcode::Integer, 0, dense, 0);
        if let (WinKind::Agg(def), true) = (&c.kind, final_at_end) {
            self.b.add4(Opcode::AggFinal, c.acc, (na - c.filtered as usize) as i32, 0, P4::Func(def.clone()), 1);
        }
        self.b.add(Opcode::Null, 0, c.acc, 0);
        let first_val = self.b.reg();
        let last_val = self.b.reg();
        let part_rows = self.b.reg();
        self.b.add(Opcode::Integer, 0, part_rows, 0);
        let part_start = self.b.reg();
        self.b.add(Opcode::Rowid, lead, part_start, 0);
        // The moving accumulator holds the rows with rowids m_lo..m_next.
        let (m_lo, m_next) = (self.b.reg(), self.b.reg());
        if moving {
            self.b.add(Opcode::SCopy, part_start, m_lo, 0);
            self.b.add(Opcode::SCopy, part_start, m_next, 0);
        }
        // Where a row's frame scan starts (see `window_frame`).
        let (scan_from, scan_group) = (self.b.reg(), self.b.reg());
        if matches!(c.frame, Frame::Value(_)) {
            self.b.add(Opcode::SCopy, part_start, scan_from, 0);
            self.b.add(Opcode::Integer, 1, scan_group, 0);
        }
        if na > 0 {
            self.b.add(Opcode::Column, lead, (nk + 1) as i32, first_val);
        }
        // Partition size, for the functions that need it.
        let part_size = self.b.reg();
        if matches!(c.kind, WinKind::PercentRank | WinKind::CumeDist | WinKind::Ntile) {
            let s = self.b.reg();
            let counted = self.b.label();
            self.b.add(Opcode::Rowid, lead, s, 0);
            self.b.add(Opcode::Integer, 0, part_size, 0);
            self.b.add(Opcode::SeekRowid, peek, counted, s);
            let cnt_top = self.b.here();
            let one1 = self.b.reg();
            self.b.add(Opcode::Integer, 1, one1, 0);
            self.b.add(Opcode::Add, one1, part_size, part_size);
            let more_rows = self.b.label();
            self.b.add(Opcode::Next, peek, more_rows, 0);
            self.b.add(Opcode::Goto, 0, counted, 0);
            self.b.bind(more_rows);
            if np > 0 {
                let pk = self.b.regs(np);
                for k in 0..np {
                    self.b.add(Opcode::Column, peek, k as i32, pk + k as i32);
                }
                let pki = Arc::new(KeyInfo { fields: ki.fields[..np].to_vec() });
                self.b.add4(Opcode::Compare, pk, cur, np as i32, P4::KeyInfo(pki), 0);
                self.b.add(Opcode::Jump, counted, cnt_top as i32, counted);
            } else {
                self.b.add(Opcode::Goto, 0, cnt_top as i32, 0);
            }
            self.b.bind(counted);
        }
        self.b.bind(group);
        if nk > 0 {
            self.b.add(Opcode::Copy, cur, prev, nk as i32 - 1);
        }
        self.b.add(Opcode::Integer, 0, count, 0);
        let one = self.b.reg();
        self.b.add(Opcode::Integer, 1, one, 0);
        self.b.add(Opcode::Add, one, rownum, group_first);
        self.b.add(Opcode::Add, one, dense, dense);
        // Leading cursor: step the aggregate over the peer group.
        let step = self.b.here();
        if let (WinKind::Agg(def), true) = (&c.kind, leading_acc) {
            for k in 0..na {
                self.b.add(Opcode::Column, lead, (nk + 1 + k) as i32, args + k as i32);
            }
            self.restore_json_subtypes(&c.args, args)?;
            let unfiltered = self.b.label();
            if c.filtered {
                self.b.add(Opcode::IfNot, args + na as i32 - 1, unfiltered, 1);
            }
            self.b.add4(Opcode::AggStep, 0, args, c.acc, P4::Func(def.clone()), (na - c.filtered as usize) as u16);
            self.b.bind(unfiltered);
        }
        self.b.add(Opcode::Add, one, count, count);
        if matches!(c.kind, WinKind::LastValue | WinKind::NthValue) {
            self.b.add(Opcode::Add, one, part_rows, part_rows);
            self.b.add(Opcode::Column, lead, (nk + 1) as i32, last_val);
        }
        let at_end = self.b.label();
        let more = self.b.label();
        self.b.add(Opcode::Next, lead, more, 0);
        self.b.add(Opcode::Integer, 1, eof, 0);
        self.b.add(Opcode::Goto, 0, at_end, 0);
        self.b.bind(more);
        for k in 0..nk {
            self.b.add(Opcode::Column, lead, k as i32, cur + k as i32);
        }
        // How far the leading cursor runs before values are handed out:
        // one peer group, one row, or the whole partition.
        let group_keys = match c.frame {
            Frame::ToPeers | Frame::Value(_) => nk,
            Frame::ToRow | Frame::Rows(..) => 0,
            Frame::Partition => np,
        };
        if matches!(c.frame, Frame::ToRow | Frame::Rows(..)) {
            self.b.add(Opcode::Goto, 0, at_end, 0);
        } else if group_keys > 0 {
            let gk = Arc::new(KeyInfo { fields: ki.fields[..group_keys].to_vec() });
            self.b.add4(Opcode::Compare, cur, prev, group_keys as i32, P4::KeyInfo(gk), 0);
            self.b.add(Opcode::Jump, at_end, step as i32, at_end);
        } else {
            self.b.add(Opcode::Goto, 0, step as i32, 0);
        }
        self.b.bind(at_end);
        // Trailing cursor: give each row of the group its value.
        let group_size = self.b.reg();
        self.b.add(Opcode::SCopy, count, group_size, 0);
        let value = self.b.reg();
        if let (WinKind::Agg(def), false) = (&c.kind, matches!(c.frame, Frame::Rows(..) | Frame::Value(_))) {
            self.b.add4(Opcode::AggValue, c.acc, (na - c.filtered as usize) as i32, value, P4::Func(def.clone()), 0);
        }
        let emit = self.b.here();
        if let (WinKind::Agg(def), Frame::Rows(lo_off, hi_off)) = (&c.kind, c.frame) {
            // Step a fresh accumulator over this row's frame.
            let acc2 = self.b.reg();
            self.b.add(Opcode::Null, 0, acc2, 0);
            let s = self.b.reg();
            self.b.add(Opcode::Rowid, trail, s, 0);
            let lo = self.b.reg();
            let hi = self.b.reg();
            match lo_off {
                None => {
                    self.b.add(Opcode::SCopy, part_start, lo, 0);
                }
                Some(k) => {
                    let kr = self.b.reg();
                    self.b.add4(Opcode::Int64, 0, kr, 0, P4::Int64(k), 0);
                    self.b.add(Opcode::Add, kr, s, lo);
                    let fine = self.b.label();
                    self.b.add4(Opcode::Ge, part_start, fine, lo, P4::None, 0);
                    self.b.add(Opcode::SCopy, part_start, lo, 0);
                    self.b.bind(fine);
                }
            }
            match hi_off {
                None => {
                    self.b.add4(Opcode::Int64, 0, hi, 0, P4::Int64(i64::MAX), 0);
                }
                Some(k) => {
                    let kr = self.b.reg();
                    self.b.add4(Opcode::Int64, 0, kr, 0, P4::Int64(k), 0);
                    self.b.add(Opcode::Add, kr, s, hi);
                }
            }
            if moving {
                self.emit_moving_rows(c, def, &ki, (peek, trail), (lo, hi, m_lo, m_next), (np, nk, na), (args, one, value))?;
            } else {
                let fdone = self.b.label();
                self.b.add4(Opcode::Gt, hi, fdone, lo, P4::None, 0);
                self.b.add(Opcode::SeekRowid, peek, fdone, lo);
                let ftop = self.b.here();
                let q = self.b.reg();
                self.b.add(Opcode::Rowid, peek, q, 0);
                self.b.add4(Opcode::Gt, hi, fdone, q, P4::None, 0);
                self.leave_unless_same_partition(peek, trail, np, &ki, fdone);
                for k in 0..na {
                    self.b.add(Opcode::Column, peek, (nk + 1 + k) as i32, args + k as i32);
                }
                if def.name.eq_ci("nth_value") {
                    // N is the current row's, not the frame row's.
                    self.b.add(Opcode::Column, trail, (nk + 2) as i32, args + 1);
                }
                self.restore_json_subtypes(&c.args, args)?;
                let unfiltered = self.b.label();
                if c.filtered {
                    self.b.add(Opcode::IfNot, args + na as i32 - 1, unfiltered, 1);
                }
                self.b.add4(Opcode::AggStep, 0, args, acc2, P4::Func(def.clone()), (na - c.filtered as usize) as u16);
                self.b.bind(unfiltered);
                let fnext = self.b.label();
                self.b.add(Opcode::Next, peek, fnext, 0);
                self.b.add(Opcode::Goto, 0, fdone, 0);
                self.b.bind(fnext);
                self.b.add(Opcode::Goto, 0, ftop as i32, 0);
                self.b.bind(fdone);
                self.b.add4(Opcode::AggFinal, acc2, (na - c.filtered as usize) as i32, 0, P4::Func(def.clone()), 0);
                self.b.add(Opcode::SCopy, acc2, value, 0);
                let sliding_sum = def.flags.builtin && lo_off.is_some() && ["sum", "total", "avg"].iter().any(|n| def.name.eq_ci(n));
                if sliding_sum && na > c.filtered as usize {
                    let part_keys = (np > 0).then(|| (np, trail, Arc::new(KeyInfo { fields: ki.fields[..np].to_vec() })));
                    self.sliding_sum_nan(lo, part_start, peek, part_keys, nk, na, c.filtered, value);
                }
            }
        }
        if let (WinKind::Agg(def), Frame::Value(f)) = (&c.kind, c.frame) {
            let scan =
                FrameScan { trail, peek, scan_from, scan_group, group_no: dense, np, nk, na, filtered: c.filtered, args, arg_exprs: &c.args, key_info: &ki };
            self.emit_value_frame(&scan, &f, frame_offs, def, value)?;
            // (With EXCLUDE, SQLite computes each frame afresh.)
            let moving = f.exclude == Exclude::NoOthers && !matches!(f.start, Bound::Unbounded);
            let sliding_sum = def.flags.builtin && moving && ["sum", "total", "avg"].iter().any(|n| def.name.eq_ci(n));
            if sliding_sum && na > c.filtered as usize {
                // `scan_from` is now the frame's first row.
                let part_keys = (np > 0).then(|| (np, trail, Arc::new(KeyInfo { fields: ki.fields[..np].to_vec() })));
                self.sliding_sum_nan(scan_from, part_start, peek, part_keys, nk, na, c.filtered, value);
            }
        }
        self.b.add(Opcode::Add, one, rownum, rownum);
        match &c.kind {
            WinKind::RowNumber => {
                self.b.add(Opcode::SCopy, rownum, value, 0);
            }
            WinKind::Rank => {
                self.b.add(Opcode::SCopy, group_first, value, 0);
            }
            WinKind::DenseRank => {
                self.b.add(Opcode::SCopy, dense, value, 0);
            }
            WinKind::FirstValue => {
                self.b.add(Opcode::SCopy, first_val, value, 0);
            }
            WinKind::LastValue => {
                self.b.add(Opcode::SCopy, last_val, value, 0);
            }
            WinKind::NthValue => {
                // The current row's N picks the frame's Nth row (rowids of
                // the sorted copy are consecutive; the frame runs from the
                // partition start through `part_rows` rows).
                let n = self.b.reg();
                self.b.add(Opcode::Column, trail, (nk + 2) as i32, n);
                self.require_positive_integer(n, "second argument to nth_value must be a positive integer");
                self.b.add(Opcode::Null, 0, value, 0);
                let miss = self.b.label();
                self.b.add4(Opcode::Gt, part_rows, miss, n, P4::None, 0);
                let target = self.b.reg();
                let onei = self.b.reg();
                self.b.add(Opcode::Integer, 1, onei, 0);
                self.b.add(Opcode::Add, n, part_start, target);
                self.b.add(Opcode::Subtract, onei, target, target);
                self.b.add(Opcode::SeekRowid, peek, miss, target);
                self.b.add(Opcode::Column, peek, (nk + 1) as i32, value);
                self.b.bind(miss);
            }
            WinKind::Lag | WinKind::Lead => {
                // The row n before/after in sorted order, if it is in the
                // same partition; else the default.
                let seq = self.b.reg();
                let off = self.b.reg();
                let target = self.b.reg();
                self.b.add(Opcode::Rowid, trail, seq, 0);
                if na >= 2 {
                    self.b.add(Opcode::Column, trail, (nk + 2) as i32, off);
                } else {
                    self.b.add(Opcode::Integer, 1, off, 0);
                }
                if na >= 3 {
                    self.b.add(Opcode::Column, trail, (nk + 3) as i32, value);
                } else {
                    self.b.add(Opcode::Null, 0, value, 0);
                }
                let op = if matches!(c.kind, WinKind::Lag) { Opcode::Subtract } else { Opcode::Add };
                self.b.add(op, off, seq, target);
                let miss = self.b.label();
                self.b.add(Opcode::SeekRowid, peek, miss, target);
                if np > 0 {
                    let pk = self.b.regs(np);
                    let tk = self.b.regs(np);
                    for k in 0..np {
                        self.b.add(Opcode::Column, peek, k as i32, pk + k as i32);
                        self.b.add(Opcode::Column, trail, k as i32, tk + k as i32);
                    }
                    let same = self.b.label();
                    let pki = Arc::new(KeyInfo { fields: ki.fields[..np].to_vec() });
                    self.b.add4(Opcode::Compare, pk, tk, np as i32, P4::KeyInfo(pki), 0);
                    self.b.add(Opcode::Jump, miss, same, miss);
                    self.b.bind(same);
                }
                self.b.add(Opcode::Column, peek, (nk + 1) as i32, value);
                self.b.bind(miss);
            }
            WinKind::PercentRank | WinKind::CumeDist => {
                let real_one = self.b.reg();
                self.b.add4(Opcode::Real, 0, real_one, 0, P4::Real(1.0), 0);
                let num = self.b.reg();
                let den = self.b.reg();
                let onei = self.b.reg();
                self.b.add(Opcode::Integer, 1, onei, 0);
                if matches!(c.kind, WinKind::PercentRank) {
                    // (rank - 1) / (N - 1), 0.0 for a single row.
                    self.b.add(Opcode::Subtract, onei, group_first, num);
                    self.b.add(Opcode::Subtract, onei, part_size, den);
                    let zero = self.b.label();
                    let fin = self.b.label();
                    self.b.add(Opcode::IfNot, den, zero, 0);
                    self.b.add(Opcode::Multiply, real_one, num, num);
                    self.b.add(Opcode::Divide, den, num, value);
                    self.b.add(Opcode::Goto, 0, fin, 0);
                    self.b.bind(zero);
                    self.b.add4(Opcode::Real, 0, value, 0, P4::Real(0.0), 0);
                    self.b.bind(fin);
                } else {
                    // rows through the end of the peer group / N.
                    self.b.add(Opcode::Subtract, onei, group_first, num);
                    self.b.add(Opcode::Add, group_size, num, num);
                    self.b.add(Opcode::Multiply, real_one, num, num);
                    self.b.add(Opcode::Divide, part_size, num, value);
                }
            }
            WinKind::Ntile => {
                // Buckets of N / n rows, the first N % n one row larger.
                let n = self.b.reg();
                self.b.add(Opcode::Column, trail, (nk + 1) as i32, n);
                self.require_positive_integer(n, "argument of ntile must be a positive integer");
                let (size, rem, i, big, onei) = (self.b.reg(), self.b.reg(), self.b.reg(), self.b.reg(), self.b.reg());
                self.b.add(Opcode::Integer, 1, onei, 0);
                self.b.add(Opcode::Divide, n, part_size, size);
                self.b.add(Opcode::Remainder, n, part_size, rem);
                self.b.add(Opcode::Subtract, onei, rownum, i);
                let small = self.b.label();
                let fin = self.b.label();
                let size1 = self.b.reg();
                self.b.add(Opcode::Add, onei, size, size1);
                self.b.add(Opcode::Multiply, size1, rem, big);
                self.b.add4(Opcode::Ge, big, small, i, P4::None, 0);
                self.b.add(Opcode::Divide, size1, i, value);
                self.b.add(Opcode::Add, onei, value, value);
                self.b.add(Opcode::Goto, 0, fin, 0);
                self.b.bind(small);
                let each = self.b.label();
                self.b.add(Opcode::IfNot, size, each, 0);
                self.b.add(Opcode::Subtract, big, i, value);
                self.b.add(Opcode::Divide, size, value, value);
                self.b.add(Opcode::Add, rem, value, value);
                self.b.add(Opcode::Add, onei, value, value);
                self.b.add(Opcode::Goto, 0, fin, 0);
                self.b.bind(each);
                self.b.add(Opcode::Add, onei, i, value);
                self.b.bind(fin);
            }
            WinKind::Agg(_) => {}
        }
        let vrec = self.b.reg();
        let vrid = self.b.reg();
        self.b.add(Opcode::MakeRecord, value, 1, vrec);
        self.b.add(Opcode::Column, trail, nk as i32, vrid);
        self.b.add(Opcode::Insert, values, vrec, vrid);
        let after_trail = self.b.label();
        self.b.add(Opcode::Next, trail, after_trail, 0);
        self.b.bind(after_trail);
        let neg = self.b.reg();
        self.b.add(Opcode::Integer, -1, neg, 0);
        self.b.add(Opcode::Add, neg, count, count);
        self.b.add(Opcode::If, count, emit as i32, 0);
        self.b.add(Opcode::IfNot, eof, outer as i32, 0);
        self.b.bind(done);
        if let (WinKind::Agg(def), true) = (&c.kind, final_at_end) {
            self.b.add4(Opcode::AggFinal, c.acc, (na - c.filtered as usize) as i32, 0, P4::Func(def.clone()), 1);
        }
        Ok((lead, nk))
    }

    /// Jump to `out` unless the row under `peek` is in the partition of
    /// the row under `trail` (the first `np` sort keys are equal).
    fn leave_unless_same_partition(&mut self, peek: i32, trail: i32, np: usize, ki: &KeyInfo, out: i32) {
        if np == 0 {
            return;
        }
        let pk = self.b.regs(np);
        let tk = self.b.regs(np);
        for k in 0..np {
            self.b.add(Opcode::Column, peek, k as i32, pk + k as i32);
            self.b.add(Opcode::Column, trail, k as i32, tk + k as i32);
        }
        let same = self.b.label();
        let pki = Arc::new(KeyInfo { fields: ki.fields[..np].to_vec() });
        self.b.add4(Opcode::Compare, pk, tk, np as i32, P4::KeyInfo(pki), 0);
        self.b.add(Opcode::Jump, out, same, out);
        self.b.bind(same);
    }

    /// The current row's value of a moving aggregate (see `moving` in
    /// [`Self::window_pass`]): rows of the accumulator below the frame
    /// start `lo` are removed (xInverse), rows from `m_next` through the
    /// frame end `hi` in the current row's partition are stepped, and
    /// xValue gives the value.
    fn emit_moving_rows(
        &mut self,
        c: &WinCall<'_, '_>,
        def: &Arc<FuncDef>,
        ki: &KeyInfo,
        (peek, trail): (i32, i32),
        (lo, hi, m_lo, m_next): (i32, i32, i32, i32),
        (np, nk, na): (usize, usize, usize),
        (args, one, value): (i32, i32, i32),
    ) -> Result<()> {
        let n_args = (na - c.filtered as usize) as u16;
        // Remove rows m_lo.. below lo (only rows that were stepped).
        let inv_done = self.b.label();
        let inv_top = self.b.here();
        self.b.add4(Opcode::Ge, lo, inv_done, m_lo, P4::None, 0);
        self.b.add4(Opcode::Ge, m_next, inv_done, m_lo, P4::None, 0);
        self.b.add(Opcode::SeekRowid, peek, inv_done, m_lo);
        for k in 0..na {
            self.b.add(Opcode::Column, peek, (nk + 1 + k) as i32, args + k as i32);
        }
        self.restore_json_subtypes(&c.args, args)?;
        let unfiltered = self.b.label();
        if c.filtered {
            self.b.add(Opcode::IfNot, args + na as i32 - 1, unfiltered, 1);
        }
        self.b.add4(Opcode::AggInverse, 0, args, c.acc, P4::Func(def.clone()), n_args);
        self.b.bind(unfiltered);
        self.b.add(Opcode::Add, one, m_lo, m_lo);
        self.b.add(Opcode::Goto, 0, inv_top as i32, 0);
        self.b.bind(inv_done);
        // Rows below lo never stepped are skipped.
        for r in [m_lo, m_next] {
            let keep = self.b.label();
            self.b.add4(Opcode::Ge, lo, keep, r, P4::None, 0);
            self.b.add(Opcode::SCopy, lo, r, 0);
            self.b.bind(keep);
        }
        // Step rows m_next..=hi of this partition.
        let st_done = self.b.label();
        self.b.add4(Opcode::Gt, hi, st_done, m_next, P4::None, 0);
        self.b.add(Opcode::SeekRowid, peek, st_done, m_next);
        let st_top = self.b.here();
        let q = self.b.reg();
        self.b.add(Opcode::Rowid, peek, q, 0);
        self.b.add4(Opcode::Gt, hi, st_done, q, P4::None, 0);
        self.leave_unless_same_partition(peek, trail, np, ki, st_done);
        for k in 0..na {
            self.b.add(Opcode::Column, peek, (nk + 1 + k) as i32, args + k as i32);
        }
        self.restore_json_subtypes(&c.args, args)?;
        let unfiltered = self.b.label();
        if c.filtered {
            self.b.add(Opcode::IfNot, args + na as i32 - 1, unfiltered, 1);
        }
        self.b.add4(Opcode::AggStep, 0, args, c.acc, P4::Func(def.clone()), n_args);
        self.b.bind(unfiltered);
        self.b.add(Opcode::Add, one, q, m_next);
        let st_next = self.b.label();
        self.b.add(Opcode::Next, peek, st_next, 0);
        self.b.add(Opcode::Goto, 0, st_done, 0);
        self.b.bind(st_next);
        self.b.add(Opcode::Goto, 0, st_top as i32, 0);
        self.b.bind(st_done);
        self.b.add4(Opcode::AggValue, c.acc, n_args as i32, value, P4::Func(def.clone()), 0);
        Ok(())
    }
}

impl Compiler<'_> {
    /// Fail the statement with `message` unless register `n` holds a
    /// positive integer (an integral number or text reading as one).
    fn require_positive_integer(&mut self, n: i32, message: &str) {
        let bad = self.b.label();
        let ok = self.b.label();
        let zero = self.b.reg();
        self.b.add(Opcode::Integer, 0, zero, 0);
        self.b.add(Opcode::MustBeInt, n, bad, 0);
        self.b.add4(Opcode::Gt, zero, ok, n, P4::None, 0);
        self.b.bind(bad);
        self.b.add4(Opcode::Halt, crate::error::SQLITE_ERROR, 0, 0, P4::text(message.into()), 0);
        self.b.bind(ok);
    }

    /// Arguments pass through stored records, which keep no subtype: an
    /// argument that is always JSON (`json(x)`, `json_object(...)`, `->`)
    /// is marked JSON again before it is stepped, as if evaluated there.
    pub(in crate::sql::codegen) fn restore_json_subtypes(&mut self, args: &[&Expr<'_>], first: i32) -> Result<()> {
        for (k, a) in args.iter().enumerate() {
            let always_json = match a {
                Expr::FunctionCall { name, .. } => matches!(
                    unquote(name.0).ascii_lower().as_str(),
                    "json" | "json_array" | "json_object" | "json_insert" | "json_replace" | "json_set" | "json_remove" | "json_patch"
                ),
                Expr::Binary(_, ast::Operator::ArrowRight, _) => true,
                _ => false,
            };
            if always_json {
                let def = self.lookup_function("json", 1)?;
                let r = first + k as i32;
                self.b.add4(Opcode::Function, self.frame.pure_context, r, r, P4::Func(def), 1);
            }
        }
        Ok(())
    }
}

/// Whether the rows sorted for window `spec` (by its partition keys,
/// ascending, then its ORDER BY) are already in the order `terms` ask
/// for: each term, or the result column it names, is written as the
/// window's key at its place, in the same direction and NULLS order.
fn order_served_by_window(terms: &[SortedColumn<'_>], order_map: &[Option<usize>], items: &[ResultItem<'_, '_>], spec: &WinSpec<'_, '_>) -> bool {
    let mut keys: Vec<(String, bool, bool)> = spec.partition_by.unwrap_or(&[]).iter().map(|e| (e.to_string(), false, false)).collect();
    keys.extend(
        spec.order_by
            .unwrap_or(&[])
            .iter()
            .map(|t| (t.expr.to_string(), matches!(t.order, Some(SortOrder::Desc)), crate::sql::model::query::needs_null_key(t))),
    );
    if terms.len() > keys.len() {
        return false;
    }
    terms.iter().enumerate().all(|(i, t)| {
        let text = match order_map.get(i).copied().flatten() {
            Some(k) => match items.get(k) {
                Some(ResultItem::Expr(e, _)) => e.to_string(),
                _ => return false,
            },
            None => t.expr.to_string(),
        };
        let (key, desc, null_key) = &keys[i];
        *key == text && *desc == matches!(t.order, Some(SortOrder::Desc)) && *null_key == crate::sql::model::query::needs_null_key(t)
    })
}

/// A window's PARTITION BY and ORDER BY as text: windows alike in these
/// sort the rows alike.
/// A window's sort keys as text, one per key: PARTITION BY (ascending)
/// then ORDER BY. Rows sorted by some keys are sorted by any prefix of
/// them too (the sort is stable).
fn window_sort_keys(spec: &WinSpec<'_, '_>) -> Vec<String> {
    let desc = |o: Option<SortOrder>| matches!(o, Some(SortOrder::Desc));
    let part = spec.partition_by.unwrap_or(&[]).iter().map(|e| format!("{e} false None"));
    let order = spec.order_by.unwrap_or(&[]).iter().map(|t| format!("{} {} {:?}", t.expr, desc(t.order), t.nulls));
    part.chain(order).collect()
}

fn window_spec_text(spec: &WinSpec<'_, '_>) -> String {
    let part: Vec<String> = spec.partition_by.unwrap_or(&[]).iter().map(|e| e.to_string()).collect();
    let order: Vec<String> = spec.order_by.unwrap_or(&[]).iter().map(|t| format!("{} {:?} {:?}", t.expr, t.order, t.nulls)).collect();
    format!("{}|{}", part.join(","), order.join(","))
}
