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
//! Invariants: `in_flight` counts the attached completions neither finished nor
//! dropped (a completion dropped unfinished counts as finished, so nobody waits
//! for it); `completed` only grows, and grows whenever `in_flight` shrinks
//! (checked: notify_counts). A waiting statement is therefore never skipped
//! forever: either one of the connection's requests finishes (the count moves)
//! or none is in flight (the guard lets it run).
//!
//! ## Readiness: which connections to step after a poll
//! Skipping a waiting statement cheaply still costs a call per suspended
//! statement per poll: a thread with 10,000 idle tenants would make
//! 10,000 calls after each poll to find the few whose reads finished. So
//! the async connections of one thread also share a [`ReadySet`]: when a
//! connection's attached completion finishes, the connection is queued
//! there (once: `queued` stays set until it is taken off), and the
//! scheduler takes the queued connections (`sqlite3_io_ready`,
//! [`ReadySet::take`]) and steps only their statements. A poll and a take
//! cost what the finished requests cost, nothing per idle connection.
//!
//! Invariants of the set: a connection is in the queue at most once (checked:
//! ready_set_once) (`queued` is set exactly while it is, or is about to be,
//! queued); a completion finishing after a connection was taken off queues it
//! again, so a wakeup is never lost (one may be spurious: the statement then
//! answers `SQLITE_IO` again at once, from the counters above). The queue holds
//! weak references: a connection closed while queued is skipped (its tag is
//! cleared at close), and entries of dropped connections are compacted away as
//! the queue grows, so it stays bounded by the number of live connections even
//! when nobody takes from it.
//!
//! ## Yielded statements
//! A statement whose step ran out of its time quantum (`PRAGMA
//! step_quantum`) answers `SQLITE_IO` with nothing in flight: it is
//! runnable at once. Its connection is queued like one whose request
//! finished, and while it holds a [`YieldMark`] (until it is stepped
//! again, reset or finalized) the set counts it in `yielded`, so that a
//! poll asked to wait for completions does not sleep while a tenant is
//! runnable (`Connection::io_poll`).

use std::cell::Cell;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};

/// The completion counters of one connection.
#[derive(Debug, Default)]
pub struct IoNotify {
    completed: AtomicU64,
    in_flight: AtomicUsize,
    /// Set while the connection sits in `ready`'s queue.
    queued: AtomicBool,
    /// What [`ReadySet::take`] reports for this connection (the C API
    /// stores the `sqlite3*` handle); 0: not reported (untagged or closed).
    tag: AtomicUsize,
    /// The ready set of the thread that opened the connection (async
    /// connections only).
    ready: Option<Arc<ReadySet>>,
}

/// The connections of one thread whose requests finished since they were
/// last taken (see the module documentation).
#[derive(Debug)]
pub struct ReadySet {
    queue: Mutex<Queue>,
    /// Live [`YieldMark`]s of this set.
    yielded: AtomicUsize,
}

#[derive(Debug)]
struct Queue {
    entries: VecDeque<Weak<IoNotify>>,
    /// Length at which dead entries are compacted away next.
    compact_at: usize,
}

const COMPACT_MIN: usize = 1024;

impl Default for ReadySet {
    fn default() -> Self {
        ReadySet { queue: Mutex::new(Queue { entries: VecDeque::new(), compact_at: COMPACT_MIN }), yielded: AtomicUsize::new(0) }
    }
}

thread_local! {
    /// The ready set of the async connections opened on this thread.
    static THREAD_READY: Arc<ReadySet> = Arc::default();
}

/// The calling thread's ready set.
pub fn thread_ready_set() -> Arc<ReadySet> {
    THREAD_READY.with(Arc::clone)
}

impl ReadySet {
    fn push(&self, n: &Arc<IoNotify>) {
        let mut q = self.queue.lock().unwrap_or_else(|p| p.into_inner());
        if q.entries.len() >= q.compact_at {
            q.entries.retain(|w| w.upgrade().is_some_and(|n| n.tag() != 0));
            q.compact_at = (2 * q.entries.len()).max(COMPACT_MIN);
        }
        q.entries.push_back(Arc::downgrade(n));
    }

    /// Take up to `max` queued connections off the queue, oldest first,
    /// appending their tags to `out`; connections closed or untagged are
    /// dropped from the queue without being reported. Returns how many
    /// tags were appended. Cost: the entries taken, not the connections
    /// of the thread.
    pub fn take(&self, out: &mut Vec<usize>, max: usize) -> usize {
        let mut q = self.queue.lock().unwrap_or_else(|p| p.into_inner());
        let mut got = 0;
        while got < max {
            let Some(w) = q.entries.pop_front() else { break };
            let Some(n) = w.upgrade() else { continue };
            // Cleared before the caller steps: a completion from now on
            // queues the connection again.
            n.queued.store(false, Ordering::Release);
            let tag = n.tag();
            if tag != 0 {
                out.push(tag);
                got += 1;
            }
        }
        got
    }

    /// Connections queued now (closed ones not yet dropped included).
    pub fn len(&self) -> usize {
        self.queue.lock().unwrap_or_else(|p| p.into_inner()).entries.len()
    }

    /// Whether nothing is queued.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Statements of this set's connections that yielded their quantum
    /// and have not been stepped, reset or finalized since.
    pub fn yielded(&self) -> usize {
        self.yielded.load(Ordering::Acquire)
    }
}

/// Held by a statement that yielded its quantum until it is stepped
/// again, reset or dropped: counted in its connection's ready set
/// ([`ReadySet::yielded`]) meanwhile.
#[derive(Debug)]
pub struct YieldMark(Option<Arc<ReadySet>>);

impl YieldMark {
    /// A statement of the connection counted by `notify` yielded.
    pub fn new(notify: &IoNotify) -> YieldMark {
        let set = notify.ready.clone();
        if let Some(r) = &set {
            r.yielded.fetch_add(1, Ordering::AcqRel);
        }
        YieldMark(set)
    }
}

impl Drop for YieldMark {
    fn drop(&mut self) {
        if let Some(r) = &self.0 {
            let before = r.yielded.fetch_sub(1, Ordering::AcqRel);
            debug_assert!(before > 0, "a yield mark outlived its count");
        }
    }
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
    /// New counters, nothing in flight, not reported anywhere.
    pub fn new() -> Arc<IoNotify> {
        Arc::default()
    }

    /// New counters of a connection reported to `ready` when its requests
    /// finish (once it has a tag).
    pub fn with_ready(ready: Arc<ReadySet>) -> Arc<IoNotify> {
        Arc::new(IoNotify { ready: Some(ready), ..IoNotify::default() })
    }

    /// The ready set this connection is reported to.
    pub fn ready_set(&self) -> Option<&Arc<ReadySet>> {
        self.ready.as_ref()
    }

    /// The tag [`ReadySet::take`] reports (0: none).
    pub fn tag(&self) -> usize {
        self.tag.load(Ordering::Acquire)
    }

    /// Set the tag; 0 stops the reports (a closed connection).
    pub fn set_tag(&self, tag: usize) {
        self.tag.store(tag, Ordering::Release);
    }

    /// Queue the connection in its ready set unless it is queued already.
    pub fn mark_ready(self: &Arc<Self>) {
        let Some(r) = &self.ready else { return };
        if !self.queued.swap(true, Ordering::AcqRel) {
            r.push(self);
        }
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
    pub(super) fn finished(self: &Arc<Self>) {
        let _ = self.in_flight.fetch_update(Ordering::AcqRel, Ordering::Acquire, |v| v.checked_sub(1));
        self.completed.fetch_add(1, Ordering::AcqRel);
        self.mark_ready();
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
        // invariant: notify_counts
        assert_eq!((n.in_flight(), n.completed()), (0, 2));
        // Already finished when created: never in flight.
        let _g = n.enter();
        let _r = Completion::ready(Ok(CompletionResult { bytes: 0, buffer: None }));
        assert_eq!((n.in_flight(), n.completed()), (0, 2));
    }

    #[test]
    fn ready_set_reports_each_finished_connection_once() {
        let set = Arc::new(ReadySet::default());
        let (a, b, idle) = (IoNotify::with_ready(set.clone()), IoNotify::with_ready(set.clone()), IoNotify::with_ready(set.clone()));
        a.set_tag(1);
        b.set_tag(2);
        idle.set_tag(3);
        let mk = |n: &Arc<IoNotify>| {
            let _g = n.enter();
            Completion::new()
        };
        let (a1, a2, b1) = (mk(&a), mk(&a), mk(&b));
        let _idle1 = mk(&idle);
        let done = || Ok(CompletionResult { bytes: 0, buffer: None });
        a1.complete(done());
        a2.complete(done());
        b1.complete(done());
        let mut out = Vec::new();
        assert_eq!(set.take(&mut out, 1), 1);
        assert_eq!(set.take(&mut out, 10), 1);
        // invariant: ready_set_once
        assert_eq!(out, vec![1, 2], "a once although two of its requests finished; idle never");
        assert_eq!(set.take(&mut out, 10), 0);
        // Taken off, then a new completion: queued again.
        let a3 = mk(&a);
        a3.complete(done());
        out.clear();
        assert_eq!(set.take(&mut out, 10), 1);
        // invariant: ready_set_once
        assert_eq!(out, vec![1]);
        // A yield mark counts while it lives.
        assert_eq!(set.yielded(), 0);
        let (m1, m2) = (YieldMark::new(&a), YieldMark::new(&b));
        assert_eq!(set.yielded(), 2);
        drop(m1);
        assert_eq!(set.yielded(), 1);
        drop(m2);
        assert_eq!(set.yielded(), 0);
        // Closed (tag cleared) while queued: not reported.
        let b2 = mk(&b);
        b2.complete(done());
        b.set_tag(0);
        out.clear();
        assert_eq!(set.take(&mut out, 10), 0);
        assert!(set.is_empty());
    }
}
