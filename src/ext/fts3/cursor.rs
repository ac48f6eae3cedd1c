//! # Cursors: full scans, docid lookups and full-text queries
//!
//! `filter` decodes the plan `best_index` chose (see the `IDX_*`
//! constants of `share`): a scan of the content in docid order, one
//! docid, or a MATCH run over the index (pending terms included), each
//! bounded by the docid range arguments. Rows' text is read from the
//! content lazily, when a column is asked for.
//!
//! The hidden column named after the table yields NULL carrying this
//! cursor's token as its subtype: `offsets()`, `snippet()` and
//! `matchinfo()` find the cursor's current row by it (SQLite passes a
//! pointer value there, which SQL also sees as NULL).
//!
//! Invariant: the [`Share`] registered under the token always describes
//! the row the cursor is on (checked: fts3_share_current).

use super::eval;
use super::expr;
use super::shadow::conn;
use super::share::{self, Inner, Share, HAVE_GE, HAVE_LANGID, HAVE_LE, IDX_DOCID, IDX_FULLTEXT, IDX_SCAN};
use super::tokenizer::InLanguage;
use crate::error::Result;
use crate::value::Value;
use crate::vdbe::host::VmHost;
use crate::vdbe::vtab::{ColumnContext, VTabCursor};
use std::sync::{Arc, Mutex};

/// A cursor.
pub struct FtsCursor {
    inner: Arc<Inner>,
    share: Arc<Mutex<Share>>,
    token: u32,
    docids: Vec<i64>,
    /// Rows already read (scans read them with the docids).
    rows: Vec<Option<(Vec<Value>, i64)>>,
    at: usize,
}

impl FtsCursor {
    /// A cursor on `inner`.
    pub fn new(inner: Arc<Inner>) -> FtsCursor {
        let share = Arc::new(Mutex::new(Share { inner: inner.clone(), run: None, docid: 0, row: None, langid: 0 }));
        let token = share::register_cursor(&share);
        FtsCursor { inner, share, token, docids: Vec::new(), rows: Vec::new(), at: 0 }
    }

    fn sync_share(&mut self) {
        let mut s = self.share.lock().unwrap_or_else(|e| e.into_inner());
        s.docid = self.docids.get(self.at).copied().unwrap_or(0);
        s.row = self.rows.get(self.at).and_then(|r| r.as_ref().map(|(v, _)| v.clone()));
    }

    fn load(&mut self, host: &mut dyn VmHost) -> Result<()> {
        if self.at < self.docids.len() && self.rows[self.at].is_none() {
            let c = conn(host)?;
            let r = self.inner.content_row(c, self.docids[self.at])?;
            let r = r.unwrap_or_else(|| (vec![Value::Null; self.inner.cfg.columns.len()], self.share.lock().unwrap_or_else(|e| e.into_inner()).langid));
            self.rows[self.at] = Some(r);
            self.sync_share();
        }
        Ok(())
    }
}

impl Drop for FtsCursor {
    fn drop(&mut self) {
        share::unregister_cursor(self.token);
    }
}

impl VTabCursor for FtsCursor {
    fn filter(&mut self, host: &mut dyn VmHost, idx_num: i32, idx_str: Option<&str>, args: &[Value]) -> Result<()> {
        let c = conn(host)?;
        let cfg = &self.inner.cfg;
        let plan = idx_num & 0xffff;
        let mut ai = 0;
        let mut next = || {
            let v = args.get(ai).cloned().unwrap_or(Value::Null);
            ai += 1;
            v
        };
        let first = if plan != IDX_SCAN { Some(next()) } else { None };
        let langid = if idx_num & HAVE_LANGID != 0 { next().as_ref().to_i64() } else { 0 };
        // (A text bound is compared as the number it holds, as SQLite
        // reads it with numeric affinity: rowid >= '11' is rowid >= 11.)
        let numeric = |v: Value| match &v {
            Value::Text(t) => crate::value::numeric::text_to_numeric(t).unwrap_or(v),
            _ => v,
        };
        let ge = if idx_num & HAVE_GE != 0 { Some(numeric(next())) } else { None };
        let le = if idx_num & HAVE_LE != 0 { Some(numeric(next())) } else { None };
        let in_range = |d: i64| -> bool {
            let ok_ge =
                ge.as_ref().is_none_or(|v| crate::value::compare::compare_values(Value::Integer(d).as_ref(), v.as_ref(), None) != std::cmp::Ordering::Less);
            let ok_le =
                le.as_ref().is_none_or(|v| crate::value::compare::compare_values(Value::Integer(d).as_ref(), v.as_ref(), None) != std::cmp::Ordering::Greater);
            ok_ge && ok_le
        };
        let desc = match idx_str {
            Some("DESC") => true,
            Some("ASC") => false,
            _ => cfg.desc,
        };
        self.at = 0;
        self.docids.clear();
        self.rows.clear();
        let mut run = None;
        if plan < IDX_FULLTEXT {
            // Contentless tables have nothing to scan or look up.
            if cfg.content == super::config::Content::None {
                return Err(crate::error::Error::sql("SQL logic error"));
            }
        }
        if plan == IDX_SCAN {
            let mut ids = Vec::new();
            let sql = match &cfg.content {
                super::config::Content::None => None,
                super::config::Content::Own => Some(format!("SELECT docid FROM {} ORDER BY docid", super::shadow::table(&cfg.db, &cfg.name, "content"))),
                super::config::Content::External(t) => {
                    Some(format!("SELECT rowid FROM {}.{} ORDER BY rowid", super::config::ident(&cfg.db), super::config::ident(t)))
                }
            };
            if let Some(sql) = sql {
                for r in super::shadow::query(c, &sql, &[])? {
                    let d = r[0].as_ref().to_i64();
                    if in_range(d) {
                        ids.push(d);
                    }
                }
            }
            self.docids = ids;
        } else if plan == IDX_DOCID {
            let v = first.unwrap_or(Value::Null);
            let d = match v {
                Value::Integer(i) => Some(i),
                Value::Real(r) if r == (r as i64) as f64 => Some(r as i64),
                ref other => {
                    let t = other.as_ref().to_text().map(|t| String::from_utf8_lossy(&t).trim().to_string());
                    t.and_then(|s| s.parse::<i64>().ok())
                }
            };
            if let Some(d) = d {
                if let Some(r) = self.inner.content_row(c, d)? {
                    self.docids.push(d);
                    self.rows.push(Some(r));
                } else if cfg.content == super::config::Content::None {
                    self.docids.push(d);
                }
            }
        } else {
            let col = plan - IDX_FULLTEXT;
            let ncol = cfg.columns.len() as i32;
            let default_col = if col >= 0 && col < ncol { Some(col as usize) } else { None };
            let q = first.unwrap_or(Value::Null);
            let mut text = q.as_ref().to_text().map(|t| t.into_owned()).unwrap_or_default();
            // SQLite reads the operand as a C string: a NUL ends it.
            if let Some(nul) = text.iter().position(|&b| b == 0) {
                text.truncate(nul);
            }
            let query = expr::parse(&text, &InLanguage(cfg.tokenizer.as_ref(), langid), &cfg.columns, default_col, cfg.fts4)?;
            let r = {
                let p = self.inner.pending.lock().unwrap_or_else(|e| e.into_inner());
                let pend = (p.langid == langid || p.is_empty()).then(|| p.terms.first()).flatten();
                eval::run(c, cfg, pend, langid, query)?
            };
            self.docids = r.docids.iter().copied().filter(|d| in_range(*d)).collect();
            run = Some(Arc::new(r));
        }
        if desc {
            self.docids.reverse();
            self.rows.reverse();
        }
        self.rows.resize(self.docids.len(), None);
        {
            let mut s = self.share.lock().unwrap_or_else(|e| e.into_inner());
            s.run = run;
            s.langid = langid;
        }
        self.sync_share();
        Ok(())
    }

    fn next(&mut self, _host: &mut dyn VmHost) -> Result<()> {
        self.at += 1;
        self.sync_share();
        Ok(())
    }

    fn eof(&mut self) -> bool {
        self.at >= self.docids.len()
    }

    fn column(&mut self, host: &mut dyn VmHost, ctx: &mut ColumnContext) -> Result<Value> {
        let n = self.inner.cfg.columns.len();
        let docid = self.docids.get(self.at).copied().unwrap_or(0);
        if ctx.column == n {
            // (Where offsets(), snippet() and matchinfo() find the row.)
            // invariant: fts3_share_current
            debug_assert_eq!(self.share.lock().unwrap_or_else(|e| e.into_inner()).docid, docid, "fts3 cursor {}'s share is not on its row", self.token);
            ctx.subtype = self.token;
            return Ok(Value::Null);
        }
        if ctx.column == n + 1 {
            return Ok(Value::Integer(docid));
        }
        if self.inner.cfg.content == super::config::Content::None {
            return Err(crate::error::Error::sql("SQL logic error"));
        }
        self.load(host)?;
        let row = self.rows.get(self.at).and_then(|r| r.as_ref());
        if ctx.column == n + 2 {
            return Ok(Value::Integer(row.map_or(0, |r| r.1)));
        }
        Ok(row.and_then(|r| r.0.get(ctx.column).cloned()).unwrap_or(Value::Null))
    }

    fn rowid(&mut self, _host: &mut dyn VmHost) -> Result<i64> {
        Ok(self.docids.get(self.at).copied().unwrap_or(0))
    }
}
