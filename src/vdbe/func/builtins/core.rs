//! # Core scalar functions
//!
//! String, type-conversion and miscellaneous scalars of `lang_corefunc`:
//! abs, char, coalesce, concat, concat_ws, format/printf, glob, hex, ifnull, iif/if,
//! instr, length, like, likely/unlikely/likelihood, lower, upper,
//! ltrim/rtrim/trim, max/min (scalar forms), nullif, octet_length, quote,
//! random, randomblob, replace, round, sign, soundex, substr/substring,
//! typeof, unhex, unicode, unistr, unistr_quote, zeroblob, subtype, and the
//! connection accessors (last_insert_rowid, changes, total_changes,
//! sqlite_version, sqlite_source_id).
//!
//! Conventions kept from SQLite: a NULL argument usually yields NULL (each
//! body says where not); text arguments are read up to the first NUL byte
//! where SQLite reads them as C strings (length, substr, like, trim's
//! character set) and in full where SQLite uses the byte count (instr,
//! replace, trim's input, octet_length).

use super::conv::{numeric_value, value_bytes, value_f64, value_i64, value_text};
use super::pattern::{self, PatternInfo};
use super::{scalar, wrong_arg_count, DETERMINISTIC, VOLATILE};
use crate::error::{Error, Result};
use crate::util::ascii::AsciiLower;
use crate::value::collation::Collation;
use crate::value::{Value, ValueRef};
use crate::vdbe::func::{FuncFlags, FunctionContext, FunctionRegistry};
use std::cmp::Ordering;

/// The SQLite version and source id a library that reports nothing else
/// gives: those of the reference SQLite ringlite follows.
pub const DEFAULT_SQLITE_VERSION: &str = "3.54.1";
pub const DEFAULT_SQLITE_SOURCE_ID: &str = "2026-10-16 14:45:20 555e07ef33f69a0957d24d8e555b702464a131d6f1607f4c3c1e4551e8e6ca76";

/// ringlite's own version (`ringlite_version()`).
pub const RINGLITE_VERSION: &str = env!("CARGO_PKG_VERSION");

/// What the library says it is, set once per process by the C library from
/// the strings linked into it (`capi/shim/version.c`): the version is chosen
/// when the shared library is linked, not when the engine is compiled, so
/// one build can stand in for the reference SQLite or for a machine's own.
static REPORTED: std::sync::OnceLock<(&'static str, String)> = std::sync::OnceLock::new();

/// Sets the reported SQLite version and source id; the first call wins.
/// The source id gets ringlite's marker appended (`... ringlite-X.Y.Z`):
/// programs that check it compare its first 60 characters (SQLite's shell)
/// or the version alone, and a reader of it learns which library answers.
pub fn report_sqlite_version(version: &'static str, source_id: &str) {
    REPORTED.get_or_init(|| marked(version, source_id));
}

fn marked(version: &'static str, source_id: &str) -> (&'static str, String) {
    (version, format!("{source_id} ringlite-{RINGLITE_VERSION}"))
}

/// The SQLite version ringlite reports (`sqlite_version()`, `sqlite3_libversion()`).
pub fn sqlite_version() -> &'static str {
    reported().0
}

/// The source identifier reported by `sqlite_source_id()` and `sqlite3_sourceid()`.
pub fn sqlite_source_id() -> &'static str {
    reported().1.as_str()
}

/// The reported strings; the reference SQLite's if nothing set them first.
fn reported() -> &'static (&'static str, String) {
    REPORTED.get_or_init(|| marked(DEFAULT_SQLITE_VERSION, DEFAULT_SQLITE_SOURCE_ID))
}

/// The compile-time options ringlite reports, without the `SQLITE_`
/// prefix: `PRAGMA compile_options`, `sqlite_compileoption_get/used()` and
/// the C functions of the same names all read this list.
/// The `ENABLE_*` ones name what is built in, as Debian's build lists them,
/// so programs testing for a feature (`sqlite_compileoption_used(
/// 'ENABLE_FTS4')`) find it.
pub const COMPILE_OPTIONS: &[&str] = &[
    "ATOMIC_INTRINSICS=1",
    "DEFAULT_MEMSTATUS=0",
    "ENABLE_COLUMN_METADATA",
    "ENABLE_DBSTAT_VTAB",
    "ENABLE_FTS3",
    "ENABLE_FTS3_PARENTHESIS",
    "ENABLE_FTS3_TOKENIZER",
    "ENABLE_FTS4",
    "ENABLE_FTS5",
    "ENABLE_LOAD_EXTENSION",
    "ENABLE_MATH_FUNCTIONS",
    "ENABLE_PREUPDATE_HOOK",
    "ENABLE_RTREE",
    "ENABLE_SESSION",
    "ENABLE_STMTVTAB",
    "ENABLE_UPDATE_DELETE_LIMIT",
    "THREADSAFE=1",
];

/// Whether `name` (with or without `SQLITE_`, with or without `=value`)
/// is one of [`COMPILE_OPTIONS`].
pub fn compile_option_used(name: &str) -> bool {
    let name = name.get(..7).filter(|p| p.eq_ci("sqlite_")).map_or(name, |_| &name[7..]);
    COMPILE_OPTIONS.iter().any(|o| {
        let key = o.split_once('=').map_or(*o, |(k, _)| k);
        key.eq_ci(name) || o.eq_ci(name)
    })
}

/// `SQLITE_LIMIT_LENGTH` default: the largest string or blob.
pub const MAX_LENGTH: i64 = 1_000_000_000;

/// A text or blob result longer than `SQLITE_LIMIT_LENGTH` is an error.
pub(crate) fn within_limit(v: Value) -> Result<Value> {
    v.check_length(MAX_LENGTH)?;
    Ok(v)
}

/// Bytes up to (not including) the first NUL: what a C string sees.
pub(crate) fn c_str(b: &[u8]) -> &[u8] {
    match b.iter().position(|&c| c == 0) {
        Some(p) => &b[..p],
        None => b,
    }
}

// SQLite steps through malformed UTF-8 in two slightly different ways,
// and which one a function uses shows in its results on such text:
// - stepping: any byte >= 0x80 swallows the continuation bytes after it,
//   so a run of stray continuation bytes is one character;
// - counting for negative substr() offsets: only a lead byte (>= 0xc0)
//   swallows continuation bytes, so each stray one is a character.

/// Advance over one character (any byte >= 0x80 takes the continuation
/// bytes after it).
pub(crate) fn skip_char(s: &[u8], pos: usize) -> usize {
    let mut p = pos + 1;
    if s[pos] >= 0x80 {
        while p < s.len() && s[p] & 0xc0 == 0x80 {
            p += 1;
        }
    }
    p
}

/// Advance over one character (only a lead byte >= 0xc0 takes
/// continuation bytes).
pub(crate) fn skip_char_lead(s: &[u8], pos: usize) -> usize {
    let mut p = pos + 1;
    if s[pos] >= 0xc0 {
        while p < s.len() && s[p] & 0xc0 == 0x80 {
            p += 1;
        }
    }
    p
}

fn count_with(s: &[u8], step: fn(&[u8], usize) -> usize) -> usize {
    let mut n = 0;
    let mut pos = 0;
    while pos < s.len() {
        pos = step(s, pos);
        n += 1;
    }
    n
}

/// Number of characters by [`skip_char`] steps (what length() reports).
pub(crate) fn char_count(s: &[u8]) -> usize {
    // All ASCII (the common case, checked a word at a time): one byte each.
    if s.is_ascii() {
        return s.len();
    }
    count_with(s, skip_char)
}

/// `char_count(c_str(t))` (length() of text), in one pass over the
/// leading run of ASCII without NUL, eight bytes at a time: the usual text
/// is all that, and was otherwise scanned twice a byte at a time.
pub(crate) fn c_str_char_count(t: &[u8]) -> usize {
    const LOW: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // (Non-zero when some byte is zero, or has its high bit set.)
    let special = |x: u64| (x.wrapping_sub(LOW) & !x & HIGH) | (x & HIGH) != 0;
    // Plain ASCII without NUL, the usual text: its length, from whole
    // words (the tail as the last eight bytes, overlapping, or padded
    // with spaces) without a loop per byte.
    let n = t.len();
    let tail = if n >= 8 {
        t[n - 8..].try_into().ok()
    } else {
        let mut w = [b' '; 8];
        w[..n].copy_from_slice(t);
        Some(w)
    };
    if let Some(tail) = tail {
        if !special(u64::from_le_bytes(tail)) && t.chunks_exact(8).all(|w| !special(u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]))) {
            return n;
        }
    }
    let mut plain = 0;
    for word in t.chunks_exact(8) {
        let x = u64::from_le_bytes([word[0], word[1], word[2], word[3], word[4], word[5], word[6], word[7]]);
        // (Non-zero when some byte is zero, or has its high bit set.)
        if (x.wrapping_sub(LOW) & !x & HIGH) | (x & HIGH) != 0 {
            break;
        }
        plain += 8;
    }
    plain + char_count(c_str(&t[plain..]))
}

/// Number of characters by [`skip_char_lead`] steps.
pub(crate) fn char_count_lead(s: &[u8]) -> usize {
    count_with(s, skip_char_lead)
}

/// Append a code point as UTF-8 (SQLite's writer: no validity checks).
pub(crate) fn push_utf8(out: &mut Vec<u8>, c: u32) {
    if c < 0x80 {
        out.push(c as u8);
    } else if c < 0x800 {
        out.push(0xc0 | (c >> 6) as u8);
        out.push(0x80 | (c & 0x3f) as u8);
    } else if c < 0x10000 {
        out.push(0xe0 | (c >> 12) as u8);
        out.push(0x80 | ((c >> 6) & 0x3f) as u8);
        out.push(0x80 | (c & 0x3f) as u8);
    } else {
        out.push(0xf0 | ((c >> 18) & 0x07) as u8);
        out.push(0x80 | ((c >> 12) & 0x3f) as u8);
        out.push(0x80 | ((c >> 6) & 0x3f) as u8);
        out.push(0x80 | (c & 0x3f) as u8);
    }
}

/// SQLite's truth value of a value (as in `WHERE x`).
pub(crate) fn is_true(v: &Value) -> bool {
    match v {
        Value::Null | Value::Pointer(_) => false,
        Value::Integer(i) => *i != 0,
        Value::Real(r) => *r != 0.0,
        other => value_f64(other) != 0.0,
    }
}

const HEX_UPPER: &[u8; 16] = b"0123456789ABCDEF";

/// Register the core scalars.
pub fn register(r: &mut FunctionRegistry) {
    let d = DETERMINISTIC;
    scalar(r, "abs", &[1], d, |_, a| abs(&a[0]));
    scalar(r, "char", &[-1], d, |_, a| Ok(char_fn(a)));
    scalar(r, "coalesce", &[-1], d, |_, a| coalesce("coalesce", a));
    scalar(r, "ifnull", &[2], d, |_, a| coalesce("ifnull", a));
    scalar(r, "concat", &[-1], d, |_, a| concat(a).and_then(within_limit));
    scalar(r, "concat_ws", &[-1], d, |_, a| concat_ws(a).and_then(within_limit));
    scalar(r, "iif", &[-1], d, |_, a| iif("iif", a));
    scalar(r, "if", &[-1], d, |_, a| iif("if", a));
    scalar(r, "format", &[-1], d, |_, a| crate::value::printf::sql_printf(a, MAX_LENGTH as usize));
    scalar(r, "printf", &[-1], d, |_, a| crate::value::printf::sql_printf(a, MAX_LENGTH as usize));
    scalar(r, "glob", &[2], d, glob);
    scalar(r, "like", &[2, 3], d, like);
    scalar(r, "hex", &[1], d, |_, a| within_limit(hex(&a[0])));
    scalar(r, "instr", &[2], d, |_, a| Ok(instr(&a[0], &a[1])));
    scalar(r, "length", &[1], d, |_, a| Ok(length(&a[0])));
    scalar(r, "octet_length", &[1], d, |_, a| Ok(octet_length(&a[0])));
    scalar(r, "likely", &[1], d, |_, a| Ok(a[0].clone()));
    scalar(r, "unlikely", &[1], d, |_, a| Ok(a[0].clone()));
    scalar(r, "likelihood", &[2], d, |_, a| Ok(a[0].clone()));
    scalar(r, "lower", &[1], d, |_, a| Ok(map_ascii(&a[0], |c| c.to_ascii_lowercase())));
    scalar(r, "upper", &[1], d, |_, a| Ok(map_ascii(&a[0], |c| c.to_ascii_uppercase())));
    scalar(r, "ltrim", &[1, 2], d, |_, a| Ok(trim(a, true, false)));
    scalar(r, "rtrim", &[1, 2], d, |_, a| Ok(trim(a, false, true)));
    scalar(r, "trim", &[1, 2], d, |_, a| Ok(trim(a, true, true)));
    scalar(r, "max", &[-1], d, |_, a| min_max("max", a, true));
    scalar(r, "min", &[-1], d, |_, a| min_max("min", a, false));
    scalar(r, "nullif", &[2], d, |_, a| Ok(nullif(&a[0], &a[1])));
    scalar(r, "quote", &[1], d, |_, a| within_limit(quote(&a[0])));
    scalar(r, "unistr_quote", &[1], d, |_, a| Ok(unistr_quote(&a[0])));
    scalar(r, "unistr", &[1], d, |_, a| unistr(&a[0]));
    scalar(r, "random", &[0], VOLATILE, |ctx, _| Ok(random(ctx)));
    scalar(r, "randomblob", &[1], VOLATILE, |ctx, a| randomblob(ctx, &a[0]));
    scalar(r, "replace", &[3], d, |_, a| replace(a));
    scalar(r, "round", &[1, 2], d, |_, a| Ok(round(a)));
    scalar(r, "sign", &[1], d, |_, a| Ok(sign(&a[0])));
    scalar(r, "soundex", &[1], d, |_, a| Ok(soundex(&a[0])));
    scalar(r, "substr", &[2, 3], d, |_, a| Ok(substr(a)));
    scalar(r, "substring", &[2, 3], d, |_, a| Ok(substr(a)));
    scalar(r, "typeof", &[1], d, |_, a| Ok(Value::text(type_name(&a[0]))));
    scalar(r, "unhex", &[1, 2], d, |_, a| Ok(unhex(a)));
    scalar(r, "unicode", &[1], d, |_, a| Ok(unicode(&a[0])));
    scalar(r, "zeroblob", &[1], d, |_, a| zeroblob(&a[0]));
    scalar(r, "subtype", &[1], d, |ctx, _| Ok(Value::Integer(ctx.arg_subtypes.first().copied().unwrap_or(0) as i64)));
    scalar(r, "last_insert_rowid", &[0], VOLATILE, |ctx, _| Ok(Value::Integer(ctx.last_insert_rowid)));
    scalar(r, "changes", &[0], VOLATILE, |ctx, _| Ok(Value::Integer(ctx.changes)));
    scalar(r, "total_changes", &[0], VOLATILE, |ctx, _| Ok(Value::Integer(ctx.total_changes)));
    scalar(r, "sqlite_version", &[0], d, |_, _| Ok(Value::text(sqlite_version())));
    scalar(r, "sqlite_source_id", &[0], d, |_, _| Ok(Value::text(sqlite_source_id())));
    // ringlite's own: which library answers (SQLite has no such function,
    // so a program can tell the two apart from SQL).
    scalar(r, "ringlite_version", &[0], d, |_, _| Ok(Value::text(RINGLITE_VERSION)));
    // Direct-only as in SQLite (never from a view, trigger or schema
    // expression). Loading itself lives in the C API crate, which puts its
    // own function in place of this one once a connection enables it.
    let direct_only = FuncFlags { direct_only: true, innocuous: false, ..VOLATILE };
    scalar(r, "sqlite_log", &[2], direct_only, |_, _| Ok(Value::Null));
    scalar(r, "load_extension", &[1, 2], direct_only, |_, _| Err(Error::sql("not authorized")));
    scalar(r, "sqlite_compileoption_used", &[1], d, |_, a| {
        Ok(match &a[0] {
            Value::Null | Value::Pointer(_) => Value::Null,
            v => Value::Integer(compile_option_used(&String::from_utf8_lossy(&value_text(v).unwrap_or_default())) as i64),
        })
    });
    // A NULL index reads as 0, as in SQLite.
    scalar(r, "sqlite_compileoption_get", &[1], d, |_, a| {
        Ok(usize::try_from(value_i64(&a[0])).ok().and_then(|i| COMPILE_OPTIONS.get(i)).map_or(Value::Null, |o| Value::text(*o)))
    });
}

pub(crate) fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null | Value::Pointer(_) => "null",
        Value::Integer(_) => "integer",
        Value::Real(_) => "real",
        Value::Text(_) => "text",
        Value::Blob(_) | Value::ZeroBlob(_) => "blob",
    }
}

fn abs(v: &Value) -> Result<Value> {
    Ok(match v {
        Value::Null | Value::Pointer(_) => Value::Null,
        Value::Integer(i) => match i.checked_abs() {
            Some(a) => Value::Integer(a),
            None => return Err(Error::sql("integer overflow")),
        },
        Value::Real(r) => Value::Real(r.abs()),
        other => Value::Real(value_f64(other).abs()),
    })
}

fn char_fn(args: &[Value]) -> Value {
    let mut out = Vec::with_capacity(args.len());
    for a in args {
        let x = value_i64(a);
        let c = if !(0..=0x10ffff).contains(&x) { 0xfffd } else { x as u32 };
        push_utf8(&mut out, c);
    }
    Value::Text(out)
}

fn coalesce(name: &str, args: &[Value]) -> Result<Value> {
    if args.len() < 2 {
        return Err(wrong_arg_count(name));
    }
    Ok(args.iter().find(|a| !a.is_null()).cloned().unwrap_or(Value::Null))
}

fn concat(args: &[Value]) -> Result<Value> {
    if args.is_empty() {
        return Err(wrong_arg_count("concat"));
    }
    let mut out = Vec::new();
    for a in args {
        if let Some(t) = value_bytes(a) {
            out.extend_from_slice(&t);
        }
    }
    Ok(Value::Text(out))
}

fn concat_ws(args: &[Value]) -> Result<Value> {
    if args.len() < 2 {
        return Err(wrong_arg_count("concat_ws"));
    }
    let Some(sep) = value_bytes(&args[0]) else { return Ok(Value::Null) };
    let mut out = Vec::new();
    let mut first = true;
    for a in &args[1..] {
        if let Some(t) = value_bytes(a) {
            if !first {
                out.extend_from_slice(&sep);
            }
            out.extend_from_slice(&t);
            first = false;
        }
    }
    Ok(Value::Text(out))
}

/// iif(C1,V1[,C2,V2...][,ELSE]): the value after the first true condition.
fn iif(name: &str, args: &[Value]) -> Result<Value> {
    if args.len() < 2 {
        return Err(wrong_arg_count(name));
    }
    let mut i = 0;
    while i + 1 < args.len() {
        if is_true(&args[i]) {
            return Ok(args[i + 1].clone());
        }
        i += 2;
    }
    Ok(if i < args.len() { args[i].clone() } else { Value::Null })
}

#[inline]
fn pattern_too_long(p: &Value, max: usize) -> Result<()> {
    let n = match p {
        Value::Text(t) | Value::Blob(t) => t.len(),
        Value::ZeroBlob(n) => *n,
        Value::Null | Value::Pointer(_) => 0,
        other => value_text(other).map_or(0, |t| t.len()),
    };
    if n > max {
        return Err(Error::sql("LIKE or GLOB pattern too complex"));
    }
    Ok(())
}

fn glob(ctx: &mut FunctionContext<'_>, a: &[Value]) -> Result<Value> {
    pattern_too_long(&a[0], ctx.max_like_pattern)?;
    let (Some(p), Some(s)) = (value_bytes(&a[0]), value_bytes(&a[1])) else { return Ok(Value::Null) };
    Ok(Value::Integer(pattern::matches(&p, &s, &PatternInfo::GLOB, None) as i64))
}

fn like(ctx: &mut FunctionContext<'_>, a: &[Value]) -> Result<Value> {
    pattern_too_long(&a[0], ctx.max_like_pattern)?;
    let mut escape = None;
    if a.len() == 3 {
        let Some(e) = value_bytes(&a[2]) else { return Ok(Value::Null) };
        let e = c_str(&e);
        if char_count_lead(e) != 1 {
            return Err(Error::sql("ESCAPE expression must be a single character"));
        }
        let mut pos = 0;
        escape = Some(pattern::read_utf8(e, &mut pos));
    }
    let (Some(p), Some(s)) = (value_bytes(&a[0]), value_bytes(&a[1])) else { return Ok(Value::Null) };
    let info = PatternInfo::like(ctx.case_sensitive_like, escape);
    Ok(Value::Integer(pattern::matches(&p, &s, &info, escape) as i64))
}

fn hex(v: &Value) -> Value {
    // Text as the database stores it; numbers in their UTF-8 form (as
    // SQLite renders them for hex() on a UTF-16 database too).
    let bytes = match v {
        Value::Text(t) => crate::value::encoding::text_to_db_bytes(t, crate::value::encoding::current()),
        v => value_bytes(v).unwrap_or_default(),
    };
    let mut out = Vec::with_capacity(bytes.len() * 2);
    for &b in bytes.iter() {
        out.push(HEX_UPPER[(b >> 4) as usize]);
        out.push(HEX_UPPER[(b & 15) as usize]);
    }
    Value::Text(out)
}

fn instr(hay: &Value, needle: &Value) -> Value {
    if hay.is_null() || needle.is_null() {
        return Value::Null;
    }
    let both_blobs = matches!((hay, needle), (Value::Blob(_) | Value::ZeroBlob(_), Value::Blob(_) | Value::ZeroBlob(_)));
    let (h, n) = (value_bytes(hay).unwrap_or_default(), value_bytes(needle).unwrap_or_default());
    if n.is_empty() {
        return Value::Integer(1);
    }
    let is_text = !both_blobs;
    let mut pos = 0usize;
    let mut count = 1i64;
    while pos + n.len() <= h.len() {
        if h[pos..pos + n.len()] == n[..] {
            return Value::Integer(count);
        }
        count += 1;
        pos += 1;
        while is_text && pos < h.len() && h[pos] & 0xc0 == 0x80 {
            pos += 1;
        }
    }
    Value::Integer(0)
}

fn length(v: &Value) -> Value {
    match v {
        Value::Null | Value::Pointer(_) => Value::Null,
        Value::Blob(b) => Value::Integer(b.len() as i64),
        Value::ZeroBlob(n) => Value::Integer(*n as i64),
        Value::Text(t) => Value::Integer(c_str_char_count(t) as i64),
        other => Value::Integer(value_text(other).map_or(0, |t| t.len()) as i64),
    }
}

fn octet_length(v: &Value) -> Value {
    match v {
        Value::Null | Value::Pointer(_) => Value::Null,
        Value::Blob(b) => Value::Integer(b.len() as i64),
        Value::ZeroBlob(n) => Value::Integer(*n as i64),
        // Text in the database encoding's bytes.
        other => Value::Integer(value_text(other).map_or(0, |t| text_octets(&t)) as i64),
    }
}

/// The size of UTF-8 text as the database stores it.
fn text_octets(t: &[u8]) -> usize {
    match crate::value::encoding::current() {
        crate::value::encoding::TextEncoding::Utf8 => t.len(),
        _ => crate::value::encoding::utf8_chars(t).map(|c| if c >= 0x10000 { 4 } else { 2 }).sum(),
    }
}

fn map_ascii(v: &Value, f: impl Fn(u8) -> u8) -> Value {
    match value_text(v) {
        None => Value::Null,
        Some(mut t) => {
            for c in t.iter_mut() {
                *c = f(*c);
            }
            Value::Text(t)
        }
    }
}

/// ltrim/rtrim/trim: remove characters of the set (default: space) from
/// the chosen ends. The set is read as a C string, one character at a time.
fn trim(a: &[Value], left: bool, right: bool) -> Value {
    if a[0].is_null() {
        return Value::Null;
    }
    let input = value_bytes(&a[0]).unwrap_or_default();
    let charset = match a.get(1) {
        None => std::borrow::Cow::Borrowed(&b" "[..]),
        Some(v) => match value_bytes(v) {
            None => return Value::Null,
            Some(cs) => cs,
        },
    };
    let charset = c_str(&charset);
    let mut chars: Vec<&[u8]> = Vec::new();
    let mut p = 0;
    while p < charset.len() {
        let q = skip_char(charset, p);
        chars.push(&charset[p..q]);
        p = q;
    }
    trim_with(&input, &chars, left, right)
}

fn trim_with(input: &[u8], set: &[&[u8]], left: bool, right: bool) -> Value {
    let mut s = input;
    if !set.is_empty() {
        if left {
            while !s.is_empty() {
                match set.iter().find(|c| s.starts_with(c)) {
                    Some(c) => s = &s[c.len()..],
                    None => break,
                }
            }
        }
        if right {
            while !s.is_empty() {
                match set.iter().find(|c| s.ends_with(c)) {
                    Some(c) => s = &s[..s.len() - c.len()],
                    None => break,
                }
            }
        }
    }
    Value::Text(s.to_vec())
}

fn min_max(name: &str, a: &[Value], is_max: bool) -> Result<Value> {
    min_max_with(name, a, is_max, None)
}

/// Scalar max()/min() of two or more arguments under `coll`.
pub(super) fn min_max_with(name: &str, a: &[Value], is_max: bool, coll: Option<&Collation>) -> Result<Value> {
    if a.len() < 2 {
        return Err(wrong_arg_count(name));
    }
    Ok(scalar_min_max(a, is_max, coll))
}

/// Scalar max()/min() under a collating sequence (SQLite takes the first
/// argument that has one; see `super::with_collation`).
pub fn scalar_min_max(a: &[Value], is_max: bool, coll: Option<&Collation>) -> Value {
    if a.is_empty() || a.iter().any(|v| v.is_null()) {
        return Value::Null;
    }
    let mut best = 0;
    for i in 1..a.len() {
        let c = super::conv::compare(&a[best], &a[i], coll);
        let take = if is_max { c == Ordering::Less } else { c != Ordering::Less };
        if take {
            best = i;
        }
    }
    a[best].clone()
}

fn nullif(x: &Value, y: &Value) -> Value {
    nullif_with(x, y, None)
}

/// nullif() under a collating sequence (see [`scalar_min_max`]).
pub fn nullif_with(x: &Value, y: &Value, coll: Option<&Collation>) -> Value {
    if super::conv::compare(x, y, coll) != Ordering::Equal {
        x.clone()
    } else {
        Value::Null
    }
}

/// SQL literal text of a value.
pub(crate) fn quote_bytes(v: &Value) -> Vec<u8> {
    match v {
        Value::Null | Value::Pointer(_) => b"NULL".to_vec(),
        Value::Integer(i) => i.to_string().into_bytes(),
        Value::Real(r) => {
            if r.is_infinite() {
                if *r > 0.0 {
                    b"9.0e+999".to_vec()
                } else {
                    b"-9.0e+999".to_vec()
                }
            } else {
                value_text(v).unwrap_or_default()
            }
        }
        Value::Text(t) => {
            let mut out = vec![b'\''];
            for &c in c_str(t) {
                out.push(c);
                if c == b'\'' {
                    out.push(b'\'');
                }
            }
            out.push(b'\'');
            out
        }
        Value::Blob(_) | Value::ZeroBlob(_) => {
            let ValueRef::Blob(b) = v.as_ref() else { return Vec::new() };
            let mut out = b"X'".to_vec();
            for &c in b.iter() {
                out.push(HEX_UPPER[(c >> 4) as usize]);
                out.push(HEX_UPPER[(c & 15) as usize]);
            }
            out.push(b'\'');
            out
        }
    }
}

fn quote(v: &Value) -> Value {
    Value::Text(quote_bytes(v))
}

/// quote(), but text holding control characters becomes a `unistr('...')`
/// call with `\uXXXX` escapes, so that it survives line-oriented tools.
fn unistr_quote(v: &Value) -> Value {
    let Value::Text(t) = v else { return quote(v) };
    let t = c_str(t);
    if !t.iter().any(|&c| c < 0x20) {
        return quote(v);
    }
    let mut out = b"unistr('".to_vec();
    for &c in t {
        match c {
            b'\'' => out.extend_from_slice(b"''"),
            b'\\' => out.extend_from_slice(b"\\\\"),
            c if c < 0x20 => out.extend_from_slice(format!("\\u{:04x}", c).as_bytes()),
            c => out.push(c),
        }
    }
    out.extend_from_slice(b"')");
    Value::Text(out)
}

fn unistr(v: &Value) -> Result<Value> {
    let Some(t) = value_bytes(v) else { return Ok(Value::Null) };
    let t: &[u8] = &t;
    let mut out = Vec::with_capacity(t.len());
    let mut i = 0;
    let hex_at = |i: usize, n: usize| -> Option<u32> {
        let s = t.get(i..i + n)?;
        if !s.iter().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        u32::from_str_radix(std::str::from_utf8(s).ok()?, 16).ok()
    };
    while i < t.len() {
        if t[i] != b'\\' {
            out.push(t[i]);
            i += 1;
            continue;
        }
        let (cp, used) = if t.get(i + 1) == Some(&b'\\') {
            (b'\\' as u32, 2)
        } else if let Some(c) = hex_at(i + 1, 4) {
            (c, 5)
        } else if t.get(i + 1) == Some(&b'u') && hex_at(i + 2, 4).is_some() {
            (hex_at(i + 2, 4).unwrap_or(0), 6)
        } else if t.get(i + 1) == Some(&b'+') && hex_at(i + 2, 6).is_some() {
            (hex_at(i + 2, 6).unwrap_or(0), 8)
        } else if t.get(i + 1) == Some(&b'U') && hex_at(i + 2, 8).is_some() {
            (hex_at(i + 2, 8).unwrap_or(0), 10)
        } else {
            return Err(Error::sql("invalid Unicode escape"));
        };
        if cp > 0x10ffff {
            return Err(Error::sql("invalid Unicode escape"));
        }
        push_utf8(&mut out, cp);
        i += used;
    }
    Ok(Value::Text(out))
}

fn random(ctx: &mut FunctionContext<'_>) -> Value {
    let mut b = [0u8; 8];
    (ctx.prng)(&mut b);
    let mut r = i64::from_le_bytes(b);
    if r < 0 {
        r = -(r & i64::MAX);
    }
    Value::Integer(r)
}

fn randomblob(ctx: &mut FunctionContext<'_>, n: &Value) -> Result<Value> {
    let n = value_i64(n).max(1);
    if n > MAX_LENGTH {
        return Err(Error::too_big());
    }
    let mut b = vec![0u8; n as usize];
    (ctx.prng)(&mut b);
    Ok(Value::Blob(b))
}

fn replace(a: &[Value]) -> Result<Value> {
    let Some(s) = value_bytes(&a[0]) else { return Ok(Value::Null) };
    let Some(pat) = value_bytes(&a[1]) else { return Ok(Value::Null) };
    if pat.first().is_none_or(|&c| c == 0) {
        return Ok(Value::Text(s.into_owned()));
    }
    let Some(rep) = value_bytes(&a[2]) else { return Ok(Value::Null) };
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        if s[i..].starts_with(&pat) {
            // Each replacement can grow the text: stop at the length limit
            // rather than after allocating far past it.
            if (out.len() + rep.len()) as i64 > MAX_LENGTH {
                return Err(Error::too_big());
            }
            out.extend_from_slice(&rep);
            i += pat.len();
        } else {
            out.push(s[i]);
            i += 1;
        }
    }
    Ok(Value::Text(out))
}

fn round(a: &[Value]) -> Value {
    let mut digits = 0i32;
    if a.len() == 2 {
        if a[1].is_null() {
            return Value::Null;
        }
        digits = value_i64(&a[1]).clamp(0, 30) as i32;
    }
    if a[0].is_null() {
        return Value::Null;
    }
    Value::Real(round_real(value_f64(&a[0]), digits as usize))
}

/// Round to `digits` decimals as SQLite 3.54 does: the value is rendered
/// as printf's `%!.*f` would render it (its decimal digits as SQLite's
/// printf computes them, see `fp_decode`, then rounded half-up at the
/// requested place) and that text is read back. The digits are not the
/// exact binary expansion: 3949.043666605 (really 3949.0436666049999985)
/// becomes 3949.04366661 at 8 decimals, as on SQLite.
pub(crate) fn round_real(r: f64, digits: usize) -> f64 {
    if !r.is_finite() || r.abs() > 4503599627370496.0 {
        return r;
    }
    if digits == 0 {
        // Half away from zero through an integer, so -0.4 gives +0.0.
        return (r + if r < 0.0 { -0.5 } else { 0.5 }) as i64 as f64;
    }
    debug_assert!(digits <= 30, "round() clamps its digit count to 30");
    let mut d = crate::value::fpdecode::fp_decode(r, -(digits as i32), 20);
    // `%f` shows the digits down to the requested place only (the decode
    // leaves unrounded those of a value smaller than half a unit there).
    let shown = (d.dp + digits as i32).max(0) as usize;
    d.digits.truncate(shown);
    if d.digits.is_empty() {
        d.digits.push(b'0');
    }
    // value = 0.<digits> x 10^dp
    let text = format!("{}0.{}e{}", if d.negative { "-" } else { "" }, std::str::from_utf8(&d.digits).unwrap_or("0"), d.dp);
    text.parse().unwrap_or(r)
}

fn sign(v: &Value) -> Value {
    let n = match v {
        Value::Blob(_) | Value::ZeroBlob(_) => return Value::Null,
        other => numeric_value(other),
    };
    let x = match n {
        Value::Integer(i) => i as f64,
        Value::Real(r) => r,
        _ => return Value::Null,
    };
    Value::Integer(if x < 0.0 {
        -1
    } else if x > 0.0 {
        1
    } else {
        0
    })
}

fn soundex(v: &Value) -> Value {
    // Codes of the letters A..Z; vowels, H, W and Y have none.
    const CODES: &[u8; 26] = b"01230120022455012623010202";
    let code = |c: u8| -> u8 {
        let c = (c & 0x7f).to_ascii_uppercase();
        if c.is_ascii_uppercase() {
            CODES[(c - b'A') as usize] - b'0'
        } else {
            0
        }
    };
    let t = value_bytes(v).unwrap_or_default();
    let t = c_str(&t);
    let Some(start) = t.iter().position(|c| c.is_ascii_alphabetic()) else { return Value::text("?000") };
    let mut out = vec![t[start].to_ascii_uppercase()];
    let mut prev = code(t[start]);
    for &c in &t[start..] {
        if out.len() >= 4 {
            break;
        }
        let k = code(c);
        if k > 0 {
            if k != prev {
                prev = k;
                out.push(b'0' + k);
            }
        } else {
            prev = 0;
        }
    }
    while out.len() < 4 {
        out.push(b'0');
    }
    Value::Text(out)
}

/// `substr()`'s start (0-based) and count, before clipping to the value,
/// for a value of `len` units (bytes of a blob; characters of text, needed
/// only when `p1` is negative), from its arguments `p1` and `p2`.
pub(crate) fn substr_start_count(len: i64, mut p1: i64, p2: Option<i64>) -> (i64, i64) {
    let mut neg_p2 = false;
    let mut p2 = match p2 {
        Some(v) if v < 0 => {
            neg_p2 = true;
            v.saturating_neg()
        }
        Some(v) => v,
        None => i64::MAX,
    };
    // Two's-complement arithmetic throughout, as SQLite's C code behaves.
    if p1 < 0 {
        p1 = p1.wrapping_add(len);
        if p1 < 0 {
            p2 = p2.wrapping_add(p1);
            if p2 < 0 {
                p2 = 0;
            }
            p1 = 0;
        }
    } else if p1 > 0 {
        p1 -= 1;
    } else if p2 > 0 {
        p2 -= 1;
    }
    if neg_p2 {
        p1 = p1.wrapping_sub(p2);
        if p1 < 0 {
            p2 = p2.wrapping_add(p1);
            p1 = 0;
        }
    }
    (p1, p2.max(0))
}

/// The bytes `substr(X, p1[, p2])` takes of a blob `X` of `len` bytes:
/// (start, count), clipped to the blob.
pub(crate) fn substr_blob_range(len: i64, p1: i64, p2: Option<i64>) -> (i64, i64) {
    let (p1, p2) = substr_start_count(len, p1, p2);
    if p1 >= len {
        (0, 0)
    } else {
        (p1, p2.min(len - p1))
    }
}

fn substr(a: &[Value]) -> Value {
    if a[1].is_null() || (a.len() == 3 && a[2].is_null()) {
        return Value::Null;
    }
    if a[0].is_null() {
        return Value::Null;
    }
    let is_blob = matches!(a[0], Value::Blob(_) | Value::ZeroBlob(_));
    // (A zero-blob's bytes are borrowed: only the part asked for is copied.)
    let data = value_bytes(&a[0]).unwrap_or_default();
    if is_blob && data.is_empty() {
        // SQLite sees a NULL pointer for an empty blob.
        return Value::Null;
    }
    let data: &[u8] = if is_blob { &data } else { c_str(&data) };
    let p1 = value_i64(&a[1]);
    let len = if is_blob {
        data.len() as i64
    } else if p1 < 0 {
        char_count_lead(data) as i64
    } else {
        0
    };
    let p2 = a.get(2).map(value_i64);
    if is_blob {
        let (start, n) = substr_blob_range(len, p1, p2);
        Value::Blob(data[start as usize..(start + n) as usize].to_vec())
    } else {
        let (p1, p2) = substr_start_count(len, p1, p2);
        let mut pos = 0;
        let mut k = p1;
        while pos < data.len() && k > 0 {
            pos = skip_char(data, pos);
            k -= 1;
        }
        let start = pos;
        let mut k = p2;
        while pos < data.len() && k > 0 {
            pos = skip_char(data, pos);
            k -= 1;
        }
        Value::Text(data[start..pos].to_vec())
    }
}

fn unhex(a: &[Value]) -> Value {
    let pass: Vec<u8> = if a.len() == 2 {
        match value_bytes(&a[1]) {
            Some(p) => c_str(&p).to_vec(),
            None => return Value::Null,
        }
    } else {
        Vec::new()
    };
    let Some(h) = value_bytes(&a[0]) else { return Value::Null };
    let h = c_str(&h);
    let pass_has = |c: u32| -> bool {
        let mut p = 0;
        while p < pass.len() {
            if pattern::read_utf8(&pass, &mut p) == c {
                return true;
            }
        }
        false
    };
    let hexval = |c: u8| -> u8 { (c as char).to_digit(16).unwrap_or(0) as u8 };
    let mut out = Vec::with_capacity(h.len() / 2);
    let mut i = 0;
    while i < h.len() {
        if !h[i].is_ascii_hexdigit() {
            let ch = pattern::read_utf8(h, &mut i);
            if !pass_has(ch) {
                return Value::Null;
            }
            continue;
        }
        let hi = h[i];
        let Some(&lo) = h.get(i + 1) else { return Value::Null };
        if !lo.is_ascii_hexdigit() {
            return Value::Null;
        }
        out.push(hexval(hi) << 4 | hexval(lo));
        i += 2;
    }
    Value::Blob(out)
}

fn unicode(v: &Value) -> Value {
    let Some(t) = value_bytes(v) else { return Value::Null };
    if t.first().is_none_or(|&c| c == 0) {
        return Value::Null;
    }
    let mut p = 0;
    Value::Integer(pattern::read_utf8(&t, &mut p) as i64)
}

fn zeroblob(n: &Value) -> Result<Value> {
    let n = value_i64(n).max(0);
    if n > MAX_LENGTH {
        return Err(Error::too_big());
    }
    Ok(Value::zero_blob(n as usize))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c_str_char_count_agrees_with_the_two_pass_count() {
        let samples: [&[u8]; 11] = [
            b"",
            "é".as_bytes(),
            b"a\xffb",
            b"ab\0c",
            b"abcdefg",
            b"abcdefgh",
            b"abcdefghijklmnopqrstuvwxyz0123456789",
            b"abcdefgh\0ijklmnop",
            b"abcdefghij\0kl",
            "abcdefghéèàùabcdefgh".as_bytes(),
            b"abcdefghijklmn\xff\x80\x80op",
        ];
        for s in samples {
            for start in 0..s.len().min(9) {
                let t = &s[start..];
                assert_eq!(c_str_char_count(t), char_count(c_str(t)), "{t:?}");
            }
        }
    }
}
