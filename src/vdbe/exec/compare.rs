//! Comparison opcodes: `Eq Ne Lt Le Gt Ge` (compare `r[P3]` with `r[P1]`,
//! after the affinity in P5, with the collation in P4; jump to P2 or,
//! with STOREP2, store the answer in `r[P2]`) and `Compare` for `Jump`.

use super::{reg, set_reg, Flow};
use crate::error::Result;
use crate::value::affinity::{apply_affinity, Affinity};
use crate::value::compare::compare_values;
use crate::value::Value;
use crate::vdbe::program::{cmp_flags, Insn, Opcode, P4};
use crate::vdbe::Vm;
use std::cmp::Ordering;

pub(super) fn exec(vm: &mut Vm, insn: &Insn) -> Result<Flow> {
    if insn.opcode == Opcode::Compare {
        // Registers are compared where they are (no copies): with a
        // KeyInfo, over its fields only (with their collation and
        // direction), else all P3 of them with BINARY.
        let n = insn.p3.max(0) as usize;
        let ki = match &insn.p4 {
            P4::KeyInfo(ki) => Some(ki),
            _ => None,
        };
        let fields = ki.map_or(n, |ki| n.min(ki.fields.len()));
        let mut order = Ordering::Equal;
        for i in 0..fields {
            let (x, y) = (reg(vm, insn.p1 + i as i32), reg(vm, insn.p2 + i as i32));
            let o = match ki.map(|ki| &ki.fields[i]) {
                Some(f) => {
                    let o = compare_values(x.as_ref(), y.as_ref(), Some(&f.collation));
                    if f.descending {
                        o.reverse()
                    } else {
                        o
                    }
                }
                None => compare_values(x.as_ref(), y.as_ref(), None),
            };
            if o != Ordering::Equal {
                order = o;
                break;
            }
        }
        vm.last_cmp = order;
        return Ok(Flow::Next);
    }
    // Two integers: affinity, collation and NULL handling play no part.
    if let (Some(Value::Integer(lhs)), Some(Value::Integer(rhs))) =
        (vm.regs.get(insn.p3 as usize).map(|r| &r.value), vm.regs.get(insn.p1 as usize).map(|r| &r.value))
    {
        let t = match insn.opcode {
            Opcode::Eq => lhs == rhs,
            Opcode::Ne => lhs != rhs,
            Opcode::Lt => lhs < rhs,
            Opcode::Le => lhs <= rhs,
            Opcode::Gt => lhs > rhs,
            _ => lhs >= rhs,
        };
        if insn.p5 & cmp_flags::STOREP2 != 0 {
            set_reg(vm, insn.p2, Value::Integer(t as i64));
            return Ok(Flow::Next);
        }
        return Ok(if t { Flow::Jump(insn.p2 as usize) } else { Flow::Next });
    }
    let coll = match &insn.p4 {
        P4::Coll(c) => Some(&**c),
        _ => None,
    };
    let result = compare_op(insn.opcode, reg(vm, insn.p3), reg(vm, insn.p1), insn.p5, coll);
    if insn.p5 & cmp_flags::STOREP2 != 0 {
        set_reg(vm, insn.p2, result.map_or(Value::Null, |t| Value::Integer(t as i64)));
        return Ok(Flow::Next);
    }
    let jump = match result {
        Some(t) => t,
        None => insn.p5 & cmp_flags::JUMPIFNULL != 0,
    };
    Ok(if jump { Flow::Jump(insn.p2 as usize) } else { Flow::Next })
}

/// The answer of a comparison operator; `None` is SQL NULL.
pub fn compare_op(op: Opcode, lhs: &Value, rhs: &Value, p5: u16, coll: Option<&crate::value::collation::Collation>) -> Option<bool> {
    if lhs.is_null() || rhs.is_null() {
        if p5 & cmp_flags::NULLEQ != 0 {
            let eq = lhs.is_null() && rhs.is_null();
            return Some(match op {
                Opcode::Eq => eq,
                Opcode::Ne => !eq,
                _ => false,
            });
        }
        return None;
    }
    let aff = (p5 & cmp_flags::AFF_MASK) as u8;
    // Only an operand the affinity converts is copied.
    let converts: fn(&Value) -> bool = match aff {
        0 => |_| false,
        _ => match crate::value::affinity::Affinity::from_letter(aff as char).unwrap_or(crate::value::affinity::Affinity::Blob) {
            Affinity::Numeric | Affinity::Integer | Affinity::Real => |v| matches!(v, Value::Text(_)),
            Affinity::Text => |v| matches!(v, Value::Integer(_) | Value::Real(_)),
            Affinity::Blob => |_| false,
        },
    };
    let target = match crate::value::affinity::Affinity::from_letter(aff as char).unwrap_or(crate::value::affinity::Affinity::Blob) {
        Affinity::Text => Affinity::Text,
        _ => Affinity::Numeric,
    };
    let converted = |v: &Value| if converts(v) { Some(apply_affinity(v.clone(), target)) } else { None };
    let (lc, rc) = (converted(lhs), converted(rhs));
    let o = compare_values(lc.as_ref().unwrap_or(lhs).as_ref(), rc.as_ref().unwrap_or(rhs).as_ref(), coll);
    Some(match op {
        Opcode::Eq => o == Ordering::Equal,
        Opcode::Ne => o != Ordering::Equal,
        Opcode::Lt => o == Ordering::Less,
        Opcode::Le => o != Ordering::Greater,
        Opcode::Gt => o == Ordering::Greater,
        _ => o != Ordering::Less,
    })
}
