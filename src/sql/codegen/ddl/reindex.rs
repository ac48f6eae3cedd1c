//! # REINDEX
//!
//! Rebuilds indexes from their tables: every index (no argument), those
//! using a collating sequence (`REINDEX nocase`), those of a table, or one
//! index, or every index with an expression key (`REINDEX EXPRESSIONS`,
//! when nothing else has that name). A collation name takes precedence over a table or index of the
//! same name unless the name is schema-qualified, as in SQLite. Rebuilding
//! matters when an application changed what a collation function it
//! registered compares: the entries go back in the order the function
//! gives now.
//!
//! Each index is cleared and filled again by the code CREATE INDEX uses
//! (`populate_index`), so a UNIQUE index that the new order makes hold
//! two equal keys fails the statement the same way. The primary key of a
//! WITHOUT ROWID table is the table's own tree and is left as it is.

use crate::error::{Error, Result};
use crate::sql::codegen::Compiler;
use crate::sql::codegen::Opcode;
use crate::sql::parse::unquote;
use crate::sql::schema::{Index, Table};
use crate::util::ascii::AsciiLower;
use sqlite3_parser::ast::QualifiedName;

impl Compiler<'_> {
    /// The program of `REINDEX [target]`.
    pub(in crate::sql::codegen) fn reindex(&mut self, target: Option<&QualifiedName<'_>>) -> Result<()> {
        let targets = self.reindex_targets(target)?;
        let init = self.begin_program();
        for (table, idx) in &targets {
            self.stmt.writes = true;
            let root = self.b.reg();
            self.b.add(Opcode::Integer, idx.root as i32, root, 0);
            self.b.add(Opcode::Clear, idx.root as i32, idx.db as i32, 0);
            self.populate_index(table, idx, root)?;
        }
        self.end_program(init, (!targets.is_empty()).then_some(true));
        Ok(())
    }

    /// The indexes `target` names, with their tables, in schema order.
    fn reindex_targets(&self, target: Option<&QualifiedName<'_>>) -> Result<Vec<(Table, Index)>> {
        let Some(q) = target else {
            return Ok(self.indexes_where(|_, _| true));
        };
        let name = unquote(q.name.0);
        if q.db_name.is_none() && self.collation_known(&name) {
            return Ok(self.indexes_where(|t, i| uses_collation(t, i, &name)));
        }
        let db = self.qualifier_db(q.db_name.as_ref())?;
        if let Some(t) = self.env.schema.table_in(db, &name).filter(|t| t.view_select.is_none()) {
            let (tname, tdb) = (t.name.clone(), t.db);
            return Ok(self.indexes_where(|t, _| t.db == tdb && t.name.eq_ci(&tname)));
        }
        if let Some(i) = self.env.schema.index_in(db, &name) {
            let (iname, idb) = (i.name.clone(), i.db);
            return Ok(self.indexes_where(|_, i| i.db == idb && i.name.eq_ci(&iname)));
        }
        // `REINDEX EXPRESSIONS` (3.53, unqualified): every index with an
        // expression key, when no table or index has that name.
        if q.db_name.is_none() && name.eq_ci("expressions") {
            return Ok(self.indexes_where(|_, i| i.columns.iter().any(|c| c.column.is_none())));
        }
        Err(Error::sql("unable to identify the object to be reindexed"))
    }

    /// Every index (of every database) for which `keep` holds.
    fn indexes_where(&self, keep: impl Fn(&Table, &Index) -> bool) -> Vec<(Table, Index)> {
        let mut out = Vec::new();
        for i in self.env.schema.indexes.values() {
            if let Some(t) = self.env.schema.table_in(Some(i.db), &i.table) {
                if keep(t, i) {
                    out.push((t.clone(), Index::clone(i)));
                }
            }
        }
        out
    }

    /// Whether `name` is a collating sequence: built in, registered on
    /// the connection, or named by an index of the schema (SQLite knows
    /// those names from reading the schema even when the function is not
    /// registered; rebuilding then fails for want of it).
    fn collation_known(&self, name: &str) -> bool {
        ["BINARY", "NOCASE", "RTRIM"].iter().any(|b| b.eq_ci(name))
            || self.env.collations.contains_key(&name.ascii_upper())
            || !self.indexes_where(|t, i| uses_collation(t, i, name)).is_empty()
    }
}

/// Whether a table-column key of `idx` compares with collation `name`
/// (expression keys do not count, as in SQLite).
fn uses_collation(table: &Table, idx: &Index, name: &str) -> bool {
    idx.columns.iter().any(|c| c.column.is_some() && crate::sql::plan::order::index_collation(table, c).eq_ci(name))
}
