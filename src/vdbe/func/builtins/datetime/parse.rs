//! Parsing time values: `YYYY-MM-DD[ HH:MM[:SS[.SSS]]][tz]`, `HH:MM[...]`,
//! numbers, `now`; and the fixed-width digit groups the modifiers reuse.
//!
//! Text is read as a C string would be (up to the first NUL). Field ranges
//! are SQLite's: year 0..9999 (optionally negative), month 1..12, day 1..31
//! (normalized later through the Julian day), hour 0..24, minute and
//! second 0..59, time zone `±HH:MM` with HH 0..14, or `Z`.

use super::moment::Moment;
use crate::value::numeric;

fn is_space(c: u8) -> bool {
    numeric::is_space(c)
}

fn at(z: &[u8], i: usize) -> u8 {
    z.get(i).copied().unwrap_or(0)
}

/// One fixed-width digit field: `width` digits in `min..=max`, followed by
/// the separator `next` (0: no separator required).
#[derive(Clone, Copy)]
pub struct Field {
    pub width: usize,
    pub min: i32,
    pub max: i32,
    pub next: u8,
}

pub const fn field(width: usize, min: i32, max: i32, next: u8) -> Field {
    Field { width, min, max, next }
}

/// Read consecutive fields from `z`; each field but the last is followed
/// by its separator. Returns how many fields were read successfully.
pub fn get_digits(z: &[u8], fields: &[Field], out: &mut [i32]) -> usize {
    let mut pos = 0;
    for (k, f) in fields.iter().enumerate() {
        let mut val = 0i32;
        for _ in 0..f.width {
            let c = at(z, pos);
            if !c.is_ascii_digit() {
                return k;
            }
            val = val * 10 + (c - b'0') as i32;
            pos += 1;
        }
        if val < f.min || val > f.max || (f.next != 0 && f.next != at(z, pos)) {
            return k;
        }
        out[k] = val;
        pos += 1;
    }
    fields.len()
}

const YMD: [Field; 3] = [field(4, 0, 14712, b'-'), field(2, 1, 12, b'-'), field(2, 1, 31, 0)];
pub const HM: [Field; 2] = [field(2, 0, 24, b':'), field(2, 0, 59, 0)];
const SEC: [Field; 1] = [field(2, 0, 59, 0)];
const TZ_HM: [Field; 2] = [field(2, 0, 14, b':'), field(2, 0, 59, 0)];

/// `[+-]HH:MM` or `Z` after a time, then only whitespace. Returns false on
/// anything else (but true for an empty remainder).
fn parse_timezone(z: &[u8], p: &mut Moment) -> bool {
    let mut i = 0;
    while is_space(at(z, i)) {
        i += 1;
    }
    p.tz = 0;
    let c = at(z, i);
    let sign;
    if c == b'-' {
        sign = -1;
    } else if c == b'+' {
        sign = 1;
    } else if c == b'Z' || c == b'z' {
        i += 1;
        p.is_local = false;
        p.is_utc = true;
        while is_space(at(z, i)) {
            i += 1;
        }
        return at(z, i) == 0;
    } else {
        return c == 0;
    }
    i += 1;
    let mut v = [0; 2];
    if get_digits(&z[i.min(z.len())..], &TZ_HM, &mut v) != 2 {
        return false;
    }
    i += 5;
    p.tz = sign * (v[1] + v[0] * 60);
    // An explicit offset makes the moment known in UTC.
    p.is_local = false;
    p.is_utc = true;
    while is_space(at(z, i)) {
        i += 1;
    }
    at(z, i) == 0
}

/// `HH:MM[:SS[.FFF]][tz]`.
pub fn parse_hh_mm_ss(z: &[u8], p: &mut Moment) -> bool {
    let mut v = [0; 2];
    if get_digits(z, &HM, &mut v) != 2 {
        return false;
    }
    let (h, m) = (v[0], v[1]);
    let mut i = 5;
    let mut s = 0i32;
    let mut ms = 0.0f64;
    if at(z, i) == b':' {
        i += 1;
        let mut sv = [0; 1];
        if get_digits(&z[i.min(z.len())..], &SEC, &mut sv) != 1 {
            return false;
        }
        s = sv[0];
        i += 2;
        if at(z, i) == b'.' && at(z, i + 1).is_ascii_digit() {
            let mut scale = 1.0f64;
            i += 1;
            while at(z, i).is_ascii_digit() {
                ms = ms * 10.0 + (at(z, i) - b'0') as f64;
                scale *= 10.0;
                i += 1;
            }
            ms /= scale;
            // Truncate rather than round into the next second.
            if ms > 0.999 {
                ms = 0.999;
            }
        }
    }
    if h == 24 && (m != 0 || s != 0 || ms != 0.0) {
        // Only 24:00:00 exactly (the end of the day) is allowed.
        return false;
    }
    p.valid_jd = false;
    p.raw_s = false;
    p.valid_hms = true;
    p.h = h;
    p.mi = m;
    p.s = s as f64 + ms;
    if !parse_timezone(&z[i.min(z.len())..], p) {
        return false;
    }
    p.valid_tz = p.tz != 0;
    true
}

/// `[-]YYYY-MM-DD` optionally followed (after spaces or `T`) by a time.
fn parse_yyyy_mm_dd(z: &[u8], p: &mut Moment) -> bool {
    let (neg, z) = if at(z, 0) == b'-' { (true, &z[1..]) } else { (false, z) };
    let mut v = [0; 3];
    if get_digits(z, &YMD, &mut v) != 3 {
        return false;
    }
    let mut i = 10;
    while is_space(at(z, i)) || at(z, i) == b'T' {
        i += 1;
    }
    let rest = &z[i.min(z.len())..];
    if parse_hh_mm_ss(rest, p) {
        // got the time too
    } else if at(z, i) == 0 {
        p.valid_hms = false;
    } else {
        return false;
    }
    p.valid_jd = false;
    p.valid_ymd = true;
    p.y = if neg { -v[0] } else { v[0] };
    p.mo = v[1];
    p.d = v[2];
    p.compute_floor();
    if p.valid_tz || (p.valid_hms && p.h >= 24) {
        // Zone offsets and 24:00 are resolved at once, through the
        // Julian day; the date no longer overflows its month.
        p.compute_jd();
        p.n_floor = 0;
    }
    true
}

/// What a text time value turned out to be.
pub enum Parsed {
    Ok,
    /// `now`: the caller supplies the statement time.
    Now,
    /// `subsec`/`subsecond` as the time value: now, with milliseconds.
    NowSubsec,
    Invalid,
}

/// Parse a text time value into `p`.
pub fn parse_time_value(z: &[u8], p: &mut Moment) -> Parsed {
    let z = crate::vdbe::func::builtins::core::c_str(z);
    if parse_yyyy_mm_dd(z, p) || parse_hh_mm_ss(z, p) {
        return Parsed::Ok;
    }
    if z.eq_ignore_ascii_case(b"now") {
        return Parsed::Now;
    }
    let (r, parse) = numeric::text_to_f64(z);
    if parse.is_number() {
        p.set_raw_number(r);
        return Parsed::Ok;
    }
    if z.eq_ignore_ascii_case(b"subsec") || z.eq_ignore_ascii_case(b"subsecond") {
        return Parsed::NowSubsec;
    }
    Parsed::Invalid
}
