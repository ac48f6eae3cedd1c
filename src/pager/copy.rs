//! # Whole-page copies: what backup, VACUUM and deserialize need
//!
//! The B-tree writes pages cell by cell; copying a database instead writes
//! whole page images (`sqlite3_backup`, the copy-back step of VACUUM) and
//! sets the database's size, or replaces the whole file's content
//! (`sqlite3_deserialize`). This module adds those operations to the
//! pager, under its usual invariants:
//!
//! - [`Pager::put_page`] and [`Pager::truncate_to`] run inside a write
//!   transaction, and every page they overwrite or cut off that existed
//!   when the transaction began has its original kept first (journal and
//!   open savepoints), so a rollback or a crash restores the old database
//!   exactly, truncated pages included.
//! - [`Pager::replace_content`] bypasses transactions and is only allowed
//!   with no transaction open on a private in-memory database, where no
//!   other connection or journal can observe the change.
//! - Page images handed in must have the pager's page size; a copy between
//!   different page sizes is refused by the caller before anything is
//!   written.

use super::{header, Pager, PagerState};
use crate::error::{Error, Result, SQLITE_INTERNAL, SQLITE_MISUSE};
use crate::io::Buffer;
use crate::pager::Pgno;
use crate::{IoPoll, Poll};

impl Pager {
    /// Overwrite page `pgno` with `image` in the write transaction. `pgno`
    /// may lie anywhere up to one past the end, or further: the pages in
    /// between are created zero-filled (a backup writes them next).
    pub fn put_page(&mut self, pgno: Pgno, image: &[u8]) -> IoPoll<()> {
        if self.state != PagerState::Write {
            return Err(Error::new(SQLITE_INTERNAL, "page copied outside a write transaction"));
        }
        if image.len() != self.page_size as usize || pgno == 0 {
            return Err(Error::new(SQLITE_INTERNAL, "page image of the wrong size"));
        }
        crate::ready!(self.maybe_spill()?);
        if pgno <= self.db_size {
            crate::ready!(self.fetch(pgno)?);
            self.page_mut(pgno)?.copy_from_slice(image);
        } else {
            while self.db_size + 1 < pgno {
                let next = self.db_size + 1;
                self.page_new(next)?;
            }
            self.page_new(pgno)?.copy_from_slice(image);
        }
        self.cache.unpin_all();
        Ok(Poll::Ready(()))
    }

    /// Shrink the database to `n_pages` in the write transaction; commit
    /// truncates the file. Pages cut off that the transaction's rollback
    /// would need are read and kept as originals first (resumable: each
    /// call fetches what is missing and continues).
    pub fn truncate_to(&mut self, n_pages: Pgno) -> IoPoll<()> {
        if self.state != PagerState::Write {
            return Err(Error::new(SQLITE_INTERNAL, "database truncated outside a write transaction"));
        }
        if n_pages >= self.db_size {
            return Ok(Poll::Ready(()));
        }
        let limit = self.db_size.min(self.orig_db_size);
        for pgno in n_pages + 1..=limit {
            let needed = !self.originals.contains_key(&pgno) || self.savepoints.iter().any(|s| s.needs(pgno));
            if !needed {
                continue;
            }
            crate::ready!(self.fetch(pgno)?);
            let data = self.page(pgno)?.to_vec();
            self.keep_original(pgno, data)?;
        }
        self.cache.truncate(n_pages);
        self.db_size = n_pages;
        Ok(Poll::Ready(()))
    }

    /// Read the current image of page `pgno` (this transaction's view),
    /// fetching it if needed.
    pub fn read_page(&mut self, pgno: Pgno) -> IoPoll<Vec<u8>> {
        crate::ready!(self.fetch(pgno)?);
        Ok(Poll::Ready(self.page(pgno)?.to_vec()))
    }

    /// Replace the whole content of a private in-memory database with
    /// `image` (a database file's bytes). No transaction may be open; the
    /// cache is dropped and the next read transaction reads the new header.
    pub fn replace_content(&mut self, image: &[u8]) -> Result<()> {
        // (Not a shared one: other connections may be reading it.)
        if !self.opts.memory || self.opts.shared || self.state != PagerState::Idle {
            return Err(Error::code(SQLITE_MISUSE));
        }
        // (A deserialized database is a memdb file: its commits count.)
        self.counts_changes = true;
        let file = self.file.clone();
        let c = file.write(0, Buffer::from_vec(image.to_vec()))?;
        self.io.wait(&c)?;
        c.take()?;
        let c = file.truncate(image.len() as u64)?;
        self.io.wait(&c)?;
        c.take()?;
        self.invalidate_cache();
        self.last_change_counter = None;
        self.db_size = 0;
        Ok(())
    }
}

impl Pager {
    /// The page size VACUUM should rebuild the database with: the last one
    /// `PRAGMA page_size` asked for, when this database can change it (a
    /// file database not in WAL mode, as SQLite), else the current one.
    pub fn page_size_for_vacuum(&self) -> u32 {
        match self.requested_page_size {
            Some(n) if !self.opts.memory && self.wal.is_none() => n,
            _ => self.page_size,
        }
    }

    /// The reserved bytes per page VACUUM should rebuild the database
    /// with: the requested reserve where the page size may change too.
    pub fn reserve_for_vacuum(&self) -> u8 {
        if !self.opts.memory && self.wal.is_none() {
            self.requested_reserve()
        } else {
            self.reserved
        }
    }

    /// Replace the whole database, inside the write transaction, with
    /// `image`: a complete database whose page size differs from the
    /// current one. Page-by-page copies cannot do this, so the rollback
    /// journal is made of every old page at the old size (what a hot
    /// journal needs to bring the old file back) and synced before the
    /// file is rewritten; the transaction then ends as a commit would.
    /// Blocking; needs EXCLUSIVE (`SQLITE_BUSY` otherwise).
    pub fn replace_with_new_page_size(&mut self, image: &mut [u8]) -> Result<()> {
        if self.state != PagerState::Write || self.wal.is_some() || self.opts.memory {
            return Err(Error::new(SQLITE_INTERNAL, "page size change outside a rollback-journal write transaction"));
        }
        if image.len() < 512 {
            return Err(Error::corrupt());
        }
        let new_size = u32::from(u16::from_be_bytes([image[header::PAGE_SIZE], image[header::PAGE_SIZE + 1]]));
        let new_size = if new_size == 1 { 65536 } else { new_size };
        if !header::valid_page_size(new_size) || !image.len().is_multiple_of(new_size as usize) {
            return Err(Error::corrupt());
        }
        if !self.opts.immutable && !self.file.lock(crate::io::LockLevel::Exclusive)? {
            return Err(Error::code(crate::error::SQLITE_BUSY));
        }
        // Page 1 as the commit would stamp it.
        let counter = header::get_u32(&self.read_page_blocking(1)?, header::CHANGE_COUNTER).wrapping_add(1);
        header::put_u32(image, header::CHANGE_COUNTER, counter);
        header::put_u32(image, header::DB_SIZE, (image.len() / new_size as usize) as u32);
        header::put_u32(image, header::VERSION_VALID_FOR, counter);
        header::put_u32(image, header::SQLITE_VERSION, header::SQLITE_VERSION_NUMBER);
        if self.journal_mode.uses_file() {
            let mut old = Vec::with_capacity(self.orig_db_size as usize);
            for pgno in 1..=self.orig_db_size {
                old.push((pgno, self.read_page_blocking(pgno)?));
            }
            let recs: Vec<(Pgno, &[u8])> = old.iter().map(|(p, d)| (*p, d.as_slice())).collect();
            let bytes = super::journal::build(super::journal::new_nonce(), self.orig_db_size, self.page_size, self.sector_size(), &recs);
            let journal = self.journal_file(true)?;
            let len = bytes.len() as u64;
            self.finish(journal.write(0, Buffer::from_vec(bytes))?)?;
            if journal.size()? > len {
                self.finish(journal.truncate(len)?)?;
            }
            if self.synchronous > super::Synchronous::Off {
                self.finish(journal.sync(false)?)?;
            }
        }
        let file = self.file.clone();
        self.finish(file.write(0, Buffer::from_vec(image.to_vec()))?)?;
        self.finish(file.truncate(image.len() as u64)?)?;
        if self.synchronous > super::Synchronous::Off {
            self.finish(file.sync(false)?)?;
        }
        match self.journal_mode {
            super::JournalMode::Delete => {
                self.journal_handle = None;
                self.journal_kept = false;
                self.io.backend().delete(&self.journal_path, false)?
            }
            super::JournalMode::Truncate => {
                let c = self.journal_file(false)?.truncate(0)?;
                self.finish(c)?
            }
            super::JournalMode::Persist => {
                let c = self.journal_file(false)?.write(0, Buffer::zeroed(28))?;
                self.finish(c)?
            }
            _ => {}
        }
        self.page_size = new_size;
        self.reserved = image[header::RESERVED];
        self.invalidate_cache();
        self.apply_cache_size();
        self.db_size = (image.len() / new_size as usize) as Pgno;
        self.last_change_counter = Some(counter);
        self.requested_page_size = None;
        self.reserve_wanted = 0;
        self.finish_write_txn()
    }

    fn read_page_blocking(&mut self, pgno: Pgno) -> Result<Vec<u8>> {
        let io = self.io.clone();
        io.block_on(|| self.read_page(pgno))
    }

    /// Wait for one request and take its result.
    fn finish(&self, c: crate::io::Completion) -> Result<()> {
        self.io.wait(&c)?;
        c.take().map(|_| ())
    }
}
