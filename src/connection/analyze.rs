//! # ANALYZE
//!
//! `lang_analyze.txt`. The statement compiles to a description
//! ([`Analyze`]: the database, and a table or index to limit it to); the
//! connection runs it here, as one transaction (joining the open one, if
//! any):
//!
//! 1. `sqlite_stat1(tbl,idx,stat)` is created in that database when
//!    missing (the only `sqlite_` name SQL may not create itself);
//! 2. its rows for what is analyzed are deleted (all of them for a whole
//!    database, `tbl=` for a table, `idx=` for one index);
//! 3. each index's entries are read in order and counted: `stat` is the
//!    number of entries followed, for each prefix of the key columns, by
//!    the average number of entries that share a value of that prefix,
//!    rounded up (NULLs count as equal; each column compares with its
//!    index collation). A table without an index over all its rows gets a
//!    row with a NULL `idx` and its row count; a WITHOUT ROWID table's primary key is
//!    reported under the table's own name, as SQLite does.
//!
//! As in SQLite: tables named `sqlite_*` and views are skipped, as are
//! empty tables and indexes (an empty partial index still gets "0 0..."),
//! and a bare ANALYZE leaves the TEMP database alone (`ANALYZE temp` on a
//! TEMP database without tables does nothing here, where SQLite creates
//! an empty `temp.sqlite_stat1`). The statistics are read
//! back into the schema when the statement ends, so the planner uses them
//! from the next statement on (`sql/schema/stats.rs`). Tables are visited in SQLite's order
//! (`sql/schema_visit_order.rs`), so the rows are written in its order.

use super::vacuum::run;
use super::Connection;
use crate::btree::Cursor;
use crate::error::{Error, Result};
use crate::util::ascii::AsciiLower;
use crate::value::compare::compare_values;
use crate::value::record::{decode_record, KeyInfo};
use crate::value::Value;
use crate::vdbe::program::Analyze;
use std::cmp::Ordering;
use std::sync::Arc;

/// One `sqlite_stat1` row to write.
struct StatRow {
    tbl: String,
    idx: Option<String>,
    stat: String,
}

impl Connection {
    /// Run an ANALYZE statement.
    pub(super) fn analyze(&mut self, a: &Analyze) -> Result<()> {
        let db = self.state.dbs.iter().position(|d| d.name.eq_ci(&a.schema)).ok_or_else(|| Error::sql(format!("unknown database {}", a.schema)))?;
        let schema_name = self.state.dbs[db].name.clone();
        if db == 1 && self.schema_for(1).tables.is_empty() {
            // Nothing to count (SQLite would still create an empty
            // temp.sqlite_stat1).
            return Ok(());
        }
        // (Its writes to the statistics tables are not changes an
        // application counts, as in SQLite: the counters are kept.)
        let counted = (self.state.changes, self.state.total_changes, self.state.last_insert_rowid);
        let begun = self.state.autocommit;
        if begun {
            run(self, "BEGIN", &[], |_| Ok(()))?;
        }
        let done = self.analyze_in_transaction(a, db, &schema_name);
        (self.state.changes, self.state.total_changes, self.state.last_insert_rowid) = counted;
        if begun {
            let end = if done.is_ok() { "COMMIT" } else { "ROLLBACK" };
            let ended = run(self, end, &[], |_| Ok(()));
            done?;
            ended?;
        } else {
            done?;
        }
        // The planner takes the new statistics from here on (`ANALYZE
        // sqlite_schema` does only this).
        self.reload_stats(db)
    }

    /// Read database `db`'s `sqlite_stat1` again into its schema; every
    /// statement is planned with it from its next run.
    fn reload_stats(&mut self, db: usize) -> Result<()> {
        let Some(schema) = self.schemas.get_mut(db) else { return Ok(()) };
        let mut schema = std::mem::take(schema);
        let changed = super::in_read_txn(&mut self.state, db, |io, bt| Ok(super::schema_load::load_stats(io, bt, &mut schema)));
        self.schemas[db] = schema;
        if changed? {
            let names: Vec<String> = self.state.dbs.iter().map(|d| d.name.clone()).collect();
            self.merged = Arc::new(crate::sql::schema::Schema::merged(&self.schemas.iter().collect::<Vec<_>>(), &names));
            self.schema_generation += 1;
            // (As in SQLite, the statements already prepared are planned
            // again: an application's cached statement follows ANALYZE.)
            self.expire_statements();
        }
        Ok(())
    }

    fn analyze_in_transaction(&mut self, a: &Analyze, db: usize, schema_name: &str) -> Result<()> {
        let q = |n: &str| format!("\"{}\"", n.replace('"', "\"\""));
        let stat_table = format!("{}.sqlite_stat1", q(schema_name));
        // SQLite chooses the order before sqlite_stat1 joins the schema.
        let visit_order = tables_in_visit_order(self.schema_for(db));
        // A sqlite_stat1 that is a virtual table (planted with
        // writable_schema) has no b-tree SQLite could write: it reports
        // the database as corrupt.
        if self.schema_for(db).table("sqlite_stat1").is_some_and(|t| t.root == 0) {
            return Err(Error::new(crate::error::SQLITE_CORRUPT, "database disk image is malformed"));
        }
        if self.schema_for(db).table("sqlite_stat1").is_none() {
            self.internal_sql = true;
            let made = run(self, &format!("CREATE TABLE {stat_table}(tbl,idx,stat)"), &[], |_| Ok(()));
            self.internal_sql = false;
            made?;
        }
        let schema = self.schema_for(db).clone();
        let (tables, only_index) = match &a.target {
            None => (visit_order, None),
            Some(name) => match schema.index(name) {
                Some(ix) => (schema.table(&ix.table).cloned().into_iter().collect(), Some(ix.name.clone())),
                None => (schema.table(name).cloned().into_iter().collect(), None),
            },
        };
        match (&a.target, &only_index) {
            (None, _) => run(self, &format!("DELETE FROM {stat_table}"), &[], |_| Ok(()))?,
            (Some(_), Some(ix)) => run(self, &format!("DELETE FROM {stat_table} WHERE idx=?"), &[Value::text(ix.clone())], |_| Ok(()))?,
            (Some(_), None) => {
                for t in &tables {
                    run(self, &format!("DELETE FROM {stat_table} WHERE tbl=?"), &[Value::text(t.name.clone())], |_| Ok(()))?;
                }
            }
        }
        let mut rows = Vec::new();
        for t in tables.iter().filter(|t| t.view_select.is_none() && t.root > 0 && !is_internal(&t.name)) {
            let mut indexes: Vec<_> = schema.indexes_of(t).into_iter().filter(|i| only_index.as_ref().is_none_or(|o| o.eq_ci(&i.name))).cloned().collect();
            indexes.reverse();
            for ix in &indexes {
                let ki = self.key_info_for_index(db, ix)?;
                if let Some(stat) = self.index_stat(db, ix.root, true, ki, ix.columns.len(), ix.where_sql.is_some())? {
                    rows.push(StatRow { tbl: t.name.clone(), idx: Some(ix.name.clone()), stat });
                }
            }
            // The primary key, the table's first index, comes last (SQLite
            // lists a table's newer indexes first).
            if let Some(pk) = &t.without_rowid {
                // The table is its primary key's index.
                let ki = self.key_info_for_table(db, t)?;
                if only_index.is_none() {
                    if let Some(stat) = self.index_stat(db, t.root, true, ki, pk.len(), false)? {
                        rows.push(StatRow { tbl: t.name.clone(), idx: Some(t.name.clone()), stat });
                    }
                }
            }
            // Without an index over every row, the row count gets a row of
            // its own (after the partial indexes', as SQLite writes it).
            if t.without_rowid.is_none() && only_index.is_none() && indexes.iter().all(|ix| ix.where_sql.is_some()) {
                let n = self.count_entries(db, t.root)?;
                if n > 0 {
                    rows.push(StatRow { tbl: t.name.clone(), idx: None, stat: n.to_string() });
                }
            }
        }
        for r in rows {
            let idx = r.idx.map_or(Value::Null, Value::text);
            run(self, &format!("INSERT INTO {stat_table} VALUES(?, ?, ?)"), &[Value::text(r.tbl), idx, Value::text(r.stat)], |_| Ok(()))?;
        }
        Ok(())
    }

    /// Entries of the table B-tree at `root`.
    fn count_entries(&mut self, db: usize, root: u32) -> Result<i64> {
        let io = self.state.io.clone();
        let bt = &mut self.state.dbs[db].btree;
        let mut cur = Cursor::new(root, false, None);
        io.block_on(|| cur.count(bt)).map(|n| n as i64)
    }

    /// `stat` of the index B-tree at `root` with `n_cols` key columns
    /// compared under `ki`; `None` when it is empty (unless `partial`).
    fn index_stat(&mut self, db: usize, root: u32, is_index: bool, ki: Arc<KeyInfo>, n_cols: usize, partial: bool) -> Result<Option<String>> {
        let io = self.state.io.clone();
        let bt = &mut self.state.dbs[db].btree;
        let mut cur = Cursor::new(root, is_index, Some(ki.clone()));
        let mut more = io.block_on(|| cur.first(bt))?;
        let mut entries: i64 = 0;
        let mut distinct = vec![0i64; n_cols];
        let mut prev: Option<Vec<Value>> = None;
        while more {
            let payload = io.block_on(|| cur.payload(bt).map(|p| p.map(|s| s.to_vec())))?;
            let key = decode_record(&payload)?;
            entries += 1;
            // The first column whose value differs from the previous entry's:
            // every prefix from there on has a new distinct value.
            let first_new = match &prev {
                None => 0,
                Some(p) => (0..n_cols)
                    .find(|&i| {
                        let coll = ki.fields.get(i).map(|f| &f.collation);
                        compare_values(p.get(i).unwrap_or(&Value::Null).as_ref(), key.get(i).unwrap_or(&Value::Null).as_ref(), coll) != Ordering::Equal
                    })
                    .unwrap_or(n_cols),
            };
            for d in distinct.iter_mut().skip(first_new) {
                *d += 1;
            }
            prev = Some(key);
            more = io.block_on(|| cur.next(bt))?;
        }
        if entries == 0 && !partial {
            return Ok(None);
        }
        let mut stat = entries.to_string();
        for d in distinct {
            let mut avg = if d == 0 { 0 } else { (entries + d - 1) / d };
            // (SQLite reports 1 rather than 2 when the entries are within
            // 10% of the distinct values: a key that is nearly unique.)
            if avg == 2 && entries * 10 <= d * 11 {
                avg = 1;
            }
            stat.push_str(&format!(" {avg}"));
        }
        Ok(Some(stat))
    }
}

/// Tables ANALYZE never looks at.
/// Every table and view of `schema`, in the order SQLite's ANALYZE
/// visits them (which decides the order of the `sqlite_stat1` rows).
fn tables_in_visit_order(schema: &crate::sql::schema::Schema) -> Vec<crate::sql::schema::Table> {
    let names = schema.visit_order.names();
    let mut tables: Vec<crate::sql::schema::Table> = names.into_iter().filter_map(|n| schema.table(n).cloned()).collect();
    // A table the order lost track of is still counted.
    for t in schema.tables.values() {
        if !tables.iter().any(|u| u.name.eq_ci(&t.name)) {
            tables.push(crate::sql::schema::Table::clone(t));
        }
    }
    tables
}

fn is_internal(name: &str) -> bool {
    crate::sql::schema::is_internal_name(name)
}

impl Connection {
    /// The schema of database `db` (0 main, 1 temp, 2.. attached).
    fn schema_for(&self, db: usize) -> &crate::sql::schema::Schema {
        static EMPTY: std::sync::OnceLock<crate::sql::schema::Schema> = std::sync::OnceLock::new();
        self.schemas.get(db).unwrap_or_else(|| EMPTY.get_or_init(Default::default))
    }

    /// A compiler over the current schema, for key descriptions.
    fn with_compiler<T>(&self, db: usize, f: impl FnOnce(&crate::sql::codegen::Compiler<'_>) -> Result<T>) -> Result<T> {
        let databases = [("main".to_string(), String::new()), ("temp".to_string(), String::new())];
        let env = crate::sql::codegen::CompileEnv::bare(self.schema_for(db), &self.funcs, &self.collations, &databases);
        let c = crate::sql::codegen::Compiler::new(&env, b"");
        f(&c)
    }

    /// How an index's entries compare (its columns' collations).
    pub(super) fn key_info_for_index(&self, db: usize, ix: &crate::sql::schema::Index) -> Result<Arc<KeyInfo>> {
        self.with_compiler(db, |c| c.index_key_info(ix))
    }

    /// How a WITHOUT ROWID table's entries compare (its primary key's).
    fn key_info_for_table(&self, db: usize, t: &crate::sql::schema::Table) -> Result<Arc<KeyInfo>> {
        self.with_compiler(db, |c| c.without_rowid_key_info(t))
    }
}
