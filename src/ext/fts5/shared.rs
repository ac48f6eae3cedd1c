//! What an auxiliary function sees of an open fts5 cursor ([`Shared`]):
//! the query in force, the table's figures and the current row (read in
//! full only when asked for, [`current_row`]); and the registry of open
//! cursors by id ([`cursors`]), through which a function called with the
//! table's hidden column finds its cursor.
//!
//! Invariant: while a cursor is open its [`Shared`] is in the registry
//! under its id, and `Shared::row` (or, while that is None, the row
//! `Shared::flat` names) is the row the cursor points at (checked:
//! fts5_cursor_registered, fts5_shared_row).

use super::config::Config;
use super::query::Query;
use super::row::{Row, Stats};
use super::rows::Matched;
use super::shadow;
use super::tokenizer::Tokenizer;
use crate::error::{Error, Result};
use crate::vdbe::host::VmHost;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// What an auxiliary function sees of a cursor.
#[derive(Default)]
pub struct Shared {
    /// The query in force (None: a full scan).
    pub query: Option<Arc<Query>>,
    /// Table figures.
    pub stats: Arc<Stats>,
    /// The current row (None while it is `flat`'s and not asked for).
    pub row: Option<Arc<Row>>,
    /// The cursor's rows when found through the index (kept flat, see
    /// `rows::Matched`), and which of them is current: `row` is made
    /// from it when first asked for.
    pub flat: Option<(Arc<Matched>, usize)>,
    /// Set while `row` is light (found through the index, its content
    /// not read yet: see `rows.rs`): the table whose content to read.
    pub unloaded: Option<Arc<Config>>,
    /// The table's tokenizer and column names (for application-defined
    /// auxiliary functions).
    pub tokenizer: Tokenizer,
    /// Column names.
    pub columns: Arc<[String]>,
    /// The header of the connection's locale values (`locale.rs`).
    pub locale_header: Option<[u8; super::locale::HEADER_LEN]>,
    /// What each application-defined auxiliary function kept on this
    /// cursor (`xSetAuxdata`), by function identity; dropped with it.
    pub aux_data: HashMap<usize, Box<dyn std::any::Any + Send>>,
}

/// The current row of `s`, its content read first if it was light
/// (through `host`, the connection the caller was lent).
pub fn current_row(s: &mut Shared, host: Option<&mut dyn VmHost>) -> Result<Option<Arc<Row>>> {
    if s.row.is_none() {
        if let Some((m, k)) = &s.flat {
            s.row = Some(Arc::new(m.row(*k)));
        }
    }
    if let (Some(cfg), Some(row)) = (s.unloaded.clone(), s.row.clone()) {
        let host = host.ok_or_else(|| Error::sql("fts5: no connection to read the row"))?;
        let full = super::rows::load(shadow::conn(host)?, &cfg, &row)?;
        s.row = Some(Arc::new(full));
        s.unloaded = None;
    }
    Ok(s.row.clone())
}

/// Open cursors by id.
pub fn cursors() -> &'static Mutex<HashMap<i64, Arc<Mutex<Shared>>>> {
    static CURSORS: OnceLock<Mutex<HashMap<i64, Arc<Mutex<Shared>>>>> = OnceLock::new();
    CURSORS.get_or_init(|| Mutex::new(HashMap::new()))
}
