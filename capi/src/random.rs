//! # `sqlite3_randomness`
//!
//! The process's pseudo-random generator (`ringlite::util::prng`, SQLite's
//! ChaCha20 one) as the C API hands it out, and its seed: 44 bytes from the
//! default VFS's `xRandomness`.

use std::ffi::{c_char, c_int, c_void};

/// Fill the `N` bytes at `P` with pseudo-random bytes from the process's
/// generator (SQLite's ChaCha20 generator, seeded from the default VFS's
/// `xRandomness`); `N` <= 0 or a NULL `P` resets it, so that the next call
/// seeds it again.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_randomness(N: c_int, P: *mut c_void) {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `P` is NULL or valid for what the
    // API does with it (read for the length given, or handed back to callbacks untouched).
    unsafe {
        ffi_guard!((), {
            crate::config::initialize();
            if N <= 0 || P.is_null() {
                ringlite::util::prng::reset();
                return;
            }
            ringlite::util::prng::fill(std::slice::from_raw_parts_mut(P as *mut u8, N as usize));
        })
    }
}

/// The seed of the process's generator: 44 bytes from the default VFS's
/// `xRandomness`, as SQLite seeds its own (a VFS giving fixed bytes makes
/// `random()` repeat SQLite's numbers).
pub fn seed_from_default_vfs(seed: &mut [u8; 44]) {
    let vfs = crate::vfs::find(None);
    // SAFETY: registered VFS objects stay valid while registered (the
    // application's promise); xRandomness writes at most 44 bytes.
    unsafe {
        if let Some(x) = vfs.as_ref().and_then(|v| v.xRandomness) {
            x(vfs, seed.len() as c_int, seed.as_mut_ptr() as *mut c_char);
        }
    }
}
