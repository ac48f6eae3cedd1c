//! # An IN list handed to a virtual table all at once (`sqlite3_vtab_in`)
//!
//! When a module takes an `x IN (...)` constraint whole (c3ref/vtab_in),
//! its xFilter argument is a pointer value ([`crate::value::pointer`])
//! whose payload is an [`InList`]; `sqlite3_vtab_in_first/next` walk it.
//! To SQL the argument is NULL.
//!
//! Invariant: `values` holds the right-hand side once each (NULL too),
//! in BINARY order, as SQLite's ephemeral index of the list gives them
//! (checked: in_list_ordered).

use crate::value::compare::compare_values;
use crate::value::Value;

/// The values of an IN list.
#[derive(Debug)]
pub struct InList {
    /// The distinct values, in order.
    pub values: Vec<Value>,
}

impl InList {
    /// The list of `values` (duplicates dropped, sorted).
    pub fn new(values: impl IntoIterator<Item = Value>) -> InList {
        let mut values: Vec<Value> = values.into_iter().collect();
        crate::util::cold_sort::sort_by(&mut values, |a, b| compare_values(a.as_ref(), b.as_ref(), None));
        values.dedup_by(|a, b| compare_values(a.as_ref(), b.as_ref(), None).is_eq());
        // invariant: in_list_ordered
        debug_assert!(values.windows(2).all(|w| compare_values(w[0].as_ref(), w[1].as_ref(), None).is_lt()));
        InList { values }
    }
}
