//! # SQLite's printf: `sqlite3_mprintf` family and `sqlite3_str`
//!
//! The C shim (`shim/printf.c`) pulls the variadic arguments with `va_arg`,
//! one per conversion, and passes them here as an array of [`PrintfArg`];
//! [`format`] renders SQLite's dialect: the C conversions plus `%q`, `%Q`,
//! `%w` (SQL quoting), `%z` (a string freed after use), and the `!` flag
//! (SQLite's alternate forms, e.g. `%!.15g`) and `,` flag (thousands).
//!
//! The value module of the engine is getting its own printf engine (for the
//! SQL `printf()` function); once it lands, [`format`] should delegate to it.

use crate::consts::*;
use crate::convert::{format_e, format_f, format_g};
use crate::types::sqlite3;
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

/// Render `fmt` with `args` (in order of use).
pub unsafe fn format(fmt: &[u8], args: &[PrintfArg]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut next = 0usize;
    let mut take = || {
        let a = args.get(next).copied();
        next += 1;
        a.unwrap_or(PrintfArg { kind: 0, i: 0, d: 0.0, s: std::ptr::null() })
    };
    let mut i = 0;
    while i < fmt.len() {
        let c = fmt[i];
        if c != b'%' {
            out.push(c);
            i += 1;
            continue;
        }
        i += 1;
        let (mut left, mut plus, mut space, mut alt, mut zero, mut bang, mut comma) = (false, false, false, false, false, false, false);
        while i < fmt.len() {
            match fmt[i] {
                b'-' => left = true,
                b'+' => plus = true,
                b' ' => space = true,
                b'#' => alt = true,
                b'0' => zero = true,
                b'!' => bang = true,
                b',' => comma = true,
                _ => break,
            }
            i += 1;
        }
        let mut width: usize = 0;
        if fmt.get(i) == Some(&b'*') {
            let w = take().i as i32;
            if w < 0 {
                left = true;
            }
            width = w.unsigned_abs() as usize;
            i += 1;
        } else {
            while let Some(d) = fmt.get(i).filter(|d| d.is_ascii_digit()) {
                width = width * 10 + (d - b'0') as usize;
                i += 1;
            }
        }
        let mut prec: Option<usize> = None;
        if fmt.get(i) == Some(&b'.') {
            i += 1;
            if fmt.get(i) == Some(&b'*') {
                let p = take().i as i32;
                prec = if p < 0 { None } else { Some(p as usize) };
                i += 1;
            } else {
                let mut p = 0;
                while let Some(d) = fmt.get(i).filter(|d| d.is_ascii_digit()) {
                    p = p * 10 + (d - b'0') as usize;
                    i += 1;
                }
                prec = Some(p);
            }
        }
        while matches!(fmt.get(i), Some(b'l') | Some(b'h') | Some(b'j') | Some(b't')) {
            i += 1;
        }
        let Some(&conv) = fmt.get(i) else { break };
        i += 1;
        let mut body: Vec<u8>;
        let mut numeric = false;
        match conv {
            b'%' => {
                out.push(b'%');
                continue;
            }
            b'd' | b'i' => {
                let v = take().i;
                let mut digits = v.unsigned_abs().to_string();
                if let Some(p) = prec {
                    while digits.len() < p {
                        digits.insert(0, '0');
                    }
                }
                if comma {
                    digits = group(&digits);
                }
                let sign = if v < 0 { "-" } else if plus { "+" } else if space { " " } else { "" };
                body = format!("{sign}{digits}").into_bytes();
                numeric = true;
            }
            b'u' | b'x' | b'X' | b'o' | b'p' => {
                let v = take().i as u64;
                let mut digits = match conv {
                    b'u' => v.to_string(),
                    b'x' | b'p' => format!("{v:x}"),
                    b'X' => format!("{v:X}"),
                    _ => format!("{v:o}"),
                };
                if let Some(p) = prec {
                    while digits.len() < p {
                        digits.insert(0, '0');
                    }
                }
                if comma && conv == b'u' {
                    digits = group(&digits);
                }
                let prefix = match (alt && v != 0, conv) {
                    (true, b'x') => "0x",
                    (true, b'X') => "0X",
                    (true, b'o') => "0",
                    _ => "",
                };
                body = format!("{prefix}{digits}").into_bytes();
                numeric = true;
            }
            b'c' => {
                let ch = take().i as u32;
                let s = char::from_u32(ch).map(|c| c.to_string()).unwrap_or_default();
                body = s.repeat(prec.unwrap_or(1).max(1)).into_bytes();
            }
            b'f' | b'e' | b'E' | b'g' | b'G' => {
                let d = take().d;
                let p = prec.unwrap_or(6);
                let mut s = if d.is_nan() {
                    "NaN".to_string()
                } else if d.is_infinite() {
                    if d > 0.0 { "Inf".to_string() } else { "-Inf".to_string() }
                } else {
                    let mx = if bang { 26 } else { 16 };
                    let neg = if d.is_sign_negative() && d != 0.0 { "-" } else { "" };
                    match conv {
                        b'f' => format!("{neg}{}", format_f(d, p, mx)),
                        b'e' | b'E' => format!("{neg}{}", format_e(d, p, mx, false)),
                        _ => format_g(d, if p == 0 { 1 } else { p }, alt, mx),
                    }
                };
                if bang && d.is_finite() {
                    // The `!` flag drops trailing zeros of the fraction but
                    // keeps one digit after the point.
                    let epos = s.find(['e', 'E']).unwrap_or(s.len());
                    let (m, x) = s.split_at(epos);
                    if m.contains('.') {
                        let t = m.trim_end_matches('0');
                        let t = if t.ends_with('.') { format!("{t}0") } else { t.to_string() };
                        s = format!("{t}{x}");
                    }
                }
                if bang && conv != b'f' && !s.contains(['.', 'N', 'I']) {
                    match s.find('e') {
                        Some(pos) => s.insert_str(pos, ".0"),
                        None => s.push_str(".0"),
                    }
                }
                if conv == b'E' || conv == b'G' {
                    s = s.to_uppercase().replace("INF", "Inf").replace("NAN", "NaN");
                }
                if d >= 0.0 && !s.starts_with('-') {
                    if plus {
                        s.insert(0, '+');
                    } else if space {
                        s.insert(0, ' ');
                    }
                }
                body = s.into_bytes();
                numeric = d.is_finite();
            }
            b's' | b'z' => {
                let a = take();
                let mut s = if a.s.is_null() { Vec::new() } else { CStr::from_ptr(a.s).to_bytes().to_vec() };
                if let Some(p) = prec {
                    s.truncate(if bang { char_prefix(&s, p) } else { p });
                }
                body = s;
            }
            b'q' | b'Q' | b'w' => {
                let a = take();
                let quote = if conv == b'w' { b'"' } else { b'\'' };
                if a.s.is_null() {
                    body = if conv == b'Q' { b"NULL".to_vec() } else { b"(NULL)".to_vec() };
                } else {
                    let mut s = CStr::from_ptr(a.s).to_bytes().to_vec();
                    if let Some(p) = prec {
                        s.truncate(if bang { char_prefix(&s, p) } else { p });
                    }
                    body = Vec::with_capacity(s.len() + 2);
                    if conv == b'Q' {
                        body.push(quote);
                    }
                    for b in s {
                        body.push(b);
                        if b == quote {
                            body.push(quote);
                        }
                    }
                    if conv == b'Q' {
                        body.push(quote);
                    }
                }
            }
            b'n' => {
                take();
                continue;
            }
            other => {
                // Unknown conversion: SQLite stops formatting here.
                let _ = other;
                break;
            }
        }
        if body.len() < width {
            let pad = width - body.len();
            if left {
                body.extend(std::iter::repeat_n(b' ', pad));
            } else if zero && numeric {
                let at = body.iter().position(|c| c.is_ascii_digit()).unwrap_or(0);
                body.splice(at..at, std::iter::repeat_n(b'0', pad));
            } else {
                body.splice(0..0, std::iter::repeat_n(b' ', pad));
            }
        }
        out.extend_from_slice(&body);
    }
    for a in args {
        if a.kind == 4 && !a.s.is_null() {
            crate::memory::sqlite3_free(a.s as *mut c_void);
        }
    }
    out
}

fn group(digits: &str) -> String {
    let b = digits.as_bytes();
    let mut out = String::new();
    for (k, c) in b.iter().enumerate() {
        if k > 0 && (b.len() - k) % 3 == 0 {
            out.push(',');
        }
        out.push(*c as char);
    }
    out
}

/// Byte length of the first `n` UTF-8 characters of `s`.
fn char_prefix(s: &[u8], n: usize) -> usize {
    let mut count = 0;
    for (i, &b) in s.iter().enumerate() {
        if b & 0xc0 != 0x80 {
            if count == n {
                return i;
            }
            count += 1;
        }
    }
    s.len()
}

unsafe fn args<'a>(p: *const PrintfArg, n: c_int) -> &'a [PrintfArg] {
    if p.is_null() || n <= 0 {
        &[]
    } else {
        std::slice::from_raw_parts(p, n as usize)
    }
}

/// Called by the shim: the formatted string in a `sqlite3_malloc` block.
#[no_mangle]
pub unsafe extern "C" fn ringlite_capi_format(fmt: *const c_char, a: *const PrintfArg, n: c_int) -> *mut c_char {
    ffi_guard!(std::ptr::null_mut(), {
        if fmt.is_null() {
            return std::ptr::null_mut();
        }
        let s = format(CStr::from_ptr(fmt).to_bytes(), args(a, n));
        crate::memory::malloc_cstr(&s)
    })
}

/// Called by the shim for `sqlite3_str_appendf`.
#[no_mangle]
pub unsafe extern "C" fn ringlite_capi_str_format(st: *mut sqlite3_str, fmt: *const c_char, a: *const PrintfArg, n: c_int) {
    ffi_guard!((), {
        let (Some(st), false) = (st.as_mut(), fmt.is_null()) else { return };
        let s = format(CStr::from_ptr(fmt).to_bytes(), args(a, n));
        st.append(&s);
    })
}

/// Called by the shim for `sqlite3_log`.
#[no_mangle]
pub unsafe extern "C" fn ringlite_capi_log(code: c_int, fmt: *const c_char, a: *const PrintfArg, n: c_int) {
    ffi_guard!((), {
        if fmt.is_null() || !crate::config::log_enabled() {
            return;
        }
        let s = format(CStr::from_ptr(fmt).to_bytes(), args(a, n));
        crate::config::log(code, &String::from_utf8_lossy(&s));
    })
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

#[no_mangle]
pub unsafe extern "C" fn sqlite3_str_new(arg0: *mut sqlite3) -> *mut sqlite3_str {
    let _ = arg0;
    Box::into_raw(Box::new(sqlite3_str { buf: Vec::new(), errcode: SQLITE_OK }))
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_str_finish(arg0: *mut sqlite3_str) -> *mut c_char {
    ffi_guard!(std::ptr::null_mut(), {
        if arg0.is_null() {
            return std::ptr::null_mut();
        }
        let s = Box::from_raw(arg0);
        if s.buf.is_empty() || s.errcode != SQLITE_OK {
            std::ptr::null_mut()
        } else {
            crate::memory::malloc_cstr(&s.buf)
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_str_free(arg0: *mut sqlite3_str) {
    if !arg0.is_null() {
        drop(Box::from_raw(arg0));
    }
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_str_append(arg0: *mut sqlite3_str, zIn: *const c_char, N: c_int) {
    ffi_guard!((), {
        if let (Some(s), false) = (arg0.as_mut(), zIn.is_null() || N <= 0) {
            s.append(std::slice::from_raw_parts(zIn as *const u8, N as usize));
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_str_appendall(arg0: *mut sqlite3_str, zIn: *const c_char) {
    ffi_guard!((), {
        if let (Some(s), false) = (arg0.as_mut(), zIn.is_null()) {
            s.append(CStr::from_ptr(zIn).to_bytes());
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_str_appendchar(arg0: *mut sqlite3_str, N: c_int, C: c_char) {
    ffi_guard!((), {
        if let Some(s) = arg0.as_mut() {
            if N > 0 {
                s.append(&vec![C as u8; N as usize]);
            }
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_str_reset(arg0: *mut sqlite3_str) {
    if let Some(s) = arg0.as_mut() {
        s.buf.clear();
        s.errcode = SQLITE_OK;
    }
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_str_truncate(arg0: *mut sqlite3_str, N: c_int) {
    if let Some(s) = arg0.as_mut() {
        if s.errcode == SQLITE_OK && N >= 0 {
            s.buf.truncate(N as usize);
        }
    }
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_str_errcode(arg0: *mut sqlite3_str) -> c_int {
    arg0.as_ref().map_or(SQLITE_NOMEM, |s| s.errcode)
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_str_length(arg0: *mut sqlite3_str) -> c_int {
    arg0.as_ref().map_or(0, |s| s.buf.len() as c_int)
}

#[no_mangle]
pub unsafe extern "C" fn sqlite3_str_value(arg0: *mut sqlite3_str) -> *mut c_char {
    ffi_guard!(std::ptr::null_mut(), {
        let Some(s) = arg0.as_mut() else { return std::ptr::null_mut() };
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
