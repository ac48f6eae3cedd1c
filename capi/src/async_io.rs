//! # ringlite's async I/O API: `SQLITE_OPEN_ASYNC`, `sqlite3_io_poll`,
//! `sqlite3_io_fd`, `sqlite3_io_ready`
//!
//! A connection opened with `SQLITE_OPEN_ASYNC` may answer `SQLITE_IO`
//! from `sqlite3_step`; the caller drives the thread's I/O ring with these
//! calls and steps again. Everything else behaves as SQLite does.

use crate::consts::*;
use crate::error::misuse;
use crate::handle::{conn_value, db_ref, sqlite3};
use std::ffi::c_int;

/// ringlite extension: drive the I/O of async connections (opened with
/// `SQLITE_OPEN_ASYNC`). Hands every request queued since the last call to
/// the kernel, then reaps finished ones: `timeout_ms` 0 does not wait, a
/// positive value waits at most that many milliseconds for one to finish,
/// a negative one waits until at least one finishes (returns at once when
/// nothing is in flight, or while a statement of the thread that ran out of
/// its `PRAGMA step_quantum` has not been stepped, reset or finalized since:
/// that one can run now). Call it after `sqlite3_step` answered `SQLITE_IO`,
/// then step again.
///
/// All async connections opened on one thread share one I/O context (one
/// io_uring ring): a poll through any of them serves all of them, so a
/// thread serving many databases polls once per turn, not once per
/// connection. A request that fails does not fail the poll: its error
/// (`SQLITE_IOERR_READ`, `SQLITE_IOERR_WRITE`, `SQLITE_IOERR_FSYNC`, ...)
/// is returned by the next `sqlite3_step` of the statement that needed it.
/// Returns `SQLITE_OK`, or an error when the ring itself fails. On a
/// blocking connection it returns `SQLITE_OK` without waiting.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_io_poll(db: *mut sqlite3, timeout_ms: c_int) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed.
    unsafe {
        ffi_guard!(SQLITE_INTERNAL, {
            let Some(d) = db_ref(db) else {
                return misuse();
            };
            let _g = d.lock.lock();
            let rc = d.with_conn(|c| match c.io_poll(timeout_ms) {
                Ok(_) => SQLITE_OK,
                Err(e) => {
                    crate::error::set_error(d, e.code, Some(&e.message));
                    e.code
                }
            });
            rc.unwrap_or(SQLITE_MISUSE)
        })
    }
}

/// ringlite extension: a file descriptor (an eventfd registered with the
/// ring) that becomes readable when completions are waiting to be reaped,
/// for programs that sleep in their own event loop (epoll, poll, libuv,
/// ...): the same descriptor for every async connection of the thread.
/// `sqlite3_step` only queues requests, so call `sqlite3_io_poll(db, 0)`
/// before sleeping on the descriptor (that submits them), and again when it
/// fires (that reaps the completions and re-arms it); then step again. A
/// poll that reaped completions leaves the descriptor readable (the
/// completions may belong to statements not stepped since), so a loop that
/// polls just before sleeping wakes at once rather than sleeping on them;
/// a poll that reaps nothing re-arms it. The descriptor belongs to the
/// library: do not read or close it.
///
/// The wait on it may end with `EINTR` although no signal handler ran: the
/// kernel finishes some io_uring requests (buffered reads retried after a
/// page-cache miss, completions while the completion queue is full) as work
/// of the thread that submitted them, and interrupts that thread's sleep to
/// run it. Treat `EINTR` as a wakeup: poll, step, and sleep again.
///
/// Under `RINGLITE_IO_DELAY` (simulated slow storage) the descriptor is an
/// epoll instance watching a timer set to the next read's deadline and the
/// ring's eventfd: the same rules apply.
///
/// Returns -1 when there is none: blocking connections, and async ones
/// where no ring could be set up (they then never answer `SQLITE_IO`).
#[no_mangle]
pub unsafe extern "C" fn sqlite3_io_fd(db: *mut sqlite3) -> c_int {
    ffi_guard!(-1, { conn_value(db, -1, |c| c.io_fd().unwrap_or(-1)) })
}

/// ringlite extension: which async connections to step after a poll.
/// Writes into `aDb` up to `nDb` connections of the calling thread whose
/// I/O requests finished since they were last reported, oldest first, and
/// takes them off the thread's ready list; returns how many it wrote (0
/// when none is ready), or -1 for a bad argument (`db` not an open
/// connection, `nDb` negative, `aDb` NULL with `nDb` positive).
///
/// A runtime serving many tenants on one thread steps only these
/// connections' suspended statements after `sqlite3_io_poll`, instead of
/// every statement that answered `SQLITE_IO`: the cost of a poll and of
/// this call is that of the requests that finished, not of the number of
/// idle connections. A loop looks like:
///
/// ```c
/// sqlite3_io_poll(any, -1);            // submit, wait for a completion
/// sqlite3 *ready[64]; int n;
/// while ((n = sqlite3_io_ready(any, ready, 64)) > 0)
///   for (int i = 0; i < n; i++) step_suspended_statements_of(ready[i]);
/// ```
///
/// `db` names the thread's ready list: any async connection opened on the
/// same thread gives the same answer (the list holds every async
/// connection opened on that thread, as the I/O ring does). A connection
/// is reported once however many of its requests finished, and again
/// after a later request finishes. A statement that answered `SQLITE_IO`
/// with none of its connection's requests in flight (it will retry at
/// once, or it ran out of its `PRAGMA step_quantum`) reports its
/// connection straight away, behind the connections already listed. So a wakeup is never lost,
/// but one may be spurious: a statement stepped then answers `SQLITE_IO`
/// again at once, without running. Connections closed (or made zombies by
/// `sqlite3_close_v2`) are no longer reported. Blocking connections are
/// never on the list; with them (or where async connections fell back to
/// blocking I/O) it returns 0.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_io_ready(db: *mut sqlite3, aDb: *mut *mut sqlite3, nDb: c_int) -> c_int {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed; `aDb` is NULL or writable.
    unsafe {
        ffi_guard!(-1, {
            let Some(d) = db_ref(db) else {
                return -1;
            };
            if nDb < 0 || (aDb.is_null() && nDb > 0) {
                return -1;
            }
            let _g = d.lock.lock();
            let mut tags = Vec::with_capacity((nDb as usize).min(1024));
            let n = d.with_conn(|c| c.io_ready(&mut tags, nDb as usize)).unwrap_or(0);
            debug_assert_eq!(n, tags.len());
            for (i, t) in tags.into_iter().enumerate() {
                *aDb.add(i) = t as *mut sqlite3;
            }
            n as c_int
        })
    }
}

/// ringlite extension: `sqlite3_open_v2` flag making `sqlite3_step` return
/// `SQLITE_IO` instead of blocking on disk I/O. A bit SQLite does not use.
///
/// Only `sqlite3_step` returns `SQLITE_IO`. These calls may do I/O on an
/// async connection and complete it before they return, blocking the
/// thread (on the shared ring) while they wait, as SQLite's would:
/// `sqlite3_open_v2` (the file header), `sqlite3_prepare*` (reading the
/// schema when it is not loaded or has changed), `sqlite3_exec` and
/// `sqlite3_get_table` (they step to the end), `sqlite3_reset` and
/// `sqlite3_finalize` of a statement left in the middle of a write
/// (committing or rolling back), `sqlite3_table_column_metadata` (schema),
/// and `sqlite3_close` (rolling back an open transaction). `sqlite3_step`
/// itself still blocks in three cases: rolling back after an error,
/// re-reading a schema another connection changed, and sleeping in the
/// busy handler or busy timeout when another connection holds a lock.
/// A statement stepped from inside a callback of a running statement of
/// the same connection (an application-defined function or the progress
/// handler running SQL) never returns `SQLITE_IO` either: the callback
/// could not hand it on, so it completes its I/O blocking.
///
/// The connections of one thread share one I/O context; where io_uring is
/// unavailable they silently use blocking pread/pwrite and never return
/// `SQLITE_IO` (`PRAGMA io_backend` tells which).
///
/// **Time quantum** (`PRAGMA step_quantum = N`, microseconds; 0, the
/// default, is none): a step of an async connection that has run for N µs
/// stops at the program's next jump and returns `SQLITE_IO`, so a
/// scheduler sharing the thread among tenants can serve the others before
/// one tenant's long statement (a full scan, an aggregate over a whole
/// table) finishes. The clock is read every 256 VM instructions at jumps,
/// so a step stops a few microseconds after its quantum; one instruction
/// that runs long by itself (sorting what a sorter holds, a slow
/// application function) is not cut. Nothing is in flight then: the
/// connection is reported by `sqlite3_io_ready` at once (behind those
/// already listed), `sqlite3_io_poll` does not wait while such a statement
/// waits to be stepped, and the next `sqlite3_step` continues exactly where
/// it stopped, repeating and skipping nothing. The pragma answers the
/// quantum in force; on a blocking connection it stays 0 (their steps
/// never return `SQLITE_IO`), statements stepped inside a callback are
/// never cut, and `sqlite3_exec` and the other calls that complete their
/// own I/O still return only when done. With a quantum set, `sqlite3_step` may return `SQLITE_IO` also
/// where no ring could be set up. An event loop sleeping on
/// `sqlite3_io_fd` takes what `sqlite3_io_ready` lists before it sleeps:
/// a yield does not make the descriptor readable.
///
/// A connection opened through an application VFS (`sqlite3_vfs_register`)
/// does its I/O by calling the VFS's methods, which are synchronous: with
/// this flag those calls block inside `sqlite3_step` as without it, and
/// `sqlite3_step` never returns `SQLITE_IO` (`PRAGMA io_backend` says
/// `vfs`).
pub const SQLITE_OPEN_ASYNC: i32 = 0x4000_0000;
