//! An I/O error during async I/O reaches the statement that needed the
//! page, and no other: two async connections on different files share one
//! simulated context; reads of one file fail. The statement on that file
//! gets `SQLITE_IOERR_READ` from its own step, the other statement (whose
//! completions are reaped by the same polls) reads all its rows, and once
//! the disk heals the failed connection works again.

mod async_support;
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
