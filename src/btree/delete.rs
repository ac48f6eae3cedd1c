//! # Deleting entries
//!
//! A leaf entry is cut out of its page in place when the page stays at
//! least a third full (`drop_cell.rs`); otherwise the page is fixed up
//! (balanced with its siblings when less than a third full). An index entry on an
//! interior page is replaced by its predecessor, the last entry of its left
//! subtree (always on a leaf), and that leaf is then fixed up in turn.
//!
//! Invariants: a deleted cell's overflow chain goes to the freelist; a tree
//! emptied by deletes shrinks back to a lone root page.

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
        // Find the leaf again (balancing above may have moved things) and
        // rebalance it if it got too empty.
        let (mut p2, _, exact) = self.seek_path(root, &Probe::Record(&pred_record), key_info, false, false)?;
        if !exact {
            return Err(Error::corrupt());
        }
        let t = *p2.last().ok_or_else(Error::corrupt)?;
        let c = page::child(self.pager.page(t.pgno)?, &page::header(self.pager.page(t.pgno)?, t.pgno)?, t.idx, self.usable())?;
        self.descend_rightmost(&mut p2, c)?;
        let lv = p2.len() - 1;
        let leaf = self.read_node(p2[lv].pgno)?;
        if page::underfull(&leaf, p2[lv].pgno, self.usable()) {
            self.fix_page(&p2, lv, leaf)?;
        }
        Ok(false)
    }
}
