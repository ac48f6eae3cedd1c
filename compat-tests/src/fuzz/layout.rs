//! # Where things are in a database file (for aiming mutations)
//!
//! Reads a sound file (as the reference wrote it) and lists its B-tree
//! pages with their cells, overflow pages, freelist trunks and leaves,
//! and pointer-map pages, by byte offset in the file, following the file
//! format (fileformat2: page header, cell layouts, the local payload
//! formula). Only walked from the roots it is given; every walk is bounded
//! by the page count, so a file it misreads cannot loop it.

/// A B-tree page.
pub struct BtPage {
    pub pgno: u32,
    /// Offset of the page's first byte in the file.
    pub base: usize,
    /// Offset of the page header (base, or base + 100 on page 1).
    pub hdr: usize,
    pub kind: u8,
    /// Offsets of the cell pointer slots.
    pub slots: Vec<usize>,
    /// Offsets of the cells.
    pub cells: Vec<usize>,
    /// Offsets of 4-byte child page numbers (interior cells and the
    /// right child).
    pub children: Vec<usize>,
    /// Offsets of the 4-byte first-overflow-page numbers.
    pub overflow_ptrs: Vec<usize>,
    /// Offsets of payload starts of leaf cells (record headers).
    pub payloads: Vec<usize>,
}

#[derive(Default)]
pub struct Layout {
    pub page_size: usize,
    pub pages: u32,
    pub btree: Vec<BtPage>,
    pub overflow: Vec<u32>,
    pub free_trunks: Vec<u32>,
    pub free_leaves: Vec<u32>,
    pub ptrmap: Vec<u32>,
}

pub fn u16_at(b: &[u8], at: usize) -> usize {
    b.get(at..at + 2).map_or(0, |x| u16::from_be_bytes([x[0], x[1]]) as usize)
}

pub fn u32_at(b: &[u8], at: usize) -> u32 {
    b.get(at..at + 4).map_or(0, |x| u32::from_be_bytes([x[0], x[1], x[2], x[3]]))
}

/// A varint at `at`: (value, length).
fn varint(b: &[u8], at: usize) -> (u64, usize) {
    let mut v = 0u64;
    for i in 0..9 {
        let Some(&c) = b.get(at + i) else { return (v, i.max(1)) };
        if i == 8 {
            return ((v << 8) | c as u64, 9);
        }
        v = (v << 7) | (c & 0x7f) as u64;
        if c & 0x80 == 0 {
            return (v, i + 1);
        }
    }
    (v, 9)
}

/// Bytes of a payload of `p` bytes stored on the B-tree page itself.
fn local_size(p: u64, usable: u64, table_leaf: bool) -> u64 {
    let x = if table_leaf { usable - 35 } else { (usable - 12) * 64 / 255 - 23 };
    let m = (usable - 12) * 32 / 255 - 23;
    if p <= x {
        return p;
    }
    let k = m + (p - m) % (usable - 4);
    if k <= x {
        k
    } else {
        m
    }
}

pub fn read(b: &[u8], roots: &[u32]) -> Layout {
    let raw = u16_at(b, 16);
    let page_size = if raw == 1 { 65536 } else { raw.max(512) };
    let usable = (page_size - b.get(20).copied().unwrap_or(0) as usize) as u64;
    let pages = (b.len() / page_size) as u32;
    let mut l = Layout { page_size, pages, ..Layout::default() };
    let base_of = |p: u32| (p as usize - 1) * page_size;
    let valid = |p: u32| p >= 1 && p <= pages;
    let mut seen = vec![false; pages as usize + 1];
    let mut todo: Vec<u32> = roots.iter().copied().filter(|&p| valid(p)).collect();
    while let Some(p) = todo.pop() {
        if seen[p as usize] {
            continue;
        }
        seen[p as usize] = true;
        let base = base_of(p);
        let hdr = if p == 1 { base + 100 } else { base };
        let kind = b[hdr];
        if ![2, 5, 10, 13].contains(&kind) {
            continue;
        }
        let interior = kind == 2 || kind == 5;
        let n = u16_at(b, hdr + 3);
        let array = hdr + if interior { 12 } else { 8 };
        let mut page =
            BtPage { pgno: p, base, hdr, kind, slots: Vec::new(), cells: Vec::new(), children: Vec::new(), overflow_ptrs: Vec::new(), payloads: Vec::new() };
        if interior {
            page.children.push(hdr + 8);
            todo.push(u32_at(b, hdr + 8));
        }
        for i in 0..n {
            let slot = array + 2 * i;
            let cell = base + u16_at(b, slot);
            if cell + 4 > base + page_size {
                continue;
            }
            page.slots.push(slot);
            page.cells.push(cell);
            let payload_at = match kind {
                5 => {
                    page.children.push(cell);
                    todo.push(u32_at(b, cell));
                    continue;
                }
                2 => {
                    page.children.push(cell);
                    todo.push(u32_at(b, cell));
                    cell + 4
                }
                _ => cell,
            };
            let (size, n1) = varint(b, payload_at);
            let start = if kind == 13 { payload_at + n1 + varint(b, payload_at + n1).1 } else { payload_at + n1 };
            if kind != 2 {
                page.payloads.push(start);
            }
            let local = local_size(size, usable, kind == 13);
            if local < size {
                let at = start + local as usize;
                page.overflow_ptrs.push(at);
                let mut next = u32_at(b, at);
                let mut hops = 0;
                while valid(next) && !seen[next as usize] && hops < pages {
                    seen[next as usize] = true;
                    l.overflow.push(next);
                    next = u32_at(b, base_of(next));
                    hops += 1;
                }
            }
        }
        l.btree.push(page);
    }
    let mut trunk = u32_at(b, 32);
    let mut hops = 0;
    while valid(trunk) && hops < pages {
        l.free_trunks.push(trunk);
        let base = base_of(trunk);
        let count = (u32_at(b, base + 4) as usize).min(page_size / 4 - 2);
        l.free_leaves.extend((0..count).map(|i| u32_at(b, base + 8 + 4 * i)).filter(|&p| valid(p)));
        trunk = u32_at(b, base);
        hops += 1;
    }
    if u32_at(b, 52) != 0 {
        let step = usable as u32 / 5 + 1;
        let mut p = 2;
        while p <= pages {
            l.ptrmap.push(p);
            p += step;
        }
    }
    l
}

/// Zero the unallocated space of every B-tree page (between the cell
/// pointers and the content area): SQLite leaves there whatever its page
/// buffer held, so a damaged pointer into it would read bytes that differ
/// from run to run; cleared, a seed always means the same file.
pub fn clear_unallocated(b: &mut [u8], l: &Layout) {
    for p in &l.btree {
        let interior = p.kind == 2 || p.kind == 5;
        let ptr_end = p.hdr + if interior { 12 } else { 8 } + 2 * u16_at(b, p.hdr + 3);
        let mut content = u16_at(b, p.hdr + 5);
        if content == 0 {
            content = 65536;
        }
        let end = (p.base + content).min(p.base + l.page_size);
        if ptr_end < end {
            b[ptr_end..end].fill(0);
        }
    }
}
