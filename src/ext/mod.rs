//! # Built-in extensions: the modules SQLite compiles in
//!
//! The layer SQLite keeps in `ext/`: virtual-table modules and SQL
//! functions that Debian's libsqlite3 registers on every connection (FTS3/4,
//! FTS5, R*Tree, dbstat, sqlite_stmt) and the session extension. They sit
//! above the VM and use only what any application module could: the
//! [`crate::vdbe::vtab`] traits, [`Connection`]'s public calls (prepare, step,
//! `create_function`, `create_module`) and, inside a method, the connection
//! lent as a [`crate::vdbe::host::VmHost`] (`Connection::from_host`) to
//! read and write their shadow tables with SQL.
//!
//! Invariants: nothing below this layer names an extension; each extension
//! keeps its on-disk state in ordinary tables in SQLite's record layouts, so
//! a file moves between SQLite and ringlite with its extension data;
//! [`register_builtins`] runs once per connection, at open, before the
//! application can call `sqlite3_drop_modules` or register modules of the
//! same names (which then replace the built-in ones, as in SQLite).

pub mod dbstat;
pub mod fts3;
pub mod fts5;
pub mod rtree;
pub mod session;
pub mod stmt;
pub mod unicode61;

use crate::connection::Connection;
use crate::error::Result;

/// Register every built-in module and function on a newly opened
/// connection (SQLite's `sqlite3BuiltinExtensions`).
pub fn register_builtins(conn: &mut Connection) -> Result<()> {
    rtree::register(conn)?;
    dbstat::register(conn)?;
    stmt::register(conn)?;
    fts3::register(conn)?;
    fts5::register(conn)?;
    Ok(())
}
