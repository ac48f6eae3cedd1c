//! What `sqlite_stat1` says about a table or an index, as the planner
//! reads it (`fileformat2.txt`, "The sqlite_stat1 table"): the `stat`
//! text is a list of integers (entries, then the average number of
//! entries sharing each prefix of the key) followed by optional words:
//! `unordered` (the index serves neither ranges nor orders), `sz=N`
//! (average entry size in bytes), `noskipscan`; anything else is ignored.
//!
//! The rows are read when a database's whole schema is read and after
//! ANALYZE (`connection/schema_load.rs`); a later change to
//! `sqlite_stat1` counts only once `ANALYZE sqlite_schema` reloads it, as
//! in SQLite.
//!
//! Invariants: estimates are LogEst (10 x log2, see
//! [`crate::sql::plan::order::log_est`]); an index's `rows` holds at most
//! one value per key column plus one (the entry count first) (checked:
//! stat_rows_per_column); values the
//! text does not give stay the planner's defaults (a word where a
//! number was expected makes it and the rest 0, as SQLite reads them).

use super::Schema;
use crate::sql::plan::order::log_est;
use crate::util::ascii::AsciiLower;
use std::sync::Arc;

/// One index's (or a WITHOUT ROWID table's primary key's) statistics.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IndexStat {
    /// LogEst of the entries, then of the entries sharing each longer
    /// prefix of the key (SQLite's `aiRowLogEst`).
    pub rows: Vec<i32>,
    /// `unordered`: not used for a range or for an order.
    pub unordered: bool,
    /// `noskipscan`.
    pub no_skip_scan: bool,
    /// `sz=N`: LogEst of the average entry size.
    pub size: Option<i32>,
}

/// A table's own `sqlite_stat1` row (`idx` NULL), or the entry count an
/// index over every row gave it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TableStat {
    /// LogEst of the rows.
    pub rows: i32,
    /// `sz=N` of the table row: LogEst of the average row size.
    pub size: Option<i32>,
}

impl IndexStat {
    /// Parse a `stat` text holding at most `values` integers, as SQLite
    /// decodes it: digits, one separating space; a word where a number
    /// was expected ends the numbers (the rest are the words).
    pub fn parse(text: &str, values: usize) -> IndexStat {
        let mut s = IndexStat::default();
        let b = text.as_bytes();
        let mut i = 0;
        while i < b.len() && s.rows.len() < values {
            let mut v: u64 = 0;
            while i < b.len() && b[i].is_ascii_digit() {
                v = v.wrapping_mul(10).wrapping_add(u64::from(b[i] - b'0'));
                i += 1;
            }
            // (A word where a number was expected: SQLite takes 0 for it
            // and every number still expected, and reads the words from
            // there.)
            s.rows.push(log_est(v));
            if i < b.len() && b[i] == b' ' {
                i += 1;
            }
        }
        for word in text[i..].split(' ').filter(|w| !w.is_empty()) {
            if word.starts_with("unordered") {
                s.unordered = true;
            } else if let Some(n) = word.strip_prefix("sz=") {
                let digits = n.bytes().take_while(u8::is_ascii_digit).fold(0u64, |v, d| v.saturating_mul(10).saturating_add(u64::from(d - b'0')));
                s.size = Some(log_est(digits.max(2)));
            } else if word.starts_with("noskipscan") {
                s.no_skip_scan = true;
            }
        }
        // invariant: stat_rows_per_column
        debug_assert!(s.rows.len() <= values);
        s
    }
}

/// One `sqlite_stat1` row: (tbl, idx, stat), as text.
pub type StatRow = (Option<String>, Option<String>, Option<String>);

impl Schema {
    /// Replace the statistics of this database's tables and indexes with
    /// those of `rows` (`sqlite_stat1` in rowid order; a later row about
    /// the same object wins, as in SQLite). Objects no row names lose
    /// theirs. Returns whether anything changed.
    pub fn apply_stats(&mut self, rows: &[StatRow]) -> bool {
        let mut tables: std::collections::HashMap<String, (Option<TableStat>, Option<Arc<IndexStat>>)> = Default::default();
        let mut indexes: std::collections::HashMap<String, Arc<IndexStat>> = Default::default();
        for (tbl, idx, stat) in rows {
            let (Some(tbl), Some(stat)) = (tbl, stat) else { continue };
            let Some(table) = self.table(tbl) else { continue };
            let key = table.name.ascii_lower();
            match idx {
                None => {
                    let s = IndexStat::parse(stat, 1);
                    let entry = tables.entry(key).or_default();
                    let size = s.size.or(entry.0.and_then(|t| t.size));
                    entry.0 = Some(TableStat { rows: s.rows.first().copied().unwrap_or(0), size });
                }
                Some(idx) if idx.eq_ci(tbl) => {
                    // A WITHOUT ROWID table's primary key.
                    let Some(pk) = table.without_rowid.as_ref() else { continue };
                    let s = IndexStat::parse(stat, pk.len() + 1);
                    let entry = tables.entry(key).or_default();
                    if let Some(&n) = s.rows.first() {
                        entry.0 = Some(TableStat { rows: n, size: entry.0.and_then(|t| t.size) });
                    }
                    entry.1 = Some(Arc::new(s));
                }
                Some(idx) => {
                    let Some(index) = self.index(idx).filter(|i| i.table.eq_ci(&table.name)) else { continue };
                    let s = IndexStat::parse(stat, index.columns.len() + 1);
                    // An index over every row counts the table's rows.
                    if index.where_sql.is_none() {
                        if let Some(&n) = s.rows.first() {
                            let entry = tables.entry(key).or_default();
                            entry.0 = Some(TableStat { rows: n, size: entry.0.and_then(|t| t.size) });
                        }
                    }
                    indexes.insert(index.name.ascii_lower(), Arc::new(s));
                }
            }
        }
        let mut changed = false;
        for (name, t) in self.tables.iter_mut() {
            let (stat, pk_stat) = tables.remove(name).unwrap_or_default();
            if t.stat != stat || t.pk_stat != pk_stat {
                let t = Arc::make_mut(t);
                (t.stat, t.pk_stat) = (stat, pk_stat);
                changed = true;
            }
        }
        for (name, i) in self.indexes.iter_mut() {
            let stat = indexes.remove(name);
            if i.stat != stat {
                Arc::make_mut(i).stat = stat;
                changed = true;
            }
        }
        changed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_then_words() {
        let s = IndexStat::parse("12345 3 2 x=5 sz=10 y=10", 3);
        assert_eq!(s.rows, vec![log_est(12345), log_est(3), log_est(2)]);
        assert_eq!(s.size, Some(log_est(10)));
        assert!(!s.unordered);
        let s = IndexStat::parse("12345 2 whatever=5 unordered xyzzy=11", 2);
        assert!(s.unordered);
        assert_eq!(s.rows.len(), 2);
    }

    #[test]
    fn fewer_numbers_than_columns_keep_the_defaults() {
        let s = IndexStat::parse("100", 3);
        assert_eq!(s.rows, vec![log_est(100)]);
        let s = IndexStat::parse("sz=0", 1);
        assert_eq!(s.rows, vec![0]);
        assert_eq!(s.size, Some(log_est(2)));
        let s = IndexStat::parse("12345 unordered", 3);
        assert_eq!(s.rows, vec![log_est(12345), 0, 0]);
        assert!(s.unordered);
    }
}
