//! `PRAGMA integrity_check` and `quick_check` beyond the B-tree structure,
//! differentially against SQLite: each case builds a file with the
//! reference, damages it through `writable_schema` (so every B-tree stays
//! valid and only the table/index agreement is wrong), and then both
//! engines check the same bytes.

use crate::sql_common;

use ringlite::{Connection, OpenFlags};
use sql_common::{run_ours, run_ref, Outcome, RefDb, V};

/// Build `setup` with the reference, apply `damage` with writable_schema
/// on, and compare what both engines answer to each of `checks`.
fn check_damage(setup: &str, damage: &str, checks: &[&str]) {
    check_damage_written(false, setup, damage, checks);
}

/// [`check_damage`] with the rows of `setup` written by ringlite when
/// `ours` (the damage is still the reference's).
fn check_damage_written(ours: bool, setup: &str, damage: &str, checks: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.db");
    let p = path.to_str().unwrap();
    if ours {
        let mut db = Connection::open(p, OpenFlags(OpenFlags::READWRITE | OpenFlags::CREATE)).unwrap();
        for o in run_ours(&mut db, setup) {
            assert!(!matches!(o, Outcome::Error { .. }), "setup failed: {o:?}");
        }
    }
    {
        let db = RefDb::open_path(p);
        if !ours {
            for o in run_ref(&db, setup) {
                assert!(!matches!(o, Outcome::Error { .. }), "setup failed: {o:?}");
            }
        }
        let d = format!("PRAGMA writable_schema=ON; {damage}; PRAGMA writable_schema=OFF;");
        for o in run_ref(&db, &d) {
            assert!(!matches!(o, Outcome::Error { .. }), "damage failed: {o:?}");
        }
    }
    for sql in checks {
        let expected = run_ref(&RefDb::open_path(p), sql);
        let mut ours = Connection::open(p, OpenFlags(OpenFlags::READWRITE)).unwrap();
        let got = run_ours(&mut ours, sql);
        assert_eq!(readable(&got), readable(&expected), "{sql}");
    }
}

/// Rows as text lines, so a failure shows the messages.
fn readable(o: &[Outcome]) -> Vec<String> {
    o.iter()
        .flat_map(|o| match o {
            Outcome::Rows { rows, .. } => rows
                .iter()
                .map(|r| {
                    r.iter()
                        .map(|v| match v {
                            V::Text(t) => String::from_utf8_lossy(t).into_owned(),
                            other => format!("{other:?}"),
                        })
                        .collect::<Vec<_>>()
                        .join("|")
                })
                .collect::<Vec<_>>(),
            Outcome::Error { code, message } => vec![format!("error {code}: {message}")],
        })
        .collect()
}

const CHECKS: &[&str] = &["PRAGMA integrity_check", "PRAGMA quick_check", "PRAGMA integrity_check(2)", "PRAGMA main.integrity_check(t)"];

const SETUP: &str = "CREATE TABLE t(a, b, c); CREATE INDEX ia ON t(a); CREATE INDEX ic ON t(c);
    INSERT INTO t VALUES(1, 'x', 10), (2, 'y', 20), (3, NULL, 20), (NULL, 'w', NULL);
    CREATE TABLE u(k INTEGER PRIMARY KEY, v); CREATE INDEX iv ON u(v); INSERT INTO u VALUES(5, 'five'), (7, 'seven');";

#[test]
fn undamaged_files_are_ok() {
    check_damage(SETUP, "SELECT 1", CHECKS);
}

#[test]
fn index_on_another_column_misses_every_row() {
    check_damage(SETUP, "UPDATE sqlite_schema SET sql='CREATE INDEX ia ON t(b)' WHERE name='ia'", CHECKS);
}

#[test]
fn index_turned_partial_has_too_many_entries() {
    check_damage(SETUP, "UPDATE sqlite_schema SET sql='CREATE INDEX ia ON t(a) WHERE a>1' WHERE name='ia'", CHECKS);
}

#[test]
fn index_turned_unique_has_duplicates() {
    check_damage(SETUP, "UPDATE sqlite_schema SET sql='CREATE UNIQUE INDEX ic ON t(c)' WHERE name='ic'", CHECKS);
}

#[test]
fn column_turned_not_null_holds_nulls() {
    check_damage(SETUP, "UPDATE sqlite_schema SET sql='CREATE TABLE t(a, b NOT NULL, c)' WHERE name='t'", CHECKS);
}

#[test]
fn rowid_table_index_errors_in_several_tables() {
    check_damage(
        SETUP,
        "UPDATE sqlite_schema SET sql='CREATE INDEX iv ON u(k)' WHERE name='iv';
         UPDATE sqlite_schema SET sql='CREATE INDEX ia ON t(c)' WHERE name='ia'",
        CHECKS,
    );
}

#[test]
fn partial_index_turned_full_misses_rows() {
    check_damage(
        "CREATE TABLE t(a, b); CREATE INDEX ia ON t(a) WHERE a>1; INSERT INTO t VALUES(1, 'x'), (2, 'y'), (3, NULL), (NULL, 'w');",
        "UPDATE sqlite_schema SET sql='CREATE INDEX ia ON t(a)' WHERE name='ia'",
        CHECKS,
    );
}

#[test]
fn index_over_an_emptied_table() {
    check_damage(
        "CREATE TABLE t(a, b); INSERT INTO t VALUES(1, 'x'), (2, 'y'); CREATE TABLE t2(a, b); CREATE INDEX ia ON t2(a); INSERT INTO t2 VALUES(1, 'x'), (2, 'y'), (3, 'z');",
        "UPDATE sqlite_schema SET tbl_name='t', sql='CREATE INDEX ia ON t(a)' WHERE name='ia'",
        CHECKS,
    );
}

#[test]
fn two_damaged_indexes_of_one_table_report_row_by_row() {
    check_damage(
        SETUP,
        "UPDATE sqlite_schema SET sql='CREATE INDEX ia ON t(b)' WHERE name='ia';
         UPDATE sqlite_schema SET sql='CREATE INDEX ic ON t(a)' WHERE name='ic'",
        &["PRAGMA integrity_check", "PRAGMA integrity_check(1)", "PRAGMA integrity_check(3)", "PRAGMA integrity_check(u)"],
    );
}

#[test]
fn check_constraints_and_strict_types() {
    check_damage(
        "CREATE TABLE c(x, y); INSERT INTO c VALUES(1, 'a'), (-5, 2.5), (NULL, x'00');",
        "UPDATE sqlite_schema SET sql='CREATE TABLE c(x INT CHECK(x>0), y TEXT) STRICT' WHERE name='c'",
        CHECKS,
    );
}

#[test]
fn strict_and_affinity_types_of_every_storage_class() {
    // Each storage class in a column of each STRICT type, and in columns
    // of each affinity of an ordinary table (the checks test the stored
    // class of every value: an integer, a real, texts that do and do not
    // look like numbers, a blob, NULL).
    check_damage(
        "CREATE TABLE s(i, r, t, b, a, n);
         INSERT INTO s VALUES(1, 1, 1, 1, 1, 1), (2.5, 2.5, 2.5, 2.5, 2.5, 2.5), ('3', '3', '3', '3', '3', '3'),
           ('x', 'x', 'x', 'x', 'x', 'x'), (x'04', x'04', x'04', x'04', x'04', x'04'), (NULL, NULL, NULL, NULL, NULL, NULL);
         CREATE TABLE o(i, r, t, b, n);
         INSERT INTO o VALUES(1, 1, 1, 1, 1), (2.5, 2.5, 2.5, 2.5, 2.5), ('3', '3', '3', '3', '3'), (' 4 ', ' 4 ', ' 4 ', ' 4 ', ' 4 '),
           ('x', 'x', 'x', 'x', 'x'), (x'04', x'04', x'04', x'04', x'04'), (NULL, NULL, NULL, NULL, NULL);",
        "UPDATE sqlite_schema SET sql='CREATE TABLE s(i INT, r REAL, t TEXT, b BLOB, a ANY, n INTEGER NOT NULL) STRICT' WHERE name='s';
         UPDATE sqlite_schema SET sql='CREATE TABLE o(i INTEGER, r REAL, t TEXT, b BLOB, n NUMERIC)' WHERE name='o'",
        &["PRAGMA integrity_check", "PRAGMA quick_check", "PRAGMA integrity_check(5)", "PRAGMA main.integrity_check(o)"],
    );
}

#[test]
fn unique_index_with_nulls_and_collations() {
    check_damage(
        "CREATE TABLE t(a, b); CREATE INDEX ib ON t(b COLLATE NOCASE DESC);
         INSERT INTO t VALUES(NULL, 'x'), (NULL, 'x'), (1, 'X'), (1, 'y'), (2, 'Y');",
        "UPDATE sqlite_schema SET sql='CREATE UNIQUE INDEX ib ON t(b COLLATE NOCASE DESC)' WHERE name='ib'",
        CHECKS,
    );
}

#[test]
fn every_affinity_and_storage_class_first_middle_last() {
    // Each storage class (and texts that do or do not look like numbers)
    // under each affinity, the checked column first, in the middle or
    // last, several per row: SQLite reports a row's type errors from a
    // header cache that an error row leaves stale, so after errors the
    // columns past the last one it re-read go unchecked; rows written by
    // either engine.
    let values = ["1", "2.5", "'3'", "' 4 '", "'7.0'", "'1e2'", "'0x10'", "'x'", "x'04'", "NULL"];
    for ty in ["INTEGER", "REAL", "NUMERIC", "TEXT", "BLOB", "INTEGER NOT NULL", "TEXT DEFAULT 5", "INT DEFAULT 'x'"] {
        for (cols, decl) in [
            ("c, p, q", format!("c {ty}, p INT, q TEXT")),
            ("p, c, q", format!("p INT, c {ty}, q TEXT")),
            ("p, q, c", format!("p INT, q TEXT, c {ty}")),
            ("p, q, r, c", format!("p INT, q REAL, r NUMERIC, c {ty}")),
        ] {
            let rows: Vec<String> = values.iter().flat_map(|v| [format!("({v}, {v}, {v})"), format!("({v}, '9', 9)")]).collect();
            let rows4: Vec<String> = values.iter().map(|v| format!("('1', '2', '3', {v})")).collect();
            let body = if cols.len() > 7 { rows4.join(", ") } else { rows.join(", ") };
            let setup = format!("CREATE TABLE o({cols}); INSERT INTO o VALUES {body};");
            let damage = format!("UPDATE sqlite_schema SET sql='CREATE TABLE o({})' WHERE name='o'", decl.replace('\'', "''"));
            for ours in [false, true] {
                check_damage_written(ours, &setup, &damage, &["PRAGMA integrity_check", "PRAGMA quick_check", "PRAGMA integrity_check(3)"]);
            }
        }
    }
}

#[test]
fn strict_errors_after_a_stale_header() {
    // A NOT NULL column holding a REAL or NULL is read to be tested, which
    // re-parses SQLite's stale header cache only up to it.
    for ours in [false, true] {
        check_damage_written(
            ours,
            "CREATE TABLE s(a, b, c, d); INSERT INTO s VALUES('x', 1.5, 'y', 'z'), (NULL, NULL, 2, x'01'), (1, 2, 3, 4);",
            "UPDATE sqlite_schema SET sql='CREATE TABLE s(a INT, b REAL NOT NULL, c TEXT, d INT) STRICT' WHERE name='s'",
            CHECKS_S,
        );
    }
}

const CHECKS_S: &[&str] = &["PRAGMA integrity_check", "PRAGMA quick_check", "PRAGMA integrity_check(2)", "PRAGMA main.integrity_check(s)"];

#[test]
fn stored_generated_and_not_null_columns_after_errors() {
    for ours in [false, true] {
        check_damage_written(
            ours,
            "CREATE TABLE g(a, b, c AS (b) STORED, d, e AS (d) VIRTUAL); INSERT INTO g(a, b, d) VALUES('1', NULL, NULL), ('2', '3', 4.5), (5, 6, NULL);",
            "UPDATE sqlite_schema SET sql='CREATE TABLE g(a INT, b INT, c INT NOT NULL AS (b) STORED, d NOT NULL, e INT NOT NULL AS (d) VIRTUAL)' WHERE name='g'",
            &["PRAGMA integrity_check", "PRAGMA quick_check", "PRAGMA integrity_check(2)"],
        );
    }
}

/// `integrity_check(t)`/`quick_check(t)` check only the trees of `t`, as
/// SQLite's partial check does: pages other trees hold are not "never
/// used", and a tree shared with another table is not referenced twice
/// (strict2.test points two tables at one root).
#[test]
fn one_table_check_is_partial() {
    check_damage(
        "CREATE TABLE t1(a INT, b INTEGER, c TEXT, d REAL, e BLOB) STRICT; CREATE TABLE t2(a, b, c, d, e);
         CREATE TABLE t3(x); CREATE INDEX i3 ON t3(x); INSERT INTO t3 VALUES(1), (2);
         INSERT INTO t1 VALUES(1, 1, 'one', 1.0, x'b1'), (2, 2, 'two', 2.25, x'b2b2b2');",
        "UPDATE sqlite_schema SET rootpage=(SELECT rootpage FROM sqlite_schema WHERE name='t1') WHERE name='t2'",
        &[
            "PRAGMA quick_check('t1')",
            "PRAGMA integrity_check('t1')",
            "PRAGMA integrity_check('t3')",
            "PRAGMA integrity_check",
            "UPDATE t2 SET a = 2.5 WHERE b = 2; PRAGMA quick_check('t1')",
            "UPDATE t2 SET c = 5 WHERE b = 2; PRAGMA integrity_check(t1)",
        ],
    );
}

/// A table turned STRICT holding a NULL in its (not INTEGER) PRIMARY KEY:
/// STRICT makes that column NOT NULL (strict2.test 3.0).
#[test]
fn strict_primary_key_holding_null() {
    check_damage(
        "CREATE TABLE t1(id ANY PRIMARY KEY, x TEXT); INSERT INTO t1 VALUES(1,2),('three','four'),(x'5555','six'),(NULL,'eight');",
        "UPDATE sqlite_schema SET sql=(sql||'STRICT') WHERE name='t1'",
        &["PRAGMA integrity_check(t1)", "PRAGMA integrity_check", "PRAGMA quick_check"],
    );
}
