//! The compile state tied to the program being built: what names its
//! registers, cursors and instruction addresses (aggregate accumulators,
//! column sources, record layouts, recursive-CTE queues, the INSERT's
//! AUTOINCREMENT registers) and the per-program switches that go with
//! them. A trigger program (`dml/trigger_program.rs`) is a program of its
//! own, run in a new VM frame: while it compiles, this whole struct is set
//! aside with the [`Builder`](super::builder::Builder) and a fresh one is
//! used, so no register of the outer program leaks into it.
//!
//! Invariant: every field is empty (its `Default`) when a program starts
//! (checked: frame_empty_at_start); state that outlives one program (the
//! statement's trigger programs, its EXPLAIN QUERY PLAN lines) belongs on
//! `Compiler`, not here.

use crate::sql::resolve::ColumnRef;
use crate::util::fast_hash::FastMap;
use std::collections::HashMap;

/// Where a column reference reads from while aggregates are output.
#[derive(Debug, Clone, Copy)]
pub enum ColumnSource {
    /// A register holding the value.
    Register(i32),
    /// A column of a (pseudo) cursor.
    Cursor(i32, usize),
}

/// A common table expression visible by name.
#[derive(Clone)]
pub struct CteDef {
    /// SELECT text.
    pub select_sql: String,
    /// Column names given in `name(a, b)`.
    pub columns: Option<Vec<String>>,
    /// Written `AS MATERIALIZED`: SQLite pushes no outer WHERE term into
    /// its body.
    pub materialized: bool,
}

/// The ORDER BY of a recursive CTE: its queue hands out rows in this
/// order (result column, descending, NULLs placed against the default:
/// an "is NULL" key goes first), ties first in first out.
#[derive(Clone)]
pub struct RecursiveOrder {
    pub keys: Vec<(usize, bool, bool)>,
    /// Sequence number of the last row queued.
    pub seq: i32,
}

/// Inside the recursive arm of a recursive CTE: its name reads the
/// current row from this cursor.
#[derive(Clone)]
pub struct RecursiveBinding {
    /// CTE name.
    pub name: String,
    /// Cursor holding the current row.
    pub cursor: i32,
    /// Column names.
    pub columns: Vec<String>,
}

/// State naming the registers, cursors and addresses of one program.
#[derive(Default)]
pub struct FrameState {
    /// Aggregate output mode: aggregate calls (by their SQL text) to
    /// accumulator registers.
    pub agg_regs: FastMap<String, i32>,
    /// How many scopes were open when `agg_regs` was filled (the query
    /// computing those aggregates is the last of them): a subquery nested
    /// deeper that reads one is correlated with that query's groups.
    pub agg_scope_depth: usize,
    /// For each accumulator register of `agg_regs`, how many scopes were
    /// open when its query filled it: a subquery of a nested aggregate
    /// query reading an outer query's aggregate (through a result alias)
    /// is correlated with that outer query, not only with the nested one.
    pub agg_owner_depth: FastMap<i32, usize>,
    /// Aggregate mode: column (cursor, column or -1 for rowid) to source.
    pub col_map: FastMap<(i32, i64), ColumnSource>,
    /// USING/NATURAL columns of RIGHT and FULL JOINs: the leftmost
    /// column of that name (cursor, column or -1 for rowid; the one a
    /// name without a qualifier resolves to) to the columns such a name
    /// reads instead: the right column of a RIGHT JOIN alone, the
    /// coalesce() of both sides' after a FULL JOIN.
    pub using_coalesce: HashMap<(i32, i64), Vec<ColumnRef>>,
    /// Cursors open on WITHOUT ROWID tables: table column to position in
    /// the stored record.
    pub record_positions: HashMap<i32, Vec<usize>>,
    /// Addresses of the `MakeRecord`s feeding each temporary index, so an
    /// IN operator can give them its comparison affinity afterwards.
    pub ephem_records: HashMap<i32, Vec<usize>>,
    /// The Bloom filters of IN subqueries being compiled: temporary index
    /// cursor to (filter register, addresses of its `FilterAdd`s).
    pub bloom_adds: HashMap<i32, (i32, Vec<usize>)>,
    /// INSERT into an AUTOINCREMENT table: (sqlite_sequence cursor,
    /// register with the sequence value, register with its row's rowid,
    /// register with the value read at the start).
    pub autoinc: Option<(i32, i32, i32, i32)>,
    /// The register counting the rows an INSERT inserted, for
    /// `count_changes`.
    pub inserted_rows: Option<i32>,
    /// Recursive CTEs being generated, innermost last.
    pub recursive: Vec<RecursiveBinding>,
    /// The ORDER BY of recursive CTEs with one (see `Dest::Recursive`).
    pub recursive_orders: Vec<RecursiveOrder>,
    /// The compound SELECT being compiled: where its duplicate-removing
    /// temporaries are opened (their key collations are set at the end).
    pub compound_key_opens: Vec<usize>,
    /// The addresses of the WHERE or ON terms the last loop opened by
    /// `open_access` decides exactly by its seek (`rowid = expr` of a
    /// `SeekRowid`, an index search's `=` terms and bounds), so that they
    /// are not tested again inside the loop (as SQLite's `disableTerm`).
    pub seek_consumed: Vec<usize>,
    /// Row-value subqueries (SQL text, width) the next simple SELECT
    /// computes after its own result columns, in its join loop (the values
    /// of UPDATE ... FROM).
    pub row_values_after: Vec<(String, usize)>,
    /// The SELECT being compiled feeds an EXISTS test.
    pub in_exists: bool,
    /// Generating an aggregate query, or the ORDER BY terms of any
    /// query: an aggregate reached where none is computed is then "misuse
    /// of aggregate: f()", as SQLite reports it when generating code rather
    /// than when resolving names ("misuse of aggregate function f()").
    pub in_aggregate_query: bool,
    /// Compiling a subquery that is an operand of a comparison.
    pub comparing: bool,
    /// CTEs in scope, innermost last.
    pub ctes: Vec<HashMap<String, CteDef>>,
    /// The alias of the INSERT being compiled (`INSERT INTO t AS x`).
    pub insert_alias: Option<String>,
    /// The table an UPDATE/DELETE writes, while the query collecting its
    /// rows is compiled: that query's first FROM item names the table even
    /// when a CTE has the same name.
    pub dml_target: Option<String>,
    /// Compiling the query that collects the rowids an UPDATE/DELETE
    /// visits: its `rowid` column is not an application read to authorize
    /// (a lower-case `rowid` in the statement's WHERE is not checked either).
    pub internal_rowid_read: bool,
    /// Code being compiled computes an index key (1), a CHECK constraint
    /// (2) or a generated column (3): `Function` instructions carry it in
    /// P1 (see `vdbe::func::pure_context_name`).
    pub pure_context: i32,
}

impl FrameState {
    /// Debug builds: whether every field is its `Default` (each named, so
    /// a new field must be added here to compile).
    #[cfg(debug_assertions)]
    pub fn is_empty(&self) -> bool {
        let FrameState {
            agg_regs,
            agg_scope_depth,
            agg_owner_depth,
            col_map,
            using_coalesce,
            record_positions,
            ephem_records,
            bloom_adds,
            autoinc,
            inserted_rows,
            recursive,
            recursive_orders,
            compound_key_opens,
            seek_consumed,
            row_values_after,
            in_exists,
            in_aggregate_query,
            comparing,
            ctes,
            insert_alias,
            dml_target,
            internal_rowid_read,
            pure_context,
        } = self;
        agg_regs.is_empty()
            && *agg_scope_depth == 0
            && agg_owner_depth.is_empty()
            && col_map.is_empty()
            && using_coalesce.is_empty()
            && record_positions.is_empty()
            && ephem_records.is_empty()
            && bloom_adds.is_empty()
            && autoinc.is_none()
            && inserted_rows.is_none()
            && recursive.is_empty()
            && recursive_orders.is_empty()
            && compound_key_opens.is_empty()
            && seek_consumed.is_empty()
            && row_values_after.is_empty()
            && !in_exists
            && !in_aggregate_query
            && !comparing
            && ctes.is_empty()
            && insert_alias.is_none()
            && dml_target.is_none()
            && !internal_rowid_read
            && *pure_context == 0
    }
}
