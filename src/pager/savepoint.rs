//! # Savepoints and the statement journal
//!
//! A savepoint remembers the database size and, for each page modified
//! after it opened, the page's image at that moment. Rolling back to it
//! puts those images back and forgets pages past its size. The statement
//! journal of SQLite is the same mechanism: the VM opens a savepoint
//! around each writing statement, so a failed statement undoes only its
//! own changes. Images are kept in memory, or, on a backend that spills
//! statement journals, those SQLite would put in its statement journal
//! go there ([`super::subjournal`]).
//!
//! Invariant: an image is recorded before the page's first modification
//! after the savepoint opened, for every open savepoint (checked:
//! savepoint_images).

use super::subjournal::Kept;
use super::{Pager, PagerState};
use crate::error::{Error, Result, SQLITE_INTERNAL};
use crate::pager::Pgno;

/// One open savepoint.
#[derive(Debug, Default)]
pub struct Savepoint {
    db_size: Pgno,
    images: super::cache::PgnoMap<Kept>,
    /// The statement journal's end when it opened.
    sub_start: u64,
    /// Releasing it forgets the statement-journal records written since
    /// it opened (none of them is needed by a savepoint outside it).
    pub(super) truncate_on_release: bool,
}

impl Savepoint {
    /// Whether `pgno` still needs an image recorded.
    #[inline]
    pub fn needs(&self, pgno: Pgno) -> bool {
        pgno <= self.db_size && !self.images.contains_key(&pgno)
    }

    /// Record `data` as `pgno`'s image unless one is recorded already.
    pub fn keep_original(&mut self, pgno: Pgno, data: &[u8]) {
        if self.needs(pgno) {
            self.images.insert(pgno, Kept::Mem(data.to_vec()));
        }
    }

    /// [`Savepoint::keep_original`] with an image the caller copied.
    pub fn keep_image(&mut self, pgno: Pgno, data: Vec<u8>) {
        if self.needs(pgno) {
            self.images.insert(pgno, Kept::Mem(data));
        }
    }

    /// Record that `pgno`'s image is the statement-journal record at `at`
    /// unless one is recorded already.
    pub fn keep_record(&mut self, pgno: Pgno, at: u64) {
        if self.needs(pgno) {
            self.images.insert(pgno, Kept::Sub(at));
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
        if self.savepoints.is_empty() {
            self.subjournal.cut(0);
        }
        while self.savepoints.len() <= index {
            let sub_start = self.subjournal.end();
            self.savepoints.push(Savepoint { db_size: self.db_size, images: super::cache::PgnoMap::default(), sub_start, truncate_on_release: true });
        }
        Ok(())
    }

    /// Release savepoint `index` and deeper ones, keeping their changes.
    pub fn savepoint_release(&mut self, index: usize) -> Result<()> {
        if let Some(sp) = self.savepoints.get(index) {
            if sp.truncate_on_release {
                self.subjournal.cut(sp.sub_start);
            }
        }
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
        for (pgno, kept) in sp.images {
            let image = self.kept_image(pgno, kept)?;
            // The page may have been evicted only if it was clean, which a
            // page with an image never is; install the image either way.
            self.install(pgno, image, true);
        }
        self.cache.truncate(sp.db_size);
        self.db_size = sp.db_size;
        self.savepoints[index] = Savepoint { images: super::cache::PgnoMap::default(), ..sp };
        Ok(())
    }

    /// Number of open savepoints.
    pub fn savepoint_depth(&self) -> usize {
        self.savepoints.len()
    }
}
