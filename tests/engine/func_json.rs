//! Differential tests of the JSON functions against SQLite 3.54.1.
use crate::func_support;
use func_support::*;
use ringlite::value::Value;

fn docs() -> Vec<Value> {
    let t = Value::text;
    vec![
        t("{\"a\":1,\"b\":[1,2,{\"c\":null}],\"d\":\"x\\u0041\\n\",\"e\":1.50,\"f\":true,\"g\":false}"),
        t("[1, 2.5, \"three\", null, [], {}, -0, 1e3, 1E+2, -1.25e-2]"),
        t("  {\"a\" : { \"b\" : { \"c\" : [10, 20, 30] } } }  "),
        t("{\"a\":1,\"a\":2}"),
        t("123456789012345678901234"),
        t("\"just a string\""),
        t("null"),
        t("true"),
        t("-5"),
        t("[0x1F, .5, 1., +3, Infinity, -Infinity, NaN, 'single', {unquoted: 1,}, /* c */ 2, // x\n 3,]"),
        t("{\"k\\\"ey\":1, \"a b\":2, \"\\u00e9\":3}"),
        t("[\"\\x41\\'\\v\\0\", \"tab\\there\", \"é日本\"]"),
        t("[1,2"),
        t("{\"a\":}"),
        t("[01]"),
        t("[1e]"),
        t(""),
        t("   "),
        t("{\"a\" 1}"),
        t("[\"unterminated]"),
        t("[1,,2]"),
        t("nul"),
        t("[true false]"),
        t("{\"a\":[1,2,3],\"b\":{\"c\":{\"d\":4}}}"),
        Value::Integer(42),
        Value::Real(2.5),
        Value::Null,
        Value::Blob(vec![0x00]),
        Value::Blob(vec![0x01]),
        Value::Blob(vec![0x13, b'5']),
        Value::Blob(vec![0x37, b'a', b'b', b'c']),
        Value::Blob(vec![0x2b, 0x13, b'1', 0x01]),
        Value::Blob(vec![0x61]),
        Value::Blob(vec![]),
    ]
}

fn paths() -> Vec<Value> {
    let t = Value::text;
    vec![
        t("$"),
        t("$.a"),
        t("$.b[1]"),
        t("$.b[2].c"),
        t("$.b[#-1]"),
        t("$.b[#]"),
        t("$[0]"),
        t("$[#-1]"),
        t("$[9]"),
        t("$.a.b.c[2]"),
        t("$.\"a b\""),
        t("$.\"k\\\"ey\""),
        t("$.é"),
        t("$.zz"),
        t("$.d"),
        t("$.e"),
        t("a"),
        t("$a"),
        t("$."),
        t("$[-1]"),
        t("$[#-x]"),
        t("$.\"open"),
        t("$[1"),
        Value::Null,
        Value::Integer(1),
    ]
}

fn check(db: &RefDb, sql: &str, ours_name: &str, args: &[Value], bad: &mut Vec<String>) {
    let e = db.eval(sql, args);
    let (g, _) = call_scalar_sub(ours_name, args, &vec![0; args.len()]);
    if !same(&e, &g) {
        let shown: Vec<String> = args.iter().map(|a| show(&Ok(a.clone()))).collect();
        bad.push(format!("{sql} [{}] sqlite={} ours={}", shown.join(", "), show(&e), show(&g)));
    }
}

#[test]
fn documents() {
    let db = RefDb::open();
    let mut bad = Vec::new();
    for d in docs() {
        for f in ["json", "json_valid", "json_type", "json_array_length", "json_error_position", "json_quote", "json_pretty"] {
            check(&db, &format!("{f}(?)"), f, std::slice::from_ref(&d), &mut bad);
        }
        for flags in [1, 2, 3, 4, 6, 8, 15, 0, 16] {
            check(&db, "json_valid(?,?)", "json_valid", &[d.clone(), Value::Integer(flags)], &mut bad);
        }
    }
    assert_clean(bad);
}

#[test]
fn paths_and_extraction() {
    let db = RefDb::open();
    let mut bad = Vec::new();
    for d in docs() {
        for p in paths() {
            for f in ["json_extract", "json_type", "json_array_length", "->", "->>"] {
                let sql = match f {
                    "->" => "? -> ?".to_string(),
                    "->>" => "? ->> ?".to_string(),
                    _ => format!("{f}(?,?)"),
                };
                check(&db, &sql, f, &[d.clone(), p.clone()], &mut bad);
            }
            check(&db, "json_remove(?,?)", "json_remove", &[d.clone(), p.clone()], &mut bad);
            for f in ["json_set", "json_insert", "json_replace", "json_array_insert"] {
                check(&db, &format!("{f}(?,?,?)"), f, &[d.clone(), p.clone(), Value::text("v")], &mut bad);
                check(&db, &format!("{f}(?,?,?)"), f, &[d.clone(), p.clone(), Value::Real(0.1)], &mut bad);
            }
        }
        check(&db, "json_extract(?,?,?)", "json_extract", &[d.clone(), Value::text("$.a"), Value::text("$[0]")], &mut bad);
    }
    for label in [
        Value::text("a"),
        Value::text("a b"),
        Value::text("[1]"),
        Value::text("#-1"),
        Value::text(""),
        Value::Integer(-1),
        Value::Integer(0),
        Value::Integer(-9),
        Value::Real(2.0),
        Value::text("\"a\""),
    ] {
        for d in ["{\"a\":1,\"a b\":2,\"2.0\":3,\"\\\"a\\\"\":4}", "[5,6,7]"] {
            check(&db, "? -> ?", "->", &[Value::text(d), label.clone()], &mut bad);
            check(&db, "? ->> ?", "->>", &[Value::text(d), label.clone()], &mut bad);
        }
    }
    assert_clean(bad);
}

#[test]
fn constructors() {
    let db = RefDb::open();
    let mut bad = Vec::new();
    let vals = vec![
        Value::Null,
        Value::Integer(-7),
        Value::Real(0.1),
        Value::Real(100.0),
        Value::Real(1e300 * 1e10),
        Value::Real(-0.0),
        Value::Real(1.0 / 3.0),
        Value::text("plain \"quoted\" \\ back\n\t\u{1}"),
        Value::text("[1,2]"),
        Value::Blob(vec![0x01]),
        Value::Blob(vec![0xff, 0x00]),
    ];
    for v in &vals {
        check(&db, "json_quote(?)", "json_quote", std::slice::from_ref(v), &mut bad);
        check(&db, "json_array(?, ?)", "json_array", &[v.clone(), Value::Integer(1)], &mut bad);
        check(&db, "json_object(?, ?)", "json_object", &[Value::text("k"), v.clone()], &mut bad);
        check(&db, "json_object(?, 1)", "json_object", &[v.clone(), Value::Integer(1)], &mut bad);
    }
    check(&db, "json_array()", "json_array", &[], &mut bad);
    check(&db, "json_object()", "json_object", &[], &mut bad);
    check(&db, "json_object(?)", "json_object", &[Value::text("a")], &mut bad);
    check(&db, "json_set(?,?)", "json_set", &[Value::text("{}"), Value::text("$.a")], &mut bad);
    check(&db, "json_insert(?)", "json_insert", &[Value::text(" [1] ")], &mut bad);
    for (t, p) in [
        ("{\"a\":1,\"b\":{\"c\":2}}", "{\"b\":{\"c\":null,\"d\":3},\"e\":4}"),
        ("[1]", "{\"a\":1}"),
        ("{\"a\":1}", "[2]"),
        ("{\"a\":{\"b\":1}}", "{\"a\":{\"b\":{\"c\":1}}}"),
        ("{\"a\":1,\"a\":2}", "{\"a\":null}"),
    ] {
        check(&db, "json_patch(?,?)", "json_patch", &[Value::text(t), Value::text(p)], &mut bad);
    }
    for (doc, edits) in [
        ("{}", vec!["$.a[0]", "$.a[#]", "$.a.b[#]", "$.x.y.z"]),
        ("[]", vec!["$[0]", "$[1]", "$[#]"]),
        ("[1,2]", vec!["$[#-1]", "$[#]", "$[2]", "$"]),
        ("{\"a\":1}", vec!["$.a.b", "$.a", "$"]),
    ] {
        for e in edits {
            for f in ["json_set", "json_insert", "json_replace", "json_remove"] {
                if f == "json_remove" {
                    check(&db, "json_remove(?,?)", f, &[Value::text(doc), Value::text(e)], &mut bad);
                } else {
                    check(&db, &format!("{f}(?,?,?)"), f, &[Value::text(doc), Value::text(e), Value::Integer(9)], &mut bad);
                }
            }
        }
    }
    for indent in [Value::Null, Value::text(""), Value::text("ab"), Value::Integer(2)] {
        check(&db, "json_pretty(?,?)", "json_pretty", &[Value::text("{\"a\":[1,{}],\"b\":[]}"), indent], &mut bad);
    }
    assert_clean(bad);
}

#[test]
fn subtypes_compose() {
    let db = RefDb::open();
    let (inner, st) = call_scalar_sub("json", &[Value::text(" [1, 2] ")], &[0]);
    assert_eq!(st, 74);
    let inner = inner.unwrap();
    let (g, _) = call_scalar_sub("json_array", &[inner.clone(), Value::text("[3]")], &[74, 0]);
    let e = db.eval("json_array(json(' [1, 2] '), '[3]')", &[]);
    assert!(same(&e, &g), "{} vs {}", show(&e), show(&g));
    let (g, _) = call_scalar_sub("json_object", &[Value::text("a"), inner.clone()], &[0, 74]);
    let e = db.eval("json_object('a', json(' [1, 2] '))", &[]);
    assert!(same(&e, &g), "{} vs {}", show(&e), show(&g));
    let (g, _) = call_scalar_sub("json_set", &[Value::text("{}"), Value::text("$.x"), inner], &[0, 0, 74]);
    let e = db.eval("json_set('{}', '$.x', json(' [1, 2] '))", &[]);
    assert!(same(&e, &g), "{} vs {}", show(&e), show(&g));
}

#[test]
fn group_aggregates() {
    let db = RefDb::open();
    let rows = [
        vec![Value::text("a"), Value::Integer(1)],
        vec![Value::Null, Value::Integer(2)],
        vec![Value::text("b"), Value::text("x\"y")],
        vec![Value::text("c"), Value::Null],
        vec![Value::text("a"), Value::Real(2.5)],
    ];
    let mut vals = String::new();
    let mut params = Vec::new();
    for (i, r) in rows.iter().enumerate() {
        if i > 0 {
            vals.push(',');
        }
        vals.push_str("(?,?)");
        params.extend(r.iter().cloned());
    }
    for (name, call, args) in [
        ("json_group_array", "json_group_array(c1)", 1usize),
        ("json_group_array", "json_group_array(c0)", 0),
        ("json_group_object", "json_group_object(c0, c1)", 2),
    ] {
        let sql = format!("WITH t(c0,c1) AS (VALUES {vals}) SELECT {call} FROM t");
        let e = db.query(&sql, &params).map(|r| r[0][0].clone());
        let ours_rows: Vec<Vec<Value>> = rows
            .iter()
            .map(|r| match args {
                0 => vec![r[0].clone()],
                1 => vec![r[1].clone()],
                _ => r.clone(),
            })
            .collect();
        let g = call_aggregate(name, &ours_rows);
        assert!(same(&e, &g), "{call}: {} vs {}", show(&e), show(&g));
    }
    let e = db.query("SELECT json_group_array(1) WHERE 0", &[]).map(|r| r[0][0].clone());
    let g = call_aggregate_n("json_group_array", 1, &[]);
    assert!(same(&e, &g), "empty: {} vs {}", show(&e), show(&g));
}

#[test]
fn jsonb_output() {
    let db = RefDb::open();
    let mut bad = Vec::new();
    for d in docs() {
        check(&db, "jsonb(?)", "jsonb", std::slice::from_ref(&d), &mut bad);
        for p in ["$", "$.a", "$.b", "$[1]", "$[#-1]", "$.a.b"] {
            check(&db, "jsonb_extract(?,?)", "jsonb_extract", &[d.clone(), Value::text(p)], &mut bad);
            check_jsonb_edit(&db, "jsonb_remove", &[d.clone(), Value::text(p)], &mut bad);
            for v in [Value::text("s\"t"), Value::Integer(3), Value::Real(1.0 / 3.0), Value::Blob(vec![0x01])] {
                for f in ["jsonb_set", "jsonb_insert", "jsonb_replace", "jsonb_array_insert"] {
                    check_jsonb_edit(&db, f, &[d.clone(), Value::text(p), v.clone()], &mut bad);
                }
            }
        }
        check(&db, "jsonb_extract(?,?,?)", "jsonb_extract", &[d.clone(), Value::text("$[0]"), Value::text("$.a")], &mut bad);
        // JSONB in, text out.
        let blob = db.eval("jsonb(?)", std::slice::from_ref(&d));
        if let Ok(b @ Value::Blob(_)) = blob {
            for f in ["json", "json_type", "json_valid", "json_quote", "json_array_length"] {
                check(&db, &format!("{f}(?)"), f, std::slice::from_ref(&b), &mut bad);
            }
            check(&db, "json_extract(?, '$[1]')", "json_extract", &[b.clone(), Value::text("$[1]")], &mut bad);
            check(&db, "json_valid(?, 4)", "json_valid", &[b.clone(), Value::Integer(4)], &mut bad);
        }
    }
    let vals = [
        Value::Null,
        Value::Integer(-7),
        Value::Real(0.1),
        Value::Real(2.5),
        Value::Real(100.0),
        Value::Real(1.0 / 3.0),
        Value::Real(1e300 * 1e10),
        Value::Real(-1e-300),
        Value::Real(1e17),
        Value::Real(123_456_789.123_456_79),
        Value::text("abc"),
        Value::text("a\"b\\c\n\u{1}"),
        Value::text("é"),
        Value::Blob(vec![0x01]),
    ];
    for v in &vals {
        check(&db, "jsonb_array(?)", "jsonb_array", std::slice::from_ref(v), &mut bad);
        check(&db, "jsonb_object(?, ?)", "jsonb_object", &[Value::text("k\"ey"), v.clone()], &mut bad);
        check_jsonb_edit(&db, "jsonb_set", &[Value::text("{}"), Value::text("$.a"), v.clone()], &mut bad);
    }
    let long: String = (0..300).map(|i| format!("{},", i)).collect();
    for d in [format!("[{}0]", long), format!("\"{}\"", "x".repeat(70000)), "[[[[[]]]]]".to_string()] {
        check(&db, "jsonb(?)", "jsonb", &[Value::text(d.as_str())], &mut bad);
    }
    check_jsonb_edit(&db, "jsonb_patch", &[Value::text("{\"a\":1,\"b\":2}"), Value::text("{\"a\":null,\"c\":'x'}")], &mut bad);
    assert_clean(bad);
}

/// The jsonb edit functions: SQLite edits JSONB in place and may leave
/// wider size fields than needed, so results are compared as JSON text
/// (and for well-formedness), not byte for byte.
fn check_jsonb_edit(db: &RefDb, f: &str, args: &[Value], bad: &mut Vec<String>) {
    let ph = vec!["?"; args.len()].join(",");
    let e = db.eval(&format!("json({f}({ph}))"), args);
    let (g, _) = call_scalar_sub(f, args, &vec![0; args.len()]);
    let g = match g {
        Ok(b @ Value::Blob(_)) => {
            let (t, _) = call_scalar_sub("json", std::slice::from_ref(&b), &[0]);
            let valid = db.eval("json_valid(?, 8)", &[b]);
            if !same(&valid, &Ok(Value::Integer(1))) {
                bad.push(format!("{f} {args:?}: ours is not valid JSONB"));
            }
            t
        }
        other => other,
    };
    if !same(&e, &g) {
        let shown: Vec<String> = args.iter().map(|a| show(&Ok(a.clone()))).collect();
        bad.push(format!("json({f}({})) sqlite={} ours={}", shown.join(", "), show(&e), show(&g)));
    }
}

#[test]
fn json_each_and_tree_rows() {
    use ringlite::vdbe::func::builtins::json::each;
    let db = RefDb::open();
    let mut bad = Vec::new();
    let mut roots: Vec<Option<Value>> = vec![None, Some(Value::Null)];
    for p in [
        "$",
        "$.a",
        "$.b",
        "$.b[2]",
        "$.b[2].c",
        "$[1]",
        "$[0]",
        "$[#-1]",
        "$.zz",
        "$.\"a b\"",
        "$.a.b.c",
        "$.a.b",
        "$.y[1].q",
        "$.y[0]",
        "$.y",
        "$.x",
        "$.\"9z\"",
        "$[4]",
        "x",
        "$[",
    ] {
        roots.push(Some(Value::text(p)));
    }
    let mut ds = docs();
    ds.push(Value::text("{\"x\": 1, \"y\": [2, {\"q\":null}], \"a b\": \"t\", \"\": 3, \"9z\": 4, \"k\\\"e\": 5, \"é\": 6}"));
    ds.push(Value::text(format!("[{}]", (0..40).map(|i| format!("\"{}\"", "s".repeat(i))).collect::<Vec<_>>().join(","))));
    for d in ds {
        for r in &roots {
            for (recursive, f) in [(false, "json_each"), (true, "json_tree")] {
                let (sql, params) = match r {
                    None => (format!("SELECT * FROM {f}(?)"), vec![d.clone()]),
                    Some(p) => (format!("SELECT * FROM {f}(?, ?)"), vec![d.clone(), p.clone()]),
                };
                let e = db.query(&sql, &params);
                let g = each::rows(&d, r.as_ref(), recursive).map_err(|e| e.message);
                let ok = match (&e, &g) {
                    (Ok(a), Ok(b)) => {
                        a.len() == b.len()
                            && a.iter().zip(b).all(|(x, y)| x.len() == y.len() && x.iter().zip(y).all(|(u, v)| same(&Ok(u.clone()), &Ok(v.clone()))))
                    }
                    (Err(a), Err(b)) => a == b,
                    _ => false,
                };
                if !ok {
                    bad.push(format!("{sql} {params:?}\n  sqlite={e:?}\n  ours={g:?}"));
                }
            }
        }
    }
    assert_clean(bad);
}
