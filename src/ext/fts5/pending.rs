//! # Changes not yet flushed to the index
//!
//! Within a transaction, each insert and delete is logged with the tokens
//! it adds or removes; at commit (xSync) the log becomes one new level-0
//! segment, as SQLite does. As in SQLite, a change whose rowid is below
//! the previous one (or a delete of the row just inserted) starts a new
//! segment, so each segment's doclists stay in rowid order; a delete
//! followed by an insert of the same rowid (an UPDATE) shares an entry
//! (delete flag plus the new positions).
//!
//! Savepoints record the log's length and how much of it was already
//! flushed: rolling back to one restores both, as the shadow tables are
//! restored with it.
//!
//! Invariant: `flushed <= ops.len()`, and every mark's lengths are at
//! most the current ones.

use super::codec::{encode, Doclist, Entry, Terms};
use super::config::Config;
use std::collections::BTreeMap;

/// One logged change.
#[derive(Debug, Clone)]
pub struct Op {
    /// The row.
    pub rowid: i64,
    /// A delete (else an insert).
    pub delete: bool,
    /// Tokens per column (empty for UNINDEXED columns).
    pub tokens: Vec<Vec<String>>,
}

/// The log of one connection's table.
#[derive(Debug, Default)]
pub struct Pending {
    /// Changes of the transaction.
    pub ops: Vec<Op>,
    /// How many are in the index already.
    pub flushed: usize,
    /// Savepoints: (number, ops, flushed).
    pub marks: Vec<(i32, usize, usize)>,
    /// `contentless_delete=1`: rows inserted since the last flush that
    /// wrote something (SQLite counts a run that wrote nothing, rows
    /// without tokens, into the next segment's rows, across commits).
    pub carry_rows: u64,
    /// `contentless_delete=1`: tombstones added since the last flush.
    pub tomb_adds: u64,
}

impl Pending {
    /// Forget everything (commit or rollback).
    pub fn clear(&mut self) {
        *self = Pending::default();
    }

    /// Commit: the log is done with, rows still uncounted carry over.
    pub fn commit(&mut self) {
        *self = Pending { carry_rows: self.carry_rows, ..Pending::default() };
    }

    /// xSavepoint.
    pub fn savepoint(&mut self, n: i32) {
        self.marks.retain(|m| m.0 < n);
        self.marks.push((n, self.ops.len(), self.flushed));
    }

    /// xRelease.
    pub fn release(&mut self, n: i32) {
        self.marks.retain(|m| m.0 < n);
    }

    /// xRollbackTo.
    pub fn rollback_to(&mut self, n: i32) {
        if let Some(&(_, ops, flushed)) = self.marks.iter().rev().find(|m| m.0 <= n) {
            self.ops.truncate(ops);
            self.flushed = flushed;
            self.carry_rows = 0;
            self.tomb_adds = 0;
        }
        self.marks.retain(|m| m.0 <= n);
    }

    /// The unflushed changes, split into runs that each make a segment.
    pub fn runs(&self) -> Vec<&[Op]> {
        let ops = &self.ops[self.flushed..];
        let mut out = Vec::new();
        let mut start = 0;
        for i in 1..ops.len() {
            let (p, o) = (&ops[i - 1], &ops[i]);
            let same_row_update = o.rowid == p.rowid && p.delete && !o.delete;
            if o.rowid < p.rowid || (o.rowid == p.rowid && !same_row_update) {
                out.push(&ops[start..i]);
                start = i;
            }
        }
        if start < ops.len() {
            out.push(&ops[start..]);
        }
        out
    }
}

/// The index keys of a token: the main index's, then one per `prefix=`
/// length the token is long enough for.
pub fn keys(cfg: &Config, token: &str) -> Vec<Vec<u8>> {
    let mut out = Vec::with_capacity(1 + cfg.prefix.len());
    let mut k = vec![b'0'];
    k.extend_from_slice(token.as_bytes());
    out.push(k);
    for (i, &n) in cfg.prefix.iter().enumerate() {
        if let Some((end, _)) = token.char_indices().nth(n as usize - 1) {
            let end = end + token[end..].chars().next().map_or(0, |c| c.len_utf8());
            let mut k = vec![b'1' + i as u8];
            k.extend_from_slice(&token.as_bytes()[..end]);
            out.push(k);
        }
    }
    out
}

/// The segment content of one run.
pub fn terms(cfg: &Config, run: &[Op]) -> Terms {
    // term → rowid → (delete, column → positions)
    type Cols = BTreeMap<usize, Vec<usize>>;
    let mut map: BTreeMap<Vec<u8>, BTreeMap<i64, (bool, Cols)>> = BTreeMap::new();
    for op in run {
        for (c, toks) in op.tokens.iter().enumerate() {
            for (p, t) in toks.iter().enumerate() {
                for k in keys(cfg, t) {
                    let e = map.entry(k).or_default().entry(op.rowid).or_default();
                    if op.delete {
                        e.0 = true;
                    } else {
                        e.1.entry(c).or_default().push(p);
                    }
                }
            }
        }
    }
    map.into_iter()
        .map(|(t, dl)| {
            let dl: Doclist = dl.into_iter().map(|(r, (d, cols))| (r, Entry { delete: d, poslist: encode(cfg.detail, &cols) })).collect();
            (t, dl)
        })
        .collect()
}
