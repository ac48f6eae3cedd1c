//! One schema over several databases (main, temp, attached): building
//! the merged [`Schema`] a statement compiles against, keeping it current
//! as rows are appended or deleted, and the lookups by database.
//!
//! Invariant: an unqualified name's key holds the object of the first
//! database in SQLite's search order (temp, main, then attached ones in
//! attach order); every object it hides is kept under its shadowed key
//! (`name\0db`), so it stays reachable by database (`table_in`,
//! `index_in`) and becomes visible again when the one hiding it goes
//! (checked: merged_search_order).

use super::{Index, IndexColumn, Schema, SchemaRow, Table};
use crate::util::ascii::AsciiLower;
use sqlite3_parser::ast;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Key under which a merged schema keeps an object of database `db` that
/// an object of the same name in a database searched earlier hides (the
/// visible one is keyed by its plain lower-case name).
fn shadowed_key(name: &str, db: usize) -> String {
    format!("{}\0{db}", name.ascii_lower())
}

/// A table or index: the database it belongs to, which a merged schema
/// sets on its copy.
trait InDatabase: Clone {
    fn db(&self) -> usize;
    fn set_db(&mut self, db: usize);
}

impl InDatabase for Table {
    fn db(&self) -> usize {
        self.db
    }
    fn set_db(&mut self, db: usize) {
        self.db = db;
    }
}

impl InDatabase for Index {
    fn db(&self) -> usize {
        self.db
    }
    fn set_db(&mut self, db: usize) {
        self.db = db;
    }
}

/// `o` as an object of database `db` (shared when it already says so).
fn in_db<T: InDatabase>(o: &Arc<T>, db: usize) -> Arc<T> {
    if o.db() == db {
        return o.clone();
    }
    let mut copy = T::clone(o);
    copy.set_db(db);
    Arc::new(copy)
}

/// SQLite's search order of unqualified names over `n` databases (temp,
/// main, then attached ones in attach order), without `except`.
fn search_order(n: usize, except: Option<usize>) -> Vec<usize> {
    [1, 0].into_iter().chain(2..n).filter(|&i| i < n && Some(i) != except).collect()
}

/// Position of database `db` in [`search_order`].
fn search_rank(db: usize) -> usize {
    match db {
        1 => 0,
        0 => 1,
        d => d,
    }
}

/// Add `o` to a merged schema's map under `key`: it takes the plain key
/// when no object of that name comes before it in the search order, and
/// the one it then hides moves to its shadowed key.
fn place_in_search_order<T: InDatabase>(map: &mut BTreeMap<String, Arc<T>>, key: String, o: Arc<T>) {
    let db = o.db();
    match map.get(&key).map(|e| e.db()) {
        Some(e) if search_rank(e) < search_rank(db) => {
            map.insert(shadowed_key(&key, db), o);
        }
        Some(e) => {
            let hidden = map.insert(key.clone(), o).expect("present");
            map.insert(shadowed_key(&key, e), hidden);
        }
        None => {
            map.insert(key.clone(), o);
        }
    }
    debug_search_order(map, &key);
}

/// Debug builds: the object visible under `key` comes before every object
/// of that name it hides, in the search order.
#[inline]
fn debug_search_order<T: InDatabase>(map: &BTreeMap<String, Arc<T>>, key: &str) {
    if cfg!(debug_assertions) {
        let visible = map.get(key).map(|o| search_rank(o.db()));
        let hidden = map.range(format!("{key}\0")..format!("{key}\u{1}")).map(|(_, o)| search_rank(o.db()));
        for h in hidden {
            // invariant: merged_search_order
            debug_assert!(visible.is_some_and(|v| v < h), "{key:?}: a hidden object (rank {h}) comes before the visible one ({visible:?})");
        }
    }
}

/// Remove database `db`'s object named `key` from a merged schema's map;
/// when it was the visible one, the first object of that name in `others`
/// (the search order without `db`) becomes visible.
fn take_from_search_order<T: InDatabase>(map: &mut BTreeMap<String, Arc<T>>, key: String, db: usize, others: &[usize]) {
    if map.get(&key).is_some_and(|o| o.db() == db) {
        map.remove(&key);
        if let Some(o) = others.iter().find_map(|&d| map.remove(&shadowed_key(&key, d))) {
            map.insert(key.clone(), o);
        }
    } else {
        map.remove(&shadowed_key(&key, db));
    }
    debug_search_order(map, &key);
}

impl Schema {
    /// One schema holding the objects of every database, `dbs[i]` being
    /// database `i` (0 main, 1 temp, 2.. attached). An unqualified name
    /// finds the object of the first database in SQLite's search order
    /// (temp, main, then attached ones in attach order); objects it hides
    /// stay reachable through [`Schema::table_in`] / [`Schema::index_in`].
    pub fn merged(dbs: &[&Schema], names: &[String]) -> Schema {
        let mut s = Schema::default();
        for db in search_order(dbs.len(), None) {
            for (k, t) in &dbs[db].tables {
                let key = if s.tables.contains_key(k) { shadowed_key(k, db) } else { k.clone() };
                s.tables.insert(key, in_db(t, db));
            }
            for (k, i) in &dbs[db].indexes {
                let key = if s.indexes.contains_key(k) { shadowed_key(k, db) } else { k.clone() };
                s.indexes.insert(key, in_db(i, db));
            }
        }
        for (db, d) in dbs.iter().enumerate() {
            s.rows.extend(d.rows.iter().cloned());
            s.row_dbs.extend(std::iter::repeat_n(db, d.rows.len()));
        }
        s.refresh_merged(dbs, names);
        s
    }

    /// Bring a [`Schema::merged`] schema up to date after rows
    /// `dbs[db].rows[first_new..]` were appended (a CREATE), without
    /// rebuilding it: the new objects take their place in the search order
    /// (hiding, or hidden by, objects of the same name in other databases)
    /// and their rows go after database `db`'s others.
    pub fn merge_appended(&mut self, dbs: &[&Schema], db: usize, first_new: usize, names: &[String]) {
        let from = dbs[db];
        let new = &from.rows[first_new..];
        for row in new {
            let key = row.1.ascii_lower();
            match row.0.as_str() {
                "table" | "view" => {
                    if let Some(t) = from.tables.get(&key) {
                        place_in_search_order(&mut self.tables, key, in_db(t, db));
                    }
                }
                "index" => {
                    if let Some(i) = from.indexes.get(&key) {
                        place_in_search_order(&mut self.indexes, key, in_db(i, db));
                    }
                }
                _ => {}
            }
        }
        let at = self.row_dbs.iter().take_while(|&&d| d <= db).count();
        self.rows.splice(at..at, new.iter().cloned());
        self.row_dbs.splice(at..at, std::iter::repeat_n(db, new.len()));
        self.refresh_merged(dbs, names);
    }

    /// Bring a [`Schema::merged`] schema up to date after the rows `gone`
    /// of database `db` were deleted (a DROP): their objects go, and an
    /// object of the same name they hid in a database searched later
    /// becomes the visible one.
    pub fn merge_deleted(&mut self, dbs: &[&Schema], db: usize, gone: &[SchemaRow], names: &[String]) {
        let others = search_order(dbs.len(), Some(db));
        for row in gone {
            let key = row.1.ascii_lower();
            match row.0.as_str() {
                "table" | "view" => take_from_search_order(&mut self.tables, key, db, &others),
                "index" => take_from_search_order(&mut self.indexes, key, db, &others),
                _ => {}
            }
        }
        // The rows of `db` are kept in order; those of `gone` are taken
        // out of its stretch.
        let mut gone_left: Vec<&SchemaRow> = gone.iter().collect();
        let mut n = 0;
        let row_dbs = std::mem::take(&mut self.row_dbs);
        self.rows.retain(|r| {
            let in_db = row_dbs[n] == db;
            n += 1;
            match gone_left.iter().position(|g| in_db && *g == r) {
                Some(p) => {
                    gone_left.swap_remove(p);
                    false
                }
                None => true,
            }
        });
        self.row_dbs = row_dbs;
        let removed = gone.len() - gone_left.len();
        let start = self.row_dbs.iter().position(|&d| d == db).unwrap_or(0);
        self.row_dbs.drain(start..start + removed);
        self.refresh_merged(dbs, names);
    }

    /// What a merged schema derives from its databases and rows: the
    /// cookies and the TEMP triggers' targets.
    fn refresh_merged(&mut self, dbs: &[&Schema], names: &[String]) {
        self.cookies = dbs.iter().map(|d| d.cookie).collect();
        self.cookie = dbs.first().map_or(0, |m| m.cookie);
        self.temp_cookie = dbs.get(1).map_or(0, |t| t.cookie);
        self.trigger_targets = (0..self.rows.len()).map(|i| self.temp_trigger_target(i, names)).collect();
        debug_assert_eq!(self.rows.len(), dbs.iter().map(|d| d.rows.len()).sum::<usize>());
        debug_assert_eq!(self.rows.len(), self.row_dbs.len());
    }

    /// The database whose table TEMP trigger row `i` watches.
    fn temp_trigger_target(&self, i: usize, names: &[String]) -> Option<Option<usize>> {
        let row = &self.rows[i];
        if self.row_db(i) != 1 || row.0 != "trigger" {
            return None;
        }
        Some(self.temp_trigger_table_db(i, names))
    }

    fn temp_trigger_table_db(&self, i: usize, names: &[String]) -> Option<usize> {
        let row = &self.rows[i];
        let qualifier = crate::sql::parse::with_first_statement(row.4.as_deref()?.as_bytes(), |cmd, _| {
            Ok(match cmd {
                Some(ast::Cmd::Stmt(ast::Stmt::CreateTrigger { tbl_name, .. })) => tbl_name.db_name.as_ref().map(|q| crate::sql::parse::unquote(q.0)),
                _ => None,
            })
        })
        .ok()
        .flatten();
        match qualifier {
            Some(q) => names.iter().position(|n| n.eq_ci(&q)).filter(|&db| self.table_in(Some(db), &row.2).is_some()),
            None => self.table(&row.2).map(|t| t.db),
        }
    }

    /// Whether trigger row `i` is a TEMP trigger whose table is gone.
    pub fn is_orphan_trigger(&self, i: usize) -> bool {
        matches!(self.trigger_targets.get(i), Some(Some(None)))
    }

    /// Whether trigger row `i` fires for `table`: a trigger of the table's
    /// own database, or a TEMP trigger watching it.
    pub fn trigger_row_watches(&self, i: usize, table: &Table) -> bool {
        let row = &self.rows[i];
        if row.0 != "trigger" || !row.2.eq_ci(&table.name) {
            return false;
        }
        let db = self.row_db(i);
        match self.trigger_targets.get(i).copied().flatten() {
            Some(target) if db == 1 => target == Some(table.db),
            _ => db == table.db,
        }
    }

    /// Put `table` (of database `table.db`) in place of that database's
    /// table or view `old_name` (which may have had another name).
    pub fn replace_table(&mut self, old_name: &str, table: Table) {
        let old_key = self.tables.iter().find(|(_, t)| t.db == table.db && t.name.eq_ci(old_name)).map(|(k, _)| k.clone());
        if let Some(k) = old_key {
            self.tables.remove(&k);
        }
        let plain = table.name.ascii_lower();
        let key = if self.tables.contains_key(&plain) { shadowed_key(&table.name, table.db) } else { plain };
        self.tables.insert(key, Arc::new(table));
    }

    /// The schema cookie of database `db` this schema was read at.
    pub fn cookie_of(&self, db: usize) -> u32 {
        match db {
            0 => self.cookie,
            1 => self.temp_cookie,
            _ => self.cookies.get(db).copied().unwrap_or(0),
        }
    }

    /// The database `sqlite_schema` row `i` belongs to.
    pub fn row_db(&self, i: usize) -> usize {
        self.row_dbs.get(i).copied().unwrap_or(0)
    }

    /// A table or view of database `db` by name (`None` for the search
    /// order of unqualified names).
    pub fn table_in(&self, db: Option<usize>, name: &str) -> Option<&Table> {
        self.shared_table_in(db, name).map(|t| &**t)
    }

    /// [`Schema::table_in`], as the shared value (kept by a statement
    /// being compiled without copying the table).
    pub fn shared_table_in(&self, db: Option<usize>, name: &str) -> Option<&Arc<Table>> {
        let Some(db) = db else { return self.shared_table(name) };
        match self.shared_table(name) {
            Some(t) if t.db == db => Some(t),
            _ => self.tables.get(&shadowed_key(name, db)),
        }
    }

    /// An index of database `db` by name (`None`: search order).
    pub fn index_in(&self, db: Option<usize>, name: &str) -> Option<&Index> {
        let Some(db) = db else { return self.index(name) };
        match self.index(name) {
            Some(i) if i.db == db => Some(i),
            _ => self.indexes.get(&shadowed_key(name, db)).map(|i| &**i),
        }
    }

    /// The PRIMARY KEY of a WITHOUT ROWID table seen as the index it is
    /// (the table's own tree, no schema row): `sqlite_autoindex_T_N`, N
    /// being its number among the table's automatic indexes.
    pub fn without_rowid_pk_index(table: &Table) -> Option<Index> {
        table.without_rowid.as_ref()?;
        let number = table.auto_indexes.iter().position(|(_, is_pk)| *is_pk)? + 1;
        Some(Index {
            name: format!("sqlite_autoindex_{}_{number}", table.name),
            db: table.db,
            table: table.name.clone(),
            root: table.root,
            columns: table
                .key_columns()
                .into_iter()
                .map(|(c, d, coll)| IndexColumn { column: Some(c), expr: None, descending: d, collation: Some(coll) })
                .collect(),
            unique: true,
            sql: None,
            origin: "pk",
            where_sql: None,
            on_conflict: table.pk_conflict,
            stat: table.pk_stat.clone(),
        })
    }

    /// `index_in`, also finding the PRIMARY KEY of a WITHOUT ROWID table
    /// by its automatic index name.
    pub fn index_or_pk_in(&self, db: Option<usize>, name: &str) -> Option<Index> {
        if let Some(i) = self.index_in(db, name) {
            return Some(i.clone());
        }
        // A WITHOUT ROWID table's name stands for its PRIMARY KEY.
        if let Some(pk) = self.table_in(db, name).and_then(Self::without_rowid_pk_index) {
            return Some(pk);
        }
        self.tables.values().filter(|t| db.is_none_or(|d| t.db == d)).filter_map(|t| Self::without_rowid_pk_index(t)).find(|i| i.name.eq_ci(name))
    }

    /// `indexes_of` with a WITHOUT ROWID table's PRIMARY KEY among its
    /// automatic indexes, in creation order (as `PRAGMA index_list`
    /// lists them, reversed).
    pub fn indexes_with_pk_of(&self, table: &Table) -> Vec<Index> {
        let mut v: Vec<Index> = self.indexes_of(table).into_iter().cloned().collect();
        if let Some(pk) = Self::without_rowid_pk_index(table) {
            let number = |i: &Index| i.name.rsplit('_').next().and_then(|n| n.parse::<usize>().ok()).unwrap_or(0);
            let pk_number = number(&pk);
            let at = v.iter().position(|i| i.sql.is_some() || i.origin == "c" || number(i) > pk_number).unwrap_or(v.len());
            v.insert(at, pk);
        }
        v
    }

    /// Triggers of `table`: (name, CREATE TRIGGER text), in SQLite's firing
    /// order: TEMP triggers on a table of another database first, in
    /// creation order; then the triggers of the table's own database,
    /// newest first. `temp_only` (`SQLITE_DBCONFIG_ENABLE_TRIGGER` off):
    /// the TEMP ones alone, on whatever table, as SQLite 3.54 fires them.
    pub fn triggers_of(&self, table: &Table, temp_only: bool) -> Vec<(String, String)> {
        let rows: Vec<(usize, &(String, String, String, i64, Option<String>))> =
            self.rows.iter().enumerate().filter(|(i, _)| self.trigger_row_watches(*i, table) && (!temp_only || self.row_db(*i) == 1)).collect();
        let foreign = rows.iter().filter(|(i, _)| self.row_db(*i) != table.db);
        let own = rows.iter().rev().filter(|(i, _)| self.row_db(*i) == table.db);
        foreign.chain(own).filter_map(|(_, r)| r.4.clone().map(|sql| (r.1.clone(), sql))).collect()
    }

    /// Every trigger on a table named `table` as (database, name, CREATE
    /// TRIGGER text), in row order.
    pub fn trigger_rows_of(&self, table: &str) -> Vec<(usize, String, String)> {
        self.rows
            .iter()
            .enumerate()
            .filter(|(_, r)| r.0 == "trigger" && r.2.eq_ci(table))
            .filter_map(|(i, r)| r.4.clone().map(|sql| (self.row_db(i), r.1.clone(), sql)))
            .collect()
    }

    /// Whether a trigger of this name exists in database `db` (`None`:
    /// any database).
    pub fn has_trigger(&self, db: Option<usize>, name: &str) -> bool {
        self.rows.iter().enumerate().any(|(i, r)| r.0 == "trigger" && r.1.eq_ci(name) && db.is_none_or(|d| self.row_db(i) == d) && !self.is_orphan_trigger(i))
    }
}
