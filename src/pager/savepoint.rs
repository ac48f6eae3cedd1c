//! # Savepoints and the statement journal
//!
//! A savepoint remembers the database size and, for each page modified
//! after it opened, the page's image at that moment. Rolling back to it
//! puts those images back and forgets pages past its size. The statement
//! journal of SQLite is the same mechanism: the VM opens a savepoint
//! around each writing statement, so a failed statement undoes only its
//! own changes. Kept in memory; nothing here is written to disk.
//!
//! Invariant: an image is recorded before the page's first modification
//! after the savepoint opened, for every open savepoint.

use super::{Pager, PagerState};
use crate::error::{Error, Result, SQLITE_INTERNAL};
use crate::pager::Pgno;

/// One open savepoint.
#[derive(Debug, Default)]
pub struct Savepoint {
    db_size: Pgno,
    images: super::cache::PgnoMap<Vec<u8>>,
}

impl Savepoint {
    /// Whether `pgno` still needs an image recorded.
    pub fn needs(&self, pgno: Pgno) -> bool {
        pgno <= self.db_size && !self.images.contains_key(&pgno)
    }

    /// Record `data` as `pgno`'s image unless one is recorded already.
    pub fn keep_original(&mut self, pgno: Pgno, data: &[u8]) {
        if self.needs(pgno) {
            self.images.insert(pgno, data.to_vec());
        }
    }

    /// [`Savepoint::keep_original`] with an image the caller copied.
    pub fn keep_image(&mut self, pgno: Pgno, data: Vec<u8>) {
        if self.needs(pgno) {
            self.images.insert(pgno, data);
        }
    }
}

impl Pager {
    fn require_write_txn(&self) -> Result<()> {
        if self.state != PagerState::Write {
            return Err(Error::new(SQLITE_INTERNAL, "savepoint outside a write transaction"));
        }
        Ok(())
    }

    /// Open savepoint `index` (nesting depth); deeper ones are released.
    pub fn savepoint_open(&mut self, index: usize) -> Result<()> {
        self.require_write_txn()?;
        self.savepoints.truncate(index);
        while self.savepoints.len() <= index {
            self.savepoints.push(Savepoint { db_size: self.db_size, images: super::cache::PgnoMap::default() });
        }
        Ok(())
    }

    /// Release savepoint `index` and deeper ones, keeping their changes.
    pub fn savepoint_release(&mut self, index: usize) -> Result<()> {
        self.savepoints.truncate(index);
        Ok(())
    }

    /// Undo every change since savepoint `index` opened; it stays open.
    pub fn savepoint_rollback(&mut self, index: usize) -> Result<()> {
        self.require_write_txn()?;
        if index >= self.savepoints.len() {
            return Err(Error::new(SQLITE_INTERNAL, "no such savepoint"));
        }
        self.savepoints.truncate(index + 1);
        let sp = std::mem::take(&mut self.savepoints[index]);
        for (pgno, image) in sp.images {
            // The page may have been evicted only if it was clean, which a
            // page with an image never is; install the image either way.
            self.install(pgno, image, true);
        }
        self.cache.truncate(sp.db_size);
        self.db_size = sp.db_size;
        self.savepoints[index] = Savepoint { db_size: sp.db_size, images: super::cache::PgnoMap::default() };
        Ok(())
    }

    /// Number of open savepoints.
    pub fn savepoint_depth(&self) -> usize {
        self.savepoints.len()
    }
}
