//! # A keyed ephemeral table grown past its budget: a B-tree
//!
//! SQLite keeps every ephemeral table in a B-tree of its own on a
//! temporary pager (`BTREE_OMIT_JOURNAL | BTREE_SINGLE`) whose cache holds
//! `SQLITE_DEFAULT_CACHE_SIZE` (2000 KiB) of pages and spills to a file
//! opened through the VFS with no name and `SQLITE_OPEN_TRANSIENT_DB`.
//! Ours keeps small tables in [`super::ephemeral_rows`]; a *keyed* one
//! (a DISTINCT set, an IN list, a UNION or EXCEPT set, a GROUP BY index)
//! whose cells outgrow that budget moves here, into one index tree of a
//! [`Btree`] of its own ([`Btree::open_transient`]): its pager's cache is
//! the 2000 KiB, the file opens at the pager's first spill past it, and a
//! probe or an insert reads and writes O(log n) pages as they are (a
//! chunk of decoded rows read back and another written out per probe
//! made a random DISTINCT of 2,000,000 rows cost 12x SQLite's CPU).
//! Rowid tables (materialized subqueries and CTEs, queues) get their rows
//! in order and stay in chunks, which are then written once and read once.
//!
//! The operations run to completion, blocking on the pager's I/O (they
//! happen inside instructions that cannot suspend, as the chunks' spill
//! file's do).
//!
//! Invariant: `current`, when set, is the decoding of the entry the
//! cursor is on (checked: ephemeral_tree_current); the tree's
//! write transaction stays open for the table's life and is never
//! committed (the file is dropped with it).

use crate::btree::{Btree, Cursor, InsertKey, SeekOp, TreeKind};
use crate::error::Result;
use crate::io::IoBackend;
use crate::value::record::{decode_record, KeyInfo, RecordBuilder};
use crate::value::{Value, ValueRef};
use std::sync::Arc;

/// One row: its rowid (always 0 here: a keyed table) and its fields.
pub type Row = (i64, Vec<Value>);

/// A keyed ephemeral table in a B-tree of its own (see the module doc).
pub struct EphemeralTree {
    bt: Btree,
    cursor: Cursor,
    /// The entry the cursor is on, decoded.
    current: Option<Row>,
    /// A record's bytes (reused by every insert).
    buf: Vec<u8>,
}

impl EphemeralTree {
    /// An empty tree ordered by `key_info`, spilling to `spill_to`.
    pub fn open(spill_to: Arc<dyn IoBackend>, key_info: Arc<KeyInfo>) -> Result<EphemeralTree> {
        let mut bt = Btree::open_transient(spill_to)?;
        // (SQLite's transient B-trees keep no journal.)
        bt.set_journal_mode("off", false);
        bt.block_on(|bt| bt.begin_write(false))?;
        let root = bt.block_on(|bt| bt.create_tree(TreeKind::Index))?;
        Ok(EphemeralTree { bt, cursor: Cursor::new(root, true, Some(key_info)), current: None, buf: Vec::new() })
    }

    /// Insert an entry, replacing an identical one; the cursor is then
    /// on no entry (as after the chunks' insert, the caller seeks again).
    pub fn insert(&mut self, key: &[Value]) -> Result<()> {
        RecordBuilder::default().build(key.iter().map(Value::as_ref), &mut self.buf);
        self.insert_record_bytes()
    }

    /// [`EphemeralTree::insert`] of a record as the VM made it.
    pub fn insert_record(&mut self, rec: &[u8]) -> Result<()> {
        self.buf.clear();
        self.buf.extend_from_slice(rec);
        self.insert_record_bytes()
    }

    fn insert_record_bytes(&mut self) -> Result<()> {
        self.current = None;
        let Self { bt, cursor, buf, .. } = self;
        bt.block_on(|bt| cursor.insert(bt, InsertKey::Index(buf.as_slice()), &[]))
    }

    /// Position on the entry `op` names for `probe` (a prefix of the
    /// fields); whether there is one.
    pub fn seek(&mut self, probe: &[Value], op: SeekOp) -> Result<bool> {
        let refs: Vec<ValueRef<'_>> = probe.iter().map(Value::as_ref).collect();
        let Self { bt, cursor, .. } = self;
        let on = bt.block_on(|bt| cursor.seek_index(bt, &refs, op))?;
        self.land(on)
    }

    /// Position on the first (`first`) or last entry; whether there is one.
    pub fn rewind(&mut self, first: bool) -> Result<bool> {
        let Self { bt, cursor, .. } = self;
        let on = bt.block_on(|bt| if first { cursor.first(bt) } else { cursor.last(bt) })?;
        self.land(on)
    }

    /// Move to the next (`forward`) or previous entry; whether there is one.
    pub fn step(&mut self, forward: bool) -> Result<bool> {
        let Self { bt, cursor, .. } = self;
        let on = bt.block_on(|bt| if forward { cursor.next(bt) } else { cursor.prev(bt) })?;
        self.land(on)
    }

    /// Decode the entry the cursor landed on (`on`: there is one).
    fn land(&mut self, on: bool) -> Result<bool> {
        self.current = None;
        if on {
            let Self { bt, cursor, .. } = self;
            let fields = bt.block_on(|bt| match cursor.payload(bt)? {
                std::task::Poll::Ready(p) => decode_record(p).map(std::task::Poll::Ready),
                std::task::Poll::Pending => Ok(std::task::Poll::Pending),
            })?;
            self.current = Some((0, fields));
        }
        // invariant: ephemeral_tree_current
        debug_assert!(self.current.is_none() || self.cursor.is_valid());
        Ok(on)
    }

    /// The entry the cursor is on.
    pub fn current(&self) -> Option<&Row> {
        self.current.as_ref()
    }

    /// Delete the entry the cursor is on (if any): `step` then goes on
    /// from the entries beside it, as after SQLite's delete.
    pub fn delete_current(&mut self) -> Result<()> {
        if self.current.take().is_none() {
            return Ok(());
        }
        let Self { bt, cursor, .. } = self;
        bt.block_on(|bt| cursor.delete(bt))
    }

    /// How many entries (a walk of the tree, as SQLite's count).
    pub fn count(&mut self) -> Result<u64> {
        let mut c = Cursor::new(self.cursor.root(), false, self.cursor.key_info().cloned());
        self.bt.block_on(|bt| c.count(bt))
    }

    /// Call `f` on every entry, in order (the cursor ends on none).
    pub fn each(&mut self, mut f: impl FnMut(&Row)) -> Result<()> {
        let mut on = self.rewind(true)?;
        while on {
            if let Some(r) = &self.current {
                f(r);
            }
            on = self.step(true)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::memory::MemoryBackend;
    use std::collections::BTreeSet;

    /// Random inserts (duplicates among them), seeks and deletes against a
    /// `BTreeSet`, on a tree whose pager spills to the backend.
    #[test]
    fn matches_a_btreeset() {
        let backend: Arc<dyn IoBackend> = Arc::new(MemoryBackend::new());
        let mut t = EphemeralTree::open(backend, Arc::new(KeyInfo::binary(1))).unwrap();
        // (A cache of 20 pages: the pager spills to the backend's file.)
        t.bt.set_cache_size(20);
        let mut model = BTreeSet::new();
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let key = |k: i64| vec![Value::Integer(k), Value::Text(format!("row {k:08}").into_bytes())];
        for step in 0..60_000u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let k = (x % 40_000) as i64;
            if step % 5 == 4 {
                let found = t.seek(&[Value::Integer(k)], SeekOp::Ge).unwrap() && t.current().is_some_and(|r| matches!(r.1[0], Value::Integer(i) if i == k));
                assert_eq!(found, model.contains(&k), "step {step}");
                if found {
                    t.delete_current().unwrap();
                    model.remove(&k);
                }
            } else {
                t.insert(&key(k)).unwrap();
                model.insert(k);
            }
        }
        assert_eq!(t.count().unwrap(), model.len() as u64);
        let int = |r: Option<&Row>| r.and_then(|r| if let Value::Integer(i) = r.1[0] { Some(i) } else { None });
        let mut all = Vec::new();
        t.each(|r| all.extend(int(Some(r)))).unwrap();
        assert_eq!(all, model.iter().copied().collect::<Vec<_>>());
        let probe = 20_000;
        assert!(t.seek(&[Value::Integer(probe)], SeekOp::Le).unwrap());
        let below = model.range(..=probe).next_back().copied();
        assert_eq!(int(t.current()), below);
        assert!(t.step(true).unwrap());
        assert_eq!(int(t.current()), model.range(probe + 1..).next().copied());
    }
}
