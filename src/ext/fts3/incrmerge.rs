//! # Merges asked for by the application: `merge=X,Y` and `automerge=N`
//!
//! `INSERT INTO t(t) VALUES('merge=X,Y')` merges, level by level, the
//! segments of a level holding at least `Y` (default 8, at least 2) of
//! them into one new segment on the next level, the lowest relative level
//! first (then the fullest), until about `X` blocks were written (fts3.txt
//! 7.4). `automerge=N` stores `N` in `%_stat` row 2 (1 and values above
//! 16 mean 8), and a transaction whose pending terms wrote more than 4
//! leaves then runs such a merge with `Y = N` at its commit (7.5).
//!
//! The merged segment is laid out as SQLite's incremental merge lays it:
//! leaves from the next free blockid, the nodes of height `h` from
//! `h * E` blockids further (`E` twice the input segments' leaves), an
//! empty marker block at the end of the reserved range (its blockid is
//! the first number of `end_block`), and a root that is always an
//! interior node. SQLite may stop a merge halfway when `X` runs out and
//! record where in `%_stat` row 1 (pairs of varints: level, segments);
//! ringlite always finishes the level it starts, taking over a level such
//! a record names and dropping the record once the level is merged. The
//! files stay readable by both: a half-done merge is a set of ordinary
//! segments whose terms do not overlap.
//!
//! Invariant: a merge keeps deletion markers while a higher level exists
//! in the language (any of its indexes, as SQLite decides it here), and
//! only then (checked: fts3_merge_markers).

use super::config::Config;
use super::segments::{self, corrupt};
use super::shadow::{exec, query, table};
use super::varint;
use crate::connection::Connection;
use crate::error::{Error, Result};
use crate::value::Value;

/// Blockids SQLite reserves per height for an incremental merge's output.
const APPENDABLE_HEIGHT: i64 = 16;

/// The default `Y` of `merge=X` (half the segments that force a merge).
const DEFAULT_MIN: i64 = segments::MERGE_COUNT / 2;

/// Read decimal digits at the start of `s` as SQLite's FTS3 reads a
/// number: stopping at the first non-digit or before the value would
/// pass `i32::MAX`; returns the value and the rest.
fn get_int(s: &[u8]) -> (i64, &[u8]) {
    let mut v: i64 = 0;
    let mut i = 0;
    while i < s.len() && s[i].is_ascii_digit() {
        let d = i64::from(s[i] - b'0');
        if v > (i64::from(i32::MAX) - d) / 10 {
            break;
        }
        v = v * 10 + d;
        i += 1;
    }
    (v, &s[i..])
}

/// The `X` and `Y` of `merge=X,Y` (`arg` is what follows `merge=`);
/// `None` when malformed or `Y` is below 2.
pub fn parse_merge(arg: &[u8]) -> Option<(i64, i64)> {
    let (x, mut rest) = get_int(arg);
    let mut min = DEFAULT_MIN;
    if rest.len() > 1 && rest[0] == b',' {
        let (y, r) = get_int(&rest[1..]);
        min = y;
        rest = r;
    }
    (rest.is_empty() && min >= 2).then_some((x, min))
}

/// The value `automerge=N` stores (`arg` is what follows `automerge=`).
pub fn parse_automerge(arg: &[u8]) -> i64 {
    match get_int(arg).0 {
        1 => DEFAULT_MIN,
        n if n > segments::MERGE_COUNT => DEFAULT_MIN,
        n => n,
    }
}

/// Create `%_stat` when the table has none (an fts3 table), as the merge
/// commands do.
fn ensure_stat(c: &mut Connection, cfg: &Config) -> Result<()> {
    exec(c, &format!("CREATE TABLE IF NOT EXISTS {}(id INTEGER PRIMARY KEY, value BLOB)", table(&cfg.db, &cfg.name, "stat")), &[])
}

/// `automerge=N`: store the setting.
pub fn set_automerge(c: &mut Connection, cfg: &Config, arg: &[u8]) -> Result<()> {
    let n = parse_automerge(arg);
    ensure_stat(c, cfg)?;
    exec(c, &format!("REPLACE INTO {} VALUES(2, ?)", table(&cfg.db, &cfg.name, "stat")), &[Value::Integer(n)])
}

/// The stored `automerge` setting (0 when none or no `%_stat`).
pub fn automerge(c: &mut Connection, cfg: &Config) -> Result<i64> {
    let exists = query(
        c,
        &format!("SELECT 1 FROM {}.sqlite_master WHERE type = 'table' AND name = ?", super::config::ident(&cfg.db)),
        &[Value::text(format!("{}_stat", cfg.name))],
    )?;
    if exists.is_empty() {
        return Ok(0);
    }
    let rows = query(c, &format!("SELECT value FROM {} WHERE id = 2", table(&cfg.db, &cfg.name, "stat")), &[])?;
    Ok(rows.first().map_or(0, |r| r[0].as_ref().to_i64()))
}

/// `merge=X,Y`.
pub fn merge_command(c: &mut Connection, cfg: &Config, arg: &[u8]) -> Result<()> {
    let (x, y) = parse_merge(arg).ok_or_else(|| Error::sql("SQL logic error"))?;
    ensure_stat(c, cfg)?;
    run(c, cfg, x, y)
}

/// After a commit wrote `leaves` leaves from pending terms: the merge
/// `automerge` asks for, sized as SQLite sizes it (the leaves times the
/// highest relative level, plus half; nothing below 64 blocks).
pub fn after_flush(c: &mut Connection, cfg: &Config, leaves: i64) -> Result<()> {
    if leaves <= 4 {
        return Ok(());
    }
    let n = automerge(c, cfg)?;
    if n == 0 {
        return Ok(());
    }
    let rows = query(c, &format!("SELECT max(level % ?) FROM {}", table(&cfg.db, &cfg.name, "segdir")), &[Value::Integer(super::MAX_LEVEL)])?;
    let max_level = rows.first().map_or(0, |r| r[0].as_ref().to_i64());
    let mut a = leaves.saturating_mul(max_level);
    a += a / 2;
    if a > 64 {
        run(c, cfg, a, n)?;
    }
    Ok(())
}

/// The `%_stat` row 1 record: (level, segments) pairs.
fn read_hint(c: &mut Connection, cfg: &Config) -> Result<Vec<(i64, i64)>> {
    let rows = query(c, &format!("SELECT value FROM {} WHERE id = 1", table(&cfg.db, &cfg.name, "stat")), &[])?;
    let Some(r) = rows.first() else { return Ok(Vec::new()) };
    let b = match &r[0] {
        Value::Blob(b) | Value::Text(b) => b.clone(),
        _ => Vec::new(),
    };
    let mut out = Vec::new();
    let mut p = 0;
    while p < b.len() {
        let level = varint::get(&b, &mut p).ok_or_else(corrupt)?;
        let n = varint::get(&b, &mut p).ok_or_else(corrupt)?;
        out.push((level, n));
    }
    Ok(out)
}

fn write_hint(c: &mut Connection, cfg: &Config, hint: &[(i64, i64)]) -> Result<()> {
    let mut b = Vec::new();
    for (l, n) in hint {
        varint::put(&mut b, *l);
        varint::put(&mut b, *n);
    }
    exec(c, &format!("REPLACE INTO {} VALUES(1, ?)", table(&cfg.db, &cfg.name, "stat")), &[Value::Blob(b)])
}

/// Merge levels until about `budget` blocks were written.
fn run(c: &mut Connection, cfg: &Config, mut budget: i64, min: i64) -> Result<()> {
    let segdir = table(&cfg.db, &cfg.name, "segdir");
    let find = format!("SELECT level, count(*) AS cnt FROM {segdir} GROUP BY level HAVING cnt >= ? ORDER BY (level % ?) ASC, 2 DESC LIMIT 1");
    let mut hint = read_hint(c, cfg)?;
    let hint_was = hint.clone();
    while budget > 0 {
        let rows = query(c, &find, &[Value::Integer(min.max(2)), Value::Integer(super::MAX_LEVEL)])?;
        let mut level = rows.first().map(|r| r[0].as_ref().to_i64());
        // A merge SQLite left half done goes first unless a lower level
        // is ready.
        if let Some(&(h, _)) = hint.last() {
            if level.is_none_or(|l| l % super::MAX_LEVEL >= h % super::MAX_LEVEL) {
                level = Some(h);
            }
        }
        let Some(level) = level else { break };
        if level < 0 || level % super::MAX_LEVEL == super::MAX_LEVEL - 1 {
            return Err(corrupt());
        }
        let written = merge_level(c, cfg, level)?;
        hint.retain(|&(l, _)| l != level);
        budget -= 1 + written;
    }
    if hint != hint_was {
        write_hint(c, cfg, &hint)?;
    }
    Ok(())
}

/// Merge every segment of absolute `level` into a new segment at the end
/// of `level + 1`; returns the blocks written.
fn merge_level(c: &mut Connection, cfg: &Config, level: i64) -> Result<i64> {
    let base = level - level % super::MAX_LEVEL;
    let segs = segments::list(c, cfg, level, level)?;
    if segs.is_empty() {
        return Ok(0);
    }
    // Deletion markers stay while any higher level of the language exists,
    // in any of its indexes (as SQLite decides it for these merges).
    let span = super::MAX_LEVEL * cfg.n_index();
    let lang_last = level - level % span + span - 1;
    let older = segments::list(c, cfg, level + 1, lang_last)?;
    let terms = segments::merge_segments(c, cfg, &segs, !older.is_empty())?;
    // invariant: fts3_merge_markers
    debug_assert!(
        !older.is_empty() || terms.iter().all(|(_, d)| super::doclist::decode(d, cfg.desc).is_none_or(|dl| dl.entries.iter().all(|e| !e.is_delete()))),
        "a merge into the highest level kept a deletion marker"
    );
    let est = 2 * segs.iter().map(|s| 1 + s.leaves_end - s.start).sum::<i64>();
    let segs_tab = table(&cfg.db, &cfg.name, "segments");
    let rows = query(c, &format!("SELECT coalesce(max(blockid), 0) + 1 FROM {segs_tab}"), &[])?;
    let first = rows.first().map_or(1, |r| r[0].as_ref().to_i64());
    let next = level + 1;
    let rows = query(c, &format!("SELECT max(idx) FROM {} WHERE level = ?", table(&cfg.db, &cfg.name, "segdir")), &[Value::Integer(next)])?;
    let idx = match rows.first().map(|r| &r[0]) {
        Some(Value::Null) | None => 0,
        Some(v) => v.as_ref().to_i64() + 1,
    };
    segments::drop_segments(c, cfg, &segs)?;
    if terms.is_empty() {
        return Ok(0);
    }
    let node_size = segments::node_size(c, cfg)?;
    let mut w = super::node::SegmentWriter::new(node_size, first);
    for (t, d) in &terms {
        w.add(t, d);
    }
    let l = w.finish_appendable(est.max(1));
    let end = first - 1 + est.max(1) * APPENDABLE_HEIGHT;
    let ins = format!("INSERT INTO {segs_tab}(blockid, block) VALUES(?, ?)");
    // The reserved range's last block, empty, marks it taken.
    query(c, &ins, &[Value::Integer(end), Value::Null])?;
    let written = l.blocks.len() as i64;
    for (id, b) in l.blocks {
        debug_assert!(id < end);
        query(c, &ins, &[Value::Integer(id), Value::Blob(b)])?;
    }
    let end_block = Value::Text(format!("{} {}", end, l.leaf_bytes).into_bytes());
    query(
        c,
        &format!("INSERT INTO {} VALUES(?, ?, ?, ?, ?, ?)", table(&cfg.db, &cfg.name, "segdir")),
        &[Value::Integer(next), Value::Integer(idx), Value::Integer(l.start), Value::Integer(l.leaves_end), end_block, Value::Blob(l.root)],
    )?;
    segments::promote(c, cfg, next, l.leaf_bytes, base)?;
    Ok(written)
}
