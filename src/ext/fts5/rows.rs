//! # The rows a MATCH answered from the index returns
//!
//! A row found through the index (`search.rs`) starts light: its rowid,
//! its phrase instances and its sizes (from `%_docsize`, or -1 per
//! column for a contentless table without it), which is all `rank` and
//! `bm25()` read. Its values and tokens (what a column read,
//! `highlight()`, `snippet()` and an application's auxiliary function
//! need) are read from the content when first asked for, as SQLite
//! reads a row's content only then. A table with `columnsize=0` and
//! content has no stored sizes: its rows are read whole at once (the
//! sizes are the token counts).
//!
//! The `%_docsize` sizes read are kept per table ([`SizeCache`]) while
//! the database's change sequence (`Connection::change_sequence`) stays
//! the one they were read under, so a query over rows an earlier query
//! already ranked reads no `%_docsize` row again (every write, rollback
//! or other connection's commit starts the cache afresh).
//!
//! Invariant: a light row has empty `values` and `tokens`; [`load`]
//! gives the row a full read would have built; a cached size is the
//! `%_docsize` blob decoded as of the cache's sequence.

use super::config::{Config, Content};
use super::lookup::query;
use super::matcher::{self, Inst};
use super::query::Query;
use super::table::{value_tokens, Row};
use super::tokenizer::Token;
use crate::connection::{Connection, Statement, StepResult};
use crate::error::{Error, Result};
use crate::value::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Whether rows of `cfg` are returned light (their content read later).
pub fn lazy(cfg: &Config) -> bool {
    cfg.columnsize || cfg.content == Content::None
}

/// Rows' `%_docsize` token counts read under one change sequence.
#[derive(Default)]
pub struct SizeCache {
    seq: u64,
    /// rowid → its sizes' offset in `sizes` (a row without a `%_docsize`
    /// row has zeros, as when it is read).
    at: HashMap<i64, u32>,
    sizes: Vec<i64>,
}

/// Rows a cache holds at most (about 40 bytes each with two columns);
/// past it, the cache starts afresh.
const SIZE_CACHE_ROWS: usize = 1 << 20;

impl SizeCache {
    fn sizes_of(&self, rowid: i64, n: usize) -> Option<&[i64]> {
        self.at.get(&rowid).map(|&k| &self.sizes[k as usize * n..(k as usize + 1) * n])
    }

    fn remember(&mut self, rowid: i64, size: &[i64]) {
        if self.at.len() >= SIZE_CACHE_ROWS {
            self.at.clear();
            self.sizes.clear();
        }
        let k = self.at.len() as u32;
        if let std::collections::hash_map::Entry::Vacant(e) = self.at.entry(rowid) {
            e.insert(k);
            self.sizes.extend_from_slice(size);
        }
    }
}

/// The rows for `found` (rowid, instances), light where [`lazy`]; sizes
/// from `cache` where it holds them.
pub fn build(c: &mut Connection, cfg: &Config, found: Vec<(i64, Vec<Vec<Inst>>)>, cache: &Mutex<SizeCache>) -> Result<Vec<Arc<Row>>> {
    let n = cfg.columns.len();
    let mut out = Vec::with_capacity(found.len());
    if !lazy(cfg) {
        for (rowid, inst) in found {
            let light = Row { rowid, values: Vec::new(), tokens: Vec::new(), inst, size: Vec::new(), missing: false };
            let mut r = load(c, cfg, &light)?;
            r.size = r.tokens.iter().map(|t| t.len() as i64).collect();
            out.push(Arc::new(r));
        }
        return Ok(out);
    }
    if !cfg.columnsize {
        for (rowid, inst) in found {
            out.push(Arc::new(Row { rowid, values: Vec::new(), tokens: Vec::new(), inst, size: vec![-1; n], missing: false }));
        }
        return Ok(out);
    }
    let seq = c.change_sequence(&cfg.db);
    let mut cache = cache.lock().unwrap_or_else(|e| e.into_inner());
    match seq {
        Some(seq) if seq == cache.seq => {}
        _ => *cache = SizeCache { seq: seq.unwrap_or(0), ..SizeCache::default() },
    }
    let mut st = None;
    for (rowid, inst) in found {
        if let Some(size) = cache.sizes_of(rowid, n) {
            out.push(Arc::new(Row { rowid, values: Vec::new(), tokens: Vec::new(), inst, size: size.to_vec(), missing: false }));
            continue;
        }
        // One statement for the rows the cache lacks.
        if st.is_none() {
            let sql = format!("SELECT sz FROM {} WHERE id = ?1", cfg.shadow("docsize"));
            st = c.prepare_terminated(sql.as_bytes())?.0;
        }
        let st = st.as_mut().ok_or_else(|| Error::sql("fts5: no statement"))?;
        let size = read_sizes(c, st, rowid, n);
        st.reset(c);
        let size = size?;
        if seq.is_some() {
            cache.remember(rowid, &size);
        }
        out.push(Arc::new(Row { rowid, values: Vec::new(), tokens: Vec::new(), inst, size, missing: false }));
    }
    Ok(out)
}

/// The sizes of `rowid` through `st` (`SELECT sz FROM %_docsize WHERE id
/// = ?1`); zeros for a row it lacks.
fn read_sizes(c: &mut Connection, st: &mut Statement, rowid: i64, n: usize) -> Result<Vec<i64>> {
    st.bind(1, Value::Integer(rowid))?;
    let mut size = vec![0; n];
    match st.step(c)? {
        StepResult::Row => {
            if let Value::Blob(b) = st.column(0) {
                decode_sizes(b, &mut size)?;
            }
        }
        StepResult::Done => {}
        StepResult::Io => return Err(Error::sql("fts5: unexpected I/O wait")),
    }
    Ok(size)
}

/// A `%_docsize` blob's token counts into `size` (missing ones stay 0).
fn decode_sizes(b: &[u8], size: &mut [i64]) -> Result<()> {
    let mut i = 0;
    for s in size.iter_mut() {
        if i >= b.len() {
            break;
        }
        let (x, j) = super::codec::get(b, i)?;
        *s = x as i64;
        i = j;
    }
    Ok(())
}

/// Under `detail=column`/`none`: `row` (from `search::run`, its
/// instances standing for the phrases' hits) with its content read and
/// its instances found in the content's tokens, as SQLite tokenizes the
/// row for xInst; none for a contentless table.
pub fn with_instances(c: &mut Connection, cfg: &Config, q: &Query, row: Arc<Row>) -> Result<Arc<Row>> {
    let hits: Vec<bool> = row.inst.iter().map(|v| !v.is_empty()).collect();
    let mut full = if lazy(cfg) { load(c, cfg, &row)? } else { (*row).clone() };
    if cfg.content == Content::None {
        full.inst = vec![Vec::new(); hits.len()];
    } else {
        let text: Vec<Vec<String>> = full.tokens.iter().map(|t| t.iter().map(|x| x.text.clone()).collect()).collect();
        full.inst = q.phrases.iter().map(|p| matcher::phrase_instances(p, &text)).collect();
    }
    matcher::evaluate_hits(q, &hits, &mut full.inst);
    Ok(Arc::new(full))
}

/// `row` with its values and tokens read from the content.
pub fn load(c: &mut Connection, cfg: &Config, row: &Row) -> Result<Row> {
    let n = cfg.columns.len();
    let mut full =
        Row { rowid: row.rowid, values: vec![Value::Null; n], tokens: vec![Vec::new(); n], inst: row.inst.clone(), size: row.size.clone(), missing: false };
    let stored_cols: String = cfg.stored_columns().iter().map(|i| format!(", c{i}")).collect();
    let sql = match (&cfg.content, cfg.external()) {
        (_, Some((table, rowid))) => format!("SELECT 0{} FROM {table} WHERE {rowid} = ?1", super::writer::external_cols(cfg)),
        (Content::Own, _) => format!("SELECT 0{} FROM {} WHERE id = ?1", (0..n).map(|i| format!(", c{i}")).collect::<String>(), cfg.shadow("content")),
        (Content::None, _) if !stored_cols.is_empty() => format!("SELECT 0{stored_cols} FROM {} WHERE id = ?1", cfg.shadow("content")),
        _ => return Ok(full),
    };
    let r = query(c, &sql, &[Value::Integer(row.rowid)])?;
    let Some(r) = r.into_iter().next() else {
        full.missing = cfg.content != Content::None;
        return Ok(full);
    };
    if cfg.content == Content::None {
        for (i, v) in cfg.stored_columns().iter().zip(r.into_iter().skip(1)) {
            full.values[*i] = v;
        }
        return Ok(full);
    }
    full.values = r[1..].to_vec();
    full.values.resize(n, Value::Null);
    full.tokens = full
        .values
        .iter()
        .zip(&cfg.unindexed)
        .map(|(v, un)| if *un { Ok(Vec::new()) } else { value_tokens(&cfg.tokenizer, v) })
        .collect::<Result<Vec<Vec<Token>>>>()?;
    Ok(full)
}
