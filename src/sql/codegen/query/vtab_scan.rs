//! The loop over a virtual table: the planner's question to the module
//! (`best_index`, built by `sql::plan::vtab`; in a join ordered by cost,
//! the plan asked while ordering it), then `VFilter` with the
//! arguments it asked for and `VNext` at the loop's end.
//!
//! Invariant: a constraint's value passed to xFilter is computed before
//! `VFilter`, from tables of outer loops only (a constraint is usable
//! exactly when that holds); a term the module omits (every constraint it
//! stands for omitted, among the first 16 constraints and arguments) is not tested
//! again, every other term is (the plan cannot change the answer). A
//! LIMIT the module takes still applies on top; an OFFSET it takes and
//! omits is the module's to apply (`vtab_offset_omitted`).

use crate::sql::codegen::loop_kind::LoopKind;

use crate::error::Result;
use crate::sql::codegen::Compiler;
use crate::sql::model::expr_shape::has_subquery;
use crate::sql::model::from::FromItem;
use crate::sql::plan::multi_or::{disjuncts, OrPlan};
use crate::sql::plan::order::OrderGoal;
use crate::sql::plan::vtab::{choose_plan, constraints_of, limit_constraints, InValues, VtabPlans};
use crate::sql::plan::vtab_or::union_is_cheaper;
use crate::vdbe::program::{cmp_flags, Opcode, P4};
use crate::vdbe::vtab::index_info::{SCAN_HEX, SCAN_UNIQUE};
use crate::vdbe::vtab::ConstraintOp;
use sqlite3_parser::ast::Expr;

impl<'b> Compiler<'_> {
    /// Open the loop over the virtual-table item `it`; returns the loop
    /// and whether it yields the order `goal` asks.
    pub(in crate::sql::codegen) fn open_vtab_loop<'a>(
        &mut self,
        it: &FromItem<'a, 'b>,
        before: u64,
        terms: &[&'a Expr<'b>],
        next: i32,
        end: i32,
        goal: Option<&OrderGoal>,
        uses: Option<&crate::sql::plan::goal::ColumnUses>,
    ) -> Result<(LoopKind, bool)> {
        let v = it.vtab.as_ref().expect("a virtual-table item");
        let item_name = self.names.scopes.last().unwrap().items[it.item].name.clone();
        let mut cands = constraints_of(self, it, before, terms)?;
        // LIMIT/OFFSET, when every WHERE term became a constraint.
        let mut offer = self.vtab.limit_offer.take_if(|o| o.cursor == it.cursor);
        if let Some(o) = &offer {
            let offered = |addr: &usize| cands.iter().any(|c| c.term == Some(*addr));
            if o.where_terms.iter().all(offered) {
                cands.extend(limit_constraints(o));
            } else {
                offer = None;
            }
        }
        let ordered_query = goal.is_some();
        let goal = crate::sql::plan::vtab::goal_for(it, goal);
        let col_used = self.vtab.col_used.get(&it.cursor).copied().unwrap_or_else(|| crate::sql::plan::vtab::col_used(it, uses));
        // In a join SQLite ordered, the plan asked then for the items
        // placed outside (no further call).
        let joined = self.vtab.plans.iter().position(|p| p.cursor == it.cursor);
        let planned = joined.and_then(|k| self.vtab.plans[k].best(before)).cloned();
        let info = match (joined, planned) {
            // A branch of a union in such a join: SQLite's sub-WHERE asks
            // the calls of a table in a join, then about its own OR terms,
            // the items placed outside read as constants there, and takes
            // a plan (or union) needing no other item.
            (Some(_), _) if self.loops.in_or_branch => {
                let outside_known = |c: &mut crate::sql::plan::vtab::VConstraint<'_, '_>| {
                    if c.deps != u64::MAX {
                        c.deps &= !before;
                    }
                };
                let mut own = cands.clone();
                own.iter_mut().for_each(outside_known);
                let asked = self.vtab_asked(&v.inst);
                let mut plans = VtabPlans::ask(it.cursor, asked, &own, goal, col_used)?;
                let mut ors = crate::sql::plan::vtab_or::or_terms_of(self, it, before, terms)?;
                ors.iter_mut().flat_map(|o| o.branches.iter_mut().flatten().flatten()).for_each(outside_known);
                plans.unions = crate::sql::plan::vtab_or::ask_or_branches_joined(asked, &ors, &own, goal, col_used, it.cursor)?;
                match plans.best(0) {
                    Some(info) => {
                        if let Some(u) = plans.union_for(0, info, goal.is_some() && info.order_by_consumed, ordered_query) {
                            if let Some(kind) = self.vtab_joined_union(it, before, terms, u, end, uses)? {
                                return Ok((kind, false));
                            }
                        }
                        info.clone()
                    }
                    None => choose_plan(asked, &cands, goal, col_used)?,
                }
            }
            (Some(k), Some(info)) => {
                // The union SQLite's path solver prefers to this plan.
                let main_ordered = goal.is_some() && info.order_by_consumed;
                if let Some(u) = self.vtab.plans[k].union_for(before, &info, main_ordered, ordered_query).copied() {
                    if let Some(kind) = self.vtab_joined_union(it, before, terms, &u, end, uses)? {
                        return Ok((kind, false));
                    }
                }
                info
            }
            _ => {
                let info = choose_plan(self.vtab_asked(&v.inst), &cands, goal, col_used)?;
                // The OR terms' branches are asked about too; an OR whose
                // branches all have plans may be read as their union.
                let ors = crate::sql::plan::vtab_or::or_terms_of(self, it, before, terms)?;
                let unions = crate::sql::plan::vtab_or::ask_or_branches(self.vtab_asked(&v.inst), &ors, &cands, goal, col_used)?;
                if let Some(plan) = self.vtab_union_plan(it, before, terms, &info, ordered_query, goal.is_some(), &ors, &unions) {
                    let kind = self.multi_or_loop(it, before, plan, end, uses)?;
                    return Ok((kind, false));
                }
                info
            }
        };
        // The arguments, in argvIndex order.
        let n_args = info.usage.iter().map(|u| u.argv_index).max().unwrap_or(0).max(0) as usize;
        let base = self.b.regs(2 + n_args);
        // An IN list the plan uses: the scan runs for each of its values
        // (duplicates and NULLs dropped), outside VFilter.
        let mut in_loop: Option<(i32, usize, i32)> = None;
        let mut row_term = None;
        for ((c, u), handled) in cands.iter().zip(&info.usage).zip(&info.in_handled) {
            let (Some(values), true) = (&c.in_list, u.argv_index > 0) else { continue };
            // The comparison's affinity, the column's (as SQLite stores
            // the list in its ephemeral index).
            let aff = usize::try_from(c.column).ok().and_then(|k| v.decl.table.columns.get(k)).map(|col| col.affinity);
            let target = base + 1 + u.argv_index;
            let list: Vec<&Expr<'_>> = match values {
                InValues::List(list) => list.iter().collect(),
                InValues::Or(list) => list.clone(),
                InValues::Select(_) | InValues::Row { .. } => Vec::new(),
            };
            // (A further slice of a row-value IN is read with the first.)
            if matches!(values, InValues::Row { .. }) && row_term.is_some() && row_term == c.term {
                continue;
            }
            let vcur = match values {
                InValues::List(_) | InValues::Or(_) if *handled => {
                    // Taken all at once (sqlite3_vtab_in): one argument
                    // carrying the whole list.
                    let first = self.b.regs(list.len());
                    for (k, e) in list.iter().enumerate() {
                        self.expr(e, first + k as i32)?;
                    }
                    if let Some(a) = aff {
                        let letters: String = std::iter::repeat_n(a.letter(), list.len()).collect();
                        self.b.add4(Opcode::Affinity, first, list.len() as i32, 0, P4::affinity(letters), 0);
                    }
                    self.b.add(Opcode::VInitIn, first, target, list.len() as i32);
                    continue;
                }
                InValues::List(_) | InValues::Or(_) => self.in_values(list.iter().copied(), crate::value::affinity::Affinity::Blob)?,
                InValues::Row { sel, width, .. } => {
                    // The slices the plan uses, in argument order: the loop
                    // reads the subquery's rows cut down to them, each
                    // distinct (SQLite's IN reduced to the fields a loop
                    // uses), and skips a row with a NULL among them.
                    row_term = c.term;
                    let mut used: Vec<(i32, usize)> = cands
                        .iter()
                        .zip(&info.usage)
                        .filter(|(k, ku)| k.term == c.term && ku.argv_index > 0)
                        .filter_map(|(k, ku)| match &k.in_list {
                            Some(InValues::Row { field, .. }) => Some((ku.argv_index, *field)),
                            _ => None,
                        })
                        .collect();
                    used.sort_unstable();
                    let full = self.in_select_rows(sel, *width)?;
                    let proj = self.b.cursor();
                    let fields = used
                        .iter()
                        .map(|_| crate::value::record::KeyField { collation: crate::value::collation::Collation::binary(), descending: false })
                        .collect();
                    self.b.add4(
                        Opcode::OpenEphemeral,
                        proj,
                        used.len() as i32,
                        0,
                        P4::KeyInfo(std::sync::Arc::new(crate::value::record::KeyInfo { fields })),
                        0,
                    );
                    let filled = self.b.label();
                    self.b.add(Opcode::Rewind, full, filled, 0);
                    let ftop = self.b.here();
                    let regs = self.b.regs(used.len());
                    for (k, (_, f)) in used.iter().enumerate() {
                        self.b.add(Opcode::Column, full, *f as i32, regs + k as i32);
                    }
                    let rec = self.b.reg();
                    self.b.add(Opcode::MakeRecord, regs, used.len() as i32, rec);
                    self.b.add(Opcode::IdxInsert, proj, rec, 0);
                    self.b.add(Opcode::Next, full, ftop as i32, 0);
                    self.b.bind(filled);
                    self.b.add(Opcode::Rewind, proj, end, 0);
                    let vtop = self.b.here();
                    let vnext = self.b.label();
                    for (k, (argv, _)) in used.iter().enumerate() {
                        let t = base + 1 + argv;
                        self.b.add(Opcode::Column, proj, k as i32, t);
                        self.b.add(Opcode::IsNull, t, vnext, 0);
                    }
                    debug_assert!(in_loop.is_none(), "a plan loops over one IN list at most");
                    in_loop = Some((proj, vtop, vnext));
                    continue;
                }
                InValues::Select(sel) => {
                    let vcur = self.in_select_values(sel, aff, &c.collation)?;
                    if *handled {
                        self.b.add4(Opcode::VInitIn, vcur, target, 0, P4::None, 1);
                        continue;
                    }
                    vcur
                }
            };
            // Looped over: the scan runs for each value (duplicates and
            // NULLs dropped), outside VFilter.
            self.b.add(Opcode::Rewind, vcur, end, 0);
            let vtop = self.b.here();
            let vnext = self.b.label();
            self.b.add(Opcode::Column, vcur, 0, target);
            if matches!(values, InValues::Select(_)) {
                self.b.add(Opcode::IsNull, target, vnext, 0);
            }
            debug_assert!(in_loop.is_none(), "a plan loops over one IN list at most");
            in_loop = Some((vcur, vtop, vnext));
        }
        let empty = in_loop.map_or(end, |(_, _, vnext)| vnext);
        self.b.add(Opcode::Integer, info.idx_num, base, 0);
        self.b.add(Opcode::Integer, n_args as i32, base + 1, 0);
        for (c, u) in cands.iter().zip(&info.usage) {
            if u.argv_index > 0 && c.in_list.is_none() {
                let target = base + 1 + u.argv_index;
                match (c.rhs, c.limit) {
                    (_, Some(l)) => match l.literal {
                        Some(v) => self.b.add(Opcode::Integer, v as i32, target, 0),
                        None => self.b.add(Opcode::SCopy, l.reg, target, 0),
                    },
                    (Some(e), None) => {
                        self.expr(e, target)?;
                        continue;
                    }
                    (None, None) => match (&c.text, &c.rhs_col) {
                        (Some(t), _) => self.b.add4(Opcode::String8, 0, target, 0, P4::bytes(t.clone()), 0),
                        (None, Some(col)) => {
                            self.emit_column(col, target)?;
                            continue;
                        }
                        (None, None) => self.b.add(Opcode::Null, 0, target, 0),
                    },
                };
            }
        }
        // An OFFSET the module skips: a sorter after the loop keeps LIMIT +
        // OFFSET rows and skips none (SQLite's OffsetLimit register).
        let offset_omitted = cands.iter().zip(&info.usage).any(|(c, u)| c.limit.is_some() && c.op == ConstraintOp::OFFSET && u.omit && u.argv_index > 0);
        if let Some(o) = offer.as_ref().filter(|o| offset_omitted && o.sorted && !(goal.is_some() && info.order_by_consumed)) {
            if let Some(off) = o.offset {
                self.b.add(Opcode::OffsetLimit, o.limit.reg, o.limit.reg, off.reg);
            }
        }
        let idx_str = info.idx_str.clone().map_or(P4::None, P4::text);
        self.b.add4(Opcode::VFilter, it.cursor, empty, base, idx_str, 0);
        if info.idx_flags & SCAN_UNIQUE != 0 && in_loop.is_none() {
            self.vtab.unique_scans.push(v.inst.clone());
        }
        let top = self.b.here();
        let shown_num = if info.idx_flags & SCAN_HEX != 0 { format!("0x{:x}", info.idx_num) } else { info.idx_num.to_string() };
        let cost = crate::sql::plan::order::log_est_f64(info.estimated_cost);
        self.stmt.eqp.push_with_cost(format_args!("SCAN {item_name} VIRTUAL TABLE INDEX {shown_num}:{}", info.idx_str.as_deref().unwrap_or("")), cost);
        // Arguments of `t(a, b)` the module did not take over are tested
        // as the `hidden = arg` terms they stand for.
        // (SQLite honours omit only for the first 16 constraints passed
        // among the first 16 arguments, and for an OFFSET wherever it is;
        // never for a row-value inequality.)
        let omit_flags: Vec<bool> = cands
            .iter()
            .zip(&info.usage)
            .enumerate()
            .map(|(i, (c, u))| {
                u.omit && !c.no_omit && u.argv_index > 0 && ((i < 16 && u.argv_index <= 16) || c.op == ConstraintOp::OFFSET && c.limit.is_some())
            })
            .collect();
        for (i, c) in cands.iter().enumerate() {
            if c.limit.is_some() {
                if c.op == ConstraintOp::OFFSET && omit_flags[i] {
                    self.vtab.offset_omitted = true;
                }
                continue;
            }
            let omitted = omit_flags[i];
            match c.term {
                // A term standing for several constraints (BETWEEN) is
                // left out only when each of them is.
                Some(addr) if omitted => {
                    let all = cands.iter().zip(&omit_flags).filter(|(k, _)| k.term == Some(addr)).all(|(_, o)| *o);
                    // (A row-value IN is left out only when each of its
                    // fields is a constraint.)
                    let all = all && (c.slices == 0 || cands.iter().filter(|k| k.term == Some(addr)).count() == c.slices);
                    if all && !self.vtab.consumed.contains(&addr) {
                        self.vtab.consumed.push(addr);
                    }
                }
                Some(_) => {}
                None if omitted => {
                    if let Some(o) = &c.rhs_col {
                        let key = (it.cursor, c.column, o.cursor, o.column.map_or(-1, |k| k as i32));
                        if !self.vtab.consumed_using.contains(&key) {
                            self.vtab.consumed_using.push(key);
                        }
                    }
                }
                None => {
                    let Some(e) = c.rhs else { continue };
                    debug_assert_eq!(c.op, ConstraintOp::EQ);
                    let col = self.b.reg();
                    self.b.add(Opcode::VColumn, it.cursor, c.column, col);
                    let arg = self.expr_new(e)?;
                    self.b.add4(Opcode::Ne, arg, next, col, P4::None, cmp_flags::JUMPIFNULL);
                }
            }
        }
        // (Rows of several IN values come value by value: an ORDER BY the
        // module consumed holds within each only.)
        match in_loop {
            Some((vcur, vtop, vnext)) => Ok((LoopKind::VirtualIn(it.cursor, top, vcur, vtop, vnext), false)),
            None => Ok((LoopKind::Virtual(it.cursor, top), goal.is_some() && info.order_by_consumed)),
        }
    }

    /// The OR term of `ors` to read as a union of the module's plans for
    /// its branches (SQLite's MULTI-INDEX OR on a virtual table), when
    /// the cheapest such union beats the table's own plan `main` (see
    /// [`union_is_cheaper`]; a branch may be such a union in turn, as in
    /// SQLite); `None` where [`Self::vtab_union_allowed`] says no.
    fn vtab_union_plan<'a>(
        &mut self,
        it: &FromItem<'a, 'b>,
        before: u64,
        terms: &[&'a Expr<'b>],
        main: &crate::vdbe::vtab::IndexInfo,
        ordered_query: bool,
        main_ordered: bool,
        ors: &[crate::sql::plan::vtab_or::OrTerm<'a, 'b>],
        unions: &[Option<crate::sql::plan::vtab_or::UnionCost>],
    ) -> Option<OrPlan<'a, 'b>> {
        if !self.vtab_union_allowed(it) {
            return None;
        }
        let main_ordered = main_ordered && main.order_by_consumed;
        let (k, cost) = unions
            .iter()
            .enumerate()
            .filter_map(|(k, u)| u.map(|u| (k, u)))
            .filter(|(_, u)| union_is_cheaper(main, main_ordered, *u, ordered_query))
            .min_by_key(|(_, u)| (u.run, u.rows))?;
        Some(self.vtab_or_plan(it, before, terms, ors[k].term, cost.rows, false))
    }

    /// The loop reading the union `u` of a virtual table in a join SQLite
    /// orders (`None` where [`Self::vtab_union_allowed`] says no).
    fn vtab_joined_union<'a>(
        &mut self,
        it: &FromItem<'a, 'b>,
        before: u64,
        terms: &[&'a Expr<'b>],
        u: &crate::sql::plan::vtab_or::VtabUnion,
        end: i32,
        uses: Option<&crate::sql::plan::goal::ColumnUses>,
    ) -> Result<Option<LoopKind>> {
        let Some(term) = terms.iter().copied().find(|t| *t as *const Expr<'_> as usize == u.term) else { return Ok(None) };
        if !self.vtab_union_allowed(it) {
            return Ok(None);
        }
        let plan = self.vtab_or_plan(it, before, terms, term, u.cost.rows, true);
        self.multi_or_loop(it, before, plan, end, uses).map(Some)
    }

    /// Whether `it` may be read as a union: not the right table of a
    /// RIGHT or FULL JOIN, nor a table without rowids (the union tells
    /// rows apart by rowid).
    fn vtab_union_allowed(&self, it: &FromItem<'_, 'b>) -> bool {
        it.matched.is_none() && it.vtab.as_ref().is_some_and(|v| v.decl.table.without_rowid.is_none())
    }

    /// The union over the branches of the OR term `term` (estimated to
    /// find `rows`, a LogEst), with SQLite's `pAndExpr`: the other terms
    /// of the loop that a loop may use, none with a subquery, ANDed to
    /// each branch. Alone (`joined` false) those ready at this loop; in a
    /// join SQLite orders, every one (a term reading a table placed
    /// inside is offered to the branch's plans as it is to the table's:
    /// usable in the first call, a plan that takes it not chosen).
    fn vtab_or_plan<'a>(&mut self, it: &FromItem<'a, 'b>, before: u64, terms: &[&'a Expr<'b>], term: &'a Expr<'b>, rows: i32, joined: bool) -> OrPlan<'a, 'b> {
        let mut branches = Vec::new();
        disjuncts(term, &mut branches);
        let me = 1u64 << it.item.min(63);
        let others: Vec<&'a Expr<'b>> = terms
            .iter()
            .filter(|o| !std::ptr::eq(**o, term) && !has_subquery(o))
            .copied()
            .collect::<Vec<_>>()
            .into_iter()
            .filter(|o| (joined || self.expr_deps(o) & !(before | me) == 0) && crate::sql::plan::vtab_or::union_and_term(self, o))
            .collect();
        OrPlan { term, branches, others, rows: rows as f64 }
    }
}
