//! FROM clauses and the nested loops that read them: opening tables,
//! materialising views, CTEs and subqueries into temporary tables, join
//! constraints (ON, USING, NATURAL, LEFT JOIN's null row, RIGHT and FULL
//! JOIN's unmatched right rows), and per-loop
//! access paths chosen from WHERE terms and the order the query wants
//! (full scan, rowid lookup or range, index search or scan, each read
//! forwards or backwards: `access_path.rs`; index loops themselves are in `index_scan.rs`,
//! recursive CTEs in `recursive_cte.rs`, automatic indexes and filtered
//! copies for inner loops no index serves in `inner_table.rs`).
//! A `rowid = expr` term a rowid seek decides is not tested again in the
//! loop (where the loop has no NULL row that must fail it).
//!
//! RIGHT and FULL JOIN (any number, anywhere in the chain, joins being
//! left-associative): the loops run in FROM order; the right table of
//! such a join records the key of each of its rows that matched, the
//! code after that record is a subroutine, and after the loops an
//! unmatched pass per join calls it for the other rows with every table
//! before it NULL-filled (`open_loops_with`). Invariant: no WHERE term is
//! checked before the last such join's record (a row dropped earlier
//! could not record its match), and the right table is read through its
//! own cursor (no covering index, filtered copy or automatic index),
//! which its unmatched pass rewinds.
//!
//! A CTE is bound lexically, as SQLite binds it: its body sees the CTEs of
//! the WITH clause defining it and of the clauses around that one, never
//! those of the query using it (`ctes` is cut back to its level while the
//! body is compiled). The body may read the columns of the queries around
//! the one whose FROM clause names it (not that query's own items), which
//! then makes the subqueries in between correlated.
//!
//! Column names of a materialised item are SQLite's: a view's are the
//! names its SELECT gives after resolving (declared column names), a
//! FROM subquery's or CTE's the names as written before resolving
//! (`T.Col` is `Col`, `"x"` is `x`, TRUE is `columnN`), made unique with
//! `:N`. A column whose expression has no affinity is marked so
//! (`ScopeColumn::without_affinity`).

use crate::error::{Error, Result};
use crate::sql::codegen::loop_kind::LoopKind;
use crate::sql::codegen::query::pushdown::Offer;
use crate::sql::codegen::Compiler;
use crate::sql::model::expr_shape::{has_subquery, walk};
use crate::sql::model::from::{FromDisplay, FromItem, JoinTerm};
use crate::sql::model::query::unique_names;
use crate::sql::model::query::Dest;
use crate::sql::parse::{unquote, unquoted, with_first_statement};
use crate::sql::plan::goal::LoopRequest;
use crate::sql::resolve::{ColumnRef, ScopeColumn, ScopeItem};
use crate::util::ascii::AsciiLower;
use crate::value::affinity::Affinity;
use crate::vdbe::program::{Opcode, P4};
use sqlite3_parser::ast::{self, Expr, FromClause, JoinConstraint, JoinOperator, JoinType, Operator, SelectTable};
use std::sync::Arc;

/// An open loop, closed by `close_loops`.
pub struct Loop {
    table_cursor: i32,
    next: i32,
    end: i32,
    kind: LoopKind,
    left_flag: Option<(i32, i32, i32)>,
    /// The right table of a RIGHT or FULL JOIN: the subroutine holding
    /// the rest of the loop body (see `open_loops_with`).
    right_sub: Option<RightJoinSub>,
    /// The outermost loop: the unmatched passes its close calls (return
    /// register, start label), then the label constant terms skip to.
    passes: Vec<(i32, i32)>,
    after_passes: Option<i32>,
}

/// The subroutine a RIGHT/FULL JOIN's right table runs each of its rows
/// through, matched (inline) or not (from the unmatched pass).
struct RightJoinSub {
    /// Return address register.
    ret: i32,
    /// Labels: its first instruction, its `Return`.
    start: i32,
    end: i32,
}

impl<'b> Compiler<'_> {
    /// Open every FROM item: push scope items, emit code filling temporary
    /// tables for subqueries and views.
    /// `where_clause`: the query's WHERE, whose terms may be pushed into
    /// the items materialised (`pushdown.rs`).
    pub fn open_from<'a>(&mut self, from: Option<&'a FromClause<'b>>, where_clause: Option<&'a Expr<'b>>) -> Result<Vec<FromItem<'a, 'b>>> {
        let mut out = Vec::new();
        let Some(from) = from else { return Ok(out) };
        self.count_expanded_cursors(from);
        let join_type = |j: &ast::JoinedSelectTable<'b>| match &j.operator {
            JoinOperator::Comma => JoinType::INNER,
            JoinOperator::TypedJoin(t) => t.unwrap_or(JoinType::INNER),
        };
        // WHERE terms may go into an item that no outer join NULL-fills
        // (with a RIGHT or FULL JOIN anywhere, into none).
        let joins = from.joins.iter().flat_map(|j| j.iter());
        let pushable_joins = !joins.clone().any(|j| join_type(j).contains(JoinType::RIGHT));
        let pushable = where_clause.is_some() && pushable_joins;
        let mut where_terms = Vec::new();
        if let Some(w) = where_clause.filter(|_| pushable) {
            super::pushdown::and_terms(w, &mut where_terms);
        }
        let single = joins.clone().next().is_none();
        let left_flatten = !self.select.from_distinct;
        let offer = |jt: Option<JoinType>| match jt {
            Some(jt) if jt.contains(JoinType::LEFT) => Offer { flatten: pushable_joins && left_flatten, ..Offer::none() },
            _ => Offer { terms: where_terms.clone(), unqualified: single, flatten: pushable_joins },
        };
        if let Some(first) = from.select {
            self.open_from_item(first, &offer(None), &mut out)?;
        }
        let mut on_clauses: Vec<(usize, &Expr<'b>, bool)> = Vec::new();
        let mut term_heights: Vec<usize> = Vec::new();
        // With a RIGHT or FULL JOIN anywhere, a USING column compares the
        // coalesce() of every left table having it (any of them may be
        // the NULL-filled one).
        let any_right = from.joins.iter().flat_map(|j| j.iter()).any(|j| join_type(j).contains(JoinType::RIGHT));
        for j in from.joins.iter().flat_map(|j| j.iter()) {
            let jt = join_type(j);
            let is_right = jt.contains(JoinType::RIGHT);
            self.open_from_item(&j.table, &offer(Some(jt)), &mut out)?;
            let idx = out.len() - 1;
            out[idx].left = jt.contains(JoinType::LEFT);
            out[idx].cross = jt.contains(JoinType::CROSS);
            if is_right {
                // RIGHT and FULL JOIN: the right table remembers which of
                // its rows matched, for the pass that adds the others
                // after the loops (`open_loops_with`).
                let width = match &out[idx].table {
                    Some(t) if t.without_rowid.is_some() => t.key_width(),
                    _ => 1,
                };
                let m = self.b.cursor();
                self.b.add4(Opcode::OpenEphemeral, m, width as i32, 0, P4::KeyInfo(crate::sql::model::query::binary_key_info(width)), 0);
                out[idx].matched = Some(m);
            }
            let full = is_right && jt.contains(JoinType::LEFT);
            let mut using: Vec<String> = Vec::new();
            match &j.constraint {
                Some(JoinConstraint::On(e)) => {
                    on_clauses.push((out[idx].item, e, jt.intersects(JoinType::LEFT | JoinType::RIGHT)));
                    term_heights.push(crate::sql::parse_limits::height(e));
                    out[idx].on.push(JoinTerm::Expr(e));
                }
                Some(JoinConstraint::Using(names)) => using = names.iter().map(|n| unquote(n.0)).collect(),
                None => {}
            }
            if jt.contains(JoinType::NATURAL) {
                let right = &self.names.scopes.last().unwrap().items[out[idx].item];
                // (A virtual table's HIDDEN columns, on either side, are
                // not common columns: fts5's `rank` meets a table's.)
                for c in right.columns.iter().filter(|c| !c.hidden && !c.argument) {
                    if using.iter().any(|u| u.eq_ci(&c.name)) {
                        continue;
                    }
                    let in_left = self.names.scopes.last().unwrap().items[..out[idx].item]
                        .iter()
                        .any(|it| it.columns.iter().any(|lc| lc.name.eq_ci(&c.name) && !lc.hidden && !lc.argument));
                    if in_left {
                        using.push(c.name.clone());
                    }
                }
            }
            for name in using {
                let scope = self.names.scopes.last().unwrap().clone();
                let ri = out[idx].item;
                let right = &scope.items[ri];
                let rc = right
                    .columns
                    .iter()
                    .position(|c| c.name.eq_ci(&name))
                    .ok_or_else(|| Error::sql(format!("cannot join using column {name} - column not present in both tables")))?;
                let column_ref = |li: usize, it: &ScopeItem, lc: usize| {
                    let col = if it.rowid_alias == Some(lc) { None } else { Some(lc) };
                    ColumnRef {
                        depth: 0,
                        item: li,
                        cursor: it.cursor,
                        column: col,
                        affinity: it.columns[lc].affinity,
                        collation: it.columns[lc].collation.clone(),
                    }
                };
                // The left side: the first table having the column, or
                // with RIGHT/FULL joins the coalesce() of all of them (each
                // after the first must have joined on it with USING).
                let mut left: Vec<ColumnRef> = Vec::new();
                for (li, it) in scope.items[..ri].iter().enumerate() {
                    let Some(lc) = it.columns.iter().position(|c| c.name.eq_ci(&name) && (!c.hidden || !left.is_empty())) else { continue };
                    if !left.is_empty() {
                        if !any_right {
                            break;
                        }
                        let joined_on_it = out.iter().find(|f| f.item == li).is_some_and(|f| f.using.iter().any(|u| u.eq_ci(&name)));
                        if !joined_on_it {
                            return Err(Error::sql(format!("ambiguous reference to {name} in USING()")));
                        }
                    }
                    left.push(column_ref(li, it, lc));
                }
                if left.is_empty() {
                    return Err(Error::sql(format!("cannot join using column {name} - column not present in both tables")));
                }
                let r = column_ref(ri, right, rc);
                // What the column named without a qualifier reads: the
                // leftmost table's; after a RIGHT JOIN the right table's
                // (never NULL-filled); after a FULL JOIN the coalesce() of
                // both sides.
                let key = (left[0].cursor, left[0].column.map_or(-1, |c| c as i64));
                if is_right {
                    let mut reads = if full { self.frame.using_coalesce.get(&key).cloned().unwrap_or_else(|| vec![left[0].clone()]) } else { Vec::new() };
                    reads.push(r.clone());
                    self.frame.using_coalesce.insert(key, reads);
                }
                // The left table may read it as `left.x = right.x` unless
                // an outer or CROSS join keeps the right table inside
                // (SQLite's `mUnusable`).
                if let [l0] = &left[..] {
                    let blocked = out.iter().any(|f| f.item > l0.item && f.item <= ri && (f.left || f.cross || f.matched.is_some()));
                    if !blocked {
                        self.names.using_left_terms.entry(l0.cursor).or_default().push((l0.clone(), r.clone()));
                    }
                }
                term_heights.push(super::join_height::using_term_height(left.len()));
                out[idx].on.push(JoinTerm::ColEq(left, r));
                out[idx].using.push(name.clone());
                self.names.scopes.last_mut().unwrap().items[ri].using.push(name.clone());
                Arc::make_mut(&mut self.names.scopes.last_mut().unwrap().items[ri].columns)[rc].hidden = true;
            }
        }
        // The ON clause of an outer join, or of any join left of a RIGHT
        // JOIN, may name only its own table and those to its left.
        let last_right = out.iter().filter(|f| f.matched.is_some()).map(|f| f.item).max();
        for (item, e, _) in on_clauses.into_iter().filter(|(item, _, outer)| *outer || last_right.is_some_and(|r| *item < r)) {
            {
                let mut names: Vec<(Option<String>, String)> = Vec::new();
                crate::sql::model::expr_shape::walk(e, &mut |x| {
                    match x {
                        Expr::Id(id) => names.push((None, unquote(id.0))),
                        Expr::Qualified(t, c) => names.push((Some(unquote(t.0)), unquote(c.0))),
                        _ => {}
                    }
                    true
                });
                for (q, n) in names {
                    if let Ok(Some(r)) = self.resolve_name(q.as_deref(), &n) {
                        if r.depth == 0 && r.item > item {
                            return Err(Error::sql("ON clause references tables to its right"));
                        }
                    }
                }
            }
        }
        self.expansion.join_term_heights = term_heights;
        Ok(out)
    }

    fn open_from_item<'a>(&mut self, t: &'a SelectTable<'b>, offer: &Offer<'a, 'b>, out: &mut Vec<FromItem<'a, 'b>>) -> Result<()> {
        self.note_from_position(out.len());
        // `((t))` is t: unwrapped here rather than by recursion, whose
        // frames a deep nesting would exhaust the stack with.
        let mut t = t;
        while let SelectTable::Sub(from, None) = t {
            match (from.select, from.joins.as_ref().filter(|j| !j.is_empty())) {
                (Some(single), None) => t = single,
                _ => break,
            }
        }
        match t {
            SelectTable::Table(qn, alias, indexed) => {
                let name = unquote(qn.name.0);
                let alias = alias.as_ref().map(|a| match a {
                    ast::As::As(n) | ast::As::Elided(n) => unquote(n.0),
                });
                // A schema-qualified name never means a CTE, and the table an
                // UPDATE/DELETE writes is a table even where a CTE has its name.
                let qualified = qn.db_name.is_some();
                let is_target = self.frame.dml_target.as_ref().is_some_and(|t| t.eq_ci(&name));
                if is_target {
                    self.frame.dml_target = None;
                }
                let not_cte = qualified || is_target;
                if let Some(rb) = self.frame.recursive.iter().rev().find(|r| !not_cte && r.name.eq_ci(&name)).cloned() {
                    let info = crate::sql::model::query::SelectInfo {
                        n_columns: rb.columns.len(),
                        names: rb.columns.clone(),
                        written_names: rb.columns.clone(),
                        affinities: vec![None; rb.columns.len()],
                        decltypes: vec![None; rb.columns.len()],
                        origins: vec![None; rb.columns.len()],
                        ..Default::default()
                    };
                    self.check_subquery_collations(&info)?;
                    self.push_subquery_item(rb.cursor, alias.unwrap_or(name), &info, None, out);
                    return Ok(());
                }
                if let Some((level, cte)) = self.cte_at(&name).filter(|_| !not_cte) {
                    // A CTE met again while its own body is being expanded
                    // (tmp1 reads tmp2 which reads tmp1, or a recursive
                    // CTE's initial SELECT reads it) never ends. The marker
                    // names the definition (a CTE of the same name defined
                    // inside the body is another one) and cannot clash with
                    // a view name in `expanding`.
                    // (After a second NUL, the name as written: the
                    // authorizer's context while the body is compiled.)
                    let marker = format!("\0with {level} {}\0", name.ascii_lower());
                    if self.expansion.expanding.iter().any(|e| e.starts_with(&marker)) {
                        return Err(Error::sql(format!("circular reference: {name}")));
                    }
                    self.expansion.expanding.push(marker + &name);
                    let alias = alias.unwrap_or(name.clone());
                    // The body sees the CTEs of the WITH clause defining it
                    // and of those around that one, never the ones of the
                    // query using it (SQLite binds CTE names lexically).
                    let hidden = self.frame.ctes.split_off(level + 1);
                    let r = match self
                        .check_cte_cursors()
                        .and_then(|()| self.open_recursive_cte(&cte.select_sql, &name, alias.clone(), cte.columns.clone(), out))
                    {
                        Ok(false) => match self.enter_view_nesting() {
                            Ok(()) => {
                                let plan_parent = self.stmt.eqp.open_materialize(&alias);
                                let r = self.open_subquery_text_in(&cte.select_sql, alias, cte.columns.clone(), None, true, offer, out);
                                self.stmt.eqp.restore_parent(plan_parent);
                                self.expansion.view_depth -= 1;
                                r
                            }
                            Err(e) => Err(e),
                        },
                        r => r.map(|_| ()),
                    };
                    self.frame.ctes.extend(hidden);
                    self.expansion.expanding.pop();
                    if r.is_ok() {
                        self.name_last_item_object(&name);
                    }
                    return r;
                }
                // `aux.t` looks in aux only; an unknown schema is reported
                // as a missing table, as SQLite does in FROM.
                let db = match qn.db_name.as_ref() {
                    None => None,
                    Some(d) => match self.db_index(&unquoted(d.0)) {
                        Some(i) => Some(i),
                        None => return Err(Error::sql(format!("no such table: {}.{name}", unquote(d.0)))),
                    },
                };
                let is_main_schema = name.eq_ci("sqlite_schema") || name.eq_ci("sqlite_master");
                let is_temp_schema = name.eq_ci("sqlite_temp_schema") || name.eq_ci("sqlite_temp_master");
                let db = db.or(self.names.home_db);
                let table = if (is_main_schema && db != Some(1)) || (is_temp_schema && db.is_none()) || (is_temp_schema && db == Some(1)) {
                    let mut t = crate::sql::schema::schema_table();
                    t.db = if is_temp_schema { 1 } else { db.unwrap_or(0) };
                    if t.db == 1 {
                        t.name = "sqlite_temp_master".into();
                    }
                    Some(Arc::new(t))
                } else if is_main_schema && db == Some(1) {
                    let mut t = crate::sql::schema::schema_table();
                    t.db = 1;
                    t.name = "sqlite_temp_master".into();
                    Some(Arc::new(t))
                } else {
                    self.env.schema.shared_table_in(db, &name).cloned()
                };
                if table.is_none() && db.is_none_or(|d| d == 0) {
                    if let Some((inst, decl)) = self.eponymous_vtab(&name)? {
                        return self.open_vtab_item(inst, decl, alias.unwrap_or(name), &[], out);
                    }
                }
                let Some(table) = table else {
                    if name.eq_ci("pragma_database_list") {
                        self.check_builtin_vtab_read("pragma_database_list")?;
                        // The table-valued form of PRAGMA database_list (the
                        // sqlite3 shell's .schema and .import use it).
                        let q = |s: &str| s.replace('\'', "''");
                        let sql = self
                            .database_list()
                            .into_iter()
                            .map(|(i, n, f)| format!("SELECT {i} AS seq, '{}' AS name, '{}' AS file", q(&n), q(&f)))
                            .collect::<Vec<_>>()
                            .join(" UNION ALL ");
                        return self.open_subquery_text(&sql, alias.unwrap_or(name), None, out);
                    }
                    let lower = name.ascii_lower();
                    if let Some(pragma) = lower
                        .strip_prefix("pragma_")
                        .filter(|p| matches!(*p, "compile_options" | "function_list" | "collation_list" | "table_list" | "pragma_list" | "module_list"))
                    {
                        return self.open_schema_pragma(pragma, &[], alias.unwrap_or(lower.clone()), out);
                    }
                    if let Some(pragma) = lower.strip_prefix("pragma_").filter(|p| crate::sql::codegen::pragma::pragma_names::value_pragma_shape(p).is_some()) {
                        return self.open_value_pragma(pragma, &[], alias.unwrap_or(lower.clone()), out);
                    }
                    // (Without arguments these show no rows; their hidden
                    // columns exist only when given as arguments.)
                    if let Some(pragma) = lower
                        .strip_prefix("pragma_")
                        .filter(|p| matches!(*p, "table_info" | "table_xinfo" | "index_list" | "index_info" | "index_xinfo" | "foreign_key_list"))
                    {
                        return self.open_schema_pragma(pragma, &[], alias.unwrap_or(lower.clone()), out);
                    }
                    if lower == "pragma_foreign_key_check" {
                        return self.open_foreign_key_check(&[], alias.unwrap_or(lower.clone()), out);
                    }
                    // The JSON table-valued functions are eponymous tables
                    // too: named without arguments they have no rows.
                    if db.is_none_or(|d| d == 0) && matches!(lower.as_str(), "json_each" | "json_tree" | "jsonb_each" | "jsonb_tree") {
                        return self.open_table_function(qn, &[], alias, out);
                    }
                    return Err(match (qn.db_name.as_ref(), self.names.home_db) {
                        (Some(d), _) => Error::sql(format!("no such table: {}.{name}", unquote(d.0))),
                        // A view or trigger body names its own database's
                        // tables, and SQLite says which.
                        (None, Some(db)) => Error::sql(format!("no such table: {}.{name}", self.db_name(db))),
                        (None, None) => Error::sql(format!("no such table: {name}")),
                    });
                };
                if let Some(ast::Indexed::IndexedBy(ix)) = indexed {
                    self.check_indexed_by(&table, &unquote(ix.0))?;
                }
                if table.virtual_table.is_some() && self.env.no_vtab {
                    return Err(match (qn.db_name.as_ref(), self.names.home_db) {
                        (Some(d), _) => Error::sql(format!("no such table: {}.{name}", unquote(d.0))),
                        (None, Some(db)) => Error::sql(format!("no such table: {}.{name}", self.db_name(db))),
                        (None, None) => Error::sql(format!("no such table: {name}")),
                    });
                }
                if table.virtual_table.is_some() {
                    let (inst, decl) = self.connected_vtab(&table)?.expect("a virtual table");
                    self.stmt.dbs_used |= 1 << table.db;
                    return self.open_vtab_item(inst, decl, alias.unwrap_or_else(|| table.name.clone()), &[], out);
                }
                self.count_table_reference(&table)?;
                if let Some(view_sql) = &table.view_select {
                    if self.expansion.expanding.iter().any(|v| v.eq_ci(&name)) {
                        return Err(Error::sql(format!("view {name} is circularly defined")));
                    }
                    self.expansion.expanding.push(name.clone());
                    let home = std::mem::replace(&mut self.names.home_db, (table.db != 1).then_some(table.db));
                    // A view's body names schema objects only: the CTEs of
                    // the statement using the view are not in its scope.
                    let outer_ctes = std::mem::take(&mut self.frame.ctes);
                    let plan_parent = self.stmt.eqp.open_materialize(alias.as_deref().unwrap_or(&table.name));
                    let r = self.enter_view_nesting().and_then(|()| {
                        let r = self.with_schema_text(table.db, |c| {
                            c.open_subquery_text_in(
                                &view_sql.clone(),
                                alias.unwrap_or(table.name.clone()),
                                table.view_columns.clone(),
                                Some((table.name.clone(), table.sql.clone())),
                                false,
                                offer,
                                out,
                            )
                        });
                        self.expansion.view_depth -= 1;
                        r
                    });
                    self.stmt.eqp.restore_parent(plan_parent);
                    self.frame.ctes = outer_ctes;
                    self.names.home_db = home;
                    self.expansion.expanding.pop();
                    if r.is_ok() {
                        self.name_last_item_object(&table.name);
                    }
                    return r;
                }
                let cur = self.b.cursor();
                self.stmt.dbs_used |= 1 << table.db;
                if table.without_rowid.is_some() {
                    self.open_without_rowid_read(cur, &table)?;
                } else {
                    debug_assert!(table.virtual_table.is_none(), "a virtual table has no b-tree to read");
                    self.b.add4(Opcode::OpenRead, cur, table.root as i32, table.db as i32, P4::Int64(table.columns.len() as i64), 0);
                }
                self.comment(&table.name);
                let item = ScopeItem {
                    name: alias.unwrap_or_else(|| table.name.clone()),
                    table: table.name.clone(),
                    db: table.db,
                    cursor: cur,
                    columns: table.scope_columns(),
                    rowid_alias: table.rowid_alias,
                    has_rowid: table.without_rowid.is_none(),
                    using: Vec::new(),
                    object_name: None,
                };
                let scope = self.names.scopes.last_mut().unwrap();
                scope.items.push(item);
                let index_hint = indexed.as_ref().map(|i| match i {
                    ast::Indexed::NotIndexed => None,
                    ast::Indexed::IndexedBy(n) => Some(unquote(n.0)),
                });
                out.push(FromItem {
                    item: scope.items.len() - 1,
                    cursor: cur,
                    table: Some(table),
                    left: false,
                    cross: false,
                    on: Vec::new(),
                    matched: None,
                    using: Vec::new(),
                    table_fn: None,
                    index_hint,
                    vtab: None,
                    plan_name: None,
                });
                Ok(())
            }
            SelectTable::Select(sel, alias) => {
                let alias = alias.as_ref().map(|a| match a {
                    ast::As::As(n) | ast::As::Elided(n) => unquote(n.0),
                });
                if let Some(flat) = self.flat_projection(sel, None, false).filter(|_| offer.flatten) {
                    return self.open_flat_table(flat, alias.unwrap_or_default(), out);
                }
                let cur = self.b.cursor();
                self.b.add(Opcode::OpenEphemeral, cur, 0, 0);
                let addr = self.b.insns.len() - 1;
                let saved = std::mem::take(&mut self.names.aliases);
                let bump = sqlite3_parser::Bump::new();
                let pushed = super::pushdown::pushed_term(self, sel, &offer.terms, offer.unqualified, alias.as_deref(), None, &bump);
                let plan_name = match &alias {
                    Some(a) => a.clone(),
                    None => self.stmt.eqp.unnamed_subquery_name(sel),
                };
                let plan_parent = self.stmt.eqp.open_materialize(&plan_name);
                let info = self.compile_select_pushed(sel, Dest::EphemTable(cur), pushed.as_ref());
                self.stmt.eqp.restore_parent(plan_parent);
                self.names.aliases = saved;
                let info = info?;
                self.b.insns[addr].p2 = info.n_columns as i32;
                self.check_subquery_collations(&info)?;
                self.push_subquery_item(cur, alias.unwrap_or_default(), &info, None, out);
                if let Some(last) = out.last_mut() {
                    last.plan_name = Some(plan_name).filter(|n| !n.is_empty());
                }
                Ok(())
            }
            SelectTable::Sub(from, alias) => {
                let alias = alias.as_ref().map(|a| match a {
                    ast::As::As(n) | ast::As::Elided(n) => unquote(n.0),
                });
                // `(t)` is t itself; a parenthesized join is a subquery
                // whose columns keep their tables' names as qualifiers.
                if let (Some(single), None, None) = (from.select, from.joins.as_ref().filter(|j| !j.is_empty()), &alias) {
                    // (Parentheses may nest deeply: a grown stack.)
                    return crate::sql::parse::with_stack(|| self.open_from_item(single, offer, out));
                }
                let sql = format!("SELECT * FROM {}", FromDisplay(from));
                self.naming.nested_from = true;
                let r = self.open_subquery_text(&sql, alias.unwrap_or_default(), None, out);
                self.naming.nested_from = false;
                r
            }
            SelectTable::TableCall(qn, args, alias) => {
                let alias = alias.as_ref().map(|a| match a {
                    ast::As::As(n) | ast::As::Elided(n) => unquote(n.0),
                });
                self.open_table_function(qn, args.unwrap_or(&[]), alias, out)
            }
        }
    }

    /// The collation of every result column of a subquery, view or CTE
    /// in FROM (of every arm of a compound) must be defined: SQLite looks
    /// each up when it describes the subquery's columns, and fails there
    /// even where no value is ever compared (collate3.test).
    pub(in crate::sql::codegen) fn check_subquery_collations(&self, info: &crate::sql::model::query::SelectInfo) -> Result<()> {
        for name in std::iter::once(info).chain(info.arms.iter()).flat_map(|i| i.collations.iter().flatten()) {
            self.collation(name)?;
        }
        Ok(())
    }

    pub(in crate::sql::codegen) fn push_subquery_item<'a>(
        &mut self,
        cur: i32,
        name: String,
        info: &crate::sql::model::query::SelectInfo,
        cols: Option<Vec<String>>,
        out: &mut Vec<FromItem<'a, 'b>>,
    ) {
        // Duplicate names are made unique, as SQLite names the columns of
        // a subquery, view or CTE ("a", "a:1", ...); a parenthesized
        // join's columns keep their tables' names (`sources`). A view's
        // columns are named after its names are resolved (declared names,
        // `table_names`), a subquery's or CTE's before (as written,
        // `written_names`).
        let names = cols.unwrap_or_else(|| {
            if !info.sources.is_empty() {
                info.names.clone()
            } else if info.table_names.iter().any(|n| !n.is_empty()) {
                // A view's columns: named after resolving, by declared names.
                unique_names(&info.table_names)
            } else if info.written_names.len() == info.n_columns {
                unique_names(&info.written_names)
            } else {
                unique_names(&info.names)
            }
        });
        let item = ScopeItem {
            name,
            table: String::new(),
            db: 0,
            cursor: cur,
            columns: Arc::new(
                names
                    .iter()
                    .enumerate()
                    .map(|(i, n)| ScopeColumn {
                        name: n.clone(),
                        affinity: info.affinities.get(i).copied().flatten().unwrap_or(Affinity::Blob),
                        without_affinity: info.affinities.get(i).is_some_and(|a| a.is_none()),
                        collation: info.collations.get(i).cloned().flatten(),
                        decltype: info.decltypes.get(i).cloned().flatten(),
                        hidden: info.sources.get(i).is_some_and(|s| s.hidden),
                        argument: false,
                        source: info.sources.get(i).and_then(|s| s.table.clone()),
                        source_db: info.sources.get(i).and_then(|s| s.db),
                    })
                    .collect(),
            ),
            rowid_alias: None,
            has_rowid: false,
            using: Vec::new(),
            object_name: None,
        };
        let scope = self.names.scopes.last_mut().unwrap();
        scope.items.push(item);
        out.push(FromItem {
            item: scope.items.len() - 1,
            cursor: cur,
            table: None,
            left: false,
            cross: false,
            on: Vec::new(),
            matched: None,
            using: Vec::new(),
            table_fn: None,
            index_hint: None,
            vtab: None,
            plan_name: None,
        });
    }

    /// One more reference to `table` in the statement, refused past
    /// SQLite's 65,535 (each view expansion and flattened body counts).
    fn count_table_reference(&mut self, table: &Arc<crate::sql::schema::Table>) -> Result<()> {
        let at = match self.expansion.table_references.iter().position(|(t, _)| t.db == table.db && t.name.eq_ci(&table.name)) {
            Some(i) => i,
            None => {
                self.expansion.table_references.push((table.clone(), 0));
                self.expansion.table_references.len() - 1
            }
        };
        let references = &mut self.expansion.table_references[at].1;
        if *references >= 0xfffe {
            return Err(Error::sql(format!("too many references to \"{}\": max 65535", table.name)));
        }
        *references += 1;
        Ok(())
    }

    /// Open the table a flattened view or subquery reads
    /// (`plan::flatten`) as the FROM item named `name`: its scope shows
    /// the projected columns only, and EXPLAIN QUERY PLAN the body's name
    /// for the table, as SQLite's plan after flattening.
    fn open_flat_table<'a>(&mut self, flat: crate::sql::plan::flatten::FlatTable, name: String, out: &mut Vec<FromItem<'a, 'b>>) -> Result<()> {
        let table = flat.table;
        debug_assert!(table.view_select.is_none() && table.virtual_table.is_none() && table.without_rowid.is_none(), "a flattened body reads a rowid table");
        debug_assert!(flat.width > 0 && flat.width <= table.columns.len(), "a prefix of the table's columns");
        self.count_table_reference(&table)?;
        // (SQLite looks up the collation of each column of the body as it
        // describes it, flattened or not.)
        for name in table.columns[..flat.width].iter().filter_map(|c| c.collation.as_deref()) {
            self.collation(name)?;
        }
        let cur = self.b.cursor();
        self.stmt.dbs_used |= 1 << table.db;
        self.b.add4(Opcode::OpenRead, cur, table.root as i32, table.db as i32, P4::Int64(table.columns.len() as i64), 0);
        self.comment(&table.name);
        let all = table.scope_columns();
        let columns = if flat.width == all.len() { all } else { Arc::new(all[..flat.width].to_vec()) };
        let item = ScopeItem {
            name,
            table: table.name.clone(),
            db: table.db,
            cursor: cur,
            columns,
            rowid_alias: table.rowid_alias.filter(|&i| i < flat.width),
            // (The item is still a view or subquery: `rowid` names no
            // column of it.)
            has_rowid: false,
            using: Vec::new(),
            object_name: None,
        };
        let scope = self.names.scopes.last_mut().expect("a FROM clause opens in a scope");
        scope.items.push(item);
        out.push(FromItem {
            item: scope.items.len() - 1,
            cursor: cur,
            table: Some(table),
            left: false,
            cross: false,
            on: Vec::new(),
            matched: None,
            using: Vec::new(),
            table_fn: None,
            index_hint: None,
            vtab: None,
            plan_name: Some(flat.plan_name),
        });
        Ok(())
    }

    pub(in crate::sql::codegen) fn open_subquery_text<'a>(
        &mut self,
        sql: &str,
        name: String,
        cols: Option<Vec<String>>,
        out: &mut Vec<FromItem<'a, 'b>>,
    ) -> Result<()> {
        self.open_subquery_text_named(sql, name, cols, None, out)
    }

    /// `open_subquery_text` for a view: `view` is its name and CREATE VIEW
    /// statement, whose result list names the columns.
    pub(in crate::sql::codegen) fn open_subquery_text_named<'a>(
        &mut self,
        sql: &str,
        name: String,
        cols: Option<Vec<String>>,
        view: Option<(String, String)>,
        out: &mut Vec<FromItem<'a, 'b>>,
    ) -> Result<()> {
        self.open_subquery_text_in(sql, name, cols, view, false, &Offer::none(), out)
    }

    /// One more view or CTE expanded inside the ones being expanded:
    /// SQLite refuses the statement when the SELECTs so nested (the
    /// statement's own included) would exceed `SQLITE_LIMIT_EXPR_DEPTH`.
    fn enter_view_nesting(&mut self) -> Result<()> {
        if self.expansion.view_depth + 1 >= self.env.max_expr_depth {
            return Err(Error::sql("VIEWs and/or subqueries nested too deep"));
        }
        self.expansion.view_depth += 1;
        Ok(())
    }

    /// Count the cursors SQLite numbers when it expands `from` (its items,
    /// and those of the subqueries written in it, at once), unless an
    /// enclosing clause counted them already.
    fn count_expanded_cursors(&mut self, from: &FromClause<'_>) {
        fn count(from: &FromClause<'_>, counted: &mut std::collections::HashSet<usize>) -> usize {
            if !counted.insert(from as *const FromClause<'_> as usize) {
                return 0;
            }
            let items = from.select.iter().map(|t| &**t).chain(from.joins.iter().flat_map(|j| j.iter().map(|j| &j.table)));
            items
                .map(|t| {
                    1 + match t {
                        // (SQLite's subquery is its last arm, whose FROM
                        // clause it numbers.)
                        SelectTable::Select(s, _) => {
                            let last = s.body.compounds.as_ref().and_then(|c| c.last()).map_or(&s.body.select, |c| &c.select);
                            match last {
                                ast::OneSelect::Select { from: Some(f), .. } => count(f, counted),
                                _ => 0,
                            }
                        }
                        SelectTable::Sub(inner, _) => count(inner, counted),
                        _ => 0,
                    }
                })
                .sum()
        }
        self.expansion.expanded_cursors += count(from, &mut self.expansion.counted_froms);
    }

    /// SQLite's check as it expands a CTE: with as many cursors numbered
    /// as `SQLITE_LIMIT_EXPR_DEPTH`, the CTE counts as nested too deep
    /// (its guard against CTEs expanding to exponentially many cursors).
    fn check_cte_cursors(&self) -> Result<()> {
        if self.expansion.expanded_cursors >= self.env.max_expr_depth {
            return Err(Error::sql("VIEWs and/or subqueries nested too deep"));
        }
        Ok(())
    }

    /// `open_subquery_text_named`; with `correlated` (a CTE body) the
    /// SELECT may read the columns of the queries around the one whose
    /// FROM clause is being opened (not that one's own items: a FROM
    /// subquery is no join partner of its neighbours).
    pub(in crate::sql::codegen) fn open_subquery_text_in<'a>(
        &mut self,
        sql: &str,
        name: String,
        cols: Option<Vec<String>>,
        view: Option<(String, String)>,
        correlated: bool,
        offer: &Offer<'_, '_>,
        out: &mut Vec<FromItem<'a, 'b>>,
    ) -> Result<()> {
        let (view_name, view_text) = view.unzip();
        let saved_aliases = std::mem::take(&mut self.names.aliases);
        let saved_scopes = self.enter_cte_scopes(correlated);
        // (The temporary table's cursor, numbered once the body is known
        // not to be flattened.)
        let mut opened = None;
        // The FROM clauses counted are told apart by address: those of the
        // body parsed here live only while it is compiled (a later parse,
        // of another reference to the same CTE, may reuse the addresses,
        // and must be counted again, as SQLite expands every reference).
        let saved_counted = std::mem::take(&mut self.expansion.counted_froms);
        let info = with_first_statement(sql.as_bytes(), |cmd, _| match cmd {
            Some(ast::Cmd::Stmt(ast::Stmt::Select(sel))) => {
                // The first SELECT's width is checked against the column
                // list before its compound arms are compared (SQLite's order).
                if let (Some(c), Some(n)) = (&cols, first_select_width(sel)) {
                    if c.len() != n {
                        return Err(match view_name.as_deref() {
                            Some(view) => Error::sql(format!("expected {} columns for '{view}' but got {n}", c.len())),
                            None => Error::sql(format!("table {name} has {n} values for {} columns", c.len())),
                        });
                    }
                }
                if offer.flatten && !correlated {
                    if let Some(flat) = self.flat_projection(sel, cols.as_deref(), view_text.is_some()) {
                        return Ok(Err(flat));
                    }
                }
                let cur = self.b.cursor();
                self.b.add(Opcode::OpenEphemeral, cur, 0, 0);
                opened = Some((cur, self.b.insns.len() - 1));
                let is_view = view_text.is_some();
                if let Some(text) = &view_text {
                    self.naming.view_texts.push(super::column_text::IndexedText::new(text.clone()));
                }
                self.naming.view_names_text = view_text;
                // (A view's columns are named as with the default naming
                // settings.)
                // (The outer WHERE terms this body may also test.)
                let bump = sqlite3_parser::Bump::new();
                let pushed = super::pushdown::pushed_term(self, sel, &offer.terms, offer.unqualified, Some(&name), cols.as_deref(), &bump);
                let info = self.with_text_depth_point(sel, |c| {
                    if is_view {
                        c.with_default_names(|c| c.compile_select_pushed(sel, Dest::EphemTable(cur), pushed.as_ref()))
                    } else {
                        c.compile_select_pushed(sel, Dest::EphemTable(cur), pushed.as_ref())
                    }
                });
                self.naming.view_names_text = None;
                if is_view {
                    self.naming.view_texts.pop();
                }
                info.map(Ok)
            }
            _ => Err(Error::sql("malformed view or CTE")),
        });
        self.expansion.counted_froms = saved_counted;
        self.leave_cte_scopes(saved_scopes);
        self.names.aliases = saved_aliases;
        let info = match info? {
            Ok(info) => info,
            Err(flat) => {
                // No temporary table: the caller's MATERIALIZE line goes.
                self.stmt.eqp.drop_last_heading();
                return self.open_flat_table(flat, name, out);
            }
        };
        let (cur, addr) = opened.expect("a body compiled into its temporary table");
        if let Some(c) = &cols {
            if let (Some(view), true) = (view_name, c.len() != info.n_columns) {
                return Err(Error::sql(format!("expected {} columns for '{view}' but got {}", c.len(), info.n_columns)));
            }
            if c.len() != info.n_columns {
                return Err(Error::sql(format!("table {name} has {} values for {} columns", info.n_columns, c.len())));
            }
        }
        self.b.insns[addr].p2 = info.n_columns as i32;
        self.check_subquery_collations(&info)?;
        self.push_subquery_item(cur, name, &info, cols, out);
        Ok(())
    }

    /// Run `f` (the compile of `sel`, a view's or CTE's body parsed again
    /// from its text) with the resolver's height limit pointed at the
    /// expression of `sel` where SQLite meets it
    /// (`parse_limits::resolver_depth_point`), so that it fails there, in
    /// SQLite's order with the name errors around it, as in the
    /// statement's own tree.
    pub(in crate::sql::codegen) fn with_text_depth_point<R>(&mut self, sel: &ast::Select<'_>, f: impl FnOnce(&mut Self) -> Result<R>) -> Result<R> {
        let Some(point) = crate::sql::parse_limits::resolver_depth_point(sel, self.env.max_expr_depth) else { return f(self) };
        let saved = self.names.depth_point.replace(point);
        let r = f(self);
        self.names.depth_point = saved;
        r
    }

    /// The name-resolution scopes a materialised body is compiled in:
    /// none, or with `correlated` those around the query whose FROM clause
    /// is being opened, that query's own scope standing empty (a lookup
    /// passing it marks it correlated). Returns the scopes to restore with
    /// [`Self::leave_cte_scopes`].
    pub(in crate::sql::codegen) fn enter_cte_scopes(&mut self, correlated: bool) -> Vec<crate::sql::resolve::Scope> {
        let saved = std::mem::take(&mut self.names.scopes);
        if correlated && !saved.is_empty() {
            self.names.scopes = saved[..saved.len() - 1].to_vec();
            self.names.scopes.push(Default::default());
        }
        saved
    }

    pub(in crate::sql::codegen) fn leave_cte_scopes(&mut self, mut saved: Vec<crate::sql::resolve::Scope>) {
        let passed = std::mem::take(&mut self.names.scopes);
        // Lookups that reached an outer query passed through the query
        // using the CTE too: it is correlated as well, and so are the
        // outer scopes the lookups passed.
        for (s, p) in saved.iter_mut().zip(passed.iter()) {
            s.correlated |= p.correlated;
        }
        self.names.scopes = saved;
    }

    /// Which FROM items (bits) of the innermost scope `e` reads.
    pub fn expr_deps(&mut self, e: &Expr<'_>) -> u64 {
        let key = e as *const Expr<'_> as usize;
        if let Some(&known) = self.names.name_memo.as_ref().and_then(|m| m.deps.get(&key)) {
            return known;
        }
        let deps = self.expr_deps_resolved(e);
        if let Some(m) = self.names.name_memo.as_mut() {
            m.deps.insert(key, deps);
        }
        deps
    }

    fn expr_deps_resolved(&mut self, e: &Expr<'_>) -> u64 {
        if has_subquery(e) {
            return u64::MAX;
        }
        // (Names as written, unquoted where used: no copy of each.)
        let mut names: Vec<(Option<&str>, Option<&str>, &str)> = Vec::new();
        walk(e, &mut |x| {
            match x {
                // `x IN ()` is the constant false (true with NOT) that
                // SQLite makes it, its left side never read: it depends
                // on no table, so a WHERE term of it is tested once,
                // before the loops (a scan that never starts).
                Expr::InList { lhs, rhs, .. } if rhs.is_none_or(|r| r.is_empty()) && !crate::sql::codegen::expr::row_value::is_written_row(lhs) => {
                    return false
                }
                Expr::Id(id) => names.push((None, None, id.0)),
                Expr::Name(n) => names.push((None, None, n.0)),
                Expr::Qualified(t, c) => names.push((None, Some(t.0), c.0)),
                Expr::DoublyQualified(d, t, c) => names.push((Some(d.0), Some(t.0), c.0)),
                _ => {}
            }
            true
        });
        let mut mask = 0u64;
        for (d, q, n) in names {
            let (d, q, n) = (d.map(unquoted), q.map(unquoted), unquoted(n));
            let found = match d {
                // `db.table.column` reads the item of that table in that database.
                Some(d) => match self.db_index(&d) {
                    Some(db) => crate::sql::resolve::resolve_in(&mut self.names.scopes, Some(db), q.as_deref(), &n),
                    None => Ok(None),
                },
                None => self.resolve_name(q.as_deref(), &n),
            };
            if let Ok(Some(r)) = found {
                if r.depth == 0 && r.item < 64 {
                    mask |= 1 << r.item;
                }
                // An unqualified USING column of a RIGHT/FULL JOIN also
                // reads the right-hand column it is coalesced with.
                if q.is_none() && !self.frame.using_coalesce.is_empty() {
                    if let Some(reads) = self.frame.using_coalesce.get(&(r.cursor, r.column.map_or(-1, |c| c as i64))) {
                        for p in reads.iter().filter(|p| r.depth == 0 && p.item < 64) {
                            mask |= 1 << p.item;
                        }
                    }
                }
            } else if q.is_none() {
                // Could be an alias of a result column: evaluate late.
                if self.alias_visible(&n) {
                    mask = u64::MAX;
                }
            }
        }
        mask
    }

    /// Open the nested loops over `items`, placing each WHERE term at the
    /// outermost loop where it can be evaluated.
    pub fn open_loops<'a>(&mut self, items: &[FromItem<'a, 'b>], terms: &[&'a Expr<'b>]) -> Result<Vec<Loop>> {
        Ok(self.open_loops_with(items, terms, &LoopRequest::default())?.0)
    }

    /// Jump to `next` unless a USING/NATURAL column's left side `l` (the
    /// coalesce() of several) equals its right side `r`.
    fn using_eq_test(&mut self, l: &[ColumnRef], r: &ColumnRef, next: i32) -> Result<()> {
        let lr = self.b.reg();
        let rr = self.b.reg();
        self.emit_coalesce(l, lr)?;
        self.emit_column(r, rr)?;
        let t = self.b.reg();
        // As `l = r`: the left column's affinity and collation (BINARY
        // when it declares none) first; a coalesce() of several has
        // neither, and the right column's count then.
        let (laff, lcoll) = if l.len() == 1 { (Some(l[0].affinity), Some(l[0].collation.clone().unwrap_or_else(|| "BINARY".into()))) } else { (None, None) };
        let aff = crate::sql::codegen::expr::comparison_affinity(laff, Some(r.affinity));
        let p4 = match lcoll.as_ref().or(r.collation.as_ref()) {
            Some(name) => P4::coll(self.collation(name)?),
            None => P4::None,
        };
        self.b.add4(Opcode::Eq, rr, t, lr, p4, aff | crate::vdbe::program::cmp_flags::STOREP2);
        self.b.add(Opcode::IfNot, t, next, 1);
        Ok(())
    }

    /// [`Self::open_loops`] for a SELECT that says which order it wants
    /// and which columns it reads (`req`); also returns whether the loops
    /// produce that order.
    ///
    /// RIGHT and FULL JOIN: the loops run in FROM order, the right table
    /// of such a join read as an inner join (FULL: a LEFT JOIN) that
    /// records the key of each of its rows that matched in its `matched`
    /// index. Everything after that record (its level's WHERE terms, the
    /// loops inside it and the body) is a subroutine, called inline for
    /// the matched rows; after the loops, an unmatched pass per such
    /// join reads its right table again and calls the subroutine for the
    /// rows not recorded, with every table before it NULL-filled (so
    /// later joins run again for those rows). The passes run in FROM
    /// order: an earlier pass may record matches of a later join.
    pub fn open_loops_with<'a>(&mut self, items: &[FromItem<'a, 'b>], terms: &[&'a Expr<'b>], req: &LoopRequest) -> Result<(Vec<Loop>, bool)> {
        let n = items.len();
        if n > 64 {
            return Err(Error::sql("at most 64 tables in a join"));
        }
        if n == 0 {
            // (No FROM clause: the one row the body runs for.)
            self.stmt.eqp.push(format_args!("SCAN CONSTANT ROW"));
        }
        // Inner joins may be reordered; their ON terms then behave as
        // WHERE terms, and a USING/NATURAL column's equality with the one
        // table on its left as `left.col = right.col` (SQLite adds it to
        // the ON clause).
        // Table-valued functions stay where they are written, after the
        // tables their arguments read.
        let using_eq = |it: &FromItem<'a, 'b>, j: &JoinTerm<'a, 'b>| match j {
            JoinTerm::Expr(_) => true,
            JoinTerm::ColEq(l, r) => !it.using.is_empty() && matches!(&l[..], [l0] if l0.depth == 0) && r.depth == 0,
            _ => false,
        };
        let reorder = n > 1
            && n < 64
            && items.iter().all(|it| !it.left && !it.cross && it.matched.is_none() && it.table_fn.is_none() && it.on.iter().all(|j| using_eq(it, j)));
        // The last RIGHT or FULL JOIN: the tables before it may be
        // NULL-filled by its unmatched pass, and WHERE terms are checked
        // no earlier than there (a row must not be dropped before it
        // could record a match).
        let last_right = items.iter().rposition(|it| it.matched.is_some());
        let mut all_terms: Vec<&'a Expr<'b>> = terms.to_vec();
        // The ON expression of an inner join is a WHERE term: it may read
        // tables joined after it, and is checked once they are all read.
        // (Not with RIGHT or FULL joins around, where a later WHERE
        // check would let rows through to record matches; there only an
        // ON term reading a later table is moved.)
        let plain_inner = |it: &FromItem<'a, 'b>| !it.left && it.matched.is_none();
        let mut on_moved: Vec<bool> = items.iter().map(|it| plain_inner(it) && (reorder || last_right.is_none())).collect();
        if last_right.is_some() {
            for (i, it) in items.iter().enumerate().filter(|(_, it)| plain_inner(it)) {
                let later: u64 = items[i + 1..].iter().fold(0, |m, f| m | 1u64 << f.item.min(63));
                let mut reads_later = false;
                for j in &it.on {
                    if let JoinTerm::Expr(e) = j {
                        reads_later |= self.expr_deps(e) & later != 0;
                    }
                }
                on_moved[i] = reads_later;
            }
        }
        for (it, _) in items.iter().zip(&on_moved).filter(|(_, m)| **m) {
            for j in &it.on {
                if let JoinTerm::Expr(e) = j {
                    crate::sql::model::expr_shape::conjuncts(e, &mut all_terms);
                }
            }
        }
        // SQLite's constant propagation in a SELECT's WHERE (not an UPDATE's
        // or DELETE's, not through ON clauses when a RIGHT JOIN is about),
        // before the planner reads the terms.
        let propagation = if n > 0 && self.names.select_depth != self.names.dml_where_level {
            let where_terms: &[&Expr<'_>] = if last_right.is_none() { &all_terms } else { terms };
            self.propagate_constants(where_terms)
        } else {
            None
        };
        if reorder {
            for it in items {
                for j in &it.on {
                    if let JoinTerm::ColEq(l, r) = j {
                        let pairs = self.names.using_reordered.entry(l[0].cursor).or_default();
                        if !pairs.iter().any(|(a, b)| a.cursor == l[0].cursor && a.column == l[0].column && b.cursor == r.cursor && b.column == r.column) {
                            pairs.push((l[0].clone(), r.clone()));
                        }
                    }
                }
            }
        }
        // A USING/NATURAL column's equality as the term SQLite makes of it,
        // `left.col = right.col` (the left operand's affinity and
        // collation first), for lookups and the join order only: each is
        // tested by `using_eq_test`. Named as this scope names the
        // columns; one a name does not reach is left out.
        let mut using_names: Vec<(usize, usize, [(String, String); 2])> = Vec::new();
        for it in items.iter().filter(|it| it.matched.is_none() && !it.using.is_empty()) {
            for j in &it.on {
                let JoinTerm::ColEq(l, r) = j else { continue };
                let ([l0], 0) = (&l[..], r.depth) else { continue };
                if l0.depth != 0 {
                    continue;
                }
                let Some(scope) = self.names.scopes.last() else { continue };
                let name = |c: &ColumnRef| {
                    let si = scope.items.get(c.item)?;
                    let col = c.column.or(si.rowid_alias)?;
                    Some((si.name.clone(), si.columns.get(col)?.name.clone()))
                };
                if let (Some(a), Some(b)) = (name(l0), name(r)) {
                    using_names.push((l0.item, r.item, [a, b]));
                }
            }
        }
        let using_leaves: Vec<[Expr<'_>; 2]> = using_names
            .iter()
            .map(|(_, _, [(lt, lc), (rt, rc)])| {
                [Expr::Qualified(ast::Name(lt.as_str()), ast::Name(lc.as_str())), Expr::Qualified(ast::Name(rt.as_str()), ast::Name(rc.as_str()))]
            })
            .collect();
        let using_terms: Vec<Expr<'_>> = using_leaves.iter().map(|[a, b]| Expr::Binary(a, Operator::Equals, b)).collect();
        let mut using_terms_of: Vec<(u64, &Expr<'_>)> = Vec::new();
        for (k, (li, ri, _)) in using_names.iter().enumerate() {
            // (Each side must name the column it stands for.)
            let [a, b] = &using_leaves[k];
            let found = |c: Option<ColumnRef>, item: usize| c.is_some_and(|c| c.depth == 0 && c.item == item);
            if found(self.plain_column(a), *li) && found(self.plain_column(b), *ri) {
                using_terms_of.push(((1u64 << li.min(&63)) | (1u64 << ri.min(&63)), &using_terms[k]));
            }
        }
        let order: Vec<usize> = if reorder {
            let mut planned: Vec<&Expr<'_>> = all_terms.clone();
            planned.extend(using_terms_of.iter().map(|(_, t)| *t));
            self.join_order(items, &planned, all_terms.len(), req.goal.as_ref(), req.uses.as_ref())
        } else {
            (0..n).collect()
        };
        let mut pos = vec![0usize; n];
        for (lvl, &i) in order.iter().enumerate() {
            pos[i] = lvl;
        }
        // A reordered join's USING equalities are tested where both of
        // their tables have been read.
        let mut using_at: Vec<Vec<(&[ColumnRef], &ColumnRef)>> = vec![Vec::new(); n.max(1)];
        if reorder {
            let level_of = |item: usize| items.iter().position(|f| f.item == item).map(|i| pos[i]);
            for it in items {
                for j in &it.on {
                    if let JoinTerm::ColEq(l, r) = j {
                        let at = level_of(l[0].item).into_iter().chain(level_of(r.item)).max().unwrap_or(0);
                        using_at[at].push((&l[..], r));
                    }
                }
            }
        }
        let mut placed: Vec<Vec<&'a Expr<'b>>> = vec![Vec::new(); n.max(1)];
        let mut constant: Vec<&'a Expr<'b>> = Vec::new();
        for t in &all_terms {
            let deps = self.expr_deps(t);
            if n == 0 || deps == 0 && !has_subquery(t) {
                constant.push(t);
            } else if deps == u64::MAX {
                placed[n - 1].push(t);
            } else {
                let l = (0..n).filter(|i| deps & (1 << items[*i].item) != 0).map(|i| pos[i]).max().unwrap_or(0);
                placed[l.max(last_right.unwrap_or(0))].push(t);
            }
        }
        let mut loops = Vec::new();
        let outer_skip = self.b.label();
        for t in &constant {
            self.where_term_if_false(t, outer_skip)?;
        }
        if let Some(p) = &propagation {
            let where_terms: &[&Expr<'_>] = if last_right.is_none() { &all_terms } else { terms };
            self.propagated_constant_tests(where_terms, p, outer_skip)?;
        }
        if n == 0 {
            loops.push(Loop {
                table_cursor: -1,
                next: outer_skip,
                end: outer_skip,
                kind: LoopKind::Once,
                left_flag: None,
                right_sub: None,
                passes: Vec::new(),
                after_passes: None,
            });
            return Ok((loops, false));
        }
        let mut order_served = false;
        // Every loop so far finds at most one row per pass: the next may
        // still give the order (as SQLite's ORDER BY analysis sees it).
        let mut outer_one_row = true;
        let mut before: u64 = 0;
        // Per level: the cursors an unmatched pass NULL-fills (the table's
        // and its index loop's).
        let mut level_cursors: Vec<Vec<i32>> = Vec::new();
        for (lvl, &ii) in order.iter().enumerate() {
            let it = &items[ii];
            // Terms usable for lookups: WHERE terms at this level and the
            // ON terms of joins at this level.
            // (A virtual table is offered every term, usable or not, in
            // the WHERE clause's order, as SQLite offers them.)
            // Terms reading a table past the next CROSS or outer join are
            // not offered at all (SQLite's `mUnusable`).
            let mut lookup_terms: Vec<&Expr<'_>> = if it.vtab.is_some() {
                let unusable = items[ii + 1..].iter().skip_while(|f| !(f.cross || f.left || f.matched.is_some())).fold(0u64, |m, f| m | 1u64 << f.item.min(63));
                let mut ts = all_terms.clone();
                ts.retain(|t| self.expr_deps(t) & unusable == 0);
                ts
            } else {
                placed[lvl].clone()
            };
            // (Terms read later that may constrain a column equal to one
            // of this table's, for lookups through it: see
            // `plan::equivalence`.)
            // (And the USING equalities: of this table with one read
            // before, or any when the join is reordered.)
            if reorder && it.vtab.is_none() {
                let here: Vec<usize> = lookup_terms.iter().map(|t| term_address(t)).collect();
                lookup_terms.extend(all_terms.iter().filter(|t| !here.contains(&term_address(t)) && is_comparison_term(t)).copied());
                lookup_terms.extend(using_terms_of.iter().map(|(_, t)| *t));
            } else if it.vtab.is_none() {
                let me = 1u64 << it.item.min(63);
                lookup_terms.extend(using_terms_of.iter().filter(|(m, _)| m & me != 0 && m & !(before | me) == 0).map(|(_, t)| *t));
            }
            if !on_moved[ii] {
                for j in &it.on {
                    if let JoinTerm::Expr(e) = j {
                        let mut cs = Vec::new();
                        crate::sql::model::expr_shape::conjuncts(e, &mut cs);
                        lookup_terms.extend(cs);
                    }
                }
            }
            let next = self.b.label();
            let end = if lvl == 0 && last_right.is_none() { outer_skip } else { self.b.label() };
            let left_flag = if it.left {
                let f = self.b.reg();
                self.b.add(Opcode::Integer, 0, f, 0);
                Some((f, self.b.label(), self.b.label()))
            } else {
                None
            };
            // The right table of a RIGHT/FULL JOIN is read again by its
            // unmatched pass, and the tables before it are NULL-filled
            // there: they are read as they are (no filtered copy, no
            // automatic index), and the order is asked of the loops only
            // without such joins (the unmatched rows come last).
            let null_filled_later = last_right.is_some_and(|k| lvl < k);
            let plain = it.matched.is_none() && !null_filled_later;
            // (Not past the first loop for a min()/max(), whose single
            // row is the first of the outermost loop.)
            let level_goal = req.goal.as_ref().filter(|g| last_right.is_none() && (lvl == 0 || outer_one_row && !g.min_max && !order_served));
            let shown_at = self.stmt.eqp.len();
            self.frame.seek_consumed = None;
            // An empty table scanned in full ends every loop around it up
            // to the nearest outer join (as SQLite's `addrHalt`): no row of
            // theirs can be joined with it.
            self.loops.empty_scan_halt = None;
            if last_right.is_none() && !it.left {
                let k = (0..lvl).rev().find(|&j| items[order[j + 1]].left).map_or(0, |j| j + 1);
                self.loops.empty_scan_halt = Some(if k == lvl { end } else { loops[k].end });
            }
            self.loops.outer_loops_one_row = lvl > 0 && outer_one_row;
            let opened = self.open_access(it, before, &lookup_terms, next, end, plain, level_goal, req.uses.as_ref());
            self.loops.outer_loops_one_row = false;
            self.loops.empty_scan_halt = None;
            let (kind, served) = opened?;
            // A term the seek decided is not tested again, where the loop
            // has no NULL row to produce (that row must still fail it) and
            // is not read again by an unmatched pass.
            // (With an authorizer it is compiled all the same: SQLite asks
            // about every column a statement names.)
            let consumed = self.frame.seek_consumed.take().filter(|_| left_flag.is_none() && it.matched.is_none() && self.stmt.authorizer.is_none());
            // (Terms a virtual table's module omits are not tested again
            // either, except where a NULL row or a second pass reads the
            // table.)
            // (Of a LEFT JOIN's right table, the omitted terms of its own ON
            // clause stay omitted, as SQLite disables a join's ON terms
            // there: the NULL row does not test them. A WHERE term is
            // still tested.)
            let mut vconsumed = std::mem::take(&mut self.vtab.consumed);
            let mut using_consumed = std::mem::take(&mut self.vtab.consumed_using);
            if it.matched.is_some() {
                vconsumed.clear();
                using_consumed.clear();
            } else if left_flag.is_some() {
                let mut own = Vec::new();
                if !on_moved[ii] {
                    for j in &it.on {
                        if let JoinTerm::Expr(e) = j {
                            crate::sql::model::expr_shape::conjuncts(e, &mut own);
                        }
                    }
                }
                vconsumed.retain(|a| own.iter().any(|c| term_address(c) == *a));
            }
            let is_consumed = |addr: usize| Some(addr) == consumed || vconsumed.contains(&addr);
            // A USING/NATURAL equality the module omits, seen from either
            // side (this table is its right one, or its left one when the
            // join order put the other first).
            let using_omitted = |l: &[ColumnRef], r: &ColumnRef| {
                let col = |c: &ColumnRef| c.column.map_or(-1, |k| k as i32);
                let [l0] = l else { return false };
                using_consumed.iter().any(|&(cur, c, ocur, oc)| {
                    (r.cursor == cur && col(r) == c && l0.cursor == ocur && col(l0) == oc)
                        || (l0.cursor == cur && col(l0) == c && r.cursor == ocur && col(r) == oc)
                })
            };
            if it.left && it.matched.is_none() {
                self.stmt.eqp.mark_left_join(shown_at);
            }
            if level_goal.is_some() && (lvl == 0 || level_goal.is_some_and(|g| g.item == it.item)) {
                // (Under one-row loops a LEFT JOIN's NULL row is one row too.)
                order_served = served && plain && (lvl > 0 || !it.left) && last_right.is_none();
            }
            outer_one_row &= self.loops.loop_one_row;
            before |= 1 << it.item.min(63);
            let mut cursors = vec![it.cursor];
            if let LoopKind::Index(cur, _) | LoopKind::IndexBack(cur, _) | LoopKind::InIndex(cur, ..) = kind {
                cursors.push(cur);
            }
            level_cursors.push(cursors);
            // ON terms (for LEFT JOIN they decide the match).
            for j in &it.on {
                match j {
                    JoinTerm::Expr(_) if on_moved[ii] => {}
                    JoinTerm::Expr(e) if consumed.is_some() || !vconsumed.is_empty() => {
                        let mut cs = Vec::new();
                        crate::sql::model::expr_shape::conjuncts(e, &mut cs);
                        for c in cs.into_iter().filter(|c| !is_consumed(term_address(c))) {
                            self.where_term_if_false(c, next)?;
                        }
                    }
                    JoinTerm::Expr(e) => self.where_term_if_false(e, next)?,
                    JoinTerm::ColEq(..) if reorder => {}
                    JoinTerm::ColEq(l, r) if using_omitted(l, r) => {}
                    JoinTerm::ColEq(l, r) => self.using_eq_test(l, r, next)?,
                    JoinTerm::ExprEq(e, r) => {
                        let lr = self.b.reg();
                        let rr = self.b.reg();
                        self.expr(e, lr)?;
                        self.emit_column(r, rr)?;
                        let t = self.b.reg();
                        let nocase = P4::coll(self.collation("NOCASE")?);
                        self.b.add4(Opcode::Eq, rr, t, lr, nocase, crate::vdbe::program::cmp_flags::STOREP2);
                        self.b.add(Opcode::IfNot, t, next, 1);
                    }
                    JoinTerm::FailWhen(marker, errors) => {
                        let m = self.b.reg();
                        self.emit_column(marker, m)?;
                        let i = self.b.reg();
                        for (n, e) in errors.iter().enumerate() {
                            let other = self.b.label();
                            self.b.add(Opcode::Integer, n as i32 + 1, i, 0);
                            self.b.add4(Opcode::Ne, i, other, m, P4::None, crate::vdbe::program::cmp_flags::JUMPIFNULL);
                            self.b.add4(Opcode::Halt, e.code, 0, 0, P4::text(e.message.clone()), 0);
                            self.b.bind(other);
                        }
                    }
                }
            }
            for (l, r) in std::mem::take(&mut using_at[lvl]) {
                if !using_omitted(l, r) {
                    self.using_eq_test(l, r, next)?;
                }
            }
            if let Some((f, _, _)) = left_flag {
                self.b.add(Opcode::Integer, 1, f, 0);
            }
            if let Some(m) = it.matched {
                let key = self.matched_key(it);
                let rec = self.b.reg();
                self.b.add(Opcode::MakeRecord, key.0, key.1, rec);
                self.b.add(Opcode::IdxInsert, m, rec, 0);
            }
            if let Some((_, body, _)) = left_flag {
                self.b.bind(body);
            }
            // The rest of the level and everything inside it: a
            // subroutine the unmatched pass calls too.
            let right_sub = if it.matched.is_some() {
                let sub = RightJoinSub { ret: self.b.reg(), start: self.b.label(), end: self.b.label() };
                self.b.add(Opcode::Gosub, sub.ret, sub.start, 0);
                self.b.add(Opcode::Goto, 0, next, 0);
                self.b.bind(sub.start);
                Some(sub)
            } else {
                None
            };
            let fail = right_sub.as_ref().map_or(next, |s| s.end);
            for t in placed[lvl].clone() {
                if !is_consumed(term_address(t)) {
                    self.where_term_if_false(t, fail)?;
                }
            }
            loops.push(Loop { table_cursor: it.cursor, next, end, kind, left_flag, right_sub, passes: Vec::new(), after_passes: None });
        }
        if last_right.is_some() {
            // The unmatched passes, out of line (the outermost loop's
            // close calls them): they refill a table-valued function,
            // which needs the items `close_loops` does not see.
            let over = self.b.label();
            self.b.add(Opcode::Goto, 0, over, 0);
            let mut passes = Vec::new();
            for (lvl, &ii) in order.iter().enumerate() {
                let it = &items[ii];
                let (Some(m), Some(sub)) = (it.matched, loops[lvl].right_sub.as_ref().map(|s| (s.ret, s.start))) else { continue };
                let ret = self.b.reg();
                let start = self.b.label();
                self.b.bind(start);
                for c in level_cursors[..lvl].iter().flatten() {
                    self.b.add(Opcode::NullRow, *c, 0, 0);
                }
                if let Some((args, recursive)) = it.table_fn {
                    let before: u64 = order[..lvl].iter().fold(0, |b, &i| b | 1u64 << items[i].item.min(63));
                    self.fill_table_function(it, args, recursive, before)?;
                }
                let done = self.b.label();
                self.b.add(Opcode::Rewind, it.cursor, done, 0);
                let top = self.b.here();
                let skip = self.b.label();
                let key = self.matched_key(it);
                self.b.add4(Opcode::Found, m, skip, key.0, P4::Int64(key.1 as i64), 0);
                self.b.add(Opcode::Gosub, sub.0, sub.1, 0);
                self.b.bind(skip);
                self.b.add(Opcode::Next, it.cursor, top as i32, 0);
                self.b.bind(done);
                self.b.add(Opcode::Return, ret, 0, 0);
                passes.push((ret, start));
                let name = it.plan_name.clone().unwrap_or_else(|| self.names.scopes.last().unwrap().items[it.item].name.clone());
                self.stmt.eqp.push(format_args!("RIGHT-JOIN {name}"));
            }
            self.b.bind(over);
            loops[0].passes = passes;
            loops[0].after_passes = Some(outer_skip);
        }
        Ok((loops, order_served))
    }

    /// Registers holding the key `it`'s `matched` index records for the
    /// current row (first register, count): the rowid, or a WITHOUT ROWID
    /// table's PRIMARY KEY columns (they lead its records).
    pub(in crate::sql::codegen) fn matched_key(&mut self, it: &FromItem<'_, 'b>) -> (i32, i32) {
        match &it.table {
            Some(t) if t.without_rowid.is_some() => {
                let width = t.key_width();
                let key = self.b.regs(width);
                for i in 0..width {
                    self.b.add(Opcode::Column, it.cursor, i as i32, key + i as i32);
                }
                (key, width as i32)
            }
            _ => {
                let key = self.b.reg();
                self.b.add(Opcode::Rowid, it.cursor, key, 0);
                (key, 1)
            }
        }
    }

    /// Close loops opened by `open_loops`, innermost first.
    pub fn close_loops(&mut self, loops: Vec<Loop>) {
        let n = loops.len();
        for (i, l) in loops.into_iter().rev().enumerate() {
            if let Some(sub) = &l.right_sub {
                self.b.bind(sub.end);
                self.b.add(Opcode::Return, sub.ret, 0, 0);
            }
            self.b.bind(l.next);
            self.advance_loop(&l.kind);
            let outermost = i + 1 == n;
            if let Some((flag, body, done)) = l.left_flag {
                if !outermost {
                    self.b.bind(l.end);
                }
                self.b.add(Opcode::If, flag, done, 0);
                if let LoopKind::Index(cur, _) | LoopKind::IndexBack(cur, _) | LoopKind::InIndex(cur, ..) = l.kind {
                    self.b.add(Opcode::NullRow, cur, 0, 0);
                }
                self.b.add(Opcode::NullRow, l.table_cursor, 0, 0);
                self.b.add(Opcode::Integer, 1, flag, 0);
                // (A MULTI-INDEX OR loop's body is its subroutine.)
                match l.kind {
                    LoopKind::Or(ret) => self.b.add(Opcode::Gosub, ret, body, 0),
                    _ => self.b.add(Opcode::Goto, 0, body, 0),
                };
                self.b.bind(done);
                if outermost {
                    self.b.bind(l.end);
                }
            } else {
                self.b.bind(l.end);
            }
            // After the outermost loop: the RIGHT/FULL JOIN unmatched
            // passes (skipped with it when a constant term is false).
            for (ret, start) in &l.passes {
                self.b.add(Opcode::Gosub, *ret, *start, 0);
            }
            if let Some(after) = l.after_passes {
                self.b.bind(after);
            }
        }
    }

    /// The instructions that move loop `kind` to its next row (and past
    /// its last to its end label, bound after them by the caller).
    pub(in crate::sql::codegen) fn advance_loop(&mut self, kind: &LoopKind) {
        match *kind {
            LoopKind::Scan(cur, top) | LoopKind::Index(cur, top) | LoopKind::InRowid(cur, top) => {
                self.b.add(Opcode::Next, cur, top as i32, 0);
            }
            LoopKind::ScanBack(cur, top) | LoopKind::IndexBack(cur, top) => {
                self.b.add(Opcode::Prev, cur, top as i32, 0);
            }
            LoopKind::FullScan(cur, top, backward) => {
                // P5 = SQLITE_STMTSTATUS_FULLSCAN_STEP, as SQLite marks
                // a loop over a whole table.
                self.b.add4(if backward { Opcode::Prev } else { Opcode::Next }, cur, top as i32, 0, P4::None, 1);
            }
            LoopKind::InIndex(icur, itop, vcur, vtop, vnext, backward) => {
                let step = if backward { Opcode::Prev } else { Opcode::Next };
                self.b.add(step, icur, itop as i32, 0);
                self.b.bind(vnext);
                self.b.add(step, vcur, vtop as i32, 0);
            }
            LoopKind::Virtual(cur, top) => {
                self.b.add(Opcode::VNext, cur, top as i32, 0);
            }
            LoopKind::VirtualIn(cur, top, vcur, vtop, vnext) => {
                self.b.add(Opcode::VNext, cur, top as i32, 0);
                self.b.bind(vnext);
                self.b.add(Opcode::Next, vcur, vtop as i32, 0);
            }
            LoopKind::Once => {}
            LoopKind::Or(ret) => {
                self.b.add(Opcode::Return, ret, 0, 0);
            }
        }
    }
}

#[allow(dead_code)]
fn is_and(op: Operator) -> bool {
    op == Operator::And
}

/// A term's identity for [`Compiler::seek_consumed`]: its address (the
/// terms are borrowed from the statement's syntax tree for the whole
/// compilation, so an address names one term).
pub(in crate::sql::codegen) fn term_address(e: &Expr<'_>) -> usize {
    e as *const Expr<'_> as usize
}

/// How many result columns the first SELECT of `sel` has, when that is
/// known without resolving names (no `*`).
fn first_select_width(sel: &ast::Select<'_>) -> Option<usize> {
    match &sel.body.select {
        ast::OneSelect::Select { columns, .. } => columns.iter().all(|c| matches!(c, ast::ResultColumn::Expr(..))).then_some(columns.len()),
        ast::OneSelect::Values(rows) => rows.first().map(|r| r.len()),
    }
}

/// A comparison or BETWEEN (what may constrain a column for a lookup).
fn is_comparison_term(t: &Expr<'_>) -> bool {
    match crate::sql::model::expr_shape::strip_parens(t) {
        Expr::Binary(_, op, _) => crate::sql::plan::terms::LookupOp::from_op(*op).is_some(),
        Expr::Between { not: false, .. } => true,
        _ => false,
    }
}
