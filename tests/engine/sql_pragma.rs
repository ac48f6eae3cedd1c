//! PRAGMAs and EXPLAIN, differentially against SQLite where the answers
//! are defined the same way.
use crate::sql_common;
use sql_common::{check, check_each};

#[test]
fn schema_pragmas() {
    check_each(
        "CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT NOT NULL DEFAULT 'x', c REAL UNIQUE, d); CREATE INDEX td ON t(d, b); CREATE UNIQUE INDEX tb ON t(b);",
        &[
            "PRAGMA table_info(t)",
            "PRAGMA table_info('t')",
            "PRAGMA index_list(t)",
            "PRAGMA index_info(td)",
            "PRAGMA index_info(sqlite_autoindex_t_1)",
            "PRAGMA table_info(nosuch)",
        ],
    );
}

#[test]
fn header_pragmas() {
    check("PRAGMA user_version; PRAGMA user_version = 42; PRAGMA user_version; CREATE TABLE t(a); PRAGMA schema_version; PRAGMA page_size; PRAGMA page_count;");
    check("PRAGMA journal_mode; PRAGMA synchronous; PRAGMA cache_size; PRAGMA database_list; PRAGMA encoding;");
    check("WITH RECURSIVE r(n) AS (SELECT n FROM r) SELECT * FROM r");
    check("CREATE TABLE t(a UNIQUE); INSERT INTO t VALUES(1),(2); PRAGMA integrity_check;");
}

#[test]
fn explain_shapes() {
    let mut c = sql_common::ours_open();
    let out = sql_common::run_ours(&mut c, "CREATE TABLE t(a, b); CREATE INDEX ta ON t(a); EXPLAIN SELECT * FROM t WHERE a = 1; EXPLAIN QUERY PLAN SELECT * FROM t WHERE a = 1; EXPLAIN QUERY PLAN SELECT * FROM t ORDER BY b;");
    let sql_common::Outcome::Rows { names, rows } = &out[2] else { panic!("{out:?}") };
    assert_eq!(names, &["addr", "opcode", "p1", "p2", "p3", "p4", "p5", "comment"]);
    assert_eq!(rows[0][1], sql_common::V::Text(b"Init".to_vec()));
    let text = format!("{rows:?}");
    assert!(
        text.contains(&format!("{:?}", b"may await I/O".to_vec())[1..20])
            || rows.iter().any(|r| matches!(&r[7], sql_common::V::Text(t) if t.ends_with(b"[may await I/O]")))
    );
    let sql_common::Outcome::Rows { names, rows } = &out[3] else { panic!("{out:?}") };
    assert_eq!(names, &["id", "parent", "notused", "detail"]);
    assert_eq!(rows[0][3], sql_common::V::Text(b"SEARCH t USING INDEX ta (a=?)".to_vec()));
    let sql_common::Outcome::Rows { rows, .. } = &out[4] else { panic!("{out:?}") };
    let details: Vec<_> = rows.iter().map(|r| r[3].clone()).collect();
    assert_eq!(details, vec![sql_common::V::Text(b"SCAN t".to_vec()), sql_common::V::Text(b"USE TEMP B-TREE FOR ORDER BY".to_vec())]);
}

#[test]
fn decltype_and_origin() {
    let mut c = sql_common::ours_open();
    sql_common::run_ours(&mut c, "CREATE TABLE t(a INTEGER PRIMARY KEY, b VARCHAR(10), c);");
    let (st, _) = c.prepare(b"SELECT t.a, t.b AS bee, t.c+1, t.c, x.b FROM t, t AS x").unwrap();
    let st = st.unwrap();
    assert_eq!(st.column_decltype(0), Some("INTEGER"));
    assert_eq!(st.column_decltype(1), Some("VARCHAR(10)"));
    assert_eq!(st.column_decltype(2), None);
    assert_eq!(st.column_decltype(3), None);
    assert_eq!(st.column_origin(0), Some(("main", "t", "a")));
    assert_eq!(st.column_origin(1), Some(("main", "t", "b")));
    assert_eq!(st.column_origin(2), None);
    assert_eq!(st.column_origin(4), Some(("main", "t", "b")));
    assert_eq!(st.column_name(1), "bee");
    assert_eq!(st.column_name(3), "c");
}

/// `PRAGMA journal_mode=WAL` really switches the file to WAL: the answer is
/// "wal", the header says so, and real SQLite reads every committed row
/// (through the -wal file, and again after our TRUNCATE checkpoint).
#[test]
fn journal_mode_wal_from_sql() {
    use ringlite::{Connection, OpenFlags};
    use sql_common::{Outcome, V};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w.db");
    let path = path.to_str().unwrap();
    let mut c = Connection::open(path, OpenFlags(OpenFlags::READWRITE | OpenFlags::CREATE)).unwrap();
    let out = sql_common::run_ours(
        &mut c,
        "PRAGMA journal_mode=WAL; PRAGMA journal_mode; PRAGMA io_backend; PRAGMA cache_size=-500; PRAGMA cache_size; \
         PRAGMA synchronous=NORMAL; PRAGMA synchronous; CREATE TABLE t(a INTEGER PRIMARY KEY, b); \
         INSERT INTO t(b) VALUES('x'),('y'),('z');",
    );
    let one = |o: &Outcome| match o {
        Outcome::Rows { rows, .. } => rows[0][0].clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(one(&out[0]), V::Text(b"wal".to_vec()));
    assert_eq!(one(&out[1]), V::Text(b"wal".to_vec()));
    assert_eq!(one(&out[2]), V::Text(b"sync".to_vec()));
    assert_eq!(one(&out[4]), V::Int(-500));
    assert_eq!(one(&out[6]), V::Int(1));
    assert!(std::path::Path::new(&format!("{path}-wal")).exists());
    let r = sql_common::RefDb::open_path(path);
    let seen = sql_common::run_ref(&r, "PRAGMA journal_mode; SELECT count(*), group_concat(b) FROM t; PRAGMA integrity_check;");
    assert_eq!(one(&seen[0]), V::Text(b"wal".to_vec()));
    let Outcome::Rows { rows, .. } = &seen[1] else { panic!("{seen:?}") };
    assert_eq!(rows[0], vec![V::Int(3), V::Text(b"x,y,z".to_vec())]);
    assert_eq!(one(&seen[2]), V::Text(b"ok".to_vec()));
    drop(r);
    let out = sql_common::run_ours(&mut c, "INSERT INTO t(b) VALUES('w'); PRAGMA wal_checkpoint(TRUNCATE);");
    let Outcome::Rows { names, rows } = &out[1] else { panic!("{out:?}") };
    assert_eq!(names, &["busy", "log", "checkpointed"]);
    assert_eq!(rows[0][0], V::Int(0));
    let r = sql_common::RefDb::open_path(path);
    let seen = sql_common::run_ref(&r, "SELECT count(*) FROM t");
    assert_eq!(one(&seen[0]), V::Int(4));
}

#[test]
fn setting_the_encoding_returns_no_row() {
    check("PRAGMA encoding='UTF-8'; PRAGMA encoding; CREATE TABLE t(a); PRAGMA encoding=UTF16; PRAGMA encoding;");
}

#[test]
fn auto_vacuum_pragmas() {
    let fill = "INSERT INTO t SELECT zeroblob(600) FROM (WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i<100) SELECT i FROM c);";
    // FULL: the file shrinks back at commit; switching needs an empty database.
    check(&format!(
        "PRAGMA auto_vacuum; PRAGMA auto_vacuum=FULL; PRAGMA auto_vacuum; CREATE TABLE t(x); {fill} DELETE FROM t; \
         PRAGMA page_count; PRAGMA freelist_count; PRAGMA integrity_check; PRAGMA auto_vacuum=NONE; PRAGMA auto_vacuum; \
         PRAGMA auto_vacuum=incremental; PRAGMA auto_vacuum;"
    ));
    // INCREMENTAL: free pages stay until PRAGMA incremental_vacuum takes
    // them. (SQLite returns one empty row per page freed; ours returns
    // none, so the state is checked instead of the statement's output.)
    let mut c = sql_common::ours_open();
    let int = |out: &[sql_common::Outcome], i: usize| match &out[i] {
        sql_common::Outcome::Rows { rows, .. } => rows[0][0].clone(),
        other => panic!("{other:?}"),
    };
    let out =
        sql_common::run_ours(&mut c, &format!("PRAGMA auto_vacuum=2; CREATE TABLE t(x); {fill} DELETE FROM t; PRAGMA freelist_count; PRAGMA auto_vacuum;"));
    let sql_common::V::Int(free) = int(&out, 4) else { panic!("{out:?}") };
    assert!(free > 5, "{out:?}");
    assert_eq!(int(&out, 5), sql_common::V::Int(2));
    let out = sql_common::run_ours(
        &mut c,
        "PRAGMA incremental_vacuum(3); PRAGMA freelist_count; PRAGMA incremental_vacuum; PRAGMA freelist_count; PRAGMA page_count; PRAGMA integrity_check;",
    );
    assert_eq!(int(&out, 1), sql_common::V::Int(free - 3));
    assert_eq!(int(&out, 3), sql_common::V::Int(0));
    assert_eq!(int(&out, 4), sql_common::V::Int(3));
    assert_eq!(int(&out, 5), sql_common::V::Text(b"ok".to_vec()));
}

/// `PRAGMA collation_list`: every name given to create_collation (even to
/// remove one), as first spelled, in SQLite's hash-table order (which
/// changes as the table grows); replacing a built-in one adds nothing.
#[test]
fn collation_list_order() {
    use libsqlite3_sys as ffi;
    use std::ffi::CString;
    unsafe extern "C" fn reverse(_: *mut std::ffi::c_void, n1: i32, a: *const std::ffi::c_void, n2: i32, b: *const std::ffi::c_void) -> i32 {
        let a = unsafe { std::slice::from_raw_parts(a as *const u8, n1 as usize) };
        let b = unsafe { std::slice::from_raw_parts(b as *const u8, n2 as usize) };
        b.cmp(a) as i32
    }
    // (name, registered: false = create_collation with no function)
    let calls = [("Rev", true), ("second", true), ("NOCASE", true), ("REV", true), ("gone", false), ("third", true), ("Second", false)];
    let mut ours = sql_common::ours_open();
    let reference = sql_common::RefDb::open();
    for (name, with_fn) in calls {
        let coll = with_fn.then(|| ringlite::value::collation::Collation { name: name.into(), cmp: std::sync::Arc::new(|a: &[u8], b: &[u8]| b.cmp(a)) });
        ours.create_collation(name, coll).unwrap();
        let c = CString::new(name).unwrap();
        #[allow(unsafe_code)]
        let rc = unsafe {
            ffi::sqlite3_create_collation_v2(reference.0, c.as_ptr(), ffi::SQLITE_UTF8, std::ptr::null_mut(), if with_fn { Some(reverse) } else { None }, None)
        };
        assert_eq!(rc, 0);
    }
    // Enough more for the table to grow past its first bucket arrays.
    let more: Vec<String> = (0..70).map(|i| format!("extra_{i}")).collect();
    let check = |ours: &mut ringlite::Connection, sql: &str| {
        let a = sql_common::run_ours(ours, sql);
        let b = sql_common::run_ref(&reference, sql);
        assert_eq!(a, b, "\nSQL: {sql}");
    };
    for sql in [
        "PRAGMA collation_list",
        "SELECT name FROM pragma_collation_list ORDER BY seq DESC",
        "SELECT count(*) FROM pragma_collation_list() WHERE name LIKE 's%'",
        "SELECT x FROM (SELECT 'a' AS x UNION ALL SELECT 'b') ORDER BY x COLLATE rev",
    ] {
        check(&mut ours, sql);
    }
    for (i, name) in more.iter().enumerate() {
        ours.create_collation(name, Some(ringlite::value::collation::Collation::binary())).unwrap();
        let c = CString::new(name.as_str()).unwrap();
        #[allow(unsafe_code)]
        let rc = unsafe { ffi::sqlite3_create_collation_v2(reference.0, c.as_ptr(), ffi::SQLITE_UTF8, std::ptr::null_mut(), Some(reverse), None) };
        assert_eq!(rc, 0);
        if i % 7 == 0 || i + 1 == more.len() {
            check(&mut ours, "SELECT group_concat(name, ' ') FROM (SELECT name FROM pragma_collation_list ORDER BY seq)");
        }
    }
}
