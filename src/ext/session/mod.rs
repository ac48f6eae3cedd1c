//! # The session extension: recording, exchanging and applying changes
//!
//! SQLite's `ext/session`: a [`Session`] records the changes made to the
//! tables of one database (told by the pre-update hook, as one listener
//! among others, see `Connection::add_preupdate_listener`) and turns them
//! into a changeset or patchset (`output.rs`); changesets are read and
//! written in SQLite's byte format (`format.rs`, `value.rs`), inverted,
//! combined ([`ChangeGroup`]) and applied to another database with
//! conflict handling (`apply.rs`).
//!
//! Byte compatibility with SQLite 3.54.1 is the contract: the order of a
//! table's changes comes from the same hash table shape (`buckets.rs`,
//! `value::key_hash`), so the same changes give the same bytes.
//!
//! Module map: `value` (fields, hash), `buckets` (output order),
//! `format` (model, reader, writer, invert), `record` (the session),
//! `output` (changeset making), `group` (changegroup, concat), `apply`,
//! `rebase` (rebase buffers and the rebaser), `diff` (session_diff),
//! `sql` (the SQL the extension runs).

mod apply;
mod buckets;
mod diff;
mod format;
mod group;
mod output;
mod rebase;
mod record;
mod sql;
mod value;

pub use apply::{apply, ApplyHandler};
pub use apply::{ABORT, CONFLICT_CONFLICT, CONFLICT_CONSTRAINT, CONFLICT_DATA, CONFLICT_FOREIGN_KEY, CONFLICT_NOTFOUND, OMIT, REPLACE};
pub use apply::{APPLY_FKNOACTION, APPLY_IGNORENOOP, APPLY_INVERT, APPLY_NOSAVEPOINT, APPLY_NOUPDATELOOP};
pub use format::{read_all, write_all, Change, Item, Reader, Table, OP_DELETE, OP_INSERT, OP_UPDATE};
pub use group::{concat, ChangeGroup, SchemaLookup};
pub use rebase::{RebaseLog, Rebaser};
pub use record::{Session, TableFilter};
pub use value::Field;

use crate::error::Result;

/// A table's key positions and column defaults in schema `db` (what
/// [`ChangeGroup::set_schema`] looks up), `None` when there is none.
pub fn table_schema(conn: &mut crate::connection::Connection, db: &str, table: &str) -> Result<Option<(Vec<u8>, Vec<crate::value::Value>)>> {
    let Some((_, pk)) = sql::session_shape(conn, db, table)? else {
        return Ok(None);
    };
    Ok(Some((pk, sql::column_defaults(conn, db, table)?)))
}

/// `sqlite3changeset_invert`: every change inverted, order kept. A
/// patchset cannot be inverted (`SQLITE_CORRUPT`).
pub fn invert(buf: &[u8]) -> Result<Vec<u8>> {
    Ok(write_all(&read_all(buf, true)?))
}
