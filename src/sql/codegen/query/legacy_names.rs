//! Result column names under the deprecated `PRAGMA full_column_names`
//! and `PRAGMA short_column_names`, which SQLite still honours:
//!
//! - an AS clause always names the column;
//! - a result column that is a plain column reference (parentheses
//!   aside) is named TABLE.COLUMN with full names on (TABLE is the real
//!   name of the table, view, CTE or the FROM subquery's alias, whatever
//!   alias the reference used; COLUMN its declared name, `rowid` for the
//!   rowid of a table without INTEGER PRIMARY KEY), and by its source
//!   text with both settings off; this is the statement's output only
//!   (the first arm of a compound), not a nested SELECT's;
//! - a column of `*` or `t.*` is named ALIAS.COLUMN (the FROM item's
//!   alias, else its name) with full names on and short names off, in
//!   nested SELECTs too, which then name their columns so.
//!
//! With the defaults (full off, short on) only a rowid reference is named
//! here (`rowid`, however written); other names are those of
//! `select::describe_item`. CREATE TABLE ... AS and
//! view columns are named as with the defaults (the compiler's flags are
//! reset while those are compiled).

use crate::sql::codegen::query::select::ResultSpans;
use crate::util::ascii::AsciiLower;

use crate::sql::model::expr_shape::strip_parens;

use crate::sql::codegen::Compiler;
use crate::sql::model::query::ResultItem;
use crate::sql::parse::unquoted;
use sqlite3_parser::ast::Expr;

impl Compiler<'_> {
    /// Run `f` with the default naming settings (full off, short on), as
    /// SQLite names the columns of a view or of CREATE TABLE ... AS.
    pub(in crate::sql::codegen) fn with_default_names<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        let saved = std::mem::replace(&mut self.naming.default_names, true);
        let r = f(self);
        self.naming.default_names = saved;
        r
    }

    /// (`full_column_names`, `short_column_names`) as they apply to the
    /// columns being named: the connection's settings, or SQLite's
    /// defaults inside [`Compiler::with_default_names`].
    pub(in crate::sql::codegen) fn column_name_flags(&self) -> (bool, bool) {
        if self.naming.default_names {
            (false, true)
        } else {
            (self.env.settings.full_column_names, self.env.settings.short_column_names)
        }
    }

    /// Record that the FROM item just opened reads view or CTE `name`
    /// (a view: of database `view_db`).
    pub(in crate::sql::codegen) fn name_last_item_object(&mut self, name: &str, view_db: Option<usize>) {
        if let Some(it) = self.names.scopes.last_mut().and_then(|s| s.items.last_mut()) {
            it.object_name = Some(name.to_string());
            it.view_db = view_db;
        }
    }

    /// The name result item `item` gets under the legacy settings, when
    /// they give it another name than the default one. `output` says the
    /// item is a column of the statement's result; `written` is the item's
    /// place in the written result list (for its source text).
    pub(in crate::sql::codegen) fn legacy_column_name(
        &mut self,
        item: &ResultItem<'_, '_>,
        output: bool,
        spans: &mut ResultSpans<'_>,
        written: usize,
    ) -> Option<String> {
        let (full, short) = self.column_name_flags();
        match item {
            ResultItem::Col(r, name, _) if full && !short => {
                let it = self.names.scopes.last()?.items.get(r.item)?;
                let col = it.columns.iter().find(|c| c.name.eq_ci(name));
                let table = match col.and_then(|c| c.source.clone()) {
                    Some(source) => source,
                    None => from_item_name(it),
                };
                Some(format!("{table}.{name}"))
            }
            ResultItem::Expr(e, None) if output => {
                let (q, col) = match strip_parens(e) {
                    Expr::Id(id) => (None, unquoted(id.0)),
                    Expr::Qualified(t, c) | Expr::DoublyQualified(_, t, c) => (Some(unquoted(t.0)), unquoted(c.0)),
                    _ => return None,
                };
                // (With the defaults only a rowid is named otherwise than
                // by `describe_item`.)
                let maybe_rowid = ["rowid", "oid", "_rowid_"].iter().any(|n| n.eq_ci(&col));
                if !full && short && !maybe_rowid {
                    return None;
                }
                let r = self.resolve_name(q.as_deref(), &col).ok().flatten().filter(|r| r.depth == 0)?;
                if !full && !short {
                    // Neither setting: the reference as written.
                    return spans.get(written).cloned();
                }
                let it = self.names.scopes.last()?.items.get(r.item)?;
                let col = match r.column.or(it.rowid_alias) {
                    Some(ci) if full => it.columns.get(ci)?.name.clone(),
                    Some(_) => return None,
                    None => "rowid".to_string(),
                };
                if !full {
                    return Some(col);
                }
                let table = match &it.object_name {
                    Some(object) => object.clone(),
                    None if it.table.is_empty() => from_item_name(it),
                    None => it.table.clone(),
                };
                Some(format!("{table}.{col}"))
            }
            _ => None,
        }
    }
}

/// The name of FROM item `it` in legacy names: its alias or table name,
/// or for a subquery without alias `(subquery-N)` as SQLite shows one.
fn from_item_name(it: &crate::sql::resolve::ScopeItem) -> String {
    if it.name.is_empty() {
        format!("(subquery-{})", it.cursor + 1)
    } else {
        it.name.clone()
    }
}
