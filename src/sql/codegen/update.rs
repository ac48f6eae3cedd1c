//! UPDATE: the rowids of matching rows are collected first (so changed
//! rows are never visited twice), then each row is re-read, its new
//! values computed, constraints checked, old index entries removed, and
//! the row and new index entries written.

use super::dml_common::OnConflict;
use super::select::Dest;
use super::Compiler;
use crate::error::{Error, Result};
use crate::sql::parse::unquote;
use crate::sql::plan::terms::conjuncts;
use crate::sql::resolve::{Scope, ScopeColumn, ScopeItem};
use crate::vdbe::exec::write::OPFLAG_NCHANGE;
use crate::vdbe::program::{Opcode, Program, P4};
use sqlite3_parser::ast::Stmt;

/// The scope item of a table being written.
pub fn target_scope(table: &crate::sql::schema::Table, alias: Option<String>, cursor: i32) -> Scope {
    Scope {
        items: vec![ScopeItem {
            name: alias.unwrap_or_else(|| table.name.clone()),
            table: table.name.clone(),
            cursor,
            columns: table
                .columns
                .iter()
                .map(|c| ScopeColumn { name: c.name.clone(), affinity: c.affinity, collation: c.collation.clone(), decltype: c.decltype.clone(), hidden: false, argument: false })
                .collect(),
            rowid_alias: table.rowid_alias,
            has_rowid: true,
        }],
        correlated: false,
    }
}

/// Collect the rowids of `t`'s rows matching `where_clause` into a new
/// temporary table; returns its cursor.
pub fn collect_rowids(c: &mut Compiler<'_>, table: &crate::sql::schema::Table, alias: Option<String>, where_clause: Option<&sqlite3_parser::ast::Expr<'_>>) -> Result<i32> {
    let tmp = c.b.cursor();
    c.b.add(Opcode::OpenEphemeral, tmp, 1, 0);
    c.internal_rowid_read = true;
    let sql = match where_clause {
        Some(w) => format!("SELECT rowid FROM \"{}\" AS \"{}\" WHERE {w}", table.name.replace('"', "\"\""), alias.clone().unwrap_or_else(|| table.name.clone()).replace('"', "\"\"")),
        None => format!("SELECT rowid FROM \"{}\"", table.name.replace('"', "\"\"")),
    };
    let _ = conjuncts;
    let collected = crate::sql::parse::with_first_statement(sql.as_bytes(), |cmd, _| match cmd {
        Some(sqlite3_parser::ast::Cmd::Stmt(Stmt::Select(sel))) => c.compile_select(sel, Dest::EphemTable(tmp)).map(|_| ()),
        _ => Err(Error::sql("malformed WHERE")),
    });
    c.internal_rowid_read = false;
    collected?;
    Ok(tmp)
}

/// Compile an UPDATE.
pub fn compile_update(c: &mut Compiler<'_>, stmt: &Stmt<'_>, prog: &mut Program) -> Result<()> {
    let Stmt::Update { with, or_conflict, tbl_name, sets, from, where_clause, returning, order_by, limit, .. } = stmt else {
        return Err(Error::sql("not an UPDATE"));
    };
    if from.is_some() || order_by.is_some() || limit.is_some() || with.is_some() {
        return Err(Error::unsupported("UPDATE with FROM, ORDER BY, LIMIT or WITH"));
    }
    if let Some(view) = c.schema.table(&unquote(tbl_name.name.0)).filter(|t| t.view_select.is_some()).cloned() {
        if super::instead::has_instead_trigger(c, &view, stmt) {
            return super::instead::compile_instead(c, stmt, view, prog);
        }
    }
    let table = match c.deletable_without_rowid(&unquote(tbl_name.name.0), returning.is_some()) {
        Some(t) => t,
        None => c.writable_table(&unquote(tbl_name.name.0))?,
    };
    let alias = tbl_name.alias.as_ref().map(|a| unquote(a.0));
    let oc = OnConflict::from_ast(*or_conflict);
    let mut assignments = Vec::new();
    for s in sets.iter() {
        if s.col_names.len() != 1 {
            return Err(Error::unsupported("row-value assignments"));
        }
        let n = unquote(s.col_names[0].0);
        let i = match table.column_index(&n) {
            Some(i) => i,
            None if table.without_rowid.is_none() && ["rowid", "oid", "_rowid_"].iter().any(|r| r.eq_ignore_ascii_case(&n)) => table.rowid_alias.unwrap_or(usize::MAX),
            None => return Err(Error::sql(format!("no such column: {n}"))),
        };
        super::generated::refuse_target(&table, i, "UPDATE")?;
        if c.authorizer.is_some() {
            let col = table.columns.get(i).map_or_else(|| "ROWID".to_string(), |col| col.name.clone());
            let db = if table.db == 1 { "temp" } else { "main" };
            if c.authorize(super::auth::action::UPDATE, Some(&table.name), Some(&col), Some(db))? == super::auth::Verdict::Ignore {
                // SQLite leaves a column the authorizer ignores unchanged.
                continue;
            }
        }
        assignments.push((i, &s.expr));
    }
    if table.without_rowid.is_some() {
        let init = c.begin_program();
        c.update_without_rowid(table, alias, where_clause.as_ref(), &assignments, oc)?;
        c.end_program(init, Some(true));
        prog.counts_changes = true;
        return Ok(());
    }
    let init = c.begin_program();
    let t = c.open_write_target(table.clone())?;
    c.setup_returning(*returning, &table, prog)?;
    let tmp = collect_rowids(c, &table, alias.clone(), where_clause.as_ref())?;
    c.scopes.push(target_scope(&table, alias, t.cursor));
    let end = c.b.label();
    c.b.add(Opcode::Rewind, tmp, end, 0);
    let top = c.b.here();
    let next = c.b.label();
    let rid = c.b.reg();
    c.b.add(Opcode::Column, tmp, 0, rid);
    c.b.add(Opcode::NotExists, t.cursor, next, rid);
    update_row(c, &t, rid, &assignments, oc, next)?;
    c.emit_returning(&t)?;
    c.b.bind(next);
    c.b.add(Opcode::Next, tmp, top as i32, 0);
    c.b.bind(end);
    c.scopes.pop();
    c.finish_returning();
    c.end_program(init, Some(true));
    prog.counts_changes = true;
    Ok(())
}

/// Update the row of `t` under its cursor (rowid in `rid`): new values
/// from `assignments` (column, expression; `usize::MAX` is the rowid),
/// constraint checks, index maintenance, the write. `next` is where
/// OR IGNORE goes.
pub fn update_row(
    c: &mut Compiler<'_>,
    t: &super::dml_common::WriteTarget,
    rid: i32,
    assignments: &[(usize, &sqlite3_parser::ast::Expr<'_>)],
    oc: OnConflict,
    next: i32,
) -> Result<()> {
    let old = c.read_row(t);
    let table = &t.table;
    let n = table.columns.len();
    let new = c.b.regs(n);
    c.b.add(Opcode::Copy, old, new, n as i32 - 1);
    let new_rowid = c.b.reg();
    c.b.add(Opcode::SCopy, rid, new_rowid, 0);
    let mut rowid_changes = false;
    for (i, e) in assignments {
        if *i == usize::MAX {
            c.expr(e, new_rowid)?;
            rowid_changes = true;
        } else {
            c.expr(e, new + *i as i32)?;
            if table.rowid_alias == Some(*i) {
                c.b.add(Opcode::SCopy, new + *i as i32, new_rowid, 0);
                rowid_changes = true;
            }
        }
    }
    if rowid_changes {
        let have = c.b.label();
        c.b.add(Opcode::NotNull, new_rowid, have, 0);
        c.b.add(Opcode::NewRowid, t.cursor, new_rowid, 0);
        c.b.bind(have);
        c.b.add(Opcode::MustBeInt, new_rowid, 0, 0);
        if let Some(ipk) = table.rowid_alias {
            c.b.add(Opcode::SCopy, new_rowid, new + ipk as i32, 0);
        }
    }
    let changed: Vec<usize> = assignments.iter().map(|(i, _)| *i).collect();
    c.fire_triggers(t, super::trigger::Event::Update, true, Some((old, rid)), Some((new, new_rowid)), &changed, next)?;
    c.compute_generated(t, new, new_rowid)?;
    c.check_not_null(t, new, oc, next)?;
    c.b.add4(Opcode::Affinity, new, n as i32, 0, P4::Affinity(table.affinity_string()), 0);
    c.check_strict(t, new);
    c.check_checks(t, new, new_rowid, oc, next)?;
    // Indexes whose key cannot change keep their entries: no uniqueness
    // check, no delete and re-insert (as SQLite does). A key changes with
    // the rowid, with an assigned column, with a STORED generated column
    // (any may depend on an assigned one), and a partial index's WHERE may
    // read any column. With triggers on the table every index is
    // rewritten, as before (a BEFORE trigger may itself change the row).
    let has_generated = table.columns.iter().any(|col| col.generated.is_some());
    let all_indexes = rowid_changes || !c.schema.triggers_of(&table.name).is_empty();
    let key_changes = |idx: &crate::sql::schema::Index| {
        all_indexes
            || idx.where_sql.is_some()
            || idx.columns.iter().any(|ic| changed.contains(&ic.column) || (has_generated && !changed.is_empty() && table.columns[ic.column].generated.is_some()))
    };
    let indexes: Vec<(crate::sql::schema::Index, i32)> = t.indexes.iter().filter(|(idx, _)| key_changes(idx)).cloned().collect();
    c.check_unique_of(t, &indexes, new, new_rowid, Some(rid), rowid_changes, oc, next)?;
    let fk = c.fk_involved(table);
    if fk {
        c.fk_check_child(table, old, -1, Some(&changed))?;
        c.fk_check_parent(table, old, rid, 1, Some(&changed))?;
    }
    // Remove the old index entries and, if the rowid moves, the old row.
    for (idx, cur) in indexes.clone() {
        let guard = c.partial_guard(t, &idx, old, rid)?;
        let k = c.index_key(&idx, old, rid);
        c.b.add(Opcode::IdxDelete, cur, k, idx.columns.len() as i32 + 1);
        if let Some(g) = guard {
            c.b.bind(g);
        }
    }
    if rowid_changes {
        let same = c.b.label();
        c.b.add4(Opcode::Eq, rid, same, new_rowid, P4::None, 0);
        let gone = c.b.label();
        c.b.add(Opcode::NotExists, t.cursor, gone, rid);
        c.b.add4(Opcode::Delete, t.cursor, 0, 0, P4::Table(table.name.clone()), 0);
        c.b.bind(gone);
        c.b.bind(same);
    }
    let flags = if c.firing.is_empty() {
        OPFLAG_NCHANGE | crate::vdbe::exec::write::OPFLAG_ISUPDATE
    } else {
        crate::vdbe::exec::write::OPFLAG_ISUPDATE | crate::vdbe::exec::write::OPFLAG_HOOK
    };
    c.write_row_with(t, &indexes, new, new_rowid, flags)?;
    if fk {
        c.fk_check_child(table, new, 1, Some(&changed))?;
        c.fk_check_parent(table, new, new_rowid, -1, Some(&changed))?;
        c.fk_actions(t, (old, rid), Some((new, new_rowid)), Some(&changed))?;
    }
    c.fire_triggers(t, super::trigger::Event::Update, false, Some((old, rid)), Some((new, new_rowid)), &changed, next)?;
    Ok(())
}
