//! The interpreter loop and the dispatch of opcodes to their families.
//!
//! Each family module executes its opcodes and answers with a [`Flow`]:
//! go on, jump, a row is ready, halt, or wait for I/O (the program counter
//! then stays on the instruction, see the module doc of `vdbe`).

mod arith;
mod compare;
mod control;
mod agg;
mod record;
mod cursor;
mod seek;
pub mod write;
pub mod txn;
pub(crate) mod schema;
mod fkey;
mod tablefn;
pub mod frame;
pub mod trigger_counts;

use super::program::{Opcode, Program};
use super::host::VmHost;
use super::{Vm, VmStep};
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
}

/// Run `vm` on `prog` until a row, the end, or pending I/O.
pub fn run<H: VmHost>(vm: &mut Vm, prog: &Program, host: &mut H) -> Result<VmStep> {
    let top = prog;
    if vm.halted {
        return Ok(VmStep::Done);
    }
    if vm.steps == 0 {
        // The statement starts: what its failure restores.
        vm.fk_deferred_at_start = host.state().fk_deferred;
    }
    // The program running: the statement's, or a trigger program's (found
    // again whenever a frame is entered or left).
    let running = |vm: &Vm| match vm.frames.last() {
        Some(f) => top.subprograms.get(f.sub).unwrap_or(top),
        None => top,
    };
    let mut current = running(vm);
    // Interrupts and the progress handler are looked at when the call
    // starts and at every jump (the progress handler also before a row is
    // returned), as SQLite does: a program only runs long by looping, and
    // a check per instruction was a tenth of a short scan's dispatch. The progress handler counts instructions from the
    // start of this call, every N of them (the first jump past each
    // multiple calls it).
    if host.state().interrupt.load(Ordering::Relaxed) {
        let e = Error::code(SQLITE_INTERRUPT);
        txn::abort(vm, host.state(), &e, top.readonly);
        return Err(e);
    }
    let mut progress_due = match host.state().progress {
        Some((n, _)) if n > 0 => vm.steps + i64::from(n),
        _ => i64::MAX,
    };
    loop {
        let Some(insn) = current.insns.get(vm.pc) else {
            return Err(Error::new(crate::error::SQLITE_INTERNAL, "program counter out of range"));
        };
        vm.steps += 1;
        let prog = current;
        let flow = match insn.opcode {
            // The per-row opcodes of scans first, each to its own function.
            Opcode::Column => record::column_op(vm, insn, host.state()),
            Opcode::Next => cursor::next_op(vm, insn, host.state()),
            Opcode::Rowid => record::rowid_op(vm, insn, host.state()),
            // The end of a trigger program returns to its caller.
            Opcode::Halt if insn.p1 == 0 && !vm.frames.is_empty() => {
                let flow = frame::leave(vm, insn.p3 != 0);
                current = running(vm);
                Ok(flow)
            }
            Opcode::Program => {
                let flow = frame::enter(vm, top, insn, host.state().max_trigger_depth);
                current = running(vm);
                flow
            }
            Opcode::CursorLock | Opcode::CursorUnlock => write::lock(vm, insn),
            Opcode::TriggerEnter | Opcode::TriggerLeave | Opcode::ResetCount => trigger_counts::exec(vm, insn, host.state()),
            Opcode::Init | Opcode::Goto | Opcode::Gosub | Opcode::Return | Opcode::If | Opcode::IfNot
            | Opcode::IsNull | Opcode::NotNull | Opcode::IfPos | Opcode::IfNotZero | Opcode::DecrJumpZero
            | Opcode::OffsetLimit | Opcode::Once | Opcode::Jump | Opcode::Noop | Opcode::InitCoroutine
            | Opcode::Yield | Opcode::EndCoroutine | Opcode::ResultRow | Opcode::HaltIfNull | Opcode::ChangeCount
            | Opcode::ResultRowConst => control::exec(vm, prog, insn),
            Opcode::String8 | Opcode::Blob => arith::literal(vm, insn, host.state().max_length),
            Opcode::Integer | Opcode::Int64 | Opcode::Real | Opcode::Null
            | Opcode::Variable | Opcode::Move | Opcode::Copy | Opcode::SCopy | Opcode::GetSubtype | Opcode::SetSubtype | Opcode::IntCopy
            | Opcode::MustBeInt | Opcode::RealAffinity | Opcode::Affinity | Opcode::TypeCheck | Opcode::Cast | Opcode::Add
            | Opcode::Subtract | Opcode::Multiply | Opcode::Divide | Opcode::Remainder
            | Opcode::BitAnd | Opcode::BitOr | Opcode::ShiftLeft | Opcode::ShiftRight | Opcode::BitNot
            | Opcode::Not | Opcode::And | Opcode::Or | Opcode::IsTrue => arith::exec(vm, insn),
            Opcode::Concat => arith::concat(vm, insn, host.state().max_length),
            Opcode::Eq | Opcode::Ne | Opcode::Lt | Opcode::Le | Opcode::Gt | Opcode::Ge | Opcode::Compare => {
                compare::exec(vm, insn)
            }
            Opcode::Function | Opcode::AggStep | Opcode::AggFinal | Opcode::AggValue => agg::exec(vm, insn, host),
            Opcode::MakeRecord | Opcode::IdxRowid | Opcode::RowData => record::exec(vm, insn, host.state()),
            Opcode::OpenRead | Opcode::OpenWrite | Opcode::OpenEphemeral | Opcode::OpenPseudo | Opcode::Close
            | Opcode::NullRow | Opcode::IfNullRow | Opcode::Rewind | Opcode::Last | Opcode::Prev | Opcode::Count
            | Opcode::Sequence | Opcode::SorterOpen | Opcode::SorterInsert | Opcode::SorterSort
            | Opcode::SorterNext | Opcode::SorterData => cursor::exec(vm, insn, host.state()),
            Opcode::SeekRowid | Opcode::NotExists | Opcode::SeekGE | Opcode::SeekGT | Opcode::SeekLE
            | Opcode::SeekLT | Opcode::IdxGE | Opcode::IdxGT | Opcode::IdxLE | Opcode::IdxLT | Opcode::Found
            | Opcode::NotFound | Opcode::NoConflict => seek::exec(vm, insn, host.state()),
            Opcode::NewRowid | Opcode::Insert | Opcode::Delete | Opcode::IdxInsert | Opcode::IdxDelete => {
                write::exec(vm, insn, host.state())
            }
            Opcode::Halt | Opcode::Transaction | Opcode::AutoCommit | Opcode::Savepoint | Opcode::ReadCookie
            | Opcode::SetCookie => txn::exec(vm, prog, insn, host.state()),
            Opcode::CreateBtree | Opcode::Destroy | Opcode::Clear | Opcode::ParseSchema | Opcode::DropTable
            | Opcode::DropIndex | Opcode::IntegrityCk | Opcode::Pagecount | Opcode::PragmaBtree => {
                schema::exec(vm, insn, host.state())
            }
            Opcode::FkCounter | Opcode::FkIfZero | Opcode::FkIfOff | Opcode::FkCheck => fkey::exec(vm, insn, host.state()),
            Opcode::JsonRows => tablefn::exec(vm, insn),
        };
        match flow {
            Ok(Flow::Next) => vm.pc += 1,
            Ok(Flow::Jump(a)) => {
                vm.pc = a;
                if host.state().interrupt.load(Ordering::Relaxed) || vm.steps >= progress_due {
                    if let Err(e) = at_jump_checks(vm, host, &mut progress_due) {
                        txn::abort(vm, host.state(), &e, top.readonly);
                        return Err(e);
                    }
                }
            }
            Ok(Flow::Row) => {
                // (SQLite also asks the progress handler before it returns
                // a row: a program without loops is stopped there.)
                if vm.steps >= progress_due {
                    if let Err(e) = progress_check(vm, host, &mut progress_due) {
                        txn::abort(vm, host.state(), &e, top.readonly);
                        return Err(e);
                    }
                }
                vm.pc += 1;
                vm.rows_out += 1;
                return Ok(VmStep::Row);
            }
            Ok(Flow::Done) => {
                vm.halted = true;
                return Ok(VmStep::Done);
            }
            Ok(Flow::Pending) => return Ok(VmStep::Pending),
            Err(e) => {
                txn::abort(vm, host.state(), &e, top.readonly);
                return Err(e);
            }
        }
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
