//! # File locking: SQLite's POSIX advisory lock protocol
//!
//! Owns the byte-range locks that make a database file shared between
//! processes exactly as SQLite's unix VFS does (`lockingv3.txt`):
//!
//! - PENDING byte at `0x40000000`, RESERVED byte right after it, and the
//!   SHARED range of 510 bytes starting two bytes after PENDING.
//! - SHARED: read-lock the SHARED range, then make sure no other process
//!   holds the PENDING byte (a writer waiting for readers to drain keeps
//!   new readers out with it); if one does, drop the range again: busy.
//!   SQLite read-locks the PENDING byte around taking the range instead
//!   (three calls where this makes two, `F_SETLK` and `F_GETLK`); other
//!   processes see the same outcomes. The difference is only in races:
//!   here a writer taking EXCLUSIVE in the instant a refused reader holds
//!   the range is told busy and retries, where in SQLite's order a writer
//!   taking PENDING in the instant a reader holds that byte is.
//! - RESERVED: write-lock the RESERVED byte.
//! - PENDING then EXCLUSIVE: write-lock the PENDING byte, then write-lock
//!   the whole SHARED range.
//!
//! POSIX locks belong to a process, not a file descriptor, and closing any
//! descriptor of a file drops all of the process's locks on it. So every
//! connection of this process on one inode shares an [`InodeLock`] from a
//! process-wide table: it counts the process's SHARED holders, remembers
//! the strongest level the process holds, and keeps descriptors whose close
//! must wait until no connection of the process holds a lock.
//!
//! Invariants: the fcntl locks the process holds always equal the strongest
//! level of any of its connections; a descriptor is only closed while the
//! process holds no lock on the inode. Every holder counts as a SHARED
//! holder, and the process level is none exactly when no connection holds
//! a lock (checked: lock_process_counts).
//!
//! Invariant: a connection's level moves as SQLite's `unixLock` and
//! `unixUnlock` allow: SHARED first, RESERVED only from SHARED, PENDING
//! never asked for (EXCLUSIVE passes by it), and down only to SHARED or
//! NONE (checked: lock_transitions).

#![allow(unsafe_code, reason = "POSIX advisory record locks through `libc::fcntl`")]

use super::LockLevel;
use crate::error::{Error, Result, SQLITE_IOERR_LOCK, SQLITE_IOERR_UNLOCK};
use std::collections::HashMap;
use std::os::unix::io::RawFd;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

/// Offset of the PENDING byte.
pub const PENDING_BYTE: u64 = 0x4000_0000;
/// Offset of the RESERVED byte.
pub const RESERVED_BYTE: u64 = PENDING_BYTE + 1;
/// First byte of the SHARED range.
pub const SHARED_FIRST: u64 = PENDING_BYTE + 2;
/// Length of the SHARED range.
pub const SHARED_SIZE: u64 = 510;

/// The process-wide lock state of one inode.
#[derive(Default)]
pub struct InodeState {
    /// Connections of this process holding SHARED or more.
    n_shared: u32,
    /// Connections of this process holding any lock.
    n_lock: u32,
    /// Strongest level any connection of this process holds.
    level: Option<LockLevel>,
    /// Open handles on the inode (for removing the table entry).
    refs: u32,
    /// Descriptors whose close waits for `n_lock == 0`.
    deferred: Vec<std::fs::File>,
}

/// Shared handle to an inode's process-wide lock state.
pub type InodeLock = Arc<Mutex<InodeState>>;

type InodeKey = (u64, u64);

fn table() -> &'static Mutex<HashMap<InodeKey, InodeLock>> {
    static TABLE: OnceLock<Mutex<HashMap<InodeKey, InodeLock>>> = OnceLock::new();
    TABLE.get_or_init(|| Mutex::new(HashMap::new()))
}

fn guard<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Register a new handle on inode `(dev, ino)`.
pub fn acquire_inode(dev: u64, ino: u64) -> InodeLock {
    let mut t = guard(table());
    let entry = t.entry((dev, ino)).or_default().clone();
    guard(&entry).refs += 1;
    entry
}

/// Unregister a handle being closed. Its descriptor is closed now, or
/// later if another connection of the process still holds a lock.
pub fn release_inode(dev: u64, ino: u64, inode: &InodeLock, file: std::fs::File) {
    let mut t = guard(table());
    let mut st = guard(inode);
    st.refs = st.refs.saturating_sub(1);
    if st.n_lock > 0 {
        st.deferred.push(file);
    } else {
        // invariant: lock_process_counts, descriptor_close_deferred
        debug_assert!(st.level.is_none() && st.n_shared == 0, "a descriptor closed while the process holds {:?}", st.level);
        drop(file);
        st.deferred.clear();
    }
    if st.refs == 0 && st.deferred.is_empty() {
        drop(st);
        t.remove(&(dev, ino));
    }
}

/// Outcome of one fcntl request.
enum Fcntl {
    Granted,
    Busy,
}

fn setlk(fd: RawFd, kind: i32, start: u64, len: u64) -> Result<Fcntl> {
    // SAFETY: `flock` is plain data; zeroed is a valid value.
    let mut fl: libc::flock = unsafe { std::mem::zeroed() };
    fl.l_type = kind as _;
    fl.l_whence = libc::SEEK_SET as _;
    fl.l_start = start as _;
    fl.l_len = len as _;
    // SAFETY: `fd` is an open descriptor owned by the caller; `fl` is valid.
    let rc = unsafe { libc::fcntl(fd, libc::F_SETLK, &mut fl as *mut libc::flock) };
    if rc == 0 {
        return Ok(Fcntl::Granted);
    }
    let err = std::io::Error::last_os_error();
    match err.raw_os_error() {
        Some(libc::EAGAIN) | Some(libc::EACCES) | Some(libc::EINTR) => Ok(Fcntl::Busy),
        _ => Err(Error::new(if kind == libc::F_UNLCK { SQLITE_IOERR_UNLOCK } else { SQLITE_IOERR_LOCK }, "disk I/O error")),
    }
}

fn unlock_range(fd: RawFd, start: u64, len: u64) -> Result<()> {
    setlk(fd, libc::F_UNLCK, start, len).map(|_| ())
}

/// Whether another process holds a write lock on the RESERVED byte.
fn reserved_by_other_process(fd: RawFd) -> Result<bool> {
    // SAFETY: as in `setlk`.
    let mut fl: libc::flock = unsafe { std::mem::zeroed() };
    fl.l_type = libc::F_WRLCK as _;
    fl.l_whence = libc::SEEK_SET as _;
    fl.l_start = RESERVED_BYTE as _;
    fl.l_len = 1;
    // SAFETY: valid descriptor and struct.
    let rc = unsafe { libc::fcntl(fd, libc::F_GETLK, &mut fl as *mut libc::flock) };
    if rc != 0 {
        return Err(Error::new(crate::error::SQLITE_IOERR_CHECKRESERVEDLOCK, "disk I/O error"));
    }
    Ok(fl.l_type as i32 != libc::F_UNLCK)
}

/// Whether another process holds a write lock on the PENDING byte (a
/// writer on its way to EXCLUSIVE).
fn pending_by_other_process(fd: RawFd) -> Result<bool> {
    // SAFETY: as in `setlk`.
    let mut fl: libc::flock = unsafe { std::mem::zeroed() };
    fl.l_type = libc::F_RDLCK as _;
    fl.l_whence = libc::SEEK_SET as _;
    fl.l_start = PENDING_BYTE as _;
    fl.l_len = 1;
    // SAFETY: valid descriptor and struct.
    let rc = unsafe { libc::fcntl(fd, libc::F_GETLK, &mut fl as *mut libc::flock) };
    if rc != 0 {
        return Err(Error::new(SQLITE_IOERR_LOCK, "disk I/O error"));
    }
    Ok(fl.l_type as i32 != libc::F_UNLCK)
}

/// Take `want` for a connection currently at `*held`. `Ok(false)`: busy.
pub fn lock(fd: RawFd, inode: &InodeLock, held: &mut LockLevel, want: LockLevel) -> Result<bool> {
    if *held >= want {
        return Ok(true);
    }
    // SQLite's unixLock preconditions: SHARED comes first, RESERVED only
    // from SHARED, and PENDING is never asked for (EXCLUSIVE passes by it).
    // invariant: lock_transitions
    debug_assert!(*held != LockLevel::None || want == LockLevel::Shared, "{want:?} asked with no lock held");
    debug_assert!(want != LockLevel::Pending, "PENDING asked for");
    debug_assert!(want != LockLevel::Reserved || *held == LockLevel::Shared, "RESERVED asked from {held:?}");
    let mut st = guard(inode);
    let proc_level = st.level.unwrap_or(LockLevel::None);
    // Another connection of this process holds something stronger than
    // SHARED (or is waiting for EXCLUSIVE): only SHARED may join, and not
    // while a PENDING lock keeps new readers out.
    if *held != proc_level && (proc_level >= LockLevel::Pending || want > LockLevel::Shared) {
        return Ok(false);
    }
    if want == LockLevel::Shared && matches!(proc_level, LockLevel::Shared | LockLevel::Reserved) {
        *held = LockLevel::Shared;
        st.n_shared += 1;
        st.n_lock += 1;
        return Ok(true);
    }
    if want == LockLevel::Exclusive && *held < LockLevel::Pending {
        if let Fcntl::Busy = setlk(fd, libc::F_WRLCK, PENDING_BYTE, 1)? {
            return Ok(false);
        }
    }
    if want == LockLevel::Shared {
        // (The process holds nothing on the file here: the cases where
        // another connection of it does were answered above.)
        if let Fcntl::Busy = setlk(fd, libc::F_RDLCK, SHARED_FIRST, SHARED_SIZE)? {
            return Ok(false);
        }
        if pending_by_other_process(fd)? {
            unlock_range(fd, SHARED_FIRST, SHARED_SIZE)?;
            return Ok(false);
        }
        *held = LockLevel::Shared;
        st.level = Some(LockLevel::Shared);
        st.n_shared += 1;
        st.n_lock += 1;
        return Ok(true);
    }
    if want == LockLevel::Exclusive && st.n_shared > 1 {
        // Other connections of this process still read: keep PENDING so no
        // new reader starts, and report busy.
        *held = LockLevel::Pending;
        st.level = Some(LockLevel::Pending);
        return Ok(false);
    }
    let got = match want {
        LockLevel::Reserved => setlk(fd, libc::F_WRLCK, RESERVED_BYTE, 1)?,
        LockLevel::Exclusive => setlk(fd, libc::F_WRLCK, SHARED_FIRST, SHARED_SIZE)?,
        LockLevel::Pending => Fcntl::Granted,
        LockLevel::None | LockLevel::Shared => Fcntl::Granted,
    };
    match got {
        Fcntl::Granted => {
            *held = want;
            st.level = Some(want);
            Ok(true)
        }
        Fcntl::Busy => {
            if want == LockLevel::Exclusive {
                *held = LockLevel::Pending;
                st.level = Some(LockLevel::Pending);
            }
            Ok(false)
        }
    }
}

/// Drop to `want` (`Shared` or `None`).
pub fn unlock(fd: RawFd, inode: &InodeLock, held: &mut LockLevel, want: LockLevel) -> Result<()> {
    if *held <= want {
        return Ok(());
    }
    // (As SQLite's unixUnlock: down to SHARED or to nothing.)
    // invariant: lock_transitions
    debug_assert!(want <= LockLevel::Shared, "unlock to {want:?}");
    let mut st = guard(inode);
    // The process's last lock on the file goes: one unlock of the whole
    // file below drops PENDING and RESERVED with SHARED (SQLite makes two
    // calls; the other processes cannot tell the difference).
    let last = want == LockLevel::None && st.n_shared <= 1;
    if *held > LockLevel::Shared {
        if want == LockLevel::Shared {
            setlk(fd, libc::F_RDLCK, SHARED_FIRST, SHARED_SIZE)?;
        }
        if !last {
            unlock_range(fd, PENDING_BYTE, 2)?;
        }
        st.level = Some(LockLevel::Shared);
    }
    if want == LockLevel::None {
        st.n_shared = st.n_shared.saturating_sub(1);
        if st.n_shared == 0 {
            unlock_range(fd, 0, 0)?;
            st.level = None;
        }
        st.n_lock = st.n_lock.saturating_sub(1);
        if st.n_lock == 0 {
            st.deferred.clear();
        }
    }
    // invariant: lock_process_counts
    debug_assert!(
        st.n_shared == st.n_lock && (st.n_lock == 0) == st.level.is_none(),
        "{} holders, {} SHARED, process at {:?}",
        st.n_lock,
        st.n_shared,
        st.level
    );
    *held = want;
    Ok(())
}

/// Whether any connection, of this process or another, holds RESERVED or
/// stronger.
pub fn check_reserved(fd: RawFd, inode: &InodeLock) -> Result<bool> {
    let st = guard(inode);
    if st.level.unwrap_or(LockLevel::None) > LockLevel::Shared {
        return Ok(true);
    }
    drop(st);
    reserved_by_other_process(fd)
}

/// Lock bookkeeping for backends without a kernel (memory, simulation):
/// the same SHARED/RESERVED/PENDING/EXCLUSIVE rules between the handles of
/// one in-memory file.
#[derive(Debug, Default)]
pub struct LocalLocks {
    shared: u32,
    reserved: bool,
    pending: bool,
    exclusive: bool,
}

impl LocalLocks {
    /// Take `want` for a handle at `*held`; `false` when busy.
    pub fn lock(&mut self, held: &mut LockLevel, want: LockLevel) -> bool {
        if *held >= want {
            return true;
        }
        match want {
            LockLevel::None => true,
            LockLevel::Shared => {
                if self.pending || self.exclusive {
                    return false;
                }
                self.shared += 1;
                *held = LockLevel::Shared;
                true
            }
            LockLevel::Reserved => {
                if self.reserved || self.pending || self.exclusive {
                    return false;
                }
                self.reserved = true;
                *held = LockLevel::Reserved;
                true
            }
            LockLevel::Pending | LockLevel::Exclusive => {
                if *held < LockLevel::Pending {
                    if self.pending || self.exclusive || (self.reserved && *held != LockLevel::Reserved) {
                        return false;
                    }
                    self.pending = true;
                    *held = LockLevel::Pending;
                }
                if want == LockLevel::Pending {
                    return true;
                }
                if self.shared > 1 {
                    return false;
                }
                self.exclusive = true;
                *held = LockLevel::Exclusive;
                true
            }
        }
    }

    /// Drop to `want` (`Shared` or `None`).
    pub fn unlock(&mut self, held: &mut LockLevel, want: LockLevel) {
        if *held <= want {
            return;
        }
        if *held >= LockLevel::Reserved {
            self.reserved = false;
        }
        if *held >= LockLevel::Pending {
            self.pending = false;
        }
        if *held == LockLevel::Exclusive {
            self.exclusive = false;
        }
        if want == LockLevel::None {
            self.shared = self.shared.saturating_sub(1);
        }
        *held = want;
    }

    /// Whether anyone holds RESERVED or more.
    pub fn reserved(&self) -> bool {
        self.reserved || self.pending || self.exclusive
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_locks_follow_the_protocol() {
        let mut t = LocalLocks::default();
        let (mut a, mut b) = (LockLevel::None, LockLevel::None);
        assert!(t.lock(&mut a, LockLevel::Shared));
        assert!(t.lock(&mut b, LockLevel::Shared));
        assert!(t.lock(&mut a, LockLevel::Reserved));
        assert!(!t.lock(&mut b, LockLevel::Reserved), "one writer at a time");
        assert!(t.reserved());
        // EXCLUSIVE waits for the other reader; PENDING keeps new ones out.
        assert!(!t.lock(&mut a, LockLevel::Exclusive));
        assert_eq!(a, LockLevel::Pending);
        let mut c = LockLevel::None;
        assert!(!t.lock(&mut c, LockLevel::Shared));
        t.unlock(&mut b, LockLevel::None);
        assert!(t.lock(&mut a, LockLevel::Exclusive));
        t.unlock(&mut a, LockLevel::Shared);
        assert!(!t.reserved());
        assert!(t.lock(&mut c, LockLevel::Shared));
    }

    #[test]
    fn posix_locks_between_connections_of_one_process() {
        use std::os::unix::fs::MetadataExt;
        use std::os::unix::io::AsRawFd;
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("l.db");
        let f1 = std::fs::OpenOptions::new().read(true).write(true).create(true).truncate(false).open(&p).unwrap();
        let f2 = std::fs::OpenOptions::new().read(true).write(true).open(&p).unwrap();
        let m = f1.metadata().unwrap();
        let i1 = acquire_inode(m.dev(), m.ino());
        let i2 = acquire_inode(m.dev(), m.ino());
        assert!(Arc::ptr_eq(&i1, &i2), "one inode entry per file per process");
        let (mut a, mut b) = (LockLevel::None, LockLevel::None);
        assert!(lock(f1.as_raw_fd(), &i1, &mut a, LockLevel::Shared).unwrap());
        assert!(lock(f2.as_raw_fd(), &i2, &mut b, LockLevel::Shared).unwrap());
        assert!(lock(f1.as_raw_fd(), &i1, &mut a, LockLevel::Reserved).unwrap());
        assert!(!lock(f2.as_raw_fd(), &i2, &mut b, LockLevel::Reserved).unwrap());
        assert!(!lock(f1.as_raw_fd(), &i1, &mut a, LockLevel::Exclusive).unwrap());
        unlock(f2.as_raw_fd(), &i2, &mut b, LockLevel::None).unwrap();
        // Closing the second descriptor while the first holds locks is
        // deferred, so the process keeps its fcntl locks.
        release_inode(m.dev(), m.ino(), &i2, f2);
        assert!(lock(f1.as_raw_fd(), &i1, &mut a, LockLevel::Exclusive).unwrap());
        assert!(check_reserved(f1.as_raw_fd(), &i1).unwrap());
        unlock(f1.as_raw_fd(), &i1, &mut a, LockLevel::None).unwrap();
        release_inode(m.dev(), m.ino(), &i1, f1);
    }
}
