//! # FTS varints
//!
//! The FTS3/4 integer encoding (fts3.txt §9.2): seven bits per byte, least
//! significant group first, the high bit set on every byte but the last.
//! A 64-bit value takes one to ten bytes; negative values always ten.
//!
//! Invariant: [`get`] never reads past the slice and reports a truncated varint
//! as `None` (a corrupt node) (checked: fts3_varint_bounds), so callers turn it
//! into `SQLITE_CORRUPT_VTAB` instead of panicking; an oversized one (a tenth
//! byte with its high bit set) ends there, as SQLite reads it.

/// Append `v` to `out`.
pub fn put(out: &mut Vec<u8>, v: i64) {
    let mut u = v as u64;
    loop {
        let b = (u & 0x7f) as u8;
        u >>= 7;
        if u == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

/// The number of bytes [`put`] writes for `v`.
pub fn len(v: i64) -> usize {
    let mut u = v as u64;
    let mut n = 1;
    while u >= 0x80 {
        u >>= 7;
        n += 1;
    }
    n
}

/// Read a varint at `*pos`, advancing it.
pub fn get(buf: &[u8], pos: &mut usize) -> Option<i64> {
    let mut v: u64 = 0;
    let mut shift = 0u32;
    loop {
        let b = *buf.get(*pos)?;
        *pos += 1;
        if shift < 64 {
            v |= u64::from(b & 0x7f) << shift;
        }
        if b & 0x80 == 0 {
            return Some(v as i64);
        }
        shift += 7;
        // SQLite's reader stops after ten bytes whatever the tenth says
        // (an oversized varint is read, not refused).
        if shift >= 70 {
            return Some(v as i64);
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn documented_examples() {
        for (v, bytes) in [(43i64, vec![0x2b]), (200815, vec![0xef, 0xa0, 0x0c]), (-1, vec![0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01])] {
            let mut out = Vec::new();
            super::put(&mut out, v);
            assert_eq!(out, bytes);
            assert_eq!(super::len(v), bytes.len());
            let mut p = 0;
            assert_eq!(super::get(&out, &mut p), Some(v));
        }
    }

    #[test]
    fn oversized_varint_ends_after_ten_bytes() {
        let buf = [0xffu8; 12];
        let mut p = 0;
        assert_eq!(super::get(&buf, &mut p), Some(-1));
        assert_eq!(p, 10);
        // invariant: fts3_varint_bounds
        assert_eq!(super::get(&buf[..5], &mut 0), None);
    }
}
