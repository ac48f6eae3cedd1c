//! # Auto-vacuum: moving pages, shrinking the file
//!
//! With `auto_vacuum=FULL` every commit leaves no free page: the pages in
//! use beyond the final size are moved into the free pages below it and
//! the file is truncated. With `auto_vacuum=INCREMENTAL` free pages wait
//! for `PRAGMA incremental_vacuum(N)`, which does the same for N of them.
//! Moving a page means copying it and fixing the one reference to it (its
//! pointer-map entry names the referrer, see [`super::ptrmap`]) and the
//! entries of the pages it references.
//!
//! Root pages never move during a vacuum (the schema names them): a new
//! tree's root is placed right after the largest root (whatever lives
//! there is moved out first) and dropping a tree moves the largest root
//! into the hole (the caller updates the schema row).
//!
//! Invariants: the final size is the smallest that holds every page in
//! use plus the free pages kept, with the pointer-map and PENDING byte
//! pages it needs; every page cut off is journaled before the cut
//! (checked: vacuum_final_size, truncate_journaled).

use super::cell::get_u32;
use super::page::{self, Node, PageKind};
use super::ptrmap::{BTREE, FREEPAGE, LARGEST_ROOT, OVERFLOW1, OVERFLOW2, ROOTPAGE};
use super::{Btree, Pgno};
use crate::error::{Error, Result};
use crate::pager::header::put_u32;

impl Btree {
    /// Pages that can hold content among `1..=n`.
    fn content_pages_upto(&self, n: Pgno) -> u64 {
        (1..=n).filter(|&p| !self.is_special_page(p)).count() as u64
    }

    /// Move page `from` (of pointer-map type `kind`, referenced by
    /// `parent`) to the unused page `to`.
    pub(super) fn relocate(&mut self, from: Pgno, to: Pgno, kind: u8, parent: Pgno) -> Result<()> {
        let data = self.pager.page(from)?.to_vec();
        self.pager.page_mut(to)?.copy_from_slice(&data);
        match kind {
            ROOTPAGE | BTREE => self.ptrmap_note_page(to)?,
            OVERFLOW1 | OVERFLOW2 => {
                let next = get_u32(&data, 0)?;
                if next != 0 {
                    self.ptrmap_put(next, OVERFLOW2, to)?;
                }
            }
            _ => return Err(Error::corrupt()),
        }
        match kind {
            BTREE => self.repoint_child(parent, from, to)?,
            OVERFLOW1 => self.repoint_overflow(parent, from, to)?,
            OVERFLOW2 => {
                let d = self.pager.page(parent)?;
                if get_u32(d, 0)? != from {
                    return Err(Error::corrupt());
                }
                put_u32(self.pager.page_mut(parent)?, 0, to);
            }
            _ => {}
        }
        self.ptrmap_put(to, kind, parent)
    }

    /// In b-tree page `parent`, replace child pointer `from` by `to`.
    fn repoint_child(&mut self, parent: Pgno, from: Pgno, to: Pgno) -> Result<()> {
        let usable = self.usable();
        let data = self.pager.page(parent)?;
        let h = page::header(data, parent)?;
        if h.kind.is_leaf() {
            return Err(Error::corrupt());
        }
        let at = if h.right == from {
            h.offset + 8
        } else {
            let mut found = None;
            for i in 0..h.ncells {
                let off = page::cell_offset(data, &h, i, usable)?;
                if get_u32(data, off)? == from {
                    found = Some(off);
                    break;
                }
            }
            found.ok_or_else(Error::corrupt)?
        };
        put_u32(self.pager.page_mut(parent)?, at, to);
        Ok(())
    }

    /// In b-tree page `parent`, replace the overflow pointer `from` of one
    /// of its cells by `to`.
    fn repoint_overflow(&mut self, parent: Pgno, from: Pgno, to: Pgno) -> Result<()> {
        let usable = self.usable();
        let data = self.pager.page(parent)?;
        let h = page::header(data, parent)?;
        let mut at = None;
        for i in 0..h.ncells {
            let off = page::cell_offset(data, &h, i, usable)?;
            let (_, info) = page::cell(data, &h, i, usable)?;
            if info.overflow == from {
                at = Some(off + info.payload_offset + info.local);
                break;
            }
        }
        let at = at.ok_or_else(Error::corrupt)?;
        put_u32(self.pager.page_mut(parent)?, at, to);
        Ok(())
    }

    /// Take up to `limit` free pages (all with `None`) out of the file:
    /// pages in use past the new end move into free pages below it.
    /// Every page past the new end must be in cache (see
    /// [`Btree::vacuum_plan`]).
    pub(super) fn vacuum_free(&mut self, limit: Option<u32>) -> Result<()> {
        let free = self.free_pages()?;
        let remove = limit.map_or(free.len(), |l| (l as usize).min(free.len())) as u64;
        if remove == 0 {
            return Ok(());
        }
        let end = self.vacuum_end(free.len() as u64, remove)?;
        let is_free: std::collections::HashSet<Pgno> = free.iter().copied().collect();
        let mut holes: Vec<Pgno> = free.iter().copied().filter(|&p| p <= end).collect();
        holes.sort_unstable();
        let db_size = self.pager.db_size();
        let sources: Vec<Pgno> = (end + 1..=db_size).rev().filter(|&p| !self.is_special_page(p) && !is_free.contains(&p)).collect();
        if sources.len() > holes.len() {
            return Err(Error::corrupt());
        }
        // Journal everything that will be cut off.
        for p in end + 1..=db_size {
            if p != self.pager.pending_byte_page() {
                self.pager.page_mut(p)?;
            }
        }
        let mut holes = holes.into_iter();
        let mut kept_free = Vec::new();
        let p1 = self.pager.page_mut(1)?;
        put_u32(p1, crate::pager::header::FREELIST_TRUNK, 0);
        put_u32(p1, crate::pager::header::FREELIST_COUNT, 0);
        for src in sources {
            let (kind, parent) = self.ptrmap_get(src)?;
            if kind == ROOTPAGE || kind == FREEPAGE {
                return Err(Error::corrupt());
            }
            let dst = holes.next().ok_or_else(Error::corrupt)?;
            self.relocate(src, dst, kind, parent)?;
        }
        kept_free.extend(holes);
        for p in kept_free {
            self.free_page(p)?;
        }
        self.pager.truncate_image(end)
    }

    /// The database size after removing `remove` of the `nfree` free
    /// pages: the smallest that holds the pages that stay.
    fn vacuum_end(&self, nfree: u64, remove: u64) -> Result<Pgno> {
        let db_size = self.pager.db_size();
        let content = self.content_pages_upto(db_size);
        if nfree >= content {
            return Err(Error::corrupt());
        }
        let keep = content - remove;
        let mut n = db_size;
        let mut have = self.content_pages_upto(n);
        while n > 1 {
            let below = if self.is_special_page(n) { have } else { have - 1 };
            if below < keep {
                break;
            }
            have = below;
            n -= 1;
        }
        // invariant: vacuum_final_size
        debug_assert!(
            self.content_pages_upto(n) >= keep && (n == 1 || self.content_pages_upto(n - 1) < keep),
            "vacuum end {n} is not the smallest size holding {keep} pages"
        );
        Ok(n)
    }

    /// Pages a vacuum of `limit` free pages needs in cache (everything past
    /// the new end), so that the caller can fetch them resumably first.
    pub(super) fn vacuum_plan(&self, limit: Option<u32>) -> Result<Vec<Pgno>> {
        let p1 = self.pager.page(1)?;
        let nfree = get_u32(p1, crate::pager::header::FREELIST_COUNT)? as u64;
        let remove = limit.map_or(nfree, |l| (l as u64).min(nfree));
        if remove == 0 {
            return Ok(Vec::new());
        }
        let end = self.vacuum_end(nfree, remove)?;
        let pending = self.pager.pending_byte_page();
        Ok((end + 1..=self.pager.db_size()).filter(|&p| p != pending).collect())
    }

    /// Rewrite the `sqlite_schema` rows whose root page is `from` to say
    /// `to`, so that the schema is right whatever layer drops the tree.
    fn repoint_schema_root(&mut self, from: Pgno, to: Pgno) -> Result<()> {
        use crate::value::record::{encode_record_refs, Record};
        use crate::value::ValueRef;
        let mut rows = Vec::new();
        self.collect_rows(1, 0, &mut rows)?;
        for (rowid, payload) in rows {
            let values = Record::parse(&payload).and_then(|r| r.values())?;
            if !matches!(values.get(3), Some(ValueRef::Integer(r)) if *r == from as i64) {
                continue;
            }
            let mut values = values;
            values[3] = ValueRef::Integer(to as i64);
            let rec = encode_record_refs(&values);
            self.insert_entry(1, &super::cursor::Probe::Rowid(rowid), None, PageKind::TableLeaf, rowid, rec[..].into())?;
        }
        Ok(())
    }

    /// Every (rowid, payload) of the table tree under `pgno`.
    fn collect_rows(&self, pgno: Pgno, depth: usize, out: &mut Vec<(i64, Vec<u8>)>) -> Result<()> {
        if depth > super::cursor::MAX_DEPTH {
            return Err(Error::corrupt());
        }
        let usable = self.usable();
        let data = self.pager.page(pgno)?;
        let h = page::header(data, pgno)?;
        if !h.kind.is_table() {
            return Err(Error::corrupt());
        }
        let mut children = Vec::new();
        for i in 0..h.ncells {
            let (bytes, info) = page::cell(data, &h, i, usable)?;
            if h.kind.is_leaf() {
                out.push((info.rowid, self.full_payload(bytes, &info)?));
            } else {
                children.push(info.left_child);
            }
        }
        if !h.kind.is_leaf() {
            children.push(h.right);
        }
        for c in children {
            self.collect_rows(c, depth + 1, out)?;
        }
        Ok(())
    }

    /// Create a tree's root right after the largest root page, moving out
    /// whatever is there.
    pub(super) fn create_root_autovacuum(&mut self, kind: PageKind) -> Result<Pgno> {
        let largest = get_u32(self.pager.page(1)?, LARGEST_ROOT)?;
        if largest > self.pager.db_size() {
            return Err(Error::corrupt());
        }
        let mut root = largest + 1;
        while self.is_special_page(root) {
            root += 1;
        }
        if root > self.pager.db_size() {
            while self.pager.db_size() < root {
                let p = self.grow()?;
                if p != root {
                    self.free_page(p)?;
                }
            }
            // Pages grown on the way were freed above; take `root` itself.
        } else {
            let free = self.free_pages()?;
            if free.contains(&root) {
                let rest: Vec<Pgno> = free.into_iter().filter(|&p| p != root).collect();
                self.rebuild_freelist(&rest)?;
            } else {
                let (k, parent) = self.ptrmap_get(root)?;
                if k == ROOTPAGE || k == FREEPAGE {
                    return Err(Error::corrupt());
                }
                let dst = self.allocate_page()?;
                self.relocate(root, dst, k, parent)?;
            }
        }
        self.pager.page_mut(root)?.fill(0);
        self.pager.pin(root);
        self.write_node(root, &Node { kind, cells: Vec::new(), right: 0 })?;
        self.ptrmap_put(root, ROOTPAGE, 0)?;
        put_u32(self.pager.page_mut(1)?, LARGEST_ROOT, root);
        Ok(root)
    }

    /// After a tree's pages were freed: keep the roots packed by moving the
    /// largest root into `root`'s place. Returns the page number the moved
    /// root had.
    pub(super) fn fill_root_hole(&mut self, root: Pgno) -> Result<Option<Pgno>> {
        let largest = get_u32(self.pager.page(1)?, LARGEST_ROOT)?;
        if largest > self.pager.db_size() {
            return Err(Error::corrupt());
        }
        let moved = if root == largest {
            None
        } else if root < largest {
            let free = self.free_pages()?;
            let rest: Vec<Pgno> = free.into_iter().filter(|&p| p != root).collect();
            self.rebuild_freelist(&rest)?;
            self.relocate(largest, root, ROOTPAGE, 0)?;
            self.free_page(largest)?;
            self.repoint_schema_root(largest, root)?;
            Some(largest)
        } else {
            return Err(Error::corrupt());
        };
        let mut new_largest = largest - 1;
        while new_largest > 1 && self.is_special_page(new_largest) {
            new_largest -= 1;
        }
        put_u32(self.pager.page_mut(1)?, LARGEST_ROOT, new_largest.max(1));
        Ok(moved)
    }
}
