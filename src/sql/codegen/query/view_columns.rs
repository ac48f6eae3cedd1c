//! The columns of a view as SQLite describes them (PRAGMA table_info on a
//! view): the view's SELECT is compiled into a scratch program, which
//! names its columns the way a view's are named (declared names of the
//! table columns it reads, the source text of other expressions, made
//! unique with ":N") and gives each the type SQLite shows: the declared
//! type of the column it reads when the affinities agree, otherwise the
//! standard type name of the column's affinity (none for an expression
//! without affinity). Nothing of the scratch program runs.

use crate::error::{Error, Result};
use crate::sql::codegen::Compiler;
use crate::sql::model::query::{column_affinity_or_none, unique_names};
use crate::sql::model::query::{Dest, SelectInfo};
use crate::sql::parse::with_first_statement;
use crate::sql::schema::Table;
use crate::util::ascii::AsciiLower;
use crate::value::affinity::Affinity;
use sqlite3_parser::ast;

impl Compiler<'_> {
    /// The columns `PRAGMA table_info(arg)` (or table_xinfo) shows when
    /// `arg` names a view; None for anything else. A virtual table is
    /// connected first (SQLite's "no such module" while its module is not
    /// registered).
    pub(in crate::sql::codegen) fn view_columns_for_pragma(
        &mut self,
        db: Option<usize>,
        pragma: &str,
        arg: Option<&str>,
    ) -> Result<Option<Vec<(String, String)>>> {
        if pragma != "table_info" && pragma != "table_xinfo" {
            return Ok(None);
        }
        // The columns of a virtual table are its module's to declare.
        if let Some(t) = arg.and_then(|n| self.env.schema.table_in(db, n)) {
            self.connect_check(t)?;
        }
        let view = arg.and_then(|n| self.env.schema.table_in(db, n)).filter(|t| t.view_select.is_some()).cloned();
        match view {
            Some(v) => self.view_column_types(&v).map(Some),
            None => Ok(None),
        }
    }

    /// (name, type) of each column of view `view`.
    pub(in crate::sql::codegen) fn view_column_types(&mut self, view: &Table) -> Result<Vec<(String, String)>> {
        let Some(select_sql) = view.view_select.clone() else { return Ok(Vec::new()) };
        let saved_b = std::mem::take(&mut self.b);
        let saved_scopes = std::mem::take(&mut self.names.scopes);
        let saved_aliases = std::mem::take(&mut self.names.aliases);
        // A view's body sees schema objects only, not the CTEs of the
        // statement asking.
        let saved_ctes = std::mem::take(&mut self.frame.ctes);
        let home = std::mem::replace(&mut self.names.home_db, (view.db != 1).then_some(view.db));
        self.expansion.expanding.push(view.name.clone());
        let cur = self.b.cursor();
        let info = with_first_statement(select_sql.as_bytes(), |cmd, _| match cmd {
            Some(ast::Cmd::Stmt(ast::Stmt::Select(sel))) => {
                self.naming.view_names_text = Some(view.sql.clone());
                self.naming.view_texts.push(super::column_text::IndexedText::new(view.sql.clone()));
                let info = self.with_schema_text(view.db, |c| c.with_default_names(|c| c.compile_select(sel, Dest::EphemTable(cur))));
                self.naming.view_texts.pop();
                self.naming.view_names_text = None;
                info
            }
            _ => Err(Error::sql("malformed view")),
        });
        self.expansion.expanding.pop();
        self.names.home_db = home;
        self.frame.ctes = saved_ctes;
        self.names.aliases = saved_aliases;
        self.names.scopes = saved_scopes;
        self.b = saved_b;
        let info = info?;
        let names = match &view.view_columns {
            // (SELECTs from such a view fail; the pragma shows the names
            // without types.)
            Some(cols) if cols.len() != info.n_columns => return Ok(cols.iter().map(|c| (c.clone(), String::new())).collect()),
            Some(cols) => cols.clone(),
            None => unique_names(&info.table_names),
        };
        Ok(names.into_iter().enumerate().map(|(i, n)| (n, view_column_type(&info, i))).collect())
    }
}

/// The type PRAGMA table_info shows for column `i` of a view.
fn view_column_type(info: &SelectInfo, i: usize) -> String {
    let aff = column_affinity_or_none(info, i);
    if let Some(decl) = info.decltypes.get(i).cloned().flatten() {
        if aff == Some(Affinity::from_decltype(&decl)) {
            // The standard type names are shown in upper case.
            let standard = ["ANY", "BLOB", "INT", "INTEGER", "REAL", "TEXT"];
            return match standard.iter().find(|s| s.eq_ci(&decl)) {
                Some(s) => s.to_string(),
                None => decl,
            };
        }
    }
    match aff {
        None => "",
        Some(Affinity::Blob) => "BLOB",
        Some(Affinity::Integer) => "INT",
        Some(Affinity::Real) => "REAL",
        Some(Affinity::Text) => "TEXT",
        Some(Affinity::Numeric) => "NUM",
    }
    .to_string()
}
