//! # Checkpoints: copying the log back into the database
//!
//! Holds CKPT exclusively (FULL and stronger also WRITE, degrading to
//! PASSIVE and reporting busy if a writer has it, as SQLite does). The safe
//! limit is the snapshot `mxFrame`, lowered to the read mark of every
//! reader that still needs older database content. With READ0 held
//! exclusively (no reader is reading the database file while ignoring the
//! log, and no writer can restart it), and the log's salts still those of
//! the header read (a PASSIVE checkpoint holds no WRITE lock, so another
//! connection may have restarted the log meanwhile: nothing is copied
//! then), the newest frame of each page up to the limit is copied into the
//! database file: `SyncWal → ReadFrames → WriteDb (+ truncate to the
//! snapshot's size when the whole log is copied) → SyncDb`, then
//! `nBackfill` advances. RESTART and TRUNCATE then need every log reader
//! gone (READ1..4); TRUNCATE also resets the log and truncates the file
//! (`TruncateWal`).
//!
//! Resumable: each step submits its requests once and returns `Pending`
//! until they complete; the locks stay held across `Pending` and are
//! released when the checkpoint finishes or fails.
//!
//! Invariant: no database page is overwritten while a reader whose snapshot
//! predates the frame might still read that page from the file (checked:
//! checkpoint_spares_readers).

use super::format::{frame_offset, FRAME_HEADER_SIZE};
use super::index::{read_lock, IndexHeader, CKPT_LOCK, NBACKFILL, NREADER, READMARK_NOT_USED, WRITE_LOCK};
use super::{busy, CheckpointMode, Wal};
use crate::error::{Error, Result};
use crate::io::{Buffer, Completion};
use crate::{IoPoll, Poll};
use std::collections::BTreeMap;

/// What a checkpoint did: `(busy, frames in the log, frames copied)`.
pub type CheckpointResult = (bool, u32, u32);

/// A checkpoint in progress.
#[derive(Debug)]
pub struct CheckpointState {
    requested: CheckpointMode,
    mode: CheckpointMode,
    took_write: bool,
    sync: bool,
    hdr: IndexHeader,
    safe: u32,
    /// Newest frame of each page to copy.
    pages: BTreeMap<u32, u32>,
    step: Step,
}

#[derive(Debug)]
enum Step {
    /// Locks taken, nothing submitted.
    Start,
    SyncWal(Completion),
    ReadFrames(Vec<(u32, Completion)>),
    WriteDb(Vec<Completion>),
    SyncDb(Completion),
    /// Holding READ1..4 while the log file is truncated.
    TruncateWal(Completion),
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

impl Wal {
    /// Run (or continue) a checkpoint; `sync` asks for the WAL and
    /// database fsyncs. A checkpoint already in progress is continued
    /// whatever `mode` says.
    pub fn checkpoint(&mut self, mode: CheckpointMode, sync: bool) -> IoPoll<CheckpointResult> {
        if self.ckpt.is_none() {
            match self.checkpoint_start(mode, sync) {
                Ok(Some(done)) => return Ok(Poll::Ready(done)),
                Ok(None) => {}
                Err(e) => return Err(e),
            }
        }
        match self.checkpoint_steps() {
            Ok(Poll::Pending) => Ok(Poll::Pending),
            other => {
                self.checkpoint_release();
                other
            }
        }
    }

    /// Whether a checkpoint is in progress.
    pub fn checkpoint_running(&self) -> bool {
        self.ckpt.is_some()
    }

    /// Abandon a checkpoint in progress, releasing its locks.
    pub(super) fn checkpoint_release(&mut self) {
        if let Some(st) = self.ckpt.take() {
            if matches!(st.step, Step::SyncWal(_) | Step::ReadFrames(_) | Step::WriteDb(_) | Step::SyncDb(_)) {
                let _ = self.shm_unlock(read_lock(0), 1);
            }
            if matches!(st.step, Step::TruncateWal(_)) {
                let _ = self.shm_unlock(read_lock(1), NREADER - 1);
            }
            if st.took_write {
                let _ = self.shm_unlock(WRITE_LOCK, 1);
            }
            let _ = self.shm_unlock(CKPT_LOCK, 1);
        }
    }

    /// Take the locks and work out what to copy. `Some`: finished already
    /// (locks released).
    fn checkpoint_start(&mut self, requested: CheckpointMode, sync: bool) -> Result<Option<CheckpointResult>> {
        if !self.shm_lock(CKPT_LOCK, 1, true)? {
            return Err(busy());
        }
        let mut mode = requested;
        let mut took_write = false;
        if mode != CheckpointMode::Passive && !self.write_lock {
            match self.shm_lock(WRITE_LOCK, 1, true) {
                Ok(true) => took_write = true,
                Ok(false) => mode = CheckpointMode::Passive,
                Err(e) => {
                    let _ = self.shm_unlock(CKPT_LOCK, 1);
                    return Err(e);
                }
            }
        }
        let st = CheckpointState { requested, mode, took_write, sync, hdr: IndexHeader::default(), safe: 0, pages: BTreeMap::new(), step: Step::Start };
        self.ckpt = Some(st);
        match self.checkpoint_plan() {
            Ok(true) => Ok(None),
            Ok(false) => {
                let r = self.checkpoint_finish();
                match r {
                    Ok(Poll::Ready(done)) => {
                        self.checkpoint_release();
                        Ok(Some(done))
                    }
                    Ok(Poll::Pending) => Ok(None),
                    Err(e) => {
                        self.checkpoint_release();
                        Err(e)
                    }
                }
            }
            Err(e) => {
                self.checkpoint_release();
                Err(e)
            }
        }
    }

    /// Fill in the plan; true if frames must be copied (READ0 is then held
    /// exclusively).
    fn checkpoint_plan(&mut self) -> Result<bool> {
        let hdr = match self.index().read_header()? {
            Some(h) => h,
            None => {
                self.recover()?;
                self.index().read_header()?.ok_or_else(Error::corrupt)?
            }
        };
        let idx = self.index();
        let mut safe = hdr.mx_frame;
        for i in 1..NREADER {
            let mark = idx.read_mark(i)?;
            if mark != READMARK_NOT_USED && safe > mark {
                if self.shm_lock(read_lock(i), 1, true)? {
                    idx.set_read_mark(i, if i == 1 { safe } else { READMARK_NOT_USED })?;
                    self.shm_unlock(read_lock(i), 1)?;
                } else {
                    // A reader still needs the database as of its mark.
                    safe = mark;
                }
            }
        }
        let mut backfilled = idx.info(NBACKFILL)?;
        let mut pages = BTreeMap::new();
        let mut copy = safe > backfilled && self.shm_lock(read_lock(0), 1, true)?;
        if copy {
            // The header was read before READ0 was held: a writer whose
            // snapshot had the whole log copied may have restarted the log
            // since (a PASSIVE checkpoint holds no WRITE lock). Its frames
            // and `nBackfill` then belong to another log, and copying
            // "frames up to the old mxFrame" would write the new log's
            // frames, and the stale frames behind them, over the database.
            // A restart always changes the salts; with READ0 held no writer
            // can restart the log until the copy is done.
            let live = self.index().read_header()?;
            backfilled = idx.info(NBACKFILL)?;
            if live.is_none_or(|l| l.salt != hdr.salt) || safe <= backfilled {
                self.shm_unlock(read_lock(0), 1)?;
                copy = false;
            }
        }
        if copy && (!crate::pager::header::valid_page_size(hdr.page_size) || backfilled > hdr.mx_frame) {
            self.shm_unlock(read_lock(0), 1)?;
            return Err(Error::corrupt());
        }
        if copy {
            for frame in backfilled + 1..=safe {
                let pgno = idx.frame_pgno(frame)?;
                if pgno == 0 {
                    self.shm_unlock(read_lock(0), 1)?;
                    return Err(Error::corrupt());
                }
                if pgno <= hdr.n_page {
                    pages.insert(pgno, frame);
                }
            }
        }
        if let Some(st) = self.ckpt.as_mut() {
            st.hdr = hdr;
            st.safe = safe;
            st.pages = pages;
            if copy {
                st.step = Step::SyncWal(Completion::ready(Ok(crate::io::CompletionResult { bytes: 0, buffer: None })));
            }
        }
        if copy {
            if let Some(st) = self.ckpt.as_mut() {
                if st.sync {
                    st.step = Step::SyncWal(self.file.sync(false)?);
                }
            }
        }
        Ok(copy)
    }

    fn checkpoint_steps(&mut self) -> IoPoll<CheckpointResult> {
        loop {
            let Some(st) = self.ckpt.as_mut() else { return Err(Error::new(crate::error::SQLITE_INTERNAL, "no checkpoint")) };
            let ps = st.hdr.page_size;
            match &mut st.step {
                Step::Start => return self.checkpoint_finish(),
                Step::SyncWal(c) => {
                    if !c.is_done() {
                        return Ok(Poll::Pending);
                    }
                    c.take()?;
                    self.db.hint(crate::io::FileHint::CheckpointStart);
                    let mut reads = Vec::with_capacity(st.pages.len());
                    for (pgno, frame) in &st.pages {
                        let off = frame_offset(*frame, ps) + FRAME_HEADER_SIZE as u64;
                        reads.push((*pgno, self.file.read(off, Buffer::zeroed(ps as usize))?));
                    }
                    st.step = Step::ReadFrames(reads);
                }
                Step::ReadFrames(reads) => {
                    if reads.iter().any(|(_, c)| !c.is_done()) {
                        return Ok(Poll::Pending);
                    }
                    let mut writes = Vec::with_capacity(reads.len() + 1);
                    let want = st.hdr.n_page as u64 * ps as u64;
                    if self.db.size()? < want {
                        self.db.hint(crate::io::FileHint::SizeHint(want));
                    }
                    for (pgno, c) in reads.iter() {
                        let r = c.take()?;
                        if r.bytes != ps as usize {
                            return Err(Error::corrupt());
                        }
                        let data = r.buffer.unwrap_or_default();
                        writes.push(self.db.write((*pgno as u64 - 1) * ps as u64, data)?);
                    }
                    if st.safe == st.hdr.mx_frame {
                        writes.push(self.db.truncate(st.hdr.n_page as u64 * ps as u64)?);
                    }
                    st.step = Step::WriteDb(writes);
                }
                Step::WriteDb(writes) => {
                    if !all_done(writes)? {
                        return Ok(Poll::Pending);
                    }
                    self.db.hint(crate::io::FileHint::CheckpointDone);
                    st.step = if st.sync {
                        Step::SyncDb(self.db.sync(false)?)
                    } else {
                        Step::SyncDb(Completion::ready(Ok(crate::io::CompletionResult { bytes: 0, buffer: None })))
                    };
                }
                Step::SyncDb(c) => {
                    if !c.is_done() {
                        return Ok(Poll::Pending);
                    }
                    c.take()?;
                    let safe = st.safe;
                    st.step = Step::Start;
                    let published = self.index().set_info(NBACKFILL, safe);
                    self.shm_unlock(read_lock(0), 1)?;
                    published?;
                    return self.checkpoint_finish();
                }
                Step::TruncateWal(c) => {
                    if !c.is_done() {
                        return Ok(Poll::Pending);
                    }
                    c.take()?;
                    st.step = Step::Start;
                    self.shm_unlock(read_lock(1), NREADER - 1)?;
                    return Ok(Poll::Ready((false, 0, 0)));
                }
            }
        }
    }

    /// After copying: the result, and for RESTART/TRUNCATE the wait for
    /// log readers (and the truncation).
    fn checkpoint_finish(&mut self) -> IoPoll<CheckpointResult> {
        let Some(st) = self.ckpt.as_ref() else { return Err(Error::new(crate::error::SQLITE_INTERNAL, "no checkpoint")) };
        let (hdr, requested, mode) = (st.hdr, st.requested, st.mode);
        let degraded = mode != requested;
        let backfilled = self.index().info(NBACKFILL)?;
        if mode == CheckpointMode::Passive {
            return Ok(Poll::Ready((degraded, hdr.mx_frame, backfilled)));
        }
        if backfilled < hdr.mx_frame {
            return Ok(Poll::Ready((true, hdr.mx_frame, backfilled)));
        }
        if mode == CheckpointMode::Full {
            return Ok(Poll::Ready((false, hdr.mx_frame, backfilled)));
        }
        // RESTART and TRUNCATE: no reader may still be using the log. (The
        // salt a TRUNCATE restarts the log with is drawn first, by both
        // modes, as SQLite draws it.)
        let salt2 = super::write::fresh_salt();
        if !self.shm_lock(read_lock(1), NREADER - 1, true)? {
            return Ok(Poll::Ready((true, hdr.mx_frame, backfilled)));
        }
        if mode == CheckpointMode::Restart {
            self.shm_unlock(read_lock(1), NREADER - 1)?;
            return Ok(Poll::Ready((false, hdr.mx_frame, backfilled)));
        }
        // (Also when the log is empty, as SQLite does: the next header
        // then has the restarted salts and checkpoint sequence.)
        {
            // The restart leaves `self.hdr` equal to the live header, which
            // tells the next read transaction that the pages this
            // connection cached are current. They are only if its last
            // snapshot was the header the checkpoint copied; otherwise a
            // header that matches nothing makes that transaction drop them
            // (as SQLite zeroes its copy when a checkpoint saw a change).
            let cache_current = self.hdr == hdr;
            self.hdr = hdr;
            if let Err(e) = self.restart_header(salt2) {
                self.shm_unlock(read_lock(1), NREADER - 1)?;
                return Err(e);
            }
            if !cache_current {
                self.hdr = IndexHeader::default();
            }
        }
        let c = match self.file.truncate(0) {
            Ok(c) => c,
            Err(e) => {
                self.shm_unlock(read_lock(1), NREADER - 1)?;
                return Err(e);
            }
        };
        if let Some(st) = self.ckpt.as_mut() {
            st.step = Step::TruncateWal(c);
        }
        self.checkpoint_steps()
    }
}
