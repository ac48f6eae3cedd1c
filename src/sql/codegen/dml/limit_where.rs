//! DELETE and UPDATE with ORDER BY and LIMIT, as SQLite built with
//! `SQLITE_ENABLE_UPDATE_DELETE_LIMIT` runs them (Debian's libsqlite3,
//! which ringlite replaces, is built so; `lang_delete`/`lang_update`).
//!
//! SQLite rewrites the statement: on a table (or virtual table) the WHERE
//! becomes `key IN (SELECT key FROM target WHERE ... ORDER BY ... LIMIT
//! ...)`, the key being the rowid or the PRIMARY KEY of a WITHOUT ROWID
//! table, and an INDEXED BY moves into that SELECT. A view is materialized
//! with the ORDER BY and LIMIT applied to its rows, and UPDATE ... FROM
//! applies them to the join: those two are done where the rows are
//! gathered (`instead.rs`, `update.rs`) with [`order_limit_sql`].
//!
//! ORDER BY without LIMIT is an error on a table ("ORDER BY without LIMIT
//! on DELETE") and in UPDATE ... FROM; on a view without FROM the ORDER BY
//! just orders the rows the triggers see.
//!
//! The rewritten statement is written as SQL text and compiled in place
//! of the original, as other internal statements here are; parameters
//! were numbered from the original text before (`sql::params`), so they
//! keep their numbers.

use crate::error::{Error, Result};
use crate::sql::codegen::Compiler;
use crate::sql::parse::{ast_text, unquoted};
use crate::util::ascii::AsciiLower;
use sqlite3_parser::ast::{Indexed, Limit, QualifiedName, SortedColumn, Stmt};

/// ` ORDER BY ... LIMIT ...` of a DELETE or UPDATE, as SQL text (empty
/// without either).
pub fn order_limit_sql(order_by: Option<&[SortedColumn<'_>]>, limit: Option<&Limit<'_>>) -> String {
    let mut out = String::new();
    if let Some(terms) = order_by {
        out.push_str(" ORDER BY ");
        out.push_str(&terms.iter().map(ast_text).collect::<Vec<_>>().join(", "));
    }
    if let Some(l) = limit {
        out.push(' ');
        out.push_str(&ast_text(l));
    }
    out
}

/// The error SQLite gives for ORDER BY without LIMIT on `verb`.
pub fn order_without_limit(verb: &str) -> Error {
    Error::sql(format!("ORDER BY without LIMIT on {verb}"))
}

/// The statement to compile instead of `stmt` (a DELETE or UPDATE with
/// ORDER BY or LIMIT), or `None` when `stmt` is compiled as it is: its
/// target is a view or missing (the usual path gathers the view's rows
/// with [`order_limit_sql`] or reports the error), or it is an UPDATE ...
/// FROM (the join takes them).
pub fn rewrite(c: &Compiler<'_>, stmt: &Stmt<'_>) -> Result<Option<String>> {
    let (verb, tbl_name, indexed, where_clause, order_by, limit) = match stmt {
        Stmt::Delete { tbl_name, indexed, where_clause, order_by, limit, .. } => ("DELETE", tbl_name, indexed, where_clause, order_by, limit),
        Stmt::Update { from: Some(_), .. } => return Ok(None),
        Stmt::Update { tbl_name, indexed, where_clause, order_by, limit, .. } => ("UPDATE", tbl_name, indexed, where_clause, order_by, limit),
        _ => return Ok(None),
    };
    debug_assert!(order_by.is_some() || limit.is_some());
    let db = c.target_db(tbl_name)?;
    let name = unquoted(tbl_name.name.0);
    let table = c.env.schema.table_in(db, &name);
    if table.is_some_and(|t| t.view_select.is_some()) {
        return Ok(None);
    }
    let schema_table = name.eq_ci("sqlite_master") || name.eq_ci("sqlite_schema");
    let vtab = c.vtab_target(tbl_name)?.is_some();
    if table.is_none() && !vtab && !schema_table {
        return Ok(None);
    }
    let Some(limit) = limit else {
        // (SQLite goes on after this error, and a later one about the
        // target replaces it: "table sqlite_master may not be modified".)
        if !vtab {
            c.writable_table(db, &name)?;
        }
        return Err(order_without_limit(verb));
    };
    let cols: Vec<String> = match table.filter(|t| t.without_rowid.is_some()) {
        Some(t) => t.record_columns().into_iter().take(t.key_width()).map(|i| quote(&t.columns[i].name)).collect(),
        None => vec![rowid_name(table.map(|t| t.columns.iter().map(|c| c.name.as_str()).collect()).unwrap_or_default())],
    };
    debug_assert!(!cols.is_empty(), "a WITHOUT ROWID table has a PRIMARY KEY");
    let select_key = cols.join(", ");
    let key = if cols.len() == 1 { select_key.clone() } else { format!("({select_key})") };
    let inner_indexed = indexed.as_ref().map(|i| format!(" {}", ast_text(i))).unwrap_or_default();
    let outer_indexed = if matches!(indexed, Some(Indexed::NotIndexed)) { " NOT INDEXED" } else { "" };
    let filter = where_clause.as_ref().map(|w| format!(" WHERE {w}")).unwrap_or_default();
    let subquery = format!("SELECT {select_key} FROM {}{inner_indexed}{filter}{}", ast_text(tbl_name), order_limit_sql(*order_by, Some(limit)));
    let new_where = format!(" WHERE {key} IN ({subquery})");
    let target = target_text(tbl_name);
    let sql = match stmt {
        Stmt::Delete { with, returning, .. } => {
            format!("{}DELETE FROM {target}{outer_indexed}{new_where}{}", with_sql(with.as_ref()), returning_sql(*returning))
        }
        Stmt::Update { with, or_conflict, sets, returning, .. } => {
            let or = or_conflict.as_ref().map(|r| format!(" OR {}", ast_text(r))).unwrap_or_default();
            let sets = sets.iter().map(ast_text).collect::<Vec<_>>().join(", ");
            format!("{}UPDATE{or} {target}{outer_indexed} SET {sets}{new_where}{}", with_sql(with.as_ref()), returning_sql(*returning))
        }
        _ => unreachable!("matched above"),
    };
    Ok(Some(sql))
}

/// The target as written (schema, name, alias).
fn target_text(q: &QualifiedName<'_>) -> String {
    ast_text(q)
}

fn with_sql(with: Option<&sqlite3_parser::ast::With<'_>>) -> String {
    with.map(|w| format!("{} ", ast_text(w))).unwrap_or_default()
}

fn returning_sql(returning: Option<&[sqlite3_parser::ast::ResultColumn<'_>]>) -> String {
    match returning {
        Some(cols) => format!(" RETURNING {}", cols.iter().map(ast_text).collect::<Vec<_>>().join(", ")),
        None => String::new(),
    }
}

/// A name of the rowid no column hides (SQLite's key is the rowid itself,
/// whatever the columns are named).
fn rowid_name(columns: Vec<&str>) -> String {
    ["rowid", "_rowid_", "oid"]
        .into_iter()
        .find(|n| !columns.iter().any(|c| c.eq_ci(n)))
        .map_or_else(|| crate::sql::resolve::INTERNAL_ROWID.to_string(), str::to_string)
}

fn quote(n: &str) -> String {
    format!("\"{}\"", n.replace('"', "\"\""))
}
