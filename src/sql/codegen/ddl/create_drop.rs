//! CREATE/DROP of tables, indexes and views: new B-trees, rows of
//! `sqlite_schema`, the schema cookie bump and `ParseSchema` (the
//! connection reloads its schema after the statement). CREATE INDEX fills
//! the new index from the table.

use crate::btree::Meta;
use crate::error::{Error, Result, SQLITE_CONSTRAINT_UNIQUE};
use crate::sql::codegen::Compiler;
use crate::sql::column_rules::definition_error;
use crate::sql::parse::parse_time_window_errors;
use crate::sql::parse::{schema_sql, unquote, unquoted};
use crate::sql::schema::{index_from_stmt, table_from_stmt, Index, Table};
use crate::util::ascii::AsciiLower;
use crate::vdbe::program::{Opcode, Program, P4};
use sqlite3_parser::ast::Stmt;

const SCHEMA_COLUMNS: i32 = 5;

impl Compiler<'_> {
    /// A new object `name` in database `self.stmt.ddl_db`: names are unique
    /// per database. `written` is the name's token as the statement spells
    /// it, which SQLite quotes when a table or view of that name exists.
    fn check_new_name(&self, name: &str, written: &str, kind: &str) -> Result<()> {
        // writable_schema lifts the reservation of "sqlite_" names, as in
        // SQLite (its shell's `.parameter` creates temp.sqlite_parameters).
        if crate::sql::schema::is_internal_name(name) && !self.env.internal && !self.env.settings.writable_schema {
            return Err(Error::sql(format!("object name reserved for internal use: {name}")));
        }
        let db = Some(self.stmt.ddl_db);
        if let Some(t) = self.env.schema.table_in(db, name) {
            let what = if t.view_select.is_some() { "view" } else { "table" };
            if kind == "index" {
                return Err(Error::sql(format!("there is already a {what} named {name}")));
            }
            return Err(Error::sql(format!("{what} {written} already exists")));
        }
        if self.env.schema.index_in(db, name).is_some() {
            if kind == "index" {
                return Err(Error::sql(format!("index {name} already exists")));
            }
            return Err(Error::sql(format!("there is already an index named {name}")));
        }
        Ok(())
    }

    /// The database CREATE [TEMP] TABLE/VIEW `name` puts its object in:
    /// temp for TEMP, the one a qualifier names, else main.
    fn create_db(&self, temporary: bool, name: &sqlite3_parser::ast::QualifiedName<'_>) -> Result<usize> {
        let named = self.qualifier_db(name.db_name.as_ref())?;
        if temporary {
            if named.is_some_and(|d| d != 1) {
                return Err(Error::sql("temporary table name must be unqualified"));
            }
            return Ok(1);
        }
        Ok(named.unwrap_or(0))
    }

    /// A view or trigger stored in main or an attached database uses only
    /// objects of its own database `db` (SQLite binds its names there): a
    /// schema qualifier naming another database is refused. Found from the
    /// statement's tokens after the first `after` token (`name . name`
    /// whose first part is a database name).
    pub(crate) fn check_object_databases(&self, kind: &str, name: &str, db: usize, after: sqlite3_parser::dialect::TokenType) -> Result<()> {
        use sqlite3_parser::dialect::TokenType;
        if db == 1 {
            return Ok(());
        }
        let toks = crate::sql::parse::tokens(self.stmt.sql).collect::<Vec<_>>();
        let Some(from) = toks.iter().position(|t| t.kind == after) else { return Ok(()) };
        for w in toks[from..].windows(3) {
            if w[0].kind == TokenType::TK_ID && w[1].kind == TokenType::TK_DOT && w[2].kind == TokenType::TK_ID {
                let q = unquote(&String::from_utf8_lossy(&self.stmt.sql[w[0].start..w[0].end]));
                if self.db_index(&q).is_some_and(|d| d != db) {
                    return Err(Error::sql(format!("{kind} {name} cannot reference objects in database {q}")));
                }
            }
        }
        Ok(())
    }

    /// Whether SQLite's compile of a CREATE gets past formatting the
    /// statements it writes the schema row with (`sqlite3NestedParse`)
    /// under `SQLITE_LIMIT_LENGTH`: its printf fails a text of 70 bytes or
    /// more that does not fit the limit with a terminator, and the prepare
    /// fails "string or blob too big". `created` is the CREATE text it
    /// formats first (the stored `sql`; `None` where SQLite builds it
    /// without printf), `write` the nested statement given the quoted
    /// database name and the quoted stored text.
    pub(in crate::sql::codegen) fn nested_write_fits(&self, created: Option<&str>, write: impl FnOnce(&str, &str) -> String) -> Result<()> {
        let max = self.env.max_length;
        let fails = |n: usize| n >= 70 && n as i64 >= max;
        if created.is_some_and(|t| fails(t.len())) {
            return Err(Error::too_big());
        }
        let quoted = |t: &str| format!("'{}'", t.replace('\'', "''"));
        let db = quoted(&self.db_name(self.stmt.ddl_db));
        let text = write(&db, &created.map_or_else(|| "NULL".to_string(), quoted));
        if fails(text.len()) {
            return Err(Error::too_big());
        }
        Ok(())
    }

    /// Append a row to `sqlite_schema` through cursor `sc`.
    pub(in crate::sql::codegen) fn schema_row(&mut self, sc: i32, ty: &str, name: &str, tbl: &str, root_reg: Option<i32>, sql: Option<&str>) {
        let regs = self.b.regs(SCHEMA_COLUMNS as usize);
        self.b.add4(Opcode::String8, 0, regs, 0, P4::bytes(ty.as_bytes().to_vec()), 0);
        self.b.add4(Opcode::String8, 0, regs + 1, 0, P4::bytes(name.as_bytes().to_vec()), 0);
        self.b.add4(Opcode::String8, 0, regs + 2, 0, P4::bytes(tbl.as_bytes().to_vec()), 0);
        match root_reg {
            Some(r) => self.b.add(Opcode::SCopy, r, regs + 3, 0),
            None => self.b.add(Opcode::Integer, 0, regs + 3, 0),
        };
        match sql {
            Some(s) => self.b.add4(Opcode::String8, 0, regs + 4, 0, P4::bytes(s.as_bytes().to_vec()), 0),
            None => self.b.add(Opcode::Null, 0, regs + 4, 0),
        };
        self.stmt.schema_rows_added += 1;
        let rec = self.b.reg();
        let rid = self.b.reg();
        self.b.add4(Opcode::MakeRecord, regs, SCHEMA_COLUMNS, rec, P4::affinity("BBBDB".into()), 0);
        self.b.add(Opcode::NewRowid, sc, rid, 0);
        self.b.add(Opcode::Insert, sc, rec, rid);
    }

    pub(in crate::sql::codegen) fn open_schema_table(&mut self) -> i32 {
        let sc = self.b.cursor();
        let db = self.stmt.ddl_db as i32;
        self.stmt.dbs_used |= 1 << self.stmt.ddl_db;
        self.b.add4(Opcode::OpenWrite, sc, 1, db, P4::Int64(SCHEMA_COLUMNS as i64), 0);
        if self.stmt.explain_comments {
            let text = if db == 1 { "sqlite_temp_schema".to_string() } else { format!("{}.sqlite_schema", self.db_name(db as usize)) };
            self.comment(&text);
        }
        sc
    }

    /// The end of a CREATE: a new schema cookie, and `ParseSchema` saying
    /// the statement only inserted schema rows, so that the connection
    /// parses just those rows.
    pub(in crate::sql::codegen) fn bump_cookie_appended(&mut self) {
        self.bump_cookie_as(1);
    }

    /// The end of a DROP: [`Self::bump_cookie_appended`] for a statement
    /// that only deleted schema rows (the connection forgets their objects).
    pub(in crate::sql::codegen) fn bump_cookie_deleted(&mut self) {
        self.bump_cookie_as(2);
    }

    fn bump_cookie_as(&mut self, change: u16) {
        let (db, cookie) = (self.stmt.ddl_db as i32, self.env.schema.cookie_of(self.stmt.ddl_db));
        self.b.add(Opcode::SetCookie, db, Meta::SchemaCookie as i32, cookie.wrapping_add(1) as i32);
        // A DROP forgets objects without parsing any (SQLite's DropTable):
        // only a CREATE meets SQLITE_LIMIT_SCHEMA.
        let objects = if change == 1 { self.schema_objects_after(self.stmt.ddl_db) } else { 0 };
        self.b.add4(Opcode::ParseSchema, db, 0, objects, P4::None, change);
    }

    /// The objects database `db`'s schema holds once the program's new
    /// rows are parsed, as SQLite counts them against
    /// `SQLITE_LIMIT_SCHEMA` (its schema table is one): `ParseSchema`'s P3.
    pub(in crate::sql::codegen) fn schema_objects_after(&self, db: usize) -> i32 {
        let s = self.env.schema;
        let rows = (0..s.rows.len()).filter(|&i| s.row_db(i) == db).count();
        i32::try_from(rows + 1 + self.stmt.schema_rows_added).unwrap_or(i32::MAX)
    }

    pub(in crate::sql::codegen) fn ensure_format(&mut self) {
        let db = self.stmt.ddl_db as i32;
        let r = self.b.reg();
        let skip = self.b.label();
        self.b.add(Opcode::ReadCookie, db, r, Meta::SchemaFormat as i32);
        self.b.add(Opcode::If, r, skip, 0);
        self.b.add(Opcode::SetCookie, db, Meta::SchemaFormat as i32, 4);
        self.b.add(Opcode::SetCookie, db, Meta::TextEncoding as i32, 1);
        self.b.bind(skip);
    }

    /// Fill index `idx` (tree root in register `root_reg`) from its table.
    pub(in crate::sql::codegen) fn populate_index(&mut self, table: &Table, idx: &Index, root_reg: i32) -> Result<()> {
        let tc = self.b.cursor();
        if table.without_rowid.is_some() {
            self.open_without_rowid_read(tc, table)?;
        } else {
            self.b.add4(Opcode::OpenRead, tc, table.root as i32, table.db as i32, P4::Int64(table.columns.len() as i64), 0);
        }
        let ic = self.b.cursor();
        let ki = self.index_key_info_for(table, idx)?;
        self.b.add4(Opcode::OpenWrite, ic, root_reg, table.db as i32, P4::KeyInfo(ki.clone()), 0x02);
        let n = idx.columns.len();
        let width = table.index_entry_width(idx);
        let sorter = self.b.cursor();
        self.b.add4(Opcode::SorterOpen, sorter, width as i32, 0, P4::KeyInfo(ki.clone()), 0);
        let pseudo = self.b.cursor();
        let pseudo_reg = self.b.reg();
        self.b.add(Opcode::OpenPseudo, pseudo, pseudo_reg, width as i32);
        let end = self.b.label();
        self.b.add(Opcode::Rewind, tc, end, 0);
        let top = self.b.here();
        let k = self.b.regs(width);
        let next = self.b.label();
        // Key columns and the partial WHERE read the row under the table
        // cursor, VIRTUAL generated columns and expressions included.
        self.names.scopes.push(crate::sql::codegen::target::target_scope(table, None, tc));
        let saved_pure = std::mem::replace(&mut self.frame.pure_context, 1);
        // The authorizer already saw these reads when the statement was
        // checked; the code filling the index must not report them again.
        let authorizer = self.stmt.authorizer.take();
        let r = (|| -> Result<()> {
            if let Some(w) = idx.where_sql.clone() {
                let v = self.b.reg();
                self.expr_text(&w, v)?;
                self.b.add(Opcode::IfNot, v, next, 1);
            }
            for (i, col) in idx.columns.iter().enumerate() {
                match (col.column, &col.expr) {
                    (Some(c), _) if table.rowid_alias == Some(c) => {
                        self.b.add(Opcode::Rowid, tc, k + i as i32, 0);
                    }
                    (Some(c), _) => {
                        let name = table.columns[c].name.clone();
                        self.expr_text(&quote_ident(&name), k + i as i32)?;
                    }
                    (None, Some(e)) => {
                        let e = e.clone();
                        self.expr_text(&e, k + i as i32)?;
                    }
                    (None, None) => {
                        self.b.add(Opcode::Null, 0, k + i as i32, 0);
                    }
                }
            }
            Ok(())
        })();
        self.stmt.authorizer = authorizer;
        self.frame.pure_context = saved_pure;
        self.names.scopes.pop();
        r?;
        if table.without_rowid.is_some() {
            let positions = self.frame.record_positions.get(&tc).cloned().unwrap_or_default();
            for (i, (col, _, _)) in table.index_suffix(idx).into_iter().enumerate() {
                self.b.add(Opcode::Column, tc, positions[col] as i32, k + (n + i) as i32);
            }
        } else {
            self.b.add(Opcode::Rowid, tc, k + n as i32, 0);
        }
        // The entries go through a sorter and into the index in key order
        // (appends at the right edge of the tree, as SQLite builds them).
        let rec = self.b.reg();
        let affs = self.index_affinity_string(table, idx);
        self.b.add4(Opcode::MakeRecord, k, width as i32, rec, P4::affinity(affs), 0);
        self.b.add(Opcode::SorterInsert, sorter, rec, 0);
        self.b.bind(next);
        self.b.add(Opcode::Next, tc, top as i32, 0);
        self.b.bind(end);
        let done = self.b.label();
        self.b.add(Opcode::SorterSort, sorter, done, 0);
        let sorted_top = self.b.here();
        // The pseudo cursor reads the entry's key columns for the check.
        let entry = pseudo_reg;
        self.b.add(Opcode::SorterData, sorter, entry, pseudo);
        if idx.unique {
            // Entries with equal keys come out of the sorter next to each
            // other: each key is compared with the previous one (as
            // SQLite's SorterCompare does; a NULL never conflicts), not
            // looked up in the index, which would move the index cursor
            // off the tree's right edge where the next entry is appended.
            for i in 0..n {
                self.b.add(Opcode::Column, pseudo, i as i32, k + i as i32);
            }
            let prev = self.b.regs(n);
            let seen = self.b.reg();
            let ok = self.b.label();
            self.b.add(Opcode::IfNot, seen, ok, 1);
            for (i, field) in ki.fields.iter().take(n).enumerate() {
                self.b.add4(Opcode::Ne, k + i as i32, ok, prev + i as i32, P4::coll(field.collation.clone()), crate::vdbe::program::cmp_flags::JUMPIFNULL);
            }
            let msg = crate::sql::codegen::target::unique_failure_message(table, idx);
            self.b.add4(Opcode::Halt, SQLITE_CONSTRAINT_UNIQUE, 0, 0, P4::text(msg), 0);
            self.b.bind(ok);
            self.b.add(Opcode::Copy, k, prev, n as i32 - 1);
            self.b.add(Opcode::Integer, 1, seen, 0);
        }
        self.b.add(Opcode::IdxInsert, ic, entry, 0);
        self.b.add(Opcode::SorterNext, sorter, sorted_top as i32, 0);
        self.b.bind(done);
        Ok(())
    }

    fn index_key_info_for(&self, table: &Table, idx: &Index) -> Result<std::sync::Arc<crate::value::record::KeyInfo>> {
        let mut fields = Vec::new();
        for c in &idx.columns {
            let coll = c.collation.clone().or_else(|| c.column.and_then(|i| table.columns[i].collation.clone()));
            let collation = match coll {
                Some(n) => self.collation(&n)?,
                None => crate::value::collation::Collation::binary(),
            };
            fields.push(crate::value::record::KeyField { collation, descending: c.descending });
        }
        for (_, descending, coll) in table.index_suffix(idx) {
            fields.push(crate::value::record::KeyField { collation: self.collation(&coll)?, descending });
        }
        Ok(std::sync::Arc::new(crate::value::record::KeyInfo { fields }))
    }

    /// Delete the rows of the table rooted at `root` whose first column
    /// is `name` (the `sqlite_sequence` entry of a dropped table).
    fn delete_rows_named(&mut self, root: u32, name: &str) {
        let sc = self.b.cursor();
        self.b.add4(Opcode::OpenWrite, sc, root as i32, self.stmt.ddl_db as i32, P4::Int64(2), 0);
        let end = self.b.label();
        self.b.add(Opcode::Rewind, sc, end, 0);
        let top = self.b.here();
        let next = self.b.label();
        let r = self.b.reg();
        let n = self.b.reg();
        self.b.add(Opcode::Column, sc, 0, r);
        self.b.add4(Opcode::String8, 0, n, 0, P4::bytes(name.as_bytes().to_vec()), 0);
        self.b.add(Opcode::Ne, n, next, r);
        self.b.add(Opcode::Delete, sc, 0, 0);
        self.b.bind(next);
        self.b.add(Opcode::Next, sc, top as i32, 0);
        self.b.bind(end);
    }

    /// Delete the rows of database `db`'s schema table (only those of type
    /// `only_type`, when given) whose column `col` equals `name` (NOCASE).
    pub(in crate::sql::codegen) fn delete_schema_rows_of(&mut self, db: usize, only_type: Option<&str>, col: i32, name: &str) {
        self.delete_schema_rows_typed(db, only_type.map(|t| (t, true)), col, name);
    }

    /// [`Self::delete_schema_rows_of`] with a type filter: `(type, true)`
    /// deletes only rows of that type, `(type, false)` all but those.
    fn delete_schema_rows_typed(&mut self, db: usize, type_filter: Option<(&str, bool)>, col: i32, name: &str) {
        self.stmt.dbs_used |= 1 << db;
        let sc = self.b.cursor();
        self.b.add4(Opcode::OpenWrite, sc, 1, db as i32, P4::Int64(SCHEMA_COLUMNS as i64), 0);
        let end = self.b.label();
        self.b.add(Opcode::Rewind, sc, end, 0);
        let top = self.b.here();
        let next = self.b.label();
        if let Some((ty, only)) = type_filter {
            let (have, want) = (self.b.reg(), self.b.reg());
            self.b.add(Opcode::Column, sc, 0, have);
            self.b.add4(Opcode::String8, 0, want, 0, P4::bytes(ty.as_bytes().to_vec()), 0);
            self.b.add(if only { Opcode::Ne } else { Opcode::Eq }, want, next, have);
        }
        let r = self.b.reg();
        let n = self.b.reg();
        self.b.add(Opcode::Column, sc, col, r);
        self.b.add4(Opcode::String8, 0, n, 0, P4::bytes(name.as_bytes().to_vec()), 0);
        self.b.add4(Opcode::Ne, n, next, r, P4::coll(crate::value::collation::Collation::nocase()), 0);
        self.b.add(Opcode::Delete, sc, 0, 0);
        self.b.bind(next);
        self.b.add(Opcode::Next, sc, top as i32, 0);
        self.b.bind(end);
    }
}

/// Compile CREATE/DROP TABLE, INDEX or VIEW.
pub fn compile_ddl(c: &mut Compiler<'_>, stmt: &Stmt<'_>, prog: &mut Program) -> Result<()> {
    let init = c.begin_program();
    let mut write = true;
    match stmt {
        Stmt::CreateTable { temporary, if_not_exists, tbl_name, .. } => {
            c.stmt.ddl_db = c.create_db(*temporary, tbl_name)?;
            let name = unquote(tbl_name.name.0);
            if c.env.schema.table_in(Some(c.stmt.ddl_db), &name).is_some() && *if_not_exists {
                write = false;
            } else if let Stmt::CreateTable { body: sqlite3_parser::ast::CreateTableBody::AsSelect(sel), .. } = stmt {
                c.check_new_name(&name, tbl_name.name.0, "table")?;
                c.stmt.writes = true;
                c.create_table_as(&name, sel)?;
                prog.changes_schema = true;
            } else {
                c.check_new_name(&name, tbl_name.name.0, "table")?;
                let sql = schema_sql(c.stmt.sql, "TABLE");
                if let Stmt::CreateTable { body: sqlite3_parser::ast::CreateTableBody::ColumnsAndConstraints { columns, .. }, .. } = stmt {
                    // (A DEFAULT that is not constant is refused as such
                    // first, as SQLite's parser checks that before whether
                    // the column is generated.)
                    let definition = |cd: &sqlite3_parser::ast::ColumnDefinition<'_>| {
                        definition_error(cd).map(|e| {
                            match cd.constraints.iter().find_map(|k| match &k.constraint {
                                sqlite3_parser::ast::ColumnConstraint::Default(d)
                                    if !is_constant_default(d, false) && e.message.starts_with("cannot use DEFAULT") =>
                                {
                                    Some(d)
                                }
                                _ => None,
                            }) {
                                Some(_) => Error::sql(format!("default value of column [{}] is not constant", unquote(cd.col_name.0))),
                                None => e,
                            }
                        })
                    };
                    if let Some(e) = columns.iter().find_map(definition) {
                        return Err(e);
                    }
                    for cd in columns.iter() {
                        for k in cd.constraints.iter() {
                            if let sqlite3_parser::ast::ColumnConstraint::Default(e) = &k.constraint {
                                if !is_constant_default(e, false) {
                                    return Err(Error::sql(format!("default value of column [{}] is not constant", unquote(cd.col_name.0))));
                                }
                            }
                            if let sqlite3_parser::ast::ColumnConstraint::Collate { collation_name } = &k.constraint {
                                c.collation(&unquoted(collation_name.0))?;
                            }
                        }
                    }
                }
                let mut table = table_from_stmt(stmt, &sql, 0)?;
                if let Some(what) = &table.unsupported {
                    return Err(Error::unsupported(what));
                }
                // (Its database decides what its expressions may call:
                // `schema_trust.rs`.)
                table.db = c.stmt.ddl_db;
                c.validate_generated(&table)?;
                c.validate_checks(&table)?;
                c.stmt.writes = true;
                c.ensure_format();
                let root = c.b.reg();
                let db = c.stmt.ddl_db as i32;
                // A WITHOUT ROWID table is itself an index b-tree (flag 2)
                // and its PRIMARY KEY needs no separate index.
                let wr = table.without_rowid.is_some();
                c.b.add(Opcode::CreateBtree, db, root, if wr { 2 } else { 1 });
                // Automatic indexes are numbered in declaration order; a
                // WITHOUT ROWID table's PRIMARY KEY keeps its number but
                // has no tree or schema row of its own.
                let mut idx_roots = Vec::new();
                for (i, (_, is_pk)) in table.auto_indexes.iter().enumerate() {
                    if wr && *is_pk {
                        continue;
                    }
                    let r = c.b.reg();
                    c.b.add(Opcode::CreateBtree, db, r, 2);
                    idx_roots.push((i + 1, r));
                }
                let q = |t: &str| format!("'{}'", t.replace('\'', "''"));
                let n = q(&table.name);
                c.nested_write_fits(Some(&sql), |db, text| {
                    format!("UPDATE {db}.sqlite_master SET type='table', name={n}, tbl_name={n}, rootpage=#2, sql={text} WHERE rowid=#1")
                })?;
                let sc = c.open_schema_table();
                c.schema_row(sc, "table", &table.name, &table.name, Some(root), Some(&sql));
                for (number, r) in idx_roots {
                    let iname = format!("sqlite_autoindex_{}_{}", table.name, number);
                    c.schema_row(sc, "index", &iname, &table.name, Some(r), None);
                }
                if table.autoincrement && c.env.schema.table_in(Some(c.stmt.ddl_db), "sqlite_sequence").is_none() {
                    let r = c.b.reg();
                    c.b.add(Opcode::CreateBtree, db, r, 1);
                    c.schema_row(sc, "table", "sqlite_sequence", "sqlite_sequence", Some(r), Some("CREATE TABLE sqlite_sequence(name,seq)"));
                }
                c.bump_cookie_appended();
                prog.changes_schema = true;
            }
        }
        Stmt::CreateIndex { if_not_exists, idx_name, unique, tbl_name, columns, .. } => {
            // Its expressions are DDL's (double-quoted strings: `DQS_DDL`),
            // also where the entries of the rows already there are built.
            c.stmt.ddl_names = true;
            let name = unquote(idx_name.name.0);
            // The index goes to the database named (main if none) and its
            // table must be there too.
            c.stmt.ddl_db = c.qualifier_db(idx_name.db_name.as_ref())?.unwrap_or(0);
            let tname = unquote(tbl_name.0);
            let db_schema;
            let lookup = if c.stmt.ddl_db == 0 && idx_name.db_name.is_none() {
                c.env.schema
            } else {
                let Some(t) = c.env.schema.shared_table_in(Some(c.stmt.ddl_db), &tname) else {
                    if c.stmt.ddl_db == 1 && c.env.schema.table(&tname).is_some() {
                        return Err(Error::sql(format!("cannot create a TEMP index on non-TEMP table \"{tname}\"")));
                    }
                    return Err(Error::sql(format!("no such table: {}.{tname}", c.db_name(c.stmt.ddl_db))));
                };
                let mut s = crate::sql::schema::Schema::default();
                s.tables.insert(tname.ascii_lower(), t.clone());
                db_schema = s;
                &db_schema
            };
            // SQLite's order: the table, what it is, the index's name, its
            // width (`SQLITE_LIMIT_COLUMN`), then the columns' names.
            let internal_schema = ["sqlite_master", "sqlite_schema", "sqlite_temp_master", "sqlite_temp_schema"].iter().any(|n| n.eq_ci(&tname));
            let Some(target) = lookup.table(&tname) else {
                if internal_schema {
                    let canonical = if tname.ascii_lower().starts_with("sqlite_temp_") { "sqlite_temp_master" } else { "sqlite_master" };
                    return Err(Error::sql(format!("table {canonical} may not be indexed")));
                }
                return Err(Error::sql(format!("no such table: main.{tname}")));
            };
            if crate::sql::schema::is_internal_name(&tname) && !c.env.internal {
                return Err(Error::sql(format!("table {} may not be indexed", target.name)));
            }
            if target.view_select.is_some() {
                return Err(Error::sql("views may not be indexed".to_string()));
            }
            if target.virtual_table.is_some() {
                return Err(Error::sql("virtual tables may not be indexed"));
            }
            if c.env.schema.index_in(Some(c.stmt.ddl_db), &name).is_some() && *if_not_exists {
                write = false;
            } else {
                c.check_new_name(&name, idx_name.name.0, "index")?;
                if columns.len() > c.env.max_columns {
                    return Err(Error::sql("too many columns in index"));
                }
                let idx = index_from_stmt(stmt, None, 0, lookup)?;
                let table = lookup.table(&idx.table).cloned().ok_or_else(|| Error::sql("no such table"))?;
                c.validate_index_exprs(&table, &idx)?;
                let sql = schema_sql(c.stmt.sql, if *unique { "UNIQUE INDEX" } else { "INDEX" });
                c.stmt.writes = true;
                c.stmt.ddl_db = table.db;
                let root = c.b.reg();
                c.b.add(Opcode::CreateBtree, table.db as i32, root, 2);
                let q = |t: &str| format!("'{}'", t.replace('\'', "''"));
                let (n, tn) = (q(&idx.name), q(&table.name));
                c.nested_write_fits(Some(&sql), |db, text| format!("INSERT INTO {db}.sqlite_master VALUES('index',{n},{tn},#1,{text});"))?;
                let sc = c.open_schema_table();
                c.schema_row(sc, "index", &idx.name, &table.name, Some(root), Some(&sql));
                c.populate_index(&table, &idx, root)?;
                c.bump_cookie_appended();
                prog.changes_schema = true;
            }
        }
        Stmt::CreateView { temporary, if_not_exists, view_name, .. } => {
            parse_time_window_errors(c.stmt.sql)?;
            if c.stmt.params.len() > 1 {
                return Err(Error::sql("parameters are not allowed in views"));
            }
            c.stmt.ddl_db = c.create_db(*temporary, view_name)?;
            let name = unquote(view_name.name.0);
            if c.env.schema.table_in(Some(c.stmt.ddl_db), &name).is_some() && *if_not_exists {
                write = false;
            } else {
                c.check_new_name(&name, view_name.name.0, "view")?;
                c.check_object_databases("view", &name, c.stmt.ddl_db, sqlite3_parser::dialect::TokenType::TK_AS)?;
                let sql = schema_sql(c.stmt.sql, "VIEW");
                let _ = table_from_stmt(stmt, &sql, 0)?;
                c.stmt.writes = true;
                c.ensure_format();
                let q = |t: &str| format!("'{}'", t.replace('\'', "''"));
                let n = q(&name);
                c.nested_write_fits(Some(&sql), |db, text| {
                    format!("UPDATE {db}.sqlite_master SET type='view', name={n}, tbl_name={n}, rootpage=#2, sql={text} WHERE rowid=#1")
                })?;
                let sc = c.open_schema_table();
                c.schema_row(sc, "view", &name, &name, None, Some(&sql));
                c.bump_cookie_appended();
                prog.changes_schema = true;
            }
        }
        Stmt::DropTable { if_exists, tbl_name } | Stmt::DropView { if_exists, view_name: tbl_name } => {
            let is_view = matches!(stmt, Stmt::DropView { .. });
            let name = unquote(tbl_name.name.0);
            if ["sqlite_schema", "sqlite_master"].iter().any(|s| s.eq_ci(&name)) && !is_view {
                return Err(Error::sql("table sqlite_master may not be dropped"));
            }
            let db = c.target_db(tbl_name)?;
            match c.env.schema.table_in(db, &name).cloned() {
                None => {
                    if !*if_exists {
                        let what = if is_view { "view" } else { "table" };
                        let shown = match db {
                            Some(d) => format!("{}.{name}", c.db_name(d)),
                            None => name.clone(),
                        };
                        return Err(Error::sql(format!("no such {what}: {shown}")));
                    }
                    write = false;
                }
                Some(t) => {
                    // (SQLite connects a virtual table before anything
                    // else, DROP VIEW included.)
                    let vtab = c.connected_vtab(&t)?;
                    // The statistics tables and the shell's parameter table
                    // (names starting "sqlite_stat" and "sqlite_parameters")
                    // are the only internal ones that may go (SQLite's rule).
                    let rest = name.as_bytes().get(7..).unwrap_or_default();
                    let droppable =
                        rest.get(..4).is_some_and(|s| s.eq_ignore_ascii_case(b"stat")) || rest.get(..10).is_some_and(|s| s.eq_ignore_ascii_case(b"parameters"));
                    if crate::sql::schema::is_internal_name(&name) && !droppable {
                        return Err(Error::sql(format!("table {name} may not be dropped")));
                    }
                    if !is_view && c.shadow_table_refused(&t) {
                        return Err(Error::sql(format!("table {} may not be dropped", t.name)));
                    }
                    if is_view && t.view_select.is_none() {
                        return Err(Error::sql(format!("use DROP TABLE to delete table {name}")));
                    }
                    if !is_view && t.view_select.is_some() {
                        return Err(Error::sql(format!("use DROP VIEW to delete view {name}")));
                    }
                    c.stmt.writes = true;
                    c.stmt.ddl_db = t.db;
                    if !is_view && c.fk_involved(&t) {
                        c.fk_drop_table_delete(&t)?;
                    }
                    c.delete_schema_rows_typed(t.db, Some(("trigger", false)), 2, &t.name);
                    // The table's triggers go with it, TEMP ones watching it
                    // too (but not TEMP triggers watching a namesake).
                    let triggers: Vec<(usize, String)> = (0..c.env.schema.rows.len())
                        .filter(|&i| c.env.schema.trigger_row_watches(i, &t))
                        .map(|i| (c.env.schema.row_db(i), c.env.schema.rows[i].1.clone()))
                        .collect();
                    for (db, name) in &triggers {
                        c.delete_trigger_rows(*db, 1, name);
                    }
                    if t.db != 1 && triggers.iter().any(|(db, _)| *db == 1) {
                        c.b.add(Opcode::SetCookie, 1, Meta::SchemaCookie as i32, c.env.schema.temp_cookie.wrapping_add(1) as i32);
                        c.b.add(Opcode::ParseSchema, 1, 0, 0);
                    }
                    if t.autoincrement {
                        if let Some(seq) = c.env.schema.table_in(Some(t.db), "sqlite_sequence").cloned() {
                            c.delete_rows_named(seq.root, &t.name);
                        }
                    }
                    // (SQLite's OP_VBegin here has no table: no xBegin.)
                    if vtab.is_some() {
                        c.b.add4(Opcode::VDestroy, t.db as i32, 0, 0, P4::text(t.name.clone()), 0);
                    }
                    let mut roots: Vec<u32> = c.env.schema.indexes_of(&t).iter().map(|i| i.root).collect();
                    if t.root > 0 {
                        roots.push(t.root);
                    }
                    // Descending, through the `sort_unstable` of `u32` other callers
                    // instantiate (one copy of the algorithm less).
                    roots.sort_unstable();
                    roots.reverse();
                    for r in roots {
                        let out = c.b.reg();
                        c.b.add(Opcode::Destroy, r as i32, out, t.db as i32);
                    }
                    c.bump_cookie_deleted();
                    prog.changes_schema = true;
                }
            }
        }
        Stmt::CreateVirtualTable { if_not_exists, tbl_name, module_name, args } => {
            c.stmt.ddl_db = c.create_db(false, tbl_name)?;
            let name = unquote(tbl_name.name.0);
            if c.env.schema.table_in(Some(c.stmt.ddl_db), &name).is_some() && *if_not_exists {
                write = false;
            } else {
                c.check_new_name(&name, tbl_name.name.0, "table")?;
                // SQLite stores the statement, then has the module create
                // the table (xCreate) when the statement runs: a module not
                // registered fails there, in the write transaction, and
                // leaves the schema unchanged.
                let args: Vec<String> = args.iter().flat_map(|a| a.iter()).map(|a| a.trim().to_string()).collect();
                // SQLite's parser keeps the module's name, the database's,
                // the table's and each argument in a list it refuses to
                // grow to SQLITE_LIMIT_COLUMN less three entries.
                if args.len() + 5 >= c.env.max_columns {
                    return Err(Error::sql(format!("too many columns on {name}")));
                }
                c.create_virtual_table(&name, &unquote(module_name.0), args)?;
                prog.changes_schema = true;
            }
        }
        Stmt::DropIndex { if_exists, idx_name } => {
            let name = unquote(idx_name.name.0);
            let db = c.target_db(idx_name)?;
            match c.env.schema.index_in(db, &name).cloned() {
                None => {
                    if !*if_exists {
                        let shown = match db {
                            Some(d) => format!("{}.{name}", c.db_name(d)),
                            None => name.clone(),
                        };
                        return Err(Error::sql(format!("no such index: {shown}")));
                    }
                    write = false;
                }
                Some(idx) => {
                    if idx.sql.is_none() {
                        return Err(Error::sql("index associated with UNIQUE or PRIMARY KEY constraint cannot be dropped"));
                    }
                    c.stmt.writes = true;
                    c.stmt.ddl_db = idx.db;
                    // (A trigger may have the index's name.)
                    c.delete_schema_rows_of(idx.db, Some("index"), 1, &idx.name);
                    let out = c.b.reg();
                    c.b.add(Opcode::Destroy, idx.root as i32, out, idx.db as i32);
                    c.bump_cookie_deleted();
                    prog.changes_schema = true;
                }
            }
        }
        _ => return Err(Error::sql("not a DDL statement")),
    }
    // Even a statement with nothing to do (IF [NOT] EXISTS) verifies the
    // schema cookie, so that a prepared copy is recompiled after a schema
    // change instead of staying a no-op, as in SQLite.
    c.end_program(init, Some(write));
    Ok(())
}

/// A column name quoted as an identifier for re-parsing.
fn quote_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// Whether a DEFAULT expression is constant: no column (or other name)
/// references, subqueries or parameters, as SQLite requires. Functions count as constant
/// (`DEFAULT (random())` is allowed), as do TRUE and FALSE. While the
/// schema is read (`reading_schema`) a parameter is allowed too: SQLite
/// reads it as NULL then.
pub(crate) fn is_constant_default(e: &sqlite3_parser::ast::Expr<'_>, reading_schema: bool) -> bool {
    use sqlite3_parser::ast::Expr;
    // `DEFAULT abc` or `DEFAULT "abc"` (not in parentheses) is the text.
    if matches!(e, Expr::Id(_)) {
        return true;
    }
    let mut constant = true;
    crate::sql::model::expr_shape::walk(e, &mut |x| {
        match x {
            Expr::Id(id) => {
                if !id.0.eq_ci("true") && !id.0.eq_ci("false") {
                    constant = false;
                }
            }
            Expr::Name(_) | Expr::Qualified(..) | Expr::DoublyQualified(..) | Expr::Subquery(_) | Expr::Exists(_) | Expr::InSelect { .. } => constant = false,
            Expr::Variable(_) if !reading_schema => constant = false,
            _ => {}
        }
        constant
    });
    constant
}
