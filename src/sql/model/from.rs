//! FROM items after opening: the cursor each reads, its table, its join
//! terms (ON, USING/NATURAL, a table-valued pragma's argument), and for a
//! virtual table the connected instance with its declared columns. Code
//! generation opens them (`codegen/query/from.rs`); the planner reads them to
//! choose access paths and the join order.

use crate::sql::resolve::ColumnRef;
use crate::sql::schema::Table;
use crate::sql::vtab_decl::DeclaredTable;
use crate::vdbe::vtab::VtabInstance;
use sqlite3_parser::ast::{Expr, FromClause};
use std::sync::Arc;

/// A join condition.
#[derive(Clone)]
pub enum JoinTerm<'a, 'b> {
    /// An ON expression.
    Expr(&'a Expr<'b>),
    /// USING/NATURAL: the left column (the coalesce() of the listed
    /// columns when there are several) equals the right column.
    ColEq(Vec<ColumnRef>, ColumnRef),
    /// A table-valued pragma's argument given as an expression (a bound
    /// parameter, a function of tables to the left): it equals the hidden
    /// `arg` column, compared as names are (ASCII case folded).
    ExprEq(&'a Expr<'b>, ColumnRef),
    /// A row of a table-valued pragma standing for a table it cannot
    /// describe: when the column holds `i` (1-based), the statement fails
    /// with error `i - 1` of the list (SQLite's pragma fails when it runs
    /// for that table). Placed after the terms that select the row.
    FailWhen(ColumnRef, Vec<crate::error::Error>),
}

/// One FROM item after opening.
pub struct FromItem<'a, 'b> {
    /// Index in the current scope.
    pub item: usize,
    /// Cursor reading rows.
    pub cursor: i32,
    /// The table, when it is a real table (not a temporary copy), shared
    /// with the schema.
    pub table: Option<Arc<Table>>,
    /// LEFT JOIN (this item may produce a null row).
    pub left: bool,
    /// CROSS JOIN: the tables before this item stay outside it (SQLite
    /// never reorders across it).
    pub cross: bool,
    /// Join terms attached to this item.
    pub on: Vec<JoinTerm<'a, 'b>>,
    /// RIGHT or FULL JOIN (this item is its right table): the temporary
    /// index of the keys (rowid, or a WITHOUT ROWID table's PRIMARY KEY)
    /// of this item's rows that matched a row of the tables before it.
    pub matched: Option<i32>,
    /// The USING (or NATURAL) columns of this item's join.
    pub using: Vec<String>,
    /// json_each/json_tree: the call's arguments and whether it is
    /// json_tree; the temporary table at `cursor` is refilled from them
    /// each time the loop over this item starts.
    pub table_fn: Option<(&'a [Expr<'b>], u16)>,
    /// `NOT INDEXED` (`Some(None)`) or `INDEXED BY name`: the indexes the
    /// planner may use for this table.
    pub index_hint: Option<Option<String>>,
    /// A virtual table (`vtab.rs`): read by `VFilter`/`VNext`.
    pub vtab: Option<VtabItem<'a, 'b>>,
    /// The name EXPLAIN QUERY PLAN shows for an item whose scope name is
    /// empty (an unaliased subquery: `(subquery-N)`, as SQLite shows it).
    pub plan_name: Option<String>,
}

/// A FROM clause displayed as SQL text (without the FROM keyword).
pub struct FromDisplay<'x, 'y>(pub &'x FromClause<'y>);

/// A FROM clause as SQL text (without the FROM keyword).
pub fn from_text(from: &FromClause<'_>) -> String {
    FromDisplay(from).to_string()
}

impl std::fmt::Display for FromDisplay<'_, '_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use sqlite3_parser::ast::fmt::ToTokens;
        self.0.to_fmt(f)
    }
}

/// A FROM item reading a virtual table.
pub struct VtabItem<'a, 'b> {
    /// The connected table.
    pub inst: Arc<VtabInstance>,
    /// Its declared columns.
    pub decl: DeclaredTable,
    /// Table-valued-function arguments, bound to the hidden columns in
    /// order.
    pub args: &'a [Expr<'b>],
}
