//! # Inserting entries
//!
//! An insert finds the leaf where the key belongs (or the entry with the
//! same key, which it replaces in place, on a leaf or, in index trees, on
//! an interior page), builds the cell (spilling large payloads into an
//! overflow chain), and hands the page's new content to balancing.
//!
//! Invariant: a replaced cell's old overflow chain is freed before the new
//! cell is built, so the pages can be reused at once.

use super::cell;
use super::cursor::Probe;
use super::page::PageKind;
use super::{Btree, Pgno};
use crate::error::{Error, Result};
use crate::value::record::KeyInfo;

impl Btree {
    /// Insert (or replace) the entry `probe` names, with this payload.
    pub(super) fn insert_entry(&mut self, root: Pgno, probe: &Probe<'_>, key_info: Option<&KeyInfo>, leaf_kind: PageKind, rowid: i64, payload: &[u8]) -> Result<()> {
        let (path, _, exact) = self.seek_path(root, probe, key_info, false, false)?;
        let level = path.len() - 1;
        let top = path[level];
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
        self.fix_page(&path, level, node)
    }
}
