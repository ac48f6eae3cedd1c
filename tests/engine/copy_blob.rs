//! Incremental blob I/O (`connection::blob`) against SQLite's
//! `sqlite3_blob_*`: the same script of opens, reads, writes, reopens and
//! closes gives the same results and error messages on both, including
//! values spread over overflow pages and handles expired by an UPDATE.
#![allow(unsafe_code)]
use crate::sql_common;
use libsqlite3_sys as ffi;
use ringlite::connection::blob::Blob;
use ringlite::Connection;
use sql_common::*;
use std::ffi::{CStr, CString};

const SETUP: &str = "CREATE TABLE t(id INTEGER PRIMARY KEY, a BLOB, b TEXT, c, d UNIQUE);
CREATE INDEX ta ON t(c);
INSERT INTO t VALUES(1, x'000102030405060708090a', 'hello world', 5, 1);
INSERT INTO t VALUES(2, zeroblob(20000), 'x', NULL, 2);
INSERT INTO t VALUES(3, NULL, 1.5, 7, 3);
CREATE VIEW v AS SELECT * FROM t;
CREATE TABLE w(a INTEGER PRIMARY KEY, b BLOB) WITHOUT ROWID;
INSERT INTO w VALUES(1, x'0102');";

/// One operation of a script, applied to both engines.
#[derive(Debug, Clone)]
enum Op {
    Open(&'static str, &'static str, &'static str, i64, bool),
    Read(i64, usize),
    Write(i64, Vec<u8>),
    Bytes,
    Reopen(i64),
    Sql(&'static str),
    Close,
}

fn run_ours_ops(conn: &mut Connection, ops: &[Op]) -> Vec<String> {
    let mut out = Vec::new();
    let mut blob: Option<Blob> = None;
    for op in ops {
        let line = match op {
            Op::Open(db, t, c, r, w) => match conn.blob_open(db, t, c, *r, *w) {
                Ok(b) => {
                    blob = Some(b);
                    "ok".into()
                }
                Err(e) => format!("err {} {}", e.primary(), e.message),
            },
            Op::Read(off, n) => {
                let mut buf = vec![0u8; *n];
                match blob.as_mut().unwrap().read(conn, *off, &mut buf) {
                    Ok(()) => format!("{buf:?}"),
                    Err(e) => format!("err {}", e.primary()),
                }
            }
            Op::Write(off, data) => match blob.as_mut().unwrap().write(conn, *off, data) {
                Ok(()) => "ok".into(),
                Err(e) => format!("err {}", e.primary()),
            },
            Op::Bytes => blob.as_ref().unwrap().bytes().to_string(),
            Op::Reopen(r) => match blob.as_mut().unwrap().reopen(conn, *r) {
                Ok(()) => "ok".into(),
                // An expired handle: SQLite leaves the last message alone.
                Err(e) if e.primary() == 4 => "err 4".into(),
                Err(e) => format!("err {} {}", e.primary(), e.message),
            },
            Op::Sql(s) => format!("{:?}", run_ours(conn, s)),
            Op::Close => match blob.take().unwrap().close(conn) {
                Ok(()) => "ok".into(),
                Err(e) => format!("err {}", e.primary()),
            },
        };
        out.push(line);
    }
    out
}

fn run_ref_ops(db: &RefDb, ops: &[Op]) -> Vec<String> {
    let mut out = Vec::new();
    let mut blob: *mut ffi::sqlite3_blob = std::ptr::null_mut();
    let errmsg = || unsafe { CStr::from_ptr(ffi::sqlite3_errmsg(db.0)).to_string_lossy().into_owned() };
    for op in ops {
        let line = unsafe {
            match op {
                Op::Open(d, t, c, r, w) => {
                    let (d, t, c) = (CString::new(*d).unwrap(), CString::new(*t).unwrap(), CString::new(*c).unwrap());
                    let rc = ffi::sqlite3_blob_open(db.0, d.as_ptr(), t.as_ptr(), c.as_ptr(), *r, *w as i32, &mut blob);
                    if rc == 0 {
                        "ok".into()
                    } else {
                        format!("err {rc} {}", errmsg())
                    }
                }
                Op::Read(off, n) => {
                    let mut buf = vec![0u8; *n];
                    let rc = ffi::sqlite3_blob_read(blob, buf.as_mut_ptr() as *mut _, *n as i32, *off as i32);
                    if rc == 0 {
                        format!("{buf:?}")
                    } else {
                        format!("err {rc}")
                    }
                }
                Op::Write(off, data) => {
                    let rc = ffi::sqlite3_blob_write(blob, data.as_ptr() as *const _, data.len() as i32, *off as i32);
                    if rc == 0 {
                        "ok".into()
                    } else {
                        format!("err {rc}")
                    }
                }
                Op::Bytes => ffi::sqlite3_blob_bytes(blob).to_string(),
                Op::Reopen(r) => {
                    let rc = ffi::sqlite3_blob_reopen(blob, *r);
                    if rc == 0 {
                        "ok".into()
                    } else if rc == 4 {
                        "err 4".into()
                    } else {
                        format!("err {rc} {}", errmsg())
                    }
                }
                Op::Sql(s) => format!("{:?}", run_ref(db, s)),
                Op::Close => {
                    let rc = ffi::sqlite3_blob_close(blob);
                    blob = std::ptr::null_mut();
                    if rc == 0 {
                        "ok".into()
                    } else {
                        format!("err {rc}")
                    }
                }
            }
        };
        out.push(line);
    }
    out
}

fn check(ops: &[Op]) {
    let mut ours = ours_open();
    run_ours(&mut ours, SETUP);
    let r = RefDb::open();
    run_ref(&r, SETUP);
    assert_eq!(run_ours_ops(&mut ours, ops), run_ref_ops(&r, ops));
}

#[test]
fn open_errors() {
    use Op::*;
    check(&[
        Open("main", "nosuch", "a", 1, false),
        Open("main", "t", "nosuch", 1, false),
        Open("main", "t", "a", 99, false),
        Open("main", "t", "a", 3, false),
        Open("main", "t", "c", 1, false),
        Open("main", "t", "b", 3, false),
        Open("main", "t", "id", 1, false),
        Open("main", "t", "c", 1, true),
        Open("main", "t", "d", 1, true),
        Open("main", "v", "a", 1, false),
        Open("main", "w", "b", 1, false),
        Open("main", "w", "b", 1, true),
    ]);
}

#[test]
fn read_write_and_bounds() {
    use Op::*;
    check(&[
        Open("main", "t", "a", 1, true),
        Bytes,
        Read(0, 11),
        Read(3, 4),
        Read(8, 4),
        Write(2, vec![9, 9, 9]),
        Write(10, vec![1, 2]),
        Read(0, 11),
        Close,
        Sql("SELECT hex(a) FROM t WHERE id = 1"),
        Open("main", "t", "b", 1, false),
        Read(6, 5),
        Write(0, vec![1]),
        Close,
    ]);
}

#[test]
fn overflow_pages_reopen_and_expiry() {
    use Op::*;
    check(&[
        Open("main", "t", "a", 2, true),
        Bytes,
        Write(9000, b"in the middle of the overflow chain".to_vec()),
        Write(19990, vec![7; 10]),
        Read(8995, 45),
        Read(19985, 15),
        Reopen(1),
        Bytes,
        Read(0, 4),
        Reopen(3),
        Bytes,
        Reopen(2),
        Read(9000, 6),
        Close,
        Sql("SELECT length(a), substr(a, 9001, 6), hex(substr(a, 19991)) FROM t WHERE id = 2"),
        Sql("PRAGMA integrity_check"),
        Open("main", "t", "b", 1, false),
        Read(0, 5),
        Sql("UPDATE t SET b = 'changed' WHERE id = 1"),
        Read(0, 5),
        Bytes,
        Close,
    ]);
}

#[test]
fn open_handle_locks_its_table_against_drop() {
    use Op::*;
    check(&[Open("main", "t", "b", 1, false), Read(0, 5), Sql("DROP TABLE t"), Read(0, 5), Close, Sql("DROP TABLE t"), Sql("SELECT name FROM sqlite_schema")]);
}

#[test]
fn handles_on_a_large_zeroblob_read_and_write_in_place() {
    // A value of ~500 overflow pages: reads and writes move only the bytes
    // asked for (the chain is walked, not loaded), and the row stays the
    // same row for the handle until something else changes it.
    use Op::*;
    check(&[
        Sql("INSERT INTO t VALUES(4, zeroblob(2000000), 'big', NULL, 4)"),
        Open("main", "t", "a", 4, true),
        Bytes,
        Read(0, 8),
        Write(0, b"head".to_vec()),
        Write(300, vec![1; 5000]),
        Write(4088, b"across a page edge".to_vec()),
        Write(1_000_000, b"middle".to_vec()),
        Write(1_999_990, vec![9; 10]),
        Read(0, 6),
        Read(295, 20),
        Read(4080, 30),
        Read(999_998, 10),
        Read(1_999_985, 15),
        Write(1_999_995, vec![1; 6]),
        Read(1_999_995, 6),
        Sql("UPDATE t SET c = 1 WHERE id = 1"),
        Read(1_000_000, 6),
        Sql("SELECT length(a), hex(substr(a, 1, 6)), substr(a, 1000001, 6), hex(substr(a, 1999991)), sum(length(b)) FROM t WHERE id = 4"),
        Sql("PRAGMA integrity_check"),
        Sql("UPDATE t SET b = 'moved' WHERE id = 4"),
        Read(0, 4),
        Bytes,
        Close,
        Open("main", "t", "a", 4, false),
        Read(4088, 18),
        Write(0, b"x".to_vec()),
        Close,
    ]);
}
