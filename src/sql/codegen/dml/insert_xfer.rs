//! The INSERT ... SELECT transfer: `INSERT INTO dst SELECT * FROM src`
//! between two tables of the same shape copies each source record as it
//! is (`RowData` then `Insert`) instead of decoding and re-encoding every
//! row, and, into an empty destination, copies each index's entries from
//! the identical source index (`RowData` then `IdxInsert`).
//!
//! The shortcut is taken only where it gives exactly what the row-by-row
//! path gives, with SQLite's rules (its "xfer" optimization): no column
//! list, no WITH, a lone `SELECT *` from one real table other than the
//! destination, both rowid tables with the same INTEGER PRIMARY KEY
//! position or both WITHOUT ROWID with the same PRIMARY KEY, the same
//! column count, per column the same affinity, collation and default (a
//! short record reads its default) and NOT NULL only where the source
//! has it too, generated columns at the same places with the same
//! expressions (the copy then runs even though the INSERT's own column
//! count leaves them out, as in SQLite), a STRICT destination only from
//! a STRICT source with the same types, the same CHECK constraints (or
//! none on the destination), no INSERT trigger, RETURNING, upsert or
//! AUTOINCREMENT, not `PRAGMA count_changes`, and every destination
//! index matched by an identical source index.
//!
//! Invariants: where a conflict could arise (a destination index without
//! an INTEGER PRIMARY KEY, a UNIQUE index or a WITHOUT ROWID table's
//! PRIMARY KEY, a conflict mode other than ABORT/ROLLBACK) the copy runs
//! only when the destination is empty at run time; otherwise the program
//! falls through to the row-by-row path compiled right after the copy.
//! So does a table with foreign keys of its own while `PRAGMA
//! foreign_keys` is on. Without an INTEGER
//! PRIMARY KEY and without indexes the rows get new rowids (`NewRowid`),
//! as the row path gives them; with indexes the destination is empty and
//! keeps the source rowids (as SQLite does), so its index entries copied
//! from the source name the right rows.

use crate::error::{Result, SQLITE_CONSTRAINT_PRIMARYKEY};
use crate::sql::codegen::target::{OnConflict, WriteTarget};
use crate::sql::codegen::Compiler;
use crate::sql::parse::{unquoted, with_first_statement};
use crate::sql::schema::{Index, IndexColumn, Table};
use crate::util::ascii::AsciiLower;
use crate::vdbe::exec::write::{OPFLAG_LASTROWID, OPFLAG_NCHANGE};
use crate::vdbe::program::{Opcode, P4};
use sqlite3_parser::ast::{Cmd, OneSelect, ResultColumn, Select, SelectTable, Stmt, TriggerEvent};

/// What `emit_transfer` compiled.
pub enum Transfer {
    /// Nothing: the statement takes the row-by-row path.
    NotApplicable,
    /// The whole INSERT.
    Complete,
    /// The copy, run only when its run-time conditions hold: the caller
    /// compiles the row path at `row_path` and binds `end` after it.
    Guarded { row_path: i32, end: i32 },
}

/// The source table of a `SELECT * FROM src` with nothing else, if the
/// statement has that shape.
fn lone_star_source(c: &Compiler<'_>, sel: &Select<'_>) -> Option<Table> {
    if sel.with.is_some() || sel.order_by.is_some() || sel.limit.is_some() || sel.body.compounds.as_ref().is_some_and(|v| !v.is_empty()) {
        return None;
    }
    let OneSelect::Select { distinctness: None, columns, from: Some(from), where_clause: None, group_by: None, having: None, window_clause: None } =
        &sel.body.select
    else {
        return None;
    };
    if !matches!(columns, [ResultColumn::Star]) || from.joins.as_ref().is_some_and(|j| !j.is_empty()) {
        return None;
    }
    let Some(SelectTable::Table(q, _, None)) = from.select else { return None };
    let db = c.target_db(q).ok()?;
    c.env.schema.table_in(db, &unquoted(q.name.0)).cloned()
}

fn same_text(a: &Option<String>, b: &Option<String>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => a.eq_ci(b),
        _ => false,
    }
}

/// An expression's syntax tree as text (spacing and layout left out), or
/// `None` when it does not parse.
fn expr_tree(text: &str) -> Option<String> {
    let sql = format!("SELECT {text}");
    with_first_statement(sql.as_bytes(), |cmd, _| {
        Ok(match cmd {
            Some(Cmd::Stmt(Stmt::Select(sel))) => match &sel.body.select {
                OneSelect::Select { columns: [ResultColumn::Expr(e, _)], .. } => Some(format!("{e:?}")),
                _ => None,
            },
            _ => None,
        })
    })
    .ok()
    .flatten()
}

/// Whether two optional expressions (index terms, partial-index WHEREs)
/// are the same expression.
fn same_expr(a: &Option<String>, b: &Option<String>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => a == b || expr_tree(a).is_some_and(|t| Some(t) == expr_tree(b)),
        _ => false,
    }
}

/// Whether the two tables have the same CHECK constraints (as SQLite
/// compares them: the expressions, not their spelling).
fn same_checks(dst: &Table, src: &Table) -> bool {
    dst.checks.len() == src.checks.len()
        && dst.checks.iter().zip(&src.checks).all(|(d, s)| d.1 == s.1 || expr_tree(&d.1).is_some_and(|t| Some(t) == expr_tree(&s.1)))
}

/// The type a STRICT column's values must have (INT and INTEGER are one).
fn strict_type(decltype: &Option<String>) -> String {
    let t = decltype.as_deref().unwrap_or("").trim().ascii_upper();
    if t == "INT" {
        "INTEGER".into()
    } else {
        t
    }
}

/// Whether rows of `src` are rows of `dst` as they are stored.
fn same_shape(dst: &Table, src: &Table) -> bool {
    if src.view_select.is_some()
        || src.unsupported.is_some()
        || src.without_rowid.is_some() != dst.without_rowid.is_some()
        || (dst.without_rowid.is_some() && dst.key_columns() != src.key_columns())
        || (src.db == dst.db && src.name.eq_ci(&dst.name))
        || src.columns.len() != dst.columns.len()
        || src.rowid_alias != dst.rowid_alias
        || (dst.strict && !src.strict)
        || (!dst.checks.is_empty() && !same_checks(dst, src))
    {
        return false;
    }
    dst.columns.iter().zip(&src.columns).enumerate().all(|(i, (d, s))| {
        let same_generated = match (&d.generated, &s.generated) {
            (None, None) => true,
            (Some(a), Some(b)) => a.stored == b.stored && same_expr(&Some(a.expr.clone()), &Some(b.expr.clone())),
            _ => false,
        };
        same_generated
            && d.affinity == s.affinity
            && same_text(&d.collation, &s.collation)
            && (!d.not_null || s.not_null)
            && (!dst.strict || strict_type(&d.decltype) == strict_type(&s.decltype))
            && (i == 0 || d.generated.is_some() || d.default == s.default)
    })
}

/// The collation an index column compares with: its own, else its table
/// column's, else BINARY.
fn index_collation(table: &Table, k: &IndexColumn) -> String {
    k.collation.clone().or_else(|| k.column.and_then(|c| table.columns.get(c)).and_then(|c| c.collation.clone())).unwrap_or_else(|| "BINARY".into())
}

/// Whether two indexes (of `dst` and of `src`, tables of the same shape)
/// hold the same entries for the same rows.
fn same_index(dst: &Table, d: &Index, src: &Table, s: &Index) -> bool {
    d.unique == s.unique
        && d.on_conflict == s.on_conflict
        && same_expr(&d.where_sql, &s.where_sql)
        && d.columns.len() == s.columns.len()
        && d.columns.iter().zip(&s.columns).all(|(a, b)| {
            a.column == b.column && same_expr(&a.expr, &b.expr) && a.descending == b.descending && index_collation(dst, a).eq_ci(&index_collation(src, b))
        })
}

/// Whether `table` has an INSERT trigger (SQLite copies rows into a table
/// with only UPDATE or DELETE triggers).
fn has_insert_trigger(c: &Compiler<'_>, table: &Table) -> bool {
    c.env.triggers_of(table).iter().any(|(_, sql)| {
        with_first_statement(sql.as_bytes(), |cmd, _| {
            Ok(!matches!(cmd, Some(Cmd::Stmt(Stmt::CreateTrigger { event: TriggerEvent::Update | TriggerEvent::UpdateOf(_) | TriggerEvent::Delete, .. }))))
        })
        .unwrap_or(true)
    })
}

/// Compile the transfer into `t` (opened for writing) when the statement
/// qualifies; see the module doc for the conditions.
pub fn emit_transfer(c: &mut Compiler<'_>, sel: &Select<'_>, t: &WriteTarget, oc: OnConflict, shape_ok: bool) -> Result<Transfer> {
    if !shape_ok || !c.dml.firing.is_empty() || !c.frame.ctes.is_empty() || c.env.settings.count_changes || c.frame.autoinc.is_some() || t.table.autoincrement {
        return Ok(Transfer::NotApplicable);
    }
    let Some(src) = lone_star_source(c, sel) else { return Ok(Transfer::NotApplicable) };
    if !same_shape(&t.table, &src) || has_insert_trigger(c, &t.table) {
        return Ok(Transfer::NotApplicable);
    }
    let src_indexes: Vec<Index> = c.env.schema.indexes_of(&src).into_iter().cloned().collect();
    let mut index_pairs = Vec::new();
    for (d, cur) in &t.indexes {
        match src_indexes.iter().find(|s| same_index(&t.table, d, &src, s)) {
            Some(s) => index_pairs.push((s.clone(), *cur)),
            None => return Ok(Transfer::NotApplicable),
        }
    }
    // The conflict mode of the rowid, as the row path would resolve it.
    let rowid_oc = match t.table.rowid_alias {
        Some(_) => oc.for_constraint(t.table.pk_conflict),
        None => oc.for_constraint(None),
    };
    let without_rowid = t.table.without_rowid.is_some();
    // (A WITHOUT ROWID table's PRIMARY KEY is a UNIQUE index.)
    let needs_empty = without_rowid
        || (t.table.rowid_alias.is_none() && !t.indexes.is_empty())
        || t.indexes.iter().any(|(i, _)| i.unique)
        || !matches!(rowid_oc, OnConflict::Abort | OnConflict::Rollback);
    // The table's own foreign keys are checked row by row while the pragma
    // is on (as SQLite, which leaves the copy out then; foreign keys of
    // other tables onto this one do not stop it).
    let fk_involved = !t.table.foreign_keys.is_empty();
    let guarded = needs_empty || fk_involved;
    let row_path = c.b.label();
    let end = c.b.label();
    if fk_involved {
        // Foreign key checks are compiled in and skipped at run time when
        // the pragma is off: only then may the copy skip them.
        let fk_off = c.b.label();
        c.b.add(Opcode::FkIfOff, 0, fk_off, 0);
        c.b.add(Opcode::Goto, 0, row_path, 0);
        c.b.bind(fk_off);
    }
    if needs_empty {
        let empty = c.b.label();
        c.b.add(Opcode::Rewind, t.cursor, empty, 0);
        c.b.add(Opcode::Goto, 0, row_path, 0);
        c.b.bind(empty);
    }
    let src_cur = c.b.cursor();
    c.stmt.dbs_used |= 1 << src.db;
    let p4 = if without_rowid { P4::KeyInfo(c.without_rowid_key_info(&src)?) } else { P4::Int64(src.columns.len() as i64) };
    c.b.add4(Opcode::OpenRead, src_cur, src.root as i32, src.db as i32, p4, 0);
    c.comment(&src.name);
    let done = c.b.label();
    c.b.add(Opcode::Rewind, src_cur, done, 0);
    let top = c.b.here();
    let rowid = c.b.reg();
    if without_rowid {
        // The record in stored order is the table's entry: it counts as a
        // change, with no rowid and nothing for the update hook.
        let rec = c.b.reg();
        c.b.add(Opcode::RowData, src_cur, rec, 0);
        c.b.add4(Opcode::IdxInsert, t.cursor, rec, 0, P4::None, OPFLAG_NCHANGE);
        c.b.add(Opcode::Next, src_cur, top as i32, 0);
    } else if t.table.rowid_alias.is_some() {
        c.b.add(Opcode::Rowid, src_cur, rowid, 0);
        if !needs_empty {
            let free = c.b.label();
            c.b.add(Opcode::NotExists, t.cursor, free, rowid);
            let pk = &t.table.columns[t.table.rowid_alias.unwrap_or(0)].name;
            c.constraint_halt(SQLITE_CONSTRAINT_PRIMARYKEY, format!("UNIQUE constraint failed: {}.{pk}", t.table.name), rowid_oc);
            c.b.bind(free);
        }
    } else if t.indexes.is_empty() {
        c.b.add(Opcode::NewRowid, t.cursor, rowid, 0);
    } else {
        c.b.add(Opcode::Rowid, src_cur, rowid, 0);
    }
    if !without_rowid {
        let rec = c.b.reg();
        c.b.add(Opcode::RowData, src_cur, rec, 0);
        c.b.add4(Opcode::Insert, t.cursor, rec, rowid, c.written(&t.table), OPFLAG_NCHANGE | OPFLAG_LASTROWID);
        c.b.add(Opcode::Next, src_cur, top as i32, 0);
    }
    for (s, dst_cur) in index_pairs {
        let idx_cur = c.b.cursor();
        let ki = c.index_key_info(&s)?;
        c.b.add4(Opcode::OpenRead, idx_cur, s.root as i32, s.db as i32, P4::KeyInfo(ki), 0);
        c.comment(&s.name);
        let idx_done = c.b.label();
        c.b.add(Opcode::Rewind, idx_cur, idx_done, 0);
        let idx_top = c.b.here();
        let entry = c.b.reg();
        c.b.add(Opcode::RowData, idx_cur, entry, 0);
        c.b.add(Opcode::IdxInsert, dst_cur, entry, 0);
        c.b.add(Opcode::Next, idx_cur, idx_top as i32, 0);
        c.b.bind(idx_done);
    }
    c.b.bind(done);
    if !guarded {
        return Ok(Transfer::Complete);
    }
    c.b.add(Opcode::Goto, 0, end, 0);
    Ok(Transfer::Guarded { row_path, end })
}
