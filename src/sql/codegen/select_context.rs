//! What one SELECT hands the next one compiled or its own FROM clause:
//! a compound's ORDER BY as offered to its arms, the WHERE terms and
//! result aliases a table-valued pragma's arguments may name, a LIMIT a
//! recursive CTE or a UNION ALL's arms share, the EXISTS terms turned
//! into joins, the nodes constant propagation fixed, and the affinity of
//! each scalar subquery's first column.

use std::collections::HashMap;

/// What one SELECT hands the next one compiled or its FROM clause.
#[derive(Default)]
pub struct SelectContext {
    /// The number of arms of the compound whose arms are compiling (the
    /// `SQLITE_SELECT` checks SQLite makes for them: `compile_arm`).
    pub auth_arms: usize,
    /// The next simple SELECT is an arm of a compound given the compound's
    /// ORDER BY only to offer it to a virtual table (the compound sorts
    /// its rows at the end): the arm does not sort them itself.
    pub arm_order_offered_only: bool,
    /// While a compound's arms compile: per arm, the column names of the
    /// compound's ORDER BY that SQLite resolves in that arm's FROM.
    pub arm_probed_names: Vec<Vec<String>>,
    /// The next simple SELECT's share of `arm_probed_names`: columns its
    /// virtual tables count as used (`colUsed`).
    pub arm_order_probed: Vec<String>,
    /// The `name = 'text'` terms ANDed at the top of the WHERE clause of
    /// the SELECT whose FROM clause is being opened, (qualifier, name,
    /// text): what SQLite's xBestIndex would hand a pragma function as its
    /// hidden `arg`/`schema` argument (see `table_fn.rs`).
    pub pragma_where_args: Vec<(Option<String>, String, String)>,
    /// The result-column aliases of the SELECT whose FROM is being opened
    /// (a table-valued pragma's argument may name one, as a WHERE term
    /// may; it is compiled once the aliases are known).
    pub from_result_aliases: Vec<String>,
    /// Column names (lower case) the WHERE clause and the ON clauses of
    /// the SELECT whose FROM is being opened mention anywhere: a pragma's
    /// hidden column constrained there other than by a top-level `=`
    /// would need SQLite's xBestIndex to mean what it means, so such a
    /// column is left out ("no such column") rather than read as NULL.
    pub from_mentioned_names: Vec<String>,
    /// LIMIT (and OFFSET) of a query that only reads a recursive CTE, as
    /// SQL text: the CTE stops generating once that many rows exist.
    pub cte_limit_hint: Option<(String, Option<String>)>,
    /// The LIMIT/OFFSET counters a UNION ALL streamed with a LIMIT shares
    /// between its arms, for the next arm compiled (taken by it), and
    /// whether its LIMIT is a one-row subquery's rewritten `X <> 0`.
    pub compound_limit: Option<(crate::sql::model::query::LimitRegs, bool)>,
    /// The `EXISTS (SELECT ...)` terms (by the address of the subquery's
    /// body) of the WHERE clauses being compiled that SQLite turns into a
    /// join: their subquery is not offered the LIMIT 1 of an EXISTS.
    pub exists_as_join: Vec<usize>,
    /// The column nodes (by address) SQLite's constant propagation
    /// replaces by a constant (see `query::const_propagation`).
    pub const_fixed_nodes: Vec<usize>,
    /// The tables (by cursor) no NULL row of their loop nest reaches,
    /// and the NULL tests of WHERE and ON clauses folded to an integer
    /// (node and operand addresses, value): see `query::null_fold`.
    pub null_fold_tables: Vec<(i32, std::sync::Arc<crate::sql::schema::Table>)>,
    pub null_folds: Vec<(usize, usize, i64)>,
    /// Affinity of the first result column of each scalar subquery
    /// compiled, by the address of its AST node (only meaningful while
    /// that AST lives: entries are dropped before the result columns
    /// holding them are compiled).
    pub subquery_affinity: HashMap<usize, Option<crate::value::affinity::Affinity>>,
    /// The statement is a SELECT: views and FROM subqueries that only
    /// project a table may be read as the table (`plan::flatten`).
    pub flatten: bool,
    /// The SELECT whose FROM is being opened is DISTINCT: the right
    /// table of a LEFT JOIN is then not flattened (as SQLite 3.54 does
    /// not).
    pub from_distinct: bool,
}
