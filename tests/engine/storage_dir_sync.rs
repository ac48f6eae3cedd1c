//! A rollback journal or WAL that a transaction creates is made durable
//! with its directory entry: the first sync of the new file also syncs
//! the directory, on both file backends, as SQLite's unix VFS does. With
//! `synchronous=OFF` nothing is synced, the directory included.
use crate::sql_common;
use ringlite::io::sync::SyncBackend;
use ringlite::io::{dir_syncs, IoContext, IoUringBackend};
use ringlite::{Connection, OpenFlags};
use std::path::Path;
use std::sync::Arc;

fn backends() -> Vec<(&'static str, IoContext)> {
    vec![
        ("sync", IoContext::new(Arc::new(SyncBackend::new()))),
        ("io_uring", IoContext::new(Arc::new(IoUringBackend::new().expect("io_uring available on the test machine")))),
    ]
}

fn open(dir: &Path, io: IoContext) -> Connection {
    let path = dir.join("d.db");
    Connection::open_with_io(path.to_str().unwrap(), OpenFlags(OpenFlags::READWRITE | OpenFlags::CREATE), io).unwrap()
}

#[test]
fn a_new_rollback_journal_syncs_its_directory() {
    for (name, io) in backends() {
        let dir = tempfile::tempdir().unwrap();
        let mut c = open(dir.path(), io);
        sql_common::run_ours(&mut c, "CREATE TABLE t(a)");
        let before = dir_syncs(dir.path());
        sql_common::run_ours(&mut c, "INSERT INTO t VALUES(1)");
        // DELETE mode: each transaction creates the journal anew.
        assert_eq!(dir_syncs(dir.path()), before + 1, "{name}");
        sql_common::run_ours(&mut c, "PRAGMA synchronous=OFF; INSERT INTO t VALUES(2)");
        assert_eq!(dir_syncs(dir.path()), before + 1, "{name}: synchronous=OFF syncs nothing");
    }
}

#[test]
fn a_new_wal_syncs_its_directory_once() {
    for (name, io) in backends() {
        let dir = tempfile::tempdir().unwrap();
        let mut c = open(dir.path(), io);
        sql_common::run_ours(&mut c, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; CREATE TABLE t(a)");
        let after_first = dir_syncs(dir.path());
        assert!(after_first >= 1, "{name}: the WAL's first sync syncs its directory");
        sql_common::run_ours(&mut c, "INSERT INTO t VALUES(1); INSERT INTO t VALUES(2)");
        assert_eq!(dir_syncs(dir.path()), after_first, "{name}: the WAL stays open; its entry is durable already");
    }
}
