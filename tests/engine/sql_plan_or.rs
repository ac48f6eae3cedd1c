//! OR terms answered by several indexes (SQLite's MULTI-INDEX OR):
//! generated queries whose WHERE has an OR of lookups on different
//! columns, the rowid, ranges, IN lists, AND branches and branches no
//! index serves, alone, with other terms, with ORDER BY, LIMIT, in joins
//! and in UPDATE/DELETE. The EXPLAIN QUERY PLAN details and the rows
//! must be the reference's, rows compared in the order returned (a
//! MULTI-INDEX OR returns them branch by branch).
use crate::sql_common;
use sql_common::{ours_open, plan_details, run_ours, run_ref, Outcome, RefDb};

const SCHEMA: &str = "CREATE TABLE t(id INTEGER PRIMARY KEY, a INT, b TEXT, c INT, d INT, e INT, f INT);
CREATE INDEX ta ON t(a); CREATE INDEX tb ON t(b); CREATE INDEX tcd ON t(c, d); CREATE UNIQUE INDEX te ON t(e);
CREATE TABLE w(k TEXT PRIMARY KEY, x INT, y INT, z) WITHOUT ROWID;
CREATE INDEX wx ON w(x); CREATE INDEX wy ON w(y);
CREATE TABLE u(p INT, q INT);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300)
INSERT INTO t SELECT i, (i * 7) % 13, 'b' || (i % 7), i % 5, i % 11, 1000 - i, i % 3 FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 120)
INSERT INTO w SELECT 'k' || (i * 37 % 120), i % 9, i % 4, i FROM n;
INSERT INTO u VALUES(1, 2), (3, 4), (5, 5), (12, 0), (7, 999);";

/// A small deterministic generator (the queries are the same each run).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len() as u64) as usize]
    }
}

/// One branch of an OR on table `t`: a lookup on some column (or none),
/// with the column group it reads (ORs of one column are SQLite's IN,
/// not generated here).
fn t_branch(g: &mut Lcg) -> (u64, String) {
    let n = g.below(13);
    let m = g.below(11);
    let kind = g.below(12);
    let group = match kind {
        0 | 1 | 6 | 7 | 10 => 0,
        3 | 4 => 3,
        5 | 8 => 5,
        k => k,
    };
    let text = match kind {
        0 | 1 => format!("a = {n}"),
        2 => format!("b = 'b{}'", n % 7),
        3 => format!("c = {}", n % 5),
        4 => format!("(c = {} AND d = {m})", n % 5),
        5 => format!("id = {}", n * 20 + m),
        6 => format!("a > {n}"),
        7 => format!("a BETWEEN {m} AND {}", m + 2),
        8 => format!("id < {}", n + 3),
        9 => format!("e = {}", 990 - n),
        10 => format!("a IN ({n}, {m})"),
        _ => format!("f = {}", n % 3),
    };
    (group, text)
}

fn or_queries() -> Vec<String> {
    let mut g = Lcg(0x005e_ed0f_u64);
    let mut out = Vec::new();
    let heads = ["SELECT * FROM t", "SELECT id, a, b FROM t", "SELECT count(*), sum(id) FROM t", "SELECT id FROM t"];
    let tails = ["", " ORDER BY id", " ORDER BY c", " LIMIT 5", " ORDER BY b, id"];
    let extras = ["", "", "", " AND c > 1", " AND f = 1", " AND id > 100", " AND d = 3"];
    for _ in 0..260 {
        let k = 2 + g.below(2);
        let mut groups = Vec::new();
        let mut branches = Vec::new();
        while branches.len() < k as usize {
            let (group, text) = t_branch(&mut g);
            if !groups.contains(&group) {
                groups.push(group);
                branches.push(text);
            }
        }
        let head = g.pick(&heads);
        let extra = g.pick(&extras);
        let tail = if head.contains("count") { "" } else { g.pick(&tails) };
        out.push(format!("{head} WHERE ({}){extra}{tail}", branches.join(" OR ")));
    }
    // WITHOUT ROWID tables, joins with the OR as an inner loop, LEFT JOIN.
    for i in 0..40u64 {
        let (x, y) = (i % 9, i % 4);
        out.push(format!("SELECT * FROM w WHERE x = {x} OR y = {y}"));
        out.push(format!("SELECT k, z FROM w WHERE k = 'k{i}' OR x = {x}"));
    }
    for q in [
        "SELECT * FROM u, t WHERE t.a = u.p OR t.id = u.q",
        "SELECT * FROM t, u WHERE t.a = u.p OR t.b = 'b' || u.q",
        "SELECT * FROM u LEFT JOIN t ON t.a = u.p OR t.c = u.q",
        "SELECT u.p, t.id FROM u JOIN t ON (t.a = u.p OR t.e = u.q) AND t.f = 1",
        "SELECT * FROM u, w WHERE w.x = u.p OR w.y = u.q",
    ] {
        out.push(q.to_string());
    }
    out
}

#[test]
fn or_terms_plan_and_rows_match_reference() {
    let mut ours = ours_open();
    let reference = RefDb::open();
    run_ours(&mut ours, SCHEMA);
    run_ref(&reference, SCHEMA);
    let queries = or_queries();
    let mut multi = 0;
    let mut plans_differ = Vec::new();
    let mut rows_differ = Vec::new();
    for q in &queries {
        let sql = format!("EXPLAIN QUERY PLAN {q}");
        let (mine, theirs) = (plan_details(&run_ours(&mut ours, &sql)), plan_details(&run_ref(&reference, &sql)));
        multi += theirs.iter().any(|l| l == "MULTI-INDEX OR") as usize;
        let same_plan = mine == theirs;
        if !same_plan {
            plans_differ.push(format!("plan of {q}:\n  ours {mine:?}\n  ref  {theirs:?}"));
        }
        // Without ORDER BY (or with ties under it) the order follows the
        // plan: rows are compared in order where the plans agree, as a
        // set elsewhere (not at all under LIMIT, which keeps other rows).
        let (mut mine, mut theirs) = (run_ours(&mut ours, q), run_ref(&reference, q));
        if !same_plan {
            for o in mine.iter_mut().chain(theirs.iter_mut()) {
                if let Outcome::Rows { rows, .. } = o {
                    rows.sort_by(|a, b| format!("{a:?}").cmp(&format!("{b:?}")));
                }
            }
        }
        if mine != theirs && (same_plan || !q.contains("LIMIT")) {
            rows_differ.push(format!("rows of {q}"));
        }
    }
    assert!(rows_differ.is_empty(), "{} of {} differ:\n{}", rows_differ.len(), queries.len(), rows_differ.join("\n"));
    // A ratchet: the plans still chosen otherwise than SQLite's (where
    // its costs of an OR with range branches against another range or
    // an ordered scan differ from ringlite's, and covering IN branches;
    // see README "Row order without ORDER BY") may only get fewer.
    assert!(plans_differ.len() <= 16, "{} of {} plans differ:\n{}", plans_differ.len(), queries.len(), plans_differ.join("\n"));
    assert!(multi > queries.len() / 3, "only {multi} MULTI-INDEX OR plans");
}

#[test]
fn or_terms_in_update_and_delete_match_reference() {
    let mut ours = ours_open();
    let reference = RefDb::open();
    run_ours(&mut ours, SCHEMA);
    run_ref(&reference, SCHEMA);
    for q in [
        "UPDATE t SET f = f + 10 WHERE a = 3 OR b = 'b2'",
        "DELETE FROM t WHERE c = 1 OR e = 990",
        "DELETE FROM t WHERE (c = 2 AND d = 3) OR a > 11",
        "UPDATE w SET z = -z WHERE x = 1 OR y = 2",
        "DELETE FROM w WHERE k = 'k5' OR x = 3",
        "SELECT * FROM t",
        "SELECT * FROM w",
    ] {
        let sql = format!("EXPLAIN QUERY PLAN {q}");
        assert_eq!(plan_details(&run_ours(&mut ours, &sql)), plan_details(&run_ref(&reference, &sql)), "plan of {q}");
        assert_eq!(run_ours(&mut ours, q), run_ref(&reference, q), "result of {q}");
    }
}
