//! Trigger programs run in frames: `Program` saves the caller's registers,
//! cursors, aggregate states and `Once` marks in a [`Frame`], gives the
//! trigger program fresh ones (its first registers copied from the
//! caller's OLD/NEW block), and the program's ending `Halt` puts the
//! caller's back and continues it after the `Program` (or at its P2 on
//! RAISE(IGNORE)).
//!
//! Invariants: entering and leaving do no I/O, so neither suspends; an
//! instruction of a trigger program that suspends leaves the frame stack as it
//! is, and re-running the VM continues inside the same frame (the program
//! running is the innermost frame's). At most `SQLITE_LIMIT_TRIGGER_DEPTH`
//! frames are open ([`MAX_TRIGGER_DEPTH`] unless lowered); one more fails the
//! statement (checked: trigger_frame_depth).

use super::{internal, Flow};
use crate::error::{Error, Result};
use crate::vdbe::agg_slots::AggSlots;
use crate::vdbe::cursor::VmCursor;
use crate::vdbe::program::{Insn, Program, P4};
use crate::vdbe::register::Register;
use crate::vdbe::Vm;
use std::collections::HashSet;

/// How deeply trigger programs may nest (SQLite's SQLITE_MAX_TRIGGER_DEPTH).
pub const MAX_TRIGGER_DEPTH: usize = 1000;

/// A running trigger program and the state of its caller.
pub struct Frame {
    /// The trigger program running (index into `Program::subprograms`).
    pub sub: usize,
    /// Address of the caller's `Program` instruction.
    return_pc: usize,
    /// Where the caller continues after RAISE(IGNORE).
    ignore_pc: usize,
    regs: Vec<Register>,
    cursors: Vec<Option<VmCursor>>,
    aggs: AggSlots,
    once: HashSet<usize>,
    phase: Option<(usize, u8)>,
    last_cmp: std::cmp::Ordering,
}

/// `Program`: start trigger program P3 in a new frame.
pub fn enter(vm: &mut Vm, top: &Program, insn: &Insn, max_depth: usize) -> Result<Flow> {
    let sub = insn.p3 as usize;
    let Some(p) = top.subprograms.get(sub) else {
        return Err(internal("Program names no trigger program"));
    };
    // invariant: trigger_frame_depth
    if vm.frames.len() >= max_depth {
        return Err(Error::sql("triggers nested too deep"));
    }
    let n = match insn.p4 {
        P4::Int64(n) => n.max(0) as usize,
        _ => 0,
    };
    let mut regs = vec![Register::default(); p.n_regs.max(n) + 1];
    for (i, r) in regs.iter_mut().skip(1).take(n).enumerate() {
        r.set(super::reg(vm, insn.p1 + i as i32).clone());
    }
    let cursors = (0..p.n_cursors).map(|_| None).collect();
    let frame = Frame {
        sub,
        return_pc: vm.pc,
        ignore_pc: insn.p2.max(0) as usize,
        regs: std::mem::replace(&mut vm.regs, regs),
        cursors: std::mem::replace(&mut vm.cursors, cursors),
        aggs: std::mem::take(&mut vm.aggs),
        once: std::mem::take(&mut vm.once),
        phase: vm.phase.take(),
        last_cmp: vm.last_cmp,
    };
    vm.frames.push(frame);
    Ok(Flow::Jump(0))
}

/// The trigger program ended (`ignore`: by RAISE(IGNORE)): back to the
/// caller.
pub fn leave(vm: &mut Vm, ignore: bool) -> Flow {
    vm.close_cursors();
    let Some(f) = vm.frames.pop() else { return Flow::Done };
    vm.regs = f.regs;
    vm.cursors = f.cursors;
    vm.aggs = f.aggs;
    vm.once = f.once;
    vm.phase = f.phase;
    vm.last_cmp = f.last_cmp;
    Flow::Jump(if ignore { f.ignore_pc } else { f.return_pc + 1 })
}
