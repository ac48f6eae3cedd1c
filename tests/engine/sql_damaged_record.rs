//! A row whose record is damaged after the columns a query reads: SQLite
//! parses a record's header only as far as the column asked for, so the
//! columns before the damage read normally and the damaged one is
//! `SQLITE_CORRUPT`. ringlite's cursors parse the same way
//! (`value::row_header`); both engines must agree column by column.

use crate::sql_common;

use ringlite::{Connection, OpenFlags};
use sql_common::*;

#[test]
fn columns_before_the_damage_read_as_in_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("damaged.db");
    let p = path.to_str().unwrap();
    {
        let db = RefDb::open_path(p);
        assert!(matches!(run_ref(&db, "CREATE TABLE t(a, b, c); INSERT INTO t VALUES(1, 'abc', 300), (2, 'xyz', 301);")[..], [Outcome::Rows { .. }, ..]));
    }
    // The first row's record: header [4, 9 (the integer 1), 19 (text of 3),
    // 2 (two-byte integer)], body "abc" 0x012c. Its last serial type is
    // made 6 (an eight-byte integer): that value now ends past the record.
    let mut image = std::fs::read(&path).unwrap();
    let at = image.windows(9).position(|w| w == [4, 9, 19, 2, b'a', b'b', b'c', 0x01, 0x2c]).expect("record");
    image[at + 3] = 6;
    std::fs::write(&path, &image).unwrap();

    let queries = [
        "SELECT a FROM t",
        "SELECT a, b FROM t",
        "SELECT b FROM t WHERE a = 2",
        "SELECT c FROM t",
        "SELECT a, b, c FROM t",
        "SELECT count(*) FROM t",
        "SELECT c FROM t WHERE a = 2",
    ];
    let reference = RefDb::open_path(p);
    let mut ours = Connection::open(p, OpenFlags(OpenFlags::READWRITE)).expect("open");
    for q in queries {
        let want = run_ref(&reference, q);
        let got = run_ours(&mut ours, q);
        assert_eq!(got, want, "{q}");
    }
    // (The damage is really there: reading the last column fails.)
    assert!(matches!(run_ref(&reference, "SELECT c FROM t")[..], [Outcome::Error { code: 11, .. }]));
}
