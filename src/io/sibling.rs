//! # Sibling probes: `<db>-journal` and `<db>-wal`, looked up beside the database
//!
//! Every read transaction of a rollback-journal database asks whether a
//! hot journal and a `-wal` file exist (SQLite does the same two `access`
//! calls). Those lookups usually fail, and a failed lookup is the most
//! expensive metadata call of a transaction: the kernel walks the whole
//! path and, on tmpfs, allocates and frees a dentry for the missing name.
//! A database file opened by the `sync` or `io_uring` backend keeps an
//! `O_PATH` descriptor of its directory, so the probe is a `statx` of one
//! name relative to it: the walk of the directory's own path is skipped
//! (about a fifth of the probe's cost).
//!
//! Which directory: the one the database file was opened in, held from
//! that open on. If the directory is renamed meanwhile, the probes follow
//! the database file into it (a path-based probe would look where the
//! database no longer is).
//!
//! Invariant: answers what [`IoBackend::exists`](super::IoBackend::exists)
//! answers for `path + suffix`: a journal or WAL counts only when it holds
//! something, and any failure of the lookup means "does not exist".

#![allow(unsafe_code)]

use std::ffi::CString;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

/// A database file's directory and its name in it.
pub struct Siblings {
    dir: OwnedFd,
    name: Vec<u8>,
}

impl Siblings {
    /// Hold the directory of the file at `path` (as it was just opened).
    /// `None` when the directory cannot be opened: probes then go by path.
    pub fn open(path: &str) -> Option<Siblings> {
        let (dir, name) = match path.rfind('/') {
            Some(0) => ("/", &path[1..]),
            Some(i) => (&path[..i], &path[i + 1..]),
            None => (".", path),
        };
        if name.is_empty() {
            return None;
        }
        let dir_c = CString::new(super::os_path::to_bytes(dir).into_owned()).ok()?;
        // SAFETY: open(2) of a NUL-terminated path with constant flags; the
        // result is checked before it is wrapped as an owned descriptor.
        let fd = unsafe { libc::open(dir_c.as_ptr(), libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC) };
        if fd < 0 {
            return None;
        }
        // SAFETY: `fd` is a fresh descriptor nobody else owns.
        let dir = unsafe { OwnedFd::from_raw_fd(fd) };
        Some(Siblings { dir, name: super::os_path::to_bytes(name).into_owned() })
    }

    /// Whether `<name><suffix>` exists beside the file (non-empty for
    /// `-journal` and `-wal`, as [`super::IoBackend::exists`] counts).
    pub fn exists(&self, suffix: &str) -> bool {
        let mut name = Vec::with_capacity(self.name.len() + suffix.len() + 1);
        name.extend_from_slice(&self.name);
        name.extend_from_slice(suffix.as_bytes());
        let Ok(name) = CString::new(name) else { return false };
        let needs_content = suffix.ends_with("-journal") || suffix.ends_with("-wal");
        // SAFETY: an all-zero `statx` is a valid value of this plain C struct.
        let mut stx: libc::statx = unsafe { std::mem::zeroed() };
        // SAFETY: a valid directory descriptor, a NUL-terminated name and a
        // `statx` buffer on the stack that outlives the call.
        let rc = unsafe { libc::statx(self.dir.as_raw_fd(), name.as_ptr(), 0, libc::STATX_SIZE, &mut stx) };
        rc == 0 && (!needs_content || stx.stx_size > 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probes_answer_as_the_path_lookup() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("s.db");
        std::fs::write(&db, b"x").unwrap();
        let s = Siblings::open(db.to_str().unwrap()).unwrap();
        assert!(!s.exists("-journal"));
        std::fs::write(dir.path().join("s.db-journal"), b"").unwrap();
        assert!(!s.exists("-journal"), "an empty journal is not there");
        std::fs::write(dir.path().join("s.db-journal"), b"j").unwrap();
        assert!(s.exists("-journal"));
        assert!(!s.exists("-wal"));
        std::fs::write(dir.path().join("s.db-wal"), b"w").unwrap();
        assert!(s.exists("-wal"));
        // Renamed directory: the probes follow the database file.
        let moved = dir.path().with_extension("moved");
        std::fs::rename(dir.path(), &moved).unwrap();
        assert!(s.exists("-wal"));
        std::fs::rename(&moved, dir.path()).unwrap();
    }

    #[test]
    fn relative_and_root_paths() {
        assert!(Siblings::open("").is_none());
        assert!(Siblings::open("/").is_none());
        assert!(Siblings::open("no-such-dir-xyz/a.db").is_none());
        assert!(Siblings::open("a.db").is_some());
    }
}
