//! # Writing: the index rebuilt whole as one single-page segment
//!
//! Every change (INSERT, UPDATE, DELETE, and the 'rebuild'/'optimize'
//! commands) is first applied to an in-memory copy of the content; the
//! whole index is then encoded as one segment of one leaf page, in the
//! layout `FORMAT.md` describes (the same bytes SQLite writes when one
//! segment holds everything, e.g. after 'rebuild'). Only when that fits
//! are the shadow tables written, so a refused change writes nothing.
//! An index that needs more than one page, or a table with `prefix=`,
//! is refused ("... not supported by ringlite yet").
//!
//! Invariant: after a successful [`apply`], `%_data` holds exactly the
//! averages record, the structure record and the segment's leaf (if any
//! term), `%_idx` one row per leaf, and `%_docsize` one row per content
//! row.

use super::config::Config;
use super::shadow::{conn, rows};
use super::table::value_tokens;
use crate::connection::{Connection, StepResult};
use crate::error::{Error, Result, SQLITE_CONSTRAINT};
use crate::value::Value;
use crate::vdbe::host::VmHost;
use std::collections::BTreeMap;

/// The largest leaf page written (the documented default `pgsz`).
const PAGE_SIZE: usize = 4050;

/// A change to the content.
pub enum Change {
    /// Insert a row (rowid None: the next free one).
    Insert(Option<i64>, Vec<Value>),
    /// Replace row `old` by row `new`.
    Update(i64, i64, Vec<Value>),
    /// Delete a row.
    Delete(i64),
    /// Rebuild the index from the content as it is.
    Rebuild,
}

fn put_varint(out: &mut Vec<u8>, v: u64) {
    if v > 0x00ff_ffff_ffff_ffff {
        let mut buf = [0u8; 9];
        buf[8] = v as u8;
        let mut x = v >> 8;
        for i in (0..8).rev() {
            buf[i] = (x as u8 & 0x7f) | 0x80;
            x >>= 7;
        }
        out.extend_from_slice(&buf);
        return;
    }
    let mut tmp = Vec::with_capacity(9);
    let mut x = v;
    loop {
        tmp.push((x & 0x7f) as u8);
        x >>= 7;
        if x == 0 {
            break;
        }
    }
    for (i, b) in tmp.iter().enumerate().rev() {
        out.push(if i > 0 { b | 0x80 } else { *b });
    }
}

fn exec(c: &mut Connection, sql: &str, params: &[Value]) -> Result<()> {
    let (st, _) = c.prepare(sql.as_bytes())?;
    let Some(mut st) = st else { return Ok(()) };
    for (i, p) in params.iter().enumerate() {
        st.bind(i + 1, p.clone())?;
    }
    loop {
        match st.step(c)? {
            StepResult::Row => continue,
            StepResult::Done => return Ok(()),
            StepResult::Io => return Err(Error::sql("fts5: unexpected I/O wait")),
        }
    }
}

/// The leaf page for `docs` (rowid → tokens per column), or None when
/// there is no term.
fn leaf(cfg: &Config, docs: &BTreeMap<i64, Vec<Vec<String>>>) -> Result<Option<Vec<u8>>> {
    // term → rowid → column → positions
    let mut index: BTreeMap<Vec<u8>, BTreeMap<i64, BTreeMap<usize, Vec<usize>>>> = BTreeMap::new();
    for (rowid, cols) in docs {
        for (c, toks) in cols.iter().enumerate() {
            if cfg.unindexed[c] {
                continue;
            }
            for (p, t) in toks.iter().enumerate() {
                let mut key = vec![b'0'];
                key.extend_from_slice(t.as_bytes());
                index.entry(key).or_default().entry(*rowid).or_default().entry(c).or_default().push(p);
            }
        }
    }
    if index.is_empty() {
        return Ok(None);
    }
    let mut body = Vec::new();
    let mut offsets = Vec::new();
    let mut prev: Option<&Vec<u8>> = None;
    for (term, doclist) in &index {
        offsets.push(4 + body.len());
        match prev {
            None => {
                put_varint(&mut body, term.len() as u64);
                body.extend_from_slice(term);
            }
            Some(p) => {
                let shared = p.iter().zip(term).take_while(|(a, b)| a == b).count();
                put_varint(&mut body, shared as u64);
                put_varint(&mut body, (term.len() - shared) as u64);
                body.extend_from_slice(&term[shared..]);
            }
        }
        prev = Some(term);
        let mut last_rowid: Option<i64> = None;
        for (rowid, cols) in doclist {
            match last_rowid {
                None => put_varint(&mut body, *rowid as u64),
                Some(l) => put_varint(&mut body, rowid.wrapping_sub(l) as u64),
            }
            last_rowid = Some(*rowid);
            let mut pl = Vec::new();
            for (c, positions) in cols {
                if *c > 0 {
                    pl.push(1);
                    put_varint(&mut pl, *c as u64);
                }
                let mut last = 0;
                for p in positions {
                    put_varint(&mut pl, (p - last + 2) as u64);
                    last = *p;
                }
            }
            put_varint(&mut body, (pl.len() * 2) as u64);
            body.extend_from_slice(&pl);
        }
    }
    let mut page = Vec::with_capacity(body.len() + 16);
    page.extend_from_slice(&[0, 0]);
    let size = 4 + body.len();
    if size > 0xffff {
        return Err(too_big());
    }
    page.extend_from_slice(&(size as u16).to_be_bytes());
    page.extend_from_slice(&body);
    let mut last = 0;
    for o in offsets {
        put_varint(&mut page, (o - last) as u64);
        last = o;
    }
    if page.len() > PAGE_SIZE {
        return Err(too_big());
    }
    Ok(Some(page))
}

fn too_big() -> Error {
    Error::unsupported("an fts5 index of more than one page (writing)")
}

/// Apply `change` to the table and rewrite its index; returns the rowid
/// of an inserted row.
pub fn apply(host: &mut dyn VmHost, cfg: &Config, change: Change) -> Result<Option<i64>> {
    if !cfg.prefix.is_empty() {
        return Err(Error::unsupported("writing an fts5 table with prefix="));
    }
    let c = conn(host)?;
    let n = cfg.columns.len();
    let cols: String = (0..n).map(|i| format!(", c{i}")).collect();
    let mut content: BTreeMap<i64, Vec<Value>> = BTreeMap::new();
    for r in rows(c, &format!("SELECT id{cols} FROM {} ORDER BY id", cfg.shadow("content")))? {
        let Value::Integer(id) = r[0] else {
            return Err(Error::corrupt());
        };
        content.insert(id, r[1..].to_vec());
    }
    let exists = |content: &BTreeMap<i64, Vec<Value>>, id: i64| -> Result<()> {
        if content.contains_key(&id) {
            return Err(Error::new(SQLITE_CONSTRAINT, "constraint failed"));
        }
        Ok(())
    };
    // (rowid to delete, row to write)
    let mut del = None;
    let mut put = None;
    match change {
        Change::Insert(id, vals) => {
            let id = match id {
                Some(i) => i,
                None => match content.keys().next_back() {
                    Some(&m) if m == i64::MAX => return Err(Error::unsupported("choosing an fts5 rowid after the largest")),
                    Some(&m) => m + 1,
                    None => 1,
                },
            };
            exists(&content, id)?;
            content.insert(id, vals.clone());
            put = Some((id, vals));
        }
        Change::Update(old, new, vals) => {
            if content.remove(&old).is_some() {
                del = Some(old);
            }
            if new != old {
                exists(&content, new)?;
            }
            content.insert(new, vals.clone());
            put = Some((new, vals));
        }
        Change::Delete(id) => {
            if content.remove(&id).is_some() {
                del = Some(id);
            }
        }
        Change::Rebuild => {}
    }
    let docs: BTreeMap<i64, Vec<Vec<String>>> = content
        .iter()
        .map(|(id, vals)| {
            let t =
                vals.iter().zip(&cfg.unindexed).map(|(v, un)| if *un { Vec::new() } else { value_tokens(v).into_iter().map(|t| t.text).collect() }).collect();
            (*id, t)
        })
        .collect();
    let page = leaf(cfg, &docs)?;
    // Everything checked: write.
    if let Some(id) = del {
        exec(c, &format!("DELETE FROM {} WHERE id = ?", cfg.shadow("content")), &[Value::Integer(id)])?;
        exec(c, &format!("DELETE FROM {} WHERE id = ?", cfg.shadow("docsize")), &[Value::Integer(id)])?;
    }
    if let Some((id, vals)) = &put {
        let marks: String = (0..n).map(|_| ", ?").collect();
        let mut params = vec![Value::Integer(*id)];
        params.extend(vals.iter().cloned());
        exec(c, &format!("INSERT INTO {}(id{cols}) VALUES(?{marks})", cfg.shadow("content")), &params)?;
        let mut sz = Vec::new();
        for t in &docs[id] {
            put_varint(&mut sz, t.len() as u64);
        }
        exec(c, &format!("INSERT INTO {}(id, sz) VALUES(?, ?)", cfg.shadow("docsize")), &[Value::Integer(*id), Value::Blob(sz)])?;
    }
    let mut avg = Vec::new();
    put_varint(&mut avg, docs.len() as u64);
    for col in 0..n {
        put_varint(&mut avg, docs.values().map(|d| d[col].len() as u64).sum());
    }
    let data = cfg.shadow("data");
    exec(c, &format!("DELETE FROM {data} WHERE id > 10"), &[])?;
    exec(c, &format!("DELETE FROM {}", cfg.shadow("idx")), &[])?;
    exec(c, &format!("REPLACE INTO {data}(id, block) VALUES(1, ?)"), &[Value::Blob(avg)])?;
    let structure = match page {
        Some(page) => {
            exec(c, &format!("INSERT INTO {data}(id, block) VALUES(?, ?)"), &[Value::Integer((1i64 << 37) + 1), Value::Blob(page)])?;
            exec(c, &format!("INSERT INTO {}(segid, term, pgno) VALUES(1, X'', 2)", cfg.shadow("idx")), &[])?;
            vec![0, 0, 0, 0, 1, 1, 1, 0, 1, 1, 1, 1]
        }
        None => vec![0, 0, 0, 0, 0, 0, 0],
    };
    exec(c, &format!("REPLACE INTO {data}(id, block) VALUES(10, ?)"), &[Value::Blob(structure)])?;
    Ok(put.map(|(id, _)| id))
}
