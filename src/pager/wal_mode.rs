//! # The pager in WAL mode
//!
//! Glue between the pager's transactions and [`super::wal`]:
//!
//! - A database is in WAL mode when its header says file format 2/2
//!   (offsets 18/19) or a `-wal` file exists; the pager then opens the WAL
//!   at its first read transaction and reports `journal_mode=wal`.
//! - In WAL mode the connection holds SHARED on the database file for as
//!   long as it is attached (so nobody can delete the WAL or leave WAL mode
//!   under it); transactions use the WAL's read and WRITE locks instead of
//!   RESERVED/EXCLUSIVE.
//! - Commit appends the dirty pages as frames (commit step `WalFrames`,
//!   then `WalSync` when `synchronous=FULL`), publishes them, and runs a
//!   PASSIVE checkpoint when the log reaches `wal_autocheckpoint` frames.
//! - `PRAGMA journal_mode=WAL` writes 2/2 into the header with an ordinary
//!   rollback-journal transaction; leaving WAL needs EXCLUSIVE on the
//!   database, a complete checkpoint, and writes 1/1 back.
//! - Closing the last connection (EXCLUSIVE obtainable) checkpoints and
//!   deletes the `-wal` and `-shm` files.
//!
//! Cache validity: the cache is dropped whenever a read transaction's
//! snapshot differs from the previous one (another connection committed
//! or checkpointed-and-restarted).

use super::header::{self, HeaderInfo};
use super::wal::{CheckpointMode, Wal};
use super::{JournalMode, Pager, PagerState, Synchronous};
use crate::error::{Error, Result, SQLITE_BUSY};
use crate::io::LockLevel;
use crate::{IoPoll, Poll};

/// Default `PRAGMA wal_autocheckpoint`.
pub const DEFAULT_AUTOCHECKPOINT: u32 = 1000;

impl Pager {
    pub(super) fn wal_path(&self) -> String {
        format!("{}-wal", self.path)
    }

    /// Frames in the WAL as this connection last saw it; `None` outside
    /// WAL mode.
    pub fn wal_frame_count(&self) -> Option<u32> {
        self.wal.as_ref().map(|w| w.snapshot().mx_frame)
    }

    /// Whether the WAL is in use.
    pub fn is_wal(&self) -> bool {
        self.wal.is_some()
    }

    /// Whether [`Pager::wal_begin_read`] will ask if a `-wal` file exists
    /// (so the read transaction's start may probe for it in advance).
    pub(super) fn wal_probe_wanted(&self) -> bool {
        self.wal.is_none() && !self.opts.memory && !self.opts.immutable && !self.leaving_wal
    }

    /// Called at the start of every read transaction with the database
    /// file's header (`None`: empty file). Opens the WAL if the database is
    /// in WAL mode and begins the WAL read; returns false when the database
    /// is not in WAL mode (the rollback path continues).
    pub(super) fn wal_begin_read(&mut self, info: Option<HeaderInfo>) -> IoPoll<bool> {
        if self.wal.is_none() {
            if self.opts.memory || self.opts.immutable || self.leaving_wal {
                return Ok(Poll::Ready(false));
            }
            let wal_exists = match self.wal_probe.take() {
                Some(probed) => probed,
                None => self.io.backend().exists(&self.wal_path())?,
            };
            let wants = info.is_some_and(|i| i.write_version == 2) || wal_exists;
            // Without a log the database file is complete: a read-only
            // connection, which may not create one, reads it directly
            // (as SQLite does when no `-wal` file is present).
            if !wants || (self.opts.read_only && !wal_exists) {
                return Ok(Poll::Ready(false));
            }
            let heap = self.wal_heap_index()?;
            self.wal = Some(Wal::open(&self.io, self.file.clone(), &self.path, self.page_size, self.opts.read_only, heap)?);
            self.invalidate_cache();
        }
        let Some(wal) = self.wal.as_mut() else { return Ok(Poll::Ready(false)) };
        let changed = crate::ready!(wal.begin_read()?);
        let snap = *wal.snapshot();
        if changed {
            // Another connection committed (or restarted the log), or the
            // log was just opened (SQLite counts that too): this
            // connection's own commits leave the header it knows.
            self.note_foreign_commit();
        }
        if let Some(i) = info {
            if snap.mx_frame > 0 && snap.page_size != i.page_size {
                // A log written for another page size cannot belong here.
                return Err(Error::corrupt());
            }
        }
        let (page_size, reserved) = match info {
            Some(i) => (i.page_size, i.reserved),
            None if snap.mx_frame > 0 && header::valid_page_size(snap.page_size) => (snap.page_size, 0),
            None => (self.page_size, self.reserved),
        };
        if changed || page_size != self.page_size || reserved != self.reserved {
            self.invalidate_cache();
        }
        if page_size != self.page_size || reserved != self.reserved {
            self.page_size = page_size;
            self.reserved = reserved;
            self.apply_cache_size();
        }
        if let Some(wal) = self.wal.as_mut() {
            wal.set_page_size(self.page_size);
            self.db_size = match wal.db_size() {
                Some(n) => n,
                None => {
                    let file_size = self.file.size()?;
                    let from_file = (file_size / self.page_size as u64) as u32;
                    // The header `info` was read before the read lock: a
                    // checkpoint may have changed the file since. Unless
                    // the WAL is exclusive, `load_header`'s caller reads it
                    // again under the lock (`ReadStep::WalHeader`) and
                    // sets the size then.
                    if wal.is_exclusive() {
                        super::checked_db_size(info.and_then(|i| i.db_size), file_size, self.page_size)?.unwrap_or(from_file)
                    } else {
                        from_file
                    }
                }
            };
        }
        self.journal_mode = JournalMode::Wal;
        self.last_change_counter = None;
        Ok(Poll::Ready(true))
    }

    /// The WAL frame holding `pgno` in the current snapshot.
    pub(super) fn wal_frame_of(&self, pgno: u32) -> Result<Option<(std::sync::Arc<dyn crate::io::File>, u64)>> {
        let Some(wal) = &self.wal else { return Ok(None) };
        Ok(wal.find_frame(pgno)?.map(|f| (wal.file().clone(), wal.page_offset(f))))
    }

    /// Before a commit's or spill's frames: a new log header, written and
    /// synced on its own when the log is empty or restarts (resumable).
    pub(super) fn wal_prepare_header(&mut self) -> IoPoll<()> {
        let sync = self.synchronous > Synchronous::Off;
        match self.wal.as_mut() {
            Some(w) => w.prepare_header(sync),
            None => Ok(Poll::Ready(())),
        }
    }

    /// Submit the commit's frames.
    pub(super) fn wal_write_frames(&mut self) -> Result<Vec<crate::io::Completion>> {
        let dirty = self.cache.dirty_pages();
        let mut images = Vec::with_capacity(dirty.len());
        for pgno in &dirty {
            images.push((*pgno, self.page(*pgno)?.to_vec()));
        }
        let refs: Vec<(u32, &[u8])> = images.iter().map(|(p, d)| (*p, d.as_slice())).collect();
        let db_size = self.db_size;
        let synced = self.wal_sync_on_commit();
        self.count_writes(refs.len());
        let wal = self.wal.as_mut().ok_or_else(|| Error::new(crate::error::SQLITE_INTERNAL, "no WAL"))?;
        wal.write_commit(&refs, db_size, synced)
    }

    /// Submit a cache spill's frames (no commit frame).
    pub(super) fn wal_write_spill(&mut self, pgnos: &[u32]) -> Result<Vec<crate::io::Completion>> {
        let mut images = Vec::with_capacity(pgnos.len());
        for pgno in pgnos {
            images.push((*pgno, self.page(*pgno)?.to_vec()));
        }
        let refs: Vec<(u32, &[u8])> = images.iter().map(|(p, d)| (*p, d.as_slice())).collect();
        self.count_spill(refs.len());
        let wal = self.wal.as_mut().ok_or_else(|| Error::new(crate::error::SQLITE_INTERNAL, "no WAL"))?;
        wal.write_frames(&refs, None)
    }

    /// Whether the current write transaction spilled frames to the log.
    pub(super) fn wal_has_uncommitted(&self) -> bool {
        self.wal.as_ref().is_some_and(|w| w.has_uncommitted())
    }

    /// Whether the commit must fsync the WAL.
    pub(super) fn wal_sync_on_commit(&self) -> bool {
        self.synchronous >= Synchronous::Full
    }

    /// Frames are on disk: make them visible.
    pub(super) fn wal_publish(&mut self) -> Result<()> {
        match self.wal.as_mut() {
            Some(w) => w.publish(),
            None => Ok(()),
        }
    }

    /// After a commit: checkpoint if the log reached the threshold (or
    /// continue the one in progress). A busy or failed checkpoint does not
    /// fail the commit.
    pub(super) fn wal_autocheckpoint(&mut self) -> IoPoll<()> {
        let limit = self.wal_autocheckpoint;
        let sync = self.synchronous > Synchronous::Off;
        if let Some(w) = self.wal.as_mut() {
            if w.checkpoint_running() || (limit > 0 && w.snapshot().mx_frame >= limit) {
                if let Ok(Poll::Pending) = w.checkpoint(CheckpointMode::Passive, sync) {
                    return Ok(Poll::Pending);
                }
            }
        }
        Ok(Poll::Ready(()))
    }

    /// Whether an automatic checkpoint started by the last commit is still
    /// running (the commit call continues it).
    pub(super) fn wal_autocheckpoint_running(&self) -> bool {
        self.state == PagerState::Idle && self.wal.as_ref().is_some_and(|w| w.checkpoint_running())
    }

    /// `PRAGMA wal_autocheckpoint` (0 disables).
    pub fn set_wal_autocheckpoint(&mut self, frames: u32) {
        self.wal_autocheckpoint = frames;
    }

    /// The `wal_autocheckpoint` setting.
    pub fn wal_autocheckpoint_limit(&self) -> u32 {
        self.wal_autocheckpoint
    }

    /// `PRAGMA wal_checkpoint(mode)`: `(busy, log frames, checkpointed
    /// frames)`, `(false, -1, -1)` when the database is not in WAL mode.
    /// Runs to completion (blocking on I/O).
    pub fn checkpoint(&mut self, mode: CheckpointMode) -> IoPoll<(bool, i32, i32)> {
        if self.wal.is_none() && self.state == PagerState::Idle && !self.opts.memory {
            // Attach to a WAL-mode database not read yet.
            crate::ready!(self.begin_read()?);
            self.end_read()?;
        }
        let sync = self.synchronous > Synchronous::Off;
        let Some(w) = self.wal.as_mut() else { return Ok(Poll::Ready((false, -1, -1))) };
        match w.checkpoint(mode, sync) {
            Ok(Poll::Pending) => Ok(Poll::Pending),
            Ok(Poll::Ready((busy, log, done))) => Ok(Poll::Ready((busy, log as i32, done as i32))),
            Err(e) if e.primary() == SQLITE_BUSY => Ok(Poll::Ready((true, w.snapshot().mx_frame as i32, -1))),
            Err(e) => Err(e),
        }
    }

    /// Begin the rollback-journal transaction that rewrites header bytes
    /// 18/19, and change them; rolled back if that fails.
    fn begin_format_version(&mut self, v: u8) -> Result<()> {
        let io = self.io.clone();
        io.block_on(|| self.begin_write(false))?;
        let r = (|| {
            io.block_on(|| self.fetch(1))?;
            let p1 = self.page_mut(1)?;
            p1[header::WRITE_VERSION] = v;
            p1[header::READ_VERSION] = v;
            Ok(())
        })();
        if r.is_err() {
            let _ = io.block_on(|| self.rollback());
        }
        r
    }

    /// The end of a header's transaction into or out of WAL left to its
    /// statement ([`Pager::switch_wal`] with `defer`). Into WAL: WAL mode
    /// if it committed, the mode before it if it rolled back, its journal
    /// not kept either way. Out of WAL (the log is gone already): the new
    /// mode either way, as SQLite's pager has it by then.
    pub(super) fn end_wal_switch(&mut self, committed: bool) {
        if let Some(other) = self.pending_wal_switch.take() {
            if std::mem::take(&mut self.leaving_wal) {
                return;
            }
            self.entering_wal = false;
            self.journal_mode = if committed { JournalMode::Wal } else { other };
            self.drop_kept_journal();
        }
    }

    /// Rewrite header bytes 18/19 with a rollback-journal transaction.
    fn write_format_version(&mut self, v: u8) -> Result<()> {
        let io = self.io.clone();
        io.block_on(|| self.begin_write(false))?;
        let r = (|| {
            io.block_on(|| self.fetch(1))?;
            let p1 = self.page_mut(1)?;
            p1[header::WRITE_VERSION] = v;
            p1[header::READ_VERSION] = v;
            io.block_on(|| self.commit())
        })();
        if r.is_err() {
            let _ = io.block_on(|| self.rollback());
        }
        r
    }

    /// `PRAGMA journal_mode` changes into or out of WAL. Returns the mode in
    /// effect afterwards (into WAL with `defer`: the mode it will be in
    /// once the header's transaction, left open, commits).
    pub(super) fn switch_wal(&mut self, mode: JournalMode, defer: bool) -> JournalMode {
        if self.state != PagerState::Idle || self.opts.read_only || self.opts.immutable {
            return self.journal_mode;
        }
        if mode == JournalMode::Wal {
            // Without shared memory only an exclusive connection may (its
            // WAL index then lives in heap memory).
            if self.opts.memory || !(self.file.has_shared_memory() || self.exclusive_mode) {
                return self.journal_mode;
            }
            // Learn whether it already is (opens the WAL if so).
            if self.io.clone().block_on(|| self.begin_read()).is_err() {
                return self.journal_mode;
            }
            if self.wal.is_some() {
                let _ = self.end_read();
                return JournalMode::Wal;
            }
            // (The header's write transaction grows from this read one,
            // which looked at any journal left in place once, as SQLite's
            // does.)
            // The header's transaction ends its journal as SQLite's pager
            // ends it once set to WAL (no log open yet): deleted, whatever
            // the mode it leaves and in exclusive locking mode too.
            let old = std::mem::replace(&mut self.journal_mode, JournalMode::Delete);
            self.entering_wal = true;
            if defer {
                // The statement commits it (or rolls it back) as it ends,
                // after its row, as SQLite's does.
                if self.begin_format_version(2).is_ok() {
                    self.pending_wal_switch = Some(old);
                    return JournalMode::Wal;
                }
                self.entering_wal = false;
                if self.state == PagerState::Read {
                    let _ = self.end_read();
                }
                self.journal_mode = old;
                return old;
            }
            let written = self.write_format_version(2).is_ok();
            self.entering_wal = false;
            if self.state == PagerState::Read {
                // (The write transaction could not begin.)
                let _ = self.end_read();
            }
            self.journal_mode = if written { JournalMode::Wal } else { old };
            // (Its journal is not kept: the database is in WAL mode now.)
            self.drop_kept_journal();
            return self.journal_mode;
        }
        // Leaving WAL mode: only the sole connection may.
        if self.wal.is_none() {
            self.journal_mode = mode;
            return mode;
        }
        if !self.file.lock(LockLevel::Exclusive).unwrap_or(false) {
            let _ = self.file.unlock(LockLevel::Shared);
            return JournalMode::Wal;
        }
        let sync = self.synchronous > Synchronous::Off;
        let done = match self.wal.as_mut() {
            Some(w) => {
                let io = self.io.clone();
                matches!(io.block_on(|| w.checkpoint(CheckpointMode::Truncate, sync)), Ok((false, _, _)))
            }
            None => true,
        };
        if !done {
            let _ = self.file.unlock(LockLevel::Shared);
            return JournalMode::Wal;
        }
        if let Some(w) = self.wal.take() {
            // As when a connection closes, SQLite asks the VFS whether to
            // keep the log (SQLITE_FCNTL_PERSIST_WAL).
            let persist = self.file.persist_wal();
            let _ = w.close(!persist);
        }
        self.invalidate_cache();
        self.journal_mode = mode;
        // The header still says 2/2 until this transaction rewrites it.
        self.leaving_wal = true;
        if defer {
            // The statement commits it as it ends, after its row, as
            // SQLite's does.
            if self.begin_format_version(1).is_ok() {
                self.pending_wal_switch = Some(mode);
                return mode;
            }
            self.leaving_wal = false;
            let _ = self.file.unlock(LockLevel::None);
            return self.journal_mode;
        }
        let r = self.write_format_version(1);
        self.leaving_wal = false;
        if r.is_err() {
            let _ = self.file.unlock(LockLevel::None);
        }
        self.journal_mode
    }

    /// Detach from the WAL: the last connection (EXCLUSIVE obtainable)
    /// checkpoints and deletes the `-wal` and `-shm` files, unless the
    /// database file was moved or deleted (`moved`: then the log is left
    /// as it is, as SQLite leaves it).
    fn close_wal(&mut self, moved: bool) -> Result<()> {
        let Some(mut w) = self.wal.take() else { return Ok(()) };
        let _ = w.end_write();
        w.end_read();
        if self.abandoned || self.opts.read_only || self.no_ckpt_on_close || moved {
            return w.close(false);
        }
        self.state = PagerState::Idle;
        if !self.file.lock(LockLevel::Exclusive)? {
            return w.close(false);
        }
        let sync = self.synchronous > Synchronous::Off;
        // The log is checkpointed whole (no reader can be there: EXCLUSIVE
        // is held), then, as SQLite asks after its checkpoint, a VFS may
        // keep it (SQLITE_FCNTL_PERSIST_WAL): left in place with its
        // content, else deleted.
        let r = self.io.clone().block_on(|| w.checkpoint(CheckpointMode::Full, sync));
        let ok = matches!(r, Ok((false, _, _)));
        let persist = ok && self.file.persist_wal();
        let closed = w.close(ok && !persist);
        self.file.unlock(LockLevel::None)?;
        r?;
        closed
    }

    /// `SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE`: whether closing leaves the WAL
    /// alone, after setting it to `set` if given.
    pub fn no_checkpoint_on_close(&mut self, set: Option<bool>) -> bool {
        if let Some(v) = set {
            self.no_ckpt_on_close = v;
        }
        self.no_ckpt_on_close
    }

    /// Whether closing leaves the WAL alone (see
    /// [`Pager::no_checkpoint_on_close`]).
    pub fn no_ckpt_on_close(&self) -> bool {
        self.no_ckpt_on_close
    }

    /// Test hook: forget this pager as a crashed process would (no
    /// checkpoint, no cleanup; locks vanish when the handles drop).
    #[doc(hidden)]
    pub fn abandon(&mut self) {
        self.abandoned = true;
    }
}

impl Drop for Pager {
    fn drop(&mut self) {
        // As SQLite's pager does at close (whatever the journal mode): ask
        // whether the file was moved or deleted, which decides the WAL's
        // checkpoint (a VFS sees SQLITE_FCNTL_HAS_MOVED here).
        let asks = !self.abandoned && !self.no_ckpt_on_close && !self.opts.memory && self.db_size > 0;
        let moved = asks && matches!(self.file.has_moved(), Ok(true));
        // (A statement journal kept by exclusive locking mode closes
        // before the rollback journal, after the WAL, as SQLite's.)
        if self.wal.is_none() {
            self.drop_subjournal();
        }
        self.drop_kept_journal();
        let _ = self.close_wal(moved);
        self.drop_subjournal();
        self.temp_journal_close();
    }
}
