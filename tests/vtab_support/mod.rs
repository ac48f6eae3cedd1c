//! Virtual-table modules written against ringlite's Rust interface, for
//! the tests: `series` (a generate_series-like eponymous-only table-valued
//! function, read-only) and `memtab` (a writable in-memory table with
//! transactions, logging the calls the engine makes).
#![allow(dead_code)]

use ringlite::error::{Error, Result};
use ringlite::value::Value;
use ringlite::vdbe::host::VmHost;
use ringlite::vtab::{ColumnContext, Connected, ConstraintOp, IndexInfo, Module, ModuleKind, VTab, VTabCursor, VtabConfig};
use std::sync::{Arc, Mutex};

/// Calls made on the modules, in order.
pub type Log = Arc<Mutex<Vec<String>>>;

/// `series(start, stop, step)`: columns value, then start, stop, step
/// HIDDEN. idxNum bits: 1 start, 2 stop, 4 step given; 8 descending.
pub struct Series {
    pub log: Log,
}

impl Module for Series {
    fn kind(&self) -> ModuleKind {
        ModuleKind::EponymousOnly
    }
    fn connect(&self, _host: &mut dyn VmHost, args: &[String]) -> Result<Connected> {
        self.log.lock().unwrap().push(format!("connect {}", args.join(",")));
        Ok(Connected {
            table: Arc::new(SeriesTable { log: self.log.clone() }),
            schema: "CREATE TABLE x(value, start HIDDEN, stop HIDDEN, step HIDDEN)".into(),
            config: VtabConfig::default(),
        })
    }
}

struct SeriesTable {
    log: Log,
}

impl VTab for SeriesTable {
    fn best_index(&self, _host: Option<&mut dyn ringlite::vdbe::host::VmHost>, info: &mut IndexInfo) -> Result<()> {
        let mut desc = String::new();
        for c in &info.constraints {
            desc.push_str(&format!("[{} {} {}]", c.column, c.op, if c.usable { "u" } else { "-" }));
        }
        self.log.lock().unwrap().push(format!("best_index {desc} order={:?}", info.order_by.iter().map(|o| (o.column, o.desc)).collect::<Vec<_>>()));
        let mut num = 0;
        let mut argv = 0;
        for bit in 0..3 {
            let col = bit + 1;
            if let Some(i) = info.constraints.iter().position(|c| c.column == col && c.op == ConstraintOp::EQ && c.usable) {
                argv += 1;
                info.usage[i].argv_index = argv;
                info.usage[i].omit = true;
                num |= 1 << bit;
            } else if info.constraints.iter().any(|c| c.column == col && c.op == ConstraintOp::EQ) {
                // Given but not usable now: not this plan.
                return Err(Error::code(ringlite::error::SQLITE_CONSTRAINT));
            }
        }
        if info.order_by.len() == 1 && info.order_by[0].column == 0 {
            if info.order_by[0].desc {
                num |= 8;
            }
            info.order_by_consumed = true;
        }
        info.idx_num = num;
        info.idx_str = Some(format!("s{num}"));
        info.estimated_cost = if num & 3 == 3 { 10.0 } else { 1e6 };
        info.estimated_rows = 100;
        Ok(())
    }
    fn open(&self, _host: &mut dyn VmHost) -> Result<Box<dyn VTabCursor>> {
        Ok(Box::new(SeriesCursor { start: 0, stop: 0, step: 1, value: 0, desc: false, rowid: 0 }))
    }
}

struct SeriesCursor {
    start: i64,
    stop: i64,
    step: i64,
    value: i64,
    desc: bool,
    rowid: i64,
}

impl VTabCursor for SeriesCursor {
    fn filter(&mut self, _host: &mut dyn VmHost, idx_num: i32, _idx_str: Option<&str>, args: &[Value]) -> Result<()> {
        let mut a = args.iter();
        let mut int = |bit: i32, default: i64| if idx_num & bit != 0 { a.next().map_or(default, |v| v.as_ref().to_i64()) } else { default };
        self.start = int(1, 0);
        self.stop = int(2, 0xffff_ffff);
        self.step = int(4, 1).max(1);
        self.desc = idx_num & 8 != 0;
        self.value = if self.desc { self.start + (self.stop - self.start).max(-1) / self.step * self.step } else { self.start };
        self.rowid = 1;
        Ok(())
    }
    fn next(&mut self, _host: &mut dyn VmHost) -> Result<()> {
        self.value += if self.desc { -self.step } else { self.step };
        self.rowid += 1;
        Ok(())
    }
    fn eof(&mut self) -> bool {
        self.value < self.start || self.value > self.stop
    }
    fn column(&mut self, _host: &mut dyn VmHost, ctx: &mut ColumnContext) -> Result<Value> {
        Ok(Value::Integer(match ctx.column {
            0 => self.value,
            1 => self.start,
            2 => self.stop,
            _ => self.step,
        }))
    }
    fn rowid(&mut self, _host: &mut dyn VmHost) -> Result<i64> {
        Ok(self.rowid)
    }
}

/// `memtab(col, ...)`: a writable in-memory table (rowid table) keeping a
/// copy of its rows at xBegin and at each savepoint, so xRollback and
/// xRollbackTo restore them. Every transaction call is logged.
pub struct MemTab {
    pub log: Log,
}

type Rows = std::collections::BTreeMap<i64, Vec<Value>>;

struct MemState {
    rows: Rows,
    at_begin: Option<Rows>,
    savepoints: Vec<(i32, Rows)>,
}

pub struct MemTable {
    name: String,
    ncol: usize,
    state: Arc<Mutex<MemState>>,
    log: Log,
}

impl Module for MemTab {
    fn create(&self, _host: &mut dyn VmHost, args: &[String]) -> Result<Connected> {
        self.log.lock().unwrap().push(format!("create {}", args[2]));
        self.make(args)
    }
    fn connect(&self, _host: &mut dyn VmHost, args: &[String]) -> Result<Connected> {
        self.log.lock().unwrap().push(format!("connect {}", args[2]));
        self.make(args)
    }
}

impl MemTab {
    fn make(&self, args: &[String]) -> Result<Connected> {
        let cols: Vec<String> = args[3..].to_vec();
        Ok(Connected {
            table: Arc::new(MemTable {
                name: args[2].clone(),
                ncol: cols.len(),
                state: Arc::new(Mutex::new(MemState { rows: Rows::new(), at_begin: None, savepoints: Vec::new() })),
                log: self.log.clone(),
            }),
            schema: format!("CREATE TABLE x({})", cols.join(", ")),
            config: VtabConfig { constraint_support: true, ..Default::default() },
        })
    }
}

impl MemTable {
    fn note(&self, s: String) {
        self.log.lock().unwrap().push(format!("{} {s}", self.name));
    }
}

impl VTab for MemTable {
    fn best_index(&self, _host: Option<&mut dyn ringlite::vdbe::host::VmHost>, info: &mut IndexInfo) -> Result<()> {
        for (i, c) in info.constraints.iter().enumerate() {
            if c.column == -1 && c.op == ConstraintOp::EQ && c.usable {
                info.usage[i].argv_index = 1;
                info.usage[i].omit = true;
                info.idx_num = 1;
                info.estimated_cost = 1.0;
                return Ok(());
            }
        }
        info.estimated_cost = 1000.0;
        Ok(())
    }
    fn open(&self, _host: &mut dyn VmHost) -> Result<Box<dyn VTabCursor>> {
        Ok(Box::new(MemCursor { state: self.state.clone(), rows: Vec::new(), at: 0 }))
    }
    fn writable(&self) -> bool {
        true
    }
    fn update(&self, _host: &mut dyn VmHost, args: &[Value], on_conflict: i32, _nochange: &[bool]) -> Result<Option<i64>> {
        let mut st = self.state.lock().unwrap();
        if args.len() == 1 {
            st.rows.remove(&args[0].as_ref().to_i64());
            return Ok(None);
        }
        let old = (!args[0].is_null()).then(|| args[0].as_ref().to_i64());
        let new = if args[1].is_null() { None } else { Some(args[1].as_ref().to_i64()) };
        let id = new.or(old).unwrap_or_else(|| st.rows.keys().next_back().map_or(1, |k| k + 1));
        if new != old && st.rows.contains_key(&id) {
            if on_conflict == ringlite::vtab::ON_CONFLICT_REPLACE {
                st.rows.remove(&id);
            } else {
                return Err(Error::new(ringlite::error::SQLITE_CONSTRAINT, format!("memtab: rowid {id} exists")));
            }
        }
        if let Some(o) = old {
            st.rows.remove(&o);
        }
        let mut row: Vec<Value> = args[2..].to_vec();
        row.resize(self.ncol, Value::Null);
        st.rows.insert(id, row);
        Ok(old.is_none().then_some(id))
    }
    fn transactional(&self) -> bool {
        true
    }
    fn begin(&self, _host: &mut dyn VmHost) -> Result<()> {
        self.note("begin".into());
        let mut st = self.state.lock().unwrap();
        st.at_begin = Some(st.rows.clone());
        Ok(())
    }
    fn sync(&self, _host: &mut dyn VmHost) -> Result<()> {
        self.note("sync".into());
        Ok(())
    }
    fn commit(&self, _host: &mut dyn VmHost) -> Result<()> {
        self.note("commit".into());
        let mut st = self.state.lock().unwrap();
        st.at_begin = None;
        st.savepoints.clear();
        Ok(())
    }
    fn rollback(&self, _host: &mut dyn VmHost) -> Result<()> {
        self.note("rollback".into());
        let mut st = self.state.lock().unwrap();
        if let Some(r) = st.at_begin.take() {
            st.rows = r;
        }
        st.savepoints.clear();
        Ok(())
    }
    fn savepoint(&self, _host: &mut dyn VmHost, n: i32) -> Result<()> {
        self.note(format!("savepoint {n}"));
        let mut st = self.state.lock().unwrap();
        let rows = st.rows.clone();
        st.savepoints.retain(|(k, _)| *k < n);
        st.savepoints.push((n, rows));
        Ok(())
    }
    fn release(&self, _host: &mut dyn VmHost, n: i32) -> Result<()> {
        self.note(format!("release {n}"));
        self.state.lock().unwrap().savepoints.retain(|(k, _)| *k < n);
        Ok(())
    }
    fn rollback_to(&self, _host: &mut dyn VmHost, n: i32) -> Result<()> {
        self.note(format!("rollback_to {n}"));
        let mut st = self.state.lock().unwrap();
        if let Some((_, rows)) = st.savepoints.iter().find(|(k, _)| *k == n).cloned() {
            st.rows = rows;
        }
        st.savepoints.retain(|(k, _)| *k <= n);
        Ok(())
    }
}

struct MemCursor {
    state: Arc<Mutex<MemState>>,
    rows: Vec<(i64, Vec<Value>)>,
    at: usize,
}

impl VTabCursor for MemCursor {
    fn filter(&mut self, _host: &mut dyn VmHost, idx_num: i32, _idx_str: Option<&str>, args: &[Value]) -> Result<()> {
        let st = self.state.lock().unwrap();
        self.rows = if idx_num == 1 {
            let id = args[0].as_ref().to_i64();
            st.rows.get(&id).map(|r| vec![(id, r.clone())]).unwrap_or_default()
        } else {
            st.rows.iter().map(|(k, v)| (*k, v.clone())).collect()
        };
        self.at = 0;
        Ok(())
    }
    fn next(&mut self, _host: &mut dyn VmHost) -> Result<()> {
        self.at += 1;
        Ok(())
    }
    fn eof(&mut self) -> bool {
        self.at >= self.rows.len()
    }
    fn column(&mut self, _host: &mut dyn VmHost, ctx: &mut ColumnContext) -> Result<Value> {
        Ok(self.rows[self.at].1.get(ctx.column).cloned().unwrap_or(Value::Null))
    }
    fn rowid(&mut self, _host: &mut dyn VmHost) -> Result<i64> {
        Ok(self.rows[self.at].0)
    }
}
