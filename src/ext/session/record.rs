//! # A session: recording changes
//!
//! A [`Session`] watches one database of a connection (told of each row
//! change by the pre-update hook, [`Session::on_change`]) and remembers,
//! per table and per row key, the first thing it saw: the key of a row
//! inserted, or the whole row as it was before an update or delete. The
//! changeset is made later from these records and the rows as they are
//! then (`output.rs`), so a row changed twice is recorded once.
//!
//! Tables are kept in the order they were attached (explicitly or on
//! their first change when all tables, or a filter, were asked for):
//! that is the order of the output. A table without a PRIMARY KEY, and a
//! row with a NULL in its key, are ignored, except that `sqlite_stat1` is
//! keyed by (tbl, idx) with a NULL idx kept as X'', and that under
//! `SQLITE_SESSION_OBJCONFIG_ROWID` a table without a key is keyed by its
//! rowid, a leading "_rowid_" column (hashed as SQLite does, without a
//! type code). Columns added while recording are filled with their
//! defaults in the rows recorded before. A change is indirect when the
//! session's flag is set or a trigger made it; a record stays direct once
//! one of its changes was direct.
//!
//! Invariant: a record's `old` has the table's width (checked:
//! session_record_width); records live in the bucket chain of their key's
//! hash.

use super::buckets::Buckets;
use super::sql;
use super::value::{key_hash, rowid_hash, same_value};
use crate::connection::Connection;
use crate::error::Result;
use crate::util::ascii::AsciiLower;
use crate::value::affinity::real_affinity;
use crate::value::Value;
use crate::vdbe::exec::preupdate::PreUpdate;

const SQLITE_INSERT: i32 = 18;
const SQLITE_DELETE: i32 = 9;

/// What a session remembers of one row.
pub struct Record {
    /// The row did not exist when first seen (an INSERT).
    pub inserted: bool,
    /// Every change seen was indirect.
    pub indirect: bool,
    /// The row when first seen (after the INSERT, before anything else).
    pub old: Vec<Value>,
}

/// One attached table.
pub struct SessionTable {
    /// Its name as attached (or as written, when auto-attached).
    pub name: String,
    /// Column names and key positions, once known; `Some((_, pk))` with
    /// no key column for a table that is ignored.
    pub shape: Option<(Vec<String>, Vec<u8>)>,
    /// Columns of REAL affinity (see `sql::real_columns`).
    pub real: Vec<bool>,
    /// A table without a PRIMARY KEY recorded under
    /// `SQLITE_SESSION_OBJCONFIG_ROWID`: its rowid is a leading key
    /// column "_rowid_".
    pub implicit_rowid: bool,
    /// Records by key.
    pub records: Buckets<Record>,
}

impl SessionTable {
    /// Read the table's shape (again, after columns were added): rows
    /// recorded before get the new columns' defaults.
    pub fn load(&mut self, conn: &mut Connection, db: &str, rowid: bool) -> Result<()> {
        let mut shape = sql::session_shape(conn, db, &self.name)?.unwrap_or_default();
        self.implicit_rowid = rowid && !shape.1.is_empty() && shape.1.iter().all(|p| *p == 0);
        let lead = usize::from(self.implicit_rowid);
        if self.implicit_rowid {
            shape.0.insert(0, "_rowid_".to_string());
            shape.1.insert(0, 1);
        }
        let width = shape.1.len();
        if self.records.iter().any(|r| r.old.len() < width) {
            let mut defaults = sql::column_defaults(conn, db, &self.name)?;
            if lead == 1 {
                defaults.insert(0, Value::Null);
            }
            for r in self.records.iter_mut() {
                while r.old.len() < width {
                    r.old.push(defaults.get(r.old.len()).cloned().unwrap_or(Value::Null));
                }
            }
        }
        self.real = sql::real_columns(conn, db, &self.name)?;
        if lead == 1 {
            self.real.insert(0, false);
        }
        self.shape = Some(shape);
        Ok(())
    }

    /// Reload the shape if the table now has `width` columns.
    pub fn refresh(&mut self, conn: &mut Connection, db: &str, width: usize, rowid: bool) -> Result<()> {
        let lead = usize::from(self.implicit_rowid);
        match &self.shape {
            Some((_, pk)) if pk.len() == width + lead => Ok(()),
            _ => self.load(conn, db, rowid),
        }
    }

    fn has_key(&self) -> bool {
        self.shape.as_ref().is_some_and(|(_, pk)| pk.iter().any(|p| *p != 0))
    }
}

/// Decides whether a table not attached yet is recorded.
pub type TableFilter = Box<dyn FnMut(&str) -> bool + Send>;

/// A session object (`sqlite3_session`).
pub struct Session {
    /// The schema name watched ("main", "temp", an attached one).
    pub db: String,
    /// Recording is on.
    pub enabled: bool,
    /// Changes are marked indirect.
    pub indirect: bool,
    /// `sqlite3session_attach(NULL)`: every table.
    pub all_tables: bool,
    /// Tables in attach order.
    pub tables: Vec<SessionTable>,
    /// `sqlite3session_table_filter`.
    pub filter: Option<TableFilter>,
    /// `SQLITE_SESSION_OBJCONFIG_SIZE`: changeset_size answers.
    pub size_enabled: bool,
    /// `SQLITE_SESSION_OBJCONFIG_ROWID`: tables without a PRIMARY KEY
    /// are recorded, keyed by their rowid.
    pub rowid_tables: bool,
}

impl Session {
    /// A new, enabled session on schema `db`.
    pub fn new(db: &str) -> Session {
        Session {
            db: db.to_string(),
            enabled: true,
            indirect: false,
            all_tables: false,
            tables: Vec::new(),
            filter: None,
            size_enabled: false,
            rowid_tables: false,
        }
    }

    /// `sqlite3session_attach`: `None` for every table.
    pub fn attach(&mut self, table: Option<&str>) {
        match table {
            None => self.all_tables = true,
            Some(t) => {
                if self.find(t).is_none() {
                    self.tables.push(SessionTable { name: t.to_string(), shape: None, real: Vec::new(), implicit_rowid: false, records: Buckets::default() });
                }
            }
        }
    }

    fn find(&self, name: &str) -> Option<usize> {
        self.tables.iter().position(|t| t.name.eq_ci(name))
    }

    /// Bytes the records hold, roughly (`sqlite3session_memory_used`).
    pub fn memory_used(&self) -> usize {
        let value = |v: &Value| {
            16 + match v {
                Value::Text(t) | Value::Blob(t) => t.len(),
                _ => 0,
            }
        };
        self.tables.iter().map(|t| 64 + t.records.iter().map(|r| 32 + r.old.iter().map(value).sum::<usize>()).sum::<usize>()).sum()
    }

    /// Whether nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.tables.iter().all(|t| t.records.is_empty())
    }

    /// The table to record a change of `name` in, attaching it if the
    /// session takes every table or its filter says so.
    fn table_for(&mut self, conn: &mut Connection, name: &str) -> Result<Option<usize>> {
        let i = match self.find(name) {
            Some(i) => i,
            None => {
                let wanted = match self.filter.as_mut() {
                    Some(f) => f(name),
                    None => self.all_tables,
                };
                if !wanted {
                    return Ok(None);
                }
                self.tables.push(SessionTable { name: name.to_string(), shape: None, real: Vec::new(), implicit_rowid: false, records: Buckets::default() });
                self.tables.len() - 1
            }
        };
        if self.tables[i].shape.is_none() {
            let db = self.db.clone();
            let rowid = self.rowid_tables;
            self.tables[i].load(conn, &db, rowid)?;
        }
        Ok(Some(i))
    }

    /// Told by the pre-update hook of a change about to be made.
    pub fn on_change(&mut self, conn: &mut Connection, ev: &PreUpdate<'_>) -> Result<()> {
        if !self.enabled || !ev.db.eq_ci(&self.db) {
            return Ok(());
        }
        let Some(ti) = self.table_for(conn, ev.table)? else {
            return Ok(());
        };
        let indirect = self.indirect || ev.depth > 0;
        let db = self.db.clone();
        let rowid = self.rowid_tables;
        let t = &mut self.tables[ti];
        if let Some(w) = ev.old.as_ref().or(ev.new.as_ref()).map(Vec::len) {
            t.refresh(conn, &db, w, rowid)?;
        }
        // (The rowid leads the row of a table keyed by it.)
        let lead = |row: &Option<Vec<Value>>, key: i64| {
            row.as_ref().map(|r| {
                let mut r = r.clone();
                if t.implicit_rowid {
                    r.insert(0, Value::Integer(key));
                }
                r
            })
        };
        let (ev_old, ev_new) = (lead(&ev.old, ev.key1), lead(&ev.new, ev.key2));
        if !t.has_key() {
            return Ok(());
        }
        let pk = t.shape.as_ref().map(|(_, pk)| pk.clone()).unwrap_or_default();
        if ev_old.as_ref().or(ev_new.as_ref()).is_some_and(|r| r.len() != pk.len()) {
            return Ok(());
        }
        let real = |row: &Option<Vec<Value>>| {
            row.as_ref().map(|r| {
                r.iter()
                    .zip(t.real.iter().chain(std::iter::repeat(&false)))
                    .map(|(v, re)| if *re { real_affinity(v.clone()) } else { v.clone() })
                    .collect::<Vec<_>>()
            })
        };
        let (mut old, mut new) = (real(&ev_old), real(&ev_new));
        if sql::is_stat1(&t.name) {
            old = old.map(sql::stat1_row);
            new = new.map(sql::stat1_row);
        }
        match ev.op {
            SQLITE_INSERT => note(t, &pk, new.as_deref(), true, indirect),
            SQLITE_DELETE => note(t, &pk, old.as_deref(), false, indirect),
            _ => {
                let moved = match (old.as_deref(), new.as_deref()) {
                    (Some(o), Some(n)) => key_of(&pk, o).iter().zip(key_of(&pk, n)).any(|(a, b)| !same_value(a, b)),
                    _ => false,
                };
                note(t, &pk, old.as_deref(), false, indirect);
                if moved {
                    note(t, &pk, new.as_deref(), true, indirect);
                }
            }
        }
        Ok(())
    }
}

/// The key values of `row`, in column order.
pub fn key_of<'a>(pk: &[u8], row: &'a [Value]) -> Vec<&'a Value> {
    row.iter().zip(pk).filter(|(_, p)| **p != 0).map(|(v, _)| v).collect()
}

fn note(t: &mut SessionTable, pk: &[u8], row: Option<&[Value]>, inserted: bool, indirect: bool) {
    let Some(row) = row else { return };
    let key = key_of(pk, row);
    let h = match (t.implicit_rowid, key.first()) {
        (true, Some(Value::Integer(r))) => rowid_hash(*r),
        _ => match key_hash(&key) {
            Some(h) => h,
            None => return,
        },
    };
    t.records.grow_if_due();
    let is_same = |r: &Record| key_of(pk, &r.old).iter().zip(&key).all(|(a, b)| same_value(a, b));
    if let Some(r) = t.records.find_mut(h, is_same) {
        r.indirect &= indirect;
        return;
    }
    // invariant: session_record_width
    debug_assert_eq!(row.len(), pk.len(), "a session record of another width than its table");
    t.records.push(h, Record { inserted, indirect, old: row.to_vec() });
}
