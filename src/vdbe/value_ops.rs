//! The value operations the VM and the compiler use, as one narrow
//! adapter over `crate::value` (conversions, comparison, affinity, CAST,
//! arithmetic, REAL rendering, records). Everything here delegates; the
//! only logic of its own is boolean truth, which SQLite defines through
//! the numeric value.

use crate::error::Result;
use crate::value::collation::Collation;
use crate::value::numeric::{self, ArithOp};
use crate::value::Value;
use std::cmp::Ordering;

pub use crate::value::affinity::Affinity;

/// Affinity of a declared column type.
pub fn affinity_of_type(decl: &str) -> Affinity {
    Affinity::from_decltype(decl)
}

/// Affinity from its letter ('A' for anything unknown).
pub fn affinity_from_letter(c: char) -> Affinity {
    Affinity::from_letter(c).unwrap_or(Affinity::Blob)
}

/// A whole text as a number, when it is a well-formed one.
pub fn parse_number_exact(bytes: &[u8]) -> Option<Value> {
    numeric::text_to_numeric(bytes)
}

/// A value as arithmetic sees it (text by prefix).
pub fn numerify(v: &Value) -> Value {
    numeric::arith_operand(v.as_ref())
}

/// A value as f64.
pub fn to_f64(v: &Value) -> f64 {
    numeric::value_to_f64(v.as_ref())
}

/// A real truncated to an integer as SQLite does.
pub fn f64_to_i64(r: f64) -> i64 {
    numeric::real_to_i64(r)
}

/// A value as i64.
pub fn to_i64(v: &Value) -> i64 {
    numeric::value_to_i64(v.as_ref())
}

/// SQLite's text rendering of a REAL.
pub fn format_real(r: f64) -> String {
    numeric::format_real(r)
}

/// The text form of a value (NULL has none).
pub fn to_text(v: &Value) -> Option<Vec<u8>> {
    numeric::cast_to_text(v.as_ref())
}

/// Apply an affinity to a value.
pub fn apply_affinity(v: Value, aff: Affinity) -> Value {
    crate::value::affinity::apply_affinity(v, aff)
}

/// CAST(v AS <affinity>).
pub fn cast(v: Value, aff: Affinity) -> Value {
    let r = v.as_ref();
    match aff {
        Affinity::Blob => numeric::cast_to_blob(r).map_or(Value::Null, Value::Blob),
        Affinity::Text => numeric::cast_to_text(r).map_or(Value::Null, Value::Text),
        Affinity::Integer => match &v {
            Value::Text(t) | Value::Blob(t) => Value::Integer(integer_prefix(t)),
            Value::ZeroBlob(_) => Value::Integer(0),
            _ => numeric::cast_to_integer(r),
        },
        Affinity::Real => numeric::cast_to_real(r),
        Affinity::Numeric => numeric::cast_to_numeric(r),
    }
}

/// `CAST(text AS INTEGER)`: the longest prefix that reads as an integer
/// (after leading spaces and a sign; `'1e2'` is 1), saturating at the
/// 64-bit limits, 0 when there is none.
pub fn integer_prefix(t: &[u8]) -> i64 {
    let mut i = 0;
    while i < t.len() && matches!(t[i], b' ' | b'\t' | b'\n' | b'\r' | b'\x0c') {
        i += 1;
    }
    let negative = t.get(i) == Some(&b'-');
    if matches!(t.get(i), Some(b'-') | Some(b'+')) {
        i += 1;
    }
    let mut magnitude: u128 = 0;
    while let Some(d) = t.get(i).filter(|c| c.is_ascii_digit()) {
        magnitude = (magnitude * 10 + (d - b'0') as u128).min(1 << 64);
        i += 1;
    }
    if negative {
        if magnitude >= 1 << 63 {
            i64::MIN
        } else {
            -(magnitude as i64)
        }
    } else if magnitude > i64::MAX as u128 {
        i64::MAX
    } else {
        magnitude as i64
    }
}

/// `a op b` for the arithmetic opcodes.
pub fn arith(op: ArithOp, a: &Value, b: &Value) -> Value {
    numeric::arith(op, a.as_ref(), b.as_ref())
}

/// Total order of values with an optional collation for text.
pub fn compare(a: &Value, b: &Value, coll: Option<&Collation>) -> Ordering {
    crate::value::compare::compare_values(a.as_ref(), b.as_ref(), coll)
}

/// Truth of a value in a boolean context (NULL is neither).
pub fn truthiness(v: &Value) -> Option<bool> {
    match v {
        Value::Null | Value::Pointer(_) => None,
        Value::Integer(i) => Some(*i != 0),
        other => Some(to_f64(other) != 0.0),
    }
}

/// Encode values as a record.
pub fn encode_record(values: &[Value]) -> Vec<u8> {
    crate::value::record::encode_record(values)
}

/// Decode every field of a record.
pub fn decode_record(rec: &[u8]) -> Result<Vec<Value>> {
    // Straight to owned values, without an intermediate Vec of borrows.
    crate::value::record::decode_record(rec)
}

/// `SQLITE_LIMIT_LENGTH` applied to a value an instruction produced: a
/// text or blob longer than `max_length` bytes is `SQLITE_TOOBIG`.
pub fn check_length(v: &Value, max_length: i64) -> Result<()> {
    match v {
        Value::Text(_) | Value::Blob(_) | Value::ZeroBlob(_) if v.byte_len() as i64 > max_length => Err(too_big()),
        _ => Ok(()),
    }
}

/// `SQLITE_TOOBIG` with SQLite's message.
pub fn too_big() -> crate::error::Error {
    crate::error::Error::new(crate::error::SQLITE_TOOBIG, "string or blob too big")
}
