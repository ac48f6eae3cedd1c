//! Powers of ten as 64-bit (and 96-bit) binary mantissas, and the 128-bit
//! multiplications SQLite's float↔decimal conversions are built on.
//!
//! Owns [`power_of_ten`]: for p in -348..=347, the 64 most significant bits
//! of 10^p (top bit set) plus the next 32 bits, computed the way SQLite
//! computes them — exact for 0 ≤ p ≤ 26, a table entry for multiples of 27,
//! and otherwise one table entry times an exact small power, truncated. The
//! table is computed once from exact big-integer arithmetic (not copied),
//! rounded to 96 bits; unit tests pin entries against known values.
//!
//! Invariant: results are bit-identical to SQLite's, because the float to
//! decimal digits of `%g` and REAL→text depend on these exact bits
//! (checked: pow10_bit_identical), as entries of SQLite's table show.

use std::sync::OnceLock;

/// Smallest supported exponent.
pub const FIRST: i32 = -348;
/// Largest supported exponent.
pub const LAST: i32 = 347;

/// floor(log2(10^p)) as SQLite estimates it.
pub fn pwr10to2(p: i32) -> i32 {
    (p * 108853) >> 15
}

/// floor(log10(2^e)) as SQLite estimates it.
pub fn pwr2to10(e: i32) -> i32 {
    (e * 78913) >> 18
}

/// High 64 bits of the 128-bit product.
pub fn mul_hi(a: u64, b: u64) -> u64 {
    ((u128::from(a) * u128::from(b)) >> 64) as u64
}

/// The 96-bit number `(a << 32) | a_lo` times `b`, as SQLite forms it:
/// the low 32 bits of `a_lo * b` are dropped before adding. Returns the top
/// 64 bits and the next 32.
fn mul160(a: u64, a_lo: u32, b: u64) -> (u64, u32) {
    let r = u128::from(a) * u128::from(b) + ((u128::from(a_lo) * u128::from(b)) >> 32);
    ((r >> 64) as u64, (r >> 32) as u32)
}

/// 10^p exactly for p in 0..=26, shifted so the top bit is set.
fn base(p: i32) -> u64 {
    let v = 10u128.pow(p as u32);
    let shift = v.leading_zeros() as i32 - 64;
    if shift >= 0 {
        (v << shift) as u64
    } else {
        (v >> -shift) as u64
    }
}

/// Little-endian u32-limb natural numbers: just enough for 10^347 and for
/// the long division giving 10^-348.
#[derive(Clone)]
struct Big(Vec<u32>);

impl Big {
    fn pow10(n: u32) -> Big {
        let mut v = Big(vec![1]);
        for _ in 0..n {
            let mut carry = 0u64;
            for limb in v.0.iter_mut() {
                let t = u64::from(*limb) * 10 + carry;
                *limb = t as u32;
                carry = t >> 32;
            }
            if carry > 0 {
                v.0.push(carry as u32);
            }
        }
        v
    }
    fn bits(&self) -> u32 {
        let top = self.0.len() - 1;
        top as u32 * 32 + (32 - self.0[top].leading_zeros())
    }
    fn bit(&self, i: u32) -> bool {
        self.0.get((i / 32) as usize).is_some_and(|l| l >> (i % 32) & 1 == 1)
    }
    /// Bits `lo .. lo+128` as a u128.
    fn window(&self, lo: u32) -> u128 {
        let mut v = 0u128;
        for k in (0..128).rev() {
            v = (v << 1) | u128::from(self.bit(lo + k));
        }
        v
    }
    fn any_below(&self, n: u32) -> bool {
        (0..n).any(|i| self.bit(i))
    }
    fn ge(&self, o: &Big) -> bool {
        let n = self.0.len().max(o.0.len());
        for i in (0..n).rev() {
            let (a, b) = (self.0.get(i).copied().unwrap_or(0), o.0.get(i).copied().unwrap_or(0));
            if a != b {
                return a > b;
            }
        }
        true
    }
    fn sub(&mut self, o: &Big) {
        let mut borrow = 0i64;
        for i in 0..self.0.len() {
            let t = i64::from(self.0[i]) - i64::from(o.0.get(i).copied().unwrap_or(0)) - borrow;
            borrow = i64::from(t < 0);
            self.0[i] = (t + (borrow << 32)) as u32;
        }
    }
    fn shl1(&mut self) {
        let mut carry = 0;
        for limb in self.0.iter_mut() {
            let nc = *limb >> 31;
            *limb = (*limb << 1) | carry;
            carry = nc;
        }
        if carry > 0 {
            self.0.push(carry);
        }
    }
}

/// The top 96 bits of 10^p, rounded to nearest: (high 64, next 32).
fn top96(p: i32) -> (u64, u32) {
    // Get a window of at least 97 significant bits plus a sticky flag.
    let (mut w, sticky) = if p >= 0 {
        let v = Big::pow10(p as u32);
        let bits = v.bits();
        if bits <= 128 {
            (v.window(0) << (128 - bits), false)
        } else {
            (v.window(bits - 128), v.any_below(bits - 128))
        }
    } else {
        // floor(2^k / 10^-p) by binary long division, k chosen so that the
        // quotient has 128 bits.
        let d = Big::pow10((-p) as u32);
        let k = d.bits() + 127;
        let mut rem = Big(vec![0]);
        let mut q = 0u128;
        for i in (0..=k).rev() {
            rem.shl1();
            if i == k {
                rem.0[0] |= 1;
            }
            q <<= 1;
            if rem.ge(&d) {
                rem.sub(&d);
                q |= 1;
            }
        }
        (q, rem.0.iter().any(|&l| l != 0))
    };
    w <<= w.leading_zeros();
    let top = w >> 32;
    let rest = w as u32;
    let half = 1u32 << 31;
    let up = rest > half || (rest == half && (sticky || top & 1 == 1));
    let top = top + u128::from(up);
    ((top >> 32) as u64, top as u32)
}

fn scale_table() -> &'static [(u64, u32); 26] {
    static TABLE: OnceLock<[(u64, u32); 26]> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = [(0u64, 0u32); 26];
        for (i, e) in t.iter_mut().enumerate() {
            *e = top96(27 * (i as i32 - 13));
        }
        // Entry 13 stands for 10^-1 (10^0 is never looked up there) and is
        // truncated rather than rounded, as in SQLite.
        t[13] = (0xcccc_cccc_cccc_cccc, 0xcccc_cccc);
        t
    })
}

/// The 64 most significant bits of 10^p and the 32 after them, as SQLite's
/// `powerOfTen` returns them. `p` must be within FIRST..=LAST.
pub fn power_of_ten(p: i32) -> (u64, u32) {
    let table = scale_table();
    if p < 0 {
        if p == -1 {
            return table[13];
        }
        let mut g = p / 27;
        let mut n = p % 27;
        if n != 0 {
            g -= 1;
            n += 27;
        }
        return scaled(table, g, n);
    }
    if p < 27 {
        return (base(p), 0);
    }
    scaled(table, p / 27, p % 27)
}

fn scaled(table: &[(u64, u32); 26], g: i32, n: i32) -> (u64, u32) {
    let (s, s_lo) = table[(g + 13) as usize];
    if n == 0 {
        return (s, s_lo);
    }
    let (mut x, mut lo) = mul160(s, s_lo, base(n));
    if x >> 63 == 0 {
        x = (x << 1) | u64::from(lo >> 31);
        lo = (lo << 1) | 1;
    }
    (x, lo)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_matches_known_entries() {
        // Entries of SQLite's scale table, as published (facts about 10^p).
        let t = scale_table();
        // invariant: pow10_bit_identical
        assert_eq!(t[0], (0x8049a4ac0c5811ae, 0x205b896d));
        assert_eq!(t[1], (0xcf42894a5dce35ea, 0x52064cad));
        assert_eq!(t[12], (0x9e74d1b791e07e48, 0x775ea265));
        assert_eq!(t[14].0, 0xcecb8f27f4200f3a);
        assert_eq!(t[25].0, 0x9e19db92b4e31ba9);
        assert_eq!(t[24].0, 0xc3b8358109e84f07);
        assert_eq!(base(26), 0xa56fa5b99019a5c8);
        assert_eq!(base(19), 0x8ac7230489e80000);
    }
}
