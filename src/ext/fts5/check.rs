//! # The 'integrity-check' command
//!
//! `INSERT INTO t(t[, rank]) VALUES('integrity-check'[, 0|1])`: the
//! pending changes are flushed, then every segment the structure record
//! lists must decode (pages present, terms and doclists well formed,
//! position columns within the table's). Unless the table is contentless
//! (or external content checked with rank 0, as the documentation says),
//! the index must then hold exactly what indexing the content gives, and
//! `%_docsize` and the averages record must agree with it. Any
//! discrepancy is SQLITE_CORRUPT_VTAB, as in SQLite: sizes or averages
//! that differ are "database disk image is malformed", an index that
//! differs from the content with the sizes right is SQLite's "fts5:
//! checksum mismatch for table" error. `PRAGMA integrity_check` reports
//! the latter as is and the former as a malformed inverted index.
//!
//! Invariant: the check writes nothing but the flush of pending changes
//! (checked: fts5_check_reads_only).

use super::codec::{columns, positions, put};
use super::config::{Config, Content, Detail};
use super::index;
use super::pending::{Pending, RowTokens};
use super::shadow::rows;
use super::writer;
use crate::connection::Connection;
use crate::error::{Error, Result, SQLITE_CORRUPT_VTAB};
use crate::value::Value;

fn malformed() -> Error {
    Error::new(SQLITE_CORRUPT_VTAB, "database disk image is malformed")
}

/// Run the check; `compare_external`: the rank argument was nonzero.
pub fn run(c: &mut Connection, cfg: &Config, p: &mut Pending, compare_external: bool) -> Result<()> {
    index::persist(c, cfg, p)?;
    let writes = c.total_changes();
    let r = check_flushed(c, cfg, compare_external);
    // (Rows written by the statements it runs would count here.)
    // invariant: fts5_check_reads_only
    debug_assert_eq!(c.total_changes(), writes, "the fts5 integrity check wrote rows");
    r
}

/// [`run`] once the pending changes are flushed.
fn check_flushed(c: &mut Connection, cfg: &Config, compare_external: bool) -> Result<()> {
    let idx = index::read_all(c, cfg).map_err(|e| if e.primary() == crate::error::SQLITE_CORRUPT { malformed() } else { e })?;
    let ncol = cfg.columns.len();
    for dl in idx.values() {
        for e in dl.values() {
            let cols: Vec<usize> = match cfg.detail {
                Detail::Full => positions(&e.poslist).map_err(|_| malformed())?.into_iter().map(|(c, _)| c).collect(),
                Detail::Column => columns(&e.poslist).map_err(|_| malformed())?,
                Detail::None => Vec::new(),
            };
            if cols.iter().any(|&c| c >= ncol) {
                return Err(malformed());
            }
        }
    }
    let compare = match cfg.content {
        Content::Own => true,
        Content::External { .. } => compare_external,
        Content::None => false,
    };
    if !compare {
        return Ok(());
    }
    // What indexing the content gives, in a pending hash of its own.
    let mut expect = Pending::default();
    let mut toks = RowTokens::default();
    let mut totals = vec![0i64; ncol];
    let mut sizes = Vec::new();
    for r in writer::all_content(c, cfg)? {
        let Value::Integer(id) = r[0] else { return Err(malformed()) };
        toks.fill(cfg, &r[1..])?;
        let mut sz = Vec::new();
        for (t, &x) in totals.iter_mut().zip(&toks.sizes) {
            *t += x as i64;
            put(&mut sz, x);
        }
        sizes.push((id, sz));
        expect.add(cfg, id, false, &toks);
    }
    if cfg.columnsize {
        let stored: Vec<(i64, Vec<u8>)> = rows(c, &format!("SELECT id, sz FROM {} ORDER BY id", cfg.shadow("docsize")))?
            .into_iter()
            .map(|r| match (&r[0], &r[1]) {
                (Value::Integer(i), Value::Blob(b)) => (*i, b.clone()),
                (Value::Integer(i), _) => (*i, Vec::new()),
                _ => (i64::MIN, Vec::new()),
            })
            .collect();
        if stored != sizes {
            return Err(malformed());
        }
    }
    let (n, cols) = index::averages(c, cfg)?;
    if n != sizes.len() as i64 || cols != totals {
        return Err(malformed());
    }
    // Sizes agree: what differs is the indexed text itself. A delete
    // flag left on the oldest data hides nothing and does not count.
    let mut idx = idx;
    for e in idx.values_mut().flat_map(|dl| dl.values_mut()) {
        e.delete = false;
    }
    if expect.terms() != idx {
        return Err(Error::new(SQLITE_CORRUPT_VTAB, format!("fts5: checksum mismatch for table \"{}\"", cfg.name)));
    }
    Ok(())
}

/// xIntegrity (`PRAGMA integrity_check`): the check without comparing
/// external content, its finding as SQLite words it.
pub fn integrity(c: &mut Connection, cfg: &Config, p: &mut Pending) -> Result<Option<String>> {
    match run(c, cfg, p, false) {
        Ok(()) => Ok(None),
        Err(e) if e.message.starts_with("fts5: checksum mismatch") => Ok(Some(e.message)),
        Err(e) if e.primary() == crate::error::SQLITE_CORRUPT => Ok(Some(format!("malformed inverted index for FTS5 table {}.{}", cfg.db, cfg.name))),
        Err(e) => Err(e),
    }
}
