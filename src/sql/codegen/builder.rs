//! The program builder: appends instructions, allocates registers and
//! cursors, resolves forward jumps through labels, and collects the
//! constants hoisted into the prologue.
//!
//! Invariants: a label is a negative number `-1 - n` until `finish`
//! replaces every use (P2 of jumping opcodes; P1/P2/P3 of `Jump`) by the
//! address it was bound to (checked: program_jumps_resolved), and it is
//! bound once (checked: label_bound_once). A hoisted
//! constant's register is written only by its load in the prologue
//! (`Compiler::end_program` places the loads there); `finish` refuses a
//! builder still holding loads it never placed (checked:
//! builder_constants_placed).

use crate::error::{Error, Result};
use crate::vdbe::program::{Insn, Opcode, Program, P4};

/// A forward-jump target.
pub type Label = i32;

/// Builds one program.
#[derive(Default)]
pub struct Builder {
    /// Instructions so far.
    pub insns: Vec<Insn>,
    labels: Vec<Option<usize>>,
    /// Highest register allocated.
    pub n_regs: usize,
    /// Cursors allocated.
    pub n_cursors: usize,
    /// Whether constants may be hoisted: the program starts with `Init`
    /// and its prologue will run [`Builder::constants`] (see
    /// [`Builder::hoisted_constant`]). A scratch builder never hoists.
    pub hoisting: bool,
    /// Instructions loading constants into registers of their own, run
    /// once by the prologue `Init` jumps to instead of on every row.
    pub constants: Vec<Insn>,
    /// EXPLAIN comments: (address, comment), in the order set (a later
    /// one for the same address replaces an earlier; `finish` drops those
    /// of instructions no longer there).
    comments: Vec<(u32, Box<str>)>,
    /// Debug builds: loops opened into this program and not closed yet
    /// (`query/nested_loops.rs`; a scratch builder thrown away takes its
    /// count with it).
    #[cfg(debug_assertions)]
    pub open_loops: usize,
}

// `add`, `add4`, `label` and `bind` are called from about 2,000 places in
// the compiler: out of line, each call is a few bytes instead of an
// inlined `Vec::push` with its growth check (about 120 KB of the library
// in all, bench/RESULTS.md "Installed size"); a call per instruction
// built costs nothing measurable in a prepare.
impl Builder {
    /// A builder for a whole statement, with room for a small program's
    /// instructions (no regrowing for the common short programs).
    pub fn for_statement() -> Builder {
        Builder { insns: Vec::with_capacity(16), ..Builder::default() }
    }

    /// Append an instruction; returns its address.
    #[inline(never)]
    pub fn add(&mut self, opcode: Opcode, p1: i32, p2: i32, p3: i32) -> usize {
        self.add4(opcode, p1, p2, p3, P4::None, 0)
    }

    /// Append an instruction with P4 and P5.
    #[inline(never)]
    pub fn add4(&mut self, opcode: Opcode, p1: i32, p2: i32, p3: i32, p4: P4, p5: u16) -> usize {
        self.insns.push(Insn { opcode, p1, p2, p3, p4, p5 });
        self.insns.len() - 1
    }

    /// A register holding a constant for the whole run, loaded once by
    /// the prologue (`load` fills the given register), or `None` when
    /// this builder does not hoist. Nothing else ever writes the register.
    pub fn hoisted_constant(&mut self, load: impl FnOnce(i32) -> (Opcode, i32, i32, i32, P4)) -> Option<i32> {
        if !self.hoisting {
            return None;
        }
        let r = self.reg();
        let (opcode, p1, p2, p3, p4) = load(r);
        self.constants.push(Insn { opcode, p1, p2, p3, p4, p5: 0 });
        Some(r)
    }

    /// Move the last instruction, when it loads a constant (a literal or
    /// a bound parameter) into `r`, to the prologue: `r` is then written
    /// only by that load (the caller's register, e.g. a function
    /// argument, read-only from then on). Returns whether it moved.
    pub fn hoist_last_load(&mut self, r: i32) -> bool {
        let movable = self.hoisting
            && self.insns.last().is_some_and(|i| {
                let target = i.p2 == r && (i.opcode != Opcode::Null || (i.p1 == 0 && i.p3 <= r));
                target && matches!(i.opcode, Opcode::Integer | Opcode::Int64 | Opcode::Real | Opcode::String8 | Opcode::Blob | Opcode::Null | Opcode::Variable)
            });
        if movable {
            let insn = self.insns.pop().expect("checked above");
            self.constants.push(insn);
        }
        movable
    }

    /// Set the comment of the last instruction.
    pub fn comment(&mut self, c: impl Into<String>) {
        if let Some(at) = self.insns.len().checked_sub(1) {
            self.comments.push((at as u32, c.into().into_boxed_str()));
        }
    }

    /// Drop the comment of the instruction at `addr` (it became another).
    pub fn clear_comment(&mut self, addr: usize) {
        self.comments.retain(|c| c.0 as usize != addr);
    }

    /// Address of the next instruction.
    pub fn here(&self) -> usize {
        self.insns.len()
    }

    /// A new unbound label.
    #[inline(never)]
    pub fn label(&mut self) -> Label {
        self.labels.push(None);
        -(self.labels.len() as i32)
    }

    /// Bind a label to the next instruction's address.
    #[inline(never)]
    pub fn bind(&mut self, l: Label) {
        let here = self.insns.len();
        // invariant: label_bound_once
        debug_assert!(self.labels[(-l - 1) as usize].is_none_or(|a| a == here), "label {l} bound twice");
        self.labels[(-l - 1) as usize] = Some(here);
    }

    /// One new register.
    pub fn reg(&mut self) -> i32 {
        self.n_regs += 1;
        self.n_regs as i32
    }

    /// `n` consecutive new registers; returns the first.
    pub fn regs(&mut self, n: usize) -> i32 {
        let first = self.n_regs + 1;
        self.n_regs += n.max(1);
        first as i32
    }

    /// A new cursor number.
    pub fn cursor(&mut self) -> i32 {
        self.n_cursors += 1;
        (self.n_cursors - 1) as i32
    }

    fn resolve(&self, v: i32) -> Result<i32> {
        if v >= 0 {
            return Ok(v);
        }
        match self.labels.get((-v - 1) as usize) {
            Some(Some(a)) => Ok(*a as i32),
            _ => Err(Error::new(crate::error::SQLITE_INTERNAL, "unbound label in generated code")),
        }
    }

    /// Resolve labels and produce the program.
    pub fn finish(mut self, mut prog: Program) -> Result<Program> {
        // invariant: loops_closed
        #[cfg(debug_assertions)]
        debug_assert_eq!(self.open_loops, 0, "a program ends with loops still open");
        prog.compile_checkpoints = (self.labels.len() / 100) as u32;
        // invariant: builder_constants_placed
        if !self.constants.is_empty() {
            return Err(Error::new(crate::error::SQLITE_INTERNAL, "hoisted constants without a prologue"));
        }
        let jumps = |op: Opcode| {
            use Opcode::*;
            matches!(
                op,
                Init | Goto
                    | Gosub
                    | If
                    | IfNot
                    | IsNull
                    | NotNull
                    | IsType
                    | IfPos
                    | IfNotZero
                    | DecrJumpZero
                    | Once
                    | Filter
                    | InitCoroutine
                    | Yield
                    | Rewind
                    | Last
                    | Next
                    | Prev
                    | SeekRowid
                    | NotExists
                    | SeekGE
                    | SeekGT
                    | SeekLE
                    | SeekLT
                    | IdxGE
                    | IdxGT
                    | IdxLE
                    | IdxLT
                    | Found
                    | NotFound
                    | NoConflict
                    | SorterSort
                    | SorterNext
                    | MustBeInt
                    | Eq
                    | Ne
                    | Lt
                    | Le
                    | Gt
                    | Ge
                    | FkIfZero
                    | FkIfOff
                    | IfNullRow
                    | Program
                    | VFilter
                    | VNext
            )
        };
        let mut insns = std::mem::take(&mut self.insns);
        let insns_len = insns.len();
        for i in insns.iter_mut() {
            if i.opcode == Opcode::Jump {
                i.p1 = self.resolve(i.p1)?;
                i.p2 = self.resolve(i.p2)?;
                i.p3 = self.resolve(i.p3)?;
            } else if jumps(i.opcode)
                && !(matches!(i.opcode, Opcode::Eq | Opcode::Ne | Opcode::Lt | Opcode::Le | Opcode::Gt | Opcode::Ge)
                    && i.p5 & crate::vdbe::program::cmp_flags::STOREP2 != 0)
            {
                i.p2 = self.resolve(i.p2)?;
                // invariant: program_jumps_resolved
                debug_assert!(i.p2 >= 0 && i.p2 as usize <= insns_len, "{:?} jumps to {}", i.opcode, i.p2);
            }
        }
        prog.insns = insns;
        // (Stable: of two comments for one address the later stays.)
        let mut comments = std::mem::take(&mut self.comments);
        crate::util::cold_sort::sort_by_key(&mut comments, |c| c.0);
        comments.reverse();
        comments.dedup_by_key(|c| c.0);
        comments.reverse();
        comments.retain(|c| (c.0 as usize) < prog.insns.len());
        prog.comments = comments;
        prog.n_regs = self.n_regs;
        prog.n_cursors = self.n_cursors;
        Ok(prog)
    }
}
