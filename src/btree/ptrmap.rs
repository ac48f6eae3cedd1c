//! # The pointer map (auto_vacuum databases)
//!
//! In a database with `auto_vacuum` (header word 52 non-zero) page 2 and
//! every `usable/5 + 1`-th page after it are pointer-map pages: five bytes
//! per following page, a type and the page that points to it (the parent
//! b-tree page, the previous overflow page, or 0). They let the vacuum
//! move any page and fix the one reference to it (see [`super::vacuum`]).
//!
//! How the map is kept current: every reference to a page is written by
//! one of a few places, and each of them records the entry at that moment:
//! - writing a b-tree page ([`Btree::write_node`], an in-place cell insert)
//!   records each child as `BTREE` and each first overflow page as
//!   `OVERFLOW1`, both with this page as parent;
//! - building an overflow chain records each later page as `OVERFLOW2`;
//! - a new tree's root is `ROOTPAGE`, a freed page `FREEPAGE`.
//!
//! Invariant (auto_vacuum only): at the end of every B-tree operation each
//! page's entry names its type and its only referrer.

use super::cell::{self, get_u32};
use super::page::{self, PageKind};
use super::{Btree, Pgno};
use crate::error::{Error, Result};
use crate::pager::header::put_u32;

/// A tree's root page (parent 0).
pub const ROOTPAGE: u8 = 1;
/// A page on the freelist (parent 0).
pub const FREEPAGE: u8 = 2;
/// The first page of an overflow chain (parent: the b-tree page).
pub const OVERFLOW1: u8 = 3;
/// A later page of an overflow chain (parent: the previous page).
pub const OVERFLOW2: u8 = 4;
/// A non-root b-tree page (parent: the parent b-tree page).
pub const BTREE: u8 = 5;

/// Header offset of the largest root page word (non-zero: auto_vacuum).
pub const LARGEST_ROOT: usize = 52;
/// Header offset of the incremental-vacuum flag.
pub const INCREMENTAL: usize = 64;

impl Btree {
    /// Whether the database has a pointer map.
    pub(super) fn autovacuum(&self) -> Result<bool> {
        Ok(get_u32(self.pager.page(1)?, LARGEST_ROOT)? != 0)
    }

    /// Whether vacuuming waits for `PRAGMA incremental_vacuum`.
    pub(super) fn incremental(&self) -> Result<bool> {
        Ok(get_u32(self.pager.page(1)?, INCREMENTAL)? != 0)
    }

    /// Entries per pointer-map page.
    fn ptrmap_entries(&self) -> u32 {
        self.usable() / 5
    }

    /// The pointer-map page holding `pgno`'s entry (`pgno` itself if it is
    /// a pointer-map page).
    pub(super) fn ptrmap_page_of(&self, pgno: Pgno) -> Pgno {
        if pgno < 2 {
            return 0;
        }
        let span = self.ptrmap_entries() + 1;
        let mut p = (pgno - 2) / span * span + 2;
        if p == self.pager.pending_byte_page() {
            p += 1;
        }
        p
    }

    /// Whether `pgno` is a pointer-map page.
    pub(super) fn is_ptrmap_page(&self, pgno: Pgno) -> bool {
        pgno >= 2 && self.ptrmap_page_of(pgno) == pgno
    }

    /// Whether `pgno` can never hold content (pointer map, PENDING byte).
    pub(super) fn is_special_page(&self, pgno: Pgno) -> bool {
        pgno == self.pager.pending_byte_page() || self.is_ptrmap_page(pgno)
    }

    fn ptrmap_slot(&self, pgno: Pgno) -> Result<(Pgno, usize)> {
        let map = self.ptrmap_page_of(pgno);
        if map == 0 || pgno <= map || map > self.pager.db_size() {
            return Err(Error::corrupt());
        }
        let off = 5 * (pgno - map - 1) as usize;
        if off + 5 > self.usable() as usize {
            return Err(Error::corrupt());
        }
        Ok((map, off))
    }

    /// `pgno`'s entry: type and parent.
    pub(super) fn ptrmap_get(&self, pgno: Pgno) -> Result<(u8, Pgno)> {
        let (map, off) = self.ptrmap_slot(pgno)?;
        let d = self.pager.page(map)?;
        Ok((d[off], get_u32(d, off + 1)?))
    }

    /// Record `pgno`'s entry (a no-op without auto_vacuum, and when the
    /// entry is already right, so that unchanged map pages are not
    /// journaled).
    pub(super) fn ptrmap_put(&mut self, pgno: Pgno, kind: u8, parent: Pgno) -> Result<()> {
        if !self.autovacuum()? {
            return Ok(());
        }
        let (map, off) = self.ptrmap_slot(pgno)?;
        let d = self.pager.page(map)?;
        if d[off] == kind && get_u32(d, off + 1)? == parent {
            return Ok(());
        }
        let d = self.pager.page_mut(map)?;
        d[off] = kind;
        put_u32(d, off + 1, parent);
        Ok(())
    }

    /// Record the entries of everything b-tree page `pgno` points to: its
    /// children and the overflow chains of its cells.
    pub(super) fn ptrmap_note_page(&mut self, pgno: Pgno) -> Result<()> {
        if !self.autovacuum()? {
            return Ok(());
        }
        let usable = self.usable();
        let data = self.pager.page(pgno)?;
        let h = page::header(data, pgno)?;
        let mut refs = Vec::new();
        for i in 0..h.ncells {
            let (_, info) = page::cell(data, &h, i, usable)?;
            if !h.kind.is_leaf() {
                refs.push((info.left_child, BTREE));
            }
            if info.overflow != 0 {
                refs.push((info.overflow, OVERFLOW1));
            }
        }
        if !h.kind.is_leaf() {
            refs.push((h.right, BTREE));
        }
        for (child, kind) in refs {
            self.ptrmap_put(child, kind, pgno)?;
        }
        Ok(())
    }

    /// Record the overflow entry of one cell just placed on page `pgno`.
    pub(super) fn ptrmap_note_cell(&mut self, pgno: Pgno, kind: PageKind, cell_bytes: &[u8]) -> Result<()> {
        if !self.autovacuum()? {
            return Ok(());
        }
        let info = cell::parse(kind, cell_bytes, self.usable())?;
        if info.overflow != 0 {
            self.ptrmap_put(info.overflow, OVERFLOW1, pgno)?;
        }
        Ok(())
    }
}
