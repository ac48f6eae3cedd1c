//! # The WAL index (the `-shm` content), in SQLite's exact layout
//!
//! `walformat.txt` §2: 32 KiB units. The first carves out a 136-byte
//! header: two copies of the 48-byte index header (native byte order,
//! checksummed over its first 40 bytes with the native-order WAL
//! checksum), then the checkpoint information (`nBackfill`, five read
//! marks, eight lock bytes never touched, `nBackfillAttempted`). Each unit
//! holds `aPgno` (the page number of each of its frames: 4062 in the
//! first unit, 4096 in later ones) followed by `aHash`, 8192 u16 slots
//! mapping `(pgno * 383) % 8192` (linear probing) to 1-based indexes into
//! the unit's `aPgno`.
//!
//! Invariants: writers publish a header by writing the second copy, a
//! barrier, then the first; readers read the first, a barrier, the second,
//! and trust the header only if both agree and the checksum holds
//! (checked: wal_index_header_copies). Hash entries for frames past
//! `mxFrame` may exist (an abandoned write); they are ignored by lookups
//! and removed before the slot is reused, so an appended frame is the one
//! a lookup of its page finds (checked: wal_index_append).

use super::format::{checksum, Checksum};
use crate::error::{Error, Result};
use crate::io::shm::ShmNode;
use crate::io::{File, ShmRegion};

/// Bytes in one shm unit.
pub const REGION_SIZE: usize = 32768;
/// Bytes of the index header (both copies and the checkpoint info).
pub const INDEX_HEADER_SIZE: usize = 136;
/// Frames described by the first unit.
pub const NPAGE_ONE: u32 = 4062;
/// Frames described by later units.
pub const NPAGE: u32 = 4096;
/// Hash slots per unit.
pub const NSLOT: usize = 8192;
const HASH_OFFSET: usize = NPAGE as usize * 4;
/// The index format version.
pub const INDEX_VERSION: u32 = 3_007_000;
/// Offset of `nBackfill`.
pub const NBACKFILL: usize = 96;
/// Offset of read mark 0.
pub const READ_MARK: usize = 100;
/// Offset of `nBackfillAttempted`.
pub const NBACKFILL_ATTEMPTED: usize = 128;
/// A read mark nobody uses.
pub const READMARK_NOT_USED: u32 = 0xffff_ffff;
/// Number of read marks (and read locks).
pub const NREADER: usize = 5;

/// Lock slot of the writer.
pub const WRITE_LOCK: usize = 0;
/// Lock slot of the checkpointer.
pub const CKPT_LOCK: usize = 1;
/// Lock slot held while rebuilding the index.
pub const RECOVER_LOCK: usize = 2;
/// Lock slot of read mark `i`.
pub fn read_lock(i: usize) -> usize {
    3 + i
}

/// One copy of the index header.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IndexHeader {
    /// Bumped by every commit.
    pub change: u32,
    /// The header was initialised.
    pub is_init: bool,
    /// The WAL uses big-endian checksums.
    pub big_endian: bool,
    /// Page size (65536 stored as 1).
    pub page_size: u32,
    /// Last valid commit frame.
    pub mx_frame: u32,
    /// Database size in pages after that commit.
    pub n_page: u32,
    /// Running checksum after frame `mx_frame`.
    pub frame_cksum: Checksum,
    /// The WAL header's salts (raw bytes).
    pub salt: [u8; 8],
}

fn ne32(b: &[u8], off: usize) -> u32 {
    u32::from_ne_bytes([b[off], b[off + 1], b[off + 2], b[off + 3]])
}

impl IndexHeader {
    /// The 48 bytes, checksum included.
    pub fn encode(&self) -> [u8; 48] {
        let mut b = [0u8; 48];
        b[0..4].copy_from_slice(&INDEX_VERSION.to_ne_bytes());
        b[8..12].copy_from_slice(&self.change.to_ne_bytes());
        b[12] = self.is_init as u8;
        b[13] = self.big_endian as u8;
        let sz = if self.page_size == 65536 { 1u16 } else { self.page_size as u16 };
        b[14..16].copy_from_slice(&sz.to_ne_bytes());
        b[16..20].copy_from_slice(&self.mx_frame.to_ne_bytes());
        b[20..24].copy_from_slice(&self.n_page.to_ne_bytes());
        b[24..28].copy_from_slice(&self.frame_cksum.0.to_ne_bytes());
        b[28..32].copy_from_slice(&self.frame_cksum.1.to_ne_bytes());
        b[32..40].copy_from_slice(&self.salt);
        let ck = checksum(cfg!(target_endian = "big"), &b[..40], (0, 0));
        b[40..44].copy_from_slice(&ck.0.to_ne_bytes());
        b[44..48].copy_from_slice(&ck.1.to_ne_bytes());
        b
    }

    /// Decode; `None` unless initialised with a valid checksum.
    pub fn decode(b: &[u8]) -> Option<IndexHeader> {
        if b.len() < 48 || b[12] == 0 || ne32(b, 0) != INDEX_VERSION {
            return None;
        }
        let ck = checksum(cfg!(target_endian = "big"), &b[..40], (0, 0));
        if ck != (ne32(b, 40), ne32(b, 44)) {
            return None;
        }
        let sz = u16::from_ne_bytes([b[14], b[15]]) as u32;
        let mut salt = [0u8; 8];
        salt.copy_from_slice(&b[32..40]);
        Some(IndexHeader {
            change: ne32(b, 8),
            is_init: true,
            big_endian: b[13] != 0,
            page_size: if sz == 1 { 65536 } else { sz },
            mx_frame: ne32(b, 16),
            n_page: ne32(b, 20),
            frame_cksum: (ne32(b, 24), ne32(b, 28)),
            salt,
        })
    }
}

/// Access to the index through a database file's shared memory, or
/// through heap memory private to one connection (a WAL opened in
/// exclusive locking mode, see [`super::Wal`]).
pub struct Index<'a> {
    /// The database file whose `-shm` holds the index.
    pub db: &'a dyn File,
    /// The connection's private heap index, used instead of `db`'s.
    pub heap: Option<&'a ShmNode>,
}

/// The unit holding frame `frame` (1-based).
pub fn block_of(frame: u32) -> usize {
    if frame <= NPAGE_ONE {
        0
    } else {
        ((frame - NPAGE_ONE - 1) / NPAGE) as usize + 1
    }
}

/// Frames before unit `block`.
pub fn block_zero(block: usize) -> u32 {
    if block == 0 {
        0
    } else {
        NPAGE_ONE + (block as u32 - 1) * NPAGE
    }
}

fn pgno_base(block: usize) -> usize {
    if block == 0 {
        INDEX_HEADER_SIZE
    } else {
        0
    }
}

fn hash_slot(pgno: u32) -> usize {
    (pgno.wrapping_mul(383) as usize) & (NSLOT - 1)
}

fn get_u16(r: &ShmRegion, off: usize) -> u16 {
    let mut b = [0u8; 2];
    r.0.read(off, &mut b);
    u16::from_ne_bytes(b)
}

fn put_u16(r: &ShmRegion, off: usize, v: u16) {
    r.0.write(off, &v.to_ne_bytes());
}

impl Index<'_> {
    /// Unit `block`, created if `extend`.
    pub fn region(&self, block: usize, extend: bool) -> Result<Option<ShmRegion>> {
        match self.heap {
            Some(node) => node.map(block, REGION_SIZE, extend),
            None => self.db.shm_map(block, REGION_SIZE, extend),
        }
    }

    fn region0(&self) -> Result<ShmRegion> {
        self.region(0, true)?.ok_or_else(|| Error::new(crate::error::SQLITE_IOERR_SHMMAP, "disk I/O error"))
    }

    /// Read the header copies; `None` if they disagree or are not valid.
    pub fn read_header(&self) -> Result<Option<IndexHeader>> {
        let r = self.region0()?;
        let mut a = [0u8; 48];
        let mut b = [0u8; 48];
        r.0.read(0, &mut a);
        r.0.barrier();
        r.0.read(48, &mut b);
        // invariant: wal_index_header_copies
        if a != b {
            return Ok(None);
        }
        Ok(IndexHeader::decode(&a))
    }

    /// Publish a header (second copy first).
    pub fn write_header(&self, h: &IndexHeader) -> Result<()> {
        let r = self.region0()?;
        let b = h.encode();
        r.0.write(48, &b);
        r.0.barrier();
        r.0.write(0, &b);
        Ok(())
    }

    /// A u32 of the checkpoint information.
    pub fn info(&self, off: usize) -> Result<u32> {
        Ok(self.region0()?.0.load_u32(off))
    }

    /// Set a u32 of the checkpoint information.
    pub fn set_info(&self, off: usize, v: u32) -> Result<()> {
        self.region0()?.0.store_u32(off, v);
        Ok(())
    }

    /// Read mark `i`.
    pub fn read_mark(&self, i: usize) -> Result<u32> {
        self.info(READ_MARK + 4 * i)
    }

    /// Set read mark `i`.
    pub fn set_read_mark(&self, i: usize, v: u32) -> Result<()> {
        self.set_info(READ_MARK + 4 * i, v)
    }

    /// The page number recorded for frame `frame` (0 if none).
    pub fn frame_pgno(&self, frame: u32) -> Result<u32> {
        let block = block_of(frame);
        let Some(r) = self.region(block, false)? else { return Ok(0) };
        let idx = (frame - block_zero(block)) as usize;
        Ok(r.0.load_u32(pgno_base(block) + (idx - 1) * 4))
    }

    /// Forget every entry of unit `block` past frame `keep` (an abandoned
    /// write's leftovers).
    fn cleanup(&self, r: &ShmRegion, block: usize, keep: u32) {
        let zero = block_zero(block);
        let keep_idx = keep.saturating_sub(zero) as usize;
        for slot in 0..NSLOT {
            let v = get_u16(r, HASH_OFFSET + slot * 2) as usize;
            if v > keep_idx {
                put_u16(r, HASH_OFFSET + slot * 2, 0);
            }
        }
        let base = pgno_base(block);
        let n = if block == 0 { NPAGE_ONE } else { NPAGE } as usize;
        for idx in keep_idx..n {
            r.0.store_u32(base + idx * 4, 0);
        }
    }

    /// Record that frame `frame` holds page `pgno`.
    pub fn append(&self, frame: u32, pgno: u32) -> Result<()> {
        let block = block_of(frame);
        let r = self.region(block, true)?.ok_or_else(|| Error::new(crate::error::SQLITE_IOERR_SHMMAP, "disk I/O error"))?;
        let idx = (frame - block_zero(block)) as usize;
        let base = pgno_base(block);
        if idx == 1 {
            r.0.write(base, &vec![0u8; REGION_SIZE - base]);
        } else if r.0.load_u32(base + (idx - 1) * 4) != 0 {
            self.cleanup(&r, block, frame - 1);
        }
        let mut slot = hash_slot(pgno);
        let mut probes = 0;
        while get_u16(&r, HASH_OFFSET + slot * 2) != 0 {
            probes += 1;
            if probes >= NSLOT {
                return Err(Error::corrupt());
            }
            slot = (slot + 1) & (NSLOT - 1);
        }
        r.0.store_u32(base + (idx - 1) * 4, pgno);
        put_u16(&r, HASH_OFFSET + slot * 2, idx as u16);
        // The frame is where a reader's lookup finds it (SQLite checks the
        // same after its walIndexAppend).
        // invariant: wal_index_append
        debug_assert!(
            matches!(self.find(pgno, frame, frame), Ok(Some(f)) if f == frame),
            "frame {frame} (page {pgno}) not found in the index after its append"
        );
        Ok(())
    }

    /// The newest frame in `min_frame..=max_frame` holding `pgno`.
    pub fn find(&self, pgno: u32, min_frame: u32, max_frame: u32) -> Result<Option<u32>> {
        if max_frame == 0 || min_frame > max_frame {
            return Ok(None);
        }
        let lowest = block_of(min_frame.max(1));
        let mut block = block_of(max_frame);
        loop {
            if let Some(r) = self.region(block, false)? {
                let zero = block_zero(block);
                let base = pgno_base(block);
                let mut slot = hash_slot(pgno);
                let mut best = None;
                for _ in 0..NSLOT {
                    let k = get_u16(&r, HASH_OFFSET + slot * 2) as u32;
                    if k == 0 {
                        break;
                    }
                    let frame = zero + k;
                    let limit = if block == 0 { NPAGE_ONE } else { NPAGE };
                    if k <= limit && frame <= max_frame && frame >= min_frame && r.0.load_u32(base + (k as usize - 1) * 4) == pgno {
                        best = Some(best.map_or(frame, |b: u32| b.max(frame)));
                    }
                    slot = (slot + 1) & (NSLOT - 1);
                }
                if best.is_some() {
                    return Ok(best);
                }
            }
            if block == lowest {
                return Ok(None);
            }
            block -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::memory::MemoryBackend;
    use crate::io::{IoBackend, OpenOptions};

    #[test]
    fn lookups_span_units_and_ignore_abandoned_entries() {
        let be = MemoryBackend::new();
        let f = be.open("x.db", OpenOptions { create: true, ..Default::default() }).unwrap();
        let idx = Index { db: f.as_ref(), heap: None };
        // 9000 frames over three units; page p lives in frames p, p+100, ...
        for frame in 1..=9000u32 {
            idx.append(frame, (frame - 1) % 100 + 1).unwrap();
        }
        assert_eq!(idx.find(7, 1, 9000).unwrap(), Some(8907));
        assert_eq!(idx.find(7, 1, 4100).unwrap(), Some(4007));
        assert_eq!(idx.find(7, 1, 6).unwrap(), None);
        assert_eq!(idx.find(101, 1, 9000).unwrap(), None);
        assert_eq!(idx.frame_pgno(4063).unwrap(), (4063 - 1) % 100 + 1);
        // A writer abandoned frames 8001..=9000; the next one reuses them.
        for frame in 8001..=8010u32 {
            idx.append(frame, 500).unwrap();
        }
        assert_eq!(idx.find(500, 1, 8010).unwrap(), Some(8010));
        assert_eq!(idx.find(7, 1, 8010).unwrap(), Some(7907), "stale 8007 entry gone");
    }

    #[test]
    fn header_round_trips_and_rejects_damage() {
        let h = IndexHeader { change: 3, is_init: true, big_endian: false, page_size: 65536, mx_frame: 9, n_page: 4, frame_cksum: (1, 2), salt: [1; 8] };
        let mut b = h.encode();
        assert_eq!(IndexHeader::decode(&b), Some(h));
        b[17] ^= 1;
        assert_eq!(IndexHeader::decode(&b), None);
    }
}
