//! # `PRAGMA integrity_check` and `quick_check`
//!
//! Two layers of checks, in SQLite's order and wording:
//! 1. the B-tree structure of the whole database file (`IntegrityCk`, see
//!    `btree/integrity.rs`): one result row headed "*** in database main ***"
//!    holding every structural error;
//! 2. the SQL level, table by table: each index that is not partial must
//!    hold as many entries as its table has rows ("wrong # of entries in
//!    index X", all tables first); then every row is read once and checked
//!    for NULLs in NOT NULL columns ("NULL value in t.c"), for values not
//!    stored through their column's affinity ("NUMERIC value in t.c",
//!    "TEXT value in t.c", SQLite 3.54) and, by
//!    `integrity_check` only, for its entry in each index ("row N missing
//!    from index X", N counting rows from 1) and, in a UNIQUE index, for a
//!    second entry with the same key ("non-unique entry in index X").
//!
//! Every error is its own result row; the argument N (default 100) caps
//! how many are reported, after which the statement stops; a clean check
//! answers the single row "ok". Tables are visited in the order SQLite's
//! schema hash lists them for small schemas (the reverse of
//! `sqlite_schema`), and so are the indexes of a table. WITHOUT ROWID
//! tables get only the structural checks.
//!
//! The program only reads: every cursor is a read cursor and the checks
//! suspend on I/O like any scan.

use crate::error::Result;
use crate::sql::codegen::target::WriteTarget;
use crate::sql::codegen::Compiler;
use crate::sql::schema::{Index, Table};
use crate::util::ascii::AsciiLower;
use crate::vdbe::program::{Opcode, P4};

/// `IsType` masks (P5): one bit per storage class, SQLite's.
const TYPE_INTEGER: u16 = 0x01;
const TYPE_FLOAT: u16 = 0x02;
const TYPE_TEXT: u16 = 0x04;
const TYPE_BLOB: u16 = 0x08;
const TYPE_NULL: u16 = 0x10;

/// Registers following SQLite's cursor header cache within one row (see
/// `check_columns`): how many fields' types it holds, and whether an
/// error row since made it stale (1).
struct HeaderModel {
    parsed: i32,
    stale: i32,
}

/// What one check covers.
pub struct IntegrityScope<'a> {
    /// The databases, in order: (index, schema name).
    pub dbs: Vec<(usize, String)>,
    /// `quick_check`: no index-content checks.
    pub quick: bool,
    /// Most errors to report.
    pub max_errors: i64,
    /// Only this table (and its indexes) at the SQL level.
    pub table: Option<&'a str>,
    /// Whether the PRAGMA named the database (an unknown table is then
    /// "no such table: db.t", else "no such table: t").
    pub named_db: bool,
}

impl Compiler<'_> {
    /// Emit the whole check; the caller has opened the read transaction.
    pub fn integrity_check(&mut self, scope: &IntegrityScope<'_>) -> Result<()> {
        if let Some(only) = scope.table {
            let known = scope.dbs.iter().any(|(db, _)| self.env.schema.tables.values().any(|t| t.db == *db && t.name.eq_ci(only)));
            if !known {
                let db_name = scope.dbs.first().map_or("main", |d| d.1.as_str());
                return Err(crate::error::Error::sql(if scope.named_db {
                    format!("no such table: {db_name}.{only}")
                } else {
                    format!("no such table: {only}")
                }));
            }
        }
        let remaining = self.b.reg();
        self.b.add4(Opcode::Int64, 0, remaining, 0, P4::Int64(scope.max_errors), 0);
        let done = self.b.label();
        for (db, _) in &scope.dbs {
            self.integrity_check_db(*db, scope, remaining, done)?;
        }
        // Nothing reported: "ok".
        let limit = self.b.reg();
        self.b.add4(Opcode::Int64, 0, limit, 0, P4::Int64(scope.max_errors), 0);
        self.b.add4(Opcode::Ne, remaining, done, limit, P4::None, 0);
        let ok = self.b.reg();
        self.b.add4(Opcode::String8, 0, ok, 0, P4::bytes(b"ok".to_vec()), 0);
        self.b.add(Opcode::ResultRow, ok, 1, 0);
        self.b.bind(done);
        Ok(())
    }

    /// Both layers of checks for database `db`.
    fn integrity_check_db(&mut self, db: usize, scope: &IntegrityScope<'_>, remaining: i32, done: i32) -> Result<()> {
        let schema = self.env.schema;
        // (A table whose root page reads as 0 is checked too: opening it fails
        // the statement with SQLITE_CORRUPT, as in SQLite.)
        let mut tables: Vec<&Table> = schema.tables.values().map(|t| &**t).filter(|t| t.db == db && (t.root > 0 || t.view_select.is_none())).collect();
        crate::util::cold_sort::sort_by_key(&mut tables, |t| std::cmp::Reverse(schema_position(self, &t.name)));
        // SQLite's order: each table followed by its indexes, the schema
        // table last while there are at most three tables (views counted too,
        // unverified), first from four on (as observed; SQLite's schema hash lists it so). Which tree
        // meets a page referenced twice first decides where the second
        // reference is reported.
        let schema_first = schema.tables.values().filter(|t| t.db == db && !t.name.eq_ci("sqlite_master") && !t.name.eq_ci("sqlite_schema")).count() >= 4;
        let mut roots: Vec<u32> = if schema_first { vec![1] } else { Vec::new() };
        // Views (and any table whose root reads as 0) are listed too, with
        // a root of 0, as SQLite lists every table with a rowid: its tree
        // check passes over them, but one listed first marks the check
        // partial (no freelist, pages never used or header roots), as in
        // SQLite.
        let mut listed_tables: Vec<&Table> = schema.tables.values().map(|t| &**t).filter(|t| t.db == db && t.root != 1).collect();
        crate::util::cold_sort::sort_by_key(&mut listed_tables, |t| std::cmp::Reverse(schema_position(self, &t.name)));
        for t in listed_tables {
            roots.push(t.root);
            if t.root > 0 {
                roots.extend(schema.indexes_of(t).into_iter().rev().map(|i| i.root));
            }
        }
        let listed: std::collections::HashSet<u32> = roots.iter().copied().collect();
        roots.extend(schema.indexes.values().filter(|i| i.db == db && !listed.contains(&i.root)).map(|i| i.root));
        if !schema_first {
            roots.push(1);
        }
        if let Some(only) = scope.table {
            // One table: its trees only, marked partial by a first root of 0
            // (`btree::integrity`), as SQLite lists them.
            roots = vec![0];
            for t in schema.tables.values().filter(|t| t.db == db && t.root > 0 && t.name.eq_ci(only)) {
                roots.push(t.root);
                roots.extend(schema.indexes_of(t).into_iter().rev().map(|i| i.root).filter(|r| *r != t.root));
            }
        }

        let structure = self.b.reg();
        self.b.add4(Opcode::IntegrityCk, structure, remaining, db as i32, P4::roots(roots), 1);
        let clean = self.b.label();
        self.b.add(Opcode::IsNull, structure, clean, 0);
        self.b.add(Opcode::ResultRow, structure, 1, 0);
        self.b.add(Opcode::IfPos, remaining, clean, 0);
        self.b.add(Opcode::Goto, 0, done, 0);
        self.b.bind(clean);

        let checked: Vec<&Table> =
            tables.into_iter().filter(|t| t.view_select.is_none()).filter(|t| scope.table.is_none_or(|only| t.name.eq_ci(only))).collect();
        let indexes_of = |t: &Table| -> Vec<Index> {
            let mut v: Vec<Index> = schema.indexes_of(t).into_iter().cloned().collect();
            v.reverse();
            v
        };

        // Entry counts: every table's, then every full index's against it.
        // SQLite counts a tree's entries in its structure pass, which stops
        // at a page already met: of trees sharing a root, only the first
        // walked (in `roots` order) has entries, the others none.
        let mut walked: std::collections::HashSet<u32> = std::collections::HashSet::new();
        if schema_first && scope.table.is_none() {
            walked.insert(1);
        }
        let mut counted = Vec::new();
        for t in &checked {
            if t.virtual_table.is_some() {
                counted.push(*t);
                continue;
            }
            let rows = if t.root > 0 && t.without_rowid.is_none() && !walked.insert(t.root) {
                self.zero_count()
            } else if t.without_rowid.is_some() {
                // (Its tree is an index tree: counted through its key.)
                let cur = self.b.cursor();
                self.open_without_rowid_read(cur, t)?;
                let n = self.b.reg();
                self.b.add(Opcode::Count, cur, n, 0);
                self.b.add(Opcode::Close, cur, 0, 0);
                n
            } else {
                self.count_entries(t.root, db, None)?
            };
            for idx in indexes_of(t) {
                // (A partial index is walked too, but not counted.)
                let first_walk = walked.insert(idx.root);
                if idx.where_sql.is_some() {
                    continue;
                }
                let entries = if first_walk { self.count_entries(idx.root, db, Some(&idx))? } else { self.zero_count() };
                let same = self.b.label();
                self.b.add4(Opcode::Eq, entries, same, rows, P4::None, 0);
                self.report_text(format!("wrong # of entries in index {}", idx.name), remaining, done);
                self.b.bind(same);
            }
            counted.push(*t);
        }

        for t in counted {
            if t.virtual_table.is_some() {
                self.check_vtab(t, db, scope.quick, remaining, done);
                continue;
            }
            self.check_rows(t, indexes_of(t), db, scope.quick, remaining, done)?;
        }
        Ok(())
    }

    /// A register holding 0: the count of a tree whose root the structure
    /// pass had already met.
    fn zero_count(&mut self) -> i32 {
        let n = self.b.reg();
        self.b.add(Opcode::Integer, 0, n, 0);
        n
    }

    /// A register holding the number of entries of the tree at `root`.
    fn count_entries(&mut self, root: u32, db: usize, idx: Option<&Index>) -> Result<i32> {
        let cur = self.b.cursor();
        let p4 = match idx {
            Some(i) => P4::KeyInfo(self.index_key_info(i)?),
            None => P4::Int64(0),
        };
        self.b.add4(Opcode::OpenRead, cur, root as i32, db as i32, p4, 0);
        let n = self.b.reg();
        // (P5 1: an index's root of the table kind is not refused here:
        // SQLite's count of an index's entries comes from its structure
        // pass. A table's count, as any table cursor's move, refuses a
        // root of the index kind.)
        self.b.add4(Opcode::Count, cur, n, 0, P4::None, u16::from(idx.is_some()));
        self.b.add(Opcode::Close, cur, 0, 0);
        Ok(n)
    }

    /// One pass over `table`: NOT NULL, then each index's entry for the row.
    fn check_rows(&mut self, table: &Table, indexes: Vec<Index>, db: usize, quick: bool, remaining: i32, done: i32) -> Result<()> {
        let cursor = self.b.cursor();
        if table.without_rowid.is_some() {
            self.open_without_rowid_read(cursor, table)?;
        } else {
            self.b.add4(Opcode::OpenRead, cursor, table.root as i32, db as i32, P4::Int64(table.columns.len() as i64), 0);
        }
        self.comment(&table.name);
        let mut target = WriteTarget { table: table.clone(), cursor, indexes: Vec::new() };
        if !quick {
            for idx in indexes {
                let c = self.b.cursor();
                let ki = self.index_key_info(&idx)?;
                self.b.add4(Opcode::OpenRead, c, idx.root as i32, db as i32, P4::KeyInfo(ki), 0);
                self.comment(&idx.name);
                target.indexes.push((idx, c));
            }
        }
        let row_number = self.b.reg();
        self.b.add(Opcode::Integer, 0, row_number, 0);
        let one = self.b.reg();
        self.b.add(Opcode::Integer, 1, one, 0);
        let end = self.b.label();
        self.b.add(Opcode::Rewind, cursor, end, 0);
        let top = self.b.here() as i32;
        self.b.add(Opcode::Add, one, row_number, row_number);
        let row = self.read_checked_columns(&target, quick)?;
        let rowid = self.rowid_of_current(&target);

        self.check_columns(table, row, rowid, remaining, done)?;

        for (idx, c) in target.indexes.clone() {
            let skip = self.partial_guard(&target, &idx, row, rowid)?;
            let next_index = skip.unwrap_or_else(|| self.b.label());
            let n = idx.columns.len();
            let key = self.index_key_of(table, &idx, row, rowid)?;
            let missing = self.b.label();
            self.b.add4(Opcode::NotFound, c, missing, key, P4::Int64(table.index_entry_width(&idx) as i64), 0);
            if idx.unique {
                // The entry after this row's must differ in its key columns
                // (NULLs are never equal, so such keys are always unique).
                for k in 0..n {
                    self.b.add(Opcode::IsNull, key + k as i32, next_index, 0);
                }
                let following = self.b.label();
                self.b.add(Opcode::Next, c, following, 0);
                self.b.add(Opcode::Goto, 0, next_index, 0);
                self.b.bind(following);
                self.b.add4(Opcode::IdxGT, c, next_index, key, P4::Int64(n as i64), 0);
                self.report_text(format!("non-unique entry in index {}", idx.name), remaining, done);
            }
            self.b.add(Opcode::Goto, 0, next_index, 0);
            self.b.bind(missing);
            let prefix = self.b.reg();
            self.b.add4(Opcode::String8, 0, prefix, 0, P4::bytes(b"row ".to_vec()), 0);
            let suffix = self.b.reg();
            self.b.add4(Opcode::String8, 0, suffix, 0, P4::bytes(format!(" missing from index {}", idx.name).into_bytes()), 0);
            let msg = self.b.reg();
            self.b.add(Opcode::Concat, row_number, prefix, msg);
            self.b.add(Opcode::Concat, suffix, msg, msg);
            self.report(msg, remaining, done);
            self.b.bind(next_index);
        }
        self.b.add(Opcode::Next, cursor, top, 0);
        self.b.bind(end);
        Ok(())
    }

    /// The row's registers, holding the columns the checks look at: as
    /// SQLite reads only those, a damaged value elsewhere in the record
    /// is not reported (a damaged header is). (Tables whose checks may touch any column are read
    /// whole: STRICT, CHECK constraints, generated columns, WITHOUT ROWID,
    /// and, for integrity_check, indexes on expressions or partial ones.)
    fn read_checked_columns(&mut self, target: &WriteTarget, quick: bool) -> Result<i32> {
        use crate::value::affinity::Affinity;
        let t = &target.table;
        let whole = t.strict
            || !t.checks.is_empty()
            || t.has_virtual()
            || t.without_rowid.is_some()
            || t.columns.iter().any(|c| c.generated.is_some())
            || (!quick && target.indexes.iter().any(|(i, _)| i.where_sql.is_some() || i.columns.iter().any(|c| c.column.is_none())));
        if whole {
            return self.read_row(target);
        }
        let mut needed: Vec<bool> = t.columns.iter().map(|c| c.not_null || c.affinity != Affinity::Blob).collect();
        if !quick {
            for (idx, _) in &target.indexes {
                for c in idx.columns.iter().filter_map(|c| c.column) {
                    needed[c] = true;
                }
            }
        }
        let last = t.columns.len().saturating_sub(1);
        let regs = self.b.regs(t.columns.len());
        if !needed[last] {
            // SQLite still parses the whole record header (the last
            // field's type, not its value): sizes that do not add up to
            // the record are reported without loading any value.
            let scratch = self.b.reg();
            self.b.add4(Opcode::Column, target.cursor, last as i32, scratch, P4::None, crate::vdbe::program::OPFLAG_TYPEOFARG);
        }
        for (i, want) in needed.into_iter().enumerate() {
            let r = regs + i as i32;
            if t.rowid_alias == Some(i) {
                self.b.add(Opcode::Rowid, target.cursor, r, 0);
            } else if let (true, Some(field)) = (want, t.field_of(i)) {
                let d = crate::sql::codegen::expr::default_p4(t, i);
                self.b.add4(Opcode::Column, target.cursor, field as i32, r, d, 0);
            } else {
                self.b.add(Opcode::Null, 0, r, 0);
            }
        }
        Ok(regs)
    }

    /// NOT NULL and STRICT types column by column, then the CHECK
    /// constraints (a NULL result passes), as SQLite orders them.
    ///
    /// SQLite tests a stored type from its cursor's cache of the record
    /// header, and that cache outlives an error row: each result row
    /// marks the cache stale, the next column read re-parses the header
    /// only up to the column it reads, and a type test of a field past
    /// the parsed part sees the column default's type instead. So after
    /// an error a later column may go unchecked (with '3' in three INT
    /// columns only the first two are reported). [`HeaderModel`]
    /// follows that in registers, so the same rows are reported.
    fn check_columns(&mut self, table: &Table, row: i32, rowid: i32, remaining: i32, done: i32) -> Result<()> {
        // At the top of the row SQLite has read the last field's type: the
        // whole header is parsed (a field past a short record's end holds
        // the default in both views, so the table's width stands in).
        let h = HeaderModel { parsed: self.b.reg(), stale: self.b.reg() };
        self.b.add(Opcode::Integer, table.columns.len() as i32, h.parsed, 0);
        self.b.add(Opcode::Integer, 0, h.stale, 0);
        for (i, col) in table.columns.iter().enumerate() {
            if table.rowid_alias == Some(i) {
                continue;
            }
            let value = row + i as i32;
            // VIRTUAL columns are computed, not read from the header
            // (STORED ones are fields like any other).
            let field = table.field_of(i);
            let default_bit = col.default_value.as_ref().map_or(TYPE_NULL, |v| 1u16 << (v.value_type() as u16 - 1));
            if col.not_null {
                let fine = self.b.label();
                // Not a NULL by its header type; else read and tested.
                self.header_is_type(&h, field, value, default_bit, TYPE_INTEGER | TYPE_TEXT | TYPE_BLOB, fine);
                self.column_read(&h, field);
                self.b.add(Opcode::NotNull, value, fine, 0);
                self.report_text(format!("NULL value in {}.{}", table.name, col.name), remaining, done);
                self.b.add(Opcode::Integer, 1, h.stale, 0);
                self.b.bind(fine);
            }
            // (A VIRTUAL column is computed under its affinity: never one.)
            if !table.strict && field.is_some() {
                self.check_affinity(table, i, row, &h, field, default_bit, remaining, done);
            }
            let ty = col.decltype.clone().unwrap_or_default().ascii_upper();
            // The storage classes allowed besides NULL (`IsType` masks).
            let allowed = match ty.as_str() {
                "INT" | "INTEGER" => TYPE_INTEGER,
                "REAL" => TYPE_INTEGER | TYPE_FLOAT,
                "TEXT" => TYPE_TEXT,
                "BLOB" => TYPE_BLOB,
                _ => continue,
            };
            if !table.strict {
                continue;
            }
            let fine = self.b.label();
            self.header_is_type(&h, field, value, default_bit, TYPE_NULL | allowed, fine);
            self.report_text(format!("non-{ty} value in {}.{}", table.name, col.name), remaining, done);
            self.b.add(Opcode::Integer, 1, h.stale, 0);
            self.b.bind(fine);
        }
        // (Not under PRAGMA ignore_check_constraints, as in SQLite.)
        if !table.checks.is_empty() && !self.env.settings.ignore_check_constraints {
            let fine = self.b.label();
            let fault = self.b.label();
            self.with_row_scope(table, row, rowid, |c| {
                for (_, text) in &table.checks {
                    let v = c.b.reg();
                    c.expr_text(text, v)?;
                    c.b.add(Opcode::IfNot, v, fault, 0);
                }
                Ok(())
            })?;
            self.b.add(Opcode::Goto, 0, fine, 0);
            self.b.bind(fault);
            self.report_text(format!("CHECK constraint failed in {}", table.name), remaining, done);
            self.b.bind(fine);
        }
        Ok(())
    }

    /// SQLite's type test on its cursor: jump to `fine` when the type of
    /// `value` is in `mask`, where a field past the parsed part of the
    /// header has the type `default_bit` instead; fall through otherwise.
    /// (`field` None: a computed value, tested as it is.)
    fn header_is_type(&mut self, h: &HeaderModel, field: Option<usize>, value: i32, default_bit: u16, mask: u16, fine: crate::sql::codegen::builder::Label) {
        let Some(field) = field else {
            self.b.add4(Opcode::IsType, -1, fine, value, P4::None, mask);
            return;
        };
        let unparsed = self.b.label();
        let after = self.b.label();
        let f = self.b.reg();
        self.b.add(Opcode::Integer, field as i32, f, 0);
        // parsed <= field: the field's type is not in the cache.
        self.b.add(Opcode::Le, f, unparsed, h.parsed);
        self.b.add4(Opcode::IsType, -1, fine, value, P4::None, mask);
        self.b.add(Opcode::Goto, 0, after, 0);
        self.b.bind(unparsed);
        if default_bit & mask != 0 {
            self.b.add(Opcode::Goto, 0, fine, 0);
        }
        self.b.bind(after);
    }

    /// SQLite's read of `field` through its cursor: a stale header cache
    /// is parsed anew up to the field, a fresh one extended to it.
    fn column_read(&mut self, h: &HeaderModel, field: Option<usize>) {
        let Some(field) = field else { return };
        let fresh = self.b.label();
        let covered = self.b.label();
        self.b.add(Opcode::IfNot, h.stale, fresh, 0);
        self.b.add(Opcode::Integer, 0, h.parsed, 0);
        self.b.add(Opcode::Integer, 0, h.stale, 0);
        self.b.bind(fresh);
        let f = self.b.reg();
        self.b.add(Opcode::Integer, field as i32, f, 0);
        self.b.add(Opcode::Gt, f, covered, h.parsed);
        self.b.add(Opcode::Integer, field as i32 + 1, h.parsed, 0);
        self.b.bind(covered);
    }

    /// SQLite 3.54's affinity check of an ordinary table's column: a
    /// number in a TEXT column ("NUMERIC value in t.c"), or in an
    /// INTEGER, REAL or NUMERIC column a text that the column's affinity
    /// would have made a number ("TEXT value in t.c"); either means the
    /// value was not stored through the column's affinity.
    fn check_affinity(&mut self, table: &Table, i: usize, row: i32, h: &HeaderModel, field: Option<usize>, default_bit: u16, remaining: i32, done: i32) {
        use crate::value::affinity::Affinity;
        let col = &table.columns[i];
        let value = row + i as i32;
        let fine = self.b.label();
        match col.affinity {
            Affinity::Text => {
                // A number in a TEXT column.
                self.header_is_type(h, field, value, default_bit, TYPE_NULL | TYPE_TEXT | TYPE_BLOB, fine);
                self.report_text(format!("NUMERIC value in {}.{}", table.name, col.name), remaining, done);
                self.b.add(Opcode::Integer, 1, h.stale, 0);
            }
            Affinity::Numeric | Affinity::Integer | Affinity::Real => {
                // Only a text can be one the affinity would have converted.
                self.header_is_type(h, field, value, default_bit, TYPE_NULL | TYPE_INTEGER | TYPE_FLOAT | TYPE_BLOB, fine);
                self.column_read(h, field);
                // Fine if still no number under the column's affinity (a
                // value reached through a default's type in a stale header
                // is tested this way too, whatever its own class).
                let copy = self.b.reg();
                self.b.add(Opcode::Copy, value, copy, 0);
                self.b.add4(Opcode::Affinity, copy, 1, 0, P4::affinity(col.affinity.letter().to_string()), 0);
                self.b.add4(Opcode::IsType, -1, fine, copy, P4::None, TYPE_NULL | TYPE_TEXT | TYPE_BLOB);
                self.report_text(format!("TEXT value in {}.{}", table.name, col.name), remaining, done);
                self.b.add(Opcode::Integer, 1, h.stale, 0);
            }
            Affinity::Blob => {}
        }
        self.b.bind(fine);
    }

    /// A virtual table connected on this connection whose module has
    /// xIntegrity (version 4): its message, if any, is one error row.
    /// Tables not connected are skipped, as SQLite skips them.
    fn check_vtab(&mut self, t: &Table, db: usize, quick: bool, remaining: i32, done: i32) {
        let Some(inst) = self.env.vtabs.and_then(|r| r.table(db, &t.name)).filter(|i| i.schema_sql == t.sql && i.table.has_integrity()).cloned() else {
            return;
        };
        let schema = self.b.reg();
        self.b.add4(Opcode::String8, 0, schema, 0, P4::bytes(self.db_name(db).into_bytes()), 0);
        let out = self.b.reg();
        self.b.add4(Opcode::VCheck, schema, out, quick as i32, P4::VTab(inst), 0);
        let clean = self.b.label();
        self.b.add(Opcode::IsNull, out, clean, 0);
        self.report(out, remaining, done);
        self.b.bind(clean);
    }

    /// Report a fixed message (see [`Self::report`]).
    fn report_text(&mut self, msg: String, remaining: i32, done: i32) {
        let r = self.b.reg();
        self.b.add4(Opcode::String8, 0, r, 0, P4::bytes(msg.into_bytes()), 0);
        self.report(r, remaining, done);
    }

    /// One error row; the check stops once `remaining` errors were shown.
    fn report(&mut self, msg: i32, remaining: i32, done: i32) {
        self.b.add(Opcode::ResultRow, msg, 1, 0);
        self.b.add(Opcode::DecrJumpZero, remaining, done, 0);
    }
}

/// Where `name` stands in `sqlite_schema` (the order SQLite loaded it in).
fn schema_position(c: &Compiler<'_>, name: &str) -> usize {
    c.env.schema.rows.iter().position(|r| r.1.eq_ci(name)).unwrap_or(usize::MAX)
}
