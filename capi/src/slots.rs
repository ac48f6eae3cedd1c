//! # What a connection handle holds for its callbacks
//!
//! The C callbacks in force on a connection and their user data, kept in
//! the handle ([`crate::handle::sqlite3::hooks`]), and the copy of a row
//! change the pre-update hook's accessors read while its callback runs.
//! Only data lives here (with the two resets the close, prepare and step
//! calls make): installing a callback, and the trampolines the
//! engine calls, are in the API modules that own each kind (`hooks.rs`,
//! `trace.rs`, `authorizer.rs`, `collation.rs`, `preupdate.rs`). Keeping
//! the data apart lets the handle name it without importing those modules
//! (the handle is the base every API module stands on).
//!
//! Invariant: a slot is copied out (its `RefCell` borrow ends) before the
//! C callback runs, so the callback may install other callbacks freely.

use crate::handle::sqlite3;
use crate::types::{sqlite3_int64, sqlite3_uint64};
use crate::value::sqlite3_value;
use ringlite::value::Value;
use std::ffi::{c_char, c_int, c_uint, c_void};

/// Forget every callback (close).
pub fn clear_all(d: &sqlite3) {
    if let Ok(mut h) = d.hooks.try_borrow_mut() {
        *h = HookSlots::default();
    }
}

/// A new step, prepare or checkpoint: the busy handler's count starts
/// over, as SQLite's does.
pub fn reset_vfs_busy_count(d: &sqlite3) {
    if let Ok(h) = d.hooks.try_borrow() {
        h.vfs_busy_count.store(0, std::sync::atomic::Ordering::Relaxed);
    }
}

/// A raw pointer a callback closure may carry to another thread: the
/// connection lock serializes every call.
#[derive(Clone, Copy)]
pub struct SendPtr(pub *mut c_void);
unsafe impl Send for SendPtr {}
unsafe impl Sync for SendPtr {}
impl SendPtr {
    /// The pointer (a method, so closures capture the whole wrapper).
    pub fn get(self) -> *mut c_void {
        self.0
    }
}

pub type CommitFn = unsafe extern "C" fn(*mut c_void) -> c_int;
pub type RollbackFn = unsafe extern "C" fn(*mut c_void);
pub type UpdateFn = unsafe extern "C" fn(*mut c_void, c_int, *const c_char, *const c_char, sqlite3_int64);
pub type ProgressFn = unsafe extern "C" fn(*mut c_void) -> c_int;
pub type BusyFn = unsafe extern "C" fn(*mut c_void, c_int) -> c_int;
pub type WalFn = unsafe extern "C" fn(*mut c_void, *mut sqlite3, *const c_char, c_int) -> c_int;

/// The callbacks in force, each with its user data.
#[derive(Default)]
pub struct HookSlots {
    pub commit: Option<(CommitFn, SendPtr)>,
    pub rollback: Option<(RollbackFn, SendPtr)>,
    pub update: Option<(UpdateFn, SendPtr)>,
    /// Tracing callbacks (`trace.rs`).
    pub tracing: Tracers,
    pub wal: Option<(WalFn, SendPtr)>,
    /// The pre-update hook (`preupdate.rs`).
    pub preupdate: Option<(PreUpdateFn, SendPtr)>,
    pub progress: Option<(ProgressFn, SendPtr)>,
    pub busy: Option<(BusyFn, SendPtr)>,
    /// `sqlite3_busy_timeout`'s milliseconds while it is the busy handler
    /// in force (0: none), for the handler an application VFS calls.
    pub busy_timeout_ms: c_int,
    /// SQLite's retry count of the busy handler, one per connection: the
    /// engine's own waits and an application VFS's calls through
    /// `SQLITE_FCNTL_BUSYHANDLER` share it (`Connection::share_busy_count`):
    /// 0 at each step, prepare and checkpoint, -1 once the handler gave up
    /// (no more calls until then).
    pub vfs_busy_count: std::sync::Arc<std::sync::atomic::AtomicI32>,
    /// The authorizer (`authorizer.rs`).
    pub authorizer: Option<AuthSlot>,
    /// `sqlite3_collation_needed` / `16` (`collation.rs`).
    pub collation_needed: Option<NeededSlot>,
}

pub type TraceV2 = unsafe extern "C" fn(c_uint, *mut c_void, *mut c_void, *mut c_void) -> c_int;
pub type LegacyTrace = unsafe extern "C" fn(*mut c_void, *const c_char);
pub type LegacyProfile = unsafe extern "C" fn(*mut c_void, *const c_char, sqlite3_uint64);

/// The tracing callbacks of a connection.
#[derive(Default, Clone, Copy)]
pub struct Tracers {
    pub v2: Option<(c_uint, TraceV2, SendPtr)>,
    pub legacy: Option<(LegacyTrace, SendPtr)>,
    pub profile: Option<(LegacyProfile, SendPtr)>,
}

pub type AuthFn = unsafe extern "C" fn(*mut c_void, c_int, *const c_char, *const c_char, *const c_char, *const c_char) -> c_int;

/// The authorizer in force and its user data.
pub type AuthSlot = (AuthFn, SendPtr);

/// The `sqlite3_collation_needed` callbacks in force: UTF-8 and/or UTF-16
/// flavour, with the user data.
#[derive(Clone, Copy)]
pub struct NeededSlot {
    pub arg: SendPtr,
    pub utf8: Option<unsafe extern "C" fn(*mut c_void, *mut sqlite3, c_int, *const c_char)>,
    pub utf16: Option<unsafe extern "C" fn(*mut c_void, *mut sqlite3, c_int, *const c_void)>,
}

/// The C callback's type.
pub type PreUpdateFn = unsafe extern "C" fn(*mut c_void, *mut sqlite3, c_int, *const c_char, *const c_char, sqlite3_int64, sqlite3_int64);

/// The change being told, while the callback runs.
#[derive(Default)]
pub struct PreUpdateState {
    /// `None` outside a callback.
    pub change: Option<Change>,
    /// Values handed out by `_old`/`_new`, freed when the callback returns
    /// (boxed: the application holds pointers to them while the vector grows).
    #[allow(clippy::vec_box, reason = "C holds pointers to the boxed values: they must not move when the vector grows")]
    pub handed: Vec<Box<sqlite3_value>>,
}

pub struct Change {
    pub op: i32,
    pub old: Option<Vec<Value>>,
    pub new: Option<Vec<Value>>,
    pub depth: i32,
    pub blob_write: i32,
    /// Whether columns are counted past the last (a rowid table's
    /// cursor has one more field in SQLite: asking for it is a misuse,
    /// not out of range).
    pub rowid_field: bool,
}
