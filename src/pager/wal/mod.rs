//! # Write-ahead log (`wal.txt`, `walformat.txt`)
//!
//! Owns one connection's use of a database's `-wal` file and its WAL index
//! (the `-shm` shared memory, see [`index`]): read snapshots, appending
//! committed transactions, checkpoints and rebuilding the index after a
//! crash. The pager decides when; this module knows how.
//!
//! - [`format`]: the WAL header and frames, checksums, salts.
//! - [`index`]: the shared index in SQLite's exact layout.
//! - [`read`]: read transactions (a read mark pins a snapshot `mxFrame`)
//!   and page lookup.
//! - [`write`]: the WRITE lock, appending a transaction's frames (cache
//!   spills append frames without a commit frame, visible only to the
//!   writer until its commit frame follows), WAL
//!   restart, publishing the new index header.
//! - [`checkpoint`]: copying frames back into the database file.
//! - [`recovery`]: rebuilding the index from the WAL file.
//!
//! Exclusive locking mode (`PRAGMA locking_mode=EXCLUSIVE`, the pager
//! holding EXCLUSIVE on the database file): the WAL takes no shm locks,
//! as nobody else can be attached. A WAL opened while the connection was
//! already exclusive keeps its index in heap memory private to the
//! connection ([`Wal::open`] with `heap`): no `-shm` file and no xShm
//! call, which is how a VFS without shared memory can use WAL, and such a
//! WAL never leaves exclusive mode (`wal.txt` §8).
//!
//! Invariants: a connection reads frames only up to the `mxFrame` of its
//! snapshot and only while holding the read lock whose mark promised them
//! to it (checked: wal_snapshot_reads); frames are appended only while
//! holding the WRITE lock (checked: wal_write_lock), and a new transaction
//! becomes visible only when the index header naming it is published,
//! after its frames are written (and synced when asked) (checked:
//! wal_frames_before_header).
//!
//! I/O: page reads, commit writes/syncs and checkpoints are resumable
//! (requests submitted once, `Pending` until they complete), and so is the
//! recovery a read transaction starts. Only a checkpoint that finds the
//! index invalid recovers with a blocking wait.

pub mod checkpoint;
pub mod format;
pub mod index;
pub mod read;
pub mod recovery;
pub mod write;

use crate::error::{Error, Result};
use crate::io::shm::ShmNode;
use crate::io::{File, FileKind, IoContext, OpenOptions};
use index::{Index, IndexHeader};
use std::sync::Arc;

/// Checkpoint modes (`sqlite3_wal_checkpoint_v2`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckpointMode {
    /// Copy what no reader needs; never wait.
    Passive,
    /// Also take the WRITE lock so the whole log can be copied.
    Full,
    /// FULL, then make sure the next writer restarts the log.
    Restart,
    /// RESTART, then truncate the log file to zero bytes.
    Truncate,
}

/// The WAL of one connection.
pub struct Wal {
    io: IoContext,
    db: Arc<dyn File>,
    file: Arc<dyn File>,
    path: String,
    /// The snapshot of the current (or last) read transaction.
    hdr: IndexHeader,
    /// Read lock held (0..=4), if in a read transaction.
    read_lock: Option<usize>,
    /// The WRITE lock is held.
    write_lock: bool,
    /// This write transaction spilled frames it has not committed yet
    /// (`hdr.mx_frame` counts them).
    uncommitted: bool,
    /// A commit written but not yet published.
    pending: Option<write::PendingCommit>,
    /// A new log header being written ahead of the first frames.
    header_prep: write::HeaderPrep,
    /// A checkpoint in progress.
    ckpt: Option<checkpoint::CheckpointState>,
    /// A recovery in progress.
    recovery: Option<recovery::RecoveryState>,
    /// Checkpoint sequence number for the next WAL header written (from
    /// the header seen at recovery, bumped at every restart; informational,
    /// as in SQLite).
    ckpt_seq: u32,
    page_size: u32,
    /// The index in heap memory (opened in exclusive mode), else `None`:
    /// the database file's shared memory.
    heap: Option<Arc<ShmNode>>,
    /// Exclusive locking mode: shm locks are neither taken nor released.
    exclusive: bool,
}

impl Wal {
    /// Open (creating) the `-wal` file of the database at `db_path`; with
    /// `heap`, in exclusive mode for good with the index in heap memory
    /// (the caller holds EXCLUSIVE on the database file).
    pub fn open(io: &IoContext, db: Arc<dyn File>, db_path: &str, page_size: u32, read_only: bool, heap: bool) -> Result<Wal> {
        let path = format!("{db_path}-wal");
        let file = io.backend().open(&path, OpenOptions { create: !read_only, read_only, kind: FileKind::Wal, ..Default::default() })?;
        Ok(Wal {
            io: io.clone(),
            db,
            file,
            path,
            hdr: IndexHeader::default(),
            read_lock: None,
            write_lock: false,
            uncommitted: false,
            pending: None,
            header_prep: write::HeaderPrep::Idle,
            ckpt: None,
            recovery: None,
            ckpt_seq: 0,
            page_size,
            heap: heap.then(ShmNode::heap),
            exclusive: heap,
        })
    }

    fn index(&self) -> Index<'_> {
        Index { db: self.db.as_ref(), heap: self.heap.as_deref() }
    }

    /// Whether the index lives in heap memory (the WAL was opened in
    /// exclusive locking mode and cannot leave it).
    pub fn heap_memory(&self) -> bool {
        self.heap.is_some()
    }

    /// Whether the WAL is in exclusive mode (takes no shm locks).
    pub fn is_exclusive(&self) -> bool {
        self.exclusive
    }

    /// Enter exclusive mode (the caller now holds EXCLUSIVE on the
    /// database file): the read lock held is let go, as nobody else can
    /// read meanwhile.
    pub fn enter_exclusive(&mut self) -> Result<()> {
        if self.exclusive {
            return Ok(());
        }
        debug_assert!(!self.write_lock, "mode changes between write transactions");
        if let Some(i) = self.read_lock {
            self.shm_unlock(index::read_lock(i), 1)?;
        }
        self.exclusive = true;
        Ok(())
    }

    /// Leave exclusive mode, taking back the shm read lock of the current
    /// read transaction. Returns false (still exclusive) for a heap index
    /// or when that lock cannot be had.
    pub fn leave_exclusive(&mut self) -> Result<bool> {
        if !self.exclusive || self.heap.is_some() {
            return Ok(!self.exclusive);
        }
        debug_assert!(!self.write_lock, "mode changes between write transactions");
        self.exclusive = false;
        if let Some(i) = self.read_lock {
            if !self.shm_lock(index::read_lock(i), 1, false)? {
                self.exclusive = true;
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The WAL file.
    pub fn file(&self) -> &Arc<dyn File> {
        &self.file
    }

    /// The `-wal` path.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The current snapshot's index header.
    pub fn snapshot(&self) -> &IndexHeader {
        &self.hdr
    }

    /// Page size the pager uses (frames are this big).
    pub fn set_page_size(&mut self, page_size: u32) {
        self.page_size = page_size;
    }

    fn shm_lock(&self, slot: usize, n: usize, exclusive: bool) -> Result<bool> {
        if self.exclusive {
            return Ok(true);
        }
        self.db.shm_lock(slot, n, exclusive, true)
    }

    fn shm_unlock(&self, slot: usize, n: usize) -> Result<()> {
        if self.exclusive {
            return Ok(());
        }
        self.db.shm_lock(slot, n, false, false).map(|_| ())
    }

    /// Detach from the shared memory; with `delete`, also remove the WAL
    /// and `-shm` files (the caller holds EXCLUSIVE on the database).
    pub fn close(mut self, delete: bool) -> Result<()> {
        self.checkpoint_release();
        self.recovery_release();
        let _ = self.end_write();
        self.end_read();
        if self.heap.is_none() {
            self.db.shm_unmap(delete)?;
        }
        // The log is closed before it is deleted, as SQLite does (a VFS
        // keeping files in memory may refuse to delete an open one).
        let Wal { io, file, path, .. } = self;
        drop(file);
        if delete {
            match io.backend().delete(&path, false) {
                Ok(()) => {}
                Err(e) if e.code == crate::error::SQLITE_IOERR_DELETE_NOENT => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}

fn busy() -> Error {
    Error::code(crate::error::SQLITE_BUSY)
}

fn random_u32() -> u32 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0));
    h.finish() as u32
}
