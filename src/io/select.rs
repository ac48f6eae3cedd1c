//! # Choosing a backend for a connection
//!
//! Async connections (whose VM returns to the caller when a page is not
//! cached) get the io_uring backend, one ring per thread shared by every
//! async connection of that thread: a thread serving 1,000 tenants polls
//! one ring, and one `io_uring_enter` submits and reaps for all of them.
//!
//! Blocking connections get the `sync` backend: a caller that is going to
//! wait for each read anyway gains nothing from a ring, and `pread` does
//! the work in the one system call instead of a submit plus a wait.
//!
//! If a ring cannot be set up (old kernel: `ENOSYS`; `kernel.io_uring_disabled`
//! or a seccomp filter: `EPERM`; locked memory limits: `ENOMEM`), async
//! connections silently use the `sync` backend: every request then
//! completes at submission and the VM simply never suspends.
//!
//! `RINGLITE_IO=sync` forces the `sync` backend everywhere;
//! `RINGLITE_IO=uring` asks for io_uring for blocking connections too
//! (still falling back to `sync` if no ring can be set up). The variable is
//! read on every call, so tests can flip it. The chosen backend's
//! [`IoBackend::name`] is what `PRAGMA io_backend` reports.
//!
//! `RINGLITE_IO_DELAY=read_us,fsync_us` (benchmarks only; never set by
//! default) wraps the chosen backend in [`DelayBackend`]: every read then
//! takes at least `read_us` microseconds and every sync `fsync_us`, as on
//! far-away storage. Async connections of one thread share one delayed
//! ring, so one poll still serves all of them.
//! `RINGLITE_IO_DELAY=read_us,fsync_us,depth[,fair|fifo]` also limits the
//! delayed requests in service at once per backend (per thread for async
//! connections) to `depth`, the others waiting in a queue served tenant by
//! tenant (`fair`, the default) or in submission order (`fifo`): see
//! [`super::delay`]. A malformed value is ignored.

use super::delay::{DelayBackend, Delays};
use super::sync::SyncBackend;
use super::uring::IoUringBackend;
use super::IoBackend;
use crate::util::ascii::AsciiLower;
use std::cell::RefCell;
use std::sync::Arc;

/// What `RINGLITE_IO` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Forced {
    Sync,
    Uring,
}

fn forced() -> Option<Forced> {
    match std::env::var("RINGLITE_IO").ok()?.ascii_lower().as_str() {
        "sync" => Some(Forced::Sync),
        "uring" | "io_uring" => Some(Forced::Uring),
        _ => None,
    }
}

fn delays() -> Option<Delays> {
    Delays::parse(&std::env::var("RINGLITE_IO_DELAY").ok()?)
}

thread_local! {
    /// This thread's delayed ring (with the delays it was made for), for
    /// async connections under `RINGLITE_IO_DELAY`.
    static THREAD_DELAYED: RefCell<Option<(Delays, Arc<DelayBackend>)>> = const { RefCell::new(None) };
    /// This thread's ring: `None` until first asked for; `Some(None)` once
    /// setup has failed (not retried: the reason is not going away).
    static THREAD_RING: RefCell<Option<Option<Arc<IoUringBackend>>>> = const { RefCell::new(None) };
}

/// The calling thread's io_uring backend, set up on first use; `None` if
/// io_uring is unavailable here.
pub fn thread_uring() -> Option<Arc<IoUringBackend>> {
    THREAD_RING.with(|slot| {
        let mut slot = slot.borrow_mut();
        slot.get_or_insert_with(|| IoUringBackend::new().ok().map(Arc::new)).clone()
    })
}

/// The backend for a new connection on this thread.
pub fn backend_for(async_mode: bool) -> Arc<dyn IoBackend> {
    let Some(d) = delays() else {
        return undelayed_backend_for(async_mode);
    };
    if !async_mode {
        return Arc::new(DelayBackend::new(undelayed_backend_for(false), d));
    }
    THREAD_DELAYED.with(|slot| {
        let mut slot = slot.borrow_mut();
        match &*slot {
            Some((have, b)) if *have == d => b.clone(),
            _ => {
                let b = Arc::new(DelayBackend::new(undelayed_backend_for(true), d));
                *slot = Some((d, b.clone()));
                b
            }
        }
    })
}

fn undelayed_backend_for(async_mode: bool) -> Arc<dyn IoBackend> {
    let want_uring = match forced() {
        Some(Forced::Sync) => false,
        Some(Forced::Uring) => true,
        None => async_mode,
    };
    if want_uring {
        if let Some(ring) = thread_uring() {
            return ring;
        }
    }
    Arc::new(SyncBackend::new())
}
