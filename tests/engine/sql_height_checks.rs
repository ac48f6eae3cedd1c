//! Where SQLite checks expression heights besides its parser's nodes,
//! differentially against the reference SQLite 3.54.1, at the boundary of
//! `SQLITE_LIMIT_EXPR_DEPTH` (default and lowered): a CAST the parser does
//! not check (its height counts where the resolver checks a whole
//! expression: a view's or trigger's body only when it is used), the
//! count-of-view optimization's sum over a compound's arms (VALUES rows
//! counted as SQLite splits them), the range terms of the LIKE
//! optimization in a WHERE or ON clause, the FROM list's 200 terms, and
//! parameter tokens SQLite's tokenizer refuses.
#![allow(unsafe_code)]

use crate::sql_common::{ours_open, run_ours, run_ref, Outcome, RefDb, LIMIT_COMPOUND_SELECT, LIMIT_EXPR_DEPTH};
use libsqlite3_sys as ffi;

const SETUP: &str = "CREATE TABLE t(a INTEGER, b TEXT, c REAL); INSERT INTO t VALUES(1, 'x', 2.5), (2, 'Y', NULL), (NULL, 'abc', -1.0), (7, NULL, 0.0)";

/// Run `steps` one by one on both engines (set up with [`SETUP`], then
/// `limits`); the steps whose outcomes differ, described.
fn differences(limits: &[(i32, i32)], steps: &[String]) -> Vec<String> {
    let mut ours = ours_open();
    let reference = RefDb::open();
    run_ours(&mut ours, SETUP);
    run_ref(&reference, SETUP);
    for &(id, v) in limits {
        ours.limit(id, v);
        // SAFETY: `reference.0` is an open connection.
        unsafe { ffi::sqlite3_limit(reference.0, id, v) };
    }
    let mut out = Vec::new();
    for sql in steps {
        let (a, b) = (run_ours(&mut ours, sql), run_ref(&reference, sql));
        if a != b {
            let short = |o: &[Outcome]| format!("{:?}", o.last()).chars().take(160).collect::<String>();
            let shown: String = sql.chars().take(160).collect();
            out.push(format!("limits {limits:?}: {shown} ({} bytes)\n  ours {}\n  ref  {}", sql.len(), short(&a), short(&b)));
        }
    }
    out
}

/// Compare `cases` (each its own pair of connections), on a thread with
/// a large stack: SQLite codes a compound's arms recursively, one level
/// per arm.
fn assert_same(cases: &[(Vec<(i32, i32)>, Vec<String>)]) {
    let cases = cases.to_vec();
    let all = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || cases.iter().flat_map(|(limits, steps)| differences(limits, steps)).collect::<Vec<String>>())
        .expect("spawn")
        .join()
        .expect("no panic");
    assert!(all.is_empty(), "{} differences:\n{}", all.len(), all.join("\n"));
}

fn nest(open: &str, inner: &str, close: &str, n: usize) -> String {
    format!("{}{inner}{}", open.repeat(n), close.repeat(n))
}

/// `depth` (`None`: the default, 1,000) and the sizes around it.
fn around(depth: Option<i32>) -> (Vec<(i32, i32)>, Vec<usize>) {
    let d = depth.unwrap_or(1000) as usize;
    (depth.map(|v| vec![(LIMIT_EXPR_DEPTH, v)]).unwrap_or_default(), vec![d - 2, d - 1, d, d + 1, d + 2])
}

/// A CAST is built unchecked: a chain of them passes the parser, and the
/// resolver refuses the whole expression's height where it resolves it
/// (not in CREATE VIEW or CREATE TRIGGER: there when the view is read or
/// the trigger fires).
#[test]
fn cast_heights_are_the_resolvers() {
    let mut cases = Vec::new();
    for depth in [None, Some(10)] {
        let (limits, sizes) = around(depth);
        for n in sizes {
            let cast = nest("CAST(", "a", " AS INT)", n);
            let steps = vec![
                format!("SELECT {cast} FROM t"),
                format!("SELECT a FROM t ORDER BY {cast}"),
                format!("SELECT a FROM t WHERE {cast}"),
                format!("SELECT (1, {cast}) = (1, 2) FROM t"),
                format!("SELECT 1 + {cast} FROM t"),
                format!("SELECT {cast} AND 0 FROM t"),
                format!("CREATE VIEW v{n} AS SELECT {cast} AS x FROM t"),
                format!("SELECT count(*) FROM v{n}"),
                format!("CREATE TRIGGER tr{n} AFTER INSERT ON t BEGIN UPDATE t SET b = {cast} WHERE a = 99; END"),
                "INSERT INTO t VALUES(99, 'q', 1)".to_string(),
                format!("DROP TRIGGER IF EXISTS tr{n}"),
                format!("CREATE TABLE c{n}(a CHECK({cast}))"),
                format!("CREATE INDEX i{n} ON t({cast})"),
                format!("CREATE INDEX j{n} ON t(a) WHERE {cast}"),
                format!("UPDATE t SET c = {cast} WHERE a = 99"),
                format!("INSERT INTO t VALUES(100, {cast}, 0)"),
                format!("DELETE FROM t WHERE a > 98 AND {cast}"),
            ];
            cases.push((limits.clone(), steps));
        }
    }
    assert_same(&cases);
}

/// `SELECT count(*) FROM (<UNION ALL of N arms>)`: SQLite codes it as a
/// sum of N counts, N + 1 high.
#[test]
fn count_of_view_sum_height() {
    let mut cases = Vec::new();
    for depth in [None, Some(10)] {
        let (mut limits, sizes) = around(depth);
        // (The compound limit would stop SELECT-ended compounds first.)
        limits.push((LIMIT_COMPOUND_SELECT, 0));
        for n in sizes {
            let arms = |f: &dyn Fn(usize) -> String| (0..n).map(f).collect::<Vec<_>>().join(" UNION ALL ");
            let mixed = arms(&|i| match i % 3 {
                0 => format!("VALUES({i})"),
                1 => format!("SELECT {i}"),
                _ => "SELECT a FROM t".to_string(),
            });
            let rows = (0..n).map(|i| format!("({i})")).collect::<Vec<_>>().join(",");
            let steps = vec![
                format!("SELECT count(*) FROM ({mixed})"),
                format!("SELECT count(*) AS k FROM ({mixed}) LIMIT 1"),
                format!("SELECT (SELECT count(*) FROM ({mixed}))"),
                format!("SELECT count(*) FROM ({mixed} ORDER BY 1)"),
                format!("SELECT count(*) FROM ({mixed} ORDER BY 1 COLLATE nocase)"),
                format!("SELECT count(*) FROM ({mixed} LIMIT 5)"),
                format!("SELECT count(*) FROM ({mixed}) WHERE 1"),
                format!("SELECT count(*) FROM ({})", arms(&|i| format!("SELECT DISTINCT {i}"))),
                format!("SELECT count(*) FROM ({})", arms(&|i| format!("SELECT {i} UNION SELECT {i}"))),
                format!("SELECT count(*) FROM ({mixed}) AS s WHERE nosuch"),
                format!("CREATE VIEW v{n} AS {mixed}"),
                format!("SELECT count(*) FROM v{n}"),
                format!("CREATE TEMP VIEW w{n} AS {mixed}"),
                format!("SELECT count(*) FROM temp.w{n}"),
                format!("WITH c(x) AS ({mixed}) SELECT count(*) FROM c"),
                // A VALUES list: one co-routine, unless after a WITH or
                // with rows that are not constant.
                format!("SELECT count(*) FROM (VALUES {rows})"),
                format!("SELECT count(*) FROM (VALUES {rows} UNION ALL SELECT 1)"),
                format!("WITH w AS (SELECT 1) SELECT count(*) FROM (VALUES {rows} UNION ALL SELECT 1)"),
                format!("WITH w AS (SELECT 1) SELECT count(*) FROM (VALUES {rows})"),
                format!("SELECT count(*) FROM (VALUES {} UNION ALL SELECT 1)", (0..n).map(|i| format!("(CAST({i} AS TEXT))")).collect::<Vec<_>>().join(",")),
                format!("SELECT count(*) FROM (VALUES {} UNION ALL SELECT 1)", (0..n).map(|i| format!("(abs({i}))")).collect::<Vec<_>>().join(",")),
                format!(
                    "SELECT count(*) FROM (VALUES {} UNION ALL SELECT 1)",
                    (0..n).map(|i| if i % 3 == 1 { format!("(random() + {i})") } else { format!("({i})") }).collect::<Vec<_>>().join(",")
                ),
                format!("SELECT count(*) FROM (SELECT 0 UNION ALL VALUES {rows})"),
                format!("SELECT count(*) FROM (SELECT 0 UNION ALL SELECT * FROM ({mixed}))"),
                format!("WITH w AS (SELECT 1) SELECT count(*) FROM (SELECT 0 UNION ALL VALUES {rows})"),
                format!(
                    "SELECT count(*) FROM (SELECT 0 UNION ALL VALUES {})",
                    (0..n).map(|i| format!("({i} + a)")).collect::<Vec<_>>().join(",").replace("+ a", "")
                ),
                format!("SELECT count(*) FROM (SELECT 0 UNION ALL VALUES {})", (0..n).map(|i| format!("(CAST({i} AS TEXT))")).collect::<Vec<_>>().join(",")),
                format!("SELECT count(*) FROM (SELECT 0 UNION ALL VALUES {})", (0..n).map(|i| format!("(abs({i}))")).collect::<Vec<_>>().join(",")),
                format!("SELECT count(*) FROM (SELECT 0 UNION ALL VALUES {})", (0..n).map(|i| format!("(random() + {i})")).collect::<Vec<_>>().join(",")),
                format!("SELECT count(*) FROM (SELECT 0 UNION ALL VALUES {})", (0..n).map(|i| format!("((SELECT {i}))")).collect::<Vec<_>>().join(",")),
            ];
            cases.push((limits.clone(), steps));
        }
    }
    assert_same(&cases);
}

/// A LIKE/GLOB term of a WHERE or ON clause with a literal prefix: SQLite
/// adds range terms two heights above its left operand.
#[test]
fn like_range_terms_height() {
    let mut cases = Vec::new();
    for depth in [None, Some(10), Some(3)] {
        let (limits, sizes) = around(depth);
        for n in sizes {
            let chain = |lhs: &str, op: &str, pat: &str| format!("{lhs}{}", format!(" {op} {pat}").repeat(n));
            let like = chain("a", "LIKE", "'a%'");
            let steps = vec![
                format!("SELECT a FROM t WHERE {like}"),
                format!("SELECT a FROM t WHERE {}", chain("t.a", "LIKE", "'a%'")),
                format!("SELECT a FROM t WHERE b = 'x' AND {like}"),
                format!("SELECT a FROM t WHERE {}", chain("b", "GLOB", "'a*'")),
                format!("SELECT a FROM t WHERE {}", chain("a", "LIKE", "'1%'")),
                format!("SELECT a FROM t WHERE {}", chain("b", "LIKE", "'1%'")),
                format!("SELECT a FROM t WHERE {}", chain("a", "LIKE", "'%a'")),
                format!("SELECT a FROM t WHERE {}", chain("a", "LIKE", "'a%' ESCAPE '\\'")),
                format!("SELECT a FROM t WHERE NOT {like}"),
                format!("SELECT a FROM t WHERE {like} OR b"),
                format!("SELECT a FROM t WHERE ({like})"),
                format!("SELECT {like} FROM t"),
                format!("SELECT t.a FROM t JOIN t AS u ON {}", chain("u.a", "LIKE", "'a%'")),
                format!("SELECT t.a FROM t LEFT JOIN t AS u ON {}", chain("u.a", "LIKE", "'a%'")),
                format!("SELECT a FROM t WHERE like('a%', {})", chain("a", "LIKE", "'a%'")),
                format!("SELECT a FROM t WHERE like('a%', {}, '!')", chain("a", "LIKE", "'a%'")),
                format!("SELECT a FROM t WHERE {} AND nosuch", like),
                format!("UPDATE t SET c = 1 WHERE {like}"),
                format!("DELETE FROM t WHERE {like}"),
                format!("SELECT (SELECT 1 WHERE {like})"),
            ];
            cases.push((limits.clone(), steps));
        }
    }
    assert_same(&cases);
}

/// A FROM list holds at most 200 terms (the parser's error); a join of
/// 65 to 200 tables is refused by the planner. (Not compared: a
/// parenthesized join, which SQLite flattens into the FROM list around
/// it, counting its tables there.)
#[test]
fn from_clause_terms() {
    // (An empty table: a join of 64 runs at once.)
    let join = |n: usize| (0..n).map(|i| format!("e AS e{i}")).collect::<Vec<_>>().join(", ");
    let steps: Vec<String> = std::iter::once("CREATE TABLE e(x)".to_string())
        .chain([63, 64, 65, 199, 200, 201, 3000].iter().flat_map(|&n| {
            [
                format!("SELECT 1 FROM {}", join(n)),
                format!("SELECT 1 FROM {}", join(n).replace(", ", " JOIN ")),
                format!("SELECT (SELECT 1 FROM {}) FROM t", join(n)),
                format!("SELECT 1 FROM {} WHERE nosuch", join(n)),
                format!("CREATE VIEW v{n} AS SELECT 1 FROM {}", join(n)),
            ]
        }))
        .collect();
    assert_same(&[(vec![], steps)]);
}

/// Parameter tokens at the edges of SQLite's tokenizer (`$` and `:`
/// names with `::` and a Tcl-style `(...)` suffix).
#[test]
fn parameter_token_edges() {
    let steps: Vec<String> =
        ["$::", "$::a", "$a::", "$a::b", ":a::b", "$a(", "$a(x", "$a(x)", "$(", "$:", "$a:b", "@::", "@a::", "#::", "$::(", ":::", "$a::(1)", "?::"]
            .iter()
            .map(|p| format!("SELECT {p}"))
            .collect();
    assert_same(&[(vec![], steps)]);
}

/// Prints both engines' outcomes of the statements in the file named by
/// `RINGLITE_PROBE` (one a line: `LIMIT_ID=VALUE,...|SQL`, after
/// [`SETUP`]); for exploring where SQLite checks a limit.
#[test]
#[ignore]
fn probe() {
    let Ok(path) = std::env::var("RINGLITE_PROBE") else { return };
    let text = std::fs::read_to_string(path).expect("probe file");
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || {
            for line in text.lines().filter(|l| !l.trim().is_empty()) {
                let (limits, sql) = line.split_once('|').expect("LIMITS|SQL");
                let limits: Vec<(i32, i32)> = limits
                    .split(',')
                    .filter(|s| !s.is_empty())
                    .map(|s| {
                        let (k, v) = s.split_once('=').expect("ID=VALUE");
                        (k.trim().parse().expect("id"), v.trim().parse().expect("value"))
                    })
                    .collect();
                let mut ours = ours_open();
                let reference = RefDb::open();
                run_ours(&mut ours, SETUP);
                run_ref(&reference, SETUP);
                for &(id, v) in &limits {
                    ours.limit(id, v);
                    // SAFETY: `reference.0` is an open connection.
                    unsafe { ffi::sqlite3_limit(reference.0, id, v) };
                }
                let t = std::time::Instant::now();
                let a = run_ours(&mut ours, sql);
                let ta = t.elapsed();
                let t = std::time::Instant::now();
                let b = run_ref(&reference, sql);
                let tb = t.elapsed();
                let short = |o: &[Outcome]| format!("{o:?}").chars().take(300).collect::<String>();
                let shown: String = sql.chars().take(150).collect();
                println!("{} {limits:?} {shown}\n  ours ({ta:?}) {}\n  ref  ({tb:?}) {}", if a == b { "SAME" } else { "DIFF" }, short(&a), short(&b));
            }
        })
        .expect("spawn")
        .join()
        .expect("no panic");
}

/// An expression built too high before the parser's stack overflows is
/// SQLite's error ("Expression tree is too large"), not the overflow's
/// ("Recursion limit"); nodes still open at the overflow were never built.
#[test]
fn heights_built_before_a_stack_overflow() {
    let chain = |n: usize| vec!["1"; n].join("+");
    let deep = nest("(", "1", ")", 2600);
    let steps = vec![
        format!("SELECT {} + {deep}", chain(1001)),
        format!("SELECT {} + {deep}", chain(999)),
        format!("SELECT 1 WHERE {} AND {deep}", chain(1001)),
        format!("SELECT {}, {deep}", chain(1001)),
        format!("SELECT {} + {}1", chain(1001), "(".repeat(2600)),
        format!("SELECT {}", nest("abs(", "1", ")", 900)),
    ];
    assert_same(&[(vec![], steps.clone()), (vec![(LIMIT_EXPR_DEPTH, 20)], steps[4..].to_vec()), (vec![(LIMIT_EXPR_DEPTH, 100)], steps[5..].to_vec())]);
}
