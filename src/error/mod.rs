//! # Errors
//!
//! One error type for the whole engine: an SQLite result code (the extended
//! code; its low byte is the primary code) and the message SQLite would put
//! in `sqlite3_errmsg`. Every layer returns [`Error`]; the C ABI maps it
//! one-to-one onto the connection's error state.
//!
//! Invariant: `code` is never `SQLITE_OK`, `SQLITE_ROW` or `SQLITE_DONE`;
//! those are outcomes, not errors.

pub mod codes;

pub use codes::*;

/// The engine's error: extended result code plus message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct Error {
    /// Extended result code (e.g. `SQLITE_CONSTRAINT_UNIQUE`).
    pub code: i32,
    /// The message `sqlite3_errmsg` reports.
    pub message: String,
}

/// Result alias used throughout the engine.
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    // The constructors are called from ~800 places, all on failure paths:
    // kept out of line (`cold`: callers lay their error branches out of
    // the way), one copy each instead of an inlined one per call site
    // (bench/RESULTS.md "Installed size").

    /// An error with an explicit message.
    #[cold]
    #[inline(never)]
    pub fn new(code: i32, message: impl Into<String>) -> Self {
        Error { code, message: message.into() }
    }

    /// An error whose message is SQLite's generic text for `code`
    /// (what `sqlite3_errstr` returns).
    #[cold]
    #[inline(never)]
    pub fn code(code: i32) -> Self {
        Error { code, message: errstr(code).to_string() }
    }

    /// `SQLITE_ERROR` with a message: the usual SQL-level error.
    #[cold]
    #[inline(never)]
    pub fn sql(message: impl Into<String>) -> Self {
        Error::new(SQLITE_ERROR, message)
    }

    /// `SQLITE_CORRUPT` with SQLite's "database disk image is malformed".
    pub fn corrupt() -> Self {
        Error::code(SQLITE_CORRUPT)
    }

    /// `SQLITE_TOOBIG`: a string or blob past `SQLITE_LIMIT_LENGTH`.
    pub fn too_big() -> Self {
        Error::code(SQLITE_TOOBIG)
    }

    /// The error as `sqlite3_errmsg` reports it under `SQLITE_LIMIT_LENGTH`
    /// `max_length`: SQLite formats a message into a buffer of 70 bytes,
    /// then of at most the limit (one byte kept for its terminator), and
    /// stores it as a string value held to the limit; a message that does
    /// not fit is dropped, leaving the code's generic text.
    pub fn within_length(mut self, max_length: i64) -> Self {
        let n = self.message.len() as i64;
        if n > max_length || (n >= 70 && n >= max_length) {
            self.message = errstr(self.code).to_string();
        }
        self
    }

    /// The primary result code (low byte of the extended code).
    pub fn primary(&self) -> i32 {
        self.code & 0xff
    }

    /// For features not built yet: says so instead of pretending.
    pub fn unsupported(what: &str) -> Self {
        Error::new(SQLITE_ERROR, format!("{what} is not supported by ringlite yet"))
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        let code = match e.raw_os_error() {
            Some(libc::ENOSPC) => SQLITE_FULL,
            Some(libc::ENOMEM) => SQLITE_NOMEM,
            Some(libc::EACCES) | Some(libc::EPERM) | Some(libc::EROFS) => SQLITE_CANTOPEN,
            _ => SQLITE_IOERR,
        };
        Error::new(code, errstr(code))
    }
}

/// SQLite's English text for a result code, as `sqlite3_errstr` gives it.
pub fn errstr(code: i32) -> &'static str {
    match code {
        SQLITE_ROW => return "another row available",
        SQLITE_DONE => return "no more rows available",
        SQLITE_ABORT_ROLLBACK => return "abort due to ROLLBACK",
        _ => {}
    }
    match code & 0xff {
        SQLITE_OK => "not an error",
        SQLITE_ERROR => "SQL logic error",
        SQLITE_INTERNAL => "internal error",
        SQLITE_PERM => "access permission denied",
        SQLITE_ABORT => "query aborted",
        SQLITE_BUSY => "database is locked",
        SQLITE_LOCKED => "database table is locked",
        SQLITE_NOMEM => "out of memory",
        SQLITE_READONLY => "attempt to write a readonly database",
        SQLITE_INTERRUPT => "interrupted",
        SQLITE_IOERR => "disk I/O error",
        SQLITE_CORRUPT => "database disk image is malformed",
        SQLITE_NOTFOUND => "unknown operation",
        SQLITE_FULL => "database or disk is full",
        SQLITE_CANTOPEN => "unable to open database file",
        SQLITE_PROTOCOL => "locking protocol",
        SQLITE_SCHEMA => "database schema has changed",
        SQLITE_TOOBIG => "string or blob too big",
        SQLITE_CONSTRAINT => "constraint failed",
        SQLITE_MISMATCH => "datatype mismatch",
        SQLITE_MISUSE => "bad parameter or other API misuse",
        SQLITE_AUTH => "authorization denied",
        SQLITE_RANGE => "column index out of range",
        SQLITE_NOTADB => "file is not a database",
        SQLITE_NOTICE => "notification message",
        SQLITE_WARNING => "warning message",
        SQLITE_IO => "I/O in progress",
        _ => "unknown error",
    }
}
