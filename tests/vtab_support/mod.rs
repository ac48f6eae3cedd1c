//! Virtual-table modules written against ringlite's Rust interface, for
//! the tests: `series` (a generate_series-like eponymous-only table-valued
//! function, read-only) and `memtab` (a writable in-memory table with
//! transactions, logging the calls the engine makes).
#![allow(dead_code)]

use ringlite::error::{Error, Result};
use ringlite::value::Value;
use ringlite::vdbe::host::VmHost;
use ringlite::vtab::{ColumnContext, ConstraintOp, Connected, IndexInfo, Module, ModuleKind, VTab, VTabCursor, VtabConfig};
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
    fn best_index(&self, info: &mut IndexInfo) -> Result<()> {
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
