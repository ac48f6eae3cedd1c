//! # Per-connection completion counters
//!
//! An async statement that returned `SQLITE_IO` is stepped again by its
//! caller's scheduler after every poll, usually before its own request has
//! completed; re-running the VM down to the pager just to find the
//! completion still pending was the biggest cost left on a thread serving
//! many connections. So each async connection owns an [`IoNotify`]:
//! completions created while one of its statements runs (the thread-local
//! set by [`IoNotify::enter`]) count as in flight on it and bump its
//! completed count when they finish. A statement that returned `SQLITE_IO`
//! remembers the count it started at, and the next `step` answers
//! `SQLITE_IO` at once while the count has not moved and something is
//! still in flight.
//!
//! Invariants: `in_flight` counts the attached completions neither
//! finished nor dropped (a completion dropped unfinished counts as
//! finished, so nobody waits for it); `completed` only grows, and grows
//! whenever `in_flight` shrinks. A waiting statement is therefore never
//! skipped forever: either one of the connection's requests finishes
//! (the count moves) or none is in flight (the guard lets it run).

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

/// The completion counters of one connection.
#[derive(Debug, Default)]
pub struct IoNotify {
    completed: AtomicU64,
    in_flight: AtomicUsize,
}

thread_local! {
    /// The connection whose statement runs on this thread, if any.
    static CURRENT: Cell<Option<Arc<IoNotify>>> = const { Cell::new(None) };
}

/// While alive, completions created on this thread attach to a connection
/// (see [`IoNotify::enter`]); dropping it restores the previous one.
pub struct Entered(Option<Arc<IoNotify>>);

impl Drop for Entered {
    fn drop(&mut self) {
        CURRENT.set(self.0.take());
    }
}

impl IoNotify {
    /// New counters, nothing in flight.
    pub fn new() -> Arc<IoNotify> {
        Arc::default()
    }

    /// Attach the completions created on this thread to `self` until the
    /// returned guard is dropped.
    pub fn enter(self: &Arc<Self>) -> Entered {
        Entered(CURRENT.replace(Some(self.clone())))
    }

    /// Make `notify` the connection new completions on this thread attach
    /// to, returning the one it replaces: a statement's step installs its
    /// connection's counters and installs the previous ones again when it
    /// ends, which hands its own back. (What [`IoNotify::enter`] does,
    /// without a reference-count update on each step of a scan.)
    #[inline]
    pub fn install(notify: Option<Arc<IoNotify>>) -> Option<Arc<IoNotify>> {
        CURRENT.replace(notify)
    }

    /// Attached completions finished so far.
    pub fn completed(&self) -> u64 {
        self.completed.load(Ordering::Acquire)
    }

    /// Attached completions not finished yet.
    pub fn in_flight(&self) -> usize {
        self.in_flight.load(Ordering::Acquire)
    }

    /// The connection new completions attach to, counted in flight.
    pub(super) fn attach_current() -> Option<Arc<IoNotify>> {
        let current = CURRENT.take();
        let n = current.clone();
        CURRENT.set(current);
        let n = n?;
        n.in_flight.fetch_add(1, Ordering::AcqRel);
        Some(n)
    }

    /// One attached completion finished (or was dropped unfinished).
    pub(super) fn finished(&self) {
        let _ = self.in_flight.fetch_update(Ordering::AcqRel, Ordering::Acquire, |v| v.checked_sub(1));
        self.completed.fetch_add(1, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::{Completion, CompletionResult};

    #[test]
    fn completions_count_on_the_entered_connection_only() {
        let n = IoNotify::new();
        let outside = Completion::new();
        let (c, d) = {
            let _g = n.enter();
            (Completion::new(), Completion::new())
        };
        let after = Completion::new();
        assert_eq!((n.in_flight(), n.completed()), (2, 0));
        c.complete(Ok(CompletionResult { bytes: 0, buffer: None }));
        assert_eq!((n.in_flight(), n.completed()), (1, 1));
        outside.complete(Ok(CompletionResult { bytes: 0, buffer: None }));
        after.complete(Ok(CompletionResult { bytes: 0, buffer: None }));
        assert_eq!((n.in_flight(), n.completed()), (1, 1));
        // Dropped unfinished: nobody may wait for it.
        drop(d);
        assert_eq!((n.in_flight(), n.completed()), (0, 2));
        // Already finished when created: never in flight.
        let _g = n.enter();
        let _r = Completion::ready(Ok(CompletionResult { bytes: 0, buffer: None }));
        assert_eq!((n.in_flight(), n.completed()), (0, 2));
    }
}
