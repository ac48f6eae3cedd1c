//! # Running SQL on the shadow tables
//!
//! Small helpers over the connection lent to a module method: prepare,
//! bind, step to the end, collect rows. The shadow tables' names are
//! built here, quoted as SQLite quotes them (`"db"."name_suffix"`).
//!
//! Invariant: every statement prepared here is stepped to completion (or
//! dropped) before the helper returns, so no statement outlives the
//! method that lent the connection (checked: fts3_shadow_stmt_done).

use crate::connection::{Connection, StepResult};
use crate::error::{Error, Result};
use crate::value::Value;
use crate::vdbe::host::VmHost;

/// The connection behind `host`.
pub fn conn(host: &mut dyn VmHost) -> Result<&mut Connection> {
    Connection::from_host(host).ok_or_else(|| Error::sql("fts: no connection"))
}

/// Run `sql` with `params`, returning every row.
pub fn query(c: &mut Connection, sql: &str, params: &[Value]) -> Result<Vec<Vec<Value>>> {
    let (stmt, _) = c.prepare_terminated(sql.as_bytes())?;
    let Some(mut stmt) = stmt else {
        return Ok(Vec::new());
    };
    for (i, p) in params.iter().enumerate() {
        stmt.bind(i + 1, p.clone())?;
    }
    let mut rows = Vec::new();
    loop {
        match stmt.step(c)? {
            StepResult::Row => rows.push((0..stmt.column_count()).map(|i| stmt.column(i).clone()).collect()),
            StepResult::Done => {
                // invariant: fts3_shadow_stmt_done
                debug_assert!(!stmt.busy(), "a shadow-table statement still busy after its last row");
                return Ok(rows);
            }
            StepResult::Io => continue,
        }
    }
}

/// Run `sql` with `params`, ignoring rows.
pub fn exec(c: &mut Connection, sql: &str, params: &[Value]) -> Result<()> {
    query(c, sql, params).map(|_| ())
}

/// `"db"."table_suffix"`.
pub fn table(db: &str, name: &str, suffix: &str) -> String {
    format!("{}.{}", super::config::ident(db), super::config::ident(&format!("{name}_{suffix}")))
}
