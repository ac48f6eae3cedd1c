//! # Overflow chains
//!
//! A payload too large for its cell keeps its first bytes in the cell and
//! the rest in a chain of overflow pages: each holds the next page number
//! (0 ends the chain) and then up to usable-4 bytes of payload.
//!
//! Invariant: a chain is followed for at most as many pages as the payload
//! size implies; a longer chain, a loop, or a bad page number is
//! `SQLITE_CORRUPT`.

use super::cell::{self, get_u32, CellInfo};
use super::page::PageKind;
use super::{Btree, Pgno};
use crate::error::{Error, Result};

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
        if info.overflow == 0 {
            return Ok(());
        }
        out.reserve(info.payload_size as usize - info.local);
        let per_page = self.usable() as usize - 4;
        let mut next = info.overflow;
        for _ in 0..self.chain_len(info) {
            if next < 2 || next > self.pager.db_size() {
                return Err(Error::corrupt());
            }
            let data = self.pager.page(next)?;
            let want = (info.payload_size as usize - (out.len() - start)).min(per_page);
            out.extend_from_slice(&data[4..4 + want]);
            next = get_u32(data, 0)?;
        }
        if out.len() - start != info.payload_size as usize || next != 0 {
            return Err(Error::corrupt());
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
        for p in self.overflow_pages(&info)? {
            self.free_page(p)?;
        }
        Ok(())
    }

    /// Build a leaf cell for `payload`, spilling into a new overflow chain
    /// if it is too large.
    pub(super) fn build_leaf_cell(&mut self, kind: PageKind, rowid: i64, payload: &[u8]) -> Result<Vec<u8>> {
        let usable = self.usable();
        let mut out = cell::leaf_prefix(kind, rowid, payload.len());
        let local = cell::local_size(payload.len() as u64, kind == PageKind::TableLeaf, usable);
        out.extend_from_slice(&payload[..local]);
        if local == payload.len() {
            if out.len() < cell::MIN_CELL {
                out.resize(cell::MIN_CELL, 0);
            }
            return Ok(out);
        }
        let per_page = usable as usize - 4;
        let chunks: Vec<&[u8]> = payload[local..].chunks(per_page).collect();
        let mut pages = Vec::with_capacity(chunks.len());
        for _ in 0..chunks.len() {
            pages.push(self.allocate_page()?);
        }
        for (i, chunk) in chunks.iter().enumerate() {
            let next = pages.get(i + 1).copied().unwrap_or(0);
            let data = self.pager.page_mut(pages[i])?;
            data[..4].copy_from_slice(&next.to_be_bytes());
            data[4..4 + chunk.len()].copy_from_slice(chunk);
        }
        for w in pages.windows(2) {
            self.ptrmap_put(w[1], super::ptrmap::OVERFLOW2, w[0])?;
        }
        out.extend_from_slice(&pages[0].to_be_bytes());
        Ok(out)
    }
}
