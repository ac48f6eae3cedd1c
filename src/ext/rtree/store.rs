//! # One operation's view of an R*Tree: nodes cached, maps written through
//!
//! An insert or delete reads nodes from `%_node` once, changes them in
//! memory and writes each changed node back when the operation finishes
//! ([`Store::flush`]); node numbers are taken and given back at once
//! (a new node is inserted with a NULL number, SQLite's way, so numbers
//! follow its allocation), and the `%_rowid`/`%_parent` maps are written
//! as soon as they change.
//!
//! Invariants: a node in `nodes` is the newest version of that node;
//! `dirty` names only nodes present in `nodes`; `parents` agrees with
//! `%_parent` plus the changes made through this store.

use super::node::Node;
use super::Rtree;
use crate::connection::Connection;
use crate::error::Result;
use crate::value::Value;
use std::collections::{BTreeSet, HashMap};

/// The cache of one operation.
pub struct Store<'a> {
    /// The table.
    pub rt: &'a Rtree,
    /// The connection lent to the operation.
    pub conn: &'a mut Connection,
    nodes: HashMap<i64, Node>,
    dirty: BTreeSet<i64>,
    parents: HashMap<i64, Option<i64>>,
}

impl<'a> Store<'a> {
    /// A store over `rt`'s shadow tables.
    pub fn new(rt: &'a Rtree, conn: &'a mut Connection) -> Store<'a> {
        Store { rt, conn, nodes: HashMap::new(), dirty: BTreeSet::new(), parents: HashMap::new() }
    }

    /// Node `n` (a copy; put it back with [`Store::put`]).
    pub fn node(&mut self, n: i64) -> Result<Node> {
        if let Some(x) = self.nodes.get(&n) {
            return Ok(x.clone());
        }
        let x = self.rt.read_node(self.conn, n)?;
        self.nodes.insert(n, x.clone());
        Ok(x)
    }

    /// Replace the cached node; written by [`Store::flush`].
    pub fn put(&mut self, node: Node) {
        self.dirty.insert(node.number);
        self.nodes.insert(node.number, node);
    }

    /// A new empty node with its number taken in `%_node`.
    pub fn new_node(&mut self) -> Result<Node> {
        let sql = format!("INSERT INTO {}(nodeno, data) VALUES(NULL, ?1)", self.rt.shadow("node"));
        let size = self.rt.node_size(self.conn)?;
        let mut node = Node::empty(0, size, self.rt.dims, self.rt.kind);
        self.rt.stmts.exec(self.conn, &sql, &[Value::Blob(node.data.clone())])?;
        node.number = self.conn.last_insert_rowid();
        self.nodes.insert(node.number, node.clone());
        Ok(node)
    }

    /// Remove node `n` and its parent entry.
    pub fn delete_node(&mut self, n: i64) -> Result<()> {
        self.nodes.remove(&n);
        self.dirty.remove(&n);
        let sql = format!("DELETE FROM {} WHERE nodeno = ?1", self.rt.shadow("node"));
        self.rt.stmts.exec(self.conn, &sql, &[Value::Integer(n)])?;
        let sql = format!("DELETE FROM {} WHERE nodeno = ?1", self.rt.shadow("parent"));
        self.rt.stmts.exec(self.conn, &sql, &[Value::Integer(n)])?;
        self.parents.insert(n, None);
        Ok(())
    }

    /// The parent of node `n` (`None` for the root).
    pub fn parent(&mut self, n: i64) -> Result<Option<i64>> {
        if n == 1 {
            return Ok(None);
        }
        if let Some(p) = self.parents.get(&n) {
            return Ok(*p);
        }
        let sql = format!("SELECT parentnode FROM {} WHERE nodeno = ?1", self.rt.shadow("parent"));
        let p = self.rt.stmts.one(self.conn, &sql, &[Value::Integer(n)])?.map(|v| v.as_ref().to_i64());
        if p.is_none() {
            return Err(super::corrupt());
        }
        self.parents.insert(n, p);
        Ok(p)
    }

    /// Record that node `child` is in node `parent`.
    pub fn set_parent(&mut self, child: i64, parent: i64) -> Result<()> {
        let sql = format!("INSERT OR REPLACE INTO {}(nodeno, parentnode) VALUES(?1, ?2)", self.rt.shadow("parent"));
        self.rt.stmts.exec(self.conn, &sql, &[Value::Integer(child), Value::Integer(parent)])?;
        self.parents.insert(child, Some(parent));
        Ok(())
    }

    /// Record that entry `rowid` is in leaf `leaf` (its auxiliary columns
    /// are kept).
    pub fn set_leaf(&mut self, rowid: i64, leaf: i64) -> Result<()> {
        self.rt.set_leaf(self.conn, rowid, leaf)
    }

    /// Write every changed node.
    pub fn flush(&mut self) -> Result<()> {
        let sql = format!("INSERT OR REPLACE INTO {}(nodeno, data) VALUES(?1, ?2)", self.rt.shadow("node"));
        for n in std::mem::take(&mut self.dirty) {
            let data = self.nodes[&n].data.clone();
            self.rt.stmts.exec(self.conn, &sql, &[Value::Integer(n), Value::Blob(data)])?;
        }
        Ok(())
    }
}
