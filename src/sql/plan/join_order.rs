//! Join order for inner joins: the nested-loop order SQLite's planner
//! would choose, costed as it costs loops without statistics.
//!
//! Estimates are logarithmic (`LogEst`, 10 x log2; see
//! [`crate::sql::plan::order::log_est`]), as SQLite keeps them, so that
//! ties and near-ties fall the same way. Every table is assumed to hold
//! about a million rows (LogEst 200). For each table and set of tables
//! placed outside it, the loops considered are SQLite's (`where.c` as
//! described in `optoverview.txt` and `queryplanner-ng.txt`):
//! - a full scan: cost 3 x N (LogEst N + 16);
//! - a rowid lookup (`=`, IN list, range) and, per index, the longest
//!   prefix of `=`/IN terms the placed tables allow, with a range on the
//!   next column: rows as SQLite's default index estimates (10, 9, 8, 7,
//!   6, then 5 rows per further column; 1 for a unique key), a range
//!   keeping a quarter of them per bound (1/64 for both), cost the seek
//!   (log N) plus the entries read (widths as the tables' declared
//!   columns), plus a table lookup per row when the index does not cover;
//! - an automatic index on a column compared with `=` (inner loops only);
//! - the union of an OR term's branches, each with a lookup.
//!
//! Each WHERE term a loop could check but does not use for its lookup
//! lowers its output: by its likelihood() when one is given, by about 7%
//! (LogEst 1) otherwise, and an `=`/`IS` term caps the output at a quarter
//! of the table (half when compared with -1, 0 or 1).
//!
//! Paths are grown one loop at a time keeping the cheapest few (SQLite's
//! N-best path search): a path's cost is the sum of, per loop, (rows the
//! loops outside yield) x (cost of one pass). With an ORDER BY or GROUP
//! BY some scan of one table can deliver, paths not reading it outermost
//! pay for the sort, estimated from the rows of the best unsorted path.
//!
//! A virtual table's loop is what its module's xBestIndex estimates: the
//! cheapest of the plans asked as SQLite asks them (`VtabPlans`) that the
//! items placed outside allow (none allowed: the path is not taken, so a
//! table-valued function comes after the tables its arguments read).
//!
//! Candidate paths are visited in FROM order and a path only replaces
//! another of the same tables when strictly cheaper, so ties keep the
//! FROM order (as SQLite's do).
//!
//! Invariant: the order returned holds every item once (checked:
//! join_order_permutation).

use crate::sql::model::from::FromItem;
use crate::sql::plan::facts::PlanFacts;
use crate::sql::plan::order::{index_serves, index_width, log_est, rowid_serves, table_width, OrderGoal};
use crate::sql::plan::prelude::*;
use crate::sql::plan::terms::LookupOp;
use crate::sql::plan::vtab_or::log_est_add;
use crate::util::ascii::AsciiLower;
use sqlite3_parser::ast::{Expr, Literal, Operator, UnaryOperator};

/// LogEst of the rows assumed in a table without statistics (2^20).
const TABLE_ROWS: i32 = 200;
/// A full scan costs 3 x its rows (LogEst of 3).
const SCAN_FACTOR: i32 = 16;
/// LogEst rows an equality on the first 1 to 5 columns of an index
/// finds (10, 9, 8, 7, 6); each further column, 5.
const INDEX_EQ_ROWS: [i32; 5] = [33, 32, 30, 28, 26];
const INDEX_EQ_ROWS_LATER: i32 = 23;
/// The least LogEst of entries an index without statistics is assumed
/// to hold (99: about a thousand).
const DEFAULT_INDEX_MIN_ROWS: i32 = 99;
/// LogEst rows one probe of an automatic index finds (20).
const AUTO_INDEX_ROWS: i32 = 43;
/// LogEst of the one-time cost factor of building an automatic index (7).
const AUTO_INDEX_BUILD: i32 = 28;

/// SQLite's `estLog`: LogEst of log2 of the rows `n` (a LogEst).
fn est_log(n: i32) -> i32 {
    if n <= 10 {
        0
    } else {
        log_est(n as u64) - 33
    }
}

/// Paths kept at each step of the search for `n` loops.
fn max_choices(n: usize) -> usize {
    match n {
        0 | 1 => 1,
        2 => 5,
        _ => 12,
    }
}

/// One way to run a loop, in LogEst.
#[derive(Debug, Clone, Copy)]
struct Cand {
    /// Cost of one pass.
    run: i32,
    /// One-time cost (building an automatic index).
    setup: i32,
    /// Rows one pass yields.
    out: i32,
    /// An automatic index (worth building only under an outer loop).
    auto: bool,
    /// At most one row per pass: the loops inside decide the order.
    one_row: bool,
    /// Read outermost, gives the ORDER BY / GROUP BY order.
    ordered: bool,
}

/// Whether a path's rows come in the wanted order, as far as its loops
/// tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ordered {
    /// Every loop so far yields at most one row.
    Unknown,
    Yes,
    No,
}

/// A partial join order.
#[derive(Debug, Clone)]
struct Path {
    mask: u64,
    nrow: i32,
    cost: i32,
    unsorted: i32,
    ordered: Ordered,
    order: Vec<usize>,
}

/// The order of the loops of an inner join (implemented for every
/// [`PlanFacts`]).
pub trait JoinOrder<'b>: PlanFacts {
    /// The cheapest nested-loop order of `items` for `terms`. A virtual
    /// table is offered only the first `vtab_terms` of them: the rest are
    /// USING/NATURAL equalities written as terms for the other tables'
    /// lookups, which `plan::vtab` derives itself from the join (offered
    /// twice, they would also make the plan's constraints differ from the
    /// ones its loop opens with).
    fn join_order<'a>(
        &mut self,
        items: &[FromItem<'a, 'b>],
        terms: &[&'a Expr<'b>],
        vtab_terms: usize,
        goal: Option<&OrderGoal>,
        uses: Option<&crate::sql::plan::goal::ColumnUses>,
    ) -> Vec<usize> {
        let n = items.len();
        // The item whose order an ORDER BY / GROUP BY wants, when some
        // scan of it gives that order: other paths pay for a sort.
        let ordered_item = goal.filter(|g| self.goal_servable(items, g)).map(|g| g.item);
        // (Names resolved once for the whole search.)
        let outer_memo = self.name_memo().replace(Default::default());
        let facts = self.join_facts(items, terms, vtab_terms, goal, ordered_item, uses);
        *self.name_memo() = outer_memo;
        // The loops take the plans asked here.
        self.vtab_plans().extend(facts.loops.iter().filter_map(|l| l.vtab.clone()));
        let mut memo: crate::util::fast_hash::FastMap<(usize, u64), Vec<Cand>> = Default::default();
        // First without the order, for the rows the sort would take; then
        // with the sort's cost on the paths that need one.
        let Some(first) = solve(&facts, None, &mut memo) else { return (0..n).collect() };
        let best = match goal.filter(|_| ordered_item.is_some()) {
            Some(g) => solve(&facts, Some(sorting_cost(first.nrow + 1, g.vtab_distinct == 2)), &mut memo).unwrap_or(first),
            None => first,
        };
        // invariant: join_order_permutation
        debug_assert!(best.order.len() == n && (0..n).all(|i| best.order.contains(&i)), "join order {:?} of {n} items", best.order);
        best.order
    }
}

/// The search's steps (private: `JoinFacts` is the search's own).
trait JoinSearch<'b>: PlanFacts {
    /// Whether some full scan of the goal's table gives its order.
    fn goal_servable(&mut self, items: &[FromItem<'_, 'b>], g: &OrderGoal) -> bool {
        let Some(table) = items.iter().find(|i| i.item == g.item).and_then(|i| i.table.clone()) else { return false };
        // (A WITHOUT ROWID table is read in its key order, and its
        // indexes' entries end with the key.)
        if let Some(pk) = crate::sql::schema::Schema::without_rowid_pk_index(&table) {
            return index_serves(g, &table, &pk, 0).yes()
                || self.schema().indexes_of(&table).iter().any(|i| i.where_sql.is_none() && index_serves(g, &table, &table.index_with_key_suffix(i), 0).yes());
        }
        rowid_serves(g).yes() || self.schema().indexes_of(&table).iter().any(|i| i.where_sql.is_none() && index_serves(g, &table, i, 0).yes())
    }

    /// Resolve the names of every term and list the usable indexes of
    /// every item, once: each candidate is taken with all the other items
    /// placed and keeps the items its value reads, so the loop estimate
    /// for any set of items placed before is a filter on bit masks.
    /// `ordered_item`: the goal's item, when some scan of it gives the
    /// order.
    fn join_facts<'a>(
        &mut self,
        items: &[FromItem<'a, 'b>],
        terms: &[&'a Expr<'b>],
        vtab_terms: usize,
        goal: Option<&OrderGoal>,
        ordered_item: Option<usize>,
        uses: Option<&crate::sql::plan::goal::ColumnUses>,
    ) -> JoinFacts {
        let all = items.iter().fold(0u64, |m, it| m | 1 << it.item.min(63));
        let term_facts = terms.iter().map(|t| TermFacts { deps: self.expr_deps(t), truth: truth_prob(t), eq_cap: eq_cap(t) }).collect();
        let mut loops = Vec::with_capacity(items.len());
        for it in items {
            let me = 1u64 << it.item.min(63);
            let others = all & !me;
            // (Term by term, to know which term each lookup uses.)
            let mut cands = Vec::new();
            let mut ins = Vec::new();
            for (k, t) in terms.iter().enumerate() {
                let one = std::slice::from_ref(t);
                cands.extend(self.lookup_candidates_deps(it, others, one).into_iter().map(|(c, op, _, d)| (c, op, d, k)));
                ins.extend(self.in_candidates_deps(it, others, one).into_iter().map(|(c, list, d)| (c, list.len(), d, k)));
            }
            cands.extend(self.equivalent_lookups(it, others, terms).into_iter().map(|(c, op, _, d, k)| (c, op, d, k)));
            let my_goal = goal.filter(|g| Some(g.item) == ordered_item && g.item == it.item);
            let mut indexes = Vec::new();
            let mut rowid = false;
            let mut rowid_order = false;
            let mut auto_cols = Vec::new();
            let mut rows = TABLE_ROWS;
            if let Some(table) = &it.table {
                rows = self.table_rows_est(table);
                let width = table_width(table);
                rowid = table.without_rowid.is_none();
                rowid_order = my_goal.is_some_and(|g| match crate::sql::schema::Schema::without_rowid_pk_index(table) {
                    Some(pk) => index_serves(g, table, &pk, 0).yes(),
                    None => rowid_serves(g).yes(),
                });
                // (INDEXED BY a partial index the terms do not imply is
                // reported when the loop is built.)
                let usable = self.loop_indexes(it, table, terms).unwrap_or_default();
                for idx in &usable {
                    let keys = idx.columns.iter().map(|ic| self.index_lookup_key(table, ic)).collect();
                    let covering = uses.is_some_and(|u| Self::index_covers(table, idx, it.item, u));
                    let served = match my_goal {
                        Some(g) => {
                            let full = if rowid { idx.clone() } else { table.index_with_key_suffix(idx) };
                            (0..=idx.columns.len()).map(|k| index_serves(g, table, &full, k).yes()).collect()
                        }
                        None => Vec::new(),
                    };
                    indexes.push(IndexFacts {
                        unique: idx.unique,
                        partial: idx.where_sql.is_some(),
                        rows: index_rows_est(idx, rows),
                        unordered: idx.stat.as_ref().is_some_and(|s| s.unordered),
                        keys,
                        width_cost: 15 * index_width(table, idx) / width.max(1),
                        covering,
                        served,
                    });
                }
                if rowid && it.vtab.is_none() && it.index_hint.is_none() && self.firing().is_empty() {
                    let binary = |c: Option<&str>| c.is_none_or(|c| c.eq_ci("BINARY"));
                    auto_cols = (0..table.columns.len())
                        .filter(|&c| table.rowid_alias != Some(c) && table.field_of(c).is_some() && binary(table.columns[c].collation.as_deref()))
                        .collect();
                }
            }
            // A virtual table is costed by its module: the plans SQLite's
            // calls give (see `VtabPlans`). (An error is raised again
            // when the loop asks.)
            debug_assert!(vtab_terms <= terms.len());
            let vtab = match &it.vtab {
                Some(v) => match crate::sql::plan::vtab::constraints_of(self, it, 0, &terms[..vtab_terms]) {
                    Ok(cs) => {
                        let g = crate::sql::plan::vtab::goal_for(it, goal);
                        let col_used = self.vtab_col_used().get(&it.cursor).copied().unwrap_or_else(|| crate::sql::plan::vtab::col_used(it, uses));
                        let mut plans = crate::sql::plan::vtab::VtabPlans::ask(it.cursor, self.vtab_asked(&v.inst), &cs, g, col_used).ok();
                        // (The OR terms' branches next, as SQLite's
                        // `whereLoopAddOr` after `whereLoopAddVirtual`.)
                        if let Some(p) = &mut plans {
                            if let Ok(ors) = crate::sql::plan::vtab_or::or_terms_of(self, it, 0, &terms[..vtab_terms]) {
                                let asked = self.vtab_asked(&v.inst);
                                p.unions = crate::sql::plan::vtab_or::ask_or_branches_joined(asked, &ors, &cs, g, col_used, it.cursor).unwrap_or_default();
                            }
                        }
                        plans
                    }
                    Err(_) => None,
                },
                None => None,
            };
            let mut ors = Vec::new();
            if it.table.is_some() && it.vtab.is_none() && it.index_hint.is_none() {
                for (k, t) in terms.iter().enumerate() {
                    let mut branches = Vec::new();
                    crate::sql::plan::multi_or::disjuncts(t, &mut branches);
                    if branches.len() < 2 || self.expr_deps(t) & me == 0 || self.or_in_list(it, t).is_some() {
                        continue;
                    }
                    let mut facts = Vec::new();
                    for b in branches {
                        let mut sub = Vec::new();
                        crate::sql::model::expr_shape::conjuncts(b, &mut sub);
                        let cands = self.lookup_candidates_deps(it, others, &sub).into_iter().map(|(c, op, _, d)| (c, op, d, k)).collect();
                        let ins = self.in_candidates_deps(it, others, &sub).into_iter().map(|(c, list, d)| (c, list.len(), d, k)).collect();
                        facts.push(BranchFacts { cands, ins });
                    }
                    ors.push(facts);
                }
            }
            loops.push(LoopFacts { me, has_table: it.table.is_some(), rows, rowid, rowid_order, cands, ins, indexes, auto_cols, vtab, ors });
        }
        JoinFacts { terms: term_facts, loops, ordering: ordered_item.is_some() }
    }
}

impl<'b, T: PlanFacts> JoinOrder<'b> for T {}
impl<'b, T: PlanFacts> JoinSearch<'b> for T {}

/// A table's row estimate (implemented for every
/// [`PlanFacts`]).
trait TableRows: PlanFacts {
    /// LogEst of a table's rows: `sqlite_stat1`'s, else about a million.
    /// As in SQLite, an index without statistics of its own takes the
    /// table's rows as its entries, at least 99 (about a thousand), and
    /// the table's estimate is raised with it.
    fn table_rows_est(&self, table: &crate::sql::schema::Table) -> i32 {
        match table.stat {
            None => TABLE_ROWS,
            Some(s) if s.rows < DEFAULT_INDEX_MIN_ROWS && self.schema().indexes_of(table).iter().any(|i| i.stat.is_none()) => DEFAULT_INDEX_MIN_ROWS,
            Some(s) => s.rows,
        }
    }
}

impl<T: PlanFacts> TableRows for T {}

/// SQLite's `aiRowLogEst` of an index: `sqlite_stat1`'s values, and for
/// those it does not give the defaults (entries: the table's rows, 10
/// fewer for a partial index; then 10, 9, 8, 7, 6 and 5 rows per key
/// prefix; a UNIQUE key whole, one row).
fn index_rows_est(idx: &crate::sql::schema::Index, table_rows: i32) -> Vec<i32> {
    let n = idx.columns.len();
    let mut a = Vec::with_capacity(n + 1);
    a.push(table_rows.max(DEFAULT_INDEX_MIN_ROWS) - if idx.where_sql.is_some() { 10 } else { 0 });
    a.extend((0..n).map(|k| INDEX_EQ_ROWS.get(k).copied().unwrap_or(INDEX_EQ_ROWS_LATER)));
    if idx.unique {
        a[n] = 0;
    }
    if let Some(stat) = &idx.stat {
        for (slot, v) in a.iter_mut().zip(&stat.rows) {
            *slot = *v;
        }
    }
    a
}

/// What costing the loops of one join needs, resolved once.
struct JoinFacts {
    /// Per WHERE term.
    terms: Vec<TermFacts>,
    /// Per FROM item, in `items` order.
    loops: Vec<LoopFacts>,
    /// An ORDER BY / GROUP BY / DISTINCT wants an order some scan gives.
    ordering: bool,
}

/// What a WHERE term does to the output of a loop that checks it
/// without using it for its lookup.
struct TermFacts {
    /// Items the term reads (`u64::MAX`: evaluated late).
    deps: u64,
    /// likelihood()/likely()/unlikely(): LogEst of the probability given.
    truth: Option<i32>,
    /// An `=`/`IS` of a column: the loop's output is at most the table's
    /// rows less this (LogEst; 0 for other terms).
    eq_cap: i32,
}

/// A lookup term: (column or indexed expression key, `None` the rowid;
/// operator; items the value side reads; the WHERE term's position).
type LookupFact = (Option<usize>, LookupOp, u64, usize);
/// An IN-list term: (key, list length, items the values read, term).
type InFact = (Option<usize>, usize, u64, usize);

/// One FROM item's lookup possibilities.
struct LoopFacts {
    /// The item's bit in the masks.
    me: u64,
    /// A real table (indexes and ranges apply).
    has_table: bool,
    /// LogEst of the table's rows (`sqlite_stat1`'s, or 2^20).
    rows: i32,
    /// A table with rowids (looked up by rowid, automatic indexes).
    rowid: bool,
    /// Rowid order gives the goal's order.
    rowid_order: bool,
    /// Lookup terms usable once every other item is placed.
    cands: Vec<LookupFact>,
    /// `column IN (list)` terms.
    ins: Vec<InFact>,
    /// Indexes the hints and the terms allow, in schema order.
    indexes: Vec<IndexFacts>,
    /// Columns an automatic index may be built on.
    auto_cols: Vec<usize>,
    /// A virtual table: its module's estimates.
    vtab: Option<crate::sql::plan::vtab::VtabPlans>,
    /// OR terms reading this item: the lookup terms of each branch.
    ors: Vec<Vec<BranchFacts>>,
}

/// The lookup terms of one branch of an OR term (as in `LoopFacts`,
/// each naming the OR term).
struct BranchFacts {
    cands: Vec<LookupFact>,
    ins: Vec<InFact>,
}

/// An index as the cost model sees it.
struct IndexFacts {
    unique: bool,
    /// A partial index (about half the table's rows).
    partial: bool,
    /// LogEst of the entries, then of the entries an equality on each
    /// longer key prefix finds (SQLite's `aiRowLogEst`).
    rows: Vec<i32>,
    /// `sqlite_stat1` says `unordered`: no range, no order.
    unordered: bool,
    /// The lookup key of each index column.
    keys: Vec<Option<usize>>,
    /// Cost of reading an entry relative to a table row (LogEst; 15 when
    /// as wide).
    width_cost: i32,
    /// Holds every column the query reads of the table.
    covering: bool,
    /// Per number of leading columns pinned by equalities, whether the
    /// rest gives the goal's order (empty: no goal on this table).
    served: Vec<bool>,
}

/// The probability a likelihood()/likely()/unlikely() around the term
/// gives (LogEst), as SQLite reads it.
fn truth_prob(t: &Expr<'_>) -> Option<i32> {
    let Expr::FunctionCall { name, args: Some(args), .. } = crate::sql::model::expr_shape::strip_parens(t) else { return None };
    let name = crate::sql::parse::unquoted(name.0);
    // (LogEst of the probability scaled by 2^27, less LogEst 2^27.)
    let scaled = |p: f64| log_est((p * 134_217_728.0) as u64) - 270;
    if name.eq_ci("likely") && args.len() == 1 {
        Some(scaled(0.9375))
    } else if name.eq_ci("unlikely") && args.len() == 1 {
        Some(scaled(0.0625))
    } else if name.eq_ci("likelihood") && args.len() == 2 {
        match &args[1] {
            Expr::Literal(Literal::Numeric(p)) => p.parse::<f64>().ok().filter(|p| (0.0..=1.0).contains(p)).map(scaled),
            _ => None,
        }
    } else {
        None
    }
}

/// SQLite's cap on the output of a loop leaving an `=`/`IS` term of a
/// column unused: a quarter of the table (LogEst 20), or half (10) when
/// the other side is the integer -1, 0 or 1; 0 for other terms.
fn eq_cap(t: &Expr<'_>) -> i32 {
    use crate::sql::model::expr_shape::strip_parens;
    let Expr::Binary(l, op, r) = strip_parens(t) else { return 0 };
    if !matches!(op, Operator::Equals | Operator::Is) {
        return 0;
    }
    let is_column = |e: &Expr<'_>| {
        let mut e = strip_parens(e);
        while let Expr::Collate(x, _) = e {
            e = strip_parens(x);
        }
        crate::sql::plan::terms::column_name(e).is_some()
    };
    let value = if is_column(l) {
        r
    } else if is_column(r) {
        l
    } else {
        return 0;
    };
    if matches!(strip_parens(value), Expr::Literal(Literal::Null)) && *op == Operator::Is {
        return 0;
    }
    if small_integer(value) {
        10
    } else {
        20
    }
}

/// The integer literal -1, 0 or 1 (signs allowed).
fn small_integer(e: &Expr<'_>) -> bool {
    match e {
        Expr::Literal(Literal::Numeric(n)) => matches!(n.parse::<i64>(), Ok(-1..=1)),
        Expr::Unary(UnaryOperator::Positive, x) => small_integer(x),
        Expr::Unary(UnaryOperator::Negative, x) => matches!(&**x, Expr::Literal(Literal::Numeric(n)) if matches!(n.parse::<i64>(), Ok(0..=1))),
        _ => false,
    }
}

/// SQLite's `whereSortingCost` for `nrow` rows (LogEst) of a result of up
/// to 30 columns, none of them already in order.
fn sorting_cost(nrow: i32, distinct: bool) -> i32 {
    // (The sort's cost grows with the result's width: LogEst of 2 for
    // up to 30 columns.)
    let cost = nrow + 10;
    // A DISTINCT's sort keeps about half the rows.
    let kept = if distinct && nrow > 10 { nrow - 10 } else { nrow };
    cost + est_log(kept)
}

/// SQLite's N-best path search: the loops added one at a time to the
/// cheapest paths so far. `sort`: the cost of sorting, paid by paths
/// whose loops do not give the order (`None`: no order wanted).
fn solve(facts: &JoinFacts, sort: Option<i32>, memo: &mut crate::util::fast_hash::FastMap<(usize, u64), Vec<Cand>>) -> Option<Path> {
    let n = facts.loops.len();
    let mx = max_choices(n);
    // (Without an order wanted, every path is alike in that respect.)
    let start = if facts.ordering { Ordered::Unknown } else { Ordered::No };
    let mut from = vec![Path { mask: 0, nrow: 0, cost: 0, unsorted: 0, ordered: start, order: Vec::new() }];
    for _ in 0..n {
        let mut to: Vec<Path> = Vec::with_capacity(mx);
        // The costliest path kept, once `mx` are.
        let (mut mx_i, mut mx_cost, mut mx_unsorted) = (0usize, i32::MAX, i32::MAX);
        for p in &from {
            for (i, lf) in facts.loops.iter().enumerate() {
                if p.mask & lf.me != 0 {
                    continue;
                }
                let cands = memo.entry((i, p.mask)).or_insert_with(|| loop_cands(facts, i, p.mask)).clone();
                for c in cands {
                    // (An automatic index is not worth building for
                    // about one pass.)
                    if c.auto && p.nrow < 3 {
                        continue;
                    }
                    let mut unsorted = c.run + p.nrow;
                    if c.setup > 0 {
                        unsorted = log_est_add(c.setup, unsorted);
                    }
                    unsorted = log_est_add(unsorted, p.unsorted);
                    let nrow = p.nrow + c.out;
                    let ordered = match p.ordered {
                        Ordered::Unknown if c.one_row => Ordered::Unknown,
                        Ordered::Unknown if c.ordered => Ordered::Yes,
                        Ordered::Unknown => Ordered::No,
                        o => o,
                    };
                    let cost = match sort {
                        // (3 more: rows in order without a sort are
                        // preferred.)
                        Some(s) if ordered == Ordered::No => log_est_add(unsorted, s) + 3,
                        _ => {
                            let c = unsorted;
                            unsorted -= 2;
                            c
                        }
                    };
                    let mask = p.mask | lf.me;
                    let next = || {
                        let mut order = p.order.clone();
                        order.push(i);
                        Path { mask, nrow, cost, unsorted, ordered, order }
                    };
                    // (Paths whose order is still open are kept apart.)
                    if let Some(j) = to.iter().position(|t| t.mask == mask && (t.ordered == Ordered::Unknown) == (ordered == Ordered::Unknown)) {
                        let t = &to[j];
                        if (t.cost, t.nrow, t.unsorted) <= (cost, nrow, unsorted) {
                            continue;
                        }
                        to[j] = next();
                    } else if to.len() >= mx {
                        if cost > mx_cost || (cost == mx_cost && unsorted >= mx_unsorted) {
                            continue;
                        }
                        to[mx_i] = next();
                    } else {
                        to.push(next());
                    }
                    if to.len() >= mx {
                        (mx_i, mx_cost, mx_unsorted) = (0, to[0].cost, to[0].unsorted);
                        for (j, t) in to.iter().enumerate().skip(1) {
                            if t.cost > mx_cost || (t.cost == mx_cost && t.unsorted > mx_unsorted) {
                                (mx_i, mx_cost, mx_unsorted) = (j, t.cost, t.unsorted);
                            }
                        }
                    }
                }
            }
        }
        if to.is_empty() {
            return None;
        }
        from = to;
    }
    // The cheapest; the first found on ties.
    let mut best = 0;
    for (j, p) in from.iter().enumerate() {
        if p.cost < from[best].cost {
            best = j;
        }
    }
    from.into_iter().nth(best)
}

/// The loops SQLite would consider for item `i` with the items in
/// `before` placed outside it.
fn loop_cands(facts: &JoinFacts, i: usize, before: u64) -> Vec<Cand> {
    let lf = &facts.loops[i];
    let plain = |run: i32, out: i32| Cand { run, setup: 0, out, auto: false, one_row: false, ordered: false };
    if let Some(v) = &lf.vtab {
        return v.estimate_log(before).map(|(run, out)| plain(run, out)).into_iter().collect();
    }
    // (A loop's output is lowered by the terms on the tables its lookup
    // reads, not by every term the tables placed before allow.)
    let adjust = |out: i32, used: &[usize], prereq: u64| output_adjust(facts, lf, prereq, out, used);
    let mut out = Vec::new();
    // The full scan (in rowid order).
    out.push(Cand { ordered: lf.rowid_order, ..plain(lf.rows + SCAN_FACTOR, adjust(lf.rows, &[], 0)) });
    if !lf.has_table {
        return out;
    }
    let rowid_rows = [lf.rows, 0];
    let rowid_probe = Probe { rows: &rowid_rows, ..ROWID_PROBE };
    if lf.rowid {
        if let Some(c) = index_cand(lf, before, &rowid_probe, &adjust) {
            out.push(Cand { ordered: c.one_row || lf.rowid_order, ..c });
        }
    }
    for idx in &lf.indexes {
        if let Some(c) = index_cand(lf, before, &idx.probe(), &adjust) {
            out.push(c);
        }
        // A full scan of the index: for its order, or narrower than the
        // table and holding every column read.
        let served = idx.served.first().copied().unwrap_or(false);
        if served || idx.partial || !lf.rowid || (idx.covering && idx.width_cost < 15 && !idx.unordered) {
            let rows = idx.rows[0];
            let mut run = rows + 1 + idx.width_cost;
            if !idx.covering {
                run = log_est_add(run, rows + SCAN_FACTOR);
            }
            out.push(Cand { ordered: served, ..plain(run, adjust(rows, &[], 0)) });
        }
    }
    // An automatic index on a column compared with `=`.
    if lf.cands.iter().any(|c| c.1 == LookupOp::Eq && c.2 & !before == 0 && c.0.is_some_and(|k| lf.auto_cols.contains(&k))) {
        let log_size = est_log(lf.rows);
        out.push(Cand {
            run: log_est_add(log_size, AUTO_INDEX_ROWS),
            setup: log_size + lf.rows + AUTO_INDEX_BUILD,
            out: AUTO_INDEX_ROWS,
            auto: true,
            one_row: false,
            ordered: false,
        });
    }
    // An OR term whose every branch has a lookup: the union of them
    // (see `multi_or.rs`).
    for branches in &lf.ors {
        let mut union: Option<(i32, i32)> = None;
        for b in branches {
            let sub = LoopFacts {
                me: lf.me,
                has_table: true,
                rows: lf.rows,
                rowid: lf.rowid,
                rowid_order: false,
                cands: b.cands.clone(),
                ins: b.ins.clone(),
                indexes: Vec::new(),
                auto_cols: Vec::new(),
                vtab: None,
                ors: Vec::new(),
            };
            let none = |o: i32, _: &[usize], _: u64| o;
            let mut best: Option<Cand> = None;
            let mut consider = |c: Option<Cand>| {
                if let Some(c) = c {
                    if best.is_none_or(|b| (c.run, c.out) < (b.run, b.out)) {
                        best = Some(c);
                    }
                }
            };
            if lf.rowid {
                consider(index_cand(&sub, before, &rowid_probe, &none));
            }
            for idx in &lf.indexes {
                consider(index_cand(&sub, before, &Probe { served: &[], ..idx.probe() }, &none));
            }
            let Some(best) = best else {
                union = None;
                break;
            };
            union = Some(match union {
                None => (best.run, best.out),
                Some((r, o)) => (log_est_add(r, best.run), log_est_add(o, best.out)),
            });
        }
        if let Some((run, rows)) = union {
            out.push(plain(run + 1, rows));
        }
    }
    out
}

/// SQLite's `whereLoopOutputAdjust`: the output of a loop lowered by each
/// term it checks but does not use for its lookup (the terms at `used`).
fn output_adjust(facts: &JoinFacts, lf: &LoopFacts, prereq: u64, mut out: i32, used: &[usize]) -> i32 {
    let me = lf.me;
    let mut reduce = 0;
    for (k, t) in facts.terms.iter().enumerate() {
        if t.deps == u64::MAX || t.deps & me == 0 || t.deps & !(prereq | me) != 0 || used.contains(&k) {
            continue;
        }
        match t.truth {
            Some(p) => out += p,
            None => {
                out -= 1;
                reduce = reduce.max(t.eq_cap);
            }
        }
    }
    out.min(lf.rows - reduce)
}

/// The rows a range keeps of `rows` (LogEst): a quarter per bound, and a
/// quarter more with both.
fn range_rows(rows: i32, low: bool, high: bool) -> i32 {
    let bounds = low as i32 + high as i32;
    let mut new = rows - 20 * bounds;
    if low && high {
        new -= 20;
    }
    new.max(10).min(rows - bounds)
}

/// What an index lookup is costed from.
struct Probe<'x> {
    /// The lookup key of each index column (for the rowid, `[None]`).
    keys: &'x [Option<usize>],
    /// See [`IndexFacts::rows`] (for the rowid: the table's rows, 0).
    rows: &'x [i32],
    /// See [`IndexFacts::unordered`].
    unordered: bool,
    /// The rowid itself.
    ipk: bool,
    unique: bool,
    width_cost: i32,
    covering: bool,
    /// See [`IndexFacts::served`].
    served: &'x [bool],
}

/// The rowid as an index.
const ROWID_PROBE: Probe<'static> =
    Probe { keys: &[None], rows: &[TABLE_ROWS, 0], unordered: false, ipk: true, unique: true, width_cost: 0, covering: true, served: &[] };

impl IndexFacts {
    fn probe(&self) -> Probe<'_> {
        Probe {
            keys: &self.keys,
            rows: &self.rows,
            unordered: self.unordered,
            ipk: false,
            unique: self.unique,
            width_cost: self.width_cost,
            covering: self.covering,
            served: &self.served,
        }
    }
}

/// The lookup of one index with the longest prefix of `=`/IN terms
/// `before` allows and a range on the next key; `None` when no term
/// drives it.
fn index_cand(lf: &LoopFacts, before: u64, p: &Probe<'_>, adjust: &dyn Fn(i32, &[usize], u64) -> i32) -> Option<Cand> {
    let Probe { keys, rows: est, unordered, ipk, unique, width_cost, covering, served } = *p;
    let avail = |d: u64| d & !before == 0;
    let key_ok = |k: &Option<usize>| ipk || k.is_some();
    let mut used = Vec::new();
    // (The items the lookup's values read.)
    let mut prereq = 0u64;
    let mut n_in = 0;
    let mut eq = 0;
    for key in keys {
        if !key_ok(key) {
            break;
        }
        if let Some(c) = lf.cands.iter().find(|c| c.0 == *key && c.1 == LookupOp::Eq && avail(c.2)) {
            used.push(c.3);
            prereq |= c.2;
        } else if let Some(c) = lf.ins.iter().find(|c| c.0 == *key && avail(c.2)) {
            used.push(c.3);
            prereq |= c.2;
            n_in += log_est(c.1 as u64);
        } else {
            break;
        }
        eq += 1;
    }
    let (mut low, mut high) = (false, false);
    if let Some(key) = keys.get(eq).filter(|k| key_ok(k) && !unordered) {
        if let Some(c) = lf.cands.iter().find(|c| c.0 == *key && matches!(c.1, LookupOp::Gt | LookupOp::Ge) && avail(c.2)) {
            used.push(c.3);
            prereq |= c.2;
            low = true;
        }
        if let Some(c) = lf.cands.iter().find(|c| c.0 == *key && matches!(c.1, LookupOp::Lt | LookupOp::Le) && avail(c.2)) {
            used.push(c.3);
            prereq |= c.2;
            high = true;
        }
    }
    if eq == 0 && !low && !high {
        return None;
    }
    let size = est[0];
    let one_row = unique && eq == keys.len() && n_in == 0;
    let mut rows = if eq == 0 {
        size
    } else if unique && eq == keys.len() {
        0
    } else {
        est.get(eq).copied().unwrap_or(INDEX_EQ_ROWS_LATER)
    };
    if low || high {
        rows = range_rows(rows, low, high);
    }
    // The seek, the entries read, and (unless the index holds every
    // column read) a table lookup per entry.
    let read = if ipk { rows + SCAN_FACTOR } else { rows + 1 + width_cost };
    let mut run = log_est_add(est_log(size), read);
    if !ipk && !covering {
        run = log_est_add(run, rows + SCAN_FACTOR);
    }
    run += n_in;
    rows += n_in;
    let ordered = one_row || served.get(eq).copied().unwrap_or(false);
    Some(Cand { run, setup: 0, out: adjust(rows, &used, prereq), auto: false, one_row, ordered })
}
