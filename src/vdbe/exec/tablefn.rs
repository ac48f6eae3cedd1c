//! Table-valued functions: `JsonRows` fills a temporary table with the rows
//! of json_each/json_tree (computed by [`crate::vdbe::func::builtins::json::each`]).
//!
//! Invariant: the table holds exactly the rows of the last call, ten
//! columns each (the eight visible ones, then the hidden `json` and `root`
//! arguments), with rowids counting from 0 as SQLite's json_each reports
//! (checked: json_rows_shape).
//! The loop over it is an ordinary scan, so arguments taken from an outer
//! table are re-evaluated and the table refilled for each outer row.

use super::{internal, reg, Flow};
use crate::error::Result;
use crate::value::Value;
use crate::vdbe::cursor::VmCursor;
use crate::vdbe::func::builtins::json::each;
use crate::vdbe::program::Insn;
use crate::vdbe::Vm;

pub(super) fn exec(vm: &mut Vm, insn: &Insn) -> Result<Flow> {
    let json = reg(vm, insn.p2).clone();
    let root = if insn.p3 >= 2 { Some(reg(vm, insn.p2 + 1).clone()) } else { None };
    let rows = each::rows_as(&json, root.as_ref(), insn.p5 & 1 != 0, insn.p5 & 2 != 0)?;
    let Some(VmCursor::Ephemeral(table)) = vm.cursors.get_mut(insn.p1 as usize).and_then(|c| c.as_mut()) else {
        return Err(internal("JsonRows on a cursor that is not a temporary table"));
    };
    table.rows.clear();
    table.pos = None;
    table.null_row = false;
    table.next_rowid = 0;
    table.json_rows = true;
    // (The hidden `root` column reads `$` when no path was given.)
    let root = root.unwrap_or_else(|| Value::text("$"));
    for (i, mut row) in rows.into_iter().enumerate() {
        row.push(json.clone());
        row.push(root.clone());
        // invariant: json_rows_shape
        debug_assert_eq!(row.len(), 10, "a json_each row of {} columns", row.len());
        table.rows.push((i as i64, row));
    }
    table.next_rowid = table.rows.len() as i64;
    Ok(Flow::Next)
}
