//! # Arrays handed to application callbacks
//!
//! SQLite passes a callback's argument array (`argv` of an SQL function,
//! of `xFilter`, of an FTS5 auxiliary function or tokenizer constructor;
//! `aConstraint` and friends of `xBestIndex`; an R-Tree geometry's
//! parameters) as a pointer into memory it allocated, also when the count
//! is 0: the context's inline `argv[]`, the VM's `apArg`, the index-info
//! allocation. Bindings rely on that: cgo code in mattn/go-sqlite3 turns
//! `argv` into a Go array pointer and slices it, which loads through the
//! pointer, so the dangling (but non-null) address of an empty `Vec`
//! (`0x8`) faults the whole program. Every such array goes through
//! [`callback_array`].
//!
//! Invariant: the pointer [`callback_array`] returns addresses an
//! allocation of at least one element, whatever the vector's length
//! (checked: callback_array_allocated).

/// The address of `v`'s elements for a C callback that receives
/// `(count, array)`: backed by an allocation even when `v` is empty (room
/// for one element is reserved then, left uninitialized, never read by a
/// callback that keeps to the count).
pub(crate) fn callback_array<T>(v: &mut Vec<T>) -> *mut T {
    if v.capacity() == 0 {
        v.reserve(1);
    }
    // invariant: callback_array_allocated
    debug_assert!(v.capacity() > 0);
    v.as_mut_ptr()
}
