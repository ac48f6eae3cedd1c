//! An ORDER BY the loops serve themselves (an index or rowid order the
//! planner found, `plan::goal`): the sorter already opened for it is
//! turned into a no-op.
//!
//! Invariant: only the last `SorterOpen` of the sorter's cursor is
//! changed; the rows then go to the output in loop order.

use crate::sql::codegen::Compiler;
use crate::sql::model::query::RowCtx;
use crate::vdbe::program::{Opcode, P4};

impl Compiler<'_> {
    /// Turn the ORDER BY sorter opened for `ctx` into a no-op: the loops
    /// produce the order themselves.
    pub(crate) fn drop_sorter(&mut self, ctx: &mut RowCtx) {
        let Some((sorter, _)) = ctx.sorter.take() else { return };
        if let Some(i) = self.b.insns.iter_mut().rev().find(|i| i.opcode == Opcode::SorterOpen && i.p1 == sorter) {
            i.opcode = Opcode::Noop;
            i.p1 = 0;
            i.p2 = 0;
            i.p4 = P4::None;
        }
    }
}
