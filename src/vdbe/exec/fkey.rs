//! Foreign key counters (`foreignkeys.txt`): `FkCounter` adds to the
//! count of unresolved violations, `FkIfZero` skips work that could only
//! resolve violations when there are none, `FkIfOff` skips foreign key
//! code while `PRAGMA foreign_keys` is off. No I/O.
//!
//! Invariant: only the statement's own counter ([`Vm::fk_violations`])
//! is kept. Immediate constraints always count there, and so do deferred
//! ones in autocommit mode, where the statement is the transaction; in an
//! explicit transaction deferred constraints are not counted, COMMIT
//! checks them by scanning the child tables instead (see
//! `sql/codegen/fkey.rs`).

use super::Flow;
use crate::error::Result;
use crate::vdbe::program::{Insn, Opcode};
use crate::vdbe::{ConnState, Vm};

/// Whether a constraint with deferred flag `deferred` counts in the
/// statement counter right now.
fn counts(deferred: bool, env: &ConnState) -> bool {
    !deferred || env.autocommit
}

pub(super) fn exec(vm: &mut Vm, insn: &Insn, env: &mut ConnState) -> Result<Flow> {
    let deferred = insn.p1 != 0;
    Ok(match insn.opcode {
        Opcode::FkCounter => {
            if counts(deferred, env) {
                vm.fk_violations += insn.p2 as i64;
            }
            Flow::Next
        }
        Opcode::FkIfZero => {
            if !counts(deferred, env) || vm.fk_violations == 0 {
                Flow::Jump(insn.p2 as usize)
            } else {
                Flow::Next
            }
        }
        Opcode::FkIfOff => {
            if env.foreign_keys {
                Flow::Next
            } else {
                Flow::Jump(insn.p2 as usize)
            }
        }
        _ => return Err(super::internal("fkey: unexpected opcode")),
    })
}
