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
//! Invariants: nothing below this layer names an extension (checked:
//! ext_unnamed_below); each extension
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

#[cfg(test)]
mod tests {
    /// Every `.rs` file under `dir`.
    fn sources(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("source directory").flatten() {
            let path = entry.path();
            if path.is_dir() {
                sources(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }

    #[test]
    fn the_layers_below_name_no_extension() {
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = Vec::new();
        for layer in ["btree", "pager", "vdbe", "connection", "sql", "value", "io", "util", "error"] {
            sources(&src.join(layer), &mut files);
        }
        assert!(!files.is_empty());
        for path in files {
            let text = std::fs::read_to_string(&path).expect("source");
            for (n, line) in text.lines().enumerate() {
                let code = line.split("//").next().unwrap_or("");
                // A path through this module: `ext::` not ending a longer name.
                let named = code.match_indices("ext::").any(|(i, _)| !code[..i].ends_with(|c: char| c.is_alphanumeric() || c == '_'));
                // invariant: ext_unnamed_below
                assert!(!named, "{}:{}: {line}", path.display(), n + 1);
            }
        }
    }
}
