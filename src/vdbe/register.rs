//! VM registers: a value plus its subtype (`sqlite3_value_subtype`) and
//! whether it is a bound parameter (`sqlite3_value_frombind`).
//!
//! Invariant: a subtype and the bound-parameter mark are only meaningful
//! while the value is unchanged; every plain store clears them. (Copies
//! of the whole register keep them, as SQLite's copies keep a `Mem`'s
//! flags, and so does an in-place type change: `CAST(?1 AS TEXT)` is
//! still from a binding to SQLite.)

use crate::value::{Value, ValueRef};

/// One register.
#[derive(Debug, Clone, Default)]
pub struct Register {
    /// The value.
    pub value: Value,
    /// Subtype attached by a function (0 for none).
    pub subtype: u32,
    /// Loaded from a bound parameter (`Variable`), SQLite's
    /// `MEM_FromBind`.
    pub from_bind: bool,
}

impl Register {
    /// Store a value, clearing the subtype.
    #[inline]
    pub fn set(&mut self, v: Value) {
        self.value = v;
        self.clear_marks();
    }

    /// Forget the subtype and the bound-parameter mark (the value was
    /// replaced in place).
    #[inline]
    pub fn clear_marks(&mut self) {
        self.subtype = 0;
        self.from_bind = false;
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
        self.clear_marks();
    }

    /// Store a copy of a borrowed value, clearing the subtype. Text and
    /// blobs reuse the register's buffer when it already holds one (a
    /// scan writes a column into the same register on every row).
    #[inline]
    pub fn set_ref(&mut self, v: ValueRef<'_>) {
        assign_ref(&mut self.value, v);
        self.clear_marks();
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
