//! # B-tree pages: header and cell pointer array
//!
//! A page is a header (8 bytes on leaves, 12 on interior pages; after the
//! 100-byte database header on page 1), a cell pointer array, free space,
//! and the cell content area ending at the usable size. This module reads
//! a page into a [`Node`] (its kind, cells, right child) and writes a node
//! back as a freshly packed page (no freeblocks, no fragments).
//!
//! Invariants: every offset read from a page is checked against the page
//! before use (`SQLITE_CORRUPT` otherwise) (checked: btree_cell_bounds); a
//! node is only written to a page it fits ([`fits`]), so bytes past the
//! usable size are never touched (checked: btree_node_fits).

use super::cell;
use super::Pgno;
use crate::error::{Error, Result};

/// The four page types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageKind {
    /// 0x02
    IndexInterior,
    /// 0x05
    TableInterior,
    /// 0x0a
    IndexLeaf,
    /// 0x0d
    TableLeaf,
}

impl PageKind {
    /// Decode the type byte.
    #[inline]
    pub fn from_byte(b: u8) -> Result<PageKind> {
        Ok(match b {
            2 => PageKind::IndexInterior,
            5 => PageKind::TableInterior,
            10 => PageKind::IndexLeaf,
            13 => PageKind::TableLeaf,
            _ => return Err(Error::corrupt()),
        })
    }
    /// The type byte.
    pub fn byte(self) -> u8 {
        match self {
            PageKind::IndexInterior => 2,
            PageKind::TableInterior => 5,
            PageKind::IndexLeaf => 10,
            PageKind::TableLeaf => 13,
        }
    }
    /// Whether a leaf.
    pub fn is_leaf(self) -> bool {
        matches!(self, PageKind::IndexLeaf | PageKind::TableLeaf)
    }
    /// Whether a table (intkey) page.
    pub fn is_table(self) -> bool {
        matches!(self, PageKind::TableInterior | PageKind::TableLeaf)
    }
    /// Header size in bytes.
    pub fn header_size(self) -> usize {
        if self.is_leaf() {
            8
        } else {
            12
        }
    }
    /// The interior kind of the same tree type.
    pub fn interior(self) -> PageKind {
        if self.is_table() {
            PageKind::TableInterior
        } else {
            PageKind::IndexInterior
        }
    }
    /// The leaf kind of the same tree type.
    pub fn leaf(self) -> PageKind {
        if self.is_table() {
            PageKind::TableLeaf
        } else {
            PageKind::IndexLeaf
        }
    }
}

/// Offset of the B-tree page header within page `pgno`.
pub fn header_offset(pgno: Pgno) -> usize {
    if pgno == 1 {
        100
    } else {
        0
    }
}

/// A page's content in memory.
#[derive(Debug, Clone)]
pub struct Node {
    /// Page type.
    pub kind: PageKind,
    /// Raw cells, in key order.
    pub cells: Vec<Vec<u8>>,
    /// Right-most child (interior pages), else 0.
    pub right: Pgno,
}

/// Parsed page header.
#[derive(Debug, Clone, Copy)]
pub struct PageHeader {
    /// Page type.
    pub kind: PageKind,
    /// Number of cells.
    pub ncells: usize,
    /// Right-most child (interior), else 0.
    pub right: Pgno,
    /// Offset of the header.
    pub offset: usize,
}

/// Read a page header.
// (Always inline: read for every page a seek, walk or write meets; out
// of line its call and result cost as much as the reading.)
#[inline(always)]
pub fn header(data: &[u8], pgno: Pgno) -> Result<PageHeader> {
    let off = header_offset(pgno);
    let h = data.get(off..off + 12).ok_or_else(Error::corrupt)?;
    let kind = PageKind::from_byte(h[0])?;
    let ncells = u16::from_be_bytes([h[3], h[4]]) as usize;
    let right = if kind.is_leaf() { 0 } else { u32::from_be_bytes([h[8], h[9], h[10], h[11]]) };
    if off + kind.header_size() + 2 * ncells > data.len() {
        return Err(Error::corrupt());
    }
    Ok(PageHeader { kind, ncells, right, offset: off })
}

/// A page's two-byte big-endian field at `at` (header fields, cell
/// pointers, freeblock links and sizes).
pub(crate) fn get_u16(data: &[u8], at: usize) -> usize {
    u16::from_be_bytes([data[at], data[at + 1]]) as usize
}

/// Writes a page's two-byte big-endian field at `at`.
pub(crate) fn put_u16(data: &mut [u8], at: usize, v: usize) {
    data[at..at + 2].copy_from_slice(&(v as u16).to_be_bytes());
}

/// Offset of cell `i`'s content.
// (Always inline: asked for every cell a search or a walk meets.)
#[inline(always)]
pub fn cell_offset(data: &[u8], h: &PageHeader, i: usize, usable: u32) -> Result<usize> {
    if i >= h.ncells {
        return Err(Error::corrupt());
    }
    let p = h.offset + h.kind.header_size() + 2 * i;
    let off = u16::from_be_bytes([data[p], data[p + 1]]) as usize;
    let min = h.offset + h.kind.header_size() + 2 * h.ncells;
    // invariant: btree_cell_bounds
    if off < min || off >= usable as usize {
        return Err(Error::corrupt());
    }
    Ok(off)
}

/// Cell `i`'s bytes and parsed form.
pub fn cell<'a>(data: &'a [u8], h: &PageHeader, i: usize, usable: u32) -> Result<(&'a [u8], cell::CellInfo)> {
    let off = cell_offset(data, h, i, usable)?;
    let area = &data[off..usable as usize];
    let info = cell::parse(h.kind, area, usable)?;
    Ok((&area[..info.size], info))
}

/// [`cell`] without refusing an overflow page number of 0.
pub fn cell_unchecked<'a>(data: &'a [u8], h: &PageHeader, i: usize, usable: u32) -> Result<(&'a [u8], cell::CellInfo)> {
    let off = cell_offset(data, h, i, usable)?;
    let area = &data[off..usable as usize];
    let info = cell::parse_unchecked(h.kind, area, usable)?;
    Ok((&area[..info.size], info))
}

/// Child page `i` of an interior page (`i == ncells`: the right child).
pub fn child(data: &[u8], h: &PageHeader, i: usize, usable: u32) -> Result<Pgno> {
    // An interior cell starts with its left child's number.
    let c = if i == h.ncells { h.right } else { super::cell::get_u32(&data[..usable as usize], cell_offset(data, h, i, usable)?)? };
    if c == 0 {
        return Err(Error::corrupt());
    }
    Ok(c)
}

/// Read a whole page into a [`Node`].
pub fn read_node(data: &[u8], pgno: Pgno, usable: u32) -> Result<Node> {
    let h = header(data, pgno)?;
    let mut cells = Vec::with_capacity(h.ncells);
    for i in 0..h.ncells {
        cells.push(cell(data, &h, i, usable)?.0.to_vec());
    }
    Ok(Node { kind: h.kind, cells, right: h.right })
}

/// Bytes a node needs on page `pgno` (header offset included).
pub fn node_size(node: &Node, pgno: Pgno) -> usize {
    header_offset(pgno) + node.kind.header_size() + node.cells.iter().map(|c| c.len() + 2).sum::<usize>()
}

/// Whether `node` fits on page `pgno`.
pub fn fits(node: &Node, pgno: Pgno, usable: u32) -> bool {
    node_size(node, pgno) <= usable as usize
}

/// Whether a page holding `node` is less than a third full, the point at
/// which deletes rebalance it with its siblings.
pub fn underfull(node: &Node, pgno: Pgno, usable: u32) -> bool {
    let used = node_size(node, pgno) - header_offset(pgno);
    used * 3 < usable as usize
}

/// Write `node` packed into `data` (page `pgno`). The caller checked
/// [`fits`].
pub fn write_node(data: &mut [u8], pgno: Pgno, node: &Node, usable: u32) {
    // invariant: btree_node_fits
    debug_assert!(fits(node, pgno, usable) && usable as usize <= data.len(), "a node written to page {pgno} it does not fit");
    let off = header_offset(pgno);
    let hs = node.kind.header_size();
    let usable = usable as usize;
    let mut content = usable;
    let ptr_base = off + hs;
    for (i, c) in node.cells.iter().enumerate() {
        content -= c.len();
        data[content..content + c.len()].copy_from_slice(c);
        let p = ptr_base + 2 * i;
        data[p..p + 2].copy_from_slice(&(content as u16).to_be_bytes());
    }
    let gap_start = ptr_base + 2 * node.cells.len();
    data[gap_start..content].fill(0);
    data[off] = node.kind.byte();
    data[off + 1..off + 3].fill(0);
    data[off + 3..off + 5].copy_from_slice(&(node.cells.len() as u16).to_be_bytes());
    let cs = if content == 65536 { 0u16 } else { content as u16 };
    data[off + 5..off + 7].copy_from_slice(&cs.to_be_bytes());
    data[off + 7] = 0;
    if !node.kind.is_leaf() {
        data[off + 8..off + 12].copy_from_slice(&node.right.to_be_bytes());
    }
}
