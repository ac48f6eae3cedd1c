//! # Memory: `sqlite3_malloc` and friends
//!
//! Blocks come from the C allocator with a 16-byte header holding the
//! requested size, so `sqlite3_msize` and `sqlite3_realloc` work and memory
//! in use is counted (`sqlite3_memory_used`, `memory_highwater`). Strings the
//! API hands the caller to free (`errmsg` of exec, `mprintf`, `expanded_sql`)
//! are made here.

use crate::types::{sqlite3_int64, sqlite3_uint64};
use std::ffi::{c_char, c_int, c_void};
use std::sync::atomic::{AtomicI64, Ordering};

const HEADER: usize = 16;
static USED: AtomicI64 = AtomicI64::new(0);
static HIGHWATER: AtomicI64 = AtomicI64::new(0);

fn account(delta: i64) {
    let now = USED.fetch_add(delta, Ordering::Relaxed) + delta;
    HIGHWATER.fetch_max(now, Ordering::Relaxed);
}

/// Allocate `n` bytes (NULL for 0 or on failure).
pub unsafe fn alloc(n: u64) -> *mut c_void {
    // SAFETY: the caller guarantees: no pointer argument: the block from `malloc`, checked for NULL, has room
    // for the header and `n` bytes.
    unsafe {
        if n == 0 || n > (i32::MAX as u64) * 4 {
            return std::ptr::null_mut();
        }
        let p = libc::malloc(n as usize + HEADER) as *mut u8;
        if p.is_null() {
            return std::ptr::null_mut();
        }
        *(p as *mut u64) = n;
        account(n as i64);
        p.add(HEADER) as *mut c_void
    }
}

unsafe fn size_of_block(p: *mut c_void) -> u64 {
    // SAFETY: the caller guarantees: `p` is NULL or valid for what the API does with it (read for the length
    // given, or handed back to callbacks untouched).
    unsafe { *((p as *mut u8).sub(HEADER) as *mut u64) }
}

/// Copy `s` into a new NUL-terminated block.
pub unsafe fn malloc_cstr(s: &[u8]) -> *mut c_char {
    // SAFETY: the caller guarantees: `alloc` returns NULL or `s.len() + 1` writable bytes, checked before the
    // copy.
    unsafe {
        let p = alloc(s.len() as u64 + 1) as *mut u8;
        if !p.is_null() {
            std::ptr::copy_nonoverlapping(s.as_ptr(), p, s.len());
            *p.add(s.len()) = 0;
        }
        p as *mut c_char
    }
}

/// Allocate `n` bytes from the library's allocator (8-byte aligned); NULL when
/// `n` <= 0 or memory runs out. Free with sqlite3_free.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_malloc(n: c_int) -> *mut c_void {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: no pointer argument; `alloc` returns
    // NULL or a fresh block.
    unsafe {
        ffi_guard!(std::ptr::null_mut(), {
            if n <= 0 {
                std::ptr::null_mut()
            } else {
                alloc(n as u64)
            }
        })
    }
}

/// sqlite3_malloc with a 64-bit size.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_malloc64(n: sqlite3_uint64) -> *mut c_void {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: no pointer argument; `alloc` returns
    // NULL or a fresh block.
    unsafe { ffi_guard!(std::ptr::null_mut(), { alloc(n) }) }
}

unsafe fn realloc_impl(p: *mut c_void, n: u64) -> *mut c_void {
    // SAFETY: the caller guarantees: `p` is NULL or valid for what the API does with it (read for the length
    // given, or handed back to callbacks untouched).
    unsafe {
        if p.is_null() {
            return alloc(n);
        }
        if n == 0 {
            sqlite3_free(p);
            return std::ptr::null_mut();
        }
        let old = size_of_block(p);
        let base = (p as *mut u8).sub(HEADER);
        let q = libc::realloc(base as *mut c_void, n as usize + HEADER) as *mut u8;
        if q.is_null() {
            return std::ptr::null_mut();
        }
        *(q as *mut u64) = n;
        account(n as i64 - old as i64);
        q.add(HEADER) as *mut c_void
    }
}

/// Resize the allocation `pOld` to `n` bytes, keeping its contents; NULL `pOld`
/// allocates, `n` <= 0 frees and returns NULL.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_realloc(pOld: *mut c_void, n: c_int) -> *mut c_void {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pOld` is NULL or valid for what the
    // API does with it (read for the length given, or handed back to callbacks untouched).
    unsafe { ffi_guard!(std::ptr::null_mut(), { realloc_impl(pOld, n.max(0) as u64) }) }
}

/// sqlite3_realloc with a 64-bit size.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_realloc64(pOld: *mut c_void, n: sqlite3_uint64) -> *mut c_void {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pOld` is NULL or valid for what the
    // API does with it (read for the length given, or handed back to callbacks untouched).
    unsafe { ffi_guard!(std::ptr::null_mut(), { realloc_impl(pOld, n) }) }
}

/// Free memory from sqlite3_malloc, sqlite3_realloc or any function whose
/// result is documented to be freed this way. NULL is harmless.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_free(p: *mut c_void) {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `p` is NULL or valid for what the
    // API does with it (read for the length given, or handed back to callbacks untouched).
    unsafe {
        ffi_guard!((), {
            if p.is_null() {
                return;
            }
            account(-(size_of_block(p) as i64));
            libc::free((p as *mut u8).sub(HEADER) as *mut c_void);
        })
    }
}

/// The usable size of the allocation `p` (0 for NULL).
#[no_mangle]
pub unsafe extern "C" fn sqlite3_msize(p: *mut c_void) -> sqlite3_uint64 {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `p` is NULL or valid for what the
    // API does with it (read for the length given, or handed back to callbacks untouched).
    unsafe {
        ffi_guard!(0, {
            if p.is_null() {
                0
            } else {
                size_of_block(p)
            }
        })
    }
}

/// The number of bytes currently allocated through sqlite3_malloc.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_memory_used() -> sqlite3_int64 {
    ffi_guard!(0, { USED.load(Ordering::Relaxed) })
}

/// The most bytes sqlite3_malloc has had allocated at once; with `resetFlag`
/// nonzero the mark restarts from the current use.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_memory_highwater(resetFlag: c_int) -> sqlite3_int64 {
    ffi_guard!(0, {
        let hw = HIGHWATER.load(Ordering::Relaxed);
        if resetFlag != 0 {
            HIGHWATER.store(USED.load(Ordering::Relaxed), Ordering::Relaxed);
        }
        hw
    })
}

/// Ask the library to free `n` bytes of caches (a negative `n`: all it
/// can); returns the bytes freed, which may be more or less than `n`.
/// ringlite frees the clean cached pages no statement holds of every open
/// connection, a connection at a time, until `n` bytes are freed, as
/// SQLite built with `SQLITE_ENABLE_MEMORY_MANAGEMENT` frees its page
/// caches' unused pages (SQLite built without it frees nothing). A
/// connection another thread is using at that moment is skipped.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_release_memory(n: c_int) -> c_int {
    ffi_guard!(0, {
        if n == 0 {
            return 0;
        }
        let want = if n < 0 { usize::MAX } else { n as usize };
        let mut freed: usize = 0;
        crate::open_handles::for_each_available(|d| {
            if let Ok(b) = d.with_conn(|c| c.release_memory()) {
                freed = freed.saturating_add(b);
            }
            freed < want
        });
        c_int::try_from(freed).unwrap_or(c_int::MAX)
    })
}

/// Set the advisory heap limit to `N` bytes (a negative `N` only reads it;
/// 0: none). Returns the previous limit. ringlite applies it to the page
/// caches of every connection of the process together (the bulk of what a
/// connection holds; other allocations are not counted): while their pages
/// take more than `N` bytes, a connection that reads a page not cached
/// recycles one of its own clean pages instead of growing its cache (as
/// SQLite's page cache does under memory pressure), keeping at least 10,
/// and keeps no spare page buffers; when its transaction ends it gives back
/// what takes them past `N` and what it holds beyond its share of `N`. So
/// many idle connections fit a fixed budget however large each one's
/// `cache_size`; caches shrink as they are used, not when the limit is set.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_soft_heap_limit64(N: sqlite3_int64) -> sqlite3_int64 {
    ffi_guard!(-1, { ringlite::pager::cache::soft_heap_limit64(N) })
}

/// Set the heap limit to `N` bytes (negative only reads it). Returns the
/// previous limit; ringlite records it without enforcing it (it caps the
/// soft limit, which is lowered to it, as SQLite's is).
#[no_mangle]
pub unsafe extern "C" fn sqlite3_hard_heap_limit64(N: sqlite3_int64) -> sqlite3_int64 {
    ffi_guard!(-1, { ringlite::pager::cache::hard_heap_limit64(N) })
}

/// Deprecated 32-bit form of sqlite3_soft_heap_limit64.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_soft_heap_limit(N: c_int) {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: no pointer argument; forwards to
    // `sqlite3_soft_heap_limit64`.
    unsafe {
        sqlite3_soft_heap_limit64(N as i64);
    }
}

/// Read the library-wide counter `op` (SQLITE_STATUS_*) into `*pCurrent` and
/// its highest value into `*pHighwater`, resetting the latter when
/// `resetFlag` is set. ringlite tracks SQLITE_STATUS_MEMORY_USED; the others
/// read 0. SQLITE_MISUSE for an unknown `op`.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_status64(op: c_int, pCurrent: *mut sqlite3_int64, pHighwater: *mut sqlite3_int64, resetFlag: c_int) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pCurrent` is NULL or a live
    // `sqlite3_int64` this library or SQLite's API contract provides; `pHighwater` is NULL or a live
    // `sqlite3_int64` this library or SQLite's API contract provides.
    unsafe {
        ffi_guard!(crate::consts::SQLITE_INTERNAL, {
            if pCurrent.is_null() || pHighwater.is_null() || !(0..=9).contains(&op) {
                return crate::consts::SQLITE_MISUSE;
            }
            let (cur, hw) = if op == crate::consts::SQLITE_STATUS_MEMORY_USED { (sqlite3_memory_used(), sqlite3_memory_highwater(resetFlag)) } else { (0, 0) };
            *pCurrent = cur;
            *pHighwater = hw;
            crate::consts::SQLITE_OK
        })
    }
}

/// sqlite3_status64 with int counters.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_status(op: c_int, pCurrent: *mut c_int, pHighwater: *mut c_int, resetFlag: c_int) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `pCurrent`, `pHighwater` are NULL or
    // writable.
    unsafe {
        ffi_guard!(crate::consts::SQLITE_INTERNAL, {
            if pCurrent.is_null() || pHighwater.is_null() {
                return crate::consts::SQLITE_MISUSE;
            }
            let (mut c, mut h) = (0i64, 0i64);
            let rc = sqlite3_status64(op, &mut c, &mut h, resetFlag);
            *pCurrent = c as c_int;
            *pHighwater = h as c_int;
            rc
        })
    }
}

/// Call a `bind_*`/`result_*` destructor unless it is STATIC (NULL) or
/// TRANSIENT (-1).
pub unsafe fn release(d: crate::types::sqlite3_destructor_type, p: *mut std::ffi::c_void) {
    // SAFETY: the caller guarantees: `p` is NULL or valid for what the API does with it (read for the length
    // given, or handed back to callbacks untouched); `d`, when set, is safe to call with the arguments the
    // API documents until unregistered.
    unsafe {
        if let Some(f) = d {
            if f as usize != usize::MAX {
                f(p);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_know_their_size_and_keep_content_across_realloc() {
        unsafe {
            let p = sqlite3_malloc(10) as *mut u8;
            assert_eq!(sqlite3_msize(p as *mut c_void), 10);
            *p = 7;
            let q = sqlite3_realloc(p as *mut c_void, 1000) as *mut u8;
            assert_eq!(*q, 7);
            assert_eq!(sqlite3_msize(q as *mut c_void), 1000);
            sqlite3_free(q as *mut c_void);
            assert!(sqlite3_malloc(0).is_null());
            assert!(sqlite3_realloc(std::ptr::null_mut(), 0).is_null());
        }
    }
}
