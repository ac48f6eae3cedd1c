//! # `sqlite3_randomness`
//!
//! Bytes from the kernel's random source (`getrandom`), which the unix VFS
//! objects also hand out for `xRandomness`.

use std::ffi::{c_int, c_void};

/// Fill the `N` bytes at `P` with pseudo-random bytes.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_randomness(N: c_int, P: *mut c_void) {
    ffi_guard!((), {
        if N <= 0 || P.is_null() {
            return;
        }
        let buf = std::slice::from_raw_parts_mut(P as *mut u8, N as usize);
        let mut filled = 0;
        while filled < buf.len() {
            let r = libc::getrandom(buf[filled..].as_mut_ptr() as *mut c_void, buf.len() - filled, 0);
            if r <= 0 {
                break;
            }
            filled += r as usize;
        }
    })
}
