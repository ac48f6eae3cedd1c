//! # Per-file settings an application may change
//!
//! SQLite's unix VFS keeps a few settings in each open file, which
//! `sqlite3_file_control` reads and changes: whether the WAL survives the
//! last connection (`SQLITE_FCNTL_PERSIST_WAL`), whether the device is
//! powersafe-overwrite (`SQLITE_FCNTL_POWERSAFE_OVERWRITE`, also the `psow`
//! URI parameter), and the chunk the file grows and shrinks by
//! (`SQLITE_FCNTL_CHUNK_SIZE`). The native backends hold them here, so a
//! connection on the engine's own I/O answers those controls as SQLite's
//! unix files do and the pager sees their effect.
//!
//! Invariants: a chunk size of 0 or less means "no chunks" (sizes are
//! exact); a file size rounded by [`FileModes::chunked`] is never smaller
//! than the size asked for (checked: file_modes_chunked).

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

/// The settings of one open file.
#[derive(Debug)]
pub struct FileModes {
    persist_wal: AtomicBool,
    powersafe_overwrite: AtomicBool,
    chunk_size: AtomicI32,
}

impl Default for FileModes {
    /// SQLite's defaults: WAL deleted at last close, powersafe-overwrite
    /// on (its `SQLITE_POWERSAFE_OVERWRITE` default), no chunks.
    fn default() -> Self {
        FileModes { persist_wal: AtomicBool::new(false), powersafe_overwrite: AtomicBool::new(true), chunk_size: AtomicI32::new(0) }
    }
}

impl FileModes {
    /// Whether the WAL is kept when the last connection closes.
    pub fn persist_wal(&self) -> bool {
        self.persist_wal.load(Ordering::Relaxed)
    }

    /// Keep (or stop keeping) the WAL at last close.
    pub fn set_persist_wal(&self, on: bool) {
        self.persist_wal.store(on, Ordering::Relaxed);
    }

    /// Whether the device is taken as powersafe-overwrite.
    pub fn powersafe_overwrite(&self) -> bool {
        self.powersafe_overwrite.load(Ordering::Relaxed)
    }

    /// Take the device as powersafe-overwrite or not.
    pub fn set_powersafe_overwrite(&self, on: bool) {
        self.powersafe_overwrite.store(on, Ordering::Relaxed);
    }

    /// The chunk size in bytes (0 or less: none).
    pub fn chunk_size(&self) -> i32 {
        self.chunk_size.load(Ordering::Relaxed)
    }

    /// Grow and shrink the file in multiples of `bytes` (0 or less: exact sizes).
    pub fn set_chunk_size(&self, bytes: i32) {
        self.chunk_size.store(bytes, Ordering::Relaxed);
    }

    /// `size` rounded up to a whole number of chunks (unchanged without chunks).
    pub fn chunked(&self, size: u64) -> u64 {
        match self.chunk_size() {
            c if c > 0 => size.div_ceil(c as u64) * c as u64,
            _ => size,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunked_sizes_round_up_and_never_shrink() {
        let m = FileModes::default();
        assert_eq!(m.chunked(5000), 5000);
        m.set_chunk_size(4096);
        assert_eq!(m.chunked(0), 0);
        assert_eq!(m.chunked(1), 4096);
        assert_eq!(m.chunked(4096), 4096);
        // invariant: file_modes_chunked
        assert_eq!(m.chunked(4097), 8192);
        m.set_chunk_size(-1);
        assert_eq!(m.chunked(4097), 4097);
    }
}
