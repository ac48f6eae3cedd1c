//! # The pager
//!
//! Owns one database file's pages, its locks and its rollback journal, and
//! gives the B-tree transactional page access: read a page (resumably),
//! modify a page (journaled first), create pages, commit, roll back,
//! savepoints. SQLite's pager is the model (`atomiccommit.txt`).
//!
//! States: no transaction → read transaction (SHARED lock; a hot journal
//! was rolled back; the cache was validated against the file change
//! counter) → write transaction (RESERVED lock) → commit (EXCLUSIVE while
//! the database file is written) → no transaction. Opening and ending a
//! read transaction is `read_txn.rs`'s.
//!
//! Invariants:
//! - The file's lock agrees with the state: a read transaction holds
//!   SHARED or more, a write transaction RESERVED or more outside WAL
//!   mode, and the database file is written only under EXCLUSIVE (where
//!   the file is locked at all) (checked: pager_state_lock).
//! - A page is journaled (its original kept for the rollback journal and
//!   for every open savepoint) before its first modification in a
//!   transaction (checked: pager_journal_before_change). Pages past the
//!   original end of file and free-list leaves handed out by the allocator
//!   need no original.
//! - Dirty pages are never evicted (checked: cache_keeps_dirty_pinned).
//!   Until the cache overflows the database file is not written before
//!   commit, so a rollback only drops them; a transaction bigger than the
//!   cache spills ([`spill`]) after journaling and syncing the originals,
//!   takes EXCLUSIVE, and a rollback then copies the originals back into
//!   the file.
//! - A dirty page the B-tree freed as a free-list leaf (`dont_write`) is
//!   not written by a rollback-mode commit or spill unless it lies past
//!   the file's end; changing it again, or undoing the operation that
//!   freed it, makes it an ordinary dirty page again (checked:
//!   pager_dont_write_skipped).
//! - The rollback journal is written and synced before the first database
//!   page is written (checked: pager_journal_before_db), and the journal is
//!   finalized only after the database is synced: a crash at any point
//!   leaves either the old or the new database, or a hot journal that
//!   restores the old one (checked: crash_leaves_old_or_new).
//! - Commit is a state machine ([`commit::CommitStep`]); re-entering after
//!   `Pending` or `SQLITE_BUSY` continues where it stopped, never redoing a
//!   finished step (checked: commit_steps_forward).
//!
//! WAL mode ([`wal`], glue in `wal_mode.rs`): when the header says file
//! format 2/2 or a `-wal` file exists, the journal is replaced by the
//! write-ahead log. Read transactions pin a WAL snapshot (pages come from
//! the newest frame at or below it, else from the database file), writers
//! hold the WAL's WRITE lock instead of RESERVED/EXCLUSIVE, commit appends
//! frames (`WalFrames → WalSync`), the database file is only written by
//! checkpoints, and cache spills append uncommitted frames to the log. The
//! connection keeps SHARED on the database while attached.

pub mod backup_watch;
pub mod cache;
pub mod commit;
mod copy;
pub mod header;
pub mod journal;
mod limits;
pub mod locking_mode;
mod read_txn;
mod recovery;
pub mod savepoint;
mod spill;
pub mod stats;
pub mod subjournal;
pub mod super_journal;
mod temp_journal;
pub mod wal;
mod wal_mode;

use crate::error::{Error, Result, SQLITE_BUSY, SQLITE_INTERNAL, SQLITE_READONLY};
use crate::io::{Buffer, Completion, File, FileKind, IoContext, LockLevel, OpenOptions};
use crate::util::ascii::AsciiLower;
use crate::{IoPoll, Poll};
use cache::PageCache;
use commit::CommitStep;
use savepoint::Savepoint;
use std::sync::Arc;

/// A page number (1-based; 0 means none).
pub type Pgno = u32;

/// `PRAGMA journal_mode` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JournalMode {
    /// Delete the journal at commit (the default).
    Delete,
    /// Truncate the journal to zero bytes at commit.
    Truncate,
    /// Zero the journal header at commit.
    Persist,
    /// Keep the journal in memory only.
    Memory,
    /// No journal.
    Off,
    /// Write-ahead log (see [`wal`]).
    Wal,
}

impl JournalMode {
    /// Parse a pragma argument (case-insensitive).
    pub fn parse(s: &str) -> Option<JournalMode> {
        Some(match s.ascii_lower().as_str() {
            "delete" => JournalMode::Delete,
            "truncate" => JournalMode::Truncate,
            "persist" => JournalMode::Persist,
            "memory" => JournalMode::Memory,
            "off" => JournalMode::Off,
            "wal" => JournalMode::Wal,
            _ => return None,
        })
    }

    /// The name `PRAGMA journal_mode` reports.
    pub fn name(self) -> &'static str {
        match self {
            JournalMode::Delete => "delete",
            JournalMode::Truncate => "truncate",
            JournalMode::Persist => "persist",
            JournalMode::Memory => "memory",
            JournalMode::Off => "off",
            JournalMode::Wal => "wal",
        }
    }

    /// Whether the journal lives in a file.
    pub fn uses_file(self) -> bool {
        matches!(self, JournalMode::Delete | JournalMode::Truncate | JournalMode::Persist)
    }
}

/// `PRAGMA synchronous` levels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Synchronous {
    /// No fsync.
    Off = 0,
    /// fsync at the critical moments.
    Normal = 1,
    /// fsync the journal and the database (the default).
    Full = 2,
    /// Like FULL, plus the directory after deleting the journal.
    Extra = 3,
}

/// Transaction state of the pager.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PagerState {
    /// No lock, no transaction.
    Idle,
    /// Read transaction (SHARED).
    Read,
    /// Write transaction (RESERVED or more).
    Write,
}

/// The database file's first 100 bytes, as a read transaction reads them
/// (zero past the end of a shorter file).
type HeaderBytes = [u8; 100];

/// Steps of opening a read transaction.
#[derive(Debug)]
enum ReadStep {
    /// SHARED held: the hot-journal probe, the header read, the file size
    /// and (outside WAL mode) the WAL probe, submitted together so that
    /// one wait covers them all (SQLite does them one after the other,
    /// synchronously).
    Probe {
        journal: Completion,
        header: Completion,
        size: Completion,
        wal: Option<Completion>,
    },
    Recover(recovery::RecoveryStep),
    ReadHeader(Completion),
    /// Header read (this many bytes); the WAL read transaction (maybe a
    /// WAL recovery) is under way.
    Header(usize, HeaderBytes),
    /// WAL read lock held on a snapshot whose log has no frames: the
    /// header read again, now that no checkpoint can change the file.
    WalHeader(Completion),
}

/// What undoing one B-tree operation needs: each page's image (and dirty
/// flag) before the operation first touched it, `None` for pages it
/// created, and the database size.
#[derive(Debug, Default)]
struct OpUndo {
    db_size: Pgno,
    images: cache::PgnoMap<Option<(Vec<u8>, bool)>>,
    /// Pages the operation marked [`Pager::dont_write`]: live again if it
    /// is undone.
    dont_write: Vec<Pgno>,
}

/// Steps of putting originals back into the database file on rollback.
#[derive(Debug, Default)]
enum RollbackStep {
    #[default]
    Start,
    Restore(Vec<Completion>),
    Truncate(Completion),
    Sync(Completion),
}

/// The header's database size, if valid, must fit in the file (as in
/// SQLite, a larger one means the file is corrupt, not that pages exist
/// beyond its end).
#[inline]
pub(crate) fn checked_db_size(in_header: Option<Pgno>, file_size: u64, page_size: u32) -> Result<Option<Pgno>> {
    match in_header {
        Some(n) if n as u64 > file_size.div_ceil(page_size as u64) => Err(Error::corrupt()),
        other => Ok(other),
    }
}

/// Options for [`Pager::open`].
#[derive(Debug, Clone, Copy, Default)]
pub struct PagerOptions {
    /// Open read-only.
    pub read_only: bool,
    /// Create the file if missing.
    pub create: bool,
    /// No locking, no change detection.
    pub immutable: bool,
    /// An in-memory database (journal kept in memory).
    pub memory: bool,
    /// With `memory`: other connections may have the file open (a named
    /// shared in-memory database), so it is locked and their commits are
    /// noticed as for a file database.
    pub shared: bool,
}

/// The pager of one database file.
pub struct Pager {
    io: IoContext,
    file: Arc<dyn File>,
    path: String,
    /// The header's write version is past 2: SQLite reads such a file
    /// but refuses to write it (SQLITE_READONLY).
    header_read_only: bool,
    journal_path: String,
    opts: PagerOptions,
    page_size: u32,
    reserved: u8,
    /// Pages in the database as the current transaction sees it.
    db_size: Pgno,
    /// Pages in the database when the write transaction began.
    orig_db_size: Pgno,
    cache: PageCache,
    cache_size_pragma: i64,
    state: PagerState,
    read_step: Option<ReadStep>,
    /// The WAL probe's answer of the read transaction being opened (see
    /// [`ReadStep::Probe`]), for `wal_begin_read`; `None`: ask then.
    wal_probe: Option<bool>,
    /// The database file's size from the same probe, for `load_header`.
    size_probe: Option<u64>,
    journal_mode: JournalMode,
    synchronous: Synchronous,
    /// Change counter seen at the last read transaction.
    last_change_counter: Option<u32>,
    /// Original images of pages modified in this write transaction.
    originals: cache::PgnoMap<Vec<u8>>,
    savepoints: Vec<Savepoint>,
    commit_step: CommitStep,
    /// Reads in flight: completion and the cache generation they belong to.
    reads: cache::PgnoMap<(Completion, u64)>,
    /// Pages requested by read-ahead ([`Pager::prefetch`]) in this read
    /// transaction: their requests are forgotten when it ends if unused.
    ahead: Vec<Pgno>,
    generation: u64,
    /// The page whose absence stopped the last [`Pager::page`] call.
    missing: std::cell::Cell<Option<Pgno>>,
    /// Pages whose originals are already in the journal file.
    journaled: cache::PgnoSet,
    /// The journal file, open from its creation in a write transaction
    /// until the transaction ends (as SQLite keeps its journal descriptor):
    /// the commit's steps write and sync it through this one handle
    /// instead of opening the file again for each (an open, an fstat and
    /// a close each time).
    journal_handle: Option<Arc<dyn File>>,
    /// A DELETE-mode journal kept (header zeroed) by a commit in
    /// exclusive locking mode, deleted when the lock goes (see
    /// `locking_mode.rs`).
    journal_kept: bool,
    /// A rollback-mode commit bumped the change counter since the lock
    /// was taken: in exclusive mode later commits leave it (SQLite bumps
    /// it once per lock, as other connections can only see it then).
    change_count_done: bool,
    /// End of the journal file's last record (0: no journal written yet).
    journal_end: u64,
    /// `journal_end` when a spill last synced the journal (0: never in
    /// this transaction).
    journal_synced_end: u64,
    /// Checksum nonce of the current journal.
    journal_nonce: u32,
    /// The transaction's super-journal (`super_journal.rs`): its commit
    /// holds before finalizing the journal while set.
    super_journal: Option<Arc<str>>,
    /// The super-journal record is in the journal.
    super_written: bool,
    /// The statement journal's records (`subjournal.rs`).
    subjournal: subjournal::SubJournal,
    /// Commits bump the header's change counter. Not in a private
    /// in-memory or temporary database's (SQLite's pager never counts a
    /// temporary file's changes: their header keeps zeros there); a
    /// shared or deserialized in-memory database is a memdb file that
    /// does.
    counts_changes: bool,
    /// A temporary database's rollback journal (`temp_journal.rs`).
    temp_journal: temp_journal::TempJournal,
    /// `PRAGMA temp_store=MEMORY`: the statement journal stays in memory.
    temp_store_memory: bool,
    /// The backend opens files when SQLite does
    /// ([`crate::io::IoBackend::spills_statement_journals`]: an
    /// application VFS): the statement journal spills to a file, the
    /// rollback journal opens at the transaction's first change.
    opens_as_sqlite: bool,
    /// A page was changed in this write transaction.
    txn_changed: bool,
    /// `journal_nonce` was drawn for the journal's first header already
    /// (at the first change, where SQLite draws it).
    nonce_drawn: bool,
    /// A multi-database commit holds this one once written
    /// ([`Pager::set_commit_held`]).
    commit_held: bool,
    /// Set for the length of a [`Pager::commit_to_read`] or
    /// [`Pager::rollback_to_read`] call: the write transaction ends in a
    /// read transaction.
    keep_read: bool,
    /// The super-journal named by the hot journal being played back.
    recovering_super: Option<String>,
    /// Records were written whose segment header does not count them yet
    /// (its magic and count are written once they are on disk, see
    /// `Pager::seal_journal`).
    journal_header_pending: bool,
    /// Offset of the header of the journal segment being written.
    journal_hdr: u64,
    /// `journaled.len()` when that segment began.
    journal_segment_first: usize,
    /// Pages in the order their originals go to the journal: first touch
    /// first, and with sectors larger than pages every page of a touched
    /// sector in page order, as SQLite journals them.
    journal_order: Vec<Pgno>,
    /// The pages in `journal_order`.
    journal_listed: cache::PgnoSet,
    /// The journal's sector size (`io::journal_sector_size`) and the
    /// database file's `SQLITE_IOCAP_*` bits, asked once at open as
    /// SQLite's pager does.
    sector: u32,
    iocap: u32,
    /// The database file holds pages of this (uncommitted) transaction,
    /// written by a cache spill.
    db_touched: bool,
    /// A cache spill in progress.
    spill_step: spill::SpillStep,
    /// A spill could not get EXCLUSIVE: do not retry in this transaction.
    spill_disabled: bool,
    /// `PRAGMA cache_spill` is on (the connection's flag, told to every
    /// pager).
    spill_on: bool,
    /// `PRAGMA cache_spill=N`: spill only past this many cached pages
    /// (when more than the cache's capacity).
    spill_size: usize,
    /// Where a rollback that restores the file is.
    rollback_step: RollbackStep,
    /// Undo log of the B-tree operation in progress (see [`Pager::op_begin`]).
    op_undo: Option<OpUndo>,
    /// Test hook: stop the commit with an error after writing this many
    /// database pages (simulates a crash mid-commit).
    crash_after_pages: Option<usize>,
    /// The write-ahead log, when the database is in WAL mode.
    wal: Option<wal::Wal>,
    /// `PRAGMA wal_autocheckpoint`.
    wal_autocheckpoint: u32,
    /// Test hook: behave like a crashed process on drop.
    abandoned: bool,
    /// `SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE`: the last connection leaves the
    /// WAL as it is (no checkpoint, no delete) when it closes.
    no_ckpt_on_close: bool,
    /// Writing 1/1 into the header on the way out of WAL mode.
    leaving_wal: bool,
    /// Writing 2/2 into the header on the way into WAL mode (its journal
    /// is deleted at commit even in exclusive locking mode).
    entering_wal: bool,
    /// The header's transaction into or out of WAL mode is left open for
    /// the statement to commit (SQLite returns the pragma's row before
    /// that commit): into WAL, the mode to go back to if it rolls back
    /// (WAL mode begins when it commits); out of it, the new mode
    /// ([`Pager::end_wal_switch`]).
    pending_wal_switch: Option<JournalMode>,
    /// `PRAGMA page_size` asked for a size the database could not take
    /// at once (it has pages): VACUUM applies it (`copy.rs`).
    requested_page_size: Option<u32>,
    /// `PRAGMA data_version`: bumped each time a read transaction finds
    /// that another connection committed (see `limits.rs`).
    data_version: u32,
    /// Write transactions this connection committed (see
    /// [`Pager::file_data_version`]).
    own_commits: u32,
    /// Online backups reading this database (`backup_watch.rs`).
    backup_watches: Vec<backup_watch::BackupWatch>,
    /// The last backup watch id handed out.
    backup_watch_ids: u64,
    /// Reserved bytes per page asked for (see [`Pager::request_reserve`]).
    reserve_wanted: u8,
    /// `PRAGMA journal_size_limit` (-1: no limit).
    journal_size_limit: i64,
    /// `PRAGMA max_page_count`: the database may not grow past it.
    max_page_count: Pgno,
    /// `PRAGMA locking_mode=EXCLUSIVE`: keep the file lock between
    /// transactions (`locking_mode.rs`).
    exclusive_mode: bool,
    /// `sqlite3_db_status`'s cache counters (`stats.rs`).
    stats: stats::PagerStats,
    /// Dirty pages the B-tree put on the free list as leaves: a commit or
    /// spill in rollback mode does not write them (SQLite's
    /// `PGHDR_DONT_WRITE`); a later change takes a page off again.
    dont_write: cache::PgnoSet,
}

fn busy() -> Error {
    Error::code(SQLITE_BUSY)
}

impl Pager {
    /// Open the database file at `path`. Nothing is read until the first
    /// read transaction.
    pub fn open(io: &IoContext, path: &str, opts: PagerOptions) -> Result<Pager> {
        let file = io.backend().open(
            path,
            OpenOptions { read_only: opts.read_only, create: opts.create, kind: FileKind::MainDb, lock_style: io.lock_style(), ..Default::default() },
        )?;
        let mut opts = opts;
        opts.read_only |= file.opened_read_only();
        let mut pager = Pager {
            io: io.clone(),
            file,
            path: path.to_string(),
            journal_path: format!("{path}-journal"),
            opts,
            page_size: header::DEFAULT_PAGE_SIZE,
            reserved: 0,
            db_size: 0,
            orig_db_size: 0,
            cache: PageCache::new(2000),
            cache_size_pragma: -2000,
            state: PagerState::Idle,
            read_step: None,
            wal_probe: None,
            size_probe: None,
            journal_mode: if opts.memory { JournalMode::Memory } else { JournalMode::Delete },
            synchronous: Synchronous::Full,
            last_change_counter: None,
            header_read_only: false,
            originals: cache::PgnoMap::default(),
            savepoints: Vec::new(),
            commit_step: CommitStep::Start,
            reads: cache::PgnoMap::default(),
            ahead: Vec::new(),
            generation: 0,
            crash_after_pages: None,
            missing: std::cell::Cell::new(None),
            op_undo: None,
            journaled: cache::PgnoSet::default(),
            journal_handle: None,
            journal_kept: false,
            change_count_done: false,
            journal_end: 0,
            journal_synced_end: 0,
            journal_nonce: 0,
            super_journal: None,
            super_written: false,
            recovering_super: None,
            commit_held: false,
            keep_read: false,
            subjournal: subjournal::SubJournal::default(),
            counts_changes: !opts.memory || opts.shared,
            temp_journal: temp_journal::TempJournal::new(opts.memory && io.backend().spills_temp_journal()),
            temp_store_memory: false,
            opens_as_sqlite: io.backend().spills_statement_journals(),
            txn_changed: false,
            nonce_drawn: false,
            journal_header_pending: false,
            journal_hdr: 0,
            journal_segment_first: 0,
            journal_order: Vec::new(),
            journal_listed: cache::PgnoSet::default(),
            sector: 512,
            iocap: 0,
            db_touched: false,
            spill_step: spill::SpillStep::Idle,
            spill_disabled: false,
            spill_on: true,
            spill_size: 1,
            rollback_step: RollbackStep::Start,
            wal: None,
            wal_autocheckpoint: wal_mode::DEFAULT_AUTOCHECKPOINT,
            abandoned: false,
            no_ckpt_on_close: false,
            leaving_wal: false,
            entering_wal: false,
            pending_wal_switch: None,
            requested_page_size: None,
            data_version: 1,
            own_commits: 0,
            backup_watches: Vec::new(),
            backup_watch_ids: 0,
            reserve_wanted: 0,
            journal_size_limit: -1,
            max_page_count: limits::MAX_PAGE_COUNT,
            exclusive_mode: false,
            stats: stats::PagerStats::default(),
            dont_write: cache::PgnoSet::default(),
        };
        pager.learn_device();
        pager.apply_cache_size();
        Ok(pager)
    }

    fn apply_cache_size(&mut self) {
        let n = self.cache_size_pragma;
        let pages = if n >= 0 { n as usize } else { ((-n) as u64 * 1024 / self.page_size as u64) as usize };
        self.cache.set_capacity(pages);
        // (temp_store=MEMORY: a temporary database never gets a file.)
        let bound = if self.temp_store_memory { u64::MAX } else { pages as u64 * self.page_size as u64 };
        self.file.cache_bound(bound, self.page_size);
    }

    /// The open WAL, else the open rollback journal, if any
    /// (`SQLITE_FCNTL_JOURNAL_POINTER`).
    pub fn journal_or_wal_file(&self) -> Option<Arc<dyn File>> {
        match &self.wal {
            Some(w) => Some(w.file().clone()),
            None => self.journal_handle.clone(),
        }
    }

    /// The database file (the C API reaches an application VFS's file
    /// behind it for `sqlite3_file_control`).
    pub fn file(&self) -> &Arc<dyn File> {
        &self.file
    }

    /// The I/O context.
    pub fn io(&self) -> &IoContext {
        &self.io
    }

    /// The backend's name (`PRAGMA io_backend`).
    pub fn io_backend_name(&self) -> &'static str {
        self.io.backend().name()
    }

    /// Page size in bytes.
    pub fn page_size(&self) -> u32 {
        self.page_size
    }

    /// Usable bytes per page (page size minus reserved bytes).
    pub fn usable_size(&self) -> u32 {
        self.page_size - self.reserved as u32
    }

    /// Take the file's sector size and device characteristics, as SQLite
    /// does when it opens a database: at open, and again when the open
    /// settings of the file changed them (the `psow` URI parameter).
    pub fn learn_device(&mut self) {
        self.sector = crate::io::journal_sector_size(&*self.file);
        self.iocap = self.file.device_characteristics();
        debug_assert!(self.sector.is_power_of_two() || self.sector >= 32);
    }

    /// Reserved bytes at the end of each page (header byte 20).
    pub fn reserved_bytes(&self) -> u8 {
        self.reserved
    }

    /// Reserved bytes per page as `SQLITE_FCNTL_RESERVE_BYTES` reports
    /// them: the file's, or more if more were asked for (SQLite never
    /// lowers a database's reserve).
    pub fn requested_reserve(&self) -> u8 {
        self.reserved.max(self.reserve_wanted)
    }

    /// Ask for `n` reserved bytes per page (`SQLITE_FCNTL_RESERVE_BYTES`):
    /// taken at once while the database is empty and no transaction is
    /// open, else by the next VACUUM.
    pub fn request_reserve(&mut self, n: u8) {
        self.reserve_wanted = n;
        if self.db_size == 0 && self.state != PagerState::Write && self.page_size - n.max(self.reserved) as u32 >= 480 {
            self.reserved = n.max(self.reserved);
            self.cache.clear();
        }
    }

    /// Set the page size; only takes effect while the database is empty
    /// and no transaction is open. Returns the resulting page size.
    pub fn set_page_size(&mut self, size: u32) -> u32 {
        if header::valid_page_size(size) && self.db_size == 0 && self.state != PagerState::Write {
            self.page_size = size;
            self.cache.clear();
            self.apply_cache_size();
        }
        if header::valid_page_size(size) {
            self.requested_page_size = Some(size);
        }
        self.page_size
    }

    /// `PRAGMA cache_size` value (pages if positive, KiB if negative).
    pub fn cache_size(&self) -> i64 {
        self.cache_size_pragma
    }

    /// Drop the clean, unpinned cached pages (`sqlite3_db_release_memory`);
    /// returns the bytes freed. Like eviction, this never loses a change
    /// nor a page an operation holds.
    pub fn release_memory(&mut self) -> usize {
        self.cache.release_unused()
    }

    /// Set `PRAGMA cache_size`.
    pub fn set_cache_size(&mut self, n: i64) {
        self.cache_size_pragma = n;
        self.apply_cache_size();
    }

    /// The journal mode.
    pub fn journal_mode(&self) -> JournalMode {
        self.journal_mode
    }

    /// Change the journal mode (not inside a write transaction; in-memory
    /// databases only allow MEMORY and OFF). Returns the resulting mode.
    ///
    /// With `defer` (the statement will commit what it began, as in
    /// autocommit mode with no other statement running), a change into
    /// WAL leaves the header's transaction open for that commit, as
    /// SQLite's does; else it is committed here.
    pub fn set_journal_mode(&mut self, mode: JournalMode, defer: bool) -> JournalMode {
        // A write transaction that changed nothing yet may still switch
        // between the rollback modes (SQLite: before WRITER_CACHEMOD; a
        // new database's page 1 is a change), never into or out of WAL.
        if self.state == PagerState::Write && (self.txn_changed || self.orig_db_size == 0 || mode == JournalMode::Wal || self.wal.is_some()) {
            return self.journal_mode;
        }
        if self.opts.memory && mode.uses_file() {
            return self.journal_mode;
        }
        if mode == JournalMode::Wal || self.wal.is_some() {
            return self.switch_wal(mode, defer);
        }
        let old = std::mem::replace(&mut self.journal_mode, mode);
        // Leaving TRUNCATE or PERSIST for a mode that keeps no journal file
        // (DELETE, OFF, MEMORY) deletes the journal left in place, under
        // RESERVED, as SQLite does (not in exclusive locking mode).
        if matches!(old, JournalMode::Truncate | JournalMode::Persist)
            && matches!(mode, JournalMode::Delete | JournalMode::Off | JournalMode::Memory)
            && !self.exclusive_mode
            && !self.opts.memory
            && self.locks_file()
        {
            self.journal_handle = None;
            let was = self.file.lock_level();
            // (SHARED as a read transaction takes it, looking at the
            // journal left in place first as SQLite does.)
            let reading = self.state == PagerState::Idle && self.io.clone().block_on(|| self.begin_read()).is_ok();
            let locked = self.file.lock(LockLevel::Shared).unwrap_or(false) && self.file.lock(LockLevel::Reserved).unwrap_or(false);
            if locked {
                let _ = self.io.backend().delete(&self.journal_path, false);
            }
            if reading {
                let _ = self.end_read();
            }
            let _ = self.file.unlock(was);
        }
        self.journal_mode
    }

    /// `PRAGMA synchronous`.
    pub fn synchronous(&self) -> Synchronous {
        self.synchronous
    }

    /// Set `PRAGMA synchronous`.
    pub fn set_synchronous(&mut self, s: Synchronous) {
        self.synchronous = s;
    }

    /// Pages in the database.
    pub fn db_size(&self) -> Pgno {
        self.db_size
    }

    /// Pages in the database when the write transaction began (0: the
    /// file was empty, its page size and header not fixed yet).
    pub fn db_size_at_begin(&self) -> Pgno {
        self.orig_db_size
    }

    /// The transaction state.
    pub fn state(&self) -> PagerState {
        self.state
    }

    /// Whether opened read-only.
    pub fn read_only(&self) -> bool {
        self.opts.read_only
    }

    /// The database file path.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Test hook: make the next commit fail with `SQLITE_IOERR` after
    /// writing `n` database pages, leaving a hot journal behind (drop the
    /// pager afterwards to simulate a crash).
    #[doc(hidden)]
    pub fn crash_commit_after_pages(&mut self, n: usize) {
        self.crash_after_pages = Some(n);
    }

    // ---- page access -------------------------------------------------

    /// Put the page a finished read `c` brought into the cache.
    fn cache_completed_read(&mut self, pgno: Pgno, c: &Completion) -> Result<()> {
        let data = c.take()?.buffer.map(Buffer::into_vec).unwrap_or_default();
        if data.len() != self.page_size as usize {
            return Err(Error::new(SQLITE_INTERNAL, "page read with a stale page size"));
        }
        self.cache.insert(pgno, data, false);
        Ok(())
    }

    /// Make page `pgno` present in cache. Resumable: a miss submits a read
    /// and returns `Pending`; calling again collects it.
    pub fn fetch(&mut self, pgno: Pgno) -> IoPoll<()> {
        if self.cache.contains(pgno) {
            self.count_hit();
            return Ok(Poll::Ready(()));
        }
        if pgno == 1 && self.db_size == 0 {
            // An empty file is an empty database: its page 1 is the image
            // a first write would create (an empty sqlite_schema).
            self.install(1, header::new_page1(self.page_size, self.reserved), false);
            return Ok(Poll::Ready(()));
        }
        if pgno == 0 || pgno > self.db_size {
            return Err(Error::corrupt());
        }
        if let Some((c, gen)) = self.reads.get(&pgno) {
            if *gen == self.generation {
                if !c.is_done() {
                    return Ok(Poll::Pending);
                }
                let c = c.clone();
                self.reads.remove(&pgno);
                self.cache_completed_read(pgno, &c)?;
                return Ok(Poll::Ready(()));
            }
            self.reads.remove(&pgno);
        }
        // The read overwrites the whole buffer (zero-filling past end of
        // file), so an evicted page's stale buffer serves; the read in
        // flight owns it until its completion is reaped.
        self.debug_check_lock();
        let frame = self.wal_frame_of(pgno)?;
        let buf = Buffer::from_vec(self.cache.take_buffer(self.page_size as usize));
        let c = match frame {
            Some((wal_file, offset)) => wal_file.read(offset, buf)?,
            None => {
                let offset = (pgno as u64 - 1) * self.page_size as u64;
                self.file.read(offset, buf)?
            }
        };
        self.count_miss();
        // Synchronous backends finish inside `read`: collect at once
        // (without going through `reads`).
        if c.is_done() {
            self.cache_completed_read(pgno, &c)?;
            return Ok(Poll::Ready(()));
        }
        self.reads.insert(pgno, (c, self.generation));
        Ok(Poll::Pending)
    }

    /// Read-ahead: request page `pgno` before anyone needs it, if it is
    /// neither cached nor requested; a later [`Pager::fetch`] collects it
    /// as its own. Returns whether a request was submitted.
    pub fn prefetch(&mut self, pgno: Pgno) -> Result<bool> {
        // invariant: prefetch_once
        if pgno == 0 || pgno > self.db_size || self.cache.contains(pgno) || self.reads.contains_key(&pgno) {
            return Ok(false);
        }
        let submitted = self.fetch(pgno)?.is_pending();
        if submitted {
            self.ahead.push(pgno);
        }
        Ok(submitted)
    }

    /// Put a page image in the cache by any path other than its own read:
    /// a read still in flight for it would carry older bytes, so forget it.
    pub(super) fn install(&mut self, pgno: Pgno, data: Vec<u8>, dirty: bool) {
        self.reads.remove(&pgno);
        self.cache.insert(pgno, data, dirty);
    }

    /// Whether `pgno` is in cache.
    pub fn is_cached(&self, pgno: Pgno) -> bool {
        self.cache.contains(pgno)
    }

    /// Keep `pgno` in cache until [`Pager::unpin_all`].
    pub fn pin(&mut self, pgno: Pgno) {
        self.cache.pin(pgno);
    }

    /// Release all pins.
    pub fn unpin_all(&mut self) {
        self.cache.unpin_all();
    }

    /// A cached page's bytes. `SQLITE_INTERNAL` if it was not fetched.
    ///
    /// On a miss the page number is remembered ([`Pager::take_missing`]) so
    /// that the B-tree can undo its operation, fetch, and retry.
    pub fn page(&self, pgno: Pgno) -> Result<&[u8]> {
        match self.cache.get(pgno) {
            Some(p) => Ok(p.data.as_slice()),
            None => Err(self.miss(pgno)),
        }
    }

    /// A cached page's bytes, `None` when not cached: no miss is recorded
    /// and the page is not marked referenced (debug checks look with it
    /// without changing what the pager does next).
    pub fn page_if_cached(&self, pgno: Pgno) -> Option<&[u8]> {
        self.cache.peek(pgno).map(|p| p.data.as_slice())
    }

    /// [`Pager::page`] trying the cache slot `hint` first (no index
    /// lookup when the page is still there); `hint` is updated after a
    /// lookup. For readers that come back to one page many times.
    #[inline]
    pub fn page_hinted(&self, pgno: Pgno, hint: &mut u32) -> Result<&[u8]> {
        if let Some(p) = self.cache.get_in_slot(*hint, pgno) {
            return Ok(p.data.as_slice());
        }
        self.page_rehinted(pgno, hint)
    }

    /// [`Pager::page_hinted`] when the page is not in the hinted slot.
    // (Out of line: the hinted look-up inlines into per-row paths.)
    #[inline(never)]
    fn page_rehinted(&self, pgno: Pgno, hint: &mut u32) -> Result<&[u8]> {
        match self.cache.slot_of(pgno).and_then(|slot| Some((slot, self.cache.get_in_slot(slot, pgno)?))) {
            Some((slot, p)) => {
                *hint = slot;
                Ok(p.data.as_slice())
            }
            None => Err(self.miss(pgno)),
        }
    }

    fn miss(&self, pgno: Pgno) -> Error {
        // Page 1 of an empty file reads as an empty database (see fetch).
        if pgno == 0 || (pgno > self.db_size && !(pgno == 1 && self.db_size == 0)) {
            return Error::corrupt();
        }
        self.missing.set(Some(pgno));
        // (No page number in the text: a miss is the normal way an
        // operation learns it must fetch, and formatting showed up.)
        Error::new(SQLITE_INTERNAL, "page used before it was fetched")
    }

    /// [`Pager::page`] with the free-byte count the B-tree layer noted
    /// for these bytes ([`Pager::note_free_bytes`]), if it did since they
    /// last changed.
    pub fn page_with_free(&self, pgno: Pgno) -> Result<(&[u8], Option<usize>)> {
        match self.cache.get(pgno) {
            Some(p) => Ok((p.data.as_slice(), p.free_bytes())),
            None => Err(self.miss(pgno)),
        }
    }

    /// Note the free-byte count of cached page `pgno` as its bytes are now
    /// (forgotten at their next change).
    pub fn note_free_bytes(&self, pgno: Pgno, free: usize) {
        if let Some(p) = self.cache.get(pgno) {
            p.note_free_bytes(free);
        }
    }

    /// The page a failed [`Pager::page`]/[`Pager::page_mut`] lacked.
    pub fn take_missing(&self) -> Option<Pgno> {
        self.missing.take()
    }

    /// Start recording an undo log for one B-tree operation, so that if it
    /// stops half way (a page not in cache, an error) every page it touched
    /// can be put back and the operation retried from the start.
    pub fn op_begin(&mut self) {
        self.op_undo = Some(OpUndo { db_size: self.db_size, images: cache::PgnoMap::default(), dont_write: Vec::new() });
    }

    /// The operation finished: forget its undo log.
    pub fn op_commit(&mut self) {
        self.op_undo = None;
    }

    /// Undo the operation in progress.
    pub fn op_abort(&mut self) {
        let Some(undo) = self.op_undo.take() else { return };
        for pgno in &undo.dont_write {
            self.dont_write.remove(pgno);
        }
        for (pgno, image) in undo.images {
            match image {
                Some((data, dirty)) => self.install(pgno, data, dirty),
                None => self.cache.remove(pgno),
            }
        }
        self.db_size = undo.db_size;
    }

    fn record_undo(&mut self, pgno: Pgno) {
        if let Some(undo) = &mut self.op_undo {
            if let std::collections::hash_map::Entry::Vacant(e) = undo.images.entry(pgno) {
                e.insert(self.cache.get(pgno).map(|p| (p.data.clone(), p.is_dirty())));
            }
        }
    }

    /// Debug builds: the file's lock agrees with the pager's state, as
    /// SQLite's `assert_pager_state` checks (see the module doc).
    #[inline]
    fn debug_check_lock(&self) {
        #[cfg(debug_assertions)]
        if self.locks_file() {
            let level = self.file.lock_level();
            let ok = match self.state {
                PagerState::Idle => true,
                PagerState::Read => level >= LockLevel::Shared,
                PagerState::Write => self.wal.is_some() || level >= LockLevel::Reserved,
            };
            // invariant: pager_state_lock
            debug_assert!(ok, "pager in {:?} with the file locked {level:?}", self.state);
        }
    }

    fn require_write(&self) -> Result<()> {
        if self.state != PagerState::Write {
            return Err(Error::new(SQLITE_INTERNAL, "page modified outside a write transaction"));
        }
        Ok(())
    }

    /// Keep `data`, page `pgno`'s image before its first change, as the
    /// transaction's original and every open savepoint's that lacks one.
    /// (Taken by value: the copy the caller made goes to the last owner
    /// that needs one instead of being copied again: a page's first
    /// change in a transaction cost two 4 KiB copies.)
    fn keep_original(&mut self, pgno: Pgno, data: Vec<u8>) -> Result<()> {
        let journal = pgno <= self.orig_db_size && !self.originals.contains_key(&pgno);
        // A page the rollback journal already holds (any page in WAL
        // mode) goes to the statement journal when a savepoint needs it,
        // as SQLite's does; the savepoints outside the outermost one that
        // needs it keep their records on release.
        if !(journal && self.wal.is_none()) && self.uses_subjournal() {
            if let Some(first) = self.savepoints.iter().position(|s| s.needs(pgno)) {
                let at = self.subjournal_append(pgno, &data)?;
                for (i, sp) in self.savepoints.iter_mut().enumerate() {
                    sp.keep_record(pgno, at);
                    if i > first {
                        sp.truncate_on_release = false;
                    }
                }
            }
        }
        // Owners still to be given an image; the last one takes `data`.
        let mut owners = usize::from(journal) + self.savepoints.iter().filter(|s| s.needs(pgno)).count();
        let mut data = Some(data);
        let mut image = move || {
            owners -= 1;
            if owners == 0 {
                data.take().unwrap_or_default()
            } else {
                data.clone().unwrap_or_default()
            }
        };
        for sp in &mut self.savepoints {
            if sp.needs(pgno) {
                sp.keep_image(pgno, image());
            }
        }
        if journal {
            self.list_for_journal(pgno);
            self.originals.insert(pgno, image());
            self.temp_journal_add(pgno)?;
        }
        Ok(())
    }

    /// The transaction's first page change: on a backend that opens files
    /// when SQLite does, the rollback journal is created now (SQLite's
    /// pager opens it here; its content is written at commit or spill).
    #[cold]
    fn first_change(&mut self) -> Result<()> {
        self.txn_changed = true;
        if self.wal.is_none() && !self.opts.memory && self.journal_mode.uses_file() {
            // The journal header's nonce is drawn from the process's
            // generator here, as SQLite draws it (so random() and the
            // super-journal's name that follow are SQLite's).
            self.journal_nonce = journal::new_nonce();
            self.nonce_drawn = true;
            if self.opens_as_sqlite {
                self.journal_file(true)?;
            }
        } else if self.temp_journal.enabled && !self.temp_store_memory {
            // (A temporary database's journal header draws its nonce
            // here too, as SQLite's does, `temp_journal.rs`.)
            self.journal_nonce = journal::new_nonce();
        }
        Ok(())
    }

    /// A cached page for modification: journaled before the first change.
    pub fn page_mut(&mut self, pgno: Pgno) -> Result<&mut [u8]> {
        self.page_mut_logged(pgno, true)
    }

    /// [`Pager::page_mut`] for the last change of the B-tree operation in
    /// progress: the caller does nothing that can fail after it (no page
    /// access, no error) before the operation commits, so the operation
    /// can never be undone past this change and its undo log needs no
    /// image of the page (a 4 KiB copy saved on every one-page insert or
    /// delete). The transaction's and savepoints' originals are kept as
    /// usual.
    pub fn page_mut_last(&mut self, pgno: Pgno) -> Result<&mut [u8]> {
        self.page_mut_logged(pgno, false)
    }

    fn page_mut_logged(&mut self, pgno: Pgno, log_for_op: bool) -> Result<&mut [u8]> {
        self.require_write()?;
        self.debug_check_lock();
        if !self.txn_changed {
            self.first_change()?;
        }
        if !self.dont_write.is_empty() {
            self.dont_write.remove(&pgno);
        }
        let original = match self.cache.get(pgno) {
            None => return Err(self.miss(pgno)),
            Some(p) => {
                let for_journal = pgno <= self.orig_db_size && !self.originals.contains_key(&pgno);
                (for_journal || self.savepoints.iter().any(|s| s.needs(pgno))).then(|| p.data.clone())
            }
        };
        if let Some(orig) = original {
            self.keep_original(pgno, orig)?;
        }
        // invariant: pager_journal_before_change
        debug_assert!(pgno > self.orig_db_size || self.originals.contains_key(&pgno), "page {pgno} changed before its original was kept");
        // invariant: savepoint_images
        debug_assert!(self.savepoints.iter().all(|s| !s.needs(pgno)), "page {pgno} changed before an open savepoint kept its image");
        if log_for_op {
            self.record_undo(pgno);
        }
        let data = self.cache.get_mut_dirty(pgno).ok_or_else(Error::corrupt)?;
        Ok(data)
    }

    /// A fresh zero-filled page `pgno` for the allocator: either one past
    /// the end of the database (grows it) or a free-list leaf, whose old
    /// content nobody needs.
    pub fn page_new(&mut self, pgno: Pgno) -> Result<&mut [u8]> {
        self.require_write()?;
        if !self.txn_changed {
            self.first_change()?;
        }
        if pgno == 0 || pgno > self.db_size + 1 {
            return Err(Error::corrupt());
        }
        if pgno == self.db_size + 1 {
            self.check_growth(pgno)?;
        }
        if pgno > self.orig_db_size && self.sector > self.page_size && self.wal.is_none() && self.journal_mode.uses_file() && !self.opts.memory {
            // A new page shares its sector with pages the file had: those
            // are journaled now, as SQLite's pager journals a large
            // sector's other pages whenever one of its pages is written.
            self.list_for_journal(pgno);
        }
        self.record_undo(pgno);
        if !self.dont_write.is_empty() {
            self.dont_write.remove(&pgno);
        }
        if pgno == self.db_size + 1 {
            self.db_size = pgno;
        }
        // Savepoints restore sizes, not images, for pages past their end;
        // a free leaf's image is irrelevant but keep one so a savepoint
        // rollback leaves the page as it found it.
        let zero = vec![0u8; self.page_size as usize];
        let old = self.cache.get(pgno).map(|p| p.data.clone());
        for sp in &mut self.savepoints {
            sp.keep_original(pgno, old.as_deref().unwrap_or(&zero));
        }
        self.install(pgno, zero, true);
        self.cache.pin(pgno);
        let data = self.cache.get_mut_dirty(pgno).ok_or_else(Error::corrupt)?;
        Ok(data)
    }

    /// Page `pgno` became a leaf of the free list: its content no longer
    /// matters, so a commit or cache spill in rollback mode leaves the
    /// file's copy as it is (SQLite's `sqlite3PagerDontWrite`: not in a
    /// temporary or in-memory database, not while a savepoint is open,
    /// only for a page this transaction changed).
    pub fn dont_write(&mut self, pgno: Pgno) {
        if !self.opts.memory && self.savepoints.is_empty() && self.cache.get(pgno).is_some_and(|p| p.is_dirty()) && self.dont_write.insert(pgno) {
            if let Some(undo) = &mut self.op_undo {
                undo.dont_write.push(pgno);
            }
        }
    }

    /// Shrink the database to `n` pages (auto_vacuum). Every page cut off
    /// must already have been modified through [`Pager::page_mut`] in this
    /// transaction, so that its original is journaled (a rollback, or a
    /// hot journal, must bring those pages back).
    pub fn truncate_image(&mut self, n: Pgno) -> Result<()> {
        self.require_write()?;
        if n == 0 || n >= self.db_size {
            return Ok(());
        }
        for p in n + 1..=self.db_size {
            // invariant: truncate_journaled
            if p <= self.orig_db_size && !self.originals.contains_key(&p) && p != self.pending_byte_page() {
                return Err(Error::new(SQLITE_INTERNAL, format!("page {p} truncated before it was journaled")));
            }
            self.record_undo(p);
        }
        self.cache.truncate(n);
        self.db_size = n;
        Ok(())
    }

    /// The page number the allocator must skip: the page holding the
    /// PENDING byte is never used.
    pub fn pending_byte_page(&self) -> Pgno {
        (crate::io::lock::PENDING_BYTE / self.page_size as u64) as Pgno + 1
    }

    /// Grow the database by one page that is never written (the PENDING
    /// byte page, when the allocator reaches it).
    pub fn skip_page(&mut self) -> Result<()> {
        self.require_write()?;
        self.check_growth(self.db_size + 1)?;
        self.db_size += 1;
        Ok(())
    }

    // ---- write transactions ------------------------------------------

    /// Begin a write transaction (RESERVED lock; EXCLUSIVE if asked). A
    /// new or empty database gets its page 1 here.
    pub fn begin_write(&mut self, exclusive: bool) -> IoPoll<()> {
        if self.opts.read_only {
            return Err(Error::code(SQLITE_READONLY));
        }
        if self.state == PagerState::Idle {
            crate::ready!(self.begin_read()?);
        }
        if self.header_read_only {
            return Err(Error::code(SQLITE_READONLY));
        }
        if self.state == PagerState::Write {
            return Ok(Poll::Ready(()));
        }
        if self.wal.is_some() {
            self.wal_enter_exclusive()?;
        }
        if let Some(w) = self.wal.as_mut() {
            w.begin_write()?;
        } else if self.locks_file() {
            // The journal goes next to the file's name: if the name now
            // leads elsewhere, writing could not be made safe (SQLite checks
            // this where it opens the journal, so not while exclusive
            // locking mode keeps the journal open).
            if self.journal_mode.uses_file() && self.db_size > 0 && self.journal_handle.is_none() && self.file.has_moved()? {
                return Err(Error::new(crate::error::SQLITE_READONLY_DBMOVED, "attempt to write a readonly database"));
            }
            if !self.file.lock(LockLevel::Reserved)? {
                return Err(busy());
            }
            if exclusive && !self.file.lock(LockLevel::Exclusive)? {
                // Back to the read transaction this was: RESERVED and the
                // PENDING byte a refused EXCLUSIVE keeps would lock every
                // other connection out while this one reports busy.
                self.file.unlock(LockLevel::Shared)?;
                return Err(busy());
            }
        }
        // (Only from a read transaction, and, where the file is locked
        // outside WAL mode, with RESERVED held: SQLite's pager asserts the
        // same on its way to WRITER_LOCKED.)
        debug_assert_eq!(self.state, PagerState::Read, "a write transaction opened outside a read one");
        debug_assert!(self.wal.is_some() || !self.locks_file() || self.file.lock_level() >= LockLevel::Reserved, "writing without RESERVED");
        self.state = PagerState::Write;
        self.orig_db_size = self.db_size;
        self.commit_step = CommitStep::Start;
        if self.db_size == 0 {
            let page1 = header::new_page1(self.page_size, self.reserved);
            self.page_new(1)?.copy_from_slice(&page1);
        }
        Ok(Poll::Ready(()))
    }

    /// [`Pager::rollback`], ending in a read transaction of the state
    /// rolled back to (a read transaction is left as it is): as SQLite's
    /// B-tree ends a transaction while other statements of its connection
    /// still read (rollback journal: SHARED kept; WAL: the snapshot).
    pub fn rollback_to_read(&mut self) -> IoPoll<()> {
        self.keep_read = true;
        let r = self.rollback();
        self.keep_read = false;
        r
    }

    /// Roll back the write transaction (or end the read transaction).
    pub fn rollback(&mut self) -> IoPoll<()> {
        match self.state {
            PagerState::Idle => return Ok(Poll::Ready(())),
            PagerState::Read => {
                if !self.keep_read {
                    self.end_read()?;
                }
                return Ok(Poll::Ready(()));
            }
            PagerState::Write => {}
        }
        crate::ready!(self.finish_spill()?);
        // Requests of a commit that stopped half way must land before the
        // originals are written over them.
        if !self.commit_step.in_flight_done() {
            return Ok(Poll::Pending);
        }
        if self.commit_step.touched_database() || self.db_touched {
            // A failed commit or a cache spill already wrote some pages:
            // put the originals back in the file (a temporary database's
            // from its journal file when there).
            crate::ready!(self.restore_file_from_originals()?);
        } else if self.temp_journal_in_file() {
            // A temporary database's journal file is read back and
            // checked as SQLite's playback reads it; the database file
            // never saw the changes, the cache's are dropped below.
            self.temp_journal_check()?;
        }
        // (The statement journal closes before the journal goes, as
        // SQLite's.)
        self.close_subjournal();
        // (A journal created but not yet written, as a super-journal's
        // commit creates them first, goes too.)
        let created = self.journal_handle.is_some() && !self.journal_kept;
        let had = self.commit_step.journal_exists() || self.journal_end > 0 || created || self.journal_kept;
        if had && self.journal_mode.uses_file() && !self.opts.memory {
            // The journal ends as a commit ends it (deleted, truncated,
            // its header zeroed, kept in exclusive mode): SQLite's pager
            // finalizes it the same way for both. (Best effort, as the
            // database is already restored: a journal left behind is
            // found not hot, or rolls back what is already there.)
            let _ = self.finalize_journal_now();
        } else {
            self.journal_handle = None;
            self.journal_kept = false;
        }
        // Spilled WAL frames left clean cached pages with uncommitted
        // content.
        let spilled_to_wal = self.wal_has_uncommitted();
        self.cache.discard_dirty();
        self.cache.truncate(self.orig_db_size);
        self.db_size = self.orig_db_size;
        self.finish_write_txn()?;
        self.end_wal_switch(false);
        if spilled_to_wal {
            self.invalidate_cache();
        }
        Ok(Poll::Ready(()))
    }

    /// `Restore → Truncate → Sync`, resumable (state in `rollback_step`).
    fn restore_file_from_originals(&mut self) -> IoPoll<()> {
        let ps = self.page_size as u64;
        loop {
            match std::mem::take(&mut self.rollback_step) {
                RollbackStep::Start => {
                    let mut cs = Vec::with_capacity(self.originals.len());
                    for (pgno, data) in &self.originals {
                        let data = if self.temp_journal.holds(*pgno) { self.temp_journal_image(*pgno)? } else { data.clone() };
                        cs.push(self.file.write((*pgno as u64 - 1) * ps, Buffer::from_vec(data))?);
                    }
                    self.rollback_step = RollbackStep::Restore(cs);
                }
                RollbackStep::Restore(cs) => {
                    if cs.iter().any(|c| !c.is_done()) {
                        self.rollback_step = RollbackStep::Restore(cs);
                        return Ok(Poll::Pending);
                    }
                    for c in &cs {
                        c.take()?;
                    }
                    let c = self.restore_size(self.orig_db_size as u64 * ps, ps)?;
                    self.rollback_step = RollbackStep::Truncate(c);
                }
                RollbackStep::Truncate(c) => {
                    if !c.is_done() {
                        self.rollback_step = RollbackStep::Truncate(c);
                        return Ok(Poll::Pending);
                    }
                    c.take()?;
                    let c = self.sync_restored()?;
                    self.rollback_step = RollbackStep::Sync(c);
                }
                RollbackStep::Sync(c) => {
                    if !c.is_done() {
                        self.rollback_step = RollbackStep::Sync(c);
                        return Ok(Poll::Pending);
                    }
                    c.take()?;
                    // A backup copies the restored pages again, as SQLite's
                    // playback tells it; it need not start over.
                    let restored: Vec<Pgno> = self.originals.keys().copied().collect();
                    self.note_written_for_backups(&restored);
                    self.clear_cache();
                    return Ok(Poll::Ready(()));
                }
            }
        }
    }

    fn finish_write_txn(&mut self) -> Result<()> {
        if !self.journal_kept {
            self.journal_handle = None;
        }
        self.originals.clear();
        self.temp_journal_end();
        self.journaled.clear();
        self.journal_end = 0;
        self.journal_synced_end = 0;
        self.super_journal = None;
        self.commit_held = false;
        self.super_written = false;
        self.journal_header_pending = false;
        self.journal_hdr = 0;
        self.journal_segment_first = 0;
        self.journal_order.clear();
        self.journal_listed.clear();
        self.db_touched = false;
        self.dont_write.clear();
        self.spill_disabled = false;
        self.spill_step = spill::SpillStep::Idle;
        self.rollback_step = RollbackStep::Start;
        self.savepoints.clear();
        self.close_subjournal();
        self.txn_changed = false;
        self.nonce_drawn = false;
        self.commit_step = CommitStep::Start;
        self.cache.unpin_all();
        if self.keep_read {
            return self.write_txn_to_read();
        }
        self.state = PagerState::Idle;
        if let Some(w) = self.wal.as_mut() {
            w.end_write()?;
        }
        self.end_txn_locks()
    }

    /// The write transaction ended (committed or rolled back) into a read
    /// transaction: WAL mode keeps its snapshot, now the state just
    /// committed, and gives back the WRITE lock; otherwise the lock goes
    /// back to SHARED (exclusive locking mode keeps it). The cache stays:
    /// it holds that state.
    fn write_txn_to_read(&mut self) -> Result<()> {
        self.state = PagerState::Read;
        if let Some(w) = self.wal.as_mut() {
            w.read_own_commit()?;
            return w.end_write();
        }
        if self.releases_lock() {
            self.file.unlock(LockLevel::Shared)?;
        }
        Ok(())
    }
}
