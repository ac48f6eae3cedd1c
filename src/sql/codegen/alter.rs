//! ALTER TABLE: ADD COLUMN (the stored CREATE TABLE text gains the new
//! column definition; old rows read its constant DEFAULT) and RENAME TO
//! (the table's and its indexes' stored text and names change).
//!
//! Invariant: the table's B-tree is untouched; only `sqlite_schema` rows
//! change, followed by the schema cookie bump.

use super::Compiler;
use crate::error::{Error, Result};
use crate::sql::parse::{tokens, unquote};
use crate::vdbe::program::{Opcode, Program, P4};
use sqlite3_parser::ast::{AlterTableBody, ColFlags, ColumnConstraint, Stmt};
use sqlite3_parser::dialect::TokenType;

impl Compiler<'_> {
    /// Rewrite `sqlite_schema` rows: each entry is (old name, new type,
    /// new name, new tbl_name, new sql); the root page is kept.
    fn rewrite_schema_rows(&mut self, rows: Vec<(String, String, String, String, Option<String>)>) {
        let sc = self.b.cursor();
        self.b.add4(Opcode::OpenWrite, sc, 1, 0, P4::Int64(5), 0);
        for (old_name, ty, name, tbl, sql) in rows.into_iter().map(|(o, t, n, tb, s)| (o, t, n, tb, s)) {
            let _ = ();
            let end = self.b.label();
            self.b.add(Opcode::Rewind, sc, end, 0);
            let top = self.b.here();
            let next = self.b.label();
            let r = self.b.reg();
            let want = self.b.reg();
            self.b.add(Opcode::Column, sc, 1, r);
            self.b.add4(Opcode::String8, 0, want, 0, P4::Bytes(old_name.into_bytes()), 0);
            self.b.add4(Opcode::Ne, want, next, r, P4::Coll(crate::value::collation::Collation::nocase()), 0);
            let regs = self.b.regs(5);
            self.b.add4(Opcode::String8, 0, regs, 0, P4::Bytes(ty.into_bytes()), 0);
            self.b.add4(Opcode::String8, 0, regs + 1, 0, P4::Bytes(name.clone().into_bytes()), 0);
            self.b.add4(Opcode::String8, 0, regs + 2, 0, P4::Bytes(tbl.into_bytes()), 0);
            self.b.add(Opcode::Column, sc, 3, regs + 3);
            match &sql {
                Some(s) => self.b.add4(Opcode::String8, 0, regs + 4, 0, P4::Bytes(s.clone().into_bytes()), 0),
                None => self.b.add(Opcode::Null, 0, regs + 4, 0),
            };
            let rec = self.b.reg();
            let rid = self.b.reg();
            self.b.add4(Opcode::MakeRecord, regs, 5, rec, P4::Affinity("BBBDB".into()), 0);
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

/// Replace the object-name token that follows `after` (TABLE or ON) in a
/// stored CREATE statement.
fn rename_in_sql(sql: &str, after: TokenType, old: &str, new: &str) -> String {
    let b = sql.as_bytes();
    let toks = tokens(b);
    for (i, t) in toks.iter().enumerate() {
        if t.kind != after {
            continue;
        }
        let mut j = i + 1;
        if toks.get(j).is_some_and(|x| x.kind == TokenType::TK_IF) {
            j += 3;
        }
        if let Some(n) = toks.get(j) {
            if unquote(&sql[n.start..n.end]).eq_ignore_ascii_case(old) {
                return format!("{}\"{}\"{}", &sql[..n.start], new.replace('"', "\"\""), &sql[n.end..]);
            }
        }
    }
    sql.to_string()
}

/// Compile ALTER TABLE.
pub fn compile_alter(c: &mut Compiler<'_>, stmt: &Stmt<'_>, prog: &mut Program) -> Result<()> {
    let Stmt::AlterTable(qn, body) = stmt else { return Err(Error::sql("not ALTER TABLE")) };
    let name = unquote(qn.name.0);
    let table = c.schema.table(&name).cloned().ok_or_else(|| Error::sql(format!("no such table: {name}")))?;
    if name.len() >= 7 && name[..7].eq_ignore_ascii_case("sqlite_") {
        return Err(Error::sql(format!("table {name} may not be altered")));
    }
    let init = c.begin_program();
    c.writes = true;
    match body {
        AlterTableBody::AddColumn(cd) => {
            if table.view_select.is_some() {
                return Err(Error::sql("Cannot add a column to a view"));
            }
            let cname = unquote(cd.col_name.0);
            if table.column_index(&cname).is_some() {
                return Err(Error::sql(format!("duplicate column name: {cname}")));
            }
            if cd.flags.contains(ColFlags::PRIMKEY) {
                return Err(Error::sql("Cannot add a PRIMARY KEY column"));
            }
            if cd.flags.contains(ColFlags::UNIQUE) {
                return Err(Error::sql("Cannot add a UNIQUE column"));
            }
            let mut default = None;
            let mut not_null = false;
            for k in cd.constraints.iter() {
                match &k.constraint {
                    ColumnConstraint::Default(e) => {
                        if crate::sql::schema::constant_value(e).is_none() {
                            return Err(Error::sql("Cannot add a column with non-constant default"));
                        }
                        default = crate::sql::schema::constant_value(e);
                    }
                    ColumnConstraint::NotNull { nullable: false, .. } => not_null = true,
                    _ => {}
                }
            }
            if not_null && default.as_ref().is_none_or(|v| v.is_null()) {
                return Err(Error::sql("Cannot add a NOT NULL column with default value NULL"));
            }
            // The definition's source text, after ADD [COLUMN].
            let toks = tokens(c.sql);
            let start = toks
                .iter()
                .position(|t| t.kind == TokenType::TK_ADD)
                .map(|i| if toks.get(i + 1).is_some_and(|t| t.kind == TokenType::TK_COLUMNKW) { i + 2 } else { i + 1 })
                .and_then(|i| toks.get(i))
                .map_or(c.sql.len(), |t| t.start);
            let end = toks.iter().rev().find(|t| t.kind != TokenType::TK_SEMI).map_or(c.sql.len(), |t| t.end);
            let def_text = String::from_utf8_lossy(&c.sql[start..end.max(start)]).into_owned();
            let old = table.sql.trim_end();
            let close = old.rfind(')').unwrap_or(old.len());
            let new_sql = format!("{}, {}{}", old[..close].trim_end(), def_text, &old[close..]);
            c.rewrite_schema_rows(vec![(table.name.clone(), "table".into(), table.name.clone(), table.name.clone(), Some(new_sql))]);
        }
        AlterTableBody::RenameTo(new) => {
            let new = unquote(new.0);
            if c.schema.table(&new).is_some() || c.schema.index(&new).is_some() {
                return Err(Error::sql(format!("there is already another table or index with this name: {new}")));
            }
            let kw = if table.view_select.is_some() { TokenType::TK_VIEW } else { TokenType::TK_TABLE };
            let mut rows = vec![(table.name.clone(), if table.view_select.is_some() { "view".into() } else { "table".into() }, new.clone(), new.clone(), Some(rename_in_sql(&table.sql, kw, &table.name, &new)))];
            for idx in c.schema.indexes_of(&table.name) {
                match &idx.sql {
                    Some(sql) => rows.push((idx.name.clone(), "index".into(), idx.name.clone(), new.clone(), Some(rename_in_sql(sql, TokenType::TK_ON, &table.name, &new)))),
                    None => {
                        let suffix = idx.name.rsplit('_').next().unwrap_or("1").to_string();
                        rows.push((idx.name.clone(), "index".into(), format!("sqlite_autoindex_{new}_{suffix}"), new.clone(), None));
                    }
                }
            }
            c.rewrite_schema_rows(rows);
        }
        _ => return Err(Error::unsupported("this form of ALTER TABLE")),
    }
    c.b.add(Opcode::SetCookie, 0, crate::btree::Meta::SchemaCookie as i32, c.schema.cookie.wrapping_add(1) as i32);
    c.b.add(Opcode::ParseSchema, 0, 0, 0);
    prog.changes_schema = true;
    c.end_program(init, Some(true));
    Ok(())
}
