//! # WAL-index shared memory (`xShmMap`/`xShmLock`/`xShmUnmap`)
//!
//! Owns the memory behind the WAL index and its eight lock slots, as
//! SQLite's unix VFS lays them out (`walformat.txt` §2.1.3):
//!
//! - File backends: the `-shm` file next to the database, mapped
//!   `MAP_SHARED` in 32 KiB regions, so other processes (real SQLite
//!   included) see the same bytes. Lock slot `i` is a POSIX lock on byte
//!   `120 + i` of the `-shm` file; byte 128 is the dead-man switch (DMS).
//! - Memory/sim backends (and anything else without a kernel file): heap
//!   regions shared by the handles of one in-memory file.
//!
//! One [`ShmNode`] exists per database inode per process, shared by every
//! connection of the process (POSIX locks belong to the process, so the
//! node's lock table arbitrates between its connections and takes the
//! fcntl lock only when the process-level state changes). Each connection
//! has a [`ShmHandle`] remembering which slots it holds.
//!
//! DMS: the first process to open the `-shm` file finds no lock on byte
//! 128, takes it exclusively, truncates the file (its content is only a
//! cache: recovery rebuilds it from the WAL) and then holds it shared for
//! as long as it has the file open.
//!
//! Invariants: the fcntl locks the process holds on a slot always equal
//! the strongest hold of any of its connections; a region is unmapped only
//! when the node is dropped, i.e. when no connection of the process uses
//! it.

#![allow(unsafe_code, reason = "the shared-memory file's regions are mapped with `libc::mmap` and read through raw pointers")]

use super::ShmMemory;
use super::ShmRegion;
use crate::error::{Error, Result, SQLITE_IOERR_SHMLOCK, SQLITE_IOERR_SHMMAP, SQLITE_IOERR_SHMOPEN, SQLITE_IOERR_SHMSIZE};
use std::collections::HashMap;
use std::os::unix::io::AsRawFd;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, Weak};

/// Number of lock slots.
pub const SHM_NLOCK: usize = 8;
/// Byte offset of lock slot 0 in the `-shm` file.
pub const SHM_LOCK_BASE: u64 = 120;
/// Byte offset of the dead-man-switch lock.
pub const SHM_DMS: u64 = SHM_LOCK_BASE + SHM_NLOCK as u64;

fn guard<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The process-wide hold counts of the lock slots.
#[derive(Debug, Default)]
struct LockTable {
    shared: [u32; SHM_NLOCK],
    exclusive: [bool; SHM_NLOCK],
}

type NodeTable = HashMap<(u64, u64), Weak<ShmNode>>;

/// Shared memory of one database, shared by the connections of a process.
pub struct ShmNode {
    /// The `-shm` file (None: heap memory).
    file: Option<std::fs::File>,
    path: Option<String>,
    regions: Mutex<Vec<ShmRegion>>,
    locks: Mutex<LockTable>,
}

impl std::fmt::Debug for ShmNode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ShmNode").field("path", &self.path).finish()
    }
}

enum Fcntl {
    Granted,
    Busy,
}

fn setlk(fd: i32, kind: i32, start: u64, len: u64) -> Result<Fcntl> {
    // SAFETY: `flock` is plain data; zeroed is a valid value.
    let mut fl: libc::flock = unsafe { std::mem::zeroed() };
    fl.l_type = kind as _;
    fl.l_whence = libc::SEEK_SET as _;
    fl.l_start = start as _;
    fl.l_len = len as _;
    // SAFETY: `fd` is an open descriptor owned by the node; `fl` is valid.
    let rc = unsafe { libc::fcntl(fd, libc::F_SETLK, &mut fl as *mut libc::flock) };
    if rc == 0 {
        return Ok(Fcntl::Granted);
    }
    match std::io::Error::last_os_error().raw_os_error() {
        Some(libc::EAGAIN) | Some(libc::EACCES) | Some(libc::EINTR) => Ok(Fcntl::Busy),
        _ => Err(Error::new(SQLITE_IOERR_SHMLOCK, "disk I/O error")),
    }
}

/// Whether another process holds any lock on the DMS byte.
fn dms_held_elsewhere(fd: i32) -> Result<bool> {
    // SAFETY: as in `setlk`.
    let mut fl: libc::flock = unsafe { std::mem::zeroed() };
    fl.l_type = libc::F_WRLCK as _;
    fl.l_whence = libc::SEEK_SET as _;
    fl.l_start = SHM_DMS as _;
    fl.l_len = 1;
    // SAFETY: valid descriptor and struct.
    let rc = unsafe { libc::fcntl(fd, libc::F_GETLK, &mut fl as *mut libc::flock) };
    if rc != 0 {
        return Err(Error::new(SQLITE_IOERR_SHMOPEN, "disk I/O error"));
    }
    Ok(fl.l_type as i32 != libc::F_UNLCK)
}

/// Whether another process holds a lock on one of the WAL read-mark
/// slots (3 and up) of the `-shm` file `fd`: a reader with a WAL
/// transaction open there (`SQLITE_FCNTL_EXTERNAL_READER`).
fn reader_elsewhere(fd: i32) -> Result<bool> {
    // SAFETY: as in `setlk`.
    let mut fl: libc::flock = unsafe { std::mem::zeroed() };
    fl.l_type = libc::F_WRLCK as _;
    fl.l_whence = libc::SEEK_SET as _;
    fl.l_start = (SHM_LOCK_BASE + 3) as _;
    fl.l_len = (SHM_NLOCK - 3) as _;
    // SAFETY: valid descriptor and struct.
    let rc = unsafe { libc::fcntl(fd, libc::F_GETLK, &mut fl as *mut libc::flock) };
    if rc != 0 {
        return Err(Error::new(crate::error::SQLITE_IOERR_LOCK, "disk I/O error"));
    }
    Ok(fl.l_type as i32 != libc::F_UNLCK)
}

impl ShmNode {
    /// Heap shared memory (memory and sim backends).
    pub fn heap() -> Arc<ShmNode> {
        Arc::new(ShmNode { file: None, path: None, regions: Mutex::new(Vec::new()), locks: Mutex::default() })
    }

    /// Open (creating) the `-shm` file at `path` and run the DMS protocol.
    fn open_file(path: &str) -> Result<ShmNode> {
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(super::os_path::os_path(path))
            .map_err(|_| Error::new(SQLITE_IOERR_SHMOPEN, "disk I/O error"))?;
        let fd = file.as_raw_fd();
        if !dms_held_elsewhere(fd)? {
            // First user: the content is stale; start from nothing.
            if let Fcntl::Granted = setlk(fd, libc::F_WRLCK, SHM_DMS, 1)? {
                file.set_len(0).map_err(|_| Error::new(SQLITE_IOERR_SHMOPEN, "disk I/O error"))?;
            }
        }
        if let Fcntl::Busy = setlk(fd, libc::F_RDLCK, SHM_DMS, 1)? {
            return Err(Error::code(crate::error::SQLITE_BUSY));
        }
        Ok(ShmNode { file: Some(file), path: Some(path.to_string()), regions: Mutex::new(Vec::new()), locks: Mutex::default() })
    }

    /// The node of database inode `(dev, ino)`, opening its `-shm` file
    /// (`db_path` + "-shm") if no connection of this process has it open.
    pub fn for_inode(dev: u64, ino: u64, db_path: &str) -> Result<Arc<ShmNode>> {
        static TABLE: OnceLock<Mutex<NodeTable>> = OnceLock::new();
        let mut t = guard(TABLE.get_or_init(|| Mutex::new(HashMap::new())));
        if let Some(node) = t.get(&(dev, ino)).and_then(Weak::upgrade) {
            return Ok(node);
        }
        let node = Arc::new(ShmNode::open_file(&format!("{db_path}-shm"))?);
        t.retain(|_, w| w.strong_count() > 0);
        t.insert((dev, ino), Arc::downgrade(&node));
        Ok(node)
    }

    /// Region `region` of `size` bytes, created (zeroed) if `extend`.
    pub fn map(&self, region: usize, size: usize, extend: bool) -> Result<Option<ShmRegion>> {
        let mut regions = guard(&self.regions);
        if let Some(r) = regions.get(region) {
            return Ok(Some(r.clone()));
        }
        while regions.len() <= region {
            let index = regions.len();
            let r = match &self.file {
                None => {
                    if !extend {
                        return Ok(None);
                    }
                    ShmRegion(Arc::new(HeapRegion { bytes: Mutex::new(vec![0; size]) }))
                }
                Some(f) => {
                    let end = ((index + 1) * size) as u64;
                    let len = f.metadata().map_err(|_| Error::new(SQLITE_IOERR_SHMSIZE, "disk I/O error"))?.len();
                    if len < end {
                        if !extend {
                            return Ok(None);
                        }
                        f.set_len(end).map_err(|_| Error::new(SQLITE_IOERR_SHMSIZE, "disk I/O error"))?;
                    }
                    ShmRegion(Arc::new(MmapRegion::new(f.as_raw_fd(), index * size, size)?))
                }
            };
            regions.push(r);
        }
        Ok(regions.get(region).cloned())
    }
}

impl Drop for ShmNode {
    fn drop(&mut self) {
        // Regions unmap themselves when their last clone goes; the file's
        // close drops this process's fcntl locks (DMS included).
        guard(&self.regions).clear();
    }
}

/// A heap region.
struct HeapRegion {
    bytes: Mutex<Vec<u8>>,
}

impl ShmMemory for HeapRegion {
    fn len(&self) -> usize {
        guard(&self.bytes).len()
    }
    fn read(&self, offset: usize, out: &mut [u8]) {
        let b = guard(&self.bytes);
        if let Some(src) = b.get(offset..offset + out.len()) {
            out.copy_from_slice(src);
        }
    }
    fn write(&self, offset: usize, data: &[u8]) {
        let mut b = guard(&self.bytes);
        if let Some(dst) = b.get_mut(offset..offset + data.len()) {
            dst.copy_from_slice(data);
        }
    }
    fn load_u32(&self, offset: usize) -> u32 {
        let mut w = [0u8; 4];
        self.read(offset, &mut w);
        u32::from_ne_bytes(w)
    }
    fn store_u32(&self, offset: usize, value: u32) {
        self.write(offset, &value.to_ne_bytes());
    }
    fn barrier(&self) {
        std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
    }
}

/// A `MAP_SHARED` mapping of one region of the `-shm` file.
struct MmapRegion {
    ptr: *mut u8,
    len: usize,
}

// SAFETY: the mapping is process-wide memory accessed only through
// volatile copies and atomics; the pointer stays valid until drop.
unsafe impl Send for MmapRegion {}
// SAFETY: see above.
unsafe impl Sync for MmapRegion {}

impl MmapRegion {
    fn new(fd: i32, offset: usize, len: usize) -> Result<MmapRegion> {
        // SAFETY: mapping a file range we just made long enough; the result
        // is checked against MAP_FAILED.
        let p = unsafe { libc::mmap(std::ptr::null_mut(), len, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_SHARED, fd, offset as libc::off_t) };
        if p == libc::MAP_FAILED {
            return Err(Error::new(SQLITE_IOERR_SHMMAP, "disk I/O error"));
        }
        Ok(MmapRegion { ptr: p as *mut u8, len })
    }

    fn in_bounds(&self, offset: usize, n: usize) -> bool {
        offset.checked_add(n).is_some_and(|e| e <= self.len)
    }
}

impl Drop for MmapRegion {
    fn drop(&mut self) {
        // SAFETY: `ptr`/`len` came from a successful mmap.
        unsafe {
            libc::munmap(self.ptr as *mut libc::c_void, self.len);
        }
    }
}

impl ShmMemory for MmapRegion {
    fn len(&self) -> usize {
        self.len
    }
    fn as_ptr(&self) -> Option<*mut u8> {
        Some(self.ptr)
    }
    fn read(&self, offset: usize, out: &mut [u8]) {
        if !self.in_bounds(offset, out.len()) {
            return;
        }
        for (i, b) in out.iter_mut().enumerate() {
            // SAFETY: in bounds of the live mapping.
            *b = unsafe { std::ptr::read_volatile(self.ptr.add(offset + i)) };
        }
    }
    fn write(&self, offset: usize, data: &[u8]) {
        if !self.in_bounds(offset, data.len()) {
            return;
        }
        for (i, b) in data.iter().enumerate() {
            // SAFETY: in bounds of the live mapping.
            unsafe { std::ptr::write_volatile(self.ptr.add(offset + i), *b) };
        }
    }
    fn load_u32(&self, offset: usize) -> u32 {
        if !offset.is_multiple_of(4) || !self.in_bounds(offset, 4) {
            return 0;
        }
        // SAFETY: aligned (mmap is page aligned, offset % 4 == 0), in bounds.
        let a = unsafe { &*(self.ptr.add(offset) as *const std::sync::atomic::AtomicU32) };
        a.load(std::sync::atomic::Ordering::SeqCst)
    }
    fn store_u32(&self, offset: usize, value: u32) {
        if !offset.is_multiple_of(4) || !self.in_bounds(offset, 4) {
            return;
        }
        // SAFETY: as in `load_u32`.
        let a = unsafe { &*(self.ptr.add(offset) as *const std::sync::atomic::AtomicU32) };
        a.store(value, std::sync::atomic::Ordering::SeqCst)
    }
    fn barrier(&self) {
        std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
    }
}

/// The shared memory of one open database file of a kernel-file backend:
/// embed it in the backend's file type and forward `File::shm_map`,
/// `shm_lock` and `shm_unmap` to it (the `sync` backend does; an io_uring
/// backend can do the same).
#[derive(Debug)]
pub struct FileShm {
    dev: u64,
    ino: u64,
    db_path: String,
    handle: Mutex<ShmHandle>,
}

impl FileShm {
    /// For the database file at `db_path` with inode `(dev, ino)`.
    pub fn new(dev: u64, ino: u64, db_path: &str) -> FileShm {
        FileShm { dev, ino, db_path: db_path.to_string(), handle: Mutex::default() }
    }

    /// `File::shm_map`.
    pub fn map(&self, region: usize, region_size: usize, extend: bool) -> Result<Option<ShmRegion>> {
        let (dev, ino, path) = (self.dev, self.ino, self.db_path.as_str());
        guard(&self.handle).map(|| ShmNode::for_inode(dev, ino, path), region, region_size, extend)
    }

    /// `File::shm_lock`.
    pub fn lock(&self, offset: usize, n: usize, exclusive: bool, lock: bool) -> Result<bool> {
        guard(&self.handle).lock(offset, n, exclusive, lock)
    }

    /// Whether a connection of another process reads the WAL through this
    /// shared memory; `false` while this file has none mapped.
    pub fn external_reader(&self) -> Result<bool> {
        let node = guard(&self.handle).node.clone();
        match node.as_ref().and_then(|n| n.file.as_ref()) {
            Some(f) => reader_elsewhere(std::os::unix::io::AsRawFd::as_raw_fd(f)),
            None => Ok(false),
        }
    }

    /// `File::shm_unmap`.
    pub fn unmap(&self, delete: bool) -> Result<()> {
        guard(&self.handle).unmap(delete)
    }
}

/// One connection's use of a [`ShmNode`]: which slots it holds.
#[derive(Debug, Default)]
pub struct ShmHandle {
    node: Option<Arc<ShmNode>>,
    shared: u8,
    exclusive: u8,
}

impl ShmHandle {
    /// The node, attaching with `attach` the first time.
    fn node(&mut self, attach: impl FnOnce() -> Result<Arc<ShmNode>>) -> Result<Arc<ShmNode>> {
        if self.node.is_none() {
            self.node = Some(attach()?);
        }
        self.node.clone().ok_or_else(|| Error::new(SQLITE_IOERR_SHMOPEN, "disk I/O error"))
    }

    /// `xShmMap`.
    pub fn map(&mut self, attach: impl FnOnce() -> Result<Arc<ShmNode>>, region: usize, size: usize, extend: bool) -> Result<Option<ShmRegion>> {
        self.node(attach)?.map(region, size, extend)
    }

    /// `xShmLock` on slots `offset..offset+n`.
    pub fn lock(&mut self, offset: usize, n: usize, exclusive: bool, lock: bool) -> Result<bool> {
        let Some(node) = self.node.clone() else {
            return Err(Error::new(SQLITE_IOERR_SHMLOCK, "disk I/O error"));
        };
        if n == 0 || offset + n > SHM_NLOCK {
            return Err(Error::new(SQLITE_IOERR_SHMLOCK, "disk I/O error"));
        }
        let mask: u8 = (((1u16 << n) - 1) << offset) as u8;
        let fd = node.file.as_ref().map(|f| f.as_raw_fd());
        let mut t = guard(&node.locks);
        if !lock {
            for i in offset..offset + n {
                let bit = 1u8 << i;
                let mut release = false;
                if self.exclusive & bit != 0 {
                    t.exclusive[i] = false;
                    release = t.shared[i] == 0;
                } else if self.shared & bit != 0 {
                    t.shared[i] = t.shared[i].saturating_sub(1);
                    release = t.shared[i] == 0;
                }
                if release {
                    if let Some(fd) = fd {
                        setlk(fd, libc::F_UNLCK, SHM_LOCK_BASE + i as u64, 1)?;
                    }
                }
            }
            self.shared &= !mask;
            self.exclusive &= !mask;
            return Ok(true);
        }
        if exclusive {
            for i in offset..offset + n {
                let bit = 1u8 << i;
                if self.exclusive & bit != 0 {
                    continue;
                }
                let own_shared = u32::from(self.shared & bit != 0);
                if t.exclusive[i] || t.shared[i] > own_shared {
                    return Ok(false);
                }
            }
            if let Some(fd) = fd {
                if let Fcntl::Busy = setlk(fd, libc::F_WRLCK, SHM_LOCK_BASE + offset as u64, n as u64)? {
                    return Ok(false);
                }
            }
            for i in offset..offset + n {
                let bit = 1u8 << i;
                if self.shared & bit != 0 {
                    t.shared[i] -= 1;
                }
                t.exclusive[i] = true;
            }
            self.shared &= !mask;
            self.exclusive |= mask;
            return Ok(true);
        }
        // Shared locks are taken one slot at a time by the WAL.
        for i in offset..offset + n {
            let bit = 1u8 << i;
            if (self.shared | self.exclusive) & bit != 0 {
                continue;
            }
            if t.exclusive[i] {
                return Ok(false);
            }
            if t.shared[i] == 0 {
                if let Some(fd) = fd {
                    if let Fcntl::Busy = setlk(fd, libc::F_RDLCK, SHM_LOCK_BASE + i as u64, 1)? {
                        return Ok(false);
                    }
                }
            }
            t.shared[i] += 1;
            self.shared |= bit;
        }
        Ok(true)
    }

    /// `xShmUnmap`: release every slot held and detach; the `-shm` file is
    /// deleted if `delete` and this was the process's last user.
    pub fn unmap(&mut self, delete: bool) -> Result<()> {
        if self.node.is_none() {
            return Ok(());
        }
        let held = self.shared | self.exclusive;
        for i in 0..SHM_NLOCK {
            if held & (1 << i) != 0 {
                let _ = self.lock(i, 1, false, false);
            }
        }
        if let Some(node) = self.node.take() {
            if delete && Arc::strong_count(&node) == 1 {
                if let Some(p) = &node.path {
                    let _ = std::fs::remove_file(super::os_path::os_path(p));
                }
            }
        }
        Ok(())
    }
}

impl Drop for ShmHandle {
    fn drop(&mut self) {
        let _ = self.unmap(false);
    }
}

#[cfg(test)]
mod tests {
    use crate::io::sync::SyncBackend;
    use crate::io::{IoBackend, OpenOptions};

    #[test]
    fn connections_of_one_process_share_memory_and_exclude_by_slot() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.db");
        let p = p.to_str().unwrap();
        let be = SyncBackend::new();
        let a = be.open(p, OpenOptions { create: true, ..Default::default() }).unwrap();
        let b = be.open(p, OpenOptions::default()).unwrap();
        let ra = a.shm_map(0, 32768, true).unwrap().unwrap();
        let rb = b.shm_map(0, 32768, false).unwrap().unwrap();
        ra.0.store_u32(96, 77);
        assert_eq!(rb.0.load_u32(96), 77, "one mapping per process");
        assert!(b.shm_map(1, 32768, false).unwrap().is_none());
        assert!(a.shm_lock(0, 1, true, true).unwrap());
        assert!(!b.shm_lock(0, 1, true, true).unwrap(), "WRITE held by a");
        assert!(b.shm_lock(3, 1, false, true).unwrap());
        assert!(a.shm_lock(3, 1, false, true).unwrap(), "readers share");
        assert!(!a.shm_lock(3, 1, true, true).unwrap(), "b still reads");
        b.shm_lock(3, 1, false, false).unwrap();
        assert!(a.shm_lock(3, 1, true, true).unwrap(), "upgrade once alone");
        a.shm_lock(0, 8, false, false).unwrap();
        assert!(b.shm_lock(0, 1, true, true).unwrap());
        b.shm_unmap(false).unwrap();
        a.shm_unmap(true).unwrap();
        assert!(!std::path::Path::new(&format!("{p}-shm")).exists());
    }
}
