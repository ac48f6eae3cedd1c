//! Conversions only the C API needs: UTF-16 to and from UTF-8, C string
//! lengths, and the affinity of `sqlite3_value_numeric_type`. Number/text
//! conversions of the accessors are the engine's (`ringlite::value::numeric`)
//! so that C and SQL see the same values.

use ringlite::value::numeric::{text_to_f64, text_to_i64, IntParse};
use ringlite::value::Value;

/// What `sqlite3_value_numeric_type` does to a text: numeric affinity
/// without the conversion of integer-valued reals (`"3.0"` stays REAL).
/// `None` when the text is not a well-formed number.
pub fn text_numeric(t: &[u8]) -> Option<Value> {
    let (r, parse) = text_to_f64(t);
    if !parse.is_number() {
        return None;
    }
    if parse.looks_integer() {
        let (i, class) = text_to_i64(t);
        if class == IntParse::Exact {
            return Some(Value::Integer(i));
        }
    }
    Some(Value::Real(r))
}

/// UTF-16 (native order) units up to `n` bytes (or the first NUL unit when
/// `n < 0`), as UTF-8.
pub unsafe fn utf16_to_utf8(p: *const std::ffi::c_void, n: i64) -> Vec<u8> {
    // SAFETY: the caller guarantees: `p` is NULL or valid for what the API does with it (read for the length
    // given, or handed back to callbacks untouched).
    unsafe {
        if p.is_null() {
            return Vec::new();
        }
        let p = p as *const u16;
        let units: &[u16] = if n < 0 {
            let mut len = 0;
            while *p.add(len) != 0 {
                len += 1;
            }
            std::slice::from_raw_parts(p, len)
        } else {
            let mut len = n as usize / 2;
            if let Some(z) = std::slice::from_raw_parts(p, len).iter().position(|&u| u == 0) {
                len = z;
            }
            std::slice::from_raw_parts(p, len)
        };
        String::from_utf16_lossy(units).into_bytes()
    }
}

/// UTF-16 (native order) as UTF-8 for a value (`bind_text16`,
/// `result_text16`): with `n >= 0` exactly `n / 2` units, NUL characters
/// included, as SQLite keeps them in a value of given length; with `n < 0`
/// up to the first NUL unit.
pub unsafe fn utf16_value_to_utf8(p: *const std::ffi::c_void, n: i64) -> Vec<u8> {
    // SAFETY: the caller guarantees: `p` is NULL or valid for what the API does with it (read for the length
    // given, or handed back to callbacks untouched).
    unsafe {
        if p.is_null() || n < 0 {
            return utf16_to_utf8(p, n);
        }
        let units = std::slice::from_raw_parts(p as *const u16, n as usize / 2);
        String::from_utf16_lossy(units).into_bytes()
    }
}

/// UTF-8 bytes (possibly invalid) to NUL-terminated UTF-16.
pub fn utf8_to_utf16z(t: &[u8]) -> Vec<u16> {
    let mut v: Vec<u16> = String::from_utf8_lossy(t).encode_utf16().collect();
    v.push(0);
    v
}

/// Length of a NUL-terminated C string, at most `max` bytes when `max >= 0`.
pub unsafe fn c_len(p: *const std::ffi::c_char, max: i64) -> usize {
    // SAFETY: the caller guarantees: `p` is NULL or NUL-terminated (or readable for the length given with
    // it).
    unsafe {
        let mut n = 0usize;
        while (max < 0 || (n as i64) < max) && *p.add(n) != 0 {
            n += 1;
        }
        n
    }
}
