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
//! row and picked up when the result rows are produced. Explicit frame
//! clauses and the other window functions are reported as not supported.

use super::from::FromItem;
use super::select::{ResultItem, RowCtx};
use super::{ColumnSource, Compiler};
use crate::error::{Error, Result};
use crate::sql::parse::unquote;
use crate::sql::plan::terms::walk;
use crate::sql::resolve::ColumnRef;
use crate::value::record::{KeyField, KeyInfo};
use crate::vdbe::func::{FuncDef, FuncKind};
use crate::vdbe::program::{Opcode, P4};
use sqlite3_parser::ast::{Expr, Over, SortOrder, SortedColumn, Window};
use std::sync::Arc;

enum WinKind {
    RowNumber,
    Rank,
    DenseRank,
    Agg(Arc<FuncDef>),
}

struct WinCall<'a, 'b> {
    key: String,
    kind: WinKind,
    args: Vec<&'a Expr<'b>>,
    spec: &'a Window<'b>,
    result: i32,
    acc: i32,
}

/// Whether `e` contains a window function call.
pub fn has_window_call(e: &Expr<'_>) -> bool {
    let mut found = false;
    walk(e, &mut |x| {
        if window_of(x).is_some() {
            found = true;
        }
        true
    });
    found
}

fn window_of<'a, 'b>(e: &'a Expr<'b>) -> Option<&'a Over<'b>> {
    match e {
        Expr::FunctionCall { filter_over: Some(f), .. } | Expr::FunctionCallStar { filter_over: Some(f), .. } => f.over_clause,
        _ => None,
    }
}

impl<'b> Compiler<'_> {
    fn collect_windows<'a>(&mut self, e: &'a Expr<'b>, out: &mut Vec<WinCall<'a, 'b>>) -> Result<()> {
        let mut found: Vec<&'a Expr<'b>> = Vec::new();
        walk(e, &mut |x| {
            if window_of(x).is_some() {
                found.push(x);
                return false;
            }
            true
        });
        for x in found {
            let key = x.to_string();
            if out.iter().any(|w| w.key == key) {
                continue;
            }
            let (name, args, over, filter) = match x {
                Expr::FunctionCall { name, args, filter_over: Some(f), .. } => {
                    (unquote(name.0), args.map(|a| a.iter().collect::<Vec<_>>()).unwrap_or_default(), f.over_clause, f.filter_clause)
                }
                Expr::FunctionCallStar { name, filter_over: Some(f) } => (unquote(name.0), Vec::new(), f.over_clause, f.filter_clause),
                _ => continue,
            };
            if filter.is_some() {
                return Err(Error::unsupported("FILTER on window functions"));
            }
            let spec = match over {
                Some(Over::Window(w)) => *w,
                _ => return Err(Error::unsupported("named windows")),
            };
            if spec.frame_clause.is_some() || spec.base.is_some() {
                return Err(Error::unsupported("window frame clauses"));
            }
            let kind = match name.to_ascii_lowercase().as_str() {
                "row_number" if args.is_empty() => WinKind::RowNumber,
                "rank" if args.is_empty() => WinKind::Rank,
                "dense_rank" if args.is_empty() => WinKind::DenseRank,
                _ => {
                    let def = self.lookup_function(&name, args.len())?;
                    match def.kind {
                        FuncKind::Aggregate(_) if !matches!(name.to_ascii_lowercase().as_str(), "row_number" | "rank" | "dense_rank" | "percent_rank" | "cume_dist" | "ntile" | "lag" | "lead" | "first_value" | "last_value" | "nth_value") => WinKind::Agg(def),
                        _ => return Err(Error::unsupported(&format!("the window function {name}()"))),
                    }
                }
            };
            let result = self.b.reg();
            let acc = self.b.reg();
            out.push(WinCall { key, kind, args, spec, result, acc });
        }
        Ok(())
    }

    fn window_key_info(&mut self, spec: &Window<'_>) -> Result<Arc<KeyInfo>> {
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
            fields.push(KeyField { collation: coll, descending: matches!(t.order, Some(SortOrder::Desc)) });
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
        ctx: &RowCtx,
    ) -> Result<()> {
        let mut calls: Vec<WinCall<'a, 'b>> = Vec::new();
        let mut cols: Vec<ColumnRef> = Vec::new();
        for it in items {
            match it {
                ResultItem::Expr(e, _) => {
                    self.collect_windows(e, &mut calls)?;
                    self.collect_plain_columns(e, &mut cols);
                }
                ResultItem::Col(r, _) => cols.push(r.clone()),
            }
        }
        for t in order_by.unwrap_or(&[]) {
            self.collect_windows(&t.expr, &mut calls)?;
            self.collect_plain_columns(&t.expr, &mut cols);
        }
        // Row layout in the stored table: plain columns, then per call its
        // arguments, partition keys and order keys.
        let nc = cols.len();
        let mut layout: Vec<(usize, usize, usize, usize)> = Vec::new(); // (args at, n args, keys at, n keys)
        let mut width = nc;
        for c in &calls {
            let nk = c.spec.partition_by.map_or(0, |p| p.len()) + c.spec.order_by.map_or(0, |o| o.len());
            layout.push((width, c.args.len(), width + c.args.len(), nk));
            width += c.args.len() + nk;
        }
        let store = self.b.cursor();
        self.b.add(Opcode::OpenEphemeral, store, width as i32, 0);
        let loops = self.open_loops(from, terms)?;
        let regs = self.b.regs(width.max(1));
        for (i, c) in cols.iter().enumerate() {
            self.emit_column(c, regs + i as i32);
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
                self.expr(&t.expr, regs + k as i32)?;
                k += 1;
            }
            let _ = na;
        }
        let rec = self.b.reg();
        let rid = self.b.reg();
        self.b.add(Opcode::MakeRecord, regs, width as i32, rec);
        self.b.add(Opcode::NewRowid, store, rid, 0);
        self.b.add(Opcode::Insert, store, rec, rid);
        self.close_loops(loops);

        // Per call: its values by stored rowid.
        let mut value_tables = Vec::new();
        for (ci, c) in calls.iter().enumerate() {
            let vt = self.b.cursor();
            self.b.add(Opcode::OpenEphemeral, vt, 1, 0);
            value_tables.push(vt);
            self.window_pass(c, layout[ci], store, vt)?;
        }

        // Output rows in stored order.
        let end = self.b.label();
        self.b.add(Opcode::Rewind, store, end, 0);
        let top = self.b.here();
        let next = self.b.label();
        let col_regs = self.b.regs(nc.max(1));
        for i in 0..nc {
            self.b.add(Opcode::Column, store, i as i32, col_regs + i as i32);
        }
        let srid = self.b.reg();
        self.b.add(Opcode::Rowid, store, srid, 0);
        for (ci, c) in calls.iter().enumerate() {
            self.b.add(Opcode::SeekRowid, value_tables[ci], next, srid);
            self.b.add(Opcode::Column, value_tables[ci], 0, c.result);
            self.agg_regs.insert(c.key.clone(), c.result);
        }
        for (i, c) in cols.iter().enumerate() {
            self.col_map.insert((c.cursor, c.column.map_or(-1, |x| x as i64)), ColumnSource::Register(col_regs + i as i32));
        }
        let r = (|| -> Result<()> {
            let out = self.b.regs(items.len());
            self.compute_items(items, out)?;
            self.emit_row(ctx, order_by, out, items.len())
        })();
        self.agg_regs.clear();
        self.col_map.clear();
        r?;
        self.b.bind(next);
        self.b.add(Opcode::Next, store, top as i32, 0);
        self.b.bind(end);
        Ok(())
    }

    fn collect_plain_columns(&mut self, e: &Expr<'_>, out: &mut Vec<ColumnRef>) {
        let mut names: Vec<(Option<String>, String)> = Vec::new();
        walk(e, &mut |x| {
            match x {
                Expr::Id(id) => names.push((None, unquote(id.0))),
                Expr::Qualified(t, c) | Expr::DoublyQualified(_, t, c) => names.push((Some(unquote(t.0)), unquote(c.0))),
                _ => {}
            }
            true
        });
        for (q, n) in names {
            if let Ok(Some(r)) = self.resolve_name(q.as_deref(), &n) {
                if r.depth == 0 && !out.iter().any(|c| c.cursor == r.cursor && c.column == r.column) {
                    out.push(r);
                }
            }
        }
    }

    /// Compute one window call's value for every stored row.
    fn window_pass(&mut self, c: &WinCall<'_, '_>, layout: (usize, usize, usize, usize), store: i32, values: i32) -> Result<()> {
        let (at, na, kat, nk) = layout;
        let np = c.spec.partition_by.map_or(0, |p| p.len());
        let ki = self.window_key_info(c.spec)?;
        // Sort (keys, rowid, args) and keep two copies of the sorted rows.
        let w = nk + 1 + na;
        let sorter = self.b.cursor();
        self.b.add4(Opcode::SorterOpen, sorter, w as i32, 0, P4::KeyInfo(ki.clone()), 0);
        let end = self.b.label();
        self.b.add(Opcode::Rewind, store, end, 0);
        let top = self.b.here();
        let regs = self.b.regs(w);
        for k in 0..nk {
            self.b.add(Opcode::Column, store, (kat + k) as i32, regs + k as i32);
        }
        self.b.add(Opcode::Rowid, store, regs + nk as i32, 0);
        for k in 0..na {
            self.b.add(Opcode::Column, store, (at + k) as i32, regs + (nk + 1 + k) as i32);
        }
        let rec = self.b.reg();
        self.b.add(Opcode::MakeRecord, regs, w as i32, rec);
        self.b.add(Opcode::SorterInsert, sorter, rec, 0);
        self.b.add(Opcode::Next, store, top as i32, 0);
        self.b.bind(end);

        let lead = self.b.cursor();
        let trail = self.b.cursor();
        self.b.add(Opcode::OpenEphemeral, lead, w as i32, 0);
        self.b.add(Opcode::OpenEphemeral, trail, w as i32, 0);
        let sorted_end = self.b.label();
        let drec = self.b.reg();
        let pseudo = self.b.cursor();
        self.b.add(Opcode::OpenPseudo, pseudo, drec, w as i32);
        self.b.add(Opcode::SorterSort, sorter, sorted_end, 0);
        let stop = self.b.here();
        self.b.add(Opcode::SorterData, sorter, drec, pseudo);
        let seq = self.b.reg();
        self.b.add(Opcode::NewRowid, lead, seq, 0);
        self.b.add(Opcode::Insert, lead, drec, seq);
        self.b.add(Opcode::Insert, trail, drec, seq);
        self.b.add(Opcode::SorterNext, sorter, stop as i32, 0);
        self.b.bind(sorted_end);

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
        self.b.add(Opcode::Null, 0, c.acc, 0);
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
        if let WinKind::Agg(def) = &c.kind {
            for k in 0..na {
                self.b.add(Opcode::Column, lead, (nk + 1 + k) as i32, args + k as i32);
            }
            self.b.add4(Opcode::AggStep, 0, args, c.acc, P4::Func(def.clone()), na as u16);
        }
        self.b.add(Opcode::Add, one, count, count);
        let at_end = self.b.label();
        let more = self.b.label();
        self.b.add(Opcode::Next, lead, more, 0);
        self.b.add(Opcode::Integer, 1, eof, 0);
        self.b.add(Opcode::Goto, 0, at_end, 0);
        self.b.bind(more);
        for k in 0..nk {
            self.b.add(Opcode::Column, lead, k as i32, cur + k as i32);
        }
        if nk > 0 {
            self.b.add4(Opcode::Compare, cur, prev, nk as i32, P4::KeyInfo(ki.clone()), 0);
            self.b.add(Opcode::Jump, at_end, step as i32, at_end);
        } else {
            self.b.add(Opcode::Goto, 0, step as i32, 0);
        }
        self.b.bind(at_end);
        // Trailing cursor: give each row of the group its value.
        let value = self.b.reg();
        if let WinKind::Agg(def) = &c.kind {
            self.b.add4(Opcode::AggValue, c.acc, na as i32, value, P4::Func(def.clone()), 0);
        }
        let emit = self.b.here();
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
        Ok(())
    }
}
