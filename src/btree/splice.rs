//! # Replacing a parent's dividers in place
//!
//! Balancing a few siblings changes only a short run of their parent's
//! cells (the dividers between them) and one child pointer. Rather than
//! decoding the whole parent into a [`super::page::Node`] and writing it
//! back packed, the run is spliced on the page, as SQLite's
//! `dropCell`/`insertCell` do: the old dividers' bytes join the free
//! space, each new divider takes room from the gap between the pointer
//! array and the content area or, failing that, from a freeblock big
//! enough (first fit), and the pointer array is shifted once.
//!
//! Invariant: the splice either completes or changes nothing (it answers
//! `false` when the new dividers do not fit in the page's free space as it
//! is laid out, when the free-space bookkeeping does not read sane, or
//! with auto_vacuum, whose pointer map needs every moved child noted);
//! the caller then takes the general path. The layout is tried on a copy
//! of the page, written back only whole (checked: splice_all_or_nothing).

use super::drop_cell::{add_free_block, free_bytes};
use super::page;
use super::page::{get_u16, put_u16};
use super::{Btree, Pgno};
use crate::error::Result;

/// Fragment bytes SQLite lets a page collect before it defragments.
const MAX_FRAGMENTS: usize = 60;

/// Take `len` bytes from the first freeblock that holds them; returns the
/// offset. A remainder under 4 bytes becomes fragment bytes (refused past
/// [`MAX_FRAGMENTS`]); otherwise the block keeps its head and gives its
/// tail.
fn take_from_freeblock(data: &mut [u8], hoff: usize, len: usize) -> Option<usize> {
    let mut prev_link = hoff + 1;
    let mut block = get_u16(data, prev_link);
    while block != 0 {
        let size = get_u16(data, block + 2);
        if size >= len {
            let rest = size - len;
            if rest < 4 {
                let frags = data[hoff + 7] as usize + rest;
                if frags > MAX_FRAGMENTS {
                    return None;
                }
                let next = get_u16(data, block);
                put_u16(data, prev_link, next);
                data[hoff + 7] = frags as u8;
                return Some(block);
            }
            put_u16(data, block + 2, rest);
            return Some(block + rest);
        }
        prev_link = block;
        block = get_u16(data, block);
    }
    None
}

impl Btree {
    /// On interior page `pgno`, replace the `remove` cells starting at
    /// index `at` by `cells`, then make `child` the child after them (the
    /// left child of the cell that follows, or the right child when none
    /// does). `false`: nothing done (see the module invariant).
    pub(super) fn splice_dividers_in_place(&mut self, pgno: Pgno, at: usize, remove: usize, cells: &[Vec<u8>], child: Pgno) -> Result<bool> {
        if self.autovacuum()? {
            return Ok(false);
        }
        let usable = self.usable() as usize;
        let (hoff, kind, ncells) = {
            let data = self.pager.page(pgno)?;
            let h = page::header(data, pgno)?;
            if h.kind.is_leaf() || at + remove > h.ncells || h.ncells - remove + cells.len() >= 0xffff {
                return Ok(false);
            }
            let Some(free) = free_bytes(data, h.offset, h.kind, h.ncells, usable) else { return Ok(false) };
            let mut freed = 0;
            for i in at..at + remove {
                let off = page::cell_offset(data, &h, i, usable as u32)?;
                freed += super::cell::cell_size(h.kind, &data[off..usable], usable as u32)? + 2;
            }
            let needed: usize = cells.iter().map(|c| c.len() + 2).sum();
            if free + freed < needed {
                return Ok(false);
            }
            (h.offset, h.kind, h.ncells)
        };
        // Work on a copy: a layout that cannot take the new cells (too
        // fragmented) leaves the page untouched.
        let mut work = self.pager.page(pgno)?.to_vec();
        let was = super::page_check::debug_consistent(&work, pgno, self.usable() as usize);
        let ptr_base = hoff + kind.header_size();
        for i in (at..at + remove).rev() {
            let p = ptr_base + 2 * i;
            let off = get_u16(&work, p);
            let size = super::cell::cell_size(kind, &work[off..usable], usable as u32)?;
            work.copy_within(p + 2..ptr_base + 2 * ncells, p);
            let n = ncells - (at + remove - 1 - i) - 1;
            put_u16(&mut work, hoff + 3, n);
            work[off..off + size].fill(0);
            add_free_block(&mut work, hoff, off, size)?;
        }
        let mut n = ncells - remove;
        // Room for the new pointers first, then each cell's bytes.
        let ptr_end = ptr_base + 2 * (n + cells.len());
        for (j, c) in cells.iter().enumerate() {
            let content = match get_u16(&work, hoff + 5) {
                0 => 65536,
                v => v,
            };
            // invariant: splice_all_or_nothing
            if content < ptr_end {
                return Ok(false);
            }
            let start = if content - ptr_end >= c.len() {
                let s = content - c.len();
                put_u16(&mut work, hoff + 5, s);
                s
            } else {
                match take_from_freeblock(&mut work, hoff, c.len()) {
                    Some(s) if s >= ptr_end => s,
                    _ => return Ok(false),
                }
            };
            work[start..start + c.len()].copy_from_slice(c);
            let p = ptr_base + 2 * (at + j);
            work.copy_within(p..ptr_base + 2 * n, p + 2);
            put_u16(&mut work, p, start);
            n += 1;
            put_u16(&mut work, hoff + 3, n);
        }
        let slot = at + cells.len();
        if slot == n {
            work[hoff + 8..hoff + 12].copy_from_slice(&child.to_be_bytes());
        } else {
            let off = get_u16(&work, ptr_base + 2 * slot);
            work[off..off + 4].copy_from_slice(&child.to_be_bytes());
        }
        self.pager.page_mut(pgno)?.copy_from_slice(&work);
        // (Consistency only, not key order: the new dividers come from the
        // children, and a damaged child gives dividers out of order with
        // the parent's own, which a later read reports.)
        if was {
            super::page_check::debug_check(&work, pgno, self.usable() as usize);
        }
        Ok(true)
    }
}
