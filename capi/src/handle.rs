//! # The `sqlite3` and `sqlite3_stmt` handles
//!
//! A `sqlite3` owns one engine [`Connection`], the connection's error state
//! (what `sqlite3_errcode`/`errmsg`/`error_offset` report) and the list of
//! its live statements. A `sqlite3_stmt` owns one engine [`Statement`], a
//! pointer back to its `sqlite3`, and per-column caches of the current row.
//!
//! ## Locking
//! Every access to a handle's insides happens while holding the connection's
//! [`DbLock`](crate::lock::DbLock), a re-entrant lock: another thread waits (serialized mode), and
//! the same thread may re-enter from a callback (a user function calling
//! `sqlite3_errmsg`, an exec callback preparing another statement). Because
//! of that re-entrancy, the engine connection itself sits in a `RefCell`: a
//! callback that needs it while `sqlite3_step` is using it gets a clean
//! `SQLITE_MISUSE` error instead of aliasing.
//!
//! ## Re-entrancy: SQL from inside a callback
//! While `sqlite3_step` runs, the engine connection is mutably borrowed
//! out of its `RefCell` and lent to the VM. Callbacks that SQLite lets run
//! SQL on their own connection (application-defined functions, the
//! progress handler) get it back from the engine for the time of the call
//! (`ringlite::vdbe::host`): [`lend_to_callback`] publishes it in
//! [`sqlite3::lent`], and [`sqlite3::with_conn`] uses it when the
//! `RefCell` is taken. The pointer comes from the `&mut` the engine handed
//! to the callback and is used only while that callback runs, by the same
//! thread (the connection lock is re-entrant, other threads wait), so no
//! two `&mut` to the connection are ever live: the running statement's
//! is reborrowed for exactly that time. Nesting stacks (a function calling
//! SQL that calls a function...), each level restoring the pointer of the
//! one outside it.
//!
//! A statement being stepped cannot be stepped, reset or finalized from
//! its own callback (`SQLITE_MISUSE`, [`Stepping`]). Other callbacks (commit,
//! rollback, update, WAL and busy hooks, the authorizer, collations) are
//! not lent the connection, as SQLite documents that they must not use
//! it: SQL from there gets `SQLITE_MISUSE`. Counters read inside a
//! function call (`sqlite3_changes`, `last_insert_rowid`) answer what
//! the VM passed to the call (`sqlite3::counters_in_call`).

//! ## Lifetimes
//! Handles are `Box`es turned into raw pointers. A `sqlite3` is freed by
//! `sqlite3_close` (refused while statements live) or, after
//! `sqlite3_close_v2`, when its last statement is finalized (a "zombie").
//! Magic numbers catch use of NULL, closed or finalized handles where SQLite
//! would report `SQLITE_MISUSE`; a dangling pointer to freed memory cannot be
//! caught, exactly as in SQLite.

use crate::lock::ReentrantLock;
use crate::mutex::sqlite3_mutex;
use crate::value::sqlite3_value;
use ringlite::{Connection, Statement};
use std::cell::RefCell;
use std::ffi::CString;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;

/// Magic of a usable connection.
pub(crate) const DB_OPEN: u32 = 0xa029_a697;
/// Magic of a connection closed by `close_v2` with statements still alive.
pub(crate) const DB_ZOMBIE: u32 = 0x64cf_fc7f;
/// Magic of a connection whose `open` failed: only errcode/errmsg/close work.
pub(crate) const DB_SICK: u32 = 0x4b77_1290;
/// Magic of a live statement.
pub(crate) const STMT_LIVE: u32 = 0x5c07_51ee;

/// What `sqlite3_errcode` and friends report.
#[derive(Default)]
pub struct ErrorState {
    /// Extended result code of the most recent API call that set it.
    pub code: i32,
    /// Message (`None`: SQLite's generic text for `code`).
    pub message: Option<CString>,
    /// Byte offset into the SQL of the error, or -1.
    pub offset: i32,
    /// UTF-16 copy of the message, made on demand by `errmsg16`.
    pub message16: Option<Vec<u16>>,
    /// `sqlite3_system_errno`: the OS error number at the last
    /// `SQLITE_CANTOPEN` or `SQLITE_IOERR` recorded (0 before any).
    pub sys_errno: i32,
}

/// The `sqlite3` handle.
pub struct sqlite3 {
    /// One of `DB_OPEN`, `DB_ZOMBIE`, `DB_SICK`, or anything else once freed.
    pub magic: AtomicU32,
    /// Serializes threads; see the module doc.
    pub lock: ReentrantLock,
    /// The engine connection (`None` when open failed).
    pub conn: RefCell<Option<Connection>>,
    /// Error state.
    pub error: RefCell<ErrorState>,
    /// Live statements, newest first (the order `sqlite3_next_stmt` walks).
    pub stmts: RefCell<Vec<*mut sqlite3_stmt>>,
    /// `sqlite3_extended_result_codes` (or `SQLITE_OPEN_EXRESCODE`).
    pub extended_codes: std::cell::Cell<bool>,
    /// The connection's interrupt flag, shared with the engine; readable
    /// without the lock (`sqlite3_interrupt` may come from any thread).
    pub interrupt: Arc<AtomicBool>,
    /// The filename as given to open, for `sqlite3_db_filename` when the
    /// engine has none, and the URI parameter functions.
    pub filename: CString,
    /// Strings handed out by `sqlite3_db_name`, `db_filename` and the like:
    /// kept until close so the pointers stay valid.
    pub strings: RefCell<Vec<Box<[u8]>>>,
    /// Registered callbacks and their user data (owned by `hooks.rs`).
    pub hooks: RefCell<crate::slots::HookSlots>,
    /// Client data (`sqlite3_set_clientdata`).
    pub client_data: RefCell<Vec<(CString, *mut std::ffi::c_void, crate::types::sqlite3_destructor_type)>>,
    /// The statement `sqlite3_step` is running (for trace callbacks, which
    /// receive it), NULL otherwise.
    pub current_stmt: std::cell::Cell<*mut sqlite3_stmt>,
    /// What `sqlite3_db_mutex` returns: stands for `lock`.
    pub mutex: Box<sqlite3_mutex>,
    /// Per-connection configuration flags of `sqlite3_db_config`.
    pub db_config: RefCell<std::collections::HashMap<i32, i32>>,
    /// Open blob handles on this connection and unfinished backups reading
    /// from it: like live statements, they make `sqlite3_close` answer
    /// `SQLITE_BUSY` and keep a `close_v2` zombie alive.
    pub pins: std::cell::Cell<usize>,
    /// While an application-defined function of this connection runs (the
    /// engine connection is lent to the step then): the connection's
    /// `last_insert_rowid`, `changes` and `total_changes` as the VM had
    /// them at the call, which `sqlite3_last_insert_rowid`, `changes` and
    /// `total_changes` answer from there (`function.rs` sets it).
    pub counters_in_call: std::cell::Cell<Option<CallCounters>>,
    /// The engine connection lent to the callback running now, while the
    /// `RefCell` above is borrowed by the step that called it; null
    /// otherwise (see the module doc and [`lend_to_callback`]).
    pub lent: std::cell::Cell<*mut Connection>,
    /// The change the pre-update hook is being told of, while its C
    /// callback runs (`preupdate.rs`), and the values handed out for it.
    pub preupdate: RefCell<crate::slots::PreUpdateState>,
    /// How many of its statements are being stepped (nested: a callback
    /// stepping another), and which ([`Stepping`]).
    pub stepping: std::cell::Cell<u32>,
    pub stepping_list: RefCell<Vec<usize>>,
    /// The `sqlite3_file` objects `sqlite3_file_control` handed out for
    /// files on the engine's own I/O (`file_control.rs`): alive until close.
    // (Typed there as `vfs_unix::NativeFileObject`; held as `Any` so the
    // handle, the base of every API module, names no VFS module.)
    pub file_objects: RefCell<Vec<Box<dyn std::any::Any>>>,
}

/// The counters a function call sees (see `sqlite3::counters_in_call`).
#[derive(Debug, Clone, Copy)]
pub struct CallCounters {
    /// `sqlite3_last_insert_rowid`.
    pub last_insert_rowid: i64,
    /// `sqlite3_changes64`.
    pub changes: i64,
    /// `sqlite3_total_changes64`.
    pub total_changes: i64,
}

// The handle is shared between threads by C code; all interior state is
// accessed only under `lock`.
unsafe impl Sync for sqlite3 {}
unsafe impl Send for sqlite3 {}

impl sqlite3 {
    /// A new handle around `conn` (or a "sick" one when open failed).
    pub fn new(conn: Option<Connection>, filename: CString) -> Box<sqlite3> {
        let interrupt = conn.as_ref().map(|c| c.interrupt_flag()).unwrap_or_else(|| Arc::new(AtomicBool::new(false)));
        let mut db = Box::new(sqlite3 {
            mutex: sqlite3_mutex::unset(),
            magic: AtomicU32::new(if conn.is_some() { DB_OPEN } else { DB_SICK }),
            lock: ReentrantLock::default(),
            conn: RefCell::new(conn),
            error: RefCell::new(ErrorState { offset: -1, ..Default::default() }),
            stmts: RefCell::new(Vec::new()),
            extended_codes: std::cell::Cell::new(false),
            interrupt,
            filename,
            strings: RefCell::new(Vec::new()),
            hooks: RefCell::new(Default::default()),
            client_data: RefCell::new(Vec::new()),
            current_stmt: std::cell::Cell::new(std::ptr::null_mut()),
            db_config: RefCell::new(Default::default()),
            pins: std::cell::Cell::new(0),
            counters_in_call: std::cell::Cell::new(None),
            file_objects: RefCell::new(Vec::new()),
            lent: std::cell::Cell::new(std::ptr::null_mut()),
            preupdate: RefCell::new(Default::default()),
            stepping: std::cell::Cell::new(0),
            stepping_list: RefCell::new(Vec::new()),
        });
        // The handle is boxed: its lock no longer moves.
        db.mutex = sqlite3_mutex::borrowing(&db.lock);
        db
    }

    /// Whether the handle is open and usable.
    pub fn is_open(&self) -> bool {
        self.magic.load(Ordering::Acquire) == DB_OPEN
    }

    /// Run `f` with the engine connection, or fail with SQLITE_MISUSE if a
    /// callback re-enters while the connection is in use.
    /// Whether statements, blob handles or backups still use the handle.
    pub fn in_use(&self) -> bool {
        !self.stmts.borrow().is_empty() || self.pins.get() > 0
    }

    pub fn with_conn<T>(&self, f: impl FnOnce(&mut Connection) -> T) -> Result<T, ringlite::Error> {
        match self.conn.try_borrow_mut() {
            Ok(mut c) => match c.as_mut() {
                Some(c) => Ok(f(c)),
                None => Err(ringlite::Error::code(ringlite::error::SQLITE_MISUSE)),
            },
            Err(_) => {
                let lent = self.lent.get();
                if lent.is_null() {
                    return Err(ringlite::Error::new(ringlite::error::SQLITE_MISUSE, "the connection is in use by the statement that called back"));
                }
                // SAFETY: set by `lend_to_callback` from the `&mut` the
                // engine lent to the callback running on this thread (the
                // lock is held), and cleared when it returns; the step that
                // lent it does not touch the connection until then.
                Ok(f(unsafe { &mut *lent }))
            }
        }
    }

    /// Keep bytes (a NUL-terminated string or filename layout) alive until
    /// close and return their address.
    pub fn keep(&self, bytes: Vec<u8>) -> *const std::ffi::c_char {
        let b = bytes.into_boxed_slice();
        let p = b.as_ptr() as *const std::ffi::c_char;
        self.strings.borrow_mut().push(b);
        p
    }
}

/// Run `call` (a C callback of `d`'s) with the engine connection `host`
/// lent to it, reachable through [`sqlite3::with_conn`] (nested, the outer
/// lender's pointer is restored afterwards).
pub fn lend_to_callback<T>(d: &sqlite3, host: Option<&mut dyn ringlite::vdbe::host::VmHost>, call: impl FnOnce() -> T) -> T {
    let Some(conn) = host.and_then(Connection::from_host) else {
        return call();
    };
    struct Restore<'a>(&'a sqlite3, *mut Connection);
    impl Drop for Restore<'_> {
        fn drop(&mut self) {
            self.0.lent.set(self.1);
        }
    }
    let _restore = Restore(d, d.lent.replace(conn as *mut Connection));
    call()
}

/// The statements of a connection being stepped, innermost last (kept in
/// the handle, [`sqlite3::stepping`]): a callback may not step, reset or
/// finalize the statement that called it. Only the thread holding the
/// connection's lock steps its statements, so a list per connection is
/// exact.
pub struct Stepping;

impl Stepping {
    /// Whether `p`, a statement of `d`, is being stepped (its callback is
    /// calling). The caller holds `d`'s lock (another thread stepping a
    /// statement of `d` changes the list).
    pub fn contains(d: &sqlite3, p: *mut sqlite3_stmt) -> bool {
        debug_assert!(d.lock.held());
        d.stepping.get() > 0 && d.stepping_list.borrow().contains(&(p as usize))
    }

    /// Mark `p` (a statement of `d`) as stepping while `f` runs.
    pub fn during<T>(d: &sqlite3, p: *mut sqlite3_stmt, f: impl FnOnce() -> T) -> T {
        struct Pop<'a>(&'a sqlite3);
        impl Drop for Pop<'_> {
            fn drop(&mut self) {
                self.0.stepping_list.borrow_mut().pop();
                self.0.stepping.set(self.0.stepping.get() - 1);
            }
        }
        d.stepping_list.borrow_mut().push(p as usize);
        d.stepping.set(d.stepping.get() + 1);
        let _pop = Pop(d);
        f()
    }
}

/// Validate a `sqlite3*` from C: `Some` if it points at an open handle.
pub unsafe fn db_ref<'a>(db: *mut sqlite3) -> Option<&'a sqlite3> {
    // SAFETY: the caller guarantees: `db` is NULL or a connection this library opened and has not freed.
    unsafe {
        if db.is_null() {
            return None;
        }
        let r = &*db;
        if r.is_open() {
            Some(r)
        } else {
            None
        }
    }
}

/// Like [`db_ref`] but also accepts failed-open and zombie handles (for
/// errcode/errmsg, which work on them).
pub unsafe fn db_ref_any<'a>(db: *mut sqlite3) -> Option<&'a sqlite3> {
    // SAFETY: the caller guarantees: `db` is NULL or a connection this library opened and has not freed.
    unsafe {
        if db.is_null() {
            return None;
        }
        let r = &*db;
        match r.magic.load(Ordering::Acquire) {
            DB_OPEN | DB_SICK | DB_ZOMBIE => Some(r),
            _ => None,
        }
    }
}

/// Cached conversions of one result column of the current row.
#[derive(Default)]
pub struct ColumnCache {
    /// Each column as a protected `sqlite3_value`, filled on first access
    /// in a row; all `column_*` accessors go through it, so pointers they
    /// return stay valid until the next step/reset/finalize. The values
    /// (and their text buffers) are reused from row to row: an entry
    /// holds the current row's column only when its number is `row`.
    pub values: Vec<(u64, Box<sqlite3_value>)>,
    /// The current row's number.
    pub row: u64,
}

/// The `sqlite3_stmt` handle.
pub struct sqlite3_stmt {
    /// `STMT_LIVE` while usable.
    pub magic: u32,
    /// The connection that prepared it.
    pub db: *mut sqlite3,
    /// The engine statement.
    pub stmt: Statement,
    /// The SQL text, NUL-terminated, for `sqlite3_sql`.
    pub sql: CString,
    /// The row caches.
    pub cache: ColumnCache,
    /// Strings handed out (column names, decltypes, parameter names, in
    /// UTF-8 and UTF-16), kept until finalize.
    pub names: std::collections::HashMap<(u8, usize), Vec<u8>>,
    /// `Statement::recompiles` when `names` was filled: a statement
    /// compiled again (schema change) may name its columns otherwise.
    pub names_generation: u64,
    /// Expanded SQL / normalized SQL kept for `sqlite3_normalized_sql`.
    pub normalized: Option<CString>,
    /// Last step ended (DONE or error): the next step resets first.
    pub finished: bool,
    /// Destructors of the current bindings, by parameter index: the
    /// application's buffers are released when the binding is replaced,
    /// cleared or the statement finalized, as in SQLite (the engine holds a
    /// copy of the value).
    pub bound: Vec<(usize, unsafe extern "C" fn(*mut std::ffi::c_void), *mut std::ffi::c_void)>,
    /// Result code of the most recent failed step (returned again by
    /// reset and finalize), `SQLITE_OK` otherwise.
    pub last_rc: i32,
    /// Message of that failure.
    pub last_msg: Option<String>,
    /// `Some` while running (stepped since the last reset), holding when
    /// the run began if a profile callback was registered then (the clock
    /// is read only for one: once per statement showed in short queries).
    pub started: Option<Option<std::time::Instant>>,
    /// Stepped since the last reset: reset and finalize then record the
    /// statement's outcome on the connection (and only then).
    pub ran: bool,
    /// What out-of-range column accessors return.
    pub null_value: Box<sqlite3_value>,
}

/// Validate a `sqlite3_stmt*` from C.
pub unsafe fn stmt_ref<'a>(p: *mut sqlite3_stmt) -> Option<&'a mut sqlite3_stmt> {
    // SAFETY: the caller guarantees: `p` is NULL or a statement from `sqlite3_prepare*` not yet finalized.
    unsafe {
        if p.is_null() {
            return None;
        }
        let s = &mut *p;
        if s.magic == STMT_LIVE && !s.db.is_null() {
            Some(s)
        } else {
            None
        }
    }
}

impl sqlite3_stmt {
    /// The owning connection.
    pub fn db<'a>(&self) -> &'a sqlite3 {
        unsafe { &*self.db }
    }

    /// Release the application buffer bound to parameter `i`, if any (all
    /// of them when `i` is `None`).
    // (Inline, the release out of line: every bind asks, and most
    // statements hold no application buffer.)
    #[inline]
    pub fn release_bound(&mut self, i: Option<usize>) {
        if !self.bound.is_empty() {
            self.release_bound_held(i);
        }
    }

    /// [`sqlite3_stmt::release_bound`] when buffers are held.
    #[inline(never)]
    fn release_bound_held(&mut self, i: Option<usize>) {
        let (gone, kept): (Vec<_>, Vec<_>) = std::mem::take(&mut self.bound).into_iter().partition(|b| i.is_none_or(|i| b.0 == i));
        self.bound = kept;
        for (_, destroy, p) in gone {
            unsafe { destroy(p) };
        }
    }

    /// What reset and finalize do to the connection's error state and
    /// return: the failure of the last step, if any (recorded again only
    /// when the statement ran since the last reset).
    pub fn conclude(&mut self) -> i32 {
        let db = self.db();
        let rc = std::mem::replace(&mut self.last_rc, 0);
        let msg = self.last_msg.take();
        if std::mem::replace(&mut self.ran, false) {
            crate::error::set_error(db, rc, msg.as_deref());
        }
        crate::error::visible_code(db, rc)
    }

    /// Forget the current row's cached conversions.
    pub fn clear_row(&mut self) {
        self.cache.row += 1;
    }
}

/// `f` applied to the engine connection of `db` under its lock, or
/// `default` for a bad handle or a connection in use.
pub(crate) fn conn_value<T>(db: *mut sqlite3, default: T, f: impl FnOnce(&mut Connection) -> T) -> T {
    let Some(d) = (unsafe { db_ref(db) }) else {
        return default;
    };
    let _g = d.lock.lock();
    d.with_conn(f).unwrap_or(default)
}

/// The mutex that serializes calls on `db`.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_db_mutex(db: *mut sqlite3) -> *mut sqlite3_mutex {
    // SAFETY: the C caller keeps SQLite's contract for this entry point: `db` is NULL or a connection this
    // library opened and has not freed.
    unsafe {
        ffi_guard!(std::ptr::null_mut(), {
            match db_ref(db) {
                Some(d) => &*d.mutex as *const sqlite3_mutex as *mut sqlite3_mutex,
                None => std::ptr::null_mut(),
            }
        })
    }
}
