//! The sorter behind ORDER BY and GROUP BY: records are collected, sorted
//! by their leading key fields, then read in order.
//!
//! Rows stay packed: each pushed record's bytes are appended to one arena
//! and the sort orders (offset, length) spans with a stable merge sort,
//! comparing the records' key fields in place (no decoding into values,
//! no allocation per comparison). `current` hands out the record bytes, so
//! a row is encoded once (`MakeRecord`) and its columns decoded once each
//! (`Column` on the pseudo cursor), as in SQLite.
//!
//! Records are kept in memory up to a budget (the connection's page-cache
//! size, as SQLite's sorter does; a record counts its bytes plus 16 for
//! its span). Beyond it the records collected so far are sorted and
//! written to a temporary file as one sorted *run* (see [`spill`]), and
//! the rows are read back by merging the runs with the records still in
//! memory. Every spill write and merge read is an asynchronous request:
//! `sort` and `next` return `Pending` until their data is there, so an
//! async statement suspends instead of blocking, exactly like a page read.
//!
//! ORDER BY ... LIMIT: [`Sorter::push_bounded`] keeps only the rows that
//! can still be among the first `keep` (LIMIT + OFFSET), as SQLite's
//! sorter does with a limit. Rows collect up to twice `keep`; then they
//! are sorted, cut to `keep`, and the last kept one becomes the
//! *threshold*: a later row not ordered before it is dropped on arrival
//! (ties too: the `keep` rows kept are all older, so a stable sort puts
//! it after them). A sorted, cut batch is followed by newer rows only, so
//! the stable order is kept across compactions and spills.
//!
//! Invariants: rows are only pushed before `sort` and only read after it
//! (checked: sorter_push_before_sort); a push happens exactly once per
//! `SorterInsert` execution and never suspends (a spill only *submits* its
//! write; a submission error is kept and reported by `sort`). The order is
//! stable: equal keys come out in insertion order (runs hold older rows than
//! later runs and than memory, and ties go to the older source). `sort` and
//! `next` may be called again after `Pending` and then continue; they never
//! take a row twice. Every record pushed was built by `MakeRecord`, so it is
//! well formed; should one not be, it compares equal to everything rather than
//! failing the sort (reading its columns then reports the corruption).

mod spill;

use crate::io::IoContext;
use crate::value::compare::compare_values;
use crate::value::record::{compare_record_keys, first_int_field, KeyInfo};
use crate::value::Value;
use crate::IoPoll;
use spill::{Merge, SpillFile};
use std::cmp::Ordering;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use std::task::Poll;

/// Smallest in-memory budget: a tiny cache must not turn every few rows
/// into a run.
const MIN_BUDGET: usize = 64 * 1024;

/// Memory a record costs beyond its bytes, for the budget (SQLite's
/// per-record overhead, so both spill at the same point).
const SPAN_BYTES: usize = 16;

/// Where one record lies in a buffer, and its first field when that is an
/// integer (compared without touching the record).
#[derive(Debug, Clone, Copy)]
struct Span {
    start: usize,
    len: usize,
    key: Option<i64>,
}

impl Span {
    #[inline]
    fn new(buf: &[u8], start: usize, len: usize) -> Span {
        let key = buf.get(start..start + len).and_then(first_int_field);
        Span { start, len, key }
    }

    fn of(self, buf: &[u8]) -> &[u8] {
        buf.get(self.start..self.start + self.len).unwrap_or(&[])
    }
}

/// The sorter's order of two records.
fn order(ki: &KeyInfo, a: &[u8], b: &[u8]) -> Ordering {
    compare_record_keys(a, b, ki).unwrap_or(Ordering::Equal)
}

/// The order of two records given with their spans (in `a_buf` and
/// `b_buf`): integer first keys decide without reading the records.
fn order_spans(ki: &KeyInfo, a: Span, a_buf: &[u8], b: Span, b_buf: &[u8]) -> Ordering {
    if let (Some(f), Some(x), Some(y)) = (ki.fields.first(), a.key, b.key) {
        let o = x.cmp(&y);
        if o != Ordering::Equal {
            return if f.descending { o.reverse() } else { o };
        }
        if ki.fields.len() == 1 {
            return Ordering::Equal;
        }
    }
    order(ki, a.of(a_buf), b.of(b_buf))
}

/// Sort `rows` (spans of `arena`) by `ki`, stably.
fn sort_spans(ki: &KeyInfo, arena: &[u8], rows: &mut [Span]) {
    // One integer key field on every row (GROUP BY an integer column):
    // the cached keys alone decide.
    if let [field] = ki.fields.as_slice() {
        if rows.iter().all(|r| r.key.is_some()) {
            let key = |r: &Span| r.key.unwrap_or(0);
            if field.descending {
                rows.sort_by_key(|r| std::cmp::Reverse(key(r)));
            } else {
                rows.sort_by_key(key);
            }
            return;
        }
    }
    rows.sort_by(|a, b| order_spans(ki, *a, arena, *b, arena));
}

/// A sorter.
pub struct Sorter {
    key_info: Arc<KeyInfo>,
    /// The records pushed since the last spill, back to back.
    arena: Vec<u8>,
    /// Each record of `arena`: in push order until sorted.
    rows: Vec<Span>,
    pos: usize,
    sorted: bool,
    /// Where spills go, and how many bytes of records memory may hold;
    /// `None`: never spill.
    spill_to: Option<(IoContext, usize)>,
    file: Option<SpillFile>,
    merge: Option<Merge>,
    /// The last row kept by the latest cut of a bounded sorter (its bytes
    /// and its span over them); `None` before any cut.
    threshold: Option<(Vec<u8>, Span)>,
    /// The buffer a cut copies the kept rows into.
    cut_spare: Vec<u8>,
    /// The connection's count of bytes spilled to temporary files
    /// (`SQLITE_DBSTATUS_TEMPBUF_SPILL`), when it keeps one.
    spill_count: Option<Arc<AtomicU64>>,
}

/// Rows a bounded sorter collects before cutting back to `keep`: twice
/// `keep` (each cut then costs one sort of twice `keep` rows per `keep`
/// rows kept), and a few more for a small LIMIT, whose cuts would
/// otherwise come every row or two.
fn cut_at(keep: usize) -> usize {
    keep.saturating_mul(2).max(keep.saturating_add(16))
}

impl Sorter {
    /// An empty in-memory sorter ordering by `key_info`'s fields.
    pub fn new(key_info: Arc<KeyInfo>) -> Sorter {
        Sorter {
            key_info,
            arena: Vec::new(),
            rows: Vec::new(),
            pos: 0,
            sorted: false,
            spill_to: None,
            file: None,
            merge: None,
            threshold: None,
            cut_spare: Vec::new(),
            spill_count: None,
        }
    }

    /// A sorter that spills to a temporary file through `io` once its rows
    /// take more than `budget` bytes.
    pub fn with_spill(key_info: Arc<KeyInfo>, io: IoContext, budget: usize) -> Sorter {
        let mut s = Sorter::new(key_info);
        s.spill_to = Some((io, budget.max(MIN_BUDGET)));
        s
    }

    /// Count the bytes of the runs this sorter spills in `counter`.
    pub fn counting_spills_in(mut self, counter: Arc<AtomicU64>) -> Sorter {
        self.spill_count = Some(counter);
        self
    }

    /// Sorted runs written to the temporary file so far.
    pub fn runs(&self) -> usize {
        self.file.as_ref().map_or(0, |f| f.runs())
    }

    /// Add one row (a record). May submit a spill (never waits).
    pub fn push(&mut self, record: &[u8]) {
        // invariant: sorter_push_before_sort
        debug_assert!(!self.sorted, "a row pushed into a sorted sorter");
        let start = self.arena.len();
        self.arena.extend_from_slice(record);
        self.rows.push(Span::new(&self.arena, start, record.len()));
        let Some((io, budget)) = &self.spill_to else { return };
        if self.arena.len() + self.rows.len() * SPAN_BYTES <= *budget {
            return;
        }
        sort_spans(&self.key_info, &self.arena, &mut self.rows);
        let file = match &mut self.file {
            Some(f) => f,
            None => self.file.insert(SpillFile::new(io.clone(), self.spill_count.clone())),
        };
        file.write_run(&self.arena, &self.rows);
        self.arena.clear();
        self.rows.clear();
    }

    /// Add one row when only the first `keep` rows of the sorted order
    /// will be read (ORDER BY ... LIMIT; `keep` is LIMIT + OFFSET, at
    /// least 1): a row that cannot be among them is dropped, and the rows
    /// held are cut back to `keep` from time to time (see the module
    /// doc). The rows read back begin with the same `keep` rows, in the
    /// same order, as if every row had been pushed.
    pub fn push_bounded(&mut self, record: &[u8], keep: usize) {
        // invariant: sorter_push_before_sort
        debug_assert!(keep > 0 && !self.sorted);
        let ki = &*self.key_info;
        if let Some((bytes, span)) = &self.threshold {
            let new = Span::new(record, 0, record.len());
            if order_spans(ki, new, record, *span, bytes) != Ordering::Less {
                return;
            }
        }
        self.push(record);
        if self.rows.len() >= cut_at(keep) {
            self.cut(keep);
        }
    }

    /// Sort the rows in memory, keep the first `keep`, and make the last
    /// of them the threshold.
    fn cut(&mut self, keep: usize) {
        sort_spans(&self.key_info, &self.arena, &mut self.rows);
        self.rows.truncate(keep);
        // (The kept rows are copied out in order into the spare buffer,
        // which then becomes the arena: no allocation once both have grown.)
        let mut arena = std::mem::take(&mut self.cut_spare);
        arena.clear();
        for r in &mut self.rows {
            let start = arena.len();
            arena.extend_from_slice(r.of(&self.arena));
            r.start = start;
        }
        self.cut_spare = std::mem::replace(&mut self.arena, arena);
        if let Some(last) = self.rows.last() {
            let (bytes, span) = self.threshold.get_or_insert_with(|| (Vec::new(), *last));
            bytes.clear();
            bytes.extend_from_slice(last.of(&self.arena));
            *span = Span { start: 0, len: bytes.len(), key: last.key };
        }
    }

    /// Sort and move to the first row: `Ready(false)` if there is none.
    pub fn sort(&mut self) -> IoPoll<bool> {
        if !self.sorted {
            sort_spans(&self.key_info, &self.arena, &mut self.rows);
            self.sorted = true;
            self.pos = 0;
        }
        let Some(file) = self.file.as_mut() else { return Ok(Poll::Ready(!self.rows.is_empty())) };
        if self.merge.is_none() {
            crate::ready!(file.flushed()?);
            self.merge = Some(Merge::new(file, std::mem::take(&mut self.arena), std::mem::take(&mut self.rows)));
        }
        self.advance()
    }

    /// Advance; `Ready(false)` at the end. (Not an `Iterator`: it may
    /// suspend on I/O.)
    #[allow(clippy::should_implement_trait, reason = "not an `Iterator`: it may suspend on I/O, so it answers `IoPoll<bool>`")]
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

    /// The current row's record.
    pub fn current(&self) -> Option<&[u8]> {
        if let Some(m) = &self.merge {
            return m.current();
        }
        if self.sorted {
            self.rows.get(self.pos).map(|s| s.of(&self.arena))
        } else {
            None
        }
    }
}

/// One field of two rows. Two integers (most keys) compare without the
/// general comparison's dispatch; no collation applies to them.
#[inline(always)]
fn compare_field(x: &Value, y: &Value, coll: Option<&crate::value::collation::Collation>) -> Ordering {
    match (x, y) {
        (Value::Integer(p), Value::Integer(q)) => p.cmp(q),
        _ => compare_values(x.as_ref(), y.as_ref(), coll),
    }
}

/// Compare two rows by the fields `ki` describes (extra fields ignored).
pub fn compare_keys(ki: &KeyInfo, a: &[Value], b: &[Value]) -> Ordering {
    for (i, f) in ki.fields.iter().enumerate() {
        let (x, y) = (a.get(i).unwrap_or(&Value::Null), b.get(i).unwrap_or(&Value::Null));
        let o = compare_field(x, y, Some(&f.collation));
        let o = if f.descending { o.reverse() } else { o };
        if o != Ordering::Equal {
            return o;
        }
    }
    Ordering::Equal
}

/// Compare the first `n` fields of two rows: those `ki` describes with
/// their collation and order, any further ones BINARY ascending, without
/// building a padded key description: a lookup compares a dozen rows or
/// more.
pub fn compare_leading(ki: &KeyInfo, n: usize, a: &[Value], b: &[Value]) -> Ordering {
    for i in 0..n {
        let (x, y) = (a.get(i).unwrap_or(&Value::Null), b.get(i).unwrap_or(&Value::Null));
        let o = match ki.fields.get(i) {
            Some(f) if f.descending => compare_field(x, y, Some(&f.collation)).reverse(),
            Some(f) => compare_field(x, y, Some(&f.collation)),
            None => compare_field(x, y, None),
        };
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
            (Some(x), Some(y)) => compare_field(x, y, None),
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
            out.push(crate::value::record::decode_record(s.current().unwrap()).unwrap());
            more = io.block_on(|| s.next()).unwrap();
        }
        out
    }

    #[test]
    fn mixed_keys_sort_as_values_do_spilled_or_not() {
        let io = IoContext::new(Arc::new(MemoryBackend::new()));
        // First key DESC over every storage class (integers of every width,
        // reals equal to integers, text, blobs, NULL), second key ASC.
        let ki = Arc::new(KeyInfo {
            fields: vec![KeyField { collation: Collation::binary(), descending: true }, KeyField { collation: Collation::binary(), descending: false }],
        });
        let key = |i: i64| match i % 7 {
            0 => Value::Integer((i * 7919) % 23 - 11),
            1 => Value::Integer(((i * 7919) % 23 - 11) << 40),
            2 => Value::Real(((i * 31) % 23 - 11) as f64),
            3 => Value::text(format!("t{}", i % 13)),
            4 => Value::Blob(vec![(i % 5) as u8]),
            5 => Value::Null,
            _ => Value::Integer(i % 2),
        };
        let rows: Vec<Vec<Value>> = (0..12_000i64).map(|i| vec![key(i), Value::Integer(i % 17), Value::Integer(i)]).collect();
        let mut spilled = Sorter::with_spill(ki.clone(), io.clone(), 0);
        let mut in_memory = Sorter::new(ki.clone());
        for row in &rows {
            let rec = crate::value::record::encode_record(row);
            spilled.push(&rec);
            in_memory.push(&rec);
        }
        assert!(spilled.runs() > 3, "{} runs", spilled.runs());
        let mut want = rows.clone();
        want.sort_by(|a, b| compare_keys(&ki, a, b));
        let want = format!("{want:?}");
        assert!(format!("{:?}", drain(&mut spilled, &io)) == want, "the spilled sort differs from the values' order");
        assert!(format!("{:?}", drain(&mut in_memory, &io)) == want, "the in-memory sort differs from the values' order");
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
            let rec = crate::value::record::encode_record(&row);
            spilled.push(&rec);
            in_memory.push(&rec);
        }
        assert!(spilled.runs() > 5, "{} runs", spilled.runs());
        let a = drain(&mut spilled, &io);
        let b = drain(&mut in_memory, &io);
        assert_eq!(a.len(), 20_000);
        assert!(format!("{a:?}") == format!("{b:?}"), "the spilled merge differs from the in-memory sort");
    }

    #[test]
    fn a_bounded_sorter_reads_back_the_first_rows_of_the_full_sort() {
        let io = IoContext::new(Arc::new(MemoryBackend::new()));
        let asc = KeyField { collation: Collation::binary(), descending: false };
        let desc = KeyField { collation: Collation::binary(), descending: true };
        // One integer key with many ties (the cached-key path), and a text
        // key DESC then an integer (the record comparison path).
        for fields in [vec![asc.clone()], vec![desc, asc]] {
            let ki = Arc::new(KeyInfo { fields });
            let row = |i: i64| {
                let k = (i * 7919) % 53;
                vec![if ki.fields.len() == 1 { Value::Integer(k) } else { Value::text(format!("k{}", k % 7)) }, Value::Integer(k % 3), Value::Integer(i)]
            };
            for keep in [1usize, 2, 10, 17, 100, 5_000] {
                for budget in [None, Some(0)] {
                    let mut full = Sorter::new(ki.clone());
                    let mut bounded = match budget {
                        Some(b) => Sorter::with_spill(ki.clone(), io.clone(), b),
                        None => Sorter::new(ki.clone()),
                    };
                    for i in 0..3_000i64 {
                        let rec = crate::value::record::encode_record(&row(i));
                        full.push(&rec);
                        bounded.push_bounded(&rec, keep);
                    }
                    let want = drain(&mut full, &io);
                    let got = drain(&mut bounded, &io);
                    let n = keep.min(want.len());
                    assert!(got.len() >= n, "keep {keep}: {} rows", got.len());
                    assert!(budget.is_some() || got.len() < cut_at(keep).max(n + 1), "keep {keep}: {} rows held", got.len());
                    assert!(format!("{:?}", &got[..n]) == format!("{:?}", &want[..n]), "keep {keep}, budget {budget:?}: the first rows differ");
                }
            }
        }
    }
}
