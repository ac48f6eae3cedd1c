//! SQLite's printf engine (`printf.txt`): one formatter behind the SQL
//! functions `printf()`/`format()` and the C API's `sqlite3_mprintf` family.
//!
//! The engine reads its arguments through [`PrintfArgs`], so the same code
//! serves SQL values ([`SqlArgs`]: every integer is 64-bit, `%c` takes the
//! first character of a text, `%n` consumes nothing) and C varargs (the
//! capi crate's implementation honours `l`/`ll` sizes, `%c` takes a code
//! point, `%n` stores the count).
//!
//! Conversions: `d i u x X o p r c s z q Q w j J e E f g G % n`; flags
//! `- + space 0 # , !`; width and precision, each possibly `*`. `%T`/`%S`
//! (internal to SQLite) and unknown conversions end the output there, as in
//! SQLite. Text arguments behave as C strings: a NUL byte ends them.
//!
//! Invariant: output never exceeds the given length limit; exceeding it is
//! `SQLITE_TOOBIG`, checked before any large padding is allocated
//! (checked: printf_within_limit).

use super::fpdecode::{format_generic_17, fp_decode, FpDecode};
use super::numeric::{format_real, value_to_f64, value_to_i64};
use super::{Value, ValueRef};
use crate::error::{Error, Result};
use std::borrow::Cow;

/// The C length modifier given for an integer conversion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntSize {
    /// No modifier: `int` / `unsigned int`.
    Int,
    /// `l`: `long`.
    Long,
    /// `ll`: `long long` (and pointers on 64-bit systems).
    LongLong,
}

/// The source of printf arguments.
pub trait PrintfArgs {
    /// True for SQL-function arguments (SQLite's `bArgList` mode).
    fn is_sql(&self) -> bool;
    /// The next integer argument. For C varargs, read an argument of `size`
    /// (signed or unsigned per `signed`) and widen it: sign-extend signed
    /// ones, zero-extend unsigned ones (the engine uses the bits as u64 for
    /// unsigned conversions). Missing SQL arguments are 0.
    fn int_arg(&mut self, size: IntSize, signed: bool) -> i64;
    /// The next floating-point argument (0.0 when missing).
    fn double_arg(&mut self) -> f64;
    /// The next string argument; `None` for a NULL pointer / SQL NULL or a
    /// missing argument.
    fn text_arg(&mut self) -> Option<Cow<'_, [u8]>>;
    /// `%c` with C varargs: the next `unsigned int` argument (a code point).
    /// Never called in SQL mode.
    fn char_arg(&mut self) -> u32 {
        self.int_arg(IntSize::Int, false) as u32
    }
    /// `%n` with C varargs: store the output length so far through the
    /// next argument (an `int*`). Never called in SQL mode.
    fn store_count(&mut self, count: usize) {
        let _ = count;
    }
}

/// Arguments of the SQL `printf()`/`format()` function.
pub struct SqlArgs<'a> {
    args: &'a [Value],
    used: usize,
}

impl<'a> SqlArgs<'a> {
    /// Arguments after the format string.
    pub fn new(args: &'a [Value]) -> Self {
        SqlArgs { args, used: 0 }
    }

    fn next(&mut self) -> Option<ValueRef<'a>> {
        let v = self.args.get(self.used)?;
        self.used += 1;
        Some(v.as_ref())
    }
}

impl PrintfArgs for SqlArgs<'_> {
    fn is_sql(&self) -> bool {
        true
    }
    fn int_arg(&mut self, _size: IntSize, _signed: bool) -> i64 {
        self.next().map_or(0, value_to_i64)
    }
    fn double_arg(&mut self) -> f64 {
        self.next().map_or(0.0, value_to_f64)
    }
    fn text_arg(&mut self) -> Option<Cow<'_, [u8]>> {
        match self.next()? {
            ValueRef::Null => None,
            ValueRef::Integer(i) => Some(Cow::Owned(i.to_string().into_bytes())),
            ValueRef::Real(r) => Some(Cow::Owned(format_real(r).into_bytes())),
            ValueRef::Text(t) | ValueRef::Blob(t) => Some(Cow::Borrowed(t)),
        }
    }
}

/// One argument for [`ListArgs`].
#[derive(Debug, Clone, Copy)]
pub enum Arg<'a> {
    /// For `%d %i %u %x %X %o %p %r %c` and `*` widths.
    Int(i64),
    /// For `%e %E %f %g %G`.
    Double(f64),
    /// For `%s %z %q %Q %w %j %J`; `None` is a NULL pointer.
    Text(Option<&'a [u8]>),
}

/// Arguments supplied from Rust with C semantics (`int` conversions
/// truncate to 32 bits unless `l`/`ll` is given; `%c` takes a code point).
/// For the engine's own formatting, e.g. error messages or `quote()`.
pub struct ListArgs<'a> {
    args: &'a [Arg<'a>],
    used: usize,
}

impl<'a> ListArgs<'a> {
    /// Arguments in order.
    pub fn new(args: &'a [Arg<'a>]) -> Self {
        ListArgs { args, used: 0 }
    }

    fn next(&mut self) -> Option<Arg<'a>> {
        let a = self.args.get(self.used).copied();
        self.used += 1;
        a
    }
}

impl PrintfArgs for ListArgs<'_> {
    fn is_sql(&self) -> bool {
        false
    }
    fn int_arg(&mut self, size: IntSize, signed: bool) -> i64 {
        let v = match self.next() {
            Some(Arg::Int(i)) => i,
            Some(Arg::Double(r)) => r as i64,
            _ => 0,
        };
        match (size, signed) {
            (IntSize::Int, true) => i64::from(v as i32),
            (IntSize::Int, false) => i64::from(v as u32),
            _ => v,
        }
    }
    fn double_arg(&mut self) -> f64 {
        match self.next() {
            Some(Arg::Double(r)) => r,
            Some(Arg::Int(i)) => i as f64,
            _ => 0.0,
        }
    }
    fn text_arg(&mut self) -> Option<Cow<'_, [u8]>> {
        match self.next()? {
            Arg::Text(t) => t.map(Cow::Borrowed),
            Arg::Int(i) => Some(Cow::Owned(i.to_string().into_bytes())),
            Arg::Double(r) => Some(Cow::Owned(format_real(r).into_bytes())),
        }
    }
    fn char_arg(&mut self) -> u32 {
        match self.next() {
            Some(Arg::Int(i)) => i as u32,
            _ => 0,
        }
    }
}

/// SQLite's default `SQLITE_MAX_LENGTH`.
pub const DEFAULT_MAX_LENGTH: usize = 1_000_000_000;

/// Formats `fmt` with arguments from `args` (output limit
/// [`DEFAULT_MAX_LENGTH`]).
pub fn format(fmt: &[u8], args: &mut dyn PrintfArgs) -> Result<Vec<u8>> {
    format_with_limit(fmt, args, DEFAULT_MAX_LENGTH)
}

/// `printf()` as the SQL function computes it: `args[0]` is the format; a
/// NULL format gives NULL.
pub fn sql_printf(args: &[Value], max_len: usize) -> Result<Value> {
    let fmt = match args.first().map(Value::as_ref) {
        None | Some(ValueRef::Null) => return Ok(Value::Null),
        Some(ValueRef::Integer(i)) => i.to_string().into_bytes(),
        Some(ValueRef::Real(r)) => format_real(r).into_bytes(),
        Some(ValueRef::Text(t)) | Some(ValueRef::Blob(t)) => t.to_vec(),
    };
    let out = format_with_limit(&fmt, &mut SqlArgs::new(&args[1..]), max_len)?;
    Ok(Value::Text(out))
}

/// The text up to its first NUL.
fn c_str(t: Cow<'_, [u8]>) -> Cow<'_, [u8]> {
    match t.iter().position(|&c| c == 0) {
        Some(p) => match t {
            Cow::Borrowed(b) => Cow::Borrowed(&b[..p]),
            Cow::Owned(mut v) => {
                v.truncate(p);
                Cow::Owned(v)
            }
        },
        None => t,
    }
}

const DIGITS_UPPER: &[u8; 16] = b"0123456789ABCDEF";
const DIGITS_LOWER: &[u8; 16] = b"0123456789abcdef";

/// One parsed `%...` directive.
#[derive(Debug, Default, Clone, Copy)]
struct Spec {
    left: bool,
    prefix: u8,
    alt: bool,
    alt2: bool,
    zero: bool,
    thousands: bool,
    long: u8,
    width: i64,
    precision: i64,
}

/// Formats with an explicit output limit.
pub fn format_with_limit(fmt: &[u8], args: &mut dyn PrintfArgs, max_len: usize) -> Result<Vec<u8>> {
    let fmt = match fmt.iter().position(|&c| c == 0) {
        Some(p) => &fmt[..p],
        None => fmt,
    };
    let limit = max_len as i64;
    // (Room for the usual result at once: grown from empty it was
    // reallocated several times per call.)
    let mut out: Vec<u8> = Vec::with_capacity(fmt.len() + 64);
    let at = |i: usize| -> u8 { fmt.get(i).copied().unwrap_or(0) };
    let mut i = 0;
    while i < fmt.len() {
        if fmt[i] != b'%' {
            let end = fmt[i..].iter().position(|&c| c == b'%').map_or(fmt.len(), |p| i + p);
            out.extend_from_slice(&fmt[i..end]);
            i = end;
            continue;
        }
        i += 1;
        let mut c = at(i);
        if c == 0 {
            out.push(b'%');
            break;
        }
        let mut sp = Spec { precision: -1, ..Spec::default() };
        // Flags, width, precision and length, as SQLite scans them.
        loop {
            let mut done = false;
            match c {
                b'-' => sp.left = true,
                b'+' => sp.prefix = b'+',
                b' ' => sp.prefix = b' ',
                b'#' => sp.alt = true,
                b'!' => sp.alt2 = true,
                b'0' => sp.zero = true,
                b',' => sp.thousands = true,
                b'l' => {
                    sp.long = 1;
                    i += 1;
                    c = at(i);
                    if c == b'l' {
                        i += 1;
                        c = at(i);
                        sp.long = 2;
                    }
                    done = true;
                }
                b'1'..=b'9' => {
                    let mut wx: u32 = u32::from(c - b'0');
                    i += 1;
                    c = at(i);
                    while c.is_ascii_digit() {
                        wx = wx.wrapping_mul(10).wrapping_add(u32::from(c - b'0'));
                        i += 1;
                        c = at(i);
                    }
                    sp.width = i64::from(wx & 0x7fff_ffff);
                    if c != b'.' && c != b'l' {
                        done = true;
                    } else {
                        i -= 1;
                    }
                }
                b'*' => {
                    let w = args.int_arg(IntSize::Int, true) as i32;
                    sp.width = i64::from(w);
                    if sp.width < 0 {
                        sp.left = true;
                        sp.width = if w >= -2147483647 { -sp.width } else { 0 };
                    }
                    let nc = at(i + 1);
                    if nc != b'.' && nc != b'l' {
                        i += 1;
                        c = at(i);
                        done = true;
                    }
                }
                b'.' => {
                    i += 1;
                    c = at(i);
                    if c == b'*' {
                        let p = args.int_arg(IntSize::Int, true) as i32;
                        sp.precision = i64::from(p);
                        if p < 0 {
                            sp.precision = if p >= -2147483647 { -i64::from(p) } else { -1 };
                        }
                        i += 1;
                        c = at(i);
                    } else {
                        let mut px: u32 = 0;
                        while c.is_ascii_digit() {
                            px = px.wrapping_mul(10).wrapping_add(u32::from(c - b'0'));
                            i += 1;
                            c = at(i);
                        }
                        sp.precision = i64::from(px & 0x7fff_ffff);
                    }
                    if c == b'l' {
                        i -= 1;
                    } else {
                        done = true;
                    }
                }
                _ => done = true,
            }
            if done {
                break;
            }
            i += 1;
            c = at(i);
            if c == 0 {
                break;
            }
        }
        // `i` is at the conversion character `c`.
        i += 1;
        if matches!(c, b'e' | b'E' | b'f' | b'g' | b'G') {
            // SQLite caps float precision (SQLITE_FP_PRECISION_LIMIT).
            sp.precision = sp.precision.min(100_000_000);
        }
        if sp.width > limit || sp.precision > limit {
            return Err(Error::too_big());
        }
        let keep_going = convert(c, &mut sp, args, &mut out)?;
        if out.len() > max_len {
            return Err(Error::too_big());
        }
        if !keep_going {
            break;
        }
    }
    // (Literal text after the last conversion counts too, as SQLite's
    // string accumulator counts every byte appended.)
    // invariant: printf_within_limit
    if out.len() > max_len {
        return Err(Error::too_big());
    }
    Ok(out)
}

/// Appends `body` padded to the spec's width with spaces (SQLite's common
/// tail for non-numeric conversions); width is in bytes here.
fn pad_spaces(out: &mut Vec<u8>, body: &[u8], width: i64, left: bool) {
    if width <= body.len() as i64 {
        out.extend_from_slice(body);
        return;
    }
    let pad = (width - body.len() as i64).max(0) as usize;
    if !left {
        out.resize(out.len() + pad, b' ');
    }
    out.extend_from_slice(body);
    if left {
        out.resize(out.len() + pad, b' ');
    }
}

/// Continuation bytes in `s`: what `!` adds to a width to count characters.
fn utf8_extra(s: &[u8]) -> i64 {
    s.iter().filter(|&&b| b & 0xc0 == 0x80).count() as i64
}

/// Length in bytes of the first `n` UTF-8 characters of `s`.
fn utf8_prefix_len(s: &[u8], n: i64) -> usize {
    let mut i = 0;
    let mut k = n;
    while k > 0 && i < s.len() {
        i += 1;
        while i < s.len() && s[i] & 0xc0 == 0x80 {
            i += 1;
        }
        k -= 1;
    }
    i
}

/// Encodes a code point as SQLite's `%c` does for C callers.
fn utf8_char(ch: u32) -> Vec<u8> {
    if ch < 0x80 {
        vec![ch as u8]
    } else if ch < 0x800 {
        vec![0xc0 | (ch >> 6) as u8, 0x80 | (ch & 0x3f) as u8]
    } else if ch < 0x10000 {
        vec![0xe0 | (ch >> 12) as u8, 0x80 | ((ch >> 6) & 0x3f) as u8, 0x80 | (ch & 0x3f) as u8]
    } else {
        vec![0xf0 | ((ch >> 18) & 0x07) as u8, 0x80 | ((ch >> 12) & 0x3f) as u8, 0x80 | ((ch >> 6) & 0x3f) as u8, 0x80 | (ch & 0x3f) as u8]
    }
}

/// Performs one conversion; returns false when formatting must stop there.
fn convert(c: u8, sp: &mut Spec, args: &mut dyn PrintfArgs, out: &mut Vec<u8>) -> Result<bool> {
    match c {
        b'd' | b'i' | b'u' | b'x' | b'X' | b'o' | b'p' | b'r' => {
            format_integer(c, sp, args, out);
        }
        b'e' | b'E' | b'f' | b'g' | b'G' => {
            let r = args.double_arg();
            format_float(c, sp, r, out);
        }
        b'n' => {
            if !args.is_sql() {
                args.store_count(out.len());
            }
        }
        b'%' => pad_spaces(out, b"%", sp.width, sp.left),
        b'c' => format_char(sp, args, out),
        b's' | b'z' => {
            let s = args.text_arg().map(c_str).unwrap_or_default();
            let len = if sp.precision >= 0 {
                if sp.alt2 {
                    utf8_prefix_len(&s, sp.precision)
                } else {
                    s.len().min(sp.precision as usize)
                }
            } else {
                s.len()
            };
            let body = &s[..len];
            let mut width = sp.width;
            if sp.alt2 && width > 0 {
                width += utf8_extra(body);
            }
            pad_spaces(out, body, width, sp.left);
        }
        b'q' | b'Q' | b'w' => format_quoted(c, sp, args, out),
        b'j' | b'J' => format_json(c, sp, args, out),
        // %T and %S are for SQLite's internal use; anything else is invalid.
        _ => return Ok(false),
    }
    Ok(true)
}

fn format_integer(c: u8, sp: &mut Spec, args: &mut dyn PrintfArgs, out: &mut Vec<u8>) {
    let signed = matches!(c, b'd' | b'i' | b'r');
    let (base, upper, alt_prefix): (u64, bool, &[u8]) = match c {
        b'x' => (16, false, b"0x"),
        b'X' => (16, true, b"0X"),
        b'o' => (8, false, b"0"),
        b'p' => (16, true, b"0x"),
        _ => (10, true, b""),
    };
    let mut thousands = sp.thousands;
    let mut size = match sp.long {
        0 => IntSize::Int,
        1 => IntSize::Long,
        _ => IntSize::LongLong,
    };
    if c == b'p' {
        size = IntSize::LongLong;
    }
    if matches!(c, b'p' | b'r' | b'x' | b'X' | b'o') {
        thousands = false;
    }
    let raw = args.int_arg(size, signed);
    let (mut value, prefix) = if signed {
        if raw < 0 {
            (raw.unsigned_abs(), b'-')
        } else {
            (raw as u64, sp.prefix)
        }
    } else {
        (raw as u64, 0)
    };
    let mut alt = sp.alt;
    if value == 0 {
        alt = false;
    }
    let mut precision = sp.precision;
    let width = sp.width;
    if sp.zero && precision < width - i64::from(prefix != 0) {
        precision = width - i64::from(prefix != 0);
    }
    // Digits (and the ordinal suffix) from the right.
    let mut body: Vec<u8> = Vec::with_capacity(24);
    if c == b'r' {
        let mut x = (value % 10) as usize;
        if x >= 4 || (value / 10) % 10 == 1 {
            x = 0;
        }
        body.extend_from_slice(&b"thstndrd"[x * 2..x * 2 + 2]);
        body.reverse();
    }
    let set = if upper { DIGITS_UPPER } else { DIGITS_LOWER };
    loop {
        body.push(set[(value % base) as usize]);
        value /= base;
        if value == 0 {
            break;
        }
    }
    while (body.len() as i64) < precision {
        body.push(b'0');
    }
    body.reverse();
    if thousands {
        let len = body.len();
        let mut with: Vec<u8> = Vec::with_capacity(len + len / 3);
        for (k, &d) in body.iter().enumerate() {
            with.push(d);
            let rest = len - k - 1;
            if rest > 0 && rest.is_multiple_of(3) {
                with.push(b',');
            }
        }
        body = with;
    }
    let mut full: Vec<u8> = Vec::with_capacity(body.len() + 3);
    if alt && !alt_prefix.is_empty() {
        full.extend_from_slice(alt_prefix);
    }
    if prefix != 0 {
        full.push(prefix);
    }
    full.extend_from_slice(&body);
    pad_spaces(out, &full, width, sp.left);
}

fn format_float(c: u8, sp: &mut Spec, r: f64, out: &mut Vec<u8>) {
    let mut precision = if sp.precision < 0 { 6 } else { sp.precision.min(100_000_000) };
    #[derive(PartialEq, Clone, Copy)]
    enum Kind {
        Float,
        Exp,
        Generic,
    }
    let mut kind = match c {
        b'f' => Kind::Float,
        b'e' | b'E' => Kind::Exp,
        _ => Kind::Generic,
    };
    let exp_letter = if c == b'E' || c == b'G' { b'E' } else { b'e' };
    let iround: i64 = match kind {
        Kind::Float => -precision,
        Kind::Generic => {
            if precision == 0 {
                precision = 1;
            }
            precision
        }
        Kind::Exp => precision + 1,
    };
    let iround_i32 = iround.clamp(-200_000_000, 200_000_000) as i32;
    let mut d: FpDecode = fp_decode(r, iround_i32, if sp.alt2 { 20 } else { 16 });
    if let Some(nan) = d.special {
        if nan {
            let body: &[u8] = if sp.zero { b"null" } else { b"NaN" };
            pad_spaces(out, body, sp.width, sp.left);
            return;
        } else if sp.zero {
            d.digits = b"9".to_vec();
            d.dp = 1000;
        } else {
            let mut body: Vec<u8> = b"-Inf".to_vec();
            if !d.negative {
                if sp.prefix != 0 {
                    body[0] = sp.prefix;
                } else {
                    body.remove(0);
                }
            }
            pad_spaces(out, &body, sp.width, sp.left);
            return;
        }
    }
    let prefix = if d.negative {
        if sp.alt && sp.prefix == 0 && kind == Kind::Float && i64::from(d.dp) <= iround {
            0
        } else {
            b'-'
        }
    } else {
        sp.prefix
    };
    let exp = i64::from(d.dp) - 1;
    let rtz;
    if kind == Kind::Generic {
        precision -= 1;
        rtz = !sp.alt;
        if exp < -4 || exp > precision {
            kind = Kind::Exp;
        } else {
            precision -= exp;
            kind = Kind::Float;
        }
    } else {
        rtz = sp.alt2;
    }
    let mut e2: i64 = if kind == Kind::Exp { 0 } else { i64::from(d.dp) - 1 };
    let dp_flag = precision > 0 || sp.alt || sp.alt2;
    let z = &d.digits;
    let n = z.len() as i64;
    let mut buf: Vec<u8> = Vec::with_capacity((e2.max(0) + precision + 10).min(1 << 20) as usize);
    if prefix != 0 {
        buf.push(prefix);
    }
    let mut j: i64 = 0;
    if e2 < 0 {
        buf.push(b'0');
    } else if sp.thousands {
        while e2 >= 0 {
            buf.push(if j < n { z[j as usize] } else { b'0' });
            if j < n {
                j += 1;
            }
            if e2 % 3 == 0 && e2 > 1 {
                buf.push(b',');
            }
            e2 -= 1;
        }
    } else {
        j = (e2 + 1).min(n);
        buf.extend_from_slice(&z[..j as usize]);
        e2 -= j;
        if e2 >= 0 {
            buf.resize(buf.len() + (e2 + 1) as usize, b'0');
            e2 = -1;
        }
    }
    if dp_flag {
        buf.push(b'.');
    }
    if e2 < -1 && precision > 0 {
        let nn = (-1 - e2).min(precision);
        buf.resize(buf.len() + nn as usize, b'0');
        precision -= nn;
    }
    if precision > 0 {
        let nn = (n - j).min(precision);
        if nn > 0 {
            buf.extend_from_slice(&z[j as usize..(j + nn) as usize]);
            precision -= nn;
        }
        if precision > 0 && !rtz {
            buf.resize(buf.len() + precision as usize, b'0');
        }
    }
    if rtz && dp_flag {
        while buf.last() == Some(&b'0') {
            buf.pop();
        }
        if buf.last() == Some(&b'.') {
            if sp.alt2 {
                buf.push(b'0');
            } else {
                buf.pop();
            }
        }
    }
    if kind == Kind::Exp {
        let mut e = i64::from(d.dp) - 1;
        buf.push(exp_letter);
        if e < 0 {
            buf.push(b'-');
            e = -e;
        } else {
            buf.push(b'+');
        }
        if e >= 100 {
            buf.push(b'0' + (e / 100) as u8);
            e %= 100;
        }
        buf.push(b'0' + (e / 10) as u8);
        buf.push(b'0' + (e % 10) as u8);
    }
    let len = buf.len() as i64;
    if len < sp.width {
        let pad = (sp.width - len) as usize;
        if sp.left {
            buf.resize(buf.len() + pad, b' ');
        } else if !sp.zero {
            let mut p = vec![b' '; pad];
            p.extend_from_slice(&buf);
            buf = p;
        } else {
            let adj = usize::from(prefix != 0);
            let tail = buf.split_off(adj);
            buf.resize(buf.len() + pad, b'0');
            buf.extend_from_slice(&tail);
        }
    }
    out.extend_from_slice(&buf);
}

fn format_char(sp: &mut Spec, args: &mut dyn PrintfArgs, out: &mut Vec<u8>) {
    let ch: Vec<u8> = if args.is_sql() {
        match args.text_arg() {
            Some(t) if !t.is_empty() => {
                let mut v = vec![t[0]];
                if t[0] & 0xc0 == 0xc0 {
                    let mut k = 1;
                    while v.len() < 4 && k < t.len() && t[k] & 0xc0 == 0x80 {
                        v.push(t[k]);
                        k += 1;
                    }
                }
                v
            }
            _ => vec![0],
        }
    } else {
        utf8_char(args.char_arg())
    };
    let mut width = sp.width;
    let mut precision = sp.precision;
    if precision > 1 {
        width -= precision - 1;
        if width > 1 && !sp.left {
            out.resize(out.len() + (width - 1) as usize, b' ');
            width = 0;
        }
        while precision > 1 {
            out.extend_from_slice(&ch);
            precision -= 1;
        }
    }
    if width > 0 {
        width += utf8_extra(&ch);
    }
    pad_spaces(out, &ch, width, sp.left);
}

fn format_quoted(c: u8, sp: &mut Spec, args: &mut dyn PrintfArgs, out: &mut Vec<u8>) {
    let arg = args.text_arg().map(c_str);
    let q = if c == b'w' { b'"' } else { b'\'' };
    let mut alt = sp.alt && c != b'w';
    let mut need_quote = 0;
    let s: Cow<'_, [u8]> = match arg {
        None => Cow::Borrowed(if c == b'Q' { &b"NULL"[..] } else { &b"(NULL)"[..] }),
        Some(s) => {
            if c == b'Q' {
                need_quote = 1;
            }
            s
        }
    };
    // How many bytes of the argument the precision admits.
    let mut k = sp.precision;
    let mut i = 0usize;
    while k != 0 && i < s.len() {
        if sp.alt2 && s[i] & 0xc0 == 0xc0 {
            while i + 1 < s.len() && s[i + 1] & 0xc0 == 0x80 {
                i += 1;
            }
        }
        i += 1;
        k -= 1;
    }
    let src = &s[..i];
    if alt {
        let ctrl = src.iter().filter(|&&b| b <= 0x1f).count();
        if ctrl > 0 || c == b'q' {
            if c == b'Q' {
                need_quote = 2;
            }
        } else {
            alt = false;
        }
    }
    let mut body: Vec<u8> = Vec::with_capacity(src.len() + 12);
    if need_quote == 2 {
        body.extend_from_slice(b"unistr('");
    } else if need_quote == 1 {
        body.push(b'\'');
    }
    for &ch in src {
        if alt && ch <= 0x1f {
            body.extend_from_slice(b"\\u00");
            body.push(if ch >= 0x10 { b'1' } else { b'0' });
            body.push(DIGITS_LOWER[(ch & 0xf) as usize]);
            continue;
        }
        body.push(ch);
        if ch == q || (alt && ch == b'\\') {
            body.push(ch);
        }
    }
    if need_quote > 0 {
        body.push(b'\'');
        if need_quote == 2 {
            body.push(b')');
        }
    }
    let mut width = sp.width;
    if sp.alt2 && width > 0 {
        width += utf8_extra(&body);
    }
    pad_spaces(out, &body, width, sp.left);
}

fn format_json(c: u8, sp: &mut Spec, args: &mut dyn PrintfArgs, out: &mut Vec<u8>) {
    let start = out.len();
    match args.text_arg() {
        None => {
            if c == b'J' {
                out.extend_from_slice(b"null");
            }
        }
        Some(s) => {
            if c == b'J' {
                out.push(b'"');
            }
            let at = |k: usize| -> u8 { s.get(k).copied().unwrap_or(0) };
            let mut px: i64 = if sp.precision < 0 { i64::from(i32::MAX) } else { sp.precision };
            if sp.precision >= 0 && sp.alt2 {
                // Precision counts characters: extend it over continuation bytes.
                let mut k: i64 = 0;
                while k < px && at(k as usize) != 0 {
                    if at(k as usize) & 0xc0 == 0x80 {
                        px += 1;
                    }
                    k += 1;
                }
                if k == px {
                    while at(px as usize) & 0xc0 == 0x80 {
                        px += 1;
                    }
                }
            }
            let mut k = 0usize;
            while (k as i64) < px {
                let ch = at(k);
                if ch == 0 {
                    break;
                }
                if ch <= 0x1f || ch == b'"' || ch == b'\\' {
                    out.push(b'\\');
                    match ch {
                        0x08 => out.push(b'b'),
                        0x09 => out.push(b't'),
                        0x0a => out.push(b'n'),
                        0x0c => out.push(b'f'),
                        0x0d => out.push(b'r'),
                        0x20.. => out.push(ch),
                        _ => {
                            out.extend_from_slice(b"u00");
                            out.push(DIGITS_LOWER[(ch >> 4) as usize]);
                            out.push(DIGITS_LOWER[(ch & 0xf) as usize]);
                        }
                    }
                } else {
                    out.push(ch);
                }
                k += 1;
            }
            if c == b'J' {
                out.push(b'"');
            }
        }
    }
    if sp.width > 0 {
        let n = (out.len() - start) as i64;
        let mut len = n;
        if sp.alt2 && n > 0 {
            len -= utf8_extra(&out[start..]);
        }
        if sp.width > len {
            let pad = (sp.width - len) as usize;
            if sp.left || n == 0 {
                out.resize(out.len() + pad, b' ');
            } else {
                let tail = out.split_off(start);
                out.resize(out.len() + pad, b' ');
                out.extend_from_slice(&tail);
            }
        }
    }
}

/// A REAL as text with a given number of significant digits (`%!.*g`): what
/// a connection renders after `SQLITE_DBCONFIG_FP_DIGITS` changed the
/// default of 17 (valid settings are 4..=23).
pub fn format_real_digits(r: f64, digits: u8) -> String {
    if digits == 17 {
        return format_generic_17(r);
    }
    let args = [Arg::Int(i64::from(digits)), Arg::Double(r)];
    let out = format(b"%!.*g", &mut ListArgs::new(&args)).unwrap_or_default();
    String::from_utf8(out).unwrap_or_default()
}
