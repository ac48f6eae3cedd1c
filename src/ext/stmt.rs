//! # `sqlite_stmt`: the connection's prepared statements (stmt.txt)
//!
//! An eponymous-only, read-only virtual table with one row per live
//! prepared statement of the connection, newest first (the order of
//! `sqlite3_next_stmt`): its SQL, result columns, read-only flag, whether
//! it is running, and its `sqlite3_stmt_status` counters (full-scan
//! steps, sorts, automatic-index rows, VM steps, reprepares, runs, heap).
//!
//! The rows are a snapshot taken at xFilter from the figures each
//! statement publishes when a step returns
//! ([`crate::connection::stmt_registry`]), so the statement reading the
//! table sees itself busy, with the counts of its steps before this one,
//! as in SQLite. `nstep` counts ringlite's VM instructions and `mem` is
//! ringlite's estimate: both differ from SQLite's figures (its programs
//! and allocator are not ours).
//!
//! Invariant: a cursor's rows never change after xFilter.

use crate::connection::stmt_registry::StmtStats;
use crate::connection::Connection;
use crate::error::{Error, Result};
use crate::value::Value;
use crate::vdbe::host::VmHost;
use crate::vdbe::vtab::{ColumnContext, Connected, IndexInfo, Module, ModuleKind, VTab, VTabCursor, VtabConfig};
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

/// Register `sqlite_stmt`.
pub fn register(conn: &mut Connection) -> Result<()> {
    conn.create_module("sqlite_stmt", Some(Arc::new(StmtModule)))
}

struct StmtModule;

const SCHEMA: &str = "CREATE TABLE x(sql,ncol,ro,busy,nscan,nsort,naidx,nstep,reprep,run,mem)";

impl Module for StmtModule {
    fn kind(&self) -> ModuleKind {
        ModuleKind::EponymousOnly
    }
    fn connect(&self, _host: &mut dyn VmHost, _args: &[String]) -> Result<Connected> {
        Ok(Connected { table: Arc::new(StmtTable), schema: SCHEMA.to_string(), config: VtabConfig::default() })
    }
}

struct StmtTable;

impl VTab for StmtTable {
    fn best_index(&self, _host: Option<&mut dyn crate::vdbe::host::VmHost>, info: &mut IndexInfo) -> Result<()> {
        info.estimated_cost = 500.0;
        info.estimated_rows = 500;
        Ok(())
    }

    fn open(&self, _host: &mut dyn VmHost) -> Result<Box<dyn VTabCursor>> {
        Ok(Box::new(StmtCursor { rows: Vec::new(), at: 0 }))
    }
}

/// One statement's figures at xFilter, in column order after `sql`.
struct StmtRow {
    sql: String,
    figures: [i64; 10],
}

impl StmtRow {
    fn of(s: &StmtStats) -> StmtRow {
        let g = StmtStats::get;
        StmtRow {
            sql: s.sql.clone(),
            figures: [
                g(&s.ncol),
                s.readonly.load(Relaxed) as i64,
                s.busy.load(Relaxed) as i64,
                g(&s.fullscan_steps),
                g(&s.sorts),
                g(&s.autoindex_rows),
                g(&s.vm_steps),
                g(&s.reprepares),
                g(&s.runs),
                g(&s.mem),
            ],
        }
    }
}

struct StmtCursor {
    rows: Vec<StmtRow>,
    at: usize,
}

impl VTabCursor for StmtCursor {
    fn filter(&mut self, host: &mut dyn VmHost, _idx_num: i32, _idx_str: Option<&str>, _args: &[Value]) -> Result<()> {
        let conn = Connection::from_host(host).ok_or_else(|| Error::sql("sqlite_stmt: no connection"))?;
        self.rows = conn.statement_stats().iter().map(|s| StmtRow::of(s)).collect();
        self.at = 0;
        Ok(())
    }

    fn next(&mut self, _host: &mut dyn VmHost) -> Result<()> {
        if self.at < self.rows.len() {
            self.at += 1;
        }
        Ok(())
    }

    fn eof(&mut self) -> bool {
        self.at >= self.rows.len()
    }

    fn column(&mut self, _host: &mut dyn VmHost, ctx: &mut ColumnContext) -> Result<Value> {
        debug_assert!(self.at <= self.rows.len());
        let Some(r) = self.rows.get(self.at) else { return Ok(Value::Null) };
        Ok(match ctx.column {
            0 => Value::text(r.sql.clone()),
            n => r.figures.get(n - 1).map_or(Value::Null, |v| Value::Integer(*v)),
        })
    }

    fn rowid(&mut self, _host: &mut dyn VmHost) -> Result<i64> {
        Ok(self.at as i64 + 1)
    }
}
