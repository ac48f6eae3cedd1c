//! Text to number and number to text, as SQLite does them.
//!
//! Owns: the text→real parser ([`text_to_f64`], SQLite's `AtoF` rules), the
//! text→integer parser ([`text_to_i64`], `Atoi64` rules with overflow
//! classes), NUMERIC conversion of text, the five `CAST` conversions, the
//! REAL→text rendering ([`format_real`]) and SQL arithmetic with SQLite's
//! overflow rules ([`arith`]).
//!
//! Invariants worth knowing:
//! - Text is bytes; a NUL byte ends the text for the real-number parser
//!   (SQLite parses a NUL-terminated copy) but counts as ordinary trailing
//!   text for the integer parser (which SQLite runs on the full length).
//! - Only about the first 19 significant digits of a decimal text take part
//!   in the conversion to double (SQLite's parser keeps a u64 mantissa);
//!   within that the result is the correctly rounded double.
//! - No function here panics, whatever the input bytes.

use super::fpdecode::{decimal_to_f64, format_generic_17};
use super::{Value, ValueRef};

/// What [`text_to_f64`] found in the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NumParse {
    /// SQLite's parse-state bits: 1 = a digit was seen, 2 = decimal point or
    /// exponent present (not integer-looking), 4 = the value is exactly
    /// zero, 8 = more significant digits than a u64 holds.
    pub state: u8,
    /// The whole text (ignoring surrounding whitespace) was consumed.
    pub whole: bool,
}

impl NumParse {
    /// Some prefix of the text is a number (`state != 0`).
    pub fn has_prefix(&self) -> bool {
        self.state != 0
    }
    /// The whole text, ignoring surrounding whitespace, is a number.
    pub fn is_number(&self) -> bool {
        self.state != 0 && self.whole
    }
    /// No decimal point and no exponent (the text looks like an integer).
    pub fn looks_integer(&self) -> bool {
        self.state & 2 == 0
    }
    /// SQLite's integer return code for `AtoF`: positive when the whole text
    /// is a number, negative when only a prefix is, zero when none is.
    pub fn rc(&self) -> i32 {
        if self.state == 0 {
            0
        } else if self.whole {
            i32::from(self.state)
        } else {
            (0xffff_fff0_u32 as i32) | i32::from(self.state)
        }
    }
}

/// SQLite's whitespace for numeric parsing: space, \t, \n, \v, \f, \r.
#[inline]
pub fn is_space(c: u8) -> bool {
    c == b' ' || (0x09..=0x0d).contains(&c)
}

/// The text up to (not including) its first NUL byte.
fn c_str(t: &[u8]) -> &[u8] {
    match t.iter().position(|&c| c == 0) {
        Some(p) => &t[..p],
        None => t,
    }
}

/// Parses the longest numeric prefix of `text` like SQLite's `AtoF`:
/// `[space][+-]digits[.digits][(e|E)[+-]digits][space]`, also `.digits`
/// and `digits.`. Returns the value (0.0 when there is none) and what was
/// found.
pub fn text_to_f64(text: &[u8]) -> (f64, NumParse) {
    let z = c_str(text);
    let mut i = 0;
    while i < z.len() && is_space(z[i]) {
        i += 1;
    }
    let at = |k: usize| -> u8 { z.get(k).copied().unwrap_or(0) };
    let mut neg = false;
    if at(i) == b'-' {
        neg = true;
        i += 1;
    } else if at(i) == b'+' {
        i += 1;
    }
    let mut s: u64 = 0;
    let mut d: i32 = 0;
    let mut state: u8 = 0;
    const LIMIT: u64 = (u64::MAX - 9) / 10;
    if at(i).is_ascii_digit() {
        state = 1;
        while at(i).is_ascii_digit() {
            s = s * 10 + u64::from(at(i) - b'0');
            i += 1;
            if s >= LIMIT {
                // Further integer digits only scale the value.
                state = 9;
                while at(i).is_ascii_digit() {
                    i += 1;
                    d = d.saturating_add(1);
                }
                break;
            }
        }
    }
    if at(i) == b'.' {
        i += 1;
        if at(i).is_ascii_digit() {
            state |= 1;
            while at(i).is_ascii_digit() {
                if s < LIMIT {
                    s = s * 10 + u64::from(at(i) - b'0');
                    d -= 1;
                } else {
                    state = 11;
                }
                i += 1;
            }
        } else if state == 0 {
            return (0.0, NumParse { state: 0, whole: false });
        }
        state |= 2;
    } else if state == 0 {
        return (0.0, NumParse { state: 0, whole: false });
    }
    if at(i) == b'e' || at(i) == b'E' {
        let mut j = i + 1;
        let mut esign = 1;
        if at(j) == b'-' {
            esign = -1;
            j += 1;
        } else if at(j) == b'+' {
            j += 1;
        }
        if at(j).is_ascii_digit() {
            let mut exp: i32 = 0;
            while at(j).is_ascii_digit() {
                exp = if exp < 10000 { exp * 10 + i32::from(at(j) - b'0') } else { 10000 };
                j += 1;
            }
            state |= 2;
            d = d.saturating_add(esign * exp);
            i = j;
        }
    }
    let mut r = if s == 0 {
        state |= 4;
        0.0
    } else {
        decimal_to_f64(s, d)
    };
    if neg {
        r = -r;
    }
    while i < z.len() && is_space(z[i]) {
        i += 1;
    }
    (r, NumParse { state, whole: i >= z.len() })
}

/// How [`text_to_i64`] ended, SQLite's `Atoi64` result classes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntParse {
    /// The whole text (ignoring surrounding spaces) is an in-range integer.
    Exact,
    /// Digits were followed by other text; the value is the prefix's.
    TrailingText,
    /// No digits at all; the value is 0.
    NoDigits,
    /// Too large in magnitude; the value is clamped to i64::MIN/MAX.
    Overflow,
    /// Exactly 9223372036854775808 without a minus sign (fits only when
    /// negated, as in `-9223372036854775808`); the value is i64::MAX.
    TwoPow63,
}

impl IntParse {
    /// SQLite's numeric return code: 0, 1, -1, 2 or 3.
    pub fn rc(self) -> i32 {
        match self {
            IntParse::Exact => 0,
            IntParse::TrailingText => 1,
            IntParse::NoDigits => -1,
            IntParse::Overflow => 2,
            IntParse::TwoPow63 => 3,
        }
    }
}

/// Parses a decimal integer prefix like SQLite's `Atoi64`: leading
/// whitespace, optional sign, digits. The value is the prefix's (clamped on
/// overflow); the class says how the text ended.
pub fn text_to_i64(text: &[u8]) -> (i64, IntParse) {
    // Unlike the real parser, this one honours the length: a NUL byte is
    // just a non-space character here, as in SQLite.
    let z = text;
    let mut i = 0;
    while i < z.len() && is_space(z[i]) {
        i += 1;
    }
    let mut neg = false;
    if i < z.len() && z[i] == b'-' {
        neg = true;
        i += 1;
    } else if i < z.len() && z[i] == b'+' {
        i += 1;
    }
    let start = i;
    while i < z.len() && z[i] == b'0' {
        i += 1;
    }
    let first = i;
    let mut u: u64 = 0;
    while i < z.len() && z[i].is_ascii_digit() {
        u = u.wrapping_mul(10).wrapping_add(u64::from(z[i] - b'0'));
        i += 1;
    }
    let ndigits = i - first;
    let mut value = if u > i64::MAX as u64 {
        if neg {
            i64::MIN
        } else {
            i64::MAX
        }
    } else if neg {
        -(u as i64)
    } else {
        u as i64
    };
    let mut class = IntParse::Exact;
    if ndigits == 0 && start == first {
        class = IntParse::NoDigits;
    } else if z[i..].iter().any(|&c| !is_space(c)) {
        class = IntParse::TrailingText;
    }
    if ndigits < 19 {
        return (value, class);
    }
    let cmp = if ndigits > 19 { std::cmp::Ordering::Greater } else { z[first..i].cmp(b"9223372036854775808") };
    match cmp {
        std::cmp::Ordering::Less => (value, class),
        std::cmp::Ordering::Greater => {
            value = if neg { i64::MIN } else { i64::MAX };
            (value, IntParse::Overflow)
        }
        std::cmp::Ordering::Equal => {
            if neg {
                (i64::MIN, class)
            } else {
                (i64::MAX, IntParse::TwoPow63)
            }
        }
    }
}

/// SQLite's `RealToI64`: truncation toward zero, saturating at the largest
/// doubles below ±2^63.
pub fn real_to_i64(r: f64) -> i64 {
    if r < -9223372036854774784.0 {
        i64::MIN
    } else if r > 9223372036854774784.0 {
        i64::MAX
    } else {
        r as i64
    }
}

/// Whether the double `r` and the integer `i` (obtained from it) are the
/// same number and `i` is small enough (|i| < 2^51) that the integer form
/// loses nothing: SQLite's `RealSameAsInt`.
pub fn real_same_as_int(r: f64, i: i64) -> bool {
    r == 0.0 || (r.to_bits() == (i as f64).to_bits() && (-2251799813685248..2251799813685248).contains(&i))
}

/// SQLite's `applyNumericAffinity`: the number a text denotes when the
/// whole text (ignoring surrounding whitespace) is well-formed. Integer
/// looking text that fits becomes INTEGER; other numbers become REAL, and
/// with `try_for_int` a whole REAL in range becomes INTEGER too (column
/// affinity does that; comparisons and `sqlite3_value_numeric_type` do
/// not).
pub fn text_to_number(text: &[u8], try_for_int: bool) -> Option<Value> {
    let (r, parse) = text_to_f64(text);
    if !parse.is_number() {
        return None;
    }
    if parse.looks_integer() {
        let i = real_to_i64(r);
        if real_same_as_int(r, i) {
            return Some(Value::Integer(i));
        }
        let (i, class) = text_to_i64(text);
        if class == IntParse::Exact {
            return Some(Value::Integer(i));
        }
    }
    if try_for_int {
        if let Some(i) = real_to_integer_if_exact(r) {
            return Some(Value::Integer(i));
        }
    }
    Some(Value::Real(r))
}

/// The NUMERIC form of a text, when the whole text (ignoring surrounding
/// whitespace) is a well-formed number: INTEGER when it is integer-valued
/// and fits, else REAL. `None` when the text is not a number. This is the
/// text branch of NUMERIC/INTEGER/REAL column affinity.
pub fn text_to_numeric(text: &[u8]) -> Option<Value> {
    text_to_number(text, true)
}

/// The integer `v` is as a rowid (SQLite's `MustBeInt`): an integer, a
/// real with no fraction, or a text that is one of those as a number;
/// `None` for anything else (a fraction, a non-numeric text, a blob,
/// NULL), which callers report as "datatype mismatch".
pub fn must_be_int(v: &Value) -> Option<i64> {
    match v {
        Value::Integer(i) => Some(*i),
        Value::Real(r) if r.fract() == 0.0 && r.abs() < 9.2e18 => Some(*r as i64),
        Value::Text(t) => match text_to_numeric(t) {
            Some(Value::Integer(i)) => Some(i),
            Some(Value::Real(r)) if r.fract() == 0.0 && r.abs() < 9.2e18 => Some(r as i64),
            _ => None,
        },
        _ => None,
    }
}

/// SQLite's `IntegerAffinity` test: the integer equal to `r`, when `r` is a
/// whole number strictly between i64::MIN and i64::MAX.
pub fn real_to_integer_if_exact(r: f64) -> Option<i64> {
    let ix = real_to_i64(r);
    if r == ix as f64 && ix > i64::MIN && ix < i64::MAX {
        Some(ix)
    } else {
        None
    }
}

/// The integer value of any value, as SQLite's `IntValue` computes it:
/// NULL is 0, REAL truncates (saturating), TEXT/BLOB use the integer
/// prefix of the text.
pub fn value_to_i64(v: ValueRef<'_>) -> i64 {
    match v {
        ValueRef::Null => 0,
        ValueRef::Integer(i) => i,
        ValueRef::Real(r) => real_to_i64(r),
        ValueRef::Text(t) | ValueRef::Blob(t) => text_to_i64(t).0,
    }
}

/// The real value of any value (`RealValue`): NULL is 0.0, TEXT/BLOB use
/// the numeric prefix.
pub fn value_to_f64(v: ValueRef<'_>) -> f64 {
    match v {
        ValueRef::Null => 0.0,
        ValueRef::Integer(i) => i as f64,
        ValueRef::Real(r) => r,
        ValueRef::Text(t) | ValueRef::Blob(t) => text_to_f64(t).0,
    }
}

/// The numeric value of a value used as an arithmetic operand or given to
/// `CAST(x AS NUMERIC)`: INTEGER when the text is an integer (or an
/// integer-valued real within ±2^51), else REAL. NULL stays NULL.
pub fn value_to_numeric(v: ValueRef<'_>) -> Value {
    match v {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(i) => Value::Integer(i),
        ValueRef::Real(r) => Value::Real(r),
        ValueRef::Text(t) | ValueRef::Blob(t) => {
            let (r, parse) = text_to_f64(t);
            if parse.looks_integer() {
                let (ix, class) = text_to_i64(t);
                if matches!(class, IntParse::Exact | IntParse::TrailingText | IntParse::NoDigits) {
                    return Value::Integer(ix);
                }
            }
            let ix = real_to_i64(r);
            if real_same_as_int(r, ix) {
                Value::Integer(ix)
            } else {
                Value::Real(r)
            }
        }
    }
}

/// The numeric type of an arithmetic operand (SQLite's `numericType`):
/// INTEGER or REAL; NULL stays NULL.
pub fn arith_operand(v: ValueRef<'_>) -> Value {
    match v {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(i) => Value::Integer(i),
        ValueRef::Real(r) => Value::Real(r),
        ValueRef::Text(t) | ValueRef::Blob(t) => {
            let (r, parse) = text_to_f64(t);
            let (ix, class) = text_to_i64(t);
            let int_ok = if parse.is_number() { parse.looks_integer() && class == IntParse::Exact } else { parse.looks_integer() && class.rc() <= 1 };
            if int_ok {
                Value::Integer(ix)
            } else {
                Value::Real(r)
            }
        }
    }
}

/// `CAST(text AS INTEGER)`: the longest prefix that reads as an integer
/// (after leading spaces and a sign; `'1e2'` is 1), saturating at the
/// 64-bit limits, 0 when there is none.
pub fn integer_prefix(t: &[u8]) -> i64 {
    let mut i = 0;
    while i < t.len() && matches!(t[i], b' ' | b'\t' | b'\n' | b'\r' | b'\x0c') {
        i += 1;
    }
    let negative = t.get(i) == Some(&b'-');
    if matches!(t.get(i), Some(b'-') | Some(b'+')) {
        i += 1;
    }
    let mut magnitude: u128 = 0;
    while let Some(d) = t.get(i).filter(|c| c.is_ascii_digit()) {
        magnitude = (magnitude * 10 + (d - b'0') as u128).min(1 << 64);
        i += 1;
    }
    if negative {
        if magnitude >= 1 << 63 {
            i64::MIN
        } else {
            -(magnitude as i64)
        }
    } else if magnitude > i64::MAX as u128 {
        i64::MAX
    } else {
        magnitude as i64
    }
}

/// A value used as a condition (WHERE, CASE WHEN, NOT, AND/OR): `None` for
/// NULL, else whether it is non-zero; text and blobs count by their numeric
/// prefix as a REAL (`'0.5'` is true, `'abc'` is false).
pub fn truthiness(v: ValueRef<'_>) -> Option<bool> {
    match v {
        ValueRef::Null => None,
        ValueRef::Integer(i) => Some(i != 0),
        other => Some(value_to_f64(other) != 0.0),
    }
}

/// `CAST(v AS INTEGER)`.
pub fn cast_to_integer(v: ValueRef<'_>) -> Value {
    match v {
        ValueRef::Null => Value::Null,
        other => Value::Integer(value_to_i64(other)),
    }
}

/// `CAST(v AS REAL)`.
pub fn cast_to_real(v: ValueRef<'_>) -> Value {
    match v {
        ValueRef::Null => Value::Null,
        other => Value::Real(value_to_f64(other)),
    }
}

/// `CAST(v AS NUMERIC)`.
pub fn cast_to_numeric(v: ValueRef<'_>) -> Value {
    value_to_numeric(v)
}

/// `CAST(v AS TEXT)`: the text bytes, `None` for NULL. A blob's bytes are
/// read as text of the database encoding (see [`super::encoding`]).
pub fn cast_to_text(v: ValueRef<'_>) -> Option<Vec<u8>> {
    match v {
        ValueRef::Null => None,
        ValueRef::Integer(i) => Some(i.to_string().into_bytes()),
        ValueRef::Real(r) => Some(format_real(r).into_bytes()),
        ValueRef::Text(t) => Some(t.to_vec()),
        ValueRef::Blob(t) => Some(super::encoding::db_bytes_to_text(t, super::encoding::current()).into_owned()),
    }
}

/// `CAST(v AS BLOB)`: the bytes of the text form as the database stores
/// it, `None` for NULL.
pub fn cast_to_blob(v: ValueRef<'_>) -> Option<Vec<u8>> {
    match v {
        ValueRef::Blob(b) => Some(b.to_vec()),
        other => {
            let t = cast_to_text(other)?;
            match super::encoding::current() {
                super::encoding::TextEncoding::Utf8 => Some(t),
                enc => Some(super::encoding::utf8_to_utf16(&t, enc)),
            }
        }
    }
}

/// A REAL rendered as text exactly as SQLite renders it (column text,
/// `CAST(x AS TEXT)`, TEXT affinity): `%!.17g` with up to 17 significant
/// digits, trimmed to the shortest of those forms that reads back as the
/// same double, always with a decimal point or exponent (`1.0`, `1.0e+20`),
/// `Inf`/`-Inf` for infinities.
pub fn format_real(r: f64) -> String {
    format_generic_17(r)
}

/// The arithmetic operators of SQL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArithOp {
    /// `+`
    Add,
    /// `-`
    Subtract,
    /// `*`
    Multiply,
    /// `/`
    Divide,
    /// `%`
    Remainder,
}

/// `a op b` with SQLite's rules: NULL operands give NULL; two integers use
/// integer arithmetic, switching to REAL on overflow (and for
/// `i64::MIN / -1`); division or remainder by zero gives NULL; `%` on reals
/// takes the integer parts; a NaN result gives NULL.
pub fn arith(op: ArithOp, a: ValueRef<'_>, b: ValueRef<'_>) -> Value {
    let (na, nb) = (arith_operand(a), arith_operand(b));
    if na.is_null() || nb.is_null() {
        return Value::Null;
    }
    if let (Value::Integer(x), Value::Integer(y)) = (&na, &nb) {
        let (x, y) = (*x, *y);
        let int_result = match op {
            ArithOp::Add => x.checked_add(y),
            ArithOp::Subtract => x.checked_sub(y),
            ArithOp::Multiply => x.checked_mul(y),
            ArithOp::Divide => {
                if y == 0 {
                    return Value::Null;
                }
                x.checked_div(y)
            }
            ArithOp::Remainder => {
                if y == 0 {
                    return Value::Null;
                }
                Some(x % if y == -1 { 1 } else { y })
            }
        };
        if let Some(r) = int_result {
            return Value::Integer(r);
        }
    }
    // The real operands come from the original values (text "-0" is -0.0
    // here even though its numeric type is INTEGER 0).
    let x = value_to_f64(a);
    let y = value_to_f64(b);
    let r = match op {
        ArithOp::Add => x + y,
        ArithOp::Subtract => x - y,
        ArithOp::Multiply => x * y,
        ArithOp::Divide => {
            if y == 0.0 {
                return Value::Null;
            }
            x / y
        }
        ArithOp::Remainder => {
            let ia = value_to_i64(a);
            let ib = value_to_i64(b);
            if ib == 0 {
                return Value::Null;
            }
            (ia % if ib == -1 { 1 } else { ib }) as f64
        }
    };
    if r.is_nan() {
        Value::Null
    } else {
        Value::Real(r)
    }
}
