//! `PRAGMA locking_mode`: NORMAL releases the database file's lock at the
//! end of every transaction; EXCLUSIVE keeps whatever lock a transaction
//! took (SHARED after reading, EXCLUSIVE once a commit wrote the file)
//! until the mode is set back to NORMAL and the next transaction ends, so
//! other connections cannot write (or, after a write, read) meanwhile.
//!
//! Private in-memory and temporary databases are always exclusive; a
//! named shared one (`io::shared_memory`) locks as a file does.
//!
//! A DELETE-mode journal is not deleted by a commit in exclusive mode: its
//! header is zeroed (as in PERSIST mode) and it stays until the lock is
//! released (the end of a transaction in NORMAL mode) or the connection
//! closes, as SQLite keeps it.
//!
//! WAL mode (`wal.txt` §8): a WAL opened while EXCLUSIVE keeps its index
//! in heap memory (no `-shm` file, no xShm call: a VFS without shared
//! memory can use WAL that way), takes EXCLUSIVE on the database file at
//! once, and stays exclusive until the database leaves WAL mode (NORMAL
//! is then a no-op). A WAL opened in NORMAL mode uses shared memory; the
//! mode then changes freely: EXCLUSIVE takes the file's EXCLUSIVE lock at
//! the next write transaction (the WAL then stops taking shm locks), and
//! NORMAL gives it back at the end of the next transaction.

use super::Pager;
use crate::error::{Error, Result, SQLITE_BUSY, SQLITE_CANTOPEN};
use crate::io::LockLevel;

impl Pager {
    /// Whether the locks are kept between transactions.
    pub fn exclusive_mode(&self) -> bool {
        self.exclusive_mode || self.opts.memory && !self.opts.shared
    }

    /// Whether transactions take the database file's lock: not for an
    /// immutable file, nor for a private in-memory database no other
    /// connection can open (a shared one is locked like a file).
    pub(super) fn locks_file(&self) -> bool {
        !self.opts.immutable && (!self.opts.memory || self.opts.shared)
    }

    /// Set the locking mode (`None` only asks); in-memory databases stay
    /// exclusive. Returns the resulting mode (true: EXCLUSIVE).
    pub fn set_locking_mode(&mut self, exclusive: Option<bool>) -> Result<bool> {
        if let Some(on) = exclusive {
            // A WAL index in heap memory pins EXCLUSIVE (`wal.txt` §8).
            if !self.wal.as_ref().is_some_and(|w| w.heap_memory()) {
                self.exclusive_mode = on;
            }
        }
        Ok(self.exclusive_mode())
    }

    /// Before opening the WAL: whether its index goes in heap memory
    /// (exclusive mode, after taking EXCLUSIVE on the database file).
    /// Without exclusive mode the file must offer shared memory, else
    /// the database cannot be opened, as in SQLite.
    pub(super) fn wal_heap_index(&mut self) -> Result<bool> {
        if self.exclusive_mode && !self.opts.memory {
            if self.locks_file() && !self.file.lock(LockLevel::Exclusive)? {
                // Not even PENDING may stay behind (others could not read).
                self.file.unlock(LockLevel::Shared)?;
                return Err(Error::code(SQLITE_BUSY));
            }
            return Ok(true);
        }
        if !self.file.has_shared_memory() {
            return Err(Error::code(SQLITE_CANTOPEN));
        }
        Ok(false)
    }

    /// At a WAL write transaction's start in exclusive mode: take
    /// EXCLUSIVE on the file and let the WAL stop taking shm locks.
    pub(super) fn wal_enter_exclusive(&mut self) -> Result<()> {
        if !self.exclusive_mode || self.wal.as_ref().is_none_or(|w| w.is_exclusive()) {
            return Ok(());
        }
        if self.locks_file() && !self.file.lock(LockLevel::Exclusive)? {
            self.file.unlock(LockLevel::Shared)?;
            return Err(Error::code(SQLITE_BUSY));
        }
        match self.wal.as_mut() {
            Some(w) => w.enter_exclusive(),
            None => Ok(()),
        }
    }

    /// At a WAL transaction's end (read or write) after NORMAL was asked:
    /// back to shm locks, and SHARED on the file (held while attached).
    pub(super) fn wal_leave_exclusive(&mut self) -> Result<()> {
        let locks = self.locks_file();
        let Some(w) = self.wal.as_mut() else { return Ok(()) };
        if self.exclusive_mode || !w.is_exclusive() {
            return Ok(());
        }
        if w.leave_exclusive()? && locks {
            self.file.unlock(LockLevel::Shared)?;
        }
        Ok(())
    }

    /// At the end of a transaction: whether to let go of the file lock.
    pub(super) fn releases_lock(&self) -> bool {
        !self.exclusive_mode && self.locks_file()
    }

    /// Delete the journal a commit in exclusive mode kept, if any.
    pub(super) fn drop_kept_journal(&mut self) {
        if std::mem::take(&mut self.journal_kept) {
            self.journal_handle = None;
            let _ = self.io.backend().delete(&self.journal_path, false);
        }
    }
}
