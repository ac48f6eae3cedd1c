//! The interpreter loop and the dispatch of opcodes to their families.
//!
//! Each family module executes its opcodes and answers with a [`Flow`]:
//! go on, jump, a row is ready, halt, or wait for I/O (the program counter
//! then stays on the instruction, see the module doc of `vdbe`).

mod agg;
mod arith;
mod bloom;
mod compare;
mod control;
mod cursor;
mod fkey;
pub mod frame;
pub mod preupdate;
mod quantum;
mod record;
pub(crate) mod schema;
mod seek;
mod seek_ahead;
mod super_commit;
mod tablefn;
pub mod trigger_counts;
pub mod txn;
mod vtab;
mod vtab_txn;
pub mod write;

use super::host::VmHost;
use super::program::{Opcode, Program};
use super::{ConnState, Vm, VmStep};
use crate::error::{Error, Result, SQLITE_INTERRUPT};
use crate::value::Value;
use std::sync::atomic::Ordering;

/// What an instruction tells the loop.
pub enum Flow {
    /// Next instruction.
    Next,
    /// Jump to an address.
    Jump(usize),
    /// A result row is ready; continue after this instruction.
    Row,
    /// The program halted successfully.
    Done,
    /// Waiting for I/O: re-execute this instruction later.
    Pending,
    /// The instruction needs the connection lent to a callback (see
    /// [`Handback::Host`]); it has not run. Only [`dispatch`] answers it.
    Lend,
}

/// Why [`run_core`] handed control back to [`run`].
enum Handback {
    /// The step's outcome.
    Step(VmStep),
    /// The instruction at the program counter needs the connection lent
    /// to a callback (an application's function, a write the pre-update
    /// hook hears of, a virtual table's method); it has not run.
    Host,
    /// The progress handler is due; `true` when a row is ready to be
    /// returned once it has run (the program counter still on its
    /// `ResultRow`).
    Progress(bool),
}

/// The program running: the statement's, or a trigger program's.
fn running<'p>(vm: &Vm, top: &'p Program) -> &'p Program {
    match vm.frames.last() {
        Some(f) => top.subprograms.get(f.sub).unwrap_or(top),
        None => top,
    }
}

/// Run `vm` on `prog` until a row, the end, pending I/O, or the end of
/// the call's quantum ([`Vm::quantum`], at a jump).
///
/// The interpreter proper is [`run_core`], which sees only the connection
/// state; it hands back the few instructions that lend the whole
/// connection to a callback (see `vdbe::host`), run here, so the per-row
/// loop is the same whatever the connection type.
pub fn run<H: VmHost>(vm: &mut Vm, prog: &Program, host: &mut H) -> Result<VmStep> {
    let top = prog;
    if vm.halted {
        return Ok(VmStep::Done);
    }
    if vm.steps == 0 {
        // The statement starts: what its failure restores.
        vm.fk_deferred_at_start = host.state().fk_deferred;
        vm.abort_seen = host.state().abort_generation;
    } else if vm.abort_seen != host.state().abort_generation {
        // A ROLLBACK TO undid a schema change while this statement ran.
        let e = Error::new(crate::error::SQLITE_ABORT_ROLLBACK, "abort due to ROLLBACK");
        txn::abort(vm, host.state(), &e, top.readonly);
        vtab_txn::after_abort(vm, host);
        return Err(e);
    }
    // Interrupts and the progress handler are looked at when the call
    // starts and at every jump (the progress handler also before a row is
    // returned), as SQLite does: a program only runs long by looping, and
    // a check per instruction was a tenth of a short scan's dispatch. The
    // progress handler counts instructions from the start of this call,
    // every N of them (the first jump past each multiple calls it).
    if host.state().interrupt.load(Ordering::Relaxed) {
        let e = Error::code(SQLITE_INTERRUPT);
        txn::abort(vm, host.state(), &e, top.readonly);
        vtab_txn::after_abort(vm, host);
        return Err(e);
    }
    let mut progress_due = match host.state().progress {
        Some((n, _)) if n > 0 => vm.steps + i64::from(n),
        _ => i64::MAX,
    };
    // A step with a time quantum (async connections, `PRAGMA
    // step_quantum`) also stops at a jump once it is spent (`quantum.rs`);
    // the core loop hands back at the first jump past either count.
    let mut quantum = vm.quantum.map(|q| quantum::Quantum::start(q, vm.steps));
    let due = |progress_due: i64, quantum: &Option<quantum::Quantum>| quantum.as_ref().map_or(progress_due, |q| q.due.min(progress_due));
    loop {
        let handback = match run_core(vm, top, host.state(), due(progress_due, &quantum)) {
            Ok(h) => h,
            Err(e) => {
                // (run_core rolled the statement back already.)
                vtab_txn::after_abort(vm, host);
                return Err(e);
            }
        };
        let flow = match handback {
            Handback::Step(step) => return Ok(step),
            Handback::Progress(row) => {
                let checked = if row { progress_check(vm, host, &mut progress_due) } else { at_jump_checks(vm, host, &mut progress_due) };
                if let Err(e) = checked {
                    txn::abort(vm, host.state(), &e, top.readonly);
                    vtab_txn::after_abort(vm, host);
                    return Err(e);
                }
                if row {
                    vm.pc += 1;
                    vm.rows_out += 1;
                    return Ok(VmStep::Row);
                }
                if quantum_spent(vm, &mut quantum) {
                    return Ok(VmStep::Yield);
                }
                continue;
            }
            Handback::Host => {
                let current = running(vm, top);
                let Some(insn) = current.insns.get(vm.pc) else {
                    return Err(internal("program counter out of range"));
                };
                vm.steps += 1;
                match insn.opcode {
                    Opcode::Function | Opcode::AggStep | Opcode::AggFinal | Opcode::AggValue | Opcode::AggInverse => agg::exec_lent(vm, insn, host),
                    Opcode::Insert | Opcode::Delete | Opcode::IdxInsert => heard_write(vm, insn, host),
                    Opcode::Halt => vtab_txn::halt(vm, current, insn, host),
                    Opcode::AutoCommit | Opcode::Savepoint => vtab_txn::txn_op(vm, current, insn, host),
                    _ => vtab::exec(vm, insn, host),
                }
            }
        };
        match flow {
            Ok(Flow::Next) => vm.pc += 1,
            Ok(Flow::Jump(a)) => {
                // (A virtual table's loop jumps here: the same checks as
                // at the core loop's jumps.)
                vm.pc = a;
                if host.state().interrupt.load(Ordering::Relaxed) || vm.steps >= progress_due {
                    if let Err(e) = at_jump_checks(vm, host, &mut progress_due) {
                        txn::abort(vm, host.state(), &e, top.readonly);
                        vtab_txn::after_abort(vm, host);
                        return Err(e);
                    }
                }
                if quantum_spent(vm, &mut quantum) {
                    return Ok(VmStep::Yield);
                }
            }
            Ok(Flow::Done) => {
                vm.halted = true;
                return Ok(VmStep::Done);
            }
            Ok(Flow::Pending) => return Ok(VmStep::Pending),
            Ok(Flow::Row) => return Err(internal("a lent instruction produced a row")),
            Ok(Flow::Lend) => return Err(internal("a lent instruction asked to be lent again")),
            Err(e) => {
                txn::abort(vm, host.state(), &e, top.readonly);
                vtab_txn::after_abort(vm, host);
                return Err(e);
            }
        }
    }
}

/// The interpreter loop: runs instructions until a row, the end, pending
/// I/O, or an instruction that needs the connection lent ([`Handback`]);
/// also at the first jump once `check_due` instructions have run (the
/// progress handler or the quantum may be due, `run` decides).
fn run_core(vm: &mut Vm, top: &Program, env: &mut ConnState, check_due: i64) -> Result<Handback> {
    let mut current = running(vm, top);
    loop {
        let Some(insn) = current.insns.get(vm.pc) else {
            return Err(Error::new(crate::error::SQLITE_INTERNAL, "program counter out of range"));
        };
        let prog = current;
        // (One match per instruction: the few that are lent the
        // connection answer `Flow::Lend` from `dispatch` itself.)
        vm.steps += 1;
        let flow = dispatch(vm, top, &mut current, prog, insn, env);
        match flow {
            Ok(Flow::Next) => vm.pc += 1,
            Ok(Flow::Jump(a)) => {
                vm.pc = a;
                if env.interrupt.load(Ordering::Relaxed) || vm.steps >= check_due {
                    return Ok(Handback::Progress(false));
                }
            }
            Ok(Flow::Row) => {
                // (SQLite also asks the progress handler before it returns
                // a row: a program without loops is stopped there.)
                if vm.steps >= check_due {
                    return Ok(Handback::Progress(true));
                }
                vm.pc += 1;
                vm.rows_out += 1;
                return Ok(Handback::Step(VmStep::Row));
            }
            Ok(Flow::Done) => {
                vm.halted = true;
                return Ok(Handback::Step(VmStep::Done));
            }
            Ok(Flow::Pending) => return Ok(Handback::Step(VmStep::Pending)),
            Ok(Flow::Lend) => {
                // Handed back before it counts as run (see `run`).
                vm.steps -= 1;
                return Ok(Handback::Host);
            }
            Err(e) => {
                txn::abort(vm, env, &e, top.readonly);
                return Err(e);
            }
        }
    }
}

/// Execute one instruction (its family's function), or answer
/// [`Flow::Lend`] for one that needs the connection lent: an application's
/// function, a write the pre-update hook hears of, a virtual table's
/// method, a transaction end while virtual tables take part.
#[inline(always)]
fn dispatch<'p>(vm: &mut Vm, top: &'p Program, current: &mut &'p Program, prog: &'p Program, insn: &super::program::Insn, env: &mut ConnState) -> Result<Flow> {
    match insn.opcode {
        // The per-row opcodes of scans first, each to its own function.
        Opcode::Column => record::column_op(vm, insn, env),
        Opcode::Next => cursor::next_op(vm, insn, env),
        Opcode::Rowid => record::rowid_op(vm, insn, env),
        // The end of a trigger program returns to its caller.
        Opcode::Halt if insn.p1 == 0 && !vm.frames.is_empty() => {
            let flow = frame::leave(vm, insn.p3 != 0);
            *current = running(vm, top);
            Ok(flow)
        }
        Opcode::Halt if insn.p1 == 0 && !env.vtabs.in_transaction.is_empty() => Ok(Flow::Lend),
        Opcode::AutoCommit | Opcode::Savepoint if !env.vtabs.in_transaction.is_empty() => Ok(Flow::Lend),
        Opcode::Insert | Opcode::Delete | Opcode::IdxInsert if env.preupdate_hook.is_some() => Ok(Flow::Lend),
        Opcode::Function | Opcode::AggStep | Opcode::AggFinal | Opcode::AggValue | Opcode::AggInverse if agg::lends(insn) => Ok(Flow::Lend),
        Opcode::Program => {
            let flow = frame::enter(vm, top, insn, env.max_trigger_depth);
            *current = running(vm, top);
            flow
        }
        Opcode::CursorLock | Opcode::CursorUnlock => write::lock(vm, insn),
        Opcode::TriggerEnter | Opcode::TriggerLeave | Opcode::ResetCount => trigger_counts::exec(vm, insn, env),
        Opcode::Init
        | Opcode::Goto
        | Opcode::Gosub
        | Opcode::Return
        | Opcode::If
        | Opcode::IfNot
        | Opcode::IsNull
        | Opcode::NotNull
        | Opcode::IsType
        | Opcode::IfPos
        | Opcode::IfNotZero
        | Opcode::DecrJumpZero
        | Opcode::OffsetLimit
        | Opcode::Once
        | Opcode::Jump
        | Opcode::Noop
        | Opcode::InitCoroutine
        | Opcode::Yield
        | Opcode::EndCoroutine
        | Opcode::ResultRow
        | Opcode::HaltIfNull
        | Opcode::ChangeCount
        | Opcode::ResultRowConst => control::exec(vm, prog, insn),
        Opcode::String8 | Opcode::Blob => arith::literal(vm, insn, env.max_length),
        Opcode::FilterAdd | Opcode::Filter => Ok(bloom::exec(vm, insn)),
        Opcode::Integer
        | Opcode::Int64
        | Opcode::Real
        | Opcode::Null
        | Opcode::Variable
        | Opcode::Move
        | Opcode::Copy
        | Opcode::SCopy
        | Opcode::GetSubtype
        | Opcode::SetSubtype
        | Opcode::IntCopy
        | Opcode::MustBeInt
        | Opcode::RealAffinity
        | Opcode::Affinity
        | Opcode::TypeCheck
        | Opcode::Cast
        | Opcode::Add
        | Opcode::Subtract
        | Opcode::Multiply
        | Opcode::Divide
        | Opcode::Remainder
        | Opcode::BitAnd
        | Opcode::BitOr
        | Opcode::ShiftLeft
        | Opcode::ShiftRight
        | Opcode::BitNot
        | Opcode::Not
        | Opcode::And
        | Opcode::Or
        | Opcode::IsTrue => arith::exec(vm, insn),
        Opcode::Concat => arith::concat(vm, insn, env.max_length),
        Opcode::Eq | Opcode::Ne | Opcode::Lt | Opcode::Le | Opcode::Gt | Opcode::Ge | Opcode::Compare => compare::exec(vm, insn),
        Opcode::Function | Opcode::AggStep | Opcode::AggFinal | Opcode::AggValue | Opcode::AggInverse => agg::exec(vm, insn, env),
        Opcode::MakeRecord => record::make_record(vm, insn, &prog.insns, env),
        Opcode::IdxRowid | Opcode::RowData => record::exec(vm, insn, env),
        Opcode::OpenRead
        | Opcode::OpenWrite
        | Opcode::OpenEphemeral
        | Opcode::OpenPseudo
        | Opcode::Close
        | Opcode::NullRow
        | Opcode::IfNullRow
        | Opcode::Rewind
        | Opcode::Last
        | Opcode::Prev
        | Opcode::Count
        | Opcode::Sequence
        | Opcode::SorterOpen
        | Opcode::SorterInsert
        | Opcode::SorterSort
        | Opcode::SorterNext
        | Opcode::SorterData => cursor::exec(vm, insn, env),
        Opcode::SeekRowid
        | Opcode::NotExists
        | Opcode::SeekGE
        | Opcode::SeekGT
        | Opcode::SeekLE
        | Opcode::SeekLT
        | Opcode::IdxGE
        | Opcode::IdxGT
        | Opcode::IdxLE
        | Opcode::IdxLT
        | Opcode::Found
        | Opcode::NotFound
        | Opcode::NoConflict => {
            let flow = seek::exec(vm, insn, env);
            if matches!(insn.opcode, Opcode::SeekRowid | Opcode::SeekGE | Opcode::SeekGT | Opcode::SeekLE | Opcode::SeekLT) && matches!(flow, Ok(Flow::Pending))
            {
                seek_ahead::after_wait(vm, &prog.insns, env);
            }
            flow
        }
        Opcode::NewRowid | Opcode::Insert | Opcode::Delete | Opcode::IdxInsert | Opcode::IdxDelete => write::exec(vm, insn, env),
        Opcode::Halt | Opcode::Transaction | Opcode::AutoCommit | Opcode::Savepoint | Opcode::ReadCookie | Opcode::SetCookie => txn::exec(vm, prog, insn, env),
        Opcode::CreateBtree
        | Opcode::Destroy
        | Opcode::Clear
        | Opcode::ParseSchema
        | Opcode::DropTable
        | Opcode::DropIndex
        | Opcode::IntegrityCk
        | Opcode::Pagecount
        | Opcode::PragmaBtree => schema::exec(vm, insn, env),
        Opcode::FkCounter | Opcode::FkIfZero | Opcode::FkIfOff | Opcode::FkCheck => fkey::exec(vm, insn, env),
        Opcode::JsonRows => tablefn::exec(vm, insn),
        // (Lent the connection, always.)
        Opcode::VOpen
        | Opcode::VFilter
        | Opcode::VNext
        | Opcode::VColumn
        | Opcode::VRowid
        | Opcode::VUpdate
        | Opcode::VBegin
        | Opcode::VCreate
        | Opcode::VDestroy
        | Opcode::VRename
        | Opcode::VCheck
        | Opcode::VInitIn => Ok(Flow::Lend),
    }
}

/// `Insert`, `Delete` or `IdxInsert` with a pre-update hook installed: the
/// hook is told first (once, see [`preupdate`]), then the write is made.
fn heard_write(vm: &mut Vm, insn: &super::program::Insn, host: &mut dyn VmHost) -> Result<Flow> {
    if preupdate::fire(vm, insn, host)?.is_pending() {
        return Ok(Flow::Pending);
    }
    let flow = write::exec(vm, insn, host.state());
    if !matches!(flow, Ok(Flow::Pending)) && vm.phase.is_some_and(|(pc, phase)| pc == vm.pc && phase == preupdate::PHASE_HEARD) {
        vm.phase = None;
    }
    flow
}

/// At a jump (the program counter on its target): whether the call's
/// quantum, if it has one and its check is due, is spent.
#[inline]
fn quantum_spent(vm: &Vm, quantum: &mut Option<quantum::Quantum>) -> bool {
    match quantum {
        Some(q) if vm.steps >= q.due => q.spent(vm.steps),
        _ => false,
    }
}

/// The interrupt flag and the progress handler, at a jump where either
/// may be due: `SQLITE_INTERRUPT` when the statement must stop.
#[cold]
fn at_jump_checks(vm: &Vm, host: &mut dyn VmHost, progress_due: &mut i64) -> Result<()> {
    if host.state().interrupt.load(Ordering::Relaxed) {
        return Err(Error::code(SQLITE_INTERRUPT));
    }
    progress_check(vm, host, progress_due)
}

/// The progress handler, if `progress_due` instructions have run. It is
/// lent the connection (it may run SQL there, watched by it in turn).
#[cold]
fn progress_check(vm: &Vm, host: &mut dyn VmHost, progress_due: &mut i64) -> Result<()> {
    // Once per N instructions run, however far apart the checks.
    while vm.steps >= *progress_due {
        let Some((n, cb)) = host.state().progress.clone() else { return Ok(()) };
        if n <= 0 {
            return Ok(());
        }
        *progress_due += i64::from(n);
        if super::host::lend(host, |h| cb(h)) {
            return Err(Error::code(SQLITE_INTERRUPT));
        }
    }
    Ok(())
}

/// Register access helpers shared by the families.
pub(crate) fn reg(vm: &Vm, i: i32) -> &Value {
    vm.regs.get(i as usize).map(|r| &r.value).unwrap_or(&Value::Null)
}

#[inline]
pub(crate) fn set_reg(vm: &mut Vm, i: i32, v: Value) {
    let i = i as usize;
    if i >= vm.regs.len() {
        vm.regs.resize(i + 1, Default::default());
    }
    vm.regs[i].set(v);
}

pub(crate) fn internal(msg: &str) -> Error {
    Error::new(crate::error::SQLITE_INTERNAL, msg.to_string())
}
