//! The checks SQLite makes of the expressions inside stored CREATE text
//! as it reads a schema: it runs each CREATE TABLE and CREATE INDEX of the
//! schema table again, so a column definition whose constraints clash with
//! GENERATED ALWAYS AS, a DEFAULT naming a column or holding a subquery, a
//! CHECK constraint or generated column that names no column of its table
//! or holds a subquery, a parameter, an aggregate or window function (a
//! generated column also a non-deterministic function), and an index
//! expression or partial-index WHERE clause breaking the rules of CREATE
//! INDEX make the whole schema unreadable: "malformed database schema
//! (NAME) - MESSAGE", SQLITE_CORRUPT. (Unknown functions and collations are
//! not looked up then, nor are parameters in a DEFAULT: SQLite reads those
//! as NULL while it reads the schema.)
//!
//! The checks are the compiler's own (`validate_checks`,
//! `validate_generated`, `validate_index_exprs`), run on a bare compile
//! environment over the schema just read. What a table's text alone
//! decides (its column definitions and DEFAULT values) is remembered by
//! the text (`TextChecked`), so that a read of the schema after an ALTER
//! TABLE or VACUUM parses only the statements that changed.

use crate::error::{Error, Result, SQLITE_CORRUPT};
use crate::sql::codegen::{CompileEnv, Compiler};
use crate::sql::schema::Schema;
use crate::util::ascii::AsciiLower;
use crate::util::fast_hash::FastMap;
use crate::value::collation::Collation;
use crate::vdbe::func::FunctionRegistry;
use std::collections::HashMap;

/// The CREATE TABLE texts whose column definitions and DEFAULT values
/// passed the checks, kept by the connection from one read of the schema
/// to the next: those checks depend on the text alone.
#[derive(Debug, Default)]
pub(crate) struct TextChecked(FastMap<String, ()>);

/// The first object of `schemas` (per database, rows in rowid order)
/// whose stored expressions SQLite refuses while reading the schema, as
/// the error the schema read fails with.
pub(super) fn first_invalid_expression(
    schemas: &[Schema],
    funcs: &FunctionRegistry,
    collations: &HashMap<String, Collation>,
    databases: &[(String, String)],
    text_checked: &mut TextChecked,
) -> Option<Error> {
    // (Texts no schema holds any longer are let go now and then.)
    let rows: usize = schemas.iter().map(|s| s.rows.len()).sum();
    if text_checked.0.len() > 2 * rows + 16 {
        text_checked.0.clear();
    }
    for s in schemas {
        for (ty, name, _, _, sql) in &s.rows {
            let Some(sql) = sql else { continue };
            let key = name.ascii_lower();
            // (A panic in a check is a bug of ours, not the file's: the
            // schema then reads as before.)
            let checked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match ty.as_str() {
                "table" => check_table(s, &key, sql, funcs, collations, databases, &mut text_checked.0),
                "index" => check_index(s, &key, funcs, collations, databases),
                _ => Ok(()),
            }));
            if let Ok(Err(e)) = checked {
                // Functions are not looked up while the schema is read.
                if e.message.starts_with("no such function: ") {
                    continue;
                }
                return Some(Error::new(SQLITE_CORRUPT, format!("malformed database schema ({name}) - {}", e.message)));
            }
        }
    }
    None
}

/// A table's column definitions, DEFAULT values, generated columns and
/// CHECK constraints, in the order CREATE TABLE checks them.
fn check_table(
    s: &Schema,
    key: &str,
    sql: &str,
    funcs: &FunctionRegistry,
    collations: &HashMap<String, Collation>,
    databases: &[(String, String)],
    text_checked: &mut FastMap<String, ()>,
) -> Result<()> {
    let Some(table) = s.tables.get(key) else { return Ok(()) };
    if table.view_select.is_some() || table.virtual_table.is_some() || table.unsupported.is_some() {
        return Ok(());
    }
    if !text_checked.contains_key(sql) {
        check_table_text(sql)?;
        text_checked.insert(sql.to_owned(), ());
    }
    if table.checks.is_empty() && table.columns.iter().all(|c| c.generated.is_none()) {
        return Ok(());
    }
    let env = CompileEnv::bare(s, funcs, collations, databases);
    let mut c = Compiler::new(&env, sql.as_bytes());
    // SQLite resolves the CHECK constraints first, then the generated
    // columns, and the last error met is the one it reports.
    let checks = c.validate_checks(table);
    c.validate_generated_as_read(table).and(checks)
}

/// A table's column definitions and DEFAULT values, which its text alone
/// decides.
fn check_table_text(sql: &str) -> Result<()> {
    crate::sql::parse::with_first_statement(sql.as_bytes(), |cmd, _| {
        use sqlite3_parser::ast::{Cmd, ColumnConstraint, CreateTableBody, Stmt};
        let Some(Cmd::Stmt(Stmt::CreateTable { body: CreateTableBody::ColumnsAndConstraints { columns, .. }, .. })) = cmd else { return Ok(()) };
        if let Some(e) = columns.iter().find_map(crate::sql::column_rules::definition_error) {
            return Err(e);
        }
        for cd in columns.iter() {
            for k in cd.constraints.iter() {
                if let ColumnConstraint::Default(e) = &k.constraint {
                    if !crate::sql::codegen::ddl::create_drop::is_constant_default(e, true) {
                        return Err(Error::sql(format!("default value of column [{}] is not constant", crate::sql::parse::unquote(cd.col_name.0))));
                    }
                }
            }
        }
        Ok(())
    })
}

/// An index's key expressions and partial-index WHERE clause.
fn check_index(s: &Schema, key: &str, funcs: &FunctionRegistry, collations: &HashMap<String, Collation>, databases: &[(String, String)]) -> Result<()> {
    let Some(idx) = s.indexes.get(key) else { return Ok(()) };
    if idx.where_sql.is_none() && idx.columns.iter().all(|c| c.expr.is_none()) {
        return Ok(());
    }
    let Some(table) = s.tables.get(&idx.table.ascii_lower()) else { return Ok(()) };
    let sql = idx.sql.as_deref().unwrap_or_default();
    let env = CompileEnv::bare(s, funcs, collations, databases);
    let mut c = Compiler::new(&env, sql.as_bytes());
    c.validate_index_exprs(table, idx)
}
