//! Planning a virtual-table loop: the WHERE terms a module may use
//! (`column op value`, LIKE/GLOB/MATCH/REGEXP, IS [NOT] NULL, functions
//! the table overloads through xFindFunction) and the arguments of the
//! table-valued-function syntax, offered to the module's xBestIndex with
//! `usable` set when the value is known before the loop starts (it reads
//! only tables of outer loops), and the module's answer checked as SQLite
//! checks it.
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
}

/// The constraints of `it` at a loop inside the items `before`.
pub fn constraints_of<'a, 'b>(c: &mut Compiler<'_>, it: &FromItem<'a, 'b>, before: u64, terms: &[&'a Expr<'b>]) -> Result<Vec<VConstraint<'a, 'b>>> {
    let v = it.vtab.as_ref().expect("a virtual-table item");
    let mut out = Vec::new();
    let me = 1u64 << it.item.min(63);
    for t in terms {
        let addr = *t as *const Expr<'b> as usize;
        let push = |out: &mut Vec<VConstraint<'a, 'b>>, c: &mut Compiler<'_>, col: i32, op: u8, rhs: Option<&'a Expr<'b>>| {
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
            let collation = if col >= 0 { collation_of(v, col as usize) } else { "BINARY".to_string() };
            out.push(VConstraint { column: col, op, rhs, term: Some(addr), usable: deps & !before == 0, deps, collation, in_list: None });
        };
        match t {
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
                    let Some(col) = column_of(c, it, col_side) else { continue };
                    let mut o = code(op, swapped).unwrap();
                    // `x IS NULL` written as a comparison with NULL.
                    if matches!(other, Expr::Literal(Literal::Null)) {
                        match o {
                            ConstraintOp::IS => {
                                push(&mut out, c, col, ConstraintOp::ISNULL, None);
                                continue;
                            }
                            ConstraintOp::ISNOT => {
                                push(&mut out, c, col, ConstraintOp::ISNOTNULL, None);
                                continue;
                            }
                            _ => {}
                        }
                    }
                    if o == 0 {
                        o = ConstraintOp::EQ;
                    }
                    push(&mut out, c, col, o, Some(other));
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
                        });
                    }
                }
            }
            Expr::IsNull(e) => {
                if let Some(col) = column_of(c, it, e) {
                    push(&mut out, c, col, ConstraintOp::ISNULL, None);
                }
            }
            Expr::NotNull(e) => {
                if let Some(col) = column_of(c, it, e) {
                    push(&mut out, c, col, ConstraintOp::ISNOTNULL, None);
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
                    push(&mut out, c, col, o, Some(rhs));
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
                            push(&mut out, c, col, op as u8, Some(other));
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
        });
    }
    Ok(out)
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
        Some(g) if !g.min_max => g.terms.iter().map(|t| IndexOrderBy { column: t.column.map_or(-1, |c| c as i32), desc: t.desc }).collect(),
        _ => Vec::new(),
    };
    let distinct = if goal.is_some_and(|g| g.grouping) { 1 } else { 0 };
    let ask = |args_only: bool| -> Result<IndexInfo> {
        let constraints = cands
            .iter()
            .enumerate()
            .map(|(i, c)| IndexConstraint { column: c.column, op: c.op, usable: c.usable && (!args_only || c.term.is_none()), term_offset: i as i32 })
            .collect();
        let mut info = IndexInfo::new(constraints, order_by.clone(), col_used);
        info.distinct = distinct;
        for (i, c) in cands.iter().enumerate() {
            info.collations[i] = c.collation.clone();
            info.rhs[i] = c.rhs.and_then(crate::sql::schema::constant_value);
        }
        table.best_index(&mut info)?;
        check_answer(&info, name)?;
        Ok(info)
    };
    match ask(false) {
        Err(e) if e.primary() == SQLITE_CONSTRAINT => match ask(true) {
            Err(e) if e.primary() == SQLITE_CONSTRAINT => Err(Error::sql("no query solution")),
            r => r,
        },
        r => r,
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
