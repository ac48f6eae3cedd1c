//! # Changes not yet flushed to the index
//!
//! Within a transaction, each insert and delete adds its tokens to a hash
//! of term -> rows with their position lists, as SQLite's pending hash
//! holds them; the hash becomes one new level-0 segment at commit
//! (xSync), at each savepoint (xSavepoint: SQLite's fts5 writes its
//! pending changes then, observed), when SQLite's estimate of its size
//! passes 'hashsize', or when a change cannot join the rows in it (a
//! rowid below the last one, or the same rowid again after an insert:
//! the writer flushes first), so each segment's doclists are in rowid
//! order; a delete followed by an insert of the same rowid (an UPDATE)
//! shares an entry (delete flag plus the new positions).
//!
//! As every savepoint starts with the hash empty, a rollback to one only
//! empties it (the shadow tables are restored with the savepoint): no
//! change is kept beyond its entries in the hash.
//!
//! The estimate ([`Pending::bytes`]: per term, a 48-byte entry header,
//! the key, and the doclist as it grows, a row's position-list size
//! counted as one byte until the next row of the term) makes the writer
//! flush at the same rows SQLite does, so segments get the same
//! boundaries.
//!
//! The averages record is held here ([`Pending::totals`]) once a write
//! changed it, and written back at commit or a savepoint (with the
//! hash), as SQLite writes it then (observed: neither per row nor at a
//! 'hashsize' flush).
//!
//! A row's tokens are gathered flat ([`RowTokens`]: one buffer for their
//! bytes, no allocation per token) before they reach the hash.
//!
//! Invariant: `last` is None exactly when nothing is pending, and then
//! the hash is empty and `bytes` 0 (checked: fts5_pending_empty).

use super::codec::{Flat, Terms, PRESENT};
use super::config::{Config, Detail};
use super::locale;
use crate::error::Result;
use crate::util::fast_hash::FastMap;
use crate::value::Value;

/// The averages record: rows, then tokens per column.
pub type Totals = (i64, Vec<i64>);

/// One row's tokens, held flat: their bytes one after another in
/// `text`, and per token its column, position and end in `text` (it
/// starts where the one before it ends).
#[derive(Debug, Default)]
pub struct RowTokens {
    text: Vec<u8>,
    toks: Vec<(u32, u32, usize)>,
    /// Positions per column: its size in `%_docsize` (0 for UNINDEXED
    /// columns and NULL).
    pub sizes: Vec<u64>,
}

impl RowTokens {
    /// The tokens of the values `vals` of a row (none for UNINDEXED
    /// columns), replacing what it held; a locale value's text is
    /// tokenized with its locale (`locale.rs`). Colocated tokens share
    /// the position of the token before them.
    pub fn fill(&mut self, cfg: &Config, vals: &[Value]) -> Result<()> {
        self.text.clear();
        self.toks.clear();
        self.sizes.clear();
        for (c, (v, un)) in vals.iter().zip(&cfg.unindexed).enumerate() {
            let mut n = 0u32;
            let (text, toks) = (&mut self.text, &mut self.toks);
            let mut emit = |t: &[u8], colocated: bool| {
                if !colocated || n == 0 {
                    n += 1;
                }
                text.extend_from_slice(t);
                toks.push((c as u32, n - 1, text.len()));
            };
            if !*un {
                match locale::split(cfg, v) {
                    Some((loc, t)) => cfg.tokenizer.each_document(t, Some(loc), &mut emit)?,
                    None => {
                        if let Some(t) = v.as_ref().to_text() {
                            cfg.tokenizer.each_document(&t, None, &mut emit)?;
                        }
                    }
                }
            }
            self.sizes.push(u64::from(n));
        }
        Ok(())
    }

    /// Each token: (column, position, bytes).
    pub fn iter(&self) -> impl Iterator<Item = (usize, usize, &[u8])> + '_ {
        let mut start = 0;
        self.toks.iter().map(move |&(c, p, end)| {
            let t = &self.text[start..end];
            start = end;
            (c as usize, p as usize, t)
        })
    }
}

/// The pending changes of one connection's table.
#[derive(Debug, Default)]
pub struct Pending {
    /// The last change in the hash: its rowid, and whether it was a
    /// delete (None: nothing pending).
    pub last: Option<(i64, bool)>,
    /// Rows inserted into the hash since it was last flushed.
    pub run_rows: u64,
    /// `contentless_delete=1`: rows inserted since the last flush that
    /// wrote something (SQLite counts a run that wrote nothing, rows
    /// without tokens, into the next segment's rows, across commits).
    pub carry_rows: u64,
    /// `contentless_delete=1`: tombstones added since the last flush.
    pub tomb_adds: u64,
    /// SQLite's estimate of its pending hash's size.
    pub bytes: usize,
    /// The pending changes by term, as SQLite's hash holds them.
    /// (A fixed, fast hash, as SQLite's: content crafted for collisions
    /// only slows its own writes.)
    hash: FastMap<Vec<u8>, HashTerm>,
    /// The `hashsize` setting, read once per transaction.
    pub hashsize: Option<usize>,
    /// The averages record as the transaction's writes left it (None:
    /// as `%_data` holds it).
    pub totals: Option<Totals>,
    /// The tokens of the row being written (kept for its buffers).
    pub scratch: RowTokens,
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
    /// Forget everything (rollback).
    pub fn clear(&mut self) {
        *self = Pending::default();
    }

    /// Commit: the hash was flushed, rows still uncounted carry over.
    pub fn commit(&mut self) {
        *self = Pending { carry_rows: self.carry_rows, scratch: std::mem::take(&mut self.scratch), ..Pending::default() };
    }

    /// xRollbackTo: what was written since the savepoint (all that is
    /// pending, and the averages as changed since) is dropped.
    pub fn rollback_to(&mut self) {
        self.drop_run();
        self.carry_rows = 0;
        self.tomb_adds = 0;
        self.totals = None;
    }

    /// Drop the pending changes (their rows are gone, or were written).
    pub fn drop_run(&mut self) {
        self.hash.clear();
        self.bytes = 0;
        self.last = None;
        self.run_rows = 0;
    }

    /// Add row `rowid`'s tokens `toks` (`delete`: the row's removal): per
    /// token, the main index's key and each prefix index's, in column and
    /// position order (a delete writes its tokens with no column).
    pub fn add(&mut self, cfg: &Config, rowid: i64, delete: bool, toks: &RowTokens) {
        // invariant: fts5_pending_empty
        debug_assert!(self.last.is_some() || (self.hash.is_empty() && self.bytes == 0));
        let mut key = Vec::new();
        for (c, p, t) in toks.iter() {
            let at = if delete { None } else { Some((c as i64, p as i64)) };
            key.clear();
            key.push(b'0');
            key.extend_from_slice(t);
            self.account_write(cfg.detail, &key, rowid, at);
            for (i, &n) in cfg.prefix.iter().enumerate() {
                if let Some(end) = prefix_end(t, n) {
                    key.clear();
                    key.push(b'1' + i as u8);
                    key.extend_from_slice(&t[..end]);
                    self.account_write(cfg.detail, &key, rowid, at);
                }
            }
        }
        self.last = Some((rowid, delete));
        self.run_rows += u64::from(!delete);
    }

    /// A `contentless_delete=1` delete of `rowid` (a tombstone, no
    /// index entries): it counts for the rule of which rows share a run.
    pub fn tombstone(&mut self, rowid: i64) {
        self.last = Some((rowid, true));
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

    /// The hash's content as a segment's, terms in order, and the rows
    /// inserted; the hash emptied.
    pub fn take_run(&mut self) -> (Vec<(Vec<u8>, Flat)>, u64) {
        let mut all: Vec<Option<(Vec<u8>, Flat)>> = self
            .hash
            .drain()
            .map(|(k, mut t)| {
                t.rows.close_row(t.rowid, t.del);
                Some((k, t.rows))
            })
            .collect();
        // Sorted by their first 8 bytes (where most terms differ), whole
        // keys compared only on a tie: cheaper than comparing each pair
        // whole, and only the small (prefix, index) pairs move.
        let key = |i: usize| all[i].as_ref().map_or(&[][..], |e| e.0.as_slice());
        let mut order: Vec<(u64, usize)> = (0..all.len())
            .map(|i| {
                let mut b = [0u8; 8];
                let k = key(i);
                let n = k.len().min(8);
                b[..n].copy_from_slice(&k[..n]);
                (u64::from_be_bytes(b), i)
            })
            .collect();
        order.sort_unstable_by(|a, b| a.0.cmp(&b.0).then_with(|| key(a.1).cmp(key(b.1))));
        let out = order.iter().filter_map(|&(_, i)| all[i].take()).collect();
        let rows = self.run_rows;
        self.drop_run();
        (out, rows)
    }

    /// The hash's content, as a segment's (for readers; the hash kept).
    pub fn terms(&self) -> Terms {
        self.hash
            .iter()
            .map(|(k, t)| {
                let mut f = t.rows.clone();
                f.close_row(t.rowid, t.del);
                (k.clone(), f.to_doclist())
            })
            .collect()
    }
}

/// The byte length of the first `n` characters of `token` (UTF-8),
/// None when it is shorter.
fn prefix_end(token: &[u8], n: u32) -> Option<usize> {
    if n == 0 {
        return None;
    }
    let mut chars = 0;
    for (i, &b) in token.iter().enumerate() {
        // (A byte that is not a continuation byte starts a character.)
        if b & 0xC0 != 0x80 {
            if chars == n {
                return Some(i);
            }
            chars += 1;
        }
    }
    (chars == n).then_some(token.len())
}
