//! Sorted runs in a temporary file, and their merge.
//!
//! A run is a sequence of rows, each stored as a 4-byte little-endian
//! length and the row's record as pushed (never re-encoded); runs are appended to one
//! temporary file (deleted when the sorter is dropped). Each run is
//! submitted as one write; the merge reads each run in chunks of
//! [`CHUNK`] bytes, one request in flight per run at most.
//!
//! Invariants: the merge starts only after every write has completed
//! ([`SpillFile::flushed`]) (checked: spill_merge_after_writes); a reader's `head` is the next row of its run
//! not yet returned (a span of its buffer, which only moves when the head
//! is empty), and it is taken exactly once, when that row becomes the
//! current one. The current row is a span of its source's buffer, valid
//! until the next `advance`, which forgets it first.

use super::{order_spans, Span};
use crate::error::{Error, Result};
use crate::io::{Buffer, Completion, File, FileKind, IoContext, OpenOptions};
use crate::value::record::KeyInfo;
use crate::IoPoll;
use std::cmp::Ordering;
use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};
use std::sync::Arc;
use std::task::Poll;

/// Bytes a run reader asks for at a time.
const CHUNK: usize = 64 * 1024;

/// The temporary file of one sorter and the runs written to it.
pub struct SpillFile {
    io: IoContext,
    path: String,
    file: Option<Arc<dyn File>>,
    /// Bytes submitted so far (where the next run starts).
    end: u64,
    /// (offset, length) of each run, in the order written.
    runs: Vec<(u64, u64)>,
    writes: Vec<Completion>,
    /// A failure to open or submit, reported by `flushed`.
    error: Option<Error>,
    /// The connection's count of bytes spilled to temporary files, if
    /// kept (`SQLITE_DBSTATUS_TEMPBUF_SPILL`).
    spill_count: Option<Arc<AtomicU64>>,
}

fn temp_path() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, AtomicOrdering::Relaxed);
    std::env::temp_dir().join(format!("ringlite-sort-{}-{n}", std::process::id())).to_string_lossy().into_owned()
}

impl SpillFile {
    pub fn new(io: IoContext, spill_count: Option<Arc<AtomicU64>>) -> SpillFile {
        SpillFile { io, path: temp_path(), file: None, end: 0, runs: Vec::new(), writes: Vec::new(), error: None, spill_count }
    }

    pub fn runs(&self) -> usize {
        self.runs.len()
    }

    /// Submit `rows` (spans of `arena`, already sorted) as one run.
    pub(super) fn write_run(&mut self, arena: &[u8], rows: &[Span]) {
        if self.error.is_some() {
            return;
        }
        let mut bytes = Vec::with_capacity(arena.len() + 4 * rows.len());
        for row in rows {
            let rec = row.of(arena);
            bytes.extend_from_slice(&(rec.len() as u32).to_le_bytes());
            bytes.extend_from_slice(rec);
        }
        let len = bytes.len() as u64;
        match self.submit_write(bytes) {
            Ok(c) => {
                self.writes.push(c);
                self.runs.push((self.end, len));
                self.end += len;
                if let Some(n) = &self.spill_count {
                    n.fetch_add(len, AtomicOrdering::Relaxed);
                }
            }
            Err(e) => self.error = Some(e),
        }
    }

    fn submit_write(&mut self, bytes: Vec<u8>) -> Result<Completion> {
        if self.file.is_none() {
            let opts = OpenOptions { create: true, exclusive: true, delete_on_close: true, kind: FileKind::Temp, ..Default::default() };
            self.file = Some(self.io.backend().open(&self.path, opts)?);
        }
        match &self.file {
            Some(f) => f.write(self.end, Buffer::from_vec(bytes)),
            None => Err(Error::new(crate::error::SQLITE_INTERNAL, "sorter spill file not open")),
        }
    }

    /// Ready once every run is on the file; the first write error, if any.
    pub fn flushed(&mut self) -> IoPoll<()> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        if self.writes.iter().any(|c| !c.is_done()) {
            return Ok(Poll::Pending);
        }
        for c in self.writes.drain(..) {
            c.take()?;
        }
        Ok(Poll::Ready(()))
    }

    fn read(&self, offset: u64, len: usize) -> Result<Completion> {
        match &self.file {
            Some(f) => f.read(offset, Buffer::zeroed(len)),
            None => Err(Error::new(crate::error::SQLITE_INTERNAL, "sorter spill file not open")),
        }
    }
}

impl Drop for SpillFile {
    fn drop(&mut self) {
        // Backends that honour delete_on_close remove it when the last
        // handle goes; in-memory namespaces need the explicit delete.
        if self.file.take().is_some() {
            let _ = self.io.backend().delete(&self.path, false);
        }
    }
}

/// Reads one run back, row by row.
struct RunReader {
    /// Next file offset to read, and where the run ends.
    next: u64,
    end: u64,
    /// Bytes read and not yet decoded, from `consumed` on.
    buf: Vec<u8>,
    consumed: usize,
    in_flight: Option<Completion>,
    head: Option<Span>,
}

impl RunReader {
    /// Make `head` the run's next row (or leave it `None` at the end of the
    /// run). Ready at once when it already is.
    fn fill(&mut self, file: &SpillFile) -> IoPoll<()> {
        loop {
            if self.head.is_some() {
                return Ok(Poll::Ready(()));
            }
            if let Some(c) = self.in_flight.take() {
                if !c.is_done() {
                    self.in_flight = Some(c);
                    return Ok(Poll::Pending);
                }
                let res = c.take()?;
                let buf = res.buffer.map(Buffer::into_vec).unwrap_or_default();
                if res.bytes == 0 {
                    return Err(Error::corrupt());
                }
                self.buf.drain(..self.consumed);
                self.consumed = 0;
                self.buf.extend_from_slice(&buf[..res.bytes.min(buf.len())]);
                self.next += res.bytes as u64;
            }
            let avail = &self.buf[self.consumed..];
            if avail.len() >= 4 {
                let len = u32::from_le_bytes([avail[0], avail[1], avail[2], avail[3]]) as usize;
                if avail.len() >= 4 + len {
                    self.head = Some(Span::new(&self.buf, self.consumed + 4, len));
                    self.consumed += 4 + len;
                    return Ok(Poll::Ready(()));
                }
            }
            if self.next >= self.end {
                if avail.is_empty() {
                    return Ok(Poll::Ready(())); // the run is finished
                }
                return Err(Error::corrupt()); // a row cut short
            }
            let want = ((self.end - self.next) as usize).min(CHUNK.max(avail.len() + 4));
            self.in_flight = Some(file.read(self.next, want)?);
        }
    }
}

/// The merge of the runs and the rows left in memory.
///
/// A tournament tree picks the smallest head: `tree[node]` (nodes 1 to
/// `width - 1`) is the source winning that subtree, leaves being the
/// sources in age order (older left, so ties go left and the merge stays
/// stable). Taking a row only replays the matches on its leaf's path:
/// log2(sources) comparisons per row instead of one per source.
pub struct Merge {
    readers: Vec<RunReader>,
    /// The records left in memory (newest, sorted) and the next one's
    /// index in `memory_rows`.
    memory: Vec<u8>,
    memory_rows: Vec<Span>,
    memory_next: usize,
    /// A power of two above the number of sources (leaves past the last
    /// source are empty).
    width: usize,
    /// Winners of the internal nodes; empty until every source has its
    /// first head.
    tree: Vec<usize>,
    /// The source whose head was taken last and whose path in the tree
    /// still has to be replayed (once its next head is there).
    taken: Option<usize>,
    /// Source (a reader's index, or `readers.len()` for memory) and span of
    /// the current row.
    current: Option<(usize, Span)>,
}

impl Merge {
    /// Merge `file`'s runs (all written) with `memory_rows`, spans of
    /// `memory` (sorted, newest).
    pub(super) fn new(file: &SpillFile, memory: Vec<u8>, memory_rows: Vec<Span>) -> Merge {
        // invariant: spill_merge_after_writes
        debug_assert!(file.writes.is_empty() && file.error.is_none(), "a merge started with run writes outstanding");
        let readers: Vec<RunReader> =
            file.runs.iter().map(|&(off, len)| RunReader { next: off, end: off + len, buf: Vec::new(), consumed: 0, in_flight: None, head: None }).collect();
        let width = (readers.len() + 1).next_power_of_two().max(2);
        Merge { readers, memory, memory_rows, memory_next: 0, width, tree: Vec::new(), taken: None, current: None }
    }

    /// The next row of source `i` (its span and the buffer it is in), if
    /// it has one in memory.
    fn head(&self, i: usize) -> Option<(Span, &[u8])> {
        match self.readers.get(i) {
            Some(r) => r.head.map(|h| (h, &r.buf[..])),
            None if i == self.readers.len() => self.memory_rows.get(self.memory_next).map(|h| (*h, &self.memory[..])),
            None => None,
        }
    }

    /// The source winning tree node `node` (a leaf: its source).
    fn winner(&self, node: usize) -> usize {
        if node >= self.width {
            node - self.width
        } else {
            self.tree[node]
        }
    }

    /// Replay the match of internal node `node`.
    fn play(&mut self, node: usize, ki: &KeyInfo) {
        let (l, r) = (self.winner(2 * node), self.winner(2 * node + 1));
        let w = match (self.head(l), self.head(r)) {
            (Some((a, a_buf)), Some((b, b_buf))) if order_spans(ki, a, a_buf, b, b_buf) == Ordering::Greater => r,
            (Some(_), _) | (None, None) => l,
            (None, Some(_)) => r,
        };
        self.tree[node] = w;
    }

    /// Make the smallest remaining row the current one; `Ready(false)` when
    /// none remain. Waits for the reads a run needs for its next row.
    pub fn advance(&mut self, file: &SpillFile, ki: &KeyInfo) -> IoPoll<bool> {
        // A reader refilling its buffer moves the bytes the current row
        // pointed at.
        self.current = None;
        if self.tree.is_empty() {
            let mut pending = false;
            for r in &mut self.readers {
                // Submit every first read before waiting on any.
                if r.fill(file)?.is_pending() {
                    pending = true;
                }
            }
            if pending {
                return Ok(Poll::Pending);
            }
            self.tree = vec![0; self.width];
            for node in (1..self.width).rev() {
                self.play(node, ki);
            }
        } else if let Some(t) = self.taken {
            if let Some(r) = self.readers.get_mut(t) {
                crate::ready!(r.fill(file)?);
            }
            let mut node = (self.width + t) / 2;
            while node >= 1 {
                self.play(node, ki);
                node /= 2;
            }
            self.taken = None;
        }
        let w = self.tree[1];
        if self.head(w).is_none() {
            return Ok(Poll::Ready(false));
        }
        self.current = if w < self.readers.len() {
            self.readers[w].head.take().map(|h| (w, h))
        } else {
            self.memory_next += 1;
            Some((w, self.memory_rows[self.memory_next - 1]))
        };
        self.taken = Some(w);
        Ok(Poll::Ready(true))
    }

    pub fn current(&self) -> Option<&[u8]> {
        let (i, span) = self.current?;
        Some(match self.readers.get(i) {
            Some(r) => span.of(&r.buf),
            None => span.of(&self.memory),
        })
    }
}
