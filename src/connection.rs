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
use crate::value::Value;

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
}
