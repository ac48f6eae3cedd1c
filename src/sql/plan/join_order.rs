//! Join order for inner joins: the nested-loop order with the lowest
//! estimated cost.
//!
//! Without statistics every table is assumed to hold [`TABLE_ROWS`] rows
//! (SQLite's own default guess is of the same order). For each loop, given
//! the tables already placed outside it, the access path decides how much
//! one pass of the loop costs and how many rows it yields: a rowid or
//! UNIQUE-index equality finds one row, other index equalities a few, a
//! range a quarter of the table, a scan all of it; each further WHERE term
//! that can be checked there keeps a quarter of the rows. A plan costs the
//! sum, over its loops, of (rows produced by the loops outside) x (cost of
//! one pass).
//!
//! With an ORDER BY or GROUP BY on one table that some scan of it can
//! deliver, orders not reading that table outermost also pay for sorting
//! their output (rows x log2 rows).
//!
//! A virtual table's loop is what its module's xBestIndex estimates: the
//! cheapest of the plans asked as SQLite asks them (`VtabPlans`) that the
//! items placed outside allow (none allowed costs infinitely much, so a
//! table-valued function comes after the tables its arguments read).
//!
//! Invariants: every order of up to [`EXHAUSTIVE_MAX`] tables is costed,
//! FROM order first, and another order is only taken when it is strictly
//! cheaper, so a plan is never estimated worse than nested loops in FROM
//! order and ties keep the FROM order (as SQLite does for equal costs).
//! Larger joins are ordered greedily, one table at a time.

use crate::sql::codegen::Compiler;
use crate::sql::model::from::FromItem;
use crate::sql::plan::order::{index_serves, rowid_serves, OrderGoal};
use crate::sql::plan::terms::LookupOp;
use sqlite3_parser::ast::Expr;

/// Rows assumed in a table without statistics.
const TABLE_ROWS: f64 = 1_000_000.0;
/// Cost of one B-tree descent.
const SEEK_COST: f64 = 20.0;
/// Rows found by an equality on a non-unique index prefix.
const INDEX_EQ_ROWS: f64 = 10.0;
/// Cost of each row found through an index (its entry, then the table
/// row, usually on pages the seek already brought in).
const INDEX_ROW_COST: f64 = 4.0;
/// SQLite's full-scan cost per row read (`whereLoopAddBtree`: 3.0 x N),
/// used where module costs are compared with scans.
const FULL_SCAN_PENALTY: f64 = 3.0;
/// Joins up to this many tables are costed in every order.
const EXHAUSTIVE_MAX: usize = 7;

/// Estimated (cost of one pass, rows yielded) of a loop.
type Estimate = (f64, f64);

impl<'b> Compiler<'_> {
    /// The cheapest nested-loop order of `items` for `terms`.
    pub(crate) fn join_order<'a>(
        &mut self,
        items: &[FromItem<'a, 'b>],
        terms: &[&'a Expr<'b>],
        goal: Option<&OrderGoal>,
        uses: Option<&crate::sql::plan::goal::ColumnUses>,
    ) -> Vec<usize> {
        let n = items.len();
        // The item whose order an ORDER BY / GROUP BY wants, when reading
        // it outermost can give that order: other orders pay for a sort.
        let ordered_item = goal.filter(|g| self.goal_servable(items, g)).map(|g| g.item);
        let facts = self.join_facts(items, terms, goal, uses);
        // The loops take the plans asked here.
        self.vtab_plans.extend(facts.loops.iter().filter_map(|l| l.vtab.clone()));
        if n > EXHAUSTIVE_MAX {
            return greedy_order(&facts);
        }
        let mut memo: crate::util::fast_hash::FastMap<(usize, u64), Estimate> = Default::default();
        let mut perm: Vec<usize> = (0..n).collect();
        let mut best: Option<(f64, Vec<usize>)> = None;
        loop {
            let mut c = order_cost(&facts, &perm, &mut memo);
            if let Some(oi) = ordered_item {
                if items[perm[0]].item != oi {
                    c += sort_cost(&facts, &perm, &mut memo);
                }
            }
            if best.as_ref().is_none_or(|(bc, _)| c < *bc * (1.0 - 1e-9)) {
                best = Some((c, perm.clone()));
            }
            if !next_permutation(&mut perm) {
                break;
            }
        }
        best.map(|b| b.1).unwrap_or_else(|| (0..n).collect())
    }

    /// Whether some full scan of the goal's table gives its order.
    fn goal_servable(&mut self, items: &[FromItem<'_, 'b>], g: &OrderGoal) -> bool {
        let Some(table) = items.iter().find(|i| i.item == g.item).and_then(|i| i.table.clone()) else { return false };
        // (A WITHOUT ROWID table is read in its key order, and its
        // indexes' entries end with the key.)
        if let Some(pk) = crate::sql::schema::Schema::without_rowid_pk_index(&table) {
            return index_serves(g, &table, &pk, 0).yes()
                || self.schema.indexes_of(&table).iter().any(|i| i.where_sql.is_none() && index_serves(g, &table, &table.index_with_key_suffix(i), 0).yes());
        }
        rowid_serves(g).yes() || self.schema.indexes_of(&table).iter().any(|i| i.where_sql.is_none() && index_serves(g, &table, i, 0).yes())
    }

    /// Resolve the names of every term and list the usable indexes of
    /// every item, once: each candidate is taken with all the other items
    /// placed and keeps the items its value reads, so the loop estimate
    /// for any set of items placed before is a filter on bit masks.
    fn join_facts<'a>(
        &mut self,
        items: &[FromItem<'a, 'b>],
        terms: &[&'a Expr<'b>],
        goal: Option<&OrderGoal>,
        uses: Option<&crate::sql::plan::goal::ColumnUses>,
    ) -> JoinFacts {
        let all = items.iter().fold(0u64, |m, it| m | 1 << it.item.min(63));
        // Beside a virtual table, whose module states its costs on
        // SQLite's scale, a full scan costs what SQLite charges for one:
        // three times the rows it reads (`whereLoopAddBtree`'s penalty
        // against scans), so the module's plans and the scans compare as
        // in SQLite's planner.
        let scan_cost = if items.iter().any(|it| it.vtab.is_some()) { FULL_SCAN_PENALTY * TABLE_ROWS } else { TABLE_ROWS };
        let term_deps = terms.iter().map(|t| self.expr_deps(t)).collect();
        let mut loops = Vec::with_capacity(items.len());
        for it in items {
            let me = 1u64 << it.item.min(63);
            let others = all & !me;
            let cands = self.lookup_candidates_deps(it, others, terms).into_iter().map(|(c, op, _, d)| (c, op, d)).collect();
            let ins = self.in_candidates_deps(it, others, terms).into_iter().map(|(c, list, d)| (c, list.len(), d)).collect();
            let mut indexes = Vec::new();
            if let Some(table) = &it.table {
                // (INDEXED BY a partial index the terms do not imply is
                // reported when the loop is built.)
                let usable = self.loop_indexes(it, table, terms).unwrap_or_default();
                for idx in &usable {
                    let keys = idx.columns.iter().map(|ic| self.index_lookup_key(table, ic)).collect();
                    let first_column = idx.columns.first().and_then(|f| f.column);
                    indexes.push(IndexFacts { unique: idx.unique, keys, first_column });
                }
            }
            // A virtual table is costed by its module: the plans SQLite's
            // calls give (see `VtabPlans`). (An error is raised again
            // when the loop asks.)
            let vtab = match &it.vtab {
                Some(v) => match crate::sql::plan::vtab::constraints_of(self, it, 0, terms) {
                    Ok(cs) => {
                        let g = crate::sql::plan::vtab::goal_for(it, goal);
                        let col_used = self.vtab_col_used.get(&it.cursor).copied().unwrap_or_else(|| crate::sql::plan::vtab::col_used(it, uses));
                        let mut plans = crate::sql::plan::vtab::VtabPlans::ask(it.cursor, self.vtab_asked(&v.inst), &cs, g, col_used).ok();
                        // (The OR terms' branches next, as SQLite's
                        // `whereLoopAddOr` after `whereLoopAddVirtual`.)
                        if let Some(p) = &mut plans {
                            if let Ok(ors) = crate::sql::plan::vtab_or::or_terms_of(self, it, 0, terms) {
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
                for t in terms {
                    let mut branches = Vec::new();
                    crate::sql::plan::multi_or::disjuncts(t, &mut branches);
                    if branches.len() < 2 || self.expr_deps(t) & me == 0 || self.or_in_list(it, t).is_some() {
                        continue;
                    }
                    let mut facts = Vec::new();
                    for b in branches {
                        let mut sub = Vec::new();
                        crate::sql::model::expr_shape::conjuncts(b, &mut sub);
                        let cands = self.lookup_candidates_deps(it, others, &sub).into_iter().map(|(c, op, _, d)| (c, op, d)).collect();
                        let ins = self.in_candidates_deps(it, others, &sub).into_iter().map(|(c, list, d)| (c, list.len(), d)).collect();
                        facts.push(BranchFacts { cands, ins });
                    }
                    ors.push(facts);
                }
            }
            loops.push(LoopFacts { me, has_table: it.table.is_some(), scan_cost, cands, ins, indexes, vtab, ors });
        }
        JoinFacts { term_deps, loops }
    }
}

/// What costing the loops of one join needs, resolved once.
struct JoinFacts {
    /// Items each WHERE term reads (`u64::MAX`: evaluated late).
    term_deps: Vec<u64>,
    /// Per FROM item, in `items` order.
    loops: Vec<LoopFacts>,
}

/// One FROM item's lookup possibilities.
struct LoopFacts {
    /// The item's bit in the masks.
    me: u64,
    /// A real table (indexes and ranges apply).
    has_table: bool,
    /// Cost of one full scan of it.
    scan_cost: f64,
    /// Lookup terms usable once every other item is placed: (column or
    /// indexed expression key, operator, items the value side reads).
    cands: Vec<(Option<usize>, LookupOp, u64)>,
    /// `column IN (list)` terms: (column, list length, items the values read).
    ins: Vec<(Option<usize>, usize, u64)>,
    /// Indexes without WHERE the hints allow, in schema order.
    indexes: Vec<IndexFacts>,
    /// A virtual table: its module's estimates.
    vtab: Option<crate::sql::plan::vtab::VtabPlans>,
    /// OR terms reading this item: the lookup terms of each branch.
    ors: Vec<Vec<BranchFacts>>,
}

/// The lookup terms of one branch of an OR term (as in `LoopFacts`).
struct BranchFacts {
    cands: Vec<(Option<usize>, LookupOp, u64)>,
    ins: Vec<(Option<usize>, usize, u64)>,
}

/// An index as the cost model sees it.
struct IndexFacts {
    unique: bool,
    /// The lookup key of each index column.
    keys: Vec<Option<usize>>,
    /// The table column of the first index column (`None` for an expression).
    first_column: Option<usize>,
}

/// Estimated cost of sorting the rows the loops in `order` yield.
fn sort_cost(facts: &JoinFacts, order: &[usize], memo: &mut crate::util::fast_hash::FastMap<(usize, u64), Estimate>) -> f64 {
    let mut before = 0u64;
    let mut rows = 1.0f64;
    for &i in order {
        let (_, out) = *memo.entry((i, before)).or_insert_with(|| loop_estimate(facts, i, before));
        rows = (rows * out).max(1.0);
        before |= facts.loops[i].me;
    }
    rows * rows.log2().max(1.0)
}

fn order_cost(facts: &JoinFacts, order: &[usize], memo: &mut crate::util::fast_hash::FastMap<(usize, u64), Estimate>) -> f64 {
    let mut before = 0u64;
    let mut rows = 1.0f64;
    let mut cost = 0.0f64;
    for &i in order {
        let (pass, out) = *memo.entry((i, before)).or_insert_with(|| loop_estimate(facts, i, before));
        cost += rows * pass;
        rows = (rows * out).max(1.0);
        before |= facts.loops[i].me;
    }
    cost
}

/// Greedy order for large joins: repeatedly the loop yielding the
/// fewest rows for the least cost (FROM order breaks ties).
fn greedy_order(facts: &JoinFacts) -> Vec<usize> {
    let n = facts.loops.len();
    let mut order = Vec::with_capacity(n);
    let mut before = 0u64;
    let mut left: Vec<usize> = (0..n).collect();
    while !left.is_empty() {
        let mut best = (0usize, f64::INFINITY);
        for (k, &i) in left.iter().enumerate() {
            let (pass, out) = loop_estimate(facts, i, before);
            let score = pass + out;
            if score < best.1 {
                best = (k, score);
            }
        }
        let i = left.remove(best.0);
        before |= facts.loops[i].me;
        order.push(i);
    }
    order
}

/// Cost of one pass over loop `i` and rows it yields, with the items in
/// `before` already placed.
fn loop_estimate(facts: &JoinFacts, i: usize, before: u64) -> Estimate {
    let lf = &facts.loops[i];
    if let Some(v) = &lf.vtab {
        return v.estimate(before);
    }
    let me = lf.me;
    let filters = facts.term_deps.iter().filter(|&&d| d != u64::MAX && d & me != 0 && d & !(before | me) == 0).count() as i32;
    let (mut cost, mut rows, mut used) = access_estimate(lf.has_table, lf.scan_cost, &lf.indexes, &lf.cands, &lf.ins, before);
    // An OR term whose every branch has a lookup: the union of them
    // (see `multi_or.rs`).
    for branches in &lf.ors {
        let mut union = (0.0, 0.0);
        for b in branches {
            let (c, r, u) = access_estimate(lf.has_table, lf.scan_cost, &lf.indexes, &b.cands, &b.ins, before);
            if u == 0 {
                union = (f64::INFINITY, f64::INFINITY);
                break;
            }
            union = (union.0 + c, union.1 + r);
        }
        if union.0 + union.1 < cost + rows {
            (cost, rows, used) = (union.0, union.1, 1);
        }
    }
    let rest = (filters - used).max(0);
    (cost, (rows / 4f64.powi(rest)).max(1.0))
}

/// The best single access path of a loop (cost, rows, terms it uses)
/// with the lookup terms `cands` and `ins` whose values `before` allows.
fn access_estimate(
    has_table: bool,
    scan_cost: f64,
    indexes: &[IndexFacts],
    cands: &[(Option<usize>, LookupOp, u64)],
    ins: &[(Option<usize>, usize, u64)],
    before: u64,
) -> (f64, f64, i32) {
    let cands: Vec<(Option<usize>, LookupOp)> = cands.iter().filter(|c| c.2 & !before == 0).map(|c| (c.0, c.1)).collect();
    let ins: Vec<(Option<usize>, usize)> = ins.iter().filter(|c| c.2 & !before == 0).map(|c| (c.0, c.1)).collect();
    // (cost, rows, terms used by the lookup itself)
    let mut access = (scan_cost, TABLE_ROWS, 0i32);
    let mut consider = |cost: f64, rows: f64, used: i32| {
        if cost + rows < access.0 + access.1 {
            access = (cost, rows, used);
        }
    };
    if cands.iter().any(|(c, op)| c.is_none() && *op == LookupOp::Eq) {
        consider(SEEK_COST, 1.0, 1);
    }
    if let Some((_, len)) = ins.iter().find(|(c, _)| c.is_none()) {
        let k = *len as f64;
        consider(k * SEEK_COST, k, 1);
    }
    if has_table {
        let ranged = |c: usize| cands.iter().filter(|(x, op)| *x == Some(c) && *op != LookupOp::Eq).count().min(2) as i32;
        for idx in indexes {
            let mut eq = 0usize;
            for key in &idx.keys {
                if key.is_some() && cands.iter().any(|(c, op)| c == key && *op == LookupOp::Eq) {
                    eq += 1;
                } else {
                    break;
                }
            }
            let range = idx.keys.get(eq).copied().flatten().map_or(0, ranged);
            if eq == 0 && range == 0 {
                let first = idx.first_column;
                if first.is_some() && ins.iter().any(|(c, _)| *c == first) {
                    let k = ins.iter().find(|(c, _)| *c == first).map_or(1.0, |(_, len)| *len as f64);
                    let rows = k * INDEX_EQ_ROWS;
                    consider(k * SEEK_COST + rows * INDEX_ROW_COST, rows, 1);
                }
                continue;
            }
            let mut rows = if idx.unique && eq == idx.keys.len() {
                1.0
            } else if eq > 0 {
                INDEX_EQ_ROWS
            } else {
                TABLE_ROWS
            };
            rows /= 4f64.powi(range);
            let rows = rows.max(1.0);
            consider(SEEK_COST + rows * INDEX_ROW_COST, rows, eq as i32 + range);
        }
    }
    access
}

/// Advance `p` to the next permutation in lexicographic order; `false`
/// after the last.
fn next_permutation(p: &mut [usize]) -> bool {
    let n = p.len();
    if n < 2 {
        return false;
    }
    let mut i = n - 1;
    while i > 0 && p[i - 1] >= p[i] {
        i -= 1;
    }
    if i == 0 {
        return false;
    }
    let mut j = n - 1;
    while p[j] <= p[i - 1] {
        j -= 1;
    }
    p.swap(i - 1, j);
    p[i..].reverse();
    true
}
