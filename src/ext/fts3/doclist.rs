//! # Doclists: which documents hold a term, and where
//!
//! The on-disk form (fts3.txt §9.4): per document a docid (the first
//! literal, each next one a delta), then position lists: column 0's
//! first, other columns introduced by the byte 0x01 and the column number,
//! each position stored as its distance from the previous one plus 2;
//! the byte 0x00 ends the document. A document with no position list at
//! all is a deletion marker: a newer segment saying the document left.
//! FTS4's `order=DESC` stores the documents in descending docid order,
//! the deltas being previous minus current.
//!
//! Invariants: [`Entry::cols`] is sorted by column with no empty list and
//! positions ascending (checked: fts3_doclist_order); [`Doclist::entries`] is
//! sorted by docid in the list's order with no docid twice.

use super::varint;

/// One document of a doclist: its docid and its positions per column
/// (empty: a deletion marker).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Entry {
    /// The document.
    pub docid: i64,
    /// `(column, positions)`, by column.
    pub cols: Vec<(usize, Vec<i64>)>,
}

impl Entry {
    /// Whether this marks a deleted document.
    pub fn is_delete(&self) -> bool {
        self.cols.is_empty()
    }

    /// Add position `pos` in column `col` (positions arrive in token
    /// order, so columns and positions ascend).
    pub fn push(&mut self, col: usize, pos: i64) {
        match self.cols.last_mut() {
            Some((c, p)) if *c == col => {
                if p.last() != Some(&pos) {
                    // invariant: fts3_doclist_order
                    debug_assert!(p.last().is_none_or(|l| *l < pos));
                    p.push(pos)
                }
            }
            _ => self.cols.push((col, vec![pos])),
        }
    }
}

/// A decoded doclist.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Doclist {
    /// Documents in storage order.
    pub entries: Vec<Entry>,
}

/// Encode one document's position lists (including the final 0x00).
pub fn encode_positions(out: &mut Vec<u8>, cols: &[(usize, Vec<i64>)]) {
    for (c, ps) in cols {
        if *c != 0 {
            out.push(1);
            varint::put(out, *c as i64);
        }
        let mut prev = 0;
        for p in ps {
            varint::put(out, p - prev + 2);
            prev = *p;
        }
    }
    out.push(0);
}

/// Encode `entries` (already in storage order).
pub fn encode(entries: &[Entry], desc: bool) -> Vec<u8> {
    let mut out = Vec::new();
    let mut prev: Option<i64> = None;
    for e in entries {
        let d = match prev {
            None => e.docid,
            Some(p) if desc => p.wrapping_sub(e.docid),
            Some(p) => e.docid.wrapping_sub(p),
        };
        varint::put(&mut out, d);
        prev = Some(e.docid);
        encode_positions(&mut out, &e.cols);
    }
    out
}

/// Decode a doclist; `None` when it is malformed. Read as leniently as
/// SQLite reads it: a doclist must end with a zero byte, and a position
/// list that runs into the doclist's end ends there (so the one-byte
/// doclist `00` is docid 0 with no positions, `01` is damaged).
pub fn decode(buf: &[u8], desc: bool) -> Option<Doclist> {
    if buf.last().is_some_and(|&b| b != 0) {
        return None;
    }
    let mut pos = 0;
    let mut entries = Vec::new();
    let mut prev: Option<i64> = None;
    while pos < buf.len() {
        let d = varint::get(buf, &mut pos)?;
        let docid = match prev {
            None => d,
            Some(p) if desc => p.wrapping_sub(d),
            Some(p) => p.wrapping_add(d),
        };
        prev = Some(docid);
        let mut e = Entry { docid, cols: Vec::new() };
        let mut col = 0usize;
        let mut cur: Vec<i64> = Vec::new();
        let mut last = 0i64;
        while pos < buf.len() {
            let v = varint::get(buf, &mut pos)?;
            match v {
                0 => break,
                1 => {
                    if !cur.is_empty() {
                        e.cols.push((col, std::mem::take(&mut cur)));
                    }
                    let c = varint::get(buf, &mut pos)?;
                    if c < 0 || (c as usize) <= col && !e.cols.is_empty() {
                        return None;
                    }
                    col = c as usize;
                    last = 0;
                }
                v => {
                    last += v - 2;
                    cur.push(last);
                }
            }
        }
        if !cur.is_empty() {
            e.cols.push((col, cur));
        }
        entries.push(e);
    }
    Some(Doclist { entries })
}

/// Merge doclists of one term from segments oldest first: a newer
/// segment's entry for a docid replaces older ones. Deletion markers are
/// kept when `keep_deletes` (the result is not the oldest data).
pub fn merge_versions(lists: Vec<Vec<Entry>>, keep_deletes: bool, desc: bool) -> Vec<Entry> {
    let mut map: std::collections::BTreeMap<i64, Entry> = std::collections::BTreeMap::new();
    for l in lists {
        for e in l {
            map.insert(e.docid, e);
        }
    }
    let it = map.into_values().filter(|e| keep_deletes || !e.is_delete());
    if desc {
        let mut v: Vec<Entry> = it.collect();
        v.reverse();
        v
    } else {
        it.collect()
    }
}
