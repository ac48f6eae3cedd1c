//! # The fts3/fts4 module: tables, their shadow tables and their writes
//!
//! `create` makes the shadow tables with the statements SQLite uses (so
//! `sqlite_schema` reads the same), `connect` parses the definition.
//! `update` is xUpdate: a row's text goes to `%_content` (unless the
//! table is contentless or external), its tokens to the pending terms,
//! its token counts to `%_docsize` and the totals in `%_stat` (row 0:
//! documents, tokens per column, bytes of text); a delete of the last
//! row empties every shadow table, as SQLite does. An INSERT naming only
//! the hidden column of the table's name runs a special command
//! (`optimize`, `rebuild`, `integrity-check`, and `merge=X,Y` and
//! `automerge=N` through `incrmerge`).
//!
//! Invariant: the pending terms are written before anything reads the
//! segments for a write (merges, commands) and at sync and savepoint
//! (checked: fts3_pending_flushed).

use super::config::{self, Config, Content};
use super::doclist;
use super::pending::Pending;
use super::segments;
use super::shadow::{conn, exec, query, table};
use super::share::{Inner, HAVE_GE, HAVE_LANGID, HAVE_LE, IDX_DOCID, IDX_FULLTEXT, IDX_SCAN};
use super::tokenizer::registry::Registry;
use super::varint;
use crate::connection::Connection;
use crate::error::{Error, Result};
use crate::util::ascii::AsciiLower;
use crate::value::Value;
use crate::vdbe::host::VmHost;
use crate::vdbe::vtab::{ConflictMode, Connected, ConstraintOp, IndexInfo, Module, VTab, VTabCursor, VtabConfig, ON_CONFLICT_REPLACE};
use std::sync::{Arc, Mutex};

/// `fts3` or `fts4`.
pub struct FtsModule {
    /// Which one.
    pub fts4: bool,
}

/// A connected table.
pub struct FtsTable {
    /// Shared with cursors.
    pub inner: Arc<Inner>,
}

const SHADOWS: [&str; 5] = ["content", "segments", "segdir", "docsize", "stat"];

impl Module for FtsModule {
    fn create(&self, host: &mut dyn VmHost, args: &[String]) -> Result<Connected> {
        let c = conn(host)?;
        let reg = c.extension_state::<Registry>();
        let cfg = config::parse(args, self.fts4, &reg, &mut |db, t| content_columns(c, db, t))?;
        let t = |s: &str| format!("{}.{}", config::ident(&cfg.db), config::quote(&format!("{}_{s}", cfg.name)));
        if cfg.content == Content::Own {
            let mut cols = String::from("docid INTEGER PRIMARY KEY");
            for (i, name) in cfg.columns.iter().enumerate() {
                cols.push_str(&format!(", {}", config::quote(&format!("c{i}{name}"))));
            }
            if cfg.languageid.is_some() {
                cols.push_str(", langid");
            }
            exec(c, &format!("CREATE TABLE {}({cols})", t("content")), &[])?;
        }
        exec(c, &format!("CREATE TABLE {}(blockid INTEGER PRIMARY KEY, block BLOB)", t("segments")), &[])?;
        exec(
            c,
            &format!(
                "CREATE TABLE {}(level INTEGER,idx INTEGER,start_block INTEGER,leaves_end_block INTEGER,end_block INTEGER,root BLOB,PRIMARY KEY(level, idx))",
                t("segdir")
            ),
            &[],
        )?;
        if cfg.has_docsize() {
            exec(c, &format!("CREATE TABLE {}(docid INTEGER PRIMARY KEY, size BLOB)", t("docsize")), &[])?;
        }
        if cfg.has_stat() {
            exec(c, &format!("CREATE TABLE {}(id INTEGER PRIMARY KEY, value BLOB)", t("stat")), &[])?;
        }
        Ok(connected(cfg))
    }

    fn connect(&self, host: &mut dyn VmHost, args: &[String]) -> Result<Connected> {
        let c = conn(host)?;
        let reg = c.extension_state::<Registry>();
        Ok(connected(config::parse(args, self.fts4, &reg, &mut |db, t| content_columns(c, db, t))?))
    }

    fn shadow_name(&self, suffix: &str) -> bool {
        SHADOWS.iter().any(|s| s.eq_ci(suffix))
    }
}

/// The column names `SELECT *` on `db.t` gives.
fn content_columns(c: &mut Connection, db: &str, t: &str) -> Result<Vec<String>> {
    let sql = format!("SELECT * FROM {}.{}", config::ident(db), config::quote(t));
    let (stmt, _) = c.prepare_terminated(sql.as_bytes())?;
    Ok(stmt.map(|s| (0..s.column_count()).map(|i| s.column_name(i).to_string()).collect()).unwrap_or_default())
}

fn connected(cfg: Config) -> Connected {
    let schema = cfg.declaration();
    let inner = Arc::new(Inner { cfg, pending: Mutex::new(Pending::default()) });
    Connected { table: Arc::new(FtsTable { inner }), schema, config: VtabConfig { innocuous: true, ..VtabConfig::default() } }
}

impl Inner {
    fn ncol(&self) -> usize {
        self.cfg.columns.len()
    }

    /// Text of a value as FTS tokenizes it.
    fn text(v: &Value) -> Vec<u8> {
        v.as_ref().to_text().map(|t| t.into_owned()).unwrap_or_default()
    }

    /// The row `docid` as `(column values, langid)`, if it exists.
    pub fn content_row(&self, c: &mut Connection, docid: i64) -> Result<Option<(Vec<Value>, i64)>> {
        let cfg = &self.cfg;
        let sql = match &cfg.content {
            Content::None => return Ok(None),
            Content::Own => {
                let mut cols: Vec<String> = (0..self.ncol()).map(|i| config::ident(&format!("c{i}{}", cfg.columns[i]))).collect();
                if cfg.languageid.is_some() {
                    cols.push("langid".into());
                }
                format!("SELECT {} FROM {} WHERE docid = ?", cols.join(", "), table(&cfg.db, &cfg.name, "content"))
            }
            Content::External(t) => {
                let mut cols: Vec<String> = cfg.columns.iter().map(|c| config::ident(c)).collect();
                if let Some(l) = &cfg.languageid {
                    cols.push(config::ident(l));
                }
                format!("SELECT {} FROM {}.{} WHERE rowid = ?", cols.join(", "), config::ident(&cfg.db), config::ident(t))
            }
        };
        let rows = query(c, &sql, &[Value::Integer(docid)])?;
        let Some(mut r) = rows.into_iter().next() else {
            return Ok(None);
        };
        let langid = if cfg.languageid.is_some() { r.pop().map_or(0, |v| v.as_ref().to_i64()) } else { 0 };
        if let (Some((_, un)), Content::Own) = (&cfg.compress, &cfg.content) {
            for v in r.iter_mut() {
                if !v.is_null() {
                    let out = query(c, &format!("SELECT {}(?)", config::ident(un)), std::slice::from_ref(v))?;
                    *v = out.into_iter().next().and_then(|mut x| x.pop()).unwrap_or(Value::Null);
                }
            }
        }
        Ok(Some((r, langid)))
    }

    /// Tokenize a document of language `langid` into the pending terms
    /// (or deletion markers). Every column is tokenized before any term
    /// is added, so an application's tokenizer failing adds none.
    fn index_doc(&self, pending: &mut Pending, docid: i64, langid: i64, values: &[Value], delete: bool) -> Result<Vec<i64>> {
        let cfg = &self.cfg;
        let mut counts = vec![0i64; self.ncol()];
        let mut columns = Vec::new();
        for (col, v) in values.iter().enumerate().take(self.ncol()) {
            if v.is_null() || cfg.notindexed[col] {
                continue;
            }
            columns.push((col, cfg.tokenizer.try_tokenize(&Self::text(v), langid)?));
        }
        for (col, toks) in columns {
            counts[col] = toks.len() as i64;
            for t in &toks {
                if delete {
                    pending.delete(0, &t.term, docid);
                } else {
                    pending.add(0, &t.term, docid, col, t.pos);
                }
                for (i, n) in cfg.prefixes.iter().enumerate() {
                    if let Some(p) = char_prefix(&t.term, *n) {
                        if delete {
                            pending.delete(i + 1, p, docid);
                        } else {
                            pending.add(i + 1, p, docid, col, t.pos);
                        }
                    }
                }
            }
        }
        Ok(counts)
    }

    fn read_stat(&self, c: &mut Connection) -> Result<Vec<i64>> {
        let rows = query(c, &format!("SELECT value FROM {} WHERE id = 0", table(&self.cfg.db, &self.cfg.name, "stat")), &[])?;
        let mut out = vec![0i64; self.ncol() + 2];
        if let Some(r) = rows.first() {
            let b = Self::text(&r[0]);
            let mut p = 0;
            for v in out.iter_mut() {
                match varint::get(&b, &mut p) {
                    Some(x) => *v = x,
                    None => break,
                }
            }
        }
        Ok(out)
    }

    fn write_stat(&self, c: &mut Connection, stat: &[i64]) -> Result<()> {
        let mut b = Vec::new();
        for v in stat {
            varint::put(&mut b, *v);
        }
        exec(c, &format!("REPLACE INTO {} VALUES(0, ?)", table(&self.cfg.db, &self.cfg.name, "stat")), &[Value::Blob(b)])
    }

    /// Add (`sign` 1) or remove (-1) a document's counts from `%_stat`.
    fn update_stat(&self, c: &mut Connection, counts: &[i64], bytes: i64, sign: i64) -> Result<()> {
        if !self.cfg.has_stat() {
            return Ok(());
        }
        let mut st = self.read_stat(c)?;
        st[0] += sign;
        for (i, n) in counts.iter().enumerate() {
            st[1 + i] += sign * n;
        }
        let last = st.len() - 1;
        st[last] += sign * bytes;
        for v in st.iter_mut() {
            *v = (*v).max(0);
        }
        self.write_stat(c, &st)
    }

    fn bytes_of(&self, values: &[Value]) -> i64 {
        values.iter().take(self.ncol()).enumerate().map(|(i, v)| if v.is_null() || self.cfg.notindexed[i] { 0 } else { Self::text(v).len() as i64 }).sum()
    }

    /// Delete document `docid`.
    fn delete(&self, c: &mut Connection, docid: i64) -> Result<()> {
        let cfg = &self.cfg;
        if cfg.content == Content::None {
            return Err(Error::sql(format!("cannot DELETE from contentless fts4 table: {}", cfg.name)));
        }
        let Some((values, langid)) = self.content_row(c, docid)? else {
            return Ok(());
        };
        if cfg.content == Content::Own {
            let rows = query(c, &format!("SELECT 1 FROM {} WHERE docid != ? LIMIT 1", table(&cfg.db, &cfg.name, "content")), &[Value::Integer(docid)])?;
            if rows.is_empty() {
                self.delete_all(c)?;
                if cfg.has_stat() {
                    self.write_stat(c, &vec![0; self.ncol() + 2])?;
                }
                return Ok(());
            }
        }
        let counts = {
            let mut p = self.pending.lock().unwrap_or_else(|e| e.into_inner());
            if p.needs_flush(docid, langid, true) {
                segments::flush(c, cfg, &mut p)?;
            }
            let counts = self.index_doc(&mut p, docid, langid, &values, true)?;
            p.mark(docid, langid, true);
            counts
        };
        if cfg.content == Content::Own {
            exec(c, &format!("DELETE FROM {} WHERE docid = ?", table(&cfg.db, &cfg.name, "content")), &[Value::Integer(docid)])?;
        }
        if cfg.has_docsize() {
            exec(c, &format!("DELETE FROM {} WHERE docid = ?", table(&cfg.db, &cfg.name, "docsize")), &[Value::Integer(docid)])?;
        }
        self.update_stat(c, &counts, self.bytes_of(&values), -1)
    }

    /// Empty the content and the index.
    fn delete_all(&self, c: &mut Connection) -> Result<()> {
        let cfg = &self.cfg;
        self.pending.lock().unwrap_or_else(|e| e.into_inner()).clear();
        if cfg.content == Content::Own {
            exec(c, &format!("DELETE FROM {}", table(&cfg.db, &cfg.name, "content")), &[])?;
        }
        exec(c, &format!("DELETE FROM {}", table(&cfg.db, &cfg.name, "segments")), &[])?;
        exec(c, &format!("DELETE FROM {}", table(&cfg.db, &cfg.name, "segdir")), &[])?;
        if cfg.has_docsize() {
            exec(c, &format!("DELETE FROM {}", table(&cfg.db, &cfg.name, "docsize")), &[])?;
        }
        Ok(())
    }

    /// Insert a document; returns its docid.
    fn insert(&self, c: &mut Connection, docid: Option<i64>, values: &[Value], langid: i64) -> Result<i64> {
        let cfg = &self.cfg;
        if langid < 0 {
            return Err(Error::code(crate::error::SQLITE_CONSTRAINT));
        }
        let docid = match &cfg.content {
            Content::Own => {
                let mut params = vec![docid.map_or(Value::Null, Value::Integer)];
                for v in values.iter().take(self.ncol()) {
                    match (&cfg.compress, v.is_null()) {
                        (Some((comp, _)), false) => {
                            let out = query(c, &format!("SELECT {}(?)", config::ident(comp)), std::slice::from_ref(v))?;
                            params.push(out.into_iter().next().and_then(|mut x| x.pop()).unwrap_or(Value::Null));
                        }
                        _ => params.push(v.clone()),
                    }
                }
                if cfg.languageid.is_some() {
                    params.push(Value::Integer(langid));
                }
                let marks = vec!["?"; params.len()].join(", ");
                exec(c, &format!("INSERT INTO {} VALUES({marks})", table(&cfg.db, &cfg.name, "content")), &params)
                    // SQLite reports a duplicate docid without naming its table.
                    .map_err(|e| {
                        if e.primary() == crate::error::SQLITE_CONSTRAINT {
                            Error::new(crate::error::SQLITE_CONSTRAINT, "constraint failed")
                        } else {
                            e
                        }
                    })?;
                match docid {
                    Some(d) => d,
                    None => c.last_insert_rowid(),
                }
            }
            _ => docid.ok_or_else(|| Error::new(crate::error::SQLITE_CONSTRAINT, "constraint failed"))?,
        };
        let counts = {
            let mut p = self.pending.lock().unwrap_or_else(|e| e.into_inner());
            if p.needs_flush(docid, langid, false) {
                segments::flush(c, cfg, &mut p)?;
            }
            let counts = self.index_doc(&mut p, docid, langid, values, false)?;
            p.mark(docid, langid, false);
            counts
        };
        if cfg.has_docsize() {
            let mut b = Vec::new();
            for n in &counts {
                varint::put(&mut b, *n);
            }
            exec(c, &format!("REPLACE INTO {} VALUES(?, ?)", table(&cfg.db, &cfg.name, "docsize")), &[Value::Integer(docid), Value::Blob(b)])?;
        }
        self.update_stat(c, &counts, self.bytes_of(values), 1)?;
        Ok(docid)
    }

    /// Write the pending terms out.
    pub fn flush(&self, c: &mut Connection) -> Result<()> {
        let mut p = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        // The shadow-table writes leave last_insert_rowid() as the
        // application's statements set it, as SQLite's FTS3 does.
        let last = c.last_insert_rowid();
        let r = segments::flush(c, &self.cfg, &mut p);
        c.set_last_insert_rowid(last);
        // invariant: fts3_pending_flushed
        debug_assert!(r.is_err() || p.is_empty(), "fts3 pending terms left after a flush");
        r
    }

    /// Debug builds: no pending term is left unwritten (what a read of the
    /// segments for a write needs).
    #[inline]
    fn debug_flushed(&self) {
        // invariant: fts3_pending_flushed
        debug_assert!(self.pending.lock().unwrap_or_else(|e| e.into_inner()).is_empty(), "fts3 segments read for a write with pending terms");
    }

    /// The language ids that have segments.
    fn langids(&self, c: &mut Connection) -> Result<Vec<i64>> {
        let rows = query(
            c,
            &format!("SELECT DISTINCT level / ? FROM {}", table(&self.cfg.db, &self.cfg.name, "segdir")),
            &[Value::Integer(super::MAX_LEVEL * self.cfg.n_index())],
        )?;
        Ok(rows.iter().map(|r| r[0].as_ref().to_i64()).collect())
    }

    /// The `optimize()` function.
    /// Returns whether anything changed.
    pub fn optimize_fn(&self, c: &mut Connection) -> Result<bool> {
        self.optimize(c)
    }

    /// `optimize`: each index of each language merged into one segment.
    fn optimize(&self, c: &mut Connection) -> Result<bool> {
        let was_pending = !self.pending.lock().unwrap_or_else(|e| e.into_inner()).is_empty();
        self.flush(c)?;
        self.debug_flushed();
        let mut changed = was_pending;
        let cfg = &self.cfg;
        let node_size = segments::node_size(c, cfg)?;
        for langid in self.langids(c)? {
            for i in 0..cfg.n_index() as usize {
                let base = cfg.level_base(langid, i);
                let segs = segments::list(c, cfg, base, base + super::MAX_LEVEL - 1)?;
                if segs.len() <= 1 && segs.iter().all(|s| s.level == segs[0].level) {
                    // One segment: it may still hold deletion markers.
                    let Some(s) = segs.first() else { continue };
                    let terms = segments::merge_segments(c, cfg, &segs, false)?;
                    let orig = segments::merge_segments(c, cfg, &segs, true)?;
                    if terms == orig {
                        continue;
                    }
                    let lvl = s.level;
                    segments::drop_rows(c, cfg, &segs)?;
                    if !terms.is_empty() {
                        segments::write_segment(c, cfg, node_size, lvl, 0, &terms)?;
                    }
                    segments::drop_blocks(c, cfg, &segs)?;
                    changed = true;
                    continue;
                }
                let max_level = segs.iter().map(|s| s.level).max().unwrap_or(base);
                let terms = segments::merge_segments(c, cfg, &segs, false)?;
                // The new nodes take blockids after the old ones, which go
                // once it is written, as SQLite orders it.
                segments::drop_rows(c, cfg, &segs)?;
                if !terms.is_empty() {
                    segments::write_segment(c, cfg, node_size, max_level, 0, &terms)?;
                }
                segments::drop_blocks(c, cfg, &segs)?;
                changed = true;
            }
        }
        Ok(changed)
    }

    /// Every document's `(docid, values, langid)`, from the content.
    fn all_rows(&self, c: &mut Connection) -> Result<Vec<(i64, Vec<Value>, i64)>> {
        let cfg = &self.cfg;
        let ids: Vec<i64> = match &cfg.content {
            Content::None => return Ok(Vec::new()),
            Content::Own => query(c, &format!("SELECT docid FROM {} ORDER BY docid", table(&cfg.db, &cfg.name, "content")), &[])?,
            Content::External(t) => query(c, &format!("SELECT rowid FROM {}.{} ORDER BY rowid", config::ident(&cfg.db), config::ident(t)), &[])?,
        }
        .iter()
        .map(|r| r[0].as_ref().to_i64())
        .collect();
        let mut out = Vec::new();
        for id in ids {
            if let Some((v, l)) = self.content_row(c, id)? {
                out.push((id, v, l));
            }
        }
        Ok(out)
    }

    /// `rebuild`: the index made again from the content.
    fn rebuild(&self, c: &mut Connection) -> Result<()> {
        let cfg = &self.cfg;
        if cfg.content == Content::None {
            return Err(Error::sql("SQL logic error"));
        }
        self.pending.lock().unwrap_or_else(|e| e.into_inner()).clear();
        exec(c, &format!("DELETE FROM {}", table(&cfg.db, &cfg.name, "segments")), &[])?;
        exec(c, &format!("DELETE FROM {}", table(&cfg.db, &cfg.name, "segdir")), &[])?;
        if cfg.has_docsize() {
            exec(c, &format!("DELETE FROM {}", table(&cfg.db, &cfg.name, "docsize")), &[])?;
        }
        let mut stat = vec![0i64; self.ncol() + 2];
        for (docid, values, langid) in self.all_rows(c)? {
            let counts = {
                let mut p = self.pending.lock().unwrap_or_else(|e| e.into_inner());
                if p.needs_flush(docid, langid, false) {
                    segments::flush(c, cfg, &mut p)?;
                }
                let counts = self.index_doc(&mut p, docid, langid, &values, false)?;
                p.mark(docid, langid, false);
                counts
            };
            if cfg.has_docsize() {
                let mut b = Vec::new();
                for n in &counts {
                    varint::put(&mut b, *n);
                }
                exec(c, &format!("REPLACE INTO {} VALUES(?, ?)", table(&cfg.db, &cfg.name, "docsize")), &[Value::Integer(docid), Value::Blob(b)])?;
            }
            stat[0] += 1;
            for (i, n) in counts.iter().enumerate() {
                stat[1 + i] += n;
            }
            let l = stat.len() - 1;
            stat[l] += self.bytes_of(&values);
        }
        if cfg.has_stat() {
            self.write_stat(c, &stat)?;
        }
        Ok(())
    }

    /// `integrity-check`: the index holds exactly what the content says.
    fn integrity_check(&self, c: &mut Connection) -> Result<()> {
        let cfg = &self.cfg;
        if cfg.content == Content::None {
            return Ok(());
        }
        self.flush(c)?;
        // Expected: per (langid, index, term) the entries.
        let mut expect = Pending::default();
        let mut by_lang: std::collections::BTreeMap<i64, Pending> = std::collections::BTreeMap::new();
        for (docid, values, langid) in self.all_rows(c)? {
            let p = by_lang.entry(langid).or_default();
            self.index_doc(p, docid, langid, &values, false)?;
        }
        let _ = &mut expect;
        let mut langs: Vec<i64> = by_lang.keys().copied().collect();
        for l in self.langids(c)? {
            if !langs.contains(&l) {
                langs.push(l);
            }
        }
        for langid in langs {
            let want = by_lang.remove(&langid).unwrap_or_default();
            for i in 0..cfg.n_index() as usize {
                let got = segments::gather(c, cfg, langid, i, segments::Range::All, None)?;
                let mut have: std::collections::BTreeMap<Vec<u8>, Vec<doclist::Entry>> = std::collections::BTreeMap::new();
                for (t, v) in got {
                    let m = doclist::merge_versions(v, false, false);
                    if !m.is_empty() {
                        have.insert(t, m);
                    }
                }
                let empty = std::collections::BTreeMap::new();
                let w = want.terms.get(i).unwrap_or(&empty);
                if &have != w {
                    return Err(Error::code(crate::error::SQLITE_CORRUPT_VTAB));
                }
            }
        }
        Ok(())
    }

    fn command(&self, c: &mut Connection, cmd: &[u8]) -> Result<()> {
        let s = String::from_utf8_lossy(cmd).to_string();
        match s.as_str() {
            "optimize" => self.optimize(c).map(|_| ()),
            "rebuild" => self.rebuild(c),
            "integrity-check" => self.integrity_check(c),
            _ if cmd.len() > 10 && cmd[..10].eq_ignore_ascii_case(b"automerge=") => {
                self.flush(c)?;
                super::incrmerge::set_automerge(c, &self.cfg, &cmd[10..])
            }
            _ if cmd.len() > 6 && cmd[..6].eq_ignore_ascii_case(b"merge=") => {
                self.flush(c)?;
                self.debug_flushed();
                super::incrmerge::merge_command(c, &self.cfg, &cmd[6..])
            }
            _ => Err(Error::sql("SQL logic error")),
        }
    }
}

/// The first `n` bytes of `term`, if it has that many (SQLite cuts
/// prefix-index terms at a byte count, even inside a character).
fn char_prefix(term: &[u8], n: usize) -> Option<&[u8]> {
    (term.len() >= n).then(|| &term[..n])
}

impl VTab for FtsTable {
    fn best_index(&self, _host: Option<&mut dyn crate::vdbe::host::VmHost>, info: &mut IndexInfo) -> Result<()> {
        let ncol = self.inner.cfg.columns.len() as i32;
        let docid_col = ncol + 1;
        let lang_col = ncol + 2;
        let is_docid = |c: i32| c == -1 || c == docid_col;
        let mut idx = IDX_SCAN;
        let mut match_i = None;
        let mut eq_i = None;
        let mut lang_i = None;
        let mut ge_i = None;
        let mut le_i = None;
        for (i, c) in info.constraints.iter().enumerate() {
            if !c.usable {
                continue;
            }
            if c.op == ConstraintOp::MATCH && c.column >= 0 && c.column <= ncol && match_i.is_none() {
                match_i = Some(i);
                idx = IDX_FULLTEXT + c.column;
            } else if c.op == ConstraintOp::EQ && is_docid(c.column) && eq_i.is_none() {
                eq_i = Some(i);
            } else if c.op == ConstraintOp::EQ && c.column == lang_col && lang_i.is_none() {
                lang_i = Some(i);
            } else if (c.op == ConstraintOp::GE || c.op == ConstraintOp::GT) && is_docid(c.column) && ge_i.is_none() {
                ge_i = Some(i);
            } else if (c.op == ConstraintOp::LE || c.op == ConstraintOp::LT) && is_docid(c.column) && le_i.is_none() {
                le_i = Some(i);
            }
        }
        let mut argv = 0;
        if let Some(i) = match_i {
            argv += 1;
            info.usage[i].argv_index = argv;
            info.usage[i].omit = true;
            info.estimated_cost = 2.0;
        } else if let Some(i) = eq_i {
            idx = IDX_DOCID;
            argv += 1;
            info.usage[i].argv_index = argv;
            info.usage[i].omit = true;
            info.estimated_cost = 1.0;
            info.estimated_rows = 1;
            info.idx_flags |= crate::vdbe::vtab::index_info::SCAN_UNIQUE;
        } else {
            info.estimated_cost = 500000.0;
        }
        if let Some(i) = lang_i {
            idx |= HAVE_LANGID;
            argv += 1;
            info.usage[i].argv_index = argv;
            info.usage[i].omit = true;
        }
        if idx & 0xffff != IDX_DOCID {
            if let Some(i) = ge_i {
                idx |= HAVE_GE;
                argv += 1;
                info.usage[i].argv_index = argv;
            }
            if let Some(i) = le_i {
                idx |= HAVE_LE;
                argv += 1;
                info.usage[i].argv_index = argv;
            }
        }
        if info.order_by.len() == 1 && is_docid(info.order_by[0].column) {
            info.idx_str = Some(if info.order_by[0].desc { "DESC" } else { "ASC" }.to_string());
            info.order_by_consumed = true;
        }
        info.idx_num = idx;
        Ok(())
    }

    fn open(&self, _host: &mut dyn VmHost) -> Result<Box<dyn VTabCursor>> {
        Ok(Box::new(super::cursor::FtsCursor::new(self.inner.clone())))
    }

    fn destroy(&self, host: &mut dyn VmHost) -> Result<()> {
        let c = conn(host)?;
        let cfg = &self.inner.cfg;
        for s in SHADOWS {
            exec(c, &format!("DROP TABLE IF EXISTS {}", table(&cfg.db, &cfg.name, s)), &[])?;
        }
        Ok(())
    }

    fn writable(&self) -> bool {
        true
    }

    fn update(&self, host: &mut dyn VmHost, args: &[Value], on_conflict: ConflictMode, _nochange: &[bool]) -> Result<Option<i64>> {
        let c = conn(host)?;
        let inner = &self.inner;
        let n = inner.ncol();
        if args.len() == 1 {
            inner.delete(c, args[0].as_ref().to_i64())?;
            return Ok(None);
        }
        let get = |i: usize| args.get(i).cloned().unwrap_or(Value::Null);
        let special = get(2 + n);
        if args[0].is_null() && !special.is_null() {
            inner.command(c, &Inner::text(&special))?;
            return Ok(None);
        }
        let values: Vec<Value> = (0..n).map(|i| get(2 + i)).collect();
        let langid = if inner.cfg.languageid.is_some() { get(4 + n).as_ref().to_i64() } else { 0 };
        // A new rowid or docid goes into `%_content`'s INTEGER PRIMARY
        // KEY, which refuses what is not an integer ('3.0' is 3).
        let int = |v: &Value| crate::value::numeric::must_be_int(v).ok_or_else(|| Error::new(crate::error::SQLITE_MISMATCH, "datatype mismatch"));
        let mut new_id = if !args[1].is_null() { Some(int(&args[1])?) } else { None };
        let docid_arg = get(3 + n);
        if !docid_arg.is_null() {
            let d = int(&docid_arg)?;
            // An INSERT naming both the rowid and the docid is refused,
            // as SQLite does even when they agree.
            if new_id.is_some() && args[0].is_null() {
                return Err(Error::sql("SQL logic error"));
            }
            if args[0].is_null() || new_id == Some(args[0].as_ref().to_i64()) {
                new_id = Some(d);
            }
        }
        if !args[0].is_null() {
            let old = args[0].as_ref().to_i64();
            inner.delete(c, old)?;
            let id = inner.insert(c, new_id.or(Some(old)), &values, langid)?;
            let _ = id;
            return Ok(None);
        }
        if let (Some(d), ON_CONFLICT_REPLACE) = (new_id, on_conflict) {
            inner.delete(c, d)?;
        }
        let id = inner.insert(c, new_id, &values, langid)?;
        Ok(Some(id))
    }

    fn transactional(&self) -> bool {
        true
    }

    fn begin(&self, _host: &mut dyn VmHost) -> Result<()> {
        self.inner.pending.lock().unwrap_or_else(|e| e.into_inner()).leaves_added = 0;
        Ok(())
    }

    fn sync(&self, host: &mut dyn VmHost) -> Result<()> {
        let c = conn(host)?;
        self.inner.flush(c)?;
        // The merge `automerge` asks for, sized by the leaves this
        // transaction wrote; it leaves last_insert_rowid() alone too.
        let leaves = std::mem::take(&mut self.inner.pending.lock().unwrap_or_else(|e| e.into_inner()).leaves_added);
        self.inner.debug_flushed();
        let last = c.last_insert_rowid();
        let r = super::incrmerge::after_flush(c, &self.inner.cfg, leaves);
        c.set_last_insert_rowid(last);
        r
    }

    fn rollback(&self, _host: &mut dyn VmHost) -> Result<()> {
        self.inner.pending.lock().unwrap_or_else(|e| e.into_inner()).clear();
        Ok(())
    }

    fn savepoint(&self, host: &mut dyn VmHost, _n: i32) -> Result<()> {
        self.inner.flush(conn(host)?)
    }

    fn rollback_to(&self, _host: &mut dyn VmHost, _n: i32) -> Result<()> {
        self.inner.pending.lock().unwrap_or_else(|e| e.into_inner()).clear();
        Ok(())
    }

    fn can_rename(&self) -> bool {
        true
    }

    fn rename(&self, host: &mut dyn VmHost, new_name: &str) -> Result<()> {
        let c = conn(host)?;
        let cfg = &self.inner.cfg;
        self.inner.flush(c)?;
        let exists = |c: &mut Connection, s: &str| -> Result<bool> {
            Ok(!query(
                c,
                &format!("SELECT 1 FROM {}.sqlite_master WHERE type='table' AND name=?", config::ident(&cfg.db)),
                &[Value::text(format!("{}_{s}", cfg.name))],
            )?
            .is_empty())
        };
        for s in SHADOWS {
            if exists(c, s)? {
                exec(c, &format!("ALTER TABLE {} RENAME TO {}", table(&cfg.db, &cfg.name, s), config::ident(&format!("{new_name}_{s}"))), &[])?;
            }
        }
        Ok(())
    }

    fn has_integrity(&self) -> bool {
        true
    }

    fn find_function(&self, n_args: i32, name: &str) -> Option<(Arc<crate::vdbe::func::FuncDef>, i32)> {
        super::auxfn::overload(n_args, name).map(|f| (f, 0))
    }

    fn integrity(&self, host: &mut dyn VmHost, _schema: &str, _table: &str, _flags: i32) -> Result<Option<String>> {
        let c = conn(host)?;
        match self.inner.integrity_check(c) {
            Ok(()) => Ok(None),
            Err(e) if e.primary() == crate::error::SQLITE_CORRUPT => {
                Ok(Some(format!("malformed inverted index for FTS4 table {}.{}", self.inner.cfg.db, self.inner.cfg.name)))
            }
            Err(e) => Err(e),
        }
    }
}
