//! # The freelist
//!
//! Unused pages are kept in a linked list of trunk pages (next trunk,
//! leaf count, leaf page numbers) rooted in the database header: first
//! trunk at offset 32, total free pages at offset 36. Allocation takes a
//! free page before growing the file; freeing appends to the first trunk,
//! or makes the freed page the new first trunk when that one is full.
//!
//! Invariants: the header count equals trunks plus leaves; a trunk holds at
//! most usable/4 - 8 leaves (the limit SQLite keeps for compatibility with old
//! readers) (checked: freelist_trunk_limit); a reused free page is journaled
//! like any other page (it may have been a live page at the start of the
//! transaction); a page freed as a leaf keeps its bytes and is not written at
//! commit (`Pager::dont_write`), a new trunk only gets its first 8 bytes set,
//! as in SQLite's files.

use super::cell::get_u32;
use super::{Btree, Pgno};
use crate::error::{Error, Result};
use crate::pager::header::{put_u32, DB_SIZE, FREELIST_COUNT, FREELIST_TRUNK};

impl Btree {
    /// A page for new content: from the freelist, else one past the end.
    /// The page is zero-filled, writable and pinned.
    pub(super) fn allocate_page(&mut self) -> Result<Pgno> {
        let p1 = self.pager.page(1)?;
        let trunk = get_u32(p1, FREELIST_TRUNK)?;
        let count = get_u32(p1, FREELIST_COUNT)?;
        let db_size = self.pager.db_size();
        if count > 0 && trunk != 0 {
            if trunk > db_size {
                return Err(Error::corrupt());
            }
            let t = self.pager.page(trunk)?;
            let n_leaves = get_u32(t, 4)?;
            if n_leaves as usize > self.usable() as usize / 4 - 2 {
                return Err(Error::corrupt());
            }
            let pgno = if n_leaves > 0 {
                let leaf = get_u32(t, 8 + 4 * (n_leaves as usize - 1))?;
                if leaf < 2 || leaf > db_size {
                    return Err(Error::corrupt());
                }
                // Journal the leaf like any page: it may have been live when
                // the transaction began.
                self.pager.page(leaf)?;
                put_u32(self.pager.page_mut(trunk)?, 4, n_leaves - 1);
                leaf
            } else {
                let next = get_u32(t, 0)?;
                put_u32(self.pager.page_mut(1)?, FREELIST_TRUNK, next);
                trunk
            };
            put_u32(self.pager.page_mut(1)?, FREELIST_COUNT, count - 1);
            self.pager.page_mut(pgno)?.fill(0);
            self.pager.pin(pgno);
            return Ok(pgno);
        }
        self.grow()
    }

    /// A new page past the end of the database. The PENDING byte page is
    /// skipped; pointer-map pages met on the way are created (zeroed).
    pub(super) fn grow(&mut self) -> Result<Pgno> {
        let autovacuum = self.autovacuum()?;
        // Page 1 records the new size, so it changes (and is journaled)
        // here, before the new page exists, as SQLite's allocateBtreePage
        // writes it: an application VFS sees page 1's journal record at
        // this point of the journal, not at the commit's end.
        self.pager.page_mut(1)?;
        loop {
            let pgno = self.pager.db_size() + 1;
            if pgno == self.pager.pending_byte_page() {
                self.pager.skip_page()?;
            } else if autovacuum && self.is_ptrmap_page(pgno) {
                self.pager.page_new(pgno)?;
            } else {
                self.pager.page_new(pgno)?;
                let size = self.pager.db_size();
                put_u32(self.pager.page_mut(1)?, DB_SIZE, size);
                return Ok(pgno);
            }
        }
    }

    /// Every free page: trunks and leaves, in list order.
    pub(super) fn free_pages(&self) -> Result<Vec<Pgno>> {
        let p1 = self.pager.page(1)?;
        let mut trunk = get_u32(p1, FREELIST_TRUNK)?;
        let count = get_u32(p1, FREELIST_COUNT)?;
        let db_size = self.pager.db_size();
        let mut out = Vec::with_capacity(count as usize);
        while trunk != 0 {
            if trunk > db_size || out.len() as u32 >= count {
                return Err(Error::corrupt());
            }
            out.push(trunk);
            let t = self.pager.page(trunk)?;
            let n = get_u32(t, 4)?;
            if n as usize > self.usable() as usize / 4 - 2 {
                return Err(Error::corrupt());
            }
            for i in 0..n as usize {
                let leaf = get_u32(t, 8 + 4 * i)?;
                if leaf < 2 || leaf > db_size {
                    return Err(Error::corrupt());
                }
                out.push(leaf);
            }
            trunk = get_u32(t, 0)?;
        }
        if out.len() as u32 != count {
            return Err(Error::corrupt());
        }
        Ok(out)
    }

    /// Empty the freelist and put `pages` back on it (the way to take
    /// particular pages off it).
    pub(super) fn rebuild_freelist(&mut self, pages: &[Pgno]) -> Result<()> {
        let p1 = self.pager.page_mut(1)?;
        put_u32(p1, FREELIST_TRUNK, 0);
        put_u32(p1, FREELIST_COUNT, 0);
        for &p in pages {
            self.free_page(p)?;
        }
        Ok(())
    }

    /// Put page `pgno` on the freelist, in the steps and order of
    /// SQLite's freePage2 (secure_delete off): page 1's count first, the
    /// pointer map, then either a leaf entry on the first trunk (the page
    /// itself is then not written at commit: [`Pager::dont_write`]) or the
    /// page as the new first trunk (only its first 8 bytes set; the rest
    /// keeps what it held, as in SQLite's files).
    ///
    /// [`Pager::dont_write`]: crate::pager::Pager::dont_write
    pub(super) fn free_page(&mut self, pgno: Pgno) -> Result<()> {
        if pgno < 2 || pgno > self.pager.db_size() {
            return Err(Error::corrupt());
        }
        let p1 = self.pager.page(1)?;
        let trunk = get_u32(p1, FREELIST_TRUNK)?;
        let count = get_u32(p1, FREELIST_COUNT)?;
        // The first trunk's leaf count (read before anything changes: an
        // absent trunk page restarts the operation with nothing done).
        let n = if trunk != 0 { get_u32(self.pager.page(trunk)?, 4)? as usize } else { 0 };
        // A trunk fuller than any writer makes it is damage, as SQLite's
        // freePage2 reports it.
        // invariant: freelist_trunk_limit
        if n > self.usable() as usize / 4 - 2 {
            return Err(Error::corrupt());
        }
        put_u32(self.pager.page_mut(1)?, FREELIST_COUNT, count + 1);
        self.ptrmap_put(pgno, super::ptrmap::FREEPAGE, 0)?;
        if trunk != 0 && n < self.usable() as usize / 4 - 8 {
            let t = self.pager.page_mut(trunk)?;
            put_u32(t, 8 + 4 * n, pgno);
            put_u32(t, 4, n as u32 + 1);
            self.pager.dont_write(pgno);
            return Ok(());
        }
        let page = self.pager.page_mut(pgno)?;
        put_u32(page, 0, trunk);
        put_u32(page, 4, 0);
        put_u32(self.pager.page_mut(1)?, FREELIST_TRUNK, pgno);
        Ok(())
    }
}
