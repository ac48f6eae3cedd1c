//! # Index key comparison
//!
//! Orders index entries (records) by the fields of a [`KeyInfo`]: NULL <
//! numbers (integers and reals compared by value) < text (by the field's
//! collation) < blob (memcmp); a DESC field reverses its order. Fields past
//! the end of the `KeyInfo` compare BINARY ascending. When one side runs
//! out of fields first the two compare equal, which is what prefix seeks
//! need.
//!
//! The value module (`crate::value::record`) owns the record format for the
//! rest of the engine; this module decodes only what comparisons need so
//! the B-tree does not depend on it being finished.

use super::cell::get_varint;
use crate::error::{Error, Result};
use crate::value::record::KeyInfo;
use crate::value::ValueRef;
use std::cmp::Ordering;

/// Decode the fields of a record (borrowing text and blob bytes).
pub fn decode(record: &[u8]) -> Result<Vec<ValueRef<'_>>> {
    let (hdr_len, n) = get_varint(record)?;
    let hdr_len = hdr_len as usize;
    if hdr_len > record.len() || hdr_len < n {
        return Err(Error::corrupt());
    }
    let mut pos = n;
    let mut body = hdr_len;
    let mut out = Vec::new();
    while pos < hdr_len {
        let (t, n) = get_varint(&record[pos..hdr_len])?;
        pos += n;
        let (len, v) = match t {
            0 => (0, ValueRef::Null),
            1..=6 => {
                let len = [0, 1, 2, 3, 4, 6, 8][t as usize];
                let b = record.get(body..body + len).ok_or_else(Error::corrupt)?;
                let mut x: i64 = if b[0] & 0x80 != 0 { -1 } else { 0 };
                for &byte in b {
                    x = (x << 8) | byte as i64;
                }
                (len, ValueRef::Integer(x))
            }
            7 => {
                let b = record.get(body..body + 8).ok_or_else(Error::corrupt)?;
                (8, ValueRef::Real(f64::from_bits(u64::from_be_bytes(b.try_into().map_err(|_| Error::corrupt())?))))
            }
            8 => (0, ValueRef::Integer(0)),
            9 => (0, ValueRef::Integer(1)),
            10 | 11 => return Err(Error::corrupt()),
            t => {
                let len = ((t - 12) / 2) as usize;
                let b = record.get(body..body + len).ok_or_else(Error::corrupt)?;
                (len, if t % 2 == 0 { ValueRef::Blob(b) } else { ValueRef::Text(b) })
            }
        };
        body += len;
        out.push(v);
    }
    Ok(out)
}

fn class(v: &ValueRef<'_>) -> u8 {
    match v {
        ValueRef::Null => 0,
        ValueRef::Integer(_) | ValueRef::Real(_) => 1,
        ValueRef::Text(_) => 2,
        ValueRef::Blob(_) => 3,
    }
}

fn int_real(i: i64, r: f64) -> Ordering {
    if r.is_nan() {
        return Ordering::Greater;
    }
    if r < -9.223_372_036_854_776e18 {
        return Ordering::Greater;
    }
    if r >= 9.223_372_036_854_776e18 {
        return Ordering::Less;
    }
    let t = r.trunc() as i64;
    match i.cmp(&t) {
        Ordering::Equal => 0.0f64.partial_cmp(&(r - r.trunc())).unwrap_or(Ordering::Equal),
        o => o,
    }
}

/// Compare two values as field `i` of `key_info`.
pub fn compare_values(a: &ValueRef<'_>, b: &ValueRef<'_>, key_info: &KeyInfo, i: usize) -> Ordering {
    let field = key_info.fields.get(i);
    let o = match class(a).cmp(&class(b)) {
        Ordering::Equal => match (a, b) {
            (ValueRef::Integer(x), ValueRef::Integer(y)) => x.cmp(y),
            (ValueRef::Real(x), ValueRef::Real(y)) => x.partial_cmp(y).unwrap_or(Ordering::Equal),
            (ValueRef::Integer(x), ValueRef::Real(y)) => int_real(*x, *y),
            (ValueRef::Real(x), ValueRef::Integer(y)) => int_real(*y, *x).reverse(),
            (ValueRef::Text(x), ValueRef::Text(y)) => match field {
                Some(f) => f.collation.compare(x, y),
                None => x.cmp(y),
            },
            (ValueRef::Blob(x), ValueRef::Blob(y)) => x.cmp(y),
            _ => Ordering::Equal,
        },
        o => o,
    };
    if field.is_some_and(|f| f.descending) {
        o.reverse()
    } else {
        o
    }
}

/// Compare a stored record with a probe key (a prefix of fields).
pub fn compare_record_with_key(record: &[u8], key: &[ValueRef<'_>], key_info: &KeyInfo) -> Result<Ordering> {
    let fields = decode(record)?;
    for (i, (a, b)) in fields.iter().zip(key.iter()).enumerate() {
        let o = compare_values(a, b, key_info, i);
        if o != Ordering::Equal {
            return Ok(o);
        }
    }
    Ok(Ordering::Equal)
}

/// Compare two stored records.
pub fn compare_records(a: &[u8], b: &[u8], key_info: &KeyInfo) -> Result<Ordering> {
    let fb = decode(b)?;
    compare_record_with_key(a, &fb, key_info)
}
