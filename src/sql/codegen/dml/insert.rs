//! INSERT: VALUES rows, INSERT ... SELECT (a co-routine whose rows are
//! inserted as they come, all taken first where the table has triggers or
//! the SELECT reads it, so that a table can be copied into itself;
//! `INSERT INTO t SELECT * FROM u` between
//! tables of the same shape copies records, see `insert_xfer.rs`),
//! DEFAULT VALUES, and the OR conflict clauses.

use crate::error::{Error, Result};
use crate::sql::codegen::target::{OnConflict, WriteTarget};
use crate::sql::codegen::Compiler;
use crate::sql::model::query::Dest;
use crate::sql::parse::{unquote, unquoted};
use crate::util::ascii::AsciiLower;
use crate::vdbe::exec::write::{OPFLAG_LASTROWID, OPFLAG_NCHANGE};
use crate::vdbe::program::{Opcode, Program};
use sqlite3_parser::ast::{InsertBody, OneSelect, Stmt};

/// Compile an INSERT.
pub fn compile_insert(c: &mut Compiler<'_>, stmt: &Stmt<'_>, prog: &mut Program) -> Result<()> {
    let Stmt::Insert { with, or_conflict, tbl_name, columns, .. } = stmt else {
        return Err(Error::sql("not an INSERT"));
    };
    let target_db = c.target_db(tbl_name)?;
    c.frame.insert_alias = tbl_name.alias.as_ref().map(|a| unquote(a.0));
    if let Some(view) = c.env.schema.table_in(target_db, &unquoted(tbl_name.name.0)).filter(|t| t.view_select.is_some()).cloned() {
        if crate::sql::codegen::dml::instead::has_instead_trigger(c, &view, stmt) {
            return crate::sql::codegen::dml::instead::compile_instead(c, stmt, view, prog);
        }
    }
    if let Some((inst, decl)) = c.vtab_target(tbl_name)? {
        let pushed = c.push_with(with.as_ref())?;
        let r = crate::sql::codegen::dml::vtab_dml::insert(c, stmt, prog, inst, decl);
        if pushed {
            c.frame.ctes.pop();
        }
        return r;
    }
    let table = c.writable_table(target_db, &unquoted(tbl_name.name.0))?;
    let oc = c.conflict_resolution(*or_conflict);
    // Target column numbers, in the order values are supplied.
    let targets: Vec<usize> = match columns {
        Some(names) => {
            let mut v = Vec::new();
            for n in names.iter() {
                let n = unquoted(n.0);
                let n = crate::sql::repeated_set_columns::set_column_name(&n);
                let i = table.column_index(n).or_else(|| {
                    if table.without_rowid.is_none() && ["rowid", "oid", "_rowid_"].iter().any(|r| r.eq_ci(n)) {
                        table.rowid_alias.or(Some(usize::MAX))
                    } else {
                        None
                    }
                });
                match i {
                    Some(i) => {
                        crate::sql::codegen::dml::generated::refuse_target(&table, i, "INSERT")?;
                        v.push(i)
                    }
                    None => return Err(Error::sql(format!("table {} has no column named {n}", table.name))),
                }
            }
            discard_repeated_targets(&mut v, table.rowid_alias);
            v
        }
        // Generated columns take no value: a bare INSERT lists the others.
        None => (0..table.columns.len()).filter(|&i| table.columns[i].generated.is_none()).collect(),
    };
    let pushed = c.push_with(with.as_ref())?;
    let r = compile_insert_body(c, stmt, prog, table, oc, targets);
    if pushed {
        c.frame.ctes.pop();
    }
    r
}

/// A target whose value is not stored: a column named again in the
/// column list.
pub const DISCARDED: usize = usize::MAX - 1;

/// A column named more than once in an INSERT column list takes the first
/// of its values, the rowid (or its alias) the last, as in SQLite: the
/// other places become [`DISCARDED`].
fn discard_repeated_targets(targets: &mut [usize], rowid_alias: Option<usize>) {
    let is_rowid = |t: usize| t == usize::MAX || Some(t) == rowid_alias;
    let last_rowid = targets.iter().rposition(|&t| is_rowid(t));
    for k in 0..targets.len() {
        let t = targets[k];
        let repeated = if is_rowid(t) { Some(k) != last_rowid } else { targets[..k].contains(&t) };
        if repeated {
            targets[k] = DISCARDED;
        }
    }
}

fn compile_insert_body(
    c: &mut Compiler<'_>,
    stmt: &Stmt<'_>,
    prog: &mut Program,
    table: crate::sql::schema::Table,
    oc: OnConflict,
    targets: Vec<usize>,
) -> Result<()> {
    let Stmt::Insert { columns, body, returning, .. } = stmt else {
        return Err(Error::sql("not an INSERT"));
    };
    let init = c.begin_program();
    // The rows of a split statement (`sql::value_rows`) belong to the
    // statement's own INSERT, not to one a trigger it fires holds.
    let more_rows = if c.dml.firing.is_empty() { c.stmt.value_rows.take() } else { None };
    // Decided before the target is opened (which moves the table).
    let one_row = match body {
        InsertBody::DefaultValues => true,
        InsertBody::Select(sel, upsert) => {
            upsert.is_none()
                && sel.with.is_none()
                && sel.order_by.is_none()
                && sel.limit.is_none()
                && sel.body.compounds.as_ref().is_none_or(|c| c.is_empty())
                && matches!(&sel.body.select, OneSelect::Values(rows) if rows.len() == 1)
                && more_rows.is_none()
        }
    };
    // REPLACE keeps the write single only where the new row overwrites
    // the conflicting one in place (no index entries to delete first:
    // checked once the target is open), as SQLite's `sqlite3MultiWrite`
    // is only called when a REPLACE deletes something.
    let may_replace = oc == OnConflict::Replace
        || (oc == OnConflict::Default
            && (table.pk_conflict == Some(sqlite3_parser::ast::ResolveType::Replace)
                || table.unique_conflicts.iter().any(|(_, r)| *r == sqlite3_parser::ast::ResolveType::Replace)));
    let one_row = one_row
        && c.dml.firing.is_empty()
        && returning.is_none()
        && !table.autoincrement
        && table.without_rowid.is_none()
        && c.env.triggers_of(&table).is_empty()
        && !c.fk_involved(&table);
    let t = c.open_write_target(table)?;
    // Index entries are computed after the row is written: only plain
    // stored columns (no expression, VIRTUAL column or partial-index
    // WHERE, which could fail there) keep the write free of late errors.
    prog.no_statement_savepoint = one_row
        && (!may_replace || c.insert_overwrites_replaced_row(&t, false))
        && t.indexes.iter().all(|(idx, _)| idx.where_sql.is_none() && idx.columns.iter().all(|k| k.column.is_some_and(|col| !t.table.is_virtual(col))));
    c.setup_returning(*returning, &t.table, prog)?;
    // PRAGMA count_changes counts the rows inserted (not those an upsert
    // updates).
    if c.dml.firing.is_empty() {
        c.frame.inserted_rows = None;
        if c.env.settings.count_changes && prog.column_names.is_empty() {
            let r = c.b.reg();
            c.b.add(Opcode::Integer, 0, r, 0);
            c.frame.inserted_rows = Some(r);
        }
    }
    if t.table.autoincrement {
        open_sequence(c, t.table.db, &t.table.name)?;
    }
    let count_check = |n: usize| -> Result<()> {
        if n != targets.len() {
            return Err(match columns {
                Some(_) => Error::sql(format!("{n} values for {} columns", targets.len())),
                None => Error::sql(format!("table {} has {} columns but {n} values were supplied", t.table.name, targets.len())),
            });
        }
        Ok(())
    };
    match body {
        InsertBody::DefaultValues => {
            let row = c.b.regs(t.table.columns.len());
            fill_defaults(c, &t, row, &[])?;
            insert_row(c, &t, row, &[], oc)?;
        }
        InsertBody::Select(sel, upsert) => {
            let upsert = match upsert {
                Some(u) => Some(crate::sql::codegen::dml::upsert::resolve(c, &t, u)?),
                None => None,
            };
            let plain_values = sel.with.is_none()
                && sel.order_by.is_none()
                && sel.limit.is_none()
                && sel.body.compounds.as_ref().is_none_or(|c| c.is_empty())
                && matches!(sel.body.select, OneSelect::Values(_));
            let mut rows_done = false;
            if plain_values {
                let OneSelect::Values(rows) = &sel.body.select else { return Err(Error::sql("malformed VALUES")) };
                // The rows are checked against each other before against
                // the table, as SQLite's parser does.
                if rows.iter().any(|r| r.len() != rows[0].len()) {
                    return Err(Error::sql("all VALUES must have the same number of terms"));
                }
                // A single row's names are resolved first (SQLite's
                // parser makes it the INSERT's expression list).
                if let [row] = &rows[..] {
                    c.names.scopes.push(Default::default());
                    let named: Vec<&sqlite3_parser::ast::Expr<'_>> = row.iter().collect();
                    let r = c.check_plain_names_in(&named);
                    c.names.scopes.pop();
                    r?;
                }
                for r in rows.iter() {
                    count_check(r.len())?;
                }
                if rows.len() > 1 || more_rows.is_some() {
                    insert_value_rows(c, sel, &t, &targets, oc, upsert.as_ref(), &count_check, more_rows)?;
                    rows_done = true;
                }
            }
            if plain_values && !rows_done {
                let OneSelect::Values(rows) = &sel.body.select else { return Err(Error::sql("malformed VALUES")) };
                c.names.scopes.push(Default::default());
                let written = rows.iter().try_for_each(|r| insert_targets(c, &t, &targets, oc, upsert.as_ref(), |c, k, dest| c.expr(&r[k], dest)));
                c.names.scopes.pop();
                written?;
            } else if !plain_values {
                let shape_ok = upsert.is_none() && columns.is_none() && returning.is_none();
                match crate::sql::codegen::dml::insert_xfer::emit_transfer(c, sel, &t, oc, shape_ok)? {
                    crate::sql::codegen::dml::insert_xfer::Transfer::Complete => {}
                    crate::sql::codegen::dml::insert_xfer::Transfer::NotApplicable => {
                        // (SQLite codes the SELECT as any: its SQLITE_SELECT
                        // check comes before its names are resolved.)
                        c.authorize_subquery(sel, false)?;
                        insert_select_rows(c, sel, &t, &targets, oc, upsert.as_ref(), &count_check)?;
                    }
                    crate::sql::codegen::dml::insert_xfer::Transfer::Guarded { row_path, end } => {
                        c.b.bind(row_path);
                        insert_select_rows(c, sel, &t, &targets, oc, upsert.as_ref(), &count_check)?;
                        c.b.bind(end);
                    }
                }
            }
        }
    }
    if let Some((sq, seq, seq_rowid, orig)) = c.frame.autoinc.take() {
        // Write the sequence back if it moved.
        let same = c.b.label();
        c.b.add4(Opcode::Eq, orig, same, seq, crate::vdbe::program::P4::None, 0);
        let have = c.b.label();
        c.b.add(Opcode::NotNull, seq_rowid, have, 0);
        c.b.add(Opcode::NewRowid, sq, seq_rowid, 0);
        c.b.bind(have);
        let regs = c.b.regs(2);
        c.b.add4(Opcode::String8, 0, regs, 0, crate::vdbe::program::P4::bytes(t.table.name.clone().into_bytes()), 0);
        c.b.add(Opcode::SCopy, seq, regs + 1, 0);
        let rec = c.b.reg();
        c.b.add(Opcode::MakeRecord, regs, 2, rec);
        c.b.add(Opcode::Insert, sq, rec, seq_rowid);
        c.b.bind(same);
    }
    c.finish_returning();
    c.emit_change_count_row(prog, "rows inserted");
    c.end_program(init, Some(true));
    prog.counts_changes = true;
    Ok(())
}

/// INSERT of several VALUES rows, as SQLite's multi-row VALUES: a
/// co-routine computes each row in the same registers and yields it to
/// one copy of the insert code, so the program grows by the rows'
/// expressions only (it was the whole insert, constraint checks and index
/// writes, per row). Where SQLite computes every row first (the table has
/// triggers, or the rows may read it through a subquery), they go
/// through INSERT ... SELECT's path, which takes them all first there.
fn insert_value_rows(
    c: &mut Compiler<'_>,
    sel: &sqlite3_parser::ast::Select<'_>,
    t: &WriteTarget,
    targets: &[usize],
    oc: OnConflict,
    upsert: Option<&crate::sql::codegen::dml::upsert::Upserts<'_, '_>>,
    count_check: &dyn Fn(usize) -> Result<()>,
    more: Option<&crate::sql::value_rows::ValueRows<'_>>,
) -> Result<()> {
    let OneSelect::Values(rows) = &sel.body.select else { return Err(Error::sql("malformed VALUES")) };
    let reads_subquery = rows.iter().flat_map(|r| r.iter()).any(crate::sql::model::expr_shape::has_subquery);
    if reads_subquery || !c.env.triggers_of(&t.table).is_empty() {
        return insert_select_rows(c, sel, t, targets, oc, upsert, count_check);
    }
    let width = rows[0].len();
    // The rows of a split statement (`sql::value_rows`) are coded after
    // the tree's first row.
    let n_rows = rows.len() + more.map_or(0, |m| m.len());
    // The rows' code takes about an instruction per value and one per
    // row, then the insert code and the prologue follow: reserved at once
    // rather than grown by doubling (a 100,000-row INSERT copied its
    // program some twenty times, the last copies into fresh pages the
    // kernel zeroed).
    c.b.insns.reserve(n_rows * (width + 1) + 1024);
    let co = c.b.reg();
    let values = c.b.regs(width);
    let after = c.b.label();
    let at = c.b.here() as i32;
    c.b.add(Opcode::InitCoroutine, co, after, at + 1);
    c.names.scopes.push(Default::default());
    let computed = (|| -> Result<()> {
        for r in rows.iter() {
            for (k, e) in r.iter().enumerate() {
                if targets[k] != DISCARDED {
                    c.expr(e, values + k as i32)?;
                }
            }
            c.b.add(Opcode::Yield, co, 0, 0);
        }
        if let Some(more) = more {
            more.for_each_row(&mut |r| {
                for (k, e) in r.iter().enumerate() {
                    if targets[k] != DISCARDED {
                        c.expr(e, values + k as i32)?;
                    }
                }
                c.b.add(Opcode::Yield, co, 0, 0);
                Ok(())
            })?;
            more.consumed.set(true);
        }
        Ok(())
    })();
    c.names.scopes.pop();
    computed?;
    c.b.add(Opcode::EndCoroutine, co, 0, 0);
    c.b.bind(after);
    let done = c.b.label();
    let top = c.b.here() as i32;
    c.b.add(Opcode::Yield, co, done, 0);
    insert_targets(c, t, targets, oc, upsert, |c, k, dest| {
        c.b.add(Opcode::Copy, values + k as i32, dest, 0);
        Ok(())
    })?;
    c.b.add(Opcode::Goto, 0, top, 0);
    c.b.bind(done);
    Ok(())
}

/// INSERT ... SELECT row by row, as SQLite codes it: the SELECT is a
/// co-routine yielding each row into the same registers, inserted as it
/// comes, unless the table has triggers or the SELECT reads the table
/// (`reads_table`: the rows are then all taken into a temporary table
/// first, so a table can be copied into itself).
fn insert_select_rows(
    c: &mut Compiler<'_>,
    sel: &sqlite3_parser::ast::Select<'_>,
    t: &WriteTarget,
    targets: &[usize],
    oc: OnConflict,
    upsert: Option<&crate::sql::codegen::dml::upsert::Upserts<'_, '_>>,
    count_check: &dyn Fn(usize) -> Result<()>,
) -> Result<()> {
    let width = targets.len().max(1);
    let co = c.b.reg();
    let values = c.b.regs(width);
    let after = c.b.label();
    let at = c.b.here() as i32;
    c.b.add(Opcode::InitCoroutine, co, after, at + 1);
    let info = c.compile_select(sel, Dest::Yield { co, reg: values, width })?;
    count_check(info.n_columns)?;
    c.b.add(Opcode::EndCoroutine, co, 0, 0);
    c.b.bind(after);
    let end = c.b.label();
    if !c.env.triggers_of(&t.table).is_empty() || reads_table(c, &t.table) {
        let tmp = c.b.cursor();
        c.b.add(Opcode::OpenEphemeral, tmp, width as i32, 0);
        let (rec, rid) = (c.b.reg(), c.b.reg());
        let filled = c.b.label();
        let fill = c.b.here() as i32;
        c.b.add(Opcode::Yield, co, filled, 0);
        c.b.add(Opcode::MakeRecord, values, width as i32, rec);
        c.b.add(Opcode::NewRowid, tmp, rid, 0);
        c.b.add(Opcode::Insert, tmp, rec, rid);
        c.b.add(Opcode::Goto, 0, fill, 0);
        c.b.bind(filled);
        c.b.add(Opcode::Rewind, tmp, end, 0);
        let top = c.b.here();
        insert_targets(c, t, targets, oc, upsert, |c, k, dest| {
            c.b.add(Opcode::Column, tmp, k as i32, dest);
            Ok(())
        })?;
        c.b.add(Opcode::Next, tmp, top as i32, 0);
    } else {
        let top = c.b.here() as i32;
        c.b.add(Opcode::Yield, co, end, 0);
        insert_targets(c, t, targets, oc, upsert, |c, k, dest| {
            c.b.add(Opcode::Copy, values + k as i32, dest, 0);
            Ok(())
        })?;
        c.b.add(Opcode::Goto, 0, top, 0);
    }
    c.b.bind(end);
    Ok(())
}

/// Whether the program so far reads `table` (SQLite's `readsTable`): an
/// `OpenRead` of its b-tree or of one of its indexes, one whose root is
/// in a register (a table made by this statement), or any virtual-table
/// open when `table` is virtual.
fn reads_table(c: &Compiler<'_>, table: &crate::sql::schema::Table) -> bool {
    let roots: Vec<u32> = std::iter::once(table.root).chain(c.env.schema.indexes_of(table).iter().map(|i| i.root)).collect();
    let virtual_table = table.virtual_table.is_some();
    c.b.insns.iter().any(|i| match i.opcode {
        Opcode::OpenRead => i.p3 as usize == table.db && (i.p5 & 0x02 != 0 || roots.contains(&(i.p2 as u32))),
        Opcode::VOpen => virtual_table,
        _ => false,
    })
}

/// Insert one row whose `k`th supplied value `load(c, k, register)`
/// computes into a register: the target columns' registers (a rowid
/// named in the column list into one of its own; a repeated column's
/// value, [`DISCARDED`], is not loaded), the others' defaults, then the
/// constraint checks and the write. The one row path of every INSERT
/// whose values are supplied (a single VALUES row, the multi-row VALUES
/// co-routine, a materialised SELECT).
fn insert_targets(
    c: &mut Compiler<'_>,
    t: &WriteTarget,
    targets: &[usize],
    oc: OnConflict,
    upsert: Option<&crate::sql::codegen::dml::upsert::Upserts<'_, '_>>,
    mut load: impl FnMut(&mut Compiler<'_>, usize, i32) -> Result<()>,
) -> Result<()> {
    let row = c.b.regs(t.table.columns.len());
    fill_defaults(c, t, row, targets)?;
    let mut extra_rowid = None;
    for (k, &col) in targets.iter().enumerate() {
        if col == DISCARDED {
            continue;
        }
        if col == usize::MAX {
            let rr = c.b.reg();
            load(c, k, rr)?;
            extra_rowid = Some(rr);
        } else {
            load(c, k, row + col as i32)?;
        }
    }
    insert_row_with_rowid(c, t, row, targets, oc, extra_rowid, upsert)
}

/// AUTOINCREMENT: a rowid the engine chose (none given, or NULL) is
/// never at or below the largest one ever used, kept in `sqlite_sequence`.
fn autoincrement_floor(c: &mut Compiler<'_>, rowid: i32) {
    if let Some((_, seq, _, _)) = c.frame.autoinc {
        let fine = c.b.label();
        c.b.add4(Opcode::Gt, seq, fine, rowid, crate::vdbe::program::P4::None, 0);
        let one = c.b.reg();
        c.b.add(Opcode::Integer, 1, one, 0);
        c.b.add(Opcode::Add, one, seq, rowid);
        c.b.bind(fine);
    }
}

/// Read the table's `sqlite_sequence` entry into registers.
fn open_sequence(c: &mut Compiler<'_>, db: usize, name: &str) -> Result<()> {
    let seq_table = c.env.schema.table_in(Some(db), "sqlite_sequence").cloned().ok_or_else(Error::corrupt)?;
    let sq = c.b.cursor();
    c.b.add4(Opcode::OpenWrite, sq, seq_table.root as i32, db as i32, crate::vdbe::program::P4::Int64(2), 0);
    c.comment("sqlite_sequence");
    let seq = c.b.reg();
    let seq_rowid = c.b.reg();
    let orig = c.b.reg();
    c.b.add(Opcode::Integer, 0, seq, 0);
    c.b.add(Opcode::Null, 0, seq_rowid, 0);
    let end = c.b.label();
    c.b.add(Opcode::Rewind, sq, end, 0);
    let top = c.b.here();
    let next = c.b.label();
    let n = c.b.reg();
    let want = c.b.reg();
    c.b.add(Opcode::Column, sq, 0, n);
    c.b.add4(Opcode::String8, 0, want, 0, crate::vdbe::program::P4::bytes(name.as_bytes().to_vec()), 0);
    c.b.add(Opcode::Ne, want, next, n);
    c.b.add(Opcode::Column, sq, 1, seq);
    c.b.add(Opcode::Rowid, sq, seq_rowid, 0);
    c.b.bind(next);
    c.b.add(Opcode::Next, sq, top as i32, 0);
    c.b.bind(end);
    c.b.add(Opcode::SCopy, seq, orig, 0);
    c.frame.autoinc = Some((sq, seq, seq_rowid, orig));
    Ok(())
}

/// Default values for the columns not in `given`.
fn fill_defaults(c: &mut Compiler<'_>, t: &WriteTarget, row: i32, given: &[usize]) -> Result<()> {
    for (i, col) in t.table.columns.iter().enumerate() {
        if given.contains(&i) {
            continue;
        }
        match col.default_sql() {
            Some(d) => {
                c.names.scopes.push(Default::default());
                let r = c.with_schema_text(t.table.db, |c| c.expr_text(&d, row + i as i32));
                c.names.scopes.pop();
                r?;
            }
            None => {
                c.b.add(Opcode::Null, 0, row + i as i32, 0);
            }
        }
    }
    Ok(())
}

fn insert_row(c: &mut Compiler<'_>, t: &WriteTarget, row: i32, given: &[usize], oc: OnConflict) -> Result<()> {
    insert_row_with_rowid(c, t, row, given, oc, None, None)
}

/// Constraint checks and the write of one row held in `row`.
fn insert_row_with_rowid(
    c: &mut Compiler<'_>,
    t: &WriteTarget,
    row: i32,
    given: &[usize],
    oc: OnConflict,
    explicit_rowid: Option<i32>,
    upsert: Option<&crate::sql::codegen::dml::upsert::Upserts<'_, '_>>,
) -> Result<()> {
    // A WITHOUT ROWID row has no rowid: its rowid register holds NULL and
    // its PRIMARY KEY is always checked.
    let without_rowid = t.table.without_rowid.is_some();
    let skip = c.b.label();
    let rowid = c.b.reg();
    let ipk_given = t.table.rowid_alias.filter(|i| given.contains(i));
    let source = match (ipk_given, explicit_rowid) {
        (Some(i), _) => Some(row + i as i32),
        (None, Some(r)) => Some(r),
        _ => None,
    };
    // BEFORE INSERT triggers run before the rowid is chosen: new.rowid (and
    // the INTEGER PRIMARY KEY) read -1 when it is still to be allocated.
    if !c.env.triggers_of(&t.table).is_empty() {
        let trig_rowid = c.b.reg();
        match source {
            Some(src) => {
                let have = c.b.label();
                let after = c.b.label();
                c.b.add(Opcode::SCopy, src, trig_rowid, 0);
                c.b.add(Opcode::NotNull, trig_rowid, have, 0);
                c.b.add(Opcode::Integer, -1, trig_rowid, 0);
                c.b.add(Opcode::Goto, 0, after, 0);
                c.b.bind(have);
                c.b.add(Opcode::MustBeInt, trig_rowid, 0, 0);
                c.b.bind(after);
            }
            None if without_rowid => {
                c.b.add(Opcode::Null, 0, trig_rowid, 0);
            }
            None => {
                c.b.add(Opcode::Integer, -1, trig_rowid, 0);
            }
        }
        let saved_ipk = t.table.rowid_alias.map(|ipk| {
            let saved = c.b.reg();
            c.b.add(Opcode::Copy, row + ipk as i32, saved, 0);
            c.b.add(Opcode::SCopy, trig_rowid, row + ipk as i32, 0);
            (ipk, saved)
        });
        // BEFORE triggers see the generated columns' values (as SQLite
        // computes them before firing).
        c.compute_generated(t, row, trig_rowid)?;
        c.fire_triggers(t, crate::sql::codegen::target::Event::Insert, true, None, Some((row, trig_rowid)), &[], skip)?;
        if let Some((ipk, saved)) = saved_ipk {
            c.b.add(Opcode::Copy, saved, row + ipk as i32, 0);
        }
    }
    match source {
        Some(src) => {
            let have = c.b.label();
            let after = c.b.label();
            c.b.add(Opcode::SCopy, src, rowid, 0);
            c.b.add(Opcode::NotNull, rowid, have, 0);
            c.b.add(Opcode::NewRowid, t.cursor, rowid, 0);
            autoincrement_floor(c, rowid);
            c.b.add(Opcode::Goto, 0, after, 0);
            c.b.bind(have);
            c.b.add(Opcode::MustBeInt, rowid, 0, 0);
            c.b.bind(after);
        }
        None if without_rowid => {
            c.b.add(Opcode::Null, 0, rowid, 0);
        }
        None => {
            c.b.add(Opcode::NewRowid, t.cursor, rowid, 0);
            autoincrement_floor(c, rowid);
        }
    }
    // AUTOINCREMENT counts every rowid the statement chose or was given,
    // before any constraint is checked: a row that a conflict then turns
    // into an upsert's UPDATE, an IGNORE or a REPLACE still used its rowid
    // up (SQLite's `autoIncStep` right after the rowid is known).
    if let Some((_, seq, _, _)) = c.frame.autoinc.filter(|_| !without_rowid) {
        let lower = c.b.label();
        c.b.add4(Opcode::Le, seq, lower, rowid, crate::vdbe::program::P4::None, 0);
        c.b.add(Opcode::SCopy, rowid, seq, 0);
        c.b.bind(lower);
    }
    if let Some(ipk) = t.table.rowid_alias {
        c.b.add(Opcode::SCopy, rowid, row + ipk as i32, 0);
    }
    c.compute_generated(t, row, rowid)?;
    c.check_not_null(t, row, oc, skip)?;
    c.b.add4(Opcode::Affinity, row, t.table.columns.len() as i32, 0, crate::vdbe::program::P4::affinity(t.table.affinity_string()), 0);
    c.check_strict(t, row);
    c.check_checks(t, row, rowid, oc, skip)?;
    let unique_oc = match upsert {
        Some(u) => {
            u.emit(c, t, row, rowid, source.is_some() || without_rowid, skip)?;
            u.unique_conflict(oc)
        }
        None => oc,
    };
    c.check_unique(t, row, rowid, None, source.is_some() || without_rowid, unique_oc, skip)?;
    // (In a trigger body the row sets last_insert_rowid() until the
    // trigger ends: see `vdbe::exec::trigger_counts`.)
    let flags = if c.dml.firing.is_empty() { OPFLAG_NCHANGE | OPFLAG_LASTROWID } else { crate::vdbe::exec::write::OPFLAG_HOOK | OPFLAG_LASTROWID };
    // A WITHOUT ROWID row whose PRIMARY KEY conflict REPLACE resolves by
    // overwriting (`insert_overwrites_replaced_row`) is inserted by its key
    // (IdxInsert P3 = key width), so that it replaces the entry with the
    // same key instead of going in beside it.
    let overwrite_key = without_rowid && unique_oc.for_constraint(t.table.pk_conflict) == OnConflict::Replace && c.insert_overwrites_replaced_row(t, false);
    let start = c.b.insns.len();
    c.write_row(t, row, rowid, flags)?;
    if overwrite_key {
        let width = t.table.key_width() as i32;
        if let Some(i) = c.b.insns[start..].iter_mut().find(|i| i.opcode == Opcode::IdxInsert && i.p1 == t.cursor) {
            i.p3 = width;
        }
    }
    if let Some(r) = c.frame.inserted_rows.filter(|_| c.dml.firing.is_empty()) {
        let one = c.b.reg();
        c.b.add(Opcode::Integer, 1, one, 0);
        c.b.add(Opcode::Add, one, r, r);
    }
    c.fk_check_child(&t.table, row, 1, None)?;
    c.fk_check_parent(&t.table, row, rowid, -1, None)?;
    c.fire_triggers(t, crate::sql::codegen::target::Event::Insert, false, None, Some((row, rowid)), &[], skip)?;
    c.emit_returning(t)?;
    c.b.bind(skip);
    Ok(())
}
