//! The nested loops over the FROM items (`open_loops_with`, `close_loops`):
//! each loop's access path, the WHERE terms placed at the outermost loop
//! that can test them, LEFT JOIN's null row, and RIGHT/FULL JOIN's
//! matched-key record and unmatched passes (see `from.rs` for the
//! invariants of those joins).
//!
//! Invariant: every loop opened is closed, innermost first, by
//! `close_loops` (checked: loops_closed), and a term a lookup consumed is
//! not tested again.

use crate::error::{Error, Result};
use crate::sql::codegen::loop_kind::LoopKind;
use crate::sql::codegen::Compiler;
use crate::sql::model::expr_shape::has_subquery;
use crate::sql::model::from::{FromItem, JoinTerm};
use crate::sql::plan::goal::LoopRequest;
use crate::sql::plan::prelude::*;
use crate::sql::resolve::ColumnRef;
use crate::vdbe::program::{Opcode, P4};
use sqlite3_parser::ast::{self, Expr, Operator};

/// An open loop, closed by `close_loops`.
pub struct Loop {
    table_cursor: i32,
    next: i32,
    end: i32,
    kind: LoopKind,
    left_flag: Option<(i32, i32, i32)>,
    /// The right table of a RIGHT or FULL JOIN: the subroutine holding
    /// the rest of the loop body (see `open_loops_with`).
    right_sub: Option<RightJoinSub>,
    /// The outermost loop: the unmatched passes its close calls (return
    /// register, start label), then the label constant terms skip to.
    passes: Vec<(i32, i32)>,
    after_passes: Option<i32>,
}

/// The subroutine a RIGHT/FULL JOIN's right table runs each of its rows
/// through, matched (inline) or not (from the unmatched pass).
struct RightJoinSub {
    /// Return address register.
    ret: i32,
    /// Labels: its first instruction, its `Return`.
    start: i32,
    end: i32,
}

impl<'b> Compiler<'_> {
    /// Open the nested loops over `items`, placing each WHERE term at the
    /// outermost loop where it can be evaluated.
    pub fn open_loops<'a>(&mut self, items: &[FromItem<'a, 'b>], terms: &[&'a Expr<'b>]) -> Result<Vec<Loop>> {
        Ok(self.open_loops_with(items, terms, &LoopRequest::default())?.0)
    }

    /// Jump to `next` unless a USING/NATURAL column's left side `l` (the
    /// coalesce() of several) equals its right side `r`.
    fn using_eq_test(&mut self, l: &[ColumnRef], r: &ColumnRef, next: i32) -> Result<()> {
        let lr = self.b.reg();
        let rr = self.b.reg();
        self.emit_join_columns(l, lr)?;
        self.emit_join_columns(std::slice::from_ref(r), rr)?;
        let t = self.b.reg();
        // As `l = r`: the left column's affinity and collation (BINARY
        // when it declares none) first; a coalesce() of several has
        // neither, and the right column's count then.
        let (laff, lcoll) = if l.len() == 1 { (Some(l[0].affinity), Some(l[0].collation.clone().unwrap_or_else(|| "BINARY".into()))) } else { (None, None) };
        let aff = crate::sql::codegen::expr::comparison_affinity(laff, Some(r.affinity));
        let p4 = match lcoll.as_ref().or(r.collation.as_ref()) {
            Some(name) => P4::coll(self.collation(name)?),
            None => P4::None,
        };
        self.b.add4(Opcode::Eq, rr, t, lr, p4, aff | crate::vdbe::program::cmp_flags::STOREP2);
        self.b.add(Opcode::IfNot, t, next, 1);
        Ok(())
    }

    /// [`Self::open_loops`] for a SELECT that says which order it wants
    /// and which columns it reads (`req`); also returns whether the loops
    /// produce that order.
    ///
    /// RIGHT and FULL JOIN: the loops run in FROM order, the right table
    /// of such a join read as an inner join (FULL: a LEFT JOIN) that
    /// records the key of each of its rows that matched in its `matched`
    /// index. Everything after that record (its level's WHERE terms, the
    /// loops inside it and the body) is a subroutine, called inline for
    /// the matched rows; after the loops, an unmatched pass per such
    /// join reads its right table again and calls the subroutine for the
    /// rows not recorded, with every table before it NULL-filled (so
    /// later joins run again for those rows). The passes run in FROM
    /// order: an earlier pass may record matches of a later join.
    pub fn open_loops_with<'a>(&mut self, items: &[FromItem<'a, 'b>], terms: &[&'a Expr<'b>], req: &LoopRequest) -> Result<(Vec<Loop>, bool)> {
        // (The USING equalities' operands live only while the loops open.)
        let leaves = self.stmt.using_leaves.len();
        let r = self.open_loops_in(items, terms, req);
        self.stmt.using_leaves.truncate(leaves);
        #[cfg(debug_assertions)]
        if let Ok((loops, _)) = &r {
            self.b.open_loops += loops.len();
        }
        r
    }

    fn open_loops_in<'a>(&mut self, items: &[FromItem<'a, 'b>], terms: &[&'a Expr<'b>], req: &LoopRequest) -> Result<(Vec<Loop>, bool)> {
        let n = items.len();
        if n > 64 {
            return Err(Error::sql("at most 64 tables in a join"));
        }
        // SQLite's WHERE analysis then adds its LIKE range terms, held to
        // the height limit (`like_range.rs`).
        let mut analyzed: Vec<&Expr<'_>> = terms.to_vec();
        for it in items {
            for j in &it.on {
                if let JoinTerm::Expr(e) = j {
                    crate::sql::model::expr_shape::conjuncts(e, &mut analyzed);
                }
            }
        }
        self.check_like_ranges(&analyzed);
        if n == 0 {
            // (No FROM clause: the one row the body runs for.)
            self.stmt.eqp.push(format_args!("SCAN CONSTANT ROW"));
        }
        // Inner joins may be reordered; their ON terms then behave as
        // WHERE terms, and a USING/NATURAL column's equality with the one
        // table on its left as `left.col = right.col` (SQLite adds it to
        // the ON clause).
        // Table-valued functions stay where they are written, after the
        // tables their arguments read.
        let using_eq = |it: &FromItem<'a, 'b>, j: &JoinTerm<'a, 'b>| match j {
            JoinTerm::Expr(_) => true,
            JoinTerm::ColEq(l, r) => !it.using.is_empty() && matches!(&l[..], [l0] if l0.depth == 0) && r.depth == 0,
            _ => false,
        };
        let reorder = n > 1
            && n < 64
            && items.iter().all(|it| !it.left && !it.cross && it.matched.is_none() && it.table_fn.is_none() && it.on.iter().all(|j| using_eq(it, j)));
        // The last RIGHT or FULL JOIN: the tables before it may be
        // NULL-filled by its unmatched pass, and WHERE terms are checked
        // no earlier than there (a row must not be dropped before it
        // could record a match).
        let last_right = items.iter().rposition(|it| it.matched.is_some());
        let mut all_terms: Vec<&'a Expr<'b>> = terms.to_vec();
        // The ON expression of an inner join is a WHERE term: it may read
        // tables joined after it, and is checked once they are all read.
        // (Not with RIGHT or FULL joins around, where a later WHERE
        // check would let rows through to record matches; there only an
        // ON term reading a later table is moved.)
        let plain_inner = |it: &FromItem<'a, 'b>| !it.left && it.matched.is_none();
        let mut on_moved: Vec<bool> = items.iter().map(|it| plain_inner(it) && (reorder || last_right.is_none())).collect();
        if last_right.is_some() {
            for (i, it) in items.iter().enumerate().filter(|(_, it)| plain_inner(it)) {
                let later: u64 = items[i + 1..].iter().fold(0, |m, f| m | 1u64 << f.item.min(63));
                let mut reads_later = false;
                for j in &it.on {
                    if let JoinTerm::Expr(e) = j {
                        reads_later |= self.expr_deps(e) & later != 0;
                    }
                }
                on_moved[i] = reads_later;
            }
        }
        for (it, _) in items.iter().zip(&on_moved).filter(|(_, m)| **m) {
            for j in &it.on {
                if let JoinTerm::Expr(e) = j {
                    crate::sql::model::expr_shape::conjuncts(e, &mut all_terms);
                }
            }
        }
        // NULL tests of NOT NULL columns folded, before any term is placed.
        self.fold_null_tests(items, &all_terms, last_right);
        // SQLite's constant propagation in a SELECT's WHERE (not an UPDATE's
        // or DELETE's, not through ON clauses when a RIGHT JOIN is about),
        // before the planner reads the terms.
        let propagation = if n > 0 && self.names.select_depth != self.names.dml_where_level {
            let where_terms: &[&Expr<'_>] = if last_right.is_none() { &all_terms } else { terms };
            self.propagate_constants(where_terms)
        } else {
            None
        };
        if reorder {
            for it in items {
                for j in &it.on {
                    if let JoinTerm::ColEq(l, r) = j {
                        let pairs = self.names.using_reordered.entry(l[0].cursor).or_default();
                        if !pairs.iter().any(|(a, b)| a.cursor == l[0].cursor && a.column == l[0].column && b.cursor == r.cursor && b.column == r.column) {
                            pairs.push((l[0].clone(), r.clone()));
                        }
                    }
                }
            }
        }
        // A USING/NATURAL column's equality as the term SQLite makes of it,
        // `left.col = right.col` (the left operand's affinity and
        // collation first), for lookups and the join order only: each is
        // tested by `using_eq_test`. Named as this scope names the
        // columns; one a name does not reach is left out.
        let mut using_names: Vec<(usize, usize, [(String, String); 2])> = Vec::new();
        for it in items.iter().filter(|it| it.matched.is_none() && !it.using.is_empty()) {
            for j in &it.on {
                let JoinTerm::ColEq(l, r) = j else { continue };
                let ([l0], 0) = (&l[..], r.depth) else { continue };
                if l0.depth != 0 {
                    continue;
                }
                let Some(scope) = self.names.scopes.last() else { continue };
                let name = |c: &ColumnRef| {
                    let si = scope.items.get(c.item)?;
                    let col = c.column.or(si.rowid_alias)?;
                    Some((si.name.clone(), si.columns.get(col)?.name.clone()))
                };
                if let (Some(a), Some(b)) = (name(l0), name(r)) {
                    using_names.push((l0.item, r.item, [a, b]));
                }
            }
        }
        let using_leaves: Vec<[Expr<'_>; 2]> = using_names
            .iter()
            .map(|(_, _, [(lt, lc), (rt, rc)])| {
                [Expr::Qualified(ast::Name(lt.as_str()), ast::Name(lc.as_str())), Expr::Qualified(ast::Name(rt.as_str()), ast::Name(rc.as_str()))]
            })
            .collect();
        let using_terms: Vec<Expr<'_>> = using_leaves.iter().map(|[a, b]| Expr::Binary(a, Operator::Equals, b)).collect();
        // (Read without asking the authorizer, as `using_eq_test` reads.)
        if self.stmt.authorizer.is_some() {
            self.stmt.using_leaves.extend(using_leaves.iter().flatten().map(|e| e as *const Expr<'_> as usize));
        }
        let mut using_terms_of: Vec<(u64, &Expr<'_>)> = Vec::new();
        for (k, (li, ri, _)) in using_names.iter().enumerate() {
            // (Each side must name the column it stands for.)
            let [a, b] = &using_leaves[k];
            let found = |c: Option<ColumnRef>, item: usize| c.is_some_and(|c| c.depth == 0 && c.item == item);
            if found(self.plain_column(a), *li) && found(self.plain_column(b), *ri) {
                using_terms_of.push(((1u64 << li.min(&63)) | (1u64 << ri.min(&63)), &using_terms[k]));
            }
        }
        let order: Vec<usize> = if reorder {
            let mut planned: Vec<&Expr<'_>> = all_terms.clone();
            planned.extend(using_terms_of.iter().map(|(_, t)| *t));
            self.join_order(items, &planned, all_terms.len(), req.goal.as_ref(), req.uses.as_ref())
        } else {
            (0..n).collect()
        };
        let mut pos = vec![0usize; n];
        for (lvl, &i) in order.iter().enumerate() {
            pos[i] = lvl;
        }
        // A reordered join's USING equalities are tested where both of
        // their tables have been read.
        let mut using_at: Vec<Vec<(&[ColumnRef], &ColumnRef)>> = vec![Vec::new(); n.max(1)];
        if reorder {
            let level_of = |item: usize| items.iter().position(|f| f.item == item).map(|i| pos[i]);
            for it in items {
                for j in &it.on {
                    if let JoinTerm::ColEq(l, r) = j {
                        let at = level_of(l[0].item).into_iter().chain(level_of(r.item)).max().unwrap_or(0);
                        using_at[at].push((&l[..], r));
                    }
                }
            }
        }
        let mut placed: Vec<Vec<&'a Expr<'b>>> = vec![Vec::new(); n.max(1)];
        let mut constant: Vec<&'a Expr<'b>> = Vec::new();
        for t in &all_terms {
            let deps = self.expr_deps(t);
            if n == 0 || deps == 0 && !has_subquery(t) {
                constant.push(t);
            } else if deps == u64::MAX {
                placed[n - 1].push(t);
            } else {
                let l = (0..n).filter(|i| deps & (1 << items[*i].item) != 0).map(|i| pos[i]).max().unwrap_or(0);
                placed[l.max(last_right.unwrap_or(0))].push(t);
            }
        }
        let mut loops = Vec::new();
        let outer_skip = self.b.label();
        for t in &constant {
            self.where_term_if_false(t, outer_skip)?;
        }
        if let Some(p) = &propagation {
            let where_terms: &[&Expr<'_>] = if last_right.is_none() { &all_terms } else { terms };
            self.propagated_constant_tests(where_terms, p, outer_skip)?;
        }
        if n == 0 {
            loops.push(Loop {
                table_cursor: -1,
                next: outer_skip,
                end: outer_skip,
                kind: LoopKind::Once,
                left_flag: None,
                right_sub: None,
                passes: Vec::new(),
                after_passes: None,
            });
            return Ok((loops, false));
        }
        let mut order_served = false;
        // Every loop so far finds at most one row per pass: the next may
        // still give the order (as SQLite's ORDER BY analysis sees it).
        let mut outer_one_row = true;
        let mut before: u64 = 0;
        // Per level: the cursors an unmatched pass NULL-fills (the table's
        // and its index loop's).
        let mut level_cursors: Vec<Vec<i32>> = Vec::new();
        for (lvl, &ii) in order.iter().enumerate() {
            let it = &items[ii];
            // Terms usable for lookups: WHERE terms at this level and the
            // ON terms of joins at this level.
            // (A virtual table is offered every term, usable or not, in
            // the WHERE clause's order, as SQLite offers them.)
            // Terms reading a table past the next CROSS or outer join are
            // not offered at all (SQLite's `mUnusable`).
            let mut lookup_terms: Vec<&Expr<'_>> = if it.vtab.is_some() {
                let unusable = items[ii + 1..].iter().skip_while(|f| !(f.cross || f.left || f.matched.is_some())).fold(0u64, |m, f| m | 1u64 << f.item.min(63));
                let mut ts = all_terms.clone();
                ts.retain(|t| self.expr_deps(t) & unusable == 0);
                ts
            } else {
                placed[lvl].clone()
            };
            // (Terms read later that may constrain a column equal to one
            // of this table's, for lookups through it: see
            // `plan::equivalence`.)
            // (And the USING equalities: of this table with one read
            // before, or any when the join is reordered.)
            if reorder && it.vtab.is_none() {
                let here: Vec<usize> = lookup_terms.iter().map(|t| term_address(t)).collect();
                lookup_terms.extend(all_terms.iter().filter(|t| !here.contains(&term_address(t)) && is_comparison_term(t)).copied());
                lookup_terms.extend(using_terms_of.iter().map(|(_, t)| *t));
            } else if it.vtab.is_none() {
                let me = 1u64 << it.item.min(63);
                lookup_terms.extend(using_terms_of.iter().filter(|(m, _)| m & me != 0 && m & !(before | me) == 0).map(|(_, t)| *t));
            }
            if !on_moved[ii] {
                for j in &it.on {
                    if let JoinTerm::Expr(e) = j {
                        let mut cs = Vec::new();
                        crate::sql::model::expr_shape::conjuncts(e, &mut cs);
                        lookup_terms.extend(cs);
                    }
                }
            }
            let next = self.b.label();
            let end = if lvl == 0 && last_right.is_none() { outer_skip } else { self.b.label() };
            let left_flag = if it.left {
                let f = self.b.reg();
                self.b.add(Opcode::Integer, 0, f, 0);
                Some((f, self.b.label(), self.b.label()))
            } else {
                None
            };
            // The right table of a RIGHT/FULL JOIN is read again by its
            // unmatched pass, and the tables before it are NULL-filled
            // there: they are read as they are (no filtered copy, no
            // automatic index), and the order is asked of the loops only
            // without such joins (the unmatched rows come last).
            let null_filled_later = last_right.is_some_and(|k| lvl < k);
            let plain = it.matched.is_none() && !null_filled_later;
            // (Not past the first loop for a min()/max(), whose single
            // row is the first of the outermost loop.)
            let level_goal = req.goal.as_ref().filter(|g| last_right.is_none() && (lvl == 0 || outer_one_row && !g.min_max && !order_served));
            let shown_at = self.stmt.eqp.len();
            self.frame.seek_consumed.clear();
            // An empty table scanned in full ends every loop around it up
            // to the nearest outer join (as SQLite's `addrHalt`): no row of
            // theirs can be joined with it.
            self.loops.empty_scan_halt = None;
            if last_right.is_none() && !it.left {
                let k = (0..lvl).rev().find(|&j| items[order[j + 1]].left).map_or(0, |j| j + 1);
                self.loops.empty_scan_halt = Some(if k == lvl { end } else { loops[k].end });
            }
            self.loops.outer_loops_one_row = lvl > 0 && outer_one_row;
            let opened = self.open_access(it, before, &lookup_terms, next, end, plain, level_goal, req.uses.as_ref());
            self.loops.outer_loops_one_row = false;
            self.loops.empty_scan_halt = None;
            let (kind, served) = opened?;
            // A term the seek decided is not tested again, where the loop
            // has no NULL row to produce (that row must still fail it), is
            // not read again by an unmatched pass nor NULL-filled by one.
            // (With an authorizer it is compiled all the same: SQLite asks
            // about every column a statement names.)
            let mut consumed = std::mem::take(&mut self.frame.seek_consumed);
            if left_flag.is_some() || it.matched.is_some() || null_filled_later || self.stmt.authorizer.is_some() {
                consumed.clear();
            }
            // (Terms a virtual table's module omits are not tested again
            // either, except where a NULL row or a second pass reads the
            // table.)
            // (Of a LEFT JOIN's right table, the omitted terms of its own ON
            // clause stay omitted, as SQLite disables a join's ON terms
            // there: the NULL row does not test them. A WHERE term is
            // still tested.)
            let mut vconsumed = std::mem::take(&mut self.vtab.consumed);
            let mut using_consumed = std::mem::take(&mut self.vtab.consumed_using);
            if it.matched.is_some() {
                vconsumed.clear();
                using_consumed.clear();
            } else if left_flag.is_some() {
                let mut own = Vec::new();
                if !on_moved[ii] {
                    for j in &it.on {
                        if let JoinTerm::Expr(e) = j {
                            crate::sql::model::expr_shape::conjuncts(e, &mut own);
                        }
                    }
                }
                vconsumed.retain(|a| own.iter().any(|c| term_address(c) == *a));
            }
            let is_consumed = |addr: usize| consumed.contains(&addr) || vconsumed.contains(&addr);
            // A USING/NATURAL equality the module omits, seen from either
            // side (this table is its right one, or its left one when the
            // join order put the other first).
            let using_omitted = |l: &[ColumnRef], r: &ColumnRef| {
                let col = |c: &ColumnRef| c.column.map_or(-1, |k| k as i32);
                let [l0] = l else { return false };
                using_consumed.iter().any(|&(cur, c, ocur, oc)| {
                    (r.cursor == cur && col(r) == c && l0.cursor == ocur && col(l0) == oc)
                        || (l0.cursor == cur && col(l0) == c && r.cursor == ocur && col(r) == oc)
                })
            };
            if it.left && it.matched.is_none() {
                self.stmt.eqp.mark_left_join(shown_at);
            }
            if level_goal.is_some() && (lvl == 0 || level_goal.is_some_and(|g| g.item == it.item)) {
                // (Under one-row loops a LEFT JOIN's NULL row is one row too.)
                order_served = served && plain && (lvl > 0 || !it.left) && last_right.is_none();
            }
            outer_one_row &= self.loops.loop_one_row;
            before |= 1 << it.item.min(63);
            let mut cursors = vec![it.cursor];
            if let LoopKind::Index(cur, _) | LoopKind::IndexBack(cur, _) | LoopKind::InIndex(cur, ..) = kind {
                cursors.push(cur);
            }
            level_cursors.push(cursors);
            // ON terms (for LEFT JOIN they decide the match).
            for j in &it.on {
                match j {
                    JoinTerm::Expr(_) if on_moved[ii] => {}
                    JoinTerm::Expr(e) if !consumed.is_empty() || !vconsumed.is_empty() => {
                        let mut cs = Vec::new();
                        crate::sql::model::expr_shape::conjuncts(e, &mut cs);
                        for c in cs.into_iter().filter(|c| !is_consumed(term_address(c))) {
                            self.where_term_if_false(c, next)?;
                        }
                    }
                    JoinTerm::Expr(e) => self.where_term_if_false(e, next)?,
                    JoinTerm::ColEq(..) if reorder => {}
                    JoinTerm::ColEq(l, r) if using_omitted(l, r) => {}
                    JoinTerm::ColEq(l, r) => self.using_eq_test(l, r, next)?,
                    JoinTerm::ExprEq(e, r) => {
                        let lr = self.b.reg();
                        let rr = self.b.reg();
                        self.expr(e, lr)?;
                        self.emit_column(r, rr)?;
                        let t = self.b.reg();
                        let nocase = P4::coll(self.collation("NOCASE")?);
                        self.b.add4(Opcode::Eq, rr, t, lr, nocase, crate::vdbe::program::cmp_flags::STOREP2);
                        self.b.add(Opcode::IfNot, t, next, 1);
                    }
                    JoinTerm::FailWhen(marker, errors) => {
                        let m = self.b.reg();
                        self.emit_column(marker, m)?;
                        let i = self.b.reg();
                        for (n, e) in errors.iter().enumerate() {
                            let other = self.b.label();
                            self.b.add(Opcode::Integer, n as i32 + 1, i, 0);
                            self.b.add4(Opcode::Ne, i, other, m, P4::None, crate::vdbe::program::cmp_flags::JUMPIFNULL);
                            self.b.add4(Opcode::Halt, e.code, 0, 0, P4::text(e.message.clone()), 0);
                            self.b.bind(other);
                        }
                    }
                }
            }
            for (l, r) in std::mem::take(&mut using_at[lvl]) {
                if !using_omitted(l, r) {
                    self.using_eq_test(l, r, next)?;
                }
            }
            if let Some((f, _, _)) = left_flag {
                self.b.add(Opcode::Integer, 1, f, 0);
            }
            if let Some(m) = it.matched {
                let key = self.matched_key(it);
                let rec = self.b.reg();
                self.b.add(Opcode::MakeRecord, key.0, key.1, rec);
                self.b.add(Opcode::IdxInsert, m, rec, 0);
            }
            if let Some((_, body, _)) = left_flag {
                self.b.bind(body);
            }
            // The rest of the level and everything inside it: a
            // subroutine the unmatched pass calls too.
            let right_sub = if it.matched.is_some() {
                let sub = RightJoinSub { ret: self.b.reg(), start: self.b.label(), end: self.b.label() };
                self.b.add(Opcode::Gosub, sub.ret, sub.start, 0);
                self.b.add(Opcode::Goto, 0, next, 0);
                self.b.bind(sub.start);
                Some(sub)
            } else {
                None
            };
            let fail = right_sub.as_ref().map_or(next, |s| s.end);
            for t in placed[lvl].clone() {
                if !is_consumed(term_address(t)) {
                    self.where_term_if_false(t, fail)?;
                }
            }
            loops.push(Loop { table_cursor: it.cursor, next, end, kind, left_flag, right_sub, passes: Vec::new(), after_passes: None });
        }
        if last_right.is_some() {
            // The unmatched passes, out of line (the outermost loop's
            // close calls them): they refill a table-valued function,
            // which needs the items `close_loops` does not see.
            let over = self.b.label();
            self.b.add(Opcode::Goto, 0, over, 0);
            let mut passes = Vec::new();
            for (lvl, &ii) in order.iter().enumerate() {
                let it = &items[ii];
                let (Some(m), Some(sub)) = (it.matched, loops[lvl].right_sub.as_ref().map(|s| (s.ret, s.start))) else { continue };
                let ret = self.b.reg();
                let start = self.b.label();
                self.b.bind(start);
                for c in level_cursors[..lvl].iter().flatten() {
                    self.b.add(Opcode::NullRow, *c, 0, 0);
                }
                if let Some((args, recursive)) = it.table_fn {
                    let before: u64 = order[..lvl].iter().fold(0, |b, &i| b | 1u64 << items[i].item.min(63));
                    self.fill_table_function(it, args, recursive, before)?;
                }
                let done = self.b.label();
                self.b.add(Opcode::Rewind, it.cursor, done, 0);
                let top = self.b.here();
                let skip = self.b.label();
                let key = self.matched_key(it);
                self.b.add4(Opcode::Found, m, skip, key.0, P4::Int64(key.1 as i64), 0);
                self.b.add(Opcode::Gosub, sub.0, sub.1, 0);
                self.b.bind(skip);
                self.b.add(Opcode::Next, it.cursor, top as i32, 0);
                self.b.bind(done);
                self.b.add(Opcode::Return, ret, 0, 0);
                passes.push((ret, start));
                let name = it.plan_name.clone().unwrap_or_else(|| self.names.scopes.last().unwrap().items[it.item].name.clone());
                self.stmt.eqp.push(format_args!("RIGHT-JOIN {name}"));
            }
            self.b.bind(over);
            loops[0].passes = passes;
            loops[0].after_passes = Some(outer_skip);
        }
        Ok((loops, order_served))
    }

    /// Registers holding the key `it`'s `matched` index records for the
    /// current row (first register, count): the rowid, or a WITHOUT ROWID
    /// table's PRIMARY KEY columns (they lead its records).
    pub(in crate::sql::codegen) fn matched_key(&mut self, it: &FromItem<'_, 'b>) -> (i32, i32) {
        match &it.table {
            Some(t) if t.without_rowid.is_some() => {
                let width = t.key_width();
                let key = self.b.regs(width);
                for i in 0..width {
                    self.b.add(Opcode::Column, it.cursor, i as i32, key + i as i32);
                }
                (key, width as i32)
            }
            _ => {
                let key = self.b.reg();
                self.b.add(Opcode::Rowid, it.cursor, key, 0);
                (key, 1)
            }
        }
    }

    /// Close loops opened by `open_loops`, innermost first.
    pub fn close_loops(&mut self, loops: Vec<Loop>) {
        let n = loops.len();
        #[cfg(debug_assertions)]
        {
            // invariant: loops_closed
            debug_assert!(self.b.open_loops >= n, "closing {n} loops of {} open", self.b.open_loops);
            self.b.open_loops -= n;
        }
        for (i, l) in loops.into_iter().rev().enumerate() {
            if let Some(sub) = &l.right_sub {
                self.b.bind(sub.end);
                self.b.add(Opcode::Return, sub.ret, 0, 0);
            }
            self.b.bind(l.next);
            self.advance_loop(&l.kind);
            let outermost = i + 1 == n;
            if let Some((flag, body, done)) = l.left_flag {
                if !outermost {
                    self.b.bind(l.end);
                }
                self.b.add(Opcode::If, flag, done, 0);
                if let LoopKind::Index(cur, _) | LoopKind::IndexBack(cur, _) | LoopKind::InIndex(cur, ..) = l.kind {
                    self.b.add(Opcode::NullRow, cur, 0, 0);
                }
                self.b.add(Opcode::NullRow, l.table_cursor, 0, 0);
                self.b.add(Opcode::Integer, 1, flag, 0);
                // (A MULTI-INDEX OR loop's body is its subroutine.)
                match l.kind {
                    LoopKind::Or(ret) => self.b.add(Opcode::Gosub, ret, body, 0),
                    _ => self.b.add(Opcode::Goto, 0, body, 0),
                };
                self.b.bind(done);
                if outermost {
                    self.b.bind(l.end);
                }
            } else {
                self.b.bind(l.end);
            }
            // After the outermost loop: the RIGHT/FULL JOIN unmatched
            // passes (skipped with it when a constant term is false).
            for (ret, start) in &l.passes {
                self.b.add(Opcode::Gosub, *ret, *start, 0);
            }
            if let Some(after) = l.after_passes {
                self.b.bind(after);
            }
        }
    }

    /// The instructions that move loop `kind` to its next row (and past
    /// its last to its end label, bound after them by the caller).
    pub(in crate::sql::codegen) fn advance_loop(&mut self, kind: &LoopKind) {
        match *kind {
            LoopKind::Scan(cur, top) | LoopKind::Index(cur, top) | LoopKind::InRowid(cur, top) => {
                self.b.add(Opcode::Next, cur, top as i32, 0);
            }
            LoopKind::ScanBack(cur, top) | LoopKind::IndexBack(cur, top) => {
                self.b.add(Opcode::Prev, cur, top as i32, 0);
            }
            LoopKind::FullScan(cur, top, backward) => {
                // P5 = SQLITE_STMTSTATUS_FULLSCAN_STEP, as SQLite marks
                // a loop over a whole table.
                self.b.add4(if backward { Opcode::Prev } else { Opcode::Next }, cur, top as i32, 0, P4::None, 1);
            }
            LoopKind::InIndex(icur, itop, vcur, vtop, vnext, backward) => {
                let step = if backward { Opcode::Prev } else { Opcode::Next };
                self.b.add(step, icur, itop as i32, 0);
                self.b.bind(vnext);
                self.b.add(step, vcur, vtop as i32, 0);
            }
            LoopKind::Virtual(cur, top) => {
                self.b.add(Opcode::VNext, cur, top as i32, 0);
            }
            LoopKind::VirtualIn(cur, top, vcur, vtop, vnext) => {
                self.b.add(Opcode::VNext, cur, top as i32, 0);
                self.b.bind(vnext);
                self.b.add(Opcode::Next, vcur, vtop as i32, 0);
            }
            LoopKind::Once => {}
            LoopKind::Or(ret) => {
                self.b.add(Opcode::Return, ret, 0, 0);
            }
        }
    }
}

/// A term's identity for [`Compiler::seek_consumed`]: its address (the
/// terms are borrowed from the statement's syntax tree for the whole
/// compilation, so an address names one term).
pub(in crate::sql::codegen) fn term_address(e: &Expr<'_>) -> usize {
    e as *const Expr<'_> as usize
}

/// A comparison or BETWEEN (what may constrain a column for a lookup).
fn is_comparison_term(t: &Expr<'_>) -> bool {
    match crate::sql::model::expr_shape::strip_parens(t) {
        Expr::Binary(_, op, _) => crate::sql::plan::terms::LookupOp::from_op(*op).is_some(),
        Expr::Between { not: false, .. } => true,
        _ => false,
    }
}
