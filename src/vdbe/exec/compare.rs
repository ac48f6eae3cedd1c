//! Comparison opcodes: `Eq Ne Lt Le Gt Ge` (compare `r[P3]` with `r[P1]`,
//! after the affinity in P5, with the collation in P4; jump to P2 or,
//! with STOREP2, store the answer in `r[P2]`) and `Compare` for `Jump`.

use super::{reg, set_reg, Flow};
use crate::error::Result;
use crate::value::Value;
use crate::vdbe::program::{cmp_flags, Insn, Opcode, P4};
use crate::vdbe::sorter::compare_keys;
use crate::vdbe::value_ops::{apply_affinity, compare, Affinity};
use crate::vdbe::Vm;
use std::cmp::Ordering;

pub(super) fn exec(vm: &mut Vm, insn: &Insn) -> Result<Flow> {
    if insn.opcode == Opcode::Compare {
        let n = insn.p3.max(0) as usize;
        let a: Vec<Value> = (0..n).map(|i| reg(vm, insn.p1 + i as i32).clone()).collect();
        let b: Vec<Value> = (0..n).map(|i| reg(vm, insn.p2 + i as i32).clone()).collect();
        vm.last_cmp = match &insn.p4 {
            P4::KeyInfo(ki) => compare_keys(ki, &a, &b),
            _ => a.iter().zip(&b).map(|(x, y)| compare(x, y, None)).find(|o| *o != Ordering::Equal).unwrap_or(Ordering::Equal),
        };
        return Ok(Flow::Next);
    }
    let lhs = reg(vm, insn.p3).clone();
    let rhs = reg(vm, insn.p1).clone();
    let coll = match &insn.p4 {
        P4::Coll(c) => Some(c),
        _ => None,
    };
    let result = compare_op(insn.opcode, lhs, rhs, insn.p5, coll);
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
pub fn compare_op(
    op: Opcode,
    lhs: Value,
    rhs: Value,
    p5: u16,
    coll: Option<&crate::value::collation::Collation>,
) -> Option<bool> {
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
    let (lhs, rhs) = if aff == 0 {
        (lhs, rhs)
    } else {
        let a = crate::vdbe::value_ops::affinity_from_letter(aff as char);
        match a {
            Affinity::Numeric | Affinity::Integer | Affinity::Real => {
                let f = |v: Value| if matches!(v, Value::Text(_)) { apply_affinity(v, Affinity::Numeric) } else { v };
                (f(lhs), f(rhs))
            }
            Affinity::Text => {
                let f = |v: Value| if matches!(v, Value::Integer(_) | Value::Real(_)) { apply_affinity(v, Affinity::Text) } else { v };
                (f(lhs), f(rhs))
            }
            Affinity::Blob => (lhs, rhs),
        }
    };
    let o = compare(&lhs, &rhs, coll);
    Some(match op {
        Opcode::Eq => o == Ordering::Equal,
        Opcode::Ne => o != Ordering::Equal,
        Opcode::Lt => o == Ordering::Less,
        Opcode::Le => o != Ordering::Greater,
        Opcode::Gt => o == Ordering::Greater,
        _ => o != Ordering::Less,
    })
}
