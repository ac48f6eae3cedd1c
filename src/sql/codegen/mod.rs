//! # Code generation
//!
//! One [`Compiler`] per statement: it owns the [`Builder`], the scope
//! stack used by name resolution, the parameter table and the per-SELECT
//! state for aggregates, and borrows the connection's schema, registries
//! and pragma switches (`settings`, `vdbe/settings.rs`).
//!
//! Floor plan: `statement.rs` hands a statement to its family (the only
//! module naming the families); a shared core at this level (this file, `builder.rs`,
//! `expr/` for expressions, row values and index expressions, `target.rs`
//! for the table a statement writes, `loop_kind.rs`, `auth.rs`, `vtab.rs`,
//! `plan_lines.rs`), and one folder per statement family: `query/`
//! (SELECT, FROM and join loops, aggregates, windows, compounds), `dml/`
//! (INSERT, UPDATE, DELETE, upsert, RETURNING, triggers, foreign keys),
//! `ddl/` (CREATE/DROP, ALTER, ATTACH, VACUUM, REINDEX, transactions),
//! `pragma/`. A family names the core, the query model (`sql/model/`), the
//! planner (`sql/plan/`) and the schema, not another family (`query/`
//! reads `pragma/` for table-valued pragmas); calls between families go
//! through `Compiler` methods.
//!
//! Invariant: code is generated in one pass; jumps to code not yet emitted
//! go through labels.

pub mod auth;
pub mod builder;
pub mod ddl;
pub mod dml;
pub mod expr;
mod indexed_by;
mod loop_kind;
mod plan_lines;
pub mod pragma;
pub mod query;
pub mod statement;
pub mod target;
pub mod vtab;

use crate::error::{Error, Result};
use crate::sql::resolve::Scope;
use crate::sql::schema::Schema;
use crate::util::ascii::AsciiLower;
use crate::value::collation::Collation;
use crate::vdbe::func::FunctionRegistry;
use crate::vdbe::program::{Opcode, Program, P4};
use builder::Builder;
use sqlite3_parser::ast::Expr;
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

/// Everything one statement's compilation needs.
pub struct Compiler<'s> {
    /// The program being built.
    pub b: Builder,
    /// The schema compiled against.
    pub schema: &'s Schema,
    /// Functions.
    pub funcs: &'s FunctionRegistry,
    /// Collations by upper-case name.
    pub collations: &'s HashMap<String, Collation>,
    /// Names given to `create_collation`, first registration first (what
    /// `PRAGMA collation_list` lists before the built-in ones).
    pub collation_order: &'s [String],
    /// Name-resolution scopes, innermost last.
    pub scopes: Vec<Scope>,
    /// Parameter names by index (index 0 unused).
    pub params: Vec<Option<String>>,
    /// Aggregate output mode: aggregate calls (by their SQL text) to
    /// accumulator registers.
    pub agg_regs: crate::util::fast_hash::FastMap<String, i32>,
    /// How many scopes were open when `agg_regs` was filled (the query
    /// computing those aggregates is the last of them): a subquery nested
    /// deeper that reads one is correlated with that query's groups.
    pub agg_scope_depth: usize,
    /// For each accumulator register of `agg_regs`, how many scopes were
    /// open when its query filled it: a subquery of a nested aggregate
    /// query reading an outer query's aggregate (through a result alias)
    /// is correlated with that outer query, not only with the nested one.
    pub agg_owner_depth: crate::util::fast_hash::FastMap<i32, usize>,
    /// For an accumulator of `agg_regs`, the one of an enclosing query its
    /// entry replaced (the same call text): what that text means where
    /// the enclosing query's expression is compiled (a result alias named
    /// in a subquery).
    pub agg_shadowed: crate::util::fast_hash::FastMap<i32, i32>,
    /// Aggregate mode: column (cursor, column or -1 for rowid) to source.
    pub col_map: crate::util::fast_hash::FastMap<(i32, i64), ColumnSource>,
    /// USING/NATURAL columns of RIGHT and FULL JOINs: the leftmost
    /// column of that name (cursor, column or -1 for rowid; the one a
    /// name without a qualifier resolves to) to the columns such a name
    /// reads instead: the right column of a RIGHT JOIN alone, the
    /// coalesce() of both sides' after a FULL JOIN.
    pub using_coalesce: HashMap<(i32, i64), Vec<crate::sql::resolve::ColumnRef>>,
    /// USING/NATURAL equalities by the cursor of their left table: its
    /// column and the right table's, for the inner joins the planner may
    /// place the right table outside (SQLite offers the term to a left
    /// virtual table too).
    pub using_left_terms: HashMap<i32, Vec<(crate::sql::resolve::ColumnRef, crate::sql::resolve::ColumnRef)>>,
    /// Cursors open on WITHOUT ROWID tables: table column to position in
    /// the stored record.
    pub record_positions: HashMap<i32, Vec<usize>>,
    /// Result-column aliases usable in WHERE/GROUP BY/HAVING/ORDER BY,
    /// innermost SELECT last.
    pub aliases: Vec<Aliases>,
    /// Compiling a subquery that is an operand of a comparison.
    pub comparing: bool,
    /// CTEs in scope, innermost last.
    pub ctes: Vec<HashMap<String, CteDef>>,
    /// Whether the program writes.
    pub writes: bool,
    /// EXPLAIN QUERY PLAN lines (recorded only for EXPLAIN QUERY PLAN).
    pub eqp: plan_lines::PlanLines,
    /// The statement is EXPLAIN: instructions get their comments (see
    /// [`Compiler::comment`]).
    pub explain_comments: bool,
    /// Source text of the statement.
    pub sql: &'s [u8],
    /// Views being expanded (recursion guard).
    pub expanding: Vec<String>,
    /// How many times the statement names each table or view (told apart
    /// by database and name, case-insensitively) in a FROM clause, views'
    /// bodies included: SQLite refuses a statement naming one more than
    /// 65534 times. (A short list: a statement names few distinct tables.)
    pub table_references: Vec<(std::sync::Arc<crate::sql::schema::Table>, u32)>,
    /// The first arm of a top-level compound: compute column names from
    /// the source text.
    pub top_compound_arm: bool,
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
    /// Every database of the connection by index (0 main, 1 temp, 2..
    /// attached): (schema name, file name).
    pub databases: &'s [(String, String)],
    /// `PRAGMA database_list` shows temp (it has been used).
    pub temp_listed: bool,
    /// The open file of database `i`, asked about a PRAGMA before ringlite
    /// answers it (SQLite's `SQLITE_FCNTL_PRAGMA`: an application VFS may
    /// answer pragmas of its own).
    pub db_file: Option<&'s dyn Fn(usize) -> Option<std::sync::Arc<dyn crate::io::File>>>,
    /// The `name = 'text'` terms ANDed at the top of the WHERE clause of
    /// the SELECT whose FROM clause is being opened, (qualifier, name,
    /// text): what SQLite's xBestIndex would hand a pragma function as its
    /// hidden `arg`/`schema` argument (see `table_fn.rs`).
    pub(super) pragma_where_args: Vec<(Option<String>, String, String)>,
    /// The result-column aliases of the SELECT whose FROM is being opened
    /// (a table-valued pragma's argument may name one, as a WHERE term
    /// may; it is compiled once the aliases are known).
    pub(super) from_result_aliases: Vec<String>,
    /// Column names (lower case) the WHERE clause and the ON clauses of
    /// the SELECT whose FROM is being opened mention anywhere: a pragma's
    /// hidden column constrained there other than by a top-level `=`
    /// would need SQLite's xBestIndex to mean what it means, so such a
    /// column is left out ("no such column") rather than read as NULL.
    pub(super) from_mentioned_names: Vec<String>,
    /// Compiling the body of a view or trigger stored in this database:
    /// its unqualified names mean objects of that database only, as
    /// SQLite binds them (`None`: the search order, temp views/triggers).
    pub home_db: Option<usize>,
    /// The main database is in memory.
    pub memory_db: bool,
    /// Page size of the main database.
    pub page_size: u32,
    /// Recursive CTEs being generated, innermost last.
    pub recursive: Vec<RecursiveBinding>,
    /// The ORDER BY of recursive CTEs with one (see `Dest::Recursive`).
    pub recursive_orders: Vec<RecursiveOrder>,
    /// Addresses of the `MakeRecord`s feeding each temporary index, so an
    /// IN operator can give them its comparison affinity afterwards.
    pub ephem_records: HashMap<i32, Vec<usize>>,
    /// The SELECT being compiled feeds an EXISTS test.
    pub in_exists: bool,
    /// RETURNING clause of the DML statement being compiled.
    pub returning: Option<target::Returning>,
    /// LIMIT (and OFFSET) of a query that only reads a recursive CTE, as
    /// SQL text: the CTE stops generating once that many rows exist.
    pub cte_limit_hint: Option<(String, Option<String>)>,
    /// Trigger programs being generated inline, innermost last: (trigger
    /// name, label a RAISE(IGNORE) jumps to).
    pub firing: Vec<(String, i32)>,
    /// The OR clause of the statement whose triggers are firing, when it
    /// has one: it overrides the conflict clauses of the statements in
    /// their bodies (lang_createtrigger).
    pub outer_conflict: Option<crate::sql::codegen::target::OnConflict>,
    /// Databases the program opens cursors on (bit per database).
    pub dbs_used: u32,
    /// DROP TABLE is emptying a child table: a parent table that no longer
    /// exists counts as one without rows instead of failing the statement.
    pub fk_parent_may_be_gone: bool,
    /// The connection itself is compiling (ANALYZE creating sqlite_stat1):
    /// names starting with `sqlite_` may be created.
    pub internal: bool,
    /// The connection's pragma switches when the statement was prepared
    /// (`vdbe/settings.rs`), borrowed from it.
    pub settings: &'s crate::vdbe::settings::Settings,
    /// Naming the columns of a view or of CREATE TABLE ... AS: SQLite's
    /// default column-naming flags apply, not the settings'
    /// (`query/legacy_names.rs`).
    pub default_names: bool,
    /// The alias of the INSERT being compiled (`INSERT INTO t AS x`).
    pub insert_alias: Option<String>,
    /// The register counting the rows an INSERT inserted, for
    /// `count_changes`.
    pub inserted_rows: Option<i32>,
    /// Database a DDL statement changes (0 main, 1 temp, 2.. attached).
    pub ddl_db: usize,
    /// INSERT into an AUTOINCREMENT table: (sqlite_sequence cursor,
    /// register with the sequence value, register with its row's rowid,
    /// register with the value read at the start).
    pub autoinc: Option<(i32, i32, i32, i32)>,
    /// The compound SELECT being compiled: where its duplicate-removing
    /// temporaries are opened (their key collations are set at the end).
    pub compound_key_opens: Vec<usize>,
    /// Generating an aggregate query, or the ORDER BY terms of any
    /// query: an aggregate reached where none is computed is then "misuse
    /// of aggregate: f()", as SQLite reports it when generating code rather
    /// than when resolving names ("misuse of aggregate function f()").
    pub in_aggregate_query: bool,
    /// Compiling a CHECK constraint or partial index WHERE read from the
    /// schema for a write: SQLite accepted its functions when it loaded
    /// the schema, so one missing now is "unknown function: f()".
    pub stored_schema_expr: bool,
    /// While `open_loops_with` opens a level: where a full scan of its
    /// table jumps when the table is empty (the end of the outermost loop
    /// it is inner-joined with).
    pub empty_scan_halt: Option<i32>,
    /// The connection's authorizer (`auth.rs`), consulted while compiling
    /// (`None`: none installed, or set aside for code the statement's own
    /// checks already covered).
    pub authorizer: Option<&'s auth::AuthorizerSlot>,
    /// An authorizer failure found where no error could be returned; the
    /// compilation fails with it at the end.
    pub auth_error: Option<Error>,
    /// Compiling the query that collects the rowids an UPDATE/DELETE
    /// visits: its `rowid` column is not an application read to authorize
    /// (a lower-case `rowid` in the statement's WHERE is not checked either).
    pub internal_rowid_read: bool,
    /// Compiling the query that collects an UPDATE of a virtual table: the
    /// registers receiving, per column, the subtype its unchanged read
    /// left (`dml/vtab_dml.rs`); empty otherwise.
    pub vtab_unchanged_flags: Vec<i32>,
    /// The address of the WHERE or ON term (`rowid = expr`) the last
    /// loop opened by `open_access` decides by its `SeekRowid`, so that
    /// it is not tested again inside the loop (as SQLite omits it).
    pub seek_consumed: Option<usize>,
    /// The last loop opened by `open_access` finds at most one row per
    /// pass (a rowid or whole-UNIQUE-key equality): the loops inside it
    /// may still give the query's order.
    pub loop_one_row: bool,
    /// Opening the lookup of one branch of a MULTI-INDEX OR loop
    /// (`query/multi_or.rs`): no OR of its own, and a covering index is
    /// shown as SQLite shows it but the table row is still read.
    pub in_or_branch: bool,
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
    /// The table an UPDATE/DELETE writes, while the query collecting its
    /// rows is compiled: that query's first FROM item names the table even
    /// when a CTE has the same name.
    pub dml_target: Option<String>,
    /// Row-value subqueries (SQL text, width) the next simple SELECT
    /// computes after its own result columns, in its join loop (the values
    /// of UPDATE ... FROM).
    pub row_values_after: Vec<(String, usize)>,
    /// Affinity of the first result column of each scalar subquery
    /// compiled, by the address of its AST node (only meaningful while
    /// that AST lives: entries are dropped before the result columns
    /// holding them are compiled).
    pub subquery_affinity: HashMap<usize, Option<crate::value::affinity::Affinity>>,
    /// Declared type and origin (database, table, column) of the first
    /// result column of each scalar subquery compiled, keyed as
    /// `subquery_affinity`: what `sqlite3_column_decltype` and the origin
    /// functions report for a result column that is such a subquery.
    pub subquery_column: HashMap<usize, (Option<String>, Option<(String, String, String)>)>,
    /// While a compound's ORDER BY is resolved: the plain column references
    /// of its later SELECTs (column name, result position).
    pub later_compound_columns: Vec<(String, usize)>,
    /// Code being compiled computes an index key (1), a CHECK constraint
    /// (2) or a generated column (3): `Function` instructions carry it in
    /// P1 (see `vdbe::func::pure_context_name`).
    pub pure_context: i32,
    /// A pre-update hook was installed when the statement was compiled:
    /// DELETE without WHERE deletes row by row so that the hook hears of
    /// each (SQLite then skips its truncate optimization too).
    pub preupdate_hooked: bool,
    /// The trigger programs compiled so far (`Program::subprograms`).
    pub subprograms: Vec<Program>,
    /// Which trigger program is which: (trigger key, index in
    /// `subprograms`). A program being compiled is listed already, so a
    /// trigger firing itself calls it.
    pub trigger_programs: Vec<(String, usize)>,
    /// How many SELECTs enclose the code being compiled.
    pub select_depth: usize,
    /// The `select_depth` of the SELECT carrying a DML statement's own
    /// WHERE (`Compiler::compile_dml_where`), 0 outside one: row widths
    /// are checked as written down to that level (`row_value.rs`).
    pub dml_where_level: usize,
    /// `SQLITE_LIMIT_COLUMN`: the widest result set.
    pub max_columns: usize,
    /// `SQLITE_LIMIT_VARIABLE_NUMBER`: the largest parameter number.
    pub max_variable: usize,
    /// The connection's virtual-table modules and connected tables.
    pub vtabs: Option<&'s crate::vdbe::vtab::Catalog>,
    /// Where the compile asks the connection to connect a virtual table
    /// it found unconnected (the connection connects it, lent as host,
    /// and compiles again: see `vtab.rs`).
    pub vtab_connect: Option<&'s std::cell::Cell<Option<vtab::ConnectRequest>>>,
    /// Calls a module's xBestIndex with the connection being compiled on
    /// lent to it (`None`: called without one; see `plan::vtab::Asked`).
    pub vtab_lender: Option<&'s crate::sql::plan::vtab::BestIndexLender<'s>>,
    /// Set while a failed compound's arms are compiled again only to find
    /// the error SQLite's resolver reports first: modules are not asked
    /// then (SQLite fails before planning, so they never hear of it).
    pub vtab_unasked: bool,
    /// Cursors open on virtual tables: their columns are read by
    /// `VColumn`/`VRowid`.
    pub vtab_cursors: HashMap<i32, std::sync::Arc<crate::vdbe::vtab::VtabInstance>>,
    /// The WHERE terms (by address) the last virtual-table loop opened
    /// has its module decide (`omit`): not tested again in the loop.
    pub vtab_consumed: Vec<usize>,
    /// The LIMIT/OFFSET the SELECT being compiled offers its one virtual
    /// table (taken by that table's loop).
    pub vtab_limit_offer: Option<crate::sql::plan::vtab::LimitOffer>,
    /// The `EXISTS (SELECT ...)` terms (by the address of the subquery's
    /// body) of the WHERE clauses being compiled that SQLite turns into a
    /// join: their subquery is not offered the LIMIT 1 of an EXISTS.
    pub exists_as_join: Vec<usize>,
    /// The plans SQLite's calls gave each virtual table of a join while
    /// its order was chosen (by cursor), taken by the table's loop.
    pub vtab_plans: Vec<crate::sql::plan::vtab::VtabPlans>,
    /// The loop that took the offer has its module skip the OFFSET rows.
    pub vtab_offset_omitted: bool,
    /// `colUsed` of each virtual-table cursor whose SELECT could tell
    /// every column the statement reads of it, correlated subqueries
    /// included (see `plan::goal::vtab_col_uses`).
    pub vtab_col_used: HashMap<i32, u64>,
    /// The column nodes (by address) SQLite's constant propagation
    /// replaces by a constant (see `query::const_propagation`).
    pub const_fixed_nodes: Vec<usize>,
    /// `SQLITE_LIMIT_EXPR_DEPTH`, which also bounds views and CTEs
    /// expanded inside one another.
    pub max_expr_depth: usize,
    /// The expression at which name resolution is to fail as too deep
    /// (its address in the statement's tree), if any
    /// (`sql::parse_limits::DeferredDepth`).
    pub depth_point: Option<usize>,
    /// Views and CTEs being expanded, one inside the other.
    pub view_depth: usize,
    /// The cursors SQLite's expansion of FROM clauses has numbered so far
    /// (`Parse::nTab`: every item of a FROM clause, with those of the
    /// subqueries written in it, when the clause is expanded), and the
    /// FROM clauses counted (by address). A CTE expanded when it reaches
    /// `SQLITE_LIMIT_EXPR_DEPTH` is "nested too deep"
    /// (`query::from`, `enter_cte_nesting`).
    pub expanded_cursors: usize,
    /// The connection's `sqlite3_interrupt` flag, polled as expressions
    /// are compiled so that an interrupt stops a long prepare (a VALUES
    /// list of a million rows) as SQLite's parser stops at its next token.
    pub interrupt: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
    pub counted_froms: std::collections::HashSet<usize>,
    /// The rows after the first of a bulk INSERT's VALUES, when the
    /// statement was split (`sql::value_rows`): the tree holds only the
    /// first row, and the multi-row INSERT codes these after it.
    pub value_rows: Option<&'s crate::sql::value_rows::ValueRows<'s>>,
}

impl<'s> Compiler<'s> {
    /// Set the EXPLAIN comment of the last instruction (only EXPLAIN
    /// shows them: nothing is copied otherwise).
    pub fn comment(&mut self, text: &str) {
        if self.explain_comments {
            self.b.comment(text);
        }
    }

    /// The conflict resolution of an INSERT or UPDATE with OR clause
    /// `or`: a trigger body's statements follow the firing statement's
    /// OR clause when it has one.
    pub fn conflict_resolution(&mut self, or: Option<sqlite3_parser::ast::ResolveType>) -> crate::sql::codegen::target::OnConflict {
        if self.firing.is_empty() {
            self.outer_conflict = or.map(|r| crate::sql::codegen::target::OnConflict::from_ast(Some(r)));
        } else if let Some(outer) = self.outer_conflict {
            return outer;
        }
        crate::sql::codegen::target::OnConflict::from_ast(or)
    }

    /// A compiler for one statement.
    pub fn new(
        schema: &'s Schema,
        funcs: &'s FunctionRegistry,
        collations: &'s HashMap<String, Collation>,
        sql: &'s [u8],
        databases: &'s [(String, String)],
    ) -> Self {
        Compiler {
            b: Builder::for_statement(),
            schema,
            funcs,
            collations,
            collation_order: &[],
            scopes: Vec::new(),
            params: vec![None],
            agg_regs: Default::default(),
            agg_scope_depth: 0,
            agg_owner_depth: Default::default(),
            agg_shadowed: Default::default(),
            col_map: Default::default(),
            using_coalesce: HashMap::new(),
            using_left_terms: HashMap::new(),
            record_positions: HashMap::new(),
            aliases: Vec::new(),
            comparing: false,
            ctes: Vec::new(),
            writes: false,
            eqp: plan_lines::PlanLines::default(),
            explain_comments: false,
            sql,
            expanding: Vec::new(),
            table_references: Vec::new(),
            top_compound_arm: false,
            arm_order_offered_only: false,
            arm_probed_names: Vec::new(),
            arm_order_probed: Vec::new(),
            databases,
            temp_listed: false,
            db_file: None,
            pragma_where_args: Vec::new(),
            from_result_aliases: Vec::new(),
            from_mentioned_names: Vec::new(),
            home_db: None,
            memory_db: false,
            page_size: 4096,
            recursive: Vec::new(),
            recursive_orders: Vec::new(),
            ephem_records: HashMap::new(),
            in_exists: false,
            returning: None,
            autoinc: None,
            compound_key_opens: Vec::new(),
            in_aggregate_query: false,
            stored_schema_expr: false,
            empty_scan_halt: None,
            cte_limit_hint: None,
            firing: Vec::new(),
            outer_conflict: None,
            dbs_used: 0,
            fk_parent_may_be_gone: false,
            internal: false,
            settings: &crate::vdbe::settings::Settings::DEFAULT,
            default_names: false,
            insert_alias: None,
            inserted_rows: None,
            ddl_db: 0,
            authorizer: None,
            auth_error: None,
            internal_rowid_read: false,
            vtab_unchanged_flags: Vec::new(),
            seek_consumed: None,
            loop_one_row: false,
            in_or_branch: false,
            span_names: false,
            view_names_text: None,
            view_texts: Vec::new(),
            statement_texts: Default::default(),
            nested_from: false,
            dml_target: None,
            row_values_after: Vec::new(),
            subquery_affinity: HashMap::new(),
            subquery_column: HashMap::new(),
            later_compound_columns: Vec::new(),
            pure_context: 0,
            preupdate_hooked: false,
            subprograms: Vec::new(),
            trigger_programs: Vec::new(),
            select_depth: 0,
            dml_where_level: 0,
            max_columns: 2000,
            max_variable: 32766,
            vtabs: None,
            vtab_connect: None,
            vtab_lender: None,
            vtab_unasked: false,
            vtab_cursors: Default::default(),
            vtab_consumed: Vec::new(),
            vtab_limit_offer: None,
            exists_as_join: Vec::new(),
            vtab_plans: Vec::new(),
            vtab_col_used: HashMap::new(),
            const_fixed_nodes: Vec::new(),
            vtab_offset_omitted: false,
            max_expr_depth: 1000,
            depth_point: None,
            view_depth: 0,
            expanded_cursors: 0,
            interrupt: None,
            counted_froms: Default::default(),
            value_rows: None,
        }
    }

    /// A collation by name.
    pub fn collation(&self, name: &str) -> Result<Collation> {
        match name.to_ascii_uppercase().as_str() {
            "BINARY" => Ok(Collation::binary()),
            "NOCASE" => Ok(Collation::nocase()),
            "RTRIM" => Ok(Collation::rtrim()),
            n => self.collations.get(n).cloned().ok_or_else(|| Error::new(crate::error::SQLITE_ERROR, format!("no such collation sequence: {name}"))),
        }
    }

    /// A CTE by name.
    pub fn cte(&self, name: &str) -> Option<CteDef> {
        self.cte_at(name).map(|(_, c)| c)
    }

    /// A CTE by name, with the level of `ctes` whose WITH clause defines
    /// it (its body sees that level and the ones outside it only).
    pub fn cte_at(&self, name: &str) -> Option<(usize, CteDef)> {
        // (Most statements have no WITH clause: no key to make then.)
        if self.ctes.iter().all(|m| m.is_empty()) {
            return None;
        }
        let key = name.ascii_lower();
        self.ctes.iter().enumerate().rev().find_map(|(level, m)| m.get(&key).map(|c| (level, c.clone())))
    }

    /// Emit `Init` (jumping to the transaction prologue at the end).
    pub fn begin_program(&mut self) -> usize {
        if !self.firing.is_empty() {
            // A trigger's statements run inside the firing statement.
            return usize::MAX;
        }
        self.b.hoisting = true;
        self.b.add(Opcode::Init, 0, 0, 0)
    }

    /// The index of database `name` (a schema name: main, temp or an
    /// ATTACH name), case-insensitively.
    pub fn db_index(&self, name: &str) -> Option<usize> {
        self.databases.iter().position(|(n, _)| n.eq_ignore_ascii_case(name))
    }

    /// The schema name of database `db`.
    pub fn db_name(&self, db: usize) -> String {
        self.databases.get(db).map_or_else(|| "main".to_string(), |(n, _)| n.clone())
    }

    /// The database a schema qualifier (`aux` of `aux.t`) names: `None`
    /// when there is none (search order applies); "unknown database X"
    /// when no database has that name.
    pub fn qualifier_db(&self, q: Option<&sqlite3_parser::ast::Name<'_>>) -> Result<Option<usize>> {
        let Some(q) = q else { return Ok(None) };
        let n = crate::sql::parse::unquote(q.0);
        self.db_index(&n).map(Some).ok_or_else(|| Error::sql(format!("unknown database {n}")))
    }

    /// `table`'s name for SQL text the compiler generates, qualified with
    /// its schema name when that is needed to find it (`"aux"."t"`).
    pub fn table_sql_name(&self, table: &crate::sql::schema::Table) -> String {
        let quote = |s: &str| format!("\"{}\"", s.replace('"', "\"\""));
        if self.schema.table(&table.name).is_some_and(|t| t.db == table.db) {
            quote(&table.name)
        } else {
            format!("{}.{}", quote(&self.db_name(table.db)), quote(&table.name))
        }
    }

    /// `PRAGMA database_list` rows: (seq, name, file).
    pub fn database_list(&self) -> Vec<(usize, String, String)> {
        self.databases.iter().enumerate().filter(|(i, _)| *i != 1 || self.temp_listed).map(|(i, (n, f))| (i, n.clone(), f.clone())).collect()
    }

    /// Emit the final `Halt` and the prologue (`Transaction` for each
    /// database the program touches, write transactions for those it
    /// changes) that `Init` jumps to.
    /// `PRAGMA count_changes`: a DML statement (not one inside a trigger
    /// and not one with RETURNING) ends with one row, `column` = the
    /// number of rows it changed.
    pub fn emit_change_count_row(&mut self, prog: &mut Program, column: &str) {
        if !self.settings.count_changes || !self.firing.is_empty() || !prog.column_names.is_empty() {
            return;
        }
        let r = match self.inserted_rows.take() {
            Some(r) => r,
            None => {
                let r = self.b.reg();
                self.b.add(Opcode::ChangeCount, r, 0, 0);
                r
            }
        };
        self.b.add(Opcode::ResultRow, r, 1, 0);
        prog.column_names = vec![column.to_string()];
    }

    pub fn end_program(&mut self, init: usize, txn: Option<bool>) {
        if init == usize::MAX {
            return;
        }
        self.b.add(Opcode::Halt, 0, 0, 0);
        self.b.hoisting = false;
        let constants = std::mem::take(&mut self.b.constants);
        if txn.is_none() && !constants.is_empty() {
            self.b.insns[init].p2 = self.b.here() as i32;
            self.b.insns.extend(constants);
            self.b.add(Opcode::Goto, 0, init as i32 + 1, 0);
            return;
        }
        if let Some(write) = txn {
            let (mut read, mut written) = (self.dbs_used, 0u32);
            let bit = |db: i32| 1u32.checked_shl(db.max(0) as u32).unwrap_or(0);
            for i in self.b.insns.iter().chain(self.subprograms.iter().flat_map(|p| p.insns.iter())) {
                match i.opcode {
                    Opcode::OpenRead => read |= bit(i.p3),
                    Opcode::OpenWrite | Opcode::Destroy => written |= bit(i.p3),
                    Opcode::Clear => written |= bit(i.p2),
                    Opcode::CreateBtree | Opcode::SetCookie => written |= bit(i.p1),
                    Opcode::ReadCookie | Opcode::Pagecount | Opcode::PragmaBtree => read |= bit(i.p1),
                    Opcode::IntegrityCk => read |= bit(i.p3),
                    _ => {}
                }
            }
            if write && written == 0 {
                written = if read & !1 != 0 && read & 1 == 0 { read } else { 1 };
            }
            let mut used = read | written;
            if used == 0 {
                used = 1;
            }
            let start = self.b.here();
            self.b.insns[init].p2 = start as i32;
            for db in 0..32usize {
                if used & (1 << db) == 0 || db >= self.databases.len().max(2) {
                    continue;
                }
                let w = write && written & (1 << db) != 0;
                self.b.add4(Opcode::Transaction, db as i32, w as i32, self.schema.cookie_of(db) as i32, P4::None, 1);
            }
            // (After the transactions, as SQLite places its constants.)
            self.b.insns.extend(constants);
            self.b.add(Opcode::Goto, 0, init as i32 + 1, 0);
        }
    }
}

/// The result-column aliases of one SELECT.
#[derive(Debug, Clone, Default)]
pub struct Aliases {
    /// (alias, expression as SQL text, re-parsed where used).
    pub list: Vec<(String, String)>,
    /// How many scopes were open with the SELECT's own innermost: its
    /// expressions name columns (and aggregates) of those scopes only,
    /// even where a subquery names the alias.
    pub scope_depth: usize,
}

/// The compiled form of one statement, plus facts the connection needs.
pub struct Compiled {
    /// The program.
    pub program: Program,
}

/// Functions that only exist as window functions.
pub fn is_window_only(name: &str) -> bool {
    ["row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile", "lag", "lead", "first_value", "last_value", "nth_value"]
        .iter()
        .any(|w| w.eq_ignore_ascii_case(name))
}

/// Whether an expression is a call to an aggregate function that this
/// query computes (not one an enclosing query computed, read here).
pub fn is_aggregate_call(c: &Compiler<'_>, e: &Expr<'_>) -> bool {
    // An aggregate of the enclosing query (computed there, read here).
    if !c.agg_regs.is_empty() && matches!(e, Expr::FunctionCall { .. } | Expr::FunctionCallStar { .. }) && c.aggregate_register(e).is_some() {
        return false;
    }
    names_aggregate_function(c, e)
}

/// Whether an expression calls an aggregate function (not as a window
/// function), whichever query computes it.
pub fn names_aggregate_function(c: &Compiler<'_>, e: &Expr<'_>) -> bool {
    match e {
        Expr::FunctionCall { name, .. } | Expr::FunctionCallStar { name, .. } if is_window_only(&crate::sql::parse::unquoted(name.0)) => false,
        Expr::FunctionCall { name, args, filter_over, .. } => {
            if filter_over.as_ref().is_some_and(|f| f.over_clause.is_some()) {
                return false;
            }
            let n = args.map_or(0, |a| a.len());
            c.funcs.find(&crate::sql::parse::unquoted(name.0), n).is_some_and(|d| matches!(d.kind, crate::vdbe::func::FuncKind::Aggregate(_)))
        }
        Expr::FunctionCallStar { filter_over: Some(f), .. } if f.over_clause.is_some() => false,
        Expr::FunctionCallStar { name, .. } => {
            c.funcs.find(&crate::sql::parse::unquoted(name.0), 0).is_some_and(|d| matches!(d.kind, crate::vdbe::func::FuncKind::Aggregate(_)))
        }
        _ => false,
    }
}

/// The error of a module whose xBestIndex answer is inconsistent.
pub(crate) fn vtab_scan_malfunction(name: &str) -> Error {
    Error::sql(format!("{name}.xBestIndex malfunction"))
}
