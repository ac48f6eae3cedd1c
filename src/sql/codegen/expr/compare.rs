//! Affinity and collation of operands, computed at compile time for the
//! comparison opcodes (`datatype3.txt` sections 4.2 and 7.1): an
//! expression's affinity (`expr_affinity`), its collation and whether it
//! was explicit (`collation_of`, through result aliases too), the
//! collation of a comparison (an explicit one first, then the left
//! operand's) and the comparison instruction carrying both in P4 and P5.

use crate::error::Result;
use crate::sql::codegen::Compiler;
use crate::sql::parse::{unquote, unquoted};
use crate::util::ascii::AsciiLower;
use crate::value::affinity::Affinity;
use crate::vdbe::func::FuncDef;
use crate::vdbe::program::{cmp_flags, Opcode, P4};
use sqlite3_parser::ast::{self, Expr, Operator, UnaryOperator};
use std::sync::Arc;

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

impl Compiler<'_> {
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
            Expr::Subquery(sel) => self.select.subquery_affinity.get(&(*sel as *const ast::Select<'_> as usize)).copied().flatten(),
            _ => None,
        }
    }

    /// The collation an expression carries (explicit COLLATE first, then a
    /// column's declared collation).
    /// `def` bound to the collating sequence of its arguments when it is a
    /// built-in that compares text (min, max, nullif): the first argument
    /// that has a collation gives it, as in SQLite; BINARY keeps `def`.
    pub(in crate::sql::codegen) fn bind_call_collation<'e, 's: 'e>(
        &mut self,
        def: Arc<FuncDef>,
        args: impl IntoIterator<Item = &'e Expr<'s>>,
    ) -> Result<Arc<FuncDef>> {
        if !crate::vdbe::func::builtins::needs_collation(&def) {
            return Ok(def);
        }
        let Some((name, _)) = args.into_iter().find_map(|a| self.collation_of(a)) else { return Ok(def) };
        if name.eq_ci("BINARY") {
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
    pub(super) fn collation_of(&mut self, e: &Expr<'_>) -> Option<(std::borrow::Cow<'static, str>, bool)> {
        match e {
            Expr::Collate(_, c) => Some((unquote(c).into(), true)),
            Expr::Parenthesized(v) if v.len() == 1 => self.collation_of(&v[0]),
            // Unary + and CAST keep their operand's collation.
            Expr::Unary(UnaryOperator::Positive, x) | Expr::Cast { expr: x, .. } => self.collation_of(x),
            Expr::Binary(l, op, r) if passes_collation(op) => {
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
    pub(in crate::sql::codegen) fn find_alias(&self, name: &str) -> Option<(usize, String)> {
        self.names.aliases.iter().enumerate().rev().find_map(|(level, a)| a.list.iter().find(|(n, _)| n.eq_ci(name)).map(|(_, t)| (level, t.clone())))
    }

    /// The collation of the expression behind result alias `name`, if it
    /// is one (seen as [`Compiler::identifier`] sees it).
    pub(super) fn alias_collation(&mut self, name: &str) -> Option<(std::borrow::Cow<'static, str>, bool)> {
        let (level, text) = self.find_alias(name)?;
        let saved = self.names.aliases.split_off(level);
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
        self.names.aliases.extend(saved);
        found.ok().flatten()
    }

    /// The collation for comparing `l` with `r`.
    pub fn comparison_collation(&mut self, l: &Expr<'_>, r: &Expr<'_>) -> Result<P4> {
        // When no column in scope declares a collation, every column's is
        // BINARY and only an explicit COLLATE can choose another: the
        // column names need not be resolved (every statement compares).
        // (A result alias may stand for an expression with a COLLATE.)
        let declared = self.names.scopes.iter().any(|s| s.items.iter().any(|it| it.columns.iter().any(|c| c.collation.is_some())))
            || self.names.aliases.iter().any(|a| !a.list.is_empty());
        if !declared {
            let name = explicit_collation_of(l).or_else(|| explicit_collation_of(r));
            return match name {
                Some(n) if !n.eq_ci("BINARY") => Ok(P4::coll(self.collation(&n)?)),
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
            Some(n) if !n.eq_ci("BINARY") => Ok(P4::coll(self.collation(&n)?)),
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
}

/// Whether a binary operator's result keeps its operands' collation:
/// comparisons and AND/OR give a plain integer, every other operator
/// passes an explicit COLLATE through.
fn passes_collation(op: &Operator) -> bool {
    !matches!(
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
    )
}

/// The explicit COLLATE of `e` as [`Compiler::collation_of`] finds it
/// (through parentheses, unary +, CAST, non-comparison operators and
/// function arguments), without looking at columns.
pub(super) fn explicit_collation_of(e: &Expr<'_>) -> Option<String> {
    match e {
        Expr::Collate(_, c) => Some(unquote(c)),
        Expr::Parenthesized(v) if v.len() == 1 => explicit_collation_of(&v[0]),
        Expr::Unary(UnaryOperator::Positive, x) | Expr::Cast { expr: x, .. } => explicit_collation_of(x),
        Expr::Binary(l, op, r) if passes_collation(op) => explicit_collation_of(l).or_else(|| explicit_collation_of(r)),
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
