//! The SET list of an UPDATE (and of an upsert's DO UPDATE): which
//! column each assignment targets and where its value comes from.
//!
//! A row-value assignment `(a, b) = (x, y)` becomes one assignment per
//! column; `(a, b) = (SELECT x, y ...)` assigns the columns of one
//! subquery, evaluated once per updated row (once in all when it is not
//! correlated), NULLs when it returns no row. The counts must agree:
//! "2 columns assigned 3 values".

use crate::error::{Error, Result};
use crate::sql::codegen::Compiler;
use crate::sql::model::query::Dest;
use crate::sql::parse::unquoted;
use crate::sql::schema::Table;
use crate::util::ascii::AsciiLower;
use crate::vdbe::program::Opcode;
use sqlite3_parser::ast::{Expr, Select, Set};
use std::collections::HashMap;

/// Where an assigned value comes from.
#[derive(Clone, Copy)]
pub enum SetValue<'a, 'b> {
    /// An expression evaluated against the row being updated.
    Expr(&'a Expr<'b>),
    /// Column `index` of the row-value subquery assigning `width` columns.
    RowElement(&'a Select<'b>, usize, usize),
    /// A column of a cursor's current row (values an UPDATE ... FROM
    /// computed beforehand).
    Column(i32, i32),
}

/// One assignment: target column (`usize::MAX`: the rowid) and value.
pub type Assignment<'a, 'b> = (usize, SetValue<'a, 'b>);

/// The values each SET item assigns, in order, checked against the number
/// of columns it names.
pub fn set_values<'a, 'b>(s: &'a Set<'b>) -> Result<Vec<SetValue<'a, 'b>>> {
    let n = s.col_names.len();
    if n == 1 {
        return Ok(vec![match &s.expr {
            Expr::Parenthesized(v) if v.len() == 1 => SetValue::Expr(&v[0]),
            e => SetValue::Expr(e),
        }]);
    }
    match &s.expr {
        Expr::Parenthesized(v) if v.len() == n => Ok(v.iter().map(SetValue::Expr).collect()),
        Expr::Parenthesized(v) if v.len() > 1 => Err(Error::sql(format!("{n} columns assigned {} values", v.len()))),
        Expr::Subquery(sel) => Ok((0..n).map(|i| SetValue::RowElement(sel, i, n)).collect()),
        _ => Err(Error::sql(format!("{n} columns assigned 1 values"))),
    }
}

/// Resolve a SET list against `table`: each named column (or, when
/// `rowid_names`, `rowid`/`oid`/`_rowid_`) with its value.
pub fn resolve_sets<'a, 'b>(table: &Table, sets: &'a [Set<'b>], rowid_names: bool) -> Result<Vec<Assignment<'a, 'b>>> {
    let mut out = Vec::new();
    for s in sets {
        let values = set_values(s)?;
        for (name, v) in s.col_names.iter().zip(values) {
            let n = unquoted(name.0);
            let n = crate::sql::repeated_set_columns::set_column_name(&n);
            let i = match table.column_index(n) {
                Some(i) => i,
                None if rowid_names && table.without_rowid.is_none() && ["rowid", "oid", "_rowid_"].iter().any(|r| r.eq_ci(n)) => {
                    table.rowid_alias.unwrap_or(usize::MAX)
                }
                None => return Err(Error::sql(format!("no such column: {n}"))),
            };
            out.push((i, v));
        }
    }
    Ok(out)
}

/// Row-value subqueries already evaluated for the current row: their
/// first result register, by subquery.
#[derive(Default)]
pub struct RowValues {
    computed: HashMap<usize, i32>,
}

impl Compiler<'_> {
    /// Evaluate an assigned value into `target`.
    pub fn assigned_value(&mut self, v: &SetValue<'_, '_>, target: i32, rows: &mut RowValues) -> Result<()> {
        match *v {
            SetValue::Expr(e) => self.expr(e, target),
            SetValue::Column(cur, col) => {
                self.b.add(Opcode::Column, cur, col, target);
                Ok(())
            }
            SetValue::RowElement(sel, index, width) => {
                let key = sel as *const Select<'_> as usize;
                let base = match rows.computed.get(&key) {
                    Some(b) => *b,
                    None => {
                        let b = self.row_subquery(sel, width)?;
                        rows.computed.insert(key, b);
                        b
                    }
                };
                self.b.add(Opcode::SCopy, base + index as i32, target, 0);
                Ok(())
            }
        }
    }

    /// The row-value subquery `text` (assigning `width` columns), evaluated
    /// for the current row into registers from `at`.
    pub fn row_value_text(&mut self, text: &str, width: usize, at: i32) -> Result<()> {
        crate::sql::parse::with_first_statement(text.as_bytes(), |cmd, _| match cmd {
            Some(sqlite3_parser::ast::Cmd::Stmt(sqlite3_parser::ast::Stmt::Select(sel))) => {
                let base = self.row_subquery(sel, width)?;
                self.b.add(Opcode::Copy, base, at, width as i32 - 1);
                Ok(())
            }
            _ => Err(Error::sql("malformed row value")),
        })
    }

    /// The first row of `sel` into `width` new registers (NULLs when there
    /// is none); it must have `width` columns.
    fn row_subquery(&mut self, sel: &Select<'_>, width: usize) -> Result<i32> {
        let base = self.b.regs(width);
        let once = self.b.add(Opcode::Once, 0, 0, 0);
        self.b.add(Opcode::Null, 0, base, base + width as i32 - 1);
        let done = self.b.label();
        let info = self.compile_select(sel, Dest::Row { reg: base, done })?;
        if info.n_columns != width {
            return Err(Error::sql(format!("{width} columns assigned {} values", info.n_columns)));
        }
        self.b.bind(done);
        if info.correlated || !self.dml.firing.is_empty() {
            self.b.insns[once].opcode = Opcode::Noop;
        } else {
            let here = self.b.here();
            self.b.insns[once].p2 = here as i32;
        }
        Ok(base)
    }
}
