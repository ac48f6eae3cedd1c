//! # The rows of an ephemeral table
//!
//! An ephemeral table (`OpenEphemeral`: DISTINCT sets, IN lists, the
//! materialized results of subqueries and CTEs, UNION sets) keeps its rows
//! in memory, sorted by rowid or by key. Rows arrive in any order: one
//! sorted `Vec` made each insert in the middle move half the table, which
//! turned `SELECT DISTINCT` over unsorted input quadratic. The rows are
//! therefore kept in chunks, each a sorted `Vec` of at most
//! [`MAX_CHUNK`] rows, the chunks in order: an insert moves at most one
//! chunk's tail, a lookup is a binary search over the chunks' last rows
//! and then within one chunk.
//!
//! Invariants: no chunk is empty (checked: ephemeral_chunks); every row of a
//! chunk sorts before every row of the next one. A [`RowPos`] names a row by
//! chunk and index; an insert or removal may move the rows at or after it in
//! the same chunk (and split or drop that chunk), so positions are re-derived
//! after modifications, except that the position of a row *before* a removed
//! one stays valid (the VM's Delete relies on it).

use crate::value::Value;
use std::cmp::Ordering;

/// One row: its rowid (0 in a keyed table) and its fields.
pub type Row = (i64, Vec<Value>);

/// Rows per chunk above which a chunk is split in two. An insert moves
/// half a chunk's rows (32 bytes each) and a split moves the chunk list
/// (24 bytes a chunk): 128 keeps both small up to about a million rows
/// (at 512, `memcpy` was 11% of a DISTINCT over 20,000 rows; 7% fewer
/// instructions at 128).
const MAX_CHUNK: usize = 128;

/// Where a row is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowPos {
    chunk: usize,
    idx: usize,
}

/// A sorted sequence of rows in chunks (see the module doc).
#[derive(Default)]
pub struct SortedRows {
    chunks: Vec<Vec<Row>>,
    len: usize,
}

impl SortedRows {
    /// Number of rows.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there is no row.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Drop every row.
    pub fn clear(&mut self) {
        self.chunks.clear();
        self.len = 0;
    }

    /// Append a row that sorts after every row already held.
    pub fn push(&mut self, row: Row) {
        self.insert_at(None, row);
    }

    /// The first row's position.
    pub fn first(&self) -> Option<RowPos> {
        (!self.chunks.is_empty()).then_some(RowPos { chunk: 0, idx: 0 })
    }

    /// The last row's position.
    pub fn last(&self) -> Option<RowPos> {
        let chunk = self.chunks.len().checked_sub(1)?;
        Some(RowPos { chunk, idx: self.chunks[chunk].len() - 1 })
    }

    /// The position after `p`.
    pub fn next(&self, p: RowPos) -> Option<RowPos> {
        let c = self.chunks.get(p.chunk)?;
        if p.idx + 1 < c.len() {
            Some(RowPos { chunk: p.chunk, idx: p.idx + 1 })
        } else {
            (p.chunk + 1 < self.chunks.len()).then_some(RowPos { chunk: p.chunk + 1, idx: 0 })
        }
    }

    /// The position before `p`.
    pub fn prev(&self, p: RowPos) -> Option<RowPos> {
        if p.idx > 0 {
            Some(RowPos { chunk: p.chunk, idx: p.idx - 1 })
        } else {
            let chunk = p.chunk.checked_sub(1)?;
            Some(RowPos { chunk, idx: self.chunks.get(chunk)?.len() - 1 })
        }
    }

    /// The row at `p`.
    pub fn get(&self, p: RowPos) -> Option<&Row> {
        self.chunks.get(p.chunk)?.get(p.idx)
    }

    /// The row at `p`, to change in place (its sort key must not change).
    pub fn get_mut(&mut self, p: RowPos) -> Option<&mut Row> {
        self.chunks.get_mut(p.chunk)?.get_mut(p.idx)
    }

    /// The first row for which `before` is false, the rows being
    /// partitioned (true for a prefix, false after it); `None` when
    /// `before` holds for every row.
    pub fn partition_point(&self, mut before: impl FnMut(&Row) -> bool) -> Option<RowPos> {
        let chunk = self.chunks.partition_point(|c| before(c.last().expect("no empty chunk")));
        let c = self.chunks.get(chunk)?;
        Some(RowPos { chunk, idx: c.partition_point(&mut before) })
    }

    /// The last row for which `upto` holds (a prefix of the rows).
    pub fn last_where(&self, upto: impl FnMut(&Row) -> bool) -> Option<RowPos> {
        match self.partition_point(upto) {
            Some(p) => self.prev(p),
            None => self.last(),
        }
    }

    /// Binary search: `Ok` with the position of a row comparing `Equal`,
    /// or `Err` with where such a row would be inserted (`None`: at the
    /// end).
    pub fn search(&self, mut cmp: impl FnMut(&Row) -> Ordering) -> Result<RowPos, Option<RowPos>> {
        let p = self.partition_point(|r| cmp(r) == Ordering::Less);
        match p {
            Some(p) if cmp(self.get(p).expect("position in range")) == Ordering::Equal => Ok(p),
            other => Err(other),
        }
    }

    /// Insert `row` before the row at `p` (`None`: at the end).
    pub fn insert_at(&mut self, p: Option<RowPos>, row: Row) {
        self.len += 1;
        let p = match p {
            Some(p) => p,
            None => match self.chunks.last_mut() {
                Some(c) if c.len() < MAX_CHUNK => {
                    c.push(row);
                    return;
                }
                _ => {
                    let mut c = Vec::with_capacity(MAX_CHUNK);
                    c.push(row);
                    self.chunks.push(c);
                    return;
                }
            },
        };
        let c = &mut self.chunks[p.chunk];
        c.insert(p.idx, row);
        if c.len() > MAX_CHUNK {
            let tail = c.split_off(c.len() / 2);
            self.chunks.insert(p.chunk + 1, tail);
        }
    }

    /// Remove and return the row at `p` (`None` if `p` names no row).
    pub fn remove(&mut self, p: RowPos) -> Option<Row> {
        let c = self.chunks.get_mut(p.chunk)?;
        if p.idx >= c.len() {
            return None;
        }
        let row = c.remove(p.idx);
        if c.is_empty() {
            self.chunks.remove(p.chunk);
        }
        self.len -= 1;
        // invariant: ephemeral_chunks
        debug_assert!(self.chunks.iter().all(|c| !c.is_empty()) && self.len == self.chunks.iter().map(Vec::len).sum::<usize>());
        Some(row)
    }

    /// Every row, in order.
    pub fn iter(&self) -> impl Iterator<Item = &Row> {
        self.chunks.iter().flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(r: &Row) -> i64 {
        r.0
    }

    /// Random inserts and removals against a plain sorted `Vec`.
    #[test]
    fn matches_a_sorted_vec() {
        let mut rows = SortedRows::default();
        let mut model: Vec<i64> = Vec::new();
        let mut x: u64 = 0x9e3779b97f4a7c15;
        for step in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let k = (x % 5000) as i64;
            if step % 3 == 2 && !model.is_empty() {
                let i = (x as usize / 7) % model.len();
                let target = model.remove(i);
                let p = rows.search(|r| key(r).cmp(&target)).expect("present");
                assert_eq!(rows.remove(p).unwrap().0, target);
            } else {
                let at = model.partition_point(|v| *v < k);
                model.insert(at, k);
                let p = rows.partition_point(|r| key(r) < k);
                rows.insert_at(p, (k, Vec::new()));
            }
            assert_eq!(rows.len(), model.len());
        }
        let all: Vec<i64> = rows.iter().map(key).collect();
        assert_eq!(all, model);
        // Walking forward and backward by positions agrees too.
        let mut fwd = Vec::new();
        let mut p = rows.first();
        while let Some(q) = p {
            fwd.push(key(rows.get(q).unwrap()));
            p = rows.next(q);
        }
        assert_eq!(fwd, model);
        let mut back = Vec::new();
        let mut p = rows.last();
        while let Some(q) = p {
            back.push(key(rows.get(q).unwrap()));
            p = rows.prev(q);
        }
        back.reverse();
        assert_eq!(back, model);
        let probe = model[model.len() / 2];
        let last = rows.last_where(|r| key(r) <= probe).unwrap();
        assert_eq!(key(rows.get(last).unwrap()), probe);
        assert_eq!(rows.next(last).map(|p| key(rows.get(p).unwrap())), model.iter().copied().find(|v| *v > probe));
    }
}
