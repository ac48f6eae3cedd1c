//! # Copying a run of leaf cells onto a tree's right edge
//!
//! VACUUM copies every tree entry by entry, in key order, into an empty
//! tree of a fresh database, so each entry is an append to the new tree's
//! last leaf. SQLite does this with its ordinary insert and the append
//! flag; done one [`Cursor::insert`] at a time here, each append pays a
//! B-tree operation (undo bookkeeping, sequence bumps, the leaf located
//! and its header parsed again) that is several times the work of
//! writing the cell. [`Cursor::append_leaf_run`] instead takes the cells
//! of the source cursor's leaf from its current entry on and writes as
//! many as fit into the destination's last leaf in one operation, each
//! exactly as the one-at-a-time insert would (the cell built from the
//! payload into the gap above the pointer array, a pointer appended), so
//! the file's bytes are the same; the first cell that does not fit (or
//! overflows, or is out of order) is left to [`Cursor::insert`], which
//! balances.
//!
//! Invariant: a run is only written onto the tree's last leaf, when the
//! destination cursor is on its last entry and the leaf has no freeblock (an
//! insert there would then take the gap as well), and every entry of the run is
//! greater than the one before it (the cursor's entry first) (checked:
//! append_run_order).

use super::page::{self, PageKind};
use super::rowid_seek::{cell_start, varint};
use super::{Btree, Cursor, CursorState};
use crate::error::Result;
use crate::value::varint::{put_varint, varint_len};
use crate::Poll;
use std::cmp::Ordering;

/// One source cell of a run: its rowid (table trees) and where its
/// (wholly local) payload lies on the source page.
#[derive(Clone, Copy)]
struct RunCell {
    rowid: i64,
    at: usize,
    size: usize,
}

impl Cursor {
    /// Append entries of `from` (a cursor on `src`, on an entry not yet
    /// copied) to this writable cursor's tree on `dst`, from `from`'s
    /// current entry to the end of its leaf or of the room on this
    /// cursor's leaf, in one B-tree operation. Returns how many were
    /// appended: then `from` is on the last of them and this cursor on its
    /// copy. 0 when the run does not apply (see the module doc) or a page
    /// is not at hand: the caller inserts the entry itself.
    pub fn append_leaf_run(&mut self, dst: &mut Btree, from: &mut Cursor, src: &Btree) -> Result<usize> {
        let table = self.key_info.is_none();
        if !self.writable
            || table != from.key_info.is_none()
            || self.state != CursorState::Valid
            || from.state != CursorState::Valid
            || !self.fresh(dst)
            || !from.fresh(src)
            || dst.text_encoding.is_utf16()
            || src.text_encoding.is_utf16()
        {
            return Ok(0);
        }
        let (Some(to_top), Some(from_top)) = (self.path.last().copied(), from.path.last().copied()) else { return Ok(0) };
        let leaf_kind = if table { PageKind::TableLeaf } else { PageKind::IndexLeaf };
        // The source cells, as far as the destination leaf has room.
        let Ok(sdata) = src.pager.page(from_top.pgno) else {
            src.pager.take_missing();
            return Ok(0);
        };
        let Ok(sh) = page::header(sdata, from_top.pgno) else { return Ok(0) };
        let Ok(ddata) = dst.pager.page(to_top.pgno) else {
            dst.pager.take_missing();
            return Ok(0);
        };
        let Ok(dh) = page::header(ddata, to_top.pgno) else { return Ok(0) };
        if sh.kind != leaf_kind || dh.kind != leaf_kind || to_top.idx + 1 != dh.ncells || page::get_u16(ddata, dh.offset + 1) != 0 {
            return Ok(0);
        }
        let interior = if table { PageKind::TableInterior } else { PageKind::IndexInterior };
        if !self.on_known_last_leaf(dst) && !matches!(dst.on_edge_of(&self.path, true, interior), Ok(true)) {
            dst.pager.take_missing();
            return Ok(0);
        }
        let (s_usable, d_usable) = (src.usable() as usize, dst.usable() as usize);
        let d_max_local = super::cell::max_local(table, d_usable as u32);
        let s_max_local = super::cell::max_local(table, s_usable as u32);
        let d_ptrs = dh.offset + dh.kind.header_size();
        let mut ptr_end = d_ptrs + 2 * dh.ncells;
        let mut top = match page::get_u16(ddata, dh.offset + 5) {
            0 => 65536,
            v => v,
        };
        if top > d_usable || top < ptr_end {
            return Ok(0);
        }
        let s_ptrs = sh.offset + sh.kind.header_size();
        let ki = self.key_info.as_deref();
        let mut cells = Vec::with_capacity(sh.ncells.saturating_sub(from_top.idx));
        let mut last_rowid = self.rowid;
        let mut prev: &[u8] = &self.key;
        for i in from_top.idx..sh.ncells {
            if dh.ncells + cells.len() >= 0xffff {
                break;
            }
            let Ok(off) = cell_start(sdata, s_ptrs, sh.ncells, i, s_usable) else { break };
            let cell = &sdata[off..s_usable];
            let Ok((size, n)) = varint(cell) else { break };
            let mut pos = n;
            let mut rowid = 0;
            if table {
                let Ok((r, n)) = varint(&cell[pos..]) else { break };
                rowid = r as i64;
                pos += n;
            }
            let size = size as usize;
            if size > s_max_local || size > d_max_local || pos + size > cell.len() {
                break;
            }
            let payload = &cell[pos..pos + size];
            // (In key order, or the general insert places it.)
            // invariant: append_run_order
            match ki {
                None if rowid <= last_rowid => break,
                Some(ki) if !matches!(crate::value::record::compare_records_in(payload, prev, ki, dst.text_encoding), Ok(Ordering::Greater)) => break,
                _ => {}
            }
            let len = (varint_len(size as u64) + if table { varint_len(rowid as u64) } else { 0 } + size).max(super::cell::MIN_CELL);
            if top - ptr_end < len + 2 {
                break;
            }
            top -= len;
            ptr_end += 2;
            last_rowid = rowid;
            prev = payload;
            cells.push(RunCell { rowid, at: off + pos, size });
        }
        let n = cells.len();
        if n == 0 {
            return Ok(0);
        }
        let root = self.root;
        let base = dh.ncells;
        let written = dst.run_write_in(Some(root), |bt| {
            // (Nothing fails after the page is taken: it is the
            // operation's last change.)
            let usable = bt.usable() as usize;
            let d = bt.pager.page_mut_last(to_top.pgno)?;
            let was = super::page_check::debug_consistent(d, to_top.pgno, usable);
            let mut content = match page::get_u16(d, dh.offset + 5) {
                0 => 65536,
                v => v,
            };
            for (k, c) in cells.iter().enumerate() {
                let size_len = varint_len(c.size as u64);
                let rowid_len = if table { varint_len(c.rowid as u64) } else { 0 };
                let encoded = size_len + rowid_len + c.size;
                let len = encoded.max(super::cell::MIN_CELL);
                content -= len;
                let cell = &mut d[content..content + len];
                put_varint(&mut cell[..size_len], c.size as u64);
                if table {
                    put_varint(&mut cell[size_len..size_len + rowid_len], c.rowid as u64);
                }
                cell[size_len + rowid_len..encoded].copy_from_slice(&sdata[c.at..c.at + c.size]);
                cell[encoded..].fill(0);
                let p = d_ptrs + 2 * (base + k);
                d[p..p + 2].copy_from_slice(&(content as u16).to_be_bytes());
            }
            d[dh.offset + 3..dh.offset + 5].copy_from_slice(&((base + n) as u16).to_be_bytes());
            debug_assert!(content >= d_ptrs + 2 * (base + n), "a run overlaps the pointer array");
            d[dh.offset + 5..dh.offset + 7].copy_from_slice(&(content as u16).to_be_bytes());
            super::page_check::debug_check_kept(d, to_top.pgno, usable, was);
            Ok(())
        });
        let Ok(Poll::Ready(())) = written else {
            dst.pager.take_missing();
            return written.map(|_| 0);
        };
        let last = cells[n - 1];
        let record = &sdata[last.at..last.at + last.size];
        // This cursor: on the last copy, its leaf still the tree's last.
        if let Some(t) = self.path.last_mut() {
            t.idx = base + n - 1;
        }
        self.rowid = last.rowid;
        self.key.clear();
        if !table {
            self.key.extend_from_slice(record);
        }
        self.payload_valid = false;
        self.header.reset();
        self.seek_spot = None;
        self.hint = false;
        self.seq = dst.seq;
        self.note_last_leaf(dst);
        // The source cursor: on the last entry copied.
        if let Some(t) = from.path.last_mut() {
            t.idx = from_top.idx + n - 1;
        }
        from.rowid = last.rowid;
        from.payload_valid = false;
        from.key.clear();
        if !table {
            from.key.extend_from_slice(record);
        }
        from.header.reset();
        Ok(n)
    }
}
