//! # Nodes and parents of an R*Tree, cached across calls
//!
//! An insert or delete reads nodes from `%_node` through a [`Store`],
//! changes them in memory and writes each changed node back when the
//! operation finishes ([`Store::flush`]); node numbers are taken and given
//! back at once (a new node is inserted with a NULL number, SQLite's way,
//! so numbers follow its allocation), and the `%_rowid`/`%_parent` maps
//! are written as soon as they change.
//!
//! What a store read or wrote stays in the table's [`NodeCache`] after
//! the operation, stamped with the database's change sequence
//! ([`Connection::change_sequence`]) taken once the operation's last write
//! is done. The next operation (or cursor) uses the cache only if the
//! sequence is still the same: any other write to the database, a
//! rollback (of the transaction or to a savepoint), a transaction's end
//! or another connection's commit (seen when a read transaction starts)
//! changes it, and the cache is dropped. So a bulk insert in one
//! transaction reads the upper levels of the tree once, and nothing read
//! is ever trusted after something may have changed it. Cursors read
//! through the same cache and add what they read to it (queries one after
//! another share the nodes they visit while nothing is written).
//!
//! Invariants: a node in `nodes` is the newest version of that node;
//! `dirty` names only nodes present in `nodes` (checked:
//! rtree_dirty_cached); `parents` agrees with
//! `%_parent` plus the changes made through this store; a cache is put
//! back only by an operation that succeeded and that no other operation
//! on the same table ran inside (a trigger on a shadow table), and holds
//! at most [`CACHE_BYTES`] of node blobs between operations.

use super::node::Node;
use super::shadow::{Arg, Sql};
use super::Rtree;
use crate::connection::Connection;
use crate::error::Result;
use crate::util::fast_hash::FastMap;
use std::collections::{BTreeSet, HashSet};
use std::sync::Arc;

/// Node bytes kept between operations (past it the cache starts over):
/// the inner nodes of a tree of millions of entries and the most
/// recently used leaves.
pub const CACHE_BYTES: usize = 4 << 20;

/// Parent entries kept between operations.
const CACHE_PARENTS: usize = 1 << 16;

/// Nodes and parent links read or written, valid while the database's
/// change sequence is `seq`.
#[derive(Default)]
pub struct NodeCache {
    seq: u64,
    // (Keyed by node number with a multiplicative hash: SipHash was 7%
    // of a bulk insert.)
    nodes: FastMap<i64, Arc<Node>>,
    parents: FastMap<i64, Option<i64>>,
}

impl NodeCache {
    /// Keep the cache under its limits: past [`CACHE_BYTES`] the leaves
    /// go and inner nodes (the root and every node known as a parent)
    /// stay, as they are what the next operation reads; past half of it
    /// after that, everything goes.
    fn trim(&mut self, node_size: usize) {
        let node_size = node_size.max(1);
        if self.nodes.len() * node_size > CACHE_BYTES {
            let inner: HashSet<i64> = self.parents.values().flatten().copied().chain([1]).collect();
            self.nodes.retain(|n, _| inner.contains(n));
            if self.nodes.len() * node_size > CACHE_BYTES / 2 {
                self.nodes.clear();
            }
        }
        if self.parents.len() > CACHE_PARENTS {
            self.parents.clear();
        }
    }
}

impl Rtree {
    /// The table's cache if it is still valid for `conn`, taken out (an
    /// empty one otherwise).
    fn take_cache(&self, conn: &Connection) -> NodeCache {
        let cached = self.cache.lock().unwrap().take();
        match (cached, conn.change_sequence(&self.db)) {
            (Some(c), Some(seq)) if c.seq == seq => c,
            _ => NodeCache::default(),
        }
    }

    /// Node `n` for a cursor: from the cache while it is valid, else
    /// read from `%_node` and remembered (in a new cache if the old one
    /// is stale; not while an operation has the cache out).
    pub fn read_node(&self, conn: &mut Connection, n: i64) -> Result<Arc<Node>> {
        if let Some(seq) = conn.change_sequence(&self.db) {
            let guard = self.cache.lock().unwrap();
            if let Some(node) = guard.as_ref().filter(|c| c.seq == seq).and_then(|c| c.nodes.get(&n)) {
                return Ok(node.clone());
            }
        }
        let node = Arc::new(self.read_node_sql(conn, n)?);
        if let Some(seq) = conn.change_sequence(&self.db) {
            let mut guard = self.cache.lock().unwrap();
            let op_running = self.ops.load(std::sync::atomic::Ordering::Relaxed) != self.ops_done.load(std::sync::atomic::Ordering::Relaxed);
            if !op_running {
                let cache = guard.get_or_insert_with(NodeCache::default);
                if cache.seq != seq {
                    *cache = NodeCache { seq, ..NodeCache::default() };
                }
                cache.trim(self.node_size.load(std::sync::atomic::Ordering::Relaxed));
                cache.nodes.insert(n, node.clone());
            }
        }
        Ok(node)
    }
}

impl Drop for Store<'_> {
    fn drop(&mut self) {
        self.rt.ops_done.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
}

/// The nodes of one operation.
pub struct Store<'a> {
    /// The table.
    pub rt: &'a Rtree,
    /// The connection lent to the operation.
    pub conn: &'a mut Connection,
    cache: NodeCache,
    dirty: BTreeSet<i64>,
    /// The table's operation count when this one started.
    op: u64,
}

impl<'a> Store<'a> {
    /// A store over `rt`'s shadow tables, starting from its cache if
    /// nothing changed since the cache was stamped.
    pub fn new(rt: &'a Rtree, conn: &'a mut Connection) -> Store<'a> {
        let cache = rt.take_cache(conn);
        let op = rt.ops.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        Store { rt, conn, cache, dirty: BTreeSet::new(), op }
    }

    /// Node `n` (a copy; put it back with [`Store::put`]).
    pub fn node(&mut self, n: i64) -> Result<Node> {
        self.node_ref(n).cloned()
    }

    /// Node `n`, borrowed.
    pub fn node_ref(&mut self, n: i64) -> Result<&Node> {
        if !self.cache.nodes.contains_key(&n) {
            let x = self.rt.read_node_sql(self.conn, n)?;
            self.cache.nodes.insert(n, Arc::new(x));
        }
        Ok(&self.cache.nodes[&n])
    }

    /// Node `n`, to change in place (written by [`Store::flush`]; copied
    /// first only if a cursor still holds it).
    pub fn node_mut(&mut self, n: i64) -> Result<&mut Node> {
        self.node_ref(n)?;
        self.dirty.insert(n);
        let node = self.cache.nodes.get_mut(&n).ok_or_else(super::corrupt)?;
        Ok(Arc::make_mut(node))
    }

    /// Replace the cached node; written by [`Store::flush`].
    pub fn put(&mut self, node: Node) {
        self.dirty.insert(node.number);
        self.cache.nodes.insert(node.number, Arc::new(node));
    }

    /// A new empty node with its number taken in `%_node`.
    pub fn new_node(&mut self) -> Result<Node> {
        let size = self.rt.node_size(self.conn)?;
        let mut node = Node::empty(0, size, self.rt.dims, self.rt.kind);
        self.rt.stmts.exec(self.conn, Sql::NewNode, &[Arg::Bytes(&node.data)])?;
        node.number = self.conn.last_insert_rowid();
        self.cache.nodes.insert(node.number, Arc::new(node.clone()));
        Ok(node)
    }

    /// Remove node `n` and its parent entry.
    pub fn delete_node(&mut self, n: i64) -> Result<()> {
        self.cache.nodes.remove(&n);
        self.dirty.remove(&n);
        self.rt.stmts.exec(self.conn, Sql::DeleteNode, &[Arg::Int(n)])?;
        self.rt.stmts.exec(self.conn, Sql::DeleteParent, &[Arg::Int(n)])?;
        self.cache.parents.insert(n, None);
        Ok(())
    }

    /// The parent of node `n` (`None` for the root).
    pub fn parent(&mut self, n: i64) -> Result<Option<i64>> {
        if n == 1 {
            return Ok(None);
        }
        if let Some(p) = self.cache.parents.get(&n) {
            return Ok(*p);
        }
        let p = self.rt.stmts.one(self.conn, Sql::ParentOf, &[Arg::Int(n)])?.map(|v| v.as_ref().to_i64());
        if p.is_none() {
            return Err(super::corrupt());
        }
        self.cache.parents.insert(n, p);
        Ok(p)
    }

    /// Record that node `child` is in node `parent`.
    pub fn set_parent(&mut self, child: i64, parent: i64) -> Result<()> {
        self.rt.stmts.exec(self.conn, Sql::SetParent, &[Arg::Int(child), Arg::Int(parent)])?;
        self.cache.parents.insert(child, Some(parent));
        Ok(())
    }

    /// Record that entry `rowid` is in leaf `leaf` (its auxiliary columns
    /// are kept).
    pub fn set_leaf(&mut self, rowid: i64, leaf: i64) -> Result<()> {
        self.rt.set_leaf(self.conn, rowid, leaf)
    }

    /// Write every changed node.
    pub fn flush(&mut self) -> Result<()> {
        // invariant: rtree_dirty_cached
        debug_assert!(self.dirty.iter().all(|n| self.cache.nodes.contains_key(n)), "a dirty r-tree node not in the store");
        for n in std::mem::take(&mut self.dirty) {
            let data = &self.cache.nodes[&n].data;
            self.rt.stmts.exec(self.conn, Sql::WriteNode, &[Arg::Int(n), Arg::Bytes(data)])?;
        }
        Ok(())
    }

    /// End a successful operation (every write done): the cache goes
    /// back to the table, stamped with the change sequence now.
    pub fn finish(mut self) -> Result<()> {
        self.flush()?;
        if self.rt.ops.load(std::sync::atomic::Ordering::Relaxed) != self.op {
            // (Another operation ran inside this one: what it changed may
            // be stale here.)
            return Ok(());
        }
        let Some(seq) = self.conn.change_sequence(&self.rt.db) else { return Ok(()) };
        let mut cache = std::mem::take(&mut self.cache);
        cache.trim(self.rt.node_size.load(std::sync::atomic::Ordering::Relaxed));
        cache.seq = seq;
        *self.rt.cache.lock().unwrap() = Some(cache);
        Ok(())
    }
}
