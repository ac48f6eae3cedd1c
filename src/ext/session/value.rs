//! # Values as a changeset stores them, and the primary-key hash
//!
//! A changeset field is a type byte followed by its data: 0 "undefined"
//! (a column an UPDATE leaves alone), 1 integer and 2 real (8 bytes, big
//! endian), 3 text and 4 blob (a varint length, then the bytes), 5 NULL.
//! [`Field`] is `None` for an undefined field.
//!
//! The hash places a row's change in the bucket tables of sessions and
//! changegroups; their buckets are written out in order, so the hash (and
//! the bucket count) fixes the order of the changes in the output, which
//! must be SQLite's to give the same bytes. Each key column adds its type
//! code and then its data (an integer or a real's bits as two 32-bit
//! halves, low first; text and blob byte by byte) with `h = h*9 ^ x`.
//!
//! Invariant: [`encode`] and [`decode`] are inverse on every `Field`
//! (checked: session_value_round_trip), a zeroblob reading back as the
//! blob it stands for and a pointer as NULL; decode never reads past the
//! buffer it is given.

use crate::error::{Error, Result};
use crate::value::varint::{read_varint, write_varint};
use crate::value::Value;

/// One field of a change: `None` when undefined.
pub type Field = Option<Value>;

/// Append `f` in the changeset encoding.
pub fn encode(out: &mut Vec<u8>, f: &Field) {
    #[cfg(debug_assertions)]
    let start = out.len();
    match f {
        None => out.push(0),
        Some(Value::Null | Value::Pointer(_)) => out.push(5),
        Some(Value::Integer(i)) => {
            out.push(1);
            out.extend_from_slice(&i.to_be_bytes());
        }
        Some(Value::Real(r)) => {
            out.push(2);
            out.extend_from_slice(&r.to_bits().to_be_bytes());
        }
        Some(Value::Text(t)) => {
            out.push(3);
            write_varint(out, t.len() as u64);
            out.extend_from_slice(t);
        }
        Some(Value::Blob(b)) => {
            out.push(4);
            write_varint(out, b.len() as u64);
            out.extend_from_slice(b);
        }
        Some(Value::ZeroBlob(n)) => {
            out.push(4);
            write_varint(out, *n as u64);
            out.resize(out.len() + *n, 0);
        }
    }
    // invariant: session_value_round_trip
    #[cfg(debug_assertions)]
    debug_assert!(reads_back(&out[start..], f), "a session field does not read back: {f:?}");
}

/// Whether `bytes`, one encoded field, decodes whole to `f` (a zeroblob
/// as its zeros, a pointer as NULL, a REAL to the same bits).
#[cfg(debug_assertions)]
fn reads_back(bytes: &[u8], f: &Field) -> bool {
    let mut at = 0;
    let Ok(g) = decode(bytes, &mut at) else { return false };
    let same = match (f, &g) {
        (None, None) | (Some(Value::Null | Value::Pointer(_)), Some(Value::Null)) => true,
        (Some(Value::Integer(a)), Some(Value::Integer(b))) => a == b,
        (Some(Value::Real(a)), Some(Value::Real(b))) => a.to_bits() == b.to_bits(),
        (Some(Value::Text(a)), Some(Value::Text(b))) | (Some(Value::Blob(a)), Some(Value::Blob(b))) => a == b,
        (Some(Value::ZeroBlob(n)), Some(Value::Blob(b))) => b.len() == *n && b.iter().all(|&x| x == 0),
        _ => false,
    };
    same && at == bytes.len()
}

/// Read one field at `buf[*at..]`, advancing `at`.
pub fn decode(buf: &[u8], at: &mut usize) -> Result<Field> {
    let t = *buf.get(*at).ok_or_else(corrupt)?;
    *at += 1;
    let fixed = |at: &mut usize| -> Result<[u8; 8]> {
        let b = buf.get(*at..*at + 8).ok_or_else(corrupt)?;
        *at += 8;
        Ok(b.try_into().unwrap_or([0; 8]))
    };
    Ok(match t {
        0 => None,
        5 => Some(Value::Null),
        1 => Some(Value::Integer(i64::from_be_bytes(fixed(at)?))),
        2 => Some(Value::Real(f64::from_bits(u64::from_be_bytes(fixed(at)?)))),
        3 | 4 => {
            let (n, used) = read_varint(buf.get(*at..).unwrap_or(&[])).ok_or_else(corrupt)?;
            *at += used;
            let end = at.checked_add(usize::try_from(n).map_err(|_| corrupt())?).ok_or_else(corrupt)?;
            let bytes = buf.get(*at..end).ok_or_else(corrupt)?.to_vec();
            *at = end;
            if t == 3 {
                Some(Value::Text(bytes))
            } else {
                Some(Value::Blob(bytes))
            }
        }
        _ => return Err(corrupt()),
    })
}

/// `SQLITE_CORRUPT`, as a damaged changeset is reported.
pub fn corrupt() -> Error {
    Error::code(crate::error::SQLITE_CORRUPT)
}

/// Whether two fields hold the same value of the same type (SQLite
/// compares their encodings: 1 and 1.0 differ, as do -0.0 and 0.0).
pub fn same(a: &Field, b: &Field) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(x), Some(y)) => same_value(x, y),
        _ => false,
    }
}

/// [`same`] for values.
pub fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Integer(x), Value::Integer(y)) => x == y,
        (Value::Real(x), Value::Real(y)) => x.to_bits() == y.to_bits(),
        (Value::Text(x), Value::Text(y)) => x == y,
        (Value::Blob(_) | Value::ZeroBlob(_), Value::Blob(_) | Value::ZeroBlob(_)) => blob_bytes(a) == blob_bytes(b),
        _ => false,
    }
}

fn blob_bytes(v: &Value) -> std::borrow::Cow<'_, [u8]> {
    match v {
        Value::Blob(b) => std::borrow::Cow::Borrowed(b),
        Value::ZeroBlob(n) => std::borrow::Cow::Owned(vec![0; *n]),
        _ => std::borrow::Cow::Borrowed(&[]),
    }
}

fn mix(h: u32, x: u32) -> u32 {
    (h << 3) ^ h ^ x
}

/// The hash of a row's key: `key` holds its primary-key values in column
/// order. `None` when one is NULL (such rows are not recorded).
pub fn key_hash(key: &[&Value]) -> Option<u32> {
    let mut h = 0u32;
    for v in key {
        match v {
            Value::Null | Value::Pointer(_) => return None,
            Value::Integer(i) => {
                h = mix(h, 1);
                h = mix(mix(h, *i as u32), (*i >> 32) as u32);
            }
            Value::Real(r) => {
                let i = r.to_bits();
                h = mix(h, 2);
                h = mix(mix(h, i as u32), (i >> 32) as u32);
            }
            Value::Text(t) => {
                h = mix(h, 3);
                h = t.iter().fold(h, |h, b| mix(h, u32::from(*b)));
            }
            Value::Blob(_) | Value::ZeroBlob(_) => {
                h = mix(h, 4);
                h = blob_bytes(v).iter().fold(h, |h, b| mix(h, u32::from(*b)));
            }
        }
    }
    Some(h)
}

/// The hash of a row keyed by its rowid alone (a table recorded under
/// `SQLITE_SESSION_OBJCONFIG_ROWID`): the rowid's halves without a type
/// code, as SQLite hashes it.
pub fn rowid_hash(rowid: i64) -> u32 {
    mix(mix(0, rowid as u32), (rowid >> 32) as u32)
}
