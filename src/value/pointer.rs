//! # Pointer values (`sqlite3_bind_pointer` / `sqlite3_result_pointer`)
//!
//! A pointer value is NULL to SQL (`typeof` says 'null', `IS NULL` holds,
//! it stores as NULL) that also carries an opaque payload for the host
//! application: what `bindptr.txt` describes. The engine knows nothing of
//! what the payload is (the C layer puts its pointer, type name and
//! destructor there); it only carries it, by reference count, wherever a
//! register is copied, and drops it where SQLite turns the value into a
//! plain NULL (a record, a sorter, a table).
//!
//! The payload lives in an `Arc`, so its own `Drop` runs exactly once,
//! when the last copy of the value is dropped.

use std::any::Any;
use std::sync::Arc;

/// The opaque payload of a pointer value, shared by all its copies.
#[derive(Clone)]
pub struct PointerValue(Arc<dyn Any + Send + Sync>);

impl PointerValue {
    /// Wrap a payload.
    pub fn new(payload: impl Any + Send + Sync) -> PointerValue {
        PointerValue(Arc::new(payload))
    }

    /// The payload, if it is a `T`.
    pub fn downcast_ref<T: Any>(&self) -> Option<&T> {
        self.0.downcast_ref::<T>()
    }

    /// Another reference to the payload, kept out of line: pointer values
    /// are rare, and `Value::clone` stays small for the common classes.
    #[cold]
    #[inline(never)]
    pub fn clone_cold(&self) -> PointerValue {
        self.clone()
    }

    /// Whether two values carry the same payload (not merely equal ones).
    pub fn same(&self, other: &PointerValue) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl std::fmt::Debug for PointerValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PointerValue(..)")
    }
}
