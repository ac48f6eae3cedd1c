//! # Page space accounting for the integrity check
//!
//! Every byte of a B-tree page's content area (from the header's content
//! offset to the end of the usable space) is in exactly one cell, one
//! freeblock, or a fragment; the header's byte 7 counts the fragment bytes
//! (`fileformat2.txt` §1.6). This module lays the cells and freeblocks of
//! one page side by side and reports what SQLite's `integrity_check`
//! reports when that does not hold: a cell pointer outside the content
//! area, a cell running off the page, a byte used twice, and a fragment
//! count that differs from the header's.
//!
//! Invariant: it only reads the page; a malformed freeblock chain (a loop,
//! an offset or size out of the page) ends the walk without a report of
//! its own, as the B-tree layer reports such a page when it loads it.

use super::page::PageHeader;

/// The findings on one page, in SQLite's order: the per-cell messages
/// (cell index and text, to be prefixed with the tree and page) first,
/// then the page-level ones (unprefixed).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Coverage {
    /// `(cell index, message)` for cells out of place.
    pub cells: Vec<(usize, String)>,
    /// Byte overlaps and fragment count disagreements.
    pub page: Vec<String>,
    /// The freeblock chain or the free-space total is impossible: SQLite
    /// reports "free space corruption" and checks nothing else on the page.
    pub free_space_corrupt: bool,
}

/// Check the space of page `pgno` (`data`, header `h`); `cell_size(i)`
/// gives cell `i`'s size on the page, `None` when it cannot be parsed.
pub fn check(data: &[u8], h: &PageHeader, pgno: u32, usable: usize, cell_size: impl Fn(usize, usize) -> Option<usize>) -> Coverage {
    let mut out = Coverage::default();
    let hdr = h.offset;
    let get16 = |at: usize| -> Option<usize> { data.get(at..at + 2).map(|b| u16::from_be_bytes([b[0], b[1]]) as usize) };
    let content = match get16(hdr + 5) {
        Some(0) => 65536,
        Some(c) => c,
        None => return out,
    };
    if !free_space_valid(data, h, usable, content) {
        out.free_space_corrupt = true;
        return out;
    }
    // Cells whose bounds are wrong take the page out of the byte count:
    // its sums would only repeat the same finding.
    let mut counted = true;
    let mut spans: Vec<(usize, usize)> = Vec::with_capacity(h.ncells + 4);
    let array = hdr + h.kind.header_size();
    for i in 0..h.ncells {
        let Some(pc) = get16(array + 2 * i) else { return out };
        if pc < content || pc + 4 > usable {
            out.cells.push((i, format!("Offset {pc} out of range {content}..{}", usable - 4)));
            counted = false;
            continue;
        }
        let Some(size) = cell_size(i, pc) else {
            counted = false;
            continue;
        };
        if pc + size > usable {
            out.cells.push((i, "Extends off end of page".to_string()));
            counted = false;
            continue;
        }
        spans.push((pc, pc + size - 1));
    }
    if !counted {
        return out;
    }
    // The freeblock chain: ascending offsets, each at least 4 bytes.
    let mut at = get16(hdr + 1).unwrap_or(0);
    let mut guard = 0;
    while at != 0 {
        guard += 1;
        let (Some(next), Some(size)) = (get16(at), get16(at + 2)) else { return out };
        if guard > usable / 4 || at + 4 > usable || size < 4 || at + size > usable {
            return out;
        }
        spans.push((at, at + size - 1));
        if next != 0 && next <= at + size {
            return out;
        }
        at = next;
    }
    spans.sort_unstable();
    let mut fragments = 0;
    let mut last_end = content - 1;
    for (n, &(start, end)) in spans.iter().enumerate() {
        if last_end >= start {
            out.page.push(format!("Multiple uses for byte {start} of page {pgno}"));
            // (SQLite compares the fragment count only when the overlap
            // was the last span.)
            if n + 1 < spans.len() {
                return out;
            }
            break;
        }
        fragments += start - last_end - 1;
        last_end = end;
    }
    fragments += usable - last_end - 1;
    let reported = data.get(hdr + 7).copied().unwrap_or(0) as usize;
    if fragments != reported {
        out.page.push(format!("Fragmentation of {fragments} bytes reported as {reported} on page {pgno}"));
    }
    out
}

/// Whether the page's freeblock chain and free-space total are possible
/// (`fileformat2.txt` §1.6): freeblocks inside the content area, in
/// ascending order with at least 4 bytes between them, the last ending
/// within the page; free bytes in all no more than the usable size and no
/// less than the space before the first cell pointer's end.
fn free_space_valid(data: &[u8], h: &PageHeader, usable: usize, content: usize) -> bool {
    let get16 = |at: usize| -> Option<usize> { data.get(at..at + 2).map(|b| u16::from_be_bytes([b[0], b[1]]) as usize) };
    let hdr = h.offset;
    let first_cell = hdr + h.kind.header_size() + 2 * h.ncells;
    let Some(mut at) = get16(hdr + 1) else { return false };
    let mut free = data.get(hdr + 7).copied().unwrap_or(0) as usize + content;
    if at > 0 {
        if at < content {
            return false;
        }
        let (mut next, mut size);
        loop {
            if at > usable - 4 {
                return false;
            }
            let (Some(n), Some(sz)) = (get16(at), get16(at + 2)) else { return false };
            (next, size) = (n, sz);
            // (A freeblock holds at least its own 4-byte header.)
            if size < 4 {
                return false;
            }
            free += size;
            if next <= at + size + 3 {
                break;
            }
            at = next;
        }
        if next > 0 || at + size > usable {
            return false;
        }
    }
    free <= usable && free >= first_cell
}
