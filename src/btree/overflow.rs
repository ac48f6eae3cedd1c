//! # Overflow chains
//!
//! A payload too large for its cell keeps its first bytes in the cell and
//! the rest in a chain of overflow pages: each holds the next page number
//! (0 ends the chain) and then up to usable-4 bytes of payload.
//!
//! A payload to write is a [`Payload`]: its bytes, then a count of zero
//! bytes that are not stored anywhere (a record ending in zero-blobs,
//! SQLite's `nZero`). Zeros need no writing: every page the allocator
//! hands out is zero-filled.
//!
//! A large payload's chain is written ahead of its cell
//! ([`Btree::write_chain_batch`]), a batch of pages per B-tree operation,
//! so the cache can spill between batches: writing a gigabyte value holds
//! a batch of pages in memory, not the value.
//!
//! Invariant: a chain is followed for at most as many pages as the payload size
//! implies (checked: overflow_chain_length). Reading a payload, as SQLite's
//! reads, a page number of 0 or past the end of the file before the payload's
//! last byte is `SQLITE_CORRUPT` (counted, [`chain_faults`]); what the chain
//! holds after that byte (more pages, a loop back) is left to the integrity
//! check.

use super::cell::{self, get_u32, CellInfo};
use super::page::PageKind;
use super::{Btree, Pgno};
use crate::error::{Error, Result};

thread_local! {
    /// Chains found broken while a payload was read (see [`chain_faults`]).
    static CHAIN_FAULTS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// How many times this thread found an overflow chain broken while
/// reading a payload. SQLite's integrity check ends with SQLITE_CORRUPT
/// when a column it reads lies past such a break (its `OP_Column` fails
/// reading the payload), where a record that cannot be decoded is a
/// report row: the statement tells the two apart by this count.
pub fn chain_faults() -> u64 {
    CHAIN_FAULTS.with(std::cell::Cell::get)
}

/// The error of a broken chain, counted.
fn broken_chain() -> Error {
    CHAIN_FAULTS.with(|n| n.set(n.get() + 1));
    Error::corrupt()
}
use crate::value::varint::{put_varint, varint_len};

/// A payload to write: `bytes`, then `zeros` zero bytes (not stored).
/// `chain`, when not 0, is the first page of its overflow chain, already
/// written by [`Btree::write_chain_batch`].
#[derive(Debug, Clone, Copy, Default)]
pub struct Payload<'a> {
    /// The stored bytes.
    pub bytes: &'a [u8],
    /// Zero bytes after them.
    pub zeros: usize,
    /// First page of the overflow chain written ahead (0: none).
    pub chain: Pgno,
}

impl<'a> From<&'a [u8]> for Payload<'a> {
    fn from(bytes: &'a [u8]) -> Self {
        Payload { bytes, zeros: 0, chain: 0 }
    }
}

impl Payload<'_> {
    /// Total size in bytes.
    pub fn size(&self) -> usize {
        self.bytes.len() + self.zeros
    }

    /// All its bytes are stored and no chain was written ahead.
    pub fn is_plain(&self) -> bool {
        self.zeros == 0 && self.chain == 0
    }

    /// Append bytes `from..to` of the payload to `out`.
    fn append_range(&self, from: usize, to: usize, out: &mut Vec<u8>) {
        let stored_end = to.min(self.bytes.len());
        if from < stored_end {
            out.extend_from_slice(&self.bytes[from..stored_end]);
        }
        out.resize(out.len() + (to - from.max(stored_end)), 0);
    }

    /// Copy the stored bytes among `from..from + dst.len()` into `dst`;
    /// the part in the zero tail is left as it is (the caller's page is
    /// zero-filled).
    fn copy_stored(&self, from: usize, dst: &mut [u8]) {
        if from < self.bytes.len() {
            let n = dst.len().min(self.bytes.len() - from);
            dst[..n].copy_from_slice(&self.bytes[from..from + n]);
        }
    }
}

/// Progress of an overflow chain written ahead of its cell, kept between
/// the B-tree operations that write it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ChainWrite {
    /// First page (0: none yet).
    pub first: Pgno,
    /// Last page written (its next-page field is 0 until a page follows).
    pub last: Pgno,
    /// Overflow bytes written so far.
    pub done: usize,
}

/// Pages an overflow chain may take before it is written ahead of its
/// cell, a batch of this many pages per operation; also the length past
/// which a row's columns are read from the chain one by one
/// ([`ChainRead`]) rather than the whole row at once.
pub const CHAIN_BATCH_PAGES: usize = 64;

/// A read of payload bytes `from..to` from an overflow chain, kept
/// between attempts: a page missing from the cache stops it where it is,
/// and the next attempt goes on from that page (each page is copied once
/// and unpinned as soon as it is copied, so reading a gigabyte row holds
/// the bytes asked for, not a gigabyte of pinned cache).
#[derive(Debug, Clone, Copy)]
pub struct ChainRead {
    /// The tree's change sequence when the read started: a change since
    /// then (another statement, between `Pending` returns) restarts it.
    pub seq: u64,
    /// The page to read next (0: the chain ended).
    pub next: Pgno,
    /// Payload offset of the first byte that page holds.
    pub at: usize,
    /// Pages the chain may still have.
    pub pages_left: usize,
    /// The bytes wanted.
    pub from: usize,
    /// End of the bytes wanted.
    pub to: usize,
    /// The whole payload's size.
    pub payload_size: usize,
}

impl Btree {
    /// Pages an overflowing payload of `info` must use.
    fn chain_len(&self, info: &CellInfo) -> usize {
        let rest = info.payload_size as usize - info.local;
        rest.div_ceil(self.usable() as usize - 4)
    }

    /// The whole payload of a parsed cell (`cell_bytes` is the cell).
    pub(super) fn full_payload(&self, cell_bytes: &[u8], info: &CellInfo) -> Result<Vec<u8>> {
        let mut out = Vec::with_capacity(info.payload_size as usize);
        self.full_payload_into(cell_bytes, info, &mut out)?;
        Ok(out)
    }

    /// [`Btree::full_payload`] appended to `out` (which the caller
    /// cleared), so a buffer kept across entries is reused.
    pub(super) fn full_payload_into(&self, cell_bytes: &[u8], info: &CellInfo, out: &mut Vec<u8>) -> Result<()> {
        let start = out.len();
        out.extend_from_slice(&cell_bytes[info.payload_offset..info.payload_offset + info.local]);
        // (A payload that spills is read from its chain even when the
        // cell's first overflow page number is 0: that is a chain ended
        // too soon, not a payload that fits in its cell.)
        if info.local == info.payload_size as usize {
            return Ok(());
        }
        out.reserve(info.payload_size as usize - info.local);
        let per_page = self.usable() as usize - 4;
        let mut next = info.overflow;
        for _ in 0..self.chain_len(info) {
            // (Page 1 is read as any other page, as SQLite's payload
            // read does; 0 and pages past the end are breaks.)
            if next == 0 || next > self.pager.db_size() {
                return Err(broken_chain());
            }
            let data = self.pager.page(next)?;
            let want = (info.payload_size as usize - (out.len() - start)).min(per_page);
            out.extend_from_slice(&data[4..4 + want]);
            next = get_u32(data, 0)?;
        }
        // (What follows the last page the payload needs is not looked at,
        // as SQLite's payload read does not: a chain that goes on is the
        // integrity check's report, not a read error.)
        if out.len() - start != info.payload_size as usize {
            return Err(broken_chain());
        }
        Ok(())
    }

    /// A [`ChainRead`] of payload bytes `from..to` of the cell `info`
    /// describes, the part in the cell (`cell_bytes`) appended to `out`
    /// now; [`Btree::continue_chain_read`] reads the rest.
    pub(super) fn start_chain_read(&self, cell_bytes: &[u8], info: &CellInfo, from: usize, to: usize, out: &mut Vec<u8>) -> Result<ChainRead> {
        let size = info.payload_size as usize;
        if from > to || to > size {
            return Err(Error::corrupt());
        }
        let local = &cell_bytes[info.payload_offset..info.payload_offset + info.local];
        if from < info.local {
            out.extend_from_slice(&local[from..to.min(info.local)]);
        }
        Ok(ChainRead { seq: self.seq, next: info.overflow, at: info.local, pages_left: self.chain_len(info), from, to, payload_size: size })
    }

    /// Go on with `st`, appending to `out` (which holds the bytes read so
    /// far) until `to` is reached. A missing page is an error with `st`
    /// and `out` as they were before that page, for the retry.
    pub(super) fn continue_chain_read(&mut self, st: &mut ChainRead, out: &mut Vec<u8>, out_start: usize) -> Result<()> {
        let per_page = self.usable() as usize - 4;
        while st.at < st.to {
            if st.pages_left == 0 || st.next == 0 || st.next > self.pager.db_size() {
                return Err(broken_chain());
            }
            let data = self.pager.page(st.next)?;
            let end = (st.at + per_page).min(st.payload_size);
            let (lo, hi) = (st.at.max(st.from), end.min(st.to));
            if lo < hi {
                out.extend_from_slice(&data[4 + (lo - st.at)..4 + (hi - st.at)]);
            }
            st.next = get_u32(data, 0)?;
            st.at = end;
            st.pages_left -= 1;
            // (Copied: the page need not stay in the cache.)
            self.pager.unpin_all();
        }
        if out.len() - out_start != st.to - st.from {
            return Err(broken_chain());
        }
        Ok(())
    }

    /// Move `st` along its chain to the page holding payload byte
    /// `target` (or the chain's end), reading only next-page fields; a
    /// missing page stops it as [`Btree::continue_chain_read`] does.
    pub(super) fn seek_chain(&mut self, st: &mut ChainRead, target: usize) -> Result<()> {
        let per_page = self.usable() as usize - 4;
        while st.at + per_page <= target && st.at < st.payload_size {
            if st.pages_left == 0 || st.next == 0 || st.next > self.pager.db_size() {
                return Err(broken_chain());
            }
            st.next = get_u32(self.pager.page(st.next)?, 0)?;
            st.at += per_page;
            st.pages_left -= 1;
            self.pager.unpin_all();
        }
        Ok(())
    }

    /// Page numbers of a cell's overflow chain.
    pub(super) fn overflow_pages(&self, info: &CellInfo) -> Result<Vec<Pgno>> {
        let mut pages = Vec::new();
        if info.overflow == 0 {
            return Ok(pages);
        }
        let mut next = info.overflow;
        // invariant: overflow_chain_length
        for _ in 0..self.chain_len(info) {
            if next < 2 || next > self.pager.db_size() || pages.contains(&next) {
                return Err(Error::corrupt());
            }
            pages.push(next);
            next = get_u32(self.pager.page(next)?, 0)?;
        }
        if next != 0 {
            return Err(Error::corrupt());
        }
        Ok(pages)
    }

    /// Free a cell's overflow chain.
    pub(super) fn free_overflow(&mut self, kind: PageKind, cell_bytes: &[u8]) -> Result<()> {
        let info = cell::parse(kind, cell_bytes, self.usable())?;
        let pages = self.overflow_pages(&info)?;
        #[cfg(debug_assertions)]
        let before = self.pager.page(1).and_then(|p1| get_u32(p1, crate::pager::header::FREELIST_COUNT)).ok();
        for &p in &pages {
            self.free_page(p)?;
        }
        #[cfg(debug_assertions)]
        {
            let after = self.pager.page(1).and_then(|p1| get_u32(p1, crate::pager::header::FREELIST_COUNT)).ok();
            // invariant: overflow_chain_freed
            debug_assert!(
                before.zip(after).is_none_or(|(b, a)| a as usize == b as usize + pages.len()),
                "a freed overflow chain of {} pages left the freelist count at {after:?} (was {before:?})",
                pages.len()
            );
        }
        Ok(())
    }

    /// Build a leaf cell for `payload`, spilling into a new overflow chain
    /// if it is too large (or pointing at the chain written ahead).
    pub(super) fn build_leaf_cell(&mut self, kind: PageKind, rowid: i64, payload: Payload<'_>) -> Result<Vec<u8>> {
        let usable = self.usable();
        let total = payload.size();
        let local = cell::local_size(total as u64, kind == PageKind::TableLeaf, usable);
        // One allocation of the whole cell (the prefix, the local payload,
        // an overflow pointer or the padding to the smallest cell), the
        // varints written in place.
        let size_len = varint_len(total as u64);
        let head = size_len + if kind == PageKind::TableLeaf { varint_len(rowid as u64) } else { 0 };
        let mut out = Vec::with_capacity((head + local + 4).max(cell::MIN_CELL));
        out.resize(head, 0);
        put_varint(&mut out[..size_len], total as u64);
        if kind == PageKind::TableLeaf {
            put_varint(&mut out[size_len..head], rowid as u64);
        }
        payload.append_range(0, local, &mut out);
        if local == total {
            if out.len() < cell::MIN_CELL {
                out.resize(cell::MIN_CELL, 0);
            }
            return Ok(out);
        }
        if payload.chain != 0 {
            out.extend_from_slice(&payload.chain.to_be_bytes());
            return Ok(out);
        }
        let per_page = usable as usize - 4;
        let n_pages = (total - local).div_ceil(per_page);
        let mut pages = Vec::with_capacity(n_pages);
        for _ in 0..n_pages {
            pages.push(self.allocate_page()?);
        }
        for (i, &pgno) in pages.iter().enumerate() {
            let next = pages.get(i + 1).copied().unwrap_or(0);
            let from = local + i * per_page;
            let want = (total - from).min(per_page);
            let data = self.pager.page_mut(pgno)?;
            data[..4].copy_from_slice(&next.to_be_bytes());
            payload.copy_stored(from, &mut data[4..4 + want]);
        }
        for w in pages.windows(2) {
            self.ptrmap_put(w[1], super::ptrmap::OVERFLOW2, w[0])?;
        }
        out.extend_from_slice(&pages[0].to_be_bytes());
        Ok(out)
    }

    /// Pages one [`Btree::write_chain_batch`] writes: at most
    /// [`CHAIN_BATCH_PAGES`], and a quarter of the cache's bound, so that
    /// the spill between two batches (half the bound) keeps up with them.
    pub(super) fn chain_batch_pages(&self) -> usize {
        let n = self.pager.cache_size();
        let bound = if n >= 0 { n as u64 } else { n.unsigned_abs().saturating_mul(1024) / u64::from(self.pager.page_size()) };
        ((bound / 4) as usize).clamp(1, CHAIN_BATCH_PAGES)
    }

    /// Pages of the overflow chain a `kind` leaf cell for a payload of
    /// `total` bytes needs.
    pub(super) fn overflow_pages_for(&self, kind: PageKind, total: usize) -> usize {
        self.overflow_bytes_for(kind, total).div_ceil(self.usable() as usize - 4)
    }

    /// Bytes of a `total`-byte payload of a `kind` leaf cell that go to
    /// its overflow chain.
    pub(super) fn overflow_bytes_for(&self, kind: PageKind, total: usize) -> usize {
        total - cell::local_size(total as u64, kind == PageKind::TableLeaf, self.usable())
    }

    /// Write up to `max_pages` more pages of `payload`'s overflow chain
    /// (for a `kind` leaf cell), continuing `st`. `true` once the chain is
    /// whole. The pages are new (zero-filled): only the stored bytes are
    /// copied, and each page is linked from the one before.
    pub(super) fn write_chain_batch(&mut self, kind: PageKind, payload: Payload<'_>, st: &mut ChainWrite, max_pages: usize) -> Result<bool> {
        let usable = self.usable();
        let total = payload.size();
        let local = cell::local_size(total as u64, kind == PageKind::TableLeaf, usable);
        let over = total - local;
        let per_page = usable as usize - 4;
        for _ in 0..max_pages {
            if st.done >= over {
                break;
            }
            let pgno = self.allocate_page()?;
            if st.last == 0 {
                st.first = pgno;
            } else {
                self.pager.page_mut(st.last)?[..4].copy_from_slice(&pgno.to_be_bytes());
                self.ptrmap_put(pgno, super::ptrmap::OVERFLOW2, st.last)?;
            }
            let want = (over - st.done).min(per_page);
            let data = self.pager.page_mut(pgno)?;
            debug_assert!(data[..4 + want].iter().all(|&b| b == 0), "a new page is zero-filled");
            payload.copy_stored(local + st.done, &mut data[4..4 + want]);
            st.last = pgno;
            st.done += want;
        }
        Ok(st.done >= over)
    }
}
