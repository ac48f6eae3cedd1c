//! Robustness: every built-in function SQLite 3.54.1 registers (by name
//! and argument count, taken from the reference's `pragma function_list`)
//! is looked up in ringlite's registry and called with random values,
//! including malformed text and blobs; nothing may panic. Also checks that
//! ringlite knows each of those functions (except the FTS and R-tree ones,
//! which are out of scope).
use crate::func_support;
use func_support::*;
use ringlite::value::Value;
use ringlite::vdbe::func::{FuncKind, FunctionRegistry};

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn value(&mut self) -> Value {
        match self.next() % 9 {
            0 => Value::Null,
            1 => Value::Integer(self.next() as i64),
            2 => Value::Integer((self.next() % 20) as i64 - 10),
            3 => Value::Real(f64::from_bits(self.next())),
            4 => Value::Real((self.next() % 1000) as f64 / 7.0 - 50.0),
            5 => {
                let n = (self.next() % 12) as usize;
                Value::Blob((0..n).map(|_| self.next() as u8).collect())
            }
            6 => {
                let pieces = ["$", ".", "[", "]", "#", "-", "1", "a", "\"", "{", "}", ":", ",", "%", "_", "\\", "é", "\0"];
                let n = (self.next() % 10) as usize;
                Value::text((0..n).map(|_| pieces[(self.next() % pieces.len() as u64) as usize]).collect::<String>())
            }
            7 => {
                let samples = ["2024-01-01", "now", "+1 day", "start of month", "unixepoch", "$.a", "[1,2]", "{\"a\":1}", "%Y"];
                Value::text(samples[(self.next() % samples.len() as u64) as usize])
            }
            _ => {
                let n = (self.next() % 8) as usize;
                Value::Text((0..n).map(|_| self.next() as u8).collect())
            }
        }
    }
}

const OUT_OF_SCOPE: &[&str] = &[
    "bm25",
    "fts3_tokenizer",
    "fts5",
    "fts5_get_locale",
    "fts5_insttoken",
    "fts5_locale",
    "fts5_source_id",
    "highlight",
    "match",
    "matchinfo",
    "offsets",
    "optimize",
    "rtreecheck",
    "rtreedepth",
    "rtreenode",
    "snippet",
];

#[test]
fn every_function_exists_and_never_panics() {
    let db = RefDb::open();
    let list = db.query("SELECT name, narg FROM pragma_function_list ORDER BY name, narg", &[]).unwrap();
    let reg = FunctionRegistry::with_builtins();
    let mut missing = Vec::new();
    let mut rng = Rng(0xdead_beef_cafe_f00d);
    for row in list {
        let (Value::Text(name), Value::Integer(narg)) = (&row[0], &row[1]) else { continue };
        let name = String::from_utf8(name.clone()).unwrap();
        if OUT_OF_SCOPE.contains(&name.as_str()) {
            continue;
        }
        // Negative counts are variadic (SQLite encodes a minimum in them).
        let arities: Vec<usize> = if *narg < 0 { (0..5).collect() } else { vec![*narg as usize] };
        for n in arities {
            let Some(def) = reg.find(&name, n) else {
                missing.push(format!("{name}/{n}"));
                continue;
            };
            for _ in 0..300 {
                let args: Vec<Value> = (0..n).map(|_| rng.value()).collect();
                let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match &def.kind {
                    FuncKind::Scalar(f) => in_ctx(|ctx| {
                        let _ = f.call(ctx, &args);
                    }),
                    FuncKind::Aggregate(f) => in_ctx(|ctx| {
                        let mut st = f.start();
                        for _ in 0..3 {
                            let _ = st.step(ctx, &args);
                        }
                        let _ = st.value(ctx);
                        if f.has_inverse() {
                            let _ = st.inverse(ctx, &args);
                        }
                        let _ = st.finalize(ctx);
                    }),
                }));
                assert!(r.is_ok(), "{name}({args:?}) panicked");
            }
        }
    }
    assert!(missing.is_empty(), "missing: {missing:?}");
}

#[test]
fn case_sensitive_like_follows_the_context() {
    let db = RefDb::open();
    db.query("PRAGMA case_sensitive_like=1", &[]).unwrap();
    for (p, s) in [("a%", "ABC"), ("A%", "ABC"), ("_b_", "aBc"), ("é%", "É")] {
        let args = [Value::text(p), Value::text(s)];
        let e = db.eval("? LIKE ?", &[args[1].clone(), args[0].clone()]);
        let e2 = db.eval("like(?,?)", &args);
        let g = call_scalar_ctx(Ctx { case_sensitive_like: true, ..Ctx::default() }, "like", &args);
        assert!(same(&e2, &g), "{p} {s}: {} vs {}", show(&e2), show(&g));
        let _ = e;
    }
}

#[test]
fn deep_structures_and_paths() {
    let db = RefDb::open();
    let mut bad = Vec::new();
    let mut check = |sql: &str, f: &str, args: Vec<Value>| {
        let e = db.eval(sql, &args);
        let g = call_scalar(f, &args);
        if !same(&e, &g) {
            bad.push(format!(
                "{sql} (len {}) sqlite={} ours={}",
                args.len(),
                show(&e).chars().take(80).collect::<String>(),
                show(&g).chars().take(80).collect::<String>()
            ));
        }
    };
    for n in [999usize, 1000, 1001, 5000, 100_000] {
        let doc = format!("{}{}", "[".repeat(n), "]".repeat(n));
        check("json_valid(?)", "json_valid", vec![Value::text(doc.as_str())]);
        check("json_error_position(?)", "json_error_position", vec![Value::text(doc.as_str())]);
        let obj = format!("{}1{}", "{\"a\":".repeat(n.min(5000)), "}".repeat(n.min(5000)));
        check("json_valid(?)", "json_valid", vec![Value::text(obj.as_str())]);
        let path = format!("${}", ".a".repeat(n));
        check("json_set(?, ?, ?)", "json_set", vec![Value::text("{}"), Value::text(path.as_str()), Value::Integer(1)]);
        check("json_extract(?, ?)", "json_extract", vec![Value::text("{}"), Value::text(path.as_str())]);
        let ipath = format!("${}", "[0]".repeat(n));
        check("json_insert(?, ?, ?)", "json_insert", vec![Value::text("[]"), Value::text(ipath.as_str()), Value::Integer(1)]);
    }
    let nested = format!("{}{}", "[".repeat(1000), "]".repeat(1000));
    let blob = db.eval("jsonb(?)", &[Value::text(nested.as_str())]).unwrap();
    check("json(?)", "json", vec![blob]);
    assert_clean(bad);
}
