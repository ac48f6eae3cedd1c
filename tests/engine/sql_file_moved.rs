//! A database file renamed while open: reads go on, writes in rollback
//! journal modes fail with `SQLITE_READONLY_DBMOVED` (a journal next to
//! the old name would protect nothing), and work again once the name is
//! back; a memory journal needs no name. Outcomes as SQLite 3.54.1 gives
//! them.
use crate::sql_common::{self, Outcome, V};
use ringlite::{Connection, OpenFlags};

#[test]
fn writes_to_a_renamed_database_fail_until_it_is_renamed_back() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("moved.db");
    let moved = dir.path().join("moved.db.x");
    let mut c = Connection::open(path.to_str().unwrap(), OpenFlags(OpenFlags::READWRITE | OpenFlags::CREATE)).unwrap();
    sql_common::run_ours(&mut c, "CREATE TABLE t1(a); INSERT INTO t1 VALUES(1);");
    std::fs::rename(&path, &moved).unwrap();
    let one = Outcome::Rows { names: vec!["a".into()], rows: vec![vec![V::Int(1)]] };
    assert_eq!(sql_common::run_ours(&mut c, "SELECT a FROM t1")[0], one);
    let refused = Outcome::Error { code: 8, message: "attempt to write a readonly database".into() };
    assert_eq!(sql_common::run_ours(&mut c, "UPDATE t1 SET a=2")[0], refused);
    let out = sql_common::run_ours(&mut c, "BEGIN; INSERT INTO t1 VALUES(3)");
    assert_eq!(out[1], refused);
    sql_common::run_ours(&mut c, "COMMIT; PRAGMA journal_mode=memory;");
    assert_eq!(sql_common::run_ours(&mut c, "UPDATE t1 SET a=5").len(), 1);
    std::fs::rename(&moved, &path).unwrap();
    let out = sql_common::run_ours(&mut c, "PRAGMA journal_mode=delete; UPDATE t1 SET a=4; SELECT a FROM t1;");
    assert_eq!(out[2], Outcome::Rows { names: vec!["a".into()], rows: vec![vec![V::Int(4)]] });
}
