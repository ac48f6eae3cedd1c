//! Seeded random differential tests against SQLite 3.54.1: LIKE/GLOB
//! patterns, JSON texts (valid, JSON5 and broken), date strings with
//! modifiers, and string functions over random text.
use crate::func_support;
use func_support::*;
use ringlite::value::Value;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn string(&mut self, alphabet: &[&str], max_len: usize) -> String {
        let n = self.below(max_len + 1);
        (0..n).map(|_| alphabet[self.below(alphabet.len())]).collect()
    }
}

fn compare(db: &RefDb, sql: &str, name: &str, args: &[Value], bad: &mut Vec<String>) {
    let e = db.eval(sql, args);
    let g = call_scalar(name, args);
    if !same(&e, &g) {
        let shown: Vec<String> = args.iter().map(|a| show(&Ok(a.clone()))).collect();
        bad.push(format!("{sql} [{}] sqlite={} ours={}", shown.join(", "), show(&e), show(&g)));
    }
}

#[test]
fn like_and_glob() {
    let db = RefDb::open();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let pat_alpha = ["a", "b", "A", "%", "_", "*", "?", "[", "]", "^", "-", "\\", "é", "c"];
    let str_alpha = ["a", "b", "A", "B", "%", "_", "*", "]", "-", "\\", "é", "c", "É"];
    let mut bad = Vec::new();
    for _ in 0..4000 {
        let p = Value::text(rng.string(&pat_alpha, 7));
        let s = Value::text(rng.string(&str_alpha, 8));
        compare(&db, "like(?,?)", "like", &[p.clone(), s.clone()], &mut bad);
        compare(&db, "glob(?,?)", "glob", &[p.clone(), s.clone()], &mut bad);
        let esc = Value::text(["\\", "a", "%", "_", "é"][rng.below(5)]);
        compare(&db, "like(?,?,?)", "like", &[p, s, esc], &mut bad);
    }
    assert_clean(bad);
}

#[test]
fn json_texts() {
    let db = RefDb::open();
    let mut rng = Rng(0x7777_1234_5678_9abc);
    let alpha = [
        "{", "}", "[", "]", ",", ":", "\"a\"", "\"b\\n\"", "'c'", "1", "-2.5", "1e3", "0x1f", ".5", "5.", "true", "null", "false", " ", "\n", "/*x*/", "//y\n",
        "Infinity", "NaN", "key", "\"", "\\", "+1", "01", "é", "\t",
    ];
    let mut bad = Vec::new();
    for _ in 0..6000 {
        let doc = Value::text(rng.string(&alpha, 9));
        for f in ["json", "json_valid", "json_type", "jsonb", "json_error_position"] {
            compare(&db, &format!("{f}(?)"), f, std::slice::from_ref(&doc), &mut bad);
        }
        compare(&db, "json_valid(?,2)", "json_valid", &[doc.clone(), Value::Integer(2)], &mut bad);
    }
    assert_clean(bad);
}

#[test]
fn dates() {
    let db = RefDb::open();
    let mut rng = Rng(0x0bad_cafe_dead_beef);
    let bases = [
        "2024-02-29",
        "2023-01-31 23:59:59.999",
        "1999-12-31T12:00",
        "2000-03-01 00:00:00-05:00",
        "12:00",
        "2460000.5",
        "1700000000",
        "0001-01-01",
        "9999-12-31",
        "2024-06-15 08:30:00Z",
    ];
    let mods = [
        "+1 day",
        "-3 days",
        "+2 months",
        "-13 months",
        "+1 year",
        "-0.5 years",
        "+36 hours",
        "-90 minutes",
        "+59.5 seconds",
        "start of month",
        "start of year",
        "start of day",
        "weekday 0",
        "weekday 6",
        "unixepoch",
        "auto",
        "julianday",
        "floor",
        "ceiling",
        "subsec",
        "+01:02:03",
        "-00:00:01.5",
        "+0001-01-01",
        "-0000-01-00 12:00",
        "localtime",
        "utc",
    ];
    let mut bad = Vec::new();
    for _ in 0..3000 {
        let mut args = vec![Value::text(bases[rng.below(bases.len())])];
        if rng.below(3) == 0 {
            if let Value::Text(t) = &args[0] {
                if let Ok(n) = std::str::from_utf8(t).unwrap().parse::<f64>() {
                    args[0] = Value::Real(n);
                }
            }
        }
        for _ in 0..rng.below(4) {
            args.push(Value::text(mods[rng.below(mods.len())]));
        }
        let ph = vec!["?"; args.len()].join(",");
        for f in ["datetime", "julianday", "unixepoch"] {
            compare(&db, &format!("{f}({ph})"), f, &args, &mut bad);
        }
        let mut sargs = vec![Value::text("%Y %j %W %U %V %G %u %w %s %f %J")];
        sargs.extend(args.iter().cloned());
        compare(&db, &format!("strftime(?,{ph})"), "strftime", &sargs, &mut bad);
    }
    assert_clean(bad);
}

#[test]
fn strings() {
    let db = RefDb::open();
    let mut rng = Rng(0x5555_aaaa_1234_4321);
    let alpha = ["a", "b", " ", "é", "日", "\u{0}", "x", "ab", "'", "\"", "\\", "\n", "1", "."];
    let mut bad = Vec::new();
    for _ in 0..3000 {
        let x = Value::text(rng.string(&alpha, 8));
        let y = Value::text(rng.string(&alpha, 3));
        let z = Value::text(rng.string(&alpha, 3));
        let i = Value::Integer(rng.below(12) as i64 - 6);
        let j = Value::Integer(rng.below(12) as i64 - 6);
        compare(&db, "substr(?,?,?)", "substr", &[x.clone(), i.clone(), j.clone()], &mut bad);
        compare(&db, "substr(?,?)", "substr", &[x.clone(), i.clone()], &mut bad);
        compare(&db, "instr(?,?)", "instr", &[x.clone(), y.clone()], &mut bad);
        compare(&db, "replace(?,?,?)", "replace", &[x.clone(), y.clone(), z.clone()], &mut bad);
        compare(&db, "trim(?,?)", "trim", &[x.clone(), y.clone()], &mut bad);
        compare(&db, "ltrim(?,?)", "ltrim", &[x.clone(), y.clone()], &mut bad);
        compare(&db, "rtrim(?,?)", "rtrim", &[x.clone(), y.clone()], &mut bad);
        for f in ["length", "upper", "quote", "unicode", "hex", "unistr_quote", "json_quote"] {
            compare(&db, &format!("{f}(?)"), f, std::slice::from_ref(&x), &mut bad);
        }
    }
    assert_clean(bad);
}

#[test]
fn date_texts() {
    let db = RefDb::open();
    let mut rng = Rng(0x2468_ace0_1357_9bdf);
    let alpha = ["2", "0", "1", "9", "-", ":", " ", "T", ".", "5", "Z", "+", "12", "2024", "-01", "-31", ":59", "now", "z", "x"];
    let mods = ["+", "-", "1", "0", ".", " ", "day", "days", "month", "year", "hours", "s", ":", "30", "weekday ", "start of ", "2"];
    let mut bad = Vec::new();
    for _ in 0..4000 {
        let t = Value::text(rng.string(&alpha, 8));
        let m = Value::text(rng.string(&mods, 5));
        compare(&db, "datetime(?)", "datetime", std::slice::from_ref(&t), &mut bad);
        compare(&db, "julianday(?)", "julianday", std::slice::from_ref(&t), &mut bad);
        compare(&db, "datetime(?, ?)", "datetime", &[Value::text("2024-05-06 07:08:09"), m.clone()], &mut bad);
        compare(&db, "unixepoch(?, ?)", "unixepoch", &[t, m], &mut bad);
    }
    // 'now' itself is not deterministic; everything else above is.
    bad.retain(|b| !b.contains("now"));
    assert_clean(bad);
}

#[test]
fn aggregates_over_random_rows() {
    let db = RefDb::open();
    let mut rng = Rng(0x0f0f_f0f0_1234_5678);
    let mut bad = Vec::new();
    for _ in 0..300 {
        let n = rng.below(6);
        let rows: Vec<Value> = (0..n)
            .map(|_| match rng.below(7) {
                0 => Value::Null,
                1 => Value::Integer(rng.next() as i64 >> rng.below(64)),
                2 => Value::Integer(rng.below(100) as i64 - 50),
                3 => Value::Real((rng.next() % 100000) as f64 / 64.0 - 700.0),
                4 => Value::text(["1", "2.5", "abc", " 7 ", "1e400", "-0"][rng.below(6)]),
                5 => Value::Blob(vec![b'3'; rng.below(3)]),
                _ => Value::Real([1e308, -1e308, 0.1, 1e-320][rng.below(4)]),
            })
            .collect();
        let vals = rows.iter().map(|_| "(?)").collect::<Vec<_>>().join(",");
        for f in ["sum", "total", "avg", "min", "max", "count", "group_concat"] {
            let sql =
                if rows.is_empty() { format!("SELECT {f}(x) FROM (SELECT 1 x) WHERE 0") } else { format!("WITH t(x) AS (VALUES {vals}) SELECT {f}(x) FROM t") };
            let e = db.query(&sql, &rows).map(|r| r[0][0].clone());
            let argrows: Vec<Vec<Value>> = rows.iter().map(|v| vec![v.clone()]).collect();
            let g = call_aggregate_n(f, 1, &argrows);
            if !same(&e, &g) {
                bad.push(format!("{f}({rows:?}) sqlite={} ours={}", show(&e), show(&g)));
            }
        }
    }
    assert_clean(bad);
}

#[test]
fn modifier_chains() {
    let db = RefDb::open();
    let mut rng = Rng(0x1357_2468_9bdf_ace0);
    let mods = [
        "+1.5 months",
        "-2.25 years",
        "+0.5 days",
        "-1000 hours",
        "+86399.999 seconds",
        "-1 minute",
        "floor",
        "ceiling",
        "auto",
        "unixepoch",
        "julianday",
        "subsec",
        "start of month",
        "start of year",
        "start of day",
        "weekday 3",
        "weekday -5",
        "+00:00:00.5",
        "-23:59",
        "+0002-11-30",
        "-0000-00-01 01:02:03.5",
        "utc",
        "localtime",
        "+13 months",
        "-12 months",
        "+1 year",
        "+366 days",
    ];
    let mut bad = Vec::new();
    for _ in 0..3000 {
        let base = match rng.below(4) {
            0 => Value::Real((rng.next() % 5_373_484_000) as f64 / 1000.0),
            1 => Value::Integer((rng.next() % 253_402_300_799) as i64 - 100_000_000_000),
            2 => Value::text(format!(
                "{:04}-{:02}-{:02} {:02}:{:02}:{:02}.{:03}",
                rng.below(10000),
                1 + rng.below(12),
                1 + rng.below(31),
                rng.below(24),
                rng.below(60),
                rng.below(60),
                rng.below(1000)
            )),
            _ => Value::text(format!("{:02}:{:02}", rng.below(25), rng.below(60))),
        };
        let mut args = vec![base];
        for _ in 0..rng.below(4) {
            args.push(Value::text(mods[rng.below(mods.len())]));
        }
        let ph = vec!["?"; args.len()].join(",");
        for f in ["datetime", "unixepoch", "julianday", "date", "time"] {
            compare(&db, &format!("{f}({ph})"), f, &args, &mut bad);
        }
    }
    assert_clean(bad);
}

trait NanToNull {
    fn clone_if_number(self) -> Value;
}

impl NanToNull for Value {
    fn clone_if_number(self) -> Value {
        match self {
            Value::Real(r) if r.is_nan() => Value::Null,
            v => v,
        }
    }
}

fn random_value(rng: &mut Rng) -> Value {
    match rng.below(10) {
        0 => Value::Null,
        1 => Value::Integer(rng.next() as i64),
        2 => Value::Integer(rng.below(40) as i64 - 20),
        // NaN is bound as NULL by SQLite; the VM does the same. (Arbitrary
        // doubles needing 17 digits are left to the value layer's tests:
        // their text form is not this module's.)
        3 => Value::Real(format!("{:.12e}", f64::from_bits(rng.next())).parse::<f64>().unwrap_or(0.0)).clone_if_number(),
        4 => Value::Real((rng.next() % 200000) as f64 / 128.0 - 700.0),
        5 => Value::Blob((0..rng.below(6)).map(|_| rng.next() as u8).collect()),
        6 => Value::Text((0..rng.below(6)).map(|_| rng.next() as u8).collect()),
        7 => Value::text(rng.string(&["1", "2", ".", "e", "-", " ", "a", "%", "_", "\\", "é", "0x", "[", "]"], 6)),
        8 => Value::text(["", "abc", "ABC", " 12 ", "1e3", "-0", "9223372036854775808", "0.5"][rng.below(8)]),
        _ => Value::Real([0.0, -0.0, 1e308, -1e-308, 4503599627370497.0, 2.5, -2.5][rng.below(7)]),
    }
}

#[test]
fn scalars_over_random_values() {
    let db = RefDb::open();
    let mut rng = Rng(0xabcd_ef01_2345_6789);
    let funcs: &[(&str, usize)] = &[
        ("abs", 1),
        ("char", 2),
        ("hex", 1),
        ("instr", 2),
        ("length", 1),
        ("octet_length", 1),
        ("lower", 1),
        ("upper", 1),
        ("ltrim", 2),
        ("rtrim", 2),
        ("trim", 2),
        ("trim", 1),
        ("nullif", 2),
        ("quote", 1),
        ("replace", 3),
        ("round", 2),
        ("round", 1),
        ("sign", 1),
        ("soundex", 1),
        ("substr", 3),
        ("substr", 2),
        ("typeof", 1),
        ("unhex", 2),
        ("unhex", 1),
        ("unicode", 1),
        ("zeroblob", 1),
        ("max", 3),
        ("min", 3),
        ("like", 2),
        ("glob", 2),
        ("like", 3),
        ("concat", 3),
        ("concat_ws", 3),
        ("iif", 3),
        ("coalesce", 3),
        ("unistr", 1),
        ("unistr_quote", 1),
        ("format", 3),
        ("json_quote", 1),
        ("json_array", 2),
        ("json_valid", 1),
    ];
    let mut bad = Vec::new();
    for _ in 0..1500 {
        for &(f, n) in funcs {
            let mut args: Vec<Value> = (0..n).map(|_| random_value(&mut rng)).collect();
            if f == "zeroblob" {
                if let Value::Integer(i) = args[0] {
                    args[0] = Value::Integer(i % 1000);
                }
            }
            // Random blobs given to JSON functions are JSONB to SQLite, which
            // checks them only superficially; ringlite rejects malformed
            // JSONB outright. Those cases are left out.
            if f.starts_with("json") && args.iter().any(|a| matches!(a, Value::Blob(_))) {
                continue;
            }
            let ph = vec!["?"; n].join(",");
            compare(&db, &format!("{f}({ph})"), f, &args, &mut bad);
        }
    }
    assert_clean(bad);
}

#[test]
fn json_paths_and_edits() {
    let db = RefDb::open();
    let mut rng = Rng(0x3141_5926_5358_9793);
    let docs = [
        "{\"a\":1,\"b\":[1,2,{\"c\":[3,{\"d\":4}]}],\"a b\":{\"x\":null},\"\\u0061\":5}",
        "[[1,2],[3,[4,5]],{\"k\":[]},\"s\",null]",
        "{\"a\":{\"a\":{\"a\":[0,1,2]}},\"e\":{}}",
        "{a:1, 'b':[.5,0x10,], c:{d:'x\\'y'}}",
        "7",
    ];
    let steps = [
        ".a", ".b", ".c", ".d", ".x", ".k", ".e", "[0]", "[1]", "[2]", "[5]", "[#]", "[#-1]", "[#-2]", "[#-9]", ".\"a b\"", ".\"a", "[", "[x]", ".", "[-1]",
        "..a", "[1",
    ];
    let mut bad = Vec::new();
    for _ in 0..4000 {
        let doc = Value::text(docs[rng.below(docs.len())]);
        let path = Value::text(format!("${}", rng.string(&steps, 4)));
        let val = [Value::Integer(9), Value::text("v"), Value::Null, Value::Real(0.5)][rng.below(4)].clone();
        for f in ["json_extract", "json_type", "json_array_length", "json_remove"] {
            compare(&db, &format!("{f}(?,?)"), f, &[doc.clone(), path.clone()], &mut bad);
        }
        compare(&db, "? -> ?", "->", &[doc.clone(), path.clone()], &mut bad);
        compare(&db, "? ->> ?", "->>", &[doc.clone(), path.clone()], &mut bad);
        for f in ["json_set", "json_insert", "json_replace", "json_array_insert"] {
            compare(&db, &format!("{f}(?,?,?)"), f, &[doc.clone(), path.clone(), val.clone()], &mut bad);
        }
        // JSONB forms: the same document, compared as JSON text.
        for f in ["jsonb_set", "jsonb_insert", "jsonb_array_insert", "jsonb_remove", "jsonb_extract"] {
            let args = if f == "jsonb_remove" || f == "jsonb_extract" { vec![doc.clone(), path.clone()] } else { vec![doc.clone(), path.clone(), val.clone()] };
            let ph = vec!["?"; args.len()].join(",");
            let e = db.eval(
                &format!("CASE WHEN typeof({f}({ph})) = 'blob' THEN json({f}({ph})) ELSE {f}({ph}) END"),
                &[args.clone(), args.clone(), args.clone()].concat(),
            );
            let g = match call_scalar(f, &args) {
                Ok(b @ Value::Blob(_)) => call_scalar("json", &[b]),
                other => other,
            };
            if !same(&e, &g) {
                bad.push(format!("{f}({args:?}) sqlite={} ours={}", show(&e), show(&g)));
            }
        }
    }
    assert_clean(bad);
}

#[test]
fn strftime_formats_random() {
    let db = RefDb::open();
    let mut rng = Rng(0x9999_8888_7777_6666);
    let pieces = [
        "%d", "%e", "%f", "%F", "%G", "%g", "%H", "%I", "%j", "%J", "%k", "%l", "%m", "%M", "%p", "%P", "%R", "%s", "%S", "%T", "%u", "%U", "%V", "%w", "%W",
        "%Y", "%%", "%", "%q", "-", " ", "x", "é",
    ];
    let mut bad = Vec::new();
    for _ in 0..3000 {
        let fmt = Value::text(rng.string(&pieces, 5));
        let t = Value::text(format!(
            "{:04}-{:02}-{:02} {:02}:{:02}:{:02}.{:03}",
            rng.below(10000),
            1 + rng.below(12),
            1 + rng.below(28),
            rng.below(24),
            rng.below(60),
            rng.below(60),
            rng.below(1000)
        ));
        compare(&db, "strftime(?,?)", "strftime", &[fmt.clone(), t.clone()], &mut bad);
        compare(&db, "strftime(?,?,'subsec')", "strftime", &[fmt, t, Value::text("subsec")], &mut bad);
    }
    assert_clean(bad);
}

#[test]
fn rounding_random() {
    let db = RefDb::open();
    let mut rng = Rng(0x0123_4567_89ab_cdef);
    let mut bad = Vec::new();
    for _ in 0..6000 {
        let x = match rng.below(4) {
            // exact binary fractions: ties at some position
            0 => (rng.below(1 << 20) as f64) / ((1u64 << rng.below(12)) as f64) * if rng.below(2) == 0 { 1.0 } else { -1.0 },
            1 => (rng.next() % 10_000_000) as f64 / 1000.0 - 5000.0,
            2 => f64::from_bits(rng.next() & 0x43ff_ffff_ffff_ffff),
            _ => (rng.next() % 1000) as f64 * 10f64.powi(rng.below(40) as i32 - 20),
        };
        let d = Value::Integer(rng.below(34) as i64 - 2);
        compare(&db, "round(?,?)", "round", &[Value::Real(x), d], &mut bad);
    }
    assert_clean(bad);
}

/// Decimal literals one digit past the rounding place ending in 4 or 5
/// (the shape of SQLite's round1.test): their binary values lie just
/// below or above the tie, and SQLite 3.54 decides them on printf's
/// digits, not on the exact expansion (round(3949.043666605, 8) is
/// 3949.04366661 though the double is 3949.04366660499999...).
#[test]
fn rounding_decimal_ties() {
    let db = RefDb::open();
    let mut rng = Rng(0x05ee_d0f0_da7a);
    let mut bad = Vec::new();
    for _ in 0..20000 {
        let n = rng.below(8) + 1;
        let frac: String = (0..n).map(|_| char::from(b'0' + rng.below(10) as u8)).collect();
        let last = if rng.below(2) == 0 { '4' } else { '5' };
        let sign = if rng.below(8) == 0 { "-" } else { "" };
        let text = format!("{sign}{}.{frac}{last}", rng.below(100_000));
        let x: f64 = text.parse().unwrap();
        compare(&db, "round(?,?)", "round", &[Value::Real(x), Value::Integer(n as i64)], &mut bad);
    }
    assert_clean(bad);
}

fn random_json(rng: &mut Rng, depth: usize) -> String {
    match if depth > 3 { rng.below(5) } else { rng.below(8) } {
        0 => "null".into(),
        1 => format!("{}", rng.below(1000) as i64 - 500),
        2 => ["1.5", "-0.25", "1e5", "0x1F", ".5", "true", "false"][rng.below(7)].into(),
        3 => ["\"s\"", "\"a\\nb\"", "'q'", "\"é\"", "\"\""][rng.below(5)].into(),
        4 => "[]".into(),
        5 | 6 => {
            let n = rng.below(5);
            let items: Vec<String> = (0..n).map(|_| random_json(rng, depth + 1)).collect();
            format!("[{}]", items.join(","))
        }
        _ => {
            let n = rng.below(5);
            let labels = ["a", "b", "a b", "9", "", "k\\\"", "x_y"];
            let items: Vec<String> = (0..n).map(|_| format!("\"{}\":{}", labels[rng.below(labels.len())], random_json(rng, depth + 1))).collect();
            format!("{{{}}}", items.join(","))
        }
    }
}

#[test]
fn json_each_tree_random() {
    use ringlite::vdbe::func::builtins::json::each;
    let db = RefDb::open();
    let mut rng = Rng(0x0dd0_0dd0_1234_abcd);
    let steps = [".a", ".b", ".\"a b\"", ".\"9\"", ".x_y", "[0]", "[1]", "[2]", "[#-1]"];
    let mut bad = Vec::new();
    for _ in 0..1500 {
        let doc = Value::text(random_json(&mut rng, 0));
        let path = Value::text(format!("${}", rng.string(&steps, 3)));
        for (recursive, f) in [(false, "json_each"), (true, "json_tree")] {
            let e = db.query(&format!("SELECT * FROM {f}(?, ?)"), &[doc.clone(), path.clone()]);
            let g = each::rows(&doc, Some(&path), recursive).map_err(|e| e.message);
            let ok = match (&e, &g) {
                (Ok(a), Ok(b)) => a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.iter().zip(y).all(|(u, v)| same(&Ok(u.clone()), &Ok(v.clone())))),
                (Err(a), Err(b)) => a == b,
                _ => false,
            };
            if !ok {
                bad.push(format!("{f}({doc:?}, {path:?})\n  sqlite={e:?}\n  ours={g:?}"));
            }
        }
    }
    assert_clean(bad);
}
