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

use super::{Pager, PagerState};
use crate::btree::Pgno;
use crate::error::{Error, Result, SQLITE_INTERNAL, SQLITE_MISUSE};
use crate::io::Buffer;
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
            self.keep_original(pgno, &data);
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
        if !self.opts.memory || self.state != PagerState::Idle {
            return Err(Error::code(SQLITE_MISUSE));
        }
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
