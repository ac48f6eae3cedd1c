//! Aggregate queries: GROUP BY (rows sorted by the group key, groups
//! detected with `Compare`/`Jump`, output through a subroutine; rows
//! already read in group order skip the sorter, `group_stream.rs`), plain
//! aggregates over all rows, DISTINCT aggregates, FILTER clauses, HAVING.
//! The sorter record holds the key, then each distinct argument or bare
//! column read once (a plain column used by several calls is stored and
//! loaded once per row).
//!
//! While a group's output is computed, aggregate calls read their
//! accumulator registers and plain column references read the registers
//! holding the group's bare-column row (`FrameState::agg_regs`/`col_map`):
//! the group's first row, or with a min()/max() the row holding its best
//! value, which is the row SQLite reports.

use crate::error::{Error, Result};
use crate::sql::codegen::{ColumnSource, Compiler};
use crate::sql::model::expr_shape::walk;
use crate::sql::model::from::FromItem;
use crate::sql::model::query::{Dest, ResultItem, RowCtx};
use crate::sql::parse::unquote;
use crate::sql::plan::prelude::*;
use crate::sql::resolve::ColumnRef;
use crate::util::ascii::AsciiLower;
use crate::vdbe::func::FuncDef;
use crate::vdbe::program::{Opcode, P4};
use sqlite3_parser::ast::{self, Distinctness, Expr, SortedColumn};
use std::sync::Arc;

pub(in crate::sql::codegen) struct AggCall<'a, 'b> {
    pub(in crate::sql::codegen) key: String,
    /// The call itself.
    pub(in crate::sql::codegen) call: Option<&'a Expr<'b>>,
    pub(in crate::sql::codegen) def: Arc<FuncDef>,
    /// The arguments, then the FILTER condition when there is one, then
    /// the terms of an ORDER BY inside the call (they all travel with the
    /// arguments through the GROUP BY sorter).
    pub(in crate::sql::codegen) args: Vec<&'a Expr<'b>>,
    /// How many of `args` the function itself takes.
    pub(in crate::sql::codegen) n_func_args: usize,
    pub(in crate::sql::codegen) has_filter: bool,
    /// `agg(x ORDER BY ...)`: the ORDER BY terms (the last of `args`) and
    /// the ephemeral index holding the group's argument rows in that order
    /// (see `ordered_aggregate.rs`).
    pub(in crate::sql::codegen) ordered: Option<crate::sql::codegen::query::ordered_aggregate::OrderedArgs<'a, 'b>>,
    pub(in crate::sql::codegen) distinct: bool,
    pub(in crate::sql::codegen) acc: i32,
    pub(in crate::sql::codegen) distinct_cursor: Option<i32>,
    pub(in crate::sql::codegen) distinct_coll: crate::value::collation::Collation,
}

impl<'b> Compiler<'_> {
    /// The aggregate calls of `e` this query computes, with those written
    /// in its subqueries (`outer_aggregate.rs`), in the order written.
    fn collect_aggs_in_order<'a>(&mut self, e: &'a Expr<'b>, out: &mut Vec<AggCall<'a, 'b>>, result_column: bool, outer_ok: bool) -> Result<()> {
        enum Found<'a, 'b> {
            Here(&'a Expr<'b>),
            Subquery(&'a sqlite3_parser::ast::Select<'b>),
            Walk(&'a Expr<'b>),
        }
        let mut found: Vec<Found<'a, 'b>> = Vec::new();
        {
            let me: &Compiler<'_> = self;
            walk(e, &mut |x| {
                // (A window call's arguments hold no aggregate of a
                // subquery's: one there is a misuse.)
                if crate::sql::codegen::is_aggregate_call(me, x)
                    || (crate::sql::model::expr_shape::has_window_call(x) && matches!(x, Expr::FunctionCall { .. } | Expr::FunctionCallStar { .. }))
                {
                    found.push(Found::Here(x));
                    return false;
                }
                match x {
                    // (The left operand comes before the subquery.)
                    Expr::InSelect { lhs, rhs, .. } => {
                        found.push(Found::Walk(lhs));
                        found.push(Found::Subquery(rhs));
                        false
                    }
                    Expr::Subquery(s) | Expr::Exists(s) => {
                        found.push(Found::Subquery(s));
                        true
                    }
                    _ => true,
                }
            });
        }
        for f in found {
            match f {
                Found::Here(x) => self.collect_aggs(x, out, result_column, outer_ok)?,
                Found::Walk(x) => self.collect_aggs_in_order(x, out, result_column, outer_ok)?,
                Found::Subquery(s) => {
                    for x in self.outer_aggregates_of(s) {
                        self.collect_aggs(x, out, false, false)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// The aggregate calls of `e` this query computes. An enclosing
    /// query's aggregate found here is a misuse, except where SQLite
    /// never evaluates it (`outer_ok`: the result columns of an EXISTS
    /// subquery, an ORDER BY never coded, `unused_order.rs`): it is then
    /// gathered with this query's, and never read.
    fn collect_aggs<'a>(&mut self, e: &'a Expr<'b>, out: &mut Vec<AggCall<'a, 'b>>, result_column: bool, outer_ok: bool) -> Result<()> {
        let mut found: Vec<&'a Expr<'b>> = Vec::new();
        {
            let me: &Compiler<'_> = self;
            walk(e, &mut |x| {
                if crate::sql::codegen::is_aggregate_call(me, x) {
                    found.push(x);
                    return false;
                }
                true
            });
        }
        for x in found {
            if self.names.scopes.len() > 1 && !outer_ok && self.is_outer_aggregate(x) {
                let name = match x {
                    Expr::FunctionCall { name, .. } => unquote(name.0),
                    _ => String::new(),
                };
                return Err(Error::sql(format!("misuse of aggregate: {name}()")));
            }
            let key = x.to_string();
            if out.iter().any(|a| a.key == key) {
                continue;
            }
            let (name, args, distinct): (String, Vec<&'a Expr<'b>>, bool) = match x {
                Expr::FunctionCall { name, args, distinctness, .. } => {
                    (unquote(name.0), args.map(|a| a.iter().collect()).unwrap_or_default(), matches!(distinctness, Some(Distinctness::Distinct)))
                }
                Expr::FunctionCallStar { name, .. } => (unquote(name.0), Vec::new(), false),
                _ => continue,
            };
            let filter = match x {
                Expr::FunctionCall { filter_over: Some(f), .. } | Expr::FunctionCallStar { filter_over: Some(f), .. } if f.over_clause.is_none() => {
                    f.filter_clause
                }
                _ => None,
            };
            let order_terms: &'a [SortedColumn<'b>] = match x {
                Expr::FunctionCall { order_by: Some(ast::FunctionCallOrder::SortList(terms)), .. } => terms,
                _ => &[],
            };
            // (The FILTER condition and the ORDER BY terms may not hold an
            // aggregate either.)
            for a in args.iter().copied().chain(filter).chain(order_terms.iter().map(|t| &t.expr)) {
                // A result alias standing for an aggregate may not be an
                // aggregate's argument (`HAVING max(m)` with `min(x) AS m`).
                let mut ids: Vec<String> = Vec::new();
                walk(a, &mut |y| {
                    if let Expr::Id(id) = y {
                        ids.push(unquote(id.0));
                    }
                    true
                });
                for id in ids {
                    if self.resolve_name(None, &id).ok().flatten().is_some() {
                        continue;
                    }
                    let text = self.names.aliases.last().and_then(|l| l.list.iter().find(|(n, _)| n.eq_ci(&id)).map(|(_, t)| t.clone()));
                    // (`SELECT a + 1 AS x, sum(x)`: no column x.)
                    if result_column && text.is_some() {
                        return Err(crate::sql::resolve::no_such_column(None, &id));
                    }
                    if text.is_some_and(|t| self.text_has_aggregate(&t)) {
                        return Err(Error::sql(format!("misuse of aliased aggregate {id}")));
                    }
                }
                // SQLite names the aggregate nested inside (even one of
                // an enclosing query: no aggregate may be nested in one).
                let mut nested: Option<String> = None;
                let me: &Compiler<'_> = self;
                walk(a, &mut |y| {
                    if nested.is_none() && crate::sql::codegen::names_aggregate_function(me, y) {
                        if let Expr::FunctionCall { name, .. } | Expr::FunctionCallStar { name, .. } = y {
                            nested = Some(unquote(name.0));
                        }
                    }
                    nested.is_none()
                });
                if let Some(inner) = nested {
                    return Err(Error::sql(format!("misuse of aggregate function {inner}()")));
                }
            }
            if distinct && args.len() != 1 {
                return Err(Error::sql("DISTINCT aggregates must have exactly one argument"));
            }
            let def = self.lookup_function(&name, args.len())?;
            self.check_function_usable(&name, &def)?;
            let def = self.bind_call_collation(def, args.iter().copied())?;
            let acc = self.b.reg();
            let distinct_coll = match args.first().and_then(|a| self.expr_collation(a)) {
                Some((n, _)) => self.collation(&n)?,
                None => crate::value::collation::Collation::binary(),
            };
            let n_func_args = args.len();
            let mut args = args;
            args.extend(filter);
            // The ORDER BY terms are computed with the arguments (their
            // errors are the call's). min()/max() of one argument ignore
            // the order, as SQLite's do: their value does not depend on
            // it, and bare columns come from the best row in scan order.
            args.extend(order_terms.iter().map(|t| &t.expr));
            let min_max = n_func_args == 1 && (def.name.eq_ci("min") || def.name.eq_ci("max"));
            let ordered =
                (!order_terms.is_empty() && !min_max).then_some(crate::sql::codegen::query::ordered_aggregate::OrderedArgs { terms: order_terms, cursor: 0 });
            out.push(AggCall {
                key,
                call: Some(x),
                def,
                args,
                n_func_args,
                has_filter: filter.is_some(),
                ordered,
                distinct,
                acc,
                distinct_cursor: None,
                distinct_coll,
            });
        }
        Ok(())
    }

    fn collect_columns(&mut self, e: &Expr<'_>, out: &mut Vec<ColumnRef>) {
        let mut names: Vec<(Option<String>, String)> = Vec::new();
        {
            let me: &Compiler<'_> = self;
            walk(e, &mut |x| {
                if crate::sql::codegen::is_aggregate_call(me, x) {
                    return false;
                }
                match x {
                    Expr::Id(id) => names.push((None, unquote(id.0))),
                    Expr::Name(n) => names.push((None, unquote(n.0))),
                    Expr::Qualified(t, c) | Expr::DoublyQualified(_, t, c) => names.push((Some(unquote(t.0)), unquote(c.0))),
                    _ => {}
                }
                true
            });
        }
        for (q, n) in names {
            if let Ok(Some(r)) = self.resolve_name(q.as_deref(), &n) {
                // (A USING column of a RIGHT/FULL JOIN named alone reads
                // the columns it stands for too.)
                let reads = if q.is_none() { self.using_reads(&r) } else { Vec::new() };
                for r in std::iter::once(r).chain(reads) {
                    if r.depth == 0 && !out.iter().any(|c| c.cursor == r.cursor && c.column == r.column) {
                        out.push(r);
                    }
                }
            }
        }
    }

    /// Every column (and rowid) of the FROM items, as bare columns.
    pub(in crate::sql::codegen) fn collect_all_columns(&self, from: &[FromItem<'_, '_>], out: &mut Vec<ColumnRef>) {
        let Some(scope) = self.names.scopes.last() else { return };
        for f in from {
            let Some(item) = scope.items.get(f.item) else { continue };
            let mut push = |column: Option<usize>, affinity, collation: Option<String>| {
                if !out.iter().any(|c| c.cursor == item.cursor && c.column == column) {
                    out.push(ColumnRef { depth: 0, item: f.item, cursor: item.cursor, column, affinity, collation });
                }
            };
            for (i, c) in item.columns.iter().enumerate() {
                push(Some(i), c.affinity, c.collation.clone());
            }
            if item.has_rowid {
                push(None, crate::value::affinity::Affinity::Integer, None);
            }
        }
    }

    pub(in crate::sql::codegen) fn agg_step(&mut self, a: &AggCall<'_, '_>, args: i32) {
        self.agg_step_choosing(a, args, 0, false);
    }

    /// As `agg_step`; with `chosen` (not 0), that register is set to
    /// whether the row is now the one the aggregate's value comes from
    /// (see `AggStep`) when the step runs. A row its FILTER rejects or its
    /// DISTINCT skips leaves it as it was, or with `reset_if_filtered`
    /// sets it to 0 before the FILTER is tested.
    fn agg_step_choosing(&mut self, a: &AggCall<'_, '_>, args: i32, chosen: i32, reset_if_filtered: bool) {
        let skip = self.b.label();
        let filtered = a.has_filter;
        if chosen != 0 && filtered && reset_if_filtered {
            self.b.add(Opcode::Integer, 0, chosen, 0);
        }
        if filtered {
            // FILTER (WHERE ...): the row counts only when it is true.
            self.b.add(Opcode::IfNot, args + a.n_func_args as i32, skip, 1);
        }
        if let Some(d) = a.distinct_cursor {
            self.b.add4(Opcode::Found, d, skip, args, P4::Int64(1), 0);
            let rec = self.b.reg();
            self.b.add(Opcode::MakeRecord, args, 1, rec);
            self.b.add(Opcode::IdxInsert, d, rec, 0);
        }
        match &a.ordered {
            // The row waits in the ORDER BY's index until the group ends.
            Some(o) => self.insert_ordered_row(a, o, args),
            None => {
                self.b.add4(Opcode::AggStep, chosen, args, a.acc, P4::Func(a.def.clone()), a.n_func_args as u16);
            }
        }
        self.b.bind(skip);
    }

    /// Whether an aggregate call is a min() or max(): those choose the row
    /// bare columns come from.
    fn is_min_max(a: &AggCall<'_, '_>) -> bool {
        a.n_func_args == 1 && (a.def.name.eq_ci("min") || a.def.name.eq_ci("max"))
    }

    /// One row's aggregate steps, then the bare columns (`cols`, read by
    /// `load_col(i, reg)`) copied into `col_regs`: on the group's first row
    /// (`first_row` holds 0 until then), or, with min()/max() calls, on
    /// each row the last of them that ran this row made its best value.
    /// That is the row SQLite reports bare columns from: its min()/max()
    /// calls share one "hit" register, which a call its FILTER rejects or
    /// its DISTINCT skips leaves alone; only when every min()/max() has a
    /// FILTER is it cleared before each FILTER is tested.
    pub(in crate::sql::codegen) fn step_row_and_bare_columns(
        &mut self,
        aggs: &[AggCall<'_, '_>],
        mut arg_regs: impl FnMut(&mut Self, usize) -> Result<i32>,
        n_cols: usize,
        col_regs: i32,
        first_row: i32,
        mut load_col: impl FnMut(&mut Self, usize, i32) -> Result<()>,
    ) -> Result<()> {
        let keep = self.b.label();
        let load = self.b.label();
        let choosing = n_cols > 0 && aggs.iter().any(Self::is_min_max);
        let all_filtered = aggs.iter().filter(|a| Self::is_min_max(a)).all(|a| a.has_filter);
        let hit = if choosing { self.b.reg() } else { 0 };
        for (i, a) in aggs.iter().enumerate() {
            let args = arg_regs(self, i)?;
            if choosing && Self::is_min_max(a) {
                self.agg_step_choosing(a, args, hit, all_filtered);
            } else {
                self.agg_step(a, args);
            }
        }
        if n_cols == 0 {
            return Ok(());
        }
        if choosing {
            self.b.add(Opcode::If, hit, load, 0);
        }
        // Otherwise only the group's first row loads them.
        self.b.add(Opcode::If, first_row, keep, 0);
        self.b.bind(load);
        for i in 0..n_cols {
            load_col(self, i, col_regs + i as i32)?;
        }
        self.b.add(Opcode::Integer, 1, first_row, 0);
        self.b.bind(keep);
        Ok(())
    }

    pub(in crate::sql::codegen) fn reset_aggs(&mut self, aggs: &[AggCall<'_, '_>]) {
        for a in aggs {
            self.b.add(Opcode::Null, 0, a.acc, 0);
            if let Some(d) = a.distinct_cursor {
                let ki =
                    crate::value::record::KeyInfo { fields: vec![crate::value::record::KeyField { collation: a.distinct_coll.clone(), descending: false }] };
                self.b.add4(Opcode::OpenEphemeral, d, 1, 0, P4::KeyInfo(Arc::new(ki)), 0);
                self.stmt.eqp.push(format_args!("USE TEMP B-TREE FOR {}(DISTINCT)", a.def.name));
            }
            if let Some(o) = &a.ordered {
                self.open_ordered_rows(a, o);
            }
        }
    }

    /// Output one group: finalize, HAVING, result row.
    pub(in crate::sql::codegen) fn agg_output<'a>(
        &mut self,
        aggs: &[AggCall<'a, 'b>],
        cols: &[ColumnRef],
        col_regs: i32,
        items: &[ResultItem<'a, 'b>],
        having: &[&'a Expr<'b>],
        order_by: Option<&'a [SortedColumn<'b>]>,
        ctx: &RowCtx,
        skip: i32,
    ) -> Result<()> {
        for a in aggs {
            if let Some(o) = &a.ordered {
                self.step_ordered_rows(a, o);
            }
            self.b.add4(Opcode::AggFinal, a.acc, a.n_func_args as i32, 0, P4::Func(a.def.clone()), 0);
        }
        // The mappings are this query's only: an enclosing statement's
        // (a trigger's OLD/NEW, an outer aggregate) come back afterwards.
        let saved_maps = (self.frame.agg_regs.clone(), self.frame.col_map.clone());
        let saved_depth = std::mem::replace(&mut self.frame.agg_scope_depth, self.names.scopes.len());
        for a in aggs {
            if let Some(old) = self.frame.agg_regs.insert(a.key.clone(), a.acc).filter(|&old| old != a.acc) {
                self.names.agg_shadowed.insert(a.acc, old);
            }
            self.frame.agg_owner_depth.insert(a.acc, self.names.scopes.len());
        }
        for (i, c) in cols.iter().enumerate() {
            self.frame.col_map.insert((c.cursor, c.column.map_or(-1, |x| x as i64)), ColumnSource::Register(col_regs + i as i32));
        }
        let r = (|| -> Result<()> {
            for h in having {
                self.jump_if_false(h, skip)?;
            }
            let regs = self.b.regs(items.len());
            // An EXISTS test reads no value of its groups' rows: as in
            // SQLite, their result expressions are not computed (the
            // aggregates were finished above, their errors raised).
            if !matches!(ctx.dest, Dest::Exists { .. }) {
                self.compute_items(items, regs)?;
            }
            self.emit_row(ctx, order_by, regs, items.len())
        })();
        (self.frame.agg_regs, self.frame.col_map) = saved_maps;
        self.frame.agg_scope_depth = saved_depth;
        r
    }

    /// Compile an aggregate SELECT's body. GROUP BY ordinals name the
    /// columns of `ordinals` (the SELECT's result columns), `items` when
    /// absent.
    pub fn compile_aggregate<'a>(
        &mut self,
        from: &[FromItem<'a, 'b>],
        terms: &[&'a Expr<'b>],
        items: &[ResultItem<'a, 'b>],
        ordinals: Option<&[ResultItem<'a, 'b>]>,
        group_by: Option<&'a [Expr<'b>]>,
        having: &[&'a Expr<'b>],
        order_by: Option<&'a [SortedColumn<'b>]>,
        ctx: &mut RowCtx,
    ) -> Result<()> {
        // A compound's arm: its ORDER BY (the compound's, by column
        // number) is not the GROUP BY's, so the groups are what the loops
        // are asked for (SQLite's `sqlite3_vtab_distinct` 1), then sorted.
        let arm_order = std::mem::take(&mut self.select.arm_order_offered_only);
        // GROUP BY terms: an integer names a result column. A column of
        // `*` has no expression: the ordinal stays in `group_exprs` (no
        // index serves it) and the column is in `group_cols`.
        let mut group_cols: Vec<Option<Vec<ColumnRef>>> = Vec::new();
        // Per GROUP BY term: the collation an ordinal term names.
        let mut ordinal_colls: Vec<Option<String>> = Vec::new();
        let named = ordinals.unwrap_or(items);
        let group_exprs: Option<Vec<&'a Expr<'b>>> = match group_by {
            None => None,
            Some(gs) => {
                let mut v = Vec::new();
                for g in gs {
                    // (COLLATE and parentheses aside, as SQLite reads an
                    // ordinal; its outermost COLLATE then applies to the
                    // result column: `GROUP BY 1 COLLATE nocase`.)
                    let mut inner = g;
                    let mut collate = None;
                    loop {
                        match inner {
                            Expr::Parenthesized(p) if p.len() == 1 => inner = &p[0],
                            Expr::Collate(x, c) => {
                                collate.get_or_insert_with(|| unquote(c));
                                inner = x;
                            }
                            _ => break,
                        }
                    }
                    let by_ordinal = crate::sql::model::expr_shape::parse_time_integer(inner).filter(|k| i32::try_from(*k).is_ok());
                    if by_ordinal.is_some() {
                        ordinal_colls.resize(v.len(), None);
                        ordinal_colls.push(collate);
                    }
                    match by_ordinal {
                        Some(k) if k >= 1 && (k as usize) <= named.len() => match &named[k as usize - 1] {
                            ResultItem::Expr(e, _) => v.push(*e),
                            ResultItem::Col(c, _, unqualified) => {
                                // (A USING column of a RIGHT/FULL JOIN
                                // named alone: the columns it reads.)
                                let reads = if *unqualified { self.using_reads(c) } else { Vec::new() };
                                group_cols.resize(v.len(), None);
                                group_cols.push(Some(if reads.is_empty() { vec![c.clone()] } else { reads }));
                                v.push(g);
                            }
                        },
                        Some(k) => {
                            let n = v.len() + 1;
                            let _ = k;
                            return Err(Error::sql(format!(
                                "{} GROUP BY term out of range - should be between 1 and {}",
                                match n {
                                    1 => "1st".to_string(),
                                    2 => "2nd".to_string(),
                                    3 => "3rd".to_string(),
                                    n => format!("{n}th"),
                                },
                                named.len()
                            )));
                        }
                        None => v.push(g),
                    }
                }
                for g in &v {
                    let mut has = false;
                    let mut ids: Vec<String> = Vec::new();
                    let me: &Compiler<'_> = self;
                    walk(g, &mut |x| {
                        if crate::sql::codegen::is_aggregate_call(me, x) {
                            has = true;
                        }
                        if let Expr::Id(id) = x {
                            ids.push(unquote(id.0));
                        }
                        true
                    });
                    // (Nor through a result alias, nor as an aggregate of
                    // this query written in a subquery.)
                    for id in ids {
                        if self.resolve_name(None, &id).ok().flatten().is_none() {
                            let text = self.names.aliases.last().and_then(|l| l.list.iter().find(|(n, _)| n.eq_ci(&id)).map(|(_, t)| t.clone()));
                            has |= text.is_some_and(|t| self.text_has_aggregate(&t));
                        }
                    }
                    has = has || !self.outer_aggregates_in(g).is_empty();
                    if has {
                        return Err(Error::sql("aggregate functions are not allowed in the GROUP BY clause"));
                    }
                }
                Some(v)
            }
        };
        // In SQLite's order: the result columns, then ORDER BY, then
        // HAVING, each in the order its calls are written, subqueries'
        // calls of this query included where they stand (the last
        // min()/max() of that order chooses the bare columns' row).
        let mut aggs: Vec<AggCall<'a, 'b>> = Vec::new();
        let mut cols: Vec<ColumnRef> = Vec::new();
        for it in items {
            match it {
                ResultItem::Expr(e, _) => {
                    self.collect_aggs_in_order(e, &mut aggs, true, self.frame.in_exists)?;
                    self.collect_columns(e, &mut cols);
                }
                ResultItem::Col(r, _, unqualified) => {
                    let reads = if *unqualified { self.using_reads(r) } else { Vec::new() };
                    for r in std::iter::once(r.clone()).chain(reads) {
                        if !cols.iter().any(|c| c.cursor == r.cursor && c.column == r.column) {
                            cols.push(r);
                        }
                    }
                }
            }
        }
        // (Without GROUP BY, one row: the ORDER BY is never coded.)
        for t in order_by.unwrap_or(&[]) {
            self.collect_aggs_in_order(&t.expr, &mut aggs, false, group_by.is_none())?;
            self.collect_columns(&t.expr, &mut cols);
        }
        for h in having {
            self.collect_aggs_in_order(h, &mut aggs, false, false)?;
            self.collect_columns(h, &mut cols);
        }
        for g in group_exprs.iter().flatten() {
            self.collect_columns(g, &mut cols);
        }
        for c in group_cols.iter().flatten().flatten() {
            if !cols.iter().any(|x| x.cursor == c.cursor && x.column == c.column) {
                cols.push(c.clone());
            }
        }
        // A subquery in the output may read any column of this row (its
        // references were not collected above): keep them all.
        let mut outputs: Vec<&Expr<'_>> = items.iter().filter_map(|it| if let ResultItem::Expr(e, _) = it { Some(*e) } else { None }).collect();
        outputs.extend(having.iter().copied());
        outputs.extend(order_by.unwrap_or(&[]).iter().map(|t| &t.expr));
        if outputs.iter().any(|e| crate::sql::model::expr_shape::has_subquery(e)) {
            self.collect_all_columns(from, &mut cols);
        }
        for a in aggs.iter_mut() {
            if a.distinct {
                a.distinct_cursor = Some(self.b.cursor());
            }
            if let Some(o) = a.ordered.as_mut() {
                o.cursor = self.b.cursor();
            }
        }
        let col_regs = self.b.regs(cols.len());
        // What the loops may exploit: every column read, and the order a
        // GROUP BY or a lone min()/max() wants.
        let mut req = crate::sql::plan::goal::LoopRequest::default();
        {
            let mut exprs: Vec<&Expr<'_>> = terms.to_vec();
            exprs.extend(group_by.unwrap_or(&[]).iter());
            exprs.extend(having.iter().copied());
            exprs.extend(order_by.unwrap_or(&[]).iter().enumerate().filter(|(i, _)| ctx.order_map.get(*i).copied().flatten().is_none()).map(|(_, t)| &t.expr));
            req.uses = self.select_uses(from, items, &exprs);
        }
        match group_exprs {
            None => {
                if self.simple_count(from, terms, &aggs, items, !cols.is_empty(), having, order_by, ctx)? {
                    return Ok(());
                }
                self.reset_aggs(&aggs);
                if !cols.is_empty() {
                    self.b.add(Opcode::Null, 0, col_regs, col_regs + cols.len() as i32 - 1);
                }
                // A lone min(col)/max(col): the first row in the column's
                // order (past NULLs for min) is the answer.
                let lone = if aggs.len() == 1 { aggs[0].call.and_then(|call| self.min_max_goal(call)) } else { None };
                let is_min = lone.as_ref().is_some_and(|g| !g.terms[0].desc);
                req.goal = lone;
                let first_row = self.b.reg();
                self.b.add(Opcode::Integer, 0, first_row, 0);
                // With only NULLs in the index, the bare columns come from
                // its first entry (as SQLite's min() lookup gives them).
                let null_seen = self.b.reg();
                self.b.add(Opcode::Integer, 0, null_seen, 0);
                let (loops, served) = self.open_loops_with(from, terms, &req)?;
                let done = self.b.label();
                let skip_null = self.b.label();
                self.step_row_and_bare_columns(
                    &aggs,
                    |c, i| {
                        let args = c.b.regs(aggs[i].args.len());
                        for (k, e) in aggs[i].args.iter().enumerate() {
                            c.expr(e, args + k as i32)?;
                        }
                        if served && is_min {
                            let not_null = c.b.label();
                            c.b.add(Opcode::NotNull, args, not_null, 0);
                            c.b.add(Opcode::If, null_seen, skip_null, 0);
                            c.b.add(Opcode::Integer, 1, null_seen, 0);
                            for (k, col) in cols.iter().enumerate() {
                                c.emit_column(col, col_regs + k as i32)?;
                            }
                            c.b.add(Opcode::Goto, 0, skip_null, 0);
                            c.b.bind(not_null);
                        }
                        Ok(args)
                    },
                    cols.len(),
                    col_regs,
                    first_row,
                    |c, i, reg| c.emit_column(&cols[i], reg),
                )?;
                if served {
                    self.b.add(Opcode::Goto, 0, done, 0);
                }
                self.b.bind(skip_null);
                self.close_loops(loops);
                self.b.bind(done);
                let skip = self.b.label();
                self.agg_output(&aggs, &cols, col_regs, items, having, order_by, ctx, skip)?;
                self.b.bind(skip);
            }
            Some(groups) => {
                let ng = groups.len();
                let n_args: usize = aggs.iter().map(|a| a.args.len()).sum();
                let width = ng + n_args + cols.len();
                let sorter = self.b.cursor();
                let mut fields = Vec::new();
                for (i, g) in groups.iter().copied().enumerate() {
                    let coll_name = match group_cols.get(i).cloned().flatten() {
                        _ if ordinal_colls.get(i).is_some_and(Option::is_some) => ordinal_colls[i].clone().map(|n| (n, true)),
                        Some(c) if c.len() == 1 => c[0].collation.clone().map(|n| (n, false)),
                        Some(_) => None,
                        None => self.expr_collation(g),
                    };
                    let coll = match coll_name {
                        Some((n, _)) => self.collation(&n)?,
                        None => crate::value::collation::Collation::binary(),
                    };
                    fields.push(crate::value::record::KeyField { collation: coll, descending: false });
                }
                let ki = Arc::new(crate::value::record::KeyInfo { fields });
                self.b.add4(Opcode::SorterOpen, sorter, width as i32, 0, P4::KeyInfo(ki.clone()), 0);
                // Groups read in an index's order need no sorter; an ORDER
                // BY on the same columns is then served too when the scan
                // runs its way.
                let group_goal =
                    if group_cols.iter().any(Option::is_some) || ordinal_colls.iter().any(Option::is_some) { None } else { self.group_by_goal(&groups) };
                let order_goal = match (order_by, &group_goal) {
                    (Some(ob), Some(gg)) if ctx.sorter.is_some() && !arm_order => self.order_by_goal(ob, &ctx.order_map, items).filter(|og| {
                        og.item == gg.item
                            && og.terms.len() == gg.terms.len()
                            && og.terms.iter().zip(&gg.terms).all(|(o, g)| o.column == g.column && o.collation == g.collation)
                    }),
                    _ => None,
                };
                let strict = order_goal.is_some();
                req.goal = order_goal.or(group_goal);
                let has_group = self.b.reg();
                self.b.add(Opcode::Integer, 0, has_group, 0);
                let (loops, served) = self.open_loops_with(from, terms, &req)?;
                if served {
                    if let Some(i) = self.b.insns.iter_mut().rev().find(|i| i.opcode == Opcode::SorterOpen && i.p1 == sorter) {
                        i.opcode = Opcode::Noop;
                        i.p4 = P4::None;
                    }
                    if strict {
                        self.drop_sorter(ctx);
                    }
                    let g = crate::sql::codegen::query::group_stream::StreamedGroups { groups: &groups, key_info: ki, has_group, col_regs };
                    return self.stream_groups(g, loops, &aggs, &cols, items, having, order_by, ctx);
                }
                // The sorter record: the group key, then each argument and
                // bare column once (`field[k]` is where the k-th of them
                // is; a plain column read twice is stored once).
                let base = self.b.regs(width);
                let mut reads: Vec<Option<ColumnRead>> = Vec::new();
                for (i, g) in groups.iter().enumerate() {
                    let start = self.b.here();
                    match group_cols.get(i).cloned().flatten() {
                        Some(c) => self.emit_coalesce(&c, base + i as i32)?,
                        None => self.expr(g, base + i as i32)?,
                    }
                    reads.push(column_read(&self.b.insns[start..]));
                }
                let mut field: Vec<usize> = (0..ng).collect();
                for a in &aggs {
                    for e in &a.args {
                        let start = self.b.here();
                        self.expr(e, base + reads.len() as i32)?;
                        field.push(keep_or_reuse(&mut self.b.insns, start, &mut reads));
                    }
                }
                for c in cols.iter() {
                    let start = self.b.here();
                    self.emit_column(c, base + reads.len() as i32)?;
                    field.push(keep_or_reuse(&mut self.b.insns, start, &mut reads));
                }
                let width = reads.len();
                let rec = self.b.reg();
                self.b.add(Opcode::MakeRecord, base, width as i32, rec);
                self.b.add(Opcode::SorterInsert, sorter, rec, 0);
                self.close_loops(loops);
                self.stmt.eqp.push(format_args!("USE TEMP B-TREE FOR GROUP BY"));

                let pseudo = self.b.cursor();
                let drec = self.b.reg();
                self.b.add(Opcode::OpenPseudo, pseudo, drec, width as i32);
                self.b.add(Opcode::Integer, 0, has_group, 0);
                let first_row = self.b.reg();
                let prev = self.b.regs(ng);
                let cur = self.b.regs(ng);
                let out_ret = self.b.reg();
                let after = self.b.label();
                let output = self.b.label();
                let new_group = self.b.label();
                let init = self.b.label();
                let same = self.b.label();
                self.b.add(Opcode::SorterSort, sorter, after, 0);
                // The first row starts the first group: no group to output
                // before it, no key to compare with (so the rows after it
                // need no test for "is there a group yet").
                self.b.add(Opcode::SorterData, sorter, drec, pseudo);
                for i in 0..ng {
                    self.b.add(Opcode::Column, pseudo, i as i32, cur + i as i32);
                }
                self.b.add(Opcode::Goto, 0, init, 0);
                let top = self.b.here();
                self.b.add(Opcode::SorterData, sorter, drec, pseudo);
                for i in 0..ng {
                    self.b.add(Opcode::Column, pseudo, i as i32, cur + i as i32);
                }
                self.b.add4(Opcode::Compare, cur, prev, ng as i32, P4::KeyInfo(ki), 0);
                self.b.add(Opcode::Jump, new_group, same, new_group);
                self.b.bind(new_group);
                self.b.add(Opcode::Gosub, out_ret, output, 0);
                self.b.bind(init);
                self.b.add(Opcode::Copy, cur, prev, ng as i32 - 1);
                self.reset_aggs(&aggs);
                self.b.add(Opcode::Integer, 1, has_group, 0);
                self.b.add(Opcode::Integer, 0, first_row, 0);
                self.b.bind(same);
                let mut k = ng;
                // A one-argument call reads its field from the register an
                // earlier call of this row loaded it into (calls put their
                // arguments back; every load runs before any call's skip).
                let mut loaded: Vec<(usize, i32)> = Vec::new();
                self.step_row_and_bare_columns(
                    &aggs,
                    |c, i| {
                        if aggs[i].args.len() == 1 {
                            let f = field[k];
                            k += 1;
                            if let Some(&(_, r)) = loaded.iter().find(|(g, _)| *g == f) {
                                return Ok(r);
                            }
                            let r = c.b.reg();
                            c.b.add(Opcode::Column, pseudo, f as i32, r);
                            loaded.push((f, r));
                            return Ok(r);
                        }
                        let args = c.b.regs(aggs[i].args.len());
                        for a in 0..aggs[i].args.len() {
                            c.b.add(Opcode::Column, pseudo, field[k] as i32, args + a as i32);
                            k += 1;
                        }
                        Ok(args)
                    },
                    cols.len(),
                    col_regs,
                    first_row,
                    |c, i, reg| {
                        c.b.add(Opcode::Column, pseudo, field[ng + n_args + i] as i32, reg);
                        Ok(())
                    },
                )?;
                self.b.add(Opcode::SorterNext, sorter, top as i32, 0);
                self.b.add(Opcode::Gosub, out_ret, output, 0);
                self.b.bind(after);
                let done = self.b.label();
                self.b.add(Opcode::Goto, 0, done, 0);
                self.b.bind(output);
                let ret = self.b.label();
                self.agg_output(&aggs, &cols, col_regs, items, having, order_by, ctx, ret)?;
                self.b.bind(ret);
                self.b.add(Opcode::Return, out_ret, 0, 0);
                self.b.bind(done);
            }
        }
        Ok(())
    }
}

/// What a plain column read computes: `Column` of (cursor, field) with
/// its default, and whether `RealAffinity` follows. Two equal reads in
/// one row give the same value.
#[derive(PartialEq)]
struct ColumnRead {
    cursor: i32,
    field: i32,
    /// The DEFAULT in P4: kind, number bits, bytes.
    default: (u8, u64, Vec<u8>),
    real: bool,
}

/// The sorter field of the value computed by `insns[start..]` into the
/// next field's register: an earlier field when it is the same column
/// read (the code is then dropped), else that next field.
fn keep_or_reuse(insns: &mut Vec<crate::vdbe::program::Insn>, start: usize, reads: &mut Vec<Option<ColumnRead>>) -> usize {
    let read = column_read(&insns[start..]);
    if let Some(same) = read.as_ref().and_then(|r| reads.iter().position(|x| x.as_ref() == Some(r))) {
        insns.truncate(start);
        return same;
    }
    reads.push(read);
    reads.len() - 1
}

/// The read `code` is, when it is exactly one plain column read.
fn column_read(code: &[crate::vdbe::program::Insn]) -> Option<ColumnRead> {
    let (col, rest) = code.split_first()?;
    if col.opcode != Opcode::Column {
        return None;
    }
    let real = match rest {
        [] => false,
        [a] if a.opcode == Opcode::RealAffinity && a.p1 == col.p3 => true,
        _ => return None,
    };
    let default = match &col.p4 {
        P4::None => (0, 0, Vec::new()),
        P4::Int64(i) => (1, *i as u64, Vec::new()),
        P4::Real(x) => (2, x.to_bits(), Vec::new()),
        P4::Bytes(_) | P4::Short(..) => (3, 0, col.p4.as_bytes().unwrap_or_default().to_vec()),
        _ => return None,
    };
    Some(ColumnRead { cursor: col.p1, field: col.p2, default, real })
}
