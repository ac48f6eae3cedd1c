//! # The statement journal's records, spilled to a temporary file
//!
//! SQLite keeps one statement journal (sub-journal) per transaction: when
//! a page that the rollback journal already holds (every page in WAL
//! mode) is changed while a savepoint that lacks its image is open, a
//! record (page number, then the page as it was) is appended; a
//! savepoint rollback reads its images back from there. The records live
//! in memory until they pass 64 KiB, SQLite's spill size, then in a
//! temporary file (`SQLITE_OPEN_SUBJOURNAL`, no name, deleted on close)
//! that stays open, reused from its start once no savepoint is left,
//! until the transaction ends (in exclusive locking mode, until a
//! transaction ends in normal mode or the pager closes).
//!
//! The pager does this only on a backend that asks for it
//! ([`crate::io::IoBackend::spills_statement_journals`]: an application
//! VFS, which then sees SQLite's file), not for an in-memory database or
//! `journal_mode=MEMORY`; otherwise savepoints keep their images in
//! memory ([`super::savepoint`]).
//!
//! Invariants: `len` is the end of the live records (each `4 + page
//! size` bytes); records below it are in `mem` while `file` is `None`,
//! else in `file`; a savepoint's [`Kept::Sub`] offset is below `len`
//! (checked: subjournal_len).

use super::Pager;
use crate::error::{Error, Result, SQLITE_INTERNAL};
use crate::io::{Buffer, File, FileKind, OpenOptions};
use crate::pager::Pgno;
use std::sync::Arc;

/// SQLite's statement-journal spill size (`SQLITE_STMTJRNL_SPILL`).
pub const SPILL_BYTES: u64 = 64 * 1024;

/// Where a savepoint keeps a page's image.
#[derive(Debug)]
pub enum Kept {
    /// In memory.
    Mem(Vec<u8>),
    /// In the statement journal: the record at this offset.
    Sub(u64),
}

/// The transaction's statement journal.
#[derive(Default)]
pub struct SubJournal {
    /// End of the live records.
    len: u64,
    /// The records while no file is open.
    mem: Vec<u8>,
    /// The temporary file, once the records outgrew [`SPILL_BYTES`].
    file: Option<Arc<dyn File>>,
}

impl std::fmt::Debug for SubJournal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SubJournal").field("len", &self.len).field("spilled", &self.file.is_some()).finish()
    }
}

impl SubJournal {
    /// The end of the live records (a savepoint opening remembers it).
    pub fn end(&self) -> u64 {
        self.len
    }

    /// Forget the records from `at` on (no savepoint needs them).
    pub fn cut(&mut self, at: u64) {
        // invariant: subjournal_len
        debug_assert!(at <= self.len);
        self.len = at;
        if self.file.is_none() {
            self.mem.truncate(at as usize);
        }
    }
}

impl Pager {
    /// `PRAGMA temp_store`: MEMORY (true) keeps the statement journal in
    /// memory, as SQLite's does, and a temporary database off the
    /// application's VFS.
    pub fn set_temp_store_memory(&mut self, memory: bool) {
        self.temp_store_memory = memory;
        // (A temporary database's file bound follows, `io::temp_file`.)
        self.apply_cache_size();
    }

    /// Whether savepoint images go through the statement journal.
    pub(super) fn uses_subjournal(&self) -> bool {
        // (A temporary database's pager journals in memory whatever the
        // mode shown; its journal file is `temp_journal.rs`'s.)
        let keeps_file = if self.opts.memory { self.temp_journal.enabled } else { self.journal_mode != super::JournalMode::Memory };
        self.opens_as_sqlite && keeps_file && !self.temp_store_memory
    }

    /// Append `pgno`'s image to the statement journal; its offset.
    pub(super) fn subjournal_append(&mut self, pgno: Pgno, image: &[u8]) -> Result<u64> {
        let at = self.subjournal.len;
        let end = at + 4 + image.len() as u64;
        if self.subjournal.file.is_none() && end > SPILL_BYTES {
            // The records outgrow memory: SQLite opens its file now.
            let opts = OpenOptions { create: true, exclusive: true, delete_on_close: true, kind: FileKind::SubJournal, ..Default::default() };
            let f = self.io.backend().open("", opts)?;
            let old = std::mem::take(&mut self.subjournal.mem);
            if !old.is_empty() {
                let c = f.write(0, Buffer::from_vec(old))?;
                self.io.wait(&c)?;
                c.take()?;
            }
            self.subjournal.file = Some(f);
        }
        match &self.subjournal.file {
            None => {
                self.subjournal.mem.extend_from_slice(&pgno.to_be_bytes());
                self.subjournal.mem.extend_from_slice(image);
            }
            Some(f) => {
                // (Two writes, as SQLite makes them.)
                let c1 = f.write(at, Buffer::from_vec(pgno.to_be_bytes().to_vec()))?;
                let c2 = f.write(at + 4, Buffer::from_vec(image.to_vec()))?;
                self.io.wait(&c1)?;
                self.io.wait(&c2)?;
                c1.take()?;
                c2.take()?;
            }
        }
        self.subjournal.len = end;
        Ok(at)
    }

    /// The image a [`Kept`] stands for.
    pub(super) fn kept_image(&self, pgno: Pgno, kept: Kept) -> Result<Vec<u8>> {
        let at = match kept {
            Kept::Mem(v) => return Ok(v),
            Kept::Sub(at) => at,
        };
        let ps = self.page_size as usize;
        let record = match &self.subjournal.file {
            None => self.subjournal.mem.get(at as usize..at as usize + 4 + ps).map(|r| r.to_vec()),
            Some(f) => {
                let c = f.read(at, Buffer::zeroed(4 + ps))?;
                self.io.wait(&c)?;
                let r = c.take()?;
                (r.bytes == 4 + ps).then(|| r.buffer.map(|b| b.into_vec()).unwrap_or_default())
            }
        };
        match record {
            Some(r) if r[..4] == pgno.to_be_bytes() => Ok(r[4..].to_vec()),
            _ => Err(Error::new(SQLITE_INTERNAL, "statement journal record missing")),
        }
    }

    /// The transaction is over: close the statement journal's file. In
    /// exclusive locking mode SQLite keeps a statement journal that went
    /// to a file open for the next transactions (their records written
    /// from its start), until a transaction ends in normal mode or the
    /// pager closes ([`Pager::drop_subjournal`]).
    pub(super) fn close_subjournal(&mut self) {
        match self.subjournal.file.take() {
            // (A temporary database's pager is in exclusive mode in
            // SQLite: its statement journal stays open too.)
            Some(f) if self.exclusive_mode || self.opts.memory => self.subjournal = SubJournal { len: 0, mem: Vec::new(), file: Some(f) },
            _ => self.subjournal = SubJournal::default(),
        }
    }

    /// Close the statement journal's file whatever the locking mode (the
    /// pager is closing).
    pub(super) fn drop_subjournal(&mut self) {
        self.subjournal = SubJournal::default();
    }
}
