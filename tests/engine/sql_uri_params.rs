//! `file:` URI query parameters as SQLite 3.54.1 reads them, differentially
//! against the reference: `%HH` octets decoded in keys and values, and a
//! `#` fragment ending the query (the engine and the C API read them
//! through one parser, `connection/uri.rs`).

use crate::sql_common::{run_ours, run_ref, Outcome, RefDb};
use libsqlite3_sys as ffi;
use ringlite::{Connection, OpenFlags};
use std::ffi::CString;

const RW_URI: i32 = OpenFlags::READWRITE | OpenFlags::CREATE | OpenFlags::URI;

/// Open `uri` on both engines and run `sql`: the open's error or the
/// statement's outcome must be the same.
fn same(uri: &str, sql: &str) {
    let ours = Connection::open(uri, OpenFlags(RW_URI));
    let mut db = std::ptr::null_mut();
    let c = CString::new(uri).unwrap();
    let rc = unsafe { ffi::sqlite3_open_v2(c.as_ptr(), &mut db, RW_URI, std::ptr::null()) };
    let reference = RefDb(db);
    match ours {
        Ok(mut o) => {
            assert_eq!(rc, 0, "{uri}: only ours opened");
            let (a, b) = (run_ours(&mut o, sql), run_ref(&reference, sql));
            assert_eq!(a, b, "\nURI: {uri}\nSQL: {sql}");
        }
        Err(e) => {
            assert_ne!(rc, 0, "{uri}: only the reference opened ({})", e.message);
            let msg = unsafe { std::ffi::CStr::from_ptr(ffi::sqlite3_errmsg(db)) }.to_string_lossy().into_owned();
            let (a, b) = (Outcome::Error { code: e.primary(), message: e.message.clone() }, Outcome::Error { code: rc & 0xff, message: msg });
            assert_eq!(a, b, "\nURI: {uri}");
        }
    }
}

#[test]
fn query_parameters_are_decoded_and_end_at_the_fragment() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("u.db");
    {
        let mut c = Connection::open(path.to_str().unwrap(), OpenFlags(RW_URI)).unwrap();
        run_ours(&mut c, "CREATE TABLE t(a); INSERT INTO t VALUES (1);");
    }
    let p = path.to_str().unwrap();
    // `mode=r%6F` is `mode=ro`: read-only on both.
    same(&format!("file:{p}?mode=r%6F"), "SELECT a FROM t; INSERT INTO t VALUES (2);");
    // The fragment is not part of the last value.
    same(&format!("file:{p}?mode=ro#part"), "SELECT a FROM t; INSERT INTO t VALUES (2);");
    // A decoded key, and an unknown mode named as decoded.
    same(&format!("file:{p}?m%6Fde=ro"), "INSERT INTO t VALUES (3);");
    same(&format!("file:{p}?mode=r%21"), "SELECT 1");
}
