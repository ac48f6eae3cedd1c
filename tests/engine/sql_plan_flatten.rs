//! Views and FROM subqueries that only project a table's leading columns
//! are flattened, as SQLite flattens them: the outer query reads the
//! table itself (its indexes, its rowid), and EXPLAIN QUERY PLAN shows
//! the table (or the body's alias of it), with no MATERIALIZE line. Every
//! query's plan and rows (names included, in order) must be SQLite's;
//! the statements that must not flatten (DML, a RIGHT JOIN, an aggregate
//! over a LEFT JOIN's right table) must still give SQLite's rows.
use crate::sql_common;
use sql_common::{check_each_unordered, ours_open, plan_and_rows, run_ours, run_ref, RefDb};

const SCHEMA: &str = "CREATE TABLE t(id INTEGER PRIMARY KEY, a INT, b TEXT, c REAL);
CREATE INDEX ta ON t(a);
CREATE TABLE u(id INTEGER PRIMARY KEY, ta INT, w INT);
CREATE INDEX uw ON u(w);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 120)
INSERT INTO t SELECT i, i % 13, 'b' || (i % 4), i / 2.0 FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40)
INSERT INTO u SELECT i, i % 20, i % 7 FROM n;
CREATE VIEW v AS SELECT id, a, b FROM t;
CREATE VIEW vstar AS SELECT * FROM t;
CREATE VIEW vx AS SELECT x.id, x.a FROM t AS x;
CREATE VIEW vrenamed AS SELECT id AS k, a FROM t;
CREATE VIEW vcase AS SELECT ID, A FROM t;
CREATE VIEW vskip AS SELECT id, b FROM t;
CREATE VIEW vv AS SELECT id, a FROM v;";

/// Plans that must be SQLite's (flattened or not).
const QUERIES: &[&str] = &[
    "SELECT * FROM v WHERE a = 3",
    "SELECT * FROM v WHERE id = 5",
    "SELECT * FROM v AS z WHERE z.a = 4 ORDER BY z.id DESC",
    "SELECT * FROM vstar WHERE c > 50",
    "SELECT a, count(*) FROM v GROUP BY a",
    "SELECT count(*) FROM v",
    "SELECT max(a) FROM vstar",
    "SELECT * FROM vx WHERE a = 2",
    "SELECT * FROM (SELECT id, a FROM t) WHERE a = 1",
    "SELECT * FROM (SELECT id, a FROM t AS q) AS s WHERE s.a > 10",
    "SELECT s.* FROM (SELECT * FROM t) AS s WHERE s.id BETWEEN 3 AND 6",
    "SELECT * FROM u, v WHERE v.id = u.ta AND u.w = 2",
    "SELECT * FROM v, u WHERE v.a = u.w",
    "SELECT * FROM u LEFT JOIN v ON v.id = u.ta",
    "SELECT u.id, v.a FROM u LEFT JOIN v ON v.a = u.w WHERE u.id < 5",
    "SELECT u.id, count(v.a) FROM u LEFT JOIN v ON v.a = u.w GROUP BY u.id",
    "SELECT * FROM v, v AS w WHERE v.id = w.a",
    "SELECT * FROM u WHERE ta IN (SELECT a FROM v WHERE id > 100)",
    "SELECT (SELECT b FROM v WHERE v.id = u.ta) FROM u",
    "SELECT * FROM vcase WHERE a = 3",
    "SELECT * FROM vv WHERE a = 3",
    "SELECT id + 1, a * 2 AS d, b FROM v WHERE a = 5 ORDER BY b",
    "SELECT DISTINCT a FROM v",
    "SELECT * FROM v WHERE b = 'b1'",
    "SELECT * FROM (SELECT * FROM v) WHERE a = 7",
];

#[test]
fn projections_of_one_table_flatten_as_sqlite() {
    let mut ours = ours_open();
    let reference = RefDb::open();
    run_ours(&mut ours, SCHEMA);
    run_ref(&reference, SCHEMA);
    let extra = std::env::var("FLATTEN_QUERIES").unwrap_or_default();
    let queries: Vec<&str> = QUERIES.iter().copied().chain(extra.split(';').filter(|q| !q.trim().is_empty())).collect();
    let mut differ = Vec::new();
    for q in &queries {
        let got = plan_and_rows(&mut ours, &reference, q);
        if !got.same_plan() {
            differ.push(got.plans(q));
        }
        assert!(got.rows_differ.is_none(), "{}", got.rows_differ.unwrap_or_default());
    }
    assert!(differ.is_empty(), "{} of {} plans differ:\n{}", differ.len(), queries.len(), differ.join("\n"));
}

/// What a flattened item does not have, and the statements that read a
/// view while they write its table, give SQLite's answers.
#[test]
fn flattened_items_keep_view_semantics() {
    check_each_unordered(
        SCHEMA,
        &[
            "SELECT * FROM u RIGHT JOIN v ON v.id = u.ta",
            "SELECT * FROM vrenamed WHERE a = 3",
            "SELECT * FROM vskip WHERE id = 3",
            "SELECT * FROM vskip NATURAL JOIN u",
            "SELECT * FROM v NATURAL JOIN vskip",
            "SELECT * FROM v JOIN vx USING (id, a)",
            "SELECT rowid FROM v",
            "SELECT c FROM v",
            "SELECT v.c FROM v",
            "SELECT * FROM v, v",
            "SELECT id FROM v, u",
            "SELECT k, a FROM vrenamed WHERE k < 3",
            "INSERT INTO t(a, b) SELECT a + 100, b FROM v WHERE id < 5",
            "SELECT count(*), sum(a) FROM t",
            "UPDATE t SET a = (SELECT max(a) FROM v WHERE v.id < t.id) WHERE id > 115",
            "SELECT id, a FROM t WHERE id > 110",
            "DELETE FROM t WHERE id IN (SELECT id FROM v WHERE a = 200)",
            "SELECT count(*) FROM v",
            "PRAGMA full_column_names = 1",
            "PRAGMA short_column_names = 0",
            "SELECT * FROM v WHERE id = 1",
            "SELECT v.a, b FROM v WHERE id = 1",
        ],
    );
}
