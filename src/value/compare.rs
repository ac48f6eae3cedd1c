//! SQLite's total order over values (`datatype3.txt` §4.1): NULL first,
//! then INTEGER and REAL together in numeric order, then TEXT in collation
//! order, then BLOB in memcmp order. Used by ORDER BY, index keys, min/max
//! and the comparison operators once affinity has been applied.
//!
//! Invariant: INTEGER against REAL is compared exactly (no rounding of the
//! integer to a double), so 2^53+1 > 2^53 as REAL (checked: int_real_exact). A
//! NaN REAL (which SQLite never stores; it becomes NULL) orders below every
//! number.

use super::collation::Collation;
use super::ValueRef;
use std::cmp::Ordering;

/// Exact comparison of an integer with a double (`IntFloatCompare`).
pub fn int_float_compare(i: i64, r: f64) -> Ordering {
    if r.is_nan() {
        return Ordering::Greater;
    }
    if r < -9223372036854775808.0 {
        return Ordering::Greater;
    }
    if r >= 9223372036854775808.0 {
        return Ordering::Less;
    }
    let y = r as i64;
    match i.cmp(&y) {
        Ordering::Equal => (i as f64).partial_cmp(&r).unwrap_or(Ordering::Equal),
        other => other,
    }
}

fn class(v: &ValueRef<'_>) -> u8 {
    match v {
        ValueRef::Null => 0,
        ValueRef::Integer(_) | ValueRef::Real(_) => 1,
        ValueRef::Text(_) => 2,
        ValueRef::Blob(_) => 3,
    }
}

/// Compares two values in SQLite's sort order. Text is compared with `coll`
/// (BINARY when `None`: memcmp order of the text in the database encoding).
pub fn compare_values(a: ValueRef<'_>, b: ValueRef<'_>, coll: Option<&Collation>) -> Ordering {
    match (a, b) {
        (ValueRef::Integer(x), ValueRef::Integer(y)) => x.cmp(&y),
        (ValueRef::Real(x), ValueRef::Real(y)) => x.partial_cmp(&y).unwrap_or(Ordering::Equal),
        (ValueRef::Integer(x), ValueRef::Real(y)) => int_float_compare(x, y),
        (ValueRef::Real(x), ValueRef::Integer(y)) => int_float_compare(y, x).reverse(),
        (ValueRef::Text(x), ValueRef::Text(y)) => match coll {
            Some(c) => c.compare(x, y),
            None => super::encoding::binary_order_current(x, y),
        },
        (ValueRef::Blob(x), ValueRef::Blob(y)) => x.cmp(y),
        (a, b) => class(&a).cmp(&class(&b)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn int_vs_real_is_exact() {
        let big = 1i64 << 53;
        // invariant: int_real_exact
        assert_eq!(compare_values(ValueRef::Integer(big + 1), ValueRef::Real(big as f64), None), Ordering::Greater);
        assert_eq!(compare_values(ValueRef::Real(1.5), ValueRef::Integer(1), None), Ordering::Greater);
        assert_eq!(compare_values(ValueRef::Integer(i64::MAX), ValueRef::Real(9223372036854775808.0), None), Ordering::Less);
        assert_eq!(compare_values(ValueRef::Integer(3), ValueRef::Real(3.0), None), Ordering::Equal);
    }

    #[test]
    fn class_order() {
        let vals = [ValueRef::Null, ValueRef::Integer(5), ValueRef::Text(b"a"), ValueRef::Blob(b"a")];
        for (i, a) in vals.iter().enumerate() {
            for (j, b) in vals.iter().enumerate() {
                assert_eq!(compare_values(*a, *b, None), i.cmp(&j));
            }
        }
    }
}
