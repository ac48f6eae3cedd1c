//! # Balancing
//!
//! After an insert or delete a page's new content (a [`Node`]) may not fit
//! (overfull) or may be less than a third full (underfull). Modeled on
//! SQLite's balance_nonroot: the page and up to two neighbours under the
//! same parent pool their cells (and, except for table leaves, the
//! dividers between them from the parent), and the pool is dealt out
//! evenly over as few pages as hold it (after an overflow, one more page
//! when those would be over 95% full: see [`distribute`]). The parent
//! gets new dividers and is fixed the same way, up to the root. An
//! overfull root moves its content
//! to a new child and becomes an interior page over it (the tree grows one
//! level); an interior root left with no cells takes its only child's
//! content when it fits (the tree shrinks one level).
//!
//! Cells are never decoded into owned vectors on the hot paths: the
//! siblings are copied page-wise once and dealt out as slices of those
//! copies ([`NewContent`] says how the page being balanced changes), an
//! append past the right edge (`balance_quick`) adds its divider to the
//! parent in place when it fits, and the parent's dividers between the
//! siblings are replaced in place (`splice.rs`) unless they do not fit.
//!
//! Invariant: every page written holds a node that fits (checked:
//! btree_node_fits).
//!
//! Invariant: key order is preserved: a divider is greater than or equal
//! to every key on its left (checked: balance_divider_order), in a table
//! tree whose pooled cells were in order (a damaged page's may not be).
//!
//! Siblings keep their page numbers where possible (surplus pages go to
//! the freelist, extra pages come from the allocator).

use super::cell::{self, set_left_child};
use super::page::{self, Node, PageKind};
use super::{Btree, Pgno};
use crate::error::{Error, Result};

/// One level of a path from the root: the page and the child index taken
/// (interior) or the cell index (leaf).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Level {
    /// The page.
    pub pgno: Pgno,
    /// Child or cell index.
    pub idx: usize,
}

impl Btree {
    pub(super) fn read_node(&self, pgno: Pgno) -> Result<Node> {
        page::read_node(self.pager.page(pgno)?, pgno, self.usable())
    }

    pub(super) fn write_node(&mut self, pgno: Pgno, node: &Node) -> Result<()> {
        let usable = self.usable();
        // invariant: btree_node_fits
        if !page::fits(node, pgno, usable) {
            return Err(Error::new(crate::error::SQLITE_INTERNAL, "node does not fit its page"));
        }
        let data = self.pager.page_mut(pgno)?;
        page::write_node(data, pgno, node, usable);
        super::page_check::debug_check(data, pgno, usable as usize);
        self.ptrmap_note_page(pgno)
    }

    /// Store `node` as the new content of `path[level]`, balancing as
    /// needed.
    pub(super) fn fix_page(&mut self, path: &[Level], level: usize, node: Node) -> Result<()> {
        let usable = self.usable();
        let pgno = path[level].pgno;
        if !page::fits(&node, pgno, usable) {
            if level == 0 {
                return self.split_root(pgno, node);
            }
            return self.balance_siblings(path, level, NewContent::Node(node));
        }
        self.write_node(pgno, &node)?;
        if level == 0 {
            if !node.kind.is_leaf() && node.cells.is_empty() {
                self.collapse_root(pgno, node.right)?;
            }
        } else if page::underfull(&node, pgno, usable) {
            self.balance_siblings(path, level, NewContent::Page)?;
        }
        Ok(())
    }

    fn split_root(&mut self, root: Pgno, node: Node) -> Result<()> {
        // (The root is made writable before the file grows, as SQLite's
        // balance_deeper does: their journal records come in that order.)
        self.pager.page_mut(root)?;
        let child = self.allocate_page()?;
        let root_node = Node { kind: node.kind.interior(), cells: Vec::new(), right: child };
        self.write_node(root, &root_node)?;
        let path = [Level { pgno: root, idx: 0 }, Level { pgno: child, idx: 0 }];
        self.balance_siblings(&path, 1, NewContent::Node(node))
    }

    /// The table root leaf `root`, full, gets `cell_bytes` past its last
    /// cell: its cells move to a new child page (the root becomes an
    /// interior page over it) and the cell goes alone into a new right
    /// leaf ([`Self::balance_quick`]), as SQLite's balance_deeper followed
    /// by balance_quick.
    pub(super) fn deepen_root_and_append(&mut self, root: Pgno, cell_bytes: Vec<u8>) -> Result<()> {
        let node = self.read_node(root)?;
        debug_assert!(node.kind == PageKind::TableLeaf && !node.cells.is_empty());
        let n = node.cells.len();
        // (Writable before the file grows, as in `split_root`.)
        self.pager.page_mut(root)?;
        let child = self.allocate_page()?;
        self.write_node(child, &node)?;
        self.write_node(root, &Node { kind: node.kind.interior(), cells: Vec::new(), right: child })?;
        let path = [Level { pgno: root, idx: 0 }, Level { pgno: child, idx: n }];
        self.balance_quick(&path, 1, cell_bytes)
    }

    fn collapse_root(&mut self, root: Pgno, child: Pgno) -> Result<()> {
        let child_node = self.read_node(child)?;
        // (An empty child always fits: a tree emptied by deletes ends as a
        // lone root leaf.)
        // invariant: empty_tree_lone_root
        debug_assert!(!child_node.cells.is_empty() || page::fits(&child_node, root, self.usable()));
        if page::fits(&child_node, root, self.usable()) {
            self.write_node(root, &child_node)?;
            self.free_page(child)?;
        }
        Ok(())
    }

    /// Append `cell_bytes` (a table leaf cell with a rowid larger than any
    /// in the tree's rightmost leaf `path[level]`, which it does not fit)
    /// by starting a new rightmost leaf holding only that cell, as SQLite's
    /// balance_quick does: the full leaf is left as it is and the parent
    /// gets a divider for it, so sequential inserts neither re-deal nor
    /// rewrite siblings. The new leaf is allowed to be underfull.
    pub(super) fn balance_quick(&mut self, path: &[Level], level: usize, cell_bytes: Vec<u8>) -> Result<()> {
        let usable = self.usable();
        let leaf = path[level].pgno;
        let parent_pgno = path[level - 1].pgno;
        let last_rowid = {
            let data = self.pager.page(leaf)?;
            let h = page::header(data, leaf)?;
            if h.kind != PageKind::TableLeaf || h.ncells == 0 {
                return Err(Error::corrupt());
            }
            page::cell(data, &h, h.ncells - 1, usable)?.1.rowid
        };
        let ph = page::header(self.pager.page(parent_pgno)?, parent_pgno)?;
        if ph.kind != PageKind::TableInterior || ph.right != leaf {
            return Err(Error::corrupt());
        }
        // The parent is made writable before the file grows, as SQLite's
        // balance does before balance_quick: its journal record comes
        // before page 1's.
        self.pager.page_mut(parent_pgno)?;
        let new_leaf = self.allocate_page()?;
        self.write_node(new_leaf, &Node { kind: PageKind::TableLeaf, cells: vec![cell_bytes], right: 0 })?;
        let divider = cell::table_interior(leaf, last_rowid);
        if self.append_divider_in_place(parent_pgno, &divider, new_leaf)? {
            return Ok(());
        }
        let mut parent = self.read_node(parent_pgno)?;
        parent.cells.push(divider);
        parent.right = new_leaf;
        self.fix_page(path, level - 1, parent)
    }

    /// Append `divider` as the last cell of interior page `parent_pgno`
    /// and make `right` its right child, in place (the page is not
    /// decoded and rewritten) when the cell fits the gap between the
    /// pointer array and the cell content area. `false` (nothing done)
    /// when it does not, or with auto_vacuum (the pointer map would need
    /// the new child's entry): the caller rewrites the parent.
    fn append_divider_in_place(&mut self, parent_pgno: Pgno, divider: &[u8], right: Pgno) -> Result<bool> {
        if self.autovacuum()? {
            return Ok(false);
        }
        let usable = self.usable() as usize;
        let data = self.pager.page(parent_pgno)?;
        let h = page::header(data, parent_pgno)?;
        if h.kind.is_leaf() {
            return Err(Error::corrupt());
        }
        let off = h.offset;
        let ptr_end = off + h.kind.header_size() + 2 * h.ncells;
        let content = match u16::from_be_bytes([data[off + 5], data[off + 6]]) {
            0 => 65536,
            v => v as usize,
        };
        if content > usable || content < ptr_end || h.ncells >= 0xffff || content - ptr_end < divider.len() + 2 {
            return Ok(false);
        }
        let start = content - divider.len();
        let d = self.pager.page_mut(parent_pgno)?;
        let was = super::page_check::debug_consistent(d, parent_pgno, usable);
        d[start..content].copy_from_slice(divider);
        d[ptr_end..ptr_end + 2].copy_from_slice(&(start as u16).to_be_bytes());
        d[off + 3..off + 5].copy_from_slice(&((h.ncells + 1) as u16).to_be_bytes());
        d[off + 5..off + 7].copy_from_slice(&(start as u16).to_be_bytes());
        d[off + 8..off + 12].copy_from_slice(&right.to_be_bytes());
        super::page_check::debug_check_kept(d, parent_pgno, usable, was);
        Ok(true)
    }

    /// The index-tree form of `balance_quick` (a key larger than every key
    /// of the full rightmost leaf `path[level]`, as when an index is built
    /// from sorted keys): the leaf's last entry moves up into the parent
    /// as the divider (index dividers are entries) and the new entry
    /// starts a new rightmost leaf. `false` (nothing done) when the leaf
    /// cannot give up its last cell in place.
    pub(super) fn balance_quick_index(&mut self, path: &[Level], level: usize, cell_bytes: &[u8]) -> Result<bool> {
        let usable = self.usable();
        let leaf = path[level].pgno;
        let parent_pgno = path[level - 1].pgno;
        let last = {
            let data = self.pager.page(leaf)?;
            let h = page::header(data, leaf)?;
            if h.kind != PageKind::IndexLeaf || h.ncells < 2 {
                return Ok(false);
            }
            page::cell(data, &h, h.ncells - 1, usable)?.0.to_vec()
        };
        let ph = page::header(self.pager.page(parent_pgno)?, parent_pgno)?;
        if ph.kind != PageKind::IndexInterior || ph.right != leaf {
            return Err(Error::corrupt());
        }
        let last_idx = page::header(self.pager.page(leaf)?, leaf)?.ncells - 1;
        // (The parent first, as SQLite's balance makes it writable.)
        self.pager.page_mut(parent_pgno)?;
        if !self.remove_leaf_cell_in_place(leaf, last_idx, true, false, false)? {
            return Ok(false);
        }
        let new_leaf = self.allocate_page()?;
        self.write_node(new_leaf, &Node { kind: PageKind::IndexLeaf, cells: vec![cell_bytes.to_vec()], right: 0 })?;
        let divider = cell::index_leaf_to_interior(&last, leaf);
        if self.append_divider_in_place(parent_pgno, &divider, new_leaf)? {
            return Ok(true);
        }
        let mut parent = self.read_node(parent_pgno)?;
        parent.cells.push(divider);
        parent.right = new_leaf;
        self.fix_page(path, level - 1, parent)?;
        Ok(true)
    }

    /// Redistribute the cells of `path[level]` (its new content given by
    /// `content`) and up to two siblings. The cells are never decoded into
    /// owned vectors: the sibling pages are copied once and the pool holds
    /// slices of those copies, the new content and the parent's dividers.
    /// The parent's dividers are then replaced in place when they fit
    /// (`splice.rs`), else the parent is rewritten and fixed in turn.
    pub(super) fn balance_siblings(&mut self, path: &[Level], level: usize, content: NewContent<'_>) -> Result<()> {
        let usable = self.usable();
        let parent_pgno = path[level - 1].pgno;
        let child_idx = path[level - 1].idx;
        // The parent as it is (copied: pages are allocated below).
        let parent_img = self.pager.page(parent_pgno)?.to_vec();
        let ph = page::header(&parent_img, parent_pgno)?;
        if ph.kind.is_leaf() {
            return Err(Error::corrupt());
        }
        let parent_cell = |i: usize| -> Result<&[u8]> {
            let off = page::cell_offset(&parent_img, &ph, i, usable)?;
            let area = &parent_img[off..usable as usize];
            Ok(&area[..cell::cell_size(ph.kind, area, usable)?])
        };
        let nchild = ph.ncells + 1;
        if child_idx >= nchild {
            return Err(Error::corrupt());
        }
        let first = if nchild <= 3 { 0 } else { child_idx.saturating_sub(1).min(nchild - 3) };
        let last = (first + 2).min(nchild - 1);
        let child_of = |i: usize| -> Result<Pgno> {
            let c = if i == ph.ncells { ph.right } else { cell::get_u32(parent_cell(i)?, 0)? };
            if c < 2 {
                return Err(Error::corrupt());
            }
            Ok(c)
        };
        // The siblings' current images (copied: the same pages are
        // rewritten below), unless the new content replaces one whole.
        let mut old_pgnos = Vec::with_capacity(3);
        let mut images: Vec<Option<(Vec<u8>, page::PageHeader)>> = Vec::with_capacity(3);
        for i in first..=last {
            let pg = child_of(i)?;
            if old_pgnos.contains(&pg) || pg == parent_pgno {
                return Err(Error::corrupt());
            }
            old_pgnos.push(pg);
            if i == child_idx && matches!(content, NewContent::Node(_)) {
                images.push(None);
            } else {
                let data = self.pager.page(pg)?.to_vec();
                let h = page::header(&data, pg)?;
                images.push(Some((data, h)));
            }
        }
        let sib_kind = |j: usize| match (&images[j], &content) {
            (Some((_, h)), _) => h.kind,
            (None, NewContent::Node(n)) => n.kind,
            (None, _) => PageKind::TableLeaf,
        };
        let sib_right = |j: usize| match (&images[j], &content) {
            (Some((_, h)), _) => h.right,
            (None, NewContent::Node(n)) => n.right,
            (None, _) => 0,
        };
        let nsib = images.len();
        let kind = sib_kind(0);
        if (0..nsib).any(|j| sib_kind(j) != kind) || kind.is_table() != ph.kind.is_table() {
            return Err(Error::corrupt());
        }
        let separated = kind != PageKind::TableLeaf;
        // Dividers of interior siblings take the left sibling's right
        // child (owned, they change); index leaf dividers lose their
        // child pointer (a slice); table leaves have none in the pool.
        let mut interior_divs: Vec<Vec<u8>> = Vec::new();
        if separated && !kind.is_leaf() {
            for j in 0..nsib - 1 {
                let mut d = parent_cell(first + j)?.to_vec();
                set_left_child(&mut d, sib_right(j));
                interior_divs.push(d);
            }
        }
        let final_right = sib_right(nsib - 1);
        // (Sized once: grown sibling by sibling it was copied each time.)
        let pooled: usize = images.iter().map(|i| i.as_ref().map_or(0, |(_, h)| h.ncells)).sum();
        let new_cells = match &content {
            NewContent::Node(n) => n.cells.len(),
            _ => 0,
        };
        let mut pool = Pool::with_capacity(pooled + new_cells + 2 * nsib);
        for j in 0..nsib {
            match &images[j] {
                Some((data, h)) => {
                    let insert = match &content {
                        NewContent::Insert(idx, c) if first + j == child_idx => Some((*idx, *c)),
                        _ => None,
                    };
                    if insert.is_some_and(|(idx, _)| idx > h.ncells) {
                        return Err(Error::corrupt());
                    }
                    match insert {
                        Some((idx, c)) => {
                            pool.push_page_cells(data, h, 0..idx, usable)?;
                            pool.push(c);
                            pool.push_page_cells(data, h, idx..h.ncells, usable)?;
                        }
                        None => pool.push_page_cells(data, h, 0..h.ncells, usable)?,
                    }
                }
                None => match &content {
                    NewContent::Node(n) => n.cells.iter().for_each(|c| pool.push(c)),
                    _ => return Err(Error::corrupt()),
                },
            }
            if separated && j + 1 < nsib {
                if kind.is_leaf() {
                    pool.push(parent_cell(first + j)?.get(4..).ok_or_else(Error::corrupt)?);
                } else {
                    pool.push(&interior_divs[j]);
                }
            }
        }
        let capacity = usable as usize - kind.header_size();
        // An overflow may take one page more than the siblings had (a
        // page left underfull by a delete is merged as tightly as it goes).
        let roomy = (!matches!(content, NewContent::Page)).then_some(nsib + 1);
        let bounds = distribute(&pool.cells, separated, capacity, roomy)?;
        let pool = pool.cells;
        let k = bounds.len();
        // Page numbers: keep the old ones in order, allocate or free the
        // difference.
        let mut new_pgnos: Vec<Pgno> = old_pgnos.iter().copied().take(k).collect();
        // The parent and the pages kept are made writable before any page
        // is allocated, in SQLite's order (balance, then balance_nonroot):
        // their journal records come before page 1's when the file grows.
        self.pager.page_mut(parent_pgno)?;
        for &pg in &new_pgnos {
            self.pager.page_mut(pg)?;
        }
        while new_pgnos.len() < k {
            new_pgnos.push(self.allocate_page()?);
        }
        for &pg in old_pgnos.iter().skip(k) {
            self.free_page(pg)?;
        }
        let mut dividers = Vec::with_capacity(k.saturating_sub(1));
        let mut at = 0;
        for (j, &len) in bounds.iter().enumerate() {
            let pg = new_pgnos[j];
            let chunk = &pool[at..at + len];
            at += len;
            let sep = if separated && j + 1 < k {
                let s = pool.get(at).copied().ok_or_else(Error::corrupt)?;
                at += 1;
                Some(s)
            } else {
                None
            };
            let right = if kind.is_leaf() {
                0
            } else if let Some(s) = sep {
                cell::get_u32(s, 0)?
            } else {
                final_right
            };
            if j + 1 < k {
                dividers.push(match sep {
                    None => {
                        let last_cell = chunk.last().ok_or_else(Error::corrupt)?;
                        let info = cell::parse(kind, last_cell, usable)?;
                        cell::table_interior(pg, info.rowid)
                    }
                    Some(s) if kind.is_leaf() => cell::index_leaf_to_interior(s, pg),
                    Some(s) => {
                        let mut d = s.to_vec();
                        set_left_child(&mut d, pg);
                        d
                    }
                });
            }
            self.write_cells(pg, kind, chunk, right)?;
        }
        #[cfg(debug_assertions)]
        debug_divider_order(kind, &pool, &bounds, &dividers, usable);
        drop(pool);
        let last_pg = new_pgnos[k - 1];
        // The parent: old dividers out, new ones in, last slot re-pointed.
        if self.splice_dividers_in_place(parent_pgno, first, last - first, &dividers, last_pg)? {
            return self.fix_spliced_parent(path, level - 1);
        }
        let mut parent = page::read_node(&parent_img, parent_pgno, usable)?;
        let tail = parent.cells.split_off(last);
        parent.cells.truncate(first);
        parent.cells.extend(dividers);
        let slot = parent.cells.len();
        parent.cells.extend(tail);
        if slot == parent.cells.len() {
            parent.right = last_pg;
        } else {
            set_left_child(&mut parent.cells[slot], last_pg);
        }
        self.fix_page(path, level - 1, parent)
    }

    /// After its dividers were spliced in place, page `path[level]` is
    /// fixed as [`Btree::fix_page`] would: an interior root left without
    /// cells takes its child's content, any other page left underfull is
    /// balanced with its siblings.
    fn fix_spliced_parent(&mut self, path: &[Level], level: usize) -> Result<()> {
        let pgno = path[level].pgno;
        let usable = self.usable() as usize;
        let data = self.pager.page(pgno)?;
        let h = page::header(data, pgno)?;
        let Some(free) = super::drop_cell::free_bytes(data, h.offset, h.kind, h.ncells, usable) else { return Err(Error::corrupt()) };
        let used = usable - h.offset - free;
        let needs_fix = if level == 0 { h.ncells == 0 } else { used * 3 < usable };
        if needs_fix {
            let node = self.read_node(pgno)?;
            return self.fix_page(path, level, node);
        }
        Ok(())
    }

    /// Write `cells` packed into page `pgno` (as [`page::write_node`]
    /// does for a [`Node`]).
    fn write_cells(&mut self, pgno: Pgno, kind: PageKind, cells: &[&[u8]], right: Pgno) -> Result<()> {
        let usable = self.usable() as usize;
        let off = page::header_offset(pgno);
        let ptr_base = off + kind.header_size();
        let gap_start = ptr_base + 2 * cells.len();
        let size: usize = cells.iter().map(|c| c.len()).sum();
        // invariant: btree_node_fits
        if gap_start + size > usable {
            return Err(Error::new(crate::error::SQLITE_INTERNAL, "node does not fit its page"));
        }
        let data = self.pager.page_mut(pgno)?;
        let mut content = usable;
        let (ptrs, area) = data[..usable].split_at_mut(gap_start);
        for (c, p) in cells.iter().zip(ptrs[ptr_base..].chunks_exact_mut(2)) {
            content -= c.len();
            copy_cell(&mut area[content - gap_start..content - gap_start + c.len()], c);
            p.copy_from_slice(&(content as u16).to_be_bytes());
        }
        data[gap_start..content].fill(0);
        data[off] = kind.byte();
        data[off + 1..off + 3].fill(0);
        data[off + 3..off + 5].copy_from_slice(&(cells.len() as u16).to_be_bytes());
        let cs = if content == 65536 { 0u16 } else { content as u16 };
        data[off + 5..off + 7].copy_from_slice(&cs.to_be_bytes());
        data[off + 7] = 0;
        if !kind.is_leaf() {
            data[off + 8..off + 12].copy_from_slice(&right.to_be_bytes());
        }
        super::page_check::debug_check(data, pgno, usable);
        self.ptrmap_note_page(pgno)
    }
}

/// Debug builds: in a table tree, each new divider is at least every
/// rowid dealt to the page on its left and below every rowid of the page
/// on its right, when the pooled cells were in order (a damaged page's
/// may not be: reading it reports that).
#[cfg(debug_assertions)]
fn debug_divider_order(kind: PageKind, pool: &[&[u8]], bounds: &[usize], dividers: &[Vec<u8>], usable: u32) {
    if !kind.is_table() {
        return;
    }
    let rowid = |k: PageKind, c: &[u8]| cell::parse_unchecked(k, c, usable).map(|i| i.rowid).ok();
    let keys: Option<Vec<i64>> = pool.iter().map(|c| rowid(kind, c)).collect();
    let Some(keys) = keys else { return };
    let separated = kind != PageKind::TableLeaf;
    if keys.windows(2).any(|w| w[0] > w[1] || (!separated && w[0] == w[1])) {
        return;
    }
    let mut at = 0;
    for (j, &len) in bounds.iter().enumerate().take(dividers.len()) {
        let left = &keys[at..at + len];
        at += len + usize::from(separated);
        let Some(div) = rowid(PageKind::TableInterior, &dividers[j]) else { continue };
        // invariant: balance_divider_order
        debug_assert!(left.iter().all(|&k| k <= div) && keys.get(at).is_none_or(|&k| k > div || separated), "divider {div} out of order with its pages");
    }
}

/// `dst.copy_from_slice(src)` for the short cells of index pages without
/// a call to `memcpy` each: two overlapping 8- or 4-byte moves cover 4 to
/// 16 bytes (balancing copies every cell of three pages).
#[inline(always)]
fn copy_cell(dst: &mut [u8], src: &[u8]) {
    let n = src.len();
    if dst.len() != n {
        dst.copy_from_slice(src);
        return;
    }
    if (8..=16).contains(&n) {
        let head = u64::from_ne_bytes(src[..8].try_into().unwrap_or_default());
        let tail = u64::from_ne_bytes(src[n - 8..].try_into().unwrap_or_default());
        dst[..8].copy_from_slice(&head.to_ne_bytes());
        dst[n - 8..].copy_from_slice(&tail.to_ne_bytes());
    } else if (4..8).contains(&n) {
        let head = u32::from_ne_bytes(src[..4].try_into().unwrap_or_default());
        let tail = u32::from_ne_bytes(src[n - 4..].try_into().unwrap_or_default());
        dst[..4].copy_from_slice(&head.to_ne_bytes());
        dst[n - 4..].copy_from_slice(&tail.to_ne_bytes());
    } else {
        dst.copy_from_slice(src);
    }
}

/// The cells being dealt out, in key order (slices of the sibling
/// images, the new content and the dividers).
struct Pool<'a> {
    cells: Vec<&'a [u8]>,
}

impl<'a> Pool<'a> {
    fn with_capacity(n: usize) -> Pool<'a> {
        Pool { cells: Vec::with_capacity(n) }
    }

    fn push(&mut self, c: &'a [u8]) {
        self.cells.push(c);
    }

    /// Append cells `range` of a page, sized straight from the pointer
    /// array (the hot loop of balancing: every cell of three pages). A
    /// cell of an index page whose payload size is a one-byte varint and
    /// all local takes the short way; others are sized by
    /// [`cell::cell_size`].
    fn push_page_cells(&mut self, data: &'a [u8], h: &page::PageHeader, range: std::ops::Range<usize>, usable: u32) -> Result<()> {
        let usable_len = usable as usize;
        let page = data.get(..usable_len).ok_or_else(Error::corrupt)?;
        let ptr_base = h.offset + h.kind.header_size();
        let min = ptr_base + 2 * h.ncells;
        let ptrs = page.get(ptr_base + 2 * range.start..ptr_base + 2 * range.end).ok_or_else(Error::corrupt)?;
        let prefix = match h.kind {
            PageKind::IndexLeaf => 0,
            PageKind::IndexInterior => 4,
            _ => usize::MAX,
        };
        let max_local = cell::max_local(false, usable) as u8;
        // Slots filled in place: no capacity check per cell.
        let from = self.cells.len();
        self.cells.resize(from + ptrs.len() / 2, &[]);
        for (slot, p) in self.cells[from..].iter_mut().zip(ptrs.chunks_exact(2)) {
            let off = u16::from_be_bytes([p[0], p[1]]) as usize;
            if off < min {
                return Err(Error::corrupt());
            }
            let area = page.get(off..).ok_or_else(Error::corrupt)?;
            let size = match area.get(prefix) {
                Some(&b) if b < 0x80 && b <= max_local => prefix + 1 + b as usize,
                _ => cell::cell_size(h.kind, area, usable)?,
            };
            *slot = area.get(..size).ok_or_else(Error::corrupt)?;
        }
        Ok(())
    }
}

/// The new content of the page being balanced.
pub(super) enum NewContent<'a> {
    /// What the page holds now (an underfull page after a delete).
    Page,
    /// A whole new cell list.
    Node(Node),
    /// The page's cells with one more inserted at this index (an insert
    /// that does not fit).
    Insert(usize, &'a [u8]),
}

/// Deal these cells (each costing its bytes and its 2-byte pointer) out
/// over as few pages of `capacity` bytes as hold them, as evenly as
/// possible. With `separated`, one cell between consecutive pages becomes
/// their divider instead of staying on a page. Returns the number of
/// cells per page (a divider follows each page but the last).
///
/// The cells' costs are summed once into running totals (`pre[i]`: the
/// cost of cells `..i`), so the cost of any run is one subtraction and
/// each page boundary is found by binary search ([`try_split`]) instead
/// of walking every cell once per candidate page count.
///
/// `roomy: Some(most)` (a page overflowed): when the fewest pages would be
/// more than [`ROOMY_FILL`] full on average, one more page is used (up
/// to `most` pages). Dealt into the fewest pages, siblings that were
/// nearly full come out nearly full again, so random inserts (an index
/// on unordered keys) overflow one of them again after a few rows and
/// re-deal the same thousand cells: with the slack a balance happens five
/// times less often, for about 4% more pages.
fn distribute(cells: &[&[u8]], separated: bool, capacity: usize, roomy: Option<usize>) -> Result<Vec<usize>> {
    let n = cells.len();
    let mut pre: Vec<u32> = Vec::with_capacity(n + 1);
    pre.push(0);
    let mut running = 0u32;
    pre.extend(cells.iter().map(|c| {
        running += c.len() as u32 + 2;
        running
    }));
    let pre = &pre[..];
    let total = pre[n] as usize;
    let max_k = if separated { n.div_ceil(2).max(1) } else { n.max(1) };
    let mut k = total.div_ceil(capacity).max(1);
    if let Some(most) = roomy {
        // Pages at most ROOMY_FILL full, when one more page does it.
        let k_roomy = (total * ROOMY_FILL.1).div_ceil(capacity * ROOMY_FILL.0);
        if k_roomy > k && k_roomy <= most.min(max_k) {
            if let Some(bounds) = try_split(pre, separated, capacity, k_roomy) {
                return Ok(bounds);
            }
        }
    }
    while k <= max_k {
        if let Some(bounds) = try_split(pre, separated, capacity, k) {
            return Ok(bounds);
        }
        k += 1;
    }
    Err(Error::corrupt())
}

/// The fill (numerator, denominator) above which an overflow's deal takes
/// one more page (see [`distribute`]).
const ROOMY_FILL: (usize, usize) = (19, 20);

/// The first index in `lo..hi` where `pred` holds, `hi` if none; `pred`
/// must be false then true over the range (monotonic).
fn first_true(mut lo: usize, mut hi: usize, pred: impl Fn(usize) -> bool) -> usize {
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if pred(mid) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    lo
}

/// Chunk lengths for `k` pages, or `None` if this `k` does not work.
/// Each page but the last takes cells while they fit, while enough are
/// left for the pages after it, and until it reaches its even share of
/// what is left (a cell straddling the share goes where most of it
/// lies). Each of those stops is monotonic in the cell index, so each is
/// found by binary search over the running totals.
fn try_split(pre: &[u32], separated: bool, capacity: usize, k: usize) -> Option<Vec<usize>> {
    let n = pre.len() - 1;
    let at = |i: usize| pre[i] as usize;
    let mut bounds = Vec::with_capacity(k);
    let mut i = 0;
    let per_page_after = if separated { 2 } else { 1 };
    for j in 0..k {
        let pages_left = k - j;
        let remaining = at(n) - at(i);
        let target = remaining / pages_left;
        let start = i;
        let base = at(start);
        let used;
        if pages_left == 1 {
            used = remaining;
            i = n;
        } else {
            // Cells `..hi` leave enough for the pages after this one.
            let hi = n.saturating_sub((pages_left - 1) * per_page_after).max(start);
            let full = first_true(start, hi, |x| at(x + 1) - base > capacity);
            let past_share = first_true(start + 1, hi, |x| at(x) - base + (at(x + 1) - at(x)) / 2 > target);
            i = full.min(past_share).min(hi);
            used = at(i) - base;
        }
        if used > capacity || (i == start && n > 0) {
            return None;
        }
        bounds.push(i - start);
        if separated && pages_left > 1 {
            if i >= n {
                return None;
            }
            i += 1;
        }
    }
    (i == n).then_some(bounds)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The deal walked cell by cell (the definition `try_split` follows).
    fn try_split_walk(costs: &[usize], separated: bool, capacity: usize, k: usize) -> Option<Vec<usize>> {
        let n = costs.len();
        let mut bounds = Vec::new();
        let mut i = 0;
        let per_page_after = if separated { 2 } else { 1 };
        let mut remaining: usize = costs.iter().sum();
        for j in 0..k {
            let pages_left = k - j;
            let target = remaining / pages_left;
            let start = i;
            let mut used = 0;
            if pages_left == 1 {
                used = remaining;
                i = n;
            } else {
                while i < n {
                    let c = costs[i];
                    if used + c > capacity || n - i - 1 < (pages_left - 1) * per_page_after {
                        break;
                    }
                    if used > 0 && used + c / 2 > target {
                        break;
                    }
                    used += c;
                    i += 1;
                }
            }
            if used > capacity || (i == start && n > 0) {
                return None;
            }
            bounds.push(i - start);
            remaining -= used;
            if separated && pages_left > 1 {
                if i >= n {
                    return None;
                }
                remaining -= costs[i];
                i += 1;
            }
        }
        (i == n).then_some(bounds)
    }

    #[test]
    fn binary_search_deal_matches_the_walk() {
        let mut rng = 0x9e3779b97f4a7c15u64;
        let mut next = move |m: u64| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng % m
        };
        for round in 0..4000 {
            let n = next(60) as usize;
            let big = round % 3 == 0;
            let costs: Vec<usize> = (0..n).map(|_| 2 + if big { next(1500) } else { next(40) } as usize).collect();
            let mut pre = vec![0u32];
            for c in &costs {
                pre.push(pre[pre.len() - 1] + *c as u32);
            }
            for separated in [false, true] {
                for capacity in [100usize, 300, 1000, 4088] {
                    for k in 1..6 {
                        assert_eq!(
                            try_split(&pre, separated, capacity, k),
                            try_split_walk(&costs, separated, capacity, k),
                            "{costs:?} sep {separated} cap {capacity} k {k}"
                        );
                    }
                }
            }
        }
    }
}
