//! PRAGMAs whose effect is only visible through files or a second
//! connection (`data_version`, `journal_size_limit`, `max_page_count` on
//! a file), differentially: the same steps run on two ringlite connections
//! to one file and on two reference SQLite connections to another, and the
//! results (and the sizes of the journal or WAL files) must agree.
use crate::sql_common;
use ringlite::{Connection, OpenFlags};
use sql_common::{run_ours, run_ref, Outcome, RefDb};

/// One step: which connection (0 or 1) runs what.
type Step<'a> = (usize, &'a str);

struct Pair {
    ours: Vec<Connection>,
    reference: Vec<RefDb>,
    ours_path: String,
    ref_path: String,
    _dir: tempfile::TempDir,
}

fn open_pair() -> Pair {
    let dir = tempfile::tempdir().unwrap();
    let ours_path = dir.path().join("ours.db").to_str().unwrap().to_string();
    let ref_path = dir.path().join("ref.db").to_str().unwrap().to_string();
    let flags = OpenFlags(OpenFlags::READWRITE | OpenFlags::CREATE);
    let ours = (0..2).map(|_| Connection::open(&ours_path, flags).unwrap()).collect();
    let reference = (0..2).map(|_| RefDb::open_path(&ref_path)).collect();
    Pair { ours, reference, ours_path, ref_path, _dir: dir }
}

fn file_size(path: &str) -> Option<u64> {
    std::fs::metadata(path).ok().map(|m| m.len())
}

impl Pair {
    /// Run the steps on both engines, comparing every outcome.
    fn run(&mut self, steps: &[Step<'_>]) {
        for (i, (conn, sql)) in steps.iter().enumerate() {
            let a = run_ours(&mut self.ours[*conn], sql);
            let b = run_ref(&self.reference[*conn], sql);
            assert_eq!(a, b, "\nstep {i}, connection {conn}: {sql}\nours: {a:?}\nref:  {b:?}");
        }
    }

    /// Run a step on both engines without comparing (what it reports may
    /// legitimately differ, e.g. WAL frame counts).
    fn run_loose(&mut self, conn: usize, sql: &str) {
        run_ours(&mut self.ours[conn], sql);
        run_ref(&self.reference[conn], sql);
    }

    /// The size of the file with this suffix (`-journal`, `-wal`) on both.
    fn sizes(&self, suffix: &str) -> (Option<u64>, Option<u64>) {
        (file_size(&format!("{}{suffix}", self.ours_path)), file_size(&format!("{}{suffix}", self.ref_path)))
    }
}

/// The `log` column of `PRAGMA wal_checkpoint`.
fn wal_frames(out: Vec<Outcome>) -> i64 {
    match out.last() {
        Some(Outcome::Rows { rows, .. }) => match rows[0][1] {
            sql_common::V::Int(i) => i,
            ref other => panic!("log: {other:?}"),
        },
        other => panic!("no rows: {other:?}"),
    }
}

fn one_int(out: &[Outcome]) -> i64 {
    match out.last() {
        Some(Outcome::Rows { rows, .. }) => match rows.first().and_then(|r| r.first()) {
            Some(sql_common::V::Int(i)) => *i,
            other => panic!("not an integer: {other:?}"),
        },
        other => panic!("no rows: {other:?}"),
    }
}

/// Another connection's commits change `data_version`; the connection's
/// own commits, uncommitted work and rollbacks elsewhere do not.
fn data_version_steps(journal_mode: &str) -> Vec<String> {
    let steps = [
        "PRAGMA data_version",
        "CREATE TABLE t(a)",
        "PRAGMA data_version",
        "#1 PRAGMA data_version",
        "INSERT INTO t VALUES(1)",
        "PRAGMA data_version",
        "#1 PRAGMA data_version",
        "#1 INSERT INTO t VALUES(2)",
        "#1 PRAGMA data_version",
        "PRAGMA data_version",
        "PRAGMA data_version",
        "#1 BEGIN",
        "#1 INSERT INTO t VALUES(3)",
        "PRAGMA data_version",
        "#1 ROLLBACK",
        "PRAGMA data_version",
        "#1 UPDATE t SET a = a + 1",
        "#1 UPDATE t SET a = a + 1",
        "SELECT sum(a) FROM t",
        "PRAGMA data_version",
        "PRAGMA main.data_version",
        "PRAGMA data_version = 99",
        "#1 PRAGMA data_version",
    ];
    let mut v = vec![format!("PRAGMA journal_mode = {journal_mode}")];
    v.extend(steps.iter().map(|s| s.to_string()));
    v
}

fn run_script(p: &mut Pair, script: &[String]) {
    let steps: Vec<(usize, &str)> = script
        .iter()
        .map(|s| match s.strip_prefix("#1 ") {
            Some(rest) => (1, rest),
            None => (0, s.as_str()),
        })
        .collect();
    p.run(&steps);
}

#[test]
fn data_version_rollback_journal() {
    let mut p = open_pair();
    run_script(&mut p, &data_version_steps("delete"));
}

#[test]
fn data_version_wal() {
    let mut p = open_pair();
    run_script(&mut p, &data_version_steps("wal"));
}

/// Fill `t` so that the next full-table UPDATE journals many pages.
const FILL: &str =
    "CREATE TABLE t(a, b); WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 400) INSERT INTO t SELECT x, randomblob(300) FROM c";

#[test]
fn journal_size_limit_persist() {
    for (limit, expect_cut) in [(-1i64, false), (0, true), (2048, true), (1 << 30, false)] {
        let mut p = open_pair();
        p.run(&[(0, "PRAGMA journal_mode = PERSIST"), (0, &format!("PRAGMA journal_size_limit = {limit}")), (0, FILL)]);
        p.run(&[(0, "UPDATE t SET b = zeroblob(300)")]);
        // (The journal's full size may differ: ringlite may journal other
        // pages than SQLite; the limit's effect must not.)
        let (ours, reference) = p.sizes("-journal");
        let (ours, reference) = (ours.unwrap(), reference.unwrap());
        if expect_cut {
            assert_eq!(ours, reference, "journal_size_limit={limit}: journal sizes");
            assert!(ours <= limit as u64, "limit {limit}: journal left at {ours} bytes");
        } else {
            assert!(ours > 2048 && reference > 2048, "limit {limit}: journals of {ours} and {reference} bytes");
        }
        p.run(&[(0, "PRAGMA journal_size_limit"), (0, "PRAGMA integrity_check"), (1, "SELECT count(*), sum(length(b)) FROM t")]);
    }
}

#[test]
fn journal_size_limit_wal() {
    for limit in [-1i64, 0, 5000, 1 << 30] {
        let mut p = open_pair();
        p.run(&[(0, "PRAGMA journal_mode = WAL"), (0, "PRAGMA wal_autocheckpoint = 0"), (0, &format!("PRAGMA journal_size_limit = {limit}")), (0, FILL)]);
        p.run_loose(0, "PRAGMA wal_checkpoint");
        let (before_ours, before_ref) = p.sizes("-wal");
        // The log is fully checkpointed: the next commit restarts it and
        // cuts the file back to the limit (never below the new frames).
        p.run(&[(0, "INSERT INTO t VALUES(0, 'x')")]);
        // Each engine's log must be max(limit, end of the new frames)
        // (the frame counts may differ: ringlite also logs page 1).
        let (ours, reference) = p.sizes("-wal");
        let frames_ours = wal_frames(run_ours(&mut p.ours[0], "PRAGMA wal_checkpoint(PASSIVE)"));
        let frames_ref = wal_frames(run_ref(&p.reference[0], "PRAGMA wal_checkpoint(PASSIVE)"));
        for (who, size, frames, before) in
            [("ours", ours.unwrap(), frames_ours, before_ours.unwrap()), ("reference", reference.unwrap(), frames_ref, before_ref.unwrap())]
        {
            let end = 32 + frames as u64 * (4096 + 24);
            let expect = if limit < 0 || limit as u64 >= before { before } else { end.max(limit as u64) };
            assert_eq!(size, expect, "{who}: journal_size_limit={limit}, {frames} new frames, log was {before} bytes");
        }
        p.run(&[(1, "SELECT count(*) FROM t"), (0, "PRAGMA integrity_check")]);
    }
}

#[test]
fn max_page_count_on_a_file() {
    let mut p = open_pair();
    p.run(&[(0, "CREATE TABLE t(a, b)"), (0, "INSERT INTO t VALUES(1, randomblob(100))")]);
    let pages = one_int(&run_ours(&mut p.ours[0], "PRAGMA page_count"));
    p.run(&[
        (0, "PRAGMA max_page_count = 1"),
        (0, &format!("PRAGMA max_page_count = {}", pages + 3)),
        (0, "INSERT INTO t VALUES(2, randomblob(2000))"),
        (0, "INSERT INTO t VALUES(3, randomblob(20000))"),
        (0, "SELECT a, length(b) FROM t"),
        (0, "PRAGMA page_count"),
        (0, "PRAGMA integrity_check"),
        // The limit is the connection's own: the other one grows the file.
        (1, "PRAGMA max_page_count"),
        (1, "INSERT INTO t VALUES(4, randomblob(20000))"),
        (0, "SELECT a, length(b) FROM t"),
        (0, "PRAGMA max_page_count"),
        (0, "PRAGMA max_page_count = 2"),
        (0, "INSERT INTO t VALUES(5, 'small')"),
        (0, "INSERT INTO t VALUES(6, randomblob(5000))"),
        (0, "SELECT count(*) FROM t"),
    ]);
}

#[test]
fn mmap_size_on_a_file() {
    let mut p = open_pair();
    p.run(&[(0, "PRAGMA mmap_size"), (0, "CREATE TABLE t(a)"), (0, "PRAGMA main.mmap_size"), (0, "PRAGMA mmap_size = 0"), (0, "PRAGMA mmap_size")]);
}

/// EXCLUSIVE keeps the lock a transaction took until NORMAL is set and
/// the next transaction ends: after a read others may still read but not
/// write, after a write they may not even read.
#[test]
fn locking_mode_exclusive_keeps_locks() {
    let mut p = open_pair();
    p.run(&[
        (0, "PRAGMA locking_mode"),
        (0, "PRAGMA locking_mode = EXCLUSIVE"),
        (0, "PRAGMA main.locking_mode"),
        (0, "PRAGMA temp.locking_mode"),
        (0, "CREATE TABLE t(a)"),
        (0, "INSERT INTO t VALUES(1)"),
        (1, "SELECT count(*) FROM t"),
        (0, "SELECT count(*) FROM t"),
        (0, "PRAGMA locking_mode = NORMAL"),
        (1, "SELECT count(*) FROM sqlite_schema"),
        (0, "SELECT count(*) FROM t"),
        (1, "SELECT count(*) FROM t"),
        (1, "INSERT INTO t VALUES(2)"),
        // A read in exclusive mode keeps SHARED: others read, cannot write.
        (0, "PRAGMA locking_mode = exclusive"),
        (0, "SELECT count(*) FROM t"),
        (1, "SELECT count(*) FROM t"),
        (1, "INSERT INTO t VALUES(3)"),
        (0, "PRAGMA locking_mode = normal"),
        (0, "SELECT count(*) FROM t"),
        (1, "INSERT INTO t VALUES(3)"),
        (0, "SELECT count(*) FROM t"),
        (0, "PRAGMA locking_mode = bogus"),
        (0, "PRAGMA main.locking_mode = bogus"),
        (0, "PRAGMA integrity_check"),
    ]);
}

/// EXCLUSIVE locking set before WAL mode: the WAL index lives in heap
/// memory (no `-shm` file) and the other connection is locked out, until
/// NORMAL is set and the database leaves WAL mode, as in SQLite.
#[test]
fn locking_mode_exclusive_with_wal_keeps_the_index_in_memory() {
    let mut p = open_pair();
    p.run(&[
        (0, "CREATE TABLE t(a)"),
        (0, "PRAGMA locking_mode = EXCLUSIVE"),
        (0, "PRAGMA journal_mode = WAL"),
        (0, "INSERT INTO t VALUES(1)"),
        (0, "SELECT count(*) FROM t"),
        (0, "PRAGMA locking_mode"),
    ]);
    let shm = |path: &str| std::path::Path::new(&format!("{path}-shm")).exists();
    assert!(!shm(&p.ref_path), "the reference made a -shm file");
    assert!(!shm(&p.ours_path), "a -shm file in heap-memory WAL mode");
    p.run(&[(1, "SELECT count(*) FROM t")]);
    p.run(&[
        (0, "PRAGMA locking_mode = NORMAL"),
        (0, "PRAGMA journal_mode = DELETE"),
        (0, "SELECT count(*) FROM t"),
        (1, "SELECT count(*) FROM t"),
        (1, "INSERT INTO t VALUES(2)"),
        (0, "SELECT count(*) FROM t"),
    ]);
}

/// A WAL commit that changes one page and does not grow the file logs one
/// frame, as in SQLite: page 1 (change counter, size) is not rewritten on
/// every commit. Commits that grow the file or change the schema do carry
/// page 1; the frame counts agree at every step.
#[test]
fn wal_commit_frames_match_sqlite() {
    let mut p = open_pair();
    p.run(&[(0, "PRAGMA journal_mode = WAL"), (0, "PRAGMA wal_autocheckpoint = 0"), (0, "CREATE TABLE t(a INTEGER PRIMARY KEY, b)")]);
    let frames = |p: &mut Pair| {
        let ours = wal_frames(run_ours(&mut p.ours[0], "PRAGMA wal_checkpoint(PASSIVE)"));
        let reference = wal_frames(run_ref(&p.reference[0], "PRAGMA wal_checkpoint(PASSIVE)"));
        (ours, reference)
    };
    let (ours, reference) = frames(&mut p);
    assert_eq!(ours, reference, "after CREATE TABLE");
    for i in 0..200 {
        p.run(&[(0, &format!("INSERT INTO t VALUES({i}, 'row {i}')"))]);
        if i % 20 == 19 {
            let (ours, reference) = frames(&mut p);
            assert_eq!(ours, reference, "after insert {i}");
        }
    }
    p.run(&[(0, "UPDATE t SET b = 'x' WHERE a = 7"), (0, "DELETE FROM t WHERE a > 150"), (1, "SELECT count(*), sum(a) FROM t")]);
    let (ours, reference) = frames(&mut p);
    assert_eq!(ours, reference, "after update and delete");
    p.run(&[(1, "PRAGMA integrity_check"), (0, "PRAGMA wal_checkpoint(TRUNCATE)"), (1, "SELECT count(*), sum(a) FROM t")]);
}

/// `PRAGMA auto_vacuum=NONE` on an empty file writes nothing (the page
/// size can still change after it); turning auto_vacuum on or off needs a
/// file with no page yet; the file sizes follow.
#[test]
fn auto_vacuum_and_page_size_on_a_new_file() {
    let mut p = open_pair();
    p.run(&[(0, "PRAGMA auto_vacuum = 0"), (0, "PRAGMA page_size = 1024"), (0, "PRAGMA page_size"), (0, "CREATE TABLE t(a)")]);
    assert_eq!(p.sizes(""), (Some(2048), Some(2048)));
    // One page and no table: too late to switch, as in SQLite.
    let mut q = open_pair();
    q.run(&[(0, "PRAGMA user_version = 1"), (0, "PRAGMA auto_vacuum = 1"), (0, "PRAGMA auto_vacuum"), (0, "CREATE TABLE t(a)"), (0, "PRAGMA auto_vacuum")]);
    assert_eq!(q.sizes(""), (Some(8192), Some(8192)));
    let mut r = open_pair();
    r.run(&[
        (0, "PRAGMA auto_vacuum = 2"),
        (0, "PRAGMA page_size = 1024"),
        (0, "PRAGMA page_size"),
        (0, "PRAGMA auto_vacuum = 1"),
        (0, "PRAGMA auto_vacuum = 0"),
        (0, "PRAGMA auto_vacuum"),
    ]);
    assert_eq!(r.sizes(""), (Some(4096), Some(4096)));
}

/// Rows appended to a table past its full root leaf: the root deepens and
/// the next leaf starts with the new row, so page counts are SQLite's, up
/// to a `max_page_count` the rows just fit in (tkt2920).
#[test]
fn appended_rows_fill_pages_as_in_sqlite() {
    let mut p = open_pair();
    p.run(&[(0, "PRAGMA page_size=1024"), (0, "PRAGMA max_page_count=40"), (0, "PRAGMA auto_vacuum=0"), (0, "CREATE TABLE filler(fill)")]);
    p.run(&[(0, "BEGIN")]);
    for _ in 0..34 {
        p.run(&[(0, "INSERT INTO filler VALUES(zeroblob(1024))"), (0, "PRAGMA page_count")]);
    }
    p.run(&[(0, "COMMIT"), (0, "BEGIN"), (0, "INSERT INTO filler VALUES(zeroblob(1024))"), (0, "ROLLBACK"), (0, "PRAGMA integrity_check")]);
    let mut q = open_pair();
    q.run(&[(0, "PRAGMA page_size=1024"), (0, "CREATE TABLE t(a INTEGER PRIMARY KEY, b)")]);
    for i in 0..40 {
        q.run(&[(0, &format!("INSERT INTO t VALUES({i}, zeroblob({}))", 30 + (i * 37) % 300)), (0, "PRAGMA page_count")]);
    }
    q.run(&[(0, "PRAGMA integrity_check"), (0, "SELECT count(*), sum(length(b)) FROM t")]);
}

/// `PRAGMA cache_spill`: SQLite's report (the cache in pages, counted
/// with SQLite's page header, or the threshold set, the larger; 0 when
/// off), and OFF keeping a big transaction out of the database file.
#[test]
fn cache_spill_reports_and_switches_off() {
    let mut p = open_pair();
    p.run(&[
        (0, "PRAGMA cache_spill"),
        (0, "PRAGMA cache_spill = 500"),
        (0, "PRAGMA cache_spill"),
        (0, "PRAGMA cache_size = 100"),
        (0, "PRAGMA cache_spill"),
        (0, "PRAGMA cache_spill = off"),
        (0, "PRAGMA cache_spill"),
        (0, "PRAGMA cache_spill = on"),
        (0, "PRAGMA cache_spill"),
        (0, "PRAGMA main.cache_spill = 50"),
        (0, "PRAGMA cache_size = -100"),
        (0, "PRAGMA cache_spill"),
        (0, "PRAGMA temp.cache_spill"),
    ]);
    let mut q = open_pair();
    let fill = "WITH s(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM s WHERE i<200) INSERT INTO t1 SELECT zeroblob(900) FROM s";
    q.run(&[(0, "PRAGMA page_size = 1024"), (0, "PRAGMA cache_size = 100"), (0, "CREATE TABLE t1(a)")]);
    q.run(&[(0, "PRAGMA cache_spill = 0"), (0, "BEGIN"), (0, fill)]);
    assert_eq!(q.sizes(""), (Some(2048), Some(2048)), "nothing spilled");
    q.run(&[(0, "ROLLBACK"), (0, "PRAGMA cache_spill = 1"), (0, "BEGIN"), (0, fill)]);
    let (a, b) = q.sizes("");
    assert!(a.unwrap() > 50000 && b.unwrap() > 50000, "spilled: {a:?} {b:?}");
    q.run(&[(0, "ROLLBACK"), (0, "SELECT count(*) FROM t1")]);
}

/// A write transaction that changed nothing yet may switch between the
/// rollback journal modes (jrnlmode-8), not after its first change.
#[test]
fn journal_mode_changes_in_a_write_transaction_before_its_first_change() {
    let mut p = open_pair();
    p.run(&[
        (0, "CREATE TABLE t(a)"),
        (0, "PRAGMA journal_mode = truncate"),
        (0, "BEGIN IMMEDIATE"),
        (0, "PRAGMA journal_mode = delete"),
        (0, "INSERT INTO t VALUES(1)"),
        (0, "PRAGMA journal_mode = persist"),
        (0, "COMMIT"),
        (0, "PRAGMA journal_mode"),
    ]);
    assert_eq!(p.sizes("-journal"), (None, None));
}
