//! Virtual tables in the connection's transaction: the tables whose xBegin
//! ran (`ConnState::vtabs.in_transaction`, in call order) are synced before
//! the B-trees commit and committed after them (SQLite's two phases:
//! xSync on every table, the database files, then xCommit), rolled back
//! with them, and told of user savepoints (xSavepoint, xRelease,
//! xRollbackTo).
//!
//! Invariant: a table is in the list exactly while its transaction is open
//! (its instance flagged `in_transaction`); the list is emptied by the
//! commit or rollback that ends it (checked: vtab_txn_list). xSync runs
//! at most once per commit even when the commit waits for I/O and the
//! `Halt` runs again (`Vm::vtab_synced`).

use super::txn::{self, ON_ERROR_FAIL};
use super::Flow;
use crate::error::Result;
use crate::util::ascii::AsciiLower;
use crate::vdbe::host::{lend, VmHost};
use crate::vdbe::program::{Insn, Opcode, Program, P4};
use crate::vdbe::Vm;

/// `Halt` (success) while tables are in the transaction.
pub(super) fn halt(vm: &mut Vm, prog: &Program, insn: &Insn, host: &mut dyn VmHost) -> Result<Flow> {
    if let Some(n) = vm.vtab_stmt_savepoint.take() {
        let list = host.state().vtabs.in_transaction.clone();
        for t in &list {
            lend(host, |h| t.table.release(h, n))?;
        }
    }
    let st = host.state();
    let ending = st.ends_txn(!prog.readonly);
    if ending && !vm.vtab_synced {
        sync_all(host)?;
        vm.vtab_synced = true;
    }
    let flow = txn::exec(vm, prog, insn, host.state())?;
    if ending && matches!(flow, Flow::Done) {
        end(host, true);
    }
    Ok(flow)
}

/// `AutoCommit` and `Savepoint` while tables are in the transaction.
pub(super) fn txn_op(vm: &mut Vm, prog: &Program, insn: &Insn, host: &mut dyn VmHost) -> Result<Flow> {
    let st = host.state();
    // The savepoint's number as SQLite counts them: the savepoint that
    // started the transaction is not one.
    let offset = usize::from(st.savepoint_started_txn);
    let name = match &insn.p4 {
        P4::Text(t) => String::clone(t),
        _ => String::new(),
    };
    let before = st.savepoints.len();
    let target = st.savepoints.iter().rposition(|s| s.eq_ci(&name));
    let list = host.state().vtabs.in_transaction.clone();
    if insn.opcode == Opcode::Savepoint && insn.p1 == 0 {
        // Before the savepoint exists, as SQLite calls xSavepoint: what a
        // table writes then (fts5's pending changes) is not undone by a
        // rollback to it.
        let n = before.saturating_sub(offset) as i32;
        for t in &list {
            lend(host, |h| t.table.savepoint(h, n))?;
        }
    }
    let flow = txn::exec(vm, prog, insn, host.state())?;
    match insn.opcode {
        Opcode::AutoCommit if insn.p2 != 0 => end(host, false),
        Opcode::Savepoint => {
            if let Some(i) = target {
                let n = i.saturating_sub(offset) as i32;
                let ended = host.state().autocommit;
                for t in &list {
                    if insn.p1 == 2 {
                        lend(host, |h| t.table.rollback_to(h, n))?;
                    } else if !ended {
                        lend(host, |h| t.table.release(h, n))?;
                    }
                }
            }
        }
        _ => {}
    }
    Ok(flow)
}

/// After a failed statement: when its transaction was rolled back, so are
/// the tables'.
pub(super) fn after_abort(vm: &mut Vm, host: &mut dyn VmHost) {
    let stmt = vm.vtab_stmt_savepoint.take();
    let st = host.state();
    if st.vtabs.in_transaction.is_empty() {
        return;
    }
    if !st.autocommit || st.writing() {
        // The transaction goes on: the statement's own changes are undone
        // (unless OR FAIL keeps them) and its savepoint released.
        if let Some(n) = stmt {
            let list = st.vtabs.in_transaction.clone();
            for t in &list {
                if vm.error_action != ON_ERROR_FAIL {
                    let _ = lend(host, |h| t.table.rollback_to(h, n));
                }
                let _ = lend(host, |h| t.table.release(h, n));
            }
        }
        return;
    }
    // (OR FAIL keeps what the statement did, a failed read what the
    // others did: the transaction commits, both phases.)
    let commit = vm.error_action == ON_ERROR_FAIL || vm.abort_kept_others;
    if commit {
        let _ = sync_all(host);
    }
    end(host, commit);
}

/// xSync on every table in the transaction, in order, up to the first
/// error; the statements they run meanwhile (writing their shadow
/// tables) end no transaction (`ConnState::vtab_syncing`).
fn sync_all(host: &mut dyn VmHost) -> Result<()> {
    let list = host.state().vtabs.in_transaction.clone();
    host.state().vtab_syncing = true;
    let r = list.iter().try_for_each(|t| lend(host, |h| t.table.sync(h)));
    host.state().vtab_syncing = false;
    r
}

/// The transaction ended: xCommit or xRollback on every table in it (their
/// errors are not the statement's, as in SQLite).
fn end(host: &mut dyn VmHost, commit: bool) {
    let list = std::mem::take(&mut host.state().vtabs.in_transaction);
    // invariant: vtab_txn_list
    debug_assert!(list.iter().all(|t| t.in_transaction()), "a virtual table listed in the transaction without its flag");
    for t in &list {
        t.set_in_transaction(false);
        let _ = lend(host, |h| if commit { t.table.commit(h) } else { t.table.rollback(h) });
    }
}
