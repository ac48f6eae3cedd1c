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
//! Invariants: every order of up to [`EXHAUSTIVE_MAX`] tables is costed,
//! FROM order first, and another order is only taken when it is strictly
//! cheaper, so a plan is never estimated worse than nested loops in FROM
//! order and ties keep the FROM order (as SQLite does for equal costs).
//! Larger joins are ordered greedily, one table at a time.

use crate::sql::codegen::from::FromItem;
use crate::sql::codegen::Compiler;
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
/// Joins up to this many tables are costed in every order.
const EXHAUSTIVE_MAX: usize = 7;

/// Estimated (cost of one pass, rows yielded) of a loop.
type Estimate = (f64, f64);

impl<'b> Compiler<'_> {
    /// The cheapest nested-loop order of `items` for `terms`.
    pub(crate) fn join_order<'a>(&mut self, items: &[FromItem<'a, 'b>], terms: &[&'a Expr<'b>], goal: Option<&OrderGoal>) -> Vec<usize> {
        let n = items.len();
        // The item whose order an ORDER BY / GROUP BY wants, when reading
        // it outermost can give that order: other orders pay for a sort.
        let ordered_item = goal.filter(|g| self.goal_servable(items, g)).map(|g| g.item);
        if n > EXHAUSTIVE_MAX {
            return self.greedy_order(items, terms);
        }
        let mut memo: std::collections::HashMap<(usize, u64), Estimate> = std::collections::HashMap::new();
        let mut perm: Vec<usize> = (0..n).collect();
        let mut best: Option<(f64, Vec<usize>)> = None;
        loop {
            let mut c = self.order_cost(items, terms, &perm, &mut memo);
            if let Some(oi) = ordered_item {
                if items[perm[0]].item != oi {
                    c += self.sort_cost(items, terms, &perm, &mut memo);
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
        if table.without_rowid.is_some() {
            return false;
        }
        rowid_serves(g).yes() || self.schema.indexes_of(&table).iter().any(|i| i.where_sql.is_none() && index_serves(g, &table, i, 0).yes())
    }

    /// Estimated cost of sorting the rows the loops in `order` yield.
    fn sort_cost<'a>(&mut self, items: &[FromItem<'a, 'b>], terms: &[&'a Expr<'b>], order: &[usize], memo: &mut std::collections::HashMap<(usize, u64), Estimate>) -> f64 {
        let mut before = 0u64;
        let mut rows = 1.0f64;
        for &i in order {
            let key = (i, before);
            let (_, out) = match memo.get(&key) {
                Some(e) => *e,
                None => {
                    let e = self.loop_estimate(&items[i], before, terms);
                    memo.insert(key, e);
                    e
                }
            };
            rows = (rows * out).max(1.0);
            before |= 1 << items[i].item.min(63);
        }
        rows * rows.log2().max(1.0)
    }

    fn order_cost<'a>(&mut self, items: &[FromItem<'a, 'b>], terms: &[&'a Expr<'b>], order: &[usize], memo: &mut std::collections::HashMap<(usize, u64), Estimate>) -> f64 {
        let mut before = 0u64;
        let mut rows = 1.0f64;
        let mut cost = 0.0f64;
        for &i in order {
            let key = (i, before);
            let (pass, out) = match memo.get(&key) {
                Some(e) => *e,
                None => {
                    let e = self.loop_estimate(&items[i], before, terms);
                    memo.insert(key, e);
                    e
                }
            };
            cost += rows * pass;
            rows = (rows * out).max(1.0);
            before |= 1 << items[i].item.min(63);
        }
        cost
    }

    /// Greedy order for large joins: repeatedly the loop yielding the
    /// fewest rows for the least cost (FROM order breaks ties).
    fn greedy_order<'a>(&mut self, items: &[FromItem<'a, 'b>], terms: &[&'a Expr<'b>]) -> Vec<usize> {
        let mut order = Vec::with_capacity(items.len());
        let mut before = 0u64;
        let mut left: Vec<usize> = (0..items.len()).collect();
        while !left.is_empty() {
            let mut best = (0usize, f64::INFINITY);
            for (k, &i) in left.iter().enumerate() {
                let (pass, out) = self.loop_estimate(&items[i], before, terms);
                let score = pass + out;
                if score < best.1 {
                    best = (k, score);
                }
            }
            let i = left.remove(best.0);
            before |= 1 << items[i].item.min(63);
            order.push(i);
        }
        order
    }

    /// Cost of one pass over `it` and rows it yields, with the tables in
    /// `before` already placed.
    fn loop_estimate<'a>(&mut self, it: &FromItem<'a, 'b>, before: u64, terms: &[&'a Expr<'b>]) -> Estimate {
        let me = 1u64 << it.item.min(63);
        let mut filters = 0i32;
        for t in terms {
            let d = self.expr_deps(t);
            if d != u64::MAX && d & me != 0 && d & !(before | me) == 0 {
                filters += 1;
            }
        }
        let cands = self.lookup_candidates(it, before, terms);
        let ins = self.in_candidates(it, before, terms);
        // (cost, rows, terms used by the lookup itself)
        let mut access = (TABLE_ROWS, TABLE_ROWS, 0i32);
        let mut consider = |cost: f64, rows: f64, used: i32| {
            if cost + rows < access.0 + access.1 {
                access = (cost, rows, used);
            }
        };
        if cands.iter().any(|(c, op, _)| c.is_none() && *op == LookupOp::Eq) {
            consider(SEEK_COST, 1.0, 1);
        }
        if let Some((_, list)) = ins.iter().find(|(c, _)| c.is_none()) {
            let k = list.len() as f64;
            consider(k * SEEK_COST, k, 1);
        }
        if let Some(table) = &it.table {
            let ranged = |c: usize| cands.iter().filter(|(x, op, _)| *x == Some(c) && *op != LookupOp::Eq).count().min(2) as i32;
            let indexes: Vec<crate::sql::schema::Index> = self.schema.indexes_of(&table).into_iter().filter(|i| i.where_sql.is_none())
                .filter(|i| match &it.index_hint {
                    None => true,
                    Some(None) => false,
                    Some(Some(n)) => i.name.eq_ignore_ascii_case(n),
                })
                .cloned()
                .collect();
            for idx in &indexes {
                let keys: Vec<Option<usize>> = idx.columns.iter().map(|ic| self.index_lookup_key(table, ic)).collect();
                let mut eq = 0usize;
                for key in &keys {
                    if key.is_some() && cands.iter().any(|(c, op, _)| c == key && *op == LookupOp::Eq) {
                        eq += 1;
                    } else {
                        break;
                    }
                }
                let range = keys.get(eq).copied().flatten().map_or(0, ranged);
                if eq == 0 && range == 0 {
                    let first = idx.columns.first().and_then(|f| f.column);
                    if first.is_some() && ins.iter().any(|(c, _)| *c == first) {
                        let k = ins.iter().find(|(c, _)| *c == first).map_or(1.0, |(_, l)| l.len() as f64);
                        let rows = k * INDEX_EQ_ROWS;
                        consider(k * SEEK_COST + rows * INDEX_ROW_COST, rows, 1);
                    }
                    continue;
                }
                let mut rows = if idx.unique && eq == idx.columns.len() { 1.0 } else if eq > 0 { INDEX_EQ_ROWS } else { TABLE_ROWS };
                rows /= 4f64.powi(range);
                let rows = rows.max(1.0);
                consider(SEEK_COST + rows * INDEX_ROW_COST, rows, eq as i32 + range);
            }
        }
        let (cost, rows, used) = access;
        let rest = (filters - used).max(0);
        (cost, (rows / 4f64.powi(rest)).max(1.0))
    }
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
