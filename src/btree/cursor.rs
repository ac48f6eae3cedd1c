//! # Cursor movement
//!
//! A cursor's position is a path from the root ([`Level`]s): at an
//! interior level the child index taken, at the last level the cell index.
//! In index trees entries live on interior pages too, so a path may end on
//! an interior page: the cursor is then on that page's cell `idx`.
//!
//! Every movement computes a new path from the current one and installs it
//! only when finished: if a page is missing half way, nothing has changed
//! and the same call is repeated after the page is fetched.
//!
//! Invariants: a cursor's saved key (rowid, or the whole index record) is
//! the key of the entry it is on (checked: cursor_saved_key); any change to
//! the tree by any cursor makes the path stale, and the key is used to find
//! the place again. A cursor on an entry of an unchanged tree has a path
//! that ends within that entry's page's cells, no deeper than
//! [`MAX_DEPTH`] (checked: cursor_valid).

use super::balance::Level;
use super::index_probe::{search_index_page, FirstInt, FirstText};
use super::page::{self, PageKind};
use super::{Btree, Pgno};
use crate::error::{Error, Result};
use crate::value::record::KeyInfo;
use crate::value::ValueRef;
use std::cmp::Ordering;

/// Deepest tree accepted; deeper means a loop in child pointers.
pub const MAX_DEPTH: usize = 40;

/// What a seek compares entries with.
pub enum Probe<'a> {
    /// A rowid (table trees).
    Rowid(i64),
    /// A whole index record.
    Record(&'a [u8]),
    /// A prefix of fields.
    Key(&'a [ValueRef<'a>]),
    /// The primary key fields of a WITHOUT ROWID table: a prefix that is
    /// unique, so an equal entry (on any level) is the one.
    PrimaryKey(&'a [ValueRef<'a>]),
}

thread_local! {
    /// How many times a cursor on this thread found its root page of the
    /// other kind (or 0): SQLite fails the statement there, even an
    /// integrity check that reports other damage as rows (see
    /// `connection/statement.rs`).
    static ROOT_FAULTS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// The count of root-kind faults met on this thread so far.
pub fn root_faults() -> u64 {
    ROOT_FAULTS.with(std::cell::Cell::get)
}

impl Btree {
    #[inline]
    pub(super) fn push_checked(&self, path: &mut Vec<Level>, lv: Level) -> Result<()> {
        if path.len() >= MAX_DEPTH || path.iter().any(|l| l.pgno == lv.pgno) {
            return Err(Error::corrupt());
        }
        // (A descent onto a cached page: where SQLite's B-tree gets the
        // page from its pager, `SQLITE_DBSTATUS_CACHE_HIT`.)
        self.pager.count_hit();
        path.push(lv);
        Ok(())
    }

    // (Always: at inliner threshold 80 the descents' calls stayed out of
    // line, 1.2M instructions of speedtest1.)
    #[inline(always)]
    fn header(&self, pgno: Pgno) -> Result<page::PageHeader> {
        page::header(self.pager.page(pgno)?, pgno)
    }

    fn child_at(&self, pgno: Pgno, i: usize) -> Result<Pgno> {
        let data = self.pager.page(pgno)?;
        let h = page::header(data, pgno)?;
        let c = page::child(data, &h, i, self.usable())?;
        if c > self.pager.db_size() {
            return Err(Error::corrupt());
        }
        Ok(c)
    }

    /// The root of a cursor's tree must be of the cursor's kind (`table`:
    /// a rowid table cursor): a table cursor on an index-kind root, or the
    /// reverse, is corrupt, as SQLite finds it each time a cursor moves to
    /// its root. (Seeks check every page they pass; see [`Btree::seek_path`].)
    pub(super) fn check_root_kind(&self, root: Pgno, table: bool) -> Result<()> {
        if root == 0 || self.header(root)?.kind.is_table() != table {
            ROOT_FAULTS.with(|n| n.set(n.get() + 1));
            return Err(Error::corrupt());
        }
        Ok(())
    }

    /// Descend from `pgno` to the leftmost leaf, appending to `path`. A
    /// child of the other kind than its parent is corrupt.
    pub(super) fn descend_leftmost(&self, path: &mut Vec<Level>, mut pgno: Pgno) -> Result<()> {
        let mut table = None;
        loop {
            let h = self.header(pgno)?;
            if table.is_some_and(|t| t != h.kind.is_table()) {
                return Err(Error::corrupt());
            }
            table = Some(h.kind.is_table());
            self.push_checked(path, Level { pgno, idx: 0 })?;
            if h.kind.is_leaf() {
                return Ok(());
            }
            pgno = self.child_at(pgno, 0)?;
        }
    }

    /// Descend from `pgno` to the rightmost leaf, ending on its last cell.
    pub(super) fn descend_rightmost(&self, path: &mut Vec<Level>, mut pgno: Pgno) -> Result<()> {
        let mut table = None;
        loop {
            let h = self.header(pgno)?;
            if table.is_some_and(|t| t != h.kind.is_table()) {
                return Err(Error::corrupt());
            }
            table = Some(h.kind.is_table());
            if h.kind.is_leaf() {
                return self.push_checked(path, Level { pgno, idx: h.ncells.saturating_sub(1) });
            }
            self.push_checked(path, Level { pgno, idx: h.ncells })?;
            pgno = h.right;
            if pgno == 0 {
                return Err(Error::corrupt());
            }
        }
    }

    /// From a path whose last level may be past the end of its leaf, move
    /// to the first entry at or after it. `false`: no such entry.
    pub(super) fn settle_forward(&self, path: &mut Vec<Level>) -> Result<bool> {
        loop {
            let Some(top) = path.last().copied() else { return Ok(false) };
            let h = self.header(top.pgno)?;
            if !h.kind.is_leaf() || top.idx < h.ncells {
                return Ok(true);
            }
            path.pop();
            // Climb until an ancestor has something right of the child we
            // came from.
            loop {
                let Some(parent) = path.last_mut() else { return Ok(false) };
                let ph = page::header(self.pager.page(parent.pgno)?, parent.pgno)?;
                if parent.idx < ph.ncells {
                    if !ph.kind.is_table() {
                        return Ok(true);
                    }
                    parent.idx += 1;
                    let c = self.child_at(parent.pgno, parent.idx)?;
                    self.descend_leftmost(path, c)?;
                    break;
                }
                path.pop();
            }
        }
    }

    /// Step to the next entry.
    pub(super) fn step_next(&self, path: &mut Vec<Level>) -> Result<bool> {
        let Some(top) = path.last_mut() else { return Ok(false) };
        let h = page::header(self.pager.page(top.pgno)?, top.pgno)?;
        top.idx += 1;
        if !h.kind.is_leaf() {
            let (pg, idx) = (top.pgno, top.idx);
            let c = self.child_at(pg, idx)?;
            self.descend_leftmost(path, c)?;
        }
        self.settle_forward(path)
    }

    /// Step to the previous entry.
    pub(super) fn step_prev(&self, path: &mut Vec<Level>) -> Result<bool> {
        let Some(top) = path.last().copied() else { return Ok(false) };
        let h = self.header(top.pgno)?;
        if !h.kind.is_leaf() {
            let c = self.child_at(top.pgno, top.idx)?;
            self.descend_rightmost(path, c)?;
            return Ok(true);
        }
        if top.idx > 0 {
            if let Some(t) = path.last_mut() {
                t.idx -= 1;
            }
            return Ok(true);
        }
        path.pop();
        loop {
            let Some(parent) = path.last_mut() else { return Ok(false) };
            if parent.idx > 0 {
                parent.idx -= 1;
                let (pg, idx) = (parent.pgno, parent.idx);
                let ph = self.header(pg)?;
                if !ph.kind.is_table() {
                    return Ok(true);
                }
                let c = self.child_at(pg, idx)?;
                self.descend_rightmost(path, c)?;
                return Ok(true);
            }
            path.pop();
        }
    }

    /// Compare the entry at cell `i` of `pgno` with `probe`. `first`: the
    /// probe's leading integer, decoded once per seek ([`FirstInt::of`]).
    #[inline]
    fn compare_cell(
        &self,
        data: &[u8],
        h: &page::PageHeader,
        i: usize,
        probe: &Probe<'_>,
        key_info: Option<&KeyInfo>,
        first: Option<FirstInt>,
        text: Option<FirstText<'_>>,
    ) -> Result<Ordering> {
        if let Probe::Rowid(r) = probe {
            if !h.kind.is_table() {
                return Err(Error::corrupt());
            }
            // Only the key is needed: the varint after the child pointer
            // (interior) or after the payload size (leaf).
            let usable = self.usable() as usize;
            let off = page::cell_offset(data, h, i, self.usable())?;
            let cell = &data[off..usable];
            let rowid_at = if h.kind == PageKind::TableInterior { 4 } else { super::cell::get_varint(cell)?.1 };
            let (rowid, _) = super::cell::get_varint(cell.get(rowid_at..).ok_or_else(Error::corrupt)?)?;
            return Ok((rowid as i64).cmp(r));
        }
        // Index cells: the payload, when it all fits on the page (the
        // usual case), is found without parsing the whole cell.
        if !h.kind.is_table() {
            let usable = self.usable();
            let off = page::cell_offset(data, h, i, usable)?;
            let start = off + if h.kind.is_leaf() { 0 } else { 4 };
            let area = data.get(start..usable as usize).ok_or_else(Error::corrupt)?;
            let (size, n) = super::cell::get_varint(area)?;
            if size as usize <= super::cell::max_local(false, usable) {
                let local = area.get(n..n + size as usize).ok_or_else(Error::corrupt)?;
                let ki = key_info.ok_or_else(Error::corrupt)?;
                if let Some(o) = first.and_then(|f| f.order_of(local)) {
                    return Ok(o);
                }
                if let Some(o) = text.and_then(|f| f.order_of(local)) {
                    return Ok(o);
                }
                return match probe {
                    Probe::Record(rec) => crate::value::record::compare_records_in(local, rec, ki, self.text_encoding),
                    Probe::Key(key) | Probe::PrimaryKey(key) => crate::value::record::compare_record_with_key_in(local, key, ki, self.text_encoding),
                    Probe::Rowid(_) => Err(Error::corrupt()),
                };
            }
        }
        let (bytes, info) = page::cell(data, h, i, self.usable())?;
        match probe {
            Probe::Rowid(_) => Err(Error::corrupt()),
            Probe::Record(rec) => {
                let ki = key_info.ok_or_else(Error::corrupt)?;
                if h.kind.is_table() {
                    return Err(Error::corrupt());
                }
                if info.overflow == 0 {
                    let local = &bytes[info.payload_offset..info.payload_offset + info.local];
                    return crate::value::record::compare_records_in(local, rec, ki, self.text_encoding);
                }
                let payload = self.full_payload(bytes, &info)?;
                crate::value::record::compare_records_in(&payload, rec, ki, self.text_encoding)
            }
            Probe::Key(key) | Probe::PrimaryKey(key) => {
                let ki = key_info.ok_or_else(Error::corrupt)?;
                if h.kind.is_table() {
                    return Err(Error::corrupt());
                }
                if info.overflow == 0 {
                    let local = &bytes[info.payload_offset..info.payload_offset + info.local];
                    return crate::value::record::compare_record_with_key_in(local, key, ki, self.text_encoding);
                }
                let payload = self.full_payload(bytes, &info)?;
                crate::value::record::compare_record_with_key_in(&payload, key, ki, self.text_encoding)
            }
        }
    }

    /// Path to the first entry that compares `>= probe` (`> probe` with
    /// `strict`), or `None`. Also says whether that entry equals the
    /// probe. With `stop_on_equal` (exact record probes), an equal entry
    /// on an interior page ends the descent there.
    ///
    /// Without `settle` the path ends on the leaf where the probe belongs,
    /// possibly one past its last cell: the insertion point.
    pub(super) fn seek_path(&self, root: Pgno, probe: &Probe<'_>, key_info: Option<&KeyInfo>, strict: bool, settle: bool) -> Result<(Vec<Level>, bool, bool)> {
        let mut path = Vec::new();
        let (found, exact) = self.seek_path_into(root, probe, key_info, strict, settle, &mut path, &mut [], &mut None)?;
        Ok((path, found, exact))
    }

    /// [`Btree::seek_path`] into `path` (cleared first), so a cursor's
    /// kept buffer is reused: returns (found, exact). `hints` are cache slot
    /// hints by depth (see `rowid_seek`).
    ///
    /// `resume`: when the descent stops at a page not in the cache, the
    /// page is noted here and `path` keeps the levels above it; a call
    /// with the same arguments and nothing changed in between (the retry
    /// of one read operation after the fetch) continues from that page
    /// instead of descending from the root again. `None` on entry: a new
    /// descent.
    pub(super) fn seek_path_into(
        &self,
        root: Pgno,
        probe: &Probe<'_>,
        key_info: Option<&KeyInfo>,
        strict: bool,
        settle: bool,
        path: &mut Vec<Level>,
        hints: &mut [u32],
        resume: &mut Option<Pgno>,
    ) -> Result<(bool, bool)> {
        let mut pgno = match resume.take() {
            Some(pgno) => pgno,
            None => {
                path.clear();
                root
            }
        };
        let stop_on_equal = matches!(probe, Probe::Record(_) | Probe::Rowid(_) | Probe::PrimaryKey(_)) && !strict;
        let first = key_info.and_then(|ki| FirstInt::of(probe, ki));
        let text = if first.is_none() { key_info.and_then(|ki| FirstText::of(probe, ki)) } else { None };
        loop {
            let data = match self.page_at_depth(pgno, path.len(), hints) {
                Ok(data) => data,
                Err(e) => {
                    *resume = Some(pgno);
                    return Err(e);
                }
            };
            let h = page::header(data, pgno)?;
            // A page of the other kind than the cursor's tree is corrupt
            // (as SQLite finds it on every page a seek descends through).
            if h.kind.is_table() != key_info.is_none() {
                // (At the root: the tree is of the other kind.)
                if path.is_empty() {
                    ROOT_FAULTS.with(|n| n.set(n.get() + 1));
                }
                return Err(Error::corrupt());
            }
            // Binary search: first cell for which the predicate holds. An
            // index page's cells are ordered from their record bytes, by
            // the probe's leading integer or text where that settles them
            // (`index_probe`), else by the generic compare, cell by cell.
            let (idx, equal_at) = match key_info {
                Some(ki) if !h.kind.is_table() => {
                    let enc = self.text_encoding;
                    let slow = |i: usize, local: Option<&[u8]>| match (local, probe) {
                        (Some(rec), Probe::Record(p)) => crate::value::record::compare_records_in(rec, p, ki, enc),
                        (Some(rec), Probe::Key(k) | Probe::PrimaryKey(k)) => crate::value::record::compare_record_with_key_in(rec, k, ki, enc),
                        _ => self.compare_cell(data, &h, i, probe, key_info, None, None),
                    };
                    match (first, text) {
                        (Some(f), _) => search_index_page(data, &h, self.usable(), strict, |rec| f.order_of(rec), slow)?,
                        (None, Some(t)) => search_index_page(data, &h, self.usable(), strict, |rec| t.order_of(rec), slow)?,
                        (None, None) => search_index_page(data, &h, self.usable(), strict, |_| None, slow)?,
                    }
                }
                _ => {
                    let (mut lo, mut hi) = (0usize, h.ncells);
                    let mut equal_at = None;
                    while lo < hi {
                        let mid = (lo + hi) / 2;
                        let o = self.compare_cell(data, &h, mid, probe, key_info, first, text)?;
                        let holds = if strict { o == Ordering::Greater } else { o != Ordering::Less };
                        if o == Ordering::Equal {
                            equal_at = Some(mid);
                        }
                        if holds {
                            hi = mid;
                        } else {
                            lo = mid + 1;
                        }
                    }
                    (lo, equal_at)
                }
            };
            let exact_here = equal_at == Some(idx) && !strict;
            if h.kind.is_leaf() {
                self.push_checked(path, Level { pgno, idx })?;
                if !settle || idx < h.ncells {
                    return Ok((idx < h.ncells, exact_here));
                }
                let found = self.settle_forward(path)?;
                let exact = found && exact_here && path.last().map(|l| l.pgno) == Some(pgno);
                return Ok((found, exact));
            }
            self.push_checked(path, Level { pgno, idx })?;
            if exact_here && stop_on_equal && !h.kind.is_table() {
                return Ok((true, true));
            }
            pgno = page::child(data, &h, idx, self.usable())?;
            if pgno > self.pager.db_size() {
                return Err(Error::corrupt());
            }
        }
    }
}
