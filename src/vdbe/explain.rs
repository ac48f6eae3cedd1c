//! EXPLAIN output: one row per instruction, columns as SQLite's
//! (`addr opcode p1 p2 p3 p4 p5 comment`). Instructions that may suspend
//! on I/O carry the marker `[may await I/O]` in the comment column.

use crate::value::Value;
use crate::vdbe::program::{Opcode, Program};

/// Column names of EXPLAIN.
pub const EXPLAIN_COLUMNS: [&str; 8] = ["addr", "opcode", "p1", "p2", "p3", "p4", "p5", "comment"];

/// Whether an opcode may return `Pending` (calls the B-tree layer).
pub fn may_suspend(op: Opcode) -> bool {
    use Opcode::*;
    matches!(
        op,
        Transaction
            | ReadCookie
            | SetCookie
            | Halt
            | AutoCommit
            | Savepoint
            | Column
            | Rowid
            | RowData
            | IdxRowid
            | Rewind
            | Last
            | Next
            | Prev
            | Count
            | SeekRowid
            | NotExists
            | SeekGE
            | SeekGT
            | SeekLE
            | SeekLT
            | IdxGE
            | IdxGT
            | IdxLE
            | IdxLT
            | Found
            | NotFound
            | NoConflict
            | NewRowid
            | Insert
            | Delete
            | IdxInsert
            | IdxDelete
            | CreateBtree
            | Destroy
            | Clear
            | IntegrityCk
            | Pagecount
            | SorterSort
            | SorterNext
    )
}

/// The EXPLAIN rows of a program.
pub fn explain_rows(prog: &Program) -> Vec<Vec<Value>> {
    prog.insns
        .iter()
        .enumerate()
        .map(|(addr, i)| {
            let mut comment = prog.comment(addr).to_string();
            if may_suspend(i.opcode) {
                if !comment.is_empty() {
                    comment.push(' ');
                }
                comment.push_str("[may await I/O]");
            }
            vec![
                Value::Integer(addr as i64),
                Value::text(format!("{:?}", i.opcode)),
                Value::Integer(i.p1 as i64),
                Value::Integer(i.p2 as i64),
                Value::Integer(i.p3 as i64),
                Value::text(i.p4.display()),
                Value::Integer(i.p5 as i64),
                Value::text(comment),
            ]
        })
        .collect()
}
