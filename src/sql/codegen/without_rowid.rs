//! Code generation for WITHOUT ROWID tables.
//!
//! Such a table is stored as an index b-tree whose entries are whole rows:
//! the PRIMARY KEY columns first (in key order), then the remaining columns
//! in declaration order (fileformat2 §2.5; [`Table::record_columns`]).
//! A cursor on one is opened with a `KeyInfo` describing the key columns,
//! and every `Column` read through it is translated from table column to
//! record position via `Compiler::record_positions`.
//!
//! What works: reading (full scans), CREATE TABLE (a table whose only
//! index is its PRIMARY KEY) and INSERT (PRIMARY KEY conflicts with
//! ABORT/FAIL/ROLLBACK/IGNORE/REPLACE). Still refused with "WITHOUT ROWID
//! tables is not supported": UPDATE, DELETE, UNIQUE constraints and
//! secondary indexes, and INSERT with triggers, RETURNING, upsert or
//! foreign keys.

use std::sync::Arc;

use sqlite3_parser::ast::{InsertBody, Stmt};

use super::dml_common::{OnConflict, WriteTarget};
use super::Compiler;
use crate::error::{Error, Result, SQLITE_CONSTRAINT_PRIMARYKEY};
use crate::sql::schema::Table;
use crate::vdbe::exec::write::OPFLAG_NCHANGE;
use crate::value::collation::Collation;
use crate::value::record::{KeyField, KeyInfo};
use crate::vdbe::program::{Opcode, P4};

/// The message refusing what is not supported yet.
const REFUSED: &str = "WITHOUT ROWID tables";

/// Whether CREATE TABLE can make `table`: a WITHOUT ROWID table whose only
/// automatic index is its PRIMARY KEY (UNIQUE constraints would need index
/// entries carrying the key instead of a rowid, not written yet).
pub fn creatable(table: &Table) -> bool {
    table.without_rowid.is_some() && table.unsupported.as_deref() == Some(REFUSED) && table.auto_indexes.iter().all(|(_, is_pk)| *is_pk)
}

impl Compiler<'_> {
    /// The table INSERT writes: as `writable_table`, but also a WITHOUT
    /// ROWID table when nothing the row path does not handle is involved.
    pub fn insertable_table(&self, db: Option<usize>, name: &str, stmt: &Stmt<'_>) -> Result<Table> {
        let refused = match self.writable_table(db, name) {
            Ok(t) => return Ok(t),
            Err(e) => e,
        };
        let Some(t) = self.schema.table_in(db, name).filter(|t| creatable(t)) else {
            return Err(refused);
        };
        let Stmt::Insert { returning, body, .. } = stmt else {
            return Err(refused);
        };
        let upsert = matches!(body, InsertBody::Select(_, Some(_)));
        let references = self.schema.tables.values().any(|o| o.db == t.db && o.foreign_keys.iter().any(|fk| fk.parent.eq_ignore_ascii_case(&t.name)));
        if returning.is_some()
            || upsert
            || references
            || !t.foreign_keys.is_empty()
            || !self.schema.indexes_of(&t).is_empty()
            || !self.schema.triggers_of(&t).is_empty()
        {
            return Err(refused);
        }
        Ok(t.clone())
    }

    /// Rows of a WITHOUT ROWID table found through its key: `=` terms on a
    /// leading run of PRIMARY KEY columns, then optionally a range on the
    /// next one (all with the key's collation). The cursor seeks to the
    /// first entry in range and the loop ends past the last one, as the
    /// secondary-index path does. `None`: no usable terms.
    pub(crate) fn without_rowid_key_seek<'a, 'b>(
        &mut self,
        it: &super::from::FromItem<'a, 'b>,
        table: &Table,
        before: u64,
        terms: &[&'a sqlite3_parser::ast::Expr<'b>],
        end: i32,
        item_name: &str,
    ) -> Result<Option<super::from::LoopKind>> {
        use crate::sql::plan::terms::LookupOp;
        let cands = self.lookup_candidates(it, before, terms);
        let order = table.record_columns();
        // Key columns usable for the seek: a leading run whose collation
        // is the column's own (the one lookup candidates are checked for).
        let mut usable = Vec::new();
        for (col, descending, coll) in table.without_rowid.iter().flatten() {
            if usable.iter().any(|(c, _)| c == col) {
                continue;
            }
            let column_coll = table.columns[*col].collation.as_deref().unwrap_or("BINARY");
            if coll.as_deref().is_some_and(|c| !c.eq_ignore_ascii_case(column_coll)) {
                break;
            }
            usable.push((*col, *descending));
        }
        let mut eqs = Vec::new();
        for (col, _) in &usable {
            match cands.iter().find(|(c, op, _)| *c == Some(*col) && *op == LookupOp::Eq) {
                Some((_, _, e)) => eqs.push((*col, *e)),
                None => break,
            }
        }
        let ne = eqs.len();
        // A range on the next key column, in key order (DESC swaps it).
        let (mut lower, mut upper) = (None, None);
        if let Some((col, descending)) = usable.get(ne) {
            for (c, op, e) in &cands {
                if *c != Some(*col) {
                    continue;
                }
                let op = if *descending { op.swapped() } else { *op };
                match op {
                    LookupOp::Gt | LookupOp::Ge if lower.is_none() => lower = Some((op, *e)),
                    LookupOp::Lt | LookupOp::Le if upper.is_none() => upper = Some((op, *e)),
                    _ => {}
                }
            }
        }
        if ne == 0 && lower.is_none() && upper.is_none() {
            return Ok(None);
        }
        let affinities: String = order.iter().take(ne + 1).map(|c| table.columns[*c].affinity.letter()).collect();
        let keys = self.b.regs(ne + 1);
        for (i, (_, e)) in eqs.iter().enumerate() {
            self.expr(e, keys + i as i32)?;
            // `=` with NULL matches nothing.
            self.b.add(Opcode::IsNull, keys + i as i32, end, 0);
        }
        let endkeys = self.b.regs(ne + 1);
        for i in 0..ne {
            self.b.add(Opcode::SCopy, keys + i as i32, endkeys + i as i32, 0);
        }
        let mut desc: Vec<String> = eqs.iter().map(|(c, _)| format!("{}=?", table.columns[*c].name)).collect();
        let range_col = usable.get(ne).map(|(c, _)| table.columns[*c].name.clone()).unwrap_or_default();
        match lower {
            Some((op, e)) => {
                self.expr(e, keys + ne as i32)?;
                self.b.add(Opcode::IsNull, keys + ne as i32, end, 0);
                self.b.add4(Opcode::Affinity, keys, (ne + 1) as i32, 0, P4::Affinity(affinities.clone()), 0);
                let opc = if op == LookupOp::Gt { Opcode::SeekGT } else { Opcode::SeekGE };
                self.b.add4(opc, it.cursor, end, keys, P4::Int64((ne + 1) as i64), 0);
                desc.push(format!("{range_col}>?"));
            }
            None if ne > 0 => {
                self.b.add4(Opcode::Affinity, keys, ne as i32, 0, P4::Affinity(affinities.clone()), 0);
                self.b.add4(Opcode::SeekGE, it.cursor, end, keys, P4::Int64(ne as i64), 0);
            }
            None => {
                self.b.add(Opcode::Rewind, it.cursor, end, 0);
            }
        }
        if let Some((_, e)) = upper {
            self.expr(e, endkeys + ne as i32)?;
            self.b.add(Opcode::IsNull, endkeys + ne as i32, end, 0);
            self.b.add4(Opcode::Affinity, endkeys, (ne + 1) as i32, 0, P4::Affinity(affinities.clone()), 0);
            desc.push(format!("{range_col}<?"));
        }
        let top = self.b.here();
        match upper {
            Some((op, _)) => {
                let opc = if op == LookupOp::Lt { Opcode::IdxGE } else { Opcode::IdxGT };
                self.b.add4(opc, it.cursor, end, endkeys, P4::Int64((ne + 1) as i64), 0);
            }
            None if ne > 0 => {
                self.b.add4(Opcode::IdxGT, it.cursor, end, endkeys, P4::Int64(ne as i64), 0);
            }
            None => {}
        }
        self.eqp.push((0, 0, format!("SEARCH {item_name} USING PRIMARY KEY ({})", desc.join(" AND "))));
        Ok(Some(super::from::LoopKind::Index(it.cursor, top)))
    }

    /// A WITHOUT ROWID table DELETE can remove rows from: only the table
    /// b-tree is involved (no triggers, RETURNING, indexes or foreign keys).
    pub fn deletable_without_rowid(&self, db: Option<usize>, name: &str, has_returning: bool) -> Option<Table> {
        let t = self.schema.table_in(db, name).filter(|t| creatable(t))?;
        let references = self.schema.tables.values().any(|o| o.db == t.db && o.foreign_keys.iter().any(|fk| fk.parent.eq_ignore_ascii_case(&t.name)));
        if has_returning || references || !t.foreign_keys.is_empty() || !self.schema.indexes_of(&t).is_empty() || !self.schema.triggers_of(&t).is_empty() {
            return None;
        }
        Some(t.clone())
    }

    /// Collect the PRIMARY KEY of every row of `table` matching
    /// `where_clause` into a new temporary table (one column per key
    /// column, in key order); returns its cursor and the key width.
    pub fn collect_keys(&mut self, table: &Table, alias: Option<String>, where_clause: Option<&sqlite3_parser::ast::Expr<'_>>) -> Result<(i32, usize)> {
        let order = table.record_columns();
        let n_key = table.without_rowid.as_ref().map_or(0, |pk| order.iter().take_while(|c| pk.iter().any(|(p, _, _)| p == *c)).count());
        let quote = |s: &str| format!("\"{}\"", s.replace('"', "\"\""));
        let cols: Vec<String> = order[..n_key].iter().map(|c| quote(&table.columns[*c].name)).collect();
        let tmp = self.b.cursor();
        self.b.add(Opcode::OpenEphemeral, tmp, n_key as i32, 0);
        let from = format!("{} AS {}", self.table_sql_name(table), quote(&alias.unwrap_or_else(|| table.name.clone())));
        let sql = match where_clause {
            Some(w) => format!("SELECT {} FROM {from} WHERE {w}", cols.join(", ")),
            None => format!("SELECT {} FROM {from}", cols.join(", ")),
        };
        crate::sql::parse::with_first_statement(sql.as_bytes(), |cmd, _| match cmd {
            Some(sqlite3_parser::ast::Cmd::Stmt(Stmt::Select(sel))) => self.compile_select(sel, super::select::Dest::EphemTable(tmp)).map(|_| ()),
            _ => Err(Error::sql("malformed WHERE")),
        })?;
        Ok((tmp, n_key))
    }

    /// DELETE from a WITHOUT ROWID table: the keys of the matching rows
    /// are collected first, then each row is found by key and removed.
    pub fn delete_without_rowid(&mut self, table: Table, alias: Option<String>, where_clause: Option<&sqlite3_parser::ast::Expr<'_>>) -> Result<()> {
        let t = self.open_write_target(table.clone())?;
        let (tmp, n_key) = self.collect_keys(&table, alias, where_clause)?;
        let end = self.b.label();
        self.b.add(Opcode::Rewind, tmp, end, 0);
        let top = self.b.here();
        let next = self.b.label();
        let key = self.b.regs(n_key);
        for i in 0..n_key {
            self.b.add(Opcode::Column, tmp, i as i32, key + i as i32);
        }
        self.b.add4(Opcode::NotFound, t.cursor, next, key, P4::Int64(n_key as i64), 0);
        let flags = if self.firing.is_empty() { OPFLAG_NCHANGE } else { 0 };
        self.b.add4(Opcode::Delete, t.cursor, 0, 0, P4::None, flags);
        self.b.bind(next);
        self.b.add(Opcode::Next, tmp, top as i32, 0);
        self.b.bind(end);
        Ok(())
    }

    /// UPDATE of a WITHOUT ROWID table: the keys of the matching rows are
    /// collected first; each row is then read, given its new values and
    /// checked, removed, and written back under its (possibly new) key.
    /// A PRIMARY KEY conflict follows `oc`; IGNORE puts the old row back.
    pub fn update_without_rowid(
        &mut self,
        table: Table,
        alias: Option<String>,
        where_clause: Option<&sqlite3_parser::ast::Expr<'_>>,
        assignments: &[super::assign::Assignment<'_, '_>],
        oc: OnConflict,
    ) -> Result<()> {
        if assignments.iter().any(|(i, _)| *i >= table.columns.len()) {
            return Err(Error::sql("no such column: rowid"));
        }
        let t = self.open_write_target(table.clone())?;
        let (tmp, n_key) = self.collect_keys(&table, alias.clone(), where_clause)?;
        let order = table.record_columns();
        let n = table.columns.len();
        let mut positions = vec![0; n];
        for (pos, col) in order.iter().enumerate() {
            positions[*col] = pos;
        }
        self.record_positions.insert(t.cursor, positions.clone());
        let mut scope = super::update::target_scope(&table, alias, t.cursor);
        scope.items[0].has_rowid = false;
        self.scopes.push(scope);
        let r = (|| -> Result<()> {
            let end = self.b.label();
            self.b.add(Opcode::Rewind, tmp, end, 0);
            let top = self.b.here();
            let next = self.b.label();
            let key = self.b.regs(n_key);
            for i in 0..n_key {
                self.b.add(Opcode::Column, tmp, i as i32, key + i as i32);
            }
            self.b.add4(Opcode::NotFound, t.cursor, next, key, P4::Int64(n_key as i64), 0);
            let old = self.b.regs(n);
            for i in 0..n {
                let d = super::expr::default_p4(&table, i);
                self.b.add4(Opcode::Column, t.cursor, positions[i] as i32, old + i as i32, d, 0);
            }
            let new = self.b.regs(n);
            self.b.add(Opcode::Copy, old, new, n as i32 - 1);
            let mut row_values = super::assign::RowValues::default();
            for (i, v) in assignments {
                self.assigned_value(v, new + *i as i32, &mut row_values)?;
            }
            self.check_not_null(&t, new, oc, next)?;
            self.b.add4(Opcode::Affinity, new, n as i32, 0, P4::Affinity(table.affinity_string()), 0);
            self.check_strict(&t, new);
            let no_rowid = self.b.reg();
            self.b.add(Opcode::Null, 0, no_rowid, 0);
            self.check_checks(&t, new, no_rowid, oc, next)?;
            // The cursor is still on the old row: remove it, then write the
            // new one under its key.
            self.b.add4(Opcode::Delete, t.cursor, 0, 0, P4::None, 0);
            let new_rec = self.record_in_order(&table, new);
            let ok = self.b.label();
            self.b.add4(Opcode::NoConflict, t.cursor, ok, new_rec.0, P4::Int64(n_key as i64), 0);
            match oc {
                OnConflict::Ignore => {
                    let old_rec = self.record_in_order(&table, old);
                    self.b.add(Opcode::IdxInsert, t.cursor, old_rec.1, 0);
                    self.b.add(Opcode::Goto, 0, next, 0);
                }
                OnConflict::Replace => {
                    self.b.add(Opcode::Delete, t.cursor, 0, 0);
                }
                _ => {
                    let cols: Vec<String> = order[..n_key].iter().map(|c| format!("{}.{}", table.name, table.columns[*c].name)).collect();
                    let msg = format!("UNIQUE constraint failed: {}", cols.join(", "));
                    self.b.add4(Opcode::Halt, SQLITE_CONSTRAINT_PRIMARYKEY, oc.halt_action(), 0, P4::Text(msg), 0);
                }
            }
            self.b.bind(ok);
            let flags = if self.firing.is_empty() { OPFLAG_NCHANGE } else { 0 };
            self.b.add4(Opcode::IdxInsert, t.cursor, new_rec.1, 0, P4::None, flags);
            self.b.bind(next);
            self.b.add(Opcode::Next, tmp, top as i32, 0);
            self.b.bind(end);
            Ok(())
        })();
        self.scopes.pop();
        r
    }

    /// Copy the row in registers `row` (table column order) into new
    /// registers in stored-record order and make its record; returns
    /// (first register of the ordered copy, record register).
    fn record_in_order(&mut self, table: &Table, row: i32) -> (i32, i32) {
        let order = table.record_columns();
        let regs = self.b.regs(order.len());
        for (pos, col) in order.iter().enumerate() {
            self.b.add(Opcode::SCopy, row + *col as i32, regs + pos as i32, 0);
        }
        let affinities: String = order.iter().map(|c| table.columns[*c].affinity.letter()).collect();
        let rec = self.b.reg();
        self.b.add4(Opcode::MakeRecord, regs, order.len() as i32, rec, P4::Affinity(affinities), 0);
        (regs, rec)
    }

    /// Insert the row in registers `row` (table column order) into a
    /// WITHOUT ROWID table: NOT NULL, affinity, STRICT and CHECK as for any
    /// table, then the PRIMARY KEY uniqueness check and the write of the
    /// record in stored order.
    pub fn insert_without_rowid_row(&mut self, t: &WriteTarget, row: i32, oc: OnConflict) -> Result<()> {
        let skip = self.b.label();
        let n = t.table.columns.len();
        self.check_not_null(t, row, oc, skip)?;
        self.b.add4(Opcode::Affinity, row, n as i32, 0, P4::Affinity(t.table.affinity_string()), 0);
        self.check_strict(t, row);
        let no_rowid = self.b.reg();
        self.b.add(Opcode::Null, 0, no_rowid, 0);
        self.check_checks(t, row, no_rowid, oc, skip)?;
        let order = t.table.record_columns();
        let (rec_regs, rec) = self.record_in_order(&t.table, row);
        let pk = t.table.without_rowid.as_ref().ok_or_else(|| Error::sql("not a WITHOUT ROWID table"))?;
        let n_key = order.iter().take_while(|c| pk.iter().any(|(p, _, _)| p == *c)).count();
        let ok = self.b.label();
        self.b.add4(Opcode::NoConflict, t.cursor, ok, rec_regs, P4::Int64(n_key as i64), 0);
        match oc {
            OnConflict::Ignore => {
                self.b.add(Opcode::Goto, 0, skip, 0);
            }
            OnConflict::Replace => {
                // The cursor is on the conflicting row: it goes, uncounted.
                self.b.add(Opcode::Delete, t.cursor, 0, 0);
            }
            _ => {
                let cols: Vec<String> = order[..n_key].iter().map(|c| format!("{}.{}", t.table.name, t.table.columns[*c].name)).collect();
                let msg = format!("UNIQUE constraint failed: {}", cols.join(", "));
                self.b.add4(Opcode::Halt, SQLITE_CONSTRAINT_PRIMARYKEY, oc.halt_action(), 0, P4::Text(msg), 0);
            }
        }
        self.b.bind(ok);
        let flags = if self.firing.is_empty() { OPFLAG_NCHANGE } else { 0 };
        self.b.add4(Opcode::IdxInsert, t.cursor, rec, 0, P4::None, flags);
        self.b.bind(skip);
        Ok(())
    }

    /// Key description of a WITHOUT ROWID table: its PRIMARY KEY columns
    /// with their collations (the PK's own, else the column's) and order.
    pub fn without_rowid_key_info(&self, table: &Table) -> Result<Arc<KeyInfo>> {
        let mut fields = Vec::new();
        for (col, descending, coll) in table.without_rowid.iter().flatten() {
            let name = coll.clone().or_else(|| table.columns.get(*col).and_then(|c| c.collation.clone()));
            let collation = match name {
                Some(n) => self.collation(&n)?,
                None => Collation::binary(),
            };
            fields.push(KeyField { collation, descending: *descending });
        }
        Ok(Arc::new(KeyInfo { fields }))
    }

    /// Open cursor `cur` for reading on a WITHOUT ROWID table and record
    /// where each column sits in its entries.
    pub fn open_without_rowid_read(&mut self, cur: i32, table: &Table) -> Result<()> {
        let ki = self.without_rowid_key_info(table)?;
        self.b.add4(Opcode::OpenRead, cur, table.root as i32, table.db as i32, P4::KeyInfo(ki), 0);
        let order = table.record_columns();
        let mut positions = vec![0; table.columns.len()];
        for (pos, col) in order.into_iter().enumerate() {
            positions[col] = pos;
        }
        self.record_positions.insert(cur, positions);
        Ok(())
    }
}
