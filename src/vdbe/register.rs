//! VM registers: a value plus its subtype (`sqlite3_value_subtype`).
//!
//! Invariant: a subtype is only meaningful while the value is unchanged;
//! every plain store clears it.

use crate::value::Value;

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
    pub fn set(&mut self, v: Value) {
        self.value = v;
        self.subtype = 0;
    }
}
