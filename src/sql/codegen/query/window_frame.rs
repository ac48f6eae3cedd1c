//! RANGE and GROUPS window frames with `<expr> PRECEDING/FOLLOWING`
//! bounds, for aggregate window functions.
//!
//! Each row's frame is found by scanning its partition in sorted order
//! and keeping the rows whose position lies between the bounds. Frames
//! only move forwards as the current row does: a row's scan starts at the
//! first row that passed the previous row's start bound (with its peer
//! group number, for GROUPS), and stops at the first row past the end
//! bound, so a frame of a few rows costs a few rows, not a partition.
//! The position of a row is, for RANGE, the value of the single ORDER BY
//! expression (negated for DESC, so that "preceding" always means
//! "smaller"), and for GROUPS the 1-based number of its peer group in the
//! partition. Under RANGE, NULL values form their own peer group, sorted
//! first for ASC and last for DESC; an offset bound of a row whose value
//! is NULL stops at the edge of that group. EXCLUDE clauses other than
//! NO OTHERS. ROWS frames with an EXCLUDE clause take this path too, the
//! position of a row then being its place in the sorted partition, and
//! so do RANGE frames with an EXCLUDE clause but no offset (as GROUPS,
//! which frames them the same). EXCLUDE then drops the current row, its
//! peers, or its peers but not itself, from whatever the bounds keep.

use crate::error::{Result, SQLITE_ERROR};
use crate::sql::codegen::Compiler;
use crate::sql::model::expr_shape::walk;
use crate::util::ascii::AsciiLower;
use crate::value::record::KeyInfo;
use crate::vdbe::func::FuncDef;
use crate::vdbe::program::{Opcode, P4};
use sqlite3_parser::ast::Expr;
use std::sync::Arc;

/// One end of a RANGE/GROUPS frame.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Bound {
    Unbounded,
    Current,
    Preceding,
    Following,
}

/// The EXCLUDE clause of a frame.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Exclude {
    NoOthers,
    CurrentRow,
    Group,
    Ties,
}

/// A RANGE or GROUPS frame with at least one offset bound.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct ValueFrame {
    /// Positions are peer-group numbers (GROUPS).
    pub groups: bool,
    /// Positions are row numbers (ROWS).
    pub rows: bool,
    pub exclude: Exclude,
    pub descending: bool,
    /// RANGE: where NULL order values sort (first: before the others).
    pub nulls_first: bool,
    /// RANGE: the order value is preceded by an "is NULL" sort key.
    pub null_key: bool,
    pub start: Bound,
    pub end: Bound,
}

/// Where the sorted rows and the state of the walk are, for one call.
pub struct FrameScan<'r> {
    pub trail: i32,
    pub peek: i32,
    /// Rowid where the scan starts: the partition's first row, then the
    /// first row of the last frame (reset per partition by the caller).
    pub scan_from: i32,
    /// The peer-group number of the `scan_from` row (1 at the partition
    /// start).
    pub scan_group: i32,
    /// Peer-group number of the trailing row in its partition (1-based).
    pub group_no: i32,
    pub np: usize,
    pub nk: usize,
    pub na: usize,
    /// The last argument is a FILTER clause's value.
    pub filtered: bool,
    pub args: i32,
    /// The argument expressions (for their subtypes).
    pub arg_exprs: &'r [&'r Expr<'r>],
    pub key_info: &'r Arc<KeyInfo>,
}

impl Compiler<'_> {
    /// Evaluate the offsets of `frame` once, into registers, checking that
    /// they are non-negative numbers (integers for GROUPS).
    pub(in crate::sql::codegen) fn frame_offsets(
        &mut self,
        frame: &ValueFrame,
        offsets: (Option<FrameOffset<'_, '_>>, Option<FrameOffset<'_, '_>>),
    ) -> Result<(i32, i32)> {
        let mut out = [0, 0];
        for (i, (e, which)) in [(offsets.0, "starting"), (offsets.1, "ending")].into_iter().enumerate() {
            let Some(e) = e else { continue };
            let r = self.b.reg();
            match e {
                FrameOffset::Expr(e) => self.expr(e, r)?,
                FrameOffset::Null => {
                    self.b.add(Opcode::Null, 0, r, 0);
                }
            }
            let kind = if frame.groups || frame.rows { "integer" } else { "number" };
            let msg = format!("frame {which} offset must be a non-negative {kind}");
            let bad = self.b.label();
            let ok = self.b.label();
            self.b.add(Opcode::IsNull, r, bad, 0);
            if frame.groups || frame.rows {
                self.b.add(Opcode::MustBeInt, r, bad, 0);
            } else {
                // A number, or text that reads as one; other text and
                // blobs (which sort after every number) are refused. A
                // number keeps its type (a real `1.0` stays real: the
                // frame arithmetic is then done in floating point, as in
                // SQLite). Text is judged by the number it reads as, but
                // kept as text: the frame arithmetic converts it as
                // SQLite's does (`'2.0'` is then real).
                let text = self.b.reg();
                let checked = self.b.reg();
                let number = self.b.label();
                self.b.add4(Opcode::String8, 0, text, 0, P4::bytes(Vec::new()), 0);
                self.b.add(Opcode::Copy, r, checked, 0);
                self.b.add4(Opcode::Lt, text, number, checked, P4::None, 0);
                self.b.add4(Opcode::Affinity, checked, 1, 0, P4::affinity(crate::value::affinity::Affinity::Numeric.letter().to_string()), 0);
                self.b.add4(Opcode::Ge, text, bad, checked, P4::None, 0);
                self.b.bind(number);
                let zero = self.b.reg();
                self.b.add(Opcode::Integer, 0, zero, 0);
                self.b.add4(Opcode::Ge, zero, ok, checked, P4::None, 0);
                self.b.add(Opcode::Goto, 0, bad, 0);
            }
            let zero = self.b.reg();
            self.b.add(Opcode::Integer, 0, zero, 0);
            self.b.add4(Opcode::Ge, zero, ok, r, P4::None, 0);
            self.b.bind(bad);
            self.b.add4(Opcode::Halt, SQLITE_ERROR, 0, 0, P4::text(msg), 0);
            self.b.bind(ok);
            out[i] = r;
        }
        Ok((out[0], out[1]))
    }

    /// Step a fresh accumulator over the trailing row's frame and leave
    /// the aggregate's value in `value`.
    pub(in crate::sql::codegen) fn emit_value_frame(
        &mut self,
        s: &FrameScan<'_>,
        frame: &ValueFrame,
        offs: (i32, i32),
        def: &Arc<FuncDef>,
        value: i32,
    ) -> Result<()> {
        let acc = self.b.reg();
        self.b.add(Opcode::Null, 0, acc, 0);
        let fdone = self.b.label();
        self.b.add(Opcode::SeekRowid, s.peek, fdone, s.scan_from);
        // Peer groups are counted from the scan's first row (whose number
        // is known); the first row seen starts a group.
        let (g, first, found) = (self.b.reg(), self.b.reg(), self.b.reg());
        let one = self.b.reg();
        self.b.add(Opcode::Integer, 1, one, 0);
        self.b.add(Opcode::Subtract, one, s.scan_group, g);
        self.b.add(Opcode::Integer, 1, first, 0);
        self.b.add(Opcode::Integer, 0, found, 0);
        // (Whether the scan has met a row after the current peers.)
        let past_peers = self.b.reg();
        self.b.add(Opcode::Integer, 0, past_peers, 0);
        let nk = s.nk.max(1);
        let pkeys = self.b.regs(nk);
        let prev = self.b.regs(nk);
        let top = self.b.here();
        if s.np > 0 {
            let pk = self.b.regs(s.np);
            let tk = self.b.regs(s.np);
            for k in 0..s.np {
                self.b.add(Opcode::Column, s.peek, k as i32, pk + k as i32);
                self.b.add(Opcode::Column, s.trail, k as i32, tk + k as i32);
            }
            let same = self.b.label();
            let pki = Arc::new(KeyInfo { fields: s.key_info.fields[..s.np].to_vec() });
            self.b.add4(Opcode::Compare, pk, tk, s.np as i32, P4::KeyInfo(pki), 0);
            self.b.add(Opcode::Jump, fdone, same, fdone);
            self.b.bind(same);
        }
        let x = self.b.reg();
        let v = self.b.reg();
        let skip = self.b.label();
        let include = self.b.label();
        if frame.rows {
            self.b.add(Opcode::Rowid, s.peek, x, 0);
            self.b.add(Opcode::Rowid, s.trail, v, 0);
        } else if frame.groups {
            // Count peer groups as the scan goes.
            for k in 0..s.nk {
                self.b.add(Opcode::Column, s.peek, k as i32, pkeys + k as i32);
            }
            let bump = self.b.label();
            let counted = self.b.label();
            self.b.add(Opcode::If, first, bump, 0);
            if s.nk > 0 {
                self.b.add4(Opcode::Compare, pkeys, prev, s.nk as i32, P4::KeyInfo(s.key_info.clone()), 0);
                self.b.add(Opcode::Jump, bump, counted, bump);
            } else {
                self.b.add(Opcode::Goto, 0, counted, 0);
            }
            self.b.bind(bump);
            self.b.add(Opcode::Add, one, g, g);
            if s.nk > 0 {
                self.b.add(Opcode::Copy, pkeys, prev, s.nk as i32 - 1);
            }
            self.b.bind(counted);
            self.b.add(Opcode::Integer, 0, first, 0);
            self.b.add(Opcode::SCopy, g, x, 0);
            self.b.add(Opcode::SCopy, s.group_no, v, 0);
        } else {
            let value_col = (s.np + frame.null_key as usize) as i32;
            self.b.add(Opcode::Column, s.peek, value_col, x);
            self.b.add(Opcode::Column, s.trail, value_col, v);
            let v_null = self.b.label();
            let x_null = self.b.label();
            self.b.add(Opcode::IsNull, v, v_null, 0);
            self.b.add(Opcode::IsNull, x, x_null, 0);
            let both = self.b.label();
            self.b.add(Opcode::Goto, 0, both, 0);
            // x NULL, v not: x lies before v (NULLs first) or after it.
            self.b.bind(x_null);
            let x_in = if frame.nulls_first { frame.start == Bound::Unbounded } else { frame.end == Bound::Unbounded };
            self.b.add(Opcode::Goto, 0, if x_in { include } else { skip }, 0);
            // v NULL: its peers are the NULLs; the others lie after it
            // (NULLs first) or before it.
            self.b.bind(v_null);
            self.b.add(Opcode::IsNull, x, include, 0);
            let other_in = if frame.nulls_first { frame.end == Bound::Unbounded } else { frame.start == Bound::Unbounded };
            self.b.add(Opcode::Goto, 0, if other_in { include } else { skip }, 0);
            self.b.bind(both);
        }
        // Both positions known: start <= x <= end in window order (under
        // DESC, "preceding" values are the larger ones). A text or blob
        // RANGE value takes no offset: its bounds are the value itself, as
        // in SQLite.
        let is_range = !frame.groups && !frame.rows;
        // RANGE values compare under the ORDER BY term's collation, as
        // they are sorted (text values are framed by their peers).
        let cmp = if is_range {
            let at = s.np + frame.null_key as usize;
            s.key_info.fields.get(at).map_or(P4::None, |f| P4::coll(f.collation.clone()))
        } else {
            P4::None
        };
        let empty = self.b.reg();
        if is_range {
            self.b.add4(Opcode::String8, 0, empty, 0, P4::bytes(Vec::new()), 0);
        }
        for (bound, off, is_start) in [(frame.start, offs.0, true), (frame.end, offs.1, false)] {
            // A row before the start is skipped; past the end, every later
            // row is too.
            let out = if is_start { skip } else { fdone };
            // A RANGE offset bound is tested as SQLite tests it, so that
            // floating-point rounding (an integer beyond 2^53 plus a real
            // offset) decides the rows at the edge the same way: the
            // value moved by the offset is the candidate row's for a
            // PRECEDING bound and the current row's for a FOLLOWING one,
            // always by `+ offset` under ASC and `- offset` under DESC,
            // and where the offset only widens the frame (a PRECEDING
            // start, a FOLLOWING end) a candidate already on the right
            // side of the current value passes before any arithmetic.
            if is_range && matches!(bound, Bound::Preceding | Bound::Following) {
                let preceding = bound == Bound::Preceding;
                let (moving, other) = if preceding { (x, v) } else { (v, x) };
                // The test is `moved >= other` (ASC) for a widening bound,
                // `moved <= other` for the other kind; both flip under DESC.
                let widening = preceding == is_start;
                let at_least = widening != frame.descending;
                if !is_start && preceding {
                    // Rounding can put a row after the current one's peers
                    // inside a PRECEDING end. SQLite's frame end then
                    // reaches at most the first such row (the one just
                    // read when the current peers' frames are computed),
                    // and none when the start is PRECEDING too.
                    let within = self.b.label();
                    self.b.add4(if frame.descending { Opcode::Ge } else { Opcode::Le }, v, within, x, cmp.clone(), 0);
                    if frame.start == Bound::Preceding {
                        self.b.add(Opcode::Goto, 0, out, 0);
                    } else {
                        self.b.add(Opcode::If, past_peers, out, 0);
                        self.b.add(Opcode::Integer, 1, past_peers, 0);
                    }
                    self.b.bind(within);
                }
                let passed = self.b.label();
                let moved = self.b.reg();
                let done = self.b.label();
                self.b.add(Opcode::SCopy, moving, moved, 0);
                // (A text or blob value takes no offset, and is compared
                // under the collation only.)
                self.b.add4(Opcode::Ge, empty, done, moving, P4::None, 0);
                if widening {
                    self.b.add4(if at_least { Opcode::Ge } else { Opcode::Le }, other, passed, moving, P4::None, 0);
                }
                self.b.add(if frame.descending { Opcode::Subtract } else { Opcode::Add }, off, moving, moved);
                self.b.bind(done);
                self.b.add4(if at_least { Opcode::Lt } else { Opcode::Gt }, other, out, moved, cmp.clone(), 0);
                self.b.bind(passed);
                if is_start {
                    self.note_scan_start(s, found, g);
                }
                continue;
            }
            let t = self.b.reg();
            match bound {
                Bound::Unbounded => continue,
                Bound::Current => {
                    self.b.add(Opcode::SCopy, v, t, 0);
                }
                Bound::Preceding | Bound::Following => {
                    // (ROWS and GROUPS positions: integers.)
                    debug_assert!(!is_range);
                    let toward_smaller = (bound == Bound::Preceding) != frame.descending;
                    let op = if toward_smaller { Opcode::Subtract } else { Opcode::Add };
                    self.b.add(op, off, v, t);
                }
            }
            let op = if is_start != frame.descending { Opcode::Lt } else { Opcode::Gt };
            self.b.add4(op, t, out, x, cmp.clone(), 0);
            if is_start {
                self.note_scan_start(s, found, g);
            }
        }
        self.b.bind(include);
        if frame.exclude != Exclude::NoOthers {
            let kept = self.b.label();
            let (pr, tr) = (self.b.reg(), self.b.reg());
            self.b.add(Opcode::Rowid, s.peek, pr, 0);
            self.b.add(Opcode::Rowid, s.trail, tr, 0);
            if frame.exclude == Exclude::CurrentRow {
                self.b.add4(Opcode::Eq, tr, skip, pr, P4::None, 0);
            } else {
                if frame.exclude == Exclude::Ties {
                    let not_self = self.b.label();
                    self.b.add4(Opcode::Ne, tr, not_self, pr, P4::None, 0);
                    self.b.add(Opcode::Goto, 0, kept, 0);
                    self.b.bind(not_self);
                }
                if s.nk > 0 {
                    let (pk, tk) = (self.b.regs(s.nk), self.b.regs(s.nk));
                    for k in 0..s.nk {
                        self.b.add(Opcode::Column, s.peek, k as i32, pk + k as i32);
                        self.b.add(Opcode::Column, s.trail, k as i32, tk + k as i32);
                    }
                    self.b.add4(Opcode::Compare, pk, tk, s.nk as i32, P4::KeyInfo(s.key_info.clone()), 0);
                    self.b.add(Opcode::Jump, kept, skip, kept);
                } else {
                    self.b.add(Opcode::Goto, 0, skip, 0);
                }
            }
            self.b.bind(kept);
        }
        for k in 0..s.na {
            self.b.add(Opcode::Column, s.peek, (s.nk + 1 + k) as i32, s.args + k as i32);
        }
        if def.name.eq_ci("nth_value") {
            // N is the current row's, not the frame row's.
            self.b.add(Opcode::Column, s.trail, (s.nk + 2) as i32, s.args + 1);
        }
        self.restore_json_subtypes(s.arg_exprs, s.args)?;
        if s.filtered {
            self.b.add(Opcode::IfNot, s.args + s.na as i32 - 1, skip, 1);
        }
        self.b.add4(Opcode::AggStep, 0, s.args, acc, P4::Func(def.clone()), (s.na - s.filtered as usize) as u16);
        self.b.bind(skip);
        let next = self.b.label();
        self.b.add(Opcode::Next, s.peek, next, 0);
        self.b.add(Opcode::Goto, 0, fdone, 0);
        self.b.bind(next);
        self.b.add(Opcode::Goto, 0, top as i32, 0);
        self.b.bind(fdone);
        let n_args = (s.na - s.filtered as usize) as i32;
        if def.flags.builtin {
            self.b.add4(Opcode::AggFinal, acc, n_args, 0, P4::Func(def.clone()), 0);
            self.b.add(Opcode::SCopy, acc, value, 0);
        } else {
            // An application's function answers with xValue, as over
            // SQLite's frames; its xFinal only releases the state.
            self.b.add4(Opcode::AggValue, acc, n_args, value, P4::Func(def.clone()), 0);
            self.b.add4(Opcode::AggFinal, acc, n_args, 0, P4::Func(def.clone()), 1);
        }
        Ok(())
    }

    /// The first row past the start bound: the next row's scan starts
    /// there (`found` is set once it is noted).
    fn note_scan_start(&mut self, s: &FrameScan<'_>, found: i32, g: i32) {
        let known = self.b.label();
        self.b.add(Opcode::If, found, known, 0);
        self.b.add(Opcode::Rowid, s.peek, s.scan_from, 0);
        self.b.add(Opcode::SCopy, g, s.scan_group, 0);
        self.b.add(Opcode::Integer, 1, found, 0);
        self.b.bind(known);
    }
}

/// The offset of a `<expr> PRECEDING/FOLLOWING` frame bound: as SQLite
/// parses it, an expression that is not constant (it names a column,
/// calls a function or holds a subquery) stands for NULL, which the
/// frame then refuses when it is first used.
#[derive(Clone, Copy)]
pub enum FrameOffset<'a, 'b> {
    Expr(&'a Expr<'b>),
    Null,
}

impl<'a, 'b> FrameOffset<'a, 'b> {
    pub(super) fn of(e: &'a Expr<'b>) -> Self {
        if is_parse_time_constant(e) {
            FrameOffset::Expr(e)
        } else {
            FrameOffset::Null
        }
    }
}

/// Whether `e` is constant before names are resolved: no column name
/// (TRUE and FALSE are values), function call or subquery.
fn is_parse_time_constant(e: &Expr<'_>) -> bool {
    let mut constant = true;
    walk(e, &mut |x| {
        match x {
            Expr::Id(id) => {
                constant &= id.0.eq_ci("true") || id.0.eq_ci("false");
            }
            Expr::Name(_)
            | Expr::Qualified(..)
            | Expr::DoublyQualified(..)
            | Expr::FunctionCall { .. }
            | Expr::FunctionCallStar { .. }
            | Expr::Subquery(_)
            | Expr::Exists(_)
            | Expr::InSelect { .. }
            | Expr::InTable { .. } => constant = false,
            _ => {}
        }
        constant
    });
    constant
}
