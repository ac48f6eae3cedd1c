//! A fast hasher for the maps one compilation builds and probes (column
//! sources, aggregate registers, the join planner's memo) and for the
//! function registry: small keys (integers, short names) looked up many
//! times per statement, where SipHash (std's default, built against hash
//! flooding) cost a few percent of a prepare.
//!
//! The keys come from the statement being compiled and the schema; a
//! statement crafted for collisions can only slow down its own
//! compilation. Nothing may depend on the iteration order of these maps
//! (it differs from std's, which is random anyway).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Multiply-rotate hashing of whole words (in the manner of rustc's
/// `FxHasher`).
#[derive(Default, Clone, Copy)]
pub struct FastHasher(u64);

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FastHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FastHasher {
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }

    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut last = [0u8; 8];
            last[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(last));
        }
    }

    #[inline]
    fn write_u8(&mut self, n: u8) {
        self.add(u64::from(n));
    }

    #[inline]
    fn write_u32(&mut self, n: u32) {
        self.add(u64::from(n));
    }

    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    #[inline]
    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    #[inline]
    fn write_i32(&mut self, n: i32) {
        self.add(n as u32 as u64);
    }

    #[inline]
    fn write_i64(&mut self, n: i64) {
        self.add(n as u64);
    }
}

/// A `HashMap` hashed with [`FastHasher`] (made with `default()`).
pub type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FastHasher>>;

#[cfg(test)]
mod tests {
    use super::FastMap;

    #[test]
    fn maps_keys_of_every_length() {
        let mut m: FastMap<String, usize> = FastMap::default();
        let keys: Vec<String> = (0..40).map(|n| "k".repeat(n)).collect();
        for (i, k) in keys.iter().enumerate() {
            m.insert(k.clone(), i);
        }
        for (i, k) in keys.iter().enumerate() {
            assert_eq!(m.get(k.as_str()), Some(&i));
        }
        let mut ints: FastMap<(i32, i64), u8> = FastMap::default();
        ints.insert((3, -1), 1);
        ints.insert((-1, 3), 2);
        assert_eq!(ints.get(&(3, -1)), Some(&1));
        assert_eq!(ints.get(&(-1, 3)), Some(&2));
    }
}
