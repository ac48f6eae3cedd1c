//! `INDEXED BY name` after a table in SELECT, UPDATE and DELETE: the name
//! must be one of that table's indexes, or the statement fails to compile
//! with SQLite's "no such index: name" (also when the table is a view, a
//! virtual table, or the index belongs to another table). A view's body
//! is checked when a statement reads the view, as SQLite checks it.
//! Which loop the index then drives is the planner's business.

use crate::error::{Error, Result};
use crate::sql::codegen::Compiler;
use crate::sql::schema::Table;

impl Compiler<'_> {
    /// Check `INDEXED BY index` on `table`.
    pub(crate) fn check_indexed_by(&self, table: &Table, index: &str) -> Result<()> {
        if self.schema.indexes_of(table).iter().any(|i| i.name.eq_ignore_ascii_case(index)) {
            Ok(())
        } else {
            Err(Error::sql(format!("no such index: {index}")))
        }
    }
}
