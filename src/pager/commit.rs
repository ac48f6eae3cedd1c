//! # The commit state machine
//!
//! `WriteJournal → [WriteJournalHeader] → LockExclusive → WritePages →
//! FinalizeJournal → [SyncFinalized] → Done`, each step submitting its
//! requests once and waiting (returning `Pending`) until they complete.
//! A step that writes and must then sync submits the sync with the writes:
//! every backend performs a sync only after the writes submitted before it
//! on that file (see [`crate::io::File`]), so the caller waits once per
//! step instead of twice (on async connections, one suspension fewer per
//! sync). Re-entry after `Pending` or after `SQLITE_BUSY` at
//! `LockExclusive` continues at the step it stopped in. Page 1's change
//! counter, in-header size, version-valid-for and writer version are set
//! once, at `Start`.
//!
//! Invariant: no database page is written before the journal is complete
//! on disk (synced unless `synchronous=OFF`); the journal is finalized only
//! after the database is synced.

use super::header::{self, put_u32};
use super::journal;
use super::{JournalMode, Pager, PagerState, Synchronous};
use crate::error::{Error, Result, SQLITE_BUSY, SQLITE_IOERR_WRITE};
use crate::io::{Buffer, Completion, FileHint, FileKind, LockLevel, OpenOptions};
use crate::{IoPoll, Poll};

/// Where a commit is.
#[derive(Debug, Default)]
pub enum CommitStep {
    /// Not started.
    #[default]
    Start,
    /// Journal content submitted, with its fsync unless
    /// `synchronous=OFF`.
    WriteJournal(Vec<Completion>),
    /// `synchronous=FULL`: the header's record count, written after the
    /// records were synced, and its fsync.
    WriteJournalHeader(Vec<Completion>),
    /// Waiting for EXCLUSIVE.
    LockExclusive,
    /// Database pages submitted, with the database fsync unless
    /// `synchronous=OFF`.
    WritePages(Vec<Completion>),
    /// Journal delete/truncate/zero submitted (`None`: no journal file).
    FinalizeJournal(Option<Completion>),
    /// The truncated or zeroed journal's fsync submitted: until it is on
    /// disk a power loss could bring the hot journal back and roll back a
    /// transaction the caller was told is committed.
    SyncFinalized(Completion),
    /// WAL mode: the transaction's frames submitted.
    WalFrames(Vec<Completion>),
    /// WAL mode: WAL fsync submitted.
    WalSync(Completion),
    /// PERSIST mode: the finalized journal being cut back to
    /// `journal_size_limit`.
    LimitJournal(Completion),
    /// WAL mode: a restarted log being cut back to `journal_size_limit`
    /// (before the frames are published).
    LimitWal(Completion),
}

impl CommitStep {
    /// Whether the database file may have been written.
    pub fn touched_database(&self) -> bool {
        matches!(self, CommitStep::WritePages(_) | CommitStep::FinalizeJournal(_) | CommitStep::SyncFinalized(_) | CommitStep::LimitJournal(_))
    }

    /// Whether every request this step submitted has completed (their
    /// results are left for the step to take).
    pub fn in_flight_done(&self) -> bool {
        match self {
            CommitStep::WriteJournal(cs) | CommitStep::WriteJournalHeader(cs) | CommitStep::WritePages(cs) | CommitStep::WalFrames(cs) => {
                cs.iter().all(|c| c.is_done())
            }
            CommitStep::WalSync(c) | CommitStep::SyncFinalized(c) | CommitStep::LimitJournal(c) | CommitStep::LimitWal(c) => c.is_done(),
            CommitStep::FinalizeJournal(Some(c)) => c.is_done(),
            _ => true,
        }
    }

    /// Whether a journal file may exist.
    pub fn journal_exists(&self) -> bool {
        !matches!(self, CommitStep::Start | CommitStep::WalFrames(_) | CommitStep::WalSync(_) | CommitStep::LimitWal(_))
    }
}

/// Whether every completion finished; the first error among them.
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
    /// Commit the write transaction (or end the read transaction).
    pub fn commit(&mut self) -> IoPoll<()> {
        self.commit_until(false)
    }

    /// Whether a commit has started (and stopped: pending I/O, busy, or
    /// after [`Pager::commit_phase_one`]).
    pub fn commit_in_progress(&self) -> bool {
        !matches!(self.commit_step, CommitStep::Start)
    }

    /// The first part of [`Pager::commit`] in rollback-journal modes: the
    /// journal written and synced and the EXCLUSIVE lock taken, the
    /// database file not touched. `commit` then continues from there. Does
    /// nothing in WAL mode or outside a write transaction.
    pub fn commit_phase_one(&mut self) -> IoPoll<()> {
        if self.state != PagerState::Write || self.wal.is_some() {
            return Ok(Poll::Ready(()));
        }
        self.commit_until(true)
    }

    fn commit_until(&mut self, phase_one: bool) -> IoPoll<()> {
        match self.state {
            PagerState::Idle if self.wal_autocheckpoint_running() => return self.wal_autocheckpoint(),
            PagerState::Idle => return Ok(Poll::Ready(())),
            PagerState::Read => {
                self.end_read()?;
                return Ok(Poll::Ready(()));
            }
            PagerState::Write => {}
        }
        loop {
            let step = std::mem::take(&mut self.commit_step);
            match step {
                CommitStep::Start => {
                    crate::ready!(self.finish_spill()?);
                    if self.cache.dirty_pages().is_empty() && !self.db_touched {
                        self.finish_write_txn()?;
                        return Ok(Poll::Ready(()));
                    }
                    crate::ready!(self.fetch(1)?);
                    crate::ready!(self.wal_prepare_header()?);
                    if self.wal.is_none() || self.wal_commit_writes_page1()? {
                        self.stamp_page1()?;
                    }
                    if self.wal.is_some() {
                        let cs = self.wal_write_frames()?;
                        self.commit_step = CommitStep::WalFrames(cs);
                        continue;
                    }
                    if self.opts.memory || !self.journal_mode.uses_file() {
                        self.commit_step = CommitStep::LockExclusive;
                        continue;
                    }
                    let mut cs = self.append_journal()?;
                    if self.synchronous > Synchronous::Off {
                        cs.push(self.journal_file(false)?.sync(false)?);
                    }
                    self.commit_step = CommitStep::WriteJournal(cs);
                }
                CommitStep::WriteJournal(cs) => {
                    if !all_done(&cs)? {
                        self.commit_step = CommitStep::WriteJournal(cs);
                        return Ok(Poll::Pending);
                    }
                    // Records on disk (synced unless synchronous=OFF): now
                    // the header's record count, if it was held back.
                    self.commit_step = match self.write_journal_header()? {
                        Some(c) => CommitStep::WriteJournalHeader(vec![c, self.journal_file(false)?.sync(false)?]),
                        None => CommitStep::LockExclusive,
                    };
                }
                CommitStep::WriteJournalHeader(cs) => {
                    if !all_done(&cs)? {
                        self.commit_step = CommitStep::WriteJournalHeader(cs);
                        return Ok(Poll::Pending);
                    }
                    self.commit_step = CommitStep::LockExclusive;
                }
                CommitStep::LockExclusive => {
                    if self.locks_file() && !self.file.lock(LockLevel::Exclusive)? {
                        self.commit_step = CommitStep::LockExclusive;
                        return Err(Error::code(SQLITE_BUSY));
                    }
                    if phase_one {
                        self.commit_step = CommitStep::LockExclusive;
                        return Ok(Poll::Ready(()));
                    }
                    let mut cs = Vec::new();
                    let ps = self.page_size as u64;
                    let dirty = self.cache.dirty_pages();
                    // From here on a failure leaves the file half written:
                    // rollback must restore the originals.
                    self.db_touched = true;
                    let file_size = self.file.size()?;
                    if self.db_size as u64 * ps > file_size {
                        self.file.hint(FileHint::SizeHint(self.db_size as u64 * ps));
                    }
                    for (i, pgno) in dirty.iter().enumerate() {
                        if self.crash_after_pages == Some(i) {
                            self.crash_after_pages = None;
                            self.commit_step = CommitStep::WritePages(cs);
                            return Err(Error::new(SQLITE_IOERR_WRITE, "disk I/O error (simulated crash)"));
                        }
                        // (An evicted page's buffer when one is spare.)
                        let len = self.page(*pgno)?.len();
                        let mut data = self.cache.take_buffer(len);
                        data.copy_from_slice(self.page(*pgno)?);
                        cs.push(self.file.write((*pgno as u64 - 1) * ps, Buffer::from_vec(data))?);
                    }
                    if file_size > self.db_size as u64 * ps {
                        cs.push(self.file.truncate(self.db_size as u64 * ps)?);
                    }
                    if !self.opts.memory {
                        self.file.hint(FileHint::Sync);
                    }
                    if self.synchronous > Synchronous::Off && !self.opts.memory {
                        cs.push(self.file.sync(false)?);
                    }
                    self.commit_step = CommitStep::WritePages(cs);
                }
                CommitStep::WritePages(cs) => {
                    if !all_done(&cs)? {
                        self.commit_step = CommitStep::WritePages(cs);
                        return Ok(Poll::Pending);
                    }
                    self.commit_step = CommitStep::FinalizeJournal(None);
                    self.submit_finalize()?;
                }
                CommitStep::WalFrames(cs) => {
                    if !all_done(&cs)? {
                        self.commit_step = CommitStep::WalFrames(cs);
                        return Ok(Poll::Pending);
                    }
                    if self.wal_sync_on_commit() {
                        let c = self.wal_file()?.sync(false)?;
                        self.commit_step = CommitStep::WalSync(c);
                        continue;
                    }
                    if let Some(c) = self.submit_wal_limit()? {
                        self.commit_step = CommitStep::LimitWal(c);
                        continue;
                    }
                    self.finish_wal_commit()?;
                    return self.wal_autocheckpoint();
                }
                CommitStep::WalSync(c) => {
                    if !c.is_done() {
                        self.commit_step = CommitStep::WalSync(c);
                        return Ok(Poll::Pending);
                    }
                    c.take()?;
                    if let Some(c) = self.submit_wal_limit()? {
                        self.commit_step = CommitStep::LimitWal(c);
                        continue;
                    }
                    self.finish_wal_commit()?;
                    return self.wal_autocheckpoint();
                }
                CommitStep::LimitWal(c) => {
                    if !c.is_done() {
                        self.commit_step = CommitStep::LimitWal(c);
                        return Ok(Poll::Pending);
                    }
                    c.take()?;
                    self.finish_wal_commit()?;
                    return self.wal_autocheckpoint();
                }
                CommitStep::FinalizeJournal(c) => {
                    if let Some(c) = &c {
                        if !c.is_done() {
                            self.commit_step = CommitStep::FinalizeJournal(Some(c.clone()));
                            return Ok(Poll::Pending);
                        }
                        c.take()?;
                        if self.finalize_needs_sync() {
                            self.commit_step = CommitStep::SyncFinalized(self.journal_file(false)?.sync(true)?);
                            continue;
                        }
                    }
                    if let Some(c) = self.submit_journal_limit()? {
                        self.commit_step = CommitStep::LimitJournal(c);
                        continue;
                    }
                    self.finish_commit()?;
                    return Ok(Poll::Ready(()));
                }
                CommitStep::SyncFinalized(c) => {
                    if !c.is_done() {
                        self.commit_step = CommitStep::SyncFinalized(c);
                        return Ok(Poll::Pending);
                    }
                    c.take()?;
                    if let Some(c) = self.submit_journal_limit()? {
                        self.commit_step = CommitStep::LimitJournal(c);
                        continue;
                    }
                    self.finish_commit()?;
                    return Ok(Poll::Ready(()));
                }
                CommitStep::LimitJournal(c) => {
                    if !c.is_done() {
                        self.commit_step = CommitStep::LimitJournal(c);
                        return Ok(Poll::Pending);
                    }
                    c.take()?;
                    self.finish_commit()?;
                    return Ok(Poll::Ready(()));
                }
            }
        }
    }

    /// As SQLite: a truncated journal is synced at `synchronous=FULL` and
    /// above, a zeroed (PERSIST) header whenever syncs are on.
    fn finalize_needs_sync(&self) -> bool {
        match self.journal_mode {
            JournalMode::Truncate => self.synchronous >= Synchronous::Full,
            JournalMode::Persist => self.synchronous > Synchronous::Off,
            _ => false,
        }
    }

    fn finish_commit(&mut self) -> Result<()> {
        self.file.hint(FileHint::CommitPhaseTwo);
        self.cache.mark_all_clean();
        self.last_change_counter = Some(header::get_u32(self.page(1)?, header::CHANGE_COUNTER));
        self.finish_write_txn()
    }

    pub(super) fn wal_file(&self) -> Result<std::sync::Arc<dyn crate::io::File>> {
        self.wal.as_ref().map(|w| w.file().clone()).ok_or_else(|| Error::new(crate::error::SQLITE_INTERNAL, "no WAL"))
    }

    fn finish_wal_commit(&mut self) -> Result<()> {
        self.wal_publish()?;
        self.file.hint(FileHint::CommitPhaseTwo);
        self.cache.mark_all_clean();
        self.finish_write_txn()
    }

    /// Whether a WAL commit carries page 1. As in SQLite, a WAL commit
    /// leaves page 1 alone unless the transaction changed it, changed the
    /// database size (which page 1 records), or has no other page to put
    /// in the commit frame: readers of a WAL database learn of commits from
    /// the wal-index, not from the change counter, and writing page 1 on
    /// every commit would double the log of a one-page transaction.
    fn wal_commit_writes_page1(&mut self) -> Result<bool> {
        if self.cache.dirty_count() == 0 || self.cache.get(1).is_some_and(|p| p.is_dirty()) {
            return Ok(true);
        }
        Ok(header::get_u32(self.page(1)?, header::DB_SIZE) != self.db_size)
    }

    /// Bump the change counter and record size and writer version in
    /// page 1, journaling it first.
    fn stamp_page1(&mut self) -> Result<()> {
        let db_size = self.db_size;
        let p1 = self.page_mut(1)?;
        let counter = header::get_u32(p1, header::CHANGE_COUNTER).wrapping_add(1);
        put_u32(p1, header::CHANGE_COUNTER, counter);
        put_u32(p1, header::DB_SIZE, db_size);
        put_u32(p1, header::VERSION_VALID_FOR, counter);
        put_u32(p1, header::SQLITE_VERSION, header::SQLITE_VERSION_NUMBER);
        Ok(())
    }

    /// The journal file of this write transaction: opened (created with
    /// `create`) the first time, then the same handle until the
    /// transaction ends or the journal is deleted.
    pub(super) fn journal_file(&mut self, create: bool) -> Result<std::sync::Arc<dyn crate::io::File>> {
        if let Some(f) = &self.journal_handle {
            return Ok(f.clone());
        }
        let f = self.io.backend().open(&self.journal_path, OpenOptions { create, kind: FileKind::MainJournal, ..Default::default() })?;
        self.journal_handle = Some(f.clone());
        Ok(f)
    }

    /// Bring the journal file up to date with every original kept so far.
    /// The first time in a transaction: header and all records as one
    /// write, plus a truncate if an older, longer journal file is reused.
    /// Later (after a cache spill): the new records appended. Either order
    /// of the submitted requests is safe: nothing reads the journal before
    /// they all complete and are synced, and a torn record fails its
    /// checksum.
    ///
    /// The header's record count follows SQLite's fsync pattern: with
    /// `synchronous=NORMAL` (or OFF) it is written with the records, and
    /// one sync covers both; with `synchronous=FULL` the records are
    /// synced first under the old count, then the new count is written
    /// ([`Pager::write_journal_header`]) and synced, so that a count on
    /// disk never covers records that are not.
    pub(super) fn append_journal(&mut self) -> Result<Vec<Completion>> {
        let mut pgnos: Vec<_> = self.originals.keys().copied().filter(|p| !self.journaled.contains(p)).collect();
        pgnos.sort_unstable();
        let f = self.journal_file(true)?;
        let recs: Vec<_> = pgnos.iter().map(|p| (*p, self.originals[p].as_slice())).collect();
        let mut cs = Vec::new();
        let two_phase = self.synchronous >= Synchronous::Full;
        if self.journal_end == 0 {
            self.journal_nonce = journal::new_nonce();
            let mut bytes = journal::build(self.journal_nonce, self.orig_db_size, self.page_size, &recs);
            if two_phase && !recs.is_empty() {
                bytes[8..12].copy_from_slice(&0u32.to_be_bytes());
                self.journal_header_pending = true;
            }
            let len = bytes.len() as u64;
            cs.push(f.write(0, Buffer::from_vec(bytes))?);
            if f.size()? > len {
                cs.push(f.truncate(len)?);
            }
            self.journal_end = len;
        } else {
            let bytes = journal::records(self.journal_nonce, self.page_size, &recs);
            let len = bytes.len() as u64;
            if len > 0 {
                cs.push(f.write(self.journal_end, Buffer::from_vec(bytes))?);
            }
            self.journal_end += len;
            if two_phase {
                self.journal_header_pending = len > 0;
            } else {
                let total = (self.journaled.len() + pgnos.len()) as u32;
                let hdr = journal::header(self.journal_nonce, total, self.orig_db_size, self.page_size);
                cs.push(f.write(0, Buffer::from_vec(hdr))?);
            }
        }
        self.journaled.extend(pgnos);
        Ok(cs)
    }

    /// `synchronous=FULL`, after the records are synced: write the header
    /// with the full record count (`None` if it is already right).
    pub(super) fn write_journal_header(&mut self) -> Result<Option<Completion>> {
        if !self.journal_header_pending {
            return Ok(None);
        }
        self.journal_header_pending = false;
        let hdr = journal::header(self.journal_nonce, self.journaled.len() as u32, self.orig_db_size, self.page_size);
        Ok(Some(self.journal_file(false)?.write(0, Buffer::from_vec(hdr))?))
    }

    fn submit_finalize(&mut self) -> Result<()> {
        let c = if self.opts.memory || !self.journal_mode.uses_file() {
            None
        } else {
            match self.journal_mode {
                JournalMode::Delete => {
                    // Closed first, so the unlink frees the file (off this
                    // thread where the backend can).
                    self.journal_handle = None;
                    Some(self.io.backend().delete_request(&self.journal_path, self.synchronous == Synchronous::Extra)?)
                }
                JournalMode::Truncate => Some(self.journal_file(false)?.truncate(0)?),
                JournalMode::Persist if self.persist_truncates() => Some(self.journal_file(false)?.truncate(0)?),
                _ => Some(self.journal_file(false)?.write(0, Buffer::zeroed(28))?),
            }
        };
        self.commit_step = CommitStep::FinalizeJournal(c);
        Ok(())
    }
}
