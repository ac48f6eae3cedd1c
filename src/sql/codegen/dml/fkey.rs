//! # Foreign keys (`foreignkeys.txt`)
//!
//! Enforcement follows SQLite's counting scheme. Every change that may
//! create or resolve a violation adjusts a counter (`FkCounter`):
//!
//! - a child row written whose parent row is missing: +1; a child row
//!   removed whose parent row is missing: -1 ([`Compiler::fk_check_child`]);
//! - a parent row removed: +1 for each child row referring to it; a parent
//!   row written: -1 for each child row referring to it, done only while
//!   the counter is non-zero ([`Compiler::fk_check_parent`]).
//!
//! `Halt` fails the statement with "FOREIGN KEY constraint failed" while
//! the statement's counter is positive. Deferred constraints inside an
//! explicit transaction count in the transaction's counters instead, which
//! COMMIT checks ([`Compiler::fk_commit_check`]). ON DELETE / ON UPDATE actions
//! (CASCADE, SET NULL, SET DEFAULT) run after the parent row changed, as
//! DELETE/UPDATE statements on the child generated like trigger bodies,
//! so the child changes are themselves counted; RESTRICT fails at once.
//!
//! Invariants: all foreign key code is compiled in whenever a table takes
//! part in a foreign key and sits behind `FkIfOff`, so `PRAGMA
//! foreign_keys` takes effect without re-preparing; a misconfigured
//! foreign key ("foreign key mismatch") is reported when such code runs.
//! Child rows are found by scanning the child table.

use crate::error::{Error, Result, SQLITE_CONSTRAINT_FOREIGNKEY, SQLITE_ERROR};
use crate::sql::codegen::target::WriteTarget;
use crate::sql::codegen::Compiler;
use crate::sql::parse::with_first_statement;
use crate::sql::schema::{FkAction, ForeignKey, Index, Table};
use crate::util::ascii::AsciiLower;
use crate::value::Value;
use crate::vdbe::program::{Opcode, Program, P4};
use sqlite3_parser::ast::{self, Stmt};

/// How the parent row of a foreign key is found.
enum ParentKey {
    /// The parent key is the parent's rowid.
    Rowid,
    /// A UNIQUE index on the parent key; for each index column, the
    /// position in the foreign key's column list.
    Index(Index, Vec<usize>),
}

/// A foreign key resolved against its parent table.
struct Resolved {
    parent: Table,
    key: ParentKey,
    /// Parent column for each child column of the key.
    parent_cols: Vec<usize>,
}

fn quote(n: &str) -> String {
    format!("\"{}\"", n.replace('"', "\"\""))
}

fn mismatch(child: &str, parent: &str) -> String {
    format!("foreign key mismatch - \"{child}\" referencing \"{parent}\"")
}

impl Compiler<'_> {
    /// Foreign keys referring to `parent`: (child table, foreign key).
    fn fks_referencing(&self, parent: &Table) -> Vec<(Table, ForeignKey)> {
        let (db, parent) = (parent.db, parent.name.as_str());
        let mut out = Vec::new();
        for t in self.env.schema.tables.values().filter(|t| t.db == db) {
            for fk in &t.foreign_keys {
                if fk.parent.eq_ci(parent) {
                    out.push((Table::clone(t), fk.clone()));
                }
            }
        }
        out
    }

    /// Whether `t` is the child or the parent of any foreign key.
    pub fn fk_involved(&self, t: &Table) -> bool {
        !t.foreign_keys.is_empty() || self.env.schema.tables.values().any(|c| c.db == t.db && c.foreign_keys.iter().any(|f| f.parent.eq_ci(&t.name)))
    }

    /// Resolve a foreign key of `child`: `Ok(None)` when the parent table
    /// does not exist, `Err(message)` for a mismatch.
    fn resolve_fk(&self, child: &Table, fk: &ForeignKey) -> std::result::Result<Option<Resolved>, String> {
        let Some(parent) = self.env.schema.table_in(Some(child.db), &fk.parent).cloned() else { return Ok(None) };
        if parent.view_select.is_some() {
            return Err(mismatch(&child.name, &fk.parent));
        }
        let parent_cols: Vec<usize> = if fk.parent_columns.is_empty() {
            if let Some(a) = parent.rowid_alias {
                vec![a]
            } else {
                match parent.auto_indexes.iter().find(|(_, pk)| *pk) {
                    Some((cols, _)) => cols.iter().map(|c| c.0).collect(),
                    None => return Err(mismatch(&child.name, &fk.parent)),
                }
            }
        } else {
            let mut v = Vec::new();
            for n in &fk.parent_columns {
                v.push(parent.column_index(n).ok_or_else(|| mismatch(&child.name, &fk.parent))?);
            }
            v
        };
        if parent_cols.len() != fk.columns.len() {
            return Err(mismatch(&child.name, &fk.parent));
        }
        if parent_cols.len() == 1 && parent.rowid_alias == Some(parent_cols[0]) {
            return Ok(Some(Resolved { parent, key: ParentKey::Rowid, parent_cols }));
        }
        // (A WITHOUT ROWID parent's PRIMARY KEY is its table's own tree.)
        for idx in &self.env.schema.indexes_with_pk_of(&parent) {
            if !idx.unique || idx.where_sql.is_some() || idx.columns.len() != parent_cols.len() {
                continue;
            }
            let map: Option<Vec<usize>> = idx.columns.iter().map(|ic| parent_cols.iter().position(|p| Some(*p) == ic.column)).collect();
            let Some(map) = map else { continue };
            let same_collation = idx.columns.iter().all(|ic| {
                let declared = ic.column.and_then(|c| parent.columns[c].collation.clone()).unwrap_or_else(|| "BINARY".into());
                ic.collation.clone().unwrap_or_else(|| declared.clone()).eq_ci(&declared)
            });
            if same_collation {
                return Ok(Some(Resolved { parent, key: ParentKey::Index(idx.clone(), map), parent_cols }));
            }
        }
        Err(mismatch(&child.name, &fk.parent))
    }

    fn open_read(&mut self, t: &Table) -> Result<i32> {
        let cur = self.b.cursor();
        self.stmt.dbs_used |= 1 << t.db;
        if t.without_rowid.is_some() {
            self.open_without_rowid_read(cur, t)?;
        } else {
            self.b.add4(Opcode::OpenRead, cur, t.root as i32, t.db as i32, P4::Int64(t.columns.len() as i64), 0);
        }
        Ok(cur)
    }

    /// Probe for the parent row of the child row in `row` (one register
    /// per child column): jumps to `found` when it exists or when a key
    /// column is NULL, falls through when it is missing.
    fn probe_parent(&mut self, child: &Table, fk: &ForeignKey, row: i32, found: i32) -> Result<()> {
        // A misconfigured key fails whatever the row holds (SQLite reports
        // these when the statement is prepared).
        let r = match self.resolve_fk(child, fk) {
            Ok(Some(r)) => r,
            Ok(None) if self.dml.fk_parent_may_be_gone => {
                // The parent table was dropped earlier in the transaction:
                // every non-NULL key has lost its parent row.
                for &c in &fk.columns {
                    self.b.add(Opcode::IsNull, row + c as i32, found, 0);
                }
                return Ok(());
            }
            Ok(None) => {
                let msg = format!("no such table: {}.{}", self.db_name(child.db), fk.parent);
                self.b.add4(Opcode::Halt, SQLITE_ERROR, 0, 0, P4::text(msg), 0);
                return Ok(());
            }
            Err(msg) => {
                self.b.add4(Opcode::Halt, SQLITE_ERROR, 0, 0, P4::text(msg), 0);
                return Ok(());
            }
        };
        for &c in &fk.columns {
            self.b.add(Opcode::IsNull, row + c as i32, found, 0);
        }
        match r.key {
            ParentKey::Rowid => {
                let missing = self.b.label();
                let tmp = self.b.reg();
                self.b.add(Opcode::SCopy, row + fk.columns[0] as i32, tmp, 0);
                self.b.add(Opcode::MustBeInt, tmp, missing, 0);
                let cur = self.open_read(&r.parent)?;
                self.b.add(Opcode::NotExists, cur, missing, tmp);
                self.b.add(Opcode::Goto, 0, found, 0);
                self.b.bind(missing);
            }
            ParentKey::Index(idx, map) => {
                let n = map.len();
                let k = self.b.regs(n);
                let mut affs = String::new();
                for (i, &j) in map.iter().enumerate() {
                    self.b.add(Opcode::SCopy, row + fk.columns[j] as i32, k + i as i32, 0);
                    affs.push(r.parent.columns[r.parent_cols[j]].affinity.letter());
                }
                self.b.add4(Opcode::Affinity, k, n as i32, 0, P4::affinity(affs), 0);
                let ki = self.index_key_info(&idx)?;
                let cur = self.b.cursor();
                self.stmt.dbs_used |= 1 << idx.db;
                self.b.add4(Opcode::OpenRead, cur, idx.root as i32, idx.db as i32, P4::KeyInfo(ki), 0);
                self.b.add4(Opcode::Found, cur, found, k, P4::Int64(n as i64), 0);
            }
        }
        Ok(())
    }

    /// Scan `child` for rows whose key equals the parent key held in
    /// `prow` (one register per parent column); `on_match` is generated
    /// for each. `skip_rowid`: a rowid whose row is not counted (a row
    /// referring to itself).
    fn scan_children(
        &mut self,
        parent: &Table,
        child: &Table,
        fk: &ForeignKey,
        parent_cols: &[usize],
        prow: i32,
        skip_self: Option<(i32, i32)>,
        on_match: &mut dyn FnMut(&mut Self, i32) -> Result<()>,
    ) -> Result<()> {
        let positions = child.without_rowid.as_ref().map(|_| crate::sql::codegen::target::positions_of(child));
        let done = self.b.label();
        for &p in parent_cols {
            self.b.add(Opcode::IsNull, prow + p as i32, done, 0);
        }
        let cc = self.open_read(child)?;
        self.b.add(Opcode::Rewind, cc, done, 0);
        let top = self.b.here();
        let next = self.b.label();
        for (j, &p) in parent_cols.iter().enumerate() {
            let ccol = fk.columns[j];
            let v = self.b.reg();
            if child.is_virtual(ccol) {
                self.emit_virtual_column(child, cc, ccol, v)?;
            } else if let Some(p) = &positions {
                let d = crate::sql::codegen::expr::default_p4(child, ccol);
                self.b.add4(Opcode::Column, cc, p[ccol] as i32, v, d, 0);
            } else if child.rowid_alias == Some(ccol) {
                self.b.add(Opcode::Rowid, cc, v, 0);
            } else if let Some(field) = child.field_of(ccol) {
                let d = crate::sql::codegen::expr::default_p4(child, ccol);
                self.b.add4(Opcode::Column, cc, field as i32, v, d, 0);
            } else {
                self.emit_virtual_column(child, cc, ccol, v)?;
            }
            let pc = &parent.columns[p];
            let coll = match &pc.collation {
                Some(n) => P4::coll(self.collation(n)?),
                None => P4::None,
            };
            self.b.add4(Opcode::Ne, prow + p as i32, next, v, coll, pc.affinity.letter() as u16 | crate::vdbe::program::cmp_flags::JUMPIFNULL);
        }
        if let Some((row, rowid)) = skip_self {
            if let Some(p) = &positions {
                // A WITHOUT ROWID row is itself when its key is.
                let width = child.key_width();
                let mine = self.b.regs(width);
                for (i, col) in child.record_columns().into_iter().take(width).enumerate() {
                    self.b.add(Opcode::Column, cc, p[col] as i32, mine + i as i32);
                }
                let own = self.key_of_row(child, row);
                self.jump_if_same_key(child, own, mine, next)?;
            } else {
                let me = self.b.reg();
                self.b.add(Opcode::Rowid, cc, me, 0);
                self.b.add4(Opcode::Eq, rowid, next, me, P4::None, 0);
            }
        }
        on_match(self, cc)?;
        self.b.bind(next);
        self.b.add(Opcode::Next, cc, top as i32, 0);
        self.b.bind(done);
        Ok(())
    }

    /// Child side: for each foreign key of `t` (those touching `changed`
    /// columns, when given) whose parent row is missing for the row in
    /// `row`, add `incr` to the violation counter.
    pub fn fk_check_child(&mut self, t: &Table, row: i32, incr: i32, changed: Option<&[usize]>) -> Result<()> {
        let fks: Vec<ForeignKey> = t.foreign_keys.iter().filter(|fk| changed.is_none_or(|ch| fk.columns.iter().any(|c| ch.contains(c)))).cloned().collect();
        if fks.is_empty() {
            return Ok(());
        }
        let off = self.b.label();
        self.b.add(Opcode::FkIfOff, 0, off, 0);
        for fk in fks {
            let ok = self.b.label();
            if incr < 0 {
                // Only violations this statement counted can be resolved.
                self.b.add(Opcode::FkIfZero, fk.deferred as i32, ok, 0);
            }
            self.probe_parent(t, &fk, row, ok)?;
            self.b.add(Opcode::FkCounter, fk.deferred as i32, incr, 0);
            self.b.bind(ok);
        }
        self.b.bind(off);
        Ok(())
    }

    /// Parent side: for each foreign key referring to `t` (whose parent
    /// key touches `changed`, when given), add `incr` for every child row
    /// referring to the row in `row`/`rowid`. Decrements are skipped while
    /// the counter is zero (there is nothing they could resolve).
    pub fn fk_check_parent(&mut self, t: &Table, row: i32, rowid: i32, incr: i32, changed: Option<&[usize]>) -> Result<()> {
        let refs = self.fks_referencing(t);
        if refs.is_empty() {
            return Ok(());
        }
        let off = self.b.label();
        self.b.add(Opcode::FkIfOff, 0, off, 0);
        for (child, fk) in refs {
            let r = match self.resolve_fk(&child, &fk) {
                Ok(Some(r)) => r,
                Ok(None) => continue,
                Err(msg) => {
                    self.b.add4(Opcode::Halt, SQLITE_ERROR, 0, 0, P4::text(msg), 0);
                    continue;
                }
            };
            if changed.is_some_and(|ch| !r.parent_cols.iter().any(|c| ch.contains(c))) {
                continue;
            }
            let skip = self.b.label();
            if incr < 0 {
                self.b.add(Opcode::FkIfZero, fk.deferred as i32, skip, 0);
            }
            let same = child.name.eq_ci(&t.name) && incr > 0;
            let deferred = fk.deferred as i32;
            self.scan_children(t, &child, &fk, &r.parent_cols, row, same.then_some((row, rowid)), &mut |c, _| {
                c.b.add(Opcode::FkCounter, deferred, incr, 0);
                Ok(())
            })?;
            self.b.bind(skip);
        }
        self.b.bind(off);
        Ok(())
    }

    /// ON DELETE (`new` is `None`) or ON UPDATE actions for the parent row
    /// just changed in `t`: `old`/`new` are (row registers, rowid).
    pub fn fk_actions(&mut self, t: &WriteTarget, old: (i32, i32), new: Option<(i32, i32)>, changed: Option<&[usize]>) -> Result<()> {
        let refs = self.fks_referencing(&t.table);
        let mut todo = Vec::new();
        for (child, fk) in refs {
            let action = if new.is_some() { fk.on_update } else { fk.on_delete };
            if action == FkAction::NoAction {
                continue;
            }
            let Ok(Some(r)) = self.resolve_fk(&child, &fk) else { continue };
            if changed.is_some_and(|ch| !r.parent_cols.iter().any(|c| ch.contains(c))) {
                continue;
            }
            todo.push((child, fk, r, action));
        }
        if todo.is_empty() {
            return Ok(());
        }
        let off = self.b.label();
        self.b.add(Opcode::FkIfOff, 0, off, 0);
        for (child, fk, r, action) in todo {
            let pname = |p: usize| quote(&t.table.columns[p].name);
            let key_changed = new.map(|_| {
                let same: Vec<String> = r.parent_cols.iter().map(|&p| format!("old.{0} IS new.{0}", pname(p))).collect();
                format!("NOT ({})", same.join(" AND "))
            });
            if action == FkAction::Restrict {
                let skip = self.b.label();
                if let Some((nrow, _)) = new {
                    // Only a change of the key itself is restricted.
                    let differs = self.b.label();
                    for &p in &r.parent_cols {
                        self.b.add4(Opcode::Ne, old.0 + p as i32, differs, nrow + p as i32, P4::None, crate::vdbe::program::cmp_flags::NULLEQ);
                    }
                    self.b.add(Opcode::Goto, 0, skip, 0);
                    self.b.bind(differs);
                }
                let same = child.name.eq_ci(&t.table.name);
                self.scan_children(&t.table, &child, &fk, &r.parent_cols, old.0, same.then_some(old), &mut |c, _| {
                    c.b.add4(Opcode::Halt, SQLITE_CONSTRAINT_FOREIGNKEY, 0, 0, P4::text("FOREIGN KEY constraint failed".into()), 0);
                    Ok(())
                })?;
                self.b.bind(skip);
                continue;
            }
            let cond: Vec<String> =
                fk.columns.iter().zip(&r.parent_cols).map(|(&c, &p)| format!("{} = old.{}", quote(&child.columns[c].name), pname(p))).collect();
            let body = match action {
                FkAction::Cascade if new.is_none() => format!("DELETE FROM {} WHERE {}", self.table_sql_name(&child), cond.join(" AND ")),
                FkAction::Cascade => {
                    let sets: Vec<String> =
                        fk.columns.iter().zip(&r.parent_cols).map(|(&c, &p)| format!("{} = new.{}", quote(&child.columns[c].name), pname(p))).collect();
                    format!("UPDATE {} SET {} WHERE {}", self.table_sql_name(&child), sets.join(", "), cond.join(" AND "))
                }
                _ => {
                    let sets: Vec<String> = fk
                        .columns
                        .iter()
                        .map(|&c| {
                            let v = match action {
                                FkAction::SetDefault => child.columns[c].default_sql().unwrap_or_else(|| "NULL".into()),
                                _ => "NULL".into(),
                            };
                            format!("{} = {v}", quote(&child.columns[c].name))
                        })
                        .collect();
                    format!("UPDATE {} SET {} WHERE {}", self.table_sql_name(&child), sets.join(", "), cond.join(" AND "))
                }
            };
            let event = if new.is_some() { "UPDATE" } else { "DELETE" };
            let when = key_changed.map(|w| format!(" WHEN {w}")).unwrap_or_default();
            let name = format!("\u{1}fk {} {}", child.name, fk.parent);
            let sql = format!("CREATE TRIGGER x AFTER {event} ON {}{when} BEGIN {body}; END", quote(&t.table.name));
            let skip = self.b.label();
            with_first_statement(sql.as_bytes(), |cmd, _| {
                let Some(ast::Cmd::Stmt(Stmt::CreateTrigger { when_clause, commands, .. })) = cmd else {
                    return Err(Error::new(crate::error::SQLITE_INTERNAL, "foreign key action"));
                };
                // As in SQLite, the action is a trigger program, compiled
                // once per statement: an action reached again (a table
                // referencing itself, a cycle of tables) calls it, and
                // its depth is the run time's to bound
                // (SQLITE_LIMIT_TRIGGER_DEPTH, "triggers nested too deep").
                self.call_trigger_program(t, &name, when_clause.as_ref(), commands, Some(old), new, skip)
            })?;
            self.b.bind(skip);
        }
        self.b.bind(off);
        Ok(())
    }

    /// DROP TABLE of a table taking part in foreign keys: delete its rows
    /// first (no triggers fire), so the counters and ON DELETE actions see
    /// the rows go.
    pub fn fk_drop_table_delete(&mut self, t: &Table) -> Result<()> {
        let off = self.b.label();
        self.b.add(Opcode::FkIfOff, 0, off, 0);
        let wt = self.open_write_target(t.clone())?;
        let done = self.b.label();
        // Rewind each time: the deletion moves the cursor.
        let top = self.b.here();
        self.b.add(Opcode::Rewind, wt.cursor, done, 0);
        self.dml.fk_parent_may_be_gone = true;
        let deleted = self.delete_current_row(&wt, 0);
        self.dml.fk_parent_may_be_gone = false;
        deleted?;
        self.b.add(Opcode::Goto, 0, top as i32, 0);
        self.b.bind(done);
        self.b.add(Opcode::Close, wt.cursor, 0, 0);
        for (_, cur) in &wt.indexes {
            self.b.add(Opcode::Close, *cur, 0, 0);
        }
        self.b.bind(off);
        Ok(())
    }

    /// COMMIT (or RELEASE of `savepoint`, when that ends the
    /// transaction): fail while the transaction's deferred violation
    /// counts are positive (see `vdbe/exec/fkey.rs`).
    pub fn fk_commit_check(&mut self, savepoint: Option<&str>) -> Result<()> {
        let off = self.b.label();
        match savepoint {
            Some(name) => self.b.add4(Opcode::FkIfOff, 0, off, 1, P4::text(name.to_string()), 0),
            None => self.b.add(Opcode::FkIfOff, 0, off, 0),
        };
        self.b.add(Opcode::FkCheck, 0, 0, 0);
        self.b.bind(off);
        Ok(())
    }

    /// `PRAGMA foreign_key_check[(table)]`.
    pub fn pragma_foreign_key_check(&mut self, prog: &mut Program, db: Option<usize>, table: Option<&str>) -> Result<()> {
        let tables = self.fk_check_tables(db, table)?;
        prog.column_names = ["table", "rowid", "parent", "fkid"].iter().map(|s| s.to_string()).collect();
        self.emit_fk_check(&tables, &mut |c, out, _| {
            c.b.add(Opcode::ResultRow, out, 4, 0);
            Ok(())
        })
    }

    /// The tables `PRAGMA [db.]foreign_key_check[(table)]` checks: the
    /// one named, else every table of `db` (main when unqualified, as in
    /// SQLite).
    pub(in crate::sql::codegen) fn fk_check_tables(&self, db: Option<usize>, table: Option<&str>) -> Result<Vec<Table>> {
        Ok(match table {
            Some(n) => vec![self.env.schema.table_in(db, n).cloned().ok_or_else(|| match db {
                Some(d) => Error::sql(format!("no such table: {}.{n}", self.db_name(d))),
                None => Error::sql(format!("no such table: {n}")),
            })?],
            None => {
                // (Most recently created first, SQLite's schema hash order.)
                let mut v: Vec<Table> = Vec::new();
                for (i, r) in self.env.schema.rows.iter().enumerate().rev() {
                    let row_db = self.env.schema.row_db(i);
                    if r.0 == "table" && db.unwrap_or(0) == row_db {
                        if let Some(t) = self.env.schema.table_in(Some(row_db), &r.1) {
                            v.push(t.clone());
                        }
                    }
                }
                v
            }
        })
    }

    /// Check the foreign keys of `tables`: for each violation, registers
    /// out..out+4 hold (table, rowid, parent, fkid) and `emit_row(self,
    /// out, table)` uses them (out+4 and out+5 are the caller's too). A
    /// misconfigured foreign key is an error now.
    pub(in crate::sql::codegen) fn emit_fk_check(&mut self, tables: &[Table], emit_row: &mut dyn FnMut(&mut Self, i32, &Table) -> Result<()>) -> Result<()> {
        for t in tables {
            if t.foreign_keys.is_empty() {
                continue;
            }
            for fk in &t.foreign_keys {
                if let Err(msg) = self.resolve_fk(t, fk) {
                    return Err(Error::sql(msg));
                }
            }
            // One scan of the table; each row is checked against every
            // foreign key in turn (fkid order), as SQLite reports them.
            let cur = self.open_read(t)?;
            let done = self.b.label();
            self.b.add(Opcode::Rewind, cur, done, 0);
            let top = self.b.here();
            let wt = WriteTarget { table: t.clone(), cursor: cur, indexes: Vec::new() };
            let row = self.read_row(&wt)?;
            let out = self.b.regs(6);
            for (id, fk) in t.foreign_keys.iter().rev().enumerate() {
                let ok = self.b.label();
                if matches!(self.resolve_fk(t, fk), Ok(None)) {
                    // A missing parent table counts as empty.
                    for &c in &fk.columns {
                        self.b.add(Opcode::IsNull, row + c as i32, ok, 0);
                    }
                } else {
                    self.probe_parent(t, fk, row, ok)?;
                }
                self.b.add4(Opcode::String8, 0, out, 0, P4::bytes(t.name.clone().into_bytes()), 0);
                if t.without_rowid.is_some() {
                    self.b.add(Opcode::Null, 0, out + 1, 0);
                } else {
                    self.b.add(Opcode::Rowid, cur, out + 1, 0);
                }
                self.b.add4(Opcode::String8, 0, out + 2, 0, P4::bytes(fk.parent.clone().into_bytes()), 0);
                self.b.add(Opcode::Integer, id as i32, out + 3, 0);
                emit_row(self, out, t)?;
                self.b.bind(ok);
            }
            self.b.add(Opcode::Next, cur, top as i32, 0);
            self.b.bind(done);
        }
        Ok(())
    }

    /// `PRAGMA foreign_key_list(table)` rows.
    pub fn foreign_key_list(&self, db: Option<usize>, table: &str) -> Vec<Vec<Value>> {
        let Some(t) = self.env.schema.table_in(db, table) else { return Vec::new() };
        let mut rows = Vec::new();
        for (id, fk) in t.foreign_keys.iter().rev().enumerate() {
            for (seq, &c) in fk.columns.iter().enumerate() {
                let to = match fk.parent_columns.get(seq) {
                    Some(n) => Value::text(n.clone()),
                    None => Value::Null,
                };
                rows.push(vec![
                    Value::Integer(id as i64),
                    Value::Integer(seq as i64),
                    Value::text(fk.parent.clone()),
                    Value::text(t.columns[c].name.clone()),
                    to,
                    Value::text(fk.on_update.name()),
                    Value::text(fk.on_delete.name()),
                    Value::text("NONE"),
                ]);
            }
        }
        rows
    }
}
