//! # The inverted index in `%_data` / `%_idx`: flushing and merging
//!
//! Segments are added by [`flush`] (one level-0 segment per run of
//! pending changes, ids the smallest free ones; the writer flushes
//! whenever the pending changes pass `hashsize` by SQLite's estimate, see
//! `pending.rs`; under 'secure-delete' a run's deletes are first cut out
//! of the existing segments by `secure.rs`) and combined by merges, with
//! SQLite's rules: each flush adds its leaf pages to the write counter
//! (unless 'automerge' is 0) and, per 64 pages counted, allows 64 pages
//! times the number of levels of merge work, spent on the level with the
//! most segments if it holds at least `automerge` (default 4), else
//! (`contentless_delete=1`) on a level whose tombstones reach
//! 'deletemerge' percent of its rows; then any
//! run of levels from level 0 holding `crisismerge` segments (default
//! 16) is merged; [`optimize`] merges everything into one segment; the
//! 'merge' command merges whole levels holding at least `usermerge`
//! segments (all levels when its argument is negative).
//!
//! Merges stream: each input segment is read a few pages at a time, term
//! by term (`segread::SegStream`), and the output's pages are written as
//! they fill, so a merge holds about one term's doclists in memory.
//!
//! Where ringlite differs from SQLite: SQLite's merges are incremental
//! (a merge stops after its budget of pages at a term boundary, leaving
//! the inputs trimmed and the level marked as merging, and resumes at the
//! next flush); ringlite merges a chosen level whole at once, so the
//! structure record may show a merge finished where SQLite's shows it in
//! progress. The index holds the same data either way and both libraries
//! read, extend and integrity-check the other's (see FORMAT.md).
//!
//! Invariant: after each function, the structure record lists exactly
//! the segments whose pages are in `%_data`, and `%_idx` holds exactly
//! those segments' rows.

use super::codec::{get, put, Flat, Terms};
use super::config::Config;
use super::merge::merge;
use super::pending::{Pending, Totals};
use super::secure;
use super::segread::{self, SegStream};
use super::segwrite::{build, Segment, Writer};
use super::shadow::rows;
use super::structure::{tombstone_id, Level, Seg, Structure};
use super::tombstone;
use crate::connection::{Connection, StepResult};
use crate::error::{Error, Result};
use crate::util::cold_sort::map_from;
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
    /// Least segments on a level for an automatic merge (0: none, and
    /// SQLite then keeps no write counter).
    pub automerge: usize,
    /// Bytes of pending changes (SQLite's estimate) that force a flush.
    pub hashsize: usize,
    /// `contentless_delete=1`: the percentage of a level's rows its
    /// tombstones must reach for merge work to go to it when no level
    /// has `automerge` segments (0: never).
    pub deletemerge: u64,
}

/// Leaf pages per unit of automatic merge work (SQLite's).
const WORK_UNIT: u64 = 64;

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
    let mut s = Settings { pgsz: 4050, crisismerge: 16, usermerge: 4, secure_delete: false, automerge: 4, hashsize: 1024 * 1024, deletemerge: 10 };
    for r in rows(c, &format!("SELECT k, v FROM {}", cfg.shadow("config")))? {
        let (Value::Text(k), Value::Integer(v)) = (&r[0], &r[1]) else { continue };
        match k.as_slice() {
            b"pgsz" => s.pgsz = (*v).clamp(32, 65536) as usize,
            b"crisismerge" => s.crisismerge = if *v <= 1 { 16 } else { (*v).min(2000) as usize },
            b"usermerge" => s.usermerge = (*v).clamp(2, 16) as usize,
            b"secure-delete" => s.secure_delete = *v != 0,
            // (1 means the default, as in SQLite.)
            b"automerge" => s.automerge = if (0..=64).contains(v) && *v != 1 { *v as usize } else { 4 },
            // (Negative: the default; past 100: never.)
            b"deletemerge" => {
                s.deletemerge = if *v < 0 {
                    10
                } else if *v > 100 {
                    0
                } else {
                    *v as u64
                }
            }
            b"hashsize" => s.hashsize = if *v > 0 { (*v).min(i64::from(i32::MAX)) as usize } else { 1024 * 1024 },
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

/// Store the structure record (its segments changed: see
/// `Config::generation`).
pub fn store(c: &mut Connection, cfg: &Config, st: &Structure) -> Result<()> {
    cfg.generation.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    store_record(c, cfg, st)
}

/// Store the structure record as it is.
fn store_record(c: &mut Connection, cfg: &Config, st: &Structure) -> Result<()> {
    exec(c, &format!("REPLACE INTO {}(id, block) VALUES(10, ?)", cfg.shadow("data")), &[Value::Blob(st.encode())])
}

/// Run `sql` once per row of parameters, prepared once.
fn exec_each(c: &mut Connection, sql: &str, params: impl IntoIterator<Item = Vec<Value>>) -> Result<()> {
    let (st, _) = c.prepare_terminated(sql.as_bytes())?;
    let Some(mut st) = st else { return Ok(()) };
    for row in params {
        for (i, p) in row.into_iter().enumerate() {
            st.bind(i + 1, p)?;
        }
        loop {
            match st.step(c)? {
                StepResult::Row => continue,
                StepResult::Done => break,
                StepResult::Io => return Err(Error::sql("fts5: unexpected I/O wait")),
            }
        }
        st.reset(c);
    }
    Ok(())
}

/// Insert `%_data` rows.
fn write_records(c: &mut Connection, cfg: &Config, records: Vec<(i64, Vec<u8>)>) -> Result<()> {
    if records.is_empty() {
        return Ok(());
    }
    // (The kept statement: a merge writes its pages a few at a time.)
    let sql = format!("INSERT INTO {}(id, block) VALUES(?, ?)", cfg.shadow("data"));
    for (id, b) in records {
        cfg.stmts.exec(c, &sql, &[Value::Integer(id), Value::Blob(b)])?;
    }
    Ok(())
}

fn write_segment(c: &mut Connection, cfg: &Config, segid: u32, seg: Segment) -> Result<()> {
    write_records(c, cfg, seg.records)?;
    let sql = format!("INSERT INTO {}(segid, term, pgno) VALUES(?, ?, ?)", cfg.shadow("idx"));
    exec_each(c, &sql, seg.idx.into_iter().map(|(k, p)| vec![Value::Integer(i64::from(segid)), Value::Blob(k), Value::Integer(p)]))
}

fn drop_segment(c: &mut Connection, cfg: &Config, segid: u32) -> Result<()> {
    let lo = i64::from(segid) << 37;
    let hi = (i64::from(segid) + 1) << 37;
    exec(c, &format!("DELETE FROM {} WHERE id >= {lo} AND id < {hi}", cfg.shadow("data")), &[])?;
    let (lo, hi) = (tombstone_id(segid, 0), tombstone_id(segid + 1, 0));
    exec(c, &format!("DELETE FROM {} WHERE id >= {lo} AND id < {hi}", cfg.shadow("data")), &[])?;
    exec(c, &format!("DELETE FROM {} WHERE segid = {segid}", cfg.shadow("idx")), &[])
}

/// Write the pending changes and the averages held with them: at commit
/// and at a savepoint, as SQLite does.
pub fn persist(c: &mut Connection, cfg: &Config, p: &mut Pending) -> Result<()> {
    flush(c, cfg, p)?;
    match p.totals.take() {
        Some((n, cols)) => set_averages(c, cfg, n, &cols),
        None => Ok(()),
    }
}

/// The averages as `p`'s writes leave them.
pub fn current_averages(c: &mut Connection, cfg: &Config, p: &Pending) -> Result<Totals> {
    match &p.totals {
        Some(t) => Ok(t.clone()),
        None => averages(c, cfg),
    }
}

/// Write the pending changes as a new level-0 segment, followed by
/// SQLite's automatic and crisis merges.
pub fn flush(c: &mut Connection, cfg: &Config, p: &mut Pending) -> Result<()> {
    if p.last.is_none() {
        return Ok(());
    }
    let (mut t, run_rows) = p.take_run();
    let s = settings(c, cfg)?;
    let mut st = load(c, cfg)?;
    let mut secured = false;
    if s.secure_delete {
        let mut m = map_from(t.into_iter().map(|(k, f)| (k, f.to_doclist())));
        secured = secure_deletes(c, cfg, &st, &mut m)?;
        t = flat_terms(m);
    }
    // The tombstones written since the last flush count as writes too.
    let tombs = std::mem::take(&mut p.tomb_adds);
    if t.is_empty() {
        // Nothing written: the rows count in the next segment, unless
        // tombstones were written (SQLite's flush then happened).
        p.carry_rows = if tombs > 0 { 0 } else { p.carry_rows + run_rows };
        // The run's tombstones count as writes (SQLite's flush of its
        // tombstones alone), which may start merge work.
        auto_merge(c, cfg, &mut st, &s, tombs)?;
    } else {
        let id = st.free_id()?;
        let seg = build(id, s.pgsz, &t, false, cfg.detail);
        drop(t);
        let pages = seg.pages;
        write_segment(c, cfg, id, seg)?;
        if st.levels.is_empty() {
            st.levels.push(Level::default());
        }
        let mut new = Seg::new(id, 1, pages);
        if st.v2 {
            // The origin the run's rows were given in `%_docsize`.
            new.origin1 = st.next_origin();
            new.origin2 = new.origin1;
            new.entries = p.carry_rows + run_rows;
            p.carry_rows = 0;
        }
        st.levels[0].segs.push(new);
        st.promote(0);
        auto_merge(c, cfg, &mut st, &s, u64::from(pages) + tombs)?;
    }
    crisis_merge(c, cfg, &mut st, &s)?;
    if secured && version(c, cfg)? != 5 {
        // Files with cut-out entries are marked for older readers.
        exec(c, &format!("REPLACE INTO {}(k, v) VALUES('version', 5)", cfg.shadow("config")), &[])?;
        st.cookie = st.cookie.wrapping_add(1);
    }
    store(c, cfg, &st)
}

/// A segment's content as the writer takes it.
fn flat_terms(t: Terms) -> Vec<(Vec<u8>, Flat)> {
    t.into_iter().map(|(k, dl)| (k, Flat::from_doclist(&dl))).collect()
}

/// After a flush of `pages` leaf pages and tombstones: grow the write
/// counter and spend the merge work it allows (SQLite's automerge),
/// whole levels at a time: on the level with the most segments if it
/// has `automerge`, else on the level whose tombstones reach
/// 'deletemerge' ([`delete_merge_level`]).
fn auto_merge(c: &mut Connection, cfg: &Config, st: &mut Structure, s: &Settings, pages: u64) -> Result<()> {
    if s.automerge == 0 {
        return Ok(());
    }
    let before = st.counter;
    st.counter += pages;
    let work = (st.counter / WORK_UNIT - before / WORK_UNIT) as i64;
    let mut left = WORK_UNIT as i64 * work * st.levels.len() as i64;
    while left > 0 {
        // The level with the most segments (a merge in progress first).
        let (mut best, mut nbest) = (0, 0);
        for (l, level) in st.levels.iter().enumerate() {
            if level.merging > 0 {
                best = l;
                nbest = s.automerge;
                break;
            }
            if level.segs.len() > nbest {
                (best, nbest) = (l, level.segs.len());
            }
        }
        if nbest < s.automerge {
            match delete_merge_level(cfg, st, s) {
                Some(l) => best = l,
                None => break,
            }
        }
        left -= i64::from(merge_level(c, cfg, st, best, s.pgsz)?);
        st.promote(best + 1);
    }
    Ok(())
}

/// `contentless_delete=1` with 'deletemerge' on: the level whose
/// tombstones are the largest percentage (rounded down) of its rows, if
/// that reaches 'deletemerge'; levels above one being merged are not
/// considered. A level's merge drops the rows its tombstones hold.
fn delete_merge_level(cfg: &Config, st: &Structure, s: &Settings) -> Option<usize> {
    if !cfg.contentless_delete || s.deletemerge == 0 {
        return None;
    }
    let (mut best, mut nbest) = (None, 0);
    for (l, level) in st.levels.iter().enumerate() {
        let rows: u64 = level.segs.iter().map(|x| x.entries).sum();
        let tombs: u64 = level.segs.iter().map(|x| x.tomb_entries).sum();
        if let Some(percent) = tombs.saturating_mul(100).checked_div(rows) {
            if percent >= s.deletemerge && percent > nbest {
                (best, nbest) = (Some(l), percent);
            }
        }
        if level.merging > 0 {
            break;
        }
    }
    best
}

/// SQLite's crisis merge: from level 0 up, each level holding at least
/// `crisismerge` segments is merged into the next.
fn crisis_merge(c: &mut Connection, cfg: &Config, st: &mut Structure, s: &Settings) -> Result<()> {
    let mut l = 0;
    while l < st.levels.len() && st.levels[l].segs.len() >= s.crisismerge {
        merge_level(c, cfg, st, l, s.pgsz)?;
        st.promote(l + 1);
        l += 1;
    }
    Ok(())
}

/// Checks once per table object that `%_config` holds a format version
/// this library reads (4, or 5 once 'secure-delete' was used), as
/// SQLite's fts5 does before any read or write of the table.
pub fn check_format(checked: &std::sync::atomic::AtomicBool, c: &mut Connection, cfg: &Config) -> Result<()> {
    use std::sync::atomic::Ordering;
    if checked.load(Ordering::Relaxed) {
        return Ok(());
    }
    let v = version(c, cfg)?;
    if v != 4 && v != 5 {
        return Err(Error::sql(format!("invalid fts5 file format (found {v}, expected 4 or 5) - run 'rebuild'")));
    }
    checked.store(true, Ordering::Relaxed);
    Ok(())
}

/// The 'version' of `%_config` (0 when there is none).
pub fn version(c: &mut Connection, cfg: &Config) -> Result<i64> {
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
                // (Counted as writes at the next flush, as SQLite does.)
                p.tomb_adds += 1;
            }
        }
    }
    store(c, cfg, &st)
}

/// Merge `inputs` (oldest first) into new segment `id`, streaming: each
/// term's doclists are combined newest first (the rows an input's
/// tombstones delete left out; pure deletes dropped when `oldest`, as
/// `merge.rs` does) and written as the output's pages fill. Returns the
/// output's leaf pages (0: nothing was left to write).
fn stream_merge(c: &mut Connection, cfg: &Config, inputs: &[Seg], oldest: bool, id: u32, pgsz: usize) -> Result<u32> {
    let data = cfg.shadow("data");
    let mut streams = Vec::with_capacity(inputs.len());
    let mut dead = Vec::with_capacity(inputs.len());
    let mut heads = Vec::with_capacity(inputs.len());
    for s in inputs.iter().rev() {
        dead.push(if s.tomb_pages > 0 { Some(tombstone::read(c, &data, s)?) } else { None });
        let mut stream = SegStream::new(*s, cfg.detail);
        heads.push(stream.next(c, &data)?);
        streams.push(stream);
    }
    let mut w = Writer::new(id, pgsz, true, cfg.detail);
    let mut merged = Flat::default();
    let mut lists: Vec<(usize, Flat)> = Vec::with_capacity(streams.len());
    let mut terms: Vec<(usize, Vec<u8>)> = Vec::with_capacity(streams.len());
    let mut least: Vec<usize> = Vec::with_capacity(streams.len());
    loop {
        // The inputs whose next term is the least.
        least.clear();
        for (i, h) in heads.iter().enumerate() {
            let Some((t, _)) = h else { continue };
            match least.first().and_then(|&m| heads[m].as_ref()).map(|(m, _)| t.cmp(m)) {
                None | Some(std::cmp::Ordering::Less) => {
                    least.clear();
                    least.push(i);
                }
                Some(std::cmp::Ordering::Equal) => least.push(i),
                Some(std::cmp::Ordering::Greater) => {}
            }
        }
        if least.is_empty() {
            break;
        }
        lists.clear();
        terms.clear();
        for &i in &least {
            let next = streams[i].next(c, &data)?;
            if let Some((t, dl)) = std::mem::replace(&mut heads[i], next) {
                terms.push((i, t));
                lists.push((i, dl));
            }
        }
        let term = &terms[0].1;
        // A term of one input, nothing to leave out: its doclist as read.
        match lists.as_slice() {
            [(i, f)] if dead[*i].is_none() && plain(f, oldest) => w.term(term, f),
            _ => {
                merge_flat(&lists, &dead, oldest, &mut merged);
                if !merged.is_empty() {
                    w.term(term, &merged);
                }
            }
        }
        write_records(c, cfg, w.take_records())?;
        for ((i, t), (_, f)) in terms.drain(..).zip(lists.drain(..)) {
            streams[i].recycle(t, f);
        }
    }
    let seg = w.finish();
    let pages = seg.pages;
    write_segment(c, cfg, id, seg)?;
    Ok(pages)
}

/// Whether `f` is written by a merge as it is: rowids rising, and (for
/// the oldest data) no pure delete to drop.
fn plain(f: &Flat, oldest: bool) -> bool {
    let rising = f.rows.windows(2).all(|w| w[0].0 < w[1].0);
    rising && !(oldest && f.iter().any(|(_, _, pl)| pl.is_empty()))
}

/// The doclists of one term in `lists` (input index, doclist; newest
/// input first) combined into `out` in rowid order: of a rowid in
/// several, the newest input's entry, after the rows each input's
/// tombstones (`dead`, by input index) delete are left out of it; pure
/// deletes dropped when `oldest`.
fn merge_flat(lists: &[(usize, Flat)], dead: &[Option<std::collections::HashSet<i64>>], oldest: bool, out: &mut Flat) {
    out.rows.clear();
    out.bytes.clear();
    // Inputs whose rowids do not overlap (rows are mostly written in
    // rowid order, so each segment holds a range of its own) and that
    // leave nothing out are joined whole, in rowid order.
    let mut by_first: Vec<&Flat> = lists.iter().map(|(_, f)| f).collect();
    by_first.sort_unstable_by_key(|f| f.rows.first().map(|r| r.0));
    let disjoint = by_first.windows(2).all(|w| match (w[0].rows.last(), w[1].rows.first()) {
        (Some(a), Some(b)) => a.0 < b.0,
        _ => false,
    });
    if disjoint && lists.iter().all(|(i, f)| dead[*i].is_none() && plain(f, oldest)) {
        for f in by_first {
            let base = out.bytes.len();
            out.bytes.extend_from_slice(&f.bytes);
            out.rows.extend(f.rows.iter().map(|&(r, d, end)| (r, d, base + end)));
        }
        return;
    }
    let mut at = vec![0usize; lists.len()];
    loop {
        // The input holding the lowest next rowid (the newest on a tie),
        // each input's rows its tombstones delete passed over.
        let mut best: Option<(usize, i64)> = None;
        for (k, (i, f)) in lists.iter().enumerate() {
            if let Some(d) = &dead[*i] {
                while f.rows.get(at[k]).is_some_and(|e| d.contains(&e.0)) {
                    at[k] += 1;
                }
            }
            if let Some(&(r, _, _)) = f.rows.get(at[k]) {
                if best.is_none_or(|(_, b)| r < b) {
                    best = Some((k, r));
                }
            }
        }
        let Some((k, rowid)) = best else { break };
        let (_, delete, pl) = lists[k].1.row(at[k]);
        if !(oldest && pl.is_empty()) {
            out.push(rowid, delete, pl);
        }
        // Older inputs' entries for the same row are superseded.
        for (j, (_, f)) in lists.iter().enumerate() {
            while f.rows.get(at[j]).is_some_and(|e| e.0 == rowid) {
                at[j] += 1;
            }
        }
    }
}

/// Merge level `l` whole into one segment at the end of level `l + 1`.
/// Returns the pages written.
fn merge_level(c: &mut Connection, cfg: &Config, st: &mut Structure, l: usize, pgsz: usize) -> Result<u32> {
    let segs = st.levels[l].segs.clone();
    let oldest = st.levels[l + 1..].iter().all(|x| x.segs.is_empty());
    let id = st.free_id()?;
    if st.levels.len() <= l + 1 {
        st.levels.push(Level::default());
    }
    let pages = stream_merge(c, cfg, &segs, oldest, id, pgsz)?;
    if pages > 0 {
        let out = merged_seg(st, id, pages, &segs);
        st.levels[l + 1].segs.push(out);
    }
    for s in &segs {
        drop_segment(c, cfg, s.id)?;
    }
    st.levels[l].segs.clear();
    st.levels[l].merging = 0;
    Ok(pages)
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
    let pages = stream_merge(c, cfg, &all, true, id, s.pgsz)?;
    for s in &all {
        drop_segment(c, cfg, s.id)?;
    }
    let mut levels = vec![Level::default(); nlevel];
    if pages > 0 {
        levels[out_level].segs.push(merged_seg(&st, id, pages, &all));
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
    // Then, as SQLite's 'merge', levels whose tombstones reach
    // 'deletemerge' (each merge removes that level's tombstones, so
    // this ends).
    while let Some(l) = delete_merge_level(cfg, &st, &s) {
        merge_level(c, cfg, &mut st, l, s.pgsz)?;
        st.promote(l + 1);
        did = true;
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
    // (A missing or damaged structure is rewritten too: 'rebuild' repairs
    // an index whose `%_data` was emptied, as in SQLite.)
    let cookie = load(c, cfg).map_or(0, |st| st.cookie);
    exec(c, &format!("DELETE FROM {} WHERE id > 10", cfg.shadow("data")), &[])?;
    exec(c, &format!("DELETE FROM {}", cfg.shadow("idx")), &[])?;
    store(c, cfg, &Structure::empty(cookie, cfg.contentless_delete))
}

/// The averages record: rows, then tokens per column.
pub fn averages(c: &mut Connection, cfg: &Config) -> Result<(i64, Vec<i64>)> {
    let r = cfg.stmts.rows(c, &format!("SELECT block FROM {} WHERE id = 1", cfg.shadow("data")), &[])?;
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
    cfg.stmts.exec(c, &format!("REPLACE INTO {}(id, block) VALUES(1, ?)", cfg.shadow("data")), &[Value::Blob(b)])
}

/// Bump the configuration cookie (after a `%_config` change).
pub fn bump_cookie(c: &mut Connection, cfg: &Config) -> Result<()> {
    let mut st = load(c, cfg)?;
    st.cookie = st.cookie.wrapping_add(1);
    // (Only the cookie moves: fts5vocab cursors go on, as in SQLite.)
    store_record(c, cfg, &st)
}
