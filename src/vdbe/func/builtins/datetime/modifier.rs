//! The modifiers that follow a time value, applied left to right:
//! `±NNN days|hours|minutes|seconds|months|years`, `±HH:MM[:SS[.FFF]]`,
//! `±YYYY-MM-DD[ HH:MM[:SS]]`, `start of month|year|day`, `weekday N`,
//! `unixepoch`, `julianday`, `auto`, `localtime`, `utc`, `subsec`,
//! `ceiling`, `floor`.
//!
//! Month and year arithmetic works on the calendar date and lets the day
//! overflow its month; the overflow is normalized through the Julian day
//! (2001-03-31 + 1 month = 2001-05-01) unless `floor` follows, which backs
//! off to the month's last day. `unixepoch`, `julianday` and `auto` are
//! only valid right after a numeric time value.

use super::localtime;
use super::moment::{Moment, DAY_MS, UNIX_EPOCH_JD_MS};
use super::parse::{field, get_digits, parse_hh_mm_ss, HM};
use crate::value::numeric;

/// Why a modifier could not be applied.
pub enum ModError {
    /// Not a valid modifier here: the function returns NULL.
    Invalid,
    /// The local time zone is unknown: an SQL error.
    LocalTime,
}

/// Units of `±NNN unit` with their size in seconds and the largest
/// magnitude accepted (beyond it the result would leave the valid range).
const UNITS: [(&str, f64, f64); 6] = [
    ("second", 4.6427e14, 1.0),
    ("minute", 7.7379e12, 60.0),
    ("hour", 1.2897e11, 3600.0),
    ("day", 5_373_485.0, 86_400.0),
    ("month", 176_546.0, 2_592_000.0),
    ("year", 14_713.0, 31_536_000.0),
];

fn at(z: &[u8], i: usize) -> u8 {
    z.get(i).copied().unwrap_or(0)
}

/// Convert `p` (UTC) to local time.
fn to_localtime(p: &mut Moment) -> Result<(), ModError> {
    p.compute_jd();
    // Outside 1970..2038 use an equivalent year inside it, as SQLite does.
    let (t, year_diff) = if p.jd < 210_866_760_000_000 || p.jd > 213_014_145_600_000 {
        let mut x = *p;
        x.compute_ymd_hms();
        let diff = (2000 + x.y % 4) - x.y;
        x.y += diff;
        x.valid_jd = false;
        x.compute_jd();
        (x.jd / 1000 - UNIX_EPOCH_JD_MS / 1000, diff)
    } else {
        (p.jd / 1000 - UNIX_EPOCH_JD_MS / 1000, 0)
    };
    let off = localtime::utc_offset(t).map_err(|_| ModError::LocalTime)?;
    let mut local = Moment { jd: (t + off) * 1000 + UNIX_EPOCH_JD_MS, valid_jd: true, ..Moment::default() };
    local.compute_ymd_hms();
    p.y = local.y - year_diff;
    p.mo = local.mo;
    p.d = local.d;
    p.h = local.h;
    p.mi = local.mi;
    p.s = local.s.trunc() + (p.jd % 1000) as f64 * 0.001;
    p.valid_ymd = true;
    p.valid_hms = true;
    p.valid_jd = false;
    p.raw_s = false;
    p.valid_tz = false;
    p.is_error = false;
    Ok(())
}

fn normalize_month(p: &mut Moment) {
    let x = if p.mo > 0 { (p.mo - 1) / 12 } else { (p.mo - 12) / 12 };
    p.y += x;
    p.mo -= x * 12;
}

/// Apply modifier `z` (the `idx`-th argument after the time value, from 1).
pub fn apply(z: &[u8], p: &mut Moment, idx: usize) -> Result<(), ModError> {
    let z = crate::vdbe::func::builtins::core::c_str(z);
    let lower = z.to_ascii_lowercase();
    let name = lower.as_slice();
    let ok = match at(name, 0) {
        b'a' if name == b"auto" => {
            if idx > 1 {
                return Err(ModError::Invalid);
            }
            if !p.raw_s || p.valid_jd {
                p.raw_s = false;
                true
            } else if p.s >= -210_866_760_000.0 && p.s <= 253_402_300_799.0 {
                let r = p.s * 1000.0 + UNIX_EPOCH_JD_MS as f64;
                p.clear_ymd_hms_tz();
                p.jd = (r + 0.5) as i64;
                p.valid_jd = true;
                p.raw_s = false;
                true
            } else {
                false
            }
        }
        b'c' if name == b"ceiling" => {
            p.compute_jd();
            p.clear_ymd_hms_tz();
            p.n_floor = 0;
            true
        }
        b'f' if name == b"floor" => {
            p.compute_jd();
            p.jd -= p.n_floor as i64 * DAY_MS;
            p.clear_ymd_hms_tz();
            true
        }
        b'j' if name == b"julianday" => {
            if idx > 1 {
                return Err(ModError::Invalid);
            }
            if p.valid_jd && p.raw_s {
                p.raw_s = false;
                true
            } else {
                false
            }
        }
        b'l' if name == b"localtime" => {
            if !p.is_local {
                to_localtime(p)?;
            }
            p.is_utc = false;
            p.is_local = true;
            true
        }
        b'u' if name == b"unixepoch" => {
            if !p.raw_s {
                false
            } else {
                if idx > 1 {
                    return Err(ModError::Invalid);
                }
                let r = p.s * 1000.0 + UNIX_EPOCH_JD_MS as f64;
                if (0.0..464_269_060_800_000.0).contains(&r) {
                    p.clear_ymd_hms_tz();
                    p.jd = (r + 0.5) as i64;
                    p.valid_jd = true;
                    p.raw_s = false;
                    true
                } else {
                    false
                }
            }
        }
        b'u' if name == b"utc" => {
            if !p.is_utc {
                utc_from_local(p)?;
            }
            true
        }
        b'w' if name.starts_with(b"weekday ") => weekday(&z[8..], p),
        b's' if name.starts_with(b"start of ") => start_of(&name[9..], p),
        b's' if name == b"subsec" || name == b"subsecond" => {
            p.use_subsec = true;
            true
        }
        b'+' | b'-' | b'0'..=b'9' => arithmetic(z, p),
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(ModError::Invalid)
    }
}

/// `utc`: find the UTC moment whose local time is `p`, by iteration.
fn utc_from_local(p: &mut Moment) -> Result<(), ModError> {
    p.compute_jd();
    let orig = p.jd;
    let mut guess = orig;
    let mut err = 0i64;
    let mut count = 0;
    loop {
        guess -= err;
        let mut probe = Moment { jd: guess, valid_jd: true, ..Moment::default() };
        to_localtime(&mut probe)?;
        probe.compute_jd();
        err = probe.jd - orig;
        if err == 0 || count >= 3 {
            break;
        }
        count += 1;
    }
    *p = Moment { jd: guess, valid_jd: true, is_utc: true, ..Moment::default() };
    Ok(())
}

/// `weekday N`: forward to the next day (or today) that is weekday N;
/// `weekday -N` (a minus sign, even on zero): back to the previous such
/// day (or today).
fn weekday(arg: &[u8], p: &mut Moment) -> bool {
    let (r, parse) = numeric::text_to_f64(arg);
    let backward = arg.iter().find(|c| !numeric::is_space(**c)) == Some(&b'-');
    let r = if backward { -r } else { r };
    if !parse.is_number() || !(0.0..7.0).contains(&r) || r.fract() != 0.0 {
        return false;
    }
    let n = r as i64;
    p.compute_ymd_hms();
    p.tz = 0;
    p.valid_jd = false;
    p.compute_jd();
    let mut z = ((p.jd + 129_600_000) / DAY_MS) % 7;
    if backward {
        if z < n {
            z += 7;
        }
        p.jd -= (z - n) * DAY_MS;
    } else {
        if z > n {
            z -= 7;
        }
        p.jd += (n - z) * DAY_MS;
    }
    p.clear_ymd_hms_tz();
    true
}

fn start_of(unit: &[u8], p: &mut Moment) -> bool {
    if !p.valid_jd && !p.valid_ymd && !p.valid_hms {
        return false;
    }
    p.compute_ymd();
    p.valid_hms = true;
    p.h = 0;
    p.mi = 0;
    p.s = 0.0;
    p.raw_s = false;
    p.tz = 0;
    p.valid_jd = false;
    match unit {
        b"month" => {
            p.d = 1;
            true
        }
        b"year" => {
            p.mo = 1;
            p.d = 1;
            true
        }
        b"day" => true,
        _ => false,
    }
}

/// The numeric modifiers: `±NNN unit`, `±HH:MM[:SS.FFF]`,
/// `±YYYY-MM-DD[ HH:MM[:SS.FFF]]`.
fn arithmetic(z: &[u8], p: &mut Moment) -> bool {
    let sign_char = z[0];
    // Length of the leading number: up to ':' or whitespace, or a '-' that
    // ends a 4- or 5-digit year.
    let mut n = 1;
    while n < z.len() {
        let c = z[n];
        if c == b':' || numeric::is_space(c) {
            break;
        }
        if c == b'-' {
            let mut y = [0; 1];
            if n == 5 && get_digits(&z[1..], &[field(4, 0, 14712, 0)], &mut y) == 1 {
                break;
            }
            if n == 6 && get_digits(&z[1..], &[field(5, 0, 14712, 0)], &mut y) == 1 {
                break;
            }
        }
        n += 1;
    }
    let (r, parse) = numeric::text_to_f64(&z[..n]);
    if !parse.is_number() {
        return false;
    }
    let mut time_part: &[u8] = z;
    let mut time_len = n;
    if at(z, n) == b'-' {
        // ±YYYY-MM-DD: add or subtract years, months (0..11), days (0..30).
        if sign_char != b'+' && sign_char != b'-' {
            return false;
        }
        let mut v = [0; 3];
        let width = n - 1;
        let fields = [field(width, 0, 14712, b'-'), field(2, 0, 12, b'-'), field(2, 0, 31, 0)];
        if get_digits(&z[1..], &fields, &mut v) != 3 {
            return false;
        }
        let z = if width == 5 { &z[1..] } else { z };
        let (y, m, mut d) = (v[0], v[1], v[2]);
        if m >= 12 || d >= 31 {
            return false;
        }
        p.compute_ymd_hms();
        p.valid_jd = false;
        if sign_char == b'-' {
            p.y -= y;
            p.mo -= m;
            d = -d;
        } else {
            p.y += y;
            p.mo += m;
        }
        normalize_month(p);
        p.compute_floor();
        p.compute_jd();
        p.valid_hms = false;
        p.valid_ymd = false;
        p.jd += d as i64 * DAY_MS;
        if at(z, 11) == 0 {
            return true;
        }
        let mut hm = [0; 2];
        if numeric::is_space(at(z, 11)) && z.len() > 12 && get_digits(&z[12..], &HM, &mut hm) == 2 {
            time_part = &z[12..];
            time_len = 2;
        } else {
            return false;
        }
    }
    if at(time_part, time_len) == b':' {
        // ±HH:MM[:SS[.FFF]]: add or subtract a time of day.
        let t = if time_part[0].is_ascii_digit() { time_part } else { &time_part[1..] };
        let mut tx = Moment::default();
        if !parse_hh_mm_ss(t, &mut tx) {
            return false;
        }
        tx.compute_jd();
        tx.jd -= 43_200_000;
        let day = tx.jd / DAY_MS;
        tx.jd -= day * DAY_MS;
        if sign_char == b'-' {
            tx.jd = -tx.jd;
        }
        p.compute_jd();
        p.clear_ymd_hms_tz();
        p.jd += tx.jd;
        return true;
    }
    // ±NNN unit
    let mut rest = &z[n..];
    while !rest.is_empty() && numeric::is_space(rest[0]) {
        rest = &rest[1..];
    }
    let mut len = rest.len();
    if !(3..=10).contains(&len) {
        return false;
    }
    if rest[len - 1].eq_ignore_ascii_case(&b's') {
        len -= 1;
    }
    let unit = &rest[..len];
    p.compute_jd();
    let rounder = if r < 0.0 { -0.5 } else { 0.5 };
    p.n_floor = 0;
    let mut ok = false;
    let mut r = r;
    for (i, &(uname, limit, secs)) in UNITS.iter().enumerate() {
        if unit.eq_ignore_ascii_case(uname.as_bytes()) && r > -limit && r < limit {
            if i == 4 {
                p.compute_ymd_hms();
                p.mo += r as i32;
                normalize_month(p);
                p.compute_floor();
                p.valid_jd = false;
                r -= (r as i32) as f64;
            } else if i == 5 {
                p.compute_ymd_hms();
                p.y += r as i32;
                p.compute_floor();
                p.valid_jd = false;
                r -= (r as i32) as f64;
            }
            p.compute_jd();
            p.jd += (r * 1000.0 * secs + rounder) as i64;
            ok = true;
            break;
        }
    }
    p.clear_ymd_hms_tz();
    ok
}
