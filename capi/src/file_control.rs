//! # `sqlite3_file_control`
//!
//! As in SQLite, a few opcodes are answered above the file, whatever the
//! VFS: `FILE_POINTER`, `VFS_POINTER` and `JOURNAL_POINTER` hand out the
//! objects behind a schema, `DATA_VERSION`, `RESERVE_BYTES` and
//! `RESET_CACHE` go to the engine's pager (`connection/file_control.rs`).
//! Every other opcode goes to the file: an application VFS's file gets
//! its own `xFileControl`; a file on the engine's own I/O answers what
//! SQLite's unix VFS answers ([`unix_file_control`], also the
//! `xFileControl` of the "unix" object's files), and
//! `SQLITE_NOTFOUND` for the rest, as SQLite's does.
//!
//! Objects handed out for native files ([`NativeFileObject`]) stay alive
//! in the connection's handle until it closes, so the pointers stay valid
//! as SQLite's do. In-memory databases have no file: their pointer is a
//! closed object (`pMethods` NULL) and their other opcodes are
//! `SQLITE_NOTFOUND`, as SQLite's.
//!
//! `MMAP_SIZE` answers 0 whatever is set (the engine never maps database
//! files). Not answered for native files (SQLITE_NOTFOUND): `NULL_IO`, `LOCK_TIMEOUT` (as Debian's build) and the opcodes other
//! VFSes own.

use crate::consts::*;
use crate::error::misuse;
use crate::handle::{db_ref, sqlite3};
use crate::vfs_backend::VfsFile;
use crate::vfs_unix::NativeFileObject;
use ringlite::io::{File, FileHint};
use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::Arc;

/// SQLite's `SQLITE_MAX_MMAP_SIZE` on Linux (0x7fff0000): what its sorter
/// offers a VFS to map of a spill file.
pub(crate) const MAX_MMAP_SIZE: i64 = 0x7fff_0000;

/// The `SQLITE_FCNTL_*` opcodes SQLite's unix VFS answers, for `file`
/// (a file on the engine's own I/O).
///
/// # Safety
/// `arg` must be what the documentation of `op` says its caller passes.
pub unsafe fn unix_file_control(file: &dyn File, op: c_int, arg: *mut c_void) -> c_int {
    // SAFETY: the caller guarantees: `arg` is NULL or valid for what the API does with it (read for the
    // length given, or handed back to callbacks untouched).
    unsafe {
        let Some(modes) = file.modes() else {
            return SQLITE_NOTFOUND;
        };
        let known = matches!(
            op,
            SQLITE_FCNTL_LOCKSTATE
                | SQLITE_FCNTL_LAST_ERRNO
                | SQLITE_FCNTL_CHUNK_SIZE
                | SQLITE_FCNTL_SIZE_HINT
                | SQLITE_FCNTL_PERSIST_WAL
                | SQLITE_FCNTL_POWERSAFE_OVERWRITE
                | SQLITE_FCNTL_VFSNAME
                | SQLITE_FCNTL_TEMPFILENAME
                | SQLITE_FCNTL_HAS_MOVED
                | SQLITE_FCNTL_EXTERNAL_READER
                | SQLITE_FCNTL_MMAP_SIZE
        );
        if !known {
            return SQLITE_NOTFOUND;
        }
        if arg.is_null() {
            return misuse();
        }
        let int = arg as *mut c_int;
        match op {
            SQLITE_FCNTL_LOCKSTATE => *int = crate::vfs_unix::level_number(file.lock_level()),
            // (Failed system calls are reported through result codes.)
            SQLITE_FCNTL_LAST_ERRNO => *int = 0,
            SQLITE_FCNTL_CHUNK_SIZE => modes.set_chunk_size(*int),
            SQLITE_FCNTL_SIZE_HINT => file.hint(FileHint::SizeHint((*(arg as *mut i64)).max(0) as u64)),
            SQLITE_FCNTL_PERSIST_WAL => flag(int, || modes.persist_wal(), |on| modes.set_persist_wal(on)),
            SQLITE_FCNTL_POWERSAFE_OVERWRITE => flag(int, || modes.powersafe_overwrite(), |on| modes.set_powersafe_overwrite(on)),
            SQLITE_FCNTL_VFSNAME => *(arg as *mut *mut c_char) = crate::memory::malloc_cstr(b"unix"),
            SQLITE_FCNTL_TEMPFILENAME => *(arg as *mut *mut c_char) = crate::memory::malloc_cstr(crate::vfs_unix::temp_name().as_bytes()),
            SQLITE_FCNTL_HAS_MOVED => *int = file.has_moved().unwrap_or(false) as c_int,
            // The limit stays 0 whatever is set: the engine's files are never
            // mapped (SQLite's unix VFS answers its limit, 0 by default).
            SQLITE_FCNTL_MMAP_SIZE => *(arg as *mut i64) = 0,
            _ => match file.external_reader() {
                Ok(reading) => *int = reading as c_int,
                Err(e) => return e.code,
            },
        }
        SQLITE_OK
    }
}

/// A get-or-set flag control: a negative argument asks, others set.
unsafe fn flag(arg: *mut c_int, get: impl Fn() -> bool, set: impl Fn(bool)) {
    // SAFETY: the caller guarantees: `arg` is NULL or writable.
    unsafe {
        if *arg < 0 {
            *arg = get() as c_int;
        } else {
            set(*arg != 0);
        }
    }
}

/// The application VFS file behind `file`, if it is one.
fn vfs_file(file: &Arc<dyn File>) -> Option<&VfsFile> {
    file.as_any().and_then(|a| a.downcast_ref::<VfsFile>())
}

/// The `sqlite3_file` to hand out for `file`: an application's own, an
/// object over a native file (kept in the handle), or the closed object.
fn file_object(d: &sqlite3, file: Option<Arc<dyn File>>, native_ok: bool) -> *mut crate::abi::sqlite3_file {
    let Some(file) = file else {
        return crate::vfs_backend::closed_file();
    };
    if let Some(vf) = vfs_file(&file) {
        return vf.raw();
    }
    if !native_ok || file.modes().is_none() {
        return crate::vfs_backend::closed_file();
    }
    let mut objects = d.file_objects.borrow_mut();
    let mut native = objects.iter_mut().filter_map(|o| o.downcast_mut::<NativeFileObject>());
    if let Some(o) = native.find(|o| o.is_for(&file)) {
        return o.raw();
    }
    let mut o = Box::new(NativeFileObject::new(file));
    let raw = o.raw();
    objects.push(o);
    raw
}

/// Send the file-control opcode `op` with argument `arg` to the file of
/// schema `zDbName` (NULL for "main"); see the module doc for who
/// answers. SQLITE_NOTFOUND when the file does not know the opcode;
/// SQLITE_ERROR for an unknown schema.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_file_control(db: *mut sqlite3, zDbName: *const c_char, op: c_int, arg: *mut c_void) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed; `zDbName` is NULL or NUL-terminated (or readable for the length given
    // with it); `arg` is NULL or valid for what the API does with it (read for the length given, or handed
    // back to callbacks untouched).
    unsafe {
        ffi_guard!(SQLITE_INTERNAL, {
            let Some(d) = db_ref(db) else {
                return misuse();
            };
            let name = if zDbName.is_null() { "main".into() } else { CStr::from_ptr(zDbName).to_string_lossy() };
            let _g = d.lock.lock();
            let known = name.eq_ignore_ascii_case("temp") || d.with_conn(|c| c.db_readonly(&name) >= 0).unwrap_or(true);
            if !known {
                return SQLITE_ERROR;
            }
            let pointer_op = matches!(
                op,
                SQLITE_FCNTL_FILE_POINTER | SQLITE_FCNTL_VFS_POINTER | SQLITE_FCNTL_JOURNAL_POINTER | SQLITE_FCNTL_DATA_VERSION | SQLITE_FCNTL_RESERVE_BYTES
            );
            if pointer_op && arg.is_null() {
                return misuse();
            }
            // (Objects over native files only for blocking connections, whose
            // requests complete at submission.)
            let native_ok = d.with_conn(|c| !c.is_async()).unwrap_or(false);
            let file = d.with_conn(|c| c.db_file(&name)).ok().flatten();
            match op {
                SQLITE_FCNTL_FILE_POINTER => {
                    *(arg as *mut *mut crate::abi::sqlite3_file) = file_object(d, file, native_ok);
                    SQLITE_OK
                }
                SQLITE_FCNTL_JOURNAL_POINTER => {
                    // The WAL's or journal's file; a closed object when none is open.
                    let journal = d.with_conn(|c| c.db_journal_file(&name)).ok().flatten();
                    *(arg as *mut *mut crate::abi::sqlite3_file) = file_object(d, journal, native_ok);
                    SQLITE_OK
                }
                SQLITE_FCNTL_VFS_POINTER => {
                    *(arg as *mut *mut crate::abi::sqlite3_vfs) = match file.as_ref().and_then(vfs_file) {
                        Some(vf) => vf.vfs(),
                        None => crate::vfs::unix_object(),
                    };
                    SQLITE_OK
                }
                SQLITE_FCNTL_DATA_VERSION => match d.with_conn(|c| c.file_data_version(&name)).ok().flatten() {
                    Some(v) => {
                        *(arg as *mut u32) = v;
                        SQLITE_OK
                    }
                    None => SQLITE_ERROR,
                },
                SQLITE_FCNTL_RESERVE_BYTES => {
                    let want = *(arg as *mut c_int);
                    let want = u8::try_from(want).ok();
                    match d.with_conn(|c| c.reserve_bytes(&name, want)).ok().flatten() {
                        Some(before) => {
                            *(arg as *mut c_int) = before as c_int;
                            SQLITE_OK
                        }
                        None => SQLITE_ERROR,
                    }
                }
                SQLITE_FCNTL_RESET_CACHE => {
                    d.with_conn(|c| c.reset_cache(&name)).ok();
                    SQLITE_OK
                }
                _ => match file {
                    Some(f) => match vfs_file(&f) {
                        Some(vf) => {
                            // The VFS may run the busy handler (through what
                            // BUSYHANDLER gave it): its count is left as it
                            // was, as SQLite restores it around the call.
                            let count = d.hooks.try_borrow().ok().map(|h| h.vfs_busy_count.clone());
                            let saved = count.as_ref().map(|c| c.load(std::sync::atomic::Ordering::Relaxed));
                            let rc = vf.file_control(op, arg);
                            if let (Some(c), Some(n)) = (count, saved) {
                                c.store(n, std::sync::atomic::Ordering::Relaxed);
                            }
                            rc
                        }
                        None => unix_file_control(f.as_ref(), op, arg),
                    },
                    None => SQLITE_NOTFOUND,
                },
            }
        })
    }
}
