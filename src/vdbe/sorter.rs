//! The sorter behind ORDER BY and GROUP BY: rows are collected, sorted by
//! their leading key fields, then read in order.
//!
//! Rows are kept in memory up to a budget (the connection's page-cache
//! size, as SQLite's sorter does). Beyond it the rows collected so far are
//! sorted and written to a temporary file as one sorted *run* (see
//! [`spill`]), and the rows are read back by merging the runs with the rows
//! still in memory. Every spill write and merge read is an asynchronous
//! request: `sort` and `next` return `Pending` until their data is there,
//! so an async statement suspends instead of blocking, exactly like a page
//! read.
//!
//! Invariants: rows are only pushed before `sort` and only read after it;
//! a push happens exactly once per `SorterInsert` execution and never
//! suspends (a spill only *submits* its write; a submission error is kept
//! and reported by `sort`). The order is stable: equal keys come out in
//! insertion order (runs hold older rows than later runs and than memory,
//! and ties go to the older source). `sort` and `next` may be called again
//! after `Pending` and then continue; they never take a row twice.

mod spill;

use crate::io::IoContext;
use crate::value::record::KeyInfo;
use crate::value::Value;
use crate::vdbe::value_ops::compare;
use crate::IoPoll;
use spill::{Merge, SpillFile};
use std::cmp::Ordering;
use std::sync::Arc;
use std::task::Poll;

/// Smallest in-memory budget: a tiny cache must not turn every few rows
/// into a run.
const MIN_BUDGET: usize = 64 * 1024;

/// A sorter.
pub struct Sorter {
    key_info: Arc<KeyInfo>,
    rows: Vec<Vec<Value>>,
    pos: usize,
    sorted: bool,
    /// Where spills go, and how many bytes of rows memory may hold;
    /// `None`: never spill.
    spill_to: Option<(IoContext, usize)>,
    mem_bytes: usize,
    file: Option<SpillFile>,
    merge: Option<Merge>,
}

impl Sorter {
    /// An empty in-memory sorter ordering by `key_info`'s fields.
    pub fn new(key_info: Arc<KeyInfo>) -> Sorter {
        Sorter { key_info, rows: Vec::new(), pos: 0, sorted: false, spill_to: None, mem_bytes: 0, file: None, merge: None }
    }

    /// A sorter that spills to a temporary file through `io` once its rows
    /// take more than `budget` bytes.
    pub fn with_spill(key_info: Arc<KeyInfo>, io: IoContext, budget: usize) -> Sorter {
        let mut s = Sorter::new(key_info);
        s.spill_to = Some((io, budget.max(MIN_BUDGET)));
        s
    }

    /// Sorted runs written to the temporary file so far.
    pub fn runs(&self) -> usize {
        self.file.as_ref().map_or(0, |f| f.runs())
    }

    /// Add one row (decoded record). May submit a spill (never waits).
    pub fn push(&mut self, row: Vec<Value>) {
        self.mem_bytes += row_bytes(&row);
        self.rows.push(row);
        let Some((io, budget)) = &self.spill_to else { return };
        if self.mem_bytes <= *budget {
            return;
        }
        let ki = self.key_info.clone();
        self.rows.sort_by(|a, b| compare_keys(&ki, a, b));
        let file = match &mut self.file {
            Some(f) => f,
            None => self.file.insert(SpillFile::new(io.clone())),
        };
        file.write_run(&self.rows);
        self.rows.clear();
        self.mem_bytes = 0;
    }

    /// Sort and move to the first row: `Ready(false)` if there is none.
    pub fn sort(&mut self) -> IoPoll<bool> {
        if !self.sorted {
            let ki = self.key_info.clone();
            self.rows.sort_by(|a, b| compare_keys(&ki, a, b));
            self.sorted = true;
            self.pos = 0;
        }
        let Some(file) = self.file.as_mut() else { return Ok(Poll::Ready(!self.rows.is_empty())) };
        if self.merge.is_none() {
            crate::ready!(file.flushed()?);
            self.merge = Some(Merge::new(file, std::mem::take(&mut self.rows)));
        }
        self.advance()
    }

    /// Advance; `Ready(false)` at the end.
    pub fn next(&mut self) -> IoPoll<bool> {
        if self.merge.is_some() {
            return self.advance();
        }
        self.pos += 1;
        Ok(Poll::Ready(self.pos < self.rows.len()))
    }

    fn advance(&mut self) -> IoPoll<bool> {
        match (self.merge.as_mut(), self.file.as_ref()) {
            (Some(m), Some(f)) => m.advance(f, &self.key_info),
            _ => Ok(Poll::Ready(false)),
        }
    }

    /// The current row.
    pub fn current(&self) -> Option<&Vec<Value>> {
        if let Some(m) = &self.merge {
            return m.current();
        }
        if self.sorted {
            self.rows.get(self.pos)
        } else {
            None
        }
    }
}

/// Approximate memory of a decoded row.
fn row_bytes(row: &[Value]) -> usize {
    24 + row
        .iter()
        .map(|v| {
            16 + match v {
                Value::Text(t) => t.len(),
                Value::Blob(b) => b.len(),
                _ => 0,
            }
        })
        .sum::<usize>()
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::memory::MemoryBackend;
    use crate::value::collation::Collation;
    use crate::value::record::KeyField;

    fn drain(s: &mut Sorter, io: &IoContext) -> Vec<Vec<Value>> {
        let mut out = Vec::new();
        let mut more = io.block_on(|| s.sort()).unwrap();
        while more {
            out.push(s.current().unwrap().clone());
            more = io.block_on(|| s.next()).unwrap();
        }
        out
    }

    #[test]
    fn spilled_runs_merge_in_order_and_keep_ties_stable() {
        let io = IoContext::new(Arc::new(MemoryBackend::new()));
        let ki = Arc::new(KeyInfo { fields: vec![KeyField { collation: Collation::binary(), descending: false }] });
        let mut spilled = Sorter::with_spill(ki.clone(), io.clone(), 0);
        let mut in_memory = Sorter::new(ki);
        for i in 0..20_000i64 {
            // Key with many ties; the second field records insertion order.
            let row = vec![Value::Integer((i * 7919) % 101), Value::Integer(i), Value::text("x".repeat((i % 50) as usize))];
            spilled.push(row.clone());
            in_memory.push(row);
        }
        assert!(spilled.runs() > 5, "{} runs", spilled.runs());
        let a = drain(&mut spilled, &io);
        let b = drain(&mut in_memory, &io);
        assert_eq!(a.len(), 20_000);
        assert!(format!("{a:?}") == format!("{b:?}"), "the spilled merge differs from the in-memory sort");
    }
}
