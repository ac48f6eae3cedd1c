//! Transactions against real SQLite: rollback, savepoints, hot journals in
//! both directions (ours recovered by SQLite and by us, SQLite's recovered
//! by us), locking between our connections and SQLite's, journal modes,
//! and the same crash recovery on the simulated backend.

mod storage_support;

use ringlite::btree::{Btree, BtreeOptions, Cursor, InsertKey, SeekResult, TreeKind};
use ringlite::error::SQLITE_BUSY;
use ringlite::io::sim::{SimBackend, SimConfig};
use ringlite::io::sync::SyncBackend;
use ringlite::io::IoContext;
use std::collections::BTreeMap;
use std::sync::Arc;
use storage_support::*;

fn rows(io: &IoContext, bt: &mut Btree, root: u32) -> BTreeMap<i64, Vec<u8>> {
    let mut c = Cursor::new(root, false, None);
    let mut out = BTreeMap::new();
    let mut more = io.block_on(|| c.first(bt)).unwrap();
    while more {
        out.insert(c.rowid(), payload(io, &mut c, bt));
        more = io.block_on(|| c.next(bt)).unwrap();
    }
    out
}

fn sqlite_rows(db: &Sqlite) -> BTreeMap<i64, Vec<u8>> {
    db.query("SELECT rowid, a, b FROM t")
        .into_iter()
        .map(|r| {
            let V::Int(id) = r[0] else { panic!() };
            (id, encode(&r[1..]))
        })
        .collect()
}

/// A database made by us: table t(a,b) with `n` rows. Returns its root.
fn make_db(io: &IoContext, path: &str, n: i64) -> u32 {
    let mut bt = open_btree(io, path);
    io.block_on(|| bt.begin_write(false)).unwrap();
    let root = create_tree(io, &mut bt, TreeKind::Table);
    add_schema_row(io, &mut bt, 1, "table", "t", "t", root, "CREATE TABLE t(a,b)");
    let mut c = Cursor::new(root, true, None);
    for i in 0..n {
        let rec = encode(&[V::Int(i), V::Text(format!("row {i} {}", "z".repeat((i % 7 * 300) as usize)))]);
        io.block_on(|| c.insert(&mut bt, InsertKey::Rowid(i), &rec)).unwrap();
    }
    io.block_on(|| bt.commit()).unwrap();
    root
}

fn scribble(io: &IoContext, bt: &mut Btree, root: u32) {
    let mut c = Cursor::new(root, true, None);
    for i in (0..300).step_by(3) {
        if io.block_on(|| c.seek_rowid(bt, i)).unwrap() == SeekResult::Found {
            io.block_on(|| c.delete(bt)).unwrap();
        }
    }
    for i in 1000..1200 {
        let rec = encode(&[V::Int(-i), V::Blob(vec![7; (i % 5 * 500) as usize])]);
        io.block_on(|| c.insert(bt, InsertKey::Rowid(i), &rec)).unwrap();
    }
}

fn copy_pair(from: &str, to: &str) {
    std::fs::copy(from, to).unwrap();
    let j = format!("{from}-journal");
    if std::path::Path::new(&j).exists() {
        std::fs::copy(&j, format!("{to}-journal")).unwrap();
    }
}

#[test]
fn rollback_and_savepoints_restore_content() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rb.db");
    let path = path.to_str().unwrap();
    let io = IoContext::new(Arc::new(SyncBackend::new()));
    let root = make_db(&io, path, 300);
    let mut bt = open_btree(&io, path);
    io.block_on(|| bt.begin_read()).unwrap();
    let before = rows(&io, &mut bt, root);
    io.block_on(|| bt.commit()).unwrap();

    io.block_on(|| bt.begin_write(false)).unwrap();
    scribble(&io, &mut bt, root);
    io.block_on(|| bt.rollback()).unwrap();
    io.block_on(|| bt.begin_read()).unwrap();
    assert_eq!(rows(&io, &mut bt, root), before);
    io.block_on(|| bt.commit()).unwrap();

    // Savepoints: keep the outer change, undo the inner one.
    io.block_on(|| bt.begin_write(false)).unwrap();
    io.block_on(|| bt.savepoint_open(0)).unwrap();
    let mut c = Cursor::new(root, true, None);
    let rec = encode(&[V::Text("kept".into()), V::Null]);
    io.block_on(|| c.insert(&mut bt, InsertKey::Rowid(5000), &rec)).unwrap();
    io.block_on(|| bt.savepoint_open(1)).unwrap();
    let mid = rows(&io, &mut bt, root);
    scribble(&io, &mut bt, root);
    io.block_on(|| bt.savepoint_rollback(1)).unwrap();
    assert_eq!(rows(&io, &mut bt, root), mid);
    io.block_on(|| bt.savepoint_release(0)).unwrap();
    io.block_on(|| bt.commit()).unwrap();
    drop(bt);
    let db = Sqlite::open(path);
    assert_eq!(db.integrity(), "Text(\"ok\")");
    let mut want = before;
    want.insert(5000, rec);
    assert_eq!(sqlite_rows(&db), want);
}

#[test]
fn our_hot_journal_is_rolled_back_by_us_and_by_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("hot.db").to_str().unwrap().to_string();
    let copy = dir.path().join("copy.db").to_str().unwrap().to_string();
    let io = IoContext::new(Arc::new(SyncBackend::new()));
    let root = make_db(&io, &path, 300);
    let before = sqlite_rows(&Sqlite::open(&path));
    let mut bt = open_btree(&io, &path);
    io.block_on(|| bt.begin_write(false)).unwrap();
    scribble(&io, &mut bt, root);
    bt.pager_mut().crash_commit_after_pages(3);
    assert!(io.block_on(|| bt.commit()).is_err());
    drop(bt); // the "crash": journal left behind, database half written
    assert!(std::path::Path::new(&format!("{path}-journal")).exists());
    copy_pair(&path, &copy);

    let mut bt = open_btree(&io, &path);
    io.block_on(|| bt.begin_read()).unwrap();
    assert_eq!(rows(&io, &mut bt, root).into_iter().collect::<BTreeMap<_, _>>(), before);
    assert!(io.block_on(|| bt.integrity_check(&[1, root], 10)).unwrap().is_empty());
    io.block_on(|| bt.commit()).unwrap();
    assert!(!std::path::Path::new(&format!("{path}-journal")).exists());

    let db = Sqlite::open(&copy);
    assert_eq!(db.integrity(), "Text(\"ok\")");
    assert_eq!(sqlite_rows(&db), before);
}

#[test]
fn sqlite_hot_journal_is_rolled_back_by_us() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("theirs.db").to_str().unwrap().to_string();
    let copy = dir.path().join("crashed.db").to_str().unwrap().to_string();
    let db = Sqlite::open(&path);
    db.exec(
        "CREATE TABLE t(a,b); WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i<2000) INSERT INTO t SELECT i, randomblob(i % 900) FROM c;",
    );
    let before = sqlite_rows(&db);
    // A transaction big enough to spill into the database file before
    // commit; copying the files now captures a crash mid-transaction.
    db.exec("PRAGMA cache_size=5; BEGIN; UPDATE t SET b = zeroblob(1000) WHERE a % 2 = 0; DELETE FROM t WHERE a % 3 = 0;");
    assert!(std::path::Path::new(&format!("{path}-journal")).exists());
    copy_pair(&path, &copy);
    db.exec("ROLLBACK");
    drop(db);
    let changed = std::fs::read(&copy).unwrap() != std::fs::read(&path).unwrap();
    assert!(changed, "the copy must hold spilled, uncommitted pages");

    let io = IoContext::new(Arc::new(SyncBackend::new()));
    let mut bt = open_btree(&io, &copy);
    io.block_on(|| bt.begin_read()).unwrap();
    let root = {
        let mut c = Cursor::new(1, false, None);
        assert!(io.block_on(|| c.first(&mut bt)).unwrap());
        match &decode(&payload(&io, &mut c, &mut bt))[3] {
            V::Int(r) => *r as u32,
            _ => panic!(),
        }
    };
    assert_eq!(rows(&io, &mut bt, root), before);
    assert!(io.block_on(|| bt.integrity_check(&[1, root], 10)).unwrap().is_empty());
    io.block_on(|| bt.commit()).unwrap();
    drop(bt);
    let db = Sqlite::open(&copy);
    assert_eq!(db.integrity(), "Text(\"ok\")");
    assert_eq!(sqlite_rows(&db), before);
}

/// Real SQLite in another process (this test binary re-run as a child):
/// `hold` runs SQL, says READY, waits for a line on stdin, commits;
/// `probe` runs SQL and reports its result code.
struct Child {
    proc: std::process::Child,
    out: std::io::BufReader<std::process::ChildStdout>,
}

impl Child {
    fn start(path: &str, mode: &str, sql: &str) -> Child {
        use std::process::{Command, Stdio};
        let mut proc = Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "sqlite_child_process", "--ignored", "--nocapture", "--test-threads=1"])
            .env("RINGLITE_CHILD_DB", path)
            .env("RINGLITE_CHILD_MODE", mode)
            .env("RINGLITE_CHILD_SQL", sql)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let out = std::io::BufReader::new(proc.stdout.take().unwrap());
        Child { proc, out }
    }

    /// The first line the child prints that starts with `READY` or `RC=`.
    fn report(&mut self) -> String {
        use std::io::BufRead;
        let mut line = String::new();
        loop {
            line.clear();
            assert!(self.out.read_line(&mut line).unwrap() > 0, "child exited early");
            // libtest prints "test name ... " before the test's own output.
            if let Some(pos) = line.find("READY").or_else(|| line.find("RC=")) {
                return line[pos..].trim().to_string();
            }
        }
    }

    fn finish(mut self) {
        use std::io::Write;
        if let Some(mut stdin) = self.proc.stdin.take() {
            let _ = writeln!(stdin, "go");
        }
        assert!(self.proc.wait().unwrap().success());
    }
}

#[test]
#[ignore = "run as a child process by the locking test"]
fn sqlite_child_process() {
    let (Ok(path), Ok(mode), Ok(sql)) = (std::env::var("RINGLITE_CHILD_DB"), std::env::var("RINGLITE_CHILD_MODE"), std::env::var("RINGLITE_CHILD_SQL")) else {
        return;
    };
    let db = Sqlite::open(&path);
    if mode == "probe" {
        let rc = db.try_query(&sql).err().map_or(0, |e| e.0);
        println!("RC={rc}");
        return;
    }
    db.exec(&sql);
    if mode == "die" {
        // Killed mid-transaction: no COMMIT, no ROLLBACK, no close.
        std::process::exit(0);
    }
    println!("READY");
    let mut line = String::new();
    std::io::stdin().read_line(&mut line).unwrap();
    db.exec("COMMIT");
}

#[test]
fn locks_interoperate_with_sqlite_and_between_our_connections() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lock.db").to_str().unwrap().to_string();
    let io = IoContext::new(Arc::new(SyncBackend::new()));
    let root = make_db(&io, &path, 10);
    let mut bt = open_btree(&io, &path);

    // SQLite holds RESERVED: we cannot write, but we can read.
    let mut writer = Child::start(&path, "hold", "BEGIN IMMEDIATE");
    assert_eq!(writer.report(), "READY");
    let e = io.block_on(|| bt.begin_write(false)).unwrap_err();
    assert_eq!(e.code, SQLITE_BUSY);
    io.block_on(|| bt.begin_read()).unwrap();
    assert_eq!(rows(&io, &mut bt, root).len(), 10);
    io.block_on(|| bt.commit()).unwrap();
    writer.finish();

    // We hold RESERVED: SQLite cannot start writing.
    io.block_on(|| bt.begin_write(false)).unwrap();
    let mut probe = Child::start(&path, "probe", "BEGIN IMMEDIATE");
    assert_eq!(probe.report(), "RC=5");
    probe.finish();
    // A reader in SQLite blocks our commit at EXCLUSIVE; the same commit
    // call succeeds once the reader is gone.
    let mut reader = Child::start(&path, "hold", "BEGIN; SELECT count(*) FROM t;");
    assert_eq!(reader.report(), "READY");
    let mut c = Cursor::new(root, true, None);
    let rec = encode(&[V::Int(1), V::Int(2)]);
    io.block_on(|| c.insert(&mut bt, InsertKey::Rowid(77), &rec)).unwrap();
    assert_eq!(io.block_on(|| bt.commit()).unwrap_err().code, SQLITE_BUSY);
    reader.finish();
    io.block_on(|| bt.commit()).unwrap();
    let db = Sqlite::open(&path);
    assert_eq!(db.query("SELECT count(*) FROM t"), vec![vec![V::Int(11)]]);
    drop(db);

    // Two connections of this process share the POSIX locks correctly.
    let mut other = open_btree(&io, &path);
    io.block_on(|| other.begin_read()).unwrap();
    io.block_on(|| bt.begin_write(false)).unwrap();
    io.block_on(|| c.insert(&mut bt, InsertKey::Rowid(78), &rec)).unwrap();
    assert_eq!(io.block_on(|| bt.commit()).unwrap_err().code, SQLITE_BUSY);
    // Closing the other connection must not drop our locks.
    io.block_on(|| other.commit()).unwrap();
    drop(other);
    let mut probe = Child::start(&path, "probe", "BEGIN IMMEDIATE");
    assert_eq!(probe.report(), "RC=5");
    probe.finish();
    io.block_on(|| bt.commit()).unwrap();
    let db = Sqlite::open(&path);
    assert_eq!(db.query("SELECT count(*) FROM t"), vec![vec![V::Int(12)]]);
    assert_eq!(db.integrity(), "Text(\"ok\")");
}

#[test]
fn journal_modes_commit_and_sqlite_reads() {
    for mode in ["truncate", "persist", "memory", "off", "delete"] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("jm.db").to_str().unwrap().to_string();
        let io = IoContext::new(Arc::new(SyncBackend::new()));
        let root = make_db(&io, &path, 50);
        let mut bt = open_btree(&io, &path);
        assert_eq!(bt.set_journal_mode(mode, false), mode);
        io.block_on(|| bt.begin_write(false)).unwrap();
        scribble(&io, &mut bt, root);
        io.block_on(|| bt.commit()).unwrap();
        io.block_on(|| bt.begin_read()).unwrap();
        let ours = rows(&io, &mut bt, root);
        io.block_on(|| bt.commit()).unwrap();
        drop(bt);
        let db = Sqlite::open(&path);
        assert_eq!(db.integrity(), "Text(\"ok\")", "{mode}");
        assert_eq!(sqlite_rows(&db), ours, "{mode}");
    }
}

#[test]
fn crash_recovery_under_simulation() {
    let sim = Arc::new(SimBackend::new(SimConfig { seed: 42, reorder: true, max_per_poll: 2, fail_one_in: 0 }));
    let io = IoContext::new(sim.clone());
    let root = make_db(&io, "sim.db", 200);
    let mut bt = Btree::open(&io, "sim.db", BtreeOptions::default()).unwrap();
    io.block_on(|| bt.begin_read()).unwrap();
    let before = rows(&io, &mut bt, root);
    io.block_on(|| bt.commit()).unwrap();
    // A small cache: the transaction spills pages before the commit.
    bt.set_cache_size(12);
    io.block_on(|| bt.begin_write(false)).unwrap();
    scribble(&io, &mut bt, root);
    assert!(sim.fs().exists("sim.db-journal"), "spilled before commit");
    bt.pager_mut().crash_commit_after_pages(1);
    assert!(io.block_on(|| bt.commit()).is_err());
    // Some of the submitted page writes land, some never do.
    io.backend().poll(Some(std::time::Duration::ZERO)).unwrap();
    sim.crash();
    drop(bt);
    assert!(sim.fs().exists("sim.db-journal"));
    let mut bt = Btree::open(&io, "sim.db", BtreeOptions::default()).unwrap();
    // Recovery is resumable: it waits for each of its steps.
    let mut pendings = 0;
    while bt.begin_read().unwrap().is_pending() {
        pendings += 1;
        io.wait_any().unwrap();
    }
    assert!(pendings >= 6, "recovery steps must each have waited ({pendings})");
    assert!(!sim.fs().exists("sim.db-journal"));
    // invariant: crash_leaves_old_or_new
    assert_eq!(rows(&io, &mut bt, root), before);
    assert!(io.block_on(|| bt.integrity_check(&[1, root], 10)).unwrap().is_empty());
    io.block_on(|| bt.commit()).unwrap();
    // The recovered image is a valid database for SQLite too.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("fromsim.db");
    std::fs::write(&out, sim.fs().get("sim.db").unwrap().snapshot()).unwrap();
    let db = Sqlite::open(out.to_str().unwrap());
    assert_eq!(db.integrity(), "Text(\"ok\")");
    assert_eq!(sqlite_rows(&db), before);
}

#[test]
fn injected_io_errors_never_corrupt() {
    for seed in [5, 6, 7, 8, 9, 10] {
        injected_io_errors_with_seed(seed);
    }
}

fn injected_io_errors_with_seed(seed: u64) {
    let sim = Arc::new(SimBackend::new(SimConfig { seed, reorder: true, max_per_poll: 2, fail_one_in: 0 }));
    let io = IoContext::new(sim.clone());
    let root = make_db(&io, "err.db", 100);
    let mut committed = {
        let mut bt = Btree::open(&io, "err.db", BtreeOptions::default()).unwrap();
        io.block_on(|| bt.begin_read()).unwrap();
        let r = rows(&io, &mut bt, root);
        io.block_on(|| bt.commit()).unwrap();
        r
    };
    let mut failures = 0;
    for round in 0..30i64 {
        let mut bt = Btree::open(&io, "err.db", BtreeOptions::default()).unwrap();
        bt.set_cache_size(10);
        sim.set_fail_one_in(7);
        let attempt = (|| -> ringlite::Result<BTreeMap<i64, Vec<u8>>> {
            io.block_on(|| bt.begin_write(false))?;
            let mut c = Cursor::new(root, true, None);
            let mut expect = committed.clone();
            for i in 0..20 {
                let k = round * 100 + i;
                let rec = encode(&[V::Int(k), V::Blob(vec![1; (k % 3 * 700) as usize])]);
                io.block_on(|| c.insert(&mut bt, InsertKey::Rowid(k), &rec))?;
                expect.insert(k, rec);
            }
            io.block_on(|| bt.commit())?;
            Ok(expect)
        })();
        match attempt {
            Ok(expect) => committed = expect,
            Err(_) => {
                failures += 1;
                // The rollback may fail too (errors are still injected):
                // then the hot journal left behind must do the job.
                let _ = io.block_on(|| bt.rollback());
            }
        }
        sim.set_fail_one_in(0);
        drop(bt);
        let mut bt = Btree::open(&io, "err.db", BtreeOptions::default()).unwrap();
        io.block_on(|| bt.begin_read()).unwrap();
        assert_eq!(rows(&io, &mut bt, root), committed, "round {round}");
        assert!(io.block_on(|| bt.integrity_check(&[1, root], 10)).unwrap().is_empty());
        io.block_on(|| bt.commit()).unwrap();
    }
    assert!(failures > 0, "errors must have been injected");
}

#[test]
fn cache_is_invalidated_when_another_connection_commits() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cc.db").to_str().unwrap().to_string();
    let io = IoContext::new(Arc::new(SyncBackend::new()));
    let root = make_db(&io, &path, 100);
    let mut a = open_btree(&io, &path);
    io.block_on(|| a.begin_read()).unwrap();
    assert_eq!(rows(&io, &mut a, root).len(), 100);
    io.block_on(|| a.commit()).unwrap();
    // Another of our connections writes.
    let mut b = open_btree(&io, &path);
    io.block_on(|| b.begin_write(false)).unwrap();
    scribble(&io, &mut b, root);
    io.block_on(|| b.commit()).unwrap();
    io.block_on(|| b.begin_read()).unwrap();
    let after_b = rows(&io, &mut b, root);
    io.block_on(|| b.commit()).unwrap();
    io.block_on(|| a.begin_read()).unwrap();
    assert_eq!(rows(&io, &mut a, root), after_b);
    io.block_on(|| a.commit()).unwrap();
    // SQLite writes.
    let db = Sqlite::open(&path);
    db.exec("DELETE FROM t WHERE rowid < 50; INSERT INTO t VALUES('from', 'sqlite');");
    let want = sqlite_rows(&db);
    io.block_on(|| a.begin_read()).unwrap();
    assert_eq!(rows(&io, &mut a, root), want);
    io.block_on(|| a.commit()).unwrap();
}

#[test]
fn new_database_matches_sqlite_defaults() {
    let dir = tempfile::tempdir().unwrap();
    let ours = dir.path().join("new.db").to_str().unwrap().to_string();
    let theirs = dir.path().join("theirs.db").to_str().unwrap().to_string();
    let io = IoContext::new(Arc::new(SyncBackend::new()));
    let mut bt = open_btree(&io, &ours);
    io.block_on(|| bt.begin_write(false)).unwrap();
    let root = create_tree(&io, &mut bt, TreeKind::Table);
    add_schema_row(&io, &mut bt, 1, "table", "t", "t", root, "CREATE TABLE t(a,b)");
    io.block_on(|| bt.commit()).unwrap();
    drop(bt);
    Sqlite::open(&theirs).exec("CREATE TABLE t(a,b)");
    let (a, b) = (std::fs::read(&ours).unwrap(), std::fs::read(&theirs).unwrap());
    assert_eq!(a.len(), b.len());
    // The header is identical (SQLite's change counter after one commit
    // is 1 too), except for the version-valid-for/SQLite version words
    // which both set to the same values.
    assert_eq!(a[..100], b[..100]);
    let db = Sqlite::open(&ours);
    assert_eq!(db.integrity(), "Text(\"ok\")");
    assert_eq!(db.query("PRAGMA page_size"), vec![vec![V::Int(4096)]]);
    assert_eq!(db.query("PRAGMA schema_version"), vec![vec![V::Int(1)]]);
}

#[test]
fn empty_file_reads_as_empty_database_and_auto_vacuum_is_writable() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("empty.db").to_str().unwrap().to_string();
    std::fs::write(&path, b"").unwrap();
    let io = IoContext::new(Arc::new(SyncBackend::new()));
    let mut bt = open_btree(&io, &path);
    io.block_on(|| bt.begin_read()).unwrap();
    let mut c = Cursor::new(1, false, None);
    assert!(!io.block_on(|| c.first(&mut bt)).unwrap());
    assert_eq!(io.block_on(|| bt.meta(ringlite::btree::Meta::SchemaCookie)).unwrap(), 0);
    io.block_on(|| bt.commit()).unwrap();
    assert_eq!(std::fs::metadata(&path).unwrap().len(), 0, "reading creates nothing");

    let av = dir.path().join("av.db").to_str().unwrap().to_string();
    Sqlite::open(&av).exec("PRAGMA auto_vacuum=FULL; CREATE TABLE t(a,b); INSERT INTO t VALUES(1,2);");
    let mut bt = open_btree(&io, &av);
    io.block_on(|| bt.begin_read()).unwrap();
    io.block_on(|| bt.commit()).unwrap();
    // Writable now (tests/storage_autovacuum.rs has the workloads).
    io.block_on(|| bt.begin_write(false)).unwrap();
    let root = create_tree(&io, &mut bt, TreeKind::Table);
    add_schema_row(&io, &mut bt, 2, "table", "u", "u", root, "CREATE TABLE u(a,b)");
    io.block_on(|| bt.commit()).unwrap();
    drop(bt);
    assert_eq!(Sqlite::open(&av).integrity(), "Text(\"ok\")");
}

#[test]
fn persist_journal_is_not_hot_for_readers() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.db").to_str().unwrap().to_string();
    let io = IoContext::new(Arc::new(SyncBackend::new()));
    let root = make_db(&io, &path, 20);
    let mut bt = open_btree(&io, &path);
    bt.set_journal_mode("persist", false);
    io.block_on(|| bt.begin_write(false)).unwrap();
    scribble(&io, &mut bt, root);
    io.block_on(|| bt.commit()).unwrap();
    assert!(std::fs::metadata(format!("{path}-journal")).unwrap().len() > 0);
    // Another reader holds SHARED; a zeroed journal must not make our next
    // read transaction try for EXCLUSIVE.
    let mut other = open_btree(&io, &path);
    io.block_on(|| other.begin_read()).unwrap();
    io.block_on(|| bt.begin_read()).unwrap();
    assert_eq!(rows(&io, &mut bt, root), rows(&io, &mut other, root));
    io.block_on(|| bt.commit()).unwrap();
    io.block_on(|| other.commit()).unwrap();
}

#[test]
fn sqlite_process_killed_mid_transaction_is_rolled_back_by_us() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("killed.db").to_str().unwrap().to_string();
    let db = Sqlite::open(&path);
    db.exec(
        "CREATE TABLE t(a,b); WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i<1500) INSERT INTO t SELECT i, randomblob(i % 700) FROM c;",
    );
    let before = sqlite_rows(&db);
    let root = match db.query("SELECT rootpage FROM sqlite_schema WHERE name='t'")[0][0] {
        V::Int(r) => r as u32,
        _ => panic!(),
    };
    drop(db);
    let child = Child::start(&path, "die", "PRAGMA cache_size=5; BEGIN; UPDATE t SET b = zeroblob(900) WHERE a % 2 = 0; DELETE FROM t WHERE a % 5 = 0;");
    let status = {
        let mut c = child;
        c.proc.wait().unwrap()
    };
    assert!(status.success());
    assert!(std::path::Path::new(&format!("{path}-journal")).exists(), "the dead writer leaves a hot journal");
    let io = IoContext::new(Arc::new(SyncBackend::new()));
    let mut bt = open_btree(&io, &path);
    io.block_on(|| bt.begin_read()).unwrap();
    assert_eq!(rows(&io, &mut bt, root), before);
    assert!(io.block_on(|| bt.integrity_check(&[1, root], 10)).unwrap().is_empty());
    io.block_on(|| bt.commit()).unwrap();
    assert!(!std::path::Path::new(&format!("{path}-journal")).exists());
    let db = Sqlite::open(&path);
    assert_eq!(db.integrity(), "Text(\"ok\")");
    assert_eq!(sqlite_rows(&db), before);
}

/// A transaction much bigger than the cache spills pages into the file
/// before commit; commit, rollback and a crash after spills all work, and
/// SQLite agrees.
#[test]
fn cache_spill_commit_rollback_and_crash() {
    for outcome in ["commit", "rollback", "crash", "savepoint"] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("spill.db").to_str().unwrap().to_string();
        let copy = dir.path().join("spill-copy.db").to_str().unwrap().to_string();
        let io = IoContext::new(Arc::new(SyncBackend::new()));
        let root = make_db(&io, &path, 200);
        let before = sqlite_rows(&Sqlite::open(&path));
        let size_before = std::fs::metadata(&path).unwrap().len();
        let mut bt = open_btree(&io, &path);
        bt.set_cache_size(20);
        io.block_on(|| bt.begin_write(false)).unwrap();
        if outcome == "savepoint" {
            io.block_on(|| bt.savepoint_open(0)).unwrap();
        }
        let mut c = Cursor::new(root, true, None);
        let mut expect = before.clone();
        for i in 0..3000i64 {
            let k = if i % 2 == 0 { i / 2 } else { 10_000 + i };
            let rec = encode(&[V::Int(i), V::Text(format!("{i:0200}"))]);
            io.block_on(|| c.insert(&mut bt, InsertKey::Rowid(k), &rec)).unwrap();
            expect.insert(k, rec);
        }
        let grown = std::fs::metadata(&path).unwrap().len();
        assert!(grown > size_before, "{outcome}: pages must have been spilled before commit");
        assert!(std::path::Path::new(&format!("{path}-journal")).exists());
        let want = match outcome {
            "commit" => {
                io.block_on(|| bt.commit()).unwrap();
                expect
            }
            "rollback" => {
                io.block_on(|| bt.rollback()).unwrap();
                before.clone()
            }
            "savepoint" => {
                io.block_on(|| bt.savepoint_rollback(0)).unwrap();
                let rec = encode(&[V::Text("after".into()), V::Null]);
                io.block_on(|| c.insert(&mut bt, InsertKey::Rowid(-1), &rec)).unwrap();
                io.block_on(|| bt.commit()).unwrap();
                let mut w = before.clone();
                w.insert(-1, rec);
                w
            }
            _ => {
                drop(bt);
                copy_pair(&path, &copy);
                let db = Sqlite::open(&copy);
                assert_eq!(db.integrity(), "Text(\"ok\")");
                assert_eq!(sqlite_rows(&db), before, "SQLite rolls our spilled transaction back");
                let mut bt2 = open_btree(&io, &path);
                io.block_on(|| bt2.begin_read()).unwrap();
                assert_eq!(rows(&io, &mut bt2, root), before, "we roll it back too");
                io.block_on(|| bt2.commit()).unwrap();
                before.clone()
            }
        };
        let db = Sqlite::open(&path);
        assert_eq!(db.integrity(), "Text(\"ok\")", "{outcome}");
        let got = sqlite_rows(&db);
        let extra: Vec<_> = got.keys().filter(|k| !want.contains_key(k)).take(5).collect();
        let missing: Vec<_> = want.keys().filter(|k| !got.contains_key(k)).take(5).collect();
        let differ: Vec<_> = want.keys().filter(|k| got.get(k).is_some_and(|v| v != &want[k])).take(5).collect();
        assert!(got == want, "{outcome}: extra {extra:?} missing {missing:?} differ {differ:?}");
    }
}

/// The fsyncs of one rollback-journal commit, as SQLite does them:
/// FULL syncs the journal records, then the header's record count, then
/// the database; NORMAL syncs the journal once, then the database;
/// TRUNCATE adds a sync of the truncated journal at FULL, PERSIST of the
/// zeroed header at NORMAL and FULL; OFF never syncs.
#[test]
fn rollback_commit_fsync_pattern_follows_synchronous() {
    for (mode, sync, journal_syncs, db_syncs) in [
        ("delete", 2, 2, 1),
        ("delete", 1, 1, 1),
        ("delete", 0, 0, 0),
        ("truncate", 2, 3, 1),
        ("truncate", 1, 1, 1),
        ("persist", 2, 3, 1),
        ("persist", 1, 2, 1),
    ] {
        let sim = Arc::new(SimBackend::new(SimConfig { seed: 3, reorder: true, max_per_poll: 2, fail_one_in: 0 }));
        let io = IoContext::new(sim.clone());
        let root = make_db(&io, "fs.db", 50);
        let mut bt = Btree::open(&io, "fs.db", BtreeOptions::default()).unwrap();
        assert_eq!(bt.set_journal_mode(mode, false), mode);
        bt.set_synchronous(sync);
        io.block_on(|| bt.begin_write(false)).unwrap();
        scribble(&io, &mut bt, root);
        let (j0, d0) = (sim.syncs("fs.db-journal"), sim.syncs("fs.db"));
        io.block_on(|| bt.commit()).unwrap();
        let (j, d) = (sim.syncs("fs.db-journal") - j0, sim.syncs("fs.db") - d0);
        assert_eq!((j, d), (journal_syncs, db_syncs), "{mode} synchronous={sync}");
        let before = rows(&io, &mut bt, root);
        drop(bt);
        let out = tempfile::tempdir().unwrap();
        let p = out.path().join("fs.db");
        std::fs::write(&p, sim.fs().get("fs.db").unwrap().snapshot()).unwrap();
        let db = Sqlite::open(p.to_str().unwrap());
        assert_eq!(db.integrity(), "Text(\"ok\")");
        assert_eq!(sqlite_rows(&db), before);
    }
}
