//! # Values, records, affinity and collation
//!
//! Sits beside the layers: the VM computes with [`Value`]s, the B-tree
//! compares index keys with [`record`] and [`collation`], the SQL layer
//! applies [`affinity`]. Everything here follows `datatype3.txt` and the
//! record format of `fileformat2.txt` exactly.
//!
//! Text is kept as bytes: SQLite stores whatever bytes it is given, valid
//! UTF-8 or not, and gives them back unchanged. In memory it is always
//! UTF-8; a UTF-16 database's records are converted by the B-tree (see
//! [`encoding`]).
//!
//! A blob of zeros nobody stored (`zeroblob(N)`) is [`Value::ZeroBlob`]:
//! borrowed as bytes ([`Value::as_ref`]) it reads the process's zero
//! region, so code that takes a `ValueRef` needs nothing special; code
//! that matches `Value::Blob` must treat it as the same class (it is a
//! BLOB to every SQL function and to `sqlite3_value_type`).
//!
//! ## Where things are
//! - [`varint`]: the 1–9 byte integers of record and cell headers.
//! - [`record`]: serial types, [`record::encode_record`] /
//!   [`record::RecordBuilder`] (byte-identical to SQLite),
//!   [`record::Record`] (lazy column access, `SQLITE_CORRUPT` on any
//!   inconsistency), key comparison with [`record::KeyInfo`].
//! - [`row_header`]: a cursor's record header, parsed only as far as the
//!   columns read (and corruption found when reached, as in SQLite).
//! - [`compare`]: SQLite's total order of values.
//! - [`affinity`]: declared type → affinity, the conversion before storing
//!   ([`affinity::apply_affinity`]; a whole REAL under REAL affinity stays
//!   an INTEGER in the record, as SQLite stores it, and reading a REAL
//!   column applies [`affinity::real_affinity`]), CAST by affinity, the
//!   affinity of a comparison.
//! - [`numeric`]: text→number parsing with SQLite's exact rules, CAST,
//!   `sqlite3_value_int64/double/text` conversions, REAL→text
//!   ([`numeric::format_real`]), SQL arithmetic ([`numeric::arith`]).
//! - [`printf`]: the printf engine for `printf()`/`format()` (SQL values)
//!   and `sqlite3_mprintf` (C varargs through [`printf::PrintfArgs`]).
//! - [`fpdecode`], [`pow10`]: the decimal digits of a double exactly as
//!   SQLite computes them (REAL→text and `%e/%f/%g` depend on them).
//! - [`collation`]: BINARY, NOCASE, RTRIM and user collations.
//! - [`encoding`]: the database text encodings, UTF-16 conversions, and
//!   the BINARY order of text on a UTF-16 database; [`transcode`]: a
//!   record's text fields converted to and from one.
//!
//! Every conversion is tested differentially against SQLite 3.54.1
//! (`src/value/tests/`).

pub mod affinity;
pub mod collation;
pub mod compare;
pub mod encoding;
pub mod fpdecode;
pub mod literal;
pub mod numeric;
pub mod pointer;
pub mod pow10;
pub mod printf;
pub mod record;
pub mod row_header;
pub mod transcode;
pub mod varint;

/// The five storage classes.
#[derive(Debug, Default)]
pub enum Value {
    /// SQL NULL.
    #[default]
    Null,
    /// 64-bit signed integer.
    Integer(i64),
    /// IEEE 754 double.
    Real(f64),
    /// Text as UTF-8 (whatever the database encoding), not necessarily valid.
    Text(Vec<u8>),
    /// Bytes.
    Blob(Vec<u8>),
    /// A blob of this many zero bytes, not stored (SQLite's `MEM_Zero`):
    /// what `zeroblob(N)` and `sqlite3_bind_zeroblob` give. Read as bytes
    /// it borrows the zero region ([`crate::io::zeros`]); a record keeps
    /// trailing ones out of its bytes and the B-tree writes their zeros
    /// straight into the overflow pages. Made only by
    /// [`Value::zero_blob`], so its bytes can always be borrowed.
    ZeroBlob(usize),
    /// A NULL carrying an application's pointer ([`pointer`]): SQL sees
    /// NULL ([`Value::as_ref`] gives [`ValueRef::Null`]); only the C
    /// layer's `sqlite3_value_pointer` reads the payload.
    Pointer(pointer::PointerValue),
}

// Written out so that it stays inlined where registers are copied and
// filled (`vec![Register::default(); n]`): the derived clone, with the
// pointer variant's reference count, was no longer inlined and cost ~2% of
// INSERT and 17% of a cached prepare (bench/capi/count.sh).
impl Clone for Value {
    #[inline(always)]
    fn clone(&self) -> Value {
        match self {
            Value::Null => Value::Null,
            Value::Integer(i) => Value::Integer(*i),
            Value::Real(r) => Value::Real(*r),
            Value::Text(t) => Value::Text(t.clone()),
            Value::Blob(b) => Value::Blob(b.clone()),
            Value::ZeroBlob(n) => Value::ZeroBlob(*n),
            Value::Pointer(p) => Value::Pointer(p.clone_cold()),
        }
    }
}

/// A borrowed value, as decoded from a record without copying.
#[derive(Debug, Clone, Copy)]
pub enum ValueRef<'a> {
    /// SQL NULL.
    Null,
    /// 64-bit signed integer.
    Integer(i64),
    /// IEEE 754 double.
    Real(f64),
    /// Text bytes.
    Text(&'a [u8]),
    /// Blob bytes.
    Blob(&'a [u8]),
}

/// Storage class codes, numbered as `sqlite3_column_type` returns them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(i32)]
pub enum ValueType {
    /// SQLITE_INTEGER
    Integer = 1,
    /// SQLITE_FLOAT
    Real = 2,
    /// SQLITE_TEXT
    Text = 3,
    /// SQLITE_BLOB
    Blob = 4,
    /// SQLITE_NULL
    Null = 5,
}

impl Value {
    /// The storage class.
    pub fn value_type(&self) -> ValueType {
        self.as_ref().value_type()
    }

    /// `*self = v.to_owned()`, reusing this value's text or blob buffer if
    /// it has one (a scan writes a column into the same register on every
    /// row).
    // (Always inline: a column read stores through here once per row, and
    // its common cases are a few instructions.)
    #[inline(always)]
    pub fn assign_ref(&mut self, v: ValueRef<'_>) {
        match (&mut *self, v) {
            // Same class, a buffer of a sensible size: refilled in place.
            (Value::Text(t), ValueRef::Text(b)) | (Value::Blob(t), ValueRef::Blob(b)) if t.capacity() <= 4096 => {
                t.clear();
                t.extend_from_slice(b);
            }
            (_, ValueRef::Text(_) | ValueRef::Blob(_)) => self.assign_bytes(v),
            (_, ValueRef::Null) => *self = Value::Null,
            (_, ValueRef::Integer(i)) => *self = Value::Integer(i),
            (_, ValueRef::Real(r)) => *self = Value::Real(r),
        }
    }

    /// [`Value::assign_ref`] of text or a blob into a value of another
    /// class (or holding a large buffer).
    fn assign_bytes(&mut self, v: ValueRef<'_>) {
        let (ValueRef::Text(b) | ValueRef::Blob(b)) = v else { return self.assign_ref(v) };
        let mut buf = match std::mem::take(self) {
            // (A huge buffer is not kept for small values.)
            Value::Text(t) | Value::Blob(t) if t.capacity() <= 4096 || t.capacity() <= 4 * b.len() => t,
            _ => Vec::new(),
        };
        buf.clear();
        buf.extend_from_slice(b);
        *self = if matches!(v, ValueRef::Text(_)) { Value::Text(buf) } else { Value::Blob(buf) };
    }

    /// Borrow.
    #[inline]
    pub fn as_ref(&self) -> ValueRef<'_> {
        match self {
            Value::Null | Value::Pointer(_) => ValueRef::Null,
            Value::Integer(i) => ValueRef::Integer(*i),
            Value::Real(r) => ValueRef::Real(*r),
            Value::Text(t) => ValueRef::Text(t),
            Value::Blob(b) => ValueRef::Blob(b),
            Value::ZeroBlob(n) => ValueRef::Blob(crate::io::zeros::zeros(*n).unwrap_or_default()),
        }
    }

    /// A blob of `n` zero bytes: a [`Value::ZeroBlob`] (nothing stored)
    /// when the zero region can lend that many, else the bytes.
    pub fn zero_blob(n: usize) -> Value {
        match crate::io::zeros::zeros(n) {
            Some(_) => Value::ZeroBlob(n),
            None => Value::Blob(vec![0; n]),
        }
    }

    /// Turn a [`Value::ZeroBlob`] into the blob of its bytes (the value a
    /// function that changes bytes needs); other values are unchanged.
    pub fn materialize(&mut self) {
        if let Value::ZeroBlob(n) = *self {
            *self = Value::Blob(vec![0; n]);
        }
    }

    /// The size in bytes of a text or blob value, zero-blobs included,
    /// without reading them (0 for other classes).
    pub fn byte_len(&self) -> usize {
        match self {
            Value::Text(b) | Value::Blob(b) => b.len(),
            Value::ZeroBlob(n) => *n,
            _ => 0,
        }
    }

    /// `SQLITE_LIMIT_LENGTH` applied to a value an instruction produced: a
    /// text or blob longer than `max_length` bytes is `SQLITE_TOOBIG`.
    // (Inline: after every `Column` and function result; the error is
    // built out of line.)
    #[inline(always)]
    pub fn check_length(&self, max_length: i64) -> crate::error::Result<()> {
        let len = match self {
            Value::Text(b) | Value::Blob(b) => b.len(),
            Value::ZeroBlob(n) => *n,
            _ => return Ok(()),
        };
        if len as i64 > max_length {
            return Err(too_big());
        }
        Ok(())
    }

    /// Text from a Rust string.
    pub fn text(s: impl Into<String>) -> Value {
        Value::Text(s.into().into_bytes())
    }

    /// Whether this is NULL.
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null | Value::Pointer(_))
    }
}

impl ValueRef<'_> {
    /// The value as `sqlite3_value_int64` gives it.
    pub fn to_i64(&self) -> i64 {
        numeric::value_to_i64(*self)
    }

    /// The value as `sqlite3_value_double` gives it.
    pub fn to_f64(&self) -> f64 {
        numeric::value_to_f64(*self)
    }

    /// The value as `sqlite3_value_text` gives it (`None` for NULL): numbers
    /// rendered as SQLite renders them, blobs as their bytes read as text
    /// of the database encoding.
    pub fn to_text(&self) -> Option<std::borrow::Cow<'_, [u8]>> {
        match *self {
            ValueRef::Null => None,
            ValueRef::Text(t) => Some(std::borrow::Cow::Borrowed(t)),
            ValueRef::Blob(t) => Some(encoding::db_bytes_to_text(t, encoding::current())),
            other => numeric::cast_to_text(other).map(std::borrow::Cow::Owned),
        }
    }

    /// The storage class.
    pub fn value_type(&self) -> ValueType {
        match self {
            ValueRef::Null => ValueType::Null,
            ValueRef::Integer(_) => ValueType::Integer,
            ValueRef::Real(_) => ValueType::Real,
            ValueRef::Text(_) => ValueType::Text,
            ValueRef::Blob(_) => ValueType::Blob,
        }
    }

    /// Copy into an owned value.
    pub fn to_owned(&self) -> Value {
        match *self {
            ValueRef::Null => Value::Null,
            ValueRef::Integer(i) => Value::Integer(i),
            ValueRef::Real(r) => Value::Real(r),
            ValueRef::Text(t) => Value::Text(t.to_vec()),
            ValueRef::Blob(b) => Value::Blob(b.to_vec()),
        }
    }
}

#[cfg(test)]
mod tests;

/// `SQLITE_TOOBIG`, out of the callers' inlined paths.
#[cold]
#[inline(never)]
fn too_big() -> crate::error::Error {
    crate::error::Error::too_big()
}
