//! ALTER TABLE RENAME TO / RENAME COLUMN: every `sqlite_schema` row of the
//! table's database (and the TEMP triggers and views) is edited where it
//! names the table or column (`crate::sql::rename`), and the rows that
//! belong to a renamed table (its indexes, its triggers) follow it. A view
//! or trigger whose names no longer resolve fails the statement as SQLite
//! reports it: `error in view v1: no such table: main.t2` for what was
//! already broken, `error in trigger r1 after rename: no such column:
//! new.b` for what the rename breaks.
//!
//! Invariant: nothing is written unless every row was edited; rows that
//! do not change are not rewritten.

use crate::error::{Error, Result};
use crate::sql::codegen::Compiler;
use crate::sql::rename::{rewrite, NewName, Target};
use crate::sql::schema::Table;
use crate::util::ascii::AsciiLower;
use crate::vdbe::program::{Opcode, P4};

/// A rewritten `sqlite_schema` row: (old name, type, name, tbl_name, sql).
type Row = (String, String, String, String, Option<String>);

impl Compiler<'_> {
    /// Rewrite the schema for renaming `target` (table `table` or one of
    /// its columns) to `new`.
    pub(in crate::sql::codegen) fn rename_in_schema(&mut self, table: &Table, target: &Target, new: &NewName<'_>) -> Result<()> {
        let db_names: Vec<String> = (0..self.env.databases.len().max(2)).map(|d| self.db_name(d)).collect();
        let renames_table = target.column.is_none();
        let mut own: Vec<Row> = Vec::new();
        let mut temp: Vec<Row> = Vec::new();
        // Every view and trigger as it will be: (database, type, name, sql).
        let mut after: Vec<(usize, String, String, String)> = Vec::new();
        // (Virtual tables are walked with the columns their modules declared.)
        let with_vtabs = self.schema_with_vtab_columns()?;
        let walked = with_vtabs.as_ref().unwrap_or(self.env.schema);
        let mut changed = walked.clone();
        for (i, (ty, name, tbl, root, sql)) in self.env.schema.rows.iter().enumerate() {
            let db = self.env.schema.row_db(i);
            if db != table.db && db != 1 {
                continue;
            }
            let edited = match sql {
                Some(sql) if !name.ascii_lower().starts_with("sqlite_") => match rewrite(sql, db, walked, &db_names, target, new) {
                    Ok(e) => e,
                    Err(msg) => return Err(Error::sql(format!("error in {ty} {name}: {msg}"))),
                },
                _ => None,
            };
            // Rows of the renamed table: itself, its indexes and triggers.
            let belongs = renames_table
                && tbl.eq_ci(&table.name)
                && match ty.as_str() {
                    "trigger" => self.env.schema.trigger_row_watches(i, table),
                    _ => db == table.db,
                };
            let (new_name, new_tbl) = if belongs {
                let new_name = if name.eq_ci(&table.name) {
                    new.name.to_string()
                } else if sql.is_none() && name.ascii_lower().starts_with("sqlite_autoindex_") {
                    let suffix = name.rsplit('_').next().unwrap_or("1");
                    format!("sqlite_autoindex_{}_{suffix}", new.name)
                } else {
                    name.clone()
                };
                (new_name, new.name.to_string())
            } else {
                (name.clone(), tbl.clone())
            };
            let new_sql = edited.clone().or_else(|| sql.clone());
            if let Some(text) = &new_sql {
                if ty == "view" || ty == "trigger" {
                    after.push((db, ty.clone(), new_name.clone(), text.clone()));
                }
                if (ty == "table" || ty == "view") && edited.is_some() {
                    if let Ok(mut t) = crate::sql::schema::table_from_sql(text, *root as u32) {
                        t.db = db;
                        // A virtual table keeps the columns its module
                        // declared under its new name.
                        if t.virtual_table.is_some() {
                            if let Some(declared) = walked.table_in(Some(db), name).filter(|d| d.virtual_table.is_none()) {
                                let mut d = declared.clone();
                                d.name = t.name.clone();
                                d.sql = t.sql.clone();
                                t = d;
                            }
                        }
                        changed.replace_table(name, t);
                    }
                }
            }
            if edited.is_none() && !belongs {
                continue;
            }
            let row = (name.clone(), ty.clone(), new_name, new_tbl, new_sql);
            if db == table.db {
                own.push(row);
            } else {
                temp.push(row);
            }
        }
        // The views and triggers must still resolve against the schema as
        // it will be.
        let nothing = Target { db: usize::MAX, table: String::new(), column: None, legacy: false, references: true };
        for (db, ty, name, sql) in after.into_iter().filter(|_| !target.legacy) {
            if let Err(msg) = rewrite(&sql, db, &changed, &db_names, &nothing, new) {
                return Err(Error::sql(format!("error in {ty} {name} after rename: {msg}")));
            }
        }
        self.rewrite_schema_rows(own);
        if !temp.is_empty() {
            let saved = std::mem::replace(&mut self.stmt.ddl_db, 1);
            self.rewrite_schema_rows(temp);
            self.stmt.ddl_db = saved;
            self.b.add(Opcode::SetCookie, 1, crate::btree::Meta::SchemaCookie as i32, self.env.schema.temp_cookie.wrapping_add(1) as i32);
            self.b.add(Opcode::ParseSchema, 1, 0, self.schema_objects_after(1));
        }
        Ok(())
    }

    /// The `sqlite_sequence` row of AUTOINCREMENT table `table` follows
    /// its new name.
    pub(in crate::sql::codegen) fn rename_sequence_row(&mut self, table: &Table, new: &str) {
        let Some(seq) = self.env.schema.table_in(Some(table.db), "sqlite_sequence").map(|t| t.root) else { return };
        let cur = self.b.cursor();
        self.b.add4(Opcode::OpenWrite, cur, seq as i32, table.db as i32, P4::Int64(2), 0);
        let end = self.b.label();
        self.b.add(Opcode::Rewind, cur, end, 0);
        let top = self.b.here();
        let next = self.b.label();
        let name = self.b.reg();
        let old = self.b.reg();
        self.b.add(Opcode::Column, cur, 0, name);
        self.b.add4(Opcode::String8, 0, old, 0, P4::bytes(table.name.clone().into_bytes()), 0);
        self.b.add(Opcode::Ne, old, next, name);
        let fields = self.b.regs(2);
        self.b.add4(Opcode::String8, 0, fields, 0, P4::bytes(new.as_bytes().to_vec()), 0);
        self.b.add(Opcode::Column, cur, 1, fields + 1);
        let rec = self.b.reg();
        let rid = self.b.reg();
        self.b.add(Opcode::MakeRecord, fields, 2, rec);
        self.b.add(Opcode::Rowid, cur, rid, 0);
        self.b.add(Opcode::Insert, cur, rec, rid);
        self.b.add(Opcode::Goto, 0, end, 0);
        self.b.bind(next);
        self.b.add(Opcode::Next, cur, top as i32, 0);
        self.b.bind(end);
    }
}
