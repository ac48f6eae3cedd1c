//! Shared by INSERT, UPDATE and DELETE: opening a table and its indexes
//! for writing, building index keys, constraint checks with SQLite's
//! messages, and removing a row together with its index entries.
//!
//! A row is given as its registers (one per table column) and its rowid
//! register. For a WITHOUT ROWID table the rowid register holds NULL and
//! the row is known by its PRIMARY KEY columns among its registers: its
//! record is written in stored order with `IdxInsert`, its index entries
//! end with the key (`Table::index_suffix`), and its uniqueness checks are
//! `Compiler::check_unique_without_rowid` (see `without_rowid.rs`).

use crate::error::{Error, Result, SQLITE_CONSTRAINT_NOTNULL, SQLITE_CONSTRAINT_PRIMARYKEY, SQLITE_CONSTRAINT_UNIQUE};
use crate::sql::codegen::target::{OnConflict, WriteTarget};
use crate::sql::codegen::Compiler;
use crate::sql::parse::{unquote, unquoted};
use crate::sql::schema::{Index, Table};
use crate::util::ascii::AsciiLower;
use crate::vdbe::program::{Opcode, P4};
use sqlite3_parser::ast::{self, FromClause, SelectTable};

impl Compiler<'_> {
    /// Find a table that may be written.
    /// `db`: the database a schema qualifier named (`None`: search order).
    pub fn writable_table(&self, db: Option<usize>, name: &str) -> Result<Table> {
        if name.eq_ci("sqlite_schema") || name.eq_ci("sqlite_master") {
            if !self.env.settings.writable_schema {
                return Err(Error::sql("table sqlite_master may not be modified"));
            }
            // writable_schema: the schema table of that database, written as
            // any table (the schema in memory is read again only when the
            // schema cookie changes or the database is reopened, as in SQLite).
            let mut t = crate::sql::schema::schema_table();
            t.db = db.unwrap_or(0);
            return Ok(t);
        }
        if self.env.schema.table_in(db, name).is_none() && db.is_none_or(|d| d == 0) && self.eponymous_vtab(name)?.is_some() {
            return Err(Error::sql(format!("table {name} may not be modified")));
        }
        let t = self.env.schema.table_in(db, name).cloned().ok_or_else(|| match db {
            Some(d) => Error::sql(format!("no such table: {}.{name}", self.db_name(d))),
            None => Error::sql(format!("no such table: {name}")),
        })?;
        if let Some((inst, _)) = self.connected_vtab(&t)? {
            if !inst.table.writable() {
                return Err(Error::sql(format!("table {name} may not be modified")));
            }
            return Err(Error::unsupported("writing virtual tables"));
        }
        if t.view_select.is_some() {
            return Err(Error::sql(format!("cannot modify {name} because it is a view")));
        }
        if self.shadow_table_refused(&t) {
            return Err(Error::sql(format!("table {} may not be modified", t.name)));
        }
        if let Some(what) = &t.unsupported {
            return Err(Error::unsupported(what));
        }
        Ok(t)
    }

    /// The database the schema qualifier of a DML target names (`None`
    /// when unqualified); "no such table: x.t" for an unknown one.
    pub fn target_db(&self, q: &sqlite3_parser::ast::QualifiedName<'_>) -> Result<Option<usize>> {
        match q.db_name.as_ref() {
            None => Ok(self.names.home_db),
            Some(d) => {
                let n = crate::sql::parse::unquote(d.0);
                self.db_index(&n).map(Some).ok_or_else(|| Error::sql(format!("no such table: {n}.{}", crate::sql::parse::unquote(q.name.0))))
            }
        }
    }

    /// Open `table` and all its indexes with write cursors.
    pub fn open_write_target(&mut self, table: Table) -> Result<WriteTarget> {
        self.open_write_target_but(table, &|_| false)
    }

    /// [`Compiler::open_write_target`] leaving out the indexes `skip`
    /// names (an UPDATE's index whose key cannot change and whose
    /// collation is not defined here: SQLite does not open it either).
    pub fn open_write_target_but(&mut self, table: Table, skip: &dyn Fn(&crate::sql::schema::Index) -> bool) -> Result<WriteTarget> {
        debug_assert!(table.virtual_table.is_none(), "a virtual table has no b-tree to write");
        self.stmt.writes = true;
        let cursor = self.b.cursor();
        self.stmt.dbs_used |= 1 << table.db;
        let p4 = if table.without_rowid.is_some() { P4::KeyInfo(self.without_rowid_key_info(&table)?) } else { P4::Int64(table.columns.len() as i64) };
        self.b.add4(Opcode::OpenWrite, cursor, table.root as i32, table.db as i32, p4, 0);
        self.comment(&table.name);
        if table.without_rowid.is_some() {
            self.frame.record_positions.insert(cursor, crate::sql::codegen::target::positions_of(&table));
        }
        let mut indexes = Vec::new();
        for idx in self.env.schema.indexes_of(&table).into_iter().filter(|i| !skip(i)).cloned().collect::<Vec<_>>() {
            let c = self.b.cursor();
            let ki = self.index_key_info(&idx)?;
            self.b.add4(Opcode::OpenWrite, c, idx.root as i32, idx.db as i32, P4::KeyInfo(ki), 0);
            self.comment(&idx.name);
            indexes.push((idx, c));
        }
        Ok(WriteTarget { table, cursor, indexes })
    }

    /// Read every column of the row under `t.cursor` into new registers
    /// (the INTEGER PRIMARY KEY column reads the rowid; a WITHOUT ROWID
    /// table's columns are read from their record positions).
    pub fn read_row(&mut self, t: &WriteTarget) -> Result<i32> {
        let n = t.table.columns.len();
        let regs = self.b.regs(n);
        let positions = t.table.without_rowid.as_ref().map(|_| crate::sql::codegen::target::positions_of(&t.table));
        for i in 0..n {
            if t.table.is_virtual(i) {
                // Computed below from the other columns.
            } else if let Some(p) = &positions {
                let d = crate::sql::codegen::expr::default_p4(&t.table, i);
                self.b.add4(Opcode::Column, t.cursor, p[i] as i32, regs + i as i32, d, 0);
            } else if t.table.rowid_alias == Some(i) {
                self.b.add(Opcode::Rowid, t.cursor, regs + i as i32, 0);
            } else if let Some(field) = t.table.field_of(i) {
                let d = crate::sql::codegen::expr::default_p4(&t.table, i);
                self.b.add4(Opcode::Column, t.cursor, field as i32, regs + i as i32, d, 0);
            }
        }
        if t.table.has_virtual() {
            let rid = self.rowid_of_current(t);
            self.compute_virtual(&t.table, regs, rid)?;
        }
        Ok(regs)
    }

    /// The row under `t.cursor` in new registers as [`Compiler::read_row`]
    /// lays them out, for removing its index entries: when every index of
    /// a rowid table keys on plain stored columns (no expression, partial
    /// index WHERE or generated column, which may read any column), only
    /// the columns some index keys on are read (SQLite's DELETE reads no
    /// more); the other registers are left unset.
    pub fn read_index_columns(&mut self, t: &WriteTarget) -> Result<i32> {
        let plain = t.table.without_rowid.is_none()
            && !t.table.has_virtual()
            && t.indexes.iter().all(|(idx, _)| idx.where_sql.is_none() && idx.columns.iter().all(|c| c.column.is_some()));
        if !plain {
            return self.read_row(t);
        }
        let n = t.table.columns.len();
        let regs = self.b.regs(n);
        let mut read = vec![false; n];
        for (idx, _) in &t.indexes {
            for col in idx.columns.iter().filter_map(|c| c.column) {
                if col >= n || read[col] {
                    continue;
                }
                read[col] = true;
                if t.table.rowid_alias == Some(col) {
                    self.b.add(Opcode::Rowid, t.cursor, regs + col as i32, 0);
                } else if let Some(field) = t.table.field_of(col) {
                    let d = crate::sql::codegen::expr::default_p4(&t.table, col);
                    self.b.add4(Opcode::Column, t.cursor, field as i32, regs + col as i32, d, 0);
                }
            }
        }
        Ok(regs)
    }

    /// Partial index: jump past the index operation when the row in
    /// `row` is not covered by the index's WHERE. Returns the label to
    /// bind after the operation.
    pub fn partial_guard(&mut self, t: &WriteTarget, idx: &Index, row: i32, rowid: i32) -> Result<Option<i32>> {
        let Some(w) = idx.where_sql.clone() else { return Ok(None) };
        let skip = self.b.label();
        self.with_row_scope(&t.table, row, rowid, |c| {
            let v = c.b.reg();
            c.with_stored_schema_expr(|c| c.with_pure_context(1, |c| c.expr_text(&w, v)))?;
            c.b.add(Opcode::IfNot, v, skip, 1);
            Ok(())
        })?;
        Ok(Some(skip))
    }

    /// Run `f` with `table`'s column names resolving to the row registers
    /// `row` (one per column) and its rowid names to `rowid`: how CHECK
    /// constraints, partial-index WHERE clauses and the like are evaluated
    /// on a row that is not under a cursor.
    pub fn with_row_scope<T>(&mut self, table: &Table, row: i32, rowid: i32, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        let fake = self.b.cursor();
        self.names.scopes.push(crate::sql::codegen::target::target_scope(table, None, fake));
        for i in 0..table.columns.len() {
            let key = if table.rowid_alias == Some(i) { -1 } else { i as i64 };
            self.frame.col_map.insert((fake, key), crate::sql::codegen::ColumnSource::Register(row + i as i32));
        }
        self.frame.col_map.insert((fake, -1), crate::sql::codegen::ColumnSource::Register(rowid));
        let r = f(self);
        self.frame.col_map.retain(|k, _| k.0 != fake);
        self.names.scopes.pop();
        r
    }

    /// A register holding the rowid of the row under `t.cursor` (NULL for
    /// a WITHOUT ROWID table, whose rows are known by their key columns).
    pub fn rowid_of_current(&mut self, t: &WriteTarget) -> i32 {
        let rid = self.b.reg();
        if t.table.without_rowid.is_some() {
            self.b.add(Opcode::Null, 0, rid, 0);
        } else {
            self.b.add(Opcode::Rowid, t.cursor, rid, 0);
        }
        rid
    }

    /// Delete the row under `t.cursor` and its index entries, with the
    /// row's foreign key checks and ON DELETE actions; `flags` is the
    /// Delete opcode's p5 (change counting, update-hook reporting).
    pub fn delete_current_row(&mut self, t: &WriteTarget, flags: u16) -> Result<()> {
        let mut fk_old = None;
        if self.fk_involved(&t.table) {
            let row = self.read_row(t)?;
            let rid = self.rowid_of_current(t);
            self.fk_check_child(&t.table, row, -1, None)?;
            self.fk_check_parent(&t.table, row, rid, 1, None)?;
            fk_old = Some((row, rid));
        }
        self.delete_index_entries(t)?;
        // (SQLite reports no change of a WITHOUT ROWID table to the update
        // hook, only to the pre-update hook.)
        let p4 = self.written(&t.table);
        self.b.add4(Opcode::Delete, t.cursor, 0, 0, p4, flags);
        if let Some(old) = fk_old {
            self.fk_actions(t, old, None, None)?;
        }
        Ok(())
    }

    /// Delete the index entries of the row under `t.cursor` (SQLite's
    /// `sqlite3GenerateRowIndexDelete`).
    fn delete_index_entries(&mut self, t: &WriteTarget) -> Result<()> {
        if t.indexes.is_empty() {
            return Ok(());
        }
        let row = self.read_index_columns(t)?;
        let rid = self.rowid_of_current(t);
        for (idx, c) in t.indexes.clone() {
            let guard = self.partial_guard(t, &idx, row, rid)?;
            let k = self.index_key_of(&t.table, &idx, row, rid)?;
            self.b.add(Opcode::IdxDelete, c, k, t.table.index_entry_width(&idx) as i32);
            if let Some(g) = guard {
                self.b.bind(g);
            }
        }
        Ok(())
    }

    /// Whether a REPLACE conflict on a rowid table's rowid is resolved
    /// by removing the old row's index entries only, the insert then
    /// overwriting its table entry in place (SQLite's rowid REPLACE with
    /// no foreign key and no DELETE trigger to run: one b-tree write
    /// instead of a delete and an insert). Not for an UPDATE moving its
    /// row onto another's rowid, which keeps the full deletion.
    fn rowid_replace_overwrites(&self, t: &WriteTarget, updating: bool) -> bool {
        !updating
            && t.table.without_rowid.is_none()
            && !self.fk_involved(&t.table)
            && (!self.env.settings.recursive_triggers || self.env.triggers_of(&t.table).is_empty())
    }

    /// Whether a REPLACE conflict on the table's own key (rowid, or a
    /// WITHOUT ROWID table's PRIMARY KEY) may be resolved by the insert
    /// itself overwriting the entry with that key, as SQLite does: only
    /// when deleting the old row would do nothing else, that is for an
    /// INSERT (not an UPDATE moving its row), no index entries to remove,
    /// no foreign key to check and no DELETE trigger to fire. (Neither the
    /// change count nor the update hook hear of a REPLACE's deletion.)
    pub fn insert_overwrites_replaced_row(&self, t: &WriteTarget, updating: bool) -> bool {
        !updating && t.indexes.is_empty() && !self.fk_involved(&t.table) && (!self.env.settings.recursive_triggers || self.env.triggers_of(&t.table).is_empty())
    }

    /// The insert overwrites the conflicting row the cursor is on: the
    /// pre-update hook still hears of its deletion (from a Delete that
    /// deletes nothing), as in SQLite.
    pub fn tell_replaced_row(&mut self, t: &WriteTarget) {
        let written = self.written(&t.table);
        self.b.add4(Opcode::Delete, t.cursor, 0, 0, written, crate::vdbe::exec::write::OPFLAG_ISNOOP);
    }

    /// REPLACE deletes the conflicting row the cursor is on. With
    /// recursive triggers on, its DELETE triggers fire (as in SQLite),
    /// the BEFORE ones possibly deleting the row themselves; during an
    /// UPDATE (`updating`) they may not write the table being updated.
    pub fn delete_replaced_row(&mut self, t: &WriteTarget, updating: bool) -> Result<()> {
        if !self.env.settings.recursive_triggers || self.env.triggers_of(&t.table).is_empty() {
            return self.delete_current_row(t, 0);
        }
        let row = self.read_row(t)?;
        let rid = self.rowid_of_current(t);
        let done = self.b.label();
        if updating {
            self.b.add(Opcode::CursorLock, t.cursor, 0, 0);
        }
        self.fire_triggers(t, crate::sql::codegen::target::Event::Delete, true, Some((row, rid)), None, &[], done)?;
        // (The triggers may have moved the cursor, or deleted the row.)
        if t.table.without_rowid.is_some() {
            let key = self.key_of_row(&t.table, row);
            self.b.add4(Opcode::NotFound, t.cursor, done, key, P4::Int64(t.table.key_width() as i64), 0);
        } else {
            self.b.add(Opcode::NotExists, t.cursor, done, rid);
        }
        self.delete_current_row(t, 0)?;
        self.fire_triggers(t, crate::sql::codegen::target::Event::Delete, false, Some((row, rid)), None, &[], done)?;
        self.b.bind(done);
        if updating {
            self.b.add(Opcode::CursorUnlock, t.cursor, 0, 0);
        }
        Ok(())
    }

    /// NOT NULL checks on row registers; `skip` is where IGNORE goes.
    pub fn check_not_null(&mut self, t: &WriteTarget, row: i32, oc: OnConflict, skip: i32) -> Result<()> {
        for (i, col) in t.table.columns.iter().enumerate() {
            if !col.not_null || t.table.rowid_alias == Some(i) {
                continue;
            }
            let r = row + i as i32;
            let oc = oc.for_constraint(col.not_null_conflict);
            match (oc, col.default_sql()) {
                (OnConflict::Ignore, _) => {
                    self.b.add(Opcode::IsNull, r, skip, 0);
                }
                (OnConflict::Replace, Some(d)) => {
                    let ok = self.b.label();
                    self.b.add(Opcode::NotNull, r, ok, 0);
                    self.with_schema_text(t.table.db, |c| c.expr_text(&d, r))?;
                    self.b.bind(ok);
                }
                _ => {
                    let msg = format!("NOT NULL constraint failed: {}.{}", t.table.name, col.name);
                    self.b.add4(Opcode::HaltIfNull, SQLITE_CONSTRAINT_NOTNULL, oc.halt_action(), r, P4::text(msg), 0);
                }
            }
        }
        Ok(())
    }

    /// STRICT tables: every value must have its column's type.
    pub fn check_strict(&mut self, t: &WriteTarget, row: i32) {
        if !t.table.strict {
            return;
        }
        let mut desc = vec![crate::value::Value::text(t.table.name.clone())];
        for c in &t.table.columns {
            desc.push(crate::value::Value::text(c.name.clone()));
            desc.push(crate::value::Value::text(c.decltype.clone().unwrap_or_default().ascii_upper()));
        }
        self.b.add4(Opcode::TypeCheck, row, t.table.columns.len() as i32, 0, P4::row(desc), 0);
    }

    /// CHECK constraints on the row in `row` (rowid in `rowid`): a check
    /// that is false (not NULL) fails; IGNORE skips the row.
    pub fn check_checks(&mut self, t: &WriteTarget, row: i32, rowid: i32, oc: OnConflict, skip: i32) -> Result<()> {
        if t.table.checks.is_empty() || self.env.settings.ignore_check_constraints {
            return Ok(());
        }
        let table = t.table.clone();
        self.with_row_scope(&table, row, rowid, |c| {
            for (name, text) in table.checks.clone() {
                let v = c.b.reg();
                c.with_stored_schema_expr(|c| c.with_pure_context(2, |c| c.expr_text(&text, v)))?;
                let ok = c.b.label();
                c.b.add(Opcode::If, v, ok, 1);
                if oc == OnConflict::Ignore {
                    c.b.add(Opcode::Goto, 0, skip, 0);
                } else {
                    // An unnamed check is named by its text, dequoted as
                    // SQLite dequotes it: up to a leading quote's close.
                    let label = name.unwrap_or_else(|| crate::sql::column_spans::dequote(&text));
                    c.constraint_halt(crate::error::SQLITE_CONSTRAINT_CHECK, format!("CHECK constraint failed: {label}"), oc);
                }
                c.b.bind(ok);
            }
            Ok(())
        })
    }

    pub(crate) fn constraint_halt(&mut self, code: i32, msg: String, oc: OnConflict) {
        self.b.add4(Opcode::Halt, code, oc.halt_action(), 0, P4::text(msg), 0);
    }

    /// Uniqueness checks for a row about to be written with `rowid`.
    /// `old`: for UPDATE, the row's own registers and rowid (finding
    /// itself is not a conflict). `check_rowid`: the rowid (for a WITHOUT
    /// ROWID table, its PRIMARY KEY) may collide with another row's.
    pub fn check_unique(&mut self, t: &WriteTarget, row: i32, rowid: i32, old: Option<(i32, i32)>, check_rowid: bool, oc: OnConflict, skip: i32) -> Result<()> {
        self.check_unique_of(t, &t.indexes, row, rowid, old, check_rowid, oc, skip)
    }

    /// `check_unique` for the UNIQUE indexes among `indexes` only (an
    /// UPDATE skips the indexes whose key it does not change). A REPLACE
    /// still deletes a conflicting row from every index of `t`.
    ///
    /// When a REPLACE deletion may run triggers or foreign key actions,
    /// those may write a conflicting row back: all the checks are run
    /// again afterwards with ABORT, as SQLite does, so that no index
    /// ends up with two entries for one key.
    pub fn check_unique_of(
        &mut self,
        t: &WriteTarget,
        indexes: &[(Index, i32)],
        row: i32,
        rowid: i32,
        old: Option<(i32, i32)>,
        check_rowid: bool,
        oc: OnConflict,
        skip: i32,
    ) -> Result<()> {
        self.check_unique_once(t, indexes, row, rowid, old, check_rowid, oc, skip)?;
        let may_replace = (check_rowid && oc.for_constraint(t.table.pk_conflict) == OnConflict::Replace)
            || indexes.iter().any(|(idx, _)| idx.unique && oc.for_constraint(idx.on_conflict) == OnConflict::Replace);
        let deletion_runs_code = (self.env.settings.recursive_triggers && !self.env.triggers_of(&t.table).is_empty()) || self.fk_involved(&t.table);
        if may_replace && deletion_runs_code {
            // (A rowid the insert allocated may have been taken by them.)
            self.check_unique_once(t, indexes, row, rowid, old, true, OnConflict::Abort, skip)?;
        }
        Ok(())
    }

    fn check_unique_once(
        &mut self,
        t: &WriteTarget,
        indexes: &[(Index, i32)],
        row: i32,
        rowid: i32,
        old: Option<(i32, i32)>,
        check_rowid: bool,
        oc: OnConflict,
        skip: i32,
    ) -> Result<()> {
        if t.table.without_rowid.is_some() {
            return self.check_unique_without_rowid(t, indexes, row, old, check_rowid, oc, skip);
        }
        let old_rowid = old.map(|o| o.1);
        // SQLite resolves REPLACE conflicts last: a constraint that fails
        // (or ignores the row) must do so before REPLACE deletes anything.
        // Indexes are checked newest first.
        let rowid_replaces = check_rowid && oc.for_constraint(t.table.pk_conflict) == OnConflict::Replace;
        if check_rowid && !rowid_replaces {
            self.check_rowid_conflict(t, rowid, old_rowid, oc, skip)?;
        }
        let unique: Vec<&(Index, i32)> = indexes.iter().rev().filter(|(idx, _)| idx.unique).collect();
        let replaces = |idx: &Index| oc.for_constraint(idx.on_conflict) == OnConflict::Replace;
        for (idx, c) in unique.iter().filter(|(idx, _)| !replaces(idx)) {
            self.check_index_conflict(t, idx, *c, row, rowid, old_rowid, oc, skip)?;
        }
        if rowid_replaces {
            self.check_rowid_conflict(t, rowid, old_rowid, oc, skip)?;
        }
        for (idx, c) in unique.iter().filter(|(idx, _)| replaces(idx)) {
            self.check_index_conflict(t, idx, *c, row, rowid, old_rowid, oc, skip)?;
        }
        Ok(())
    }

    /// Another row with the new rowid.
    fn check_rowid_conflict(&mut self, t: &WriteTarget, rowid: i32, old_rowid: Option<i32>, oc: OnConflict, skip: i32) -> Result<()> {
        let ok = self.b.label();
        if let Some(old) = old_rowid {
            self.b.add4(Opcode::Eq, old, ok, rowid, P4::None, 0);
        }
        self.b.add(Opcode::NotExists, t.cursor, ok, rowid);
        let pk = t.table.rowid_alias.map(|i| t.table.columns[i].name.clone()).unwrap_or_else(|| "rowid".into());
        let oc = oc.for_constraint(t.table.pk_conflict);
        match oc {
            OnConflict::Ignore => {
                self.b.add(Opcode::Goto, 0, skip, 0);
            }
            OnConflict::Replace if self.rowid_replace_overwrites(t, old_rowid.is_some()) => {
                self.tell_replaced_row(t);
                self.delete_index_entries(t)?;
            }
            OnConflict::Replace => self.delete_replaced_row(t, old_rowid.is_some())?,
            _ => self.constraint_halt(SQLITE_CONSTRAINT_PRIMARYKEY, format!("UNIQUE constraint failed: {}.{pk}", t.table.name), oc),
        }
        self.b.bind(ok);
        Ok(())
    }

    /// Another row with the new key in UNIQUE index `idx` (cursor `c`).
    fn check_index_conflict(
        &mut self,
        t: &WriteTarget,
        idx: &Index,
        c: i32,
        row: i32,
        rowid: i32,
        old_rowid: Option<i32>,
        oc: OnConflict,
        skip: i32,
    ) -> Result<()> {
        let n = idx.columns.len();
        let guard = self.partial_guard(t, idx, row, rowid)?;
        let k = self.index_key_of(&t.table, idx, row, rowid)?;
        let ok = guard.unwrap_or_else(|| self.b.label());
        self.b.add4(Opcode::NoConflict, c, ok, k, P4::Int64(n as i64), 0);
        let other = self.b.reg();
        self.b.add(Opcode::IdxRowid, c, other, 0);
        if let Some(old) = old_rowid {
            self.b.add4(Opcode::Eq, old, ok, other, P4::None, 0);
        }
        let oc = oc.for_constraint(idx.on_conflict);
        match oc {
            OnConflict::Ignore => {
                self.b.add(Opcode::Goto, 0, skip, 0);
            }
            OnConflict::Replace => {
                let gone = self.b.label();
                self.b.add(Opcode::NotExists, t.cursor, gone, other);
                self.delete_replaced_row(t, old_rowid.is_some())?;
                self.b.bind(gone);
            }
            _ => {
                let code = if idx.origin == "pk" { SQLITE_CONSTRAINT_PRIMARYKEY } else { SQLITE_CONSTRAINT_UNIQUE };
                self.constraint_halt(code, crate::sql::codegen::target::unique_failure_message(&t.table, idx), oc);
            }
        }
        self.b.bind(ok);
        Ok(())
    }

    /// Write the row: record, table entry, index entries.
    pub fn write_row(&mut self, t: &WriteTarget, row: i32, rowid: i32, flags: u16) -> Result<()> {
        self.write_row_with(t, &t.indexes, row, rowid, flags)
    }

    /// `write_row` writing entries in `indexes` only (an UPDATE leaves
    /// the entries of indexes whose key it does not change in place).
    pub fn write_row_with(&mut self, t: &WriteTarget, indexes: &[(Index, i32)], row: i32, rowid: i32, flags: u16) -> Result<()> {
        if t.table.without_rowid.is_some() {
            // The record in stored order is the table entry (no rowid, so
            // neither last_insert_rowid nor the update hook hear of it).
            let (_, rec) = self.record_in_order(&t.table, row);
            let written = self.written(&t.table);
            self.b.add4(Opcode::IdxInsert, t.cursor, rec, 0, written, flags & !crate::vdbe::exec::write::OPFLAG_LASTROWID);
        } else {
            self.write_table_entry(t, row, rowid, flags);
        }
        for (idx, c) in indexes.iter().cloned() {
            let guard = self.partial_guard(t, &idx, row, rowid)?;
            let k = self.index_key_of(&t.table, &idx, row, rowid)?;
            let affs = self.index_affinity_string(&t.table, &idx);
            let rec = self.b.reg();
            self.b.add4(Opcode::MakeRecord, k, t.table.index_entry_width(&idx) as i32, rec, P4::affinity(affs), 0);
            self.b.add(Opcode::IdxInsert, c, rec, 0);
            if let Some(g) = guard {
                self.b.bind(g);
            }
        }
        Ok(())
    }

    /// The record and table entry of a rowid table's row.
    fn write_table_entry(&mut self, t: &WriteTarget, row: i32, rowid: i32, flags: u16) {
        let n = t.table.columns.len();
        if let Some(ipk) = t.table.rowid_alias {
            self.b.add(Opcode::Null, 0, row + ipk as i32, 0);
        }
        let rec = self.b.reg();
        if t.table.has_virtual() {
            // VIRTUAL columns take no field in the record.
            let stored: Vec<usize> = (0..n).filter(|&i| !t.table.is_virtual(i)).collect();
            let fields = self.b.regs(stored.len());
            for (k, &i) in stored.iter().enumerate() {
                self.b.add(Opcode::SCopy, row + i as i32, fields + k as i32, 0);
            }
            self.b.add4(Opcode::MakeRecord, fields, stored.len() as i32, rec, P4::affinity(t.table.stored_affinity_string()), 0);
        } else {
            self.b.add4(Opcode::MakeRecord, row, n as i32, rec, P4::affinity(t.table.affinity_string()), 0);
        }
        self.b.add4(Opcode::Insert, t.cursor, rec, rowid, self.written(&t.table), flags);
        if let Some(ipk) = t.table.rowid_alias {
            self.b.add(Opcode::SCopy, rowid, row + ipk as i32, 0);
        }
    }
}

impl Compiler<'_> {
    /// `P4::Table` of a write to a rowid table's row made here: what the
    /// update and pre-update hooks are told. (Trigger bodies compiled
    /// inline count their depth here; trigger programs count theirs as
    /// they run.)
    pub fn written(&self, table: &crate::sql::schema::Table) -> P4 {
        let depth = if self.env.settings.recursive_triggers { 0 } else { self.dml.firing.len() as i32 };
        written_table(table, depth)
    }
}

/// `P4::Table` of a write to a table's row at trigger depth `depth`.
pub fn written_table(table: &crate::sql::schema::Table, depth: i32) -> P4 {
    let n = table.columns.len();
    let fields = if table.without_rowid.is_some() {
        let order = table.record_columns();
        (0..n).map(|c| order.iter().position(|&k| k == c)).collect()
    } else {
        (0..n).map(|c| table.field_of(c)).collect()
    };
    P4::Table(std::sync::Arc::new(crate::vdbe::program::WrittenTable {
        name: table.name.clone(),
        fields,
        without_rowid: table.without_rowid.is_some(),
        rowid_alias: table.rowid_alias,
        defaults: table.columns.iter().map(|c| c.default_value.clone().unwrap_or(crate::value::Value::Null)).collect(),
        preupdate: !table.name.eq_ci("sqlite_sequence"),
        trigger_depth: depth,
    }))
}

/// A FROM item that is the target table again under the same name (or
/// the same alias) could not be told apart from it: SQLite refuses it.
pub(in crate::sql::codegen) fn check_from_target(
    c: &Compiler<'_>,
    table: &crate::sql::schema::Table,
    alias: Option<&str>,
    from: &FromClause<'_>,
) -> Result<()> {
    let items = from.select.into_iter().chain(from.joins.iter().flat_map(|j| j.iter().map(|j| &j.table)));
    for item in items {
        let SelectTable::Table(qn, item_alias, _) = item else { continue };
        let item_alias = item_alias.as_ref().map(|a| match a {
            ast::As::As(n) | ast::As::Elided(n) => unquote(n.0),
        });
        let same_alias = match (alias, &item_alias) {
            (None, None) => true,
            (Some(a), Some(b)) => a.eq_ci(b),
            _ => false,
        };
        // (The same name in another database is another table.)
        let other_db = qn.db_name.as_ref().is_some_and(|d| c.db_index(&unquoted(d.0)).is_some_and(|db| db != table.db));
        if same_alias && !other_db && unquote(qn.name.0).eq_ci(&table.name) {
            let shown = alias.map_or_else(|| table.name.clone(), str::to_string);
            return Err(Error::sql(format!("target object/alias may not appear in FROM clause: {shown}")));
        }
    }
    Ok(())
}
