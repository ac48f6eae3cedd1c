//! OR terms of a virtual table's loop read as the union of the module's
//! plans for their branches (SQLite's MULTI-INDEX OR on a virtual table):
//! which OR terms qualify and what each branch offers ([`or_terms_of`]),
//! the module asked about each branch as SQLite's `whereLoopAddOr` asks
//! it, alone ([`ask_or_branches`]) or in a join
//! ([`ask_or_branches_joined`], SQLite's `WhereOrSet` of up to three
//! (prerequisites, cost) pairs), and the comparison of a union with the
//! table's own plan ([`union_is_cheaper`]).
//!
//! Invariant: a union is costed only when every branch has a plan that
//! uses a constraint (a branch read by a full scan makes no union); its
//! cost is the LogEst sum of its branches' plus SQLite's one-unit
//! penalty, so it never ties with its most expensive branch (checked:
//! vtab_union_cost).

use super::vtab::{choose_plan, column_of, constraints_of, is_column_name, is_fixed, or_branches, strip_collate, Asked, VConstraint, VtabPlans};
use crate::error::{Result, SQLITE_CONSTRAINT};
use crate::sql::model::from::FromItem;
use crate::sql::plan::facts::PlanFacts;
use crate::sql::plan::order::OrderGoal;
use crate::vdbe::vtab::IndexInfo;
use sqlite3_parser::ast::{Expr, Operator};

/// The branches of one OR term that SQLite asks xBestIndex about
/// (`whereLoopAddOr`): for each branch in order, its constraints (a
/// comparison, IN or IS NULL on a column of the table alone; any other
/// branch with everything SQLite derives from its AND terms), `None` for a
/// branch SQLite passes over (its column side names another table).
pub type OrBranches<'a, 'b> = Vec<Option<Vec<VConstraint<'a, 'b>>>>;

/// An indexable OR term of a virtual table's loop: the term as written
/// among the loop's terms and its [`OrBranches`].
pub struct OrTerm<'a, 'b> {
    /// The term (as given, parentheses and all).
    pub term: &'a Expr<'b>,
    /// What each branch offers.
    pub branches: OrBranches<'a, 'b>,
}

/// The OR terms among `terms` whose every branch has a constraint on `it`
/// (SQLite's indexable OR terms), as [`OrTerm`]s.
pub fn or_terms_of<'a, 'b>(c: &mut impl PlanFacts, it: &FromItem<'a, 'b>, before: u64, terms: &[&'a Expr<'b>]) -> Result<Vec<OrTerm<'a, 'b>>> {
    let mut out = Vec::new();
    'term: for written in terms {
        let t = crate::sql::model::expr_shape::strip_parens(written);
        if !matches!(t, Expr::Binary(_, Operator::Or, _)) {
            continue;
        }
        let mut branches = Vec::new();
        or_branches(t, &mut branches);
        let mut per_branch = Vec::new();
        for b in branches {
            let b = crate::sql::model::expr_shape::strip_parens(b);
            // A single comparison: SQLite's term with its left column.
            let single = match b {
                Expr::Binary(l, Operator::Equals | Operator::Less | Operator::LessEquals | Operator::Greater | Operator::GreaterEquals | Operator::Is, r) => {
                    let (l, r) = (strip_collate(l).0, strip_collate(r).0);
                    if column_of(c, it, l).is_some() {
                        Some(true)
                    } else if is_column_name(c, l) {
                        // (Its copy read from the right side makes the OR
                        // indexable; the branch itself is passed over.)
                        if column_of(c, it, r).is_none() || is_fixed(c, r) {
                            continue 'term;
                        }
                        Some(false)
                    } else if column_of(c, it, r).is_some() && !is_fixed(c, r) {
                        Some(true)
                    } else {
                        continue 'term;
                    }
                }
                Expr::InList { lhs, not: false, .. } | Expr::InSelect { lhs, not: false, .. } if column_of(c, it, lhs).is_some() => Some(true),
                Expr::IsNull(e) if column_of(c, it, e).is_some() => Some(true),
                _ => None,
            };
            match single {
                Some(false) => per_branch.push(None),
                Some(true) => {
                    let cons = constraints_of(c, it, before, &[b])?;
                    match cons.into_iter().next() {
                        Some(k) => per_branch.push(Some(vec![k])),
                        None => continue 'term,
                    }
                }
                None => {
                    let mut ands = Vec::new();
                    crate::sql::model::expr_shape::conjuncts(b, &mut ands);
                    let cons = constraints_of(c, it, before, &ands)?;
                    if cons.is_empty() {
                        continue 'term;
                    }
                    per_branch.push(Some(cons));
                }
            }
        }
        out.push(OrTerm { term: written, branches: per_branch });
    }
    Ok(out)
}

/// What one OR term read as a union would cost (SQLite's WHERE_MULTI_OR
/// loop): the sum of its branches' plans as LogEst (`rRun` with SQLite's
/// one-unit penalty, `nOut`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnionCost {
    /// Cost of running every branch.
    pub run: i32,
    /// Rows the branches find together.
    pub rows: i32,
}

/// Ask the module about each branch of `ors` as SQLite's
/// `whereLoopAddOr` does for a table alone, after the table's own calls:
/// the branch's constraints followed by all of `main`, stopping at the
/// first branch for which no plan uses a constraint. Returns, per OR
/// term, the cost of reading it as a union when every branch has a plan
/// using a constraint (`None` otherwise).
pub fn ask_or_branches(
    asked: Asked<'_>,
    ors: &[OrTerm<'_, '_>],
    main: &[VConstraint<'_, '_>],
    goal: Option<&OrderGoal>,
    col_used: u64,
) -> Result<Vec<Option<UnionCost>>> {
    let mut out = Vec::new();
    for or in ors {
        let mut sum: Option<UnionCost> = None;
        let mut whole = true;
        #[cfg(debug_assertions)]
        let mut dearest = i32::MIN;
        for b in &or.branches {
            let Some(own) = b else {
                whole = false;
                continue;
            };
            let mut cands: Vec<VConstraint<'_, '_>> = own.clone();
            cands.extend(main.iter().cloned());
            let used = match choose_plan(asked, &cands, goal, col_used) {
                Ok(info) if uses_one(&info) => {
                    let (run, rows) = plan_log_est(&info);
                    #[cfg(debug_assertions)]
                    {
                        dearest = dearest.max(run);
                    }
                    sum = Some(match sum {
                        None => UnionCost { run, rows },
                        Some(s) => UnionCost { run: log_est_add(s.run, run), rows: log_est_add(s.rows, rows) },
                    });
                    true
                }
                Ok(_) => false,
                Err(e) if e.primary() == SQLITE_CONSTRAINT || e.to_string() == "no query solution" => false,
                Err(e) => return Err(e),
            };
            if !used {
                whole = false;
                break;
            }
        }
        let union = sum.filter(|_| whole).map(|s| UnionCost { run: s.run + 1, rows: s.rows });
        // invariant: vtab_union_cost
        #[cfg(debug_assertions)]
        debug_assert!(union.as_ref().is_none_or(|u| u.run > dearest), "a union costed {union:?}, not above its dearest branch {dearest}");
        out.push(union);
    }
    Ok(out)
}

/// Whether a plan uses a constraint (SQLite keeps only such plans of a
/// branch: a full scan makes no union).
fn uses_one(info: &IndexInfo) -> bool {
    info.usage.iter().any(|u| u.argv_index > 0)
}

/// A union of a virtual table in a join: the OR term (its address among
/// the loop's terms), the FROM items its branches' plans read (to be
/// placed outside) and its cost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VtabUnion {
    /// The OR term's address (as `codegen::query::from::term_address`).
    pub term: usize,
    /// Items the branches' plans need placed outside.
    pub prereq: u64,
    /// Its cost per pass.
    pub cost: UnionCost,
}

/// SQLite keeps at most this many (prerequisites, cost) pairs per OR
/// term (`N_OR_COST`).
const OR_SET_MAX: usize = 3;

/// SQLite's `whereOrInsert`: add (`prereq`, `cost`) to `set` unless an
/// entry needing no more items costs no more; it replaces an entry it
/// is as good as, else fills a free slot, else replaces the cheapest entry
/// when cheaper still (SQLite's choice). The rows kept are the fewest of
/// a replaced pair.
fn or_set_insert(set: &mut Vec<(u64, UnionCost)>, prereq: u64, cost: UnionCost) {
    let mut slot = None;
    for (k, (p, c)) in set.iter().enumerate() {
        if cost.run <= c.run && prereq & *p == prereq {
            slot = Some(k);
            break;
        }
        if c.run <= cost.run && *p & prereq == *p {
            return;
        }
    }
    let k = match slot {
        Some(k) => k,
        None if set.len() < OR_SET_MAX => {
            set.push((prereq, cost));
            return;
        }
        None => {
            let mut k = 0;
            for i in 1..set.len() {
                if set[k].1.run > set[i].1.run {
                    k = i;
                }
            }
            if set[k].1.run <= cost.run {
                return;
            }
            k
        }
    };
    let rows = set[k].1.rows.min(cost.rows);
    set[k] = (prereq, UnionCost { run: cost.run, rows });
}

/// [`ask_or_branches`] for a virtual table in a join SQLite orders
/// (`cursor` its cursor): each branch asked the calls of a table in a
/// join ([`VtabPlans::ask`]); the plans using a constraint make the
/// branch's set of (items needed, cost) pairs, and the sets of the
/// branches combine pairwise (needs united, costs and rows added), as
/// SQLite's `whereLoopAddOr` does. Returns the unions, each with SQLite's
/// one-unit penalty.
pub fn ask_or_branches_joined(
    asked: Asked<'_>,
    ors: &[OrTerm<'_, '_>],
    main: &[VConstraint<'_, '_>],
    goal: Option<&OrderGoal>,
    col_used: u64,
    cursor: i32,
) -> Result<Vec<VtabUnion>> {
    let mut out = Vec::new();
    for or in ors {
        let mut sum: Vec<(u64, UnionCost)> = Vec::new();
        let mut first = true;
        let mut whole = true;
        for b in &or.branches {
            let Some(own) = b else {
                whole = false;
                continue;
            };
            let mut cands: Vec<VConstraint<'_, '_>> = own.clone();
            cands.extend(main.iter().cloned());
            let mut cur: Vec<(u64, UnionCost)> = Vec::new();
            for (needs, info) in VtabPlans::ask(cursor, asked, &cands, goal, col_used)?.plans {
                if uses_one(&info) {
                    let (run, rows) = plan_log_est(&info);
                    or_set_insert(&mut cur, needs, UnionCost { run, rows });
                }
            }
            if cur.is_empty() {
                sum.clear();
                break;
            }
            if first {
                sum = cur;
                first = false;
            } else {
                let prev = std::mem::take(&mut sum);
                for (p, pc) in &prev {
                    for (c, cc) in &cur {
                        or_set_insert(&mut sum, p | c, UnionCost { run: log_est_add(pc.run, cc.run), rows: log_est_add(pc.rows, cc.rows) });
                    }
                }
            }
        }
        if whole {
            let term = or.term as *const Expr<'_> as usize;
            out.extend(sum.into_iter().map(|(prereq, c)| VtabUnion { term, prereq, cost: UnionCost { run: c.run + 1, rows: c.rows } }));
        }
    }
    Ok(out)
}

/// A plan's cost and rows as SQLite's planner keeps them (LogEst).
pub fn plan_log_est(info: &IndexInfo) -> (i32, i32) {
    (crate::sql::plan::order::log_est_f64(info.estimated_cost), crate::sql::plan::order::log_est(info.estimated_rows.max(0) as u64))
}

/// SQLite's `sqlite3LogEstAdd`: the LogEst of the sum of two LogEst values.
pub fn log_est_add(a: i32, b: i32) -> i32 {
    const X: [i32; 32] = [10, 10, 9, 9, 8, 8, 7, 7, 7, 6, 6, 6, 5, 5, 5, 4, 4, 4, 4, 3, 3, 3, 3, 3, 3, 2, 2, 2, 2, 2, 2, 2];
    let (hi, lo) = if a >= b { (a, b) } else { (b, a) };
    if hi > lo + 49 {
        hi
    } else if hi > lo + 31 {
        hi + 1
    } else {
        hi + X[(hi - lo) as usize]
    }
}

/// Whether a single virtual table reads `union` cheaper than its own plan
/// `main` (which yields the wanted order when `main_ordered`), as SQLite's
/// path solver compares the two loops: without an ORDER BY by cost, ties
/// to the table's own plan; with one, a plan that leaves the rows
/// unordered pays the sort of the rows the cheaper unsorted plan finds
/// (`whereSortingCost`, a result of up to 30 columns), plus 3.
pub fn union_is_cheaper(main: &IndexInfo, main_ordered: bool, union: UnionCost, ordered_query: bool) -> bool {
    let (m_run, m_rows) = plan_log_est(main);
    if !ordered_query {
        return union.run < m_run || (union.run == m_run && union.rows < m_rows);
    }
    // The first pass, unsorted, picks the rows estimate the sort is
    // costed with.
    let first_rows = if union.run < m_run || (union.run == m_run && union.rows < m_rows) { union.rows } else { m_rows };
    let n_row = first_rows + 1;
    let est_log = |n: i32| if n <= 10 { 0 } else { crate::sql::plan::order::log_est(n as u64) - 33 };
    let sort = n_row + 10 + est_log(n_row);
    let sorted = |run: i32| log_est_add(run, sort) + 3;
    let m_cost = if main_ordered { m_run } else { sorted(m_run) };
    let u_cost = sorted(union.run);
    u_cost < m_cost || (u_cost == m_cost && union.rows < m_rows)
}

/// Whether SQLite ANDs the WHERE term `e` to each branch of a union
/// (its `pAndExpr` keeps the terms whose operator a loop may use): an OR,
/// or a comparison (`=`, `<`, `<=`, `>`, `>=`, IS), an IN or an ISNULL
/// with a column of some table on one side. (NE, LIKE, BETWEEN, row
/// values and the like are analysed into other terms and left out.)
pub fn union_and_term(c: &mut impl PlanFacts, e: &Expr<'_>) -> bool {
    match crate::sql::model::expr_shape::strip_parens(e) {
        Expr::Binary(_, Operator::Or, _) => true,
        Expr::Binary(l, Operator::Equals | Operator::Less | Operator::LessEquals | Operator::Greater | Operator::GreaterEquals | Operator::Is, r) => {
            let (l, r) = (strip_collate(l).0, strip_collate(r).0);
            is_column_name(c, l) || is_column_name(c, r)
        }
        Expr::InList { lhs, not: false, .. } | Expr::InSelect { lhs, not: false, .. } => is_column_name(c, strip_collate(lhs).0),
        Expr::IsNull(x) => is_column_name(c, strip_collate(x).0),
        _ => false,
    }
}

/// The bound SQLite derives from a two-way OR (`whereCombineDisjuncts`)
/// for the virtual table `it`: a comparison of each branch (the branch
/// itself or one of its AND terms) on the same column of `it` with the
/// same value (`a = 6 OR 6 > a`), in directions that agree, gives `a <= 6` (`=` with `<`/`<=`), `a >= 6`
/// (`=` with `>`/`>=`) or the common operator; offered after the other
/// constraints of the term. A branch comparing two columns has its
/// commuted copy among the OR's subterms, so the OR is no longer two-way
/// and gives none. The bound stands for no term of its own (a
/// constraint the module omits leaves the OR a filter): its `term` is an
/// address inside the OR term that no term starts at.
pub fn combined_bounds<'a, 'b>(c: &mut impl PlanFacts, it: &FromItem<'a, 'b>, before: u64, t: &'a Expr<'b>) -> Result<Vec<VConstraint<'a, 'b>>> {
    use crate::sql::model::expr_shape::conjuncts;
    use crate::vdbe::vtab::ConstraintOp;
    let mut branches = Vec::new();
    or_branches(t, &mut branches);
    let [one, two] = branches[..] else { return Ok(Vec::new()) };
    fn comparison<'x, 'y>(e: &'x Expr<'y>) -> Option<(&'x Expr<'y>, Operator, &'x Expr<'y>)> {
        match crate::sql::model::expr_shape::strip_parens(e) {
            Expr::Binary(l, op @ (Operator::Equals | Operator::Less | Operator::LessEquals | Operator::Greater | Operator::GreaterEquals), r) => {
                Some((&**l, *op, &**r))
            }
            _ => None,
        }
    }
    for b in [one, two] {
        if let Some((l, _, r)) = comparison(b) {
            let (l, r) = (strip_collate(l).0, strip_collate(r).0);
            if is_column_name(c, l) && is_column_name(c, r) {
                return Ok(Vec::new());
            }
        }
    }
    let mut sides: [Vec<(String, String, VConstraint<'a, 'b>)>; 2] = [Vec::new(), Vec::new()];
    for (k, b) in [one, two].into_iter().enumerate() {
        let mut ands = Vec::new();
        conjuncts(b, &mut ands);
        for a in ands {
            let Some((l, _, r)) = comparison(a) else { continue };
            let a_addr = a as *const Expr<'_> as usize;
            for k2 in constraints_of(c, it, before, &[a])? {
                let plain = matches!(k2.op, ConstraintOp::EQ | ConstraintOp::LT | ConstraintOp::LE | ConstraintOp::GT | ConstraintOp::GE);
                if plain && k2.in_list.is_none() && k2.term == Some(a_addr) {
                    // (An AND term comparing two columns has its commuted
                    // copy among the branch's subterms: one more bound.)
                    // (Compared with the table's column on the left, as
                    // SQLite commutes `6 = a`.)
                    let (l, r) = if column_of(c, it, strip_collate(l).0).is_some() { (l, r) } else { (r, l) };
                    if is_column_name(c, strip_collate(l).0) && is_column_name(c, strip_collate(r).0) {
                        sides[k].push((r.to_string(), l.to_string(), k2.clone()));
                    }
                    sides[k].push((l.to_string(), r.to_string(), k2));
                }
            }
        }
    }
    let below = |op: u8| matches!(op, ConstraintOp::EQ | ConstraintOp::LT | ConstraintOp::LE);
    let above = |op: u8| matches!(op, ConstraintOp::EQ | ConstraintOp::GT | ConstraintOp::GE);
    let mut out = Vec::new();
    let fake = t as *const Expr<'_> as usize + 1;
    for (l1, r1, k1) in &sides[0] {
        for (l2, r2, k2) in &sides[1] {
            if l1 != l2 || r1 != r2 || k1.column != k2.column || !((below(k1.op) && below(k2.op)) || (above(k1.op) && above(k2.op))) {
                continue;
            }
            let op = if k1.op == k2.op {
                k1.op
            } else if below(k1.op) && below(k2.op) {
                ConstraintOp::LE
            } else {
                ConstraintOp::GE
            };
            out.push(VConstraint { op, term: Some(fake), ..k1.clone() });
        }
    }
    Ok(out)
}
