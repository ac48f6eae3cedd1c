//! The in-memory schema: tables, indexes and views of one database, built
//! from the CREATE statements stored in `sqlite_schema` (`fileformat2.txt`
//! section 2.6) and reloaded whenever the schema cookie changes. This
//! module only parses rows and keeps them; reading them from the file is
//! the connection's (`connection/schema_load.rs`).
//!
//! Several databases (main, temp, attached) are compiled against as one
//! merged [`Schema`] (`Schema::merged`): each object carries its database
//! index, an unqualified name finds the object of the first database in
//! SQLite's search order (temp, main, attached), and hidden objects of the
//! same name stay reachable by database (`table_in`, `index_in`).
//!
//! Invariants: names are looked up case-insensitively; every UNIQUE or
//! non-INTEGER PRIMARY KEY constraint has its automatic index
//! `sqlite_autoindex_<table>_<n>`, numbered in order of appearance; a
//! table's `rowid_alias` is the column declared `INTEGER PRIMARY KEY`; an
//! index key column is either a table column or an expression over the
//! table's columns (`IndexColumn::expr`, cid -2 in the pragmas); VIRTUAL
//! generated columns take no field in a stored record, so a column's
//! field is `Table::field_of` (later columns move up). A virtual table is
//! an entry among the tables with `Table::virtual_table` set (module and
//! arguments, see [`VirtualTable`]), root page 0 and no columns: nothing
//! opens a b-tree for it, and a statement using it connects it first
//! through its module (`sql::codegen::vtab`), whose declared columns
//! (`sql::vtab_decl`) stand for it there.
//!
//! Tables are shared (`Arc<Table>`) with the statements being compiled
//! against them, so a prepare never copies one; a table's columns as
//! name resolution sees them (`Table::scope_columns`) are built once per
//! loaded schema. A table is never changed in place once shared: a
//! changed table is a copy, and a copy starts without those columns.

use super::schema_visit_order::TableVisitOrder;
use crate::error::{Error, Result};
use crate::sql::parse::{unquote, with_first_statement};
use crate::value::Value;
use crate::vdbe::value_ops::Affinity;
use sqlite3_parser::ast::{self, Cmd, ColumnConstraint, CreateTableBody, SortOrder, Stmt, TableConstraint};
use std::collections::BTreeMap;
use std::sync::Arc;

/// A table column.
#[derive(Debug, Clone)]
pub struct Column {
    /// Name as declared (unquoted).
    pub name: String,
    /// Declared type as written, if any.
    pub decltype: Option<String>,
    /// Affinity from the declared type.
    pub affinity: Affinity,
    /// NOT NULL.
    pub not_null: bool,
    /// The NOT NULL constraint's own ON CONFLICT clause (used when the
    /// statement has no OR clause).
    pub not_null_conflict: Option<ast::ResolveType>,
    /// DEFAULT expression as SQL text, as written (what PRAGMA
    /// table_info shows).
    pub default: Option<String>,
    /// The DEFAULT was a bare name (`DEFAULT abc`, `DEFAULT "abc"`): SQLite
    /// reads it as the text `abc` (or `true`/`false` as 1/0), so it is
    /// compiled from `default_value`, not from `default`.
    pub default_is_name: bool,
    /// The DEFAULT when it is a constant (what rows written before an
    /// ADD COLUMN read for it).
    pub default_value: Option<Value>,
    /// COLLATE name.
    pub collation: Option<String>,
    /// Part of the PRIMARY KEY.
    pub primary_key: bool,
    /// GENERATED ALWAYS AS (...): the column's value is computed, never
    /// given by INSERT or UPDATE.
    pub generated: Option<Generated>,
}

/// A generated column's definition.
#[derive(Debug, Clone)]
pub struct Generated {
    /// The expression as SQL text.
    pub expr: String,
    /// STORED (kept in the record) rather than VIRTUAL (computed on read).
    pub stored: bool,
}

/// A table or view.
#[derive(Debug, Clone)]
pub struct Table {
    /// Name (unquoted).
    pub name: String,
    /// Database holding it: 0 main, 1 temp, 2.. attached.
    pub db: usize,
    /// Root page (0 for views).
    pub root: u32,
    /// Columns in declaration order.
    pub columns: Vec<Column>,
    /// The INTEGER PRIMARY KEY column, stored as the rowid.
    pub rowid_alias: Option<usize>,
    /// The CREATE statement text.
    pub sql: String,
    /// A view: its SELECT text.
    pub view_select: Option<String>,
    /// Column names given in CREATE VIEW v(a,b).
    pub view_columns: Option<Vec<String>>,
    /// Automatic indexes, in numbering order: columns and whether it is the
    /// primary key.
    pub auto_indexes: Vec<(Vec<(usize, bool, Option<String>)>, bool)>,
    /// INTEGER PRIMARY KEY AUTOINCREMENT: rowids come from
    /// `sqlite_sequence` and are never reused.
    pub autoincrement: bool,
    /// CHECK constraints: (constraint name, expression as SQL text).
    pub checks: Vec<(Option<String>, String)>,
    /// A feature of this table ringlite cannot handle yet (WITHOUT ROWID,
    /// STRICT, an index it cannot maintain): the table may be read where
    /// possible but is refused where that feature matters.
    pub unsupported: Option<String>,
    /// STRICT table: every value must match its column's type.
    pub strict: bool,
    /// FOREIGN KEY constraints in declaration order.
    pub foreign_keys: Vec<ForeignKey>,
    /// WITHOUT ROWID table: its PRIMARY KEY columns (table column, DESC,
    /// collation), which lead every stored record (see `record_columns`).
    pub without_rowid: Option<Vec<(usize, bool, Option<String>)>>,
    /// The PRIMARY KEY's own `ON CONFLICT` clause.
    pub pk_conflict: Option<ast::ResolveType>,
    /// UNIQUE constraints' own `ON CONFLICT` clauses, by key columns.
    pub unique_conflicts: Vec<(Vec<usize>, ast::ResolveType)>,
    /// `columns` as name resolution sees them, built on first use.
    pub scope_columns: ScopeColumnsCache,
    /// A virtual table (`CREATE VIRTUAL TABLE ... USING m(...)`): its
    /// module and arguments. Such an entry has no b-tree (`root` 0) and no
    /// columns until its module connects it; see [`VirtualTable`].
    pub virtual_table: Option<Arc<VirtualTable>>,
}

/// What the schema knows of a virtual table: the entry of
/// `CREATE VIRTUAL TABLE name USING module(args)` as stored in
/// `sqlite_schema` (type 'table', rootpage 0; the statement is
/// [`Table::sql`]). It shares the namespace of tables and views, so the
/// entry lives among them with `Table::virtual_table` set and no columns.
///
/// This is where the virtual-table machinery plugs in: a module registered
/// under [`VirtualTable::module`] connects the table (its xConnect declares
/// the columns) when a statement first uses it (`sql::codegen::vtab`).
/// Without one, every use of the table fails with
/// [`VirtualTable::no_module_error`] (SQLite's "no such module: m"),
/// checked by the compiler where SQLite connects the table: FROM items, DML
/// targets, `PRAGMA table_info` (the table-valued `pragma_table_info(...)`
/// when it runs), DROP TABLE, ALTER TABLE RENAME, and ALTER's check of the
/// views and triggers using it. Other statements on the database do not look at it, and
/// the tables a module keeps its data in (FTS5's `t_data`, R*Tree's
/// `t_node`, ...) are ordinary tables.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VirtualTable {
    /// The module name after USING, unquoted.
    pub module: String,
    /// The module arguments as written between the parentheses, each
    /// trimmed (SQLite passes them to xCreate/xConnect as they are).
    pub args: Vec<String>,
}

impl VirtualTable {
    /// The error every use of the table gives while its module is not
    /// registered.
    pub fn no_module_error(&self) -> Error {
        Error::sql(format!("no such module: {}", self.module))
    }
}

/// A table's columns as name resolution sees them, built once and shared
/// by every statement compiled against the table (each prepare would
/// otherwise copy every column name). A copy of the table starts empty:
/// the copy may change its columns.
#[derive(Default)]
pub struct ScopeColumnsCache(std::sync::OnceLock<Arc<Vec<crate::sql::resolve::ScopeColumn>>>);

impl Clone for ScopeColumnsCache {
    fn clone(&self) -> Self {
        ScopeColumnsCache::default()
    }
}

impl std::fmt::Debug for ScopeColumnsCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ScopeColumnsCache")
    }
}

impl Table {
    /// The columns as a FROM item of this table shows them to name
    /// resolution (shared; see [`ScopeColumnsCache`]).
    pub fn scope_columns(&self) -> Arc<Vec<crate::sql::resolve::ScopeColumn>> {
        self.scope_columns
            .0
            .get_or_init(|| {
                Arc::new(
                    self.columns
                        .iter()
                        .map(|c| crate::sql::resolve::ScopeColumn {
                            name: c.name.clone(),
                            affinity: c.affinity,
                            without_affinity: false,
                            collation: c.collation.clone(),
                            decltype: c.decltype.clone(),
                            hidden: false,
                            argument: false,
                            source: None,
                            source_db: None,
                        })
                        .collect(),
                )
            })
            .clone()
    }
}

/// What a foreign key does to child rows when their parent key is
/// deleted or changed (`ON DELETE` / `ON UPDATE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FkAction {
    /// NO ACTION (the default): the constraint is checked.
    NoAction,
    /// RESTRICT: the change fails at once if child rows exist.
    Restrict,
    /// SET NULL.
    SetNull,
    /// SET DEFAULT.
    SetDefault,
    /// CASCADE.
    Cascade,
}

impl FkAction {
    /// As `PRAGMA foreign_key_list` spells it.
    pub fn name(self) -> &'static str {
        match self {
            FkAction::NoAction => "NO ACTION",
            FkAction::Restrict => "RESTRICT",
            FkAction::SetNull => "SET NULL",
            FkAction::SetDefault => "SET DEFAULT",
            FkAction::Cascade => "CASCADE",
        }
    }
}

/// A FOREIGN KEY constraint of a child table.
#[derive(Debug, Clone)]
pub struct ForeignKey {
    /// Child columns (indexes into the child's columns).
    pub columns: Vec<usize>,
    /// Parent table name as written.
    pub parent: String,
    /// Parent key columns as written; empty means the parent's PRIMARY KEY.
    pub parent_columns: Vec<String>,
    /// ON DELETE.
    pub on_delete: FkAction,
    /// ON UPDATE.
    pub on_update: FkAction,
    /// DEFERRABLE INITIALLY DEFERRED: checked at COMMIT.
    pub deferred: bool,
}

impl Table {
    /// What SQLite does when a statement uses a table whose columns it
    /// needs (`sqlite3ViewGetColumnNames`), where no module registry is at
    /// hand: an ordinary table or view is ready; a virtual table fails
    /// with "no such module: m" (the compiler connects virtual tables
    /// through the connection's modules instead, `Compiler::connected_vtab`).
    pub fn connect(&self) -> Result<()> {
        match &self.virtual_table {
            Some(v) => Err(v.no_module_error()),
            None => Ok(()),
        }
    }

    /// Index of a column by name.
    pub fn column_index(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c.name.eq_ignore_ascii_case(name))
    }

    /// Affinity letters of all columns (MakeRecord P4).
    pub fn affinity_string(&self) -> String {
        self.columns.iter().map(|c| c.affinity.letter()).collect()
    }

    /// Whether column `col` is a VIRTUAL generated column (computed on
    /// read, absent from the record).
    pub fn is_virtual(&self, col: usize) -> bool {
        self.columns.get(col).and_then(|c| c.generated.as_ref()).is_some_and(|g| !g.stored)
    }

    /// Whether any column is VIRTUAL.
    pub fn has_virtual(&self) -> bool {
        (0..self.columns.len()).any(|c| self.is_virtual(c))
    }

    /// The position of column `col` in a rowid table's record: VIRTUAL
    /// columns take no field, so later columns move up (`None` for a
    /// VIRTUAL column itself).
    pub fn field_of(&self, col: usize) -> Option<usize> {
        if self.is_virtual(col) {
            return None;
        }
        Some((0..col).filter(|&c| !self.is_virtual(c)).count())
    }

    /// The number of fields a record of this table holds (columns that are
    /// not VIRTUAL).
    pub fn stored_count(&self) -> usize {
        (0..self.columns.len()).filter(|&c| !self.is_virtual(c)).count()
    }

    /// Affinity letters of the stored (not VIRTUAL) columns, in record
    /// order.
    pub fn stored_affinity_string(&self) -> String {
        (0..self.columns.len()).filter(|&c| !self.is_virtual(c)).map(|c| self.columns[c].affinity.letter()).collect()
    }

    /// Table columns in stored-record order: for a WITHOUT ROWID table the
    /// PRIMARY KEY columns first, then the others in declaration order
    /// (fileformat2 §2.5), VIRTUAL generated columns left out; otherwise
    /// declaration order.
    pub fn record_columns(&self) -> Vec<usize> {
        if self.without_rowid.is_none() {
            return (0..self.columns.len()).collect();
        }
        let mut order: Vec<usize> = self.key_columns().iter().map(|k| k.0).collect();
        for c in 0..self.columns.len() {
            if !order.contains(&c) && !self.is_virtual(c) {
                order.push(c);
            }
        }
        order
    }

    /// WITHOUT ROWID: the PRIMARY KEY columns that lead every record, in
    /// key order: a column named again with the same collation counts
    /// once (with another collation it is a second key column, stored
    /// twice). Collations are resolved (the key's, else the column's,
    /// else BINARY).
    pub fn key_columns(&self) -> Vec<(usize, bool, String)> {
        let mut out: Vec<(usize, bool, String)> = Vec::new();
        for (c, desc, coll) in self.without_rowid.iter().flatten() {
            let coll = self.key_collation(Some(*c), coll);
            if !out.iter().any(|(x, _, k)| x == c && k.eq_ignore_ascii_case(&coll)) {
                out.push((*c, *desc, coll));
            }
        }
        out
    }
}

impl Table {
    /// WITHOUT ROWID: the number of distinct PRIMARY KEY columns, which
    /// lead every record of the table (0 for a rowid table).
    pub fn key_width(&self) -> usize {
        self.key_columns().len()
    }

    /// The collation name a key column compares with: its own, else the
    /// table column's, else BINARY.
    fn key_collation(&self, column: Option<usize>, own: &Option<String>) -> String {
        own.clone().or_else(|| column.and_then(|c| self.columns.get(c)).and_then(|c| c.collation.clone())).unwrap_or_else(|| "BINARY".into())
    }

    /// WITHOUT ROWID: what each entry of `idx` carries after its key
    /// columns instead of a rowid (fileformat2 §2.5): the PRIMARY KEY
    /// columns the index does not already hold with the same collation,
    /// as (table column, descending, collation name). An index made by
    /// CREATE INDEX orders them as the PRIMARY KEY does; one made by a
    /// UNIQUE constraint of CREATE TABLE orders them ascending (as SQLite
    /// writes them). Empty for a rowid table.
    pub fn index_suffix(&self, idx: &Index) -> Vec<(usize, bool, String)> {
        let mut out: Vec<(usize, bool, String)> = Vec::new();
        for (col, desc, coll) in self.key_columns() {
            let held = idx.columns.iter().any(|ic| ic.column == Some(col) && self.key_collation(ic.column, &ic.collation).eq_ignore_ascii_case(&coll));
            if !held {
                out.push((col, desc && idx.origin == "c", coll));
            }
        }
        out
    }

    /// WITHOUT ROWID: where each PRIMARY KEY column (in key order) sits in
    /// an entry of `idx`: at a key column holding it with its collation,
    /// else in the suffix after the key columns.
    pub fn key_positions_in_index(&self, idx: &Index) -> Vec<usize> {
        let suffix = self.index_suffix(idx);
        let n = idx.columns.len();
        self.key_columns()
            .iter()
            .map(|(col, _, coll)| {
                if let Some(s) = suffix.iter().position(|(c, _, k)| c == col && k.eq_ignore_ascii_case(coll)) {
                    return n + s;
                }
                idx.columns
                    .iter()
                    .position(|ic| ic.column == Some(*col) && self.key_collation(ic.column, &ic.collation).eq_ignore_ascii_case(coll))
                    .unwrap_or(n)
            })
            .collect()
    }

    /// `idx` as lookups see it: for a WITHOUT ROWID table its key columns
    /// followed by the PRIMARY KEY suffix its entries carry, which orders
    /// them as much as the key columns do (so `c=? AND a>?` seeks an index
    /// on `c` of a table keyed by `a`). Other tables: `idx` itself.
    pub fn index_with_key_suffix(&self, idx: &Index) -> Index {
        let mut out = idx.clone();
        for (c, descending, coll) in self.index_suffix(idx) {
            out.columns.push(IndexColumn { column: Some(c), expr: None, descending, collation: Some(coll) });
        }
        out
    }

    /// The number of fields in an entry of `idx`: its key columns, then
    /// the rowid or (WITHOUT ROWID) the PRIMARY KEY suffix.
    pub fn index_entry_width(&self, idx: &Index) -> usize {
        if self.without_rowid.is_some() {
            idx.columns.len() + self.index_suffix(idx).len()
        } else {
            idx.columns.len() + 1
        }
    }
}

/// One column of an index: a table column or an expression over the
/// table's columns (an index on expressions, `expridx.txt`).
#[derive(Debug, Clone)]
pub struct IndexColumn {
    /// Table column number (`None` for an expression).
    pub column: Option<usize>,
    /// The indexed expression as SQL text (without a top-level COLLATE,
    /// which is `collation`), when this key column is one.
    pub expr: Option<String>,
    /// DESC.
    pub descending: bool,
    /// Collation name.
    pub collation: Option<String>,
}

/// An index.
#[derive(Debug, Clone)]
pub struct Index {
    /// Name.
    pub name: String,
    /// Database holding it: 0 main, 1 temp, 2.. attached.
    pub db: usize,
    /// Table name.
    pub table: String,
    /// Root page.
    pub root: u32,
    /// Key columns (the rowid follows them in each entry).
    pub columns: Vec<IndexColumn>,
    /// UNIQUE.
    pub unique: bool,
    /// CREATE INDEX text (`None` for automatic indexes).
    pub sql: Option<String>,
    /// "c" created by CREATE INDEX, "u" UNIQUE constraint, "pk" PRIMARY KEY.
    pub origin: &'static str,
    /// Partial index: its WHERE clause as SQL text.
    pub where_sql: Option<String>,
    /// A constraint index's own `ON CONFLICT` clause.
    pub on_conflict: Option<ast::ResolveType>,
}

/// The schema of one database.
#[derive(Debug, Clone, Default)]
pub struct Schema {
    /// Tables and views by lower-case name, shared (statements being
    /// compiled hold them without copying; changing one makes a copy).
    pub tables: BTreeMap<String, Arc<Table>>,
    /// Indexes by lower-case name.
    pub indexes: BTreeMap<String, Arc<Index>>,
    /// Schema cookie the schema was read at.
    pub cookie: u32,
    /// Schema cookie of the temp database (merged schemas).
    pub temp_cookie: u32,
    /// `sqlite_schema` rows in rowid order: (type, name, tbl_name, rootpage, sql).
    pub rows: Vec<(String, String, String, i64, Option<String>)>,
    /// Per-database schemas: the rowid of each of `rows` in the schema
    /// table (rows a CREATE appends come after the last one).
    pub row_ids: Vec<i64>,
    /// Merged schemas: the database each of `rows` belongs to (empty:
    /// every row is main's).
    pub row_dbs: Vec<usize>,
    /// Merged schemas: the schema cookie of every database by index
    /// (0 main, 1 temp, 2.. attached).
    pub cookies: Vec<u32>,
    /// Merged schemas: for each of `rows` that is a TEMP trigger, the
    /// database of the table it watches (`ON aux.t`, or the first database
    /// in search order holding `t`), `Some(None)` when there is no such
    /// table (an orphan, which neither fires nor can be dropped); `None`
    /// for every other row.
    pub trigger_targets: Vec<Option<Option<usize>>>,
    /// Per-database schemas: the order SQLite would visit the tables and
    /// views in (a bare ANALYZE shows it), following CREATEs and DROPs.
    pub visit_order: TableVisitOrder,
}

/// One `sqlite_schema` row: (type, name, tbl_name, rootpage, sql).
pub type SchemaRow = (String, String, String, i64, Option<String>);

/// Key under which a merged schema keeps an object of database `db` that
/// an object of the same name in a database searched earlier hides (the
/// visible one is keyed by its plain lower-case name).
fn shadowed_key(name: &str, db: usize) -> String {
    format!("{}\0{db}", name.to_ascii_lowercase())
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
            map.insert(key, o);
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
            map.insert(key, o);
        }
    } else {
        map.remove(&shadowed_key(&key, db));
    }
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
            let key = row.1.to_ascii_lowercase();
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
            let key = row.1.to_ascii_lowercase();
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
            Some(q) => names.iter().position(|n| n.eq_ignore_ascii_case(&q)).filter(|&db| self.table_in(Some(db), &row.2).is_some()),
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
        if row.0 != "trigger" || !row.2.eq_ignore_ascii_case(&table.name) {
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
        let old_key = self.tables.iter().find(|(_, t)| t.db == table.db && t.name.eq_ignore_ascii_case(old_name)).map(|(k, _)| k.clone());
        if let Some(k) = old_key {
            self.tables.remove(&k);
        }
        let plain = table.name.to_ascii_lowercase();
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
        self.tables
            .values()
            .filter(|t| db.is_none_or(|d| t.db == d))
            .filter_map(|t| Self::without_rowid_pk_index(t))
            .find(|i| i.name.eq_ignore_ascii_case(name))
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
    /// newest first.
    pub fn triggers_of(&self, table: &Table) -> Vec<(String, String)> {
        let rows: Vec<(usize, &(String, String, String, i64, Option<String>))> =
            self.rows.iter().enumerate().filter(|(i, _)| self.trigger_row_watches(*i, table)).collect();
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
            .filter(|(_, r)| r.0 == "trigger" && r.2.eq_ignore_ascii_case(table))
            .filter_map(|(i, r)| r.4.clone().map(|sql| (self.row_db(i), r.1.clone(), sql)))
            .collect()
    }

    /// Whether a trigger of this name exists in database `db` (`None`:
    /// any database).
    pub fn has_trigger(&self, db: Option<usize>, name: &str) -> bool {
        self.rows
            .iter()
            .enumerate()
            .any(|(i, r)| r.0 == "trigger" && r.1.eq_ignore_ascii_case(name) && db.is_none_or(|d| self.row_db(i) == d) && !self.is_orphan_trigger(i))
    }
}

impl Schema {
    /// A table or view by name.
    pub fn table(&self, name: &str) -> Option<&Table> {
        self.shared_table(name).map(|t| &**t)
    }

    /// [`Schema::table`], as the shared value.
    pub fn shared_table(&self, name: &str) -> Option<&Arc<Table>> {
        // (Names are usually written in lower case: no copy then.)
        if !name.bytes().any(|b| b.is_ascii_uppercase()) {
            return self.tables.get(name);
        }
        self.tables.get(&name.to_ascii_lowercase())
    }

    /// An index by name.
    pub fn index(&self, name: &str) -> Option<&Index> {
        if !name.bytes().any(|b| b.is_ascii_uppercase()) {
            return self.indexes.get(name).map(|i| &**i);
        }
        self.indexes.get(&name.to_ascii_lowercase()).map(|i| &**i)
    }

    /// Indexes of a table, in creation order (order of their rows in
    /// `sqlite_schema`).
    pub fn indexes_of(&self, table: &Table) -> Vec<&Index> {
        let mut v: Vec<&Index> = self.indexes.values().map(|i| &**i).filter(|i| i.table.eq_ignore_ascii_case(&table.name) && i.db == table.db).collect();
        let order =
            |i: &Index| self.rows.iter().enumerate().position(|(n, r)| r.1.eq_ignore_ascii_case(&i.name) && self.row_db(n) == i.db).unwrap_or(usize::MAX);
        v.sort_by_key(|i| order(i));
        v
    }

    /// After a statement that only appended rows to this database's schema
    /// table (a CREATE): parse the rows read after the last one known
    /// (`connection/schema_load.rs` reads them), the others being
    /// unchanged.
    pub fn append_rows(&mut self, cookie: u32, rows: Vec<SchemaRow>, row_ids: Vec<i64>) -> Result<()> {
        self.cookie = cookie;
        self.add_rows(&rows, None)?;
        enter_tables(&mut self.visit_order, &rows);
        self.rows.extend(rows);
        self.row_ids.extend(row_ids);
        Ok(())
    }

    /// Whether DROPs can be applied by forgetting rows
    /// ([`Schema::forget_rows_not_in`]): no table is waiting to be parsed
    /// again (an index had made it unsupported, and that index may be the
    /// one dropped) and every row's rowid is known.
    pub fn can_forget_rows(&self) -> bool {
        !self.tables.values().any(|t| t.unsupported.is_some()) && self.rows.len() == self.row_ids.len()
    }

    /// After a statement that only deleted rows from this database's
    /// schema table (a DROP): forget the objects of the rows whose rowids
    /// are not in `live` (the table's rowids now, ascending). Returns the
    /// rows that went, or `None` (nothing changed) when `live` holds a
    /// rowid this schema never saw: more than deletions happened, and the
    /// schema must be read again.
    pub fn forget_rows_not_in(&mut self, cookie: u32, live: &[i64]) -> Option<Vec<SchemaRow>> {
        debug_assert!(self.can_forget_rows());
        // Both lists are in rowid order.
        let mut keep = vec![false; self.rows.len()];
        let mut i = 0;
        for &id in live {
            while i < self.row_ids.len() && self.row_ids[i] < id {
                i += 1;
            }
            if i == self.row_ids.len() || self.row_ids[i] != id {
                return None;
            }
            keep[i] = true;
        }
        self.cookie = cookie;
        for (row, _) in self.rows.iter().zip(&keep).filter(|(_, k)| !**k) {
            let key = row.1.to_ascii_lowercase();
            match row.0.as_str() {
                "table" | "view" => {
                    self.tables.remove(&key);
                    self.visit_order.remove(&row.1);
                }
                "index" => {
                    self.indexes.remove(&key);
                }
                _ => {}
            }
        }
        let gone: Vec<SchemaRow> = self.rows.iter().zip(&keep).filter(|(_, k)| !**k).map(|(r, _)| r.clone()).collect();
        let mut n = 0;
        self.rows.retain(|_| (keep[n], n += 1).0);
        let mut n = 0;
        self.row_ids.retain(|_| (keep[n], n += 1).0);
        Some(gone)
    }

    /// A database's schema holding no object yet; `schema_table` names
    /// its schema table (`sqlite_master`, or `sqlite_temp_master` for
    /// TEMP) for the visiting order.
    pub fn empty(schema_table: &str) -> Schema {
        Schema { visit_order: TableVisitOrder::new(schema_table), ..Default::default() }
    }

    /// Build from `sqlite_schema` rows.
    pub fn from_rows(rows: Vec<(String, String, String, i64, Option<String>)>, cookie: u32) -> Result<Schema> {
        Schema::from_rows_reusing(rows, cookie, None, "sqlite_master")
    }

    /// [`Schema::from_rows`], taking a table or index from `previous`
    /// instead of parsing it when its row is there unchanged (same type,
    /// name, table, root page and SQL text). A table some index had marked
    /// unsupported is parsed again, since that index may be gone; an index
    /// is reused only with the very table it was built against.
    /// `schema_table` is as for [`Schema::empty`].
    pub fn from_rows_reusing(
        rows: Vec<(String, String, String, i64, Option<String>)>,
        cookie: u32,
        previous: Option<&Schema>,
        schema_table: &str,
    ) -> Result<Schema> {
        // The common change appends rows (CREATE): the previous schema is
        // taken whole and only the new rows are parsed.
        if let Some(p) = previous {
            let n = p.rows.len();
            if rows.len() >= n && rows[..n] == p.rows[..] && p.tables.values().all(|t| t.unsupported.is_none()) {
                let mut s = Schema { cookie, tables: p.tables.clone(), indexes: p.indexes.clone(), visit_order: p.visit_order.clone(), ..Default::default() };
                s.add_rows(&rows[n..], None)?;
                enter_tables(&mut s.visit_order, &rows[n..]);
                s.rows = rows;
                return Ok(s);
            }
        }
        let mut s = Schema { cookie, ..Schema::empty(schema_table) };
        s.add_rows(&rows, previous)?;
        enter_tables(&mut s.visit_order, &rows);
        s.rows = rows;
        Ok(s)
    }

    /// Add the tables and views of `rows`, then their indexes (see
    /// [`Schema::from_rows_reusing`] for `previous`).
    fn add_rows(&mut self, rows: &[(String, String, String, i64, Option<String>)], previous: Option<&Schema>) -> Result<()> {
        let unchanged: std::collections::HashSet<&(String, String, String, i64, Option<String>)> =
            previous.map(|p| p.rows.iter().collect()).unwrap_or_default();
        let mut reused_tables: std::collections::HashSet<String> = std::collections::HashSet::new();
        for row in rows {
            let (ty, name, _tbl, root, sql) = row;
            if ty == "table" || ty == "view" {
                if let Some(sql) = sql {
                    let key = name.to_ascii_lowercase();
                    if unchanged.contains(row) {
                        if let Some(t) = previous.and_then(|p| p.tables.get(&key)).filter(|t| t.unsupported.is_none() && t.root == *root as u32) {
                            self.tables.insert(key.clone(), Arc::clone(t));
                            reused_tables.insert(key);
                            continue;
                        }
                    }
                    let t = match table_from_sql(sql, *root as u32) {
                        Ok(t) => t,
                        Err(e) if e.primary() == crate::error::SQLITE_ERROR => continue,
                        Err(e) => return Err(e),
                    };
                    self.tables.insert(name.to_ascii_lowercase(), Arc::new(t));
                }
            }
        }
        for row in rows {
            let (ty, name, tbl, root, sql) = row;
            if ty != "index" {
                continue;
            }
            let key = name.to_ascii_lowercase();
            if unchanged.contains(row) && reused_tables.contains(&tbl.to_ascii_lowercase()) {
                if let Some(idx) = previous.and_then(|p| p.indexes.get(&key)) {
                    self.indexes.insert(key, idx.clone());
                    continue;
                }
            }
            let idx = match sql {
                Some(sql) => match index_from_sql(sql, *root as u32, self) {
                    Ok(i) => i,
                    Err(e) => {
                        // An index we cannot maintain: its table stays
                        // readable but refuses changes.
                        if let Some(t) = self.tables.get_mut(&tbl.to_ascii_lowercase()) {
                            Arc::make_mut(t).unsupported = Some(format!("tables with an index like {name} ({})", e.message));
                        }
                        continue;
                    }
                },
                None => {
                    let Some(t) = self.table(tbl) else { continue };
                    let n: usize = name.rsplit('_').next().and_then(|n| n.parse().ok()).unwrap_or(0);
                    let Some((cols, pk)) = t.auto_indexes.get(n.wrapping_sub(1)) else { continue };
                    Index {
                        name: name.clone(),
                        db: 0,
                        table: t.name.clone(),
                        root: *root as u32,
                        columns: cols
                            .iter()
                            .map(|(c, d, coll)| IndexColumn { column: Some(*c), expr: None, descending: *d, collation: coll.clone() })
                            .collect(),
                        unique: true,
                        sql: None,
                        origin: if *pk { "pk" } else { "u" },
                        where_sql: None,
                        on_conflict: if *pk {
                            t.pk_conflict
                        } else {
                            t.unique_conflicts.iter().find(|(k, _)| k.iter().eq(cols.iter().map(|c| &c.0))).map(|(_, r)| *r)
                        },
                    }
                }
            };
            self.indexes.insert(name.to_ascii_lowercase(), Arc::new(idx));
        }
        Ok(())
    }
}

/// Whether `name` is in SQLite's reserved namespace: it begins with
/// `sqlite_` in any case. Compared as bytes: a name is any UTF-8 text, and
/// its seventh byte may be inside a character.
/// The tables and views of `rows` entering a schema's visiting order.
fn enter_tables(order: &mut TableVisitOrder, rows: &[SchemaRow]) {
    for (ty, name, ..) in rows {
        if ty == "table" || ty == "view" {
            order.insert(name);
        }
    }
}

pub fn is_internal_name(name: &str) -> bool {
    name.as_bytes().get(..7).is_some_and(|p| p.eq_ignore_ascii_case(b"sqlite_"))
}

/// The schema table itself, as SQLite describes it.
pub fn schema_table() -> Table {
    let col = |n: &str, t: &str| Column {
        name: n.into(),
        decltype: Some(t.into()),
        affinity: Affinity::from_decltype(t),
        not_null: false,
        not_null_conflict: None,
        default: None,
        default_is_name: false,
        default_value: None,
        collation: None,
        primary_key: false,
        generated: None,
    };
    Table {
        name: "sqlite_schema".into(),
        db: 0,
        root: 1,
        columns: vec![col("type", "text"), col("name", "text"), col("tbl_name", "text"), col("rootpage", "int"), col("sql", "text")],
        rowid_alias: None,
        sql: "CREATE TABLE sqlite_schema(type text,name text,tbl_name text,rootpage int,sql text)".into(),
        view_select: None,
        view_columns: None,
        auto_indexes: Vec::new(),
        autoincrement: false,
        checks: Vec::new(),
        unsupported: None,
        strict: false,
        foreign_keys: Vec::new(),
        without_rowid: None,
        pk_conflict: None,
        unique_conflicts: Vec::new(),
        scope_columns: ScopeColumnsCache::default(),
        virtual_table: None,
    }
}

fn type_text(t: &ast::Type<'_>) -> String {
    let mut s = t.name.to_string();
    match &t.size {
        Some(ast::TypeSize::MaxSize(e)) => s.push_str(&format!("({e})")),
        Some(ast::TypeSize::TypeSize(a, b)) => s.push_str(&format!("({a},{b})")),
        None => {}
    }
    s
}

/// Build a table or view from its stored CREATE statement.
pub fn table_from_sql(sql: &str, root: u32) -> Result<Table> {
    with_first_statement(sql.as_bytes(), |cmd, _| match cmd {
        Some(Cmd::Stmt(stmt)) => table_from_stmt(stmt, sql, root),
        _ => Err(Error::corrupt()),
    })
}

/// Add the automatic index of a PRIMARY KEY or UNIQUE constraint, as
/// SQLite does: a constraint on the same columns (and collations) as an
/// earlier one makes no index of its own; a PRIMARY KEY then makes the
/// earlier index the PRIMARY KEY, keeping its number and order.
fn add_auto_index(t: &mut Table, cols: Vec<(usize, bool, Option<String>)>, is_pk: bool) {
    let same = |a: &[(usize, bool, Option<String>)]| {
        a.len() == cols.len() && a.iter().zip(&cols).all(|(x, y)| x.0 == y.0 && x.2.as_deref().unwrap_or("").eq_ignore_ascii_case(y.2.as_deref().unwrap_or("")))
    };
    match t.auto_indexes.iter_mut().find(|(c, _)| same(c)) {
        Some(existing) => existing.1 |= is_pk,
        None => t.auto_indexes.push((cols, is_pk)),
    }
}

/// Build a table from a CREATE TABLE or CREATE VIEW statement.
pub fn table_from_stmt(stmt: &Stmt<'_>, sql: &str, root: u32) -> Result<Table> {
    match stmt {
        Stmt::CreateTable { tbl_name, body, .. } => {
            let name = unquote(tbl_name.name.0);
            let CreateTableBody::ColumnsAndConstraints { columns, constraints, flags } = body else {
                return Err(Error::unsupported("CREATE TABLE ... AS SELECT"));
            };
            // STORED generated columns are computed on write and read like
            // any other column; VIRTUAL ones are left out of the record and
            // computed on read (in a WITHOUT ROWID table as in any other).
            let unsupported = None;
            let strict = flags.contains(ast::TabFlags::Strict);
            let mut t = Table {
                name: name.clone(),
                db: 0,
                root,
                columns: Vec::new(),
                rowid_alias: None,
                sql: sql.to_string(),
                view_select: None,
                view_columns: None,
                auto_indexes: Vec::new(),
                autoincrement: false,
                checks: Vec::new(),
                unsupported,
                strict,
                foreign_keys: Vec::new(),
                without_rowid: None,
                pk_conflict: None,
                unique_conflicts: Vec::new(),
                scope_columns: ScopeColumnsCache::default(),
                virtual_table: None,
            };
            let mut has_primary_key = false;
            // Types and defaults as the statement writes them (the AST
            // prints them back normalized).
            let written = crate::sql::column_spans::column_spans(sql.as_bytes()).filter(|w| w.len() == columns.len());
            for (n, cd) in columns.iter().enumerate() {
                let written = written.as_ref().map(|w| &w[n]);
                let decltype = match written {
                    Some(w) => w.decltype.clone(),
                    None => cd.col_type.as_ref().map(type_text).filter(|s| !s.is_empty()),
                };
                let mut col = Column {
                    name: unquote(cd.col_name.0),
                    affinity: Affinity::from_decltype(decltype.as_deref().unwrap_or("")),
                    decltype,
                    not_null: false,
                    not_null_conflict: None,
                    default: None,
                    default_is_name: false,
                    default_value: None,
                    collation: None,
                    primary_key: false,
                    generated: None,
                };
                let idx = t.columns.len();
                for c in cd.constraints.iter() {
                    match &c.constraint {
                        ColumnConstraint::PrimaryKey { order, auto_increment, conflict_clause, .. } => {
                            if std::mem::replace(&mut has_primary_key, true) {
                                return Err(Error::sql(format!("table \"{}\" has more than one primary key", t.name)));
                            }
                            t.pk_conflict = t.pk_conflict.or(*conflict_clause);
                            if *auto_increment {
                                let is_int = col.decltype.as_deref().is_some_and(|d| d.eq_ignore_ascii_case("INTEGER"));
                                if !is_int {
                                    return Err(Error::sql("AUTOINCREMENT is only allowed on an INTEGER PRIMARY KEY"));
                                }
                                t.autoincrement = true;
                            }
                            col.primary_key = true;
                            let is_int = col.decltype.as_deref().is_some_and(|d| d.eq_ignore_ascii_case("INTEGER"));
                            if is_int && !matches!(order, Some(SortOrder::Desc)) {
                                t.rowid_alias = Some(idx);
                            } else {
                                add_auto_index(&mut t, vec![(idx, matches!(order, Some(SortOrder::Desc)), None)], true);
                            }
                        }
                        ColumnConstraint::NotNull { nullable, conflict_clause } => {
                            col.not_null = !nullable;
                            col.not_null_conflict = *conflict_clause;
                        }
                        ColumnConstraint::Unique(conflict) => {
                            if let Some(r) = conflict {
                                t.unique_conflicts.push((vec![idx], *r));
                            }
                            add_auto_index(&mut t, vec![(idx, false, None)], false);
                        }
                        ColumnConstraint::Default(e) => {
                            col.default = Some(written.and_then(|w| w.default.clone()).unwrap_or_else(|| e.to_string()));
                            col.default_is_name = matches!(e, ast::Expr::Id(_));
                            // A short record reads the default as the
                            // column would have stored it.
                            col.default_value = default_constant(e).map(|v| crate::value::affinity::apply_column_affinity(v, col.affinity));
                        }
                        ColumnConstraint::Generated { expr, .. } => {
                            col.generated = Some(Generated { expr: expr.to_string(), stored: cd.flags.contains(ast::ColFlags::STORED) });
                        }
                        ColumnConstraint::Collate { collation_name } => col.collation = Some(unquote(collation_name.0)),
                        ColumnConstraint::Check(e) => t.checks.push((c.name.as_ref().map(|n| unquote(n.0)), e.to_string())),
                        ColumnConstraint::ForeignKey { clause, defer_clause } => {
                            t.foreign_keys.push(foreign_key(vec![idx], clause, defer_clause.as_ref()));
                        }
                        // A DEFERRABLE clause after REFERENCES applies to
                        // the foreign key just declared.
                        ColumnConstraint::Defer(d) => {
                            if let Some(fk) = t.foreign_keys.last_mut() {
                                fk.deferred = d.deferrable && matches!(d.init_deferred, Some(ast::InitDeferredPred::InitiallyDeferred));
                            }
                        }
                    }
                }
                t.columns.push(col);
            }
            for c in constraints.iter().flat_map(|c| c.iter()) {
                let cols_of = |cols: &[ast::SortedColumn<'_>], t: &Table| -> Result<Vec<(usize, bool, Option<String>)>> {
                    cols.iter()
                        .map(|sc| {
                            let (e, coll) = match &sc.expr {
                                ast::Expr::Collate(e, c) => (&**e, Some(unquote(c))),
                                e => (e, None),
                            };
                            let n = match e {
                                ast::Expr::Id(id) => unquote(id.0),
                                ast::Expr::Name(n) => unquote(n.0),
                                ast::Expr::Literal(ast::Literal::String(s)) => unquote(s),
                                _ => return Err(Error::sql("expressions prohibited in PRIMARY KEY and UNIQUE constraints")),
                            };
                            let i = t.column_index(&n).ok_or_else(|| Error::sql(format!("no such column: {n}")))?;
                            Ok((i, matches!(sc.order, Some(SortOrder::Desc)), coll))
                        })
                        .collect()
                };
                match &c.constraint {
                    TableConstraint::PrimaryKey { columns: pk, auto_increment, conflict_clause } => {
                        if std::mem::replace(&mut has_primary_key, true) {
                            return Err(Error::sql(format!("table \"{}\" has more than one primary key", t.name)));
                        }
                        let cols = cols_of(pk, &t)?;
                        t.pk_conflict = t.pk_conflict.or(*conflict_clause);
                        t.autoincrement |= *auto_increment;
                        for (i, _, _) in &cols {
                            t.columns[*i].primary_key = true;
                        }
                        let single_int =
                            cols.len() == 1 && t.columns[cols[0].0].decltype.as_deref().is_some_and(|d| d.eq_ignore_ascii_case("INTEGER")) && !cols[0].1;
                        if single_int {
                            t.rowid_alias = Some(cols[0].0);
                        } else {
                            add_auto_index(&mut t, cols, true);
                        }
                    }
                    TableConstraint::Check(e, _) => t.checks.push((c.name.as_ref().map(|n| unquote(n.0)), e.to_string())),
                    TableConstraint::ForeignKey { columns: fc, clause, defer_clause } => {
                        let mut cols = Vec::new();
                        for ic in fc.iter() {
                            let n = unquote(ic.col_name.0);
                            let i = t.column_index(&n).ok_or_else(|| Error::sql(format!("unknown column \"{n}\" in foreign key definition")))?;
                            cols.push(i);
                        }
                        t.foreign_keys.push(foreign_key(cols, clause, defer_clause.as_ref()));
                    }
                    TableConstraint::Unique { columns: u, conflict_clause } => {
                        let cols = cols_of(u, &t)?;
                        if let Some(r) = conflict_clause {
                            t.unique_conflicts.push((cols.iter().map(|c| c.0).collect(), *r));
                        }
                        add_auto_index(&mut t, cols, false);
                    }
                }
            }
            if t.strict {
                for c in t.columns.iter_mut() {
                    let ty = c.decltype.clone().unwrap_or_default().to_ascii_uppercase();
                    c.affinity = match ty.as_str() {
                        "INT" | "INTEGER" => Affinity::Integer,
                        "REAL" => Affinity::Real,
                        "TEXT" => Affinity::Text,
                        "BLOB" | "ANY" => Affinity::Blob,
                        _ => {
                            let shown = c.decltype.clone().unwrap_or_default();
                            if shown.is_empty() {
                                return Err(Error::sql(format!("missing datatype for {}.{}", t.name, c.name)));
                            }
                            return Err(Error::sql(format!("unknown datatype for {}.{}: \"{}\"", t.name, c.name, shown)));
                        }
                    };
                }
            }
            if flags.contains(ast::TabFlags::WithoutRowid) {
                let Some(pos) = t.auto_indexes.iter().position(|(_, is_pk)| *is_pk).or(t.rowid_alias.map(|_| usize::MAX)) else {
                    return Err(Error::sql(format!("PRIMARY KEY missing on table {}", t.name)));
                };
                if t.autoincrement {
                    return Err(Error::sql("AUTOINCREMENT not allowed on WITHOUT ROWID tables"));
                }
                // An INTEGER PRIMARY KEY is an ordinary key column here.
                // Its automatic index is numbered after the others (SQLite
                // makes it when the table is complete).
                let pk = match t.rowid_alias.take() {
                    Some(c) if pos == usize::MAX => {
                        add_auto_index(&mut t, vec![(c, false, None)], true);
                        t.auto_indexes.iter().find(|(_, is_pk)| *is_pk).map(|(cols, _)| cols.clone()).unwrap_or_default()
                    }
                    _ => t.auto_indexes[pos].0.clone(),
                };
                // PRIMARY KEY columns of a WITHOUT ROWID table are NOT NULL.
                for (c, _, _) in &pk {
                    t.columns[*c].not_null = true;
                }
                t.without_rowid = Some(pk);
            }
            // CHECK messages quote the expression as written.
            let written = check_texts(sql);
            if written.len() == t.checks.len() {
                for (c, w) in t.checks.iter_mut().zip(written) {
                    c.1 = w;
                }
            }
            Ok(t)
        }
        Stmt::CreateView { view_name, columns, select, .. } => {
            let name = unquote(view_name.name.0);
            let sel = crate::sql::parse::ast_text(*select);
            Ok(Table {
                name,
                db: 0,
                root: 0,
                columns: Vec::new(),
                rowid_alias: None,
                sql: sql.to_string(),
                view_select: Some(sel),
                view_columns: columns.map(|cs| cs.iter().map(|c| unquote(c.col_name.0)).collect()),
                auto_indexes: Vec::new(),
                autoincrement: false,
                checks: Vec::new(),
                unsupported: None,
                strict: false,
                foreign_keys: Vec::new(),
                without_rowid: None,
                pk_conflict: None,
                unique_conflicts: Vec::new(),
                scope_columns: ScopeColumnsCache::default(),
                virtual_table: None,
            })
        }
        Stmt::CreateVirtualTable { tbl_name, module_name, args, .. } => Ok(virtual_table_entry(
            unquote(tbl_name.name.0),
            VirtualTable { module: unquote(module_name.0), args: args.iter().flat_map(|a| a.iter()).map(|a| a.trim().to_string()).collect() },
            sql,
        )),
        _ => Err(Error::corrupt()),
    }
}

/// The schema entry of a virtual table: no b-tree, no columns (they are
/// declared by its module when it connects).
pub fn virtual_table_entry(name: String, vtab: VirtualTable, sql: &str) -> Table {
    let mut t = schema_table();
    t.name = name;
    t.root = 0;
    t.columns = Vec::new();
    t.sql = sql.to_string();
    t.virtual_table = Some(Arc::new(vtab));
    t
}

/// A foreign key from its parsed clause.
fn foreign_key(columns: Vec<usize>, clause: &ast::ForeignKeyClause<'_>, defer: Option<&ast::DeferSubclause>) -> ForeignKey {
    let action = |a: &ast::RefAct| match a {
        ast::RefAct::SetNull => FkAction::SetNull,
        ast::RefAct::SetDefault => FkAction::SetDefault,
        ast::RefAct::Cascade => FkAction::Cascade,
        ast::RefAct::Restrict => FkAction::Restrict,
        ast::RefAct::NoAction => FkAction::NoAction,
    };
    let mut fk = ForeignKey {
        columns,
        parent: unquote(clause.tbl_name.0),
        parent_columns: clause.columns.map(|cs| cs.iter().map(|c| unquote(c.col_name.0)).collect()).unwrap_or_default(),
        on_delete: FkAction::NoAction,
        on_update: FkAction::NoAction,
        deferred: defer.is_some_and(|d| d.deferrable && matches!(d.init_deferred, Some(ast::InitDeferredPred::InitiallyDeferred))),
    };
    for arg in clause.args.iter() {
        match arg {
            ast::RefArg::OnDelete(a) => fk.on_delete = action(a),
            ast::RefArg::OnUpdate(a) => fk.on_update = action(a),
            _ => {}
        }
    }
    fk
}

/// The source text inside each `CHECK(...)` of a CREATE TABLE, in order.
fn check_texts(sql: &str) -> Vec<String> {
    use sqlite3_parser::dialect::TokenType;
    let b = sql.as_bytes();
    let toks = crate::sql::parse::tokens(b);
    let mut out = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        if t.kind != TokenType::TK_CHECK || toks.get(i + 1).is_none_or(|x| x.kind != TokenType::TK_LP) {
            continue;
        }
        let mut depth = 0;
        let start = toks[i + 1].end;
        for u in &toks[i + 1..] {
            match u.kind {
                TokenType::TK_LP => depth += 1,
                TokenType::TK_RP => {
                    depth -= 1;
                    if depth == 0 {
                        out.push(String::from_utf8_lossy(&b[start..u.start]).trim().to_string());
                        break;
                    }
                }
                _ => {}
            }
        }
    }
    out
}

/// The value of a constant expression (literals, signed numbers).
/// The value of a DEFAULT clause when it is constant: `constant_value`,
/// plus the bare names SQLite reads as text there (`DEFAULT abc` is
/// 'abc'; `true` and `false` are 1 and 0).
pub fn default_constant(e: &ast::Expr<'_>) -> Option<Value> {
    match e {
        ast::Expr::Id(id) if id.0.eq_ignore_ascii_case("true") => Some(Value::Integer(1)),
        ast::Expr::Id(id) if id.0.eq_ignore_ascii_case("false") => Some(Value::Integer(0)),
        ast::Expr::Id(id) => Some(Value::text(unquote(id.0))),
        _ => constant_value(e),
    }
}

impl Column {
    /// The DEFAULT as SQL text to compile (None without one).
    pub fn default_sql(&self) -> Option<String> {
        if !self.default_is_name {
            return self.default.clone();
        }
        Some(match &self.default_value {
            Some(Value::Integer(i)) => i.to_string(),
            Some(Value::Text(t)) => format!("'{}'", String::from_utf8_lossy(t).replace('\'', "''")),
            _ => return self.default.clone(),
        })
    }
}

pub fn constant_value(e: &ast::Expr<'_>) -> Option<Value> {
    use crate::value::literal::{parse_numeric, Number};
    match e {
        ast::Expr::Literal(ast::Literal::Numeric(s)) => Some(match parse_numeric(s).ok()? {
            Number::Int(i) => Value::Integer(i),
            Number::Real(r) => Value::Real(r),
        }),
        ast::Expr::Literal(ast::Literal::String(s)) => Some(Value::text(unquote(s))),
        ast::Expr::Literal(ast::Literal::Null) => Some(Value::Null),
        // -9223372036854775808 is the smallest integer, not a REAL.
        ast::Expr::Unary(ast::UnaryOperator::Negative, x) if matches!(&**x, ast::Expr::Literal(ast::Literal::Numeric(s)) if s.parse::<u64>() == Ok(1u64 << 63)) => {
            Some(Value::Integer(i64::MIN))
        }
        ast::Expr::Unary(ast::UnaryOperator::Negative, x) => match constant_value(x)? {
            // (The smallest integer negated does not fit: a REAL.)
            Value::Integer(i64::MIN) => Some(Value::Real(9223372036854775808.0)),
            Value::Integer(i) => Some(Value::Integer(i.wrapping_neg())),
            Value::Real(r) => Some(Value::Real(-r)),
            // Negating text negates its numeric value ('x' counts as 0).
            t @ Value::Text(_) => match crate::value::affinity::cast(t, Affinity::Numeric) {
                Value::Integer(i) => Some(Value::Integer(i.wrapping_neg())),
                Value::Real(r) => Some(Value::Real(-r)),
                _ => None,
            },
            _ => None,
        },
        ast::Expr::Unary(ast::UnaryOperator::Positive, x) => constant_value(x),
        ast::Expr::Parenthesized(v) if v.len() == 1 => constant_value(&v[0]),
        _ => None,
    }
}

/// Build an index from its stored CREATE INDEX statement.
pub fn index_from_sql(sql: &str, root: u32, schema: &Schema) -> Result<Index> {
    with_first_statement(sql.as_bytes(), |cmd, _| match cmd {
        Some(Cmd::Stmt(stmt)) => index_from_stmt(stmt, Some(sql.to_string()), root, schema),
        _ => Err(Error::corrupt()),
    })
}

/// Build an index from a CREATE INDEX statement.
pub fn index_from_stmt(stmt: &Stmt<'_>, sql: Option<String>, root: u32, schema: &Schema) -> Result<Index> {
    let Stmt::CreateIndex { unique, idx_name, tbl_name, columns, where_clause, .. } = stmt else {
        return Err(Error::corrupt());
    };

    let tname = unquote(tbl_name.0);
    let t = schema.table(&tname).ok_or_else(|| Error::sql(format!("no such table: main.{tname}")))?;
    let mut cols = Vec::new();
    for sc in columns.iter() {
        let (mut e, coll) = match &sc.expr {
            ast::Expr::Collate(e, c) => (&**e, Some(unquote(c))),
            e => (e, None),
        };
        // Parentheses around a column name still index the column.
        while let ast::Expr::Parenthesized(v) = e {
            if v.len() != 1 {
                break;
            }
            e = &v[0];
        }
        let name = match e {
            ast::Expr::Id(id) => Some(unquote(id.0)),
            ast::Expr::Name(n) => Some(unquote(n.0)),
            ast::Expr::Literal(ast::Literal::String(s)) => Some(unquote(s)),
            _ => None,
        };
        let descending = matches!(sc.order, Some(SortOrder::Desc));
        match name {
            Some(n) => match t.column_index(&n) {
                Some(i) => cols.push(IndexColumn { column: Some(i), expr: None, descending, collation: coll }),
                None => return Err(Error::sql(format!("no such column: {n}"))),
            },
            None => cols.push(IndexColumn { column: None, expr: Some(e.to_string()), descending, collation: coll }),
        }
    }
    Ok(Index {
        name: unquote(idx_name.name.0),
        db: t.db,
        table: t.name.clone(),
        root,
        columns: cols,
        unique: *unique,
        sql,
        origin: "c",
        where_sql: where_clause.as_ref().map(|w| w.to_string()),
        on_conflict: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn virtual_table_entry_keeps_module_and_arguments() {
        let sql = "CREATE VIRTUAL TABLE \"a b\" USING \"my mod\"(x, y  INT , z = (1, (2)), 'q', [w])";
        let t = table_from_sql(sql, 0).unwrap();
        assert_eq!(t.name, "a b");
        assert_eq!((t.root, t.columns.len(), t.sql.as_str()), (0, 0, sql));
        let v = t.virtual_table.as_deref().unwrap();
        assert_eq!(v.module, "my mod");
        assert_eq!(v.args, ["x", "y  INT", "z = (1, (2))", "'q'", "[w]"]);
        assert_eq!(t.connect().unwrap_err().message, "no such module: my mod");
        let bare = table_from_sql("CREATE VIRTUAL TABLE t USING m", 0).unwrap();
        assert_eq!(bare.virtual_table.as_deref().map(|v| v.args.len()), Some(0));
    }

    #[test]
    fn internal_names_compare_bytes() {
        for (name, internal) in
            [("sqlite_x", true), ("SQLITE_", true), ("sqlite", false), ("sqliteé", false), ("ääääääää", false), ("sqlite_é", true), ("日本語テーブル", false)]
        {
            assert_eq!(is_internal_name(name), internal, "{name}");
        }
    }
}
