//! `Connection::serialize`/`deserialize` against real SQLite: images we
//! produce load into SQLite (`sqlite3_deserialize`) and pass its
//! integrity_check with the same rows; SQLite's images load into ringlite;
//! a file database serializes to exactly its file's bytes.
#![allow(unsafe_code)]
use crate::sql_common;
use libsqlite3_sys as ffi;
use ringlite::{Connection, OpenFlags};
use sql_common::*;

const SETUP: &str = "CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c BLOB);
CREATE INDEX tb ON t(b);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i<300)
INSERT INTO t SELECT i, printf('row %d', i), zeroblob(i*13) FROM n;";
const QUERIES: &str = "SELECT count(*), sum(a), sum(length(c)), max(b) FROM t; SELECT name FROM sqlite_schema ORDER BY name;";

fn ref_serialize(db: &RefDb) -> Vec<u8> {
    unsafe {
        let mut n: i64 = 0;
        let p = ffi::sqlite3_serialize(db.0, c"main".as_ptr(), &mut n, 0);
        let v = std::slice::from_raw_parts(p, n as usize).to_vec();
        ffi::sqlite3_free(p as *mut _);
        v
    }
}

fn ref_deserialize(image: &[u8]) -> RefDb {
    let db = RefDb::open();
    unsafe {
        let p = ffi::sqlite3_malloc64(image.len() as u64) as *mut u8;
        std::ptr::copy_nonoverlapping(image.as_ptr(), p, image.len());
        let flags = ffi::SQLITE_DESERIALIZE_FREEONCLOSE | ffi::SQLITE_DESERIALIZE_RESIZEABLE;
        let rc = ffi::sqlite3_deserialize(db.0, c"main".as_ptr(), p, image.len() as i64, image.len() as i64, flags);
        assert_eq!(rc, 0);
    }
    db
}

fn ok_integrity() -> Vec<Outcome> {
    vec![Outcome::Rows { names: vec!["integrity_check".into()], rows: vec![vec![V::Text(b"ok".to_vec())]] }]
}

#[test]
fn our_image_loads_into_sqlite() {
    let mut ours = ours_open();
    run_ours(&mut ours, SETUP);
    let image = ours.serialize(None).unwrap().unwrap();
    let r = ref_deserialize(&image);
    assert_eq!(run_ref(&r, "PRAGMA integrity_check"), ok_integrity());
    assert_eq!(run_ref(&r, QUERIES), run_ours(&mut ours, QUERIES));
    assert!(ours.serialize(Some("nosuch")).unwrap().is_none());
}

#[test]
fn sqlite_image_loads_into_ours_and_stays_writable() {
    let r = RefDb::open();
    run_ref(&r, SETUP);
    let image = ref_serialize(&r);
    let mut ours = ours_open();
    run_ours(&mut ours, "CREATE TABLE gone(x)");
    ours.deserialize(None, &image, false).unwrap();
    assert_eq!(run_ours(&mut ours, QUERIES), run_ref(&r, QUERIES));
    let change = "INSERT INTO t(b) VALUES('new'); DELETE FROM t WHERE a % 3 = 0;";
    run_ours(&mut ours, change);
    run_ref(&r, change);
    assert_eq!(run_ours(&mut ours, QUERIES), run_ref(&r, QUERIES));
    let back = ref_deserialize(&ours.serialize(None).unwrap().unwrap());
    assert_eq!(run_ref(&back, "PRAGMA integrity_check"), ok_integrity());
    assert_eq!(run_ref(&back, QUERIES), run_ref(&r, QUERIES));
}

#[test]
fn read_only_image_and_temp_and_busy() {
    let r = RefDb::open();
    run_ref(&r, SETUP);
    let image = ref_serialize(&r);
    let mut ours = ours_open();
    ours.deserialize(Some("main"), &image, true).unwrap();
    assert_eq!(run_ours(&mut ours, QUERIES), run_ref(&r, QUERIES));
    let e = run_ours(&mut ours, "INSERT INTO t(b) VALUES('x')");
    assert_eq!(e, vec![Outcome::Error { code: 8, message: "attempt to write a readonly database".into() }]);
    assert_eq!(ours.deserialize(Some("temp"), &image, false).unwrap_err().primary(), 1);
    run_ours(&mut ours, "BEGIN; SELECT count(*) FROM t;");
    assert_eq!(ours.deserialize(None, &image, false).unwrap_err().primary(), 5);
}

#[test]
fn file_database_serializes_to_its_bytes_and_empty_gets_a_page() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f.db");
    let mut ours = Connection::open(path.to_str().unwrap(), OpenFlags(OpenFlags::READWRITE | OpenFlags::CREATE)).unwrap();
    run_ours(&mut ours, SETUP);
    let image = ours.serialize(None).unwrap().unwrap();
    assert_eq!(image, std::fs::read(&path).unwrap());

    let mut empty = ours_open();
    let ours_img = empty.serialize(None).unwrap().unwrap();
    let r = RefDb::open();
    let ref_img = ref_serialize(&r);
    assert_eq!(ours_img.len(), ref_img.len());
    assert_eq!(
        run_ref(&ref_deserialize(&ours_img), "PRAGMA integrity_check; SELECT count(*) FROM sqlite_schema"),
        run_ref(&ref_deserialize(&ref_img), "PRAGMA integrity_check; SELECT count(*) FROM sqlite_schema")
    );
}
