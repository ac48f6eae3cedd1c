//! Foreign key counters (`foreignkeys.txt`): `FkCounter` adds to the
//! count of unresolved violations, `FkIfZero` skips work that could only
//! resolve violations when there are none, `FkIfOff` skips foreign key
//! code while `PRAGMA foreign_keys` is off (or, with P3=1, unless a
//! RELEASE ends the transaction), `FkCheck` fails COMMIT while deferred
//! violations are left. No I/O.
//!
//! Two kinds of counters, as SQLite keeps them: the statement's own
//! ([`Vm::fk_violations`]: immediate constraints, and deferred ones in
//! autocommit mode, where the statement is the transaction; `Halt` fails
//! the statement while it is positive) and the transaction's
//! ([`ConnState::fk_deferred`]: deferred constraints in an explicit
//! transaction, and immediate ones while `PRAGMA defer_foreign_keys` is
//! on). A failed statement restores the transaction's counts to what they
//! were when it started, ROLLBACK TO to what they were at the savepoint;
//! the end of the transaction zeroes them. Turning `defer_foreign_keys`
//! on or off forgets the violations it had deferred, as in SQLite. Only
//! violations made inside the transaction count: rows that broke a
//! constraint before (written with foreign keys off) never fail COMMIT.

use super::Flow;
use crate::error::Result;
use crate::util::ascii::AsciiLower;
use crate::vdbe::program::{Insn, Opcode};
use crate::vdbe::{ConnState, Vm};

/// Whether a constraint with deferred flag `deferred` counts in the
/// statement counter right now (otherwise in the transaction's).
fn counts(deferred: bool, env: &ConnState) -> bool {
    !(deferred || env.defer_foreign_keys) || env.autocommit
}

pub(super) fn exec(vm: &mut Vm, insn: &Insn, env: &mut ConnState) -> Result<Flow> {
    let deferred = insn.p1 != 0;
    Ok(match insn.opcode {
        Opcode::FkCounter => {
            if counts(deferred, env) {
                vm.fk_violations += insn.p2 as i64;
            } else if deferred {
                env.fk_deferred.0 += insn.p2 as i64;
            } else {
                env.fk_deferred.1 += insn.p2 as i64;
            }
            Flow::Next
        }
        Opcode::FkIfZero => {
            let outstanding = if counts(deferred, env) { vm.fk_violations } else { env.fk_deferred.0 + env.fk_deferred.1 };
            if outstanding == 0 {
                Flow::Jump(insn.p2 as usize)
            } else {
                Flow::Next
            }
        }
        Opcode::FkCheck => {
            if env.fk_deferred.0 + env.fk_deferred.1 > 0 {
                return Err(crate::error::Error::new(crate::error::SQLITE_CONSTRAINT_FOREIGNKEY, "FOREIGN KEY constraint failed"));
            }
            Flow::Next
        }
        Opcode::FkIfOff => {
            // P3=1: RELEASE of the savepoint named in P4 is about to run;
            // it only matters when that ends the transaction.
            let release_commits = || {
                let name = match &insn.p4 {
                    crate::vdbe::program::P4::Text(t) => t.as_str(),
                    _ => "",
                };
                env.savepoint_started_txn && env.savepoints.iter().rposition(|s| s.eq_ci(name)) == Some(0)
            };
            if env.settings.foreign_keys && (insn.p3 == 0 || release_commits()) {
                Flow::Next
            } else {
                Flow::Jump(insn.p2 as usize)
            }
        }
        _ => return Err(super::internal("fkey: unexpected opcode")),
    })
}
