//! Bulk `INSERT ... VALUES` of literal rows, which ringlite compiles
//! without a parse tree per row (`sql::value_rows`), differentially
//! against the reference SQLite 3.54.1: every literal form, the shapes
//! split and those left whole (triggers, views, upserts, RETURNING,
//! column lists), and the errors (widths, counts, syntax in a late row,
//! limits), each followed by a read of what was written.

use crate::sql_common::{ours_open, run_ours, run_ref, RefDb};
use libsqlite3_sys as ffi;

/// `n` rows made by `row(i)`, joined into one VALUES list.
fn rows(n: usize, row: impl Fn(usize) -> String) -> String {
    (0..n).map(|i| format!("({})", row(i))).collect::<Vec<_>>().join(",")
}

/// Run `setup`, set `limits`, then each step on both engines, asserting
/// the same outcome of each.
fn same(limits: &[(i32, i32)], setup: &str, steps: &[String]) {
    let mut ours = ours_open();
    let reference = RefDb::open();
    assert_eq!(run_ours(&mut ours, setup), run_ref(&reference, setup), "setup");
    for &(id, v) in limits {
        ours.limit(id, v);
        unsafe { ffi::sqlite3_limit(reference.0, id, v) };
    }
    for sql in steps {
        let (a, b) = (run_ours(&mut ours, sql), run_ref(&reference, sql));
        if a != b {
            let short = |o: &dyn std::fmt::Debug| format!("{o:?}").chars().take(400).collect::<String>();
            panic!("\nSQL ({} bytes): {}...\nours: {}\nref:  {}", sql.len(), sql.chars().take(300).collect::<String>(), short(&a), short(&b));
        }
    }
}

const READ: &str = "SELECT count(*), sum(length(a)), total(b), group_concat(quote(c)) FROM t";

#[test]
fn literal_forms_round_trip() {
    let forms = [
        "1",
        "-1",
        "+1",
        "0",
        "-0",
        "0x7fffffffffffffff",
        "-0x8000000000000000",
        "9223372036854775807",
        "-9223372036854775808",
        "9223372036854775808",
        "1.5",
        "-1.5e10",
        "1e400",
        "-1e400",
        ".5",
        "5.",
        "1_000",
        "'x'",
        "'it''s'",
        "''",
        "'é'",
        "X'00ff'",
        "x''",
        "NULL",
        "- 2",
        "+ 'a'",
        "-'3'",
        "-X'01'",
        "-NULL",
    ];
    let body = rows(300, |i| format!("{}, {}, {}", forms[i % forms.len()], forms[(i * 7) % forms.len()], forms[(i * 13) % forms.len()]));
    same(
        &[],
        "CREATE TABLE t(a, b, c)",
        &[format!("INSERT INTO t VALUES {body}"), "SELECT quote(a), quote(b), quote(c), typeof(a) FROM t".into(), READ.into()],
    );
}

#[test]
fn shapes_split_and_whole() {
    let body = rows(200, |i| format!("{i}, 'v{i}', {i}.5"));
    let steps = [
        format!("INSERT INTO t VALUES {body}"),
        format!("INSERT INTO t(c, a) VALUES {}", rows(200, |i| format!("{i}, -{i}"))),
        format!("INSERT INTO t(a, a, b) VALUES {body}"),
        format!("INSERT OR REPLACE INTO u VALUES {body}"),
        format!("REPLACE INTO u VALUES {body} ;"),
        format!("INSERT INTO u VALUES {body} ON CONFLICT DO NOTHING"),
        format!("INSERT INTO u VALUES {body} ON CONFLICT(a) DO UPDATE SET b = excluded.b || 'x'"),
        format!("INSERT INTO t VALUES {body} RETURNING a + 1, b"),
        format!("INSERT INTO tr VALUES {body}"),
        format!("INSERT INTO v VALUES {body}"),
        format!("INSERT INTO t VALUES {body} -- trailing comment"),
        format!("INSERT INTO t VALUES {body}; SELECT 1"),
        format!("INSERT INTO t AS x VALUES {body}"),
        format!("INSERT INTO main.t VALUES /* c */ {body}"),
        format!("INSERT INTO s VALUES {}", rows(200, |i| format!("NULL, {i}"))),
        format!("INSERT INTO t VALUES {body} UNION SELECT 1, 2, 3"),
        format!("INSERT INTO t SELECT * FROM (VALUES {body})"),
        "SELECT count(*), sum(a), group_concat(b) FROM t".into(),
        "SELECT * FROM u ORDER BY a LIMIT 5".into(),
        "SELECT count(*), max(a) FROM log".into(),
        "SELECT * FROM s ORDER BY a DESC LIMIT 3".into(),
        READ.into(),
    ];
    same(
        &[],
        "CREATE TABLE t(a, b, c); CREATE TABLE u(a PRIMARY KEY, b, c); CREATE TABLE tr(a, b, c); CREATE TABLE log(a);
         CREATE TRIGGER trg AFTER INSERT ON tr BEGIN INSERT INTO log VALUES (new.a), (new.a + 1); END;
         CREATE VIEW v AS SELECT * FROM t; CREATE TRIGGER vt INSTEAD OF INSERT ON v BEGIN INSERT INTO log VALUES (new.a); END;
         CREATE TABLE s(a INTEGER PRIMARY KEY AUTOINCREMENT, b)",
        &steps,
    );
}

#[test]
fn errors_in_late_rows() {
    let good = |n: usize| rows(n, |i| format!("{i}, 'v{i}', {i}.5"));
    let steps = [
        format!("INSERT INTO t VALUES {}, (1, 2)", good(150)),
        format!("INSERT INTO t VALUES {}, (1, 2, 3, 4)", good(150)),
        format!("INSERT INTO t VALUES {}", rows(150, |i| format!("{i}, {i}"))),
        format!("INSERT INTO t(a) VALUES {}", good(150)),
        format!("INSERT INTO t VALUES {}, (1, 2, 3 4)", good(150)),
        format!("INSERT INTO t VALUES {}, (1, 2, 'open", good(150)),
        format!("INSERT INTO t VALUES {}, (1, 2, 3", good(150)),
        format!("INSERT INTO t VALUES {}, (1, 2, 1.5e)", good(150)),
        format!("INSERT INTO t VALUES {}, (1, 2, nosuch)", good(150)),
        format!("INSERT INTO t VALUES {}, (1, 2, abs(-3))", good(150)),
        format!("INSERT INTO t VALUES {}, (1, 2, ?)", good(150)),
        format!("INSERT INTO t VALUES {} ORDER BY 1", good(150)),
        format!("INSERT INTO t VALUES {} LIMIT 1", good(150)),
        format!("INSERT INTO nosuch VALUES {}", good(150)),
        format!("INSERT INTO t VALUES {}, (1, 2, 3) RETURNING nosuch", good(150)),
        format!("INSERT INTO k VALUES {}", rows(150, |i| format!("{}, 'x'", i % 100))),
        READ.into(),
        "SELECT count(*) FROM k".into(),
    ];
    same(&[], "CREATE TABLE t(a, b, c); CREATE TABLE k(a PRIMARY KEY, b)", &steps);
}

#[test]
fn limits_on_split_rows() {
    const LIMIT_COLUMN: i32 = 2;
    const LIMIT_EXPR_DEPTH: i32 = 3;
    const LIMIT_VDBE_OP: i32 = 5;
    let body = rows(200, |i| format!("-{i}, 'v{i}', {i}.5"));
    let steps = [format!("INSERT INTO t VALUES {body}"), READ.into()];
    same(&[(LIMIT_EXPR_DEPTH, 1)], "CREATE TABLE t(a, b, c)", &steps);
    same(&[(LIMIT_EXPR_DEPTH, 2)], "CREATE TABLE t(a, b, c)", &steps);
    same(&[(LIMIT_COLUMN, 2)], "CREATE TABLE t(a, b, c)", &steps);
    same(&[(LIMIT_VDBE_OP, 300)], "CREATE TABLE t(a, b, c)", &steps);
}
