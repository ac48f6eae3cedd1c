//! How the result columns of the SELECT compiled next are named, and the
//! source text they are named from (`query/legacy_names.rs`,
//! `query/column_text.rs`), with the declared type and origin of scalar
//! subqueries' first columns.

use super::query;
use std::collections::HashMap;

/// How the next SELECT's result columns are named.
#[derive(Default)]
pub struct ColumnNaming {
    /// The first arm of a top-level compound: compute column names from
    /// the source text.
    pub top_compound_arm: bool,
    /// Naming the columns of a view or of CREATE TABLE ... AS: SQLite's
    /// default column-naming flags apply, not the settings'
    /// (`query/legacy_names.rs`).
    pub default_names: bool,
    /// The next SELECT compiled names its result columns from the source
    /// text (the top SELECT of CREATE TABLE ... AS).
    pub span_names: bool,
    /// The next SELECT compiled names its result columns as a view's
    /// columns are named: from this text's top-level result list (the
    /// CREATE VIEW statement), the way `span_names` does.
    pub view_names_text: Option<String>,
    /// The CREATE VIEW statements of the views being expanded, innermost
    /// last: the source text a nested SELECT of a view's body names its
    /// expression columns from (`query::select::subquery_column_text`).
    pub view_texts: Vec<query::column_text::IndexedText>,
    /// The statement's result-column spans, indexed on first use.
    pub statement_texts: query::column_text::StatementTexts,
    /// The next SELECT compiled is a parenthesized join's `SELECT *`: its
    /// `*` keeps every column, each tagged with its table
    /// (`SelectInfo::sources`).
    pub nested_from: bool,
    /// Declared type and origin (database, table, column) of the first
    /// result column of each scalar subquery compiled, keyed as
    /// `subquery_affinity`: what `sqlite3_column_decltype` and the origin
    /// functions report for a result column that is such a subquery.
    pub subquery_column: HashMap<usize, (Option<String>, Option<(String, String, String)>)>,
}
