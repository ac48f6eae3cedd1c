//! Differential tests of the aggregate functions against SQLite 3.54.1:
//! `WITH t(x,y) AS (VALUES ...) SELECT agg(...) FROM t` versus stepping
//! ringlite's aggregate state over the same rows.
use crate::func_support;
use func_support::*;
use ringlite::value::Value;

fn sqlite_agg(db: &RefDb, call: &str, rows: &[Vec<Value>]) -> Outcome {
    let ncol = rows.first().map_or(2, |r| r.len().max(1));
    let cols: Vec<String> = (0..ncol).map(|i| format!("c{i}")).collect();
    let (values, params): (String, Vec<Value>) = if rows.is_empty() {
        (format!("SELECT {} WHERE 0", vec!["NULL"; ncol].join(",")), vec![])
    } else {
        let vals = rows.iter().map(|r| format!("({})", vec!["?"; r.len()].join(","))).collect::<Vec<_>>().join(",");
        (format!("VALUES {vals}"), rows.iter().flatten().cloned().collect())
    };
    let sql = format!("WITH t({}) AS ({values}) SELECT {call} FROM t", cols.join(","));
    let r = db.query(&sql, &params)?;
    Ok(r.into_iter().next().and_then(|r| r.into_iter().next()).unwrap_or(Value::Null))
}

fn datasets() -> Vec<Vec<Value>> {
    let t = Value::text;
    let (i, r, n) = (Value::Integer, Value::Real, || Value::Null);
    vec![
        vec![],
        vec![n()],
        vec![i(1), i(2), i(3)],
        vec![i(1), n(), r(2.5)],
        vec![i(i64::MAX), i(1)],
        vec![i(i64::MAX), i(1), i(-5)],
        vec![i(i64::MAX), r(1.0)],
        vec![r(1.0), i(i64::MAX), i(i64::MAX)],
        vec![i(i64::MIN), i(-1)],
        vec![t("12"), t("abc"), t(" 3 ")],
        vec![t("1.5"), i(2)],
        vec![Value::Blob(b"7".to_vec()), i(1)],
        vec![r(0.1), r(0.2), r(0.3)],
        vec![r(1e308), r(1e308), r(-1e308)],
        vec![t(""), t("a"), t("")],
        vec![t("b"), i(3), r(2.5), t("a"), Value::Blob(vec![0])],
        vec![i(1), r(1.0)],
        vec![r(1.0), i(1)],
        vec![i(4_503_599_627_370_497), i(3), i(-4_503_599_627_370_499)],
        vec![r(f64::INFINITY), r(1.0)],
    ]
}

#[test]
fn one_argument_aggregates() {
    let db = RefDb::open();
    let mut bad = Vec::new();
    for name in ["count", "sum", "total", "avg", "min", "max", "group_concat"] {
        for data in datasets() {
            let rows: Vec<Vec<Value>> = data.iter().map(|v| vec![v.clone()]).collect();
            let e = sqlite_agg(&db, &format!("{name}(c0)"), &rows);
            let g = call_aggregate(name, &rows);
            if !same(&e, &g) {
                bad.push(format!("{name}({data:?}) sqlite={} ours={}", show(&e), show(&g)));
            }
        }
    }
    assert_clean(bad);
}

#[test]
fn count_star_and_separators() {
    let db = RefDb::open();
    let mut bad = Vec::new();
    for data in datasets() {
        let rows: Vec<Vec<Value>> = data.iter().map(|_| vec![]).collect();
        let one: Vec<Vec<Value>> = data.iter().map(|v| vec![v.clone()]).collect();
        let e = sqlite_agg(&db, "count(*)", &one);
        let g = call_aggregate("count", &rows);
        if !same(&e, &g) {
            bad.push(format!("count(*) {data:?} sqlite={} ours={}", show(&e), show(&g)));
        }
        let seps = [Value::text("; "), Value::Null, Value::Integer(0), Value::text("")];
        let two: Vec<Vec<Value>> = data.iter().enumerate().map(|(k, v)| vec![v.clone(), seps[k % seps.len()].clone()]).collect();
        for name in ["group_concat", "string_agg"] {
            let e = sqlite_agg(&db, &format!("{name}(c0, c1)"), &two);
            let g = call_aggregate_n(name, 2, &two);
            if !same(&e, &g) {
                bad.push(format!("{name} {two:?} sqlite={} ours={}", show(&e), show(&g)));
            }
        }
    }
    assert_clean(bad);
}
