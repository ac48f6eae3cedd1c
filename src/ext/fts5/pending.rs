//! # Changes not yet flushed to the index
//!
//! Within a transaction, each insert and delete is logged with the tokens
//! it adds or removes, and added to a hash of term -> rows with their
//! position lists, as SQLite's pending hash; at commit (xSync), or sooner
//! (see below), the hash becomes one new level-0 segment, as SQLite does.
//! As in SQLite, a change whose rowid is below the previous one (or a
//! delete of the row just inserted) starts a new segment (the writer
//! flushes first), so each segment's doclists stay in rowid order; a delete
//! followed by an insert of the same rowid (an UPDATE) shares an entry
//! (delete flag plus the new positions).
//!
//! Savepoints record the log's length and how much of it was already
//! flushed: rolling back to one restores both, as the shadow tables are
//! restored with it. Flushed changes no savepoint may need again are
//! dropped from the log ([`Pending::drop_flushed`]), so a long
//! transaction keeps only about one flush worth of tokens in memory.
//!
//! The log also keeps SQLite's estimate of the size of its in-memory
//! hash for the unflushed changes ([`Pending::bytes`]: per term, a
//! 48-byte entry header, the key, and the doclist as it grows, a row's
//! position-list size counted as one byte until the next row of the
//! term), so that the writer flushes when it passes `hashsize` at the
//! same rows SQLite does, and segments get the same boundaries.
//!
//! Invariant: `flushed <= ops.len()`, and every mark's lengths are at
//! most the current ones (checked: fts5_pending_marks). `bytes` is the
//! estimate of `ops[flushed..]`.

use super::codec::{encode, Doclist, Entry, Flat, Terms, PRESENT};
use super::config::{Config, Detail};
use crate::util::cold_sort::map_from;
use crate::util::fast_hash::FastMap;
use std::collections::BTreeMap;

/// One logged change.
#[derive(Debug, Clone)]
pub struct Op {
    /// The row.
    pub rowid: i64,
    /// A delete (else an insert).
    pub delete: bool,
    /// Tokens per column with their positions (empty for UNINDEXED
    /// columns; colocated tokens share a position).
    pub tokens: Vec<ColTokens>,
}

/// One column's tokens, each with its position (ascending, a position
/// held by several tokens when a tokenizer reports colocated ones).
pub type ColTokens = Vec<(usize, String)>;

/// The positions a column's tokens take: its size in `%_docsize`.
pub fn size_of(col: &[(usize, String)]) -> usize {
    col.last().map_or(0, |(p, _)| p + 1)
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
    /// SQLite's estimate of its pending hash's size for `ops[flushed..]`.
    pub bytes: usize,
    /// The unflushed changes by term, as SQLite's hash holds them (when
    /// they are one run, as the writer keeps them).
    /// (A fixed, fast hash, as SQLite's: content crafted for collisions
    /// only slows its own writes.)
    hash: FastMap<Vec<u8>, HashTerm>,
    /// The `hashsize` setting, read once per transaction.
    pub hashsize: Option<usize>,
}

/// One term's pending rows, and the state SQLite's hash entry keeps.
#[derive(Debug, Clone)]
struct HashTerm {
    /// Its rows before the last, in the order written, with their
    /// position lists; the last row's list grows at the end of
    /// `rows.bytes` (it is closed when the next row starts, or at a
    /// flush).
    rows: Flat,
    /// Bytes SQLite's entry holds (header, key, doclist so far).
    data: usize,
    /// The last row written.
    rowid: i64,
    /// Its column and position last written.
    col: i64,
    pos: i64,
    /// The last row is a delete.
    del: bool,
}

/// The size of SQLite's hash entry header (`Fts5HashEntry`, 64-bit).
const HASH_ENTRY_HEADER: usize = 48;

impl Pending {
    /// Forget everything (commit or rollback).
    pub fn clear(&mut self) {
        *self = Pending::default();
    }

    /// Commit: the log is done with, rows still uncounted carry over.
    pub fn commit(&mut self) {
        *self = Pending { carry_rows: self.carry_rows, ..Pending::default() };
    }

    /// Log `op`, growing the size estimate as SQLite's hash grows.
    pub fn push(&mut self, cfg: &Config, op: Op) {
        self.account(cfg, &op);
        self.ops.push(op);
        // invariant: fts5_pending_marks
        debug_assert!(self.marks_consistent());
    }

    /// Whether the flushed count and the savepoint marks fit the log.
    fn marks_consistent(&self) -> bool {
        self.flushed <= self.ops.len() && self.marks.iter().all(|&(_, ops, flushed)| flushed <= ops && ops <= self.ops.len() && flushed <= self.flushed)
    }

    /// Everything logged is in the index now: the estimate restarts, and
    /// what no savepoint can roll back to is dropped.
    pub fn mark_flushed(&mut self) {
        self.flushed = self.ops.len();
        self.bytes = 0;
        self.hash.clear();
        self.drop_flushed();
    }

    /// Drop the flushed changes no savepoint needs (a rollback to a
    /// savepoint needs the changes that were unflushed when it was set).
    pub fn drop_flushed(&mut self) {
        let keep_from = self.marks.iter().map(|m| m.2).min().unwrap_or(self.flushed).min(self.flushed);
        if keep_from == 0 {
            return;
        }
        self.ops.drain(..keep_from);
        self.flushed -= keep_from;
        for m in &mut self.marks {
            m.1 -= keep_from;
            m.2 -= keep_from;
        }
        // invariant: fts5_pending_marks
        debug_assert!(self.marks_consistent());
    }

    /// Add `op`'s writes to the hash: per token, the main index's key
    /// and each prefix index's, in column and position order (a delete
    /// writes its tokens with no column).
    fn account(&mut self, cfg: &Config, op: &Op) {
        let mut key = Vec::new();
        for (c, toks) in op.tokens.iter().enumerate() {
            for &(p, ref t) in toks {
                let at = if op.delete { None } else { Some((c as i64, p as i64)) };
                key.clear();
                key.push(b'0');
                key.extend_from_slice(t.as_bytes());
                self.account_write(cfg.detail, &key, op.rowid, at);
                for (i, &n) in cfg.prefix.iter().enumerate() {
                    if let Some(end) = prefix_end(t, n) {
                        key.clear();
                        key.push(b'1' + i as u8);
                        key.extend_from_slice(&t.as_bytes()[..end]);
                        self.account_write(cfg.detail, &key, op.rowid, at);
                    }
                }
            }
        }
    }

    /// One write of SQLite's hash: term `key`, row `rowid`, at (column,
    /// position) or a delete marker. The row's position list grows as
    /// SQLite's does, and with it the size estimate.
    fn account_write(&mut self, detail: Detail, key: &[u8], rowid: i64, at: Option<(i64, i64)>) {
        let vlen = |v: u64| super::codec::len(v);
        let mut new_pos = detail == Detail::Full;
        let before;
        let e = match self.hash.get_mut(key) {
            Some(e) => {
                before = e.data;
                if rowid != e.rowid {
                    // The previous row's position-list size is final.
                    let last = e.rows.bytes.len() - e.rows.rows.last().map_or(0, |r| r.2);
                    if detail == Detail::None {
                        e.data += usize::from(e.del) + usize::from(e.del && last > 0);
                    } else {
                        e.data += vlen(last as u64 * 2 + u64::from(e.del)) - 1;
                    }
                    e.data += vlen(rowid.wrapping_sub(e.rowid) as u64);
                    e.rows.close_row(e.rowid, e.del);
                    e.rowid = rowid;
                    e.del = false;
                    new_pos = true;
                    if detail != Detail::None {
                        e.data += 1;
                        e.col = if detail == Detail::Full { 0 } else { -1 };
                        e.pos = 0;
                    }
                }
                e
            }
            None => {
                before = 0;
                let mut data = HASH_ENTRY_HEADER + key.len() + vlen(rowid as u64);
                let mut col = 0;
                if detail != Detail::None {
                    data += 1;
                    col = if detail == Detail::Full { 0 } else { -1 };
                }
                let e = HashTerm { rows: Flat::default(), data, rowid, col, pos: 0, del: false };
                self.hash.entry(key.to_vec()).or_insert(e)
            }
        };
        let row_start = e.rows.rows.last().map_or(0, |r| r.2);
        let pl = &mut e.rows.bytes;
        let len0 = pl.len();
        match at {
            None => e.del = true,
            Some(_) if detail == Detail::None => {
                if len0 == row_start {
                    pl.extend_from_slice(PRESENT);
                }
            }
            Some((col, mut pos)) => {
                if col != e.col {
                    if detail == Detail::Full {
                        pl.push(1);
                        super::codec::put(pl, col as u64);
                        e.pos = 0;
                    } else {
                        new_pos = true;
                        pos = col;
                    }
                    e.col = col;
                }
                if new_pos {
                    super::codec::put(pl, (pos - e.pos + 2) as u64);
                    e.pos = pos;
                }
            }
        }
        if detail != Detail::None {
            e.data += pl.len() - len0;
        }
        self.bytes = self.bytes + e.data - before;
    }

    /// The hash's content as a segment's (one run: rows in rowid order),
    /// terms in order, the hash emptied.
    pub fn take_terms(&mut self) -> Vec<(Vec<u8>, Flat)> {
        let mut out: Vec<(Vec<u8>, Flat)> = self
            .hash
            .drain()
            .map(|(k, mut t)| {
                t.rows.close_row(t.rowid, t.del);
                (k, t.rows)
            })
            .collect();
        // (Each entry is a key and two vectors: sorting moves little.)
        out.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        self.bytes = 0;
        out
    }

    /// Recompute the estimate from the unflushed log (after a rollback).
    fn reaccount(&mut self, cfg: &Config) {
        self.bytes = 0;
        self.hash.clear();
        let ops = std::mem::take(&mut self.ops);
        for op in &ops[self.flushed..] {
            self.account(cfg, op);
        }
        self.ops = ops;
    }

    /// xSavepoint.
    pub fn savepoint(&mut self, n: i32) {
        self.marks.retain(|m| m.0 < n);
        self.marks.push((n, self.ops.len(), self.flushed));
        // invariant: fts5_pending_marks
        debug_assert!(self.marks_consistent());
    }

    /// xRelease.
    pub fn release(&mut self, n: i32) {
        self.marks.retain(|m| m.0 < n);
    }

    /// xRollbackTo.
    pub fn rollback_to(&mut self, cfg: &Config, n: i32) {
        if let Some(&(_, ops, flushed)) = self.marks.iter().rev().find(|m| m.0 <= n) {
            self.ops.truncate(ops);
            self.flushed = flushed;
            self.carry_rows = 0;
            self.tomb_adds = 0;
            self.reaccount(cfg);
        }
        self.marks.retain(|m| m.0 <= n);
        // invariant: fts5_pending_marks
        debug_assert!(self.marks_consistent());
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
        if let Some(end) = prefix_end(token, n) {
            let mut k = vec![b'1' + i as u8];
            k.extend_from_slice(&token.as_bytes()[..end]);
            out.push(k);
        }
    }
    out
}

/// The byte length of the first `n` characters of `token`, None when it
/// is shorter.
fn prefix_end(token: &str, n: u32) -> Option<usize> {
    let (start, ch) = token.char_indices().nth((n as usize).checked_sub(1)?)?;
    Some(start + ch.len_utf8())
}

/// The segment content of one run.
pub fn terms(cfg: &Config, run: &[Op]) -> Terms {
    // term → rowid → (delete, column → positions)
    type Cols = BTreeMap<usize, Vec<usize>>;
    let mut map: BTreeMap<Vec<u8>, BTreeMap<i64, (bool, Cols)>> = BTreeMap::new();
    for op in run {
        for (c, toks) in op.tokens.iter().enumerate() {
            for &(p, ref t) in toks {
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
    map_from(map.into_iter().map(|(t, dl)| {
        let dl: Doclist = map_from(dl.into_iter().map(|(r, (d, cols))| (r, Entry { delete: d, poslist: encode(cfg.detail, &cols) })));
        (t, dl)
    }))
}
