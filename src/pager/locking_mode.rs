//! `PRAGMA locking_mode`: NORMAL releases the database file's lock at the
//! end of every transaction; EXCLUSIVE keeps whatever lock a transaction
//! took (SHARED after reading, EXCLUSIVE once a commit wrote the file)
//! until the mode is set back to NORMAL and the next transaction ends, so
//! other connections cannot write (or, after a write, read) meanwhile.
//!
//! Private in-memory and temporary databases are always exclusive; a
//! named shared one (`io::shared_memory`) locks as a file does. WAL mode with
//! EXCLUSIVE (SQLite then keeps the WAL index in heap memory) is not
//! supported yet: asking for either combination is an error.

use super::{JournalMode, Pager};
use crate::error::{Error, Result};

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
            if on && !self.opts.memory && (self.wal.is_some() || self.journal_mode == JournalMode::Wal) {
                return Err(wal_refused());
            }
            self.exclusive_mode = on;
        }
        Ok(self.exclusive_mode())
    }

    /// Refuse to open the WAL of a database in exclusive locking mode.
    pub(super) fn check_wal_locking(&self) -> Result<()> {
        if self.refuses_wal() {
            return Err(wal_refused());
        }
        Ok(())
    }

    /// Switching to WAL mode is refused while exclusive.
    pub fn refuses_wal(&self) -> bool {
        self.exclusive_mode && !self.opts.memory
    }

    /// At the end of a transaction: whether to let go of the file lock.
    pub(super) fn releases_lock(&self) -> bool {
        !self.exclusive_mode && self.locks_file()
    }
}

/// The error for EXCLUSIVE locking together with WAL mode.
pub fn wal_refused() -> Error {
    Error::unsupported("PRAGMA locking_mode=EXCLUSIVE in WAL mode")
}
