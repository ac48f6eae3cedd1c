//! Writes committed through an async connection are durable: once COMMIT
//! (or an autocommit statement) has returned `Done`, a power loss on the
//! simulated disk keeps them, and real SQLite reads the files with
//! `integrity_check` ok. The same on real files through io_uring.

use crate::async_support;
#[allow(dead_code, unsafe_code)]
use crate::storage_support;
use async_support::*;
use ringlite::io::IoContext;
use ringlite::{Connection, OpenFlags};
use storage_support::Sqlite;

const SETUP: &str = "CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i<1000)
INSERT INTO t SELECT i, printf('%.80c', 'a') FROM n;";

/// Write through an async connection: a multi-statement transaction and
/// an autocommit one. Returns the number of suspensions.
fn write_async(conn: &mut Connection) -> usize {
    let mut ios = 0;
    ios += must(conn, "BEGIN").ios;
    ios += must(conn, "INSERT INTO t(b) SELECT 'new' || a FROM t WHERE a <= 400").ios;
    ios += must(conn, "UPDATE t SET b = 'changed' WHERE a % 10 = 0").ios;
    ios += must(conn, "COMMIT").ios;
    ios += must(conn, "DELETE FROM t WHERE a BETWEEN 200 AND 299").ios;
    ios
}

const CHECK: &str = "SELECT count(*), sum(a), sum(b = 'changed'), max(a) FROM t";

fn expected() -> Vec<Vec<storage_support::V>> {
    use storage_support::V;
    // 1400 rows minus 100 deleted; sum of 1..=1400 minus sum 200..=299.
    let sum: i64 = (1..=1400i64).sum::<i64>() - (200..=299i64).sum::<i64>();
    vec![vec![V::Int(1300), V::Int(sum), V::Int(130), V::Int(1400)]]
}

fn to_file(sim: &ringlite::io::sim::SimBackend, name: &str, dir: &std::path::Path) {
    if let Some(d) = sim.fs().get(name) {
        std::fs::write(dir.join(name), d.snapshot()).unwrap();
    }
}

fn survives_power_loss(wal: bool) {
    for seed in [3u64, 11, 29] {
        let backend = sim(seed, 3);
        let io = IoContext::new(backend.clone());
        let mut c = open(&io, "db", false);
        if wal {
            must(&mut c, "PRAGMA journal_mode=WAL");
        }
        must(&mut c, SETUP);
        c.close().unwrap();

        let mut a = open(&io, "db", true);
        assert!(write_async(&mut a) > 0);
        // No close: the power goes out right after the last Done.
        backend.power_loss();
        drop(a);

        // Real SQLite reads what is left (WAL included) from real files.
        let dir = tempfile::tempdir().unwrap();
        for f in ["db", "db-wal", "db-journal"] {
            to_file(&backend, f, dir.path());
        }
        let db = Sqlite::open(dir.path().join("db").to_str().unwrap());
        assert_eq!(db.integrity(), "Text(\"ok\")", "seed {seed} wal {wal}");
        assert_eq!(db.query(CHECK), expected(), "seed {seed} wal {wal}");
    }
}

#[test]
fn async_commits_survive_power_loss_rollback_journal() {
    survives_power_loss(false);
}

#[test]
fn async_commits_survive_power_loss_wal() {
    survives_power_loss(true);
}

/// Through the thread's io_uring ring on real files.
fn on_real_files(wal: bool) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("real.db");
    let path = path.to_str().unwrap();
    {
        let db = Sqlite::open(path);
        if wal {
            db.exec("PRAGMA journal_mode=WAL");
        }
        db.exec(SETUP);
    }
    let mut a = Connection::open(path, OpenFlags(RW | OpenFlags::ASYNC)).unwrap();
    let backend = must(&mut a, "PRAGMA io_backend").rows;
    let ios = write_async(&mut a);
    if backend == vec![vec![V::Text(b"io_uring".to_vec())]] {
        assert!(ios > 0, "io_uring requests complete only when polled");
    }
    a.close().unwrap();
    drop(a);
    let db = Sqlite::open(path);
    assert_eq!(db.integrity(), "Text(\"ok\")");
    assert_eq!(db.query(CHECK), expected());
    // And ringlite reads the same back, cold and async.
    let mut r = Connection::open(path, OpenFlags(RW | OpenFlags::ASYNC)).unwrap();
    let got = must(&mut r, CHECK).rows;
    assert_eq!(format!("{got:?}"), "[[Int(1300), Int(955750), Int(130), Int(1400)]]");
    r.close().unwrap();
}

#[test]
fn async_commits_on_io_uring_are_read_by_sqlite_rollback_journal() {
    on_real_files(false);
}

#[test]
fn async_commits_on_io_uring_are_read_by_sqlite_wal() {
    on_real_files(true);
}

/// What an async connection committed in WAL mode is there for a
/// read-only connection of the same process once the writer has closed
/// (and removed the log): the database file alone is read.
#[test]
fn read_only_connection_reads_a_closed_wal_database() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ro.db");
    let path = path.to_str().unwrap();
    let mut w = Connection::open(path, OpenFlags(RW | OpenFlags::ASYNC)).unwrap();
    must(&mut w, "PRAGMA journal_mode=WAL");
    must(&mut w, SETUP);
    w.close().unwrap();
    drop(w);
    assert!(!std::path::Path::new(&format!("{path}-wal")).exists());
    let mut r = Connection::open(path, OpenFlags(OpenFlags::READONLY)).unwrap();
    assert_eq!(must(&mut r, "SELECT count(*) FROM t").rows, vec![vec![V::Int(1000)]]);
    r.close().unwrap();
}
