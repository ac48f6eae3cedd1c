//! `SQLITE_LIMIT_PARSER_DEPTH` ("Recursion limit"), differentially
//! against the reference SQLite 3.54.1, shape by shape: for each nesting
//! shape the count at which the reference first says "Recursion limit" is
//! found by binary search, and both engines are compared at that count,
//! one below it and far past it, at the default limit and two lowered
//! ones. The limit is enforced by the parser as its stack grows
//! (`sql::parse::parser_stack_limit`), so the shapes check that our
//! grammar stacks what SQLite's does.
#![allow(unsafe_code)]

use crate::sql_common::{ours_open, run_ours, run_ref, Outcome, RefDb, LIMIT_PARSER_DEPTH};
use libsqlite3_sys as ffi;

/// A nesting shape: `sql(n)` nests it `n` levels deep.
struct Shape {
    name: &'static str,
    setup: &'static str,
    sql: fn(usize) -> String,
}

fn nest(open: &str, inner: &str, close: &str, n: usize) -> String {
    format!("{}{inner}{}", open.repeat(n), close.repeat(n))
}

const T: &str = "CREATE TABLE t(a, b, c)";

fn shapes() -> Vec<Shape> {
    vec![
        Shape { name: "NOT NOT ... x", setup: "", sql: |n| format!("SELECT {}1", "NOT ".repeat(n)) },
        Shape { name: "(((x)))", setup: "", sql: |n| format!("SELECT {}", nest("(", "1", ")", n)) },
        Shape { name: "- - x", setup: "", sql: |n| format!("SELECT {}1", "- ".repeat(n)) },
        Shape { name: "~ ~ x", setup: "", sql: |n| format!("SELECT {}1", "~ ".repeat(n)) },
        Shape { name: "scalar subqueries", setup: "", sql: |n| format!("SELECT {}", nest("(SELECT ", "1", ")", n)) },
        Shape { name: "f(f(x))", setup: "", sql: |n| format!("SELECT {}", nest("abs(", "1", ")", n)) },
        Shape { name: "f(1, f(1, x))", setup: "", sql: |n| format!("SELECT {}", nest("max(1, ", "1", ")", n)) },
        Shape { name: "CASE WHEN", setup: "", sql: |n| format!("SELECT {}", nest("CASE WHEN 1 THEN ", "1", " END", n)) },
        Shape { name: "CASE x WHEN", setup: "", sql: |n| format!("SELECT {}", nest("CASE 1 WHEN 1 THEN 1 ELSE ", "1", " END", n)) },
        Shape { name: "IN lists", setup: "", sql: |n| format!("SELECT {}", nest("1 IN (", "1", ")", n)) },
        Shape { name: "IN (SELECT)", setup: "", sql: |n| format!("SELECT {}", nest("1 IN (SELECT ", "1", ")", n)) },
        Shape { name: "FROM subqueries", setup: "", sql: |n| format!("SELECT * FROM {}", nest("(SELECT * FROM ", "(SELECT 1)", ")", n)) },
        Shape { name: "WITH", setup: "", sql: |n| format!("{}SELECT 1{}", "WITH a AS (".repeat(n), ") SELECT * FROM a".repeat(n)) },
        Shape { name: "CAST", setup: "", sql: |n| format!("SELECT {}", nest("CAST(", "1", " AS INT)", n)) },
        Shape { name: "COLLATE chain", setup: "", sql: |n| format!("SELECT 'a'{}", " COLLATE nocase".repeat(n)) },
        Shape { name: "JOIN chain", setup: T, sql: |n| format!("SELECT 1 FROM t{}", " JOIN t".repeat(n)) },
        Shape { name: "nested JOIN", setup: T, sql: |n| format!("SELECT 1 FROM {}", nest("t JOIN (", "t", ")", n)) },
        Shape { name: "UNION ALL chain", setup: "", sql: |n| format!("SELECT 1{}", " UNION ALL SELECT 1".repeat(n)) },
        Shape { name: "AND chain", setup: "", sql: |n| format!("SELECT 1{}", " AND 1".repeat(n)) },
        Shape { name: "+ chain", setup: "", sql: |n| format!("SELECT 1{}", " + 1".repeat(n)) },
        Shape { name: "1+(1+(x))", setup: "", sql: |n| format!("SELECT {}", nest("1 + (", "1", ")", n)) },
        Shape { name: "1=(1=(x))", setup: "", sql: |n| format!("SELECT {}", nest("1 = (", "1", ")", n)) },
        Shape { name: "1 AND (1 AND (x))", setup: "", sql: |n| format!("SELECT {}", nest("1 AND (", "1", ")", n)) },
        Shape { name: "1 BETWEEN 1 AND (x)", setup: "", sql: |n| format!("SELECT {}", nest("1 BETWEEN 1 AND (", "1", ")", n)) },
        Shape { name: "WHERE (((x)))", setup: T, sql: |n| format!("SELECT a FROM t WHERE {}", nest("(", "a", ")", n)) },
        Shape { name: "UPDATE SET (((x)))", setup: T, sql: |n| format!("UPDATE t SET a = {}", nest("(", "1", ")", n)) },
        Shape { name: "INSERT VALUES (((x)))", setup: T, sql: |n| format!("INSERT INTO t VALUES(1, 2, {})", nest("(", "1", ")", n)) },
        Shape { name: "DELETE WHERE (((x)))", setup: T, sql: |n| format!("DELETE FROM t WHERE {}", nest("(", "1", ")", n)) },
        Shape {
            name: "trigger body",
            setup: T,
            sql: |n| format!("CREATE TRIGGER tr AFTER INSERT ON t BEGIN SELECT {}; END", nest("(", "1", ")", n)),
        },
        Shape { name: "CHECK (((x)))", setup: "", sql: |n| format!("CREATE TABLE u(a CHECK({}))", nest("(", "a", ")", n)) },
        Shape { name: "DEFAULT (((x)))", setup: "", sql: |n| format!("CREATE TABLE u(a DEFAULT ({}))", nest("(", "1", ")", n)) },
        Shape { name: "EXPLAIN (((x)))", setup: "", sql: |n| format!("EXPLAIN SELECT {}", nest("(", "1", ")", n)) },
        Shape { name: "unterminated (((", setup: "", sql: |n| format!("SELECT {}1", "(".repeat(n)) },
    ]
}

/// `shape` nested `n` deep on a fresh connection of each engine with
/// the parser depth limit `limit` (`None`: the default).
fn outcomes(shape: &Shape, limit: Option<i32>, n: usize) -> (Vec<Outcome>, Vec<Outcome>) {
    let mut ours = ours_open();
    let reference = RefDb::open();
    if let Some(v) = limit {
        ours.limit(LIMIT_PARSER_DEPTH, v);
        // SAFETY: `reference.0` is an open connection.
        unsafe { ffi::sqlite3_limit(reference.0, LIMIT_PARSER_DEPTH, v) };
    }
    if !shape.setup.is_empty() {
        run_ours(&mut ours, shape.setup);
        run_ref(&reference, shape.setup);
    }
    let sql = (shape.sql)(n);
    (run_ours(&mut ours, &sql), run_ref(&reference, &sql))
}

fn recursion(o: &[Outcome]) -> bool {
    matches!(o.last(), Some(Outcome::Error { message, .. }) if message == "Recursion limit")
}

/// The smallest `n` at most `cap` at which `said` holds (it holds for
/// every larger one), if it holds at `cap`.
fn first(cap: usize, said: impl Fn(usize) -> bool) -> Option<usize> {
    if !said(cap) {
        return None;
    }
    let (mut lo, mut hi) = (1, cap);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if said(mid) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    Some(lo)
}

const CAP: usize = 6000;

/// The boundaries of each shape on both engines, printed as a table
/// (`cargo test -p ringlite --test engine -- parser_depth_table --ignored --nocapture`).
#[test]
#[ignore]
fn parser_depth_table() {
    for limit in [None, Some(300), Some(100), Some(20)] {
        for s in shapes() {
            let r = first(CAP, |n| recursion(&outcomes(&s, limit, n).1));
            let o = first(CAP, |n| recursion(&outcomes(&s, limit, n).0));
            let below = r.map(|n| {
                let (a, b) = outcomes(&s, limit, n - 1);
                if a == b {
                    "same".to_string()
                } else {
                    format!("ours {:?} ref {:?}", a.last(), b.last())
                }
            });
            println!("{:?}\t{}\tref {:?}\tours {:?}\tbelow: {:?}", limit, s.name, r, o, below);
        }
    }
}
