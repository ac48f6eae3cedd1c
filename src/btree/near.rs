//! # Positioning from the current leaf
//!
//! Sequential work (appending rows with increasing rowids, an UPDATE
//! rewriting the row it is on, index keys inserted in order) keeps asking
//! for a key at or next to the cursor's entry. When the cursor's path is fresh, its leaf often decides
//! where such a rowid is (or goes) without a descent from the root, as
//! SQLite's cursors do for appends: the neighbouring cells bound it, or
//! the leaf is the tree's first or last one and nothing lies beyond.
//!
//! Invariant: an answer is only given when the leaf alone proves it (the
//! neighbours' rowids, or the path's interior levels all on their first
//! or last child); otherwise `None`, and the caller seeks from the root
//! (checked: near_proven).

use super::balance::Level;
use super::page::{self, PageKind};
use super::{Btree, SeekResult};
use crate::error::{Error, Result};

/// Where a rowid is on a table leaf.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct LeafSpot {
    /// The cell index holding the rowid, or where it would be inserted
    /// (`ncells` past the last cell).
    pub idx: usize,
    /// The cell at `idx` has this rowid.
    pub exact: bool,
    /// Cells on the leaf.
    pub ncells: usize,
    /// The path's interior levels were found (or known) to be on their
    /// pages' last children: the leaf is the tree's last.
    pub last_leaf: bool,
}

impl Btree {
    /// Rowid of cell `i` of a table leaf.
    // (Inline, with the short-varint readers of the descent: asked once
    // per insert, by `NewRowid` and by a seek landing on its spot.)
    #[inline]
    pub(super) fn leaf_rowid(&self, data: &[u8], h: &page::PageHeader, i: usize) -> Result<i64> {
        let usable = self.usable() as usize;
        if i >= h.ncells {
            return Err(Error::corrupt());
        }
        let off = super::rowid_seek::cell_start(data, h.offset + h.kind.header_size(), h.ncells, i, usable)?;
        let cell = &data[off..usable];
        let n = super::rowid_seek::varint_len(cell)?;
        let (rowid, _) = super::rowid_seek::varint(cell.get(n..).ok_or_else(Error::corrupt)?)?;
        Ok(rowid as i64)
    }

    /// Whether every interior level of `path` took its last child
    /// (`last`) or its first one: the leaf is the tree's last (first).
    fn on_edge(&self, path: &[Level], last: bool) -> Result<bool> {
        self.on_edge_of(path, last, PageKind::TableInterior)
    }

    /// `on_edge` for a tree whose interior pages are of `kind`.
    pub(super) fn on_edge_of(&self, path: &[Level], last: bool, kind: PageKind) -> Result<bool> {
        for lv in &path[..path.len() - 1] {
            let h = page::header(self.pager.page(lv.pgno)?, lv.pgno)?;
            if h.kind != kind {
                return Ok(false);
            }
            let edge = if last { h.ncells } else { 0 };
            if lv.idx != edge {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Where `rowid` is (or goes) on the table leaf a fresh path ends on,
    /// when that leaf decides it without a seek; `None` otherwise.
    /// `last_leaf`: the caller already knows the leaf is the tree's last
    /// (an append after an append: the interior pages are not read again).
    pub(super) fn rowid_near(&self, path: &[Level], rowid: i64, last_leaf: bool) -> Result<Option<LeafSpot>> {
        let Some(top) = path.last().copied() else { return Ok(None) };
        let data = self.pager.page(top.pgno)?;
        let h = page::header(data, top.pgno)?;
        if h.kind != PageKind::TableLeaf || top.idx >= h.ncells {
            return Ok(None);
        }
        let n = h.ncells;
        let spot = |idx: usize, exact: bool| Ok(Some(LeafSpot { idx, exact, ncells: n, last_leaf }));
        let here = self.leaf_rowid(data, &h, top.idx)?;
        if rowid == here {
            return spot(top.idx, true);
        }
        if rowid > here {
            if top.idx + 1 < n {
                let next = self.leaf_rowid(data, &h, top.idx + 1)?;
                // invariant: near_proven
                return if rowid <= next { spot(top.idx + 1, rowid == next) } else { Ok(None) };
            }
            if last_leaf || self.on_edge(path, true)? {
                return Ok(Some(LeafSpot { idx: n, exact: false, ncells: n, last_leaf: true }));
            }
            return Ok(None);
        }
        if top.idx > 0 {
            let prev = self.leaf_rowid(data, &h, top.idx - 1)?;
            return if rowid > prev {
                spot(top.idx, false)
            } else if rowid == prev {
                spot(top.idx - 1, true)
            } else {
                Ok(None)
            };
        }
        if self.on_edge(path, false)? {
            spot(0, false)
        } else {
            Ok(None)
        }
    }

    /// Put the table leaf path on cell `idx` of its leaf, where a seek of
    /// `rowid` ended (`idx` may be one past the last cell when the leaf
    /// is the tree's last: the cursor then stays on the last entry).
    /// Returns the rowid of the entry landed on and the seek's result.
    pub(super) fn land_on_spot(&self, path: &mut [Level], idx: usize, rowid: i64) -> Result<(i64, SeekResult)> {
        let top = path.last_mut().ok_or_else(Error::corrupt)?;
        let data = self.pager.page(top.pgno)?;
        let h = page::header(data, top.pgno)?;
        if h.kind != PageKind::TableLeaf || h.ncells == 0 || idx > h.ncells {
            return Err(Error::corrupt());
        }
        if idx == h.ncells {
            top.idx = idx - 1;
            return Ok((self.leaf_rowid(data, &h, idx - 1)?, SeekResult::Before));
        }
        top.idx = idx;
        let found = self.leaf_rowid(data, &h, idx)?;
        Ok((found, if found == rowid { SeekResult::Found } else { SeekResult::After }))
    }

    /// Index trees: where a key greater than the entry a fresh path ends
    /// on goes when that entry is the tree's last (keys arriving in
    /// order, as CREATE INDEX and VACUUM insert them from a sorter): one
    /// past the last cell of the last leaf. `None` otherwise. The caller
    /// compared the keys; `last_leaf` as for [`Btree::rowid_near`].
    pub(super) fn index_append_spot(&self, path: &[Level], last_leaf: bool) -> Result<Option<usize>> {
        let Some(top) = path.last().copied() else { return Ok(None) };
        let h = page::header(self.pager.page(top.pgno)?, top.pgno)?;
        if h.kind != PageKind::IndexLeaf || top.idx + 1 != h.ncells {
            return Ok(None);
        }
        if last_leaf || self.on_edge_of(path, true, PageKind::IndexInterior)? {
            return Ok(Some(h.ncells));
        }
        Ok(None)
    }

    /// Table trees: the rowid of the tree's last entry when a fresh path
    /// ends on it (the previous append's row), read without a descent;
    /// `None` otherwise.
    /// `slot`: a cache slot hint for the leaf ([`Pager::page_hinted`]).
    ///
    /// [`Pager::page_hinted`]: crate::pager::Pager::page_hinted
    pub(super) fn last_rowid_near(&self, path: &[Level], last_leaf: bool, slot: &mut u32) -> Result<Option<i64>> {
        let Some(top) = path.last().copied() else { return Ok(None) };
        let data = self.pager.page_hinted(top.pgno, slot)?;
        let h = page::header(data, top.pgno)?;
        if h.kind != PageKind::TableLeaf || top.idx + 1 != h.ncells {
            return Ok(None);
        }
        if last_leaf || self.on_edge(path, true)? {
            return Ok(Some(self.leaf_rowid(data, &h, top.idx)?));
        }
        Ok(None)
    }
}

impl Btree {
    /// Index trees: where the key record `rec` goes on the leaf a fresh
    /// path ends on, when two cells of that leaf enclose it: the gap
    /// between neighbouring cells of one leaf is the key's place in the
    /// whole tree, the spot a descent from the root finds (the next key
    /// of an index a REPLACE rewrote, or of keys inserted near each
    /// other). `None` when the key is not strictly inside the leaf's
    /// range, equals one of its cells, or a cell is not all local.
    pub(super) fn index_near_spot(&self, path: &[Level], rec: &[u8], ki: &crate::value::record::KeyInfo) -> Result<Option<usize>> {
        let Some(top) = path.last().copied() else { return Ok(None) };
        let data = self.pager.page(top.pgno)?;
        let h = page::header(data, top.pgno)?;
        if h.kind != PageKind::IndexLeaf || h.ncells < 2 {
            return Ok(None);
        }
        let (usable, enc) = (self.usable(), self.text_encoding);
        // Cells are ordered against the key as a seek orders them: by the
        // key's leading integer or text where that settles it.
        let probe = super::cursor::Probe::Record(rec);
        let first = super::index_probe::FirstInt::of(&probe, ki);
        let text = if first.is_none() { super::index_probe::FirstText::of(&probe, ki) } else { None };
        let fast = |cell: &[u8]| first.and_then(|f| f.order_of(cell)).or_else(|| text.and_then(|t| t.order_of(cell)));
        let slow = |_: usize, cell: Option<&[u8]>| match cell {
            Some(cell) => crate::value::record::compare_records_in(cell, rec, ki, enc),
            None => Err(Error::corrupt()),
        };
        let order = |i: usize| -> Result<Option<std::cmp::Ordering>> {
            match super::index_probe::index_cell_record(data, &h, i, usable) {
                Some(cell) => fast(cell).map_or_else(|| slow(i, Some(cell)), Ok).map(Some),
                None => Ok(None),
            }
        };
        use std::cmp::Ordering::{Greater, Less};
        // (Two compares decide the usual miss: a key beyond the leaf.)
        if order(0)? != Some(Less) || order(h.ncells - 1)? != Some(Greater) {
            return Ok(None);
        }
        // Every cell is local here or the search gives up (`slow` fails).
        let (lo, equal_at) = match super::index_probe::search_index_page(data, &h, usable, false, fast, slow) {
            Ok(found) => found,
            Err(_) => return Ok(None),
        };
        if lo == 0 || lo >= h.ncells || equal_at == Some(lo) {
            return Ok(None);
        }
        debug_assert!(lo >= 1 && lo < h.ncells);
        Ok(Some(lo))
    }
}
