//! # The shadow tables of one R*Tree, read and written with SQL
//!
//! `%_node(nodeno INTEGER PRIMARY KEY, data)` holds the node blobs,
//! `%_rowid(rowid INTEGER PRIMARY KEY, nodeno, a0, a1, ..)` maps an entry
//! to its leaf and holds its auxiliary columns, `%_parent(nodeno INTEGER
//! PRIMARY KEY, parentnode)` maps every node but the root to its parent.
//! These are the statements SQLite's format fixes; everything here goes
//! through the connection lent to the calling method, so the writes share
//! the caller's transaction and statement savepoint.
//!
//! Prepared statements are kept per table and reused (reset after every
//! use, so none stays active between calls).
//!
//! Invariant: a statement taken from the cache is put back reset, also
//! when stepping it failed.

use crate::connection::{Connection, Statement, StepResult};
use crate::error::{Error, Result};
use crate::value::Value;
use std::collections::HashMap;
use std::sync::Mutex;

/// Quote `s` as an SQL identifier.
pub fn ident(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\"\""))
}

/// The names one R*Tree's SQL uses.
#[derive(Debug, Clone)]
pub struct Names {
    /// Database name (`main`, `temp`, an attached name).
    pub db: String,
    /// Virtual table name.
    pub table: String,
}

impl Names {
    /// `"db"."<table>_<suffix>"`.
    pub fn shadow(&self, suffix: &str) -> String {
        format!("{}.{}", ident(&self.db), ident(&format!("{}_{}", self.table, suffix)))
    }
}

/// Cached statements, by SQL text.
#[derive(Default)]
pub struct StmtCache {
    stmts: Mutex<HashMap<String, Statement>>,
}

impl StmtCache {
    /// Run `sql` with `params`, collecting at most `limit` rows.
    pub fn query(&self, conn: &mut Connection, sql: &str, params: &[Value], limit: usize) -> Result<Vec<Vec<Value>>> {
        let cached = self.stmts.lock().unwrap().remove(sql);
        let mut stmt = match cached {
            Some(s) => s,
            // A shadow table that is missing or not as created: the tree
            // is damaged (SQLite says so, not what the SQL said).
            None => prepare(conn, sql).map_err(|_| super::corrupt())?,
        };
        let out = run(conn, &mut stmt, params, limit).map_err(|e| if e.primary() == crate::error::SQLITE_ERROR { super::corrupt() } else { e });
        stmt.reset(conn);
        stmt.clear_bindings();
        self.stmts.lock().unwrap().insert(sql.to_string(), stmt);
        out
    }

    /// Run `sql` for its effect.
    pub fn exec(&self, conn: &mut Connection, sql: &str, params: &[Value]) -> Result<()> {
        self.query(conn, sql, params, 0).map(|_| ())
    }

    /// The first column of the first row, if any.
    pub fn one(&self, conn: &mut Connection, sql: &str, params: &[Value]) -> Result<Option<Value>> {
        Ok(self.query(conn, sql, params, 1)?.into_iter().next().and_then(|r| r.into_iter().next()))
    }

    /// Forget every statement (the table was renamed or dropped).
    pub fn clear(&self) {
        self.stmts.lock().unwrap().clear();
    }
}

fn prepare(conn: &mut Connection, sql: &str) -> Result<Statement> {
    match conn.prepare_terminated(sql.as_bytes())? {
        (Some(s), _) => Ok(s),
        (None, _) => Err(Error::sql("empty statement")),
    }
}

fn run(conn: &mut Connection, stmt: &mut Statement, params: &[Value], limit: usize) -> Result<Vec<Vec<Value>>> {
    for (i, p) in params.iter().enumerate() {
        stmt.bind(i + 1, p.clone())?;
    }
    let mut rows = Vec::new();
    loop {
        match stmt.step(conn)? {
            StepResult::Row => {
                if rows.len() < limit {
                    rows.push((0..stmt.column_count()).map(|i| stmt.column(i).clone()).collect());
                }
            }
            StepResult::Done => return Ok(rows),
            // (Nested statements complete their I/O blocking.)
            StepResult::Io => return Err(Error::code(crate::error::SQLITE_IOERR)),
        }
    }
}

/// Run a statement that is used once (schema changes), all rows.
pub fn exec_once(conn: &mut Connection, sql: &str) -> Result<Vec<Vec<Value>>> {
    let mut stmt = prepare(conn, sql)?;
    let out = run(conn, &mut stmt, &[], usize::MAX);
    stmt.reset(conn);
    out
}
