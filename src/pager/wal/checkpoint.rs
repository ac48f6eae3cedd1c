//! # Checkpoints: copying the log back into the database
//!
//! Holds CKPT exclusively (FULL and stronger also WRITE, degrading to
//! PASSIVE and reporting busy if a writer has it). The safe limit is the
//! snapshot `mxFrame`, lowered to the read mark of every reader that still
//! needs older database content. With READ0 held exclusively (no reader
//! is reading the database file without the log), the newest frame of
//! each page up to the limit is written into the database file, the file
//! is truncated to the snapshot's size when the whole log was copied, the
//! database is synced and `nBackfill` advances. RESTART and TRUNCATE then
//! wait for every log reader to be gone (READ1..4); TRUNCATE also resets
//! the log to empty and truncates the file.
//!
//! Invariant: no database page is overwritten while a reader whose
//! snapshot predates the frame might still read that page from the file.

use super::index::{read_lock, CKPT_LOCK, NBACKFILL, NREADER, READMARK_NOT_USED, WRITE_LOCK};
use super::{busy, CheckpointMode, Wal};
use crate::error::Result;
use crate::io::Buffer;
use std::collections::BTreeMap;

/// What a checkpoint did: `(busy, frames in the log, frames copied)`.
pub type CheckpointResult = (bool, u32, u32);

impl Wal {
    /// Run a checkpoint; `sync` asks for the WAL and database fsyncs.
    pub fn checkpoint(&mut self, mode: CheckpointMode, sync: bool) -> Result<CheckpointResult> {
        if !self.shm_lock(CKPT_LOCK, 1, true)? {
            return Err(busy());
        }
        // FULL and stronger need the writer out of the way; without it they
        // degrade to PASSIVE and report busy (as SQLite does).
        let mut effective = mode;
        let mut took_write = false;
        if mode != CheckpointMode::Passive && !self.write_lock {
            took_write = self.shm_lock(WRITE_LOCK, 1, true)?;
            if !took_write {
                effective = CheckpointMode::Passive;
            }
        }
        let r = self.checkpoint_locked(effective, sync);
        if took_write {
            let _ = self.shm_unlock(WRITE_LOCK, 1);
        }
        let _ = self.shm_unlock(CKPT_LOCK, 1);
        r.map(|(busy, log, done)| (busy || effective != mode, log, done))
    }

    fn checkpoint_locked(&mut self, mode: CheckpointMode, sync: bool) -> Result<CheckpointResult> {
        let hdr = match self.index().read_header()? {
            Some(h) => h,
            None => {
                self.recover()?;
                self.index().read_header()?.ok_or_else(crate::error::Error::corrupt)?
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
        if safe > backfilled && self.shm_lock(read_lock(0), 1, true)? {
            let r = self.backfill(&hdr, backfilled, safe, sync);
            self.shm_unlock(read_lock(0), 1)?;
            r?;
            backfilled = safe;
        }
        if mode == CheckpointMode::Passive {
            return Ok((false, hdr.mx_frame, backfilled));
        }
        if backfilled < hdr.mx_frame {
            return Ok((true, hdr.mx_frame, backfilled));
        }
        if mode == CheckpointMode::Full {
            return Ok((false, hdr.mx_frame, backfilled));
        }
        // RESTART and TRUNCATE: no reader may still be using the log.
        if !self.shm_lock(read_lock(1), NREADER - 1, true)? {
            return Ok((true, hdr.mx_frame, backfilled));
        }
        let mut r = Ok((false, hdr.mx_frame, backfilled));
        if mode == CheckpointMode::Truncate {
            if hdr.mx_frame > 0 {
                self.hdr = hdr;
                r = self.restart_header().map(|_| (false, 0, 0));
            } else {
                r = Ok((false, 0, 0));
            }
            if r.is_ok() {
                let c = self.file.truncate(0)?;
                self.io.wait(&c)?;
                if let Err(e) = c.take() {
                    r = Err(e);
                }
            }
        }
        self.shm_unlock(read_lock(1), NREADER - 1)?;
        r
    }

    /// Copy frames `from+1..=to` (newest per page) into the database.
    fn backfill(&mut self, hdr: &super::index::IndexHeader, from: u32, to: u32, sync: bool) -> Result<()> {
        let idx = self.index();
        let mut latest: BTreeMap<u32, u32> = BTreeMap::new();
        for frame in from + 1..=to {
            let pgno = idx.frame_pgno(frame)?;
            if pgno == 0 {
                return Err(crate::error::Error::corrupt());
            }
            latest.insert(pgno, frame);
        }
        let ps = hdr.page_size;
        if sync {
            let c = self.file.sync(false)?;
            self.io.wait(&c)?;
            c.take()?;
        }
        let mut cs = Vec::new();
        for (pgno, frame) in &latest {
            if *pgno > hdr.n_page {
                continue;
            }
            let off = super::format::frame_offset(*frame, ps) + super::format::FRAME_HEADER_SIZE as u64;
            let data = self.read_blocking(off, ps as usize)?;
            if data.len() != ps as usize {
                return Err(crate::error::Error::corrupt());
            }
            cs.push(self.db.write((*pgno as u64 - 1) * ps as u64, Buffer::from_vec(data))?);
        }
        if to == hdr.mx_frame {
            cs.push(self.db.truncate(hdr.n_page as u64 * ps as u64)?);
        }
        for c in &cs {
            self.io.wait(c)?;
        }
        for c in cs {
            c.take()?;
        }
        if sync {
            let c = self.db.sync(false)?;
            self.io.wait(&c)?;
            c.take()?;
        }
        self.index().set_info(NBACKFILL, to)?;
        Ok(())
    }
}
