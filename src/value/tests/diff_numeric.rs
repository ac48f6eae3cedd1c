//! REAL→text, CAST, affinity, comparison and arithmetic against SQLite.

use super::refdb::{iterations, same, show, RefDb, Rng};
use crate::value::affinity::{apply_column_affinity, Affinity};
use crate::value::compare::compare_values;
use crate::value::numeric::*;
use crate::value::printf::format_real_digits;
use crate::value::Value;
use std::cmp::Ordering;

#[test]
fn format_real_matches_sqlite() {
    let db = RefDb::memory();
    let mut st = db.prepare("SELECT CAST(?1 AS TEXT)");
    let mut rng = Rng(1);
    let mut bad = Vec::new();
    for _ in 0..iterations(100000) {
        let r = rng.double();
        if r.is_nan() {
            continue;
        }
        let want = st.run(&[Value::Real(r)]).unwrap().remove(0).remove(0);
        let got = Value::Text(format_real(r).into_bytes());
        if !same(&want, &got) && bad.len() < 20 {
            bad.push(format!("{r:e}: sqlite {} ours {}", show(&want), show(&got)));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn casts_match_sqlite() {
    let db = RefDb::memory();
    let mut st = db.prepare("SELECT CAST(?1 AS INTEGER), CAST(?1 AS REAL), CAST(?1 AS NUMERIC), CAST(?1 AS TEXT)");
    let mut rng = Rng(2);
    let mut bad = Vec::new();
    for k in 0..iterations(20000) {
        let v = match k % 4 {
            0 | 1 => Value::Text(rng.numeric_text()),
            2 => Value::Real(rng.double()),
            _ => Value::Blob(rng.numeric_text()),
        };
        if matches!(v, Value::Real(r) if r.is_nan()) {
            continue;
        }
        let want = st.run(std::slice::from_ref(&v)).unwrap().remove(0);
        let got =
            [cast_to_integer(v.as_ref()), cast_to_real(v.as_ref()), cast_to_numeric(v.as_ref()), cast_to_text(v.as_ref()).map_or(Value::Null, Value::Text)];
        for (i, (w, g)) in want.iter().zip(got.iter()).enumerate() {
            if !same(w, g) && bad.len() < 30 {
                bad.push(format!("cast#{i} of {}: sqlite {} ours {}", show(&v), show(w), show(g)));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn column_affinity_matches_sqlite() {
    let db = RefDb::memory();
    db.exec("CREATE TABLE t(a INTEGER, b REAL, c NUMERIC, d TEXT, e BLOB)");
    let mut ins = db.prepare("INSERT INTO t VALUES(?1, ?1, ?1, ?1, ?1)");
    let mut sel = db.prepare("SELECT a, b, c, d, e FROM t");
    let mut del = db.prepare("DELETE FROM t");
    let affs = [Affinity::Integer, Affinity::Real, Affinity::Numeric, Affinity::Text, Affinity::Blob];
    let mut rng = Rng(3);
    let mut bad = Vec::new();
    for k in 0..iterations(10000) {
        let v = match k % 5 {
            0 | 1 => Value::Text(rng.numeric_text()),
            2 => Value::Real(rng.double()),
            3 => Value::Integer(rng.next() as i64 >> rng.below(64)),
            _ => Value::Blob(rng.numeric_text()),
        };
        if matches!(v, Value::Real(r) if r.is_nan()) {
            continue;
        }
        del.run(&[]).unwrap();
        ins.run(std::slice::from_ref(&v)).unwrap();
        let want = sel.run(&[]).unwrap().remove(0);
        for (i, aff) in affs.iter().enumerate() {
            let got = apply_column_affinity(v.clone(), *aff);
            if !same(&want[i], &got) && bad.len() < 30 {
                bad.push(format!("{aff:?} of {}: sqlite {} ours {}", show(&v), show(&want[i]), show(&got)));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn decltype_affinity_matches_sqlite() {
    let db = RefDb::memory();
    let types = [
        "INT",
        "INTEGER",
        "TINYINT",
        "BIGINT",
        "VARCHAR(10)",
        "NCHAR",
        "CLOB",
        "TEXT",
        "BLOB",
        "",
        "REAL",
        "DOUBLE",
        "DOUBLE PRECISION",
        "FLOAT",
        "NUMERIC",
        "DECIMAL(10,5)",
        "BOOLEAN",
        "DATE",
        "DATETIME",
        "CHARINT",
        "FLOATING POINT",
        "STRING",
        "BLOBINT",
        "XBLOBY",
        "POINT",
        "tExT",
        "inTeGer",
    ];
    for t in types {
        db.exec(&format!("DROP TABLE IF EXISTS t; CREATE TABLE t(x {t}); INSERT INTO t VALUES('1.0'), (2.0), (3);"));
        let want: Vec<Value> = db.query("SELECT x FROM t", &[]).unwrap().into_iter().map(|mut r| r.remove(0)).collect();
        let aff = Affinity::from_decltype(t);
        let got: Vec<Value> = [Value::text("1.0"), Value::Real(2.0), Value::Integer(3)].into_iter().map(|v| apply_column_affinity(v, aff)).collect();
        for (w, g) in want.iter().zip(&got) {
            assert!(same(w, g), "type {t:?} ({aff:?}): sqlite {} ours {}", show(w), show(g));
        }
    }
}

fn random_value(rng: &mut Rng) -> Value {
    match rng.below(6) {
        0 => Value::Null,
        1 => Value::Integer(*rng.pick(&[0, 1, -1, 2, i64::MAX, i64::MIN, 1 << 53, (1 << 53) + 1, 9007199254740993, -9007199254740993])),
        2 => Value::Integer(rng.next() as i64 >> rng.below(64)),
        3 => {
            let r = *rng.pick(&[
                0.0,
                -0.0,
                1.0,
                1.5,
                9007199254740992.0,
                9223372036854775808.0,
                -9223372036854775808.0,
                1e300,
                -1e300,
                f64::INFINITY,
                f64::NEG_INFINITY,
            ]);
            let r = if rng.below(2) == 0 { r } else { rng.double() };
            // SQLite binds NaN as NULL; the engine never holds a NaN value.
            if r.is_nan() {
                Value::Null
            } else {
                Value::Real(r)
            }
        }
        4 => Value::Text(rng.numeric_text()),
        _ => Value::Blob(rng.numeric_text()),
    }
}

#[test]
fn ordering_matches_sqlite() {
    let db = RefDb::memory();
    let mut st = db.prepare("SELECT ?1 < ?2, ?1 = ?2, ?1 > ?2");
    let mut rng = Rng(4);
    for _ in 0..iterations(20000) {
        let (a, b) = (random_value(&mut rng), random_value(&mut rng));
        if a.is_null() || b.is_null() {
            continue;
        }
        let row = st.run(&[a.clone(), b.clone()]).unwrap().remove(0);
        let want = match (&row[0], &row[1]) {
            (Value::Integer(1), _) => Ordering::Less,
            (_, Value::Integer(1)) => Ordering::Equal,
            _ => Ordering::Greater,
        };
        assert_eq!(compare_values(a.as_ref(), b.as_ref(), None), want, "{} vs {}", show(&a), show(&b));
    }
}

#[test]
fn order_by_matches_sqlite() {
    let db = RefDb::memory();
    db.exec("CREATE TABLE s(x)");
    let mut ins = db.prepare("INSERT INTO s VALUES(?1)");
    let mut rng = Rng(5);
    let mut ours = Vec::new();
    for _ in 0..iterations(3000) {
        let v = random_value(&mut rng);
        ins.run(std::slice::from_ref(&v)).unwrap();
        ours.push(v);
    }
    let want: Vec<Value> = db.query("SELECT x FROM s ORDER BY x", &[]).unwrap().into_iter().map(|mut r| r.remove(0)).collect();
    ours.sort_by(|a, b| compare_values(a.as_ref(), b.as_ref(), None));
    for (w, g) in want.iter().zip(&ours) {
        assert_eq!(compare_values(w.as_ref(), g.as_ref(), None), Ordering::Equal, "sqlite {} ours {}", show(w), show(g));
    }
}

#[test]
fn arithmetic_matches_sqlite() {
    let db = RefDb::memory();
    let mut st = db.prepare("SELECT ?1 + ?2, ?1 - ?2, ?1 * ?2, ?1 / ?2, ?1 % ?2");
    let mut rng = Rng(6);
    let ops = [ArithOp::Add, ArithOp::Subtract, ArithOp::Multiply, ArithOp::Divide, ArithOp::Remainder];
    let mut bad = Vec::new();
    for _ in 0..iterations(20000) {
        let (a, b) = (random_value(&mut rng), random_value(&mut rng));
        let row = st.run(&[a.clone(), b.clone()]).unwrap().remove(0);
        for (i, op) in ops.iter().enumerate() {
            let got = arith(*op, a.as_ref(), b.as_ref());
            if !same(&row[i], &got) && bad.len() < 30 {
                bad.push(format!("{} {op:?} {}: sqlite {} ours {}", show(&a), show(&b), show(&row[i]), show(&got)));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn decimal_text_to_real_matches_sqlite() {
    let db = RefDb::memory();
    let mut st = db.prepare("SELECT CAST(?1 AS REAL), CAST(CAST(?1 AS REAL) AS TEXT), CAST(?1 AS NUMERIC)");
    let mut rng = Rng(9);
    let mut bad = Vec::new();
    for _ in 0..iterations(30000) {
        let mut s = String::new();
        if rng.below(4) == 0 {
            s.push('-');
        }
        let int_digits = rng.below(25);
        for _ in 0..int_digits {
            s.push((b'0' + rng.below(10) as u8) as char);
        }
        if rng.below(2) == 0 {
            s.push('.');
            for _ in 0..rng.below(25) {
                s.push((b'0' + rng.below(10) as u8) as char);
            }
        }
        if rng.below(3) == 0 {
            s.push_str(&format!("e{}", rng.below(700) as i64 - 350));
        }
        let v = Value::text(s.clone());
        let want = st.run(std::slice::from_ref(&v)).unwrap().remove(0);
        let (r, _) = text_to_f64(s.as_bytes());
        let got = [Value::Real(r), Value::Text(format_real(r).into_bytes()), cast_to_numeric(v.as_ref())];
        for (i, (w, g)) in want.iter().zip(&got).enumerate() {
            if !same(w, g) && bad.len() < 30 {
                bad.push(format!("#{i} {s:?}: sqlite {} ours {}", show(w), show(g)));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn cast_blob_and_truthiness_match_sqlite() {
    use crate::value::affinity::cast;
    let db = RefDb::memory();
    let mut st = db.prepare("SELECT CAST(?1 AS BLOB), CAST(?1 AS TEXT), CASE WHEN ?1 THEN 1 WHEN NOT ?1 THEN 0 ELSE NULL END");
    let mut rng = Rng(13);
    for _ in 0..iterations(10000) {
        let v = random_value(&mut rng);
        let want = st.run(std::slice::from_ref(&v)).unwrap().remove(0);
        let truth = truthiness(v.as_ref()).map_or(Value::Null, |b| Value::Integer(i64::from(b)));
        let got = [cast(v.clone(), Affinity::Blob), cast(v.clone(), Affinity::Text), truth];
        for (w, g) in want.iter().zip(&got) {
            assert!(same(w, g), "{}: sqlite {} ours {}", show(&v), show(w), show(g));
        }
    }
}

#[test]
fn comparison_affinity_matches_sqlite() {
    use crate::value::affinity::{apply_affinity, comparison_affinity};
    let db = RefDb::memory();
    db.exec("CREATE TABLE c(i INTEGER, r REAL, n NUMERIC, t TEXT, b BLOB)");
    let mut ins = db.prepare("INSERT INTO c VALUES(?1, ?1, ?1, ?1, ?1)");
    let mut del = db.prepare("DELETE FROM c");
    let mut sel = db.prepare("SELECT i < ?1, i = ?1, r < ?1, r = ?1, n < ?1, n = ?1, t < ?1, t = ?1, b < ?1, b = ?1, i = t, n < t, t = b FROM c");
    let mut read = db.prepare("SELECT i, r, n, t, b FROM c");
    let affs = [Affinity::Integer, Affinity::Real, Affinity::Numeric, Affinity::Text, Affinity::Blob];
    let mut rng = Rng(14);
    // Comparison as the VM does it: apply the comparison affinity to each
    // operand (numeric affinity only converts text; text affinity only
    // converts numbers), then compare in SQLite's order.
    let cmp = |a: &Value, b: &Value, aff: Affinity| -> (Value, Value) {
        let conv = |v: &Value| -> Value {
            match (aff.is_numeric(), aff == Affinity::Text, v) {
                (true, _, Value::Text(_)) => apply_affinity(v.clone(), Affinity::Numeric),
                (_, true, Value::Integer(_) | Value::Real(_)) => apply_affinity(v.clone(), Affinity::Text),
                _ => v.clone(),
            }
        };
        let (x, y) = (conv(a), conv(b));
        if x.is_null() || y.is_null() {
            return (Value::Null, Value::Null);
        }
        let o = compare_values(x.as_ref(), y.as_ref(), None);
        (Value::Integer(i64::from(o == Ordering::Less)), Value::Integer(i64::from(o == Ordering::Equal)))
    };
    for _ in 0..iterations(5000) {
        let (stored, probe) = (random_value(&mut rng), random_value(&mut rng));
        del.run(&[]).unwrap();
        ins.run(std::slice::from_ref(&stored)).unwrap();
        let cols = read.run(&[]).unwrap().remove(0);
        let want = sel.run(std::slice::from_ref(&probe)).unwrap().remove(0);
        for (k, aff) in affs.iter().enumerate() {
            let (lt, eq) = cmp(&cols[k], &probe, comparison_affinity(Some(*aff), None));
            assert!(
                same(&want[2 * k], &lt) && same(&want[2 * k + 1], &eq),
                "{aff:?} column holding {} vs {}: sqlite {} {} ours {} {}",
                show(&cols[k]),
                show(&probe),
                show(&want[2 * k]),
                show(&want[2 * k + 1]),
                show(&lt),
                show(&eq)
            );
        }
        let pairs = [(0, 3, 10, false), (2, 3, 11, true), (3, 4, 12, false)];
        for (a, b, idx, less) in pairs {
            let (lt, eq) = cmp(&cols[a], &cols[b], comparison_affinity(Some(affs[a]), Some(affs[b])));
            let got = if less { lt } else { eq };
            assert!(
                same(&want[idx], &got),
                "{:?} {} vs {:?} {}: sqlite {} ours {}",
                affs[a],
                show(&cols[a]),
                affs[b],
                show(&cols[b]),
                show(&want[idx]),
                show(&got)
            );
        }
    }
}

#[test]
fn fp_digits_setting_matches_sqlite() {
    let mut rng = Rng(15);
    for digits in [4u8, 6, 10, 15, 16, 17, 18, 20, 23] {
        let db = RefDb::memory();
        db.set_fp_digits(i32::from(digits));
        let mut st = db.prepare("SELECT CAST(?1 AS TEXT)");
        for _ in 0..iterations(3000) {
            let r = rng.double();
            if r.is_nan() {
                continue;
            }
            let want = st.run(&[Value::Real(r)]).unwrap().remove(0).remove(0);
            let got = Value::Text(format_real_digits(r, digits).into_bytes());
            assert!(same(&want, &got), "{digits} digits, {r:e}: sqlite {} ours {}", show(&want), show(&got));
        }
    }
}
