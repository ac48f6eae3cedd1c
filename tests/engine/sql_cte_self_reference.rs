//! CTEs that read themselves, differentially against SQLite: recursive
//! with or without the RECURSIVE keyword, and the "circular reference"
//! errors that must come out instead of an endless expansion (TCL files
//! with1, with3, unionall, cachespill, e_changes hung on these).
use crate::sql_common;
use sql_common::check_each;

const SETUP: &str = "CREATE TABLE t1(x); INSERT INTO t1 VALUES(1),(2);
CREATE TABLE tree(i, p); INSERT INTO tree VALUES(1, NULL),(2, 1),(3, 1),(4, 2),(5, 4);";

#[test]
fn self_reference_without_recursive_keyword() {
    check_each(
        SETUP,
        &[
            "WITH s(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM s WHERE i<5) SELECT i FROM s",
            "WITH rows(i, j) AS (SELECT 1, 1 UNION ALL SELECT i+1, j+i FROM rows WHERE i<10) SELECT * FROM rows",
            "WITH t(id) AS (VALUES(2) UNION ALL SELECT i FROM tree, t WHERE p = id) SELECT id FROM t",
            "WITH s(i) AS (VALUES(1) UNION ALL VALUES(2) UNION ALL SELECT i+10 FROM s WHERE i<20) SELECT i FROM s",
            "WITH s(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM s WHERE i<3) \
             SELECT * FROM (SELECT 0 AS i UNION ALL SELECT i FROM s UNION ALL SELECT 0), t1 WHERE x=i",
        ],
    );
}

#[test]
fn circular_references_are_errors() {
    check_each(
        SETUP,
        &[
            "WITH tmp2(x) AS (SELECT * FROM tmp1), tmp1(a) AS (SELECT * FROM tmp2) SELECT * FROM tmp1",
            "WITH s(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM s WHERE i<3 UNION ALL SELECT 4) SELECT * FROM s",
            "WITH t(id) AS (VALUES(2) UNION ALL SELECT i FROM tree WHERE p IN (SELECT id FROM t)) SELECT id FROM t",
            "WITH t(id) AS (SELECT i FROM tree WHERE 2 IN (SELECT id FROM t) UNION ALL SELECT i FROM tree, t WHERE p = id) SELECT id FROM t",
            "WITH t AS (SELECT * FROM t) SELECT * FROM t",
            "WITH tmp2(x) AS (SELECT * FROM tmp1), tmp1(a) AS (SELECT * FROM t1) SELECT * FROM tmp2",
        ],
    );
}
