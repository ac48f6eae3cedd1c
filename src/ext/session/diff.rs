//! # `sqlite3session_diff`: records from the difference of two tables
//!
//! The table is attached as by `attach`; then each row of the other
//! database's table ("from") that is missing here or differs becomes a
//! record of the row as it was there, and each row only here a record of
//! an insert, so that the changeset turns "from" into this table.
//! Both tables must have the same columns and key (`SQLITE_SCHEMA`).

use super::buckets::Buckets;
use super::record::{key_of, Record, Session, SessionTable};
use super::sql::{ident, query, table_shape};
use super::value::{key_hash, same_value};
use crate::connection::Connection;
use crate::error::{Error, Result, SQLITE_SCHEMA};
use crate::util::ascii::AsciiLower;

impl Session {
    /// Add to the records what turns `from`'s table `table` into ours.
    pub fn diff(&mut self, conn: &mut Connection, from: &str, table: &str) -> Result<()> {
        let Some(here) = table_shape(conn, &self.db, table)? else {
            return Ok(());
        };
        if !here.1.iter().any(|p| *p != 0) {
            return Ok(());
        }
        let there = table_shape(conn, from, table).map_err(|e| Error::new(SQLITE_SCHEMA, e.message))?;
        let Some(there) = there else {
            return Err(Error::new(SQLITE_SCHEMA, format!("no such table: {from}.{table}")));
        };
        if there != here {
            return Err(Error::new(SQLITE_SCHEMA, "table schemas do not match"));
        }
        let (names, pk) = here;
        let ti = match self.tables.iter().position(|t| t.name.eq_ci(table)) {
            Some(i) => i,
            None => {
                self.tables.push(SessionTable { name: table.to_string(), shape: None, real: Vec::new(), implicit_rowid: false, records: Buckets::default() });
                self.tables.len() - 1
            }
        };
        self.tables[ti].shape = Some((names.clone(), pk.clone()));
        let cols: Vec<String> = names.iter().map(|n| ident(n)).collect();
        let on: Vec<String> = (0..names.len()).filter(|i| pk[*i] != 0).map(|i| format!("a.{c} IS b.{c}", c = cols[i])).collect();
        let differs: Vec<String> = (0..names.len()).filter(|i| pk[*i] == 0).map(|i| format!("a.{c} IS NOT b.{c}", c = cols[i])).collect();
        let a_cols: Vec<String> = cols.iter().map(|c| format!("a.{c}")).collect();
        let (db, fr, t) = (ident(&self.db), ident(from), ident(table));
        // Rows only here: inserts.
        let only_here = format!("SELECT {} FROM {db}.{t} a WHERE NOT EXISTS (SELECT 1 FROM {fr}.{t} b WHERE {})", a_cols.join(", "), on.join(" AND "));
        // Rows only there, or different: their old values.
        let mut there_sql = format!("SELECT {} FROM {fr}.{t} a WHERE NOT EXISTS (SELECT 1 FROM {db}.{t} b WHERE {})", a_cols.join(", "), on.join(" AND "));
        if !differs.is_empty() {
            there_sql +=
                &format!(" UNION ALL SELECT {} FROM {fr}.{t} a JOIN {db}.{t} b ON {} WHERE {}", a_cols.join(", "), on.join(" AND "), differs.join(" OR "));
        }
        let inserted = query(conn, &only_here, &[])?;
        let old = query(conn, &there_sql, &[])?;
        let indirect = self.indirect;
        let records = &mut self.tables[ti].records;
        for (rows, is_insert) in [(inserted, true), (old, false)] {
            for row in rows {
                let key = key_of(&pk, &row);
                let Some(h) = key_hash(&key) else { continue };
                records.grow_if_due();
                let same = |r: &Record| key_of(&pk, &r.old).iter().zip(&key).all(|(a, b)| same_value(a, b));
                if records.find_mut(h, same).is_none() {
                    records.push(h, Record { inserted: is_insert, indirect, old: row.clone() });
                }
            }
        }
        Ok(())
    }
}
