//! # The process's pseudo-random generator
//!
//! One generator for the whole process, as SQLite keeps one behind
//! `sqlite3_randomness`: `random()`, `randomblob()`, the random rowids of a
//! full table, the rollback journal's checksum seed and FTS5's per-
//! connection draw all take their bytes from it, in the order they ask.
//! It is SQLite's: RFC 7539's ChaCha20 block function over a state whose
//! key, counter and nonce words come from 44 seed bytes, with the bytes of
//! each 64-byte block handed out from its end. So a seed source giving
//! SQLite's seed (an application VFS's `xRandomness`, which the C API
//! installs as the source, as SQLite asks the default VFS) gives SQLite's
//! numbers.
//!
//! Invariant: seeded on the first draw and on the first draw after
//! [`reset`], so no block comes from an unseeded state (checked:
//! prng_seeded). The state is only touched under its mutex (a `static`
//! `Mutex`, the only way to it).

use std::sync::Mutex;

/// Where the 44 seed bytes come from; `None`: the system's
/// `/dev/urandom`.
pub type Seeder = fn(&mut [u8; 44]);

struct Prng {
    /// The ChaCha20 input block; word 0 is 0 until seeded.
    state: [u32; 16],
    /// The last block produced, whose first `left` bytes are unused.
    out: [u8; 64],
    left: usize,
}

static PRNG: Mutex<Prng> = Mutex::new(Prng { state: [0; 16], out: [0; 64], left: 0 });
static SEEDER: Mutex<Option<Seeder>> = Mutex::new(None);

/// ChaCha20's "expand 32-byte k".
const CONSTANTS: [u32; 4] = [0x6170_7865, 0x3320_646e, 0x7962_2d32, 0x6b20_6574];

fn quarter(x: &mut [u32; 16], a: usize, b: usize, c: usize, d: usize) {
    x[a] = x[a].wrapping_add(x[b]);
    x[d] = (x[d] ^ x[a]).rotate_left(16);
    x[c] = x[c].wrapping_add(x[d]);
    x[b] = (x[b] ^ x[c]).rotate_left(12);
    x[a] = x[a].wrapping_add(x[b]);
    x[d] = (x[d] ^ x[a]).rotate_left(8);
    x[c] = x[c].wrapping_add(x[d]);
    x[b] = (x[b] ^ x[c]).rotate_left(7);
}

fn block(input: &[u32; 16]) -> [u8; 64] {
    let mut x = *input;
    for _ in 0..10 {
        quarter(&mut x, 0, 4, 8, 12);
        quarter(&mut x, 1, 5, 9, 13);
        quarter(&mut x, 2, 6, 10, 14);
        quarter(&mut x, 3, 7, 11, 15);
        quarter(&mut x, 0, 5, 10, 15);
        quarter(&mut x, 1, 6, 11, 12);
        quarter(&mut x, 2, 7, 8, 13);
        quarter(&mut x, 3, 4, 9, 14);
    }
    let mut out = [0u8; 64];
    for i in 0..16 {
        out[4 * i..4 * i + 4].copy_from_slice(&x[i].wrapping_add(input[i]).to_le_bytes());
    }
    out
}

fn system_seed(seed: &mut [u8; 44]) {
    use std::io::Read;
    if let Ok(mut f) = std::fs::File::open("/dev/urandom") {
        if f.read_exact(seed).is_ok() {
            return;
        }
    }
    // No /dev/urandom: the process's hash keys and the clock.
    use std::hash::{BuildHasher, Hasher};
    for chunk in seed.chunks_mut(8) {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0));
        let v = h.finish().to_le_bytes();
        chunk.copy_from_slice(&v[..chunk.len()]);
    }
}

/// Install where seeds come from (the C API: the default VFS's
/// `xRandomness`). Takes effect at the next seeding.
pub fn set_seeder(seeder: Seeder) {
    *SEEDER.lock().unwrap_or_else(|p| p.into_inner()) = Some(seeder);
}

/// Forget the state: the next draw seeds again (`sqlite3_randomness(0,
/// NULL)`).
pub fn reset() {
    PRNG.lock().unwrap_or_else(|p| p.into_inner()).state[0] = 0;
}

/// Fill `buf` with the generator's next bytes.
pub fn fill(buf: &mut [u8]) {
    if buf.is_empty() {
        return;
    }
    let mut p = PRNG.lock().unwrap_or_else(|e| e.into_inner());
    if p.state[0] == 0 {
        let mut seed = [0u8; 44];
        let seeder = *SEEDER.lock().unwrap_or_else(|e| e.into_inner());
        seeder.unwrap_or(system_seed)(&mut seed);
        p.state[..4].copy_from_slice(&CONSTANTS);
        for (i, w) in seed.chunks(4).enumerate() {
            p.state[4 + i] = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
        }
        // The block counter starts at 0; the seed's word that would have
        // been the counter becomes the last nonce word.
        p.state[15] = p.state[12];
        p.state[12] = 0;
        p.left = 0;
    }
    let mut pos = 0;
    loop {
        let want = buf.len() - pos;
        if want <= p.left {
            let end = p.left;
            buf[pos..].copy_from_slice(&p.out[end - want..end]);
            p.left -= want;
            return;
        }
        let n = p.left;
        buf[pos..pos + n].copy_from_slice(&p.out[..n]);
        pos += n;
        p.state[12] = p.state[12].wrapping_add(1);
        // invariant: prng_seeded
        debug_assert!(p.state[..4] == CONSTANTS, "a block drawn from an unseeded generator");
        p.out = block(&p.state);
        p.left = 64;
    }
}

/// A random `u32` from [`fill`].
pub fn next_u32() -> u32 {
    let mut b = [0u8; 4];
    fill(&mut b);
    u32::from_le_bytes(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc7539_block() {
        // RFC 7539 2.3.2: the state after 20 rounds and the addition
        // (first word 0xe4e7f110, last 0x4e3c50a2), serialized.
        let mut s = [0u32; 16];
        s[..4].copy_from_slice(&CONSTANTS);
        for i in 0..8 {
            s[4 + i] = u32::from_le_bytes([4 * i as u8, 4 * i as u8 + 1, 4 * i as u8 + 2, 4 * i as u8 + 3]);
        }
        s[12] = 1;
        s[13] = 0x0900_0000;
        s[14] = 0x4a00_0000;
        s[15] = 0;
        let out = block(&s);
        assert_eq!(&out[..4], &[0x10, 0xf1, 0xe7, 0xe4]);
        assert_eq!(&out[60..], &[0xa2, 0x50, 0x3c, 0x4e]);
    }
}
