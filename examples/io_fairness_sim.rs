//! # The I/O queue's policy under a noisy neighbour, in simulated time
//!
//! `cargo run --example io_fairness_sim` (debug is fine: no wall clock).
//!
//! The open-loop bench measures the whole engine on real clocks, and on a
//! machine shared by many sessions its tails are the kernel scheduler's.
//! This isolates the part issue #25's fairness goal is about: the queue in
//! front of a device that serves `DEPTH` requests at a time, each taking
//! `SERVICE`. It drives [`FairQueue`] with the admission rule of the delay
//! backend (`src/io/delay.rs`: under `fair` round robin over tenants and no
//! tenant holding more than half the depth in service; `fifo` first come,
//! first served) in a discrete-event simulation: 20 quiet tenants, each
//! request 20 dependent reads (a point lookup's descents, one after the
//! other), Poisson arrivals at 50% of the device's capacity; a noisy tenant
//! scanning N pages R times a second with 32 reads in flight (the B-tree's
//! read-ahead window), for a few (N, R). Printed: the quiet tenants'
//! request latency percentiles without and with the neighbour, per policy.

use ringlite::io::fair_queue::{FairQueue, QueuePolicy};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

const DEPTH: usize = 4;
const SERVICE: u64 = 1_000; // µs
const QUIET: usize = 20;
const READS_PER_REQ: u32 = 20;
const SCAN_WINDOW: u32 = 32;
const SECS: f64 = 600.0;
const NOISY: u64 = QUIET as u64; // the noisy tenant's key

/// xorshift64*: deterministic arrivals.
struct Rng(u64);
impl Rng {
    fn unit(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64
    }
    fn exp(&mut self, rate: f64) -> f64 {
        -(1.0 - self.unit()).ln() / rate
    }
}

#[derive(PartialEq, Eq, PartialOrd, Ord, Clone, Copy)]
enum Ev {
    /// A read of tenant `k` finishes.
    Done(u64),
    /// A request arrives for quiet tenant `k`.
    Arrive(u64),
    /// The noisy tenant starts a scan.
    Scan,
}

struct Tenant {
    /// Arrival times of its requests not finished (the front one runs).
    queue: VecDeque<u64>,
    reads_left: u32,
}

fn run(policy: QueuePolicy, noisy: Option<(f64, u32)>) -> Vec<u64> {
    let (scans_per_sec, scan_pages) = noisy.unwrap_or((0.0, 0));
    let quota = if policy == QueuePolicy::Fair { DEPTH.div_ceil(2) } else { usize::MAX };
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut ev: BinaryHeap<Reverse<(u64, Ev)>> = BinaryHeap::new();
    let rate = 0.5 * DEPTH as f64 / (SERVICE as f64 / 1e6) / READS_PER_REQ as f64; // requests/s
    let mut t = 0.0;
    loop {
        t += rng.exp(rate);
        if t > SECS {
            break;
        }
        let k = (rng.unit() * QUIET as f64) as u64;
        ev.push(Reverse(((t * 1e6) as u64, Ev::Arrive(k.min(QUIET as u64 - 1)))));
    }
    if noisy.is_some() {
        let n = (SECS * scans_per_sec) as u64;
        for i in 0..n {
            ev.push(Reverse(((i as f64 / scans_per_sec * 1e6) as u64, Ev::Scan)));
        }
    }
    let mut tenants: Vec<Tenant> = (0..QUIET).map(|_| Tenant { queue: VecDeque::new(), reads_left: 0 }).collect();
    let (mut scan_left, mut scan_queued, mut scans_waiting) = (0u32, 0u32, 0u32); // reads not yet submitted / submitted, not done
    let mut waiting: FairQueue<u64> = FairQueue::new(policy);
    let mut in_service: Vec<u64> = Vec::new(); // keys
    let mut lat = Vec::new();
    let submit = |key: u64, now: u64, waiting: &mut FairQueue<u64>, in_service: &mut Vec<u64>, ev: &mut BinaryHeap<Reverse<(u64, Ev)>>| {
        waiting.push(key, key);
        while in_service.len() < DEPTH {
            let Some(k) = waiting.pop_if(|k| in_service.iter().filter(|&&x| x == k).count() < quota) else { break };
            in_service.push(k);
            ev.push(Reverse((now + SERVICE, Ev::Done(k))));
        }
    };
    while let Some(Reverse((now, e))) = ev.pop() {
        match e {
            Ev::Arrive(k) => {
                let tn = &mut tenants[k as usize];
                tn.queue.push_back(now);
                if tn.queue.len() == 1 {
                    tn.reads_left = READS_PER_REQ;
                    submit(k, now, &mut waiting, &mut in_service, &mut ev);
                }
            }
            Ev::Scan => {
                if scan_left + scan_queued > 0 {
                    scans_waiting += 1;
                    continue;
                }
                scan_left = scan_pages;
                while scan_queued < SCAN_WINDOW && scan_left > 0 {
                    scan_left -= 1;
                    scan_queued += 1;
                    submit(NOISY, now, &mut waiting, &mut in_service, &mut ev);
                }
            }
            Ev::Done(k) => {
                let i = in_service.iter().position(|&x| x == k).expect("in service");
                in_service.swap_remove(i);
                // The freed place goes to the next waiting request first.
                while in_service.len() < DEPTH {
                    let Some(w) = waiting.pop_if(|w| in_service.iter().filter(|&&x| x == w).count() < quota) else { break };
                    in_service.push(w);
                    ev.push(Reverse((now + SERVICE, Ev::Done(w))));
                }
                if k == NOISY {
                    scan_queued -= 1;
                    if scan_left == 0 && scan_queued == 0 && scans_waiting > 0 {
                        scans_waiting -= 1;
                        scan_left = scan_pages;
                    }
                    while scan_queued < SCAN_WINDOW && scan_left > 0 {
                        scan_left -= 1;
                        scan_queued += 1;
                        submit(NOISY, now, &mut waiting, &mut in_service, &mut ev);
                    }
                    continue;
                }
                let tn = &mut tenants[k as usize];
                tn.reads_left -= 1;
                if tn.reads_left > 0 {
                    submit(k, now, &mut waiting, &mut in_service, &mut ev);
                    continue;
                }
                let arrived = tn.queue.pop_front().expect("a running request");
                lat.push(now - arrived);
                if !tn.queue.is_empty() {
                    tn.reads_left = READS_PER_REQ;
                    submit(k, now, &mut waiting, &mut in_service, &mut ev);
                }
            }
        }
    }
    lat.sort_unstable();
    lat
}

fn pct(v: &[u64], p: f64) -> u64 {
    v[((v.len() as f64 * p) as usize).min(v.len() - 1)]
}

fn main() {
    println!("device: {DEPTH} at a time, {SERVICE} µs each; {QUIET} quiet tenants, {READS_PER_REQ} dependent reads per request at 50% of capacity; neighbour: {SCAN_WINDOW} reads in flight; {SECS} s simulated\n");
    println!("| neighbour | policy | p50 quiet / noisy (µs) | p99 quiet / noisy | p99.9 quiet / noisy (ratio) |");
    println!("|---|---|---:|---:|---:|");
    for (rate, pages) in [(5.0, 150), (10.0, 150), (2.0, 600), (20.0, 150)] {
        for (name, policy) in [("fifo", QueuePolicy::Fifo), ("fair", QueuePolicy::Fair)] {
            let q = run(policy, None);
            let n = run(policy, Some((rate, pages)));
            println!(
                "| {pages}-page scans {rate}/s ({:.0}% of the device) | {name} | {} / {} | {} / {} | {} / {} ({:.2}x) |",
                rate * pages as f64 * SERVICE as f64 / 1e6 / DEPTH as f64 * 100.0,
                pct(&q, 0.5),
                pct(&n, 0.5),
                pct(&q, 0.99),
                pct(&n, 0.99),
                pct(&q, 0.999),
                pct(&n, 0.999),
                pct(&n, 0.999) as f64 / pct(&q, 0.999) as f64
            );
        }
    }
}
