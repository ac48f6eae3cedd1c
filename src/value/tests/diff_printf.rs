//! The printf engine against SQLite's `printf()` SQL function.

use super::refdb::{iterations, same, show, RefDb, Rng};
use crate::value::printf::{sql_printf, DEFAULT_MAX_LENGTH};
use crate::value::Value;

#[allow(clippy::explicit_auto_deref, reason = "`*` fixes `pick`'s T as `&str`")]
fn random_format(rng: &mut Rng) -> String {
    let flags = ["", "-", "+", " ", "0", "#", ",", "!", "-0", "+0", "#0", "!#", "-,", "0,", "+,", " 0"];
    let widths = ["", "", "1", "5", "12", "*", "30"];
    let precs = ["", "", ".0", ".1", ".3", ".10", ".17", ".20", ".*", "."];
    let convs = ["d", "i", "u", "x", "X", "o", "p", "r", "c", "s", "z", "q", "Q", "w", "j", "J", "e", "E", "f", "g", "G", "%", "n", "lld", "ld", "llx"];
    let mut f = String::new();
    if rng.below(3) == 0 {
        f.push('<');
    }
    f.push('%');
    f.push_str(*rng.pick(&flags[..]));
    f.push_str(*rng.pick(&widths[..]));
    f.push_str(*rng.pick(&precs[..]));
    f.push_str(*rng.pick(&convs[..]));
    if rng.below(3) == 0 {
        f.push('>');
    }
    f
}

fn random_arg(rng: &mut Rng) -> Value {
    match rng.below(7) {
        0 => Value::Null,
        1 => Value::Integer(rng.next() as i64 >> rng.below(64)),
        2 => Value::Integer(*rng.pick(&[0, 1, -1, 2, 3, 11, 12, 13, 21, 22, 101, 111, 112, 1000, -1234567, i64::MAX, i64::MIN])),
        3 | 4 => Value::Real(rng.double()),
        5 => Value::Text(
            rng.pick(&["", "a", "hello", "it's", "say \"hi\"", "héllo wörld", "日本語テキスト", "tab\there", "nl\nx", "back\\slash", "\u{1}ctl", "12.5", "-7"])
                .as_bytes()
                .to_vec(),
        ),
        _ => Value::Text(rng.numeric_text()),
    }
}

#[test]
fn printf_matches_sqlite() {
    let db = RefDb::memory();
    let mut st = db.prepare("SELECT printf(?1, ?2, ?3, ?4)");
    let mut rng = Rng(7);
    let mut bad = Vec::new();
    for _ in 0..iterations(30000) {
        let mut args = vec![Value::text(random_format(&mut rng))];
        for _ in 0..iterations(3) {
            args.push(random_arg(&mut rng));
        }
        if args.iter().any(|v| matches!(v, Value::Real(r) if r.is_nan())) {
            continue;
        }
        // A '*' taking a huge number would build a gigabyte string.
        let star = matches!(&args[0], Value::Text(t) if t.contains(&b'*'));
        if star && args[1..].iter().any(|v| !matches!(v, Value::Integer(i) if i.unsigned_abs() < 200)) {
            for v in &mut args[1..3] {
                *v = Value::Integer(rng.below(40) as i64 - 20);
            }
        }
        let want = st.run(&args).map(|mut r| r.remove(0).remove(0));
        let got = sql_printf(&args, DEFAULT_MAX_LENGTH).map_err(|e| e.code);
        let ok = match (&want, &got) {
            (Ok(w), Ok(g)) => same(w, g),
            (Err(a), Err(b)) => a == b,
            _ => false,
        };
        if !ok && bad.len() < 40 {
            let a: Vec<String> = args.iter().map(show).collect();
            bad.push(format!("{}: sqlite {:?} ours {:?}", a.join(", "), want.map(|v| show(&v)), got.map(|v| show(&v))));
        }
    }
    assert!(bad.is_empty(), "{} mismatches:\n{}", bad.len(), bad.join("\n"));
}

#[test]
fn printf_fixed_cases() {
    let db = RefDb::memory();
    let cases: Vec<(&str, Vec<Value>)> = vec![
        ("%d", vec![Value::Integer(42)]),
        ("%,d", vec![Value::Integer(2147483647)]),
        ("%,d", vec![Value::Integer(-1234567)]),
        ("%.20f", vec![Value::Real(0.1)]),
        ("%!.20f", vec![Value::Real(0.1)]),
        ("%.2f", vec![Value::Real(0.125)]),
        ("%.2f", vec![Value::Real(2.675)]),
        ("%5.3c", vec![Value::text("x")]),
        ("%-5.3c|", vec![Value::text("é")]),
        ("%c", vec![Value::text("")]),
        ("%c", vec![Value::Null]),
        ("%q", vec![Value::Null]),
        ("%Q", vec![Value::Null]),
        ("%w", vec![Value::Null]),
        ("%#q", vec![Value::text("a\\b\u{1}'")]),
        ("%#Q", vec![Value::text("a\\b'")]),
        ("%#Q", vec![Value::text("a\nb")]),
        ("%j|%J|%J", vec![Value::text("a\"b\u{1}\u{7f}"), Value::text("é\t"), Value::Null]),
        ("%T and more", vec![Value::Integer(1)]),
        ("%y and more", vec![Value::Integer(1)]),
        ("%5", vec![]),
        ("abc%", vec![]),
        ("%10.4e|%-12G|%+g|% g", vec![Value::Real(12345.678), Value::Real(1e-10), Value::Real(3.0), Value::Real(3.0)]),
        ("%010f|%010f|%f", vec![Value::Real(f64::INFINITY), Value::Real(-2.5), Value::Real(f64::NEG_INFINITY)]),
        ("%#x %#o %#X %p %#p", vec![Value::Integer(255), Value::Integer(8), Value::Integer(255), Value::Integer(255), Value::Integer(255)]),
        ("%r %r %r %r %r %r", vec![Value::Integer(1), Value::Integer(2), Value::Integer(3), Value::Integer(11), Value::Integer(112), Value::Integer(-23)]),
        ("%!10s|%10s|%!.2s|%.2s", vec![Value::text("日本"), Value::text("日本"), Value::text("日本語"), Value::text("日本語")]),
        ("%*d|%-*d|%.*f", vec![Value::Integer(-6), Value::Integer(5), Value::Integer(3), Value::Integer(7), Value::Integer(2), Value::Real(3.14159)]),
        ("%s %s %s", vec![Value::Real(1e100), Value::Real(0.1), Value::Integer(-5)]),
        ("%lld %ld %lu %llx", vec![Value::Integer(-5), Value::Integer(-5), Value::Integer(-5), Value::Integer(-5)]),
        ("%,.3f|%,f|%,g", vec![Value::Real(1234567.891), Value::Real(-1234.5), Value::Real(123456789.0)]),
        ("%#.0f|%#.0e|%#g|%!g|%!.0f", vec![Value::Real(3.0), Value::Real(3.0), Value::Real(3.0), Value::Real(3.0), Value::Real(3.0)]),
        ("%.0f|%.0f|%.0f|%.0f", vec![Value::Real(0.5), Value::Real(1.5), Value::Real(2.5), Value::Real(-0.4)]),
        ("%#.3f|%.3f|%+.3f", vec![Value::Real(-0.0001), Value::Real(-0.0001), Value::Real(-0.0001)]),
        ("%e|%g|%g|%G", vec![Value::Real(0.0), Value::Real(1e-5), Value::Real(123456789.0), Value::Real(1e-20)]),
        ("%d %s", vec![Value::text("12abc"), Value::Blob(b"xy".to_vec())]),
        ("a%1500000000d", vec![Value::Integer(1)]),
        ("%hd|%hhd|%lf|%Lf|%zd|%jd", vec![Value::Integer(7), Value::Integer(7), Value::Real(1.5), Value::Real(1.5), Value::Integer(1), Value::Integer(2)]),
        ("%5.2%|%-3%|%l|%ll", vec![]),
        ("%*.*s|%-*.*d|", vec![Value::Integer(-8), Value::Integer(2), Value::text("hello"), Value::Integer(6), Value::Integer(4), Value::Integer(-7)]),
        ("a%.*c", vec![Value::Integer(1500000000), Value::text("x")]),
    ];
    let mut bad = Vec::new();
    for (fmt, args) in cases {
        let mut all = vec![Value::text(fmt)];
        all.extend(args);
        let placeholders: Vec<String> = (1..=all.len()).map(|i| format!("?{i}")).collect();
        let want = db.query(&format!("SELECT printf({})", placeholders.join(",")), &all).map(|mut r| r.remove(0).remove(0));
        let got = sql_printf(&all, DEFAULT_MAX_LENGTH).map_err(|e| e.code);
        let ok = match (&want, &got) {
            (Ok(w), Ok(g)) => same(w, g),
            (Err(a), Err(b)) => a == b,
            _ => false,
        };
        if !ok {
            bad.push(format!("{fmt:?}: sqlite {:?} ours {:?}", want.map(|v| show(&v)), got.map(|v| show(&v))));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn float_formats_match_sqlite() {
    let db = RefDb::memory();
    let mut st = db.prepare("SELECT printf(?1, ?2)");
    let mut rng = Rng(8);
    let flags = ["", "!", "#", "!#", "+", "-", "0", ",", "!,", " ", "+0", "#0"];
    let mut bad = Vec::new();
    for _ in 0..iterations(40000) {
        let prec = match rng.below(4) {
            0 => String::new(),
            1 => format!(".{}", rng.below(30)),
            _ => format!(".{}", rng.below(18)),
        };
        let width = if rng.below(3) == 0 { format!("{}", rng.below(30)) } else { String::new() };
        let conv = *rng.pick(&["e", "E", "f", "g", "G"]);
        let fmt = format!("%{}{}{}{}", rng.pick(&flags), width, prec, conv);
        let r = rng.double();
        if r.is_nan() {
            continue;
        }
        let args = [Value::text(fmt.clone()), Value::Real(r)];
        let want = st.run(&args).unwrap().remove(0).remove(0);
        let got = sql_printf(&args, DEFAULT_MAX_LENGTH).unwrap();
        if !same(&want, &got) && bad.len() < 30 {
            bad.push(format!("{fmt} {r:e}: sqlite {} ours {}", show(&want), show(&got)));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

mod c_mode {
    //! The C varargs flavour (`sqlite3_mprintf`) against [`ListArgs`].
    #![allow(unsafe_code, reason = "calls the reference SQLite's `sqlite3_mprintf` through its C API")]
    use crate::value::printf::{format, Arg, ListArgs};
    use libsqlite3_sys as ffi;
    use std::ffi::{CStr, CString};

    unsafe fn take(p: *mut std::os::raw::c_char) -> Vec<u8> {
        let v = CStr::from_ptr(p).to_bytes().to_vec();
        ffi::sqlite3_free(p.cast());
        v
    }

    /// Our output as the C caller sees it: up to the first NUL.
    fn ours(fmt: &str, args: &[Arg<'_>]) -> Vec<u8> {
        let mut v = format(fmt.as_bytes(), &mut ListArgs::new(args)).unwrap();
        if let Some(p) = v.iter().position(|&c| c == 0) {
            v.truncate(p);
        }
        v
    }

    #[test]
    fn ints_chars_and_strings_match_mprintf() {
        let int_fmts = ["%d", "%u", "%x", "%X", "%o", "%c", "%5c", "%.3c", "%-4.2c|", "%+d", "%,d", "%#x", "%r", "%08d", "%i"];
        let ints: [i32; 10] = [0, 1, -1, 42, 65, 0xe9, 0x65e5, 0x1f600, i32::MIN, i32::MAX];
        for f in int_fmts {
            for &i in &ints {
                let c = CString::new(f).unwrap();
                let want = unsafe { take(ffi::sqlite3_mprintf(c.as_ptr(), i)) };
                assert_eq!(ours(f, &[Arg::Int(i64::from(i))]), want, "{f} {i}");
            }
        }
        let ll_fmts = ["%lld", "%llu", "%llx", "%lli", "%,lld", "%ld"];
        for f in ll_fmts {
            for i in [0i64, -1, i64::MIN, i64::MAX, 1 << 40] {
                let c = CString::new(f).unwrap();
                let want = unsafe { take(ffi::sqlite3_mprintf(c.as_ptr(), i)) };
                assert_eq!(ours(f, &[Arg::Int(i)]), want, "{f} {i}");
            }
        }
        let str_fmts = ["%s", "%q", "%Q", "%w", "%.2s", "%!.2s", "%10s|", "%-10q|", "%J", "%j"];
        let strs: [Option<&str>; 5] = [None, Some(""), Some("it's"), Some("日本\"語"), Some("a\nb")];
        for f in str_fmts {
            for s in strs {
                let c = CString::new(f).unwrap();
                let arg = s.map(|s| CString::new(s).unwrap());
                let ptr = arg.as_ref().map_or(std::ptr::null(), |a| a.as_ptr());
                let want = unsafe { take(ffi::sqlite3_mprintf(c.as_ptr(), ptr)) };
                assert_eq!(ours(f, &[Arg::Text(s.map(str::as_bytes))]), want, "{f} {s:?}");
            }
        }
        for f in ["%.15g", "%!.15g", "%!.20e", "%10.3f", "%e"] {
            for r in [0.1, 1.0 / 3.0, 1e300, -2.5e-8, 100.0] {
                let c = CString::new(f).unwrap();
                let want = unsafe { take(ffi::sqlite3_mprintf(c.as_ptr(), r)) };
                assert_eq!(ours(f, &[Arg::Double(r)]), want, "{f} {r}");
            }
        }
    }
}
