//! # Seeks ahead: IN lists and the inner side of joins
//!
//! `x IN (...)` on a rowid runs a loop over the list's ephemeral table:
//! `Column eph 0 rK` then `SeekRowid cur rK` (on an indexed column,
//! `SeekGE idx rK 1`, or `SeekLE` run backwards: the same, in the index). On slow storage each seek
//! waits for its descent, one key after another. When such a seek has to
//! wait (an async connection: the instruction answered `Pending`), the
//! keys the loop will seek next are already known (the ephemeral rows
//! after the current one, or before it in a loop run backwards), so their descents are requested at once
//! ([`crate::btree::Btree::prefetch_rowid`]): the reads of up to
//! [`WINDOW`] keys are in flight together, and the following seeks find
//! their pages cached or arriving.
//!
//! The inner side of a join (`... JOIN b ON b.id = f(a.x)`) seeks a key
//! computed from the outer loop's row. When such a seek waits, the rows
//! the outer cursor will visit next are read where they are cached (a
//! scratch cursor stepping forward: a leaf it lacks is requested, and the
//! run stops there), and the instructions from the loop's head to the
//! seek are evaluated for each of them on a scratch copy of the registers
//! ([`run_ahead`]): integer arithmetic, comparisons (a row they skip is
//! skipped, a jump out of the loop ends the run), `Rowid`/`Column` of the
//! loop's row, and the seeks of inner tables between (done by scratch
//! cursors on cached pages: one that has to wait requests its page and
//! ends that row's evaluation). The seek's key for each of up to
//! [`WINDOW`] rows then has its descent requested. A 3-table join thus
//! gets the second table's pages of the next rows requested at the second
//! table's wait, and the third table's at the third's, once the second's
//! arrived. Anything else in the way (a function, a subquery, another
//! loop) ends the run: nothing is requested.
//!
//! Invariants: called only after a seek answered `Pending` (cached data
//! and synchronous backends never get here: no extra reads, no extra
//! CPU); it changes no register and no cursor position, only submits
//! reads; a pattern it does not recognise requests nothing.

use super::arith::integer_arithmetic;
use super::reg;
use crate::btree::{Cursor, SeekOp, SeekResult};
use crate::value::numeric::must_be_int;
use crate::value::record::compare_record_prefix;
use crate::value::Value;
use crate::vdbe::cursor::VmCursor;
use crate::vdbe::ephemeral_rows::{RowPos, SortedRows};
use crate::vdbe::program::{cmp_flags, Insn, Opcode, P4};
use crate::vdbe::{ConnState, Vm};
use std::cmp::Ordering;
use std::task::Poll;

/// Most keys after the current one whose descents are requested (as the
/// B-tree's read-ahead window for scans).
pub const WINDOW: usize = crate::btree::READ_AHEAD_WINDOW as usize;

/// The seek at `vm.pc` (`SeekRowid`, `SeekGE/GT/LE/LT`) had to wait: when
/// its key was just read from an ephemeral table (an IN list), request the
/// descents of the next keys of that table; a `SeekRowid` keyed otherwise
/// inside a loop may be the inner side of a join ([`run_ahead`]).
pub(super) fn after_wait(vm: &Vm, insns: &[Insn], env: &mut ConnState) {
    let pc = vm.pc;
    let (Some(seek), Some(load)) = (insns.get(pc), pc.checked_sub(1).and_then(|i| insns.get(i))) else { return };
    let from_list = load.opcode == Opcode::Column && load.p3 == seek.p3 && matches!(vm.cursors.get(load.p1 as usize), Some(Some(VmCursor::Ephemeral(_))));
    if seek.opcode != Opcode::SeekRowid {
        // An index seek keyed by one IN-list value (`SeekGE idx rK 1`).
        // (Rowid ranges by SeekGE/LE on a table are not IN lists.)
        if from_list && matches!(seek.p4, P4::Int64(1)) {
            in_list(vm, insns, env, pc, load, seek);
        }
        return;
    }
    if !from_list {
        run_ahead(vm, insns, env);
        return;
    }
    in_list(vm, insns, env, pc, load, seek);
}

/// The keys of the IN list after the current one (see the module doc):
/// request their descents in the tree `seek` looks in.
fn in_list(vm: &Vm, insns: &[Insn], env: &mut ConnState, pc: usize, load: &Insn, seek: &Insn) {
    let Some(Some(VmCursor::Ephemeral(e))) = vm.cursors.get(load.p1 as usize) else { return };
    let Some(Some(VmCursor::Btree(c))) = vm.cursors.get(seek.p1 as usize) else { return };
    let Some(mut at) = e.pos else { return };
    let col = load.p2 as usize;
    // The loop goes backwards (`ORDER BY ... DESC`) when it ends in `Prev`.
    let backwards =
        insns.iter().skip(pc + 1).find(|i| matches!(i.opcode, Opcode::Next | Opcode::Prev) && i.p1 == load.p1).is_some_and(|i| i.opcode == Opcode::Prev);
    let root = c.cursor.root();
    let Some(db) = env.dbs.get_mut(c.db) else { return };
    let index = c.cursor.key_info();
    if index.is_some() != (seek.opcode != Opcode::SeekRowid) {
        return;
    }
    for _ in 0..WINDOW {
        let Some(next) = (if backwards { e.rows.peek_prev(at) } else { e.rows.peek_next(at) }) else { break };
        at = next;
        let Some(v) = e.rows.get(at).and_then(|(_, r)| r.get(col)) else { continue };
        match index {
            // (A key that is not an integer finds no row: the seek jumps.)
            None => {
                if let Some(k) = must_be_int(v) {
                    db.btree.prefetch_rowid(root, k);
                }
            }
            // A scratch cursor's seek descends the cached levels and
            // requests the first page it lacks.
            Some(ki) => {
                if !v.is_null() {
                    let op = if matches!(seek.opcode, Opcode::SeekLE | Opcode::SeekLT) { SeekOp::Le } else { SeekOp::Ge };
                    let _ = Cursor::new(root, false, Some(ki.clone())).seek_index(&mut db.btree, &[v.as_ref()], op);
                }
            }
        }
    }
}

/// A cursor of the run ahead: the outer loop's row or an inner table's
/// row found by a seek on cached pages.
struct Scratch {
    vm_cursor: i32,
    db: usize,
    cursor: Cursor,
}

/// The outer loop's row in the run ahead: a table's (a scratch cursor
/// stepping forward) or an ephemeral table's (an IN list, a materialized
/// subquery).
enum Outer<'a> {
    Table(Box<Scratch>),
    List { vm_cursor: i32, rows: &'a SortedRows, at: RowPos },
}

impl Outer<'_> {
    fn vm_cursor(&self) -> i32 {
        match self {
            Outer::Table(s) => s.vm_cursor,
            Outer::List { vm_cursor, .. } => *vm_cursor,
        }
    }
}

/// The outer loop's rows after the current one, evaluated up to the seek
/// at `vm.pc` (see the module doc); requests the descents of their keys.
fn run_ahead(vm: &Vm, insns: &[Insn], env: &mut ConnState) {
    let pc = vm.pc;
    let seek = &insns[pc];
    // The innermost loop around the seek over a table or an ephemeral
    // table: the first `Next`/`Prev` after it that jumps back to or before
    // it. (A loop over an index's equal keys, `x IN (...)` on a non-unique
    // index, is evaluated from the loop outside it, for its first entry.)
    let loop_over_rows = |i: &Insn| match vm.cursors.get(i.p1 as usize) {
        Some(Some(VmCursor::Btree(c))) => c.cursor.is_table(),
        Some(Some(VmCursor::Ephemeral(_))) => true,
        _ => false,
    };
    let Some((next_pc, next)) =
        insns.iter().enumerate().skip(pc + 1).find(|(_, i)| matches!(i.opcode, Opcode::Next | Opcode::Prev) && (i.p2 as usize) <= pc && loop_over_rows(i))
    else {
        return;
    };
    let head = next.p2 as usize;
    let driver = next.p1;
    let backwards = next.opcode == Opcode::Prev;
    if driver == seek.p1 {
        return;
    }
    let Some(Some(VmCursor::Btree(target))) = vm.cursors.get(seek.p1 as usize) else { return };
    if !target.cursor.is_table() {
        return;
    }
    let (target_db, target_root) = (target.db, target.cursor.root());
    let mut outer = match vm.cursors.get(driver as usize) {
        Some(Some(VmCursor::Btree(o))) => {
            if backwards || o.null_row || o.eof || !o.cursor.is_valid() || !o.cursor.is_table() {
                return;
            }
            // A scratch cursor on the outer loop's current row.
            let mut s = Scratch { vm_cursor: driver, db: o.db, cursor: Cursor::new(o.cursor.root(), false, None) };
            match s.cursor.seek_rowid(&mut env.dbs[o.db].btree, o.cursor.rowid()) {
                Ok(Poll::Ready(SeekResult::Found)) => Outer::Table(Box::new(s)),
                _ => return,
            }
        }
        Some(Some(VmCursor::Ephemeral(e))) => match e.pos {
            Some(at) if !e.null_row => Outer::List { vm_cursor: driver, rows: &e.rows, at },
            _ => return,
        },
        _ => return,
    };
    let mut keys = [0i64; WINDOW];
    let mut n = 0;
    for _ in 0..WINDOW {
        let moved = match &mut outer {
            Outer::Table(s) => matches!(s.cursor.next(&mut env.dbs[s.db].btree), Ok(Poll::Ready(true))),
            Outer::List { rows, at, .. } => match if backwards { rows.peek_prev(*at) } else { rows.peek_next(*at) } {
                Some(p) => {
                    *at = p;
                    true
                }
                None => false,
            },
        };
        // (At the end, or at a leaf not cached: now requested.)
        if !moved {
            break;
        }
        match evaluate(vm, insns, env, &mut outer, head, pc, next_pc) {
            Eval::Key(k) => {
                keys[n] = k;
                n += 1;
            }
            Eval::Skip => {}
            Eval::Stop => break,
        }
    }
    let bt = &mut env.dbs[target_db].btree;
    for &k in &keys[..n] {
        bt.prefetch_rowid(target_root, k);
    }
}

/// Return the evaluation's outcome when [`continue_at`] gives one.
macro_rules! continue_or_return {
    ($e:expr) => {
        if let Some(e) = $e {
            return e;
        }
    };
}

/// What the evaluation of one outer row gave.
enum Eval {
    /// The seek's key.
    Key(i64),
    /// The row does not reach the seek (a filter skipped it, or an inner
    /// seek has to wait: its page is requested).
    Skip,
    /// End the run (the loop ends, or an instruction not evaluated here).
    Stop,
}

/// A register's value in the run: written by it, or the VM's.
fn get(vm: &Vm, regs: &[(i32, Value)], i: i32) -> Value {
    match regs.iter().rev().find(|(r, _)| *r == i) {
        Some((_, v)) => v.clone(),
        None if i >= 0 && (i as usize) < vm.regs.len() => reg(vm, i).clone(),
        None => Value::Null,
    }
}

/// Evaluate `insns[head..pc]` for the outer row `rows` is on (see the
/// module doc): the key the seek at `pc` would use.
fn evaluate(vm: &Vm, insns: &[Insn], env: &mut ConnState, outer: &mut Outer<'_>, head: usize, pc: usize, next_pc: usize) -> Eval {
    let mut regs: Vec<(i32, Value)> = Vec::new();
    let mut inner: Vec<Scratch> = Vec::new();
    let mut ip = head;
    while ip < pc {
        let insn = &insns[ip];
        let (p1, p2, p3) = (insn.p1, insn.p2, insn.p3);
        let mut jump = None;
        match insn.opcode {
            Opcode::Integer => regs.push((p2, Value::Integer(p1 as i64))),
            Opcode::Int64 => match insn.p4 {
                P4::Int64(i) => regs.push((p2, Value::Integer(i))),
                _ => return Eval::Stop,
            },
            Opcode::Null => {
                for r in p2..=p3.max(p2) {
                    regs.push((r, Value::Null));
                }
            }
            Opcode::SCopy => regs.push((p2, get(vm, &regs, p1))),
            Opcode::Copy => {
                for i in 0..=p3.max(0) {
                    let v = get(vm, &regs, p1 + i);
                    regs.push((p2 + i, v));
                }
            }
            Opcode::Add | Opcode::Subtract | Opcode::Multiply | Opcode::Remainder => {
                match integer_arithmetic(insn.opcode, &get(vm, &regs, p2), &get(vm, &regs, p1)) {
                    Some(v) => regs.push((p3, Value::Integer(v))),
                    None => return Eval::Stop,
                }
            }
            Opcode::MustBeInt => match must_be_int(&get(vm, &regs, p1)) {
                Some(i) => regs.push((p1, Value::Integer(i))),
                None if p2 > 0 => jump = Some(p2 as usize),
                None => return Eval::Stop,
            },
            Opcode::Eq | Opcode::Ne | Opcode::Lt | Opcode::Le | Opcode::Gt | Opcode::Ge => {
                let (Value::Integer(l), Value::Integer(r)) = (get(vm, &regs, p3), get(vm, &regs, p1)) else { return Eval::Stop };
                if insn.p5 & cmp_flags::STOREP2 != 0 {
                    return Eval::Stop;
                }
                let taken = match insn.opcode {
                    Opcode::Eq => l == r,
                    Opcode::Ne => l != r,
                    Opcode::Lt => l < r,
                    Opcode::Le => l <= r,
                    Opcode::Gt => l > r,
                    _ => l >= r,
                };
                if taken {
                    jump = Some(p2 as usize);
                }
            }
            Opcode::IsNull | Opcode::NotNull => {
                if get(vm, &regs, p1).is_null() == (insn.opcode == Opcode::IsNull) {
                    jump = Some(p2 as usize);
                }
            }
            Opcode::Goto => jump = Some(p2 as usize),
            Opcode::Rowid | Opcode::Column => {
                let dst = if insn.opcode == Opcode::Rowid { p2 } else { p3 };
                if let Outer::List { vm_cursor, rows, at } = outer {
                    if *vm_cursor == p1 {
                        let Some((rowid, fields)) = rows.get(*at) else { return Eval::Stop };
                        let v = if insn.opcode == Opcode::Rowid { Value::Integer(*rowid) } else { fields.get(p2 as usize).cloned().unwrap_or(Value::Null) };
                        regs.push((dst, v));
                        continue_or_return!(continue_at(&mut ip, None, pc, next_pc));
                        continue;
                    }
                }
                let c = match outer {
                    Outer::Table(s) if s.vm_cursor == p1 => &mut **s,
                    _ => match inner.iter_mut().find(|s| s.vm_cursor == p1) {
                        Some(s) => s,
                        None => return Eval::Stop,
                    },
                };
                if !c.cursor.is_table() {
                    return Eval::Stop;
                }
                let v = if insn.opcode == Opcode::Rowid {
                    Value::Integer(c.cursor.rowid())
                } else {
                    match c.cursor.column(&mut env.dbs[c.db].btree, p2 as usize) {
                        Ok(Poll::Ready(Some(v))) => v.to_owned(),
                        Ok(Poll::Ready(None)) if matches!(insn.p4, P4::None) => Value::Null,
                        // (An overflow page: requested.)
                        Ok(Poll::Pending) => return Eval::Skip,
                        _ => return Eval::Stop,
                    }
                };
                regs.push((dst, v));
            }
            Opcode::SeekGE | Opcode::SeekGT | Opcode::SeekLE | Opcode::SeekLT => {
                // An index seek by `n` registers (an inner index, or the
                // index an IN list's values are looked up in).
                let (Some(Some(VmCursor::Btree(t))), P4::Int64(nk)) = (vm.cursors.get(p1 as usize), &insn.p4) else { return Eval::Stop };
                let Some(ki) = t.cursor.key_info() else { return Eval::Stop };
                if *nk <= 0 || p1 == outer.vm_cursor() {
                    return Eval::Stop;
                }
                let key: Vec<Value> = (0..*nk as i32).map(|i| get(vm, &regs, p3 + i)).collect();
                let refs: Vec<_> = key.iter().map(|v| v.as_ref()).collect();
                let op = match insn.opcode {
                    Opcode::SeekGE => SeekOp::Ge,
                    Opcode::SeekGT => SeekOp::Gt,
                    Opcode::SeekLE => SeekOp::Le,
                    _ => SeekOp::Lt,
                };
                let mut s = Scratch { vm_cursor: p1, db: t.db, cursor: Cursor::new(t.cursor.root(), false, Some(ki.clone())) };
                match s.cursor.seek_index(&mut env.dbs[t.db].btree, &refs, op) {
                    Ok(Poll::Ready(true)) => {
                        inner.retain(|x| x.vm_cursor != p1);
                        inner.push(s);
                    }
                    Ok(Poll::Ready(false)) => jump = Some(p2 as usize),
                    Ok(Poll::Pending) => return Eval::Skip,
                    Err(_) => return Eval::Stop,
                }
            }
            Opcode::IdxGE | Opcode::IdxGT | Opcode::IdxLE | Opcode::IdxLT => {
                let P4::Int64(nk) = insn.p4 else { return Eval::Stop };
                let Some(c) = inner.iter_mut().find(|s| s.vm_cursor == p1) else { return Eval::Stop };
                let Some(ki) = c.cursor.key_info().cloned() else { return Eval::Stop };
                if nk <= 0 {
                    return Eval::Stop;
                }
                let key: Vec<Value> = (0..nk as i32).map(|i| get(vm, &regs, p3 + i)).collect();
                let refs: Vec<_> = key.iter().map(|v| v.as_ref()).collect();
                let o = match c.cursor.payload(&mut env.dbs[c.db].btree) {
                    Ok(Poll::Ready(rec)) => match compare_record_prefix(rec, &refs, &ki) {
                        Ok(o) => o,
                        Err(_) => return Eval::Stop,
                    },
                    Ok(Poll::Pending) => return Eval::Skip,
                    Err(_) => return Eval::Stop,
                };
                let take = match insn.opcode {
                    Opcode::IdxGE => o != Ordering::Less,
                    Opcode::IdxGT => o == Ordering::Greater,
                    Opcode::IdxLE => o != Ordering::Greater,
                    _ => o == Ordering::Less,
                };
                if take {
                    jump = Some(p2 as usize);
                }
            }
            Opcode::IdxRowid => {
                let Some(c) = inner.iter().find(|s| s.vm_cursor == p1) else { return Eval::Stop };
                match c.cursor.index_key_rowid() {
                    Some(r) => regs.push((p2, Value::Integer(r))),
                    None => return Eval::Stop,
                }
            }
            Opcode::SeekRowid => {
                let Some(Some(VmCursor::Btree(t))) = vm.cursors.get(p1 as usize) else { return Eval::Stop };
                if p1 == outer.vm_cursor() {
                    return Eval::Stop;
                }
                match must_be_int(&get(vm, &regs, p3)) {
                    None => jump = Some(p2 as usize),
                    Some(key) => {
                        let mut s = Scratch { vm_cursor: p1, db: t.db, cursor: Cursor::new(t.cursor.root(), false, None) };
                        match s.cursor.seek_rowid(&mut env.dbs[t.db].btree, key) {
                            Ok(Poll::Ready(SeekResult::Found)) => {
                                inner.retain(|x| x.vm_cursor != p1);
                                inner.push(s);
                            }
                            Ok(Poll::Ready(_)) => jump = Some(p2 as usize),
                            // Its page is requested now.
                            Ok(Poll::Pending) => return Eval::Skip,
                            Err(_) => return Eval::Stop,
                        }
                    }
                }
            }
            _ => return Eval::Stop,
        }
        if let Some(e) = continue_at(&mut ip, jump, pc, next_pc) {
            return e;
        }
    }
    match must_be_int(&get(vm, &regs, insns[pc].p3)) {
        Some(k) => Eval::Key(k),
        None => Eval::Skip,
    }
}

/// Move `ip` past the instruction just evaluated, or to its jump's
/// target: forward inside the run goes on; a target past the seek but in
/// the loop skips the row; out of the loop (or backwards) ends the run.
fn continue_at(ip: &mut usize, jump: Option<usize>, pc: usize, next_pc: usize) -> Option<Eval> {
    match jump {
        None => {
            *ip += 1;
            None
        }
        Some(t) if t > *ip && t <= pc => {
            *ip = t;
            None
        }
        Some(t) if t > pc && t <= next_pc => Some(Eval::Skip),
        Some(_) => Some(Eval::Stop),
    }
}
