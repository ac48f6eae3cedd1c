//! Micro-benchmark (numbers, not assertions): cold-cache random page reads
//! from 100 files, one thread, through the io_uring backend with many
//! requests in flight versus one `pread` at a time on the sync backend;
//! and, warm cache, whether registered (fixed) buffers pay off when the
//! request's own buffer must be filled by a copy out of the registered pool.
//!
//! Run: `cargo run --release --example uring_bench [dir]` (the directory
//! must be on a real disk, not tmpfs; default: the system temp dir).
//!
//! Measured on the 2-core development VM (virtio disk, ext4, kernel 6.18,
//! other jobs running, so noisy): cold 4 KiB random reads, sync pread
//! 9,000-16,500/s, io_uring with 64 in flight 21,000-59,000/s (typically
//! ~2.5x), io_uring with 1 in flight about the same as pread. Registered
//! buffers (warm cache, raw ring, depth 32): plain reads into owned
//! buffers 465,000-780,000/s versus fixed reads plus the copy into the
//! owned buffer 330,000-707,000/s: slower in 5 of 6 runs, so the backend
//! does not register buffers.
#![allow(unsafe_code)]

use io_uring::{opcode, types, IoUring};
use ringlite::io::sync::SyncBackend;
use ringlite::io::{Buffer, Completion, File, IoBackend, IoUringBackend, OpenOptions};
use std::os::unix::io::AsRawFd;
use std::sync::Arc;
use std::time::Instant;

const FILES: usize = 100;
const PAGES_PER_FILE: u64 = 256; // 1 MiB each
const PAGE: usize = 4096;
const READS: usize = 4000;
const IN_FLIGHT: usize = 64;
/// Passes over the read list per warm fixed-vs-plain measurement.
const WARM_REPEAT: usize = 10;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn drop_page_cache(paths: &[String]) {
    for p in paths {
        let f = std::fs::File::open(p).unwrap();
        // SAFETY: advisory call on an open descriptor.
        unsafe { libc::posix_fadvise(f.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
    }
}

fn targets(seed: u64) -> Vec<(usize, u64)> {
    let mut rng = Rng(seed);
    (0..READS).map(|_| ((rng.next() % FILES as u64) as usize, rng.next() % PAGES_PER_FILE)).collect()
}

fn open_all(b: &dyn IoBackend, paths: &[String]) -> Vec<Arc<dyn File>> {
    paths.iter().map(|p| b.open(p, OpenOptions { read_only: true, ..Default::default() }).unwrap()).collect()
}

fn run_sync(paths: &[String], t: &[(usize, u64)]) -> f64 {
    let b = SyncBackend::new();
    let files = open_all(&b, paths);
    let start = Instant::now();
    for &(f, p) in t {
        let c = files[f].read(p * PAGE as u64, Buffer::zeroed(PAGE)).unwrap();
        assert_eq!(c.take().unwrap().bytes, PAGE);
    }
    start.elapsed().as_secs_f64()
}

fn run_uring(paths: &[String], t: &[(usize, u64)], depth: usize) -> f64 {
    let b = IoUringBackend::new().expect("io_uring");
    let files = open_all(&b, paths);
    let start = Instant::now();
    let mut next = 0;
    let mut live: Vec<Completion> = Vec::new();
    while next < t.len() || !live.is_empty() {
        while live.len() < depth && next < t.len() {
            let (f, p) = t[next];
            live.push(files[f].read(p * PAGE as u64, Buffer::zeroed(PAGE)).unwrap());
            next += 1;
        }
        b.poll(None).unwrap();
        live.retain(|c| {
            if c.is_done() {
                assert_eq!(c.take().unwrap().bytes, PAGE);
                false
            } else {
                true
            }
        });
    }
    start.elapsed().as_secs_f64()
}

/// Warm cache, raw ring, `depth` reads per batch: plain reads into fresh
/// owned buffers versus fixed reads into a registered pool plus a copy
/// into the owned buffer (what the pager's ownership model would need).
/// Best of 5 alternating runs each; returns seconds per pass.
fn run_fixed_vs_plain(paths: &[String], t: &[(usize, u64)], depth: usize) -> (f64, f64) {
    let files: Vec<std::fs::File> = paths.iter().map(|p| std::fs::File::open(p).unwrap()).collect();
    let mut ring: IoUring = IoUring::new(256).unwrap();
    let mut pool = vec![0u8; PAGE * depth];
    let iov: Vec<libc::iovec> = pool.chunks_mut(PAGE).map(|c| libc::iovec { iov_base: c.as_mut_ptr().cast(), iov_len: PAGE }).collect();
    // SAFETY: `pool` outlives the registration (unregistered below).
    unsafe { ring.submitter().register_buffers(&iov).unwrap() };
    let mut measure = |fixed: bool| {
        let start = Instant::now();
        for chunk in t.chunks(depth).cycle().take(WARM_REPEAT * t.len().div_ceil(depth)) {
            let mut bufs: Vec<Vec<u8>> = chunk.iter().map(|_| vec![0u8; PAGE]).collect();
            for (i, &(f, p)) in chunk.iter().enumerate() {
                let fd = types::Fd(files[f].as_raw_fd());
                let e = if fixed {
                    opcode::ReadFixed::new(fd, pool[i * PAGE..].as_mut_ptr(), PAGE as u32, i as u16).offset(p * PAGE as u64).build()
                } else {
                    opcode::Read::new(fd, bufs[i].as_mut_ptr(), PAGE as u32).offset(p * PAGE as u64).build()
                };
                // SAFETY: the buffers live until the batch is reaped below.
                unsafe { ring.submission().push(&e.user_data(i as u64)).unwrap() };
            }
            ring.submit_and_wait(chunk.len()).unwrap();
            let cqes: Vec<(u64, i32)> = ring.completion().map(|c| (c.user_data(), c.result())).collect();
            assert_eq!(cqes.len(), chunk.len());
            for (ud, res) in cqes {
                assert_eq!(res as usize, PAGE);
                if fixed {
                    let i = ud as usize;
                    bufs[i].copy_from_slice(&pool[i * PAGE..(i + 1) * PAGE]);
                }
            }
            std::hint::black_box(&bufs);
        }
        start.elapsed().as_secs_f64()
    };
    let (mut plain, mut fixed) = (f64::MAX, f64::MAX);
    for _ in 0..5 {
        plain = plain.min(measure(false));
        fixed = fixed.min(measure(true));
    }
    ring.submitter().unregister_buffers().unwrap();
    (plain / WARM_REPEAT as f64, fixed / WARM_REPEAT as f64)
}

fn main() {
    let base = std::env::args().nth(1).map(std::path::PathBuf::from).unwrap_or_else(std::env::temp_dir);
    let dir = base.join(format!("ringlite-uring-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let paths: Vec<String> = (0..FILES).map(|i| dir.join(format!("f{i}.db")).to_str().unwrap().to_string()).collect();
    for (i, p) in paths.iter().enumerate() {
        let data: Vec<u8> = (0..PAGE as u64 * PAGES_PER_FILE).map(|j| (j as usize ^ i) as u8).collect();
        std::fs::write(p, data).unwrap();
        std::fs::File::open(p).unwrap().sync_all().unwrap();
    }
    let rate = |secs: f64| READS as f64 / secs;
    for round in 0..2 {
        let t = targets(round + 1);
        drop_page_cache(&paths);
        let s = run_sync(&paths, &t);
        drop_page_cache(&paths);
        let u = run_uring(&paths, &t, IN_FLIGHT);
        drop_page_cache(&paths);
        let u1 = run_uring(&paths, &t, 1);
        println!(
            "cold, {READS} random 4 KiB reads over {FILES} files: sync pread {:.0}/s ({:.1} ms) | io_uring depth {IN_FLIGHT} {:.0}/s ({:.1} ms) | io_uring depth 1 {:.0}/s ({:.1} ms)",
            rate(s), s * 1e3, rate(u), u * 1e3, rate(u1), u1 * 1e3
        );
    }
    let t = targets(9);
    for p in &paths {
        std::hint::black_box(std::fs::read(p).unwrap());
    }
    let s = run_sync(&paths, &t);
    let u = run_uring(&paths, &t, IN_FLIGHT);
    println!("warm, same reads: sync pread {:.0}/s | io_uring backend depth {IN_FLIGHT} {:.0}/s", rate(s), rate(u));
    let (plain, fixed) = run_fixed_vs_plain(&paths, &t, 32);
    println!("warm, raw ring depth 32: plain Read into owned buffers {:.0}/s | ReadFixed + copy into owned buffers {:.0}/s", rate(plain), rate(fixed));
    std::fs::remove_dir_all(&dir).unwrap();
}
