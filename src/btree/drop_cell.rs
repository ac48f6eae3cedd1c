//! # Deleting a leaf cell in place
//!
//! The common delete, as SQLite does it: the cell's pointer leaves the
//! pointer array and its bytes join the page's free space (a freeblock in
//! the sorted freeblock list, merged with touching neighbours, or the
//! start of the cell content area when it lies there), instead of decoding
//! the page into a [`super::page::Node`] and writing it back packed.
//!
//! Invariant: it only acts when the page stays at least a third full (so
//! no balancing is due) and its free-space bookkeeping reads sane; in every
//! other case it changes nothing and answers `false`, and the caller takes
//! the general path (which repacks the page and balances it) (checked:
//! drop_in_place_third_full).
//!
//! Invariant: a free-byte count noted for a page's bytes
//! ([`crate::pager::Pager::note_free_bytes`]) is what a walk of its free
//! space finds, before and after a cell is dropped (checked:
//! noted_free_bytes).

use super::page::{self, PageKind};
use super::page::{get_u16, put_u16};
use super::{Btree, Pgno};
use crate::error::{Error, Result};

/// Freeblocks are at least 4 bytes: next offset, size.
pub(super) const MIN_FREEBLOCK: usize = 4;

impl Btree {
    /// Remove cell `idx` of leaf page `pgno` in place. `root`: the page is
    /// the tree's root (never rebalanced for being underfull). `false`
    /// (nothing done) when the general path must do it. When it acts it
    /// is the operation's last change (the caller returns at once).
    pub(super) fn drop_leaf_cell_in_place(&mut self, pgno: Pgno, idx: usize, root: bool) -> Result<bool> {
        self.remove_leaf_cell_in_place(pgno, idx, root, true, true)
    }

    /// `drop_leaf_cell_in_place`, keeping the cell's overflow chain when
    /// `free_chain` is false (the cell moves to another page). `last`: the
    /// caller does nothing fallible after a removal (see
    /// [`crate::pager::Pager::page_mut_last`]).
    pub(super) fn remove_leaf_cell_in_place(&mut self, pgno: Pgno, idx: usize, root: bool, free_chain: bool, last: bool) -> Result<bool> {
        let usable = self.usable() as usize;
        // (The cell is copied only when it has an overflow chain to free.)
        let (kind, chained, size, off, free_before) = {
            let (data, noted) = self.pager.page_with_free(pgno)?;
            let h = page::header(data, pgno)?;
            if !h.kind.is_leaf() || idx >= h.ncells {
                return Ok(false);
            }
            let (bytes, info) = page::cell(data, &h, idx, usable as u32)?;
            let off = page::cell_offset(data, &h, idx, usable as u32)?;
            let Some(free) = free_bytes_noted(noted, data, &h, usable) else { return Ok(false) };
            (h.kind, (info.overflow != 0).then(|| bytes.to_vec()), bytes.len(), off, free)
        };
        if size < MIN_FREEBLOCK {
            return Ok(false);
        }
        // Bytes in use after the delete, counted as `page::underfull` does.
        let hdr = page::header_offset(pgno);
        let Some(used) = usable.checked_sub(hdr + free_before + size + 2) else { return Ok(false) };
        // invariant: drop_in_place_third_full
        if !root && used * 3 < usable {
            return Ok(false);
        }
        if let (true, Some(cell_bytes)) = (free_chain, chained) {
            self.free_overflow(kind, &cell_bytes)?;
        }
        let data = if last { self.pager.page_mut_last(pgno)? } else { self.pager.page_mut(pgno)? };
        let h = page::header(data, pgno)?;
        let was = super::page_check::debug_consistent(data, pgno, usable);
        remove_cell_bytes(data, &h, idx, off, size)?;
        super::page_check::debug_check_kept(data, pgno, usable, was);
        // The cell's bytes and its pointer joined the free space (merges
        // and the content area's growth move bytes, never lose them).
        let free_after = free_before + size + 2;
        // (A damaged page can pass the checks above and still hold a list
        // `free_bytes` refuses: then only the next full walk may tell.)
        // invariant: noted_free_bytes
        debug_assert!(free_bytes(data, h.offset, h.kind, h.ncells - 1, usable).is_none_or(|f| f == free_after));
        self.pager.note_free_bytes(pgno, free_after);
        Ok(true)
    }
}

/// Remove cell `idx` (at `off`, `size` bytes) of a page whose free-space
/// bookkeeping `free_bytes` accepted: its pointer leaves the array, its
/// bytes (zeroed) join the free space (SQLite's dropCell).
pub(super) fn remove_cell_bytes(data: &mut [u8], h: &page::PageHeader, idx: usize, off: usize, size: usize) -> Result<()> {
    let ptr_base = h.offset + h.kind.header_size();
    let ptr_end = ptr_base + 2 * h.ncells;
    let at = ptr_base + 2 * idx;
    data.copy_within(at + 2..ptr_end, at);
    data[ptr_end - 2..ptr_end].fill(0);
    data[h.offset + 3..h.offset + 5].copy_from_slice(&((h.ncells - 1) as u16).to_be_bytes());
    data[off..off + size].fill(0);
    add_free_block(data, h.offset, off, size)
}

#[inline]
fn content_start(data: &[u8], hoff: usize) -> usize {
    match get_u16(data, hoff + 5) {
        0 => 65536,
        v => v,
    }
}

/// Free bytes of a page: the gap between the pointer array and the cell
/// content area, freeblocks, fragments. `None` if the freeblock list is
/// not a well-formed ascending chain inside the content area.
pub(super) fn free_bytes(data: &[u8], hoff: usize, kind: PageKind, ncells: usize, usable: usize) -> Option<usize> {
    let ptr_end = hoff + kind.header_size() + 2 * ncells;
    let content = content_start(data, hoff);
    if content < ptr_end || content > usable {
        return None;
    }
    let mut total = content - ptr_end + data[hoff + 7] as usize;
    let mut block = get_u16(data, hoff + 1);
    let mut min = content;
    let mut hops = 0;
    while block != 0 {
        hops += 1;
        if block < min || block + MIN_FREEBLOCK > usable || hops > usable / MIN_FREEBLOCK {
            return None;
        }
        let size = get_u16(data, block + 2);
        if size < MIN_FREEBLOCK || block + size > usable {
            return None;
        }
        total += size;
        // SQLite leaves at least 4 bytes between freeblocks (closer ones
        // are merged, the gap counted as fragments); it reports a page
        // that does not as corrupt.
        min = block + size + MIN_FREEBLOCK;
        block = get_u16(data, block);
    }
    Some(total)
}

/// [`free_bytes`] of a page, or the count noted for its current bytes
/// ([`crate::pager::Pager::page_with_free`]): a count noted by an earlier
/// in-place delete is of a list that was checked then and kept well
/// formed since (the page's bytes have not changed after it was noted).
pub(super) fn free_bytes_noted(noted: Option<usize>, data: &[u8], h: &page::PageHeader, usable: usize) -> Option<usize> {
    // invariant: noted_free_bytes
    debug_assert!(noted.is_none() || free_bytes(data, h.offset, h.kind, h.ncells, usable).is_none_or(|f| Some(f) == noted));
    noted.or_else(|| free_bytes(data, h.offset, h.kind, h.ncells, usable))
}

/// Add `[off, off + size)` to the free space of a page whose freeblock
/// list `free_bytes` accepted: merged with a freeblock that ends or starts
/// within 3 bytes of it (the fragment bytes between them join the block,
/// as SQLite merges them: no two freeblocks are closer than 4 bytes), and
/// given back to the content area when it lies at its start. A freed range
/// that overlaps a freeblock, or more merged gap bytes than the page's
/// fragment count, is a corrupt page (SQLite's freeSpace answers
/// SQLITE_CORRUPT there too): an accepted list can still disagree with
/// cell offsets a damaged file gives.
pub(super) fn add_free_block(data: &mut [u8], hoff: usize, off: usize, size: usize) -> Result<()> {
    if off < content_start(data, hoff) {
        return Err(Error::corrupt());
    }
    // Find the blocks before and after `off` (the list is ascending).
    let mut prev: Option<usize> = None;
    let mut next = get_u16(data, hoff + 1);
    while next != 0 && next < off {
        prev = Some(next);
        next = get_u16(data, next);
    }
    let (mut start, mut end) = (off, off + size);
    let mut absorbed = 0;
    if next != 0 && next <= end + 3 {
        if next < end {
            return Err(Error::corrupt());
        }
        absorbed += next - end;
        end = next + get_u16(data, next + 2);
        next = get_u16(data, next);
    }
    if let Some(p) = prev {
        let p_end = p + get_u16(data, p + 2);
        if p_end > start {
            return Err(Error::corrupt());
        }
        if p_end + 3 >= start {
            absorbed += start - p_end;
            start = p;
            // `p` absorbs the new block: find the block before it.
            prev = None;
            let mut b = get_u16(data, hoff + 1);
            while b != 0 && b < p {
                prev = Some(b);
                b = get_u16(data, b);
            }
        }
    }
    if absorbed > data[hoff + 7] as usize {
        return Err(Error::corrupt());
    }
    data[hoff + 7] -= absorbed as u8;
    if prev.is_none() && start == content_start(data, hoff) {
        // The first free run begins the content area: the area shrinks.
        data[start..end].fill(0);
        put_u16(data, hoff + 1, next);
        put_u16(data, hoff + 5, if end == 65536 { 0 } else { end });
        return Ok(());
    }
    put_u16(data, start, next);
    put_u16(data, start + 2, end - start);
    match prev {
        Some(p) => put_u16(data, p, start),
        None => put_u16(data, hoff + 1, start),
    }
    Ok(())
}
