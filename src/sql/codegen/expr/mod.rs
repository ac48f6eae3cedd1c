//! Expression code generation: `expr(e, target)` leaves the value of `e`
//! in register `target`; `jump_if_false(e, label)` tests a condition by
//! jumping (comparisons jump with their opposite operator); literal
//! operands of operators are loaded once, in the prologue (`operand`).
//!
//! Affinity and collation of comparisons follow `datatype3.txt` sections
//! 4.2 and 7.1: they are computed here at compile time and handed to the
//! comparison opcodes in P5 and P4.
//!
//! Column reads are `columns.rs`'s, operand affinity and collation and
//! the comparison instruction `compare.rs`'s, IN and subqueries
//! `subquery.rs`'s. Row values (`(a, b)` and subqueries of several columns
//! in comparisons, BETWEEN, CASE and IN lists) are compiled by
//! `row_value.rs`.
//! Expressions over an index's key columns (indexes on expressions,
//! partial-index WHERE clauses) are `index_expr.rs`'s. Every statement
//! family uses this folder; it names none of them.

mod columns;
mod compare;
pub mod index_expr;
pub mod row_value;
mod subquery;

pub use columns::default_p4;
pub use compare::comparison_affinity;

use crate::error::{Error, Result};
use crate::sql::codegen::Compiler;
use crate::sql::model::expr_shape::aggregate_inputs;
use crate::sql::model::expr_shape::may_be_row;
use crate::sql::parse::{unquote, unquoted};
use crate::sql::resolve::no_such_column;
use crate::util::ascii::AsciiLower;
use crate::value::affinity::Affinity;
use crate::value::literal::{parse_numeric, Number};
use crate::vdbe::func::FuncKind;
use crate::vdbe::program::{cmp_flags, Opcode, P4};
use sqlite3_parser::ast::{self, Expr, LikeOperator, Literal, Operator, UnaryOperator};

fn decode_blob(hex: &str) -> Result<Vec<u8>> {
    let h = hex.as_bytes();
    if !h.len().is_multiple_of(2) {
        return Err(Error::sql(format!("unrecognized token: \"X'{hex}'\"")));
    }
    (0..h.len() / 2).map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).map_err(|_| Error::sql(format!("unrecognized token: \"X'{hex}'\"")))).collect()
}

fn like_func_name(op: LikeOperator) -> &'static str {
    match op {
        LikeOperator::Like => "like",
        LikeOperator::Glob => "glob",
        LikeOperator::Match => "match",
        LikeOperator::Regexp => "regexp",
    }
}

impl Compiler<'_> {
    /// Compute `e` into a new register.
    pub fn expr_new(&mut self, e: &Expr<'_>) -> Result<i32> {
        let r = self.b.reg();
        self.expr(e, r)?;
        Ok(r)
    }

    /// A register holding the value of `e` for an operator to read: a
    /// numeric or string literal is loaded once for the whole run (see
    /// [`crate::sql::codegen::builder::Builder::hoisted_constant`]), anything else is
    /// computed here into a new register.
    pub fn operand(&mut self, e: &Expr<'_>) -> Result<i32> {
        let hoisted = match e {
            Expr::Literal(Literal::Numeric(s)) => match parse_numeric(s)? {
                Number::Int(i) if i >= i32::MIN as i64 && i <= i32::MAX as i64 => self.b.hoisted_constant(|r| (Opcode::Integer, i as i32, r, 0, P4::None)),
                Number::Int(i) => self.b.hoisted_constant(|r| (Opcode::Int64, 0, r, 0, P4::Int64(i))),
                Number::Real(x) => self.b.hoisted_constant(|r| (Opcode::Real, 0, r, 0, P4::Real(x))),
            },
            Expr::Literal(Literal::String(s)) => {
                let t = crate::sql::parse::string_literal_bytes(s);
                self.b.hoisted_constant(|r| (Opcode::String8, 0, r, 0, P4::bytes(t)))
            }
            // A bound parameter cannot change while the statement runs
            // (binding a running statement is refused): SQLite loads it
            // once too. (The number is assigned here, in the same order
            // as when it is read in place.)
            Expr::Variable(name) if self.dml.firing.is_empty() => {
                let i = self.variable(name)?;
                self.b.hoisted_constant(|r| (Opcode::Variable, i, r, 0, P4::None)).or_else(|| {
                    let r = self.b.reg();
                    self.b.add(Opcode::Variable, i, r, 0);
                    Some(r)
                })
            }
            _ => None,
        };
        match hoisted {
            Some(r) => Ok(r),
            None => self.expr_new(e),
        }
    }

    /// Jump to `label` when `e` is false or NULL.
    ///
    /// The usual WHERE and ON shapes jump straight from their test: each
    /// side of an AND is tested in turn, and a comparison of two single
    /// values jumps with its opposite operator (NULL jumps too), instead
    /// of storing a truth value to test with `IfNot`. The opposite is
    /// exact because the comparison is a total order once neither side is
    /// NULL (affinity and collation are the same as in the stored form).
    pub fn jump_if_false(&mut self, e: &Expr<'_>, label: i32) -> Result<()> {
        self.check_depth_point(e)?;
        match e {
            Expr::Binary(l, Operator::And, r) => {
                let learned = self.learn_chain(e);
                let (first, second) = self.operands_in_order(l, r);
                let done = self.jump_if_false(first, label).and_then(|()| self.jump_if_false(second, label));
                self.forget_chain(learned);
                return done;
            }
            // As SQLite tests an OR: the second side only when the first
            // is not true (a subquery there is not run).
            Expr::Binary(l, Operator::Or, r) if !may_be_row(l) && !may_be_row(r) => {
                let learned = self.learn_chain(e);
                let (first, second) = self.operands_in_order(l, r);
                let holds = self.b.label();
                let done = self.expr_new(first).and_then(|f| {
                    self.b.add(Opcode::If, f, holds, 0);
                    self.jump_if_false(second, label)
                });
                self.forget_chain(learned);
                done?;
                self.b.bind(holds);
                return Ok(());
            }
            Expr::Parenthesized(v) if v.len() == 1 => return self.jump_if_false(&v[0], label),
            // `x BETWEEN a AND b` is `x >= a AND x <= b` with `x` computed
            // once: two jumps, as SQLite codes it, instead of two stored
            // truth values, an `And` and an `IfNot`.
            Expr::Between { lhs, not: false, start, end } if !may_be_row(lhs) && !may_be_row(start) && !may_be_row(end) => {
                let (x, a, b) = (self.comparison_operand(lhs)?, self.comparison_operand(start)?, self.comparison_operand(end)?);
                for (bound, r, opc) in [(start, a, Opcode::Lt), (end, b, Opcode::Gt)] {
                    let aff = comparison_affinity(self.expr_affinity(lhs), self.expr_affinity(bound));
                    let coll = self.comparison_collation(lhs, bound)?;
                    self.b.add4(opc, r, label, x, coll, aff | cmp_flags::JUMPIFNULL);
                }
                return Ok(());
            }
            Expr::Binary(l, op, r) if !may_be_row(l) && !may_be_row(r) => {
                let opposite = match op {
                    Operator::Equals => Some(Opcode::Ne),
                    Operator::NotEquals => Some(Opcode::Eq),
                    Operator::Less => Some(Opcode::Ge),
                    Operator::LessEquals => Some(Opcode::Gt),
                    Operator::Greater => Some(Opcode::Le),
                    Operator::GreaterEquals => Some(Opcode::Lt),
                    _ => None,
                };
                if let Some(opc) = opposite {
                    let lr = self.comparison_operand(l)?;
                    let rr = self.comparison_operand(r)?;
                    let aff = comparison_affinity(self.expr_affinity(l), self.expr_affinity(r));
                    let coll = self.comparison_collation(l, r)?;
                    self.b.add4(opc, rr, label, lr, coll, aff | cmp_flags::JUMPIFNULL);
                    return Ok(());
                }
            }
            _ => {}
        }
        let r = self.expr_new(e)?;
        self.b.add(Opcode::IfNot, r, label, 1);
        Ok(())
    }

    /// Compile an expression given as SQL text (aliases, defaults).
    pub fn expr_text(&mut self, text: &str, target: i32) -> Result<()> {
        let sql = format!("SELECT {text}");
        crate::sql::parse::with_first_statement(sql.as_bytes(), |cmd, _| {
            if let Some(ast::Cmd::Stmt(ast::Stmt::Select(sel))) = cmd {
                if let ast::OneSelect::Select { columns, .. } = &sel.body.select {
                    if let Some(ast::ResultColumn::Expr(e, _)) = columns.first() {
                        return self.expr(e, target);
                    }
                }
            }
            Err(Error::sql(format!("malformed expression: {text}")))
        })
    }

    /// Read a finished aggregate (of this query or an enclosing one): a
    /// subquery reading an enclosing query's aggregate is correlated with
    /// that query's groups.
    fn read_aggregate(&mut self, acc: i32, target: i32) {
        let from = self.frame.agg_owner_depth.get(&acc).copied().unwrap_or(self.frame.agg_scope_depth);
        if from > 0 {
            for s in self.names.scopes.iter_mut().skip(from) {
                s.correlated = true;
            }
        }
        self.b.add(Opcode::SCopy, acc, target, 0);
    }

    /// Compute the expression `text` of alias `name` of the SELECT at
    /// alias level `level` (its scopes the innermost open).
    fn enclosing_alias(&mut self, level: usize, name: &str, text: &str, target: i32) -> Result<()> {
        if level + 1 < self.names.aliases.len() && self.text_has_window(text) {
            return Err(Error::sql(format!("misuse of aliased window function {name}")));
        }
        if level + 1 < self.names.aliases.len() && self.text_has_aggregate(text) {
            // (Where the enclosing query computes its aggregates, they
            // are in `agg_regs` and the alias is no aggregate here.)
            let name = self.first_aggregate_in_text(text).unwrap_or_default();
            return Err(Error::sql(format!("misuse of aggregate: {name}()")));
        }
        // The alias's own expression may not name it (nor those inside).
        let saved = self.names.aliases.split_off(level);
        let r = self.expr_text(text, target);
        self.names.aliases.extend(saved);
        r
    }

    fn identifier(&mut self, raw: &str, target: i32) -> Result<()> {
        let name = unquoted(raw);

        if let Some(r) = self.resolve_name(None, &name)? {
            if self.frame.internal_rowid_read && r.column.is_none() && name == crate::sql::resolve::INTERNAL_ROWID {
                // The rowids an UPDATE/DELETE visits: not a read to authorize.
                let auth = self.stmt.authorizer.take();
                self.emit_column(&r, target)?;
                self.stmt.authorizer = auth;
            } else {
                self.emit_unqualified_column(&r, target)?;
            }
            return Ok(());
        }
        // A result alias of this SELECT, or of an enclosing one (a
        // subquery in its WHERE or ORDER BY may name it too).
        let alias = self.find_alias(&name);
        if let Some((level, text)) = alias {
            // An enclosing SELECT's alias stands for its expression as that
            // SELECT resolves it: its names are that SELECT's columns (and
            // aggregates), never those of the subquery naming the alias,
            // which reads the enclosing row (a correlated reference).
            let depth = self.names.aliases[level].scope_depth;
            let inner = if level + 1 < self.names.aliases.len() && depth < self.names.scopes.len() { self.names.scopes.split_off(depth) } else { Vec::new() };
            let passed = !inner.is_empty();
            // (Nor are the aggregates of the queries nested deeper theirs.)
            let saved_aggs = passed.then(|| {
                let all = self.frame.agg_regs.clone();
                let default_owner = self.frame.agg_scope_depth;
                let owner = |acc: &i32| self.frame.agg_owner_depth.get(acc).copied().unwrap_or(default_owner);
                let mut visible = crate::util::fast_hash::FastMap::default();
                for (key, &acc) in &self.frame.agg_regs {
                    // (An entry of a deeper query may hide the enclosing one's.)
                    let mut acc = Some(acc);
                    while let Some(a) = acc.filter(|a| owner(a) > depth) {
                        acc = self.names.agg_shadowed.get(&a).copied();
                    }
                    if let Some(a) = acc {
                        visible.insert(key.clone(), a);
                    }
                }
                self.frame.agg_regs = visible;
                (all, std::mem::replace(&mut self.frame.agg_scope_depth, default_owner.min(depth)))
            });
            let r = self.enclosing_alias(level, &name, &text, target);
            if let Some((all, scope_depth)) = saved_aggs {
                self.frame.agg_regs = all;
                self.frame.agg_scope_depth = scope_depth;
            }
            self.names.scopes.extend(inner);
            if passed {
                for s in self.names.scopes.iter_mut().skip(depth) {
                    s.correlated = true;
                }
            }
            return r;
        }
        if raw.starts_with('"') {
            if !self.double_quoted_string_allowed(raw) {
                return Err(Error::sql(format!("no such column: \"{name}\" - should this be a string literal in single-quotes?")));
            }
            self.b.add4(Opcode::String8, 0, target, 0, P4::bytes(name.into_owned().into_bytes()), 0);
            return Ok(());
        }
        if name.eq_ci("true") || name.eq_ci("false") {
            self.b.add(Opcode::Integer, name.eq_ci("true") as i32, target, 0);
            return Ok(());
        }
        Err(no_such_column(None, &name))
    }

    /// Whether `raw`, a double-quoted name no column has, may stand for a
    /// string, as SQLite decides: in the CHECK constraints, generated
    /// columns and index expressions of a CREATE statement when
    /// `SQLITE_DBCONFIG_DQS_DDL` is on (or `writable_schema` and
    /// `DQS_DML` are); in the text of the statement itself when `DQS_DML`
    /// is on; elsewhere (a schema read from the file, views and triggers,
    /// SQL written internally) always.
    fn double_quoted_string_allowed(&self, raw: &str) -> bool {
        let s = self.env.settings;
        if self.stmt.ddl_names {
            return s.dqs_ddl || (s.writable_schema && s.dqs_dml);
        }
        // (The parser copies names out of the text; a name written in the
        // statement is found there as written, one of a CHECK or index
        // read from the schema normally is not.)
        let written = !raw.is_empty() && self.stmt.sql.windows(raw.len()).any(|w| w == raw.as_bytes());
        !written || s.dqs_dml
    }

    /// Whether the expression `text` calls an aggregate function.
    /// The name of the first aggregate call in expression text `text`.
    fn first_aggregate_in_text(&self, text: &str) -> Option<String> {
        crate::sql::parse::with_first_statement(format!("SELECT {text}").as_bytes(), |cmd, _| {
            let Some(ast::Cmd::Stmt(ast::Stmt::Select(sel))) = cmd else { return Ok(None) };
            let ast::OneSelect::Select { columns, .. } = &sel.body.select else { return Ok(None) };
            let mut found = None;
            for c in columns.iter() {
                if let ast::ResultColumn::Expr(e, _) = c {
                    crate::sql::model::expr_shape::walk(e, &mut |x| {
                        if found.is_none() && crate::sql::codegen::is_aggregate_call(self, x) {
                            if let Expr::FunctionCall { name, .. } | Expr::FunctionCallStar { name, .. } = x {
                                found = Some(unquote(name.0));
                            }
                        }
                        found.is_none()
                    });
                }
            }
            Ok(found)
        })
        .ok()
        .flatten()
    }

    /// Whether expression text `text` calls a window function.
    fn text_has_window(&self, text: &str) -> bool {
        crate::sql::parse::with_first_statement(format!("SELECT {text}").as_bytes(), |cmd, _| {
            let Some(ast::Cmd::Stmt(ast::Stmt::Select(sel))) = cmd else { return Ok(false) };
            let ast::OneSelect::Select { columns, .. } = &sel.body.select else { return Ok(false) };
            Ok(columns.iter().any(|c| matches!(c, ast::ResultColumn::Expr(e, _) if crate::sql::model::expr_shape::has_window_call(e))))
        })
        .unwrap_or(false)
    }

    pub(in crate::sql::codegen) fn text_has_aggregate(&self, text: &str) -> bool {
        crate::sql::parse::with_first_statement(format!("SELECT {text}").as_bytes(), |cmd, _| {
            let Some(ast::Cmd::Stmt(ast::Stmt::Select(sel))) = cmd else { return Ok(false) };
            let ast::OneSelect::Select { columns, .. } = &sel.body.select else { return Ok(false) };
            let mut found = false;
            for c in columns.iter() {
                if let ast::ResultColumn::Expr(e, _) = c {
                    crate::sql::model::expr_shape::walk(e, &mut |x| {
                        found |= crate::sql::codegen::is_aggregate_call(self, x);
                        !found
                    });
                }
            }
            Ok(found)
        })
        .unwrap_or(true)
    }

    fn emit_number(&mut self, n: Number, target: i32) {
        match n {
            Number::Int(i) if i >= i32::MIN as i64 && i <= i32::MAX as i64 => {
                self.b.add(Opcode::Integer, i as i32, target, 0);
            }
            Number::Int(i) => {
                self.b.add4(Opcode::Int64, 0, target, 0, P4::Int64(i), 0);
            }
            Number::Real(r) => {
                self.b.add4(Opcode::Real, 0, target, 0, P4::Real(r), 0);
            }
        }
    }

    pub(crate) fn variable(&mut self, name: &str) -> Result<i32> {
        let n = self.variable_number(name)?;
        // (Anonymous and named parameters take the next number: past the
        // limit, SQLite refuses the statement.)
        if n as usize > self.env.max_variable {
            return Err(Error::sql("too many SQL variables"));
        }
        Ok(n)
    }

    fn variable_number(&mut self, name: &str) -> Result<i32> {
        let name = &*crate::sql::params::original_name(name);
        if let Some(n) = crate::sql::params::anonymous_number(name) {
            while self.stmt.params.len() <= n {
                self.stmt.params.push(None);
            }
            return Ok(n as i32);
        }
        if name.is_empty() || name == "?" {
            self.stmt.params.push(None);
            return Ok((self.stmt.params.len() - 1) as i32);
        }
        // The parser gives `?NNN` without its `?`.
        let digits = if name.bytes().all(|b| b.is_ascii_digit()) { Some(name) } else { name.strip_prefix('?') };
        if let Some(num) = digits {
            let max = self.env.max_variable;
            let out_of_range = || Error::sql(format!("variable number must be between ?1 and ?{max}"));
            let n: usize = num.parse().map_err(|_| out_of_range())?;
            if n == 0 || n > max {
                return Err(out_of_range());
            }
            if self.stmt.params.len() <= n {
                self.stmt.params.resize(n + 1, None);
            }
            if self.stmt.params[n].is_none() {
                let mut numbered = String::with_capacity(num.len() + 1);
                numbered.push('?');
                numbered.push_str(num);
                self.stmt.params[n] = Some(numbered);
            }
            return Ok(n as i32);
        }
        if let Some(i) = self.stmt.params.iter().position(|p| p.as_deref() == Some(name)) {
            return Ok(i as i32);
        }
        self.stmt.params.push(Some(name.to_string()));
        Ok((self.stmt.params.len() - 1) as i32)
    }

    /// The accumulator of the aggregate call `e` when this query (or an
    /// enclosing one) computes it. (Keyed by the call's text: formatted
    /// only when there are aggregates to look up.)
    pub(in crate::sql::codegen) fn aggregate_register(&self, e: &Expr<'_>) -> Option<i32> {
        if self.frame.agg_regs.is_empty() {
            return None;
        }
        let acc = self.frame.agg_regs.get(&e.to_string()).copied()?;
        let owner = self.frame.agg_owner_depth.get(&acc).copied().unwrap_or(self.frame.agg_scope_depth);
        if self.names.scopes.len() <= owner || self.binds_to_owner(e, owner) {
            Some(acc)
        } else {
            None
        }
    }

    /// Whether the aggregate call `e`, written inside a subquery of the
    /// query whose scopes end at `owner`, is that query's aggregate: as
    /// in SQLite, a call belongs to the innermost query one of its
    /// columns comes from, and a call naming no column (`count(*)`,
    /// `sum(1)`) to the query it is written in. The same text in a
    /// subquery over a table of the same name is the subquery's own.
    fn binds_to_owner(&self, e: &Expr<'_>, owner: usize) -> bool {
        let Some(inputs) = aggregate_inputs(e) else { return false };
        let mut names: Vec<(Option<String>, String)> = Vec::new();
        let mut has_subquery = false;
        for a in inputs {
            crate::sql::model::expr_shape::walk(a, &mut |x| {
                names.extend(crate::sql::plan::terms::column_name(x));
                has_subquery |= matches!(x, Expr::Subquery(_) | Expr::Exists(_) | Expr::InSelect { .. });
                true
            });
        }
        if names.is_empty() || has_subquery {
            return false;
        }
        // (A copy: a lookup marks the scopes it passes as correlated.)
        let mut inner: Vec<crate::sql::resolve::Scope> = self.names.scopes[owner..].to_vec();
        names.iter().all(|(q, n)| matches!(crate::sql::resolve::resolve(&mut inner, q.as_deref(), n), Ok(None)))
    }

    /// Compute `e` into register `target`.
    /// Out of line: its stack check was inlined at each of ~30 callers.
    #[inline(never)]
    pub fn expr(&mut self, e: &Expr<'_>, target: i32) -> Result<()> {
        if self.env.interrupt.is_some_and(|f| f.load(std::sync::atomic::Ordering::Relaxed)) {
            return Err(Error::code(crate::error::SQLITE_INTERRUPT));
        }
        crate::sql::parse::with_stack(|| self.expr_inner(e, target))
    }

    /// Name resolution reached the expression whose height, added to
    /// those of the expressions around its subquery, is past the limit
    /// (`sql::parse_limits::DeferredDepth`): SQLite fails there.
    fn check_depth_point(&self, e: &Expr<'_>) -> Result<()> {
        if self.names.depth_point == Some(e as *const Expr<'_> as usize) {
            return Err(Error::sql(format!("Expression tree is too large (maximum depth {})", self.env.max_expr_depth)));
        }
        Ok(())
    }

    fn expr_inner(&mut self, e: &Expr<'_>, target: i32) -> Result<()> {
        self.check_depth_point(e)?;
        if let Some(v) = self.null_fold(e) {
            self.b.add(Opcode::Integer, v as i32, target, 0);
            return Ok(());
        }
        match e {
            // SQLite's parser built the literal 0 instead (what the other
            // side held is never resolved).
            Expr::FoldedAnd(_) => {
                self.b.add(Opcode::Integer, 0, target, 0);
            }
            Expr::Literal(lit) => match lit {
                Literal::Numeric(s) => {
                    let n = parse_numeric(s)?;
                    self.emit_number(n, target);
                }
                Literal::String(s) => {
                    let t = crate::sql::parse::string_literal_bytes(s);
                    self.b.add4(Opcode::String8, 0, target, 0, P4::bytes(t), 0);
                }
                Literal::Blob(h) => {
                    let b = decode_blob(h)?;
                    self.b.add4(Opcode::Blob, b.len() as i32, target, 0, P4::bytes(b), 0);
                }
                Literal::Null => {
                    self.b.add(Opcode::Null, 0, target, 0);
                }
                Literal::Keyword(k) => self.identifier(k, target)?,
                Literal::CurrentDate | Literal::CurrentTime | Literal::CurrentTimestamp => {
                    let (kw, f) = match lit {
                        Literal::CurrentDate => ("current_date", "date"),
                        Literal::CurrentTime => ("current_time", "time"),
                        _ => ("current_timestamp", "datetime"),
                    };
                    let def = self.env.funcs.find(kw, 0).or_else(|| self.env.funcs.find(f, 0)).ok_or_else(|| Error::sql(format!("no such function: {f}")))?;
                    self.b.add4(Opcode::Function, self.frame.pure_context, target, target, P4::Func(def), 0);
                }
            },
            Expr::Id(id) => self.identifier(id.0, target)?,
            Expr::Name(n) => self.identifier(n.0, target)?,
            Expr::Qualified(t, c) => {
                let (t, c) = (unquoted(t.0), unquoted(c.0));
                if !self.vtab_unchanged_read(&t, &c, target)? {
                    match self.resolve_name(Some(&t), &c)? {
                        // (An operand of a USING equality: `emit_join_columns`.)
                        Some(r) if self.stmt.using_leaves.contains(&(e as *const Expr<'_> as usize)) => self.emit_join_columns(&[r], target)?,
                        Some(r) => self.emit_column(&r, target)?,
                        None => return Err(no_such_column(Some(&t), &c)),
                    }
                }
            }
            // A CHECK constraint's `db.table.column`: SQLite ignores the
            // database name there.
            Expr::DoublyQualified(_, t, c) if self.frame.pure_context == 2 => {
                let (t, c) = (unquoted(t.0), unquoted(c.0));
                match self.resolve_name(Some(&t), &c)? {
                    Some(r) => self.emit_column(&r, target)?,
                    None => return Err(no_such_column(Some(&t), &c)),
                }
            }
            Expr::DoublyQualified(d, t, c) => {
                // `db.table.column`: the table must be read from that database.
                let (d, t, c) = (unquoted(d.0), unquoted(t.0), unquote(c.0));
                let found = match self.db_index(&d) {
                    Some(db) => crate::sql::resolve::resolve_in(&mut self.names.scopes, Some(db), Some(&t), &c)?,
                    None => None,
                };
                match found {
                    Some(r) => self.emit_column(&r, target)?,
                    None => return Err(Error::sql(format!("no such column: {d}.{t}.{c}"))),
                }
            }
            // A parameter in a trigger body (only a schema written by hand
            // can hold one) is NULL, as in SQLite, not the statement's.
            Expr::Variable(_) if !self.dml.firing.is_empty() => {
                self.b.add(Opcode::Null, 0, target, 0);
            }
            Expr::Variable(name) => {
                let i = self.variable(name)?;
                self.b.add(Opcode::Variable, i, target, 0);
            }
            Expr::Parenthesized(v) => {
                if v.len() != 1 {
                    return Err(Error::sql("row value misused"));
                }
                self.expr(&v[0], target)?;
            }
            Expr::Collate(inner, name) => {
                self.collation(&unquoted(name))?;
                self.expr(inner, target)?;
            }
            Expr::Unary(op, inner) => match op {
                UnaryOperator::Negative => {
                    if let Expr::Literal(Literal::Numeric(s)) = &**inner {
                        let n = match parse_numeric(s)? {
                            // Only a hex literal reads as i64::MIN; SQLite
                            // refuses to negate it.
                            Number::Int(i) if i == i64::MIN => return Err(Error::sql(format!("hex literal too big: -{s}"))),
                            Number::Int(i) => Number::Int(-i),
                            Number::Real(_) if *s == "9223372036854775808" => Number::Int(i64::MIN),
                            Number::Real(r) => Number::Real(-r),
                        };
                        self.emit_number(n, target);
                        return Ok(());
                    }
                    let r = self.expr_new(inner)?;
                    let zero = self.b.reg();
                    self.b.add(Opcode::Integer, 0, zero, 0);
                    self.b.add(Opcode::Subtract, r, zero, target);
                }
                UnaryOperator::Positive => self.expr(inner, target)?,
                UnaryOperator::Not => {
                    let r = self.expr_new(inner)?;
                    self.b.add(Opcode::Not, r, target, 0);
                }
                UnaryOperator::BitwiseNot => {
                    let r = self.expr_new(inner)?;
                    self.b.add(Opcode::BitNot, r, target, 0);
                }
            },
            Expr::Binary(l, op, r) => self.binary(l, *op, r, target)?,
            Expr::IsNull(inner) | Expr::NotNull(inner) => {
                let r = self.expr_new(inner)?;
                let done = self.b.label();
                self.b.add(Opcode::Integer, 1, target, 0);
                let op = if matches!(e, Expr::IsNull(_)) { Opcode::IsNull } else { Opcode::NotNull };
                self.b.add(op, r, done, 0);
                self.b.add(Opcode::Integer, 0, target, 0);
                self.b.bind(done);
            }
            Expr::Between { lhs, not, start, end } if self.row_between(lhs, *not, start, end, target)? => {}
            Expr::Between { lhs, not, start, end } => {
                let (x, a, b) = (self.comparison_operand(lhs)?, self.comparison_operand(start)?, self.comparison_operand(end)?);
                let t1 = self.b.reg();
                let t2 = self.b.reg();
                self.emit_comparison(Opcode::Ge, lhs, start, x, a, t1, false)?;
                self.emit_comparison(Opcode::Le, lhs, end, x, b, t2, false)?;
                self.b.add(Opcode::And, t1, t2, target);
                if *not {
                    self.b.add(Opcode::Not, target, target, 0);
                }
            }
            Expr::Case { base: Some(base), when_then_pairs, else_expr } if self.row_case(base, when_then_pairs, else_expr.as_deref(), target)? => {}
            Expr::Case { base, when_then_pairs, else_expr } => {
                let end = self.b.label();
                let base_reg = match base {
                    Some(b) => Some(self.expr_new(b)?),
                    None => None,
                };
                for (w, t) in when_then_pairs.iter() {
                    let next = self.b.label();
                    match (base, base_reg) {
                        (Some(b), Some(br)) => {
                            let wr = self.expr_new(w)?;
                            let c = self.b.reg();
                            self.emit_comparison(Opcode::Eq, b, w, br, wr, c, false)?;
                            self.b.add(Opcode::IfNot, c, next, 1);
                        }
                        _ => self.jump_if_false(w, next)?,
                    }
                    self.expr(t, target)?;
                    self.b.add(Opcode::Goto, 0, end, 0);
                    self.b.bind(next);
                }
                match else_expr {
                    Some(x) => self.expr(x, target)?,
                    None => {
                        self.b.add(Opcode::Null, 0, target, 0);
                    }
                }
                self.b.bind(end);
            }
            Expr::Cast { expr, type_name } => {
                self.expr(expr, target)?;
                let aff = Affinity::from_decltype(type_name.as_ref().map_or("", |t| t.name));
                self.b.add(Opcode::Cast, target, aff.letter() as i32, 0);
            }
            Expr::FunctionCall { name, distinctness, args, filter_over, order_by } => {
                if let Some(acc) = self.aggregate_register(e) {
                    self.read_aggregate(acc, target);
                    return Ok(());
                }
                if order_by.is_some() && (filter_over.as_ref().is_some_and(|f| f.over_clause.is_some()) || !crate::sql::codegen::is_aggregate_call(self, e)) {
                    // (An unknown function or a wrong argument count is
                    // reported first.)
                    self.lookup_function(&unquoted(name.0), args.map_or(0, |a| a.len()))?;
                    return Err(Error::sql(format!("ORDER BY may not be used with non-aggregate {}()", unquoted(name.0))));
                }
                if filter_over.as_ref().is_some_and(|f| f.over_clause.is_some()) {
                    return Err(Error::sql(format!("misuse of window function {}()", unquote(name.0))));
                }
                let fname = unquoted(name.0);
                if filter_over.as_ref().is_some_and(|f| f.filter_clause.is_some()) && !crate::sql::codegen::is_aggregate_call(self, e) {
                    return Err(Error::sql(format!("FILTER may not be used with non-aggregate {fname}()")));
                }
                let args: &[Expr<'_>] = args.unwrap_or(&[]);
                let _ = distinctness;
                if !self.call_authorized(e, &fname)? {
                    self.b.add(Opcode::Null, 0, target, 0);
                    return Ok(());
                }
                self.call(&fname, args, target)?;
            }
            Expr::FunctionCallStar { name, filter_over } => {
                if let Some(acc) = self.aggregate_register(e) {
                    self.read_aggregate(acc, target);
                    return Ok(());
                }
                if filter_over.as_ref().is_some_and(|f| f.over_clause.is_some()) {
                    return Err(Error::sql(format!("misuse of window function {}()", unquote(name.0))));
                }
                let fname = unquoted(name.0);
                if !self.call_authorized(e, &fname)? {
                    self.b.add(Opcode::Null, 0, target, 0);
                    return Ok(());
                }
                self.call(&fname, &[], target)?;
            }
            Expr::Like { lhs, not, op, rhs, escape } => {
                let fname = like_func_name(*op);
                let n = if escape.is_some() { 3 } else { 2 };
                let def = self.lookup_function(fname, n)?;
                let first = self.b.regs(n);
                self.argument(rhs, first)?;
                self.argument(lhs, first + 1)?;
                if let Some(x) = escape {
                    self.argument(x, first + 2)?;
                }
                self.b.add4(Opcode::Function, self.frame.pure_context, first, target, P4::Func(def), n as u16);
                if *not {
                    self.b.add(Opcode::Not, target, target, 0);
                }
            }
            Expr::InList { lhs, not, rhs } => self.in_list(lhs, *not, rhs.unwrap_or(&[]), target)?,
            Expr::InSelect { lhs, not, rhs } => self.in_select(lhs, *not, rhs, target)?,
            Expr::InTable { lhs, not, rhs, args } => {
                if args.is_some() {
                    return Err(Error::unsupported("table-valued functions"));
                }
                let sql = format!("SELECT * FROM {}", rhs.name.0);
                let saved = (lhs, *not);
                crate::sql::parse::with_first_statement(sql.as_bytes(), |cmd, _| match cmd {
                    Some(ast::Cmd::Stmt(ast::Stmt::Select(sel))) => self.in_select(saved.0, saved.1, sel, target),
                    _ => Err(Error::sql("malformed IN")),
                })?;
            }
            Expr::Exists(sel) => self.exists(sel, target)?,
            Expr::Subquery(sel) => self.scalar_subquery(sel, target)?,
            Expr::Raise(kind, msg) => {
                self.raise(*kind, *msg)?;
                self.b.add(Opcode::Null, 0, target, 0);
            }
        }
        Ok(())
    }

    /// Find a function with SQLite's errors.
    pub fn lookup_function(&self, name: &str, n: usize) -> Result<std::sync::Arc<crate::vdbe::func::FuncDef>> {
        match self.env.funcs.find(name, n) {
            // Variadic built-ins with a minimum (max() and min() take one).
            Some(_) if n < crate::vdbe::func::builtins::variadic_min_args(name) => Err(Error::sql(format!("wrong number of arguments to function {name}()"))),
            Some(d) => Ok(d),
            None if self.dml.stored_schema_expr => Err(Error::sql(format!("unknown function: {name}()"))),
            None if self.env.funcs.has_name(name) => Err(Error::sql(format!("wrong number of arguments to function {name}()"))),
            None => Err(Error::sql(format!("no such function: {name}"))),
        }
    }

    /// Compute function argument `a` into its register `r`: a literal or
    /// parameter is loaded once per run, as SQLite factors constant
    /// arguments out of the loop (a function call leaves its argument
    /// registers as they were).
    fn argument(&mut self, a: &Expr<'_>, r: i32) -> Result<()> {
        let n = self.b.insns.len();
        self.expr(a, r)?;
        if self.b.insns.len() == n + 1 && (is_plain_literal(a) || matches!(a, Expr::Variable(_))) {
            self.b.hoist_last_load(r);
        }
        Ok(())
    }

    fn call(&mut self, name: &str, args: &[Expr<'_>], target: i32) -> Result<()> {
        let def = self.lookup_function(name, args.len())?;
        if def.flags.builtin && args.len() == 2 && name.eq_ci("likelihood") && !is_probability(&args[1]) {
            return Err(Error::sql("second argument to likelihood() must be a constant between 0.0 and 1.0"));
        }
        if crate::sql::codegen::is_window_only(name) {
            return Err(Error::sql(format!("misuse of window function {name}()")));
        }
        // A direct-only function (load_extension(), or one registered with
        // SQLITE_DIRECTONLY) runs only from the statement's own text, one
        // not innocuous only while the schema is trusted: a view or
        // trigger body or a schema expression could be planted by whoever
        // wrote the file.
        self.check_function_usable(name, &def)?;
        if matches!(def.kind, FuncKind::Aggregate(_)) {
            if self.frame.in_aggregate_query {
                // (A code generator's error: every name was resolved
                // before, its arguments' too.)
                for a in args {
                    self.check_names(a)?;
                }
                return Err(Error::sql(format!("misuse of aggregate: {name}()")));
            }
            return Err(Error::sql(format!("misuse of aggregate function {name}()")));
        }
        // A virtual table may overload a function whose first argument is
        // one of its columns (xFindFunction).
        let def = self.vtab_overload(name, args).unwrap_or(def);
        let def = self.bind_call_collation(def, args)?;
        let first = self.b.regs(args.len());
        let substr =
            def.flags.builtin && (2..=3).contains(&args.len()) && (name.eq_ci("substr") || name.eq_ci("substring")) && args[1..].iter().all(is_plain_literal);
        if substr {
            // The literal arguments first (their order cannot matter): a
            // column read for X can then take only the bytes they select.
            for (i, a) in args.iter().enumerate().skip(1) {
                self.expr(a, first + i as i32)?;
            }
            self.expr(&args[0], first)?;
            if let Some(i) = self.b.insns.last_mut() {
                if i.opcode == Opcode::Column && i.p3 == first && i.p5 == 0 {
                    i.p5 = if args.len() == 3 { crate::vdbe::program::OPFLAG_SUBSTR3ARG } else { crate::vdbe::program::OPFLAG_SUBSTR2ARG };
                }
            }
        } else {
            for (i, a) in args.iter().enumerate() {
                self.argument(a, first + i as i32)?;
            }
        }
        if def.flags.builtin && args.len() == 1 {
            self.flag_length_only_column(name, first);
        }
        self.b.add4(Opcode::Function, self.frame.pure_context, first, target, P4::Func(def), args.len() as u16);
        Ok(())
    }

    /// The argument of built-in `length()`, `typeof()` or `octet_length()`
    /// just read by a `Column` into `arg` (the column is the whole
    /// argument): that `Column` is flagged so it reads only the record
    /// header where the function needs no bytes (SQLite's
    /// `OPFLAG_LENGTHARG`/`TYPEOFARG`/`BYTELENARG`), and a large value on
    /// overflow pages is not read at all.
    fn flag_length_only_column(&mut self, name: &str, arg: i32) {
        use crate::vdbe::program::{OPFLAG_BYTELENARG, OPFLAG_LENGTHARG, OPFLAG_TYPEOFARG};
        let flag = match name.ascii_lower().as_str() {
            "length" => OPFLAG_LENGTHARG,
            "typeof" => OPFLAG_TYPEOFARG,
            "octet_length" => OPFLAG_BYTELENARG,
            _ => return,
        };
        // (A REAL column's read is followed by its RealAffinity, which
        // keeps the class typeof() sees.)
        let n = self.b.insns.len();
        let column_at = match self.b.insns.get(n.wrapping_sub(1)) {
            Some(i) if i.opcode == Opcode::RealAffinity && i.p1 == arg => n.wrapping_sub(2),
            _ => n.wrapping_sub(1),
        };
        if let Some(i) = self.b.insns.get_mut(column_at) {
            if i.opcode == Opcode::Column && i.p3 == arg && i.p5 == 0 {
                i.p5 = flag;
            }
        }
    }

    fn binary(&mut self, l: &Expr<'_>, op: Operator, r: &Expr<'_>, target: i32) -> Result<()> {
        if matches!(op, Operator::And | Operator::Or) {
            let learned = self.learn_chain(l);
            let done = self.binary_inner(l, op, r, target);
            self.forget_chain(learned);
            return done;
        }
        self.binary_inner(l, op, r, target)
    }

    /// Learn (once per chain) whether each AND/OR node down the left spine
    /// of `e` (itself included) holds a subquery, as SQLite's parser marks
    /// each node it builds (`EP_Subquery`): bottom-up, walking each right
    /// operand once. Returns the nodes learned here, for [`Self::forget_chain`]
    /// once `e` is compiled (an enclosing call already knows the rest).
    pub(in crate::sql::codegen) fn learn_chain(&mut self, e: &Expr<'_>) -> Vec<usize> {
        let mut spine = Vec::new();
        let mut x = e;
        while let Expr::Binary(l, Operator::And | Operator::Or, _) = x {
            if self.stmt.chain_subqueries.contains_key(&node_key(x)) {
                break;
            }
            spine.push(x);
            x = l;
        }
        if spine.is_empty() {
            return Vec::new();
        }
        let mut holds = self.holds_subquery(x);
        for node in spine.iter().rev() {
            if let Expr::Binary(_, _, r) = node {
                holds = holds || has_subquery(r);
            }
            self.stmt.chain_subqueries.insert(node_key(node), i32::from(holds));
        }
        spine.into_iter().map(node_key).collect()
    }

    /// Drop what [`Self::learn_chain`] learned, before the tree can go.
    pub(in crate::sql::codegen) fn forget_chain(&mut self, learned: Vec<usize>) {
        for k in learned {
            self.stmt.chain_subqueries.remove(&k);
        }
    }

    /// Whether `e` holds a subquery (outside nested subqueries): known in
    /// O(1) for a node of a chain being compiled.
    fn holds_subquery(&self, e: &Expr<'_>) -> bool {
        self.stmt.chain_subqueries.get(&node_key(e)).map_or_else(|| has_subquery(e), |&h| h != 0)
    }

    /// The operands of an AND or OR in the order SQLite computes them:
    /// a side holding a subquery last, when the other holds none.
    pub(in crate::sql::codegen) fn operands_in_order<'x, 'y>(&self, l: &'x Expr<'y>, r: &'x Expr<'y>) -> (&'x Expr<'y>, &'x Expr<'y>) {
        if self.holds_subquery(l) && !self.holds_subquery(r) {
            (r, l)
        } else {
            (l, r)
        }
    }

    fn binary_inner(&mut self, l: &Expr<'_>, op: Operator, r: &Expr<'_>, target: i32) -> Result<()> {
        if matches!(op, Operator::And | Operator::Or) && (self.holds_subquery(l) || self.holds_subquery(r)) && !may_be_row(l) && !may_be_row(r) {
            return self.and_or_skipping_subquery(l, op, r, target);
        }
        let cmp = match op {
            Operator::Equals => Some((Opcode::Eq, false)),
            Operator::NotEquals => Some((Opcode::Ne, false)),
            Operator::Less => Some((Opcode::Lt, false)),
            Operator::LessEquals => Some((Opcode::Le, false)),
            Operator::Greater => Some((Opcode::Gt, false)),
            Operator::GreaterEquals => Some((Opcode::Ge, false)),
            Operator::Is => Some((Opcode::Eq, true)),
            Operator::IsNot => Some((Opcode::Ne, true)),
            _ => None,
        };
        if let Some((opc, null_eq)) = cmp {
            if self.row_comparison(opc, null_eq, l, r, target)? {
                return Ok(());
            }
        }
        if matches!(op, Operator::Is | Operator::IsNot) {
            if let Some(truth) = self.true_false_keyword(r) {
                // `x IS [NOT] TRUE/FALSE` tests x's truth value (NULL is
                // neither), as SQLite does, instead of comparing with 1/0.
                let v = self.expr_new(l)?;
                let is = op == Operator::Is;
                let (null_result, invert) = match (is, truth) {
                    (true, true) => (0, 0),
                    (true, false) => (1, 1),
                    (false, true) => (0, 1),
                    (false, false) => (1, 0),
                };
                self.b.add4(Opcode::IsTrue, v, target, null_result, P4::None, invert);
                return Ok(());
            }
        }
        let (lr, rr) = if cmp.is_some() { (self.comparison_operand(l)?, self.comparison_operand(r)?) } else { (self.operand(l)?, self.operand(r)?) };
        if let Some((opc, null_eq)) = cmp {
            return self.emit_comparison(opc, l, r, lr, rr, target, null_eq);
        }
        let opc = match op {
            Operator::Add => Opcode::Add,
            Operator::Subtract => Opcode::Subtract,
            Operator::Multiply => Opcode::Multiply,
            Operator::Divide => Opcode::Divide,
            Operator::Modulus => Opcode::Remainder,
            Operator::Concat => Opcode::Concat,
            Operator::BitwiseAnd => Opcode::BitAnd,
            Operator::BitwiseOr => Opcode::BitOr,
            Operator::LeftShift => Opcode::ShiftLeft,
            Operator::RightShift => Opcode::ShiftRight,
            Operator::And => {
                self.b.add(Opcode::And, lr, rr, target);
                return Ok(());
            }
            Operator::Or => {
                self.b.add(Opcode::Or, lr, rr, target);
                return Ok(());
            }
            Operator::ArrowRight | Operator::ArrowRightShift => {
                let name = if op == Operator::ArrowRight { "->" } else { "->>" };
                let def = self.lookup_function(name, 2)?;
                let first = self.b.regs(2);
                self.b.add(Opcode::SCopy, lr, first, 0);
                self.b.add(Opcode::SCopy, rr, first + 1, 0);
                self.b.add4(Opcode::Function, self.frame.pure_context, first, target, P4::Func(def), 2);
                return Ok(());
            }
            _ => return Err(Error::sql("unsupported operator")),
        };
        self.b.add(opc, rr, lr, target);
        Ok(())
    }

    /// `l AND r` / `l OR r` where a side holds a subquery, as SQLite
    /// computes it: the side without one first (see `operands_in_order`),
    /// and the other only when the first does not decide the result.
    fn and_or_skipping_subquery(&mut self, l: &Expr<'_>, op: Operator, r: &Expr<'_>, target: i32) -> Result<()> {
        let (first, second) = self.operands_in_order(l, r);
        let (skip_op, opc) = if op == Operator::And { (Opcode::IfNot, Opcode::And) } else { (Opcode::If, Opcode::Or) };
        let f = self.b.reg();
        self.expr(first, f)?;
        let decided = self.b.label();
        self.b.add(skip_op, f, decided, 0);
        let s = self.expr_new(second)?;
        self.b.add(opc, s, f, target);
        let done = self.b.label();
        self.b.add(Opcode::Goto, 0, done, 0);
        self.b.bind(decided);
        // (The truth value of the deciding side: 0 or 1.)
        self.b.add(Opcode::Or, f, f, target);
        self.b.bind(done);
        Ok(())
    }

    /// `TRUE` or `FALSE` written as a keyword (not a column of that name).
    fn true_false_keyword(&mut self, e: &Expr<'_>) -> Option<bool> {
        let name = match e {
            Expr::Id(id) => unquote(id.0),
            Expr::Name(n) => unquote(n.0),
            _ => return None,
        };
        let truth = if name.eq_ci("true") {
            true
        } else if name.eq_ci("false") {
            false
        } else {
            return None;
        };
        // Quoted names and columns called "true" are not the keyword.
        let raw = match e {
            Expr::Id(id) => id.0,
            Expr::Name(n) => n.0,
            _ => "",
        };
        if raw.starts_with(['"', '`', '[', '\'']) || matches!(self.resolve_name(None, &name), Ok(Some(_))) {
            return None;
        }
        Some(truth)
    }

    /// Compile an operand of a comparison: a subquery of several columns
    /// there is a misused row value.
    fn comparison_operand(&mut self, e: &Expr<'_>) -> Result<i32> {
        self.frame.comparing = matches!(e, Expr::Subquery(_));
        let r = self.operand(e);
        self.frame.comparing = false;
        r
    }
}

/// A number, string or NULL literal, possibly negated: an argument whose
/// evaluation has no effect and no dependence on anything.
fn is_plain_literal(e: &Expr<'_>) -> bool {
    match e {
        Expr::Literal(ast::Literal::Numeric(_) | ast::Literal::String(_) | ast::Literal::Null) => true,
        Expr::Unary(UnaryOperator::Negative | UnaryOperator::Positive, x) => is_plain_literal(x),
        _ => false,
    }
}

/// Whether `e` is what likelihood() accepts as its probability: a
/// floating-point literal (`0.5`, `1e0`; not an integer, a string, a sign
/// or an expression) between 0.0 and 1.0.
fn is_probability(e: &Expr<'_>) -> bool {
    match e {
        Expr::Literal(ast::Literal::Numeric(t)) => {
            let float = !t.starts_with("0x") && !t.starts_with("0X") && t.contains(['.', 'e', 'E']);
            float && t.replace('_', "").parse::<f64>().is_ok_and(|v| (0.0..=1.0).contains(&v))
        }
        _ => false,
    }
}

/// The key of a node in `StatementState::chain_subqueries`.
fn node_key(e: &Expr<'_>) -> usize {
    e as *const Expr<'_> as usize
}

fn has_subquery(e: &Expr<'_>) -> bool {
    crate::sql::model::expr_shape::has_subquery(e)
}
