//! Transitive constraints (SQLite's equivalence classes of columns that a
//! WHERE term `a = b` joins, `optoverview.html`): generated two-table
//! queries whose equality between a column of each table pairs columns of
//! every affinity and collation (equivalent or not: TEXT against INT,
//! NOCASE against BINARY), written either way round, with a constraint
//! on the second table's column (`=`, ranges, BETWEEN, text against a
//! number), and chains through a third table. The rows must be SQLite's
//! for every query (in order where the plans agree); the plans are a
//! ratchet (other costs are not SQLite's yet).
use crate::sql_common;
use sql_common::{ours_open, plan_and_rows, run_ours, run_ref, RefDb};

const SCHEMA: &str = "CREATE TABLE t(id INTEGER PRIMARY KEY, a INT, b TEXT, c TEXT COLLATE NOCASE, r REAL, z);
CREATE INDEX ta ON t(a); CREATE INDEX tb ON t(b); CREATE INDEX tc ON t(c); CREATE INDEX tr ON t(r); CREATE INDEX tz ON t(z);
CREATE TABLE x(id INTEGER PRIMARY KEY, v INT, s TEXT, n TEXT COLLATE NOCASE, f REAL, w);
CREATE TABLE y(id INTEGER PRIMARY KEY, u INT, q TEXT);
CREATE INDEX yu ON y(u);
WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 30)
INSERT INTO t SELECT i, i % 7, CASE i % 3 WHEN 0 THEN '' || (i % 5) WHEN 1 THEN '0' || (i % 5) ELSE char(65 + i % 4) END,
  CASE i % 2 WHEN 0 THEN char(97 + i % 3) ELSE char(65 + i % 3) END, i / 2.0,
  CASE i % 4 WHEN 0 THEN i % 6 WHEN 1 THEN '' || (i % 6) WHEN 2 THEN (i % 6) * 1.0 END FROM k;
WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 20)
INSERT INTO x SELECT i, i % 5, '' || (i % 7), CASE i % 2 WHEN 0 THEN 'a' ELSE 'B' END, (i % 7) * 1.0,
  CASE i % 3 WHEN 0 THEN '' || (i % 7) WHEN 1 THEN i % 7 ELSE x'31' END FROM k;
WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 15)
INSERT INTO y SELECT i, i % 4, '' || (i % 4) FROM k;";

/// (column of t, column of x): equal affinities, both numeric, TEXT
/// against INT, both NOCASE, BINARY against NOCASE, no affinity, the
/// rowid.
const PAIRS: &[(&str, &str)] = &[
    ("t.a", "x.v"),
    ("t.a", "x.f"),
    ("t.r", "x.v"),
    ("t.a", "x.s"),
    ("t.b", "x.s"),
    ("t.c", "x.n"),
    ("t.b", "x.n"),
    ("t.c", "x.s"),
    ("t.z", "x.w"),
    ("t.id", "x.v"),
];

const CONSTRAINTS: &[&str] = &["{x} = 3", "{x} > 2", "{x} BETWEEN 1 AND 3", "{x} = '3'", "{x} < '2'", "{x} = 'a'", "{x} > 2 AND {x} < 5", "3 = {x}"];

fn queries() -> Vec<String> {
    let mut out = Vec::new();
    for (tc, xc) in PAIRS {
        for eq in [format!("{tc} = {xc}"), format!("{xc} = {tc}")] {
            for c in CONSTRAINTS {
                out.push(format!("SELECT t.id, x.id FROM t, x WHERE {eq} AND {}", c.replace("{x}", xc)));
            }
        }
    }
    for q in [
        "SELECT t.id, x.id, y.id FROM t, x, y WHERE t.a = x.v AND x.v = y.u AND y.u = 2",
        "SELECT t.id, x.id, y.id FROM t, x, y WHERE y.u = 2 AND x.v = y.u AND t.a = x.v",
        "SELECT t.id, x.id, y.id FROM t JOIN x ON t.a = x.v JOIN y ON y.u = x.v WHERE y.q > '1'",
        "SELECT t.id, x.id FROM t LEFT JOIN x ON t.a = x.v WHERE x.v = 3",
        "SELECT t.id, x.id FROM t LEFT JOIN x ON t.a = x.v AND x.v = 3",
        "SELECT t.id, x.id FROM t LEFT JOIN x ON x.v = 3 WHERE t.a = x.v",
        "SELECT t.id, x.id FROM t, x WHERE t.a = x.v AND x.v IN (1, 2)",
        "SELECT t.id, x.id FROM t, x WHERE t.a = x.v AND x.v = x.id",
        "SELECT t.id, x.id FROM t, x WHERE t.a = x.v AND x.v > t.id",
        "SELECT t.id FROM t WHERE t.a = t.id AND t.id = 3",
        "SELECT t.id, x.id FROM t, x WHERE t.a = x.v COLLATE NOCASE AND x.v = 3",
        "SELECT t.id, x.id FROM t, x WHERE t.b = x.s AND x.s = 3",
        "SELECT t.id, x.id FROM t, x WHERE +t.a = x.v AND x.v = 3",
    ] {
        out.push(q.to_string());
    }
    out
}

#[test]
fn transitive_constraints_as_sqlite() {
    let mut ours = ours_open();
    let reference = RefDb::open();
    run_ours(&mut ours, SCHEMA);
    run_ref(&reference, SCHEMA);
    let queries = queries();
    let (mut rows_differ, mut plans_differ) = (Vec::new(), Vec::new());
    for q in &queries {
        let got = plan_and_rows(&mut ours, &reference, q);
        if !got.same_plan() {
            plans_differ.push(got.plans(q));
        }
        rows_differ.extend(got.rows_differ);
    }
    assert!(rows_differ.is_empty(), "{} of {} differ:\n{}", rows_differ.len(), queries.len(), rows_differ.join("\n"));
    assert!(plans_differ.len() <= PLANS_DIFFER, "{} of {} plans differ:\n{}", plans_differ.len(), queries.len(), plans_differ.join("\n"));
}

const PLANS_DIFFER: usize = 22;
