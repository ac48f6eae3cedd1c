//! Foreign key counters (`foreignkeys.txt`): `FkCounter` adds to the
//! count of unresolved violations, `FkIfZero` skips work that could only
//! resolve violations when there are none, `FkIfOff` skips foreign key
//! code while `PRAGMA foreign_keys` is off (or, with P3=1, unless a
//! RELEASE ends the transaction). No I/O.
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
            // P3=1: RELEASE of the savepoint named in P4 is about to run;
            // it only matters when that ends the transaction.
            let release_commits = || {
                let name = match &insn.p4 {
                    crate::vdbe::program::P4::Text(t) => t.as_str(),
                    _ => "",
                };
                env.savepoint_started_txn && env.savepoints.iter().rposition(|s| s.eq_ignore_ascii_case(name)) == Some(0)
            };
            if env.foreign_keys && (insn.p3 == 0 || release_commits()) {
                Flow::Next
            } else {
                Flow::Jump(insn.p2 as usize)
            }
        }
        _ => return Err(super::internal("fkey: unexpected opcode")),
    })
}
