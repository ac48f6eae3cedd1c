//! Per-database settings the pager enforces or reports: `PRAGMA
//! data_version` (how many times a read transaction found that another
//! connection had committed), `PRAGMA journal_size_limit` (the size a
//! persistent rollback journal or a restarted WAL is cut back to) and
//! `PRAGMA max_page_count` (the database may not grow past it: the page
//! allocator fails with `SQLITE_FULL`).
//!
//! Invariants: `data_version` never changes for this connection's own
//! commits; `max_page_count` is never below the database's size as a
//! transaction sees it (setting it clamps, and a read transaction raises
//! it to a file another connection grew) (checked:
//! max_page_count_covers_size).

use super::{JournalMode, Pager};
use crate::error::{Error, Result, SQLITE_FULL};
use crate::io::Completion;
use crate::pager::Pgno;

/// The largest database, in pages (SQLite's default `max_page_count`).
pub const MAX_PAGE_COUNT: Pgno = 0xffff_fffe;

impl Pager {
    /// `PRAGMA data_version`: changes whenever another connection commits
    /// (noticed at the start of a read transaction), never for this one's.
    pub fn data_version(&self) -> u32 {
        self.data_version
    }

    /// `SQLITE_FCNTL_DATA_VERSION`: changes whenever the content may have
    /// changed, through this connection's commits as through others'.
    pub fn file_data_version(&self) -> u32 {
        self.data_version.wrapping_add(self.own_commits)
    }

    /// A read transaction found the database changed by someone else.
    pub(super) fn note_foreign_commit(&mut self) {
        self.data_version = self.data_version.wrapping_add(1);
    }

    /// `PRAGMA journal_size_limit` (-1: no limit).
    pub fn journal_size_limit(&self) -> i64 {
        self.journal_size_limit
    }

    /// Set `PRAGMA journal_size_limit` (below -1: no limit). Returns the
    /// resulting limit.
    pub fn set_journal_size_limit(&mut self, limit: i64) -> i64 {
        self.journal_size_limit = limit.max(-1);
        self.journal_size_limit
    }

    /// `PRAGMA max_page_count`.
    pub fn max_page_count(&self) -> Pgno {
        self.max_page_count
    }

    /// Set `PRAGMA max_page_count` to `n` pages, but never below the
    /// current size; 0 only asks. Returns the resulting limit.
    pub fn set_max_page_count(&mut self, n: Pgno) -> Pgno {
        if n > 0 {
            self.max_page_count = n.max(self.db_size);
        }
        self.max_page_count
    }

    /// A read transaction found the database this big: a file another
    /// connection grew past `max_page_count` must stay readable, so the
    /// limit rises to its size (as SQLite's does).
    pub(super) fn admit_size(&mut self) {
        self.max_page_count = self.max_page_count.max(self.db_size);
    }

    /// Refuse to grow the database to `pgno` pages past `max_page_count`.
    pub(super) fn check_growth(&self, pgno: Pgno) -> Result<()> {
        // invariant: max_page_count_covers_size
        debug_assert!(self.max_page_count >= self.db_size, "max_page_count {} below the size {}", self.max_page_count, self.db_size);
        if pgno > self.max_page_count {
            return Err(Error::code(SQLITE_FULL));
        }
        Ok(())
    }

    /// PERSIST mode with a positive limit: after the journal header was
    /// zeroed at commit, cut a journal longer than the limit back to it.
    /// (A limit of 0 truncates the journal instead of zeroing it, see
    /// [`Pager::persist_truncates`].)
    pub(super) fn submit_journal_limit(&mut self) -> Result<Option<Completion>> {
        let limit = self.journal_size_limit;
        if self.journal_mode != JournalMode::Persist || limit <= 0 || self.opts.memory {
            return Ok(None);
        }
        let journal = self.journal_file(false)?;
        if journal.size()? <= limit as u64 {
            return Ok(None);
        }
        Ok(Some(journal.truncate(limit as u64)?))
    }

    /// PERSIST mode with `journal_size_limit=0`: the journal is truncated
    /// at commit rather than its header zeroed.
    pub(super) fn persist_truncates(&self) -> bool {
        self.journal_size_limit == 0
    }

    /// WAL mode: the commit being written restarted the log (its frames
    /// begin at the first frame) and a limit is set: the log file's size
    /// to cut it back to (never below the end of the frames just written).
    pub(super) fn wal_limit_target(&self) -> Option<u64> {
        let limit = self.journal_size_limit;
        if limit < 0 {
            return None;
        }
        let end = self.wal.as_ref()?.pending_end_if_restarted()?;
        Some(end.max(limit as u64))
    }

    /// Submit the cut of a restarted WAL back to `journal_size_limit`, if
    /// it is longer.
    pub(super) fn submit_wal_limit(&mut self) -> Result<Option<Completion>> {
        let Some(target) = self.wal_limit_target() else { return Ok(None) };
        let log = self.wal_file()?;
        if log.size()? <= target {
            return Ok(None);
        }
        Ok(Some(log.truncate(target)?))
    }
}
