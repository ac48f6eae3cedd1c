//! # Rows of tables without their own content: read from the index
//!
//! An external content (`content=tbl`) or contentless (`content=''`)
//! table answers a MATCH from its inverted index, as SQLite does: the
//! rows are those the index holds (plus the transaction's pending
//! changes), whatever the content table says. Each row's tokens are
//! rebuilt from the main index's terms and positions, so the matcher
//! sees exactly what was indexed. Column values then come from the
//! external content table (a row it lacks is SQLite's "missing row"
//! error when read) or are NULL (contentless; `contentless_unindexed=1`
//! keeps the UNINDEXED ones in `%_content`). A scan without MATCH reads
//! the content table in rowid order, or for a contentless table the
//! rowids of `%_docsize` (of the `%_content` a `contentless_unindexed=1`
//! table keeps when there is no `%_docsize`; neither: "does not support
//! scanning").
//!
//! bm25's figures come from the averages record and `%_docsize` (token
//! counts of the content when `columnsize=0`; -1 per column for a
//! contentless table without sizes, as SQLite's xColumnSize says).
//!
//! Invariant: rows are returned in ascending rowid order (an external
//! content table's scan in the order its rowid column sorts, which the
//! application's data decides), and every row's `tokens` and `size` have
//! one entry per column (checked: fts5_scan_rows).

use super::codec::{columns, get, positions};
use super::config::{Config, Content, Detail};
use super::index;
use super::matcher;
use super::merge::merge;
use super::pending::Pending;
use super::query::Query;
use super::row::{value_tokens, Row, Stats};
use super::shadow::rows;
use super::tokenizer::{column_size, Token};
use super::writer;
use crate::connection::Connection;
use crate::error::{Error, Result};
use crate::value::Value;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// Per rowid, per column, the tokens at each position (as indexed).
/// Without positions (`detail=column`) each term of a column takes a
/// slot of its own; without columns either (`detail=none`) every term
/// is in column 0. Either way a one-token phrase (all such an index
/// answers) is found in the columns the index knows.
pub type Docs = BTreeMap<i64, Vec<Vec<Vec<String>>>>;

/// The index's rows, pending changes applied, as token lists.
pub fn index_docs(c: &mut Connection, cfg: &Config, p: &Pending) -> Result<Docs> {
    let all = merge(vec![p.terms(), index::read_all(c, cfg)?], true);
    let ncol = cfg.columns.len();
    let mut docs = Docs::new();
    for (key, dl) in &all {
        if key.first() != Some(&b'0') {
            continue;
        }
        let tok = String::from_utf8_lossy(&key[1..]).into_owned();
        for (rowid, e) in dl {
            let d = docs.entry(*rowid).or_insert_with(|| vec![Vec::new(); ncol]);
            match cfg.detail {
                Detail::Full => {
                    for (col, pos) in positions(&e.poslist)? {
                        let v = d.get_mut(col).ok_or_else(Error::corrupt)?;
                        if v.len() <= pos {
                            v.resize(pos + 1, Vec::new());
                        }
                        v[pos].push(tok.clone());
                    }
                }
                Detail::Column => {
                    for col in columns(&e.poslist)? {
                        d.get_mut(col).ok_or_else(Error::corrupt)?.push(vec![tok.clone()]);
                    }
                }
                Detail::None => d[0].push(vec![tok.clone()]),
            }
        }
    }
    Ok(docs)
}

/// `%_docsize` decoded: rowid → tokens per column.
fn docsizes(c: &mut Connection, cfg: &Config) -> Result<HashMap<i64, Vec<i64>>> {
    let mut out = HashMap::new();
    if !cfg.columnsize {
        return Ok(out);
    }
    for r in rows(c, &format!("SELECT id, sz FROM {}", cfg.shadow("docsize")))? {
        let (Value::Integer(id), Value::Blob(b)) = (&r[0], &r[1]) else { continue };
        let mut v = Vec::with_capacity(cfg.columns.len());
        let mut i = 0;
        while i < b.len() && v.len() < cfg.columns.len() {
            let (x, j) = get(b, i)?;
            v.push(x as i64);
            i = j;
        }
        v.resize(cfg.columns.len(), 0);
        out.insert(*id, v);
    }
    Ok(out)
}

/// The values a row shows: external content, or NULLs (with the kept
/// UNINDEXED values of a `contentless_unindexed=1` table). None: the
/// external content table has no such row.
fn values(c: &mut Connection, cfg: &Config, rowid: i64) -> Result<Option<Vec<Value>>> {
    let n = cfg.columns.len();
    if cfg.content != Content::None {
        return writer::stored(c, cfg, rowid);
    }
    let mut vals = vec![Value::Null; n];
    let kept = cfg.stored_columns();
    if !kept.is_empty() {
        if let Some(r) = writer::stored_unindexed(c, cfg, rowid)? {
            for (i, v) in kept.iter().zip(r) {
                vals[*i] = v;
            }
        }
    }
    Ok(Some(vals))
}

fn tokens_of(cfg: &Config, vals: &[Value]) -> Result<Vec<Vec<Token>>> {
    if cfg.content == Content::None {
        return Ok(vec![Vec::new(); cfg.columns.len()]);
    }
    vals.iter().zip(&cfg.unindexed).map(|(v, un)| if *un { Ok(Vec::new()) } else { value_tokens(cfg, v) }).collect()
}

fn sizes_of(cfg: &Config, sizes: &HashMap<i64, Vec<i64>>, rowid: i64, tokens: &[Vec<Token>]) -> Vec<i64> {
    let n = cfg.columns.len();
    if cfg.columnsize {
        return sizes.get(&rowid).cloned().unwrap_or_else(|| vec![0; n]);
    }
    if cfg.content == Content::None {
        return vec![-1; n];
    }
    tokens.iter().map(|t| column_size(t) as i64).collect()
}

/// The rows of a table without its own content that `q` matches (all
/// rows when None), with the figures bm25 needs.
pub fn scan(c: &mut Connection, cfg: &Config, q: Option<&Query>, p: &Pending) -> Result<(Vec<Arc<Row>>, Stats)> {
    debug_assert!(cfg.content != Content::Own);
    let n = cfg.columns.len();
    let Some(q) = q else {
        let mut out = Vec::new();
        if cfg.content == Content::None {
            // The rowids are those of `%_docsize`, else of the `%_content`
            // a `contentless_unindexed=1` table keeps (as SQLite scans).
            let ids = if cfg.columnsize {
                cfg.shadow("docsize")
            } else if !cfg.stored_columns().is_empty() {
                cfg.shadow("content")
            } else {
                return Err(Error::sql(format!("{}: table does not support scanning", cfg.name)));
            };
            for r in rows(c, &format!("SELECT id FROM {ids} ORDER BY id"))? {
                let Value::Integer(rowid) = r[0] else { return Err(Error::corrupt()) };
                let vals = values(c, cfg, rowid)?.unwrap_or_else(|| vec![Value::Null; n]);
                out.push(Arc::new(Row { rowid, values: vals, tokens: vec![Vec::new(); n], inst: Vec::new(), size: vec![0; n], missing: false }));
            }
        } else {
            for r in writer::all_content(c, cfg)? {
                let rowid = r[0].as_ref().to_i64();
                let vals = r[1..].to_vec();
                let tokens = tokens_of(cfg, &vals)?;
                let size = tokens.iter().map(|t| column_size(t) as i64).collect();
                out.push(Arc::new(Row { rowid, values: vals, tokens, inst: Vec::new(), size, missing: false }));
            }
        }
        let (nrow, totals) = index::current_averages(c, cfg, p)?;
        // invariant: fts5_scan_rows
        debug_assert!(rows_in_order(&out, n, cfg.external().is_none()));
        return Ok((out, Stats { nrow, ntoken: totals.iter().sum(), nhit: Vec::new(), col_tokens: totals }));
    };
    let docs = index_docs(c, cfg, p)?;
    let (nrow, totals) = index::current_averages(c, cfg, p)?;
    let mut stats = Stats { nrow, ntoken: totals.iter().sum(), nhit: vec![0; q.phrases.len()], col_tokens: totals };
    let sizes = docsizes(c, cfg)?;
    let mut out = Vec::new();
    for (rowid, doc) in &docs {
        let hits: Vec<bool> = q.phrases.iter().map(|ph| !matcher::phrase_instances_multi(ph, doc).is_empty()).collect();
        for (i, h) in hits.iter().enumerate() {
            stats.nhit[i] += i64::from(*h);
        }
        let mut inst = Vec::new();
        if cfg.detail == Detail::Full {
            if !matcher::evaluate_multi(q, doc, &mut inst) {
                continue;
            }
        } else {
            // Whether the row matches comes from the index; where the
            // phrases are in it, from the content (SQLite tokenizes the
            // row for xInst: a contentless row has no instances).
            inst = vec![Vec::new(); q.phrases.len()];
            if !matcher::evaluate_hits(q, &hits, &mut inst) {
                continue;
            }
        }
        let (vals, missing) = match values(c, cfg, *rowid)? {
            Some(v) => (v, false),
            None => (vec![Value::Null; n], true),
        };
        let tokens = tokens_of(cfg, &vals)?;
        if cfg.detail != Detail::Full && cfg.content != Content::None {
            inst = q.phrases.iter().map(|p| matcher::content_instances(p, &tokens)).collect();
            matcher::evaluate_hits(q, &hits, &mut inst);
        }
        let size = sizes_of(cfg, &sizes, *rowid, &tokens);
        out.push(Arc::new(Row { rowid: *rowid, values: vals, tokens, inst, size, missing }));
    }
    // invariant: fts5_scan_rows
    debug_assert!(rows_in_order(&out, n, true));
    Ok((out, stats))
}

/// Whether `rows` have `n` columns of tokens and sizes, and ascend by
/// rowid if `ordered`.
fn rows_in_order(rows: &[Arc<Row>], n: usize, ordered: bool) -> bool {
    (!ordered || rows.windows(2).all(|w| w[0].rowid < w[1].rowid)) && rows.iter().all(|r| r.tokens.len() == n && r.size.len() == n)
}

/// SQLite's error for reading a row the external content table lacks.
pub fn missing_row(cfg: &Config, rowid: i64) -> Error {
    let table = match &cfg.content {
        Content::External { table, .. } => table.as_str(),
        _ => "",
    };
    Error::new(
        crate::error::SQLITE_CORRUPT_VTAB,
        format!("fts5: missing row {rowid} from content table '{}'.'{}'", cfg.db.replace('\'', "''"), table.replace('\'', "''")),
    )
}
