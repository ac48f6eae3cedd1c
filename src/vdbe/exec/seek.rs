//! Seeks and key tests: `SeekRowid`/`NotExists` on tables, `SeekGE/GT/LE/LT`
//! on indexes and (by rowid, for ranges read either way) on tables,
//! `IdxGE/GT/LE/LT` on indexes, `Found`/`NotFound`/`NoConflict`.
//!
//! A seek followed by reading the entry is two B-tree calls; `Vm::phase`
//! remembers that the seek completed so a suspended read resumes without
//! seeking again.

use super::{reg, Flow};
use crate::btree::{SeekOp, SeekResult};
use crate::error::Result;
use crate::value::affinity::{apply_affinity, Affinity};
use crate::value::record::decode_record;
use crate::value::{Value, ValueRef};
use crate::vdbe::cursor::{BtreeCursor, VmCursor};
use crate::vdbe::program::{Insn, Opcode, P4};
use crate::vdbe::register::Register;
use crate::vdbe::{ConnState, Vm};
use std::cmp::Ordering;
use std::task::Poll;

macro_rules! pend {
    ($e:expr) => {
        match $e? {
            Poll::Ready(v) => v,
            Poll::Pending => return Ok(Flow::Pending),
        }
    };
}

fn n_keys(p4: &P4) -> usize {
    match p4 {
        P4::Int64(n) => *n as usize,
        _ => 0,
    }
}

/// The probe key: `n` registers from `start`, or the record in `start`
/// when `n` is 0.
fn probe(vm: &Vm, start: i32, n: usize) -> Result<Vec<Value>> {
    if n == 0 {
        return match reg(vm, start) {
            Value::Blob(b) => decode_record(b),
            _ => Ok(Vec::new()),
        };
    }
    Ok((0..n).map(|i| reg(vm, start + i as i32).clone()).collect())
}

/// The probe key as values borrowed from `n` registers from `start`
/// (n > 0): no copy of the values, no allocation for short keys.
enum KeyRefs<'a> {
    Inline([ValueRef<'a>; INLINE_KEY], usize),
    Heap(Vec<ValueRef<'a>>),
}

/// Key fields a probe holds without allocating.
const INLINE_KEY: usize = 4;

impl<'a> KeyRefs<'a> {
    fn of(regs: &'a [Register], start: i32, n: usize) -> KeyRefs<'a> {
        let at = |i: usize| regs.get(start as usize + i).map_or(ValueRef::Null, |r| r.value.as_ref());
        if n <= INLINE_KEY {
            let mut a = [ValueRef::Null; INLINE_KEY];
            for (i, slot) in a.iter_mut().enumerate().take(n) {
                *slot = at(i);
            }
            KeyRefs::Inline(a, n)
        } else {
            KeyRefs::Heap((0..n).map(at).collect())
        }
    }

    fn as_slice(&self) -> &[ValueRef<'a>] {
        match self {
            KeyRefs::Inline(a, n) => &a[..*n],
            KeyRefs::Heap(v) => v,
        }
    }
}

/// Whether cursor `cur` reads a rowid table (SeekGE/GT then seek a rowid).
fn is_rowid_table(vm: &Vm, cur: i32) -> bool {
    match vm.cursors.get(cur as usize).and_then(|c| c.as_ref()) {
        Some(VmCursor::Btree(c)) => !c.is_index,
        Some(VmCursor::Ephemeral(e)) => e.key_info.is_none(),
        _ => false,
    }
}

/// The smallest rowid `>= v` (`> v` when `strict`), comparing as SQLite
/// compares an integer with `v` after numeric affinity; `None` when no
/// rowid qualifies (NULL, a bound past the largest rowid, or a text or
/// blob that is not a number: every integer sorts before those).
fn first_rowid_at_or_after(v: &Value, strict: bool) -> Option<i64> {
    let v = match v {
        Value::Text(_) => apply_affinity(v.clone(), Affinity::Numeric),
        other => other.clone(),
    };
    match v {
        Value::Integer(i) => {
            if strict {
                i.checked_add(1)
            } else {
                Some(i)
            }
        }
        Value::Real(r) if r.is_nan() => None,
        Value::Real(r) => {
            let first = if strict { r.floor() + 1.0 } else { r.ceil() };
            if first >= i64::MAX as f64 {
                // 2^63 and above: past every rowid.
                None
            } else if first < i64::MIN as f64 {
                Some(i64::MIN)
            } else {
                Some(first as i64)
            }
        }
        _ => None,
    }
}

/// The largest rowid `<= v` (`< v` when `strict`), comparing as SQLite
/// compares an INTEGER with `v`: text is made numeric if it looks like a
/// number, and a value that stays text or blob is above every rowid;
/// `None` when no rowid qualifies (NULL, NaN, below every rowid).
fn last_rowid_at_or_before(v: &Value, strict: bool) -> Option<i64> {
    let v = match v {
        Value::Text(_) => apply_affinity(v.clone(), Affinity::Numeric),
        other => other.clone(),
    };
    match v {
        Value::Integer(i) => {
            if strict {
                i.checked_sub(1)
            } else {
                Some(i)
            }
        }
        Value::Real(r) if r.is_nan() => None,
        Value::Real(r) => {
            let last = if strict { r.ceil() - 1.0 } else { r.floor() };
            if last < i64::MIN as f64 {
                None
            } else if last >= i64::MAX as f64 {
                Some(i64::MAX)
            } else {
                Some(last as i64)
            }
        }
        Value::Null | Value::Pointer(_) => None,
        _ => Some(i64::MAX),
    }
}

pub(super) fn exec(vm: &mut Vm, insn: &Insn, env: &mut ConnState) -> Result<Flow> {
    let (p1, p2, p3) = (insn.p1, insn.p2, insn.p3);
    let jump = Flow::Jump(p2 as usize);
    match insn.opcode {
        Opcode::SeekRowid | Opcode::NotExists => {
            let Some(rowid) = crate::value::numeric::must_be_int(reg(vm, p3)) else {
                return Ok(jump);
            };
            let found = match vm.cursors[p1 as usize].as_mut() {
                Some(VmCursor::Btree(c)) => {
                    c.cache = None;
                    c.null_row = false;
                    let bt = &mut env.dbs[c.db].btree;
                    // NotExists (a constraint check, or positioning a row
                    // to rewrite) rarely reads the row: it is fetched
                    // only if a column asks for it.
                    let r = if insn.opcode == Opcode::NotExists { pend!(c.cursor.seek_rowid_lazy(bt, rowid)) } else { pend!(c.cursor.seek_rowid(bt, rowid)) };
                    c.eof = r != SeekResult::Found;
                    r == SeekResult::Found
                }
                Some(VmCursor::Ephemeral(e)) => {
                    e.null_row = false;
                    match e.rows.search(|(r, _)| r.cmp(&rowid)) {
                        Ok(p) => {
                            e.pos = Some(p);
                            true
                        }
                        Err(_) => {
                            e.pos = None;
                            false
                        }
                    }
                }
                _ => return Err(super::internal("rowid seek on a non-table cursor")),
            };
            spill_ok(vm, p1)?;
            Ok(if found { Flow::Next } else { jump })
        }
        Opcode::SeekGE | Opcode::SeekGT if is_rowid_table(vm, p1) => {
            let Some(start) = first_rowid_at_or_after(reg(vm, p3), insn.opcode == Opcode::SeekGT) else {
                return Ok(jump);
            };
            let found = match vm.cursors[p1 as usize].as_mut() {
                Some(VmCursor::Btree(c)) => {
                    c.cache = None;
                    c.null_row = false;
                    let bt = &mut env.dbs[c.db].btree;
                    let r = pend!(c.cursor.seek_rowid(bt, start));
                    let on_range = matches!(r, SeekResult::Found | SeekResult::After);
                    c.eof = !on_range;
                    on_range
                }
                Some(VmCursor::Ephemeral(e)) => {
                    e.null_row = false;
                    e.pos = e.rows.partition_point(|(r, _)| *r < start);
                    e.pos.is_some()
                }
                _ => return Err(super::internal("rowid seek on a non-table cursor")),
            };
            spill_ok(vm, p1)?;
            Ok(if found { Flow::Next } else { jump })
        }
        Opcode::SeekLE | Opcode::SeekLT if is_rowid_table(vm, p1) => {
            let Some(start) = last_rowid_at_or_before(reg(vm, p3), insn.opcode == Opcode::SeekLT) else {
                return Ok(jump);
            };
            let found = match vm.cursors[p1 as usize].as_mut() {
                Some(VmCursor::Btree(c)) => {
                    c.cache = None;
                    c.null_row = false;
                    let bt = &mut env.dbs[c.db].btree;
                    // (Re-entered after I/O, the seek simply repeats: it
                    // only positions the cursor.)
                    let on_range = match pend!(c.cursor.seek_rowid(bt, start)) {
                        SeekResult::Found | SeekResult::Before => true,
                        SeekResult::After => pend!(c.cursor.prev(bt)),
                        SeekResult::Empty => false,
                    };
                    c.eof = !on_range;
                    on_range
                }
                Some(VmCursor::Ephemeral(e)) => {
                    e.null_row = false;
                    e.pos = e.rows.last_where(|(r, _)| *r <= start);
                    e.pos.is_some()
                }
                _ => return Err(super::internal("rowid seek on a non-table cursor")),
            };
            spill_ok(vm, p1)?;
            Ok(if found { Flow::Next } else { jump })
        }
        Opcode::SeekGE | Opcode::SeekGT | Opcode::SeekLE | Opcode::SeekLT => {
            let op = match insn.opcode {
                Opcode::SeekGE => SeekOp::Ge,
                Opcode::SeekGT => SeekOp::Gt,
                Opcode::SeekLE => SeekOp::Le,
                _ => SeekOp::Lt,
            };
            // An index seek by registers (the usual form): the key is read
            // in place from the registers.
            let n = n_keys(&insn.p4);
            if n > 0 {
                if let Some(Some(VmCursor::Btree(c))) = vm.cursors.get_mut(p1 as usize) {
                    let key = KeyRefs::of(&vm.regs, p3, n);
                    c.cache = None;
                    c.null_row = false;
                    let bt = &mut env.dbs[c.db].btree;
                    let f = pend!(c.cursor.seek_index(bt, key.as_slice(), op));
                    c.eof = !f;
                    return Ok(if f { Flow::Next } else { jump });
                }
            }
            let key = probe(vm, p3, n)?;
            let found = match vm.cursors[p1 as usize].as_mut() {
                Some(VmCursor::Btree(c)) => {
                    c.cache = None;
                    c.null_row = false;
                    let refs: Vec<ValueRef<'_>> = key.iter().map(|v| v.as_ref()).collect();
                    let bt = &mut env.dbs[c.db].btree;
                    let f = pend!(c.cursor.seek_index(bt, &refs, op));
                    c.eof = !f;
                    f
                }
                Some(VmCursor::Ephemeral(e)) => {
                    e.null_row = false;
                    e.seek(&key, op)?
                }
                _ => return Err(super::internal("seek on a non-index cursor")),
            };
            spill_ok(vm, p1)?;
            Ok(if found { Flow::Next } else { jump })
        }
        Opcode::IdxGE | Opcode::IdxGT | Opcode::IdxLE | Opcode::IdxLT => {
            let n = n_keys(&insn.p4);
            let o = match vm.cursors.get_mut(p1 as usize) {
                // The key read in place from the registers (the usual form).
                Some(Some(VmCursor::Btree(c))) if n > 0 => {
                    let key = KeyRefs::of(&vm.regs, p3, n);
                    btree_vs(c, env, key.as_slice())?
                }
                _ => {
                    let key = probe(vm, p3, n)?;
                    current_vs(vm, env, p1, &key)?
                }
            };
            let o = match o {
                Poll::Ready(o) => o,
                Poll::Pending => return Ok(Flow::Pending),
            };
            let take = match insn.opcode {
                Opcode::IdxGE => o != Ordering::Less,
                Opcode::IdxGT => o == Ordering::Greater,
                Opcode::IdxLE => o != Ordering::Greater,
                _ => o == Ordering::Less,
            };
            Ok(if take { jump } else { Flow::Next })
        }
        Opcode::Found | Opcode::NotFound | Opcode::NoConflict => {
            let n = n_keys(&insn.p4);
            // The usual form, a B-tree index probed by registers.
            if n > 0 {
                if let Some(flow) = found_in_btree(vm, insn, env, n)? {
                    return Ok(flow);
                }
            }
            let key = probe(vm, p3, n)?;
            if insn.opcode == Opcode::NoConflict && key.iter().any(|v| v.is_null()) {
                return Ok(jump);
            }
            let pc = vm.pc;
            let found = match vm.cursors[p1 as usize].as_mut() {
                Some(VmCursor::Btree(c)) => {
                    if vm.phase != Some((pc, 1)) {
                        c.cache = None;
                        c.null_row = false;
                        let refs: Vec<ValueRef<'_>> = key.iter().map(|v| v.as_ref()).collect();
                        let bt = &mut env.dbs[c.db].btree;
                        let f = pend!(c.cursor.seek_index(bt, &refs, SeekOp::Ge));
                        c.eof = !f;
                        if !f {
                            vm.phase = None;
                            false
                        } else {
                            vm.phase = Some((pc, 1));
                            true
                        }
                    } else {
                        true
                    }
                }
                Some(VmCursor::Ephemeral(e)) => e.seek(&key, SeekOp::Ge)?,
                _ => return Err(super::internal("found on a non-index cursor")),
            };
            spill_ok(vm, p1)?;
            let equal = if found {
                match current_vs(vm, env, p1, &key)? {
                    Poll::Ready(o) => o == Ordering::Equal,
                    Poll::Pending => return Ok(Flow::Pending),
                }
            } else {
                false
            };
            vm.phase = None;
            let jump_if_found = insn.opcode == Opcode::Found;
            Ok(if equal == jump_if_found { jump } else { Flow::Next })
        }
        _ => Err(super::internal("seek: unexpected opcode")),
    }
}

/// `Found`/`NotFound`/`NoConflict` on a B-tree index probed by `n`
/// registers: the key is borrowed in place (no value cloned, nothing
/// allocated). `None`: the cursor is another kind (the caller's path).
// (Out of line: the interpreter loop inlines `exec`.)
#[inline(never)]
fn found_in_btree(vm: &mut Vm, insn: &Insn, env: &mut ConnState, n: usize) -> Result<Option<Flow>> {
    let (p1, p3) = (insn.p1, insn.p3);
    let jump = Flow::Jump(insn.p2 as usize);
    let pc = vm.pc;
    let Vm { regs, cursors, phase, .. } = &mut *vm;
    let Some(Some(VmCursor::Btree(c))) = cursors.get_mut(p1 as usize) else { return Ok(None) };
    let key = KeyRefs::of(regs, p3, n);
    let key = key.as_slice();
    if insn.opcode == Opcode::NoConflict && key.iter().any(|v| matches!(v, ValueRef::Null)) {
        return Ok(Some(jump));
    }
    let found = if *phase != Some((pc, 1)) {
        c.cache = None;
        c.null_row = false;
        let bt = &mut env.dbs[c.db].btree;
        let (f, exact) = match c.cursor.seek_index_exact(bt, key, SeekOp::Ge)? {
            Poll::Ready(f) => f,
            Poll::Pending => return Ok(Some(Flow::Pending)),
        };
        c.eof = !f;
        // (An entry the search compared equal needs no second compare.)
        if exact {
            *phase = None;
            let jump_if_found = insn.opcode == Opcode::Found;
            return Ok(Some(if jump_if_found { jump } else { Flow::Next }));
        }
        *phase = f.then_some((pc, 1));
        f
    } else {
        true
    };
    let equal = found
        && match btree_vs(c, env, key)? {
            Poll::Ready(o) => o == Ordering::Equal,
            Poll::Pending => return Ok(Some(Flow::Pending)),
        };
    *phase = None;
    let jump_if_found = insn.opcode == Opcode::Found;
    Ok(Some(if equal == jump_if_found { jump } else { Flow::Next }))
}

/// Compare the current index entry's leading fields with `key`.
fn current_vs(vm: &mut Vm, env: &mut ConnState, cur: i32, key: &[Value]) -> Result<Poll<Ordering>> {
    match vm.cursors[cur as usize].as_mut() {
        Some(VmCursor::Btree(c)) => {
            let refs: Vec<ValueRef<'_>> = key.iter().map(Value::as_ref).collect();
            btree_vs(c, env, &refs)
        }
        Some(VmCursor::Ephemeral(e)) => Ok(Poll::Ready(match e.current() {
            Some((_, r)) => crate::vdbe::sorter::compare_leading(e.key_info(), key.len(), r, key),
            None => Ordering::Greater,
        })),
        _ => Err(super::internal("key test on a non-index cursor")),
    }
}

/// Compare a B-tree cursor's current index entry's leading fields with
/// `key`, in place in the entry's record (fields past the key info's
/// compare as BINARY ascending, as `prefix` pads).
#[inline]
fn btree_vs(c: &mut BtreeCursor, env: &mut ConnState, key: &[ValueRef<'_>]) -> Result<Poll<Ordering>> {
    if c.eof || !c.cursor.is_valid() {
        return Ok(Poll::Ready(Ordering::Greater));
    }
    let bt = &mut env.dbs[c.db].btree;
    let record = match c.cursor.payload(bt)? {
        Poll::Ready(p) => p,
        Poll::Pending => return Ok(Poll::Pending),
    };
    let ki = c.key_info.as_deref().unwrap_or(&crate::value::record::NO_KEY_INFO);
    Ok(Poll::Ready(crate::value::record::compare_record_prefix(record, key, ki)?))
}

/// A transient table's spill file failed under the seek just made (it
/// then found nothing): the error, as SQLite's pager reports its I/O
/// errors.
fn spill_ok(vm: &Vm, cur: i32) -> Result<()> {
    match vm.cursors.get(cur as usize) {
        Some(Some(VmCursor::Ephemeral(e))) => e.rows.check(),
        _ => Ok(()),
    }
}
