//! # B-trees
//!
//! Table B-trees (keyed by rowid, data in leaves) and index B-trees (keyed
//! by records) in SQLite's file format, on top of the pager. One [`Btree`]
//! is one database file (main, temp or attached); [`Cursor`]s walk and
//! modify one tree each.
//!
//! Contract with the VM (this file's signatures are the interface):
//! - Every method that may touch a page not in cache returns
//!   `IoPoll<...>`; on `Poll::Pending` the cursor has kept its state and the
//!   same call must be repeated. No side effect is done twice.
//! - A cursor positioned on an entry stays valid across changes made by
//!   other cursors on the same tree: it saves its key and re-seeks lazily.
//! - `Cursor::delete` leaves the cursor so that `next()` moves to the entry
//!   after the deleted one and `prev()` to the one before.
//! - Meta fields are the 4-byte big-endian header words at offset 36+4*i
//!   (see [`Meta`]).

use crate::error::{Error, Result};
use crate::io::IoContext;
use crate::value::record::KeyInfo;
use crate::value::ValueRef;
use crate::IoPoll;
use std::sync::Arc;

/// A page number (1-based; 0 means none).
pub type Pgno = u32;

/// Transaction state of a [`Btree`] (as `sqlite3_txn_state` reports).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum TxnState {
    /// No transaction.
    None = 0,
    /// A read transaction.
    Read = 1,
    /// A write transaction.
    Write = 2,
}

/// Kind of tree to create.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TreeKind {
    /// Rowid table (intkey, data in leaves).
    Table,
    /// Index or WITHOUT ROWID table (key only).
    Index,
}

/// Database header meta words (index i is the word at offset 36 + 4*i).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Meta {
    /// Offset 36: number of freelist pages (read only).
    FreelistCount = 0,
    /// Offset 40: schema cookie.
    SchemaCookie = 1,
    /// Offset 44: schema format number.
    SchemaFormat = 2,
    /// Offset 48: default page cache size.
    DefaultCacheSize = 3,
    /// Offset 52: largest root page (auto_vacuum), 0 if off.
    LargestRootPage = 4,
    /// Offset 56: text encoding (1 UTF-8, 2 UTF-16le, 3 UTF-16be).
    TextEncoding = 5,
    /// Offset 60: user_version.
    UserVersion = 6,
    /// Offset 64: incremental vacuum flag.
    IncrementalVacuum = 7,
    /// Offset 68: application_id.
    ApplicationId = 8,
}

/// How [`Cursor::seek_index`] compares the probe key with entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeekOp {
    /// First entry >= key.
    Ge,
    /// First entry > key.
    Gt,
    /// Last entry <= key.
    Le,
    /// Last entry < key.
    Lt,
}

/// Where [`Cursor::seek_rowid`] left the cursor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeekResult {
    /// On the entry with that rowid.
    Found,
    /// On an entry with a smaller key (the nearest one).
    Before,
    /// On an entry with a larger key (the nearest one).
    After,
    /// The tree is empty.
    Empty,
}

/// How a database file is opened.
#[derive(Debug, Clone, Default)]
pub struct BtreeOptions {
    /// Open read-only.
    pub read_only: bool,
    /// Create if missing.
    pub create: bool,
    /// An in-memory database (`:memory:` or a temp database).
    pub memory: bool,
    /// `immutable=1`: no locking, no change detection.
    pub immutable: bool,
}

/// One database file and its pager.
pub struct Btree {
    _private: (),
}

impl Btree {
    /// Open (or create) a database file. May do blocking I/O.
    pub fn open(io: &IoContext, path: &str, opts: BtreeOptions) -> Result<Btree> {
        let _ = (io, path, opts);
        Err(Error::unsupported("the B-tree layer"))
    }
    /// Start a read transaction: shared lock, hot-journal recovery, cache
    /// validation against the file change counter.
    pub fn begin_read(&mut self) -> IoPoll<()> {
        Err(Error::unsupported("the B-tree layer"))
    }
    /// Start (or upgrade to) a write transaction.
    pub fn begin_write(&mut self, exclusive: bool) -> IoPoll<()> {
        let _ = exclusive;
        Err(Error::unsupported("the B-tree layer"))
    }
    /// Commit the write transaction (or end the read transaction).
    pub fn commit(&mut self) -> IoPoll<()> {
        Err(Error::unsupported("the B-tree layer"))
    }
    /// Roll back the write transaction (or end the read transaction).
    pub fn rollback(&mut self) -> IoPoll<()> {
        Err(Error::unsupported("the B-tree layer"))
    }
    /// The transaction state.
    pub fn txn_state(&self) -> TxnState {
        TxnState::None
    }
    /// Open savepoint number `index` (0-based nesting depth) in the
    /// current write transaction; statement-level rollback uses one too.
    pub fn savepoint_open(&mut self, index: usize) -> IoPoll<()> {
        let _ = index;
        Err(Error::unsupported("the B-tree layer"))
    }
    /// Release savepoints `index` and deeper, keeping their changes.
    pub fn savepoint_release(&mut self, index: usize) -> IoPoll<()> {
        let _ = index;
        Err(Error::unsupported("the B-tree layer"))
    }
    /// Undo changes since savepoint `index` was opened; it stays open.
    pub fn savepoint_rollback(&mut self, index: usize) -> IoPoll<()> {
        let _ = index;
        Err(Error::unsupported("the B-tree layer"))
    }
    /// Create an empty tree; returns its root page.
    pub fn create_tree(&mut self, kind: TreeKind) -> IoPoll<Pgno> {
        let _ = kind;
        Err(Error::unsupported("the B-tree layer"))
    }
    /// Free every page of a tree including its root. With auto_vacuum the
    /// last root page may be moved into the hole: returns `Some(old_root)`
    /// that now lives at `root`.
    pub fn drop_tree(&mut self, root: Pgno) -> IoPoll<Option<Pgno>> {
        let _ = root;
        Err(Error::unsupported("the B-tree layer"))
    }
    /// Delete every entry of a tree, keeping its root. Returns the number
    /// of entries removed (rows, for table trees).
    pub fn clear_tree(&mut self, root: Pgno) -> IoPoll<u64> {
        let _ = root;
        Err(Error::unsupported("the B-tree layer"))
    }
    /// Read a header meta word.
    pub fn meta(&mut self, field: Meta) -> IoPoll<u32> {
        let _ = field;
        Err(Error::unsupported("the B-tree layer"))
    }
    /// Write a header meta word (in a write transaction).
    pub fn set_meta(&mut self, field: Meta, value: u32) -> IoPoll<()> {
        let _ = (field, value);
        Err(Error::unsupported("the B-tree layer"))
    }
    /// Page size in bytes.
    pub fn page_size(&self) -> u32 {
        4096
    }
    /// Pages in the database.
    pub fn page_count(&mut self) -> IoPoll<u32> {
        Err(Error::unsupported("the B-tree layer"))
    }
    /// Check the trees rooted at `roots` and the freelist; messages in
    /// SQLite's wording, at most `max_errors`.
    pub fn integrity_check(&mut self, roots: &[Pgno], max_errors: usize) -> IoPoll<Vec<String>> {
        let _ = (roots, max_errors);
        Err(Error::unsupported("the B-tree layer"))
    }
}

/// The key of an entry to insert.
#[derive(Debug, Clone, Copy)]
pub enum InsertKey<'a> {
    /// Table tree: the rowid; the data is the record.
    Rowid(i64),
    /// Index tree: the whole entry is this record; data is empty.
    Index(&'a [u8]),
}

/// A position in one tree.
pub struct Cursor {
    _private: (),
}

impl Cursor {
    /// A cursor on the tree rooted at `root`. Index cursors need `key_info`.
    pub fn new(root: Pgno, writable: bool, key_info: Option<Arc<KeyInfo>>) -> Cursor {
        let _ = (root, writable, key_info);
        Cursor { _private: () }
    }
    /// Move to the first entry; `false` if the tree is empty.
    pub fn first(&mut self, bt: &mut Btree) -> IoPoll<bool> {
        let _ = bt;
        Err(Error::unsupported("the B-tree layer"))
    }
    /// Move to the last entry; `false` if the tree is empty.
    pub fn last(&mut self, bt: &mut Btree) -> IoPoll<bool> {
        let _ = bt;
        Err(Error::unsupported("the B-tree layer"))
    }
    /// Move to the next entry; `false` at the end.
    pub fn next(&mut self, bt: &mut Btree) -> IoPoll<bool> {
        let _ = bt;
        Err(Error::unsupported("the B-tree layer"))
    }
    /// Move to the previous entry; `false` at the start.
    pub fn prev(&mut self, bt: &mut Btree) -> IoPoll<bool> {
        let _ = bt;
        Err(Error::unsupported("the B-tree layer"))
    }
    /// Table trees: seek `rowid`.
    pub fn seek_rowid(&mut self, bt: &mut Btree, rowid: i64) -> IoPoll<SeekResult> {
        let _ = (bt, rowid);
        Err(Error::unsupported("the B-tree layer"))
    }
    /// Index trees: position by comparing `key` (a prefix of the entry's
    /// fields) with the cursor's `KeyInfo`. `false` if no entry qualifies.
    pub fn seek_index(&mut self, bt: &mut Btree, key: &[ValueRef<'_>], op: SeekOp) -> IoPoll<bool> {
        let _ = (bt, key, op);
        Err(Error::unsupported("the B-tree layer"))
    }
    /// Whether the cursor is on an entry.
    pub fn is_valid(&self) -> bool {
        false
    }
    /// Table trees: rowid of the current entry.
    pub fn rowid(&self) -> i64 {
        0
    }
    /// The current entry's payload (table: the record; index: the key
    /// record), overflow pages included.
    pub fn payload(&mut self, bt: &mut Btree) -> IoPoll<&[u8]> {
        let _ = bt;
        Err(Error::unsupported("the B-tree layer"))
    }
    /// Insert or replace the entry with this key; the cursor ends on it.
    pub fn insert(&mut self, bt: &mut Btree, key: InsertKey<'_>, data: &[u8]) -> IoPoll<()> {
        let _ = (bt, key, data);
        Err(Error::unsupported("the B-tree layer"))
    }
    /// Delete the current entry.
    pub fn delete(&mut self, bt: &mut Btree) -> IoPoll<()> {
        let _ = bt;
        Err(Error::unsupported("the B-tree layer"))
    }
    /// Number of entries in the tree.
    pub fn count(&mut self, bt: &mut Btree) -> IoPoll<u64> {
        let _ = bt;
        Err(Error::unsupported("the B-tree layer"))
    }
}
