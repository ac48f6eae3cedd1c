//! Differential tests of the date and time functions against SQLite 3.54.1
//! (deterministic inputs only; 'now' is checked for shape and stability).
use crate::func_support;
use func_support::*;
use ringlite::value::Value;

fn time_values() -> Vec<Value> {
    let t = Value::text;
    vec![
        t("2024-03-05"),
        t("2024-03-05 14:07:09"),
        t("2024-03-05T14:07:09.123"),
        t("2024-03-05 14:07:09.9999"),
        t("2024-02-29 23:59:59"),
        t("2023-02-31"),
        t("2000-01-01 00:00"),
        t("1969-12-31 23:59:59.5"),
        t("0000-01-01"),
        t("9999-12-31 23:59:59"),
        t("-0044-03-15 12:00"),
        t("12:34"),
        t("12:34:56.789"),
        t("24:00:00"),
        t("24:00:01"),
        t("24:00:00.001"),
        t("24:01"),
        t("2024-03-05 24:00:00"),
        t("2024-02-31 24:00"),
        t("2024-03-05 14:07:09+05:30"),
        t("2024-03-05 14:07:09 -02:00"),
        t("2024-03-05 14:07Z"),
        t("2024-03-05T14:07:09.123z"),
        t("2024-13-01"),
        t("2024-1-01"),
        t("2024-03-05 25:00"),
        t("2024-03-05x"),
        t("garbage"),
        t("2451545.0"),
        t(" 2460000.25 "),
        t(""),
        Value::Integer(2460000),
        Value::Real(2460000.5),
        Value::Integer(0),
        Value::Integer(1_700_000_000),
        Value::Real(1_700_000_000.123),
        Value::Integer(-1),
        Value::Integer(5_373_484),
        Value::Real(5_373_484.5),
        Value::Null,
        Value::Blob(b"2024-01-01".to_vec()),
    ]
}

fn modifiers() -> Vec<&'static str> {
    vec![
        "+1 day",
        "-1 days",
        "+1.5 hours",
        "+90 minutes",
        "-30 seconds",
        "+0.123 seconds",
        "+1 month",
        "-1 month",
        "+13 months",
        "+1 year",
        "-1 years",
        "+2.5 years",
        "+1.5 months",
        "start of month",
        "start of year",
        "start of day",
        "start of week",
        "weekday 0",
        "weekday 3",
        "weekday 7",
        "weekday 1.5",
        "weekday -0",
        "weekday -3",
        "weekday -7",
        "weekday -1.5",
        "unixepoch",
        "julianday",
        "auto",
        "subsec",
        "subsecond",
        "ceiling",
        "floor",
        "+01:30",
        "-01:30:15.5",
        "+12:00:00",
        "+0001-02-03",
        "-0001-02-03",
        "+0000-11-30 10:20",
        "+0001-12-01",
        "+10000 days",
        "+1 fortnight",
        "+1",
        "1 day",
        "utc",
        "localtime",
        "+ 1 day",
        "+1 DAY",
        "Start Of Month",
        "+1 days ",
        "nonsense",
        "+5373485 days",
    ]
}

fn compare(db: &RefDb, sql_fn: &str, args: &[Value], bad: &mut Vec<String>) {
    let placeholders = vec!["?"; args.len()].join(",");
    let e = db.eval(&format!("{sql_fn}({placeholders})"), args);
    let g = call_scalar(sql_fn, args);
    if !same(&e, &g) {
        let shown: Vec<String> = args.iter().map(|a| show(&Ok(a.clone()))).collect();
        bad.push(format!("{sql_fn}({}) sqlite={} ours={}", shown.join(", "), show(&e), show(&g)));
    }
}

#[test]
fn time_values_alone() {
    let db = RefDb::open();
    let mut bad = Vec::new();
    for v in time_values() {
        for f in ["date", "time", "datetime", "julianday", "unixepoch"] {
            compare(&db, f, std::slice::from_ref(&v), &mut bad);
        }
    }
    assert_clean(bad);
}

#[test]
fn with_one_modifier() {
    let db = RefDb::open();
    let mut bad = Vec::new();
    for v in time_values() {
        for m in modifiers() {
            for f in ["datetime", "julianday", "unixepoch"] {
                compare(&db, f, &[v.clone(), Value::text(m)], &mut bad);
            }
        }
    }
    assert_clean(bad);
}

#[test]
fn with_two_modifiers() {
    let db = RefDb::open();
    let mut bad = Vec::new();
    let firsts = ["unixepoch", "auto", "julianday", "+1 month", "start of month", "subsec", "localtime"];
    let vals =
        [Value::Integer(1_700_000_000), Value::Real(2460000.5), Value::text("2024-01-31 10:00:00.250"), Value::text("2023-03-31"), Value::text("2024-02-29")];
    for v in &vals {
        for a in firsts {
            for b in modifiers() {
                compare(&db, "datetime", &[v.clone(), Value::text(a), Value::text(b)], &mut bad);
                compare(&db, "unixepoch", &[v.clone(), Value::text(a), Value::text(b)], &mut bad);
            }
        }
    }
    assert_clean(bad);
}

#[test]
fn strftime_formats() {
    let db = RefDb::open();
    let mut bad = Vec::new();
    let formats =
        ["%d %e %f %F %G %g %H %k %I %l %j %J %m %M %p %P %R %s %S %T %u %w %U %V %W %Y %%", "%a", "%b", "%", "abc", "", "%Y-%m-%dT%H:%M:%f", "100%% %j"];
    for f in formats {
        for v in time_values() {
            compare(&db, "strftime", &[Value::text(f), v.clone()], &mut bad);
            compare(&db, "strftime", &[Value::text(f), v.clone(), Value::text("subsec")], &mut bad);
        }
        for d in ["2021-01-01", "2021-01-03", "2020-12-31", "2024-12-30", "2027-01-01", "2026-06-15 00:00:00"] {
            compare(&db, "strftime", &[Value::text(f), Value::text(d)], &mut bad);
        }
    }
    assert_clean(bad);
}

#[test]
fn timediff_pairs() {
    let db = RefDb::open();
    let mut bad = Vec::new();
    let vals =
        ["2024-03-05", "2023-01-31 12:00", "2024-02-29 23:59:59.5", "2000-01-01", "2024-03-31", "2024-02-28", "1999-12-31 23:59:59", "2024-03-05 00:00:00.001"];
    for a in vals {
        for b in vals {
            compare(&db, "timediff", &[Value::text(a), Value::text(b)], &mut bad);
        }
        compare(&db, "timediff", &[Value::text(a), Value::Null], &mut bad);
    }
    assert_clean(bad);
}

#[test]
fn now_is_fixed_per_context() {
    let c = Ctx { now_jd_ms: Some(212_544_043_201_000), ..Ctx::default() };
    let a = call_scalar_ctx(c, "datetime", &[Value::text("now")]);
    let b = call_scalar_ctx(c, "datetime", &[]);
    assert!(same(&a, &b), "{} vs {}", show(&a), show(&b));
    let s = match a {
        Ok(Value::Text(t)) => String::from_utf8(t).unwrap(),
        other => panic!("{other:?}"),
    };
    assert_eq!(s.len(), 19);
    // Same instant in real SQLite terms: julianday of that text.
    let db = RefDb::open();
    let jd = db.eval("julianday(?)", &[Value::text(s.as_str())]).unwrap();
    let ours = call_scalar_ctx(c, "julianday", &[Value::text("now")]).unwrap();
    assert!(same(&Ok(jd), &Ok(ours)));
}
