//! The in-memory schema: tables, indexes and views of one database, built
//! from the CREATE statements stored in `sqlite_schema` (`fileformat2.txt`
//! section 2.6) and reloaded whenever the schema cookie changes. This
//! module only parses rows and keeps them; reading them from the file is
//! the connection's (`connection/schema_load.rs`). Parsing CREATE
//! statements into tables and indexes is `schema/create.rs`'s, the merged
//! schema of several databases `schema/merged.rs`'s.
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
//! table's `rowid_alias` is the column declared `INTEGER PRIMARY KEY`
//! (checked: rowid_alias_integer_pk); an
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

mod create;
mod merged;
mod stats;
mod stored_check;

use super::schema_visit_order::TableVisitOrder;
use crate::error::{Error, Result};
use crate::util::ascii::AsciiLower;
use crate::value::affinity::Affinity;
use crate::value::Value;
pub use create::{constant_value, default_constant, index_from_sql, index_from_stmt, table_from_sql, table_from_stmt, virtual_table_entry};
use sqlite3_parser::ast;
pub use stats::{IndexStat, StatRow, TableStat};
use std::collections::BTreeMap;
use std::sync::Arc;
pub use stored_check::{check_stored_rows, StoredCheckMemo, StoredRow};

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
#[derive(Debug, Clone, Default)]
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
    /// What `sqlite_stat1` says of the table's rows (see `stats.rs`).
    pub stat: Option<TableStat>,
    /// A WITHOUT ROWID table: `sqlite_stat1` of its primary key.
    pub pk_stat: Option<Arc<IndexStat>>,
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
        self.columns.iter().position(|c| c.name.eq_ci(name))
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
            if !out.iter().any(|(x, _, k)| x == c && k.eq_ci(&coll)) {
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
            let held = idx.columns.iter().any(|ic| ic.column == Some(col) && self.key_collation(ic.column, &ic.collation).eq_ci(&coll));
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
                if let Some(s) = suffix.iter().position(|(c, _, k)| c == col && k.eq_ci(coll)) {
                    return n + s;
                }
                idx.columns.iter().position(|ic| ic.column == Some(*col) && self.key_collation(ic.column, &ic.collation).eq_ci(coll)).unwrap_or(n)
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
    /// What `sqlite_stat1` says of it (see `stats.rs`).
    pub stat: Option<Arc<IndexStat>>,
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
    /// Per-database schemas: what checking the rows as they were read
    /// learned from their text, for the next read (`stored_check.rs`).
    pub stored_check: StoredCheckMemo,
}

/// One `sqlite_schema` row: (type, name, tbl_name, rootpage, sql).
pub type SchemaRow = (String, String, String, i64, Option<String>);

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
        self.tables.get(&name.ascii_lower())
    }

    /// An index by name.
    pub fn index(&self, name: &str) -> Option<&Index> {
        if !name.bytes().any(|b| b.is_ascii_uppercase()) {
            return self.indexes.get(name).map(|i| &**i);
        }
        self.indexes.get(&name.ascii_lower()).map(|i| &**i)
    }

    /// Indexes of a table, in creation order (order of their rows in
    /// `sqlite_schema`).
    pub fn indexes_of(&self, table: &Table) -> Vec<&Index> {
        let mut v: Vec<&Index> = self.indexes.values().map(|i| &**i).filter(|i| i.table.eq_ci(&table.name) && i.db == table.db).collect();
        let order = |i: &Index| self.rows.iter().enumerate().position(|(n, r)| r.1.eq_ci(&i.name) && self.row_db(n) == i.db).unwrap_or(usize::MAX);
        crate::util::cold_sort::sort_by_key(&mut v, |i| order(i));
        v
    }

    /// After a statement that only appended rows to this database's schema
    /// table (a CREATE): parse the rows read after the last one known
    /// (`connection/schema_load.rs` reads them), the others being
    /// unchanged.
    pub fn append_rows(&mut self, cookie: u32, rows: Vec<SchemaRow>, row_ids: Vec<i64>) -> Result<()> {
        self.cookie = cookie;
        // The new rows are parsed once, for the next check of the rows
        // too (`stored_check.rs`).
        let mut memo = std::mem::take(&mut self.stored_check);
        memo.remember(&rows, self.rows.len());
        let added = self.add_rows(&rows, None, Some(&memo));
        self.stored_check = memo;
        added?;
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
            let key = row.1.ascii_lower();
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
        Schema::from_rows_reusing(rows, cookie, None, None, "sqlite_master")
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
        memo: Option<&StoredCheckMemo>,
        schema_table: &str,
    ) -> Result<Schema> {
        // The common change appends rows (CREATE): the previous schema is
        // taken whole and only the new rows are parsed.
        if let Some(p) = previous {
            let n = p.rows.len();
            if rows.len() >= n && rows[..n] == p.rows[..] && p.tables.values().all(|t| t.unsupported.is_none()) {
                let mut s = Schema { cookie, tables: p.tables.clone(), indexes: p.indexes.clone(), visit_order: p.visit_order.clone(), ..Default::default() };
                s.add_rows(&rows[n..], None, memo)?;
                enter_tables(&mut s.visit_order, &rows[n..]);
                s.rows = rows;
                return Ok(s);
            }
        }
        let mut s = Schema { cookie, ..Schema::empty(schema_table) };
        s.add_rows(&rows, previous, memo)?;
        enter_tables(&mut s.visit_order, &rows);
        s.rows = rows;
        Ok(s)
    }

    /// Add the tables and views of `rows`, then their indexes (see
    /// [`Schema::from_rows_reusing`] for `previous`), taking the tables
    /// `memo` built from the same text rather than parsing it again.
    fn add_rows(&mut self, rows: &[(String, String, String, i64, Option<String>)], previous: Option<&Schema>, memo: Option<&StoredCheckMemo>) -> Result<()> {
        let unchanged: std::collections::HashSet<&(String, String, String, i64, Option<String>)> =
            previous.map(|p| p.rows.iter().collect()).unwrap_or_default();
        let mut reused_tables: std::collections::HashSet<String> = std::collections::HashSet::new();
        for row in rows {
            let (ty, name, _tbl, root, sql) = row;
            if ty == "table" || ty == "view" {
                if let Some(sql) = sql {
                    let key = name.ascii_lower();
                    // A second row of the same name (CREATE ... IF NOT
                    // EXISTS, written under writable_schema) does not
                    // replace the first, as in SQLite.
                    if self.tables.contains_key(&key) {
                        continue;
                    }
                    if unchanged.contains(row) {
                        if let Some(t) = previous.and_then(|p| p.tables.get(&key)).filter(|t| t.unsupported.is_none() && t.root == *root as u32) {
                            self.tables.insert(key.clone(), Arc::clone(t));
                            reused_tables.insert(key);
                            continue;
                        }
                    }
                    if let Some(t) = memo.and_then(|m| m.table(row)) {
                        debug_assert_eq!(t.sql, *sql);
                        self.tables.insert(key, t);
                        continue;
                    }
                    let t = match table_from_sql(sql, *root as u32) {
                        Ok(t) => t,
                        Err(e) if e.primary() == crate::error::SQLITE_ERROR => continue,
                        Err(e) => return Err(e),
                    };
                    self.tables.insert(name.ascii_lower(), Arc::new(t));
                }
            }
        }
        for row in rows {
            let (ty, name, tbl, root, sql) = row;
            if ty != "index" {
                continue;
            }
            let key = name.ascii_lower();
            if unchanged.contains(row) && reused_tables.contains(&tbl.ascii_lower()) {
                if let Some(idx) = previous.and_then(|p| p.indexes.get(&key)) {
                    self.indexes.insert(key, idx.clone());
                    continue;
                }
            }
            let idx = match sql {
                Some(sql) => match memo.and_then(|m| m.index(row, self)).unwrap_or_else(|| index_from_sql(sql, *root as u32, self)) {
                    Ok(i) => i,
                    Err(e) => {
                        // An index we cannot maintain: its table stays
                        // readable but refuses changes.
                        if let Some(t) = self.tables.get_mut(&tbl.ascii_lower()) {
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
                        stat: None,
                    }
                }
            };
            self.indexes.insert(name.ascii_lower(), Arc::new(idx));
        }
        Ok(())
    }
}

/// The tables and views of `rows` entering a schema's visiting order.
fn enter_tables(order: &mut TableVisitOrder, rows: &[SchemaRow]) {
    for (ty, name, ..) in rows {
        if ty == "table" || ty == "view" {
            order.insert(name);
        }
    }
}

/// Whether `name` is in SQLite's reserved namespace: it begins with
/// `sqlite_` in any case. Compared as bytes: a name is any UTF-8 text, and
/// its seventh byte may be inside a character.
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
        root: 1,
        columns: vec![col("type", "text"), col("name", "text"), col("tbl_name", "text"), col("rootpage", "int"), col("sql", "text")],
        sql: "CREATE TABLE sqlite_schema(type text,name text,tbl_name text,rootpage int,sql text)".into(),
        ..Table::default()
    }
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
