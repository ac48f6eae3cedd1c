//! ATTACH and DETACH: the program computes the operands into one row
//! (file name, schema name; or the schema name to detach) and the
//! connection does the rest (`connection/attach.rs`). As in SQLite, a bare
//! identifier operand (`ATTACH x AS aux`) is taken as the text of its name.

use crate::error::Result;
use crate::sql::codegen::Compiler;
use crate::sql::parse::unquote;
use crate::vdbe::program::{AttachKind, Opcode, Program, P4};
use sqlite3_parser::ast::{Expr, Stmt};

fn operand(c: &mut Compiler<'_>, e: &Expr<'_>, target: i32) -> Result<()> {
    match e {
        Expr::Id(id) => {
            c.b.add4(Opcode::String8, 0, target, 0, P4::bytes(unquote(id.0).into_bytes()), 0);
            Ok(())
        }
        Expr::Name(n) => {
            c.b.add4(Opcode::String8, 0, target, 0, P4::bytes(unquote(n.0).into_bytes()), 0);
            Ok(())
        }
        e => c.expr(e, target),
    }
}

/// Compile ATTACH or DETACH.
pub fn compile_attach(c: &mut Compiler<'_>, stmt: &Stmt<'_>, prog: &mut Program) -> Result<()> {
    let init = c.begin_program();
    match stmt {
        Stmt::Attach { expr, db_name, key } => {
            let regs = c.b.regs(3);
            operand(c, expr, regs)?;
            operand(c, db_name, regs + 1)?;
            match key {
                Some(k) => operand(c, k, regs + 2)?,
                None => {
                    c.b.add(Opcode::Null, 0, regs + 2, 0);
                }
            }
            c.b.add(Opcode::ResultRow, regs, 3, 0);
            prog.attach = Some(AttachKind::Attach);
        }
        Stmt::Detach(e) => {
            let r = c.b.reg();
            operand(c, e, r)?;
            c.b.add(Opcode::ResultRow, r, 1, 0);
            prog.attach = Some(AttachKind::Detach);
        }
        _ => return Err(crate::error::Error::sql("not ATTACH or DETACH")),
    }
    c.end_program(init, None);
    Ok(())
}
