//! Indexes on expressions (`expridx.txt`): computing an index's key from a
//! row, the affinity and name of an expression key column, the checks
//! CREATE INDEX makes on the expressions (SQLite's messages), and the
//! normal form in which a WHERE term is compared with an indexed
//! expression.
//!
//! Invariant: an expression key column is evaluated over the row's
//! registers (one per table column, the rowid apart) exactly as SQLite
//! evaluates it, and stored in the index record with the expression's own
//! affinity (none when it has none), so index entries written here are the
//! bytes SQLite writes.

use crate::error::{Error, Result};
use crate::sql::codegen::Compiler;
use crate::sql::schema::{Index, IndexColumn, Table};
use crate::util::ascii::AsciiLower;
use crate::value::affinity::Affinity;
use crate::vdbe::program::{Opcode, P4};

/// How EXPLAIN QUERY PLAN names an index key column: the table column's
/// name, or `<expr>` for an expression.
pub fn index_column_name(table: &Table, c: &IndexColumn) -> String {
    match c.column {
        Some(i) => table.columns.get(i).map_or_else(String::new, |col| col.name.clone()),
        None => "<expr>".into(),
    }
}

/// The normal form of an expression's text used to match a WHERE term
/// against an indexed expression: identifiers unquoted and lower-cased,
/// keywords and function names in one case, a qualifier naming the table
/// (`qualifier`) dropped, literals kept as written.
pub fn normal_form(text: &str, qualifier: Option<&str>) -> String {
    use sqlite3_parser::dialect::TokenType;
    let b = text.as_bytes();
    let toks = crate::sql::parse::tokens(b).collect::<Vec<_>>();
    let mut out: Vec<String> = Vec::with_capacity(toks.len());
    let mut i = 0;
    while i < toks.len() {
        let t = &toks[i];
        let raw = String::from_utf8_lossy(&b[t.start..t.end]).into_owned();
        if t.kind == TokenType::TK_ID && toks.get(i + 1).is_some_and(|d| d.kind == TokenType::TK_DOT) {
            let name = crate::sql::parse::unquote(&raw);
            if qualifier.is_some_and(|q| q.eq_ci(&name)) {
                i += 2;
                continue;
            }
        }
        out.push(match t.kind {
            TokenType::TK_STRING | TokenType::TK_BLOB => raw,
            TokenType::TK_ID => crate::sql::parse::unquote(&raw).ascii_lower(),
            _ => raw.ascii_lower(),
        });
        i += 1;
    }
    out.join(" ")
}

impl Compiler<'_> {
    /// Run `f` with `Function` instructions marked as computing an index
    /// key (1), a CHECK constraint (2) or a generated column (3).
    pub fn with_pure_context<T>(&mut self, code: i32, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        let saved = std::mem::replace(&mut self.frame.pure_context, code);
        let r = f(self);
        self.frame.pure_context = saved;
        r
    }

    /// Compile `f` as an expression of the schema read for a write (see
    /// `Compiler::stored_schema_expr`).
    pub fn with_stored_schema_expr<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        let saved = std::mem::replace(&mut self.dml.stored_schema_expr, true);
        let r = f(self);
        self.dml.stored_schema_expr = saved;
        r
    }

    /// Compute an index entry's fields from row registers `row` (one per
    /// table column) into fresh consecutive registers: the key columns,
    /// then the rowid or, for a WITHOUT ROWID table, the PRIMARY KEY
    /// columns the key does not hold (`Table::index_suffix`).
    pub fn index_key_of(&mut self, table: &Table, idx: &Index, row: i32, rowid: i32) -> Result<i32> {
        let n = idx.columns.len();
        let k = self.b.regs(table.index_entry_width(idx).max(n + 1));
        for (i, c) in idx.columns.iter().enumerate() {
            match (c.column, &c.expr) {
                (Some(col), _) => {
                    self.b.add(Opcode::SCopy, row + col as i32, k + i as i32, 0);
                }
                (None, Some(text)) => {
                    let text = text.clone();
                    self.with_pure_context(1, |c| c.with_row_scope(table, row, rowid, |c| c.expr_text(&text, k + i as i32)))?;
                }
                (None, None) => {
                    self.b.add(Opcode::Null, 0, k + i as i32, 0);
                }
            }
        }
        if table.without_rowid.is_some() {
            for (i, (col, _, _)) in table.index_suffix(idx).into_iter().enumerate() {
                self.b.add(Opcode::SCopy, row + col as i32, k + (n + i) as i32, 0);
            }
        } else {
            self.b.add(Opcode::SCopy, rowid, k + n as i32, 0);
        }
        Ok(k)
    }

    /// The affinity an index key column's values get in the index record:
    /// the column's, or the expression's (none: BLOB, no conversion).
    pub fn index_column_affinity(&mut self, table: &Table, c: &IndexColumn) -> Affinity {
        match (c.column, &c.expr) {
            (Some(col), _) => table.columns[col].affinity,
            (None, Some(text)) => {
                let text = text.clone();
                let fake = self.b.cursor();
                self.names.scopes.push(crate::sql::codegen::target::target_scope(table, None, fake));
                let aff = crate::sql::parse::with_expr(&text, |e| Ok(self.expr_affinity(e))).ok().flatten();
                self.names.scopes.pop();
                aff.unwrap_or(Affinity::Blob)
            }
            (None, None) => Affinity::Blob,
        }
    }

    /// The affinity string of an index record: key columns, then the
    /// rowid (or a WITHOUT ROWID table's PRIMARY KEY suffix).
    pub fn index_affinity_string(&mut self, table: &Table, idx: &Index) -> String {
        let key = idx.columns.iter().map(|c| self.index_column_affinity(table, c).letter()).collect::<String>();
        if table.without_rowid.is_some() {
            key + &table.index_suffix(idx).iter().map(|(c, _, _)| table.columns[*c].affinity.letter()).collect::<String>()
        } else {
            key + "D"
        }
    }

    /// CREATE INDEX checks on the key expressions and the WHERE clause of
    /// a partial index, with SQLite's messages: names only this table's
    /// columns (no qualifier, no rowid), no subquery, no parameter, no
    /// aggregate, only deterministic functions.
    pub fn validate_index_exprs(&mut self, table: &Table, idx: &Index) -> Result<()> {
        let mut checks: Vec<(String, &'static str)> = idx.columns.iter().filter_map(|c| c.expr.clone()).map(|e| (e, "index expressions")).collect();
        if let Some(w) = &idx.where_sql {
            checks.push((w.clone(), "partial index WHERE clauses"));
        }
        // (Double-quoted strings there are DDL's: `DQS_DDL`.)
        let outer = std::mem::replace(&mut self.stmt.ddl_names, true);
        let r = checks.into_iter().try_for_each(|(text, what)| self.validate_index_expr(table, &text, what));
        self.stmt.ddl_names = outer;
        r
    }

    fn validate_index_expr(&mut self, table: &Table, text: &str, what: &str) -> Result<()> {
        use crate::sql::model::expr_shape::walk;
        use sqlite3_parser::ast::Expr;
        let mut problem: Option<String> = None;
        crate::sql::parse::with_expr(text, |e| {
            walk(e, &mut |x| {
                if problem.is_some() {
                    return false;
                }
                match x {
                    Expr::Subquery(_) | Expr::Exists(_) | Expr::InSelect { .. } => problem = Some(format!("subqueries prohibited in {what}")),
                    Expr::Variable(_) => problem = Some(format!("parameters prohibited in {what}")),
                    _ => {}
                }
                true
            });
            Ok(())
        })?;
        if let Some(p) = problem {
            return Err(Error::sql(p));
        }
        // The partial WHERE clause accepts qualified names and the rowid;
        // key expressions do not.
        if what == "index expressions" {
            crate::sql::parse::with_expr(text, |e| {
                walk(e, &mut |x| {
                    if problem.is_some() {
                        return false;
                    }
                    match x {
                        Expr::Qualified(q, c) => {
                            let (q, c) = (crate::sql::parse::unquote(q.0), crate::sql::parse::unquote(c.0));
                            problem = Some(if q.eq_ci(&table.name) {
                                "the \".\" operator prohibited in index expressions".to_string()
                            } else {
                                format!("no such column: {q}.{c}")
                            });
                        }
                        Expr::Id(id) => {
                            let n = crate::sql::parse::unquote(id.0);
                            let rowid = ["rowid", "oid", "_rowid_"].iter().any(|r| r.eq_ci(&n));
                            if rowid && table.column_index(&n).is_none() {
                                problem = Some(format!("no such column: {n}"));
                            }
                        }
                        _ => {}
                    }
                    true
                });
                Ok(())
            })?;
            if let Some(p) = problem {
                return Err(Error::sql(p));
            }
        }
        // Compile into a scratch program: resolves every name and finds
        // aggregates and non-deterministic functions without emitting
        // anything that would run.
        let saved = std::mem::take(&mut self.b);
        self.b.n_regs = saved.n_regs;
        self.b.n_cursors = saved.n_cursors;
        let row = self.b.regs(table.columns.len());
        let rowid = self.b.reg();
        let target = self.b.reg();
        // In an index context, as SQLite resolves it: a direct-only
        // function is then refused as unsafe before its determinism counts.
        let r = self.with_row_scope(table, row, rowid, |c| c.with_pure_context(1, |c| c.expr_text(text, target)));
        let nondeterministic = self.b.insns.iter().any(|i| matches!(&i.p4, P4::Func(def) if i.opcode == Opcode::Function && !def.flags.deterministic));
        self.b = saved;
        r?;
        if nondeterministic {
            return Err(Error::sql(format!("non-deterministic functions prohibited in {what}")));
        }
        Ok(())
    }
}

/// An indexed expression a WHERE term can be matched with: its normal
/// form, the index column's collation (upper case) and affinity. A table
/// column an index sorts by another collation than the column declares
/// (`CREATE INDEX i ON t(n COLLATE NOCASE)` on a BINARY `n`) is one too:
/// a term on `n` can use that index column only when it compares with
/// that collation (SQLite's `whereScanNext` check), while the column's
/// own lookup key stands for the column under its declared collation.
#[derive(Debug, Clone)]
pub struct IndexedExpr {
    /// `normal_form` of the expression (empty for a collated column).
    pub normal: String,
    /// The table column, for a column indexed under another collation.
    pub column: Option<usize>,
    /// Collation of the index column.
    pub collation: String,
    /// Affinity of the index column's values.
    pub affinity: Affinity,
}

impl Compiler<'_> {
    /// The distinct expressions (with their collation) the table's full
    /// (not partial) indexes hold, then the columns any index sorts by
    /// another collation than their own. A lookup term on the `k`th is
    /// keyed `table.columns.len() + k`, past the table's own columns.
    pub fn indexed_exprs(&mut self, table: &Table) -> Vec<IndexedExpr> {
        let mut out: Vec<IndexedExpr> = Vec::new();
        let indexes: Vec<Index> = self.env.schema.indexes_of(table).into_iter().cloned().collect();
        for idx in indexes.iter().filter(|i| i.where_sql.is_none()) {
            for ic in &idx.columns {
                let Some(e) = &ic.expr else { continue };
                let normal = normal_form(e, None);
                let collation = ic.collation.clone().unwrap_or_else(|| "BINARY".into()).ascii_upper();
                if out.iter().any(|x| x.normal == normal && x.collation == collation) {
                    continue;
                }
                let affinity = self.index_column_affinity(table, ic);
                out.push(IndexedExpr { normal, column: None, collation, affinity });
            }
        }
        for ic in indexes.iter().flat_map(|i| &i.columns) {
            let Some(c) = ic.column.filter(|&c| c < table.columns.len()) else { continue };
            let collation = crate::sql::plan::order::index_collation(table, ic);
            if collation == declared_collation(table, c) || out.iter().any(|x| x.column == Some(c) && x.collation == collation) {
                continue;
            }
            out.push(IndexedExpr { normal: String::new(), column: Some(c), collation, affinity: table.columns[c].affinity });
        }
        out
    }

    /// The lookup key of an index column: the table column when the index
    /// sorts it by its own collation, else the key of the column under
    /// the index's collation or of the indexed expression (see
    /// `indexed_exprs`).
    pub fn index_lookup_key(&mut self, table: &Table, ic: &IndexColumn) -> Option<usize> {
        if let Some(c) = ic.column {
            let collation = crate::sql::plan::order::index_collation(table, ic);
            if c >= table.columns.len() || collation == declared_collation(table, c) {
                return Some(c);
            }
            let pos = self.indexed_exprs(table).iter().position(|x| x.column == Some(c) && x.collation == collation)?;
            return Some(table.columns.len() + pos);
        }
        let normal = normal_form(ic.expr.as_deref()?, None);
        let collation = ic.collation.clone().unwrap_or_else(|| "BINARY".into()).ascii_upper();
        let pos = self.indexed_exprs(table).iter().position(|x| x.column.is_none() && x.normal == normal && x.collation == collation)?;
        Some(table.columns.len() + pos)
    }

    /// The lookup keys of a comparison of table column `c` whose
    /// collation is `collation` (upper case): the column's own key when
    /// it declares that collation, else those of the index columns
    /// sorting it by that collation (see `indexed_exprs`).
    pub fn column_lookup_keys(&mut self, table: &Table, c: usize, collation: &str) -> Vec<usize> {
        if collation == declared_collation(table, c) {
            return vec![c];
        }
        let exprs = self.indexed_exprs(table);
        exprs.iter().position(|x| x.column == Some(c) && x.collation == collation).map(|k| table.columns.len() + k).into_iter().collect()
    }

    /// The lookup keys an expression `col_side op other` can use when
    /// `col_side` is an indexed expression of FROM item `item` (named
    /// `item_name`) and `other` is known before the item's loop: same
    /// text as indexed, a comparison collation and affinity the index
    /// order honours.
    pub fn expr_lookup_keys(
        &mut self,
        item: usize,
        item_name: &str,
        table: &Table,
        col_side: &sqlite3_parser::ast::Expr<'_>,
        other: &sqlite3_parser::ast::Expr<'_>,
    ) -> Vec<usize> {
        let exprs = self.indexed_exprs(table);
        if exprs.is_empty() || self.expr_deps(col_side) != 1u64 << item.min(63) {
            return Vec::new();
        }
        let normal = normal_form(&col_side.to_string(), Some(item_name));
        if !exprs.iter().any(|x| x.normal == normal) {
            return Vec::new();
        }
        let coll = match self.comparison_collation(col_side, other) {
            Ok(P4::Coll(c)) => c.name.ascii_upper(),
            Ok(_) => "BINARY".to_string(),
            Err(_) => return Vec::new(),
        };
        let other_aff = self.expr_affinity(other);
        let side_aff = self.expr_affinity(col_side);
        exprs
            .iter()
            .enumerate()
            .filter(|(_, x)| x.column.is_none() && x.normal == normal && x.collation == coll)
            .filter(|(_, x)| side_aff.is_none_or(|a| a == x.affinity) && other_aff.is_none_or(|a| x.affinity.is_numeric() || a == x.affinity))
            .map(|(k, _)| table.columns.len() + k)
            .collect()
    }
}

/// The collation table column `c` declares (upper case, BINARY when
/// none).
fn declared_collation(table: &Table, c: usize) -> String {
    table.columns[c].collation.as_deref().unwrap_or("BINARY").ascii_upper()
}

#[cfg(test)]
mod tests {
    use super::normal_form;

    #[test]
    fn normal_form_ignores_case_spacing_and_the_tables_qualifier() {
        assert_eq!(normal_form("lower(b)", None), normal_form("LOWER( \"B\" )", None));
        assert_eq!(normal_form("lower(b)", None), normal_form("lower(t.b)", Some("T")));
        assert_ne!(normal_form("lower(b)", None), normal_form("lower(u.b)", Some("t")));
        assert_ne!(normal_form("b = 'X'", None), normal_form("b = 'x'", None));
        assert_eq!(normal_form("a+1", None), normal_form("a + 1", None));
    }
}
