//! The sorter behind ORDER BY and GROUP BY: rows are collected in memory,
//! sorted once by their leading key fields, then read in order.
//!
//! Invariant: rows are only pushed before `sort` and only read after it;
//! a push happens exactly once per `SorterInsert` execution (the insert has
//! no I/O, so it can never be suspended halfway).

use crate::value::record::KeyInfo;
use crate::value::Value;
use crate::vdbe::value_ops::compare;
use std::cmp::Ordering;
use std::sync::Arc;

/// An in-memory sorter.
pub struct Sorter {
    key_info: Arc<KeyInfo>,
    rows: Vec<Vec<Value>>,
    pos: usize,
    sorted: bool,
}

impl Sorter {
    /// An empty sorter ordering by `key_info`'s fields.
    pub fn new(key_info: Arc<KeyInfo>) -> Sorter {
        Sorter { key_info, rows: Vec::new(), pos: 0, sorted: false }
    }

    /// Add one row (decoded record).
    pub fn push(&mut self, row: Vec<Value>) {
        self.rows.push(row);
    }

    /// Sort (stable: equal keys keep insertion order); `false` if empty.
    pub fn sort(&mut self) -> bool {
        let ki = self.key_info.clone();
        self.rows.sort_by(|a, b| compare_keys(&ki, a, b));
        self.sorted = true;
        self.pos = 0;
        !self.rows.is_empty()
    }

    /// Advance; `false` at the end.
    pub fn next(&mut self) -> bool {
        self.pos += 1;
        self.pos < self.rows.len()
    }

    /// The current row.
    pub fn current(&self) -> Option<&Vec<Value>> {
        if self.sorted {
            self.rows.get(self.pos)
        } else {
            None
        }
    }
}

/// Compare two rows by the fields `ki` describes (extra fields ignored).
pub fn compare_keys(ki: &KeyInfo, a: &[Value], b: &[Value]) -> Ordering {
    for (i, f) in ki.fields.iter().enumerate() {
        let (x, y) = (a.get(i).unwrap_or(&Value::Null), b.get(i).unwrap_or(&Value::Null));
        let o = compare(x, y, Some(&f.collation));
        let o = if f.descending { o.reverse() } else { o };
        if o != Ordering::Equal {
            return o;
        }
    }
    Ordering::Equal
}

/// Compare full rows: the described fields, then the remaining fields with
/// BINARY ascending (index entries end with the rowid).
pub fn compare_full(ki: &KeyInfo, a: &[Value], b: &[Value]) -> Ordering {
    let o = compare_keys(ki, a, b);
    if o != Ordering::Equal {
        return o;
    }
    let n = ki.fields.len();
    let len = a.len().max(b.len());
    for i in n..len {
        let (x, y) = (a.get(i), b.get(i));
        let o = match (x, y) {
            (Some(x), Some(y)) => compare(x, y, None),
            (None, Some(_)) => Ordering::Less,
            (Some(_), None) => Ordering::Greater,
            (None, None) => Ordering::Equal,
        };
        if o != Ordering::Equal {
            return o;
        }
    }
    Ordering::Equal
}
