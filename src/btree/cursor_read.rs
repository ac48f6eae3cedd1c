//! # Cursor moves and reads
//!
//! `first`/`last`/`next`/`prev`/`seek_rowid`/`seek_index` position a
//! [`Cursor`]; `payload`/`column`/`column_count` read the entry it is on.
//! `seek_rowid_lazy`/`last_rowid` position a table cursor by rowid without
//! reading the row, starting from the cursor's own leaf when it decides
//! the answer (`near.rs`).
//!
//! A move computes the new path and copies the new entry into the cursor's
//! spare buffers ([`Spare`]); only a finished attempt swaps them with the
//! current ones, so a move that stops for a missing page has changed
//! nothing, and moves do not allocate once the buffers have grown.
//!
//! The common step of a scan, to the neighbouring cell of the same leaf,
//! reads the leaf's header once per leaf ([`LeafHeader`], kept while the
//! tree's change sequence and the page are the same) and the cell's key
//! and payload straight from the page.
//!
//! Invariants: `spare` never holds the current position (it is scratch
//! between moves); `leaf`, when its `seq` equals the tree's, describes the
//! page `leaf.pgno` as it is in the cache (every change to any tree bumps
//! the sequence) (checked: cursor_leaf_header).

use super::balance::Level;
use super::cursor::Probe;
use super::page::{self, PageKind};
use super::rowid_seek::{cell_start, varint};
use super::{Btree, Cursor, CursorState, Pgno, SeekOp, SeekResult};
use crate::error::{Error, Result, SQLITE_INTERNAL};
use crate::value::{Value, ValueRef};
use crate::{IoPoll, Poll};

/// Buffers a move fills before it is installed: the new path and the new
/// entry's bytes (table: the payload when all local; index: the key).
#[derive(Debug, Default)]
pub(super) struct Spare {
    pub(super) path: Vec<Level>,
    buf: Vec<u8>,
    /// Page cache slot hints for the pages of the last descent, by depth
    /// (seeks from the root meet the same upper pages every time).
    hints: [u32; HINT_DEPTH],
    /// Leaves to request ahead at the next miss of a forward scan, and
    /// the leaf whose miss last did (see `read_ahead`).
    ahead: u32,
    ahead_for: super::Pgno,
    /// A UTF-16 file's text converted to UTF-8: the value or record the
    /// last [`Cursor::column`] or [`Cursor::payload`] lent out.
    pub(super) text: Vec<u8>,
}

/// Levels of a descent that keep a cache slot hint.
const HINT_DEPTH: usize = 8;

/// Where a move ended.
enum Landed {
    /// On an entry, whose path and bytes are in the spare buffers.
    Entry { rowid: i64, payload_valid: bool },
    /// On no entry (empty tree, past either end, no match).
    Nowhere,
}

/// The header fields of the leaf a cursor steps through.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct LeafHeader {
    /// The tree's change sequence when read (0: never read).
    seq: u64,
    pgno: Pgno,
    kind: Option<PageKind>,
    ncells: usize,
    /// Offset of the cell pointer array.
    ptrs: usize,
    /// The page cache slot the leaf was last found in (a hint).
    slot: u32,
}

impl LeafHeader {
    /// No leaf read yet, with a cache slot hint kept from before.
    pub(super) fn with_slot_hint(slot: u32) -> LeafHeader {
        LeafHeader { slot, ..LeafHeader::default() }
    }

    /// The cache slot the leaf was last found in.
    pub(super) fn slot_hint(&self) -> u32 {
        self.slot
    }
}

fn get_u32_of(d: &[u8]) -> Result<Pgno> {
    super::cell::get_u32(d, 0)
}

/// The serial type of column `i` and the record offset of its value, from
/// a record header that lies wholly in `local` (the first bytes of a
/// `payload_size`-byte record): `Some(None)` when the header has fewer
/// columns, `None` when the header is not all in `local` or does not read
/// sane (the caller then reads the whole record, which reports any
/// corruption).
fn column_in_local_header(local: &[u8], payload_size: usize, i: usize) -> Option<Option<(u64, usize)>> {
    let (hdr, mut pos) = crate::value::varint::read_varint(local)?;
    let hdr = usize::try_from(hdr).ok()?;
    if hdr > local.len() || hdr > payload_size || pos > hdr {
        return None;
    }
    let mut body = hdr as u64;
    let mut col = 0;
    while pos < hdr {
        let (st, n) = crate::value::varint::read_varint(&local[pos..hdr])?;
        let start = body;
        body += crate::value::record::serial_type_len(st)?;
        pos += n;
        // Once the last entry is parsed, the values must fill the record
        // exactly (as SQLite checks when a read reaches the header's end).
        if body > payload_size as u64 || (pos >= hdr && body != payload_size as u64) {
            return None;
        }
        if col == i {
            return Some(Some((st, start as usize)));
        }
        col += 1;
    }
    (body == payload_size as u64).then_some(None)
}

impl Btree {
    /// Read the entry `path` ends on into `buf`: an index entry's whole key,
    /// a table row's payload when it has no overflow pages (else nothing is
    /// read and the flag is `false`: the row is read when a column asks).
    fn entry_into(&self, path: &[Level], buf: &mut Vec<u8>, hints: &mut [u32]) -> Result<(i64, bool)> {
        let top = path.last().ok_or_else(Error::corrupt)?;
        let data = self.page_at_depth(top.pgno, path.len() - 1, hints)?;
        let h = page::header(data, top.pgno)?;
        if h.kind == PageKind::TableInterior {
            return Err(Error::corrupt());
        }
        // (An index key all in its cell, the usual case: copied without
        // parsing the cell further.)
        if let Some(rec) = super::index_probe::index_cell_record(data, &h, top.idx, self.usable()) {
            buf.clear();
            buf.extend_from_slice(rec);
            return Ok((0, true));
        }
        // (The usual row, all in its cell: copied without parsing the
        // cell further.)
        if h.kind == PageKind::TableLeaf {
            let usable = self.usable() as usize;
            if let Some((rowid, rec)) = super::rowid_seek::table_leaf_record(data, h.offset + h.kind.header_size(), h.ncells, top.idx, usable) {
                buf.clear();
                buf.extend_from_slice(rec);
                return Ok((rowid, true));
            }
        }
        // (A table row's cell is taken as it is: a first overflow page
        // number of 0 fails the read of the bytes past the cell, as in
        // SQLite, not the move onto the row.)
        let (bytes, info) =
            if h.kind.is_table() { page::cell_unchecked(data, &h, top.idx, self.usable())? } else { page::cell(data, &h, top.idx, self.usable())? };
        buf.clear();
        if h.kind.is_table() && info.local < info.payload_size as usize {
            return Ok((info.rowid, false));
        }
        self.full_payload_into(bytes, &info, buf)?;
        Ok((info.rowid, true))
    }

    /// The entry the spare path ends on.
    fn land(&self, spare: &mut Spare) -> Result<Landed> {
        let (rowid, payload_valid) = self.entry_into(&spare.path, &mut spare.buf, &mut spare.hints)?;
        Ok(Landed::Entry { rowid, payload_valid })
    }

    /// The last entry of the tree at `root`.
    fn land_last(&self, root: Pgno, spare: &mut Spare) -> Result<Landed> {
        spare.path.clear();
        self.descend_rightmost(&mut spare.path, root)?;
        let top = spare.path.last().copied().ok_or_else(Error::corrupt)?;
        if page::header(self.pager.page(top.pgno)?, top.pgno)?.ncells == 0 {
            return Ok(Landed::Nowhere);
        }
        self.land(spare)
    }

    /// Table trees: the last entry of the tree at `root`, its rowid only
    /// (the row is read when a column asks).
    fn land_last_rowid(&self, root: Pgno, spare: &mut Spare) -> Result<Landed> {
        spare.path.clear();
        self.check_root_kind(root, true)?;
        self.descend_rightmost(&mut spare.path, root)?;
        let top = spare.path.last().copied().ok_or_else(Error::corrupt)?;
        let data = self.pager.page(top.pgno)?;
        let h = page::header(data, top.pgno)?;
        if h.ncells == 0 {
            return Ok(Landed::Nowhere);
        }
        if h.kind != PageKind::TableLeaf {
            return Err(Error::corrupt());
        }
        Ok(Landed::Entry { rowid: self.leaf_rowid(data, &h, top.idx)?, payload_valid: false })
    }
}

impl Cursor {
    /// Finish a move: install what it found (keeping the replaced buffers
    /// as the next move's spares), or just put the spares back.
    fn finish_move<T>(&mut self, bt: &Btree, mut spare: Spare, r: IoPoll<(Landed, T)>) -> IoPoll<T> {
        let out = match r {
            Ok(Poll::Ready((landed, v))) => {
                self.install(bt, &mut spare, landed);
                Ok(Poll::Ready(v))
            }
            Ok(Poll::Pending) => Ok(Poll::Pending),
            Err(e) => Err(e),
        };
        self.spare = spare;
        out
    }

    #[inline]
    fn install(&mut self, bt: &Btree, spare: &mut Spare, landed: Landed) {
        // (A new position: the path kept from before a reopen is no
        // longer a hint; a stale hint could place an insert wrongly.)
        self.hint = false;
        self.payload_valid = false;
        self.header.reset();
        self.seq = bt.seq;
        match landed {
            Landed::Entry { rowid, payload_valid } => {
                std::mem::swap(&mut self.path, &mut spare.path);
                if self.key_info.is_some() {
                    std::mem::swap(&mut self.key, &mut spare.buf);
                } else {
                    std::mem::swap(&mut self.payload, &mut spare.buf);
                    self.payload_valid = payload_valid;
                }
                self.rowid = rowid;
                self.state = CursorState::Valid;
            }
            Landed::Nowhere => {
                self.path.clear();
                self.state = CursorState::Invalid;
            }
        }
        self.debug_check(bt);
    }

    /// Debug builds: the cursor's position agrees with itself (SQLite
    /// asserts `eState` and the page stack on every move and read): a path
    /// no deeper than [`super::cursor::MAX_DEPTH`]; on an entry of an
    /// unchanged tree, a path that ends on that entry's page, within its
    /// cells; an index cursor on an entry holds its key; a table row's
    /// bytes are at hand only while the cursor is on it.
    #[inline]
    fn debug_check(&self, bt: &Btree) {
        #[cfg(debug_assertions)]
        {
            // invariant: cursor_valid
            debug_assert!(self.path.len() <= super::cursor::MAX_DEPTH, "cursor path {} deep", self.path.len());
            debug_assert!(!self.payload_valid || self.state == CursorState::Valid, "row bytes at hand off an entry");
            if self.state == CursorState::Valid && self.fresh(bt) {
                let top = self.path.last();
                debug_assert!(top.is_some(), "cursor on an entry of an unchanged tree without a path");
                // (Only a page at hand is looked at: a check must not
                // fetch, nor fail on, a page.)
                if let Some((t, d)) = top.and_then(|t| bt.pager.page_if_cached(t.pgno).map(|d| (t, d))) {
                    if let Ok(h) = page::header(d, t.pgno) {
                        debug_assert!(t.idx < h.ncells, "cursor past its page's cells");
                        // invariant: cursor_saved_key
                        debug_assert!(
                            self.key_info.is_some() || h.kind != PageKind::TableLeaf || bt.leaf_rowid(d, &h, t.idx).is_ok_and(|r| r == self.rowid),
                            "a table cursor's rowid {} is not its entry's",
                            self.rowid
                        );
                    }
                }
            }
        }
        #[cfg(not(debug_assertions))]
        let _ = bt;
    }

    /// Stay on the entry the (fresh) path is on, now known to have
    /// `rowid`; the row is read when a column asks.
    fn install_in_place(&mut self, bt: &Btree, rowid: i64) {
        self.hint = false;
        self.payload_valid = false;
        self.header.reset();
        self.seq = bt.seq;
        self.rowid = rowid;
        self.state = CursorState::Valid;
        self.debug_check(bt);
    }

    /// Move to the first entry; `false` if the tree is empty.
    pub fn first(&mut self, bt: &mut Btree) -> IoPoll<bool> {
        let root = self.root;
        let table = self.key_info.is_none();
        let mut spare = std::mem::take(&mut self.spare);
        let r = bt.run_read(|bt| {
            spare.path.clear();
            bt.check_root_kind(root, table)?;
            bt.descend_leftmost(&mut spare.path, root)?;
            if !bt.settle_forward(&mut spare.path)? {
                return Ok((Landed::Nowhere, false));
            }
            Ok((bt.land(&mut spare)?, true))
        });
        self.finish_move(bt, spare, r)
    }

    /// Move to the last entry; `false` if the tree is empty.
    pub fn last(&mut self, bt: &mut Btree) -> IoPoll<bool> {
        let root = self.root;
        let table = self.key_info.is_none();
        let mut spare = std::mem::take(&mut self.spare);
        let r = bt.run_read(|bt| {
            bt.check_root_kind(root, table)?;
            let landed = bt.land_last(root, &mut spare)?;
            let found = matches!(landed, Landed::Entry { .. });
            Ok((landed, found))
        });
        self.finish_move(bt, spare, r)
    }

    /// The common step of a scan: to the neighbouring cell of the same
    /// leaf, when the path is current, the leaf is still cached and the
    /// entry needs no overflow page. Copies the entry into the cursor's
    /// kept buffers (no allocation, no path copy). `false`: nothing
    /// changed, take the general path (which also reports any corruption
    /// met here).
    #[inline]
    fn step_in_leaf(&mut self, bt: &Btree, forward: bool) -> bool {
        if self.state != CursorState::Valid || !self.fresh(bt) {
            return false;
        }
        let Some(top) = self.path.last().copied() else { return false };
        let data = match bt.pager.page_hinted(top.pgno, &mut self.leaf.slot) {
            Ok(d) => d,
            Err(_) => {
                bt.pager.take_missing();
                return false;
            }
        };
        if self.leaf.seq != bt.seq || self.leaf.pgno != top.pgno {
            let Ok(h) = page::header(data, top.pgno) else { return false };
            self.leaf =
                LeafHeader { seq: bt.seq, pgno: top.pgno, kind: Some(h.kind), ncells: h.ncells, ptrs: h.offset + h.kind.header_size(), slot: self.leaf.slot };
        }
        let leaf = self.leaf;
        // invariant: cursor_leaf_header
        debug_assert!(
            page::header(data, leaf.pgno).is_ok_and(|h| h.ncells == leaf.ncells && Some(h.kind) == leaf.kind),
            "a kept leaf header no longer describes page {}",
            leaf.pgno
        );
        let idx = if forward { top.idx + 1 } else { top.idx.wrapping_sub(1) };
        let table = match leaf.kind {
            Some(PageKind::TableLeaf) => true,
            Some(PageKind::IndexLeaf) => false,
            _ => return false,
        };
        if idx >= leaf.ncells || table != self.key_info.is_none() {
            return false;
        }
        // The cell: payload size, rowid (tables), payload; one that
        // overflows its page takes the general path.
        let usable = bt.usable();
        let Ok(off) = cell_start(data, leaf.ptrs, leaf.ncells, idx, usable as usize) else { return false };
        let cell = &data[off..usable as usize];
        let Ok((size, n)) = varint(cell) else { return false };
        let mut pos = n;
        let mut rowid = 0;
        if table {
            let Ok((r, n)) = varint(&cell[pos..]) else { return false };
            rowid = r as i64;
            pos += n;
        }
        if size > super::cell::max_local(table, usable) as u64 {
            return false;
        }
        let Some(local) = cell.get(pos..pos + size as usize) else { return false };
        let buf = if table { &mut self.payload } else { &mut self.key };
        buf.clear();
        buf.extend_from_slice(local);
        self.payload_valid = table;
        self.header.reset();
        self.rowid = rowid;
        if let Some(t) = self.path.last_mut() {
            t.idx = idx;
        }
        true
    }

    /// Move to the next entry; `false` at the end.
    #[inline]
    pub fn next(&mut self, bt: &mut Btree) -> IoPoll<bool> {
        if self.state == CursorState::Invalid {
            return Ok(Poll::Ready(false));
        }
        if self.step_in_leaf(bt, true) {
            self.debug_check(bt);
            return Ok(Poll::Ready(true));
        }
        self.next_general(bt)
    }

    /// [`Cursor::next`] beyond the current leaf (or from a stale path).
    fn next_general(&mut self, bt: &mut Btree) -> IoPoll<bool> {
        let fresh = self.state == CursorState::Valid && self.fresh(bt);
        let after_delete = self.state == CursorState::DeletedInLeaf && self.fresh(bt);
        let mut spare = std::mem::take(&mut self.spare);
        let this = &*self;
        // (A retry after fetching a page continues the descent there.)
        let mut resume = None;
        let r = bt.run_read(|bt| {
            if after_delete {
                // The path already ends where the next entry moved up to.
                spare.path.clear();
                spare.path.extend_from_slice(&this.path);
                if !bt.settle_forward(&mut spare.path)? {
                    return Ok((Landed::Nowhere, false));
                }
                return Ok((bt.land(&mut spare)?, true));
            }
            if fresh {
                spare.path.clear();
                spare.path.extend_from_slice(&this.path);
            } else {
                let (found, exact) =
                    bt.seek_path_into(this.root, &this.probe(), this.key_info.as_deref(), false, true, &mut spare.path, &mut spare.hints, &mut resume)?;
                if !found {
                    return Ok((Landed::Nowhere, false));
                }
                if !exact {
                    return Ok((bt.land(&mut spare)?, true));
                }
            }
            if !bt.step_next(&mut spare.path)? {
                return Ok((Landed::Nowhere, false));
            }
            Ok((bt.land(&mut spare)?, true))
        });
        if fresh && matches!(r, Ok(Poll::Pending)) {
            super::read_ahead::after_miss(bt, &this.path, &mut spare.ahead, &mut spare.ahead_for);
        }
        self.finish_move(bt, spare, r)
    }

    /// Move to the previous entry; `false` at the start.
    pub fn prev(&mut self, bt: &mut Btree) -> IoPoll<bool> {
        if self.state == CursorState::Invalid {
            return Ok(Poll::Ready(false));
        }
        if self.step_in_leaf(bt, false) {
            self.debug_check(bt);
            return Ok(Poll::Ready(true));
        }
        // (After a delete in the leaf the path is on the entry after the
        // deleted one: the step back from it is the entry before.)
        let fresh = matches!(self.state, CursorState::Valid | CursorState::DeletedInLeaf) && self.fresh(bt);
        let mut spare = std::mem::take(&mut self.spare);
        let this = &*self;
        // (A retry after fetching a page continues the descent there.)
        let mut resume = None;
        let r = bt.run_read(|bt| {
            if fresh {
                spare.path.clear();
                spare.path.extend_from_slice(&this.path);
            } else {
                let (found, _) =
                    bt.seek_path_into(this.root, &this.probe(), this.key_info.as_deref(), false, true, &mut spare.path, &mut spare.hints, &mut resume)?;
                if !found {
                    let landed = bt.land_last(this.root, &mut spare)?;
                    let found = matches!(landed, Landed::Entry { .. });
                    return Ok((landed, found));
                }
            }
            if !bt.step_prev(&mut spare.path)? {
                return Ok((Landed::Nowhere, false));
            }
            Ok((bt.land(&mut spare)?, true))
        });
        self.finish_move(bt, spare, r)
    }

    /// Table trees: seek `rowid`.
    pub fn seek_rowid(&mut self, bt: &mut Btree, rowid: i64) -> IoPoll<SeekResult> {
        if self.key_info.is_some() {
            return Err(Error::new(SQLITE_INTERNAL, "rowid seek on an index cursor"));
        }
        if self.on_row(bt, rowid) {
            return Ok(Poll::Ready(SeekResult::Found));
        }
        let root = self.root;
        let mut spare = std::mem::take(&mut self.spare);
        // (A retry after fetching a page continues the descent there.)
        let mut resume = None;
        let r = bt.run_read(|bt| {
            let (found, exact) = bt.seek_rowid_path(root, rowid, &mut spare.path, &mut spare.hints, &mut resume)?;
            if found {
                let r = if exact { SeekResult::Found } else { SeekResult::After };
                return Ok((bt.land(&mut spare)?, r));
            }
            let last = bt.land_last(root, &mut spare)?;
            let r = if matches!(last, Landed::Entry { .. }) { SeekResult::Before } else { SeekResult::Empty };
            Ok((last, r))
        });
        self.finish_move(bt, spare, r)
    }

    /// Table trees: [`Cursor::seek_rowid`] without reading the row (a
    /// column read fetches it), for `NotExists`, which mostly only asks
    /// whether a rowid is taken. A rowid the cursor's fresh leaf decides
    /// (the next rowid of an append, the row an UPDATE is on) is found
    /// there without a descent from the root.
    pub fn seek_rowid_lazy(&mut self, bt: &mut Btree, rowid: i64) -> IoPoll<SeekResult> {
        if self.key_info.is_some() {
            return Err(Error::new(SQLITE_INTERNAL, "rowid seek on an index cursor"));
        }
        if self.on_row(bt, rowid) {
            return Ok(Poll::Ready(SeekResult::Found));
        }
        self.seek_spot = None;
        let near = if self.near_worth_trying() { self.near_path(bt) } else { None };
        if let Some(near) = near {
            match bt.rowid_near(near, rowid, self.on_known_last_leaf(bt)) {
                Ok(Some(spot)) => {
                    self.near_misses = 0;
                    let old_idx = self.path.last().map_or(0, |l| l.idx);
                    let (found, result) = match bt.land_on_spot(&mut self.path, spot.idx, rowid) {
                        Ok(r) => r,
                        Err(e) => {
                            if let Some(top) = self.path.last_mut() {
                                top.idx = old_idx;
                            }
                            return Err(e);
                        }
                    };
                    self.install_in_place(bt, found);
                    // (The interior levels did not change.)
                    if spot.last_leaf {
                        self.note_last_leaf(bt);
                    }
                    self.note_seek_spot(bt, rowid, spot.idx, spot.exact, spot.last_leaf);
                    return Ok(Poll::Ready(result));
                }
                Ok(None) => self.near_misses = self.near_misses.saturating_add(1),
                // (A page not cached, or damage the seek below reports.)
                Err(_) => {
                    bt.pager.take_missing();
                }
            }
        }
        let root = self.root;
        let mut spare = std::mem::take(&mut self.spare);
        // (A retry after fetching a page continues the descent there.)
        let mut resume = None;
        let r = bt.run_read(|bt| {
            let (found, exact) = bt.seek_rowid_path(root, rowid, &mut spare.path, &mut spare.hints, &mut resume)?;
            if exact {
                // (The descent checked the leaf and read the rowid there:
                // nothing to look at again.)
                return Ok((Landed::Entry { rowid, payload_valid: false }, (SeekResult::Found, false)));
            }
            if found {
                let idx = spare.path.last().map_or(0, |l| l.idx);
                let (got, result) = bt.land_on_spot(&mut spare.path, idx, rowid)?;
                return Ok((Landed::Entry { rowid: got, payload_valid: false }, (result, false)));
            }
            // Past the last entry: the cursor goes on it, on the last leaf.
            let last = bt.land_last_rowid(root, &mut spare)?;
            let on_last = matches!(last, Landed::Entry { .. });
            Ok((last, (if on_last { SeekResult::Before } else { SeekResult::Empty }, on_last)))
        });
        let (result, on_last) = crate::ready!(self.finish_move(bt, spare, r)?);
        if on_last {
            self.note_last_leaf(bt);
            let end = self.path.last().map_or(0, |l| l.idx + 1);
            self.note_seek_spot(bt, rowid, end, false, true);
        } else if let Some(idx) = self.path.last().map(|l| l.idx).filter(|&i| i > 0) {
            // (On cell 0 the descent may have moved on from the leaf the
            // rowid belongs on to the next one: no spot is noted then.)
            if matches!(result, SeekResult::Found | SeekResult::After) {
                self.note_seek_spot(bt, rowid, idx, result == SeekResult::Found, false);
            }
        }
        Ok(Poll::Ready(result))
    }

    /// Keep where the seek of `rowid` found it is or goes (see
    /// `Cursor::seek_spot`).
    fn note_seek_spot(&mut self, bt: &Btree, rowid: i64, idx: usize, exact: bool, last_leaf: bool) {
        if let (Some(&at), CursorState::Valid) = (self.path.last(), self.state) {
            self.seek_spot = Some(super::SeekSpot { rowid, seq: bt.seq, at, idx, exact, last_leaf });
        }
    }

    /// Whether a rowid seek should first ask the current leaf
    /// ([`Btree::rowid_near`]): yes while it has been answering; after
    /// a run of misses (random rowids), only every 16th seek, so that a
    /// sequential run found again is soon noticed, and random access does
    /// not pay a useless look at the neighbours each time.
    fn near_worth_trying(&mut self) -> bool {
        if self.near_misses < 4 || self.near_misses.is_multiple_of(16) {
            return true;
        }
        self.near_misses = self.near_misses.wrapping_add(1).max(4);
        false
    }

    /// Table trees: move to the last entry without reading the row (a
    /// column read fetches it), for `NewRowid`, which only wants the
    /// largest rowid; `None` if the tree is empty. A cursor still on the
    /// last entry (the row it appended before being reopened on the same
    /// tree) answers without a descent.
    pub fn last_rowid(&mut self, bt: &mut Btree) -> IoPoll<Option<i64>> {
        if self.key_info.is_some() {
            return Err(Error::new(SQLITE_INTERNAL, "rowid of an index cursor"));
        }
        let mut slot = self.leaf.slot;
        if let Some(near) = self.near_path(bt) {
            match bt.last_rowid_near(near, self.on_known_last_leaf(bt), &mut slot) {
                Ok(Some(rowid)) => {
                    self.leaf.slot = slot;
                    self.install_in_place(bt, rowid);
                    // (The same path: its leaf is still the last.)
                    self.note_last_leaf(bt);
                    self.note_append_spot(bt, rowid);
                    return Ok(Poll::Ready(Some(rowid)));
                }
                Ok(None) => {}
                // (A page not cached, or damage the descent reports.)
                Err(_) => {
                    bt.pager.take_missing();
                }
            }
        }
        let root = self.root;
        let mut spare = std::mem::take(&mut self.spare);
        let r = bt.run_read(|bt| {
            let landed = bt.land_last_rowid(root, &mut spare)?;
            let rowid = match landed {
                Landed::Entry { rowid, .. } => Some(rowid),
                Landed::Nowhere => None,
            };
            Ok((landed, rowid))
        });
        let rowid = crate::ready!(self.finish_move(bt, spare, r)?);
        // (A descent along the right edge ends on the last leaf.)
        if let Some(last) = rowid {
            self.note_last_leaf(bt);
            self.note_append_spot(bt, last);
        }
        Ok(Poll::Ready(rowid))
    }

    /// On the tree's last entry (rowid `last`): the next rowid goes just
    /// after it, which an insert of it (`NewRowid` then `Insert`) then
    /// needs not find again.
    fn note_append_spot(&mut self, bt: &Btree, last: i64) {
        self.seek_spot = None;
        if let (Some(next), Some(idx)) = (last.checked_add(1), self.path.last().map(|l| l.idx + 1)) {
            self.note_seek_spot(bt, next, idx, false, true);
        }
    }

    /// Index trees: position by comparing `key` (a prefix of the entry's
    /// fields) with the cursor's `KeyInfo`. `false` if no entry qualifies.
    pub fn seek_index(&mut self, bt: &mut Btree, key: &[ValueRef<'_>], op: SeekOp) -> IoPoll<bool> {
        Ok(crate::ready!(self.seek_index_exact(bt, key, op)?).0.into())
    }

    /// [`Cursor::seek_index`], also telling whether the entry found is
    /// known to equal `key` (in its fields): the search compared it equal
    /// on its way (`SeekOp::Ge` only; `false` may still be an equal entry).
    pub fn seek_index_exact(&mut self, bt: &mut Btree, key: &[ValueRef<'_>], op: SeekOp) -> IoPoll<(bool, bool)> {
        let enc = bt.text_encoding;
        if enc.is_utf16() && key.iter().any(|v| matches!(v, ValueRef::Text(_))) {
            // The probe's text as the entries store it.
            let wide: Vec<crate::value::Value> = key
                .iter()
                .map(|v| match v {
                    ValueRef::Text(t) => crate::value::Value::Text(crate::value::encoding::utf8_to_utf16(t, enc)),
                    v => v.to_owned(),
                })
                .collect();
            let wide: Vec<ValueRef<'_>> = wide.iter().map(crate::value::Value::as_ref).collect();
            return self.seek_index_stored(bt, &wide, op);
        }
        self.seek_index_stored(bt, key, op)
    }

    /// [`Cursor::seek_index`] with the probe's text as the file stores it.
    fn seek_index_stored(&mut self, bt: &mut Btree, key: &[ValueRef<'_>], op: SeekOp) -> IoPoll<(bool, bool)> {
        let Some(ki) = self.key_info.clone() else {
            return Err(Error::new(SQLITE_INTERNAL, "index seek on a table cursor"));
        };
        let root = self.root;
        let mut spare = std::mem::take(&mut self.spare);
        // (A retry after fetching a page continues the descent there.)
        let mut resume = None;
        let r = bt.run_read(|bt| {
            let probe = Probe::Key(key);
            let strict = matches!(op, SeekOp::Gt | SeekOp::Le);
            let (found, exact) = bt.seek_path_into(root, &probe, Some(&ki), strict, true, &mut spare.path, &mut spare.hints, &mut resume)?;
            let landed = match op {
                SeekOp::Ge | SeekOp::Gt => {
                    if found {
                        bt.land(&mut spare)?
                    } else {
                        Landed::Nowhere
                    }
                }
                SeekOp::Le | SeekOp::Lt => {
                    if !found {
                        bt.land_last(root, &mut spare)?
                    } else if bt.step_prev(&mut spare.path)? {
                        bt.land(&mut spare)?
                    } else {
                        Landed::Nowhere
                    }
                }
            };
            let found = matches!(landed, Landed::Entry { .. });
            Ok((landed, (found, found && exact && op == SeekOp::Ge)))
        });
        self.finish_move(bt, spare, r)
    }

    /// Whether the cursor is on an entry of a tree unchanged since it
    /// got there (its saved key and path are those of the entry).
    #[inline]
    pub fn on_fresh_entry(&self, bt: &Btree) -> bool {
        self.state == CursorState::Valid && self.fresh(bt)
    }

    /// Table trees: whether the cursor is on the row `rowid` already (a
    /// one-pass DELETE's or UPDATE's seek of the row its loop's cursor
    /// found): a seek there has nothing to do.
    #[inline]
    fn on_row(&self, bt: &Btree, rowid: i64) -> bool {
        self.state == CursorState::Valid && self.rowid == rowid && self.fresh(bt)
    }

    /// Whether the cursor is on an entry. `false` after `delete` (until
    /// `next`/`prev` moves it) and after a failed seek or end of walk.
    pub fn is_valid(&self) -> bool {
        self.state == CursorState::Valid
    }

    /// Index trees: the rowid that ends the current entry's key, read as
    /// SQLite's `IdxRowid` reads it: the header's last serial type (one
    /// byte: an integer) and the key's last bytes, without parsing the
    /// header. `None` when the key does not end so (a long header, a last
    /// field that is not an integer, a key too short for it): the caller
    /// decodes the key's last field instead.
    #[inline]
    pub fn index_key_rowid(&self) -> Option<i64> {
        if self.state != CursorState::Valid || self.key_info.is_none() {
            return None;
        }
        let key = &self.key[..];
        let hs = usize::from(*key.first()?);
        // (A one-byte header size; the byte before the last serial type
        // ends a varint, so that type is one byte.)
        if !(2..0x80).contains(&hs) || hs > key.len() || (hs >= 3 && key[hs - 2] >= 0x80) {
            return None;
        }
        let n = match key[hs - 1] {
            8 => return Some(0),
            9 => return Some(1),
            st @ 1..=4 => usize::from(st),
            5 => 6,
            6 => 8,
            _ => return None,
        };
        let b = key.get(key.len().checked_sub(n).filter(|&at| at >= hs)?..)?;
        let mut v = [if b[0] & 0x80 != 0 { 0xff } else { 0 }; 8];
        v[8 - n..].copy_from_slice(b);
        Some(i64::from_be_bytes(v))
    }

    /// Table trees: rowid of the current entry.
    pub fn rowid(&self) -> i64 {
        self.rowid
    }

    /// The current entry's payload (table: the record; index: the key
    /// record), overflow pages included. If another cursor deleted the
    /// entry meanwhile this is an `SQLITE_INTERNAL` error.
    ///
    /// The record is a UTF-8 one: on a UTF-16 file its text is converted
    /// (into `spare.text`); [`Cursor::stored_payload`] gives the bytes as
    /// stored.
    pub fn payload(&mut self, bt: &mut Btree) -> IoPoll<&[u8]> {
        if !bt.text_encoding.is_utf16() {
            return self.stored_payload(bt);
        }
        let enc = bt.text_encoding;
        crate::ready!(self.stored_payload(bt)?);
        let stored = if self.key_info.is_some() { &self.key[..] } else { &self.payload[..] };
        match crate::value::transcode::transcode_record(stored, enc, true) {
            Some(t) => {
                self.spare.text = t;
                Ok(Poll::Ready(&self.spare.text))
            }
            None => Ok(Poll::Ready(if self.key_info.is_some() { &self.key[..] } else { &self.payload[..] })),
        }
    }

    /// The current entry's payload as the file stores it (see
    /// [`Cursor::payload`]).
    pub fn stored_payload(&mut self, bt: &mut Btree) -> IoPoll<&[u8]> {
        self.debug_check(bt);
        if self.state != CursorState::Valid {
            return Err(Error::new(SQLITE_INTERNAL, "cursor is not on an entry"));
        }
        if self.key_info.is_some() {
            return Ok(Poll::Ready(&self.key));
        }
        if !self.payload_valid || !self.fresh(bt) {
            let mut spare = std::mem::take(&mut self.spare);
            // A whole-payload read a `Pending` stopped goes on where it
            // was (its bytes so far are in `spare.buf`).
            let mut progress = match self.chain_read.take() {
                Some((st, None)) if st.seq == bt.seq => Some(st),
                _ => None,
            };
            let mut found_path: Option<Vec<Level>> = None;
            let this = &*self;
            let r = bt.run_read(|bt| {
                let path = match &found_path {
                    Some(p) => p.clone(),
                    None => this.current_path(bt)?,
                };
                if progress.is_none() {
                    let top = path.last().ok_or_else(Error::corrupt)?;
                    let data = bt.pager.page(top.pgno)?;
                    let h = page::header(data, top.pgno)?;
                    let (bytes, info) = page::cell_unchecked(data, &h, top.idx, bt.usable())?;
                    if h.kind != PageKind::TableLeaf {
                        return Err(Error::corrupt());
                    }
                    spare.buf.clear();
                    spare.buf.reserve(info.payload_size as usize);
                    progress = Some(bt.start_chain_read(bytes, &info, 0, info.payload_size as usize, &mut spare.buf)?);
                }
                found_path = Some(path.clone());
                let st = progress.as_mut().ok_or_else(Error::corrupt)?;
                bt.continue_chain_read(st, &mut spare.buf, 0)?;
                Ok(path)
            });
            if let (Ok(Poll::Pending), Some(st)) = (&r, progress) {
                self.chain_read = Some((st, None));
            }
            let path = match r {
                Ok(Poll::Ready(path)) => path,
                Ok(Poll::Pending) => {
                    self.spare = spare;
                    return Ok(Poll::Pending);
                }
                Err(e) => {
                    self.spare = spare;
                    return Err(e);
                }
            };
            self.path = path;
            self.seq = bt.seq;
            std::mem::swap(&mut self.payload, &mut spare.buf);
            self.spare = spare;
            self.payload_valid = true;
            self.header.reset();
        }
        Ok(Poll::Ready(&self.payload))
    }

    /// Table trees: column `i` of the current entry's record, decoded in
    /// place (`None` when the record has fewer columns). The record header
    /// is parsed once per entry, and only as far as the columns read.
    ///
    /// Index trees: field `i` of the entry's key record.
    #[inline]
    pub fn column(&mut self, bt: &mut Btree, i: usize) -> IoPoll<Option<ValueRef<'_>>> {
        self.debug_check(bt);
        crate::ready!(self.entry_at_hand(bt)?);
        let payload = if self.key_info.is_some() { &self.key[..] } else { &self.payload[..] };
        match self.header.column(payload, i)? {
            None => Ok(Poll::Ready(None)),
            Some((st, off)) => match crate::value::record::decode_value(st, &payload[off..])? {
                ValueRef::Text(t) if bt.text_encoding.is_utf16() => {
                    self.spare.text.clear();
                    crate::value::encoding::utf16_to_utf8_into(t, bt.text_encoding, &mut self.spare.text);
                    Ok(Poll::Ready(Some(ValueRef::Text(&self.spare.text))))
                }
                v => Ok(Poll::Ready(Some(v))),
            },
        }
    }

    /// The entry's bytes are in `key` (index trees) or `payload` (table
    /// trees), read now if they were not (overflow pages, a stale path).
    #[inline]
    fn entry_at_hand(&mut self, bt: &mut Btree) -> IoPoll<()> {
        // (The entry's bytes are usually at hand: no call then.)
        let at_hand = self.state == CursorState::Valid && (self.key_info.is_some() || (self.payload_valid && self.fresh(bt)));
        if !at_hand {
            crate::ready!(self.stored_payload(bt)?);
        }
        Ok(Poll::Ready(()))
    }

    /// [`Cursor::column`] stored straight into `dst` (reusing its text or
    /// blob buffer, else one of `spare`'s, so that a statement run again
    /// after a reset refills the buffers its last run had): `false` when
    /// the record has fewer columns (`dst` is then unchanged).
    #[inline]
    pub fn column_into(&mut self, bt: &mut Btree, i: usize, dst: &mut Value, spare: &mut Vec<Vec<u8>>) -> IoPoll<bool> {
        self.debug_check(bt);
        let at_hand = self.state == CursorState::Valid && (self.key_info.is_some() || (self.payload_valid && self.fresh(bt)));
        if !at_hand {
            if let Some(found) = crate::ready!(self.column_not_at_hand(bt, i, dst)?) {
                return Ok(Poll::Ready(found));
            }
        }
        let payload = if self.key_info.is_some() { &self.key[..] } else { &self.payload[..] };
        match self.header.column(payload, i)? {
            None => Ok(Poll::Ready(false)),
            Some((st, off)) => {
                let v = crate::value::record::decode_value(st, &payload[off..])?;
                match v {
                    ValueRef::Text(t) if bt.text_encoding.is_utf16() => {
                        *dst = crate::value::Value::Text(crate::value::encoding::utf16_to_utf8(t, bt.text_encoding));
                    }
                    ValueRef::Text(b) | ValueRef::Blob(b) if !spare.is_empty() && !matches!(dst, Value::Text(_) | Value::Blob(_)) => {
                        let mut buf = spare.pop().unwrap_or_default();
                        buf.clear();
                        buf.extend_from_slice(b);
                        *dst = if matches!(v, ValueRef::Text(_)) { Value::Text(buf) } else { Value::Blob(buf) };
                    }
                    v => dst.assign_ref(v),
                }
                Ok(Poll::Ready(true))
            }
        }
    }

    /// Whether the current entry's bytes are in memory (an index key, or a
    /// table row without overflow pages already read): reading a column
    /// then costs no I/O, whatever its size.
    #[inline]
    pub fn entry_in_memory(&self, bt: &Btree) -> bool {
        self.state == CursorState::Valid && (self.key_info.is_some() || (self.payload_valid && self.fresh(bt)))
    }

    /// The serial type of column `i` of the current entry's record
    /// (`None` when the record has fewer columns), read from the header
    /// alone: a row whose payload spills to overflow pages has them left
    /// unread when its header lies in the cell (always, but for rows of
    /// thousands of columns). What `length()`, `typeof()` and
    /// `octet_length()` of a column need (SQLite's `OPFLAG_LENGTHARG`).
    pub fn column_serial_type(&mut self, bt: &mut Btree, i: usize) -> IoPoll<Option<u64>> {
        let at_hand = self.state == CursorState::Valid && (self.key_info.is_some() || (self.payload_valid && self.fresh(bt)));
        if !at_hand && self.state == CursorState::Valid {
            let this = &*self;
            let r = bt.run_read(|bt| {
                let path = this.current_path(bt)?;
                let top = path.last().ok_or_else(Error::corrupt)?;
                let data = bt.pager.page(top.pgno)?;
                let h = page::header(data, top.pgno)?;
                let (bytes, info) = page::cell_unchecked(data, &h, top.idx, bt.usable())?;
                if h.kind != PageKind::TableLeaf {
                    return Err(Error::corrupt());
                }
                let local = bytes.get(info.payload_offset..info.payload_offset + info.local).ok_or_else(Error::corrupt)?;
                Ok(column_in_local_header(local, info.payload_size as usize, i).map(|c| c.map(|(st, _)| st)))
            });
            match r? {
                Poll::Pending => return Ok(Poll::Pending),
                Poll::Ready(Some(st)) => return Ok(Poll::Ready(st)),
                // The header is not all in the cell, or reads oddly: the
                // whole record is read and checked as usual.
                Poll::Ready(None) => {}
            }
        }
        crate::ready!(self.entry_at_hand(bt)?);
        let payload = if self.key_info.is_some() { &self.key[..] } else { &self.payload[..] };
        Ok(Poll::Ready(self.header.column(payload, i)?.map(|(st, _)| st)))
    }

    /// [`Cursor::column_into`] when the row is not read yet: a large row's
    /// column comes straight from its overflow chain (`Some`: done);
    /// otherwise the row is read whole (`None`: decode it as usual).
    // (Out of line: `column_into` stays small enough to inline into the
    // VM's `Column`.)
    #[cold]
    #[inline(never)]
    fn column_not_at_hand(&mut self, bt: &mut Btree, i: usize, dst: &mut Value) -> IoPoll<Option<bool>> {
        if self.state == CursorState::Valid && self.key_info.is_none() && self.chain_read.is_none() && self.fresh(bt) {
            // The common case after a seek: the row's cell, all in its
            // leaf, copied from there at once (no path cloned, the cell
            // parsed once; what `stored_payload` does for such a row).
            if let Some(top) = self.path.last().copied() {
                let buf = &mut self.payload;
                let whole = crate::ready!(bt.run_read(|bt| {
                    let data = bt.pager.page(top.pgno)?;
                    let h = page::header(data, top.pgno)?;
                    if h.kind != PageKind::TableLeaf {
                        return Err(Error::corrupt());
                    }
                    let ptrs = h.offset + h.kind.header_size();
                    if let Some((_, rec)) = super::rowid_seek::table_leaf_record(data, ptrs, h.ncells, top.idx, bt.usable() as usize) {
                        buf.clear();
                        buf.extend_from_slice(rec);
                        return Ok(true);
                    }
                    let (bytes, info) = page::cell_unchecked(data, &h, top.idx, bt.usable())?;
                    if info.local < info.payload_size as usize {
                        return Ok(false);
                    }
                    let local = bytes.get(info.payload_offset..info.payload_offset + info.local).ok_or_else(Error::corrupt)?;
                    buf.clear();
                    buf.extend_from_slice(local);
                    Ok(true)
                })?);
                if whole {
                    self.seq = bt.seq;
                    self.payload_valid = true;
                    self.header.reset();
                    return Ok(Poll::Ready(None));
                }
            }
        }
        if self.state == CursorState::Valid && self.key_info.is_none() {
            if let Some(found) = crate::ready!(self.column_from_chain(bt, i, dst)?) {
                return Ok(Poll::Ready(Some(found)));
            }
        }
        crate::ready!(self.stored_payload(bt)?);
        Ok(Poll::Ready(None))
    }

    /// Column `i` of a table row longer than
    /// [`super::overflow::CHAIN_BATCH_PAGES`] overflow pages, read alone:
    /// only that value's bytes are copied (into `dst`, once), as SQLite's
    /// `OP_Column` reads one field of a large row. `None` for a shorter
    /// row, or one whose header is not all in its cell: the caller reads
    /// the whole row.
    fn column_from_chain(&mut self, bt: &mut Btree, i: usize, dst: &mut Value) -> IoPoll<Option<bool>> {
        let mut progress = match self.chain_read.take() {
            Some((st, Some((col, ty, buf)))) if st.seq == bt.seq && col == i => Some((st, ty, buf)),
            _ => None,
        };
        // Not for this path: the row is short or its header overflows.
        let mut whole_row = false;
        let mut missing = false;
        let this = &*self;
        let r = bt.run_read(|bt| {
            if progress.is_none() {
                let path = this.current_path(bt)?;
                let top = path.last().ok_or_else(Error::corrupt)?;
                let data = bt.pager.page(top.pgno)?;
                let h = page::header(data, top.pgno)?;
                let (bytes, info) = page::cell_unchecked(data, &h, top.idx, bt.usable())?;
                if h.kind != PageKind::TableLeaf {
                    return Err(Error::corrupt());
                }
                let size = info.payload_size as usize;
                if info.overflow == 0 || bt.overflow_pages_for(PageKind::TableLeaf, size) <= super::overflow::CHAIN_BATCH_PAGES {
                    whole_row = true;
                    return Ok(());
                }
                let local = bytes.get(info.payload_offset..info.payload_offset + info.local).ok_or_else(Error::corrupt)?;
                match column_in_local_header(local, size, i) {
                    None => {
                        whole_row = true;
                        return Ok(());
                    }
                    Some(None) => {
                        missing = true;
                        return Ok(());
                    }
                    Some(Some((st, off))) => {
                        let len = crate::value::record::serial_type_len(st).ok_or_else(Error::corrupt)? as usize;
                        let mut buf = Vec::with_capacity(len);
                        let read = bt.start_chain_read(bytes, &info, off, off + len, &mut buf)?;
                        progress = Some((read, st, buf));
                    }
                }
            }
            let (read, _, buf) = progress.as_mut().ok_or_else(Error::corrupt)?;
            bt.continue_chain_read(read, buf, 0)
        });
        match r {
            Ok(Poll::Ready(())) => {}
            Ok(Poll::Pending) => {
                if let Some((read, st, buf)) = progress {
                    self.chain_read = Some((read, Some((i, st, buf))));
                }
                return Ok(Poll::Pending);
            }
            Err(e) => return Err(e),
        }
        if whole_row {
            return Ok(Poll::Ready(None));
        }
        if missing {
            return Ok(Poll::Ready(Some(false)));
        }
        let Some((_, st, buf)) = progress else { return Err(Error::corrupt()) };
        match st {
            12.. if st.is_multiple_of(2) => *dst = Value::Blob(buf),
            13.. if bt.text_encoding.is_utf16() => *dst = Value::Text(crate::value::encoding::utf16_to_utf8(&buf, bt.text_encoding)),
            13.. => *dst = Value::Text(buf),
            _ => dst.assign_ref(crate::value::record::decode_value(st, &buf)?),
        }
        Ok(Poll::Ready(Some(true)))
    }

    /// Bytes `from..to` of column `i`'s value in the current table row
    /// (the caller keeps them within the value), read from the cell and
    /// the overflow chain up to them: for `substr()` of a large blob. The
    /// read goes on after a `Pending` where it stopped.
    pub fn column_bytes(&mut self, bt: &mut Btree, i: usize, from: usize, to: usize) -> IoPoll<Vec<u8>> {
        let mut progress = match self.range_read.take() {
            Some((c, f, t, st, buf)) if (c, f, t) == (i, from, to) && st.seq == bt.seq => Some((st, buf)),
            _ => None,
        };
        let mut whole_row = false;
        let this = &*self;
        let r = bt.run_read(|bt| {
            if progress.is_none() {
                let path = this.current_path(bt)?;
                let top = path.last().ok_or_else(Error::corrupt)?;
                let data = bt.pager.page(top.pgno)?;
                let h = page::header(data, top.pgno)?;
                let (bytes, info) = page::cell_unchecked(data, &h, top.idx, bt.usable())?;
                if h.kind != PageKind::TableLeaf {
                    return Err(Error::corrupt());
                }
                let local = bytes.get(info.payload_offset..info.payload_offset + info.local).ok_or_else(Error::corrupt)?;
                let Some(Some((_, off))) = column_in_local_header(local, info.payload_size as usize, i) else {
                    whole_row = true;
                    return Ok(());
                };
                let mut buf = Vec::with_capacity(to - from);
                let read = bt.start_chain_read(bytes, &info, off + from, off + to, &mut buf)?;
                progress = Some((read, buf));
            }
            let (read, buf) = progress.as_mut().ok_or_else(Error::corrupt)?;
            bt.continue_chain_read(read, buf, 0)
        });
        match r {
            Ok(Poll::Ready(())) => {}
            Ok(Poll::Pending) => {
                if let Some((read, buf)) = progress {
                    self.range_read = Some((i, from, to, read, buf));
                }
                return Ok(Poll::Pending);
            }
            Err(e) => return Err(e),
        }
        if whole_row {
            crate::ready!(self.entry_at_hand(bt)?);
            let (_, off) = self.header.column(&self.payload, i)?.ok_or_else(Error::corrupt)?;
            return Ok(Poll::Ready(self.payload.get(off + from..off + to).ok_or_else(Error::corrupt)?.to_vec()));
        }
        let (_, buf) = progress.ok_or_else(Error::corrupt)?;
        Ok(Poll::Ready(buf))
    }

    /// The current table row's cell: a copy of its bytes and its parse
    /// (the payload beyond the cell is not read).
    fn row_cell(&mut self, bt: &mut Btree) -> IoPoll<(Vec<u8>, super::cell::CellInfo)> {
        if self.state != CursorState::Valid || self.key_info.is_some() {
            return Err(Error::new(SQLITE_INTERNAL, "cursor is not on a table row"));
        }
        let this = &*self;
        bt.run_read(|bt| {
            let path = this.current_path(bt)?;
            let top = path.last().ok_or_else(Error::corrupt)?;
            let data = bt.pager.page(top.pgno)?;
            let h = page::header(data, top.pgno)?;
            let (bytes, info) = page::cell_unchecked(data, &h, top.idx, bt.usable())?;
            if h.kind != PageKind::TableLeaf {
                return Err(Error::corrupt());
            }
            Ok((bytes.to_vec(), info))
        })
    }

    /// Where column `col` of the current table row lies: its serial type,
    /// the payload offset of its value and the payload's size (`None`
    /// when the record has fewer columns). Read from the cell alone when
    /// the header is there (a large row's chain is not read).
    pub fn column_location(&mut self, bt: &mut Btree, col: usize) -> IoPoll<Option<(u64, usize, usize)>> {
        let (bytes, info) = crate::ready!(self.row_cell(bt)?);
        let size = info.payload_size as usize;
        let local = bytes.get(info.payload_offset..info.payload_offset + info.local).ok_or_else(Error::corrupt)?;
        if let Some(found) = column_in_local_header(local, size, col) {
            return Ok(Poll::Ready(found.map(|(st, off)| (st, off, size))));
        }
        // (A header past the cell: the whole row, checked as usual.)
        crate::ready!(self.entry_at_hand(bt)?);
        Ok(Poll::Ready(self.header.column(&self.payload, col)?.map(|(st, off)| (st, off, size))))
    }

    /// What identifies the current table row's content without reading
    /// its overflow chain: the payload size, the bytes in the cell and the
    /// first overflow page (the whole record for a row without one).
    pub fn row_print(&mut self, bt: &mut Btree) -> IoPoll<Vec<u8>> {
        let (bytes, info) = crate::ready!(self.row_cell(bt)?);
        let mut print = info.payload_size.to_be_bytes().to_vec();
        print.extend_from_slice(bytes.get(info.payload_offset..info.payload_offset + info.local).ok_or_else(Error::corrupt)?);
        print.extend_from_slice(&info.overflow.to_be_bytes());
        Ok(Poll::Ready(print))
    }

    /// Bytes `from..to` of the current table row's payload appended to
    /// `out`, read page by page from its chain (only the pages up to `to`;
    /// each unpinned once read). `progress` keeps the read between calls
    /// that return `Pending` (start with `None`; `out` as it was left).
    pub fn read_payload_range(&mut self, bt: &mut Btree, from: usize, to: usize, progress: &mut Option<super::ChainRead>, out: &mut Vec<u8>) -> IoPoll<()> {
        if progress.is_none_or(|st| st.seq != bt.seq) {
            let (bytes, info) = crate::ready!(self.row_cell(bt)?);
            out.clear();
            *progress = Some(bt.start_chain_read(&bytes, &info, from, to, out)?);
        }
        let Some(st) = progress.as_mut() else { return Err(Error::corrupt()) };
        bt.run_read(|bt| bt.continue_chain_read(st, out, 0))
    }

    /// Overwrite the current table row's payload bytes from `from` on
    /// with `data`, in place (the cell and chain keep their pages; the
    /// tree's cursors see the change). `progress` keeps the walk to the
    /// first page written between calls that return `Pending`.
    pub fn overwrite_payload(&mut self, bt: &mut Btree, from: usize, data: &[u8], progress: &mut Option<super::ChainRead>) -> IoPoll<()> {
        let to = from + data.len();
        if progress.is_none_or(|st| st.seq != bt.seq) {
            let (bytes, info) = crate::ready!(self.row_cell(bt)?);
            *progress = Some(bt.start_chain_read(&bytes, &info, from, to, &mut Vec::new())?);
        }
        let Some(st) = progress.as_mut() else { return Err(Error::corrupt()) };
        if to > st.payload_size {
            return Err(Error::corrupt());
        }
        crate::ready!(bt.run_read(|bt| bt.seek_chain(st, from))?);
        let st = *st;
        let root = self.root;
        let this = &*self;
        bt.run_write_in(Some(root), |bt| {
            let usable = bt.usable();
            let per_page = usable as usize - 4;
            let path = this.current_path(bt)?;
            let top = path.last().ok_or_else(Error::corrupt)?;
            let (cell_at, info) = {
                let page_bytes = bt.pager.page(top.pgno)?;
                let h = page::header(page_bytes, top.pgno)?;
                let (_, info) = page::cell(page_bytes, &h, top.idx, usable)?;
                (page::cell_offset(page_bytes, &h, top.idx, usable)?, info)
            };
            if from < info.local {
                let n = (info.local - from).min(data.len());
                let at = cell_at + info.payload_offset + from;
                bt.pager.page_mut(top.pgno)?[at..at + n].copy_from_slice(&data[..n]);
            }
            let (mut pos, mut page_at, mut next) = (from.max(info.local), st.at, st.next);
            while pos < to {
                if next < 2 || next > bt.pager.db_size() || pos < page_at {
                    return Err(Error::corrupt());
                }
                let d = bt.pager.page_mut(next)?;
                let lo = pos - page_at;
                let n = (per_page - lo).min(to - pos);
                d[4 + lo..4 + lo + n].copy_from_slice(&data[pos - from..pos - from + n]);
                pos += n;
                next = get_u32_of(d)?;
                page_at += per_page;
            }
            Ok(())
        })
    }

    /// Number of fields in the current entry's record (table: the row;
    /// index: the key, rowid included).
    pub fn column_count(&mut self, bt: &mut Btree) -> IoPoll<usize> {
        crate::ready!(self.payload(bt)?);
        let payload = if self.key_info.is_some() { &self.key[..] } else { &self.payload[..] };
        Ok(Poll::Ready(self.header.count(payload)?))
    }
}
