//! The order SQLite's resolver meets names in, for the first name error
//! of a clause: a subquery's own names where it stands (before the names
//! after it), the result list, then HAVING, then WHERE (then, in a query
//! with GROUP BY, ORDER BY and GROUP BY), each expression in turn (an
//! UPDATE's SET list before its WHERE); a window function's PARTITION BY
//! and ORDER BY with its arguments; within one expression a failing name or subquery stops the
//! walk except inside a function's arguments, which SQLite walks
//! without looking at the outcome (the walk goes on after the function
//! and a later error replaces the message); once an error stands, the
//! next node that is neither a name nor a call (an operator, a literal,
//! CASE...) stops the walk too, a subquery there still resolved first
//! (SQLite's resolveExprStep ends every other node with an abort while
//! the parse has an error). Subqueries are compiled to
//! learn their errors only once a name is known to fail.
//!
//! SQLite's special cases followed: `x IS NULL` (its ISNULL node) walks
//! its operand as a call walks an argument; `x IS name` resolves the name
//! first; an ambiguous name fails where it is met, as an unknown one; the
//! ON clauses are walked with the WHERE clause, as one expression; a
//! window function looks up the window it names after its arguments
//! ("no such window") and walks its FILTER clause after its lists; a
//! plain function's FILTER clause is not walked; the expression where the
//! running height of nested subqueries passes the limit fails as the walk
//! enters it.
//!
//! What a clause allows is SQLite's too ([`Allows`]): an aggregate or
//! window function where the clause takes none ("misuse of window function
//! max()" in a WHERE clause), and a function that is not an aggregate
//! with OVER, fail at the call as an unknown function does; the operands
//! of a comparison or BETWEEN of different widths fail entering the node
//! ("row value misused"); an ORDER BY or GROUP BY ordinal outside
//! 1..=65535 fails where it stands, one past the result columns once the
//! clause resolved ([`order_or_group_clauses`]). A subquery compiled to
//! learn its error counts as resolving when it fails only generating code
//! (an unknown collation).

use crate::error::{Error, Result};
use crate::sql::codegen::Compiler;
use crate::sql::model::expr_shape::may_be_row;
use crate::sql::model::query::Dest;
use crate::sql::parse::unquote;
use crate::util::ascii::AsciiLower;
use sqlite3_parser::ast::{self, Expr};

impl Compiler<'_> {
    /// Report the first unresolvable column name in `e` the way SQLite
    /// does before any other clause is looked at.
    pub fn check_names(&mut self, e: &Expr<'_>) -> Result<()> {
        self.check_names_in(&[e])
    }

    /// Report the name error SQLite's resolver reports for `exprs`, each
    /// resolved in turn (the first with an error stops the list; see
    /// [`NameEvent`] for the walk within one). A first pass treats
    /// subqueries as resolving; only when it finds an error are the
    /// subqueries up to it compiled (the program is discarded with the
    /// error) to see which error SQLite meets, so a valid statement pays
    /// one walk and no compile.
    pub fn check_names_in(&mut self, exprs: &[&Expr<'_>]) -> Result<()> {
        let clauses: Vec<NameClause<'_, '_>> = exprs.iter().map(|e| NameClause::new(vec![*e], Allows::ALL)).collect();
        self.check_clauses(&clauses)
    }

    /// [`Self::check_names_in`] for expressions that may hold no aggregate
    /// and no window function (INSERT VALUES, UPDATE, LIMIT: [`Allows`]).
    pub fn check_plain_names_in(&mut self, exprs: &[&Expr<'_>]) -> Result<()> {
        let clauses: Vec<NameClause<'_, '_>> = exprs.iter().map(|e| NameClause::new(vec![*e], Allows::NONE)).collect();
        self.check_clauses(&clauses)
    }

    /// Report the error SQLite's resolver reports for `clauses`, each
    /// resolved in turn (the first with an error stops the list): its
    /// expressions walked as one, with the calls the clause allows, then
    /// its own error if it has one.
    pub fn check_clauses(&mut self, clauses: &[NameClause<'_, '_>]) -> Result<()> {
        let walks: Vec<Vec<NameEvent<'_, '_>>> = clauses.iter().map(|c| c.exprs.iter().flat_map(|e| name_events(e)).collect()).collect();
        // The expression whose running height SQLite's resolver refuses
        // fails as the walk enters it (`parse_limits::DeferredDepth`).
        let (point, max_depth) = (self.names.depth_point, self.env.max_expr_depth);
        let too_deep_at = |k: usize| match point {
            Some(at) if clauses[k].exprs.iter().any(|e| std::ptr::addr_eq(*e, at as *const Expr<'_>)) => {
                Some(Error::sql(format!("Expression tree is too large (maximum depth {max_depth})")))
            }
            _ => None,
        };
        let mut failing = None;
        for (k, events) in walks.iter().enumerate() {
            if too_deep_at(k).is_some() || self.walk_name_events(events, false, clauses[k].allows)?.is_some() || clauses[k].then.is_some() {
                failing = Some(k);
                break;
            }
        }
        let Some(k) = failing else { return Ok(()) };
        for (k, events) in walks[..=k].iter().enumerate() {
            if let Some(e) = too_deep_at(k) {
                return Err(e);
            }
            if let Some(e) = self.walk_name_events(events, true, clauses[k].allows)? {
                return Err(e);
            }
            if let Some(e) = &clauses[k].then {
                return Err(e.clone());
            }
        }
        Ok(())
    }

    /// One expression's walk: the error that stands at its end (`None`:
    /// none). With `compile_subqueries`, a subquery is compiled where it is
    /// met and its error counts; without, it counts as resolving (unless
    /// it holds the height SQLite's resolver refuses,
    /// `sql::parse_limits::DeferredDepth`).
    fn walk_name_events(&mut self, events: &[NameEvent<'_, '_>], compile_subqueries: bool, allows: Allows) -> Result<Option<Error>> {
        let depth_point = self.names.depth_point;
        let mut last: Option<Error> = None;
        let mut open = 0usize;
        // For each open call: (it is an aggregate, it has OVER).
        let mut calls: Vec<(bool, bool)> = Vec::new();
        let mut i = 0;
        while i < events.len() {
            let failure = match &events[i] {
                NameEvent::FunctionStart(call) => {
                    open += 1;
                    let (failure, kind) = match call {
                        Some(x) => self.function_failure(x, &calls, allows),
                        None => (None, (false, false)),
                    };
                    calls.push(kind);
                    // SQLite reports the call's error and walks on into
                    // its arguments and past it: a later error replaces it.
                    if failure.is_some() {
                        last = failure;
                    }
                    None
                }
                NameEvent::FunctionEnd => {
                    open -= 1;
                    calls.pop();
                    None
                }
                // A window's PARTITION BY or ORDER BY: SQLite walks them
                // only while the statement has no error yet.
                // (With no error yet, the window it names is looked up
                // first: one not in the WINDOW clause is an error, and the
                // lists are walked all the same.)
                NameEvent::WindowList(first, named) => {
                    if *first && last.is_some() {
                        i = skip_to_filter(events, i + 1);
                        continue;
                    }
                    if let (Some(n), Some(defs)) = (named, &self.names.window_defs) {
                        if !defs.iter().any(|d| d.eq_ci(n)) {
                            last = Some(Error::sql(format!("no such window: {n}")));
                        }
                    }
                    None
                }
                NameEvent::Filter => {
                    if !calls.last().is_some_and(|&(agg, _)| agg) {
                        i = skip_to_list_end(events, i + 1, false);
                        continue;
                    }
                    None
                }
                NameEvent::Widths(l, r, end) => self.width_failure(l, r, *end, compile_subqueries),
                NameEvent::Node | NameEvent::Parameter | NameEvent::InTable => None,
                NameEvent::Name(q, n, quoted, db, _) => self.name_failure(q.as_deref(), n, *quoted, db.as_deref())?,
                NameEvent::Subquery(s) => {
                    if depth_point.is_some_and(|at| crate::sql::parse_limits::select_holds(s, at)) {
                        let too_deep = Error::sql(format!("Expression tree is too large (maximum depth {})", self.env.max_expr_depth));
                        // (The subquery's FROM clause is expanded before its
                        // names are resolved, an error there comes first;
                        // and a name its own walk meets before the point
                        // fails first: `check_clauses`.)
                        if compile_subqueries {
                            let reg = self.b.reg();
                            let done = self.b.label();
                            match self.compile_select(s, Dest::Scalar { reg, done }) {
                                Err(e) => Some(e),
                                Ok(_) => Some(too_deep),
                            }
                        } else {
                            Some(too_deep)
                        }
                    } else if compile_subqueries {
                        let reg = self.b.reg();
                        let done = self.b.label();
                        // (An error SQLite finds only generating code is
                        // not its resolver's: the subquery resolved.)
                        self.compile_select(s, Dest::Scalar { reg, done }).err().filter(|e| !found_generating_code(e))
                    } else {
                        None
                    }
                }
            };
            // Once an error stands, SQLite's resolver stops at the next
            // node that is not a name or a call (after resolving a
            // subquery there), without replacing the error.
            let stops = failure.is_some()
                || (last.is_some() && matches!(events[i], NameEvent::Node | NameEvent::Parameter | NameEvent::InTable | NameEvent::Subquery(_)));
            i += 1;
            if let Some(e) = failure {
                last = Some(e);
            }
            if !stops {
                continue;
            }
            // The walk stops, up to the innermost function around: its
            // arguments are walked without looking at the outcome.
            if open == 0 {
                break;
            }
            // (Each list of a window function, its arguments, PARTITION
            // BY, ORDER BY, is walked so, one after the other.)
            i = skip_to_list_end(events, i, true);
        }
        Ok(last)
    }

    /// The error SQLite's resolver gives a function call as it meets it,
    /// before its arguments, in the order it checks them (a function
    /// that is not an aggregate with OVER, an aggregate or window
    /// function where the clause or the calls around it allow none, a
    /// window-only function without OVER, an unknown function, a wrong
    /// argument count, FILTER on a function that is not an aggregate),
    /// given the calls around it (see `walk_name_events`) and what the
    /// clause allows; and what the call is, for the calls inside it.
    fn function_failure(&self, call: &Expr<'_>, around: &[(bool, bool)], allows: Allows) -> (Option<Error>, (bool, bool)) {
        let (name, n, over, filter) = match call {
            Expr::FunctionCall { name, args, filter_over, .. } => (
                unquote(name.0),
                args.map_or(0, |a| a.len()),
                filter_over.as_ref().and_then(|f| f.over_clause.as_ref()).is_some(),
                filter_over.as_ref().and_then(|f| f.filter_clause.as_ref()).is_some(),
            ),
            Expr::FunctionCallStar { name, filter_over } => (
                unquote(name.0),
                0,
                filter_over.as_ref().and_then(|f| f.over_clause.as_ref()).is_some(),
                filter_over.as_ref().and_then(|f| f.filter_clause.as_ref()).is_some(),
            ),
            _ => return (None, (false, false)),
        };
        let def = match self.lookup_function(&name, n) {
            Ok(d) => d,
            Err(e) => return (Some(e), (false, false)),
        };
        let window_only = crate::sql::codegen::is_window_only(&name);
        let is_agg = window_only || matches!(def.kind, crate::vdbe::func::FuncKind::Aggregate(_));
        if over && !is_agg {
            return (Some(Error::sql(format!("{name}() may not be used as a window function"))), (false, false));
        }
        let kind = (is_agg, over);
        // (An aggregate without OVER takes no aggregate or window function
        // in its arguments; a window function takes no window function.)
        let aggregates = allows.aggregates && !around.iter().any(|&(agg, over)| agg && !over);
        let windows = allows.windows && !around.iter().any(|&(agg, _)| agg);
        let misused = !aggregates || (window_only && !over) || (over && !windows);
        if is_agg && misused {
            let what = if window_only || over { "window" } else { "aggregate" };
            return (Some(Error::sql(format!("misuse of {what} function {name}()"))), (false, false));
        }
        if !is_agg && filter {
            return (Some(Error::sql(format!("FILTER may not be used with non-aggregate {name}()"))), kind);
        }
        (None, kind)
    }

    /// "row value misused" when `l` and `r` (then `end`, if `r` matched)
    /// differ in width, as SQLite's resolver checks a comparison or a
    /// BETWEEN: inside a SELECT with every `*` expanded, elsewhere as
    /// written (`expr/row_value.rs`). A subquery with a `*` is measured by
    /// compiling it, only on the walk that compiles subqueries (the first
    /// walk counts it as matching).
    fn width_failure(&mut self, l: &Expr<'_>, r: &Expr<'_>, end: Option<&Expr<'_>>, compile_subqueries: bool) -> Option<Error> {
        let expanded = self.names.select_depth > self.names.dml_where_level;
        let mut width = |e: &Expr<'_>| match crate::sql::model::expr_shape::strip_parens(e) {
            Expr::Subquery(sel) if expanded && crate::sql::model::expr_shape::select_has_star(sel) => {
                if compile_subqueries {
                    self.row_width_of(e).ok()
                } else {
                    None
                }
            }
            _ => Some(crate::sql::codegen::expr::row_value::row_width(e)),
        };
        let lw = width(l)?;
        let mut rw = width(r)?;
        if let (true, Some(end)) = (lw == rw, end) {
            rw = width(end)?;
        }
        (lw != rw).then(|| Error::sql("row value misused"))
    }

    /// The error of one column name as the resolver meets it (`None`: it
    /// resolves, or is a string or a result alias).
    fn name_failure(&mut self, q: Option<&str>, n: &str, quoted: bool, db: Option<&str>) -> Result<Option<Error>> {
        let resolved = match db.and_then(|d| self.db_index(d)) {
            Some(di) => crate::sql::resolve::resolve_in(&mut self.names.scopes, Some(di), q, n),
            None => self.resolve_name(q, n),
        };
        // (An ambiguous name fails where the walk meets it, as an unknown
        // one does.)
        let resolved = match resolved {
            Ok(r) => r,
            Err(e) if e.primary() == crate::error::SQLITE_ERROR => return Ok(Some(e)),
            Err(e) => return Err(e),
        };
        if resolved.is_some() {
            return Ok(None);
        }
        if let (Some(d), Some(t)) = (db, q) {
            return Ok(Some(Error::sql(format!("no such column: {d}.{t}.{n}"))));
        }
        if q.is_none() && (quoted || n.eq_ci("true") || n.eq_ci("false")) {
            return Ok(None);
        }
        if q.is_none() && self.alias_visible(n) {
            return Ok(None);
        }
        Ok(Some(crate::sql::resolve::no_such_column(q, n)))
    }
}

/// What SQLite's resolver lets the calls of a clause be (its name
/// context's NC_AllowAgg and NC_AllowWin): an aggregate or a window
/// function where the clause allows none is "misuse of aggregate (window)
/// function X()", an error the walk meets at the call. A result list and
/// ORDER BY allow both; HAVING and WHERE (with the ON clauses) allow
/// aggregates in an aggregate query only, GROUP BY aggregates (refused
/// after the clause is resolved), and the expressions of INSERT VALUES,
/// UPDATE, DELETE, LIMIT and the second walk of RETURNING neither.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Allows {
    pub aggregates: bool,
    pub windows: bool,
}

impl Allows {
    pub const ALL: Allows = Allows { aggregates: true, windows: true };
    pub const NONE: Allows = Allows { aggregates: false, windows: false };
}

/// One clause of [`Compiler::check_clauses`]: expressions walked as one
/// (a WHERE clause with its ON clauses), what its calls may be, and an
/// error the resolver reports once they resolved (an ORDER BY ordinal past
/// the result columns), or in their place when there are none.
pub struct NameClause<'a, 'b> {
    pub exprs: Vec<&'a Expr<'b>>,
    pub allows: Allows,
    pub then: Option<Error>,
}

impl<'a, 'b> NameClause<'a, 'b> {
    pub fn new(exprs: Vec<&'a Expr<'b>>, allows: Allows) -> Self {
        NameClause { exprs, allows, then: None }
    }
}

/// The clauses of an ORDER BY (`kind` "ORDER", its terms naming a result
/// alias left out) or GROUP BY ("GROUP") list of a SELECT of `n` result
/// columns, as SQLite's resolveOrderGroupBy takes them: each term resolved
/// on its own, but an integer (through COLLATE and parentheses) names a
/// result column and is not resolved; one outside 1..=65535 fails where it
/// stands, one past the result columns once every term resolved.
pub(in crate::sql::codegen) fn order_or_group_clauses<'a, 'b>(
    terms: impl Iterator<Item = &'a Expr<'b>>,
    kind: &str,
    n: usize,
    allows: Allows,
    out: &mut Vec<NameClause<'a, 'b>>,
) {
    let out_of_range = |i: usize| Error::sql(format!("{} {kind} BY term out of range - should be between 1 and {n}", crate::sql::parse::ordinal(i + 1)));
    let mut past = None;
    for (i, e) in terms.enumerate() {
        let inner = crate::sql::model::expr_shape::strip_collate_and_parens(e);
        match crate::sql::model::expr_shape::parse_time_integer(inner).filter(|k| i32::try_from(*k).is_ok()) {
            Some(k) if !(1..=0xffff).contains(&k) => {
                out.push(NameClause { exprs: Vec::new(), allows, then: Some(out_of_range(i)) });
                return;
            }
            Some(k) => {
                if k as usize > n && past.is_none() {
                    past = Some(i);
                }
            }
            None => out.push(NameClause::new(vec![e], allows)),
        }
    }
    if let Some(i) = past {
        out.push(NameClause { exprs: Vec::new(), allows, then: Some(out_of_range(i)) });
    }
}

/// Whether `e`, met compiling a subquery, is an error SQLite reports only
/// while generating code, after every name of the statement resolved: an
/// unknown collation, an aggregate of an enclosing query where that
/// query computes none, a subquery of the wrong width.
pub(in crate::sql::codegen) fn found_generating_code(e: &Error) -> bool {
    let m = e.message.as_str();
    m.starts_with("no such collation sequence: ") || m.starts_with("misuse of aggregate: ") || m.starts_with("sub-select returns ")
}

/// Whether the operands of a comparison (`end`: BETWEEN's second bound)
/// differ in width as written, a subquery's `*` counting as one column
/// (SQLite's check outside a SELECT, where no `*` is expanded yet).
pub(in crate::sql::codegen) fn written_widths_differ(l: &Expr<'_>, r: &Expr<'_>, end: Option<&Expr<'_>>) -> bool {
    use crate::sql::codegen::expr::row_value::row_width;
    let lw = row_width(l);
    match end {
        Some(end) if row_width(r) == lw => row_width(end) != lw,
        _ => row_width(r) != lw,
    }
}

/// The index of the event ending the list of the innermost function
/// around `i` (its `FunctionEnd`, or with `at_window_list` the next
/// `WindowList` of that function).
pub(in crate::sql::codegen) fn skip_to_list_end(events: &[NameEvent<'_, '_>], mut i: usize, at_window_list: bool) -> usize {
    let mut nested = 0usize;
    while i < events.len() {
        match events[i] {
            NameEvent::FunctionStart(_) => nested += 1,
            NameEvent::FunctionEnd if nested == 0 => break,
            NameEvent::WindowList(..) | NameEvent::Filter if nested == 0 && at_window_list => break,
            NameEvent::FunctionEnd => nested -= 1,
            _ => {}
        }
        i += 1;
    }
    i
}

/// The index of the innermost function's FILTER clause after `i`, or of
/// its end (a window function's lists skipped).
fn skip_to_filter(events: &[NameEvent<'_, '_>], mut i: usize) -> usize {
    let mut nested = 0usize;
    while i < events.len() {
        match events[i] {
            NameEvent::FunctionStart(_) => nested += 1,
            NameEvent::FunctionEnd | NameEvent::Filter if nested == 0 => break,
            NameEvent::FunctionEnd => nested -= 1,
            _ => {}
        }
        i += 1;
    }
    i
}

/// What SQLite's resolver meets walking one expression, in its order: a
/// column name, a subquery (resolved in place, an IN's before its left side),
/// and the bounds of a function's arguments (LIKE's pattern before its
/// left side, as SQLite's parser makes `like(pattern, x)`). A name or
/// subquery that fails stops the walk, but a function walks its
/// arguments without looking at the outcome, so the walk goes on after
/// the function and a later error replaces the message
/// (`abs(nosuch1) * nosuch2` is "nosuch2").
pub(in crate::sql::codegen) enum NameEvent<'a, 'b> {
    /// (qualifier, name, double-quoted, the database of `db.t.c`, the
    /// name's expression)
    Name(Option<String>, String, bool, Option<String>, &'a Expr<'b>),
    Subquery(&'a ast::Select<'b>),
    /// A call (`None`: LIKE, GLOB, MATCH, REGEXP), before its arguments.
    FunctionStart(Option<&'a Expr<'b>>),
    /// Any other node (an operator, a literal, CASE, CAST, COLLATE, a
    /// row value...), met before its operands.
    Node,
    /// A parameter: a node, which a table's own expressions may not hold.
    Parameter,
    /// `x IN table`: a node here (the table's errors are the code
    /// generator's), a subquery to a table's own expressions.
    InTable,
    /// The operands of a comparison (or BETWEEN, with its bounds) one of
    /// which may be a row: SQLite's resolver refuses operands of
    /// different widths as it enters the node ("row value misused"),
    /// which stops the walk as a failing name does.
    Widths(&'a Expr<'b>, &'a Expr<'b>, Option<&'a Expr<'b>>),
    /// The start of a window function's PARTITION BY (`true`, with the
    /// window it names: `OVER w`, `OVER (w ...)`) or ORDER BY list.
    WindowList(bool, Option<String>),
    /// The start of a call's FILTER clause, walked only for an aggregate.
    Filter,
    FunctionEnd,
}

pub(in crate::sql::codegen) fn name_events<'a, 'b>(e: &'a Expr<'b>) -> Vec<NameEvent<'a, 'b>> {
    let events = std::cell::RefCell::new(Vec::new());
    collect_name_events(e, &events);
    events.into_inner()
}

/// The operand of a null test (`x IS NULL`, `x IS NOT NULL`, `x ISNULL`,
/// `x NOTNULL`), through single parentheses.
fn null_test_operand<'a, 'b>(e: &'a Expr<'b>) -> Option<&'a Expr<'b>> {
    match crate::sql::model::expr_shape::strip_parens(e) {
        Expr::IsNull(y) | Expr::NotNull(y) => Some(y),
        Expr::Binary(l, ast::Operator::Is | ast::Operator::IsNot, r)
            if matches!(crate::sql::model::expr_shape::strip_parens(r), Expr::Literal(ast::Literal::Null)) =>
        {
            Some(l)
        }
        _ => None,
    }
}

/// A chain of null tests: SQLite's ISNULL/NOTNULL nodes each walk their
/// operand as a call walks its arguments. Peeled in a loop, so a chain of
/// any length (`0 IS NULL IS NULL ...`, which SQLite's parser folds) costs
/// no stack per level.
fn null_test_chain<'a, 'b>(e: &'a Expr<'b>, out: &std::cell::RefCell<Vec<NameEvent<'a, 'b>>>) {
    let (mut cur, mut levels) = (e, 0usize);
    while let Some(operand) = null_test_operand(cur) {
        out.borrow_mut().push(NameEvent::FunctionStart(None));
        levels += 1;
        cur = operand;
    }
    debug_assert!(levels > 0, "null_test_chain is called on a null test");
    collect_name_events(cur, out);
    out.borrow_mut().extend((0..levels).map(|_| NameEvent::FunctionEnd));
}

fn collect_name_events<'a, 'b>(e: &'a Expr<'b>, out: &std::cell::RefCell<Vec<NameEvent<'a, 'b>>>) {
    crate::sql::model::expr_shape::walk(e, &mut |x| {
        // (The IN node resolves its SELECT before its left side;
        // `x IN ((SELECT ...))` is one too.)
        if let Some((lhs, _, rhs)) = crate::sql::model::expr_shape::as_in_select(x) {
            out.borrow_mut().push(NameEvent::Subquery(rhs));
            collect_name_events(lhs, out);
            return false;
        }
        if let Expr::Binary(l, op, r) = x {
            use ast::Operator::*;
            let right = crate::sql::model::expr_shape::strip_collate_and_parens(r);
            if matches!(op, Is | IsNot) {
                // `x IS NULL` is SQLite's ISNULL node: it walks its operand
                // and goes on whatever the outcome, as a call does.
                if matches!(crate::sql::model::expr_shape::strip_parens(r), Expr::Literal(ast::Literal::Null)) {
                    null_test_chain(x, out);
                    return false;
                }
                // `x IS name` resolves the name first (for IS TRUE).
                if let Expr::Id(id) = right {
                    out.borrow_mut().push(NameEvent::Name(None, unquote(id.0), id.0.starts_with('"'), None, right));
                }
            }
            out.borrow_mut().push(NameEvent::Node);
            if matches!(op, Equals | NotEquals | Less | LessEquals | Greater | GreaterEquals | Is | IsNot) && (may_be_row(l) || may_be_row(r)) {
                out.borrow_mut().push(NameEvent::Widths(l, r, None));
            }
            return true;
        }
        if let Expr::Between { lhs, start, end, .. } = x {
            out.borrow_mut().push(NameEvent::Node);
            if may_be_row(lhs) || may_be_row(start) || may_be_row(end) {
                out.borrow_mut().push(NameEvent::Widths(lhs, start, Some(end)));
            }
            return true;
        }
        let event = match x {
            Expr::Id(id) => NameEvent::Name(None, unquote(id.0), id.0.starts_with('"'), None, x),
            Expr::Qualified(t, c) => NameEvent::Name(Some(unquote(t.0)), unquote(c.0), false, None, x),
            Expr::DoublyQualified(d, t, c) => NameEvent::Name(Some(unquote(t.0)), unquote(c.0), false, Some(unquote(d.0)), x),
            Expr::Subquery(s) | Expr::Exists(s) => NameEvent::Subquery(s),
            // (The parser makes no node of parentheses around one
            // expression.)
            Expr::Parenthesized(v) if v.len() == 1 => return true,
            Expr::Variable(_) => NameEvent::Parameter,
            Expr::InTable { .. } => NameEvent::InTable,
            // (SQLite's parser makes CURRENT_TIME and the others calls.)
            Expr::Literal(ast::Literal::CurrentDate | ast::Literal::CurrentTime | ast::Literal::CurrentTimestamp) => {
                out.borrow_mut().push(NameEvent::FunctionStart(Some(x)));
                out.borrow_mut().push(NameEvent::FunctionEnd);
                return false;
            }
            Expr::IsNull(_) | Expr::NotNull(_) => {
                null_test_chain(x, out);
                return false;
            }
            Expr::FunctionCall { .. } | Expr::FunctionCallStar { .. } | Expr::Like { .. } => {
                let call = if matches!(x, Expr::Like { .. }) { None } else { Some(x) };
                out.borrow_mut().push(NameEvent::FunctionStart(call));
                match x {
                    Expr::Like { lhs, rhs, escape, .. } => {
                        collect_name_events(rhs, out);
                        collect_name_events(lhs, out);
                        if let Some(esc) = escape {
                            collect_name_events(esc, out);
                        }
                    }
                    _ => {
                        // (Its arguments, ORDER BY and FILTER, as the
                        // shape walk visits them.)
                        if let Expr::FunctionCall { args, order_by, .. } = x {
                            for a in args.iter().flat_map(|a| a.iter()) {
                                collect_name_events(a, out);
                            }
                            if let Some(ast::FunctionCallOrder::SortList(terms)) = order_by {
                                for t in terms.iter() {
                                    collect_name_events(&t.expr, out);
                                }
                            }
                        }
                        // A window function's PARTITION BY and ORDER BY
                        // are resolved with it, after its arguments, then
                        // its FILTER clause.
                        let tail = match x {
                            Expr::FunctionCall { filter_over, .. } | Expr::FunctionCallStar { filter_over, .. } => filter_over.as_ref(),
                            _ => None,
                        };
                        match tail.and_then(|t| t.over_clause) {
                            Some(ast::Over::Window(w)) => {
                                out.borrow_mut().push(NameEvent::WindowList(true, w.base.as_ref().map(|b| unquote(b.0))));
                                for p in w.partition_by.iter().flat_map(|p| p.iter()) {
                                    collect_name_events(p, out);
                                }
                                out.borrow_mut().push(NameEvent::WindowList(false, None));
                                for o in w.order_by.iter().flat_map(|o| o.iter()) {
                                    collect_name_events(&o.expr, out);
                                }
                            }
                            Some(ast::Over::Name(n)) => out.borrow_mut().push(NameEvent::WindowList(true, Some(unquote(n.0)))),
                            None => {}
                        }
                        if let Some(f) = tail.and_then(|t| t.filter_clause) {
                            out.borrow_mut().push(NameEvent::Filter);
                            collect_name_events(f, out);
                        }
                    }
                }
                out.borrow_mut().push(NameEvent::FunctionEnd);
                return false;
            }
            _ => {
                out.borrow_mut().push(NameEvent::Node);
                return true;
            }
        };
        out.borrow_mut().push(event);
        true
    });
}
