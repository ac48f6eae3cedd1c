//! Math functions against expectations recorded from SQLite's own math
//! functions (sqlite3 3.40, whose math code is unchanged in 3.54; the
//! bundled reference library is built without them). The cases live in
//! `data/math_recorded.tsv` (format in its header); results must match
//! bit for bit.
use crate::func_support;
use func_support::*;
use ringlite::value::Value;

const CASES: &str = include_str!("data/math_recorded.tsv");

/// One value of the case file.
fn parse_value(field: &str) -> Value {
    let (kind, rest) = field.split_at(1);
    match kind {
        "N" => Value::Null,
        "I" => Value::Integer(rest.parse().expect("integer case")),
        "R" => Value::Real(f64::from_bits(rest.parse().expect("real case bits"))),
        "T" => Value::text(rest.strip_prefix('"').and_then(|t| t.strip_suffix('"')).expect("quoted text case")),
        "B" => Value::Blob((0..rest.len()).step_by(2).map(|i| u8::from_str_radix(&rest[i..i + 2], 16).expect("hex blob case")).collect()),
        _ => panic!("unknown value kind in {field:?}"),
    }
}

#[test]
fn math_functions_match_recorded_sqlite_results() {
    let mut bad = Vec::new();
    let mut count = 0;
    for line in CASES.lines().filter(|l| !l.starts_with('#') && !l.is_empty()) {
        let mut fields = line.split('\t');
        let f = fields.next().expect("function name");
        let expected = parse_value(fields.next().expect("expected value"));
        let args: Vec<Value> = fields.map(parse_value).collect();
        let got = call_scalar(f, &args);
        if !same(&got, &Ok(expected.clone())) {
            bad.push(format!("{f}({args:?}) expected={expected:?} ours={}", show(&got)));
        }
        count += 1;
    }
    assert_eq!(count, 1313, "the case file lost lines");
    assert_clean(bad);
}
