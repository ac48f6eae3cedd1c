//! # The structure record (`%_data` row 10)
//!
//! Which segments make up the index: a 4-byte big-endian configuration
//! cookie (bumped whenever `%_config` changes, so other connections reload
//! it), varints for the number of levels, the number of segments and the
//! write counter (leaf pages written by flushes), then per level the
//! number of input segments of a merge in progress, the number of
//! segments and each segment's id, first and last leaf page. Newer data
//! is on lower levels, and later in a level.
//!
//! Invariant: `nseg()` equals the sum of the levels' segment counts; an
//! encoded record decodes to the same value.

use super::codec::{get, put};
use crate::error::{Error, Result};

/// One segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seg {
    /// Segment id (1..=65535).
    pub id: u32,
    /// First leaf page.
    pub first: u32,
    /// Last leaf page.
    pub last: u32,
}

/// One level.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Level {
    /// Input segments of a merge in progress (the first ones).
    pub merging: u64,
    /// Segments, oldest first.
    pub segs: Vec<Seg>,
}

/// The whole structure.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Structure {
    /// The configuration cookie.
    pub cookie: u32,
    /// Leaf pages written so far.
    pub counter: u64,
    /// Levels, newest data first.
    pub levels: Vec<Level>,
}

/// The largest segment id.
pub const MAX_SEGID: u32 = 65535;

impl Structure {
    /// Decode the record.
    pub fn decode(b: &[u8]) -> Result<Structure> {
        if b.len() < 4 {
            return Err(Error::corrupt());
        }
        let cookie = u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
        let (nlevel, i) = get(b, 4)?;
        let (nseg, i) = get(b, i)?;
        let (counter, mut i) = get(b, i)?;
        if nlevel > 64 {
            return Err(Error::corrupt());
        }
        let mut levels = Vec::new();
        for _ in 0..nlevel {
            let (merging, j) = get(b, i)?;
            let (n, j) = get(b, j)?;
            i = j;
            let mut segs = Vec::new();
            for _ in 0..n.min(100_000) {
                let (id, j) = get(b, i)?;
                let (first, j) = get(b, j)?;
                let (last, j) = get(b, j)?;
                i = j;
                if id == 0 || id > u64::from(MAX_SEGID) || first > last {
                    return Err(Error::corrupt());
                }
                segs.push(Seg { id: id as u32, first: first as u32, last: last as u32 });
            }
            levels.push(Level { merging, segs });
        }
        let s = Structure { cookie, counter, levels };
        if s.nseg() as u64 != nseg {
            return Err(Error::corrupt());
        }
        Ok(s)
    }

    /// Encode the record.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = self.cookie.to_be_bytes().to_vec();
        put(&mut out, self.levels.len() as u64);
        put(&mut out, self.nseg() as u64);
        put(&mut out, self.counter);
        for l in &self.levels {
            put(&mut out, l.merging);
            put(&mut out, l.segs.len() as u64);
            for s in &l.segs {
                put(&mut out, u64::from(s.id));
                put(&mut out, u64::from(s.first));
                put(&mut out, u64::from(s.last));
            }
        }
        out
    }

    /// Number of segments.
    pub fn nseg(&self) -> usize {
        self.levels.iter().map(|l| l.segs.len()).sum()
    }

    /// The smallest segment id not in use.
    pub fn free_id(&self) -> Result<u32> {
        let used: std::collections::HashSet<u32> = self.levels.iter().flat_map(|l| l.segs.iter().map(|s| s.id)).collect();
        (1..=MAX_SEGID).find(|i| !used.contains(i)).ok_or_else(|| Error::sql("fts5: too many segments"))
    }

    /// All segments, newest first.
    pub fn newest_first(&self) -> Vec<Seg> {
        self.levels.iter().flat_map(|l| l.segs.iter().rev().copied()).collect()
    }
}

/// The `%_data` id of leaf page `pgno` of segment `segid`.
pub fn leaf_id(segid: u32, pgno: u32) -> i64 {
    (i64::from(segid) << 37) + i64::from(pgno)
}

/// The `%_data` id of doclist-index page `pgno` at `height`.
pub fn dlidx_id(segid: u32, height: u32, pgno: u32) -> i64 {
    (i64::from(segid) << 37) + (1i64 << 36) + (i64::from(height) << 31) + i64::from(pgno)
}
