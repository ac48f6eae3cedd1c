//! # Checking an R*Tree: `rtreecheck()`, xIntegrity, `rtreenode()`, `rtreedepth()`
//!
//! `rtreecheck([schema,] table)` walks the tree from the root and reports,
//! one line each, what rtree.txt §7.2 lists: a cell whose lower bound
//! exceeds its upper bound, a cell outside its parent's box, a leaf entry
//! `%_rowid` does not map to its leaf, a child `%_parent` does not map to
//! its node, and `%_rowid`/`%_parent` holding more or fewer rows than the
//! tree has cells. `ok` when there is nothing to report. The same report
//! answers `PRAGMA integrity_check` (xIntegrity).
//!
//! `rtreenode(dims, blob)` shows a node's cells as `{rowid c0 c1 ..}` and
//! `rtreedepth(blob)` a root's depth field (SQLite's testing functions).
//!
//! Invariant: the walk visits a node at most once and stops at the depth
//! the root gives (a cycle in damaged tables cannot make it loop)
//! (checked: rtree_check_node_once).

use super::node::{CoordKind, Node};
use super::shadow::{exec_once, ident};
use crate::connection::Connection;
use crate::error::{Error, Result, SQLITE_ERROR};
use crate::util::ascii::AsciiLower;
use crate::value::Value;
use crate::vdbe::func::{FuncDef, FuncFlags, FuncKind, FunctionContext, ScalarFunction};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// The depth standing for "no root node".
const NO_ROOT: usize = usize::MAX;

/// Most report lines (SQLite stops collecting after a hundred or so).
const MAX_ERRORS: usize = 100;

struct Checker<'a> {
    conn: &'a mut Connection,
    db: String,
    table: String,
    dims: usize,
    kind: CoordKind,
    errors: Vec<String>,
    nodes: HashMap<i64, Vec<u8>>,
    rowids: HashMap<i64, i64>,
    parents: HashMap<i64, i64>,
    seen: HashSet<i64>,
    n_leaf: i64,
    n_inner: i64,
}

impl Checker<'_> {
    fn err(&mut self, s: String) {
        if self.errors.len() < MAX_ERRORS {
            self.errors.push(s);
        }
    }

    fn shadow(&self, s: &str) -> String {
        format!("{}.{}", ident(&self.db), ident(&format!("{}_{s}", self.table)))
    }

    fn load(&mut self) -> Result<()> {
        for r in exec_once(self.conn, &format!("SELECT nodeno, data FROM {}", self.shadow("node")))? {
            // (Read as sqlite3_column_blob reads it: text gives its bytes.)
            let bytes = r[1].as_ref().to_text().map(|b| b.into_owned()).unwrap_or_default();
            self.nodes.insert(r[0].as_ref().to_i64(), bytes);
        }
        for r in exec_once(self.conn, &format!("SELECT rowid, nodeno FROM {}", self.shadow("rowid")))? {
            self.rowids.insert(r[0].as_ref().to_i64(), r[1].as_ref().to_i64());
        }
        for r in exec_once(self.conn, &format!("SELECT nodeno, parentnode FROM {}", self.shadow("parent")))? {
            self.parents.insert(r[0].as_ref().to_i64(), r[1].as_ref().to_i64());
        }
        Ok(())
    }

    /// Check node `n` at `depth` (0: a leaf), inside `bounds` (the parent
    /// cell's box, none for the root).
    fn node(&mut self, n: i64, depth: usize, bounds: Option<&[f64]>) {
        // invariant: rtree_check_node_once
        if !self.seen.insert(n) {
            return;
        }
        let Some(data) = self.nodes.get(&n).cloned() else {
            self.err(format!("Node {n} missing from database"));
            return;
        };
        if data.len() < 4 {
            self.err(format!("Node {n} is too small ({} bytes)", data.len()));
            return;
        }
        let count = u16::from_be_bytes([data[2], data[3]]) as usize;
        let cell_size = Node::cell_size(self.dims);
        if 4 + count * cell_size > data.len() {
            self.err(format!("Node {n} is too small for cell count of {count} ({} bytes)", data.len()));
            return;
        }
        let node = match Node::parse(n, data, self.dims, self.kind) {
            Ok(x) => x,
            Err(_) => return,
        };
        for i in 0..count {
            let c = node.cell(i);
            let xs: Vec<f64> = c.coords.iter().map(|x| x.d()).collect();
            for d in 0..self.dims {
                let (lo, hi) = (c.coords[2 * d], c.coords[2 * d + 1]);
                if lo.gt(hi) {
                    self.err(format!("Dimension {d} of cell {i} on node {n} is corrupt"));
                } else if let Some(b) = bounds {
                    if xs[2 * d] < b[2 * d] || xs[2 * d + 1] > b[2 * d + 1] {
                        self.err(format!("Dimension {d} of cell {i} on node {n} is corrupt relative to parent"));
                    }
                }
            }
            if depth == 0 {
                self.n_leaf += 1;
                self.mapping("rowid", c.rowid, n);
            } else {
                self.n_inner += 1;
                self.mapping("parent", c.rowid, n);
                self.node(c.rowid, depth - 1, Some(&xs));
            }
        }
    }

    fn mapping(&mut self, which: &str, key: i64, expect: i64) {
        let map = if which == "rowid" { &self.rowids } else { &self.parents };
        match map.get(&key).copied() {
            None => self.err(format!("Mapping ({key} -> {expect}) missing from %_{which} table")),
            Some(v) if v != expect => self.err(format!("Found ({key} -> {v}) in %_{which} table, expected ({key} -> {expect})")),
            _ => {}
        }
    }
}

/// The report of `rtreecheck(db, table)`.
pub fn check(conn: &mut Connection, db: &str, table: &str) -> Result<String> {
    // The table must be readable, and its shadow tables must say how many
    // columns are coordinates.
    let head = |conn: &mut Connection, sql: &str| -> Option<usize> {
        let (stmt, _) = conn.prepare_terminated(sql.as_bytes()).ok()?;
        stmt.map(|s| s.column_count())
    };
    let Some(n_cols) = head(conn, &format!("SELECT * FROM {}.{}", ident(db), ident(table))) else {
        return Err(Error::code(SQLITE_ERROR));
    };
    let n_rowid = head(conn, &format!("SELECT * FROM {}.{}", ident(db), ident(&format!("{table}_rowid"))));
    let Some(n_rowid) = n_rowid.filter(|&n| n >= 2) else {
        return Ok("Schema corrupt or not an rtree".to_string());
    };
    let n_coord = n_cols.saturating_sub(1 + (n_rowid - 2));
    if !(2..=10).contains(&n_coord) || n_coord % 2 != 0 {
        return Ok("Schema corrupt or not an rtree".to_string());
    }
    let sql = format!("SELECT sql FROM {}.sqlite_schema WHERE type = 'table' AND name = ?1", ident(db));
    let (stmt, _) = conn.prepare_terminated(sql.as_bytes())?;
    let mut kind = CoordKind::Float;
    if let Some(mut s) = stmt {
        s.bind(1, Value::text(table))?;
        if let Ok(crate::connection::StepResult::Row) = s.step(conn) {
            if let Some(t) = text_of(s.column(0)) {
                if t.ascii_lower().contains("rtree_i32") {
                    kind = CoordKind::Int;
                }
            }
        }
        s.reset(conn);
    }
    let mut ck = Checker {
        conn,
        db: db.to_string(),
        table: table.to_string(),
        dims: n_coord / 2,
        kind,
        errors: Vec::new(),
        nodes: HashMap::new(),
        rowids: HashMap::new(),
        parents: HashMap::new(),
        seen: HashSet::new(),
        n_leaf: 0,
        n_inner: 0,
    };
    ck.load().map_err(|_| Error::code(SQLITE_ERROR))?;
    let depth = match ck.nodes.get(&1) {
        Some(d) if d.len() >= 4 => Some(u16::from_be_bytes([d[0], d[1]]) as usize),
        Some(_) => None,
        None => {
            ck.err("Node 1 missing from database".to_string());
            // (Nothing to walk; the maps are still counted against it.)
            Some(NO_ROOT)
        }
    };
    if let Some(depth) = depth {
        if depth <= super::MAX_DEPTH {
            ck.node(1, depth, None);
        } else if depth != NO_ROOT {
            ck.err(format!("Rtree depth out of range ({depth})"));
        }
        let (nl, ni) = (ck.n_leaf, ck.n_inner);
        let (rl, ri) = (ck.rowids.len() as i64, ck.parents.len() as i64);
        if rl != nl {
            ck.err(format!("Wrong number of entries in %_rowid table - expected {nl}, actual {rl}"));
        }
        if ri != ni {
            ck.err(format!("Wrong number of entries in %_parent table - expected {ni}, actual {ri}"));
        }
    } else if ck.nodes.contains_key(&1) {
        ck.err("Node 1 is too small (0 bytes)".to_string());
    }
    Ok(if ck.errors.is_empty() { "ok".to_string() } else { ck.errors.join("\n") })
}

/// `sqlite3_value_text` of `v` as a string (`None` for NULL).
fn text_of(v: &Value) -> Option<String> {
    v.as_ref().to_text().map(|t| String::from_utf8_lossy(&t).into_owned())
}

struct RtreeCheck;

impl ScalarFunction for RtreeCheck {
    fn call(&self, ctx: &mut FunctionContext<'_>, args: &[Value]) -> Result<Value> {
        // Registered for any number of arguments (as SQLite lists it); the
        // count is checked when it runs.
        if !(1..=2).contains(&args.len()) {
            return Err(Error::sql("wrong number of arguments to function rtreecheck()"));
        }
        let text = |v: &Value| text_of(v).unwrap_or_default();
        let (db, table) = if args.len() == 1 { ("main".to_string(), text(&args[0])) } else { (text(&args[0]), text(&args[1])) };
        let Some(host) = ctx.host.as_deref_mut() else { return Err(Error::code(SQLITE_ERROR)) };
        let conn = super::host_conn(host)?;
        Ok(Value::text(check(conn, &db, &table)?))
    }
}

struct RtreeNode;

impl ScalarFunction for RtreeNode {
    fn call(&self, _ctx: &mut FunctionContext<'_>, args: &[Value]) -> Result<Value> {
        let dims = args[0].as_ref().to_i64();
        let Value::Blob(b) = &args[1] else { return Ok(Value::Null) };
        if !(1..=5).contains(&dims) || b.len() < 4 {
            return Ok(Value::Null);
        }
        let Ok(node) = Node::parse(0, b.clone(), dims as usize, CoordKind::Float) else {
            return Ok(Value::Null);
        };
        let mut out = String::new();
        for i in 0..node.cell_count() {
            let c = node.cell(i);
            if i > 0 {
                out.push(' ');
            }
            out.push('{');
            out.push_str(&c.rowid.to_string());
            for x in &c.coords {
                let g = crate::value::printf::sql_printf(&[Value::text("%g"), Value::Real(x.d())], crate::value::printf::DEFAULT_MAX_LENGTH)?;
                out.push(' ');
                out.push_str(&text_of(&g).unwrap_or_default());
            }
            out.push('}');
        }
        Ok(Value::text(out))
    }
}

struct RtreeDepth;

impl ScalarFunction for RtreeDepth {
    fn call(&self, _ctx: &mut FunctionContext<'_>, args: &[Value]) -> Result<Value> {
        match &args[0] {
            Value::Blob(b) if b.len() >= 2 => Ok(Value::Integer(u16::from_be_bytes([b[0], b[1]]) as i64)),
            _ => Err(Error::sql("Invalid argument to rtreedepth()")),
        }
    }
}

/// Register `rtreecheck` (any number of arguments; 1 or 2 work),
/// `rtreenode`, `rtreedepth`.
pub fn register_functions(conn: &mut Connection) -> Result<()> {
    // rtreecheck runs SQL, so it is lent the connection (not `builtin`).
    let lent = FuncFlags::default();
    conn.create_function(FuncDef { name: "rtreecheck".into(), n_args: -1, flags: lent, kind: FuncKind::Scalar(Arc::new(RtreeCheck)) })?;
    let own = FuncFlags { builtin: true, ..FuncFlags::default() };
    conn.create_function(FuncDef { name: "rtreenode".into(), n_args: 2, flags: own, kind: FuncKind::Scalar(Arc::new(RtreeNode)) })?;
    conn.create_function(FuncDef { name: "rtreedepth".into(), n_args: 1, flags: own, kind: FuncKind::Scalar(Arc::new(RtreeDepth)) })?;
    Ok(())
}
