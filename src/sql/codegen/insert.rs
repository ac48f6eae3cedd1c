//! INSERT: VALUES rows, INSERT ... SELECT (materialised first, so a table
//! can be copied into itself), DEFAULT VALUES, and the OR conflict
//! clauses.

use super::dml_common::{OnConflict, WriteTarget};
use super::select::Dest;
use super::Compiler;
use crate::error::{Error, Result};
use crate::sql::parse::unquote;
use crate::vdbe::exec::write::{OPFLAG_LASTROWID, OPFLAG_NCHANGE};
use crate::vdbe::program::{Opcode, Program};
use sqlite3_parser::ast::{Expr, InsertBody, OneSelect, Stmt};

/// Compile an INSERT.
pub fn compile_insert(c: &mut Compiler<'_>, stmt: &Stmt<'_>, prog: &mut Program) -> Result<()> {
    let Stmt::Insert { with, or_conflict, tbl_name, columns, body, returning } = stmt else {
        return Err(Error::sql("not an INSERT"));
    };
    if returning.is_some() {
        return Err(Error::unsupported("RETURNING"));
    }
    if with.is_some() {
        return Err(Error::unsupported("WITH on INSERT"));
    }
    let table = c.writable_table(&unquote(tbl_name.name.0))?;
    let oc = OnConflict::from_ast(*or_conflict);
    // Target column numbers, in the order values are supplied.
    let targets: Vec<usize> = match columns {
        Some(names) => {
            let mut v = Vec::new();
            for n in names.iter() {
                let n = unquote(n.0);
                let i = table.column_index(&n).or_else(|| {
                    if ["rowid", "oid", "_rowid_"].iter().any(|r| r.eq_ignore_ascii_case(&n)) {
                        table.rowid_alias.or(Some(usize::MAX))
                    } else {
                        None
                    }
                });
                match i {
                    Some(i) => v.push(i),
                    None => return Err(Error::sql(format!("table {} has no column named {n}", table.name))),
                }
            }
            v
        }
        None => (0..table.columns.len()).collect(),
    };
    let init = c.begin_program();
    let t = c.open_write_target(table)?;
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
            if upsert.is_some() {
                return Err(Error::unsupported("UPSERT"));
            }
            let plain_values = sel.with.is_none()
                && sel.order_by.is_none()
                && sel.limit.is_none()
                && sel.body.compounds.as_ref().is_none_or(|c| c.is_empty())
                && matches!(sel.body.select, OneSelect::Values(_));
            if plain_values {
                let OneSelect::Values(rows) = &sel.body.select else { return Err(Error::sql("malformed VALUES")) };
                for r in rows.iter() {
                    count_check(r.len())?;
                }
                c.scopes.push(Default::default());
                for r in rows.iter() {
                    let vals: Vec<&Expr<'_>> = r.iter().collect();
                    let row = c.b.regs(t.table.columns.len());
                    fill_defaults(c, &t, row, &targets)?;
                    let mut extra_rowid = None;
                    for (k, e) in vals.iter().enumerate() {
                        if targets[k] == usize::MAX {
                            let rr = c.b.reg();
                            c.expr(e, rr)?;
                            extra_rowid = Some(rr);
                        } else {
                            c.expr(e, row + targets[k] as i32)?;
                        }
                    }
                    insert_row_with_rowid(c, &t, row, &targets, oc, extra_rowid)?;
                }
                c.scopes.pop();
            } else {
                let tmp = c.b.cursor();
                c.b.add(Opcode::OpenEphemeral, tmp, 0, 0);
                let open = c.b.insns.len() - 1;
                let info = c.compile_select(sel, Dest::EphemTable(tmp))?;
                c.b.insns[open].p2 = info.n_columns as i32;
                count_check(info.n_columns)?;
                let end = c.b.label();
                c.b.add(Opcode::Rewind, tmp, end, 0);
                let top = c.b.here();
                let row = c.b.regs(t.table.columns.len());
                fill_defaults(c, &t, row, &targets)?;
                let mut extra_rowid = None;
                for (k, &col) in targets.iter().enumerate() {
                    if col == usize::MAX {
                        let rr = c.b.reg();
                        c.b.add(Opcode::Column, tmp, k as i32, rr);
                        extra_rowid = Some(rr);
                    } else {
                        c.b.add(Opcode::Column, tmp, k as i32, row + col as i32);
                    }
                }
                insert_row_with_rowid(c, &t, row, &targets, oc, extra_rowid)?;
                c.b.add(Opcode::Next, tmp, top as i32, 0);
                c.b.bind(end);
            }
        }
    }
    c.end_program(init, Some(true));
    prog.counts_changes = true;
    Ok(())
}

/// Default values for the columns not in `given`.
fn fill_defaults(c: &mut Compiler<'_>, t: &WriteTarget, row: i32, given: &[usize]) -> Result<()> {
    for (i, col) in t.table.columns.iter().enumerate() {
        if given.contains(&i) {
            continue;
        }
        match &col.default {
            Some(d) => {
                let d = d.clone();
                c.scopes.push(Default::default());
                let r = c.expr_text(&d, row + i as i32);
                c.scopes.pop();
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
    insert_row_with_rowid(c, t, row, given, oc, None)
}

/// Constraint checks and the write of one row held in `row`.
fn insert_row_with_rowid(c: &mut Compiler<'_>, t: &WriteTarget, row: i32, given: &[usize], oc: OnConflict, explicit_rowid: Option<i32>) -> Result<()> {
    let skip = c.b.label();
    let rowid = c.b.reg();
    let ipk_given = t.table.rowid_alias.filter(|i| given.contains(i));
    let source = match (ipk_given, explicit_rowid) {
        (Some(i), _) => Some(row + i as i32),
        (None, Some(r)) => Some(r),
        _ => None,
    };
    match source {
        Some(src) => {
            let have = c.b.label();
            let after = c.b.label();
            c.b.add(Opcode::SCopy, src, rowid, 0);
            c.b.add(Opcode::NotNull, rowid, have, 0);
            c.b.add(Opcode::NewRowid, t.cursor, rowid, 0);
            c.b.add(Opcode::Goto, 0, after, 0);
            c.b.bind(have);
            c.b.add(Opcode::MustBeInt, rowid, 0, 0);
            c.b.bind(after);
        }
        None => {
            c.b.add(Opcode::NewRowid, t.cursor, rowid, 0);
        }
    }
    if let Some(ipk) = t.table.rowid_alias {
        c.b.add(Opcode::SCopy, rowid, row + ipk as i32, 0);
    }
    c.check_not_null(t, row, oc, skip)?;
    c.b.add4(
        Opcode::Affinity,
        row,
        t.table.columns.len() as i32,
        0,
        crate::vdbe::program::P4::Affinity(t.table.affinity_string()),
        0,
    );
    c.check_unique(t, row, rowid, None, source.is_some(), oc, skip)?;
    c.write_row(t, row, rowid, OPFLAG_NCHANGE | OPFLAG_LASTROWID);
    c.b.bind(skip);
    Ok(())
}
