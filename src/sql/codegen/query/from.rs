//! FROM clauses: opening tables, materialising views, CTEs and subqueries
//! into temporary tables (from their text: `subquery_text.rs`), join
//! constraints (ON, USING, NATURAL). The nested loops that read the items
//! (LEFT JOIN's null row, RIGHT and FULL JOIN's unmatched right rows,
//! WHERE terms placed by the items they read, `term_deps.rs`) are
//! `nested_loops.rs`'s, with per-loop
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
use crate::sql::codegen::query::pushdown::Offer;
use crate::sql::codegen::Compiler;
use crate::sql::model::from::{FromDisplay, FromItem, JoinTerm};
use crate::sql::model::query::unique_names;
use crate::sql::model::query::Dest;
use crate::sql::parse::{unquote, unquoted};
use crate::sql::plan::prelude::*;
use crate::sql::resolve::{ColumnRef, ScopeColumn, ScopeItem};
use crate::util::ascii::AsciiLower;
use crate::value::affinity::Affinity;
use crate::vdbe::program::{Opcode, P4};
use sqlite3_parser::ast::{self, Expr, FromClause, JoinConstraint, JoinOperator, JoinType, SelectTable};
use std::sync::Arc;

impl<'b> Compiler<'_> {
    /// Open every FROM item: push scope items, emit code filling temporary
    /// tables for subqueries and views.
    /// `where_clause`: the query's WHERE, whose terms may be pushed into
    /// the items materialised (`pushdown.rs`).
    /// With the ON clauses to hold to [`Self::check_on_clauses`] once the
    /// query's names are resolved.
    #[allow(clippy::type_complexity)]
    pub fn open_from<'a>(
        &mut self,
        from: Option<&'a FromClause<'b>>,
        where_clause: Option<&'a Expr<'b>>,
    ) -> Result<(Vec<FromItem<'a, 'b>>, Vec<(usize, &'a Expr<'b>)>)> {
        let mut out = Vec::new();
        let Some(from) = from else { return Ok((out, Vec::new())) };
        if let Some(name) = self.missing_table_after_subquery(from) {
            return Err(self.no_such_table(&name));
        }
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
        // JOIN, may name only its own table and those to its left (checked
        // once the names resolve, as SQLite does).
        let last_right = out.iter().filter(|f| f.matched.is_some()).map(|f| f.item).max();
        let on_checks =
            on_clauses.into_iter().filter(|(item, _, outer)| *outer || last_right.is_some_and(|r| *item < r)).map(|(item, e, _)| (item, e)).collect();
        self.expansion.join_term_heights = term_heights;
        Ok((out, on_checks))
    }

    /// "ON clause references tables to its right": SQLite's check of the
    /// ON clauses `open_from` handed back, made after the query's names
    /// resolved (a name error anywhere in the query comes first).
    pub fn check_on_clauses(&mut self, on_checks: &[(usize, &Expr<'_>)]) -> Result<()> {
        for &(item, e) in on_checks {
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
        Ok(())
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
                                let none = Offer::none();
                                let offer = if cte.materialized { &none } else { offer };
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
                        self.name_last_item_object(&name, None);
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
                    // `SQLITE_DBCONFIG_ENABLE_VIEW` off: only TEMP views
                    // may be read.
                    // (Expanded still, not flattened: as SQLite's, the
                    // message names the innermost view refused.)
                    let refused = !self.env.settings.enable_view && table.db != 1 && !std::mem::take(&mut self.expansion.view_pass_once);
                    let unflattened;
                    let offer = if refused {
                        unflattened = super::pushdown::Offer::none();
                        &unflattened
                    } else {
                        offer
                    };
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
                    if refused && r.is_ok() {
                        return Err(Error::sql(format!("access to view \"{}\" prohibited", table.name)));
                    }
                    if r.is_ok() {
                        self.name_last_item_object(&table.name, Some(table.db));
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
                    view_db: None,
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
            view_db: None,
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
    pub(super) fn open_flat_table<'a>(&mut self, flat: crate::sql::plan::flatten::FlatTable, name: String, out: &mut Vec<FromItem<'a, 'b>>) -> Result<()> {
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
            view_db: None,
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
}
