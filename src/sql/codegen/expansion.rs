//! Views and CTEs expanded into the statement: the ones being expanded
//! (recursion guard), how deep, and the counts SQLite limits (references
//! to one table, cursors numbered by FROM-clause expansion).

/// The views and CTEs expanded so far, and the counts SQLite limits.
#[derive(Default)]
pub struct Expansion {
    /// Views being expanded (recursion guard).
    pub expanding: Vec<String>,
    /// The next view read is let through with `SQLITE_DBCONFIG_ENABLE_VIEW`
    /// off (its column names for an INSERT through INSTEAD OF triggers:
    /// SQLite reads them without the check, its body's views with it).
    pub view_pass_once: bool,
    /// How many times the statement names each table or view (told apart
    /// by database and name, case-insensitively) in a FROM clause, views'
    /// bodies included: SQLite refuses a statement naming one more than
    /// 65534 times. (A short list: a statement names few distinct tables.)
    pub table_references: Vec<(std::sync::Arc<crate::sql::schema::Table>, u32)>,
    /// Views and CTEs being expanded, one inside the other.
    pub view_depth: usize,
    /// The cursors SQLite's expansion of FROM clauses has numbered so far
    /// (`Parse::nTab`: every item of a FROM clause, with those of the
    /// subqueries written in it, when the clause is expanded), and the
    /// FROM clauses counted (by address). A CTE expanded when it reaches
    /// `SQLITE_LIMIT_EXPR_DEPTH` is "nested too deep"
    /// (`query::from`, `enter_cte_nesting`).
    pub expanded_cursors: usize,
    /// The heights of the join terms `open_from` last added, in join
    /// order: each ON clause, and each USING/NATURAL column's equality
    /// (`query::join_height`).
    pub join_term_heights: Vec<usize>,
    pub counted_froms: std::collections::HashSet<usize>,
}
