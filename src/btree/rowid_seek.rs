//! # Rowid descent in table trees
//!
//! A point lookup by rowid is the commonest seek: it reads only the key of
//! each cell it compares (the rowid varint, straight from the page bytes:
//! after the 4-byte child pointer on interior pages, after the payload-size
//! varint on leaves) and stops the binary search at an equal key, since
//! rowids are unique in a table tree.
//!
//! Invariant: the same bounds checks as [`super::page::cell_offset`] (a cell
//! pointer into the pointer array or past the usable size is `SQLITE_CORRUPT`)
//! (checked: btree_cell_bounds); the path produced is the one `seek_path` would
//! give for `Probe::Rowid` (first entry with rowid >= the probe, settled onto a
//! leaf entry).

use super::balance::Level;
use super::page;
use super::{Btree, Pgno};
use crate::error::{Error, Result};
use std::cmp::Ordering;

/// Decode a varint at the start of `b`, the forms up to three bytes inline.
#[inline(always)]
pub(super) fn varint(b: &[u8]) -> Result<(u64, usize)> {
    match b {
        [b0, ..] if *b0 < 0x80 => Ok((u64::from(*b0), 1)),
        [b0, b1, ..] if *b1 < 0x80 => Ok(((u64::from(*b0 & 0x7f) << 7) | u64::from(*b1), 2)),
        [b0, b1, b2, ..] if *b2 < 0x80 => Ok(((u64::from(*b0 & 0x7f) << 14) | (u64::from(*b1 & 0x7f) << 7) | u64::from(*b2), 3)),
        _ => crate::value::varint::read_varint(b).ok_or_else(Error::corrupt),
    }
}

/// Length of the varint at the start of `b`.
#[inline(always)]
pub(super) fn varint_len(b: &[u8]) -> Result<usize> {
    for (i, &x) in b.iter().take(8).enumerate() {
        if x < 0x80 {
            return Ok(i + 1);
        }
    }
    if b.len() >= 9 {
        Ok(9)
    } else {
        Err(Error::corrupt())
    }
}

/// Offset of cell `i` on a page whose cell pointer array starts at `ptrs`
/// and holds `ncells` entries (checked as `page::cell_offset` does).
#[inline(always)]
pub(super) fn cell_start(data: &[u8], ptrs: usize, ncells: usize, i: usize, usable: usize) -> Result<usize> {
    let p = ptrs + 2 * i;
    let b = data.get(p..p + 2).ok_or_else(Error::corrupt)?;
    let off = u16::from_be_bytes([b[0], b[1]]) as usize;
    // invariant: btree_cell_bounds
    if off < ptrs + 2 * ncells || off >= usable {
        return Err(Error::corrupt());
    }
    Ok(off)
}

/// Binary search of a table page's cells (pointer array at `ptrs`,
/// `ncells` entries) for `rowid`: the first cell whose rowid is `>=` it,
/// and whether that one is equal. Each probe reads only the cell's
/// rowid (after the 4-byte child pointer on interior pages, after the
/// payload-size varint, skipped, on leaves); the pointer array and the
/// usable area are bounded once, not per probe.
#[inline(always)]
pub(super) fn search_table_page(data: &[u8], ptrs: usize, ncells: usize, usable: usize, leaf: bool, rowid: i64) -> Result<(usize, bool)> {
    let min = ptrs + 2 * ncells;
    let (Some(array), Some(area)) = (data.get(ptrs..min), data.get(..usable)) else { return Err(Error::corrupt()) };
    let (mut lo, mut hi) = (0usize, ncells);
    while lo < hi {
        let mid = (lo + hi) / 2;
        let off = u16::from_be_bytes([array[2 * mid], array[2 * mid + 1]]) as usize;
        // (As `page::cell_offset` checks it: not in the pointer array,
        // not past the usable size.)
        if off < min || off >= usable {
            return Err(Error::corrupt());
        }
        let cell = &area[off..];
        let at = if !leaf {
            4
        } else {
            match cell {
                [b0, ..] if *b0 < 0x80 => 1,
                [_, b1, ..] if *b1 < 0x80 => 2,
                _ => varint_len(cell)?,
            }
        };
        let (k, _) = varint(cell.get(at..).ok_or_else(Error::corrupt)?)?;
        match (k as i64).cmp(&rowid) {
            Ordering::Less => lo = mid + 1,
            Ordering::Greater => hi = mid,
            Ordering::Equal => return Ok((mid, true)),
        }
    }
    Ok((lo, false))
}

impl Btree {
    /// Page `pgno`, met at `depth` of a descent, through the slot hint
    /// kept for that depth (if any).
    #[inline]
    pub(super) fn page_at_depth(&self, pgno: Pgno, depth: usize, hints: &mut [u32]) -> Result<&[u8]> {
        match hints.get_mut(depth) {
            Some(hint) => self.pager.page_hinted(pgno, hint),
            None => self.pager.page(pgno),
        }
    }

    /// Into `path` (cleared first): the path to the first entry whose rowid
    /// is `>= rowid`. Returns (an entry was found, it has that rowid).
    /// `hints` are cache slot hints by depth ([`Pager::page_hinted`]).
    ///
    /// [`Pager::page_hinted`]: crate::pager::Pager::page_hinted
    ///
    /// `resume`: see [`Btree::seek_path_into`].
    pub(super) fn seek_rowid_path(&self, root: Pgno, rowid: i64, path: &mut Vec<Level>, hints: &mut [u32], resume: &mut Option<Pgno>) -> Result<(bool, bool)> {
        let usable = self.usable() as usize;
        let mut pgno = match resume.take() {
            Some(pgno) => pgno,
            None => {
                path.clear();
                root
            }
        };
        loop {
            let data = match self.page_at_depth(pgno, path.len(), hints) {
                Ok(data) => data,
                Err(e) => {
                    *resume = Some(pgno);
                    return Err(e);
                }
            };
            let h = page::header(data, pgno)?;
            if !h.kind.is_table() {
                return Err(Error::corrupt());
            }
            let leaf = h.kind.is_leaf();
            let ptrs = h.offset + h.kind.header_size();
            let (lo, exact) = search_table_page(data, ptrs, h.ncells, usable, leaf, rowid)?;
            self.push_checked(path, Level { pgno, idx: lo })?;
            if leaf {
                if lo < h.ncells {
                    return Ok((true, exact));
                }
                let found = self.settle_forward(path)?;
                return Ok((found, false));
            }
            pgno = page::child(data, &h, lo, usable as u32)?;
            if pgno > self.pager.db_size() {
                return Err(Error::corrupt());
            }
        }
    }
}
