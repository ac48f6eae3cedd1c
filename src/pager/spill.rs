//! # Cache spill
//!
//! A write transaction bigger than the cache would otherwise keep every
//! changed page in memory. Between two B-tree operations, when the cache
//! is over its bound and nearly all of it is dirty (too little is left to
//! evict), the pager spills its least recently used dirty pages (as the
//! cache's clock sees them), half the bound at a time (pages in use stay
//! dirty, as with
//! SQLite, which spills the least recently used dirty page when it needs
//! room, so a page is rarely written twice):
//! `Journal` (append the originals not yet journaled) → `Sync` (the
//! journal's syncs and record count, and a new segment header, as
//! SQLite's pager seals its journal before a spill) → `Lock` (EXCLUSIVE; if it cannot be had
//! the spill is given up for this transaction and the cache just grows) →
//! `Pages` (write the dirty pages) → the pages become clean and evictable.
//!
//! In WAL mode a spill appends the dirty pages to the log as frames
//! without a commit frame (`WalFrames`): only this connection reads them
//! back until the commit frame follows; a rollback forgets them.
//!
//! The journal is synced only when it grew since its last sync (a new
//! database's spills journal nothing).
//!
//! Invariants: a spilled page's original is in the journal and synced
//! before the page is written to the database, and once anything is
//! spilled the transaction holds EXCLUSIVE (checked:
//! pager_journal_before_db, pager_state_lock); a page being written is
//! kept dirty (unevictable) until its write completes; rollback must copy
//! the originals back into the file.

use super::{Pager, PagerState};
use crate::error::Result;
use crate::io::{Buffer, Completion, LockLevel};
use crate::pager::Pgno;
use crate::{IoPoll, Poll};

/// The bytes SQLite's page cache counts per page besides the page itself
/// (its `MemPage` header), in the pages a cache size in KiB makes.
const SQLITE_PAGE_HEADER: i64 = 136;

/// Where a spill is.
#[derive(Debug, Default)]
pub enum SpillStep {
    /// No spill in progress.
    #[default]
    Idle,
    /// Journal writes submitted, with the read of where the next header
    /// goes.
    Journal(Vec<Completion>, Option<Completion>),
    /// The journal's syncs, record count and next header submitted.
    Sync(Vec<Completion>),
    /// About to take EXCLUSIVE and write pages.
    Lock,
    /// Page writes submitted for these pages.
    Pages(Vec<Completion>, Vec<Pgno>),
    /// WAL mode: uncommitted frames submitted for these pages.
    WalFrames(Vec<Completion>, Vec<Pgno>),
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
    fn spill_wanted(&self) -> bool {
        let cap = self.cache.capacity();
        self.state == PagerState::Write
            && self.spill_on
            && !self.spill_disabled
            && self.cache.len() >= cap.max(self.spill_size)
            && self.cache.dirty_count() * 8 >= cap * 7
    }

    /// `PRAGMA cache_spill` on or off (the connection's flag).
    pub fn set_cache_spill(&mut self, on: bool) {
        self.spill_on = on;
    }

    /// Whether `PRAGMA cache_spill` is on.
    pub fn cache_spill_on(&self) -> bool {
        self.spill_on
    }

    /// `PRAGMA cache_spill=N` (N not 0): the threshold in pages, or in
    /// KiB when negative (counted as SQLite counts a page's memory, with
    /// its header).
    pub fn set_spill_size(&mut self, n: i32) {
        if n != 0 {
            self.spill_size = if n > 0 { n as usize } else { self.sqlite_pages_in_kib_of(-(n as i64)) as usize };
        }
    }

    /// What `PRAGMA cache_spill` reports: 0 when spilling is off, else
    /// the cache's size in pages or the spill threshold, the larger (in
    /// SQLite's count: a cache size in KiB is divided by the page size
    /// plus its 136-byte header).
    pub fn cache_spill_report(&self) -> i64 {
        if !self.spill_on {
            return 0;
        }
        let n = self.cache_size();
        let pages = if n >= 0 { n } else { self.sqlite_pages_in_kib_of(-n) };
        pages.max(self.spill_size as i64)
    }

    fn sqlite_pages_in_kib_of(&self, kib: i64) -> i64 {
        kib.saturating_mul(1024) / (self.page_size() as i64 + SQLITE_PAGE_HEADER)
    }

    /// The pages one spill writes.
    fn spill_batch(&self) -> Vec<Pgno> {
        self.cache.coldest_dirty_pages((self.cache.capacity() / 2).max(1))
    }

    /// Spill if the cache is over its bound with mostly dirty pages. Call
    /// only between B-tree operations.
    #[inline]
    pub fn maybe_spill(&mut self) -> IoPoll<()> {
        if matches!(self.spill_step, SpillStep::Idle) && !self.spill_wanted() {
            return Ok(Poll::Ready(()));
        }
        self.run_spill()
    }

    /// Complete a spill in progress, if any.
    pub fn finish_spill(&mut self) -> IoPoll<()> {
        if matches!(self.spill_step, SpillStep::Idle) {
            return Ok(Poll::Ready(()));
        }
        self.run_spill()
    }

    fn run_spill(&mut self) -> IoPoll<()> {
        loop {
            match std::mem::take(&mut self.spill_step) {
                SpillStep::Idle if self.wal.is_some() => {
                    crate::ready!(self.wal_prepare_header()?);
                    let pgnos = self.spill_batch();
                    let cs = self.wal_write_spill(&pgnos)?;
                    self.spill_step = SpillStep::WalFrames(cs, pgnos);
                }
                SpillStep::WalFrames(cs, pgnos) => {
                    if !all_done(&cs)? {
                        self.spill_step = SpillStep::WalFrames(cs, pgnos);
                        return Ok(Poll::Pending);
                    }
                    self.wal_publish()?;
                    self.note_written_for_backups(&pgnos);
                    for pgno in pgnos {
                        self.cache.mark_clean(pgno);
                    }
                    return Ok(Poll::Ready(()));
                }
                SpillStep::Idle => {
                    let journal_synced = self.journal_end > 0
                        && self.journal_synced_end == self.journal_end
                        && self.journal_order.len() == self.journaled.len()
                        && !self.journal_header_pending;
                    if self.opts.memory || !self.journal_mode.uses_file() || journal_synced {
                        self.spill_step = SpillStep::Lock;
                    } else {
                        let cs = self.append_journal()?;
                        let probe = self.probe_next_journal_header()?;
                        self.spill_step = SpillStep::Journal(cs, probe);
                    }
                }
                SpillStep::Journal(cs, probe) => {
                    // (Nothing taken before everything is done: a re-entry
                    // takes the results.)
                    if cs.iter().chain(&probe).any(|c| !c.is_done()) {
                        self.spill_step = SpillStep::Journal(cs, probe);
                        return Ok(Poll::Pending);
                    }
                    all_done(&cs)?;
                    let cs = self.seal_journal(probe, true)?;
                    self.spill_step = SpillStep::Sync(cs);
                }
                SpillStep::Sync(cs) => {
                    if !all_done(&cs)? {
                        self.spill_step = SpillStep::Sync(cs);
                        return Ok(Poll::Pending);
                    }
                    self.journal_synced_end = self.journal_end;
                    self.spill_step = SpillStep::Lock;
                }
                SpillStep::Lock => {
                    if self.locks_file() && !self.file.lock(LockLevel::Exclusive)? {
                        // Readers are still there: keep everything in memory.
                        self.spill_disabled = true;
                        return Ok(Poll::Ready(()));
                    }
                    let ps = self.page_size as u64;
                    let pgnos = self.spill_batch();
                    let mut cs = Vec::with_capacity(pgnos.len());
                    // (Free-list leaves are made clean unwritten, as
                    // SQLite's pager_write_pagelist skips them.)
                    let in_file = (self.file.size()? / ps) as Pgno;
                    for &pgno in pgnos.iter().filter(|p| **p > in_file || !self.dont_write.contains(p)) {
                        self.debug_journal_before_write(pgno);
                        // (An evicted page's buffer when one is spare:
                        // fresh 4 KiB allocations showed up at 2%.)
                        let len = self.page(pgno)?.len();
                        let mut data = self.cache.take_buffer(len);
                        data.copy_from_slice(self.page(pgno)?);
                        cs.push(self.file.write((pgno as u64 - 1) * ps, Buffer::from_vec(data))?);
                    }
                    self.count_spill(cs.len());
                    self.db_touched = true;
                    self.spill_step = SpillStep::Pages(cs, pgnos);
                }
                SpillStep::Pages(cs, pgnos) => {
                    if !all_done(&cs)? {
                        self.spill_step = SpillStep::Pages(cs, pgnos);
                        return Ok(Poll::Pending);
                    }
                    self.note_written_for_backups(&pgnos);
                    for pgno in pgnos {
                        self.cache.mark_clean(pgno);
                    }
                    return Ok(Poll::Ready(()));
                }
            }
        }
    }
}
