//! Type conversions of the `column_*`/`value_*` accessors (the table in
//! `c3ref/column_blob.txt`): text to number by longest numeric prefix, real
//! to text with 15 significant digits (`%!.15g`), UTF-8 to and from UTF-16.
//!
//! These are the C API's conversions; the engine's own (CAST, affinity) live
//! in `ringlite::value`. They agree on the cases the C API exposes.

/// Integer value of text: optional whitespace and sign, then digits; a real
/// prefix (`"3.9"`, `"1e3"`) converts through the real; no digits gives 0.
pub fn text_to_i64(t: &[u8]) -> i64 {
    let s = trim_start(t);
    let (neg, digits) = match s.first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let n = digits.iter().take_while(|c| c.is_ascii_digit()).count();
    let rest = &digits[n..];
    if matches!(rest.first(), Some(b'.') | Some(b'e') | Some(b'E')) {
        return real_to_i64(text_to_f64(t));
    }
    let mut v: i128 = 0;
    for &c in &digits[..n] {
        v = v * 10 + (c - b'0') as i128;
        if v > i64::MAX as i128 + 1 {
            break;
        }
    }
    let v = if neg { -v } else { v };
    v.clamp(i64::MIN as i128, i64::MAX as i128) as i64
}

/// Real value of text: the longest prefix that parses as a number, 0.0 if
/// none.
pub fn text_to_f64(t: &[u8]) -> f64 {
    let s = trim_start(t);
    let mut end = 0;
    let b = |i: usize| s.get(i).copied().unwrap_or(0);
    if b(end) == b'+' || b(end) == b'-' {
        end += 1;
    }
    let int_start = end;
    while b(end).is_ascii_digit() {
        end += 1;
    }
    let mut digits = end - int_start;
    if b(end) == b'.' {
        let frac = end + 1;
        let mut e = frac;
        while b(e).is_ascii_digit() {
            e += 1;
        }
        digits += e - frac;
        if digits > 0 {
            end = e;
        }
    }
    if digits == 0 {
        return 0.0;
    }
    if b(end) == b'e' || b(end) == b'E' {
        let mut e = end + 1;
        if b(e) == b'+' || b(e) == b'-' {
            e += 1;
        }
        if b(e).is_ascii_digit() {
            while b(e).is_ascii_digit() {
                e += 1;
            }
            end = e;
        }
    }
    std::str::from_utf8(&s[..end]).ok().and_then(|x| x.parse::<f64>().ok()).unwrap_or(0.0)
}

fn trim_start(t: &[u8]) -> &[u8] {
    let n = t.iter().take_while(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\r' | b'\x0b' | b'\x0c')).count();
    &t[n..]
}

/// Real to integer, saturating; NaN is 0.
pub fn real_to_i64(r: f64) -> i64 {
    if r.is_nan() {
        0
    } else if r <= i64::MIN as f64 {
        i64::MIN
    } else if r >= i64::MAX as f64 {
        i64::MAX
    } else {
        r as i64
    }
}

/// Real to text as SQLite shows it: `%!.15g` (15 significant digits, and a
/// `.0` added when the result would look like an integer).
pub fn real_to_text(r: f64) -> String {
    if r.is_nan() {
        return "NaN".into();
    }
    if r.is_infinite() {
        return if r > 0.0 { "Inf".into() } else { "-Inf".into() };
    }
    let mut s = format_g(r, 15, false, 26);
    if !s.contains(['.', 'e']) {
        s.push_str(".0");
    } else if let Some(epos) = s.find('e') {
        if !s[..epos].contains('.') {
            s.insert_str(epos, ".0");
        }
    }
    s
}

/// Decimal digits of |r| as SQLite's printf sees them: first rounded to
/// `max_digits` significant digits (16, or 26 with the `!` flag); the
/// conversions then round again, half away from zero, with
/// [`round_digits`]. Returns the digits and the decimal exponent of the
/// first one.
pub fn decimal(r: f64, max_digits: usize) -> (Vec<u8>, i32) {
    if r == 0.0 {
        return (vec![0], 0);
    }
    let s = format!("{:.*e}", max_digits - 1, r.abs());
    let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
    let digits: Vec<u8> = m.bytes().filter(|c| c.is_ascii_digit()).map(|c| c - b'0').collect();
    (digits, e.parse().unwrap_or(0))
}

/// Round a digit string to `n` significant digits, half away from zero.
pub fn round_digits(digits: &mut Vec<u8>, exp: &mut i32, n: usize) {
    if digits.len() <= n {
        return;
    }
    let up = digits[n] >= 5;
    digits.truncate(n);
    if up {
        let mut i = n;
        loop {
            if i == 0 {
                digits.insert(0, 1);
                digits.truncate(n.max(1));
                *exp += 1;
                break;
            }
            i -= 1;
            if digits[i] == 9 {
                digits[i] = 0;
            } else {
                digits[i] += 1;
                break;
            }
        }
    }
    if digits.is_empty() {
        digits.push(0);
    }
}

fn digit_at(d: &[u8], i: isize) -> char {
    if i < 0 {
        return '0';
    }
    (b'0' + d.get(i as usize).copied().unwrap_or(0)) as char
}

/// `%.<prec>f` of |r| (no sign).
pub fn format_f(r: f64, prec: usize, max_digits: usize) -> String {
    let (mut d, mut e) = decimal(r, max_digits);
    let n = e + 1 + prec as i32;
    if r == 0.0 || n < 0 {
        d = vec![0];
        e = 0;
    } else if n == 0 {
        // Everything lies below the last place: it rounds to 0 or one unit.
        if d[0] >= 5 {
            d = vec![1];
            e = -(prec as i32);
        } else {
            d = vec![0];
            e = 0;
        }
    } else {
        round_digits(&mut d, &mut e, n as usize);
    }
    let mut out = String::new();
    if e < 0 {
        out.push('0');
    } else {
        for i in 0..=e as isize {
            out.push(digit_at(&d, i));
        }
    }
    if prec > 0 {
        out.push('.');
        for k in 1..=prec as isize {
            out.push(digit_at(&d, e as isize + k));
        }
    }
    out
}

/// `%.<prec>e` of |r| (no sign).
pub fn format_e(r: f64, prec: usize, max_digits: usize, upper: bool) -> String {
    let (mut d, mut e) = decimal(r, max_digits);
    round_digits(&mut d, &mut e, prec + 1);
    if r == 0.0 {
        e = 0;
    }
    let mut out = String::new();
    out.push(digit_at(&d, 0));
    if prec > 0 {
        out.push('.');
        for i in 1..=prec as isize {
            out.push(digit_at(&d, i));
        }
    }
    out.push(if upper { 'E' } else { 'e' });
    out.push(if e < 0 { '-' } else { '+' });
    out.push_str(&format!("{:02}", e.abs()));
    out
}

/// C's `%.<prec>g` of `r`, with its sign (`alt`: the `#` flag, keep
/// trailing zeros).
pub fn format_g(r: f64, prec: usize, alt: bool, max_digits: usize) -> String {
    let p = prec.max(1);
    let sign = if r.is_sign_negative() && r != 0.0 { "-" } else { "" };
    let (mut d, mut e) = decimal(r, max_digits);
    round_digits(&mut d, &mut e, p);
    if r == 0.0 {
        e = 0;
    }
    let body = if e < -4 || e >= p as i32 {
        let s = format_e(r, p - 1, max_digits, false);
        if alt {
            s
        } else {
            let (m, x) = s.split_once('e').unwrap_or((&s, ""));
            format!("{}e{}", strip_zeros(m), x)
        }
    } else {
        let f = format_f(r, (p as i32 - 1 - e).max(0) as usize, max_digits);
        if alt {
            f
        } else {
            strip_zeros(&f)
        }
    };
    format!("{sign}{body}")
}

fn strip_zeros(s: &str) -> String {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s.to_string()
    }
}

/// Whether text looks like a number, and which kind: `Some(true)` integer,
/// `Some(false)` real (what `sqlite3_value_numeric_type` applies).
pub fn numeric_kind(t: &[u8]) -> Option<bool> {
    let s = std::str::from_utf8(t).ok()?.trim_matches(|c: char| c.is_ascii_whitespace());
    if s.is_empty() {
        return None;
    }
    let body = s.strip_prefix(['+', '-']).unwrap_or(s);
    if !body.is_empty() && body.bytes().all(|c| c.is_ascii_digit()) {
        return Some(s.parse::<i64>().is_ok());
    }
    let ok = body.bytes().all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'+' | b'-'))
        && body.bytes().any(|c| c.is_ascii_digit())
        && s.parse::<f64>().is_ok();
    if ok {
        Some(false)
    } else {
        None
    }
}

/// UTF-16 (native order) units up to `n` bytes (or the first NUL unit when
/// `n < 0`), as UTF-8.
pub unsafe fn utf16_to_utf8(p: *const std::ffi::c_void, n: i64) -> Vec<u8> {
    if p.is_null() {
        return Vec::new();
    }
    let p = p as *const u16;
    let units: &[u16] = if n < 0 {
        let mut len = 0;
        while *p.add(len) != 0 {
            len += 1;
        }
        std::slice::from_raw_parts(p, len)
    } else {
        let mut len = n as usize / 2;
        if let Some(z) = std::slice::from_raw_parts(p, len).iter().position(|&u| u == 0) {
            len = z;
        }
        std::slice::from_raw_parts(p, len)
    };
    String::from_utf16_lossy(units).into_bytes()
}

/// UTF-8 bytes (possibly invalid) to NUL-terminated UTF-16.
pub fn utf8_to_utf16z(t: &[u8]) -> Vec<u16> {
    let mut v: Vec<u16> = String::from_utf8_lossy(t).encode_utf16().collect();
    v.push(0);
    v
}

/// Length of a NUL-terminated C string, at most `max` bytes when `max >= 0`.
pub unsafe fn c_len(p: *const std::ffi::c_char, max: i64) -> usize {
    let mut n = 0usize;
    while (max < 0 || (n as i64) < max) && *p.add(n) != 0 {
        n += 1;
    }
    n
}
