//! DELETE: without WHERE every tree of the table is cleared at once (the
//! rows still count as changes); with WHERE, where nothing can observe
//! the table half-way, each matching row is deleted as the WHERE loop
//! finds it (`onepass.rs`); otherwise the matching rowids (the keys of a
//! WITHOUT ROWID table) are collected first, then each row and its index
//! entries are removed.
//! A WITH clause is visible to the whole statement.

use crate::error::{Error, Result};
use crate::sql::codegen::Compiler;
use crate::sql::parse::{unquote, unquoted};
use crate::vdbe::exec::write::OPFLAG_NCHANGE;
use crate::vdbe::program::{Opcode, Program};
use sqlite3_parser::ast::Stmt;

/// Compile a DELETE (its WITH clause visible throughout).
pub fn compile_delete(c: &mut Compiler<'_>, stmt: &Stmt<'_>, prog: &mut Program) -> Result<()> {
    let Stmt::Delete { with, order_by, limit, .. } = stmt else {
        return Err(Error::sql("not a DELETE"));
    };
    if order_by.is_some() || limit.is_some() {
        // (ORDER BY and LIMIT: the statement SQLite rewrites it to.)
        if let Some(sql) = super::limit_where::rewrite(c, stmt)? {
            return crate::sql::parse::with_first_statement(sql.as_bytes(), |cmd, _| match cmd {
                Some(sqlite3_parser::ast::Cmd::Stmt(s @ Stmt::Delete { order_by: None, limit: None, .. })) => compile_delete(c, s, prog),
                _ => Err(Error::sql("malformed DELETE")),
            });
        }
    }
    let pushed = c.push_with(with.as_ref())?;
    let r = compile_delete_body(c, stmt, prog);
    c.stmt.auth_ahead.end_compile_of(stmt as *const Stmt<'_> as usize);
    if pushed {
        c.frame.ctes.pop();
    }
    r
}

fn compile_delete_body(c: &mut Compiler<'_>, stmt: &Stmt<'_>, prog: &mut Program) -> Result<()> {
    let Stmt::Delete { with, tbl_name, indexed, where_clause, returning, .. } = stmt else {
        return Err(Error::sql("not a DELETE"));
    };
    let target_db = c.target_db(tbl_name)?;
    if let Some(view) = c.env.schema.table_in(target_db, &unquoted(tbl_name.name.0)).filter(|t| t.view_select.is_some()).cloned() {
        if crate::sql::codegen::dml::instead::has_instead_trigger(c, &view, stmt) {
            return crate::sql::codegen::dml::instead::compile_instead(c, stmt, view, prog);
        }
    }
    if let Some((inst, decl)) = c.vtab_target(tbl_name)? {
        return crate::sql::codegen::dml::vtab_dml::delete(c, stmt, prog, inst, decl);
    }
    let alias = tbl_name.alias.as_ref().map(|a| unquote(a.0));
    let table = c.writable_table(target_db, &unquoted(tbl_name.name.0))?;
    // (SQLite resolves the WHERE clause before any code: its names are
    // asked about then, their answers kept for the code, `AuthAhead`.)
    if let (Some(w), true) = (where_clause, c.stmt.authorizer.is_some()) {
        let key = stmt as *const Stmt<'_> as usize;
        c.ask_where_ahead(&table, alias.clone(), w, key)?;
        c.stmt.auth_ahead.begin_compile(key);
    }
    let init = c.begin_program();
    if let Some(sqlite3_parser::ast::Indexed::IndexedBy(ix)) = indexed {
        c.check_indexed_by(&table, &unquote(ix.0))?;
        c.check_indexed_by_plan(&table, &unquote(ix.0), alias.as_deref().unwrap_or(&table.name), where_clause.as_ref())?;
    }
    c.stmt.writes = true;
    match where_clause {
        None if returning.is_none() && c.env.triggers_of(&table).is_empty() && !c.fk_involved(&table) && !c.env.preupdate_hooked => {
            for idx in c.env.schema.indexes_of(&table) {
                c.b.add(Opcode::Clear, idx.root as i32, idx.db as i32, 0);
            }
            c.stmt.dbs_used |= 1 << table.db;
            // (p3: the rows count as changes, 2 when a trigger made them.)
            let counted = if c.dml.firing.is_empty() { 1 } else { 2 };
            c.b.add4(Opcode::Clear, table.root as i32, table.db as i32, counted, c.written(&table), 0);
        }
        w if c.onepass_allowed(&table, with.is_some(), w.as_ref(), returning.is_some(), crate::sql::codegen::target::OnConflict::Default, None) => {
            let mut t = c.open_write_target(table.clone())?;
            let loop_start = c.b.here();
            let (co, rid) = c.onepass_rowids(&table, alias, w.as_ref())?;
            c.onepass_share_cursors(&mut t, loop_start, true);
            let end = c.b.label();
            let top = c.b.here();
            c.b.add(Opcode::Yield, co, end, 0);
            c.seek_target(&t, rid, top as i32);
            let flags = if c.dml.firing.is_empty() { OPFLAG_NCHANGE } else { crate::vdbe::exec::write::OPFLAG_HOOK };
            c.delete_current_row(&t, flags)?;
            c.b.add(Opcode::Goto, 0, top as i32, 0);
            c.b.bind(end);
            prog.no_statement_savepoint = c.onepass_cannot_abort();
        }
        w => {
            let t = c.open_write_target(table.clone())?;
            c.setup_returning(*returning, &table, prog)?;
            let (tmp, width) = c.collect_targets(&table, alias, w.as_ref())?;
            let end = c.b.label();
            c.b.add(Opcode::Rewind, tmp, end, 0);
            let top = c.b.here();
            let next = c.b.label();
            let (key, rid) = c.load_target(&table, tmp, width);
            c.seek_target(&t, key, next);
            let has_triggers = !c.env.triggers_of(&table).is_empty();
            let old = if has_triggers { Some(c.read_row(&t)?) } else { None };
            if let Some(o) = old {
                c.fire_triggers(&t, crate::sql::codegen::target::Event::Delete, true, Some((o, rid)), None, &[], next)?;
                // A BEFORE trigger may have moved the cursor or removed the row.
                c.seek_target(&t, key, next);
            }
            c.emit_returning(&t)?;
            let flags = if c.dml.firing.is_empty() { OPFLAG_NCHANGE } else { crate::vdbe::exec::write::OPFLAG_HOOK };
            c.delete_current_row(&t, flags)?;
            if let Some(o) = old {
                c.fire_triggers(&t, crate::sql::codegen::target::Event::Delete, false, Some((o, rid)), None, &[], next)?;
            }
            c.b.bind(next);
            c.b.add(Opcode::Next, tmp, top as i32, 0);
            c.b.bind(end);
            c.finish_returning();
        }
    }
    c.emit_change_count_row(prog, "rows deleted");
    c.end_program(init, Some(true));
    prog.counts_changes = true;
    Ok(())
}
