//! Control flow: jumps, subroutines, coroutines, conditional branches,
//! counters for LIMIT/OFFSET, and result rows. No I/O.

use super::{reg, set_reg, Flow};
use crate::error::{Error, Result};
use crate::value::numeric::{truthiness, value_to_i64};
use crate::value::Value;
use crate::vdbe::program::{Insn, Opcode, Program, P4};
use crate::vdbe::Vm;
use std::cmp::Ordering;

/// Debug builds: register `r` holds an integer, as `op` assumes (a
/// counter MustBeInt made one, or an address Gosub, InitCoroutine or Yield
/// stored); SQLite asserts `MEM_Int` at the same opcodes.
#[inline(always)]
fn debug_int(vm: &Vm, r: i32, op: Opcode) {
    // invariant: vm_register_types
    debug_assert!(matches!(reg(vm, r), Value::Integer(_)), "{op:?} expects an integer in register {r}, found {:?}", reg(vm, r));
}

/// (Inlined into the dispatch loop: jumps, limits and `ResultRow` run on
/// every row, and a call per instruction showed in short queries.)
#[inline(always)]
pub(super) fn exec(vm: &mut Vm, prog: &Program, insn: &Insn) -> Result<Flow> {
    let (p1, p2, p3) = (insn.p1, insn.p2, insn.p3);
    Ok(match insn.opcode {
        Opcode::Init => {
            if p2 > 0 {
                Flow::Jump(p2 as usize)
            } else {
                Flow::Next
            }
        }
        Opcode::Goto => Flow::Jump(p2 as usize),
        Opcode::Gosub => {
            set_reg(vm, p1, Value::Integer(vm.pc as i64));
            Flow::Jump(p2 as usize)
        }
        Opcode::Return => {
            // (P3 = 1: a return only when the register holds an address;
            // else the register is one Gosub set.)
            if p3 == 0 {
                debug_int(vm, p1, insn.opcode);
            }
            match reg(vm, p1) {
                Value::Integer(a) => Flow::Jump(*a as usize + 1),
                _ => Flow::Next,
            }
        }
        Opcode::If | Opcode::IfNot => {
            let want = insn.opcode == Opcode::If;
            match truthiness(reg(vm, p1).as_ref()) {
                None => {
                    if p3 != 0 {
                        Flow::Jump(p2 as usize)
                    } else {
                        Flow::Next
                    }
                }
                Some(t) if t == want => Flow::Jump(p2 as usize),
                _ => Flow::Next,
            }
        }
        Opcode::IsNull => {
            if reg(vm, p1).is_null() {
                Flow::Jump(p2 as usize)
            } else {
                Flow::Next
            }
        }
        Opcode::NotNull => {
            if !reg(vm, p1).is_null() {
                Flow::Jump(p2 as usize)
            } else {
                Flow::Next
            }
        }
        Opcode::IsType => {
            debug_assert!(p1 < 0, "IsType reads a register only");
            let bit = 1u16 << (reg(vm, p3).value_type() as u16 - 1);
            if insn.p5 & bit != 0 {
                Flow::Jump(p2 as usize)
            } else {
                Flow::Next
            }
        }
        Opcode::IfPos => {
            debug_int(vm, p1, insn.opcode);
            let v = value_to_i64(reg(vm, p1).as_ref());
            if v > 0 {
                set_reg(vm, p1, Value::Integer(v - p3 as i64));
                Flow::Jump(p2 as usize)
            } else {
                Flow::Next
            }
        }
        Opcode::IfNotZero => {
            debug_int(vm, p1, insn.opcode);
            let v = value_to_i64(reg(vm, p1).as_ref());
            if v != 0 {
                if v > 0 {
                    set_reg(vm, p1, Value::Integer(v - 1));
                }
                Flow::Jump(p2 as usize)
            } else {
                Flow::Next
            }
        }
        Opcode::DecrJumpZero => {
            debug_int(vm, p1, insn.opcode);
            // (The counter is an integer: decremented where it is.)
            let v = match vm.regs.get_mut(p1 as usize) {
                Some(crate::vdbe::register::Register { value: Value::Integer(i), subtype, from_bind }) => {
                    *i = i.saturating_sub(1);
                    *subtype = 0;
                    *from_bind = false;
                    *i
                }
                _ => {
                    let v = value_to_i64(reg(vm, p1).as_ref()).saturating_sub(1);
                    set_reg(vm, p1, Value::Integer(v));
                    v
                }
            };
            if v == 0 {
                Flow::Jump(p2 as usize)
            } else {
                Flow::Next
            }
        }
        Opcode::OffsetLimit => {
            debug_int(vm, p1, insn.opcode);
            debug_int(vm, p3, insn.opcode);
            let limit = value_to_i64(reg(vm, p1).as_ref());
            let offset = value_to_i64(reg(vm, p3).as_ref()).max(0);
            let v = if limit <= 0 { -1 } else { limit.saturating_add(offset) };
            set_reg(vm, p2, Value::Integer(v));
            Flow::Next
        }
        Opcode::Once => {
            if vm.once.insert(vm.pc) {
                Flow::Next
            } else {
                Flow::Jump(p2 as usize)
            }
        }
        Opcode::Jump => match vm.last_cmp {
            Ordering::Less => Flow::Jump(p1 as usize),
            Ordering::Equal => Flow::Jump(p2 as usize),
            Ordering::Greater => Flow::Jump(p3 as usize),
        },
        Opcode::Noop => Flow::Next,
        Opcode::InitCoroutine => {
            set_reg(vm, p1, Value::Integer(p3 as i64 - 1));
            if p2 > 0 {
                Flow::Jump(p2 as usize)
            } else {
                Flow::Next
            }
        }
        Opcode::Yield => {
            let target = value_to_i64(reg(vm, p1).as_ref());
            set_reg(vm, p1, Value::Integer(vm.pc as i64));
            Flow::Jump(target as usize + 1)
        }
        Opcode::EndCoroutine => {
            debug_int(vm, p1, insn.opcode);
            let yield_addr = value_to_i64(reg(vm, p1).as_ref()) as usize;
            let target = prog.insns.get(yield_addr).map(|i| i.p2).unwrap_or(0);
            set_reg(vm, p1, Value::Integer(vm.pc as i64));
            Flow::Jump(target as usize)
        }
        Opcode::ResultRow => {
            // The row is read from its registers (see `Vm::row_regs`).
            let n = p2.max(0) as usize;
            let first = p1.max(0) as usize;
            if first + n > vm.regs.len() {
                vm.regs.resize(first + n, Default::default());
            }
            vm.row_regs = Some((first, n));
            Flow::Row
        }
        Opcode::ChangeCount => {
            vm.regs[p1 as usize].set(crate::value::Value::Integer(vm.n_change));
            Flow::Next
        }
        Opcode::ResultRowConst => {
            vm.row_regs = None;
            vm.row = match &insn.p4 {
                P4::Row(r) => Vec::clone(r),
                _ => Vec::new(),
            };
            Flow::Row
        }
        Opcode::HaltIfNull => {
            if reg(vm, p3).is_null() {
                // p2: what the failure undoes, as Halt's p2 (ABORT, FAIL or
                // ROLLBACK; FAIL aborts when foreign key violations remain).
                vm.error_action = p2 as u8;
                if vm.error_action == super::txn::ON_ERROR_FAIL && vm.fk_violations > 0 {
                    vm.error_action = super::txn::ON_ERROR_ABORT;
                    return Err(Error::new(crate::error::SQLITE_CONSTRAINT_FOREIGNKEY, "FOREIGN KEY constraint failed"));
                }
                let msg = match &insn.p4 {
                    P4::Text(t) => String::clone(t),
                    _ => String::new(),
                };
                return Err(Error::new(p1, msg));
            }
            Flow::Next
        }
        _ => return Err(super::internal("control: unexpected opcode")),
    })
}
