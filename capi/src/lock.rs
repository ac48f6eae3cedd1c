//! # The re-entrant lock that serializes a connection
//!
//! Every API call on a connection holds its lock (see `handle.rs`, which
//! owns one per connection, and `mutex.rs`, whose `sqlite3_mutex` objects
//! are the same lock for applications). The thread holding it may take it
//! again from a callback; other threads wait.

use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};

/// A re-entrant lock: one thread at a time, any number of nested holds by
/// that thread.
///
/// Every API call takes and releases it, so the uncontended path is one
/// atomic compare-and-swap to take it and one swap to release it (what a
/// pthread mutex costs SQLite), and never enters the kernel.
///
/// `owner` is 0 when free, else the holder's thread id (`pthread_self`,
/// an aligned address, so bit 0 is free) with bit 0 set when some thread
/// may be sleeping on `released`. A thread that finds the lock held sets
/// that bit and sleeps while holding `sleep`; the releaser swaps the word
/// to 0 and, seeing the bit, takes `sleep` before notifying, so the
/// notification cannot fall between a waiter's last look at the word and
/// its wait. A waiter that takes the lock while others still wait sets
/// the bit again for them.
#[derive(Default)]
pub struct ReentrantLock {
    owner: AtomicUsize,
    /// Holds by the owner; only the owner reads or writes it.
    depth: AtomicU32,
    /// Threads sleeping on `released` (counted under this mutex).
    sleep: Mutex<u32>,
    released: Condvar,
}

/// Set in `owner` when a thread may be waiting.
const WAITING: usize = 1;

/// The calling thread's id, non-zero with bit 0 clear.
fn thread_token() -> usize {
    // SAFETY: pthread_self has no preconditions.
    let t = unsafe { libc::pthread_self() } as usize;
    debug_assert!(t != 0 && t & WAITING == 0);
    t & !WAITING
}

/// Holding a [`ReentrantLock`]; released on drop.
pub struct DbLock<'a> {
    lock: &'a ReentrantLock,
}

impl ReentrantLock {
    /// Wait for the lock (or take it again if this thread holds it).
    #[inline]
    pub fn lock(&self) -> DbLock<'_> {
        self.enter();
        DbLock { lock: self }
    }

    /// Take the lock without a guard (`sqlite3_mutex_enter`).
    // (Inline, the wait out of line: every API call takes the lock, and
    // it is nearly always free or already this thread's.)
    #[inline]
    pub fn enter(&self) {
        if !self.try_enter() {
            self.enter_waiting();
        }
    }

    /// [`ReentrantLock::enter`] when another thread holds the lock.
    #[cold]
    #[inline(never)]
    fn enter_waiting(&self) {
        let me = thread_token();
        let mut waiting = self.sleep.lock().unwrap_or_else(|e| e.into_inner());
        *waiting += 1;
        loop {
            let cur = self.owner.load(Ordering::Acquire);
            if cur == 0 {
                let mine = if *waiting > 1 { me | WAITING } else { me };
                if self.owner.compare_exchange(0, mine, Ordering::Acquire, Ordering::Relaxed).is_ok() {
                    break;
                }
                continue;
            }
            if cur & WAITING == 0 && self.owner.compare_exchange(cur, cur | WAITING, Ordering::Relaxed, Ordering::Relaxed).is_err() {
                continue;
            }
            waiting = self.released.wait(waiting).unwrap_or_else(|e| e.into_inner());
        }
        *waiting -= 1;
        self.depth.store(1, Ordering::Relaxed);
    }

    /// Take the lock if no other thread holds it.
    #[inline]
    pub fn try_enter(&self) -> bool {
        let me = thread_token();
        let cur = self.owner.load(Ordering::Relaxed);
        if cur & !WAITING == me {
            self.depth.store(self.depth.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
            return true;
        }
        if cur == 0 && self.owner.compare_exchange(0, me, Ordering::Acquire, Ordering::Relaxed).is_ok() {
            self.depth.store(1, Ordering::Relaxed);
            return true;
        }
        false
    }

    /// Release one hold; a thread that does not hold the lock changes
    /// nothing.
    #[inline]
    pub fn leave(&self) {
        if self.owner.load(Ordering::Relaxed) & !WAITING != thread_token() {
            return;
        }
        let depth = self.depth.load(Ordering::Relaxed);
        if depth > 1 {
            self.depth.store(depth - 1, Ordering::Relaxed);
            return;
        }
        self.depth.store(0, Ordering::Relaxed);
        if self.owner.swap(0, Ordering::Release) & WAITING != 0 {
            self.wake_waiter();
        }
    }

    /// Wake a thread waiting in [`ReentrantLock::enter`].
    #[cold]
    #[inline(never)]
    fn wake_waiter(&self) {
        let _g = self.sleep.lock().unwrap_or_else(|e| e.into_inner());
        self.released.notify_one();
    }

    /// Whether the calling thread holds the lock.
    pub fn held(&self) -> bool {
        self.owner.load(Ordering::Relaxed) & !WAITING == thread_token()
    }
}

impl Drop for DbLock<'_> {
    #[inline]
    fn drop(&mut self) {
        self.lock.leave();
    }
}

#[cfg(test)]
mod tests {
    use super::ReentrantLock;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    #[test]
    fn the_owner_may_lock_again() {
        let l = ReentrantLock::default();
        let _a = l.lock();
        let _b = l.lock();
    }

    #[test]
    fn other_threads_wait_their_turn() {
        let l = Arc::new(ReentrantLock::default());
        let inside = Arc::new(AtomicUsize::new(0));
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let (l, inside) = (l.clone(), inside.clone());
                std::thread::spawn(move || {
                    for _ in 0..200 {
                        let _g = l.lock();
                        assert_eq!(inside.fetch_add(1, Ordering::SeqCst), 0);
                        inside.fetch_sub(1, Ordering::SeqCst);
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
    }
}
