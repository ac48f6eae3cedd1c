//! CREATE TABLE ... AS SELECT: the new table's definition is derived from
//! the SELECT, its `sqlite_schema.sql` text synthesised the way SQLite
//! writes it, and the result rows copied in.
//!
//! What SQLite 3.54 does, and so what this module reproduces:
//! - Column names: the alias; else, for a (possibly COLLATE'd or
//!   parenthesised) column reference, the column's declared name (the
//!   INTEGER PRIMARY KEY's name, or `rowid`, for the rowid); else the
//!   expression's source text. `true`/`false` become `columnN`. A name
//!   already used (ignoring case) gets `:1`, `:2`, ... appended to its
//!   base (the name without a trailing `:digits`); after the third try
//!   the suffix is a random number, as in SQLite.
//! - Types: from the affinity of each result column: INT, REAL, TEXT,
//!   NUM or nothing. In a compound SELECT an arm without affinity defers
//!   to the next arm, and a TEXT or numeric affinity that other arms may
//!   contradict (numbers in a TEXT column, text in a numeric one) is
//!   dropped; a numeric CAST in the first arm makes it NUM.
//! - Text: `CREATE TABLE name(col TYPE,...)`, names quoted with `"` when
//!   they are keywords or not plain identifiers, one column per line
//!   (`\n  ` indented) when the definition is long.
//!
//! The rows go through a temporary table first: the SELECT is compiled
//! before the new table exists.

use crate::error::Result;
use crate::sql::codegen::Compiler;
use crate::sql::model::query::{column_affinity, kinds, unique_names};
use crate::sql::model::query::{Dest, ResultItem};
use crate::sql::parse::unquoted;
use crate::util::ascii::AsciiLower;
use crate::value::affinity::Affinity;
use crate::vdbe::program::{Opcode, P4};
use sqlite3_parser::ast::{self, Expr, UnaryOperator};

impl Compiler<'_> {
    /// The kinds of value `e` may produce, judged from its form and its
    /// affinity (`kinds`); NULL produces none.
    pub fn value_kinds(&mut self, e: &Expr<'_>) -> u8 {
        match e {
            Expr::Collate(x, _) | Expr::Unary(UnaryOperator::Positive, x) => self.value_kinds(x),
            Expr::Parenthesized(v) if v.len() == 1 => self.value_kinds(&v[0]),
            Expr::Literal(ast::Literal::Null) => 0,
            Expr::Literal(ast::Literal::String(_)) => kinds::TEXT,
            Expr::Literal(ast::Literal::Blob(_)) => kinds::BLOB,
            Expr::Literal(ast::Literal::CurrentDate | ast::Literal::CurrentTime | ast::Literal::CurrentTimestamp) => kinds::ANY,
            Expr::Binary(_, ast::Operator::Concat, _) => kinds::TEXT | kinds::BLOB,
            Expr::Variable(_) | Expr::FunctionCall { .. } | Expr::FunctionCallStar { .. } => kinds::ANY,
            Expr::Id(id) if self.resolve_name(None, &unquoted(id.0)).ok().flatten().is_none() => {
                // Not a column: TRUE/FALSE, or a double-quoted string.
                let n = unquoted(id.0);
                if n.eq_ci("true") || n.eq_ci("false") {
                    kinds::NUMERIC
                } else {
                    kinds::TEXT
                }
            }
            Expr::Id(_) | Expr::Name(_) | Expr::Qualified(..) | Expr::DoublyQualified(..) | Expr::Cast { .. } | Expr::Subquery(_) => {
                match self.result_affinity(e) {
                    Some(a) if a.is_numeric() => kinds::NUMERIC | kinds::BLOB,
                    Some(Affinity::Text) => kinds::TEXT | kinds::BLOB,
                    _ => kinds::ANY,
                }
            }
            Expr::Parenthesized(_) => kinds::ANY,
            Expr::Case { when_then_pairs, else_expr, .. } => {
                let mut k = 0;
                for (_, then) in when_then_pairs.iter() {
                    k |= self.value_kinds(then);
                }
                if let Some(e) = else_expr {
                    k |= self.value_kinds(e);
                }
                k
            }
            _ => kinds::NUMERIC,
        }
    }

    /// The affinity of a result expression: `expr_affinity`, plus the
    /// first column's affinity for a scalar subquery already compiled.
    pub fn result_affinity(&mut self, e: &Expr<'_>) -> Option<Affinity> {
        match crate::sql::model::expr_shape::strip_collate_and_parens(e) {
            Expr::Subquery(sel) => self.select.subquery_affinity.get(&(*sel as *const ast::Select<'_> as usize)).copied().flatten(),
            _ => self.expr_affinity(e),
        }
    }

    /// Drop what is recorded of `e`'s affinity if it is a scalar subquery.
    pub fn forget_subquery_affinity(&mut self, e: &Expr<'_>) {
        if let Expr::Subquery(sel) = crate::sql::model::expr_shape::strip_collate_and_parens(e) {
            self.select.subquery_affinity.remove(&(*sel as *const ast::Select<'_> as usize));
        }
    }

    /// The name result item number `i` gives a table column made from it
    /// (`span`: its source text, when known).
    pub fn table_column_name(&mut self, item: &ResultItem<'_, '_>, span: Option<&String>, i: usize) -> String {
        let name = match item {
            ResultItem::Col(_, name, _) => name.clone(),
            ResultItem::Expr(_, Some(alias)) => alias.clone(),
            ResultItem::Expr(e, None) => {
                let x = skip_collate_and_likely(e);
                let column = match x {
                    Expr::Id(id) => self.column_declared_name(None, &unquoted(id.0)),
                    Expr::Name(n) => self.column_declared_name(None, &unquoted(n.0)),
                    Expr::Qualified(t, c) | Expr::DoublyQualified(_, t, c) => self.column_declared_name(Some(&unquoted(t.0)), &unquoted(c.0)),
                    _ => None,
                };
                column.or_else(|| span.cloned()).unwrap_or_else(|| crate::sql::params::expr_text(e))
            }
        };
        if name.eq_ci("true") || name.eq_ci("false") {
            format!("column{}", i + 1)
        } else {
            name
        }
    }

    /// The declared name of the column `q.name` resolves to.
    fn column_declared_name(&mut self, q: Option<&str>, name: &str) -> Option<String> {
        let r = self.resolve_name(q, name).ok().flatten()?;
        let scope = self.names.scopes.len().checked_sub(1 + r.depth).and_then(|s| self.names.scopes.get(s))?;
        let item = scope.items.get(r.item)?;
        match r.column.or(item.rowid_alias) {
            Some(c) => item.columns.get(c).map(|c| c.name.clone()),
            None => Some("rowid".to_string()),
        }
    }

    /// CREATE TABLE `name` AS `sel` (see the module doc).
    pub(in crate::sql::codegen) fn create_table_as(&mut self, name: &str, sel: &ast::Select<'_>) -> Result<()> {
        let tmp = self.b.cursor();
        let open = self.b.add(Opcode::OpenEphemeral, tmp, 0, 0);
        self.naming.span_names = true;
        let compiled = self.with_default_names(|c| c.compile_select(sel, Dest::EphemTable(tmp)));
        self.naming.span_names = false;
        let info = compiled?;
        let n = info.n_columns;
        self.b.insns[open].p2 = n as i32;
        let names = unique_names(&info.table_names);
        let mut cols = Vec::new();
        for (i, cname) in names.iter().enumerate() {
            let ty = match column_affinity(&info, i) {
                Affinity::Text => " TEXT",
                Affinity::Numeric => " NUM",
                Affinity::Integer => " INT",
                Affinity::Real => " REAL",
                Affinity::Blob => "",
            };
            cols.push(format!("{}{ty}", quote_ident(cname)));
        }
        // SQLite's length estimate decides between one line and several.
        let ident_len = |s: &str| s.len() + s.matches('"').count() + 2;
        let total: usize = names.iter().map(|c| ident_len(c) + 5).sum::<usize>() + ident_len(name);
        let sql = if total >= 50 {
            format!("CREATE TABLE {}(\n  {}\n)", quote_ident(name), cols.join(",\n  "))
        } else {
            format!("CREATE TABLE {}({})", quote_ident(name), cols.join(","))
        };
        let table = crate::sql::schema::table_from_sql(&sql, 0)?;
        self.ensure_format();
        // (SQLite builds this text without printf: only the nested
        // statement writing it is held to the length limit.)
        let qn = format!("'{}'", name.replace('\'', "''"));
        self.nested_write_fits(None, |db, _| {
            format!(
                "UPDATE {db}.sqlite_master SET type='table', name={qn}, tbl_name={qn}, rootpage=#2, sql={} WHERE rowid=#1",
                format_args!("'{}'", sql.replace('\'', "''"))
            )
        })?;
        let root = self.b.reg();
        self.b.add(Opcode::CreateBtree, self.stmt.ddl_db as i32, root, 1);
        let sc = self.open_schema_table();
        self.schema_row(sc, "table", name, name, Some(root), Some(&sql));
        let dst = self.b.cursor();
        self.b.add4(Opcode::OpenWrite, dst, root, self.stmt.ddl_db as i32, P4::Int64(n as i64), 0x02);
        let end = self.b.label();
        self.b.add(Opcode::Rewind, tmp, end, 0);
        let top = self.b.here();
        let regs = self.b.regs(n.max(1));
        for i in 0..n {
            self.b.add(Opcode::Column, tmp, i as i32, regs + i as i32);
        }
        let rec = self.b.reg();
        let rid = self.b.reg();
        self.b.add4(Opcode::MakeRecord, regs, n as i32, rec, P4::affinity(table.affinity_string()), 0);
        self.b.add(Opcode::NewRowid, dst, rid, 0);
        self.b.add(Opcode::Insert, dst, rec, rid);
        self.b.add(Opcode::Next, tmp, top as i32, 0);
        self.b.bind(end);
        self.bump_cookie_appended();
        Ok(())
    }
}

/// `e` without COLLATE, parentheses and likely()/unlikely()/likelihood().
fn skip_collate_and_likely<'a, 'b>(mut e: &'a Expr<'b>) -> &'a Expr<'b> {
    loop {
        e = crate::sql::model::expr_shape::strip_collate_and_parens(e);
        match e {
            Expr::FunctionCall { name, args: Some(args), .. }
                if !args.is_empty() && ["likely", "unlikely", "likelihood"].iter().any(|f| f.eq_ci(&unquoted(name.0))) =>
            {
                e = &args[0]
            }
            _ => return e,
        }
    }
}

/// An identifier as SQLite writes it into synthesised CREATE TABLE text:
/// bare when it is a plain identifier that is not a keyword, otherwise in
/// double quotes (inner quotes doubled).
pub fn quote_ident(s: &str) -> String {
    let plain = !s.is_empty()
        && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        && !s.as_bytes()[0].is_ascii_digit()
        && (s.len() < 2 || sqlite3_parser::dialect::keyword_token(s.as_bytes()).is_none());
    if plain {
        s.to_string()
    } else {
        format!("\"{}\"", s.replace('"', "\"\""))
    }
}
