//! SQLite never produces NaN: arithmetic, functions and aggregates whose
//! floating-point result would be NaN give NULL instead. Differential
//! against the reference SQLite.

use crate::sql_common::{ours_open, run_ours, run_ref, RefDb};

const SETUP: &str = "create table inf(x real); insert into inf values (1e999), (-1e999), (1e999), (2.5), (null);
    create table part(p, i, x); insert into part values (1, 1, 1.0), (1, 2, 1e999), (1, 3, 2.0), (1, 4, 3.0), (2, 1, 5.0), (2, 2, 6.0), (2, 3, -1e999), (2, 4, 7.0), (2, 5, 8.0), (3, 1, 1e999), (4, 1, 2.0), (4, 2, 3.0);";

const QUERIES: &[&str] = &[
    "select sum(x), avg(x), total(x) from (select 1e999 x union all select -1e999)",
    "select sum(x), avg(x), total(x) from inf",
    "select sum(x), avg(x), total(x), count(x), min(x), max(x) from (select 1e999 x union all select -1e999 union all select 1)",
    "select 1e999 - 1e999, 0 * 1e999, 1e999 * 0, -1e999 + 1e999, 1e999 / 1e999, 1e999 % 2, 5 % 1e999",
    "select 1e999 / 0, -1e999 / 0.0, 1e999 * -1e999",
    "select abs(1e999 - 1e999), round(1e999 - 1e999), round(1e999), typeof(1e999 - 1e999)",
    "select x, sum(x) over (order by rowid), avg(x) over (order by rowid), total(x) over (order by rowid) from inf",
    "select sum(x) over (), avg(x) over () from inf",
    "select cast(1e999 - 1e999 as real), cast('nan' as real), 'nan' + 0, 'inf' + 0, '1e999' - '1e999'",
    "select printf('%f', 1e999 - 1e999), printf('%f', 1e999), quote(1e999-1e999), quote(1e999)",
    "select json_object('a', 1e999 - 1e999), json(1e999), json_array(1e999, -1e999)",
    "select 1e999 - 1e999 is null, (1e999 - 1e999) = (1e999 - 1e999), max(1e999 - 1e999, 1), min(1, 1e999-1e999)",
    "select sum(x) - sum(x), avg(x) * 0 from (select 1e999 x)",
    "select total(x) * 0, sum(x) / sum(x) from (select 1e999 x)",
    "select -(1e999 - 1e999), +(1e999 - 1e999), ~(1e999 - 1e999)",
    // Frames whose start moves: SQLite removes the rows that leave (inf -
    // inf), so once an infinity has left, the rest of the partition is NULL.
    "select x, sum(x) over (order by rowid rows between 1 preceding and current row), avg(x) over (order by rowid rows between 1 preceding and 1 following), total(x) over (rows between current row and unbounded following) from inf",
    "select x, sum(x) over (order by rowid rows between 2 preceding and 1 preceding), total(x) over (order by rowid rows between 1 following and 2 following) from inf",
    "select x, sum(x) over (order by rowid rows between unbounded preceding and 1 following), avg(x) over (order by rowid rows 1 preceding) from inf",
    "select p, x, sum(x) over (partition by p order by i rows between 1 preceding and current row), total(x) filter (where i <> 2) over (partition by p order by i rows between current row and 1 following), avg(x) over (partition by p order by i rows between 1 following and 3 following) from part",
    "select p, x, sum(x) over w, total(x) over w, avg(x) over w, count(x) over w, max(x) over w from part window w as (partition by p order by i rows between 1 preceding and current row)",
    "select p, i, sum(x) over (partition by p order by i range between 1 preceding and current row) from part",
    "select p, i, total(x) over (partition by p order by i groups between 1 preceding and 1 following) from part",
    "select p, i, sum(x) over (order by i range between current row and unbounded following) from part",
    "select p, i, avg(x) filter (where i > 1) over (partition by p order by i range between current row and 2 following) from part",
    // With EXCLUDE, SQLite computes every frame afresh: no NaN left behind.
    "select p, i, avg(x) over (partition by p order by i rows between 1 preceding and current row exclude current row) from part",
    "select p, i, sum(x) over (partition by p order by i groups between 1 preceding and current row exclude ties) from part",
];

fn diffs() -> Vec<String> {
    let mut ours = ours_open();
    let reference = RefDb::open();
    assert_eq!(run_ours(&mut ours, SETUP), run_ref(&reference, SETUP));
    let mut bad = Vec::new();
    for q in QUERIES {
        let a = run_ours(&mut ours, q);
        let b = run_ref(&reference, q);
        if a != b {
            bad.push(format!("SQL: {q}\n ours: {a:?}\n ref:  {b:?}"));
        }
    }
    bad
}

#[test]
fn nan_results_are_null_as_in_sqlite() {
    let bad = diffs();
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// The math functions (not built into the reference library): a domain
/// error, whose C result is NaN, is NULL, as SQLite's result_double makes
/// every NaN.
#[test]
fn math_function_domain_errors_are_null() {
    let mut ours = ours_open();
    let sql = "select sqrt(-1), ln(-1), log(-1), log10(-1), log2(-1), acos(2), asin(2), acosh(0), atanh(2), \
               sin(1e999), cos(1e999), tan(1e999), pow(-8, 1.0/3), mod(1e999, 1), mod(1, 0), log(-2, 8)";
    let out = run_ours(&mut ours, sql);
    let crate::sql_common::Outcome::Rows { rows, .. } = &out[0] else { panic!("{out:?}") };
    assert!(rows[0].iter().all(|v| *v == crate::sql_common::V::Null), "{rows:?}");
}
