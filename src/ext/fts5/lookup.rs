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
//! SQL run here uses fixed texts with bound parameters, so the
//! connection's compiled-program cache answers all but the first
//! prepare.
//!
//! Invariant: [`Reader::token`] gives exactly the rows and positions a
//! read of the whole index (`index::read_all` merged with the pending
//! runs) holds for the token's key(s).

use super::codec::{get, positions, Doclist, Entry, Terms};
use super::config::{Config, Detail};
use super::index;
use super::merge::merge;
use super::pending::{terms, Pending};
use super::segread::{leaf_layout, none_entry};
use super::structure::{leaf_id, Seg};
use super::tombstone;
use crate::connection::{Connection, StepResult};
use crate::error::{Error, Result};
use crate::value::Value;
use std::collections::{BTreeMap, HashMap, HashSet};

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

/// A token's rows: rowid → its (column, position) pairs, ascending.
pub type Hits = BTreeMap<i64, Vec<(usize, usize)>>;

/// Reads token doclists for one query.
pub struct Reader {
    detail: Detail,
    /// `SELECT pgno FROM %_idx WHERE segid = ? AND term <= ?` (greatest).
    sql_le: String,
    /// The same with `term < ?`.
    sql_lt: String,
    /// Leaf pages by id range.
    sql_pages: String,
    data: String,
    /// Segments, newest first.
    segs: Vec<Seg>,
    /// Rows each segment's tombstones delete, read when first needed.
    dead: HashMap<u32, HashSet<i64>>,
    /// The pending runs' contents, newest first.
    pending: Vec<Terms>,
}

impl Reader {
    /// A reader of the index of `cfg` as it is now, with `p`'s changes.
    pub fn new(c: &mut Connection, cfg: &Config, p: &Pending) -> Result<Reader> {
        let st = index::load(c, cfg)?;
        let idx = cfg.shadow("idx");
        let data = cfg.shadow("data");
        Ok(Reader {
            detail: cfg.detail,
            sql_le: format!("SELECT pgno FROM {idx} WHERE segid = ?1 AND term <= ?2 ORDER BY term DESC LIMIT 1"),
            sql_lt: format!("SELECT pgno FROM {idx} WHERE segid = ?1 AND term < ?2 ORDER BY term DESC LIMIT 1"),
            sql_pages: format!("SELECT id, block FROM {data} WHERE id >= ?1 AND id <= ?2 ORDER BY id"),
            data,
            segs: st.newest_first(),
            dead: HashMap::new(),
            pending: p.runs().into_iter().rev().map(|r| terms(cfg, r)).collect(),
        })
    }

    /// The rows holding `token` (any token it starts, for a prefix),
    /// with its positions (under `detail=column`, the columns as
    /// positions 0; under `detail=none`, column 0 position 0).
    pub fn token(&mut self, c: &mut Connection, token: &str, prefix: bool) -> Result<Hits> {
        let mut lo = vec![b'0'];
        lo.extend_from_slice(token.as_bytes());
        let hi = if prefix { successor(&lo) } else { Some([lo.as_slice(), &[0]].concat()) };
        let in_range = |k: &[u8]| k >= lo.as_slice() && hi.as_ref().is_none_or(|h| k < h.as_slice());
        let mut inputs: Vec<Terms> = Vec::with_capacity(self.pending.len() + self.segs.len());
        for t in &self.pending {
            inputs.push(t.iter().filter(|(k, _)| in_range(k)).map(|(k, v)| (k.clone(), v.clone())).collect());
        }
        for s in self.segs.clone() {
            let mut t = self.segment(c, s, &lo, hi.as_deref())?;
            if s.tomb_pages > 0 && !t.is_empty() {
                if !self.dead.contains_key(&s.id) {
                    let d = tombstone::read(c, &self.data, &s)?;
                    self.dead.insert(s.id, d);
                }
                let dead = &self.dead[&s.id];
                for dl in t.values_mut() {
                    dl.retain(|r, _| !dead.contains(r));
                }
            }
            inputs.push(t);
        }
        let merged = merge(inputs, true);
        let several = merged.len() > 1;
        let mut out = Hits::new();
        for dl in merged.into_values() {
            for (rowid, e) in dl {
                let v = out.entry(rowid).or_default();
                match self.detail {
                    Detail::Full => v.extend(positions(&e.poslist)?),
                    Detail::Column => v.extend(super::codec::columns(&e.poslist)?.into_iter().map(|c| (c, 0))),
                    Detail::None => v.push((0, 0)),
                }
            }
        }
        if several {
            for v in out.values_mut() {
                v.sort_unstable();
                v.dedup();
            }
        }
        Ok(out)
    }

    /// The greatest `%_idx` page of `seg` whose key is <= (`lt`: <) `key`.
    fn idx_page(&self, c: &mut Connection, seg: Seg, key: &[u8], lt: bool) -> Result<Option<u32>> {
        let sql = if lt { &self.sql_lt } else { &self.sql_le };
        let r = query(c, sql, &[Value::Integer(i64::from(seg.id)), Value::Blob(key.to_vec())])?;
        Ok(r.first().map(|r| (r[0].as_ref().to_i64() >> 1) as u32))
    }

    /// The terms of `seg` in [lo, hi) with their doclists.
    fn segment(&self, c: &mut Connection, seg: Seg, lo: &[u8], hi: Option<&[u8]>) -> Result<Terms> {
        let Some(start) = self.idx_page(c, seg, lo, false)? else {
            return Ok(Terms::new());
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
            let pages = query(c, &self.sql_pages, &[Value::Integer(leaf_id(seg.id, from)), Value::Integer(leaf_id(seg.id, upto))])?;
            for (k, r) in pages.iter().enumerate() {
                match (&r[0], &r[1]) {
                    (Value::Integer(id), Value::Blob(b)) if *id == leaf_id(seg.id, from + k as u32) => {
                        if scan.page(b, from == start && k == 0)? {
                            return Ok(scan.out);
                        }
                    }
                    _ => return Err(Error::corrupt()),
                }
            }
            if pages.len() as u32 != upto - from + 1 {
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
/// doclists of the terms in [lo, hi).
struct Scan<'a> {
    detail: Detail,
    lo: &'a [u8],
    hi: Option<&'a [u8]>,
    term: Option<Vec<u8>>,
    keep: bool,
    dl: Doclist,
    /// An entry whose position list continues on the next page.
    open: Option<(i64, Entry, usize)>,
    last: i64,
    out: Terms,
}

impl<'a> Scan<'a> {
    fn new(detail: Detail, lo: &'a [u8], hi: Option<&'a [u8]>) -> Scan<'a> {
        Scan { detail, lo, hi, term: None, keep: false, dl: Doclist::new(), open: None, last: 0, out: Terms::new() }
    }

    fn close_term(&mut self) {
        if let Some(t) = self.term.take() {
            let dl = std::mem::take(&mut self.dl);
            if self.keep && !dl.is_empty() {
                self.out.insert(t, dl);
            }
        }
    }

    /// The walk reached the segment's end.
    fn finish(mut self) -> Result<Terms> {
        if self.open.is_some() {
            return Err(Error::corrupt());
        }
        self.close_term();
        Ok(self.out)
    }

    /// Take one page (`first`: the walk starts here, at its first term).
    /// Returns true once a term past the range has begun.
    fn page(&mut self, page: &[u8], first: bool) -> Result<bool> {
        let (first_rowid, size, offs) = leaf_layout(page)?;
        let mut i = 4;
        if first {
            i = offs.first().copied().unwrap_or(size);
        }
        if let Some((rowid, mut e, need)) = self.open.take() {
            let n = need.min(size.saturating_sub(i));
            e.poslist.extend_from_slice(page.get(i..i + n).ok_or_else(Error::corrupt)?);
            i += n;
            if n < need {
                self.open = Some((rowid, e, need - n));
                return Ok(false);
            }
            if self.keep {
                self.dl.insert(rowid, e);
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
                self.close_term();
                if self.hi.is_some_and(|h| new.as_slice() >= h) {
                    return Ok(true);
                }
                self.keep = new.as_slice() >= self.lo;
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
                let e;
                (e, i) = none_entry(page, j, size, &offs);
                self.dl.insert(rowid, e);
                continue;
            }
            let (sz, j) = get(page, j)?;
            let need = (sz >> 1) as usize;
            let mut e = Entry { delete: sz & 1 == 1, poslist: Vec::with_capacity(need) };
            let n = need.min(size.saturating_sub(j));
            e.poslist.extend_from_slice(page.get(j..j + n).ok_or_else(Error::corrupt)?);
            i = j + n;
            if n < need {
                self.open = Some((rowid, e, need - n));
            } else {
                self.dl.insert(rowid, e);
            }
        }
        Ok(false)
    }
}
