//! # Values, records, affinity and collation
//!
//! Sits beside the layers: the VM computes with [`Value`]s, the B-tree
//! compares index keys with [`record`] and [`collation`], the SQL layer
//! applies [`affinity`]. Everything here follows `datatype3.txt` and the
//! record format of `fileformat2.txt` exactly.
//!
//! Text is kept as bytes: SQLite stores whatever bytes it is given, valid
//! UTF-8 or not, and gives them back unchanged.

pub mod varint;
pub mod record;
pub mod affinity;
pub mod collation;
pub mod compare;
pub mod numeric;
pub mod printf;
pub mod fpdecode;

/// The five storage classes.
#[derive(Debug, Clone, Default)]
pub enum Value {
    /// SQL NULL.
    #[default]
    Null,
    /// 64-bit signed integer.
    Integer(i64),
    /// IEEE 754 double.
    Real(f64),
    /// Text in the database encoding (UTF-8 here), not necessarily valid.
    Text(Vec<u8>),
    /// Bytes.
    Blob(Vec<u8>),
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

    /// Borrow.
    pub fn as_ref(&self) -> ValueRef<'_> {
        match self {
            Value::Null => ValueRef::Null,
            Value::Integer(i) => ValueRef::Integer(*i),
            Value::Real(r) => ValueRef::Real(*r),
            Value::Text(t) => ValueRef::Text(t),
            Value::Blob(b) => ValueRef::Blob(b),
        }
    }

    /// Text from a Rust string.
    pub fn text(s: impl Into<String>) -> Value {
        Value::Text(s.into().into_bytes())
    }

    /// Whether this is NULL.
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }
}

impl ValueRef<'_> {
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
