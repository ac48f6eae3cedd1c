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
//! written ahead of its cell, `overflow.rs`: the new chain exists first)
//! (checked: overflow_chain_freed).
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
                // (A leaf of one cell too, for a table, when the new cell
                // does not fit beside it: SQLite's balance_quick asks only
                // for the overflow cell to be the last.)
                let quick_table = leaf_kind == PageKind::TableLeaf && h.ncells == 1 && self.overflows_with(top.pgno, new.len())?;
                if level > 0 && top.idx == h.ncells && (h.ncells > 1 || quick_table) {
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
                if self.fits_repacked(top.pgno, new.len(), level > 0)?
                    && self.defragment(top.pgno, new.len())?
                    && self.insert_in_free_slot(top.pgno, top.idx, &new)?
                {
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
        let (off, old_len, ptr_end, gap, frags, noted) = {
            let (data, noted) = self.pager.page_with_free(top.pgno)?;
            let h = page::header(data, top.pgno)?;
            if h.kind != leaf_kind || top.idx >= h.ncells {
                return Ok(None);
            }
            let off = page::cell_offset(data, &h, top.idx, usable)?;
            // (Only the size of a cell all local: the usual row, sized
            // without decoding its rowid.)
            let old_len = match cell::local_leaf_size(h.kind, &data[off..usable as usize], usable) {
                Some(len) => len,
                None => {
                    let (bytes, info) = page::cell(data, &h, top.idx, usable)?;
                    if info.overflow != 0 {
                        return Ok(None);
                    }
                    bytes.len()
                }
            };
            let ptr_end = h.offset + h.kind.header_size() + 2 * h.ncells;
            let gap = content_start(data, &h).saturating_sub(ptr_end);
            (off, old_len, ptr_end, gap, data[h.offset + 7], noted)
        };
        let new = self.new_leaf_cell(leaf_kind, rowid, payload)?;
        if new.len() == old_len && new.same_as(&self.pager.page(top.pgno)?[off..off + old_len]) {
            // The same bytes: the page is left clean, as SQLite's overwrite
            // compares before it makes the page writable (an UPDATE that
            // changes nothing writes nothing, not even the change counter).
            return Ok(Some(true));
        }
        if new.len() == old_len {
            // The operation's last change (the ptrmap entry comes first).
            self.note_new_cell(top.pgno, leaf_kind, &new)?;
            new.write(&mut self.pager.page_mut_last(top.pgno)?[off..off + old_len]);
            // (The free space did not change: its count stays known.)
            if let Some(free) = noted {
                self.pager.note_free_bytes(top.pgno, free);
            }
            return Ok(Some(true));
        }
        // The free-space walks only now that they are needed (a rewrite of
        // the same size needs neither).
        let (free, after) = {
            let data = self.pager.page(top.pgno)?;
            let h = page::header(data, top.pgno)?;
            let free = super::drop_cell::free_bytes_noted(noted, data, &h, usable as usize);
            // (The free space after the drop matters only when neither the
            // old cell's bytes nor the gap hold the new cell.)
            let after = if free.is_some() && new.len() > old_len && gap < new.len() { after_free(data, h.offset, off, old_len) } else { None };
            (free, after)
        };
        // SQLite's dropCell then insertCell, as one change of the page.
        // When the new cell surely has a place once the old one is dropped
        // (it is no longer than the old one, whose bytes become a
        // freeblock or join the gap, or the gap or a freeblock holds it
        // once the old cell's bytes are freed and merged with their
        // neighbours, [`after_free`]: a row that grows by a few bytes
        // mostly fits where it was), nothing after the drop can fail: no
        // undo image. (Not with more than 57 fragment bytes: SQLite's
        // slot search then gives up on a freeblock the cell would fill
        // but for 1-3 bytes.) Otherwise, when the page holds it once its
        // free space is gathered, the drop is followed by SQLite's slot
        // search and, if that finds none, by its defragmentPage
        // ([`defragment_page`]), which checks the page first: a page that
        // does not read sane is an error there, undone with the operation.
        if let Some(free) = free.filter(|_| old_len >= super::drop_cell::MIN_FREEBLOCK) {
            let has_place = frags <= 57
                && (new.len() <= old_len
                    || gap >= new.len()
                    || after.is_some_and(|(largest, top_after)| largest >= new.len() || top_after.saturating_sub(ptr_end) >= new.len()));
            if has_place || new.len() <= free + old_len {
                self.note_new_cell(top.pgno, leaf_kind, &new)?;
                let d = if has_place { self.pager.page_mut_last(top.pgno)? } else { self.pager.page_mut(top.pgno)? };
                let was = super::page_check::debug_consistent(d, top.pgno, usable as usize);
                let h = page::header(d, top.pgno)?;
                super::drop_cell::remove_cell_bytes(d, &h, top.idx, off, old_len)?;
                let h = page::PageHeader { ncells: h.ncells - 1, ..h };
                // (The old cell's bytes and pointer joined the free space.)
                let free_after = free + old_len + 2;
                let slot = match plan_slot(d, &h, new.len(), usable as usize) {
                    Some(slot) => slot,
                    // (Cannot fail with a place: see above.)
                    None if !has_place && defragment_page(d, &h, usable as usize, free_after, (free_after - new.len() - 2).min(4)) => Slot::Gap,
                    None => return Err(Error::corrupt()),
                };
                let start = open_slot(d, &h, top.idx, new.len(), slot);
                new.write(&mut d[start..start + new.len()]);
                super::page_check::debug_check_kept(d, top.pgno, usable as usize, was);
                // The old cell's bytes freed, the new one's taken (the
                // pointer is the same; gathering free bytes does not
                // change their count): the next row's rewrite on this
                // page needs no walk of its freeblocks.
                self.pager.note_free_bytes(top.pgno, free + old_len - new.len());
                return Ok(Some(true));
            }
        }
        let new = new.into_vec(self)?;
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
        if !self.overflows_with(top.pgno, new.len())? && self.defragment(top.pgno, new.len())? && self.insert_in_free_slot(top.pgno, top.idx, &new)? {
            return Ok(Some(true));
        }
        let mut node = self.read_node(top.pgno)?;
        node.cells.insert(top.idx, new);
        self.fix_page(path, level, node)?;
        Ok(Some(false))
    }

    /// Gather page `pgno`'s free space into the one gap between the
    /// pointer array and the content area before a `len`-byte cell that
    /// no freeblock holds is placed ([`defragment_page`], as SQLite's
    /// allocateSpace calls it). `false` (page untouched) when its
    /// bookkeeping does not read sane or it cannot take the cell: the
    /// general path then decodes the page.
    fn defragment(&mut self, pgno: Pgno, len: usize) -> Result<bool> {
        let usable = self.usable() as usize;
        let (h, free) = {
            let (data, noted) = self.pager.page_with_free(pgno)?;
            let h = page::header(data, pgno)?;
            let Some(free) = super::drop_cell::free_bytes_noted(noted, data, &h, usable) else { return Ok(false) };
            (h, free)
        };
        let Some(spare) = free.checked_sub(len + 2) else { return Ok(false) };
        let d = self.pager.page_mut(pgno)?;
        let was = super::page_check::debug_consistent(d, pgno, usable);
        if !defragment_page(d, &h, usable, free, spare.min(4)) {
            return Ok(false);
        }
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

/// A leaf cell to place: built (an overflow chain, a zero tail), or, its
/// payload all local, written straight into its place on the page (no
/// cell built first).
enum NewCell<'p> {
    Built(Vec<u8>),
    Local { table: bool, rowid: i64, payload: &'p [u8], len: usize },
}

impl NewCell<'_> {
    fn len(&self) -> usize {
        match self {
            NewCell::Built(v) => v.len(),
            NewCell::Local { len, .. } => *len,
        }
    }

    /// Write the cell into `dst` (exactly [`NewCell::len`] bytes), as
    /// `build_leaf_cell` builds it: the size and rowid varints, the
    /// payload, zeros up to the smallest cell.
    fn write(&self, dst: &mut [u8]) {
        debug_assert_eq!(dst.len(), self.len());
        match self {
            NewCell::Built(v) => dst.copy_from_slice(v),
            NewCell::Local { table, rowid, payload, .. } => {
                let mut at = crate::value::varint::put_varint(dst, payload.len() as u64);
                if *table {
                    at += crate::value::varint::put_varint(&mut dst[at..], *rowid as u64);
                }
                dst[at..at + payload.len()].copy_from_slice(payload);
                dst[at + payload.len()..].fill(0);
            }
        }
    }

    /// Whether `old` (a cell's bytes on the page) is this cell, byte for
    /// byte.
    fn same_as(&self, old: &[u8]) -> bool {
        if old.len() != self.len() {
            return false;
        }
        match self {
            NewCell::Built(v) => v.as_slice() == old,
            NewCell::Local { table, rowid, payload, .. } => {
                let mut head = [0u8; 18];
                let mut at = crate::value::varint::put_varint(&mut head, payload.len() as u64);
                if *table {
                    at += crate::value::varint::put_varint(&mut head[at..], *rowid as u64);
                }
                old.starts_with(&head[..at]) && old[at..].starts_with(payload) && old[at + payload.len()..].iter().all(|&b| b == 0)
            }
        }
    }

    /// The cell's bytes, for the paths that move whole cells.
    fn into_vec(self, bt: &mut Btree) -> Result<Vec<u8>> {
        match self {
            NewCell::Built(v) => Ok(v),
            NewCell::Local { table, rowid, payload, .. } => {
                let kind = if table { PageKind::TableLeaf } else { PageKind::IndexLeaf };
                bt.build_leaf_cell(kind, rowid, payload.into())
            }
        }
    }
}

impl Btree {
    /// The leaf cell for this payload: [`NewCell::Local`] when it is all
    /// local and stored, else built (its overflow chain written).
    fn new_leaf_cell<'p>(&mut self, kind: PageKind, rowid: i64, payload: Payload<'p>) -> Result<NewCell<'p>> {
        let table = kind == PageKind::TableLeaf;
        if payload.is_plain() && payload.bytes.len() <= cell::max_local(table, self.usable()) {
            let head = crate::value::varint::varint_len(payload.bytes.len() as u64) + if table { crate::value::varint::varint_len(rowid as u64) } else { 0 };
            let len = (head + payload.bytes.len()).max(cell::MIN_CELL);
            return Ok(NewCell::Local { table, rowid, payload: payload.bytes, len });
        }
        Ok(NewCell::Built(self.build_leaf_cell(kind, rowid, payload)?))
    }

    /// `ptrmap_note_cell` for a cell about to be placed on page `pgno`
    /// (only a built cell can have an overflow chain).
    fn note_new_cell(&mut self, pgno: Pgno, kind: PageKind, new: &NewCell<'_>) -> Result<()> {
        match new {
            NewCell::Built(v) => self.ptrmap_note_cell(pgno, kind, v),
            NewCell::Local { .. } => Ok(()),
        }
    }
}

/// What a page offers once the cell at `off` (`len` bytes) is freed as
/// `drop_cell::add_free_block` frees it (merged with a freeblock that ends
/// or starts within 3 bytes of it, given to the gap when the run then
/// begins the content area): the largest freeblock then, and where the
/// content area then starts. `None` when the list does not read as
/// `add_free_block` would take it (an overlap, more merged bytes than
/// fragments, a list out of order): the caller then assumes no place.
fn after_free(data: &[u8], hoff: usize, off: usize, len: usize) -> Option<(usize, usize)> {
    let top = match get_u16(data, hoff + 5) {
        0 => 65536,
        v => v,
    };
    let (mut start, mut end) = (off, off + len);
    let (mut largest, mut absorbed) = (0, 0);
    // The block before the cell (and whether it is the list's first), and
    // whether the block after it was met.
    let mut prev: Option<(usize, usize, bool)> = None;
    let mut seen_next = false;
    let mut last = 0;
    let mut pc = get_u16(data, hoff + 1);
    while pc != 0 {
        if pc <= last || pc + 4 > data.len() {
            return None;
        }
        let size = get_u16(data, pc + 2);
        if pc < off {
            if let Some((_, s, _)) = prev {
                largest = largest.max(s);
            }
            prev = Some((pc, size, last == 0));
        } else if !seen_next && pc <= end + 3 {
            seen_next = true;
            if pc < end {
                return None;
            }
            absorbed += pc - end;
            end = pc + size;
        } else {
            seen_next = true;
            largest = largest.max(size);
        }
        last = pc;
        pc = get_u16(data, pc);
    }
    let mut begins_list = true;
    if let Some((p, s, p_first)) = prev {
        let p_end = p + s;
        if p_end > start {
            return None;
        }
        if p_end + 3 >= start {
            absorbed += start - p_end;
            start = p;
            begins_list = p_first;
        } else {
            largest = largest.max(s);
            begins_list = false;
        }
    }
    if absorbed > usize::from(data[hoff + 7]) {
        return None;
    }
    if begins_list && start == top {
        return Some((largest, end));
    }
    Some((largest.max(end - start), top))
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
    let ptr_base = h.offset + h.kind.header_size();
    let ptr_end = ptr_base + 2 * h.ncells;
    let array = data.get(ptr_base..ptr_end)?;
    let area = data.get(..usable)?;
    let max_local = cell::max_local(true, usable as u32);
    let mut end = usable;
    let mut cells = Vec::with_capacity(h.ncells);
    for i in 0..h.ncells {
        // (As `page::cell_offset` checks it: not in the pointer array,
        // not past the usable size.)
        let off = u16::from_be_bytes([array[2 * i], array[2 * i + 1]]) as usize;
        if off < ptr_end || off >= usable {
            return None;
        }
        let b = &area[off..];
        // (Only the size: the cell is moved, not read. A table leaf cell
        // all local with a payload size of one byte and a rowid of up to
        // two, the usual row, is sized here; any other by `cell_size`.)
        let size = match (h.kind == PageKind::TableLeaf).then(|| short_table_leaf_size(b, max_local)).flatten() {
            Some(size) => size,
            None => cell::cell_size(h.kind, b, usable as u32).ok()?,
        };
        end = end.checked_sub(size).filter(|&e| e >= ptr_end)?;
        cells.push((off, size));
    }
    Some(cells)
}

/// The size on the page of the table leaf cell at the start of `b` when
/// its payload size and rowid varints are of one or two bytes and its
/// payload is all local (at most `max_local`) and within `b`, as
/// `cell::cell_size` gives it; `None` for any other cell.
#[inline(always)]
fn short_table_leaf_size(b: &[u8], max_local: usize) -> Option<usize> {
    let (p, n) = match b {
        [b0, ..] if *b0 < 0x80 => (usize::from(*b0), 1),
        [b0, b1, ..] if *b1 < 0x80 => ((usize::from(*b0 & 0x7f) << 7) | usize::from(*b1), 2),
        _ => return None,
    };
    let r = match b.get(n..)? {
        [r0, ..] if *r0 < 0x80 => 1,
        [_, r1, ..] if *r1 < 0x80 => 2,
        _ => return None,
    };
    let size = n + r + p;
    (p <= max_local && size <= b.len()).then(|| size.max(cell::MIN_CELL).min(b.len()))
}

/// SQLite's defragmentPage: all of the free space of a page with header
/// `h` and `free` free bytes ([`super::drop_cell::free_bytes`]) gathered
/// into the gap between the pointer array and the content area, so that
/// the page's bytes are those SQLite leaves. With one or two freeblocks
/// and at most `max_frag` fragment bytes, the cells above each freeblock
/// move down over it as they lie (one move per block, the pointers to
/// them shifted, no cell sized; the fragment count stays); otherwise the
/// cells are repacked in pointer order ([`repack`]). `max_frag` is what
/// SQLite's allocateSpace passes: at most 4, and no more than the free
/// bytes the new cell and its pointer leave. `false`, the page untouched,
/// where SQLite reports the page corrupt (checked before anything moves).
pub(super) fn defragment_page(d: &mut [u8], h: &page::PageHeader, usable: usize, free: usize, max_frag: usize) -> bool {
    let hoff = h.offset;
    let ptr_base = hoff + h.kind.header_size();
    let first = ptr_base + 2 * h.ncells;
    let frag = usize::from(d[hoff + 7]);
    let top = get_u16(d, hoff + 5);
    if frag <= max_frag {
        let f1 = get_u16(d, hoff + 1);
        if f1 != 0 {
            if f1 + 4 > usable {
                return false;
            }
            let f2 = get_u16(d, f1);
            if f2 + 4 > usable {
                return false;
            }
            if f2 == 0 || get_u16(d, f2) == 0 {
                let sz = get_u16(d, f1 + 2);
                let sz2 = if f2 == 0 { 0 } else { get_u16(d, f2 + 2) };
                if top >= f1 || top < first || f1 + sz > if f2 == 0 { usable } else { f2 } || f2 + sz2 > usable {
                    return false;
                }
                let brk = top + sz + sz2;
                // (SQLite's closing check of the free-byte count.)
                if frag + brk - first != free {
                    return false;
                }
                if f2 != 0 {
                    d.copy_within(f1 + sz..f2, f1 + sz + sz2);
                }
                d.copy_within(top..f1, brk);
                for at in (ptr_base..first).step_by(2) {
                    let pc = get_u16(d, at);
                    if pc < f1 {
                        page::put_u16(d, at, pc + sz + sz2);
                    } else if pc < f2 {
                        page::put_u16(d, at, pc + sz2);
                    }
                }
                d[first..brk].fill(0);
                d[hoff + 1..hoff + 3].fill(0);
                page::put_u16(d, hoff + 5, brk);
                return true;
            }
        }
    }
    let Some(cells) = cell_extents(d, h, usable) else { return false };
    let used: usize = cells.iter().map(|&(_, len)| len).sum();
    if usable - used < top.max(first) || usable - used - first != free {
        return false;
    }
    repack(d, h, &cells, usable);
    true
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
