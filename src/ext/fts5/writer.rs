//! # Writing rows: content, sizes, averages, and the pending log
//!
//! INSERT, UPDATE and DELETE change `%_content`, `%_docsize` and the
//! averages record at once, and log the tokens each change adds or
//! removes in the table's [`Pending`] log; the index itself is written
//! when the transaction commits (`index::flush`), as SQLite does. A
//! deleted row's tokens come from its stored values. 'rebuild' empties
//! the index and re-adds every row of the content as one segment.
//!
//! Invariant: after each call, `%_docsize` has one row per content row
//! and the averages record sums them; the index plus the unflushed part
//! of the log describe exactly the content.

use super::config::Config;
use super::index::{self, averages, exec, set_averages};
use super::pending::{Op, Pending};
use super::shadow::{conn, rows};
use super::table::value_tokens;
use crate::connection::Connection;
use crate::error::{Error, Result, SQLITE_CONSTRAINT};
use crate::value::Value;
use crate::vdbe::host::VmHost;
use crate::vtab::{ConflictMode, ON_CONFLICT_IGNORE, ON_CONFLICT_REPLACE};

/// A change to the content.
pub enum Change {
    /// Insert a row (rowid None: the next free one), with the statement's
    /// conflict mode (OR IGNORE / OR REPLACE on an existing rowid).
    Insert(Option<i64>, Vec<Value>, ConflictMode),
    /// Replace row `old` by row `new`.
    Update(i64, i64, Vec<Value>),
    /// Delete a row.
    Delete(i64),
}

/// Tokens per column of `vals` (none for UNINDEXED columns).
pub fn tokens(cfg: &Config, vals: &[Value]) -> Vec<Vec<String>> {
    vals.iter()
        .zip(&cfg.unindexed)
        .map(|(v, un)| if *un { Vec::new() } else { value_tokens(&cfg.tokenizer, v).into_iter().map(|t| t.text).collect() })
        .collect()
}

fn cols(cfg: &Config) -> String {
    (0..cfg.columns.len()).map(|i| format!(", c{i}")).collect()
}

fn stored(c: &mut Connection, cfg: &Config, id: i64) -> Result<Option<Vec<Value>>> {
    let r = rows(c, &format!("SELECT 0{} FROM {} WHERE id = {id}", cols(cfg), cfg.shadow("content")))?;
    Ok(r.into_iter().next().map(|r| r[1..].to_vec()))
}

/// Adjust the averages record by one row of `toks`, added or removed.
fn account(c: &mut Connection, cfg: &Config, toks: &[Vec<String>], sign: i64) -> Result<()> {
    let (mut n, mut totals) = averages(c, cfg)?;
    n += sign;
    for (t, x) in totals.iter_mut().zip(toks) {
        *t += sign * x.len() as i64;
    }
    set_averages(c, cfg, n, &totals)
}

fn insert(c: &mut Connection, cfg: &Config, p: &mut Pending, id: Option<i64>, vals: Vec<Value>) -> Result<i64> {
    let id = match id {
        Some(i) => i,
        None => match rows(c, &format!("SELECT max(id) FROM {}", cfg.shadow("content")))?.first().map(|r| r[0].clone()) {
            Some(Value::Integer(m)) if m == i64::MAX => return Err(Error::unsupported("choosing an fts5 rowid after the largest")),
            Some(Value::Integer(m)) => m + 1,
            _ => 1,
        },
    };
    if stored(c, cfg, id)?.is_some() {
        return Err(Error::new(SQLITE_CONSTRAINT, "constraint failed"));
    }
    let toks = tokens(cfg, &vals);
    let marks: String = (0..vals.len()).map(|_| ", ?").collect();
    let mut params = vec![Value::Integer(id)];
    params.extend(vals);
    exec(c, &format!("INSERT INTO {}(id{}) VALUES(?{marks})", cfg.shadow("content"), cols(cfg)), &params)?;
    let mut sz = Vec::new();
    for t in &toks {
        super::codec::put(&mut sz, t.len() as u64);
    }
    exec(c, &format!("INSERT INTO {}(id, sz) VALUES(?, ?)", cfg.shadow("docsize")), &[Value::Integer(id), Value::Blob(sz)])?;
    account(c, cfg, &toks, 1)?;
    p.ops.push(Op { rowid: id, delete: false, tokens: toks });
    Ok(id)
}

fn delete(c: &mut Connection, cfg: &Config, p: &mut Pending, id: i64) -> Result<()> {
    let Some(vals) = stored(c, cfg, id)? else { return Ok(()) };
    let toks = tokens(cfg, &vals);
    exec(c, &format!("DELETE FROM {} WHERE id = {id}", cfg.shadow("content")), &[])?;
    exec(c, &format!("DELETE FROM {} WHERE id = {id}", cfg.shadow("docsize")), &[])?;
    account(c, cfg, &toks, -1)?;
    p.ops.push(Op { rowid: id, delete: true, tokens: toks });
    Ok(())
}

/// Apply `change`; returns the rowid of an inserted row.
pub fn apply(host: &mut dyn VmHost, cfg: &Config, p: &mut Pending, change: Change) -> Result<Option<i64>> {
    let c = conn(host)?;
    match change {
        Change::Insert(Some(id), vals, mode) if mode == ON_CONFLICT_IGNORE || mode == ON_CONFLICT_REPLACE => {
            if stored(c, cfg, id)?.is_some() {
                if mode == ON_CONFLICT_IGNORE {
                    return Ok(None);
                }
                delete(c, cfg, p, id)?;
            }
            insert(c, cfg, p, Some(id), vals).map(Some)
        }
        Change::Insert(id, vals, _) => insert(c, cfg, p, id, vals).map(Some),
        Change::Delete(id) => delete(c, cfg, p, id).map(|_| None),
        Change::Update(old, new, vals) => {
            if new != old && stored(c, cfg, new)?.is_some() {
                return Err(Error::new(SQLITE_CONSTRAINT, "constraint failed"));
            }
            delete(c, cfg, p, old)?;
            insert(c, cfg, p, Some(new), vals).map(Some)
        }
    }
}

/// 'rebuild': the index, sizes and averages made again from the content.
pub fn rebuild(host: &mut dyn VmHost, cfg: &Config, p: &mut Pending) -> Result<()> {
    let c = conn(host)?;
    index::flush(c, cfg, p)?;
    index::clear(c, cfg)?;
    exec(c, &format!("DELETE FROM {}", cfg.shadow("docsize")), &[])?;
    let mut totals = vec![0i64; cfg.columns.len()];
    let mut n = 0;
    for r in rows(c, &format!("SELECT id{} FROM {} ORDER BY id", cols(cfg), cfg.shadow("content")))? {
        let Value::Integer(id) = r[0] else { return Err(Error::corrupt()) };
        let toks = tokens(cfg, &r[1..]);
        let mut sz = Vec::new();
        for (t, x) in totals.iter_mut().zip(&toks) {
            *t += x.len() as i64;
            super::codec::put(&mut sz, x.len() as u64);
        }
        n += 1;
        exec(c, &format!("INSERT INTO {}(id, sz) VALUES(?, ?)", cfg.shadow("docsize")), &[Value::Integer(id), Value::Blob(sz)])?;
        p.ops.push(Op { rowid: id, delete: false, tokens: toks });
    }
    set_averages(c, cfg, n, &totals)?;
    index::flush(c, cfg, p)
}
