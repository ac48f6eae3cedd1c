//! INSERT, UPDATE and DELETE on a view that has INSTEAD OF triggers for
//! the change: nothing is written to the view; for each row the change
//! would touch, its INSTEAD OF triggers run with `OLD`/`NEW` holding that
//! row.
//!
//! The rows are gathered first into a temporary table, as SQLite does:
//! for DELETE the view's rows matching WHERE; for UPDATE those rows
//! followed by the assigned values computed against them; for INSERT the
//! rows of VALUES or the SELECT. `NEW`/`OLD` then read registers loaded
//! from that table, under the view's column names.
//!
//! Invariant: a view without a matching INSTEAD OF trigger is never
//! routed here (it stays "cannot modify ... because it is a view")
//! (checked: instead_trigger_exists).

use crate::error::{Error, Result};
use crate::sql::codegen::target::Event;
use crate::sql::codegen::target::WriteTarget;
use crate::sql::codegen::Compiler;
use crate::sql::model::query::Dest;
use crate::sql::parse::{unquote, unquoted, with_first_statement};
use crate::sql::schema::{Column, Table};
use crate::util::ascii::AsciiLower;
use crate::value::affinity::Affinity;
use crate::vdbe::program::{Opcode, Program};
use sqlite3_parser::ast::{Cmd, InsertBody, Stmt, TriggerEvent, TriggerTime};

fn quote(n: &str) -> String {
    format!("\"{}\"", n.replace('"', "\"\""))
}

/// Whether `view` has an INSTEAD OF trigger for `stmt`'s change (for
/// UPDATE OF, one of the assigned columns must be listed).
pub fn has_instead_trigger(c: &Compiler<'_>, view: &Table, stmt: &Stmt<'_>) -> bool {
    let assigned: Vec<String> = match stmt {
        Stmt::Update { sets, .. } => {
            sets.iter().flat_map(|s| s.col_names.iter().map(|n| crate::sql::repeated_set_columns::set_column_name(&unquote(n.0)).to_string())).collect()
        }
        _ => Vec::new(),
    };
    c.env.triggers_of(view).iter().any(|(_, sql)| {
        with_first_statement(sql.as_bytes(), |cmd, _| {
            let Some(Cmd::Stmt(Stmt::CreateTrigger { time: Some(TriggerTime::InsteadOf), event, .. })) = cmd else { return Ok(false) };
            Ok(match (event, stmt) {
                (TriggerEvent::Insert, Stmt::Insert { .. }) | (TriggerEvent::Delete, Stmt::Delete { .. }) | (TriggerEvent::Update, Stmt::Update { .. }) => true,
                (TriggerEvent::UpdateOf(cols), Stmt::Update { .. }) => cols.iter().any(|n| assigned.iter().any(|a| a.eq_ci(&unquoted(n.0)))),
                _ => false,
            })
        })
        .unwrap_or(false)
    })
}

/// The view as a table of the given columns (the scope `NEW`/`OLD` use).
fn pseudo_table(view: &Table, names: &[String]) -> Table {
    let mut t = view.clone();
    t.columns = names
        .iter()
        .map(|n| Column {
            name: n.clone(),
            decltype: None,
            affinity: Affinity::Blob,
            not_null: false,
            not_null_conflict: None,
            default: None,
            default_is_name: false,
            default_value: None,
            collation: None,
            primary_key: false,
            generated: None,
        })
        .collect();
    t.rowid_alias = None;
    t
}

/// Compile `SELECT <cols> FROM view AS alias WHERE ...` into a new
/// temporary table; returns (cursor, result names).
fn gather(c: &mut Compiler<'_>, sql: &str) -> Result<(i32, Vec<String>)> {
    gather_with_rows(c, sql, Vec::new())
}

/// `gather`, each row followed by the columns of the row-value subqueries
/// `rows` (SQL text, width) computed for it.
fn gather_with_rows(c: &mut Compiler<'_>, sql: &str, rows: Vec<(String, usize)>) -> Result<(i32, Vec<String>)> {
    let tmp = c.b.cursor();
    c.b.add(Opcode::OpenEphemeral, tmp, 0, 0);
    let open = c.b.insns.len() - 1;
    let extra: usize = rows.iter().map(|r| r.1).sum();
    c.frame.row_values_after = rows;
    let info = with_first_statement(sql.as_bytes(), |cmd, _| match cmd {
        Some(Cmd::Stmt(Stmt::Select(sel))) => c.compile_select(sel, Dest::EphemTable(tmp)),
        _ => Err(Error::sql("malformed statement")),
    });
    c.frame.row_values_after.clear();
    let info = info?;
    c.b.insns[open].p2 = (info.n_columns + extra) as i32;
    Ok((tmp, info.names))
}

/// Load columns `from..from+n` of the current row of `cur` into new
/// registers.
fn load(c: &mut Compiler<'_>, cur: i32, from: usize, n: usize) -> i32 {
    let regs = c.b.regs(n.max(1));
    for i in 0..n {
        c.b.add(Opcode::Column, cur, (from + i) as i32, regs + i as i32);
    }
    regs
}

/// Run the INSTEAD OF triggers of the view for each gathered row.
fn fire_each(
    c: &mut Compiler<'_>,
    view: &Table,
    names: &[String],
    tmp: i32,
    event: Event,
    rows: &mut dyn FnMut(&mut Compiler<'_>) -> Result<(Option<i32>, Option<i32>)>,
    changed: &[usize],
) -> Result<()> {
    let t = WriteTarget { table: pseudo_table(view, names), cursor: -1, indexes: Vec::new() };
    let end = c.b.label();
    c.b.add(Opcode::Rewind, tmp, end, 0);
    let top = c.b.here();
    let next = c.b.label();
    let (old, new) = rows(c)?;
    let no_rowid = c.b.reg();
    c.b.add(Opcode::Null, 0, no_rowid, 0);
    c.fire_triggers(&t, event, false, old.map(|r| (r, no_rowid)), new.map(|r| (r, no_rowid)), changed, next)?;
    c.b.bind(next);
    c.b.add(Opcode::Next, tmp, top as i32, 0);
    c.b.bind(end);
    Ok(())
}

/// INSERT, UPDATE or DELETE on `view` through its INSTEAD OF triggers.
pub fn compile_instead(c: &mut Compiler<'_>, stmt: &Stmt<'_>, view: Table, prog: &mut Program) -> Result<()> {
    // invariant: instead_trigger_exists
    debug_assert!(has_instead_trigger(c, &view, stmt), "{} routed to INSTEAD OF without such a trigger", view.name);
    let init = c.begin_program();
    c.stmt.writes = true;
    // An OR clause of the INSERT or UPDATE on the view is the conflict
    // resolution of the statements its INSTEAD OF triggers run, as for a
    // table's triggers (`REPLACE INTO v` replaces in the table written).
    if let Stmt::Insert { or_conflict, .. } | Stmt::Update { or_conflict, .. } = stmt {
        c.conflict_resolution(*or_conflict);
    }
    let all = format!("SELECT * FROM {}", quote(&view.name));
    match stmt {
        Stmt::Delete { tbl_name, where_clause, order_by, limit, .. } => {
            let alias = tbl_name.alias.as_ref().map(|a| unquote(a.0)).unwrap_or_else(|| view.name.clone());
            // ORDER BY and LIMIT pick the view's rows (`limit_where`).
            let order_limit = crate::sql::codegen::dml::limit_where::order_limit_sql(*order_by, *limit);
            let sql = match where_clause {
                Some(w) => format!("SELECT * FROM {} AS {} WHERE {w}{order_limit}", quote(&view.name), quote(&alias)),
                None if !order_limit.is_empty() => format!("SELECT * FROM {} AS {}{order_limit}", quote(&view.name), quote(&alias)),
                None => all,
            };
            let (tmp, names) = gather(c, &sql)?;
            let n = names.len();
            fire_each(c, &view, &names, tmp, Event::Delete, &mut |c| Ok((Some(load(c, tmp, 0, n)), None)), &[])?;
        }
        Stmt::Update { tbl_name, sets, where_clause, from, order_by, limit, .. } => {
            // ORDER BY and LIMIT pick the view's rows, or the join's with
            // FROM, where ORDER BY needs a LIMIT (`limit_where`).
            if from.is_some() && order_by.is_some() && limit.is_none() {
                return Err(crate::sql::codegen::dml::limit_where::order_without_limit("UPDATE"));
            }
            let order_limit = crate::sql::codegen::dml::limit_where::order_limit_sql(*order_by, *limit);
            let alias = tbl_name.alias.as_ref().map(|a| unquote(a.0)).unwrap_or_else(|| view.name.clone());
            // Per assignment, where its value is among the gathered columns
            // after the view's: plain values in order, then the columns of
            // each row-value subquery (see `update::collect_from_join`).
            let mut exprs = Vec::new();
            let mut assigned = Vec::new();
            let mut rows: Vec<(usize, String, usize)> = Vec::new();
            let mut places = Vec::new();
            for s in sets.iter() {
                for (name, v) in s.col_names.iter().zip(crate::sql::codegen::dml::assign::set_values(s)?) {
                    match v {
                        crate::sql::codegen::dml::assign::SetValue::Expr(e) => {
                            places.push((false, exprs.len()));
                            exprs.push(format!("({e})"));
                        }
                        crate::sql::codegen::dml::assign::SetValue::RowElement(sel, index, width) => {
                            let key = sel as *const sqlite3_parser::ast::Select<'_> as usize;
                            let before: usize = match rows.iter().position(|r| r.0 == key) {
                                Some(p) => rows[..p].iter().map(|r| r.2).sum(),
                                None => {
                                    rows.push((key, crate::sql::parse::ast_text(sel), width));
                                    rows[..rows.len() - 1].iter().map(|r| r.2).sum()
                                }
                            };
                            places.push((true, before + index));
                        }
                        crate::sql::codegen::dml::assign::SetValue::Column(..) => return Err(Error::sql("malformed UPDATE")),
                    }
                    assigned.push(crate::sql::repeated_set_columns::set_column_name(&unquote(name.0)).to_string());
                }
            }
            let extra = if exprs.is_empty() { String::new() } else { format!(", {}", exprs.join(", ")) };
            let filter = where_clause.as_ref().map(|w| format!(" WHERE {w}")).unwrap_or_default();
            // With FROM, the view's rows joined with the FROM items: the
            // triggers run once per joined row, as in SQLite.
            let (star, joined) = match from {
                Some(f) => {
                    crate::sql::codegen::dml::dml_common::check_from_target(c, &view, tbl_name.alias.as_ref().map(|a| unquote(a.0)).as_deref(), f)?;
                    (format!("{}.*", quote(&alias)), format!(", {}", crate::sql::model::from::from_text(f)))
                }
                None => ("*".to_string(), String::new()),
            };
            let sql = format!("SELECT {star}{extra} FROM {} AS {}{joined}{filter}{order_limit}", quote(&view.name), quote(&alias));
            let (tmp, mut names) = gather_with_rows(c, &sql, rows.into_iter().map(|(_, t, w)| (t, w)).collect())?;
            let n = names.len() - exprs.len();
            names.truncate(n);
            let mut targets = Vec::new();
            let mut value_columns = Vec::new();
            for (col, (row_value, k)) in assigned.into_iter().zip(places) {
                let i = names.iter().position(|x| x.eq_ci(&col)).ok_or_else(|| Error::sql(format!("no such column: {col}")))?;
                targets.push(i);
                value_columns.push(if row_value { n + exprs.len() + k } else { n + k });
            }
            let targets2 = targets.clone();
            fire_each(
                c,
                &view,
                &names,
                tmp,
                Event::Update,
                &mut |c| {
                    let old = load(c, tmp, 0, n);
                    let new = load(c, tmp, 0, n);
                    for (&i, &col) in targets2.iter().zip(&value_columns) {
                        c.b.add(Opcode::Column, tmp, col as i32, new + i as i32);
                    }
                    Ok((Some(old), Some(new)))
                },
                &targets,
            )?;
        }
        Stmt::Insert { columns, body, .. } => {
            // The view's column names, without reading any row.
            let probe = format!("{all} LIMIT 0");
            c.expansion.view_pass_once = true;
            let gathered = gather(c, &probe);
            c.expansion.view_pass_once = false;
            let (_, names) = gathered?;
            let n = names.len();
            let targets: Vec<usize> = match columns {
                Some(cols) => cols
                    .iter()
                    .map(|x| {
                        let col = unquoted(x.0);
                        let col = crate::sql::repeated_set_columns::set_column_name(&col);
                        names.iter().position(|y| y.eq_ci(col)).ok_or_else(|| Error::sql(format!("table {} has no column named {col}", view.name)))
                    })
                    .collect::<Result<_>>()?,
                None => (0..n).collect(),
            };
            let tmp = c.b.cursor();
            let supplied = match body {
                InsertBody::Select(sel, None) => {
                    c.b.add(Opcode::OpenEphemeral, tmp, 0, 0);
                    let open = c.b.insns.len() - 1;
                    let info = c.compile_select(sel, Dest::EphemTable(tmp))?;
                    c.b.insns[open].p2 = info.n_columns as i32;
                    info.n_columns
                }
                InsertBody::Select(_, Some(_)) => return Err(Error::sql("cannot UPSERT a view")),
                InsertBody::DefaultValues => {
                    c.b.add(Opcode::OpenEphemeral, tmp, 1, 0);
                    let r = c.b.regs(2);
                    c.b.add(Opcode::Null, 0, r, 0);
                    let rec = c.b.reg();
                    c.b.add(Opcode::MakeRecord, r, 1, rec);
                    c.b.add(Opcode::NewRowid, tmp, r + 1, 0);
                    c.b.add(Opcode::Insert, tmp, rec, r + 1);
                    0
                }
            };
            if supplied != targets.len() && !matches!(body, InsertBody::DefaultValues) {
                return Err(Error::sql(match columns {
                    Some(_) => format!("{supplied} values for {} columns", targets.len()),
                    None => format!("table {} has {n} columns but {supplied} values were supplied", view.name),
                }));
            }
            fire_each(
                c,
                &view,
                &names,
                tmp,
                Event::Insert,
                &mut |c| {
                    let new = c.b.regs(n.max(1));
                    for i in 0..n {
                        c.b.add(Opcode::Null, 0, new + i as i32, 0);
                    }
                    for (k, &i) in targets.iter().enumerate() {
                        // A column named again keeps its first value.
                        if supplied > 0 && !targets[..k].contains(&i) {
                            c.b.add(Opcode::Column, tmp, k as i32, new + i as i32);
                        }
                    }
                    Ok((None, Some(new)))
                },
                &[],
            )?;
        }
        _ => return Err(Error::sql("not a data-changing statement")),
    }
    c.end_program(init, Some(true));
    prog.counts_changes = true;
    Ok(())
}
