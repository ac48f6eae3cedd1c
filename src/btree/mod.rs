//! # B-trees
//!
//! Table B-trees (keyed by rowid, data in leaves) and index B-trees (keyed
//! by records) in SQLite's file format, on top of the pager. One [`Btree`]
//! is one database file (main, temp or attached); [`Cursor`]s walk and
//! modify one tree each.
//!
//! Contract with the VM (this file's signatures are the interface):
//! - Every method that may touch a page not in cache returns
//!   `IoPoll<...>`; on `Poll::Pending` the cursor has kept its state and the
//!   same call must be repeated. No side effect is done twice.
//! - A cursor positioned on an entry stays valid across changes made by
//!   other cursors on the same tree: it saves its key and re-seeks lazily.
//! - `Cursor::delete` leaves the cursor so that `next()` moves to the entry
//!   after the deleted one and `prev()` to the one before.
//! - Meta fields are the 4-byte big-endian header words at offset 36+4*i
//!   (see [`Meta`]).
//!
//! How resumability works here: every operation runs as plain code over
//! cached pages; a page that is not cached makes the attempt fail with the
//! missing page number recorded by the pager. A read-only attempt is
//! simply repeated after the page is fetched; a modifying attempt first
//! has every page it touched put back from the pager's per-operation undo
//! log. Either way nothing is done twice, and `Pending` is returned while
//! the read is in flight. Cursors install a new position only when an
//! attempt succeeds.
//!
//! Invariants: a modification bumps [`Btree`]'s change sequence. An
//! insert or delete through a cursor changes only its own tree's pages
//! (and free pages), so it makes stale only the paths of cursors on that
//! tree; every other change (creating, dropping or clearing a tree,
//! vacuum, meta words, transaction boundaries, rollback) makes every path
//! stale; a change that failed to would leave a cursor whose path looks
//! fresh on an entry that moved, which the cursor's own checks catch
//! (checked: cursor_valid, cursor_saved_key). A stale cursor re-seeks by
//! its saved key. Pages are only modified through the pager, journaled
//! first (checked: pager_journal_before_change).

mod append_run;
pub mod balance;
pub mod cell;
mod cursor;
mod cursor_read;
mod delete;
mod drop_cell;
mod freelist;
mod index_probe;
mod insert;
mod integrity;
mod key_prefetch;
mod near;
mod overflow;
pub mod page;
mod page_check;
mod page_coverage;
mod ptrmap;
mod read_ahead;
mod rowid_seek;
mod splice;
mod vacuum;
mod walk;

use crate::error::{Error, Result, SQLITE_INTERNAL, SQLITE_READONLY};
use crate::io::memory::MemoryBackend;
use crate::io::IoContext;
use crate::pager::{JournalMode, Pager, PagerOptions, PagerState, Synchronous};
use crate::value::encoding::TextEncoding;
use crate::value::record::KeyInfo;
use crate::{IoPoll, Poll};
use balance::Level;
pub use cursor::root_faults;
use cursor::Probe;
pub use overflow::chain_faults;
pub use overflow::ChainRead;
use page::{Node, PageKind};
pub use read_ahead::MAX_WINDOW as READ_AHEAD_WINDOW;
use std::sync::Arc;
use walk::Walk;

/// Where the next [`Btree`]'s change sequence starts (see `Btree::open`).
static SEQ_BASE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1 << 40);

/// Trees whose changes [`Btree`] tracks one by one between global changes.
const MAX_TRACKED_TREES: usize = 8;

/// A page number (1-based; 0 means none): the pager's.
pub use crate::pager::Pgno;

/// Transaction state of a [`Btree`] (as `sqlite3_txn_state` reports).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum TxnState {
    /// No transaction.
    None = 0,
    /// A read transaction.
    Read = 1,
    /// A write transaction.
    Write = 2,
}

/// Kind of tree to create.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TreeKind {
    /// Rowid table (intkey, data in leaves).
    Table,
    /// Index or WITHOUT ROWID table (key only).
    Index,
}

/// Database header meta words (index i is the word at offset 36 + 4*i).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Meta {
    /// Offset 36: number of freelist pages (read only).
    FreelistCount = 0,
    /// Offset 40: schema cookie.
    SchemaCookie = 1,
    /// Offset 44: schema format number.
    SchemaFormat = 2,
    /// Offset 48: default page cache size.
    DefaultCacheSize = 3,
    /// Offset 52: largest root page (auto_vacuum), 0 if off.
    LargestRootPage = 4,
    /// Offset 56: text encoding (1 UTF-8, 2 UTF-16le, 3 UTF-16be).
    TextEncoding = 5,
    /// Offset 60: user_version.
    UserVersion = 6,
    /// Offset 64: incremental vacuum flag.
    IncrementalVacuum = 7,
    /// Offset 68: application_id.
    ApplicationId = 8,
}

/// How [`Cursor::seek_index`] compares the probe key with entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeekOp {
    /// First entry >= key.
    Ge,
    /// First entry > key.
    Gt,
    /// Last entry <= key.
    Le,
    /// Last entry < key.
    Lt,
}

/// Where [`Cursor::seek_rowid`] left the cursor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeekResult {
    /// On the entry with that rowid.
    Found,
    /// On an entry with a smaller key (the nearest one).
    Before,
    /// On an entry with a larger key (the nearest one).
    After,
    /// The tree is empty.
    Empty,
}

/// How a database file is opened.
#[derive(Debug, Clone, Default)]
pub struct BtreeOptions {
    /// Open read-only.
    pub read_only: bool,
    /// Create if missing.
    pub create: bool,
    /// An in-memory database (`:memory:` or a temp database).
    pub memory: bool,
    /// `immutable=1`: no locking, no change detection.
    pub immutable: bool,
    /// With `memory`: a named in-memory database other connections of the
    /// process open too (`io::shared_memory`): opened in the given I/O
    /// context at the given path, locked and checked for their commits as
    /// a file database is.
    pub shared: bool,
}

/// One database file and its pager.
pub struct Btree {
    pager: Pager,
    /// Bumped by every change to any tree: cursors remember the value
    /// they saw when positioned (see [`Btree::path_fresh`]).
    seq: u64,
    /// `seq` at the last event that may have changed what the file holds
    /// as this connection sees it: every bump of `seq` but a read
    /// transaction's start that found no other connection's commit.
    content_seq: u64,
    /// `seq` at the last change that may have moved entries of any tree.
    global_seq: u64,
    /// Trees changed since `global_seq` by inserts and deletes, with the
    /// `seq` of their last change (a handful at most: past
    /// [`MAX_TRACKED_TREES`] a change counts as global).
    tree_changes: Vec<(Pgno, u64)>,
    /// A tree walk in progress (drop/clear/integrity check), kept across
    /// `Pending`.
    walk: Option<Walk>,
    /// The temp database's journal mode as PRAGMA journal_mode shows it.
    /// SQLite keeps its temp database in a temporary file whose journal
    /// mode may be anything but WAL; ours lives in memory, journals in
    /// memory (or not at all under OFF) and reports the mode set.
    temp_journal_mode: Option<&'static str>,
    /// The file's text encoding (header offset 56), as the connection
    /// learnt it reading the schema or chose it for a new file. Records
    /// on the pages hold text in it; the cursors' interface speaks UTF-8
    /// records (see [`crate::value::encoding`]).
    text_encoding: TextEncoding,
    /// The page cache slot page 1 was last found in (a hint for
    /// [`Btree::meta`], which every statement's `Transaction` asks).
    page1_slot: u32,
}

impl Btree {
    /// Open (or create) a database file. May do blocking I/O.
    pub fn open(io: &IoContext, path: &str, opts: BtreeOptions) -> Result<Btree> {
        let (io, path) = if opts.memory && !opts.shared { (IoContext::new(Arc::new(MemoryBackend::new())), "main.db") } else { (io.clone(), path) };
        Self::open_in(io, path, opts)
    }

    /// Open a temporary database (the `temp` schema, a database named
    /// `""`) of a connection using an application VFS: in memory while it
    /// fits in its cache, then in a temporary file opened through
    /// `spill_to`, as SQLite opens one (see [`crate::io::temp_file`]).
    pub fn open_temp(spill_to: Arc<dyn crate::io::IoBackend>) -> Result<Btree> {
        let io = IoContext::new(Arc::new(crate::io::temp_file::TempBackend::new(spill_to)));
        Self::open_in(io, "temp.db", BtreeOptions { create: true, memory: true, ..Default::default() })
    }

    /// Open the B-tree of a transient table grown past its budget
    /// (`vdbe/ephemeral_tree.rs`): in memory while it fits in its cache,
    /// then in a file opened through `spill_to` as SQLite opens a
    /// transient B-tree's (`SQLITE_OPEN_TRANSIENT_DB`).
    pub fn open_transient(spill_to: Arc<dyn crate::io::IoBackend>) -> Result<Btree> {
        let io = IoContext::new(Arc::new(crate::io::temp_file::TempBackend::transient(spill_to)));
        Self::open_in(io, "transient.db", BtreeOptions { create: true, memory: true, ..Default::default() })
    }

    fn open_in(io: IoContext, path: &str, opts: BtreeOptions) -> Result<Btree> {
        let popts = PagerOptions {
            read_only: opts.read_only,
            create: opts.create || opts.memory,
            immutable: opts.immutable,
            memory: opts.memory,
            shared: opts.memory && opts.shared,
        };
        // Each Btree counts from its own base, so that a cursor's sequence
        // number from another Btree (a database detached and another
        // attached under the same index) can never look fresh.
        let base = SEQ_BASE.fetch_add(1 << 40, std::sync::atomic::Ordering::Relaxed);
        Ok(Btree {
            pager: Pager::open(&io, path, popts)?,
            seq: base,
            content_seq: base,
            global_seq: base,
            tree_changes: Vec::new(),
            page1_slot: 0,
            walk: None,
            temp_journal_mode: None,
            text_encoding: TextEncoding::Utf8,
        })
    }

    /// The text encoding of the records on the pages.
    #[inline]
    pub fn text_encoding(&self) -> TextEncoding {
        self.text_encoding
    }

    /// Set the text encoding: read from the header of an existing file,
    /// or the connection's for a file still empty.
    pub fn set_text_encoding(&mut self, enc: TextEncoding) {
        self.text_encoding = enc;
    }

    /// The pager (tests and pragmas).
    pub fn pager(&self) -> &Pager {
        &self.pager
    }

    /// Run a resumable operation on this tree to completion, blocking on its
    /// I/O between attempts: for connection-level work done outside the VM
    /// (VACUUM, backup, incremental blob I/O, serialize), which has no
    /// statement to suspend.
    pub fn block_on<T>(&mut self, mut op: impl FnMut(&mut Btree) -> crate::IoPoll<T>) -> Result<T> {
        let io = self.pager.io().clone();
        io.block_on(|| op(self))
    }

    /// The pager, mutably (tests and pragmas). Pages may be written
    /// through it (backup, deserialize): it counts as a content change.
    pub fn pager_mut(&mut self) -> &mut Pager {
        self.seq += 1;
        self.content_seq = self.seq;
        &mut self.pager
    }

    pub(crate) fn usable(&self) -> u32 {
        self.pager.usable_size()
    }

    /// Run a read-only attempt until it needs no page that is not cached.
    fn run_read<T>(&mut self, mut attempt: impl FnMut(&mut Btree) -> Result<T>) -> IoPoll<T> {
        self.pager.take_missing();
        loop {
            match attempt(self) {
                Ok(v) => {
                    self.unpin_after_op();
                    return Ok(Poll::Ready(v));
                }
                Err(e) => match self.pager.take_missing() {
                    Some(pgno) => {
                        crate::ready!(self.pager.fetch(pgno)?);
                        self.pager.pin(pgno);
                    }
                    None => {
                        self.unpin_after_op();
                        return Err(e);
                    }
                },
            }
        }
    }

    /// Count a change that may have touched any tree.
    fn bump_global(&mut self) {
        self.seq += 1;
        self.content_seq = self.seq;
        self.global_seq = self.seq;
        self.tree_changes.clear();
    }

    /// Count a change to the tree rooted at `root` only.
    #[inline]
    fn bump_tree(&mut self, root: Pgno) {
        self.seq += 1;
        self.content_seq = self.seq;
        if let Some(t) = self.tree_changes.iter_mut().find(|t| t.0 == root) {
            t.1 = self.seq;
        } else if self.tree_changes.len() < MAX_TRACKED_TREES {
            self.tree_changes.push((root, self.seq));
        } else {
            self.global_seq = self.seq;
            self.tree_changes.clear();
        }
    }

    /// The content sequence: it differs from any earlier value after any
    /// change to any tree, a write transaction's start, a rollback, or a
    /// read transaction's start that found another connection's commit
    /// (what a cache of rows read from the file is valid against).
    pub fn content_sequence(&self) -> u64 {
        self.content_seq
    }

    /// Whether a path into the tree at `root` computed when the sequence
    /// was `seq` still holds: no change since then touched that tree.
    fn path_fresh(&self, root: Pgno, seq: u64) -> bool {
        seq == self.seq || (seq >= self.global_seq && seq <= self.seq && self.tree_changes.iter().all(|&(r, s)| r != root || s <= seq))
    }

    /// Pins only matter for the duration of one operation; in a write
    /// transaction dirty pages stay anyway, so dropping pins is always safe.
    fn unpin_after_op(&mut self) {
        self.pager.unpin_all();
    }

    /// Run a modifying attempt; a failed attempt is undone before it is
    /// retried (after a fetch) or its error returned.
    fn run_write<T>(&mut self, attempt: impl FnMut(&mut Btree) -> Result<T>) -> IoPoll<T> {
        self.run_write_in(None, attempt)
    }

    /// [`Btree::run_write`] for an operation that changes only the tree
    /// at `tree` (when given), which keeps other trees' cursors fresh.
    fn run_write_in<T>(&mut self, tree: Option<Pgno>, mut attempt: impl FnMut(&mut Btree) -> Result<T>) -> IoPoll<T> {
        if self.pager.state() != PagerState::Write {
            let code = if self.pager.read_only() { SQLITE_READONLY } else { SQLITE_INTERNAL };
            return Err(Error::new(code, "B-tree modified outside a write transaction"));
        }
        // Between operations is the only moment a cache spill may run.
        crate::ready!(self.pager.maybe_spill()?);
        self.pager.take_missing();
        loop {
            self.pager.op_begin();
            match attempt(self) {
                Ok(v) => {
                    self.pager.op_commit();
                    self.pager.unpin_all();
                    match tree {
                        Some(root) => self.bump_tree(root),
                        None => self.bump_global(),
                    }
                    return Ok(Poll::Ready(v));
                }
                Err(e) => {
                    self.pager.op_abort();
                    let m = self.pager.take_missing();
                    match m {
                        Some(pgno) => {
                            crate::ready!(self.pager.fetch(pgno)?);
                            self.pager.pin(pgno);
                        }
                        None => return Err(e),
                    }
                }
            }
        }
    }

    /// Start a read transaction: shared lock, hot-journal recovery, cache
    /// validation against the file change counter.
    #[inline]
    pub fn begin_read(&mut self) -> IoPoll<()> {
        let (version, content) = (self.pager.data_version(), self.content_seq);
        let r = self.pager.begin_read()?;
        self.bump_global();
        if self.pager.data_version() == version {
            self.content_seq = content;
        }
        Ok(r)
    }
    /// Start (or upgrade to) a write transaction.
    ///
    /// A write that finds the database locked, when it took its read lock
    /// in this same call, gives that lock back before reporting busy (as
    /// SQLite's B-tree does when no transaction was open): a connection
    /// waiting in its busy handler for another's RESERVED lock must not
    /// hold SHARED, or the other could never commit and both would wait
    /// out their timeouts.
    pub fn begin_write(&mut self, exclusive: bool) -> IoPoll<()> {
        let started_read = self.pager.state() == PagerState::Idle;
        if started_read {
            crate::ready!(self.pager.begin_read()?);
        }
        let was_empty = self.pager.db_size() == 0;
        let r = match self.pager.begin_write(exclusive) {
            Err(e) if started_read && e.primary() == crate::error::SQLITE_BUSY => {
                self.pager.end_read()?;
                return Err(e);
            }
            r => r?,
        };
        // The pager's new page 1 says UTF-8: a file created in another
        // encoding says so from its first write on.
        if was_empty && r.is_ready() && self.text_encoding.is_utf16() && self.pager.db_size() <= 1 {
            crate::pager::header::put_u32(self.pager.page_mut(1)?, 56, self.text_encoding as u32);
        }
        self.bump_global();
        Ok(r)
    }
    /// Commit the write transaction (or end the read transaction). With
    /// `auto_vacuum=FULL` the free pages are first vacuumed out of the file.
    pub fn commit(&mut self) -> IoPoll<()> {
        self.commit_ending(false)
    }

    /// [`Btree::commit`], or with `to_read` end in a read transaction
    /// (other statements of the connection still read: SQLite's B-tree
    /// then downgrades its transaction to a read one).
    pub fn commit_ending(&mut self, to_read: bool) -> IoPoll<()> {
        self.walk = None;
        // (Not again once the pager's commit has started: its journal may
        // already hold the pages as they were.)
        if self.pager.state() == PagerState::Write && !self.pager.commit_in_progress() {
            crate::ready!(self.pager.fetch(1)?);
            if self.autovacuum()? && !self.incremental()? {
                crate::ready!(self.vacuum(None)?);
            }
        }
        if to_read {
            self.pager.commit_to_read()
        } else {
            self.pager.commit()
        }
    }

    /// `PRAGMA incremental_vacuum(N)` inside a write transaction: take up
    /// to `n` free pages (all with `None`) out of an auto_vacuum database
    /// (a no-op without auto_vacuum).
    pub fn incremental_vacuum(&mut self, n: Option<u32>) -> IoPoll<()> {
        crate::ready!(self.pager.fetch(1)?);
        if !self.autovacuum()? {
            return Ok(Poll::Ready(()));
        }
        self.vacuum(n)
    }

    fn vacuum(&mut self, limit: Option<u32>) -> IoPoll<()> {
        // Fetch (and pin) the pages that will be cut off first, so that
        // the operation itself rarely has to start over for a missing page.
        // (Not through `run_read`: it would drop the pins this method
        // placed before an earlier `Pending`, and with a small cache the
        // pages could then evict each other for ever.)
        self.pager.take_missing();
        let plan = loop {
            match self.vacuum_plan(limit) {
                Ok(plan) => break plan,
                Err(e) => match self.pager.take_missing() {
                    Some(pgno) => {
                        crate::ready!(self.pager.fetch(pgno)?);
                        self.pager.pin(pgno);
                    }
                    None => return Err(e),
                },
            }
        };
        if plan.is_empty() {
            return Ok(Poll::Ready(()));
        }
        for p in &plan {
            crate::ready!(self.pager.fetch(*p)?);
            self.pager.pin(*p);
        }
        self.run_write(|bt| bt.vacuum_free(limit))
    }

    /// Frames in the WAL after the last commit; `None` outside WAL mode.
    pub fn wal_frame_count(&self) -> Option<u32> {
        self.pager.wal_frame_count()
    }

    /// `PRAGMA auto_vacuum`: 0 NONE, 1 FULL, 2 INCREMENTAL.
    pub fn auto_vacuum_mode(&mut self) -> IoPoll<u8> {
        self.run_read(|bt| {
            if bt.pager.db_size() == 0 || !bt.autovacuum()? {
                return Ok(0);
            }
            Ok(if bt.incremental()? { 2 } else { 1 })
        })
    }

    /// `PRAGMA auto_vacuum = mode` (0 NONE, 1 FULL, 2 INCREMENTAL) inside a
    /// write transaction. Switching between FULL and INCREMENTAL is always
    /// possible; turning auto_vacuum on or off only on a database that had
    /// no page yet (as in SQLite, where VACUUM is needed otherwise).
    /// Returns whether the mode is now `mode`.
    pub fn set_auto_vacuum(&mut self, mode: u8) -> IoPoll<bool> {
        self.run_write(|bt| {
            let p1 = bt.pager.page(1)?;
            let on = cell::get_u32(p1, ptrmap::LARGEST_ROOT)? != 0;
            let want_on = mode != 0;
            if on != want_on {
                // Only a database that had no page when the transaction
                // began takes it (SQLite: once the page size is fixed).
                if bt.pager.db_size_at_begin() > 0 {
                    return Ok(false);
                }
                crate::pager::header::put_u32(bt.pager.page_mut(1)?, ptrmap::LARGEST_ROOT, want_on as u32);
            }
            // (FULL and INCREMENTAL switch on an auto_vacuum database.)
            if want_on {
                crate::pager::header::put_u32(bt.pager.page_mut(1)?, ptrmap::INCREMENTAL, (mode == 2) as u32);
            }
            Ok(true)
        })
    }
    /// Roll back the write transaction (or end the read transaction).
    pub fn rollback(&mut self) -> IoPoll<()> {
        self.rollback_ending(false)
    }

    /// [`Btree::rollback`], or with `to_read` end in a read transaction
    /// (as [`Btree::commit_ending`]).
    pub fn rollback_ending(&mut self, to_read: bool) -> IoPoll<()> {
        self.walk = None;
        self.bump_global();
        if to_read {
            self.pager.rollback_to_read()
        } else {
            self.pager.rollback()
        }
    }
    /// The transaction state.
    pub fn txn_state(&self) -> TxnState {
        match self.pager.state() {
            PagerState::Idle => TxnState::None,
            PagerState::Read => TxnState::Read,
            PagerState::Write => TxnState::Write,
        }
    }
    /// Open savepoint number `index` (0-based nesting depth) in the
    /// current write transaction; statement-level rollback uses one too.
    pub fn savepoint_open(&mut self, index: usize) -> IoPoll<()> {
        self.pager.savepoint_open(index)?;
        Ok(Poll::Ready(()))
    }
    /// Release savepoints `index` and deeper, keeping their changes.
    pub fn savepoint_release(&mut self, index: usize) -> IoPoll<()> {
        self.pager.savepoint_release(index)?;
        Ok(Poll::Ready(()))
    }
    /// Undo changes since savepoint `index` was opened; it stays open.
    pub fn savepoint_rollback(&mut self, index: usize) -> IoPoll<()> {
        crate::ready!(self.pager.finish_spill()?);
        self.bump_global();
        self.walk = None;
        self.pager.savepoint_rollback(index)?;
        Ok(Poll::Ready(()))
    }
    /// Create an empty tree; returns its root page.
    pub fn create_tree(&mut self, kind: TreeKind) -> IoPoll<Pgno> {
        let leaf = match kind {
            TreeKind::Table => PageKind::TableLeaf,
            TreeKind::Index => PageKind::IndexLeaf,
        };
        self.run_write(|bt| {
            if bt.autovacuum()? {
                return bt.create_root_autovacuum(leaf);
            }
            let pgno = bt.allocate_page()?;
            bt.write_node(pgno, &Node { kind: leaf, cells: Vec::new(), right: 0 })?;
            Ok(pgno)
        })
    }
    /// Free every page of a tree including its root. With auto_vacuum the
    /// last root page may be moved into the hole: returns `Some(old_root)`
    /// that now lives at `root`.
    pub fn drop_tree(&mut self, root: Pgno) -> IoPoll<Option<Pgno>> {
        if root < 2 {
            return Err(Error::corrupt());
        }
        let walk = crate::ready!(self.walk_tree(root)?);
        let r = self.run_write(|bt| {
            for &p in &walk.pages {
                bt.free_page(p)?;
            }
            if bt.autovacuum()? {
                return bt.fill_root_hole(root);
            }
            Ok(None)
        });
        if !matches!(r, Ok(Poll::Pending)) {
            self.walk = None;
        }
        r
    }
    /// Delete every entry of a tree, keeping its root. Returns the number
    /// of entries removed (rows, for table trees).
    pub fn clear_tree(&mut self, root: Pgno) -> IoPoll<u64> {
        let walk = crate::ready!(self.walk_tree(root)?);
        let r = self.run_write(|bt| {
            let kind = page::header(bt.pager.page(root)?, root)?.kind.leaf();
            for &p in walk.pages.iter().filter(|p| **p != root) {
                bt.free_page(p)?;
            }
            bt.write_node(root, &Node { kind, cells: Vec::new(), right: 0 })?;
            Ok(walk.entries)
        });
        if !matches!(r, Ok(Poll::Pending)) {
            self.walk = None;
        }
        r
    }

    /// Walk every page of the tree at `root` (overflow pages included),
    /// resumably.
    fn walk_tree(&mut self, root: Pgno) -> IoPoll<Walk> {
        if self.walk.as_ref().is_none_or(|w| w.roots != [root] || w.seq != self.seq) {
            self.walk = Some(Walk::new(&[root]).at(self.seq));
        }
        let mut walk = self.walk.take().ok_or_else(Error::corrupt)?;
        let r = walk.run(self);
        let out = match r {
            Ok(Poll::Ready(())) => Ok(Poll::Ready(walk.clone())),
            Ok(Poll::Pending) => Ok(Poll::Pending),
            Err(e) => return Err(e),
        };
        self.walk = Some(walk);
        out
    }

    /// Read a header meta word.
    pub fn meta(&mut self, field: Meta) -> IoPoll<u32> {
        // Page 1 in the cache (the usual case: every statement's
        // `Transaction` asks for the schema cookie): read in place, without
        // the retrying frame of an operation. (A miss is forgotten by
        // `run_read`.)
        if self.pager.db_size() != 0 {
            if let Ok(page1) = self.pager.page_hinted(1, &mut self.page1_slot) {
                return Ok(Poll::Ready(cell::get_u32(page1, 36 + 4 * field as usize)?));
            }
        }
        self.run_read(|bt| {
            if bt.pager.db_size() == 0 {
                return Ok(0);
            }
            cell::get_u32(bt.pager.page(1)?, 36 + 4 * field as usize)
        })
    }
    /// Write a header meta word (in a write transaction).
    pub fn set_meta(&mut self, field: Meta, value: u32) -> IoPoll<()> {
        if field == Meta::FreelistCount {
            return Err(Error::new(SQLITE_INTERNAL, "the freelist count is read only"));
        }
        self.run_write(|bt| {
            crate::pager::header::put_u32(bt.pager.page_mut(1)?, 36 + 4 * field as usize, value);
            Ok(())
        })
    }
    /// Page size in bytes.
    pub fn page_size(&self) -> u32 {
        self.pager.page_size()
    }
    /// Set the page size of a database not created yet; returns the
    /// resulting page size (`PRAGMA page_size`).
    pub fn set_page_size(&mut self, size: u32) -> u32 {
        self.pager.set_page_size(size)
    }
    /// `PRAGMA cache_size` value.
    pub fn cache_size(&self) -> i64 {
        self.pager.cache_size()
    }
    /// Drop the clean, unpinned cached pages; the bytes freed.
    pub fn release_memory(&mut self) -> usize {
        self.pager.release_memory()
    }
    /// Set `PRAGMA cache_size` (pages if positive, KiB if negative).
    pub fn set_cache_size(&mut self, n: i64) {
        self.pager.set_cache_size(n)
    }
    /// Make this the connection's temp database (see `temp_journal_mode`).
    pub fn set_temp_database(&mut self) {
        self.temp_journal_mode = Some(JournalMode::Delete.name());
    }

    /// `PRAGMA journal_mode`: the current mode's name.
    pub fn journal_mode(&self) -> &'static str {
        self.temp_journal_mode.unwrap_or_else(|| self.pager.journal_mode().name())
    }
    /// Set `PRAGMA journal_mode`; returns the resulting mode's name (the
    /// old one if the change is not possible, e.g. WAL on `:memory:` or
    /// leaving WAL while other connections are attached). Changing into or
    /// out of WAL writes the header and may block on I/O.
    ///
    /// With `defer`, a change into WAL leaves the header's transaction
    /// open for the statement's commit ([`Pager::set_journal_mode`]).
    pub fn set_journal_mode(&mut self, mode: &str, defer: bool) -> &'static str {
        if let Some(shown) = self.temp_journal_mode {
            return match JournalMode::parse(mode) {
                Some(JournalMode::Wal) | None => shown,
                Some(m) => {
                    let actual = if m == JournalMode::Off { JournalMode::Off } else { JournalMode::Memory };
                    if self.pager.set_journal_mode(actual, false) != actual {
                        return shown;
                    }
                    self.pager.set_temp_journal_file(!matches!(m, JournalMode::Memory | JournalMode::Off));
                    self.temp_journal_mode.insert(m.name())
                }
            };
        }
        match JournalMode::parse(mode) {
            Some(m) => self.pager.set_journal_mode(m, defer).name(),
            None => self.pager.journal_mode().name(),
        }
    }
    /// `PRAGMA wal_checkpoint(mode)`: `(busy, log frames, checkpointed
    /// frames)`; `(false, -1, -1)` when not in WAL mode.
    pub fn checkpoint(&mut self, mode: crate::pager::wal::CheckpointMode) -> IoPoll<(bool, i32, i32)> {
        self.pager.checkpoint(mode)
    }
    /// `PRAGMA wal_autocheckpoint`: the current threshold in frames.
    pub fn wal_autocheckpoint(&self) -> u32 {
        self.pager.wal_autocheckpoint_limit()
    }
    /// `PRAGMA wal_autocheckpoint=N` (0 disables).
    pub fn set_wal_autocheckpoint(&mut self, frames: u32) {
        self.pager.set_wal_autocheckpoint(frames)
    }
    /// `PRAGMA synchronous` (0..=3).
    pub fn synchronous(&self) -> u8 {
        self.pager.synchronous() as u8
    }
    /// Set `PRAGMA synchronous` (0 OFF, 1 NORMAL, 2 FULL, 3 EXTRA).
    pub fn set_synchronous(&mut self, level: u8) {
        let s = match level {
            0 => Synchronous::Off,
            1 => Synchronous::Normal,
            2 => Synchronous::Full,
            _ => Synchronous::Extra,
        };
        self.pager.set_synchronous(s)
    }
    /// `PRAGMA io_backend`: the I/O backend's name.
    pub fn io_backend(&self) -> &'static str {
        self.pager.io_backend_name()
    }
    /// Pages in the database.
    pub fn page_count(&mut self) -> IoPoll<u32> {
        Ok(Poll::Ready(self.pager.db_size()))
    }
    /// Check the trees rooted at `roots` and the freelist; messages in
    /// SQLite's wording, at most `max_errors`.
    pub fn integrity_check(&mut self, roots: &[Pgno], max_errors: usize) -> IoPoll<Vec<String>> {
        self.check_integrity(roots, max_errors, false)
    }
    /// `integrity_check` of an SQL database, whose payloads are records:
    /// their header sizes are checked too.
    pub fn integrity_check_records(&mut self, roots: &[Pgno], max_errors: usize) -> IoPoll<Vec<String>> {
        self.check_integrity(roots, max_errors, true)
    }
}

/// The key of an entry to insert.
#[derive(Debug, Clone, Copy)]
pub enum InsertKey<'a> {
    /// Table tree: the rowid; the data is the record.
    Rowid(i64),
    /// Index tree: the whole entry is this record; data is empty.
    Index(&'a [u8]),
    /// WITHOUT ROWID table (an index tree holding whole rows): the entry
    /// is this record, whose first `key_fields` fields are the primary
    /// key; an entry with the same key is replaced. Data is empty.
    WithoutRowid {
        /// The row, primary key columns first.
        record: &'a [u8],
        /// How many leading fields form the primary key.
        key_fields: usize,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CursorState {
    /// Not on an entry.
    Invalid,
    /// On the entry whose key is saved.
    Valid,
    /// The saved entry was deleted through this cursor.
    Deleted,
    /// The saved entry was cut out of its leaf through this cursor, and
    /// the path (fresh at the cursor's `seq`) now ends where the entry
    /// after it moved up to (SQLite's `BTREE_SAVEPOSITION`): `next` and
    /// `prev` step from there without seeking the saved key again.
    DeletedInLeaf,
}

/// A column read from a chain in progress: column, serial type, bytes so far.
type ColumnRead = (usize, u64, Vec<u8>);

/// Where a rowid seek found its rowid is or goes on the cursor's leaf (see
/// `Cursor::seek_spot`).
#[derive(Debug, Clone, Copy)]
struct SeekSpot {
    rowid: i64,
    /// The tree's change sequence then: any change since bumps it.
    seq: u64,
    /// The cursor's leaf level after the seek.
    at: Level,
    /// The cell index holding the rowid or where it is to be inserted.
    idx: usize,
    exact: bool,
    /// The leaf is known to be the tree's last.
    last_leaf: bool,
}

impl SeekSpot {
    /// Whether the spot still answers for an insert of `rowid` by `c`:
    /// the same rowid, no change to any tree since, the cursor where the
    /// seek left it.
    fn holds(&self, c: &Cursor, bt: &Btree, rowid: i64) -> bool {
        self.rowid == rowid && self.seq == bt.seq && c.key_info.is_none() && c.state == CursorState::Valid && c.path.last() == Some(&self.at)
    }
}

/// A position in one tree.
pub struct Cursor {
    root: Pgno,
    writable: bool,
    key_info: Option<Arc<KeyInfo>>,
    path: Vec<Level>,
    state: CursorState,
    /// The tree's change sequence when `path` was computed.
    seq: u64,
    /// Not on an entry, but `path` is where the cursor last was before it
    /// was reopened on the same tree: a hint for seeks near it (`near.rs`)
    /// while it is fresh.
    hint: bool,
    /// A leaf seen to be the tree's last (its path's interior levels on
    /// their pages' last children), with the tree's change sequence then:
    /// while no change touched the tree, that leaf is still the last
    /// whatever path leads to it (see [`Cursor::on_known_last_leaf`]).
    /// Lets an append after an append skip re-reading the interior pages.
    last_leaf: Option<(Pgno, u64)>,
    /// Where the rowid of the last [`Cursor::seek_rowid_lazy`] goes on the
    /// leaf it left the path on, while nothing changed since: an insert of
    /// that rowid right after (`NotExists` then `Insert`, SQLite's
    /// USESEEKRESULT) uses it instead of looking at the leaf again.
    seek_spot: Option<SeekSpot>,
    /// Recent `seek_rowid_lazy` calls whose rowid the current leaf did not
    /// decide (see `near_worth_trying`).
    near_misses: u8,
    rowid: i64,
    /// Index trees: the current entry's record.
    key: Vec<u8>,
    /// Table trees: the current entry's payload, once read (while
    /// `payload_valid`). The buffer is kept across entries so that
    /// stepping through a leaf copies each row without allocating.
    payload: Vec<u8>,
    payload_valid: bool,
    /// The record header of `payload` (table trees) or `key` (index
    /// trees), parsed as far as the columns read so far (reset whenever
    /// either is replaced), so reading several columns of one entry
    /// parses its header once, and a column near the front never parses
    /// the rest.
    header: crate::value::row_header::RowHeader,
    count_walk: Option<(u64, Walk)>,
    /// Scratch buffers of moves (see `cursor_read`).
    spare: cursor_read::Spare,
    /// The header of the leaf the cursor last stepped in.
    leaf: cursor_read::LeafHeader,
    /// A large row's overflow chain being written ahead of its cell, kept
    /// across the operations (and `Pending` returns) that write it: the
    /// rowid and payload size it is for, and how far it got.
    chain_write: Option<(i64, usize, overflow::ChainWrite)>,
    /// A read of the current row's overflow chain stopped by a `Pending`:
    /// the whole payload (into `spare.buf`) when the column is `None`,
    /// else one column's bytes (serial type and bytes so far).
    chain_read: Option<(overflow::ChainRead, Option<ColumnRead>)>,
    /// A [`Cursor::column_bytes`] read stopped by a `Pending`: column,
    /// range, progress, bytes so far.
    range_read: Option<(usize, usize, usize, overflow::ChainRead, Vec<u8>)>,
}

impl Cursor {
    /// A cursor on the tree rooted at `root`. Index cursors need `key_info`.
    pub fn new(root: Pgno, writable: bool, key_info: Option<Arc<KeyInfo>>) -> Cursor {
        Cursor {
            root,
            writable,
            key_info,
            path: Vec::new(),
            state: CursorState::Invalid,
            seq: 0,
            hint: false,
            last_leaf: None,
            seek_spot: None,
            near_misses: 0,
            rowid: 0,
            key: Vec::new(),
            payload: Vec::new(),
            payload_valid: false,
            header: crate::value::row_header::RowHeader::default(),
            count_walk: None,
            spare: cursor_read::Spare::default(),
            leaf: cursor_read::LeafHeader::default(),
            chain_write: None,
            chain_read: None,
            range_read: None,
        }
    }

    /// Make this a fresh cursor on another tree (as [`Cursor::new`]),
    /// keeping the allocations of its buffers.
    /// On the same tree, the old position is kept as a hint (see
    /// `Cursor::hint`): a statement run again (an INSERT per row) starts
    /// next to where it left off.
    pub fn reopen(&mut self, root: Pgno, writable: bool, key_info: Option<Arc<KeyInfo>>) {
        self.hint = root == self.root && (self.state == CursorState::Valid || self.hint);
        self.chain_write = None;
        self.chain_read = None;
        self.range_read = None;
        self.seek_spot = None;
        if !self.hint {
            self.path.clear();
            self.seq = 0;
            self.last_leaf = None;
        }
        self.root = root;
        self.writable = writable;
        self.key_info = key_info;
        self.state = CursorState::Invalid;
        self.rowid = 0;
        self.key.clear();
        self.payload.clear();
        self.payload_valid = false;
        self.header.reset();
        self.count_walk = None;
        // (The cache slot hint stays: a statement run again meets the
        // same leaf, in the same slot if still cached.)
        self.leaf = cursor_read::LeafHeader::with_slot_hint(self.leaf.slot_hint());
    }

    /// Whether the path still holds (no change to this tree since it was
    /// computed).
    #[inline]
    fn fresh(&self, bt: &Btree) -> bool {
        // (Inline: asked once or twice per row; nothing changed is the
        // usual answer.)
        self.seq == bt.seq || bt.path_fresh(self.root, self.seq)
    }

    /// The tree's root page.
    pub fn root(&self) -> Pgno {
        self.root
    }

    /// Whether the cursor is on a table tree (keyed by rowid), not an index.
    pub fn is_table(&self) -> bool {
        self.key_info.is_none()
    }

    /// An index cursor's key order (`None` on a table tree).
    pub fn key_info(&self) -> Option<&Arc<KeyInfo>> {
        self.key_info.as_ref()
    }

    /// Whether the leaf the path ends on is known to be the tree's last:
    /// noted so at a change sequence no later change to the tree passed.
    #[inline]
    fn on_known_last_leaf(&self, bt: &Btree) -> bool {
        matches!(self.last_leaf, Some((leaf, seq)) if self.path.last().map(|l| l.pgno) == Some(leaf) && bt.path_fresh(self.root, seq))
    }

    /// Note that the leaf the (fresh) path ends on is the tree's last.
    fn note_last_leaf(&mut self, bt: &Btree) {
        self.last_leaf = self.path.last().map(|l| (l.pgno, bt.seq));
    }

    /// A fresh path to start a seek near: the entry the cursor is on, or
    /// the one it was on before being reopened on the same tree.
    #[inline]
    fn near_path(&self, bt: &Btree) -> Option<&[Level]> {
        ((self.state == CursorState::Valid || self.hint) && self.fresh(bt)).then_some(&self.path[..])
    }

    fn probe(&self) -> Probe<'_> {
        if self.key_info.is_some() {
            Probe::Record(&self.key)
        } else {
            Probe::Rowid(self.rowid)
        }
    }

    /// The current path, re-seeking the saved key if the tree changed.
    /// `Err` if the saved entry no longer exists.
    fn current_path(&self, bt: &Btree) -> Result<Vec<Level>> {
        if self.state == CursorState::Valid && self.fresh(bt) {
            return Ok(self.path.clone());
        }
        if self.state == CursorState::Invalid {
            return Err(Error::new(SQLITE_INTERNAL, "cursor is not on an entry"));
        }
        let (path, _, exact) = bt.seek_path(self.root, &self.probe(), self.key_info.as_deref(), false, true)?;
        if !exact {
            return Err(Error::new(SQLITE_INTERNAL, "cursor's entry no longer exists"));
        }
        Ok(path)
    }

    /// Insert or replace the entry with this key; the cursor ends on it.
    pub fn insert(&mut self, bt: &mut Btree, key: InsertKey<'_>, data: &[u8]) -> IoPoll<()> {
        self.insert_with_zeros(bt, key, data, 0)
    }

    /// [`Cursor::insert`] of a table row whose record is `data` followed
    /// by `zeros` zero bytes that are not stored (a record ending in
    /// zero-blobs). A row whose overflow chain is longer than
    /// [`overflow::CHAIN_BATCH_PAGES`] has its chain written first, a
    /// batch per B-tree operation (the cache may spill in between), then
    /// its cell inserted pointing at it; a `Pending` return keeps the
    /// progress for the call that resumes.
    pub fn insert_with_zeros(&mut self, bt: &mut Btree, key: InsertKey<'_>, data: &[u8], zeros: usize) -> IoPoll<()> {
        if !self.writable {
            return Err(Error::code(SQLITE_READONLY));
        }
        if bt.text_encoding.is_utf16() {
            return self.insert_transcoded(bt, key, data, zeros);
        }
        self.insert_with_zeros_stored(bt, key, data, zeros)
    }

    /// [`Cursor::insert_with_zeros`] of records as they are stored.
    fn insert_with_zeros_stored(&mut self, bt: &mut Btree, key: InsertKey<'_>, data: &[u8], zeros: usize) -> IoPoll<()> {
        let mut payload = overflow::Payload { bytes: data, zeros, chain: 0 };
        if let (InsertKey::Rowid(rowid), None) = (key, &self.key_info) {
            let total = payload.size();
            // (Such a chain holds more than 64 pages of at least 476 bytes:
            // the size compare spares the common row the arithmetic.)
            if total > overflow::CHAIN_BATCH_PAGES * 476 && bt.overflow_pages_for(PageKind::TableLeaf, total) > overflow::CHAIN_BATCH_PAGES {
                let mut st = match self.chain_write {
                    Some((r, len, st)) if r == rowid && len == total => st,
                    _ => overflow::ChainWrite::default(),
                };
                let batch = bt.chain_batch_pages();
                // (A chain already whole is not touched again: an empty
                // operation would release the pins the cell's insert,
                // stopped by a `Pending`, has gathered.)
                while st.done < bt.overflow_bytes_for(PageKind::TableLeaf, total) {
                    let r = bt.run_write_in(Some(self.root), |bt| {
                        let mut next = st;
                        let whole = bt.write_chain_batch(PageKind::TableLeaf, payload, &mut next, batch)?;
                        Ok((next, whole))
                    });
                    match r {
                        Ok(Poll::Ready((next, whole))) => {
                            st = next;
                            self.chain_write = Some((rowid, total, st));
                            debug_assert!(whole == (st.done >= bt.overflow_bytes_for(PageKind::TableLeaf, total)));
                        }
                        Ok(Poll::Pending) => return Ok(Poll::Pending),
                        Err(e) => {
                            self.chain_write = None;
                            return Err(e);
                        }
                    }
                }
                payload.chain = st.first;
            }
        } else if zeros > 0 {
            return Err(Error::new(SQLITE_INTERNAL, "a zero tail on a key that is not a rowid"));
        }
        let r = self.insert_payload(bt, key, payload);
        if !matches!(r, Ok(Poll::Pending)) {
            self.chain_write = None;
        }
        r
    }

    /// [`Cursor::insert_with_zeros`] on a UTF-16 file: the records (UTF-8)
    /// are stored with their text in the file's encoding.
    #[cold]
    #[inline(never)]
    fn insert_transcoded(&mut self, bt: &mut Btree, key: InsertKey<'_>, data: &[u8], zeros: usize) -> IoPoll<()> {
        let enc = bt.text_encoding;
        let wide = |rec: &[u8]| crate::value::transcode::transcode_record(rec, enc, false);
        match key {
            InsertKey::Rowid(_) => match wide(data) {
                Some(d) => self.insert_with_zeros_stored(bt, key, &d, zeros),
                None => self.insert_with_zeros_stored(bt, key, data, zeros),
            },
            // (Index trees: the key is the entry, the data is empty.)
            InsertKey::Index(rec) => match wide(rec) {
                Some(k) => self.insert_with_zeros_stored(bt, InsertKey::Index(&k), data, zeros),
                None => self.insert_with_zeros_stored(bt, key, data, zeros),
            },
            InsertKey::WithoutRowid { record, key_fields } => match wide(record) {
                Some(k) => self.insert_with_zeros_stored(bt, InsertKey::WithoutRowid { record: &k, key_fields }, data, zeros),
                None => self.insert_with_zeros_stored(bt, key, data, zeros),
            },
        }
    }

    fn insert_payload(&mut self, bt: &mut Btree, key: InsertKey<'_>, payload: overflow::Payload<'_>) -> IoPoll<()> {
        let pk_values;
        let (probe, payload, leaf_kind, rowid) = match key {
            InsertKey::Rowid(r) if self.key_info.is_none() => (Probe::Rowid(r), payload, PageKind::TableLeaf, r),
            InsertKey::Index(rec) if self.key_info.is_some() => (Probe::Record(rec), rec.into(), PageKind::IndexLeaf, 0),
            InsertKey::WithoutRowid { record, key_fields } if self.key_info.is_some() => {
                let values = crate::value::record::Record::parse(record)?.values()?;
                if key_fields == 0 || key_fields > values.len() {
                    return Err(Error::new(SQLITE_INTERNAL, "WITHOUT ROWID key longer than the row"));
                }
                pk_values = values;
                (Probe::PrimaryKey(&pk_values[..key_fields]), record.into(), PageKind::IndexLeaf, 0)
            }
            _ => return Err(Error::new(SQLITE_INTERNAL, "insert key does not match the tree kind")),
        };
        let root = self.root;
        // A rowid the cursor's fresh leaf places (the row an UPDATE is on,
        // the next rowid of an append after `NotExists`) needs no seek.
        // The insertion point on the cursor's own leaf, if it decides it:
        // (cell index, exact). The path itself is then used in place.
        let mut known = None;
        if let Some(s) = self.seek_spot.take().filter(|s| s.holds(self, bt, rowid)) {
            known = Some((s.idx, s.exact, s.last_leaf));
        } else if let (InsertKey::Rowid(_), Some(near)) = (key, self.near_path(bt)) {
            match bt.rowid_near(near, rowid, self.on_known_last_leaf(bt)) {
                Ok(Some(spot)) => known = Some((spot.idx, spot.exact, spot.last_leaf)),
                Ok(None) => {}
                // (A page not cached, or damage the seek reports.)
                Err(_) => {
                    bt.pager.take_missing();
                }
            }
        }
        // An index key after the tree's last entry, where the cursor is
        // (the previous key of an ordered run).
        if let (InsertKey::Index(rec), Some(ki), CursorState::Valid) = (key, self.key_info.as_deref(), self.state) {
            if self.fresh(bt) && crate::value::record::compare_records_in(rec, &self.key, ki, bt.text_encoding).ok() == Some(std::cmp::Ordering::Greater) {
                match bt.index_append_spot(&self.path, self.on_known_last_leaf(bt)) {
                    Ok(Some(idx)) => known = Some((idx, false, true)),
                    Ok(None) => {}
                    Err(_) => {
                        bt.pager.take_missing();
                    }
                }
            }
        }
        // An index key between two cells of the cursor's fresh leaf (the
        // entry a REPLACE just deleted there, a key next to the last one).
        if let (None, InsertKey::Index(rec), Some(ki)) = (known, key, self.key_info.as_deref()) {
            if matches!(self.state, CursorState::Valid | CursorState::DeletedInLeaf) && self.fresh(bt) {
                match bt.index_near_spot(&self.path, rec, ki) {
                    Ok(Some(idx)) => known = Some((idx, false, false)),
                    Ok(None) => {}
                    Err(_) => {
                        bt.pager.take_missing();
                    }
                }
            }
        }
        let ki = self.key_info.as_deref();
        let mut last_leaf = false;
        let new_path = match known {
            Some((idx, exact, on_last)) => {
                let mut path = std::mem::take(&mut self.path);
                let Some(top) = path.last_mut() else { return Err(Error::corrupt()) };
                let old_idx = std::mem::replace(&mut top.idx, idx);
                let r = bt.run_write_in(Some(root), |bt| bt.insert_at(&path, exact, leaf_kind, rowid, payload));
                match r {
                    Ok(Poll::Ready(true)) => {
                        // Same pages, same interior levels.
                        last_leaf = on_last;
                        Some(path)
                    }
                    Ok(Poll::Ready(false)) => {
                        self.path = path;
                        None
                    }
                    // Not done: the cursor stays as it was, for the retry.
                    other => {
                        if let Some(top) = path.last_mut() {
                            top.idx = old_idx;
                        }
                        self.path = path;
                        return other.map(|_| Poll::Pending);
                    }
                }
            }
            None => {
                // (The descent fills the spare path vector; the replaced
                // path becomes the next spare.)
                let mut path = std::mem::take(&mut self.spare.path);
                let r = bt.run_write_in(Some(root), |bt| bt.insert_entry_into(root, &probe, ki, leaf_kind, rowid, payload, &mut path));
                match r {
                    Ok(Poll::Ready(true)) => {
                        self.spare.path = std::mem::take(&mut self.path);
                        Some(path)
                    }
                    Ok(Poll::Ready(false)) => {
                        self.spare.path = path;
                        None
                    }
                    Ok(Poll::Pending) => {
                        self.spare.path = path;
                        return Ok(Poll::Pending);
                    }
                    Err(e) => {
                        self.spare.path = path;
                        return Err(e);
                    }
                }
            }
        };
        self.state = CursorState::Valid;
        self.hint = false;
        self.rowid = rowid;
        self.key.clear();
        if self.key_info.is_some() {
            self.key.extend_from_slice(payload.bytes);
        }
        self.payload_valid = false;
        self.header.reset();
        match new_path {
            // The entry is where the path says and only this tree changed.
            Some(path) => {
                self.path = path;
                self.seq = bt.seq;
                // (An insert in place leaves every page where it was.)
                if last_leaf {
                    self.note_last_leaf(bt);
                }
            }
            // The tree was rebalanced: the next use re-seeks the saved key.
            None => self.seq = bt.seq.wrapping_sub(1),
        }
        Ok(Poll::Ready(()))
    }
    /// Delete the current entry.
    pub fn delete(&mut self, bt: &mut Btree) -> IoPoll<()> {
        if !self.writable {
            return Err(Error::code(SQLITE_READONLY));
        }
        if self.state != CursorState::Valid {
            return Err(Error::new(SQLITE_INTERNAL, "delete on a cursor not on an entry"));
        }
        let root = self.root;
        let ki = self.key_info.clone();
        // (A current path is used as it is, not copied.)
        let fresh_path = self.state == CursorState::Valid && self.fresh(bt);
        let (in_leaf, path) = crate::ready!(bt.run_write_in(Some(root), |bt| {
            if fresh_path {
                return Ok((bt.delete_at(root, &self.path, ki.as_deref())?, None));
            }
            let path = self.current_path(bt)?;
            let in_leaf = bt.delete_at(root, &path, ki.as_deref())?;
            Ok((in_leaf, Some(path)))
        })?);
        self.payload_valid = false;
        self.header.reset();
        if in_leaf {
            // Only the leaf changed, and only by this cell: the path
            // stays valid, now on the entry after the deleted one.
            if let Some(path) = path {
                self.path = path;
            }
            self.state = CursorState::DeletedInLeaf;
            self.seq = bt.seq;
        } else {
            self.state = CursorState::Deleted;
            self.seq = bt.seq.wrapping_sub(1);
        }
        Ok(Poll::Ready(()))
    }
    /// Number of entries in the tree; a root of the other kind than the
    /// cursor's is corrupt (SQLite's count moves to the root as any move
    /// does).
    pub fn count(&mut self, bt: &mut Btree) -> IoPoll<u64> {
        self.count_checked(bt, true)
    }

    /// Number of entries in the tree, whatever the root's kind: the
    /// integrity check counts an index's entries so, as SQLite's
    /// structure pass does.
    pub fn count_any_kind(&mut self, bt: &mut Btree) -> IoPoll<u64> {
        self.count_checked(bt, false)
    }

    fn count_checked(&mut self, bt: &mut Btree, check_kind: bool) -> IoPoll<u64> {
        // (A database file still empty has an empty schema table.)
        if bt.pager.db_size() == 0 {
            return Ok(Poll::Ready(0));
        }
        let mut walk = match self.count_walk.take() {
            Some((seq, w)) if seq == bt.seq => w,
            _ => {
                let (root, table) = (self.root, self.key_info.is_none());
                if check_kind {
                    crate::ready!(bt.run_read(|bt| bt.check_root_kind(root, table))?);
                }
                Walk::new_shallow(&[self.root])
            }
        };
        match walk.run(bt) {
            Ok(Poll::Ready(())) => Ok(Poll::Ready(walk.entries)),
            Ok(Poll::Pending) => {
                self.count_walk = Some((bt.seq, walk));
                Ok(Poll::Pending)
            }
            Err(e) => Err(e),
        }
    }
}
