//! # Inserting entries
//!
//! An insert finds the leaf where the key belongs (or the entry with the
//! same key, which it replaces in place, on a leaf or, in index trees, on
//! an interior page), by a seek or from the cursor's own leaf
//! (`near.rs`). A cell whose payload is all local and has a place on the
//! page without repacking it (chosen as SQLite's allocateSpace: the first
//! freeblock large enough, else the gap between the pointer array and the
//! content area) is written straight into the page (nothing is built
//! first); otherwise the cell is built
//! (spilling large payloads into an overflow chain) and the page's new
//! content goes to balancing. A row appended past the end of a full
//! rightmost leaf starts a new leaf instead (`balance_quick`), which is
//! what sequential inserts do. The caller learns whether the tree kept
//! its shape, so that a cursor can stay on the new entry without a seek.
//!
//! Invariant: a replaced cell's old overflow chain is freed before the new
//! cell is built, so the pages can be reused at once (except for a chain
//! written ahead of its cell, `overflow.rs`: the new chain exists first).
//! A payload ([`Payload`]) may end in zeros it does not store; such a cell
//! is always built (never written straight into the page).

use super::balance::Level;
use super::cell;
use super::cursor::Probe;
use super::overflow::Payload;
use super::page::get_u16;
use super::page::{self, PageKind};
use super::{Btree, Pgno};
use crate::error::{Error, Result};
use crate::value::record::KeyInfo;

impl Btree {
    /// Insert (or replace) the entry `probe` names, with this payload.
    /// Returns the path to the new entry when the tree kept its shape
    /// (no balancing), `None` otherwise.
    pub(super) fn insert_entry(
        &mut self,
        root: Pgno,
        probe: &Probe<'_>,
        key_info: Option<&KeyInfo>,
        leaf_kind: PageKind,
        rowid: i64,
        payload: Payload<'_>,
    ) -> Result<Option<Vec<Level>>> {
        let mut path = Vec::new();
        Ok(self.insert_entry_into(root, probe, key_info, leaf_kind, rowid, payload, &mut path)?.then_some(path))
    }

    /// [`Btree::insert_entry`] with the path found in `path` (a cursor's
    /// spare vector: no allocation per insert). `true`: the tree kept its
    /// shape and `path` leads to the new entry.
    pub(super) fn insert_entry_into(
        &mut self,
        root: Pgno,
        probe: &Probe<'_>,
        key_info: Option<&KeyInfo>,
        leaf_kind: PageKind,
        rowid: i64,
        payload: Payload<'_>,
        path: &mut Vec<Level>,
    ) -> Result<bool> {
        let (_, exact) = self.seek_path_into(root, probe, key_info, false, false, path, &mut [], &mut None)?;
        self.insert_at(path, exact, leaf_kind, rowid, payload)
    }

    /// `insert_entry` where the caller knows the leaf path that `seek_path`
    /// would return (`exact`: it ends on the entry with this key).
    /// `true`: the tree kept its shape and `path` leads to the new entry.
    pub(super) fn insert_at(&mut self, path: &[Level], exact: bool, leaf_kind: PageKind, rowid: i64, payload: Payload<'_>) -> Result<bool> {
        let level = path.len() - 1;
        let top = path[level];
        if !exact {
            let h = page::header(self.pager.page(top.pgno)?, top.pgno)?;
            if h.kind == leaf_kind && top.idx <= h.ncells {
                if payload.is_plain() && self.insert_local_in_free_slot(top.pgno, top.idx, leaf_kind, rowid, payload.bytes)? {
                    // (The operation's last change, as below.)
                    return Ok(true);
                }
                let new = self.build_leaf_cell(leaf_kind, rowid, payload)?;
                if self.insert_in_free_slot(top.pgno, top.idx, &new)? {
                    // (The operation's last change: see `insert_in_free_slot`.)
                    return Ok(true);
                }
                // A table root leaf (not the schema's, page 1) appended past
                // its end: SQLite's balance_deeper then balance_quick, the
                // root's cells moved whole to a child and the new cell alone
                // in a new right leaf (an even split would leave both half
                // full under sequential inserts).
                if level == 0
                    && leaf_kind == PageKind::TableLeaf
                    && top.idx == h.ncells
                    && h.ncells > 0
                    && top.pgno != 1
                    && self.overflows_with(top.pgno, new.len())?
                {
                    self.deepen_root_and_append(top.pgno, new)?;
                    return Ok(false);
                }
                if level > 0 && top.idx == h.ncells && h.ncells > 1 {
                    let parent = path[level - 1];
                    let ph = page::header(self.pager.page(parent.pgno)?, parent.pgno)?;
                    if parent.idx == ph.ncells {
                        if leaf_kind == PageKind::TableLeaf {
                            self.balance_quick(path, level, new)?;
                            return Ok(false);
                        }
                        if self.balance_quick_index(path, level, &new)? {
                            return Ok(false);
                        }
                    }
                }
                if level > 0 && self.overflows_with(top.pgno, new.len())? {
                    // Straight to balancing, without decoding the page.
                    self.balance_siblings(path, level, super::balance::NewContent::Insert(top.idx, &new))?;
                    return Ok(false);
                }
                // The page holds the new cell once its free space (after
                // deletes, in freeblocks) is gathered: repack it where it
                // is rather than decoding every cell into a node and
                // writing them back, when that node would need no
                // balancing either.
                if self.fits_repacked(top.pgno, new.len(), level > 0)? && self.defragment(top.pgno)? && self.insert_in_free_slot(top.pgno, top.idx, &new)? {
                    return Ok(true);
                }
                let mut node = self.read_node(top.pgno)?;
                node.cells.insert(top.idx, new);
                self.fix_page(path, level, node)?;
                return Ok(false);
            }
        }
        if exact {
            if let Some(kept_shape) = self.replace_leaf_cell_in_place(path, level, leaf_kind, rowid, payload)? {
                return Ok(kept_shape);
            }
        }
        let mut node = self.read_node(top.pgno)?;
        if node.kind.leaf() != leaf_kind {
            return Err(Error::corrupt());
        }
        if exact {
            let old = node.cells.get(top.idx).cloned().ok_or_else(Error::corrupt)?;
            self.free_overflow(node.kind, &old)?;
            let new = self.build_leaf_cell(leaf_kind, rowid, payload)?;
            node.cells[top.idx] = if node.kind.is_leaf() { new } else { cell::index_leaf_to_interior(&new, cell::get_u32(&old, 0)?) };
        } else {
            if !node.kind.is_leaf() || top.idx > node.cells.len() {
                return Err(Error::corrupt());
            }
            let new = self.build_leaf_cell(leaf_kind, rowid, payload)?;
            node.cells.insert(top.idx, new);
        }
        self.fix_page(path, level, node)?;
        Ok(false)
    }

    /// Replace the leaf cell `path` ends on (an UPDATE rewriting a row)
    /// without decoding the page: a new cell of the same size overwrites
    /// the old one; otherwise the old one is dropped in place and the new
    /// one goes into the gap, or the page is repacked and balanced as
    /// usual. `None` (nothing done) when the old cell has an overflow
    /// chain or is not on a leaf of `leaf_kind`: the general path does it.
    /// `Some(true)`: done and the page kept its place in the tree (`path`
    /// still leads to the entry).
    fn replace_leaf_cell_in_place(&mut self, path: &[Level], level: usize, leaf_kind: PageKind, rowid: i64, payload: Payload<'_>) -> Result<Option<bool>> {
        let top = path[level];
        let usable = self.usable();
        let (off, old_len, gap, frags, noted) = {
            let (data, noted) = self.pager.page_with_free(top.pgno)?;
            let h = page::header(data, top.pgno)?;
            if h.kind != leaf_kind || top.idx >= h.ncells {
                return Ok(None);
            }
            let (bytes, info) = page::cell(data, &h, top.idx, usable)?;
            if info.overflow != 0 {
                return Ok(None);
            }
            let ptr_end = h.offset + h.kind.header_size() + 2 * h.ncells;
            let gap = content_start(data, &h).saturating_sub(ptr_end);
            (page::cell_offset(data, &h, top.idx, usable)?, bytes.len(), gap, data[h.offset + 7], noted)
        };
        let new = self.build_leaf_cell(leaf_kind, rowid, payload)?;
        if new.len() == old_len {
            // The operation's last change (the ptrmap entry comes first).
            self.ptrmap_note_cell(top.pgno, leaf_kind, &new)?;
            self.pager.page_mut_last(top.pgno)?[off..off + old_len].copy_from_slice(&new);
            // (The free space did not change: its count stays known.)
            if let Some(free) = noted {
                self.pager.note_free_bytes(top.pgno, free);
            }
            return Ok(Some(true));
        }
        // The free-space walks only now that they are needed (a rewrite of
        // the same size needs neither).
        let (free, largest) = {
            let data = self.pager.page(top.pgno)?;
            let h = page::header(data, top.pgno)?;
            let free = super::drop_cell::free_bytes_noted(noted, data, &h, usable as usize);
            // (The largest freeblock matters only when neither the old
            // cell's bytes nor the gap hold the new cell.)
            let largest = if free.is_some() && new.len() > old_len && gap < new.len() { largest_freeblock(data, h.offset) } else { 0 };
            (free, largest)
        };
        // SQLite's dropCell then insertCell, as one change of the page
        // (no undo image: nothing after it can fail), when the new cell
        // then surely has a place: it is no longer than the old one (whose
        // bytes become a freeblock, or join the gap), or the gap or a
        // freeblock holds it already (freeblocks only grow by the drop).
        // (Not with more than 57 fragment bytes: SQLite's slot search then
        // gives up on a freeblock the cell would fill but for 1-3 bytes.)
        // Otherwise, when the page holds it once repacked, the page is
        // repacked after the drop (SQLite's defragmentPage), its cells
        // checked first.
        if let Some(free) = free.filter(|_| old_len >= super::drop_cell::MIN_FREEBLOCK) {
            let has_place = frags <= 57 && (new.len() <= old_len || gap >= new.len() || largest >= new.len());
            let repacked = if has_place || new.len() > free + old_len {
                None
            } else {
                let data = self.pager.page(top.pgno)?;
                let h = page::header(data, top.pgno)?;
                cell_extents(data, &h, usable as usize).map(|mut cells| {
                    cells.remove(top.idx);
                    cells
                })
            };
            if has_place || repacked.is_some() {
                self.ptrmap_note_cell(top.pgno, leaf_kind, &new)?;
                let d = self.pager.page_mut_last(top.pgno)?;
                let was = super::page_check::debug_consistent(d, top.pgno, usable as usize);
                let h = page::header(d, top.pgno)?;
                super::drop_cell::remove_cell_bytes(d, &h, top.idx, off, old_len)?;
                let h = page::PageHeader { ncells: h.ncells - 1, ..h };
                if let Some(cells) = &repacked {
                    repack(d, &h, cells, usable as usize);
                }
                // (Cannot fail: see above; the page is checked all the same.)
                let slot = plan_slot(d, &h, new.len(), usable as usize).ok_or_else(Error::corrupt)?;
                let start = open_slot(d, &h, top.idx, new.len(), slot);
                d[start..start + new.len()].copy_from_slice(&new);
                super::page_check::debug_check_kept(d, top.pgno, usable as usize, was);
                // The old cell's bytes freed, the new one's taken (the
                // pointer is the same; a repack moves free bytes, it does
                // not change their count): the next row's rewrite on this
                // page needs no walk of its freeblocks.
                self.pager.note_free_bytes(top.pgno, free + old_len - new.len());
                return Ok(Some(true));
            }
        }
        if !self.remove_leaf_cell_in_place(top.pgno, top.idx, true, true, false)? {
            let mut node = self.read_node(top.pgno)?;
            node.cells[top.idx] = new;
            self.fix_page(path, level, node)?;
            return Ok(Some(false));
        }
        if self.insert_in_free_slot(top.pgno, top.idx, &new)? {
            return Ok(Some(true));
        }
        // The page holds the new cell once its free space is gathered:
        // repack it where it is (as SQLite's defragmentPage) rather than
        // decoding every cell into a node and writing them back.
        if !self.overflows_with(top.pgno, new.len())? && self.defragment(top.pgno)? && self.insert_in_free_slot(top.pgno, top.idx, &new)? {
            return Ok(Some(true));
        }
        let mut node = self.read_node(top.pgno)?;
        node.cells.insert(top.idx, new);
        self.fix_page(path, level, node)?;
        Ok(Some(false))
    }

    /// Move page `pgno`'s cells together at the end of the page, in
    /// pointer order, so that all its free space is the one gap between
    /// the pointer array and the content area (no freeblocks, no
    /// fragments; the gap is zeroed). `false` (page untouched) when the
    /// cells do not read sane: the general path then decodes the page.
    fn defragment(&mut self, pgno: Pgno) -> Result<bool> {
        let usable = self.usable() as usize;
        let (h, cells) = {
            let data = self.pager.page(pgno)?;
            let h = page::header(data, pgno)?;
            let Some(cells) = cell_extents(data, &h, usable) else { return Ok(false) };
            (h, cells)
        };
        let d = self.pager.page_mut(pgno)?;
        let was = super::page_check::debug_consistent(d, pgno, usable);
        repack(d, &h, &cells, usable);
        super::page_check::debug_check_kept(d, pgno, usable, was);
        Ok(true)
    }

    /// Whether page `pgno` takes a cell of `len` bytes once repacked (its
    /// free space, freeblocks and fragments included, is large enough),
    /// and, for a page that is not the root (`balanced`), is then at least
    /// a third full: the page [`Btree::fix_page`] would write as it is,
    /// without balancing. `false` when its free-space bookkeeping does not
    /// read sane.
    fn fits_repacked(&self, pgno: Pgno, len: usize, balanced: bool) -> Result<bool> {
        let usable = self.usable() as usize;
        let (data, noted) = self.pager.page_with_free(pgno)?;
        let h = page::header(data, pgno)?;
        let Some(free) = super::drop_cell::free_bytes_noted(noted, data, &h, usable) else { return Ok(false) };
        if free < len + 2 {
            return Ok(false);
        }
        // Bytes in use after the insert, counted as `page::underfull` does.
        let Some(used) = usable.checked_sub(h.offset + free) else { return Ok(false) };
        Ok(!balanced || (used + len + 2) * 3 >= usable)
    }

    /// Whether page `pgno` cannot take a cell of `len` bytes even when
    /// repacked (its free space, freeblocks and fragments included, is too
    /// small). `false` when its free-space bookkeeping does not read sane:
    /// the general path then decodes it.
    fn overflows_with(&self, pgno: Pgno, len: usize) -> Result<bool> {
        let (data, noted) = self.pager.page_with_free(pgno)?;
        let h = page::header(data, pgno)?;
        let free = super::drop_cell::free_bytes_noted(noted, data, &h, self.usable() as usize);
        Ok(free.is_some_and(|f| f < len + 2))
    }

    /// The common case: the cell has a place on the page as it is (a
    /// freeblock or the gap, see [`plan_slot`]), so it is written there (as
    /// SQLite does) without repacking the page. `false` if there is none.
    ///
    /// When it fits, writing the page is the last thing the operation
    /// does (every caller returns at once), so the page is modified with
    /// [`crate::pager::Pager::page_mut_last`]: no undo image per insert.
    fn insert_in_free_slot(&mut self, pgno: Pgno, idx: usize, cell_bytes: &[u8]) -> Result<bool> {
        let Some((h, slot)) = self.slot_for(pgno, idx, cell_bytes.len())? else { return Ok(false) };
        self.ptrmap_note_cell(pgno, h.kind, cell_bytes)?;
        let usable = self.usable() as usize;
        let d = self.pager.page_mut_last(pgno)?;
        let was = super::page_check::debug_consistent(d, pgno, usable);
        let start = open_slot(d, &h, idx, cell_bytes.len(), slot);
        d[start..start + cell_bytes.len()].copy_from_slice(cell_bytes);
        super::page_check::debug_check_kept(d, pgno, usable, was);
        Ok(true)
    }

    /// `insert_in_free_slot` for a leaf cell whose payload is all local, written
    /// straight into the page (no cell built first: the one allocation
    /// every insert made). `false` if the payload overflows or has no
    /// place on the page as it is.
    fn insert_local_in_free_slot(&mut self, pgno: Pgno, idx: usize, kind: PageKind, rowid: i64, payload: &[u8]) -> Result<bool> {
        let table = kind == PageKind::TableLeaf;
        if payload.len() > cell::max_local(table, self.usable()) {
            return Ok(false);
        }
        let size_len = crate::value::varint::varint_len(payload.len() as u64);
        let rowid_len = if table { crate::value::varint::varint_len(rowid as u64) } else { 0 };
        let encoded = size_len + rowid_len + payload.len();
        let len = encoded.max(cell::MIN_CELL);
        let Some((h, slot)) = self.slot_for(pgno, idx, len)? else { return Ok(false) };
        // (No pointer-map entry: the cell has no overflow chain.)
        let usable = self.usable() as usize;
        let d = self.pager.page_mut_last(pgno)?;
        let was = super::page_check::debug_consistent(d, pgno, usable);
        let start = open_slot(d, &h, idx, len, slot);
        let cell = &mut d[start..start + len];
        crate::value::varint::put_varint(&mut cell[..size_len], payload.len() as u64);
        if table {
            crate::value::varint::put_varint(&mut cell[size_len..size_len + rowid_len], rowid as u64);
        }
        cell[size_len + rowid_len..encoded].copy_from_slice(payload);
        cell[encoded..].fill(0);
        super::page_check::debug_check_kept(d, pgno, usable, was);
        Ok(true)
    }

    /// The header of page `pgno` and the place for a cell of `len` bytes
    /// at index `idx` when one is free without repacking the page
    /// ([`plan_slot`]); `None` otherwise (or when the header does not read
    /// sane).
    fn slot_for(&self, pgno: Pgno, idx: usize, len: usize) -> Result<Option<(page::PageHeader, Slot)>> {
        let data = self.pager.page(pgno)?;
        let h = page::header(data, pgno)?;
        if idx > h.ncells {
            return Ok(None);
        }
        Ok(plan_slot(data, &h, len, self.usable() as usize).map(|slot| (h, slot)))
    }
}

#[inline]
fn content_start(data: &[u8], h: &page::PageHeader) -> usize {
    match u16::from_be_bytes([data[h.offset + 5], data[h.offset + 6]]) {
        0 => 65536,
        v => v as usize,
    }
}

/// Where a new cell goes on a page (SQLite's allocateSpace).
#[derive(Clone, Copy)]
enum Slot {
    /// The top of the gap between the pointer array and the content area.
    Gap,
    /// The end of the freeblock at `pc`, which the 2 bytes at `link` point
    /// to; `rest` bytes of it stay free (fewer than 4 become fragment
    /// bytes, the block leaving the list).
    Freeblock { link: usize, pc: usize, rest: usize },
}

/// Where a cell of `len` bytes goes on a page with header `h` (its pointer
/// array takes 2 more bytes), chosen as SQLite's allocateSpace does, so
/// that the page's bytes are SQLite's: the first freeblock large enough
/// (pageFindSlot), when the gap has room for the pointer; else the gap.
/// `None` when neither holds it (the page must be repacked or balanced)
/// or the bookkeeping does not read sane (the general path decodes it).
fn plan_slot(data: &[u8], h: &page::PageHeader, len: usize, usable: usize) -> Option<Slot> {
    let ptr_end = h.offset + h.kind.header_size() + 2 * h.ncells;
    let top = content_start(data, h);
    if top > usable || top < ptr_end || h.ncells >= 0xffff || len > usable {
        return None;
    }
    if get_u16(data, h.offset + 1) != 0 && ptr_end + 2 <= top {
        let max_pc = usable - len;
        let mut link = h.offset + 1;
        let mut pc = get_u16(data, link);
        while pc <= max_pc {
            if pc < top {
                return None;
            }
            let size = get_u16(data, pc + 2);
            if size >= len {
                let rest = size - len;
                if rest < 4 && data[h.offset + 7] > 57 {
                    // (SQLite gives up the search here: at most 60
                    // fragment bytes.)
                    break;
                }
                if pc + size > usable {
                    return None;
                }
                return Some(Slot::Freeblock { link, pc, rest });
            }
            link = pc;
            pc = get_u16(data, pc);
            if pc == 0 {
                break;
            }
            if pc <= link {
                return None;
            }
        }
    }
    (top - ptr_end >= len + 2).then_some(Slot::Gap)
}

/// Make room for a `len`-byte cell at index `idx` of a page `plan_slot`
/// gave `slot` for: a pointer inserted, the slot taken (the content area
/// grown down, or the freeblock shrunk or unlinked), the cell count
/// raised. Returns where the cell's bytes go.
fn open_slot(d: &mut [u8], h: &page::PageHeader, idx: usize, len: usize, slot: Slot) -> usize {
    let off = h.offset;
    let ptr_base = off + h.kind.header_size();
    let ptr_end = ptr_base + 2 * h.ncells;
    let start = match slot {
        Slot::Gap => {
            let start = content_start(d, h) - len;
            d[off + 5..off + 7].copy_from_slice(&(start as u16).to_be_bytes());
            start
        }
        Slot::Freeblock { link, pc, rest } if rest < 4 => {
            d.copy_within(pc..pc + 2, link);
            d[off + 7] += rest as u8;
            pc
        }
        Slot::Freeblock { pc, rest, .. } => {
            d[pc + 2..pc + 4].copy_from_slice(&(rest as u16).to_be_bytes());
            pc + rest
        }
    };
    let at = ptr_base + 2 * idx;
    d.copy_within(at..ptr_end, at + 2);
    d[at..at + 2].copy_from_slice(&(start as u16).to_be_bytes());
    d[off + 3..off + 5].copy_from_slice(&((h.ncells + 1) as u16).to_be_bytes());
    start
}

/// Every cell's place and length on a page with header `h`, in pointer
/// order, checked as [`repack`] needs them (each cell parses and they
/// all fit between the pointer array and the end of the usable space);
/// `None` when they do not read sane.
pub(super) fn cell_extents(data: &[u8], h: &page::PageHeader, usable: usize) -> Option<Vec<(usize, usize)>> {
    let ptr_end = h.offset + h.kind.header_size() + 2 * h.ncells;
    let mut end = usable;
    let mut cells = Vec::with_capacity(h.ncells);
    for i in 0..h.ncells {
        // (As `page::cell` reads it, its offset looked up once.)
        let off = page::cell_offset(data, h, i, usable as u32).ok()?;
        // (Only the size: the cell is moved, not read.)
        let size = cell::cell_size(h.kind, &data[off..usable], usable as u32).ok()?;
        end = end.checked_sub(size).filter(|&e| e >= ptr_end)?;
        cells.push((off, size));
    }
    Some(cells)
}

/// Move the cells `cells` (from [`cell_extents`], in pointer order)
/// together at the end of the page, so that all its free space is the
/// one gap between the pointer array and the content area (no
/// freeblocks, no fragments; the gap is zeroed). Only the cell content
/// area is copied aside: the cells all lie in it.
pub(super) fn repack(d: &mut [u8], h: &page::PageHeader, cells: &[(usize, usize)], usable: usize) {
    repack_replacing(d, h, cells, usable, None);
}

/// [`repack`] with cell `replace.0` of `cells` taking the bytes
/// `replace.1` instead of its own: the page then holds what
/// [`page::write_node`] writes for a node of those cells. The caller
/// checked that they fit (the gap left is never negative).
pub(super) fn repack_replacing(d: &mut [u8], h: &page::PageHeader, cells: &[(usize, usize)], usable: usize, replace: Option<(usize, &[u8])>) {
    let first = cells.iter().map(|&(off, _)| off).min().unwrap_or(usable);
    let copy = d[first..usable].to_vec();
    let ptr_base = h.offset + h.kind.header_size();
    let mut end = usable;
    for (i, &(off, len)) in cells.iter().enumerate() {
        let bytes = match replace {
            Some((at, bytes)) if at == i => bytes,
            _ => &copy[off - first..off - first + len],
        };
        end -= bytes.len();
        d[end..end + bytes.len()].copy_from_slice(bytes);
        d[ptr_base + 2 * i..ptr_base + 2 * i + 2].copy_from_slice(&(end as u16).to_be_bytes());
    }
    d[ptr_base + 2 * cells.len()..end].fill(0);
    // No freeblock, content from `end` (65536 is written 0), no fragments.
    d[h.offset + 1..h.offset + 3].fill(0);
    d[h.offset + 5..h.offset + 7].copy_from_slice(&(end as u16).to_be_bytes());
    d[h.offset + 7] = 0;
}

/// The size of the largest freeblock on a page whose freeblock list
/// `drop_cell::free_bytes` accepted.
fn largest_freeblock(data: &[u8], hoff: usize) -> usize {
    let mut largest = 0;
    let mut block = get_u16(data, hoff + 1);
    while block != 0 {
        largest = largest.max(get_u16(data, block + 2));
        block = get_u16(data, block);
    }
    largest
}
