//! # Reading a segment back into memory
//!
//! Walks a segment's leaf pages in order and rebuilds its terms and
//! doclists (the inverse of `segwrite.rs`): the page header gives the
//! offset of the first rowid not preceded by a term and the end of the
//! page body; the footer the offsets of the terms that start on the
//! page. A position list may continue on the next page(s); under
//! `detail=none` an entry is the rowid and its marker bytes. Doclist
//! indexes are not needed for a full read and are ignored.
//!
//! Invariant: the result is exactly what was written: for every term
//! its doclist in rowid order, entries with their delete flags (checked:
//! fts5_segment_read_back).

use super::codec::{get, Flat, Terms, PRESENT};
use super::config::Detail;
use super::shadow::rows;
use super::structure::{leaf_id, Seg};
use crate::connection::Connection;
use crate::error::{Error, Result};
use crate::value::Value;

/// The pages of `seg`, in order.
fn pages(c: &mut Connection, data: &str, seg: Seg) -> Result<Vec<Vec<u8>>> {
    let sql = format!("SELECT id, block FROM {data} WHERE id >= {} AND id <= {} ORDER BY id", leaf_id(seg.id, seg.first), leaf_id(seg.id, seg.last));
    let mut out = Vec::new();
    for (k, r) in rows(c, &sql)?.into_iter().enumerate() {
        match (&r[0], &r[1]) {
            (Value::Integer(id), Value::Blob(b)) if *id == leaf_id(seg.id, seg.first + k as u32) => out.push(b.clone()),
            _ => return Err(Error::corrupt()),
        }
    }
    if out.len() as u64 != u64::from(seg.last - seg.first) + 1 {
        return Err(Error::corrupt());
    }
    Ok(out)
}

/// Read the whole segment.
pub fn read(c: &mut Connection, data: &str, seg: Seg, detail: Detail) -> Result<Terms> {
    decode(&pages(c, data, seg)?, seg.first > 1, detail)
}

/// A `detail=none` entry after its rowid at `at`: the marker bytes (a
/// delete flag, then "holds the term" for a delete of a row that keeps
/// it) decoded: (delete flag, holds the term, the offset after them). A
/// term starting with a zero shared-prefix length (an offset in `offs`)
/// is not a marker.
fn none_entry(page: &[u8], at: usize, size: usize, offs: &[usize]) -> (bool, bool, usize) {
    let marker = |i: usize| i < size && page[i] == 0 && !offs.contains(&i);
    if !marker(at) {
        return (false, true, at);
    }
    if marker(at + 1) {
        return (true, true, at + 2);
    }
    (true, false, at + 1)
}

/// A leaf page's layout: the offset of its first rowid (0 if none starts
/// on it), the size of header and body (where the footer starts), and the
/// absolute offsets of the terms that start on it (the footer's deltas
/// summed).
pub(super) fn leaf_layout(page: &[u8]) -> Result<(usize, usize, Vec<usize>)> {
    if page.len() < 4 {
        return Err(Error::corrupt());
    }
    let first_rowid = usize::from(u16::from_be_bytes([page[0], page[1]]));
    let size = usize::from(u16::from_be_bytes([page[2], page[3]]));
    if size < 4 || size > page.len() {
        return Err(Error::corrupt());
    }
    // The first rowid, when one starts here, lies inside the body.
    if first_rowid != 0 && (first_rowid < 4 || first_rowid >= size) {
        return Err(Error::corrupt());
    }
    let mut offs = Vec::new();
    let (mut j, mut acc) = (size, 0usize);
    while j < page.len() {
        let (v, n) = get(page, j)?;
        acc += v as usize;
        offs.push(acc);
        j = n;
    }
    Ok((first_rowid, size, offs))
}

/// Decode consecutive leaf pages. `partial`: the first page may begin
/// inside a doclist whose start was merged away; that part is skipped.
pub fn decode(pages: &[Vec<u8>], partial: bool, detail: Detail) -> Result<Terms> {
    let mut d = Decoder::new(partial, detail);
    let mut done = Vec::new();
    for page in pages {
        d.page(page, &mut done)?;
    }
    d.finish(&mut done)?;
    Ok(crate::util::cold_sort::map_from(done.into_iter().map(|(t, f)| (t, f.to_doclist()))))
}

/// Decodes a segment's leaf pages one at a time, handing out each term
/// with its doclist once the next term begins (or the pages end), so a
/// merge holds one term per input in memory, not whole segments.
pub struct Decoder {
    detail: Detail,
    /// The first page may begin inside a doclist (skipped).
    partial: bool,
    /// Pages decoded so far.
    seen: usize,
    term: Option<Vec<u8>>,
    dl: Flat,
    /// An entry whose position list continues on the next page (its
    /// start at the end of `dl.bytes`): rowid, delete flag, and the bytes
    /// it still needs.
    open: Option<(i64, bool, usize)>,
    last: i64,
    /// Terms and doclists handed back by the reader ([`Decoder::recycle`]),
    /// their buffers reused for the next terms.
    spare: Vec<(Vec<u8>, Flat)>,
}

/// Most terms a [`Decoder`] keeps for reuse.
const SPARE: usize = 16;

impl Decoder {
    /// A decoder for a segment's pages (`partial`: see [`decode`]).
    pub fn new(partial: bool, detail: Detail) -> Decoder {
        Decoder { detail, partial, seen: 0, term: None, dl: Flat::default(), open: None, last: 0, spare: Vec::new() }
    }

    /// Take back a term and doclist it handed out, for their buffers.
    pub fn recycle(&mut self, term: Vec<u8>, dl: Flat) {
        if self.spare.len() < SPARE {
            self.spare.push((term, dl));
        }
    }

    /// An empty term buffer and doclist (reused ones when there are).
    fn fresh(&mut self) -> (Vec<u8>, Flat) {
        let (mut t, mut f) = self.spare.pop().unwrap_or_default();
        t.clear();
        f.rows.clear();
        f.bytes.clear();
        (t, f)
    }

    /// Decode the next page; terms completed by it are appended to `done`.
    pub fn page(&mut self, page: &[u8], done: &mut Vec<(Vec<u8>, Flat)>) -> Result<()> {
        let (first_rowid, size, offs) = leaf_layout(page)?;
        let mut i = 4;
        if self.seen == 0 && self.partial {
            i = offs.first().copied().unwrap_or(size);
        }
        self.seen += 1;
        if let Some((rowid, delete, need)) = self.open.take() {
            let n = need.min(size - i);
            self.dl.bytes.extend_from_slice(&page[i..i + n]);
            i += n;
            if n < need {
                self.open = Some((rowid, delete, need - n));
                return Ok(());
            }
            self.dl.close_row(rowid, delete);
        }
        let mut absolute = false;
        let mut next_term = offs.iter().position(|&o| o >= i);
        while i < size {
            if let Some(t) = next_term.filter(|&t| offs[t] == i) {
                let prev = self.term.take();
                let (mut new, dl) = self.fresh();
                if t == 0 {
                    let (n, j) = get(page, i)?;
                    new.extend_from_slice(page.get(j..j + n as usize).ok_or_else(Error::corrupt)?);
                    i = j + n as usize;
                } else {
                    let (sh, j) = get(page, i)?;
                    let (n, j) = get(page, j)?;
                    let prev = prev.as_ref().ok_or_else(Error::corrupt)?;
                    new.extend_from_slice(prev.get(..sh as usize).ok_or_else(Error::corrupt)?);
                    new.extend_from_slice(page.get(j..j + n as usize).ok_or_else(Error::corrupt)?);
                    i = j + n as usize;
                }
                let old_dl = std::mem::replace(&mut self.dl, dl);
                if let Some(old) = prev {
                    done.push((old, old_dl));
                }
                self.term = Some(new);
                absolute = true;
                next_term = if t + 1 < offs.len() { Some(t + 1) } else { None };
                continue;
            }
            if self.term.is_none() {
                return Err(Error::corrupt());
            }
            let (v, j) = get(page, i)?;
            let rowid = if absolute || i == first_rowid { v as i64 } else { self.last.wrapping_add(v as i64) };
            absolute = false;
            self.last = rowid;
            if self.detail == Detail::None {
                let (delete, present);
                (delete, present, i) = none_entry(page, j, size, &offs);
                self.dl.push(rowid, delete, if present { PRESENT } else { &[] });
                continue;
            }
            let (sz, j) = get(page, j)?;
            let need = (sz >> 1) as usize;
            let delete = sz & 1 == 1;
            let n = need.min(size.saturating_sub(j));
            self.dl.bytes.extend_from_slice(&page[j..j + n]);
            i = j + n;
            if n < need {
                self.open = Some((rowid, delete, need - n));
            } else {
                self.dl.close_row(rowid, delete);
            }
        }
        Ok(())
    }

    /// The pages ended: the last term is complete.
    pub fn finish(&mut self, done: &mut Vec<(Vec<u8>, Flat)>) -> Result<()> {
        if self.open.is_some() {
            return Err(Error::corrupt());
        }
        if let Some(t) = self.term.take() {
            done.push((t, std::mem::take(&mut self.dl)));
        }
        Ok(())
    }
}

/// A segment read term by term, its pages fetched a batch at a time.
pub struct SegStream {
    seg: Seg,
    next_page: u32,
    decoder: Decoder,
    ready: std::collections::VecDeque<(Vec<u8>, Flat)>,
    ended: bool,
}

/// Pages fetched per read of a [`SegStream`].
const BATCH: u32 = 32;

impl SegStream {
    /// A stream over `seg`.
    pub fn new(seg: Seg, detail: Detail) -> SegStream {
        SegStream { seg, next_page: seg.first, decoder: Decoder::new(seg.first > 1, detail), ready: Default::default(), ended: false }
    }

    /// Take back a term and doclist [`SegStream::next`] gave, for their
    /// buffers.
    pub fn recycle(&mut self, term: Vec<u8>, dl: Flat) {
        self.decoder.recycle(term, dl);
    }

    /// The next term and its doclist, None after the last.
    pub fn next(&mut self, c: &mut Connection, data: &str) -> Result<Option<(Vec<u8>, Flat)>> {
        while self.ready.is_empty() && !self.ended {
            let mut done = Vec::new();
            if self.next_page > self.seg.last {
                self.decoder.finish(&mut done)?;
                self.ended = true;
            } else {
                let to = self.seg.last.min(self.next_page + BATCH - 1);
                let sql = format!(
                    "SELECT id, block FROM {data} WHERE id >= {} AND id <= {} ORDER BY id",
                    leaf_id(self.seg.id, self.next_page),
                    leaf_id(self.seg.id, to)
                );
                let got = rows(c, &sql)?;
                if got.len() as u32 != to - self.next_page + 1 {
                    return Err(Error::corrupt());
                }
                for (k, r) in got.into_iter().enumerate() {
                    match (&r[0], &r[1]) {
                        (Value::Integer(id), Value::Blob(b)) if *id == leaf_id(self.seg.id, self.next_page + k as u32) => self.decoder.page(b, &mut done)?,
                        _ => return Err(Error::corrupt()),
                    }
                }
                self.next_page = to + 1;
            }
            self.ready.extend(done);
        }
        Ok(self.ready.pop_front())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ext::fts5::codec::{Entry, Flat};

    #[test]
    fn a_segment_reads_back_as_written() {
        for detail in [Detail::Full, Detail::Column, Detail::None] {
            let mut terms = Terms::new();
            for t in 0..300u32 {
                let dl = terms.entry(format!("term{:04}", t * 7 % 300).into_bytes()).or_default();
                for r in 0..(t % 9 + 1) {
                    let rowid = i64::from(r) * 1000 + i64::from(t) - 50;
                    let delete = (t + r) % 11 == 0;
                    // (detail=none keeps only whether the row holds the
                    // term: a pure delete does not.)
                    let poslist = match detail {
                        Detail::None if delete && r % 2 == 0 => Vec::new(),
                        Detail::None => PRESENT.to_vec(),
                        _ => (0..(t + r) % 40).map(|k| (k % 120) as u8 + 2).collect(),
                    };
                    dl.insert(rowid, Entry { delete, poslist });
                }
            }
            let flat: Vec<(Vec<u8>, Flat)> = terms.iter().map(|(t, dl)| (t.clone(), Flat::from_doclist(dl))).collect();
            let seg = crate::ext::fts5::segwrite::build(1, 500, &flat, false, detail);
            // The leaf pages in order (not the doclist-index pages).
            let mut leaves: Vec<&(i64, Vec<u8>)> = seg.records.iter().filter(|(id, _)| id & (1 << 36) == 0).collect();
            leaves.sort_by_key(|(id, _)| *id);
            assert_eq!(leaves.len(), seg.pages as usize);
            let pages: Vec<Vec<u8>> = leaves.into_iter().map(|(_, p)| p.clone()).collect();
            // invariant: fts5_segment_read_back
            assert_eq!(decode(&pages, false, detail).expect("decodes"), terms, "{detail:?}");
        }
    }
}
