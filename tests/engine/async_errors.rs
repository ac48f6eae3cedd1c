//! An I/O error during async I/O reaches the statement that needed the
//! page, and no other: two async connections on different files share one
//! simulated context; reads of one file fail. The statement on that file
//! gets `SQLITE_IOERR_READ` from its own step, the other statement (whose
//! completions are reaped by the same polls) reads all its rows, and once
//! the disk heals the failed connection works again.

use crate::async_support;
use async_support::*;
use ringlite::error::SQLITE_IOERR_READ;
use ringlite::io::IoContext;
use ringlite::StepResult;

const SETUP: &str = "CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i<1500)
INSERT INTO t SELECT i, printf('%.60c', 'z') FROM n;";

#[test]
fn read_error_reaches_only_the_statement_that_needed_the_page() {
    for seed in [1u64, 2, 3, 4, 5] {
        let backend = sim(seed, 2);
        let io = IoContext::new(backend.clone());
        for name in ["a.db", "b.db"] {
            let mut c = open(&io, name, false);
            must(&mut c, SETUP);
            c.close().unwrap();
        }
        let mut ca = open(&io, "a.db", true);
        let mut cb = open(&io, "b.db", true);
        let q = "SELECT a FROM t";
        let mut sa = ca.prepare(q.as_bytes()).unwrap().0.unwrap();
        let mut sb = cb.prepare(q.as_bytes()).unwrap().0.unwrap();
        backend.fail_reads_of(Some("a.db"));

        let (mut a_err, mut a_rows, mut b_rows) = (None, 0, 0);
        let (mut a_live, mut b_live) = (true, true);
        while a_live || b_live {
            if a_live {
                match sa.step(&mut ca) {
                    Ok(StepResult::Row) => a_rows += 1,
                    Ok(StepResult::Io) => {}
                    Ok(StepResult::Done) => a_live = false,
                    Err(e) => {
                        a_err = Some(e);
                        a_live = false;
                    }
                }
            }
            if b_live {
                match sb.step(&mut cb).unwrap_or_else(|e| panic!("seed {seed}: b got a's error: {e:?}")) {
                    StepResult::Row => b_rows += 1,
                    StepResult::Io => {}
                    StepResult::Done => b_live = false,
                }
            }
            // One poll for both, by whichever connection: completions go
            // to the requests they belong to.
            cb.io_poll(0).unwrap();
        }
        let e = a_err.unwrap_or_else(|| panic!("seed {seed}: a read {a_rows} rows from a failing disk"));
        assert_eq!(e.code, SQLITE_IOERR_READ, "seed {seed}: {e:?}");
        assert_eq!(e.message, "disk I/O error");
        assert_eq!(a_rows, 0, "a's first page failed: no row before the error");
        assert_eq!(b_rows, 1500, "seed {seed}");
        sa.reset(&mut ca);
        sb.reset(&mut cb);

        // The disk heals: the same statement on the same connection reads
        // every row, nothing stale or poisoned left in its cache.
        backend.fail_reads_of(None);
        let again = must(&mut ca, "SELECT count(*), sum(a) FROM t");
        assert_eq!(again.rows, vec![vec![V::Int(1500), V::Int(1500 * 1501 / 2)]]);
        drop(sa);
        ca.close().unwrap();
        cb.close().unwrap();
    }
}

#[test]
fn read_error_in_the_middle_of_a_scan_ends_it_with_ioerr_read() {
    let backend = sim(8, 1);
    let io = IoContext::new(backend.clone());
    let mut c = open(&io, "a.db", false);
    must(&mut c, SETUP);
    c.close().unwrap();
    let mut a = open(&io, "a.db", true);
    let mut st = a.prepare(b"SELECT a FROM t").unwrap().0.unwrap();
    let mut rows = 0;
    let err = loop {
        match st.step(&mut a) {
            Ok(StepResult::Row) => {
                rows += 1;
                if rows == 100 {
                    backend.fail_reads_of(Some("a.db"));
                }
            }
            Ok(StepResult::Io) => {
                a.io_poll(-1).unwrap();
            }
            Ok(StepResult::Done) => panic!("scan finished on a failing disk"),
            Err(e) => break e,
        }
    };
    assert_eq!(err.code, SQLITE_IOERR_READ);
    assert!((100..1500).contains(&rows), "{rows}");
    st.reset(&mut a);
    backend.fail_reads_of(None);
    assert_eq!(must(&mut a, "SELECT count(*) FROM t").rows, vec![vec![V::Int(1500)]]);
}

/// Random I/O errors (reads, writes, syncs) under an async connection:
/// every failure surfaces as an `SQLITE_IOERR_*` from the step of the
/// statement that was running, the connection stays usable, and after the
/// disk heals the database is sound and every transaction is all or
/// nothing, with every one that reported success present.
fn random_errors_keep_transactions_atomic(wal: bool) {
    use ringlite::error::SQLITE_IOERR;
    for seed in [1u64, 2, 3, 4, 5, 6] {
        let backend = sim(seed, 3);
        let io = IoContext::new(backend.clone());
        let mut c = open(&io, "db", false);
        if wal {
            must(&mut c, "PRAGMA journal_mode=WAL");
        }
        must(&mut c, "CREATE TABLE t(txn INTEGER, i INTEGER, pad TEXT)");
        c.close().unwrap();

        let mut a = open(&io, "db", true);
        must(&mut a, "PRAGMA cache_size=20");
        backend.set_fail_one_in(25);
        let (mut ok, mut failed) = (Vec::new(), 0);
        for txn in 1..=40i64 {
            let sql = format!(
                "BEGIN; WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i<50) \
                 INSERT INTO t SELECT {txn}, i, printf('%.200c', 'p') FROM n; \
                 UPDATE t SET pad = 'q' || pad WHERE txn = {txn} - 1; COMMIT;"
            );
            match run(&mut a, &sql) {
                Ok(_) => ok.push(txn),
                Err(e) => {
                    assert_eq!(e.primary(), SQLITE_IOERR, "seed {seed} txn {txn}: {e:?}");
                    failed += 1;
                    // As an application would: end whatever is left open.
                    // (May itself fail while the disk misbehaves.)
                    let _ = run(&mut a, "ROLLBACK");
                }
            }
        }
        backend.set_fail_one_in(0);
        let _ = run(&mut a, "ROLLBACK");
        drop(a);
        assert!(failed > 0 && !ok.is_empty(), "seed {seed}: {} ok, {failed} failed", ok.len());

        let mut r = open(&io, "db", false);
        assert_eq!(must(&mut r, "PRAGMA integrity_check").rows, vec![vec![V::Text(b"ok".to_vec())]], "seed {seed}");
        let per_txn = must(&mut r, "SELECT txn, count(*) FROM t GROUP BY txn").rows;
        for row in &per_txn {
            assert_eq!(row[1], V::Int(50), "seed {seed}: transaction {:?} is half there", row[0]);
        }
        let present: Vec<V> = per_txn.iter().map(|row| row[0].clone()).collect();
        for txn in &ok {
            assert!(present.contains(&V::Int(*txn)), "seed {seed}: committed transaction {txn} lost");
        }
        r.close().unwrap();
    }
}

#[test]
fn random_io_errors_keep_transactions_atomic_rollback_journal() {
    random_errors_keep_transactions_atomic(false);
}

#[test]
fn random_io_errors_keep_transactions_atomic_wal() {
    random_errors_keep_transactions_atomic(true);
}
