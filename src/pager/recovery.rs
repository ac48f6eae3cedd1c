//! # Hot-journal recovery
//!
//! At the start of a read transaction, a journal that exists, starts with
//! the journal magic, and whose writer is gone (no RESERVED lock anywhere)
//! is hot: a commit died half way. Recovery takes EXCLUSIVE, reads the
//! journal, writes every journaled original back, truncates the file to
//! its size before the transaction, syncs, finalizes the journal per the
//! journal mode, and drops back to SHARED.
//!
//! It is a resumable state machine like the rest of the pager
//! ([`RecoveryStep`]): each step submits its requests once and returns
//! `Pending` until they complete.
//!
//! Invariants: the journal is re-checked, played back and finalized only
//! while EXCLUSIVE is held (another process may have recovered it
//! meanwhile) (checked: recovery_exclusive); it is finalized only after the
//! restored database is synced, so a crash during recovery leaves it hot.

use super::{header, journal, JournalMode, Pager};
use crate::error::{Error, Result, SQLITE_BUSY};
use crate::io::{Buffer, Completion, File, FileKind, LockLevel, OpenOptions};
use crate::{IoPoll, Poll};
use std::sync::Arc;

/// Where a recovery is.
pub enum RecoveryStep {
    /// Reading the journal's first 8 bytes (is it hot at all?).
    CheckMagic(Arc<dyn File>, Completion),
    /// Syncing the journal (if not `synchronous=OFF`), reading it whole
    /// and the database header.
    ReadJournal(Arc<dyn File>, Option<Completion>, Completion, Completion),
    /// Writing the originals back; the file's size before the
    /// transaction and the journal's page size.
    Restore(Arc<dyn File>, Vec<Completion>, u64, u64),
    /// Truncating the database to its size before the transaction.
    Truncate(Arc<dyn File>, Completion),
    /// Syncing the database.
    Sync(Arc<dyn File>, Completion),
    /// Finalizing the journal; the super-journal it named, to delete
    /// once no journal needs it.
    Finalize(Option<Completion>, Option<String>),
}

impl std::fmt::Debug for RecoveryStep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = match self {
            RecoveryStep::CheckMagic(..) => "CheckMagic",
            RecoveryStep::ReadJournal(..) => "ReadJournal",
            RecoveryStep::Restore(..) => "Restore",
            RecoveryStep::Truncate(..) => "Truncate",
            RecoveryStep::Sync(..) => "Sync",
            RecoveryStep::Finalize(..) => "Finalize",
        };
        f.write_str(name)
    }
}

fn all_done(cs: &[Completion]) -> Result<bool> {
    if cs.iter().any(|c| !c.is_done()) {
        return Ok(false);
    }
    for c in cs {
        c.take()?;
    }
    Ok(true)
}

impl Pager {
    /// The journal, read-only to see whether it is hot (SQLite's first
    /// look), read-write to play it back.
    fn open_journal(&self, read_only: bool) -> Result<Arc<dyn File>> {
        self.io.backend().open(&self.journal_path, OpenOptions { read_only, kind: FileKind::MainJournal, ..Default::default() })
    }

    /// Called holding SHARED with whether the journal exists (the probe of
    /// `ReadStep::Probe`): the first recovery step if it might be hot,
    /// `None` if there is nothing to recover.
    pub(super) fn start_recovery(&mut self, journal_exists: bool) -> Result<Option<RecoveryStep>> {
        if !journal_exists || self.file.check_reserved_lock()? {
            return Ok(None);
        }
        // The journal may be gone already: a writer that held RESERVED at
        // the probe rolled back and deleted it. Not hot then (SQLite
        // reads a journal it cannot open the same way).
        let jf = match self.open_journal(true) {
            Ok(jf) => jf,
            Err(e) if e.primary() == crate::error::SQLITE_CANTOPEN => return Ok(None),
            Err(e) => return Err(e),
        };
        // Its first byte, as SQLite reads it: zero (a PERSIST journal's
        // zeroed header, or a header not written to the end) is not hot.
        let c = jf.read(0, Buffer::zeroed(1))?;
        Ok(Some(RecoveryStep::CheckMagic(jf, c)))
    }

    /// Advance recovery: `Ready(Some(step))` to continue with, `Ready(None)`
    /// when done (SHARED held again).
    pub(super) fn step_recovery(&mut self, step: RecoveryStep) -> IoPoll<Option<RecoveryStep>> {
        let next = match step {
            RecoveryStep::CheckMagic(jf, c) => {
                if !c.is_done() {
                    return self.pending(RecoveryStep::CheckMagic(jf, c));
                }
                let r = c.take()?;
                // A PERSIST journal with a zeroed header is not hot: no
                // EXCLUSIVE lock is needed. (A header whose magic is wrong
                // past its first byte is found so by the parse below.)
                if r.bytes < 1 || r.buffer.is_none_or(|b| b[0] == 0) {
                    return Ok(Poll::Ready(None));
                }
                drop(jf);
                if !self.file.lock(LockLevel::Exclusive)? {
                    return Err(Error::code(SQLITE_BUSY));
                }
                // invariant: recovery_exclusive
                debug_assert!(self.holds_exclusive(), "hot journal re-checked without EXCLUSIVE");
                if !self.io.backend().exists(&self.journal_path)? {
                    // Someone else recovered it between our checks.
                    self.file.unlock(LockLevel::Shared)?;
                    return Ok(Poll::Ready(None));
                }
                let jf = self.open_journal(false)?;
                // The journal is synced before it is played back (what a
                // crash left may not be on disk yet), as SQLite does.
                // (The read submitted after it waits for it.)
                let cs = if self.synchronous > super::Synchronous::Off { Some(jf.sync(false)?) } else { None };
                let len = jf.size()? as usize;
                let cj = jf.read(0, Buffer::zeroed(len))?;
                let ch = self.file.read(0, Buffer::zeroed(100))?;
                RecoveryStep::ReadJournal(jf, cs, cj, ch)
            }
            RecoveryStep::ReadJournal(jf, cs, cj, ch) => {
                if !cj.is_done() || !ch.is_done() || cs.as_ref().is_some_and(|c| !c.is_done()) {
                    return self.pending(RecoveryStep::ReadJournal(jf, cs, cj, ch));
                }
                if let Some(c) = cs {
                    c.take()?;
                }
                let bytes = cj.take()?.buffer.unwrap_or_default();
                let h = ch.take()?;
                let db_page_size =
                    if h.bytes >= 100 { header::parse(&h.buffer.unwrap_or_default()).map(|i| i.page_size).unwrap_or(self.page_size) } else { self.page_size };
                let Some(pb) = journal::parse(&bytes, db_page_size) else {
                    self.file.unlock(LockLevel::Shared)?;
                    return Ok(Poll::Ready(None));
                };
                // A journal naming a super-journal that is gone belongs to
                // a transaction that committed: finalized, not played back
                // (SQLite's rule).
                let super_name = super::super_journal::read_name(&bytes);
                self.recovering_super = super_name.clone();
                if let Some(name) = &super_name {
                    if !self.io.backend().exists(name)? {
                        // (The database is synced all the same, with
                        // SQLITE_FCNTL_SYNC first, as SQLite's pager does.)
                        self.recovering_super = None;
                        let c = self.sync_restored()?;
                        return Ok(Poll::Ready(Some(RecoveryStep::Sync(jf, c))));
                    }
                }
                let ps = pb.page_size as u64;
                // invariant: recovery_exclusive
                debug_assert!(self.holds_exclusive(), "hot journal played back without EXCLUSIVE");
                let mut cs = Vec::with_capacity(pb.pages.len());
                for (pgno, data) in pb.pages {
                    if pb.initial_pages != 0 && pgno > pb.initial_pages {
                        continue;
                    }
                    cs.push(self.file.write((pgno as u64 - 1) * ps, Buffer::from_vec(data))?);
                }
                RecoveryStep::Restore(jf, cs, pb.initial_pages as u64 * ps, ps)
            }
            RecoveryStep::Restore(jf, cs, size, ps) => {
                if !all_done(&cs)? {
                    return self.pending(RecoveryStep::Restore(jf, cs, size, ps));
                }
                let c = self.restore_size(size, ps)?;
                RecoveryStep::Truncate(jf, c)
            }
            RecoveryStep::Truncate(jf, c) => {
                if !c.is_done() {
                    return self.pending(RecoveryStep::Truncate(jf, c));
                }
                c.take()?;
                let c = self.sync_restored()?;
                RecoveryStep::Sync(jf, c)
            }
            RecoveryStep::Sync(jf, c) => {
                if !c.is_done() {
                    return self.pending(RecoveryStep::Sync(jf, c));
                }
                c.take()?;
                self.finalize_recovered(jf)?
            }
            RecoveryStep::Finalize(c, super_name) => {
                if let Some(c) = &c {
                    if !c.is_done() {
                        return self.pending(RecoveryStep::Finalize(Some(c.clone()), super_name));
                    }
                    c.take()?;
                }
                if let Some(name) = &super_name {
                    self.delete_super_if_unused(name)?;
                }
                self.invalidate_cache();
                self.last_change_counter = None;
                self.file.unlock(LockLevel::Shared)?;
                return Ok(Poll::Ready(None));
            }
        };
        Ok(Poll::Ready(Some(next)))
    }

    /// Debug builds: whether the file holds EXCLUSIVE (or is not locked
    /// at all), as recovery requires.
    fn holds_exclusive(&self) -> bool {
        !self.locks_file() || self.file.lock_level() == LockLevel::Exclusive
    }

    /// Finalize a hot journal per the journal mode (its database restored,
    /// or its transaction committed under a super-journal now gone).
    fn finalize_recovered(&mut self, jf: Arc<dyn File>) -> Result<RecoveryStep> {
        // invariant: recovery_exclusive
        debug_assert!(self.holds_exclusive(), "hot journal finalized without EXCLUSIVE");
        let c = match self.journal_mode {
            JournalMode::Truncate => Some(jf.truncate(0)?),
            JournalMode::Persist => Some(jf.write(0, Buffer::zeroed(28))?),
            _ => {
                drop(jf);
                self.io.backend().delete(&self.journal_path, false)?;
                None
            }
        };
        Ok(RecoveryStep::Finalize(c, self.recovering_super.take()))
    }

    /// Give the restored file its size before the transaction: cut what
    /// it grew by, or, when it is short by a page or more, write the last
    /// page as zeros (a file the same size is left alone; SQLite's rule).
    pub(super) fn restore_size(&self, size: u64, ps: u64) -> Result<Completion> {
        let current = self.file.size()?;
        if current > size {
            self.file.truncate(size)
        } else if current + ps <= size {
            self.file.write(size - ps, Buffer::zeroed(ps as usize))
        } else {
            Ok(Completion::ready(Ok(crate::io::CompletionResult { bytes: 0, buffer: None })))
        }
    }

    /// Sync a database file the journal's originals were written back
    /// into: `FileHint::Sync` (with no super-journal) first, then the sync
    /// itself unless `synchronous=OFF`, as SQLite's pager does.
    pub(super) fn sync_restored(&self) -> Result<Completion> {
        self.file.hint(crate::io::FileHint::Sync(None));
        if self.synchronous > super::Synchronous::Off {
            self.file.sync(false)
        } else {
            Ok(Completion::ready(Ok(crate::io::CompletionResult { bytes: 0, buffer: None })))
        }
    }

    fn pending(&mut self, step: RecoveryStep) -> IoPoll<Option<RecoveryStep>> {
        self.read_step = Some(super::ReadStep::Recover(step));
        Ok(Poll::Pending)
    }
}
