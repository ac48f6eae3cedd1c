//! # Code generation
//!
//! One [`Compiler`] per statement, in three parts: what it borrows from
//! the connection ([`CompileEnv`], `env.rs`: schema, registries,
//! databases, pragma switches, limits), the program being built (the
//! [`Builder`] and the [`FrameState`] naming its registers and cursors,
//! `frame.rs`, set aside whole for a trigger program), and the rest of
//! this struct: per-statement state (the scope stack used by name
//! resolution, the parameter table, the trigger programs, the flags one
//! statement family hands another).
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
pub mod env;
pub mod expr;
pub mod frame;
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
use crate::util::ascii::AsciiLower;
use crate::value::collation::Collation;
use crate::vdbe::program::{Opcode, Program, P4};
use builder::Builder;
pub use env::CompileEnv;
pub use frame::{ColumnSource, CteDef, FrameState, RecursiveBinding, RecursiveOrder};
use sqlite3_parser::ast::Expr;
use std::collections::HashMap;

/// Everything one statement's compilation needs.
pub struct Compiler<'s> {
    /// The program being built.
    pub b: Builder,
    /// What the connection lends the compile (schema, registries,
    /// settings, limits: `env.rs`).
    pub env: &'s CompileEnv<'s>,
    /// State naming the registers, cursors and addresses of the program
    /// being built (`frame.rs`), set aside whole for a trigger program.
    pub frame: FrameState,
    /// Name-resolution scopes, innermost last.
    pub scopes: Vec<Scope>,
    /// Parameter names by index (index 0 unused).
    pub params: Vec<Option<String>>,
    /// For an accumulator of `agg_regs`, the one of an enclosing query its
    /// entry replaced (the same call text): what that text means where
    /// the enclosing query's expression is compiled (a result alias named
    /// in a subquery).
    pub agg_shadowed: crate::util::fast_hash::FastMap<i32, i32>,
    /// USING/NATURAL equalities by the cursor of their left table: its
    /// column and the right table's, for the inner joins the planner may
    /// place the right table outside (SQLite offers the term to a left
    /// virtual table too).
    pub using_left_terms: HashMap<i32, Vec<(crate::sql::resolve::ColumnRef, crate::sql::resolve::ColumnRef)>>,
    /// USING/NATURAL equalities of joins the planner reorders (inner
    /// joins, outer ones once reduced), by the cursor of their left
    /// table: its column and the right table's. The left table may be
    /// looked up by them when the right one is read outside it.
    pub using_reordered: HashMap<i32, Vec<(crate::sql::resolve::ColumnRef, crate::sql::resolve::ColumnRef)>>,
    /// Result-column aliases usable in WHERE/GROUP BY/HAVING/ORDER BY,
    /// innermost SELECT last.
    pub aliases: Vec<Aliases>,
    /// The authorizer's answers for the SELECTs being compiled, innermost
    /// last (with an authorizer only; `query/auth_order.rs`).
    pub auth_answers: Vec<query::auth_order::AuthAnswers>,
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
    /// Naming the columns of a view or of CREATE TABLE ... AS: SQLite's
    /// default column-naming flags apply, not the settings'
    /// (`query/legacy_names.rs`).
    pub default_names: bool,
    /// Database a DDL statement changes (0 main, 1 temp, 2.. attached).
    pub ddl_db: usize,
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
    /// Compiling the query that collects an UPDATE of a virtual table: the
    /// registers receiving, per column, the subtype its unchanged read
    /// left (`dml/vtab_dml.rs`); empty otherwise.
    pub vtab_unchanged_flags: Vec<i32>,
    /// The last loop opened by `open_access` finds at most one row per
    /// pass (a rowid or whole-UNIQUE-key equality): the loops inside it
    /// may still give the query's order.
    pub loop_one_row: bool,
    /// Every loop outside the one being opened finds at most one row per
    /// pass: an automatic index would be built for a single probe (the
    /// join order does not take one there either).
    pub outer_loops_one_row: bool,
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
    /// The LIMIT/OFFSET counters a UNION ALL streamed with a LIMIT shares
    /// between its arms, for the next arm compiled (taken by it), and
    /// whether its LIMIT is a one-row subquery's rewritten `X <> 0`.
    pub compound_limit: Option<(crate::sql::model::query::LimitRegs, bool)>,
    /// The values bound to the statement compiled again (see
    /// `bound_limit_value`).
    pub bound_params: Option<&'s [crate::value::Value]>,
    /// The parameters whose binding expires the program
    /// (`Program::expire_on_bind`).
    pub expire_on_bind: u32,
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
    pub fn new(env: &'s CompileEnv<'s>, sql: &'s [u8]) -> Self {
        Compiler {
            b: Builder::for_statement(),
            env,
            frame: FrameState::default(),
            scopes: Vec::new(),
            params: vec![None],
            agg_shadowed: Default::default(),
            using_left_terms: HashMap::new(),
            using_reordered: HashMap::new(),
            aliases: Vec::new(),
            auth_answers: Vec::new(),
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
            pragma_where_args: Vec::new(),
            from_result_aliases: Vec::new(),
            from_mentioned_names: Vec::new(),
            home_db: None,
            returning: None,
            stored_schema_expr: false,
            empty_scan_halt: None,
            cte_limit_hint: None,
            firing: Vec::new(),
            outer_conflict: None,
            dbs_used: 0,
            fk_parent_may_be_gone: false,
            default_names: false,
            ddl_db: 0,
            authorizer: None,
            auth_error: None,
            vtab_unchanged_flags: Vec::new(),
            loop_one_row: false,
            outer_loops_one_row: false,
            in_or_branch: false,
            span_names: false,
            view_names_text: None,
            view_texts: Vec::new(),
            statement_texts: Default::default(),
            nested_from: false,
            subquery_affinity: HashMap::new(),
            subquery_column: HashMap::new(),
            later_compound_columns: Vec::new(),
            subprograms: Vec::new(),
            trigger_programs: Vec::new(),
            select_depth: 0,
            dml_where_level: 0,
            vtab_unasked: false,
            vtab_cursors: Default::default(),
            vtab_consumed: Vec::new(),
            vtab_limit_offer: None,
            compound_limit: None,
            bound_params: None,
            expire_on_bind: 0,
            exists_as_join: Vec::new(),
            vtab_plans: Vec::new(),
            vtab_col_used: HashMap::new(),
            const_fixed_nodes: Vec::new(),
            vtab_offset_omitted: false,
            depth_point: None,
            view_depth: 0,
            expanded_cursors: 0,
            counted_froms: Default::default(),
            value_rows: None,
        }
    }

    /// A collation by name.
    pub fn collation(&self, name: &str) -> Result<Collation> {
        match name.ascii_upper().as_str() {
            "BINARY" => Ok(Collation::binary()),
            "NOCASE" => Ok(Collation::nocase()),
            "RTRIM" => Ok(Collation::rtrim()),
            n => self.env.collations.get(n).cloned().ok_or_else(|| Error::new(crate::error::SQLITE_ERROR, format!("no such collation sequence: {name}"))),
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
        if self.frame.ctes.iter().all(|m| m.is_empty()) {
            return None;
        }
        let key = name.ascii_lower();
        self.frame.ctes.iter().enumerate().rev().find_map(|(level, m)| m.get(&key).map(|c| (level, c.clone())))
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
        self.env.databases.iter().position(|(n, _)| n.eq_ci(name))
    }

    /// The schema name of database `db`.
    pub fn db_name(&self, db: usize) -> String {
        self.env.databases.get(db).map_or_else(|| "main".to_string(), |(n, _)| n.clone())
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
        if self.env.schema.table(&table.name).is_some_and(|t| t.db == table.db) {
            quote(&table.name)
        } else {
            format!("{}.{}", quote(&self.db_name(table.db)), quote(&table.name))
        }
    }

    /// `PRAGMA database_list` rows: (seq, name, file).
    pub fn database_list(&self) -> Vec<(usize, String, String)> {
        self.env.databases.iter().enumerate().filter(|(i, _)| *i != 1 || self.env.temp_listed).map(|(i, (n, f))| (i, n.clone(), f.clone())).collect()
    }

    /// Emit the final `Halt` and the prologue (`Transaction` for each
    /// database the program touches, write transactions for those it
    /// changes) that `Init` jumps to.
    /// `PRAGMA count_changes`: a DML statement (not one inside a trigger
    /// and not one with RETURNING) ends with one row, `column` = the
    /// number of rows it changed.
    pub fn emit_change_count_row(&mut self, prog: &mut Program, column: &str) {
        if !self.env.settings.count_changes || !self.firing.is_empty() || !prog.column_names.is_empty() {
            return;
        }
        let r = match self.frame.inserted_rows.take() {
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
                if used & (1 << db) == 0 || db >= self.env.databases.len().max(2) {
                    continue;
                }
                let w = write && written & (1 << db) != 0;
                self.b.add4(Opcode::Transaction, db as i32, w as i32, self.env.schema.cookie_of(db) as i32, P4::None, 1);
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
        .any(|w| w.eq_ci(name))
}

/// Whether an expression is a call to an aggregate function that this
/// query computes (not one an enclosing query computed, read here).
pub fn is_aggregate_call(c: &Compiler<'_>, e: &Expr<'_>) -> bool {
    // An aggregate of the enclosing query (computed there, read here).
    if !c.frame.agg_regs.is_empty() && matches!(e, Expr::FunctionCall { .. } | Expr::FunctionCallStar { .. }) && c.aggregate_register(e).is_some() {
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
            c.env.funcs.find(&crate::sql::parse::unquoted(name.0), n).is_some_and(|d| matches!(d.kind, crate::vdbe::func::FuncKind::Aggregate(_)))
        }
        Expr::FunctionCallStar { filter_over: Some(f), .. } if f.over_clause.is_some() => false,
        Expr::FunctionCallStar { name, .. } => {
            c.env.funcs.find(&crate::sql::parse::unquoted(name.0), 0).is_some_and(|d| matches!(d.kind, crate::vdbe::func::FuncKind::Aggregate(_)))
        }
        _ => false,
    }
}

/// The error of a module whose xBestIndex answer is inconsistent.
pub(crate) fn vtab_scan_malfunction(name: &str) -> Error {
    Error::sql(format!("{name}.xBestIndex malfunction"))
}
