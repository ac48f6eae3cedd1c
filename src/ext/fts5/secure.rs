//! # 'secure-delete': removing a row's entries from the segment pages
//!
//! With `INSERT INTO t(t, rank) VALUES('secure-delete', 1)` a delete
//! writes no delete marker: at flush, each (term, rowid) the pending log
//! deletes is looked up in the segments, newest first, and the first
//! segment holding an entry for it has that entry cut out of its leaf
//! page in place. What SQLite 3.54.1 writes (observed, FORMAT.md
//! "secure-delete"):
//! - the entry's bytes go, with the parts of its position list that ran
//!   onto the following pages; the next entry on the page is re-encoded
//!   (absolute when the removed one was, else as a delta from the entry
//!   before the removed one); footer offsets and the page header follow
//!   (the first-rowid offset is 0 once no rowid starts the page);
//! - an entry carrying the delete flag (it hides an older segment's
//!   entry) keeps the flag and loses its positions instead;
//! - a term left with no entry in the segment is cut out of its page
//!   (the next term on the page is re-encoded against the one before,
//!   or whole when it becomes the page's first); a term whose doclist
//!   goes on at later pages stays, with no entry on its own page;
//! - pages may become empty (`00000004`) and stay; a page other than
//!   the segment's first that holds no term any more loses its `%_idx`
//!   row; other `%_idx` rows, doclist indexes and the structure record
//!   are not touched.
//!
//! Invariant: an edited segment decodes to the segment it was minus the
//! removed entry (or with that entry reduced to a pure delete), and no
//! other segment is changed.

use super::codec::{get, put};
use super::config::Detail;
use super::segread::leaf_layout;
use super::shadow::rows;
use super::structure::{leaf_id, Seg};
use crate::connection::Connection;
use crate::error::{Error, Result};
use crate::value::Value;
use std::collections::hash_map::Entry;
use std::collections::HashMap;

/// Where a term's header is.
#[derive(Debug, Clone)]
struct TermAt {
    page: usize,
    start: usize,
    end: usize,
    /// Index of its offset in the page footer.
    foot: usize,
    /// The term before it, when on the same page.
    prev_on_page: Option<Vec<u8>>,
}

/// Where one doclist entry is.
#[derive(Debug, Clone)]
struct EntryAt {
    rowid: i64,
    /// The rowid before it in the doclist (meaningful when `!absolute`).
    prev: i64,
    page: usize,
    start: usize,
    /// End of its bytes on its own page.
    end: usize,
    /// Its rowid is written absolute.
    absolute: bool,
    delete: bool,
    /// It holds positions (else it is a pure delete).
    present: bool,
    /// Pages its position list continues on, and the bytes there.
    pieces: Vec<(usize, usize)>,
}

/// A term found in a segment: its header, its entries, and the header
/// of the term right after it when that one starts on the same page.
#[derive(Debug)]
struct Found {
    term: TermAt,
    entries: Vec<EntryAt>,
    next: Option<(Vec<u8>, usize, usize)>,
}

/// One leaf page taken apart.
struct Page {
    first_rowid: usize,
    /// Header and body.
    body: Vec<u8>,
    /// Absolute offsets of the terms starting on the page.
    foot: Vec<usize>,
}

impl Page {
    fn parse(b: &[u8]) -> Result<Page> {
        let (first_rowid, size, foot) = leaf_layout(b)?;
        Ok(Page { first_rowid, body: b[..size].to_vec(), foot })
    }

    fn encode(&self) -> Vec<u8> {
        let mut out = self.body.clone();
        out[0..2].copy_from_slice(&(self.first_rowid as u16).to_be_bytes());
        out[2..4].copy_from_slice(&(self.body.len() as u16).to_be_bytes());
        let mut last = 0;
        for &o in &self.foot {
            put(&mut out, (o - last) as u64);
            last = o;
        }
        out
    }

    /// Replace `body[a..b]` by `with`, moving the offsets after `a`.
    fn splice(&mut self, a: usize, b: usize, with: &[u8]) {
        debug_assert!(a <= b && b <= self.body.len());
        let shift = |o: usize| if o >= b { o + with.len() - (b - a) } else { o };
        self.body.splice(a..b, with.iter().copied());
        for o in &mut self.foot {
            *o = shift(*o);
        }
        if self.first_rowid >= b {
            self.first_rowid = shift(self.first_rowid);
        }
    }
}

/// Find `term` in the leaf pages of a segment. `partial`: the first page
/// may begin inside a doclist whose start was merged away.
fn find(pages: &[Vec<u8>], partial: bool, detail: Detail, term: &[u8]) -> Result<Option<Found>> {
    let mut cur: Option<Vec<u8>> = None;
    let mut found: Option<Found> = None;
    // (entry index in found, bytes still to come) of a position list
    // running onto the next page; None index for other terms' entries.
    let mut open: Option<(Option<usize>, usize)> = None;
    let mut last = 0i64;
    for (k, page) in pages.iter().enumerate() {
        let p = Page::parse(page)?;
        let size = p.body.len();
        let b = &p.body;
        let mut i = if k == 0 && partial { p.foot.first().copied().unwrap_or(size) } else { 4 };
        if let Some((ix, need)) = open.take() {
            let n = need.min(size - i);
            if let (Some(ix), Some(f)) = (ix, found.as_mut()) {
                f.entries[ix].pieces.push((k, n));
            }
            i += n;
            if n < need {
                open = Some((ix, need - n));
                continue;
            }
        }
        let mut absolute = false;
        let mut prev_on_page: Option<Vec<u8>> = None;
        while i < size {
            if let Some(t) = p.foot.iter().position(|&o| o == i) {
                let start = i;
                let new = if t == 0 {
                    let (n, j) = get(b, i)?;
                    i = j + n as usize;
                    b.get(j..i).ok_or_else(Error::corrupt)?.to_vec()
                } else {
                    let (sh, j) = get(b, i)?;
                    let (n, j) = get(b, j)?;
                    let prev = cur.as_deref().ok_or_else(Error::corrupt)?;
                    let mut v = prev.get(..sh as usize).ok_or_else(Error::corrupt)?.to_vec();
                    i = j + n as usize;
                    v.extend_from_slice(b.get(j..i).ok_or_else(Error::corrupt)?);
                    v
                };
                if let Some(f) = found.as_mut() {
                    if f.term.page == k && f.next.is_none() && cur.as_deref() == Some(term) {
                        f.next = Some((new.clone(), start, i));
                    }
                    return Ok(found);
                }
                if new.as_slice() > term {
                    return Ok(None);
                }
                if new.as_slice() == term {
                    let at = TermAt { page: k, start, end: i, foot: t, prev_on_page: prev_on_page.clone() };
                    found = Some(Found { term: at, entries: Vec::new(), next: None });
                }
                prev_on_page = Some(new.clone());
                cur = Some(new);
                absolute = true;
                continue;
            }
            if cur.is_none() {
                return Err(Error::corrupt());
            }
            let start = i;
            let (v, j) = get(b, i)?;
            let abs = absolute || i == p.first_rowid;
            let rowid = if abs { v as i64 } else { last.wrapping_add(v as i64) };
            absolute = false;
            let prev = last;
            last = rowid;
            let mut e = EntryAt { rowid, prev, page: k, start, end: j, absolute: abs, delete: false, present: true, pieces: Vec::new() };
            if detail == Detail::None {
                let marker = |i: usize| i < size && b[i] == 0 && !p.foot.contains(&i);
                i = j;
                if marker(i) {
                    e.delete = true;
                    i += 1;
                    if marker(i) {
                        i += 1;
                    } else {
                        e.present = false;
                    }
                }
                e.end = i;
                if let Some(f) = found.as_mut() {
                    f.entries.push(e);
                }
                continue;
            }
            let (sz, j) = get(b, j)?;
            let need = (sz >> 1) as usize;
            e.delete = sz & 1 == 1;
            e.present = need > 0;
            let n = need.min(size.saturating_sub(j));
            i = j + n;
            e.end = i;
            let ix = found.as_mut().map(|f| {
                f.entries.push(e);
                f.entries.len() - 1
            });
            if n < need {
                open = Some((ix, need - n));
            }
        }
    }
    if open.is_some() {
        return Err(Error::corrupt());
    }
    Ok(found)
}

/// Segment pages loaded during one flush, written back at its end.
#[derive(Default)]
pub struct Pages {
    segs: HashMap<u32, (Seg, Vec<Vec<u8>>, Vec<bool>)>,
    /// (segid, page number) of pages that lost their last term.
    termless: Vec<(u32, u32)>,
}

impl Pages {
    fn load(&mut self, c: &mut Connection, data: &str, seg: Seg) -> Result<&mut (Seg, Vec<Vec<u8>>, Vec<bool>)> {
        let slot = match self.segs.entry(seg.id) {
            Entry::Occupied(o) => return Ok(o.into_mut()),
            Entry::Vacant(v) => v,
        };
        let sql = format!("SELECT id, block FROM {data} WHERE id >= {} AND id <= {} ORDER BY id", leaf_id(seg.id, seg.first), leaf_id(seg.id, seg.last));
        let mut pages = Vec::new();
        for (k, r) in rows(c, &sql)?.into_iter().enumerate() {
            match (&r[0], &r[1]) {
                (Value::Integer(id), Value::Blob(b)) if *id == leaf_id(seg.id, seg.first + k as u32) => pages.push(b.clone()),
                _ => return Err(Error::corrupt()),
            }
        }
        if pages.len() as u64 != u64::from(seg.last - seg.first) + 1 {
            return Err(Error::corrupt());
        }
        let n = pages.len();
        Ok(slot.insert((seg, pages, vec![false; n])))
    }

    /// Write the changed pages back.
    pub fn store(self, c: &mut Connection, data: &str, idx: &str) -> Result<()> {
        for (segid, pgno) in self.termless {
            let sql = format!("DELETE FROM {idx} WHERE segid = {segid} AND pgno IN ({}, {})", i64::from(pgno) * 2, i64::from(pgno) * 2 + 1);
            super::index::exec(c, &sql, &[])?;
        }
        for (seg, pages, dirty) in self.segs.into_values() {
            for (k, (b, d)) in pages.into_iter().zip(dirty).enumerate() {
                if d {
                    super::index::exec(
                        c,
                        &format!("UPDATE {data} SET block = ? WHERE id = ?"),
                        &[Value::Blob(b), Value::Integer(leaf_id(seg.id, seg.first + k as u32))],
                    )?;
                }
            }
        }
        Ok(())
    }
}

/// Remove the entry of `rowid` under `term` from the newest of `segs`
/// (given newest first) that holds one. Returns whether one was found.
pub fn remove(c: &mut Connection, data: &str, cache: &mut Pages, segs: &[Seg], detail: Detail, term: &[u8], rowid: i64) -> Result<bool> {
    for &seg in segs {
        let (_, pages, dirty) = cache.load(c, data, seg)?;
        let Some(f) = find(pages, seg.first > 1, detail, term)? else { continue };
        let Some(ix) = f.entries.iter().position(|e| e.rowid == rowid) else { continue };
        if let Some(k) = cut(pages, dirty, detail, &f, ix)? {
            // A page other than the first that holds no term any more
            // loses its `%_idx` row (as SQLite's does).
            if k > 0 {
                cache.termless.push((seg.id, seg.first + k as u32));
            }
        }
        return Ok(true);
    }
    Ok(false)
}

/// Cut entry `ix` of `f` out of `pages`. Returns the page that lost its
/// last term, if one did.
fn cut(pages: &mut [Vec<u8>], dirty: &mut [bool], detail: Detail, f: &Found, ix: usize) -> Result<Option<usize>> {
    let e = &f.entries[ix];
    let mut p = Page::parse(&pages[e.page])?;
    if e.delete {
        if !e.present {
            return Ok(None);
        }
        // It hides older entries: only its positions go.
        let mut with = Vec::new();
        put(&mut with, if e.absolute { e.rowid as u64 } else { e.rowid.wrapping_sub(e.prev) as u64 });
        with.push(if detail == Detail::None { 0 } else { 1 });
        p.splice(e.start, e.end, &with);
    } else {
        let next_rowid = e.end < p.body.len() && !p.foot.contains(&e.end);
        if next_rowid {
            let (v, j) = get(&p.body, e.end)?;
            let next = e.rowid.wrapping_add(v as i64);
            let mut with = Vec::new();
            put(&mut with, if e.absolute { next as u64 } else { next.wrapping_sub(e.prev) as u64 });
            p.splice(e.start, j, &with);
        } else {
            if p.first_rowid == e.start {
                p.first_rowid = 0;
            }
            p.splice(e.start, e.end, &[]);
        }
    }
    pages[e.page] = p.encode();
    dirty[e.page] = true;
    for &(k, n) in &e.pieces {
        let mut q = Page::parse(&pages[k])?;
        q.splice(4, 4 + n, &[]);
        pages[k] = q.encode();
        dirty[k] = true;
    }
    if !e.delete && f.entries.len() == 1 && drop_term(pages, dirty, f)? {
        return Ok(Some(f.term.page));
    }
    Ok(None)
}

/// Cut the header of a term left without entries (its entries were
/// cut first, so the next term on the page, if any, starts right after
/// the header). Returns whether the page has no term left.
fn drop_term(pages: &mut [Vec<u8>], dirty: &mut [bool], f: &Found) -> Result<bool> {
    let t = &f.term;
    let mut p = Page::parse(&pages[t.page])?;
    let mut cut_end = t.end;
    let mut with = Vec::new();
    let next_here = p.foot.contains(&t.end);
    if next_here {
        let Some((next, ..)) = &f.next else { return Err(Error::corrupt()) };
        // The next header as written now: shared length, suffix length, suffix.
        let (_, j) = get(&p.body, t.end)?;
        let (n, j) = get(&p.body, j)?;
        cut_end = j + n as usize;
        match &t.prev_on_page {
            Some(prev) if t.foot > 0 => {
                let sh = prev.iter().zip(next).take_while(|(a, b)| a == b).count();
                put(&mut with, sh as u64);
                put(&mut with, (next.len() - sh) as u64);
                with.extend_from_slice(&next[sh..]);
            }
            _ => {
                put(&mut with, next.len() as u64);
                with.extend_from_slice(next);
            }
        }
    }
    if cut_end > p.body.len() {
        return Err(Error::corrupt());
    }
    p.foot.retain(|&o| o != t.start && o != t.end);
    p.splice(t.start, cut_end, &with);
    if next_here {
        p.foot.push(t.start);
        p.foot.sort_unstable();
    }
    let termless = p.foot.is_empty();
    pages[t.page] = p.encode();
    dirty[t.page] = true;
    Ok(termless)
}
