//! ALTER TABLE: ADD COLUMN (the stored CREATE TABLE text gains the new
//! column definition; old rows read its constant DEFAULT), DROP COLUMN,
//! and RENAME TO / RENAME COLUMN (the stored text of every object naming
//! the table or column changes: see `alter_rename.rs`), and the forms
//! that add or drop NOT NULL and CHECK constraints (`alter_constraint.rs`).
//!
//! Invariant: but for DROP COLUMN (which rewrites every row without the
//! column, as SQLite's does), the table's B-tree is untouched: only
//! `sqlite_schema` rows change, followed by the schema cookie bump
//! (checked: alter_schema_only).
//!
//! When errors come: what SQLite's `sqlite3AlterXxx` checks while
//! compiling fails the prepare here too; what its program finds when it
//! runs fails the step, with `sqlite3_prepare` succeeding: the schema
//! that no longer holds together ("error in view v after drop column:
//! ...", SQLite's `renameTestSchema` and `sqlite_rename_column` run by
//! the program) and the column existing rows cannot take (NOT NULL
//! without a default, a non-constant default, STORED), refused only when
//! the table has a row (`refuse_unless_empty`).

use crate::error::{Error, Result};
use crate::sql::codegen::ddl::alter_auth::AlterKind;
use crate::sql::codegen::Compiler;
use crate::sql::column_rules::{definition_error, references};
use crate::sql::parse::{tokens, unquote};
use crate::sql::rename::{NewName, Target};
use crate::util::ascii::AsciiLower;
use crate::vdbe::program::{Opcode, Program, P4};
use sqlite3_parser::ast::{AlterTableBody, ColFlags, ColumnConstraint, Stmt};
use sqlite3_parser::dialect::TokenType;

impl Compiler<'_> {
    /// Rewrite `sqlite_schema` rows: each entry is (old name, new type,
    /// new name, new tbl_name, new sql); the root page is kept.
    pub(in crate::sql::codegen) fn rewrite_schema_rows(&mut self, rows: Vec<(String, String, String, String, Option<String>)>) {
        let sc = self.b.cursor();
        self.stmt.dbs_used |= 1 << self.stmt.ddl_db;
        self.b.add4(Opcode::OpenWrite, sc, 1, self.stmt.ddl_db as i32, P4::Int64(5), 0);
        for (old_name, ty, name, tbl, sql) in rows.into_iter() {
            let _ = ();
            let end = self.b.label();
            self.b.add(Opcode::Rewind, sc, end, 0);
            let top = self.b.here();
            let next = self.b.label();
            let r = self.b.reg();
            let want = self.b.reg();
            self.b.add(Opcode::Column, sc, 1, r);
            self.b.add4(Opcode::String8, 0, want, 0, P4::bytes(old_name.into_bytes()), 0);
            self.b.add4(Opcode::Ne, want, next, r, P4::coll(crate::value::collation::Collation::nocase()), 0);
            // The type too: a trigger may share its name with an index
            // (each kind has its own namespace), and only the row of the
            // object rewritten is replaced.
            let row_ty = self.b.reg();
            let want_ty = self.b.reg();
            self.b.add(Opcode::Column, sc, 0, row_ty);
            self.b.add4(Opcode::String8, 0, want_ty, 0, P4::bytes(ty.clone().into_bytes()), 0);
            self.b.add4(Opcode::Ne, want_ty, next, row_ty, P4::coll(crate::value::collation::Collation::nocase()), 0);
            let regs = self.b.regs(5);
            self.b.add4(Opcode::String8, 0, regs, 0, P4::bytes(ty.into_bytes()), 0);
            self.b.add4(Opcode::String8, 0, regs + 1, 0, P4::bytes(name.clone().into_bytes()), 0);
            self.b.add4(Opcode::String8, 0, regs + 2, 0, P4::bytes(tbl.into_bytes()), 0);
            self.b.add(Opcode::Column, sc, 3, regs + 3);
            match &sql {
                Some(s) => self.b.add4(Opcode::String8, 0, regs + 4, 0, P4::bytes(s.clone().into_bytes()), 0),
                None => self.b.add(Opcode::Null, 0, regs + 4, 0),
            };
            let rec = self.b.reg();
            let rid = self.b.reg();
            self.b.add4(Opcode::MakeRecord, regs, 5, rec, P4::affinity("BBBDB".into()), 0);
            self.b.add(Opcode::Rowid, sc, rid, 0);
            self.b.add(Opcode::Insert, sc, rec, rid);
            self.b.add(Opcode::Goto, 0, end, 0);
            self.b.bind(next);
            self.b.add(Opcode::Next, sc, top as i32, 0);
            self.b.bind(end);
            let _ = name;
        }
    }
}

impl Compiler<'_> {
    /// Halt with SQLITE_CORRUPT unless the `sqlite_schema` row of table
    /// `name` still holds `sql`, the text this statement was compiled
    /// from: a row edited under `writable_schema` (into an index's or a
    /// view's text, say) is not the table SQLite's DROP COLUMN could
    /// rewrite, and it reports the database malformed.
    pub(in crate::sql::codegen) fn check_schema_row_sql(&mut self, name: &str, sql: &str) {
        let sc = self.b.cursor();
        self.stmt.dbs_used |= 1 << self.stmt.ddl_db;
        self.b.add4(Opcode::OpenRead, sc, 1, self.stmt.ddl_db as i32, P4::Int64(5), 0);
        let end = self.b.label();
        self.b.add(Opcode::Rewind, sc, end, 0);
        let top = self.b.here();
        let next = self.b.label();
        let (r, want) = (self.b.reg(), self.b.reg());
        self.b.add(Opcode::Column, sc, 1, r);
        self.b.add4(Opcode::String8, 0, want, 0, P4::bytes(name.as_bytes().to_vec()), 0);
        self.b.add4(Opcode::Ne, want, next, r, P4::coll(crate::value::collation::Collation::nocase()), 0);
        self.b.add(Opcode::Column, sc, 0, r);
        self.b.add4(Opcode::String8, 0, want, 0, P4::bytes(b"table".to_vec()), 0);
        self.b.add4(Opcode::Ne, want, next, r, P4::coll(crate::value::collation::Collation::nocase()), 0);
        self.b.add(Opcode::Column, sc, 4, r);
        self.b.add4(Opcode::String8, 0, want, 0, P4::bytes(sql.as_bytes().to_vec()), 0);
        let same = self.b.label();
        self.b.add(Opcode::Eq, want, same, r);
        self.b.add4(Opcode::Halt, crate::error::SQLITE_CORRUPT, 0, 0, P4::text("database disk image is malformed".into()), 0);
        self.b.bind(same);
        self.b.add(Opcode::Goto, 0, end, 0);
        self.b.bind(next);
        self.b.add(Opcode::Next, sc, top as i32, 0);
        self.b.bind(end);
        self.b.add(Opcode::Close, sc, 0, 0);
    }
}

/// Where ADD COLUMN inserts the new definition in a CREATE TABLE text:
/// at the comma that starts the table constraints, else at the closing
/// parenthesis (the text before it is kept as written).
fn add_column_offset(sql: &str) -> usize {
    let toks = tokens(sql.as_bytes()).collect::<Vec<_>>();
    let mut depth = 0;
    for (i, t) in toks.iter().enumerate() {
        match t.kind {
            TokenType::TK_LP => depth += 1,
            TokenType::TK_RP => {
                depth -= 1;
                if depth == 0 {
                    return t.start;
                }
            }
            TokenType::TK_COMMA if depth == 1 => {
                let next = toks.get(i + 1).map(|n| n.kind);
                if matches!(next, Some(TokenType::TK_CONSTRAINT | TokenType::TK_PRIMARY | TokenType::TK_UNIQUE | TokenType::TK_CHECK | TokenType::TK_FOREIGN)) {
                    return t.start;
                }
            }
            _ => {}
        }
    }
    sql.trim_end().rfind(')').unwrap_or(sql.len())
}

/// Whether the definition of column `col` in a CREATE TABLE text has a
/// UNIQUE constraint of its own.
fn column_def_unique(sql: &str, col: &str) -> bool {
    let toks = tokens(sql.as_bytes()).collect::<Vec<_>>();
    let mut depth = 0;
    let mut def_start = None;
    let mut in_col = false;
    for t in &toks {
        match t.kind {
            TokenType::TK_LP => {
                depth += 1;
                if depth == 1 {
                    def_start = Some(());
                    continue;
                }
            }
            TokenType::TK_RP => depth -= 1,
            TokenType::TK_COMMA if depth == 1 => {
                def_start = Some(());
                in_col = false;
                continue;
            }
            TokenType::TK_UNIQUE if depth == 1 && in_col => return true,
            _ => {}
        }
        if depth == 1 && def_start.take().is_some() {
            in_col = unquote(&sql[t.start..t.end]).eq_ci(col);
        }
    }
    false
}

/// The CREATE TABLE text without the definition of column `col`.
fn drop_column_text(sql: &str, col: &str) -> Option<String> {
    let b = sql.as_bytes();
    let toks = tokens(b).collect::<Vec<_>>();
    let open = toks.iter().position(|t| t.kind == TokenType::TK_LP)?;
    let mut depth = 0;
    let mut start = open + 1;
    let mut i = open;
    while i < toks.len() {
        match toks[i].kind {
            TokenType::TK_LP => depth += 1,
            TokenType::TK_RP => {
                depth -= 1;
                if depth == 0 {
                    return check_def(sql, &toks, start, i, col);
                }
            }
            TokenType::TK_COMMA if depth == 1 => {
                if let Some(s) = check_def(sql, &toks, start, i, col) {
                    return Some(s);
                }
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

fn check_def(sql: &str, toks: &[crate::sql::parse::Tok], start: usize, end: usize, col: &str) -> Option<String> {
    let first = toks.get(start)?;
    if start >= end || !unquote(&sql[first.start..first.end]).eq_ci(col) {
        return None;
    }
    // Cut as SQLite does, which decides the spacing left: a column that
    // another follows goes from its name to the next one's name; the
    // last one from the comma before it (found in the text) to where ADD
    // COLUMN would insert (the table constraints' comma, else the
    // closing parenthesis).
    let next_column = toks[end].kind == TokenType::TK_COMMA
        && !matches!(
            toks.get(end + 1).map(|t| t.kind),
            Some(TokenType::TK_CONSTRAINT | TokenType::TK_PRIMARY | TokenType::TK_UNIQUE | TokenType::TK_CHECK | TokenType::TK_FOREIGN)
        );
    let (cut_from, cut_to) = match toks.get(end + 1).filter(|_| next_column) {
        Some(next) => (first.start, next.start),
        None => (sql[..first.start].rfind(',')?, add_column_offset(sql).max(first.end)),
    };
    Some(format!("{}{}", &sql[..cut_from], &sql[cut_to..]))
}

/// Compile ALTER TABLE.
pub fn compile_alter(c: &mut Compiler<'_>, stmt: &Stmt<'_>, prog: &mut Program) -> Result<()> {
    match compile_alter_checked(c, stmt, prog) {
        // Found by SQLite's program when it runs (see the module doc):
        // a program that fails with it.
        Err(e) if e.message.starts_with("error in ") && c.dml.firing.is_empty() => {
            c.b = crate::sql::codegen::builder::Builder::for_statement();
            prog.column_names.clear();
            let init = c.begin_program();
            c.stmt.writes = true;
            c.b.add4(Opcode::Halt, e.code, 0, 0, P4::text(e.message), 0);
            c.end_program(init, Some(true));
            Ok(())
        }
        other => other,
    }
}

fn compile_alter_checked(c: &mut Compiler<'_>, stmt: &Stmt<'_>, prog: &mut Program) -> Result<()> {
    let Stmt::AlterTable(qn, body) = stmt else { return Err(Error::sql("not ALTER TABLE")) };
    let name = unquote(qn.name.0);
    let db = c.target_db(qn)?;
    // The schema tables exist under either name; SQLite names them by
    // their legacy one here.
    let lower = name.ascii_lower();
    if matches!(lower.as_str(), "sqlite_master" | "sqlite_schema") {
        return Err(Error::sql("table sqlite_master may not be altered"));
    }
    if matches!(lower.as_str(), "sqlite_temp_master" | "sqlite_temp_schema") {
        return Err(Error::sql("table sqlite_temp_master may not be altered"));
    }
    let table = c.env.schema.table_in(db, &name).cloned().ok_or_else(|| match db {
        Some(d) => Error::sql(format!("no such table: {}.{name}", c.db_name(d))),
        None => Error::sql(format!("no such table: {name}")),
    })?;
    if crate::sql::schema::is_internal_name(&name) {
        return Err(Error::sql(format!("table {name} may not be altered")));
    }
    if c.shadow_table_refused(&table) {
        return Err(Error::sql(format!("table {} may not be altered", table.name)));
    }
    let init = c.begin_program();
    c.stmt.writes = true;
    // A TEMP table's schema rows live in the temp database's schema table.
    c.stmt.ddl_db = table.db;
    match body {
        AlterTableBody::AddColumn(cd) => {
            if table.virtual_table.is_some() {
                return Err(Error::sql("virtual tables may not be altered"));
            }
            if table.view_select.is_some() {
                return Err(Error::sql("Cannot add a column to a view"));
            }
            let cname = unquote(cd.col_name.0);
            if table.column_index(&cname).is_some() {
                return Err(Error::sql(format!("duplicate column name: {cname}")));
            }
            if c.authorize_alter_table(&table, None)? {
                return ignored(c, prog);
            }
            if let Some(e) = definition_error(cd) {
                return Err(e);
            }
            if cd.flags.contains(ColFlags::PRIMKEY) {
                return Err(Error::sql("Cannot add a PRIMARY KEY column"));
            }
            if cd.flags.contains(ColFlags::UNIQUE) {
                return Err(Error::sql("Cannot add a UNIQUE column"));
            }
            let generated = cd.flags.intersects(ColFlags::GENERATED);
            if cd.flags.contains(ColFlags::STORED) {
                // Existing rows would need the value computed: SQLite
                // refuses a STORED column unless the table is empty.
                refuse_unless_empty(c, prog, &table, "cannot add a STORED column")?;
            }
            let mut default = None;
            let mut computed_default = false;
            let mut not_null = false;
            // With foreign keys on, a REFERENCES column must default to
            // NULL; the pragma is only known when the statement runs.
            let references = cd.constraints.iter().any(|k| matches!(k.constraint, ColumnConstraint::ForeignKey { .. }));
            let non_null_default = cd.constraints.iter().any(|k| {
                matches!(&k.constraint, ColumnConstraint::Default(e) if !matches!(crate::sql::schema::default_constant(e), Some(crate::value::Value::Null)))
            });
            if references && non_null_default {
                let off = c.b.label();
                c.b.add(Opcode::FkIfOff, 0, off, 0);
                c.b.add4(Opcode::Halt, crate::error::SQLITE_ERROR, 0, 0, P4::text("Cannot add a REFERENCES column with non-NULL default value".into()), 0);
                c.b.bind(off);
            }
            for k in cd.constraints.iter() {
                match &k.constraint {
                    ColumnConstraint::Default(e) => {
                        if crate::sql::schema::default_constant(e).is_none() {
                            if references {
                                c.b.add4(Opcode::Halt, crate::error::SQLITE_ERROR, 0, 0, P4::text("Cannot add a column with non-constant default".into()), 0);
                                c.end_program(init, Some(true));
                                return Ok(());
                            }
                            // Refused only when rows exist, which would
                            // need it computed.
                            refuse_unless_empty(c, prog, &table, "Cannot add a column with non-constant default")?;
                            computed_default = true;
                            continue;
                        }
                        default = crate::sql::schema::default_constant(e);
                    }
                    ColumnConstraint::NotNull { nullable: false, .. } => not_null = true,
                    _ => {}
                }
            }
            if not_null && !generated && !computed_default && default.as_ref().is_none_or(|v| v.is_null()) {
                // Existing rows would hold NULL: refused when there are any.
                refuse_unless_empty(c, prog, &table, "Cannot add a NOT NULL column with default value NULL")?;
            }
            // The definition's source text, after ADD [COLUMN].
            let toks = tokens(c.stmt.sql).collect::<Vec<_>>();
            let start = toks
                .iter()
                .position(|t| t.kind == TokenType::TK_ADD)
                .map(|i| if toks.get(i + 1).is_some_and(|t| t.kind == TokenType::TK_COLUMNKW) { i + 2 } else { i + 1 })
                .and_then(|i| toks.get(i))
                .map_or(c.stmt.sql.len(), |t| t.start);
            let end = toks.iter().rev().find(|t| t.kind != TokenType::TK_SEMI).map_or(c.stmt.sql.len(), |t| t.end);
            let def_text = String::from_utf8_lossy(&c.stmt.sql[start..end.max(start)]).into_owned();
            let old = table.sql.as_str();
            let at = add_column_offset(old);
            let new_sql = format!("{}, {}{}", &old[..at], def_text, &old[at..]);
            // (The rows are verified where the table as it will be has a
            // CHECK or a NOT NULL generated column.)
            let verify = crate::sql::schema::table_from_sql(&new_sql, table.root)
                .is_ok_and(|nt| !nt.checks.is_empty() || nt.columns.last().is_some_and(|col| col.generated.is_some() && col.not_null));
            c.authorize_alter_rewrite(&table, AlterKind::AddColumn(verify))?;
            if generated {
                // The new column's expression is checked against the
                // table as it will be.
                // (SQLite checks it as it reads the new schema: its names
                // are not asked of the authorizer.)
                let authorizer = c.stmt.authorizer.take();
                let checked = crate::sql::schema::table_from_sql(&new_sql, table.root).and_then(|mut nt| {
                    nt.db = table.db;
                    c.validate_generated(&nt)
                });
                c.stmt.authorizer = authorizer;
                if let Err(e) = checked {
                    return Err(Error::sql(format!("error in table {} after add column: {}", table.name, e.message)));
                }
            }
            if table.strict {
                // A STRICT table's new column needs a datatype it allows.
                if let Err(e) = crate::sql::schema::table_from_sql(&new_sql, table.root) {
                    return Err(Error::sql(format!("error in table {} after add column: {}", table.name, e.message)));
                }
            }
            if let Ok(mut nt) = crate::sql::schema::table_from_sql(&new_sql, table.root) {
                nt.db = table.db;
                let new_col = nt.columns.last().cloned();
                let generated_not_null = new_col.as_ref().is_some_and(|col| col.generated.is_some() && col.not_null);
                if !nt.checks.is_empty() || generated_not_null {
                    // (SQLite verifies through pragma_quick_check, whose
                    // reads of the table are not asked of the authorizer.)
                    let authorizer = c.stmt.authorizer.take();
                    let r = c.verify_rows_after_add_column(&nt);
                    c.stmt.authorizer = authorizer;
                    r?;
                }
            }
            c.rewrite_schema_rows(vec![(table.name.clone(), "table".into(), table.name.clone(), table.name.clone(), Some(new_sql))]);
        }
        AlterTableBody::RenameTo(new) => {
            let new = unquote(new.0);
            if c.env.schema.table_in(Some(table.db), &new).is_some() || c.env.schema.index_in(Some(table.db), &new).is_some() {
                return Err(Error::sql(format!("there is already another table or index with this name: {new}")));
            }
            if crate::sql::schema::is_internal_name(&new) {
                return Err(Error::sql(format!("object name reserved for internal use: {new}")));
            }
            if c.authorize_alter_table(&table, None)? {
                return ignored(c, prog);
            }
            c.authorize_alter_rewrite(&table, AlterKind::RenameTable)?;
            // A virtual table's module is told of the new name (xRename):
            // it must be connected.
            let vtab = c.connected_vtab(&table)?;
            // (In legacy mode REFERENCES follow only with foreign keys on.)
            let legacy = c.env.settings.legacy_alter_table;
            let target = Target { db: table.db, table: table.name.clone(), column: None, legacy, references: !legacy || c.env.settings.foreign_keys };
            if let Some((inst, _)) = vtab.filter(|(i, _)| i.table.can_rename()) {
                // (xRename runs first: a module refusing the name leaves
                // the schema as it was.)
                let r = c.b.reg();
                c.b.add4(Opcode::String8, 0, r, 0, P4::bytes(new.as_bytes().to_vec()), 0);
                c.b.add4(Opcode::VRename, r, 0, 0, P4::VTab(inst), 0);
            }
            c.rename_in_schema(&table, &target, &NewName { name: &new, always_quoted: true })?;
            if table.autoincrement {
                c.rename_sequence_row(&table, &new);
            }
        }
        AlterTableBody::RenameColumn { old, new: new_token } => {
            let (written, old, new) = (old.0, unquote(old.0), unquote(new_token.0));
            if table.view_select.is_some() {
                return Err(Error::sql(format!("cannot rename columns of view \"{}\"", table.name)));
            }
            if table.virtual_table.is_some() {
                return Err(Error::sql(format!("cannot rename columns of virtual table \"{}\"", table.name)));
            }
            if c.authorize_alter_table(&table, None)? {
                return ignored(c, prog);
            }
            // (SQLite quotes the name as written: `""x""` for `"x"`.)
            let Some(ci) = table.column_index(&old) else {
                return Err(Error::sql(format!("no such column: \"{written}\"")));
            };
            c.authorize_alter_rewrite(&table, AlterKind::RenameColumn)?;
            if table.column_index(&new).is_some_and(|other| other != ci) {
                return Err(Error::sql(format!("error in table {} after rename: duplicate column name: {new}", table.name)));
            }
            let target = Target { db: table.db, table: table.name.clone(), column: Some(table.columns[ci].name.clone()), legacy: false, references: true };
            let always_quoted = new_token.0.starts_with(['"', '\'', '`', '[']);
            c.rename_in_schema(&table, &target, &NewName { name: &new, always_quoted })?;
        }
        AlterTableBody::DropColumn(col) => {
            let (written, col) = (col.0, unquote(col.0));
            if table.view_select.is_some() {
                return Err(Error::sql(format!("cannot drop column from view \"{}\"", table.name)));
            }
            if table.virtual_table.is_some() {
                return Err(Error::sql(format!("cannot drop column from virtual table \"{}\"", table.name)));
            }
            let Some(ci) = table.column_index(&col) else {
                return Err(Error::sql(format!("no such column: \"{written}\"")));
            };
            if table.columns[ci].primary_key {
                return Err(Error::sql(format!("cannot drop PRIMARY KEY column: \"{col}\"")));
            }
            // (Only a UNIQUE written on the column itself: a table's
            // UNIQUE(col) fails later, when the table is read without it.)
            if table.auto_indexes.iter().any(|(cols, is_pk)| !is_pk && cols.len() == 1 && cols[0].0 == ci) && column_def_unique(&table.sql, &col) {
                return Err(Error::sql(format!("cannot drop UNIQUE column: \"{col}\"")));
            }
            if table.columns.len() == 1 {
                return Err(Error::sql(format!("cannot drop column \"{col}\": no other columns exist")));
            }
            if c.authorize_alter_table(&table, Some(&table.columns[ci].name))? {
                return ignored(c, prog);
            }
            c.authorize_alter_rewrite(&table, AlterKind::DropColumn)?;
            c.check_views_before_drop(&table)?;
            // (The table text without the column is parsed first: with
            // only generated columns left it is refused as such.)
            if table.columns.iter().enumerate().all(|(i, g)| i == ci || g.generated.is_some()) {
                return Err(Error::sql(format!("error in table {} after drop column: must have at least one non-generated column", table.name)));
            }
            for (gi, g) in table.columns.iter().enumerate() {
                let Some(gen) = &g.generated else { continue };
                if gi != ci && references(&gen.expr, &col) {
                    let missing = super::alter_drop_check::no_such_column_in(&gen.expr, &col);
                    return Err(Error::sql(format!("error in table {} after drop column: {missing}", table.name)));
                }
            }
            for idx in c.env.schema.indexes_of(&table).into_iter().filter(|i| i.sql.is_some()) {
                let named = |e: &Option<String>| e.as_ref().is_some_and(|e| references(e, &col));
                if idx.columns.iter().any(|x| x.column == Some(ci) || named(&x.expr)) || named(&idx.where_sql) {
                    // (The key's text: what follows the first parenthesis.)
                    let sql = idx.sql.as_deref().unwrap_or_default();
                    let key = sql.find('(').map_or(sql, |p| &sql[p..]);
                    let missing = super::alter_drop_check::no_such_column_in(key, &col);
                    return Err(Error::sql(format!("error in index {} after drop column: {missing}", idx.name)));
                }
            }
            let Some(new_sql) = drop_column_text(&table.sql, &col) else {
                return Err(Error::unsupported("dropping this column"));
            };
            c.check_drop_column(&table, &col, &new_sql)?;
            // Rewrite every row without the column, then the schema text.
            c.check_schema_row_sql(&table.name, &table.sql);
            let t = c.open_write_target(table.clone())?;
            // A WITHOUT ROWID table's new records (in stored order: the key,
            // then the other columns) go to a temporary table first; its
            // tree is then cleared and filled again from there.
            let wr_order: Vec<usize> = table.record_columns().into_iter().filter(|&i| i != ci).collect();
            let copy = table.without_rowid.as_ref().map(|_| {
                let copy = c.b.cursor();
                c.b.add(Opcode::OpenEphemeral, copy, wr_order.len() as i32, 0);
                copy
            });
            let end = c.b.label();
            // A VIRTUAL column has no field to remove: the rows stay as they
            // are (a WITHOUT ROWID table's tree is not emptied for a refill
            // from a copy that was never made).
            let untouched = c.b.label();
            if table.is_virtual(ci) {
                c.b.add(Opcode::Goto, 0, untouched, 0);
            }
            c.b.add(Opcode::Rewind, t.cursor, end, 0);
            let top = c.b.here();
            let row = c.read_row(&t)?;
            let n = table.columns.len();
            let kept: Vec<usize> = (0..n).filter(|&i| i != ci && !table.is_virtual(i)).collect();
            let keep = c.b.regs(kept.len().max(1));
            for (k, i) in kept.iter().copied().enumerate() {
                let k = k as i32;
                if table.rowid_alias == Some(i) {
                    c.b.add(Opcode::Null, 0, keep + k, 0);
                } else {
                    c.b.add(Opcode::SCopy, row + i as i32, keep + k, 0);
                }
            }
            let rec = c.b.reg();
            let rid = c.b.reg();
            match copy {
                Some(copy) => {
                    let fields = c.b.regs(wr_order.len());
                    for (k, col) in wr_order.iter().enumerate() {
                        c.b.add(Opcode::SCopy, row + *col as i32, fields + k as i32, 0);
                    }
                    c.b.add(Opcode::MakeRecord, fields, wr_order.len() as i32, rec);
                    c.b.add(Opcode::NewRowid, copy, rid, 0);
                    c.b.add(Opcode::Insert, copy, rec, rid);
                }
                None => {
                    c.b.add(Opcode::MakeRecord, keep, kept.len() as i32, rec);
                    c.b.add(Opcode::Rowid, t.cursor, rid, 0);
                    c.b.add(Opcode::Insert, t.cursor, rec, rid);
                }
            }
            c.b.add(Opcode::Next, t.cursor, top as i32, 0);
            c.b.bind(end);
            if let Some(copy) = copy {
                c.b.add(Opcode::Clear, table.root as i32, table.db as i32, 0);
                let done = c.b.label();
                c.b.add(Opcode::Rewind, copy, done, 0);
                let again = c.b.here();
                let fields = c.b.regs(wr_order.len());
                for k in 0..wr_order.len() {
                    c.b.add(Opcode::Column, copy, k as i32, fields + k as i32);
                }
                let entry = c.b.reg();
                c.b.add(Opcode::MakeRecord, fields, wr_order.len() as i32, entry);
                c.b.add(Opcode::IdxInsert, t.cursor, entry, 0);
                c.b.add(Opcode::Next, copy, again as i32, 0);
                c.b.bind(done);
            }
            c.b.bind(untouched);
            c.rewrite_schema_rows(vec![(table.name.clone(), "table".into(), table.name.clone(), table.name.clone(), Some(new_sql))]);
        }
        AlterTableBody::DropColumnNotNull(_) | AlterTableBody::SetColumnNotNull(..) | AlterTableBody::AddConstraint(_) | AlterTableBody::DropConstraint(_) => {
            if let Some(column) = c.alter_constraint(&table, body)? {
                // SQLite checks with a SELECT, whose one column shows.
                prog.column_names = vec![column];
            }
        }
    }
    // invariant: alter_schema_only
    debug_assert!(
        matches!(body, AlterTableBody::DropColumn(_))
            || !c.b.insns.iter().any(|i| match i.opcode {
                Opcode::OpenWrite => i.p2 == table.root as i32 && i.p3 == table.db as i32,
                Opcode::Clear | Opcode::Destroy => i.p1 == table.root as i32,
                _ => false,
            }),
        "ALTER TABLE writes the B-tree of {}",
        table.name
    );
    let cookie = c.env.schema.cookie_of(table.db);
    c.b.add(Opcode::SetCookie, table.db as i32, crate::btree::Meta::SchemaCookie as i32, cookie.wrapping_add(1) as i32);
    // SQLite parses the whole schema again, counting its objects.
    c.b.add(Opcode::ParseSchema, table.db as i32, 0, c.schema_objects_after(table.db));
    prog.changes_schema = true;
    c.end_program(init, Some(true));
    Ok(())
}

impl Compiler<'_> {
    /// The row at table cursor `tc` of `nt` (the table as it will be) in
    /// registers, generated columns computed: (first column register,
    /// rowid register).
    pub(in crate::sql::codegen) fn load_row(&mut self, tc: i32, nt: &crate::sql::schema::Table) -> Result<(i32, i32)> {
        let n = nt.columns.len();
        let regs = self.b.regs(n.max(1));
        let rid = self.b.reg();
        if nt.without_rowid.is_none() {
            self.b.add(Opcode::Rowid, tc, rid, 0);
        }
        for i in 0..n {
            if nt.rowid_alias == Some(i) {
                self.b.add(Opcode::SCopy, rid, regs + i as i32, 0);
            } else if let Some(f) = nt.field_of(i) {
                let d = crate::sql::codegen::expr::default_p4(nt, i);
                self.b.add4(Opcode::Column, tc, f as i32, regs + i as i32, d, 0);
            }
        }
        self.compute_virtual(nt, regs, rid)?;
        Ok((regs, rid))
    }

    /// After ADD COLUMN on a table with CHECK constraints, or of a NOT
    /// NULL generated column, every existing row must still satisfy the
    /// table (`nt`, as it will be): SQLite checks them as quick_check
    /// does (per row, NOT NULL columns, then CHECK constraints) and fails
    /// with its bare messages.
    fn verify_rows_after_add_column(&mut self, nt: &crate::sql::schema::Table) -> Result<()> {
        let tc = self.b.cursor();
        self.open_table_read(tc, nt, nt.stored_count())?;
        let end = self.b.label();
        self.b.add(Opcode::Rewind, tc, end, 0);
        let top = self.b.here();
        let (regs, rid) = self.load_row(tc, nt)?;
        let fail = |c: &mut Self, msg: &str| {
            c.b.add4(Opcode::Halt, crate::error::SQLITE_ERROR, 0, 0, P4::text(msg.to_string()), 0);
        };
        for (i, col) in nt.columns.iter().enumerate() {
            if col.not_null && nt.rowid_alias != Some(i) {
                let ok = self.b.label();
                self.b.add(Opcode::NotNull, regs + i as i32, ok, 0);
                fail(self, "NOT NULL constraint failed");
                self.b.bind(ok);
            }
        }
        for (_, text) in nt.checks.clone() {
            let v = self.b.reg();
            self.with_pure_context(2, |c| c.with_row_scope(nt, regs, rid, |c| c.expr_text(&text, v)))?;
            let ok = self.b.label();
            self.b.add(Opcode::If, v, ok, 1);
            fail(self, "CHECK constraint failed");
            self.b.bind(ok);
        }
        self.b.add(Opcode::Next, tc, top as i32, 0);
        self.b.bind(end);
        Ok(())
    }
}

/// ADD COLUMN of a column existing rows cannot get a value for: refused
/// with `message` when the table has a row. SQLite's check is a SELECT
/// raising the error at the first row, whose one column shows.
/// The statement as compiled when the authorizer said IGNORE to its
/// `SQLITE_ALTER_TABLE`: a program that does nothing.
fn ignored(c: &mut Compiler<'_>, prog: &mut Program) -> Result<()> {
    c.b = crate::sql::codegen::builder::Builder::for_statement();
    prog.column_names.clear();
    c.stmt.writes = false;
    let init = c.begin_program();
    c.end_program(init, None);
    Ok(())
}

fn refuse_unless_empty(c: &mut Compiler<'_>, prog: &mut Program, table: &crate::sql::schema::Table, message: &str) -> Result<()> {
    let tc = c.b.cursor();
    c.open_table_read(tc, table, table.columns.len())?;
    let empty = c.b.label();
    c.b.add(Opcode::Rewind, tc, empty, 0);
    c.b.add4(Opcode::Halt, crate::error::SQLITE_ERROR, 0, 0, P4::text(message.into()), 0);
    c.b.bind(empty);
    prog.column_names = vec![format!("raise(ABORT,'{message}')")];
    Ok(())
}
