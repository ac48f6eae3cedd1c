//! Differential tests of window functions against SQLite 3.54.1. The test
//! drives ringlite's states the way the VM must (see `builtins::window`):
//! partition functions get every row stepped, then one value per row;
//! frame functions and aggregates get step/inverse as the frame moves.
use crate::func_support;
use func_support::*;
use ringlite::value::Value;

/// Rows (id, partition, order key, x).
fn table() -> Vec<(i64, i64, i64, Value)> {
    let mut rows = Vec::new();
    let xs = [
        Value::Integer(5),
        Value::Null,
        Value::Real(2.5),
        Value::text("a"),
        Value::Integer(-3),
        Value::Integer(7),
        Value::Integer(7),
        Value::Null,
        Value::text("10"),
    ];
    let mut id = 0;
    for p in 0..3i64 {
        for k in 0..(2 + p * 3) {
            let o = (k * 7 + p) % 4; // ties on purpose
            rows.push((id, p, o, xs[(id as usize * 5) % xs.len()].clone()));
            id += 1;
        }
    }
    rows
}

fn setup(db: &RefDb) {
    db.query("CREATE TABLE t(id INTEGER PRIMARY KEY, p, o, x)", &[]).unwrap();
    for (id, p, o, x) in table() {
        db.query("INSERT INTO t VALUES(?,?,?,?)", &[Value::Integer(id), Value::Integer(p), Value::Integer(o), x]).unwrap();
    }
}

/// Partitions sorted by (o, id).
fn partitions() -> Vec<Vec<(i64, i64, i64, Value)>> {
    let mut t = table();
    t.sort_by_key(|r| (r.1, r.2, r.0));
    let mut parts: Vec<Vec<(i64, i64, i64, Value)>> = Vec::new();
    for r in t {
        match parts.last_mut() {
            Some(last) if last[0].1 == r.1 => last.push(r),
            _ => parts.push(vec![r]),
        }
    }
    parts
}

fn sqlite_column(db: &RefDb, expr: &str, window: &str) -> Vec<Outcome> {
    match db.query(&format!("SELECT {expr} OVER ({window}) FROM t ORDER BY p, o, id"), &[]) {
        Ok(rows) => rows.into_iter().map(|r| Ok(r[0].clone())).collect(),
        Err(e) => vec![Err(e)],
    }
}

#[test]
fn partition_functions() {
    let db = RefDb::open();
    setup(&db);
    let cases: Vec<(&str, &str, Box<dyn Fn(&(i64, i64, i64, Value), bool) -> Vec<Value>>)> = vec![
        ("row_number", "row_number()", Box::new(|_, _| vec![])),
        ("rank", "rank()", Box::new(|_, np| vec![Value::Integer(np as i64)])),
        ("dense_rank", "dense_rank()", Box::new(|_, np| vec![Value::Integer(np as i64)])),
        ("percent_rank", "percent_rank()", Box::new(|_, np| vec![Value::Integer(np as i64)])),
        ("cume_dist", "cume_dist()", Box::new(|_, np| vec![Value::Integer(np as i64)])),
        ("ntile", "ntile(3)", Box::new(|_, _| vec![Value::Integer(3)])),
        ("ntile", "ntile(1)", Box::new(|_, _| vec![Value::Integer(1)])),
        ("ntile", "ntile(100)", Box::new(|_, _| vec![Value::Integer(100)])),
        ("lag", "lag(x)", Box::new(|r, _| vec![r.3.clone()])),
        ("lag", "lag(x, 2, 'd')", Box::new(|r, _| vec![r.3.clone(), Value::Integer(2), Value::text("d")])),
        ("lead", "lead(x)", Box::new(|r, _| vec![r.3.clone()])),
        ("lead", "lead(x, o, -1)", Box::new(|r, _| vec![r.3.clone(), Value::Integer(r.2), Value::Integer(-1)])),
        ("lag", "lag(x, -1)", Box::new(|r, _| vec![r.3.clone(), Value::Integer(-1)])),
    ];
    let mut bad = Vec::new();
    for (name, expr, args) in &cases {
        // Rank-like results do not depend on the order among peers.
        let window = if name.contains("rank") || *name == "cume_dist" { "PARTITION BY p ORDER BY o" } else { "PARTITION BY p ORDER BY o, id" };
        let expected = sqlite_column(&db, expr, window);
        let mut got = Vec::new();
        for part in partitions() {
            let sql_arity = if name.contains("rank") || *name == "cume_dist" { 0 } else { args(&part[0], true).len() };
            let mut st = new_state(name, sql_arity);
            in_ctx(|ctx| {
                for (i, r) in part.iter().enumerate() {
                    let new_peer = i == 0 || part[i - 1].2 != r.2;
                    st.step(ctx, &args(r, new_peer)).unwrap();
                }
                for _ in &part {
                    got.push(st.value(ctx).map_err(|e| e.message));
                }
            });
        }
        if expected.len() != got.len() || expected.iter().zip(&got).any(|(e, g)| !same(e, g)) {
            bad.push(format!("{expr}: sqlite={:?} ours={:?}", expected, got));
        }
    }
    assert_clean(bad);
}

#[test]
fn frame_functions_and_aggregates() {
    let db = RefDb::open();
    setup(&db);
    let funcs = [
        ("first_value", "first_value(x)", 1),
        ("last_value", "last_value(x)", 1),
        ("nth_value", "nth_value(x, 2)", 2),
        ("count", "count(x)", 1),
        ("count", "count(*)", 0),
        ("sum", "sum(x)", 1),
        ("total", "total(x)", 1),
        ("avg", "avg(x)", 1),
        ("group_concat", "group_concat(x)", 1),
        ("group_concat", "group_concat(x, '-')", 2),
        ("json_group_array", "json_group_array(x)", 1),
        ("string_agg", "string_agg(x, '-')", 2),
    ];
    // Frames as offsets (start, end) from the current row, inclusive;
    // some are empty for the first or last rows.
    let frames: [(i64, i64); 7] = [(-1, 1), (-2, 0), (0, 2), (-3, 3), (-2, -1), (1, 2), (-4, -3)];
    let bound = |o: i64| if o < 0 { format!("{} PRECEDING", -o) } else { format!("{o} FOLLOWING") };
    let mut bad = Vec::new();
    for (name, expr, nargs) in funcs {
        for (start, end) in frames {
            let window = format!("PARTITION BY p ORDER BY o, id ROWS BETWEEN {} AND {}", bound(start), bound(end));
            let expected = sqlite_column(&db, expr, &window);
            let mut got = Vec::new();
            for part in partitions() {
                let argv = |r: &(i64, i64, i64, Value)| -> Vec<Value> {
                    match (name, nargs) {
                        (_, 0) => vec![],
                        ("nth_value", _) => vec![r.3.clone(), Value::Integer(2)],
                        (_, 2) => vec![r.3.clone(), Value::text("-")],
                        _ => vec![r.3.clone()],
                    }
                };
                let mut st = new_state(name, nargs);
                let (mut lo, mut hi) = (0usize, 0usize); // frame = rows[lo..hi]
                in_ctx(|ctx| {
                    for i in 0..part.len() {
                        let n = part.len() as i64;
                        let want_hi = (i as i64 + end + 1).clamp(0, n) as usize;
                        let want_lo = ((i as i64 + start).clamp(0, n) as usize).min(want_hi.max(lo));
                        // Never step a row that already left the frame.
                        if hi < want_lo {
                            hi = want_lo;
                            lo = want_lo;
                        }
                        while hi < want_hi {
                            st.step(ctx, &argv(&part[hi])).unwrap();
                            hi += 1;
                        }
                        while lo < want_lo {
                            st.inverse(ctx, &argv(&part[lo])).unwrap();
                            lo += 1;
                        }
                        got.push(st.value(ctx).map_err(|e| e.message));
                    }
                });
            }
            if expected.len() != got.len() || expected.iter().zip(&got).any(|(e, g)| !same(e, g)) {
                bad.push(format!("{expr} {window}: sqlite={:?} ours={:?}", expected, got));
            }
        }
    }
    assert_clean(bad);
}

#[test]
fn window_errors() {
    let mut st = new_state("ntile", 1);
    let e = in_ctx(|ctx| st.step(ctx, &[Value::Integer(0)]));
    assert_eq!(e.unwrap_err().message, "argument of ntile must be a positive integer");
    let mut st = new_state("nth_value", 2);
    let e = in_ctx(|ctx| st.step(ctx, &[Value::Integer(1), Value::Real(1.5)]));
    assert_eq!(e.unwrap_err().message, "second argument to nth_value must be a positive integer");
}
