//! VM registers: a value plus its subtype (`sqlite3_value_subtype`).
//!
//! Invariant: a subtype is only meaningful while the value is unchanged;
//! every plain store clears it.

use crate::value::{Value, ValueRef};

/// One register.
#[derive(Debug, Clone, Default)]
pub struct Register {
    /// The value.
    pub value: Value,
    /// Subtype attached by a function (0 for none).
    pub subtype: u32,
}

impl Register {
    /// Store a value, clearing the subtype.
    #[inline]
    pub fn set(&mut self, v: Value) {
        self.value = v;
        self.subtype = 0;
    }

    /// Store an integer, clearing the subtype. A register that holds an
    /// integer already (a counter, the rowid column of a scan) has only
    /// its number written: no drop of the old value, no whole-value copy.
    #[inline]
    pub fn set_int(&mut self, i: i64) {
        match &mut self.value {
            Value::Integer(v) => *v = i,
            other => *other = Value::Integer(i),
        }
        self.subtype = 0;
    }

    /// Store a copy of a borrowed value, clearing the subtype. Text and
    /// blobs reuse the register's buffer when it already holds one (a
    /// scan writes a column into the same register on every row).
    #[inline]
    pub fn set_ref(&mut self, v: ValueRef<'_>) {
        assign_ref(&mut self.value, v);
        self.subtype = 0;
    }
}

/// `*dst = v.to_owned()`, reusing `dst`'s text or blob buffer if it has one.
/// (Inline: a column read stores through here once per row, and numbers,
/// the common case, are a plain store.)
#[inline]
pub fn assign_ref(dst: &mut Value, v: ValueRef<'_>) {
    dst.assign_ref(v)
}

/// `*dst = src.clone()`, reusing `dst`'s text or blob buffer if it has one.
pub fn assign(dst: &mut Value, src: &Value) {
    assign_ref(dst, src.as_ref());
}
