//! # An fts5 table: planning, scanning, columns
//!
//! Columns as declared: the table's columns, then the hidden column named
//! after the table (MATCH's left side; its value is the cursor's id, which
//! the auxiliary functions use to find the row being returned) and the
//! hidden `rank` (bm25 of the row while a MATCH is in force, else NULL).
//!
//! xBestIndex takes every usable `MATCH` on a column or the table column
//! and `=` on the table column (`t('query')`); their queries are ANDed,
//! a column's MATCH restricted to that column; and bounds on the rowid
//! (`=`, `<`, `<=`, `>`, `>=`, checked again by the statement), and it
//! consumes `ORDER BY rowid` (either way) and, with a MATCH, `ORDER BY
//! rank` (either way). xFilter finds the rows the expression matches
//! (from the index, `search.rs`; without a MATCH, `%_content` in rowid
//! order, or `source.rs`), with the phrase
//! instances and the statistics bm25 needs, then applies the bounds
//! and the order.
//!
//! Invariant: an open cursor's [`Shared`] is registered under its id
//! (`shared.rs`) from xOpen to the cursor's drop (checked:
//! fts5_cursor_registered).

use super::config::{Config, Content, Detail};
use super::extension::Extensions;
use super::matcher;
use super::pending::Pending;
use super::query::{self, Node, Query};
use super::row::{value_tokens, Row, Stats};
use super::rows::{Built, Matched};
use super::shadow;
use super::shared::{current_row, cursors, Shared};
use super::tokenizer::{column_size, Token};
use super::writer;
use super::{commands, index, search, source};
use crate::error::{Error, Result, SQLITE_ERROR};
use crate::value::Value;
use crate::vdbe::host::VmHost;
use crate::vdbe::vtab::{ColumnContext, ConflictMode, ConstraintOp, IndexInfo, VTab, VTabCursor};
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// One fts5 table.
pub struct Fts5Table {
    /// Its declaration.
    pub cfg: Config,
    /// Changes of the open transaction not yet in the index (shared
    /// with cursors, which read them when the index answers a query).
    pub pending: Arc<Mutex<Pending>>,
    /// The connection's application-defined tokenizers and functions.
    pub ext: Arc<Extensions>,
    /// `%_docsize` sizes read by queries (shared with cursors).
    pub sizes: Arc<Mutex<super::rows::SizeCache>>,
    /// `%_idx` entries read by queries (shared with cursors).
    pub idx: Arc<Mutex<super::lookup::IdxCache>>,
    /// Set while the table writes its shadow tables (xUpdate, xSync):
    /// a query of the table then started (by a trigger on a shadow
    /// table) fails with SQLITE_CORRUPT, as SQLite's does, instead of
    /// waiting on the write's locks.
    pub writing: Arc<AtomicUsize>,
    /// Set once `%_config`'s format version was found readable
    /// (`index::check_format`).
    pub format_ok: Arc<AtomicBool>,
    /// An xRollback arrived while a write held the pending changes
    /// (see `pending_unless_writing`).
    rollback_deferred: AtomicBool,
}

/// Holds [`Fts5Table::writing`] set for its lifetime.
struct Writing(Arc<AtomicUsize>);

impl Writing {
    fn start(flag: &Arc<AtomicUsize>) -> Writing {
        flag.fetch_add(1, Ordering::SeqCst);
        Writing(flag.clone())
    }
}

impl Drop for Writing {
    fn drop(&mut self) {
        let was = self.0.fetch_sub(1, Ordering::SeqCst);
        debug_assert!(was > 0, "fts5: write flag released twice");
    }
}

impl Fts5Table {
    /// xUpdate's work (see `VTab::update`): a delete, an insert, an
    /// update or a special command.
    fn write(&self, host: &mut dyn VmHost, args: &[Value], on_conflict: ConflictMode, nochange: &[bool]) -> Result<Option<i64>> {
        let n = self.cfg.columns.len();
        let rowid = |v: &Value| -> Result<Option<i64>> {
            match v {
                Value::Null | Value::Pointer(_) => Ok(None),
                // (As SQLite: a text holding an integer, '3.0' too.)
                v => crate::value::numeric::must_be_int(v).map(Some).ok_or_else(|| Error::new(crate::error::SQLITE_MISMATCH, "datatype mismatch")),
            }
        };
        let mut p = lock(&self.pending);
        if args.len() == 1 {
            let Some(id) = rowid(&args[0])? else {
                return Ok(None);
            };
            return writer::apply(host, &self.cfg, &mut p, writer::Change::Delete(id));
        }
        if args.len() < 2 + n {
            return Err(Error::new(SQLITE_ERROR, "fts5: wrong number of values"));
        }
        let vals = args[2..2 + n].to_vec();
        let command = args.get(2 + n).filter(|v| !v.is_null());
        let rank = args.get(3 + n).filter(|v| !v.is_null());
        match (rowid(&args[0])?, command) {
            (None, Some(cmd)) => {
                let cmd = cmd.as_ref().to_text().map(|t| String::from_utf8_lossy(&t).into_owned()).unwrap_or_default();
                commands::run(host, &self.cfg, &mut p, &cmd, rank, (rowid(&args[1])?, &vals)).map(|_| Some(0))
            }
            (None, None) => writer::apply(host, &self.cfg, &mut p, writer::Change::Insert(rowid(&args[1])?, vals, on_conflict)),
            (Some(old), _) => {
                let new = rowid(&args[1])?.unwrap_or(old);
                let unchanged = (0..n).map(|i| nochange.get(2 + i).copied().unwrap_or(false)).collect();
                writer::apply(host, &self.cfg, &mut p, writer::Change::Update(old, new, vals, unchanged, on_conflict))
            }
        }
    }

    /// The pending changes, or None while this table's own write holds
    /// them: a statement the write runs on a shadow table that is
    /// interrupted or fails ends the transaction (xRollback) or its
    /// statement (xRollbackTo) from inside the write; waiting for the
    /// lock would never end. A rollback is then done once the write
    /// returns (`after_write`); the statement-level calls are left to
    /// the outer statement, whose own end repeats them.
    fn pending_unless_writing(&self) -> Option<std::sync::MutexGuard<'_, Pending>> {
        if self.writing.load(Ordering::SeqCst) == 0 {
            return Some(lock(&self.pending));
        }
        match self.pending.try_lock() {
            Ok(p) => Some(p),
            Err(std::sync::TryLockError::Poisoned(e)) => Some(e.into_inner()),
            Err(std::sync::TryLockError::WouldBlock) => None,
        }
    }

    /// A write ended: a rollback asked for during it is done now.
    fn after_write(&self) {
        if self.writing.load(Ordering::SeqCst) == 0 && self.rollback_deferred.swap(false, Ordering::SeqCst) {
            lock(&self.pending).clear();
        }
    }

    /// Write the pending changes and the averages (xSync, xSavepoint);
    /// the shadow-table writes leave last_insert_rowid() as the
    /// application's statements set it, as SQLite's FTS5 does.
    fn persist(&self, host: &mut dyn VmHost) -> Result<()> {
        let r = {
            let _writing = Writing::start(&self.writing);
            let mut p = lock(&self.pending);
            let c = shadow::conn(host)?;
            let last = c.last_insert_rowid();
            let r = index::persist(c, &self.cfg, &mut p);
            c.set_last_insert_rowid(last);
            r.map_err(shadow::missing_is_corrupt)
        };
        self.after_write();
        r
    }

    /// A table for `cfg`.
    pub fn new(cfg: Config, ext: Arc<Extensions>) -> Fts5Table {
        Fts5Table {
            cfg,
            pending: Arc::new(Mutex::new(Pending::default())),
            ext,
            sizes: Arc::default(),
            idx: Arc::default(),
            writing: Arc::default(),
            format_ok: Arc::default(),
            rollback_deferred: AtomicBool::new(false),
        }
    }
}

static NEXT_ID: AtomicI64 = AtomicI64::new(1);

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl VTab for Fts5Table {
    fn best_index(&self, _host: Option<&mut dyn crate::vdbe::host::VmHost>, info: &mut IndexInfo) -> Result<()> {
        let n = self.cfg.columns.len() as i32;
        let mut items = Vec::new();
        let mut matches = 0;
        let mut rowid_eq = false;
        let mut ranked = false;
        for (i, c) in info.constraints.iter().enumerate() {
            if !c.usable {
                continue;
            }
            // `rank MATCH 'fn(...)'` (or `rank = ...`): the query's rank
            // function (`rank.rs`); the first one only, as in SQLite.
            if c.column == n + 1 && (c.op == ConstraintOp::MATCH || c.op == ConstraintOp::EQ) && !ranked {
                ranked = true;
                items.push("R".to_string());
                info.usage[i].argv_index = items.len() as i32;
                info.usage[i].omit = true;
                continue;
            }
            let item = if (c.op == ConstraintOp::MATCH && c.column >= 0 && c.column <= n) || (c.op == ConstraintOp::EQ && c.column == n) {
                matches += 1;
                c.column.to_string()
            } else if c.column < 0 && [ConstraintOp::EQ, ConstraintOp::GT, ConstraintOp::GE, ConstraintOp::LT, ConstraintOp::LE].contains(&c.op) {
                // A bound on the rowid: applied to the rows found, and
                // checked again by the statement (a bound that is not a
                // number is left to it).
                rowid_eq |= c.op == ConstraintOp::EQ;
                format!("r{}", c.op)
            } else {
                continue;
            };
            items.push(item);
            info.usage[i].argv_index = items.len() as i32;
            info.usage[i].omit = matches > 0 && !items.last().is_some_and(|s| s.starts_with('r'));
        }
        // ORDER BY rowid (either way), or rank with a MATCH: the rows come
        // in that order.
        let mut order = 0;
        if let [o] = info.order_by.as_slice() {
            if o.column < 0 {
                order = if o.desc { ORDER_ROWID_DESC } else { ORDER_ROWID };
            } else if o.column == n + 1 && matches > 0 {
                order = if o.desc { ORDER_RANK_DESC } else { ORDER_RANK };
            }
        }
        info.order_by_consumed = order != 0;
        if rowid_eq {
            // At most one row: an UPDATE or DELETE by rowid writes one
            // row (no statement savepoint: see `savepoint`).
            info.idx_flags |= crate::vdbe::vtab::index_info::SCAN_UNIQUE;
        }
        info.idx_num = order;
        info.idx_str = Some(items.join(","));
        if matches == 0 && !rowid_eq {
            info.estimated_cost = 1_000_000.0;
            info.estimated_rows = 1_000_000;
        } else if matches == 0 {
            info.estimated_cost = 100.0;
            info.estimated_rows = 1;
        } else {
            info.estimated_cost = if rowid_eq { 100.0 } else { 1000.0 };
            info.estimated_rows = if rowid_eq { 1 } else { 100 };
        }
        Ok(())
    }

    fn open(&self, _host: &mut dyn VmHost) -> Result<Box<dyn VTabCursor>> {
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        let shared = Arc::new(Mutex::new(Shared {
            tokenizer: self.cfg.tokenizer.clone(),
            columns: self.cfg.columns.clone().into(),
            locale_header: self.cfg.locale_header,
            ..Shared::default()
        }));
        lock(cursors()).insert(id, shared.clone());
        Ok(Box::new(Fts5Cursor {
            id,
            cfg: self.cfg.clone(),
            pending: self.pending.clone(),
            sizes: self.sizes.clone(),
            idx: self.idx.clone(),
            writing: self.writing.clone(),
            format_ok: self.format_ok.clone(),
            rows: Vec::new(),
            matched: None,
            order: Vec::new(),
            at: 0,
            shared,
            light: None,
            ext: self.ext.clone(),
            rank_fn: super::rank::RankFn::default(),
        }))
    }

    fn destroy(&self, host: &mut dyn VmHost) -> Result<()> {
        // Nothing is left to flush into.
        lock(&self.pending).clear();
        self.cfg.stmts.clear();
        shadow::destroy(host, &self.cfg)
    }

    fn can_rename(&self) -> bool {
        true
    }

    /// ALTER TABLE RENAME: the shadow tables that exist follow the
    /// table's new name (pending changes are written first, under the
    /// old names).
    fn rename(&self, host: &mut dyn VmHost, new_name: &str) -> Result<()> {
        let c = shadow::conn(host)?;
        {
            let _writing = Writing::start(&self.writing);
            let mut p = lock(&self.pending);
            let last = c.last_insert_rowid();
            index::persist(c, &self.cfg, &mut p)?;
            c.set_last_insert_rowid(last);
        }
        self.cfg.stmts.clear();
        let master = format!("\"{}\".sqlite_master", self.cfg.db.replace('"', "\"\""));
        for s in shadow::SUFFIXES {
            let name = format!("{}_{s}", self.cfg.name);
            let sql = format!("SELECT 1 FROM {master} WHERE type = 'table' AND name = '{}'", name.replace('\'', "''"));
            if !shadow::rows(c, &sql)?.is_empty() {
                let to = format!("{new_name}_{s}");
                index::exec(c, &format!("ALTER TABLE {} RENAME TO \"{}\"", self.cfg.shadow(s), to.replace('"', "\"\"")), &[])?;
            }
        }
        Ok(())
    }

    fn writable(&self) -> bool {
        true
    }

    fn update(&self, host: &mut dyn VmHost, args: &[Value], on_conflict: ConflictMode, nochange: &[bool]) -> Result<Option<i64>> {
        let r = {
            let _writing = Writing::start(&self.writing);
            index::check_format(&self.format_ok, shadow::conn(host)?, &self.cfg)?;
            self.write(host, args, on_conflict, nochange).map_err(shadow::missing_is_corrupt)
        };
        self.after_write();
        r
    }

    fn transactional(&self) -> bool {
        true
    }

    fn sync(&self, host: &mut dyn VmHost) -> Result<()> {
        self.persist(host)
    }

    fn commit(&self, _host: &mut dyn VmHost) -> Result<()> {
        if let Some(mut p) = self.pending_unless_writing() {
            p.commit();
        }
        Ok(())
    }

    fn rollback(&self, _host: &mut dyn VmHost) -> Result<()> {
        match self.pending_unless_writing() {
            Some(mut p) => p.clear(),
            None => self.rollback_deferred.store(true, Ordering::SeqCst),
        }
        Ok(())
    }

    /// A savepoint starts with the pending changes written, as SQLite's
    /// fts5 writes them (observed: a statement that may write several
    /// rows, or SAVEPOINT, inside a transaction starts a new segment), so
    /// a rollback to it only drops what is pending then.
    fn savepoint(&self, host: &mut dyn VmHost, _n: i32) -> Result<()> {
        if self.writing.load(Ordering::SeqCst) > 0 {
            return Ok(());
        }
        self.persist(host)
    }

    fn release(&self, _host: &mut dyn VmHost, _n: i32) -> Result<()> {
        Ok(())
    }

    fn rollback_to(&self, _host: &mut dyn VmHost, _n: i32) -> Result<()> {
        if let Some(mut p) = self.pending_unless_writing() {
            p.rollback_to();
        }
        Ok(())
    }

    fn has_integrity(&self) -> bool {
        true
    }

    fn integrity(&self, host: &mut dyn VmHost, _schema: &str, _table: &str, _flags: i32) -> Result<Option<String>> {
        let mut p = lock(&self.pending);
        super::check::integrity(shadow::conn(host)?, &self.cfg, &mut p)
    }

    fn find_function(&self, n_args: i32, name: &str) -> Option<(Arc<crate::vdbe::func::FuncDef>, i32)> {
        if let Some(f) = self.ext.function(name) {
            return Some((super::aux::custom_def(name, n_args, f), 0));
        }
        super::aux::overload(n_args, name).map(|f| (f, 0))
    }
}

/// `idx_num` of a plan whose rows come in rowid order.
const ORDER_ROWID: i32 = 1;
/// ... in descending rowid order.
const ORDER_ROWID_DESC: i32 = 2;
/// ... in ascending `rank` order.
const ORDER_RANK: i32 = 3;
/// ... in descending `rank` order.
const ORDER_RANK_DESC: i32 = 4;

/// A rowid bound of the plan: the operator, the value.
fn rowid_bound(op: u8, v: &Value, rowid: i64) -> bool {
    let ord = match v {
        Value::Integer(i) => rowid.cmp(i),
        Value::Real(r) => match (rowid as f64).partial_cmp(r) {
            Some(o) => o,
            None => return true,
        },
        // Text, blobs and NULL: the statement checks them.
        _ => return true,
    };
    match op {
        ConstraintOp::EQ => ord.is_eq(),
        ConstraintOp::GT => ord.is_gt(),
        ConstraintOp::GE => ord.is_ge(),
        ConstraintOp::LT => ord.is_lt(),
        ConstraintOp::LE => ord.is_le(),
        _ => true,
    }
}

/// A cursor: the matched rows, computed at xFilter.
pub struct Fts5Cursor {
    id: i64,
    cfg: Config,
    pending: Arc<Mutex<Pending>>,
    sizes: Arc<Mutex<super::rows::SizeCache>>,
    idx: Arc<Mutex<super::lookup::IdxCache>>,
    writing: Arc<AtomicUsize>,
    format_ok: Arc<AtomicBool>,
    /// The rows read whole (empty when `matched` holds them).
    rows: Vec<Arc<Row>>,
    /// The rows found through the index, light (`rows.rs`).
    matched: Option<Arc<Matched>>,
    /// The rows in the order returned: indexes into `rows` or `matched`.
    order: Vec<u32>,
    /// The current one, in `order`.
    at: usize,
    shared: Arc<Mutex<Shared>>,
    /// Set when `rows` are light (their content read when needed).
    light: Option<Arc<Config>>,
    /// The connection's registered functions (a rank function's name is
    /// looked up there).
    ext: Arc<Extensions>,
    /// The rank function in force (`rank.rs`).
    rank_fn: super::rank::RankFn,
}

impl Drop for Fts5Cursor {
    fn drop(&mut self) {
        let _gone = lock(cursors()).remove(&self.id);
        // invariant: fts5_cursor_registered
        debug_assert!(_gone.is_some_and(|s| Arc::ptr_eq(&s, &self.shared)), "fts5 cursor {} was not registered", self.id);
    }
}

/// Join several queries with AND, renumbering the phrases.
fn and_all(qs: Vec<Query>) -> Option<Query> {
    let mut it = qs.into_iter();
    let mut acc = it.next()?;
    for q in it {
        let off = acc.phrases.len();
        acc.phrases.extend(q.phrases);
        let root = shift(q.root, off);
        acc.root = Node::And(Box::new(acc.root), Box::new(root));
    }
    Some(acc)
}

fn shift(n: Node, off: usize) -> Node {
    match n {
        Node::Phrase(i) => Node::Phrase(i + off),
        Node::Near(l, d) => Node::Near(l.into_iter().map(|i| i + off).collect(), d),
        Node::And(a, b) => Node::And(Box::new(shift(*a, off)), Box::new(shift(*b, off))),
        Node::Or(a, b) => Node::Or(Box::new(shift(*a, off)), Box::new(shift(*b, off))),
        Node::Not(a, b) => Node::Not(Box::new(shift(*a, off)), Box::new(shift(*b, off))),
    }
}

impl Fts5Cursor {
    /// The rows the constraints' queries match (all rows without
    /// one), in rowid order, the cursor positioned on the first.
    fn filter_rows(&mut self, host: &mut dyn VmHost, idx_str: Option<&str>, args: &[Value]) -> Result<()> {
        let ncol = self.cfg.columns.len();
        let mut qs = Vec::new();
        // (Rowid bounds are applied afterwards.)
        let items: Vec<&str> = idx_str.unwrap_or("").split(',').filter(|s| !s.is_empty()).collect();
        // In argument order, as SQLite's fts5: the first MATCH the planner
        // offered (the last written) is parsed first, its error is the
        // one seen.
        for (k, a) in args.iter().enumerate() {
            let Some(col) = items.get(k).map_or(Some(ncol), |s| s.parse::<usize>().ok()) else { continue };
            // NULL reads as an empty query (a syntax error, as in SQLite).
            // A value made by fts5_locale() is its text, tokenized with
            // its locale (whatever the table's locale= option).
            let (locale, text) = match super::locale::split(&self.cfg, a) {
                Some((l, t)) => (Some(l), t.to_vec()),
                None => (None, a.as_ref().to_text().map(|t| t.into_owned()).unwrap_or_default()),
            };
            let text = String::from_utf8_lossy(&text).into_owned();
            qs.push(query::parse_in(&text, &self.cfg.columns, (col < ncol).then_some(col), &self.cfg.tokenizer, self.cfg.detail, locale, self.cfg.tokendata)?);
        }
        // One MATCH that is only empty phrases: SQLite matches no row.
        let nothing = qs.len() > 1 && qs.iter().any(|q| matcher::is_empty(&q.root, &q.phrases));
        let q = and_all(qs).map(Arc::new);
        if nothing {
            let nphrase = q.as_ref().map_or(0, |q| q.phrases.len());
            return self.start(Vec::new(), q, Stats { nhit: vec![0; nphrase], ..Stats::default() });
        }
        let c = shadow::conn(host)?;
        self.light = None;
        if let Some(q) = q.as_ref() {
            // From the doclists of the query's tokens.
            let (found, (nrow, totals)) = {
                let p = lock(&self.pending);
                // (A missing `%_idx` is a damaged table, as in SQLite.)
                (search::run(c, &self.cfg, q, &p, &self.idx).map_err(shadow::missing_is_corrupt)?, index::current_averages(c, &self.cfg, &p)?)
            };
            let stats = Stats { nrow, ntoken: totals.iter().sum(), nhit: found.nhit, col_tokens: totals };
            let built = super::rows::build(c, &self.cfg, found.rows, &self.sizes)?;
            let rows = match built {
                Built::Flat(m) if self.cfg.detail == Detail::Full => {
                    self.light = Some(Arc::new(self.cfg.clone()));
                    return self.start_flat(m, q.clone(), stats);
                }
                Built::Flat(m) => (0..m.len()).map(|k| Arc::new(m.row(k))).collect(),
                Built::Rows(rows) => rows,
            };
            // Instances from the content (bm25 needs them too).
            let rows = if self.cfg.detail != Detail::Full {
                rows.into_iter().map(|r| super::rows::with_instances(c, &self.cfg, q, r)).collect::<Result<_>>()?
            } else {
                rows
            };
            return self.start(rows, Some(q.clone()), stats);
        }
        if self.cfg.content != Content::Own {
            let (rows, stats) = {
                let p = lock(&self.pending);
                source::scan(c, &self.cfg, q.as_deref(), &p)?
            };
            return self.start(rows, q, stats);
        }
        let cols = super::locale::content_columns(&self.cfg);
        // Without a query, integer rowid bounds narrow the scan (all
        // bounds are checked again on the rows; with a query, bm25's
        // figures need every row).
        let (mut lo, mut hi) = (i64::MIN, i64::MAX);
        for (item, v) in items.iter().zip(args).filter(|_| q.is_none()) {
            let (Some(op), Value::Integer(x)) = (item.strip_prefix('r').and_then(|op| op.parse::<u8>().ok()), v) else { continue };
            match op {
                ConstraintOp::EQ => (lo, hi) = (lo.max(*x), hi.min(*x)),
                ConstraintOp::GT => lo = lo.max(x.saturating_add(1)),
                ConstraintOp::GE => lo = lo.max(*x),
                ConstraintOp::LT => hi = hi.min(x.saturating_sub(1)),
                ConstraintOp::LE => hi = hi.min(*x),
                _ => {}
            }
        }
        let narrowed = (lo, hi) != (i64::MIN, i64::MAX);
        let data = super::lookup::query(
            c,
            &format!("SELECT id{cols} FROM {} WHERE id >= ?1 AND id <= ?2 ORDER BY id", self.cfg.shadow("content")),
            &[Value::Integer(lo), Value::Integer(hi)],
        )?;
        let mut stats = Stats { nhit: vec![0; q.as_ref().map_or(0, |q| q.phrases.len())], ..Stats::default() };
        let mut rows = Vec::new();
        for r in data {
            let rowid = match r.first() {
                Some(Value::Integer(i)) => *i,
                _ => return Err(Error::corrupt()),
            };
            let values: Vec<Value> = super::locale::from_content(&self.cfg, r[1..].to_vec());
            let tokens: Vec<Vec<Token>> =
                values.iter().zip(&self.cfg.unindexed).map(|(v, un)| if *un { Ok(Vec::new()) } else { value_tokens(&self.cfg, v) }).collect::<Result<_>>()?;
            stats.nrow += 1;
            stats.ntoken += tokens.iter().map(|t| column_size(t) as i64).sum::<i64>();
            stats.col_tokens.resize(tokens.len(), 0);
            for (total, t) in stats.col_tokens.iter_mut().zip(&tokens) {
                *total += column_size(t) as i64;
            }
            let mut inst = Vec::new();
            let keep = match &q {
                None => true,
                Some(q) => {
                    for (i, p) in q.phrases.iter().enumerate() {
                        if !matcher::token_instances(p, &tokens).is_empty() {
                            stats.nhit[i] += 1;
                        }
                    }
                    matcher::evaluate_tokens(q, &tokens, &mut inst)
                }
            };
            if keep {
                let size = tokens.iter().map(|t| column_size(t) as i64).collect();
                rows.push(Arc::new(Row { rowid, values, tokens, inst, size, missing: false }));
            }
        }
        if narrowed {
            // Table figures are the whole table's.
            let (nrow, totals) = index::current_averages(c, &self.cfg, &lock(&self.pending))?;
            (stats.nrow, stats.ntoken, stats.col_tokens) = (nrow, totals.iter().sum(), totals);
        }
        self.start(rows, q, stats)
    }

    fn publish(&self) {
        let mut s = lock(&self.shared);
        let k = self.order.get(self.at).map(|&k| k as usize);
        match (&self.matched, k) {
            (Some(m), Some(k)) => {
                s.row = None;
                match &mut s.flat {
                    Some((held, at)) if Arc::ptr_eq(held, m) => *at = k,
                    f => *f = Some((m.clone(), k)),
                }
            }
            _ => {
                s.row = k.and_then(|k| self.rows.get(k).cloned());
                s.flat = None;
            }
        }
        s.unloaded = self.light.clone();
    }

    /// The number of rows held (before bounds and order apply).
    fn held(&self) -> usize {
        self.matched.as_ref().map_or(self.rows.len(), |m| m.len())
    }

    /// The rowid of held row `k`.
    fn rowid_of(&self, k: usize) -> i64 {
        match &self.matched {
            Some(m) => m.rowid(k),
            None => self.rows[k].rowid,
        }
    }

    /// The bm25 weights of the rank function (none unless it is bm25).
    fn weights(&self) -> &[f64] {
        match &self.rank_fn {
            super::rank::RankFn::Bm25(w) => w,
            _ => &[],
        }
    }

    /// The rank of the current row (`self.at`, published) when the rank
    /// function is not bm25: `highlight()` or `snippet()` text with
    /// their argument checks, or the application's function's value.
    fn fn_rank(&self, host: &mut dyn VmHost) -> Result<Value> {
        let (name, args, want) = match &self.rank_fn {
            super::rank::RankFn::Highlight(a) => ("highlight", a, 3),
            super::rank::RankFn::Snippet(a) => ("snippet", a, 5),
            super::rank::RankFn::Custom(name, f, a) => {
                if lock(&self.shared).query.is_none() {
                    return Ok(Value::Null);
                }
                return super::rank::call_custom(host, self.id, name, f, a);
            }
            super::rank::RankFn::Bm25(_) => return Ok(Value::Null),
        };
        if args.len() != want {
            return Err(Error::sql(format!("wrong number of arguments to function {name}()")));
        }
        let row = {
            let mut s = lock(&self.shared);
            if s.query.is_none() {
                return Ok(Value::Null);
            }
            let header = s.locale_header;
            match current_row(&mut s, Some(host))? {
                Some(r) => super::aux::shown_row(header.as_ref(), r),
                None => return Ok(Value::Null),
            }
        };
        if want == 3 {
            super::snippet::highlight(&row, args)
        } else {
            super::snippet::snippet(&row, args)
        }
    }

    /// bm25 of held row `k`.
    fn bm25_of(&self, q: &Query, stats: &Stats, k: usize) -> f64 {
        match &self.matched {
            Some(m) => super::aux::bm25(q, stats, m.size(k), |i| m.inst(k, i), self.weights()),
            None => {
                let r = &self.rows[k];
                super::aux::bm25(q, stats, &r.size, |i| &r.inst[i], self.weights())
            }
        }
    }

    /// Position on the first of `rows`, the query and figures published.
    fn start(&mut self, rows: Vec<Arc<Row>>, q: Option<Arc<Query>>, stats: Stats) -> Result<()> {
        self.rows = rows;
        self.matched = None;
        self.begin(q, stats)
    }

    /// [`Self::start`] for rows found through the index, kept flat.
    fn start_flat(&mut self, m: Matched, q: Arc<Query>, stats: Stats) -> Result<()> {
        self.rows = Vec::new();
        self.matched = Some(Arc::new(m));
        self.begin(Some(q), stats)
    }

    fn begin(&mut self, q: Option<Arc<Query>>, stats: Stats) -> Result<()> {
        self.order = (0..self.held() as u32).collect();
        self.at = 0;
        {
            let mut s = lock(&self.shared);
            s.query = q;
            s.stats = Arc::new(stats);
            s.flat = None;
        }
        self.publish();
        Ok(())
    }
}

impl VTabCursor for Fts5Cursor {
    fn filter(&mut self, host: &mut dyn VmHost, idx_num: i32, idx_str: Option<&str>, args: &[Value]) -> Result<()> {
        if self.writing.load(Ordering::SeqCst) > 0 {
            return Err(Error::corrupt());
        }
        index::check_format(&self.format_ok, shadow::conn(host)?, &self.cfg)?;
        self.filter_rows(host, idx_str, args)?;
        // The rank function: the query's, else the table's option, else
        // plain bm25 (only read when there is a full-text query to rank).
        self.rank_fn = super::rank::RankFn::default();
        if lock(&self.shared).query.is_some() {
            let given = idx_str
                .unwrap_or("")
                .split(',')
                .zip(args)
                .find(|(item, _)| *item == "R")
                .map(|(_, v)| v.as_ref().to_text().map(|t| String::from_utf8_lossy(&t).into_owned()).unwrap_or_default());
            let spec = match given {
                Some(s) => Some(s),
                None => super::rank::configured(shadow::conn(host)?, &self.cfg)?,
            };
            if let Some(spec) = spec {
                self.rank_fn = super::rank::resolve(&spec, &self.ext)?;
            }
        }
        let bounds: Vec<(u8, &Value)> = idx_str
            .unwrap_or("")
            .split(',')
            .zip(args)
            .filter_map(|(item, v)| item.strip_prefix('r').and_then(|op| op.parse().ok()).map(|op| (op, v)))
            .collect();
        if !bounds.is_empty() {
            let mut order = std::mem::take(&mut self.order);
            order.retain(|&k| bounds.iter().all(|(op, v)| rowid_bound(*op, v, self.rowid_of(k as usize))));
            self.order = order;
        }
        match idx_num {
            ORDER_ROWID_DESC => self.order.reverse(),
            ORDER_RANK | ORDER_RANK_DESC if !matches!(self.rank_fn, super::rank::RankFn::Bm25(_)) => {
                // A rank by another function: each row's value, then a
                // stable sort by SQL order (BINARY).
                // (SQLite ranks these rows with a statement of its own:
                // an application's function failing there fails the query
                // with its code and the code's message, observed.)
                let custom = matches!(self.rank_fn, super::rank::RankFn::Custom(..));
                let mut keyed: Vec<(Value, u32)> = Vec::with_capacity(self.order.len());
                for at in 0..self.order.len() {
                    self.at = at;
                    self.publish();
                    let v = self.fn_rank(host).map_err(|e| if custom { Error::code(e.code) } else { e })?;
                    keyed.push((v, self.order[at]));
                }
                let descending = idx_num != ORDER_RANK;
                // (cold_sort: a text rank is rare, its rows cost a function
                // call each; std's sort would be one more copy for this type.)
                crate::util::cold_sort::sort_by(&mut keyed, |a, b| {
                    let o = crate::value::compare::compare_values(a.0.as_ref(), b.0.as_ref(), None);
                    if descending {
                        o.reverse()
                    } else {
                        o
                    }
                });
                self.order = keyed.into_iter().map(|(_, k)| k).collect();
            }
            ORDER_RANK | ORDER_RANK_DESC => {
                let s = lock(&self.shared);
                if let Some(q) = s.query.clone() {
                    let stats = s.stats.clone();
                    drop(s);
                    let mut keyed: Vec<(f64, u32)> = self.order.iter().map(|&k| (self.bm25_of(&q, &stats, k as usize), k)).collect();
                    // (Stable: equal scores stay in rowid order. Through
                    // the shared sort: computing the scores costs more.)
                    let descending = idx_num != ORDER_RANK;
                    crate::util::cold_sort::sort_by(&mut keyed, |a, b| if descending { b.0.total_cmp(&a.0) } else { a.0.total_cmp(&b.0) });
                    self.order = keyed.into_iter().map(|(_, k)| k).collect();
                }
            }
            _ => {}
        }
        self.at = 0;
        self.publish();
        Ok(())
    }

    fn next(&mut self, _host: &mut dyn VmHost) -> Result<()> {
        self.at += 1;
        self.publish();
        Ok(())
    }

    fn eof(&mut self) -> bool {
        self.at >= self.order.len()
    }
    fn column(&mut self, host: &mut dyn VmHost, ctx: &mut ColumnContext) -> Result<Value> {
        let n = self.cfg.columns.len();
        let Some(k) = self.order.get(self.at).map(|&k| k as usize) else {
            return Ok(Value::Null);
        };
        if ctx.column < n {
            // A column an UPDATE leaves is not read (SQLite's xColumn
            // seeks no row for it): xUpdate sees it unchanged.
            if ctx.nochange {
                ctx.left_unchanged = true;
                return Ok(Value::Null);
            }
            let row = match self.light.is_some() {
                true => current_row(&mut lock(&self.shared), Some(host))?.ok_or_else(|| Error::sql("fts5: no current row"))?,
                false => self.rows[k].clone(),
            };
            if row.missing {
                return Err(source::missing_row(&self.cfg, row.rowid));
            }
            return Ok(super::locale::text_of(&self.cfg, &row.values[ctx.column]));
        }
        if ctx.column == n {
            // (Where an auxiliary function's lookup by this id starts.)
            // invariant: fts5_cursor_registered
            debug_assert!(lock(cursors()).get(&self.id).is_some_and(|s| Arc::ptr_eq(s, &self.shared)), "fts5 cursor {} not registered", self.id);
            #[cfg(debug_assertions)]
            {
                let s = lock(&self.shared);
                let on_row = match (&s.row, &s.flat) {
                    (Some(r), _) => r.rowid == self.rowid_of(k),
                    (None, Some((_, at))) => *at == k,
                    (None, None) => false,
                };
                // invariant: fts5_shared_row
                debug_assert!(on_row, "fts5 cursor {}'s shared row is not the one it is on", self.id);
            }
            return Ok(Value::Integer(self.id));
        }
        if !matches!(self.rank_fn, super::rank::RankFn::Bm25(_)) {
            return self.fn_rank(host);
        }
        let s = lock(&self.shared);
        match s.query.clone() {
            Some(q) => {
                let stats = s.stats.clone();
                drop(s);
                Ok(Value::Real(self.bm25_of(&q, &stats, k)))
            }
            None => Ok(Value::Null),
        }
    }

    fn rowid(&mut self, _host: &mut dyn VmHost) -> Result<i64> {
        Ok(self.order.get(self.at).map_or(0, |&k| self.rowid_of(k as usize)))
    }
}
