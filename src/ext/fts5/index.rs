//! # The inverted index in `%_data` / `%_idx`: flushing and merging
//!
//! Segments are added by [`flush`] (one level-0 segment per run of
//! pending changes, ids the smallest free ones, the write counter grown
//! by the pages written unless 'automerge' is 0, as SQLite's; under
//! 'secure-delete' a run's deletes are first cut out of the existing
//! segments by `secure.rs`) and combined by merges: a level holding
//! `crisismerge` segments (default 16) is merged whole into one segment
//! on the next level, as SQLite does when writes outpace its incremental
//! merging; [`optimize`] merges everything into one segment; the 'merge'
//! command merges whole levels holding at least `usermerge` segments (all
//! levels when its argument is negative).
//!
//! Where ringlite differs from SQLite: SQLite also merges incrementally
//! ('automerge', a few pages after each write) and moves small segments
//! between levels. Ringlite merges whole levels only at `crisismerge`.
//! The index holds the same data either way and both libraries read,
//! extend and integrity-check the other's (see FORMAT.md).
//!
//! Invariant: after each function, the structure record lists exactly
//! the segments whose pages are in `%_data`, and `%_idx` holds exactly
//! those segments' rows.

use super::codec::{get, put, Terms};
use super::config::Config;
use super::merge::merge;
use super::pending::{terms, Pending};
use super::secure;
use super::segread;
use super::segwrite::{build, Segment};
use super::shadow::rows;
use super::structure::{tombstone_id, Level, Seg, Structure};
use super::tombstone;
use crate::connection::{Connection, StepResult};
use crate::error::{Error, Result};
use crate::value::Value;

/// The `%_config` settings writers use.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    /// Leaf page size.
    pub pgsz: usize,
    /// Segments on a level that force a merge of the level.
    pub crisismerge: usize,
    /// Least segments on a level for 'merge' with a positive argument.
    pub usermerge: usize,
    /// 'secure-delete': deletes cut entries out of the segments.
    pub secure_delete: bool,
    /// 'automerge' is not 0 (else SQLite keeps no write counter).
    pub automerge: bool,
}

/// Run `sql` with `params`.
pub fn exec(c: &mut Connection, sql: &str, params: &[Value]) -> Result<()> {
    let (st, _) = c.prepare_terminated(sql.as_bytes())?;
    let Some(mut st) = st else { return Ok(()) };
    for (i, p) in params.iter().enumerate() {
        st.bind(i + 1, p.clone())?;
    }
    loop {
        match st.step(c)? {
            StepResult::Row => continue,
            StepResult::Done => return Ok(()),
            StepResult::Io => return Err(Error::sql("fts5: unexpected I/O wait")),
        }
    }
}

/// Read the settings from `%_config`.
pub fn settings(c: &mut Connection, cfg: &Config) -> Result<Settings> {
    let mut s = Settings { pgsz: 4050, crisismerge: 16, usermerge: 4, secure_delete: false, automerge: true };
    for r in rows(c, &format!("SELECT k, v FROM {}", cfg.shadow("config")))? {
        let (Value::Text(k), Value::Integer(v)) = (&r[0], &r[1]) else { continue };
        match k.as_slice() {
            b"pgsz" => s.pgsz = (*v).clamp(32, 65536) as usize,
            b"crisismerge" => s.crisismerge = if *v <= 1 { 16 } else { (*v).min(2000) as usize },
            b"usermerge" => s.usermerge = (*v).clamp(2, 16) as usize,
            b"secure-delete" => s.secure_delete = *v != 0,
            b"automerge" => s.automerge = *v != 0,
            _ => {}
        }
    }
    Ok(s)
}

/// The structure record.
pub fn load(c: &mut Connection, cfg: &Config) -> Result<Structure> {
    let r = rows(c, &format!("SELECT block FROM {} WHERE id = 10", cfg.shadow("data")))?;
    match r.first().map(|r| &r[0]) {
        Some(Value::Blob(b)) => Structure::decode(b),
        _ => Err(Error::corrupt()),
    }
}

/// Store the structure record.
pub fn store(c: &mut Connection, cfg: &Config, st: &Structure) -> Result<()> {
    exec(c, &format!("REPLACE INTO {}(id, block) VALUES(10, ?)", cfg.shadow("data")), &[Value::Blob(st.encode())])
}

fn write_segment(c: &mut Connection, cfg: &Config, segid: u32, seg: &Segment) -> Result<()> {
    let data = cfg.shadow("data");
    for (id, b) in &seg.records {
        exec(c, &format!("INSERT INTO {data}(id, block) VALUES(?, ?)"), &[Value::Integer(*id), Value::Blob(b.clone())])?;
    }
    for (k, p) in &seg.idx {
        exec(
            c,
            &format!("INSERT INTO {}(segid, term, pgno) VALUES(?, ?, ?)", cfg.shadow("idx")),
            &[Value::Integer(i64::from(segid)), Value::Blob(k.clone()), Value::Integer(*p)],
        )?;
    }
    Ok(())
}

fn drop_segment(c: &mut Connection, cfg: &Config, segid: u32) -> Result<()> {
    let lo = i64::from(segid) << 37;
    let hi = (i64::from(segid) + 1) << 37;
    exec(c, &format!("DELETE FROM {} WHERE id >= {lo} AND id < {hi}", cfg.shadow("data")), &[])?;
    let (lo, hi) = (tombstone_id(segid, 0), tombstone_id(segid + 1, 0));
    exec(c, &format!("DELETE FROM {} WHERE id >= {lo} AND id < {hi}", cfg.shadow("data")), &[])?;
    exec(c, &format!("DELETE FROM {} WHERE segid = {segid}", cfg.shadow("idx")), &[])
}

/// Write the pending changes as new level-0 segments, then merge levels
/// that reached `crisismerge` segments.
pub fn flush(c: &mut Connection, cfg: &Config, p: &mut Pending) -> Result<()> {
    let runs: Vec<Terms> = p.runs().into_iter().map(|r| terms(cfg, r)).collect();
    let run_rows: Vec<u64> = p.runs().into_iter().map(|r| r.iter().filter(|o| !o.delete).count() as u64).collect();
    let mut run_rows = run_rows.into_iter();
    p.flushed = p.ops.len();
    if runs.is_empty() {
        return Ok(());
    }
    let s = settings(c, cfg)?;
    let mut st = load(c, cfg)?;
    let mut secured = false;
    for mut t in runs {
        if s.secure_delete {
            secured |= secure_deletes(c, cfg, &st, &mut t)?;
        }
        if t.is_empty() {
            let rows = p.carry_rows + run_rows.next().unwrap_or(0);
            // Nothing written: the rows count in the next segment, unless
            // tombstones were written (SQLite's flush then happened).
            p.carry_rows = if p.tomb_adds > 0 { 0 } else { rows };
            p.tomb_adds = 0;
            continue;
        }
        let id = st.free_id()?;
        let seg = build(id, s.pgsz, &t, false, cfg.detail);
        write_segment(c, cfg, id, &seg)?;
        if st.levels.is_empty() {
            st.levels.push(Level::default());
        }
        let mut new = Seg::new(id, 1, seg.pages);
        if st.v2 {
            // The origin the run's rows were given in `%_docsize`.
            new.origin1 = st.next_origin();
            new.origin2 = new.origin1;
            new.entries = p.carry_rows + run_rows.next().unwrap_or(0);
            p.carry_rows = 0;
            p.tomb_adds = 0;
        }
        st.levels[0].segs.push(new);
        st.promote(0);
        if s.automerge {
            st.counter += u64::from(seg.pages);
        }
        let mut l = 0;
        while l < st.levels.len() {
            if st.levels[l].segs.len() >= s.crisismerge {
                merge_level(c, cfg, &mut st, l, s.pgsz)?;
                st.promote(l + 1);
            }
            l += 1;
        }
    }
    if secured && version(c, cfg)? != 5 {
        // Files with cut-out entries are marked for older readers.
        exec(c, &format!("REPLACE INTO {}(k, v) VALUES('version', 5)", cfg.shadow("config")), &[])?;
        st.cookie = st.cookie.wrapping_add(1);
    }
    store(c, cfg, &st)
}

/// The 'version' of `%_config`.
fn version(c: &mut Connection, cfg: &Config) -> Result<i64> {
    let r = rows(c, &format!("SELECT v FROM {} WHERE k = 'version'", cfg.shadow("config")))?;
    Ok(r.first().map_or(0, |r| r[0].as_ref().to_i64()))
}

/// 'secure-delete': cut the entries `t` deletes out of the segments of
/// `st`, then leave in `t` only what the new segment holds (entries with
/// positions, without their delete flag). Returns whether `t` deleted
/// anything.
fn secure_deletes(c: &mut Connection, cfg: &Config, st: &Structure, t: &mut Terms) -> Result<bool> {
    let data = cfg.shadow("data");
    let segs = st.newest_first();
    let mut cache = secure::Pages::default();
    let mut any = false;
    for (term, dl) in t.iter_mut() {
        let dels: Vec<i64> = dl.iter().filter(|(_, e)| e.delete).map(|(r, _)| *r).collect();
        for r in dels {
            any = true;
            secure::remove(c, &data, &mut cache, &segs, cfg.detail, term, r)?;
            if let Some(e) = dl.get_mut(&r) {
                if e.poslist.is_empty() {
                    dl.remove(&r);
                } else {
                    e.delete = false;
                }
            }
        }
    }
    t.retain(|_, dl| !dl.is_empty());
    cache.store(c, &data, &cfg.shadow("idx"))?;
    Ok(any)
}

/// The segments' contents, newest first, without the rows their
/// tombstones delete.
fn read_segs(c: &mut Connection, cfg: &Config, segs: &[Seg]) -> Result<Vec<Terms>> {
    let data = cfg.shadow("data");
    let mut out = Vec::with_capacity(segs.len());
    for s in segs.iter().rev() {
        let mut t = segread::read(c, &data, *s, cfg.detail)?;
        if s.tomb_pages > 0 {
            let dead = tombstone::read(c, &data, s)?;
            for dl in t.values_mut() {
                dl.retain(|r, _| !dead.contains(r));
            }
            t.retain(|_, dl| !dl.is_empty());
        }
        out.push(t);
    }
    Ok(out)
}

/// The output segment of a merge of `inputs` (oldest first): version 2
/// keeps their origin range and the rows their tombstones left.
fn merged_seg(st: &Structure, id: u32, pages: u32, inputs: &[Seg]) -> Seg {
    let mut s = Seg::new(id, 1, pages);
    if st.v2 {
        s.origin1 = inputs.first().map_or(0, |x| x.origin1);
        s.origin2 = inputs.last().map_or(0, |x| x.origin2);
        s.entries = inputs.iter().map(|x| x.entries.saturating_sub(x.tomb_entries)).sum();
    }
    s
}

/// A `contentless_delete=1` delete of row `rowid`, whose `%_docsize`
/// origin is `origin`: a tombstone in each segment whose origin range
/// holds it (counted against the newest), the write counter bumped.
pub fn contentless_delete(c: &mut Connection, cfg: &Config, p: &mut Pending, origin: u64, rowid: i64) -> Result<()> {
    let s = settings(c, cfg)?;
    let mut st = load(c, cfg)?;
    let data = cfg.shadow("data");
    let mut counted = false;
    for l in st.levels.iter_mut().rev() {
        for seg in l.segs.iter_mut().rev() {
            if seg.origin1 <= origin && seg.origin2 >= origin {
                if !counted {
                    seg.tomb_entries += 1;
                    counted = true;
                }
                tombstone::add(c, &data, seg, rowid, s.pgsz)?;
                p.tomb_adds += 1;
                // (SQLite's write counter grows by the tombstones added.)
                if s.automerge {
                    st.counter += 1;
                }
            }
        }
    }
    store(c, cfg, &st)
}

/// Merge level `l` whole into one segment at the end of level `l + 1`.
fn merge_level(c: &mut Connection, cfg: &Config, st: &mut Structure, l: usize, pgsz: usize) -> Result<()> {
    let segs = st.levels[l].segs.clone();
    let oldest = st.levels[l + 1..].iter().all(|x| x.segs.is_empty());
    let merged = merge(read_segs(c, cfg, &segs)?, oldest);
    let id = st.free_id()?;
    if st.levels.len() <= l + 1 {
        st.levels.push(Level::default());
    }
    if !merged.is_empty() {
        let seg = build(id, pgsz, &merged, true, cfg.detail);
        write_segment(c, cfg, id, &seg)?;
        let out = merged_seg(st, id, seg.pages, &segs);
        st.levels[l + 1].segs.push(out);
    }
    for s in &segs {
        drop_segment(c, cfg, s.id)?;
    }
    st.levels[l].segs.clear();
    st.levels[l].merging = 0;
    Ok(())
}

/// 'optimize': everything into one segment, on the level after the
/// highest one in use.
pub fn optimize(c: &mut Connection, cfg: &Config) -> Result<()> {
    let s = settings(c, cfg)?;
    let mut st = load(c, cfg)?;
    let tombstones = st.levels.iter().any(|l| l.segs.iter().any(|s| s.tomb_pages > 0));
    if st.nseg() <= 1 && st.levels.iter().all(|l| l.merging == 0) && !tombstones {
        return Ok(());
    }
    let all: Vec<Seg> = st.levels.iter().rev().flat_map(|l| l.segs.iter().copied()).collect();
    let merged = merge(read_segs(c, cfg, &all)?, true);
    // As SQLite: segments all on one level L are merged into L + 1 (the
    // other levels kept, empty); segments on several levels are first
    // gathered on a new level after the last, and merged into the next.
    let used: Vec<usize> = (0..st.levels.len()).filter(|&l| !st.levels[l].segs.is_empty()).collect();
    let (out_level, nlevel) = match used.as_slice() {
        [l] => (*l + 1, st.levels.len().max(*l + 2)),
        _ => (st.levels.len() + 1, st.levels.len() + 2),
    };
    let (out_level, nlevel) = (out_level.min(63), nlevel.min(64));
    let id = st.free_id()?;
    for s in &all {
        drop_segment(c, cfg, s.id)?;
    }
    let mut levels = vec![Level::default(); nlevel];
    if !merged.is_empty() {
        let seg = build(id, s.pgsz, &merged, true, cfg.detail);
        write_segment(c, cfg, id, &seg)?;
        levels[out_level].segs.push(merged_seg(&st, id, seg.pages, &all));
    }
    st.levels = levels;
    store(c, cfg, &st)
}

/// 'merge', `n`: merge whole levels holding at least `usermerge`
/// segments (any two when `n` is negative, after moving all segments to
/// one level, as the documentation describes). Returns whether work
/// was done.
pub fn user_merge(c: &mut Connection, cfg: &Config, n: i64) -> Result<bool> {
    if n < 0 {
        let st = load(c, cfg)?;
        if st.nseg() < 2 {
            return Ok(false);
        }
        optimize(c, cfg)?;
        return Ok(true);
    }
    let s = settings(c, cfg)?;
    let mut st = load(c, cfg)?;
    let mut did = false;
    let mut l = 0;
    while l < st.levels.len() {
        if st.levels[l].segs.len() >= s.usermerge || st.levels[l].merging > 0 {
            merge_level(c, cfg, &mut st, l, s.pgsz)?;
            st.promote(l + 1);
            did = true;
        }
        l += 1;
    }
    if did {
        store(c, cfg, &st)?;
    }
    Ok(did)
}

/// The whole index as one set of doclists (deletes applied).
pub fn read_all(c: &mut Connection, cfg: &Config) -> Result<Terms> {
    let st = load(c, cfg)?;
    let segs: Vec<Seg> = st.levels.iter().rev().flat_map(|l| l.segs.iter().copied()).collect();
    Ok(merge(read_segs(c, cfg, &segs)?, true))
}

/// Empty the index (the structure keeps its cookie).
pub fn clear(c: &mut Connection, cfg: &Config) -> Result<()> {
    let st = load(c, cfg)?;
    exec(c, &format!("DELETE FROM {} WHERE id > 10", cfg.shadow("data")), &[])?;
    exec(c, &format!("DELETE FROM {}", cfg.shadow("idx")), &[])?;
    store(c, cfg, &Structure::empty(st.cookie, cfg.contentless_delete))
}

/// The averages record: rows, then tokens per column.
pub fn averages(c: &mut Connection, cfg: &Config) -> Result<(i64, Vec<i64>)> {
    let r = rows(c, &format!("SELECT block FROM {} WHERE id = 1", cfg.shadow("data")))?;
    let mut cols = vec![0i64; cfg.columns.len()];
    let b = match r.first().map(|r| &r[0]) {
        Some(Value::Blob(b)) => b.clone(),
        _ => Vec::new(),
    };
    if b.is_empty() {
        return Ok((0, cols));
    }
    let (n, mut i) = get(&b, 0)?;
    for col in cols.iter_mut() {
        if i >= b.len() {
            break;
        }
        let (v, j) = get(&b, i)?;
        *col = v as i64;
        i = j;
    }
    Ok((n as i64, cols))
}

/// Store the averages record.
pub fn set_averages(c: &mut Connection, cfg: &Config, n: i64, cols: &[i64]) -> Result<()> {
    let mut b = Vec::new();
    put(&mut b, n as u64);
    for v in cols {
        put(&mut b, *v as u64);
    }
    exec(c, &format!("REPLACE INTO {}(id, block) VALUES(1, ?)", cfg.shadow("data")), &[Value::Blob(b)])
}

/// Bump the configuration cookie (after a `%_config` change).
pub fn bump_cookie(c: &mut Connection, cfg: &Config) -> Result<()> {
    let mut st = load(c, cfg)?;
    st.cookie = st.cookie.wrapping_add(1);
    store(c, cfg, &st)
}
