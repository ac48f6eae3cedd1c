//! # Segments on disk: reading terms, writing and merging segments
//!
//! A table's index is a set of segment b-trees listed in `%_segdir` by
//! (level, idx); level numbers are absolute: language `L` and index `I`
//! (0 the main index, then the prefix indexes) own levels
//! `(L * nIndex + I) * 1024` up to 1023 more. Newer data is at lower
//! levels and, within a level, higher idx; for a docid the newest
//! segment's entry wins.
//!
//! Writing: pending terms become a new segment at the lowest level of
//! their index; a level holding 16 segments is first merged into one
//! segment of the next level (recursively), deletion markers dropped
//! when no older level exists, as SQLite's FTS3 merges.
//!
//! Invariants: a segment's nodes have consecutive blockids allocated
//! after the largest one in `%_segments` (checked:
//! fts3_blockids_consecutive), but for an incremental merge's, placed as
//! `incrmerge.rs` says; a reader never trusts a node: malformed data is
//! `SQLITE_CORRUPT_VTAB`.

use super::config::Config;
use super::doclist::{self, Entry};
use super::node::{self, SegmentWriter};
use super::shadow::{query, table};
use crate::connection::Connection;
use crate::error::{Error, Result, SQLITE_CORRUPT_VTAB};
use crate::value::Value;
use std::collections::BTreeMap;

/// Segments at one level before they are merged.
pub const MERGE_COUNT: i64 = 16;

/// The error for a malformed index.
pub fn corrupt() -> Error {
    Error::code(SQLITE_CORRUPT_VTAB)
}

/// One `%_segdir` row.
#[derive(Debug, Clone)]
pub struct Seg {
    /// Absolute level.
    pub level: i64,
    /// Index within the level.
    pub idx: i64,
    /// First leaf blockid (0: root only).
    pub start: i64,
    /// Last leaf blockid.
    pub leaves_end: i64,
    /// Last blockid of the segment.
    pub end: i64,
    /// The root node.
    pub root: Vec<u8>,
}

fn blob(v: &Value) -> Vec<u8> {
    match v {
        Value::Blob(b) | Value::Text(b) => b.clone(),
        Value::Null | Value::Pointer(_) => Vec::new(),
        other => other.as_ref().to_text().map(|c| c.into_owned()).unwrap_or_default(),
    }
}

/// The first number of an `end_block` value ("N" or "N SIZE").
fn end_block(v: &Value) -> i64 {
    match v {
        Value::Integer(i) => *i,
        other => {
            let t = blob(other);
            let s = String::from_utf8_lossy(&t);
            s.split_whitespace().next().and_then(|x| x.parse().ok()).unwrap_or(0)
        }
    }
}

/// Segments with levels in `lo..=hi`, oldest first.
pub fn list(c: &mut Connection, cfg: &Config, lo: i64, hi: i64) -> Result<Vec<Seg>> {
    let sql = format!(
        "SELECT level, idx, start_block, leaves_end_block, end_block, root FROM {} WHERE level BETWEEN ? AND ? ORDER BY level DESC, idx ASC",
        table(&cfg.db, &cfg.name, "segdir")
    );
    let rows = query(c, &sql, &[Value::Integer(lo), Value::Integer(hi)])?;
    Ok(rows
        .iter()
        .map(|r| Seg {
            level: r[0].as_ref().to_i64(),
            idx: r[1].as_ref().to_i64(),
            start: r[2].as_ref().to_i64(),
            leaves_end: r[3].as_ref().to_i64(),
            end: end_block(&r[4]),
            root: blob(&r[5]),
        })
        .collect())
}

fn read_block(c: &mut Connection, cfg: &Config, id: i64) -> Result<Vec<u8>> {
    let sql = format!("SELECT block FROM {} WHERE blockid = ?", table(&cfg.db, &cfg.name, "segments"));
    let rows = query(c, &sql, &[Value::Integer(id)])?;
    rows.first().map(|r| blob(&r[0])).ok_or_else(corrupt)
}

/// Which terms a read wants.
#[derive(Clone, Copy)]
pub enum Range<'a> {
    /// Exactly this term.
    Exact(&'a [u8]),
    /// Every term starting with this.
    Prefix(&'a [u8]),
    /// Every term.
    All,
}

impl Range<'_> {
    fn key(&self) -> &[u8] {
        match self {
            Range::Exact(t) | Range::Prefix(t) => t,
            Range::All => b"",
        }
    }
    fn contains(&self, t: &[u8]) -> bool {
        match self {
            Range::Exact(x) => t == *x,
            Range::Prefix(p) => t.starts_with(p),
            Range::All => true,
        }
    }
    /// Whether `t` sorts after every term of the range.
    fn past(&self, t: &[u8]) -> bool {
        match self {
            Range::Exact(x) => t > *x,
            Range::Prefix(p) => t > *p && !t.starts_with(p),
            Range::All => false,
        }
    }
}

/// The `(term, doclist)` pairs of `seg` within `range`.
pub fn seg_terms(c: &mut Connection, cfg: &Config, seg: &Seg, range: Range<'_>) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
    let mut out = Vec::new();
    if seg.start == 0 && seg.leaves_end == 0 {
        if seg.root.is_empty() {
            return Ok(out);
        }
        for (t, d) in node::decode_leaf(&seg.root).ok_or_else(corrupt)? {
            if range.contains(&t) {
                out.push((t, d));
            }
        }
        return Ok(out);
    }
    // Descend to the first leaf that may hold the range.
    let key = range.key().to_vec();
    let mut n = seg.root.clone();
    let mut leaf_id = None;
    for _ in 0..64 {
        if n.first() == Some(&0) {
            break;
        }
        let inner = node::decode_interior(&n).ok_or_else(corrupt)?;
        let child = inner.left + inner.terms.iter().filter(|s| s.as_slice() <= key.as_slice()).count() as i64;
        if inner.height == 1 {
            leaf_id = Some(child);
            break;
        }
        n = read_block(c, cfg, child)?;
    }
    let mut id = leaf_id.ok_or_else(corrupt)?;
    if id < seg.start || id > seg.leaves_end {
        return Err(corrupt());
    }
    while id <= seg.leaves_end {
        let leaf = read_block(c, cfg, id)?;
        for (t, d) in node::decode_leaf(&leaf).ok_or_else(corrupt)? {
            if range.past(&t) {
                return Ok(out);
            }
            if range.contains(&t) {
                out.push((t, d));
            }
        }
        id += 1;
    }
    Ok(out)
}

/// Per term, the entries of segments oldest first (pending last),
/// without merging.
pub type Versions = BTreeMap<Vec<u8>, Vec<Vec<Entry>>>;

/// Gather every version of the terms in `range` for index `index` of
/// language `langid`: the segments', then `pending`'s.
pub fn gather(
    c: &mut Connection,
    cfg: &Config,
    langid: i64,
    index: usize,
    range: Range<'_>,
    pending: Option<&BTreeMap<Vec<u8>, Vec<Entry>>>,
) -> Result<Versions> {
    let base = cfg.level_base(langid, index);
    let mut out: Versions = BTreeMap::new();
    for seg in list(c, cfg, base, base + super::MAX_LEVEL - 1)? {
        for (t, d) in seg_terms(c, cfg, &seg, range)? {
            let dl = doclist::decode(&d, cfg.desc).ok_or_else(corrupt)?;
            out.entry(t).or_default().push(dl.entries);
        }
    }
    if let Some(p) = pending {
        let iter: Box<dyn Iterator<Item = (&Vec<u8>, &Vec<Entry>)>> = match range {
            Range::Exact(t) => Box::new(p.get_key_value(t).into_iter()),
            Range::Prefix(pre) => Box::new(p.range(pre.to_vec()..).take_while(move |(k, _)| k.starts_with(pre))),
            Range::All => Box::new(p.iter()),
        };
        for (t, e) in iter {
            out.entry(t.clone()).or_default().push(e.clone());
        }
    }
    Ok(out)
}

/// The next idx for a new segment at absolute `level`, merging the level
/// into the next one first when it is full.
pub fn alloc_idx(c: &mut Connection, cfg: &Config, level: i64, base: i64) -> Result<i64> {
    let sql = format!("SELECT max(idx) FROM {} WHERE level = ?", table(&cfg.db, &cfg.name, "segdir"));
    let rows = query(c, &sql, &[Value::Integer(level)])?;
    let next = match rows.first().map(|r| &r[0]) {
        Some(Value::Null) | None => 0,
        Some(v) => v.as_ref().to_i64() + 1,
    };
    if next >= MERGE_COUNT {
        merge_level(c, cfg, level, base)?;
        return Ok(0);
    }
    Ok(next)
}

/// Write a segment of `terms` (in order, encoded doclists) at `level`
/// with `idx`; returns its leaf bytes and its number of leaves.
pub fn write_segment(c: &mut Connection, cfg: &Config, node_size: usize, level: i64, idx: i64, terms: &[(Vec<u8>, Vec<u8>)]) -> Result<(i64, i64)> {
    let segs = table(&cfg.db, &cfg.name, "segments");
    let rows = query(c, &format!("SELECT coalesce(max(blockid), 0) + 1 FROM {segs}"), &[])?;
    let first = rows.first().map_or(1, |r| r[0].as_ref().to_i64());
    let mut w = SegmentWriter::new(node_size, first);
    for (t, d) in terms {
        w.add(t, d);
    }
    let l = w.finish();
    #[cfg(debug_assertions)]
    {
        let mut ids: Vec<i64> = l.blocks.iter().map(|(id, _)| *id).collect();
        ids.sort_unstable();
        // invariant: fts3_blockids_consecutive
        debug_assert!(ids.iter().enumerate().all(|(k, id)| *id == first + k as i64), "segment blockids {ids:?} not consecutive from {first}");
    }
    let ins = format!("INSERT INTO {segs}(blockid, block) VALUES(?, ?)");
    for (id, b) in l.blocks {
        query(c, &ins, &[Value::Integer(id), Value::Blob(b)])?;
    }
    let sql = format!("INSERT INTO {} VALUES(?, ?, ?, ?, ?, ?)", table(&cfg.db, &cfg.name, "segdir"));
    let end = Value::Text(format!("{} {}", l.end, l.leaf_bytes).into_bytes());
    query(c, &sql, &[Value::Integer(level), Value::Integer(idx), Value::Integer(l.start), Value::Integer(l.leaves_end), end, Value::Blob(l.root)])?;
    let leaves = if l.start == 0 { 1 } else { l.leaves_end - l.start + 1 };
    Ok((l.leaf_bytes, leaves))
}

/// Merge `segs` (oldest first) into `(term, doclist)` pairs.
pub fn merge_segments(c: &mut Connection, cfg: &Config, segs: &[Seg], keep_deletes: bool) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
    let mut versions: Versions = BTreeMap::new();
    for seg in segs {
        for (t, d) in seg_terms(c, cfg, seg, Range::All)? {
            let dl = doclist::decode(&d, cfg.desc).ok_or_else(corrupt)?;
            versions.entry(t).or_default().push(dl.entries);
        }
    }
    let mut out = Vec::new();
    for (t, v) in versions {
        let merged = doclist::merge_versions(v, keep_deletes, cfg.desc);
        if !merged.is_empty() {
            out.push((t, doclist::encode(&merged, cfg.desc)));
        }
    }
    Ok(out)
}

/// Remove segments' `%_segdir` rows only.
pub fn drop_rows(c: &mut Connection, cfg: &Config, segs: &[Seg]) -> Result<()> {
    let del_dir = format!("DELETE FROM {} WHERE level = ? AND idx = ?", table(&cfg.db, &cfg.name, "segdir"));
    for s in segs {
        query(c, &del_dir, &[Value::Integer(s.level), Value::Integer(s.idx)])?;
    }
    Ok(())
}

/// Remove segments' nodes only.
pub fn drop_blocks(c: &mut Connection, cfg: &Config, segs: &[Seg]) -> Result<()> {
    let del_blocks = format!("DELETE FROM {} WHERE blockid BETWEEN ? AND ?", table(&cfg.db, &cfg.name, "segments"));
    for s in segs {
        if s.start > 0 {
            query(c, &del_blocks, &[Value::Integer(s.start), Value::Integer(s.end.max(s.leaves_end))])?;
        }
    }
    Ok(())
}

/// Remove segments (their rows and nodes).
pub fn drop_segments(c: &mut Connection, cfg: &Config, segs: &[Seg]) -> Result<()> {
    let del_blocks = format!("DELETE FROM {} WHERE blockid BETWEEN ? AND ?", table(&cfg.db, &cfg.name, "segments"));
    let del_dir = format!("DELETE FROM {} WHERE level = ? AND idx = ?", table(&cfg.db, &cfg.name, "segdir"));
    for s in segs {
        if s.start > 0 {
            query(c, &del_blocks, &[Value::Integer(s.start), Value::Integer(s.end.max(s.leaves_end))])?;
        }
        query(c, &del_dir, &[Value::Integer(s.level), Value::Integer(s.idx)])?;
    }
    Ok(())
}

/// Merge every segment of absolute `level` into one at `level + 1`.
pub fn merge_level(c: &mut Connection, cfg: &Config, level: i64, base: i64) -> Result<()> {
    let node_size = node_size(c, cfg)?;
    let segs = list(c, cfg, level, level)?;
    let older = list(c, cfg, level + 1, base + super::MAX_LEVEL - 1)?;
    let terms = merge_segments(c, cfg, &segs, !older.is_empty())?;
    let idx = alloc_idx(c, cfg, level + 1, base)?;
    let size = if terms.is_empty() { None } else { Some(write_segment(c, cfg, node_size, level + 1, idx, &terms)?.0) };
    drop_segments(c, cfg, &segs)?;
    if let Some(n) = size {
        promote(c, cfg, level + 1, n, base)?;
    }
    Ok(())
}

/// The leaf bytes recorded in an `end_block` value (unknown: `None`).
fn seg_size(v: &Value) -> Option<i64> {
    let t = blob(v);
    let s = String::from_utf8_lossy(&t);
    let mut it = s.split_whitespace();
    it.next()?;
    it.next()?.parse().ok()
}

/// After a segment of `n` leaf bytes was written at absolute `level`:
/// when every segment on the index's higher levels is no larger than 1.5
/// times it (and records its size), they all move down into `level`,
/// oldest first, as SQLite keeps small segments from lingering above a
/// large new one; one larger or unsized segment keeps them all where
/// they are.
pub fn promote(c: &mut Connection, cfg: &Config, level: i64, n: i64, base: i64) -> Result<()> {
    let limit = n * 3 / 2;
    let segdir = table(&cfg.db, &cfg.name, "segdir");
    let rows = query(
        c,
        &format!("SELECT level, idx, end_block FROM {segdir} WHERE level > ? AND level <= ? ORDER BY level ASC, idx ASC"),
        &[Value::Integer(level), Value::Integer(base + super::MAX_LEVEL - 1)],
    )?;
    if rows.is_empty() || rows.iter().any(|r| seg_size(&r[2]).is_none_or(|s| s <= 0 || s > limit)) {
        return Ok(());
    }
    let top = rows.iter().map(|r| r[0].as_ref().to_i64()).max().unwrap_or(level);
    let all = query(
        c,
        &format!("SELECT level, idx FROM {segdir} WHERE level BETWEEN ? AND ? ORDER BY level DESC, idx ASC"),
        &[Value::Integer(level), Value::Integer(top)],
    )?;
    let upd = format!("UPDATE {segdir} SET level = ?, idx = ? WHERE level = ? AND idx = ?");
    for (k, r) in all.iter().enumerate() {
        query(c, &upd, &[Value::Integer(level), Value::Integer(-1 - k as i64), r[0].clone(), r[1].clone()])?;
    }
    query(c, &format!("UPDATE {segdir} SET idx = -1 - idx WHERE level = ? AND idx < 0"), &[Value::Integer(level)])?;
    Ok(())
}

/// The node size: the database's page size less 35 bytes. When an
/// authorizer denies the `PRAGMA page_size` that asks it, the page size
/// is taken as 1024 (observed: SQLite's segments are then those of a
/// 1024-byte page database, whatever the real page size).
pub fn node_size(c: &mut Connection, cfg: &Config) -> Result<usize> {
    let rows = match query(c, &format!("PRAGMA {}.page_size", super::config::ident(&cfg.db)), &[]) {
        Err(e) if e.primary() == crate::error::SQLITE_AUTH => vec![vec![Value::Integer(1024)]],
        r => r?,
    };
    let ps = rows.first().map_or(4096, |r| r[0].as_ref().to_i64());
    Ok((ps as usize).saturating_sub(35).max(64))
}

/// Write every pending index of `pending` as new segments.
pub fn flush(c: &mut Connection, cfg: &Config, pending: &mut super::pending::Pending) -> Result<()> {
    if pending.is_empty() {
        pending.clear();
        return Ok(());
    }
    let node_size = node_size(c, cfg)?;
    let langid = pending.langid;
    let terms = std::mem::take(&mut pending.terms);
    pending.clear();
    for (i, map) in terms.into_iter().enumerate() {
        if map.is_empty() {
            continue;
        }
        let base = cfg.level_base(langid, i);
        let idx = alloc_idx(c, cfg, base, base)?;
        let mut out = Vec::with_capacity(map.len());
        for (t, mut entries) in map {
            if cfg.desc {
                entries.reverse();
            }
            out.push((t, doclist::encode(&entries, cfg.desc)));
        }
        let (n, leaves) = write_segment(c, cfg, node_size, base, idx, &out)?;
        pending.leaves_added += leaves;
        promote(c, cfg, base, n, base)?;
    }
    Ok(())
}
