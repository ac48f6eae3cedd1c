//! # A submission queue that serves tenants in turn
//!
//! A device (or a thread's ring in front of one) serves a limited number
//! of requests at a time. When more are submitted, the order in which the
//! waiting ones are let through decides who waits: first come, first
//! served lets one tenant that submits many requests at once (a full scan
//! keeping 32 reads ahead, a large write) put all of them in front of a
//! quiet tenant's single lookup, which then waits for the whole burst.
//!
//! [`FairQueue`] keeps one FIFO per key (a tenant: in [`super::delay`],
//! one open file) and lets requests through round robin over the keys
//! that have any waiting: one request per key per turn, so a request
//! waits behind at most one request of each other tenant that has work
//! queued, however much each has. Within one key the order is kept (a
//! tenant's own requests are served in the order it made them).
//! [`QueuePolicy::Fifo`] is the same structure with every request under one
//! key: first come, first served, kept to measure the difference.
//!
//! Invariants: `len` is the number of queued items; `turns` holds each key
//! whose queue is non-empty exactly once, and no other key; `queues` holds
//! no empty queue (checked: fair_queue_counts).

use std::collections::{HashMap, VecDeque};

/// The order in which waiting requests are let through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum QueuePolicy {
    /// Round robin over keys (tenants), FIFO within one.
    #[default]
    Fair,
    /// First come, first served, whoever submitted.
    Fifo,
}

impl QueuePolicy {
    /// `fair` or `fifo` (ASCII case-insensitive).
    pub fn parse(s: &str) -> Option<QueuePolicy> {
        match s.trim() {
            x if x.eq_ignore_ascii_case("fair") => Some(QueuePolicy::Fair),
            x if x.eq_ignore_ascii_case("fifo") => Some(QueuePolicy::Fifo),
            _ => None,
        }
    }
}

/// Waiting requests, one FIFO per key, served in turn (see the module doc).
#[derive(Debug)]
pub struct FairQueue<T> {
    policy: QueuePolicy,
    queues: HashMap<u64, VecDeque<T>>,
    turns: VecDeque<u64>,
    len: usize,
}

impl<T> FairQueue<T> {
    /// An empty queue with `policy`.
    pub fn new(policy: QueuePolicy) -> Self {
        FairQueue { policy, queues: HashMap::new(), turns: VecDeque::new(), len: 0 }
    }

    /// Queue `item` for `key` (behind that key's earlier items).
    pub fn push(&mut self, key: u64, item: T) {
        let key = match self.policy {
            QueuePolicy::Fair => key,
            QueuePolicy::Fifo => 0,
        };
        let q = self.queues.entry(key).or_default();
        if q.is_empty() {
            self.turns.push_back(key);
        }
        q.push_back(item);
        self.len += 1;
        self.check();
    }

    /// The next item to let through: the oldest of the key whose turn it
    /// is; that key goes to the back of the turns if it has more.
    pub fn pop(&mut self) -> Option<T> {
        let key = self.turns.pop_front()?;
        let q = self.queues.get_mut(&key)?;
        let item = q.pop_front();
        if q.is_empty() {
            self.queues.remove(&key);
        } else {
            self.turns.push_back(key);
        }
        self.len -= usize::from(item.is_some());
        self.check();
        item
    }

    /// Like [`FairQueue::pop`], skipping the keys `allowed` refuses (a
    /// tenant at its quota): the first allowed key in turn order gives its
    /// oldest item; the refused keys keep their items and their order.
    pub fn pop_if(&mut self, allowed: impl Fn(u64) -> bool) -> Option<T> {
        for _ in 0..self.turns.len() {
            let key = *self.turns.front()?;
            if allowed(key) {
                return self.pop();
            }
            self.turns.rotate_left(1);
        }
        None
    }

    /// Items queued.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether nothing is queued.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn check(&self) {
        // invariant: fair_queue_counts
        debug_assert_eq!(self.turns.len(), self.queues.len());
        debug_assert_eq!(self.len, self.queues.values().map(VecDeque::len).sum::<usize>());
        debug_assert!(self.queues.values().all(|q| !q.is_empty()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drain(q: &mut FairQueue<(u64, u32)>) -> Vec<(u64, u32)> {
        std::iter::from_fn(|| q.pop()).collect()
    }

    #[test]
    fn a_burst_does_not_go_ahead_of_a_quiet_tenant() {
        let mut q = FairQueue::new(QueuePolicy::Fair);
        for i in 0..32 {
            q.push(1, (1, i));
        }
        q.push(2, (2, 0));
        q.push(3, (3, 0));
        q.push(2, (2, 1));
        assert_eq!(q.len(), 35);
        let order = drain(&mut q);
        // Tenants 2 and 3 arrived behind 32 requests of tenant 1 but each
        // waits behind one of its requests per turn.
        assert_eq!(&order[..5], &[(1, 0), (2, 0), (3, 0), (1, 1), (2, 1)]);
        // Each tenant's own order is kept.
        let ones: Vec<u32> = order.iter().filter(|x| x.0 == 1).map(|x| x.1).collect();
        assert_eq!(ones, (0..32).collect::<Vec<_>>());
        assert!(q.is_empty());
    }

    #[test]
    fn fifo_serves_in_arrival_order() {
        let mut q = FairQueue::new(QueuePolicy::Fifo);
        for i in 0..4 {
            q.push(1, (1, i));
        }
        q.push(2, (2, 0));
        assert_eq!(drain(&mut q), vec![(1, 0), (1, 1), (1, 2), (1, 3), (2, 0)]);
    }

    #[test]
    fn a_key_that_empties_rejoins_at_the_back() {
        let mut q = FairQueue::new(QueuePolicy::Fair);
        q.push(7, (7, 0));
        q.push(8, (8, 0));
        assert_eq!(q.pop(), Some((7, 0)));
        q.push(7, (7, 1));
        q.push(8, (8, 1));
        assert_eq!(drain(&mut q), vec![(8, 0), (7, 1), (8, 1)]);
        assert_eq!(q.pop(), None);
        q.push(1, (1, 0));
        q.push(2, (2, 0));
        q.push(1, (1, 1));
        assert_eq!(q.pop_if(|k| k != 1), Some((2, 0)));
        assert_eq!(q.pop_if(|k| k != 1), None);
        assert_eq!(drain(&mut q), vec![(1, 0), (1, 1)]);
        assert_eq!(QueuePolicy::parse("FIFO"), Some(QueuePolicy::Fifo));
        assert_eq!(QueuePolicy::parse("fair"), Some(QueuePolicy::Fair));
        assert_eq!(QueuePolicy::parse("lifo"), None);
    }
}
