//! # Changegroups: combining changesets (and `sqlite3changeset_concat`)
//!
//! A [`ChangeGroup`] holds at most one change per table and row key, the
//! sum of all changes added for that row (the combination table of
//! `sqlite3changegroup_add`'s documentation). Tables keep the order in
//! which they first appeared; within a table the bucket table
//! (`buckets.rs`) orders the changes as SQLite's does.
//!
//! Invariants: every change of a table has that table's width; a group
//! holds changesets or patchsets, never both (`patchset` is fixed by the
//! first input with a change) (checked: changegroup_shape).

use super::buckets::Buckets;
use super::format::{read_all, write_change, write_table, Change, Item, Table, OP_DELETE, OP_INSERT, OP_UPDATE};
use super::value::{key_hash, same, same_value, Field};
use crate::error::{Error, Result, SQLITE_ERROR, SQLITE_SCHEMA};
use crate::util::ascii::AsciiLower;
use std::sync::Arc;

struct GroupTable {
    table: Arc<Table>,
    changes: Buckets<Change>,
}

/// A changegroup (`sqlite3_changegroup`).
#[derive(Default)]
pub struct ChangeGroup {
    tables: Vec<GroupTable>,
    /// `Some(true)` once patchsets were added, `Some(false)` changesets.
    pub patchset: Option<bool>,
    /// The change being built by `sqlite3changegroup_change_*`.
    building: Option<(Arc<Table>, Change)>,
    /// `sqlite3changegroup_schema`: the database's tables, which the
    /// changes must match and are widened to.
    schema: Option<SchemaLookup>,
}

/// A table's shape in the database a changegroup follows: key positions
/// and column defaults, `None` when there is no such table.
pub type SchemaLookup = Box<dyn FnMut(&str) -> Result<Option<(Vec<u8>, Vec<crate::value::Value>)>> + Send>;

impl ChangeGroup {
    /// `sqlite3changegroup_add`: every change of a changeset.
    pub fn add(&mut self, buf: &[u8]) -> Result<()> {
        let items = read_all(buf, false)?;
        for it in items {
            self.add_item(it)?;
        }
        Ok(())
    }

    /// Add one change (`sqlite3changegroup_add_change`).
    pub fn add_item(&mut self, mut it: Item) -> Result<()> {
        // invariant: changegroup_shape
        match self.patchset {
            Some(p) if p != it.patchset => return Err(Error::code(SQLITE_ERROR)),
            _ => self.patchset = Some(it.patchset),
        }
        if self.schema.is_some() {
            self.conform(&mut it)?;
        }
        let ti = match self.tables.iter().position(|t| t.table.name.eq_ci(&it.table.name)) {
            Some(i) => {
                // invariant: changegroup_shape
                if self.tables[i].table.pk != it.table.pk {
                    return Err(Error::code(SQLITE_SCHEMA));
                }
                i
            }
            None => {
                self.tables.push(GroupTable { table: it.table.clone(), changes: Buckets::default() });
                self.tables.len() - 1
            }
        };
        let patchset = it.patchset;
        let gt = &mut self.tables[ti];
        let table = gt.table.clone();
        let key: Vec<_> = it.change.key(&table).into_iter().cloned().collect();
        let Some(h) = key_hash(&key.iter().collect::<Vec<_>>()) else {
            return Ok(());
        };
        gt.changes.grow_if_due();
        let is = |c: &Change| c.key(&table).iter().zip(&key).all(|(a, b)| same_value(a, b));
        // (A combined change moves to the head of its chain, as in
        // SQLite's output order.)
        let Some(existing) = gt.changes.remove(h, is) else {
            gt.changes.push(h, it.change);
            return Ok(());
        };
        if let Some(c) = combine(&table, patchset, &existing, it.change) {
            gt.changes.push(h, c);
        }
        Ok(())
    }

    /// Whether no change was added.
    pub fn is_empty(&self) -> bool {
        self.tables.iter().all(|t| t.changes.is_empty())
    }

    /// `sqlite3changegroup_output`.
    pub fn output(&self) -> Vec<u8> {
        let patchset = self.patchset.unwrap_or(false);
        let mut out = Vec::new();
        for t in &self.tables {
            if t.changes.is_empty() {
                continue;
            }
            write_table(&mut out, patchset, &t.table);
            for c in t.changes.iter() {
                write_change(&mut out, patchset, &t.table, c);
            }
        }
        out
    }

    /// The changes in output order.
    pub fn items(&self) -> Vec<Item> {
        let patchset = self.patchset.unwrap_or(false);
        self.tables.iter().flat_map(|t| t.changes.iter().map(move |c| Item { table: t.table.clone(), patchset, change: c.clone() })).collect()
    }
}

impl ChangeGroup {
    /// `sqlite3changegroup_schema`: follow a database's schema (only
    /// before any change was added: `SQLITE_MISUSE` after).
    pub fn set_schema(&mut self, lookup: SchemaLookup) -> Result<()> {
        if !self.is_empty() || self.schema.is_some() {
            return Err(Error::code(crate::error::SQLITE_MISUSE));
        }
        self.schema = Some(lookup);
        Ok(())
    }

    /// Check `it` against the database's table and widen it to that
    /// table's columns (defaults for rows, undefined for UPDATEs).
    fn conform(&mut self, it: &mut Item) -> Result<()> {
        let Some(lookup) = self.schema.as_mut() else {
            return Ok(());
        };
        let known = self.tables.iter().find(|t| t.table.name.eq_ci(&it.table.name)).map(|t| t.table.clone());
        let (table, defaults) = match known {
            Some(t) if t.width() == it.table.width() => return Ok(()),
            _ => {
                // (No such table is SQLITE_ERROR; one of another shape SQLITE_SCHEMA.)
                let Some((pk, defaults)) = lookup(&it.table.name)? else {
                    return Err(Error::code(SQLITE_ERROR));
                };
                let w = it.table.width();
                if pk.len() < w || (0..pk.len()).any(|i| (pk[i] != 0) != it.table.is_key(i)) {
                    return Err(Error::code(SQLITE_SCHEMA));
                }
                (Arc::new(Table { name: it.table.name.clone(), pk }), defaults)
            }
        };
        let w = table.width();
        let c = &mut it.change;
        let fill = |row: &mut Vec<Field>, with_defaults: bool| {
            while !row.is_empty() && row.len() < w {
                let d = with_defaults.then(|| defaults.get(row.len()).cloned().unwrap_or(crate::value::Value::Null));
                row.push(d);
            }
        };
        fill(&mut c.old, c.op == OP_DELETE);
        fill(&mut c.new, c.op == OP_INSERT);
        it.table = table;
        Ok(())
    }

    /// `sqlite3changegroup_change_begin`: start building a change of a
    /// table the group already knows.
    pub fn change_begin(&mut self, op: i32, table: &str, indirect: bool) -> Result<()> {
        if self.building.is_some() {
            return Err(Error::code(crate::error::SQLITE_MISUSE));
        }
        if ![OP_INSERT, OP_UPDATE, OP_DELETE].contains(&op) {
            return Err(Error::new(SQLITE_ERROR, format!("unknown operation: {op}")));
        }
        let Some(t) = self.tables.iter().find(|t| t.table.name == table) else {
            return Err(Error::new(SQLITE_ERROR, format!("no schema for table: {table}")));
        };
        let w = t.table.width();
        let old = if op == OP_INSERT { Vec::new() } else { vec![None; w] };
        let new = if op == OP_DELETE { Vec::new() } else { vec![None; w] };
        self.building = Some((t.table.clone(), Change { op, indirect, old, new }));
        Ok(())
    }

    /// `sqlite3changegroup_change_int64` and the other value setters.
    pub fn change_value(&mut self, new: bool, col: i32, v: crate::value::Value) -> Result<()> {
        let Some((t, c)) = self.building.as_mut() else {
            return Err(Error::code(crate::error::SQLITE_MISUSE));
        };
        if (new && c.op == OP_DELETE) || (!new && c.op == OP_INSERT) {
            return Err(Error::code(SQLITE_ERROR));
        }
        let i = usize::try_from(col).ok().filter(|i| *i < t.width()).ok_or_else(|| Error::code(crate::error::SQLITE_RANGE))?;
        if new {
            c.new[i] = Some(v);
        } else {
            c.old[i] = Some(v);
        }
        Ok(())
    }

    /// `sqlite3changegroup_change_finish`: add the change built (checked
    /// as the documentation requires), or drop it.
    pub fn change_finish(&mut self, discard: bool) -> Result<()> {
        // (Nothing begun: nothing to do, as SQLite answers.)
        let Some((t, c)) = self.building.take() else {
            return Ok(());
        };
        if discard {
            return Ok(());
        }
        let patchset = self.patchset.unwrap_or(false);
        let w = t.width();
        let key_row = if c.op == OP_INSERT { &c.new } else { &c.old };
        let mut bad = (0..w).filter(|i| t.is_key(*i)).any(|i| !matches!(&key_row[i], Some(v) if !matches!(v, crate::value::Value::Null)));
        bad |= match c.op {
            OP_INSERT => c.new.iter().any(Option::is_none),
            OP_DELETE => !patchset && c.old.iter().any(Option::is_none),
            _ => (0..w).any(|i| if t.is_key(i) { c.new[i].is_some() } else { !patchset && c.old[i].is_some() != c.new[i].is_some() }),
        };
        if bad {
            return Err(Error::new(SQLITE_ERROR, "invalid change: values missing or misplaced"));
        }
        self.add_item(Item { table: t, patchset, change: c })
    }
}

/// The change equal to `e` followed by `n` (same row); `None` when they
/// cancel out.
fn combine(t: &Table, patchset: bool, e: &Change, n: Change) -> Option<Change> {
    let w = t.width();
    let indirect = e.indirect && n.indirect;
    let get = |row: &Vec<Field>, i: usize| row.get(i).cloned().flatten();
    match (e.op, n.op) {
        (OP_INSERT, OP_INSERT) | (OP_UPDATE, OP_INSERT) | (OP_DELETE, OP_UPDATE) | (OP_DELETE, OP_DELETE) => Some(e.clone()),
        (OP_INSERT, OP_DELETE) => None,
        (OP_INSERT, OP_UPDATE) => {
            let new = (0..w).map(|i| get(&n.new, i).or_else(|| get(&e.new, i))).collect();
            Some(Change { op: OP_INSERT, indirect, old: Vec::new(), new })
        }
        (OP_UPDATE, OP_DELETE) => {
            let old = if patchset { n.old } else { (0..w).map(|i| get(&e.old, i).or_else(|| get(&n.old, i))).collect() };
            Some(Change { op: OP_DELETE, indirect, old, new: Vec::new() })
        }
        (OP_UPDATE, OP_UPDATE) => {
            let mut old: Vec<Field> = Vec::with_capacity(w);
            let mut new: Vec<Field> = Vec::with_capacity(w);
            let mut any = false;
            for i in 0..w {
                if t.is_key(i) {
                    old.push(get(&e.old, i));
                    new.push(None);
                    continue;
                }
                let nv = get(&n.new, i).or_else(|| get(&e.new, i));
                let ov = if patchset { None } else { get(&e.old, i).or_else(|| get(&n.old, i)) };
                if nv.is_some() && !patchset && same(&nv, &ov) {
                    old.push(None);
                    new.push(None);
                } else {
                    any |= nv.is_some();
                    old.push(if nv.is_some() { ov } else { None });
                    new.push(nv);
                }
            }
            any.then_some(Change { op: OP_UPDATE, indirect, old, new })
        }
        (OP_DELETE, OP_INSERT) => {
            let mut old: Vec<Field> = Vec::with_capacity(w);
            let mut new: Vec<Field> = Vec::with_capacity(w);
            let mut any = false;
            for i in 0..w {
                let (o, nv) = (get(&e.old, i), get(&n.new, i));
                if t.is_key(i) {
                    old.push(o);
                    new.push(None);
                } else if !patchset && same(&o, &nv) {
                    old.push(None);
                    new.push(None);
                } else {
                    any = true;
                    old.push(o);
                    new.push(nv);
                }
            }
            any.then_some(Change { op: OP_UPDATE, indirect, old, new })
        }
        _ => Some(e.clone()),
    }
}

/// `sqlite3changeset_concat`.
pub fn concat(a: &[u8], b: &[u8]) -> Result<Vec<u8>> {
    let mut g = ChangeGroup::default();
    g.add(a)?;
    g.add(b)?;
    Ok(g.output())
}
