//! # PRAGMA table-valued functions as eponymous virtual tables
//!
//! SQLite serves `pragma_NAME` (every pragma that returns rows and has no
//! side effect, pragma.txt "PRAGMA functions") from an eponymous-only
//! virtual table: its columns are the pragma's result columns followed by
//! the hidden `arg` (pragmas taking an argument) and `schema` (pragmas
//! about one database) columns; its xBestIndex takes `=` constraints on
//! the hidden columns as the arguments, and its xFilter runs
//! `PRAGMA 'schema'.NAME='arg'` on the connection and hands on the rows.
//! This module is that table, for every pragma SQLite offers as one
//! (`pragma_names::pragma_vtab_routed`; their columns as
//! `pragma_names::pragma_table_rows` describes them): it needs no
//! compile-time knowledge of the rows, so arguments may be any
//! expression, columns of tables to either side included (the planner
//! orders the join so that a hidden column's constraint is usable), and
//! the rows are the ones the PRAGMA gives when the statement runs.
//!
//! Like SQLite's, the table is not listed by `sqlite3_create_module`'s
//! registry until used (ringlite never lists it: `pragma_module_list`
//! shows only registered modules) and is neither innocuous nor
//! direct-only.
//!
//! Invariants: a cursor's rows are read whole at xFilter (the nested
//! PRAGMA statement is finished before the scan returns its first row)
//! (checked: pragma_vtab_rows_whole);
//! a hidden column reads the argument text xFilter was given, NULL when
//! not given.

use crate::connection::{Connection, StepResult};
use crate::error::{Error, Result, SQLITE_CONSTRAINT};
use crate::sql::codegen::pragma::pragma_names;
use crate::util::ascii::AsciiLower;
use crate::value::Value;
use crate::vdbe::host::VmHost;
use crate::vdbe::vtab::{ColumnContext, Connected, ConstraintOp, IndexInfo, Module, ModuleKind, VTab, VTabCursor, VtabConfig};
use std::sync::Arc;

/// The module of the eponymous table `name` (`pragma_NAME`), when it is a
/// pragma table ringlite serves as a virtual table.
pub(crate) fn module(name: &str) -> Option<Arc<dyn Module>> {
    let lower = name.ascii_lower();
    let pragma = lower.strip_prefix("pragma_")?;
    if !pragma_names::pragma_vtab_routed(pragma) {
        return None;
    }
    let rows = pragma_names::pragma_table_rows(&lower, true)?;
    // (Rows of table_xinfo: cid, name, type, notnull, dflt_value, pk, hidden.)
    let mut visible = Vec::new();
    let mut hidden = Vec::new();
    for r in &rows {
        let Some(Value::Text(n)) = r.get(1) else { continue };
        let n = String::from_utf8_lossy(n).into_owned();
        if matches!(r.get(6), Some(Value::Integer(1))) {
            hidden.push(n);
        } else {
            visible.push(n);
        }
    }
    debug_assert!(hidden.len() <= 2 && hidden.iter().all(|h| h == "arg" || h == "schema"));
    Some(Arc::new(PragmaModule { pragma: pragma.to_string(), visible, hidden }))
}

struct PragmaModule {
    pragma: String,
    visible: Vec<String>,
    hidden: Vec<String>,
}

impl Module for PragmaModule {
    fn kind(&self) -> ModuleKind {
        ModuleKind::EponymousOnly
    }
    fn connect(&self, _host: &mut dyn VmHost, _args: &[String]) -> Result<Connected> {
        let mut cols: Vec<String> = self.visible.iter().map(|c| format!("\"{}\"", c.replace('"', "\"\""))).collect();
        cols.extend(self.hidden.iter().map(|h| format!("{h} HIDDEN")));
        let schema = format!("CREATE TABLE x({})", cols.join(","));
        let table = PragmaTable { pragma: self.pragma.clone(), n_visible: self.visible.len(), hidden: self.hidden.clone() };
        Ok(Connected { table: Arc::new(table), schema, config: VtabConfig::default() })
    }
}

struct PragmaTable {
    pragma: String,
    n_visible: usize,
    /// The hidden columns' names, in order (`arg`, `schema`, or one of them).
    hidden: Vec<String>,
}

impl PragmaTable {
    /// Where the first value xFilter receives goes among (arg, schema): a
    /// pragma without `arg` takes its only argument as the schema.
    fn first_slot(&self) -> usize {
        usize::from(self.hidden.first().is_none_or(|h| h != "arg"))
    }
}

impl VTab for PragmaTable {
    fn best_index(&self, _host: Option<&mut dyn VmHost>, info: &mut IndexInfo) -> Result<()> {
        info.estimated_cost = 1.0;
        if self.hidden.is_empty() {
            return Ok(());
        }
        // The `=` constraint on each hidden column, by hidden position; a
        // constraint the planner cannot use yet (its value comes from a
        // table not yet open) rejects this plan, so that the table is
        // scanned inside the loop supplying it.
        let mut seen = [None, None];
        for (i, c) in info.constraints.iter().enumerate() {
            let Some(h) = (c.column as usize).checked_sub(self.n_visible).filter(|_| c.column >= 0) else { continue };
            if c.op != ConstraintOp::EQ {
                continue;
            }
            if !c.usable {
                return Err(Error::code(SQLITE_CONSTRAINT));
            }
            if let Some(s) = seen.get_mut(h) {
                *s = Some(i);
            }
        }
        // Without the first hidden column the pragma runs without
        // arguments at all (the second alone is not used).
        let Some(first) = seen[0] else {
            info.estimated_cost = 2147483647.0;
            info.estimated_rows = 2147483647;
            return Ok(());
        };
        info.usage[first].argv_index = 1;
        info.usage[first].omit = true;
        info.estimated_cost = 20.0;
        info.estimated_rows = 20;
        if let Some(second) = seen[1] {
            info.usage[second].argv_index = 2;
            info.usage[second].omit = true;
        }
        Ok(())
    }

    fn open(&self, _host: &mut dyn VmHost) -> Result<Box<dyn VTabCursor>> {
        Ok(Box::new(PragmaCursor {
            pragma: self.pragma.clone(),
            n_visible: self.n_visible,
            first_slot: self.first_slot(),
            args: [None, None],
            rows: Vec::new(),
            at: 0,
        }))
    }
}

struct PragmaCursor {
    pragma: String,
    n_visible: usize,
    first_slot: usize,
    /// The argument texts given to xFilter: (arg, schema).
    args: [Option<String>; 2],
    rows: Vec<Vec<Value>>,
    at: usize,
}

/// `s` as an SQL string literal.
fn quoted(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

impl VTabCursor for PragmaCursor {
    fn filter(&mut self, host: &mut dyn VmHost, _idx_num: i32, _idx_str: Option<&str>, args: &[Value]) -> Result<()> {
        self.args = [None, None];
        self.rows.clear();
        self.at = 0;
        for (k, v) in args.iter().enumerate() {
            if let Some(slot) = self.args.get_mut(self.first_slot + k) {
                *slot = v.as_ref().to_text().map(|t| String::from_utf8_lossy(&t).into_owned());
            }
        }
        let mut sql = String::from("PRAGMA ");
        if let Some(schema) = &self.args[1] {
            sql.push_str(&quoted(schema));
            sql.push('.');
        }
        sql.push_str(&self.pragma);
        if let Some(arg) = &self.args[0] {
            sql.push('=');
            sql.push_str(&quoted(arg));
        }
        let conn = Connection::from_host(host).ok_or_else(|| Error::sql(format!("pragma_{}: no connection", self.pragma)))?;
        let (st, _) = conn.prepare_terminated(sql.as_bytes())?;
        let Some(mut st) = st else { return Ok(()) };
        let n = st.column_count();
        let out = loop {
            match st.step(conn) {
                Ok(StepResult::Row) => self.rows.push((0..n).map(|i| st.column(i).clone()).collect()),
                Ok(StepResult::Done) => break Ok(()),
                // (The connection is lent: its statements complete blocking.)
                Ok(StepResult::Io) => break Err(Error::sql(format!("pragma_{}: unexpected I/O wait", self.pragma))),
                Err(e) => break Err(e),
            }
        };
        st.reset(conn);
        // invariant: pragma_vtab_rows_whole
        debug_assert!(!st.busy(), "pragma_{} left its statement running", self.pragma);
        out
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
        if ctx.column < self.n_visible {
            return Ok(self.rows.get(self.at).and_then(|r| r.get(ctx.column)).cloned().unwrap_or(Value::Null));
        }
        // (A hidden column shows the argument in its position among
        // (arg, schema), as SQLite's: a pragma with only `schema` shows NULL.)
        Ok(self.args.get(ctx.column - self.n_visible).cloned().flatten().map_or(Value::Null, Value::text))
    }

    fn rowid(&mut self, _host: &mut dyn VmHost) -> Result<i64> {
        Ok(self.at as i64 + 1)
    }
}
