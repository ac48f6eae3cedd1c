//! One statement from its syntax tree to a program: the authorizer's
//! verdict on the whole statement, then the statement family that
//! compiles it (`query/`, `dml/`, `ddl/`, `pragma/`, ANALYZE here), then
//! what EXPLAIN and EXPLAIN QUERY PLAN change. This is the one module
//! above the families: the `Compiler` (`mod.rs`) and the shared core
//! name none of them.

use crate::error::{Error, Result};
use crate::sql::codegen::{auth, ddl, dml, pragma, query, Compiler};
use crate::util::ascii::AsciiLower;
use crate::vdbe::program::{Opcode, Program};
use sqlite3_parser::ast::{Cmd, Stmt};

/// When a statement's nested-statement error comes (see
/// [`nested_statement_error`]).
enum NestedFailure {
    /// SQLite's compile of its own statement fails: so does the prepare.
    Compiling(Error),
    /// The statement SQLite's program runs fails: the prepare succeeds
    /// and the step fails with "SQL logic error" (the program does its
    /// work, then halts with the error instead of ending, so the
    /// statement's changes are undone as SQLite's are).
    Running,
}

/// What SQLite reports for a statement that changes the schema when
/// `SQLITE_LIMIT_EXPR_DEPTH` is below 3: its code runs statements of its
/// own (SQLite's nested parse: `UPDATE sqlite_schema ... WHERE rowid=#N`,
/// height 2, and `DELETE ... WHERE tbl_name=%Q AND type!='trigger'`,
/// height 3, while compiling; a schema read `WHERE tbl_name=%Q AND
/// type!='trigger'` when it runs), and these fail under the limit. Those
/// failing while compiling name the limit; those failing when the
/// program runs lose their message
/// ("SQL logic error") and fail the step, not the prepare (and not under
/// EXPLAIN, which does not run them). (Once such a failure made SQLite
/// forget the schema, its reading under the limit fails first, with "SQL
/// logic error": the table is that of a connection whose schema is read.)
/// Checked against SQLite 3.54.1 in `tests/engine/sql_limits_hostile.rs`
/// and `tests/engine/sql_error_phase.rs`.
fn nested_statement_error(stmt: &Stmt<'_>, limit: usize, writes: bool, explain: bool) -> Option<NestedFailure> {
    use NestedFailure::{Compiling, Running};
    if limit >= 3 {
        return None;
    }
    let too_large = || Some(Compiling(Error::sql(format!("Expression tree is too large (maximum depth {limit})"))));
    let running = || if explain { None } else { Some(Running) };
    let drop_or_alter =
        matches!(stmt, Stmt::DropTable { .. } | Stmt::DropIndex { .. } | Stmt::DropView { .. } | Stmt::DropTrigger { .. } | Stmt::AlterTable(..));
    let creates = matches!(
        stmt,
        Stmt::CreateTable { .. } | Stmt::CreateView { .. } | Stmt::CreateVirtualTable { .. } | Stmt::CreateIndex { .. } | Stmt::CreateTrigger { .. }
    );
    match stmt {
        Stmt::Vacuum(..) => running(),
        // At 0 every statement SQLite compiles for the schema fails.
        _ if limit == 0 && (((drop_or_alter || creates) && writes) || matches!(stmt, Stmt::Analyze(_))) => too_large(),
        // DELETE/UPDATE of schema rows by a WHERE of height 3.
        _ if drop_or_alter && writes => too_large(),
        // The schema row is written by an UPDATE (height 2), then read
        // back by a WHERE of height 3.
        Stmt::CreateTable { .. } | Stmt::CreateView { .. } | Stmt::CreateVirtualTable { .. } | Stmt::Analyze(_)
            if writes || matches!(stmt, Stmt::Analyze(_)) =>
        {
            match limit {
                1 => too_large(),
                _ => running(),
            }
        }
        // The row is inserted directly; only the read back fails.
        Stmt::CreateIndex { .. } | Stmt::CreateTrigger { .. } if writes => running(),
        _ => None,
    }
}

/// What SQLite reports for a statement that writes a schema row when
/// `SQLITE_LIMIT_COLUMN` is below the schema table's 5 columns: CREATE
/// TABLE and CREATE VIEW record the row by an UPDATE setting its five
/// columns while compiling ("too many columns in set list"); CREATE INDEX
/// and CREATE TRIGGER insert it directly, and only the schema's reading
/// back (`SELECT *` of the row) fails, when the program runs, without its
/// message. Checked against SQLite 3.54.1 in
/// `tests/engine/sql_error_phase.rs`.
fn nested_statement_width_error(stmt: &Stmt<'_>, max_columns: usize, writes: bool, explain: bool) -> Option<NestedFailure> {
    const SCHEMA_COLUMNS: usize = 5;
    if max_columns >= SCHEMA_COLUMNS || !writes {
        return None;
    }
    match stmt {
        Stmt::CreateTable { .. } | Stmt::CreateView { .. } => Some(NestedFailure::Compiling(Error::sql("too many columns in set list"))),
        Stmt::CreateIndex { .. } | Stmt::CreateTrigger { .. } if !explain => Some(NestedFailure::Running),
        _ => None,
    }
}

/// Make `prog` fail with "SQL logic error" where it would have ended:
/// its main body's last `Halt` (just before the prologue `Init` jumps
/// to) gets SQLITE_ERROR (a `VCreate` is replaced by that `Halt`). VACUUM
/// and ANALYZE, which the connection runs
/// instead of the program, are not run: SQLite's fail before they change
/// anything.
fn fail_at_end(prog: &mut Program) {
    prog.vacuum = None;
    prog.analyze = None;
    // A virtual table's xCreate would run statements of its own (its
    // shadow tables), failing with a message of its own: SQLite fails
    // first.
    if let Some(create) = prog.insns.iter_mut().find(|i| i.opcode == Opcode::VCreate) {
        *create = crate::vdbe::program::Insn { opcode: Opcode::Halt, p1: crate::error::SQLITE_ERROR, p2: 0, p3: 0, p4: crate::vdbe::program::P4::None, p5: 0 };
        return;
    }
    let end = match prog.insns.first() {
        Some(init) if init.opcode == Opcode::Init && init.p2 > 0 => Some(init.p2 as usize - 1),
        _ => None,
    };
    match end.and_then(|end| prog.insns.get_mut(end)).filter(|i| i.opcode == Opcode::Halt && i.p1 == 0) {
        Some(halt) => halt.p1 = crate::error::SQLITE_ERROR,
        None => {
            let halt =
                crate::vdbe::program::Insn { opcode: Opcode::Halt, p1: crate::error::SQLITE_ERROR, p2: 0, p3: 0, p4: crate::vdbe::program::P4::None, p5: 0 };
            prog.insns = vec![halt];
            prog.comments.clear();
        }
    }
}

/// Compile one parsed statement.
pub fn compile(c: &mut Compiler<'_>, cmd: &Cmd<'_>) -> Result<Program> {
    let (stmt, explain) = match cmd {
        Cmd::Stmt(s) => (s, 0u8),
        Cmd::Explain(s) => (s, 1),
        Cmd::ExplainQueryPlan(s) => (s, 2),
    };
    // invariant: frame_empty_at_start
    #[cfg(debug_assertions)]
    debug_assert!(c.frame.is_empty(), "a compile starts with the frame of an earlier program");
    c.stmt.eqp.start(explain == 2, stmt);
    c.stmt.explain_comments = explain == 1;
    // (On a large stack: walks that do not grow it themselves, such as
    // the parser crate's formatting of a subtree as text, recurse once per
    // level of a tree as deep as the parser allows.)
    let mut prog = crate::sql::parse::with_stack(|| compile_stmt(c, stmt))?;
    if let Some(e) = c.stmt.auth_error.take() {
        return Err(e);
    }
    let nested = nested_statement_error(stmt, c.env.max_expr_depth, !prog.readonly, explain != 0)
        .or_else(|| nested_statement_width_error(stmt, c.env.max_columns, !prog.readonly, explain != 0));
    match nested {
        Some(NestedFailure::Compiling(e)) => return Err(e),
        Some(NestedFailure::Running) => fail_at_end(&mut prog),
        None => {}
    }
    prog.explain = explain;
    // (The compiler is done: its lists move into the program. Only
    // EXPLAIN QUERY PLAN shows the plan lines.)
    prog.param_names = std::mem::take(&mut c.stmt.params);
    prog.expire_on_bind = c.stmt.expire_on_bind;
    if explain == 2 {
        // Ids are SQLite-like even numbers; a parent is kept as its line
        // number + 1.
        prog.query_plan = c.stmt.eqp.take().into_iter().enumerate().map(|(i, (_, p, d, n))| ((i as i32 + 1) * 2, p * 2, d, n)).collect();
    }
    if explain == 1 {
        prog.column_names = crate::vdbe::explain::EXPLAIN_COLUMNS.iter().map(|s| s.to_string()).collect();
    } else if explain == 2 {
        prog.column_names = vec!["id".into(), "parent".into(), "notused".into(), "detail".into()];
    }
    Ok(prog)
}

fn compile_stmt(c: &mut Compiler<'_>, stmt: &Stmt<'_>) -> Result<Program> {
    let mut prog = Program { readonly: true, schema_cookie: c.env.schema.cookie, ..Default::default() };
    if c.authorize_statement(stmt)? == auth::Verdict::Ignore {
        // The authorizer said to leave this statement out: it does nothing.
        let init = c.begin_program();
        c.end_program(init, None);
        let b = std::mem::take(&mut c.b);
        return b.finish(prog);
    }
    match stmt {
        Stmt::Select(sel) => {
            let init = c.begin_program();
            let names = query::select::compile_top_select(c, sel, &mut prog)?;
            prog.column_names = names;
            let uses_db = c.stmt.dbs_used != 0 || c.b.insns.iter().any(|i| matches!(i.opcode, Opcode::OpenRead | Opcode::OpenWrite));
            c.end_program(init, if uses_db { Some(false) } else { None });
        }
        Stmt::Insert { .. } => dml::insert::compile_insert(c, stmt, &mut prog)?,
        Stmt::Update { .. } => dml::update::compile_update(c, stmt, &mut prog)?,
        Stmt::Delete { .. } => dml::delete::compile_delete(c, stmt, &mut prog)?,
        Stmt::CreateTable { .. }
        | Stmt::CreateIndex { .. }
        | Stmt::CreateView { .. }
        | Stmt::DropTable { .. }
        | Stmt::DropIndex { .. }
        | Stmt::DropView { .. }
        | Stmt::CreateVirtualTable { .. } => ddl::create_drop::compile_ddl(c, stmt, &mut prog)?,
        Stmt::Begin(..) | Stmt::Commit(..) | Stmt::Rollback { .. } | Stmt::Savepoint(..) | Stmt::Release(..) => ddl::txn::compile_txn(c, stmt, &mut prog)?,
        Stmt::Pragma(..) => pragma::compile_pragma(c, stmt, &mut prog)?,
        Stmt::AlterTable(..) => ddl::alter::compile_alter(c, stmt, &mut prog)?,
        Stmt::Analyze(target) => {
            prog.analyze = Some(analyze_target(c, target.as_ref())?);
            c.stmt.writes = true;
            let init = c.begin_program();
            c.end_program(init, None);
        }
        Stmt::Attach { .. } | Stmt::Detach(..) => ddl::attach::compile_attach(c, stmt, &mut prog)?,
        Stmt::CreateTrigger { .. } | Stmt::DropTrigger { .. } => dml::trigger::compile_trigger_ddl(c, stmt, &mut prog)?,
        Stmt::Reindex { obj_name } => c.reindex(obj_name.as_ref())?,
        Stmt::Vacuum(schema, into) => {
            prog.vacuum = Some(ddl::vacuum::target(c, schema.as_ref(), into.as_ref())?);
            let init = c.begin_program();
            c.end_program(init, None);
        }
    }
    let b = std::mem::take(&mut c.b);
    prog.readonly = !c.stmt.writes;
    prog.subprograms = std::mem::take(&mut c.stmt.subprograms);
    b.finish(prog)
}

/// Resolve `ANALYZE [schema | [schema.]table-or-index]` as SQLite does: a
/// lone name is a database when one has that name, else a table or index
/// of any database (searched as names are).
fn analyze_target(c: &Compiler<'_>, target: Option<&sqlite3_parser::ast::QualifiedName>) -> Result<crate::vdbe::program::Analyze> {
    use crate::sql::parse::unquote;
    use crate::vdbe::program::Analyze;
    let schema_name = |db: usize| c.env.databases.get(db).map_or_else(|| "main".to_string(), |d| d.0.clone());
    let Some(q) = target else { return Ok(Analyze { schema: "main".into(), target: None }) };
    let name = unquote(q.name.0);
    // `ANALYZE sqlite_schema` analyzes nothing (SQLite reloads its
    // statistics with it); it is accepted like a table.
    let is_schema_table = ["sqlite_schema", "sqlite_master"].iter().any(|s| s.eq_ci(&name));
    let owner = |db: Option<usize>| {
        if is_schema_table {
            return Some(db.unwrap_or(0));
        }
        c.env.schema.table_in(db, &name).map(|t| t.db).or_else(|| c.env.schema.index_in(db, &name).map(|i| i.db))
    };
    match &q.db_name {
        None => {
            if let Some(db) = c.db_index(&name) {
                return Ok(Analyze { schema: schema_name(db), target: None });
            }
            match owner(None) {
                Some(db) => Ok(Analyze { schema: schema_name(db), target: Some(name) }),
                None => Err(Error::sql(format!("no such table: {name}"))),
            }
        }
        Some(d) => {
            let raw = d.0;
            let d = unquote(d.0);
            let db = c.db_index(&d).ok_or_else(|| Error::sql(format!("unknown database {raw}")))?;
            match owner(Some(db)) {
                Some(_) => Ok(Analyze { schema: schema_name(db), target: Some(name) }),
                None => Err(Error::sql(format!("no such table: {d}.{name}"))),
            }
        }
    }
}
