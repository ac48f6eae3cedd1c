//! Triggers: CREATE/DROP TRIGGER, and firing row triggers (BEFORE/AFTER
//! INSERT, UPDATE [OF ...], DELETE, with WHEN) by generating their
//! statements inline at each changed row, with `NEW.x`/`OLD.x` read from
//! the row's registers. `RAISE(IGNORE)` skips the row; the other RAISE
//! forms fail the statement with the given message.
//!
//! Invariants: inline, a trigger never fires itself again while it runs
//! (SQLite's default `recursive_triggers = OFF`) (checked:
//! trigger_no_self_fire); with the pragma on,
//! triggers are compiled into trigger programs instead
//! (`trigger_program.rs`), which may. Changes made by trigger statements
//! do not count in the firing statement's `changes()`; inside the body,
//! `changes()` and `last_insert_rowid()` are the body's own until it ends
//! (`TriggerEnter`, `ResetCount`, `TriggerLeave`: see
//! `vdbe::exec::trigger_counts`). INSTEAD OF triggers (on views only) are
//! fired by `instead.rs`. TEMP triggers live in the temp schema and may
//! watch main tables; they fire before the table's own triggers.

use crate::error::{Error, Result, SQLITE_CONSTRAINT_TRIGGER};
use crate::sql::codegen::target::Event;
use crate::sql::codegen::target::WriteTarget;
use crate::sql::codegen::{ColumnSource, Compiler};
use crate::sql::parse::parse_time_window_errors;
use crate::sql::parse::{unquote, unquoted, with_first_statement};
use crate::sql::resolve::Scope;
use crate::util::ascii::AsciiLower;
use crate::vdbe::program::{Opcode, Program, P4};
use sqlite3_parser::ast::{self, ResolveType, Stmt, TriggerEvent, TriggerTime};

/// Trigger bodies nested inline at most; deeper ones are trigger programs.
const INLINE_TRIGGER_DEPTH: usize = 16;

/// Compile CREATE TRIGGER / DROP TRIGGER. A TEMP trigger (TEMP keyword,
/// `temp.` name, or a trigger on a TEMP table) is stored in the temp
/// database's schema and may watch a table of the main database.
pub fn compile_trigger_ddl(c: &mut Compiler<'_>, stmt: &Stmt<'_>, prog: &mut Program) -> Result<()> {
    let init = c.begin_program();
    let db = match stmt {
        Stmt::CreateTrigger { temporary, if_not_exists, trigger_name, time, tbl_name, commands, .. } => {
            parse_time_window_errors(c.stmt.sql)?;
            if *temporary && trigger_name.db_name.is_some() {
                return Err(Error::sql("temporary trigger may not have qualified name"));
            }
            let name = unquote(trigger_name.name.0);
            let table = unquote(tbl_name.name.0);
            // TEMP (keyword, `temp.` name, or a trigger on a TEMP table) goes
            // to the temp schema; otherwise an unqualified trigger goes to
            // main and its table is looked up in that database only.
            let db = if *temporary {
                1
            } else {
                match c.qualifier_db(trigger_name.db_name.as_ref())? {
                    Some(d) => d,
                    None => c.env.schema.table(&table).map_or(0, |t| if t.db == 1 { 1 } else { 0 }),
                }
            };
            // Since 3.53 only a TEMP trigger may name another database's
            // table in its body.
            for cmd in commands.iter() {
                let target = match cmd {
                    ast::TriggerCmd::Insert { tbl_name, .. } | ast::TriggerCmd::Update { tbl_name, .. } | ast::TriggerCmd::Delete { tbl_name, .. } => {
                        Some(tbl_name)
                    }
                    _ => None,
                };
                if db != 1 && target.is_some_and(|t| t.db_name.is_some()) {
                    return Err(Error::sql("qualified table names are not allowed on INSERT, UPDATE, and DELETE statements within triggers"));
                }
            }
            if let Some(q) = tbl_name.db_name.as_ref() {
                let qn = unquote(q.0);
                if db != 1 && c.db_index(&qn) != Some(db) {
                    return Err(Error::sql(format!("trigger {name} cannot reference objects in database {qn}")));
                }
            }
            if db != 1 {
                c.check_object_databases("trigger", &name, db, sqlite3_parser::dialect::TokenType::TK_ON)?;
            }
            if c.env.schema.has_trigger(Some(db), &name) {
                if *if_not_exists {
                    c.end_program(init, None);
                    return Ok(());
                }
                // (SQLite quotes the name as the statement writes it.)
                return Err(Error::sql(format!("trigger {} already exists", trigger_name.name.0)));
            }
            // Only a TEMP trigger may watch a table of another database; it
            // looks in every database.
            let t = if db == 1 {
                let qualified = c.qualifier_db(tbl_name.db_name.as_ref())?;
                match c.env.schema.table_in(qualified, &table).cloned() {
                    Some(t) => t,
                    None => {
                        return Err(Error::sql(match qualified {
                            Some(q) => format!("no such table: {}.{table}", c.db_name(q)),
                            None => format!("no such table: {table}"),
                        }))
                    }
                }
            } else {
                match c.env.schema.table_in(Some(db), &table).cloned() {
                    Some(t) => t,
                    None => return Err(Error::sql(format!("no such table: {}.{table}", c.db_name(db)))),
                }
            };
            if t.virtual_table.is_some() {
                return Err(Error::sql("cannot create triggers on virtual tables"));
            }
            if c.shadow_table_refused(&t) {
                return Err(Error::sql("cannot create triggers on shadow tables"));
            }
            if crate::sql::schema::is_internal_name(&name) && !c.env.internal && !c.env.settings.writable_schema {
                return Err(Error::sql(format!("object name reserved for internal use: {name}")));
            }
            let instead = matches!(time, Some(TriggerTime::InsteadOf));
            if t.view_select.is_some() && !instead {
                let when = if matches!(time, Some(TriggerTime::After)) { "AFTER" } else { "BEFORE" };
                return Err(Error::sql(format!("cannot create {when} trigger on view: {table}")));
            }
            if t.view_select.is_none() && instead {
                return Err(Error::sql(format!("cannot create INSTEAD OF trigger on table: {table}")));
            }
            if crate::sql::schema::is_internal_name(&table) {
                return Err(Error::sql("cannot create trigger on system table"));
            }
            // SQLite counts the steps once the body is parsed, after the
            // checks of the trigger's name and table, before its variables.
            if commands.len() > c.env.max_trigger_steps {
                return Err(Error::sql(format!("trigger \"{}\" contains too many steps", name.replace('"', "\"\""))));
            }
            // (Checked once the trigger's table is known, as SQLite does.)
            if crate::sql::parse::tokens(c.stmt.sql).any(|t| t.kind == sqlite3_parser::dialect::TokenType::TK_VARIABLE) {
                return Err(Error::sql("trigger cannot use variables"));
            }
            // SQLite stores `CREATE TRIGGER` and the text from the name on
            // (TEMP, IF NOT EXISTS and the schema prefix left out).
            let text = crate::sql::parse::schema_sql(c.stmt.sql, "TRIGGER");
            // (SQLite writes the row with a statement it formats: see
            // `nested_write_fits`; the stored text is not printed alone.)
            let (qn, qt) = (format!("'{}'", name.replace('\'', "''")), format!("'{}'", t.name.replace('\'', "''")));
            c.nested_write_fits(None, |db, _| format!("INSERT INTO {db}.sqlite_master VALUES('trigger',{qn},{qt},0,'{}')", text.replace('\'', "''")))?;
            c.stmt.writes = true;
            c.stmt.dbs_used |= 1 << db;
            let sc = c.b.cursor();
            c.b.add4(Opcode::OpenWrite, sc, 1, db as i32, P4::Int64(5), 0);
            let regs = c.b.regs(5);
            c.b.add4(Opcode::String8, 0, regs, 0, P4::bytes(b"trigger".to_vec()), 0);
            c.b.add4(Opcode::String8, 0, regs + 1, 0, P4::bytes(name.into_bytes()), 0);
            c.b.add4(Opcode::String8, 0, regs + 2, 0, P4::bytes(t.name.clone().into_bytes()), 0);
            c.b.add(Opcode::Integer, 0, regs + 3, 0);
            c.b.add4(Opcode::String8, 0, regs + 4, 0, P4::bytes(text.into_bytes()), 0);
            let rec = c.b.reg();
            let rid = c.b.reg();
            c.stmt.schema_rows_added += 1;
            c.b.add4(Opcode::MakeRecord, regs, 5, rec, P4::affinity("BBBDB".into()), 0);
            c.b.add(Opcode::NewRowid, sc, rid, 0);
            c.b.add(Opcode::Insert, sc, rec, rid);
            db
        }
        Stmt::DropTrigger { if_exists, trigger_name } => {
            let name = unquote(trigger_name.name.0);
            let qualified = c.qualifier_db(trigger_name.db_name.as_ref())?;
            let found = match qualified {
                Some(d) => c.env.schema.has_trigger(Some(d), &name).then_some(d),
                None => [1usize, 0].into_iter().chain(2..c.env.databases.len()).find(|&d| c.env.schema.has_trigger(Some(d), &name)),
            };
            let Some(db) = found else {
                if *if_exists {
                    // (Verifies the schema cookie: see ddl.rs.)
                    c.end_program(init, Some(false));
                    return Ok(());
                }
                let shown = match &trigger_name.db_name {
                    Some(d) => format!("{}.{name}", unquote(d.0)),
                    None => name,
                };
                return Err(Error::sql(format!("no such trigger: {shown}")));
            };
            c.stmt.writes = true;
            c.delete_trigger_rows(db, 1, &name);
            db
        }
        _ => return Err(Error::sql("not a trigger statement")),
    };
    c.b.add(Opcode::SetCookie, db as i32, crate::btree::Meta::SchemaCookie as i32, c.env.schema.cookie_of(db).wrapping_add(1) as i32);
    // P5: rows only appended (CREATE) or only deleted (DROP).
    let p5 = if matches!(stmt, Stmt::DropTrigger { .. }) { 2 } else { 1 };
    let objects = if p5 == 1 { c.schema_objects_after(db) } else { 0 };
    c.b.add4(Opcode::ParseSchema, db as i32, 0, objects, P4::None, p5);
    prog.changes_schema = true;
    c.end_program(init, Some(true));
    Ok(())
}

impl Compiler<'_> {
    /// Delete the trigger rows of database `db`'s schema table whose
    /// column `col` (1 name, 2 table name) is `name`.
    pub(in crate::sql::codegen) fn delete_trigger_rows(&mut self, db: usize, col: i32, name: &str) {
        self.delete_schema_rows_of(db, Some("trigger"), col, name);
    }

    /// Generate the triggers of `t` for `event` at `before`/after time.
    /// `old`/`new`: row registers (one per column); `old_rowid`/`new_rowid`
    /// the rowids; `changed`: columns an UPDATE assigns; `skip`: where
    /// RAISE(IGNORE) goes.
    pub fn fire_triggers(
        &mut self,
        t: &WriteTarget,
        event: Event,
        before: bool,
        old: Option<(i32, i32)>,
        new: Option<(i32, i32)>,
        changed: &[usize],
        skip: i32,
    ) -> Result<()> {
        let triggers = self.env.triggers_of(&t.table);
        for (name, sql) in triggers {
            // Inline, a trigger cannot fire itself again (recursive_triggers
            // off); trigger programs may, up to a depth checked at run time
            // (`TriggerEnter`, for both).
            if !self.env.settings.recursive_triggers && self.dml.firing.iter().any(|(n, _)| n.eq_ci(&name)) {
                continue;
            }
            // Past a few levels, a chain of triggers is compiled into
            // trigger programs (each once per statement) rather than
            // inline, so that the code stays linear in the chain's length
            // however the triggers branch.
            let as_program = self.env.settings.recursive_triggers || self.dml.firing.len() >= INLINE_TRIGGER_DEPTH;
            with_first_statement(sql.as_bytes(), |cmd, _| {
                let Some(ast::Cmd::Stmt(Stmt::CreateTrigger { time, event: ev, when_clause, commands, .. })) = cmd else {
                    return Err(Error::corrupt());
                };
                let is_before = matches!(time, None | Some(TriggerTime::Before));
                if is_before != before {
                    return Ok(());
                }
                let matches = match (ev, event) {
                    (TriggerEvent::Insert, Event::Insert) | (TriggerEvent::Delete, Event::Delete) | (TriggerEvent::Update, Event::Update) => true,
                    (TriggerEvent::UpdateOf(cols), Event::Update) => {
                        cols.iter().any(|n| t.table.column_index(&unquoted(n.0)).is_some_and(|i| changed.contains(&i)))
                    }
                    _ => false,
                };
                if !matches {
                    return Ok(());
                }
                crate::sql::parse::with_stack(|| {
                    if as_program {
                        return self.call_trigger_program(t, &name, when_clause.as_ref(), commands, old, new, skip);
                    }
                    self.run_trigger(t, &name, when_clause.as_ref(), commands, old, new, skip)
                })
            })?;
        }
        Ok(())
    }

    pub(in crate::sql::codegen) fn run_trigger(
        &mut self,
        t: &WriteTarget,
        name: &str,
        when: Option<&ast::Expr<'_>>,
        commands: &[ast::TriggerCmd<'_>],
        old: Option<(i32, i32)>,
        new: Option<(i32, i32)>,
        skip: i32,
    ) -> Result<()> {
        // SQLite's codeRowTrigger refuses to compile a trigger body nested
        // inside as many others as SQLITE_LIMIT_TRIGGER_DEPTH allows (at
        // prepare, whether or not it would fire); the frames a recursive
        // trigger opens at run time are `TriggerEnter`'s to count.
        if self.dml.firing.len() >= self.env.max_trigger_depth {
            return Err(Error::sql("triggers nested too deep"));
        }
        // The body's names mean objects of the trigger's database (a TEMP
        // trigger, also one on a table of another database, searches them
        // all).
        let temp_trigger = t.table.db == 1 || (self.env.schema.has_trigger(Some(1), name) && !self.env.schema.has_trigger(Some(t.table.db), name));
        let home = std::mem::replace(&mut self.names.home_db, (!temp_trigger).then_some(t.table.db));
        let db = if temp_trigger { 1 } else { t.table.db };
        let r = self.with_schema_text(db, |c| c.run_trigger_body(t, name, when, commands, old, new, skip));
        self.names.home_db = home;
        r
    }

    fn run_trigger_body(
        &mut self,
        t: &WriteTarget,
        name: &str,
        when: Option<&ast::Expr<'_>>,
        commands: &[ast::TriggerCmd<'_>],
        old: Option<(i32, i32)>,
        new: Option<(i32, i32)>,
        skip: i32,
    ) -> Result<()> {
        // NEW and OLD: pseudo tables whose columns are the row registers.
        let mut scope = Scope::default();
        let mut fakes = Vec::new();
        for (label, regs) in [("new", new), ("old", old)] {
            let Some((row, rowid)) = regs else { continue };
            let fake = self.b.cursor();
            let mut item = crate::sql::codegen::target::target_scope(&t.table, None, fake).items.remove(0);
            item.name = label.to_string();
            scope.items.push(item);
            for i in 0..t.table.columns.len() {
                let key = if t.table.rowid_alias == Some(i) { -1 } else { i as i64 };
                self.frame.col_map.insert((fake, key), ColumnSource::Register(row + i as i32));
            }
            self.frame.col_map.insert((fake, -1), ColumnSource::Register(rowid));
            fakes.push(fake);
        }
        let saved_scopes = std::mem::take(&mut self.names.scopes);
        let saved_aliases = std::mem::take(&mut self.names.aliases);
        // The statement's RETURNING clause is not the trigger body's.
        let saved_returning = self.dml.returning.take();
        self.names.scopes.push(scope);
        // invariant: trigger_no_self_fire
        debug_assert!(self.env.settings.recursive_triggers || !self.dml.firing.iter().any(|(n, _)| n.eq_ci(name)), "trigger {name} fires itself inline");
        self.dml.firing.push((name.to_string(), skip));
        let depth = self.dml.firing.len();
        let done = self.b.label();
        // changes() and last_insert_rowid() inside the body are its own;
        // the caller's come back when it ends (also by RAISE(IGNORE)).
        // (P1..P2: the body, whose `Once` flags each firing starts without.)
        let enter = self.b.add(Opcode::TriggerEnter, 0, 0, 0);
        let r = (|| -> Result<()> {
            // The body was parsed under the limits of its CREATE TRIGGER
            // (or of the schema's reading); SQLite's resolver checks its
            // heights against the limit in force each time it codes the
            // trigger.
            if let Some(w) = when {
                crate::sql::parse_limits::check_resolved_heights(w, self.env.max_expr_depth)?;
                self.jump_if_false(w, done)?;
            }
            for cmd in commands {
                let text = crate::sql::parse::ast_text(cmd);
                let limit = self.env.max_expr_depth;
                with_first_statement(text.as_bytes(), |c2, _| {
                    if let Some(c2) = c2 {
                        crate::sql::parse_limits::check_trigger_statement(c2, limit)?;
                    }
                    // Each statement of the body is checked as SQLite's
                    // trigger program checks it (the trigger's name the
                    // context): a SELECT, an INSERT or a DELETE as a whole,
                    // an UPDATE by its columns (`update.rs`); an IGNORE
                    // leaves a SELECT or INSERT out.
                    if let Some(ast::Cmd::Stmt(s @ (Stmt::Select(_) | Stmt::Insert { .. } | Stmt::Delete { .. }))) = c2 {
                        if self.authorize_statement(s)? == crate::sql::codegen::auth::Verdict::Ignore {
                            return Ok(());
                        }
                    }
                    match c2 {
                        Some(ast::Cmd::Stmt(Stmt::Select(sel))) => self.compile_select(sel, crate::sql::model::query::Dest::Discard).map(|_| ()),
                        Some(ast::Cmd::Stmt(s)) => {
                            let mut dummy = Program::default();
                            match s {
                                Stmt::Insert { .. } => crate::sql::codegen::dml::insert::compile_insert(self, s, &mut dummy),
                                Stmt::Update { .. } => crate::sql::codegen::dml::update::compile_update(self, s, &mut dummy),
                                Stmt::Delete { .. } => crate::sql::codegen::dml::delete::compile_delete(self, s, &mut dummy),
                                _ => Err(Error::sql("unsupported statement in trigger")),
                            }
                        }
                        _ => Err(Error::sql("malformed trigger")),
                    }
                })?;
                if !matches!(cmd, ast::TriggerCmd::Select(_)) {
                    self.b.add(Opcode::ResetCount, 0, 0, 0);
                }
            }
            Ok(())
        })();
        self.b.bind(done);
        let leave = self.b.add(Opcode::TriggerLeave, 0, 0, 0);
        self.b.insns[enter].p1 = enter as i32 + 1;
        self.b.insns[enter].p2 = leave as i32;
        // invariant: trigger_firing_depth
        debug_assert_eq!(self.dml.firing.len(), depth, "a trigger body left the firing list changed");
        self.dml.firing.pop();
        self.names.scopes = saved_scopes;
        self.names.aliases = saved_aliases;
        self.dml.returning = saved_returning;
        for f in fakes {
            self.frame.col_map.retain(|k, _| k.0 != f);
        }
        r
    }

    /// RAISE(...) inside a trigger.
    pub fn raise(&mut self, kind: ResolveType, msg: Option<&ast::Expr<'_>>) -> Result<()> {
        let Some((_, skip)) = self.dml.firing.last().cloned() else {
            return Err(Error::sql("RAISE() may only be used within a trigger-program"));
        };
        if kind == ResolveType::Ignore {
            self.b.add(Opcode::TriggerLeave, 0, 0, 0);
            self.b.add(Opcode::Goto, 0, skip, 0);
            return Ok(());
        }
        let action = match kind {
            ResolveType::Rollback => crate::vdbe::exec::txn::ON_ERROR_ROLLBACK as i32,
            ResolveType::Fail => crate::vdbe::exec::txn::ON_ERROR_FAIL as i32,
            _ => 0,
        };
        let text = match msg {
            Some(ast::Expr::Literal(ast::Literal::String(s))) => unquote(s),
            // Any expression is the message since 3.47: computed when the
            // RAISE runs, `Halt` reads it from P3.
            Some(e) => {
                let reg = self.b.reg();
                self.expr(e, reg)?;
                self.b.add(Opcode::Halt, SQLITE_CONSTRAINT_TRIGGER, action, reg);
                return Ok(());
            }
            None => String::new(),
        };
        self.b.add4(Opcode::Halt, SQLITE_CONSTRAINT_TRIGGER, action, 0, P4::text(text), 0);
        Ok(())
    }
}
