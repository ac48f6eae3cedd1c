//! # Making a changeset or patchset from a session
//!
//! Each record is compared with the row as it is now (looked up by key):
//! an inserted row still there is an INSERT of its current values; a row
//! first seen existing and now gone a DELETE of its old values; one still
//! there with some non-key column different (type and value) an UPDATE
//! carrying the key, the old and new values of the columns that differ and
//! "undefined" for the rest. Anything else gives no change. A table's
//! header is written only when it has a change.

use super::format::{write_change, write_table, Change, Table, OP_DELETE, OP_INSERT, OP_UPDATE};
use super::record::{key_of, Session};
use super::sql;
use super::value::same_value;
use crate::connection::Connection;
use crate::error::Result;

impl Session {
    /// `sqlite3session_changeset` (`patchset` false) or `_patchset`.
    pub fn changeset(&mut self, conn: &mut Connection, patchset: bool) -> Result<Vec<u8>> {
        // (Columns added since the records were made widen them first.)
        let db = self.db.clone();
        let rowid = self.rowid_tables;
        for t in self.tables.iter_mut().filter(|t| t.shape.is_some() && !t.records.is_empty()) {
            let width = sql::table_shape(conn, &db, &t.name)?.map_or(0, |s| s.1.len());
            if width != 0 {
                t.refresh(conn, &db, width, rowid)?;
            }
        }
        let mut out = Vec::new();
        for t in &self.tables {
            let Some((names, pk)) = &t.shape else {
                continue;
            };
            if t.records.is_empty() || !pk.iter().any(|p| *p != 0) {
                continue;
            }
            let table = Table { name: t.name.clone(), pk: pk.clone() };
            let mut body = Vec::new();
            for r in t.records.iter() {
                let key: Vec<_> = key_of(pk, &r.old).into_iter().cloned().collect();
                let now = sql::row_by_key(conn, &self.db, &t.name, names, pk, &key)?;
                let change = match (r.inserted, now) {
                    (true, Some(row)) => Change { op: OP_INSERT, indirect: r.indirect, old: Vec::new(), new: row.into_iter().map(Some).collect() },
                    (false, None) => Change { op: OP_DELETE, indirect: r.indirect, old: r.old.iter().cloned().map(Some).collect(), new: Vec::new() },
                    (false, Some(row)) => {
                        let changed: Vec<bool> = (0..pk.len()).map(|i| pk[i] == 0 && !same_value(&r.old[i], &row[i])).collect();
                        if !changed.contains(&true) {
                            continue;
                        }
                        let old = (0..pk.len()).map(|i| (pk[i] != 0 || changed[i]).then(|| r.old[i].clone())).collect();
                        let new = (0..pk.len()).map(|i| changed[i].then(|| row[i].clone())).collect();
                        Change { op: OP_UPDATE, indirect: r.indirect, old, new }
                    }
                    (true, None) => continue,
                };
                write_change(&mut body, patchset, &table, &change);
            }
            if !body.is_empty() {
                write_table(&mut out, patchset, &table);
                out.extend_from_slice(&body);
            }
        }
        Ok(out)
    }
}
