//! What a trigger body sees of `changes()` and `last_insert_rowid()`:
//! `TriggerEnter` (each time a trigger body starts) saves the
//! connection's `changes()` and `last_insert_rowid()` and the count of
//! the trigger statement running around it, `ResetCount` (after each
//! INSERT, UPDATE or DELETE of a trigger body) makes that statement's
//! rows the connection's `changes()` and adds them to `total_changes()`,
//! and `TriggerLeave` (each time a trigger body ends, also by
//! RAISE(IGNORE)) puts the saved values back, as SQLite does when a
//! trigger program ends.
//!
//! Invariants: the three instructions do no I/O, so none suspends and
//! none is re-entered. Rows written by trigger bodies count in
//! `Vm::n_trigger_change` (never in the statement's own `n_change`, so
//! `sqlite3_changes()` of the firing statement leaves them out); each
//! open trigger body has one entry in `Vm::trigger_saves` (checked:
//! trigger_saves_open), and a
//! statement that ends inside trigger bodies (an error, a reset) goes
//! back to the values of the outermost one ([`unwind`]).
//!
//! `TriggerEnter` of an inline body (P1..P2 its instructions) also
//! clears the body's `Once` flags, so that its run-once code (an
//! uncorrelated subquery) runs once per firing, as in SQLite's trigger
//! programs.
//!
//! `TriggerEnter` also enforces `SQLITE_LIMIT_TRIGGER_DEPTH` as SQLite's
//! `OP_Program` does: a body may start while fewer than the limit are
//! open, inline bodies and trigger programs alike (before its WHEN runs).

use super::Flow;
use crate::error::{Error, Result};
use crate::vdbe::program::{Insn, Opcode};
use crate::vdbe::{ConnState, Vm};

/// Values a trigger body hides from its caller while it runs.
#[derive(Debug, Clone, Copy)]
pub struct TriggerSave {
    last_insert_rowid: i64,
    changes: i64,
    step_changes: i64,
}

/// `TriggerEnter`, `TriggerLeave` and `ResetCount`.
pub(super) fn exec(vm: &mut Vm, insn: &Insn, env: &mut ConnState) -> Result<Flow> {
    match insn.opcode {
        Opcode::TriggerEnter => {
            if vm.trigger_saves.len() >= env.max_trigger_depth {
                return Err(Error::sql("triggers nested too deep"));
            }
            vm.trigger_saves.push(TriggerSave { last_insert_rowid: env.last_insert_rowid, changes: env.changes, step_changes: vm.n_trigger_change });
            vm.n_trigger_change = 0;
            // An inline body (P1..P2) runs its run-once code again at each
            // firing, as a trigger program does in its fresh frame.
            let body = insn.p1 as usize..insn.p2 as usize;
            if !body.is_empty() && !vm.once.is_empty() {
                vm.once.retain(|pc| !body.contains(pc));
            }
        }
        Opcode::TriggerLeave => {
            // invariant: trigger_saves_open
            debug_assert!(!vm.trigger_saves.is_empty(), "TriggerLeave with no trigger body open");
            if let Some(s) = vm.trigger_saves.pop() {
                restore(vm, env, s);
            }
        }
        _ => {
            // ResetCount
            env.changes = vm.n_trigger_change;
            env.total_changes += vm.n_trigger_change;
            vm.n_trigger_change = 0;
        }
    }
    Ok(Flow::Next)
}

fn restore(vm: &mut Vm, env: &mut ConnState, s: TriggerSave) {
    env.last_insert_rowid = s.last_insert_rowid;
    env.changes = s.changes;
    vm.n_trigger_change = s.step_changes;
}

/// The statement stops inside trigger bodies: the connection gets back
/// the values from before the outermost one started.
pub fn unwind(vm: &mut Vm, env: &mut ConnState) {
    if !vm.trigger_saves.is_empty() {
        let outermost = vm.trigger_saves[0];
        vm.trigger_saves.clear();
        restore(vm, env, outermost);
    }
}
