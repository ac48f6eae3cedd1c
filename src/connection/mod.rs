//! # Connections and statements: the engine's public API
//!
//! What the C ABI (`capi/`) calls. A [`Connection`] owns its databases
//! (index 0 main, 1 temp, 2.. attached in attach order: one `Btree` each,
//! see `attach.rs`), one schema per database plus their merged view that
//! statements compile against, and its registries (functions, collations,
//! hooks). A [`Statement`] owns a
//! compiled program and its VM state; it is stepped with the connection
//! that prepared it passed in, so neither holds a pointer to the other.
//!
//! Blocking versus async: a connection opened without `SQLITE_OPEN_ASYNC`
//! loops inside [`Statement::step`] until the VM can go on, exactly like
//! SQLite; an async one returns [`StepResult::Io`] instead and the caller
//! polls the I/O context.
//!
//! Files by concern: `open.rs` (filenames and URIs, opening, closing),
//! `settings.rs` (limits, `db_config` flags, busy handling),
//! `compiled_cache.rs` (programs kept by SQL text for re-prepares),
//! `schema_load.rs` (reading each database's schema table, the only
//! place the schema meets storage), `prepare.rs` (keeping the schemas
//! current and compiling), `statement.rs` (stepping, binding, reading
//! results); this file holds the connection's state, its registries
//! (functions, collations, hooks) and what it reports.
//!
//! Invariant: `Connection` and `Statement` are `Send`, which the compiler
//! checks (checked: connection_send); the C ABI serializes access per
//! connection with a mutex.

use crate::btree::{Btree, TxnState};
use crate::error::{Error, Result, SQLITE_BUSY, SQLITE_MISUSE};
use crate::io::IoContext;
use crate::sql::schema::Schema;
use crate::util::ascii::AsciiLower;
use crate::value::collation::Collation;
use crate::vdbe::func::{FuncDef, FunctionRegistry};
use crate::vdbe::ConnState;
use settings::*;
use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

pub use crate::sql::codegen::auth::Authorizer;

pub use crate::vdbe::BusyHandler;
pub use settings::{LIMIT_LENGTH, LIMIT_SQL_LENGTH};
pub use statement::Statement;

/// Callbacks a connection can carry (the C API's hooks).
pub enum Hook {
    /// `sqlite3_commit_hook`: returning `true` turns the COMMIT into a
    /// ROLLBACK.
    Commit(Option<Box<dyn FnMut() -> bool + Send>>),
    /// `sqlite3_wal_hook`: (database name, frames in the WAL) after each
    /// commit in WAL mode; a non-zero result code fails the statement.
    /// (Unlike SQLite, the automatic checkpoint is not a WAL hook: the
    /// C API sets `wal_autocheckpoint` to 0 while a user hook is in place.)
    Wal(Option<crate::vdbe::WalHook>),
    /// `sqlite3_preupdate_hook`: told of each row change before it is
    /// made, lent the connection (see `vdbe::exec::preupdate`).
    PreUpdate(Option<crate::vdbe::exec::preupdate::PreUpdateHook>),
    /// `sqlite3_rollback_hook`.
    Rollback(Option<Box<dyn FnMut() + Send>>),
    /// `sqlite3_update_hook`: (operation code SQLITE_INSERT/DELETE/UPDATE,
    /// database name, table name, rowid).
    Update(Option<Box<dyn FnMut(i32, &str, &str, i64) + Send>>),
    /// `sqlite3_progress_handler`: called about every `n` VM instructions;
    /// returning `true` interrupts the statement.
    Progress(i32, Option<crate::vdbe::ProgressHandler>),
    /// `sqlite3_set_authorizer`: (action code, arg1, arg2, database,
    /// trigger) to SQLITE_OK/DENY/IGNORE, asked while statements compile.
    Authorizer(Option<Authorizer>),
    /// `sqlite3_trace_v2`: (event mask, callback(event, statement SQL or
    /// expanded SQL, nanoseconds for PROFILE)).
    Trace(u32, Option<Box<dyn FnMut(u32, &str, i64) + Send>>),
}

/// Connection settings of [`Connection::config_flag`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigFlag {
    /// `PRAGMA foreign_keys` (`SQLITE_DBCONFIG_ENABLE_FKEY`).
    ForeignKeys,
    /// `PRAGMA legacy_alter_table` (`SQLITE_DBCONFIG_LEGACY_ALTER_TABLE`).
    LegacyAlterTable,
    /// `PRAGMA writable_schema` (`SQLITE_DBCONFIG_WRITABLE_SCHEMA`).
    WritableSchema,
    /// `PRAGMA trusted_schema` (`SQLITE_DBCONFIG_TRUSTED_SCHEMA`).
    TrustedSchema,
    /// Double-quoted strings in DML (`SQLITE_DBCONFIG_DQS_DML`).
    DqsDml,
    /// Double-quoted strings in DDL (`SQLITE_DBCONFIG_DQS_DDL`).
    DqsDdl,
    /// `SQLITE_DBCONFIG_DEFENSIVE`.
    Defensive,
    /// `SQLITE_DBCONFIG_ENABLE_TRIGGER`.
    EnableTrigger,
    /// `SQLITE_DBCONFIG_ENABLE_VIEW`.
    EnableView,
}

/// `SQLITE_OPEN_*` flag bits, as passed to `sqlite3_open_v2`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct OpenFlags(pub i32);

impl OpenFlags {
    /// SQLITE_OPEN_READONLY
    pub const READONLY: i32 = 0x0000_0001;
    /// SQLITE_OPEN_READWRITE
    pub const READWRITE: i32 = 0x0000_0002;
    /// SQLITE_OPEN_CREATE
    pub const CREATE: i32 = 0x0000_0004;
    /// SQLITE_OPEN_URI
    pub const URI: i32 = 0x0000_0040;
    /// SQLITE_OPEN_MEMORY
    pub const MEMORY: i32 = 0x0000_0080;
    /// SQLITE_OPEN_NOMUTEX
    pub const NOMUTEX: i32 = 0x0000_8000;
    /// SQLITE_OPEN_FULLMUTEX
    pub const FULLMUTEX: i32 = 0x0001_0000;
    /// SQLITE_OPEN_SHAREDCACHE
    pub const SHAREDCACHE: i32 = 0x0002_0000;
    /// SQLITE_OPEN_PRIVATECACHE
    pub const PRIVATECACHE: i32 = 0x0004_0000;
    /// SQLITE_OPEN_NOFOLLOW
    pub const NOFOLLOW: i32 = 0x0100_0000;
    /// SQLITE_OPEN_EXRESCODE
    pub const EXRESCODE: i32 = 0x0200_0000;
    /// ringlite: `sqlite3_step` may return `SQLITE_IO` instead of blocking.
    /// A bit SQLite does not use.
    pub const ASYNC: i32 = 0x4000_0000;

    /// Whether `bit` is set.
    pub fn has(self, bit: i32) -> bool {
        self.0 & bit != 0
    }
}

/// What one call of [`Statement::step`] produced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepResult {
    /// A row is ready (`SQLITE_ROW`).
    Row,
    /// The statement has finished (`SQLITE_DONE`).
    Done,
    /// Async connections only: waiting for I/O (`SQLITE_IO`); step again
    /// after polling.
    Io,
}

/// A database connection.
pub struct Connection {
    state: ConnState,
    /// The schema of each database, by index in `state.dbs`.
    schemas: Vec<Schema>,
    /// All of `schemas` in one (`Schema::merged`), what statements compile
    /// against; rebuilt whenever the schemas are read.
    merged: Arc<Schema>,
    /// Every database as the compiler sees it: (schema name, file name)
    /// by index; brought up to date before each compile (kept so a
    /// prepare does not copy the names).
    database_names: Arc<Vec<(String, String)>>,
    schema_loaded: bool,
    /// Main's text encoding was read from its file: a later read of the
    /// schema must find the same one (SQLite's fixed encoding).
    encoding_fixed: bool,
    /// Some read of the schemas got as far as a row of a schema table
    /// (even one that then failed a check): from then on a SELECT naming
    /// no table compiles without the schema, as SQLite's (whose flag for
    /// this, set by the first row its schema read meets, stays set).
    schema_rows_met: bool,
    /// What the expression checks of a schema read learned from the
    /// CREATE TABLE texts (`schema_expr_load.rs`).
    schema_text_checked: schema_expr_load::TextChecked,
    /// Bumped each time the schemas are read or patched (`ensure_schema`):
    /// a compiled program is reused only under the generation it was
    /// compiled at (see `compiled_cache`).
    schema_generation: u64,
    /// Programs compiled on this connection, by SQL text.
    compiled: compiled_cache::CompiledCache,
    /// The prepared statements, for `sqlite_stmt` (`stmt_registry`).
    stmt_registry: stmt_registry::StmtRegistry,
    /// Bumped by every ATTACH and DETACH: database indexes baked into
    /// programs compiled before may now mean another database, so those
    /// statements compile again before their next run.
    attach_generation: u64,
    /// The flags the connection was opened with (ATTACH opens its files
    /// with them).
    open_flags: OpenFlags,
    funcs: Arc<FunctionRegistry>,
    /// State extensions keep per connection, one value of each type
    /// (FTS5's tokenizers and auxiliary functions the application added
    /// through `fts5_api`): see [`Connection::extension_state`].
    extension_state: ExtensionState,
    collations: Arc<HashMap<String, Collation>>,
    /// Every name `create_collation` was called with (also to remove
    /// one), as first given, oldest first: SQLite keeps an entry for each
    /// and `PRAGMA collation_list` shows them.
    collation_order: Arc<Vec<String>>,
    memory: bool,
    /// The application VFS's backend when the connection uses one: its
    /// temporary databases open their files there once they outgrow
    /// their cache (`io::temp_file`).
    temp_spill: Option<Arc<dyn crate::io::IoBackend>>,
    is_async: bool,
    /// Async connections: counts the completions of the requests its
    /// statements submit, so a statement waiting for one is not re-run
    /// for nothing (see [`crate::io::notify`]).
    io_notify: Arc<crate::io::notify::IoNotify>,
    limits: [i32; LIMIT_COUNT],
    trace: Option<(u32, Box<dyn FnMut(u32, &str, i64) + Send>)>,
    authorizer: Option<crate::sql::codegen::auth::Authorizer>,
    /// The connection runs SQL of its own (see `Compiler::internal`).
    internal_sql: bool,
    /// The statement being compiled may not use virtual tables (SQLite's
    /// `SQLITE_PREPARE_NO_VTAB`; see `Connection::prepare_no_vtab`).
    no_vtab_sql: bool,
    /// The values bound to the statement being compiled again (SQLite's
    /// `pReprepare`): a LIMIT parameter is read as its value then.
    reprepare_params: Option<Vec<crate::value::Value>>,
}

/// The values [`Connection::extension_state`] keeps, one of each type.
#[derive(Default)]
struct ExtensionState(std::sync::Mutex<Vec<Arc<dyn std::any::Any + Send + Sync>>>);

impl crate::vdbe::host::VmHost for Connection {
    fn state(&mut self) -> &mut ConnState {
        &mut self.state
    }
}

impl Connection {
    /// The connection lent to a callback by a running statement (see
    /// [`crate::vdbe::host`]): SQL may be prepared and stepped on it as on
    /// any connection, nested in the calling statement.
    pub fn from_host(host: &mut dyn crate::vdbe::host::VmHost) -> Option<&mut Connection> {
        (host as &mut dyn std::any::Any).downcast_mut::<Connection>()
    }

    /// The I/O context (async callers poll it after `StepResult::Io`).
    pub fn io(&self) -> &IoContext {
        &self.state.io
    }

    /// `sqlite3_io_poll`: submit queued requests and reap completions of
    /// this connection's I/O context. `timeout_ms` 0 returns at once, a
    /// positive value waits at most that long, a negative one waits until
    /// at least one request completes (at once if nothing is in flight).
    /// It does not wait while a statement of the thread's async
    /// connections that ran out of its quantum (`PRAGMA step_quantum`)
    /// waits to be stepped again: that one is runnable now.
    /// Returns the number of completions reaped.
    pub fn io_poll(&self, timeout_ms: i32) -> Result<usize> {
        let runnable = self.io_notify.ready_set().is_some_and(|r| r.yielded() > 0);
        let timeout = if timeout_ms < 0 && !runnable { None } else { Some(std::time::Duration::from_millis(if runnable { 0 } else { timeout_ms as u64 })) };
        self.state.io.backend().poll(timeout)
    }

    /// `sqlite3_io_fd`: a descriptor that becomes readable when completions
    /// wait (io_uring's eventfd); `None` when the backend has none.
    pub fn io_fd(&self) -> Option<i32> {
        self.state.io.backend().event_fd()
    }

    /// `sqlite3_db_release_memory`: drop the clean cached pages of every
    /// database of the connection (pages in use by a running statement
    /// and uncommitted changes stay). Returns the bytes freed.
    pub fn release_memory(&mut self) -> usize {
        self.state.dbs.iter_mut().map(|d| d.btree.release_memory()).sum()
    }

    /// Name this connection in readiness reports ([`Connection::io_ready`]):
    /// once tagged (non-zero), the connection is reported after a request
    /// of one of its statements finishes. 0 stops the reports. Blocking
    /// connections are never reported.
    pub fn set_io_tag(&self, tag: usize) {
        self.io_notify.set_tag(tag);
    }

    /// `sqlite3_io_ready`: take up to `max` connections of this thread's
    /// ready set (every async connection opened on the thread that opened
    /// this one) whose requests finished since they were last taken,
    /// appending their tags to `out`; returns how many. After a poll, step
    /// the suspended statements of those connections only: the others'
    /// would answer `StepResult::Io` again. Costs what is taken, not the
    /// number of idle connections (see [`crate::io::notify`]).
    pub fn io_ready(&self, out: &mut Vec<usize>, max: usize) -> usize {
        self.io_notify.ready_set().map_or(0, |r| r.take(out, max))
    }

    /// Call the progress handler lent the connection: `true` when it asks
    /// to stop.
    fn call_progress_handler(&mut self) -> bool {
        let Some((_, cb)) = self.state.progress.clone() else { return false };
        crate::vdbe::host::lend(self, |h| cb(h))
    }

    /// Call the WAL hook for each database a statement's commit appended
    /// to, lent the connection; its first non-zero result code is the
    /// statement's error.
    fn call_wal_hook(&mut self, commits: &[(String, u32)]) -> Result<()> {
        for (name, frames) in commits {
            let Some(hook) = self.state.wal_hook.clone() else { return Ok(()) };
            let rc = crate::vdbe::host::lend(self, |h| hook(h, name, *frames as i32));
            if rc != 0 {
                return Err(Error::new(rc, crate::error::errstr(rc)));
            }
        }
        Ok(())
    }

    /// rowid of the most recent successful INSERT.
    pub fn last_insert_rowid(&self) -> i64 {
        self.state.last_insert_rowid
    }

    /// Rows changed by the most recent INSERT/UPDATE/DELETE.
    pub fn changes(&self) -> i64 {
        self.state.changes
    }

    /// Rows changed since the connection was opened.
    pub fn total_changes(&self) -> i64 {
        self.state.total_changes
    }

    /// Whether the connection is in autocommit mode.
    pub fn autocommit(&self) -> bool {
        self.state.autocommit
    }

    /// Debug builds: the savepoints open (named ones and the transaction's
    /// own), for checks that a caller leaves them as it found them.
    #[cfg(debug_assertions)]
    pub fn savepoint_depth(&self) -> (usize, bool) {
        (self.state.savepoints.len(), self.state.autocommit)
    }

    /// Set `last_insert_rowid` (`sqlite3_set_last_insert_rowid`).
    pub fn set_last_insert_rowid(&mut self, rowid: i64) {
        self.state.last_insert_rowid = rowid;
    }

    /// A number that changes whenever anything in schema `schema` may
    /// have changed (a write by any statement, a rollback, a write
    /// transaction's start, another connection's commit): extensions keep
    /// rows they read while it stays the same. `None` if there is no such
    /// schema.
    pub fn change_sequence(&self, schema: &str) -> Option<u64> {
        self.state.dbs.iter().find(|d| d.name.eq_ci(schema)).map(|d| d.btree.content_sequence())
    }

    /// Transaction state of schema `schema` (or the highest of all when
    /// `None`): 0 none, 1 read, 2 write; -1 if no such schema.
    pub fn txn_state(&self, schema: Option<&str>) -> i32 {
        match schema {
            None => self.state.dbs.iter().map(|d| d.btree.txn_state() as i32).max().unwrap_or(0),
            Some(n) => self.state.dbs.iter().find(|d| d.name.eq_ci(n)).map_or(-1, |d| d.btree.txn_state() as i32),
        }
    }

    /// Filename of database `schema` ("" for temp/in-memory); `None` if no
    /// such schema.
    pub fn db_filename(&self, schema: &str) -> Option<String> {
        // SQLite answers NULL for the temp schema (it has no file of its own).
        if schema.eq_ci("temp") {
            return None;
        }
        self.state.dbs.iter().find(|d| d.name.eq_ci(schema)).map(|d| d.path.clone())
    }

    /// The open database file of schema `schema` (`None`: no such schema,
    /// or `temp`, which has no file of its own).
    pub fn db_file(&self, schema: &str) -> Option<Arc<dyn crate::io::File>> {
        if schema.eq_ci("temp") {
            return None;
        }
        self.state.dbs.iter().find(|d| d.name.eq_ci(schema)).map(|d| d.btree.pager().file().clone())
    }

    /// The open WAL or rollback journal of schema `schema`, if any.
    pub fn db_journal_file(&self, schema: &str) -> Option<Arc<dyn crate::io::File>> {
        self.state.dbs.iter().find(|d| d.name.eq_ci(schema)).and_then(|d| d.btree.pager().journal_or_wal_file())
    }

    /// 1 read-only, 0 read-write, -1 no such schema.
    pub fn db_readonly(&self, schema: &str) -> i32 {
        self.state.dbs.iter().find(|d| d.name.eq_ci(schema)).map_or(-1, |d| d.read_only as i32)
    }

    /// A flag another thread may set to interrupt running statements
    /// (`sqlite3_interrupt`).
    pub fn interrupt_flag(&self) -> Arc<AtomicBool> {
        self.state.interrupt.clone()
    }

    /// The connection's one value of type `T`, created (`T::default()`)
    /// on first use and kept until the connection closes: state an
    /// extension keeps per connection (FTS5's registered tokenizers and
    /// auxiliary functions), which the connection holds without knowing
    /// its type, as the extension layer sits above it.
    pub fn extension_state<T: std::any::Any + Default + Send + Sync>(&self) -> Arc<T> {
        let mut slots = self.extension_state.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(state) = slots.iter().find_map(|s| s.clone().downcast::<T>().ok()) {
            return state;
        }
        let state = Arc::new(T::default());
        slots.push(state.clone());
        state
    }

    /// Register (or replace) a function.
    pub fn create_function(&mut self, def: FuncDef) -> Result<()> {
        // SQLITE_MAX_FUNCTION_ARG is 1000 in SQLite 3.54 (it was 127 before 3.48).
        if def.n_args < -1 || def.n_args > 1000 || def.name.is_empty() || def.name.len() > 255 {
            return Err(Error::code(SQLITE_MISUSE));
        }
        self.before_function_change(&def.name, def.n_args)?;
        self.forget_compiled();
        Arc::make_mut(&mut self.funcs).register(def);
        Ok(())
    }

    /// Remove a function (`create_function` with NULL callbacks).
    pub fn delete_function(&mut self, name: &str, n_args: i32) -> Result<()> {
        self.before_function_change(name, n_args)?;
        self.forget_compiled();
        Arc::make_mut(&mut self.funcs).unregister(name, n_args);
        Ok(())
    }

    /// As SQLite: replacing or deleting a function that exists with this
    /// name and argument count (a built-in one too) is refused while a
    /// statement runs, and otherwise expires every statement, so that a
    /// cached one is compiled again and calls the new definition. A new
    /// name or argument count changes no compiled statement.
    fn before_function_change(&mut self, name: &str, n_args: i32) -> Result<()> {
        if !self.funcs.has_exact(name, n_args) {
            return Ok(());
        }
        if self.state.active_statements > 0 {
            return Err(Error::new(crate::error::SQLITE_BUSY, "unable to delete/modify user-function due to active statements"));
        }
        self.expire_statements();
        Ok(())
    }

    /// Every statement of this connection is compiled again before its
    /// next run (one running goes on with its program until it ends or is
    /// reset), as SQLite's statement expiry does.
    pub fn expire_statements(&mut self) {
        self.state.settings_generation += 1;
    }

    /// Register, replace, or (`None`) remove a collation.
    pub fn create_collation(&mut self, name: &str, collation: Option<Collation>) -> Result<()> {
        // As for functions: one that exists (built-in ones included) is
        // not replaced under a running statement, and replacing it expires
        // every statement.
        if self.collations.contains_key(&name.ascii_upper()) || is_builtin_collation(name) {
            if self.state.active_statements > 0 {
                return Err(Error::new(crate::error::SQLITE_BUSY, "unable to delete/modify collation sequence due to active statements"));
            }
            self.expire_statements();
        }
        self.forget_compiled();
        if !self.collation_order.iter().any(|n| n.eq_ci(name)) && !is_builtin_collation(name) {
            Arc::make_mut(&mut self.collation_order).push(name.to_string());
        }
        match collation {
            Some(c) => {
                Arc::make_mut(&mut self.collations).insert(name.ascii_upper(), c);
            }
            None => {
                Arc::make_mut(&mut self.collations).remove(&name.ascii_upper());
            }
        }
        Ok(())
    }

    /// Install or clear a hook.
    pub fn set_hook(&mut self, hook: Hook) {
        match hook {
            Hook::Commit(h) => self.state.commit_hook = h,
            Hook::Rollback(h) => self.state.rollback_hook = h,
            Hook::Wal(h) => self.state.wal_hook = h,
            Hook::Update(h) => self.state.update_hook = h,
            Hook::PreUpdate(h) => {
                self.state.preupdate_listeners.set_app(h);
                self.state.preupdate_hook = self.state.preupdate_listeners.combined();
            }
            Hook::Progress(n, h) => self.state.progress = h.map(|h| (n, h)),
            Hook::Trace(mask, h) => self.trace = h.map(|h| (mask, h)),
            Hook::Authorizer(h) => self.authorizer = h,
        }
    }

    /// Add a pre-update listener beside the application's hook (the
    /// session extension's sessions); returns its id.
    pub fn add_preupdate_listener(&mut self, hook: crate::vdbe::exec::preupdate::PreUpdateHook) -> u64 {
        let id = self.state.preupdate_listeners.add(hook);
        self.state.preupdate_hook = self.state.preupdate_listeners.combined();
        id
    }

    /// Remove a listener added by [`Self::add_preupdate_listener`].
    pub fn remove_preupdate_listener(&mut self, id: u64) {
        self.state.preupdate_listeners.remove(id);
        self.state.preupdate_hook = self.state.preupdate_listeners.combined();
    }

    /// Whether this connection returns `StepResult::Io` instead of blocking.
    pub fn is_async(&self) -> bool {
        self.is_async
    }
}

// (Checked where it compiles: a field that is not `Send` fails the build
// here rather than in the C API that moves connections between threads.)
// invariant: connection_send
const _: () = {
    const fn assert_send<T: Send>() {}
    assert_send::<Connection>();
    assert_send::<Statement>();
};

impl Drop for Connection {
    fn drop(&mut self) {
        // (As in `close`: in-flight requests must not report it.)
        self.io_notify.set_tag(0);
    }
}

// Whole-database copies and blob I/O, with access to the connection's
// insides: online backup, incremental blob handles, serialize/deserialize,
// VACUUM.
mod analyze;
mod attach;
pub mod backup;
pub mod blob;
mod compiled_cache;
pub mod db_status;
mod file_control;
mod open;
pub mod pages;
mod pragma_vtab;
mod prepare;
mod schema_expr_load;
mod schema_free;
mod schema_load;
mod schema_trust_load;
mod serialize;
mod settings;
mod statement;
pub mod stmt_registry;
pub mod uri;
mod vacuum;
mod vtab;

/// BINARY, NOCASE and RTRIM: always listed by `PRAGMA collation_list`,
/// whether or not an application replaced them.
fn is_builtin_collation(name: &str) -> bool {
    ["BINARY", "NOCASE", "RTRIM"].iter().any(|b| b.eq_ci(name))
}

/// Run `read` on database `db` inside a read transaction: the open one,
/// or one begun for it and ended after it when no statement of the
/// connection is running (also when `read` fails). Beginning it waits
/// through the busy handler while another connection writes, as SQLite's
/// schema read does.
fn in_read_txn<T>(state: &mut ConnState, db: usize, read: impl FnOnce(&IoContext, &mut Btree) -> Result<T>) -> Result<T> {
    let io = state.io.clone();
    let may_end = state.active_statements == 0;
    let started = state.dbs[db].btree.txn_state() == TxnState::None;
    if started {
        let (mut count, mut since) = (0, None);
        loop {
            let bt = &mut state.dbs[db].btree;
            match io.block_on(|| bt.begin_read()) {
                Ok(()) => break,
                Err(e) if e.primary() == SQLITE_BUSY && state.busy_retry(count, *since.get_or_insert_with(std::time::Instant::now)) => count += 1,
                Err(e) => return Err(e),
            }
        }
    }
    let bt = &mut state.dbs[db].btree;
    let r = read(&io, bt);
    if started && may_end {
        let _ = io.block_on(|| bt.commit());
    }
    r
}
