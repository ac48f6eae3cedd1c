//! LEFT JOIN strength reduction (SQLite's `sqlite3ExprImpliesNonNullRow`):
//! generated queries whose WHERE clause tests the right table of a LEFT
//! JOIN in the ways that reject its NULL row (`IS NOT NULL`, comparisons,
//! IN, BETWEEN, arithmetic, NOT, an inner join's ON clause) and those
//! that do not (`IS NULL`, `IS`, functions, CASE, OR with another table,
//! subqueries, a NOT NULL test that is not the first leaf of its AND, as
//! SQLite misses it), with the terms before, after or around others.
//! Whether each join stays an outer join (the plan's `LEFT-JOIN` marks)
//! must be SQLite's for every query, and the rows too (in order where
//! the plans agree); the plans themselves are a ratchet, since a reduced
//! join is ordered by the inner-join costs, which are not SQLite's yet.
use crate::sql_common;
use sql_common::{ours_open, plan_and_rows, run_ours, run_ref, RefDb};

const SCHEMA: &str = "CREATE TABLE t(id INTEGER PRIMARY KEY, a INT, b TEXT);
CREATE INDEX ta ON t(a);
CREATE TABLE x(id INTEGER PRIMARY KEY, tid INT, v INT);
CREATE INDEX xt ON x(tid);
CREATE TABLE y(id INTEGER PRIMARY KEY, xid INT, w INT);
CREATE INDEX yx ON y(xid);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40)
INSERT INTO t SELECT i, i % 5, 'b' || (i % 3) FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 60)
INSERT INTO x SELECT i, (i * 7) % 50, CASE WHEN i % 4 THEN i % 6 END FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 30)
INSERT INTO y SELECT i, (i * 3) % 70, i % 3 FROM n;";

/// FROM clauses: (text, a column of the table that may be NULL-filled, a
/// column of the other side).
const FROMS: &[(&str, &str, &str)] = &[
    ("t LEFT JOIN x ON x.tid = t.id", "x.v", "t.a"),
    ("x LEFT JOIN t ON t.id = x.tid", "t.a", "x.v"),
    ("t LEFT JOIN x ON x.tid = t.id LEFT JOIN y ON y.xid = x.id", "y.w", "t.a"),
    ("t LEFT JOIN x ON x.tid = t.id AND x.v > 2", "x.v", "t.a"),
    ("t LEFT JOIN x USING (id)", "x.v", "t.a"),
];

/// WHERE terms on the right column `{r}` (and the other side's `{l}`).
const WHERES: &[&str] = &[
    "{r} IS NOT NULL",
    "{r} NOTNULL",
    "{r} = 3",
    "{r} > 2",
    "{r} <> 1",
    "{r} IN (1, 2)",
    "{r} NOT IN (1, 2)",
    "{r} BETWEEN 1 AND 3",
    "{r} IS NULL",
    "{r} IS 3",
    "coalesce({r}, 0) = 0",
    "{r} + 1 > 2",
    "NOT {r}",
    "{r} = 3 OR {l} = 1",
    "({r} = 3 OR {r} = 4)",
    "likely({r} = 3)",
    "CASE WHEN {r} THEN 1 END",
    "{r} LIKE '1%'",
    "({r} > 1) = 1",
    "{r} IN (SELECT 1)",
    "EXISTS (SELECT 1 WHERE {r})",
    "{r} = {l}",
    "{r} + 1 IS NOT NULL",
    "-{r} < 0",
    "CAST({r} AS TEXT) = '3'",
    "{r} = 3 COLLATE NOCASE",
];

/// Where the term stands among others (SQLite looks at the first leaf of
/// an AND otherwise than at the last).
const SHAPES: &[&str] = &["{w}", "{l} = 1 AND {w}", "{w} AND {l} = 1", "{l} > 0 AND {w} AND {l} < 4"];

fn queries() -> Vec<String> {
    let mut out = Vec::new();
    for (from, r, l) in FROMS {
        for w in WHERES {
            let term = w.replace("{r}", r).replace("{l}", l);
            for s in SHAPES {
                out.push(format!("SELECT * FROM {from} WHERE {}", s.replace("{w}", &term).replace("{l}", l)));
            }
        }
    }
    for q in [
        "SELECT * FROM t LEFT JOIN x ON x.tid = t.id JOIN y ON y.xid = x.id",
        "SELECT * FROM t LEFT JOIN x ON x.tid = t.id JOIN y ON y.xid = coalesce(x.id, 5)",
        "SELECT * FROM t LEFT JOIN x ON x.tid = t.id JOIN y ON y.w = 1 AND y.xid = x.id",
        "SELECT * FROM t LEFT JOIN x ON x.tid = t.id LEFT JOIN y ON y.xid = x.id WHERE y.w = 1 AND x.v = 2",
        "SELECT t.id, count(x.id) FROM t LEFT JOIN x ON x.tid = t.id WHERE x.v > 1 GROUP BY t.id",
        "SELECT DISTINCT t.a FROM t LEFT JOIN x ON x.tid = t.id WHERE x.v = 2",
        "SELECT count(*) FROM t LEFT JOIN x ON x.tid = t.id WHERE x.v IS NOT NULL",
        "SELECT * FROM t LEFT JOIN x ON x.tid = t.id WHERE x.v > 1 ORDER BY t.a, t.id, x.id",
        "SELECT * FROM t RIGHT JOIN x ON x.tid = t.id WHERE t.a = 1",
        "SELECT * FROM t LEFT JOIN x ON x.tid = t.id FULL JOIN y ON y.xid = x.id WHERE x.v = 1",
    ] {
        out.push(q.to_string());
    }
    out
}

fn left_joins(plan: &[String]) -> usize {
    plan.iter().filter(|l| l.contains("LEFT-JOIN")).count()
}

#[test]
fn left_joins_reduced_as_sqlite_reduces_them() {
    let mut ours = ours_open();
    let reference = RefDb::open();
    run_ours(&mut ours, SCHEMA);
    run_ref(&reference, SCHEMA);
    let queries = queries();
    let (mut kinds_differ, mut rows_differ, mut plans_differ) = (Vec::new(), Vec::new(), Vec::new());
    let mut reduced = 0;
    for q in &queries {
        let got = plan_and_rows(&mut ours, &reference, q);
        reduced += (left_joins(&got.reference) < q.matches("LEFT JOIN").count()) as usize;
        if left_joins(&got.ours) != left_joins(&got.reference) {
            kinds_differ.push(got.plans(q));
        }
        if !got.same_plan() {
            plans_differ.push(got.plans(q));
        }
        if got.rows_differ.is_some() {
            rows_differ.push(q.clone());
        }
    }
    assert!(kinds_differ.is_empty(), "{} of {} join kinds differ:\n{}", kinds_differ.len(), queries.len(), kinds_differ.join("\n"));
    assert!(rows_differ.is_empty(), "{} of {} differ:\n{}", rows_differ.len(), queries.len(), rows_differ.join("\n"));
    assert!(reduced > queries.len() / 3, "only {reduced} reduced joins");
    // A ratchet: OR terms whose AND branches read another table (6),
    // automatic indexes with Bloom filters (4), ORDER BY, RIGHT and FULL
    // joins reduced (one each).
    assert!(plans_differ.len() <= PLANS_DIFFER, "{} of {} plans differ:\n{}", plans_differ.len(), queries.len(), plans_differ.join("\n"));
}

const PLANS_DIFFER: usize = 15;
