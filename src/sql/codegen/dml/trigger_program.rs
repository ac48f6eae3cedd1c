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
//! built is set aside and restored afterwards (`SavedProgramState`).

use crate::error::Result;
use crate::sql::codegen::builder::Builder;
use crate::sql::codegen::target::WriteTarget;
use crate::sql::codegen::Compiler;
use crate::util::ascii::AsciiLower;
use crate::vdbe::program::{Opcode, Program, P4};
use sqlite3_parser::ast;
use std::collections::HashMap;

/// Compiler state tied to the program being built.
struct SavedProgramState {
    b: Builder,
    col_map: crate::util::fast_hash::FastMap<(i32, i64), crate::sql::codegen::ColumnSource>,
    agg_regs: crate::util::fast_hash::FastMap<String, i32>,
    agg_scope_depth: usize,
    agg_owner_depth: crate::util::fast_hash::FastMap<i32, usize>,
    using_coalesce: HashMap<(i32, i64), Vec<crate::sql::resolve::ColumnRef>>,
    record_positions: HashMap<i32, Vec<usize>>,
    ephem_records: HashMap<i32, Vec<usize>>,
    autoinc: Option<(i32, i32, i32, i32)>,
    inserted_rows: Option<i32>,
    recursive: Vec<crate::sql::codegen::RecursiveBinding>,
    recursive_orders: Vec<crate::sql::codegen::RecursiveOrder>,
    compound_key_opens: Vec<usize>,
    seek_consumed: Option<usize>,
    row_values_after: Vec<(String, usize)>,
    in_exists: bool,
    in_aggregate_query: bool,
    comparing: bool,
    ctes: Vec<HashMap<String, crate::sql::codegen::CteDef>>,
    insert_alias: Option<String>,
    dml_target: Option<String>,
    internal_rowid_read: bool,
    pure_context: i32,
}

impl Compiler<'_> {
    fn set_aside_program_state(&mut self) -> SavedProgramState {
        SavedProgramState {
            b: std::mem::take(&mut self.b),
            col_map: std::mem::take(&mut self.col_map),
            agg_regs: std::mem::take(&mut self.agg_regs),
            agg_scope_depth: std::mem::take(&mut self.agg_scope_depth),
            agg_owner_depth: std::mem::take(&mut self.agg_owner_depth),
            using_coalesce: std::mem::take(&mut self.using_coalesce),
            record_positions: std::mem::take(&mut self.record_positions),
            ephem_records: std::mem::take(&mut self.ephem_records),
            autoinc: self.autoinc.take(),
            inserted_rows: self.inserted_rows.take(),
            recursive: std::mem::take(&mut self.recursive),
            recursive_orders: std::mem::take(&mut self.recursive_orders),
            compound_key_opens: std::mem::take(&mut self.compound_key_opens),
            seek_consumed: self.seek_consumed.take(),
            row_values_after: std::mem::take(&mut self.row_values_after),
            in_exists: std::mem::take(&mut self.in_exists),
            in_aggregate_query: std::mem::take(&mut self.in_aggregate_query),
            comparing: std::mem::take(&mut self.comparing),
            ctes: std::mem::take(&mut self.ctes),
            insert_alias: self.insert_alias.take(),
            dml_target: self.dml_target.take(),
            internal_rowid_read: std::mem::take(&mut self.internal_rowid_read),
            pure_context: std::mem::take(&mut self.pure_context),
        }
    }

    /// Put back what `set_aside_program_state` took; returns the builder
    /// of the trigger program.
    fn restore_program_state(&mut self, s: SavedProgramState) -> Builder {
        self.col_map = s.col_map;
        self.agg_regs = s.agg_regs;
        self.agg_scope_depth = s.agg_scope_depth;
        self.agg_owner_depth = s.agg_owner_depth;
        self.using_coalesce = s.using_coalesce;
        self.record_positions = s.record_positions;
        self.ephem_records = s.ephem_records;
        self.autoinc = s.autoinc;
        self.inserted_rows = s.inserted_rows;
        self.recursive = s.recursive;
        self.recursive_orders = s.recursive_orders;
        self.compound_key_opens = s.compound_key_opens;
        self.seek_consumed = s.seek_consumed;
        self.row_values_after = s.row_values_after;
        self.in_exists = s.in_exists;
        self.in_aggregate_query = s.in_aggregate_query;
        self.comparing = s.comparing;
        self.ctes = s.ctes;
        self.insert_alias = s.insert_alias;
        self.dml_target = s.dml_target;
        self.internal_rowid_read = s.internal_rowid_read;
        self.pure_context = s.pure_context;
        std::mem::replace(&mut self.b, s.b)
    }

    /// Fire trigger `name` of `t` by running its trigger program (compiled
    /// now unless this statement has it already): `old`/`new` are the row
    /// registers and rowid, `skip` where RAISE(IGNORE) sends the caller.
    #[allow(clippy::too_many_arguments)]
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
        let key = format!("{}\u{0}{}\u{0}{:?}", t.table.db, name.ascii_lower(), self.outer_conflict);
        let index = match self.trigger_programs.iter().find(|(k, _)| *k == key) {
            Some((_, i)) => *i,
            None => {
                let index = self.subprograms.len();
                self.subprograms.push(Program::default());
                self.trigger_programs.push((key, index));
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
                self.subprograms[index] = body.finish(Program::default())?;
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
