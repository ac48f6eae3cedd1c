//! WHERE push-down into FROM subqueries, views and CTEs (SQLite's
//! "Push-Down Optimization", `optoverview.html` §15): a term of the outer
//! WHERE clause that reads only the columns of one materialised FROM item
//! is also ANDed onto that item's own WHERE clause (onto its HAVING when
//! it is an aggregate with GROUP BY), each column replaced by the result
//! expression that computes it. The outer query still tests the term; the
//! subquery only keeps fewer rows, and may use an index for them.
//!
//! Interface: `from.rs` builds an [`Offer`] per FROM item (the outer
//! terms, empty where the item's place in the join forbids it) and asks
//! [`pushed_term`] for the term to add to the item's body once that body
//! is parsed; `select.rs` (`compile_select_pushed`) compiles the body with
//! it. Nothing else changes: the body is compiled, materialised and named
//! as without the term.
//!
//! Conservative by construction, a subset of SQLite's rules (its
//! `pushDownWhereTerms`), so a term is pushed only where SQLite pushes it
//! too (user functions then see the same rows):
//! - the item is not the right table of a LEFT JOIN and the FROM clause
//!   has no RIGHT or FULL JOIN; no authorizer is set (its calls would
//!   repeat);
//! - the body is one SELECT (no compound, VALUES, LIMIT or window
//!   function); an aggregate one has GROUP BY; a DISTINCT one uses no
//!   COLLATE in its result;
//! - every name in the term is a column of the item (qualified by the
//!   item's name, or unqualified when it is the FROM clause's only item),
//!   named once in the body's result;
//! - the term and the result expressions it reads call only deterministic
//!   functions (and, in the result of an aggregate, aggregates), have no
//!   subquery, no row value, no REGEXP/MATCH and no collation other than
//!   the built-in ones.
//!
//! Invariant: a rebuilt expression shares every subtree it does not
//! change with the tree it came from; what it allocates lives in the
//! caller's arena, as long as the body being compiled.

use crate::sql::codegen::Compiler;
use crate::sql::parse::{copy_literal, unquote, unquoted};
use crate::util::ascii::AsciiLower;
use crate::vdbe::func::FuncKind;
use sqlite3_parser::ast::{self, Expr, OneSelect, Operator, ResultColumn, Select, SelectTable};
use sqlite3_parser::Bump;

/// The outer WHERE terms offered to one FROM item.
pub struct Offer<'a, 'b> {
    /// Top-level AND terms of the outer WHERE clause (empty: nothing may
    /// be pushed into this item).
    pub terms: Vec<&'a Expr<'b>>,
    /// The FROM clause has this item only: unqualified names may name
    /// its columns.
    pub unqualified: bool,
    /// The item's place in the join allows flattening it
    /// (`plan::flatten`): no RIGHT or FULL JOIN in the FROM clause.
    pub flatten: bool,
}

impl Offer<'_, '_> {
    /// No terms, no flattening.
    pub fn none() -> Self {
        Offer { terms: Vec::new(), unqualified: false, flatten: false }
    }
}

/// The top-level AND terms of `e` (through single parentheses, as SQLite
/// has no node for them).
pub fn and_terms<'a, 'b>(e: &'a Expr<'b>, out: &mut Vec<&'a Expr<'b>>) {
    match e {
        Expr::Binary(l, Operator::And, r) => {
            and_terms(l, out);
            and_terms(r, out);
        }
        Expr::Parenthesized(v) if v.len() == 1 => and_terms(&v[0], out),
        _ => out.push(e),
    }
}

/// Where a pushed term goes in the body.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Clause {
    Where,
    Having,
}

/// The term to AND onto `sel` (the body of the FROM item named `item`,
/// whose columns are `cols` when declared) for the terms of `offer`, and
/// where it goes; `None` when no term may be pushed.
pub fn pushed_term<'s>(
    c: &Compiler<'_>,
    sel: &'s Select<'s>,
    terms: &[&'s Expr<'s>],
    unqualified: bool,
    item: Option<&str>,
    cols: Option<&[String]>,
    bump: &'s Bump,
) -> Option<(Expr<'s>, Clause)> {
    if terms.is_empty() || c.stmt.authorizer.is_some() || sel.limit.is_some() || sel.body.compounds.as_ref().is_some_and(|c| !c.is_empty()) {
        return None;
    }
    let OneSelect::Select { distinctness, columns, from, group_by, having, window_clause, .. } = &sel.body.select else { return None };
    let windowed = columns.iter().any(|rc| matches!(rc, ResultColumn::Expr(e, _) if mentions_window(e)))
        || sel.order_by.iter().flat_map(|o| o.iter()).any(|o| mentions_window(&o.expr));
    if window_clause.is_some() || windowed {
        return None;
    }
    let aggregate = group_by.is_some() || having.is_some() || columns.iter().any(|rc| matches!(rc, ResultColumn::Expr(e, _) if mentions_aggregate(c, e)));
    if aggregate && group_by.is_none() {
        return None;
    }
    if distinctness.is_some() && columns.iter().any(|rc| matches!(rc, ResultColumn::Expr(e, _) if mentions_collate(e))) {
        return None;
    }
    let result = result_exprs(c, sel, columns, from.as_ref(), bump)?;
    if cols.is_some_and(|cols| cols.len() != result.len()) {
        return None;
    }
    let names: Vec<Option<String>> = match cols {
        Some(cols) => cols.iter().map(|n| Some(n.clone())).collect(),
        None => result.iter().map(|(n, _)| n.clone()).collect(),
    };
    let rebuild = Rebuild { c, bump, aggregate };
    let column = |q: Option<&str>, n: &str| -> Option<&'s Expr<'s>> {
        match q {
            Some(q) if item.is_some_and(|i| i.eq_ci(q)) => {}
            None if unqualified => {}
            _ => return None,
        }
        let mut found = names.iter().enumerate().filter(|(_, m)| m.as_deref().is_some_and(|m| m.eq_ci(n)));
        let (i, _) = found.next()?;
        if found.next().is_some() {
            return None;
        }
        let e = result[i].1;
        // In an aggregate, a GROUP BY term or an aggregate (a bare column
        // of a group is whichever row the group ended on).
        let grouped = !aggregate || group_by.iter().flat_map(|g| g.iter()).any(|g| g == e) || mentions_aggregate(c, e);
        if !grouped || !rebuild.pure(e, true) {
            return None;
        }
        // The column's collation goes with it: a column or COLLATE keeps
        // its own; anything else compared as the column was (BINARY, an
        // expression without COLLATE having none) gets `COLLATE BINARY`,
        // as SQLite's substitution adds it.
        let mut bare = e;
        while let Expr::Parenthesized(v) = bare {
            bare = v.first()?;
        }
        match bare {
            Expr::Id(_) | Expr::Qualified(..) | Expr::DoublyQualified(..) | Expr::Collate(..) => Some(bare),
            _ if binary_collated(bare) => Some(bump.alloc(Expr::Collate(bare, "BINARY"))),
            _ => None,
        }
    };
    let mut out: Option<Expr<'s>> = None;
    for t in terms {
        let mut reads = false;
        let Some(t) = rebuild.term(t, &column, &mut reads) else { continue };
        if !reads {
            continue;
        }
        out = Some(match out {
            None => t,
            Some(acc) => Expr::Binary(bump.alloc(acc), Operator::And, bump.alloc(t)),
        });
    }
    out.map(|t| (t, if aggregate { Clause::Having } else { Clause::Where }))
}

/// The body's result expressions with the names they give their columns
/// (`None`: named by their text, which no term can name), `*` expanded
/// when the body reads one table; `None` when the list cannot be known.
fn result_exprs<'s>(
    c: &Compiler<'_>,
    sel: &'s Select<'s>,
    columns: &'s [ResultColumn<'s>],
    from: Option<&'s ast::FromClause<'s>>,
    bump: &'s Bump,
) -> Option<Vec<(Option<String>, &'s Expr<'s>)>> {
    let mut out = Vec::new();
    for rc in columns {
        match rc {
            ResultColumn::Expr(e, alias) => {
                let name = match (alias, e) {
                    (Some(ast::As::As(n) | ast::As::Elided(n)), _) => Some(unquote(n.0)),
                    (None, Expr::Id(id)) => Some(unquote(id.0)),
                    (None, Expr::Qualified(_, n) | Expr::DoublyQualified(_, _, n)) => Some(unquote(n.0)),
                    _ => None,
                };
                out.push((name, e));
            }
            ResultColumn::Star | ResultColumn::TableStar(_) => {
                // Only one plain table read, named as the star names it.
                let from = from?;
                if sel.with.is_some() || from.joins.as_ref().is_some_and(|j| !j.is_empty()) {
                    return None;
                }
                let Some(SelectTable::Table(qn, alias, _)) = from.select else { return None };
                let name = unquote(qn.name.0);
                if let ResultColumn::TableStar(t) = rc {
                    let shown = alias.as_ref().map_or(name.clone(), |a| match a {
                        ast::As::As(n) | ast::As::Elided(n) => unquote(n.0),
                    });
                    if !unquote(t.0).eq_ci(&shown) {
                        return None;
                    }
                }
                let db = match &qn.db_name {
                    Some(d) => Some(c.db_index(&unquoted(d.0))?),
                    None if c.cte_at(&name).is_some() => return None,
                    None => c.names.home_db,
                };
                let table = c.env.schema.shared_table_in(db, &name)?;
                if table.view_select.is_some() || table.virtual_table.is_some() {
                    return None;
                }
                for col in table.scope_columns().iter().filter(|col| !col.hidden) {
                    let quoted = bump.alloc_str(&format!("\"{}\"", col.name.replace('"', "\"\"")));
                    out.push((Some(col.name.clone()), &*bump.alloc(Expr::Id(ast::Id(quoted)))));
                }
            }
        }
    }
    Some(out)
}

/// Whether `e` calls an aggregate function anywhere (subqueries aside).
fn mentions_aggregate(c: &Compiler<'_>, e: &Expr<'_>) -> bool {
    let mut found = false;
    crate::sql::model::expr_shape::walk(e, &mut |x| {
        if matches!(x, Expr::Subquery(_) | Expr::Exists(_) | Expr::InSelect { .. }) {
            return false;
        }
        found |= crate::sql::codegen::names_aggregate_function(c, x);
        !found
    });
    found
}

/// Whether `e` calls a window function.
fn mentions_window(e: &Expr<'_>) -> bool {
    let mut found = false;
    crate::sql::model::expr_shape::walk(e, &mut |x| {
        found |= match x {
            Expr::FunctionCall { filter_over: Some(f), .. } | Expr::FunctionCallStar { filter_over: Some(f), .. } => f.over_clause.is_some(),
            _ => false,
        };
        !found
    });
    found
}

/// Whether `e` (not a column or COLLATE) compares with BINARY: no
/// COLLATE in it, and no column under the CAST and unary `+` SQLite looks
/// through for one.
fn binary_collated(e: &Expr<'_>) -> bool {
    let mut top = e;
    loop {
        match top {
            Expr::Cast { expr, .. } | Expr::Unary(ast::UnaryOperator::Positive, expr) => top = expr,
            Expr::Parenthesized(v) if v.len() == 1 => top = &v[0],
            Expr::Id(_) | Expr::Qualified(..) | Expr::DoublyQualified(..) => return false,
            _ => break,
        }
    }
    !mentions_collate(e)
}

/// Whether `e` has a COLLATE anywhere.
fn mentions_collate(e: &Expr<'_>) -> bool {
    let mut found = false;
    crate::sql::model::expr_shape::walk(e, &mut |x| {
        found |= matches!(x, Expr::Collate(..));
        !found
    });
    found
}

/// Checks and rebuilds expressions in the arena.
struct Rebuild<'c, 'e, 's> {
    c: &'c Compiler<'e>,
    bump: &'s Bump,
    /// The body is an aggregate: its result may call aggregates.
    aggregate: bool,
}

impl<'s> Rebuild<'_, '_, 's> {
    /// A deterministic scalar function (or, with `agg`, an aggregate of
    /// an aggregate body) of that many arguments.
    fn function_ok(&self, name: &str, n: usize, agg: bool) -> bool {
        match self.c.env.funcs.find(&unquoted(name), n) {
            Some(d) => match d.kind {
                FuncKind::Aggregate(_) => agg && self.aggregate,
                FuncKind::Scalar(_) => d.flags.deterministic,
            },
            None => false,
        }
    }

    /// Whether a result expression of the body may be copied into a
    /// term: `result` allows aggregates (computed once per group either
    /// way).
    fn pure(&self, e: &Expr<'_>, result: bool) -> bool {
        let mut ok = true;
        crate::sql::model::expr_shape::walk(e, &mut |x| {
            ok &= match x {
                Expr::Subquery(_) | Expr::Exists(_) | Expr::InSelect { .. } | Expr::InTable { .. } | Expr::Raise(..) => false,
                Expr::Parenthesized(v) => v.len() == 1,
                Expr::FunctionCall { name, args, distinctness, order_by, filter_over } => {
                    let agg_shape = distinctness.is_none() && order_by.is_none() && filter_over.is_none();
                    agg_shape && self.function_ok(name.0, args.map_or(0, |a| a.len()), result)
                }
                Expr::FunctionCallStar { name, filter_over } => filter_over.is_none() && self.function_ok(name.0, 0, result),
                Expr::Like { op, escape, .. } => self.like_ok(*op, escape.is_some()),
                Expr::Collate(_, name) => builtin_collation(name),
                Expr::Cast { type_name, .. } => type_name.as_ref().is_none_or(|t| t.size.is_none()),
                _ => true,
            };
            ok
        });
        ok
    }

    fn like_ok(&self, op: ast::LikeOperator, escape: bool) -> bool {
        let name = match op {
            ast::LikeOperator::Like => "like",
            ast::LikeOperator::Glob => "glob",
            _ => return false,
        };
        self.function_ok(name, 2 + escape as usize, false)
    }

    fn alloc(&self, e: Expr<'s>) -> &'s Expr<'s> {
        self.bump.alloc(e)
    }

    /// `e` rebuilt with each name replaced by the result expression
    /// `column` gives for it (`reads` set when there is one); `None` when
    /// it has anything this module does not push.
    fn term(&self, e: &'s Expr<'s>, column: &dyn Fn(Option<&str>, &str) -> Option<&'s Expr<'s>>, reads: &mut bool) -> Option<Expr<'s>> {
        let sub = |x: &'s Expr<'s>, reads: &mut bool| -> Option<&'s Expr<'s>> { Some(self.alloc(self.term(x, column, reads)?)) };
        Some(match e {
            Expr::Id(id) => {
                *reads = true;
                copy(column(None, &unquote(id.0))?)?
            }
            Expr::Qualified(q, n) => {
                *reads = true;
                copy(column(Some(&unquote(q.0)), &unquote(n.0))?)?
            }
            Expr::Literal(l) => Expr::Literal(copy_literal(l)),
            Expr::Variable(v) => Expr::Variable(v),
            Expr::Binary(l, op, r) => Expr::Binary(sub(l, reads)?, *op, sub(r, reads)?),
            Expr::Unary(op, x) => Expr::Unary(*op, sub(x, reads)?),
            Expr::IsNull(x) => Expr::IsNull(sub(x, reads)?),
            Expr::NotNull(x) => Expr::NotNull(sub(x, reads)?),
            Expr::Collate(x, name) if builtin_collation(name) => Expr::Collate(sub(x, reads)?, name),
            Expr::Cast { expr, type_name } if type_name.as_ref().is_none_or(|t| t.size.is_none()) => {
                Expr::Cast { expr: sub(expr, reads)?, type_name: type_name.as_ref().map(|t| ast::Type { name: t.name, size: None }) }
            }
            Expr::Between { lhs, not, start, end } => Expr::Between { lhs: sub(lhs, reads)?, not: *not, start: sub(start, reads)?, end: sub(end, reads)? },
            Expr::InList { lhs, not, rhs } => Expr::InList { lhs: sub(lhs, reads)?, not: *not, rhs: self.list(*rhs, column, reads)? },
            Expr::Like { lhs, not, op, rhs, escape } if self.like_ok(*op, escape.is_some()) => Expr::Like {
                lhs: sub(lhs, reads)?,
                not: *not,
                op: *op,
                rhs: sub(rhs, reads)?,
                escape: match escape {
                    Some(x) => Some(sub(x, reads)?),
                    None => None,
                },
            },
            Expr::Parenthesized(v) if v.len() == 1 => self.term(&v[0], column, reads)?,
            Expr::Case { base, when_then_pairs, else_expr } => {
                let base = match base {
                    Some(b) => Some(sub(b, reads)?),
                    None => None,
                };
                let mut pairs = Vec::with_capacity(when_then_pairs.len());
                for (w, t) in when_then_pairs.iter() {
                    pairs.push((self.term(w, column, reads)?, self.term(t, column, reads)?));
                }
                let else_expr = match else_expr {
                    Some(x) => Some(sub(x, reads)?),
                    None => None,
                };
                Expr::Case { base, when_then_pairs: self.bump.alloc_slice_fill_iter(pairs), else_expr }
            }
            Expr::FunctionCall { name, distinctness: None, args, order_by: None, filter_over: None }
                if self.function_ok(name.0, args.map_or(0, |a| a.len()), false) =>
            {
                Expr::FunctionCall { name: name.clone(), distinctness: None, args: self.list(*args, column, reads)?, order_by: None, filter_over: None }
            }
            Expr::FunctionCallStar { name, filter_over: None } if self.function_ok(name.0, 0, false) => {
                Expr::FunctionCallStar { name: name.clone(), filter_over: None }
            }
            _ => return None,
        })
    }

    fn list(
        &self,
        list: Option<&'s [Expr<'s>]>,
        column: &dyn Fn(Option<&str>, &str) -> Option<&'s Expr<'s>>,
        reads: &mut bool,
    ) -> Option<Option<&'s [Expr<'s>]>> {
        let Some(list) = list else { return Some(None) };
        let mut v = Vec::with_capacity(list.len());
        for x in list {
            v.push(self.term(x, column, reads)?);
        }
        Some(Some(self.bump.alloc_slice_fill_iter(v)))
    }
}

/// BINARY, NOCASE and RTRIM (any other may be unknown, an error the
/// body must not report first).
fn builtin_collation(name: &str) -> bool {
    let n = unquote(name);
    ["binary", "nocase", "rtrim"].iter().any(|b| n.eq_ci(b))
}

/// A copy of the top node of `e` (its children shared); `None` for nodes
/// with owned parts this module does not copy.
fn copy<'s>(e: &'s Expr<'s>) -> Option<Expr<'s>> {
    Some(match e {
        Expr::Id(id) => Expr::Id(id.clone()),
        Expr::Qualified(q, n) => Expr::Qualified(q.clone(), n.clone()),
        Expr::DoublyQualified(d, q, n) => Expr::DoublyQualified(d.clone(), q.clone(), n.clone()),
        Expr::Literal(l) => Expr::Literal(copy_literal(l)),
        Expr::Variable(v) => Expr::Variable(v),
        Expr::Binary(l, op, r) => Expr::Binary(l, *op, r),
        Expr::Unary(op, x) => Expr::Unary(*op, x),
        Expr::IsNull(x) => Expr::IsNull(x),
        Expr::NotNull(x) => Expr::NotNull(x),
        Expr::Collate(x, n) => Expr::Collate(x, n),
        Expr::Cast { expr, type_name } => Expr::Cast { expr, type_name: type_name.as_ref().map(|t| ast::Type { name: t.name, size: None }) },
        Expr::Between { lhs, not, start, end } => Expr::Between { lhs, not: *not, start, end },
        Expr::InList { lhs, not, rhs } => Expr::InList { lhs, not: *not, rhs: *rhs },
        Expr::Like { lhs, not, op, rhs, escape } => Expr::Like { lhs, not: *not, op: *op, rhs, escape: *escape },
        Expr::Parenthesized(v) if v.len() == 1 => copy(&v[0])?,
        Expr::Case { base, when_then_pairs, else_expr } => Expr::Case { base: *base, when_then_pairs, else_expr: *else_expr },
        Expr::FunctionCall { name, distinctness: None, args, order_by: None, filter_over: None } => {
            Expr::FunctionCall { name: name.clone(), distinctness: None, args: *args, order_by: None, filter_over: None }
        }
        Expr::FunctionCallStar { name, filter_over: None } => Expr::FunctionCallStar { name: name.clone(), filter_over: None },
        _ => return None,
    })
}
