//! UPSERT: an INSERT's ON CONFLICT clauses.
//!
//! Each clause names a conflict target (the rowid, or the columns of a
//! UNIQUE index; a partial index only with its own WHERE) except possibly
//! the last. For each row, as SQLite orders its checks: the targets of the
//! clauses are checked first, in clause order (a constraint named twice
//! belongs to its first clause); a conflict there runs that clause (DO
//! NOTHING, or DO UPDATE of the existing row) instead of the insert. Then
//! a last clause without target covers every other uniqueness constraint
//! (the rowid, then the indexes newest first): DO UPDATE updates the row
//! of the first conflict; DO NOTHING makes the remaining uniqueness
//! checks IGNORE. NOT NULL and CHECK constraints are never affected.

use crate::error::{Error, Result};
use crate::sql::codegen::dml::assign::{resolve_sets, Assignment};
use crate::sql::codegen::target::{OnConflict, WriteTarget};
use crate::sql::codegen::Compiler;
use crate::sql::parse::unquote;
use crate::util::ascii::AsciiLower;
use crate::vdbe::program::{Opcode, P4};
use sqlite3_parser::ast::{self, Expr, UpsertDo};

/// What a clause's conflict target is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Target {
    /// The rowid (or INTEGER PRIMARY KEY); a WITHOUT ROWID table's
    /// PRIMARY KEY.
    Rowid,
    /// A UNIQUE index (position in the write target's indexes).
    Index(usize),
}

enum Action<'a, 'b> {
    Nothing,
    Update(Vec<Assignment<'a, 'b>>, Option<&'a Expr<'b>>),
}

struct Clause<'a, 'b> {
    target: Option<Target>,
    action: Action<'a, 'b>,
}

/// The ON CONFLICT clauses of an INSERT, resolved against its table.
pub struct Upserts<'a, 'b> {
    clauses: Vec<Clause<'a, 'b>>,
}

/// Resolve the chain of ON CONFLICT clauses starting at `u`.
pub fn resolve<'a, 'b>(c: &mut Compiler<'_>, t: &WriteTarget, u: &'a ast::Upsert<'b>) -> Result<Upserts<'a, 'b>> {
    let mut chain = vec![u];
    while let Some(next) = chain.last().and_then(|u| u.next) {
        chain.push(next);
    }
    let several = chain.len() > 1;
    let mut clauses = Vec::new();
    for (k, u) in chain.iter().enumerate() {
        if let Some(ix) = &u.index {
            missing_subquery_table(c, ix)?;
            unknown_column(t, ix)?;
        }
        let target = match &u.index {
            None => None,
            Some(ix) => match find_target(t, ix)? {
                Some(target) => Some(target),
                None if several => {
                    return Err(Error::sql(format!(
                        "{} ON CONFLICT clause does not match any PRIMARY KEY or UNIQUE constraint",
                        crate::sql::parse::ordinal(k + 1)
                    )))
                }
                None => return Err(Error::sql("ON CONFLICT clause does not match any PRIMARY KEY or UNIQUE constraint")),
            },
        };
        let action = match &u.do_clause {
            UpsertDo::Nothing => Action::Nothing,
            UpsertDo::Set { sets, where_clause } => Action::Update(resolve_sets(&t.table, sets, false)?, where_clause.as_ref()),
        };
        clauses.push(Clause { target, action });
    }
    let _ = c;
    Ok(Upserts { clauses })
}

/// A name in a conflict target's expressions or WHERE that is not a
/// column of the table: reported before the target is matched, as SQLite
/// resolves them first (a double-quoted name not a column is a string).
fn unknown_column(t: &WriteTarget, ix: &ast::UpsertIndex<'_>) -> Result<()> {
    let mut missing: Option<String> = None;
    let exprs = ix.targets.iter().map(|sc| &sc.expr).chain(ix.where_clause.iter());
    for e in exprs {
        crate::sql::model::expr_shape::walk(e, &mut |x| {
            if let Expr::Id(id) = x {
                let name = unquote(id.0);
                let known = id.0.starts_with('"')
                    || t.table.column_index(&name).is_some()
                    || (t.table.without_rowid.is_none() && ["rowid", "oid", "_rowid_"].iter().any(|r| r.eq_ci(&name)))
                    || name.eq_ci("true")
                    || name.eq_ci("false");
                if !known && missing.is_none() {
                    missing = Some(name);
                }
            }
            true
        });
    }
    match missing {
        Some(name) => Err(Error::sql(format!("no such column: {name}"))),
        None => Ok(()),
    }
}

/// SQLite resolves a conflict target's expressions before it matches
/// them with the table's constraints: a subquery there reading a table
/// that does not exist is reported first. (Only that error is looked for
/// here; a target with a subquery never matches an index anyway.)
fn missing_subquery_table(c: &Compiler<'_>, ix: &ast::UpsertIndex<'_>) -> Result<()> {
    let mut missing: Option<String> = None;
    let mut check = |sel: &ast::Select<'_>| {
        let ast::OneSelect::Select { from: Some(from), .. } = &sel.body.select else { return };
        let tables = from.select.into_iter().chain(from.joins.iter().flat_map(|j| j.iter().map(|j| &j.table)));
        for st in tables {
            if let ast::SelectTable::Table(qn, _, _) = st {
                let name = unquote(qn.name.0);
                let known = qn.db_name.is_some()
                    || sel.with.is_some()
                    || c.cte(&name).is_some()
                    || name.ascii_lower().starts_with("pragma_")
                    || name.ascii_lower().starts_with("sqlite_")
                    || c.env.schema.table_in(None, &name).is_some();
                if !known && missing.is_none() {
                    missing = Some(name);
                }
            }
        }
    };
    for sc in ix.targets.iter() {
        crate::sql::model::expr_shape::walk(&sc.expr, &mut |x| {
            match x {
                Expr::Subquery(sel) | Expr::Exists(sel) => check(sel),
                Expr::InSelect { rhs, .. } => check(rhs),
                _ => {}
            }
            true
        });
    }
    match missing {
        Some(name) => Err(Error::sql(format!("no such table: {name}"))),
        None => Ok(()),
    }
}

/// The constraint a conflict target names, if any matches. Each target
/// names a column or repeats an indexed expression (compared in
/// `index_expr::normal_form`).
fn find_target(t: &WriteTarget, ix: &ast::UpsertIndex<'_>) -> Result<Option<Target>> {
    let mut cols = Vec::new();
    let mut rowid = false;
    // Target columns named with a COLLATE: the index must use it.
    let mut collated: Vec<(String, String)> = Vec::new();
    // Expression targets: (normal form, COLLATE named).
    let mut exprs: Vec<(String, Option<String>)> = Vec::new();
    for sc in ix.targets.iter() {
        // Parentheses around a target or its COLLATE change nothing.
        let mut e = &sc.expr;
        let mut target_collation = None;
        loop {
            match e {
                Expr::Parenthesized(v) if v.len() == 1 => e = &v[0],
                Expr::Collate(inner, c) if target_collation.is_none() => {
                    target_collation = Some(unquote(c));
                    e = &**inner;
                }
                _ => break,
            }
        }
        if let (Expr::Id(id), Some(c)) = (e, &target_collation) {
            collated.push((unquote(id.0), c.clone()));
        }
        let n = match e {
            Expr::Id(id) => unquote(id.0),
            Expr::Name(n) => unquote(n.0),
            other => {
                exprs.push((crate::sql::codegen::expr::index_expr::normal_form(&other.to_string(), Some(&t.table.name)), target_collation));
                continue;
            }
        };
        match t.table.column_index(&n) {
            Some(i) => cols.push(i),
            None if t.table.without_rowid.is_none() && ["rowid", "oid", "_rowid_"].iter().any(|r| r.eq_ci(&n)) => rowid = true,
            None => return Err(Error::sql(format!("no such column: {n}"))),
        }
    }
    if exprs.is_empty() && (rowid || (cols.len() == 1 && t.table.rowid_alias == Some(cols[0]))) {
        return Ok((ix.targets.len() == 1).then_some(Target::Rowid));
    }
    cols.sort_unstable();
    if let Some(pk) = &t.table.without_rowid {
        let mut key: Vec<usize> = pk.iter().map(|(c, _, _)| *c).collect();
        key.sort_unstable();
        key.dedup();
        let mut named = cols.clone();
        named.dedup();
        if exprs.is_empty() && named == key {
            return Ok(Some(Target::Rowid));
        }
    }
    let target_where = ix.where_clause.as_ref().map(|w| w.to_string());
    let found = t.indexes.iter().position(|(idx, _)| {
        let mut ic: Vec<usize> = idx.columns.iter().filter_map(|x| x.column).collect();
        ic.sort_unstable();
        // Each indexed expression is named once; a target naming a
        // collation must name the index's.
        let mut ie: Vec<Option<(String, &str)>> = idx
            .columns
            .iter()
            .filter(|x| x.column.is_none())
            .map(|x| {
                Some((crate::sql::codegen::expr::index_expr::normal_form(x.expr.as_deref().unwrap_or(""), None), x.collation.as_deref().unwrap_or("BINARY")))
            })
            .collect();
        let exprs_match = ie.len() == exprs.len()
            && exprs.iter().all(|(want, coll)| {
                let found = ie.iter().position(|x| x.as_ref().is_some_and(|(nf, own)| nf == want && coll.as_ref().is_none_or(|c| c.eq_ci(own))));
                found.map(|k| ie[k] = None).is_some()
            });
        // A partial index is named only together with its own WHERE.
        let where_matches = match (&idx.where_sql, &target_where) {
            (None, _) => true,
            (Some(a), Some(b)) => a.eq_ci(b),
            (Some(_), None) => false,
        };
        let collations_match = collated.iter().all(|(name, coll)| {
            let Some(col) = t.table.column_index(name) else { return false };
            idx.columns.iter().filter(|x| x.column == Some(col)).all(|x| {
                let own = x.collation.as_deref().or(t.table.columns[col].collation.as_deref()).unwrap_or("BINARY");
                own.eq_ci(coll)
            })
        });
        idx.unique && ic == cols && exprs_match && where_matches && collations_match
    });
    Ok(found.map(Target::Index))
}

impl Upserts<'_, '_> {
    /// The conflict resolution for the uniqueness checks left after
    /// `emit`: IGNORE under a last DO NOTHING without target.
    pub fn unique_conflict(&self, oc: OnConflict) -> OnConflict {
        match self.clauses.last() {
            Some(Clause { target: None, action: Action::Nothing }) => OnConflict::Ignore,
            _ => oc,
        }
    }

    /// The ON CONFLICT checks for one row (in `row`, rowid in `rowid`;
    /// `rowid_given`: the rowid was supplied, so it may conflict): a clause
    /// that applies runs and jumps to `skip`, past the insert.
    pub fn emit(&self, c: &mut Compiler<'_>, t: &WriteTarget, row: i32, rowid: i32, rowid_given: bool, skip: i32) -> Result<()> {
        let mut handled: Vec<Target> = Vec::new();
        for clause in &self.clauses {
            let Some(target) = clause.target else { continue };
            if handled.contains(&target) {
                continue;
            }
            emit_clause(c, t, row, rowid, target, &clause.action, skip)?;
            handled.push(target);
        }
        if let Some(Clause { target: None, action: action @ Action::Update(..) }) = self.clauses.last() {
            if rowid_given && !handled.contains(&Target::Rowid) {
                emit_clause(c, t, row, rowid, Target::Rowid, action, skip)?;
            }
            for i in (0..t.indexes.len()).rev() {
                if t.indexes[i].0.unique && !handled.contains(&Target::Index(i)) {
                    emit_clause(c, t, row, rowid, Target::Index(i), action, skip)?;
                }
            }
        }
        Ok(())
    }
}

/// On a conflict with `target`, do nothing or update the existing row, and
/// skip the insert.
fn emit_clause(c: &mut Compiler<'_>, t: &WriteTarget, row: i32, rowid: i32, target: Target, action: &Action<'_, '_>, skip: i32) -> Result<()> {
    let ok = c.b.label();
    let existing = c.b.reg();
    let mut guard = None;
    match target {
        Target::Rowid if t.table.without_rowid.is_some() => {
            // The cursor lands on the conflicting row (its rowid register,
            // like this row's, holds NULL).
            let key = c.key_of_row(&t.table, row);
            c.b.add4(Opcode::NoConflict, t.cursor, ok, key, P4::Int64(t.table.key_width() as i64), 0);
            c.b.add(Opcode::Null, 0, existing, 0);
        }
        Target::Rowid => {
            c.b.add(Opcode::NotExists, t.cursor, ok, rowid);
            c.b.add(Opcode::SCopy, rowid, existing, 0);
        }
        Target::Index(i) => {
            let (idx, cur) = t.indexes[i].clone();
            // A row a partial index does not cover cannot conflict in it.
            guard = c.partial_guard(t, &idx, row, rowid)?;
            let k = c.index_key_of(&t.table, &idx, row, rowid)?;
            c.b.add4(Opcode::NoConflict, cur, ok, k, P4::Int64(idx.columns.len() as i64), 0);
            if t.table.without_rowid.is_some() {
                c.seek_table_from_index(&t.table, &idx, cur, t.cursor, skip);
                c.b.add(Opcode::Null, 0, existing, 0);
            } else {
                c.b.add(Opcode::IdxRowid, cur, existing, 0);
                c.b.add(Opcode::NotExists, t.cursor, skip, existing);
            }
        }
    }
    if let Action::Update(assignments, cond) = action {
        // The existing row is under the table cursor; `excluded.x` reads
        // the row that failed to go in.
        let excluded = c.b.cursor();
        // `INSERT INTO t AS x ... DO UPDATE` names the existing row `x`.
        let scope = crate::sql::codegen::target::target_scope(&t.table, c.frame.insert_alias.clone(), t.cursor);
        let mut ex_scope = scope.clone();
        ex_scope.items[0].name = "excluded".into();
        ex_scope.items[0].cursor = excluded;
        c.names.scopes.push(ex_scope);
        c.names.scopes.push(scope);
        for i in 0..t.table.columns.len() {
            let key = if t.table.rowid_alias == Some(i) { -1 } else { i as i64 };
            c.frame.col_map.insert((excluded, key), crate::sql::codegen::ColumnSource::Register(row + i as i32));
        }
        c.frame.col_map.insert((excluded, -1), crate::sql::codegen::ColumnSource::Register(rowid));
        let r = (|| -> Result<()> {
            // SQLite resolves the SET values before the WHERE clause: the
            // first unknown name reported is the first in SET.
            for (_, v) in assignments.iter() {
                if let crate::sql::codegen::dml::assign::SetValue::Expr(e) = v {
                    c.check_plain_names_in(&[e])?;
                }
            }
            if let Some(w) = cond {
                c.where_term_if_false(w, skip)?;
            }
            crate::sql::codegen::dml::update::update_row(c, t, existing, assignments, OnConflict::Abort, skip)?;
            Ok(())
        })();
        c.frame.col_map.retain(|k, _| k.0 != excluded);
        c.names.scopes.pop();
        c.names.scopes.pop();
        r?;
        c.emit_returning(t)?;
    }
    c.b.add(Opcode::Goto, 0, skip, 0);
    c.b.bind(ok);
    if let Some(g) = guard {
        c.b.bind(g);
    }
    Ok(())
}
