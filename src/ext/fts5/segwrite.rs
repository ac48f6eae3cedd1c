//! # Writing one segment: leaf pages, `%_idx` rows, doclist indexes
//!
//! Reproduces the page layout SQLite 3.54.1 writes (established by
//! comparing its `%_data` rows with ours on random inputs; see
//! `FORMAT.md`, "Segments over several pages"):
//! - a page is at most `pgsz` bytes, except that a rowid and its size
//!   varint are never separated and a position list is cut only between
//!   varints, so a page may run a few bytes over;
//! - a term starts a new page when the page could not hold it with two
//!   bytes to spare; the first term on a page is written whole, later
//!   ones share a prefix with the previous term;
//! - the first rowid of a term's doclist and the first rowid on a page
//!   are absolute, the others deltas;
//! - each page on which a term starts has a `%_idx` row keyed by the
//!   shortest prefix of that term that sorts after the previous term
//!   (the segment's first page: the empty key);
//! - a term whose doclist runs over at least four more pages gets a
//!   doclist index: the first rowid of each of those pages (0 for a page
//!   without one), split over pages of `pgsz` bytes under a tree of
//!   parent pages, and the flag bit of its page's `%_idx` row.
//!
//! Invariant: terms are given in increasing byte order, and each
//! doclist in increasing rowid order (checked: fts5_segment_order).

use super::codec::{put, Flat};
use super::config::Detail;
use super::structure::{dlidx_id, leaf_id};
use std::collections::BTreeMap;

/// What a segment consists of.
#[derive(Debug, Default)]
pub struct Segment {
    /// `%_data` rows (leaf pages and doclist-index pages).
    pub records: Vec<(i64, Vec<u8>)>,
    /// `%_idx` rows: (key, pgno * 2 + doclist-index flag).
    pub idx: Vec<(Vec<u8>, i64)>,
    /// Number of leaf pages.
    pub pages: u32,
}

struct Open {
    start: u32,
    rowids: BTreeMap<u32, i64>,
}

/// Builds one segment.
pub struct Writer {
    segid: u32,
    pgsz: usize,
    buf: Vec<u8>,
    foot: Vec<usize>,
    foot_len: usize,
    first_rowid: usize,
    prev: Option<Vec<u8>>,
    idx: Vec<(Vec<u8>, u32, bool)>,
    open: Option<Open>,
    out: Segment,
    merging: bool,
    detail: Detail,
}

fn shared(a: &[u8], b: &[u8]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

impl Writer {
    /// A writer for segment `segid` with pages of `pgsz` bytes.
    pub fn new(segid: u32, pgsz: usize, merging: bool, detail: Detail) -> Writer {
        Writer {
            segid,
            pgsz,
            buf: vec![0; 4],
            foot: Vec::new(),
            foot_len: 0,
            first_rowid: 0,
            prev: None,
            idx: Vec::new(),
            open: None,
            out: Segment::default(),
            merging,
            detail,
        }
    }

    fn pgno(&self) -> u32 {
        self.out.pages + 1
    }

    fn full(&self) -> bool {
        self.buf.len() + self.foot_len >= self.pgsz
    }

    fn push_foot(&mut self, off: usize) {
        let last = self.foot.last().copied().unwrap_or(0);
        self.foot_len += super::codec::len((off - last) as u64);
        self.foot.push(off);
    }

    fn flush(&mut self) {
        let mut page = std::mem::replace(&mut self.buf, vec![0; 4]);
        let first = self.first_rowid as u16;
        let size = page.len() as u16;
        page[0..2].copy_from_slice(&first.to_be_bytes());
        page[2..4].copy_from_slice(&size.to_be_bytes());
        let mut last = 0;
        for o in std::mem::take(&mut self.foot) {
            put(&mut page, (o - last) as u64);
            last = o;
        }
        let id = leaf_id(self.segid, self.pgno());
        self.out.records.push((id, page));
        self.out.pages += 1;
        self.foot_len = 0;
        self.first_rowid = 0;
    }

    /// Append a term and its doclist.
    pub fn term(&mut self, term: &[u8], dl: &Flat) {
        // invariant: fts5_segment_order
        debug_assert!(self.prev.as_deref().is_none_or(|p| p < term));
        let crowded = (!self.foot.is_empty() || self.buf.len() > 4) && self.buf.len() + self.foot_len + term.len() + 2 >= self.pgsz;
        if self.full() || crowded {
            self.flush();
        }
        self.close(false);
        let start = self.pgno();
        let sh = self.prev.as_deref().map_or(0, |p| shared(p, term));
        if self.foot.is_empty() {
            let key = if self.prev.is_none() { Vec::new() } else { term[..(sh + 1).min(term.len())].to_vec() };
            self.idx.push((key, start, false));
            self.push_foot(self.buf.len());
            put(&mut self.buf, term.len() as u64);
            self.buf.extend_from_slice(term);
        } else {
            self.push_foot(self.buf.len());
            put(&mut self.buf, sh as u64);
            put(&mut self.buf, (term.len() - sh) as u64);
            self.buf.extend_from_slice(&term[sh..]);
        }
        match &mut self.prev {
            Some(p) => {
                p.clear();
                p.extend_from_slice(term);
            }
            None => self.prev = Some(term.to_vec()),
        }
        let mut rowids = BTreeMap::new();
        let mut last: Option<i64> = None;
        for (rowid, delete, pl) in dl.iter() {
            if self.merging && self.full() {
                self.flush();
            }
            let page_first = self.foot.is_empty() && self.first_rowid == 0;
            if last.is_none() || page_first {
                if page_first {
                    self.first_rowid = self.buf.len();
                }
                put(&mut self.buf, rowid as u64);
            } else if let Some(l) = last {
                put(&mut self.buf, rowid.wrapping_sub(l) as u64);
            }
            if self.pgno() != start {
                rowids.entry(self.pgno()).or_insert(rowid);
            }
            last = Some(rowid);
            if self.detail == Detail::None {
                // No size and no positions: the delete flag and "holds the
                // term" are marker bytes after the rowid.
                if delete {
                    self.buf.push(0);
                    if !pl.is_empty() {
                        self.buf.push(0);
                    }
                }
                if self.full() {
                    self.flush();
                }
                continue;
            }
            put(&mut self.buf, (pl.len() as u64) * 2 + u64::from(delete));
            if pl.is_empty() {
                // A pure delete: the page is cut once it is over the size.
                if self.buf.len() + self.foot_len > self.pgsz {
                    self.flush();
                }
            } else if self.buf.len() + self.foot_len + pl.len() <= self.pgsz {
                self.buf.extend_from_slice(pl);
            } else {
                let mut rest = pl;
                while !rest.is_empty() {
                    let space = self.pgsz.saturating_sub(self.buf.len() + self.foot_len);
                    let mut n = space.min(rest.len());
                    // Never cut a varint.
                    while n > 0 && n < rest.len() && rest[n - 1] & 0x80 != 0 {
                        n += 1;
                    }
                    self.buf.extend_from_slice(&rest[..n]);
                    rest = &rest[n..];
                    if self.full() {
                        self.flush();
                    }
                }
            }
        }
        self.open = Some(Open { start, rowids });
    }

    /// The doclist of the last term is complete: write its doclist index
    /// if it spans enough pages.
    fn close(&mut self, last: bool) {
        let Some(Open { start, rowids }) = self.open.take() else { return };
        let mut end = self.pgno() - 1;
        if last && self.buf.len() > 4 {
            end += 1;
        }
        if end < start + 4 {
            return;
        }
        if !last && rowids.contains_key(&self.pgno()) {
            end += 1;
        }
        let mut ents: Vec<(u32, Option<i64>)> = (start + 1..=end).map(|p| (p, rowids.get(&p).copied())).collect();
        let lead = ents.iter().take_while(|e| e.1.is_none()).count();
        ents.drain(..lead);
        let mut height = 0;
        let mut written = false;
        loop {
            // (first key, first rowid, bytes)
            let mut pages: Vec<(u32, Option<i64>, Vec<u8>)> = Vec::new();
            let mut cur: Option<(u32, Option<i64>, Vec<u8>)> = None;
            let mut lr: Option<i64> = None;
            for &(key, rid) in &ents {
                if let (Some(_), Some(c)) = (rid, &cur) {
                    if c.2.len() >= self.pgsz {
                        pages.extend(cur.take());
                        lr = None;
                    }
                }
                let mut enc = Vec::new();
                match rid {
                    None => enc.push(0),
                    Some(r) => put(&mut enc, lr.map_or(r, |l| r.wrapping_sub(l)) as u64),
                }
                match &mut cur {
                    None if rid.is_none() => continue,
                    None => {
                        let mut b = vec![0];
                        put(&mut b, u64::from(key));
                        cur = Some((key, rid, b));
                    }
                    Some(c) => {
                        if c.1.is_none() {
                            c.1 = rid;
                        }
                    }
                }
                if let Some(c) = &mut cur {
                    c.2.extend_from_slice(&enc);
                }
                if rid.is_some() {
                    lr = rid;
                }
            }
            pages.extend(cur.take());
            if pages.is_empty() {
                break;
            }
            let top = pages.len() == 1;
            for (i, pg) in pages.iter_mut().enumerate() {
                if !top {
                    pg.2[0] = 1;
                }
                self.out.records.push((dlidx_id(self.segid, height, start + i as u32), std::mem::take(&mut pg.2)));
            }
            written = true;
            if top {
                break;
            }
            ents = pages.iter().enumerate().map(|(i, pg)| (start + i as u32, pg.1)).collect();
            height += 1;
        }
        if written {
            if let Some(last) = self.idx.last_mut() {
                last.2 = true;
            }
        }
    }

    /// The `%_data` rows completed so far (the caller writes them; they
    /// are not returned again by [`Writer::finish`]).
    pub fn take_records(&mut self) -> Vec<(i64, Vec<u8>)> {
        std::mem::take(&mut self.out.records)
    }

    /// Finish the segment.
    pub fn finish(mut self) -> Segment {
        self.close(true);
        if self.buf.len() > 4 {
            self.flush();
        }
        self.out.idx = self.idx.into_iter().map(|(k, p, f)| (k, i64::from(p) * 2 + i64::from(f))).collect();
        self.out
    }
}

/// Write `terms` as segment `segid`; `merging`: the output of a merge
/// (SQLite's merges start a new page before a rowid once the page is
/// full, its flushes of new data do not).
pub fn build(segid: u32, pgsz: usize, terms: &[(Vec<u8>, Flat)], merging: bool, detail: Detail) -> Segment {
    let mut w = Writer::new(segid, pgsz, merging, detail);
    for (t, dl) in terms {
        w.term(t, dl);
    }
    w.finish()
}
