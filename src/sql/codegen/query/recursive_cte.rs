//! Recursive common table expressions: the initial SELECTs fill a queue;
//! each row taken from it is the CTE's content while the recursive SELECTs
//! run, and their rows feed the queue again. With an ORDER BY the queue is
//! an index ordered by the sort keys and a sequence number (ties first in,
//! first out), and a row reaches the result when it is taken; without one
//! it is first in, first out and rows reach the result as they are made.
//! LIMIT counts result rows; OFFSET rows are expanded but not kept.
//!
//! Which SELECTs are recursive is SQLite's rule, whether or not the WITH
//! clause says RECURSIVE: when the body's last compound operator is UNION
//! or UNION ALL, the arms at its end joined by that same operator that
//! name the CTE in their own FROM clause (each once). Everything before
//! them is the initial query, a compound of any kind, where the CTE's
//! name is a circular reference; a UNION as that last operator drops
//! every row already queued (under the columns' collations).
use crate::error::{Error, Result};
use crate::sql::codegen::Compiler;
use crate::sql::model::from::FromItem;
use crate::sql::model::query::unique_names;
use crate::sql::model::query::Dest;
use crate::sql::parse::{unquote, with_first_statement};
use crate::util::ascii::AsciiLower;
use crate::vdbe::program::{Opcode, P4};
use sqlite3_parser::ast::{self, CompoundOperator, Expr, SelectTable};

impl<'b> Compiler<'_> {
    /// Fill a temporary table with a recursive CTE's rows: the initial
    /// SELECT feeds a queue; each row taken from the queue is the CTE's
    /// content while the recursive SELECTs run, and their rows feed the
    /// queue again, until it is empty or the LIMIT is reached.
    /// Ok(false), with nothing generated, when the body has no recursive
    /// SELECT: it is then expanded as a plain subquery. The body may read
    /// the columns of the queries around the one using the CTE.
    pub(in crate::sql::codegen) fn open_recursive_cte<'a>(
        &mut self,
        sql: &str,
        name: &str,
        alias: String,
        cols: Option<Vec<String>>,
        out: &mut Vec<FromItem<'a, 'b>>,
    ) -> Result<bool> {
        let saved_aliases = std::mem::take(&mut self.names.aliases);
        let saved_scopes = self.enter_cte_scopes(true);
        let r = with_first_statement(sql.as_bytes(), |cmd, _| match cmd {
            Some(ast::Cmd::Stmt(ast::Stmt::Select(sel))) => {
                let pushed = self.push_with(sel.with.as_ref())?;
                let r = self.with_text_depth_point(sel, |c| c.recursive_cte_body(sel, name, cols.clone()));
                if pushed {
                    self.frame.ctes.pop();
                }
                r
            }
            _ => Err(Error::sql("malformed recursive CTE")),
        });
        self.leave_cte_scopes(saved_scopes);
        self.names.aliases = saved_aliases;
        let Some((result, info)) = r? else { return Ok(false) };
        self.check_subquery_collations(&info)?;
        self.push_subquery_item(result, alias, &info, cols, out);
        Ok(true)
    }

    /// Generate the body of CTE `name` (its WITH clause already in scope)
    /// if it is recursive; Ok(None) when it is not.
    pub(in crate::sql::codegen) fn recursive_cte_body(
        &mut self,
        sel: &ast::Select<'_>,
        name: &str,
        cols: Option<Vec<String>>,
    ) -> Result<Option<(i32, crate::sql::model::query::SelectInfo)>> {
        let compounds: &[ast::CompoundSelect<'_>] = sel.body.compounds.as_deref().unwrap_or(&[]);
        let Some(last_op) = compounds.last().map(|c| c.operator) else { return Ok(None) };
        if !matches!(last_op, CompoundOperator::Union | CompoundOperator::UnionAll) {
            return Ok(None);
        }
        // Arm k (0: the first SELECT) is recursive when it and every arm
        // after it are joined by the last operator and read the CTE in
        // their FROM clauses.
        let mut first_recursive = compounds.len() + 1;
        for k in (1..=compounds.len()).rev() {
            if compounds[k - 1].operator != last_op {
                break;
            }
            match reads_in_from(&compounds[k - 1].select, name) {
                0 => break,
                1 => first_recursive = k,
                _ => return Err(Error::sql(format!("multiple references to recursive table: {name}"))),
            }
        }
        if first_recursive > compounds.len() {
            return Ok(None);
        }
        let setup_arms = std::iter::once(&sel.body.select).chain(compounds[..first_recursive - 1].iter().map(|c| &c.select));
        if setup_arms.clone().any(|a| references_in_arm(a, name) > 0) {
            return Err(Error::sql(format!("circular reference: {name}")));
        }
        if compounds[first_recursive - 1..].iter().any(|c| references_in_arm(&c.select, name) > 1) {
            return Err(Error::sql(format!("multiple recursive references: {name}")));
        }
        // `SELECT 5, *` without FROM: SQLite drops the `*` (reporting "no
        // tables specified") and then compares what is left with the
        // column list, which is the error it reports when they differ.
        if let (Some(c), ast::OneSelect::Select { columns, from: None, .. }) = (&cols, &sel.body.select) {
            let stars = columns.iter().filter(|rc| matches!(rc, ast::ResultColumn::Star | ast::ResultColumn::TableStar(_))).count();
            let rest = columns.len() - stars;
            if stars > 0 && rest > 0 && rest != c.len() {
                return Err(Error::sql(format!("table {name} has {rest} values for {} columns", c.len())));
            }
        }
        let (order_keys, order_collations) = match &sel.order_by {
            Some(terms) => {
                let keys = recursive_order_keys(terms, &sel.body)?;
                let colls: Vec<Option<String>> = keys.iter().map(|k| k.2.clone()).collect();
                (Some(keys.into_iter().map(|(c, d, _, n)| (c, d, n)).collect::<Vec<_>>()), colls)
            }
            None => (None, Vec::new()),
        };
        let windowed = |arm: &ast::OneSelect<'_>| match arm {
            ast::OneSelect::Select { columns, .. } => {
                columns.iter().any(|c| matches!(c, ast::ResultColumn::Expr(e, _) if crate::sql::model::expr_shape::has_window_call(e)))
            }
            ast::OneSelect::Values(_) => false,
        };
        if compounds[first_recursive - 1..].iter().any(|c| windowed(&c.select)) {
            return Err(Error::sql("cannot use window functions in recursive queries"));
        }
        let aggregate = |arm: &ast::OneSelect<'_>| match arm {
            ast::OneSelect::Select { columns, group_by, having, .. } => {
                group_by.is_some()
                    || having.is_some()
                    || columns.iter().any(|c| {
                        let ast::ResultColumn::Expr(e, _) = c else { return false };
                        let mut found = false;
                        crate::sql::model::expr_shape::walk(e, &mut |x| {
                            found |= crate::sql::codegen::is_aggregate_call(self, x);
                            !found
                        });
                        found
                    })
            }
            ast::OneSelect::Values(_) => false,
        };
        if compounds[first_recursive - 1..].iter().any(|c| aggregate(&c.select)) {
            return Err(Error::sql("recursive aggregate queries not supported"));
        }
        let dedupe_wanted = last_op == CompoundOperator::Union;
        let result = self.b.cursor();
        let open_r = self.b.add(Opcode::OpenEphemeral, result, 0, 0);
        let queue = self.b.cursor();
        let open_q = self.b.add(Opcode::OpenEphemeral, queue, 0, 0);
        let dedupe = if dedupe_wanted {
            let d = self.b.cursor();
            self.b.add(Opcode::OpenEphemeral, d, 0, 0);
            Some(d)
        } else {
            None
        };
        let open_d = self.b.here() - 1;
        let done = self.b.label();
        let hint = self.select.cte_limit_hint.take();
        let limit = match self.setup_limit(sel.limit, done)? {
            Some(l) => Some((l.limit, done, l.offset)),
            None => match hint {
                Some((lim, off)) => {
                    // Generate LIMIT + OFFSET rows at most (a negative
                    // LIMIT means no limit).
                    let r = self.b.reg();
                    self.names.scopes.push(Default::default());
                    let res = (|| -> Result<()> {
                        self.expr_text(&lim, r)?;
                        self.b.add(Opcode::MustBeInt, r, 0, 0);
                        if let Some(o) = off {
                            let ro = self.b.reg();
                            self.expr_text(&o, ro)?;
                            self.b.add(Opcode::MustBeInt, ro, 0, 0);
                            let skip = self.b.label();
                            self.b.add(Opcode::IfNot, r, skip, 0);
                            let neg = self.b.label();
                            let zero = self.b.reg();
                            self.b.add(Opcode::Integer, 0, zero, 0);
                            self.b.add4(Opcode::Lt, zero, neg, r, P4::None, 0);
                            self.b.add4(Opcode::Lt, zero, skip, ro, P4::None, 0);
                            self.b.add(Opcode::Add, ro, r, r);
                            self.b.bind(neg);
                            self.b.bind(skip);
                        }
                        Ok(())
                    })();
                    self.names.scopes.pop();
                    res?;
                    self.b.add(Opcode::IfNot, r, done, 0);
                    Some((r, done, None))
                }
                None => None,
            },
        };
        let order = order_keys.map(|keys| {
            let seq = self.b.reg();
            self.b.add(Opcode::Integer, 0, seq, 0);
            self.frame.recursive_orders.push(crate::sql::codegen::RecursiveOrder { keys, seq });
            self.frame.recursive_orders.len() - 1
        });
        let dest = Dest::Recursive { result, queue, dedupe, limit, order };
        // The initial query: its arms one by one where each row may go to
        // the queue as it is made, else as a compound of its own.
        let setup_ops = compounds[..first_recursive - 1].iter().map(|c| c.operator);
        let arm_by_arm = setup_ops.clone().all(|op| op == CompoundOperator::UnionAll || (dedupe_wanted && op == CompoundOperator::Union));
        let mut arm_infos = Vec::new();
        // (SQLite's checks as it codes the CTE's FROM item, after its
        // SELECT: the recursive query, then the SELECT of the setup query
        // and of each recursive arm; see `auth_order.rs`.)
        if self.stmt.authorizer.is_some() {
            self.stmt.auth_recursive.push((name.to_string(), compounds.len() + 2 - first_recursive));
        }
        if arm_by_arm {
            let info = self.compile_simple(&sel.body.select, None, None, dest)?;
            if let Some(c) = &cols {
                if c.len() != info.n_columns {
                    return Err(Error::sql(format!("table {name} has {} values for {} columns", info.n_columns, c.len())));
                }
            }
            arm_infos.push(info);
            for cs in &compounds[..first_recursive - 1] {
                let i = self.compile_simple(&cs.select, None, None, dest)?;
                if i.n_columns != arm_infos[0].n_columns {
                    return Err(Error::sql(format!(
                        "SELECTs to the left and right of {} do not have the same number of result columns",
                        operator_text(cs.operator)
                    )));
                }
                arm_infos.push(i);
            }
        } else {
            let mut text = crate::sql::parse::ast_text(&sel.body.select);
            for cs in &compounds[..first_recursive - 1] {
                text.push_str(&format!(" {} {}", operator_text(cs.operator), crate::sql::parse::ast_text(&cs.select)));
            }
            let info = with_first_statement(text.as_bytes(), |cmd, _| match cmd {
                Some(ast::Cmd::Stmt(ast::Stmt::Select(setup))) => self.compile_select(setup, dest),
                _ => Err(Error::sql("malformed recursive CTE")),
            })?;
            arm_infos.push(info);
        }
        let info = arm_infos[0].clone();
        let n = info.n_columns;
        if let Some(c) = &cols {
            if c.len() != n {
                return Err(Error::sql(format!("table {name} has {n} values for {} columns", c.len())));
            }
        }
        self.b.insns[open_r].p2 = n as i32;
        self.b.insns[open_q].p2 = n as i32;
        // Columns of sort keys ahead of the sequence number in the queue.
        let nkeys = order.map_or(0, |o| self.frame.recursive_orders[o].keys.iter().map(|k| 1 + k.2 as usize).sum());
        if let Some(o) = order {
            if let Some(ti) = self.frame.recursive_orders[o].keys.iter().position(|(c, _, _)| *c >= n) {
                return Err(Error::sql(format!("{} ORDER BY term out of range - should be between 1 and {n}", crate::sql::parse::ordinal(ti + 1))));
            }
        }
        let current = self.b.cursor();
        let top = self.b.here();
        self.b.add(Opcode::Rewind, queue, done, 0);
        self.b.add(Opcode::OpenEphemeral, current, n as i32, 0);
        let regs = self.b.regs(n);
        for i in 0..n {
            self.b.add(Opcode::Column, queue, (nkeys + order.is_some() as usize + i) as i32, regs + i as i32);
        }
        let rec = self.b.reg();
        let one = self.b.reg();
        self.b.add(Opcode::MakeRecord, regs, n as i32, rec);
        self.b.add(Opcode::Integer, 1, one, 0);
        self.b.add(Opcode::Insert, current, rec, one);
        if order.is_some() {
            // The row taken from the ordered queue is the next result row.
            let key = self.b.regs(nkeys + 1);
            for k in 0..=nkeys {
                self.b.add(Opcode::Column, queue, k as i32, key + k as i32);
            }
            self.b.add(Opcode::IdxDelete, queue, key, (nkeys + 1) as i32);
            let rid = self.b.reg();
            let skipped = self.b.label();
            if let Some((_, _, Some(off))) = limit {
                // OFFSET: the first rows are expanded but not kept.
                self.b.add(Opcode::IfPos, off, skipped, 1);
            }
            self.b.add(Opcode::NewRowid, result, rid, 0);
            self.b.add(Opcode::Insert, result, rec, rid);
            if let Some((lim, done, _)) = limit {
                self.b.add(Opcode::DecrJumpZero, lim, done, 0);
            }
            self.b.bind(skipped);
        } else {
            self.b.add(Opcode::Delete, queue, 0, 0);
        }
        // The CTE's columns are named as its first SELECT writes them.
        let names = cols.clone().unwrap_or_else(|| unique_names(&info.written_names));
        self.frame.recursive.push(crate::sql::codegen::RecursiveBinding { name: name.to_string(), cursor: current, columns: names });
        let mut r = Ok(());
        for cs in &compounds[first_recursive - 1..] {
            match self.compile_simple(&cs.select, None, None, dest) {
                Ok(i) if i.n_columns != n => {
                    r = Err(Error::sql(format!(
                        "SELECTs to the left and right of {} do not have the same number of result columns",
                        operator_text(cs.operator)
                    )));
                    break;
                }
                Ok(i) => arm_infos.push(i),
                Err(e) => {
                    r = Err(e);
                    break;
                }
            }
        }
        self.frame.recursive.pop();
        r?;
        // The queue's order and the rows told apart by UNION follow each
        // column's collation (that of the leftmost arm giving it one), an
        // ORDER BY term's own COLLATE first.
        let colls = self.compound_collations(&arm_infos, n)?;
        if let Some(o) = order {
            let mut fields = Vec::new();
            for (k, &(col, descending, null_key)) in self.frame.recursive_orders[o].keys.clone().iter().enumerate() {
                let collation = match &order_collations[k] {
                    Some(c) => self.collation(c)?,
                    None => colls[col].clone(),
                };
                if null_key {
                    fields.push(crate::value::record::KeyField { collation: crate::value::collation::Collation::binary(), descending });
                }
                fields.push(crate::value::record::KeyField { collation, descending });
            }
            fields.push(crate::value::record::KeyField { collation: crate::value::collation::Collation::binary(), descending: false });
            self.b.insns[open_q].p2 = (nkeys + 1 + n) as i32;
            self.b.insns[open_q].p4 = P4::KeyInfo(std::sync::Arc::new(crate::value::record::KeyInfo { fields }));
        }
        if dedupe.is_some() {
            let fields = colls.into_iter().map(|collation| crate::value::record::KeyField { collation, descending: false }).collect();
            self.b.insns[open_d].p2 = n as i32;
            self.b.insns[open_d].p4 = P4::KeyInfo(std::sync::Arc::new(crate::value::record::KeyInfo { fields }));
        }
        self.b.add(Opcode::Goto, 0, top as i32, 0);
        self.b.bind(done);
        Ok(Some((result, info)))
    }
}

/// The ORDER BY of a recursive CTE as (result column, descending, the
/// term's own COLLATE), with the compound-SELECT rule: a column number,
/// or a term naming (or written as) a result column of one of the
/// SELECTs, a COLLATE around it aside; the CTE's own column list does
/// not count.
fn recursive_order_keys(terms: &[ast::SortedColumn<'_>], body: &ast::SelectBody<'_>) -> Result<Vec<(usize, bool, Option<String>, bool)>> {
    let arms = std::iter::once(&body.select).chain(body.compounds.iter().flatten().map(|c| &c.select));
    // Per arm, per column: its name (alias or column name) and its text.
    let mut columns: Vec<Vec<(Option<String>, String)>> = Vec::new();
    for arm in arms {
        if let ast::OneSelect::Select { columns: cs, .. } = arm {
            columns.push(
                cs.iter()
                    .map(|rc| match rc {
                        ast::ResultColumn::Expr(e, alias) => {
                            let name = match (alias, e) {
                                (Some(ast::As::As(n) | ast::As::Elided(n)), _) => Some(unquote(n.0)),
                                (None, Expr::Id(n)) => Some(unquote(n.0)),
                                (None, Expr::Qualified(_, n)) => Some(unquote(n.0)),
                                _ => None,
                            };
                            (name, e.to_string())
                        }
                        _ => (None, String::new()),
                    })
                    .collect(),
            );
        }
    }
    let width = columns.first().map_or(0, |c| c.len());
    let mut keys = Vec::new();
    for (ti, t) in terms.iter().enumerate() {
        let (expr, collation) = match &t.expr {
            Expr::Collate(e, c) => (&**e, Some(unquote(c))),
            e => (e, None),
        };
        let col = if let Some(k) = crate::sql::model::expr_shape::parse_time_integer(expr).filter(|k| i32::try_from(*k).is_ok()) {
            if k < 1 || k as usize > width {
                return Err(Error::sql(format!("{} ORDER BY term out of range - should be between 1 and {width}", crate::sql::parse::ordinal(ti + 1))));
            }
            Some(k as usize - 1)
        } else {
            let name = match expr {
                Expr::Id(ast::Id(raw)) | Expr::Name(ast::Name(raw)) => Some(unquote(raw)),
                _ => None,
            };
            let text = expr.to_string();
            columns.iter().find_map(|arm| {
                arm.iter().position(|(n, e)| match &name {
                    Some(name) => n.as_deref().is_some_and(|n| n.eq_ci(name)),
                    None => *e == text,
                })
            })
        };
        let Some(col) = col else {
            return Err(Error::sql(format!("{} ORDER BY term does not match any column in the result set", crate::sql::parse::ordinal(ti + 1))));
        };
        keys.push((col, matches!(t.order, Some(ast::SortOrder::Desc)), collation, crate::sql::model::query::needs_null_key(t)));
    }
    Ok(keys)
}

/// How many times a SELECT arm reads table `name` (its FROM clause, and
/// the subqueries in its FROM clause and expressions).
fn references_in_arm(arm: &ast::OneSelect<'_>, name: &str) -> usize {
    let ast::OneSelect::Select { columns, from, where_clause, group_by, having, .. } = arm else { return 0 };
    let mut n = 0;
    if let Some(from) = from {
        n += references_in_from(from, name);
    }
    let mut exprs: Vec<&ast::Expr<'_>> = Vec::new();
    for c in columns.iter() {
        if let ast::ResultColumn::Expr(e, _) = c {
            exprs.push(e);
        }
    }
    exprs.extend(where_clause.iter().copied());
    exprs.extend(group_by.iter().flat_map(|g| g.iter()));
    exprs.extend(having.iter().copied());
    for e in exprs {
        let mut subs: Vec<&ast::Select<'_>> = Vec::new();
        crate::sql::model::expr_shape::walk(e, &mut |x| {
            if let ast::Expr::Subquery(s) | ast::Expr::Exists(s) | ast::Expr::InSelect { rhs: s, .. } = x {
                subs.push(s);
            }
            true
        });
        n += subs.into_iter().map(|s| references_in_select(s, name)).sum::<usize>();
    }
    n
}

fn references_in_select(sel: &ast::Select<'_>, name: &str) -> usize {
    // (A WITH clause of its own may define the name again.)
    if sel.with.as_ref().is_some_and(|w| w.ctes.iter().any(|c| unquote(c.tbl_name.0).eq_ci(name))) {
        return 0;
    }
    std::iter::once(&sel.body.select).chain(sel.body.compounds.iter().flat_map(|c| c.iter().map(|c| &c.select))).map(|a| references_in_arm(a, name)).sum()
}

fn references_in_from(from: &ast::FromClause<'_>, name: &str) -> usize {
    from.select
        .into_iter()
        .chain(from.joins.iter().flat_map(|j| j.iter().map(|j| &j.table)))
        .map(|t| match t {
            SelectTable::Table(qn, _, _) => usize::from(qn.db_name.is_none() && unquote(qn.name.0).eq_ci(name)),
            SelectTable::Select(s, _) => references_in_select(s, name),
            SelectTable::Sub(f, _) => references_in_from(f, name),
            SelectTable::TableCall(..) => 0,
        })
        .sum()
}

/// A compound operator as written.
fn operator_text(op: CompoundOperator) -> &'static str {
    match op {
        CompoundOperator::Union => "UNION",
        CompoundOperator::UnionAll => "UNION ALL",
        CompoundOperator::Except => "EXCEPT",
        CompoundOperator::Intersect => "INTERSECT",
    }
}

/// How many times a SELECT arm names table `name` (unqualified) in its
/// own FROM clause, joins included but not subqueries: the references
/// that make the arm recursive.
fn reads_in_from(arm: &ast::OneSelect<'_>, name: &str) -> usize {
    let ast::OneSelect::Select { from: Some(from), .. } = arm else { return 0 };
    from.select
        .into_iter()
        .chain(from.joins.iter().flat_map(|j| j.iter().map(|j| &j.table)))
        .filter(|t| matches!(t, SelectTable::Table(qn, _, _) if qn.db_name.is_none() && unquote(qn.name.0).eq_ci(name)))
        .count()
}
