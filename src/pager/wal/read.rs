//! # WAL read transactions
//!
//! Beginning a read: read the index header (rebuilding the index if it is
//! not valid), then take a shared read lock whose read mark pins the
//! snapshot. If every frame is already in the database (`mxFrame ==
//! nBackfill`) the reader takes READ0 and promises to ignore the WAL, which
//! lets a writer restart it. Otherwise it uses the read mark 1..4 with the
//! largest value not above `mxFrame`, first trying to raise one to
//! `mxFrame`. After taking the lock the header and mark are checked again;
//! if either moved, the attempt starts over.

use super::index::{read_lock, NREADER};
use super::Wal;
use crate::error::Result;
use crate::{IoPoll, Poll};

/// Attempts before giving up with `SQLITE_PROTOCOL`, as SQLite does.
const MAX_TRIES: usize = 100;

impl Wal {
    /// Begin a read transaction. Returns whether the snapshot differs from
    /// the previous one (the caller's page cache is stale).
    pub fn begin_read(&mut self) -> IoPoll<bool> {
        self.end_read();
        let old = self.hdr;
        for attempt in 0..MAX_TRIES {
            if attempt > 5 {
                // Another connection is mid-update of the header or the
                // marks, or restarting the log: give it a moment, growing
                // as SQLite's delays grow (about 10 s in all before giving
                // up; readers of a WAL database are not meant to see busy).
                let micros = if attempt >= 10 { (attempt - 9) * (attempt - 9) * 39 } else { 1 };
                std::thread::sleep(std::time::Duration::from_micros(micros as u64));
            }
            let idx = self.index();
            let Some(hdr) = idx.read_header()? else {
                match self.recover_poll() {
                    Ok(Poll::Ready(())) => {}
                    Ok(Poll::Pending) => return Ok(Poll::Pending),
                    // The two header copies differ while a writer (holding
                    // WRITE, so recovery cannot start) publishes a commit:
                    // read again, as SQLite does, unless a recovery really
                    // is running elsewhere.
                    Err(e) if e.primary() == crate::error::SQLITE_BUSY => {
                        if !self.shm_lock(super::index::RECOVER_LOCK, 1, false)? {
                            return Err(crate::error::Error::code(crate::error::SQLITE_BUSY_RECOVERY));
                        }
                        self.shm_unlock(super::index::RECOVER_LOCK, 1)?;
                    }
                    Err(e) => return Err(e),
                }
                continue;
            };
            let backfilled = idx.info(super::index::NBACKFILL)?;
            if hdr.mx_frame == backfilled {
                if !self.shm_lock(read_lock(0), 1, false)? {
                    continue;
                }
                if self.index().read_header()? != Some(hdr) {
                    self.shm_unlock(read_lock(0), 1)?;
                    continue;
                }
                self.hdr = hdr;
                self.read_lock = Some(0);
                return Ok(Poll::Ready(old != hdr));
            }
            let mut best: Option<(usize, u32)> = None;
            for i in 1..NREADER {
                let m = idx.read_mark(i)?;
                if m <= hdr.mx_frame && best.is_none_or(|(_, b)| m > b) {
                    best = Some((i, m));
                }
            }
            if best.is_none_or(|(_, m)| m < hdr.mx_frame) {
                for i in 1..NREADER {
                    if self.shm_lock(read_lock(i), 1, true)? {
                        idx.set_read_mark(i, hdr.mx_frame)?;
                        self.shm_unlock(read_lock(i), 1)?;
                        best = Some((i, hdr.mx_frame));
                        break;
                    }
                }
            }
            let Some((i, mark)) = best else { continue };
            if !self.shm_lock(read_lock(i), 1, false)? {
                continue;
            }
            if self.index().read_mark(i)? != mark || self.index().read_header()? != Some(hdr) {
                self.shm_unlock(read_lock(i), 1)?;
                continue;
            }
            self.hdr = hdr;
            self.read_lock = Some(i);
            return Ok(Poll::Ready(old != hdr));
        }
        Err(crate::error::Error::code(crate::error::SQLITE_PROTOCOL))
    }

    /// A commit of this connection's, which goes on reading (other
    /// statements still read): a READ0 snapshot ignores the log, so it
    /// moves to a read mark at the commit's frames, taken while WRITE is
    /// still held so that the snapshot is this commit (SQLite's writer
    /// leaves READ0 as it starts to write, `walRestartLog`).
    pub fn read_own_commit(&mut self) -> Result<()> {
        debug_assert!(self.in_write(), "a commit read back without the WRITE lock");
        if self.read_lock != Some(0) || self.hdr.mx_frame == 0 {
            return Ok(());
        }
        match self.begin_read()? {
            Poll::Ready(_) => Ok(()),
            // (Only a recovery suspends, and the header this connection
            // just wrote under WRITE needs none.)
            Poll::Pending => Err(crate::error::Error::code(crate::error::SQLITE_PROTOCOL)),
        }
    }

    /// End the read transaction (drops the read lock).
    pub fn end_read(&mut self) {
        if let Some(i) = self.read_lock.take() {
            let _ = self.shm_unlock(read_lock(i), 1);
        }
    }

    /// Whether a read transaction is open.
    pub fn in_read(&self) -> bool {
        self.read_lock.is_some()
    }

    /// Database size in pages per the snapshot (`None`: ask the file).
    pub fn db_size(&self) -> Option<u32> {
        (self.hdr.mx_frame > 0).then_some(self.hdr.n_page)
    }

    /// The frame of the snapshot holding `pgno`, if the WAL has it.
    pub fn find_frame(&self, pgno: u32) -> Result<Option<u32>> {
        // A READ0 reader ignores the log, except for the frames its own
        // write transaction spilled.
        // invariant: wal_snapshot_reads
        if self.read_lock.is_none() || self.hdr.mx_frame == 0 || (self.read_lock == Some(0) && !self.uncommitted) {
            return Ok(None);
        }
        let found = self.index().find(pgno, 1, self.hdr.mx_frame);
        // invariant: wal_snapshot_reads
        debug_assert!(
            found.as_ref().map_or(true, |f| f.is_none_or(|f| f >= 1 && f <= self.hdr.mx_frame)),
            "frame {found:?} past the snapshot's {}",
            self.hdr.mx_frame
        );
        found
    }

    /// Byte offset of frame `frame`'s page in the WAL file.
    pub fn page_offset(&self, frame: u32) -> u64 {
        super::format::frame_offset(frame, self.page_size) + super::format::FRAME_HEADER_SIZE as u64
    }
}
