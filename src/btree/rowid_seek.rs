//! # Rowid descent in table trees
//!
//! A point lookup by rowid is the commonest seek: it reads only the key of
//! each cell it compares (the rowid varint, straight from the page bytes:
//! after the 4-byte child pointer on interior pages, after the payload-size
//! varint on leaves) and stops the binary search at an equal key, since
//! rowids are unique in a table tree. A cell's rowid is read from one
//! bounded 8-byte window when both its varints are short (the usual
//! cell), and the row a seek lands on is copied from its cell without a
//! full parse when its payload lies whole there (`table_leaf_record`);
//! any other cell takes the general decode, which reports damage.
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

/// The rowid of the table cell at `off` of `area` (after the 4-byte child
/// pointer on interior pages, after the payload-size varint on leaves).
/// Most cells lie 8 bytes or more before the end of the usable area and
/// hold both varints in at most 2 + 3 bytes: those are read from one
/// bounded 8-byte window without further checks; the rest take the general
/// decode.
#[inline(always)]
fn table_cell_key(area: &[u8], off: usize, leaf: bool) -> Result<u64> {
    if let Some(w) = area.get(off..).and_then(|c| c.first_chunk::<8>()) {
        let at = match (leaf, w[0] < 0x80, w[1] < 0x80) {
            (false, ..) => Some(4),
            (true, true, _) => Some(1),
            (true, false, true) => Some(2),
            _ => None,
        };
        if let Some(at) = at {
            let (b0, b1, b2) = (u64::from(w[at]), u64::from(w[at + 1]), u64::from(w[at + 2]));
            if b0 < 0x80 {
                return Ok(b0);
            }
            if b1 < 0x80 {
                return Ok(((b0 & 0x7f) << 7) | b1);
            }
            if b2 < 0x80 {
                return Ok(((b0 & 0x7f) << 14) | ((b1 & 0x7f) << 7) | b2);
            }
        }
    }
    let cell = area.get(off..).ok_or_else(Error::corrupt)?;
    let at = if leaf { varint_len(cell)? } else { 4 };
    Ok(varint(cell.get(at..).ok_or_else(Error::corrupt)?)?.0)
}

/// Binary search of a table page's cells (pointer array at `ptrs`,
/// `ncells` entries) for `rowid`: the first cell whose rowid is `>=` it,
/// and whether that one is equal. Each probe reads only the cell's
/// rowid ([`table_cell_key`]); the pointer array and the usable area are
/// bounded once, not per probe.
#[inline(always)]
pub(super) fn search_table_page(data: &[u8], ptrs: usize, ncells: usize, usable: usize, leaf: bool, rowid: i64) -> Result<(usize, bool)> {
    let min = ptrs + 2 * ncells;
    let (Some(array), Some(area)) = (data.get(ptrs..min), data.get(..usable)) else { return Err(Error::corrupt()) };
    // (`hi` starts at the array's own length so that `array[mid]` needs
    // no check.)
    let array = array.as_chunks::<2>().0;
    let (mut lo, mut hi) = (0usize, array.len());
    while lo < hi {
        let mid = (lo + hi) / 2;
        let off = u16::from_be_bytes(array[mid]) as usize;
        // (As `page::cell_offset` checks it: not in the pointer array,
        // not past the usable size.)
        if off < min || off >= usable {
            return Err(Error::corrupt());
        }
        let k = table_cell_key(area, off, leaf)? as i64;
        if k < rowid {
            lo = mid + 1;
        } else if k > rowid {
            hi = mid;
        } else {
            return Ok((mid, true));
        }
    }
    Ok((lo, false))
}

/// The rowid and record of table leaf cell `i` (pointer array at `ptrs`,
/// `ncells` entries) when its payload size is a one- or two-byte varint
/// and the payload lies whole in the cell, the usual row; `None` for any
/// other cell (the caller parses it, and reports damage).
#[inline(always)]
pub(super) fn table_leaf_record(data: &[u8], ptrs: usize, ncells: usize, i: usize, usable: usize) -> Option<(i64, &[u8])> {
    if i >= ncells {
        return None;
    }
    let page = data.get(..usable)?;
    let off = cell_start(page, ptrs, ncells, i, usable).ok()?;
    let (size, n) = match page.get(off..off + 2)? {
        [b0, _] if *b0 < 0x80 => (usize::from(*b0), 1),
        [b0, b1] if *b1 < 0x80 => ((usize::from(*b0 & 0x7f) << 7) | usize::from(*b1), 2),
        _ => return None,
    };
    if size > super::cell::max_local(true, usable as u32) {
        return None;
    }
    let (rowid, m) = varint(page.get(off + n..)?).ok()?;
    let start = off + n + m;
    Some((rowid as i64, page.get(start..start + size)?))
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
            // (`page::child`, with the pointer array already located.)
            pgno = if lo == h.ncells {
                h.right
            } else {
                let off = cell_start(data, ptrs, h.ncells, lo, usable)?;
                let b = data.get(..usable).and_then(|a| a.get(off..)?.first_chunk::<4>()).ok_or_else(Error::corrupt)?;
                u32::from_be_bytes(*b)
            };
            if pgno == 0 || pgno > self.pager.db_size() {
                return Err(Error::corrupt());
            }
        }
    }
}
