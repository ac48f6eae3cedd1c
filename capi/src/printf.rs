//! # SQLite's printf: `sqlite3_mprintf` family and `sqlite3_str`
//!
//! The C shim (`shim/printf.c`) pulls the variadic arguments with `va_arg`,
//! one per conversion, with the C type the conversion and its length
//! modifier imply, and passes them here as an array of [`PrintfArg`]. The
//! engine's printf (`ringlite::value::printf`, the same one behind the SQL
//! `printf()` function) renders SQLite's dialect from them through the
//! [`PrintfArgs`] trait. `%z` strings are freed after formatting.

use crate::consts::*;
use crate::handle::sqlite3;
use ringlite::value::printf::{self, IntSize, PrintfArgs};
use std::ffi::{c_char, c_int, c_void, CStr};

/// One argument as the shim pulled it.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct PrintfArg {
    /// 0 integer, 1 unsigned integer, 2 double, 3 string, 4 string to free
    /// (`%z`), 5 pointer.
    pub kind: c_int,
    /// Integer / unsigned / pointer value.
    pub i: i64,
    /// Double value.
    pub d: f64,
    /// String value (may be NULL).
    pub s: *const c_char,
}

/// The shim's argument array, read in order by the engine's formatter.
struct ShimArgs<'a> {
    args: &'a [PrintfArg],
    next: usize,
}

impl ShimArgs<'_> {
    fn take(&mut self) -> PrintfArg {
        let a = self.args.get(self.next).copied();
        self.next += 1;
        a.unwrap_or(PrintfArg { kind: 0, i: 0, d: 0.0, s: std::ptr::null() })
    }
}

impl PrintfArgs for ShimArgs<'_> {
    fn is_sql(&self) -> bool {
        false
    }
    // The shim already read each integer with its C size and widened it.
    fn int_arg(&mut self, _size: IntSize, _signed: bool) -> i64 {
        self.take().i
    }
    fn double_arg(&mut self) -> f64 {
        self.take().d
    }
    fn text_arg(&mut self) -> Option<std::borrow::Cow<'_, [u8]>> {
        let a = self.take();
        if a.s.is_null() {
            None
        } else {
            // (The caller's string outlives the formatting: borrowed.)
            Some(std::borrow::Cow::Borrowed(unsafe { CStr::from_ptr(a.s) }.to_bytes()))
        }
    }
    fn char_arg(&mut self) -> u32 {
        self.take().i as u32
    }
    fn store_count(&mut self, count: usize) {
        let p = self.take().i as usize as *mut c_int;
        if !p.is_null() {
            unsafe { *p = count.min(c_int::MAX as usize) as c_int };
        }
    }
}

/// Render `fmt` with the shim's `args`, then free the `%z` strings.
#[inline]
pub unsafe fn format(fmt: &[u8], args: &[PrintfArg]) -> Result<Vec<u8>, ringlite::Error> {
    // SAFETY: the caller guarantees: `args` come from the C shim's `va_arg` reads; each `%z` string is a
    // `sqlite3_malloc` block they own, freed here once.
    unsafe {
        let out = printf::format(fmt, &mut ShimArgs { args, next: 0 });
        for a in args {
            if a.kind == 4 && !a.s.is_null() {
                crate::memory::sqlite3_free(a.s as *mut c_void);
            }
        }
        out
    }
}

unsafe fn args<'a>(p: *const PrintfArg, n: c_int) -> &'a [PrintfArg] {
    // SAFETY: the caller guarantees: `p` is NULL or a live `PrintfArg` this library or SQLite's API contract
    // provides.
    unsafe {
        if p.is_null() || n <= 0 {
            &[]
        } else {
            std::slice::from_raw_parts(p, n as usize)
        }
    }
}

/// Called by the shim: the formatted string in a `sqlite3_malloc` block.
#[no_mangle]
pub unsafe extern "C" fn ringlite_capi_format(fmt: *const c_char, a: *const PrintfArg, n: c_int) -> *mut c_char {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `a` is NULL or a live `PrintfArg`
    // this library or SQLite's API contract provides; `fmt` is NULL or NUL-terminated (or readable for the
    // length given with it).
    unsafe {
        ffi_guard!(std::ptr::null_mut(), {
            if fmt.is_null() {
                return std::ptr::null_mut();
            }
            match format(CStr::from_ptr(fmt).to_bytes(), args(a, n)) {
                Ok(s) => crate::memory::malloc_cstr(&s),
                Err(_) => std::ptr::null_mut(),
            }
        })
    }
}

/// Called by the shim for `sqlite3_vsnprintf`: the formatted string
/// written into `buf` (`n` > 0 bytes), cut to `n - 1` bytes and ended by a
/// NUL; an empty string when formatting fails. No block is allocated for
/// the result (the common `sqlite3_snprintf` into a stack buffer).
#[no_mangle]
pub unsafe extern "C" fn ringlite_capi_format_into(fmt: *const c_char, a: *const PrintfArg, n_args: c_int, buf: *mut c_char, n: c_int) {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `a` is NULL or a live `PrintfArg`
    // this library or SQLite's API contract provides; `fmt`, `buf` are NULL or NUL-terminated (or readable
    // for the length given with them).
    unsafe {
        ffi_guard!((), {
            if buf.is_null() || n <= 0 {
                return;
            }
            let len = if fmt.is_null() {
                0
            } else {
                match format(CStr::from_ptr(fmt).to_bytes(), args(a, n_args)) {
                    Ok(s) => {
                        let len = s.len().min(n as usize - 1);
                        std::ptr::copy_nonoverlapping(s.as_ptr(), buf as *mut u8, len);
                        len
                    }
                    Err(_) => 0,
                }
            };
            *buf.add(len) = 0;
        })
    }
}

/// Called by the shim for `sqlite3_str_appendf`.
#[no_mangle]
pub unsafe extern "C" fn ringlite_capi_str_format(st: *mut sqlite3_str, fmt: *const c_char, a: *const PrintfArg, n: c_int) {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `st` is NULL or a live `sqlite3_str`
    // this library or SQLite's API contract provides; `a` is NULL or a live `PrintfArg` this library or
    // SQLite's API contract provides; `fmt` is NULL or NUL-terminated (or readable for the length given with
    // it).
    unsafe {
        ffi_guard!((), {
            let (Some(st), false) = (st.as_mut(), fmt.is_null()) else {
                return;
            };
            match format(CStr::from_ptr(fmt).to_bytes(), args(a, n)) {
                Ok(s) => st.append(&s),
                Err(e) => st.errcode = e.primary(),
            }
        })
    }
}

/// Called by the shim for `sqlite3_log`.
#[no_mangle]
pub unsafe extern "C" fn ringlite_capi_log(code: c_int, fmt: *const c_char, a: *const PrintfArg, n: c_int) {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `a` is NULL or a live `PrintfArg`
    // this library or SQLite's API contract provides; `fmt` is NULL or NUL-terminated (or readable for the
    // length given with it).
    unsafe {
        ffi_guard!((), {
            if fmt.is_null() || !crate::error::log_enabled() {
                return;
            }
            if let Ok(s) = format(CStr::from_ptr(fmt).to_bytes(), args(a, n)) {
                crate::error::log(code, &String::from_utf8_lossy(&s));
            }
        })
    }
}

/// The `sqlite3_str` dynamic string.
pub struct sqlite3_str {
    /// Content so far (no NUL).
    pub buf: Vec<u8>,
    /// SQLITE_OK, SQLITE_NOMEM or SQLITE_TOOBIG.
    pub errcode: c_int,
}

const STR_LIMIT: usize = 1_000_000_000;

impl sqlite3_str {
    fn append(&mut self, s: &[u8]) {
        if self.errcode != SQLITE_OK {
            return;
        }
        if self.buf.len() + s.len() > STR_LIMIT {
            self.errcode = SQLITE_TOOBIG;
            self.buf.clear();
            return;
        }
        self.buf.extend_from_slice(s);
    }
}

/// Start a new, empty dynamic string builder. `db` may be NULL (ringlite
/// does not use it). Never returns NULL.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_str_new(db: *mut sqlite3) -> *mut sqlite3_str {
    ffi_guard!(std::ptr::null_mut(), {
        let _ = db;
        Box::into_raw(Box::new(sqlite3_str { buf: Vec::new(), errcode: SQLITE_OK }))
    })
}

/// Finish the builder `p` and return its text, to free with sqlite3_free
/// (NULL if empty or after an error). The builder is freed.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_str_finish(p: *mut sqlite3_str) -> *mut c_char {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `p` is NULL or a live `sqlite3_str`
    // this library or SQLite's API contract provides.
    unsafe {
        ffi_guard!(std::ptr::null_mut(), {
            if p.is_null() {
                return std::ptr::null_mut();
            }
            let s = Box::from_raw(p);
            if s.buf.is_empty() || s.errcode != SQLITE_OK {
                std::ptr::null_mut()
            } else {
                crate::memory::malloc_cstr(&s.buf)
            }
        })
    }
}

/// Free the builder `p` and its text.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_str_free(p: *mut sqlite3_str) {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `p` is NULL or a live `sqlite3_str`
    // this library or SQLite's API contract provides.
    unsafe {
        ffi_guard!((), {
            if !p.is_null() {
                drop(Box::from_raw(p));
            }
        })
    }
}

/// Append the `N` bytes at `zIn` to the builder `p`.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_str_append(p: *mut sqlite3_str, zIn: *const c_char, N: c_int) {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `p` is NULL or a live `sqlite3_str`
    // this library or SQLite's API contract provides; `zIn` is NULL or NUL-terminated (or readable for the
    // length given with it).
    unsafe {
        ffi_guard!((), {
            if let (Some(s), false) = (p.as_mut(), zIn.is_null() || N <= 0) {
                s.append(std::slice::from_raw_parts(zIn as *const u8, N as usize));
            }
        })
    }
}

/// Append the NUL-terminated string `zIn` to the builder `p`.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_str_appendall(p: *mut sqlite3_str, zIn: *const c_char) {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `p` is NULL or a live `sqlite3_str`
    // this library or SQLite's API contract provides; `zIn` is NULL or NUL-terminated (or readable for the
    // length given with it).
    unsafe {
        ffi_guard!((), {
            if let (Some(s), false) = (p.as_mut(), zIn.is_null()) {
                s.append(CStr::from_ptr(zIn).to_bytes());
            }
        })
    }
}

/// Append the character `C` `N` times to the builder `p`.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_str_appendchar(p: *mut sqlite3_str, N: c_int, C: c_char) {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `p` is NULL or a live `sqlite3_str`
    // this library or SQLite's API contract provides.
    unsafe {
        ffi_guard!((), {
            if let Some(s) = p.as_mut() {
                if N > 0 {
                    s.append(&vec![C as u8; N as usize]);
                }
            }
        })
    }
}

/// Empty the builder `p` (its error state stays).
#[no_mangle]
pub unsafe extern "C" fn sqlite3_str_reset(p: *mut sqlite3_str) {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `p` is NULL or a live `sqlite3_str`
    // this library or SQLite's API contract provides.
    unsafe {
        ffi_guard!((), {
            if let Some(s) = p.as_mut() {
                s.buf.clear();
                s.errcode = SQLITE_OK;
            }
        })
    }
}

/// Cut the builder's text to its first `N` bytes (no effect if it is shorter).
#[no_mangle]
pub unsafe extern "C" fn sqlite3_str_truncate(p: *mut sqlite3_str, N: c_int) {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `p` is NULL or a live `sqlite3_str`
    // this library or SQLite's API contract provides.
    unsafe {
        ffi_guard!((), {
            if let Some(s) = p.as_mut() {
                if s.errcode == SQLITE_OK && N >= 0 {
                    s.buf.truncate(N as usize);
                }
            }
        })
    }
}

/// The builder's error: SQLITE_OK, SQLITE_NOMEM or SQLITE_TOOBIG.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_str_errcode(p: *mut sqlite3_str) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `p` is NULL or a live `sqlite3_str`
    // this library or SQLite's API contract provides.
    unsafe { ffi_guard!(SQLITE_NOMEM, { p.as_ref().map_or(SQLITE_NOMEM, |s| s.errcode) }) }
}

/// The length in bytes of the builder's text so far.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_str_length(p: *mut sqlite3_str) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `p` is NULL or a live `sqlite3_str`
    // this library or SQLite's API contract provides.
    unsafe { ffi_guard!(0, { p.as_ref().map_or(0, |s| s.buf.len() as c_int) }) }
}

/// The builder's text so far, NUL-terminated, owned by the builder (valid
/// until it changes).
#[no_mangle]
pub unsafe extern "C" fn sqlite3_str_value(p: *mut sqlite3_str) -> *mut c_char {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `p` is NULL or a live `sqlite3_str`
    // this library or SQLite's API contract provides.
    unsafe {
        ffi_guard!(std::ptr::null_mut(), {
            let Some(s) = p.as_mut() else {
                return std::ptr::null_mut();
            };
            if s.errcode != SQLITE_OK || s.buf.is_empty() {
                return std::ptr::null_mut();
            }
            // Keep a NUL just past the content: the buffer's spare capacity
            // holds it until the next append.
            s.buf.push(0);
            s.buf.pop();
            s.buf.as_mut_ptr() as *mut c_char
        })
    }
}
