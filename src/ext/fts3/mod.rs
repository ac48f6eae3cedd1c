//! # FTS3 and FTS4: SQLite's full-text index modules
//!
//! `CREATE VIRTUAL TABLE t USING fts3(...)` / `fts4(...)` (fts3.txt): the
//! documents' text in `%_content`, an inverted index of segment b-trees
//! in `%_segdir` and `%_segments`, and for FTS4 per-document token
//! counts in `%_docsize` and table totals in `%_stat`, all in SQLite's
//! exact record layouts so a database moves between SQLite and ringlite
//! with its index.
//!
//! The parts: `config` (arguments and options), `tokenizer/` (simple,
//! porter, unicode61, and the connection's names for them and the
//! application's: `fts3_tokenizer()`), `expr` (the query language), `doclist`, `node`
//! and `segments` (the index format, reading, writing, merging),
//! `pending` (terms not yet written), `eval` (running a query), `table`
//! (the module and its writes, special commands), `incrmerge` (the
//! `merge=X,Y` and `automerge=N` commands), `cursor` (scans),
//! `share` (what the table, its cursors and the auxiliary functions
//! share) and `auxfn` (`offsets()`, `snippet()`, `matchinfo()`); beside the table
//! modules, `aux_vtab` (`fts4aux`, the index's terms as rows) and
//! `tokenize_vtab` (`fts3tokenize`, a tokenizer as a table).
//!
//! Invariants: every change reaches the index through the pending terms
//! and is written at sync, savepoint or when SQLite would write it, so
//! the segments a sequence of statements leaves are the ones SQLite
//! leaves; a query reads the pending terms too.

pub mod aux_vtab;
pub mod auxfn;
pub mod config;
pub mod cursor;
pub mod doclist;
pub mod eval;
pub mod expr;
pub mod incrmerge;
pub mod node;
pub mod pending;
pub mod segments;
pub mod shadow;
pub mod share;
pub mod snippet;
pub mod table;
pub mod tokenize_vtab;
pub mod tokenizer;
pub mod varint;

use crate::connection::Connection;
use crate::error::Result;
use std::sync::Arc;

/// Levels per index and language (`FTS3_SEGDIR_MAXLEVEL`).
pub const MAX_LEVEL: i64 = 1024;

/// Register `fts3`, `fts4`, `fts4aux`, `fts3tokenize`, the auxiliary
/// functions and `fts3_tokenizer()`.
pub fn register(conn: &mut Connection) -> Result<()> {
    conn.create_module("fts3", Some(Arc::new(table::FtsModule { fts4: false })))?;
    conn.create_module("fts4", Some(Arc::new(table::FtsModule { fts4: true })))?;
    conn.create_module("fts4aux", Some(Arc::new(aux_vtab::AuxModule)))?;
    conn.create_module("fts3tokenize", Some(Arc::new(tokenize_vtab::TokenizeModule)))?;
    tokenizer::registry::register(conn)?;
    auxfn::register(conn)
}
