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
//! Invariants: within a term, entries are in ascending docid order with
//! no docid twice; all pending entries share one language id.

use super::doclist::Entry;
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
    pub fn add(&mut self, i: usize, term: &[u8], docid: i64, col: usize, pos: i64) {
        let mut added = 2;
        let list = self.index(i).entry(term.to_vec()).or_default();
        if list.last().is_none_or(|e| e.docid != docid) {
            list.push(Entry { docid, cols: Vec::new() });
            added += term.len() + 10;
        }
        if let Some(e) = list.last_mut() {
            e.push(col, pos);
        }
        self.bytes += added;
    }

    /// Record that `docid` no longer holds `term` (index `i`).
    pub fn delete(&mut self, i: usize, term: &[u8], docid: i64) {
        let mut added = 0;
        let list = self.index(i).entry(term.to_vec()).or_default();
        if list.last().is_none_or(|e| e.docid != docid) {
            list.push(Entry { docid, cols: Vec::new() });
            added = term.len() + 10;
        }
        self.bytes += added;
    }

    /// Note the document just added.
    pub fn mark(&mut self, docid: i64, langid: i64, delete: bool) {
        self.langid = langid;
        self.last = Some((docid, delete));
    }
}
