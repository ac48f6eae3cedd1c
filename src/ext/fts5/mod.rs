//! # FTS5: the full-text search module `fts5`
//!
//! First stage of SQLite's FTS5 (`fts5.txt`). What it owns:
//! - `config.rs`: the `CREATE VIRTUAL TABLE` arguments (options not
//!   built yet are refused),
//! - `shadow.rs`: the shadow tables each table kind has, created exactly
//!   as SQLite creates them, with their initial rows,
//! - `source.rs`: rows of external content and contentless tables,
//!   answered from the index,
//! - `check.rs`: 'integrity-check',
//! - `tokenizer/`: unicode61, ascii, porter and trigram,
//! - `locale.rs`: `locale=1` and the values `fts5_locale()` makes,
//! - `query.rs`: the MATCH expression language,
//! - `matcher.rs`: evaluating an expression on one row's tokens,
//! - `lookup.rs`: the doclists of a query's tokens, read from the index,
//! - `search.rs`: a MATCH answered from those doclists,
//! - `rows.rs`: the rows it returns, their content read when needed,
//! - `row.rs`: one row as bm25 and the auxiliary functions see it, the
//!   table's figures, a stored value's tokens,
//! - `shared.rs`: what an auxiliary function sees of an open cursor, and
//!   the open cursors by id,
//! - `table.rs`: xBestIndex/xFilter/xColumn, reading `%_content`,
//! - `writer.rs`: INSERT/UPDATE/DELETE of content, sizes, averages,
//! - `stmts.rs`: the per-row statements on the shadow tables, prepared
//!   once per table and kept,
//! - `pending.rs`: the transaction's changes and SQLite's hash of them,
//! - `codec.rs`, `structure.rs`: varints, doclists, the structure record,
//! - `segwrite.rs`, `segread.rs`: one segment's pages written / read,
//! - `index.rs`, `merge.rs`: flushing, merging, 'optimize',
//! - `secure.rs`: 'secure-delete', entries cut out of segment pages,
//! - `tombstone.rs`: the tombstone hash tables of `contentless_delete=1`,
//! - `commands.rs`: the special INSERT commands,
//! - `aux.rs`: `bm25()` and the auxiliary functions' dispatch,
//! - `snippet.rs`: `highlight()` and `snippet()`,
//! - `vocab.rs`: the `fts5vocab` module,
//! - `extension.rs`: tokenizers and auxiliary functions the application
//!   registers (SQLite's `fts5_api`), behind safe traits.
//!
//! How queries are answered: from the doclists of the query's tokens
//! (`lookup.rs`, `search.rs`), as SQLite does, with the transaction's
//! pending changes merged in; the rows' content is read only when asked
//! for (`rows.rs`), or under `detail=column`/`none` for the matched rows
//! whose instances the auxiliary functions and bm25 need. A scan without
//! MATCH reads `%_content` (or, for external content and contentless
//! tables, `source.rs`).
//! Writes follow SQLite: a transaction's changes are held as SQLite's
//! pending hash holds them and become a new segment at commit, at a
//! savepoint, when their estimated size passes 'hashsize', or when a row
//! cannot join their rowid run, in SQLite's page layout (see
//! `FORMAT.md`), with the
//! position lists of the table's `detail=` mode; merges follow SQLite's
//! automerge/crisismerge rules, a level at a time, streaming. Under
//! `detail=column`/`none` the parser refuses what SQLite refuses, the
//! index answers which rows hold a term (external content and
//! contentless tables) and the instances the auxiliary functions see
//! come from tokenizing the content (none for a contentless table).
//!
//! Tokens an application's tokenizer reports as colocated (synonyms)
//! share the position of the token before them everywhere: in the
//! index, in column sizes and when a row's tokens are matched.
//!
//! Invariant: the shadow tables are written only by `xCreate` (initial
//! rows), `writer.rs` and `index.rs`, which keep index and content in
//! step (the index lagging by the pending log until commit); they
//! are dropped by `xDestroy`.

use crate::util::ascii::AsciiLower;
pub mod aux;
pub mod check;
pub mod codec;
pub mod commands;
pub mod config;
pub mod extension;
pub mod index;
pub mod locale;
pub mod lookup;
pub mod matcher;
pub mod merge;
pub mod pending;
pub mod query;
pub mod rank;
pub mod row;
pub mod rows;
pub mod search;
pub mod secure;
pub mod segread;
pub mod segwrite;
pub mod shadow;
pub mod shared;
pub mod snippet;
pub mod source;
pub mod stmts;
pub mod structure;
pub mod table;
pub mod tokenizer;
pub mod tombstone;
pub mod vocab;
pub mod writer;

use crate::connection::Connection;
use crate::error::Result;
use crate::vdbe::host::VmHost;
use crate::vdbe::vtab::{Connected, Module, VtabConfig};
use config::Config;
use extension::Extensions;
use std::sync::Arc;

/// The `fts5` module, with the tables it connected (for `fts5vocab`) and
/// the connection's application-defined tokenizers and functions.
pub struct Fts5Module(vocab::Registry, Arc<Extensions>);

impl Fts5Module {
    fn make(&self, argv: &[String]) -> Result<Connected> {
        let mut cfg = Config::parse(argv, &|name| self.1.tokenizer(name))?;
        cfg.locale_header = Some(self.1.locale_header());
        let schema = cfg.declaration();
        let t = Arc::new(table::Fts5Table::new(cfg, self.1.clone()));
        self.0.note(&t.cfg.db, &t.cfg.name, &t);
        Ok(Connected { table: t, schema, config: VtabConfig { innocuous: true, ..VtabConfig::default() } })
    }
}

impl Module for Fts5Module {
    fn create(&self, host: &mut dyn VmHost, args: &[String]) -> Result<Connected> {
        let c = self.make(args)?;
        let cfg = Config::parse(args, &|name| self.1.tokenizer(name))?;
        shadow::create(host, &cfg)?;
        Ok(c)
    }

    fn connect(&self, _host: &mut dyn VmHost, args: &[String]) -> Result<Connected> {
        self.make(args)
    }

    fn shadow_name(&self, suffix: &str) -> bool {
        shadow::SUFFIXES.iter().any(|s| s.eq_ci(suffix))
    }
}

/// Register the modules (fts5, fts5vocab) and the auxiliary functions'
/// context errors.
pub fn register(conn: &mut Connection) -> Result<()> {
    // SQLite's FTS5 draws 16 bytes of the process's generator for each
    // connection: the header of its locale values (`locale.rs`); drawn
    // here too, so that `random()` after an open matches SQLite's for
    // the same seed.
    let mut header = [0u8; locale::HEADER_LEN];
    crate::util::prng::fill(&mut header);
    let tables = vocab::Registry::default();
    let ext = conn.extension_state::<extension::Extensions>();
    ext.set_locale_header(header);
    conn.create_module("fts5", Some(Arc::new(Fts5Module(tables.clone(), ext))))?;
    conn.create_module("fts5vocab", Some(Arc::new(vocab::VocabModule(tables))))?;
    aux::register_globals(conn, header)
}
