//! # Rebuilding the WAL index from the WAL file
//!
//! Run when the index header is not valid (first connection after the
//! `-shm` was reset, or after a crash). Holds WRITE, CKPT, RECOVER and
//! READ1..4 exclusively (`walformat.txt` §3), reads the whole log, and
//! indexes every frame up to the last commit frame whose salts match the
//! header and whose cumulative checksum holds. Anything after it (a torn
//! or unfinished transaction) is ignored. The checkpoint state restarts:
//! `nBackfill = 0`, read mark 1 = `mxFrame`.

use super::format::{decode_frame, frame_offset, WalHeader, FRAME_HEADER_SIZE, WAL_HEADER_SIZE};
use super::index::{IndexHeader, CKPT_LOCK, NBACKFILL, NBACKFILL_ATTEMPTED, NREADER, READMARK_NOT_USED, WRITE_LOCK};
use super::{busy, random_u32, Wal};
use crate::error::Result;

impl Wal {
    /// Rebuild the index (see the module doc).
    pub fn recover(&mut self) -> Result<()> {
        let had_write = self.write_lock;
        if !had_write && !self.shm_lock(WRITE_LOCK, 1, true)? {
            return Err(busy());
        }
        // CKPT, RECOVER, READ1..READ4 (READ0 stays free: its readers do not
        // use the log).
        if !self.shm_lock(CKPT_LOCK, 2, true)? {
            if !had_write {
                self.shm_unlock(WRITE_LOCK, 1)?;
            }
            return Err(busy());
        }
        if !self.shm_lock(super::index::read_lock(1), NREADER - 1, true)? {
            self.shm_unlock(CKPT_LOCK, 2)?;
            if !had_write {
                self.shm_unlock(WRITE_LOCK, 1)?;
            }
            return Err(busy());
        }
        let r = self.rebuild();
        let _ = self.shm_unlock(super::index::read_lock(1), NREADER - 1);
        let _ = self.shm_unlock(CKPT_LOCK, 2);
        if !had_write {
            let _ = self.shm_unlock(WRITE_LOCK, 1);
        }
        r
    }

    fn rebuild(&mut self) -> Result<()> {
        let idx = self.index();
        // Another connection may have finished recovery meanwhile.
        if idx.read_header()?.is_some() {
            return Ok(());
        }
        let size = self.file.size()?;
        let mut hdr = IndexHeader { is_init: true, page_size: self.page_size, change: random_u32(), ..Default::default() };
        let mut frames: Vec<u32> = Vec::new();
        let wal = if size >= WAL_HEADER_SIZE { self.read_blocking(0, size as usize)? } else { Vec::new() };
        if let Some(wh) = WalHeader::parse(&wal) {
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
