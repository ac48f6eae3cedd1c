//! SELECT DISTINCT that cannot remove a row, as SQLite recognizes it: the
//! query reads one table and its result columns include the rowid, or
//! every column of a UNIQUE index (not partial), each either among the
//! result columns under the index's collation and NOT NULL, or fixed by a
//! WHERE term `column = value` that reads no column of the table. Each
//! result row then comes from a different table row with different
//! values, and the statement compiles as without DISTINCT (SQLite's
//! distinct.test compares the two programs).
//!
//! Invariant: "redundant" is only answered when it is certain; anything
//! not recognized (expressions, views, joins, aggregates) keeps the
//! duplicate-removing table.

use crate::sql::codegen::Compiler;
use crate::sql::model::expr_shape::{conjuncts, has_subquery};
use crate::sql::model::from::FromItem;
use crate::sql::model::query::ResultItem;
use crate::sql::plan::prelude::*;
use crate::sql::schema::Table;
use crate::util::ascii::AsciiLower;
use sqlite3_parser::ast::{Expr, Operator};

impl Compiler<'_> {
    /// Whether DISTINCT is redundant for these result columns of a
    /// non-aggregate query over `from` with this WHERE clause.
    pub(in crate::sql::codegen) fn distinct_is_redundant(
        &mut self,
        from: &[FromItem<'_, '_>],
        items: &[ResultItem<'_, '_>],
        where_clause: Option<&Expr<'_>>,
    ) -> bool {
        let [f] = from else { return false };
        let Some(table) = f.table.clone() else { return false };
        if f.table_fn.is_some() || f.left || f.matched.is_some() {
            return false;
        }
        // The table's columns among the results (None: the rowid), with
        // the collation each result compares under.
        let mut cols: Vec<(Option<usize>, String)> = Vec::new();
        for it in items {
            let (r, coll) = match it {
                ResultItem::Col(r, _, _) => (r.clone(), r.collation.clone()),
                ResultItem::Expr(e, _) => {
                    let Some(r) = self.bare_column(e) else { continue };
                    let coll = self.expr_collation(e).map(|(n, _)| n);
                    (r, coll)
                }
            };
            if r.depth != 0 || r.item != f.item {
                continue;
            }
            let column = r.column.filter(|c| table.rowid_alias != Some(*c));
            if column.is_none() && table.without_rowid.is_none() {
                return true;
            }
            cols.push((column, coll.unwrap_or_else(|| "BINARY".into())));
        }
        let mut terms: Vec<&Expr<'_>> = Vec::new();
        if let Some(w) = where_clause {
            conjuncts(w, &mut terms);
        }
        let indexes: Vec<crate::sql::schema::Index> = self.env.schema.indexes_of(&table).into_iter().cloned().collect();
        'index: for idx in indexes.iter().filter(|i| i.unique && i.where_sql.is_none()) {
            for ic in &idx.columns {
                let Some(c) = ic.column.filter(|_| ic.expr.is_none()) else { continue 'index };
                let coll = index_collation(&table, c, &ic.collation);
                if self.fixed_by_where(&terms, f.item, c, &coll) {
                    continue;
                }
                let listed = cols.iter().any(|(x, xc)| *x == Some(c) && xc.eq_ci(&coll));
                if !listed || !table.columns[c].not_null {
                    continue 'index;
                }
            }
            return true;
        }
        false
    }

    /// The column `e` names, without COLLATE clauses or parentheses.
    fn bare_column(&mut self, mut e: &Expr<'_>) -> Option<crate::sql::resolve::ColumnRef> {
        loop {
            match e {
                Expr::Collate(x, _) => e = x,
                Expr::Parenthesized(v) if v.len() == 1 => e = &v[0],
                _ => return self.plain_column(e),
            }
        }
    }

    /// Whether a WHERE conjunct `column = value` (either way round, no
    /// COLLATE, the value reading nothing of item `item`) fixes table
    /// column `c`, which compares under `coll`.
    fn fixed_by_where(&mut self, terms: &[&Expr<'_>], item: usize, c: usize, coll: &str) -> bool {
        for t in terms {
            let Expr::Binary(l, Operator::Equals, r) = t else { continue };
            for (col, value) in [(l, r), (r, l)] {
                if matches!(col, Expr::Collate(..)) || matches!(value, Expr::Collate(..)) || has_subquery(value) {
                    continue;
                }
                let Some(rc) = self.bare_column(col) else { continue };
                if rc.depth != 0 || rc.item != item || rc.column != Some(c) {
                    continue;
                }
                if !rc.collation.clone().unwrap_or_else(|| "BINARY".into()).eq_ci(coll) {
                    continue;
                }
                if self.expr_deps(value) & (1u64 << item.min(63)) == 0 {
                    return true;
                }
            }
        }
        false
    }
}

/// The collation an index key column compares with: its own, else the
/// table column's, else BINARY.
fn index_collation(table: &Table, c: usize, own: &Option<String>) -> String {
    own.clone().or_else(|| table.columns.get(c).and_then(|col| col.collation.clone())).unwrap_or_else(|| "BINARY".into())
}
