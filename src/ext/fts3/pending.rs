//! # Pending terms: the index of documents not yet written to a segment
//!
//! Inserts and deletes are tokenized into an in-memory map from term to
//! doclist entries (one map per index: the main one, then each prefix
//! index), written out as one new level-0 segment per index when the
//! transaction syncs, a savepoint is opened, the data grows past 1 MiB,
//! or a document arrives out of docid order (doclists are written
//! sorted), as SQLite does. A deletion adds, for each term of the old
//! document, an entry without positions (the marker that hides the
//! document in older segments); an update deletes then inserts the same
//! docid, the insert filling the marker's positions.
//!
//! Invariant: within a term, entries are in ascending docid order with
//! no docid twice (checked: fts3_pending_order). All pending entries
//! share one language id ([`Pending::needs_flush`] asks for a flush
//! before another language's document).

use super::doclist::Entry;
use super::varint;
use std::collections::BTreeMap;

/// The pending-terms buffer of one table.
#[derive(Default)]
pub struct Pending {
    /// Per index: term to entries.
    pub terms: Vec<BTreeMap<Vec<u8>, Vec<Entry>>>,
    /// The language of every pending entry.
    pub langid: i64,
    /// The last docid added, and whether it was a deletion.
    pub last: Option<(i64, bool)>,
    /// Rough size in bytes (SQLite flushes past 1 MiB).
    pub bytes: usize,
    /// Leaves written from this buffer since the transaction began
    /// (what `automerge` sizes its work by); `clear` keeps it.
    pub leaves_added: i64,
}

/// What SQLite counts per pending term for its hash entry.
const HASH_ENTRY: usize = 40;

/// The bytes a pending doclist grows by when `docid` starts in it: the
/// docid's distance from the previous one, and the end of the previous
/// entry's positions.
fn new_doc_bytes(list: &[Entry], docid: i64) -> usize {
    match list.last() {
        Some(e) if e.docid == docid => 0,
        Some(e) => 1 + varint::len(docid.wrapping_sub(e.docid)),
        None => varint::len(docid),
    }
}

/// SQLite's limit on pending data before it flushes.
pub const MAX_PENDING: usize = 1 << 20;

impl Pending {
    /// Whether nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.terms.iter().all(|t| t.is_empty())
    }

    /// Drop everything (rollback).
    pub fn clear(&mut self) {
        self.terms.clear();
        self.last = None;
        self.bytes = 0;
    }

    /// Whether adding `docid` (a deletion if `delete`) in `langid` needs
    /// the buffer written out first.
    pub fn needs_flush(&self, docid: i64, langid: i64, delete: bool) -> bool {
        let _ = delete;
        if self.is_empty() {
            return false;
        }
        match self.last {
            Some((d, was_delete)) => docid < d || (docid == d && !was_delete) || self.langid != langid || self.bytes > MAX_PENDING,
            None => self.langid != langid,
        }
    }

    fn index(&mut self, i: usize) -> &mut BTreeMap<Vec<u8>, Vec<Entry>> {
        while self.terms.len() <= i {
            self.terms.push(BTreeMap::new());
        }
        &mut self.terms[i]
    }

    /// Record that `docid` holds `term` at `pos` in `col` (index `i`).
    ///
    /// `bytes` follows SQLite's estimate of its pending data: per term,
    /// the encoded doclist so far, the term, and 40 bytes of hash entry.
    pub fn add(&mut self, i: usize, term: &[u8], docid: i64, col: usize, pos: i64) {
        let (e, mut added) = self.doc_entry(i, term, docid);
        // A new column is marked (1 and its number); a position is its
        // distance from the last one in the column, plus 2.
        let last = match e.cols.last() {
            Some((c, ps)) if *c == col => ps.last().copied(),
            _ => {
                if col > 0 {
                    added += 1 + varint::len(col as i64);
                }
                None
            }
        };
        if last != Some(pos) {
            added += varint::len(pos - last.unwrap_or(0) + 2);
        }
        e.push(col, pos);
        self.bytes += added;
    }

    /// Record that `docid` no longer holds `term` (index `i`).
    pub fn delete(&mut self, i: usize, term: &[u8], docid: i64) {
        let (_, added) = self.doc_entry(i, term, docid);
        self.bytes += added;
    }

    /// `docid`'s entry in `term`'s doclist (index `i`), made if new, and
    /// the bytes SQLite's estimate adds for what was made.
    fn doc_entry(&mut self, i: usize, term: &[u8], docid: i64) -> (&mut Entry, usize) {
        let mut added = 0;
        let map = self.index(i);
        if !map.contains_key(term) {
            added += term.len() + HASH_ENTRY;
            map.insert(term.to_vec(), Vec::new());
        }
        let list = map.get_mut(term).expect("the term's doclist was just made");
        added += new_doc_bytes(list, docid);
        if list.last().is_none_or(|e| e.docid != docid) {
            // invariant: fts3_pending_order
            debug_assert!(list.last().is_none_or(|e| e.docid < docid), "pending docid {docid} out of order");
            list.push(Entry { docid, cols: Vec::new() });
        }
        (list.last_mut().expect("the docid's entry was just made"), added)
    }

    /// Note the document just added.
    pub fn mark(&mut self, docid: i64, langid: i64, delete: bool) {
        self.langid = langid;
        self.last = Some((docid, delete));
    }
}
