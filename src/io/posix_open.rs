//! Opening a database file on a POSIX system, the one open both file
//! backends (`sync`, `uring`) use: read-only or read-write, created (or
//! created exclusively) when asked, an OS error at open reported as
//! `SQLITE_CANTOPEN` and a directory as `SQLITE_CANTOPEN_ISDIR`, as
//! SQLite's unix VFS reports them. What follows the open (the inode's lock
//! record, the `-shm` mapping, the siblings' directory handle) is shared
//! too, through `lock`, `shm` and `sibling`.
//!
//! Invariant: the file returned is not a directory (checked:
//! posix_open_not_dir), and its metadata is the one read right after the
//! open (device and inode for the lock table).

use super::OpenOptions;
use crate::error::{Error, Result, SQLITE_CANTOPEN};

/// Open `path` as `opts` asks: the file and its metadata.
pub fn open(path: &str, opts: &OpenOptions) -> Result<(std::fs::File, std::fs::Metadata)> {
    let mut o = std::fs::OpenOptions::new();
    o.read(true).write(!opts.read_only);
    if opts.create && !opts.read_only {
        if opts.exclusive {
            o.create_new(true);
        } else {
            o.create(true);
        }
    }
    let file = o.open(super::os_path::os_path(path)).map_err(|e| {
        let mut err = Error::from(e);
        if err.code == crate::error::SQLITE_IOERR {
            err = Error::code(SQLITE_CANTOPEN);
        }
        err
    })?;
    let meta = file.metadata().map_err(|_| Error::code(SQLITE_CANTOPEN))?;
    // invariant: posix_open_not_dir
    if meta.is_dir() {
        return Err(Error::code(crate::error::SQLITE_CANTOPEN_ISDIR));
    }
    Ok((file, meta))
}
