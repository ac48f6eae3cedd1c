//! # The order in which SQLite visits a schema's tables
//!
//! A few statements visit every table of a database and let the order
//! show: a bare `ANALYZE` writes `sqlite_stat1` rows table by table, so
//! `SELECT * FROM sqlite_stat1` (no ORDER BY, as applications and their
//! tests read it) lists tables in that order. SQLite keeps a schema's
//! tables in a chained hash table whose iteration order is a linked list,
//! and that order is observable; this module reproduces it from the order
//! in which the tables entered the schema.
//!
//! The model, established by observing SQLite 3.54.1 (see the test
//! `sql_analyze_order` in `tests/engine`):
//! - the list starts empty and without buckets; a name entering a table
//!   without buckets goes to the front of the list (so small schemas are
//!   visited newest first);
//! - once the table holds at least 5 names and more than twice as many
//!   names as buckets, it is rebuilt with three times as many buckets as
//!   names (at most 64): the old list is walked front to back and each
//!   name re-entered into its bucket;
//! - a name entering a non-empty bucket goes just before that bucket's
//!   first name in the list (and becomes the bucket's first); into an
//!   empty bucket it goes to the front of the list;
//! - a bucket is chosen by a multiplicative string hash over the bytes
//!   with their ASCII case bit (0x20) cleared.
//!
//! The first name a schema holds is its own schema table
//! (`sqlite_master`, or `sqlite_temp_master` for TEMP), which SQLite
//! creates before reading the schema's rows in rowid order. A CREATE adds
//! its table, a DROP takes it out (the others keep their places, buckets
//! are not rebuilt), and reading the schema again starts over. A
//! [`TableVisitOrder`] lives in each database's `Schema` and follows the
//! same changes.
//!
//! Invariants: every name is in the list once (checked: visit_order_counts); a
//! bucket's count is the number of listed names hashing to it, and its first
//! name is the one nearest the front of the list among them.

use crate::util::ascii::AsciiLower;
/// Most buckets SQLite gives a schema hash table (its 1,024-byte soft
/// allocation limit over 16-byte buckets).
const MAX_BUCKETS: usize = 64;

/// Buckets appear once a table holds this many names.
const MIN_NAMES_FOR_BUCKETS: usize = 5;

fn name_hash(name: &str) -> u32 {
    name.bytes().fold(0u32, |h, b| h.wrapping_add(u32::from(b & 0xdf)).wrapping_mul(0x9e37_79b1))
}

#[derive(Debug, Clone)]
struct Node {
    name: String,
    hash: u32,
    prev: Option<usize>,
    next: Option<usize>,
}

/// The visiting order of one schema's tables and views, kept as SQLite
/// keeps it (see the module doc).
#[derive(Debug, Clone)]
pub struct TableVisitOrder {
    /// Slots of the list; a removed name leaves `None` for reuse.
    nodes: Vec<Option<Node>>,
    free: Vec<usize>,
    first: Option<usize>,
    /// Per bucket: how many names it holds and the first of them.
    buckets: Vec<(usize, Option<usize>)>,
    len: usize,
    /// The slot of the schema table itself, never visited.
    schema_table: Option<usize>,
}

/// A main or attached database's schema, before its rows are read.
impl Default for TableVisitOrder {
    fn default() -> Self {
        TableVisitOrder::new("sqlite_master")
    }
}

impl TableVisitOrder {
    /// A schema holding only its schema table `schema_table`.
    pub fn new(schema_table: &str) -> Self {
        let mut order = TableVisitOrder { nodes: Vec::new(), free: Vec::new(), first: None, buckets: Vec::new(), len: 0, schema_table: None };
        order.insert(schema_table);
        order.schema_table = Some(0);
        order
    }

    /// The name of the schema table this order started with.
    pub fn schema_table(&self) -> &str {
        self.schema_table.map_or("sqlite_master", |s| &self.node(s).name)
    }

    fn node(&self, slot: usize) -> &Node {
        self.nodes[slot].as_ref().expect("a linked slot holds a name")
    }

    fn node_mut(&mut self, slot: usize) -> &mut Node {
        self.nodes[slot].as_mut().expect("a linked slot holds a name")
    }

    fn link(&mut self, slot: usize) {
        let mut head = None;
        if !self.buckets.is_empty() {
            let b = self.node(slot).hash as usize % self.buckets.len();
            let bucket = &mut self.buckets[b];
            if bucket.0 > 0 {
                head = bucket.1;
            }
            bucket.0 += 1;
            bucket.1 = Some(slot);
        }
        match head {
            Some(h) => {
                let before = self.node(h).prev;
                {
                    let n = self.node_mut(slot);
                    n.next = Some(h);
                    n.prev = before;
                }
                match before {
                    Some(p) => self.node_mut(p).next = Some(slot),
                    None => self.first = Some(slot),
                }
                self.node_mut(h).prev = Some(slot);
            }
            None => {
                let old_first = self.first;
                {
                    let n = self.node_mut(slot);
                    n.next = old_first;
                    n.prev = None;
                }
                if let Some(f) = old_first {
                    self.node_mut(f).prev = Some(slot);
                }
                self.first = Some(slot);
            }
        }
    }

    fn rebuild(&mut self, buckets: usize) {
        let buckets = buckets.min(MAX_BUCKETS);
        if buckets == self.buckets.len() {
            return;
        }
        self.buckets = vec![(0, None); buckets];
        let mut at = self.first.take();
        while let Some(slot) = at {
            at = self.node(slot).next;
            self.link(slot);
        }
    }

    /// A table or view entering the schema.
    pub fn insert(&mut self, name: &str) {
        let node = Node { name: name.to_string(), hash: name_hash(name), prev: None, next: None };
        let slot = match self.free.pop() {
            Some(slot) => {
                self.nodes[slot] = Some(node);
                slot
            }
            None => {
                self.nodes.push(Some(node));
                self.nodes.len() - 1
            }
        };
        self.len += 1;
        if self.len >= MIN_NAMES_FOR_BUCKETS && self.len > 2 * self.buckets.len() {
            self.rebuild(self.len * 3);
        }
        self.link(slot);
    }

    /// A table or view leaving the schema (no-op for a name not in it).
    pub fn remove(&mut self, name: &str) {
        let Some(slot) = (0..self.nodes.len()).find(|&i| Some(i) != self.schema_table && self.nodes[i].as_ref().is_some_and(|n| n.name.eq_ci(name))) else {
            return;
        };
        let (prev, next, hash) = {
            let n = self.node(slot);
            (n.prev, n.next, n.hash)
        };
        match prev {
            Some(p) => self.node_mut(p).next = next,
            None => self.first = next,
        }
        if let Some(n) = next {
            self.node_mut(n).prev = prev;
        }
        if !self.buckets.is_empty() {
            let b = hash as usize % self.buckets.len();
            let bucket = &mut self.buckets[b];
            debug_assert!(bucket.0 > 0);
            if bucket.1 == Some(slot) {
                bucket.1 = next;
            }
            bucket.0 -= 1;
        }
        self.nodes[slot] = None;
        self.free.push(slot);
        self.len -= 1;
    }

    /// The names in visiting order, without the schema table.
    pub fn names(&self) -> Vec<&str> {
        let mut names = Vec::with_capacity(self.len);
        let mut at = self.first;
        while let Some(slot) = at {
            let n = self.node(slot);
            if Some(slot) != self.schema_table {
                names.push(n.name.as_str());
            }
            at = n.next;
        }
        // invariant: visit_order_counts
        debug_assert_eq!(names.len() + usize::from(self.schema_table.is_some()), self.len);
        names
    }
}

/// The order in which SQLite visits the tables of a schema whose schema
/// table is `schema_table` and whose tables (and views) entered it in the
/// order of `names`, freshly read; returns indexes into `names`.
pub fn visit_order(schema_table: &str, names: &[&str]) -> Vec<usize> {
    let mut order = TableVisitOrder::new(schema_table);
    for n in names {
        order.insert(n);
    }
    let visited = order.names();
    let mut taken = vec![false; names.len()];
    visited
        .iter()
        .map(|v| {
            let i = (0..names.len()).find(|&i| !taken[i] && names[i] == *v).expect("every visited name was given");
            taken[i] = true;
            i
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{visit_order, TableVisitOrder};

    #[test]
    fn small_schemas_are_visited_newest_first() {
        assert_eq!(visit_order("sqlite_master", &["b", "a", "c"]), vec![2, 1, 0]);
    }

    #[test]
    fn buckets_from_the_fifth_name_on() {
        // Observed on SQLite 3.54.1: ANALYZE over t0..t7 created in order.
        let names = ["t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7"];
        let order: Vec<&str> = visit_order("sqlite_master", &names).into_iter().map(|i| names[i]).collect();
        assert_eq!(order, ["t4", "t3", "t7", "t6", "t5", "t0", "t1", "t2"]);
    }

    #[test]
    fn removal_keeps_the_others_in_place() {
        let mut order = TableVisitOrder::new("sqlite_master");
        let names: Vec<String> = (0..300).map(|i| format!("t{i}")).collect();
        for n in &names {
            order.insert(n);
        }
        let before: Vec<String> = order.names().into_iter().filter(|n| *n != "t7").map(String::from).collect();
        order.remove("T7");
        assert_eq!(order.names(), before);
        order.insert("t7");
        assert_eq!(order.names().len(), 300);
    }
}
