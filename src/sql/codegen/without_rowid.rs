//! Code generation for WITHOUT ROWID tables.
//!
//! Such a table is stored as an index b-tree whose entries are whole rows:
//! the PRIMARY KEY columns first (in key order), then the remaining columns
//! in declaration order (fileformat2 §2.5; [`Table::record_columns`]).
//! A cursor on one is opened with a `KeyInfo` describing the key columns,
//! and every `Column` read through it is translated from table column to
//! record position via `Compiler::record_positions`.
//!
//! What works: reading (full scans). Writing (CREATE, INSERT, UPDATE,
//! DELETE) is still refused with "WITHOUT ROWID tables is not supported".

use std::sync::Arc;

use super::Compiler;
use crate::error::Result;
use crate::sql::schema::Table;
use crate::value::collation::Collation;
use crate::value::record::{KeyField, KeyInfo};
use crate::vdbe::program::{Opcode, P4};

impl Compiler<'_> {
    /// Key description of a WITHOUT ROWID table: its PRIMARY KEY columns
    /// with their collations (the PK's own, else the column's) and order.
    pub fn without_rowid_key_info(&self, table: &Table) -> Result<Arc<KeyInfo>> {
        let mut fields = Vec::new();
        for (col, descending, coll) in table.without_rowid.iter().flatten() {
            let name = coll.clone().or_else(|| table.columns.get(*col).and_then(|c| c.collation.clone()));
            let collation = match name {
                Some(n) => self.collation(&n)?,
                None => Collation::binary(),
            };
            fields.push(KeyField { collation, descending: *descending });
        }
        Ok(Arc::new(KeyInfo { fields }))
    }

    /// Open cursor `cur` for reading on a WITHOUT ROWID table and record
    /// where each column sits in its entries.
    pub fn open_without_rowid_read(&mut self, cur: i32, table: &Table) -> Result<()> {
        let ki = self.without_rowid_key_info(table)?;
        self.b.add4(Opcode::OpenRead, cur, table.root as i32, table.db as i32, P4::KeyInfo(ki), 0);
        let order = table.record_columns();
        let mut positions = vec![0; table.columns.len()];
        for (pos, col) in order.into_iter().enumerate() {
            positions[col] = pos;
        }
        self.record_positions.insert(cur, positions);
        Ok(())
    }
}
