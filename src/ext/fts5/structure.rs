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
//! A `contentless_delete=1` table's record (version 2) has the 4 bytes
//! `FF 00 00 01` after the cookie, and five more varints per segment:
//! the range of origins its rows came from (each flush of pending rows
//! takes the next origin, a merge's output the range of its inputs), its
//! tombstone hash pages, the tombstones that count against its rows and
//! the rows it holds. The next origin is one past the largest stored.
//!
//! Invariant: `nseg()` equals the sum of the levels' segment counts (checked:
//! fts5_structure_nseg); an encoded record decodes to the same value.

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
    /// Version 2 only: the first and last origin of its rows.
    pub origin1: u64,
    /// (See `origin1`.)
    pub origin2: u64,
    /// Version 2 only: pages of its tombstone hash table.
    pub tomb_pages: u32,
    /// Version 2 only: deleted rows counted against it.
    pub tomb_entries: u64,
    /// Version 2 only: rows written to it.
    pub entries: u64,
}

impl Seg {
    /// A segment with no version-2 fields set.
    pub fn new(id: u32, first: u32, last: u32) -> Seg {
        Seg { id, first, last, origin1: 0, origin2: 0, tomb_pages: 0, tomb_entries: 0, entries: 0 }
    }
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
    /// Version 2 (`contentless_delete=1`): origins and tombstones kept.
    pub v2: bool,
    /// Leaf pages written so far.
    pub counter: u64,
    /// Levels, newest data first.
    pub levels: Vec<Level>,
}

/// What follows the cookie in a version-2 record.
pub const V2_MARK: [u8; 4] = [0xFF, 0x00, 0x00, 0x01];

/// The largest segment id.
pub const MAX_SEGID: u32 = 65535;

impl Structure {
    /// Decode the record.
    pub fn decode(b: &[u8]) -> Result<Structure> {
        if b.len() < 4 {
            return Err(Error::corrupt());
        }
        let cookie = u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
        let v2 = b.get(4..8) == Some(&V2_MARK[..]);
        let (nlevel, i) = get(b, if v2 { 8 } else { 4 })?;
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
                let (last, mut j) = get(b, j)?;
                let mut seg = Seg::new(id as u32, first as u32, last as u32);
                if v2 {
                    let mut f = [0u64; 5];
                    for x in f.iter_mut() {
                        (*x, j) = get(b, j)?;
                    }
                    (seg.origin1, seg.origin2, seg.tomb_pages, seg.tomb_entries, seg.entries) = (f[0], f[1], f[2] as u32, f[3], f[4]);
                }
                i = j;
                if id == 0 || id > u64::from(MAX_SEGID) || first > last {
                    return Err(Error::corrupt());
                }
                segs.push(seg);
            }
            levels.push(Level { merging, segs });
        }
        let s = Structure { cookie, v2, counter, levels };
        // invariant: fts5_structure_nseg
        if s.nseg() as u64 != nseg {
            return Err(Error::corrupt());
        }
        Ok(s)
    }

    /// Encode the record.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = self.cookie.to_be_bytes().to_vec();
        if self.v2 {
            out.extend_from_slice(&V2_MARK);
        }
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
                if self.v2 {
                    for x in [s.origin1, s.origin2, u64::from(s.tomb_pages), s.tomb_entries, s.entries] {
                        put(&mut out, x);
                    }
                }
            }
        }
        out
    }

    /// An empty structure (version 2 for `contentless_delete=1`).
    pub fn empty(cookie: u32, v2: bool) -> Structure {
        Structure { cookie, v2, counter: 0, levels: Vec::new() }
    }

    /// The origin the next flushed segment takes (version 2): one past
    /// the largest origin of any segment.
    pub fn next_origin(&self) -> u64 {
        self.levels.iter().flat_map(|l| l.segs.iter().map(|s| s.origin2)).max().unwrap_or(0) + 1
    }

    /// After a segment was added at the end of level `lvl`: move small
    /// segments between levels as SQLite 3.54.1 does. When a lower
    /// populated level holds a segment at least as large as the new one,
    /// the segments of the levels above it no larger than that one move
    /// down to it; else those of the levels above `lvl` no larger than
    /// the new one move to `lvl`. They go to the front of the level
    /// (oldest), newest first from each level, until a larger one or a
    /// level with a merge in progress.
    pub fn promote(&mut self, lvl: usize) {
        let Some(new) = self.levels.get(lvl).and_then(|l| l.segs.last()) else { return };
        let size = |s: &Seg| u64::from(s.last) + 1 - u64::from(s.first);
        let new_size = size(new);
        let lower = (0..lvl).rev().find(|&i| !self.levels[i].segs.is_empty());
        let (to, limit) = match lower {
            Some(t) if self.levels[t].segs.iter().map(size).max().unwrap_or(0) >= new_size => (t, self.levels[t].segs.iter().map(size).max().unwrap_or(0)),
            _ => (lvl, new_size),
        };
        if self.levels[to].merging != 0 {
            return;
        }
        for il in to + 1..self.levels.len() {
            if self.levels[il].merging != 0 {
                return;
            }
            while let Some(s) = self.levels[il].segs.last().copied() {
                if size(&s) > limit {
                    return;
                }
                self.levels[il].segs.pop();
                self.levels[to].segs.insert(0, s);
            }
        }
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

/// The `%_data` id of page `pg` of segment `segid`'s tombstone hash
/// table (`contentless_delete=1`): as a leaf of segment `segid + 65536`.
pub fn tombstone_id(segid: u32, pg: u32) -> i64 {
    ((i64::from(segid) + (1 << 16)) << 37) + i64::from(pg)
}
