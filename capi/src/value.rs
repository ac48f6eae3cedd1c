//! # `sqlite3_value`: protected values and the `value_*` accessors
//!
//! A `sqlite3_value` is an owned [`Value`] plus what the C API attaches to
//! it: subtype, whether it came from a binding, the "no change" marker of
//! virtual-table updates, and lazily made conversions. Conversions are cached
//! inside the value, so a pointer from `sqlite3_value_text` stays valid until
//! the value is freed (or, for column values, until the next step, when the
//! statement drops its row cache). Column accessors (`column.rs`) call these
//! same functions on the column's cached value: one set of conversion rules.

use crate::consts::*;
use crate::convert::{text_numeric, utf8_to_utf16z};
use ringlite::value::numeric::{format_real, value_to_f64, value_to_i64};
use ringlite::value::Value;
use std::cell::RefCell;
use std::ffi::{c_char, c_int, c_uchar, c_uint, c_void};

/// The `sqlite3_value` object.
#[derive(Default)]
pub struct sqlite3_value {
    /// The value.
    pub value: Value,
    /// `sqlite3_value_subtype`.
    pub subtype: u32,
    /// Whether it is a bound parameter (`sqlite3_value_frombind`).
    pub from_bind: bool,
    /// `sqlite3_value_nochange`.
    pub nochange: bool,
    /// NUL-terminated UTF-8 text of the value, once asked for.
    text: RefCell<Option<Vec<u8>>>,
    /// A BLOB read as text: SQLite then reports the value as TEXT.
    blob_read_as_text: std::cell::Cell<bool>,
    /// NUL-terminated UTF-16 text of the value, once asked for.
    text16: RefCell<Option<Vec<u16>>>,
    /// The same in the non-native byte order (`sqlite3_value_text16be`).
    text16_swapped: RefCell<Option<Vec<u16>>>,
    /// For an IN list taken all at once (`sqlite3_vtab_in_first/next`):
    /// the next value's index and the value last handed out.
    pub in_iter: RefCell<(usize, Option<Box<sqlite3_value>>)>,
}

impl sqlite3_value {
    /// Wrap a value.
    pub fn new(value: Value) -> sqlite3_value {
        sqlite3_value { value, ..Default::default() }
    }

    /// The value as text bytes (no NUL): numbers rendered as SQLite does.
    pub fn text_bytes(&self) -> Option<Vec<u8>> {
        match &self.value {
            Value::Null | Value::Pointer(_) => None,
            Value::Integer(i) => Some(i.to_string().into_bytes()),
            Value::Real(r) => Some(format_real(*r).into_bytes()),
            Value::Text(t) | Value::Blob(t) => Some(t.clone()),
            Value::ZeroBlob(n) => Some(vec![0; *n]),
        }
    }

    /// Make this value a copy of `src`, as a fresh `sqlite3_value::new`
    /// would be, keeping the text or blob buffer already allocated.
    pub fn refill(&mut self, src: &Value) {
        match (&mut self.value, src) {
            (Value::Text(d), Value::Text(s)) | (Value::Blob(d), Value::Blob(s)) => {
                d.clear();
                d.extend_from_slice(s);
            }
            (d, s) => *d = s.clone(),
        }
        self.subtype = 0;
        self.from_bind = false;
        self.nochange = false;
        *self.text.get_mut() = None;
        self.blob_read_as_text.set(false);
        *self.text16.get_mut() = None;
        *self.text16_swapped.get_mut() = None;
        *self.in_iter.get_mut() = (0, None);
    }

    /// `text_ptr` for a value the caller may change: TEXT gets its NUL
    /// written past its bytes, in its own buffer, instead of a copy.
    pub fn text_ptr_in_place(&mut self) -> *const c_uchar {
        if let Value::Text(t) = &mut self.value {
            t.reserve(1);
            t.spare_capacity_mut()[0].write(0);
            return t.as_ptr();
        }
        self.text_ptr()
    }

    /// Pointer to NUL-terminated UTF-8 text, NULL for SQL NULL.
    pub fn text_ptr(&self) -> *const c_uchar {
        if self.value.is_null() {
            return std::ptr::null();
        }
        if let Value::Blob(_) | Value::ZeroBlob(_) = self.value {
            self.blob_read_as_text.set(true);
        }
        let mut c = self.text.borrow_mut();
        if c.is_none() {
            let mut t = self.text_bytes().unwrap_or_default();
            t.push(0);
            *c = Some(t);
        }
        c.as_ref().map_or(std::ptr::null(), |v| v.as_ptr())
    }

    /// Pointer to NUL-terminated UTF-16 text, NULL for SQL NULL.
    pub fn text16_ptr(&self) -> *const c_void {
        if self.value.is_null() {
            return std::ptr::null();
        }
        if let Value::Blob(_) | Value::ZeroBlob(_) = self.value {
            self.blob_read_as_text.set(true);
        }
        let mut c = self.text16.borrow_mut();
        if c.is_none() {
            *c = Some(utf8_to_utf16z(&self.text_bytes().unwrap_or_default()));
        }
        c.as_ref().map_or(std::ptr::null(), |v| v.as_ptr() as *const c_void)
    }

    /// `sqlite3_value_blob`.
    pub fn blob_ptr(&self) -> *const c_void {
        match &self.value {
            Value::Null | Value::Pointer(_) => std::ptr::null(),
            Value::Blob(b) if b.is_empty() => std::ptr::null(),
            Value::Blob(b) => b.as_ptr() as *const c_void,
            // (A zero-blob's bytes are the engine's read-only zero region.)
            Value::ZeroBlob(0) => std::ptr::null(),
            v @ Value::ZeroBlob(_) => v.as_ref().to_text().map_or(std::ptr::null(), |b| b.as_ptr()) as *const c_void,
            _ => self.text_ptr() as *const c_void,
        }
    }

    /// `sqlite3_value_bytes`.
    pub fn bytes(&self) -> c_int {
        match &self.value {
            Value::Null | Value::Pointer(_) => 0,
            Value::Text(t) | Value::Blob(t) => t.len() as c_int,
            Value::ZeroBlob(n) => *n as c_int,
            _ => self.text_bytes().map_or(0, |t| t.len() as c_int),
        }
    }

    /// `sqlite3_value_bytes16`.
    pub fn bytes16(&self) -> c_int {
        match &self.value {
            Value::Null | Value::Pointer(_) => return 0,
            // SQLite counts a BLOB's bytes as they are, without converting.
            Value::Blob(b) => return b.len() as c_int,
            Value::ZeroBlob(n) => return *n as c_int,
            _ => {}
        }
        self.text16_ptr();
        self.text16.borrow().as_ref().map_or(0, |v| ((v.len() - 1) * 2) as c_int)
    }

    /// `sqlite3_value_int64`.
    pub fn int64(&self) -> i64 {
        value_to_i64(self.value.as_ref())
    }

    /// `sqlite3_value_double`.
    pub fn double(&self) -> f64 {
        value_to_f64(self.value.as_ref())
    }

    /// `sqlite3_value_type`: the storage class, except that a BLOB that
    /// was read as text reports TEXT from then on, as in SQLite (whose
    /// conversion marks the value as a string).
    pub fn type_code(&self) -> c_int {
        if self.blob_read_as_text.get() {
            return SQLITE_TEXT;
        }
        self.value.value_type() as c_int
    }

    /// A copy with the same content and attributes but fresh caches.
    pub fn duplicate(&self) -> sqlite3_value {
        sqlite3_value { value: self.value.clone(), subtype: self.subtype, from_bind: self.from_bind, nochange: self.nochange, ..Default::default() }
    }
}

unsafe fn val<'a>(v: *mut sqlite3_value) -> Option<&'a sqlite3_value> {
    // SAFETY: the caller guarantees: `v` is NULL or a value this library handed out, still alive.
    unsafe {
        if v.is_null() {
            None
        } else {
            Some(&*v)
        }
    }
}

/// The BLOB content of `pVal` (NULL when empty); valid until the value is
/// converted or freed.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_value_blob(pVal: *mut sqlite3_value) -> *const c_void {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pVal` is NULL or a value this
    // library handed out, still alive.
    unsafe { ffi_guard!(std::ptr::null(), { val(pVal).map_or(std::ptr::null(), |v| v.blob_ptr()) }) }
}

/// `pVal` converted to a double.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_value_double(pVal: *mut sqlite3_value) -> f64 {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pVal` is NULL or a value this
    // library handed out, still alive.
    unsafe { ffi_guard!(0.0, { val(pVal).map_or(0.0, |v| v.double()) }) }
}

/// `pVal` converted to a 32-bit integer.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_value_int(pVal: *mut sqlite3_value) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pVal` is NULL or a value this
    // library handed out, still alive.
    unsafe { ffi_guard!(0, { val(pVal).map_or(0, |v| v.int64() as c_int) }) }
}

/// `pVal` converted to a 64-bit integer.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_value_int64(pVal: *mut sqlite3_value) -> crate::types::sqlite3_int64 {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pVal` is NULL or a value this
    // library handed out, still alive.
    unsafe { ffi_guard!(0, { val(pVal).map_or(0, |v| v.int64()) }) }
}

/// The pointer `pVal` carries under the type name `zPType`, or NULL when it
/// carries none of that type (see `pointer.rs`).
#[no_mangle]
pub unsafe extern "C" fn sqlite3_value_pointer(pVal: *mut sqlite3_value, zPType: *const c_char) -> *mut c_void {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pVal` is NULL or a value this
    // library handed out, still alive; `zPType` is NULL or NUL-terminated (or readable for the length given
    // with it).
    unsafe {
        ffi_guard!(std::ptr::null_mut(), {
            let Some(v) = val(pVal) else {
                return std::ptr::null_mut();
            };
            crate::pointer::pointer_of(&v.value, zPType)
        })
    }
}

/// `pVal` as NUL-terminated UTF-8 text (NULL for an SQL NULL).
#[no_mangle]
pub unsafe extern "C" fn sqlite3_value_text(pVal: *mut sqlite3_value) -> *const c_uchar {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pVal` is NULL or a value this
    // library handed out, still alive.
    unsafe { ffi_guard!(std::ptr::null(), { val(pVal).map_or(std::ptr::null(), |v| v.text_ptr()) }) }
}

/// `pVal` as UTF-16 text in the machine's byte order.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_value_text16(pVal: *mut sqlite3_value) -> *const c_void {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pVal` is NULL or a value this
    // library handed out, still alive.
    unsafe { ffi_guard!(std::ptr::null(), { val(pVal).map_or(std::ptr::null(), |v| v.text16_ptr()) }) }
}

/// `pVal` as UTF-16 little-endian text.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_value_text16le(pVal: *mut sqlite3_value) -> *const c_void {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pVal` is NULL or a value this
    // library handed out, still alive.
    unsafe { sqlite3_value_text16(pVal) }
}

/// `pVal` as UTF-16 big-endian text.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_value_text16be(pVal: *mut sqlite3_value) -> *const c_void {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pVal` is NULL or a value this
    // library handed out, still alive.
    unsafe {
        ffi_guard!(std::ptr::null(), {
            let Some(v) = val(pVal) else {
                return std::ptr::null();
            };
            let Some(t) = v.text_bytes() else {
                return std::ptr::null();
            };
            let mut cache = v.text16_swapped.borrow_mut();
            if cache.is_none() {
                *cache = Some(utf8_to_utf16z(&t).into_iter().map(u16::swap_bytes).collect());
            }
            cache.as_ref().map_or(std::ptr::null(), |b| b.as_ptr() as *const c_void)
        })
    }
}

/// The size in bytes of `pVal` as a BLOB or UTF-8 text.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_value_bytes(pVal: *mut sqlite3_value) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pVal` is NULL or a value this
    // library handed out, still alive.
    unsafe { ffi_guard!(0, { val(pVal).map_or(0, |v| v.bytes()) }) }
}

/// The size in bytes of `pVal` as UTF-16 text.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_value_bytes16(pVal: *mut sqlite3_value) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pVal` is NULL or a value this
    // library handed out, still alive.
    unsafe { ffi_guard!(0, { val(pVal).map_or(0, |v| v.bytes16()) }) }
}

/// The datatype code of `pVal`: SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT,
/// SQLITE_BLOB or SQLITE_NULL.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_value_type(pVal: *mut sqlite3_value) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pVal` is NULL or a value this
    // library handed out, still alive.
    unsafe { ffi_guard!(SQLITE_NULL, { val(pVal).map_or(SQLITE_NULL, |v| v.type_code()) }) }
}

/// The datatype of `pVal` after converting text that looks like a number to
/// that number.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_value_numeric_type(pVal: *mut sqlite3_value) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pVal` is NULL or a value this
    // library handed out, still alive.
    unsafe {
        ffi_guard!(SQLITE_NULL, {
            if pVal.is_null() {
                return SQLITE_NULL;
            }
            let v = &mut *pVal;
            if let Value::Text(t) = &v.value {
                if let Some(n) = text_numeric(t) {
                    v.value = n;
                }
                *v.text.borrow_mut() = None;
                *v.text16.borrow_mut() = None;
                *v.text16_swapped.borrow_mut() = None;
            }
            v.type_code()
        })
    }
}

/// Inside a virtual table's xUpdate: 1 if the column value `pVal` is unchanged
/// (from sqlite3_vtab_nochange), else 0.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_value_nochange(pVal: *mut sqlite3_value) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pVal` is NULL or a value this
    // library handed out, still alive.
    unsafe { ffi_guard!(0, { val(pVal).map_or(0, |v| v.nochange as c_int) }) }
}

/// 1 if `pVal` came from a bound parameter, else 0.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_value_frombind(pVal: *mut sqlite3_value) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pVal` is NULL or a value this
    // library handed out, still alive.
    unsafe { ffi_guard!(0, { val(pVal).map_or(0, |v| v.from_bind as c_int) }) }
}

/// The text encoding `pVal` is held in (SQLITE_UTF8, SQLITE_UTF16LE or
/// SQLITE_UTF16BE); for debugging and testing.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_value_encoding(pVal: *mut sqlite3_value) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pVal` is NULL or a value this
    // library handed out, still alive.
    unsafe {
        ffi_guard!(0, {
            match val(pVal).map(|v| &v.value) {
                Some(Value::Text(_)) => SQLITE_UTF8,
                _ => 0,
            }
        })
    }
}

/// The subtype of `pVal` (0 if none).
#[no_mangle]
pub unsafe extern "C" fn sqlite3_value_subtype(pVal: *mut sqlite3_value) -> c_uint {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pVal` is NULL or a value this
    // library handed out, still alive.
    unsafe {
        // A pointer value has subtype 'p', as SQLite marks it.
        ffi_guard!(0, { val(pVal).map_or(0, |v| if matches!(v.value, Value::Pointer(_)) { u32::from(b'p') } else { v.subtype }) })
    }
}

/// A protected copy of `pVal` that outlives it, to free with
/// sqlite3_value_free; NULL for a NULL argument or out of memory.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_value_dup(pVal: *const sqlite3_value) -> *mut sqlite3_value {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pVal` is NULL or a value this
    // library handed out, still alive.
    unsafe {
        ffi_guard!(std::ptr::null_mut(), {
            if pVal.is_null() {
                return std::ptr::null_mut();
            }
            let mut copy = (*pVal).duplicate();
            // A duplicate is no longer a pointer value (SQLite makes it NULL).
            if matches!(copy.value, Value::Pointer(_)) {
                copy.value = Value::Null;
            }
            Box::into_raw(Box::new(copy))
        })
    }
}

/// Free a value from sqlite3_value_dup (NULL is harmless).
#[no_mangle]
pub unsafe extern "C" fn sqlite3_value_free(pVal: *mut sqlite3_value) {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pVal` is NULL or a value this
    // library handed out, still alive.
    unsafe {
        ffi_guard!((), {
            if !pVal.is_null() {
                drop(Box::from_raw(pVal));
            }
        })
    }
}
