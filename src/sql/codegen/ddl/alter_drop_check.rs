//! What ALTER TABLE DROP COLUMN must refuse because the schema would no
//! longer hold together without the column, reported as SQLite reports it
//! ("error in table|view|trigger NAME after drop column: ..."): a CHECK
//! constraint or foreign key of the table that remain naming it, a view that compiled
//! before and does not compile against the table without it, a trigger on
//! the table reading `new.col` or `old.col`. (Generated columns and
//! indexes are checked by the caller.) Views are compiled in scratch
//! compilers against a copy of the schema; nothing runs. A view broken
//! before the drop fails it first ("error in view V: ...").

use crate::error::{Error, Result};
use crate::sql::codegen::Compiler;
use crate::sql::column_rules::references;
use crate::sql::model::query::Dest;
use crate::sql::parse::{tokens, with_first_statement};
use crate::sql::schema::{table_from_sql, Schema, Table};
use crate::util::ascii::AsciiLower;
use sqlite3_parser::ast;
use sqlite3_parser::dialect::TokenType;

impl Compiler<'_> {
    /// Check that `table` may lose column `col`, its new definition being
    /// `new_sql`.
    pub(in crate::sql::codegen) fn check_drop_column(&mut self, table: &Table, col: &str, new_sql: &str) -> Result<()> {
        let after = |kind: &str, name: &str, msg: &str| Error::sql(format!("error in {kind} {name} after drop column: {msg}"));
        let new_table = table_from_sql(new_sql, table.root).map_err(|e| after("table", &table.name, &e.message))?;
        // (A CHECK on the column itself went with its definition.)
        if let Some((_, text)) = new_table.checks.iter().find(|(_, text)| references(text, col)) {
            return Err(after("table", &table.name, &no_such_column_in(text, col)));
        }
        for (_, name, sql) in self.env.schema.trigger_rows_of(&table.name) {
            if let Some(reference) = row_reference(&sql, col) {
                return Err(after("trigger", &name, &format!("no such column: {reference}")));
            }
        }
        let mut changed: Schema = self.env.schema.clone();
        if let Some(slot) = changed.tables.values_mut().find(|t| t.name.eq_ci(&table.name) && t.db == table.db) {
            let mut t = new_table;
            t.db = table.db;
            *slot = std::sync::Arc::new(t);
        }
        let views: Vec<Table> = self.env.schema.tables.values().filter(|t| t.view_select.is_some()).map(|t| Table::clone(t)).collect();
        for view in views {
            // (One already broken in this database was refused by
            // `check_views_before_drop`; another's is not this drop's.)
            if compile_view(self.env.schema, self, &view).is_err() {
                continue;
            }
            if let Err(e) = compile_view(&changed, self, &view) {
                return Err(after("view", &view.name, &e.message));
            }
        }
        Ok(())
    }
}

impl Compiler<'_> {
    /// A view that does not compile before the column is dropped fails the
    /// statement first, as SQLite's test of the schema before it changes
    /// anything: "error in view V: ...".
    pub(in crate::sql::codegen) fn check_views_before_drop(&mut self, table: &Table) -> Result<()> {
        let views: Vec<Table> =
            self.env.schema.tables.values().filter(|t| t.view_select.is_some() && (t.db == table.db || t.db == 1)).map(|t| Table::clone(t)).collect();
        for view in views {
            if let Err(e) = compile_view(self.env.schema, self, &view) {
                return Err(Error::sql(format!("error in view {}: {}", view.name, e.message)));
            }
        }
        // A trigger on the table naming a column the table does not have
        // (before the drop) is broken already: "error in trigger T: ...".
        let known =
            |name: &str| table.column_index(name).is_some() || (table.without_rowid.is_none() && ["rowid", "oid", "_rowid_"].iter().any(|r| name.eq_ci(r)));
        for (db, name, sql) in self.env.schema.trigger_rows_of(&table.name) {
            if db != table.db {
                continue;
            }
            // (An INSERT trigger has no `old` row, a DELETE trigger no `new`.)
            let event = tokens(sql.as_bytes()).map(|t| t.kind).find(|k| matches!(k, TokenType::TK_INSERT | TokenType::TK_DELETE | TokenType::TK_UPDATE));
            let missing_row = |written: &str| match event {
                Some(TokenType::TK_INSERT) => written.get(..4).is_some_and(|r| r.eq_ci("old.")),
                Some(TokenType::TK_DELETE) => written.get(..4).is_some_and(|r| r.eq_ci("new.")),
                _ => false,
            };
            if let Some((written, _)) = row_references(&sql).into_iter().find(|(written, col)| missing_row(written) || !known(col)) {
                return Err(Error::sql(format!("error in trigger {name}: no such column: {written}")));
            }
        }
        Ok(())
    }
}

/// Compile view `view` against `schema` in a scratch compiler.
fn compile_view(schema: &Schema, c: &Compiler<'_>, view: &Table) -> Result<()> {
    let select = view.view_select.as_deref().unwrap_or_default();
    let env = crate::sql::codegen::CompileEnv::bare(schema, c.env.funcs, c.env.collations, c.env.databases);
    let mut scratch = Compiler::new(&env, select.as_bytes());
    scratch.names.home_db = (view.db != 1).then_some(view.db);
    scratch.expansion.expanding.push(view.name.clone());
    with_first_statement(select.as_bytes(), |cmd, _| match cmd {
        Some(ast::Cmd::Stmt(ast::Stmt::Select(sel))) => {
            scratch.names.scopes.push(Default::default());
            let cur = scratch.b.cursor();
            scratch.compile_select(sel, Dest::EphemTable(cur)).map(|_| ())
        }
        _ => Err(Error::sql("malformed view")),
    })
}

/// `new.col` or `old.col` in a trigger's text, as written.
fn row_reference(sql: &str, col: &str) -> Option<String> {
    row_references(sql).into_iter().find(|(_, name)| name.eq_ci(col)).map(|(written, _)| written)
}

/// Every `new.col` and `old.col` of a trigger's text in order: as the
/// error names it (`new.col`, the column unquoted) and the column's name.
fn row_references(sql: &str) -> Vec<(String, String)> {
    let b = sql.as_bytes();
    let toks = tokens(b).collect::<Vec<_>>();
    let text = |i: usize| String::from_utf8_lossy(&b[toks[i].start..toks[i].end]).into_owned();
    (2..toks.len())
        .filter_map(|i| {
            let (row, dot, name) = (&toks[i - 2], &toks[i - 1], &toks[i]);
            let is_row = row.kind == TokenType::TK_ID && ["new", "old"].iter().any(|r| text(i - 2).eq_ci(r));
            let named = matches!(name.kind, TokenType::TK_ID | TokenType::TK_STRING);
            (is_row && dot.kind == TokenType::TK_DOT && named).then(|| {
                let col = crate::sql::parse::unquote(&text(i));
                (format!("{}.{col}", text(i - 2)), col)
            })
        })
        .collect()
}

/// "no such column: C" for column `col` named in `text` (an expression,
/// or an index's key list), as SQLite words it while it checks the schema
/// after a drop (double-quoted strings are off then): where the first
/// mention of the column is double-quoted, with its hint that the name
/// may have been meant as a string.
pub(super) fn no_such_column_in(text: &str, col: &str) -> String {
    let b = text.as_bytes();
    let first = tokens(b)
        .filter(|t| matches!(t.kind, TokenType::TK_ID | TokenType::TK_STRING))
        .map(|t| &text[t.start..t.end])
        .find(|w| crate::sql::parse::unquote(w).eq_ci(col));
    match first {
        Some(w) if w.starts_with('"') => format!("no such column: \"{}\" - should this be a string literal in single-quotes?", crate::sql::parse::unquote(w)),
        _ => format!("no such column: {col}"),
    }
}
