//! The io_uring backend's request life cycle: reads are really pending
//! until `poll`, many files share one ring with interleaved requests,
//! errors reach the completion of the request that caused them, per-file
//! ordering of sync/truncate, the eventfd signals waiting completions, and
//! a cold-cache B-tree read suspends (`Poll::Pending`) and resumes, and
//! existence checks and deletes as requests answer what the synchronous
//! calls do; an epoll loop on the eventfd survives EINTR and never sleeps
//! on completions a poll already reaped.
#![allow(unsafe_code)]

use crate::storage_support;

use ringlite::btree::Cursor;
use ringlite::error::{SQLITE_INTERNAL, SQLITE_IOERR_WRITE};
use ringlite::io::{Buffer, Completion, File, IoBackend, IoContext, IoUringBackend, OpenOptions};
use std::sync::Arc;
use std::task::Poll;
use std::time::{Duration, Instant};
use storage_support::*;

fn backend() -> Arc<IoUringBackend> {
    Arc::new(IoUringBackend::new().expect("io_uring available on the test machine"))
}

fn pattern(file: usize, page: usize) -> Vec<u8> {
    (0..4096).map(|i| (file * 31 + page * 7 + i) as u8).collect()
}

fn open(b: &IoUringBackend, path: &str, read_only: bool) -> Arc<dyn File> {
    b.open(path, OpenOptions { read_only, create: !read_only, ..Default::default() }).unwrap()
}

fn wait_all(b: &IoUringBackend, cs: &[Completion]) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while cs.iter().any(|c| !c.is_done()) {
        assert!(Instant::now() < deadline, "requests never completed");
        b.poll(None).unwrap();
    }
}

#[test]
fn reads_are_pending_until_poll_and_complete_after() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f").to_str().unwrap().to_string();
    std::fs::write(&path, pattern(0, 0)).unwrap();
    let b = backend();
    let f = open(&b, &path, true);
    let c = f.read(0, Buffer::zeroed(4096)).unwrap();
    // Nothing reaches the kernel before poll: the request cannot be done.
    assert!(!c.is_done());
    assert_eq!(c.take().unwrap_err().code, SQLITE_INTERNAL);
    assert_eq!(b.in_flight(), 1);
    wait_all(&b, std::slice::from_ref(&c));
    let r = c.take().unwrap();
    assert_eq!(r.bytes, 4096);
    assert_eq!(&r.buffer.unwrap()[..], &pattern(0, 0)[..]);
    assert_eq!(b.in_flight(), 0);
    // Nothing in flight: poll(None) returns at once.
    assert_eq!(b.poll(None).unwrap(), 0);
    assert_eq!(b.poll(Some(Duration::from_millis(1))).unwrap(), 0);
}

#[test]
fn many_files_interleaved_on_one_ring() {
    let dir = tempfile::tempdir().unwrap();
    let b = backend();
    let nfiles = 40;
    let pages = 8;
    let mut files = Vec::new();
    for i in 0..nfiles {
        let path = dir.path().join(format!("f{i}")).to_str().unwrap().to_string();
        files.push(open(&b, &path, false));
    }
    // Writes to every file, interleaved, all in flight at once.
    let mut cs = Vec::new();
    for p in 0..pages {
        for (i, f) in files.iter().enumerate() {
            cs.push(f.write((p * 4096) as u64, Buffer::from_vec(pattern(i, p))).unwrap());
        }
    }
    assert!(cs.iter().all(|c| !c.is_done()));
    assert_eq!(b.in_flight(), nfiles * pages);
    wait_all(&b, &cs);
    for c in &cs {
        assert_eq!(c.take().unwrap().bytes, 4096);
    }
    // Reads in a scrambled order across files, checked against the data.
    let mut rng = Rng(7);
    let mut reads = Vec::new();
    for _ in 0..500 {
        let (i, p) = (rng.below(nfiles as u64) as usize, rng.below(pages as u64) as usize);
        reads.push((i, p, files[i].read((p * 4096) as u64, Buffer::zeroed(4096)).unwrap()));
    }
    let cs: Vec<Completion> = reads.iter().map(|r| r.2.clone()).collect();
    wait_all(&b, &cs);
    for (i, p, c) in reads {
        let r = c.take().unwrap();
        assert_eq!(&r.buffer.unwrap()[..], &pattern(i, p)[..], "file {i} page {p}");
    }
    for f in &files {
        assert_eq!(f.size().unwrap(), (pages * 4096) as u64);
    }
}

#[test]
fn errors_reach_the_request_that_caused_them() {
    let dir = tempfile::tempdir().unwrap();
    let good_path = dir.path().join("good").to_str().unwrap().to_string();
    let ro_path = dir.path().join("ro").to_str().unwrap().to_string();
    std::fs::write(&good_path, pattern(1, 0)).unwrap();
    std::fs::write(&ro_path, pattern(2, 0)).unwrap();
    let b = backend();
    let good = open(&b, &good_path, false);
    let ro = open(&b, &ro_path, true);
    let r1 = good.read(0, Buffer::zeroed(4096)).unwrap();
    let bad = ro.write(0, Buffer::from_vec(vec![9; 4096])).unwrap();
    let past_eof = good.read(1 << 20, Buffer::from_vec(vec![0xAA; 4096])).unwrap();
    let short = good.read(2048, Buffer::from_vec(vec![0xAA; 4096])).unwrap();
    let r2 = ro.read(0, Buffer::zeroed(4096)).unwrap();
    wait_all(&b, &[r1.clone(), bad.clone(), past_eof.clone(), short.clone(), r2.clone()]);

    assert_eq!(&r1.take().unwrap().buffer.unwrap()[..], &pattern(1, 0)[..]);
    assert_eq!(bad.take().unwrap_err().code, SQLITE_IOERR_WRITE);
    // Past end of file: no bytes, buffer zero-filled (a page that does not exist yet).
    let e = past_eof.take().unwrap();
    assert_eq!(e.bytes, 0);
    assert!(e.buffer.unwrap().iter().all(|&x| x == 0));
    // Straddling end of file: the bytes that exist, the rest zero.
    let s = short.take().unwrap();
    assert_eq!(s.bytes, 2048);
    let sb = s.buffer.unwrap();
    assert_eq!(&sb[..2048], &pattern(1, 0)[2048..]);
    assert!(sb[2048..].iter().all(|&x| x == 0));
    // The read-only file is untouched.
    assert_eq!(&r2.take().unwrap().buffer.unwrap()[..], &pattern(2, 0)[..]);
}

#[test]
fn sync_and_truncate_are_ordered_after_earlier_requests_of_their_file() {
    barrier_ordering(false);
}

#[test]
fn inline_truncate_without_the_opcode_keeps_the_same_order() {
    barrier_ordering(true);
}

fn barrier_ordering(inline_truncate: bool) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("o").to_str().unwrap().to_string();
    let b = backend();
    if inline_truncate {
        b.disable_ftruncate_opcode();
    }
    let f = open(&b, &path, false);
    // All submitted before any poll; the sync backend would run them in
    // this order, and so must the ring.
    let w = f.write(0, Buffer::from_vec(vec![5; 3 * 4096])).unwrap();
    let s = f.sync(true).unwrap();
    let t = f.truncate(4096).unwrap();
    let after_trunc = f.read(4096, Buffer::from_vec(vec![1; 4096])).unwrap();
    let first = f.read(0, Buffer::zeroed(4096)).unwrap();
    let w2 = f.write(8192, Buffer::from_vec(vec![6; 4096])).unwrap();
    let s2 = f.sync(false).unwrap();
    wait_all(&b, &[w.clone(), s.clone(), t.clone(), after_trunc.clone(), first.clone(), w2.clone(), s2.clone()]);
    for c in [&w, &s, &t, &w2, &s2] {
        c.take().unwrap();
    }
    assert_eq!(after_trunc.take().unwrap().bytes, 0);
    assert!(first.take().unwrap().buffer.unwrap().iter().all(|&x| x == 5));
    assert_eq!(f.size().unwrap(), 3 * 4096);
    let bytes = std::fs::read(&path).unwrap();
    assert!(bytes[4096..8192].iter().all(|&x| x == 0));
    assert!(bytes[8192..].iter().all(|&x| x == 6));
}

#[test]
fn eventfd_is_readable_when_completions_wait() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("e").to_str().unwrap().to_string();
    std::fs::write(&path, pattern(3, 0)).unwrap();
    let b = backend();
    let efd = b.event_fd().expect("io_uring registers an eventfd");
    let readable = |ms: i32| {
        let mut pfd = libc::pollfd { fd: efd, events: libc::POLLIN, revents: 0 };
        // SAFETY: one valid pollfd.
        unsafe { libc::poll(&mut pfd, 1, ms) == 1 }
    };
    assert!(!readable(0));
    let f = open(&b, &path, true);
    let c = f.read(0, Buffer::zeroed(4096)).unwrap();
    // Submit without waiting, as an event loop would.
    b.poll(Some(Duration::ZERO)).unwrap();
    if !c.is_done() {
        assert!(readable(5000), "eventfd never became readable");
        b.poll(Some(Duration::ZERO)).unwrap();
    }
    assert!(c.is_done());
    assert_eq!(&c.take().unwrap().buffer.unwrap()[..], &pattern(3, 0)[..]);
    // Reaped: the next poll leaves the eventfd quiet.
    b.poll(Some(Duration::ZERO)).unwrap();
    assert!(!readable(0));
}

#[test]
fn dropping_the_backend_with_requests_in_flight_is_safe() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("d").to_str().unwrap().to_string();
    std::fs::write(&path, vec![3u8; 1 << 20]).unwrap();
    let b = backend();
    let f = open(&b, &path, false);
    let mut cs = Vec::new();
    for i in 0..256u64 {
        cs.push(f.read(i * 4096, Buffer::zeroed(4096)).unwrap());
    }
    b.poll(Some(Duration::ZERO)).unwrap();
    drop(f);
    drop(b);
    // Whatever completed before the drop is intact; the rest completed
    // during the drop's drain.
    for c in cs {
        assert!(c.is_done());
        assert!(c.take().unwrap().buffer.unwrap().iter().all(|&x| x == 3));
    }
}

#[test]
fn cold_cache_btree_read_suspends_and_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cold.db").to_str().unwrap().to_string();
    {
        let db = Sqlite::open(&path);
        db.exec(
            "CREATE TABLE t(a,b); WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i<2000) INSERT INTO t SELECT i, zeroblob(300) FROM n;",
        );
    }
    let b = backend();
    let io = IoContext::new(b.clone());
    let mut bt = open_btree(&io, &path);
    let mut pending = 0;
    loop {
        match bt.begin_read().unwrap() {
            Poll::Ready(()) => break,
            Poll::Pending => {
                pending += 1;
                b.poll(None).unwrap();
            }
        }
    }
    let mut c = Cursor::new(2, false, None);
    let mut first_pending = 0;
    let found = loop {
        match c.first(&mut bt).unwrap() {
            Poll::Ready(v) => break v,
            Poll::Pending => {
                first_pending += 1;
                assert!(b.in_flight() > 0, "Pending with nothing in flight");
                b.poll(None).unwrap();
            }
        }
    };
    assert!(found);
    assert!(first_pending > 0, "a cold-cache seek must suspend on the ring at least once");
    assert_eq!(c.rowid(), 1);
    // Count resumes the same way; the total matches SQLite.
    let n = loop {
        match c.count(&mut bt).unwrap() {
            Poll::Ready(n) => break n,
            Poll::Pending => {
                pending += 1;
                b.poll(None).unwrap();
            }
        }
    };
    assert_eq!(n, 2000);
    assert!(pending > 0);
}

#[test]
fn thousands_in_flight_overflow_the_queues_safely() {
    // More requests than the submission queue (256) and the completion
    // queue (1024) hold: early submits and the kernel's overflow backlog
    // must lose nothing.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big").to_str().unwrap().to_string();
    let b = backend();
    let f = open(&b, &path, false);
    let n = 3000;
    let writes: Vec<Completion> = (0..n).map(|p| f.write((p * 4096) as u64, Buffer::from_vec(pattern(9, p))).unwrap()).collect();
    wait_all(&b, &writes);
    for c in &writes {
        c.take().unwrap();
    }
    let reads: Vec<Completion> = (0..n).rev().map(|p| f.read((p * 4096) as u64, Buffer::zeroed(4096)).unwrap()).collect();
    assert!(b.in_flight() == n);
    wait_all(&b, &reads);
    for (i, c) in reads.iter().enumerate() {
        let p = n - 1 - i;
        assert_eq!(&c.take().unwrap().buffer.unwrap()[..], &pattern(9, p)[..]);
    }
    assert_eq!(b.in_flight(), 0);
}

#[test]
fn many_connections_on_one_thread_share_one_ring() {
    // Tenants' databases, each opened by its own B-tree on the same ring;
    // every cold seek suspends, one poll serves all of them.
    let dir = tempfile::tempdir().unwrap();
    let tenants = 50;
    let mut paths = Vec::new();
    for t in 0..tenants {
        let path = dir.path().join(format!("tenant{t}.db")).to_str().unwrap().to_string();
        let db = Sqlite::open(&path);
        db.exec(&format!(
            "CREATE TABLE t(a,b); WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i<{}) INSERT INTO t SELECT i, zeroblob(200) FROM n;",
            100 + t * 10
        ));
        paths.push(path);
    }
    let b = backend();
    let io = IoContext::new(b.clone());
    let mut dbs: Vec<_> = paths.iter().map(|p| open_btree(&io, p)).collect();
    for bt in &mut dbs {
        io.block_on(|| bt.begin_read()).unwrap();
    }
    let mut cursors: Vec<Cursor> = (0..tenants).map(|_| Cursor::new(2, false, None)).collect();
    let mut counts: Vec<Option<u64>> = vec![None; tenants];
    let mut polls = 0;
    while counts.iter().any(|c| c.is_none()) {
        for t in 0..tenants {
            if counts[t].is_none() {
                if let Poll::Ready(n) = cursors[t].count(&mut dbs[t]).unwrap() {
                    counts[t] = Some(n);
                }
            }
        }
        if counts.iter().any(|c| c.is_none()) {
            // Every suspended tenant's read is in flight together.
            b.poll(None).unwrap();
            polls += 1;
        }
    }
    for (t, n) in counts.iter().enumerate() {
        assert_eq!(*n, Some(100 + t as u64 * 10));
    }
    // Far fewer waits than tenants x pages: the reads overlapped.
    let pages: usize = paths.iter().map(|p| std::fs::metadata(p).unwrap().len() as usize / 4096).sum();
    eprintln!("{tenants} tenants, {pages} pages, {polls} polls");
    assert!(polls < pages, "polls {polls} pages {pages}");
}

#[test]
fn existence_requests_answer_as_the_synchronous_check() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    std::fs::write(p("db"), b"x").unwrap();
    std::fs::write(p("db-journal"), b"").unwrap();
    std::fs::write(p("full-journal"), b"j").unwrap();
    std::fs::write(p("db-wal"), b"").unwrap();
    std::fs::create_dir(p("dir")).unwrap();
    let b = backend();
    let paths = [p("db"), p("db-journal"), p("full-journal"), p("db-wal"), p("missing"), p("missing-journal"), p("dir"), p("db/below")];
    let cs: Vec<Completion> = paths.iter().map(|q| b.exists_request(q).unwrap()).collect();
    wait_all(&b, &cs);
    for (q, c) in paths.iter().zip(&cs) {
        let got = c.take().unwrap().bytes == 1;
        assert_eq!(got, b.exists(q).unwrap(), "{q}");
    }
    // Empty journals and WALs do not count; files and directories do.
    let answers: Vec<bool> = paths.iter().map(|q| b.exists(q).unwrap()).collect();
    assert_eq!(answers, [true, false, true, false, false, false, true, false]);
    assert_eq!(b.in_flight(), 0);
}

#[test]
fn delete_requests_unlink_and_fail_as_the_synchronous_delete() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    std::fs::write(p("db-journal"), b"journal").unwrap();
    let b = backend();
    let c = b.delete_request(&p("db-journal"), false).unwrap();
    wait_all(&b, std::slice::from_ref(&c));
    c.take().unwrap();
    assert!(!std::path::Path::new(&p("db-journal")).exists());
    let c = b.delete_request(&p("db-journal"), false).unwrap();
    wait_all(&b, std::slice::from_ref(&c));
    let err = c.take().unwrap_err().code;
    assert_eq!(err, b.delete(&p("db-journal"), false).unwrap_err().code);
    assert_eq!(err, ringlite::error::SQLITE_IOERR_DELETE_NOENT);
    // With a directory sync the delete happens at once.
    std::fs::write(p("x-journal"), b"j").unwrap();
    let c = b.delete_request(&p("x-journal"), true).unwrap();
    assert!(c.is_done());
    c.take().unwrap();
    assert!(!std::path::Path::new(&p("x-journal")).exists());
}

#[test]
fn size_requests_follow_earlier_truncates_and_match_size() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f").to_str().unwrap().to_string();
    let b = backend();
    let f = open(&b, &path, false);
    let w = f.write(0, Buffer::from_vec(pattern(0, 0))).unwrap();
    wait_all(&b, std::slice::from_ref(&w));
    w.take().unwrap();
    let t = f.truncate(100).unwrap();
    // Submitted after the truncate: sees its effect.
    let s = f.size_request().unwrap();
    wait_all(&b, &[t.clone(), s.clone()]);
    t.take().unwrap();
    assert_eq!(s.take().unwrap().bytes, 100);
    assert_eq!(f.size().unwrap(), 100);
}

/// Whether `fd` is readable within `ms` milliseconds.
fn fd_readable(fd: i32, ms: i32) -> bool {
    let mut pfd = libc::pollfd { fd, events: libc::POLLIN, revents: 0 };
    // SAFETY: one valid pollfd.
    unsafe { libc::poll(&mut pfd, 1, ms) == 1 }
}

#[test]
fn a_poll_that_reaped_completions_leaves_the_exported_event_fd_readable() {
    // An event loop steps its statements, polls with no wait to submit,
    // then sleeps on the descriptor. If that poll reaped the last
    // completions (requests that finished between the step and the poll),
    // the statements they belong to have not seen them: a drained
    // descriptor would then sleep forever. It must stay readable.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("e").to_str().unwrap().to_string();
    std::fs::write(&path, pattern(4, 0)).unwrap();
    let b = backend();
    let efd = b.event_fd().expect("io_uring registers an eventfd");
    let f = open(&b, &path, false);
    // A sync runs on the kernel's workers: it completes after the submit.
    let c = f.sync(false).unwrap();
    b.poll(Some(Duration::ZERO)).unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while !c.is_done() {
        assert!(Instant::now() < deadline, "the sync never completed");
        // Wait for the kernel's completion without reaping it, then reap
        // it with the no-wait poll a loop makes before sleeping.
        fd_readable(efd, 100);
        b.poll(Some(Duration::ZERO)).unwrap();
    }
    c.take().unwrap();
    assert!(fd_readable(efd, 0), "a poll that reaped completions drained the descriptor");
    // A poll that reaps nothing re-arms it.
    assert_eq!(b.poll(Some(Duration::ZERO)).unwrap(), 0);
    assert!(!fd_readable(efd, 0));
}

#[test]
fn epoll_loop_survives_more_completions_than_the_completion_queue() {
    // The shape of capi/examples/tenants_epoll.c, which failed in most
    // runs once the read transaction's probes were io_uring requests:
    // thousands of requests in flight against a 1,024-entry completion
    // queue, the thread asleep in epoll_wait on the eventfd. The kernel
    // then finishes some requests as task work of this thread and
    // interrupts epoll_wait (EINTR, no signal involved): a wakeup, not a
    // failure. Every request must complete without a stall.
    let dir = tempfile::tempdir().unwrap();
    let b = backend();
    let efd = b.event_fd().expect("io_uring registers an eventfd");
    // SAFETY: epoll_create1 with a constant flag; checked below.
    let ep = unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) };
    assert!(ep >= 0);
    let mut ev = libc::epoll_event { events: libc::EPOLLIN as u32, u64: 7 };
    // SAFETY: valid epoll descriptor and event.
    assert_eq!(unsafe { libc::epoll_ctl(ep, libc::EPOLL_CTL_ADD, efd, &mut ev) }, 0);
    let files: Vec<Arc<dyn File>> = (0..16).map(|i| open(&b, dir.path().join(format!("t{i}")).to_str().unwrap(), false)).collect();
    let (mut sleeps, mut interrupted) = (0, 0);
    for round in 0..4 {
        // Per file: 90 page writes and their sync, then the same pages
        // read back and an existence check of the file's journal.
        let mut cs = Vec::new();
        for (i, f) in files.iter().enumerate() {
            for p in 0..90 {
                cs.push(f.write((p * 4096) as u64, Buffer::from_vec(pattern(i + round, p))).unwrap());
            }
            cs.push(f.sync(false).unwrap());
            for p in 0..90 {
                cs.push(f.read((p * 4096) as u64, Buffer::zeroed(4096)).unwrap());
            }
            cs.push(b.exists_request(&format!("{}-journal", dir.path().join(format!("t{i}")).to_str().unwrap())).unwrap());
        }
        assert!(cs.len() > 1024);
        loop {
            b.poll(Some(Duration::ZERO)).unwrap();
            if cs.iter().all(|c| c.is_done()) {
                break;
            }
            let mut got = libc::epoll_event { events: 0, u64: 0 };
            // SAFETY: one event slot on the stack.
            let n = unsafe { libc::epoll_wait(ep, &mut got, 1, 5000) };
            if n < 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
                interrupted += 1;
                continue;
            }
            assert_eq!(n, 1, "5 s without a completion: stuck with {} in flight", b.in_flight());
            sleeps += 1;
        }
        for (k, c) in cs.iter().enumerate() {
            let r = c.take().unwrap();
            let (i, j) = (k / 182, k % 182);
            if (91..181).contains(&j) {
                assert_eq!(&r.buffer.unwrap()[..], &pattern(i + round, j - 91)[..]);
            }
        }
    }
    assert_eq!(b.in_flight(), 0);
    // SAFETY: closing our own epoll descriptor.
    unsafe { libc::close(ep) };
    eprintln!("{sleeps} epoll wakeups, {interrupted} EINTR");
}
