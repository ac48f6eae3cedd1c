//! SELECT: result columns, WHERE, DISTINCT, ORDER BY (through a sorter),
//! and the destinations a SELECT can feed (result rows, a
//! scalar register, an EXISTS flag, a temporary table or index).
//! FROM/join loops are in `from.rs`, aggregates in `aggregate.rs`,
//! compound SELECTs in `compound.rs`, LIMIT/OFFSET in `limit.rs`, VALUES
//! in `values.rs`.

use crate::error::{Error, Result};
use crate::sql::codegen::query::name_order::{order_or_group_clauses, Allows, NameClause};
use crate::sql::codegen::{Compiler, CteDef};
use crate::sql::model::expr_shape::conjuncts;
use crate::sql::model::expr_shape::{aggregate_inputs, strip_parens};
use crate::sql::model::query::kinds;
use crate::sql::model::query::{key_width, needs_null_key, Dest, Distinct, LimitRegs, NestedSource, ResultItem, RowCtx, SelectInfo};
use crate::sql::parse::ordinal;
use crate::sql::parse::{unquote, unquoted};
use crate::sql::plan::prelude::*;
use crate::sql::resolve::{ColumnRef, Scope};
use crate::util::ascii::AsciiLower;
use crate::value::affinity::Affinity;
use crate::value::collation::Collation;
use crate::value::record::{KeyField, KeyInfo};
use crate::vdbe::program::{Opcode, Program, P4};
use sqlite3_parser::ast::{self, Expr, OneSelect, ResultColumn, Select, SortOrder, SortedColumn};
use std::collections::HashMap;
use std::sync::Arc;

/// Compile a top-level SELECT; returns its column names.
pub fn compile_top_select(c: &mut Compiler<'_>, sel: &Select<'_>, prog: &mut Program) -> Result<Vec<String>> {
    let flatten = std::mem::replace(&mut c.select.flatten, true);
    let info = c.compile_select(sel, Dest::Output);
    c.select.flatten = flatten;
    let info = match info {
        // SQLite refuses a HAVING on a non-aggregate SELECT while
        // resolving names, before the errors it finds generating code
        // (see `having_check.rs`).
        Err(e) if e.message.starts_with("misuse of aggregate: ") || e.message.contains("ORDER BY term out of range") => {
            if c.has_non_aggregate_having(sel) {
                return Err(Error::sql("HAVING clause on a non-aggregate query"));
            }
            return Err(e);
        }
        Err(e) => return Err(e),
        Ok(_) if c.has_non_aggregate_having(sel) => return Err(Error::sql("HAVING clause on a non-aggregate query")),
        Ok(info) => info,
    };
    prog.column_decltypes = info.decltypes;
    prog.column_origins = info.origins;
    // (A name written from a `$::x` parameter shows it as written.)
    Ok(info
        .names
        .into_iter()
        .map(|n| {
            let written = match crate::sql::params::original_name(&n) {
                std::borrow::Cow::Owned(w) => Some(w),
                std::borrow::Cow::Borrowed(_) => None,
            };
            written.unwrap_or(n)
        })
        .collect())
}

/// Key description of the sorter for ORDER BY `terms`.
pub fn key_info_for(c: &mut Compiler<'_>, terms: &[SortedColumn<'_>], targets: &[Option<&Expr<'_>>]) -> Result<Arc<KeyInfo>> {
    let mut fields = Vec::new();
    for (i, t) in terms.iter().enumerate() {
        let desc = matches!(t.order, Some(SortOrder::Desc));
        if needs_null_key(t) {
            fields.push(KeyField { collation: Collation::binary(), descending: desc });
        }
        // A term naming a result column sorts with that column's collation
        // unless it carries its own.
        // (A plain BINARY column is no collation of its own here: the
        // result column it names decides.)
        let own = c.expr_collation(&t.expr).filter(|(n, explicit)| *explicit || !n.eq_ci("BINARY"));
        let from_target = match (&own, targets.get(i).copied().flatten()) {
            (None, Some(e)) => c.expr_collation(e),
            _ => None,
        };
        let coll = match own.or(from_target) {
            Some((n, _)) => c.collation(&n)?,
            None => Collation::binary(),
        };
        fields.push(KeyField { collation: coll, descending: desc });
    }
    Ok(Arc::new(KeyInfo { fields }))
}

/// Whether `e` (inside parentheses) is a CAST.
pub(super) fn is_cast(e: &Expr<'_>) -> bool {
    match e {
        Expr::Parenthesized(v) if v.len() == 1 => is_cast(&v[0]),
        e => matches!(e, Expr::Cast { .. }),
    }
}

/// Source text of the top-level result columns (names of unaliased
/// expressions), found by re-tokenizing the statement on first use only:
/// most result columns are named without it.
pub struct ResultSpans<'q> {
    sql: &'q [u8],
    /// Whether this SELECT is the statement's top-level one.
    top: bool,
    spans: Option<Vec<String>>,
}

impl ResultSpans<'_> {
    pub(in crate::sql::codegen) fn get(&mut self, i: usize) -> Option<&String> {
        if !self.top {
            return None;
        }
        let sql = self.sql;
        self.spans.get_or_insert_with(|| crate::sql::parse::result_column_spans(sql)).get(i)
    }
}

impl Compiler<'_> {
    /// Opens the sorter of ORDER BY `terms` once `ctx.order_map` maps them
    /// onto `items`: the sort key as [`key_info_for`] describes it, then
    /// `width` result columns.
    pub(super) fn open_order_sorter(&mut self, ctx: &mut RowCtx, terms: &[SortedColumn<'_>], items: &[ResultItem<'_, '_>], width: usize) -> Result<()> {
        let targets: Vec<Option<&Expr<'_>>> = ctx
            .order_map
            .iter()
            .map(|m| {
                m.and_then(|k| match &items[k] {
                    ResultItem::Expr(e, _) => Some(*e),
                    ResultItem::Col(..) => None,
                })
            })
            .collect();
        let ki = key_info_for(self, terms, &targets)?;
        let nk = key_width(terms);
        let s = self.b.cursor();
        self.b.add4(Opcode::SorterOpen, s, (nk + width) as i32, 0, P4::KeyInfo(ki), 0);
        ctx.sorter = Some((s, nk));
        Ok(())
    }

    /// Compile a SELECT (with its WITH clause, compounds, ORDER BY and
    /// LIMIT) feeding `dest`.
    pub fn compile_select(&mut self, sel: &Select<'_>, dest: Dest) -> Result<SelectInfo> {
        self.names.select_depth += 1;
        // (A subquery whose authorizer calls were asked ahead takes their
        // answers: `auth.rs`, `AuthAhead`.)
        let ahead = self.stmt.authorizer.is_some() && self.stmt.auth_ahead.begin_compile(crate::sql::codegen::auth::ahead_key(sel));
        let r = crate::sql::parse::with_stack(|| self.compile_select_inner(sel, dest));
        if ahead {
            self.stmt.auth_ahead.end_compile();
        }
        self.names.select_depth -= 1;
        r
    }

    /// [`Self::compile_select`] with a term pushed down from an outer
    /// query (`pushdown.rs`: `sel` is then one SELECT) ANDed onto its
    /// WHERE or HAVING clause.
    pub(in crate::sql::codegen) fn compile_select_pushed(
        &mut self,
        sel: &Select<'_>,
        dest: Dest,
        pushed: Option<&(Expr<'_>, super::pushdown::Clause)>,
    ) -> Result<SelectInfo> {
        let Some(pushed) = pushed else { return self.compile_select(sel, dest) };
        debug_assert!(sel.body.compounds.as_ref().is_none_or(|c| c.is_empty()), "a term is pushed into one SELECT only");
        self.names.select_depth += 1;
        let ahead = self.stmt.authorizer.is_some() && self.stmt.auth_ahead.begin_compile(crate::sql::codegen::auth::ahead_key(sel));
        let r = crate::sql::parse::with_stack(|| {
            let pushed_ctes = self.push_with(sel.with.as_ref())?;
            let r = self.compile_simple_with(&sel.body.select, sel.order_by, sel.limit, dest, Some(pushed));
            if pushed_ctes {
                self.frame.ctes.pop();
            }
            r
        });
        if ahead {
            self.stmt.auth_ahead.end_compile();
        }
        self.names.select_depth -= 1;
        r
    }

    fn compile_select_inner(&mut self, sel: &Select<'_>, dest: Dest) -> Result<SelectInfo> {
        let pushed_ctes = self.push_with(sel.with.as_ref())?;
        let top = self.names.scopes.is_empty() && matches!(dest, Dest::Output);
        let r = if sel.body.compounds.as_ref().is_some_and(|c| !c.is_empty()) {
            self.compile_compound(sel, dest)
        } else if self.count_of_view_height(sel).is_some_and(|h| h > self.env.max_expr_depth) {
            // (SQLite's sum of counts is too high: it fails once the
            // statement is compiled, `StatementState::codegen_error`.)
            self.codegen_too_deep();
            self.compile_simple(&sel.body.select, sel.order_by, sel.limit, dest)
        } else {
            match self.count_of_view_text(sel, !top) {
                Ok(Some(text)) => crate::sql::parse::with_first_statement(text.as_bytes(), |cmd, _| match cmd {
                    Some(ast::Cmd::Stmt(ast::Stmt::Select(rewritten))) => self.compile_simple(&rewritten.body.select, None, sel.limit, dest),
                    _ => Err(Error::sql("malformed count of a compound")),
                }),
                Ok(None) => self.compile_simple(&sel.body.select, sel.order_by, sel.limit, dest),
                Err(e) => Err(e),
            }
        };
        if pushed_ctes {
            self.frame.ctes.pop();
        }
        r
    }

    /// Make a WITH clause's CTEs visible; returns whether a level was
    /// pushed (pop `ctes` when done).
    pub fn push_with(&mut self, with: Option<&ast::With<'_>>) -> Result<bool> {
        let Some(with) = with else { return Ok(false) };
        let mut m = HashMap::new();
        for cte in with.ctes.iter() {
            let name = unquoted(cte.tbl_name.0);
            if m.contains_key(&name.ascii_lower()) {
                return Err(Error::sql(format!("duplicate WITH table name: {name}")));
            }
            m.insert(
                name.ascii_lower(),
                CteDef {
                    select_sql: crate::sql::parse::ast_text(cte.select),
                    columns: cte.columns.map(|cs| cs.iter().map(|c| unquote(c.col_name.0)).collect()),
                    materialized: cte.materialized == ast::Materialized::Yes,
                },
            );
        }
        self.frame.ctes.push(m);
        Ok(true)
    }

    /// Send `n` registers from `regs` to the final destination, applying
    /// OFFSET and LIMIT.
    pub fn emit_final(&mut self, dest: Dest, regs: i32, n: usize, limit: Option<LimitRegs>, end: i32) {
        let skip = self.b.label();
        if let Some(LimitRegs { offset: Some(o), .. }) = limit {
            self.b.add(Opcode::IfPos, o, skip, 1);
        }
        match dest {
            Dest::Output => {
                self.b.add(Opcode::ResultRow, regs, n as i32, 0);
            }
            Dest::Scalar { reg, done } => {
                // A row-value subquery fills one register per column.
                for i in 0..n as i32 {
                    self.b.add(Opcode::SCopy, regs + i, reg + i, 0);
                }
                self.b.add(Opcode::Goto, 0, done, 0);
            }
            Dest::Row { reg, done } => {
                self.b.add(Opcode::Copy, regs, reg, n as i32 - 1);
                self.b.add(Opcode::Goto, 0, done, 0);
            }
            Dest::EphemKeyed(cur) => {
                // A NULL key (an aggregate over no rows in UPDATE ... FROM
                // names no row) is no row to keep.
                let skip = self.b.label();
                self.b.add(Opcode::IsNull, regs, skip, 0);
                let rec = self.b.reg();
                self.b.add(Opcode::MakeRecord, regs, n as i32, rec);
                self.b.add(Opcode::Insert, cur, rec, regs);
                self.b.bind(skip);
            }
            Dest::EphemIndexKeyed(cur, key_width) => {
                debug_assert!(key_width >= 1 && key_width <= n, "the key is a prefix of the row");
                // A NULL key names no row (a primary key of a WITHOUT ROWID
                // table is never NULL); an entry of an equal key goes first,
                // so that the last row of each key is the one kept.
                let skip = self.b.label();
                self.b.add(Opcode::IsNull, regs, skip, 0);
                let fresh = self.b.label();
                self.b.add4(Opcode::NotFound, cur, fresh, regs, P4::Int64(key_width as i64), 0);
                self.b.add(Opcode::Delete, cur, 0, 0);
                self.b.bind(fresh);
                let rec = self.b.reg();
                self.b.add(Opcode::MakeRecord, regs, n as i32, rec);
                self.b.add(Opcode::IdxInsert, cur, rec, 0);
                self.b.bind(skip);
            }
            Dest::Exists { reg, done } => {
                self.b.add(Opcode::Integer, 1, reg, 0);
                self.b.add(Opcode::Goto, 0, done, 0);
            }
            Dest::EphemIndex(cur) => {
                let rec = self.b.reg();
                let at = self.b.add(Opcode::MakeRecord, regs, n as i32, rec);
                self.frame.ephem_records.entry(cur).or_default().push(at);
                self.b.add(Opcode::IdxInsert, cur, rec, 0);
                // (An IN subquery's key also goes into its Bloom filter.)
                if let Some(&(bloom, _)) = self.frame.bloom_adds.get(&cur) {
                    let at = self.b.add(Opcode::FilterAdd, bloom, n as i32, regs);
                    if let Some((_, adds)) = self.frame.bloom_adds.get_mut(&cur) {
                        adds.push(at);
                    }
                    self.stmt.eqp.push(format_args!("CREATE BLOOM FILTER"));
                }
            }
            Dest::EphemTable(cur) => {
                let rec = self.b.reg();
                let rid = self.b.reg();
                self.b.add(Opcode::MakeRecord, regs, n as i32, rec);
                self.b.add(Opcode::NewRowid, cur, rid, 0);
                self.b.add(Opcode::Insert, cur, rec, rid);
            }
            Dest::Discard => {}
            Dest::Yield { co, reg, width } => {
                // (A row narrower than `width` is an error the caller
                // reports once the SELECT is compiled.)
                self.b.add(Opcode::Copy, regs, reg, width.min(n).max(1) as i32 - 1);
                self.b.add(Opcode::Yield, co, 0, 0);
            }
            Dest::Recursive { result, queue, dedupe, limit: cte_limit, order } => {
                let rec = self.b.reg();
                let rid = self.b.reg();
                if let Some(d) = dedupe {
                    self.b.add4(Opcode::Found, d, skip, regs, P4::Int64(n as i64), 0);
                    self.b.add(Opcode::MakeRecord, regs, n as i32, rec);
                    self.b.add(Opcode::IdxInsert, d, rec, 0);
                }
                if let Some(o) = order {
                    let (keys, seq) = (self.frame.recursive_orders[o].keys.clone(), self.frame.recursive_orders[o].seq);
                    let width = keys.iter().map(|k| 1 + k.2 as usize).sum::<usize>();
                    let entry = self.b.regs(width + 1 + n);
                    let mut at = entry;
                    for (col, _, null_key) in keys.iter() {
                        if *null_key {
                            let done = self.b.label();
                            self.b.add(Opcode::Integer, 1, at, 0);
                            self.b.add(Opcode::IsNull, regs + *col as i32, done, 0);
                            self.b.add(Opcode::Integer, 0, at, 0);
                            self.b.bind(done);
                            at += 1;
                        }
                        self.b.add(Opcode::SCopy, regs + *col as i32, at, 0);
                        at += 1;
                    }
                    let one = self.b.reg();
                    self.b.add(Opcode::Integer, 1, one, 0);
                    self.b.add(Opcode::Add, one, seq, seq);
                    self.b.add(Opcode::SCopy, seq, entry + width as i32, 0);
                    for i in 0..n {
                        self.b.add(Opcode::SCopy, regs + i as i32, entry + (width + 1 + i) as i32, 0);
                    }
                    self.b.add(Opcode::MakeRecord, entry, (width + 1 + n) as i32, rec);
                    self.b.add(Opcode::IdxInsert, queue, rec, 0);
                    if let Some(l) = limit {
                        self.b.add(Opcode::DecrJumpZero, l.limit, end, 0);
                    }
                    self.b.bind(skip);
                    return;
                }
                self.b.add(Opcode::MakeRecord, regs, n as i32, rec);
                self.b.add(Opcode::NewRowid, queue, rid, 0);
                self.b.add(Opcode::Insert, queue, rec, rid);
                // OFFSET: the first rows are expanded but not kept.
                let kept = self.b.label();
                if let Some((_, _, Some(off))) = cte_limit {
                    self.b.add(Opcode::IfPos, off, kept, 1);
                }
                let rid = self.b.reg();
                self.b.add(Opcode::NewRowid, result, rid, 0);
                self.b.add(Opcode::Insert, result, rec, rid);
                if let Some((lim, done, _)) = cte_limit {
                    self.b.add(Opcode::DecrJumpZero, lim, done, 0);
                }
                self.b.bind(kept);
            }
        }
        if let Some(l) = limit {
            self.b.add(Opcode::DecrJumpZero, l.limit, end, 0);
        }
        self.b.bind(skip);
    }

    /// Emit one result row (in `regs`) through DISTINCT and the sorter or
    /// straight to the destination.
    pub fn emit_row(&mut self, ctx: &RowCtx, order_by: Option<&[SortedColumn<'_>]>, regs: i32, n: usize) -> Result<()> {
        let skip = self.b.label();
        match &ctx.distinct {
            Some(Distinct::Table(d)) => {
                self.b.add4(Opcode::Found, *d, skip, regs, P4::Int64(n as i64), 0);
                let rec = self.b.reg();
                self.b.add(Opcode::MakeRecord, regs, n as i32, rec);
                self.b.add(Opcode::IdxInsert, *d, rec, 0);
            }
            Some(Distinct::Ordered { first, prev, collations }) => {
                debug_assert_eq!(collations.len(), n, "a collation per result column");
                let (first, prev) = (*first, *prev);
                let new_row = self.b.label();
                self.b.add(Opcode::IfNot, first, new_row, 1);
                for (i, c) in collations.iter().enumerate() {
                    let i = i as i32;
                    self.b.add4(Opcode::Ne, prev + i, new_row, regs + i, P4::coll(c.clone()), crate::vdbe::program::cmp_flags::NULLEQ);
                }
                self.b.add(Opcode::Goto, 0, skip, 0);
                self.b.bind(new_row);
                self.b.add(Opcode::Copy, regs, prev, n as i32 - 1);
                self.b.add(Opcode::Integer, 1, first, 0);
            }
            None => {}
        }
        match (ctx.sorter, order_by) {
            (Some((sorter, nk)), Some(terms)) => {
                let base = self.b.regs(nk + n);
                self.emit_sort_keys(ctx, terms, regs, base)?;
                for i in 0..n {
                    self.b.add(Opcode::SCopy, regs + i as i32, base + (nk + i) as i32, 0);
                }
                let rec = self.b.reg();
                self.b.add(Opcode::MakeRecord, base, (nk + n) as i32, rec);
                // Only the first LIMIT + OFFSET rows of the order are read
                // back: the sorter keeps no more (SQLite's sorter with a
                // limit). The LIMIT register is not counted down before
                // the sorted rows are output.
                let keep = match ctx.limit {
                    Some(LimitRegs { limit, offset: None }) => limit,
                    Some(LimitRegs { limit, offset: Some(off) }) => {
                        let k = self.b.reg();
                        self.b.add(Opcode::OffsetLimit, limit, k, off);
                        k
                    }
                    None => 0,
                };
                self.b.add(Opcode::SorterInsert, sorter, rec, keep);
            }
            _ => self.emit_final(ctx.dest, regs, n, ctx.limit, ctx.end),
        }
        if matches!(ctx.distinct, Some(Distinct::Table(_))) {
            self.stmt.eqp.push(format_args!("USE TEMP B-TREE FOR DISTINCT"));
        }
        self.b.bind(skip);
        Ok(())
    }

    /// After the loops: read the sorter back in order.
    pub fn emit_sorter_output(&mut self, ctx: &RowCtx, n: usize) {
        let Some((sorter, nk)) = ctx.sorter else { return };
        let done = self.b.label();
        let rec = self.b.reg();
        let pseudo = self.b.cursor();
        self.b.add(Opcode::OpenPseudo, pseudo, rec, (nk + n) as i32);
        self.b.add(Opcode::SorterSort, sorter, done, 0);
        let top = self.b.here();
        self.b.add(Opcode::SorterData, sorter, rec, pseudo);
        let out = self.b.regs(n);
        for i in 0..n {
            self.b.add(Opcode::Column, pseudo, (nk + i) as i32, out + i as i32);
        }
        self.emit_final(ctx.dest, out, n, ctx.limit, ctx.end);
        self.b.add(Opcode::SorterNext, sorter, top as i32, 0);
        self.b.bind(done);
    }

    /// Map ORDER BY terms to result columns where they name one.
    pub fn order_by_map(&mut self, terms: &[SortedColumn<'_>], items: &[ResultItem<'_, '_>], names: &[String], compound: bool) -> Result<Vec<Option<usize>>> {
        self.order_by_map_with(terms, items, names, compound, &[])
    }

    /// [`Self::order_by_map`], where a compound's term may also name an alias
    /// of a later SELECT (`later_aliases`: alias, column), after the first's.
    pub fn order_by_map_with(
        &mut self,
        terms: &[SortedColumn<'_>],
        items: &[ResultItem<'_, '_>],
        names: &[String],
        compound: bool,
        later_aliases: &[(String, usize)],
    ) -> Result<Vec<Option<usize>>> {
        let mut out = Vec::new();
        for (ti, t) in terms.iter().enumerate() {
            let mut e = &t.expr;
            loop {
                match e {
                    Expr::Collate(inner, _) => e = inner,
                    Expr::Parenthesized(v) if v.len() == 1 => e = &v[0],
                    _ => break,
                }
            }
            let mut m = None;
            if let Some(k) = crate::sql::model::expr_shape::parse_time_integer(e).filter(|k| i32::try_from(*k).is_ok()) {
                if k < 1 || k as usize > names.len() {
                    // SQLite's resolver refuses only a number past 65535
                    // (or below 1) where it meets it; one past the result
                    // columns after every term's names resolved.
                    if !compound && (1..=0xffff).contains(&k) {
                        let named: Vec<&Expr<'_>> =
                            terms.iter().map(|t| &t.expr).filter(|x| crate::sql::model::expr_shape::parse_time_integer(x).is_none()).collect();
                        self.check_names_in(&named)?;
                    }
                    return Err(Error::sql(format!("{} ORDER BY term out of range - should be between 1 and {}", ordinal(ti + 1), names.len())));
                }
                m = Some(k as usize - 1);
            } else if let Expr::Id(id) = e {
                let n = unquoted(id.0);
                m = items.iter().position(|it| matches!(it, ResultItem::Expr(_, Some(a)) if a.eq_ci(&n)));
                if m.is_none() && compound {
                    m = names.iter().position(|x| x.eq_ci(&n));
                }
                if m.is_none() {
                    m = later_aliases.iter().find(|(a, _)| a.eq_ci(&n)).map(|(_, i)| *i);
                }
                if m.is_none() && compound {
                    m = self.names.later_compound_columns.iter().find(|(x, _)| x.eq_ci(&n)).map(|(_, i)| *i);
                }
            }
            if m.is_none() {
                let text = e.to_string();
                m = items.iter().position(|it| matches!(it, ResultItem::Expr(x, _) if x.to_string() == text));
            }
            // (A later SELECT's result expression, matched as the term is
            // written, COLLATE included, as SQLite matches it.)
            if m.is_none() && compound {
                let written = t.expr.to_string();
                m = self.names.later_compound_exprs.iter().find(|(x, _)| *x == written).map(|(_, i)| *i);
            }
            if m.is_none() && compound {
                // `t.c` names the result column that reads column c.
                if let Expr::Qualified(_, c) | Expr::DoublyQualified(_, _, c) = e {
                    let c = unquoted(c.0);
                    m = items.iter().position(|it| match it {
                        ResultItem::Expr(Expr::Id(x), _) => unquote(x.0).eq_ci(&c),
                        ResultItem::Expr(Expr::Qualified(_, x), _) => unquote(x.0).eq_ci(&c),
                        _ => false,
                    });
                    if m.is_none() {
                        m = self.names.later_compound_columns.iter().find(|(x, _)| x.eq_ci(&c)).map(|(_, i)| *i);
                    }
                }
            }
            if m.is_none() && compound {
                return Err(Error::sql(format!("{} ORDER BY term does not match any column in the result set", ordinal(ti + 1))));
            }
            out.push(m);
        }
        Ok(out)
    }

    /// Expand `*` and `t.*` into result items.
    /// With `sources` (a parenthesized join's `SELECT *`): every column,
    /// USING's right ones too, read as qualified, with its table and
    /// whether it is such a right column.
    pub fn expand_result_columns<'a, 'b>(
        &mut self,
        columns: &'a [ResultColumn<'b>],
        mut sources: Option<&mut Vec<NestedSource>>,
    ) -> Result<Vec<ResultItem<'a, 'b>>> {
        let mut items = Vec::new();
        for rc in columns {
            match rc {
                ResultColumn::Expr(e, alias) => {
                    let a = alias.as_ref().map(|a| match a {
                        ast::As::As(n) | ast::As::Elided(n) => unquote(n.0),
                    });
                    items.push(ResultItem::Expr(e, a));
                }
                ResultColumn::Star | ResultColumn::TableStar(_) => {
                    let q = match rc {
                        ResultColumn::TableStar(n) => Some(unquote(n.0)),
                        _ => None,
                    };
                    let scope = self.names.scopes.last().cloned().unwrap_or_default();
                    if scope.items.is_empty() {
                        return Err(Error::sql("no tables specified"));
                    }
                    let mut any = false;
                    for (ii, it) in scope.items.iter().enumerate() {
                        // `t.*`: the item named t, or t's columns inside a
                        // parenthesized join item.
                        let whole = q.as_ref().is_none_or(|q| it.name.eq_ci(q));
                        for (ci, col) in it.columns.iter().enumerate() {
                            let of_source = !whole && col.source.as_deref().zip(q.as_deref()).is_some_and(|(s, q)| s.eq_ci(q));
                            if !whole && !of_source {
                                continue;
                            }
                            any = true;
                            if col.hidden && q.is_none() && sources.is_none() || col.argument {
                                continue;
                            }
                            // `*` reads a column of a table inside a
                            // parenthesized join as `db.table.column`, which
                            // an item of the same name also matches.
                            if let (None, None, Some(src), Some(db)) = (&q, &sources, &col.source, col.source_db) {
                                if !col.hidden && scope.items.iter().any(|o| o.name.eq_ci(src) && !o.table.is_empty() && o.db == db) {
                                    return Err(Error::sql(format!("ambiguous column name: {}.{src}.{}", self.db_name(db), col.name)));
                                }
                            }
                            // SQLite expands `*` over several items into
                            // `db.name.column`, which another item of the
                            // same name and database with that column also
                            // matches (unless joined on it by USING or
                            // NATURAL): a table or view named twice
                            // without aliases.
                            if sources.is_none() && !col.hidden && !it.name.is_empty() {
                                let other = scope.items.iter().enumerate().any(|(jj, o)| {
                                    jj != ii
                                        && o.db == it.db
                                        && o.name.eq_ci(&it.name)
                                        && o.columns.iter().any(|oc| oc.name.eq_ci(&col.name))
                                        && (jj < ii || !o.using.iter().any(|u| u.eq_ci(&col.name)))
                                });
                                if other {
                                    return Err(Error::sql(format!("ambiguous column name: {}.{}.{}", self.db_name(it.db), it.name, col.name)));
                                }
                            }
                            let column = if it.rowid_alias == Some(ci) { None } else { Some(ci) };
                            let cref = ColumnRef { depth: 0, item: ii, cursor: it.cursor, column, affinity: col.affinity, collation: col.collation.clone() };
                            if let Some(s) = sources.as_deref_mut() {
                                // A USING column of a RIGHT/FULL JOIN inside:
                                // what its name alone reads comes first
                                // (visible, of no table), then the
                                // table's own column, left out of `*`.
                                let key = (it.cursor, column.map_or(-1, |c| c as i64));
                                let coalesced = self.frame.using_coalesce.contains_key(&key);
                                if coalesced {
                                    s.push(Default::default());
                                    items.push(ResultItem::Col(cref.clone(), col.name.clone(), true));
                                }
                                let db = (!it.table.is_empty()).then_some(it.db).or(col.source_db);
                                s.push(NestedSource {
                                    table: Some(col.source.clone().unwrap_or_else(|| it.name.clone())),
                                    db,
                                    hidden: col.hidden || coalesced,
                                });
                            }
                            items.push(ResultItem::Col(cref, col.name.clone(), q.is_none() && sources.is_none()));
                        }
                    }
                    if !any {
                        return Err(Error::sql(format!("no such table: {}", q.unwrap_or_default())));
                    }
                }
            }
        }
        if items.len() > self.env.max_columns {
            return Err(Error::sql("too many columns in result set"));
        }
        Ok(items)
    }

    /// Name, affinity and declared type of a result item.
    pub fn describe_item(&mut self, item: &ResultItem<'_, '_>, spans: &mut ResultSpans<'_>, i: usize) -> (String, Option<Affinity>, Option<String>) {
        match item {
            ResultItem::Col(r, name, _) => {
                // (The column the reference names, found by name only when
                // it is not there: a 2,000-column `*` searched each name.)
                let item = self.names.scopes.last().and_then(|s| s.items.get(r.item));
                let col = item.and_then(|it| {
                    r.column.and_then(|c| it.columns.get(c)).filter(|c| c.name.eq_ci(name)).or_else(|| it.columns.iter().find(|c| c.name.eq_ci(name)))
                });
                let decl = col.and_then(|c| c.decltype.clone());
                let aff = Some(r.affinity).filter(|_| !col.is_some_and(|c| c.without_affinity));
                (name.clone(), aff, decl)
            }
            ResultItem::Expr(e, alias) => {
                let aff = self.expr_affinity(e);
                // Parentheses leave no trace in SQLite's tree: `(Y)` is
                // the column Y.
                let (colname, decl) = match strip_parens(e) {
                    Expr::Id(id) => self.column_name_and_type(None, &unquoted(id.0)),
                    Expr::Qualified(t, c) | Expr::DoublyQualified(_, t, c) => self.column_name_and_type(Some(&unquoted(t.0)), &unquoted(c.0)),
                    _ => (None, None),
                };
                let name = alias.clone().or(colname).or_else(|| spans.get(i).cloned()).unwrap_or_else(|| self.subquery_column_text(e));
                (name, aff, decl)
            }
        }
    }

    /// The name of a nested SELECT's result column that is expression
    /// `e`: its source text, found among the SELECT lists of the views
    /// being expanded (innermost first) and of the statement as the span
    /// that renders the same (whitespace aside), else its text.
    fn subquery_column_text(&self, e: &Expr<'_>) -> String {
        let want = crate::sql::params::expr_text(e);
        // Inside a view's body the text is the view's; a CTE's body is
        // written in the view or the statement around it.
        let views = self.naming.view_texts.iter().rev().map(|t| t.columns());
        let found = views.chain(std::iter::once(self.naming.statement_texts.columns(self.stmt.sql))).find_map(|c| c.find(&want));
        found.cloned().unwrap_or_else(|| column_text(e))
    }

    /// The table column a result item reads, if it is a plain column.
    /// (database, table, column) a result column reads, when it is a
    /// table column.
    fn item_origin(&mut self, item: &ResultItem<'_, '_>) -> Option<(String, String, String)> {
        let r = match item {
            ResultItem::Col(r, _, _) => r.clone(),
            ResultItem::Expr(e, _) => match strip_parens(e) {
                Expr::Id(id) => self.resolve_name(None, &unquoted(id.0)).ok().flatten()?,
                Expr::Qualified(t, c) => self.resolve_name(Some(&unquoted(t.0)), &unquoted(c.0)).ok().flatten()?,
                _ => return None,
            },
        };
        if r.depth != 0 {
            return None;
        }
        let it = self.names.scopes.last()?.items.get(r.item)?;
        if it.table.is_empty() {
            return None;
        }
        let col = match r.column.or(it.rowid_alias) {
            Some(c) => it.columns.get(c)?.name.clone(),
            None => "rowid".to_string(),
        };
        Some((self.db_name(it.db), it.table.clone(), col))
    }

    fn column_name_and_type(&mut self, q: Option<&str>, name: &str) -> (Option<String>, Option<String>) {
        let Ok(Some(r)) = self.resolve_name(q, name) else { return (None, None) };
        if r.depth != 0 {
            return (Some(name.to_string()), None);
        }
        let Some(scope) = self.names.scopes.last() else { return (None, None) };
        let Some(item) = scope.items.get(r.item) else { return (None, None) };
        match r.column.or(item.rowid_alias) {
            Some(ci) => item.columns.get(ci).map_or((None, None), |c| (Some(c.name.clone()), c.decltype.clone())),
            // The rowid of a table without an INTEGER PRIMARY KEY.
            None => (Some(name.to_string()), Some("INTEGER".into())),
        }
    }

    /// A simple (non-compound) SELECT.
    pub fn compile_simple(
        &mut self,
        core: &OneSelect<'_>,
        order_by: Option<&[SortedColumn<'_>]>,
        limit: Option<&ast::Limit<'_>>,
        dest: Dest,
    ) -> Result<SelectInfo> {
        self.compile_simple_with(core, order_by, limit, dest, None)
    }

    /// [`Self::compile_simple`], with `pushed` ANDed onto the WHERE or
    /// HAVING clause (after the terms written there, as SQLite appends it).
    fn compile_simple_with(
        &mut self,
        core: &OneSelect<'_>,
        order_by: Option<&[SortedColumn<'_>]>,
        limit: Option<&ast::Limit<'_>>,
        dest: Dest,
        pushed: Option<&(Expr<'_>, super::pushdown::Clause)>,
    ) -> Result<SelectInfo> {
        let view_names_text = self.naming.view_names_text.take();
        let span_names = std::mem::take(&mut self.naming.span_names) || view_names_text.is_some();
        let nested_from = std::mem::take(&mut self.naming.nested_from);
        let row_values = std::mem::take(&mut self.frame.row_values_after);
        let order_offered_only = std::mem::take(&mut self.select.arm_order_offered_only);
        let order_probed = std::mem::take(&mut self.select.arm_order_probed);
        let OneSelect::Select { distinctness, columns, from, where_clause, group_by, having, window_clause } = core else {
            return self.compile_values(core, order_by, limit, dest);
        };
        let (and_node, merged);
        let (where_clause, having) = match pushed {
            None => (where_clause, having),
            Some((term, clause)) => {
                let into_having = *clause == super::pushdown::Clause::Having;
                let base = if into_having { *having } else { *where_clause };
                and_node = base.map(|b| Expr::Binary(b, ast::Operator::And, term));
                merged = Some(and_node.as_ref().unwrap_or(term));
                if into_having {
                    (where_clause, &merged)
                } else {
                    (&merged, having)
                }
            }
        };
        // (An arm of a UNION ALL streamed with a LIMIT counts on the
        // compound's registers; a subquery inside it has its own.)
        let compound_limit = self.select.compound_limit.take();
        // (SQLite checks every frame of the WINDOW clause as it parses.)
        for d in window_clause.iter().flat_map(|w| w.iter()) {
            if let Some(f) = &d.window.frame_clause {
                crate::sql::codegen::query::window_spec::check_frame(f)?;
            }
        }
        self.names.scopes.push(Scope::default());
        self.names.aliases.push(crate::sql::codegen::Aliases { list: Vec::new(), scope_depth: self.names.scopes.len() });
        let saved_exists = self.frame.in_exists;
        self.frame.in_exists = matches!(dest, Dest::Exists { .. });
        let exists_as_join_len = self.select.exists_as_join.len();
        let as_join = matches!(dest, Dest::Exists { .. }) && self.select.exists_as_join.contains(&(core as *const OneSelect<'_> as usize));
        // (This SELECT's authorizer answers, see `auth_order.rs`.)
        let auth_depth = self.stmt.auth_answers.len();
        if self.stmt.authorizer.is_some() {
            let not_coded = std::mem::take(&mut self.stmt.auth_in_not_coded);
            self.stmt.auth_answers.push(crate::sql::codegen::query::auth_order::AuthAnswers::new(not_coded));
        }
        let result = (|| -> Result<SelectInfo> {
            // SQLite expands the whole SELECT, the subqueries of its
            // expressions included, before it resolves a name: a missing
            // table there comes before any name error, and before the
            // errors of a FROM subquery's names (not for the SELECT
            // carrying an UPDATE's or DELETE's WHERE, whose subqueries
            // SQLite expands as its resolver meets them).
            if self.names.select_depth != self.names.dml_where_level {
                if let Some(name) = self.missing_table_in_query(core, order_by, limit) {
                    return Err(self.no_such_table(&name));
                }
            }
            // `SELECT ... FROM recursive_cte LIMIT n`: the CTE need not
            // produce more than LIMIT + OFFSET rows.
            let simple_reader = where_clause.is_none()
                && group_by.is_none()
                && having.is_none()
                && order_by.is_none()
                && distinctness.is_none()
                && from.as_ref().is_some_and(|f| f.joins.as_ref().is_none_or(|j| j.is_empty()));
            self.select.cte_limit_hint = match (simple_reader, limit) {
                (true, Some(l)) if !self.limit_comma_form() => Some((l.expr.to_string(), l.offset.as_ref().map(|o| o.to_string()))),
                _ => None,
            };
            let where_args = where_clause.as_ref().map(|w| crate::sql::codegen::query::table_fn::where_equalities(w)).unwrap_or_default();
            let saved_where_args = std::mem::replace(&mut self.select.pragma_where_args, where_args);
            let written_aliases = columns
                .iter()
                .filter_map(|rc| match rc {
                    ResultColumn::Expr(_, Some(ast::As::As(n) | ast::As::Elided(n))) => Some(unquote(n.0)),
                    _ => None,
                })
                .collect();
            let saved_aliases = std::mem::replace(&mut self.select.from_result_aliases, written_aliases);
            let mentioned = crate::sql::codegen::query::table_fn::mentioned_names(where_clause.as_deref(), from.as_ref());
            let saved_mentioned = std::mem::replace(&mut self.select.from_mentioned_names, mentioned);
            let distinct = matches!(distinctness, Some(ast::Distinctness::Distinct));
            let saved_distinct = std::mem::replace(&mut self.select.from_distinct, distinct);
            let items_from = self.open_from(from.as_ref(), *where_clause);
            self.select.from_distinct = saved_distinct;
            self.select.pragma_where_args = saved_where_args;
            self.select.from_result_aliases = saved_aliases;
            self.select.from_mentioned_names = saved_mentioned;
            self.select.cte_limit_hint = None;
            let (mut items_from, on_checks) = items_from?;
            // The join terms SQLite ANDs onto the WHERE clause are held to
            // the depth limit before anything is resolved (`join_height`).
            let terms = std::mem::take(&mut self.expansion.join_term_heights);
            if !terms.is_empty() {
                let where_height = where_clause.as_deref().map_or(0, crate::sql::parse_limits::height);
                super::join_height::check(where_height, &terms, self.env.max_expr_depth)?;
            }
            // A LEFT JOIN the WHERE clause makes an inner join is planned
            // as one from here on (SQLite does it before anything else).
            self.reduce_outer_joins(&mut items_from, where_clause.as_deref());
            let mut sources = Vec::new();
            let mut items = self.expand_result_columns(columns, nested_from.then_some(&mut sources))?;
            // (What ORDER BY and GROUP BY ordinals count, an EXISTS
            // subquery's written columns.)
            let written_width = items.len();
            // An EXISTS subquery's result columns do not matter unless they
            // make it an aggregate query of its own.
            let one = Expr::Literal(ast::Literal::Numeric("1"));
            let mut exists_order_map = None;
            // (What the written columns read still counts as read, as in
            // SQLite: a virtual table's `colUsed`, a covering index.)
            let mut exists_written = None;
            if matches!(dest, Dest::Exists { .. }) && group_by.is_none() && having.is_none() && !self.has_inner_aggregate(&items) {
                // (SQLite drops these columns before it asks whether the
                // subquery reads the enclosing row: a column of an outer
                // query named only here does not make it correlated, so
                // it still runs once.)
                let was_correlated = self.names.scopes.last().map(|s| s.correlated);
                for it in &items {
                    if let ResultItem::Expr(e, _) = it {
                        self.check_names(e)?;
                        self.resolve_dropped_subqueries(e)?;
                    }
                }
                if let (Some(was), Some(s)) = (was_correlated, self.names.scopes.last_mut()) {
                    s.correlated = was;
                }
                // (The ORDER BY is resolved against the written result
                // columns, below with the other clauses.)
                if let Some(terms) = order_by {
                    let names: Vec<String> = items.iter().map(|_| String::new()).collect();
                    exists_order_map = Some(self.order_by_map(terms, &items, &names, false)?);
                }
                let written = std::mem::replace(&mut items, vec![ResultItem::Expr(&one, None)]);
                // (Not where SQLite turns the EXISTS into a join.)
                exists_written = (!as_join).then_some(written);
            }
            let output_names = self.names.scopes.len() == 1 && (matches!(dest, Dest::Output) || self.naming.top_compound_arm) && !span_names;
            let top = self.names.scopes.len() == 1 && (matches!(dest, Dest::Output) || self.naming.top_compound_arm || span_names);
            self.naming.top_compound_arm = false;
            let mut spans = match &view_names_text {
                Some(text) => ResultSpans { sql: text.as_bytes(), top: true, spans: None },
                None => ResultSpans { sql: self.stmt.sql, top, spans: None },
            };
            let mut info = SelectInfo { n_columns: items.len(), sources, ..Default::default() };
            // What is known of these scalar subqueries comes from compiling
            // them below (an older entry may be of another parse).
            for it in &items {
                if let ResultItem::Expr(e, _) = it {
                    self.forget_subquery_affinity(e);
                }
            }
            // The source text of an expression is found by its place in
            // the written result list (a `*` before it stands for several
            // items but one written column).
            let written_at: crate::util::fast_hash::FastMap<usize, usize> = columns
                .iter()
                .enumerate()
                .filter_map(|(k, rc)| match rc {
                    ResultColumn::Expr(x, _) => Some((x as *const Expr<'_> as usize, k)),
                    _ => None,
                })
                .collect();
            for (i, it) in items.iter().enumerate() {
                let written = match it {
                    ResultItem::Expr(e, _) => written_at.get(&(*e as *const Expr<'_> as usize)).copied().unwrap_or(i),
                    ResultItem::Col(..) => i,
                };
                let (mut n, a, d) = self.describe_item(it, &mut spans, written);
                let mut written_name = written_column_name(it, &n, i);
                if let Some(legacy) = self.legacy_column_name(it, output_names, &mut spans, written) {
                    if matches!(it, ResultItem::Col(..)) {
                        written_name = legacy.clone();
                    }
                    n = legacy;
                }
                info.written_names.push(written_name);
                info.names.push(n);
                info.affinities.push(a);
                info.decltypes.push(d);
                let origin = self.item_origin(it);
                info.origins.push(origin);
                let coll = match it {
                    ResultItem::Expr(e, _) => self.expr_collation(e).map(|c| c.0),
                    ResultItem::Col(c, _, _) => c.collation.clone(),
                };
                info.collations.push(coll);
                // (Only CREATE TABLE ... AS asks for these names.)
                let table_name = if span_names { self.table_column_name(it, spans.get(written), i) } else { String::new() };
                info.table_names.push(table_name);
                let (kinds, cast) = match it {
                    ResultItem::Expr(e, _) => (self.value_kinds(e), is_cast(e)),
                    ResultItem::Col(c, _, _) if c.affinity.is_numeric() => (kinds::NUMERIC | kinds::BLOB, false),
                    ResultItem::Col(c, _, _) if c.affinity == Affinity::Text => (kinds::TEXT | kinds::BLOB, false),
                    ResultItem::Col(..) => (kinds::ANY, false),
                };
                info.data_types.push(kinds);
                info.casts.push(cast);
            }
            info.first_affinity = info.affinities.first().copied().flatten();
            let aliases: Vec<(String, String)> = items
                .iter()
                .filter_map(|it| match it {
                    ResultItem::Expr(e, Some(a)) => Some((a.clone(), e.to_string())),
                    _ => None,
                })
                .collect();
            if let Some(a) = self.names.aliases.last_mut() {
                a.list = aliases;
            }
            let end = self.b.label();
            // LIMIT and OFFSET name no table columns, this SELECT's or an
            // enclosing one's (the scopes stay, emptied, so that nesting
            // depth still reads the same).
            let saved: Vec<Scope> = self.names.scopes.iter_mut().map(std::mem::take).collect();
            let one_row = matches!(dest, Dest::Scalar { .. } | Dest::Exists { .. } | Dest::Row { .. });
            let lim = match compound_limit {
                Some((regs, _)) => Ok(Some(regs)),
                None if one_row => self.setup_one_row_limit(limit, end),
                None => self.setup_limit(limit, end),
            };
            for (s, own) in self.names.scopes.iter_mut().zip(saved) {
                *s = own;
            }
            let lim = lim?;
            let mut ctx = RowCtx { dest, sorter: None, order_map: Vec::new(), distinct: None, limit: lim, end, top_n: false };
            // As SQLite decides it: the result list or GROUP BY make an
            // aggregate query; an aggregate only in ORDER BY does not (it
            // is then misused) and HAVING needs one of the two.
            let is_agg = group_by.is_some() || self.items_have_aggregates(&items);
            let items_windows = items.iter().any(|it| matches!(it, ResultItem::Expr(e, _) if crate::sql::model::expr_shape::has_window_call(e)));
            let order_windows = order_by.unwrap_or(&[]).iter().any(|t| crate::sql::model::expr_shape::has_window_call(&t.expr));
            // Names in SQLite's resolver order: the result list, then
            // HAVING (refused first on a query that is not an aggregate
            // one), then WHERE, then ORDER BY and GROUP BY, before any
            // error the code generator finds (an unknown collation of
            // ORDER BY or DISTINCT, an ON clause naming a table to its
            // right).
            // (The ON clauses are ANDed onto the WHERE clause, in join
            // order, before names are resolved: one walk.)
            // A USING or NATURAL column's equality resolves no name but
            // ends the walk once an error stands, as any operator does.
            let equality = Expr::Literal(ast::Literal::Null);
            let mut where_and_ons: Vec<&Expr<'_>> = where_clause.as_deref().into_iter().collect();
            for it in &items_from {
                for j in &it.on {
                    match j {
                        crate::sql::model::from::JoinTerm::Expr(e) => where_and_ons.push(e),
                        crate::sql::model::from::JoinTerm::ColEq(..) => where_and_ons.push(&equality),
                        _ => {}
                    }
                }
            }
            let mut clauses: Vec<NameClause<'_, '_>> =
                items.iter().filter_map(|it| if let ResultItem::Expr(e, _) = it { Some(NameClause::new(vec![*e], Allows::ALL)) } else { None }).collect();
            if having.is_none() || is_agg {
                // (HAVING and WHERE take an aggregate in an aggregate query
                // only, and no window function.)
                let grouped = Allows { aggregates: is_agg, windows: false };
                clauses.extend(having.as_deref().map(|h| NameClause::new(vec![h], grouped)));
                if !where_and_ons.is_empty() {
                    clauses.push(NameClause::new(where_and_ons, grouped));
                }
                // (An ORDER BY term naming a result alias, through COLLATE,
                // is matched to that result column before any name is
                // resolved: `SELECT 1 AS y FROM t1, t2 ORDER BY y` is not
                // ambiguous.)
                let names_alias = |e: &Expr<'_>| matches!(crate::sql::model::expr_shape::strip_collate_and_parens(e), Expr::Id(id) if items.iter().any(|it| matches!(it, ResultItem::Expr(_, Some(a)) if a.eq_ci(&unquote(id.0)))));
                let order_terms = order_by.iter().flat_map(|o| o.iter()).map(|t| &t.expr).filter(|e| !names_alias(e));
                order_or_group_clauses(order_terms, "ORDER", written_width, Allows::ALL, &mut clauses);
                if let Some(g) = group_by.as_deref() {
                    order_or_group_clauses(g.iter(), "GROUP", written_width, Allows { aggregates: true, windows: false }, &mut clauses);
                }
            }
            let defs = window_clause.iter().flat_map(|w| w.iter()).map(|d| unquote(d.name.0)).collect();
            let saved_defs = self.names.window_defs.replace(defs);
            let checked = self.check_clauses(&clauses);
            self.names.window_defs = saved_defs;
            checked?;
            self.check_on_clauses(&on_checks)?;
            // An ORDER BY resolved but never coded (`unused_order.rs`): an
            // EXISTS test's, and an aggregate query's without GROUP BY or a
            // query without FROM (one row; SQLite's planner finds it in
            // order, and builds no sorter, whose record a lowered
            // SQLITE_LIMIT_LENGTH could refuse; a window function makes it
            // the ORDER BY of the windows' query, which is coded).
            let exists = matches!(dest, Dest::Exists { .. });
            // (Not `one_row`, the destination's, which the virtual-table
            // LIMIT offer below reads.)
            let single_row_query = (is_agg && group_by.is_none()) || (from.is_none() && !is_agg);
            let unused_order = match order_by {
                Some(terms) if exists || (single_row_query && !items_windows && !order_windows) => Some(terms),
                _ => None,
            };
            if let Some(terms) = unused_order {
                ctx.order_map = match exists_order_map.take() {
                    Some(m) => m,
                    None => self.order_by_map(terms, &items, &info.names, false)?,
                };
            }
            // (An EXISTS test's ORDER BY goes before its aggregates are
            // gathered; the other stays for them.)
            let order_by = if exists { None } else { order_by };
            if let Some(terms) = order_by.filter(|_| unused_order.is_none()) {
                ctx.order_map = self.order_by_map(terms, &items, &info.names, false)?;
                self.open_order_sorter(&mut ctx, terms, &items, items.len())?;
            }
            // (A DISTINCT that cannot remove a row is left out.) An
            // EXISTS test ignores DISTINCT as SQLite does, even where an
            // OFFSET makes it count: `EXISTS (SELECT DISTINCT a FROM t
            // LIMIT 1 OFFSET 1)` is true when t holds two rows of one a.
            let is_distinct = matches!(distinctness, Some(ast::Distinctness::Distinct)) && !exists;
            let plain_rows = group_by.is_none()
                && !self.items_have_aggregates(&items)
                && !items.iter().any(|it| matches!(it, ResultItem::Expr(e, _) if crate::sql::model::expr_shape::has_window_call(e)));
            let distinct = is_distinct && !(plain_rows && self.distinct_is_redundant(&items_from, &items, *where_clause));
            let mut distinct_open = None;
            if distinct {
                // Rows are told apart under each result column's collation.
                let mut fields = Vec::with_capacity(items.len());
                for it in &items {
                    let name = match it {
                        ResultItem::Expr(e, _) => self.expr_collation(e).map(|(n, _)| n),
                        ResultItem::Col(r, _, _) => r.collation.clone(),
                    };
                    let collation = match name {
                        Some(n) => self.collation(&n)?,
                        None => Collation::binary(),
                    };
                    fields.push(KeyField { collation, descending: false });
                }
                let d = self.b.cursor();
                // (P5 8 is SQLite's BTREE_UNORDERED, which its EXPLAIN shows
                // for this table: only membership is asked of it.)
                distinct_open = Some(self.b.add4(Opcode::OpenEphemeral, d, items.len() as i32, 0, P4::KeyInfo(Arc::new(KeyInfo { fields })), 8));
                ctx.distinct = Some(Distinct::Table(d));
            }
            // (Not for the SELECT carrying an UPDATE's or DELETE's WHERE,
            // whose result list is the statement's own rowid read and whose
            // WHERE was asked about before any code: `dml/delete.rs`.)
            let dml_where = self.names.select_depth == self.names.dml_where_level;
            if self.stmt.authorizer.is_some() && !self.stmt.auth_answers.is_empty() && !dml_where {
                // (The authorizer's reads and calls in the resolver's
                // order: `auth_order.rs`.)
                let mut rest: Vec<&Expr<'_>> = having.as_deref().into_iter().chain(where_clause.as_deref()).collect();
                for it in &items_from {
                    for j in &it.on {
                        if let crate::sql::model::from::JoinTerm::Expr(e) = j {
                            rest.push(e);
                        }
                    }
                }
                let ordering: Vec<(&Expr<'_>, bool)> = order_by
                    .iter()
                    .flat_map(|o| o.iter())
                    .map(|t| (&t.expr, true))
                    .chain(group_by.as_deref().into_iter().flat_map(|g| g.iter()).map(|e| (e, false)))
                    .collect();
                let written = exists_written.as_deref().unwrap_or(&items);
                self.authorize_in_resolver_order(written, &rest, &ordering, &items_from, from.as_ref(), items_windows || order_windows)?;
            } else if let Some(a) = self.stmt.auth_answers.last_mut() {
                // (Its subqueries' checks are not held for it.)
                a.resolved = true;
            }
            if having.is_some() && !is_agg {
                return Err(Error::sql("HAVING clause on a non-aggregate query"));
            }
            let mut terms = Vec::new();
            if let Some(w) = where_clause {
                conjuncts(w, &mut terms);
            }
            // SQLite turns a WHERE term `EXISTS (SELECT ...)` whose
            // subquery has no LIMIT and no compound into a join
            // (EXISTS-to-JOIN); ringlite keeps the subquery, but offers its
            // table no LIMIT, as the joined table is not.
            for t in &terms {
                if let Expr::Exists(sub) = t {
                    if sub.limit.is_none() && sub.body.compounds.as_ref().is_none_or(|c| c.is_empty()) {
                        self.select.exists_as_join.push(&sub.body.select as *const OneSelect<'_> as usize);
                    }
                }
            }
            if !is_agg {
                // An enclosing query's aggregate is still an aggregate in
                // the WHERE of a query computing none (SQLite refuses it
                // when resolving names).
                if let Some(name) = self.enclosing_aggregate_in(&terms) {
                    return Err(Error::sql(format!("misuse of aggregate function {name}()")));
                }
            }
            if let Some(terms) = unused_order {
                self.resolve_unused_order(terms, &ctx.order_map)?;
            }
            let mut having_terms: Vec<&Expr<'_>> = Vec::new();
            if let Some(h) = having {
                conjuncts(h, &mut having_terms);
            }
            let saved_agg = std::mem::replace(&mut self.frame.in_aggregate_query, is_agg);
            let has_windows = items_windows || (order_windows && order_by.is_some());
            if !row_values.is_empty() && (has_windows || is_agg) {
                return Err(Error::unsupported("row-value subqueries in this UPDATE ... FROM"));
            }
            if has_windows {
                let grouping = is_agg.then_some((group_by.as_deref(), &having_terms[..]));
                self.compile_window(&items_from, &terms, &items, order_by, window_clause.as_deref(), &mut ctx, grouping)?;
            } else if is_agg {
                if let Some(g) = group_by.as_deref() {
                    self.move_having_to_where(g, &mut having_terms, &mut terms);
                }
                // (An arm's groups are offered as GROUP BY, not as the
                // compound's ORDER BY: see `compile_aggregate`.)
                self.select.arm_order_offered_only = order_offered_only;
                self.compile_aggregate(&items_from, &terms, &items, None, group_by.as_deref(), &having_terms, order_by, &mut ctx)?;
            } else {
                let mut req = crate::sql::plan::goal::LoopRequest::default();
                if ctx.sorter.is_some() {
                    if let Some(ob) = order_by {
                        req.goal = self.order_by_goal(ob, &ctx.order_map, &items);
                        // (What a virtual table is told: DISTINCT too.)
                        if let Some(g) = req.goal.as_mut().filter(|_| is_distinct) {
                            g.vtab_distinct = 3;
                        }
                    }
                } else if is_distinct {
                    req.goal = self.distinct_goal(&items_from, &items);
                }
                // (A DISTINCT of the columns of one table without ORDER BY
                // asks for their order, as SQLite's does: rows then come
                // with equal ones adjacent, and no temporary index is kept.)
                let distinct_ordered_goal = req.goal.is_none() && distinct_open.is_some() && ctx.sorter.is_none();
                if distinct_ordered_goal {
                    req.goal = self.ordered_distinct_goal(&items_from, &items);
                }
                let sort_goal = if ctx.sorter.is_some() && distinct_open.is_some() { req.goal.clone() } else { None };
                // The WHERE loop of an UPDATE or DELETE (`onepass_rowids`)
                // is planned as SQLite plans it, for the whole row: no
                // index covers it. What it reads is still worked out, so
                // that an index search holding it all defers the row's
                // lookup to the statement's seek (`dml_where_uses`).
                let dml_where = self.names.select_depth == self.names.dml_where_level && self.frame.internal_rowid_read;
                // (Not for a virtual table: what it is told it reads,
                // `colUsed`, stays SQLite's for a DML loop.)
                let dml_plain = matches!(&items_from[..], [only] if only.vtab.is_none() && only.table.is_some());
                if row_values.is_empty() && (!dml_where || dml_plain) {
                    let mut exprs: Vec<&Expr<'_>> = terms.clone();
                    // (A term naming a result column reads what it reads.)
                    exprs.extend(
                        order_by.unwrap_or(&[]).iter().enumerate().filter(|(i, _)| ctx.order_map.get(*i).copied().flatten().is_none()).map(|(_, t)| &t.expr),
                    );
                    let uses = self.select_uses(&items_from, exists_written.as_deref().unwrap_or(&items), &exprs);
                    if dml_where {
                        self.loops.dml_where_uses = uses;
                    } else {
                        req.uses = uses;
                        self.count_probed_columns(&items_from, &order_probed);
                    }
                }
                // (A subquery compiled inside the loops makes its own
                // offer: this one is restored around it.)
                let offer = if !is_distinct && row_values.is_empty() {
                    let order = order_by.map(|ob| (ob, &ctx.order_map[..]));
                    self.vtab_limit_offer(limit, ctx.limit, &items_from, &items, order, &terms, one_row && !as_join, compound_limit.map(|c| c.1))
                } else {
                    None
                };
                let outer_offer = std::mem::replace(&mut self.vtab.limit_offer, offer);
                let outer_omitted = std::mem::take(&mut self.vtab.offset_omitted);
                let opened = self.open_loops_with(&items_from, &terms, &req);
                self.loops.dml_where_uses = None;
                self.vtab.limit_offer = outer_offer;
                let offset_omitted = std::mem::replace(&mut self.vtab.offset_omitted, outer_omitted);
                let (loops, served) = opened?;
                if served || order_offered_only {
                    self.drop_sorter(&mut ctx);
                }
                if let (true, Some(at), Some(Distinct::Table(_))) = (served, distinct_open, &ctx.distinct) {
                    // (An ORDER BY the loops give, whose first terms are the
                    // DISTINCT columns, orders them too.)
                    let by_order = match &sort_goal {
                        Some(g) => self.ordered_distinct_goal(&items_from, &items).is_some_and(|d| super::ordered_distinct::leads(g, &d)),
                        None => false,
                    };
                    if distinct_ordered_goal && req.goal.is_some() || by_order {
                        self.order_distinct(&mut ctx, at, &items)?;
                    }
                }
                // A module that skips the OFFSET rows itself: none are
                // skipped here.
                if offset_omitted {
                    if let Some(l) = &mut ctx.limit {
                        l.offset = None;
                    }
                }
                let width = items.len() + row_values.iter().map(|r| r.1).sum::<usize>();
                let regs = self.b.regs(width);
                if let Some(ob) = order_by.filter(|_| self.wants_top_n(&ctx, &items, width - items.len())) {
                    self.open_top_n(&mut ctx, items.len());
                    self.emit_top_n_row(&ctx, ob, &items, regs)?;
                } else {
                    self.compute_items(&items, regs)?;
                    let mut at = regs + items.len() as i32;
                    for (text, w) in &row_values {
                        self.row_value_text(text, *w, at)?;
                        at += *w as i32;
                    }
                    self.emit_row(&ctx, order_by, regs, width)?;
                }
                self.close_loops(loops);
            }
            self.frame.in_aggregate_query = saved_agg;
            if ctx.sorter.is_some() {
                if ctx.top_n {
                    self.emit_top_n_output(&ctx, items.len());
                } else {
                    self.emit_sorter_output(&ctx, items.len());
                }
                self.stmt.eqp.push(format_args!("USE TEMP B-TREE FOR ORDER BY"));
            }
            self.b.bind(end);
            // A scalar subquery has its first column's affinity, declared
            // type and origin, known once it is compiled.
            for (i, it) in items.iter().enumerate() {
                if let ResultItem::Expr(Expr::Subquery(sel), _) = it {
                    if let Some((decl, origin)) = self.naming.subquery_column.get(&(*sel as *const ast::Select<'_> as usize)).cloned() {
                        info.decltypes[i] = info.decltypes[i].take().or(decl);
                        info.origins[i] = info.origins[i].take().or(origin);
                    }
                }
                if let (ResultItem::Expr(e, _), None) = (it, info.affinities[i]) {
                    info.affinities[i] = self.result_affinity(e);
                    if info.affinities[i].is_some() {
                        info.data_types[i] = self.value_kinds(e);
                    }
                }
            }
            info.first_affinity = info.affinities.first().copied().flatten();
            Ok(info)
        })();
        self.frame.in_exists = saved_exists;
        self.select.exists_as_join.truncate(exists_as_join_len);
        self.stmt.auth_answers.truncate(auth_depth);
        self.names.aliases.pop();
        let scope = self.names.scopes.pop().unwrap_or_default();
        let mut info = result?;
        info.correlated = scope.correlated;
        Ok(info)
    }

    /// Whether an aggregate call reads only columns of enclosing queries
    /// (it then belongs to one of them).
    pub fn is_outer_aggregate(&mut self, call: &Expr<'_>) -> bool {
        let Some(args) = aggregate_inputs(call) else { return false };
        let mut names: Vec<(Option<String>, String)> = Vec::new();
        let mut has_subquery = false;
        for a in args {
            crate::sql::model::expr_shape::walk(a, &mut |x| {
                names.extend(crate::sql::plan::terms::column_name(x));
                has_subquery |= matches!(x, Expr::Subquery(_) | Expr::Exists(_) | Expr::InSelect { .. });
                true
            });
        }
        // (A subquery among the arguments may read this query's columns:
        // the call stays here, as `outer_aggregate.rs` decides too.)
        if has_subquery {
            return false;
        }
        let mut any_outer = false;
        for (q, n) in names {
            match self.resolve_name(q.as_deref(), &n) {
                Ok(Some(r)) if r.depth == 0 => return false,
                Ok(Some(_)) => any_outer = true,
                _ => {}
            }
        }
        any_outer
    }

    /// The name of the first aggregate call among `terms` that an
    /// enclosing query computes (read here from its accumulator).
    fn enclosing_aggregate_in(&self, terms: &[&Expr<'_>]) -> Option<String> {
        if self.frame.agg_regs.is_empty() {
            return None;
        }
        let mut found = None;
        for t in terms {
            crate::sql::model::expr_shape::walk(t, &mut |x| {
                if found.is_some() {
                    return false;
                }
                if let Expr::FunctionCall { name, .. } | Expr::FunctionCallStar { name, .. } = x {
                    if self.aggregate_register(x).is_some() {
                        found = Some(crate::sql::parse::unquoted(name.0).to_string());
                        return false;
                    }
                }
                true
            });
        }
        found
    }

    fn has_inner_aggregate(&mut self, items: &[ResultItem<'_, '_>]) -> bool {
        let mut calls: Vec<String> = Vec::new();
        let mut found_inner = false;
        for it in items {
            if let ResultItem::Expr(e, _) = it {
                let mut agg_nodes: Vec<&Expr<'_>> = Vec::new();
                {
                    let me: &Compiler<'_> = self;
                    crate::sql::model::expr_shape::walk(e, &mut |x| {
                        if crate::sql::codegen::is_aggregate_call(me, x) {
                            agg_nodes.push(x);
                            return false;
                        }
                        true
                    });
                }
                for a in agg_nodes {
                    calls.push(a.to_string());
                    if !self.is_outer_aggregate(a) {
                        found_inner = true;
                    }
                }
                // (An aggregate of this query written in a subquery of
                // its result counts too.)
                found_inner = found_inner || !self.outer_aggregates_in(e).is_empty();
            }
        }
        found_inner
    }

    /// Whether `name` is a result alias of this SELECT or of one it is
    /// nested in (a subquery in WHERE or ORDER BY may name those).
    pub fn alias_visible(&self, name: &str) -> bool {
        self.names.aliases.iter().any(|a| a.list.iter().any(|(x, _)| x.eq_ci(name)))
    }

    /// Compute result items into consecutive registers.
    pub fn compute_items(&mut self, items: &[ResultItem<'_, '_>], regs: i32) -> Result<()> {
        self.compute_items_where(items, regs, &vec![true; items.len()])
    }

    /// [`Self::compute_items`], only the items marked in `which`.
    pub fn compute_items_where(&mut self, items: &[ResultItem<'_, '_>], regs: i32, which: &[bool]) -> Result<()> {
        // A result column cannot name another's alias (nor can its subqueries).
        let own_aliases = self.names.aliases.last_mut().map(|a| std::mem::take(&mut a.list));
        let r = (|| {
            for (i, it) in items.iter().enumerate().filter(|(i, _)| which[*i]) {
                match it {
                    ResultItem::Expr(e, _) => self.expr(e, regs + i as i32)?,
                    ResultItem::Col(r, _, true) => self.emit_unqualified_column(r, regs + i as i32)?,
                    ResultItem::Col(r, _, false) => self.emit_column(r, regs + i as i32)?,
                }
            }
            Ok(())
        })();
        if let (Some(a), Some(saved)) = (self.names.aliases.last_mut(), own_aliases) {
            a.list = saved;
        }
        r
    }

    pub(super) fn items_have_aggregates(&mut self, items: &[ResultItem<'_, '_>]) -> bool {
        // (The PARTITION BY and ORDER BY of a window written in place are
        // part of the result column: an aggregate there counts too.)
        fn has_aggregate(c: &Compiler<'_>, e: &Expr<'_>) -> bool {
            let mut found = false;
            crate::sql::model::expr_shape::walk(e, &mut |x| {
                if found {
                    return false;
                }
                if crate::sql::codegen::is_aggregate_call(c, x) {
                    found = true;
                    return false;
                }
                if let Expr::FunctionCall { filter_over: Some(f), .. } | Expr::FunctionCallStar { filter_over: Some(f), .. } = x {
                    if let Some(ast::Over::Window(w)) = f.over_clause {
                        let keys = w.partition_by.unwrap_or(&[]).iter().chain(w.order_by.unwrap_or(&[]).iter().map(|t| &t.expr));
                        found = keys.into_iter().any(|k| has_aggregate(c, k));
                    }
                }
                !found
            });
            found
        }
        let mut found = false;
        for it in items {
            if let ResultItem::Expr(e, _) = it {
                found = found || has_aggregate(self, e);
            }
        }
        if found && self.frame.in_exists && self.names.scopes.len() > 1 {
            // An EXISTS subquery's result columns are never evaluated: an
            // enclosing query's aggregate there does not make this query
            // an aggregate one (its HAVING is then refused, as SQLite does).
            return self.has_inner_aggregate(items);
        }
        if found {
            return true;
        }
        // An aggregate of this query written in a subquery.
        let exprs: Vec<&Expr<'_>> = items.iter().filter_map(|it| if let ResultItem::Expr(e, _) = it { Some(*e) } else { None }).collect();
        exprs.into_iter().any(|e| !self.outer_aggregates_in(e).is_empty())
    }
}

/// The name result item `item` (number `i`, named `described` as a result
/// column) gives the column of a FROM subquery or CTE: SQLite names those
/// before resolving names, so a column reference is named by its column
/// part as written, dequoted (`T.Col` gives `Col`, whatever the declared
/// name's case; `"x"` gives `x` even when it turns out to be a string),
/// an alias or a `*` column by its name, and any other expression by its
/// source text (which `described` is then). COLLATE and parentheses
/// around a reference do not count; TRUE and FALSE, even as aliases, give
/// `columnN`.
fn written_column_name(item: &ResultItem<'_, '_>, described: &str, i: usize) -> String {
    let name = match item {
        ResultItem::Col(_, name, _) => name.clone(),
        ResultItem::Expr(_, Some(alias)) => alias.clone(),
        ResultItem::Expr(e, None) => {
            let mut x = *e;
            loop {
                match x {
                    Expr::Collate(inner, _) => x = inner,
                    Expr::Parenthesized(v) if v.len() == 1 => x = &v[0],
                    _ => break,
                }
            }
            match x {
                Expr::Id(id) => unquote(id.0),
                Expr::Name(n) | Expr::Qualified(_, n) | Expr::DoublyQualified(_, _, n) => unquote(n.0),
                _ => described.to_string(),
            }
        }
    };
    if name.eq_ci("true") || name.eq_ci("false") {
        format!("column{}", i + 1)
    } else {
        name
    }
}

/// The name of a result column that is expression `e`, in a subquery
/// (SQLite names it by its source text, which a nested SELECT no longer
/// has): the expression's text, with function calls written `f(x)` as
/// they usually are rather than as the parser renders them (`f (x)`).
fn column_text(e: &Expr<'_>) -> String {
    let mut text = crate::sql::params::expr_text(e);
    let mut names: Vec<String> = Vec::new();
    crate::sql::model::expr_shape::walk(e, &mut |x| {
        if let Expr::FunctionCall { name, .. } | Expr::FunctionCallStar { name, .. } = x {
            names.push(name.0.to_string());
        }
        true
    });
    for n in names {
        let spaced = format!("{n} (");
        let mut out = String::with_capacity(text.len());
        let mut rest = text.as_str();
        while let Some(at) = rest.find(&spaced) {
            // (Not inside a string literal: an even number of quotes before.)
            let before = &rest[..at];
            let quoted = (out.matches('\'').count() + before.matches('\'').count()) % 2 == 1;
            let boundary = before.chars().last().is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
            out.push_str(before);
            out.push_str(&n);
            out.push_str(if quoted || !boundary { " (" } else { "(" });
            rest = &rest[at + spaced.len()..];
        }
        out.push_str(rest);
        text = out;
    }
    text
}
