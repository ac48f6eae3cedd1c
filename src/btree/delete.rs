//! # Deleting entries
//!
//! A leaf entry is cut out of its page in place when the page stays at
//! least a third full (`drop_cell.rs`); otherwise the page is fixed up
//! (balanced with its siblings when less than a third full). An index entry on an
//! interior page is replaced by its predecessor, the last entry of its left
//! subtree (always on a leaf), and that leaf is then fixed up in turn.
//!
//! Invariants: a deleted cell's overflow chain goes to the freelist; a tree
//! emptied by deletes shrinks back to a lone root page (checked:
//! overflow_chain_freed, empty_tree_lone_root).

use super::balance::Level;
use super::cell;
use super::cursor::Probe;
use super::page::{self, PageKind};
use super::{Btree, Pgno};
use crate::error::{Error, Result};
use crate::value::record::KeyInfo;

impl Btree {
    /// Remove the entry a path ends on and rebalance. `true` when the
    /// cell was cut out of its leaf and nothing else changed (the path
    /// then ends on the entry after it, or one past the leaf's last cell).
    pub(super) fn delete_at(&mut self, root: Pgno, path: &[Level], key_info: Option<&KeyInfo>) -> Result<bool> {
        let level = path.len() - 1;
        let top = path[level];
        if self.drop_leaf_cell_in_place(top.pgno, top.idx, level == 0)? {
            return Ok(true);
        }
        if let Some(done) = self.delete_interior_packed(root, path, key_info)? {
            return Ok(done);
        }
        let mut node = self.read_node(top.pgno)?;
        if top.idx >= node.cells.len() {
            return Err(Error::corrupt());
        }
        if node.kind.is_leaf() {
            let old = node.cells.remove(top.idx);
            self.free_overflow(node.kind, &old)?;
            self.fix_page(path, level, node)?;
            return Ok(false);
        }
        // An index entry on an interior page: its predecessor (the last
        // entry of its left subtree, on a leaf) takes its place.
        // (The general form of `delete_interior_packed`, for pages it
        // does not take: same steps, same bytes.)
        let old = node.cells[top.idx].clone();
        self.free_overflow(node.kind, &old)?;
        let left = cell::get_u32(&old, 0)?;
        let mut ext = path.to_vec();
        self.descend_rightmost(&mut ext, left)?;
        let leaf_pg = ext.last().ok_or_else(Error::corrupt)?.pgno;
        let mut leaf = self.read_node(leaf_pg)?;
        if !leaf.kind.is_leaf() {
            return Err(Error::corrupt());
        }
        let pred = leaf.cells.pop().ok_or_else(Error::corrupt)?;
        self.write_node(leaf_pg, &leaf)?;
        let info = cell::parse(PageKind::IndexLeaf, &pred, self.usable())?;
        let pred_record = self.full_payload(&pred, &info)?;
        node.cells[top.idx] = cell::index_leaf_to_interior(&pred, left);
        self.fix_page(path, level, node)?;
        self.rebalance_predecessor_leaf(root, &pred_record, key_info)?;
        Ok(false)
    }

    /// `delete_at` of an entry on an index interior page, with both pages
    /// changed where they are rather than decoded into nodes: the
    /// predecessor's leaf loses its last cell and is repacked, the
    /// interior page takes the predecessor's cell in the entry's place and
    /// is repacked, which leaves each page with exactly the bytes
    /// `write_node` writes for its node (`insert::repack`). `None`
    /// (nothing changed) when a page does not read as the general path
    /// expects it, or the interior page would not hold its new cell (it
    /// is balanced there).
    fn delete_interior_packed(&mut self, root: Pgno, path: &[Level], key_info: Option<&KeyInfo>) -> Result<Option<bool>> {
        let level = path.len() - 1;
        let top = path[level];
        let usable = self.usable();
        let (ph, pcells, old) = {
            let data = self.pager.page(top.pgno)?;
            let h = page::header(data, top.pgno)?;
            if h.kind != PageKind::IndexInterior || top.idx >= h.ncells {
                return Ok(None);
            }
            let Some(cells) = checked_extents(data, &h, usable) else { return Ok(None) };
            let (off, len) = cells[top.idx];
            (h, cells, data[off..off + len].to_vec())
        };
        let left = cell::get_u32(&old, 0)?;
        let mut ext = path.to_vec();
        self.descend_rightmost(&mut ext, left)?;
        let leaf_pg = ext.last().ok_or_else(Error::corrupt)?.pgno;
        let (lh, mut lcells) = {
            let data = self.pager.page(leaf_pg)?;
            let h = page::header(data, leaf_pg)?;
            if h.kind != PageKind::IndexLeaf || h.ncells == 0 {
                return Ok(None);
            }
            let Some(cells) = checked_extents(data, &h, usable) else { return Ok(None) };
            (h, cells)
        };
        let Some((poff, plen)) = lcells.pop() else { return Ok(None) };
        // The interior page's bytes in use once the predecessor's cell
        // (4 bytes longer: its left child) replaces the entry's, counted
        // as `page::node_size` counts them.
        let used = page::header_offset(top.pgno) + ph.kind.header_size() + pcells.iter().map(|&(_, len)| len + 2).sum::<usize>() - old.len() + plen + 4;
        if used > usable as usize {
            return Ok(None);
        }
        self.free_overflow(ph.kind, &old)?;
        let pred = self.pager.page(leaf_pg)?[poff..poff + plen].to_vec();
        {
            let d = self.pager.page_mut(leaf_pg)?;
            let was = super::page_check::debug_consistent(d, leaf_pg, usable as usize);
            page::put_u16(d, lh.offset + 3, lh.ncells - 1);
            super::insert::repack(d, &lh, &lcells, usable as usize);
            super::page_check::debug_check_kept(d, leaf_pg, usable as usize, was);
        }
        self.ptrmap_note_page(leaf_pg)?;
        let info = cell::parse(PageKind::IndexLeaf, &pred, usable)?;
        let pred_record = self.full_payload(&pred, &info)?;
        let new = cell::index_leaf_to_interior(&pred, left);
        {
            let d = self.pager.page_mut(top.pgno)?;
            let was = super::page_check::debug_consistent(d, top.pgno, usable as usize);
            super::insert::repack_replacing(d, &ph, &pcells, usable as usize, Some((top.idx, &new)));
            super::page_check::debug_check_kept(d, top.pgno, usable as usize, was);
        }
        self.ptrmap_note_page(top.pgno)?;
        // As `fix_page` goes on after writing a node that fits (the page
        // keeps its cell count, so a root is never emptied here).
        if level > 0 && (used - page::header_offset(top.pgno)) * 3 < usable as usize {
            self.balance_siblings(path, level, super::balance::NewContent::Page)?;
        }
        self.rebalance_predecessor_leaf(root, &pred_record, key_info)?;
        Ok(Some(false))
    }

    /// After an interior entry's delete: find the leaf its predecessor
    /// `pred_record` came from again (balancing above may have moved
    /// things) and rebalance it if it got too empty.
    fn rebalance_predecessor_leaf(&mut self, root: Pgno, pred_record: &[u8], key_info: Option<&KeyInfo>) -> Result<()> {
        let (mut p2, _, exact) = self.seek_path(root, &Probe::Record(pred_record), key_info, false, false)?;
        if !exact {
            return Err(Error::corrupt());
        }
        let t = *p2.last().ok_or_else(Error::corrupt)?;
        let c = page::child(self.pager.page(t.pgno)?, &page::header(self.pager.page(t.pgno)?, t.pgno)?, t.idx, self.usable())?;
        self.descend_rightmost(&mut p2, c)?;
        let lv = p2.len() - 1;
        let pgno = p2[lv].pgno;
        let usable = self.usable();
        // Whether it is underfull, from its cells' sizes (as `read_node`
        // would size them) without copying them; a page that does not
        // read so is decoded, which reports it.
        let underfull = {
            let data = self.pager.page(pgno)?;
            let h = page::header(data, pgno)?;
            checked_extents(data, &h, usable).map(|cells| (h.kind.header_size() + cells.iter().map(|&(_, len)| len + 2).sum::<usize>()) * 3 < usable as usize)
        };
        match underfull {
            Some(false) => {}
            _ => {
                let leaf = self.read_node(pgno)?;
                if page::underfull(&leaf, pgno, usable) {
                    self.fix_page(&p2, lv, leaf)?;
                }
            }
        }
        Ok(())
    }
}

/// Every cell's place and length on a page (`insert::cell_extents`),
/// each also read as `page::read_node` reads it: an index cell whose
/// payload overflows is parsed whole (`cell::parse` refuses an overflow
/// page number of 0). `None` when any does not read so.
fn checked_extents(data: &[u8], h: &page::PageHeader, usable: u32) -> Option<Vec<(usize, usize)>> {
    let cells = super::insert::cell_extents(data, h, usable as usize)?;
    if !h.kind.is_table() || h.kind == PageKind::TableLeaf {
        let skip = if h.kind.is_leaf() { 0 } else { 4 };
        let max_local = cell::max_local(h.kind == PageKind::TableLeaf, usable) as u64;
        for &(off, _) in &cells {
            let (size, _) = cell::get_varint(data.get(off + skip..usable as usize)?).ok()?;
            if size > max_local {
                cell::parse(h.kind, &data[off..usable as usize], usable).ok()?;
            }
        }
    }
    Some(cells)
}
