//! The MULTI-INDEX OR loop (chosen by `plan/multi_or.rs`, for a virtual
//! table by `vtab_scan.rs` from its module's plans): each branch
//! of an OR term runs its own lookup on the table's cursor, in written
//! order; a row that satisfies its branch and was not yet returned calls
//! the loop body, a subroutine after the branches (`LoopKind::Or`, closed
//! by its `Return`). The rows so come back branch by branch, as SQLite
//! returns them.
//!
//! Invariants: rows already returned are remembered by key (the rowid,
//! or a WITHOUT ROWID table's PRIMARY KEY columns) in an ephemeral index
//! emptied each time the loop starts (so an inner loop deduplicates per
//! outer row); the last branch only tests it. A row is tested against
//! its branch before it is recorded, so it is returned by the first
//! branch it satisfies; the OR term stays a filter of the body, as every
//! term a lookup uses does. Each branch reads the table row itself (a
//! covering index is only shown as such, as SQLite shows it: the body
//! reads the table's cursor whichever branch found the row).

use crate::error::Result;
use crate::sql::codegen::loop_kind::LoopKind;
use crate::sql::codegen::Compiler;
use crate::sql::model::expr_shape::conjuncts;
use crate::sql::model::from::FromItem;
use crate::sql::plan::multi_or::OrPlan;
use crate::vdbe::program::{Opcode, P4};

impl<'b> Compiler<'_> {
    /// Emit the loop for `plan` over `it` (tables in `before` placed);
    /// `end` leaves it. The code after this returns is the body.
    pub(in crate::sql::codegen) fn multi_or_loop<'a>(
        &mut self,
        it: &FromItem<'a, 'b>,
        before: u64,
        plan: OrPlan<'a, 'b>,
        end: i32,
        uses: Option<&crate::sql::plan::goal::ColumnUses>,
    ) -> Result<LoopKind> {
        let width = match &it.table {
            Some(t) if t.without_rowid.is_some() => t.key_width(),
            _ => 1,
        };
        let seen = self.b.cursor();
        self.b.add4(Opcode::OpenEphemeral, seen, width as i32, 0, P4::KeyInfo(crate::sql::model::query::binary_key_info(width)), 0);
        let ret = self.b.reg();
        let body = self.b.label();
        let top_line = self.stmt.eqp.len();
        self.stmt.eqp.push(format_args!("MULTI-INDEX OR"));
        let outer_parent = self.stmt.eqp.set_parent(Some(top_line));
        let n = plan.branches.len();
        for (i, branch) in plan.branches.iter().enumerate() {
            self.stmt.eqp.set_parent(Some(top_line));
            let branch_line = self.stmt.eqp.len();
            self.stmt.eqp.push(format_args!("INDEX {}", i + 1));
            self.stmt.eqp.set_parent(Some(branch_line));
            let mut sub = Vec::new();
            conjuncts(branch, &mut sub);
            sub.extend(plan.others.iter().copied());
            let bnext = self.b.label();
            let bend = self.b.label();
            // (A virtual table's branch may be a union in turn.)
            let was_in_branch = std::mem::replace(&mut self.loops.in_or_branch, true);
            // (A term a virtual table's module omits in one branch is
            // still tested by the body: the other branches need it.)
            let consumed = self.vtab.consumed.len();
            let opened = self.open_access(it, before, &sub, bnext, bend, false, None, uses);
            self.vtab.consumed.truncate(consumed);
            self.loops.in_or_branch = was_in_branch;
            self.stmt.eqp.restore_parent(outer_parent);
            self.frame.seek_consumed.clear();
            let (kind, _) = opened?;
            // The row's first branch returns it.
            self.where_term_if_false(branch, bnext)?;
            // (A virtual table's rows are told apart by its xRowid.)
            let key = if it.vtab.is_some() {
                let r = self.b.reg();
                self.b.add(Opcode::VRowid, it.cursor, r, 0);
                (r, 1)
            } else {
                self.matched_key(it)
            };
            self.b.add4(Opcode::Found, seen, bnext, key.0, P4::Int64(key.1 as i64), 0);
            if i + 1 < n {
                let rec = self.b.reg();
                self.b.add(Opcode::MakeRecord, key.0, key.1, rec);
                self.b.add(Opcode::IdxInsert, seen, rec, 0);
            }
            self.b.add(Opcode::Gosub, ret, body, 0);
            self.b.bind(bnext);
            self.advance_loop(&kind);
            self.b.bind(bend);
        }
        self.b.add(Opcode::Goto, 0, end, 0);
        self.b.bind(body);
        Ok(LoopKind::Or(ret))
    }
}
