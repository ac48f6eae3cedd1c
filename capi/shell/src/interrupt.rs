//! # Ctrl-C during a statement
//!
//! At a terminal, SIGINT interrupts the running statement
//! (`sqlite3_interrupt`) instead of killing the shell, as in SQLite's
//! shell; at the prompt rustyline reads Ctrl-C itself.
//!
//! Invariants: `RUNNING` holds the connection of the statement being run
//! (NULL between statements) and is cleared before that connection can
//! close; the handler only reads the two atomics and calls
//! `sqlite3_interrupt`, which SQLite documents as safe from another
//! thread or a signal handler.

use crate::api::{Api, Db};
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};

static RUNNING: AtomicPtr<Db> = AtomicPtr::new(std::ptr::null_mut());
static INTERRUPT: AtomicUsize = AtomicUsize::new(0);

extern "C" fn on_sigint(_: libc::c_int) {
    let db = RUNNING.load(Ordering::Acquire);
    let f = INTERRUPT.load(Ordering::Acquire);
    if !db.is_null() && f != 0 {
        // SAFETY: `f` is the library's sqlite3_interrupt (stored by
        // `install`) and `db` an open connection (see the invariants).
        let f: unsafe extern "C" fn(*mut Db) = unsafe { std::mem::transmute(f) };
        unsafe { f(db) };
    }
}

/// Routes SIGINT to the running statement from now on.
pub fn install(api: &'static Api) {
    INTERRUPT.store(api.interrupt as usize, Ordering::Release);
    // SAFETY: installing a handler that only touches atomics and calls
    // an async-signal-safe library function.
    unsafe { libc::signal(libc::SIGINT, on_sigint as *const () as libc::sighandler_t) };
}

/// Marks `db` as running a statement (NULL: none).
pub fn running(db: *mut Db) {
    RUNNING.store(db, Ordering::Release);
}
