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
//! on disk (synced unless `synchronous=OFF`) (checked:
//! pager_journal_before_db); the journal is finalized only after the
//! database is synced.

use super::header::{self, put_u32};
use super::journal;
use super::{JournalMode, Pager, PagerState, Synchronous};
use crate::error::{Error, Result, SQLITE_BUSY, SQLITE_IOERR_WRITE};
use crate::io::{Buffer, Completion, FileHint, FileKind, LockLevel, OpenOptions};
use crate::pager::Pgno;
use crate::{IoPoll, Poll};

/// Where a commit is.
#[derive(Debug, Default)]
pub enum CommitStep {
    /// Not started.
    #[default]
    Start,
    /// Journal content submitted, with the read of where a next header
    /// would go (see `Pager::probe_next_journal_header`).
    WriteJournal(Vec<Completion>, Option<Completion>),
    /// The journal's sync(s) and record count (`Pager::seal_journal`).
    WriteJournalHeader(Vec<Completion>),
    /// Waiting for EXCLUSIVE.
    LockExclusive,
    /// Database pages submitted, with the database fsync unless
    /// `synchronous=OFF`.
    WritePages(Vec<Completion>),
    /// The database written and synced, the journal not yet finalized:
    /// held there while the transaction's super-journal exists.
    Written,
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
    /// WAL mode: the frames written (and synced), not yet published: held
    /// there while the other databases of the transaction commit.
    WalWritten,
}

impl CommitStep {
    /// The step's place in its commit (a journal commit and a WAL commit
    /// each count from `Start`): a commit only ever moves to a later step.
    #[cfg(debug_assertions)]
    fn rank(&self) -> u8 {
        match self {
            CommitStep::Start => 0,
            CommitStep::WriteJournal(..) | CommitStep::WalFrames(_) => 1,
            CommitStep::WriteJournalHeader(_) | CommitStep::WalSync(_) => 2,
            CommitStep::LockExclusive | CommitStep::LimitWal(_) => 3,
            CommitStep::WritePages(_) | CommitStep::WalWritten => 4,
            CommitStep::Written => 5,
            CommitStep::FinalizeJournal(_) => 6,
            CommitStep::SyncFinalized(_) => 7,
            CommitStep::LimitJournal(_) => 8,
        }
    }

    /// Whether the database file may have been written.
    pub fn touched_database(&self) -> bool {
        matches!(
            self,
            CommitStep::WritePages(_) | CommitStep::Written | CommitStep::FinalizeJournal(_) | CommitStep::SyncFinalized(_) | CommitStep::LimitJournal(_)
        )
    }

    /// Whether every request this step submitted has completed (their
    /// results are left for the step to take).
    pub fn in_flight_done(&self) -> bool {
        match self {
            CommitStep::WriteJournal(cs, probe) => cs.iter().chain(probe).all(|c| c.is_done()),
            CommitStep::WriteJournalHeader(cs) | CommitStep::WritePages(cs) | CommitStep::WalFrames(cs) => cs.iter().all(|c| c.is_done()),
            CommitStep::WalSync(c) | CommitStep::SyncFinalized(c) | CommitStep::LimitJournal(c) | CommitStep::LimitWal(c) => c.is_done(),
            CommitStep::FinalizeJournal(Some(c)) => c.is_done(),
            _ => true,
        }
    }

    /// Whether a journal file may exist.
    pub fn journal_exists(&self) -> bool {
        !matches!(self, CommitStep::Start | CommitStep::WalFrames(_) | CommitStep::WalSync(_) | CommitStep::LimitWal(_) | CommitStep::WalWritten)
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
    #[inline]
    pub fn commit(&mut self) -> IoPoll<()> {
        self.commit_until()
    }

    /// [`Pager::commit`], ending in a read transaction of the state just
    /// committed (a read transaction is left as it is), as SQLite's
    /// B-tree ends a transaction while other statements of its connection
    /// still read: the others' cursors go on over the cache, and a WAL
    /// database is not checkpointed (SQLite's automatic checkpoint finds
    /// the connection in a transaction and skips).
    pub fn commit_to_read(&mut self) -> IoPoll<()> {
        self.keep_read = true;
        let r = self.commit_until();
        self.keep_read = false;
        r
    }

    /// Whether a commit has started (and stopped: pending I/O or busy).
    pub fn commit_in_progress(&self) -> bool {
        !matches!(self.commit_step, CommitStep::Start)
    }

    /// Hold (true) or release a commit of this database once it is
    /// written: a transaction writing several databases commits each one
    /// up to there in turn (rollback journal: written and synced, journal
    /// kept; WAL: frames written), then finishes them all in turn, as
    /// SQLite's two commit phases go over its databases.
    pub fn set_commit_held(&mut self, held: bool) {
        self.commit_held = held && !self.commit_in_progress();
    }

    /// Whether the commit stops (or stopped) once written: a held commit
    /// or one under a super-journal.
    pub fn commit_held(&self) -> bool {
        self.held_for_super_journal()
    }

    /// Debug builds: whether the commit stopped written and synced, its
    /// journal kept (or its WAL frames written), or ended with nothing to
    /// write: what a super-journal waits for before its deletion commits
    /// the transaction.
    #[cfg(debug_assertions)]
    pub fn commit_written(&self) -> bool {
        self.state != PagerState::Write || matches!(self.commit_step, CommitStep::Written | CommitStep::WalWritten)
    }

    /// A commit spanning several databases takes the EXCLUSIVE lock of
    /// each rollback-journal database it writes before any of them is
    /// journaled or written: `SQLITE_BUSY` then leaves every one as it
    /// was (the commit, retried, finds the lock held). Nothing to do in
    /// WAL mode, on an unlocked file, or with nothing to write.
    pub fn lock_for_commit(&mut self) -> Result<()> {
        if self.state != PagerState::Write || self.wal.is_some() || !self.locks_file() || (self.cache.dirty_count() == 0 && !self.db_touched) {
            return Ok(());
        }
        if !self.file.lock(LockLevel::Exclusive)? {
            return Err(Error::code(SQLITE_BUSY));
        }
        Ok(())
    }

    fn commit_until(&mut self) -> IoPoll<()> {
        match self.state {
            PagerState::Idle if self.wal_autocheckpoint_running() => return self.wal_autocheckpoint(),
            PagerState::Idle => return Ok(Poll::Ready(())),
            PagerState::Read => {
                if !self.keep_read {
                    self.end_read()?;
                }
                return Ok(Poll::Ready(()));
            }
            PagerState::Write => {}
        }
        // (Debug builds only: tracked in release builds, the step's rank
        // grew the commit loop by 3.6 KB.)
        #[cfg(debug_assertions)]
        let mut reached = 0;
        loop {
            let step = std::mem::take(&mut self.commit_step);
            #[cfg(debug_assertions)]
            {
                // invariant: commit_steps_forward
                debug_assert!(step.rank() >= reached, "commit went back to step {} from {reached}", step.rank());
                reached = step.rank();
            }
            match step {
                CommitStep::Start => {
                    crate::ready!(self.finish_spill()?);
                    if self.cache.dirty_pages().is_empty() && !self.db_touched {
                        // A journal opened at the first change (see
                        // `Pager::first_change`) but never written goes,
                        // as SQLite deletes it.
                        if self.journal_end == 0 && !self.journal_kept && self.journal_mode == JournalMode::Delete && self.journal_handle.take().is_some() {
                            self.io.backend().delete(&self.journal_path, false)?;
                        }
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
                    cs.extend(self.write_super_record()?);
                    let probe = self.probe_next_journal_header()?;
                    self.commit_step = CommitStep::WriteJournal(cs, probe);
                }
                CommitStep::WriteJournal(cs, probe) => {
                    // (Nothing taken before everything is done: a re-entry
                    // takes the results.)
                    if cs.iter().chain(&probe).any(|c| !c.is_done()) {
                        self.commit_step = CommitStep::WriteJournal(cs, probe);
                        return Ok(Poll::Pending);
                    }
                    all_done(&cs)?;
                    // Records written: now their syncs and count.
                    let cs = self.seal_journal(probe, false)?;
                    self.commit_step = if cs.is_empty() { CommitStep::LockExclusive } else { CommitStep::WriteJournalHeader(cs) };
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
                    let mut cs = Vec::new();
                    let ps = self.page_size as u64;
                    let mut dirty = self.cache.dirty_pages();
                    // From here on a failure leaves the file half written:
                    // rollback must restore the originals.
                    self.db_touched = true;
                    let file_size = self.file.size()?;
                    if !self.dont_write.is_empty() {
                        // (Pages past the file's end are written all the
                        // same: the file must reach the database's size.)
                        let in_file = (file_size / ps) as Pgno;
                        dirty.retain(|p| *p > in_file || !self.dont_write.contains(p));
                    }
                    if self.db_size as u64 * ps > file_size {
                        self.file.hint(FileHint::SizeHint(self.db_size as u64 * ps));
                    }
                    for (i, pgno) in dirty.iter().enumerate() {
                        // invariant: pager_dont_write_skipped
                        debug_assert!(*pgno > (file_size / ps) as Pgno || !self.dont_write.contains(pgno), "free-list leaf {pgno} written at commit");
                        if self.crash_after_pages == Some(i) {
                            self.crash_after_pages = None;
                            self.commit_step = CommitStep::WritePages(cs);
                            return Err(Error::new(SQLITE_IOERR_WRITE, "disk I/O error (simulated crash)"));
                        }
                        self.debug_journal_before_write(*pgno);
                        // (An evicted page's buffer when one is spare.)
                        let len = self.page(*pgno)?.len();
                        let mut data = self.cache.take_buffer(len);
                        data.copy_from_slice(self.page(*pgno)?);
                        cs.push(self.file.write((*pgno as u64 - 1) * ps, Buffer::from_vec(data))?);
                    }
                    self.count_writes(dirty.len());
                    if file_size > self.db_size as u64 * ps {
                        cs.push(self.file.truncate(self.db_size as u64 * ps)?);
                    }
                    if !self.opts.memory {
                        self.file.hint(FileHint::Sync(self.super_journal.clone()));
                    } else if dirty.len() * 4 >= self.cache.capacity() {
                        // A temporary database's file (once it has one,
                        // `io::temp_file`) hears of the sync SQLite's pager
                        // skips: SQLite flushes a temporary database at
                        // commit when a quarter of its cache is dirty.
                        self.file.hint(FileHint::Sync(None));
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
                    self.commit_step = CommitStep::Written;
                }
                CommitStep::Written => {
                    if self.held_for_super_journal() {
                        self.commit_step = CommitStep::Written;
                        return Ok(Poll::Ready(()));
                    }
                    // (The statement journal closes first, as SQLite's.)
                    self.close_subjournal();
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
                    self.commit_step = CommitStep::WalWritten;
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
                    self.commit_step = CommitStep::WalWritten;
                }
                CommitStep::LimitWal(c) => {
                    if !c.is_done() {
                        self.commit_step = CommitStep::LimitWal(c);
                        return Ok(Poll::Pending);
                    }
                    c.take()?;
                    self.commit_step = CommitStep::WalWritten;
                }
                CommitStep::WalWritten => {
                    if self.commit_held {
                        self.commit_step = CommitStep::WalWritten;
                        return Ok(Poll::Ready(()));
                    }
                    self.finish_wal_commit()?;
                    if self.keep_read {
                        return Ok(Poll::Ready(()));
                    }
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
                            // As SQLite: a zeroed header's sync is data-only,
                            // a truncated journal's a full one.
                            let data_only = self.journal_mode == JournalMode::Persist;
                            self.commit_step = CommitStep::SyncFinalized(self.journal_file(false)?.sync(data_only)?);
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
        self.own_commits = self.own_commits.wrapping_add(1);
        self.note_commit_for_backups();
        self.file.hint(FileHint::CommitPhaseTwo);
        self.cache.mark_all_clean();
        self.last_change_counter = Some(header::get_u32(self.page(1)?, header::CHANGE_COUNTER));
        self.finish_write_txn()?;
        self.end_wal_switch(true);
        Ok(())
    }

    pub(super) fn wal_file(&self) -> Result<std::sync::Arc<dyn crate::io::File>> {
        self.wal.as_ref().map(|w| w.file().clone()).ok_or_else(|| Error::new(crate::error::SQLITE_INTERNAL, "no WAL"))
    }

    fn finish_wal_commit(&mut self) -> Result<()> {
        self.close_subjournal();
        self.own_commits = self.own_commits.wrapping_add(1);
        self.note_commit_for_backups();
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
        if !self.counts_changes || self.wal.is_none() && self.exclusive_mode && self.change_count_done {
            // Bumped once already under this lock, or never counted
            // (`counts_changes`): only a size change is recorded (as
            // SQLite's b-tree records it when the file grows).
            if header::get_u32(self.page(1)?, header::DB_SIZE) != db_size {
                put_u32(self.page_mut(1)?, header::DB_SIZE, db_size);
            }
            return Ok(());
        }
        self.change_count_done = self.wal.is_none();
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

    /// The journal's sector size (header padding, segment alignment).
    pub(super) fn sector_size(&self) -> u32 {
        self.sector
    }

    /// Whether the journal's record count is left at -1 (counted from
    /// the file's size at playback), as SQLite does under
    /// `synchronous=OFF` and on a SAFE_APPEND device.
    fn journal_counts_from_size(&self) -> bool {
        self.synchronous == Synchronous::Off || self.iocap & crate::io::iocap::SAFE_APPEND != 0
    }

    /// Put `pgno` (being journaled) in the journal's order; with sectors
    /// larger than pages, every page of its sector that the transaction
    /// started with, as SQLite does so that a torn sector write can be
    /// undone (their originals are read when the journal is written).
    pub(super) fn list_for_journal(&mut self, pgno: Pgno) {
        let per = self.sector / self.page_size;
        if per > 1 && self.journal_mode.uses_file() && !self.opts.memory {
            let first = (pgno - 1) / per * per + 1;
            let skip = self.pending_byte_page();
            for q in first..first + per {
                if q <= self.orig_db_size && q != skip && self.journal_listed.insert(q) {
                    self.journal_order.push(q);
                }
            }
        } else if self.journal_listed.insert(pgno) {
            self.journal_order.push(pgno);
        }
    }

    /// Originals of listed pages nobody changed (the rest of a large
    /// sector), read from the database file, which still holds them. As
    /// in SQLite such a page becomes dirty: the commit writes it back
    /// with the others (the whole sector is rewritten). Only devices with
    /// sectors larger than pages list such pages: an application VFS,
    /// whose calls complete as they are made.
    fn read_listed_originals(&mut self) -> Result<()> {
        let missing: Vec<Pgno> = self.journal_order.iter().copied().filter(|p| !self.originals.contains_key(p)).collect();
        for pgno in missing {
            // (A free-list leaf reused by the allocator is dirty without
            // an original: whatever the file holds will do for it.)
            let dirty = self.cache.get(pgno).map(|p| p.is_dirty());
            let data = match self.cache.get(pgno) {
                Some(p) if !p.is_dirty() => p.data.to_vec(),
                _ => {
                    let ps = self.page_size as usize;
                    let c = self.file.read((pgno as u64 - 1) * ps as u64, Buffer::from_vec(vec![0u8; ps]))?;
                    self.io.wait(&c)?;
                    let r = c.take()?;
                    r.buffer.map(|b| b.into_vec()).unwrap_or_else(|| vec![0u8; ps])
                }
            };
            if pgno <= self.db_size && dirty != Some(true) {
                self.install(pgno, data.clone(), true);
            }
            self.originals.insert(pgno, data);
        }
        Ok(())
    }

    /// Debug builds: before page `pgno` of the database file is written
    /// in rollback mode, its original (when it has one) is in the journal
    /// file and EXCLUSIVE is held (SQLite's `pager_write_pagelist`
    /// asserts the same).
    #[inline]
    pub(super) fn debug_journal_before_write(&self, pgno: Pgno) {
        let journal_file = self.journal_mode.uses_file() && !self.opts.memory && self.wal.is_none() && !self.temp_journal.enabled;
        // invariant: pager_journal_before_db
        debug_assert!(
            !journal_file || !self.originals.contains_key(&pgno) || self.journaled.contains(&pgno),
            "page {pgno} written to the database before its journal record"
        );
        // invariant: pager_state_lock
        debug_assert!(!self.locks_file() || self.file.lock_level() == LockLevel::Exclusive, "database page {pgno} written without EXCLUSIVE");
    }

    /// Bring the journal file up to date with every original kept so far,
    /// laid out as SQLite's pager lays it out: a segment is a header
    /// sector (its magic and record count zero until the records are on
    /// disk, see [`Pager::seal_journal`]; the count -1 when it is never
    /// written) then records in the order the pages were first changed.
    /// The first time in a transaction the header and records are one
    /// write; later (after a cache spill) the new records are appended
    /// to the segment [`Pager::seal_journal`] opened.
    pub(super) fn append_journal(&mut self) -> Result<Vec<Completion>> {
        self.read_listed_originals()?;
        let pgnos: Vec<Pgno> = self.journal_order.iter().copied().filter(|p| !self.journaled.contains(p)).collect();
        debug_assert!(pgnos.iter().all(|p| self.originals.contains_key(p)));
        // invariant: super_record_last
        debug_assert!(pgnos.is_empty() || !self.super_written, "page records appended after the super-journal record");
        let f = self.journal_file(true)?;
        let recs: Vec<_> = pgnos.iter().map(|p| (*p, self.originals[p].as_slice())).collect();
        let mut cs = Vec::new();
        let counted = !self.journal_counts_from_size();
        if self.journal_end == 0 {
            if !std::mem::take(&mut self.nonce_drawn) {
                self.journal_nonce = journal::new_nonce();
            }
            let n_rec = if counted { None } else { Some(journal::COUNT_FROM_SIZE) };
            let mut bytes = journal::header_sector(self.journal_nonce, n_rec, self.orig_db_size, self.page_size, self.sector);
            bytes.extend(journal::records(self.journal_nonce, self.page_size, &recs));
            let len = bytes.len() as u64;
            cs.push(f.write(0, Buffer::from_vec(bytes))?);
            self.journal_hdr = 0;
            self.journal_segment_first = 0;
            self.journal_end = len;
            self.journal_header_pending = counted;
        } else {
            let bytes = journal::records(self.journal_nonce, self.page_size, &recs);
            let len = bytes.len() as u64;
            if len > 0 {
                cs.push(f.write(self.journal_end, Buffer::from_vec(bytes))?);
                self.journal_header_pending = counted;
            }
            self.journal_end += len;
        }
        self.journaled.extend(pgnos);
        Ok(cs)
    }

    /// Where the journal's next segment header would go: the end of the
    /// records, rounded up to the sector size.
    fn next_journal_header(&self) -> u64 {
        self.journal_end.div_ceil(self.sector as u64) * self.sector as u64
    }

    /// The read of the 8 bytes where the next segment header would go
    /// (SQLite's check for a stale header of an older, longer journal
    /// there), submitted after the records when the header will be
    /// sealed; `None` otherwise.
    pub(super) fn probe_next_journal_header(&mut self) -> Result<Option<Completion>> {
        if !self.journal_header_pending {
            return Ok(None);
        }
        let at = self.next_journal_header();
        Ok(Some(self.journal_file(false)?.read(at, Buffer::from_vec(vec![0u8; 8]))?))
    }

    /// Make the journal's records durable and count them, SQLite's way
    /// (`probe`: [`Pager::probe_next_journal_header`]'s read, done): a
    /// stale header past the records is spoiled (one zero byte), the
    /// records synced (`synchronous=FULL`), the segment's magic and record
    /// count written, and the whole synced; a SEQUENTIAL device needs no
    /// journal sync, a SAFE_APPEND one (or `synchronous=OFF`) no count.
    /// With `new_segment` (a cache spill) a fresh header follows for the
    /// records to come. The requests are returned together: each sync
    /// takes effect after the writes before it.
    pub(super) fn seal_journal(&mut self, probe: Option<Completion>, new_segment: bool) -> Result<Vec<Completion>> {
        let mut cs = Vec::new();
        if self.synchronous == Synchronous::Off {
            self.journal_header_pending = false;
            return Ok(cs);
        }
        let f = self.journal_file(false)?;
        let sequential = self.iocap & crate::io::iocap::SEQUENTIAL != 0;
        if self.journal_header_pending {
            self.journal_header_pending = false;
            let stale = match probe {
                Some(c) => c.take()?.buffer.is_some_and(|b| b[..] == journal::JOURNAL_MAGIC),
                None => false,
            };
            if stale {
                cs.push(f.write(self.next_journal_header(), Buffer::from_vec(vec![0u8]))?);
            }
            if self.synchronous >= Synchronous::Full && !sequential {
                cs.push(f.sync(false)?);
            }
            let count = (self.journaled.len() - self.journal_segment_first) as u32;
            cs.push(f.write(self.journal_hdr, Buffer::from_vec(journal::header_count(count)))?);
        }
        if !sequential {
            cs.push(f.sync(false)?);
        }
        if new_segment && !self.journal_counts_from_size() {
            self.journal_hdr = self.next_journal_header();
            self.journal_segment_first = self.journaled.len();
            // (Each header gets a nonce of its own, as SQLite's.)
            self.journal_nonce = journal::new_nonce();
            let hdr = journal::header_sector(self.journal_nonce, None, self.orig_db_size, self.page_size, self.sector);
            self.journal_end = self.journal_hdr + hdr.len() as u64;
            cs.push(f.write(self.journal_hdr, Buffer::from_vec(hdr))?);
        }
        Ok(cs)
    }

    /// End the journal after a rollback as a commit ends it (SQLite's
    /// `pager_end_transaction` serves both), blocking on the requests:
    /// deleted in DELETE mode, truncated in TRUNCATE mode, its header
    /// zeroed in PERSIST mode, kept in exclusive locking mode; synced and
    /// cut to `journal_size_limit` as after a commit.
    pub(super) fn finalize_journal_now(&mut self) -> Result<()> {
        self.submit_finalize()?;
        let c = match std::mem::take(&mut self.commit_step) {
            CommitStep::FinalizeJournal(c) => c,
            _ => None,
        };
        if let Some(c) = c {
            self.io.wait(&c)?;
            c.take()?;
            if self.finalize_needs_sync() {
                let s = self.journal_file(false)?.sync(self.journal_mode == JournalMode::Persist)?;
                self.io.wait(&s)?;
                s.take()?;
            }
        }
        if let Some(c) = self.submit_journal_limit()? {
            self.io.wait(&c)?;
            c.take()?;
        }
        Ok(())
    }

    fn submit_finalize(&mut self) -> Result<()> {
        self.journal_kept = false;
        let c = if self.opts.memory || !self.journal_mode.uses_file() {
            None
        } else {
            match self.journal_mode {
                // In exclusive mode SQLite keeps the journal as PERSIST
                // does, until the lock goes.
                JournalMode::Delete if self.exclusive_mode && !self.entering_wal => {
                    self.journal_kept = true;
                    let f = self.journal_file(false)?;
                    Some(if self.persist_truncates() || self.super_written { f.truncate(0)? } else { f.write(0, Buffer::zeroed(28))? })
                }
                JournalMode::Delete => {
                    // Closed first, so the unlink frees the file (off this
                    // thread where the backend can).
                    self.journal_handle = None;
                    Some(self.io.backend().delete_request(&self.journal_path, self.synchronous == Synchronous::Extra)?)
                }
                JournalMode::Truncate => Some(self.journal_file(false)?.truncate(0)?),
                // (Also when it ends with a super-journal's name, which
                // a later journal written over it must not inherit.)
                JournalMode::Persist if self.persist_truncates() || self.super_written => Some(self.journal_file(false)?.truncate(0)?),
                _ => Some(self.journal_file(false)?.write(0, Buffer::zeroed(28))?),
            }
        };
        self.commit_step = CommitStep::FinalizeJournal(c);
        Ok(())
    }
}
