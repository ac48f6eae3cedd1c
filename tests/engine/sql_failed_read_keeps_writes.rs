//! A read statement that fails after other statements wrote and ended
//! while it ran (autocommit mode): SQLite committed each of those when it
//! ended, and so does ringlite (`sql_write_beside_read`), so the failure
//! undoes none of them (`exec::txn::abort`). Also
//! for an fts5 table, whose pending terms reach the index (its content
//! and index stay consistent).

use crate::sql_common::{ours_open, run_ours, run_ref, RefDb};
use libsqlite3_sys as ffi;
use ringlite::StepResult;

/// Step `reader` on both libraries, running `write` before its second
/// step each time; then `check` on both: (rows, error, check's output).
fn interleaved(setup: &str, reader: &str, write: &str, check: &str) {
    let mut c = ours_open();
    run_ours(&mut c, setup);
    let (st, _) = c.prepare(reader.as_bytes()).unwrap();
    let mut st = st.unwrap();
    let mut ours = (0, None);
    loop {
        if ours.0 >= 1 {
            run_ours(&mut c, write);
        }
        match st.step(&mut c) {
            Ok(StepResult::Row) => ours.0 += 1,
            Ok(_) => break,
            Err(e) => {
                ours.1 = Some(e.message.clone());
                break;
            }
        }
    }
    st.reset(&mut c);
    drop(st);
    let ours_check = run_ours(&mut c, check);
    let r = RefDb::open();
    run_ref(&r, setup);
    let mut theirs = (0, None);
    let sql = std::ffi::CString::new(reader).unwrap();
    // SAFETY: a statement of the open reference connection, finalized
    // before it closes.
    unsafe {
        let mut p = std::ptr::null_mut();
        ffi::sqlite3_prepare_v2(r.0, sql.as_ptr(), -1, &mut p, std::ptr::null_mut());
        loop {
            if theirs.0 >= 1 {
                run_ref(&r, write);
            }
            match ffi::sqlite3_step(p) {
                ffi::SQLITE_ROW => theirs.0 += 1,
                ffi::SQLITE_DONE => break,
                _ => {
                    theirs.1 = Some(std::ffi::CStr::from_ptr(ffi::sqlite3_errmsg(r.0)).to_string_lossy().into_owned());
                    break;
                }
            }
        }
        ffi::sqlite3_finalize(p);
    }
    let theirs_check = run_ref(&r, check);
    assert_eq!(ours, theirs, "{reader} / {write}");
    assert_eq!(ours_check, theirs_check, "{reader} / {write}: {check}");
}

#[test]
fn a_failed_read_keeps_what_others_wrote_meanwhile() {
    let setup = "CREATE TABLE t(x); INSERT INTO t VALUES(1),(2),(3); CREATE TABLE u(y)";
    let reader = "SELECT x, CASE WHEN x = 3 THEN abs(-9223372036854775808) ELSE 0 END FROM t";
    interleaved(setup, reader, "INSERT INTO u VALUES(9)", "SELECT count(*) FROM u");
    // The reader fails before any other statement wrote: nothing to keep.
    interleaved(setup, "SELECT abs(-9223372036854775808) FROM t", "INSERT INTO u VALUES(9)", "SELECT count(*) FROM u");
    // Inside an explicit transaction the writes wait for its COMMIT.
    let setup_txn = format!("{setup}; BEGIN");
    interleaved(&setup_txn, reader, "INSERT INTO u VALUES(9)", "SELECT count(*) FROM u; COMMIT; SELECT count(*) FROM u");
}

#[test]
fn a_failed_read_keeps_an_fts5_write_and_its_index() {
    let setup = "CREATE TABLE t(x); INSERT INTO t VALUES(1),(2),(3); CREATE VIRTUAL TABLE f USING fts5(a)";
    let reader = "SELECT x, CASE WHEN x = 3 THEN abs(-9223372036854775808) ELSE 0 END FROM t";
    // (Each INSERT commits when it ends, its terms flushed to a segment
    // of their own, on both: `sql_write_beside_read`.)
    interleaved(setup, reader, "INSERT INTO f VALUES('five six')", "SELECT rowid FROM f('five'); INSERT INTO f(f) VALUES('integrity-check')");
}
