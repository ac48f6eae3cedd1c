//! # Rebuilding the WAL index from the WAL file
//!
//! Run when the index header is not valid (first connection after the
//! `-shm` was reset, or after a crash). Holds WRITE, CKPT, RECOVER and
//! READ1..4 exclusively (`walformat.txt` §3), reads the whole log, and
//! indexes every frame up to the last commit frame whose salts match the
//! header and whose cumulative checksum holds. Anything after it (a torn
//! or unfinished transaction) is ignored. The checkpoint state restarts:
//! `nBackfill = 0`, read mark 1 = `mxFrame`.

use super::format::{decode_frame, frame_offset, WalHeader, FRAME_HEADER_SIZE};
use super::index::{IndexHeader, CKPT_LOCK, NBACKFILL, NBACKFILL_ATTEMPTED, NREADER, READMARK_NOT_USED, WRITE_LOCK};
use super::{busy, random_u32, Wal};
use crate::error::Result;
use crate::io::{Buffer, Completion};
use crate::{IoPoll, Poll};

/// A recovery in progress: its locks are held and the log is being read.
#[derive(Debug)]
pub struct RecoveryState {
    had_write: bool,
    read: Completion,
}

impl Wal {
    /// Rebuild the index, waiting for the log read.
    pub fn recover(&mut self) -> Result<()> {
        let io = self.io.clone();
        io.block_on(|| self.recover_poll())
    }

    /// Rebuild the index (see the module doc), resumably: the first call
    /// takes the locks and submits the read of the whole log; the call
    /// that finds it complete rebuilds the index and releases the locks.
    pub fn recover_poll(&mut self) -> IoPoll<()> {
        if self.recovery.is_none() {
            let had_write = self.write_lock;
            if !had_write && !self.shm_lock(WRITE_LOCK, 1, true)? {
                return Err(busy());
            }
            // CKPT, RECOVER, READ1..READ4 (READ0 stays free: its readers do
            // not use the log).
            let mut ok = self.shm_lock(CKPT_LOCK, 2, true)?;
            if ok && !self.shm_lock(super::index::read_lock(1), NREADER - 1, true)? {
                self.shm_unlock(CKPT_LOCK, 2)?;
                ok = false;
            }
            if !ok {
                if !had_write {
                    self.shm_unlock(WRITE_LOCK, 1)?;
                }
                return Err(busy());
            }
            // Another connection may have finished recovery meanwhile.
            let valid = self.index().read_header().map(|h| h.is_some());
            let submitted = match valid {
                Ok(false) => self.file.size().and_then(|size| self.file.read(0, Buffer::zeroed(size as usize))).map(Some),
                Ok(true) => Ok(None),
                Err(e) => Err(e),
            };
            match submitted {
                Ok(Some(read)) => self.recovery = Some(RecoveryState { had_write, read }),
                other => {
                    self.release_recovery_locks(had_write);
                    return other.map(|_| Poll::Ready(()));
                }
            }
        }
        let Some(st) = self.recovery.as_ref() else { return Ok(Poll::Ready(())) };
        if !st.read.is_done() {
            return Ok(Poll::Pending);
        }
        let Some(st) = self.recovery.take() else { return Ok(Poll::Ready(())) };
        let r = st.read.take().and_then(|res| {
            let mut wal = res.buffer.map(Buffer::into_vec).unwrap_or_default();
            wal.truncate(res.bytes);
            self.rebuild(&wal)
        });
        self.release_recovery_locks(st.had_write);
        r.map(Poll::Ready)
    }

    fn release_recovery_locks(&mut self, had_write: bool) {
        let _ = self.shm_unlock(super::index::read_lock(1), NREADER - 1);
        let _ = self.shm_unlock(CKPT_LOCK, 2);
        if !had_write {
            let _ = self.shm_unlock(WRITE_LOCK, 1);
        }
    }

    /// Abandon a recovery in progress (its locks are released; the index
    /// stays invalid, so the next reader recovers again).
    pub(super) fn recovery_release(&mut self) {
        if let Some(st) = self.recovery.take() {
            self.release_recovery_locks(st.had_write);
        }
    }

    fn rebuild(&mut self, wal: &[u8]) -> Result<()> {
        let mut hdr = IndexHeader { is_init: true, page_size: self.page_size, change: random_u32(), ..Default::default() };
        let mut frames: Vec<u32> = Vec::new();
        if let Some(wh) = WalHeader::parse(wal) {
            self.ckpt_seq = wh.ckpt_seq;
            hdr.big_endian = wh.big_endian;
            hdr.page_size = wh.page_size;
            hdr.salt = wh.salt;
            hdr.frame_cksum = wh.cksum;
            let mut ck = wh.cksum;
            let frame_len = FRAME_HEADER_SIZE + wh.page_size as usize;
            let mut n = 1u32;
            loop {
                let off = frame_offset(n, wh.page_size) as usize;
                let Some(frame) = wal.get(off..off + frame_len) else { break };
                let Some(info) = decode_frame(frame, &wh, ck) else { break };
                ck = info.cksum;
                frames.push(info.pgno);
                if info.commit_size != 0 {
                    hdr.mx_frame = n;
                    hdr.n_page = info.commit_size;
                    hdr.frame_cksum = ck;
                }
                n += 1;
            }
        }
        frames.truncate(hdr.mx_frame as usize);
        let idx = self.index();
        for (i, pgno) in frames.iter().enumerate() {
            idx.append(i as u32 + 1, *pgno)?;
        }
        idx.set_info(NBACKFILL, 0)?;
        idx.set_info(NBACKFILL_ATTEMPTED, hdr.mx_frame)?;
        idx.set_read_mark(0, 0)?;
        for i in 1..NREADER {
            idx.set_read_mark(i, if i == 1 && hdr.mx_frame > 0 { hdr.mx_frame } else { READMARK_NOT_USED })?;
        }
        idx.write_header(&hdr)?;
        Ok(())
    }
}
