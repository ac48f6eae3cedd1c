//! Value conversions as the function bodies need them: the `sqlite3_value_*`
//! accessors of the C API (`value_double`, `value_int64`, `value_text`) and
//! numeric classification (`sqlite3_value_numeric_type`).
//!
//! The conversions proper belong to `crate::value::numeric`, written in
//! parallel; until its API is merged the few primitives below are
//! TEMPORARY private helpers with SQLite's semantics, kept in this one file
//! so that switching to `crate::value` touches nothing else.

use crate::value::Value;

/// `sqlite3_value_double`: NULL is 0.0, text and blobs parse their longest
/// numeric prefix.
pub fn value_f64(v: &Value) -> f64 {
    match v {
        Value::Null => 0.0,
        Value::Integer(i) => *i as f64,
        Value::Real(r) => *r,
        Value::Text(t) | Value::Blob(t) => text_to_f64(t),
    }
}

/// `sqlite3_value_int64`: NULL is 0, reals truncate (saturating), text and
/// blobs convert as `CAST(x AS INTEGER)`.
pub fn value_i64(v: &Value) -> i64 {
    match v {
        Value::Null => 0,
        Value::Integer(i) => *i,
        Value::Real(r) => real_to_i64(*r),
        Value::Text(t) | Value::Blob(t) => text_to_i64(t),
    }
}

/// `sqlite3_value_text`: None for NULL; numbers rendered as SQLite renders
/// them; blobs as their bytes.
pub fn value_text(v: &Value) -> Option<Vec<u8>> {
    match v {
        Value::Null => None,
        Value::Integer(i) => Some(i.to_string().into_bytes()),
        Value::Real(r) => Some(format_real(*r).into_bytes()),
        Value::Text(t) | Value::Blob(t) => Some(t.clone()),
    }
}

/// Like [`value_text`] but borrowing when the value already holds bytes.
pub fn value_bytes(v: &Value) -> Option<std::borrow::Cow<'_, [u8]>> {
    match v {
        Value::Text(t) | Value::Blob(t) => Some(std::borrow::Cow::Borrowed(t)),
        other => value_text(other).map(std::borrow::Cow::Owned),
    }
}

/// `sqlite3_value_numeric_type` applied to a copy: text (or a blob) that
/// looks entirely like a number becomes that number; anything else stays.
pub fn numeric_value(v: &Value) -> Value {
    match v {
        Value::Text(t) => match text_numeric(t) {
            Some(n) => n,
            None => v.clone(),
        },
        _ => v.clone(),
    }
}

/// Truncate a real to i64 the way SQLite does (saturating; NaN is 0).
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

// ---- TEMPORARY: to be replaced by crate::value::numeric once merged ----

/// TEMPORARY. Length of the longest prefix (after leading whitespace) that
/// is a decimal number; returns (start, end, is_integer).
fn numeric_prefix(t: &[u8]) -> (usize, usize, bool) {
    let mut i = 0;
    while i < t.len() && is_space(t[i]) {
        i += 1;
    }
    let start = i;
    if i < t.len() && (t[i] == b'+' || t[i] == b'-') {
        i += 1;
    }
    let digits_start = i;
    while i < t.len() && t[i].is_ascii_digit() {
        i += 1;
    }
    let mut int_digits = i - digits_start;
    let mut is_int = true;
    if i < t.len() && t[i] == b'.' {
        let mut j = i + 1;
        while j < t.len() && t[j].is_ascii_digit() {
            j += 1;
        }
        if int_digits > 0 || j > i + 1 {
            int_digits += j - i - 1;
            i = j;
            is_int = false;
        }
    }
    if int_digits == 0 {
        return (start, start, false);
    }
    if i < t.len() && (t[i] == b'e' || t[i] == b'E') {
        let mut j = i + 1;
        if j < t.len() && (t[j] == b'+' || t[j] == b'-') {
            j += 1;
        }
        let ds = j;
        while j < t.len() && t[j].is_ascii_digit() {
            j += 1;
        }
        if j > ds {
            i = j;
            is_int = false;
        }
    }
    (start, i, is_int)
}

fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

/// TEMPORARY. Longest numeric prefix as a double (0.0 when none).
pub fn text_to_f64(t: &[u8]) -> f64 {
    let (s, e, _) = numeric_prefix(t);
    if s == e {
        return 0.0;
    }
    std::str::from_utf8(&t[s..e]).ok().and_then(|x| x.parse::<f64>().ok()).unwrap_or(0.0)
}

/// TEMPORARY. `sqlite3_value_int64` of text: the leading integer digits.
pub fn text_to_i64(t: &[u8]) -> i64 {
    let (s, mut e, mut is_int) = numeric_prefix(t);
    if !is_int {
        // Only the integer part counts: "1e3" is 1, "2.9" is 2.
        let mut p = s;
        if p < e && (t[p] == b'+' || t[p] == b'-') {
            p += 1;
        }
        while p < e && t[p].is_ascii_digit() {
            p += 1;
        }
        e = p;
        is_int = true;
    }
    if s == e {
        return 0;
    }
    let txt = std::str::from_utf8(&t[s..e]).unwrap_or("0");
    if is_int {
        match txt.parse::<i64>() {
            Ok(v) => v,
            Err(_) => {
                if txt.starts_with('-') {
                    i64::MIN
                } else {
                    i64::MAX
                }
            }
        }
    } else {
        real_to_i64(txt.parse::<f64>().unwrap_or(0.0))
    }
}

/// TEMPORARY. Whole text (surrounding whitespace allowed) as a number.
pub fn text_numeric(t: &[u8]) -> Option<Value> {
    let (s, e, is_int) = numeric_prefix(t);
    if s == e || t[e..].iter().any(|&c| !is_space(c)) {
        return None;
    }
    let txt = std::str::from_utf8(&t[s..e]).ok()?;
    if is_int {
        if let Ok(i) = txt.parse::<i64>() {
            return Some(Value::Integer(i));
        }
    }
    txt.parse::<f64>().ok().map(Value::Real)
}

/// TEMPORARY. SQLite's REAL to text: 15 significant digits when that
/// round-trips, else 17; always a decimal point or exponent.
pub fn format_real(r: f64) -> String {
    if r.is_nan() {
        return "NaN".into();
    }
    if r.is_infinite() {
        return if r > 0.0 { "Inf".into() } else { "-Inf".into() };
    }
    let mut s = format_g(r, 15);
    if s.parse::<f64>().ok() != Some(r) {
        s = format_g(r, 17);
    }
    s
}

/// `%!.Ng`: N significant digits, trailing zeros removed but one digit kept
/// after the point, exponent form when exp < -4 or exp >= N.
fn format_g(r: f64, prec: usize) -> String {
    if r == 0.0 {
        return "0.0".into();
    }
    let e = format!("{:.*e}", prec - 1, r);
    let (mant, exp) = e.split_once('e').unwrap_or((&e, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let neg = mant.starts_with('-');
    let digits: String = mant.chars().filter(|c| c.is_ascii_digit()).collect();
    let digits = digits.trim_end_matches('0');
    let digits = if digits.is_empty() { "0" } else { digits };
    let mut out = String::new();
    if neg {
        out.push('-');
    }
    if exp < -4 || exp >= prec as i32 {
        out.push_str(&digits[..1]);
        out.push('.');
        out.push_str(if digits.len() > 1 { &digits[1..] } else { "0" });
        out.push_str(&format!("e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs()));
    } else if exp < 0 {
        out.push_str("0.");
        for _ in 0..(-exp - 1) {
            out.push('0');
        }
        out.push_str(digits);
    } else {
        let int_len = exp as usize + 1;
        if digits.len() <= int_len {
            out.push_str(digits);
            for _ in digits.len()..int_len {
                out.push('0');
            }
            out.push_str(".0");
        } else {
            out.push_str(&digits[..int_len]);
            out.push('.');
            out.push_str(&digits[int_len..]);
        }
    }
    out
}

/// TEMPORARY until `crate::value::compare::compare_values` is merged:
/// SQLite's value order (NULL < numbers < text < blobs; numbers by value,
/// text by `coll` or memcmp, blobs by memcmp).
pub fn compare(a: &Value, b: &Value, coll: Option<&crate::value::collation::Collation>) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    fn rank(v: &Value) -> u8 {
        match v {
            Value::Null => 0,
            Value::Integer(_) | Value::Real(_) => 1,
            Value::Text(_) => 2,
            Value::Blob(_) => 3,
        }
    }
    match (a, b) {
        (Value::Integer(x), Value::Integer(y)) => x.cmp(y),
        (Value::Real(x), Value::Real(y)) => x.partial_cmp(y).unwrap_or(Ordering::Equal),
        (Value::Integer(x), Value::Real(y)) => cmp_int_real(*x, *y),
        (Value::Real(x), Value::Integer(y)) => cmp_int_real(*y, *x).reverse(),
        (Value::Text(x), Value::Text(y)) => match coll {
            Some(c) => c.compare(x, y),
            None => x.cmp(y),
        },
        (Value::Blob(x), Value::Blob(y)) => x.cmp(y),
        _ => rank(a).cmp(&rank(b)),
    }
}

fn cmp_int_real(i: i64, r: f64) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    if r.is_nan() {
        return Ordering::Greater;
    }
    if r < -9.223372036854775808e18 {
        return Ordering::Greater;
    }
    if r >= 9.223372036854775808e18 {
        return Ordering::Less;
    }
    let ri = r as i64;
    match i.cmp(&ri) {
        Ordering::Equal => {
            let frac = r - ri as f64;
            if frac > 0.0 {
                Ordering::Less
            } else if frac < 0.0 {
                Ordering::Greater
            } else {
                Ordering::Equal
            }
        }
        o => o,
    }
}
