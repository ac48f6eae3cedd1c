//! Index columns sorted by another collation than their table column
//! declares (`CREATE INDEX i ON t(n COLLATE NOCASE)` on a BINARY `n`, and
//! the reverse): a WHERE term can drive a search of such an index column
//! only when the comparison's collation is the index column's (SQLite's
//! `whereScanNext`), whatever the column declares. Equalities, ranges,
//! IN lists and joins, with COLLATE on either side: plans and rows must
//! be SQLite's for every query.
use crate::sql_common;
use sql_common::{ours_open, plan_and_rows, run_ours, run_ref, RefDb};

const SCHEMA: &str = "CREATE TABLE t(id INTEGER PRIMARY KEY, n TEXT, m TEXT COLLATE NOCASE, r TEXT);
CREATE INDEX tn ON t(n COLLATE NOCASE); CREATE INDEX tm ON t(m COLLATE BINARY); CREATE INDEX tr ON t(r COLLATE RTRIM, n);
CREATE TABLE u(id INTEGER PRIMARY KEY, k TEXT, j TEXT COLLATE NOCASE);
CREATE INDEX uk ON u(k); CREATE INDEX uk2 ON u(k COLLATE NOCASE);
WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 40)
INSERT INTO t SELECT i, CASE i % 4 WHEN 0 THEN 'ab' WHEN 1 THEN 'AB' WHEN 2 THEN 'Ab' ELSE 'cd' END,
  CASE i % 3 WHEN 0 THEN 'xy' WHEN 1 THEN 'XY' ELSE 'z' END, CASE i % 2 WHEN 0 THEN 'p ' ELSE 'p' END FROM c;
WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 12)
INSERT INTO u SELECT i, CASE i % 3 WHEN 0 THEN 'ab' WHEN 1 THEN 'AB' ELSE 'cd' END, CASE i % 2 WHEN 0 THEN 'xy' ELSE 'XY' END FROM c;";

const QUERIES: &[&str] = &[
    "SELECT id FROM t WHERE n = 'AB'",
    "SELECT id FROM t WHERE n = 'AB' COLLATE NOCASE",
    "SELECT id FROM t WHERE n COLLATE NOCASE = 'AB'",
    "SELECT id FROM t WHERE 'AB' = n",
    "SELECT id FROM t WHERE 'AB' COLLATE NOCASE = n",
    "SELECT id FROM t WHERE n > 'AB' COLLATE NOCASE",
    "SELECT id FROM t WHERE n BETWEEN 'a' COLLATE NOCASE AND 'b'",
    "SELECT id FROM t WHERE n > 'AB'",
    "SELECT id FROM t WHERE n IN ('AB', 'cd')",
    "SELECT id FROM t WHERE n COLLATE NOCASE IN ('ab', 'cd')",
    "SELECT id FROM t WHERE m = 'xy'",
    "SELECT id FROM t WHERE m = 'xy' COLLATE BINARY",
    "SELECT id FROM t WHERE m COLLATE BINARY = 'XY'",
    "SELECT id FROM t WHERE m < 'y' COLLATE BINARY",
    "SELECT id FROM t WHERE m IN ('xy', 'Z')",
    "SELECT id FROM t WHERE r = 'p'",
    "SELECT id FROM t WHERE r = 'p' COLLATE RTRIM",
    "SELECT id FROM t WHERE r = 'p' COLLATE RTRIM AND n = 'ab'",
    "SELECT id FROM t WHERE r COLLATE RTRIM = 'p' AND n = 'ab' COLLATE NOCASE",
    "SELECT id FROM t WHERE id = 5 COLLATE NOCASE",
    "SELECT id FROM t WHERE n = 'ab' COLLATE NOCASE ORDER BY n COLLATE NOCASE",
    "SELECT id FROM t WHERE n = 'ab' OR n = 'cd'",
    "SELECT id FROM u WHERE k = 'ab'",
    "SELECT id FROM u WHERE k = 'ab' COLLATE NOCASE",
    "SELECT id FROM u WHERE k COLLATE NOCASE > 'AB'",
    "SELECT t.id, u.id FROM t, u WHERE t.n = u.k",
    "SELECT t.id, u.id FROM t, u WHERE t.n = u.k COLLATE NOCASE",
    "SELECT t.id, u.id FROM t, u WHERE u.j = t.n AND u.id = 3",
    "SELECT t.id, u.id FROM t, u WHERE t.n = u.j AND u.id = 3",
    "SELECT t.id, u.id FROM u, t WHERE t.m = u.j AND u.id = 2",
    "SELECT t.id, u.id FROM u CROSS JOIN t WHERE t.n = u.j",
    "SELECT count(*) FROM t WHERE n = 'ab' COLLATE NOCASE AND m = 'xy'",
];

#[test]
fn index_collation_decides_usable_terms_as_sqlite() {
    let mut ours = ours_open();
    let reference = RefDb::open();
    run_ours(&mut ours, SCHEMA);
    run_ref(&reference, SCHEMA);
    let (mut rows_differ, mut plans_differ) = (Vec::new(), Vec::new());
    for q in QUERIES {
        let got = plan_and_rows(&mut ours, &reference, q);
        if !got.same_plan() {
            plans_differ.push(got.plans(q));
        }
        rows_differ.extend(got.rows_differ);
    }
    assert!(rows_differ.is_empty(), "{} of {} differ:\n{}", rows_differ.len(), QUERIES.len(), rows_differ.join("\n"));
    assert!(plans_differ.is_empty(), "{} of {} plans differ:\n{}", plans_differ.len(), QUERIES.len(), plans_differ.join("\n"));
}
