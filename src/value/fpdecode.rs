//! Decimal digits of a double, the way SQLite's printf obtains them, and
//! the correctly rounded double of a decimal ([`decimal_to_f64`], which
//! text-to-number parsing and the shortening below both use).
//!
//! Owns [`FpDecode`]: a positive double becomes a string of significant
//! digits `z` and a decimal-point position `dp` (value = 0.z × 10^dp),
//! rounded as SQLite's `%e/%f/%g` and REAL→text rendering round:
//!
//! 1. SQLite first scales the value to an integer of `n` digits where
//!    `n = iround + 1` (at most 18); with `n = 18` that scaling rounds half
//!    up, otherwise it truncates. The digit count of that integer follows
//!    from SQLite's estimate of the decimal exponent from the binary one, so
//!    it is reproduced here from the same estimate.
//! 2. The digit string is then rounded half-up at the requested position
//!    (significant digits, or digits after the point for `%f`), never
//!    keeping more than `max_digits` (16, or 20 with the `!` flag).
//! 3. At exactly 17 digits (`%!.17g`, which REAL→text uses) the result is
//!    shortened when a shorter digit string reads back as the same double.
//!
//! Step 1 uses SQLite's own fixed-point arithmetic (see [`super::pow10`]),
//! not an exact expansion: its last digit can differ from the exact one,
//! and matching SQLite's text byte for byte requires the same digit.

use super::pow10::{mul_hi, power_of_ten, pwr10to2, pwr2to10};

/// The decoded form of a double.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FpDecode {
    /// The value was negative (not for -0.0).
    pub negative: bool,
    /// `Some(false)` for ±infinity, `Some(true)` for NaN.
    pub special: Option<bool>,
    /// Significant digits, ASCII, no trailing zeros; "0" for zero.
    pub digits: Vec<u8>,
    /// Position of the decimal point relative to the first digit.
    pub dp: i32,
}

/// Decodes `r` rounded to `iround` significant digits (when positive) or to
/// `-iround` digits after the decimal point (when zero or negative), never
/// more than `max_digits` significant digits.
pub fn fp_decode(r: f64, iround: i32, max_digits: i32) -> FpDecode {
    let mut r = r;
    let mut out = FpDecode { negative: false, special: None, digits: b"0".to_vec(), dp: 1 };
    if r < 0.0 {
        out.negative = true;
        r = -r;
    } else if r == 0.0 {
        return out;
    }
    if r.is_infinite() || r.is_nan() {
        out.special = Some(r.is_nan());
        out.digits.clear();
        out.dp = 0;
        return out;
    }
    // Binary exponent of the mantissa normalised to 64 bits.
    let bits = r.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let frac = bits & 0x000f_ffff_ffff_ffff;
    let e = if biased == 0 { -1074 - frac.leading_zeros() as i32 } else { biased - 1086 };
    let n = if iround <= 0 || iround >= 18 { 18 } else { iround + 1 };
    let m = if biased == 0 { frac << frac.leading_zeros() } else { (frac << 11) | (1 << 63) };
    // D ≈ r × 10^p, an integer of about n digits, computed as SQLite does:
    // the high half of m × (10^p as a 64-bit mantissa), shifted down;
    // rounded half-up for 18 digits, truncated otherwise.
    let p = n - 1 - pwr2to10(e + 63);
    let h = mul_hi(m, power_of_ten(p).0);
    let shift = -(e + pwr10to2(p) + 1);
    let big_d = if n == 18 {
        let h = h >> (shift - 1).clamp(0, 63);
        (h >> 1) + (h & 1)
    } else {
        h >> shift.clamp(0, 63)
    };
    let mut z: Vec<u8> = big_d.max(1).to_string().into_bytes();
    let mut dp = z.len() as i32 - p;
    let mut iround = iround;
    if iround <= 0 {
        iround = dp - iround;
        if iround == 0 && z[0] >= b'5' {
            iround = 1;
            z.insert(0, b'0');
            dp += 1;
        }
    }
    let nz = z.len() as i32;
    if iround > 0 && (iround < nz || nz > max_digits) {
        if iround > max_digits {
            iround = max_digits;
        }
        if iround == 17 {
            iround = shorten_17(&z, dp, r).unwrap_or(iround);
        }
        let keep = iround as usize;
        let up = z.get(keep).is_some_and(|&c| c >= b'5');
        z.truncate(keep);
        if up && round_up(&mut z) {
            dp += 1;
        }
    }
    while z.len() > 1 && z.last() == Some(&b'0') {
        z.pop();
    }
    out.digits = z;
    out.dp = dp;
    out
}

/// Adds one unit in the last place of the digit string; returns true when
/// the carry produced a new leading digit (the string grew by one).
fn round_up(z: &mut Vec<u8>) -> bool {
    for j in (0..z.len()).rev() {
        if z[j] < b'9' {
            z[j] += 1;
            return false;
        }
        z[j] = b'0';
    }
    z.insert(0, b'1');
    true
}

/// The 17-digit case: when the 15th and 16th digits are 9s (or, for whole
/// numbers and runs of trailing zeros, 0s), a shorter digit string may
/// denote the same double; returns the shorter rounding position if so.
fn shorten_17(z: &[u8], dp: i32, r: f64) -> Option<i32> {
    if z.len() < 17 {
        return None;
    }
    let n = z.len() as i32;
    let to_int = |d: &[u8]| d.iter().fold(0u64, |a, &c| a * 10 + u64::from(c - b'0'));
    // The digit string z denotes int(z) × 10^(dp - n).
    let scale = dp - n;
    if z[15] == b'9' && z[14] == b'9' {
        let mut jj = 14;
        while jj > 0 && z[jj - 1] == b'9' {
            jj -= 1;
        }
        let v2 = if jj == 0 { 1 } else { to_int(&z[..jj]) + 1 };
        if r == decimal_to_f64(v2, scale + n - jj as i32) {
            return Some(jj as i32 + 1);
        }
    } else if dp >= n || (z[15] == b'0' && z[14] == b'0' && z[13] == b'0') {
        let mut jj = 13;
        while jj > 0 && z[jj - 1] == b'0' {
            jj -= 1;
        }
        let v2 = to_int(&z[..jj]);
        if r == decimal_to_f64(v2, scale + n - jj as i32) {
            return Some(jj as i32 + 1);
        }
    }
    None
}

/// `%!.17g`: SQLite's REAL→text rendering.
pub fn format_generic_17(r: f64) -> String {
    let d = fp_decode(r, 17, 20);
    if let Some(nan) = d.special {
        return if nan {
            "NaN".into()
        } else if d.negative {
            "-Inf".into()
        } else {
            "Inf".into()
        };
    }
    let mut s = String::with_capacity(24);
    if d.negative {
        s.push('-');
    }
    let exp = d.dp - 1;
    let digits = &d.digits;
    if !(-4..=16).contains(&exp) {
        s.push(digits[0] as char);
        s.push('.');
        if digits.len() > 1 {
            s.extend(digits[1..].iter().map(|&c| c as char));
        } else {
            s.push('0');
        }
        s.push_str(&exp_suffix(b'e', exp));
    } else if exp < 0 {
        s.push_str("0.");
        for _ in 0..(-exp - 1) {
            s.push('0');
        }
        s.extend(digits.iter().map(|&c| c as char));
    } else {
        let int_len = (exp + 1) as usize;
        for i in 0..int_len {
            s.push(digits.get(i).map_or('0', |&c| c as char));
        }
        s.push('.');
        if digits.len() > int_len {
            s.extend(digits[int_len..].iter().map(|&c| c as char));
        } else {
            s.push('0');
        }
    }
    s
}

/// `e+NN` / `e-NNN`: sign always, at least two exponent digits.
pub fn exp_suffix(letter: u8, exp: i32) -> String {
    let (sign, a) = if exp < 0 { ('-', -exp) } else { ('+', exp) };
    format!("{}{}{:02}", letter as char, sign, a)
}

/// `d * 10^p`, correctly rounded to the nearest double.
pub(crate) fn decimal_to_f64(d: u64, p: i32) -> f64 {
    if d == 0 {
        return 0.0;
    }
    // Exact operands and one IEEE operation: correctly rounded (Clinger's
    // fast path), the common case for SQL literals.
    const EXACT_POW10: [f64; 23] =
        [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22];
    if d < (1 << 53) && (-22..=22).contains(&p) {
        let m = d as f64;
        return if p >= 0 { m * EXACT_POW10[p as usize] } else { m / EXACT_POW10[(-p) as usize] };
    }
    // Otherwise Rust's parser, which is correctly rounded, as SQLite's
    // power-of-ten conversion is for a 64-bit mantissa.
    if p < -400 {
        return 0.0;
    }
    if p > 400 {
        return f64::INFINITY;
    }
    format!("{d}e{p}").parse::<f64>().unwrap_or(0.0)
}
