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
//! Invariant: a constraint whose value reads the table itself, a later
//! table or a subquery is not offered; one SQLite rejects with
//! `SQLITE_CONSTRAINT` is retried with only the function arguments usable,
//! then "no query solution".

use crate::error::{Error, Result, SQLITE_CONSTRAINT};
use crate::sql::codegen::Compiler;
use crate::sql::model::from::FromItem;
use crate::sql::plan::order::OrderGoal;
use crate::vtab::{ConstraintOp, IndexConstraint, IndexInfo, IndexOrderBy, VTab};
use sqlite3_parser::ast::{Expr, LikeOperator, Literal, Operator};

/// One constraint offered to xBestIndex.
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
    /// `column IN (list)`: an EQ constraint whose values the loop runs
    /// xFilter for one by one.
    pub in_list: Option<&'a [Expr<'b>]>,
    /// The comparison's collation.
    pub collation: String,
    /// A LIMIT or OFFSET constraint: where its value is.
    pub limit: Option<LimitArg>,
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
    let mk = |op: u8, arg: LimitArg| VConstraint {
        column: 0,
        op,
        rhs: None,
        term: None,
        usable: true,
        deps: 0,
        in_list: None,
        collation: "BINARY".to_string(),
        limit: Some(arg),
    };
    let mut out = Vec::new();
    if let Some(o) = offer.offset {
        out.push(mk(ConstraintOp::OFFSET, o));
    }
    out.push(mk(ConstraintOp::LIMIT, offer.limit));
    out
}

/// The constraints of `it` at a loop inside the items `before`.
pub fn constraints_of<'a, 'b>(c: &mut Compiler<'_>, it: &FromItem<'a, 'b>, before: u64, terms: &[&'a Expr<'b>]) -> Result<Vec<VConstraint<'a, 'b>>> {
    let v = it.vtab.as_ref().expect("a virtual-table item");
    let mut out = Vec::new();
    let me = 1u64 << it.item.min(63);
    for t in terms {
        let addr = *t as *const Expr<'b> as usize;
        // (`coll`: a collation written on either side of the comparison.)
        let push = |out: &mut Vec<VConstraint<'a, 'b>>, c: &mut Compiler<'_>, col: i32, op: u8, rhs: Option<&'a Expr<'b>>, coll: Option<String>| {
            let deps = match rhs {
                Some(e) => {
                    let deps = c.expr_deps(e);
                    if deps == u64::MAX || deps & me != 0 {
                        return;
                    }
                    deps
                }
                None => 0,
            };
            let collation = coll.unwrap_or_else(|| if col >= 0 { collation_of(v, col as usize) } else { "BINARY".to_string() });
            out.push(VConstraint { column: col, op, rhs, term: Some(addr), usable: deps & !before == 0, deps, collation, in_list: None, limit: None });
        };
        match t {
            // `(a, b) = (x, y)`: one equality per pair, as SQLite splits it.
            Expr::Binary(Expr::Parenthesized(ls), Operator::Equals, Expr::Parenthesized(rs)) if ls.len() > 1 && ls.len() == rs.len() => {
                for (l, r) in ls.iter().zip(rs.iter()) {
                    for (col_side, other) in [(l, r), (r, l)] {
                        let (col_inner, col_coll) = strip_collate(col_side);
                        if let Some(col) = column_of(c, it, col_inner) {
                            let coll = col_coll.or_else(|| strip_collate(other).1);
                            push(&mut out, c, col, ConstraintOp::EQ, Some(other), coll);
                            break;
                        }
                    }
                }
            }
            Expr::Between { lhs, not: false, start, end } => {
                let (col_inner, coll) = strip_collate(lhs);
                if let Some(col) = column_of(c, it, col_inner) {
                    push(&mut out, c, col, ConstraintOp::GE, Some(start), coll.clone());
                    push(&mut out, c, col, ConstraintOp::LE, Some(end), coll);
                }
            }
            // `x IN (y)` is `x = y`.
            Expr::InList { lhs, not: false, rhs: Some(list) } if list.len() == 1 => {
                let (col_inner, coll) = strip_collate(lhs);
                if let Some(col) = column_of(c, it, col_inner) {
                    push(&mut out, c, col, ConstraintOp::EQ, Some(&list[0]), coll);
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
                let Some(_) = code(op, false) else { continue };
                for (col_side, other, swapped) in [(l, r, false), (r, l, true)] {
                    let (col_inner, col_coll) = strip_collate(col_side);
                    let Some(col) = column_of(c, it, col_inner) else { continue };
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
                                push(&mut out, c, col, ConstraintOp::ISNOTNULL, None, coll);
                                continue;
                            }
                            _ => {}
                        }
                    }
                    if o == 0 {
                        o = ConstraintOp::EQ;
                    }
                    push(&mut out, c, col, o, Some(other), coll);
                }
            }
            // (One IN list per loop: the loop over its values is the
            // outermost part of the table's loop.)
            Expr::InList { lhs, not: false, rhs: Some(list) } if !list.is_empty() && !out.iter().any(|k| k.in_list.is_some()) => {
                if let Some(col) = column_of(c, it, lhs) {
                    let mut deps = 0u64;
                    for e in list.iter() {
                        deps |= c.expr_deps(e);
                    }
                    if deps != u64::MAX && deps & me == 0 {
                        let collation = if col >= 0 { collation_of(v, col as usize) } else { "BINARY".to_string() };
                        out.push(VConstraint {
                            column: col,
                            op: ConstraintOp::EQ,
                            rhs: None,
                            term: Some(addr),
                            usable: deps & !before == 0,
                            deps,
                            collation,
                            in_list: Some(list),
                            limit: None,
                        });
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
                    push(&mut out, c, col, ConstraintOp::ISNOTNULL, None, None);
                }
            }
            Expr::Like { lhs, not: false, op, rhs, escape: None } => {
                if let Some(col) = column_of(c, it, lhs) {
                    let o = match op {
                        LikeOperator::Like => ConstraintOp::LIKE,
                        LikeOperator::Glob => ConstraintOp::GLOB,
                        LikeOperator::Match => ConstraintOp::MATCH,
                        LikeOperator::Regexp => ConstraintOp::REGEXP,
                    };
                    push(&mut out, c, col, o, Some(rhs), None);
                }
            }
            Expr::FunctionCall { name, args: Some(args), distinctness: None, order_by: None, filter_over: None } if args.len() == 2 => {
                let fname = crate::sql::parse::unquote(name.0);
                // The column as second argument, then as first (SQLite's
                // order).
                for (col_arg, other) in [(&args[1], &args[0]), (&args[0], &args[1])] {
                    let Some(col) = column_of(c, it, col_arg) else { continue };
                    if let Some((_, op)) = v.inst.table.find_function(2, &fname) {
                        if op >= i32::from(ConstraintOp::FUNCTION) && op <= 255 {
                            push(&mut out, c, col, op as u8, Some(other), None);
                            break;
                        }
                    }
                }
            }
            _ => {}
        }
    }
    // The arguments of `t(a, b)` come after the WHERE terms, as SQLite
    // appends them to the WHERE clause.
    let hidden: Vec<usize> = v.decl.hidden.iter().enumerate().filter(|(_, h)| **h).map(|(i, _)| i).collect();
    for (k, arg) in v.args.iter().enumerate() {
        let deps = c.expr_deps(arg);
        let usable = deps != u64::MAX && deps & !before == 0;
        out.push(VConstraint {
            column: hidden[k] as i32,
            op: ConstraintOp::EQ,
            rhs: Some(arg),
            term: None,
            usable,
            deps,
            collation: collation_of(v, hidden[k]),
            in_list: None,
            limit: None,
        });
    }
    Ok(out)
}

/// `e` under COLLATE and single parentheses, and the collation written
/// there (upper case).
fn strip_collate<'x, 'y>(mut e: &'x Expr<'y>) -> (&'x Expr<'y>, Option<String>) {
    let mut coll = None;
    loop {
        match e {
            Expr::Collate(inner, name) => {
                coll.get_or_insert_with(|| crate::sql::parse::unquote(name).to_ascii_uppercase());
                e = inner;
            }
            Expr::Parenthesized(v) if v.len() == 1 => e = &v[0],
            _ => return (e, coll),
        }
    }
}

/// The column of `it` that `e` names (-1 the rowid), if it is one.
fn column_of(c: &mut Compiler<'_>, it: &FromItem<'_, '_>, e: &Expr<'_>) -> Option<i32> {
    let r = c.plain_column(e)?;
    (r.item == it.item && r.cursor == it.cursor).then(|| r.column.map_or(-1, |c| c as i32))
}

fn collation_of(v: &crate::sql::model::from::VtabItem<'_, '_>, col: usize) -> String {
    v.decl.table.columns.get(col).and_then(|c| c.collation.clone()).map_or_else(|| "BINARY".to_string(), |c| c.to_ascii_uppercase())
}

/// Ask `table` for its plan over `cands` (see the module doc).
pub fn choose_plan(table: &dyn VTab, name: &str, cands: &[VConstraint<'_, '_>], goal: Option<&OrderGoal>, col_used: u64) -> Result<IndexInfo> {
    let order_by: Vec<IndexOrderBy> = match goal {
        Some(g) if !g.min_max || g.terms.first().is_some_and(|t| t.desc) => {
            g.terms.iter().map(|t| IndexOrderBy { column: t.column.map_or(-1, |c| c as i32), desc: t.desc }).collect()
        }
        _ => Vec::new(),
    };
    let distinct = if goal.is_some_and(|g| g.grouping) { 1 } else { 0 };
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
        let constraints = cands
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let off = (d.all_but_args && c.term.is_some())
                    || (d.limits && c.limit.is_some())
                    || (d.in_lists && c.in_list.is_some())
                    || (d.all_but_args && c.limit.is_some());
                IndexConstraint { column: c.column, op: c.op, usable: c.usable && !off, term_offset: i as i32 }
            })
            .collect();
        let mut info = IndexInfo::new(constraints, order_by.clone(), col_used);
        info.distinct = distinct;
        for (i, c) in cands.iter().enumerate() {
            info.is_in[i] = c.in_list.is_some();
        }
        for (i, c) in cands.iter().enumerate() {
            info.collations[i] = c.collation.clone();
            info.rhs[i] = match c.limit {
                Some(l) => l.literal.map(crate::value::Value::Integer),
                None => c.rhs.and_then(crate::sql::schema::constant_value),
            };
        }
        table.best_index(&mut info)?;
        check_answer(&info, name)?;
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
                return Err(crate::sql::codegen::vtab_scan_malfunction(name));
            }
            seen[k] = true;
            max = max.max(k);
        }
    }
    if (1..=max).any(|k| !seen[k]) {
        return Err(crate::sql::codegen::vtab_scan_malfunction(name));
    }
    Ok(())
}

/// What join ordering needs to ask a virtual table for its cost with any
/// set of tables placed outside it.
pub struct VtabCostFacts {
    /// The table.
    pub table: std::sync::Arc<dyn VTab>,
    /// Its constraints: (column, operator, items the value reads).
    pub constraints: Vec<(i32, u8, u64)>,
}

impl VtabCostFacts {
    /// (cost of one pass, rows) as the module estimates them with the
    /// items `before` placed outside; a plan it rejects (or fails) costs
    /// infinitely much.
    pub fn estimate(&self, before: u64) -> (f64, f64) {
        let constraints = self
            .constraints
            .iter()
            .enumerate()
            .map(|(i, (column, op, deps))| IndexConstraint {
                column: *column,
                op: *op,
                usable: *deps != u64::MAX && deps & !before == 0,
                term_offset: i as i32,
            })
            .collect();
        let mut info = IndexInfo::new(constraints, Vec::new(), u64::MAX);
        match self.table.best_index(&mut info) {
            Ok(()) if info.estimated_cost.is_finite() => (info.estimated_cost.max(0.0), (info.estimated_rows.max(1)) as f64),
            _ => (f64::INFINITY, f64::INFINITY),
        }
    }
}
