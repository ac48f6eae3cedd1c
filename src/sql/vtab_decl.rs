//! # A virtual table's declared columns
//!
//! What a module passes to `sqlite3_declare_vtab`: a `CREATE TABLE`
//! statement whose table name is ignored. A column whose declared type
//! holds the word HIDDEN (any case) is hidden: left out of `*` and of
//! INSERT without a column list, and bound, in order, to the arguments of
//! the table-valued-function syntax `FROM t(a, b)`. The word is removed
//! from the type, but the affinity stays the one of the type as written,
//! as in SQLite: a column declared `x HIDDEN` alone is NUMERIC (fts4aux's
//! `languageid = '1'` matches language 1), not BLOB.
//!
//! Invariant: `hidden` has one entry per column of `table` (checked:
//! vtab_hidden_columns).

use crate::error::{Error, Result};
use crate::sql::schema::Table;
use crate::util::ascii::AsciiLower;
use crate::value::affinity::Affinity;
use std::sync::Arc;

/// The columns a virtual table declared.
#[derive(Debug, Clone)]
pub struct DeclaredTable {
    /// The table as the statement declares it (name, database and
    /// statement text replaced by the virtual table's).
    pub table: Arc<Table>,
    /// Per column: HIDDEN.
    pub hidden: Vec<bool>,
}

/// Parse `declared` (the statement given to `sqlite3_declare_vtab`) for
/// the virtual table `name` of database `db`, whose schema entry is `sql`.
pub fn declared_table(declared: &str, name: &str, db: usize, sql: &str) -> Result<DeclaredTable> {
    let mut t = parse(declared)?;
    let mut hidden = Vec::with_capacity(t.columns.len());
    for c in t.columns.iter_mut() {
        let (ty, h) = strip_hidden(c.decltype.as_deref());
        hidden.push(h);
        if h {
            debug_assert_eq!(c.affinity, Affinity::from_decltype(c.decltype.as_deref().unwrap_or("")));
            c.decltype = ty;
        }
    }
    t.name = name.to_string();
    t.db = db;
    t.root = 0;
    t.sql = sql.to_string();
    // invariant: vtab_hidden_columns
    debug_assert_eq!(hidden.len(), t.columns.len());
    Ok(DeclaredTable { table: Arc::new(t), hidden })
}

/// Whether `declared` is a statement `sqlite3_declare_vtab` accepts: a
/// CREATE TABLE (not AS SELECT) that parses.
pub fn check_declaration(declared: &str) -> Result<()> {
    parse(declared).map(|_| ())
}

fn parse(declared: &str) -> Result<Table> {
    let t = crate::sql::parse::with_first_statement(declared.as_bytes(), |cmd, _| match cmd {
        Some(sqlite3_parser::ast::Cmd::Stmt(
            stmt @ sqlite3_parser::ast::Stmt::CreateTable { body: sqlite3_parser::ast::CreateTableBody::ColumnsAndConstraints { .. }, .. },
        )) => crate::sql::schema::table_from_stmt(stmt, declared, 0),
        _ => Err(Error::sql("vtable constructor did not declare a table")),
    });
    t.map_err(|e| if e.message.is_empty() { Error::sql("syntax error in declared vtab schema") } else { e })
}

/// The declared type without the word HIDDEN, and whether it held it.
fn strip_hidden(ty: Option<&str>) -> (Option<String>, bool) {
    let Some(ty) = ty else { return (None, false) };
    let words: Vec<&str> = ty.split_ascii_whitespace().collect();
    if !words.iter().any(|w| w.eq_ci("hidden")) {
        return (Some(ty.to_string()), false);
    }
    let rest: Vec<&str> = words.into_iter().filter(|w| !w.eq_ci("hidden")).collect();
    let joined = rest.join(" ");
    ((!joined.is_empty()).then_some(joined), true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_columns_lose_the_word_and_keep_their_type() {
        let d = declared_table("CREATE TABLE x(value, start INTEGER HIDDEN, stop hidden, step)", "s", 0, "").unwrap();
        assert_eq!(d.hidden, vec![false, true, true, false]);
        assert_eq!(d.table.columns[1].decltype.as_deref(), Some("INTEGER"));
        assert_eq!(d.table.columns[1].affinity, Affinity::Integer);
        assert_eq!(d.table.columns[2].decltype, None);
        assert_eq!(d.table.columns[2].affinity, Affinity::Numeric);
        assert_eq!(d.table.name, "s");
    }

    #[test]
    fn a_declaration_must_be_create_table() {
        assert!(check_declaration("CREATE TABLE x(a, b)").is_ok());
        assert!(check_declaration("CREATE TABLE x(a PRIMARY KEY, b) WITHOUT ROWID").is_ok());
        assert!(check_declaration("SELECT 1").is_err());
        assert!(check_declaration("CREATE TABLE x(").is_err());
    }
}
