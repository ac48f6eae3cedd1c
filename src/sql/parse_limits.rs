//! The limits SQLite enforces while it parses a statement, checked on the
//! parsed tree before anything else looks at it: the expression height
//! (`SQLITE_LIMIT_EXPR_DEPTH`, "Expression tree is too large (maximum depth
//! N)"), function arguments (`SQLITE_LIMIT_FUNCTION_ARG`), compound
//! SELECT terms (`SQLITE_LIMIT_COMPOUND_SELECT`) and, of
//! `SQLITE_LIMIT_COLUMN`, the columns of CREATE TABLE (those of CREATE
//! INDEX once its table and name are checked, by the compiler), UPDATE's
//! SET list and the terms of ORDER BY, GROUP BY and PARTITION BY.
//! (A result set's width is known only once `*` is expanded: the compiler
//! checks it, `Compiler::expand_result_columns`; parameters are checked as
//! they are numbered, `Compiler::variable`.)
//!
//! Why here: the compiler's walks over expressions recurse, and so does its
//! cost per level; a statement past these limits would exhaust the stack
//! or take minutes. Once it passes this check every tree the compiler sees
//! is at most `EXPR_DEPTH` heights and `PARSER_DEPTH` nestings deep (the
//! parser's stack depth, `SQLITE_LIMIT_PARSER_DEPTH`, "Recursion limit",
//! is enforced by the parser itself as its stack grows:
//! `sql::parse::parser_stack_limit`).
//!
//! Stack: the compiler's recursive walks run on stacks grown by `stacker`
//! (`sql::parse::with_stack`: when less than 1 MiB is left, an 8 MiB
//! segment is mapped). A statement at the limits (1,000 heights, 2,493
//! nested parentheses, 43 nested scalar subqueries, 414 nested FROM
//! subqueries) prepares and runs on a thread with a 32 KiB stack (tested
//! with 256 KiB in `sql_limits_hostile`). Without the grown segments it
//! would need, in a release build (measured by painting a thread's stack):
//! 1.8 MiB for 1,000 heights of operators, 1.6 MiB for 831 nested calls,
//! 4.0 MiB for 2,493 nested parentheses, 3.4 MiB for 414 nested FROM
//! subqueries, 0.4 MiB for 43 nested scalar subqueries: about 1.7 KiB per
//! level, far more than the 256 KiB a Python or Go thread may have.
//!
//! Heights follow SQLite's rules: a leaf is 1, a node is one more than its
//! highest child, parentheses add no node (a row value does), `t.c` is a
//! node over two leaves, a subquery's height is that of the highest
//! expression of its result columns, WHERE, GROUP BY, HAVING, ORDER BY and
//! LIMIT (not of its FROM clause). Name resolution adds the heights of the
//! expressions enclosing a scalar subquery to its own, so nested scalar
//! subqueries reach the limit after about 44 levels, as in SQLite.
//!
//! SQLite's parser checks each node it builds, except a CAST: a CAST
//! chain passes the parser whatever its height, the node above it (if
//! any) fails, and the resolver refuses the whole expression's height
//! where it resolves one (the [`Nesting`] walk; CHECK, generated columns
//! and index terms as the statement ends): not in CREATE VIEW or CREATE
//! TRIGGER, whose bodies are resolved when read or fired. The parser
//! also refuses a FROM list of more than 200 terms (`MAX_SRCLIST`). The
//! heights SQLite's code generator builds (the count-of-view sum, the LIKE
//! optimization's range terms) are the compiler's to check
//! (`StatementState::codegen_error`); those of the expressions a parse
//! built before its stack overflowed, [`built_error`]'s.
//!
//! The running height of nested subqueries is SQLite's resolver's check,
//! not its parser's: it fails when the resolver enters the expression, so
//! a name that does not resolve before it wins. It is handed back as a
//! [`DeferredDepth`] for the compiler to raise at that expression.
//!
//! An AND that SQLite's parser folds to the literal 0 (`x AND 0`, the
//! parser's `Expr::FoldedAnd`) is a leaf of height 1, and what it dropped
//! holds no subquery for the running height; its operands are checked on
//! their own, a folded chain of any length in a loop (`Walk::folded_and`).
//!
//! Invariant: the walk itself recurses at most once per height or
//! parenthesis, stops at the first limit exceeded, and runs on a grown
//! stack (`with_stack`) at each subquery, so it cannot overflow the stack.

use crate::error::{Error, Result, SQLITE_INTERRUPT};
use sqlite3_parser::ast::{
    self, Cmd, Expr, FromClause, InsertBody, OneSelect, ResultColumn, Select, SelectTable, SortedColumn, Stmt, TriggerCmd, UnaryOperator, Upsert, UpsertDo,
};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};

/// The limits a statement is checked against (a connection's
/// `sqlite3_limit` values).
#[derive(Clone, Copy, Debug)]
pub struct ParseLimits {
    /// `SQLITE_LIMIT_EXPR_DEPTH`.
    pub expr_depth: usize,
    /// `SQLITE_LIMIT_PARSER_DEPTH`: not checked here, the parser enforces
    /// it as its stack grows (`sql::parse::parser_stack_limit`).
    pub parser_depth: usize,
    /// `SQLITE_LIMIT_COLUMN`.
    pub columns: usize,
    /// `SQLITE_LIMIT_COMPOUND_SELECT` (0: no limit).
    pub compound: usize,
    /// `SQLITE_LIMIT_FUNCTION_ARG`.
    pub function_args: usize,
}

impl ParseLimits {
    /// Limits that never refuse anything.
    const NONE: ParseLimits = ParseLimits { expr_depth: usize::MAX, parser_depth: usize::MAX, columns: usize::MAX, compound: 0, function_args: usize::MAX };
}

/// How deep [`is_constant`] looks (the tree is not checked yet): deeper
/// than any tree within the limits of heights and parser entries.
const CONSTANT_BUDGET: usize = 4096;
/// The interrupt flag is polled once per this many expressions walked.
const POLL_NODES: u32 = 4096;

/// Name resolution's height check failing at one expression: SQLite
/// makes it when its resolver enters that expression, after resolving the
/// names met before it, so a name that does not resolve there wins. The
/// compiler fails at the expression (`Compiler::depth_point`), or after
/// compiling when it never passed it.
#[derive(Debug)]
pub struct DeferredDepth {
    /// The expression's address in the statement's tree (0: none, the
    /// failure stands after the FROM clauses are expanded).
    pub expr: usize,
    pub error: Error,
    /// The height SQLite meets only once the FROM clauses are expanded
    /// (see [`Walk::after_expansion`]): an error expanding them (a missing
    /// table, views or CTEs nested too deep) is reported instead.
    pub after_expansion: bool,
}

/// Whether `e` is an error SQLite meets while expanding FROM clauses
/// (before it resolves any name or checks a height of one leaf): it wins
/// over a [`DeferredDepth::after_expansion`] failure.
pub fn is_expansion_error(e: &Error) -> bool {
    let m = e.message.as_str();
    m == "VIEWs and/or subqueries nested too deep"
        || m.starts_with("no such table: ")
        || m.starts_with("circular reference: ")
        || m.starts_with("too many references to ")
}

/// Check `cmd` against `limits`; `interrupt` is polled at each subquery
/// (`sqlite3_interrupt` stops a prepare as SQLite's parser does). The
/// parser's limits fail at once; the height reached through nested
/// subqueries, which SQLite checks while resolving names, is handed back.
pub fn check(cmd: &Cmd<'_>, limits: ParseLimits, interrupt: Option<&AtomicBool>) -> Result<Option<DeferredDepth>> {
    check_as(cmd, limits, interrupt, false, false, None)
}

/// [`check`] of a statement being prepared (not one of the schema): also
/// the checks SQLite's parser makes only then (`check_eidlist`).
/// `constant`: which function calls are constant (see [`ConstantFn`]).
pub fn check_prepared(cmd: &Cmd<'_>, limits: ParseLimits, interrupt: Option<&AtomicBool>, constant: Option<ConstantFn<'_>>) -> Result<Option<DeferredDepth>> {
    check_as(cmd, limits, interrupt, false, true, constant)
}

fn check_as(
    cmd: &Cmd<'_>,
    limits: ParseLimits,
    interrupt: Option<&AtomicBool>,
    stored_leaves: bool,
    eidlist: bool,
    constant_fn: Option<ConstantFn<'_>>,
) -> Result<Option<DeferredDepth>> {
    let stmt = match cmd {
        Cmd::Stmt(s) => s,
        Cmd::Explain(s) | Cmd::ExplainQueryPlan(s) => s,
    };
    let mut w = Walk { constant_fn, interrupt, stored_leaves, eidlist, ..Walk::new(limits) };
    // (An interrupt that came during the parse, which polls nothing,
    // stops the prepare before any limit error is reported.)
    w.poll()?;
    crate::sql::parse::with_stack(|| w.stmt(stmt))?;
    // (A trigger's body and a view's SELECT are not resolved when they
    // are created: only their parser's heights count there.)
    let resolved = !matches!(stmt, Stmt::CreateTrigger { .. } | Stmt::CreateView { .. });
    match (w.deferred, w.after_expansion, w.after_resolve) {
        (_, _, Some(error)) if !resolved => Err(error),
        (Some(d), ..) => Ok(Some(d)),
        (None, Some(error), _) if resolved => Ok(Some(DeferredDepth { expr: 0, error, after_expansion: true })),
        (None, None, Some(error)) => Ok(Some(DeferredDepth { expr: 0, error, after_expansion: false })),
        (None, ..) => Ok(None),
    }
}

/// The limit SQLite's parser meets in an unterminated statement (or a
/// huge statement's prefix, `sql::huge_prefix`) before it runs out of
/// input: "Recursion limit" where the parser's stack overflows, else an
/// expression built too high ("Expression tree is too large"), not
/// "incomplete input". For the heights the parser crate gives no tree,
/// so the statement is completed (its open parentheses closed, after an
/// operand or a table name where one is missing) and the completed tree
/// checked: closing only reduces what was read, so a limit it breaks was
/// broken by the text read. `None`: no completion parses, or it breaks
/// no limit (the error is "incomplete input"). Checked against SQLite
/// 3.54.1 in `tests/engine/sql_limits_hostile.rs`.
pub fn limit_error_in_unterminated(sql: &[u8], limits: ParseLimits) -> Option<Error> {
    // Where the parser's stack overflows SQLite stops reading with
    // "Recursion limit". (A completion of the text read before it would
    // build the nodes still open on the stack, which SQLite never built:
    // their heights are not its error.)
    if let Some(e) = crate::sql::parse::stack_overflow_error(sql, limits.parser_depth, &|built| built_error(built, limits, None)) {
        return Some(e);
    }
    height_error_in_unterminated(sql, limits)
}

/// The first limit SQLite's parser met building `exprs` (complete
/// expressions, in the order read; `None`: none): the expressions a parse
/// built before its stack overflowed (`sql::parse::BuiltCheck`), each
/// checked as on its own.
pub fn built_error(exprs: &[&Expr<'_>], limits: ParseLimits, constant_fn: Option<ConstantFn<'_>>) -> Option<Error> {
    let mut w = Walk { constant_fn, ..Walk::new(limits) };
    crate::sql::parse::with_stack(|| exprs.iter().try_for_each(|e| w.expr(e, 0).map(|_| ()))).err()
}

fn height_error_in_unterminated(sql: &[u8], limits: ParseLimits) -> Option<Error> {
    use sqlite3_parser::dialect::TokenType;
    let mut open = 0usize;
    for t in crate::sql::parse::tokens(sql) {
        match t.kind {
            TokenType::TK_LP => open += 1,
            TokenType::TK_RP => open = open.saturating_sub(1),
            _ => {}
        }
    }
    let closing = ")".repeat(open);
    let expr_limit = limits.expr_depth;
    for operand in ["", " 1", " t"] {
        // (An added operand is one height more.)
        let limits = ParseLimits { expr_depth: limits.expr_depth.saturating_add(usize::from(!operand.is_empty())), ..limits };
        let mut text = sql.to_vec();
        text.extend_from_slice(operand.as_bytes());
        text.extend_from_slice(closing.as_bytes());
        let verdict = crate::sql::parse::with_first_statement(&text, |cmd, _| match cmd {
            // (The running height through subqueries is the resolver's,
            // which an unterminated statement never reaches.)
            Some(cmd) => check(cmd, limits, None).map(|_| ()),
            None => Ok(()),
        });
        match verdict {
            Ok(()) => return None,
            // (Named with the limit as set, not as raised above.)
            Err(e) if e.message.starts_with("Expression tree is too large") => return Some(too_deep(expr_limit)),
            Err(_) => continue,
        }
    }
    None
}

struct Walk<'i> {
    /// Which function calls are constant (`x IN (f(1))` is `x == +f(1)`).
    constant_fn: Option<ConstantFn<'i>>,
    /// The first height past the limit name resolution would meet.
    deferred: Option<DeferredDepth>,
    limits: ParseLimits,
    interrupt: Option<&'i AtomicBool>,
    /// Inside CREATE VIEW: SQLite checks a view's SELECT when it is used.
    in_view: bool,
    /// The VALUES being walked is an INSERT's single row (not a result
    /// set: its width is checked against the table's columns instead).
    insert_row: bool,
    /// Expressions walked, for polling the interrupt flag.
    nodes: u32,
    /// The address of an expression known not to be a null test that
    /// SQLite's parser folds ([`Walk::folded_null_test`]): the walk below
    /// a chain that failed is not done again at each of its levels.
    no_fold: usize,
    /// A subquery inside an expression was walked: only then (or with
    /// [`Walk::cast_over`]) can the running height through subqueries
    /// ([`Nesting`]) exceed the limit when every expression's own height
    /// is within it, so without one that second walk is skipped (a
    /// 100,000-row VALUES paid it).
    saw_expr_subquery: bool,
    /// A CAST higher than the limit was walked with no checked node above
    /// it: the parser let it pass, the resolver's check of the whole
    /// expression ([`Nesting`]) may not.
    cast_over: bool,
    /// The first height past the limit that SQLite meets only after it
    /// expanded the FROM clauses: a column `*` expands to (`t.c` and
    /// `t.c` qualified are built then), and at a limit of 0 a leaf (its
    /// height is checked by the resolver, not the parser).
    after_expansion: Option<Error>,
    /// Too many ORDER BY, GROUP BY or PARTITION BY terms: SQLite meets
    /// that while resolving names, after the errors of expanding and
    /// resolving the statement, so the error stands only when the compile
    /// succeeds (a statement SQLite does not resolve, CREATE TRIGGER,
    /// still fails on it at once).
    after_resolve: Option<Error>,
    /// The statement is an INSERT, UPDATE or DELETE of a trigger's body,
    /// which SQLite keeps in reduced copies whose leaves hold no height:
    /// they add nothing to the running height through subqueries.
    stored_leaves: bool,
    /// Refuse COLLATE and ASC/DESC after a name of a column-name list (of
    /// a CTE, a view, a foreign key), as SQLite's parser does outside of
    /// reading the schema: statements being prepared, not stored ones.
    eidlist: bool,
}

impl Walk<'_> {
    /// A walk checking `limits`, outside any view, trigger body or
    /// column-name list, with no interrupt flag and no constant functions.
    fn new(limits: ParseLimits) -> Self {
        Walk {
            constant_fn: None,
            deferred: None,
            limits,
            interrupt: None,
            in_view: false,
            insert_row: false,
            nodes: 0,
            no_fold: 0,
            saw_expr_subquery: false,
            cast_over: false,
            after_expansion: None,
            after_resolve: None,
            stored_leaves: false,
            eidlist: false,
        }
    }
}

/// SQLite's parser error for a column-name list (`eidlist`) holding
/// COLLATE or a sort order, which it accepts only in a stored schema.
fn check_eidlist(eidlist: bool, cols: Option<&[ast::IndexedColumn<'_>]>) -> Result<()> {
    if !eidlist {
        return Ok(());
    }
    match cols.into_iter().flatten().find(|c| c.collation_name.is_some() || c.order.is_some()) {
        Some(c) => Err(Error::sql(format!("syntax error after column name \"{}\"", c.col_name.0))),
        None => Ok(()),
    }
}

/// An expression SQLite's parser builds without checking its height (a
/// name, a literal or a parameter, in parentheses or not).
fn is_leaf(e: &Expr<'_>) -> bool {
    match e {
        Expr::Id(_) | Expr::Literal(_) | Expr::Name(_) | Expr::Variable(_) => true,
        Expr::Parenthesized(v) => v.len() == 1 && is_leaf(&v[0]),
        _ => false,
    }
}

/// The heights SQLite's resolver checks in `e` when a statement stored in
/// the schema is compiled (a trigger's WHEN clause, each time the trigger
/// is coded): its own height and, through its subqueries, the running
/// height of the expressions around them, against `expr_depth`.
/// (SQLite keeps the clause as a reduced copy whose leaves hold no height:
/// they add nothing to the running height through its subqueries.)
pub fn check_resolved_heights(e: &Expr<'_>, expr_depth: usize) -> Result<()> {
    let limits = ParseLimits { expr_depth, ..ParseLimits::NONE };
    let mut w = Walk { stored_leaves: true, ..Walk::new(limits) };
    crate::sql::parse::with_stack(|| w.expr(e, 0))?;
    if let Some(error) = w.after_expansion.or(w.after_resolve) {
        return Err(error);
    }
    if w.saw_expr_subquery || w.cast_over {
        let nesting = Nesting::new(expr_depth, true);
        if let Some(d) = nesting.deferred(nesting.expr(e, 0)) {
            return Err(d.error);
        }
    }
    Ok(())
}

/// The heights SQLite's resolver checks in one statement of a trigger's
/// body (`cmd`, reparsed from the body's text) when it codes the trigger:
/// a SELECT as a statement of its own; an INSERT, UPDATE or DELETE from
/// the reduced copies SQLite stores, whose leaves add nothing to the
/// running height through a subquery.
pub fn check_trigger_statement(cmd: &Cmd<'_>, expr_depth: usize) -> Result<()> {
    let limits = ParseLimits { expr_depth, ..ParseLimits::NONE };
    let select = matches!(cmd, Cmd::Stmt(Stmt::Select(_)));
    match check_as(cmd, limits, None, !select, false, None)? {
        Some(d) => Err(d.error),
        None => Ok(()),
    }
}

/// How many arms of a UNION ALL SQLite's parser makes of a VALUES list
/// of `rows` (`sqlite3MultiValues`): with `apart` (a WITH was read before
/// it, or it is parsed from the schema), one per row; else rows go into
/// one co-routine (one arm) while each is constant and the row before it
/// has no affinity (no CAST), and a row that breaks that is an arm of
/// its own, the next ones starting a co-routine again.
pub fn values_arms<'a, R: std::ops::Deref<Target = [Expr<'a>]>>(rows: &[R], apart: bool, constant_fn: Option<ConstantFn<'_>>) -> usize {
    let constant = |row: &[Expr<'_>]| row.iter().all(|e| is_constant(e, CONSTANT_BUDGET, constant_fn));
    let no_affinity = |row: &[Expr<'_>]| constant(row) && !row.iter().any(has_cast_affinity);
    let (mut arms, mut coroutine) = (usize::from(!rows.is_empty()), false);
    for pair in rows.windows(2) {
        if apart || !constant(&pair[1]) || (!coroutine && !no_affinity(&pair[0])) {
            arms += 1;
            coroutine = false;
        } else {
            coroutine = true;
        }
    }
    arms
}

/// Whether SQLite gives `e` an affinity of its own at the top (a CAST,
/// under COLLATE or parentheses).
fn has_cast_affinity(e: &Expr<'_>) -> bool {
    match e {
        Expr::Cast { .. } => true,
        Expr::Collate(x, _) => has_cast_affinity(x),
        Expr::Parenthesized(v) => v.first().is_some_and(has_cast_affinity),
        _ => false,
    }
}

fn too_deep(max: usize) -> Error {
    Error::sql(format!("Expression tree is too large (maximum depth {max})"))
}

/// Whether a call of the function named so, with that many arguments,
/// is constant for its constant arguments (SQLite: a deterministic scalar
/// function, `SQLITE_FUNC_CONSTANT`).
pub type ConstantFn<'a> = &'a dyn Fn(&str, usize) -> bool;

/// Whether SQLite's parser would call `e` constant where it rewrites
/// `x IN (e)` as `x == +e` (literals, operators and calls of `constant`
/// functions over them; no function is without `constant`). The tree is
/// not checked yet: past `budget` levels it is taken as not constant (it
/// is then refused as too deep anyway).
fn is_constant(e: &Expr<'_>, budget: usize, constant: Option<ConstantFn<'_>>) -> bool {
    let Some(b) = budget.checked_sub(1) else { return false };
    let c = |x: &Expr<'_>| is_constant(x, b, constant);
    match e {
        Expr::FunctionCall { name, distinctness: None, args, order_by: None, filter_over: None } => {
            let args = args.unwrap_or(&[]);
            constant.is_some_and(|f| f(&crate::sql::parse::unquote(name.0), args.len())) && args.iter().all(c)
        }
        Expr::FunctionCallStar { name, filter_over: None } => constant.is_some_and(|f| f(&crate::sql::parse::unquote(name.0), 0)),
        Expr::Literal(_) | Expr::Variable(_) => true,
        Expr::Unary(_, x) | Expr::Collate(x, _) | Expr::Cast { expr: x, .. } | Expr::IsNull(x) | Expr::NotNull(x) => c(x),
        Expr::Binary(l, _, r) => c(l) && c(r),
        Expr::Parenthesized(v) => v.len() == 1 && c(&v[0]),
        Expr::InList { lhs, rhs, .. } => c(lhs) && rhs.iter().flat_map(|r| r.iter()).all(c),
        Expr::Between { lhs, start, end, .. } => c(lhs) && c(start) && c(end),
        Expr::Like { lhs, rhs, escape, .. } => c(lhs) && c(rhs) && escape.is_none_or(&c),
        Expr::Case { base, when_then_pairs, else_expr } => base.is_none_or(&c) && when_then_pairs.iter().all(|(w, t)| c(w) && c(t)) && else_expr.is_none_or(&c),
        _ => false,
    }
}

impl Walk<'_> {
    fn poll(&self) -> Result<()> {
        if self.interrupt.is_some_and(|f| f.load(Ordering::Relaxed)) {
            return Err(Error::code(SQLITE_INTERRUPT));
        }
        Ok(())
    }

    /// The height of `e`, which has `td` height-counting nodes above it in its statement's tree.
    /// Every node's height is checked, as SQLite checks each one it builds.
    fn expr(&mut self, e: &Expr<'_>, td: usize) -> Result<usize> {
        // (A leaf does not recurse: no stack check, which long lists of
        // literals would pay per item.)
        if matches!(e, Expr::Id(_) | Expr::Literal(_) | Expr::Name(_) | Expr::Variable(_)) {
            return self.expr_inner(e, td);
        }
        crate::sql::parse::with_stack(|| self.expr_inner(e, td))
    }

    fn expr_inner(&mut self, e: &Expr<'_>, td: usize) -> Result<usize> {
        // `sqlite3_interrupt` polled every POLL_NODES expressions: a
        // million-term list stops within a bounded time.
        self.nodes = self.nodes.wrapping_add(1);
        if self.nodes.is_multiple_of(POLL_NODES) {
            self.poll()?;
        }
        let max = self.limits.expr_depth;
        // (A CAST standing alone is walked on: see the CAST arm below.)
        if td >= max && !(td == 0 && matches!(e, Expr::Cast { .. })) {
            // A leaf standing alone is checked only by the resolver.
            if td == 0 && is_leaf(e) {
                self.after_expansion.get_or_insert_with(|| too_deep(max));
                return Ok(1);
            }
            // Some enclosing node is already higher than the limit; stop
            // before walking further down.
            return Err(too_deep(max));
        }
        let n = td + 1;
        let folded = if matches!(e, Expr::IsNull(_) | Expr::NotNull(_) | Expr::Binary(_, ast::Operator::Is | ast::Operator::IsNot, _)) {
            self.folded_null_test(e)?
        } else {
            None
        };
        let h = match e {
            // (Built and checked level by level, without recursion.)
            _ if folded.is_some() => folded.unwrap_or(1),
            Expr::Between { lhs, not, start, end } => {
                let h = self.expr(lhs, n)?.max(self.expr(start, n)?).max(self.expr(end, n)?);
                h + 1 + usize::from(*not)
            }
            // Both sides of an AND the parser folds to the literal 0 were
            // built (and checked) on their own; the literal is a leaf, so
            // the nodes above do not count for them.
            Expr::FoldedAnd(and) => {
                self.folded_and(and)?;
                1
            }
            Expr::Binary(l, _, r) => self.expr(l, n)?.max(self.expr(r, n)?) + 1,
            Expr::Case { base, when_then_pairs, else_expr } => {
                let mut h = match base {
                    Some(b) => self.expr(b, n)?,
                    None => 0,
                };
                for (w, t) in when_then_pairs.iter() {
                    // `CASE case_operand WHEN` first, then
                    // `CASE case_operand case_exprlist WHEN`.
                    h = h.max(self.expr(w, n)?).max(self.expr(t, n)?);
                }
                if let Some(x) = else_expr {
                    h = h.max(self.expr(x, n)?);
                }
                h + 1
            }
            // SQLite's parser builds a CAST without checking its height
            // (`sqlite3ExprAttachSubtrees` alone): a node above it checks
            // its own, and the resolver the whole expression's. Below no
            // checked node, the CAST's operand is as if at the top.
            Expr::Cast { expr, .. } => {
                let h = self.expr(expr, if td == 0 { 0 } else { n })? + 1;
                if h > max {
                    self.cast_over = true;
                }
                return Ok(h);
            }
            Expr::Collate(x, _) => self.expr(x, n)? + 1,
            Expr::DoublyQualified(..) => 3,
            Expr::Qualified(..) => 2,
            Expr::Exists(s) => {
                self.saw_expr_subquery = true;
                self.subquery(s, n)? + 1
            }
            Expr::Subquery(s) => {
                self.saw_expr_subquery = true;
                self.subquery(s, n)? + 1
            }
            Expr::FunctionCall { name, args, order_by, filter_over, .. } => {
                if args.is_some_and(|a| a.len() > self.limits.function_args) {
                    return Err(Error::sql(format!("too many arguments on function {}", name.0)));
                }
                let h = self.list(args.unwrap_or(&[]), n)?;
                if let Some(ast::FunctionCallOrder::SortList(terms)) = order_by {
                    self.sorted(terms, 0)?;
                }
                if let Some(tail) = filter_over {
                    self.function_tail(tail)?;
                }
                h + 1
            }
            Expr::FunctionCallStar { filter_over, .. } => {
                if let Some(tail) = filter_over {
                    self.function_tail(tail)?;
                }
                1
            }
            Expr::InList { lhs, not, rhs: Some(items) } if crate::sql::model::expr_shape::in_list_subquery(items).is_some() => {
                let sel = crate::sql::model::expr_shape::in_list_subquery(items).expect("matched above");
                // `x IN ((SELECT ...))`: the parser builds (and checks) the
                // scalar subquery node, then makes the IN node of its
                // SELECT, as `x IN (SELECT ...)`: the IN stands one level
                // lower than over a list item.
                self.saw_expr_subquery = true;
                let l = self.expr(lhs, n)?;
                let s = self.subquery(sel, n)?;
                if s + 1 > max {
                    return Err(too_deep(max));
                }
                l.max(s) + 1 + usize::from(*not)
            }
            Expr::InList { lhs, not, rhs } => {
                let items = rhs.unwrap_or(&[]);
                let l = self.expr(lhs, n)?;
                let vector = matches!(lhs, Expr::Parenthesized(v) if v.len() > 1);
                // (Each level of a tree within the limits adds a height
                // or a parser entry.)
                if items.len() == 1 && !vector && is_constant(&items[0], CONSTANT_BUDGET, self.constant_fn) {
                    // `x IN (e)` is `x == +e` (`x != +e` for NOT IN).
                    l.max(self.expr(&items[0], n + 1)? + 1) + 1
                } else {
                    let h = l.max(self.list(items, n)?) + 1 + usize::from(*not && !items.is_empty());
                    // With a row on the left, SQLite's parser makes the list
                    // a VALUES of rows of its width (sqlite3ExprListToValues)
                    // once the IN is parsed: an element of another width
                    // fails the parse.
                    if let Expr::Parenthesized(row) = crate::sql::model::expr_shape::strip_parens(lhs) {
                        for item in items {
                            let w = match crate::sql::model::expr_shape::strip_parens(item) {
                                Expr::Parenthesized(v) => v.len(),
                                _ => 1,
                            };
                            if w != row.len() {
                                let terms = if w == 1 { "term" } else { "terms" };
                                return Err(Error::sql(format!("IN(...) element has {w} {terms} - expected {}", row.len())));
                            }
                        }
                    }
                    h
                }
            }
            Expr::InSelect { lhs, not, rhs } => {
                self.saw_expr_subquery = true;
                let l = self.expr(lhs, n)?;
                l.max(self.subquery(rhs, n)?) + 1 + usize::from(*not)
            }
            Expr::InTable { lhs, not, args, .. } => {
                let l = self.expr(lhs, n)?;
                l.max(self.list(args.unwrap_or(&[]), n)?) + 1 + usize::from(*not)
            }
            Expr::IsNull(x) | Expr::NotNull(x) => self.expr(x, n)? + 1,
            Expr::Like { lhs, not, rhs, escape, .. } => {
                let mut h = self.expr(lhs, n)?.max(self.expr(rhs, n)?);
                if let Some(x) = escape {
                    h = h.max(self.expr(x, n)?);
                }
                h + 1 + usize::from(*not)
            }
            // A parenthesized expression is its inside; a row value is a
            // node of its own.
            Expr::Parenthesized(v) if v.len() == 1 => return self.expr(&v[0], td),
            // (SQLite's parser builds a row value with no height of its
            // own: 1, whatever its fields hold; each field was checked as
            // it was built.)
            Expr::Parenthesized(v) => {
                self.list(v, 0)?;
                1
            }
            Expr::Raise(_, msg) => match msg {
                Some(m) => self.expr(m, n)? + 1,
                None => 1,
            },
            Expr::Unary(UnaryOperator::Not, x) => self.expr(x, n)? + 1,
            // A unary + or - over a unary + takes that node over (SQLite's
            // parser changes its operator): no height of its own.
            Expr::Unary(UnaryOperator::Positive | UnaryOperator::Negative, x) if is_unary_plus(x) => self.expr(x, td)?,
            Expr::Unary(_, x) => self.expr(x, n)? + 1,
            Expr::Id(_) | Expr::Literal(_) | Expr::Name(_) | Expr::Variable(_) => 1,
        };
        if h > max {
            return Err(too_deep(max));
        }
        Ok(h)
    }

    /// The height of a null test (`X IS NULL`, `X IS NOT NULL`, `ISNULL`,
    /// `NOTNULL`, `NOT NULL`) that SQLite's parser folds to the integer 0
    /// or 1: one whose operand, under unary `+`/`-` and parentheses, is a
    /// numeric, string or blob literal or such a test, itself folded. The
    /// result is a leaf (height 1); the nodes below it were built and
    /// checked on their way (unary operators as [`is_unary_plus`] says).
    /// Walked down and back up without recursion: a chain of null tests
    /// does not deepen the parser's stack, so only the text bounds it.
    /// `None`: not such a test.
    fn folded_null_test(&mut self, e: &Expr<'_>) -> Result<Option<usize>> {
        if self.no_fold == e as *const Expr<'_> as usize {
            return Ok(None);
        }
        let mut chain: Vec<&Expr<'_>> = Vec::new();
        let mut cur = e;
        loop {
            chain.push(cur);
            match cur {
                Expr::IsNull(x) | Expr::NotNull(x) => cur = x,
                Expr::Binary(x, ast::Operator::Is | ast::Operator::IsNot, r) if matches!(**r, Expr::Literal(ast::Literal::Null)) => cur = x,
                Expr::Unary(UnaryOperator::Positive | UnaryOperator::Negative, x) => cur = x,
                Expr::Parenthesized(v) if v.len() == 1 => cur = &v[0],
                Expr::Literal(ast::Literal::Numeric(_) | ast::Literal::String(_) | ast::Literal::Blob(_)) => break,
                // (Folded to the literal 0: checked as a leaf below.)
                Expr::FoldedAnd(_) => break,
                _ => {
                    // (The next level down fails the same way.)
                    self.no_fold = match e {
                        Expr::IsNull(x) | Expr::NotNull(x) | Expr::Binary(x, ..) | Expr::Unary(_, x) => &**x as *const Expr<'_> as usize,
                        _ => 0,
                    };
                    return Ok(None);
                }
            }
        }
        let max = self.limits.expr_depth;
        let (mut h, mut uplus) = (0, false);
        for &node in chain.iter().rev() {
            match node {
                Expr::Literal(_) => (h, uplus) = (1, false),
                Expr::FoldedAnd(and) => {
                    self.folded_and(and)?;
                    (h, uplus) = (1, false);
                }
                Expr::Unary(op, _) => {
                    if !uplus {
                        h += 1;
                    }
                    uplus = matches!(op, UnaryOperator::Positive);
                }
                Expr::Parenthesized(_) => {}
                // A null test, folded to a literal.
                _ => (h, uplus) = (1, false),
            }
            if h > max {
                return Err(too_deep(max));
            }
        }
        Ok(Some(h))
    }

    /// Check the operands of an AND the parser folded to the literal 0
    /// (`and`, as written) at height 0,
    /// as SQLite built and checked them before the fold. A folded chain
    /// (`0 AND 1 AND 1 ...`) folds at each level: its left spine is walked
    /// in a loop, then the operands in the order the parser built them.
    fn folded_and<'a>(&mut self, mut and: &'a Expr<'a>) -> Result<()> {
        let mut rights = Vec::new();
        let first = loop {
            let Expr::Binary(l, _, r) = and else {
                debug_assert!(false, "a folded AND is an AND");
                return Ok(());
            };
            rights.push(*r);
            match l {
                Expr::FoldedAnd(inner) => and = inner,
                _ => break *l,
            }
        };
        self.expr(first, 0)?;
        for r in rights.into_iter().rev() {
            self.expr(r, 0)?;
        }
        Ok(())
    }

    /// The highest of a comma-separated list.
    fn list(&mut self, items: &[Expr<'_>], td: usize) -> Result<usize> {
        let mut h = 0;
        for x in items {
            h = h.max(self.expr(x, td)?);
        }
        Ok(h)
    }

    fn sorted(&mut self, terms: &[SortedColumn<'_>], td: usize) -> Result<usize> {
        self.terms(terms.len(), "ORDER")?;
        self.list_sorted(terms, td)
    }

    fn list_sorted(&mut self, terms: &[SortedColumn<'_>], td: usize) -> Result<usize> {
        let mut h = 0;
        for t in terms {
            h = h.max(self.expr(&t.expr, td)?);
        }
        Ok(h)
    }

    /// An expression of the schema SQLite resolves as the statement
    /// creating it ends (CHECK, generated columns, an index's terms and
    /// WHERE: `sqlite3ResolveSelfReference`), of height `h`: past the
    /// limit only through a CAST at its top, which the parser does not
    /// check, and then the statement fails once compiled.
    fn resolved_height(&mut self, h: usize) {
        if h > self.limits.expr_depth {
            self.after_resolve.get_or_insert_with(|| too_deep(self.limits.expr_depth));
        }
    }

    /// ORDER BY, GROUP BY and PARTITION BY (reported as ORDER BY, as
    /// SQLite does) have at most `SQLITE_LIMIT_COLUMN` terms.
    fn terms(&mut self, n: usize, clause: &str) -> Result<()> {
        if n > self.limits.columns && !self.in_view {
            self.after_resolve.get_or_insert_with(|| Error::sql(format!("too many terms in {clause} BY clause")));
        }
        Ok(())
    }

    fn function_tail(&mut self, tail: &ast::FunctionTail<'_>) -> Result<()> {
        if let Some(f) = tail.filter_clause {
            self.expr(f, 0)?;
        }
        if let Some(ast::Over::Window(w)) = tail.over_clause {
            self.window(w)?;
        }
        Ok(())
    }

    fn window(&mut self, w: &ast::Window<'_>) -> Result<()> {
        self.terms(w.partition_by.map_or(0, |p| p.len()), "ORDER")?;
        self.list(w.partition_by.unwrap_or(&[]), 0)?;
        self.sorted(w.order_by.unwrap_or(&[]), 0)?;
        if let Some(f) = &w.frame_clause {
            for b in std::iter::once(&f.start).chain(f.end.as_ref()) {
                if let ast::FrameBound::Following(x) | ast::FrameBound::Preceding(x) = b {
                    self.expr(x, 0)?;
                }
            }
        }
        Ok(())
    }

    /// A subquery inside an expression: its height (see `select`), on a
    /// grown stack.
    fn subquery(&mut self, s: &Select<'_>, td: usize) -> Result<usize> {
        self.poll()?;
        crate::sql::parse::with_stack(|| self.select(s, td))
    }

    /// Walk `s` and return
    /// SQLite's height of a subquery: the highest expression of its result
    /// columns, WHERE, GROUP BY, HAVING, ORDER BY and LIMIT.
    fn select(&mut self, s: &Select<'_>, td: usize) -> Result<usize> {
        if let Some(with) = &s.with {
            for cte in with.ctes.iter() {
                check_eidlist(self.eidlist, cte.columns)?;
                self.subquery(cte.select, 0)?;
            }
        }
        let compounds = s.body.compounds.as_ref().map_or(0, |c| c.len());
        // (A compound ending in VALUES is not counted, as in SQLite.)
        let last = s.body.compounds.as_ref().and_then(|c| c.last()).map_or(&s.body.select, |c| &c.select);
        let max = self.limits.compound;
        if max > 0 && compounds + 1 > max && !matches!(last, OneSelect::Values(_)) {
            return Err(Error::sql("too many terms in compound SELECT"));
        }
        let mut h = self.one_select(&s.body.select, td)?;
        for c in s.body.compounds.iter().flat_map(|c| c.iter()) {
            h = h.max(self.one_select(&c.select, td)?);
        }
        h = h.max(self.sorted(s.order_by.unwrap_or(&[]), td)?);
        if let Some(l) = s.limit {
            h = h.max(self.limit(l, td)?);
        }
        Ok(h)
    }

    fn limit(&mut self, l: &ast::Limit<'_>, td: usize) -> Result<usize> {
        let mut h = self.expr(&l.expr, td + 1)?;
        if let Some(o) = &l.offset {
            h = h.max(self.expr(o, td + 1)?);
        }
        Ok(h + 1)
    }

    fn one_select(&mut self, s: &OneSelect<'_>, td: usize) -> Result<usize> {
        match s {
            OneSelect::Select { columns, from, where_clause, group_by, having, window_clause, .. } => {
                // SQLite expands `*` into column expressions whose height
                // counts: a column (1), `t.col` for `t.*` (2), and with
                // more than one FROM item, a qualified name (3).
                let from_items = from.as_ref().map_or(0, |f| usize::from(f.select.is_some()) + f.joins.as_ref().map_or(0, |j| j.len()));
                let star = |qualified: bool| {
                    if from_items > 1 {
                        3
                    } else if qualified {
                        2
                    } else {
                        1
                    }
                };
                let stars = columns.iter().filter_map(|c| match c {
                    ResultColumn::Star => Some(star(false)),
                    ResultColumn::TableStar(_) => Some(star(true)),
                    ResultColumn::Expr(..) => None,
                });
                if stars.max().is_some_and(|h| td + h > self.limits.expr_depth) {
                    self.after_expansion.get_or_insert_with(|| too_deep(self.limits.expr_depth));
                }
                let mut h = self.columns(columns, td)?;
                if let Some(f) = from {
                    self.from(f)?;
                }
                if let Some(w) = where_clause {
                    h = h.max(self.expr(w, td)?);
                }
                self.terms(group_by.map_or(0, |g| g.len()), "GROUP")?;
                h = h.max(self.list(group_by.unwrap_or(&[]), td)?);
                if let Some(x) = having {
                    h = h.max(self.expr(x, td)?);
                }
                for d in window_clause.iter().flat_map(|w| w.iter()) {
                    self.window(&d.window)?;
                }
                Ok(h)
            }
            OneSelect::Values(rows) => {
                if !std::mem::take(&mut self.insert_row) && rows.iter().any(|r| r.len() > self.limits.columns) {
                    return Err(Error::sql("too many columns in result set"));
                }
                let mut h = 0;
                for row in rows.iter() {
                    h = h.max(self.list(row, td)?);
                }
                Ok(h)
            }
        }
    }

    fn columns(&mut self, columns: &[ResultColumn<'_>], td: usize) -> Result<usize> {
        let mut h = 0;
        for c in columns {
            if let ResultColumn::Expr(e, _) = c {
                h = h.max(self.expr(e, td)?);
            }
        }
        Ok(h)
    }

    /// A FROM clause, item by item with its ON clause, as the parser
    /// reads them. Its subqueries' heights are their own (not part of the
    /// enclosing one). SQLite's parser refuses a FROM list of more than
    /// [`MAX_SRCLIST`] terms as it appends the first one too many (the
    /// items of a first parenthesized join without an alias are the
    /// list's own: the parser takes that list over).
    fn from(&mut self, f: &FromClause<'_>) -> Result<()> {
        let first = f.select.map(|t| (t, None));
        let joined = f.joins.iter().flat_map(|j| j.iter().map(|j| (&j.table, j.constraint.as_ref())));
        let mut terms = 0usize;
        for (t, constraint) in first.into_iter().chain(joined) {
            match t {
                SelectTable::Select(s, _) => {
                    self.subquery(s, 0)?;
                }
                SelectTable::Sub(inner, _) => self.from(inner)?,
                SelectTable::TableCall(_, args, _) => {
                    self.list(args.unwrap_or(&[]), 0)?;
                }
                SelectTable::Table(..) => {}
            }
            if let Some(ast::JoinConstraint::On(e)) = constraint {
                self.expr(e, 0)?;
            }
            terms += match t {
                SelectTable::Sub(inner, None) if terms == 0 => src_terms(inner),
                _ => 1,
            };
            if terms > MAX_SRCLIST {
                return Err(Error::sql(format!("too many FROM clause terms, max: {MAX_SRCLIST}")));
            }
        }
        Ok(())
    }

    fn upsert(&mut self, mut u: Option<&Upsert<'_>>) -> Result<()> {
        while let Some(x) = u {
            if let Some(i) = &x.index {
                self.sorted(i.targets, 0)?;
                self.opt(i.where_clause.as_ref())?;
            }
            if let UpsertDo::Set { sets, where_clause } = &x.do_clause {
                self.sets(sets)?;
                self.opt(where_clause.as_ref())?;
            }
            u = x.next;
        }
        Ok(())
    }

    fn sets(&mut self, sets: &[ast::Set<'_>]) -> Result<()> {
        if sets.iter().map(|s| s.col_names.len()).sum::<usize>() > self.limits.columns {
            return Err(Error::sql("too many columns in set list"));
        }
        for s in sets {
            self.expr(&s.expr, 0)?;
        }
        Ok(())
    }

    fn opt(&mut self, e: Option<&Expr<'_>>) -> Result<()> {
        if let Some(e) = e {
            self.expr(e, 0)?;
        }
        Ok(())
    }

    fn returning(&mut self, r: Option<&[ResultColumn<'_>]>) -> Result<()> {
        if r.is_some_and(|r| r.len() > self.limits.columns) {
            return Err(Error::sql("too many columns in result set"));
        }
        self.columns(r.unwrap_or(&[]), 0).map(|_| ())
    }

    fn dml_tail(&mut self, order_by: Option<&[SortedColumn<'_>]>, limit: Option<&ast::Limit<'_>>) -> Result<()> {
        self.sorted(order_by.unwrap_or(&[]), 0)?;
        if let Some(l) = limit {
            self.limit(l, 0)?;
        }
        Ok(())
    }

    fn with(&mut self, with: Option<&ast::With<'_>>) -> Result<()> {
        for cte in with.iter().flat_map(|w| w.ctes.iter()) {
            check_eidlist(self.eidlist, cte.columns)?;
            self.subquery(cte.select, 0)?;
        }
        Ok(())
    }

    fn stmt(&mut self, stmt: &Stmt<'_>) -> Result<()> {
        match stmt {
            Stmt::Select(s) => {
                self.select(s, 0)?;
                if self.saw_expr_subquery || self.cast_over {
                    let nesting = Nesting::new(self.limits.expr_depth, self.stored_leaves);
                    self.deferred = nesting.deferred(nesting.select(s, 0));
                }
                Ok(())
            }
            Stmt::Insert { with, body, returning, .. } => {
                self.with(with.as_ref())?;
                if let InsertBody::Select(s, upsert) = body {
                    self.insert_row = s.body.compounds.is_none() && matches!(&s.body.select, OneSelect::Values(rows) if rows.len() == 1);
                    self.subquery(s, 0)?;
                    self.upsert(*upsert)?;
                    if self.saw_expr_subquery || self.cast_over {
                        let nesting = Nesting::new(self.limits.expr_depth, self.stored_leaves);
                        self.deferred = nesting.deferred(nesting.select(s, 0));
                    }
                }
                self.returning(*returning)
            }
            Stmt::Update { with, sets, from, where_clause, returning, order_by, limit, .. } => {
                self.with(with.as_ref())?;
                self.sets(sets)?;
                if let Some(f) = from {
                    self.from(f)?;
                }
                self.opt(where_clause.as_ref())?;
                let nesting = Nesting::new(self.limits.expr_depth, self.stored_leaves);
                let r = sets.iter().map(|s| &s.expr).chain(where_clause.as_ref()).try_for_each(|e| nesting.expr(e, 0));
                self.deferred = nesting.deferred(r);
                self.returning(*returning)?;
                self.dml_tail(*order_by, *limit)
            }
            Stmt::Delete { with, where_clause, returning, order_by, limit, .. } => {
                self.with(with.as_ref())?;
                self.opt(where_clause.as_ref())?;
                if let Some(e) = where_clause {
                    let nesting = Nesting::new(self.limits.expr_depth, self.stored_leaves);
                    self.deferred = nesting.deferred(nesting.expr(e, 0));
                }
                self.returning(*returning)?;
                self.dml_tail(*order_by, *limit)
            }
            Stmt::CreateIndex { columns, where_clause, .. } => {
                // (Its width is checked once the table and the name are:
                // `too_many_index_columns`, in the compiler.)
                let mut h = self.list_sorted(columns, 0)?;
                if let Some(w) = where_clause {
                    h = h.max(self.expr(w, 0)?);
                }
                self.resolved_height(h);
                Ok(())
            }
            Stmt::CreateTable { body, tbl_name, .. } => match body {
                ast::CreateTableBody::AsSelect(s) => self.subquery(s, 0).map(|_| ()),
                ast::CreateTableBody::ColumnsAndConstraints { columns, constraints, .. } => {
                    for c in columns.iter() {
                        for k in c.constraints.iter() {
                            if let ast::ColumnConstraint::ForeignKey { clause, .. } = &k.constraint {
                                check_eidlist(self.eidlist, clause.columns)?;
                            }
                        }
                    }
                    for k in constraints.iter().flat_map(|c| c.iter()) {
                        if let ast::TableConstraint::ForeignKey { columns, clause, .. } = &k.constraint {
                            check_eidlist(self.eidlist, Some(columns))?;
                            check_eidlist(self.eidlist, clause.columns)?;
                        }
                    }
                    if columns.len() > self.limits.columns {
                        return Err(Error::sql(format!("too many columns on {}", crate::sql::parse::unquote(tbl_name.name.0))));
                    }
                    for c in columns.iter() {
                        for k in c.constraints.iter() {
                            match &k.constraint {
                                // (A DEFAULT is never resolved: only its
                                // parser's heights count.)
                                ast::ColumnConstraint::Default(e) => {
                                    self.expr(e, 0)?;
                                }
                                ast::ColumnConstraint::Check(e) | ast::ColumnConstraint::Generated { expr: e, .. } => {
                                    let h = self.expr(e, 0)?;
                                    self.resolved_height(h);
                                }
                                _ => {}
                            }
                        }
                    }
                    for k in constraints.iter().flat_map(|c| c.iter()) {
                        if let ast::TableConstraint::Check(e, _) = &k.constraint {
                            let h = self.expr(e, 0)?;
                            self.resolved_height(h);
                        }
                    }
                    Ok(())
                }
            },
            Stmt::CreateView { select, columns, .. } => {
                check_eidlist(self.eidlist, *columns)?;
                self.in_view = true;
                self.subquery(select, 0).map(|_| ())
            }
            Stmt::CreateTrigger { when_clause, commands, .. } => {
                self.opt(when_clause.as_ref())?;
                for c in commands.iter() {
                    match c {
                        TriggerCmd::Update { sets, from, where_clause, .. } => {
                            self.sets(sets)?;
                            if let Some(f) = from {
                                self.from(f)?;
                            }
                            self.opt(where_clause.as_ref())?;
                        }
                        TriggerCmd::Insert { select, upsert, .. } => {
                            // (A single row's width is checked against the
                            // table when the trigger is coded.)
                            self.insert_row = select.body.compounds.is_none() && matches!(&select.body.select, OneSelect::Values(rows) if rows.len() == 1);
                            self.subquery(select, 0)?;
                            self.upsert(*upsert)?;
                        }
                        TriggerCmd::Delete { where_clause, .. } => self.opt(where_clause.as_ref())?,
                        TriggerCmd::Select(s) => {
                            self.subquery(s, 0)?;
                        }
                    }
                }
                Ok(())
            }
            Stmt::Attach { expr, db_name, key } => {
                self.expr(expr, 0)?;
                self.expr(db_name, 0)?;
                self.opt(key.as_ref())
            }
            Stmt::Detach(e) => self.expr(e, 0).map(|_| ()),
            Stmt::Vacuum(_, into) => self.opt(into.as_ref()),
            Stmt::AlterTable(..)
            | Stmt::Analyze(_)
            | Stmt::Begin(..)
            | Stmt::Commit(_)
            | Stmt::CreateVirtualTable { .. }
            | Stmt::DropIndex { .. }
            | Stmt::DropTable { .. }
            | Stmt::DropTrigger { .. }
            | Stmt::DropView { .. }
            | Stmt::Pragma(..)
            | Stmt::Reindex { .. }
            | Stmt::Release(_)
            | Stmt::Rollback { .. }
            | Stmt::Savepoint(_) => Ok(()),
        }
    }
}

/// Name resolution's running height: SQLite adds the height of each
/// expression it resolves to the heights of the expressions it is nested
/// in (through scalar subqueries), and refuses a total past the limit.
struct Nesting {
    max: usize,
    /// Leaves weigh nothing (see `Walk::stored_leaves`).
    stored_leaves: bool,
    /// The expression found past the limit (its address).
    point: Cell<usize>,
}

impl Nesting {
    fn new(max: usize, stored_leaves: bool) -> Self {
        Nesting { max, stored_leaves, point: Cell::new(0) }
    }

    /// The outcome of a walk as a deferred failure.
    fn deferred(&self, r: Result<()>) -> Option<DeferredDepth> {
        r.err().map(|error| DeferredDepth { expr: self.point.get(), error, after_expansion: false })
    }

    /// Resolve `s` with `acc` heights of enclosing expressions.
    fn select(&self, s: &Select<'_>, acc: usize) -> Result<()> {
        crate::sql::parse::with_stack(|| {
            for cte in s.with.iter().flat_map(|w| w.ctes.iter()) {
                self.select(cte.select, acc)?;
            }
            let cores = std::iter::once(&s.body.select).chain(s.body.compounds.iter().flat_map(|c| c.iter().map(|c| &c.select)));
            for core in cores {
                match core {
                    OneSelect::Select { columns, from, where_clause, group_by, having, .. } => {
                        if let Some(f) = from {
                            self.from(f, acc)?;
                        }
                        for c in columns.iter() {
                            if let ResultColumn::Expr(e, _) = c {
                                self.expr(e, acc)?;
                            }
                        }
                        // The ON clauses, and an equality per USING
                        // column (`None`: no expression of ours), are ANDed
                        // onto the WHERE clause in join order before names
                        // are resolved (SQLite's `sqlite3ProcessJoin`): one
                        // expression, whose height counts for the
                        // subqueries of all of them. (NATURAL joins' columns
                        // need the schema: not counted here.)
                        let ons: Vec<Option<&Expr<'_>>> = from
                            .iter()
                            .flat_map(|f| f.joins.iter().flat_map(|j| j.iter()))
                            .flat_map(|j| match &j.constraint {
                                Some(ast::JoinConstraint::On(e)) => vec![Some(e)],
                                Some(ast::JoinConstraint::Using(names)) => vec![None; names.len()],
                                None => Vec::new(),
                            })
                            .collect();
                        if ons.is_empty() {
                            for e in where_clause.iter() {
                                self.expr(e, acc)?;
                            }
                        } else {
                            self.where_and_ons(*where_clause, &ons, acc)?;
                        }
                        for e in group_by.iter().flat_map(|g| g.iter()).chain(having.iter().copied()) {
                            self.expr(e, acc)?;
                        }
                    }
                    OneSelect::Values(rows) => {
                        for e in rows.iter().flat_map(|r| r.iter()) {
                            self.expr(e, acc)?;
                        }
                    }
                }
            }
            for t in s.order_by.iter().flat_map(|o| o.iter()) {
                self.expr(&t.expr, acc)?;
            }
            Ok(())
        })
    }

    fn from(&self, f: &FromClause<'_>, acc: usize) -> Result<()> {
        let items = f.select.into_iter().chain(f.joins.iter().flat_map(|j| j.iter().map(|j| &j.table)));
        for t in items {
            match t {
                SelectTable::Select(s, _) => self.select(s, acc)?,
                SelectTable::Sub(inner, _) => self.from(inner, acc)?,
                _ => {}
            }
        }
        Ok(())
    }

    /// Resolve the WHERE clause with the ON clauses `ons` ANDed onto it,
    /// in order (each AND one node over the expression so far); `None` is
    /// a USING column's equality (`left.c = right.c`: height 2).
    fn where_and_ons(&self, where_clause: Option<&Expr<'_>>, ons: &[Option<&Expr<'_>>], acc: usize) -> Result<()> {
        const USING_TERM_HEIGHT: usize = 2;
        let mut h = where_clause.map_or(0, height);
        for on in ons {
            let x = on.map_or(USING_TERM_HEIGHT, height);
            h = if h == 0 { x } else { h.max(x) + 1 };
        }
        let total = acc + h;
        let parts = || where_clause.into_iter().chain(ons.iter().flatten().copied());
        if total > self.max {
            // (USING terms alone hold no subquery and no expression of
            // ours to fail at: their height is left to the compiler.)
            let Some(first) = parts().next() else { return Ok(()) };
            self.point.set(first as *const Expr<'_> as usize);
            return Err(too_deep(self.max));
        }
        let mut result = Ok(());
        for e in parts() {
            subqueries(e, &mut |s| {
                if result.is_ok() {
                    result = self.select(s, total);
                }
            });
        }
        result
    }

    /// Resolve the top-level expression `e`: its height counts for every
    /// subquery inside it.
    fn expr(&self, e: &Expr<'_>, acc: usize) -> Result<()> {
        let total = acc + if self.stored_leaves && is_leaf(e) { 0 } else { height(e) };
        if total > self.max {
            self.point.set(e as *const Expr<'_> as usize);
            return Err(too_deep(self.max));
        }
        let mut result = Ok(());
        subqueries(e, &mut |s| {
            if result.is_ok() {
                result = self.select(s, total);
            }
        });
        result
    }
}

/// The expression of `s` where SQLite's resolver meets a running height
/// past `expr_depth` (its address), for a view's or CTE's body compiled
/// from its text: that tree is parsed again, so the point found in the
/// statement's own tree (`DeferredDepth::expr`) is not in it. The body is
/// resolved as a FROM item, under no enclosing expression.
pub fn resolver_depth_point(s: &Select<'_>, expr_depth: usize) -> Option<usize> {
    let nesting = Nesting::new(expr_depth, false);
    nesting.deferred(nesting.select(s, 0)).map(|d| d.expr).filter(|&at| at != 0)
}

/// Whether the expression at address `at` is one of `s`'s clause
/// expressions or lies in a subquery of them (its FROM's, its CTEs' and
/// nested ones included): the subquery a [`DeferredDepth`] is met in.
pub fn select_holds(s: &Select<'_>, at: usize) -> bool {
    crate::sql::parse::with_stack(|| {
        let mut found = false;
        let expr = |e: &Expr<'_>, found: &mut bool| {
            if *found {
                return;
            }
            if e as *const Expr<'_> as usize == at {
                *found = true;
                return;
            }
            subqueries(e, &mut |inner| *found = *found || select_holds(inner, at));
        };
        for cte in s.with.iter().flat_map(|w| w.ctes.iter()) {
            found = found || select_holds(cte.select, at);
        }
        let cores = std::iter::once(&s.body.select).chain(s.body.compounds.iter().flat_map(|c| c.iter().map(|c| &c.select)));
        for core in cores {
            match core {
                OneSelect::Select { columns, from, where_clause, group_by, having, .. } => {
                    if let Some(f) = from {
                        found = found || from_holds(f, at);
                    }
                    for c in columns.iter() {
                        if let ResultColumn::Expr(e, _) = c {
                            expr(e, &mut found);
                        }
                    }
                    for e in where_clause.iter().copied().chain(group_by.iter().flat_map(|g| g.iter())).chain(having.iter().copied()) {
                        expr(e, &mut found);
                    }
                }
                OneSelect::Values(rows) => {
                    for e in rows.iter().flat_map(|r| r.iter()) {
                        expr(e, &mut found);
                    }
                }
            }
        }
        for t in s.order_by.iter().flat_map(|o| o.iter()) {
            expr(&t.expr, &mut found);
        }
        found
    })
}

fn from_holds(f: &FromClause<'_>, at: usize) -> bool {
    let items = f.select.into_iter().chain(f.joins.iter().flat_map(|j| j.iter().map(|j| &j.table)));
    items.into_iter().any(|t| match t {
        SelectTable::Select(s, _) => select_holds(s, at),
        SelectTable::Sub(inner, _) => from_holds(inner, at),
        _ => false,
    })
}

/// SQLite's height of `e` (already checked to be within the limit, so
/// this recursion is bounded).
pub(crate) fn height(e: &Expr<'_>) -> usize {
    let mut w = Walk { in_view: true, ..Walk::new(ParseLimits::NONE) };
    w.expr(e, 0).unwrap_or(0)
}

/// Call `f` with each subquery directly inside `e` (not those inside
/// them).
fn subqueries<'a, 'b>(e: &'a Expr<'b>, f: &mut dyn FnMut(&'a Select<'b>)) {
    crate::sql::parse::with_stack(|| subqueries_inner(e, f))
}

fn subqueries_inner<'a, 'b>(e: &'a Expr<'b>, f: &mut dyn FnMut(&'a Select<'b>)) {
    match e {
        Expr::Exists(s) | Expr::Subquery(s) => f(s),
        Expr::InSelect { lhs, rhs, .. } => {
            subqueries(lhs, f);
            f(rhs);
        }
        Expr::Between { lhs, start, end, .. } => {
            subqueries(lhs, f);
            subqueries(start, f);
            subqueries(end, f);
        }
        Expr::FoldedAnd(_) => {}
        Expr::Binary(l, _, r) => {
            subqueries(l, f);
            subqueries(r, f);
        }
        Expr::Case { base, when_then_pairs, else_expr } => {
            for x in base.iter().copied().chain(when_then_pairs.iter().flat_map(|(w, t)| [w, t])).chain(else_expr.iter().copied()) {
                subqueries(x, f);
            }
        }
        Expr::Cast { expr: x, .. } | Expr::Collate(x, _) | Expr::IsNull(x) | Expr::NotNull(x) | Expr::Unary(_, x) => subqueries(x, f),
        Expr::FunctionCall { args, .. } => {
            for x in args.iter().flat_map(|a| a.iter()) {
                subqueries(x, f);
            }
        }
        Expr::InList { lhs, rhs, .. } => {
            subqueries(lhs, f);
            for x in rhs.iter().flat_map(|a| a.iter()) {
                subqueries(x, f);
            }
        }
        Expr::InTable { lhs, args, .. } => {
            subqueries(lhs, f);
            for x in args.iter().flat_map(|a| a.iter()) {
                subqueries(x, f);
            }
        }
        Expr::Like { lhs, rhs, escape, .. } => {
            subqueries(lhs, f);
            subqueries(rhs, f);
            if let Some(x) = escape {
                subqueries(x, f);
            }
        }
        Expr::Parenthesized(v) => {
            for x in v.iter() {
                subqueries(x, f);
            }
        }
        Expr::Raise(_, Some(x)) => subqueries(x, f),
        _ => {}
    }
}

/// The most terms SQLite's FROM list holds (`SQLITE_MAX_SRCLIST`).
const MAX_SRCLIST: usize = 200;

/// The terms of the FROM list SQLite's parser makes of `f` (see
/// `Walk::from`; the nesting is bounded by the parser's stack).
fn src_terms(f: &FromClause<'_>) -> usize {
    let first = match f.select {
        Some(SelectTable::Sub(inner, None)) => src_terms(inner),
        Some(_) => 1,
        None => 0,
    };
    first + f.joins.as_ref().map_or(0, |j| j.len())
}

/// Whether SQLite's parser makes `x` a unary-plus node (under any
/// parentheses, which build no node): `+y` always is, whatever `y` (a `+`
/// over a unary plus keeps that node).
fn is_unary_plus(x: &Expr<'_>) -> bool {
    let mut x = x;
    while let Expr::Parenthesized(v) = x {
        match &v[..] {
            [inner] => x = inner,
            _ => return false,
        }
    }
    matches!(x, Expr::Unary(UnaryOperator::Positive, _))
}
