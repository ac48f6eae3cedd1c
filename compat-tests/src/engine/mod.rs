//! # Engines: the interchangeable backends a script runs against
//!
//! An [`Engine`] is one open database connection that runs SQL text and
//! hands back typed result values. Three backends implement it:
//!
//! * [`reference`]: real SQLite through `libsqlite3-sys` (bundled, linked
//!   statically into this binary). Its answers are the truth.
//! * [`ringlite`]: the ringlite engine through its Rust API
//!   (`ringlite::Connection` / `Statement`).
//! * [`capi`]: any `libsqlite3.so.0` (ringlite's C ABI, or the system
//!   SQLite for checking the harness) loaded at run time with `libloading`
//!   and `RTLD_DEEPBIND`, so its C symbols never meet the bundled
//!   reference's in one namespace.
//!
//! Invariant: engines return raw storage-class values ([`Cell`]); all
//! formatting (type letters, `%.3f`, `(empty)`, hashing) happens in the
//! harness, identically for every backend, so a difference in output is
//! always a difference in the engine.

pub mod capi;
pub mod reference;
pub mod ringlite;

use std::fmt;
use std::sync::Arc;

/// One result value, by storage class.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    Null,
    Integer(i64),
    Real(f64),
    Text(Vec<u8>),
    Blob(Vec<u8>),
}

/// Rows produced by the last statement of an SQL text.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Rows {
    /// Column count of the statement that produced the rows.
    pub columns: usize,
    pub rows: Vec<Vec<Cell>>,
}

/// An error an engine reported: extended result code and message.
#[derive(Debug, Clone, PartialEq)]
pub struct EngineError {
    pub code: i32,
    pub message: String,
    /// When the error came from stepping (not preparing) a statement that
    /// returns columns: the rows it produced before failing. The classic
    /// runner treats such a query as having returned just those rows.
    pub partial: Option<Rows>,
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}] {}", self.code, self.message)
    }
}

/// Interrupts whatever the engine is running, from another thread
/// (a timeout watchdog).
pub type Interrupter = Arc<dyn Fn() + Send + Sync>;

/// One open connection to a fresh, empty database.
pub trait Engine {
    /// Run every statement in `sql` in order, stopping at the first
    /// error; return the rows of the last statement that has columns.
    fn run(&mut self, sql: &str) -> Result<Rows, EngineError>;

    /// A handle that interrupts the running statement from another thread.
    fn interrupter(&self) -> Interrupter;

    /// `sqlite3_limit`: the old value of limit `id`; sets it when `value`
    /// is not negative.
    fn limit(&mut self, id: i32, value: i32) -> i32;
}

/// Which backend to open, as named on the command line
/// (`reference`, `ringlite`, `capi:<path.so>`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EngineKind {
    Reference,
    Ringlite,
    Capi(String),
}

impl EngineKind {
    pub fn parse(s: &str) -> Result<EngineKind, String> {
        match s {
            "reference" => Ok(EngineKind::Reference),
            "ringlite" => Ok(EngineKind::Ringlite),
            _ => match s.strip_prefix("capi:") {
                Some(path) if !path.is_empty() => Ok(EngineKind::Capi(path.to_string())),
                _ => Err(format!("unknown engine {s:?} (reference, ringlite, capi:<path.so>)")),
            },
        }
    }

    /// Open a connection on a fresh in-memory database.
    pub fn open(&self) -> Result<Box<dyn Engine>, EngineError> {
        match self {
            EngineKind::Reference => Ok(Box::new(reference::Reference::open()?)),
            EngineKind::Ringlite => Ok(Box::new(ringlite::Ringlite::open()?)),
            EngineKind::Capi(path) => Ok(Box::new(capi::CApi::open(path)?)),
        }
    }

    /// Open a connection on the database file at `path` (read-write, not
    /// created): the corrupt-file fuzzer's files.
    pub fn open_file(&self, path: &str) -> Result<Box<dyn Engine>, EngineError> {
        match self {
            EngineKind::Reference => Ok(Box::new(reference::Reference::open_path(path)?)),
            EngineKind::Ringlite => Ok(Box::new(ringlite::Ringlite::open_path(path)?)),
            EngineKind::Capi(lib) => Ok(Box::new(capi::CApi::open_path(lib, path)?)),
        }
    }

    /// Short name used in reports.
    pub fn name(&self) -> String {
        match self {
            EngineKind::Reference => "reference".into(),
            EngineKind::Ringlite => "ringlite".into(),
            EngineKind::Capi(p) => format!("capi:{p}"),
        }
    }
}
