//! # Cells: parsing, sizing and building
//!
//! The four cell layouts of `fileformat2.txt` ("B-tree Pages"):
//! table leaf (payload size, rowid, payload), table interior (left child,
//! rowid), index leaf (payload size, payload), index interior (left child,
//! payload size, payload). Payload beyond the local limit goes to an
//! overflow chain whose first page number ends the cell.
//!
//! Local payload rule, with U the usable size and P the payload size:
//! X = U-35 for table leaves, ((U-12)*64/255)-23 for index pages;
//! M = ((U-12)*32/255)-23; K = M+((P-M)%(U-4)); all local if P <= X,
//! else K bytes if K <= X, else M bytes.
//!
//! Invariant: every parse is bounds-checked against the bytes it is given;
//! a cell that runs past them is `SQLITE_CORRUPT` (checked:
//! btree_cell_bounds).

use super::page::PageKind;
use super::Pgno;
use crate::error::{Error, Result};

/// Decode a varint at the start of `b`: (value, bytes used); a varint
/// running off the end is `SQLITE_CORRUPT`.
#[inline]
pub fn get_varint(b: &[u8]) -> Result<(u64, usize)> {
    // One byte is the common case (small sizes, serial types).
    if let Some(&b0) = b.first() {
        if b0 < 0x80 {
            return Ok((u64::from(b0), 1));
        }
    }
    crate::value::varint::read_varint(b).ok_or_else(Error::corrupt)
}

/// Append the varint encoding of `v`.
pub fn put_varint(v: u64, out: &mut Vec<u8>) {
    crate::value::varint::write_varint(out, v);
}

/// Read a big-endian u32 at `off`, bounds-checked.
pub fn get_u32(b: &[u8], off: usize) -> Result<u32> {
    let s = b.get(off..off + 4).ok_or_else(Error::corrupt)?;
    Ok(u32::from_be_bytes([s[0], s[1], s[2], s[3]]))
}

/// Largest payload kept entirely on the page.
pub fn max_local(table_leaf: bool, usable: u32) -> usize {
    let u = usable as usize;
    if table_leaf {
        u - 35
    } else {
        (u - 12) * 64 / 255 - 23
    }
}

/// Minimum local payload once a payload overflows.
pub fn min_local(usable: u32) -> usize {
    (usable as usize - 12) * 32 / 255 - 23
}

/// Bytes of a `payload`-byte payload stored on the page.
#[inline]
pub fn local_size(payload: u64, table_leaf: bool, usable: u32) -> usize {
    let x = max_local(table_leaf, usable);
    if payload <= x as u64 {
        return payload as usize;
    }
    let m = min_local(usable) as u64;
    let k = m + (payload - m) % (usable as u64 - 4);
    if k <= x as u64 {
        k as usize
    } else {
        m as usize
    }
}

/// A parsed cell.
#[derive(Debug, Clone, Copy, Default)]
pub struct CellInfo {
    /// Left child (interior cells), else 0.
    pub left_child: Pgno,
    /// Rowid (table cells).
    pub rowid: i64,
    /// Total payload bytes (0 for table interior cells).
    pub payload_size: u64,
    /// Offset of the payload within the cell.
    pub payload_offset: usize,
    /// Payload bytes stored in the cell.
    pub local: usize,
    /// First overflow page, 0 if none.
    pub overflow: Pgno,
    /// Size of the whole cell in bytes.
    pub size: usize,
}

/// Parse the cell at the start of `b` (which may extend past the cell).
#[inline]
pub fn parse(kind: PageKind, b: &[u8], usable: u32) -> Result<CellInfo> {
    if let Some(info) = parse_local_leaf(kind, b, usable) {
        return Ok(info);
    }
    parse_general(kind, b, usable)
}

/// [`parse`] of the commonest cell, one a seek lands on or a row
/// rewrite replaces: a leaf cell whose payload size is a one- or two-byte
/// varint and lies whole on the page. `None` for any other cell (or one
/// that runs past `b`): the general parse reads it (and reports damage).
#[inline(always)]
fn parse_local_leaf(kind: PageKind, b: &[u8], usable: u32) -> Option<CellInfo> {
    let table = match kind {
        PageKind::TableLeaf => true,
        PageKind::IndexLeaf => false,
        _ => return None,
    };
    let (p, n) = match b {
        [b0, ..] if *b0 < 0x80 => (u64::from(*b0), 1),
        [b0, b1, ..] if *b1 < 0x80 => ((u64::from(*b0 & 0x7f) << 7) | u64::from(*b1), 2),
        _ => return None,
    };
    if p > max_local(table, usable) as u64 {
        return None;
    }
    let mut pos = n;
    let mut rowid = 0;
    if table {
        let (k, m) = get_varint(b.get(pos..)?).ok()?;
        rowid = k as i64;
        pos += m;
    }
    let size = pos + p as usize;
    if size > b.len() {
        return None;
    }
    Some(CellInfo { left_child: 0, rowid, payload_size: p, payload_offset: pos, local: p as usize, overflow: 0, size: padded(size, b.len()) })
}

/// [`parse_local_leaf`]'s size alone: the rowid varint is skipped, not
/// decoded (a page repack sizes every cell of the page). `None` unless
/// the cell is a leaf cell whose payload is all local (no overflow chain).
#[inline(always)]
pub fn local_leaf_size(kind: PageKind, b: &[u8], usable: u32) -> Option<usize> {
    let table = match kind {
        PageKind::TableLeaf => true,
        PageKind::IndexLeaf => false,
        _ => return None,
    };
    let (p, n) = match b {
        [b0, ..] if *b0 < 0x80 => (usize::from(*b0), 1),
        [b0, b1, ..] if *b1 < 0x80 => ((usize::from(*b0 & 0x7f) << 7) | usize::from(*b1), 2),
        _ => return None,
    };
    if p > max_local(table, usable) {
        return None;
    }
    let pos = if table { n + varint_bytes(b.get(n..)?).ok()? } else { n };
    let size = pos + p;
    (size <= b.len()).then(|| padded(size, b.len()))
}

/// [`parse`] of any cell.
#[inline(never)]
fn parse_general(kind: PageKind, b: &[u8], usable: u32) -> Result<CellInfo> {
    let info = parse_unchecked(kind, b, usable)?;
    if (info.local as u64) < info.payload_size && info.overflow == 0 {
        return Err(Error::corrupt());
    }
    Ok(info)
}

/// [`parse`] without refusing an overflow page number of 0 (the
/// integrity check reports such a chain by its length).
pub fn parse_unchecked(kind: PageKind, b: &[u8], usable: u32) -> Result<CellInfo> {
    let mut info = CellInfo::default();
    let mut pos = 0;
    if !kind.is_leaf() {
        info.left_child = get_u32(b, 0)?;
        pos = 4;
    }
    if kind == PageKind::TableInterior {
        let (k, n) = get_varint(&b[pos.min(b.len())..])?;
        info.rowid = k as i64;
        info.size = padded(pos + n, b.len());
        return Ok(info);
    }
    let (p, n) = get_varint(&b[pos.min(b.len())..])?;
    pos += n;
    if kind == PageKind::TableLeaf {
        let (k, n) = get_varint(&b[pos.min(b.len())..])?;
        info.rowid = k as i64;
        pos += n;
    }
    if p > i32::MAX as u64 {
        return Err(Error::corrupt());
    }
    info.payload_size = p;
    info.payload_offset = pos;
    info.local = local_size(p, kind == PageKind::TableLeaf, usable);
    info.size = pos + info.local;
    if (info.local as u64) < p {
        info.overflow = get_u32(b, pos + info.local)?;
        info.size += 4;
    }
    // invariant: btree_cell_bounds
    if info.size > b.len() {
        return Err(Error::corrupt());
    }
    info.size = padded(info.size, b.len());
    Ok(info)
}

/// Cells take at least [`MIN_CELL`] bytes on a page, as in SQLite (a
/// freed cell must hold a freeblock header); a cell encoding fewer (a
/// leaf cell of a one-byte record) is padded. A shorter one at the very
/// end of a page, as an older ringlite wrote them, keeps its own size.
fn padded(size: usize, room: usize) -> usize {
    size.max(MIN_CELL).min(room.max(size))
}

/// The least space a cell takes on a page.
pub const MIN_CELL: usize = 4;

/// Bytes of the varint at the start of `b` (SQLITE_CORRUPT if it runs
/// off the end).
#[inline]
fn varint_bytes(b: &[u8]) -> Result<usize> {
    for (i, &x) in b.iter().take(9).enumerate() {
        if x & 0x80 == 0 || i == 8 {
            return Ok(i + 1);
        }
    }
    Err(Error::corrupt())
}

/// The size of the cell at the start of `b`, as `parse(..).size`, with
/// less work (balancing sizes every cell of three pages): the rowid is
/// skipped rather than decoded and nothing else is kept.
#[inline]
pub fn cell_size(kind: PageKind, b: &[u8], usable: u32) -> Result<usize> {
    if let Some(size) = local_leaf_size(kind, b, usable) {
        return Ok(size);
    }
    let mut pos = if kind.is_leaf() { 0 } else { 4 };
    let rest = b.get(pos..).ok_or_else(Error::corrupt)?;
    if kind == PageKind::TableInterior {
        return Ok(pos + varint_bytes(rest)?);
    }
    let (p, n) = get_varint(rest)?;
    pos += n;
    if kind == PageKind::TableLeaf {
        pos += varint_bytes(b.get(pos..).ok_or_else(Error::corrupt)?)?;
    }
    if p > i32::MAX as u64 {
        return Err(Error::corrupt());
    }
    let local = local_size(p, kind == PageKind::TableLeaf, usable);
    let size = pos + local + if (local as u64) < p { 4 } else { 0 };
    if size > b.len() {
        return Err(Error::corrupt());
    }
    Ok(padded(size, b.len()))
}

/// Build a leaf cell's header part (everything before the payload).
/// (The tests' builder: `Btree::build_leaf_cell` writes its own.)
#[cfg(test)]
pub fn leaf_prefix(kind: PageKind, rowid: i64, payload_size: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(18);
    put_varint(payload_size as u64, &mut out);
    if kind == PageKind::TableLeaf {
        put_varint(rowid as u64, &mut out);
    }
    out
}

/// A table interior cell.
pub fn table_interior(left: Pgno, rowid: i64) -> Vec<u8> {
    let mut out = left.to_be_bytes().to_vec();
    put_varint(rowid as u64, &mut out);
    out
}

/// An index leaf cell turned into an interior cell with `left` child.
pub fn index_leaf_to_interior(leaf_cell: &[u8], left: Pgno) -> Vec<u8> {
    let mut out = Vec::with_capacity(leaf_cell.len() + 4);
    out.extend_from_slice(&left.to_be_bytes());
    out.extend_from_slice(leaf_cell);
    out
}

/// Replace the left child pointer of an interior cell.
pub fn set_left_child(cell: &mut [u8], left: Pgno) {
    cell[..4].copy_from_slice(&left.to_be_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_payload_limits_match_the_file_format() {
        assert_eq!(max_local(true, 4096), 4061);
        assert_eq!(max_local(false, 4096), 1002);
        assert_eq!(min_local(4096), 489);
        assert_eq!(local_size(4061, true, 4096), 4061);
        // K = M + (P-M) % (U-4) fits under X: that many bytes stay local.
        assert_eq!(local_size(5000, true, 4096), 489 + (5000 - 489) % 4092);
        // K = 489 + 514 = 1003 exceeds X = 1002: only M bytes stay local.
        assert_eq!(local_size(1003, false, 4096), 489);
    }

    #[test]
    fn cells_parse_back() {
        let mut c = leaf_prefix(PageKind::TableLeaf, 300, 3);
        c.extend_from_slice(b"abc");
        let info = parse(PageKind::TableLeaf, &c, 4096).unwrap();
        assert_eq!((info.rowid, info.payload_size, info.size, info.overflow), (300, 3, c.len(), 0));
        let i = table_interior(9, -5);
        let info = parse(PageKind::TableInterior, &i, 4096).unwrap();
        assert_eq!((info.left_child, info.rowid), (9, -5));
        assert!(parse(PageKind::TableLeaf, &c[..c.len() - 1], 4096).is_err(), "truncated cell is corrupt");
        assert!(cell_size(PageKind::TableLeaf, &c[..c.len() - 1], 4096).is_err(), "truncated cell is corrupt");
        assert_eq!(cell_size(PageKind::TableLeaf, &c, 4096).unwrap(), c.len());
        assert_eq!(cell_size(PageKind::TableInterior, &i, 4096).unwrap(), i.len());
    }

    #[test]
    fn cell_size_agrees_with_parse() {
        // Every kind, payloads around the local limits, rowids of every
        // varint length.
        for kind in [PageKind::TableLeaf, PageKind::TableInterior, PageKind::IndexLeaf, PageKind::IndexInterior] {
            for usable in [512u32, 4096, 65536] {
                for payload in [0usize, 1, 127, 128, 489, 1002, 1003, 4061, 4062, 70000] {
                    for rowid in [0i64, 1, 300, -1, i64::MAX] {
                        let mut c = Vec::new();
                        if !kind.is_leaf() {
                            c.extend_from_slice(&7u32.to_be_bytes());
                        }
                        if kind == PageKind::TableInterior {
                            put_varint(rowid as u64, &mut c);
                        } else {
                            c.extend(leaf_prefix(kind.leaf(), rowid, payload));
                            let local = local_size(payload as u64, kind == PageKind::TableLeaf, usable);
                            c.extend(std::iter::repeat_n(0xab, local));
                            if local < payload {
                                c.extend_from_slice(&9u32.to_be_bytes());
                            }
                        }
                        c.extend_from_slice(&[0u8; 5]);
                        let info = parse(kind, &c, usable).unwrap();
                        // The fast path reads what the general parse reads.
                        assert_eq!(format!("{info:?}"), format!("{:?}", parse_general(kind, &c, usable).unwrap()));
                        assert_eq!(cell_size(kind, &c, usable).unwrap(), info.size, "{kind:?} usable {usable} payload {payload} rowid {rowid}");
                    }
                }
            }
        }
    }
}
