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
//! Invariant: a light row has empty `values` and `tokens`; [`load`]
//! gives the row a full read would have built.

use super::config::{Config, Content};
use super::lookup::query;
use super::matcher::Inst;
use super::table::{value_tokens, Row};
use super::tokenizer::Token;
use crate::connection::{Connection, StepResult};
use crate::error::{Error, Result};
use crate::value::Value;
use std::sync::Arc;

/// Whether rows of `cfg` are returned light (their content read later).
pub fn lazy(cfg: &Config) -> bool {
    cfg.columnsize || cfg.content == Content::None
}

/// The rows for `found` (rowid, instances), light where [`lazy`].
pub fn build(c: &mut Connection, cfg: &Config, found: Vec<(i64, Vec<Vec<Inst>>)>) -> Result<Vec<Arc<Row>>> {
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
    // One statement for every row's sizes.
    let sql = format!("SELECT sz FROM {} WHERE id = ?1", cfg.shadow("docsize"));
    let (st, _) = c.prepare_terminated(sql.as_bytes())?;
    let mut st = st.ok_or_else(|| Error::sql("fts5: no statement"))?;
    for (rowid, inst) in found {
        st.reset(c);
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
        out.push(Arc::new(Row { rowid, values: Vec::new(), tokens: Vec::new(), inst, size, missing: false }));
    }
    st.reset(c);
    Ok(out)
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
