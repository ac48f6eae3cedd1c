//! Row values (vectors): `(a, b, ...)` and subqueries of several columns,
//! where SQLite accepts them: the comparisons `=`, `<>`, `<`, `<=`, `>`,
//! `>=`, `IS`, `IS NOT` between two rows, `BETWEEN` with row bounds,
//! `CASE row WHEN row ...`, and `row IN (row, row, ...)` (IN with a
//! subquery is `expr::in_select_row`; UPDATE's `SET (a, b) = ...` is
//! `assign.rs`).
//!
//! Width. A row's width is its number of fields; a subquery's is its
//! number of result columns, which for `SELECT *` is only known once its
//! FROM clause is resolved (`Compiler::row_width_of` compiles such a
//! subquery into a scratch program to count them). SQLite checks widths
//! twice, and so do we, for the same messages: first when names are
//! resolved, where a mismatch is "row value misused" (inside a SELECT, or
//! a RETURNING list, every `*` is expanded by then; in the expressions of
//! INSERT VALUES, UPDATE SET and the WHERE of UPDATE and DELETE a `*`
//! still counts as one column); then with the real widths, where a
//! single value on the left compared with a subquery of several columns
//! is "sub-select returns N columns - expected 1" and any other mismatch
//! "row value misused".
//!
//! Comparing rows. Equality is the AND of the fields' equalities (IS:
//! of their IS), `<>` the OR; an ordering is decided by the first pair
//! of fields that is not equal: `(a, b) < (c, d)` is
//! `a < c OR (a = c AND b < d)`, which is NULL when a NULL decides it.
//! Each pair of fields compares with the affinity and collation a pair of
//! single values would have; a subquery's field brings the affinity of
//! its result column but no collation (as in SQLite 3.54). A field that
//! is itself a row is "row value misused", except in a WHERE or ON term
//! `row = row` or `row IS row`, which SQLite splits into one term per
//! field (`Compiler::where_term_if_false`).

use crate::error::{Error, Result};
use crate::sql::codegen::Compiler;
use crate::sql::model::expr_shape::{may_be_row, select_has_star, strip_parens, written_select_width};
use crate::util::ascii::AsciiLower;
use crate::value::affinity::Affinity;
use crate::vdbe::program::{cmp_flags, Opcode, P4};
use sqlite3_parser::ast::{self, Expr, Operator};

/// How a single value compares: its affinity, and its collation (name,
/// and whether a COLLATE clause gave it), as `datatype3.txt` section 7.1
/// describes for an operand.
#[derive(Clone, Default)]
pub struct FieldTraits {
    pub affinity: Option<Affinity>,
    pub collation: Option<(String, bool)>,
}

/// One field of a row that has been evaluated.
pub enum RowField {
    /// A single value in `reg`.
    Value { reg: i32, traits: FieldTraits },
    /// A nested row.
    Row(Vec<RowField>),
}

impl RowField {
    fn reg(&self) -> Option<i32> {
        match self {
            RowField::Value { reg, .. } => Some(*reg),
            RowField::Row(_) => None,
        }
    }
}

/// The error SQLite gives for a row where a single value belongs, or rows
/// of different widths.
pub fn misused() -> Error {
    Error::sql("row value misused")
}

/// The error for a subquery of `n` columns where one value is expected.
pub fn subselect_width(n: usize, expected: usize) -> Error {
    Error::sql(format!("sub-select returns {n} columns - expected {expected}"))
}

/// How many values `e` stands for as written: the fields of `(a, b, ...)`
/// (`((a, b))` is `(a, b)`), the result columns of a subquery's first
/// SELECT (a `*` counts as one), else 1.
pub fn row_width(e: &Expr<'_>) -> usize {
    match e {
        Expr::Parenthesized(v) if v.len() == 1 => row_width(&v[0]),
        Expr::Parenthesized(v) => v.len(),
        Expr::Subquery(sel) => written_select_width(sel),
        _ => 1,
    }
}

/// Field `i` of a row value written out (`(a, b, ...)`), for its affinity
/// and collation; None for a subquery's.
pub fn row_field<'a, 'e>(e: &'a Expr<'e>, i: usize) -> Option<&'a Expr<'e>> {
    match e {
        Expr::Parenthesized(v) if v.len() == 1 => row_field(&v[0], i),
        Expr::Parenthesized(v) => v.get(i),
        _ => None,
    }
}

pub use crate::sql::model::expr_shape::pick_collation;

impl Compiler<'_> {
    /// The width of `e` once its subqueries' `*` are expanded.
    pub fn row_width_of(&mut self, e: &Expr<'_>) -> Result<usize> {
        match e {
            Expr::Parenthesized(v) if v.len() == 1 => self.row_width_of(&v[0]),
            Expr::Subquery(sel) if select_has_star(sel) => self.subquery_width(sel),
            _ => Ok(row_width(e)),
        }
    }

    /// The number of result columns of `sel`, which has a `*`: it is
    /// compiled into a scratch program (nothing of it is kept, and the
    /// compiler's bookkeeping is restored) so its FROM clause is resolved
    /// as it will be when compiled for real.
    fn subquery_width(&mut self, sel: &ast::Select<'_>) -> Result<usize> {
        let saved_b = std::mem::take(&mut self.b);
        self.b.n_regs = saved_b.n_regs;
        self.b.n_cursors = saved_b.n_cursors;
        let eqp = self.stmt.eqp.len();
        let params = self.stmt.params.clone();
        let ephem_records = self.frame.ephem_records.clone();
        let col_map = self.frame.col_map.clone();
        let using_coalesce = self.frame.using_coalesce.clone();
        let record_positions = self.frame.record_positions.clone();
        let agg_regs = self.frame.agg_regs.clone();
        let authorizer = self.stmt.authorizer.take();
        let cur = self.b.cursor();
        let info = self.compile_select(sel, crate::sql::model::query::Dest::EphemTable(cur));
        self.stmt.authorizer = authorizer;
        self.frame.agg_regs = agg_regs;
        self.frame.record_positions = record_positions;
        self.frame.using_coalesce = using_coalesce;
        self.frame.col_map = col_map;
        self.frame.ephem_records = ephem_records;
        self.stmt.params = params;
        self.stmt.eqp.truncate(eqp);
        self.b = saved_b;
        Ok(info?.n_columns)
    }

    /// Compile the SELECT that carries a DML statement's own WHERE
    /// (`collect_rowids`): comparisons of that WHERE check their widths as
    /// written, with a subquery's `*` unexpanded, as SQLite checks those
    /// of UPDATE and DELETE (its SELECTs expand every `*` before).
    pub fn compile_dml_where(&mut self, sel: &ast::Select<'_>, dest: crate::sql::model::query::Dest) -> Result<crate::sql::model::query::SelectInfo> {
        let saved = std::mem::replace(&mut self.names.dml_where_level, self.names.select_depth + 1);
        // (A loop reading an index alone maps the table's columns to it:
        // the statement's own reads of the table, after the loop, are of
        // the row its seek positions. See `LoopContext::dml_where_uses`.)
        let col_map = self.frame.col_map.clone();
        let r = self.compile_select(sel, dest);
        self.frame.col_map = col_map;
        self.names.dml_where_level = saved;
        r
    }

    /// The checks of two operands' widths before they are compared (see
    /// the module doc); `written` adds the check of their widths before
    /// anything is compiled: inside a SELECT with every `*` expanded,
    /// elsewhere as written. Returns the common width.
    fn compared_widths(&mut self, l: &Expr<'_>, r: &Expr<'_>, written: bool) -> Result<usize> {
        let (lw, rw) = (self.row_width_of(l)?, self.row_width_of(r)?);
        let expanded = self.names.select_depth > self.names.dml_where_level;
        if written && ((expanded && lw != rw) || (!expanded && row_width(l) != row_width(r))) {
            return Err(misused());
        }
        if lw == 1 && rw > 1 && matches!(strip_parens(r), Expr::Subquery(_)) {
            return Err(subselect_width(rw, 1));
        }
        if lw != rw {
            return Err(misused());
        }
        Ok(lw)
    }

    /// `l op r` when either side is a row: compiled into `target` and true;
    /// false when both are single values (the caller compares them).
    pub fn row_comparison(&mut self, op: Opcode, null_eq: bool, l: &Expr<'_>, r: &Expr<'_>, target: i32) -> Result<bool> {
        if !may_be_row(l) && !may_be_row(r) {
            return Ok(false);
        }
        if self.compared_widths(l, r, true)? == 1 {
            return Ok(false);
        }
        let lf = self.eval_row(l)?;
        let rf = self.eval_row(r)?;
        self.compare_rows(op, null_eq, &lf, &rf, target, false)?;
        Ok(true)
    }

    /// Jump to `label` when the WHERE or ON term `e` is false or NULL.
    /// SQLite splits a term `(a, b) = (x, y)` (or IS) into one term per
    /// field, so there, and only there, a field may itself be a row:
    /// `(a, (b, c)) = (1, (2, 3))`.
    pub fn where_term_if_false(&mut self, e: &Expr<'_>, label: i32) -> Result<()> {
        match strip_parens(e) {
            Expr::Binary(l, Operator::And, r) => {
                let learned = self.learn_chain(strip_parens(e));
                let (first, second) = self.operands_in_order(l, r);
                let done = self.where_term_if_false(first, label).and_then(|()| self.where_term_if_false(second, label));
                self.forget_chain(learned);
                done
            }
            Expr::Binary(l, op @ (Operator::Equals | Operator::Is), r) if is_written_row(l) && is_written_row(r) => {
                self.compared_widths(l, r, true)?;
                let lf = self.eval_row(l)?;
                let rf = self.eval_row(r)?;
                let t = self.b.reg();
                self.compare_rows(Opcode::Eq, *op == Operator::Is, &lf, &rf, t, true)?;
                self.b.add(Opcode::IfNot, t, label, 1);
                Ok(())
            }
            _ => self.jump_if_false(e, label),
        }
    }

    /// `lhs [NOT] BETWEEN start AND end` when a side is a row: true when
    /// compiled. The left side is evaluated once.
    pub fn row_between(&mut self, lhs: &Expr<'_>, not: bool, start: &Expr<'_>, end: &Expr<'_>, target: i32) -> Result<bool> {
        if !may_be_row(lhs) && !may_be_row(start) && !may_be_row(end) {
            return Ok(false);
        }
        let (to_start, to_end) = (self.compared_widths(lhs, start, true)?, self.compared_widths(lhs, end, true)?);
        if to_start == 1 && to_end == 1 {
            return Ok(false);
        }
        let x = self.eval_row(lhs)?;
        let a = self.eval_row(start)?;
        let b = self.eval_row(end)?;
        let (t1, t2) = (self.b.reg(), self.b.reg());
        self.compare_rows(Opcode::Ge, false, &x, &a, t1, false)?;
        self.compare_rows(Opcode::Le, false, &x, &b, t2, false)?;
        self.b.add(Opcode::And, t1, t2, target);
        if not {
            self.b.add(Opcode::Not, target, target, 0);
        }
        Ok(true)
    }

    /// `CASE base WHEN w THEN t ... [ELSE e] END` when the base or a WHEN
    /// is a row: true when compiled. The base is evaluated once and
    /// compared with each WHEN in turn by row equality.
    pub fn row_case(&mut self, base: &Expr<'_>, pairs: &[(Expr<'_>, Expr<'_>)], else_expr: Option<&Expr<'_>>, target: i32) -> Result<bool> {
        if !may_be_row(base) && !pairs.iter().any(|(w, _)| may_be_row(w)) {
            return Ok(false);
        }
        let mut widths = Vec::with_capacity(pairs.len());
        for (w, _) in pairs {
            widths.push(self.compared_widths(base, w, false)?);
        }
        if widths.iter().all(|&n| n == 1) {
            return Ok(false);
        }
        let b = self.eval_row(base)?;
        let end = self.b.label();
        let hit = self.b.reg();
        for (w, t) in pairs {
            let next = self.b.label();
            let wf = self.eval_row(w)?;
            self.compare_rows(Opcode::Eq, false, &b, &wf, hit, false)?;
            self.b.add(Opcode::IfNot, hit, next, 1);
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
        Ok(true)
    }

    /// `lhs [NOT] IN (e1, e2, ...)` when the left side or an element is a
    /// row: true when compiled. With a row on the left every element must
    /// be a row of its width written out ("IN(...) element has N terms -
    /// expected M"); the outcome is true when some element equals it,
    /// NULL when none does but some comparison was NULL, else false.
    pub fn row_in_list(&mut self, lhs: &Expr<'_>, not: bool, list: &[Expr<'_>], target: i32) -> Result<bool> {
        let lhs_row = is_written_row(lhs);
        if !lhs_row {
            if let Expr::Subquery(_) = strip_parens(lhs) {
                let n = self.row_width_of(lhs)?;
                if n > 1 {
                    return Err(subselect_width(n, 1));
                }
            }
            if list.iter().any(is_written_row) {
                return Err(misused());
            }
            return Ok(false);
        }
        let n = row_width(lhs);
        for e in list {
            let w = match strip_parens(e) {
                Expr::Parenthesized(v) => v.len(),
                _ => 1,
            };
            if w != n {
                let terms = if w == 1 { "term" } else { "terms" };
                return Err(Error::sql(format!("IN(...) element has {w} {terms} - expected {n}")));
            }
        }
        if list.is_empty() {
            self.b.add(Opcode::Integer, not as i32, target, 0);
            return Ok(true);
        }
        let x = self.eval_row(lhs)?;
        let found = self.b.label();
        let done = self.b.label();
        let has_null = self.b.reg();
        let eq = self.b.reg();
        self.b.add(Opcode::Integer, 0, has_null, 0);
        for e in list {
            let ef = self.eval_row(e)?;
            self.compare_rows(Opcode::Eq, false, &x, &ef, eq, false)?;
            self.b.add(Opcode::If, eq, found, 0);
            let not_null = self.b.label();
            self.b.add(Opcode::NotNull, eq, not_null, 0);
            self.b.add(Opcode::Integer, 1, has_null, 0);
            self.b.bind(not_null);
        }
        let null_result = self.b.label();
        self.b.add(Opcode::If, has_null, null_result, 0);
        self.b.add(Opcode::Integer, not as i32, target, 0);
        self.b.add(Opcode::Goto, 0, done, 0);
        self.b.bind(null_result);
        self.b.add(Opcode::Null, 0, target, 0);
        self.b.add(Opcode::Goto, 0, done, 0);
        self.b.bind(found);
        self.b.add(Opcode::Integer, !not as i32, target, 0);
        self.b.bind(done);
        Ok(true)
    }

    /// Evaluate `e` as a row: its fields in consecutive new registers
    /// (a nested row's field register is left unused), each with how it
    /// compares. A single value is a row of one field.
    pub fn eval_row(&mut self, e: &Expr<'_>) -> Result<Vec<RowField>> {
        match strip_parens(e) {
            Expr::Parenthesized(v) => {
                let first = self.b.regs(v.len());
                let mut fields = Vec::with_capacity(v.len());
                for (i, x) in v.iter().enumerate() {
                    if may_be_row(x) && self.row_width_of(x)? > 1 {
                        fields.push(RowField::Row(self.eval_row(x)?));
                        continue;
                    }
                    let reg = first + i as i32;
                    self.expr(x, reg)?;
                    fields.push(RowField::Value { reg, traits: self.field_traits(x) });
                }
                Ok(fields)
            }
            Expr::Subquery(sel) => {
                let n = self.row_width_of(e)?;
                if n == 1 {
                    let reg = self.expr_new(e)?;
                    let traits = self.field_traits(e);
                    return Ok(vec![RowField::Value { reg, traits }]);
                }
                let first = self.b.regs(n);
                let once = self.b.add(Opcode::Once, 0, 0, 0);
                self.b.add(Opcode::Null, 0, first, first + n as i32 - 1);
                let done = self.b.label();
                self.authorize_subquery(sel, false)?;
                let info = self.compile_select(sel, crate::sql::model::query::Dest::Scalar { reg: first, done })?;
                if info.n_columns != n {
                    return Err(misused());
                }
                self.b.bind(done);
                self.finish_once(once, info.correlated);
                Ok((0..n)
                    .map(|i| RowField::Value {
                        reg: first + i as i32,
                        // (A subquery's field brings no collation: SQLite
                        // 3.54 compares it with the other side's.)
                        traits: FieldTraits { affinity: info.affinities.get(i).copied().flatten(), collation: None },
                    })
                    .collect())
            }
            x => {
                let reg = self.expr_new(x)?;
                Ok(vec![RowField::Value { reg, traits: self.field_traits(x) }])
            }
        }
    }

    /// How the single value `e` compares.
    pub fn field_traits(&mut self, e: &Expr<'_>) -> FieldTraits {
        FieldTraits { affinity: self.expr_affinity(e), collation: self.expr_collation(e) }
    }

    /// Compare two evaluated rows of the same width into `target` (see the
    /// module doc); `nested`: fields that are rows compare as rows (a
    /// split WHERE term), else they are misused.
    pub(in crate::sql::codegen) fn compare_rows(&mut self, op: Opcode, null_eq: bool, l: &[RowField], r: &[RowField], target: i32, nested: bool) -> Result<()> {
        if l.len() != r.len() || l.is_empty() {
            return Err(misused());
        }
        match op {
            Opcode::Eq | Opcode::Ne => {
                let combine = if op == Opcode::Eq { Opcode::And } else { Opcode::Or };
                let t = self.b.reg();
                for (i, (lf, rf)) in l.iter().zip(r).enumerate() {
                    let dst = if i == 0 { target } else { t };
                    match (lf, rf) {
                        (RowField::Row(a), RowField::Row(b)) if nested => self.compare_rows(op, null_eq, a, b, dst, true)?,
                        _ => self.compare_fields(op, null_eq, lf, rf, dst)?,
                    }
                    if i > 0 {
                        self.b.add(combine, target, t, target);
                    }
                }
            }
            _ => {
                // From the last pair backwards: target = pair i decides,
                // or pair i is equal and the rest decides.
                let strict = match op {
                    Opcode::Le => Opcode::Lt,
                    Opcode::Ge => Opcode::Gt,
                    o => o,
                };
                let last = l.len() - 1;
                self.compare_fields(op, false, &l[last], &r[last], target)?;
                for i in (0..last).rev() {
                    let eq = self.b.reg();
                    let decided = self.b.reg();
                    self.compare_fields(Opcode::Eq, false, &l[i], &r[i], eq)?;
                    self.compare_fields(strict, false, &l[i], &r[i], decided)?;
                    self.b.add(Opcode::And, eq, target, target);
                    self.b.add(Opcode::Or, decided, target, target);
                }
            }
        }
        Ok(())
    }

    /// Compare two single values of evaluated rows.
    fn compare_fields(&mut self, op: Opcode, null_eq: bool, l: &RowField, r: &RowField, target: i32) -> Result<()> {
        let (RowField::Value { traits: lt, .. }, RowField::Value { traits: rt, .. }) = (l, r) else {
            return Err(misused());
        };
        let (lr, rr) = (l.reg().unwrap_or(0), r.reg().unwrap_or(0));
        self.compare_registers(op, null_eq, lt, rt, lr, rr, target)
    }

    /// `lr op rr` into `target` with the affinity and collation two
    /// values of these traits compare with.
    pub fn compare_registers(&mut self, op: Opcode, null_eq: bool, lt: &FieldTraits, rt: &FieldTraits, lr: i32, rr: i32, target: i32) -> Result<()> {
        let aff = crate::sql::codegen::expr::comparison_affinity(lt.affinity, rt.affinity);
        let coll = match pick_collation(lt.collation.as_ref(), rt.collation.as_ref()) {
            Some(n) if !n.eq_ci("BINARY") => {
                let n = n.to_string();
                P4::coll(self.collation(&n)?)
            }
            _ => P4::None,
        };
        let mut p5 = aff | cmp_flags::STOREP2;
        if null_eq {
            p5 |= cmp_flags::NULLEQ;
        }
        self.b.add4(op, rr, target, lr, coll, p5);
        Ok(())
    }
}

/// Whether `e` is a row written out, `(a, b, ...)`.
pub(crate) fn is_written_row(e: &Expr<'_>) -> bool {
    matches!(strip_parens(e), Expr::Parenthesized(v) if v.len() > 1)
}
