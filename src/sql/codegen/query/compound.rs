//! Compound SELECTs (UNION ALL, UNION, EXCEPT, INTERSECT), evaluated left
//! to right into temporary tables: a rowid table while duplicates must be
//! kept, a key-only index when they must go. ORDER BY and LIMIT apply to
//! the final result and may only name its columns.

use crate::error::{Error, Result};
use crate::sql::codegen::Compiler;
use crate::sql::model::query::{binary_key_info, Dest, ResultItem, RowCtx, SelectInfo};
use crate::util::ascii::AsciiLower;
use crate::vdbe::program::{Opcode, P4};
use sqlite3_parser::ast::{CompoundOperator, CompoundSelect, Expr, OneSelect, ResultColumn, Select, SortedColumn};

impl Compiler<'_> {
    fn open_temp(&mut self, n: usize, index: bool) -> i32 {
        let c = self.b.cursor();
        if index {
            let at = self.b.add4(Opcode::OpenEphemeral, c, n as i32, 0, P4::KeyInfo(binary_key_info(n)), 0);
            self.frame.compound_key_opens.push(at);
        } else {
            self.b.add(Opcode::OpenEphemeral, c, n as i32, 0);
        }
        c
    }

    /// Loop over temporary `src`, handing each row's registers to `f`.
    fn for_each_row(&mut self, src: i32, n: usize, f: &mut dyn FnMut(&mut Self, i32) -> Result<()>) -> Result<()> {
        let end = self.b.label();
        self.b.add(Opcode::Rewind, src, end, 0);
        let top = self.b.here();
        let regs = self.b.regs(n);
        for i in 0..n {
            self.b.add(Opcode::Column, src, i as i32, regs + i as i32);
        }
        f(self, regs)?;
        self.b.add(Opcode::Next, src, top as i32, 0);
        self.b.bind(end);
        Ok(())
    }

    fn convert_temp(&mut self, src: i32, n: usize, to_index: bool) -> Result<i32> {
        let dst = self.open_temp(n, to_index);
        let dest = if to_index { Dest::EphemIndex(dst) } else { Dest::EphemTable(dst) };
        self.for_each_row(src, n, &mut |c, regs| {
            let end = c.b.label();
            c.emit_final(dest, regs, n, None, end);
            c.b.bind(end);
            Ok(())
        })?;
        Ok(dst)
    }

    /// Compile a compound SELECT feeding `dest`.
    pub fn compile_compound(&mut self, sel: &Select<'_>, dest: Dest) -> Result<SelectInfo> {
        // The authorizer is asked about the arms' names first, the last
        // arm first, as SQLite resolves a compound before coding any arm
        // (unless the enclosing SELECT asked ahead already).
        let key = self.stmt.authorizer.map(|_| crate::sql::codegen::auth::ahead_key(sel));
        let ahead = match key {
            Some(key) if !self.stmt.auth_ahead.was_asked(key) => {
                self.ask_compound_ahead(sel)?;
                self.stmt.auth_ahead.begin_compile(key)
            }
            _ => false,
        };
        let n_arms = sel.body.compounds.as_ref().map_or(0, |c| c.len()) + 1;
        let arms = std::mem::replace(&mut self.select.auth_arms, n_arms);
        let r = self.compile_compound_arms_of(sel, dest);
        self.select.auth_arms = arms;
        if ahead {
            self.stmt.auth_ahead.end_compile();
        }
        r
    }

    /// `SQLITE_SELECT` for the arm `j` about to be compiled, as SQLite
    /// asks them: it codes a compound of N arms as the compound of the
    /// first N-1 (its own SELECT) then the last arm (another), so the
    /// first arm comes after N-1 checks and each other arm after one.
    fn authorize_arm(&mut self, j: usize) -> Result<()> {
        if self.stmt.authorizer.is_none() {
            return Ok(());
        }
        let n = if j == 0 { self.select.auth_arms.saturating_sub(1) } else { 1 };
        for _ in 0..n {
            self.authorize(crate::sql::codegen::auth::action::SELECT, None, None, None)?;
        }
        Ok(())
    }

    fn compile_compound_arms_of(&mut self, sel: &Select<'_>, dest: Dest) -> Result<SelectInfo> {
        let compounds = sel.body.compounds.as_ref().map(|c| &c[..]).unwrap_or(&[]);
        self.check_arm_tables_exist(sel)?;
        // Arms whose widths differ, seen before any is compiled: SQLite's
        // resolver fails before planning any arm (no virtual table is
        // asked anything); the error is the one it meets first.
        let widths: Vec<Option<usize>> =
            std::iter::once(&sel.body.select).chain(compounds.iter().map(|c| &c.select)).map(|a| first_arm_width(a, self.star_arm_width(a))).collect();
        if widths.iter().all(Option::is_some) && widths.windows(2).any(|w| w[0] != w[1]) {
            let failed = Error::sql("SELECTs do not have the same number of result columns");
            return Err(self.error_in_resolve_order(sel, failed));
        }
        let want_names = self.names.scopes.is_empty() && matches!(dest, Dest::Output);
        // (SQLite runs a UNION with a LIMIT of exactly 1 arm by arm too:
        // any first row is the answer. A one-row subquery has that LIMIT.)
        let one_row = matches!(dest, Dest::Scalar { .. } | Dest::Exists { .. } | Dest::Row { .. });
        let limit_one = match sel.limit {
            Some(l) => l.offset.is_none() && crate::sql::plan::vtab::limit_literal(&l.expr) == Some(1),
            None => one_row,
        };
        let streams = compounds.iter().all(|c| c.operator == CompoundOperator::UnionAll)
            || (limit_one && compounds.iter().all(|c| matches!(c.operator, CompoundOperator::UnionAll | CompoundOperator::Union)));
        // The arms SQLite merges before the trailing UNION ALL arms it
        // runs one after the other (as `head` compound operators).
        let head = if streams { 0 } else { compounds.iter().rposition(|c| c.operator != CompoundOperator::UnionAll).map_or(0, |k| k + 1) };
        if sel.order_by.is_none()
            && (streams || head < compounds.len())
            && matches!(
                dest,
                Dest::Output | Dest::EphemTable(_) | Dest::EphemIndex(_) | Dest::Discard | Dest::Scalar { .. } | Dest::Row { .. } | Dest::Exists { .. }
            )
        {
            return match self.union_all_streamed(sel, dest, want_names, head) {
                Ok(out) => Ok(out),
                Err(e) => Err(self.error_in_resolve_order(sel, e)),
            };
        }
        match self.compile_merged(sel, dest, want_names, compounds.len()) {
            Ok(out) => Ok(out),
            Err(e) => Err(self.error_in_resolve_order(sel, e)),
        }
    }

    /// The arms of `sel` joined by its first `upto` operators, into
    /// temporary tables and then `dest` (sorted by the compound's ORDER
    /// BY, limited by its LIMIT or by the counters in `compound_limit`).
    fn compile_merged(&mut self, sel: &Select<'_>, dest: Dest, want_names: bool, upto: usize) -> Result<SelectInfo> {
        let compounds = &sel.body.compounds.as_ref().map(|c| &c[..]).unwrap_or(&[])[..upto];
        let is_index = compounds[0].operator != CompoundOperator::UnionAll;
        // Column count is only known after compiling the first arm; open
        // the temporary with a patched width.
        let e0 = self.b.cursor();
        let open_addr = self.b.add(Opcode::OpenEphemeral, e0, 0, 0);
        let outer_key_opens = std::mem::take(&mut self.frame.compound_key_opens);
        // Each arm is offered the compound's ORDER BY first, as SQLite's
        // merge of sorted arms asks of it, so a virtual table in an arm is
        // offered that order (the rows are sorted once, at the end).
        let first_width = self.star_arm_width(&sel.body.select);
        let r = match arm_order_text(sel, first_width, upto).or_invented(sel, first_width) {
            ArmOrder::Offered { text, base, probed } => crate::sql::parse::with_first_statement(text.as_bytes(), |cmd, _| {
                let terms = match cmd {
                    Some(sqlite3_parser::ast::Cmd::Stmt(sqlite3_parser::ast::Stmt::Select(s))) => s.order_by,
                    _ => None,
                };
                self.select.arm_probed_names = probed;
                let r = self.compile_compound_arms(sel, dest, e0, open_addr, is_index, want_names, terms.map(|t| (t, base)), upto);
                self.select.arm_probed_names.clear();
                r
            }),
            // (SQLite fails before planning any arm.)
            ArmOrder::NoMatch(ti) => {
                // (A missing table of a subquery anywhere in the ORDER BY
                // is found first: SQLite expands every FROM clause before
                // it matches the terms.)
                match sel.order_by.iter().flat_map(|o| o.iter()).find_map(|t| self.missing_table_in_expr(&t.expr)) {
                    Some(name) => Err(Error::sql(format!("no such table: {name}"))),
                    None => Err(Error::sql(format!("{} ORDER BY term does not match any column in the result set", crate::sql::parse::ordinal(ti + 1)))),
                }
            }
            ArmOrder::NotOffered => self.compile_compound_arms(sel, dest, e0, open_addr, is_index, want_names, None, upto),
        };
        let key_opens = std::mem::replace(&mut self.frame.compound_key_opens, outer_key_opens);
        let (out, colls) = r?;
        // SQLite codes a compound that removes rows, or is sorted, as a
        // merge of its arms, whose ORDER BY terms it builds as COLLATE
        // nodes of height 2.
        if self.env.max_expr_depth < 2 && (sel.order_by.is_some() || compounds.iter().any(|c| c.operator != CompoundOperator::UnionAll)) {
            return Err(Error::sql(format!("Expression tree is too large (maximum depth {})", self.env.max_expr_depth)));
        }
        // Duplicates are told apart under each column's collation: that of
        // the leftmost arm whose column has one (else BINARY). The
        // temporaries were opened before the later arms were compiled, so
        // their key descriptions are completed here.
        let ki = std::sync::Arc::new(crate::value::record::KeyInfo {
            fields: colls.into_iter().map(|c| crate::value::record::KeyField { collation: c, descending: false }).collect(),
        });
        for at in key_opens {
            self.b.insns[at].p4 = P4::KeyInfo(ki.clone());
        }
        Ok(out)
    }

    /// The error SQLite reports for a compound whose compile failed with
    /// `failed`: its resolver takes the compound's LIMIT and OFFSET first,
    /// then the arms from the last to the first (each arm's width checked
    /// against the one after it once the arm is resolved), then the
    /// ORDER BY; the arms are compiled here from the last to find the
    /// first of them that fails (the program is discarded with the
    /// error). Errors that are not SQL errors (an interrupt) stand.
    fn error_in_resolve_order(&mut self, sel: &Select<'_>, failed: Error) -> Error {
        // (SQLite expands every arm's FROM clause before it resolves any
        // name: an expansion error stands, and compiling the arms again
        // would count their table references twice.)
        if failed.primary() != crate::error::SQLITE_ERROR || crate::sql::parse_limits::is_expansion_error(&failed) {
            return failed;
        }
        if let Some(l) = sel.limit {
            let (count, off) = self.limit_exprs(l);
            if let Err(e) = self.check_limit_names(count, off) {
                return e;
            }
        }
        let compounds = sel.body.compounds.as_ref().map(|c| &c[..]).unwrap_or(&[]);
        let arms: Vec<&OneSelect<'_>> = std::iter::once(&sel.body.select).chain(compounds.iter().map(|c| &c.select)).collect();
        let unasked = std::mem::replace(&mut self.vtab.unasked, true);
        let found = self.first_arm_error(&arms, compounds);
        self.vtab.unasked = unasked;
        if let Some(e) = found {
            return e;
        }
        failed
    }

    /// The first error of the arms of a compound as SQLite's resolver
    /// meets them: the arms from the last to the first, each arm's width
    /// checked against the one after it.
    fn first_arm_error(&mut self, arms: &[&OneSelect<'_>], compounds: &[CompoundSelect<'_>]) -> Option<Error> {
        let mut right_width: Option<usize> = None;
        for j in (0..arms.len()).rev() {
            let scratch = self.b.cursor();
            match self.compile_simple(arms[j], None, None, Dest::EphemTable(scratch)) {
                // (Its names resolved: its width is not known here.)
                Err(e) if super::name_order::found_generating_code(&e) => right_width = None,
                Err(e) => return Some(e),
                Ok(info) => {
                    if right_width.is_some_and(|w| w != info.n_columns) {
                        return Some(Error::sql(format!(
                            "SELECTs to the left and right of {} do not have the same number of result columns",
                            operator_name(compounds[j].operator)
                        )));
                    }
                    right_width = Some(info.n_columns);
                }
            }
        }
        None
    }

    /// SQLite looks up the tables of a compound's arms from the last arm
    /// to the first: a missing plain table of a later arm is the one
    /// reported (tables it may find in other ways are left to the arms).
    fn check_arm_tables_exist(&self, sel: &Select<'_>) -> Result<()> {
        use sqlite3_parser::ast::{OneSelect, SelectTable};
        let arms: Vec<&OneSelect<'_>> = std::iter::once(&sel.body.select).chain(sel.body.compounds.iter().flat_map(|c| c.iter().map(|c| &c.select))).collect();
        for arm in arms.into_iter().rev() {
            let OneSelect::Select { from: Some(from), .. } = arm else { continue };
            for t in from.select.into_iter().chain(from.joins.iter().flat_map(|j| j.iter().map(|j| &j.table))) {
                let SelectTable::Table(qn, _, _) = t else { continue };
                if qn.db_name.is_some() {
                    continue;
                }
                let name = crate::sql::parse::unquote(qn.name.0);
                let lower = name.ascii_lower();
                if lower.starts_with("sqlite_")
                    || lower.starts_with("pragma_")
                    || self.cte(&name).is_some()
                    || self.frame.recursive.iter().any(|r| r.name.eq_ci(&name))
                {
                    continue;
                }
                if self.env.schema.table_in(self.names.home_db, &name).is_none() {
                    return Err(Error::sql(format!("no such table: {name}")));
                }
            }
        }
        Ok(())
    }

    /// Each column's collation in a compound: the leftmost arm's that has
    /// one. A table column always has one (BINARY unless declared); a
    /// computed value has one only through COLLATE.
    pub(in crate::sql::codegen) fn compound_collations(&mut self, arms: &[SelectInfo], n: usize) -> Result<Vec<crate::value::collation::Collation>> {
        let arm_collation = |a: &SelectInfo, i: usize| -> Option<String> {
            match a.collations.get(i).cloned().flatten() {
                Some(c) => Some(c),
                None if a.origins.get(i).is_some_and(|o| o.is_some()) => Some("BINARY".into()),
                None => None,
            }
        };
        (0..n)
            .map(|i| match arms.iter().find_map(|a| arm_collation(a, i)) {
                Some(name) => self.collation(&name),
                None => Ok(crate::value::collation::Collation::binary()),
            })
            .collect()
    }

    /// Whether a FROM item of `arm` names a virtual table (or a name the
    /// schema does not hold, which may be an eponymous one).
    /// The number of result columns of an arm with `*` or `t.*`, when its
    /// FROM is plain tables and virtual tables already connected (`None`
    /// otherwise, or without a `*`); a `*` leaves out the right-hand
    /// columns a USING or NATURAL join shares.
    fn star_arm_width(&self, arm: &OneSelect<'_>) -> Option<usize> {
        use sqlite3_parser::ast::{JoinConstraint, JoinOperator, JoinType, SelectTable};
        let OneSelect::Select { columns, from: Some(from), .. } = arm else { return None };
        if columns.iter().all(|c| matches!(c, ResultColumn::Expr(..))) {
            return None;
        }
        let joins = from.joins.iter().flat_map(|j| j.iter());
        // Per join (from the second item on): the columns it shares.
        let shared: Vec<Option<Vec<String>>> = joins
            .clone()
            .map(|j| match (&j.constraint, &j.operator) {
                (Some(JoinConstraint::Using(names)), _) => Some(Some(names.iter().map(|n| crate::sql::parse::unquote(n.0).to_ascii_lowercase()).collect())),
                (_, JoinOperator::TypedJoin(Some(t))) if t.contains(JoinType::NATURAL) => Some(None),
                _ => None,
            })
            .map(|s| s.map(|n| n.unwrap_or_default()))
            .collect();
        let natural: Vec<bool> =
            joins.clone().map(|j| matches!(j.operator, JoinOperator::TypedJoin(Some(t)) if t.contains(JoinType::NATURAL)) && j.constraint.is_none()).collect();
        // Per FROM item: the name `t.*` names it by, its visible columns,
        // and their names.
        let mut items: Vec<(String, usize)> = Vec::new();
        let mut names_seen: Vec<String> = Vec::new();
        let mut left_out = 0;
        for (k, t) in from.select.into_iter().chain(joins.map(|j| &j.table)).enumerate() {
            let SelectTable::Table(qn, alias, _) = t else { return None };
            let name = crate::sql::parse::unquote(qn.name.0);
            if self.cte(&name).is_some() {
                return None;
            }
            let db = match &qn.db_name {
                Some(d) => Some(self.db_index(&crate::sql::parse::unquote(d.0))?),
                None => None,
            };
            let table = self.env.schema.table_in(db, &name)?;
            let visible: Vec<String> = match &table.virtual_table {
                Some(_) => {
                    let inst = self.env.vtabs?.table(table.db, &table.name).filter(|i| i.schema_sql == table.sql)?;
                    let decl = crate::sql::vtab_decl::declared_table(&inst.declared, &table.name, table.db, &table.sql).ok()?;
                    decl.table.columns.iter().zip(&decl.hidden).filter(|(_, h)| !**h).map(|(c, _)| c.name.to_ascii_lowercase()).collect()
                }
                None if table.root != 0 => table.columns.iter().map(|c| c.name.to_ascii_lowercase()).collect(),
                None => return None,
            };
            let width = visible.len();
            if k > 0 {
                let common: Vec<String> = if natural[k - 1] {
                    visible.iter().filter(|n| names_seen.contains(n)).cloned().collect()
                } else {
                    shared[k - 1].clone().unwrap_or_default()
                };
                // (A USING column missing on either side is SQLite's error,
                // met when the arm compiles.)
                if common.iter().any(|n| !visible.contains(n) || !names_seen.contains(n)) {
                    return None;
                }
                left_out += common.len();
            }
            names_seen.extend(visible);
            let shown = match alias {
                Some(sqlite3_parser::ast::As::As(a) | sqlite3_parser::ast::As::Elided(a)) => crate::sql::parse::unquote(a.0),
                None => name,
            };
            items.push((shown, width));
        }
        let mut n = 0;
        for c in columns.iter() {
            n += match c {
                ResultColumn::Expr(..) => 1,
                ResultColumn::Star => items.iter().map(|(_, w)| w).sum::<usize>() - left_out,
                ResultColumn::TableStar(q) => {
                    let q = crate::sql::parse::unquote(q.0);
                    items.iter().find(|(name, _)| name.eq_ci(&q))?.1
                }
            };
        }
        Some(n)
    }

    fn arm_reads_vtab(&self, arm: &OneSelect<'_>) -> bool {
        use sqlite3_parser::ast::SelectTable;
        let OneSelect::Select { from: Some(from), .. } = arm else { return false };
        from.select.into_iter().chain(from.joins.iter().flat_map(|j| j.iter().map(|j| &j.table))).any(|t| {
            let (SelectTable::Table(qn, _, _) | SelectTable::TableCall(qn, _, _)) = t else { return false };
            let name = crate::sql::parse::unquote(qn.name.0);
            if self.cte(&name).is_some() {
                return false;
            }
            let db = qn.db_name.as_ref().and_then(|d| self.db_index(&crate::sql::parse::unquote(d.0)));
            match self.env.schema.table_in(db, &name) {
                Some(t) => t.virtual_table.is_some(),
                None => true,
            }
        })
    }

    /// One arm of a compound into `dest`, offered the compound's ORDER BY
    /// `order` (SQLite's merge reads its arms sorted, so a virtual table
    /// in one is offered that order): the arm sorts nothing itself, the
    /// compound sorts its rows at the end.
    fn compile_arm(&mut self, j: usize, arm: &OneSelect<'_>, order: Option<&[SortedColumn<'_>]>, dest: Dest) -> Result<SelectInfo> {
        self.authorize_arm(j)?;
        self.select.arm_order_offered_only = order.is_some();
        self.select.arm_order_probed = self.select.arm_probed_names.get(j).cloned().unwrap_or_default();
        let out = self.compile_simple(arm, order, None, dest);
        self.select.arm_order_offered_only = false;
        out
    }

    /// One arm of a streamed UNION ALL, counting on the compound's LIMIT
    /// registers (`compound_limit`, set by the caller when there is a
    /// LIMIT); `limit` is the compound's, for what its virtual table is
    /// offered.
    fn compile_arm_limited(&mut self, j: usize, arm: &OneSelect<'_>, limit: Option<&sqlite3_parser::ast::Limit<'_>>, dest: Dest) -> Result<SelectInfo> {
        self.authorize_arm(j)?;
        self.select.arm_order_probed = self.select.arm_probed_names.get(j).cloned().unwrap_or_default();
        let limit = limit.filter(|_| self.select.compound_limit.is_some());
        let out = self.compile_simple(arm, None, limit, dest);
        self.select.compound_limit = None;
        out
    }

    /// A UNION ALL without ORDER BY, as SQLite codes it: each arm straight
    /// into `dest`, one after the other, no temporary table. An arm's rows
    /// so come out before the next arm starts (a virtual table in a later
    /// arm has its xFilter called after the earlier arms' rows were
    /// stepped through, and a scalar subquery stops at its first row
    /// without running the later arms). A LIMIT and OFFSET are counters
    /// the arms share: an arm is not started once the LIMIT is reached,
    /// and each arm's virtual table is offered the LIMIT where SQLite
    /// offers it (see `vtab_limit_offer`).
    fn union_all_streamed(&mut self, sel: &Select<'_>, dest: Dest, want_names: bool, head: usize) -> Result<SelectInfo> {
        let compounds = sel.body.compounds.as_ref().map(|c| &c[..]).unwrap_or(&[]);
        debug_assert!(compounds[head..].iter().all(|c| matches!(c.operator, CompoundOperator::UnionAll | CompoundOperator::Union)) && sel.order_by.is_none());
        let end = self.b.label();
        let shared = match sel.limit {
            Some(l) => {
                let one_row = matches!(dest, Dest::Scalar { .. } | Dest::Exists { .. } | Dest::Row { .. });
                let (count, _) = self.limit_exprs(l);
                // (A one-row subquery's LIMIT X is X <> 0 unless written
                // as the literal 0 or 1, as for a simple SELECT.)
                let rewritten = one_row && !super::limit::one_row_limit_kept(count);
                let regs = if one_row { self.setup_one_row_limit(Some(l), end) } else { self.setup_limit(Some(l), end) };
                regs?.map(|r| (r, rewritten))
            }
            None => None,
        };
        let r = self.union_all_arms(sel, dest, want_names, shared, end, head);
        self.select.compound_limit = None;
        self.b.bind(end);
        r
    }

    fn union_all_arms(
        &mut self,
        sel: &Select<'_>,
        dest: Dest,
        want_names: bool,
        shared: Option<(crate::sql::model::query::LimitRegs, bool)>,
        end: i32,
        head: usize,
    ) -> Result<SelectInfo> {
        let compounds = sel.body.compounds.as_ref().map(|c| &c[..]).unwrap_or(&[]);
        self.select.compound_limit = shared;
        let first = if head > 0 {
            self.compile_merged(sel, dest, want_names, head)
        } else {
            self.naming.top_compound_arm = want_names;
            let first = self.compile_arm_limited(0, &sel.body.select, sel.limit, dest);
            self.naming.top_compound_arm = false;
            first
        };
        self.select.compound_limit = None;
        let info = first?;
        let n = info.n_columns;
        let mut arms = if head > 0 { info.arms.clone() } else { vec![info.clone()] };
        let mut correlated = info.correlated;
        for (j, cs) in compounds.iter().enumerate().skip(head) {
            // (Once the LIMIT is reached, the later arms are skipped.)
            if let Some((regs, _)) = shared {
                self.b.add(Opcode::IfNot, regs.limit, end, 0);
            }
            self.select.compound_limit = shared;
            let i = self.compile_arm_limited(j + 1, &cs.select, sel.limit, dest)?;
            if i.n_columns != n {
                let name = operator_name(cs.operator);
                return Err(Error::sql(format!("SELECTs to the left and right of {name} do not have the same number of result columns")));
            }
            correlated |= i.correlated;
            arms.push(i);
        }
        // (No collation is needed: a column's that is not defined is no
        // error here, as in SQLite.)
        let mut out = info;
        out.correlated = correlated;
        out.arms = arms;
        Ok(out)
    }

    /// `arm_order`: the ORDER BY each arm is offered (see `arm_order_text`)
    /// and how many of its terms are the compound's own.
    fn compile_compound_arms(
        &mut self,
        sel: &Select<'_>,
        dest: Dest,
        e0: i32,
        open_addr: usize,
        mut is_index: bool,
        want_names: bool,
        arm_order: Option<(&[SortedColumn<'_>], usize)>,
        upto: usize,
    ) -> Result<(SelectInfo, Vec<crate::value::collation::Collation>)> {
        let compounds = &sel.body.compounds.as_ref().map(|c| &c[..]).unwrap_or(&[])[..upto];
        // (The LIMIT counters of a UNION ALL this is the head of.)
        let shared = self.select.compound_limit.take();
        // Arm `j`'s ORDER BY: the compound's terms, then the other columns
        // where an operator from the one before it on is not UNION ALL
        // (SQLite's `multiSelectOrderBy`, applied from the last operator
        // to the first). Only plain SELECT arms sort.
        // (Only arms reading a virtual table: elsewhere the order is not
        // seen and the arm's sort would be work for nothing.)
        let reads_vtab: Vec<bool> = std::iter::once(&sel.body.select).chain(compounds.iter().map(|c| &c.select)).map(|a| self.arm_reads_vtab(a)).collect();
        let order_of = |j: usize, arm: &sqlite3_parser::ast::OneSelect<'_>| -> Option<&[SortedColumn<'_>]> {
            let (terms, base) = arm_order?;
            if !matches!(arm, sqlite3_parser::ast::OneSelect::Select { .. }) || !reads_vtab[j] {
                return None;
            }
            let full = compounds[j.saturating_sub(1)..].iter().any(|c| c.operator != CompoundOperator::UnionAll);
            Some(if full { terms } else { &terms[..base] }).filter(|t| !t.is_empty())
        };
        self.naming.top_compound_arm = want_names;
        let first = self.compile_arm(0, &sel.body.select, order_of(0, &sel.body.select), if is_index { Dest::EphemIndex(e0) } else { Dest::EphemTable(e0) });
        self.naming.top_compound_arm = false;
        let info = first?;
        let n = info.n_columns;
        let mut arms = vec![info.clone()];
        self.b.insns[open_addr].p2 = n as i32;
        if is_index {
            self.b.insns[open_addr].p4 = P4::KeyInfo(binary_key_info(n));
            self.frame.compound_key_opens.push(open_addr);
        }
        let mut cur = e0;
        let mut correlated = info.correlated;
        for (j, cs) in compounds.iter().enumerate() {
            let arm_order_by = order_of(j + 1, &cs.select);
            let check = |i: &SelectInfo, op: CompoundOperator| -> Result<()> {
                if i.n_columns != n {
                    let name = operator_name(op);
                    return Err(Error::sql(format!("SELECTs to the left and right of {name} do not have the same number of result columns")));
                }
                Ok(())
            };
            match cs.operator {
                CompoundOperator::UnionAll => {
                    if is_index {
                        cur = self.convert_temp(cur, n, false)?;
                        is_index = false;
                    }
                    let i = self.compile_arm(j + 1, &cs.select, arm_order_by, Dest::EphemTable(cur))?;
                    check(&i, cs.operator)?;
                    arms.push(i.clone());
                    correlated |= i.correlated;
                }
                CompoundOperator::Union => {
                    if !is_index {
                        cur = self.convert_temp(cur, n, true)?;
                        is_index = true;
                    }
                    let i = self.compile_arm(j + 1, &cs.select, arm_order_by, Dest::EphemIndex(cur))?;
                    check(&i, cs.operator)?;
                    arms.push(i.clone());
                    correlated |= i.correlated;
                }
                CompoundOperator::Except | CompoundOperator::Intersect => {
                    if !is_index {
                        cur = self.convert_temp(cur, n, true)?;
                        is_index = true;
                    }
                    let x = self.open_temp(n, true);
                    let i = self.compile_arm(j + 1, &cs.select, arm_order_by, Dest::EphemIndex(x))?;
                    check(&i, cs.operator)?;
                    arms.push(i.clone());
                    correlated |= i.correlated;
                    if cs.operator == CompoundOperator::Except {
                        let target = cur;
                        self.for_each_row(x, n, &mut |c, regs| {
                            c.b.add(Opcode::IdxDelete, target, regs, n as i32);
                            Ok(())
                        })?;
                    } else {
                        // The rows kept are the left side's (under a
                        // non-BINARY collation the right's may differ).
                        let r = self.open_temp(n, true);
                        let right = x;
                        self.for_each_row(cur, n, &mut |c, regs| {
                            let skip = c.b.label();
                            c.b.add4(Opcode::NotFound, right, skip, regs, P4::Int64(n as i64), 0);
                            let end = c.b.label();
                            c.emit_final(Dest::EphemIndex(r), regs, n, None, end);
                            c.b.bind(end);
                            c.b.bind(skip);
                            Ok(())
                        })?;
                        cur = r;
                    }
                }
            }
        }
        // Final output.
        let end = self.b.label();
        let lim = match shared {
            Some((regs, _)) => Some(regs),
            None => self.setup_limit(sel.limit, end)?,
        };
        let mut ctx = RowCtx { dest, sorter: None, order_map: Vec::new(), distinct: None, limit: lim, end, top_n: false };
        // ORDER BY terms may repeat a result expression of the first SELECT.
        let items: Vec<ResultItem<'_, '_>> = match &sel.body.select {
            sqlite3_parser::ast::OneSelect::Select { columns, .. } => columns
                .iter()
                .map_while(|c| match c {
                    sqlite3_parser::ast::ResultColumn::Expr(e, alias) => {
                        let a = alias.as_ref().map(|a| match a {
                            sqlite3_parser::ast::As::As(n) | sqlite3_parser::ast::As::Elided(n) => crate::sql::parse::unquote(n.0),
                        });
                        Some(ResultItem::Expr(e, a))
                    }
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        };
        let items = if items.len() == info.names.len() { items } else { Vec::new() };
        // Aliases of the later SELECTs name columns too (the first's win),
        // and so do the column names of every arm (a `SELECT *` arm's
        // included) for plain and qualified terms.
        let mut later_aliases = Vec::new();
        let mut later_columns: Vec<(String, usize)> = Vec::new();
        let mut later_exprs: Vec<(String, usize)> = Vec::new();
        for c in compounds {
            if let sqlite3_parser::ast::OneSelect::Select { columns, .. } = &c.select {
                for (i, rc) in columns.iter().enumerate() {
                    if let sqlite3_parser::ast::ResultColumn::Expr(e, alias) = rc {
                        later_exprs.push((e.to_string(), i));
                        if let Some(sqlite3_parser::ast::As::As(n) | sqlite3_parser::ast::As::Elided(n)) = alias {
                            later_aliases.push((crate::sql::parse::unquote(n.0), i));
                        }
                        match e {
                            sqlite3_parser::ast::Expr::Id(x) => later_columns.push((crate::sql::parse::unquote(x.0), i)),
                            sqlite3_parser::ast::Expr::Qualified(_, x) => later_columns.push((crate::sql::parse::unquote(x.0), i)),
                            _ => {}
                        }
                    }
                }
            }
        }
        later_columns.extend(arms.iter().flat_map(|a| a.names.iter().cloned().enumerate().map(|(i, n)| (n, i))));
        self.names.later_compound_columns = later_columns;
        self.names.later_compound_exprs = later_exprs;
        // The collations compare rows only where rows are removed or
        // sorted: a column's collation that is not defined is an error
        // there only, as in SQLite.
        // (After the ORDER BY terms are matched: their error comes first.)
        let mapped = sel.order_by.map(|terms| {
            let mapped = self.order_by_map_with(terms, &items, &info.names, true, &later_aliases);
            self.names.later_compound_columns.clear();
            self.names.later_compound_exprs.clear();
            mapped
        });
        let mapped = mapped.transpose()?;
        let compares = sel.order_by.is_some() || sel.body.compounds.iter().flatten().any(|c| c.operator != CompoundOperator::UnionAll);
        let colls = if compares { self.compound_collations(&arms, n)? } else { vec![crate::value::collation::Collation::binary(); n] };
        if let (Some(terms), Some(mapped)) = (sel.order_by, mapped) {
            ctx.order_map = mapped;
            let mut fields = Vec::new();
            for (ti, t) in terms.iter().enumerate() {
                let desc = matches!(t.order, Some(sqlite3_parser::ast::SortOrder::Desc));
                if crate::sql::model::query::needs_null_key(t) {
                    fields.push(crate::value::record::KeyField { collation: crate::value::collation::Collation::binary(), descending: desc });
                }
                let coll = match &t.expr {
                    sqlite3_parser::ast::Expr::Collate(_, c) => self.collation(&crate::sql::parse::unquote(c))?,
                    // A result column sorts under the compound's collation.
                    _ => ctx.order_map[ti].and_then(|k| colls.get(k).cloned()).unwrap_or_else(crate::value::collation::Collation::binary),
                };
                fields.push(crate::value::record::KeyField { collation: coll, descending: desc });
            }
            let nk = fields.len();
            let s = self.b.cursor();
            self.b.add4(Opcode::SorterOpen, s, (nk + n) as i32, 0, P4::KeyInfo(std::sync::Arc::new(crate::value::record::KeyInfo { fields })), 0);
            ctx.sorter = Some((s, nk));
        }
        let order_by = sel.order_by;
        self.for_each_row(cur, n, &mut |c, regs| c.emit_row(&ctx, order_by, regs, n))?;
        self.emit_sorter_output(&ctx, n);
        self.b.bind(end);
        let mut out = info;
        out.correlated = correlated;
        out.arms = arms;
        Ok((out, colls))
    }
}

/// A compound operator as SQL writes it.
fn operator_name(op: CompoundOperator) -> &'static str {
    match op {
        CompoundOperator::Union => "UNION",
        CompoundOperator::UnionAll => "UNION ALL",
        CompoundOperator::Except => "EXCEPT",
        CompoundOperator::Intersect => "INTERSECT",
    }
}

/// The ORDER BY SQLite's merge of a compound gives its arms, as the text
/// `SELECT 0 ORDER BY ...` (each term by its result column's number, its
/// DESC kept, then the other columns), and the number of the compound's
/// own terms. A term is resolved as SQLite's `resolveCompoundOrderBy`
/// does, arm by arm from the first: a column number, then an alias of
/// that arm, then a result expression of that arm written the same way
/// (a column name matching the same name, qualified or not). `None`
/// without an ORDER BY, or where a term matches no arm that can be read
/// before the arms are compiled (an arm with `*` is not: its terms are
/// matched in the other arms or by number, with `first_width` the first
/// arm's width when it has `*`).
fn arm_order_text(sel: &Select<'_>, first_width: Option<usize>, upto: usize) -> ArmOrder {
    let Some(terms) = sel.order_by else { return ArmOrder::NotOffered };
    let arms: Vec<&OneSelect<'_>> =
        std::iter::once(&sel.body.select).chain(sel.body.compounds.iter().flat_map(|c| c.iter().take(upto).map(|c| &c.select))).collect();
    let readable = |a: &&OneSelect<'_>| match a {
        OneSelect::Select { columns, .. } => columns.iter().all(|c| matches!(c, ResultColumn::Expr(..))),
        OneSelect::Values(_) => true,
    };
    // (A first arm with `*`: its width as the schema gives it.)
    let n = match arms[0] {
        OneSelect::Select { columns, .. } if readable(&arms[0]) => columns.len(),
        OneSelect::Select { .. } if first_width.is_some() => first_width.unwrap_or(0),
        OneSelect::Values(rows) if !rows.is_empty() => rows[0].len(),
        _ => return ArmOrder::NotOffered,
    };
    let mut probed: Vec<Vec<String>> = vec![Vec::new(); arms.len()];
    // (A COLLATE is not passed on: SQLite offers the arm's column in its
    // own order; the final sort applies the collation.)
    let strip = |mut e: &'_ Expr<'_>| {
        while let Expr::Collate(inner, _) = e {
            e = inner;
        }
        e.to_string()
    };
    let column_name = |e: &Expr<'_>| match e {
        Expr::Id(x) => Some(crate::sql::parse::unquote(x.0)),
        Expr::Qualified(_, x) | Expr::DoublyQualified(_, _, x) => Some(crate::sql::parse::unquote(x.0)),
        _ => None,
    };
    let mut resolved: Vec<Option<usize>> = vec![None; terms.len()];
    for (ti, t) in terms.iter().enumerate() {
        if t.nulls.is_some() {
            return ArmOrder::NotOffered;
        }
        let mut e = &t.expr;
        while let Expr::Collate(inner, _) = e {
            e = inner;
        }
        if let Some(k) = crate::sql::model::expr_shape::parse_time_integer(e) {
            let Some(k) = usize::try_from(k).ok().filter(|k| (1..=n).contains(k)) else { return ArmOrder::NotOffered };
            resolved[ti] = Some(k);
        }
    }
    for (j, arm) in arms.iter().enumerate() {
        let OneSelect::Select { columns, .. } = arm else { continue };
        if columns.iter().any(|c| !matches!(c, ResultColumn::Expr(..))) {
            continue;
        }
        for (ti, t) in terms.iter().enumerate() {
            if resolved[ti].is_some() {
                continue;
            }
            let mut e = &t.expr;
            while let Expr::Collate(inner, _) = e {
                e = inner;
            }
            let alias_of = |c: &ResultColumn<'_>| match c {
                ResultColumn::Expr(_, Some(sqlite3_parser::ast::As::As(x) | sqlite3_parser::ast::As::Elided(x))) => Some(crate::sql::parse::unquote(x.0)),
                _ => None,
            };
            let by_alias = match e {
                Expr::Id(x) => {
                    let name = crate::sql::parse::unquote(x.0);
                    columns.iter().position(|c| alias_of(c).is_some_and(|a| a.eq_ci(&name)))
                }
                _ => None,
            };
            let text = strip(e);
            let name = column_name(e);
            // (Resolved in the arm's FROM, a column name counts as read
            // there, matched or not: `colUsed`.)
            if by_alias.is_none() {
                if let Some(name) = &name {
                    probed[j].push(name.clone());
                }
            }
            let by_expr = || {
                columns.iter().position(|c| {
                    let ResultColumn::Expr(r, _) = c else { return false };
                    match (&name, column_name(r)) {
                        (Some(a), Some(b)) => a.eq_ci(&b) && (matches!(e, Expr::Id(_)) || matches!(r, Expr::Id(_)) || strip(r).eq_ci(&text)),
                        _ => strip(r).eq_ci(&text),
                    }
                })
            };
            resolved[ti] = by_alias.or_else(by_expr).map(|k| k + 1);
        }
    }
    // (A column name left unmatched is left to the final ORDER BY to
    // judge; an expression matching no arm as written fails here.)
    if let Some(ti) = resolved.iter().position(Option::is_none) {
        let mut e = &terms[ti].expr;
        while let Expr::Collate(inner, _) = e {
            e = inner;
        }
        return if arms.iter().all(readable) && column_name(e).is_none() { ArmOrder::NoMatch(ti) } else { ArmOrder::NotOffered };
    }
    let mut used = Vec::new();
    let mut parts = Vec::new();
    for (t, k) in terms.iter().zip(&resolved) {
        let Some(k) = *k else { return ArmOrder::NotOffered };
        used.push(k);
        let mut part = k.to_string();
        if matches!(t.order, Some(sqlite3_parser::ast::SortOrder::Desc)) {
            part.push_str(" DESC");
        }
        parts.push(part);
    }
    let base = parts.len();
    parts.extend((1..=n).filter(|k| !used.contains(k)).map(|k| k.to_string()));
    ArmOrder::Offered { text: format!("SELECT 0 ORDER BY {}", parts.join(", ")), base, probed }
}

impl ArmOrder {
    /// A compound without ORDER BY that is not run arm by arm is merged
    /// by SQLite as if ordered by its first column (the other columns
    /// following where an operator is not UNION ALL): the arms up to the
    /// last such operator are offered all its columns in order.
    fn or_invented(self, sel: &Select<'_>, first_width: Option<usize>) -> ArmOrder {
        if sel.order_by.is_some() || !matches!(self, ArmOrder::NotOffered) {
            return self;
        }
        let Some(n) = first_arm_width(&sel.body.select, first_width) else { return self };
        let parts: Vec<String> = (1..=n).map(|k| k.to_string()).collect();
        ArmOrder::Offered { text: format!("SELECT 0 ORDER BY {}", parts.join(", ")), base: 0, probed: Vec::new() }
    }
}

/// The number of result columns of a compound's first arm, when known
/// before it is compiled (`first_width`: that of an arm with `*`).
fn first_arm_width(arm: &OneSelect<'_>, first_width: Option<usize>) -> Option<usize> {
    match arm {
        OneSelect::Select { columns, .. } if columns.iter().all(|c| matches!(c, ResultColumn::Expr(..))) => Some(columns.len()),
        OneSelect::Select { .. } => first_width,
        OneSelect::Values(rows) if !rows.is_empty() => Some(rows[0].len()),
        OneSelect::Values(_) => None,
    }
}

/// What a compound's arms are offered of its ORDER BY ([`arm_order_text`]).
enum ArmOrder {
    /// Nothing (no ORDER BY, or one not resolved before the arms compile).
    NotOffered,
    /// Term `0` (from 0) matches no column of any arm: SQLite's error.
    NoMatch(usize),
    /// The arms' ORDER BY as text, the number of the compound's own terms
    /// in it, and per arm the column names its FROM resolved.
    Offered { text: String, base: usize, probed: Vec<Vec<String>> },
}
