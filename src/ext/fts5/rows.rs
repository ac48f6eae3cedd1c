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
//! Such rows are held flat ([`Matched`]: rowids, instances and sizes in
//! three vectors, nothing allocated per row); a [`Row`] is made of one
//! only when something other than bm25 or the rank order asks for it.
//!
//! The `%_docsize` sizes read are kept per table ([`SizeCache`]) while
//! the database's change sequence (`Connection::change_sequence`) stays
//! the one they were read under, so a query over rows an earlier query
//! already ranked reads no `%_docsize` row again (every write, rollback
//! or other connection's commit starts the cache afresh).
//!
//! Invariant: a light row has empty `values` and `tokens`, and only a
//! light row is loaded (checked: fts5_light_rows); [`load`]
//! gives the row a full read would have built; a cached size is the
//! `%_docsize` blob decoded as of the cache's sequence.

use super::config::{Config, Content};
use super::lookup::query;
use super::matcher::{self, Inst};
use super::query::Query;
use super::row::{value_tokens, Row};
use super::tokenizer::{column_size, Token};
use crate::connection::{Connection, Statement, StepResult};
use crate::error::{Error, Result};
use crate::value::Value;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::{Arc, Mutex};

/// Whether rows of `cfg` are returned light (their content read later).
pub fn lazy(cfg: &Config) -> bool {
    cfg.columnsize || cfg.content == Content::None
}

/// The rows a MATCH answered from the index, kept flat: no allocation
/// per row, as a common term matches tens of thousands of rows of which
/// a query returns a few (a [`Row`] is made for a row only when an
/// auxiliary function other than bm25 or a column read asks for it).
#[derive(Debug, Default)]
pub struct Matched {
    nphrase: usize,
    ncol: usize,
    rowids: Vec<i64>,
    /// Row k's instances of phrase i are `inst[start[k * nphrase + i]..
    /// start[k * nphrase + i + 1]]`.
    start: Vec<u32>,
    inst: Vec<Inst>,
    /// Row k's sizes are `size[k * ncol..(k + 1) * ncol]` (once
    /// [`build`] filled them in).
    size: Vec<i64>,
}

impl Matched {
    /// No rows yet, for a query of `nphrase` phrases on `ncol` columns.
    pub fn new(nphrase: usize, ncol: usize) -> Matched {
        Matched { nphrase, ncol, start: vec![0], ..Matched::default() }
    }

    /// Room for `rows` rows and `inst` instances.
    pub fn reserve(&mut self, rows: usize, inst: usize) {
        self.rowids.reserve(rows);
        self.start.reserve(rows * self.nphrase);
        self.inst.reserve(inst);
    }

    /// Add a row (after the last one): its instances per phrase.
    pub fn push(&mut self, rowid: i64, inst: &[Vec<Inst>]) {
        debug_assert_eq!(inst.len(), self.nphrase);
        debug_assert!(self.rowids.last().is_none_or(|&r| r < rowid));
        self.rowids.push(rowid);
        for v in inst {
            self.inst.extend_from_slice(v);
            self.start.push(self.inst.len() as u32);
        }
    }

    /// Rows held.
    pub fn len(&self) -> usize {
        self.rowids.len()
    }

    /// Whether no row is held.
    pub fn is_empty(&self) -> bool {
        self.rowids.is_empty()
    }

    /// The rowid of row `k`.
    pub fn rowid(&self, k: usize) -> i64 {
        self.rowids[k]
    }

    /// Row `k`'s instances of phrase `i`.
    pub fn inst(&self, k: usize, i: usize) -> &[Inst] {
        let j = k * self.nphrase + i;
        &self.inst[self.start[j] as usize..self.start[j + 1] as usize]
    }

    /// Row `k`'s sizes.
    pub fn size(&self, k: usize) -> &[i64] {
        &self.size[k * self.ncol..(k + 1) * self.ncol]
    }

    /// Row `k` as a light [`Row`].
    pub fn row(&self, k: usize) -> Row {
        Row {
            rowid: self.rowids[k],
            values: Vec::new(),
            tokens: Vec::new(),
            inst: (0..self.nphrase).map(|i| self.inst(k, i).to_vec()).collect(),
            size: self.size.get(k * self.ncol..(k + 1) * self.ncol).map_or_else(|| vec![0; self.ncol], <[i64]>::to_vec),
            missing: false,
        }
    }
}

/// Hashing of rowids for [`SizeCache`]: SipHash (std's default) cost
/// more than the rest of the lookup; a multiplication alone leaves the
/// low bits (the bucket) equal for rowids that are multiples of a power
/// of two, so the product is folded (its high half mixed into the low).
#[derive(Default)]
struct RowidHasher(u64);

impl Hasher for RowidHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b) ^ self.0.rotate_left(8));
        }
    }
    fn write_i64(&mut self, n: i64) {
        self.write_u64(n as u64);
    }
    fn write_u64(&mut self, n: u64) {
        let x = u128::from(self.0 ^ n) * 0x9e37_79b9_7f4a_7c15;
        self.0 = (x as u64) ^ ((x >> 64) as u64);
    }
}

/// Rows' `%_docsize` token counts read under one change sequence.
#[derive(Default)]
pub struct SizeCache {
    seq: u64,
    /// rowid → its sizes' offset in `sizes` (a row without a `%_docsize`
    /// row has zeros, as when it is read).
    at: HashMap<i64, u32, BuildHasherDefault<RowidHasher>>,
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

/// The rows `m` holds as the cursor returns them: `m` itself with its
/// sizes filled in (from `cache` where it holds them) where [`lazy`];
/// else (`columnsize=0` with content) every row read whole.
pub enum Built {
    /// Light rows, flat.
    Flat(Matched),
    /// Rows read whole.
    Rows(Vec<Arc<Row>>),
}

/// The rows for `m` (see [`Built`]).
pub fn build(c: &mut Connection, cfg: &Config, mut m: Matched, cache: &Mutex<SizeCache>) -> Result<Built> {
    let n = cfg.columns.len();
    debug_assert_eq!(m.ncol, n);
    if !lazy(cfg) {
        let mut out = Vec::with_capacity(m.len());
        for k in 0..m.len() {
            let mut r = load(c, cfg, &m.row(k))?;
            r.size = r.tokens.iter().map(|t| column_size(t) as i64).collect();
            out.push(Arc::new(r));
        }
        return Ok(Built::Rows(out));
    }
    m.size.clear();
    if !cfg.columnsize {
        m.size.resize(m.len() * n, -1);
        return Ok(Built::Flat(m));
    }
    m.size.reserve(m.len() * n);
    let seq = c.change_sequence(&cfg.db);
    let mut cache = cache.lock().unwrap_or_else(|e| e.into_inner());
    match seq {
        Some(seq) if seq == cache.seq => {}
        _ => *cache = SizeCache { seq: seq.unwrap_or(0), ..SizeCache::default() },
    }
    let mut st = None;
    for k in 0..m.len() {
        let rowid = m.rowids[k];
        if let Some(size) = cache.sizes_of(rowid, n) {
            m.size.extend_from_slice(size);
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
        m.size.extend_from_slice(&size);
    }
    Ok(Built::Flat(m))
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
        full.inst = q.phrases.iter().map(|p| matcher::content_instances(p, &full.tokens)).collect();
    }
    matcher::evaluate_hits(q, &hits, &mut full.inst);
    Ok(Arc::new(full))
}

/// `row` with its values and tokens read from the content.
pub fn load(c: &mut Connection, cfg: &Config, row: &Row) -> Result<Row> {
    // invariant: fts5_light_rows
    debug_assert!(row.values.is_empty() && row.tokens.is_empty(), "fts5 row {} loaded twice", row.rowid);
    let n = cfg.columns.len();
    let mut full =
        Row { rowid: row.rowid, values: vec![Value::Null; n], tokens: vec![Vec::new(); n], inst: row.inst.clone(), size: row.size.clone(), missing: false };
    let stored_cols = super::locale::content_columns(cfg);
    let sql = match (&cfg.content, cfg.external()) {
        (_, Some((table, rowid))) => format!("SELECT 0{} FROM {table} WHERE {rowid} = ?1", super::writer::external_cols(cfg)),
        (Content::Own, _) => format!("SELECT 0{stored_cols} FROM {} WHERE id = ?1", cfg.shadow("content")),
        (Content::None, _) if !stored_cols.is_empty() => format!("SELECT 0{stored_cols} FROM {} WHERE id = ?1", cfg.shadow("content")),
        _ => return Ok(full),
    };
    let r = query(c, &sql, &[Value::Integer(row.rowid)])?;
    let Some(r) = r.into_iter().next() else {
        full.missing = cfg.content != Content::None;
        return Ok(full);
    };
    if cfg.content == Content::None {
        for (i, v) in cfg.stored_columns().iter().zip(super::locale::from_content(cfg, r[1..].to_vec())) {
            full.values[*i] = v;
        }
        return Ok(full);
    }
    full.values = if cfg.content == Content::Own { super::locale::from_content(cfg, r[1..].to_vec()) } else { r[1..].to_vec() };
    full.values.resize(n, Value::Null);
    full.tokens =
        full.values.iter().zip(&cfg.unindexed).map(|(v, un)| if *un { Ok(Vec::new()) } else { value_tokens(cfg, v) }).collect::<Result<Vec<Vec<Token>>>>()?;
    Ok(full)
}
