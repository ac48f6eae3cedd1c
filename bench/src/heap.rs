//! # The bench binary's heap
//!
//! ringlite is timed here with the allocator it ships with: the
//! `libsqlite3.so.0` built from `capi/` makes mimalloc its Rust global
//! allocator (see `capi/src/lib.rs` for why), so this binary does the
//! same. The bundled SQLite keeps allocating through glibc `malloc`, as a
//! system libsqlite3 does.
//!
//! The heap-per-connection workload needs the bytes each engine holds:
//! SQLite's are read from glibc (`mallinfo2`), ringlite's from
//! [`RustHeap`]'s counter. Counting costs an atomic add per allocation, so
//! it is switched on only around that measurement; the timed workloads pay
//! one relaxed load.

use std::alloc::{GlobalAlloc, Layout};
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};

/// mimalloc, plus a live-byte counter that only runs while [`counting`]
/// is on.
pub struct RustHeap;

static COUNTING: AtomicBool = AtomicBool::new(false);
static LIVE: AtomicI64 = AtomicI64::new(0);

#[inline]
fn count(delta: i64) {
    if COUNTING.load(Ordering::Relaxed) {
        LIVE.fetch_add(delta, Ordering::Relaxed);
    }
}

// SAFETY: every call is passed straight to mimalloc with the same
// arguments; the counter never touches the memory.
unsafe impl GlobalAlloc for RustHeap {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = mimalloc::MiMalloc.alloc(layout);
        if !p.is_null() {
            count(layout.size() as i64);
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = mimalloc::MiMalloc.alloc_zeroed(layout);
        if !p.is_null() {
            count(layout.size() as i64);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        mimalloc::MiMalloc.dealloc(ptr, layout);
        count(-(layout.size() as i64));
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = mimalloc::MiMalloc.realloc(ptr, layout, new_size);
        if !p.is_null() {
            count(new_size as i64 - layout.size() as i64);
        }
        p
    }
}

/// Run `f` with the Rust heap counted; returns its result and the growth
/// of the bytes live in the Rust heap across it (frees of older blocks
/// count against it, so this is a net figure).
pub fn counting<T>(f: impl FnOnce() -> T) -> (T, i64) {
    let before = LIVE.load(Ordering::Relaxed);
    COUNTING.store(true, Ordering::Relaxed);
    let out = f();
    COUNTING.store(false, Ordering::Relaxed);
    (out, LIVE.load(Ordering::Relaxed) - before)
}
