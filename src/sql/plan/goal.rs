//! What a SELECT asks of its outermost loop, worked out before the loops
//! are opened: the order its ORDER BY, GROUP BY or single min()/max()
//! wants ([`OrderGoal`]), and which columns of each FROM item it reads
//! (for covering-index scans).
//!
//! Invariant: a goal is only built from terms that are plain columns of
//! one FROM item of this SELECT; the column set is only known (`Some`)
//! when no expression of the query holds a subquery, a window function or
//! anything else that could read a column outside the walked expressions.

use crate::sql::model::expr_shape::{has_subquery, is_syntactic_constant, walk};
use crate::sql::model::from::{FromItem, JoinTerm};
use crate::sql::model::query::ResultItem;
use crate::sql::parse::{unquote, unquoted};
use crate::sql::plan::facts::PlanFacts;
use crate::sql::plan::order::{OrderGoal, OrderTerm};
use crate::sql::resolve::ColumnRef;
use crate::util::ascii::AsciiLower;
use sqlite3_parser::ast::{Expr, SortOrder, SortedColumn};

/// The columns a query reads: (FROM item, column; `None` the rowid).
pub type ColumnUses = Vec<(usize, Option<usize>)>;

/// What the planner may exploit when opening the loops of one SELECT.
#[derive(Debug, Clone, Default)]
pub struct LoopRequest {
    /// The order wanted from the outermost loop.
    pub goal: Option<OrderGoal>,
    /// Every column the query reads, when that is known.
    pub uses: Option<ColumnUses>,
}

/// The expression under COLLATE and single parentheses, and the
/// explicit collation, if any.
fn strip_collate<'x, 'y>(mut e: &'x Expr<'y>) -> (&'x Expr<'y>, Option<String>) {
    let mut coll = None;
    loop {
        match e {
            Expr::Collate(inner, c) => {
                if coll.is_none() {
                    coll = Some(unquote(c).ascii_upper());
                }
                e = inner;
            }
            Expr::Parenthesized(v) if v.len() == 1 => e = &v[0],
            _ => return (e, coll),
        }
    }
}

/// The ORDER BY, GROUP BY, DISTINCT and min()/max() goals of a query
/// (implemented for every [`PlanFacts`]).
pub trait Goals: PlanFacts {
    /// The column of this SELECT a plain column reference names.
    fn plain_column(&mut self, e: &Expr<'_>) -> Option<ColumnRef> {
        let key = e as *const Expr<'_> as usize;
        if let Some(known) = self.name_memo().as_ref().and_then(|m| m.plain.get(&key)) {
            return known.clone();
        }
        let r = self.plain_column_resolved(e);
        if let Some(m) = self.name_memo().as_mut() {
            m.plain.insert(key, r.clone());
        }
        r
    }

    fn plain_column_resolved(&mut self, e: &Expr<'_>) -> Option<ColumnRef> {
        let r = match e {
            Expr::Id(id) => self.resolve_name(None, &unquoted(id.0)).ok().flatten(),
            Expr::Qualified(q, c) => self.resolve_name(Some(&unquoted(q.0)), &unquoted(c.0)).ok().flatten(),
            _ => None,
        }?;
        (r.depth == 0).then_some(r)
    }

    /// One goal term from a column reference and its explicit collation.
    fn goal_term(&self, r: &ColumnRef, explicit: Option<String>, desc: bool) -> Option<(usize, OrderTerm)> {
        let collation = explicit.or_else(|| r.collation.clone().map(|c| c.ascii_upper())).unwrap_or_else(|| "BINARY".into());
        Some((r.item, OrderTerm { column: r.column, desc, collation }))
    }

    /// The goal of an ORDER BY whose terms map to result items by
    /// `order_map` (see `order_by_map`).
    fn order_by_goal(&mut self, terms: &[SortedColumn<'_>], order_map: &[Option<usize>], items: &[ResultItem<'_, '_>]) -> Option<OrderGoal> {
        let mut out: Vec<OrderTerm> = Vec::new();
        let mut item = None;
        for (i, t) in terms.iter().enumerate() {
            if crate::sql::model::query::needs_null_key(t) {
                return None;
            }
            let desc = matches!(t.order, Some(SortOrder::Desc));
            let (own, own_coll) = strip_collate(&t.expr);
            // A constant term orders nothing: left out, as SQLite does.
            if order_map.get(i).copied().flatten().is_none() && is_syntactic_constant(own) {
                continue;
            }
            let (r, coll) = match order_map.get(i).copied().flatten().and_then(|k| items.get(k)) {
                Some(ResultItem::Col(r, _, _)) => (r.clone(), own_coll),
                Some(ResultItem::Expr(e, _)) => {
                    let (inner, c) = strip_collate(e);
                    (self.plain_column(inner)?, own_coll.or(c))
                }
                None => (self.plain_column(own)?, own_coll),
            };
            let (it, term) = self.goal_term(&r, coll, desc)?;
            if item.is_some_and(|x| x != it) {
                return None;
            }
            item = Some(it);
            out.push(term);
        }
        Some(OrderGoal { item: item?, terms: out, grouping: false, min_max: false, vtab_distinct: 0 })
    }

    /// The order a DISTINCT without ORDER BY asks of a virtual table
    /// (`sqlite3_vtab_distinct` 2): its result columns, when each is a
    /// column (not the rowid) of one virtual-table item of `from`.
    fn distinct_goal(&mut self, from: &[FromItem<'_, '_>], items: &[ResultItem<'_, '_>]) -> Option<OrderGoal> {
        let mut out = Vec::new();
        let mut item = None;
        for it in items {
            let r = match it {
                ResultItem::Col(r, _, _) => r.clone(),
                ResultItem::Expr(e, _) => {
                    let (inner, _) = strip_collate(e);
                    self.plain_column(inner)?
                }
            };
            r.column?;
            let (i, term) = self.goal_term(&r, None, false)?;
            if item.is_some_and(|x| x != i) {
                return None;
            }
            item = Some(i);
            out.push(term);
        }
        let item = item?;
        from.iter().find(|f| f.item == item)?.vtab.as_ref()?;
        Some(OrderGoal { item, terms: out, grouping: false, min_max: false, vtab_distinct: 2 })
    }

    /// The order a DISTINCT without ORDER BY asks of a table that is not
    /// virtual (SQLite's `WHERE_DISTINCTBY`): its result columns, each a
    /// column of one FROM item, grouped in any order and direction under
    /// the collation each result column compares with.
    fn ordered_distinct_goal(&mut self, from: &[FromItem<'_, '_>], items: &[ResultItem<'_, '_>]) -> Option<OrderGoal> {
        let mut out = Vec::new();
        let mut item = None;
        for it in items {
            let (r, coll) = match it {
                ResultItem::Col(r, _, _) => (r.clone(), None),
                ResultItem::Expr(e, _) => {
                    let (inner, coll) = strip_collate(e);
                    (self.plain_column(inner)?, coll)
                }
            };
            let (i, term) = self.goal_term(&r, coll, false)?;
            if item.is_some_and(|x| x != i) {
                return None;
            }
            item = Some(i);
            out.push(term);
        }
        let item = item?;
        if from.iter().find(|f| f.item == item)?.vtab.is_some() {
            return None;
        }
        Some(OrderGoal { item, terms: out, grouping: true, min_max: false, vtab_distinct: 2 })
    }

    /// The goal of GROUP BY expressions (already mapped from ordinals).
    fn group_by_goal(&mut self, groups: &[&Expr<'_>]) -> Option<OrderGoal> {
        let mut out = Vec::new();
        let mut item = None;
        for g in groups {
            let (inner, coll) = strip_collate(g);
            let r = self.plain_column(inner)?;
            let (it, term) = self.goal_term(&r, coll, false)?;
            if item.is_some_and(|x| x != it) {
                return None;
            }
            item = Some(it);
            out.push(term);
        }
        Some(OrderGoal { item: item?, terms: out, grouping: true, min_max: false, vtab_distinct: 1 })
    }

    /// The goal of a lone `min(col)` / `max(col)`: the column ascending
    /// (min) or descending (max); `None` for any other call.
    fn min_max_goal(&mut self, call: &Expr<'_>) -> Option<OrderGoal> {
        let Expr::FunctionCall { name, distinctness: None, args: Some(args), order_by: None, filter_over: None } = call else { return None };
        let fname = unquoted(name.0).ascii_lower();
        let desc = match fname.as_str() {
            "min" => false,
            "max" => true,
            _ => return None,
        };
        if args.len() != 1 {
            return None;
        }
        let (inner, coll) = strip_collate(&args[0]);
        let r = self.plain_column(inner)?;
        let (it, term) = self.goal_term(&r, coll, desc)?;
        Some(OrderGoal { item: it, terms: vec![term], grouping: false, min_max: true, vtab_distinct: 0 })
    }

    /// Every column of this SELECT's FROM items that `exprs` and the
    /// `cols` read; `None` when that cannot be known from the text.
    /// With `subqueries`, a subquery adds the columns its correlation
    /// reads (unknown when that cannot be told); without, it makes the
    /// set unknown.
    fn column_uses(&mut self, exprs: &[&Expr<'_>], cols: &[ColumnRef], subqueries: bool) -> Option<ColumnUses> {
        let mut out: ColumnUses = cols.iter().filter(|c| c.depth == 0).map(|c| (c.item, c.column)).collect();
        for e in exprs {
            if (!subqueries && has_subquery(e)) || crate::sql::model::expr_shape::has_window_call(e) {
                return None;
            }
            if subqueries {
                let mut sels: Vec<&sqlite3_parser::ast::Select<'_>> = Vec::new();
                walk(e, &mut |x| {
                    if let Expr::Subquery(s) | Expr::Exists(s) | Expr::InSelect { rhs: s, .. } = x {
                        sels.push(s);
                    }
                    true
                });
                for s in sels {
                    out.extend(self.subquery_outer_refs(s)?.into_iter().map(|r| (r.item, r.column)));
                }
            }
            // (Names as written, unquoted where used: no copy of each.)
            let mut names: Vec<(Option<&str>, &str)> = Vec::new();
            let mut opaque = false;
            walk(e, &mut |x| {
                match x {
                    Expr::Id(id) => names.push((None, id.0)),
                    Expr::Name(n) => names.push((None, n.0)),
                    Expr::Qualified(t, c) => names.push((Some(t.0), c.0)),
                    // Forms whose column reads the walk may not see.
                    Expr::DoublyQualified(..) | Expr::Raise(..) => opaque = true,
                    _ => {}
                }
                true
            });
            if opaque {
                return None;
            }
            for (q, n) in names {
                match self.resolve_name(q.map(unquoted).as_deref(), &unquoted(n)) {
                    Ok(Some(r)) if r.depth == 0 => out.push((r.item, r.column)),
                    Ok(Some(_)) => {}
                    // TRUE and FALSE where no column has the name.
                    Ok(None) if q.is_none() && (n.eq_ci("true") || n.eq_ci("false")) => {}
                    // An alias or a name of something else: a column
                    // could hide behind it.
                    _ => return None,
                }
            }
        }
        Some(out)
    }
}

impl<T: PlanFacts> Goals for T {}

/// The columns a query reads of each FROM item (implemented for every
/// [`PlanFacts`]).
pub trait ColumnUse<'b>: PlanFacts {
    /// The columns a SELECT reads: its result items, the join terms of
    /// `from` and `exprs` (WHERE, GROUP BY, HAVING, ORDER BY). `None` with
    /// RIGHT and FULL joins or table-valued functions, whose NULL rows and
    /// refills read the table cursors directly (a LEFT JOIN's null row
    /// covers its index cursor too).
    fn select_uses<'a>(&mut self, from: &[FromItem<'a, 'b>], items: &[ResultItem<'a, 'b>], exprs: &[&Expr<'_>]) -> Option<ColumnUses> {
        if from.iter().any(|f| f.vtab.is_some()) {
            self.vtab_col_uses(from, items, exprs);
        }
        if from.iter().any(|f| f.matched.is_some() || f.table_fn.is_some()) || self.has_authorizer() {
            return None;
        }
        // Only an index (covering or not) or an automatic index reads
        // the list. Neither can serve one table of an uncorrelated query
        // when the table has no index: the list is not made then.
        if let [only] = from {
            if self.scopes().len() <= 1 && only.table.as_ref().is_some_and(|t| t.without_rowid.is_none() && !self.table_has_index(t)) {
                return None;
            }
        }
        self.uses_of(from, items, exprs, false)
    }

    /// Record `colUsed` for each virtual table of `from` (see
    /// `Compiler::vtab_col_used`): what the statement reads of it, the
    /// columns correlated subqueries read included, as SQLite counts them
    /// (whatever the join, authorizer or index).
    fn vtab_col_uses<'a>(&mut self, from: &[FromItem<'a, 'b>], items: &[ResultItem<'a, 'b>], exprs: &[&Expr<'_>]) {
        let Some(uses) = self.uses_of(from, items, exprs, true) else { return };
        for it in from.iter().filter(|f| f.vtab.is_some()) {
            let mask = crate::sql::plan::vtab::col_used(it, Some(&uses));
            self.vtab_col_used().insert(it.cursor, mask);
        }
    }

    /// Count the columns named `names` of the virtual tables of `from` as
    /// read (`colUsed`): a compound's ORDER BY terms SQLite resolves in
    /// an arm's FROM while matching them to result columns
    /// (`Compiler::arm_order_probed`). A name reads the first table
    /// holding such a column.
    fn count_probed_columns(&mut self, from: &[FromItem<'_, 'b>], names: &[String]) {
        for name in names {
            let found = from
                .iter()
                .filter_map(|it| it.vtab.as_ref().map(|v| (it.cursor, v)))
                .find_map(|(cursor, v)| v.decl.table.columns.iter().position(|c| c.name.eq_ci(name)).map(|k| (cursor, k)));
            if let Some((cursor, k)) = found {
                if let Some(mask) = self.vtab_col_used().get_mut(&cursor) {
                    *mask |= 1u64 << k.min(63);
                }
            }
        }
    }

    /// The columns `items`, the join terms of `from` and `exprs` read.
    fn uses_of<'a>(&mut self, from: &[FromItem<'a, 'b>], items: &[ResultItem<'a, 'b>], exprs: &[&Expr<'_>], subqueries: bool) -> Option<ColumnUses> {
        let mut all: Vec<&Expr<'_>> = exprs.to_vec();
        let mut cols: Vec<ColumnRef> = Vec::new();
        for it in items {
            match it {
                ResultItem::Expr(e, _) => all.push(e),
                ResultItem::Col(r, _, _) => cols.push(r.clone()),
            }
        }
        for f in from {
            for j in &f.on {
                match j {
                    JoinTerm::Expr(e) => all.push(e),
                    JoinTerm::ColEq(l, r) => {
                        cols.extend(l.iter().cloned());
                        cols.push(r.clone());
                    }
                    JoinTerm::ExprEq(e, r) => {
                        all.push(e);
                        cols.push(r.clone());
                    }
                    JoinTerm::FailWhen(marker, _) => cols.push(marker.clone()),
                }
            }
        }
        self.column_uses(&all, &cols, subqueries)
    }

    /// Whether some index of the schema is on `table`.
    fn table_has_index(&self, table: &crate::sql::schema::Table) -> bool {
        self.schema().indexes.values().any(|i| i.db == table.db && i.table.eq_ci(&table.name))
    }
}

impl<'b, T: PlanFacts> ColumnUse<'b> for T {}
