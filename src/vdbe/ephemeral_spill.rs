//! # The file an ephemeral table's rows spill to
//!
//! SQLite keeps a transient table (OpenEphemeral: DISTINCT sets, IN lists,
//! materialized subqueries, views and CTEs) in a B-tree whose pager holds
//! `SQLITE_DEFAULT_CACHE_SIZE` (2000 KiB) of pages; past that it writes
//! pages to a temporary file it opens then, through the connection's VFS,
//! with no name and `SQLITE_OPEN_TRANSIENT_DB | READWRITE | CREATE |
//! EXCLUSIVE | DELETEONCLOSE` (never under `PRAGMA temp_store=MEMORY`).
//! Ours keeps the rows in chunks ([`super::ephemeral_rows`]); the chunks
//! not used lately are written here, opened the same way at the first
//! chunk written, and read back when a lookup or a scan reaches them.
//!
//! A chunk is stored as its rows one after the other, each its rowid (8
//! bytes little-endian), its record's length (4 bytes) and the record
//! SQLite would write for its fields. A chunk's bytes live in an
//! *extent*: a power-of-two slot (512 bytes at least) at a file offset.
//! A chunk written again goes back into its extent when it fits; freed
//! extents are reused by size class, so the file stays within about twice
//! the rows it holds.
//!
//! A keyed table's store only weighs its rows: past the budget they move
//! into a B-tree ([`SpillStore::handing_off`], `super::ephemeral_tree`),
//! and nothing is ever written here.
//!
//! The reads and writes wait for their completion (they happen inside
//! instructions that cannot suspend: a DISTINCT probe, an insert). On an
//! async connection they block that step like a callback's statement.
//!
//! Invariants: an extent is owned by at most one chunk or one free list
//! (checked: spill_extent_free_once); `end` is past every extent handed
//! out. The first I/O error is kept and
//! every later call fails with it.

use crate::error::{Error, Result};
use crate::io::{Buffer, File, FileKind, IoContext, OpenOptions};
use crate::value::record::{decode_record, RecordBuilder};
use crate::value::Value;
use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};
use std::sync::Arc;

/// One row: its rowid (0 in a keyed table) and its fields.
pub type Row = (i64, Vec<Value>);

/// Smallest extent: size class 0.
const MIN_EXTENT: u64 = 512;

/// Where a chunk's bytes are.
#[derive(Debug, Clone, Copy)]
pub struct Extent {
    offset: u64,
    class: u8,
    len: u64,
}

impl Extent {
    fn capacity(&self) -> u64 {
        MIN_EXTENT << self.class
    }
}

/// The spill file of one ephemeral table.
pub struct SpillStore {
    io: IoContext,
    path: String,
    file: Option<Arc<dyn File>>,
    /// Past the last extent handed out.
    end: u64,
    /// Free extents' offsets, by size class.
    free: Vec<Vec<u64>>,
    /// Bytes of rows the table may hold in memory before chunks go here.
    budget: usize,
    /// The first failure; reported by every later call.
    error: Option<Error>,
    /// Rows past the budget go elsewhere: nothing is written here.
    hand_off: bool,
}

fn temp_path() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, AtomicOrdering::Relaxed);
    std::env::temp_dir().join(format!("ringlite-eph-{}-{n}", std::process::id())).to_string_lossy().into_owned()
}

impl SpillStore {
    /// A store for a table that may hold `budget` bytes of rows in memory.
    pub fn new(io: IoContext, budget: usize) -> SpillStore {
        SpillStore { io, path: String::new(), file: None, end: 0, free: Vec::new(), budget, error: None, hand_off: false }
    }

    /// A store that only weighs the rows: past `budget` they are handed
    /// to `io`'s backend by their owner ([`SpillStore::hand_off_to`]).
    pub fn handing_off(io: IoContext, budget: usize) -> SpillStore {
        let mut s = SpillStore::new(io, budget);
        s.hand_off = true;
        s
    }

    /// Whether the rows past the budget go elsewhere.
    pub fn hands_off(&self) -> bool {
        self.hand_off
    }

    /// For a store made by [`SpillStore::handing_off`]: the backend the
    /// rows go to.
    pub fn hand_off_to(&self) -> Option<Arc<dyn crate::io::IoBackend>> {
        self.hand_off.then(|| self.io.backend().clone())
    }

    /// Bytes of rows (as [`row_weight`] counts them) memory may hold.
    pub fn budget(&self) -> usize {
        self.budget
    }

    /// Whether a chunk was written (the file is open).
    pub fn is_open(&self) -> bool {
        self.file.is_some()
    }

    /// The first failure, if any (then the table's contents are unknown).
    pub fn error(&self) -> Option<&Error> {
        self.error.as_ref()
    }

    fn fail(&mut self, e: Error) -> Error {
        if self.error.is_none() {
            self.error = Some(e.clone());
        }
        e
    }

    /// Every extent is free again (the table was emptied); the file stays
    /// open, as SQLite's pager keeps its file when a table is cleared.
    pub fn reset(&mut self) {
        self.end = 0;
        self.free.clear();
    }

    /// Give `ext` back.
    pub fn release(&mut self, ext: Extent) {
        let class = ext.class as usize;
        // invariant: spill_extent_free_once
        debug_assert!(
            ext.offset + ext.capacity() <= self.end && !self.free.get(class).is_some_and(|f| f.contains(&ext.offset)),
            "an extent given back twice or never handed out"
        );
        if self.free.len() <= class {
            self.free.resize_with(class + 1, Vec::new);
        }
        self.free[class].push(ext.offset);
    }

    /// Write `rows` (all of a chunk's) into `old` if they fit, else into a
    /// new extent (`old` freed); the extent now holding them.
    pub fn write(&mut self, rows: &[Row], old: Option<Extent>) -> Result<Extent> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        let mut bytes = Vec::new();
        // (One buffer for every row's record.)
        let mut rec = Vec::new();
        for (rowid, fields) in rows {
            RecordBuilder::default().build(fields.iter().map(Value::as_ref), &mut rec);
            bytes.extend_from_slice(&rowid.to_le_bytes());
            bytes.extend_from_slice(&(rec.len() as u32).to_le_bytes());
            bytes.extend_from_slice(&rec);
        }
        let len = bytes.len() as u64;
        let ext = match old {
            Some(o) if o.capacity() >= len => Extent { len, ..o },
            _ => {
                if let Some(o) = old {
                    self.release(o);
                }
                let mut class = 0u8;
                while (MIN_EXTENT << class) < len {
                    class += 1;
                }
                let offset = match self.free.get_mut(class as usize).and_then(Vec::pop) {
                    Some(off) => off,
                    None => {
                        let off = self.end;
                        self.end += MIN_EXTENT << class;
                        off
                    }
                };
                Extent { offset, class, len }
            }
        };
        self.submit_write(ext.offset, bytes).map_err(|e| self.fail(e))?;
        Ok(ext)
    }

    fn submit_write(&mut self, offset: u64, bytes: Vec<u8>) -> Result<()> {
        if self.file.is_none() {
            // (Named only now: most transient tables never spill.)
            self.path = temp_path();
            let opts = OpenOptions { create: true, exclusive: true, delete_on_close: true, kind: FileKind::Transient, ..Default::default() };
            self.file = Some(self.io.backend().open(&self.path, opts)?);
        }
        let Some(f) = &self.file else { return Err(Error::new(crate::error::SQLITE_INTERNAL, "ephemeral spill file not open")) };
        let c = f.write(offset, Buffer::from_vec(bytes))?;
        self.io.wait(&c)?;
        c.take().map(|_| ())
    }

    /// The rows of the chunk in `ext`.
    pub fn read(&mut self, ext: Extent) -> Result<Vec<Row>> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        self.read_rows(ext).map_err(|e| self.fail(e))
    }

    fn read_rows(&self, ext: Extent) -> Result<Vec<Row>> {
        let Some(f) = &self.file else { return Err(Error::new(crate::error::SQLITE_INTERNAL, "ephemeral spill file not open")) };
        let len = ext.len as usize;
        let c = f.read(ext.offset, Buffer::zeroed(len))?;
        self.io.wait(&c)?;
        let res = c.take()?;
        let buf = res.buffer.map(Buffer::into_vec).unwrap_or_default();
        if res.bytes < len || buf.len() < len {
            return Err(Error::corrupt());
        }
        let mut rows = Vec::new();
        let mut at = 0;
        while at < len {
            let head = buf.get(at..at + 12).ok_or_else(Error::corrupt)?;
            let mut rowid = [0u8; 8];
            rowid.copy_from_slice(&head[..8]);
            let n = u32::from_le_bytes([head[8], head[9], head[10], head[11]]) as usize;
            let rec = buf.get(at + 12..at + 12 + n).ok_or_else(Error::corrupt)?;
            rows.push((i64::from_le_bytes(rowid), decode_record(rec)?));
            at += 12 + n;
        }
        Ok(rows)
    }
}

impl Drop for SpillStore {
    fn drop(&mut self) {
        // Backends that honour delete_on_close remove it when the last
        // handle goes; in-memory namespaces need the explicit delete.
        if self.file.take().is_some() {
            let _ = self.io.backend().delete(&self.path, false);
        }
    }
}

/// What rows weigh against the budget.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Weight {
    /// The bytes of the cells SQLite's B-tree would give them (each row's
    /// record, the record's length, the rowid of a table, a 2-byte cell
    /// pointer): ours starts spilling where SQLite's pages outgrow its
    /// cache.
    pub cells: usize,
    /// The bytes they take decoded in memory (about: the row, its fields,
    /// their texts and blobs, an allocation header each): once spilling,
    /// ours keeps this within the budget.
    pub memory: usize,
}

impl std::ops::Add for Weight {
    type Output = Weight;
    fn add(self, o: Weight) -> Weight {
        Weight { cells: self.cells + o.cells, memory: self.memory + o.memory }
    }
}

impl std::ops::Sub for Weight {
    type Output = Weight;
    fn sub(self, o: Weight) -> Weight {
        Weight { cells: self.cells - o.cells, memory: self.memory - o.memory }
    }
}

impl std::ops::AddAssign for Weight {
    fn add_assign(&mut self, o: Weight) {
        *self = *self + o;
    }
}

impl std::ops::SubAssign for Weight {
    fn sub_assign(&mut self, o: Weight) {
        *self = *self - o;
    }
}

impl std::iter::Sum for Weight {
    fn sum<I: Iterator<Item = Weight>>(it: I) -> Weight {
        it.fold(Weight::default(), |a, b| a + b)
    }
}

/// Bytes of an allocation's header, as the decoded size counts them.
const ALLOC: usize = 16;

/// A row's [`Weight`].
pub fn row_weight(row: &Row) -> Weight {
    let mut heap = 0usize;
    let mut types = 0usize;
    let mut body = 0usize;
    for v in &row.1 {
        let n = match v {
            Value::Null | Value::Pointer(_) => 0,
            Value::Integer(i) => match *i {
                0 | 1 => 0,
                -128..=127 => 1,
                -32768..=32767 => 2,
                -8_388_608..=8_388_607 => 3,
                -2_147_483_648..=2_147_483_647 => 4,
                -140_737_488_355_328..=140_737_488_355_327 => 6,
                _ => 8,
            },
            Value::Real(_) => 8,
            Value::Text(t) | Value::Blob(t) => {
                heap += t.len() + ALLOC;
                t.len()
            }
            Value::ZeroBlob(n) => *n,
        };
        types += varint_len(2 * n as u64 + 13);
        body += n;
    }
    let header = types + varint_len(types as u64 + 1);
    let record = header + body;
    let rowid = if row.0 == 0 { 0 } else { varint_len(row.0 as u64) };
    let fields = if row.1.is_empty() { 0 } else { ALLOC + row.1.len() * std::mem::size_of::<Value>() };
    Weight { cells: record + varint_len(record as u64) + rowid + 2, memory: std::mem::size_of::<Row>() + fields + heap }
}

/// Bytes of a SQLite varint holding `v`.
fn varint_len(v: u64) -> usize {
    let bits = 64 - v.leading_zeros() as usize;
    bits.div_ceil(7).clamp(1, 9)
}
