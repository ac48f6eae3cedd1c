//! IN and subqueries as expressions: `x IN (list)`, `x IN (SELECT ...)`
//! (of one column or a row), EXISTS and scalar subqueries. A subquery
//! that does not depend on the enclosing row runs once (`Once`, patched
//! by `finish_once` once the subquery is known correlated or not); an IN
//! test's three outcomes (true, false, NULL) are bound through
//! [`InLabels`].

use super::comparison_affinity;
use crate::error::{Error, Result};
use crate::sql::codegen::plan_lines::SubqueryLine;
use crate::sql::codegen::Compiler;
use crate::sql::model::expr_shape::may_be_row;
use crate::util::ascii::AsciiLower;
use crate::value::affinity::Affinity;
use crate::vdbe::program::{cmp_flags, Opcode, P4};
use sqlite3_parser::ast::{self, Expr};
use std::sync::Arc;

impl Compiler<'_> {
    pub(super) fn in_list(&mut self, lhs: &Expr<'_>, not: bool, list: &[Expr<'_>], target: i32) -> Result<()> {
        // `x IN ((SELECT ...))` is `x IN (SELECT ...)`, as SQLite parses it.
        if let Some(sel) = crate::sql::model::expr_shape::in_list_subquery(list) {
            return self.in_select(lhs, not, sel, target);
        }
        if self.row_in_list(lhs, not, list, target)? {
            return Ok(());
        }
        if list.is_empty() {
            self.b.add(Opcode::Integer, not as i32, target, 0);
            return Ok(());
        }
        let x = self.expr_new(lhs)?;
        let found = self.b.label();
        let null_result = self.b.label();
        let done = self.b.label();
        let has_null = self.b.reg();
        self.b.add(Opcode::Integer, 0, has_null, 0);
        self.b.add(Opcode::IsNull, x, null_result, 0);
        let t = self.b.reg();
        // Only the left side's affinity applies (the list's values are
        // plain expressions, even columns), as SQLite does.
        let aff = comparison_affinity(self.expr_affinity(lhs), None);
        // And only its collation (a COLLATE on an item is ignored).
        let coll = match self.expr_collation(lhs) {
            Some((n, _)) if !n.eq_ci("BINARY") => P4::coll(self.collation(&n)?),
            _ => P4::None,
        };
        // The register every literal item is loaded into in turn.
        let literal = self.b.reg();
        for item in list {
            if is_non_null_literal(item) {
                // Never NULL, and `x` is not NULL here: one compare that
                // jumps (2 instructions an item, where the general form
                // takes 5 and a register each: a 150,000-item list's
                // program was 24 MB of instructions).
                self.expr(item, literal)?;
                self.b.add4(Opcode::Eq, literal, found, x, coll.clone(), aff);
                continue;
            }
            let v = self.expr_new(item)?;
            self.b.add4(Opcode::Eq, v, t, x, coll.clone(), aff | cmp_flags::STOREP2);
            self.b.add(Opcode::If, t, found, 0);
            let nn = self.b.label();
            self.b.add(Opcode::NotNull, v, nn, 0);
            self.b.add(Opcode::Integer, 1, has_null, 0);
            self.b.bind(nn);
        }
        self.b.add(Opcode::If, has_null, null_result, 0);
        self.b.add(Opcode::Integer, not as i32, target, 0);
        self.b.add(Opcode::Goto, 0, done, 0);
        self.b.bind(found);
        self.b.add(Opcode::Integer, !not as i32, target, 0);
        self.b.add(Opcode::Goto, 0, done, 0);
        self.b.bind(null_result);
        self.b.add(Opcode::Null, 0, target, 0);
        self.b.bind(done);
        Ok(())
    }

    /// Emit `Once` whose target is patched later; returns its address.
    pub(super) fn once_placeholder(&mut self) -> usize {
        self.b.add(Opcode::Once, 0, 0, 0)
    }

    pub(in crate::sql::codegen) fn finish_once(&mut self, addr: usize, correlated: bool) {
        // (In a trigger body, once per firing: a trigger program runs in
        // a frame of its own, and an inline body's `TriggerEnter` forgets
        // the `Once` flags of the body as each firing starts.)
        if correlated {
            self.b.insns[addr].opcode = Opcode::Noop;
        } else {
            let here = self.b.here();
            self.b.insns[addr].p2 = here as i32;
        }
    }

    /// The ephemeral index of the values `column IN (sel)` hands a
    /// virtual table: the subquery's rows under the comparison's
    /// affinity (the column's `column_affinity` against the subquery's)
    /// and `collation`, filled once unless the subquery is correlated.
    pub(in crate::sql::codegen) fn in_select_values(&mut self, sel: &ast::Select<'_>, column_affinity: Option<Affinity>, collation: &str) -> Result<i32> {
        let cur = self.b.cursor();
        let once = self.once_placeholder();
        let key = crate::value::record::KeyField { collation: self.collation(collation)?, descending: false };
        self.b.add4(Opcode::OpenEphemeral, cur, 1, 0, P4::KeyInfo(Arc::new(crate::value::record::KeyInfo { fields: vec![key] })), 0);
        self.authorize_in_subquery(sel)?;
        let line = self.stmt.eqp.open_subquery("LIST", sel);
        let info = self.compile_select(sel, crate::sql::model::query::Dest::EphemIndex(cur));
        self.stmt.eqp.close_subquery(line, info.as_ref().is_ok_and(|i| i.correlated));
        let info = info?;
        if info.n_columns != 1 {
            return Err(Error::sql(format!("sub-select returns {} columns - expected 1", info.n_columns)));
        }
        self.finish_once(once, info.correlated);
        let aff = comparison_affinity(column_affinity, info.first_affinity);
        let at = self.frame.ephem_records.remove(&cur).unwrap_or_default();
        if aff != 0 {
            let letter = (aff as u8 as char).to_string();
            for at in at {
                self.b.insns[at].p4 = P4::affinity(letter.clone());
            }
        }
        Ok(cur)
    }

    /// The ephemeral index of the rows `(a, b) IN (sel)` hands a virtual
    /// table slice by slice (`width` columns), filled once unless the
    /// subquery is correlated.
    pub(in crate::sql::codegen) fn in_select_rows(&mut self, sel: &ast::Select<'_>, width: usize) -> Result<i32> {
        let cur = self.b.cursor();
        let once = self.once_placeholder();
        let fields =
            (0..width).map(|_| crate::value::record::KeyField { collation: crate::value::collation::Collation::binary(), descending: false }).collect();
        self.b.add4(Opcode::OpenEphemeral, cur, width as i32, 0, P4::KeyInfo(Arc::new(crate::value::record::KeyInfo { fields })), 0);
        self.authorize_in_subquery(sel)?;
        let line = self.stmt.eqp.open_subquery("LIST", sel);
        let info = self.compile_select(sel, crate::sql::model::query::Dest::EphemIndex(cur));
        self.stmt.eqp.close_subquery(line, info.as_ref().is_ok_and(|i| i.correlated));
        let info = info?;
        if info.n_columns != width {
            return Err(Error::sql(format!("sub-select returns {} columns - expected {width}", info.n_columns)));
        }
        self.finish_once(once, info.correlated);
        Ok(cur)
    }

    pub(super) fn in_select(&mut self, lhs: &Expr<'_>, not: bool, sel: &ast::Select<'_>, target: i32) -> Result<()> {
        if may_be_row(lhs) && self.row_width_of(lhs)? > 1 {
            return self.in_select_row(lhs, not, sel, target);
        }
        let cur = self.b.cursor();
        let once = self.once_placeholder();
        let open = self.b.add4(
            Opcode::OpenEphemeral,
            cur,
            1,
            0,
            P4::KeyInfo(std::sync::Arc::new(crate::value::record::KeyInfo {
                fields: vec![crate::value::record::KeyField { collation: crate::value::collation::Collation::binary(), descending: false }],
            })),
            0,
        );
        let bloom = self.bloom_start(sel, cur);
        let start = self.b.here();
        self.authorize_in_subquery(sel)?;
        let line = self.stmt.eqp.open_subquery("LIST", sel);
        let info = self.compile_select(sel, crate::sql::model::query::Dest::EphemIndex(cur));
        // Values are matched under the comparison's collation: the left
        // side's when it has one, else the subquery column's.
        let coll_name = match &info {
            Ok(i) => self.expr_collation(lhs).map(|(n, _)| n).or_else(|| i.collations.first().cloned().flatten()),
            Err(_) => None,
        };
        // (SQLite makes no filter for a set under another collation.)
        let binary = coll_name.as_deref().is_none_or(|n| n.eq_ci("BINARY"));
        let correlated = info.as_ref().is_ok_and(|i| i.correlated);
        let bloom = self.bloom_keep(bloom, cur, start, correlated || !binary, &line);
        self.stmt.eqp.close_subquery(line, correlated);
        let info = info?;
        if info.n_columns != 1 {
            return Err(Error::sql(format!("sub-select returns {} columns - expected 1", info.n_columns)));
        }
        if let Some(name) = coll_name {
            let collation = self.collation(&name)?;
            self.b.insns[open].p4 = P4::KeyInfo(std::sync::Arc::new(crate::value::record::KeyInfo {
                fields: vec![crate::value::record::KeyField { collation, descending: false }],
            }));
        }
        self.finish_once(once, info.correlated);
        let x = self.expr_new(lhs)?;
        let aff = comparison_affinity(self.expr_affinity(lhs), info.first_affinity);
        if aff != 0 {
            let letter = (aff as u8 as char).to_string();
            for at in self.frame.ephem_records.remove(&cur).unwrap_or_default().into_iter().chain(bloom.iter().flat_map(|b| b.1.iter().copied())) {
                self.b.insns[at].p4 = P4::affinity(letter.clone());
            }
            self.b.add4(Opcode::Affinity, x, 1, 0, P4::affinity(letter), 0);
        }
        let found = self.b.label();
        let is_false = self.b.label();
        let null_result = self.b.label();
        let done = self.b.label();
        let t = self.b.reg();
        let nn = self.b.label();
        self.b.add(Opcode::NotNull, x, nn, 0);
        self.b.add(Opcode::Rewind, cur, is_false, 0);
        self.b.add(Opcode::Goto, 0, null_result, 0);
        self.b.bind(nn);
        self.probe_with_filter(bloom.map(|b| b.0), cur, found, x, 1);
        self.b.add(Opcode::Rewind, cur, is_false, 0);
        self.b.add(Opcode::Column, cur, 0, t);
        self.b.add(Opcode::NotNull, t, is_false, 0);
        self.in_outcome(InLabels { null_result, is_false, found, done }, not, target);
        Ok(())
    }

    /// `(a, b, ...) IN (SELECT x, y, ...)`: true when a row matches every
    /// field; false when every row differs from the left side in a field
    /// where neither is NULL; NULL otherwise (a NULL left the outcome open).
    pub(super) fn in_select_row(&mut self, lhs: &Expr<'_>, not: bool, sel: &ast::Select<'_>, target: i32) -> Result<()> {
        let n = self.row_width_of(lhs)?;
        let cur = self.b.cursor();
        let once = self.once_placeholder();
        let fields = (0..n).map(|_| crate::value::record::KeyField { collation: crate::value::collation::Collation::binary(), descending: false }).collect();
        self.b.add4(Opcode::OpenEphemeral, cur, n as i32, 0, P4::KeyInfo(std::sync::Arc::new(crate::value::record::KeyInfo { fields })), 0);
        let bloom = self.bloom_start(sel, cur);
        let start = self.b.here();
        self.authorize_in_subquery(sel)?;
        let line = self.stmt.eqp.open_subquery("LIST", sel);
        let info = self.compile_select(sel, crate::sql::model::query::Dest::EphemIndex(cur));
        let correlated = info.as_ref().is_ok_and(|i| i.correlated);
        let bloom = self.bloom_keep(bloom, cur, start, correlated, &line);
        self.stmt.eqp.close_subquery(line, correlated);
        let info = info?;
        if info.n_columns != n {
            return Err(Error::sql(format!("sub-select returns {} columns - expected {n}", info.n_columns)));
        }
        self.finish_once(once, info.correlated);
        // The left side's fields, in consecutive registers from `x`.
        let mut x = 0;
        let mut traits = Vec::with_capacity(n);
        for (i, f) in self.eval_row(lhs)?.into_iter().enumerate() {
            match f {
                crate::sql::codegen::expr::row_value::RowField::Value { reg, traits: t } => {
                    if i == 0 {
                        x = reg;
                    }
                    traits.push(t);
                }
                crate::sql::codegen::expr::row_value::RowField::Row(_) => return Err(crate::sql::codegen::expr::row_value::misused()),
            }
        }
        let affs: String = traits
            .iter()
            .map(|t| {
                let a = t.affinity.map_or('A', |a| a.letter());
                if matches!(a, 'C' | 'D' | 'E') {
                    a
                } else {
                    'A'
                }
            })
            .collect();
        if affs.chars().any(|c| c != 'A') {
            for at in self.frame.ephem_records.remove(&cur).unwrap_or_default().into_iter().chain(bloom.iter().flat_map(|b| b.1.iter().copied())) {
                self.b.insns[at].p4 = P4::affinity(affs.clone());
            }
            self.b.add4(Opcode::Affinity, x, n as i32, 0, P4::affinity(affs), 0);
        }
        let found = self.b.label();
        let is_false = self.b.label();
        let null_result = self.b.label();
        let done = self.b.label();
        let scan = self.b.label();
        for i in 0..n as i32 {
            self.b.add(Opcode::IsNull, x + i, scan, 0);
        }
        self.probe_with_filter(bloom.map(|b| b.0), cur, found, x, n);
        // No exact match: a row counts against NULL only if no field pair
        // is definitely different.
        self.b.bind(scan);
        self.b.add(Opcode::Rewind, cur, is_false, 0);
        let top = self.b.here() as i32;
        let next = self.b.label();
        let t = self.b.reg();
        let eq = self.b.reg();
        for (i, ft) in traits.iter().enumerate() {
            self.b.add(Opcode::Column, cur, i as i32, t);
            self.compare_registers(Opcode::Eq, false, ft, ft, x + i as i32, t, eq)?;
            // 0: this row differs for sure.
            self.b.add(Opcode::IfNot, eq, next, 0);
        }
        self.b.add(Opcode::Goto, 0, null_result, 0);
        self.b.bind(next);
        self.b.add(Opcode::Next, cur, top, 0);
        self.b.add(Opcode::Goto, 0, is_false, 0);
        self.in_outcome(InLabels { null_result, is_false, found, done }, not, target);
        Ok(())
    }

    /// Start the Bloom filter of an IN subquery's temporary index `cur`
    /// (SQLite's, made while the index is filled): its register, emptied
    /// each time the index is filled. Not for a subquery with ORDER BY,
    /// whose rows SQLite sends from its sorter without one.
    fn bloom_start(&mut self, sel: &ast::Select<'_>, cur: i32) -> Option<i32> {
        if sel.order_by.is_some() {
            return None;
        }
        let r = self.b.reg();
        self.b.add(Opcode::Null, 0, r, 0);
        self.frame.bloom_adds.insert(cur, (r, Vec::new()));
        Some(r)
    }

    /// After the subquery filling `cur` is compiled (from address
    /// `start`): the filter register and its `FilterAdd`s, when every row
    /// inserted also went into the filter, unless `refused` (as SQLite,
    /// no filter for a correlated subquery, run for each row); otherwise
    /// the `FilterAdd`s are dropped and so are their plan lines.
    fn bloom_keep(&mut self, bloom: Option<i32>, cur: i32, start: usize, refused: bool, line: &SubqueryLine) -> Option<(i32, Vec<usize>)> {
        let bloom = bloom?;
        let (_, adds) = self.frame.bloom_adds.remove(&cur).unwrap_or_default();
        let adds: Vec<usize> = adds.into_iter().filter(|&a| self.b.insns.get(a).is_some_and(|i| i.opcode == Opcode::FilterAdd && i.p1 == bloom)).collect();
        let inserts = self.b.insns[start..].iter().filter(|i| i.opcode == Opcode::IdxInsert && i.p1 == cur).count();
        if !refused && !adds.is_empty() && adds.len() == inserts {
            return Some((bloom, adds));
        }
        for &a in &adds {
            self.b.insns[a].opcode = Opcode::Noop;
        }
        self.stmt.eqp.drop_children(line, "CREATE BLOOM FILTER");
        None
    }

    /// Probe `cur` for the `n`-register key at `x`, jumping to `found`;
    /// with a Bloom filter, a key it surely lacks skips the probe.
    fn probe_with_filter(&mut self, bloom: Option<i32>, cur: i32, found: i32, x: i32, n: usize) {
        let miss = self.b.label();
        if let Some(f) = bloom {
            self.b.add4(Opcode::Filter, f, miss, x, P4::Int64(n as i64), 0);
        }
        self.b.add4(Opcode::Found, cur, found, x, P4::Int64(n as i64), 0);
        self.b.bind(miss);
    }

    /// The end of an IN test: each label sets `target` to its outcome
    /// (NULL, false or true, reversed by NOT IN).
    pub(super) fn in_outcome(&mut self, l: InLabels, not: bool, target: i32) {
        self.b.bind(l.null_result);
        self.b.add(Opcode::Null, 0, target, 0);
        self.b.add(Opcode::Goto, 0, l.done, 0);
        self.b.bind(l.is_false);
        self.b.add(Opcode::Integer, not as i32, target, 0);
        self.b.add(Opcode::Goto, 0, l.done, 0);
        self.b.bind(l.found);
        self.b.add(Opcode::Integer, !not as i32, target, 0);
        self.b.bind(l.done);
    }

    pub(super) fn exists(&mut self, sel: &ast::Select<'_>, target: i32) -> Result<()> {
        let r = self.b.reg();
        let once = self.once_placeholder();
        self.b.add(Opcode::Integer, 0, r, 0);
        let done = self.b.label();
        self.authorize_subquery(sel, true)?;
        let line = self.stmt.eqp.open_subquery("SCALAR", sel);
        let info = self.compile_select(sel, crate::sql::model::query::Dest::Exists { reg: r, done });
        self.stmt.eqp.close_subquery(line, info.as_ref().is_ok_and(|i| i.correlated));
        let info = info?;
        self.b.bind(done);
        self.finish_once(once, info.correlated);
        self.b.add(Opcode::SCopy, r, target, 0);
        Ok(())
    }
}

impl Compiler<'_> {
    pub(super) fn scalar_subquery(&mut self, sel: &ast::Select<'_>, target: i32) -> Result<()> {
        // Its own expressions are not operands of the comparison.
        let saved = std::mem::replace(&mut self.frame.comparing, false);
        let r = self.scalar_subquery_body(sel, target, saved);
        self.frame.comparing = saved;
        r
    }

    pub(super) fn scalar_subquery_body(&mut self, sel: &ast::Select<'_>, target: i32, comparing: bool) -> Result<()> {
        let r = self.b.reg();
        let once = self.once_placeholder();
        self.b.add(Opcode::Null, 0, r, 0);
        let done = self.b.label();
        self.authorize_subquery(sel, false)?;
        let line = self.stmt.eqp.open_subquery("SCALAR", sel);
        let info = self.compile_select(sel, crate::sql::model::query::Dest::Scalar { reg: r, done });
        self.stmt.eqp.close_subquery(line, info.as_ref().is_ok_and(|i| i.correlated));
        let info = info?;
        self.select.subquery_affinity.insert(sel as *const ast::Select<'_> as usize, info.first_affinity);
        let column = (info.decltypes.first().cloned().flatten(), info.origins.first().cloned().flatten());
        self.naming.subquery_column.insert(sel as *const ast::Select<'_> as usize, column);
        if info.n_columns != 1 {
            // Compared with a single value, it is a row value of the wrong size.
            if comparing {
                return Err(Error::sql("row value misused"));
            }
            return Err(Error::sql(format!("sub-select returns {} columns - expected 1", info.n_columns)));
        }
        self.b.bind(done);
        self.finish_once(once, info.correlated);
        self.b.add(Opcode::SCopy, r, target, 0);
        Ok(())
    }
}

/// Where an IN test's outcomes are emitted (see `Compiler::in_outcome`).
pub(super) struct InLabels {
    null_result: i32,
    is_false: i32,
    found: i32,
    done: i32,
}

/// A numeric, string or blob literal: an IN-list item that is never NULL.
fn is_non_null_literal(e: &Expr<'_>) -> bool {
    matches!(e, Expr::Literal(ast::Literal::Numeric(_) | ast::Literal::String(_) | ast::Literal::Blob(_)))
}
