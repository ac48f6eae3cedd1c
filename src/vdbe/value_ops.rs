//! TEMPORARY value semantics for the VM, until the `value` branch lands.
//!
//! The VM needs conversions (text to number, number to text), comparison
//! with collations, affinity and the record format. Those belong to
//! `crate::value` (`affinity`, `compare`, `numeric`, `record`), which is
//! being written in parallel; this module is the minimal private stand-in
//! the VM uses meanwhile, with the same rules (`datatype3.txt`,
//! `fileformat2.txt`). Every caller goes through this one module so the
//! switch to `crate::value` is a change of imports here.

use crate::error::{Error, Result};
use crate::value::collation::Collation;
use crate::value::Value;
use std::cmp::Ordering;

/// Column affinity (`datatype3.txt` section 3), with SQLite's letters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Affinity {
    /// BLOB (also "none"): no conversion. Letter 'A'.
    Blob,
    /// TEXT. Letter 'B'.
    Text,
    /// NUMERIC. Letter 'C'.
    Numeric,
    /// INTEGER. Letter 'D'.
    Integer,
    /// REAL. Letter 'E'.
    Real,
}

impl Affinity {
    /// SQLite's one-letter code, as in EXPLAIN's P4 affinity strings.
    pub fn letter(self) -> char {
        match self {
            Affinity::Blob => 'A',
            Affinity::Text => 'B',
            Affinity::Numeric => 'C',
            Affinity::Integer => 'D',
            Affinity::Real => 'E',
        }
    }

    /// From the one-letter code.
    pub fn from_letter(c: char) -> Affinity {
        match c {
            'B' => Affinity::Text,
            'C' => Affinity::Numeric,
            'D' => Affinity::Integer,
            'E' => Affinity::Real,
            _ => Affinity::Blob,
        }
    }

    /// Whether this is one of the numeric affinities.
    pub fn is_numeric(self) -> bool {
        matches!(self, Affinity::Numeric | Affinity::Integer | Affinity::Real)
    }

    /// Affinity of a declared column type (the five rules of section 3.1).
    pub fn of_declared_type(decl: &str) -> Affinity {
        let t = decl.to_ascii_uppercase();
        if t.contains("INT") {
            Affinity::Integer
        } else if t.contains("CHAR") || t.contains("CLOB") || t.contains("TEXT") {
            Affinity::Text
        } else if t.contains("BLOB") || t.trim().is_empty() {
            Affinity::Blob
        } else if t.contains("REAL") || t.contains("FLOA") || t.contains("DOUB") {
            Affinity::Real
        } else {
            Affinity::Numeric
        }
    }
}

/// Parse a whole text as a number (leading/trailing spaces allowed), as
/// numeric affinity does. `None` if it is not a well-formed number.
pub fn parse_number_exact(bytes: &[u8]) -> Option<Value> {
    let s = std::str::from_utf8(bytes).ok()?;
    let t = s.trim_matches(|c: char| c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\x0c');
    if t.is_empty() {
        return None;
    }
    let (len, is_int) = scan_number(t.as_bytes());
    if len != t.len() || len == 0 {
        return None;
    }
    if is_int {
        match t.parse::<i64>() {
            Ok(i) => Some(Value::Integer(i)),
            Err(_) => t.parse::<f64>().ok().map(Value::Real),
        }
    } else {
        let v: f64 = normalise_float_text(t).parse().ok()?;
        Some(Value::Real(v))
    }
}

/// Length of the longest numeric prefix of `b` (sign, digits, point,
/// exponent) and whether it is an integer literal.
fn scan_number(b: &[u8]) -> (usize, bool) {
    let mut i = 0;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        i += 1;
    }
    let digits_start = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    let mut n_digits = i - digits_start;
    let mut is_int = true;
    if i < b.len() && b[i] == b'.' {
        let j = i + 1;
        let mut k = j;
        while k < b.len() && b[k].is_ascii_digit() {
            k += 1;
        }
        n_digits += k - j;
        if n_digits > 0 {
            i = k;
            is_int = false;
        }
    }
    if n_digits == 0 {
        return (0, true);
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        let mut k = i + 1;
        if k < b.len() && (b[k] == b'+' || b[k] == b'-') {
            k += 1;
        }
        let ds = k;
        while k < b.len() && b[k].is_ascii_digit() {
            k += 1;
        }
        if k > ds {
            i = k;
            is_int = false;
        }
    }
    (i, is_int)
}

fn normalise_float_text(t: &str) -> String {
    // Rust's parser does not take "5." or ".5e"; SQLite does take "5." and ".5".
    let mut s = t.to_string();
    if let Some(p) = s.find('.') {
        let after = s.as_bytes().get(p + 1).copied();
        if !matches!(after, Some(c) if c.is_ascii_digit()) {
            s.insert(p + 1, '0');
        }
    }
    s
}

/// The numeric value of a text prefix, as arithmetic and CAST see it:
/// "12abc" is 12, "abc" is 0, "1.5x" is 1.5.
pub fn text_prefix_numeric(bytes: &[u8]) -> Value {
    let start = bytes.iter().position(|c| !c.is_ascii_whitespace()).unwrap_or(bytes.len());
    let b = &bytes[start..];
    let (len, is_int) = scan_number(b);
    if len == 0 {
        return Value::Integer(0);
    }
    let t = std::str::from_utf8(&b[..len]).unwrap_or("0");
    if is_int {
        match t.parse::<i64>() {
            Ok(i) => Value::Integer(i),
            Err(_) => Value::Real(t.parse::<f64>().unwrap_or(0.0)),
        }
    } else {
        Value::Real(normalise_float_text(t).parse::<f64>().unwrap_or(0.0))
    }
}

/// A value as a number for arithmetic: integers and reals stay, text and
/// blobs convert by prefix, NULL stays NULL.
pub fn numerify(v: &Value) -> Value {
    match v {
        Value::Null => Value::Null,
        Value::Integer(_) | Value::Real(_) => v.clone(),
        Value::Text(t) | Value::Blob(t) => text_prefix_numeric(t),
    }
}

/// A value as f64 (NULL is 0.0).
pub fn to_f64(v: &Value) -> f64 {
    match numerify(v) {
        Value::Integer(i) => i as f64,
        Value::Real(r) => r,
        _ => 0.0,
    }
}

/// A real truncated to an integer the way SQLite does (saturating).
pub fn f64_to_i64(r: f64) -> i64 {
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

/// A value as i64 (NULL is 0; text by prefix; reals truncated).
pub fn to_i64(v: &Value) -> i64 {
    match v {
        Value::Integer(i) => *i,
        Value::Real(r) => f64_to_i64(*r),
        Value::Text(t) | Value::Blob(t) => text_to_i64_prefix(t),
        Value::Null => 0,
    }
}

/// Integer prefix of a text, saturating on overflow (CAST AS INTEGER).
pub fn text_to_i64_prefix(bytes: &[u8]) -> i64 {
    let start = bytes.iter().position(|c| !c.is_ascii_whitespace()).unwrap_or(bytes.len());
    let b = &bytes[start..];
    let (len, is_int) = scan_number(b);
    if len == 0 {
        return 0;
    }
    let t = std::str::from_utf8(&b[..len]).unwrap_or("0");
    if is_int {
        match t.parse::<i64>() {
            Ok(i) => i,
            Err(_) => {
                if t.starts_with('-') {
                    i64::MIN
                } else {
                    i64::MAX
                }
            }
        }
    } else {
        f64_to_i64(normalise_float_text(t).parse::<f64>().unwrap_or(0.0))
    }
}

/// SQLite's rendering of a REAL as text: up to 15 significant digits if
/// that round-trips, else 17; always with a decimal point or exponent.
pub fn format_real(r: f64) -> String {
    if r.is_nan() {
        return "NULL".into();
    }
    if r.is_infinite() {
        return if r > 0.0 { "Inf".into() } else { "-Inf".into() };
    }
    if r == 0.0 {
        return "0.0".into();
    }
    let mut out = format_g(r, 15);
    if out.parse::<f64>().ok() != Some(r) {
        out = format_g(r, 17);
    }
    out
}

/// `%!.Ng`-like: N significant digits, trailing zeros removed but a ".0"
/// kept.
fn format_g(r: f64, prec: usize) -> String {
    let sci = format!("{:.*e}", prec - 1, r);
    let (mant, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let neg = mant.starts_with('-');
    let digits: String = mant.chars().filter(|c| c.is_ascii_digit()).collect();
    let digits = digits.trim_end_matches('0');
    let digits = if digits.is_empty() { "0" } else { digits };
    let mut s = String::new();
    if neg {
        s.push('-');
    }
    // SQLite switches to exponent form past 16 digits of magnitude,
    // whatever the precision used for the digits.
    if exp < -4 || exp > 16 {
        s.push_str(&digits[..1]);
        s.push('.');
        if digits.len() > 1 {
            s.push_str(&digits[1..]);
        } else {
            s.push('0');
        }
        s.push('e');
        s.push(if exp < 0 { '-' } else { '+' });
        s.push_str(&format!("{:02}", exp.abs()));
    } else if exp < 0 {
        s.push_str("0.");
        for _ in 0..(-exp - 1) {
            s.push('0');
        }
        s.push_str(digits);
    } else {
        let e = exp as usize;
        if digits.len() > e + 1 {
            s.push_str(&digits[..e + 1]);
            s.push('.');
            s.push_str(&digits[e + 1..]);
        } else {
            s.push_str(digits);
            for _ in digits.len()..e + 1 {
                s.push('0');
            }
            s.push_str(".0");
        }
    }
    s
}

/// The text form of a value (NULL has none).
pub fn to_text(v: &Value) -> Option<Vec<u8>> {
    match v {
        Value::Null => None,
        Value::Integer(i) => Some(i.to_string().into_bytes()),
        Value::Real(r) => Some(format_real(*r).into_bytes()),
        Value::Text(t) | Value::Blob(t) => Some(t.clone()),
    }
}

/// Apply an affinity (`datatype3.txt` 3.0-3.4) to a value.
pub fn apply_affinity(v: Value, aff: Affinity) -> Value {
    match aff {
        Affinity::Blob => v,
        Affinity::Text => match v {
            Value::Integer(_) | Value::Real(_) => Value::Text(to_text(&v).unwrap_or_default()),
            other => other,
        },
        Affinity::Numeric | Affinity::Integer => match v {
            Value::Text(ref t) => match parse_number_exact(t) {
                Some(Value::Real(r)) => real_to_int_if_exact(r),
                Some(n) => n,
                None => v,
            },
            Value::Real(r) => real_to_int_if_exact(r),
            other => other,
        },
        Affinity::Real => match v {
            Value::Text(ref t) => match parse_number_exact(t) {
                Some(Value::Integer(i)) => Value::Real(i as f64),
                Some(n) => n,
                None => v,
            },
            Value::Integer(i) => Value::Real(i as f64),
            other => other,
        },
    }
}

fn real_to_int_if_exact(r: f64) -> Value {
    if r.fract() == 0.0 && r.abs() < 9.2e18 && (r as i64) as f64 == r {
        Value::Integer(r as i64)
    } else {
        Value::Real(r)
    }
}

/// CAST(v AS <affinity>) (`lang_expr.txt`, "CAST expressions").
pub fn cast(v: Value, aff: Affinity) -> Value {
    if v.is_null() {
        return v;
    }
    match aff {
        Affinity::Blob => match v {
            Value::Blob(_) => v,
            other => Value::Blob(to_text(&other).unwrap_or_default()),
        },
        Affinity::Text => Value::Text(to_text(&v).unwrap_or_default()),
        Affinity::Integer => Value::Integer(to_i64(&v)),
        Affinity::Real => Value::Real(to_f64(&v)),
        Affinity::Numeric => match v {
            Value::Integer(_) => v,
            Value::Real(r) => real_to_int_if_exact(r),
            Value::Text(t) | Value::Blob(t) => match text_prefix_numeric(&t) {
                Value::Real(r) => real_to_int_if_exact(r),
                n => n,
            },
            Value::Null => Value::Null,
        },
    }
}

fn class_rank(v: &Value) -> u8 {
    match v {
        Value::Null => 0,
        Value::Integer(_) | Value::Real(_) => 1,
        Value::Text(_) => 2,
        Value::Blob(_) => 3,
    }
}

/// Compare an integer with a real exactly.
fn cmp_int_real(i: i64, r: f64) -> Ordering {
    if r.is_nan() {
        return Ordering::Greater;
    }
    if r < -9.223372036854775808e18 {
        return Ordering::Greater;
    }
    if r >= 9.223372036854775808e18 {
        return Ordering::Less;
    }
    let t = r.trunc() as i64;
    match i.cmp(&t) {
        Ordering::Equal => {
            let frac = r - r.trunc();
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

/// Total order of values: NULL < numbers < text (by collation) < blob.
pub fn compare(a: &Value, b: &Value, coll: Option<&Collation>) -> Ordering {
    let (ra, rb) = (class_rank(a), class_rank(b));
    if ra != rb {
        return ra.cmp(&rb);
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
        _ => Ordering::Equal,
    }
}

/// Whether a value is true in a boolean context (NULL is neither).
pub fn truthiness(v: &Value) -> Option<bool> {
    match v {
        Value::Null => None,
        Value::Integer(i) => Some(*i != 0),
        Value::Real(r) => Some(*r != 0.0),
        Value::Text(t) | Value::Blob(t) => Some(to_f64(&text_prefix_numeric(t)) != 0.0),
    }
}

// ---- records (fileformat2.txt, "Record Format") ----

fn put_varint(out: &mut Vec<u8>, v: u64) {
    if v <= 0x7f {
        out.push(v as u8);
        return;
    }
    if v > 0x00ff_ffff_ffff_ffff {
        let mut buf = [0u8; 9];
        buf[8] = v as u8;
        let mut x = v >> 8;
        for i in (0..8).rev() {
            buf[i] = ((x & 0x7f) | 0x80) as u8;
            x >>= 7;
        }
        out.extend_from_slice(&buf);
        return;
    }
    let mut tmp = Vec::with_capacity(9);
    let mut x = v;
    while x > 0 {
        tmp.push((x & 0x7f) as u8);
        x >>= 7;
    }
    for (i, b) in tmp.iter().rev().enumerate() {
        out.push(if i + 1 < tmp.len() { b | 0x80 } else { *b });
    }
}

fn get_varint(b: &[u8]) -> Option<(u64, usize)> {
    let mut v: u64 = 0;
    for i in 0..9 {
        let c = *b.get(i)?;
        if i == 8 {
            return Some(((v << 8) | c as u64, 9));
        }
        v = (v << 7) | (c & 0x7f) as u64;
        if c & 0x80 == 0 {
            return Some((v, i + 1));
        }
    }
    None
}

fn serial_type(v: &Value) -> (u64, usize) {
    match v {
        Value::Null => (0, 0),
        Value::Integer(i) => {
            let i = *i;
            if i == 0 {
                (8, 0)
            } else if i == 1 {
                (9, 0)
            } else if (-128..=127).contains(&i) {
                (1, 1)
            } else if (-32768..=32767).contains(&i) {
                (2, 2)
            } else if (-8388608..=8388607).contains(&i) {
                (3, 3)
            } else if (-2147483648..=2147483647).contains(&i) {
                (4, 4)
            } else if (-140737488355328..=140737488355327).contains(&i) {
                (5, 6)
            } else {
                (6, 8)
            }
        }
        Value::Real(_) => (7, 8),
        Value::Text(t) => (13 + 2 * t.len() as u64, t.len()),
        Value::Blob(b) => (12 + 2 * b.len() as u64, b.len()),
    }
}

/// Encode values as a record.
pub fn encode_record(values: &[Value]) -> Vec<u8> {
    let mut header = Vec::new();
    let mut body = Vec::new();
    for v in values {
        let (st, _) = serial_type(v);
        put_varint(&mut header, st);
        match v {
            Value::Integer(i) => {
                let n = serial_type(v).1;
                let bytes = i.to_be_bytes();
                body.extend_from_slice(&bytes[8 - n..]);
            }
            Value::Real(r) => body.extend_from_slice(&r.to_bits().to_be_bytes()),
            Value::Text(t) | Value::Blob(t) => body.extend_from_slice(t),
            Value::Null => {}
        }
    }
    // The header size counts itself; one extra byte may push it over 127.
    let mut hlen = header.len() + 1;
    if hlen > 127 {
        hlen += 1;
        let mut probe = Vec::new();
        put_varint(&mut probe, hlen as u64);
        hlen = header.len() + probe.len();
    }
    let mut out = Vec::with_capacity(hlen + body.len());
    put_varint(&mut out, hlen as u64);
    out.extend_from_slice(&header);
    out.extend_from_slice(&body);
    out
}

/// Decode every field of a record.
pub fn decode_record(rec: &[u8]) -> Result<Vec<Value>> {
    let (hlen, mut p) = get_varint(rec).ok_or_else(Error::corrupt)?;
    let hlen = hlen as usize;
    if hlen > rec.len() || hlen < p {
        return Err(Error::corrupt());
    }
    let mut body = hlen;
    let mut out = Vec::new();
    while p < hlen {
        let (st, n) = get_varint(&rec[p..hlen]).ok_or_else(Error::corrupt)?;
        p += n;
        let size = match st {
            0 | 8 | 9 | 10 | 11 => 0,
            1 => 1,
            2 => 2,
            3 => 3,
            4 => 4,
            5 => 6,
            6 | 7 => 8,
            n => ((n - 12) / 2) as usize,
        };
        let data = rec.get(body..body + size).ok_or_else(Error::corrupt)?;
        body += size;
        let v = match st {
            0 | 10 | 11 => Value::Null,
            8 => Value::Integer(0),
            9 => Value::Integer(1),
            1..=6 => {
                let mut x: i64 = if data[0] & 0x80 != 0 { -1 } else { 0 };
                for &b in data {
                    x = (x << 8) | b as i64;
                }
                Value::Integer(x)
            }
            7 => {
                let mut a = [0u8; 8];
                a.copy_from_slice(data);
                let r = f64::from_bits(u64::from_be_bytes(a));
                Value::Real(r)
            }
            n if n % 2 == 0 => Value::Blob(data.to_vec()),
            _ => Value::Text(data.to_vec()),
        };
        out.push(v);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_round_trip() {
        let vals = vec![
            Value::Null,
            Value::Integer(0),
            Value::Integer(1),
            Value::Integer(-5),
            Value::Integer(300),
            Value::Integer(1 << 40),
            Value::Integer(i64::MIN),
            Value::Real(1.5),
            Value::text("hello"),
            Value::Blob(vec![1, 2, 3]),
        ];
        let rec = encode_record(&vals);
        let back = decode_record(&rec).unwrap();
        assert_eq!(format!("{vals:?}"), format!("{back:?}"));
    }

    #[test]
    fn real_text() {
        assert_eq!(format_real(3.0), "3.0");
        assert_eq!(format_real(0.1 + 0.2), "0.30000000000000004");
        assert_eq!(format_real(1e20), "1.0e+20");
        assert_eq!(format_real(1.5e-5), "1.5e-05");
        assert_eq!(format_real(123.456), "123.456");
    }
}
