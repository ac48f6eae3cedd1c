//! WAL sharing with real SQLite in another process (this test binary re-run
//! as a child), so the `-shm` index really is shared: SQLite's index is
//! read by us, ours by SQLite, and a WAL left by a SQLite process killed
//! mid-transaction is recovered by us. Also the rollback-journal locks
//! against another process's (`shared_lock_against_another_process`).

mod wal_support;

use ringlite::io::sync::SyncBackend;
use ringlite::io::IoContext;
use std::io::{BufRead, Write};
use std::sync::Arc;
use wal_support::*;

struct Child {
    proc: std::process::Child,
    out: std::io::BufReader<std::process::ChildStdout>,
}

impl Child {
    fn start(path: &str, mode: &str, sql: &str) -> Child {
        use std::process::{Command, Stdio};
        // Long scripts go through a file (environment strings are limited).
        let script;
        let sql = if sql.len() > 60_000 {
            let f = format!("{path}.sql");
            std::fs::write(&f, sql).unwrap();
            script = format!("@{f}");
            script.as_str()
        } else {
            sql
        };
        let mut proc = Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "wal_child_process", "--ignored", "--nocapture", "--test-threads=1"])
            .env("RINGLITE_WAL_CHILD_DB", path)
            .env("RINGLITE_WAL_CHILD_MODE", mode)
            .env("RINGLITE_WAL_CHILD_SQL", sql)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let out = std::io::BufReader::new(proc.stdout.take().unwrap());
        Child { proc, out }
    }

    fn report(&mut self) -> String {
        let mut line = String::new();
        loop {
            line.clear();
            assert!(self.out.read_line(&mut line).unwrap() > 0, "child exited early");
            if let Some(pos) = line.find("READY").or_else(|| line.find("RESULT=")) {
                return line[pos..].trim().to_string();
            }
        }
    }

    fn finish(mut self) {
        if let Some(mut stdin) = self.proc.stdin.take() {
            let _ = writeln!(stdin, "go");
        }
        let _ = self.proc.wait().unwrap();
    }
}

/// Modes: `hold` runs SQL, says READY, waits for a line, then exits without
/// closing; `die` runs SQL and exits at once (mid-transaction if the SQL
/// leaves one open); `read` prints a digest of `t` and integrity_check.
#[test]
#[ignore = "run as a child process by the other tests"]
fn wal_child_process() {
    let (Ok(path), Ok(mode), Ok(sql)) =
        (std::env::var("RINGLITE_WAL_CHILD_DB"), std::env::var("RINGLITE_WAL_CHILD_MODE"), std::env::var("RINGLITE_WAL_CHILD_SQL"))
    else {
        return;
    };
    let sql = match sql.strip_prefix('@') {
        Some(file) => std::fs::read_to_string(file).unwrap(),
        None => sql,
    };
    if let Some(lock) = mode.strip_prefix("fcntl-") {
        hold_raw_lock(&path, lock);
    }
    let db = Sqlite::open(&path);
    if !sql.is_empty() {
        db.exec(&sql);
    }
    match mode.as_str() {
        "read" => {
            println!("RESULT={}", digest(&sqlite_rows(&db)) + "|" + &db.integrity());
        }
        "die" => unsafe { libc::_exit(0) },
        _ => {
            println!("READY");
            let mut line = String::new();
            let _ = std::io::stdin().read_line(&mut line);
            unsafe { libc::_exit(0) }
        }
    }
}

/// Child mode `fcntl-<level>`: hold the write locks SQLite's unix VFS
/// takes for `level` (`reserved`, `pending`, `exclusive`) on `path`, say
/// READY, and exit when told.
fn hold_raw_lock(path: &str, level: &str) -> ! {
    use std::os::unix::io::AsRawFd;
    let f = std::fs::OpenOptions::new().read(true).write(true).open(path).unwrap();
    let ranges: &[(i64, i64)] = match level {
        "reserved" => &[(0x4000_0001, 1)],
        "pending" => &[(0x4000_0000, 1)],
        "exclusive" => &[(0x4000_0000, 1), (0x4000_0002, 510)],
        other => panic!("unknown lock {other}"),
    };
    for &(start, len) in ranges {
        // SAFETY: plain data; zeroed is valid.
        let mut fl: libc::flock = unsafe { std::mem::zeroed() };
        fl.l_type = libc::F_WRLCK as _;
        fl.l_whence = libc::SEEK_SET as _;
        fl.l_start = start as _;
        fl.l_len = len as _;
        // SAFETY: an open descriptor and a valid struct.
        assert_eq!(unsafe { libc::fcntl(f.as_raw_fd(), libc::F_SETLK, &mut fl) }, 0);
    }
    println!("READY");
    let mut line = String::new();
    let _ = std::io::stdin().read_line(&mut line);
    unsafe { libc::_exit(0) }
}

/// A read with a ringlite connection: the row count of `t`, or the error
/// code.
fn ringlite_count(c: &mut ringlite::Connection) -> Result<i64, i32> {
    use ringlite::StepResult;
    // (Preparing reads the schema: the first place a lock can be refused.)
    let mut st = c.prepare(b"SELECT count(*) FROM t").map_err(|e| e.code)?.0.unwrap();
    let out = match st.step(c) {
        Ok(StepResult::Row) => match st.column(0) {
            ringlite::value::Value::Integer(n) => Ok(*n),
            v => panic!("count: {v:?}"),
        },
        Ok(r) => panic!("no row: {r:?}"),
        Err(e) => Err(e.code),
    };
    st.reset(c);
    out
}

/// The SHARED lock against another process's locks (ringlite takes it in
/// two calls where SQLite makes three, see `ringlite::io::lock`): a
/// RESERVED writer lets readers in, a PENDING or EXCLUSIVE one keeps them
/// out (SQLITE_BUSY), and a refused reader leaves no lock behind.
#[test]
fn shared_lock_against_another_process() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("l.db");
    let path = path.to_str().unwrap();
    Sqlite::open(path).exec("CREATE TABLE t(a, b); INSERT INTO t VALUES(1, 'x'),(2, 'y');");
    let mut c = ringlite::Connection::open(path, ringlite::OpenFlags(ringlite::OpenFlags::READWRITE)).unwrap();
    let mut child = Child::start(path, "fcntl-reserved", "");
    assert_eq!(child.report(), "READY");
    assert_eq!(ringlite_count(&mut c), Ok(2));
    child.finish();
    for level in ["pending", "exclusive"] {
        let mut c = ringlite::Connection::open(path, ringlite::OpenFlags(ringlite::OpenFlags::READWRITE)).unwrap();
        let mut child = Child::start(path, &format!("fcntl-{level}"), "");
        assert_eq!(child.report(), "READY");
        assert_eq!(ringlite_count(&mut c), Err(ringlite::error::SQLITE_BUSY), "{level}");
        child.finish();
        // The refused reader (still open) holds nothing: a SQLite process
        // writes at once.
        let mut writer = Child::start(path, "read", "PRAGMA busy_timeout=0; INSERT INTO t VALUES(3, 'z'); DELETE FROM t WHERE a=3;");
        assert!(writer.report().starts_with("RESULT="));
        writer.finish();
        assert_eq!(ringlite_count(&mut c), Ok(2));
    }
}

fn digest(m: &Model) -> String {
    let mut h: u64 = 1469598103934665603;
    for (k, (a, b)) in m {
        for byte in format!("{k}:{a}:{b};").bytes() {
            h = (h ^ byte as u64).wrapping_mul(1099511628211);
        }
    }
    format!("{}:{h:x}", m.len())
}

fn sql_for_txn(rng: &mut Rng, model: &mut Model, ops: usize) -> String {
    let mut sql = String::from("BEGIN;");
    for _ in 0..ops {
        let k = rng.below(400) as i64 + 1;
        if rng.below(4) == 0 {
            sql += &format!("DELETE FROM t WHERE rowid={k};");
            model.remove(&k);
        } else {
            let n = rng.below(300) as usize;
            let v = (rng.next() as i64 >> 8, rng.text(n));
            sql += &format!("INSERT OR REPLACE INTO t(rowid,a,b) VALUES({k},{},'{}');", v.0, v.1);
            model.insert(k, v);
        }
    }
    sql + "COMMIT;"
}

fn root_of_t(path: &str) -> u32 {
    let db = Sqlite::open(path);
    match db.query("SELECT rootpage FROM sqlite_schema WHERE name='t'")[0][0] {
        V::Int(r) => r as u32,
        _ => panic!("no table t"),
    }
}

#[test]
fn we_read_the_index_of_a_live_sqlite_process() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.db");
    let path = path.to_str().unwrap();
    let mut model = Model::new();
    let mut rng = Rng(4242);
    let mut sql = String::from("PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0; CREATE TABLE t(a,b);");
    for _ in 0..6 {
        sql += &sql_for_txn(&mut rng, &mut model, 60);
    }
    let mut child = Child::start(path, "hold", &sql);
    assert_eq!(child.report(), "READY");
    let root = root_of_t(path);
    let io = IoContext::new(Arc::new(SyncBackend::new()));
    let mut bt = open_btree(&io, path);
    assert_eq!(our_rows(&io, &mut bt, root), model);
    // We append to the log SQLite's process indexed; a new SQLite process
    // reads through the shared index.
    random_txn(&io, &mut bt, root, &mut model, &mut rng, 50);
    let mut reader = Child::start(path, "read", "");
    assert_eq!(reader.report(), format!("RESULT={}|Text(\"ok\")", digest(&model)));
    reader.finish();
    child.finish();
    drop(bt);
    let db = Sqlite::open(path);
    assert_eq!(sqlite_rows(&db), model);
}

#[test]
fn sqlite_process_reads_our_live_index() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("q.db");
    let path = path.to_str().unwrap();
    let io = IoContext::new(Arc::new(SyncBackend::new()));
    let mut bt = open_btree(&io, path);
    assert_eq!(bt.set_journal_mode("wal", false), "wal");
    let root = create_table(&io, &mut bt);
    let mut model = Model::new();
    let mut rng = Rng(777);
    for _ in 0..6 {
        random_txn(&io, &mut bt, root, &mut model, &mut rng, 60);
    }
    let mut reader = Child::start(path, "read", "");
    assert_eq!(reader.report(), format!("RESULT={}|Text(\"ok\")", digest(&model)));
    reader.finish();
    // SQLite (another process) writes into our log; we see it.
    let mut sql = String::new();
    for _ in 0..3 {
        sql += &sql_for_txn(&mut rng, &mut model, 40);
    }
    let mut writer = Child::start(path, "read", &sql);
    assert_eq!(writer.report(), format!("RESULT={}|Text(\"ok\")", digest(&model)));
    writer.finish();
    assert_eq!(our_rows(&io, &mut bt, root), model);
}

#[test]
fn we_recover_the_wal_of_a_killed_sqlite_process() {
    for torn in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("k.db");
        let path = path.to_str().unwrap();
        let mut model = Model::new();
        let mut rng = Rng(31337 + torn as u64);
        let mut sql = String::from("PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0; PRAGMA cache_size=10; CREATE TABLE t(a,b);");
        for _ in 0..5 {
            sql += &sql_for_txn(&mut rng, &mut model, 60);
        }
        // An open transaction big enough to spill frames into the log.
        let mut lost = model.clone();
        let tail = sql_for_txn(&mut rng, &mut lost, 400);
        sql += tail.trim_end_matches("COMMIT;");
        let mut child = Child::start(path, "die", &sql);
        let _ = child.proc.wait();
        let wal = format!("{path}-wal");
        let len = std::fs::metadata(&wal).unwrap().len();
        assert!(len > 32);
        if torn {
            // Also tear the last frame in half.
            let f = std::fs::OpenOptions::new().write(true).open(&wal).unwrap();
            f.set_len(len - 1000).unwrap();
        }
        let root = root_of_t_ours(path);
        let io = IoContext::new(Arc::new(SyncBackend::new()));
        let mut bt = open_btree(&io, path);
        assert_eq!(our_rows(&io, &mut bt, root), model, "torn={torn}");
        let db = Sqlite::open(path);
        assert_eq!(sqlite_rows(&db), model);
        assert_eq!(db.integrity(), "Text(\"ok\")");
    }
}

/// The root of `t` read by our B-tree (sqlite_schema row 1, column 3).
fn root_of_t_ours(path: &str) -> u32 {
    let io = IoContext::new(Arc::new(SyncBackend::new()));
    let mut bt = open_btree(&io, path);
    io.block_on(|| bt.begin_read()).unwrap();
    let mut c = ringlite::btree::Cursor::new(1, false, None);
    assert!(io.block_on(|| c.first(&mut bt)).unwrap());
    let rec = decode(&payload(&io, &mut c, &mut bt));
    io.block_on(|| bt.commit()).unwrap();
    bt.pager_mut().abandon();
    match rec[3] {
        V::Int(r) => r as u32,
        _ => panic!("bad schema row"),
    }
}

#[test]
fn index_spanning_several_shm_regions_is_shared_with_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.db");
    let path = path.to_str().unwrap();
    let io = IoContext::new(Arc::new(SyncBackend::new()));
    let mut bt = open_btree(&io, path);
    assert_eq!(bt.set_page_size(1024), 1024);
    assert_eq!(bt.set_journal_mode("wal", false), "wal");
    bt.set_wal_autocheckpoint(0);
    let root = create_table(&io, &mut bt);
    let mut model = Model::new();
    let mut rng = Rng(2024);
    let frame = 24 + 1024u64;
    // More than 4062 + 4096 frames: the index needs three 32 KiB regions.
    while std::fs::metadata(format!("{path}-wal")).unwrap().len() < 32 + 8400 * frame {
        random_txn(&io, &mut bt, root, &mut model, &mut rng, 120);
    }
    assert!(std::fs::metadata(format!("{path}-shm")).unwrap().len() >= 3 * 32768);
    let mut other = open_btree(&io, path);
    assert_eq!(our_rows(&io, &mut other, root), model);
    let mut reader = Child::start(path, "read", "");
    assert_eq!(reader.report(), format!("RESULT={}|Text(\"ok\")", digest(&model)));
    reader.finish();
}

#[test]
fn we_read_a_live_sqlite_index_spanning_several_regions() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big2.db");
    let path = path.to_str().unwrap();
    let mut model = Model::new();
    let mut rng = Rng(77);
    let mut sql = String::from("PRAGMA page_size=1024; PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0; CREATE TABLE t(a,b);");
    for _ in 0..220 {
        sql += &sql_for_txn(&mut rng, &mut model, 120);
    }
    let mut child = Child::start(path, "hold", &sql);
    assert_eq!(child.report(), "READY");
    let frames = (std::fs::metadata(format!("{path}-wal")).unwrap().len() - 32) / (24 + 1024);
    assert!(frames > 8200, "{frames} frames");
    let root = root_of_t(path);
    let io = IoContext::new(Arc::new(SyncBackend::new()));
    let mut bt = open_btree(&io, path);
    assert_eq!(our_rows(&io, &mut bt, root), model);
    child.finish();
}
