//! # The shadow tables of one R*Tree, read and written with SQL
//!
//! `%_node(nodeno INTEGER PRIMARY KEY, data)` holds the node blobs,
//! `%_rowid(rowid INTEGER PRIMARY KEY, nodeno, a0, a1, ..)` maps an entry
//! to its leaf and holds its auxiliary columns, `%_parent(nodeno INTEGER
//! PRIMARY KEY, parentnode)` maps every node but the root to its parent.
//! These are the statements SQLite's format fixes; everything here goes
//! through the connection lent to the calling method, so the writes share
//! the caller's transaction and statement savepoint.
//!
//! The statements a table runs are a fixed set ([`Sql`]): their texts are
//! made once (again after a rename) and each is prepared at its first use
//! and kept in its slot, so a call formats, hashes and allocates nothing
//! to find its statement; blobs are bound by copying into the buffer the
//! parameter already holds.
//!
//! Invariant: a statement taken from its slot is put back reset, also
//! when stepping it failed (checked: rtree_slot_reset); while it is out
//! (a nested call of the same statement) the nested call prepares its own.

use crate::connection::{Connection, Statement, StepResult};
use crate::error::{Error, Result};
use crate::value::Value;
use std::sync::Mutex;

/// Quote `s` as an SQL identifier.
pub fn ident(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\"\""))
}

/// The names one R*Tree's SQL uses.
#[derive(Debug, Clone)]
pub struct Names {
    /// Database name (`main`, `temp`, an attached name).
    pub db: String,
    /// Virtual table name.
    pub table: String,
}

impl Names {
    /// `"db"."<table>_<suffix>"`.
    pub fn shadow(&self, suffix: &str) -> String {
        format!("{}.{}", ident(&self.db), ident(&format!("{}_{}", self.table, suffix)))
    }
}

/// The statements of one table, by what they do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sql {
    /// `length(data)` of the root: the node size.
    NodeSize,
    /// A node's blob.
    ReadNode,
    /// Write a node's blob (insert or replace).
    WriteNode,
    /// Take a new node number (NULL key, SQLite's way).
    NewNode,
    /// Remove a node.
    DeleteNode,
    /// The leaf of an entry.
    LeafOf,
    /// Set the leaf of an entry (its auxiliary columns kept).
    SetLeaf,
    /// Remove an entry's row.
    DeleteLeaf,
    /// Take a new entry rowid.
    NewRowid,
    /// An entry's auxiliary columns.
    Aux,
    /// Set an entry's auxiliary columns.
    SetAux,
    /// A node's parent.
    ParentOf,
    /// Set a node's parent.
    SetParent,
    /// Remove a node's parent entry.
    DeleteParent,
}

const SQL_COUNT: usize = Sql::DeleteParent as usize + 1;

/// The text of every [`Sql`] for a table with `n_aux` auxiliary columns.
fn texts(names: &Names, n_aux: usize) -> Vec<String> {
    let (node, rowid, parent) = (names.shadow("node"), names.shadow("rowid"), names.shadow("parent"));
    let aux_list: Vec<String> = (0..n_aux).map(|i| format!("a{i}")).collect();
    let aux_sets: Vec<String> = (0..n_aux).map(|i| format!("a{i} = ?{}", i + 2)).collect();
    let all = [
        (Sql::NodeSize, format!("SELECT length(data) FROM {node} WHERE nodeno = 1")),
        (Sql::ReadNode, format!("SELECT data FROM {node} WHERE nodeno = ?1")),
        (Sql::WriteNode, format!("INSERT OR REPLACE INTO {node}(nodeno, data) VALUES(?1, ?2)")),
        (Sql::NewNode, format!("INSERT INTO {node}(nodeno, data) VALUES(NULL, ?1)")),
        (Sql::DeleteNode, format!("DELETE FROM {node} WHERE nodeno = ?1")),
        (Sql::LeafOf, format!("SELECT nodeno FROM {rowid} WHERE rowid = ?1")),
        // (With auxiliary columns an entry's row is updated, keeping them.)
        (
            Sql::SetLeaf,
            if n_aux == 0 {
                format!("INSERT OR REPLACE INTO {rowid}(rowid, nodeno) VALUES(?1, ?2)")
            } else {
                format!("INSERT INTO {rowid}(rowid, nodeno) VALUES(?1, ?2) ON CONFLICT(rowid) DO UPDATE SET nodeno = excluded.nodeno")
            },
        ),
        (Sql::DeleteLeaf, format!("DELETE FROM {rowid} WHERE rowid = ?1")),
        (Sql::NewRowid, format!("INSERT INTO {rowid}(rowid, nodeno) VALUES(NULL, NULL)")),
        (Sql::Aux, format!("SELECT {} FROM {rowid} WHERE rowid = ?1", if n_aux == 0 { "NULL".to_string() } else { aux_list.join(",") })),
        (Sql::SetAux, format!("UPDATE {rowid} SET {} WHERE rowid = ?1", if n_aux == 0 { "nodeno = nodeno".to_string() } else { aux_sets.join(", ") })),
        (Sql::ParentOf, format!("SELECT parentnode FROM {parent} WHERE nodeno = ?1")),
        (Sql::SetParent, format!("INSERT OR REPLACE INTO {parent}(nodeno, parentnode) VALUES(?1, ?2)")),
        (Sql::DeleteParent, format!("DELETE FROM {parent} WHERE nodeno = ?1")),
    ];
    debug_assert!(all.iter().enumerate().all(|(i, (s, _))| *s as usize == i) && all.len() == SQL_COUNT);
    all.into_iter().map(|(_, t)| t).collect()
}

/// A parameter to bind.
#[derive(Clone, Copy)]
pub enum Arg<'a> {
    /// An integer.
    Int(i64),
    /// A blob, copied into the parameter's buffer.
    Bytes(&'a [u8]),
    /// Any value.
    Value(&'a Value),
}

struct Slots {
    texts: Vec<String>,
    stmts: Vec<Option<Statement>>,
}

/// The prepared statements of one table.
pub struct StmtCache {
    n_aux: usize,
    slots: Mutex<Slots>,
}

impl StmtCache {
    /// The statements of table `names` with `n_aux` auxiliary columns.
    pub fn new(names: &Names, n_aux: usize) -> StmtCache {
        let slots = Slots { texts: texts(names, n_aux), stmts: (0..SQL_COUNT).map(|_| None).collect() };
        StmtCache { n_aux, slots: Mutex::new(slots) }
    }

    /// Run statement `which` with `args`, handing each result row to
    /// `row`.
    pub fn run(&self, conn: &mut Connection, which: Sql, args: &[Arg], mut row: impl FnMut(&Statement)) -> Result<()> {
        let (cached, text) = {
            let mut s = self.slots.lock().unwrap();
            match s.stmts[which as usize].take() {
                Some(st) => (Some(st), None),
                None => (None, Some(s.texts[which as usize].clone())),
            }
        };
        let mut stmt = match cached {
            Some(s) => s,
            // A shadow table that is missing or not as created: the tree
            // is damaged (SQLite says so, not what the SQL said).
            // (Unless it fails only for reaching a virtual table, from a
            // trigger on a shadow table: that error is reported as is.)
            None => {
                self.prime(conn, which)?;
                let sql = text.as_deref().unwrap_or("");
                match prepare(conn, sql) {
                    Ok(s) => s,
                    Err(e) => {
                        let plain = conn.prepare_terminated(sql.as_bytes()).is_ok_and(|(s, _)| s.is_some());
                        return Err(if plain { e } else { super::corrupt() });
                    }
                }
            }
        };
        let out = step_all(conn, &mut stmt, args, &mut row).map_err(|e| if e.primary() == crate::error::SQLITE_ERROR { super::corrupt() } else { e });
        stmt.reset(conn);
        // invariant: rtree_slot_reset
        debug_assert!(!stmt.busy(), "an r-tree statement put back unreset");
        self.slots.lock().unwrap().stmts[which as usize] = Some(stmt);
        out
    }

    /// Prepare the statements not yet prepared (but `skip`), as SQLite
    /// prepares them all when it connects: one that fails only for
    /// reaching a virtual table (a trigger on a shadow table) fails
    /// whichever statement runs first. Other failures are left for the
    /// statement's own run to report.
    fn prime(&self, conn: &mut Connection, skip: Sql) -> Result<()> {
        let todo: Vec<(usize, String)> = {
            let s = self.slots.lock().unwrap();
            (0..SQL_COUNT).filter(|&i| i != skip as usize && s.stmts[i].is_none()).map(|i| (i, s.texts[i].clone())).collect()
        };
        for (i, sql) in todo {
            match prepare(conn, &sql) {
                Ok(st) => self.slots.lock().unwrap().stmts[i] = Some(st),
                Err(e) => {
                    if conn.prepare_terminated(sql.as_bytes()).is_ok_and(|(s, _)| s.is_some()) {
                        return Err(e);
                    }
                }
            }
        }
        Ok(())
    }

    /// Run statement `which` for its effect.
    pub fn exec(&self, conn: &mut Connection, which: Sql, args: &[Arg]) -> Result<()> {
        self.run(conn, which, args, |_| {})
    }

    /// The first column of the first row, if any.
    pub fn one(&self, conn: &mut Connection, which: Sql, args: &[Arg]) -> Result<Option<Value>> {
        let mut out = None;
        self.run(conn, which, args, |s| {
            if out.is_none() {
                out = Some(s.column(0).clone());
            }
        })?;
        Ok(out)
    }

    /// Forget every statement and make the texts for the table's new
    /// names (it was renamed; or dropped).
    pub fn rename(&self, names: &Names) {
        let mut s = self.slots.lock().unwrap();
        s.texts = texts(names, self.n_aux);
        s.stmts.iter_mut().for_each(|x| *x = None);
    }
}

fn prepare(conn: &mut Connection, sql: &str) -> Result<Statement> {
    match conn.prepare_no_vtab(sql.as_bytes())? {
        (Some(s), _) => Ok(s),
        (None, _) => Err(Error::sql("empty statement")),
    }
}

fn step_all(conn: &mut Connection, stmt: &mut Statement, args: &[Arg], row: &mut dyn FnMut(&Statement)) -> Result<()> {
    for (i, a) in args.iter().enumerate() {
        match *a {
            Arg::Int(v) => stmt.bind(i + 1, Value::Integer(v))?,
            Arg::Bytes(b) => stmt.bind_bytes(i + 1, false, b)?,
            Arg::Value(v) => stmt.bind(i + 1, v.clone())?,
        }
    }
    loop {
        match stmt.step(conn)? {
            StepResult::Row => row(stmt),
            StepResult::Done => return Ok(()),
            // (Nested statements complete their I/O blocking.)
            StepResult::Io => return Err(Error::code(crate::error::SQLITE_IOERR)),
        }
    }
}

/// Run a statement that is used once (schema changes), all rows.
pub fn exec_once(conn: &mut Connection, sql: &str) -> Result<Vec<Vec<Value>>> {
    let stmt = prepare(conn, sql)?;
    run_once(conn, stmt)
}

/// [`exec_once`] for a statement that may read virtual tables: SQLite
/// prepares its `sqlite_stat1` query without `SQLITE_PREPARE_NO_VTAB`, so
/// a virtual table of that name answers it (and fails it with its own
/// error).
pub fn exec_once_any(conn: &mut Connection, sql: &str) -> Result<Vec<Vec<Value>>> {
    match conn.prepare(sql.as_bytes())? {
        (Some(stmt), _) => run_once(conn, stmt),
        (None, _) => Err(Error::sql("empty statement")),
    }
}

fn run_once(conn: &mut Connection, mut stmt: Statement) -> Result<Vec<Vec<Value>>> {
    let mut rows = Vec::new();
    let out = step_all(conn, &mut stmt, &[], &mut |s| rows.push((0..s.column_count()).map(|i| s.column(i).clone()).collect()));
    stmt.reset(conn);
    out.map(|()| rows)
}
