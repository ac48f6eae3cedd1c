//! RETURNING: each changed row's values are computed right after the row
//! is written (or before it is deleted) and kept in a temporary table;
//! the rows are returned once every change is done, as SQLite does.

use crate::error::{Error, Result};
use crate::sql::codegen::query::name_order::{Allows, NameClause};
use crate::sql::codegen::target::Returning;
use crate::sql::codegen::target::WriteTarget;
use crate::sql::codegen::Compiler;
use crate::sql::model::expr_shape::strip_parens;
use crate::sql::parse::unquote;
use crate::util::ascii::AsciiLower;
use crate::vdbe::program::{Opcode, Program};
use sqlite3_parser::ast::{self, Expr, ResultColumn};

impl Compiler<'_> {
    /// Open the temporary table and record the clause; sets the column
    /// names of `prog`.
    pub fn setup_returning(&mut self, cols: Option<&[ResultColumn<'_>]>, table: &crate::sql::schema::Table, prog: &mut Program) -> Result<()> {
        let Some(cols) = cols else { return Ok(()) };
        let mut exprs = Vec::new();
        let mut names = Vec::new();
        let mut written = Vec::new();
        let table_star = cols.iter().any(|rc| matches!(rc, ResultColumn::TableStar(_)));
        for rc in cols {
            match rc {
                ResultColumn::Expr(e, alias) => {
                    exprs.push(e.to_string());
                    written.push(e.to_string());
                    let name = match (alias, e) {
                        (Some(ast::As::As(n) | ast::As::Elided(n)), _) => unquote(n.0),
                        (None, e) => match self.returning_column_name(e, table) {
                            Some(n) => n,
                            None => match e {
                                Expr::Id(id) => unquote(id.0),
                                e => e.to_string(),
                            },
                        },
                    };
                    names.push(name);
                }
                ResultColumn::Star | ResultColumn::TableStar(_) => {
                    let long_names = matches!(self.column_name_flags(), (true, false));
                    for c in &table.columns {
                        exprs.push(format!("\"{}\"", c.name.replace('"', "\"\"")));
                        names.push(if long_names { format!("{}.{}", table.name, c.name) } else { c.name.clone() });
                    }
                }
            }
        }
        let cursor = self.b.cursor();
        self.b.add(Opcode::OpenEphemeral, cursor, exprs.len() as i32, 0);
        prog.column_names = names;
        self.dml.returning = Some(Returning { cursor, exprs, unchecked: Some((written.join(", "), table_star)) });
        Ok(())
    }

    /// The name of RETURNING column `e` (without AS) when it is a plain
    /// reference to a column of `table`: the declared name (`rowid` for
    /// the rowid), TABLE.COLUMN with `PRAGMA full_column_names`, the
    /// text as written with neither full nor short names.
    fn returning_column_name(&self, e: &Expr<'_>, table: &crate::sql::schema::Table) -> Option<String> {
        let (q, col) = match strip_parens(e) {
            Expr::Id(id) => (None, unquote(id.0)),
            Expr::Qualified(t, c) | Expr::DoublyQualified(_, t, c) => (Some(unquote(t.0)), unquote(c.0)),
            _ => return None,
        };
        if q.as_ref().is_some_and(|q| !q.eq_ci(&table.name)) {
            return None;
        }
        let declared = match table.columns.iter().find(|c| c.name.eq_ci(&col)) {
            Some(c) => c.name.clone(),
            None if table.without_rowid.is_none() && ["rowid", "oid", "_rowid_"].iter().any(|r| r.eq_ci(&col)) => match table.rowid_alias {
                Some(i) => table.columns.get(i)?.name.clone(),
                None => "rowid".to_string(),
            },
            None => return None,
        };
        match self.column_name_flags() {
            (true, _) => Some(format!("{}.{declared}", table.name)),
            (false, true) => Some(declared),
            (false, false) => Some(e.to_string()),
        }
    }

    /// Compute the RETURNING values for the row under `t.cursor`.
    pub fn emit_returning(&mut self, t: &WriteTarget) -> Result<()> {
        let Some(r) = self.dml.returning.clone() else { return Ok(()) };
        let unchecked = self.dml.returning.as_mut().and_then(|r| r.unchecked.take());
        self.names.scopes.push(crate::sql::codegen::target::target_scope(&t.table, None, t.cursor));
        let regs = self.b.regs(r.exprs.len());
        // (Checked as a SELECT's result list: row widths with every `*`
        // expanded, `row_value.rs`.)
        self.names.select_depth += 1;
        let mut res = match unchecked {
            Some((written, table_star)) => self.check_returning(&written, table_star),
            None => Ok(()),
        };
        for (i, e) in r.exprs.iter().enumerate() {
            if res.is_err() {
                break;
            }
            res = self.expr_text(e, regs + i as i32);
        }
        self.names.select_depth -= 1;
        self.names.scopes.pop();
        res?;
        let rec = self.b.reg();
        let rid = self.b.reg();
        self.b.add(Opcode::MakeRecord, regs, r.exprs.len() as i32, rec);
        self.b.add(Opcode::NewRowid, r.cursor, rid, 0);
        self.b.add(Opcode::Insert, r.cursor, rec, rid);
        Ok(())
    }

    /// The errors SQLite finds in a RETURNING clause before it codes it:
    /// its names, resolved as the result list of `SELECT ... FROM table`
    /// (where aggregates and window functions are allowed), then a
    /// `TABLE.*` ("RETURNING may not use "TABLE.*" wildcards", which
    /// replaces an error of the first step), then its names again, where
    /// no aggregate or window function is allowed. `written`: the clause
    /// as written, its `*` left out.
    fn check_returning(&mut self, written: &str, table_star: bool) -> Result<()> {
        if table_star {
            return Err(Error::sql("RETURNING may not use \"TABLE.*\" wildcards"));
        }
        if written.is_empty() {
            return Ok(());
        }
        let sql = format!("SELECT {written}");
        crate::sql::parse::with_first_statement(sql.as_bytes(), |cmd, _| {
            let Some(ast::Cmd::Stmt(ast::Stmt::Select(sel))) = cmd else { return Ok(()) };
            let ast::OneSelect::Select { columns, .. } = &sel.body.select else { return Ok(()) };
            let exprs: Vec<&Expr<'_>> = columns
                .iter()
                .filter_map(|c| match c {
                    ResultColumn::Expr(e, _) => Some(e),
                    _ => None,
                })
                .collect();
            for allows in [Allows::ALL, Allows::NONE] {
                let clauses: Vec<NameClause<'_, '_>> = exprs.iter().map(|e| NameClause::new(vec![*e], allows)).collect();
                self.check_clauses(&clauses)?;
            }
            Ok(())
        })
    }

    /// After all changes: hand the collected rows out.
    pub fn finish_returning(&mut self) {
        let Some(r) = self.dml.returning.take() else { return };
        let n = r.exprs.len();
        let end = self.b.label();
        self.b.add(Opcode::Rewind, r.cursor, end, 0);
        let top = self.b.here();
        let regs = self.b.regs(n);
        for i in 0..n {
            self.b.add(Opcode::Column, r.cursor, i as i32, regs + i as i32);
        }
        self.b.add(Opcode::ResultRow, regs, n as i32, 0);
        self.b.add(Opcode::Next, r.cursor, top as i32, 0);
        self.b.bind(end);
    }
}
