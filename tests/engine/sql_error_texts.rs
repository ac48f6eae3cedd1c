//! Errors as SQLite 3.54.1 gives them, where SQLite's TCL tests found ours
//! different (issue 17): each case against the reference.

use crate::sql_common::*;

/// COLLATE or ASC/DESC after a name of a column-name list (CTE, view,
/// foreign key) is the parser's "syntax error after column name" when a
/// statement is prepared (parser1.test); a schema holding one still loads.
#[test]
fn column_name_lists_refuse_collate_and_order() {
    check_each(
        "CREATE TABLE p(a TEXT PRIMARY KEY, b TEXT)",
        &[
            "CREATE TABLE t1(a TEXT PRIMARY KEY, b TEXT, FOREIGN KEY(b COLLATE nocase DESC) REFERENCES t1(a COLLATE binary ASC))",
            "CREATE TABLE t2(a TEXT PRIMARY KEY, b TEXT, FOREIGN KEY(b) REFERENCES p(a DESC))",
            "CREATE TABLE t3(a TEXT PRIMARY KEY, b TEXT REFERENCES p(a COLLATE nocase))",
            "CREATE TABLE t4(a, \"b\", FOREIGN KEY(\"b\" ASC) REFERENCES p)",
            "WITH RECURSIVE c(x COLLATE binary) AS (VALUES(1) UNION SELECT x+1 FROM c WHERE x<5) SELECT x FROM c",
            "WITH RECURSIVE c(x ASC) AS (VALUES(1) UNION SELECT x+1 FROM c WHERE x<5) SELECT x FROM c",
            "SELECT (WITH c(y, z DESC) AS (SELECT 1, 2) SELECT y FROM c)",
            "CREATE VIEW v(a, b COLLATE nocase) AS SELECT 1, 2",
            "CREATE TRIGGER tr AFTER INSERT ON p BEGIN SELECT * FROM (WITH c(q DESC) AS (SELECT 1) SELECT q FROM c); END",
            "WITH c(x) AS (SELECT 1) SELECT x FROM c",
            "CREATE TABLE t5(a, b, FOREIGN KEY(b) REFERENCES p(a))",
        ],
    );
}

/// A column whose collation is not defined on this connection (created
/// where it was): only what compares with it needs it, and a subquery,
/// view or CTE in FROM, whose columns SQLite describes (collate3.test).
#[test]
fn missing_collation_only_where_values_are_compared() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.db");
    let p = path.to_str().unwrap();
    {
        let r = RefDb::open_path(p);
        run_ref(&r, "CREATE TABLE c(c1, c2); INSERT INTO c VALUES('a', 1), ('B', 2); CREATE VIEW v AS SELECT c1 FROM c UNION ALL SELECT c1 FROM c; PRAGMA writable_schema=ON; UPDATE sqlite_schema SET sql='CREATE TABLE c(c1 COLLATE string_compare, c2)' WHERE name='c'");
    }
    for sql in [
        "SELECT c1 FROM c UNION ALL SELECT c1 FROM c",
        "SELECT c1 FROM c UNION SELECT c1 FROM c",
        "SELECT c1 FROM c EXCEPT SELECT c1 FROM c",
        "SELECT c2 FROM c UNION SELECT c2 FROM c",
        "SELECT DISTINCT c1 FROM c",
        "SELECT c1 FROM c ORDER BY 1",
        "SELECT c1 FROM c",
        "SELECT c1 FROM c WHERE c1 = 'a'",
        "SELECT c1 || 'x' FROM c UNION ALL SELECT c1 FROM c ORDER BY c2",
        "SELECT 10 UNION ALL SELECT 20 ORDER BY 1 COLLATE string_compare",
        "SELECT c1 FROM c UNION ALL SELECT c1 FROM c LIMIT 1",
        "SELECT * FROM (SELECT c1 FROM c UNION ALL SELECT c1 FROM c)",
        "SELECT * FROM (SELECT c1 FROM c)",
        "SELECT * FROM (SELECT c1 FROM c UNION ALL SELECT c1 FROM c) WHERE c1 > 'a'",
        "SELECT * FROM (SELECT c2 FROM c UNION ALL SELECT c1 FROM c)",
        "WITH w AS (SELECT c1 FROM c UNION ALL SELECT 1) SELECT * FROM w",
        "SELECT (SELECT c1 FROM c UNION ALL SELECT c1 FROM c)",
        "SELECT 1 WHERE 'a' IN (SELECT c1 FROM c UNION ALL SELECT c1 FROM c)",
        "SELECT * FROM v",
    ] {
        let expected = run_ref(&RefDb::open_path(p), sql);
        let mut ours = ringlite::Connection::open(p, ringlite::OpenFlags(ringlite::OpenFlags::READWRITE)).unwrap();
        assert_eq!(run_ours(&mut ours, sql), expected, "{sql}");
    }
}

/// ROLLBACK TO a savepoint, or ROLLBACK, while a SELECT of the same
/// connection is running: when the transaction changed the schema,
/// SQLite aborts every running statement ("abort due to ROLLBACK" at its
/// next step); without a schema change the SELECT goes on
/// (savepoint7.test).
#[test]
fn rollback_to_after_a_schema_change_aborts_running_statements() {
    use libsqlite3_sys as ffi;
    use ringlite::StepResult;
    use std::ffi::{CStr, CString};
    let to_x2 = "SAVEPOINT x2; INSERT INTO t2 VALUES(9, 9); ROLLBACK TO x2;";
    let whole = "INSERT INTO t2 VALUES(9, 9); ROLLBACK; BEGIN;";
    for (tn, before, inner) in [
        (1, "SAVEPOINT x1; CREATE TABLE t4(abc);", to_x2),
        (2, "SAVEPOINT x1;", to_x2),
        (3, "BEGIN; CREATE TABLE t5(q);", to_x2),
        (4, "BEGIN; CREATE TABLE t5(q);", whole),
        (5, "BEGIN; INSERT INTO t2 VALUES(0, 0);", whole),
    ] {
        let setup = format!("CREATE TABLE t1(a, b); INSERT INTO t1 VALUES(1, 2), (3, 4), (5, 6); CREATE TABLE t2(a, b); {before}");
        // Ours: the outcome of each step of the SELECT, the inner script run
        // after each row.
        let mut ours = ours_open();
        run_ours(&mut ours, &setup);
        let (st, _) = ours.prepare(b"SELECT a FROM t1").unwrap();
        let mut st = st.unwrap();
        let mut got = Vec::new();
        loop {
            match st.step(&mut ours) {
                Ok(StepResult::Row) => {
                    got.push(format!("row {:?}", st.column(0)));
                    let inner_out = run_ours(&mut ours, inner);
                    assert!(inner_out.iter().all(|o| matches!(o, Outcome::Rows { .. })), "{inner_out:?}");
                }
                Ok(StepResult::Done) => break,
                Ok(StepResult::Io) => continue,
                Err(e) => {
                    got.push(format!("error {}: {}", e.code, e.message));
                    break;
                }
            }
        }
        st.reset(&mut ours);
        let mut expected = Vec::new();
        let r = RefDb::open();
        run_ref(&r, &setup);
        unsafe {
            let sql = CString::new("SELECT a FROM t1").unwrap();
            let mut p = std::ptr::null_mut();
            assert_eq!(ffi::sqlite3_prepare_v2(r.0, sql.as_ptr(), -1, &mut p, std::ptr::null_mut()), 0);
            loop {
                match ffi::sqlite3_step(p) {
                    ffi::SQLITE_ROW => {
                        expected.push(format!("row Integer({})", ffi::sqlite3_column_int64(p, 0)));
                        run_ref(&r, inner);
                    }
                    ffi::SQLITE_DONE => break,
                    _ => {
                        let msg = CStr::from_ptr(ffi::sqlite3_errmsg(r.0)).to_string_lossy().into_owned();
                        expected.push(format!("error {}: {msg}", ffi::sqlite3_extended_errcode(r.0)));
                        break;
                    }
                }
            }
            ffi::sqlite3_finalize(p);
        }
        assert_eq!(got, expected, "case {tn}");
        let after = "SELECT count(*) FROM t2; ROLLBACK";
        assert_eq!(run_ours(&mut ours, after), run_ref(&r, after), "case {tn}");
    }
}

/// The PRIMARY KEY columns of a STRICT table are NOT NULL (not an INTEGER
/// PRIMARY KEY): inserts, PRAGMA table_info and integrity_check
/// (strict2.test).
#[test]
fn strict_primary_key_columns_are_not_null() {
    check_each(
        "CREATE TABLE s1(id ANY PRIMARY KEY, x TEXT) STRICT; CREATE TABLE s2(a INT, b TEXT, PRIMARY KEY(a, b)) STRICT;
         CREATE TABLE s3(id INTEGER PRIMARY KEY, x ANY) STRICT; CREATE TABLE s4(k TEXT PRIMARY KEY, v ANY) STRICT, WITHOUT ROWID;",
        &[
            "INSERT INTO s1 VALUES(NULL, 'a')",
            "INSERT OR IGNORE INTO s1 VALUES(NULL, 'a'); SELECT count(*) FROM s1",
            "INSERT INTO s2 VALUES(1, NULL)",
            "INSERT INTO s3 VALUES(NULL, 'x'); SELECT * FROM s3",
            "INSERT INTO s4 VALUES(NULL, 1)",
            "PRAGMA table_info(s1)",
            "PRAGMA table_info(s2)",
            "PRAGMA table_info(s3)",
            "PRAGMA integrity_check",
        ],
    );
}

/// A character no token starts with, and `!` without `=`, is a token of
/// one character: SQLite's message names that character alone
/// (main.test).
#[test]
fn unrecognized_token_is_one_character() {
    check_each(
        "CREATE TABLE t1(x)",
        &[
            "SELECT * from T1 where x!!5",
            "SELECT * from T1 where x!5",
            "SELECT * from T1 where ^x",
            "SELECT 1 ^ 2",
            "SELECT 1!",
            "SELECT `a",
            "SELECT 1 # 2",
            "SELECT x'1g'",
            "SELECT 1 \u{1}",
            "SELECT * FROM t1 WHERE x != 5",
        ],
    );
}

/// Writing a table with an index on a column whose collation is not
/// defined here: only statements that change that index's entries need
/// the collation (SQLite opens no other index), so `UPDATE ... SET c2`
/// works while `SET c1`, DELETE, INSERT and OR REPLACE fail
/// (collate3.test).
#[test]
fn missing_collation_only_for_indexes_written() {
    let dir = tempfile::tempdir().unwrap();
    for (n, sql) in [
        "UPDATE c SET c2 = 'xxx'",
        "UPDATE c SET c2 = c2 || 'y' WHERE c2 = 'yyy'",
        "UPDATE c SET c1 = 'xxx'",
        "UPDATE OR REPLACE c SET c2 = 'xxx'",
        "UPDATE c SET rowid = rowid + 10",
        "UPDATE c SET c3 = 5",
        "DELETE FROM c WHERE 1",
        "INSERT INTO c VALUES('xxx', 0, 1)",
        "SELECT * FROM c",
    ]
    .iter()
    .enumerate()
    {
        let mut outcomes = Vec::new();
        for engine in 0..2 {
            let path = dir.path().join(format!("c{n}-{engine}.db"));
            let p = path.to_str().unwrap();
            {
                let r = RefDb::open_path(p);
                run_ref(&r, "CREATE TABLE c(c1, c2, c3); CREATE INDEX ci ON c(c1); CREATE INDEX ci3 ON c(c3); INSERT INTO c VALUES('xxx', 'yyy', 1); PRAGMA writable_schema=ON; UPDATE sqlite_schema SET sql='CREATE TABLE c(c1 COLLATE string_compare, c2, c3)' WHERE name='c'");
            }
            let q = format!("{sql}; SELECT * FROM c; PRAGMA quick_check");
            outcomes.push(if engine == 0 {
                run_ref(&RefDb::open_path(p), &q)
            } else {
                let mut ours = ringlite::Connection::open(p, ringlite::OpenFlags(ringlite::OpenFlags::READWRITE)).unwrap();
                run_ours(&mut ours, &q)
            });
        }
        assert_eq!(outcomes[1], outcomes[0], "{sql}");
    }
}

/// A parameter whose Tcl array suffix is left open (`$abc(`, `$abc(x`,
/// or ended by a space) is one unrecognized token in SQLite, named up to
/// where its suffix stopped (main.test 3.2.9-10).
#[test]
fn parameters_with_an_open_tcl_suffix_are_unrecognized_tokens() {
    check_each(
        "CREATE TABLE t(a)",
        &[
            "select $abc(",
            "select $abc(x",
            "select $abc(x y)",
            "select :n(1 + 2",
            "select @v(",
            "select $a::b(",
            "select x$abc(",
            "select $(",
            "select abs(",
            "select $x + 1",
        ],
    );
}
