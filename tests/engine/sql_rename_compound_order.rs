//! ALTER TABLE ... RENAME checks every view again: a compound view whose
//! ORDER BY term is an expression matching no arm's result column (as
//! written) fails it with SQLite's "error in view" message, as a bare
//! name matching nothing does (a COLLATE on the term included: SQLite
//! matches it as written); terms that match, and column numbers, pass.
use crate::sql_common::check_each;

#[test]
fn rename_refuses_compound_views_with_unmatched_order_terms() {
    check_each(
        "CREATE TABLE t(x, y);",
        &[
            "CREATE VIEW ok1 AS SELECT x + 1 FROM t UNION SELECT y FROM t ORDER BY x + 1",
            "CREATE VIEW ok2 AS SELECT x + 1 FROM t UNION SELECT y FROM t UNION SELECT y FROM t ORDER BY x+1",
            "CREATE VIEW ok3 AS SELECT x FROM t UNION SELECT y FROM t ORDER BY 1",
            "CREATE TABLE a0 AS SELECT 0",
            "ALTER TABLE a0 RENAME TO s1",
            "CREATE VIEW a AS SELECT NULL INTERSECT SELECT NULL ORDER BY s() OVER r",
            "ALTER TABLE s1 RENAME TO s2",
            "DROP VIEW a",
            "CREATE VIEW b AS SELECT x FROM t UNION SELECT y FROM t ORDER BY x * 2",
            "ALTER TABLE s1 RENAME TO s2",
            "DROP VIEW b",
            "CREATE VIEW c AS SELECT x + 1 FROM t UNION SELECT y FROM t ORDER BY x + 1 COLLATE nocase",
            "ALTER TABLE s1 RENAME TO s2",
            "DROP VIEW c",
            "ALTER TABLE s1 RENAME TO s2",
        ],
    );
}

/// A compound's ORDER BY expression may be a later SELECT's result
/// expression, matched as written (COLLATE included), as on SQLite.
#[test]
fn compound_order_by_matches_later_arms_expressions() {
    check_each(
        "CREATE TABLE t(x, y); INSERT INTO t VALUES(1, 5), (4, 2), (3, 3);",
        &[
            "SELECT x FROM t UNION SELECT y + 2 FROM t ORDER BY y + 2",
            "SELECT x FROM t UNION ALL SELECT y * 2 FROM t ORDER BY y * 2 DESC",
            "SELECT x + 1 FROM t UNION SELECT y FROM t ORDER BY x + 1 COLLATE nocase",
            "SELECT x FROM t UNION SELECT y + 2 FROM t ORDER BY y + 2 COLLATE nocase",
            "SELECT x + 1 FROM t UNION SELECT y FROM t UNION SELECT y FROM t ORDER BY x+1",
            "SELECT x FROM t UNION SELECT y FROM t ORDER BY x * 2",
            "SELECT x, y FROM t UNION SELECT y, x - y FROM t ORDER BY x - y, 1",
        ],
    );
}
