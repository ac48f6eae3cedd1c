//! # Connections and statements: the engine's public API
//!
//! What the C ABI (`capi/`) calls. A [`Connection`] owns its databases
//! (main, temp, attached: one `Btree` each), its schema, and its
//! registries (functions, collations, hooks). A [`Statement`] owns a
//! compiled program and its VM state; it is stepped with the connection
//! that prepared it passed in, so neither holds a pointer to the other.
//!
//! Blocking versus async: a connection opened without `SQLITE_OPEN_ASYNC`
//! loops inside [`Statement::step`] until the VM can go on, exactly like
//! SQLite; an async one returns [`StepResult::Io`] instead and the caller
//! polls the I/O context.
//!
//! Invariant: `Connection` and `Statement` are `Send`; the C ABI serializes
//! access per connection with a mutex.

use crate::error::{Error, Result};
use crate::value::collation::Collation;
use crate::value::Value;
use crate::vdbe::func::FuncDef;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// `sqlite3_busy_handler` callback: retry count in, `true` to retry.
pub type BusyHandler = Box<dyn FnMut(i32) -> bool + Send>;

/// Callbacks a connection can carry (the C API's hooks).
pub enum Hook {
    /// `sqlite3_commit_hook`: returning `true` turns the COMMIT into a
    /// ROLLBACK.
    Commit(Option<Box<dyn FnMut() -> bool + Send>>),
    /// `sqlite3_rollback_hook`.
    Rollback(Option<Box<dyn FnMut() + Send>>),
    /// `sqlite3_update_hook`: (operation code SQLITE_INSERT/DELETE/UPDATE,
    /// database name, table name, rowid).
    Update(Option<Box<dyn FnMut(i32, &str, &str, i64) + Send>>),
    /// `sqlite3_progress_handler`: called about every `n` VM instructions;
    /// returning `true` interrupts the statement.
    Progress(i32, Option<Box<dyn FnMut() -> bool + Send>>),
    /// `sqlite3_set_authorizer`: (action code, arg1..arg4) to
    /// SQLITE_OK/DENY/IGNORE.
    Authorizer(Option<Box<dyn FnMut(i32, Option<&str>, Option<&str>, Option<&str>, Option<&str>) -> i32 + Send>>),
    /// `sqlite3_trace_v2`: (event mask, callback(event, statement SQL or
    /// expanded SQL, nanoseconds for PROFILE)).
    Trace(u32, Option<Box<dyn FnMut(u32, &str, i64) + Send>>),
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
    _private: (),
}

impl Connection {
    /// Open a connection. `path` is a filename, `:memory:`, `""` (a private
    /// temporary database) or, with `OpenFlags::URI`, a `file:` URI.
    pub fn open(path: &str, flags: OpenFlags) -> Result<Connection> {
        let _ = (path, flags);
        Err(Error::unsupported("opening a connection"))
    }

    /// Compile the first statement in `sql`. Returns the statement (`None`
    /// for only whitespace or comments) and the byte offset just past it.
    pub fn prepare(&mut self, sql: &[u8]) -> Result<(Option<Statement>, usize)> {
        let _ = sql;
        Err(Error::unsupported("prepare"))
    }

    /// rowid of the most recent successful INSERT.
    pub fn last_insert_rowid(&self) -> i64 {
        0
    }

    /// Rows changed by the most recent INSERT/UPDATE/DELETE.
    pub fn changes(&self) -> i64 {
        0
    }

    /// Rows changed since the connection was opened.
    pub fn total_changes(&self) -> i64 {
        0
    }

    /// Whether the connection is in autocommit mode.
    pub fn autocommit(&self) -> bool {
        true
    }

    /// Set `last_insert_rowid` (`sqlite3_set_last_insert_rowid`).
    pub fn set_last_insert_rowid(&mut self, rowid: i64) {
        let _ = rowid;
    }

    /// Transaction state of schema `schema` (or the highest of all when
    /// `None`): 0 none, 1 read, 2 write; -1 if no such schema.
    pub fn txn_state(&self, schema: Option<&str>) -> i32 {
        let _ = schema;
        0
    }

    /// Filename of database `schema` ("" for temp/in-memory); `None` if no
    /// such schema.
    pub fn db_filename(&self, schema: &str) -> Option<String> {
        let _ = schema;
        None
    }

    /// 1 read-only, 0 read-write, -1 no such schema.
    pub fn db_readonly(&self, schema: &str) -> i32 {
        let _ = schema;
        -1
    }

    /// A flag another thread may set to interrupt running statements
    /// (`sqlite3_interrupt`).
    pub fn interrupt_flag(&self) -> Arc<AtomicBool> {
        Arc::new(AtomicBool::new(false))
    }

    /// `sqlite3_busy_timeout`: retry locked databases for up to `ms`
    /// milliseconds (0 or less: no retry). Replaces any busy handler.
    pub fn set_busy_timeout(&mut self, ms: i32) {
        let _ = ms;
    }

    /// `sqlite3_busy_handler`: called with the retry count; returning
    /// `false` gives up with `SQLITE_BUSY`.
    pub fn set_busy_handler(&mut self, handler: Option<BusyHandler>) {
        let _ = handler;
    }

    /// `sqlite3_limit`: returns the old limit; sets it when `new >= 0`.
    pub fn limit(&mut self, id: i32, new: i32) -> i32 {
        let _ = (id, new);
        -1
    }

    /// Register (or replace) a function.
    pub fn create_function(&mut self, def: FuncDef) -> Result<()> {
        let _ = def;
        Err(Error::unsupported("user-defined functions"))
    }

    /// Remove a function (`create_function` with NULL callbacks).
    pub fn delete_function(&mut self, name: &str, n_args: i32) -> Result<()> {
        let _ = (name, n_args);
        Err(Error::unsupported("user-defined functions"))
    }

    /// Register, replace, or (`None`) remove a collation.
    pub fn create_collation(&mut self, name: &str, collation: Option<Collation>) -> Result<()> {
        let _ = (name, collation);
        Err(Error::unsupported("user-defined collations"))
    }

    /// Install or clear a hook.
    pub fn set_hook(&mut self, hook: Hook) {
        let _ = hook;
    }

    /// Whether this connection returns `StepResult::Io` instead of blocking.
    pub fn is_async(&self) -> bool {
        false
    }

    /// Close: finish the transaction (rolled back if open) and release
    /// files. The C ABI refuses earlier if statements are still open.
    pub fn close(&mut self) -> Result<()> {
        Ok(())
    }
}

/// A prepared statement.
pub struct Statement {
    _private: (),
}

impl Statement {
    /// Run until the next row, the end, or (async connections) pending I/O.
    pub fn step(&mut self, conn: &mut Connection) -> Result<StepResult> {
        let _ = conn;
        Err(Error::unsupported("step"))
    }

    /// Back to the start; bindings are kept.
    pub fn reset(&mut self, conn: &mut Connection) {
        let _ = conn;
    }

    /// Number of result columns.
    pub fn column_count(&self) -> usize {
        0
    }

    /// Name of result column `i` (0-based).
    pub fn column_name(&self, i: usize) -> &str {
        let _ = i;
        ""
    }

    /// Value of column `i` of the current row.
    pub fn column(&self, i: usize) -> &Value {
        let _ = i;
        &Value::Null
    }

    /// Bind parameter `i` (1-based).
    pub fn bind(&mut self, i: usize, value: Value) -> Result<()> {
        let _ = (i, value);
        Err(Error::unsupported("bind"))
    }

    /// Number of parameters (largest index).
    pub fn parameter_count(&self) -> usize {
        0
    }

    /// The SQL text this statement was compiled from.
    pub fn sql(&self) -> &str {
        ""
    }

    /// Declared type of result column `i`, when it is a table column.
    pub fn column_decltype(&self, i: usize) -> Option<&str> {
        let _ = i;
        None
    }

    /// Origin of result column `i` when it is a table column:
    /// (database, table, column).
    pub fn column_origin(&self, i: usize) -> Option<(&str, &str, &str)> {
        let _ = i;
        None
    }

    /// Columns in the current row (0 when not on a row).
    pub fn data_count(&self) -> usize {
        0
    }

    /// Name of parameter `i` (1-based) with its prefix (`:a`, `$a`,
    /// `@a`, `?5`); `None` for plain `?` or out of range.
    pub fn parameter_name(&self, i: usize) -> Option<&str> {
        let _ = i;
        None
    }

    /// Index of the named parameter (name including its prefix), 0 if none.
    pub fn parameter_index(&self, name: &str) -> usize {
        let _ = name;
        0
    }

    /// Set every parameter to NULL.
    pub fn clear_bindings(&mut self) {}

    /// The SQL with parameters replaced by their bound values as literals.
    pub fn expanded_sql(&self) -> String {
        String::new()
    }

    /// Whether the statement makes no direct change to the database file.
    pub fn readonly(&self) -> bool {
        true
    }

    /// 0 not EXPLAIN, 1 EXPLAIN, 2 EXPLAIN QUERY PLAN.
    pub fn explain_mode(&self) -> i32 {
        0
    }

    /// Whether the statement has been stepped and not reset or finished.
    pub fn busy(&self) -> bool {
        false
    }

    /// `sqlite3_stmt_status` counter `op`, zeroed after reading if `reset`.
    pub fn status(&mut self, op: i32, reset: bool) -> i64 {
        let _ = (op, reset);
        0
    }
}
