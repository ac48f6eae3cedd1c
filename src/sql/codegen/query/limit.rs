//! LIMIT and OFFSET: their registers (checked as integers, a jump out
//! when the LIMIT is 0), the `LIMIT a, b` form, SQLite's rewrite of a
//! one-row subquery's LIMIT as `X <> 0`, a LIMIT or OFFSET that is a
//! bound parameter (the statement compiled again when it is bound), and
//! the LIMIT/OFFSET a SELECT offers the virtual table it reads.

use crate::error::Result;
use crate::sql::codegen::Compiler;
use crate::sql::model::expr_shape::strip_parens;
use crate::sql::model::query::{LimitRegs, ResultItem};
use crate::sql::plan::prelude::*;
use crate::value::affinity::Affinity;
use crate::vdbe::program::Opcode;
use sqlite3_parser::ast::{self, Expr, SortedColumn};

impl Compiler<'_> {
    /// Set up LIMIT/OFFSET registers; jumps to `end` when LIMIT is 0.
    pub fn setup_limit(&mut self, limit: Option<&ast::Limit<'_>>, end: i32) -> Result<Option<LimitRegs>> {
        let Some(l) = limit else { return Ok(None) };
        let (count, off) = self.limit_exprs(l);
        // Names are resolved before functions are checked: a column name
        // there is "no such column", whatever it is an argument of.
        self.check_limit_names(count, off)?;
        // (A LIMIT that is a parameter: the statement is compiled again
        // when it is bound, as SQLite's is.)
        self.bound_limit_value(count);
        let lr = self.b.reg();
        self.expr(count, lr)?;
        self.b.add(Opcode::MustBeInt, lr, 0, 0);
        self.finish_limit(lr, off, end)
    }

    /// The names of LIMIT and OFFSET, walked as SQLite walks its LIMIT
    /// node (the count, then the offset, as one expression), where no
    /// aggregate or window function is allowed.
    pub(in crate::sql::codegen) fn check_limit_names(&mut self, count: &Expr<'_>, off: Option<&Expr<'_>>) -> Result<()> {
        let exprs: Vec<&Expr<'_>> = std::iter::once(count).chain(off).collect();
        self.check_clauses(&[crate::sql::codegen::query::name_order::NameClause::new(exprs, crate::sql::codegen::query::name_order::Allows::NONE)])
    }

    /// The OFFSET register (checked as an integer) and the jump to `end`
    /// when the LIMIT in `lr` is 0: the tail both LIMIT set-ups share.
    fn finish_limit(&mut self, lr: i32, off: Option<&ast::Expr<'_>>, end: i32) -> Result<Option<LimitRegs>> {
        let offset = match off {
            Some(o) => {
                let or = self.b.reg();
                self.expr(o, or)?;
                self.b.add(Opcode::MustBeInt, or, 0, 0);
                Some(or)
            }
            None => None,
        };
        self.b.add(Opcode::IfNot, lr, end, 0);
        Ok(Some(LimitRegs { limit: lr, offset }))
    }

    /// LIMIT/OFFSET registers for a subquery that stops at its first row
    /// (a scalar, EXISTS or row-value subquery): as SQLite rewrites it, no
    /// LIMIT is LIMIT 1 and LIMIT X is LIMIT (X <> 0), so a virtual table
    /// there is offered the LIMIT (see `vtab_limit_offer`).
    pub(in crate::sql::codegen) fn setup_one_row_limit(&mut self, limit: Option<&ast::Limit<'_>>, end: i32) -> Result<Option<LimitRegs>> {
        let Some(l) = limit else {
            let lr = self.b.reg();
            self.b.add(Opcode::Integer, 1, lr, 0);
            return Ok(Some(LimitRegs { limit: lr, offset: None }));
        };
        let (count, off) = self.limit_exprs(l);
        if one_row_limit_kept(count) {
            return self.setup_limit(limit, end);
        }
        self.check_limit_names(count, off)?;
        let x = self.b.reg();
        self.expr(count, x)?;
        // lr = (x <> 0), the 0 of numeric affinity as SQLite's is; NULL
        // stays NULL (MustBeInt then fails as for LIMIT NULL).
        let (lr, zero, done) = (self.b.reg(), self.b.reg(), self.b.label());
        self.b.add(Opcode::Null, 0, lr, 0);
        self.b.add(Opcode::IsNull, x, done, 0);
        self.b.add(Opcode::Integer, 0, zero, 0);
        self.b.add(Opcode::Integer, 1, lr, 0);
        self.b.add4(Opcode::Ne, zero, done, x, crate::vdbe::program::P4::None, Affinity::Numeric.letter() as u16);
        self.b.add(Opcode::Integer, 0, lr, 0);
        self.b.bind(done);
        self.b.add(Opcode::MustBeInt, lr, 0, 0);
        self.finish_limit(lr, off, end)
    }

    /// The LIMIT and OFFSET expressions of `l`: `LIMIT a, b` means OFFSET
    /// a LIMIT b, and the AST keeps the two in source order.
    pub(crate) fn limit_exprs<'x, 'y>(&self, l: &'x ast::Limit<'y>) -> (&'x Expr<'y>, Option<&'x Expr<'y>>) {
        match &l.offset {
            Some(o) if self.limit_comma_form() => (o, Some(&l.expr)),
            o => (&l.expr, o.as_ref()),
        }
    }

    /// The LIMIT/OFFSET a plain SELECT offers the virtual table that is
    /// its whole FROM clause (see `LimitOffer` for SQLite's conditions;
    /// the WHERE terms are checked when the loop opens).
    pub(super) fn vtab_limit_offer(
        &mut self,
        limit: Option<&ast::Limit<'_>>,
        regs: Option<LimitRegs>,
        items_from: &[crate::sql::model::from::FromItem<'_, '_>],
        items: &[ResultItem<'_, '_>],
        order: Option<(&[SortedColumn<'_>], &[Option<usize>])>,
        terms: &[&Expr<'_>],
        one_row: bool,
        compound: Option<bool>,
    ) -> Option<crate::sql::plan::vtab::LimitOffer> {
        let regs = regs?;
        if limit.is_none() && !one_row {
            return None;
        }
        // An arm of a compound is offered no OFFSET, and no LIMIT either
        // when the compound has an OFFSET (as in SQLite, whose arms share
        // the compound's counters).
        if compound.is_some() && regs.offset.is_some() {
            return None;
        }
        let [it] = items_from else { return None };
        if it.vtab.is_none() || it.left || it.matched.is_some() {
            return None;
        }
        if let Some((terms, map)) = order {
            for (i, t) in terms.iter().enumerate() {
                let r = match map.get(i).copied().flatten().map(|k| &items[k]) {
                    Some(ResultItem::Col(r, _, _)) => Some(r.clone()),
                    Some(ResultItem::Expr(e, _)) => self.plain_column(e),
                    None => self.plain_column(&t.expr),
                };
                if r.is_none_or(|r| r.cursor != it.cursor) {
                    return None;
                }
            }
        }
        let one = Expr::Literal(ast::Literal::Numeric("1"));
        let (count, off) = match limit {
            Some(l) => self.limit_exprs(l),
            None => (&one, None),
        };
        // (A one-row subquery's written LIMIT X is offered as X <> 0, a
        // value SQLite has only in a register.)
        // (LIMIT 0 stays a literal 0 there.)
        let rewritten = match compound {
            Some(rewritten) => rewritten,
            None => one_row && limit.is_some() && !one_row_limit_kept(count),
        };
        let literal = if rewritten { None } else { crate::sql::plan::vtab::limit_literal(count).or_else(|| self.bound_limit_value(count)) };
        let limit = crate::sql::plan::vtab::LimitArg { reg: regs.limit, literal };
        let offset = match (off, regs.offset) {
            (Some(e), Some(reg)) => {
                Some(crate::sql::plan::vtab::LimitArg { reg, literal: crate::sql::plan::vtab::limit_literal(e).or_else(|| self.bound_limit_value(e)) })
            }
            _ => None,
        };
        let where_terms = terms.iter().map(|t| *t as *const Expr<'_> as usize).collect();
        Some(crate::sql::plan::vtab::LimitOffer { cursor: it.cursor, limit, offset, where_terms, sorted: order.is_some() })
    }

    /// A LIMIT or OFFSET that is a parameter, as SQLite's
    /// `sqlite3ExprIsInteger` reads it given the parse: the statement is
    /// marked to be compiled again when the parameter is bound, and in
    /// that compile its value is the bound one when an integer from 0 to
    /// 2^31-1 (a trigger's parameters are NULL: never).
    pub(in crate::sql::codegen) fn bound_limit_value(&mut self, e: &Expr<'_>) -> Option<i64> {
        let Expr::Variable(name) = strip_parens(e) else { return None };
        if !self.dml.firing.is_empty() {
            return None;
        }
        let i = self.variable(name).ok().filter(|i| *i > 0)?;
        self.stmt.expire_on_bind |= if i >= 32 { 0x8000_0000 } else { 1u32 << (i - 1) };
        match self.stmt.bound_params?.get(i as usize)? {
            crate::value::Value::Integer(v) if (0..=i64::from(i32::MAX)).contains(v) => Some(*v),
            _ => None,
        }
    }

    /// Whether the statement writes LIMIT with a comma (and never OFFSET).
    pub(super) fn limit_comma_form(&self) -> bool {
        use sqlite3_parser::dialect::TokenType;
        // (Token scans, not a token list: the statement may be huge.)
        if crate::sql::parse::tokens(self.stmt.sql).any(|t| t.kind == TokenType::TK_OFFSET) {
            return false;
        }
        for t in crate::sql::parse::tokens(self.stmt.sql) {
            if t.kind != TokenType::TK_LIMIT {
                continue;
            }
            let mut depth = 0;
            for u in crate::sql::parse::tokens_from(self.stmt.sql, t.end) {
                match u.kind {
                    TokenType::TK_LP => depth += 1,
                    TokenType::TK_RP if depth == 0 => break,
                    TokenType::TK_RP => depth -= 1,
                    TokenType::TK_COMMA if depth == 0 => return true,
                    TokenType::TK_SEMI | TokenType::TK_UNION | TokenType::TK_EXCEPT | TokenType::TK_INTERSECT if depth == 0 => break,
                    _ => {}
                }
            }
        }
        false
    }
}

/// Whether a one-row subquery's written LIMIT is kept as it is: an integer
/// literal 0 or 1 (SQLite rewrites any other as `X <> 0`).
pub(in crate::sql::codegen) fn one_row_limit_kept(count: &Expr<'_>) -> bool {
    matches!(strip_parens(count), Expr::Literal(ast::Literal::Numeric(_))) && matches!(crate::sql::plan::vtab::limit_literal(strip_parens(count)), Some(0 | 1))
}
