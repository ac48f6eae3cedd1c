//! Per-loop access paths: for one FROM item, given the tables placed
//! before it, the WHERE terms and the order the query wants, the cheapest
//! way to read its rows (rowid lookup, IN over rowids, index search or
//! scan, IN over an index's first column, rowid range, multi-index OR,
//! covering or partial index scan, automatic index, full scan), each
//! forwards or backwards, and whether that read yields the wanted order.
//! The index loops themselves are emitted in `index_scan.rs`; the loops
//! around them (join order, LEFT JOIN null rows) are `from.rs`'s.

use crate::error::Result;
use crate::sql::codegen::loop_kind::LoopKind;
use crate::sql::codegen::query::index_scan::IndexLoop;
use crate::sql::codegen::query::nested_loops::term_address;
use crate::sql::codegen::Compiler;
use crate::sql::model::from::FromItem;
use crate::sql::plan::order::{index_collation, index_is_narrower, index_serves, index_width, rowid_serves, OrderGoal, Served};
use crate::sql::plan::prelude::*;
use crate::sql::plan::terms::LookupOp;
use crate::sql::schema::{Index, Table};
use crate::util::ascii::AsciiLower;
use crate::value::affinity::Affinity;
use crate::value::record::{KeyField, KeyInfo};
use crate::vdbe::program::{Opcode, P4};
use sqlite3_parser::ast::{Expr, Operator};
use std::sync::Arc;

impl<'b> Compiler<'_> {
    /// The loop over item `it` (tables in `before` already placed): the
    /// access path, and whether it yields the rows in the order `req`
    /// asks for.
    pub(in crate::sql::codegen) fn open_access<'a>(
        &mut self,
        it: &FromItem<'a, 'b>,
        before: u64,
        terms: &[&'a Expr<'b>],
        next: i32,
        end: i32,
        may_prefilter: bool,
        goal: Option<&crate::sql::plan::order::OrderGoal>,
        uses: Option<&crate::sql::plan::goal::ColumnUses>,
    ) -> Result<(LoopKind, bool)> {
        self.loops.loop_one_row = false;
        // (Taken: a subquery this loop compiles has its own.)
        let dml_where_uses = self.loops.dml_where_uses.take();
        if it.vtab.is_some() {
            return self.open_vtab_loop(it, before, terms, next, end, goal, uses);
        }
        let item_name = it.plan_name.clone().unwrap_or_else(|| self.names.scopes.last().unwrap().items[it.item].name.clone());
        let Some(table) = it.table.clone() else {
            if let Some((args, recursive)) = it.table_fn {
                self.fill_table_function(it, args, recursive, before)?;
            }
            self.b.add(Opcode::Rewind, it.cursor, end, 0);
            let top = self.b.here();
            self.stmt.eqp.push(format_args!("SCAN {item_name}"));
            return Ok((LoopKind::Scan(it.cursor, top), false));
        };
        let goal = goal.filter(|g| g.item == it.item);
        let min_max = goal.is_some_and(|g| g.min_max);
        // A WITHOUT ROWID table is its PRIMARY KEY's b-tree: read in key
        // order it serves an order as an index would (see `pk_loop`).
        let pk = crate::sql::schema::Schema::without_rowid_pk_index(&table);
        let pk_usable = Self::pk_lookup_width(&table);
        let mut cands = self.lookup_candidates(it, before, terms);
        cands.extend(self.equivalent_lookups(it, before, terms).into_iter().map(|(c, op, e, _, _)| (c, op, e)));
        // A WITHOUT ROWID table: its key when an equality fixes its first
        // column (SQLite prefers another index there only when it covers
        // the query, which the loops here do not do yet); otherwise a
        // secondary index, as for a rowid table, or a range of the key
        // where a rowid table would take a rowid range.
        if let Some(pk) = &pk {
            let (eqs, lower, upper) = self.index_bounds(&table, pk, pk_usable, &cands);
            // `IN` on the next key column: the search is repeated for
            // each of its values (as SQLite's IN operator on an index).
            if eqs.len() < pk_usable && lower.is_none() && upper.is_none() {
                let col = self.index_lookup_key(&table, &pk.columns[eqs.len()]);
                let ins = self.in_candidates(it, before, terms);
                if let Some((_, list)) = ins.iter().find(|(c, _)| c.is_some() && *c == col).filter(|_| !eqs.is_empty() || pk.columns.len() > 1) {
                    let k = eqs.len();
                    let tail = Index { columns: pk.columns[k + 1..].to_vec(), ..pk.clone() };
                    let after = self.index_bounds(&table, &tail, pk_usable - k - 1, &cands);
                    // The order of the key with the columns after the IN
                    // that equalities pin left out (constant throughout),
                    // read forwards: the IN values come in key order.
                    let served = goal.is_some_and(|g| {
                        let pinned = &pk.columns[k + 1..k + 1 + after.0.len()];
                        let is_pinned =
                            |c: Option<usize>, coll: &str| pinned.iter().any(|ic| ic.column.is_some() && ic.column == c && index_collation(&table, ic) == coll);
                        let g = OrderGoal { terms: g.terms.iter().filter(|t| !is_pinned(t.column, &t.collation)).cloned().collect(), ..g.clone() };
                        let mut rest = pk.clone();
                        rest.columns.retain(|ic| !pinned.iter().any(|p| p.column == ic.column && p.collation == ic.collation));
                        index_serves(&g, &table, &rest, k) == Served::Forward
                    });
                    let kind = self.pk_in_loop(it, &table, pk, eqs, list, after, end, &item_name)?;
                    return Ok((kind, served));
                }
            }
            if !eqs.is_empty() {
                let served = goal.map_or(Served::No, |g| index_serves(g, &table, pk, eqs.len()));
                self.loops.loop_one_row = eqs.len() >= pk.columns.len();
                let kind = self.pk_loop(it, &table, pk, (eqs, lower, upper), served == Served::Backward, min_max, (next, end), &item_name)?;
                return Ok((kind, served.yes()));
            }
        }
        // Rowid equality: one row, in any order.
        if let Some((_, _, e)) = cands.iter().find(|(c, op, _)| c.is_none() && *op == LookupOp::Eq) {
            let r = self.expr_new(e)?;
            self.b.add(Opcode::SeekRowid, it.cursor, end, r);
            self.stmt.eqp.push(format_args!("SEARCH {item_name} USING INTEGER PRIMARY KEY (rowid=?)"));
            // The seek finds a row exactly when `rowid = e` holds: it
            // converts `e` as the comparison's numeric affinity would.
            self.frame.seek_consumed.extend(
                terms
                    .iter()
                    .find(|t| matches!(t, Expr::Binary(l, Operator::Equals, r) if std::ptr::eq(&**l, *e) || std::ptr::eq(&**r, *e)))
                    .map(|t| term_address(t)),
            );
            let _ = next;
            self.loops.loop_one_row = true;
            return Ok((LoopKind::Once, goal.is_some()));
        }
        // The equality a USING/NATURAL column implies, on this table's
        // rowid: as `rowid = left.col` (SQLite makes it a WHERE term like
        // any ON term). The seek converts the value with the numeric
        // affinity the comparison would apply; the term itself is still
        // tested with the join's other terms.
        if let Some(l) = self.using_rowid_value(it, before) {
            let r = self.b.reg();
            self.emit_join_columns(std::slice::from_ref(&l), r)?;
            self.b.add(Opcode::SeekRowid, it.cursor, end, r);
            self.stmt.eqp.push(format_args!("SEARCH {item_name} USING INTEGER PRIMARY KEY (rowid=?)"));
            self.loops.loop_one_row = true;
            return Ok((LoopKind::Once, goal.is_some()));
        }
        let ins = self.in_candidates(it, before, terms);
        if let Some((_, list)) = ins.iter().find(|(c, _)| c.is_none()) {
            // The values are read in ascending order (or descending for
            // ORDER BY rowid DESC).
            let order = goal.map_or(Served::No, rowid_serves);
            let backward = order == Served::Backward;
            let vcur = self.in_values(list.iter().copied(), Affinity::Integer)?;
            self.b.add(if backward { Opcode::Last } else { Opcode::Rewind }, vcur, end, 0);
            let vtop = self.b.here();
            let r = self.b.reg();
            self.b.add(Opcode::Column, vcur, 0, r);
            self.b.add(Opcode::SeekRowid, it.cursor, next, r);
            self.stmt.eqp.push(format_args!("SEARCH {item_name} USING INTEGER PRIMARY KEY (rowid=?)"));
            let kind = if backward { LoopKind::ScanBack(vcur, vtop) } else { LoopKind::InRowid(vcur, vtop) };
            return Ok((kind, order.yes()));
        }
        // Best index: most leading equalities, then a range.
        let indexes: Vec<Index> = self.loop_indexes(it, &table, terms)?.iter().map(|i| table.index_with_key_suffix(i)).collect();
        let mut best: Option<(usize, Index, Vec<&'a Expr<'b>>, Option<(LookupOp, &'a Expr<'b>)>, Option<(LookupOp, &'a Expr<'b>)>)> = None;
        for idx in indexes.iter().cloned() {
            let (eqs, lower, upper) = self.index_bounds(&table, &idx, idx.columns.len(), &cands);
            let score = eqs.len() * 4 + lower.is_some() as usize + upper.is_some() as usize;
            // Between equally usable indexes: the one giving the wanted
            // order, then a covering one, then the narrower.
            let rank = |i: &Index, n_eq: usize| {
                let serves = goal.is_some_and(|g| index_serves(g, &table, i, n_eq).yes());
                let covering = uses.is_some_and(|u| Self::index_covers(&table, i, it.item, u));
                (serves, covering, -index_width(&table, i))
            };
            // A UNIQUE index pinned whole finds one row: it beats more
            // equalities on another (as SQLite's costs weigh it).
            let one_row = |i: &Index, n_eq: usize| i.unique && n_eq >= i.columns.len();
            let key = (one_row(&idx, eqs.len()), score);
            // Between equality searches of two indexes both described by
            // `sqlite_stat1`, the one finding fewer rows (SQLite's costs
            // follow the statistics).
            let stat_rows = |i: &Index, n_eq: usize, bounds: usize| {
                let s = i.stat.as_ref()?;
                let rows = *s.rows.get(n_eq)?;
                Some(rows - 20 * bounds as i32 - if bounds == 2 { 20 } else { 0 })
            };
            let bounds = lower.is_some() as usize + upper.is_some() as usize;
            let by_stats = |b: &(usize, Index, Vec<&Expr<'_>>, Option<(LookupOp, &Expr<'_>)>, Option<(LookupOp, &Expr<'_>)>)| {
                if eqs.is_empty() || b.2.is_empty() || one_row(&idx, eqs.len()) || one_row(&b.1, b.2.len()) {
                    return None;
                }
                let b_bounds = b.3.is_some() as usize + b.4.is_some() as usize;
                Some((stat_rows(&idx, eqs.len(), bounds)?, stat_rows(&b.1, b.2.len(), b_bounds)?))
            };
            if score > 0
                && best.as_ref().is_none_or(|b| match by_stats(b) {
                    Some((mine, theirs)) if mine != theirs => mine < theirs,
                    _ => {
                        let best_key = (one_row(&b.1, b.2.len()), b.0);
                        key > best_key || key == best_key && rank(&idx, eqs.len()) > rank(&b.1, b.2.len())
                    }
                })
            {
                best = Some((score, idx, eqs, lower, upper));
            }
        }
        let covers = |idx: &Index| uses.is_some_and(|u| Self::index_covers(&table, idx, it.item, u));
        let dml_covers = |idx: &Index| dml_where_uses.as_ref().is_some_and(|u| Self::index_covers(&table, idx, it.item, u));
        let or_branch = self.loops.in_or_branch;
        let search = |best: (usize, Index, Vec<&'a Expr<'b>>, Option<(LookupOp, &'a Expr<'b>)>, Option<(LookupOp, &'a Expr<'b>)>), backward: bool| {
            let (_, idx, eqs, lower, upper) = best;
            let covering_shown = covers(&idx);
            let covering = (covering_shown || dml_covers(&idx)) && !or_branch;
            IndexLoop {
                table_cursor: it.cursor,
                item_name: item_name.clone(),
                idx,
                eqs,
                lower,
                upper,
                backward,
                covering,
                covering_shown,
                min_max,
                primary_key: false,
            }
        };
        // An OR term read as a union of lookups, when its branches find
        // fewer rows than the best single path (against a scan giving the
        // wanted order, a quarter of them: the union's rows are sorted).
        if may_prefilter {
            if let Some(plan) = self.multi_or_plan(it, &table, before, terms, &indexes) {
                if plan.rows * if goal.is_some() { 4.0 } else { 1.0 }
                    < self.single_path_rows(&table, &indexes, best.as_ref().map(|b| (b.0, &b.1, b.2.len())), &cands, &ins, goal)
                {
                    let kind = self.multi_or_loop(it, before, plan, end, uses)?;
                    // (Its branches' lookups set the flag for themselves.)
                    self.loops.loop_one_row = false;
                    return Ok((kind, false));
                }
            }
        }
        // `key IN (...)` on a one-column key of a WITHOUT ROWID table: the
        // table itself is searched for each value (a row each, no second
        // lookup), ahead of a secondary index unless one finds a single
        // row; the rows come in key order.
        let key_in = ins.iter().find_map(|(c, list)| Some((c.filter(|&c| Self::is_first_key_column(&table, c))?, list)));
        if let Some((col, list)) = key_in.filter(|_| table.key_width() == 1 && !best.as_ref().is_some_and(|b| b.1.unique && b.2.len() >= b.1.columns.len())) {
            let served = goal.is_some_and(|g| {
                let key_desc = table.key_columns().first().is_some_and(|k| k.1);
                let [t] = g.terms.as_slice() else { return false };
                let coll = table.columns[col].collation.as_deref().unwrap_or("BINARY");
                t.column == Some(col) && !key_desc && (g.grouping || !t.desc) && t.collation.eq_ci(coll)
            });
            let kind = self.key_in_loop(it, &table, col, list, end, &item_name)?;
            return Ok((kind, served));
        }
        // Equalities on an index prefix win over any order.
        if let Some(b) = best.take_if(|b| b.0 >= 4) {
            // (A UNIQUE key pinned whole finds at most one row: any order.)
            let one_row = b.1.unique && b.2.len() >= b.1.columns.len();
            self.loops.loop_one_row = one_row;
            let served = goal.map_or(Served::No, |g| if one_row { Served::Forward } else { index_serves(g, &table, &b.1, b.2.len()) });
            let l = search(b, served == Served::Backward);
            self.note_index_consumed(it, &l, terms);
            let kind = self.emit_index_loop(&table, l, next, end)?;
            return Ok((kind, served.yes()));
        }
        // `column IN (...)` on an index's first column, when no index has
        // an equality prefix.
        // (The list compares under the column's own collation: an index
        // sorting the column by another has another lookup key.)
        let first_keys: Vec<Option<usize>> = indexes.iter().map(|idx| idx.columns.first().and_then(|ic| self.index_lookup_key(&table, ic))).collect();
        let in_pick: Option<(Index, usize, &[&'a Expr<'b>])> = indexes.iter().zip(&first_keys).find_map(|(idx, key)| {
            let first_col = idx.columns.first()?.column?;
            let (_, list) = ins.iter().find(|(c, _)| c.is_some() && c == key)?;
            Some((idx.clone(), first_col, &list[..]))
        });
        if let Some(g) = goal {
            // The IN values are read in ascending (or descending) order:
            // the order of the column, then of the rest of the index within
            // each value, read the same way.
            if let Some((idx, first_col, list)) = in_pick.clone() {
                let ic = &idx.columns[0];
                let lead = g.terms.iter().take_while(|t| t.column == Some(first_col)).count();
                let lead_terms = &g.terms[..lead];
                let backward = !g.grouping && lead_terms.iter().all(|t| t.desc);
                let lead_ok = lead > 0
                    && !ic.descending
                    && index_collation(&table, ic) == "BINARY"
                    && lead_terms.iter().all(|t| (t.desc == backward || g.grouping) && t.collation == "BINARY");
                let rest = OrderGoal { terms: g.terms[lead..].to_vec(), ..g.clone() };
                let rest_served = index_serves(&rest, &table, &idx, 1);
                let rest_ok = if backward { rest_served == Served::Backward || rest.terms.is_empty() } else { rest_served == Served::Forward };
                if lead_ok && rest_ok {
                    let kind = self.in_index_loop(it, &table, &idx, first_col, list, (next, end), &item_name, covers(&idx), backward)?;
                    return Ok((kind, true));
                }
            }
            // Otherwise the IN lookups and a sort: a few rows per value
            // beat any range or scan in the order (as SQLite weighs them).
            if let Some((idx, first_col, list)) = in_pick.clone() {
                let kind = self.in_index_loop(it, &table, &idx, first_col, list, (next, end), &item_name, covers(&idx), false)?;
                return Ok((kind, false));
            }
            // A range on the index giving the order.
            if let Some(b) = best.take_if(|b| index_serves(g, &table, &b.1, b.2.len()).yes()) {
                let served = index_serves(g, &table, &b.1, b.2.len());
                let l = search(b, served == Served::Backward);
                self.note_index_consumed(it, &l, terms);
                let kind = self.emit_index_loop(&table, l, next, end)?;
                return Ok((kind, true));
            }
            // A WITHOUT ROWID table's key giving the order: a range of it,
            // else all of it (as a rowid table's rowid below).
            if let Some(pk) = pk.as_ref().filter(|pk| index_serves(g, &table, pk, 0).yes()) {
                let served = index_serves(g, &table, pk, 0);
                let bounds = self.index_bounds(&table, pk, pk_usable, &cands);
                let kind = self.pk_loop(it, &table, pk, bounds, served == Served::Backward, min_max, (next, end), &item_name)?;
                return Ok((kind, true));
            }
            let lower = cands.iter().find(|(c, op, _)| c.is_none() && matches!(op, LookupOp::Gt | LookupOp::Ge));
            let upper = cands.iter().find(|(c, op, _)| c.is_none() && matches!(op, LookupOp::Lt | LookupOp::Le));
            let served = if pk.is_some() { Served::No } else { rowid_serves(g) };
            if served.yes() && (lower.is_some() || upper.is_some()) {
                let kind = self.rowid_range(
                    it.cursor,
                    lower.map(|(_, op, e)| (*op, *e)),
                    upper.map(|(_, op, e)| (*op, *e)),
                    served == Served::Backward,
                    end,
                    &item_name,
                )?;
                return Ok((kind, true));
            }
            // A covering index narrower than the table rows that gives the
            // order too is the cheaper scan (as a GROUP BY of the rowid and
            // that index's columns, as Django writes it, or DISTINCT):
            // SQLite's costs weigh the rows' widths.
            if served.yes() && !min_max {
                let pick = indexes
                    .iter()
                    .rev()
                    .filter(|i| covers(i) && i.where_sql.is_none() && index_is_narrower(&table, i) && index_serves(g, &table, i, 0).yes())
                    .min_by_key(|i| index_width(&table, i))
                    .cloned();
                if let Some(idx) = pick {
                    let backward = index_serves(g, &table, &idx, 0) == Served::Backward;
                    let l = search((0, idx, Vec::new(), None, None), backward);
                    let kind = self.emit_index_loop(&table, l, next, end)?;
                    return Ok((kind, true));
                }
            }
            // Otherwise a full scan in the order beats a range read out of
            // order (SQLite's choice without statistics).
            if served.yes() {
                let verb = if min_max { "SEARCH" } else { "SCAN" };
                self.stmt.eqp.push(format_args!("{verb} {item_name}"));
                return Ok((self.table_scan(it.cursor, served == Served::Backward, end), true));
            }
            let ordered: Vec<(Index, Served)> = indexes.iter().map(|i| (i.clone(), index_serves(g, &table, i, 0))).filter(|(_, s)| s.yes()).collect();
            // A covering index first, then the narrowest; among equals the
            // most recently created (SQLite weighs it first).
            let pick = ordered.iter().rev().min_by_key(|(i, _)| (!covers(i), index_width(&table, i))).cloned();
            if let Some((idx, served)) = pick {
                let l = search((0, idx, Vec::new(), None, None), served == Served::Backward);
                let kind = self.emit_index_loop(&table, l, next, end)?;
                return Ok((kind, true));
            }
        }
        {
            if let Some((idx, first_col, list)) = in_pick.clone() {
                let kind = self.in_index_loop(it, &table, &idx, first_col, list, (next, end), &item_name, covers(&idx), false)?;
                return Ok((kind, false));
            }
            // A range of a WITHOUT ROWID table's key, where a rowid table
            // would take a rowid range.
            if let Some(pk) = &pk {
                let bounds = self.index_bounds(&table, pk, pk_usable, &cands);
                if bounds.1.is_some() || bounds.2.is_some() {
                    let kind = self.pk_loop(it, &table, pk, bounds, false, false, (next, end), &item_name)?;
                    return Ok((kind, false));
                }
            }
            // A range on the rowid beats an index range (no second lookup);
            // in an OR branch, not one bounded on fewer sides (as SQLite
            // weighs a branch's ranges).
            let lower = cands.iter().find(|(c, op, _)| c.is_none() && matches!(op, LookupOp::Gt | LookupOp::Ge));
            let upper = cands.iter().find(|(c, op, _)| c.is_none() && matches!(op, LookupOp::Lt | LookupOp::Le));
            let rowid_bounds = lower.is_some() as usize + upper.is_some() as usize;
            let index_wins = self.loops.in_or_branch && best.as_ref().is_some_and(|b| b.0 > rowid_bounds);
            if rowid_bounds > 0 && !index_wins {
                let kind = self.rowid_range(it.cursor, lower.map(|(_, op, e)| (*op, *e)), upper.map(|(_, op, e)| (*op, *e)), false, end, &item_name)?;
                return Ok((kind, false));
            }
        }
        if let Some(b) = best {
            let l = search(b, false);
            self.note_index_consumed(it, &l, terms);
            let kind = self.emit_index_loop(&table, l, next, end)?;
            return Ok((kind, false));
        }
        // A full scan: of an index rather than the table where SQLite's
        // costs prefer one: a covering partial index (fewest rows), a
        // covering index narrower than the table rows, a partial index the
        // terms imply (fewer rows, each looked up in the table); the
        // narrowest of a kind.
        // (INDEXED BY reads its index even without a usable term.)
        let forced = matches!(it.index_hint, Some(Some(_)));
        let scan_rank = |i: &Index| match (forced, covers(i), i.where_sql.is_some()) {
            (true, _, _) | (false, true, true) => Some(0),
            (false, true, false) if index_is_narrower(&table, i) => Some(1),
            (false, false, true) => Some(2),
            _ => None,
        };
        let narrow =
            indexes.iter().rev().filter_map(|i| scan_rank(i).map(|r| (r, i))).min_by_key(|(r, i)| (*r, index_width(&table, i))).map(|(_, i)| i.clone());
        if let Some(idx) = narrow {
            let l = search((0, idx, Vec::new(), None, None), false);
            let kind = self.emit_index_loop(&table, l, next, end)?;
            return Ok((kind, false));
        }
        if !it.left && may_prefilter {
            if let Some(kind) = self.automatic_index_loop(it, &table, &cands, terms, uses, before, next, end, &item_name)? {
                return Ok((kind, false));
            }
            if before != 0 {
                self.prefilter_inner_table(it, &table, terms)?;
            }
        }
        self.stmt.eqp.push(format_args!("SCAN {item_name}"));
        let halt = self.loops.empty_scan_halt.take().unwrap_or(end);
        Ok((self.table_scan(it.cursor, false, halt), false))
    }

    /// Note the terms an index search `l` over item `it` decides exactly
    /// (see `FrameState::seek_consumed`): each `column = value` whose value
    /// is a key of the search prefix, and the bounds of a range on the
    /// next column when a lower bound keeps its NULL entries out (an
    /// ascending column; a BETWEEN when both its ends are the bounds).
    /// The search converts each value as the comparison would (the
    /// planner takes only terms whose affinity and collation the index
    /// honours), and a NULL value ends the loop (`emit_index_loop`).
    fn note_index_consumed<'a>(&mut self, it: &FromItem<'a, 'b>, l: &IndexLoop<'a, 'b>, terms: &[&'a Expr<'b>]) {
        if l.primary_key || self.loops.in_or_branch {
            return;
        }
        let mut found = Vec::new();
        for (e, ic) in l.eqs.iter().zip(&l.idx.columns) {
            let Some(c) = ic.column else { continue };
            if let Some(t) = terms.iter().find(|t| match t {
                Expr::Binary(a, Operator::Equals, b) => {
                    (std::ptr::eq(&**b, *e) && self.is_item_column(it, a, c)) || (std::ptr::eq(&**a, *e) && self.is_item_column(it, b, c))
                }
                _ => false,
            }) {
                found.push(term_address(t));
            }
        }
        let range_col = l.idx.columns.get(l.eqs.len()).filter(|ic| !ic.descending).and_then(|ic| ic.column);
        if let (Some(c), Some((_, lo))) = (range_col, l.lower) {
            let hi = l.upper.map(|(_, e)| e);
            for t in terms {
                let exact = match t {
                    Expr::Binary(a, op, b) if LookupOp::from_op(*op).is_some_and(|o| o != LookupOp::Eq) => {
                        let value = |v: &Expr<'_>| std::ptr::eq(v, lo) || hi.is_some_and(|h| std::ptr::eq(v, h));
                        (value(b) && self.is_item_column(it, a, c)) || (value(a) && self.is_item_column(it, b, c))
                    }
                    Expr::Between { lhs, not: false, start, end } => {
                        std::ptr::eq(&**start, lo) && hi.is_some_and(|h| std::ptr::eq(&**end, h)) && self.is_item_column(it, lhs, c)
                    }
                    _ => false,
                };
                if exact {
                    found.push(term_address(t));
                }
            }
        }
        self.frame.seek_consumed.extend(found);
    }

    /// Whether `e` names column `c` of item `it` (a COLLATE on it aside).
    fn is_item_column(&mut self, it: &FromItem<'_, 'b>, e: &Expr<'_>, c: usize) -> bool {
        let mut e = e;
        while let Expr::Collate(inner, _) = e {
            e = inner;
        }
        let cref = match e {
            Expr::Id(id) => self.resolve_name(None, &crate::sql::parse::unquoted(id.0)).ok().flatten(),
            Expr::Qualified(q, n) => self.resolve_name(Some(&crate::sql::parse::unquoted(q.0)), &crate::sql::parse::unquoted(n.0)).ok().flatten(),
            _ => None,
        };
        cref.is_some_and(|r| r.depth == 0 && r.item == it.item && r.column == Some(c))
    }

    /// The lookup `idx` allows with the terms `cands`: values for `=` on
    /// a leading run of its first `usable` key columns, then at most a
    /// lower and an upper bound (in index order: bounds on a DESC column
    /// swap) on the next one, or on the rowid when every key column is
    /// pinned.
    pub(in crate::sql::codegen) fn index_bounds<'a>(
        &mut self,
        table: &Table,
        idx: &Index,
        usable: usize,
        cands: &[(Option<usize>, LookupOp, &'a Expr<'b>)],
    ) -> (Vec<&'a Expr<'b>>, Option<(LookupOp, &'a Expr<'b>)>, Option<(LookupOp, &'a Expr<'b>)>) {
        let keys: Vec<Option<usize>> = idx.columns.iter().take(usable).map(|ic| self.index_lookup_key(table, ic)).collect();
        let mut eqs = Vec::new();
        for key in &keys {
            match cands.iter().find(|(c, op, _)| key.is_some() && c == key && *op == LookupOp::Eq) {
                Some((_, _, e)) => eqs.push(*e),
                None => break,
            }
        }
        let mut lower = None;
        let mut upper = None;
        // (`sqlite_stat1` may call the index's order unusable: no range.)
        if idx.stat.as_ref().is_some_and(|s| s.unordered) {
            return (eqs, None, None);
        }
        if let Some(ic) = idx.columns.get(eqs.len()).filter(|_| eqs.len() < usable) {
            let key = keys[eqs.len()];
            for (c, op, e) in cands {
                if key.is_none() || *c != key {
                    continue;
                }
                let op = if ic.descending { op.swapped() } else { *op };
                match op {
                    LookupOp::Gt | LookupOp::Ge if lower.is_none() => lower = Some((op, *e)),
                    LookupOp::Lt | LookupOp::Le if upper.is_none() => upper = Some((op, *e)),
                    _ => {}
                }
            }
        } else if !eqs.is_empty() && eqs.len() == idx.columns.len() {
            // Every key column pinned: the entries are in rowid order,
            // so a rowid range bounds them too.
            for (c, op, e) in cands {
                match op {
                    LookupOp::Gt | LookupOp::Ge if c.is_none() && lower.is_none() => lower = Some((*op, *e)),
                    LookupOp::Lt | LookupOp::Le if c.is_none() && upper.is_none() => upper = Some((*op, *e)),
                    _ => {}
                }
            }
        }
        (eqs, lower, upper)
    }

    /// A loop over a WITHOUT ROWID table in its key order (forwards or
    /// `backward`), searched with `bounds` (see `index_bounds`): the
    /// table's own cursor walks its PRIMARY KEY `pk`.
    fn pk_loop<'a>(
        &mut self,
        it: &FromItem<'a, 'b>,
        table: &Table,
        pk: &Index,
        (eqs, lower, upper): (Vec<&'a Expr<'b>>, Option<(LookupOp, &'a Expr<'b>)>, Option<(LookupOp, &'a Expr<'b>)>),
        backward: bool,
        min_max: bool,
        (next, end): (i32, i32),
        item_name: &str,
    ) -> Result<LoopKind> {
        let l = IndexLoop {
            table_cursor: it.cursor,
            item_name: item_name.to_string(),
            idx: pk.clone(),
            eqs,
            lower,
            upper,
            backward,
            covering: false,
            covering_shown: false,
            min_max,
            primary_key: true,
        };
        self.emit_index_loop(table, l, next, end)
    }

    /// A search of a WITHOUT ROWID table's key repeated for each value
    /// of an IN list on key column `eqs.len()`: `eqs` pin the columns
    /// before it, `after` (see `index_bounds`) the columns after it. The
    /// values are read in ascending order, each once.
    fn pk_in_loop<'a>(
        &mut self,
        it: &FromItem<'a, 'b>,
        table: &Table,
        pk: &Index,
        eqs: Vec<&'a Expr<'b>>,
        list: &[&'a Expr<'b>],
        (after, lower, upper): (Vec<&'a Expr<'b>>, Option<(LookupOp, &'a Expr<'b>)>, Option<(LookupOp, &'a Expr<'b>)>),
        end: i32,
        item_name: &str,
    ) -> Result<LoopKind> {
        let k = eqs.len();
        let n = k + 1 + after.len();
        let affs: String = pk.columns.iter().take(n + 1).map(|c| self.index_column_affinity(table, c).letter()).collect();
        let keys = self.b.regs(n + 1);
        let endkeys = self.b.regs(n + 1);
        for (i, e) in eqs.iter().enumerate() {
            self.expr(e, keys + i as i32)?;
        }
        for (i, e) in after.iter().enumerate() {
            self.expr(e, keys + (k + 1 + i) as i32)?;
        }
        if let Some((_, e)) = lower {
            self.expr(e, keys + n as i32)?;
            self.b.add(Opcode::IsNull, keys + n as i32, end, 0);
        }
        if let Some((_, e)) = upper {
            self.expr(e, endkeys + n as i32)?;
            self.b.add(Opcode::IsNull, endkeys + n as i32, end, 0);
        }
        let col = pk.columns[k].column.unwrap_or(0);
        let vcur = self.in_values_ordered(list.iter().copied(), table.columns[col].affinity, pk.columns[k].descending)?;
        let vnext = self.b.label();
        self.b.add(Opcode::Rewind, vcur, end, 0);
        let vtop = self.b.here();
        self.b.add(Opcode::Column, vcur, 0, keys + k as i32);
        for i in 0..n {
            self.b.add(Opcode::Copy, keys + i as i32, endkeys + i as i32, 0);
        }
        let n_lower = n + lower.is_some() as usize;
        let n_upper = n + upper.is_some() as usize;
        self.b.add4(Opcode::Affinity, keys, n_lower as i32, 0, P4::affinity(affs[..n_lower].to_string()), 0);
        self.b.add4(Opcode::Affinity, endkeys, n_upper as i32, 0, P4::affinity(affs[..n_upper].to_string()), 0);
        let seek = if lower.is_some_and(|(op, _)| op == LookupOp::Gt) { Opcode::SeekGT } else { Opcode::SeekGE };
        self.b.add4(seek, it.cursor, vnext, keys, P4::Int64(n_lower as i64), 0);
        let top = self.b.here();
        let stop = if upper.is_some_and(|(op, _)| op == LookupOp::Lt) { Opcode::IdxGE } else { Opcode::IdxGT };
        self.b.add4(stop, it.cursor, vnext, endkeys, P4::Int64(n_upper as i64), 0);
        let mut desc: Vec<String> = pk.columns.iter().take(n).map(|c| format!("{}=?", c.column.map_or("", |c| table.columns[c].name.as_str()))).collect();
        if let Some(ic) = pk.columns.get(n) {
            let name = ic.column.map_or("", |c| table.columns[c].name.as_str());
            // (Shown in the term's own direction, lower bound first.)
            let mut bounds = Vec::new();
            if lower.is_some() {
                bounds.push(format!("{name}{}?", if ic.descending { "<" } else { ">" }));
            }
            if upper.is_some() {
                bounds.push(format!("{name}{}?", if ic.descending { ">" } else { "<" }));
            }
            if ic.descending {
                bounds.reverse();
            }
            desc.extend(bounds);
        }
        self.stmt.eqp.push(format_args!("SEARCH {item_name} USING PRIMARY KEY ({})", desc.join(" AND ")));
        Ok(LoopKind::InIndex(it.cursor, top, vcur, vtop, vnext, false))
    }

    /// How many leading PRIMARY KEY columns of a WITHOUT ROWID table can
    /// take lookup values: those compared with the column's own
    /// collation (the one lookup candidates are checked for).
    /// The left column a USING/NATURAL join of `it` equates with `it`'s
    /// rowid (an INTEGER PRIMARY KEY column), when that column's table is
    /// read by an outer loop (`before`). Not for a coalesce() of several
    /// left tables (RIGHT/FULL joins), nor for the right table of a
    /// RIGHT/FULL join, whose unmatched pass reads it in full.
    /// When the planner reorders the join, also the right table's column
    /// equated with `it`'s rowid by a join of a table after it, when that
    /// table is read outside.
    fn using_rowid_value(&self, it: &FromItem<'_, 'b>, before: u64) -> Option<crate::sql::resolve::ColumnRef> {
        // (INDEXED BY leaves SQLite only the index named.)
        if it.matched.is_some() || matches!(it.index_hint, Some(Some(_))) || it.table.as_ref().is_none_or(|t| t.without_rowid.is_some()) {
            return None;
        }
        let reordered = self
            .names
            .using_reordered
            .get(&it.cursor)
            .into_iter()
            .flatten()
            .find_map(|(mine, other)| (mine.column.is_none() && other.depth == 0 && before & (1u64 << other.item.min(63)) != 0).then(|| other.clone()));
        reordered.or_else(|| {
            it.on.iter().find_map(|j| match j {
                crate::sql::model::from::JoinTerm::ColEq(l, r)
                    if r.depth == 0
                        && r.cursor == it.cursor
                        && r.column.is_none()
                        && l.len() == 1
                        && l[0].depth == 0
                        && before & (1u64 << l[0].item.min(63)) != 0 =>
                {
                    debug_assert_ne!(l[0].item, it.item);
                    Some(l[0].clone())
                }
                _ => None,
            })
        })
    }

    fn pk_lookup_width(table: &Table) -> usize {
        let mut n = 0;
        for (col, _, coll) in table.key_columns() {
            if !coll.eq_ci(table.columns[col].collation.as_deref().unwrap_or("BINARY")) {
                break;
            }
            n += 1;
        }
        n
    }

    /// A loop over the index entries equal to each value of an IN list on
    /// its first column (values read in ascending order, or descending
    /// with the entries of each value read backwards, each once); the
    /// columns read from the entries when the index `covers` the query.
    fn in_index_loop(
        &mut self,
        it: &FromItem<'_, 'b>,
        table: &Table,
        idx: &Index,
        first_col: usize,
        list: &[&Expr<'_>],
        (next, end): (i32, i32),
        item_name: &str,
        covers: bool,
        backward: bool,
    ) -> Result<LoopKind> {
        let aff = table.columns[first_col].affinity;
        let vcur = self.in_values(list.iter().copied(), aff)?;
        let icur = self.b.cursor();
        let ki = self.index_key_info(idx)?;
        self.b.add4(Opcode::OpenRead, icur, idx.root as i32, idx.db as i32, P4::KeyInfo(ki), 0);
        self.comment(&idx.name);
        let vnext = self.b.label();
        self.b.add(if backward { Opcode::Last } else { Opcode::Rewind }, vcur, end, 0);
        let vtop = self.b.here();
        let key = self.b.reg();
        self.b.add(Opcode::Column, vcur, 0, key);
        self.b.add4(if backward { Opcode::SeekLE } else { Opcode::SeekGE }, icur, vnext, key, P4::Int64(1), 0);
        let top = self.b.here();
        self.b.add4(if backward { Opcode::IdxLT } else { Opcode::IdxGT }, icur, vnext, key, P4::Int64(1), 0);
        // A covering index is read alone (in an OR branch it is only
        // shown so: the union reads the table row, see `multi_or.rs`).
        if covers && !self.loops.in_or_branch {
            self.map_columns_to_index(table, idx, it.cursor, icur);
        } else {
            self.seek_table_from_index(table, idx, icur, it.cursor, next);
        }
        let how = if covers { "COVERING INDEX" } else { "INDEX" };
        self.stmt.eqp.push(format_args!("SEARCH {item_name} USING {how} {} ({}=?)", idx.name, table.columns[first_col].name));
        Ok(LoopKind::InIndex(icur, top, vcur, vtop, vnext, backward))
    }

    /// Whether `col` leads a WITHOUT ROWID table's key, compared there
    /// with its own collation.
    fn is_first_key_column(table: &Table, col: usize) -> bool {
        table.without_rowid.is_some()
            && table.key_columns().first().is_some_and(|(c, _, coll)| *c == col && coll.eq_ci(table.columns[col].collation.as_deref().unwrap_or("BINARY")))
    }

    /// A loop over the rows of a WITHOUT ROWID table whose first key
    /// column equals each value of an IN list (values in ascending order,
    /// each once): the table's own cursor seeks each.
    fn key_in_loop(&mut self, it: &FromItem<'_, 'b>, table: &Table, col: usize, list: &[&Expr<'_>], end: i32, item_name: &str) -> Result<LoopKind> {
        let vcur = self.in_values(list.iter().copied(), table.columns[col].affinity)?;
        let vnext = self.b.label();
        self.b.add(Opcode::Rewind, vcur, end, 0);
        let vtop = self.b.here();
        let key = self.b.reg();
        self.b.add(Opcode::Column, vcur, 0, key);
        self.b.add4(Opcode::SeekGE, it.cursor, vnext, key, P4::Int64(1), 0);
        let top = self.b.here();
        self.b.add4(Opcode::IdxGT, it.cursor, vnext, key, P4::Int64(1), 0);
        self.stmt.eqp.push(format_args!("SEARCH {item_name} USING PRIMARY KEY ({}=?)", table.columns[col].name));
        Ok(LoopKind::InIndex(it.cursor, top, vcur, vtop, vnext, false))
    }

    /// A loop over every row of a table, in rowid order or backwards.
    fn table_scan(&mut self, cursor: i32, backward: bool, end: i32) -> LoopKind {
        self.b.add(if backward { Opcode::Last } else { Opcode::Rewind }, cursor, end, 0);
        LoopKind::FullScan(cursor, self.b.here(), backward)
    }

    /// A loop over the rows whose rowid lies between `lower` and `upper`
    /// (either may be absent): a seek to the first rowid of the range, and
    /// a rowid test before each row that ends the loop past the range;
    /// `backward` starts at the range's last rowid and steps down.
    /// The terms stay filters too, so a bound that is not a number (which
    /// the seek and the test treat as SQLite's comparison does) only costs
    /// a longer scan, never a wrong row.
    fn rowid_range<'a>(
        &mut self,
        cursor: i32,
        lower: Option<(LookupOp, &'a Expr<'b>)>,
        upper: Option<(LookupOp, &'a Expr<'b>)>,
        backward: bool,
        end: i32,
        item_name: &str,
    ) -> Result<LoopKind> {
        let mut desc = Vec::new();
        let lower_reg = lower.map(|_| self.b.reg());
        let upper_reg = upper.map(|_| self.b.reg());
        if let (Some((_, e)), Some(r)) = (upper, upper_reg) {
            self.expr(e, r)?;
        }
        if let (Some((_, e)), Some(r)) = (lower, lower_reg) {
            self.expr(e, r)?;
        }
        // The seek to where the walk starts: SeekGE/GT (LE/LT) on a table
        // cursor compares numerically; NULL, or a value no rowid can be
        // on the right side of, jumps to the end.
        let (start, stop) = if backward { (upper.zip(upper_reg), lower.zip(lower_reg)) } else { (lower.zip(lower_reg), upper.zip(upper_reg)) };
        match start {
            Some(((op, _), r)) => {
                let opc = match (backward, op) {
                    (false, LookupOp::Gt) => Opcode::SeekGT,
                    (false, _) => Opcode::SeekGE,
                    (true, LookupOp::Lt) => Opcode::SeekLT,
                    (true, _) => Opcode::SeekLE,
                };
                self.b.add4(opc, cursor, end, r, P4::Int64(0), 0);
            }
            None => {
                self.b.add(if backward { Opcode::Last } else { Opcode::Rewind }, cursor, end, 0);
            }
        }
        if lower.is_some() {
            desc.push("rowid>?");
        }
        if upper.is_some() {
            desc.push("rowid<?");
        }
        let top = self.b.here();
        if let Some(((op, _), r)) = stop {
            let rid = self.b.reg();
            self.b.add(Opcode::Rowid, cursor, rid, 0);
            // Past the range (or a NULL bound): stop.
            let opc = match (backward, op) {
                (false, LookupOp::Lt) => Opcode::Ge,
                (false, _) => Opcode::Gt,
                (true, LookupOp::Gt) => Opcode::Le,
                (true, _) => Opcode::Lt,
            };
            let aff = Affinity::Numeric.letter() as u16 | crate::vdbe::program::cmp_flags::JUMPIFNULL;
            self.b.add4(opc, r, end, rid, P4::None, aff);
        }
        self.stmt.eqp.push(format_args!("SEARCH {item_name} USING INTEGER PRIMARY KEY ({})", desc.join(" AND ")));
        Ok(if backward { LoopKind::ScanBack(cursor, top) } else { LoopKind::Scan(cursor, top) })
    }

    /// Put the values of an IN list (with `aff` applied, NULLs dropped,
    /// duplicates merged) in a temporary index; returns its cursor.
    pub(in crate::sql::codegen) fn in_values<'e, 'x: 'e>(&mut self, list: impl IntoIterator<Item = &'e Expr<'x>>, aff: Affinity) -> Result<i32> {
        self.in_values_ordered(list, aff, false)
    }

    /// [`Self::in_values`], kept in descending order when `descending`
    /// (to be read in a DESC key column's order).
    fn in_values_ordered<'e, 'x: 'e>(&mut self, list: impl IntoIterator<Item = &'e Expr<'x>>, aff: Affinity, descending: bool) -> Result<i32> {
        let vcur = self.b.cursor();
        let ki = Arc::new(KeyInfo { fields: vec![KeyField { collation: crate::value::collation::Collation::binary(), descending }] });
        self.b.add4(Opcode::OpenEphemeral, vcur, 1, 0, P4::KeyInfo(ki), 0);
        let r = self.b.reg();
        let rec = self.b.reg();
        for e in list {
            self.expr(e, r)?;
            let skip = self.b.label();
            self.b.add(Opcode::IsNull, r, skip, 0);
            self.b.add4(Opcode::Affinity, r, 1, 0, P4::affinity(aff.letter().to_string()), 0);
            self.b.add(Opcode::MakeRecord, r, 1, rec);
            self.b.add(Opcode::IdxInsert, vcur, rec, 0);
            self.b.bind(skip);
        }
        Ok(vcur)
    }

    /// Key description of an index (its columns, then the rowid).
    pub fn index_key_info(&self, idx: &Index) -> Result<Arc<KeyInfo>> {
        let table = self.env.schema.table(&idx.table).cloned();
        let mut fields = Vec::new();
        for c in &idx.columns {
            let coll_name = c.collation.clone().or_else(|| table.as_ref().and_then(|t| t.columns.get(c.column?).and_then(|x| x.collation.clone())));
            let collation = match coll_name {
                Some(n) => self.collation(&n)?,
                None => crate::value::collation::Collation::binary(),
            };
            fields.push(KeyField { collation, descending: c.descending });
        }
        if let Some(t) = table.as_ref().filter(|t| t.without_rowid.is_some()) {
            for (_, descending, coll) in t.index_suffix(idx) {
                fields.push(KeyField { collation: self.collation(&coll)?, descending });
            }
        }
        Ok(Arc::new(KeyInfo { fields }))
    }
}
