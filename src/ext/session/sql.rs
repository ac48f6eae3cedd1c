//! # Running SQL for the session extension
//!
//! The extension reads and writes tables with ordinary SQL on the
//! connection (as SQLite's does): table shapes from `PRAGMA table_info`,
//! current rows by key, and the statements `apply` runs. Statements run
//! to completion here, waiting for I/O on an async connection.

use crate::connection::{Connection, StepResult};
use crate::error::Result;
use crate::util::ascii::AsciiLower;
use crate::value::Value;

/// Quote an identifier for SQL.
pub fn ident(name: &str) -> String {
    // (The implicit key of a table without one is the rowid itself.)
    if name == "_rowid_" {
        return name.to_string();
    }
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// Run one statement with `params` and return its rows.
pub fn query(conn: &mut Connection, sql: &str, params: &[Value]) -> Result<Vec<Vec<Value>>> {
    let (st, _) = conn.prepare_terminated(sql.as_bytes())?;
    let Some(mut st) = st else {
        return Ok(Vec::new());
    };
    st.without_quantum();
    for (i, p) in params.iter().enumerate() {
        st.bind(i + 1, p.clone())?;
    }
    let mut rows = Vec::new();
    let outcome = loop {
        match st.step(conn) {
            Ok(StepResult::Row) => rows.push((0..st.column_count()).map(|i| st.column(i).clone()).collect()),
            Ok(StepResult::Done) => break Ok(()),
            Ok(StepResult::Io) => {
                if let Err(e) = conn.io().wait_any() {
                    break Err(e);
                }
            }
            Err(e) => break Err(e),
        }
    };
    st.reset(conn);
    outcome.map(|()| rows)
}

/// Run statements that return no rows we need.
pub fn exec(conn: &mut Connection, sql: &str) -> Result<()> {
    query(conn, sql, &[]).map(|_| ())
}

/// A table's shape in database `db`: (column names, per column its
/// 1-based position in the PRIMARY KEY or 0). `None` when there is no
/// such table.
pub fn table_shape(conn: &mut Connection, db: &str, table: &str) -> Result<Option<(Vec<String>, Vec<u8>)>> {
    let rows = query(conn, &format!("PRAGMA {}.table_info({})", ident(db), ident(table)), &[])?;
    if rows.is_empty() {
        return Ok(None);
    }
    let mut names = Vec::new();
    let mut pk = Vec::new();
    for r in rows {
        names.push(match &r[1] {
            Value::Text(t) => String::from_utf8_lossy(t).into_owned(),
            _ => String::new(),
        });
        pk.push(match r[5] {
            Value::Integer(i) => u8::try_from(i).unwrap_or(0),
            _ => 0,
        });
    }
    Ok(Some((names, pk)))
}

/// Per column of `table`, whether it has REAL affinity: the values the
/// pre-update hook reads from a record are made REAL there, as SQLite's
/// hook reports them (an integral REAL is stored as an integer).
pub fn real_columns(conn: &mut Connection, db: &str, table: &str) -> Result<Vec<bool>> {
    use crate::value::affinity::Affinity;
    let rows = query(conn, &format!("PRAGMA {}.table_info({})", ident(db), ident(table)), &[])?;
    Ok(rows
        .iter()
        .map(|r| match &r[2] {
            Value::Text(t) => Affinity::from_decltype(&String::from_utf8_lossy(t)) == Affinity::Real,
            _ => false,
        })
        .collect())
}

/// Per column of `table`, its DEFAULT's value (what rows written before
/// the column was added hold), NULL when it has none.
pub fn column_defaults(conn: &mut Connection, db: &str, table: &str) -> Result<Vec<Value>> {
    let rows = query(conn, &format!("PRAGMA {}.table_info({})", ident(db), ident(table)), &[])?;
    let mut out = Vec::new();
    for r in rows {
        out.push(match &r[4] {
            Value::Text(t) => query(conn, &format!("SELECT {}", String::from_utf8_lossy(t)), &[])?
                .into_iter()
                .next()
                .and_then(|r| r.into_iter().next())
                .unwrap_or(Value::Null),
            _ => Value::Null,
        });
    }
    Ok(out)
}

/// Whether `table` is `sqlite_stat1`, which the session extension treats
/// as keyed by (tbl, idx), storing a NULL idx as X''.
pub fn is_stat1(table: &str) -> bool {
    table.eq_ci("sqlite_stat1")
}

/// `table_shape`, with `sqlite_stat1`'s implicit key.
pub fn session_shape(conn: &mut Connection, db: &str, table: &str) -> Result<Option<(Vec<String>, Vec<u8>)>> {
    let mut shape = table_shape(conn, db, table)?;
    if let Some((names, pk)) = shape.as_mut() {
        if is_stat1(table) && names.len() == 3 {
            *pk = vec![1, 2, 0];
        }
    }
    Ok(shape)
}

/// The row of `table` whose key columns equal `key` (in column order of
/// the key columns), all columns, if there is one.
pub fn row_by_key(conn: &mut Connection, db: &str, table: &str, names: &[String], pk: &[u8], key: &[Value]) -> Result<Option<Vec<Value>>> {
    let cols: Vec<String> = names.iter().map(|n| ident(n)).collect();
    let cond: Vec<String> = (0..names.len()).filter(|i| pk[*i] != 0).enumerate().map(|(k, i)| format!("{} IS ?{}", cols[i], k + 1)).collect();
    let sql = format!("SELECT {} FROM {}.{} WHERE {}", cols.join(", "), ident(db), ident(table), cond.join(" AND "));
    if !is_stat1(table) {
        return Ok(query(conn, &sql, key)?.into_iter().next());
    }
    let key: Vec<Value> = key.iter().map(|v| if matches!(v, Value::Blob(b) if b.is_empty()) { Value::Null } else { v.clone() }).collect();
    Ok(query(conn, &sql, &key)?.into_iter().next().map(stat1_row))
}

/// A `sqlite_stat1` row as the session extension stores it (NULL idx
/// as X'').
pub fn stat1_row(mut row: Vec<Value>) -> Vec<Value> {
    if let Some(v @ Value::Null) = row.get_mut(1) {
        *v = Value::Blob(Vec::new());
    }
    row
}
