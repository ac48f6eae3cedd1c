//! Generated columns on the write path: computing STORED generated
//! columns into a row's registers before its constraints are checked and
//! it is written, and refusing values given for generated columns.
//!
//! Invariant: after `compute_generated`, every generated column register
//! of the row holds its expression evaluated over the row's other
//! registers, so the record, index keys and CHECK constraints all see the
//! value SQLite would store. VIRTUAL generated columns are not in the
//! record: a read computes them (`emit_virtual_column`, `compute_virtual`)
//! and the record written leaves them out (`Table::field_of`).

use crate::error::{Error, Result};
use crate::sql::codegen::target::WriteTarget;
use crate::sql::codegen::Compiler;
use crate::sql::column_rules::references;
use crate::sql::schema::Table;
use crate::value::affinity::Affinity;
use crate::vdbe::program::{Opcode, P4};

/// The error for a generated column named as an INSERT or UPDATE target.
pub fn refuse_target(table: &Table, column: usize, verb: &str) -> Result<()> {
    match table.columns.get(column) {
        Some(col) if col.generated.is_some() => match verb {
            "INSERT" => Err(Error::sql(format!("cannot INSERT into generated column \"{}\"", col.name))),
            _ => Err(Error::sql(format!("cannot UPDATE generated column \"{}\"", col.name))),
        },
        _ => Ok(()),
    }
}

impl Compiler<'_> {
    /// Evaluate the table's generated columns into the row registers
    /// starting at `row` (rowid in `rowid`). A generated column may read
    /// another; evaluating them all once per generated column reaches the
    /// fixed point whatever their declaration order (a loop is refused
    /// here, when the table is written, as SQLite does).
    pub fn compute_generated(&mut self, t: &WriteTarget, row: i32, rowid: i32) -> Result<()> {
        self.compute_generated_of(&t.table, row, rowid)
    }

    fn compute_generated_of(&mut self, table: &Table, row: i32, rowid: i32) -> Result<()> {
        let t = table;
        // SQLite accepts a loop at CREATE TABLE and refuses to write.
        if let Some(name) = first_loop(table) {
            return Err(Error::sql(format!("generated column loop on \"{name}\"")));
        }
        let generated: Vec<(usize, String)> = t.columns.iter().enumerate().filter_map(|(i, c)| c.generated.as_ref().map(|g| (i, g.expr.clone()))).collect();
        if generated.is_empty() {
            return Ok(());
        }
        let fake = self.b.cursor();
        self.names.scopes.push(crate::sql::codegen::target::target_scope(t, None, fake));
        for i in 0..t.columns.len() {
            let key = if t.rowid_alias == Some(i) { -1 } else { i as i64 };
            self.frame.col_map.insert((fake, key), crate::sql::codegen::ColumnSource::Register(row + i as i32));
        }
        self.frame.col_map.insert((fake, -1), crate::sql::codegen::ColumnSource::Register(rowid));
        let r = (|| -> Result<()> {
            // The ordinary columns get their affinity first, and each
            // computed value its column's, as SQLite does.
            self.b.add4(Opcode::Affinity, row, t.columns.len() as i32, 0, P4::affinity(t.affinity_string()), 0);
            for _ in 0..generated.len() {
                for (i, text) in &generated {
                    self.with_pure_context(3, |c| c.expr_text(text, row + *i as i32))?;
                    self.generated_affinity(t, *i, row + *i as i32);
                }
            }
            Ok(())
        })();
        self.frame.col_map.retain(|k, _| k.0 != fake);
        self.names.scopes.pop();
        r
    }
}

impl Compiler<'_> {
    /// A computed generated value takes its column's affinity (none for
    /// BLOB affinity).
    fn generated_affinity(&mut self, t: &Table, col: usize, reg: i32) {
        let aff = t.columns[col].affinity;
        if aff != Affinity::Blob {
            self.b.add4(Opcode::Affinity, reg, 1, 0, P4::affinity(aff.letter().to_string()), 0);
        }
        if aff == Affinity::Real {
            self.b.add(Opcode::RealAffinity, reg, 0, 0);
        }
    }

    /// Read VIRTUAL generated column `col` of the row under `cursor` (a
    /// cursor on `t`) into `target`: its expression over the row's other
    /// columns, with the column's affinity.
    pub fn emit_virtual_column(&mut self, t: &Table, cursor: i32, col: usize, target: i32) -> Result<()> {
        if let Some(name) = first_loop(t) {
            return Err(Error::sql(format!("generated column loop on \"{name}\"")));
        }
        let Some(g) = t.columns[col].generated.clone() else { return Ok(()) };
        // On an outer join's null row the column is NULL, whatever its
        // expression would make of NULL columns.
        let done = self.b.label();
        self.b.add(Opcode::IfNullRow, cursor, done, target);
        self.names.scopes.push(crate::sql::codegen::target::target_scope(t, None, cursor));
        let r = self.with_pure_context(3, |c| c.expr_text(&g.expr, target));
        self.names.scopes.pop();
        r?;
        self.generated_affinity(t, col, target);
        self.b.bind(done);
        Ok(())
    }

    /// Compute the VIRTUAL generated columns of row registers `row`
    /// (rowid in `rowid`) whose ordinary and STORED columns are read.
    pub fn compute_virtual(&mut self, t: &Table, row: i32, rowid: i32) -> Result<()> {
        if !t.has_virtual() {
            return Ok(());
        }
        if let Some(name) = first_loop(t) {
            return Err(Error::sql(format!("generated column loop on \"{name}\"")));
        }
        let virtual_cols: Vec<(usize, String)> =
            (0..t.columns.len()).filter(|&i| t.is_virtual(i)).filter_map(|i| t.columns[i].generated.as_ref().map(|g| (i, g.expr.clone()))).collect();
        self.with_row_scope(t, row, rowid, |c| {
            for _ in 0..virtual_cols.len() {
                for (i, text) in &virtual_cols {
                    c.with_pure_context(3, |c| c.expr_text(text, row + *i as i32))?;
                    c.generated_affinity(t, *i, row + *i as i32);
                }
            }
            Ok(())
        })
    }
}

impl Compiler<'_> {
    /// CREATE TABLE checks on generated columns, with SQLite's messages:
    /// at least one ordinary column, none in the PRIMARY KEY or with a
    /// DEFAULT, expressions that name only existing columns and call only
    /// deterministic functions. A loop among
    /// generated columns is accepted here and refused on write, as SQLite
    /// does, so the scratch compile below does not check for one.
    pub fn validate_generated(&mut self, table: &Table) -> Result<()> {
        self.validate_generated_with(table, true)
    }

    /// The same checks as SQLite makes them while reading a schema: a loop
    /// through a VIRTUAL column is not refused then (only where it is read).
    pub fn validate_generated_as_read(&mut self, table: &Table) -> Result<()> {
        self.validate_generated_with(table, false)
    }

    fn validate_generated_with(&mut self, table: &Table, refuse_virtual_loops: bool) -> Result<()> {
        if table.columns.iter().all(|c| c.generated.is_none()) {
            return Ok(());
        }
        for col in table.columns.iter().filter(|c| c.generated.is_some()) {
            if col.primary_key {
                return Err(Error::sql("generated columns cannot be part of the PRIMARY KEY"));
            }
            if col.default.is_some() {
                return Err(Error::sql(format!("error in generated column \"{}\"", col.name)));
            }
        }
        if table.columns.iter().all(|c| c.generated.is_some()) {
            return Err(Error::sql("must have at least one non-generated column"));
        }
        // Subqueries, parameters, non-deterministic functions and unknown
        // names, in the resolver's order over the CHECK constraints and
        // then these expressions (`ddl/self_ref.rs`).
        if let Some(e) = self.self_reference_error(table) {
            return Err(e);
        }
        // A loop through a VIRTUAL column could never be read: refused
        // here (a loop of STORED ones only when the table is written).
        if let Some(name) = first_loop(table).filter(|n| refuse_virtual_loops && table.column_index(n).is_some_and(|i| table.is_virtual(i))) {
            return Err(Error::sql(format!("generated column loop on \"{name}\"")));
        }
        // Compile the expressions into a scratch program: this resolves
        // their column names without emitting anything that would run.
        let saved = std::mem::take(&mut self.b);
        self.b.n_regs = saved.n_regs;
        self.b.n_cursors = saved.n_cursors;
        let row = self.b.regs(table.columns.len());
        let rowid = self.b.reg();
        // (Double-quoted strings there are DDL's: `DQS_DDL`.)
        let outer = std::mem::replace(&mut self.stmt.ddl_names, true);
        let r = if first_loop(table).is_some() { Ok(()) } else { self.compute_generated_of(table, row, rowid) };
        self.stmt.ddl_names = outer;
        let nondeterministic =
            self.b.insns.iter().any(
                |i| matches!(&i.p4, crate::vdbe::program::P4::Func(def) if i.opcode == crate::vdbe::program::Opcode::Function && !def.flags.deterministic),
            );
        self.b = saved;
        if r.is_ok() && nondeterministic {
            return Err(Error::sql("non-deterministic functions prohibited in generated columns"));
        }
        r
    }
}

impl Compiler<'_> {
    /// CREATE TABLE resolves the names in its CHECK constraints, as SQLite
    /// does: a column that does not exist (or the rowid of a WITHOUT
    /// ROWID table) is "no such column" then, not when a row is written.
    /// Compiled into a scratch program, so nothing of it runs.
    pub fn validate_checks(&mut self, table: &Table) -> Result<()> {
        if table.checks.is_empty() {
            return Ok(());
        }
        let saved = std::mem::take(&mut self.b);
        self.b.n_regs = saved.n_regs;
        self.b.n_cursors = saved.n_cursors;
        let row = self.b.regs(table.columns.len());
        let rowid = self.b.reg();
        let target = self.b.reg();
        // The resolver's walk over them first (`ddl/self_ref.rs`), then
        // the full compile for what it leaves.
        if let Some(e) = self.self_reference_error(table) {
            self.b = saved;
            return Err(e);
        }
        // (Double-quoted strings there are DDL's: `DQS_DDL`.)
        let outer = std::mem::replace(&mut self.stmt.ddl_names, true);
        let r = self.with_row_scope(table, row, rowid, |c| {
            for (_, text) in &table.checks {
                crate::sql::parse::with_expr(text, |e| c.with_pure_context(2, |c| c.expr(e, target)))?;
            }
            Ok(())
        });
        self.stmt.ddl_names = outer;
        self.b = saved;
        r
    }
}

/// A generated column that depends on itself through other generated
/// columns, if any: the last declared one that does, the column SQLite
/// names in its error.
fn first_loop(table: &Table) -> Option<String> {
    let n = table.columns.len();
    let deps: Vec<Vec<usize>> = table
        .columns
        .iter()
        .map(|c| match &c.generated {
            Some(g) => (0..n).filter(|&j| table.columns[j].generated.is_some() && references(&g.expr, &table.columns[j].name)).collect(),
            None => Vec::new(),
        })
        .collect();
    for start in (0..n).rev() {
        if deps[start].is_empty() {
            continue;
        }
        let mut seen = vec![false; n];
        let mut stack = deps[start].clone();
        while let Some(j) = stack.pop() {
            if j == start {
                return Some(table.columns[start].name.clone());
            }
            if !std::mem::replace(&mut seen[j], true) {
                stack.extend(deps[j].iter().copied());
            }
        }
    }
    None
}
