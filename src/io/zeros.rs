//! # A read-only region of zero bytes
//!
//! A zero-blob value (`zeroblob(N)`, `sqlite3_bind_zeroblob`, SQLite's
//! `MEM_Zero`) is N zero bytes that nobody stored: code that reads it as a
//! byte slice borrows it from this one mapping. The region is an anonymous
//! private `PROT_READ` mapping with `MAP_NORESERVE`: the kernel backs every
//! page read from it with its shared zero page, so reading a gigabyte of
//! it adds nothing to the resident set or the commit charge.
//!
//! The region is mapped at most once per process (a `OnceLock`) and never
//! unmapped (the slices it hands out are `'static`); it is mapped
//! `PROT_READ`, so never writable.
#![allow(unsafe_code, reason = "maps the read-only zero page with `libc::mmap` and lends it as a `'static` slice")]

use std::sync::OnceLock;

/// The region's size: the largest value SQLite allows (the compile-time
/// `SQLITE_MAX_LENGTH`, 1e9) fits.
pub const ZERO_REGION_LEN: usize = 1 << 30;

struct Region(&'static [u8]);

static REGION: OnceLock<Option<Region>> = OnceLock::new();

fn map_region() -> Option<Region> {
    // SAFETY: a fresh anonymous mapping, checked for failure; it is never
    // unmapped, and PROT_READ makes the shared `'static` slice sound.
    unsafe {
        let p = libc::mmap(std::ptr::null_mut(), ZERO_REGION_LEN, libc::PROT_READ, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE, -1, 0);
        if p == libc::MAP_FAILED {
            return None;
        }
        Some(Region(std::slice::from_raw_parts(p as *const u8, ZERO_REGION_LEN)))
    }
}

/// `n` zero bytes borrowed from the region; `None` when `n` is larger
/// than the region or it could not be mapped (the caller then allocates).
#[inline(never)]
pub fn zeros(n: usize) -> Option<&'static [u8]> {
    /// Small requests never need the mapping.
    static SMALL: [u8; 4096] = [0; 4096];
    if n <= SMALL.len() {
        return Some(&SMALL[..n]);
    }
    if n > ZERO_REGION_LEN {
        return None;
    }
    REGION.get_or_init(map_region).as_ref().map(|r| &r.0[..n])
}

#[cfg(test)]
mod tests {
    #[test]
    fn zero_region_reads_zeros() {
        for n in [0, 1, 4096, 4097, 10 << 20] {
            let z = super::zeros(n).expect("region");
            assert_eq!(z.len(), n);
            assert!(z.iter().step_by(997).all(|&b| b == 0));
        }
        assert!(super::zeros(super::ZERO_REGION_LEN + 1).is_none());
    }
}
