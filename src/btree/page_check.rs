//! # Debug-build check of a B-tree page after a change
//!
//! SQLite asserts a page's header consistency where it changes a page
//! (`btreeComputeFreeSpace` and `cellSizePtr` under `SQLITE_DEBUG`); this
//! module is that check for debug builds, run after every in-place change
//! and every packed write of a B-tree page, so that a change that breaks
//! a page panics at the change instead of surfacing later as
//! `SQLITE_CORRUPT` (or as a file SQLite refuses).
//!
//! Invariant: a page is consistent after every change (checked:
//! btree_page_consistent), that is ([`page_consistency`]):
//! - the content area starts after the cell pointer array and inside the
//!   usable size;
//! - the freeblock list is ascending, inside the content area, each block
//!   at least 4 bytes and at least 4 bytes before the next (closer ones
//!   are merged, as SQLite merges them);
//! - the fragment count (header byte 7) is at most 60, the most SQLite
//!   lets a page collect before it defragments;
//! - every cell pointer lies inside the content area, with room for a
//!   cell's 4 bytes minimum before the usable end.
//!
//! Invariant: an in-place change keeps a table page's keys in order (a
//! leaf's rowids ascend strictly, an interior page's dividers never
//! descend) when they were before (checked: btree_key_order). (A page
//! rebuilt whole, or a parent whose dividers were spliced in from its
//! children, is not checked for order: its cells may come from a damaged
//! page whose keys were already out of order.)
//!
//! A page rebuilt whole (a node written packed) must pass the first invariant
//! every time ([`debug_check`]). A page changed in place is checked only if it
//! passed before the change ([`debug_consistent`], then [`debug_check_kept`]):
//! a damaged page read from a file may stay damaged where the change did not
//! look (SQLite's asserts allow the same, `CORRUPT_DB`), but a change must
//! never break a page that was sound.
//!
//! The check only reads the page, and in release builds it compiles to
//! nothing.

use super::cell;
use super::page::{self, get_u16, PageKind};
use super::Pgno;

/// Fragment bytes a page may hold (SQLite defragments past it).
const MAX_FRAGMENTS: u8 = 60;

/// The first broken invariant of page `pgno` (`data`, `usable` bytes
/// used), if any (see the module doc).
pub(super) fn page_consistency(data: &[u8], pgno: Pgno, usable: usize) -> Result<(), String> {
    let h = page::header(data, pgno).map_err(|_| "unreadable page header".to_string())?;
    let hoff = h.offset;
    let array_end = hoff + h.kind.header_size() + 2 * h.ncells;
    let content = match get_u16(data, hoff + 5) {
        0 => 65536,
        v => v,
    };
    if content < array_end || content > usable {
        return Err(format!("content area starts at {content}, outside {array_end}..={usable}"));
    }
    if data[hoff + 7] > MAX_FRAGMENTS {
        return Err(format!("{} fragment bytes (at most {MAX_FRAGMENTS})", data[hoff + 7]));
    }
    // The freeblock chain, walked here rather than through the code that
    // keeps it (`drop_cell::free_bytes`), which is what is checked.
    let (mut block, mut min, mut hops) = (get_u16(data, hoff + 1), content, 0);
    while block != 0 {
        hops += 1;
        if block < min || block + 4 > usable || hops > usable / 4 {
            return Err(format!("freeblock at {block}: before {min} (out of order, overlapping, or under 4 bytes after the last) or off the page"));
        }
        let size = get_u16(data, block + 2);
        if size < 4 || block + size > usable {
            return Err(format!("freeblock at {block} of {size} bytes"));
        }
        min = block + size + 4;
        block = get_u16(data, block);
    }
    let base = hoff + h.kind.header_size();
    for i in 0..h.ncells {
        let at = get_u16(data, base + 2 * i);
        if at < content || at + super::cell::MIN_CELL > usable {
            return Err(format!("cell {i} at {at}, outside the content area {content}..{usable}"));
        }
    }
    Ok(())
}

/// The first pair of a table page's keys out of order, if any: a leaf's
/// rowids ascend strictly, an interior page's dividers never descend.
fn key_order(data: &[u8], pgno: Pgno, usable: usize) -> Result<(), String> {
    let h = page::header(data, pgno).map_err(|_| "unreadable page header".to_string())?;
    let base = h.offset + h.kind.header_size();
    if matches!(h.kind, PageKind::TableLeaf | PageKind::TableInterior) {
        let mut last: Option<i64> = None;
        for i in 0..h.ncells {
            let at = get_u16(data, base + 2 * i);
            // (A cell that does not parse is the reader's to report as
            // SQLITE_CORRUPT; only the order of readable keys is checked.)
            let Ok(info) = cell::parse_unchecked(h.kind, &data[at..usable], usable as u32) else { continue };
            let leaf = h.kind == PageKind::TableLeaf;
            if last.is_some_and(|l| info.rowid < l || (leaf && info.rowid == l)) {
                return Err(format!("cell {i}'s rowid {} out of order after {last:?}", info.rowid));
            }
            last = Some(info.rowid);
        }
    }
    Ok(())
}

/// Debug builds: whether page `pgno` passes [`page_consistency`] now,
/// before an in-place change (release builds: `false`, nothing read).
#[inline]
pub(super) fn debug_consistent(data: &[u8], pgno: Pgno, usable: usize) -> bool {
    cfg!(debug_assertions) && page_consistency(data, pgno, usable).is_ok() && key_order(data, pgno, usable).is_ok()
}

/// [`debug_check`] after an in-place change of a page that was consistent
/// before it (`was`, from [`debug_consistent`]).
#[inline]
#[track_caller]
pub(super) fn debug_check_kept(data: &[u8], pgno: Pgno, usable: usize, was: bool) {
    if was {
        debug_check(data, pgno, usable);
        #[cfg(debug_assertions)]
        // invariant: btree_key_order
        if let Err(e) = key_order(data, pgno, usable) {
            panic!("B-tree page {pgno} out of key order after an in-place change: {e}");
        }
    }
}

/// Panic (debug builds only) when page `pgno` breaks an invariant of
/// [`page_consistency`]: called right after a B-tree change writes it.
#[inline]
#[track_caller]
pub(super) fn debug_check(data: &[u8], pgno: Pgno, usable: usize) {
    #[cfg(debug_assertions)]
    // invariant: btree_page_consistent
    if let Err(e) = page_consistency(data, pgno, usable) {
        panic!("B-tree page {pgno} inconsistent after a change: {e}");
    }
    #[cfg(not(debug_assertions))]
    let _ = (data, pgno, usable);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::btree::page::{write_node, Node, PageKind};

    fn packed(cells: usize) -> Vec<u8> {
        let mut d = vec![0u8; 1024];
        let node = Node { kind: PageKind::TableLeaf, cells: (0..cells).map(|i| vec![2, i as u8, 0, 0]).collect(), right: 0 };
        write_node(&mut d, 2, &node, 1024);
        d
    }

    #[test]
    fn a_packed_page_is_consistent() {
        assert_eq!(page_consistency(&packed(10), 2, 1024), Ok(()));
    }

    #[test]
    fn each_broken_invariant_is_named() {
        let mut d = packed(10);
        d[7] = 61;
        assert!(page_consistency(&d, 2, 1024).unwrap_err().contains("fragment"));
        let mut d = packed(10);
        // A freeblock before the content area.
        page::put_u16(&mut d, 1, 40);
        assert!(page_consistency(&d, 2, 1024).unwrap_err().contains("freeblock"));
        let mut d = packed(10);
        // Cell 0's pointer in the gap.
        page::put_u16(&mut d, 8, 100);
        assert!(page_consistency(&d, 2, 1024).unwrap_err().contains("cell 0"));
        let mut d = packed(10);
        // Content area start inside the pointer array.
        page::put_u16(&mut d, 5, 10);
        assert!(page_consistency(&d, 2, 1024).unwrap_err().contains("content area"));
    }
}
