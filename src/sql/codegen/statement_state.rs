//! The statement as a whole: its source text, parameters and bound
//! values, the authorizer consulted while it compiles, and what the
//! finished program records besides its instructions (whether it writes,
//! the databases it uses, its trigger programs, its EXPLAIN QUERY PLAN
//! lines, the parameters whose binding expires it).
//!
//! This state outlives every program the statement compiles: a trigger
//! program sets aside the builder and the `FrameState`, not this.

use super::{auth, plan_lines};
use crate::error::Error;
use crate::vdbe::program::Program;

/// The statement's text, parameters, authorizer and program-wide records.
#[derive(Default)]
pub struct StatementState<'s> {
    /// Source text of the statement.
    pub sql: &'s [u8],
    /// Whether each AND/OR node on the left spine of the chains being
    /// compiled holds a subquery (SQLite's `EP_Subquery`), keyed by the
    /// node's address: asked at each level of a chain, it would otherwise
    /// walk the operand below every level (`Compiler::learn_chain`). An
    /// entry lives only while its chain is being compiled (its tree alive).
    /// (1 or 0: the map type the compiler already instantiates.)
    pub chain_subqueries: std::collections::HashMap<usize, i32>,
    /// Parameter names by index (index 0 unused).
    pub params: Vec<Option<String>>,
    /// Whether the program writes.
    pub writes: bool,
    /// The statement is EXPLAIN: instructions get their comments (see
    /// [`Compiler::comment`]).
    pub explain_comments: bool,
    /// EXPLAIN QUERY PLAN lines (recorded only for EXPLAIN QUERY PLAN).
    pub eqp: plan_lines::PlanLines,
    /// Databases the program opens cursors on (bit per database).
    pub dbs_used: u32,
    /// A virtual table configured `SQLITE_VTAB_USES_ALL_SCHEMAS` is used:
    /// the program begins a transaction on every database (a write one
    /// on each when it writes), as SQLite's does for such a table.
    pub all_schemas: bool,
    /// The program's transactions check no schema cookie: a pragma SQLite
    /// compiles without the schema (reading a header field, say), whose
    /// program does not depend on it, and which may have been compiled
    /// before any schema was read (see `connection/schema_free.rs`).
    pub schema_unverified: bool,
    /// Database a DDL statement changes (0 main, 1 temp, 2.. attached).
    pub ddl_db: usize,
    /// Rows the program appends to a schema table (`Compiler::schema_row`
    /// and CREATE TRIGGER's own): how many objects the database will have
    /// when `ParseSchema` checks `SQLITE_LIMIT_SCHEMA`.
    pub schema_rows_added: usize,
    /// The trigger programs compiled so far (`Program::subprograms`).
    pub subprograms: Vec<Program>,
    /// Which trigger program is which: (trigger key, index in
    /// `subprograms`). A program being compiled is listed already, so a
    /// trigger firing itself calls it.
    pub trigger_programs: Vec<(String, usize)>,
    /// The values bound to the statement compiled again (see
    /// `bound_limit_value`).
    pub bound_params: Option<&'s [crate::value::Value]>,
    /// The parameters whose binding expires the program
    /// (`Program::expire_on_bind`).
    pub expire_on_bind: u32,
    /// The rows after the first of a bulk INSERT's VALUES, when the
    /// statement was split (`sql::value_rows`): the tree holds only the
    /// first row, and the multi-row INSERT codes these after it.
    pub value_rows: Option<&'s crate::sql::value_rows::ValueRows<'s>>,
    /// The connection's authorizer (`auth.rs`), consulted while compiling
    /// (`None`: none installed, or set aside for code the statement's own
    /// checks already covered).
    pub authorizer: Option<&'s auth::AuthorizerSlot>,
    /// The authorizer's answers for the SELECTs being compiled, innermost
    /// last (with an authorizer only; `query/auth_order.rs`).
    pub auth_answers: Vec<crate::sql::codegen::query::auth_order::AuthAnswers>,
    /// A height SQLite's code generator refuses (the count-of-view sum,
    /// `query/count_of_view.rs`; the LIKE optimization's range terms,
    /// `query/like_range.rs`), the first one met: SQLite resolves every
    /// name of the statement before it codes any of it, so a name error
    /// met later wins; the compilation fails with it at the end.
    pub codegen_error: Option<Error>,
    /// An authorizer failure found where no error could be returned; the
    /// compilation fails with it at the end.
    pub auth_error: Option<Error>,
    /// Column reads being coded are a join's USING/NATURAL equality,
    /// which SQLite builds of column references it never resolves by
    /// name: the authorizer is not asked about them, and its IGNORE
    /// answer for a name does not make them NULL (`emit_join_columns`).
    pub unasked_reads: bool,
    /// The addresses of the column operands of the USING/NATURAL
    /// equalities the join being opened offers for lookups (read without
    /// asking too; valid while `open_loops_with` runs).
    pub using_leaves: Vec<usize>,
    /// The cursors of the json_each/json_tree tables of FROM, with the
    /// name of the eponymous table SQLite reads (whose columns its
    /// authorizer is asked about: `query/auth_order.rs`).
    pub json_tables: Vec<(i32, &'static str)>,
    /// The recursive CTEs compiled and the number of SELECTs SQLite codes
    /// for each (the setup query and the recursive arms): their checks
    /// wait for the CTE's own SELECT (`query/auth_order.rs`).
    pub auth_recursive: Vec<(String, usize)>,
    /// The MATERIALIZED CTEs whose SELECT was asked about: SQLite codes
    /// one once however many times it is read.
    pub auth_materialized: Vec<String>,
    /// While an UPDATE ... FROM's join compiles, the target table's name
    /// there: SQLite's check of it as an unread table names the database
    /// as the statement wrote it (`auth_update_db`).
    pub auth_update_from: Option<String>,
    /// The database the UPDATE being compiled names its table in, as
    /// written (`None`: not written).
    pub auth_update_db: Option<String>,
    /// The IN subquery about to be compiled is one SQLite reads from a
    /// table or index without coding it (`auth.rs`).
    pub auth_in_not_coded: bool,
    /// The authorizer calls of subqueries asked ahead (`auth.rs`).
    pub auth_ahead: auth::AuthAhead,
    /// Names being resolved are those of a CREATE statement's CHECK
    /// constraints, generated columns or index expressions: whether a
    /// double-quoted one may be a string is `SQLITE_DBCONFIG_DQS_DDL`'s
    /// to say (see `Compiler::double_quoted_string_allowed`).
    pub ddl_names: bool,
}
