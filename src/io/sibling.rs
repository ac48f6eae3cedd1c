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
//! One descriptor per directory, not per file: the databases opened in a
//! directory share its `O_PATH` descriptor (a process-wide table keyed by
//! the directory's device and inode), so 10,000 tenants in one directory
//! hold 10,000 descriptors, as SQLite's would, not 20,000 (a common
//! `ulimit -n`).
//!
//! Invariant: answers what [`IoBackend::exists`](super::IoBackend::exists)
//! answers for `path + suffix`: a journal or WAL counts only when it holds
//! something, and any failure of the lookup means "does not exist"
//! (checked: sibling_exists_agrees).

#![allow(unsafe_code, reason = "`libc::fstat` on the sibling file's descriptor")]

use std::collections::HashMap;
use std::ffi::CString;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::{Arc, Mutex, Weak};

/// The directory descriptors in use, by (device, inode). Entries are
/// added and cloned only under the lock, so a `Siblings` dropping the
/// last strong reference under it can remove its entry safely.
static DIRS: Mutex<Option<HashMap<(u64, u64), Weak<OwnedFd>>>> = Mutex::new(None);

/// Names (with their suffix and NUL) shorter than this are built on the
/// stack for a probe.
const SHORT_NAME: usize = 256;

fn dir_key(fd: &OwnedFd) -> Option<(u64, u64)> {
    // SAFETY: fstat only writes the struct we hand it; the descriptor is
    // open for the call.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    if unsafe { libc::fstat(fd.as_raw_fd(), &mut st) } != 0 {
        return None;
    }
    #[allow(clippy::unnecessary_cast, reason = "`st_dev` and `st_ino` are different integer types on other targets")]
    Some((st.st_dev as u64, st.st_ino as u64))
}

/// A database file's directory and its name in it.
pub struct Siblings {
    dir: Arc<OwnedFd>,
    /// Its key in [`DIRS`] (`None`: not shared).
    key: Option<(u64, u64)>,
    name: Vec<u8>,
    /// Whether `name` can name a file (it has no NUL byte: checked once
    /// here, not on every probe).
    named: bool,
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
        let fresh = unsafe { OwnedFd::from_raw_fd(fd) };
        let name = super::os_path::to_bytes(name).into_owned();
        let named = !name.contains(&0);
        let Some(key) = dir_key(&fresh) else {
            return Some(Siblings { dir: Arc::new(fresh), key: None, name, named });
        };
        let mut dirs = DIRS.lock().unwrap_or_else(|p| p.into_inner());
        let dirs = dirs.get_or_insert_with(HashMap::new);
        // (`fresh` is closed when a shared one is taken.)
        let dir = match dirs.get(&key).and_then(Weak::upgrade) {
            Some(shared) => shared,
            None => {
                let d = Arc::new(fresh);
                dirs.insert(key, Arc::downgrade(&d));
                d
            }
        };
        Some(Siblings { dir, key: Some(key), name, named })
    }

    /// Whether `<name><suffix>` exists beside the file (non-empty for
    /// `-journal` and `-wal`, as [`super::IoBackend::exists`] counts).
    pub fn exists(&self, suffix: &str) -> bool {
        // (A name with a NUL byte names no file: CString would refuse it.)
        if !self.named || suffix.bytes().any(|b| b == 0) {
            return false;
        }
        let needs_content = suffix.ends_with("-journal") || suffix.ends_with("-wal");
        // The NUL-terminated name goes on the stack when it is short (every
        // read transaction probes twice: no allocation for it), else on
        // the heap.
        let len = self.name.len() + suffix.len();
        let mut short = [0u8; SHORT_NAME];
        let heap;
        let name: &[u8] = if len < SHORT_NAME {
            short[..self.name.len()].copy_from_slice(&self.name);
            short[self.name.len()..len].copy_from_slice(suffix.as_bytes());
            &short[..=len]
        } else {
            let mut v = Vec::with_capacity(len + 1);
            v.extend_from_slice(&self.name);
            v.extend_from_slice(suffix.as_bytes());
            v.push(0);
            heap = v;
            &heap
        };
        debug_assert_eq!(name.last(), Some(&0));
        let mut stx = std::mem::MaybeUninit::<libc::statx>::uninit();
        // SAFETY: a valid directory descriptor, a NUL-terminated name with
        // no other NUL (checked above) and a `statx` buffer on the stack
        // that outlives the call.
        let rc = unsafe { libc::statx(self.dir.as_raw_fd(), name.as_ptr().cast(), 0, libc::STATX_SIZE, stx.as_mut_ptr()) };
        // SAFETY: statx filled the buffer when it returned 0.
        rc == 0 && (!needs_content || unsafe { stx.assume_init_ref() }.stx_size > 0)
    }
}

impl Drop for Siblings {
    fn drop(&mut self) {
        let Some(key) = self.key else { return };
        let mut dirs = DIRS.lock().unwrap_or_else(|p| p.into_inner());
        // The last user of the descriptor: forget it (it closes when the
        // field drops, after this).
        if Arc::strong_count(&self.dir) == 1 {
            if let Some(d) = dirs.as_mut() {
                if d.get(&key).is_some_and(|w| std::ptr::eq(w.as_ptr(), Arc::as_ptr(&self.dir))) {
                    d.remove(&key);
                }
            }
        }
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
        let backend = crate::io::sync::SyncBackend::new();
        let agree = |sfx: &str| {
            let by_path = crate::io::IoBackend::exists(&backend, &format!("{}{sfx}", db.to_str().unwrap())).unwrap();
            // invariant: sibling_exists_agrees
            assert_eq!(s.exists(sfx), by_path, "{sfx}");
            by_path
        };
        assert!(!agree("-journal"));
        std::fs::write(dir.path().join("s.db-journal"), b"").unwrap();
        assert!(!agree("-journal"), "an empty journal is not there");
        std::fs::write(dir.path().join("s.db-journal"), b"j").unwrap();
        assert!(agree("-journal"));
        assert!(!agree("-wal"));
        std::fs::write(dir.path().join("s.db-wal"), b"w").unwrap();
        assert!(agree("-wal"));
        // Renamed directory: the probes follow the database file.
        let moved = dir.path().with_extension("moved");
        std::fs::rename(dir.path(), &moved).unwrap();
        assert!(s.exists("-wal"));
        std::fs::rename(&moved, dir.path()).unwrap();
    }

    #[test]
    fn files_of_one_directory_share_its_descriptor() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a.db"), dir.path().join("b.db"));
        let a = Siblings::open(a.to_str().unwrap()).unwrap();
        let b = Siblings::open(b.to_str().unwrap()).unwrap();
        assert_eq!(a.dir.as_raw_fd(), b.dir.as_raw_fd());
        std::fs::write(dir.path().join("b.db-wal"), b"w").unwrap();
        assert!(!a.exists("-wal") && b.exists("-wal"));
        drop(a);
        assert!(b.exists("-wal"), "the descriptor outlives one of its users");
        drop(b);
        let c = Siblings::open(dir.path().join("c.db").to_str().unwrap()).unwrap();
        assert!(!c.exists("-wal"));
    }

    #[test]
    fn relative_and_root_paths() {
        assert!(Siblings::open("").is_none());
        assert!(Siblings::open("/").is_none());
        assert!(Siblings::open("no-such-dir-xyz/a.db").is_none());
        assert!(Siblings::open("a.db").is_some());
    }
}
