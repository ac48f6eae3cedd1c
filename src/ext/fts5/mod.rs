//! # FTS5: the full-text search module `fts5`
//!
//! First stage of SQLite's FTS5 (`fts5.txt`). What it owns:
//! - `config.rs`: the `CREATE VIRTUAL TABLE` arguments (default table
//!   only; other options are refused),
//! - `shadow.rs`: the five shadow tables, created exactly as SQLite
//!   creates them, with their initial rows,
//! - `tokenizer.rs` + `diacritics.rs`: unicode61,
//! - `query.rs`: the MATCH expression language,
//! - `matcher.rs`: evaluating an expression on one row's tokens,
//! - `table.rs`: xBestIndex/xFilter/xColumn, reading `%_content`,
//! - `writer.rs`: INSERT/UPDATE/DELETE, the index rewritten,
//! - `aux.rs`: `bm25()`, `highlight()` (and `snippet()`, refused).
//!
//! How queries are answered in this stage: by tokenizing the rows of
//! `%_content` (the regular content table holds every value as written),
//! not by reading the inverted index in `%_data`; the answers are the
//! same as the index would give for the default tokenizer, only slower.
//! Writes (`writer.rs`) rewrite the whole index as one single-page
//! segment after each change; an index needing more than one page, a
//! table with `prefix=`, and the special commands other than 'rebuild'
//! and 'optimize' are refused before anything is written. See
//! `FORMAT.md` for what was learnt about the `%_data` format so far.
//!
//! Invariant: the shadow tables are written only by `xCreate` (initial
//! rows) and `writer.rs`, which keeps index and content in step; they
//! are dropped by `xDestroy`.

pub mod aux;
pub mod config;
pub mod diacritics;
pub mod matcher;
pub mod query;
pub mod shadow;
pub mod table;
pub mod tokenizer;
pub mod writer;

use crate::connection::Connection;
use crate::error::Result;
use crate::vdbe::host::VmHost;
use crate::vtab::{Connected, Module, VtabConfig};
use config::Config;
use std::sync::Arc;

/// The `fts5` module.
pub struct Fts5Module;

impl Fts5Module {
    fn make(&self, argv: &[String]) -> Result<Connected> {
        let cfg = Config::parse(argv)?;
        let schema = cfg.declaration();
        Ok(Connected { table: Arc::new(table::Fts5Table::new(cfg)), schema, config: VtabConfig::default() })
    }
}

impl Module for Fts5Module {
    fn create(&self, host: &mut dyn VmHost, args: &[String]) -> Result<Connected> {
        let c = self.make(args)?;
        let cfg = Config::parse(args)?;
        shadow::create(host, &cfg)?;
        Ok(c)
    }

    fn connect(&self, _host: &mut dyn VmHost, args: &[String]) -> Result<Connected> {
        self.make(args)
    }

    fn shadow_name(&self, suffix: &str) -> bool {
        shadow::SUFFIXES.iter().any(|s| s.eq_ignore_ascii_case(suffix))
    }
}

/// Register the module and the auxiliary functions' context errors.
pub fn register(conn: &mut Connection) -> Result<()> {
    conn.create_module("fts5", Some(Arc::new(Fts5Module)))?;
    aux::register_globals(conn)
}
