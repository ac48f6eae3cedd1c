//! # Writing rows: content, sizes, averages, and the pending changes
//!
//! INSERT, UPDATE and DELETE change `%_content` and `%_docsize` at once,
//! the averages held in the table's [`Pending`] changes, and add the
//! tokens each change adds or removes to its hash; the index itself is
//! written when the transaction commits or a savepoint starts
//! (`index::persist`), as SQLite does. A deleted row's tokens come from
//! its stored values. 'rebuild' empties
//! the index and re-adds every row of the content as one segment.
//!
//! External content and contentless tables (`content=`) keep no copy of
//! the values: an insert writes the index, sizes and averages only; a
//! delete of an external content row reads its old values from the
//! content table, and the 'delete' command is given them; contentless
//! tables refuse UPDATE and DELETE, as SQLite does, unless created with
//! `contentless_delete=1`: then a delete adds the row to the tombstones
//! of the segment its `%_docsize` origin names (`tombstone.rs`), and
//! the pending rows are flushed whenever the next row cannot join their
//! run, so that each row's origin is known when it is written. Neither checks for an
//! existing rowid (SQLite does not; `%_docsize` is replaced).
//!
//! Invariant: after each call, `%_docsize` (unless `columnsize=0`) has
//! one row per indexed row and the averages (as held pending, else as
//! stored) sum them; the index plus the pending changes describe
//! exactly the rows given.

use super::config::{Config, Content};
use super::index::{self, exec, set_averages};
use super::locale;
use super::pending::{Pending, RowTokens, Totals};
use super::shadow::{conn, rows};
use crate::connection::Connection;
use crate::error::{Error, Result, SQLITE_CONSTRAINT, SQLITE_MISMATCH};
use crate::value::Value;
use crate::vdbe::host::VmHost;
use crate::vdbe::vtab::{ConflictMode, ON_CONFLICT_IGNORE, ON_CONFLICT_REPLACE};

/// A change to the content.
pub enum Change {
    /// Insert a row (rowid None: the next free one), with the statement's
    /// conflict mode (OR IGNORE / OR REPLACE on an existing rowid).
    Insert(Option<i64>, Vec<Value>, ConflictMode),
    /// Replace row `old` by row `new`; which columns the statement left
    /// unchanged (`sqlite3_value_nochange`), its conflict mode.
    Update(i64, i64, Vec<Value>, Vec<bool>, ConflictMode),
    /// Delete a row.
    Delete(i64),
}

fn cols(cfg: &Config) -> String {
    locale::content_columns(cfg)
}

/// The column list of the external content table, for a SELECT.
pub fn external_cols(cfg: &Config) -> String {
    cfg.columns.iter().map(|n| format!(", \"{}\"", n.replace('"', "\"\""))).collect()
}

/// The values of row `id`: from `%_content`, or the external content
/// table; None when it has no such row (or the table keeps no values).
pub fn stored(c: &mut Connection, cfg: &Config, id: i64) -> Result<Option<Vec<Value>>> {
    let sql = match (&cfg.content, cfg.external()) {
        (_, Some((table, rowid))) => format!("SELECT 0{} FROM {table} WHERE {rowid} = ?", external_cols(cfg)),
        (Content::Own, _) => format!("SELECT 0{} FROM {} WHERE id = ?", cols(cfg), cfg.shadow("content")),
        _ => return Ok(None),
    };
    let own = cfg.content == Content::Own;
    Ok(cfg
        .stmts
        .rows(c, &sql, &[Value::Integer(id)])?
        .into_iter()
        .next()
        .map(|r| if own { locale::from_content(cfg, r[1..].to_vec()) } else { r[1..].to_vec() }))
}

/// The UNINDEXED values a `contentless_unindexed=1` table keeps for
/// row `id`, in column order.
pub fn stored_unindexed(c: &mut Connection, cfg: &Config, id: i64) -> Result<Option<Vec<Value>>> {
    let r = rows(c, &format!("SELECT 0{} FROM {} WHERE id = {id}", cols(cfg), cfg.shadow("content")))?;
    Ok(r.into_iter().next().map(|r| locale::from_content(cfg, r[1..].to_vec())))
}

/// The next rowid for an insert without one: after the largest in
/// `%_content`, or in `%_docsize` for tables without their own content.
fn next_rowid(c: &mut Connection, cfg: &Config) -> Result<i64> {
    let table = match cfg.content {
        Content::Own => cfg.shadow("content"),
        _ if cfg.columnsize => cfg.shadow("docsize"),
        // No table holds the rowids: SQLite refuses as a type mismatch.
        _ => return Err(Error::new(SQLITE_MISMATCH, "datatype mismatch")),
    };
    match cfg.stmts.rows(c, &format!("SELECT max(id) FROM {table}"), &[])?.first().map(|r| r[0].clone()) {
        Some(Value::Integer(m)) if m == i64::MAX => Err(Error::unsupported("choosing an fts5 rowid after the largest")),
        Some(Value::Integer(m)) => Ok(m + 1),
        _ => Ok(1),
    }
}

/// The averages as the transaction's writes leave them (read from
/// `%_data` by the first write).
fn totals<'a>(c: &mut Connection, cfg: &Config, p: &'a mut Pending) -> Result<&'a mut Totals> {
    let t = match p.totals.take() {
        Some(t) => t,
        None => index::averages(c, cfg)?,
    };
    Ok(p.totals.insert(t))
}

/// Adjust the averages by one row of column sizes `sizes`, added or
/// removed.
fn account(c: &mut Connection, cfg: &Config, p: &mut Pending, sizes: &[u64], sign: i64) -> Result<()> {
    let (n, totals) = totals(c, cfg, p)?;
    *n += sign;
    for (t, x) in totals.iter_mut().zip(sizes) {
        *t += sign * *x as i64;
    }
    Ok(())
}

/// The tokens of `vals`, in the pending changes' reused buffers (give
/// them back with `p.scratch = ...`).
fn row_tokens(cfg: &Config, p: &mut Pending, vals: &[Value]) -> Result<RowTokens> {
    let mut toks = std::mem::take(&mut p.scratch);
    toks.fill(cfg, vals)?;
    Ok(toks)
}

fn insert(c: &mut Connection, cfg: &Config, p: &mut Pending, id: Option<i64>, vals: Vec<Value>) -> Result<i64> {
    let own = cfg.content == Content::Own;
    let id = match id {
        Some(i) => i,
        None => next_rowid(c, cfg)?,
    };
    let toks = row_tokens(cfg, p, &vals)?;
    let kept = cfg.stored_columns();
    if !kept.is_empty() {
        let mut params = vec![Value::Integer(id)];
        params.extend(locale::to_content(cfg, &vals));
        let marks: String = params[1..].iter().map(|_| ", ?").collect();
        let verb = if own { "INSERT" } else { "REPLACE" };
        // (An existing row is found by the `%_content` insert itself, as
        // in SQLite's module, not by a lookup first: its conflict is the
        // module's plain "constraint failed"; nothing was written yet.)
        match cfg.stmts.exec(c, &format!("{verb} INTO {}(id{}) VALUES(?{marks})", cfg.shadow("content"), cols(cfg)), &params) {
            Err(e) if own && e.code & 0xff == SQLITE_CONSTRAINT => return Err(Error::new(SQLITE_CONSTRAINT, "constraint failed")),
            r => r?,
        }
    }
    begin_write(c, cfg, p, id, false)?;
    if cfg.columnsize {
        let mut sz = Vec::new();
        for &n in &toks.sizes {
            super::codec::put(&mut sz, n);
        }
        let verb = if own { "INSERT" } else { "REPLACE" };
        if cfg.contentless_delete {
            // The origin the row's segment will have once flushed.
            let origin = index::load(c, cfg)?.next_origin() as i64;
            exec(
                c,
                &format!("REPLACE INTO {}(id, sz, origin) VALUES(?, ?, ?)", cfg.shadow("docsize")),
                &[Value::Integer(id), Value::Blob(sz), Value::Integer(origin)],
            )?;
        } else {
            cfg.stmts.exec(c, &format!("{verb} INTO {}(id, sz) VALUES(?, ?)", cfg.shadow("docsize")), &[Value::Integer(id), Value::Blob(sz)])?;
        }
    }
    account(c, cfg, p, &toks.sizes, 1)?;
    p.add(cfg, id, false, &toks);
    p.scratch = toks;
    Ok(id)
}

fn delete(c: &mut Connection, cfg: &Config, p: &mut Pending, id: i64) -> Result<()> {
    let Some(vals) = stored(c, cfg, id)? else { return Ok(()) };
    forget(c, cfg, p, id, &vals)
}

/// An UPDATE of a table with content: row `old` deleted, then `vals`
/// inserted as row `new`, where the columns the statement left unchanged
/// (`sqlite3_value_nochange`: the cursor did not read them) take the old
/// row's values, as SQLite's saved row gives them.
fn replace_row(c: &mut Connection, cfg: &Config, p: &mut Pending, old: i64, new: i64, mut vals: Vec<Value>, unchanged: &[bool]) -> Result<Option<i64>> {
    let saved = stored(c, cfg, old)?;
    if let Some(prev) = &saved {
        forget(c, cfg, p, old, prev)?;
    }
    for (i, v) in vals.iter_mut().enumerate() {
        if unchanged.get(i).copied().unwrap_or(false) {
            *v = saved.as_ref().and_then(|s| s.get(i).cloned()).unwrap_or(Value::Null);
        }
    }
    insert(c, cfg, p, Some(new), vals).map(Some)
}

/// Remove row `id`, whose values were `vals`, from the index, sizes and
/// averages (and `%_content`).
fn forget(c: &mut Connection, cfg: &Config, p: &mut Pending, id: i64, vals: &[Value]) -> Result<()> {
    begin_write(c, cfg, p, id, false)?;
    let toks = row_tokens(cfg, p, vals)?;
    if !cfg.stored_columns().is_empty() {
        exec(c, &format!("DELETE FROM {} WHERE id = {id}", cfg.shadow("content")), &[])?;
    }
    if cfg.columnsize {
        exec(c, &format!("DELETE FROM {} WHERE id = {id}", cfg.shadow("docsize")), &[])?;
    }
    account(c, cfg, p, &toks.sizes, -1)?;
    p.add(cfg, id, true, &toks);
    p.scratch = toks;
    Ok(())
}

/// Before a write of row `rowid`: the pending rows are flushed, as
/// SQLite flushes its hash, when this row cannot join their run (a
/// lower rowid, or the same one again after an insert) or when they
/// passed `hashsize` (SQLite's estimate, `Pending::bytes`). So a
/// `contentless_delete=1` row's segment, and with it its origin, is
/// known before any later delete needs it, and a long transaction
/// writes segments as it goes. `tombstone`: log a `contentless_delete=1`
/// delete (without tokens: it writes a tombstone, no index entries) for
/// the run rule.
fn begin_write(c: &mut Connection, cfg: &Config, p: &mut Pending, rowid: i64, tombstone: bool) -> Result<()> {
    if let Some((last, deleted)) = p.last {
        let hashsize = match p.hashsize {
            Some(h) => h,
            None => {
                let h = index::settings(c, cfg)?.hashsize;
                p.hashsize = Some(h);
                h
            }
        };
        if rowid < last || (rowid == last && !deleted) || p.bytes > hashsize {
            index::flush(c, cfg, p)?;
        }
    }
    if tombstone {
        p.tombstone(rowid);
    }
    Ok(())
}

/// Delete row `id` of a `contentless_delete=1` table: its sizes leave
/// the averages, a tombstone goes to the segment of its `%_docsize`
/// origin, its `%_docsize` and kept UNINDEXED values go.
fn contentless_delete(c: &mut Connection, cfg: &Config, p: &mut Pending, id: i64) -> Result<()> {
    begin_write(c, cfg, p, id, true)?;
    let found = rows(c, &format!("SELECT sz, origin FROM {} WHERE id = {id}", cfg.shadow("docsize")))?.into_iter().next();
    if let Some(r) = found {
        let (n, totals) = totals(c, cfg, p)?;
        let sz = match &r[0] {
            Value::Blob(b) => b.clone(),
            _ => Vec::new(),
        };
        let mut i = 0;
        for t in totals.iter_mut() {
            if i >= sz.len() {
                return Err(Error::new(crate::error::SQLITE_CORRUPT_VTAB, "database disk image is malformed"));
            }
            let (v, j) = super::codec::get(&sz, i)?;
            *t -= v as i64;
            i = j;
        }
        let origin = r[1].as_ref().to_i64();
        if origin != 0 {
            *n -= 1;
            index::contentless_delete(c, cfg, p, origin as u64, id)?;
        }
    }
    exec(c, &format!("DELETE FROM {} WHERE id = {id}", cfg.shadow("docsize")), &[])?;
    if !cfg.stored_columns().is_empty() {
        exec(c, &format!("DELETE FROM {} WHERE id = {id}", cfg.shadow("content")), &[])?;
    }
    Ok(())
}

/// A change to a contentless table, with SQLite's rules: DELETE and
/// UPDATE need `contentless_delete=1`; an UPDATE must then give every
/// indexed column, unless it changes only UNINDEXED ones (kept values
/// rewritten, nothing else); INSERT OR REPLACE deletes the row first.
fn contentless(c: &mut Connection, cfg: &Config, p: &mut Pending, change: Change) -> Result<Option<i64>> {
    match change {
        Change::Delete(_) if !cfg.contentless_delete => Err(Error::sql(format!("cannot DELETE from contentless fts5 table: {}", cfg.name))),
        Change::Delete(id) => contentless_delete(c, cfg, p, id).map(|_| None),
        Change::Insert(Some(id), vals, mode) if cfg.contentless_delete && mode == ON_CONFLICT_REPLACE => {
            contentless_delete(c, cfg, p, id)?;
            insert(c, cfg, p, Some(id), vals).map(Some)
        }
        Change::Insert(id, vals, _) => insert(c, cfg, p, id, vals).map(Some),
        Change::Update(old, new, mut vals, unchanged, mode) => {
            // Which indexed columns the statement leaves
            // (`sqlite3_value_nochange`); one it sets to NULL is given.
            let indexed = (0..cfg.columns.len()).filter(|&i| !cfg.unindexed[i]);
            let (kept, given): (Vec<usize>, Vec<usize>) = indexed.partition(|&i| unchanged.get(i).copied().unwrap_or(false));
            let kept_cols = cfg.stored_columns();
            // UNINDEXED values the statement leaves come from the old row.
            if !kept_cols.is_empty() {
                if let Some(old_vals) = stored_unindexed(c, cfg, old)? {
                    for (&i, v) in kept_cols.iter().zip(old_vals) {
                        if unchanged.get(i).copied().unwrap_or(false) {
                            vals[i] = v;
                        }
                    }
                }
            }
            if given.is_empty() && old == new {
                if !kept_cols.is_empty() {
                    let mut params = vec![Value::Integer(old)];
                    params.extend(locale::to_content(cfg, &vals));
                    let marks: String = params[1..].iter().map(|_| ", ?").collect();
                    exec(c, &format!("REPLACE INTO {}(id{}) VALUES(?{marks})", cfg.shadow("content"), cols(cfg)), &params)?;
                }
                return Ok(Some(old));
            }
            if !kept.is_empty() || !cfg.contentless_delete {
                return Err(Error::sql(if cfg.contentless_delete {
                    format!("cannot UPDATE a subset of columns on fts5 contentless-delete table: {}", cfg.name)
                } else {
                    format!("cannot UPDATE contentless fts5 table: {}", cfg.name)
                }));
            }
            contentless_delete(c, cfg, p, old)?;
            if old != new && mode == ON_CONFLICT_REPLACE {
                contentless_delete(c, cfg, p, new)?;
            }
            insert(c, cfg, p, Some(new), vals).map(Some)
        }
    }
}

/// Apply `change`; returns the rowid of an inserted row.
pub fn apply(host: &mut dyn VmHost, cfg: &Config, p: &mut Pending, change: Change) -> Result<Option<i64>> {
    let c = conn(host)?;
    if let Change::Insert(_, vals, _) | Change::Update(_, _, vals, _, _) = &change {
        locale::check(cfg, vals)?;
    }
    if cfg.content == Content::None {
        return contentless(c, cfg, p, change);
    }
    if cfg.content != Content::Own {
        // No rowid conflicts are detected: REPLACE and IGNORE are plain
        // inserts, and an UPDATE re-indexes the row as given.
        return match change {
            Change::Insert(id, vals, _) => insert(c, cfg, p, id, vals).map(Some),
            Change::Delete(id) => delete(c, cfg, p, id).map(|_| None),
            Change::Update(old, new, vals, unchanged, _) => replace_row(c, cfg, p, old, new, vals, &unchanged),
        };
    }
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
        Change::Update(old, new, vals, unchanged, mode) => {
            if new != old && stored(c, cfg, new)?.is_some() {
                // (OR REPLACE: the row holding the new rowid goes first,
                // as in SQLite.)
                if mode != ON_CONFLICT_REPLACE {
                    return Err(Error::new(SQLITE_CONSTRAINT, "constraint failed"));
                }
                delete(c, cfg, p, new)?;
            }
            replace_row(c, cfg, p, old, new, vals, &unchanged)
        }
    }
}

/// The 'delete' command: remove row `id` whose values were `vals`
/// (external content and contentless tables only).
pub fn delete_command(host: &mut dyn VmHost, cfg: &Config, p: &mut Pending, id: i64, vals: &[Value]) -> Result<()> {
    forget(conn(host)?, cfg, p, id, vals)
}

/// 'delete-all': an empty index, no sizes, an empty averages record.
pub fn delete_all(host: &mut dyn VmHost, cfg: &Config, p: &mut Pending) -> Result<()> {
    let c = conn(host)?;
    // What is pending describes rows that are gone now.
    p.drop_run();
    p.totals = None;
    index::clear(c, cfg)?;
    if cfg.columnsize {
        exec(c, &format!("DELETE FROM {}", cfg.shadow("docsize")), &[])?;
    }
    if !cfg.stored_columns().is_empty() {
        exec(c, &format!("DELETE FROM {}", cfg.shadow("content")), &[])?;
    }
    exec(c, &format!("REPLACE INTO {}(id, block) VALUES(1, X'')", cfg.shadow("data")), &[])
}

/// Every row of the content (own or external), in rowid order: rowid
/// then the column values.
pub fn all_content(c: &mut Connection, cfg: &Config) -> Result<Vec<Vec<Value>>> {
    let sql = match cfg.external() {
        Some((table, rowid)) => format!("SELECT {rowid}{} FROM {table} ORDER BY {rowid}", external_cols(cfg)),
        None => format!("SELECT id{} FROM {} ORDER BY id", cols(cfg), cfg.shadow("content")),
    };
    let mut all = rows(c, &sql)?;
    if cfg.external().is_none() {
        for r in &mut all {
            let vals = locale::from_content(cfg, r.split_off(1));
            r.extend(vals);
        }
    }
    Ok(all)
}

/// 'rebuild': the index, sizes and averages made again from the content.
pub fn rebuild(host: &mut dyn VmHost, cfg: &Config, p: &mut Pending) -> Result<()> {
    if cfg.content == Content::None {
        return Err(Error::sql("'rebuild' may not be used with a contentless fts5 table"));
    }
    let c = conn(host)?;
    index::flush(c, cfg, p)?;
    index::clear(c, cfg)?;
    if cfg.columnsize {
        exec(c, &format!("DELETE FROM {}", cfg.shadow("docsize")), &[])?;
    }
    let mut totals = vec![0i64; cfg.columns.len()];
    let mut n = 0;
    let mut toks = RowTokens::default();
    for r in all_content(c, cfg)? {
        let Value::Integer(id) = r[0] else { return Err(Error::corrupt()) };
        toks.fill(cfg, &r[1..])?;
        let mut sz = Vec::new();
        for (t, &x) in totals.iter_mut().zip(&toks.sizes) {
            *t += x as i64;
            super::codec::put(&mut sz, x);
        }
        n += 1;
        if cfg.columnsize {
            exec(c, &format!("INSERT INTO {}(id, sz) VALUES(?, ?)", cfg.shadow("docsize")), &[Value::Integer(id), Value::Blob(sz)])?;
        }
        begin_write(c, cfg, p, id, false)?;
        p.add(cfg, id, false, &toks);
    }
    // (The averages are made again: what the transaction held goes.)
    p.totals = None;
    set_averages(c, cfg, n, &totals)?;
    index::flush(c, cfg, p)?;
    // The rebuilt index has no entries cut out by 'secure-delete': its
    // format is version 4 again (as SQLite writes it).
    exec(c, &format!("REPLACE INTO {}(k, v) VALUES('version', 4)", cfg.shadow("config")), &[])
}
