//! Column reads: resolving a name against the open scopes
//! (`resolve_name`), reading a resolved column into a register
//! (`emit_column`: a VIRTUAL generated column is computed from its row, a
//! row written before ALTER TABLE ADD COLUMN reads the constant DEFAULT,
//! a USING column of a FULL or RIGHT JOIN reads the side that is not
//! NULL-filled) and a column's affinity as comparisons see it.

use crate::error::Result;
use crate::sql::codegen::{ColumnSource, Compiler};
use crate::sql::resolve::{resolve, ColumnRef};
use crate::value::affinity::Affinity;
use crate::vdbe::program::{Opcode, P4};

/// P4 for `Column` on `table`'s column `col`: its constant DEFAULT, which
/// rows written before the column was added read.
pub fn default_p4(table: &crate::sql::schema::Table, col: usize) -> P4 {
    match table.columns.get(col).and_then(|c| c.default_value.clone()) {
        Some(crate::value::Value::Integer(i)) => P4::Int64(i),
        Some(crate::value::Value::Real(x)) => P4::Real(x),
        Some(crate::value::Value::Text(t)) => P4::bytes(t),
        _ => P4::None,
    }
}

impl Compiler<'_> {
    /// Resolve an identifier, trying columns of every scope.
    pub fn resolve_name(&mut self, qualifier: Option<&str>, name: &str) -> Result<Option<ColumnRef>> {
        if (self.frame.internal_rowid_read && name == crate::sql::resolve::INTERNAL_ROWID)
            || (!self.vtab.unchanged_flags.is_empty() && name.starts_with(crate::sql::resolve::UNCHANGED_VALUE))
        {
            return Ok(crate::sql::resolve::resolve_rowid(&self.names.scopes, qualifier));
        }
        resolve(&mut self.names.scopes, qualifier, name)
    }

    /// Emit a read of a resolved column (a VIRTUAL generated column is
    /// computed from the row's other columns).
    pub fn emit_column(&mut self, r: &ColumnRef, target: i32) -> Result<()> {
        // (A read the SELECT's resolution asked about is not asked again.)
        // (Nor one of a join's USING equality: `emit_join_columns`.)
        let answered = match self.stmt.unasked_reads {
            true => Some(true),
            false => self.stmt.auth_answers.last().and_then(|a| a.reads.get(&(r.cursor, r.column.map_or(-1, |c| c as i64)))).copied(),
        };
        if answered == Some(false) {
            self.b.add(Opcode::Null, 0, target, 0);
            return Ok(());
        }
        if self.stmt.authorizer.is_some() && answered.is_none() {
            let n = self.names.scopes.len();
            let (table, declared) = n
                .checked_sub(1 + r.depth)
                .and_then(|s| self.names.scopes.get(s))
                .and_then(|s| s.items.get(r.item))
                .map(|item| (item.table.clone(), r.column.and_then(|c| item.columns.get(c)).map(|c| c.name.clone())))
                .unwrap_or_default();
            if !table.is_empty() && !self.authorize_read_named(&table, r.column, declared.as_deref()) {
                self.b.add(Opcode::Null, 0, target, 0);
                return Ok(());
            }
        }
        let key = (r.cursor, r.column.map_or(-1, |c| c as i64));
        if self.vtab.cursors.contains_key(&r.cursor) && !self.frame.col_map.contains_key(&key) {
            match r.column {
                Some(i) => self.b.add(Opcode::VColumn, r.cursor, i as i32, target),
                None => self.b.add(Opcode::VRowid, r.cursor, target, 0),
            };
            return Ok(());
        }
        if let Some(src) = self.frame.col_map.get(&key).copied() {
            match src {
                ColumnSource::Register(reg) => {
                    self.b.add(Opcode::SCopy, reg, target, 0);
                    // A REAL column's register may hold the integer form
                    // a record stores; a read sees the REAL.
                    if r.affinity == Affinity::Real {
                        self.b.add(Opcode::RealAffinity, target, 0, 0);
                    }
                }
                ColumnSource::Cursor(c, k) => {
                    self.b.add(Opcode::Column, c, k as i32, target);
                    // (A covering index entry may hold a REAL column's
                    // integer form too.)
                    if r.affinity == Affinity::Real {
                        self.b.add(Opcode::RealAffinity, target, 0, 0);
                    }
                }
            }
            return Ok(());
        }
        match r.column {
            None => {
                self.b.add(Opcode::Rowid, r.cursor, target, 0);
            }
            Some(i) => {
                let table = self.ref_table(r);
                if let Some(t) = table.filter(|t| t.is_virtual(i)) {
                    return self.emit_virtual_column(t, r.cursor, i, target);
                }
                let default = self.column_default(r, i);
                let field = match self.frame.record_positions.get(&r.cursor) {
                    Some(p) => p.get(i).copied().unwrap_or(i),
                    None => table.and_then(|t| t.field_of(i)).unwrap_or(i),
                };
                self.b.add4(Opcode::Column, r.cursor, field as i32, target, default, 0);
                if r.affinity == Affinity::Real {
                    self.b.add(Opcode::RealAffinity, target, 0, 0);
                }
            }
        }
        Ok(())
    }

    /// Emit a column named without a qualifier: a USING column of a FULL
    /// JOIN is coalesce(left, right), as either side may be the
    /// NULL-filled one; of a RIGHT JOIN, the right column (never NULL
    /// filled), as SQLite reads it (`Compiler::using_coalesce`).
    pub fn emit_unqualified_column(&mut self, r: &ColumnRef, target: i32) -> Result<()> {
        match self.frame.using_coalesce.get(&(r.cursor, r.column.map_or(-1, |c| c as i64))).cloned() {
            None => self.emit_column(r, target),
            Some(reads) => self.emit_coalesce(&reads, target),
        }
    }

    /// The columns a name without a qualifier resolved to `r` reads in
    /// its place (empty when it reads `r`).
    pub fn using_reads(&self, r: &ColumnRef) -> Vec<ColumnRef> {
        self.frame.using_coalesce.get(&(r.cursor, r.column.map_or(-1, |c| c as i64))).cloned().unwrap_or_default()
    }

    /// Emit the first non-NULL of `columns` (NULL when all are).
    pub fn emit_coalesce(&mut self, columns: &[ColumnRef], target: i32) -> Result<()> {
        let done = self.b.label();
        for (i, c) in columns.iter().enumerate() {
            self.emit_column(c, target)?;
            if i + 1 < columns.len() {
                self.b.add(Opcode::NotNull, target, done, 0);
            }
        }
        self.b.bind(done);
        Ok(())
    }

    /// [`Self::emit_coalesce`] for a join's USING/NATURAL equality: SQLite
    /// makes that term of column references it does not resolve by name,
    /// so the authorizer is not asked about these reads (nor does an
    /// IGNORE answer for the named column make them NULL).
    pub fn emit_join_columns(&mut self, columns: &[ColumnRef], target: i32) -> Result<()> {
        let was = std::mem::replace(&mut self.stmt.unasked_reads, true);
        let r = self.emit_coalesce(columns, target);
        self.stmt.unasked_reads = was;
        r
    }

    /// P4 for `Column`: the constant DEFAULT a short record reads.
    pub(super) fn column_default(&self, r: &ColumnRef, col: usize) -> P4 {
        let n = self.names.scopes.len();
        let Some(item) = n.checked_sub(1 + r.depth).and_then(|s| self.names.scopes.get(s)).and_then(|s| s.items.get(r.item)) else {
            return P4::None;
        };
        if item.table.is_empty() {
            return P4::None;
        }
        match self.env.schema.table_in(Some(item.db), &item.table) {
            Some(t) => default_p4(t, col),
            None => P4::None,
        }
    }

    /// The affinity of the column `r` reads: none for a subquery's column
    /// whose expression has none (it is no BLOB column: a comparison with
    /// it takes the other side's affinity).
    pub(super) fn column_affinity(&self, r: &ColumnRef) -> Option<Affinity> {
        let scope = self.names.scopes.len().checked_sub(1 + r.depth).and_then(|s| self.names.scopes.get(s));
        let col = r.column.and_then(|c| scope.and_then(|s| s.items.get(r.item)).and_then(|it| it.columns.get(c)));
        Some(r.affinity).filter(|_| !col.is_some_and(|c| c.without_affinity))
    }
}

impl<'s> Compiler<'s> {
    /// The table a resolved column reference reads, when it is a table
    /// (borrowed from the schema, not from the compiler).
    pub(super) fn ref_table(&self, r: &ColumnRef) -> Option<&'s crate::sql::schema::Table> {
        let n = self.names.scopes.len();
        let item = n.checked_sub(1 + r.depth).and_then(|s| self.names.scopes.get(s)).and_then(|s| s.items.get(r.item))?;
        if item.table.is_empty() {
            return None;
        }
        let schema: &'s crate::sql::schema::Schema = self.env.schema;
        schema.table(&item.table).filter(|t| t.view_select.is_none())
    }
}
