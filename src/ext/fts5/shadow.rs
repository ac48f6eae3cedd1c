//! # The shadow tables of an fts5 table
//!
//! `CREATE VIRTUAL TABLE t USING fts5(a, b)` makes, as SQLite 3.54.1 does
//! (statements and initial rows checked against it):
//! - `t_data(id INTEGER PRIMARY KEY, block BLOB)`: the index records;
//!   row 1 the averages record (empty while the table is), row 10 the
//!   structure record (seven zero bytes: no segments),
//! - `t_idx(segid, term, pgno, PRIMARY KEY(segid, term)) WITHOUT ROWID`,
//! - `t_content(id INTEGER PRIMARY KEY, c0, c1, ...)`: the values,
//! - `t_docsize(id INTEGER PRIMARY KEY, sz BLOB)`: tokens per column
//!   (with `origin INTEGER` for `contentless_delete=1`: the origin of
//!   the segment the row went to; its structure record is version 2),
//! - `t_config(k PRIMARY KEY, v) WITHOUT ROWID`: row ('version', 4).
//!
//! `%_content` is left out for external content and contentless tables
//! (a contentless one with `contentless_unindexed=1` keeps it when it has
//! UNINDEXED columns, with only those, still named `c<column number>`); `%_docsize`
//! is left out with `columnsize=0`.
//!
//! Invariant: [`SUFFIXES`] lists exactly the tables [`create`] makes
//! (checked: fts5_shadow_suffixes).

use super::config::{Config, Content};
use crate::connection::{Connection, StepResult};
use crate::error::{Error, Result};
use crate::value::Value;
use crate::vdbe::host::VmHost;

/// The shadow tables' name suffixes.
pub const SUFFIXES: [&str; 5] = ["data", "idx", "content", "docsize", "config"];

/// The connection a module method was lent.
pub fn conn(host: &mut dyn VmHost) -> Result<&mut Connection> {
    Connection::from_host(host).ok_or_else(|| Error::sql("fts5: no connection"))
}

/// A write's error as SQLite's fts5 reports it: a shadow table that
/// is missing (dropped by the application) is a damaged table
/// (SQLITE_CORRUPT), not an SQL error.
pub fn missing_is_corrupt(e: Error) -> Error {
    if e.code == crate::error::SQLITE_ERROR && e.message.starts_with("no such table: ") {
        Error::corrupt()
    } else {
        e
    }
}

/// Run `sql` to completion and return its rows.
pub fn rows(c: &mut Connection, sql: &str) -> Result<Vec<Vec<Value>>> {
    let mut out = Vec::new();
    let mut rest = sql.as_bytes();
    while !rest.is_empty() {
        let (st, used) = c.prepare_terminated(rest)?;
        rest = &rest[used.min(rest.len())..];
        let Some(mut st) = st else { break };
        loop {
            match st.step(c)? {
                StepResult::Row => out.push((0..st.column_count()).map(|i| st.column(i).clone()).collect()),
                StepResult::Done => break,
                StepResult::Io => return Err(Error::sql("fts5: unexpected I/O wait")),
            }
        }
    }
    Ok(out)
}

/// Create the shadow tables and their initial rows.
pub fn create(host: &mut dyn VmHost, cfg: &Config) -> Result<()> {
    let c = conn(host)?;
    let cols = super::locale::content_columns(cfg);
    let mut tables =
        vec![("data", "(id INTEGER PRIMARY KEY, block BLOB)".to_string()), ("idx", "(segid, term, pgno, PRIMARY KEY(segid, term)) WITHOUT ROWID".into())];
    if !cols.is_empty() {
        tables.push(("content", format!("(id INTEGER PRIMARY KEY{cols})")));
    }
    if cfg.contentless_delete {
        tables.push(("docsize", "(id INTEGER PRIMARY KEY, sz BLOB, origin INTEGER)".into()));
    } else if cfg.columnsize {
        tables.push(("docsize", "(id INTEGER PRIMARY KEY, sz BLOB)".into()));
    }
    tables.push(("config", "(k PRIMARY KEY, v) WITHOUT ROWID".into()));
    // invariant: fts5_shadow_suffixes
    debug_assert!(tables.iter().all(|(s, _)| SUFFIXES.contains(s)));
    for (suffix, body) in tables {
        rows(c, &format!("CREATE TABLE {}{body}", cfg.shadow(suffix)))
            .map_err(|e| Error::new(e.code, format!("fts5: error creating shadow table {}_{suffix}: {}", cfg.name, e.message)))?;
    }
    let structure = if cfg.contentless_delete { "00000000FF000001000000" } else { "00000000000000" };
    let sql = format!(
        "INSERT INTO {data}(id, block) VALUES(1, X'');\
         INSERT INTO {data}(id, block) VALUES(10, X'{structure}');\
         INSERT INTO {config}(k, v) VALUES('version', 4);",
        data = cfg.shadow("data"),
        config = cfg.shadow("config"),
    );
    rows(c, &sql)?;
    Ok(())
}

/// Drop the shadow tables (xDestroy).
pub fn destroy(host: &mut dyn VmHost, cfg: &Config) -> Result<()> {
    let c = conn(host)?;
    // SQLite leaves a contentless table's `%_content` (its UNINDEXED
    // values) behind; so does ringlite, to keep the schemas alike.
    let keep = if cfg.content == Content::Own { "" } else { "content" };
    let sql: String = SUFFIXES.iter().filter(|s| **s != keep).map(|s| format!("DROP TABLE IF EXISTS {};", cfg.shadow(s))).collect();
    rows(c, &sql)?;
    Ok(())
}
