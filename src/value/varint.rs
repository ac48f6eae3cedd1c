//! SQLite's variable-length integer ("varint", `fileformat2.txt` §1.6).
//!
//! A varint is 1 to 9 bytes, big-endian. Each of the first eight bytes
//! contributes its low 7 bits and uses its high bit as "more follows"; a
//! ninth byte, if reached, contributes all 8 bits. Values are `u64`; record
//! headers and cell headers reinterpret them as `i64` where the format says
//! so (rowids).
//!
//! Invariant: `write_varint` always produces the shortest encoding, which is
//! the one SQLite writes, so `varint_len(v)` is the number of bytes written
//! (checked: varint_round_trip).

/// Decodes a varint at the start of `buf`: the value and the number of
/// bytes it occupies, or `None` if `buf` ends before the varint does.
#[inline]
pub fn read_varint(buf: &[u8]) -> Option<(u64, usize)> {
    let mut v: u64 = 0;
    for i in 0..8 {
        let b = *buf.get(i)?;
        v = (v << 7) | u64::from(b & 0x7f);
        if b & 0x80 == 0 {
            return Some((v, i + 1));
        }
    }
    let b = *buf.get(8)?;
    Some(((v << 8) | u64::from(b), 9))
}

/// Number of bytes `write_varint` uses for `v`.
#[inline]
pub fn varint_len(v: u64) -> usize {
    if v >> 56 != 0 {
        return 9;
    }
    // Bits needed, in groups of seven; zero still takes one byte.
    let bits = 64 - (v | 1).leading_zeros() as usize;
    bits.div_ceil(7)
}

/// Appends the varint encoding of `v` to `out`; returns the bytes written.
pub fn write_varint(out: &mut Vec<u8>, v: u64) -> usize {
    // (Most varints written, FTS5's positions and record headers, are
    // one byte.)
    if v < 0x80 {
        out.push(v as u8);
        return 1;
    }
    let mut tmp = [0u8; 9];
    let n = put_varint(&mut tmp, v);
    // invariant: varint_round_trip
    debug_assert!(n == varint_len(v) && read_varint(&tmp[..n]) == Some((v, n)), "varint of {v} does not read back in {n} bytes");
    out.extend_from_slice(&tmp[..n]);
    n
}

/// Writes the varint encoding of `v` at the start of `buf` (which must hold
/// at least `varint_len(v)` bytes, 9 always suffice); returns its length.
pub fn put_varint(buf: &mut [u8], v: u64) -> usize {
    if v >> 56 != 0 {
        // Nine bytes: eight 7-bit groups carry the high 56 bits, the last
        // byte carries the low 8 bits whole.
        buf[8] = v as u8;
        let mut rest = v >> 8;
        for i in (0..8).rev() {
            buf[i] = (rest as u8 & 0x7f) | 0x80;
            rest >>= 7;
        }
        return 9;
    }
    let n = varint_len(v);
    let mut rest = v;
    for i in (0..n).rev() {
        let more = if i == n - 1 { 0 } else { 0x80 };
        buf[i] = (rest as u8 & 0x7f) | more;
        rest >>= 7;
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn known_encodings() {
        let cases: &[(u64, &[u8])] = &[
            (0, &[0]),
            (0x7f, &[0x7f]),
            (0x80, &[0x81, 0x00]),
            (0x3fff, &[0xff, 0x7f]),
            (0x4000, &[0x81, 0x80, 0x00]),
            (u64::MAX, &[0xff; 9]),
            (0x00ff_ffff_ffff_ffff, &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f]),
            (0x0100_0000_0000_0000, &[0x80, 0xc0, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00]),
        ];
        for &(v, bytes) in cases {
            let mut out = Vec::new();
            assert_eq!(write_varint(&mut out, v), bytes.len(), "{v:#x}");
            assert_eq!(out, bytes, "{v:#x}");
            assert_eq!(read_varint(bytes), Some((v, bytes.len())));
        }
    }

    #[test]
    fn truncated_is_none() {
        assert_eq!(read_varint(&[]), None);
        assert_eq!(read_varint(&[0x81]), None);
        assert_eq!(read_varint(&[0xff; 8]), None);
    }

    proptest! {
        #[test]
        fn round_trip(v in any::<u64>(), shift in 0u32..64) {
            let v = v >> shift;
            let mut out = Vec::new();
            let n = write_varint(&mut out, v);
            prop_assert_eq!(n, varint_len(v));
            prop_assert_eq!(read_varint(&out), Some((v, n)));
        }
    }
}
