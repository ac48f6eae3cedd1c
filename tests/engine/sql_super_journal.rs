//! Transactions writing two databases, and their super-journal, across
//! engines. Each engine commits such a transaction through I/O that copies
//! the directory aside when the super-journal is deleted (the commit
//! point): just before or just after. The crash image is put back and
//! opened by the other engine, which must find both databases rolled back
//! (before) or both committed (after), the hot journals finalized, and the
//! super-journal deleted once no journal names it. A third image is taken
//! between the child commits: right after the first database file is
//! synced, before the second is written (what a process killed there
//! leaves): both must read as before. So each engine reads
//! the other's super-journal and journal records. Also: a commit leaves no
//! file behind, and one with a WAL database (SQLite's rule: one journal
//! needing it is not enough) makes no super-journal.
#![allow(unsafe_code)]
use crate::sql_common;
use crate::watched_main_db::{MainDbWatcher, WatchedBackend};
use libsqlite3_sys as ffi;
use ringlite::{Connection, OpenFlags};
use sql_common::*;
use std::ffi::{c_char, c_int, CStr, CString};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Where a crash image is taken: 1 before the super-journal's deletion,
/// 2 after, 3 after the first database file's sync (between the child
/// commits); the directory copied and where the copy goes.
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
        if *when != 3 && (*when == 2) == after {
            copy_dir(dir, to);
        }
    }
}

/// Called after a sync of main database file `name`: the image of
/// point 3, once, while a super-journal exists (inside the commit).
fn after_db_sync(name: &str) {
    if let Some((3, dir, to)) = SNAP.lock().unwrap().as_ref() {
        if name.ends_with("main.db") && !to.exists() && !super_journals(dir).is_empty() {
            copy_dir(dir, to);
        }
    }
}

// ---- SQLite's side: a VFS wrapping the default one, xDelete changed, and
// main database files' xSync (their methods swapped for a copy).
static ORIG_METHODS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
static SNAP_METHODS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
static DB_NAMES: Mutex<Vec<(usize, String)>> = Mutex::new(Vec::new());

unsafe extern "C" fn snap_sync(f: *mut ffi::sqlite3_file, flags: c_int) -> c_int {
    let orig = *ORIG_METHODS.get().unwrap() as *const ffi::sqlite3_io_methods;
    let rc = ((*orig).xSync.unwrap())(f, flags);
    let name = DB_NAMES.lock().unwrap().iter().rev().find(|(p, _)| *p == f as usize).map(|(_, n)| n.clone());
    if let Some(n) = name {
        after_db_sync(&n);
    }
    rc
}

unsafe extern "C" fn snap_open(_v: *mut ffi::sqlite3_vfs, z: *const c_char, f: *mut ffi::sqlite3_file, flags: c_int, out: *mut c_int) -> c_int {
    let orig = ORIG.load(std::sync::atomic::Ordering::Acquire);
    let rc = ((*orig).xOpen.unwrap())(orig, z, f, flags, out);
    if rc == 0 && flags & ffi::SQLITE_OPEN_MAIN_DB != 0 && !z.is_null() && !(*f).pMethods.is_null() {
        let methods = (*f).pMethods as usize;
        if *ORIG_METHODS.get_or_init(|| methods) == methods {
            let copy = *SNAP_METHODS.get_or_init(|| {
                let mut m: ffi::sqlite3_io_methods = std::ptr::read((*f).pMethods);
                m.xSync = Some(snap_sync);
                Box::leak(Box::new(m)) as *const ffi::sqlite3_io_methods as usize
            });
            (*f).pMethods = copy as *const ffi::sqlite3_io_methods;
            DB_NAMES.lock().unwrap().push((f as usize, CStr::from_ptr(z).to_string_lossy().into_owned()));
        }
    }
    rc
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
        v.xOpen = Some(snap_open);
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

// ---- ringlite's side: the default backend, deletes and main database
// files' syncs watched.
struct Snap;

impl MainDbWatcher for Snap {
    fn after_sync(&self, path: &str) {
        after_db_sync(path);
    }
    fn around_delete(&self, path: &str, after: bool) {
        around_delete(path, after);
    }
}

fn open_ours_snap(path: &Path) -> Connection {
    let backend = Arc::new(WatchedBackend(Arc::new(ringlite::io::sync::SyncBackend::new()), Arc::new(Snap)));
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
    assert!(image.exists(), "no crash image: the commit deleted no super-journal or synced no database");
    assert_eq!(super_journals(&work), Vec::<String>::new(), "a committed transaction leaves no super-journal");
    // The crash image, back where its names point.
    std::fs::remove_dir_all(&work).unwrap();
    copy_dir(&image, &work);
    assert!(exists(work.join("main.db-journal")) && exists(work.join("aux.db-journal")));
    assert_eq!(super_journals(&work).len(), if when == 2 { 0 } else { 1 });
    if when == 3 {
        // Between the child commits: main's journal names the
        // super-journal (its commit is written and synced), aux's not yet.
        let names = |p: PathBuf| std::fs::read(p).map(|b| b.windows(3).any(|w| w == b"-mj")).unwrap_or(false);
        assert!(
            names(work.join("main.db-journal")) && !names(work.join("aux.db-journal")),
            "image 3 is not between the child commits: {} {}",
            names(work.join("main.db-journal")),
            names(work.join("aux.db-journal"))
        );
    }
    let want = if when == 2 { "1,2" } else { "1" };
    // (Between the child commits the second journal does not name the
    // super-journal yet: the first recovery may delete it at once.)
    let still_named = if when == 3 { None } else { Some(if when == 1 { 1 } else { 0 }) };
    let (t, u, integrity) = if sqlite_writes {
        let mut c = Connection::open(main.to_str().unwrap(), OpenFlags(OpenFlags::READWRITE)).unwrap();
        let t = run_ours(&mut c, "SELECT group_concat(a) FROM t");
        // The other journal still names it.
        if let Some(n) = still_named {
            assert_eq!(super_journals(&work).len(), n);
        }
        run_ours(&mut c, &attach);
        let u = run_ours(&mut c, "SELECT group_concat(b) FROM u");
        (t, u, run_ours(&mut c, "PRAGMA integrity_check; PRAGMA aux.integrity_check"))
    } else {
        let db = RefDb::open_path(main.to_str().unwrap());
        let t = run_ref(&db, "SELECT group_concat(a) FROM t");
        if let Some(n) = still_named {
            assert_eq!(super_journals(&work).len(), n);
        }
        run_ref(&db, &attach);
        let u = run_ref(&db, "SELECT group_concat(b) FROM u");
        (t, u, run_ref(&db, "PRAGMA integrity_check; PRAGMA aux.integrity_check"))
    };
    assert!(text(&t).contains(&format!("Text({:?})", want.as_bytes())), "main: {t:?}, want {want}");
    assert!(text(&u).contains(&format!("Text({:?})", want.as_bytes())), "aux: {u:?}, want {want}");
    assert!(!text(&integrity).contains("Error") && text(&integrity).matches("Text([111, 107])").count() == 2, "{integrity:?}");
    assert_eq!(super_journals(&work), Vec::<String>::new(), "the super-journal deleted once no journal names it");
    // (A journal that is empty, or whose header was never synced (its
    // first byte still 0), is not hot: both engines leave it, as the
    // second database's is between the child commits.)
    let not_hot = |p: PathBuf| std::fs::read(p).map(|b| b.first().is_none_or(|&c| c == 0)).unwrap_or(true);
    let files = || std::fs::read_dir(&work).unwrap().map(|e| e.unwrap().file_name()).collect::<Vec<_>>();
    assert!(!exists(work.join("main.db-journal")), "main's hot journal finalized: {:?}", files());
    let aux_ok = if when == 3 { not_hot(work.join("aux.db-journal")) } else { !exists(work.join("aux.db-journal")) };
    assert!(aux_ok, "aux's hot journal finalized: {:?}", files());
}

#[test]
fn ringlite_recovers_sqlite_crash_images_of_a_two_database_commit() {
    let _g = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    crash_and_recover(true, 1);
    crash_and_recover(true, 2);
    crash_and_recover(true, 3);
}

#[test]
fn sqlite_recovers_ringlite_crash_images_of_a_two_database_commit() {
    let _g = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    crash_and_recover(false, 1);
    crash_and_recover(false, 2);
    crash_and_recover(false, 3);
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
