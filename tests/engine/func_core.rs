//! Differential tests of the core scalar functions against SQLite 3.54.1.
use crate::func_support;
use func_support::*;
use ringlite::value::Value;

fn run(names: &[(&str, usize)], values: &[Value]) {
    let db = RefDb::open();
    let mut bad = Vec::new();
    for &(name, arity) in names {
        bad.extend(check_function(&db, name, arity, values));
    }
    assert_clean(bad);
}

#[test]
fn unary_functions() {
    run(
        &[
            ("abs", 1),
            ("hex", 1),
            ("length", 1),
            ("octet_length", 1),
            ("lower", 1),
            ("upper", 1),
            ("ltrim", 1),
            ("rtrim", 1),
            ("trim", 1),
            ("quote", 1),
            ("round", 1),
            ("sign", 1),
            ("soundex", 1),
            ("typeof", 1),
            ("unhex", 1),
            ("unicode", 1),
            ("zeroblob", 1),
            ("char", 1),
            ("likely", 1),
            ("unlikely", 1),
            ("unistr_quote", 1),
        ],
        &sample_values(),
    );
}

#[test]
fn binary_functions() {
    run(
        &[
            ("instr", 2),
            ("glob", 2),
            ("like", 2),
            ("ltrim", 2),
            ("rtrim", 2),
            ("trim", 2),
            ("nullif", 2),
            ("ifnull", 2),
            ("coalesce", 2),
            ("round", 2),
            ("substr", 2),
            ("max", 2),
            ("min", 2),
            ("concat", 2),
            ("concat_ws", 2),
            ("iif", 2),
            ("unhex", 2),
            ("char", 2),
        ],
        &sample_values(),
    );
}

#[test]
fn ternary_functions() {
    let vals: Vec<Value> = vec![
        Value::Null,
        Value::Integer(0),
        Value::Integer(1),
        Value::Integer(-1),
        Value::Integer(2),
        Value::Integer(-3),
        Value::Integer(10),
        Value::Real(1.5),
        Value::text(""),
        Value::text("abc"),
        Value::text("é日x"),
        Value::text("b"),
        Value::text("%"),
        Value::text("\\"),
        Value::Blob(vec![1, 2, 3]),
    ];
    run(&[("substr", 3), ("replace", 3), ("iif", 3), ("like", 3), ("concat_ws", 3), ("max", 3), ("min", 3)], &vals);
}

#[test]
fn substr_edges() {
    let db = RefDb::open();
    let mut bad = Vec::new();
    let xs = [Value::text("héllo wörld"), Value::Blob(b"hello".to_vec()), Value::Integer(123456)];
    for x in &xs {
        for y in -8..=8i64 {
            for z in -8..=8i64 {
                let args = vec![x.clone(), Value::Integer(y), Value::Integer(z)];
                let e = db.eval("substr(?,?,?)", &args);
                let g = call_scalar("substr", &args);
                if !same(&e, &g) {
                    bad.push(format!("substr({x:?},{y},{z}) sqlite={} ours={}", show(&e), show(&g)));
                }
            }
        }
    }
    assert_clean(bad);
}

#[test]
fn patterns() {
    let db = RefDb::open();
    let pats = [
        "a%", "%a", "%b%", "_b_", "a_c", "%", "_", "", "A%C", "%é%", "[a-c]*", "*[^a]*", "[]]*", "[a-]x", "*?c", "a*", "?", "*", "[abc", "%%a%%", "a\\%",
        "\\_%", "[z-a]", "*[0-9]", "%_%_", "ab%ab%", "[", "[^]]", "[a-c-e]",
    ];
    let subjects = ["abc", "ABC", "a%c", "a_c", "", "bab", "x]", "-x", "é日", "aaaaab", "abab", "a\\c", "12", "]"];
    let mut bad = Vec::new();
    for p in pats {
        for s in subjects {
            for (name, sql) in [("glob", "glob(?,?)"), ("like", "like(?,?)")] {
                let args = vec![Value::text(p), Value::text(s)];
                let e = db.eval(sql, &args);
                let g = call_scalar(name, &args);
                if !same(&e, &g) {
                    bad.push(format!("{name}({p:?},{s:?}) sqlite={} ours={}", show(&e), show(&g)));
                }
            }
            for esc in ["\\", "%", "_", "a", "é"] {
                let args = vec![Value::text(p), Value::text(s), Value::text(esc)];
                let e = db.eval("like(?,?,?)", &args);
                let g = call_scalar("like", &args);
                if !same(&e, &g) {
                    bad.push(format!("like({p:?},{s:?},{esc:?}) sqlite={} ours={}", show(&e), show(&g)));
                }
            }
        }
    }
    for esc in ["", "ab"] {
        let args = vec![Value::text("a"), Value::text("a"), Value::text(esc)];
        let e = db.eval("like(?,?,?)", &args);
        let g = call_scalar("like", &args);
        if !same(&e, &g) {
            bad.push(format!("like escape {esc:?} sqlite={} ours={}", show(&e), show(&g)));
        }
    }
    assert_clean(bad);
}

#[test]
fn rounding() {
    let db = RefDb::open();
    let mut bad = Vec::new();
    let xs = [
        2.675,
        1.005,
        0.5,
        -0.5,
        2.5,
        -2.5,
        0.15,
        0.25,
        5.55,
        1.23456789,
        0.49999999999999994,
        1e17,
        123.456,
        -123.456,
        9.995,
        0.045,
        1e-10,
        4503599627370497.0,
        99.5,
        0.1 + 0.2,
    ];
    for x in xs {
        for n in [0i64, 1, 2, 3, 5, 10, 15, 30, 40, -1] {
            let args = vec![Value::Real(x), Value::Integer(n)];
            let e = db.eval("round(?,?)", &args);
            let g = call_scalar("round", &args);
            if !same(&e, &g) {
                bad.push(format!("round({x},{n}) sqlite={} ours={}", show(&e), show(&g)));
            }
        }
    }
    assert_clean(bad);
}

#[test]
fn variadic_and_misc() {
    let db = RefDb::open();
    let mut bad = Vec::new();
    let cases: Vec<(&str, &str, Vec<Value>)> = vec![
        ("char", "char(?,?,?,?)", vec![Value::Integer(72), Value::Integer(0x1F600), Value::Integer(-1), Value::Integer(0x110000)]),
        ("char", "char()", vec![]),
        ("concat", "concat(?,?,?,?)", vec![Value::Integer(1), Value::Null, Value::Real(2.5), Value::text("x")]),
        ("concat_ws", "concat_ws(?,?,?,?)", vec![Value::text("-"), Value::Null, Value::Real(2.5), Value::text("x")]),
        ("coalesce", "coalesce(?,?,?,?)", vec![Value::Null, Value::Null, Value::Real(2.5), Value::text("x")]),
        ("iif", "iif(?,?,?,?,?)", vec![Value::Integer(0), Value::Integer(1), Value::text("1"), Value::Integer(2), Value::Integer(3)]),
        ("iif", "iif(?,?,?,?)", vec![Value::Integer(0), Value::Integer(1), Value::text("0.0"), Value::Integer(2)]),
        ("max", "max(?,?,?,?)", vec![Value::Integer(1), Value::Real(1.0), Value::Integer(1), Value::Real(0.5)]),
        ("min", "min(?,?,?,?)", vec![Value::Integer(1), Value::Real(1.0), Value::Integer(1), Value::Real(2.5)]),
        ("max", "max(?,?,?)", vec![Value::text("b"), Value::Blob(vec![0]), Value::Integer(9)]),
        ("unistr", "unistr(?)", vec![Value::text("a\\0041\\u00e9\\+01F600\\U0001F600\\\\z")]),
        ("unistr", "unistr(?)", vec![Value::text("bad\\x")]),
        ("unistr", "unistr(?)", vec![Value::text("bad\\12")]),
        ("unistr_quote", "unistr_quote(?)", vec![Value::text("a\nb'c\\d\x7f")]),
        ("quote", "quote(?)", vec![Value::Real(f64::INFINITY)]),
        ("quote", "quote(?)", vec![Value::Text(b"ab\0cd".to_vec())]),
        ("length", "length(?)", vec![Value::Text(b"ab\0cd".to_vec())]),
        ("octet_length", "octet_length(?)", vec![Value::Text(b"ab\0cd".to_vec())]),
        ("hex", "hex(?)", vec![Value::Text(b"ab\0cd".to_vec())]),
        ("unhex", "unhex(?,?)", vec![Value::text("12 34-ab"), Value::text(" -")]),
        ("unhex", "unhex(?,?)", vec![Value::text("1 234"), Value::text(" ")]),
        ("unhex", "unhex(?,?)", vec![Value::text("é12é"), Value::text("é")]),
        ("soundex", "soundex(?)", vec![Value::text("Robert")]),
        ("soundex", "soundex(?)", vec![Value::text("Tymczak")]),
        ("soundex", "soundex(?)", vec![Value::text("Pfister")]),
        ("soundex", "soundex(?)", vec![Value::text("Ashcraft")]),
        ("abs", "abs(?)", vec![Value::Integer(i64::MIN)]),
        ("zeroblob", "zeroblob(?)", vec![Value::Integer(2_000_000_000)]),
        ("replace", "replace(?,?,?)", vec![Value::Integer(5), Value::text(""), Value::text("x")]),
        ("replace", "replace(?,?,?)", vec![Value::text("aaaa"), Value::text("aa"), Value::Integer(7)]),
        ("instr", "instr(?,?)", vec![Value::text("日本語日本"), Value::text("本")]),
        ("instr", "instr(?,?)", vec![Value::Blob(b"xxab".to_vec()), Value::text("ab")]),
        ("trim", "trim(?,?)", vec![Value::text("éaéxé"), Value::text("é")]),
        ("sqlite_version", "sqlite_version()", vec![]),
        ("likelihood", "likelihood(?, 0.5)", vec![Value::text("x")]),
        ("format", "format(?,?,?,?)", vec![Value::text("%d|%5.2f|%s|%q"), Value::Integer(42), Value::Real(3.14159), Value::text("it's")]),
        ("printf", "printf(?,?,?)", vec![Value::text("%-5s|%x|%c"), Value::text("ab"), Value::Integer(255)]),
        ("printf", "printf(?)", vec![Value::Null]),
        ("format", "format(?,?)", vec![Value::text("%Q %w"), Value::Null]),
    ];
    for (name, sql, args) in cases {
        let e = db.eval(sql, &args);
        let mut ours_args = args.clone();
        if name == "likelihood" {
            ours_args.push(Value::Real(0.5));
        }
        let g = call_scalar(name, &ours_args);
        if !same(&e, &g) {
            bad.push(format!("{sql} {args:?} sqlite={} ours={}", show(&e), show(&g)));
        }
    }
    assert_clean(bad);
}

/// SQLite's source id, then ringlite's marker (README, "Which library is my
/// program using?").
#[test]
fn source_id_is_sqlites_then_the_ringlite_marker() {
    let db = RefDb::open();
    let sqlite = db.eval("sqlite_source_id()", &[]).unwrap();
    let ours = call_scalar("sqlite_source_id", &[]).unwrap();
    let (Value::Text(sqlite), Value::Text(ours)) = (sqlite, ours) else { panic!("source ids are text") };
    let (sqlite, ours) = (String::from_utf8(sqlite).unwrap(), String::from_utf8(ours).unwrap());
    assert_eq!(ours, format!("{sqlite} ringlite-{}", env!("CARGO_PKG_VERSION")));
}

#[test]
fn random_shapes() {
    let r = call_scalar("random", &[]).unwrap();
    assert!(matches!(r, Value::Integer(_)));
    let b = call_scalar("randomblob", &[Value::Integer(0)]).unwrap();
    assert!(matches!(b, Value::Blob(ref v) if v.len() == 1));
    let b = call_scalar("randomblob", &[Value::Integer(16)]).unwrap();
    assert!(matches!(b, Value::Blob(ref v) if v.len() == 16));
}

#[test]
fn collation_aware_forms() {
    use ringlite::value::collation::Collation;
    use ringlite::vdbe::func::builtins::{aggregate::min_max_state, core::nullif_with, core::scalar_min_max};
    let db = RefDb::open();
    let nocase = Collation::nocase();
    let vals = [Value::text("a"), Value::text("B"), Value::text("b"), Value::text("A")];
    for x in &vals {
        for y in &vals {
            let args = [x.clone(), y.clone()];
            let e = db.eval("max(? COLLATE NOCASE, ?)", &args);
            assert!(same(&e, &Ok(scalar_min_max(&args, true, Some(&nocase)))), "max {x:?} {y:?}");
            let e = db.eval("min(? COLLATE NOCASE, ?)", &args);
            assert!(same(&e, &Ok(scalar_min_max(&args, false, Some(&nocase)))), "min {x:?} {y:?}");
            let e = db.eval("nullif(? COLLATE NOCASE, ?)", &args);
            assert!(same(&e, &Ok(nullif_with(x, y, Some(&nocase)))), "nullif {x:?} {y:?}");
        }
    }
    for is_max in [true, false] {
        let f = if is_max { "max" } else { "min" };
        let e = db.eval(&format!("{f}(c COLLATE NOCASE) FROM (SELECT 'a' c UNION ALL SELECT 'B' UNION ALL SELECT 'A' UNION ALL SELECT 'b')"), &[]);
        let mut st = min_max_state(is_max, Some(nocase.clone()));
        let g = in_ctx(|ctx| {
            for v in ["a", "B", "A", "b"] {
                st.step(ctx, &[Value::text(v)]).unwrap();
            }
            st.finalize(ctx).map_err(|e| e.message)
        });
        assert!(same(&e, &g), "{f}: {} vs {}", show(&e), show(&g));
    }
}
