//! # The rows of an ephemeral table
//!
//! An ephemeral table (`OpenEphemeral`: DISTINCT sets, IN lists, the
//! materialized results of subqueries and CTEs, UNION sets) keeps its rows
//! sorted by rowid or by key. Rows arrive in any order: one sorted `Vec`
//! made each insert in the middle move half the table, which turned
//! `SELECT DISTINCT` over unsorted input quadratic. The rows are
//! therefore kept in chunks, each a sorted `Vec` of at most
//! [`MAX_CHUNK`] rows, the chunks in order: an insert moves at most one
//! chunk's tail, a lookup is a binary search over the chunks' last rows
//! and then within one chunk.
//!
//! A keyed table's store may only weigh the rows, which its owner moves
//! into a B-tree past the budget ([`SortedRows::hand_off_to`]).
//!
//! A table given a spill file ([`SortedRows::spill_to`]) holds at most its
//! budget of rows in memory, as SQLite's transient B-tree holds its
//! cache's pages: the first chunk is written when the rows' cells (the
//! bytes SQLite's pages would give them) pass the budget, so the file
//! opens where SQLite's does; from then on their decoded size is kept
//! within it too. Chunks not used lately are written to the file
//! ([`super::ephemeral_spill`]) and only their last row is kept (the
//! search over chunks compares it); a chunk is read back when a lookup,
//! an insert or a scan reaches it. The chunks to write are picked by a
//! clock over the chunks (one touched since the hand last passed gets
//! another round), and the two chunks touched last are never written out:
//! a position the caller holds (a cursor's row, a probe's hint) names one
//! of them.
//!
//! Invariants: no chunk is empty (checked: ephemeral_chunks); every row of
//! a chunk sorts before every row of the next one; a chunk is either
//! resident (`rows` holds its
//! `count` rows, `spilled_last` is `None`) or spilled (`rows` empty, its
//! rows in its extent, `spilled_last` its last row). A [`RowPos`] names a
//! row by chunk and index; an insert or removal may move the rows at or
//! after it in the same chunk (and split or drop that chunk), so positions
//! are re-derived after modifications, except that the position of a row
//! *before* a removed one stays valid (the VM's Delete relies on it). The
//! methods that hand out a position make its chunk resident; [`get`]
//! answers `None` for a row of a spilled chunk (only possible after a read
//! failed, which [`SortedRows::check`] then reports).
//!
//! [`get`]: SortedRows::get

use super::ephemeral_spill::{row_weight, Extent, SpillStore, Weight};
use crate::error::Result;
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

/// A run of rows, in memory or in the spill file.
struct Chunk {
    /// Stable name (chunks move in the list as others split or go).
    id: u32,
    /// The rows while resident; empty while spilled.
    rows: Vec<Row>,
    /// How many rows.
    count: usize,
    /// While spilled: the last row.
    spilled_last: Option<Row>,
    /// The rows' [`row_weight`] (kept only for a table that may spill).
    cost: Weight,
    /// Where the rows were last written.
    extent: Option<Extent>,
    /// Changed since last written (or never written).
    dirty: bool,
    /// Touched since the clock's hand last passed.
    referenced: bool,
}

impl Chunk {
    fn last_row(&self) -> &Row {
        match &self.spilled_last {
            Some(r) => r,
            None => self.rows.last().expect("no empty chunk"),
        }
    }
}

/// A sorted sequence of rows in chunks (see the module doc).
#[derive(Default)]
pub struct SortedRows {
    chunks: Vec<Chunk>,
    len: usize,
    /// Where chunks go past the budget; `None`: all stay in memory.
    spill: Option<Box<SpillStore>>,
    /// The [`row_weight`] of the resident chunks' rows.
    resident_cost: Weight,
    next_id: u32,
    /// The chunks touched last, newest first (never written out).
    recent: [u32; 2],
    /// The clock's hand.
    hand: usize,
}

impl SortedRows {
    /// Keep at most `store`'s budget of rows in memory, the rest in its
    /// file.
    pub fn spill_to(&mut self, store: SpillStore) {
        self.spill = Some(Box::new(store));
    }

    /// Rows past the budget of a store that hands them off
    /// ([`SpillStore::handing_off`]): the backend they go to.
    #[inline]
    pub fn hand_off_to(&self) -> Option<std::sync::Arc<dyn crate::io::IoBackend>> {
        let s = self.spill.as_ref()?;
        if !s.hands_off() || self.resident_cost.cells <= s.budget() {
            return None;
        }
        s.hand_off_to()
    }

    /// The spill file's failure, if a read or write failed.
    pub fn check(&self) -> Result<()> {
        match self.spill.as_ref().and_then(|s| s.error()) {
            Some(e) => Err(e.clone()),
            None => Ok(()),
        }
    }

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
        self.resident_cost = Weight::default();
        self.hand = 0;
        if let Some(s) = &mut self.spill {
            s.reset();
        }
    }

    /// Append a row that sorts after every row already held.
    pub fn push(&mut self, row: Row) {
        self.insert_at(None, row);
    }

    /// The first row's position.
    pub fn first(&mut self) -> Option<RowPos> {
        if self.chunks.is_empty() {
            return None;
        }
        self.ensure(0);
        Some(RowPos { chunk: 0, idx: 0 })
    }

    /// The last row's position.
    pub fn last(&mut self) -> Option<RowPos> {
        let chunk = self.chunks.len().checked_sub(1)?;
        self.ensure(chunk);
        Some(RowPos { chunk, idx: self.chunks[chunk].count - 1 })
    }

    /// The position after `p`.
    pub fn next(&mut self, p: RowPos) -> Option<RowPos> {
        let q = self.peek_next(p)?;
        self.ensure(q.chunk);
        Some(q)
    }

    /// The position before `p`.
    pub fn prev(&mut self, p: RowPos) -> Option<RowPos> {
        let q = self.peek_prev(p)?;
        self.ensure(q.chunk);
        Some(q)
    }

    /// The position after `p`, its chunk left where it is (a look ahead
    /// that must not read: [`SortedRows::get`] may then say `None`).
    pub fn peek_next(&self, p: RowPos) -> Option<RowPos> {
        let c = self.chunks.get(p.chunk)?;
        if p.idx + 1 < c.count {
            Some(RowPos { chunk: p.chunk, idx: p.idx + 1 })
        } else {
            (p.chunk + 1 < self.chunks.len()).then_some(RowPos { chunk: p.chunk + 1, idx: 0 })
        }
    }

    /// The position before `p`, its chunk left where it is.
    pub fn peek_prev(&self, p: RowPos) -> Option<RowPos> {
        if p.idx > 0 {
            Some(RowPos { chunk: p.chunk, idx: p.idx - 1 })
        } else {
            let chunk = p.chunk.checked_sub(1)?;
            Some(RowPos { chunk, idx: self.chunks.get(chunk)?.count - 1 })
        }
    }

    /// The row at `p` (`None` past the end, or in a chunk that could not
    /// be read back).
    pub fn get(&self, p: RowPos) -> Option<&Row> {
        self.chunks.get(p.chunk)?.rows.get(p.idx)
    }

    /// Put `row` in place of the row at `p` (its sort key must be the
    /// same).
    pub fn replace(&mut self, p: RowPos, row: Row) {
        if !self.ensure(p.chunk) {
            return;
        }
        let spilling = self.spill.is_some();
        let c = &mut self.chunks[p.chunk];
        let Some(slot) = c.rows.get_mut(p.idx) else { return };
        if spilling {
            let (old, new) = (row_weight(slot), row_weight(&row));
            c.cost = c.cost + new - old;
            self.resident_cost = self.resident_cost + new - old;
        }
        *slot = row;
        c.dirty = true;
        self.evict_over_budget();
    }

    /// The first row for which `before` is false, the rows being
    /// partitioned (true for a prefix, false after it); `None` when
    /// `before` holds for every row.
    pub fn partition_point(&mut self, mut before: impl FnMut(&Row) -> bool) -> Option<RowPos> {
        let chunk = self.chunks.partition_point(|c| before(c.last_row()));
        if chunk >= self.chunks.len() || !self.ensure(chunk) {
            return None;
        }
        let c = &self.chunks[chunk];
        Some(RowPos { chunk, idx: c.rows.partition_point(&mut before) })
    }

    /// The last row for which `upto` holds (a prefix of the rows).
    pub fn last_where(&mut self, upto: impl FnMut(&Row) -> bool) -> Option<RowPos> {
        match self.partition_point(upto) {
            Some(p) => self.prev(p),
            None => self.last(),
        }
    }

    /// Binary search: `Ok` with the position of a row comparing `Equal`,
    /// or `Err` with where such a row would be inserted (`None`: at the
    /// end).
    pub fn search(&mut self, mut cmp: impl FnMut(&Row) -> Ordering) -> std::result::Result<RowPos, Option<RowPos>> {
        let p = self.partition_point(|r| cmp(r) == Ordering::Less);
        match p {
            Some(p) if self.get(p).is_some_and(|r| cmp(r) == Ordering::Equal) => Ok(p),
            other => Err(other),
        }
    }

    /// Insert `row` before the row at `p` (`None`: at the end).
    pub fn insert_at(&mut self, p: Option<RowPos>, row: Row) {
        let cost = if self.spill.is_some() { row_weight(&row) } else { Weight::default() };
        let p = match p {
            Some(p) => p,
            None => {
                // (Appending to a full or spilled last chunk starts a new
                // one: rows arriving in order never read a chunk back.)
                let n = self.chunks.len();
                match self.chunks.last_mut() {
                    Some(c) if c.count < MAX_CHUNK && c.spilled_last.is_none() => {
                        c.rows.push(row);
                        c.count += 1;
                        c.cost += cost;
                        c.dirty = true;
                        self.len += 1;
                        self.resident_cost += cost;
                        self.touch(n - 1);
                    }
                    _ => {
                        let mut rows = Vec::with_capacity(MAX_CHUNK);
                        rows.push(row);
                        self.len += 1;
                        self.push_chunk(n, rows, cost);
                    }
                }
                self.evict_over_budget();
                return;
            }
        };
        if !self.ensure(p.chunk) {
            return;
        }
        self.len += 1;
        self.resident_cost += cost;
        let c = &mut self.chunks[p.chunk];
        c.rows.insert(p.idx, row);
        c.count += 1;
        c.cost += cost;
        c.dirty = true;
        if c.count > MAX_CHUNK {
            let tail = c.rows.split_off(c.count / 2);
            c.count = c.rows.len();
            let tail_cost = if self.spill.is_some() { tail.iter().map(row_weight).sum() } else { Weight::default() };
            c.cost -= tail_cost;
            self.resident_cost -= tail_cost;
            self.push_chunk(p.chunk + 1, tail, tail_cost);
        }
        self.evict_over_budget();
    }

    /// A new resident chunk of `rows` (counted in `len` already) at `at`.
    fn push_chunk(&mut self, at: usize, rows: Vec<Row>, cost: Weight) {
        self.next_id = self.next_id.wrapping_add(1).max(1);
        let count = rows.len();
        self.resident_cost += cost;
        let c = Chunk { id: self.next_id, rows, count, spilled_last: None, cost, extent: None, dirty: true, referenced: true };
        self.chunks.insert(at, c);
        if self.hand > at {
            self.hand += 1;
        }
        self.touch(at);
    }

    /// Remove and return the row at `p` (`None` if `p` names no row).
    pub fn remove(&mut self, p: RowPos) -> Option<Row> {
        if p.chunk >= self.chunks.len() || !self.ensure(p.chunk) {
            return None;
        }
        let spilling = self.spill.is_some();
        let c = &mut self.chunks[p.chunk];
        if p.idx >= c.count {
            return None;
        }
        let row = c.rows.remove(p.idx);
        c.count -= 1;
        c.dirty = true;
        if spilling {
            let cost = row_weight(&row);
            c.cost -= cost;
            self.resident_cost -= cost;
        }
        if c.count == 0 {
            let gone = self.chunks.remove(p.chunk);
            if let (Some(ext), Some(s)) = (gone.extent, &mut self.spill) {
                s.release(ext);
            }
            if self.hand > p.chunk {
                self.hand -= 1;
            }
        }
        self.len -= 1;
        // invariant: ephemeral_chunks
        debug_assert!(self.chunks.iter().all(|c| c.count > 0) && self.len == self.chunks.iter().map(|c| c.count).sum::<usize>());
        Some(row)
    }

    /// Call `f` on every row, in order (reading spilled chunks back one
    /// by one; stops at a read that fails, see [`SortedRows::check`]).
    pub fn each(&mut self, mut f: impl FnMut(&Row)) {
        for i in 0..self.chunks.len() {
            if !self.ensure(i) {
                return;
            }
            self.chunks[i].rows.iter().for_each(&mut f);
        }
    }

    /// Note chunk `i` as used now.
    fn touch(&mut self, i: usize) {
        let c = &mut self.chunks[i];
        c.referenced = true;
        if self.recent[0] != c.id {
            self.recent = [c.id, self.recent[0]];
        }
    }

    /// Make chunk `i` resident; false if its rows could not be read.
    fn ensure(&mut self, i: usize) -> bool {
        let Some(c) = self.chunks.get_mut(i) else { return false };
        if c.spilled_last.is_some() {
            let (Some(store), Some(ext)) = (&mut self.spill, c.extent) else { return false };
            match store.read(ext) {
                Ok(rows) if rows.len() == c.count => {
                    debug_assert!(c.spilled_last.as_ref().is_some_and(|l| rows.last().is_some_and(|r| r.0 == l.0)));
                    c.rows = rows;
                    c.spilled_last = None;
                    c.dirty = false;
                    self.resident_cost += c.cost;
                }
                // (A chunk read back with another count is corrupt: the
                // store keeps the error for `check`.)
                _ => return false,
            }
            self.touch(i);
            self.evict_over_budget();
            return true;
        }
        self.touch(i);
        true
    }

    /// Write chunks out until the resident rows fit the budget (or only
    /// the chunks touched last are left).
    fn evict_over_budget(&mut self) {
        let Some(store) = &mut self.spill else { return };
        if store.hands_off() {
            return;
        }
        let budget = store.budget();
        let n = self.chunks.len();
        let mut steps = 0;
        // (Until the first chunk is written, the cells decide, as SQLite's
        // pages decide when its file opens; from then on the memory too.)
        while (self.resident_cost.cells > budget || store.is_open() && self.resident_cost.memory > budget) && steps < 2 * n {
            steps += 1;
            if self.hand >= n {
                self.hand = 0;
            }
            let c = &mut self.chunks[self.hand];
            self.hand += 1;
            if c.spilled_last.is_some() || self.recent.contains(&c.id) {
                continue;
            }
            if c.referenced {
                c.referenced = false;
                continue;
            }
            if c.dirty || c.extent.is_none() {
                match store.write(&c.rows, c.extent) {
                    Ok(ext) => c.extent = Some(ext),
                    // (The store keeps the error; the rows stay.)
                    Err(_) => return,
                }
            }
            let mut rows = std::mem::take(&mut c.rows);
            c.spilled_last = rows.pop();
            c.dirty = false;
            self.resident_cost -= c.cost;
        }
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
        let mut all: Vec<i64> = Vec::new();
        rows.each(|r| all.push(key(r)));
        assert_eq!(all, model);
        // Walking forward and backward by positions agrees too.
        let mut fwd = Vec::new();
        let mut p = rows.first();
        while let Some(q) = p {
            fwd.push(key(rows.get(q).unwrap()));
            p = rows.next(q);
        }
        assert_eq!(fwd, model);
        assert_eq!(keys_walked_back(&mut rows), model);
        let probe = model[model.len() / 2];
        let last = rows.last_where(|r| key(r) <= probe).unwrap();
        assert_eq!(key(rows.get(last).unwrap()), probe);
        assert_eq!(rows.next(last).map(|p| key(rows.get(p).unwrap())), model.iter().copied().find(|v| *v > probe));
    }

    /// The keys from the last row back to the first, returned in order.
    fn keys_walked_back(rows: &mut SortedRows) -> Vec<i64> {
        let mut back = Vec::new();
        let mut p = rows.last();
        while let Some(q) = p {
            back.push(key(rows.get(q).unwrap()));
            p = rows.prev(q);
        }
        back.reverse();
        back
    }

    /// The same random inserts and removals with a budget of a few
    /// chunks: most chunks live in the spill file, written and read back
    /// again and again; the rows, walks and searches are the model's.
    #[test]
    fn spilled_chunks_match_a_sorted_vec() {
        use crate::io::memory::MemoryBackend;
        use crate::io::IoContext;
        use std::sync::Arc;
        let backend = Arc::new(MemoryBackend::new());
        let io = IoContext::new(backend.clone());
        let mut rows = SortedRows::default();
        rows.spill_to(SpillStore::new(io, 4000));
        let mut model: Vec<i64> = Vec::new();
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let payload = |k: i64| vec![Value::Integer(k), Value::Text(format!("row {k:06}").into_bytes())];
        for step in 0..30_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let k = (x % 20_000) as i64;
            if step % 4 == 3 && !model.is_empty() {
                let target = model.remove((x as usize / 7) % model.len());
                let p = rows.search(|r| key(r).cmp(&target)).expect("present");
                assert_eq!(rows.remove(p).unwrap().0, target);
            } else {
                match rows.search(|r| key(r).cmp(&k)) {
                    Ok(p) => rows.replace(p, (k, payload(k))),
                    Err(p) => {
                        model.insert(model.partition_point(|v| *v < k), k);
                        rows.insert_at(p, (k, payload(k)));
                    }
                }
            }
            assert_eq!(rows.len(), model.len());
        }
        rows.check().unwrap();
        assert!(rows.chunks.iter().any(|c| c.spilled_last.is_some()), "nothing spilled");
        assert!(rows.resident_cost.memory <= 4000 + 2 * MAX_CHUNK * 200, "{:?} resident", rows.resident_cost);
        let mut all = Vec::new();
        rows.each(|r| {
            assert_eq!(format!("{:?}", r.1), format!("{:?}", payload(r.0)));
            all.push(key(r));
        });
        assert_eq!(all, model);
        assert_eq!(keys_walked_back(&mut rows), model);
        rows.clear();
        assert!(rows.is_empty() && rows.first().is_none());
        rows.push((1, payload(1)));
        assert_eq!(rows.first().and_then(|p| rows.get(p)).map(key), Some(1));
    }
}
