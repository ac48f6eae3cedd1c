//! Transactions writing two databases, and their super-journal, across
//! engines. Each engine commits such a transaction through I/O that copies
//! the directory aside when the super-journal is deleted (the commit
//! point): just before or just after. The crash image is put back and
//! opened by the other engine, which must find both databases rolled back
//! (before) or both committed (after), the hot journals finalized, and the
//! super-journal deleted once no journal names it. So each engine reads
//! the other's super-journal and journal records. Also: a commit leaves no
//! file behind, and one with a WAL database (SQLite's rule: one journal
//! needing it is not enough) makes no super-journal.
#![allow(unsafe_code)]
use crate::sql_common;
use libsqlite3_sys as ffi;
use ringlite::io::{Completion, File, IoBackend, OpenOptions};
use ringlite::{Connection, OpenFlags, Result};
use sql_common::*;
use std::ffi::{c_char, c_int, CStr, CString};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Where a crash image is taken: 1 before the super-journal's deletion,
/// 2 after; the directory copied and where the copy goes.
static SNAP: Mutex<Option<(u8, PathBuf, PathBuf)>> = Mutex::new(None);

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_file() {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

/// Called around the deletion of `name`.
fn around_delete(name: &str, after: bool) {
    if !name.contains("-mj") {
        return;
    }
    if let Some((when, dir, to)) = SNAP.lock().unwrap().as_ref() {
        if (*when == 2) == after {
            copy_dir(dir, to);
        }
    }
}

// ---- SQLite's side: a VFS wrapping the default one, only xDelete changed.
static ORIG: std::sync::atomic::AtomicPtr<ffi::sqlite3_vfs> = std::sync::atomic::AtomicPtr::new(std::ptr::null_mut());

unsafe extern "C" fn snap_delete(_v: *mut ffi::sqlite3_vfs, z: *const c_char, sync: c_int) -> c_int {
    let name = CStr::from_ptr(z).to_string_lossy().into_owned();
    let orig = ORIG.load(std::sync::atomic::Ordering::Acquire);
    around_delete(&name, false);
    let rc = ((*orig).xDelete.unwrap())(orig, z, sync);
    around_delete(&name, true);
    rc
}

fn register_ref_vfs() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| unsafe {
        ffi::sqlite3_initialize();
        let orig = ffi::sqlite3_vfs_find(std::ptr::null());
        ORIG.store(orig, std::sync::atomic::Ordering::Release);
        let mut v: ffi::sqlite3_vfs = std::ptr::read(orig);
        v.zName = c"snapjournal".as_ptr();
        v.xDelete = Some(snap_delete);
        v.pNext = std::ptr::null_mut();
        ffi::sqlite3_vfs_register(Box::leak(Box::new(v)), 0);
    });
}

fn open_ref_snap(path: &Path) -> RefDb {
    register_ref_vfs();
    let mut db = std::ptr::null_mut();
    let c = CString::new(path.to_str().unwrap()).unwrap();
    unsafe { ffi::sqlite3_open_v2(c.as_ptr(), &mut db, ffi::SQLITE_OPEN_READWRITE | ffi::SQLITE_OPEN_CREATE, c"snapjournal".as_ptr()) };
    RefDb(db)
}

// ---- ringlite's side: the default backend, deletes watched.
struct SnapBackend(Arc<dyn IoBackend>);

impl IoBackend for SnapBackend {
    fn name(&self) -> &'static str {
        self.0.name()
    }
    fn open(&self, path: &str, opts: OpenOptions) -> Result<Arc<dyn File>> {
        self.0.open(path, opts)
    }
    fn delete(&self, path: &str, sync_dir: bool) -> Result<()> {
        around_delete(path, false);
        let r = self.0.delete(path, sync_dir);
        around_delete(path, true);
        r
    }
    fn delete_request(&self, path: &str, sync_dir: bool) -> Result<Completion> {
        around_delete(path, false);
        let r = self.0.delete_request(path, sync_dir);
        around_delete(path, true);
        r
    }
    fn exists(&self, path: &str) -> Result<bool> {
        self.0.exists(path)
    }
    fn full_path(&self, path: &str) -> Result<String> {
        self.0.full_path(path)
    }
    fn poll(&self, timeout: Option<std::time::Duration>) -> Result<usize> {
        self.0.poll(timeout)
    }
}

fn open_ours_snap(path: &Path) -> Connection {
    let backend = Arc::new(SnapBackend(Arc::new(ringlite::io::sync::SyncBackend::new())));
    Connection::open_with_backend(path.to_str().unwrap(), OpenFlags(OpenFlags::READWRITE | OpenFlags::CREATE), backend).unwrap()
}

fn text(out: &[Outcome]) -> String {
    format!("{out:?}")
}

fn super_journals(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).filter(|n| n.contains("-mj")).collect();
    v.sort();
    v
}

fn exists(p: PathBuf) -> bool {
    p.exists()
}

const SETUP: &str = "CREATE TABLE t(a); CREATE TABLE aux.u(b); INSERT INTO t VALUES(1); INSERT INTO u VALUES(1)";
const TXN: &str = "BEGIN; INSERT INTO t VALUES(2); INSERT INTO u VALUES(2); COMMIT";

/// One engine writes (`sqlite_writes`), takes the crash image `when`,
/// the other recovers it.
fn crash_and_recover(sqlite_writes: bool, when: u8) {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("w");
    let image = dir.path().join("image");
    std::fs::create_dir_all(&work).unwrap();
    let main = work.join("main.db");
    let attach = format!("ATTACH '{}' AS aux", work.join("aux.db").to_str().unwrap());
    let set = |on: bool| *SNAP.lock().unwrap() = on.then(|| (when, work.clone(), image.clone()));
    if sqlite_writes {
        let db = open_ref_snap(&main);
        run_ref(&db, &attach);
        run_ref(&db, SETUP);
        set(true);
        let out = run_ref(&db, TXN);
        set(false);
        assert!(!text(&out).contains("Error"), "{out:?}");
    } else {
        let mut c = open_ours_snap(&main);
        run_ours(&mut c, &attach);
        run_ours(&mut c, SETUP);
        set(true);
        let out = run_ours(&mut c, TXN);
        set(false);
        assert!(!text(&out).contains("Error"), "{out:?}");
    }
    assert!(image.exists(), "the commit deleted no super-journal");
    assert_eq!(super_journals(&work), Vec::<String>::new(), "a committed transaction leaves no super-journal");
    // The crash image, back where its names point.
    std::fs::remove_dir_all(&work).unwrap();
    copy_dir(&image, &work);
    assert!(exists(work.join("main.db-journal")) && exists(work.join("aux.db-journal")));
    assert_eq!(super_journals(&work).len(), if when == 1 { 1 } else { 0 });
    let want = if when == 1 { "1" } else { "1,2" };
    let (t, u, integrity) = if sqlite_writes {
        let mut c = Connection::open(main.to_str().unwrap(), OpenFlags(OpenFlags::READWRITE)).unwrap();
        let t = run_ours(&mut c, "SELECT group_concat(a) FROM t");
        // The other journal still names it.
        assert_eq!(super_journals(&work).len(), if when == 1 { 1 } else { 0 });
        run_ours(&mut c, &attach);
        let u = run_ours(&mut c, "SELECT group_concat(b) FROM u");
        (t, u, run_ours(&mut c, "PRAGMA integrity_check; PRAGMA aux.integrity_check"))
    } else {
        let db = RefDb::open_path(main.to_str().unwrap());
        let t = run_ref(&db, "SELECT group_concat(a) FROM t");
        assert_eq!(super_journals(&work).len(), if when == 1 { 1 } else { 0 });
        run_ref(&db, &attach);
        let u = run_ref(&db, "SELECT group_concat(b) FROM u");
        (t, u, run_ref(&db, "PRAGMA integrity_check; PRAGMA aux.integrity_check"))
    };
    assert!(text(&t).contains(&format!("Text({:?})", want.as_bytes())), "main: {t:?}, want {want}");
    assert!(text(&u).contains(&format!("Text({:?})", want.as_bytes())), "aux: {u:?}, want {want}");
    assert!(!text(&integrity).contains("Error") && text(&integrity).matches("Text([111, 107])").count() == 2, "{integrity:?}");
    assert_eq!(super_journals(&work), Vec::<String>::new(), "the super-journal deleted once no journal names it");
    assert!(!exists(work.join("main.db-journal")) && !exists(work.join("aux.db-journal")), "hot journals finalized");
}

#[test]
fn ringlite_recovers_sqlite_crash_images_of_a_two_database_commit() {
    let _g = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    crash_and_recover(true, 1);
    crash_and_recover(true, 2);
}

#[test]
fn sqlite_recovers_ringlite_crash_images_of_a_two_database_commit() {
    let _g = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    crash_and_recover(false, 1);
    crash_and_recover(false, 2);
}

/// The crash images go through one static.
static SERIAL: Mutex<()> = Mutex::new(());

#[test]
fn a_wal_database_in_the_transaction_needs_no_super_journal() {
    let _g = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("w");
    let image = dir.path().join("image");
    std::fs::create_dir_all(&work).unwrap();
    let mut c = open_ours_snap(&work.join("main.db"));
    run_ours(&mut c, &format!("ATTACH '{}' AS aux", work.join("aux.db").to_str().unwrap()));
    run_ours(&mut c, SETUP);
    run_ours(&mut c, "PRAGMA aux.journal_mode = wal");
    *SNAP.lock().unwrap() = Some((1, work.clone(), image.clone()));
    let out = run_ours(&mut c, TXN);
    *SNAP.lock().unwrap() = None;
    assert!(!text(&out).contains("Error"), "{out:?}");
    assert!(!image.exists(), "no super-journal was deleted");
    let t = run_ours(&mut c, "SELECT group_concat(a) FROM t; SELECT group_concat(b) FROM u");
    assert_eq!(text(&t).matches("Text([49, 44, 50])").count(), 2, "{t:?}");
}
