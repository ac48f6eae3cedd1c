//! # The varints and doclist entries of FTS5's index records
//!
//! Index records use SQLite's 1–9 byte varint (`FORMAT.md`). A doclist
//! entry is one row's part of a term's doclist: the rowid, the delete
//! flag and the encoded position list. A position list is the positions
//! of the term in column 0, then for each later column with hits a byte
//! 1, the column number and its positions; each position is written as
//! `position - previous + 2` (the first previous 0), so 0 and 1 stay free
//! as markers.
//!
//! Under `detail=column` the position list holds the row's columns
//! holding the term, encoded as positions are (`column - previous + 2`).
//! Under `detail=none` there is none: an entry is its rowid, then 0x00
//! when the delete flag is set, then a second 0x00 when the row (deleted
//! in older segments) also holds the term now; in memory such an entry
//! carries [`PRESENT`] as its position list, so that "the row holds the
//! term" is `!poslist.is_empty()` in every mode.
//!
//! Invariant: [`Entry::poslist`] is always a well-formed position list of the
//! table's detail mode (empty only for a pure delete) (checked:
//! fts5_poslist_order).

use crate::error::{Error, Result};
use crate::value::varint::{read_varint, write_varint};
use std::collections::BTreeMap;

/// What the index records of each token occurrence (`detail=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Detail {
    /// Rowid, column and position.
    #[default]
    Full,
    /// Rowid and column.
    Column,
    /// Rowid only.
    None,
}

/// Append the varint of `v`. (Most varints of doclists and position
/// lists are one byte: written here without the general encoder.)
#[inline]
pub fn put(out: &mut Vec<u8>, v: u64) {
    if v < 0x80 {
        out.push(v as u8);
    } else {
        write_varint(out, v);
    }
}

/// The varint at `b[i..]`: (value, next index); corrupt when cut short.
/// (Most varints of position lists and doclists are one byte: read
/// here without the general decoder.)
#[inline]
pub fn get(b: &[u8], i: usize) -> Result<(u64, usize)> {
    match b.get(i) {
        Some(&x) if x < 0x80 => Ok((u64::from(x), i + 1)),
        _ => get_long(b, i),
    }
}

fn get_long(b: &[u8], i: usize) -> Result<(u64, usize)> {
    let (v, n) = read_varint(b.get(i..).ok_or_else(Error::corrupt)?).ok_or_else(Error::corrupt)?;
    Ok((v, i + n))
}

/// Bytes the varint of `v` takes.
pub fn len(v: u64) -> usize {
    crate::value::varint::varint_len(v)
}

/// One row's entry in a term's doclist.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Entry {
    /// The row is deleted (in older segments).
    pub delete: bool,
    /// Its encoded position list.
    pub poslist: Vec<u8>,
}

/// A term's doclist: rowid → entry, in rowid order.
pub type Doclist = BTreeMap<i64, Entry>;

/// A segment's content in memory: term (with its index tag byte) →
/// doclist, in the byte order terms are stored.
pub type Terms = BTreeMap<Vec<u8>, Doclist>;

/// A doclist held flat, as the pending hash, segment reads and merges
/// keep it (no allocation per row): its rows, each (rowid, delete flag,
/// end of its position list in `bytes`; it starts where the row before
/// it ends). Rows are in rowid order unless the segment read is corrupt.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Flat {
    /// (rowid, delete flag, end offset in `bytes`).
    pub rows: Vec<(i64, bool, usize)>,
    /// The position lists, one after another.
    pub bytes: Vec<u8>,
}

impl Flat {
    /// Append a row whose position list is the bytes added to `bytes`
    /// since the last row.
    pub fn close_row(&mut self, rowid: i64, delete: bool) {
        self.rows.push((rowid, delete, self.bytes.len()));
    }

    /// Append a row.
    pub fn push(&mut self, rowid: i64, delete: bool, poslist: &[u8]) {
        self.bytes.extend_from_slice(poslist);
        self.close_row(rowid, delete);
    }

    /// Its rows: (rowid, delete flag, position list).
    pub fn iter(&self) -> impl Iterator<Item = (i64, bool, &[u8])> + '_ {
        let mut start = 0;
        self.rows.iter().map(move |&(r, d, end)| {
            let pl = &self.bytes[start..end];
            start = end;
            (r, d, pl)
        })
    }

    /// Row `i`: (rowid, delete flag, position list).
    pub fn row(&self, i: usize) -> (i64, bool, &[u8]) {
        let start = if i == 0 { 0 } else { self.rows[i - 1].2 };
        let (r, d, end) = self.rows[i];
        (r, d, &self.bytes[start..end])
    }

    /// Whether it has no rows.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// As a map (a later row of the same rowid wins).
    pub fn to_doclist(&self) -> Doclist {
        crate::util::cold_sort::map_from(self.iter().map(|(r, d, pl)| (r, Entry { delete: d, poslist: pl.to_vec() })))
    }

    /// From a map.
    pub fn from_doclist(dl: &Doclist) -> Flat {
        let mut f = Flat::default();
        for (&r, e) in dl {
            f.push(r, e.delete, &e.poslist);
        }
        f
    }
}

/// The position list of column → positions (both ascending).
pub fn poslist(cols: &BTreeMap<usize, Vec<usize>>) -> Vec<u8> {
    let mut pl = Vec::new();
    for (c, positions) in cols {
        if *c > 0 {
            pl.push(1);
            put(&mut pl, *c as u64);
        }
        let mut last = 0;
        for p in positions {
            // invariant: fts5_poslist_order
            debug_assert!(*p >= last);
            put(&mut pl, (p - last + 2) as u64);
            last = *p;
        }
    }
    pl
}

/// The position list of the columns holding a term (`detail=column`).
pub fn column_list(cols: impl IntoIterator<Item = usize>) -> Vec<u8> {
    let mut pl = Vec::new();
    let mut last = 0;
    for c in cols {
        // invariant: fts5_poslist_order
        debug_assert!(pl.is_empty() || c > last);
        put(&mut pl, (c - last + 2) as u64);
        last = c;
    }
    pl
}

/// The stand-in position list of a row holding a term under
/// `detail=none`.
pub const PRESENT: &[u8] = &[0];

/// An entry's position list in `detail` mode, from column → positions.
pub fn encode(detail: Detail, cols: &BTreeMap<usize, Vec<usize>>) -> Vec<u8> {
    match detail {
        _ if cols.is_empty() => Vec::new(),
        Detail::Full => poslist(cols),
        Detail::Column => column_list(cols.keys().copied()),
        Detail::None => PRESENT.to_vec(),
    }
}

/// The columns a `detail=column` position list names, ascending.
pub fn columns(pl: &[u8]) -> Result<Vec<usize>> {
    let mut out = Vec::new();
    let (mut last, mut i) = (0usize, 0usize);
    while i < pl.len() {
        let (v, n) = get(pl, i)?;
        i = n;
        if v < 2 || (!out.is_empty() && v == 2) || v > 1 << 31 {
            return Err(Error::corrupt());
        }
        last += (v - 2) as usize;
        out.push(last);
    }
    Ok(out)
}

/// Decode a position list into (column, position) pairs.
pub fn positions(pl: &[u8]) -> Result<Vec<(usize, usize)>> {
    let mut out = Vec::new();
    append_positions(pl, &mut out)?;
    Ok(out)
}

/// A position list's (column, position) pairs appended to `out`.
pub fn append_positions(pl: &[u8], out: &mut Vec<(usize, usize)>) -> Result<()> {
    let (mut col, mut last, mut i) = (0usize, 0usize, 0usize);
    while i < pl.len() {
        let (v, n) = get(pl, i)?;
        i = n;
        if v == 1 {
            let (c, n) = get(pl, i)?;
            i = n;
            col = c as usize;
            last = 0;
            continue;
        }
        if v < 2 {
            return Err(Error::corrupt());
        }
        last += (v - 2) as usize;
        out.push((col, last));
    }
    Ok(())
}
