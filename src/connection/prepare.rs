//! Preparing statements: reading the schemas when they are not loaded or
//! have gone stale (another connection changed them), compiling SQL
//! against the merged schema with the connection's settings (connecting
//! a virtual table a compile asked for, then compiling again), and the
//! checkpoint programs a WAL hook asks for.
//!
//! Invariant: a compile never touches a database file; what it needs
//! is read here first (see `schema_load.rs`).

use super::open::SQLITE_ERROR_CODE;
use super::schema_free::compiles_without_schema;
use super::settings::*;
use super::{in_read_txn, schema_load, Connection, Statement};
use crate::error::{Error, Result};
use crate::sql::codegen::statement::compile;
use crate::sql::codegen::Compiler;
use crate::sql::parse::with_first_statement;
use crate::sql::schema::Schema;
use crate::vdbe::program::Program;
use std::sync::Arc;

/// The length of the statement SQLite reads its schema table with.
const SCHEMA_READ_SQL_LENGTH: i32 = 71;

impl Connection {
    /// Read the schema if it is not loaded or a statement changed it.
    pub(super) fn ensure_schema(&mut self) -> Result<()> {
        // SQLite reads the schema table through a statement of its own, 71
        // bytes long, under SQLITE_LIMIT_SQL_LENGTH: below that every read
        // of the schema fails so.
        if !self.schema_loaded && self.limits[LIMIT_SQL_LENGTH as usize] < SCHEMA_READ_SQL_LENGTH {
            return Err(Error::new(crate::error::SQLITE_CORRUPT, "malformed database schema (sqlite_master) - string or blob too big"));
        }
        let appended = std::mem::take(&mut self.state.schema_appended);
        let deleted = std::mem::take(&mut self.state.schema_deleted);
        if self.schema_loaded && !self.state.schema_changed && appended & deleted == 0 {
            if appended | deleted == 0 {
                return Ok(());
            }
            self.schema_generation += 1;
            // Only CREATEs or DROPs since the last load: the new rows are
            // parsed, the dropped objects forgotten, rather than the whole
            // schema table read again (SQLite's ParseSchema with a WHERE
            // clause, and its DropTable).
            let names: Vec<String> = self.state.dbs.iter().map(|d| d.name.clone()).collect();
            for db in (0..self.state.dbs.len().min(64)).filter(|db| (appended | deleted) & (1 << db) != 0) {
                let Some(schema) = self.schemas.get_mut(db) else { continue };
                let first_new = schema.rows.len();
                let r = if appended & (1 << db) != 0 {
                    in_read_txn(&mut self.state, db, |io, bt| schema_load::append_new_rows(schema, io, bt)).map(|()| None)
                } else {
                    in_read_txn(&mut self.state, db, |io, bt| schema_load::forget_deleted_rows(schema, io, bt))
                };
                let dbs = self.schemas.iter().collect::<Vec<_>>();
                match r {
                    Ok(None) if appended & (1 << db) != 0 => Arc::make_mut(&mut self.merged).merge_appended(&dbs, db, first_new, &names),
                    Ok(Some(gone)) => Arc::make_mut(&mut self.merged).merge_deleted(&dbs, db, &gone, &names),
                    // (The DROP path read everything again.)
                    Ok(None) => self.merged = Arc::new(Schema::merged(&dbs, &names)),
                    Err(e) => {
                        // Half-applied: the next prepare reads everything.
                        self.schema_loaded = false;
                        return Err(e);
                    }
                }
            }
            return Ok(());
        }
        self.schema_generation += 1;
        let mut loaded = Vec::new();
        for db in 0..self.state.dbs.len() {
            let previous = if self.schema_loaded { self.schemas.get(db) } else { None };
            // Main's encoding is the connection's: the others (temp, and
            // attached files still empty) take it.
            let enc = self.state.text_encoding;
            let schema_table = if db == 1 { "sqlite_temp_master" } else { "sqlite_master" };
            // Main's encoding is fixed once read (see `reload`).
            let fixed = db != 0 || self.encoding_fixed;
            // SQLite does not check the rows under writable_schema.
            let check = (!self.state.settings.writable_schema).then(|| self.state.dbs[db].name.clone());
            // What the last check of the rows learned holds whether or not
            // the schema is still loaded (it is keyed by the rows' text).
            let memo = self.schemas.get(db).map(|s| &s.stored_check);
            let schema = in_read_txn(&mut self.state, db, |io, bt| schema_load::reload(io, bt, previous, memo, enc, fixed, schema_table, check.as_deref()));
            // (A row check failing means a row was met.)
            self.schema_rows_met |= match &schema {
                Ok(s) => !s.rows.is_empty(),
                Err(e) => e.message.starts_with("malformed database schema ("),
            };
            loaded.push(schema?);
            if db == 0 {
                self.state.text_encoding = self.state.dbs[0].btree.text_encoding();
                let main = &mut self.state.dbs[0].btree;
                self.encoding_fixed = self.state.io.block_on(|| main.page_count())? > 0;
            }
        }
        // SQLite reads the schema table through OP_Column, which refuses
        // a text longer than SQLITE_LIMIT_LENGTH (lowered below what a
        // schema row holds): the schema is then not loaded at all.
        let max = self.state.max_length;
        let too_long = |t: &str| t.len() as i64 > max;
        if loaded
            .iter()
            .flat_map(|s| s.rows.iter())
            .any(|(ty, name, tbl, _, sql)| too_long(ty) || too_long(name) || too_long(tbl) || sql.as_deref().is_some_and(too_long))
        {
            return Err(crate::error::Error::too_big());
        }
        // SQLITE_LIMIT_SCHEMA: SQLite counts each object as it reads its
        // row, the schema table itself the first.
        if loaded.iter().any(|s| s.rows.len() + 1 > self.state.max_schema_objects) {
            return Err(Error::new(crate::error::SQLITE_ABORT, "too many schema objects"));
        }
        // A lowered SQLITE_LIMIT_EXPR_DEPTH applies to the schema's own
        // statements as SQLite parses them when it reads the schema.
        let depth = self.limits[LIMIT_EXPR_DEPTH as usize];
        if depth < LIMIT_DEFAULTS[LIMIT_EXPR_DEPTH as usize] {
            for (_, name, _, _, sql) in loaded.iter().flat_map(|s| s.rows.iter()) {
                let Some(sql) = sql else { continue };
                if let Err(e) = schema_statement_depth(sql, depth as usize) {
                    if depth == 0 {
                        return Err(Error::sql("SQL logic error"));
                    }
                    return Err(Error::new(crate::error::SQLITE_CORRUPT, format!("malformed database schema ({name}) - {}", e.message)));
                }
            }
        }
        // The expressions in the stored CREATE text, as SQLite checks them
        // when it runs each CREATE again (not under writable_schema).
        if !self.state.settings.writable_schema {
            let names: Vec<(String, String)> = self.state.dbs.iter().map(|d| (d.name.clone(), d.path.clone())).collect();
            if let Some(e) = super::schema_expr_load::first_invalid_expression(&loaded, &self.funcs, &self.collations, &names, &mut self.schema_text_checked) {
                return Err(e);
            }
        }
        if let Some((name, f)) = super::schema_trust_load::first_unsafe_call(&loaded, &self.funcs, self.state.settings.trusted_schema) {
            return Err(Error::new(crate::error::SQLITE_CORRUPT, format!("malformed database schema ({name}) - unsafe use of {f}()")));
        }
        self.schemas = loaded;
        let names: Vec<String> = self.state.dbs.iter().map(|d| d.name.clone()).collect();
        self.merged = Arc::new(Schema::merged(&self.schemas.iter().collect::<Vec<_>>(), &names));
        self.schema_loaded = true;
        self.state.schema_changed = false;
        // Connected virtual tables whose schema entry went or changed are
        // disconnected.
        let merged = &self.merged;
        let reset = std::mem::take(&mut self.state.schema_reset);
        self.state.vtabs.retain_tables(|db, name, sql| !reset && merged.table_in(Some(db), name).is_some_and(|t| t.sql == sql));
        Ok(())
    }

    /// Whether some database's schema cookie on disk differs from the one
    /// its loaded schema was read at (another connection changed it).
    fn schema_is_stale(&mut self) -> Result<bool> {
        let mut stale = false;
        for i in 0..self.state.dbs.len() {
            let cookie = in_read_txn(&mut self.state, i, |io, bt| {
                if io.block_on(|| bt.page_count())? == 0 {
                    return Ok(0);
                }
                io.block_on(|| bt.meta(crate::btree::Meta::SchemaCookie))
            })?;
            stale |= self.schemas.get(i).is_none_or(|s| s.cookie != cookie);
        }
        Ok(stale)
    }

    /// Compile the first statement of `sql`, connecting the virtual
    /// tables it uses first (see `connection::vtab`).
    pub(super) fn compile(&mut self, sql: &[u8]) -> Result<(Option<Arc<Program>>, usize)> {
        let request = std::cell::Cell::new(None);
        // Each table is connected once; a request repeated means the
        // connection did not take (never loop on it).
        let mut asked = Vec::new();
        // (Each attempt is handed the bound values; a compile nested in
        // one, SQL an xBestIndex runs, sees none.)
        let bound = self.reprepare_params.take();
        // (The authorizer's calls are replayed rather than asked again.)
        let replay = std::cell::RefCell::new(crate::sql::codegen::auth::AuthReplay::default());
        loop {
            self.reprepare_params = bound.clone();
            match self.compile_once(sql, &request, &replay) {
                Err(e) => match request.take() {
                    Some(req) if !asked.contains(&req) => {
                        // invariant: vtab_request_error_first
                        debug_assert_eq!(e.message, "virtual table not connected", "a compile waiting for {req:?} failed with another error");
                        asked.push(req.clone());
                        replay.borrow_mut().next_attempt();
                        self.connect_vtab(req)?
                    }
                    // invariant: vtab_connect_once
                    Some(_) => return Err(Error::new(crate::error::SQLITE_INTERNAL, "virtual table connected but not found")),
                    None => return Err(e),
                },
                r => return r,
            }
        }
    }

    fn compile_once(
        &mut self,
        sql: &[u8],
        vtab_connect: &std::cell::Cell<Option<crate::sql::codegen::vtab::ConnectRequest>>,
        auth_replay: &std::cell::RefCell<crate::sql::codegen::auth::AuthReplay>,
    ) -> Result<(Option<Arc<Program>>, usize)> {
        let needs_schema = !is_writable_schema_pragma(sql) && (self.schema_loaded || !compiles_without_schema(sql, self.schema_rows_met));
        // A PRAGMA's notice goes to its file before the schema is read
        // (which may roll back a hot journal), as SQLite sends it while
        // parsing; a pragma the file answers needs no schema. (With an
        // authorizer, after it has been asked, in the compile.)
        let early_pragma = if needs_schema && self.authorizer.is_none() { self.early_pragma_notice(sql) } else { None };
        if needs_schema && !matches!(early_pragma, Some((_, Some(_)))) {
            self.ensure_schema()?;
        } else if !self.schema_loaded && super::schema_free::compiles_from_main_header(sql) {
            // (A file whose header does not read keeps the default size,
            // as SQLite's: not an error here.)
            let _ = in_read_txn(&mut self.state, 0, |io, bt| io.block_on(|| bt.page_count()));
        }
        let current = self.database_names.len() == self.state.dbs.len()
            && self.database_names.iter().zip(&self.state.dbs).all(|((n, p), d)| *n == d.name && *p == d.path);
        if !current {
            self.database_names = Arc::new(self.state.dbs.iter().map(|d| (d.name.clone(), d.path.clone())).collect());
        }
        // With an authorizer the cache is not used: it is called by every
        // prepare (see `compiled_cache`).
        // (Nor when compiled again with the values bound: the program may
        // hold them.)
        let bound = self.reprepare_params.take();
        let stamp = (self.authorizer.is_none() && bound.is_none()).then(|| self.compile_stamp());
        if let Some(stamp) = &stamp {
            if let Some((prog, tail)) = self.compiled.get(sql, stamp) {
                // What a compile would check besides: an interrupt, and
                // the progress handler's steps.
                if self.state.active_statements == 0 {
                    self.state.interrupt.store(false, std::sync::atomic::Ordering::Relaxed);
                }
                if self.state.interrupt.load(std::sync::atomic::Ordering::Relaxed) {
                    return Err(Error::code(crate::error::SQLITE_INTERRUPT));
                }
                self.compile_checkpoints(prog.compile_checkpoints)?;
                return Ok((Some(prog), tail));
            }
        }
        // Whether the compile may be kept: set by the statement's kind,
        // cleared if it asked a database file (an application VFS's
        // pragma answers).
        let cacheable = std::cell::Cell::new(false);
        let file_asked = std::cell::Cell::new(early_pragma.is_some());
        // What the compile reads of the connection is a snapshot of it
        // (shared, not copied), so that the connection itself can be lent
        // to a virtual table's xBestIndex, which SQLite lets run SQL on it
        // (see `lend_best_index` below). SQL run there that changes the
        // schema or the registries changes the connection's copies, not
        // these: the program compiled from them finds out when it runs
        // (schema cookie) or is compiled against what its compile began
        // with, as in SQLite.
        let databases = self.database_names.clone();
        let databases = &databases[..];
        let vtabs = self.state.vtabs.catalog();
        let vtabs = &*vtabs;
        let schema = self.merged.clone();
        let schema = &*schema;
        let funcs = self.funcs.clone();
        let funcs = &*funcs;
        let colls = self.collations.clone();
        let colls = &*colls;
        let collation_order = self.collation_order.clone();
        let collation_order = &collation_order[..];
        let settings = self.compile_settings();
        let shadows_read_only = self.shadows_read_only();
        let page_size = self.state.dbs[0].btree.page_size();
        let temp_listed = self.state.temp_used || !self.schemas.get(1).is_none_or(|s| s.rows.is_empty());
        let memory = self.memory;
        // (Moved out for the compile, and back into the connection while
        // xBestIndex runs SQL on it: see `lend_best_index`.)
        let authorizer_installed = self.authorizer.is_some();
        let authorizer_slot: crate::sql::codegen::auth::AuthorizerSlot = std::cell::RefCell::new(self.authorizer.take());
        let authorizer = authorizer_installed.then_some(&authorizer_slot);
        let internal = self.internal_sql;
        let no_vtab = self.no_vtab_sql;
        let preupdate_hooked = self.state.preupdate_hook.is_some();
        let generation = self.attach_generation;
        let settings_generation = self.state.settings_generation;
        let max_variables = self.limits[LIMIT_VARIABLE_NUMBER as usize];
        let bound_values = bound.as_deref();
        // TCL-style `$::name` parameters are made readable to the parser.
        let tcl_text = crate::sql::params::tcl_variables(sql);
        let parse_text = tcl_text.as_deref().unwrap_or(sql);
        let limit = |id: i32| self.limits[id as usize] as usize;
        let parse_limits = crate::sql::parse_limits::ParseLimits {
            expr_depth: limit(LIMIT_EXPR_DEPTH),
            parser_depth: limit(LIMIT_PARSER_DEPTH),
            columns: limit(LIMIT_COLUMN),
            compound: limit(LIMIT_COMPOUND_SELECT),
            function_args: limit(LIMIT_FUNCTION_ARG),
        };
        let (max_columns, max_variable, max_ops) = (limit(LIMIT_COLUMN), limit(LIMIT_VARIABLE_NUMBER), limit(LIMIT_VDBE_OP));
        let (max_trigger_steps, max_trigger_depth) = (limit(LIMIT_TRIGGER_STEPS), limit(LIMIT_TRIGGER_DEPTH));
        let max_length = self.state.max_length;
        // As in SQLite, an interrupt stops a prepare, and one left over
        // from statements that have all finished is forgotten.
        if self.state.active_statements == 0 {
            self.state.interrupt.store(false, std::sync::atomic::Ordering::Relaxed);
        }
        let interrupt = self.state.interrupt.clone();
        let generation_before = self.schema_generation;
        // The connection, lent to a virtual table's xBestIndex for the call
        // (and read for a database file an application VFS answers a
        // pragma from); a call nested in another gets none.
        let host = std::cell::RefCell::new(&mut *self);
        // The authorizer goes back into the connection for the call, so
        // that a statement prepared there is authorized (by whichever
        // authorizer is installed when the call returns, from then on).
        let authorizer_ref = &authorizer_slot;
        let lend_best_index = |table: &dyn crate::vdbe::vtab::VTab, info: &mut crate::vdbe::vtab::IndexInfo| -> Result<()> {
            match host.try_borrow_mut() {
                Ok(mut conn) => {
                    let Ok(mut slot) = authorizer_ref.try_borrow_mut() else { return table.best_index(None, info) };
                    conn.authorizer = slot.take();
                    drop(slot);
                    let r = crate::vdbe::host::lend(&mut **conn, |h| table.best_index(Some(h), info));
                    *authorizer_ref.borrow_mut() = conn.authorizer.take();
                    r
                }
                Err(_) => table.best_index(None, info),
            }
        };
        let lend_best_index: &crate::sql::plan::vtab::BestIndexLender<'_> = &lend_best_index;
        let file_asked_ref = &file_asked;
        let host_ref = &host;
        let db_file = move |i: usize| {
            file_asked_ref.set(true);
            let conn = host_ref.try_borrow().ok()?;
            conn.state.dbs.get(i).map(|d| d.btree.pager().file().clone())
        };
        let db_file: &dyn Fn(usize) -> Option<Arc<dyn crate::io::File>> = &db_file;
        // A bulk INSERT of literal rows is compiled without a tree for
        // every row (`sql::value_rows`), unless an authorizer would be
        // called again by a compile redone on the whole text.
        // A huge statement breaking a parse-time limit fails on it from
        // its first bytes, as SQLite's parser does (`sql::huge_prefix`).
        if let Some(e) = crate::sql::huge_prefix::limit_error(parse_text, parse_limits) {
            return Err(e);
        }
        let split = if authorizer_installed { None } else { crate::sql::value_rows::split(parse_text, max_columns, parse_limits.expr_depth) };
        // What every statement of this text compiles against, lent once.
        let env = crate::sql::codegen::CompileEnv {
            schema,
            funcs,
            collations: colls,
            collation_order,
            databases,
            temp_listed,
            db_file: Some(db_file),
            early_pragma: early_pragma.as_ref(),
            memory_db: memory,
            page_size,
            internal,
            no_vtab,
            shadows_read_only,
            settings,
            preupdate_hooked,
            max_columns,
            max_variable,
            max_expr_depth: parse_limits.expr_depth,
            max_trigger_steps,
            max_trigger_depth,
            max_length,
            vtabs: Some(vtabs),
            vtab_connect: Some(vtab_connect),
            auth_replay: Some(auth_replay),
            vtab_lender: Some(lend_best_index),
            interrupt: Some(&*interrupt),
        };
        let env = &env;
        let interrupt_flag = &interrupt;
        let compile_text = |parse_text: &[u8], value_rows: Option<&crate::sql::value_rows::ValueRows<'_>>| {
            let built = |exprs: &[&sqlite3_parser::ast::Expr<'_>]| {
                crate::sql::parse_limits::built_error(exprs, parse_limits, Some(&|name: &str, n: usize| funcs.is_constant_call(name, n)))
            };
            crate::sql::parse::with_first_statement_interruptible(parse_text, Some(&**interrupt_flag), parse_limits.parser_depth, &built, |cmd, tail| {
                let interrupt = interrupt_flag;
                if interrupt.load(std::sync::atomic::Ordering::Relaxed) {
                    return Err(Error::code(crate::error::SQLITE_INTERRUPT));
                }
                let Some(cmd) = cmd else { return Ok((None, tail)) };
                cacheable.set(crate::connection::compiled_cache::cacheable_statement(cmd));
                // The limits SQLite checks while parsing, before anything
                // walks the tree (see `sql::parse_limits`).
                let deferred_depth = crate::sql::parse_limits::check_prepared(
                    cmd,
                    parse_limits,
                    Some(interrupt),
                    Some(&|name: &str, n: usize| funcs.is_constant_call(name, n)),
                )?;
                let stmt_sql = &sql[..tail];
                // Parameters are numbered in source order before compiling
                // (`sql::params`); the compiler still sees the original text.
                let numbering = crate::sql::params::number(&parse_text[..tail]);
                crate::sql::params::check_variable_limit(&parse_text[..tail], &numbering, max_variables)?;
                let build_program = move |cmd: &sqlite3_parser::ast::Cmd<'_>| -> crate::error::Result<Program> {
                    let mut c = Compiler::new(env, stmt_sql);
                    c.stmt.authorizer = authorizer;
                    c.stmt.params = numbering.names;
                    c.stmt.bound_params = bound_values;
                    c.stmt.value_rows = value_rows;
                    c.names.depth_point = deferred_depth.as_ref().map(|d| d.expr).filter(|&at| at != 0);
                    let mut prog = match compile(&mut c, cmd) {
                        Ok(p) => p,
                        // A height SQLite meets once the FROM clauses are
                        // expanded wins over the errors met after them.
                        Err(e) => match &deferred_depth {
                            Some(d) if d.after_expansion && !crate::sql::parse_limits::is_expansion_error(&e) && e.primary() == crate::error::SQLITE_ERROR => {
                                return Err(d.error.clone())
                            }
                            _ => return Err(e),
                        },
                    };
                    // A compile that never met the expression too deep fails
                    // after it, as SQLite's resolver would have by then.
                    if let Some(d) = &deferred_depth {
                        return Err(d.error.clone());
                    }
                    // Then a height its code generator refuses.
                    if let Some(e) = c.stmt.codegen_error.take() {
                        return Err(e);
                    }
                    // SQLITE_LIMIT_VDBE_OP: SQLite fails to grow its array of
                    // instructions past the limit, and grows it from 42 (1 KB)
                    // by doubling: a program of one instruction fails under
                    // 42. (Its programs and ours differ in length, so a
                    // boundary between two sizes may not be the same.)
                    if vdbe_op_capacity(prog.insns.len()) > max_ops {
                        return Err(Error::code(crate::error::SQLITE_NOMEM));
                    }
                    prog.attach_generation = generation;
                    prog.settings_generation = settings_generation;
                    #[cfg(debug_assertions)]
                    {
                        prog.compiled_settings = Some(env.settings);
                    }
                    Ok(prog)
                };
                let build = move |cmd: &sqlite3_parser::ast::Cmd<'_>| -> crate::error::Result<Program> {
                    // A bug in code generation must not leave the caller without
                    // an error message: it becomes SQLITE_INTERNAL, with one.
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| build_program(cmd))).unwrap_or_else(|payload| {
                        let what =
                            payload.downcast_ref::<String>().cloned().or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_default();
                        Err(crate::error::Error::new(
                            crate::error::SQLITE_INTERNAL,
                            format!("internal error while compiling the statement (a bug in ringlite): {what}"),
                        ))
                    })
                };
                let prog = match &numbering.text {
                    None => build(cmd)?,
                    // (`value_rows::split` refuses statements with variables.)
                    Some(_) if value_rows.is_some() => return Err(Error::code(crate::error::SQLITE_INTERNAL)),
                    Some(text) => with_first_statement(text, |renumbered, _| match renumbered {
                        Some(cmd) => build(cmd),
                        None => Err(crate::error::Error::sql("malformed statement")),
                    })?,
                };
                Ok((Some(Arc::new(prog)), tail))
            })
        };
        // A split statement whose compile failed, or took another path
        // than the multi-row INSERT, is compiled again whole: its errors
        // and program are those of the whole tree (an interrupt stands).
        let compiled = match &split {
            Some(s) => match compile_text(&s.head, Some(&s.rows)) {
                Ok(r) if s.rows.consumed.get() => Ok(r),
                Err(e) if e.primary() == crate::error::SQLITE_INTERRUPT => Err(e),
                _ => compile_text(parse_text, None),
            },
            None => compile_text(parse_text, None),
        };
        self.authorizer = authorizer_slot.into_inner();
        // SQL an xBestIndex ran may have changed a schema: as in SQLite,
        // whose program takes the schema cookies when its compile ends,
        // the program expects the schemas as they are now.
        let schema_changed_meanwhile =
            self.schema_generation != generation_before || self.state.schema_changed || (self.state.schema_appended | self.state.schema_deleted) != 0;
        let compiled = match compiled {
            Ok((Some(mut prog), tail)) if schema_changed_meanwhile => {
                self.ensure_schema()?;
                if let Some(p) = Arc::get_mut(&mut prog) {
                    p.schema_cookie = self.merged.cookie;
                    for i in p.insns.iter_mut().filter(|i| i.opcode == crate::vdbe::program::Opcode::Transaction) {
                        i.p3 = self.merged.cookie_of(i.p1 as usize) as i32;
                    }
                }
                Ok((Some(prog), tail))
            }
            other => other,
        };
        // An unterminated statement too deep fails on the limit, as
        // SQLite's parser meets it before the end of the input.
        let compiled = match compiled {
            Err(e) if e.message == "incomplete input" => Err(crate::sql::parse_limits::limit_error_in_unterminated(parse_text, parse_limits).unwrap_or(e)),
            other => other,
        }?;
        if let (Some(prog), tail) = &compiled {
            // An interrupt that came while the compile was past its last
            // poll (or inside the parser crate, which polls nothing) stops
            // the prepare all the same.
            if self.state.interrupt.load(std::sync::atomic::Ordering::Relaxed) {
                return Err(Error::code(crate::error::SQLITE_INTERRUPT));
            }
            self.compile_checkpoints(prog.compile_checkpoints)?;
            if let (Some(stamp), true, false) = (stamp, cacheable.get(), file_asked.get()) {
                self.compiled.put(sql, stamp, prog, *tail);
            }
        }
        Ok(compiled)
    }

    /// When the first statement of `sql` is a PRAGMA: its notice sent to
    /// its database's file now ([`crate::io::File::pragma`]), with the
    /// database's index. `None` for other statements, and for a schema
    /// name no database has (the compile reports it).
    fn early_pragma_notice(&self, sql: &[u8]) -> Option<crate::sql::codegen::env::EarlyPragma> {
        use sqlite3_parser::ast::{Cmd, PragmaBody, Stmt};
        // (A cheap look at the text first: most statements are not
        // pragmas.)
        if !sql.trim_ascii_start().get(..6).is_some_and(|p| p.eq_ignore_ascii_case(b"pragma")) {
            return None;
        }
        let (db, name, value) = with_first_statement(sql, |cmd, _| {
            let Some(Cmd::Stmt(Stmt::Pragma(name, body))) = cmd else { return Ok(None) };
            let db = match &name.db_name {
                None => Some(0),
                Some(q) => {
                    let q = crate::sql::parse::unquote(q.0);
                    self.state.dbs.iter().position(|d| d.name.eq_ignore_ascii_case(&q))
                }
            };
            let value = body.as_ref().map(|b| match b {
                PragmaBody::Equals(e) | PragmaBody::Call(e) => crate::sql::parse::arg_text(e),
            });
            Ok(db.map(|db| (db, crate::sql::parse::unquoted(name.name.0).into_owned(), value)))
        })
        .ok()??;
        let file = self.state.dbs.get(db)?.btree.pager().file().clone();
        Some((db, file.pragma(&name, value.as_deref())))
    }

    /// Everything besides the text that a compile reads (see
    /// `compiled_cache`), as it is now; the schema is current.
    fn compile_stamp(&self) -> super::compiled_cache::CompileStamp {
        super::compiled_cache::CompileStamp {
            schema_generation: self.schema_generation,
            attach_generation: self.attach_generation,
            settings_generation: self.state.settings_generation,
            settings: self.state.settings,
            limits: self.limits,
            page_size: self.state.dbs[0].btree.page_size(),
            temp_listed: self.state.temp_used || !self.schemas.get(1).is_none_or(|s| s.rows.is_empty()),
            memory: self.memory,
            internal: self.internal_sql,
            no_vtab: self.no_vtab_sql,
            shadows_read_only: self.shadows_read_only(),
            preupdate_hooked: self.state.preupdate_hook.is_some(),
            text_encoding: self.state.text_encoding,
        }
    }

    /// The switches a statement prepared now compiles under: the
    /// connection's, with `writable_schema` off while
    /// `SQLITE_DBCONFIG_DEFENSIVE` is on (SQLite's writable-schema test
    /// asks for the one without the other).
    fn compile_settings(&self) -> crate::vdbe::settings::Settings {
        let mut s = self.state.settings;
        s.writable_schema &= !s.defensive;
        s
    }

    /// Whether a statement prepared now is ordinary SQL under
    /// `SQLITE_DBCONFIG_DEFENSIVE`, for which shadow tables are read-only:
    /// the flag is on and no callback of a running statement holds the
    /// connection (SQLite: no statement executing, no virtual table being
    /// constructed; both run their callbacks lent the connection here).
    fn shadows_read_only(&self) -> bool {
        self.state.settings.defensive && self.state.lent_depth == 0
    }

    /// Empty the compiled-program cache: a function, collation or module
    /// was registered or removed, which can change what a compile
    /// resolves names to without expiring any statement.
    pub(super) fn forget_compiled(&mut self) {
        self.compiled.clear();
    }

    /// Programs held by the compiled-program cache (for tests).
    pub fn compiled_cache_len(&self) -> usize {
        self.compiled.len()
    }

    /// SQLite checks for an interrupt, and counts a step towards calling
    /// the progress handler (every N steps, as for a running statement),
    /// each time a compile passes another 100 jump labels: a handler that
    /// asks to stop fails the prepare with SQLITE_INTERRUPT. Compiling is
    /// bounded here (`sql::parse_limits`), so the checkpoints are counted
    /// during the compile and run after it.
    fn compile_checkpoints(&mut self, checkpoints: u32) -> Result<()> {
        let mut steps = 0;
        for _ in 0..checkpoints {
            if self.state.interrupt.load(std::sync::atomic::Ordering::Relaxed) {
                return Err(Error::code(crate::error::SQLITE_INTERRUPT));
            }
            let Some(n) = self.state.progress.as_ref().map(|(n, _)| *n).filter(|n| *n > 0) else { continue };
            steps += 1;
            if steps >= n {
                steps = 0;
                if self.call_progress_handler() {
                    return Err(Error::code(crate::error::SQLITE_INTERRUPT));
                }
            }
        }
        Ok(())
    }

    /// Compile the first statement in `sql`. Returns the statement (`None`
    /// for only whitespace or comments) and the byte offset just past it.
    ///
    /// `sql` is the whole input, its length given, as for a C caller of
    /// `sqlite3_prepare_v2` passing `nByte`: past `SQLITE_LIMIT_SQL_LENGTH`
    /// it is "statement too long", as SQLite's prepare answers before
    /// parsing. [`Connection::prepare_terminated`] is the NUL-terminated
    /// form.
    pub fn prepare(&mut self, sql: &[u8]) -> Result<(Option<Statement>, usize)> {
        if sql.len() as i64 > i64::from(self.limits[LIMIT_SQL_LENGTH as usize]) {
            return Err(Error::new(crate::error::SQLITE_TOOBIG, "statement too long"));
        }
        self.prepare_terminated(sql)
    }

    /// [`Connection::prepare_terminated`] with SQLite's
    /// `SQLITE_PREPARE_NO_VTAB`: a virtual table named by the statement
    /// (or by a trigger it fires) is "no such table".
    pub fn prepare_no_vtab(&mut self, sql: &[u8]) -> Result<(Option<Statement>, usize)> {
        let was = std::mem::replace(&mut self.no_vtab_sql, true);
        let r = self.prepare_terminated(sql);
        self.no_vtab_sql = was;
        r
    }

    /// [`Connection::prepare`] for a text that ends with a NUL (a C caller
    /// passing `nByte < 0`, `sqlite3_exec`, the statements SQLite runs for
    /// itself): SQLite's parser refuses a text past
    /// `SQLITE_LIMIT_SQL_LENGTH` with the code's own message, "string or
    /// blob too big".
    pub fn prepare_terminated(&mut self, sql: &[u8]) -> Result<(Option<Statement>, usize)> {
        let max_length = self.state.max_length;
        self.prepare_unlimited_message(sql).map_err(|e| e.within_length(max_length))
    }

    /// [`Connection::prepare_terminated`], its error's message not yet held
    /// to `SQLITE_LIMIT_LENGTH`.
    fn prepare_unlimited_message(&mut self, sql: &[u8]) -> Result<(Option<Statement>, usize)> {
        let max_sql = self.limits[LIMIT_SQL_LENGTH as usize];
        if sql.len() as i64 > i64::from(max_sql) && !first_statement_within(sql, max_sql as usize) {
            return Err(Error::code(crate::error::SQLITE_TOOBIG));
        }
        let (prog, tail) = match self.compile(sql) {
            // The schema may be stale (another connection changed it, as
            // SQLite finds out when a prepare fails): read it again, once.
            // Only when it is: compiling again would repeat the authorizer's
            // callbacks for nothing.
            Err(e) if e.primary() == SQLITE_ERROR_CODE && self.schema_loaded && self.state.active_statements == 0 => {
                if !self.schema_is_stale()? {
                    return Err(e);
                }
                self.schema_loaded = false;
                self.compile(sql)?
            }
            r => r?,
        };
        let Some(prog) = prog else { return Ok((None, tail)) };
        // SQLite stores each result column's name as a string value held
        // to SQLITE_LIMIT_LENGTH: a longer one fails the prepare.
        if prog.column_names.iter().any(|n| n.len() as i64 > self.state.max_length) {
            return Err(Error::too_big());
        }
        // (Checked as UTF-8 first: much faster than the lossy scan.)
        let text = match std::str::from_utf8(&sql[..tail]) {
            Ok(t) => t.trim().to_string(),
            Err(_) => String::from_utf8_lossy(&sql[..tail]).trim().to_string(),
        };
        let stats = std::sync::Arc::new(super::stmt_registry::StmtStats::new(text.clone()));
        self.register_statement(&stats);
        Ok((Some(Statement::new(text, prog, stats)), tail))
    }
}

/// The instructions SQLite's array holds once it has grown to take `n`:
/// 1,024 bytes of 24-byte instructions first, then twice as many each time.
fn vdbe_op_capacity(n: usize) -> usize {
    let mut capacity = 0;
    while capacity < n {
        capacity = if capacity == 0 { 1024 / 24 } else { capacity * 2 };
    }
    capacity
}

/// Whether the first statement of `sql` ends, its `;` included, within
/// `limit` bytes: SQLite's parser counts the bytes of the tokens it reads
/// against `SQLITE_LIMIT_SQL_LENGTH` and stops reading at the `;` ending
/// the statement (in CREATE TRIGGER, the one after END), so the
/// statements after it do not count. Only the first `limit` bytes are
/// read.
fn first_statement_within(sql: &[u8], limit: usize) -> bool {
    use sqlite3_parser::dialect::TokenType::*;
    let head = &sql[..sql.len().min(limit)];
    let mut toks = crate::sql::parse::tokens(head).peekable();
    // (EXPLAIN [QUERY PLAN] CREATE [TEMP] TRIGGER: its body's `;` do not
    // end it.)
    let mut lead = Vec::new();
    while let Some(t) = toks.next_if(|t| matches!(t.kind, TK_EXPLAIN | TK_QUERY | TK_PLAN | TK_CREATE | TK_TEMP | TK_TRIGGER)) {
        lead.push(t.kind);
    }
    let trigger = lead.contains(&TK_CREATE) && lead.contains(&TK_TRIGGER);
    let mut after_end = false;
    for t in toks {
        if t.kind == TK_SEMI && (!trigger || after_end) {
            return t.end <= limit;
        }
        after_end = t.kind == TK_END;
    }
    false
}

/// Check one statement of a schema table against the expression height
/// `limit` (the other limits do not apply to the schema).
fn schema_statement_depth(sql: &str, limit: usize) -> Result<()> {
    use crate::sql::parse_limits::ParseLimits;
    let limits = ParseLimits { expr_depth: limit, parser_depth: usize::MAX, columns: usize::MAX, compound: 0, function_args: usize::MAX };
    with_first_statement(sql.as_bytes(), |cmd, _| match cmd {
        Some(cmd) => match crate::sql::parse_limits::check(cmd, limits, None)? {
            Some(deferred) => Err(deferred.error),
            None => Ok(()),
        },
        None => Ok(()),
    })
}

/// Whether `sql` is `PRAGMA writable_schema...`: it runs without reading
/// the schema even when one was read before, so that a schema that fails
/// its checks (`sql/schema/stored_check.rs`) can still be repaired. (A
/// cheap look at the text first: most statements are not pragmas.)
fn is_writable_schema_pragma(sql: &[u8]) -> bool {
    let text = sql.trim_ascii_start();
    text.get(..6).is_some_and(|p| p.eq_ignore_ascii_case(b"pragma"))
        && text.len() < 256
        && text.windows(15).any(|w| w.eq_ignore_ascii_case(b"writable_schema"))
        && compiles_without_schema(sql, false)
}
