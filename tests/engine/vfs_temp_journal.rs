//! A temporary database's rollback journal and statement journals on a
//! connection whose I/O goes through a given backend (as an application
//! VFS's): past 64 KiB the journal is a temporary file of the backend
//! (`FileKind::TempJournal`, `pager/temp_journal.rs`) and a rollback takes
//! the pages' images back from it, also when the database itself spilled
//! to its file; the results are the reference SQLite's for the same script.

use crate::sql_common;
use ringlite::io::{File, FileKind, IoBackend, OpenOptions};
use ringlite::{Connection, OpenFlags, Result};
use sql_common::*;
use std::sync::{Arc, Mutex};

/// The default backend, counting opens by kind, asking for SQLite's
/// temporary files as an application VFS does (and naming them in `.2`,
/// as a VFS names the files it is given no name for).
struct Kinds(Arc<dyn IoBackend>, Mutex<Vec<FileKind>>, std::path::PathBuf);

impl IoBackend for Kinds {
    fn name(&self) -> &'static str {
        self.0.name()
    }
    fn open(&self, path: &str, opts: OpenOptions) -> Result<Arc<dyn File>> {
        let mut opened = self.1.lock().unwrap();
        opened.push(opts.kind);
        if path.is_empty() {
            assert!(opts.delete_on_close, "a nameless file not deleted on close");
            let name = self.2.join(format!("temp{}", opened.len()));
            return self.0.open(name.to_str().unwrap(), opts);
        }
        self.0.open(path, opts)
    }
    fn delete(&self, path: &str, sync_dir: bool) -> Result<()> {
        self.0.delete(path, sync_dir)
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
    fn spills_statement_journals(&self) -> bool {
        true
    }
}

const FILL: &str = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 300) ";

fn script(temp_cache: i32) -> Vec<String> {
    vec![
        "CREATE TABLE m(x); INSERT INTO m VALUES(1)".into(),
        format!("PRAGMA temp.cache_size = {temp_cache}"),
        "CREATE TEMP TABLE u(a INTEGER PRIMARY KEY, b UNIQUE, CHECK (a < 300 OR b NOT LIKE '%r'))".into(),
        format!("{FILL}INSERT INTO u SELECT x, printf('%.300c', 'a') || x FROM c"),
        "BEGIN; UPDATE u SET b = b || 'p'; SELECT count(*) FROM u WHERE b LIKE '%p'; ROLLBACK".into(),
        "SELECT count(*), sum(b LIKE '%p'), sum(length(b)) FROM u".into(),
        "UPDATE u SET b = b || 'q'".into(),
        "BEGIN".into(),
        "UPDATE u SET b = b || 's'".into(),
        "UPDATE u SET b = b || 'r'".into(),
        "SELECT count(*), sum(b LIKE '%qs'), sum(b LIKE '%r') FROM u".into(),
        "ROLLBACK".into(),
        "SELECT count(*), sum(b LIKE '%q'), sum(b LIKE '%s') FROM u".into(),
        format!("BEGIN; DELETE FROM u WHERE a % 3 = 0; {FILL}INSERT INTO u SELECT x + 1000, printf('%.500c', 'n') || x FROM c; ROLLBACK"),
        "SELECT count(*), sum(length(b)), max(a) FROM u".into(),
        "PRAGMA temp.integrity_check".into(),
    ]
}

fn journals_as_sqlite(temp_cache: i32) {
    let dir = tempfile::tempdir().unwrap();
    let kinds = Arc::new(Kinds(Arc::new(ringlite::io::sync::SyncBackend::new()), Mutex::new(Vec::new()), dir.path().to_path_buf()));
    let ours_path = dir.path().join("ours.db");
    let mut ours = Connection::open_with_backend(ours_path.to_str().unwrap(), OpenFlags(OpenFlags::READWRITE | OpenFlags::CREATE), kinds.clone()).unwrap();
    let reference = RefDb::open_path(dir.path().join("ref.db").to_str().unwrap());
    for sql in script(temp_cache) {
        assert_eq!(run_ours(&mut ours, &sql), run_ref(&reference, &sql), "{sql}");
    }
    let opened = kinds.1.lock().unwrap().clone();
    let count = |k: FileKind| opened.iter().filter(|&&o| o == k).count();
    // One journal file, opened once and kept; one statement journal, kept
    // as well (the temporary database's pager is in exclusive mode).
    assert_eq!(count(FileKind::TempJournal), 1, "{opened:?}");
    assert_eq!(count(FileKind::SubJournal), 1, "{opened:?}");
    assert_eq!(count(FileKind::TempDb), usize::from((1..100).contains(&temp_cache)), "{opened:?}");
}

#[test]
fn a_temporary_database_journals_in_a_file_past_64_kib() {
    journals_as_sqlite(-2000);
}

#[test]
fn a_spilled_temporary_database_rolls_back_from_its_journal_file() {
    journals_as_sqlite(10);
}
