//! # Reading the doclists of a query's terms from the index
//!
//! What a MATCH needs of the index is the doclists of its tokens, not
//! the whole index: for each segment, `%_idx` names the leaf page on
//! which a term (or the first term of a prefix range) would start (the
//! greatest key not above it), and the pages from there on are read
//! until a term past the range begins. Within those pages the terms
//! before the range are skipped by the footers' term offsets. The
//! segments' answers are merged newest first with the transaction's
//! pending changes (as `merge.rs` merges whole segments: the newest
//! entry of a rowid wins, a pure delete hides the row), after dropping
//! the rows a `contentless_delete=1` segment's tombstones hold.
//!
//! A segment's `%_idx` entries are read whole once and kept per table
//! while the database's change sequence stays the same ([`IdxCache`]).
//!
//! SQL run here uses fixed texts with bound parameters, so the
//! connection's compiled-program cache answers all but the first
//! prepare.
//!
//! Invariant: [`Reader::token`] gives exactly the rows and positions a
//! read of the whole index (`index::read_all` merged with the pending
//! runs) holds for the token's key(s).

use super::codec::{get, Terms, PRESENT};
use super::config::{Config, Detail};
use super::index;
use super::pending::Pending;
use super::segread::leaf_layout;
use super::structure::{leaf_id, Seg};
use super::tombstone;
use crate::connection::{Connection, Statement, StepResult};
use crate::error::{Error, Result};
use crate::value::Value;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

/// Run `sql` (a fixed text: the compiled-program cache keeps it) with
/// `params` bound, returning its rows.
pub fn query(c: &mut Connection, sql: &str, params: &[Value]) -> Result<Vec<Vec<Value>>> {
    let (st, _) = c.prepare_terminated(sql.as_bytes())?;
    let Some(mut st) = st else { return Ok(Vec::new()) };
    for (i, p) in params.iter().enumerate() {
        st.bind(i + 1, p.clone())?;
    }
    let mut out = Vec::new();
    loop {
        match st.step(c)? {
            StepResult::Row => out.push((0..st.column_count()).map(|i| st.column(i).clone()).collect()),
            StepResult::Done => return Ok(out),
            StepResult::Io => return Err(Error::sql("fts5: unexpected I/O wait")),
        }
    }
}

/// A token's rows, ascending, each with its (column, position) pairs,
/// ascending, kept flat (one allocation for all rows, not one per row).
#[derive(Debug, Default, Clone)]
pub struct Hits {
    rowids: Vec<i64>,
    /// Row k's pairs are `pairs[start[k]..start[k + 1]]`.
    start: Vec<u32>,
    pairs: Vec<(usize, usize)>,
}

impl Hits {
    /// Rows holding the token.
    pub fn len(&self) -> usize {
        self.rowids.len()
    }

    /// Whether no row holds the token.
    pub fn is_empty(&self) -> bool {
        self.rowids.is_empty()
    }

    /// The rowids, ascending.
    pub fn rowids(&self) -> &[i64] {
        &self.rowids
    }

    /// The pairs of the k-th row.
    pub fn row(&self, k: usize) -> &[(usize, usize)] {
        &self.pairs[self.start[k] as usize..self.start[k + 1] as usize]
    }

    /// The pairs of `rowid`, if it holds the token.
    pub fn get(&self, rowid: i64) -> Option<&[(usize, usize)]> {
        self.rowids.binary_search(&rowid).ok().map(|k| self.row(k))
    }

    /// The hits of either token (a query token and its synonyms): every
    /// row holding one, with the (column, position) pairs of both.
    pub fn union(&self, other: &Hits) -> Hits {
        let mut out = Hits { rowids: Vec::new(), start: vec![0], pairs: Vec::new() };
        let (mut i, mut j) = (0, 0);
        while i < self.len() || j < other.len() {
            let a = self.rowids.get(i).copied();
            let b = other.rowids.get(j).copied();
            let rowid = match (a, b) {
                (Some(x), Some(y)) => x.min(y),
                (Some(x), None) => x,
                (None, Some(y)) => y,
                (None, None) => break,
            };
            let from = out.pairs.len();
            if a == Some(rowid) {
                out.pairs.extend_from_slice(self.row(i));
                i += 1;
            }
            if b == Some(rowid) {
                out.pairs.extend_from_slice(other.row(j));
                j += 1;
            }
            out.pairs[from..].sort_unstable();
            dedup_tail(&mut out.pairs, from);
            out.rowids.push(rowid);
            out.start.push(out.pairs.len() as u32);
        }
        debug_assert!(out.rowids.windows(2).all(|w| w[0] < w[1]));
        out
    }
}

/// Drop the repeated pairs of the sorted `v[from..]`.
fn dedup_tail(v: &mut Vec<(usize, usize)>, from: usize) {
    let mut tail = v.split_off(from);
    tail.dedup();
    v.extend(tail);
}

/// One doclist entry read for a token: its term (an id of [`Gathered`]),
/// rowid and position list (a range of [`Gathered::buf`]; empty for a
/// pure delete, whose flag alone matters: it hides older entries).
#[derive(Debug, Clone, Copy)]
struct Ent {
    term: u32,
    rowid: i64,
    start: u32,
    end: u32,
}

/// Sorts `ents` stably by (term, rowid) or by rowid alone: one copy of
/// std's stable sort for both orders (each `sort_by_key` with its own key
/// closure was a copy of its own, ~7 KB).
#[inline(never)]
fn sort_ents(ents: &mut [Ent], by_term: bool) {
    ents.sort_by(|a, b| if by_term { (a.term, a.rowid).cmp(&(b.term, b.rowid)) } else { a.rowid.cmp(&b.rowid) });
}

/// The entries of one token's keys from every input, newest input first.
#[derive(Default)]
struct Gathered {
    buf: Vec<u8>,
    ents: Vec<Ent>,
    terms: HashMap<Vec<u8>, u32>,
}

/// Buffers a thread's queries reuse: a common term's doclist is read
/// into a few large vectors, and allocating them afresh for every query
/// costs more than the reading (fresh pages are faulted in and zeroed).
#[derive(Default)]
struct Spare {
    buf: Vec<u8>,
    ents: Vec<Ent>,
    hits: Vec<Hits>,
}

/// Buffers larger than this are not kept.
const SPARE_BYTES: usize = 16 << 20;

thread_local! {
    static SPARE: std::cell::RefCell<Spare> = std::cell::RefCell::new(Spare::default());
}

/// Give `hits`' buffers back for later queries of this thread.
pub fn recycle(hits: impl IntoIterator<Item = Hits>) {
    SPARE.with(|s| {
        let mut s = s.borrow_mut();
        for mut h in hits {
            if s.hits.len() < 8 && h.pairs.capacity() * 16 + h.rowids.capacity() * 12 <= SPARE_BYTES {
                h.rowids.clear();
                h.start.clear();
                h.pairs.clear();
                s.hits.push(h);
            }
        }
    });
}

impl Gathered {
    /// An empty one, with spare buffers if there are.
    fn new() -> Gathered {
        SPARE.with(|s| {
            let mut s = s.borrow_mut();
            Gathered { buf: std::mem::take(&mut s.buf), ents: std::mem::take(&mut s.ents), terms: HashMap::new() }
        })
    }

    /// Keep the buffers for later.
    fn give_back(mut self) {
        if self.buf.capacity() + self.ents.capacity() * std::mem::size_of::<Ent>() <= SPARE_BYTES {
            self.buf.clear();
            self.ents.clear();
            SPARE.with(|s| {
                let mut s = s.borrow_mut();
                s.buf = self.buf;
                s.ents = self.ents;
            });
        }
    }

    fn term_id(&mut self, t: &[u8]) -> u32 {
        if let Some(&id) = self.terms.get(t) {
            return id;
        }
        let id = self.terms.len() as u32;
        self.terms.insert(t.to_vec(), id);
        id
    }

    fn push(&mut self, term: u32, rowid: i64, pl: &[u8]) {
        let start = self.buf.len() as u32;
        self.buf.extend_from_slice(pl);
        self.ents.push(Ent { term, rowid, start, end: self.buf.len() as u32 });
    }

    /// Merge the inputs as `merge.rs` merges segments (per term and
    /// rowid the newest entry wins; pure deletes then drop out), then
    /// unite the terms' positions per row.
    fn into_hits(mut self, detail: Detail) -> Result<Hits> {
        // Stable: among equal (term, rowid) the newest input stays first.
        // (The inputs are sorted runs, which the stable sort merges.)
        // (One input of one term, the common case, is sorted already.)
        if !self.ents.is_sorted_by_key(|e| (e.term, e.rowid)) {
            sort_ents(&mut self.ents, true);
        }
        self.ents.dedup_by(|later, first| later.term == first.term && later.rowid == first.rowid);
        self.ents.retain(|e| e.end > e.start);
        let several = self.terms.len() > 1;
        if several {
            sort_ents(&mut self.ents, false);
        }
        let mut out = SPARE.with(|s| s.borrow_mut().hits.pop()).unwrap_or_default();
        out.rowids.reserve(self.ents.len());
        out.start.reserve(self.ents.len() + 1);
        out.pairs.reserve(self.ents.len() + self.ents.len() / 2);
        out.start.push(0);
        let mut k = 0;
        while k < self.ents.len() {
            let rowid = self.ents[k].rowid;
            let from = out.pairs.len();
            let mut n = 0;
            while k < self.ents.len() && self.ents[k].rowid == rowid {
                let e = self.ents[k];
                let pl = &self.buf[e.start as usize..e.end as usize];
                match detail {
                    Detail::Full => super::codec::append_positions(pl, &mut out.pairs)?,
                    Detail::Column => out.pairs.extend(super::codec::columns(pl)?.into_iter().map(|c| (c, 0))),
                    Detail::None => out.pairs.push((0, 0)),
                }
                k += 1;
                n += 1;
            }
            if n > 1 {
                let row = &mut out.pairs[from..];
                row.sort_unstable();
                let mut w = from;
                for r in from..out.pairs.len() {
                    if r == from || out.pairs[r] != out.pairs[w - 1] {
                        out.pairs[w] = out.pairs[r];
                        w += 1;
                    }
                }
                out.pairs.truncate(w);
            }
            out.rowids.push(rowid);
            out.start.push(out.pairs.len() as u32);
        }
        self.give_back();
        Ok(out)
    }
}

/// The `%_idx` entries of the segments read, per segment sorted by
/// term, valid while the database's change sequence is `seq`.
#[derive(Default)]
pub struct IdxCache {
    seq: Option<u64>,
    segs: HashMap<u32, Vec<(Vec<u8>, u32)>>,
    entries: usize,
}

/// Entries an [`IdxCache`] holds at most (one per leaf page of the index).
const IDX_CACHE_ENTRIES: usize = 1 << 20;

/// Reads token doclists for one query.
pub struct Reader {
    detail: Detail,
    /// `tokendata=1`: a token also finds the terms that are it followed
    /// by a zero byte and data.
    tokendata: bool,
    /// `SELECT term, pgno FROM %_idx WHERE segid = ?1`.
    sql_idx: String,
    /// The `%_idx` entries read (shared with the table).
    idx: Arc<Mutex<IdxCache>>,
    /// Leaf pages by id range.
    sql_pages: String,
    data: String,
    /// Segments, newest first.
    segs: Vec<Seg>,
    /// Rows each segment's tombstones delete, read when first needed.
    dead: HashMap<u32, HashSet<i64>>,
    /// The pending changes.
    pending: Terms,
}

impl Reader {
    /// A reader of the index of `cfg` as it is now, with `p`'s changes.
    pub fn new(c: &mut Connection, cfg: &Config, p: &Pending, idx_cache: &Arc<Mutex<IdxCache>>) -> Result<Reader> {
        let st = index::load(c, cfg)?;
        {
            let seq = c.change_sequence(&cfg.db);
            let mut cache = idx_cache.lock().unwrap_or_else(|e| e.into_inner());
            if seq.is_none() || cache.seq != seq {
                *cache = IdxCache { seq, ..IdxCache::default() };
            }
        }
        let idx = cfg.shadow("idx");
        let data = cfg.shadow("data");
        Ok(Reader {
            detail: cfg.detail,
            tokendata: cfg.tokendata,
            sql_idx: format!("SELECT term, pgno FROM {idx} WHERE segid = ?1"),
            idx: idx_cache.clone(),
            sql_pages: format!("SELECT id, block FROM {data} WHERE id >= ?1 AND id <= ?2 ORDER BY id"),
            data,
            segs: st.newest_first(),
            dead: HashMap::new(),
            pending: p.terms(),
        })
    }

    /// The rows holding `token` (any token it starts, for a prefix),
    /// with its positions (under `detail=column`, the columns as
    /// positions 0; under `detail=none`, column 0 position 0).
    pub fn token(&mut self, c: &mut Connection, token: &str, prefix: bool) -> Result<Hits> {
        let mut lo = vec![b'0'];
        lo.extend_from_slice(token.as_bytes());
        // The terms are `lo` itself (with `tokendata=1` also `lo`, 0x00,
        // data: those sort before `lo` 0x01), or all it starts.
        let hi = if prefix { successor(&lo) } else { Some([lo.as_slice(), &[u8::from(self.tokendata)]].concat()) };
        let mut g = Gathered::new();
        let range = self.pending.range::<[u8], _>((std::ops::Bound::Included(lo.as_slice()), std::ops::Bound::Unbounded));
        for (k, dl) in range.take_while(|(k, _)| hi.as_ref().is_none_or(|h| k.as_slice() < h.as_slice())) {
            let id = g.term_id(k);
            for (rowid, e) in dl {
                g.push(id, *rowid, &e.poslist);
            }
        }
        for s in self.segs.clone() {
            let first = g.ents.len();
            self.segment(c, s, &lo, hi.as_deref(), &mut g)?;
            if s.tomb_pages > 0 && g.ents.len() > first {
                if !self.dead.contains_key(&s.id) {
                    let d = tombstone::read(c, &self.data, &s)?;
                    self.dead.insert(s.id, d);
                }
                let dead = &self.dead[&s.id];
                let mut k = 0;
                g.ents.retain(|e| {
                    k += 1;
                    k <= first || !dead.contains(&e.rowid)
                });
            }
        }
        g.into_hits(self.detail)
    }

    /// The greatest `%_idx` page of `seg` whose key is <= (`lt`: <) `key`.
    fn idx_page(&self, c: &mut Connection, seg: Seg, key: &[u8], lt: bool) -> Result<Option<u32>> {
        let mut cache = self.idx.lock().unwrap_or_else(|e| e.into_inner());
        if !cache.segs.contains_key(&seg.id) {
            // A segment's `%_idx` entries, read once while nothing changes
            // (SQLite's own `ORDER BY term DESC LIMIT 1` lookup, per token
            // and segment, costs more than reading them all once).
            let mut list: Vec<(Vec<u8>, u32)> = query(c, &self.sql_idx, &[Value::Integer(i64::from(seg.id))])?
                .into_iter()
                .map(|r| {
                    let term = match &r[0] {
                        Value::Blob(b) => b.clone(),
                        v => v.as_ref().to_text().map(|t| t.into_owned()).unwrap_or_default(),
                    };
                    (term, (r[1].as_ref().to_i64() >> 1) as u32)
                })
                .collect();
            crate::util::cold_sort::sort(&mut list);
            cache.entries += list.len();
            if cache.entries > IDX_CACHE_ENTRIES {
                cache.segs.clear();
                cache.entries = list.len();
            }
            cache.segs.insert(seg.id, list);
        }
        let list = &cache.segs[&seg.id];
        let n = list.partition_point(|(t, _)| if lt { t.as_slice() < key } else { t.as_slice() <= key });
        Ok(n.checked_sub(1).map(|k| list[k].1))
    }

    /// The entries of the terms of `seg` in [lo, hi), added to `g`.
    fn segment(&self, c: &mut Connection, seg: Seg, lo: &[u8], hi: Option<&[u8]>, g: &mut Gathered) -> Result<()> {
        let Some(start) = self.idx_page(c, seg, lo, false)? else {
            return Ok(());
        };
        let start = start.max(seg.first);
        let end = match hi {
            Some(h) => self.idx_page(c, seg, h, true)?.unwrap_or(start).max(start),
            None => seg.last,
        };
        let mut scan = Scan::new(self.detail, lo, hi);
        let mut from = start;
        let mut upto = (end + 1).min(seg.last);
        let mut chunk = 4u32;
        loop {
            let (st, _) = c.prepare_terminated(self.sql_pages.as_bytes())?;
            let Some(mut st) = st else { return Err(Error::corrupt()) };
            let walked = walk_pages(c, &mut st, seg.id, from, upto, from == start, &mut scan, g);
            st.reset(c);
            let Some(k) = walked? else { return Ok(()) };
            if k != upto - from + 1 {
                return Err(Error::corrupt());
            }
            if upto >= seg.last {
                return scan.finish();
            }
            from = upto + 1;
            upto = upto.saturating_add(chunk).min(seg.last);
            chunk = chunk.saturating_mul(2);
        }
    }
}

/// Feed leaf pages `from..=upto` of segment `seg` to `scan` (`starts`:
/// the walk starts on `from`). Returns the pages read, or None once a
/// term past the range began.
fn walk_pages(
    c: &mut Connection,
    st: &mut Statement,
    seg: u32,
    from: u32,
    upto: u32,
    starts: bool,
    scan: &mut Scan<'_>,
    g: &mut Gathered,
) -> Result<Option<u32>> {
    st.bind(1, Value::Integer(leaf_id(seg, from)))?;
    st.bind(2, Value::Integer(leaf_id(seg, upto)))?;
    let mut k = 0u32;
    loop {
        match st.step(c)? {
            StepResult::Row => {}
            StepResult::Done => return Ok(Some(k)),
            StepResult::Io => return Err(Error::sql("fts5: unexpected I/O wait")),
        }
        match (st.column(0), st.column(1)) {
            (Value::Integer(id), Value::Blob(b)) if *id == leaf_id(seg, from + k) => {
                if scan.page(b, starts && k == 0, g)? {
                    return Ok(None);
                }
            }
            _ => return Err(Error::corrupt()),
        }
        k += 1;
    }
}

/// The least key above every key starting with `k` (None: no bound).
fn successor(k: &[u8]) -> Option<Vec<u8>> {
    let mut s = k.to_vec();
    while let Some(b) = s.pop() {
        if b < 0xff {
            s.push(b + 1);
            return Some(s);
        }
    }
    None
}

/// The state of a walk over consecutive leaf pages, collecting the
/// entries of the terms in [lo, hi).
struct Scan<'a> {
    detail: Detail,
    lo: &'a [u8],
    hi: Option<&'a [u8]>,
    term: Option<Vec<u8>>,
    keep: bool,
    /// The kept term's id in the gathered entries.
    id: u32,
    /// An entry (its index) whose position list continues on the next
    /// page, and the bytes still to come.
    open: Option<(usize, usize)>,
    last: i64,
}

impl<'a> Scan<'a> {
    fn new(detail: Detail, lo: &'a [u8], hi: Option<&'a [u8]>) -> Scan<'a> {
        Scan { detail, lo, hi, term: None, keep: false, id: 0, open: None, last: 0 }
    }

    /// The walk reached the segment's end.
    fn finish(self) -> Result<()> {
        if self.open.is_some() {
            return Err(Error::corrupt());
        }
        Ok(())
    }

    /// Take one page (`first`: the walk starts here, at its first term).
    /// Returns true once a term past the range has begun.
    fn page(&mut self, page: &[u8], first: bool, g: &mut Gathered) -> Result<bool> {
        let (first_rowid, size, offs) = leaf_layout(page)?;
        let mut i = 4;
        if first {
            i = offs.first().copied().unwrap_or(size);
        }
        if let Some((at, need)) = self.open.take() {
            let n = need.min(size.saturating_sub(i));
            g.buf.extend_from_slice(page.get(i..i + n).ok_or_else(Error::corrupt)?);
            g.ents[at].end = g.buf.len() as u32;
            i += n;
            if n < need {
                self.open = Some((at, need - n));
                return Ok(false);
            }
        }
        let mut absolute = false;
        let mut next_term = offs.iter().position(|&o| o >= i);
        while i < size {
            if let Some(t) = next_term.filter(|&t| offs[t] == i) {
                let new = if t == 0 {
                    let (n, j) = get(page, i)?;
                    let b = page.get(j..j + n as usize).ok_or_else(Error::corrupt)?;
                    i = j + n as usize;
                    b.to_vec()
                } else {
                    let (sh, j) = get(page, i)?;
                    let (n, j) = get(page, j)?;
                    let prev = self.term.as_ref().ok_or_else(Error::corrupt)?;
                    let mut b = prev.get(..sh as usize).ok_or_else(Error::corrupt)?.to_vec();
                    b.extend_from_slice(page.get(j..j + n as usize).ok_or_else(Error::corrupt)?);
                    i = j + n as usize;
                    b
                };
                if self.hi.is_some_and(|h| new.as_slice() >= h) {
                    return Ok(true);
                }
                self.keep = new.as_slice() >= self.lo;
                if self.keep {
                    self.id = g.term_id(&new);
                }
                self.term = Some(new);
                absolute = true;
                next_term = if t + 1 < offs.len() { Some(t + 1) } else { None };
                continue;
            }
            if self.term.is_none() || !self.keep {
                // Entries of a term before the range (or the tail of a
                // doclist the walk started in): on to the next term.
                i = next_term.map_or(size, |t| offs[t]);
                continue;
            }
            let (v, j) = get(page, i)?;
            let rowid = if absolute || i == first_rowid { v as i64 } else { self.last.wrapping_add(v as i64) };
            absolute = false;
            self.last = rowid;
            if self.detail == Detail::None {
                // A rowid, then 0x00 for a delete, then 0x00 again if the
                // row is still there (a marker is never a term's start).
                let marker = |i: usize| i < size && page[i] == 0 && !offs.contains(&i);
                let mut present = true;
                i = j;
                if marker(i) {
                    i += 1;
                    if marker(i) {
                        i += 1;
                    } else {
                        present = false;
                    }
                }
                g.push(self.id, rowid, if present { PRESENT } else { &[] });
                continue;
            }
            let (sz, j) = get(page, j)?;
            let need = (sz >> 1) as usize;
            let n = need.min(size.saturating_sub(j));
            g.push(self.id, rowid, page.get(j..j + n).ok_or_else(Error::corrupt)?);
            i = j + n;
            if n < need {
                self.open = Some((g.ents.len() - 1, need - n));
            }
        }
        Ok(false)
    }
}
