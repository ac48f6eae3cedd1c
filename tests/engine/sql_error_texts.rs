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
