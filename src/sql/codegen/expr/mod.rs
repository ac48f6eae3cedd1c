//! Expression code generation: `expr(e, target)` leaves the value of `e`
//! in register `target`; `jump_if_false(e, label)` tests a condition by
//! jumping (comparisons jump with their opposite operator); literal
//! operands of operators are loaded once, in the prologue (`operand`).
//!
//! Affinity and collation of comparisons follow `datatype3.txt` sections
//! 4.2 and 7.1: they are computed here at compile time and handed to the
//! comparison opcodes in P5 and P4.
//!
//! Row values (`(a, b)` and subqueries of several columns in comparisons,
//! BETWEEN, CASE and IN lists) are compiled by `row_value.rs`.
//! Expressions over an index's key columns (indexes on expressions,
//! partial-index WHERE clauses) are `index_expr.rs`'s. Every statement
//! family uses this folder; it names none of them.

pub mod index_expr;
pub mod row_value;

use crate::error::{Error, Result};
use crate::sql::codegen::{ColumnSource, Compiler};
use crate::sql::model::expr_shape::aggregate_inputs;
use crate::sql::model::expr_shape::may_be_row;
use crate::sql::parse::{unquote, unquoted};
use crate::sql::resolve::{no_such_column, resolve, ColumnRef};
use crate::value::literal::{parse_numeric, Number};
use crate::vdbe::func::{FuncDef, FuncKind};
use crate::vdbe::program::{cmp_flags, Opcode, P4};
use crate::vdbe::value_ops::Affinity;
use sqlite3_parser::ast::{self, Expr, LikeOperator, Literal, Operator, UnaryOperator};
use std::sync::Arc;

fn decode_blob(hex: &str) -> Result<Vec<u8>> {
    let h = hex.as_bytes();
    if !h.len().is_multiple_of(2) {
        return Err(Error::sql(format!("unrecognized token: \"X'{hex}'\"")));
    }
    (0..h.len() / 2).map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).map_err(|_| Error::sql(format!("unrecognized token: \"X'{hex}'\"")))).collect()
}

/// P4 for `Column` on `table`'s column `col`: its constant DEFAULT, which
/// rows written before the column was added read.
pub fn default_p4(table: &crate::sql::schema::Table, col: usize) -> P4 {
    match table.columns.get(col).and_then(|c| c.default_value.clone()) {
        Some(crate::value::Value::Integer(i)) => P4::Int64(i),
        Some(crate::value::Value::Real(x)) => P4::Real(x),
        Some(crate::value::Value::Text(t)) => P4::Bytes(t),
        _ => P4::None,
    }
}

/// The comparison affinity letter for operands with these affinities.
pub fn comparison_affinity(a: Option<Affinity>, b: Option<Affinity>) -> u16 {
    let aff = match (a, b) {
        (Some(x), Some(y)) => {
            if x.is_numeric() || y.is_numeric() {
                Affinity::Numeric
            } else {
                Affinity::Blob
            }
        }
        (Some(x), None) | (None, Some(x)) => x,
        (None, None) => Affinity::Blob,
    };
    if aff == Affinity::Blob {
        0
    } else {
        aff.letter() as u16
    }
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
                let t = unquoted(s).into_owned().into_bytes();
                self.b.hoisted_constant(|r| (Opcode::String8, 0, r, 0, P4::Bytes(t)))
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
            Expr::Binary(l, Operator::And, r) if !crate::sql::model::expr_shape::folds_to_false(e) => {
                self.jump_if_false(l, label)?;
                return self.jump_if_false(r, label);
            }
            Expr::Parenthesized(v) if v.len() == 1 => return self.jump_if_false(&v[0], label),
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

    /// Resolve an identifier, trying columns of every scope.
    pub fn resolve_name(&mut self, qualifier: Option<&str>, name: &str) -> Result<Option<ColumnRef>> {
        if (self.internal_rowid_read && name == crate::sql::resolve::INTERNAL_ROWID)
            || (!self.vtab_unchanged_flags.is_empty() && name.starts_with(crate::sql::resolve::UNCHANGED_VALUE))
        {
            return Ok(crate::sql::resolve::resolve_rowid(&self.scopes, qualifier));
        }
        resolve(&mut self.scopes, qualifier, name)
    }

    /// Emit a read of a resolved column (a VIRTUAL generated column is
    /// computed from the row's other columns).
    pub fn emit_column(&mut self, r: &ColumnRef, target: i32) -> Result<()> {
        if self.authorizer.is_some() {
            let n = self.scopes.len();
            let table = n
                .checked_sub(1 + r.depth)
                .and_then(|s| self.scopes.get(s))
                .and_then(|s| s.items.get(r.item))
                .map(|item| item.table.clone())
                .unwrap_or_default();
            if !table.is_empty() && !self.authorize_read(&table, r.column) {
                self.b.add(Opcode::Null, 0, target, 0);
                return Ok(());
            }
        }
        let key = (r.cursor, r.column.map_or(-1, |c| c as i64));
        if self.vtab_cursors.contains_key(&r.cursor) && !self.col_map.contains_key(&key) {
            match r.column {
                Some(i) => self.b.add(Opcode::VColumn, r.cursor, i as i32, target),
                None => self.b.add(Opcode::VRowid, r.cursor, target, 0),
            };
            return Ok(());
        }
        if let Some(src) = self.col_map.get(&key).copied() {
            match src {
                ColumnSource::Register(reg) => {
                    self.b.add(Opcode::SCopy, reg, target, 0);
                    // A REAL column's register may hold the integer form
                    // a record stores; a read sees the REAL.
                    if r.affinity == Affinity::Real {
                        self.b.add(Opcode::RealAffinity, target, 0, 0);
                    }
                }
                ColumnSource::Cursor(c, k) => {
                    self.b.add(Opcode::Column, c, k as i32, target);
                    // (A covering index entry may hold a REAL column's
                    // integer form too.)
                    if r.affinity == Affinity::Real {
                        self.b.add(Opcode::RealAffinity, target, 0, 0);
                    }
                }
            }
            return Ok(());
        }
        match r.column {
            None => {
                self.b.add(Opcode::Rowid, r.cursor, target, 0);
            }
            Some(i) => {
                let table = self.ref_table(r);
                if let Some(t) = table.filter(|t| t.is_virtual(i)) {
                    return self.emit_virtual_column(t, r.cursor, i, target);
                }
                let default = self.column_default(r, i);
                let field = match self.record_positions.get(&r.cursor) {
                    Some(p) => p.get(i).copied().unwrap_or(i),
                    None => table.and_then(|t| t.field_of(i)).unwrap_or(i),
                };
                self.b.add4(Opcode::Column, r.cursor, field as i32, target, default, 0);
                if r.affinity == Affinity::Real {
                    self.b.add(Opcode::RealAffinity, target, 0, 0);
                }
            }
        }
        Ok(())
    }

    /// Emit a column named without a qualifier: a USING column of a FULL
    /// JOIN is coalesce(left, right), as either side may be the
    /// NULL-filled one; of a RIGHT JOIN, the right column (never NULL
    /// filled), as SQLite reads it (`Compiler::using_coalesce`).
    pub fn emit_unqualified_column(&mut self, r: &ColumnRef, target: i32) -> Result<()> {
        match self.using_coalesce.get(&(r.cursor, r.column.map_or(-1, |c| c as i64))).cloned() {
            None => self.emit_column(r, target),
            Some(reads) => self.emit_coalesce(&reads, target),
        }
    }

    /// The columns a name without a qualifier resolved to `r` reads in
    /// its place (empty when it reads `r`).
    pub fn using_reads(&self, r: &ColumnRef) -> Vec<ColumnRef> {
        self.using_coalesce.get(&(r.cursor, r.column.map_or(-1, |c| c as i64))).cloned().unwrap_or_default()
    }

    /// Emit the first non-NULL of `columns` (NULL when all are).
    pub fn emit_coalesce(&mut self, columns: &[ColumnRef], target: i32) -> Result<()> {
        let done = self.b.label();
        for (i, c) in columns.iter().enumerate() {
            self.emit_column(c, target)?;
            if i + 1 < columns.len() {
                self.b.add(Opcode::NotNull, target, done, 0);
            }
        }
        self.b.bind(done);
        Ok(())
    }

    /// P4 for `Column`: the constant DEFAULT a short record reads.
    fn column_default(&self, r: &ColumnRef, col: usize) -> P4 {
        let n = self.scopes.len();
        let Some(item) = n.checked_sub(1 + r.depth).and_then(|s| self.scopes.get(s)).and_then(|s| s.items.get(r.item)) else {
            return P4::None;
        };
        if item.table.is_empty() {
            return P4::None;
        }
        match self.schema.table_in(Some(item.db), &item.table) {
            Some(t) => default_p4(t, col),
            None => P4::None,
        }
    }

    /// The affinity of the column `r` reads: none for a subquery's column
    /// whose expression has none (it is no BLOB column: a comparison with
    /// it takes the other side's affinity).
    fn column_affinity(&self, r: &ColumnRef) -> Option<Affinity> {
        let scope = self.scopes.len().checked_sub(1 + r.depth).and_then(|s| self.scopes.get(s));
        let col = r.column.and_then(|c| scope.and_then(|s| s.items.get(r.item)).and_then(|it| it.columns.get(c)));
        Some(r.affinity).filter(|_| !col.is_some_and(|c| c.without_affinity))
    }

    /// The affinity of an expression (`None`: no affinity).
    pub fn expr_affinity(&mut self, mut e: &Expr<'_>) -> Option<Affinity> {
        // (A loop, not recursion: 2,493 nested parentheses are legal.)
        loop {
            match e {
                Expr::Collate(inner, _) => e = inner,
                Expr::Parenthesized(v) if v.len() == 1 => e = &v[0],
                _ => break,
            }
        }
        match e {
            Expr::Id(id) => {
                let n = unquoted(id.0);
                let r = self.resolve_name(None, &n).ok().flatten();
                r.and_then(|r| self.column_affinity(&r))
            }
            Expr::Name(n) => {
                let n = unquoted(n.0);
                let r = self.resolve_name(None, &n).ok().flatten();
                r.and_then(|r| self.column_affinity(&r))
            }
            Expr::Qualified(t, c) | Expr::DoublyQualified(_, t, c) => {
                let (t, c) = (unquoted(t.0), unquoted(c.0));
                let r = self.resolve_name(Some(&t), &c).ok().flatten();
                r.and_then(|r| self.column_affinity(&r))
            }
            Expr::Cast { type_name, .. } => Some(Affinity::from_decltype(type_name.as_ref().map_or("", |t| t.name))),
            // A scalar subquery has its first result column's affinity
            // (known once it is compiled, as it is before it is compared).
            Expr::Subquery(sel) => self.subquery_affinity.get(&(*sel as *const ast::Select<'_> as usize)).copied().flatten(),
            _ => None,
        }
    }

    /// The collation an expression carries (explicit COLLATE first, then a
    /// column's declared collation).
    /// `def` bound to the collating sequence of its arguments when it is a
    /// built-in that compares text (min, max, nullif): the first argument
    /// that has a collation gives it, as in SQLite; BINARY keeps `def`.
    pub(super) fn bind_call_collation<'e, 's: 'e>(&mut self, def: Arc<FuncDef>, args: impl IntoIterator<Item = &'e Expr<'s>>) -> Result<Arc<FuncDef>> {
        if !crate::vdbe::func::builtins::needs_collation(&def) {
            return Ok(def);
        }
        let Some((name, _)) = args.into_iter().find_map(|a| self.collation_of(a)) else { return Ok(def) };
        if name.eq_ignore_ascii_case("BINARY") {
            return Ok(def);
        }
        let coll = self.collation(&name)?;
        Ok(crate::vdbe::func::builtins::with_collation(&def, &coll))
    }

    pub fn expr_collation(&mut self, e: &Expr<'_>) -> Option<(String, bool)> {
        self.collation_of(e).map(|(n, explicit)| (n.into_owned(), explicit))
    }

    /// [`Compiler::expr_collation`] without copying the name BINARY
    /// every column without a declared collation has.
    fn collation_of(&mut self, e: &Expr<'_>) -> Option<(std::borrow::Cow<'static, str>, bool)> {
        match e {
            Expr::Collate(_, c) => Some((unquote(c).into(), true)),
            Expr::Parenthesized(v) if v.len() == 1 => self.collation_of(&v[0]),
            // Unary + and CAST keep their operand's collation.
            Expr::Unary(UnaryOperator::Positive, x) | Expr::Cast { expr: x, .. } => self.collation_of(x),
            Expr::Binary(l, op, r)
                if !matches!(
                    op,
                    Operator::Equals
                        | Operator::NotEquals
                        | Operator::Less
                        | Operator::LessEquals
                        | Operator::Greater
                        | Operator::GreaterEquals
                        | Operator::Is
                        | Operator::IsNot
                        | Operator::And
                        | Operator::Or
                ) =>
            {
                // An explicit COLLATE on either operand carries through.
                match self.collation_of(l) {
                    Some((n, true)) => Some((n, true)),
                    _ => self.collation_of(r).filter(|(_, explicit)| *explicit),
                }
            }
            // An explicit COLLATE on an argument carries out of a function
            // call, as in SQLite (`max(b COLLATE nocase) || ''`).
            Expr::FunctionCall { args: Some(args), .. } => args.iter().find_map(|a| self.collation_of(a).filter(|(_, explicit)| *explicit)),
            // So does one in a CASE: the operand's, else the first among
            // the WHEN/THEN/ELSE terms in order, whichever branch runs.
            Expr::Case { base, when_then_pairs, else_expr } => base
                .iter()
                .map(|b| &**b)
                .chain(when_then_pairs.iter().flat_map(|(w, t)| [w, t]))
                .chain(else_expr.iter().map(|e| &**e))
                .find_map(|x| self.collation_of(x).filter(|(_, explicit)| *explicit)),
            // A column always carries a collation (BINARY unless declared),
            // so a column on the left wins over one on the right.
            Expr::Id(id) => {
                let n = unquoted(id.0);
                match self.resolve_name(None, &n) {
                    Ok(Some(r)) => Some((r.collation.map_or(std::borrow::Cow::Borrowed("BINARY"), std::borrow::Cow::Owned), false)),
                    // A result alias carries its expression's collation
                    // (`SELECT a AS x ... WHERE x < 'c'` compares as `a`).
                    _ => self.alias_collation(&n),
                }
            }
            Expr::Qualified(t, c) | Expr::DoublyQualified(_, t, c) => {
                let (t, c) = (unquoted(t.0), unquoted(c.0));
                self.resolve_name(Some(&t), &c)
                    .ok()
                    .flatten()
                    .map(|r| (r.collation.map_or(std::borrow::Cow::Borrowed("BINARY"), std::borrow::Cow::Owned), false))
            }
            _ => None,
        }
    }

    /// Result alias `name` of this SELECT or of an enclosing one (the
    /// innermost first): its nesting level in `aliases` and its SQL text.
    fn find_alias(&self, name: &str) -> Option<(usize, String)> {
        self.aliases.iter().enumerate().rev().find_map(|(level, a)| a.list.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, t)| (level, t.clone())))
    }

    /// The collation of the expression behind result alias `name`, if it
    /// is one (seen as [`Compiler::identifier`] sees it).
    fn alias_collation(&mut self, name: &str) -> Option<(std::borrow::Cow<'static, str>, bool)> {
        let (level, text) = self.find_alias(name)?;
        let saved = self.aliases.split_off(level);
        let sql = format!("SELECT {text}");
        let found = crate::sql::parse::with_first_statement(sql.as_bytes(), |cmd, _| {
            if let Some(ast::Cmd::Stmt(ast::Stmt::Select(sel))) = cmd {
                if let ast::OneSelect::Select { columns, .. } = &sel.body.select {
                    if let Some(ast::ResultColumn::Expr(e, _)) = columns.first() {
                        return Ok(self.collation_of(e));
                    }
                }
            }
            Ok(None)
        });
        self.aliases.extend(saved);
        found.ok().flatten()
    }

    /// The collation for comparing `l` with `r`.
    pub fn comparison_collation(&mut self, l: &Expr<'_>, r: &Expr<'_>) -> Result<P4> {
        // When no column in scope declares a collation, every column's is
        // BINARY and only an explicit COLLATE can choose another: the
        // column names need not be resolved (every statement compares).
        // (A result alias may stand for an expression with a COLLATE.)
        let declared = self.scopes.iter().any(|s| s.items.iter().any(|it| it.columns.iter().any(|c| c.collation.is_some())))
            || self.aliases.iter().any(|a| !a.list.is_empty());
        if !declared {
            let name = explicit_collation_of(l).or_else(|| explicit_collation_of(r));
            return match name {
                Some(n) if !n.eq_ignore_ascii_case("BINARY") => Ok(P4::Coll(self.collation(&n)?)),
                _ => Ok(P4::None),
            };
        }
        let lc = self.collation_of(l);
        let rc = self.collation_of(r);
        let name = match (lc, rc) {
            (Some((n, true)), _) => Some(n),
            (_, Some((n, true))) => Some(n),
            (Some((n, false)), _) => Some(n),
            (_, Some((n, false))) => Some(n),
            _ => None,
        };
        match name {
            Some(n) if !n.eq_ignore_ascii_case("BINARY") => Ok(P4::Coll(self.collation(&n)?)),
            _ => Ok(P4::None),
        }
    }

    /// Emit a comparison `l op r` storing 1/0/NULL in `target`.
    pub fn emit_comparison(&mut self, op: Opcode, l: &Expr<'_>, r: &Expr<'_>, lr: i32, rr: i32, target: i32, null_eq: bool) -> Result<()> {
        let la = self.expr_affinity(l);
        let ra = self.expr_affinity(r);
        let aff = comparison_affinity(la, ra);
        let coll = self.comparison_collation(l, r)?;
        let mut p5 = aff | cmp_flags::STOREP2;
        if null_eq {
            p5 |= cmp_flags::NULLEQ;
        }
        self.b.add4(op, rr, target, lr, coll, p5);
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
        let from = self.agg_owner_depth.get(&acc).copied().unwrap_or(self.agg_scope_depth);
        if from > 0 {
            for s in self.scopes.iter_mut().skip(from) {
                s.correlated = true;
            }
        }
        self.b.add(Opcode::SCopy, acc, target, 0);
    }

    /// Compute the expression `text` of alias `name` of the SELECT at
    /// alias level `level` (its scopes the innermost open).
    fn enclosing_alias(&mut self, level: usize, name: &str, text: &str, target: i32) -> Result<()> {
        if level + 1 < self.aliases.len() && self.text_has_window(text) {
            return Err(Error::sql(format!("misuse of aliased window function {name}")));
        }
        if level + 1 < self.aliases.len() && self.text_has_aggregate(text) {
            // (Where the enclosing query computes its aggregates, they
            // are in `agg_regs` and the alias is no aggregate here.)
            let name = self.first_aggregate_in_text(text).unwrap_or_default();
            return Err(Error::sql(format!("misuse of aggregate: {name}()")));
        }
        // The alias's own expression may not name it (nor those inside).
        let saved = self.aliases.split_off(level);
        let r = self.expr_text(text, target);
        self.aliases.extend(saved);
        r
    }

    fn identifier(&mut self, raw: &str, target: i32) -> Result<()> {
        let name = unquoted(raw);

        if let Some(r) = self.resolve_name(None, &name)? {
            if self.internal_rowid_read && r.column.is_none() && name == crate::sql::resolve::INTERNAL_ROWID {
                // The rowids an UPDATE/DELETE visits: not a read to authorize.
                let auth = self.authorizer.take();
                self.emit_column(&r, target)?;
                self.authorizer = auth;
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
            let depth = self.aliases[level].scope_depth;
            let inner = if level + 1 < self.aliases.len() && depth < self.scopes.len() { self.scopes.split_off(depth) } else { Vec::new() };
            let passed = !inner.is_empty();
            // (Nor are the aggregates of the queries nested deeper theirs.)
            let saved_aggs = passed.then(|| {
                let all = self.agg_regs.clone();
                let default_owner = self.agg_scope_depth;
                let owner = |acc: &i32| self.agg_owner_depth.get(acc).copied().unwrap_or(default_owner);
                let mut visible = crate::sql::fast_hash::FastMap::default();
                for (key, &acc) in &self.agg_regs {
                    // (An entry of a deeper query may hide the enclosing one's.)
                    let mut acc = Some(acc);
                    while let Some(a) = acc.filter(|a| owner(a) > depth) {
                        acc = self.agg_shadowed.get(&a).copied();
                    }
                    if let Some(a) = acc {
                        visible.insert(key.clone(), a);
                    }
                }
                self.agg_regs = visible;
                (all, std::mem::replace(&mut self.agg_scope_depth, default_owner.min(depth)))
            });
            let r = self.enclosing_alias(level, &name, &text, target);
            if let Some((all, scope_depth)) = saved_aggs {
                self.agg_regs = all;
                self.agg_scope_depth = scope_depth;
            }
            self.scopes.extend(inner);
            if passed {
                for s in self.scopes.iter_mut().skip(depth) {
                    s.correlated = true;
                }
            }
            return r;
        }
        if raw.starts_with('"') {
            self.b.add4(Opcode::String8, 0, target, 0, P4::Bytes(name.into_owned().into_bytes()), 0);
            return Ok(());
        }
        if name.eq_ignore_ascii_case("true") || name.eq_ignore_ascii_case("false") {
            self.b.add(Opcode::Integer, name.eq_ignore_ascii_case("true") as i32, target, 0);
            return Ok(());
        }
        Err(no_such_column(None, &name))
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
        if n as usize > self.max_variable {
            return Err(Error::sql("too many SQL variables"));
        }
        Ok(n)
    }

    fn variable_number(&mut self, name: &str) -> Result<i32> {
        let name = &*crate::sql::params::original_name(name);
        if let Some(n) = crate::sql::params::anonymous_number(name) {
            while self.params.len() <= n {
                self.params.push(None);
            }
            return Ok(n as i32);
        }
        if name.is_empty() || name == "?" {
            self.params.push(None);
            return Ok((self.params.len() - 1) as i32);
        }
        // The parser gives `?NNN` without its `?`.
        let digits = if name.bytes().all(|b| b.is_ascii_digit()) { Some(name) } else { name.strip_prefix('?') };
        if let Some(num) = digits {
            let max = self.max_variable;
            let out_of_range = || Error::sql(format!("variable number must be between ?1 and ?{max}"));
            let n: usize = num.parse().map_err(|_| out_of_range())?;
            if n == 0 || n > max {
                return Err(out_of_range());
            }
            if self.params.len() <= n {
                self.params.resize(n + 1, None);
            }
            if self.params[n].is_none() {
                let mut numbered = String::with_capacity(num.len() + 1);
                numbered.push('?');
                numbered.push_str(num);
                self.params[n] = Some(numbered);
            }
            return Ok(n as i32);
        }
        if let Some(i) = self.params.iter().position(|p| p.as_deref() == Some(name)) {
            return Ok(i as i32);
        }
        self.params.push(Some(name.to_string()));
        Ok((self.params.len() - 1) as i32)
    }

    /// The accumulator of the aggregate call `e` when this query (or an
    /// enclosing one) computes it. (Keyed by the call's text: formatted
    /// only when there are aggregates to look up.)
    pub(in crate::sql::codegen) fn aggregate_register(&self, e: &Expr<'_>) -> Option<i32> {
        if self.agg_regs.is_empty() {
            return None;
        }
        let acc = self.agg_regs.get(&e.to_string()).copied()?;
        let owner = self.agg_owner_depth.get(&acc).copied().unwrap_or(self.agg_scope_depth);
        if self.scopes.len() <= owner || self.binds_to_owner(e, owner) {
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
        let mut inner: Vec<crate::sql::resolve::Scope> = self.scopes[owner..].to_vec();
        names.iter().all(|(q, n)| matches!(crate::sql::resolve::resolve(&mut inner, q.as_deref(), n), Ok(None)))
    }

    /// Compute `e` into register `target`.
    pub fn expr(&mut self, e: &Expr<'_>, target: i32) -> Result<()> {
        crate::sql::parse::with_stack(|| self.expr_inner(e, target))
    }

    /// Name resolution reached the expression whose height, added to
    /// those of the expressions around its subquery, is past the limit
    /// (`sql::parse_limits::DeferredDepth`): SQLite fails there.
    fn check_depth_point(&self, e: &Expr<'_>) -> Result<()> {
        if self.depth_point == Some(e as *const Expr<'_> as usize) {
            return Err(Error::sql(format!("Expression tree is too large (maximum depth {})", self.max_expr_depth)));
        }
        Ok(())
    }

    fn expr_inner(&mut self, e: &Expr<'_>, target: i32) -> Result<()> {
        self.check_depth_point(e)?;
        match e {
            // SQLite's parser built the literal 0 instead (what the other
            // side held is never resolved).
            Expr::Binary(..) if crate::sql::model::expr_shape::folds_to_false(e) => {
                self.b.add(Opcode::Integer, 0, target, 0);
            }
            Expr::Literal(lit) => match lit {
                Literal::Numeric(s) => {
                    let n = parse_numeric(s)?;
                    self.emit_number(n, target);
                }
                Literal::String(s) => {
                    let t = unquoted(s);
                    self.b.add4(Opcode::String8, 0, target, 0, P4::Bytes(t.into_owned().into_bytes()), 0);
                }
                Literal::Blob(h) => {
                    let b = decode_blob(h)?;
                    self.b.add4(Opcode::Blob, b.len() as i32, target, 0, P4::Bytes(b), 0);
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
                    let def = self.funcs.find(kw, 0).or_else(|| self.funcs.find(f, 0)).ok_or_else(|| Error::sql(format!("no such function: {f}")))?;
                    self.b.add4(Opcode::Function, self.pure_context, target, target, P4::Func(def), 0);
                }
            },
            Expr::Id(id) => self.identifier(id.0, target)?,
            Expr::Name(n) => self.identifier(n.0, target)?,
            Expr::Qualified(t, c) => {
                let (t, c) = (unquoted(t.0), unquoted(c.0));
                if !self.vtab_unchanged_read(&t, &c, target)? {
                    match self.resolve_name(Some(&t), &c)? {
                        Some(r) => self.emit_column(&r, target)?,
                        None => return Err(no_such_column(Some(&t), &c)),
                    }
                }
            }
            // A CHECK constraint's `db.table.column`: SQLite ignores the
            // database name there.
            Expr::DoublyQualified(_, t, c) if self.pure_context == 2 => {
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
                    Some(db) => crate::sql::resolve::resolve_in(&mut self.scopes, Some(db), Some(&t), &c)?,
                    None => None,
                };
                match found {
                    Some(r) => self.emit_column(&r, target)?,
                    None => return Err(Error::sql(format!("no such column: {d}.{t}.{c}"))),
                }
            }
            // A parameter in a trigger body (only a schema written by hand
            // can hold one) is NULL, as in SQLite, not the statement's.
            Expr::Variable(_) if !self.firing.is_empty() => {
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
                if !self.authorize_function(&fname)? {
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
                if !self.authorize_function(&fname)? {
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
                self.expr(rhs, first)?;
                self.expr(lhs, first + 1)?;
                if let Some(x) = escape {
                    self.expr(x, first + 2)?;
                }
                self.b.add4(Opcode::Function, self.pure_context, first, target, P4::Func(def), n as u16);
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
        match self.funcs.find(name, n) {
            // Variadic built-ins with a minimum (max() and min() take one).
            Some(_) if n < crate::vdbe::func::builtins::variadic_min_args(name) => Err(Error::sql(format!("wrong number of arguments to function {name}()"))),
            Some(d) => Ok(d),
            None if self.stored_schema_expr => Err(Error::sql(format!("unknown function: {name}()"))),
            None if self.funcs.has_name(name) => Err(Error::sql(format!("wrong number of arguments to function {name}()"))),
            None => Err(Error::sql(format!("no such function: {name}"))),
        }
    }

    fn call(&mut self, name: &str, args: &[Expr<'_>], target: i32) -> Result<()> {
        let def = self.lookup_function(name, args.len())?;
        if def.flags.builtin && args.len() == 2 && name.eq_ignore_ascii_case("likelihood") && !is_probability(&args[1]) {
            return Err(Error::sql("second argument to likelihood() must be a constant between 0.0 and 1.0"));
        }
        if crate::sql::codegen::is_window_only(name) {
            return Err(Error::sql(format!("misuse of window function {name}()")));
        }
        // A direct-only function (load_extension(), or one registered with
        // SQLITE_DIRECTONLY) runs only from the statement's own text: a
        // view or trigger body or a schema expression (CHECK, index key,
        // generated column) could be planted by whoever wrote the file.
        let from_ddl = self.pure_context != 0 || self.stored_schema_expr || !self.view_texts.is_empty() || !self.firing.is_empty();
        if def.flags.direct_only && from_ddl {
            return Err(Error::sql(format!("unsafe use of {name}()")));
        }
        if matches!(def.kind, FuncKind::Aggregate(_)) {
            if self.in_aggregate_query {
                return Err(Error::sql(format!("misuse of aggregate: {name}()")));
            }
            return Err(Error::sql(format!("misuse of aggregate function {name}()")));
        }
        // A virtual table may overload a function whose first argument is
        // one of its columns (xFindFunction).
        let def = self.vtab_overload(name, args).unwrap_or(def);
        let def = self.bind_call_collation(def, args)?;
        let first = self.b.regs(args.len());
        let substr = def.flags.builtin
            && (2..=3).contains(&args.len())
            && (name.eq_ignore_ascii_case("substr") || name.eq_ignore_ascii_case("substring"))
            && args[1..].iter().all(is_plain_literal);
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
                self.expr(a, first + i as i32)?;
            }
        }
        if def.flags.builtin && args.len() == 1 {
            self.flag_length_only_column(name, first);
        }
        self.b.add4(Opcode::Function, self.pure_context, first, target, P4::Func(def), args.len() as u16);
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
        let flag = match name.to_ascii_lowercase().as_str() {
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
                self.b.add4(Opcode::Function, self.pure_context, first, target, P4::Func(def), 2);
                return Ok(());
            }
            _ => return Err(Error::sql("unsupported operator")),
        };
        self.b.add(opc, rr, lr, target);
        Ok(())
    }

    fn in_list(&mut self, lhs: &Expr<'_>, not: bool, list: &[Expr<'_>], target: i32) -> Result<()> {
        // `x IN ((SELECT ...))` is `x IN (SELECT ...)`, as SQLite parses it.
        if let [item] = list {
            if let Expr::Subquery(sel) = crate::sql::model::expr_shape::strip_parens(item) {
                return self.in_select(lhs, not, sel, target);
            }
        }
        if self.row_in_list(lhs, not, list, target)? {
            return Ok(());
        }
        if list.is_empty() {
            self.b.add(Opcode::Integer, not as i32, target, 0);
            return Ok(());
        }
        let x = self.expr_new(lhs)?;
        let found = self.b.label();
        let null_result = self.b.label();
        let done = self.b.label();
        let has_null = self.b.reg();
        self.b.add(Opcode::Integer, 0, has_null, 0);
        self.b.add(Opcode::IsNull, x, null_result, 0);
        let t = self.b.reg();
        for item in list {
            let v = self.expr_new(item)?;
            // Only the left side's affinity applies (the list's values are
            // plain expressions, even columns), as SQLite does.
            let aff = comparison_affinity(self.expr_affinity(lhs), None);
            // And only its collation (a COLLATE on an item is ignored).
            let coll = match self.expr_collation(lhs) {
                Some((n, _)) if !n.eq_ignore_ascii_case("BINARY") => P4::Coll(self.collation(&n)?),
                _ => P4::None,
            };
            self.b.add4(Opcode::Eq, v, t, x, coll, aff | cmp_flags::STOREP2);
            self.b.add(Opcode::If, t, found, 0);
            let nn = self.b.label();
            self.b.add(Opcode::NotNull, v, nn, 0);
            self.b.add(Opcode::Integer, 1, has_null, 0);
            self.b.bind(nn);
        }
        self.b.add(Opcode::If, has_null, null_result, 0);
        self.b.add(Opcode::Integer, not as i32, target, 0);
        self.b.add(Opcode::Goto, 0, done, 0);
        self.b.bind(found);
        self.b.add(Opcode::Integer, !not as i32, target, 0);
        self.b.add(Opcode::Goto, 0, done, 0);
        self.b.bind(null_result);
        self.b.add(Opcode::Null, 0, target, 0);
        self.b.bind(done);
        Ok(())
    }

    /// Emit `Once` whose target is patched later; returns its address.
    fn once_placeholder(&mut self) -> usize {
        self.b.add(Opcode::Once, 0, 0, 0)
    }

    pub(in crate::sql::codegen) fn finish_once(&mut self, addr: usize, correlated: bool) {
        // (In a trigger body, once per firing: a trigger program runs in
        // a frame of its own, and an inline body's `TriggerEnter` forgets
        // the `Once` flags of the body as each firing starts.)
        if correlated {
            self.b.insns[addr].opcode = Opcode::Noop;
        } else {
            let here = self.b.here();
            self.b.insns[addr].p2 = here as i32;
        }
    }

    /// The ephemeral index of the values `column IN (sel)` hands a
    /// virtual table: the subquery's rows under the comparison's
    /// affinity (the column's `column_affinity` against the subquery's)
    /// and `collation`, filled once unless the subquery is correlated.
    pub(in crate::sql::codegen) fn in_select_values(&mut self, sel: &ast::Select<'_>, column_affinity: Option<Affinity>, collation: &str) -> Result<i32> {
        let cur = self.b.cursor();
        let once = self.once_placeholder();
        let key = crate::value::record::KeyField { collation: self.collation(collation)?, descending: false };
        self.b.add4(Opcode::OpenEphemeral, cur, 1, 0, P4::KeyInfo(Arc::new(crate::value::record::KeyInfo { fields: vec![key] })), 0);
        let info = self.compile_select(sel, crate::sql::model::query::Dest::EphemIndex(cur))?;
        if info.n_columns != 1 {
            return Err(Error::sql(format!("sub-select returns {} columns - expected 1", info.n_columns)));
        }
        self.finish_once(once, info.correlated);
        let aff = comparison_affinity(column_affinity, info.first_affinity);
        let at = self.ephem_records.remove(&cur).unwrap_or_default();
        if aff != 0 {
            let letter = (aff as u8 as char).to_string();
            for at in at {
                self.b.insns[at].p4 = P4::Affinity(letter.clone());
            }
        }
        Ok(cur)
    }

    /// The ephemeral index of the rows `(a, b) IN (sel)` hands a virtual
    /// table slice by slice (`width` columns), filled once unless the
    /// subquery is correlated.
    pub(in crate::sql::codegen) fn in_select_rows(&mut self, sel: &ast::Select<'_>, width: usize) -> Result<i32> {
        let cur = self.b.cursor();
        let once = self.once_placeholder();
        let fields =
            (0..width).map(|_| crate::value::record::KeyField { collation: crate::value::collation::Collation::binary(), descending: false }).collect();
        self.b.add4(Opcode::OpenEphemeral, cur, width as i32, 0, P4::KeyInfo(Arc::new(crate::value::record::KeyInfo { fields })), 0);
        let info = self.compile_select(sel, crate::sql::model::query::Dest::EphemIndex(cur))?;
        if info.n_columns != width {
            return Err(Error::sql(format!("sub-select returns {} columns - expected {width}", info.n_columns)));
        }
        self.finish_once(once, info.correlated);
        Ok(cur)
    }

    fn in_select(&mut self, lhs: &Expr<'_>, not: bool, sel: &ast::Select<'_>, target: i32) -> Result<()> {
        if may_be_row(lhs) && self.row_width_of(lhs)? > 1 {
            return self.in_select_row(lhs, not, sel, target);
        }
        let cur = self.b.cursor();
        let once = self.once_placeholder();
        let open = self.b.add4(
            Opcode::OpenEphemeral,
            cur,
            1,
            0,
            P4::KeyInfo(std::sync::Arc::new(crate::value::record::KeyInfo {
                fields: vec![crate::value::record::KeyField { collation: crate::value::collation::Collation::binary(), descending: false }],
            })),
            0,
        );
        let info = self.compile_select(sel, crate::sql::model::query::Dest::EphemIndex(cur))?;
        if info.n_columns != 1 {
            return Err(Error::sql(format!("sub-select returns {} columns - expected 1", info.n_columns)));
        }
        // Values are matched under the comparison's collation: the left
        // side's when it has one, else the subquery column's.
        let coll_name = self.expr_collation(lhs).map(|(n, _)| n).or_else(|| info.collations.first().cloned().flatten());
        if let Some(name) = coll_name {
            let collation = self.collation(&name)?;
            self.b.insns[open].p4 = P4::KeyInfo(std::sync::Arc::new(crate::value::record::KeyInfo {
                fields: vec![crate::value::record::KeyField { collation, descending: false }],
            }));
        }
        self.finish_once(once, info.correlated);
        let x = self.expr_new(lhs)?;
        let aff = comparison_affinity(self.expr_affinity(lhs), info.first_affinity);
        if aff != 0 {
            let letter = (aff as u8 as char).to_string();
            for at in self.ephem_records.remove(&cur).unwrap_or_default() {
                self.b.insns[at].p4 = P4::Affinity(letter.clone());
            }
            self.b.add4(Opcode::Affinity, x, 1, 0, P4::Affinity(letter), 0);
        }
        let found = self.b.label();
        let is_false = self.b.label();
        let null_result = self.b.label();
        let done = self.b.label();
        let t = self.b.reg();
        let nn = self.b.label();
        self.b.add(Opcode::NotNull, x, nn, 0);
        self.b.add(Opcode::Rewind, cur, is_false, 0);
        self.b.add(Opcode::Goto, 0, null_result, 0);
        self.b.bind(nn);
        self.b.add4(Opcode::Found, cur, found, x, P4::Int64(1), 0);
        self.b.add(Opcode::Rewind, cur, is_false, 0);
        self.b.add(Opcode::Column, cur, 0, t);
        self.b.add(Opcode::NotNull, t, is_false, 0);
        self.in_outcome(InLabels { null_result, is_false, found, done }, not, target);
        Ok(())
    }

    /// `(a, b, ...) IN (SELECT x, y, ...)`: true when a row matches every
    /// field; false when every row differs from the left side in a field
    /// where neither is NULL; NULL otherwise (a NULL left the outcome open).
    fn in_select_row(&mut self, lhs: &Expr<'_>, not: bool, sel: &ast::Select<'_>, target: i32) -> Result<()> {
        let n = self.row_width_of(lhs)?;
        let cur = self.b.cursor();
        let once = self.once_placeholder();
        let fields = (0..n).map(|_| crate::value::record::KeyField { collation: crate::value::collation::Collation::binary(), descending: false }).collect();
        self.b.add4(Opcode::OpenEphemeral, cur, n as i32, 0, P4::KeyInfo(std::sync::Arc::new(crate::value::record::KeyInfo { fields })), 0);
        let info = self.compile_select(sel, crate::sql::model::query::Dest::EphemIndex(cur))?;
        if info.n_columns != n {
            return Err(Error::sql(format!("sub-select returns {} columns - expected {n}", info.n_columns)));
        }
        self.finish_once(once, info.correlated);
        // The left side's fields, in consecutive registers from `x`.
        let mut x = 0;
        let mut traits = Vec::with_capacity(n);
        for (i, f) in self.eval_row(lhs)?.into_iter().enumerate() {
            match f {
                crate::sql::codegen::expr::row_value::RowField::Value { reg, traits: t } => {
                    if i == 0 {
                        x = reg;
                    }
                    traits.push(t);
                }
                crate::sql::codegen::expr::row_value::RowField::Row(_) => return Err(crate::sql::codegen::expr::row_value::misused()),
            }
        }
        let affs: String = traits
            .iter()
            .map(|t| {
                let a = t.affinity.map_or('A', |a| a.letter());
                if matches!(a, 'C' | 'D' | 'E') {
                    a
                } else {
                    'A'
                }
            })
            .collect();
        if affs.chars().any(|c| c != 'A') {
            for at in self.ephem_records.remove(&cur).unwrap_or_default() {
                self.b.insns[at].p4 = P4::Affinity(affs.clone());
            }
            self.b.add4(Opcode::Affinity, x, n as i32, 0, P4::Affinity(affs), 0);
        }
        let found = self.b.label();
        let is_false = self.b.label();
        let null_result = self.b.label();
        let done = self.b.label();
        let scan = self.b.label();
        for i in 0..n as i32 {
            self.b.add(Opcode::IsNull, x + i, scan, 0);
        }
        self.b.add4(Opcode::Found, cur, found, x, P4::Int64(n as i64), 0);
        // No exact match: a row counts against NULL only if no field pair
        // is definitely different.
        self.b.bind(scan);
        self.b.add(Opcode::Rewind, cur, is_false, 0);
        let top = self.b.here() as i32;
        let next = self.b.label();
        let t = self.b.reg();
        let eq = self.b.reg();
        for (i, ft) in traits.iter().enumerate() {
            self.b.add(Opcode::Column, cur, i as i32, t);
            self.compare_registers(Opcode::Eq, false, ft, ft, x + i as i32, t, eq)?;
            // 0: this row differs for sure.
            self.b.add(Opcode::IfNot, eq, next, 0);
        }
        self.b.add(Opcode::Goto, 0, null_result, 0);
        self.b.bind(next);
        self.b.add(Opcode::Next, cur, top, 0);
        self.b.add(Opcode::Goto, 0, is_false, 0);
        self.in_outcome(InLabels { null_result, is_false, found, done }, not, target);
        Ok(())
    }

    /// The end of an IN test: each label sets `target` to its outcome
    /// (NULL, false or true, reversed by NOT IN).
    fn in_outcome(&mut self, l: InLabels, not: bool, target: i32) {
        self.b.bind(l.null_result);
        self.b.add(Opcode::Null, 0, target, 0);
        self.b.add(Opcode::Goto, 0, l.done, 0);
        self.b.bind(l.is_false);
        self.b.add(Opcode::Integer, not as i32, target, 0);
        self.b.add(Opcode::Goto, 0, l.done, 0);
        self.b.bind(l.found);
        self.b.add(Opcode::Integer, !not as i32, target, 0);
        self.b.bind(l.done);
    }

    fn exists(&mut self, sel: &ast::Select<'_>, target: i32) -> Result<()> {
        let r = self.b.reg();
        let once = self.once_placeholder();
        self.b.add(Opcode::Integer, 0, r, 0);
        let done = self.b.label();
        let info = self.compile_select(sel, crate::sql::model::query::Dest::Exists { reg: r, done })?;
        self.b.bind(done);
        self.finish_once(once, info.correlated);
        self.b.add(Opcode::SCopy, r, target, 0);
        Ok(())
    }

    /// `TRUE` or `FALSE` written as a keyword (not a column of that name).
    fn true_false_keyword(&mut self, e: &Expr<'_>) -> Option<bool> {
        let name = match e {
            Expr::Id(id) => unquote(id.0),
            Expr::Name(n) => unquote(n.0),
            _ => return None,
        };
        let truth = if name.eq_ignore_ascii_case("true") {
            true
        } else if name.eq_ignore_ascii_case("false") {
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
        self.comparing = matches!(e, Expr::Subquery(_));
        let r = self.operand(e);
        self.comparing = false;
        r
    }

    fn scalar_subquery(&mut self, sel: &ast::Select<'_>, target: i32) -> Result<()> {
        // Its own expressions are not operands of the comparison.
        let saved = std::mem::replace(&mut self.comparing, false);
        let r = self.scalar_subquery_body(sel, target, saved);
        self.comparing = saved;
        r
    }

    fn scalar_subquery_body(&mut self, sel: &ast::Select<'_>, target: i32, comparing: bool) -> Result<()> {
        let r = self.b.reg();
        let once = self.once_placeholder();
        self.b.add(Opcode::Null, 0, r, 0);
        let done = self.b.label();
        let info = self.compile_select(sel, crate::sql::model::query::Dest::Scalar { reg: r, done })?;
        self.subquery_affinity.insert(sel as *const ast::Select<'_> as usize, info.first_affinity);
        let column = (info.decltypes.first().cloned().flatten(), info.origins.first().cloned().flatten());
        self.subquery_column.insert(sel as *const ast::Select<'_> as usize, column);
        if info.n_columns != 1 {
            // Compared with a single value, it is a row value of the wrong size.
            if comparing {
                return Err(Error::sql("row value misused"));
            }
            return Err(Error::sql(format!("sub-select returns {} columns - expected 1", info.n_columns)));
        }
        self.b.bind(done);
        self.finish_once(once, info.correlated);
        self.b.add(Opcode::SCopy, r, target, 0);
        Ok(())
    }
}

/// Where an IN test's outcomes are emitted (see `Compiler::in_outcome`).
struct InLabels {
    null_result: i32,
    is_false: i32,
    found: i32,
    done: i32,
}

impl<'s> Compiler<'s> {
    /// The table a resolved column reference reads, when it is a table
    /// (borrowed from the schema, not from the compiler).
    fn ref_table(&self, r: &ColumnRef) -> Option<&'s crate::sql::schema::Table> {
        let n = self.scopes.len();
        let item = n.checked_sub(1 + r.depth).and_then(|s| self.scopes.get(s)).and_then(|s| s.items.get(r.item))?;
        if item.table.is_empty() {
            return None;
        }
        let schema: &'s crate::sql::schema::Schema = self.schema;
        schema.table(&item.table).filter(|t| t.view_select.is_none())
    }
}

/// Whether `e` is what likelihood() accepts as its probability: a
/// floating-point literal (`0.5`, `1e0`; not an integer, a string, a sign
/// or an expression) between 0.0 and 1.0.
/// A number, string or NULL literal, possibly negated: an argument whose
/// evaluation has no effect and no dependence on anything.
fn is_plain_literal(e: &Expr<'_>) -> bool {
    match e {
        Expr::Literal(ast::Literal::Numeric(_) | ast::Literal::String(_) | ast::Literal::Null) => true,
        Expr::Unary(UnaryOperator::Negative | UnaryOperator::Positive, x) => is_plain_literal(x),
        _ => false,
    }
}

fn is_probability(e: &Expr<'_>) -> bool {
    match e {
        Expr::Literal(ast::Literal::Numeric(t)) => {
            let float = !t.starts_with("0x") && !t.starts_with("0X") && t.contains(['.', 'e', 'E']);
            float && t.replace('_', "").parse::<f64>().is_ok_and(|v| (0.0..=1.0).contains(&v))
        }
        _ => false,
    }
}

/// The explicit COLLATE of `e` as [`Compiler::collation_of`] finds it
/// (through parentheses, unary +, CAST, non-comparison operators and
/// function arguments), without looking at columns.
fn explicit_collation_of(e: &Expr<'_>) -> Option<String> {
    match e {
        Expr::Collate(_, c) => Some(unquote(c)),
        Expr::Parenthesized(v) if v.len() == 1 => explicit_collation_of(&v[0]),
        Expr::Unary(UnaryOperator::Positive, x) | Expr::Cast { expr: x, .. } => explicit_collation_of(x),
        Expr::Binary(l, op, r)
            if !matches!(
                op,
                Operator::Equals
                    | Operator::NotEquals
                    | Operator::Less
                    | Operator::LessEquals
                    | Operator::Greater
                    | Operator::GreaterEquals
                    | Operator::Is
                    | Operator::IsNot
                    | Operator::And
                    | Operator::Or
            ) =>
        {
            explicit_collation_of(l).or_else(|| explicit_collation_of(r))
        }
        Expr::FunctionCall { args: Some(args), .. } => args.iter().find_map(explicit_collation_of),
        Expr::Case { base, when_then_pairs, else_expr } => base
            .iter()
            .map(|b| &**b)
            .chain(when_then_pairs.iter().flat_map(|(w, t)| [w, t]))
            .chain(else_expr.iter().map(|e| &**e))
            .find_map(explicit_collation_of),
        _ => None,
    }
}
