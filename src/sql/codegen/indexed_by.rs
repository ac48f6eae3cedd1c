//! `INDEXED BY name` after a table in SELECT, UPDATE and DELETE: the name
//! must be one of that table's indexes, or the statement fails to compile
//! with SQLite's "no such index: name" (also when the table is a view, a
//! virtual table, or the index belongs to another table). A view's body
//! is checked when a statement reads the view, as SQLite checks it.
//! A partial index named there must have its WHERE clause implied by the
//! statement's (`query/partial_index.rs`), or the statement has no plan:
//! SQLite's "no query solution". Which loop the index then drives is the
//! planner's business.

use crate::error::{Error, Result};
use crate::sql::codegen::query::partial_index::where_implied;
use crate::sql::codegen::Compiler;
use crate::sql::model::expr_shape::conjuncts;
use crate::sql::schema::Table;
use crate::util::ascii::AsciiLower;
use sqlite3_parser::ast::Expr;

impl Compiler<'_> {
    /// Check `INDEXED BY index` on `table`.
    pub(crate) fn check_indexed_by(&self, table: &Table, index: &str) -> Result<()> {
        if self.env.schema.indexes_of(table).iter().any(|i| i.name.eq_ci(index)) {
            Ok(())
        } else {
            Err(Error::sql(format!("no such index: {index}")))
        }
    }

    /// UPDATE and DELETE: `INDEXED BY index` on `table` (called `name` in
    /// the statement), which exists, under the statement's WHERE clause.
    pub(crate) fn check_indexed_by_plan(&self, table: &Table, index: &str, name: &str, where_clause: Option<&Expr<'_>>) -> Result<()> {
        let indexes = self.env.schema.indexes_of(table);
        let Some(where_sql) = indexes.iter().find(|i| i.name.eq_ci(index)).and_then(|i| i.where_sql.as_deref()) else { return Ok(()) };
        let mut terms = Vec::new();
        if let Some(w) = where_clause {
            conjuncts(w, &mut terms);
        }
        if where_implied(where_sql, &terms, name) {
            Ok(())
        } else {
            Err(Error::sql("no query solution"))
        }
    }
}
