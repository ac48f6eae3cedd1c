//! # Hot-journal recovery
//!
//! At the start of a read transaction, a journal that exists, holds a
//! valid header and whose writer is gone (no RESERVED lock anywhere) is
//! hot: a commit died half way. Recovery takes EXCLUSIVE, writes every
//! journaled original back, truncates the file to its size before the
//! transaction, syncs, finalizes the journal, and drops back to SHARED.
//!
//! Recovery is rare and blocks (it waits on its requests through the I/O
//! context) instead of being a resumable state machine.
//!
//! Invariant: the journal is finalized only after the restored database
//! is synced, so a crash during recovery leaves the journal hot.

use super::{journal, JournalMode, Pager};
use crate::error::{Error, Result, SQLITE_BUSY};
use crate::io::{Buffer, Completion, FileKind, LockLevel, OpenOptions};

impl Pager {
    fn wait_ok(&self, c: Completion) -> Result<usize> {
        self.io.wait(&c)?;
        Ok(c.take()?.bytes)
    }

    /// Roll back a hot journal if there is one. Called holding SHARED.
    pub(super) fn recover_if_hot(&mut self) -> Result<()> {
        let backend = self.io.backend().clone();
        if !backend.exists(&self.journal_path)? || self.file.check_reserved_lock()? {
            return Ok(());
        }
        // A PERSIST journal with a zeroed header (or any file that does not
        // start with the magic) is not hot: no EXCLUSIVE lock is needed.
        if !self.journal_starts_with_magic()? {
            return Ok(());
        }
        if !self.file.lock(LockLevel::Exclusive)? {
            // Someone else is about to recover it, or is writing.
            self.file.unlock(LockLevel::Shared)?;
            return Err(Error::code(SQLITE_BUSY));
        }
        let result = self.play_back_journal();
        let unlock = self.file.unlock(LockLevel::Shared);
        result.and(unlock)
    }

    fn play_back_journal(&mut self) -> Result<()> {
        let backend = self.io.backend().clone();
        if !backend.exists(&self.journal_path)? {
            return Ok(());
        }
        let jf = backend.open(&self.journal_path, OpenOptions { kind: FileKind::MainJournal, ..Default::default() })?;
        let len = jf.size()? as usize;
        let c = jf.read(0, Buffer::zeroed(len))?;
        self.io.wait(&c)?;
        let bytes = c.take()?.buffer.unwrap_or_default();
        let db_page_size = self.db_page_size_on_disk()?;
        let Some(pb) = journal::parse(&bytes, db_page_size) else {
            return Ok(());
        };
        let ps = pb.page_size as u64;
        for (pgno, data) in pb.pages {
            if pgno > pb.initial_pages && pb.initial_pages != 0 {
                continue;
            }
            let c = self.file.write((pgno as u64 - 1) * ps, Buffer::from_vec(data))?;
            self.wait_ok(c)?;
        }
        let c = self.file.truncate(pb.initial_pages as u64 * ps)?;
        self.wait_ok(c)?;
        let c = self.file.sync(false)?;
        self.wait_ok(c)?;
        match self.journal_mode {
            JournalMode::Truncate => {
                let c = jf.truncate(0)?;
                self.wait_ok(c)?;
            }
            JournalMode::Persist => {
                let c = jf.write(0, Buffer::zeroed(28))?;
                self.wait_ok(c)?;
            }
            _ => {
                drop(jf);
                backend.delete(&self.journal_path, false)?;
            }
        }
        self.invalidate_cache();
        self.last_change_counter = None;
        Ok(())
    }

    fn journal_starts_with_magic(&self) -> Result<bool> {
        let jf = self.io.backend().open(&self.journal_path, OpenOptions { kind: FileKind::MainJournal, ..Default::default() })?;
        let c = jf.read(0, Buffer::zeroed(8))?;
        self.io.wait(&c)?;
        let r = c.take()?;
        Ok(r.bytes == 8 && r.buffer.is_some_and(|b| b[..] == journal::JOURNAL_MAGIC))
    }

    fn db_page_size_on_disk(&self) -> Result<u32> {
        let c = self.file.read(0, Buffer::zeroed(100))?;
        self.io.wait(&c)?;
        let r = c.take()?;
        if r.bytes < 100 {
            return Ok(self.page_size);
        }
        Ok(super::header::parse(&r.buffer.unwrap_or_default()).map(|h| h.page_size).unwrap_or(self.page_size))
    }
}
