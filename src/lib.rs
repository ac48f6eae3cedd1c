//! # ringlite: the engine
//!
//! SQLite's SQL dialect, file format and semantics, on a bytecode VM that
//! never blocks on I/O. This crate is safe Rust and knows nothing of C; the C
//! ABI (`libsqlite3.so.0`) lives in the `capi/` crate and calls
//! [`Connection`] and [`Statement`].
//!
//! ## Layers
//! Data flows down, dependencies point down only:
//!
//! ```text
//!   connection   open/close, prepare, step; per-connection registries
//!   sql/         parse glue, name resolution, planner, code generation
//!   vdbe/        register bytecode and the resumable interpreter, and the
//!                virtual-table interface modules implement (vdbe/vtab/)
//!   btree/       table and index B-trees, cells, overflow, freelist, balance
//!   pager/       page cache, transactions, rollback journal, WAL, locking
//!   io/          the asynchronous I/O trait and its backends
//!   value/       values, records, affinity, collation (beside all of them)
//!   util/        helpers that depend on nothing (the fast hasher, the
//!                process's random generator)
//! ```
//!
//! The extension layer (`ext/`: FTS3/4/5, R*Tree, session, dbstat,
//! sqlite_stmt) sits above `connection/`: it uses only the virtual-table
//! interface and public engine calls, and the connection names none of it.
//! The one place that joins them is this crate root's
//! [`REGISTER_BUILTIN_EXTENSIONS`], which every opened connection runs.
//!
//! ## Resumable operations
//! Any operation that may need I/O returns [`IoPoll<T>`], a
//! `Result<Poll<T>>`. `Poll::Pending` means: a request was submitted (or one
//! already in flight was found), nothing that must not happen twice has
//! happened, and the caller should come back with the same call once the I/O
//! backend has reaped completions. State needed to continue lives in the
//! object whose method was called (a cursor, the pager), in named states, so
//! that re-entry continues instead of starting over. Blocking callers run the
//! very same code in a loop around [`io::IoContext::wait`]; there is no
//! separate synchronous code path.

// Only `io/` backends may opt out, module by module, with `#[allow(unsafe_code)]`.
#![deny(unsafe_code)]
// Lints the house does not follow, crate-wide (items repeat none of them).
#![allow(
    clippy::too_many_arguments,
    clippy::type_complexity,
    reason = "code generators and the planner pass register numbers and cursors by the handful, and name their tuples where they are used"
)]
#![allow(clippy::collapsible_match, reason = "a match arm's guard falls through to later arms, so folding an inner `if` into it changes which arm runs")]

/// `format!` through one out-of-line call: std's `format` checks for a
/// constant string inline at each of the ~570 call sites (15 KB of the
/// installed library; bench/RESULTS.md "Installed size"). Same result.
macro_rules! format {
    ($($arg:tt)*) => {
        $crate::util::fmt::format_string(::std::format_args!($($arg)*))
    };
}

pub mod btree;
pub mod connection;
pub mod error;
pub mod ext;
pub mod io;
pub mod pager;
pub mod sql;
pub mod util;
pub mod value;
pub mod vdbe;
/// The virtual-table interface (`vdbe/vtab/`), at the crate root for the
/// C API and for modules written in Rust.
pub use vdbe::vtab;

pub use connection::{ConfigFlag, Connection, OpenFlags, Statement, StepResult};

/// What `connection/` runs on every connection it opens, before the
/// application sees it: the built-in extensions' registration
/// ([`ext::register_builtins`]). The crate root wires the two layers so
/// that the connection, below the extensions, names none of them.
pub(crate) const REGISTER_BUILTIN_EXTENSIONS: fn(&mut Connection) -> Result<()> = ext::register_builtins;
pub use error::{Error, Result};
pub use std::task::Poll;

/// The result of an operation that may have to wait for I/O (defined in
/// `io/`, with the [`ready!`] macro).
pub use io::IoPoll;
