//! Records and row access: `MakeRecord`, `Column`, `Rowid`, `IdxRowid`,
//! `RowData`.
//! `Column` on a B-tree cursor may wait for overflow pages: it suspends
//! before decoding, with nothing changed.

use super::{set_reg, Flow};
use crate::error::{Error, Result};
use crate::value::affinity::apply_affinity;
use crate::value::record::decode_record;
use crate::value::record::{record_column, RecordBuilder};
use crate::value::{Value, ValueRef};
use crate::vdbe::cursor::VmCursor;
use crate::vdbe::program::{Insn, Opcode, OPFLAG_BYTELENARG, OPFLAG_LENGTHARG, OPFLAG_SUBSTR2ARG, OPFLAG_SUBSTR3ARG, OPFLAG_TYPEOFARG, P4};
use crate::vdbe::{ConnState, Vm};
use std::task::Poll;

/// `MakeRecord`: `r[P3]` = the record of registers `P1..P1+P2` (P4: their
/// affinities). When the instruction after it (in `insns`, the running
/// program) is the table `Insert` of that record, trailing zero-blob
/// fields stay out of the record's bytes: their size is left in
/// [`Vm::zero_tail`] for the `Insert`, which has the B-tree write the
/// zeros (SQLite's `nZero`).
pub(super) fn make_record(vm: &mut Vm, insn: &Insn, insns: &[Insn], env: &mut ConnState) -> Result<Flow> {
    let (p1, p2, p3) = (insn.p1, insn.p2, insn.p3);
    vm.zero_tail = None;
    let affs: &[u8] = if let P4::Affinity(a) = &insn.p4 { a.as_bytes() } else { &[] };
    let (first, n) = (p1 as usize, p2.max(0) as usize);
    // Values an affinity changes are converted in a copy; the
    // others are encoded straight from their registers.
    let mut converted: Vec<(usize, Value)> = Vec::new();
    for (i, &c) in affs.iter().enumerate().take(n) {
        let aff = crate::value::affinity::Affinity::from_letter(c as char).unwrap_or(crate::value::affinity::Affinity::Blob);
        let v = vm.regs.get(first + i).map_or(&Value::Null, |r| &r.value);
        if affinity_may_change(v, aff) {
            converted.push((i, record_affinity(v.clone(), aff)));
        }
    }
    // Trailing zero-blobs left out of the bytes: fields `body_fields..n`.
    let mut body_fields = n;
    let mut zeros = 0usize;
    let last_is_zero_blob = n > 0 && matches!(vm.regs.get(first + n - 1).map(|r| &r.value), Some(Value::ZeroBlob(_)));
    if last_is_zero_blob && insns.get(vm.pc + 1).is_some_and(|i| i.opcode == Opcode::Insert && i.p2 == p3) {
        while body_fields > 0 {
            match vm.regs.get(first + body_fields - 1).map(|r| &r.value) {
                Some(Value::ZeroBlob(z)) => {
                    zeros += z;
                    body_fields -= 1;
                }
                _ => break,
            }
        }
    }
    // The output register's previous record buffer is reused (a
    // loop builds one record per row into the same register).
    let out_reg = p3 as usize;
    let kept = match vm.regs.get_mut(out_reg) {
        Some(r) if !(first..first + n).contains(&out_reg) => match std::mem::take(&mut r.value) {
            Value::Blob(b) => Some(b),
            _ => None,
        },
        _ => None,
    };
    let mut out = kept.unwrap_or_else(|| vm.spare_buf());
    let regs = &vm.regs;
    let value_at = |i: usize| match converted.iter().find(|(j, _)| *j == i) {
        Some((_, v)) => v.as_ref(),
        None => regs.get(first + i).map_or(ValueRef::Null, |r| r.value.as_ref()),
    };
    // (On the stack for the usual few values.)
    let mut few = [ValueRef::Null; 16];
    if zeros > 0 {
        let values: Vec<ValueRef<'_>> = (0..n).map(value_at).collect();
        RecordBuilder::default().build_head(&values, body_fields, &mut out);
    } else if n <= few.len() {
        for (i, v) in few.iter_mut().enumerate().take(n) {
            *v = value_at(i);
        }
        RecordBuilder::default().build_slice(&few[..n], &mut out);
    } else {
        RecordBuilder::default().build((0..n).map(value_at), &mut out);
    }
    if (out.len() + zeros) as i64 > env.max_length {
        return Err(crate::error::Error::too_big());
    }
    set_reg(vm, p3, Value::Blob(out));
    if zeros > 0 {
        vm.zero_tail = Some((out_reg, zeros));
    }
    Ok(Flow::Next)
}

pub(super) fn exec(vm: &mut Vm, insn: &Insn, env: &mut ConnState) -> Result<Flow> {
    let (p1, p2) = (insn.p1, insn.p2);
    match insn.opcode {
        Opcode::Column => return column_op(vm, insn, env),
        Opcode::Rowid | Opcode::IdxRowid => {
            if let Some(flow) = rowid_in_place(vm, insn) {
                return Ok(flow);
            }
            let v = match vm.cursors.get_mut(p1 as usize).and_then(|c| c.as_mut()) {
                Some(VmCursor::Btree(c)) => {
                    if c.null_row || !c.cursor.is_valid() {
                        Value::Null
                    } else if c.is_index {
                        // The rowid is the key's last field.
                        let bt = &mut env.dbs[c.db].btree;
                        let n = match c.cursor.column_count(bt)? {
                            Poll::Ready(n) => n,
                            Poll::Pending => return Ok(Flow::Pending),
                        };
                        match n.checked_sub(1).map(|last| c.cursor.column(bt, last)).transpose()? {
                            Some(Poll::Ready(v)) => v.map_or(Value::Null, |v| v.to_owned()),
                            Some(Poll::Pending) => return Ok(Flow::Pending),
                            None => Value::Null,
                        }
                    } else {
                        Value::Integer(c.cursor.rowid())
                    }
                }
                Some(VmCursor::Ephemeral(e)) => {
                    if e.null_row {
                        Value::Null
                    } else {
                        e.current().map_or(Value::Null, |(r, _)| Value::Integer(*r))
                    }
                }
                _ => Value::Null,
            };
            set_reg(vm, p2, v);
        }
        Opcode::RowData => {
            // Reading the payload may wait for overflow pages; the register
            // is written only once it is all there.
            let Vm { regs, cursors, .. } = &mut *vm;
            let data = match cursors.get_mut(p1 as usize).and_then(|c| c.as_mut()) {
                Some(VmCursor::Btree(c)) if !c.null_row && !c.eof && c.cursor.is_valid() => {
                    let bt = &mut env.dbs[c.db].btree;
                    match c.cursor.payload(bt)? {
                        Poll::Ready(d) => d,
                        Poll::Pending => return Ok(Flow::Pending),
                    }
                }
                _ => return Err(super::internal("row data of a cursor not on a B-tree entry")),
            };
            match regs.get_mut(p2 as usize) {
                Some(r) => r.set_ref(ValueRef::Blob(data)),
                None => return Err(super::internal("row data into a missing register")),
            }
        }
        _ => return Err(super::internal("record: unexpected opcode")),
    }
    Ok(Flow::Next)
}

/// `Rowid`: `r[P2]` = the rowid of table cursor P1's row.
pub(super) fn rowid_op(vm: &mut Vm, insn: &Insn, env: &mut ConnState) -> Result<Flow> {
    match rowid_in_place(vm, insn) {
        Some(flow) => Ok(flow),
        None => exec(vm, insn, env),
    }
}

/// A table cursor on a row, or an index cursor on a key ending in an
/// integer (the common cases): its rowid written into the register in
/// place. `None`: another case, for [`exec`].
#[inline]
fn rowid_in_place(vm: &mut Vm, insn: &Insn) -> Option<Flow> {
    if let Some(Some(VmCursor::Btree(c))) = vm.cursors.get(insn.p1 as usize) {
        if !c.null_row && c.cursor.is_valid() {
            let rowid = if c.is_index { c.cursor.index_key_rowid()? } else { c.cursor.rowid() };
            if let Some(r) = vm.regs.get_mut(insn.p2 as usize) {
                r.set_int(rowid);
                return Some(Flow::Next);
            }
        }
    }
    None
}

/// `Column`: `r[P3]` = column P2 of cursor P1's row (the default in P4 when
/// the record is shorter). B-tree entries, the common case, are decoded
/// from the cursor's row or key straight into the register, reusing its
/// buffer.
pub(super) fn column_op(vm: &mut Vm, insn: &Insn, env: &mut ConnState) -> Result<Flow> {
    let (p1, p2, p3) = (insn.p1, insn.p2, insn.p3);
    if let Some(Some(VmCursor::Btree(first))) = vm.cursors.get_mut(p1 as usize) {
        let mut c = first;
        if !c.null_row && !c.eof && c.cursor.is_valid() {
            // (Flags for a value that need not be read whole matter only
            // for a row not in memory: one with overflow pages.)
            if insn.p5 != 0 && !c.cursor.entry_in_memory(&env.dbs[c.db].btree) {
                if let Some(flow) = flagged_column(vm, insn, env)? {
                    return Ok(flow);
                }
                let Some(Some(VmCursor::Btree(again))) = vm.cursors.get_mut(p1 as usize) else { return Err(super::internal("column of a closed cursor")) };
                c = again;
            }
            let dst = p3 as usize;
            if dst >= vm.regs.len() {
                vm.regs.resize(dst + 1, Default::default());
            }
            let bt = &mut env.dbs[c.db].btree;
            let r = &mut vm.regs[dst];
            match c.cursor.column_into(bt, p2 as usize, &mut r.value, &mut vm.spare_bufs)? {
                Poll::Pending => return Ok(Flow::Pending),
                Poll::Ready(true) => r.clear_marks(),
                Poll::Ready(false) => r.set(column_default(&insn.p4)),
            }
            // A text or blob stored longer than SQLITE_LIMIT_LENGTH allows
            // now (the limit was lowered, or another connection wrote it)
            // is SQLITE_TOOBIG when read, as SQLite's OP_Column says.
            r.value.check_length(env.max_length)?;
            return Ok(Flow::Next);
        }
    }
    // A sorter row through a pseudo cursor: decoded from the
    // record register straight into the target register.
    if let Some(Some(VmCursor::Pseudo(src))) = vm.cursors.get(p1 as usize) {
        let (src, dst) = (*src, p3 as usize);
        if src != dst && src.max(dst) < vm.regs.len() {
            let (rec, out) = if src < dst {
                let (l, r) = vm.regs.split_at_mut(dst);
                (&l[src].value, &mut r[0])
            } else {
                let (l, r) = vm.regs.split_at_mut(src);
                (&r[0].value, &mut l[dst])
            };
            match rec {
                Value::Blob(b) => match record_column(b, p2 as usize)? {
                    Some(v) => out.set_ref(v),
                    None => out.set(column_default(&insn.p4)),
                },
                Value::Null | Value::Pointer(_) => out.set(Value::Null),
                _ => return Err(Error::corrupt()),
            }
            return Ok(Flow::Next);
        }
    }
    let v = match column(vm, env, p1, p2 as usize)? {
        Poll::Ready(v) => v,
        Poll::Pending => return Ok(Flow::Pending),
    };
    let v = match v {
        Some(v) => v,
        None => column_default(&insn.p4),
    };
    v.check_length(env.max_length)?;
    set_reg(vm, p3, v);
    if p2 == 1 {
        if let Some(VmCursor::Ephemeral(e)) = vm.cursors.get(p1 as usize).and_then(|c| c.as_ref()) {
            let container = e.json_rows
                && !e.null_row
                && e.current().is_some_and(|(_, row)| {
                    matches!(row.get(2), Some(Value::Text(t)) if t == b"array" || t == b"object") && matches!(row.get(1), Some(Value::Text(_)))
                });
            if container {
                vm.regs[p3 as usize].subtype = crate::vdbe::func::builtins::json::JSON_SUBTYPE;
            }
        }
    }
    Ok(Flow::Next)
}

/// `Column` with a length, type or `substr()` flag in P5 on a B-tree
/// row with overflow pages: the value a flag makes do without reading the
/// row (`None`: read the column as usual).
#[cold]
#[inline(never)]
fn flagged_column(vm: &mut Vm, insn: &Insn, env: &mut ConnState) -> Result<Option<Flow>> {
    let (p2, p3) = (insn.p2 as usize, insn.p3);
    let Some(Some(VmCursor::Btree(c))) = vm.cursors.get_mut(insn.p1 as usize) else { return Ok(None) };
    let bt = &mut env.dbs[c.db].btree;
    let substr = insn.p5 & (OPFLAG_SUBSTR2ARG | OPFLAG_SUBSTR3ARG) != 0;
    if substr && c.is_index {
        return Ok(None);
    }
    let st = match c.cursor.column_serial_type(bt, p2)? {
        Poll::Pending => return Ok(Some(Flow::Pending)),
        Poll::Ready(Some(st)) => st,
        Poll::Ready(None) => return Ok(None),
    };
    if substr {
        if st >= 12 && st.is_multiple_of(2) && (st - 12) / 2 >= SUBSTR_IN_PLACE_MIN {
            return substr_of_large_blob(vm, insn, env, (st - 12) / 2).map(Some);
        }
        return Ok(None);
    }
    match stand_in(st, insn.p5 & OPFLAG_BYTELENARG) {
        Some(v) => {
            set_reg(vm, p3, v);
            Ok(Some(Flow::Next))
        }
        None => Ok(None),
    }
}

/// The size from which `Column` under a `substr()` flag reads only the
/// bytes `substr()` takes of a blob.
const SUBSTR_IN_PLACE_MIN: u64 = 1 << 16;

/// `Column` of a large blob for `substr(X, P1[, P2])` (P1, P2 already in
/// the registers after P3): only the bytes `substr()` takes are read, and
/// the arguments become what takes all of them, so the call's result is
/// the same as on the whole value (`substr()` of an empty blob is NULL:
/// an empty result comes as a one-byte blob from which the arguments
/// take nothing).
fn substr_of_large_blob(vm: &mut Vm, insn: &Insn, env: &mut ConnState, len: u64) -> Result<Flow> {
    let (p1, p2, p3) = (insn.p1, insn.p2 as usize, insn.p3);
    let three = insn.p5 & OPFLAG_SUBSTR3ARG != 0;
    let arg = |vm: &Vm, k: i32| vm.regs.get((p3 + k) as usize).map_or(Value::Null, |r| r.value.clone());
    let (a, b) = (arg(vm, 1), if three { arg(vm, 2) } else { Value::Integer(0) });
    if a.is_null() || b.is_null() {
        // (The result is NULL whatever X is.)
        set_reg(vm, p3, Value::Null);
        return Ok(Flow::Next);
    }
    let conv = |v: &Value| v.as_ref().to_i64();
    let (start, n) = crate::vdbe::func::builtins::core::substr_blob_range(len as i64, conv(&a), three.then(|| conv(&b)));
    let Some(Some(VmCursor::Btree(c))) = vm.cursors.get_mut(p1 as usize) else { return Err(super::internal("substr read on a closed cursor")) };
    let bt = &mut env.dbs[c.db].btree;
    let bytes = match c.cursor.column_bytes(bt, p2, start as usize, (start + n) as usize)? {
        Poll::Pending => return Ok(Flow::Pending),
        Poll::Ready(b) => b,
    };
    let (x, from, count) = if bytes.is_empty() { (vec![0], 2, 0) } else { (bytes, 1, n) };
    set_reg(vm, p3, Value::Blob(x));
    set_reg(vm, p3 + 1, Value::Integer(from));
    if three {
        set_reg(vm, p3 + 2, Value::Integer(count));
    }
    Ok(Flow::Next)
}

/// What `Column` under a length or type flag (`flag`) stores for a column
/// of serial type `st` without reading its bytes, as SQLite's `OP_Column`
/// does: for `typeof()` a value of the right class; for `length()` of a
/// blob and `octet_length()` of a blob or text, a zero-blob of the right
/// size (those functions give its size). `None`: the bytes are needed.
fn stand_in(st: u64, flag: u16) -> Option<Value> {
    let len = crate::value::record::serial_type_len(st)? as usize;
    let blob = st >= 12 && st.is_multiple_of(2);
    let text = st >= 13 && !st.is_multiple_of(2);
    match flag {
        OPFLAG_TYPEOFARG => Some(match st {
            0 | 10 | 11 => Value::Null,
            1..=6 | 8 | 9 => Value::Integer(0),
            // (A stored NaN reads as NULL: the bytes decide.)
            7 => return None,
            _ if blob => Value::zero_blob(len),
            _ => Value::Text(Vec::new()),
        }),
        OPFLAG_LENGTHARG if blob => Some(Value::zero_blob(len)),
        OPFLAG_BYTELENARG if blob || text => Some(Value::zero_blob(len)),
        _ => None,
    }
}

/// The value of a column missing from a short record: P4 of `Column`
/// (the default of a column added by ALTER TABLE), else NULL.
fn column_default(p4: &P4) -> Value {
    match p4 {
        P4::Int64(i) => Value::Integer(*i),
        P4::Real(r) => Value::Real(*r),
        P4::Bytes(_) | P4::Short(..) => Value::Text(p4.as_bytes().unwrap_or_default().to_vec()),
        _ => Value::Null,
    }
}

/// Column `col` of cursor `cur`'s current row; `Ready(None)` when the
/// record is shorter (the caller uses the column default).
pub(super) fn column(vm: &mut Vm, env: &mut ConnState, cur: i32, col: usize) -> Result<Poll<Option<Value>>> {
    let Some(c) = vm.cursors.get_mut(cur as usize).and_then(|c| c.as_mut()) else {
        return Err(super::internal("column of a closed cursor"));
    };
    Ok(Poll::Ready(match c {
        VmCursor::Btree(c) => {
            if c.null_row || c.eof || !c.cursor.is_valid() {
                return Ok(Poll::Ready(Some(Value::Null)));
            }
            if !c.is_index {
                // Table rows: only the requested column is decoded.
                let bt = &mut env.dbs[c.db].btree;
                return Ok(match c.cursor.column(bt, col)? {
                    Poll::Ready(v) => Poll::Ready(v.map(|v| v.to_owned())),
                    Poll::Pending => Poll::Pending,
                });
            }
            if c.cache.is_none() {
                let bt = &mut env.dbs[c.db].btree;
                // Decoded straight from the cursor's payload (no copy).
                let decoded = match c.cursor.payload(bt)? {
                    Poll::Ready(p) => decode_record(p)?,
                    Poll::Pending => return Ok(Poll::Pending),
                };
                c.cache = Some(decoded);
            } else if cfg!(debug_assertions) && !env.dbs[c.db].btree.text_encoding().is_utf16() {
                // (An index key is in memory: decoding it again costs no I/O.)
                let bt = &mut env.dbs[c.db].btree;
                if let Ok(Poll::Ready(p)) = c.cursor.stored_payload(bt) {
                    // invariant: vm_cursor_cache_current
                    let same = |a: &[Value], b: &[Value]| a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same_value(x.as_ref(), y.as_ref()));
                    debug_assert!(
                        decode_record(p).is_ok_and(|d| c.cache.as_deref().is_some_and(|k| same(&d, k))),
                        "cursor {cur}'s cached entry is not the one it is on"
                    );
                }
            }
            c.cache.as_ref().and_then(|r| r.get(col).cloned())
        }
        VmCursor::Ephemeral(e) => {
            if e.null_row {
                Some(Value::Null)
            } else {
                Some(e.current().and_then(|(_, r)| r.get(col).cloned()).unwrap_or(Value::Null))
            }
        }
        VmCursor::Sorter(s) => Some(match s.current() {
            Some(rec) => record_column(rec, col)?.map_or(Value::Null, |v| v.to_owned()),
            None => Value::Null,
        }),
        VmCursor::Pseudo(reg) => {
            let reg = *reg;
            match &vm.regs[reg].value {
                // Only the wanted column is decoded.
                Value::Blob(b) => record_column(b, col)?.map(|v| v.to_owned()),
                Value::Null | Value::Pointer(_) => Some(Value::Null),
                _ => return Err(Error::corrupt()),
            }
        }
        // (A virtual table's columns are read by VColumn, which lends the
        // module the connection.)
        VmCursor::Virtual(_) => return Err(super::internal("Column on a virtual-table cursor")),
    }))
}

/// Whether applying `aff` may change `v` (text and reals under a numeric
/// affinity, numbers under TEXT); `false` means it is certainly a no-op.
fn affinity_may_change(v: &Value, aff: crate::value::affinity::Affinity) -> bool {
    use crate::value::affinity::Affinity;
    match aff {
        Affinity::Blob => false,
        Affinity::Text => matches!(v, Value::Integer(_) | Value::Real(_)),
        Affinity::Real => matches!(v, Value::Text(_) | Value::Real(_)) || matches!(v, Value::Integer(i) if !fits_six_bytes(*i)),
        Affinity::Numeric | Affinity::Integer => matches!(v, Value::Text(_) | Value::Real(_)),
    }
}

/// The largest magnitude a 6-byte record integer holds.
const MAX_6BYTE: i64 = 0x0000_7fff_ffff_ffff;

fn fits_six_bytes(i: i64) -> bool {
    (-MAX_6BYTE..=MAX_6BYTE).contains(&i)
}

/// The affinity a record applies to a value it stores. As in SQLite, an
/// integer stored under REAL affinity stays an integer only while it fits
/// in 6 bytes; a larger one is stored as the REAL it stands for (so the
/// table and its indexes hold what reading the column gives).
pub(super) fn record_affinity(v: Value, aff: crate::value::affinity::Affinity) -> Value {
    match (aff, v) {
        (crate::value::affinity::Affinity::Real, Value::Integer(i)) if !fits_six_bytes(i) => Value::Real(i as f64),
        (aff, v) => apply_affinity(v, aff),
    }
}

/// Whether two decoded fields are the same (a REAL by its bits): for
/// debug builds' checks.
fn same_value(a: crate::value::ValueRef<'_>, b: crate::value::ValueRef<'_>) -> bool {
    use crate::value::ValueRef as V;
    match (a, b) {
        (V::Null, V::Null) => true,
        (V::Integer(x), V::Integer(y)) => x == y,
        (V::Real(x), V::Real(y)) => x.to_bits() == y.to_bits(),
        (V::Text(x), V::Text(y)) | (V::Blob(x), V::Blob(y)) => x == y,
        _ => false,
    }
}
