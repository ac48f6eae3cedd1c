//! Backend selection: async connections share their thread's ring, blocking
//! connections use `sync`, and `RINGLITE_IO` forces either. One test in
//! its own binary, because it changes the process environment.

use ringlite::io::{backend_for, IoBackend};
use std::sync::Arc;

fn same(a: &Arc<dyn IoBackend>, b: &Arc<dyn IoBackend>) -> bool {
    std::ptr::eq(Arc::as_ptr(a) as *const u8, Arc::as_ptr(b) as *const u8)
}

#[test]
fn backend_selection_and_forced_fallback() {
    std::env::remove_var("RINGLITE_IO");
    let a = backend_for(true);
    let b = backend_for(true);
    assert_eq!(a.name(), "io_uring");
    assert!(same(&a, &b), "async connections of one thread share one ring");
    let other = std::thread::spawn(|| {
        let x = backend_for(true);
        (x.name(), Arc::as_ptr(&x) as *const u8 as usize)
    })
    .join()
    .unwrap();
    assert_eq!(other.0, "io_uring");
    assert_ne!(other.1, Arc::as_ptr(&a) as *const u8 as usize, "each thread has its own ring");
    assert_eq!(backend_for(false).name(), "sync");

    std::env::set_var("RINGLITE_IO", "sync");
    assert_eq!(backend_for(true).name(), "sync");
    assert_eq!(backend_for(false).name(), "sync");

    std::env::set_var("RINGLITE_IO", "uring");
    assert_eq!(backend_for(false).name(), "io_uring");
    assert!(same(&backend_for(false), &a));
    std::env::remove_var("RINGLITE_IO");

    // A database written through the selected async backend is ordinary.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sel.db").to_str().unwrap().to_string();
    let f = a.open(&path, ringlite::io::OpenOptions { create: true, ..Default::default() }).unwrap();
    let c = f.write(0, ringlite::io::Buffer::from_vec(b"hello".to_vec())).unwrap();
    while !c.is_done() {
        a.poll(None).unwrap();
    }
    c.take().unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), b"hello");
}

/// In a thread whose seccomp filter makes `io_uring_setup` fail with
/// EPERM (as container runtimes do), async connections quietly get `sync`.
#[test]
#[allow(unsafe_code)]
fn ring_setup_denied_by_seccomp_falls_back_to_sync() {
    let name = std::thread::spawn(|| {
        // BPF: load the syscall number; io_uring_setup -> ERRNO(EPERM); else allow.
        let filter = [
            libc::sock_filter { code: (libc::BPF_LD | libc::BPF_W | libc::BPF_ABS) as u16, jt: 0, jf: 0, k: 0 },
            libc::sock_filter { code: (libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K) as u16, jt: 0, jf: 1, k: libc::SYS_io_uring_setup as u32 },
            libc::sock_filter { code: (libc::BPF_RET | libc::BPF_K) as u16, jt: 0, jf: 0, k: libc::SECCOMP_RET_ERRNO | libc::EPERM as u32 },
            libc::sock_filter { code: (libc::BPF_RET | libc::BPF_K) as u16, jt: 0, jf: 0, k: libc::SECCOMP_RET_ALLOW },
        ];
        let prog = libc::sock_fprog { len: filter.len() as u16, filter: filter.as_ptr() as *mut _ };
        // SAFETY: both prctl calls only affect this (test) thread; `prog`
        // points at a filter that lives across the call.
        unsafe {
            assert_eq!(libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), 0);
            assert_eq!(libc::prctl(libc::PR_SET_SECCOMP, libc::SECCOMP_MODE_FILTER, &prog as *const libc::sock_fprog), 0);
        }
        assert!(ringlite::io::IoUringBackend::new().is_err());
        backend_for(true).name()
    })
    .join()
    .unwrap();
    assert_eq!(name, "sync");
}
