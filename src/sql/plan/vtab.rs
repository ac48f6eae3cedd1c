//! Planning a virtual-table loop: the WHERE terms a module may use
//! (`column op value`, LIKE/GLOB/MATCH/REGEXP, IS [NOT] NULL, functions
//! the table overloads through xFindFunction) and the arguments of the
//! table-valued-function syntax, offered to the module's xBestIndex with
//! `usable` set when the value is known before the loop starts (it reads
//! only tables of outer loops), and the module's answer checked as SQLite
//! checks it. A lone max() offers its ORDER BY DESC (min() none: its NULLs
//! would come first), as SQLite does.
//!
//! LIMIT and OFFSET are offered too (`SQLITE_INDEX_CONSTRAINT_LIMIT` /
//! `_OFFSET`, after every other constraint, OFFSET first) when the query
//! lets the module cut its scan short, as SQLite 3.54.1 decides it (see
//! [`LimitOffer`]); a plan that takes either while leaving an earlier
//! constraint out, or while looping over an IN list itself, is asked for
//! again with both unusable, as SQLite does.
//!
//! The constraints come in SQLite's order (see [`constraints_of`]), with
//! what SQLite derives from the terms (BETWEEN and LIKE/GLOB prefix
//! bounds, USING columns, NE/IS NOT/IS NOT NULL/LIKE... as auxiliary
//! operators); a DISTINCT shows its result columns as the ORDER BY
//! (`sqlite3_vtab_distinct` 2, 3 with an ORDER BY). In a join SQLite
//! reorders, the calls are those of SQLite's `whereLoopAddVirtual`
//! ([`VtabPlans`]), made once while the join is ordered; the loop then
//! takes the plan asked for the items placed outside it.
//!
//! Invariant: a constraint whose value reads the table itself or a
//! subquery is not offered; one reading a table not placed outside is
//! offered unusable; a plan must not loop over more than one IN list (a
//! plan that would is asked for again). Outside joins, a plan SQLite
//! rejects with `SQLITE_CONSTRAINT` is retried with only the function
//! arguments usable, then "no query solution".

use crate::error::{Error, Result, SQLITE_CONSTRAINT};
use crate::sql::model::from::FromItem;
use crate::sql::plan::facts::PlanFacts;
use crate::sql::plan::order::OrderGoal;
use crate::sql::plan::prelude::*;
use crate::util::ascii::AsciiLower;
use crate::vdbe::vtab::{ConstraintOp, IndexConstraint, IndexInfo, IndexOrderBy, VTab};
use sqlite3_parser::ast::{Expr, LikeOperator, Literal, Operator, Select};

/// Calls a module's xBestIndex with the connection being compiled on lent
/// for the call (`connection/prepare.rs`): SQLite lets xBestIndex run SQL
/// on its own connection.
pub type BestIndexLender<'x> = dyn Fn(&dyn VTab, &mut IndexInfo) -> Result<()> + 'x;

/// A virtual table the planner asks for plans: its module, its name (for
/// the errors about its answers) and how the compile reaches it.
#[derive(Clone, Copy)]
pub struct Asked<'x> {
    /// The table.
    pub table: &'x dyn VTab,
    /// Its name.
    pub name: &'x str,
    /// The compile's lender (`None`: asked without the connection).
    pub lend: Option<&'x BestIndexLender<'x>>,
    /// Not asked at all: `info` keeps its defaults (`Compiler::vtab_unasked`).
    pub unasked: bool,
}

impl Asked<'_> {
    /// Call xBestIndex on `info`.
    fn best_index(&self, info: &mut IndexInfo) -> Result<()> {
        if self.unasked {
            return Ok(());
        }
        let r = match self.lend {
            Some(lend) => lend(self.table, info),
            None => self.table.best_index(None, info),
        };
        // invariant: index_info_parallel
        debug_assert!(info.parallel(), "xBestIndex changed the shape of its constraint arrays");
        r
    }
}

/// One constraint offered to xBestIndex.
#[derive(Clone)]
pub struct VConstraint<'a, 'b> {
    /// Column of the virtual table (-1 the rowid).
    pub column: i32,
    /// A `ConstraintOp` value.
    pub op: u8,
    /// The value's expression (`None` for IS NULL / IS NOT NULL).
    pub rhs: Option<&'a Expr<'b>>,
    /// The WHERE term it comes from (its address), `None` for a
    /// table-valued-function argument.
    pub term: Option<usize>,
    /// Its value is known before the loop starts.
    pub usable: bool,
    /// The FROM items its value reads.
    pub deps: u64,
    /// `column IN (list)` or `column IN (SELECT ...)`: an EQ constraint
    /// whose values the loop runs xFilter for one by one, unless the
    /// module takes them all at once (`sqlite3_vtab_in`).
    pub in_list: Option<InValues<'a, 'b>>,
    /// The comparison's collation.
    pub collation: String,
    /// A LIMIT or OFFSET constraint: where its value is.
    pub limit: Option<LimitArg>,
    /// A value SQLite derives as text (a LIKE/GLOB prefix bound), for
    /// a constraint without `rhs`.
    pub text: Option<Vec<u8>>,
    /// USING/NATURAL: the value is this column of a table to the left.
    pub rhs_col: Option<crate::sql::resolve::ColumnRef>,
    /// A row-value inequality `(col, ...) > (x, ...)`, offered as `>=`
    /// (`<=`) on its first column with `rhs` the first value: the module's
    /// omit is ignored and `sqlite3_vtab_rhs_value` finds no value, as in
    /// SQLite.
    pub no_omit: bool,
    /// A field of a row value (`(a, b) = (x, y)`, `(a, b) IN (SELECT ..)`)
    /// the term has this many of: the term is left out only when each is
    /// a constraint the module omits (0 for other terms).
    pub slices: usize,
}

/// The right side of an IN constraint.
#[derive(Clone)]
pub enum InValues<'a, 'b> {
    /// `column IN (x, y, ...)`.
    List(&'a [Expr<'b>]),
    /// `column = x OR column = y ...`, which SQLite reads as
    /// `column IN (x, y, ...)`.
    Or(Vec<&'a Expr<'b>>),
    /// `column IN (SELECT ...)`: the subquery's rows, one column.
    Select(&'a Select<'b>),
    /// `(.., column, ..) IN (SELECT ...)`: field `field` of the
    /// subquery's `width`-column rows (SQLite's slice of a row-value IN:
    /// an equality the module cannot take whole, looped over with the
    /// other slices of the same term).
    Row { sel: &'a Select<'b>, field: usize, width: usize },
}

impl<'a, 'b> VConstraint<'a, 'b> {
    /// `column op` from the WHERE term at `term` (`None`: not a WHERE
    /// term), its value reading the FROM items `deps`, for a loop inside
    /// the items `before` (usable when it reads only those); no value
    /// given yet, the other fields at their plain defaults.
    fn new(column: i32, op: u8, term: Option<usize>, deps: u64, before: u64, collation: String) -> Self {
        VConstraint {
            column,
            op,
            rhs: None,
            term,
            usable: deps != u64::MAX && deps & !before == 0,
            deps,
            in_list: None,
            collation,
            limit: None,
            text: None,
            rhs_col: None,
            no_omit: false,
            slices: 0,
        }
    }
}

impl VConstraint<'_, '_> {
    /// An IN constraint `sqlite3_vtab_in` may hand over whole.
    pub fn is_whole_in(&self) -> bool {
        matches!(self.in_list, Some(InValues::List(_) | InValues::Or(_) | InValues::Select(_)))
    }

    /// Whether `other` loops over the same IN values (the slices of one
    /// row-value IN do).
    fn same_in(&self, other: &VConstraint<'_, '_>) -> bool {
        matches!((&self.in_list, &other.in_list), (Some(InValues::Row { .. }), Some(InValues::Row { .. })) if self.term == other.term)
    }
}

/// The value of a LIMIT or OFFSET constraint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LimitArg {
    /// The register holding it (after `MustBeInt`), set before the loop.
    pub reg: i32,
    /// The value when written as an integer literal from 0 to 2^31-1
    /// (what `sqlite3_vtab_rhs_value` sees; xFilter then gets the literal
    /// too, as SQLite codes it).
    pub literal: Option<i64>,
}

/// The LIMIT and OFFSET a SELECT offers the virtual table it reads.
/// SQLite offers them only when the table is the whole FROM clause, the
/// query has no GROUP BY, aggregate, window function or DISTINCT, every
/// ORDER BY term is a column of the table, and every WHERE term is a
/// constraint offered to the module (checked when the loop opens).
#[derive(Debug, Clone)]
pub struct LimitOffer {
    /// The virtual table's cursor.
    pub cursor: i32,
    /// LIMIT.
    pub limit: LimitArg,
    /// OFFSET.
    pub offset: Option<LimitArg>,
    /// Every WHERE term (by address).
    pub where_terms: Vec<usize>,
    /// The rows go through a sorter unless the module consumes the ORDER
    /// BY: a module skipping the OFFSET rows then leaves the sorter's
    /// output LIMIT + OFFSET rows, as SQLite's sorter keeps them.
    pub sorted: bool,
}

/// The literal value of a LIMIT or OFFSET expression as SQLite shows it to
/// xBestIndex: an integer literal (signs allowed) from 0 to 2^31-1.
pub fn limit_literal(e: &Expr<'_>) -> Option<i64> {
    fn value(e: &Expr<'_>) -> Option<i64> {
        match e {
            Expr::Literal(Literal::Numeric(s)) => {
                let v = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
                    Some(h) => i64::from_str_radix(h, 16).ok()?,
                    None if s.bytes().all(|b| b.is_ascii_digit()) => s.parse::<i64>().ok()?,
                    None => return None,
                };
                (v <= i64::from(i32::MAX)).then_some(v)
            }
            Expr::Unary(sqlite3_parser::ast::UnaryOperator::Positive, x) => value(x),
            Expr::Unary(sqlite3_parser::ast::UnaryOperator::Negative, x) => value(x).map(|v| -v),
            Expr::Parenthesized(v) if v.len() == 1 => value(&v[0]),
            _ => None,
        }
    }
    value(e).filter(|v| *v >= 0)
}

/// The LIMIT and OFFSET constraints of `offer`, to follow the others.
pub fn limit_constraints<'a, 'b>(offer: &LimitOffer) -> Vec<VConstraint<'a, 'b>> {
    let mk = |op: u8, arg: LimitArg| VConstraint { limit: Some(arg), ..VConstraint::new(0, op, None, 0, 0, "BINARY".to_string()) };
    let mut out = Vec::new();
    if let Some(o) = offer.offset {
        out.push(mk(ConstraintOp::OFFSET, o));
    }
    out.push(mk(ConstraintOp::LIMIT, offer.limit));
    out
}

/// The constraints of `it` at a loop inside the items `before`, in
/// SQLite's order: first the terms that are constraints as written (a
/// comparison with the table's column on either side, IN, IS NULL), then
/// the arguments of `t(a, b)`, then the constraints SQLite derives from a
/// term (the two bounds of BETWEEN and of a LIKE/GLOB prefix, NE, IS NOT,
/// IS NOT NULL, LIKE/GLOB/MATCH/REGEXP and overloaded functions, the
/// parts of a row-value equality, a comparison between two columns read
/// from the other column's side), which SQLite appends while it analyses
/// the terms from the last to the first.
pub fn constraints_of<'a, 'b, C: PlanFacts>(c: &mut C, it: &FromItem<'a, 'b>, before: u64, terms: &[&'a Expr<'b>]) -> Result<Vec<VConstraint<'a, 'b>>> {
    let v = it.vtab.as_ref().expect("a virtual-table item");
    let mut out = Vec::new();
    // Derived constraints, per term.
    let mut derived: Vec<Vec<VConstraint<'a, 'b>>> = Vec::with_capacity(terms.len());
    let me = 1u64 << it.item.min(63);
    for t in terms {
        let addr = *t as *const Expr<'b> as usize;
        let mut later: Vec<VConstraint<'a, 'b>> = Vec::new();
        // (`coll`: a collation written on either side of the comparison.)
        let push = |out: &mut Vec<VConstraint<'a, 'b>>, c: &mut C, col: i32, op: u8, rhs: Option<&'a Expr<'b>>, coll: Option<String>| {
            let deps = match rhs {
                Some(e) => {
                    let deps = value_deps(c, e);
                    if deps == u64::MAX || deps & me != 0 {
                        return;
                    }
                    deps
                }
                None => 0,
            };
            let collation = coll.unwrap_or_else(|| collation_of(v, col));
            out.push(VConstraint { rhs, ..VConstraint::new(col, op, Some(addr), deps, before, collation) });
        };
        // (`x IN (SELECT ...)`, or `x IN ((SELECT ...))` which is the same.)
        let in_select = crate::sql::model::expr_shape::as_in_select(t);
        'term: {
            match t {
                // `(a, b) = (x, y)`: one equality per pair, as SQLite splits
                // it (IS alike).
                Expr::Binary(Expr::Parenthesized(ls), eq_op @ (Operator::Equals | Operator::Is), Expr::Parenthesized(rs))
                    if ls.len() > 1 && ls.len() == rs.len() =>
                {
                    let o = if *eq_op == Operator::Is { ConstraintOp::IS } else { ConstraintOp::EQ };
                    let first = later.len();
                    for (l, r) in ls.iter().zip(rs.iter()) {
                        for (col_side, other) in [(l, r), (r, l)] {
                            let (col_inner, col_coll) = strip_collate(col_side);
                            if std::ptr::eq(col_side, r) && is_fixed(c, col_inner) {
                                continue;
                            }
                            if let Some(col) = column_of(c, it, col_inner) {
                                let coll = col_coll.or_else(|| strip_collate(other).1);
                                push(&mut later, c, col, o, Some(other), coll);
                                break;
                            }
                        }
                    }
                    for k in &mut later[first..] {
                        k.slices = ls.len();
                    }
                }
                // `(a, b) > (x, y)`: `a >= x` (`<` and `<=`: `a <= x`), the
                // module's omit ignored (SQLite's vector range terms).
                Expr::Binary(
                    Expr::Parenthesized(ls),
                    op @ (Operator::Less | Operator::LessEquals | Operator::Greater | Operator::GreaterEquals),
                    Expr::Parenthesized(rs),
                ) if ls.len() > 1 && ls.len() == rs.len() => {
                    let left_is_column = is_column_name(c, strip_collate(&ls[0]).0);
                    for (col_vec, other_vec, swapped) in [(ls, rs, false), (rs, ls, true)] {
                        let (col_inner, col_coll) = strip_collate(&col_vec[0]);
                        let Some(col) = column_of(c, it, col_inner) else { continue };
                        let less = matches!(op, Operator::Less | Operator::LessEquals) != swapped;
                        let mut deps = 0u64;
                        for e in other_vec.iter() {
                            deps |= value_deps(c, e);
                        }
                        if deps == u64::MAX || deps & me != 0 {
                            continue;
                        }
                        let other = &other_vec[0];
                        let coll = col_coll.or_else(|| strip_collate(other).1);
                        let collation = coll.unwrap_or_else(|| collation_of(v, col));
                        let cons = VConstraint {
                            rhs: Some(other),
                            no_omit: true,
                            ..VConstraint::new(col, if less { ConstraintOp::LE } else { ConstraintOp::GE }, Some(addr), deps, before, collation)
                        };
                        if swapped && left_is_column {
                            later.push(cons);
                        } else {
                            out.push(cons);
                        }
                    }
                }
                Expr::Between { lhs, not: false, start, end } => {
                    let (col_inner, coll) = strip_collate(lhs);
                    if let Some(col) = column_of(c, it, col_inner) {
                        push(&mut later, c, col, ConstraintOp::GE, Some(start), coll.clone());
                        push(&mut later, c, col, ConstraintOp::LE, Some(end), coll);
                    }
                }
                // `x IN (y)` is `x = y` (`x IN ((SELECT ...))` is
                // `x IN (SELECT ...)`, below).
                Expr::InList { lhs, not: false, rhs: Some(list) } if list.len() == 1 && crate::sql::model::expr_shape::in_list_subquery(list).is_none() => {
                    let (col_inner, coll) = strip_collate(lhs);
                    if let Some(col) = column_of(c, it, col_inner) {
                        push(&mut out, c, col, ConstraintOp::EQ, Some(&list[0]), coll);
                    }
                }
                // `a = x OR a = y`: `a IN (x, y)`, a constraint SQLite
                // derives (see `or_as_in`).
                Expr::Binary(_, Operator::Or, _) => {
                    // (SQLite's combined bound first: `a = 6 OR a < 6`
                    // gives `a <= 6`.)
                    later.extend(crate::sql::plan::vtab_or::combined_bounds(c, it, before, t)?);
                    if let Some(cons) = or_as_in(c, it, before, t, addr) {
                        later.push(cons);
                    }
                }
                Expr::Binary(l, op, r) => {
                    let code = |op: &Operator, swapped: bool| -> Option<u8> {
                        Some(match op {
                            Operator::Equals => ConstraintOp::EQ,
                            Operator::NotEquals => ConstraintOp::NE,
                            Operator::Is => ConstraintOp::IS,
                            Operator::IsNot => ConstraintOp::ISNOT,
                            Operator::Less if swapped => ConstraintOp::GT,
                            Operator::Less => ConstraintOp::LT,
                            Operator::LessEquals if swapped => ConstraintOp::GE,
                            Operator::LessEquals => ConstraintOp::LE,
                            Operator::Greater if swapped => ConstraintOp::LT,
                            Operator::Greater => ConstraintOp::GT,
                            Operator::GreaterEquals if swapped => ConstraintOp::LE,
                            Operator::GreaterEquals => ConstraintOp::GE,
                            _ => return None,
                        })
                    };
                    let Some(_) = code(op, false) else { break 'term };
                    // (A comparison of two columns is the left column's where
                    // written; the right column's comes as a derived copy.)
                    let left_is_column = is_column_name(c, strip_collate(l).0);
                    for (col_side, other, swapped) in [(l, r, false), (r, l, true)] {
                        let (col_inner, col_coll) = strip_collate(col_side);
                        let Some(col) = column_of(c, it, col_inner) else { continue };
                        // (A right-side column constant propagation
                        // replaced gives none, except to != and IS NOT,
                        // which SQLite reads as auxiliary operators.)
                        if swapped && is_fixed(c, col_inner) && !matches!(op, Operator::NotEquals | Operator::IsNot) {
                            continue;
                        }
                        let coll = col_coll.or_else(|| strip_collate(other).1);
                        let mut o = code(op, swapped).unwrap();
                        // `x IS NULL` written as a comparison with NULL.
                        if matches!(other, Expr::Literal(Literal::Null)) {
                            match o {
                                ConstraintOp::IS => {
                                    push(&mut out, c, col, ConstraintOp::ISNULL, None, coll);
                                    continue;
                                }
                                ConstraintOp::ISNOT => {
                                    push(&mut later, c, col, ConstraintOp::ISNOTNULL, None, coll);
                                    continue;
                                }
                                _ => {}
                            }
                        }
                        if o == 0 {
                            o = ConstraintOp::EQ;
                        }
                        let derived_here = matches!(o, ConstraintOp::NE | ConstraintOp::ISNOT) || (swapped && left_is_column);
                        push(if derived_here { &mut later } else { &mut out }, c, col, o, Some(other), coll);
                    }
                }
                // (Every IN list is offered; a plan may loop over one of them
                // itself, see `looped_in_lists`.)
                Expr::InList { lhs, not: false, rhs: Some(list) } if !list.is_empty() && crate::sql::model::expr_shape::in_list_subquery(list).is_none() => {
                    if let Some(col) = column_of(c, it, lhs) {
                        let mut deps = 0u64;
                        for e in list.iter() {
                            deps |= c.expr_deps(e);
                        }
                        if deps != u64::MAX && deps & me == 0 {
                            let collation = collation_of(v, col);
                            out.push(in_constraint(col, addr, deps, before, collation, InValues::List(list), 0));
                        }
                    }
                }
                // `(a, b) IN (SELECT x, y ...)`: an equality per field
                // naming a column of the table, SQLite's slices (a compound
                // subquery or a window definition is not sliced).
                _ if matches!(in_select, Some((Expr::Parenthesized(ls), false, _)) if ls.len() > 1) => {
                    let Some((Expr::Parenthesized(ls), _, sel)) = in_select else { unreachable!("matched above") };
                    let simple = sel.body.compounds.as_ref().is_none_or(|c| c.is_empty())
                        && match &sel.body.select {
                            sqlite3_parser::ast::OneSelect::Select { window_clause, .. } => window_clause.is_none(),
                            sqlite3_parser::ast::OneSelect::Values(_) => true,
                        };
                    let deps = if simple { select_deps(c, sel) } else { u64::MAX };
                    if deps != u64::MAX && deps & me == 0 {
                        for (field, l) in ls.iter().enumerate() {
                            let (col_inner, coll) = strip_collate(l);
                            let Some(col) = column_of(c, it, col_inner) else { continue };
                            let collation = coll.unwrap_or_else(|| collation_of(v, col));
                            later.push(in_constraint(col, addr, deps, before, collation, InValues::Row { sel, field, width: ls.len() }, ls.len()));
                        }
                    }
                }
                // `x IN (SELECT ...)`: an EQ constraint whose values the
                // subquery gives (offered when the subquery does not read
                // the table itself).
                _ if matches!(in_select, Some((_, false, _))) => {
                    let Some((lhs, _, sel)) = in_select else { unreachable!("matched above") };
                    if let Some(col) = column_of(c, it, lhs) {
                        let deps = select_deps(c, sel);
                        if deps != u64::MAX && deps & me == 0 {
                            let collation = collation_of(v, col);
                            out.push(in_constraint(col, addr, deps, before, collation, InValues::Select(sel), 0));
                        }
                    }
                }
                Expr::IsNull(e) => {
                    if let Some(col) = column_of(c, it, e) {
                        push(&mut out, c, col, ConstraintOp::ISNULL, None, None);
                    }
                }
                Expr::NotNull(e) => {
                    if let Some(col) = column_of(c, it, e) {
                        push(&mut later, c, col, ConstraintOp::ISNOTNULL, None, None);
                    }
                }
                Expr::Like { lhs, not: false, op, rhs, escape } => {
                    if let Some(col) = column_of(c, it, lhs) {
                        if matches!(op, LikeOperator::Like | LikeOperator::Glob) {
                            let like = *op == LikeOperator::Like;
                            prefix_bounds(&mut later, col, addr, rhs, escape.as_deref(), like, like && !c.settings().case_sensitive_like);
                        }
                        if escape.is_none() {
                            let o = match op {
                                LikeOperator::Like => ConstraintOp::LIKE,
                                LikeOperator::Glob => ConstraintOp::GLOB,
                                LikeOperator::Match => ConstraintOp::MATCH,
                                LikeOperator::Regexp => ConstraintOp::REGEXP,
                            };
                            push(&mut later, c, col, o, Some(rhs), None);
                        }
                    }
                }
                Expr::FunctionCall { name, args: Some(args), distinctness: None, order_by: None, filter_over: None } if args.len() == 2 || args.len() == 3 => {
                    let fname = crate::sql::parse::unquote(name.0);
                    // like(pattern, column [, escape]) and glob(pattern,
                    // column): the prefix bounds, as for the operators.
                    let builtin = ["like", "glob", "match", "regexp"].iter().position(|n| fname.eq_ci(n));
                    if let (Some(k @ (0 | 1)), Some(col)) = (builtin, column_of(c, it, &args[1])) {
                        prefix_bounds(&mut later, col, addr, &args[0], args.get(2), k == 0, k == 0 && !c.settings().case_sensitive_like);
                    }
                    if args.len() == 3 {
                        break 'term;
                    }
                    // MATCH, GLOB, LIKE and REGEXP attach to the column as
                    // second argument; an overloaded function to the column
                    // as first argument.
                    if let (Some(k), Some(col)) = (builtin, column_of(c, it, &args[1])) {
                        let o = [ConstraintOp::LIKE, ConstraintOp::GLOB, ConstraintOp::MATCH, ConstraintOp::REGEXP][k];
                        push(&mut later, c, col, o, Some(&args[0]), None);
                        break 'term;
                    }
                    for (col_arg, other) in [(&args[1], &args[0]), (&args[0], &args[1])] {
                        let Some(col) = column_of(c, it, col_arg) else { continue };
                        if let Some((_, op)) = v.inst.table.find_function(2, &fname) {
                            if op >= i32::from(ConstraintOp::FUNCTION) && op <= 255 {
                                push(&mut later, c, col, op as u8, Some(other), None);
                                break;
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        derived.push(later);
    }
    // USING/NATURAL: `left.x = it.x`, an ON term after the WHERE terms,
    // whose copy read from this side SQLite derives.
    let mut using = Vec::new();
    for j in &it.on {
        let crate::sql::model::from::JoinTerm::ColEq(l, r) = j else { continue };
        let [l0] = &l[..] else { continue };
        if r.cursor != it.cursor || l0.depth != 0 {
            continue;
        }
        let deps = 1u64 << l0.item.min(63);
        let col = r.column.map_or(-1, |k| k as i32);
        let collation = l0.collation.clone().or_else(|| r.collation.clone()).map_or_else(|| "BINARY".to_string(), |c| c.ascii_upper());
        using.push(VConstraint { rhs_col: Some(l0.clone()), ..VConstraint::new(col, ConstraintOp::EQ, None, deps, before, collation) });
    }
    // (SQLite derives the copies from the last term back.)
    using.reverse();
    derived.push(using);
    // USING/NATURAL where this table is the left one: `it.x = right.x`,
    // a term after the WHERE terms, in join order.
    for (mine, other) in c.using_left_terms(it.cursor).cloned().unwrap_or_default() {
        let deps = 1u64 << other.item.min(63);
        let collation = mine.collation.clone().or_else(|| other.collation.clone()).map_or_else(|| "BINARY".to_string(), |c| c.ascii_upper());
        out.push(VConstraint {
            rhs_col: Some(other),
            ..VConstraint::new(mine.column.map_or(-1, |k| k as i32), ConstraintOp::EQ, None, deps, before, collation)
        });
    }
    // The arguments of `t(a, b)` come after the WHERE terms, as SQLite
    // appends them to the WHERE clause.
    let hidden: Vec<usize> = v.decl.hidden.iter().enumerate().filter(|(_, h)| **h).map(|(i, _)| i).collect();
    // (In a branch of a union they come twice: once among the terms
    // ANDed to the branch, once as the branch's own loop appends them.)
    let copies = if c.in_or_branch() { 2 } else { 1 };
    for _ in 0..copies {
        for (k, arg) in v.args.iter().enumerate() {
            let deps = c.expr_deps_through_aliases(arg);
            out.push(VConstraint {
                rhs: Some(arg),
                ..VConstraint::new(hidden[k] as i32, ConstraintOp::EQ, None, deps, before, collation_of(v, hidden[k] as i32))
            });
        }
    }
    out.extend(derived.into_iter().rev().flatten());
    Ok(out)
}

/// The FROM items a constraint's value reads (`u64::MAX`: not known
/// before the loops, or a subquery inside a larger expression). A
/// subquery reads the columns its correlation names.
fn value_deps(c: &mut impl PlanFacts, e: &Expr<'_>) -> u64 {
    match crate::sql::model::expr_shape::strip_parens(e) {
        Expr::Subquery(sel) => select_deps(c, sel),
        _ => c.expr_deps(e),
    }
}

/// The branches of an OR, through parentheses.
pub(super) fn or_branches<'a, 'b>(e: &'a Expr<'b>, out: &mut Vec<&'a Expr<'b>>) {
    match e {
        Expr::Binary(l, Operator::Or, r) => {
            or_branches(l, out);
            or_branches(r, out);
        }
        Expr::Parenthesized(v) if v.len() == 1 => or_branches(&v[0], out),
        _ => out.push(e),
    }
}

/// The IN constraint SQLite derives from an OR whose branches all compare
/// the same column of `it` for equality (`a = 1 OR 3 = a`): each value
/// without an affinity or with the column's, one collation for all, none
/// reading the table itself. (A branch comparing two columns is not
/// taken: SQLite's handling of its commuted copy is not followed.)
fn or_as_in<'a, 'b>(c: &mut impl PlanFacts, it: &FromItem<'a, 'b>, before: u64, t: &'a Expr<'b>, addr: usize) -> Option<VConstraint<'a, 'b>> {
    let v = it.vtab.as_ref()?;
    let me = 1u64 << it.item.min(63);
    let mut branches = Vec::new();
    or_branches(t, &mut branches);
    let mut column = None;
    let mut values = Vec::new();
    let mut collation: Option<Option<String>> = None;
    let mut deps = 0u64;
    for b in branches {
        let Expr::Binary(l, Operator::Equals, r) = crate::sql::model::expr_shape::strip_parens(b) else { return None };
        let (col, value) = if is_column_name(c, strip_collate(l).0) {
            (column_of(c, it, strip_collate(l).0)?, &**r)
        } else if is_fixed(c, strip_collate(r).0) {
            return None;
        } else {
            (column_of(c, it, strip_collate(r).0)?, &**l)
        };
        if is_column_name(c, strip_collate(value).0) || *column.get_or_insert(col) != col {
            return None;
        }
        let column_affinity =
            usize::try_from(col).ok().and_then(|k| v.decl.table.columns.get(k)).map_or(crate::value::affinity::Affinity::Integer, |x| x.affinity);
        if c.expr_affinity(value).is_some_and(|a| a != column_affinity) {
            return None;
        }
        let lc = c.expr_collation(l);
        let rc = c.expr_collation(r);
        let coll = crate::sql::model::expr_shape::pick_collation(lc.as_ref(), rc.as_ref()).map(|n| n.ascii_upper());
        if *collation.get_or_insert_with(|| coll.clone()) != coll {
            return None;
        }
        let d = value_deps(c, value);
        if d == u64::MAX || d & me != 0 {
            return None;
        }
        deps |= d;
        values.push(value);
    }
    let col = column?;
    let collation = collation.flatten().unwrap_or_else(|| collation_of(v, col));
    Some(in_constraint(col, addr, deps, before, collation, InValues::Or(values), 0))
}

/// The question xBestIndex is asked about `cands` (`usable` says which
/// of them it may use in this call), with the ORDER BY `order_by` and
/// the table's `colUsed`: each constraint's collation, whether its IN
/// list may be taken whole, and the value `sqlite3_vtab_rhs_value` finds
/// (a LIMIT/OFFSET literal, a LIKE/GLOB prefix bound, a constant).
fn question(
    cands: &[VConstraint<'_, '_>],
    order_by: &[IndexOrderBy],
    distinct: i32,
    col_used: u64,
    usable: impl Fn(usize, &VConstraint<'_, '_>) -> bool,
) -> IndexInfo {
    let constraints =
        cands.iter().enumerate().map(|(i, c)| IndexConstraint { column: c.column, op: c.op, usable: usable(i, c), term_offset: i as i32 }).collect();
    let mut info = IndexInfo::new(constraints, order_by.to_vec(), col_used);
    info.distinct = distinct;
    for (i, c) in cands.iter().enumerate() {
        info.is_in[i] = c.is_whole_in();
        info.collations[i] = c.collation.clone();
        info.rhs[i] = match c.limit {
            Some(l) => l.literal.map(crate::value::Value::Integer),
            None => match (&c.text, c.rhs) {
                (Some(t), _) => Some(crate::value::Value::Text(t.clone())),
                (None, Some(_)) if c.no_omit => None,
                (None, Some(e)) => rhs_constant(e),
                (None, None) => None,
            },
        };
    }
    info
}

/// Whether `e` is a column node constant propagation replaced (SQLite
/// reads no constraint from the right side of a comparison through it).
pub(super) fn is_fixed(c: &impl PlanFacts, e: &Expr<'_>) -> bool {
    c.const_fixed_nodes().contains(&(e as *const Expr<'_> as usize))
}

/// The FROM items a subquery reads (`u64::MAX`: unknown).
fn select_deps(c: &mut impl PlanFacts, sel: &Select<'_>) -> u64 {
    match c.subquery_outer_refs(sel) {
        Some(refs) => refs.iter().fold(0u64, |m, r| m | 1u64 << r.item.min(63)),
        None => u64::MAX,
    }
}

/// Whether `e` names a column of any table in reach (SQLite's TK_COLUMN).
pub(super) fn is_column_name(c: &mut impl PlanFacts, e: &Expr<'_>) -> bool {
    let r = match e {
        Expr::Id(id) => c.resolve_name(None, &crate::sql::parse::unquoted(id.0)).ok().flatten(),
        Expr::Qualified(q, n) => c.resolve_name(Some(&crate::sql::parse::unquoted(q.0)), &crate::sql::parse::unquoted(n.0)).ok().flatten(),
        Expr::DoublyQualified(..) => return true,
        _ => None,
    };
    r.is_some()
}

/// The bounds SQLite derives from `column LIKE 'abc%'` (GLOB alike): the
/// pattern's literal prefix `p`, as `column >= p` and `column < p'` (`p`
/// with its last byte incremented), under NOCASE for LIKE (upper case for
/// the lower bound, lower case for the upper one) and BINARY for GLOB. A
/// prefix that reads as a number, or whose bounds do, gives none (a
/// virtual table's column may hold numbers).
/// `nocase`: a LIKE while `PRAGMA case_sensitive_like` is off (bounds
/// from the upper- and lower-case prefix, NOCASE), as SQLite's
/// `isLikeOrGlob`; GLOB and a case-sensitive LIKE bound the prefix as
/// written, BINARY.
fn prefix_bounds<'a, 'b>(out: &mut Vec<VConstraint<'a, 'b>>, col: i32, addr: usize, pattern: &Expr<'_>, escape: Option<&Expr<'_>>, like: bool, nocase: bool) {
    let Some(prefix) = super::like_prefix::like_prefix(pattern, escape, like) else { return };
    if super::like_prefix::prefix_is_numeric(&prefix) {
        return;
    }
    let (low, mut high) = if nocase { (prefix.to_ascii_uppercase(), prefix.to_ascii_lowercase()) } else { (prefix.clone(), prefix) };
    let last = high.last_mut().unwrap();
    *last = last.wrapping_add(1);
    let collation = if nocase { "NOCASE" } else { "BINARY" }.to_string();
    for (op, bound) in [(ConstraintOp::GE, low), (ConstraintOp::LT, high)] {
        out.push(VConstraint { text: Some(bound), ..VConstraint::new(col, op, Some(addr), 0, 0, collation.clone()) });
    }
}

/// `e` under COLLATE and single parentheses, and the collation written
/// there (upper case).
pub(super) fn strip_collate<'x, 'y>(mut e: &'x Expr<'y>) -> (&'x Expr<'y>, Option<String>) {
    let mut coll = None;
    loop {
        match e {
            Expr::Collate(inner, name) => {
                coll.get_or_insert_with(|| crate::sql::parse::unquote(name).ascii_upper());
                e = inner;
            }
            Expr::Parenthesized(v) if v.len() == 1 => e = &v[0],
            _ => return (e, coll),
        }
    }
}

/// The column of `it` that `e` names (-1 the rowid), if it is one.
pub(super) fn column_of(c: &mut impl PlanFacts, it: &FromItem<'_, '_>, e: &Expr<'_>) -> Option<i32> {
    let r = c.plain_column(e)?;
    (r.item == it.item && r.cursor == it.cursor).then(|| r.column.map_or(-1, |c| c as i32))
}

/// The declared collation of column `col` of the module's table (the
/// rowid, -1, and undeclared ones: BINARY).
fn collation_of(v: &crate::sql::model::from::VtabItem<'_, '_>, col: i32) -> String {
    let declared = usize::try_from(col).ok().and_then(|i| v.decl.table.columns.get(i)).and_then(|c| c.collation.as_ref());
    declared.map_or_else(|| "BINARY".to_string(), |c| c.ascii_upper())
}

/// An EQ constraint on `column` whose values an IN list, an IN subquery
/// or an OR of equalities gives (`values`), from the term at `term`.
fn in_constraint<'a, 'b>(column: i32, term: usize, deps: u64, before: u64, collation: String, values: InValues<'a, 'b>, slices: usize) -> VConstraint<'a, 'b> {
    VConstraint { in_list: Some(values), slices, ..VConstraint::new(column, ConstraintOp::EQ, Some(term), deps, before, collation) }
}

/// The IN lists a plan uses that the loop runs over value by value (not
/// taken whole through `sqlite3_vtab_in`).
fn looped_in_lists(cands: &[VConstraint<'_, '_>], info: &IndexInfo) -> Vec<usize> {
    let mut out: Vec<usize> = Vec::new();
    for i in (0..cands.len()).filter(|&i| cands[i].in_list.is_some() && info.usage[i].argv_index > 0 && !info.in_handled[i]) {
        // (The slices of one row-value IN are one loop.)
        if !out.iter().any(|&k| cands[k].same_in(&cands[i])) {
            out.push(i);
        }
    }
    out
}

/// Ask `table` for its plan over `cands` (see the module doc). The loop
/// runs over one IN list's values at most: a plan looping over several
/// (SQLite nests those loops) is asked for again with only the first of
/// them usable.
pub fn choose_plan(asked: Asked<'_>, cands: &[VConstraint<'_, '_>], goal: Option<&OrderGoal>, col_used: u64) -> Result<IndexInfo> {
    let info = choose_plan_keeping(asked, cands, goal, col_used, None)?;
    match looped_in_lists(cands, &info)[..] {
        [first, _, ..] => choose_plan_keeping(asked, cands, goal, col_used, Some(first)),
        _ => Ok(info),
    }
}

/// [`choose_plan`], with only the IN list `keep_in` usable when given.
fn choose_plan_keeping(asked: Asked<'_>, cands: &[VConstraint<'_, '_>], goal: Option<&OrderGoal>, col_used: u64, keep_in: Option<usize>) -> Result<IndexInfo> {
    let order_by: Vec<IndexOrderBy> = order_terms(goal);
    let distinct = if order_by.is_empty() { 0 } else { goal.map_or(0, |g| g.vtab_distinct) };
    // Which constraints a call disables on top of those not usable: the
    // table-valued-function arguments alone stay (after SQLITE_CONSTRAINT),
    // LIMIT/OFFSET, IN lists.
    #[derive(Clone, Copy)]
    struct Disabled {
        all_but_args: bool,
        limits: bool,
        in_lists: bool,
    }
    let ask = |d: Disabled| -> Result<IndexInfo> {
        let mut info = question(cands, &order_by, distinct, col_used, |i, c| {
            let off = (d.all_but_args && c.term.is_some())
                || (d.limits && c.limit.is_some())
                || (d.in_lists && c.in_list.is_some())
                || (d.all_but_args && c.limit.is_some())
                || (keep_in.is_some_and(|k| k != i && !cands[k].same_in(c)) && c.in_list.is_some());
            c.usable && !off
        });
        asked.best_index(&mut info)?;
        check_answer(&info, asked.name)?;
        Ok(info)
    };
    // SQLite takes a LIMIT or OFFSET the module uses only when every
    // constraint before it is passed to xFilter too and no IN list is
    // looped over outside the module; otherwise it asks again with both
    // unusable.
    let limit_unsafe = |info: &IndexInfo| {
        let in_loop = cands.iter().zip(&info.usage).zip(&info.in_handled).any(|((c, u), h)| c.in_list.is_some() && u.argv_index > 0 && !h);
        cands
            .iter()
            .enumerate()
            .any(|(i, c)| c.limit.is_some() && info.usage[i].argv_index > 0 && (in_loop || info.usage[..i].iter().any(|u| u.argv_index <= 0)))
    };
    let uses_in_loop = |info: &IndexInfo| cands.iter().zip(&info.usage).zip(&info.in_handled).any(|((c, u), h)| c.in_list.is_some() && u.argv_index > 0 && !h);
    let plain = Disabled { all_but_args: false, limits: false, in_lists: false };
    let first = match ask(plain) {
        Ok(info) if limit_unsafe(&info) => ask(Disabled { limits: true, ..plain }),
        r => r,
    };
    let first = match first {
        Err(e) if e.primary() == SQLITE_CONSTRAINT => {
            return match ask(Disabled { all_but_args: true, ..plain }) {
                Err(e) if e.primary() == SQLITE_CONSTRAINT => Err(Error::sql("no query solution")),
                r => r,
            };
        }
        r => r?,
    };
    // A plan looping over an IN list is compared with one without IN
    // lists (SQLite's second call), the cheaper kept.
    if uses_in_loop(&first) {
        match ask(Disabled { all_but_args: false, limits: true, in_lists: true }) {
            Ok(second) if second.estimated_cost < first.estimated_cost => return Ok(second),
            Ok(_) => {}
            Err(e) if e.primary() == SQLITE_CONSTRAINT => {}
            Err(e) => return Err(e),
        }
    }
    Ok(first)
}

/// The value `sqlite3_vtab_rhs_value` shows for `e`: a literal (a blob
/// too), maybe signed.
fn rhs_constant(e: &Expr<'_>) -> Option<crate::value::Value> {
    match strip_collate(e).0 {
        Expr::Literal(Literal::Blob(h)) => {
            let h = h.as_bytes();
            let digit = |b: u8| (b as char).to_digit(16).map(|d| d as u8);
            let bytes: Option<Vec<u8>> = h.chunks(2).map(|p| Some(digit(p[0])? << 4 | digit(*p.get(1)?)?)).collect();
            bytes.map(crate::value::Value::Blob)
        }
        _ => crate::sql::schema::constant_value(e),
    }
}

/// SQLite's checks of an xBestIndex answer: arguments numbered 1..n
/// without gaps or repeats, each from a usable constraint.
fn check_answer(info: &IndexInfo, name: &str) -> Result<()> {
    let n = info.constraints.len();
    let mut seen = vec![false; n + 1];
    let mut max = 0;
    for (c, u) in info.constraints.iter().zip(&info.usage) {
        if u.argv_index > 0 {
            let k = u.argv_index as usize;
            if k > n || seen[k] || !c.usable {
                return Err(vtab_scan_malfunction(name));
            }
            seen[k] = true;
            max = max.max(k);
        }
    }
    if (1..=max).any(|k| !seen[k]) {
        return Err(vtab_scan_malfunction(name));
    }
    Ok(())
}

/// The plans of a virtual table in a join, asked as SQLite 3.54.1 asks
/// them while it orders the join (`whereLoopAddVirtual`): first with
/// every constraint usable; when that plan needs other tables or loops
/// over an IN list, again without IN lists, then once for each distinct
/// set of tables a constraint's value reads (in increasing mask order,
/// skipping the sets already answered), then with none usable when no
/// plan so far needs no other table, and finally with none usable and no
/// IN list when no plan so far needs neither. Each plan is kept with the
/// items its used constraints read; the join order and the loop take,
/// for the items placed outside, the cheapest plan those items allow (no
/// further call).
#[derive(Clone)]
pub struct VtabPlans {
    /// The table's cursor.
    pub cursor: i32,
    /// (items the plan needs placed outside, the answer).
    pub plans: Vec<(u64, IndexInfo)>,
    /// The OR terms readable as unions of the module's plans for their
    /// branches (`vtab_or::ask_or_branches_joined`).
    pub unions: Vec<crate::sql::plan::vtab_or::VtabUnion>,
}

impl VtabPlans {
    /// Ask `table` the calls SQLite makes (see the type's doc).
    pub fn ask(cursor: i32, asked: Asked<'_>, cands: &[VConstraint<'_, '_>], goal: Option<&OrderGoal>, col_used: u64) -> Result<VtabPlans> {
        let order_by: Vec<IndexOrderBy> = order_terms(goal);
        let distinct = if order_by.is_empty() { 0 } else { goal.map_or(0, |g| g.vtab_distinct) };
        let call = |mask: u64, no_in: bool, keep_in: Option<usize>| -> Result<Option<IndexInfo>> {
            let mut info = question(cands, &order_by, distinct, col_used, |i, c| {
                c.deps != u64::MAX && c.deps & !mask == 0 && !((no_in || keep_in.is_some_and(|k| k != i && !cands[k].same_in(c))) && c.in_list.is_some())
            });
            match asked.best_index(&mut info) {
                Ok(()) => {}
                // (A combination the module refuses makes no plan.)
                Err(e) if e.primary() == SQLITE_CONSTRAINT => return Ok(None),
                Err(e) => return Err(e),
            }
            check_answer(&info, asked.name)?;
            Ok(Some(info))
        };
        // (The loop runs over one IN list at most: see `choose_plan`.)
        let call = |mask: u64, no_in: bool| -> Result<Option<IndexInfo>> {
            let Some(info) = call(mask, no_in, None)? else { return Ok(None) };
            match looped_in_lists(cands, &info)[..] {
                [first, _, ..] => call(mask, no_in, Some(first)),
                _ => Ok(Some(info)),
            }
        };
        let needs = |info: &IndexInfo| cands.iter().zip(&info.usage).filter(|(_, u)| u.argv_index > 0).fold(0u64, |m, (c, _)| m | c.deps);
        let in_loop = |info: &IndexInfo| cands.iter().zip(&info.usage).zip(&info.in_handled).any(|((c, u), h)| c.in_list.is_some() && u.argv_index > 0 && !h);
        let mut plans: Vec<(u64, IndexInfo)> = Vec::new();
        let first = call(u64::MAX, false)?;
        let (best, uses_in) = first.as_ref().map_or((0, false), |i| (needs(i), in_loop(i)));
        let answered = first.is_some();
        if let Some(i) = first {
            plans.push((best, i));
        }
        if answered && (best != 0 || uses_in) {
            let mut seen_zero = false;
            let mut seen_zero_no_in = false;
            let mut best_no_in = 0u64;
            if uses_in {
                if let Some(i) = call(u64::MAX, true)? {
                    best_no_in = needs(&i);
                    if best_no_in == 0 {
                        seen_zero = true;
                        seen_zero_no_in = true;
                    }
                    plans.push((best_no_in, i));
                }
            }
            let mut masks: Vec<u64> = cands.iter().map(|c| c.deps).filter(|d| *d != 0 && *d != u64::MAX).collect();
            crate::util::cold_sort::sort(&mut masks);
            masks.dedup();
            for m in masks {
                if m == best || m == best_no_in {
                    continue;
                }
                if let Some(i) = call(m, false)? {
                    if needs(&i) == 0 {
                        seen_zero = true;
                        if !in_loop(&i) {
                            seen_zero_no_in = true;
                        }
                    }
                    plans.push((needs(&i), i));
                }
            }
            if !seen_zero {
                if let Some(i) = call(0, false)? {
                    if !in_loop(&i) {
                        seen_zero_no_in = true;
                    }
                    plans.push((needs(&i), i));
                }
            }
            if !seen_zero_no_in {
                if let Some(i) = call(0, true)? {
                    plans.push((needs(&i), i));
                }
            }
        }
        Ok(VtabPlans { cursor, plans, unions: Vec::new() })
    }

    /// The cheapest plan the items `before` allow (the first of equal
    /// costs).
    pub fn best(&self, before: u64) -> Option<&IndexInfo> {
        let mut best: Option<&IndexInfo> = None;
        for (needs, info) in &self.plans {
            if needs & !before == 0 && best.is_none_or(|b| info.estimated_cost < b.estimated_cost) {
                best = Some(info);
            }
        }
        best
    }

    /// The union the loop reads instead of `main`, its plan for
    /// `before`: the cheapest union those items allow, when
    /// [`union_is_cheaper`](crate::sql::plan::vtab_or::union_is_cheaper)
    /// (`main_ordered`: `main` yields the order an ORDER BY asks;
    /// `ordered_query`: there is one to compare sorts for).
    pub fn union_for(&self, before: u64, main: &IndexInfo, main_ordered: bool, ordered_query: bool) -> Option<&crate::sql::plan::vtab_or::VtabUnion> {
        self.unions
            .iter()
            .filter(|u| u.prereq & !before == 0)
            .filter(|u| crate::sql::plan::vtab_or::union_is_cheaper(main, main_ordered, u.cost, ordered_query))
            .min_by_key(|u| (u.cost.run, u.cost.rows))
    }

    /// The LogEst (cost of one pass, rows) of the plan for `before`, or
    /// of the OR union cheaper than it, as SQLite's path solver sees the
    /// loop; `None` when no plan is allowed with the items in `before`.
    pub fn estimate_log(&self, before: u64) -> Option<(i32, i32)> {
        let info = self.best(before).filter(|i| i.estimated_cost.is_finite())?;
        Some(match self.union_for(before, info, false, false) {
            Some(u) => (u.cost.run, u.cost.rows),
            None => crate::sql::plan::vtab_or::plan_log_est(info),
        })
    }
}

/// The ORDER BY a virtual table is shown for `goal` (none for a min()
/// whose NULLs would come first).
fn order_terms(goal: Option<&OrderGoal>) -> Vec<IndexOrderBy> {
    match goal {
        Some(g) if !g.min_max || g.terms.first().is_some_and(|t| t.desc) => {
            g.terms.iter().map(|t| IndexOrderBy { column: t.column.map_or(-1, |c| c as i32), desc: t.desc }).collect()
        }
        _ => Vec::new(),
    }
}

/// The goal a virtual-table item is shown: one on its own columns, each
/// under the column's collation (another collation leaves the module no
/// order to consume, as in SQLite).
pub fn goal_for<'g>(it: &FromItem<'_, '_>, goal: Option<&'g OrderGoal>) -> Option<&'g OrderGoal> {
    let v = it.vtab.as_ref()?;
    let column_collation = |col: Option<usize>| {
        col.and_then(|c| v.decl.table.columns.get(c)).and_then(|c| c.collation.clone()).map_or_else(|| "BINARY".to_string(), |c| c.ascii_upper())
    };
    goal.filter(|g| g.item == it.item && g.terms.iter().all(|t| t.collation == column_collation(t.column)))
}

/// `colUsed` for a virtual-table item: the columns `uses` lists for it
/// and the hidden columns `t(a, b)` binds (every bit when unknown).
pub fn col_used(it: &FromItem<'_, '_>, uses: Option<&crate::sql::plan::goal::ColumnUses>) -> u64 {
    let Some(v) = it.vtab.as_ref() else { return u64::MAX };
    let args_used = v.decl.hidden.iter().enumerate().filter(|(_, h)| **h).take(v.args.len()).fold(0u64, |m, (i, _)| m | 1u64 << i.min(63));
    match uses {
        Some(u) => u.iter().filter(|(i, _)| *i == it.item).fold(args_used, |m, (_, c)| match c {
            Some(c) => m | 1u64 << (*c).min(63),
            None => m,
        }),
        None => u64::MAX,
    }
}

/// The error of a module whose xBestIndex answer is inconsistent.
pub(crate) fn vtab_scan_malfunction(name: &str) -> Error {
    Error::sql(format!("{name}.xBestIndex malfunction"))
}
