//! # fts5vocab: the terms of an fts5 table's index as a table
//!
//! `CREATE VIRTUAL TABLE v USING fts5vocab(ft, row|col|instance)` (and
//! `temp.v ... fts5vocab(db, ft, type)`), as `fts5.txt` section 8 and
//! the reference describe it: `row` (term, doc, cnt), `col` (term, col,
//! doc, cnt), `instance` (term, doc, col, offset), rows in term order
//! (then rowid, column, offset), read-only. The fts5 table is looked up
//! when the vocabulary is read, not when it is created ("no such fts5
//! table: db.ft"); three arguments are accepted only in `temp`.
//!
//! Under `detail=column` the counts of instances and the offsets are
//! NULL (the index has no positions); under `detail=none` the columns
//! too (`col` has one row per term, column NULL), as the reference shows.
//!
//! What is read: the main index (`'0'` terms; the `prefix=` indexes are
//! not shown), its segments merged with the transaction's pending
//! changes, which the fts5 table object of this connection holds: each
//! connection's fts5 module records the tables it connected in a
//! [`Registry`] the fts5vocab module shares.
//!
//! Invariant: a vocabulary cursor holds a snapshot of its rows taken at
//! xFilter, valid while the fts5 table's index keeps that structure
//! (a flush or merge since then aborts the cursor) (checked:
//! fts5vocab_snapshot_current); nothing here writes.

use super::codec::{columns, positions, Terms};
use super::config::Detail;
use super::index;
use super::merge::merge;
use super::shadow;
use super::table::Fts5Table;
use crate::connection::StepResult;
use crate::error::{Error, Result};
use crate::util::ascii::AsciiLower;
use crate::value::Value;
use crate::vdbe::host::VmHost;
use crate::vdbe::vtab::{ColumnContext, Connected, IndexInfo, Module, VTab, VTabCursor, VtabConfig};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};

thread_local! {
    /// The (database, table) pairs whose `MATCH '*id'` probe is running
    /// on this thread (see `VocabTable::fts5`).
    static PROBING: std::cell::RefCell<std::collections::HashSet<(String, String)>> = std::cell::RefCell::new(std::collections::HashSet::new());
}

/// The fts5 tables a connection's fts5 module connected, by (database,
/// table) in lower case.
#[derive(Default, Clone)]
pub struct Registry(Arc<Mutex<HashMap<(String, String), Weak<Fts5Table>>>>);

impl Registry {
    /// Record a newly connected table.
    pub fn note(&self, db: &str, name: &str, t: &Arc<Fts5Table>) {
        let mut m = self.0.lock().unwrap_or_else(|e| e.into_inner());
        m.retain(|_, w| w.strong_count() > 0);
        m.insert((db.to_lowercase(), name.to_lowercase()), Arc::downgrade(t));
    }

    fn get(&self, db: &str, name: &str) -> Option<Arc<Fts5Table>> {
        let m = self.0.lock().unwrap_or_else(|e| e.into_inner());
        m.get(&(db.to_lowercase(), name.to_lowercase())).and_then(Weak::upgrade)
    }
}

/// The three kinds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Row,
    Col,
    Instance,
}

/// The `fts5vocab` module.
pub struct VocabModule(pub Registry);

fn dequote(s: &str) -> String {
    let b = s.as_bytes();
    if b.len() >= 2 {
        match (b[0], b[b.len() - 1]) {
            (b'\'', b'\'') => return s[1..s.len() - 1].replace("''", "'"),
            (b'"', b'"') => return s[1..s.len() - 1].replace("\"\"", "\""),
            (b'`', b'`') => return s[1..s.len() - 1].replace("``", "`"),
            (b'[', b']') => return s[1..s.len() - 1].to_string(),
            _ => {}
        }
    }
    s.to_string()
}

impl VocabModule {
    fn make(&self, argv: &[String]) -> Result<Connected> {
        let db = argv.get(1).cloned().unwrap_or_default();
        let args: Vec<String> = argv.iter().skip(3).map(|a| dequote(a.trim())).collect();
        let temp = db.eq_ci("temp");
        let (fts_db, fts_name, kind) = match args.as_slice() {
            [t, k] => (db.clone(), t.clone(), k),
            [d, t, k] if temp => (d.clone(), t.clone(), k),
            _ => return Err(Error::sql("wrong number of vtable arguments")),
        };
        let kind = match kind.ascii_lower().as_str() {
            "row" => Kind::Row,
            "col" => Kind::Col,
            "instance" => Kind::Instance,
            _ => return Err(Error::sql(format!("fts5vocab: unknown table type: '{kind}'"))),
        };
        let schema = match kind {
            Kind::Row => "CREATE TABLE vocab(term, doc, cnt)",
            Kind::Col => "CREATE TABLE vocab(term, col, doc, cnt)",
            Kind::Instance => "CREATE TABLE vocab(term, doc, col, offset)",
        };
        let table = VocabTable { registry: self.0.clone(), fts_db, fts_name, kind };
        Ok(Connected { table: Arc::new(table), schema: schema.to_string(), config: VtabConfig::default() })
    }
}

impl Module for VocabModule {
    fn create(&self, _host: &mut dyn VmHost, args: &[String]) -> Result<Connected> {
        self.make(args)
    }

    fn connect(&self, _host: &mut dyn VmHost, args: &[String]) -> Result<Connected> {
        self.make(args)
    }
}

struct VocabTable {
    registry: Registry,
    fts_db: String,
    fts_name: String,
    kind: Kind,
}

impl VocabTable {
    /// The fts5 table, connected in this connection if it exists.
    ///
    /// SQLite finds it by querying `db.tbl` for `tbl MATCH '*id'`
    /// (observed): a query that cannot be prepared (no such table, no
    /// column named as the table) or that yields no fts5 cursor means
    /// "no such fts5 table: db.tbl"; one that fails while it runs (a
    /// plain table or view with rows and such a column, a virtual table
    /// refusing MATCH) is a bare SQLITE_ERROR ('SQL logic error').
    fn fts5(&self, host: &mut dyn VmHost) -> Result<Arc<Fts5Table>> {
        let missing = || Error::sql(format!("no such fts5 table: {}.{}", self.fts_db, self.fts_name));
        // A statement naming the table connects it (and records it) if
        // this connection has not yet, and fails once it was dropped (the
        // dropped table object may outlive it in the registry).
        let c = shadow::conn(host)?;
        let (db, tbl) = (self.fts_db.replace('"', "\"\""), self.fts_name.replace('"', "\"\""));
        let probe = format!("SELECT t.\"{tbl}\" FROM \"{db}\".\"{tbl}\" AS t WHERE 0");
        shadow::rows(c, &probe).map_err(|_| missing())?;
        let Some(t) = self.registry.get(&self.fts_db, &self.fts_name) else {
            // Not an fts5 table: whether it is "missing" or an error
            // depends on how its MATCH query runs. (A vocabulary over
            // itself, directly or not, would probe for ever: the nested
            // probe of a table already being probed fails.)
            let key = (self.fts_db.to_lowercase(), self.fts_name.to_lowercase());
            let nested = PROBING.with(|p| !p.borrow_mut().insert(key.clone()));
            if nested {
                return Err(Error::code(crate::error::SQLITE_ERROR));
            }
            let sql = format!("SELECT t.\"{tbl}\" FROM \"{db}\".\"{tbl}\" AS t WHERE t.\"{tbl}\" MATCH '*id'");
            let outcome = match c.prepare_terminated(sql.as_bytes()) {
                Ok((Some(mut st), _)) => loop {
                    match st.step(c) {
                        Ok(StepResult::Row) => {}
                        Ok(StepResult::Done) => break missing(),
                        Ok(StepResult::Io) | Err(_) => break Error::code(crate::error::SQLITE_ERROR),
                    }
                },
                _ => missing(),
            };
            PROBING.with(|p| p.borrow_mut().remove(&key));
            return Err(outcome);
        };
        // A table whose format version is not readable is not an fts5
        // table to the vocabulary (as in SQLite).
        index::check_format(&t.format_ok, c, &t.cfg).map_err(|_| missing())?;
        Ok(t)
    }

    /// The rows, in term order, and the first rowid (observed: 0 for
    /// the `instance` kind of a `detail=none` table, else 1).
    fn rows(&self, host: &mut dyn VmHost) -> Result<(Vec<Vec<Value>>, i64, Arc<AtomicU64>, u64)> {
        let t = self.fts5(host)?;
        let generation = t.cfg.generation.clone();
        let seen = generation.load(Ordering::SeqCst);
        let cfg = &t.cfg;
        let first = i64::from(!(self.kind == Kind::Instance && cfg.detail == Detail::None));
        let all: Terms = {
            let p = t.pending.lock().unwrap_or_else(|e| e.into_inner());
            merge(vec![p.terms(), index::read_all(shadow::conn(host)?, cfg)?], true)
        };
        let ncol = cfg.columns.len();
        let name = |c: usize| cfg.columns.get(c).map_or(Value::Null, |n| Value::text(n.clone()));
        let mut out = Vec::new();
        for (key, dl) in &all {
            if key.first() != Some(&b'0') {
                continue;
            }
            let term = Value::Text(key[1..].to_vec());
            let (mut doc, mut cnt) = (vec![0i64; ncol], vec![0i64; ncol]);
            let (mut rows_with, mut total) = (0i64, 0i64);
            for (rowid, e) in dl {
                if e.poslist.is_empty() {
                    continue;
                }
                rows_with += 1;
                // Without positions (observed): the columns, or nothing
                // but the row, are known; counts and offsets are NULL.
                if cfg.detail != Detail::Full {
                    let cols = if cfg.detail == Detail::Column { columns(&e.poslist)? } else { Vec::new() };
                    for &c in &cols {
                        if c >= ncol {
                            // (The `row` kind reads no column: a column
                            // past the declared ones is damage only to
                            // the others, as in SQLite.)
                            if self.kind == Kind::Row {
                                continue;
                            }
                            return Err(Error::corrupt());
                        }
                        doc[c] += 1;
                    }
                    if self.kind == Kind::Instance {
                        if cfg.detail == Detail::None {
                            out.push(vec![term.clone(), Value::Integer(*rowid), Value::Null, Value::Null]);
                        }
                        for &c in &cols {
                            out.push(vec![term.clone(), Value::Integer(*rowid), name(c), Value::Null]);
                        }
                    }
                    continue;
                }
                let pos = positions(&e.poslist)?;
                total += pos.len() as i64;
                let mut seen = vec![false; ncol];
                for &(c, off) in &pos {
                    if c >= ncol {
                        if self.kind == Kind::Row {
                            continue;
                        }
                        return Err(Error::corrupt());
                    }
                    cnt[c] += 1;
                    if !seen[c] {
                        seen[c] = true;
                        doc[c] += 1;
                    }
                    if self.kind == Kind::Instance {
                        out.push(vec![term.clone(), Value::Integer(*rowid), name(c), Value::Integer(off as i64)]);
                    }
                }
            }
            let full = cfg.detail == Detail::Full;
            let total = if full { Value::Integer(total) } else { Value::Null };
            match self.kind {
                Kind::Row if rows_with > 0 => out.push(vec![term.clone(), Value::Integer(rows_with), total]),
                Kind::Col if cfg.detail == Detail::None => {
                    if rows_with > 0 {
                        out.push(vec![term.clone(), Value::Null, Value::Integer(rows_with), Value::Null]);
                    }
                }
                Kind::Col if !full => {
                    for c in (0..ncol).filter(|&c| doc[c] > 0) {
                        out.push(vec![term.clone(), name(c), Value::Integer(doc[c]), Value::Null]);
                    }
                }
                Kind::Col => {
                    for c in (0..ncol).filter(|&c| doc[c] > 0) {
                        out.push(vec![term.clone(), name(c), Value::Integer(doc[c]), Value::Integer(cnt[c])]);
                    }
                }
                _ => {}
            }
        }
        Ok((out, first, generation, seen))
    }
}

impl VTab for VocabTable {
    fn best_index(&self, _host: Option<&mut dyn crate::vdbe::host::VmHost>, info: &mut IndexInfo) -> Result<()> {
        info.estimated_cost = 100_000.0;
        info.estimated_rows = 100_000;
        // The rows come in ascending term order (SQLite's plan says so too).
        if let [o] = info.order_by.as_slice() {
            info.order_by_consumed = o.column == 0 && !o.desc;
        }
        Ok(())
    }

    fn open(&self, _host: &mut dyn VmHost) -> Result<Box<dyn VTabCursor>> {
        let table = VocabTable { registry: self.registry.clone(), fts_db: self.fts_db.clone(), fts_name: self.fts_name.clone(), kind: self.kind };
        Ok(Box::new(VocabCursor { table, rows: Vec::new(), at: 0, first: 1, watch: None }))
    }
}

struct VocabCursor {
    table: VocabTable,
    rows: Vec<Vec<Value>>,
    at: usize,
    /// The rowid of the first row.
    first: i64,
    /// The fts5 table's structure generation (`Config::generation`) and
    /// its value when the rows were read: once it moves (the index was
    /// flushed or merged) the cursor stops with SQLITE_ABORT, as
    /// SQLite's does, instead of going on over terms no longer there.
    watch: Option<(Arc<AtomicU64>, u64)>,
}

impl VTabCursor for VocabCursor {
    fn filter(&mut self, host: &mut dyn VmHost, _idx_num: i32, _idx_str: Option<&str>, _args: &[Value]) -> Result<()> {
        let (rows, first, generation, seen) = self.table.rows(host)?;
        (self.rows, self.first, self.watch) = (rows, first, Some((generation, seen)));
        self.at = 0;
        Ok(())
    }

    fn next(&mut self, _host: &mut dyn VmHost) -> Result<()> {
        if let Some((generation, seen)) = &self.watch {
            // invariant: fts5vocab_snapshot_current
            if generation.load(Ordering::SeqCst) != *seen {
                return Err(Error::code(crate::error::SQLITE_ABORT));
            }
        }
        self.at += 1;
        Ok(())
    }

    fn eof(&mut self) -> bool {
        self.at >= self.rows.len()
    }

    fn column(&mut self, _host: &mut dyn VmHost, ctx: &mut ColumnContext) -> Result<Value> {
        Ok(self.rows.get(self.at).and_then(|r| r.get(ctx.column)).cloned().unwrap_or(Value::Null))
    }

    fn rowid(&mut self, _host: &mut dyn VmHost) -> Result<i64> {
        Ok(self.at as i64 + self.first)
    }
}
