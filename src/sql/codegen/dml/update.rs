//! UPDATE: where changing the rows cannot change which rows the WHERE
//! loop visits, each row is updated as the loop finds it (`onepass.rs`).
//! Otherwise the rowids of matching rows (the keys of a WITHOUT ROWID
//! table's) are collected first (so changed rows are never visited
//! twice), then each row is re-read, its new values computed, constraints
//! checked, old index entries removed, and the row and new index entries
//! written.
//!
//! UPDATE ... FROM runs the join of the target with the FROM items first
//! and keeps, per target rowid, the values its SET list computed on the
//! last join row that matched it (SQLite leaves the choice unspecified);
//! the rows are then updated from those values, each at most once. A WITH
//! clause is visible to the whole statement; the target itself is always
//! the table, even where a CTE has its name.

use crate::error::{Error, Result};
use crate::sql::codegen::dml::assign::{resolve_sets, Assignment, RowValues, SetValue};
use crate::sql::codegen::target::target_scope;
use crate::sql::codegen::target::OnConflict;
use crate::sql::codegen::Compiler;
use crate::sql::model::expr_shape::conjuncts;
use crate::sql::model::query::Dest;
use crate::sql::parse::{unquote, unquoted};
use crate::vdbe::exec::write::OPFLAG_NCHANGE;
use crate::vdbe::program::{Opcode, Program, P4};
use sqlite3_parser::ast::{self, FromClause, Stmt};

/// Collect the rowids of `t`'s rows matching `where_clause` into a new
/// temporary table; returns its cursor.
pub fn collect_rowids(
    c: &mut Compiler<'_>,
    table: &crate::sql::schema::Table,
    alias: Option<String>,
    where_clause: Option<&sqlite3_parser::ast::Expr<'_>>,
) -> Result<i32> {
    let tmp = c.b.cursor();
    c.b.add(Opcode::OpenEphemeral, tmp, 1, 0);
    c.frame.internal_rowid_read = true;
    c.frame.dml_target = Some(table.name.clone());
    let sql = match where_clause {
        Some(w) => format!(
            "SELECT {} FROM {} AS \"{}\" WHERE {w}",
            crate::sql::resolve::INTERNAL_ROWID,
            c.table_sql_name(table),
            alias.clone().unwrap_or_else(|| table.name.clone()).replace('"', "\"\"")
        ),
        // Every row, in rowid order as SQLite visits them (not in the order
        // of an index that happens to cover the rowid: with OR REPLACE the
        // order decides which row survives).
        None => format!("SELECT {} FROM {} NOT INDEXED", crate::sql::resolve::INTERNAL_ROWID, c.table_sql_name(table)),
    };
    let _ = conjuncts;
    let collected = crate::sql::parse::with_first_statement(sql.as_bytes(), |cmd, _| match cmd {
        Some(sqlite3_parser::ast::Cmd::Stmt(Stmt::Select(sel))) => c.compile_dml_where(sel, Dest::EphemTable(tmp)).map(|_| ()),
        _ => Err(Error::sql("malformed WHERE")),
    });
    c.frame.internal_rowid_read = false;
    c.frame.dml_target = None;
    collected?;
    Ok(tmp)
}

/// Compile an UPDATE (its WITH clause visible throughout).
pub fn compile_update(c: &mut Compiler<'_>, stmt: &Stmt<'_>, prog: &mut Program) -> Result<()> {
    let Stmt::Update { with, order_by, limit, .. } = stmt else {
        return Err(Error::sql("not an UPDATE"));
    };
    if order_by.is_some() || limit.is_some() {
        // (ORDER BY and LIMIT: the statement SQLite rewrites it to.)
        if let Some(sql) = super::limit_where::rewrite(c, stmt)? {
            return crate::sql::parse::with_first_statement(sql.as_bytes(), |cmd, _| match cmd {
                Some(sqlite3_parser::ast::Cmd::Stmt(s @ Stmt::Update { order_by: None, limit: None, .. })) => compile_update(c, s, prog),
                _ => Err(Error::sql("malformed UPDATE")),
            });
        }
    }
    let pushed = c.push_with(with.as_ref())?;
    let r = compile_update_body(c, stmt, prog);
    c.stmt.auth_ahead.end_compile_of(stmt as *const Stmt<'_> as usize);
    if pushed {
        c.frame.ctes.pop();
    }
    r
}

fn compile_update_body(c: &mut Compiler<'_>, stmt: &Stmt<'_>, prog: &mut Program) -> Result<()> {
    let Stmt::Update { with, or_conflict, tbl_name, indexed, sets, from, where_clause, returning, order_by, limit, .. } = stmt else {
        return Err(Error::sql("not an UPDATE"));
    };
    let target_db = c.target_db(tbl_name)?;
    c.stmt.auth_update_db = tbl_name.db_name.as_ref().map(|d| unquote(d.0));
    if let Some(view) = c.env.schema.table_in(target_db, &unquoted(tbl_name.name.0)).filter(|t| t.view_select.is_some()).cloned() {
        if crate::sql::codegen::dml::instead::has_instead_trigger(c, &view, stmt) {
            return crate::sql::codegen::dml::instead::compile_instead(c, stmt, view, prog);
        }
    }
    if let Some((inst, decl)) = c.vtab_target(tbl_name)? {
        return crate::sql::codegen::dml::vtab_dml::update(c, stmt, prog, inst, decl);
    }
    let table = c.writable_table(target_db, &unquoted(tbl_name.name.0))?;
    let alias = tbl_name.alias.as_ref().map(|a| unquote(a.0));
    if let Some(sqlite3_parser::ast::Indexed::IndexedBy(ix)) = indexed {
        c.check_indexed_by(&table, &unquote(ix.0))?;
        c.check_indexed_by_plan(&table, &unquote(ix.0), alias.as_deref().unwrap_or(&table.name), where_clause.as_ref())?;
    }
    if let Some(f) = from {
        super::dml_common::check_from_target(c, &table, alias.as_deref(), f)?;
    }
    let oc = c.conflict_resolution(*or_conflict);
    let mut assignments = Vec::new();
    // (SQLite resolves each value before it checks its column: the
    // value's names are asked about then, their answers kept for the
    // code, `auth.rs` `AuthAhead`; not with FROM, whose join resolves
    // them later.)
    let key = stmt as *const Stmt<'_> as usize;
    let ask_values = c.stmt.authorizer.is_some() && from.is_none();
    let resolved = match resolve_sets(&table, sets, true) {
        Ok(r) => r,
        // SQLite resolves each SET item's expression before it looks its
        // column up: a name error in an earlier (or the same) item's
        // value comes first. (Only without FROM: with one, the join
        // resolves the values.)
        Err(e) if from.is_none() && e.message.starts_with("no such column: ") => {
            c.names.scopes.push(target_scope(&table, alias.clone(), -1));
            let mut first = Err(e.clone());
            for (k, s) in sets.iter().enumerate() {
                if let Err(value_error) = c.check_plain_names_in(&[&s.expr]) {
                    first = Err(value_error);
                    break;
                }
                if resolve_sets(&table, &sets[k..=k], true).is_err() {
                    break;
                }
            }
            c.names.scopes.pop();
            return first;
        }
        Err(e) => return Err(e),
    };
    for (i, v) in resolved {
        crate::sql::codegen::dml::generated::refuse_target(&table, i, "UPDATE")?;
        if ask_values {
            c.names.scopes.push(target_scope(&table, alias.clone(), -1));
            let asked = match v {
                SetValue::Expr(e) => c.ask_value_ahead(Some(e), None, key),
                SetValue::RowElement(sel, 0, _) => c.ask_value_ahead(None, Some(sel), key),
                SetValue::RowElement(..) | SetValue::Column(..) => Ok(()),
            };
            c.names.scopes.pop();
            asked?;
        }
        if c.stmt.authorizer.is_some() {
            let col = table.columns.get(i).map_or_else(|| "ROWID".to_string(), |col| col.name.clone());
            let db = c.db_name(table.db);
            if c.authorize(crate::sql::codegen::auth::action::UPDATE, Some(&table.name), Some(&col), Some(&db))? == crate::sql::codegen::auth::Verdict::Ignore {
                // SQLite leaves a column the authorizer ignores unchanged.
                continue;
            }
        }
        assignments.push((i, v));
    }
    if ask_values {
        // (Then the WHERE clause, before any code.)
        if let Some(w) = where_clause {
            c.ask_where_ahead(&table, alias.clone(), w, key)?;
        }
        c.stmt.auth_ahead.begin_compile(key);
    }
    let init = c.begin_program();
    let unopened = untouched_indexes_without_collation(c, &table, &assignments, oc);
    let mut t = c.open_write_target_but(table.clone(), &|i| unopened.iter().any(|n| n == &i.name))?;
    c.setup_returning(*returning, &table, prog)?;
    // SQLite resolves the SET list before WHERE: its first name error is
    // the one reported (with FROM, the join resolves them in that order).
    // (WHERE is in the list so that a subquery of the SET list is looked
    // into when only WHERE names something missing.)
    if from.is_none() {
        c.names.scopes.push(target_scope(&table, alias.clone(), t.cursor));
        let values: Vec<&sqlite3_parser::ast::Expr<'_>> = sets.iter().map(|s| &s.expr).chain(where_clause.as_ref()).collect();
        // (The internal name of the rowid is one too: `limit_where` may
        // write it.)
        let internal = std::mem::replace(&mut c.frame.internal_rowid_read, true);
        let checked = c.check_plain_names_in(&values);
        c.frame.internal_rowid_read = internal;
        c.names.scopes.pop();
        checked?;
    }
    if from.is_none() && c.onepass_allowed(&table, with.is_some(), where_clause.as_ref(), returning.is_some(), oc, Some(&assignments)) {
        let end = c.b.label();
        if where_clause.is_none() && c.stmt.authorizer.is_none() {
            // Every row: the write cursor itself walks the table (an
            // update in place leaves it on the row, so Next goes on).
            c.names.scopes.push(target_scope(&table, alias, t.cursor));
            c.b.add(Opcode::Rewind, t.cursor, end, 0);
            let top = c.b.here();
            let next = c.b.label();
            let rid = c.b.reg();
            c.b.add(Opcode::Rowid, t.cursor, rid, 0);
            update_row(c, &t, rid, &assignments, oc, next)?;
            c.b.bind(next);
            c.b.add(Opcode::Next, t.cursor, top as i32, 0);
        } else {
            let loop_start = c.b.here();
            let (co, rid) = c.onepass_rowids(&table, alias.clone(), where_clause.as_ref())?;
            c.onepass_share_cursors(&mut t, loop_start, false);
            c.names.scopes.push(target_scope(&table, alias, t.cursor));
            let top = c.b.here();
            c.b.add(Opcode::Yield, co, end, 0);
            c.seek_target(&t, rid, top as i32);
            update_row(c, &t, rid, &assignments, oc, top as i32)?;
            c.b.add(Opcode::Goto, 0, top as i32, 0);
        }
        c.b.bind(end);
        prog.no_statement_savepoint = c.onepass_cannot_abort();
        return finish_update(c, prog, init);
    }
    // Without FROM the rowids are collected and each row's values computed
    // when it is updated; with FROM the join computes the values, kept
    // (one row per target row) beside the rowid.
    let (tmp, width) = match from {
        None => c.collect_targets(&table, alias.clone(), where_clause.as_ref())?,
        Some(f) => {
            // ORDER BY and LIMIT apply to the target rows the join found:
            // with a LIMIT the join's rows are grouped by the target's
            // rowid or key first (so the LIMIT counts target rows, and
            // each takes its values from the first join row that matched
            // it, as SQLite's grouping gives), then ordered and limited.
            if order_by.is_some() && limit.is_none() {
                return Err(super::limit_where::order_without_limit("UPDATE"));
            }
            let order_limit = super::limit_where::order_limit_sql(*order_by, *limit);
            let (tmp, columns, width) = collect_from_join(c, &table, alias.clone(), f, where_clause.as_ref(), &order_limit, &assignments)?;
            for (a, col) in assignments.iter_mut().zip(columns) {
                a.1 = SetValue::Column(tmp, col);
            }
            (tmp, width)
        }
    };
    c.names.scopes.push(target_scope(&table, alias, t.cursor));
    let end = c.b.label();
    c.b.add(Opcode::Rewind, tmp, end, 0);
    let top = c.b.here();
    let next = c.b.label();
    let (key, rid) = c.load_target(&table, tmp, width);
    c.seek_target(&t, key, next);
    update_row(c, &t, rid, &assignments, oc, next)?;
    c.emit_returning(&t)?;
    c.b.bind(next);
    c.b.add(Opcode::Next, tmp, top as i32, 0);
    c.b.bind(end);
    finish_update(c, prog, init)
}

/// The indexes of `table` whose collation is not defined on this
/// connection and that this UPDATE cannot need: SQLite opens only the
/// indexes whose key may change (all of them where a REPLACE may delete
/// another row), so only those need their collation. Conservatively,
/// an index is needed when triggers, generated columns or a new rowid or
/// key are involved, when it has expressions or a WHERE clause, or when
/// it keys on an assigned column.
fn untouched_indexes_without_collation(c: &Compiler<'_>, table: &crate::sql::schema::Table, assignments: &[Assignment<'_, '_>], oc: OnConflict) -> Vec<String> {
    use sqlite3_parser::ast::ResolveType;
    let indexes = c.env.schema.indexes_of(table);
    let replace = matches!(oc, OnConflict::Replace)
        || (matches!(oc, OnConflict::Default)
            && (table.pk_conflict == Some(ResolveType::Replace) || indexes.iter().any(|i| i.on_conflict == Some(ResolveType::Replace))));
    let broad = replace
        || table.without_rowid.is_some()
        || table.columns.iter().any(|col| col.generated.is_some())
        || !c.env.triggers_of(table).is_empty()
        || assignments.iter().any(|(col, _)| *col == usize::MAX || table.rowid_alias == Some(*col));
    if broad {
        return Vec::new();
    }
    indexes
        .into_iter()
        .filter(|idx| {
            let keyed = idx.where_sql.is_some() || idx.columns.iter().any(|k| k.column.is_none_or(|col| assignments.iter().any(|(a, _)| *a == col)));
            !keyed && c.index_key_info(idx).is_err()
        })
        .map(|idx| idx.name.clone())
        .collect()
}

/// What every UPDATE program ends with, one pass or two: leave the
/// target's scope, finish RETURNING, report the change count.
fn finish_update(c: &mut Compiler<'_>, prog: &mut Program, init: usize) -> Result<()> {
    c.names.scopes.pop();
    c.finish_returning();
    c.emit_change_count_row(prog, "rows updated");
    c.end_program(init, Some(true));
    prog.counts_changes = true;
    Ok(())
}

/// UPDATE ... FROM: run the join of the target with the FROM items, and
/// keep for each target row its rowid and assigned values (of the last
/// join row that matched it: SQLite leaves which one unspecified) in a
/// new temporary table. A WITHOUT ROWID target's rows are kept by key
/// instead, in a temporary index where a later join row of the same key
/// replaces the earlier one. With a LIMIT (`order_limit` not empty), the
/// join's rows are grouped by target row before it applies. Returns its
/// cursor, per assignment the column holding its value (plain values
/// follow the rowid or key in order, then the columns of each row-value
/// subquery, computed by the join query after its result columns, see
/// `Compiler::row_values_after`), and the width of the rowid or key.
fn collect_from_join(
    c: &mut Compiler<'_>,
    table: &crate::sql::schema::Table,
    alias: Option<String>,
    from: &FromClause<'_>,
    where_clause: Option<&ast::Expr<'_>>,
    order_limit: &str,
    assignments: &[Assignment<'_, '_>],
) -> Result<(i32, Vec<i32>, usize)> {
    let quote = |s: &str| format!("\"{}\"", s.replace('"', "\"\""));
    let name = alias.unwrap_or_else(|| table.name.clone());
    let key: Vec<String> = match &table.without_rowid {
        Some(_) => {
            table.record_columns().into_iter().take(table.key_width()).map(|col| format!("{}.{}", quote(&name), quote(&table.columns[col].name))).collect()
        }
        None => vec![format!("{}.{}", quote(&name), crate::sql::resolve::INTERNAL_ROWID)],
    };
    let key_width = key.len() as i32;
    let mut values = String::new();
    let n_plain = assignments.iter().filter(|(_, v)| matches!(v, SetValue::Expr(_))).count() as i32;
    let mut rows: Vec<(usize, String, usize)> = Vec::new();
    let mut columns = Vec::new();
    let mut plain = 0;
    for (_, v) in assignments {
        match v {
            SetValue::Expr(e) => {
                values.push_str(&format!(", ({e})"));
                plain += 1;
                columns.push(key_width - 1 + plain);
            }
            SetValue::RowElement(sel, index, width) => {
                let key = *sel as *const ast::Select<'_> as usize;
                let before: usize = match rows.iter().position(|r| r.0 == key) {
                    Some(p) => rows[..p].iter().map(|r| r.2).sum(),
                    None => {
                        rows.push((key, crate::sql::parse::ast_text(*sel), *width));
                        rows[..rows.len() - 1].iter().map(|r| r.2).sum()
                    }
                };
                columns.push(key_width + n_plain + (before + index) as i32);
            }
            SetValue::Column(..) => return Err(Error::sql("malformed UPDATE ... FROM")),
        }
    }
    let width = key_width as usize + n_plain as usize + rows.iter().map(|r| r.2).sum::<usize>();
    let filter = where_clause.map(|w| format!(" WHERE {w}")).unwrap_or_default();
    // The target joins the FROM clause as a whole: with a RIGHT or FULL
    // JOIN in it, `target, a RIGHT JOIN b` would NULL-fill the target with
    // `a`, so the target goes last.
    let outer_right =
        from.joins.iter().flat_map(|j| j.iter()).any(|j| matches!(&j.operator, ast::JoinOperator::TypedJoin(Some(t)) if t.contains(ast::JoinType::RIGHT)));
    let target = format!("{}.{} AS {}", quote(&c.db_name(table.db)), quote(&table.name), quote(&name));
    let joined = if outer_right {
        format!("{}, {target}", crate::sql::model::from::from_text(from))
    } else {
        format!("{target}, {}", crate::sql::model::from::from_text(from))
    };
    // Only a LIMIT gives `order_limit` text (ORDER BY alone was refused).
    let group = if !order_limit.is_empty() { format!(" GROUP BY {}", key.join(", ")) } else { String::new() };
    let sql = format!("SELECT {}{values} FROM {joined}{filter}{group}{order_limit}", key.join(", "));
    let tmp = c.b.cursor();
    let dest = if table.without_rowid.is_some() {
        let ki = c.without_rowid_key_info(table)?;
        c.b.add4(Opcode::OpenEphemeral, tmp, width as i32, 0, P4::KeyInfo(ki), 0);
        Dest::EphemIndexKeyed(tmp, key_width as usize)
    } else {
        c.b.add(Opcode::OpenEphemeral, tmp, width as i32, 0);
        Dest::EphemKeyed(tmp)
    };
    c.frame.internal_rowid_read = true;
    c.frame.dml_target = Some(table.name.clone());
    c.frame.row_values_after = rows.into_iter().map(|(_, text, w)| (text, w)).collect();
    // (SQLite codes the join as a SELECT of its own: its SQLITE_SELECT
    // check, then its names as any SELECT's.)
    let from_auth = c.stmt.auth_update_from.replace(table.name.clone());
    let collected = crate::sql::parse::with_first_statement(sql.as_bytes(), |cmd, _| match cmd {
        Some(sqlite3_parser::ast::Cmd::Stmt(Stmt::Select(sel))) => c.authorize_subquery(sel, false).and_then(|()| c.compile_select(sel, dest)).map(|_| ()),
        _ => Err(Error::sql("malformed UPDATE ... FROM")),
    });
    c.stmt.auth_update_from = from_auth;
    c.frame.internal_rowid_read = false;
    c.frame.dml_target = None;
    c.frame.row_values_after.clear();
    collected?;
    Ok((tmp, columns, key_width as usize))
}

/// Update the row of `t` under its cursor (rowid in `rid`): new values
/// from `assignments` (column, expression; `usize::MAX` is the rowid),
/// constraint checks, index maintenance, the write. `next` is where
/// OR IGNORE goes.
pub fn update_row(
    c: &mut Compiler<'_>,
    t: &crate::sql::codegen::target::WriteTarget,
    rid: i32,
    assignments: &[Assignment<'_, '_>],
    oc: OnConflict,
    next: i32,
) -> Result<()> {
    let table = &t.table;
    let n = table.columns.len();
    // When nothing reads the old row's values once the new ones are
    // assigned (no trigger, foreign key, generated column or WITHOUT ROWID
    // key, no index whose key may change, the rowid not assigned), the
    // row is read straight into the new row's registers, but for the
    // assigned columns, as SQLite reads it: no second set of registers
    // and no copy of every value (a text column's copy is an allocation
    // per row). The assigned expressions read the cursor, not registers.
    let simple = simple_row_update(c, table, assignments);
    let (old, new) = if simple {
        let new = read_unassigned(c, t, assignments);
        (new, new)
    } else {
        let old = c.read_row(t)?;
        let new = c.b.regs(n);
        c.b.add(Opcode::Copy, old, new, n as i32 - 1);
        (old, new)
    };
    let new_rowid = c.b.reg();
    c.b.add(Opcode::SCopy, rid, new_rowid, 0);
    let mut rowid_changes = false;
    let mut row_values = RowValues::default();
    for (i, v) in assignments {
        if *i == usize::MAX {
            c.assigned_value(v, new_rowid, &mut row_values)?;
            rowid_changes = true;
        } else {
            c.assigned_value(v, new + *i as i32, &mut row_values)?;
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
    // A WITHOUT ROWID row moves when a key column changes (and every index
    // entry ends with the key).
    let moves = table.without_rowid.as_ref().is_some_and(|pk| pk.iter().any(|(c, _, _)| changed.contains(c)));
    // BEFORE triggers see the generated columns' new values.
    c.compute_generated(t, new, new_rowid)?;
    c.fire_triggers(t, crate::sql::codegen::target::Event::Update, true, Some((old, rid)), Some((new, new_rowid)), &changed, next)?;
    if !c.env.triggers_of(table).is_empty() {
        // A BEFORE trigger may have moved the cursor or removed the row
        // (then it is not updated).
        let key = if table.without_rowid.is_some() { c.key_of_row(table, old) } else { rid };
        c.seek_target(t, key, next);
    }
    c.compute_generated(t, new, new_rowid)?;
    c.check_not_null(t, new, oc, next)?;
    // (MakeRecord applies the affinity to what it stores: the registers
    // themselves need it only where something else reads them, a STRICT
    // type check, a CHECK constraint, the pre-update hook or RETURNING.)
    if !(simple && !table.strict && table.checks.is_empty() && !c.env.preupdate_hooked && c.dml.returning.is_none()) {
        c.b.add4(Opcode::Affinity, new, n as i32, 0, P4::affinity(table.affinity_string()), 0);
    }
    c.check_strict(t, new);
    c.check_checks(t, new, new_rowid, oc, next)?;
    // Indexes whose key cannot change keep their entries: no uniqueness
    // check, no delete and re-insert (as SQLite does). A key changes with
    // the rowid, with an assigned column, with a generated column (any may
    // depend on an assigned one), and a partial index's WHERE or an
    // indexed expression may read any column. With triggers on the table every index is
    // rewritten, as before (a BEFORE trigger may itself change the row).
    let has_generated = table.columns.iter().any(|col| col.generated.is_some());
    let all_indexes = rowid_changes || moves || !c.env.triggers_of(table).is_empty();
    // An expression in the key may read any column, and so may a
    // generated column.
    let key_changes = |idx: &crate::sql::schema::Index| {
        all_indexes
            || idx.where_sql.is_some()
            || idx.columns.iter().any(|ic| match ic.column {
                Some(col) => changed.contains(&col) || (has_generated && !changed.is_empty() && table.columns[col].generated.is_some()),
                None => !changed.is_empty(),
            })
    };
    let indexes: Vec<(crate::sql::schema::Index, i32)> = t.indexes.iter().filter(|(idx, _)| key_changes(idx)).cloned().collect();
    c.check_unique_of(t, &indexes, new, new_rowid, Some((old, rid)), rowid_changes || moves, oc, next)?;
    let fk = c.fk_involved(table);
    if fk {
        c.fk_check_child(table, old, -1, Some(&changed))?;
        c.fk_check_parent(table, old, rid, 1, Some(&changed))?;
    }
    // Remove the old index entries and, if the rowid moves, the old row.
    for (idx, cur) in indexes.clone() {
        let guard = c.partial_guard(t, &idx, old, rid)?;
        let k = c.index_key_of(table, &idx, old, rid)?;
        c.b.add(Opcode::IdxDelete, cur, k, table.index_entry_width(&idx) as i32);
        if let Some(g) = guard {
            c.b.bind(g);
        }
    }
    if table.without_rowid.is_some() {
        // The old entry goes; the new one is written under its key.
        let old_key = c.key_of_row(table, old);
        let gone = c.b.label();
        c.seek_target(t, old_key, gone);
        // (The pre-update hook hears of the UPDATE here: P2 holds the new
        // row.)
        let written = c.written(table);
        c.b.add4(Opcode::Delete, t.cursor, new, 0, written, crate::vdbe::exec::write::OPFLAG_ISUPDATE);
        c.b.bind(gone);
    } else {
        // The pre-update hook hears of the change once, from a Delete
        // flagged ISUPDATE (P2: the new row's registers, P3: its rowid),
        // as in SQLite: the real delete of a row whose rowid changes, else
        // one that deletes nothing.
        use crate::vdbe::exec::write::{OPFLAG_ISNOOP, OPFLAG_ISUPDATE};
        let written = c.written(table);
        let done = c.b.label();
        if rowid_changes {
            let same = c.b.label();
            c.b.add4(Opcode::Eq, rid, same, new_rowid, P4::None, 0);
            c.b.add(Opcode::NotExists, t.cursor, done, rid);
            c.b.add4(Opcode::Delete, t.cursor, new, new_rowid, written.clone(), OPFLAG_ISUPDATE);
            c.b.add(Opcode::Goto, 0, done, 0);
            c.b.bind(same);
        }
        c.b.add4(Opcode::Delete, t.cursor, new, new_rowid, written, OPFLAG_ISUPDATE | OPFLAG_ISNOOP);
        c.b.bind(done);
    }
    let flags = if c.dml.firing.is_empty() {
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
    c.fire_triggers(t, crate::sql::codegen::target::Event::Update, false, Some((old, rid)), Some((new, new_rowid)), &changed, next)?;
    Ok(())
}

/// Whether an UPDATE of `table` by `assignments` never reads the old row's
/// registers after the new values are assigned (see [`update_row`]): no
/// triggers (they see old.*), foreign keys, generated or VIRTUAL columns,
/// WITHOUT ROWID key, rowid or INTEGER PRIMARY KEY assignment, and no
/// index whose entry must be rewritten (its old key is built from the
/// old values).
fn simple_row_update(c: &Compiler<'_>, table: &crate::sql::schema::Table, assignments: &[Assignment<'_, '_>]) -> bool {
    let rowid_assigned = assignments.iter().any(|(i, _)| *i == usize::MAX || table.rowid_alias == Some(*i));
    let key_may_change = |idx: &crate::sql::schema::Index| {
        idx.where_sql.is_some() || idx.columns.iter().any(|ic| ic.column.is_none_or(|col| assignments.iter().any(|(i, _)| *i == col)))
    };
    c.env.triggers_of(table).is_empty()
        && !c.fk_involved(table)
        && table.without_rowid.is_none()
        && !table.columns.iter().any(|col| col.generated.is_some())
        && !rowid_assigned
        && !assignments.is_empty()
        && !c.env.schema.indexes_of(table).into_iter().any(key_may_change)
}

/// The row under the cursor into new registers laid out as
/// [`Compiler::read_row`] lays them out, except the assigned columns
/// (their registers are written by the assignments). Only for a
/// [`simple_row_update`] (a rowid table without VIRTUAL columns).
fn read_unassigned(c: &mut Compiler<'_>, t: &crate::sql::codegen::target::WriteTarget, assignments: &[Assignment<'_, '_>]) -> i32 {
    let table = &t.table;
    debug_assert!(table.without_rowid.is_none() && !table.has_virtual());
    let regs = c.b.regs(table.columns.len());
    for i in 0..table.columns.len() {
        if assignments.iter().any(|(a, _)| *a == i) {
            continue;
        }
        if table.rowid_alias == Some(i) {
            c.b.add(Opcode::Rowid, t.cursor, regs + i as i32, 0);
        } else if let Some(field) = table.field_of(i) {
            let d = crate::sql::codegen::expr::default_p4(table, i);
            c.b.add4(Opcode::Column, t.cursor, field as i32, regs + i as i32, d, 0);
        }
    }
    regs
}
