//! # Code generation
//!
//! One [`Compiler`] per statement, in three parts: what it borrows from
//! the connection ([`CompileEnv`], `env.rs`: schema, registries,
//! databases, pragma switches, limits), the program being built (the
//! [`Builder`] and the [`FrameState`] naming its registers and cursors,
//! `frame.rs`, set aside whole for a trigger program), and the
//! per-statement state, one struct per purpose so a codegen file names
//! the part it needs: the statement's text, parameters and program-wide
//! records ([`StatementState`], `statement_state.rs`), name resolution
//! ([`NameScope`], `name_scope.rs`), views and CTEs expanded
//! ([`Expansion`], `expansion.rs`), result-column naming
//! ([`ColumnNaming`], `column_naming.rs`), what one SELECT hands the next
//! ([`SelectContext`], `select_context.rs`), the join loops being opened
//! ([`LoopContext`], `loop_context.rs`), virtual tables ([`VtabState`],
//! `vtab_state.rs`) and the DML statement with the triggers it fires
//! ([`DmlContext`], `dml_context.rs`).
//!
//! Floor plan: `statement.rs` hands a statement to its family (the only
//! module naming the families); a shared core at this level (this file,
//! the state structs above, `builder.rs`,
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
//! go through labels, each resolved to an address of the program when it
//! is finished (checked: program_jumps_resolved).

pub mod auth;
pub mod builder;
pub mod column_naming;
pub mod ddl;
pub mod dml;
pub mod dml_context;
pub mod env;
pub mod expansion;
pub mod expr;
pub mod frame;
mod indexed_by;
pub mod loop_context;
mod loop_kind;
pub mod name_scope;
mod plan_facts;
mod plan_lines;
pub mod pragma;
pub mod query;
mod schema_trust;
pub mod select_context;
mod select_ids;
mod shadow_tables;
pub mod statement;
pub mod statement_state;
pub mod target;
pub mod vtab;
pub mod vtab_state;

use crate::error::{Error, Result};
use crate::util::ascii::AsciiLower;
use crate::value::collation::Collation;
use crate::vdbe::program::{Opcode, Program, P4};
use builder::Builder;
pub use column_naming::ColumnNaming;
pub use dml_context::DmlContext;
pub use env::CompileEnv;
pub use expansion::Expansion;
pub use frame::{ColumnSource, CteDef, FrameState, RecursiveBinding, RecursiveOrder};
pub use loop_context::LoopContext;
pub use name_scope::{Aliases, NameScope};
pub use select_context::SelectContext;
use sqlite3_parser::ast::Expr;
pub use statement_state::StatementState;
pub use vtab_state::VtabState;

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
    /// The statement's text, parameters, authorizer and program-wide
    /// records (`statement_state.rs`).
    pub stmt: StatementState<'s>,
    /// Name resolution: scopes, result aliases, USING equalities
    /// (`name_scope.rs`).
    pub names: NameScope,
    /// Views and CTEs being expanded and the counts SQLite limits
    /// (`expansion.rs`).
    pub expansion: Expansion,
    /// How result columns are named (`column_naming.rs`).
    pub naming: ColumnNaming,
    /// What one SELECT hands the next or its FROM clause
    /// (`select_context.rs`).
    pub select: SelectContext,
    /// Facts about the join loops being opened (`loop_context.rs`).
    pub loops: LoopContext,
    /// Virtual-table cursors and their modules' plans (`vtab_state.rs`).
    pub vtab: VtabState,
    /// The DML statement and the triggers it fires (`dml_context.rs`).
    pub dml: DmlContext,
}

impl<'s> Compiler<'s> {
    /// Set the EXPLAIN comment of the last instruction (only EXPLAIN
    /// shows them: nothing is copied otherwise).
    pub fn comment(&mut self, text: &str) {
        if self.stmt.explain_comments {
            self.b.comment(text);
        }
    }

    /// The conflict resolution of an INSERT or UPDATE with OR clause
    /// `or`: a trigger body's statements follow the firing statement's
    /// OR clause when it has one.
    pub fn conflict_resolution(&mut self, or: Option<sqlite3_parser::ast::ResolveType>) -> crate::sql::codegen::target::OnConflict {
        if self.dml.firing.is_empty() {
            self.dml.outer_conflict = or.map(|r| crate::sql::codegen::target::OnConflict::from_ast(Some(r)));
        } else if let Some(outer) = self.dml.outer_conflict {
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
            stmt: StatementState { sql, params: vec![None], ..Default::default() },
            names: NameScope::default(),
            expansion: Expansion::default(),
            naming: ColumnNaming::default(),
            select: SelectContext::default(),
            loops: LoopContext::default(),
            vtab: VtabState::default(),
            dml: DmlContext::default(),
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
        if !self.dml.firing.is_empty() {
            // A trigger's statements run inside the firing statement.
            return usize::MAX;
        }
        self.b.hoisting = true;
        self.b.add(Opcode::Init, 0, 0, 0)
    }

    /// SQLite's code generator refuses an expression it builds past
    /// `SQLITE_LIMIT_EXPR_DEPTH` (`StatementState::codegen_error`: the
    /// first one stands).
    pub(in crate::sql::codegen) fn codegen_too_deep(&mut self) {
        let max = self.env.max_expr_depth;
        self.stmt.codegen_error.get_or_insert_with(|| Error::sql(format!("Expression tree is too large (maximum depth {max})")));
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
        // (The message names the database as written, quotes included.)
        self.db_index(&n).map(Some).ok_or_else(|| Error::sql(format!("unknown database {}", q.0)))
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
        if !self.env.settings.count_changes || !self.dml.firing.is_empty() || !prog.column_names.is_empty() {
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
            let (mut read, mut written) = (self.stmt.dbs_used, 0u32);
            let bit = |db: i32| 1u32.checked_shl(db.max(0) as u32).unwrap_or(0);
            for i in self.b.insns.iter().chain(self.stmt.subprograms.iter().flat_map(|p| p.insns.iter())) {
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
            if self.stmt.all_schemas {
                // (temp only once it is in use, as `verify_schemas`.)
                let all = (0..self.env.databases.len().clamp(1, 32)).filter(|&db| db != 1 || self.env.temp_listed).fold(0u32, |m, db| m | 1 << db);
                read |= all;
                if write {
                    written |= all;
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
                let verify = u16::from(!self.stmt.schema_unverified);
                self.b.add4(Opcode::Transaction, db as i32, w as i32, self.env.schema.cookie_of(db) as i32, P4::None, verify);
            }
            // (After the transactions, as SQLite places its constants.)
            self.b.insns.extend(constants);
            self.b.add(Opcode::Goto, 0, init as i32 + 1, 0);
        }
    }
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
