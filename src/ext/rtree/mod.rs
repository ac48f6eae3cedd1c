//! # The R*Tree module (`rtree`, `rtree_i32`)
//!
//! SQLite's R*Tree index as a virtual table (rtree.txt): an integer id,
//! one to five dimensions of lower/upper bounds stored as 32-bit floats
//! (rounded outwards) or 32-bit integers, and auxiliary columns. The tree
//! lives in the shadow tables `%_node`, `%_rowid` and `%_parent` in
//! SQLite's layout, so files move between SQLite and ringlite both ways.
//!
//! Files: `node.rs` (blob format, box arithmetic), `shadow.rs` (SQL on the
//! shadow tables), `store.rs` (one operation's node cache), `tree.rs`
//! (choose-leaf, split, reinsert, condense), `query.rs` (xBestIndex and
//! cursors), `check.rs` (`rtreecheck()`, xIntegrity, `rtreenode()`,
//! `rtreedepth()`), `schema.rs` (arguments and declared columns),
//! `geometry.rs` (query functions for `MATCH`).
//!
//! Invariants: the node size of a table is fixed when it is created (from
//! the page size) and read back from the root's blob when it is
//! connected: a node of another size is damage (checked:
//! rtree_node_size_fixed); between calls the table keeps its prepared statements and
//! the nodes and parent links last read or written (`store.rs`), trusted
//! only while the database's change sequence is the one they were
//! stamped with, so transactions and savepoints of the shadow tables are
//! the table's.

use crate::util::ascii::AsciiLower;
mod check;
pub mod geometry;
pub mod node;
mod query;
mod schema;
mod shadow;
mod store;
mod tree;

use crate::connection::Connection;
use crate::error::{Error, Result, SQLITE_CONSTRAINT, SQLITE_CONSTRAINT_PRIMARYKEY, SQLITE_CORRUPT_VTAB};
use crate::value::Value;
use crate::vdbe::host::VmHost;
use crate::vdbe::vtab::{ConflictMode, Connected, IndexInfo, Module, VTab, VTabCursor, VtabConfig, ON_CONFLICT_REPLACE};
use node::{Cell, CoordKind, Node};
use schema::Columns;
use shadow::{Arg, Names, Sql, StmtCache};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Register `rtree`, `rtree_i32` and the R*Tree SQL functions.
pub fn register(conn: &mut Connection) -> Result<()> {
    conn.create_module("rtree", Some(Arc::new(RtreeModule { kind: CoordKind::Float })))?;
    conn.create_module("rtree_i32", Some(Arc::new(RtreeModule { kind: CoordKind::Int })))?;
    check::register_functions(conn)
}

/// The deepest tree SQLite's module accepts (a root claiming more is
/// damaged).
pub(crate) const MAX_DEPTH: usize = 40;

/// SQLite's error for damaged shadow tables.
pub(crate) fn corrupt() -> Error {
    Error::new(SQLITE_CORRUPT_VTAB, crate::error::errstr(crate::error::SQLITE_CORRUPT))
}

fn host_conn(host: &mut dyn VmHost) -> Result<&mut Connection> {
    Connection::from_host(host).ok_or_else(|| Error::sql("rtree: no connection"))
}

/// SQLite's R*Tree reads its row estimate from the database's
/// `sqlite_stat1` when it has one (`SELECT stat FROM db.sqlite_stat1
/// WHERE tbl = 'name_rowid'`), so an error of that query (a
/// `sqlite_stat1` that is not ANALYZE's table) fails the CREATE. The
/// estimate itself is not kept: ringlite's plans use its fixed one.
fn query_stat1(conn: &mut Connection, names: &Names) -> Result<()> {
    let db = shadow::ident(&names.db);
    let exists = shadow::exec_once(conn, &format!("SELECT 1 FROM {db}.sqlite_master WHERE type = 'table' AND name = 'sqlite_stat1'"))?;
    if exists.is_empty() {
        return Ok(());
    }
    let name = names.table.replace('\'', "''");
    shadow::exec_once_any(conn, &format!("SELECT stat FROM {db}.sqlite_stat1 WHERE tbl = '{name}_rowid'")).map(|_| ())
}

struct RtreeModule {
    kind: CoordKind,
}

impl RtreeModule {
    fn open(&self, host: &mut dyn VmHost, args: &[String], create: bool) -> Result<Connected> {
        let cols = Columns::parse(args)?;
        let names = Names { db: args[1].clone(), table: args[2].clone() };
        // (xConnect runs no SQL: it may be called while a statement is
        // being compiled, a trigger body for instance; the node size is
        // read from the root at first use.)
        let node_size = if create {
            let conn = host_conn(host)?;
            let ps = shadow::exec_once(conn, &format!("PRAGMA {}.page_size", shadow::ident(&names.db)))?;
            let ps = ps.first().and_then(|r| r.first()).map_or(4096, |v| v.as_ref().to_i64()) as usize;
            let size = node::node_size(ps, cols.dims);
            schema::create_shadow(conn, &names, cols.aux.len(), size)?;
            query_stat1(conn, &names)?;
            size
        } else {
            0
        };
        let schema = cols.declaration(self.kind);
        let table = Rtree {
            stmts: StmtCache::new(&names, cols.aux.len()),
            db: names.db.clone(),
            names: Mutex::new(names),
            dims: cols.dims,
            kind: self.kind,
            node_size: AtomicUsize::new(node_size),
            cols,
            scanning: AtomicUsize::new(0),
            cache: Mutex::new(None),
            ops: AtomicU64::new(0),
            ops_done: AtomicU64::new(0),
        };
        Ok(Connected {
            table: Arc::new(RtreeTable(Arc::new(table))),
            schema,
            config: VtabConfig { constraint_support: true, innocuous: true, ..VtabConfig::default() },
        })
    }
}

impl Module for RtreeModule {
    fn create(&self, host: &mut dyn VmHost, args: &[String]) -> Result<Connected> {
        self.open(host, args, true)
    }
    fn connect(&self, host: &mut dyn VmHost, args: &[String]) -> Result<Connected> {
        self.open(host, args, false)
    }
    fn shadow_name(&self, suffix: &str) -> bool {
        ["node", "parent", "rowid"].iter().any(|s| s.eq_ci(suffix))
    }
}

/// One R*Tree table.
pub struct Rtree {
    names: Mutex<Names>,
    /// The database holding the shadow tables (fixed: a rename keeps it).
    db: String,
    /// Dimensions (1 to 5).
    pub dims: usize,
    /// Coordinate storage.
    pub kind: CoordKind,
    /// Bytes per node blob (0 until known: read from the root).
    node_size: AtomicUsize,
    cols: Columns,
    stmts: StmtCache,
    /// Cursors in the middle of a scan (writes are refused meanwhile).
    scanning: AtomicUsize,
    /// Nodes and parent links kept between calls (`store.rs`); `None`
    /// while an operation has it out.
    cache: Mutex<Option<store::NodeCache>>,
    /// Operations started (one inside another is seen by the outer one)
    /// and ended.
    ops: AtomicU64,
    ops_done: AtomicU64,
}

impl Rtree {
    fn names(&self) -> Names {
        self.names.lock().unwrap().clone()
    }

    /// `"db"."<table>_<suffix>"`.
    pub fn shadow(&self, suffix: &str) -> String {
        self.names.lock().unwrap().shadow(suffix)
    }

    /// Bytes per node blob: the root's length, as created.
    pub fn node_size(&self, conn: &mut Connection) -> Result<usize> {
        let known = self.node_size.load(Ordering::Relaxed);
        if known != 0 {
            return Ok(known);
        }
        let size = self.stmts.one(conn, Sql::NodeSize, &[])?.map_or(0, |v| v.as_ref().to_i64().max(0)) as usize;
        if size < 512 - 64 {
            return Err(Error::new(SQLITE_CORRUPT_VTAB, format!("undersize RTree blobs in \"{}_node\"", self.names().table)));
        }
        self.node_size.store(size, Ordering::Relaxed);
        Ok(size)
    }

    /// Node `n` from `%_node`.
    fn read_node_sql(&self, conn: &mut Connection, n: i64) -> Result<Node> {
        let mut data = None;
        self.stmts.run(conn, Sql::ReadNode, &[Arg::Int(n)], |s| {
            if data.is_none() {
                data = match s.column(0) {
                    Value::Blob(b) => Some(b.clone()),
                    // (Read as sqlite3_column_blob reads it: text gives its bytes.)
                    v @ Value::Text(_) => Some(v.as_ref().to_text().map(|t| t.into_owned()).unwrap_or_default()),
                    _ => None,
                }
            }
        })?;
        let Some(data) = data else { return Err(corrupt()) };
        // invariant: rtree_node_size_fixed
        if data.len() != self.node_size(conn)? {
            return Err(corrupt());
        }
        Node::parse(n, data, self.dims, self.kind)
    }

    /// The leaf holding entry `rowid`, if the entry exists.
    pub fn leaf_of(&self, conn: &mut Connection, rowid: i64) -> Result<Option<i64>> {
        Ok(self.stmts.one(conn, Sql::LeafOf, &[Arg::Int(rowid)])?.map(|v| v.as_ref().to_i64()))
    }

    fn set_leaf(&self, conn: &mut Connection, rowid: i64, leaf: i64) -> Result<()> {
        self.stmts.exec(conn, Sql::SetLeaf, &[Arg::Int(rowid), Arg::Int(leaf)])
    }

    /// The auxiliary columns of entry `rowid`.
    pub fn aux(&self, conn: &mut Connection, rowid: i64) -> Result<Vec<Value>> {
        if self.cols.aux.is_empty() {
            return Ok(Vec::new());
        }
        let mut row = None;
        self.stmts.run(conn, Sql::Aux, &[Arg::Int(rowid)], |s| {
            if row.is_none() {
                row = Some((0..s.column_count()).map(|i| s.column(i).clone()).collect());
            }
        })?;
        Ok(row.unwrap_or_else(|| vec![Value::Null; self.cols.aux.len()]))
    }

    fn delete_entry(st: &mut store::Store, rowid: i64) -> Result<()> {
        let Some(leaf) = st.rt.leaf_of(st.conn, rowid)? else { return Ok(()) };
        let mut t = tree::Tree::new(st)?;
        t.delete(rowid, leaf)?;
        st.flush()?;
        st.rt.stmts.exec(st.conn, Sql::DeleteLeaf, &[Arg::Int(rowid)])
    }

    fn insert_entry(st: &mut store::Store, cell: &Cell, aux: &[Value]) -> Result<()> {
        let mut t = tree::Tree::new(st)?;
        t.insert(cell)?;
        st.flush()?;
        if !aux.is_empty() {
            let mut args = vec![Arg::Int(cell.rowid)];
            args.extend(aux.iter().map(Arg::Value));
            st.rt.stmts.exec(st.conn, Sql::SetAux, &args)?;
        }
        Ok(())
    }

    /// The cell for a row's column values (after the id), checking that
    /// no lower bound exceeds its upper bound.
    fn cell_of(&self, rowid: i64, values: &[Value]) -> Result<Cell> {
        let mut coords = node::Coords::new();
        for (i, v) in values.iter().take(2 * self.dims).enumerate() {
            coords.push(node::coord_from_value(self.kind, v, i % 2 == 1));
        }
        for d in 0..self.dims {
            if coords[2 * d].gt(coords[2 * d + 1]) {
                let n = self.names();
                return Err(Error::new(
                    SQLITE_CONSTRAINT,
                    format!("rtree constraint failed: {}.({}<={})", n.table, self.cols.names[1 + 2 * d], self.cols.names[2 + 2 * d]),
                ));
            }
        }
        Ok(Cell { rowid, coords })
    }
}

/// The table as the engine holds it; cursors share the [`Rtree`].
struct RtreeTable(Arc<Rtree>);

impl std::ops::Deref for RtreeTable {
    type Target = Rtree;
    fn deref(&self) -> &Rtree {
        &self.0
    }
}

impl VTab for RtreeTable {
    fn best_index(&self, _host: Option<&mut dyn crate::vdbe::host::VmHost>, info: &mut IndexInfo) -> Result<()> {
        query::best_index(self, info)
    }

    fn open(&self, _host: &mut dyn VmHost) -> Result<Box<dyn VTabCursor>> {
        Ok(Box::new(query::Cursor::new(self.0.clone())))
    }

    fn destroy(&self, host: &mut dyn VmHost) -> Result<()> {
        let conn = host_conn(host)?;
        self.stmts.rename(&self.names());
        *self.cache.lock().unwrap() = None;
        for s in ["node", "parent", "rowid"] {
            shadow::exec_once(conn, &format!("DROP TABLE IF EXISTS {}", self.shadow(s)))?;
        }
        Ok(())
    }

    fn writable(&self) -> bool {
        true
    }

    fn update(&self, host: &mut dyn VmHost, args: &[Value], on_conflict: ConflictMode, _nochange: &[bool]) -> Result<Option<i64>> {
        if self.scanning.load(Ordering::Relaxed) > 0 {
            return Err(Error::code(crate::error::SQLITE_LOCKED_VTAB));
        }
        let conn = host_conn(host)?;
        let mut st = store::Store::new(self, conn);
        if args.len() == 1 {
            Rtree::delete_entry(&mut st, args[0].as_ref().to_i64())?;
            st.finish()?;
            return Ok(None);
        }
        let old = (!args[0].is_null()).then(|| args[0].as_ref().to_i64());
        let given = if !args[2].is_null() {
            Some(args[2].as_ref().to_i64())
        } else if !args[1].is_null() {
            Some(args[1].as_ref().to_i64())
        } else {
            None
        };
        // The box is checked before anything is written (under IGNORE the
        // row is skipped and must leave no trace).
        let values = &args[3..];
        let mut cell = self.cell_of(given.unwrap_or(0), values)?;
        let aux: Vec<Value> = values.iter().skip(2 * self.dims).cloned().collect();
        if let Some(id) = given {
            if old != Some(id) && self.leaf_of(st.conn, id)?.is_some() {
                if on_conflict != ON_CONFLICT_REPLACE {
                    let n = self.names();
                    return Err(Error::new(SQLITE_CONSTRAINT_PRIMARYKEY, format!("UNIQUE constraint failed: {}.{}", n.table, self.cols.names[0])));
                }
                Rtree::delete_entry(&mut st, id)?;
            }
        }
        if let Some(o) = old {
            Rtree::delete_entry(&mut st, o)?;
        }
        let rowid = match given {
            Some(id) => id,
            None => {
                self.stmts.exec(st.conn, Sql::NewRowid, &[])?;
                st.conn.last_insert_rowid()
            }
        };
        cell.rowid = rowid;
        Rtree::insert_entry(&mut st, &cell, &aux)?;
        st.finish()?;
        Ok(if old.is_none() { Some(rowid) } else { None })
    }

    fn can_rename(&self) -> bool {
        true
    }

    fn rename(&self, host: &mut dyn VmHost, new_name: &str) -> Result<()> {
        let conn = host_conn(host)?;
        *self.cache.lock().unwrap() = None;
        let old = self.names();
        // (No statement on the old names outlives them.)
        self.stmts.rename(&old);
        for s in ["node", "parent", "rowid"] {
            let sql = format!("ALTER TABLE {} RENAME TO {}", old.shadow(s), shadow::ident(&format!("{new_name}_{s}")));
            shadow::exec_once(conn, &sql)?;
        }
        self.names.lock().unwrap().table = new_name.to_string();
        self.stmts.rename(&self.names());
        Ok(())
    }

    fn has_integrity(&self) -> bool {
        true
    }

    fn integrity(&self, host: &mut dyn VmHost, schema: &str, table: &str, _flags: i32) -> Result<Option<String>> {
        let conn = host_conn(host)?;
        let report = check::check(conn, schema, table)?;
        Ok(if report == "ok" { None } else { Some(format!("In RTree {schema}.{table}:\n{report}")) })
    }
}
