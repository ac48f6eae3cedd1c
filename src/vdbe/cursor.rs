//! VM cursors: what a cursor number in a program refers to.
//!
//! - `Btree`: a B-tree cursor on a table or index of an attached database;
//!   the decoded current row is cached and dropped whenever the cursor moves.
//! - `Ephemeral`: a temporary table or index (DISTINCT, IN lists,
//!   materialised subqueries, compound SELECTs), in memory up to a budget;
//!   past it a table's chunks go to a transient file (`ephemeral_rows`)
//!   and an index moves into a B-tree of its own (`ephemeral_tree`).
//! - `Sorter`: see [`crate::vdbe::sorter`].
//! - `Pseudo`: a single row held in a register (sorter output).
//!
//! Invariant: `cache`, when set, is the decoding of the entry the cursor
//! is on; any movement clears it before the B-tree call is made, so a
//! suspended call never leaves a stale cache behind (checked:
//! vm_cursor_cache_current).

use crate::btree::{Cursor, SeekOp};
use crate::error::Result;
use crate::value::record::{decode_record, KeyInfo, NO_KEY_INFO};
use crate::value::Value;
use crate::vdbe::ephemeral_rows::{RowPos, SortedRows};
use crate::vdbe::ephemeral_tree::EphemeralTree;
use crate::vdbe::sorter::{compare_full, compare_leading, Sorter};
use std::cmp::Ordering;
use std::sync::Arc;

/// A cursor on a B-tree of one of the connection's databases.
pub struct BtreeCursor {
    /// Index of the database in the connection.
    pub db: usize,
    /// The B-tree cursor.
    pub cursor: Cursor,
    /// Index (key-only) tree rather than a rowid table.
    pub is_index: bool,
    /// Key description for index trees.
    pub key_info: Option<Arc<KeyInfo>>,
    /// Decoded current entry.
    pub cache: Option<Vec<Value>>,
    /// `NullRow` was executed: every column reads NULL.
    pub null_row: bool,
    /// The last move found no entry.
    pub eof: bool,
}

/// A temporary table (rowid-keyed) or index (key-ordered).
pub struct EphemeralCursor {
    /// Key order for index-style tables; `None` for rowid tables.
    pub key_info: Option<Arc<KeyInfo>>,
    /// Rows, kept sorted (by rowid or by key); empty once `tree` holds
    /// them.
    pub rows: SortedRows,
    /// Current position in `rows` (always `None` once `tree` holds them).
    pub pos: Option<RowPos>,
    /// An index past its budget: its entries and its position, moved out
    /// of `rows` for good (`ephemeral_tree`).
    pub tree: Option<Box<EphemeralTree>>,
    /// `NullRow` was executed.
    pub null_row: bool,
    /// Next rowid for `NewRowid`.
    pub next_rowid: i64,
    /// The rows are json_each/json_tree rows: `value` (column 1) carries
    /// the JSON subtype when `type` (column 2) is 'array' or 'object'.
    pub json_rows: bool,
    /// Where the last [`EphemeralCursor::seek_forward`] landed (`None`:
    /// past the end). DISTINCT and IN-list building probe with `Found`
    /// and then insert the same key: the insert tries this position first
    /// and checks it against its two neighbours instead of searching
    /// again. Any later change to `rows` may make it stale, which the
    /// neighbour check catches.
    insert_hint: Option<Option<RowPos>>,
}

impl EphemeralCursor {
    /// An empty temporary table.
    pub fn new(key_info: Option<Arc<KeyInfo>>) -> Self {
        EphemeralCursor { key_info, rows: SortedRows::default(), pos: None, tree: None, null_row: false, next_rowid: 1, json_rows: false, insert_hint: None }
    }

    /// Insert an index entry given as the VM's record, replacing an
    /// identical one.
    #[inline]
    pub fn insert_record(&mut self, rec: &[u8]) -> Result<()> {
        match &mut self.tree {
            Some(t) => t.insert_record(rec),
            None => self.insert_key(decode_record(rec)?),
        }
    }

    /// Past its budget, an index's rows move into a B-tree (the position
    /// held, if any, is found again there).
    #[inline]
    fn maybe_to_tree(&mut self) -> Result<()> {
        match self.rows.hand_off_to() {
            Some(backend) => self.move_to_tree(backend),
            None => Ok(()),
        }
    }

    #[cold]
    fn move_to_tree(&mut self, backend: Arc<dyn crate::io::IoBackend>) -> Result<()> {
        let Some(ki) = self.key_info.clone() else { return Ok(()) };
        let mut tree = EphemeralTree::open(backend, ki)?;
        let at = self.current().map(|r| r.1.clone());
        let mut res = Ok(());
        self.rows.each(|(_, r)| {
            if res.is_ok() {
                res = tree.insert(r);
            }
        });
        res?;
        if let Some(k) = at {
            tree.seek(&k, SeekOp::Ge)?;
        }
        self.rows = SortedRows::default();
        self.pos = None;
        self.insert_hint = None;
        self.tree = Some(Box::new(tree));
        Ok(())
    }

    /// Position on the entry `op` names for `probe` (a prefix of the
    /// key); whether there is one.
    #[inline]
    pub fn seek(&mut self, probe: &[Value], op: SeekOp) -> Result<bool> {
        if let Some(t) = &mut self.tree {
            return t.seek(probe, op);
        }
        // (A failed read of the spill file is the caller's to check.)
        Ok(match op {
            SeekOp::Ge => self.seek_forward(probe, |o| o != Ordering::Less),
            SeekOp::Gt => self.seek_forward(probe, |o| o == Ordering::Greater),
            SeekOp::Le => self.seek_backward(probe, |o| o != Ordering::Greater),
            SeekOp::Lt => self.seek_backward(probe, |o| o == Ordering::Less),
        })
    }

    /// Position on the first (`first`) or last row; whether there is one.
    #[inline]
    pub fn rewind(&mut self, first: bool) -> Result<bool> {
        if let Some(t) = &mut self.tree {
            return t.rewind(first);
        }
        self.pos = if first { self.rows.first() } else { self.rows.last() };
        self.rows.check()?;
        Ok(self.pos.is_some())
    }

    /// Move to the next (`forward`) or previous row; whether there is one.
    #[inline]
    pub fn step(&mut self, forward: bool) -> Result<bool> {
        if let Some(t) = &mut self.tree {
            return t.step(forward);
        }
        self.pos = self.pos.and_then(|p| if forward { self.rows.next(p) } else { self.rows.prev(p) });
        self.rows.check()?;
        Ok(self.pos.is_some())
    }

    /// How many rows.
    pub fn count(&mut self) -> Result<i64> {
        match &mut self.tree {
            Some(t) => Ok(t.count()? as i64),
            None => Ok(self.rows.len() as i64),
        }
    }

    /// Delete the current row (if any), returning its rowid; the next
    /// `step` goes on from the rows beside it.
    pub fn delete_current(&mut self) -> Result<Option<i64>> {
        if let Some(t) = &mut self.tree {
            let on = t.current().is_some();
            t.delete_current()?;
            return Ok(on.then_some(0));
        }
        let Some(p) = self.pos else { return Ok(None) };
        let before = self.rows.prev(p);
        let Some((r, _)) = self.rows.remove(p) else { return Ok(None) };
        // (The row before stays where it was: Next goes on from it.)
        self.pos = before;
        Ok(Some(r))
    }

    /// Delete the entry whose leading fields equal `key`, if there is one.
    pub fn delete_key(&mut self, key: &[Value]) -> Result<()> {
        let found = self.seek(key, SeekOp::Ge)?;
        self.rows.check()?;
        if found && self.current().is_some_and(|(_, r)| compare_leading(self.key_info(), key.len(), r, key) == Ordering::Equal) {
            match &mut self.tree {
                Some(t) => t.delete_current()?,
                None => {
                    if let Some(p) = self.pos {
                        self.rows.remove(p);
                    }
                }
            }
        }
        Ok(())
    }

    /// Call `f` on every row, in order.
    pub fn each(&mut self, f: impl FnMut(&(i64, Vec<Value>))) -> Result<()> {
        match &mut self.tree {
            Some(t) => t.each(f),
            None => {
                self.rows.each(f);
                self.rows.check()
            }
        }
    }

    /// How keys compare ([`NO_KEY_INFO`] for a table without one).
    pub fn key_info(&self) -> &KeyInfo {
        self.key_info.as_deref().unwrap_or(&NO_KEY_INFO)
    }

    /// Insert an index entry, replacing an identical one.
    #[inline]
    pub fn insert_key(&mut self, key: Vec<Value>) -> Result<()> {
        if let Some(t) = &mut self.tree {
            return t.insert(&key);
        }
        self.insert_key_in_rows(key);
        self.rows.check()?;
        self.maybe_to_tree()
    }

    fn insert_key_in_rows(&mut self, key: Vec<Value>) {
        let ki = self.key_info.as_deref().unwrap_or(&NO_KEY_INFO);
        if let Some(hint) = self.insert_hint.take() {
            let below = match hint {
                Some(p) => self.rows.prev(p),
                None => self.rows.last(),
            };
            let above_ok = hint.is_none_or(|p| self.rows.get(p).is_some_and(|(_, r)| compare_full(ki, r, &key) == Ordering::Greater));
            let below_ok = below.is_none_or(|p| self.rows.get(p).is_some_and(|(_, r)| compare_full(ki, r, &key) == Ordering::Less));
            // (A hint of a row's position with nothing before it is only
            // right if that row is the first one.)
            let first_ok = below.is_some() || hint.is_none_or(|p| Some(p) == self.rows.first());
            if above_ok && below_ok && first_ok {
                self.rows.insert_at(hint, (0, key));
                return;
            }
        }
        match self.rows.search(|(_, r)| compare_full(ki, r, &key)) {
            Ok(p) => self.rows.replace(p, (0, key)),
            Err(p) => self.rows.insert_at(p, (0, key)),
        }
    }

    /// Insert a rowid-table row, replacing one with the same rowid.
    pub fn insert_row(&mut self, rowid: i64, row: Vec<Value>) {
        // (Past every rowid given so far: an append, no search. Rows of a
        // materialized subquery or CTE arrive so.)
        let appends = rowid >= self.next_rowid && self.next_rowid != i64::MAX;
        if rowid >= self.next_rowid {
            self.next_rowid = rowid.saturating_add(1);
        }
        if appends {
            self.rows.push((rowid, row));
            return;
        }
        match self.rows.search(|(r, _)| r.cmp(&rowid)) {
            Ok(p) => self.rows.replace(p, (rowid, row)),
            Err(p) => self.rows.insert_at(p, (rowid, row)),
        }
    }

    /// First entry whose leading fields compare to `probe` so that
    /// `accept(ordering of entry vs probe)` holds. The rows are sorted by
    /// key, so `accept` must be monotone along them (false, then true:
    /// `>=` or `>`); a binary search finds the boundary.
    fn seek_forward(&mut self, probe: &[Value], accept: impl Fn(Ordering) -> bool) -> bool {
        self.pos = match &self.key_info {
            Some(ki) => self.rows.partition_point(|(_, r)| !accept(compare_leading(ki, probe.len(), r, probe))),
            None => self.rows.partition_point(|_| !accept(Ordering::Equal)),
        };
        self.insert_hint = Some(self.pos);
        self.pos.is_some()
    }

    /// Last entry whose ordering against `probe` satisfies `accept`, which
    /// must be monotone along the rows (true, then false: `<=` or `<`).
    fn seek_backward(&mut self, probe: &[Value], accept: impl Fn(Ordering) -> bool) -> bool {
        self.pos = match &self.key_info {
            Some(ki) => self.rows.last_where(|(_, r)| accept(compare_leading(ki, probe.len(), r, probe))),
            None => self.rows.last_where(|_| accept(Ordering::Equal)),
        };
        self.pos.is_some()
    }

    /// The current row.
    #[inline]
    pub fn current(&self) -> Option<&(i64, Vec<Value>)> {
        match &self.tree {
            Some(t) => t.current(),
            None => self.pos.and_then(|p| self.rows.get(p)),
        }
    }
}

/// What a cursor number refers to. (Every large kind is boxed: cursor
/// slots are moved in and out on every execution of a statement.)
pub enum VmCursor {
    /// A B-tree cursor.
    Btree(Box<BtreeCursor>),
    /// An in-memory temporary table or index.
    Ephemeral(Box<EphemeralCursor>),
    /// A sorter.
    Sorter(Box<Sorter>),
    /// One row held in a register.
    Pseudo(usize),
    /// A virtual table's cursor (`exec::vtab`).
    Virtual(Box<VirtualCursor>),
}

/// A cursor of a virtual table's module and where it stands.
pub struct VirtualCursor {
    /// The module's cursor.
    pub cursor: Box<dyn crate::vdbe::vtab::VTabCursor>,
    /// The table it reads.
    pub table: Arc<crate::vdbe::vtab::VtabInstance>,
    /// The null row of an outer join: every column reads NULL.
    pub null_row: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::collation::Collation;
    use crate::value::record::KeyField;
    use std::collections::BTreeSet;

    /// DISTINCT's probe-then-insert, stale hints (a seek for another key,
    /// inserts without a seek) and descending keys, against a `BTreeSet`.
    #[test]
    fn insert_after_seek_keeps_the_rows_sorted() {
        for descending in [false, true] {
            let ki = KeyInfo { fields: vec![KeyField { collation: Collation::binary(), descending }] };
            let mut c = EphemeralCursor::new(Some(Arc::new(ki)));
            let mut model = BTreeSet::new();
            let mut x: u64 = 0x2545_f491_4f6c_dd1d;
            for step in 0..30_000u32 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let k = (x % 3000) as i64;
                let key = vec![Value::Integer(k)];
                match step % 5 {
                    // A seek for some other key: the hint is wrong for `k`.
                    0 => {
                        c.seek_forward(&[Value::Integer((x >> 20) as i64 % 3000)], |o| o != Ordering::Less);
                    }
                    1 => {}
                    _ => {
                        let found =
                            c.seek_forward(&key, |o| o != Ordering::Less) && c.current().is_some_and(|(_, r)| matches!(r[0], Value::Integer(i) if i == k));
                        assert_eq!(found, model.contains(&k), "step {step}");
                        if found {
                            continue;
                        }
                    }
                }
                c.insert_key(key).unwrap();
                model.insert(k);
            }
            let mut got: Vec<i64> = Vec::new();
            c.rows.each(|(_, r)| got.push(if let Value::Integer(i) = r[0] { i } else { -1 }));
            let want: Vec<i64> = if descending { model.iter().rev().copied().collect() } else { model.iter().copied().collect() };
            assert_eq!(got, want);
        }
    }
}
