//! Register loads and moves, arithmetic, bit operations, boolean logic,
//! CAST and affinity. Operands follow `opcode.txt`: binary operators
//! compute `r[P3] = r[P2] op r[P1]`. No I/O.

use super::{reg, set_reg, Flow};
use crate::error::{Error, Result, SQLITE_MISMATCH};
use crate::value::affinity::{apply_affinity, cast};
use crate::value::numeric::ArithOp;
use crate::value::numeric::{cast_to_text, truthiness, value_to_i64};
use crate::value::{Value, ValueRef};
use crate::vdbe::program::{Insn, Opcode, P4};
use crate::vdbe::Vm;

/// `String8` and `Blob`: a text literal longer than `SQLITE_LIMIT_LENGTH`
/// fails the statement with `SQLITE_TOOBIG`, as in SQLite (the limit may
/// have been lowered after the statement was prepared); a blob literal
/// that long is NULL (SQLite's `OP_Blob` ignores the failure of storing
/// it, which leaves the register NULL).
pub(super) fn literal(vm: &mut Vm, insn: &Insn, max_length: i64) -> Result<Flow> {
    let b = insn.p4.as_bytes().unwrap_or_default();
    if b.len() as i64 > max_length {
        if insn.opcode == Opcode::Blob {
            set_reg(vm, insn.p2, Value::Null);
            return Ok(Flow::Next);
        }
        return Err(Error::too_big());
    }
    let b = b.to_vec();
    let v = if insn.opcode == Opcode::Blob { Value::Blob(b) } else { Value::Text(b) };
    set_reg(vm, insn.p2, v);
    Ok(Flow::Next)
}

pub(super) fn exec(vm: &mut Vm, insn: &Insn) -> Result<Flow> {
    let (p1, p2, p3) = (insn.p1, insn.p2, insn.p3);
    match insn.opcode {
        Opcode::Integer => set_reg(vm, p2, Value::Integer(p1 as i64)),
        Opcode::Int64 => {
            let v = if let P4::Int64(i) = insn.p4 { i } else { 0 };
            set_reg(vm, p2, Value::Integer(v));
        }
        Opcode::Real => {
            let v = if let P4::Real(r) = insn.p4 { r } else { 0.0 };
            set_reg(vm, p2, Value::Real(v));
        }
        Opcode::Null => {
            let end = p3.max(p2);
            for r in p2..=end {
                set_reg(vm, r, Value::Null);
                vm.aggs.end(r as usize);
            }
        }
        Opcode::Variable => {
            let dst = p2 as usize;
            if dst >= vm.regs.len() {
                vm.regs.resize(dst + 1, Default::default());
            }
            // A pointer value keeps its payload (bindptr.txt): shared, not copied.
            if let Some(Value::Pointer(p)) = vm.params.get(p1 as usize) {
                vm.regs[dst].set(Value::Pointer(p.clone()));
                vm.regs[dst].from_bind = true;
                return Ok(Flow::Next);
            }
            let v = vm.params.get(p1 as usize).map_or(ValueRef::Null, |v| v.as_ref());
            let r = &mut vm.regs[dst];
            // Text and blobs are copied into the register's own buffer,
            // or a spare one (see `Vm::spare_bufs`), not a new allocation.
            if let (ValueRef::Text(_) | ValueRef::Blob(_), Value::Null | Value::Integer(_) | Value::Real(_)) = (v, &r.value) {
                if let Some(buf) = vm.spare_bufs.pop() {
                    r.value = Value::Blob(buf);
                }
            }
            r.set_ref(v);
            r.from_bind = true;
        }
        Opcode::Move => {
            for i in 0..p3.max(1) {
                let v = std::mem::take(&mut vm.regs[(p1 + i) as usize]);
                vm.regs[(p2 + i) as usize] = v;
            }
        }
        Opcode::Copy => {
            for i in 0..=p3 {
                let v = vm.regs[(p1 + i) as usize].clone();
                vm.regs[(p2 + i) as usize] = v;
            }
        }
        Opcode::SCopy => {
            let v = vm.regs[p1 as usize].clone();
            vm.regs[p2 as usize] = v;
        }
        Opcode::GetSubtype => {
            let st = vm.regs[p1 as usize].subtype;
            vm.regs[p2 as usize].set(if st == 0 { Value::Null } else { Value::Integer(st as i64) });
        }
        Opcode::SetSubtype => {
            // (Only the low byte is kept, as by sqlite3_result_subtype;
            // P5 1: the whole value, for `NOCHANGE_SUBTYPE`.)
            let mask = if insn.p5 & 1 != 0 { u32::MAX } else { 0xff };
            let st = match &vm.regs[p1 as usize].value {
                Value::Integer(i) => (*i as u32) & mask,
                _ => 0,
            };
            vm.regs[p2 as usize].subtype = st;
        }
        Opcode::IntCopy => {
            let v = value_to_i64(reg(vm, p1).as_ref());
            set_reg(vm, p2, Value::Integer(v));
        }
        Opcode::MustBeInt => match crate::value::numeric::must_be_int(reg(vm, p1)) {
            Some(i) => set_reg(vm, p1, Value::Integer(i)),
            None if p2 > 0 => return Ok(Flow::Jump(p2 as usize)),
            None => return Err(Error::code(SQLITE_MISMATCH)),
        },
        Opcode::RealAffinity => {
            if let Value::Integer(i) = *reg(vm, p1) {
                set_reg(vm, p1, Value::Real(i as f64));
            }
        }
        Opcode::Affinity => {
            // (Iterated in place: collecting the letters allocated on
            // every execution, once per index lookup.)
            let affs = if let P4::Affinity(a) = &insn.p4 { a.as_str() } else { "" };
            for (i, c) in affs.chars().enumerate().take(p2 as usize) {
                let r = p1 + i as i32;
                let aff = crate::value::affinity::Affinity::from_letter(c).unwrap_or(crate::value::affinity::Affinity::Blob);
                // (Values the affinity leaves alone, the usual case of an
                // INSERT's bound values, are not moved out and back.)
                if !affinity_may_change(&vm.regs[r as usize].value, aff) {
                    continue;
                }
                let v = std::mem::take(&mut vm.regs[r as usize].value);
                vm.regs[r as usize].value = apply_affinity(v, aff);
            }
        }
        Opcode::TypeCheck => {
            // P4: [table, column name, declared type, ...] for r[P1..P1+P2].
            let P4::Row(desc) = &insn.p4 else { return Err(super::internal("TypeCheck without description")) };
            let text = |v: &Value| match v {
                Value::Text(t) => String::from_utf8_lossy(t).into_owned(),
                _ => String::new(),
            };
            let table = desc.first().map(text).unwrap_or_default();
            for i in 0..p2.max(0) as usize {
                let (Some(name), Some(ty)) = (desc.get(1 + 2 * i), desc.get(2 + 2 * i)) else { break };
                let ty = text(ty);
                let r = p1 + i as i32;
                let v = reg(vm, r).clone();
                let ok = match (ty.as_str(), &v) {
                    (_, Value::Null | Value::Pointer(_)) | ("ANY", _) => true,
                    ("INT" | "INTEGER", Value::Integer(_)) => true,
                    ("REAL", Value::Real(_)) => true,
                    ("REAL", Value::Integer(x)) => {
                        let x = *x as f64;
                        set_reg(vm, r, Value::Real(x));
                        true
                    }
                    ("TEXT", Value::Text(_)) | ("BLOB", Value::Blob(_) | Value::ZeroBlob(_)) => true,
                    _ => false,
                };
                if !ok {
                    let kind = match v {
                        Value::Integer(_) => "INT",
                        Value::Real(_) => "REAL",
                        Value::Text(_) => "TEXT",
                        Value::Blob(_) | Value::ZeroBlob(_) => "BLOB",
                        Value::Null | Value::Pointer(_) => "NULL",
                    };
                    return Err(Error::new(
                        crate::error::SQLITE_CONSTRAINT_DATATYPE,
                        format!("cannot store {kind} value in {ty} column {table}.{}", text(name)),
                    ));
                }
            }
        }
        Opcode::Cast => {
            let v = reg(vm, p1).clone();
            // (A cast changes the value in place in SQLite: a bound
            // parameter stays one.)
            let from_bind = vm.regs.get(p1 as usize).is_some_and(|r| r.from_bind);
            set_reg(vm, p1, cast(v, crate::value::affinity::Affinity::from_letter(p2 as u8 as char).unwrap_or(crate::value::affinity::Affinity::Blob)));
            vm.regs[p1 as usize].from_bind = from_bind;
        }
        Opcode::Add | Opcode::Subtract | Opcode::Multiply | Opcode::Divide | Opcode::Remainder => {
            if let Some(v) = integer_arithmetic(insn.opcode, reg(vm, p2), reg(vm, p1)) {
                set_reg(vm, p3, Value::Integer(v));
                return Ok(Flow::Next);
            }
            let v = arithmetic(insn.opcode, reg(vm, p2), reg(vm, p1));
            set_reg(vm, p3, v);
        }
        Opcode::BitAnd | Opcode::BitOr | Opcode::ShiftLeft | Opcode::ShiftRight => {
            let (a, b) = (reg(vm, p2), reg(vm, p1));
            let v = if a.is_null() || b.is_null() {
                Value::Null
            } else {
                let (a, b) = (int_of(a), int_of(b));
                Value::Integer(match insn.opcode {
                    Opcode::BitAnd => a & b,
                    Opcode::BitOr => a | b,
                    Opcode::ShiftLeft => shift(a, b),
                    _ => shift(a, b.checked_neg().unwrap_or(i64::MAX)),
                })
            };
            set_reg(vm, p3, v);
        }
        Opcode::BitNot => {
            let v = match reg(vm, p1) {
                Value::Null | Value::Pointer(_) => Value::Null,
                v => Value::Integer(!int_of(v)),
            };
            set_reg(vm, p2, v);
        }
        Opcode::Not => {
            let v = match truthiness(reg(vm, p1).as_ref()) {
                None => Value::Null,
                Some(t) => Value::Integer(!t as i64),
            };
            set_reg(vm, p2, v);
        }
        Opcode::And | Opcode::Or => {
            let (a, b) = (truthiness(reg(vm, p1).as_ref()), truthiness(reg(vm, p2).as_ref()));
            let r = if insn.opcode == Opcode::And {
                match (a, b) {
                    (Some(false), _) | (_, Some(false)) => Some(false),
                    (Some(true), Some(true)) => Some(true),
                    _ => None,
                }
            } else {
                match (a, b) {
                    (Some(true), _) | (_, Some(true)) => Some(true),
                    (Some(false), Some(false)) => Some(false),
                    _ => None,
                }
            };
            set_reg(vm, p3, r.map_or(Value::Null, |t| Value::Integer(t as i64)));
        }
        Opcode::IsTrue => {
            let t = match truthiness(reg(vm, p1).as_ref()) {
                None => p3 != 0,
                Some(t) => t,
            };
            let t = if insn.p5 != 0 { !t } else { t };
            set_reg(vm, p2, Value::Integer(t as i64));
        }
        _ => return Err(super::internal("arith: unexpected opcode")),
    }
    Ok(Flow::Next)
}

/// Whether `apply_affinity(v, aff)` may change `v`: text and reals under
/// a numeric affinity, numbers under TEXT; `false` means certainly not.
fn affinity_may_change(v: &Value, aff: crate::value::affinity::Affinity) -> bool {
    use crate::value::affinity::Affinity;
    match aff {
        Affinity::Blob => false,
        Affinity::Text => matches!(v, Value::Integer(_) | Value::Real(_)),
        Affinity::Numeric | Affinity::Integer | Affinity::Real => matches!(v, Value::Text(_) | Value::Real(_)),
    }
}

fn int_of(v: &Value) -> i64 {
    value_to_i64(v.as_ref())
}

fn shift(a: i64, by: i64) -> i64 {
    if by >= 64 {
        0
    } else if by >= 0 {
        ((a as u64) << by) as i64
    } else if by <= -64 {
        if a < 0 {
            -1
        } else {
            0
        }
    } else {
        a >> (-by)
    }
}

/// `a op b` for an arithmetic opcode.
/// `a op b` for two integers whose result is an integer (no overflow, no
/// division by zero); `None` leaves the case to [`arithmetic`].
#[inline]
pub(super) fn integer_arithmetic(op: Opcode, a: &Value, b: &Value) -> Option<i64> {
    let (Value::Integer(x), Value::Integer(y)) = (a, b) else { return None };
    match op {
        Opcode::Add => x.checked_add(*y),
        Opcode::Subtract => x.checked_sub(*y),
        Opcode::Multiply => x.checked_mul(*y),
        Opcode::Remainder if *y != 0 => x.checked_rem(*y),
        _ => None,
    }
}

pub fn arithmetic(op: Opcode, a: &Value, b: &Value) -> Value {
    let op = match op {
        Opcode::Add => ArithOp::Add,
        Opcode::Subtract => ArithOp::Subtract,
        Opcode::Multiply => ArithOp::Multiply,
        Opcode::Divide => ArithOp::Divide,
        _ => ArithOp::Remainder,
    };
    crate::value::numeric::arith(op, a.as_ref(), b.as_ref())
}

/// `Concat`: `r[P3] = r[P2] || r[P1]`, NULL if either is NULL; a result
/// longer than `SQLITE_LIMIT_LENGTH` fails before it is built.
pub(super) fn concat(vm: &mut Vm, insn: &Insn, max_length: i64) -> Result<Flow> {
    let v = match (cast_to_text(reg(vm, insn.p2).as_ref()), cast_to_text(reg(vm, insn.p1).as_ref())) {
        (Some(mut a), Some(b)) => {
            if (a.len() + b.len()) as i64 > max_length {
                return Err(Error::too_big());
            }
            a.extend_from_slice(&b);
            Value::Text(a)
        }
        _ => Value::Null,
    };
    set_reg(vm, insn.p3, v);
    Ok(Flow::Next)
}
