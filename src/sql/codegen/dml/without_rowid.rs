//! Code generation for WITHOUT ROWID tables.
//!
//! Such a table is stored as an index b-tree whose entries are whole rows:
//! the PRIMARY KEY columns first (in key order), then the remaining columns
//! in declaration order (fileformat2 §2.5; [`Table::record_columns`]).
//! A cursor on one is opened with a `KeyInfo` describing the key columns,
//! and every `Column` read through it is translated from table column to
//! record position via `Compiler::record_positions`. An entry of one of
//! its secondary indexes ends with the PRIMARY KEY columns the index does
//! not hold, where a rowid table's would end with the rowid
//! ([`Table::index_suffix`]).
//!
//! The DML code paths are those of rowid tables (`insert.rs`, `update.rs`,
//! `delete.rs`, `dml_common.rs`): where they carry "the rowid register",
//! a WITHOUT ROWID row is known by its key columns, found in the row's
//! registers (the rowid register then holds NULL). This module holds what
//! differs: collecting and seeking rows by key, the PRIMARY KEY and UNIQUE
//! checks (the conflicting row is found through its key), and the reads
//! through the key or a secondary index.

use crate::util::ascii::AsciiLower;
use std::sync::Arc;

use crate::error::{Error, Result, SQLITE_CONSTRAINT_PRIMARYKEY, SQLITE_CONSTRAINT_UNIQUE};
use crate::sql::codegen::target::{OnConflict, WriteTarget};
use crate::sql::codegen::Compiler;
use crate::sql::plan::prelude::*;
use crate::sql::schema::{Index, Table};
use crate::value::record::{KeyField, KeyInfo};
use crate::vdbe::program::{Opcode, P4};

/// The number in `sqlite_autoindex_T_N` of an automatic index (`None`
/// for one made by CREATE INDEX).
fn auto_number(idx: &Index) -> Option<usize> {
    if idx.sql.is_some() {
        return None;
    }
    idx.name.rsplit('_').next().and_then(|n| n.parse().ok())
}

impl Compiler<'_> {
    /// How many leading PRIMARY KEY columns of `table` `=` terms fix
    /// (each with the key's collation).
    pub(crate) fn without_rowid_key_eqs<'a>(
        &mut self,
        it: &crate::sql::model::from::FromItem<'a, '_>,
        table: &Table,
        before: u64,
        terms: &[&'a sqlite3_parser::ast::Expr<'_>],
    ) -> usize {
        let cands = self.lookup_candidates(it, before, terms);
        let mut n = 0;
        for (col, _, coll) in table.key_columns() {
            let own = coll.eq_ci(table.columns[col].collation.as_deref().unwrap_or("BINARY"));
            if !own || !cands.iter().any(|(c, op, _)| *c == Some(col) && *op == crate::sql::plan::terms::LookupOp::Eq) {
                break;
            }
            n += 1;
        }
        n
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
            Some(sqlite3_parser::ast::Cmd::Stmt(sqlite3_parser::ast::Stmt::Select(sel))) => {
                self.compile_dml_where(sel, crate::sql::model::query::Dest::EphemTable(tmp)).map(|_| ())
            }
            _ => Err(Error::sql("malformed WHERE")),
        })?;
        Ok((tmp, n_key))
    }

    /// Copy the row in registers `row` (table column order) into new
    /// registers in stored-record order and make its record; returns
    /// (first register of the ordered copy, record register).
    pub(crate) fn record_in_order(&mut self, table: &Table, row: i32) -> (i32, i32) {
        let order = table.record_columns();
        let regs = self.b.regs(order.len());
        for (pos, col) in order.iter().enumerate() {
            self.b.add(Opcode::SCopy, row + *col as i32, regs + pos as i32, 0);
        }
        let affinities: String = order.iter().map(|c| table.columns[*c].affinity.letter()).collect();
        let rec = self.b.reg();
        self.b.add4(Opcode::MakeRecord, regs, order.len() as i32, rec, P4::affinity(affinities), 0);
        (regs, rec)
    }

    /// Key description of a WITHOUT ROWID table: its PRIMARY KEY columns
    /// with their collations (the PK's own, else the column's) and order.
    pub fn without_rowid_key_info(&self, table: &Table) -> Result<Arc<KeyInfo>> {
        let mut fields = Vec::new();
        for (_, descending, coll) in table.key_columns() {
            fields.push(KeyField { collation: self.collation(&coll)?, descending });
        }
        Ok(Arc::new(KeyInfo { fields }))
    }

    /// Open cursor `cur` for reading on `table`'s tree: a WITHOUT ROWID
    /// table's tree is of the index kind and is opened as a key cursor
    /// with its key info (a table cursor refuses a root of that kind, as
    /// SQLite's does); a rowid table's as a table cursor of `width`
    /// columns.
    pub fn open_table_read(&mut self, cur: i32, table: &Table, width: usize) -> Result<()> {
        debug_assert!(table.virtual_table.is_none(), "a virtual table has no b-tree to read");
        self.stmt.dbs_used |= 1 << table.db;
        if table.without_rowid.is_some() {
            return self.open_without_rowid_read(cur, table);
        }
        self.b.add4(Opcode::OpenRead, cur, table.root as i32, table.db as i32, P4::Int64(width as i64), 0);
        Ok(())
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
        self.frame.record_positions.insert(cur, positions);
        Ok(())
    }

    /// Copy the key columns of the row in registers `row` (table column
    /// order) into new consecutive registers, in key order.
    pub fn key_of_row(&mut self, table: &Table, row: i32) -> i32 {
        let width = table.key_width();
        let key = self.b.regs(width);
        for (i, col) in table.record_columns().into_iter().take(width).enumerate() {
            self.b.add(Opcode::SCopy, row + col as i32, key + i as i32, 0);
        }
        key
    }

    /// Jump to `target` when the keys in registers `a` and `b` (key order)
    /// name the same row: every column equal under the key's collation.
    pub fn jump_if_same_key(&mut self, table: &Table, a: i32, b: i32, target: i32) -> Result<()> {
        let differ = self.b.label();
        let ki = self.without_rowid_key_info(table)?;
        for (i, field) in ki.fields.iter().enumerate() {
            let p4 = P4::coll(field.collation.clone());
            self.b.add4(Opcode::Ne, a + i as i32, differ, b + i as i32, p4, crate::vdbe::program::cmp_flags::NULLEQ);
        }
        self.b.add(Opcode::Goto, 0, target, 0);
        self.b.bind(differ);
        Ok(())
    }

    /// The message of a PRIMARY KEY conflict: `UNIQUE constraint failed:
    /// t.a, t.b`.
    fn primary_key_failure(table: &Table) -> String {
        let cols: Vec<String> = table.record_columns().iter().take(table.key_width()).map(|c| format!("{}.{}", table.name, table.columns[*c].name)).collect();
        format!("UNIQUE constraint failed: {}", cols.join(", "))
    }

    /// The PRIMARY KEY check of a row about to be written (`old`: an
    /// UPDATE's own old row, which is no conflict). REPLACE deletes the
    /// conflicting row with its index entries.
    fn check_primary_key(&mut self, t: &WriteTarget, row: i32, old: Option<(i32, i32)>, oc: OnConflict, skip: i32) -> Result<()> {
        let key = self.key_of_row(&t.table, row);
        let ok = self.b.label();
        if let Some((old_row, _)) = old {
            let old_key = self.key_of_row(&t.table, old_row);
            self.jump_if_same_key(&t.table, old_key, key, ok)?;
        }
        self.b.add4(Opcode::NoConflict, t.cursor, ok, key, P4::Int64(t.table.key_width() as i64), 0);
        match oc {
            OnConflict::Ignore => {
                self.b.add(Opcode::Goto, 0, skip, 0);
            }
            // The cursor is on the conflicting row. (Left there when the
            // insert overwrites it: see `insert.rs`.)
            OnConflict::Replace if self.insert_overwrites_replaced_row(t, old.is_some()) => self.tell_replaced_row(t),
            OnConflict::Replace => self.delete_replaced_row(t, old.is_some())?,
            _ => self.constraint_halt(SQLITE_CONSTRAINT_PRIMARYKEY, Self::primary_key_failure(&t.table), oc),
        }
        self.b.bind(ok);
        Ok(())
    }

    /// `check_unique_of` for a WITHOUT ROWID table: the PRIMARY KEY (when
    /// `check_pk`) and the UNIQUE indexes among `indexes`, in SQLite's
    /// order (newest index first, the PRIMARY KEY where its automatic
    /// index number puts it). A conflicting entry names its row by the
    /// key columns it carries.
    pub(crate) fn check_unique_without_rowid(
        &mut self,
        t: &WriteTarget,
        indexes: &[(Index, i32)],
        row: i32,
        old: Option<(i32, i32)>,
        check_pk: bool,
        oc: OnConflict,
        skip: i32,
    ) -> Result<()> {
        let table = t.table.clone();
        let pk_number = crate::sql::schema::Schema::without_rowid_pk_index(&table).as_ref().and_then(auto_number).unwrap_or(0);
        // Each constraint with its own ON CONFLICT clause; as SQLite does,
        // REPLACE constraints are resolved after all the others.
        let pk_oc = oc.for_constraint(table.pk_conflict);
        for replacing in [false, true] {
            let mut pk_done = !check_pk || (pk_oc == OnConflict::Replace) != replacing;
            for (idx, c) in indexes.iter().cloned().rev() {
                if !pk_done && auto_number(&idx).is_some_and(|n| n < pk_number) {
                    self.check_primary_key(t, row, old, pk_oc, skip)?;
                    pk_done = true;
                }
                let idx_oc = oc.for_constraint(idx.on_conflict);
                if idx.unique && (idx_oc == OnConflict::Replace) == replacing {
                    self.check_unique_index_without_rowid(t, &idx, c, row, old, idx_oc, skip)?;
                }
            }
            if !pk_done {
                self.check_primary_key(t, row, old, pk_oc, skip)?;
            }
        }
        Ok(())
    }

    /// Another row with the new key in UNIQUE index `idx` (cursor `c`).
    fn check_unique_index_without_rowid(
        &mut self,
        t: &WriteTarget,
        idx: &Index,
        c: i32,
        row: i32,
        old: Option<(i32, i32)>,
        oc: OnConflict,
        skip: i32,
    ) -> Result<()> {
        let table = t.table.clone();
        let width = table.key_width();
        let n = idx.columns.len();
        let guard = self.partial_guard(t, idx, row, -1)?;
        let null_rowid = self.b.reg();
        self.b.add(Opcode::Null, 0, null_rowid, 0);
        let k = self.index_key_of(&table, idx, row, null_rowid)?;
        let ok = guard.unwrap_or_else(|| self.b.label());
        self.b.add4(Opcode::NoConflict, c, ok, k, P4::Int64(n as i64), 0);
        let other = self.b.regs(width);
        for (i, pos) in table.key_positions_in_index(idx).into_iter().enumerate() {
            self.b.add(Opcode::Column, c, pos as i32, other + i as i32);
        }
        if let Some((old_row, _)) = old {
            let old_key = self.key_of_row(&table, old_row);
            self.jump_if_same_key(&table, old_key, other, ok)?;
        }
        match oc {
            OnConflict::Ignore => {
                self.b.add(Opcode::Goto, 0, skip, 0);
            }
            OnConflict::Replace => {
                let gone = self.b.label();
                self.b.add4(Opcode::NotFound, t.cursor, gone, other, P4::Int64(width as i64), 0);
                self.delete_replaced_row(t, old.is_some())?;
                self.b.bind(gone);
            }
            _ => {
                let code = if idx.origin == "pk" { SQLITE_CONSTRAINT_PRIMARYKEY } else { SQLITE_CONSTRAINT_UNIQUE };
                self.constraint_halt(code, crate::sql::codegen::target::unique_failure_message(&table, idx), oc);
            }
        }
        self.b.bind(ok);
        Ok(())
    }

    /// The rows a DELETE or UPDATE visits, collected before any changes:
    /// a temporary table of rowids, or of a WITHOUT ROWID table's keys.
    /// Returns its cursor and row width.
    pub fn collect_targets(&mut self, table: &Table, alias: Option<String>, where_clause: Option<&sqlite3_parser::ast::Expr<'_>>) -> Result<(i32, usize)> {
        if table.without_rowid.is_some() {
            self.collect_keys(table, alias, where_clause)
        } else {
            Ok((crate::sql::codegen::dml::update::collect_rowids(self, table, alias, where_clause)?, 1))
        }
    }

    /// Load the collected target row under `tmp` (`width` columns) into
    /// registers: (its key, its rowid register). A rowid table's key is
    /// its rowid; a WITHOUT ROWID table's rowid register holds NULL.
    pub fn load_target(&mut self, table: &Table, tmp: i32, width: usize) -> (i32, i32) {
        let key = self.b.regs(width);
        for i in 0..width {
            self.b.add(Opcode::Column, tmp, i as i32, key + i as i32);
        }
        if table.without_rowid.is_none() {
            return (key, key);
        }
        let rid = self.b.reg();
        self.b.add(Opcode::Null, 0, rid, 0);
        (key, rid)
    }

    /// Move `t.cursor` to the row with key `key` (see `load_target`);
    /// `miss` when it is gone.
    pub fn seek_target(&mut self, t: &WriteTarget, key: i32, miss: i32) {
        if t.table.without_rowid.is_some() {
            self.b.add4(Opcode::NotFound, t.cursor, miss, key, P4::Int64(t.table.key_width() as i64), 0);
        } else {
            self.b.add(Opcode::NotExists, t.cursor, miss, key);
        }
    }

    /// Position the table cursor `tcur` on the row an entry of `idx` under
    /// `icur` belongs to; `miss` when there is none. A rowid table's entry
    /// ends with the rowid, a WITHOUT ROWID table's holds the key.
    pub fn seek_table_from_index(&mut self, table: &Table, idx: &Index, icur: i32, tcur: i32, miss: i32) {
        if table.without_rowid.is_some() {
            let positions = table.key_positions_in_index(idx);
            let key = self.b.regs(positions.len());
            for (i, pos) in positions.iter().enumerate() {
                self.b.add(Opcode::Column, icur, *pos as i32, key + i as i32);
            }
            self.b.add4(Opcode::NotFound, tcur, miss, key, P4::Int64(positions.len() as i64), 0);
        } else {
            let rid = self.b.reg();
            self.b.add(Opcode::IdxRowid, icur, rid, 0);
            self.b.add(Opcode::SeekRowid, tcur, miss, rid);
        }
    }
}
