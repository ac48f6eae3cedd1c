//! Value conversions as the function bodies need them: the `sqlite3_value_*`
//! accessors of the C API (`value_f64`, `value_i64`, `value_text`), numeric
//! classification (`sqlite3_value_numeric_type`) and value comparison, all
//! built on `crate::value::{numeric, compare}`.

use crate::value::collation::Collation;
use crate::value::numeric::{self, IntParse};
use crate::value::Value;
use std::borrow::Cow;
use std::cmp::Ordering;

/// `sqlite3_value_double`: NULL is 0.0, text and blobs parse their longest
/// numeric prefix.
pub fn value_f64(v: &Value) -> f64 {
    numeric::value_to_f64(v.as_ref())
}

/// `sqlite3_value_int64`: NULL is 0, reals truncate (saturating), text and
/// blobs use their integer prefix.
pub fn value_i64(v: &Value) -> i64 {
    numeric::value_to_i64(v.as_ref())
}

/// `sqlite3_value_text`: None for NULL; numbers rendered as SQLite renders
/// them; blobs as their bytes.
pub fn value_text(v: &Value) -> Option<Vec<u8>> {
    numeric::cast_to_text(v.as_ref())
}

/// Like [`value_text`] but borrowing when the value already holds bytes.
#[inline]
pub fn value_bytes(v: &Value) -> Option<Cow<'_, [u8]>> {
    match v {
        Value::Text(t) | Value::Blob(t) => Some(Cow::Borrowed(t)),
        Value::ZeroBlob(_) => match v.as_ref() {
            crate::value::ValueRef::Blob(z) => Some(Cow::Borrowed(z)),
            _ => None,
        },
        other => value_text(other).map(Cow::Owned),
    }
}

/// `sqlite3_value_numeric_type` applied to a copy: text that is entirely a
/// number (surrounding whitespace allowed) becomes INTEGER when it looks
/// like an in-range integer, else REAL; anything else is returned as is.
/// Unlike column affinity, `'2.0'` stays REAL.
pub fn numeric_value(v: &Value) -> Value {
    let Value::Text(t) = v else { return v.clone() };
    let (r, parse) = numeric::text_to_f64(t);
    if !parse.is_number() {
        return v.clone();
    }
    if parse.looks_integer() {
        let (i, class) = numeric::text_to_i64(t);
        if class == IntParse::Exact {
            return Value::Integer(i);
        }
    }
    Value::Real(r)
}

/// SQLite's value order (NULL < numbers < text < blobs), text compared
/// with `coll` (BINARY when None).
pub fn compare(a: &Value, b: &Value, coll: Option<&Collation>) -> Ordering {
    crate::value::compare::compare_values(a.as_ref(), b.as_ref(), coll)
}
