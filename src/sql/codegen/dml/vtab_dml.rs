//! INSERT, UPDATE and DELETE on a virtual table: every row goes through the
//! module's xUpdate (`VUpdate`), after `VBegin` has started the table's
//! transaction.
//!
//! An INSERT's VALUES or SELECT runs as a coroutine whose rows go to
//! xUpdate as they are made, as SQLite's do, unless it reads the table
//! written (SQLite's `readsTable`: a `VOpen` of it in the program). Then,
//! and for UPDATE and DELETE, the rows are collected first into a
//! temporary table (INSERT: the rows; UPDATE: old rowid, new rowid and
//! every column's new value, then the subtypes of the columns it leaves;
//! DELETE: the rowids, sorted and each once, as SQLite's RowSet), then
//! handed to xUpdate one by one, so a module never sees a write while one
//! of its own scans of the statement is open (SQLite does the same where
//! it cannot update in one pass).
//! Arguments are SQLite's: argv[0] the old rowid (NULL for INSERT), argv[1]
//! the new rowid (NULL when the module chooses), then the columns in
//! declaration order, hidden ones included; a DELETE passes the old rowid
//! alone.
//!
//! A column an UPDATE does not assign is read with `sqlite3_vtab_nochange`
//! true (`VColumn` P5 1, through the internal names of
//! `resolve::UNCHANGED_VALUE`); where the module leaves it out, the
//! register's `NOCHANGE_SUBTYPE` is stored beside the row and put back
//! before `VUpdate`, so xUpdate sees `sqlite3_value_nochange` true, as
//! SQLite's record keeps such a value (serial type 10).
//!
//! As in SQLite 3.54.1: UPDATE ... FROM joins the target (outermost) with
//! the FROM items and calls xUpdate once per joined row, so a target row
//! matching several rows is updated several times; INSERT ... RETURNING
//! returns the values handed to xUpdate (the rowid -1 where the module
//! chooses it), once every row is written; UPDATE and DELETE RETURNING and
//! UPSERT are refused with SQLite's messages.

use crate::error::{Error, Result};
use crate::sql::codegen::target::OnConflict;
use crate::sql::codegen::Compiler;
use crate::sql::model::query::Dest;
use crate::sql::parse::{ast_text, unquote, unquoted, with_first_statement};
use crate::sql::resolve::{UNCHANGED_FLAG, UNCHANGED_VALUE};
use crate::util::ascii::AsciiLower;
use crate::vdbe::program::{Opcode, Program, P4};
use crate::vdbe::vtab::VtabInstance;
use sqlite3_parser::ast::{self, InsertBody, Stmt};
use std::sync::Arc;

impl Compiler<'_> {
    /// The writable virtual table a DML statement targets, if it targets
    /// one ("table t may not be modified" for a read-only one).
    pub(in crate::sql::codegen) fn vtab_target(&self, q: &ast::QualifiedName<'_>) -> Result<Option<(Arc<VtabInstance>, crate::sql::vtab_decl::DeclaredTable)>> {
        let db = self.target_db(q)?;
        let name = unquote(q.name.0);
        let found = match self.env.schema.table_in(db, &name) {
            Some(t) => self.connected_vtab(t)?,
            None if db.is_none_or(|d| d == 0) => self.eponymous_vtab(&name)?,
            None => None,
        };
        match found {
            Some((inst, _)) if !inst.table.writable() => Err(Error::sql(format!("table {} may not be modified", inst.name))),
            Some((inst, decl)) => {
                self.check_vtab_write_usable(&inst.name, &inst.config)?;
                Ok(Some((inst, decl)))
            }
            None => Ok(None),
        }
    }

    /// The VM's conflict mode for `oc` (`sqlite3_vtab_on_conflict`'s).
    fn vtab_conflict(oc: OnConflict) -> u16 {
        (match oc {
            OnConflict::Rollback => crate::vdbe::vtab::ON_CONFLICT_ROLLBACK,
            OnConflict::Ignore => crate::vdbe::vtab::ON_CONFLICT_IGNORE,
            OnConflict::Fail => crate::vdbe::vtab::ON_CONFLICT_FAIL,
            OnConflict::Replace => crate::vdbe::vtab::ON_CONFLICT_REPLACE,
            OnConflict::Default | OnConflict::Abort => crate::vdbe::vtab::ON_CONFLICT_ABORT,
        }) as u16
    }

    /// Compile the select `sql` (or the AST `sel`) into temporary table
    /// `cur` (an index when `keys`: sorted, without duplicates); returns
    /// its width.
    fn vtab_collect(&mut self, cur: i32, sel: Option<&ast::Select<'_>>, sql: &str, keys: bool) -> Result<usize> {
        // (The scopes around stay visible: in a trigger body they hold
        // NEW and OLD.)
        let dest = if keys { Dest::EphemIndex(cur) } else { Dest::EphemTable(cur) };
        let info = match sel {
            Some(sel) => self.compile_select(sel, dest),
            None => with_first_statement(sql.as_bytes(), |cmd, _| match cmd {
                Some(ast::Cmd::Stmt(Stmt::Select(sel))) => self.compile_select(sel, dest),
                _ => Err(Error::sql("malformed statement")),
            }),
        };
        Ok(info?.n_columns)
    }

    /// The loop handing each collected row to `VUpdate`: `args(row)`
    /// fills the arguments from the temporary table `cur`.
    fn vtab_update_loop(
        &mut self,
        inst: &Arc<VtabInstance>,
        cur: i32,
        n_args: usize,
        oc: OnConflict,
        insert: bool,
        args: impl FnMut(&mut Self, i32) -> Result<()>,
        after: impl FnMut(&mut Self, i32) -> Result<()>,
    ) -> Result<()> {
        let end = self.b.label();
        self.b.add(Opcode::Rewind, cur, end, 0);
        let top = self.b.here();
        self.vtab_update_row(inst, n_args, oc, insert, args, after)?;
        self.b.add(Opcode::Next, cur, top as i32, 0);
        self.b.bind(end);
        Ok(())
    }

    /// One `VUpdate` with `n_args` arguments `args(first register)`
    /// fills; `after` runs once it is done (RETURNING).
    fn vtab_update_row(
        &mut self,
        inst: &Arc<VtabInstance>,
        n_args: usize,
        oc: OnConflict,
        insert: bool,
        mut args: impl FnMut(&mut Self, i32) -> Result<()>,
        mut after: impl FnMut(&mut Self, i32) -> Result<()>,
    ) -> Result<()> {
        let base = self.b.regs(n_args);
        args(self, base)?;
        self.b.add4(Opcode::VUpdate, insert as i32, n_args as i32, base, P4::VTab(inst.clone()), Self::vtab_conflict(oc));
        after(self, base)
    }

    /// Whether the program so far opens `inst` (SQLite's `readsTable` for
    /// a virtual table: a `VOpen` of the same table).
    fn program_reads_vtab(&self, inst: &Arc<VtabInstance>) -> bool {
        self.b.insns.iter().any(|i| i.opcode == Opcode::VOpen && matches!(&i.p4, P4::VTab(t) if Arc::ptr_eq(t, inst)))
    }

    /// The program's start and `VBegin`; `multi`: the statement may write
    /// several rows, so inside a transaction it runs in a statement
    /// savepoint of the virtual tables (SQLite's statement journal).
    fn vtab_dml_start(&mut self, inst: &Arc<VtabInstance>, multi: bool) -> usize {
        let init = self.begin_program();
        self.stmt.writes = true;
        self.stmt.dbs_used |= 1 << inst.db;
        self.b.add4(Opcode::VBegin, multi as i32, 0, 0, P4::VTab(inst.clone()), 0);
        init
    }

    /// After the query collecting the rows of an UPDATE or DELETE of
    /// `inst`: when the module's plan for it yields at most one row, the
    /// statement writes one row, and its `VBegin` opens no statement
    /// savepoint (SQLite's one-pass write opens no statement journal:
    /// observed, an fts5 table in the transaction keeps its pending
    /// changes through `DELETE ... WHERE rowid = ?`, not through
    /// `DELETE ... WHERE rowid > ?`).
    fn vtab_single_row(&mut self, inst: &Arc<VtabInstance>) {
        if self.vtab.unique_scans.iter().any(|t| Arc::ptr_eq(t, inst)) {
            if let Some(i) = self.b.insns.iter_mut().find(|i| i.opcode == Opcode::VBegin) {
                i.p1 = 0;
            }
        }
    }

    /// In the query collecting a virtual table's UPDATE, `t.name` with one
    /// of the internal names of an unchanged column (`UNCHANGED_VALUE`
    /// then the column's number: `VColumn` with P5 1, as SQLite reads a
    /// column the UPDATE does not assign, its subtype kept aside;
    /// `UNCHANGED_FLAG`: that subtype, stored beside the row). Returns
    /// whether `name` was one (emitted into `target`).
    pub(in crate::sql::codegen) fn vtab_unchanged_read(&mut self, t: &str, name: &str, target: i32) -> Result<bool> {
        if self.vtab.unchanged_flags.is_empty() {
            return Ok(false);
        }
        let (flag, rest) = match name.strip_prefix(UNCHANGED_FLAG) {
            Some(r) => (true, r),
            None => match name.strip_prefix(UNCHANGED_VALUE) {
                Some(r) => (false, r),
                None => return Ok(false),
            },
        };
        let Some((i, &flag_reg)) = rest.parse::<usize>().ok().and_then(|i| self.vtab.unchanged_flags.get(i).map(|r| (i, r))) else {
            return Ok(false);
        };
        if flag {
            self.b.add(Opcode::SCopy, flag_reg, target, 0);
            return Ok(true);
        }
        let Some(r) = crate::sql::resolve::resolve_rowid(&self.names.scopes, Some(t)) else {
            return Err(Error::sql(format!("no such column: {t}.{name}")));
        };
        self.b.add4(Opcode::VColumn, r.cursor, i as i32, target, P4::None, 1);
        self.b.add(Opcode::GetSubtype, target, flag_reg, 0);
        Ok(true)
    }

    /// `"db"."name"` of the table.
    fn vtab_qualified(&self, inst: &VtabInstance, alias: Option<&str>) -> String {
        let q = |s: &str| format!("\"{}\"", s.replace('"', "\"\""));
        let mut s = format!("{}.{}", q(&self.db_name(inst.db)), q(&inst.name));
        if let Some(a) = alias {
            s.push_str(" AS ");
            s.push_str(&q(a));
        }
        s
    }
}

/// INSERT into a virtual table.
pub fn insert(c: &mut Compiler<'_>, stmt: &Stmt<'_>, prog: &mut Program, inst: Arc<VtabInstance>, decl: crate::sql::vtab_decl::DeclaredTable) -> Result<()> {
    let Stmt::Insert { or_conflict, columns, body, returning, .. } = stmt else { return Err(Error::sql("not an INSERT")) };
    if matches!(body, InsertBody::Select(_, Some(_))) {
        return Err(Error::sql(format!("UPSERT not implemented for virtual table \"{}\"", inst.name)));
    }
    let table = &decl.table;
    let n = table.columns.len();
    // Target per value: a column, or `usize::MAX` for the rowid.
    let targets: Vec<usize> = match columns {
        Some(names) => {
            let mut v = Vec::new();
            for name in names.iter() {
                let n = unquoted(name.0);
                match table.column_index(&n) {
                    Some(i) => v.push(i),
                    None if table.without_rowid.is_none() && ["rowid", "oid", "_rowid_"].iter().any(|r| r.eq_ci(&n)) => v.push(usize::MAX),
                    None => return Err(Error::sql(format!("table {} has no column named {n}", inst.name))),
                }
            }
            v
        }
        None => (0..n).filter(|&i| !decl.hidden[i]).collect(),
    };
    let oc = c.conflict_resolution(*or_conflict);
    let single_row = match body {
        InsertBody::Select(sel, _) => {
            sel.with.is_none()
                && sel.order_by.is_none()
                && sel.limit.is_none()
                && sel.body.compounds.as_ref().is_none_or(|k| k.is_empty())
                && matches!(&sel.body.select, ast::OneSelect::Values(rows) if rows.len() == 1)
        }
        InsertBody::DefaultValues => true,
    };
    let init = c.vtab_dml_start(&inst, !single_row);
    // One row of VALUES without a subquery (nothing in it can scan the
    // table while it is written) and without RETURNING: its values go to
    // xUpdate straight from registers, as SQLite codes it, and, as there,
    // without a statement journal (a single write: SQLite's
    // `sqlite3BeginWriteOperation` is told no statement for it).
    let direct = match body {
        InsertBody::Select(sel, None) if single_row && returning.is_none() => match &sel.body.select {
            ast::OneSelect::Values(rows) if !rows[0].iter().any(crate::sql::model::expr_shape::has_subquery) => Some(&rows[0]),
            _ => None,
        },
        _ => None,
    };
    prog.no_statement_savepoint = single_row;
    if let Some(row) = direct {
        let vals = c.b.regs(row.len().max(1));
        c.names.scopes.push(Default::default());
        let coded = row.iter().enumerate().try_for_each(|(k, e)| c.expr(e, vals + k as i32));
        c.names.scopes.pop();
        coded?;
        if row.len() != targets.len() {
            return Err(match columns {
                Some(_) => Error::sql(format!("{} values for {} columns", row.len(), targets.len())),
                None => Error::sql(format!("table {} has {} columns but {} values were supplied", inst.name, targets.len(), row.len())),
            });
        }
        let base = c.b.regs(n + 2);
        c.b.add(Opcode::Null, 0, base, base + 1 + n as i32);
        for (k, &t) in targets.iter().enumerate() {
            let to = if t == usize::MAX { base + 1 } else { base + 2 + t as i32 };
            c.b.add(Opcode::SCopy, vals + k as i32, to, 0);
        }
        c.b.add4(Opcode::VUpdate, 1, (n + 2) as i32, base, P4::VTab(inst.clone()), Compiler::vtab_conflict(oc));
        prog.counts_changes = true;
        c.end_program(init, Some(true));
        return Ok(());
    }
    // RETURNING reads each written row from a one-row table holding the
    // values xUpdate was given.
    let returned = match returning {
        Some(cols) => {
            c.setup_returning(Some(cols), table, prog)?;
            let rc = c.b.cursor();
            c.b.add(Opcode::OpenEphemeral, rc, n as i32, 0);
            Some(rc)
        }
        None => None,
    };
    let width_error = |width: usize| match columns {
        Some(_) => Error::sql(format!("{width} values for {} columns", targets.len())),
        None => Error::sql(format!("table {} has {} columns but {width} values were supplied", inst.name, targets.len())),
    };
    // The arguments of xUpdate for an INSERT: NULL old rowid, the new
    // rowid and every column NULL unless given, the `k`th value given
    // loaded by `load(c, k, register)`.
    let insert_args = |c: &mut Compiler<'_>, base: i32, load: &dyn Fn(&mut Compiler<'_>, usize, i32)| {
        c.b.add(Opcode::Null, 0, base, base + 1);
        for i in 0..n {
            c.b.add(Opcode::Null, 0, base + 2 + i as i32, 0);
        }
        for (k, &t) in targets.iter().enumerate() {
            let to = if t == usize::MAX { base + 1 } else { base + 2 + t as i32 };
            load(c, k, to);
        }
    };
    // The values or SELECT run as a coroutine, each row handed to
    // xUpdate as it comes, as SQLite's INSERT does; unless it reads the
    // table written: then its rows are collected first (SQLite's
    // `readsTable`), so that the module's scan never sees its own writes.
    let source = match body {
        InsertBody::Select(sel, None) => {
            let co = c.b.reg();
            let values = c.b.regs(targets.len().max(1));
            let after = c.b.label();
            let at = c.b.here() as i32;
            c.b.add(Opcode::InitCoroutine, co, after, at + 1);
            let width = c.compile_select(sel, Dest::Yield { co, reg: values, width: targets.len().max(1) })?.n_columns;
            if width != targets.len() {
                return Err(width_error(width));
            }
            c.b.add(Opcode::EndCoroutine, co, 0, 0);
            c.b.bind(after);
            if c.program_reads_vtab(&inst) {
                let cur = c.b.cursor();
                c.b.add(Opcode::OpenEphemeral, cur, width as i32, 0);
                let (done, top) = (c.b.label(), c.b.here() as i32);
                c.b.add(Opcode::Yield, co, done, 0);
                let (rec, rid) = (c.b.reg(), c.b.reg());
                c.b.add(Opcode::MakeRecord, values, width as i32, rec);
                c.b.add(Opcode::NewRowid, cur, rid, 0);
                c.b.add(Opcode::Insert, cur, rec, rid);
                c.b.add(Opcode::Goto, 0, top, 0);
                c.b.bind(done);
                RowSource::Table(cur)
            } else {
                RowSource::Coroutine(co, values)
            }
        }
        InsertBody::Select(_, Some(_)) => unreachable!("refused above"),
        InsertBody::DefaultValues => {
            let cur = c.b.cursor();
            c.b.add(Opcode::OpenEphemeral, cur, targets.len() as i32, 0);
            let sql = format!("SELECT {}", vec!["NULL"; targets.len().max(1)].join(", "));
            let width = c.vtab_collect(cur, None, &sql, false)?;
            if width != targets.len() {
                return Err(width_error(width));
            }
            RowSource::Table(cur)
        }
    };
    let returning_row = |c: &mut Compiler<'_>, base: i32| -> Result<()> {
        let Some(rc) = returned else { return Ok(()) };
        let rid = c.b.reg();
        let known = c.b.label();
        c.b.add(Opcode::SCopy, base + 1, rid, 0);
        c.b.add(Opcode::NotNull, rid, known, 0);
        c.b.add(Opcode::Integer, -1, rid, 0);
        c.b.bind(known);
        c.b.add(Opcode::MustBeInt, rid, 0, 0);
        let rec = c.b.reg();
        c.b.add(Opcode::MakeRecord, base + 2, n as i32, rec);
        c.b.add(Opcode::Insert, rc, rec, rid);
        let found = c.b.label();
        c.b.add(Opcode::SeekRowid, rc, found, rid);
        c.b.bind(found);
        c.emit_returning(&crate::sql::codegen::target::WriteTarget { table: (**table).clone(), cursor: rc, indexes: Vec::new() })
    };
    match source {
        RowSource::Table(cur) => c.vtab_update_loop(
            &inst,
            cur,
            n + 2,
            oc,
            true,
            |c, base| {
                insert_args(c, base, &|c, k, to| {
                    c.b.add(Opcode::Column, cur, k as i32, to);
                });
                Ok(())
            },
            returning_row,
        )?,
        RowSource::Coroutine(co, values) => {
            let (done, top) = (c.b.label(), c.b.here() as i32);
            c.b.add(Opcode::Yield, co, done, 0);
            c.vtab_update_row(
                &inst,
                n + 2,
                oc,
                true,
                |c, base| {
                    insert_args(c, base, &|c, k, to| {
                        c.b.add(Opcode::Copy, values + k as i32, to, 0);
                    });
                    Ok(())
                },
                returning_row,
            )?;
            c.b.add(Opcode::Goto, 0, top, 0);
            c.b.bind(done);
        }
    }
    c.finish_returning();
    prog.counts_changes = true;
    c.end_program(init, Some(true));
    Ok(())
}

/// Where the rows an INSERT hands to xUpdate come from.
enum RowSource {
    /// A temporary table holding them (cursor).
    Table(i32),
    /// A coroutine yielding each into registers (its register, the
    /// first of the row's).
    Coroutine(i32, i32),
}

/// UPDATE of a virtual table.
pub fn update(c: &mut Compiler<'_>, stmt: &Stmt<'_>, prog: &mut Program, inst: Arc<VtabInstance>, decl: crate::sql::vtab_decl::DeclaredTable) -> Result<()> {
    let Stmt::Update { or_conflict, tbl_name, sets, from, where_clause, returning, .. } = stmt else { return Err(Error::sql("not an UPDATE")) };
    if returning.is_some() {
        return Err(Error::sql("UPDATE RETURNING is not available on virtual tables"));
    }
    let table = &decl.table;
    let n = table.columns.len();
    let mut new_values: Vec<Option<String>> = vec![None; n];
    let mut new_rowid: Option<String> = None;
    for s in sets.iter() {
        // (`(a, b) = (x, y)` is one assignment per column.)
        for (col, v) in s.col_names.iter().zip(crate::sql::codegen::dml::assign::set_values(s)?) {
            let crate::sql::codegen::dml::assign::SetValue::Expr(e) = v else {
                return Err(Error::unsupported("row-value subquery assignments to a virtual table"));
            };
            let name = unquoted(col.0);
            let text = ast_text(e);
            match table.column_index(&name) {
                Some(i) => new_values[i] = Some(text),
                None if table.without_rowid.is_none() && ["rowid", "oid", "_rowid_"].iter().any(|r| r.eq_ci(&name)) => new_rowid = Some(text),
                None => return Err(Error::sql(format!("no such column: {name}"))),
            }
        }
    }
    let alias = tbl_name.alias.as_ref().map(|a| unquote(a.0));
    let q = |s: &str| format!("\"{}\"", s.replace('"', "\"\""));
    // (Qualified: the FROM items may have columns of the same names.)
    let qual = format!("{}.", q(alias.as_deref().unwrap_or(&inst.name)));
    let key = format!("{qual}{}", key_expr(table));
    let mut cols = vec![key.clone(), new_rowid.map_or(key, |e| format!("({e})"))];
    // Columns the statement leaves are read as unchanged (the module may
    // leave them out, `sqlite3_vtab_nochange`); whether it did is stored
    // after the row (SQLite's record keeps it as serial type 10).
    let unchanged: Vec<usize> = (0..n).filter(|&i| new_values[i].is_none()).collect();
    for (i, v) in new_values.iter().enumerate() {
        cols.push(match v {
            Some(e) => format!("({e})"),
            None => format!("{qual}{UNCHANGED_VALUE}{i}"),
        });
    }
    cols.extend(unchanged.iter().map(|i| format!("{qual}{UNCHANGED_FLAG}{i}")));
    let mut sql = format!("SELECT {} FROM {}", cols.join(", "), c.vtab_qualified(&inst, alias.as_deref()));
    // UPDATE ... FROM: the target joined with the FROM items, one xUpdate
    // per joined row (the target as the outer loop, as SQLite runs it).
    if let Some(f) = from {
        crate::sql::codegen::dml::dml_common::check_from_target(c, table, alias.as_deref(), f)?;
        sql.push_str(", ");
        sql.push_str(&crate::sql::model::from::from_text(f));
    }
    if let Some(w) = where_clause {
        sql.push_str(" WHERE ");
        sql.push_str(&ast_text(w));
    }
    let oc = c.conflict_resolution(*or_conflict);
    let init = c.vtab_dml_start(&inst, true);
    let cur = c.b.cursor();
    c.b.add(Opcode::OpenEphemeral, cur, (n + 2 + unchanged.len()) as i32, 0);
    let flags = c.b.regs(n);
    c.vtab.unchanged_flags = (0..n as i32).map(|i| flags + i).collect();
    c.vtab.unique_scans.clear();
    let collected = c.vtab_collect(cur, None, &sql, false);
    c.vtab.unchanged_flags.clear();
    collected?;
    if from.is_none() {
        c.vtab_single_row(&inst);
    }
    c.vtab_update_loop(
        &inst,
        cur,
        n + 2,
        oc,
        false,
        |c, base| {
            for k in 0..n + 2 {
                c.b.add(Opcode::Column, cur, k as i32, base + k as i32);
            }
            let flag = c.b.reg();
            for (j, &i) in unchanged.iter().enumerate() {
                c.b.add(Opcode::Column, cur, (n + 2 + j) as i32, flag);
                c.b.add4(Opcode::SetSubtype, flag, base + 2 + i as i32, 0, P4::None, 1);
            }
            Ok(())
        },
        |_, _| Ok(()),
    )?;
    prog.counts_changes = true;
    c.end_program(init, Some(true));
    Ok(())
}

/// DELETE from a virtual table.
pub fn delete(c: &mut Compiler<'_>, stmt: &Stmt<'_>, prog: &mut Program, inst: Arc<VtabInstance>, decl: crate::sql::vtab_decl::DeclaredTable) -> Result<()> {
    let Stmt::Delete { tbl_name, where_clause, returning, .. } = stmt else { return Err(Error::sql("not a DELETE")) };
    if returning.is_some() {
        return Err(Error::sql("DELETE RETURNING is not available on virtual tables"));
    }
    let alias = tbl_name.alias.as_ref().map(|a| unquote(a.0));
    let mut sql = format!("SELECT {} FROM {}", key_expr(&decl.table), c.vtab_qualified(&inst, alias.as_deref()));
    if let Some(w) = where_clause {
        sql.push_str(" WHERE ");
        sql.push_str(&ast_text(w));
    }
    let init = c.vtab_dml_start(&inst, true);
    // The keys in order, each once (SQLite's RowSet, or its index of
    // primary keys).
    let cur = c.b.cursor();
    c.b.add4(Opcode::OpenEphemeral, cur, 1, 0, P4::KeyInfo(crate::sql::model::query::binary_key_info(1)), 0);
    c.vtab.unique_scans.clear();
    c.vtab_collect(cur, None, &sql, true)?;
    c.vtab_single_row(&inst);
    c.vtab_update_loop(
        &inst,
        cur,
        1,
        OnConflict::Default,
        false,
        |c, base| {
            c.b.add(Opcode::Column, cur, 0, base);
            Ok(())
        },
        |_, _| Ok(()),
    )?;
    prog.counts_changes = true;
    c.end_program(init, Some(true));
    Ok(())
}

/// What stands for the rowid in xUpdate's arguments: the rowid, or a
/// WITHOUT ROWID table's (first) PRIMARY KEY column.
fn key_expr(t: &crate::sql::schema::Table) -> String {
    match t.without_rowid.as_ref().and_then(|k| k.first()) {
        Some((c, _, _)) => format!("\"{}\"", t.columns[*c].name.replace('"', "\"\"")),
        None => "rowid".to_string(),
    }
}
