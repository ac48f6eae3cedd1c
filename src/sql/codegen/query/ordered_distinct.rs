//! A DISTINCT whose loops give equal rows one after the other (SQLite's
//! `WHERE_DISTINCT_ORDERED`): each row is compared with the one before
//! it instead of being looked up in a temporary index, and EXPLAIN QUERY
//! PLAN shows no "USE TEMP B-TREE FOR DISTINCT".

use crate::error::{Error, Result};
use crate::sql::codegen::Compiler;
use crate::sql::model::query::{Distinct, ResultItem, RowCtx};
use crate::sql::plan::order::OrderGoal;
use crate::vdbe::program::{Insn, Opcode, P4};

/// Whether an order `sort` (an ORDER BY's) gives rows with those equal
/// under the DISTINCT goal `distinct` adjacent: its first terms are the
/// DISTINCT columns, in any order, under the same collations.
pub(super) fn leads(sort: &OrderGoal, distinct: &OrderGoal) -> bool {
    let k = distinct.terms.len();
    let same = |a: &crate::sql::plan::order::OrderTerm, b: &crate::sql::plan::order::OrderTerm| a.column == b.column && a.collation == b.collation;
    sort.item == distinct.item
        && sort.terms.len() >= k
        && sort.terms[..k].iter().all(|s| distinct.terms.iter().any(|d| same(s, d)))
        && distinct.terms.iter().all(|d| sort.terms[..k].iter().any(|s| same(s, d)))
}

impl Compiler<'_> {
    /// Turn `ctx`'s DISTINCT, whose temporary index is opened at `open`
    /// (before the loops), into the comparison with the previous row; the
    /// `OpenEphemeral` becomes the start of the "no row yet" flag.
    pub(super) fn order_distinct(&mut self, ctx: &mut RowCtx, open: usize, items: &[ResultItem<'_, '_>]) -> Result<()> {
        let collations = match self.b.insns.get(open) {
            Some(Insn { opcode: Opcode::OpenEphemeral, p4: P4::KeyInfo(ki), .. }) => ki.fields.iter().map(|f| f.collation.clone()).collect::<Vec<_>>(),
            _ => return Err(Error::new(crate::error::SQLITE_INTERNAL, "DISTINCT index not found")),
        };
        debug_assert_eq!(collations.len(), items.len(), "a key column per result column");
        let first = self.b.reg();
        let prev = self.b.regs(items.len());
        self.b.insns[open] = Insn { opcode: Opcode::Integer, p1: 0, p2: first, p3: 0, p4: P4::None, p5: 0 };
        ctx.distinct = Some(Distinct::Ordered { first, prev, collations });
        Ok(())
    }
}
