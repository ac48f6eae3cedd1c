//! Triggers: CREATE/DROP TRIGGER, and firing row triggers (BEFORE/AFTER
//! INSERT, UPDATE [OF ...], DELETE, with WHEN) by generating their
//! statements inline at each changed row, with `NEW.x`/`OLD.x` read from
//! the row's registers. `RAISE(IGNORE)` skips the row; the other RAISE
//! forms fail the statement with the given message.
//!
//! Invariants: a trigger never fires itself again while it runs (SQLite's
//! default `recursive_triggers = OFF`); changes made by trigger statements
//! do not count in `changes()`. INSTEAD OF triggers (on views only) are
//! fired by `instead.rs`; TEMP triggers are reported as not supported.

use super::dml_common::WriteTarget;
use super::{ColumnSource, Compiler};
use crate::error::{Error, Result, SQLITE_CONSTRAINT_TRIGGER};
use crate::sql::parse::{unquote, with_first_statement};
use crate::sql::resolve::Scope;
use crate::vdbe::program::{Opcode, Program, P4};
use sqlite3_parser::ast::{self, ResolveType, Stmt, TriggerEvent, TriggerTime};

/// Which change fires a trigger.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// INSERT.
    Insert,
    /// UPDATE (of the given columns).
    Update,
    /// DELETE.
    Delete,
}

/// Compile CREATE TRIGGER / DROP TRIGGER.
pub fn compile_trigger_ddl(c: &mut Compiler<'_>, stmt: &Stmt<'_>, prog: &mut Program) -> Result<()> {
    let init = c.begin_program();
    match stmt {
        Stmt::CreateTrigger { temporary, if_not_exists, trigger_name, time, tbl_name, .. } => {
            if *temporary {
                return Err(Error::unsupported("TEMP triggers"));
            }
            let name = unquote(trigger_name.name.0);
            let table = unquote(tbl_name.name.0);
            if c.schema.has_trigger(&name) {
                if *if_not_exists {
                    c.end_program(init, None);
                    return Ok(());
                }
                return Err(Error::sql(format!("trigger {name} already exists")));
            }
            let Some(t) = c.schema.table(&table).cloned() else {
                return Err(Error::sql(format!("no such table: main.{table}")));
            };
            let instead = matches!(time, Some(TriggerTime::InsteadOf));
            if t.view_select.is_some() && !instead {
                let when = if matches!(time, Some(TriggerTime::After)) { "AFTER" } else { "BEFORE" };
                return Err(Error::sql(format!("cannot create {when} trigger on view: {table}")));
            }
            if t.view_select.is_none() && instead {
                return Err(Error::sql(format!("cannot create INSTEAD OF trigger on table: {table}")));
            }
            if table.len() >= 7 && table[..7].eq_ignore_ascii_case("sqlite_") {
                return Err(Error::sql("cannot create trigger on system table"));
            }
            let end = c.sql.iter().rposition(|b| !b.is_ascii_whitespace() && *b != b';').map_or(0, |i| i + 1);
            let text = String::from_utf8_lossy(&c.sql[..end]).trim_start().to_string();
            c.writes = true;
            let sc = c.b.cursor();
            c.b.add4(Opcode::OpenWrite, sc, 1, 0, P4::Int64(5), 0);
            let regs = c.b.regs(5);
            c.b.add4(Opcode::String8, 0, regs, 0, P4::Bytes(b"trigger".to_vec()), 0);
            c.b.add4(Opcode::String8, 0, regs + 1, 0, P4::Bytes(name.into_bytes()), 0);
            c.b.add4(Opcode::String8, 0, regs + 2, 0, P4::Bytes(t.name.clone().into_bytes()), 0);
            c.b.add(Opcode::Integer, 0, regs + 3, 0);
            c.b.add4(Opcode::String8, 0, regs + 4, 0, P4::Bytes(text.into_bytes()), 0);
            let rec = c.b.reg();
            let rid = c.b.reg();
            c.b.add4(Opcode::MakeRecord, regs, 5, rec, P4::Affinity("BBBDB".into()), 0);
            c.b.add(Opcode::NewRowid, sc, rid, 0);
            c.b.add(Opcode::Insert, sc, rec, rid);
        }
        Stmt::DropTrigger { if_exists, trigger_name } => {
            let name = unquote(trigger_name.name.0);
            if !c.schema.has_trigger(&name) {
                if *if_exists {
                    // (Verifies the schema cookie: see ddl.rs.)
                    c.end_program(init, Some(false));
                    return Ok(());
                }
                return Err(Error::sql(format!("no such trigger: {name}")));
            }
            c.writes = true;
            let sc = c.b.cursor();
            c.b.add4(Opcode::OpenWrite, sc, 1, 0, P4::Int64(5), 0);
            let end = c.b.label();
            c.b.add(Opcode::Rewind, sc, end, 0);
            let top = c.b.here();
            let next = c.b.label();
            let (ty, nm, want_ty, want_nm) = (c.b.reg(), c.b.reg(), c.b.reg(), c.b.reg());
            c.b.add(Opcode::Column, sc, 0, ty);
            c.b.add4(Opcode::String8, 0, want_ty, 0, P4::Bytes(b"trigger".to_vec()), 0);
            c.b.add(Opcode::Ne, want_ty, next, ty);
            c.b.add(Opcode::Column, sc, 1, nm);
            c.b.add4(Opcode::String8, 0, want_nm, 0, P4::Bytes(name.into_bytes()), 0);
            c.b.add4(Opcode::Ne, want_nm, next, nm, P4::Coll(crate::value::collation::Collation::nocase()), 0);
            c.b.add(Opcode::Delete, sc, 0, 0);
            c.b.bind(next);
            c.b.add(Opcode::Next, sc, top as i32, 0);
            c.b.bind(end);
        }
        _ => return Err(Error::sql("not a trigger statement")),
    }
    c.b.add(Opcode::SetCookie, 0, crate::btree::Meta::SchemaCookie as i32, c.schema.cookie.wrapping_add(1) as i32);
    c.b.add(Opcode::ParseSchema, 0, 0, 0);
    prog.changes_schema = true;
    c.end_program(init, Some(true));
    Ok(())
}

impl Compiler<'_> {
    /// Generate the triggers of `t` for `event` at `before`/after time.
    /// `old`/`new`: row registers (one per column); `old_rowid`/`new_rowid`
    /// the rowids; `changed`: columns an UPDATE assigns; `skip`: where
    /// RAISE(IGNORE) goes.
    #[allow(clippy::too_many_arguments)]
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
        let triggers = self.schema.triggers_of(&t.table.name);
        for (name, sql) in triggers {
            if self.firing.iter().any(|(n, _)| n.eq_ignore_ascii_case(&name)) || self.firing.len() > 16 {
                continue;
            }
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
                    (TriggerEvent::UpdateOf(cols), Event::Update) => cols.iter().any(|n| {
                        t.table.column_index(&unquote(n.0)).is_some_and(|i| changed.contains(&i))
                    }),
                    _ => false,
                };
                if !matches {
                    return Ok(());
                }
                self.run_trigger(t, &name, when_clause.as_ref(), commands, old, new, skip)
            })?;
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn run_trigger(
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
            let mut item = super::update::target_scope(&t.table, None, fake).items.remove(0);
            item.name = label.to_string();
            scope.items.push(item);
            for i in 0..t.table.columns.len() {
                let key = if t.table.rowid_alias == Some(i) { -1 } else { i as i64 };
                self.col_map.insert((fake, key), ColumnSource::Register(row + i as i32));
            }
            self.col_map.insert((fake, -1), ColumnSource::Register(rowid));
            fakes.push(fake);
        }
        let saved_scopes = std::mem::take(&mut self.scopes);
        let saved_aliases = std::mem::take(&mut self.aliases);
        // The statement's RETURNING clause is not the trigger body's.
        let saved_returning = self.returning.take();
        self.scopes.push(scope);
        self.firing.push((name.to_string(), skip));
        let done = self.b.label();
        let r = (|| -> Result<()> {
            if let Some(w) = when {
                self.jump_if_false(w, done)?;
            }
            for cmd in commands {
                let text = crate::sql::parse::ast_text(cmd);
                with_first_statement(text.as_bytes(), |c2, _| match c2 {
                    Some(ast::Cmd::Stmt(Stmt::Select(sel))) => {
                        self.compile_select(sel, super::select::Dest::Discard).map(|_| ())
                    }
                    Some(ast::Cmd::Stmt(s)) => {
                        let mut dummy = Program::default();
                        match s {
                            Stmt::Insert { .. } => super::insert::compile_insert(self, s, &mut dummy),
                            Stmt::Update { .. } => super::update::compile_update(self, s, &mut dummy),
                            Stmt::Delete { .. } => super::delete::compile_delete(self, s, &mut dummy),
                            _ => Err(Error::sql("unsupported statement in trigger")),
                        }
                    }
                    _ => Err(Error::sql("malformed trigger")),
                })?;
            }
            Ok(())
        })();
        self.b.bind(done);
        self.firing.pop();
        self.scopes = saved_scopes;
        self.aliases = saved_aliases;
        self.returning = saved_returning;
        for f in fakes {
            self.col_map.retain(|k, _| k.0 != f);
        }
        r
    }

    /// RAISE(...) inside a trigger.
    pub fn raise(&mut self, kind: ResolveType, msg: Option<&ast::Expr<'_>>) -> Result<()> {
        let Some((_, skip)) = self.firing.last().cloned() else {
            return Err(Error::sql("RAISE() may only be used within a trigger-program"));
        };
        if kind == ResolveType::Ignore {
            self.b.add(Opcode::Goto, 0, skip, 0);
            return Ok(());
        }
        let text = match msg {
            Some(ast::Expr::Literal(ast::Literal::String(s))) => unquote(s),
            Some(e) => e.to_string(),
            None => String::new(),
        };
        let action = match kind {
            ResolveType::Rollback => crate::vdbe::exec::txn::ON_ERROR_ROLLBACK as i32,
            ResolveType::Fail => crate::vdbe::exec::txn::ON_ERROR_FAIL as i32,
            _ => 0,
        };
        self.b.add4(Opcode::Halt, SQLITE_CONSTRAINT_TRIGGER, action, 0, P4::Text(text), 0);
        Ok(())
    }
}
