//! Trigger programs (`PRAGMA recursive_triggers = ON`): each trigger is
//! compiled once per statement into a program of its own
//! (`Program::subprograms`), which the firing statement, or another trigger
//! program, runs with the `Program` instruction in a new frame of registers
//! and cursors (`vdbe::exec::frame`). A trigger may then fire itself,
//! directly or through others, as deeply as the VM allows.
//!
//! Calling convention: the caller copies OLD's rowid and columns, then
//! NEW's, into a block of 2 × (columns + 1) registers; they are the trigger
//! program's registers 1.. (a missing OLD or NEW stays NULL). The program
//! ends with `Halt` (P3 = 1 for RAISE(IGNORE), which makes the caller skip
//! its row).
//!
//! Invariant: while a trigger program is compiled, every piece of compiler
//! state that names registers, cursors or addresses of the program being
//! built is set aside and restored afterwards: the builder and the
//! [`FrameState`] (`SavedProgramState`).

use crate::error::Result;
use crate::sql::codegen::builder::Builder;
use crate::sql::codegen::target::WriteTarget;
use crate::sql::codegen::{Compiler, FrameState};
use crate::util::ascii::AsciiLower;
use crate::vdbe::program::{Opcode, Program, P4};
use sqlite3_parser::ast;

/// Compiler state tied to the program being built.
struct SavedProgramState {
    b: Builder,
    frame: FrameState,
}

impl Compiler<'_> {
    fn set_aside_program_state(&mut self) -> SavedProgramState {
        SavedProgramState { b: std::mem::take(&mut self.b), frame: std::mem::take(&mut self.frame) }
    }

    /// Put back what `set_aside_program_state` took; returns the builder
    /// of the trigger program.
    fn restore_program_state(&mut self, s: SavedProgramState) -> Builder {
        self.frame = s.frame;
        std::mem::replace(&mut self.b, s.b)
    }

    /// Fire trigger `name` of `t` by running its trigger program (compiled
    /// now unless this statement has it already): `old`/`new` are the row
    /// registers and rowid, `skip` where RAISE(IGNORE) sends the caller.
    pub(in crate::sql::codegen) fn call_trigger_program(
        &mut self,
        t: &WriteTarget,
        name: &str,
        when: Option<&ast::Expr<'_>>,
        commands: &[ast::TriggerCmd<'_>],
        old: Option<(i32, i32)>,
        new: Option<(i32, i32)>,
        skip: i32,
    ) -> Result<()> {
        let width = t.table.columns.len() + 1;
        // The firing statement's OR clause is compiled into the body.
        let key = format!("{}\u{0}{}\u{0}{:?}", t.table.db, name.ascii_lower(), self.dml.outer_conflict);
        let index = match self.stmt.trigger_programs.iter().find(|(k, _)| *k == key) {
            Some((_, i)) => *i,
            None => {
                let index = self.stmt.subprograms.len();
                self.stmt.subprograms.push(Program::default());
                self.stmt.trigger_programs.push((key, index));
                let saved = self.set_aside_program_state();
                let base = self.b.regs(2 * width);
                let ignored = self.b.label();
                let r = self.run_trigger(
                    t,
                    name,
                    when,
                    commands,
                    old.map(|_| (base + 1, base)),
                    new.map(|_| (base + width as i32 + 1, base + width as i32)),
                    ignored,
                );
                self.b.add(Opcode::Halt, 0, 0, 0);
                self.b.bind(ignored);
                self.b.add(Opcode::Halt, 0, 0, 1);
                let body = self.restore_program_state(saved);
                r?;
                self.stmt.subprograms[index] = body.finish(Program::default())?;
                index
            }
        };
        let block = self.b.regs(2 * width);
        for (at, regs) in [(block, old), (block + width as i32, new)] {
            match regs {
                Some((row, rowid)) => {
                    self.b.add(Opcode::SCopy, rowid, at, 0);
                    self.b.add(Opcode::Copy, row, at + 1, width as i32 - 2);
                }
                None => {
                    self.b.add(Opcode::Null, 0, at, at + width as i32 - 1);
                }
            }
        }
        self.b.add4(Opcode::Program, block, skip, index as i32, P4::Int64(2 * width as i64), 0);
        Ok(())
    }
}
