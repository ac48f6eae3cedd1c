//! # The C side of pointer values
//!
//! `sqlite3_bind_pointer` / `sqlite3_result_pointer` put a [`CPointer`]
//! into the engine's opaque [`PointerValue`]; `sqlite3_value_pointer`
//! reads it back when the type names are equal (`strcmp`, as SQLite).
//! The engine carries the payload by reference count wherever SQLite's
//! registers carry the pointer, and drops it where SQLite makes it a plain
//! NULL; the application's destructor runs once, when the last copy goes.

use crate::types::sqlite3_destructor_type;
use ringlite::value::pointer::PointerValue;
use ringlite::value::Value;
use std::ffi::{c_char, c_void, CStr};

/// An application's pointer, its type name and its destructor.
pub struct CPointer {
    ptr: *mut c_void,
    type_name: Vec<u8>,
    destroy: sqlite3_destructor_type,
}

// The pointer is only handed back to the application, on the connection
// that made it, under its lock; the engine never dereferences it.
unsafe impl Send for CPointer {}
unsafe impl Sync for CPointer {}

impl Drop for CPointer {
    fn drop(&mut self) {
        unsafe { crate::memory::release(self.destroy, self.ptr) };
    }
}

/// The pointer value for `ptr` of type `type_name` (NULL type: the empty
/// name, which SQLite also uses), released with `destroy` at the end.
pub unsafe fn pointer_value(ptr: *mut c_void, type_name: *const c_char, destroy: sqlite3_destructor_type) -> Value {
    // SAFETY: the caller guarantees: `type_name` is NULL or NUL-terminated (or readable for the length given
    // with it); `ptr` is NULL or valid for what the API does with it (read for the length given, or handed
    // back to callbacks untouched); `destroy`, when set, is safe to call with the arguments the API documents
    // until unregistered.
    unsafe {
        let type_name = if type_name.is_null() { Vec::new() } else { CStr::from_ptr(type_name).to_bytes().to_vec() };
        Value::Pointer(PointerValue::new(CPointer { ptr, type_name, destroy }))
    }
}

/// The pointer `v` carries under the type name `type_name`, or NULL.
pub unsafe fn pointer_of(v: &Value, type_name: *const c_char) -> *mut c_void {
    // SAFETY: the caller guarantees: `type_name` is NULL or NUL-terminated (or readable for the length given
    // with it).
    unsafe {
        let Value::Pointer(p) = v else { return std::ptr::null_mut() };
        match p.downcast_ref::<CPointer>() {
            Some(c) if !type_name.is_null() && CStr::from_ptr(type_name).to_bytes() == c.type_name.as_slice() => c.ptr,
            _ => std::ptr::null_mut(),
        }
    }
}
