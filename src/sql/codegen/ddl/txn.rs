//! Transaction control: BEGIN, COMMIT/END, ROLLBACK [TO], SAVEPOINT,
//! RELEASE. The work is done by `AutoCommit` and `Savepoint`; `Halt`
//! commits when autocommit has been switched back on.

use crate::error::Result;
use crate::sql::codegen::Compiler;
use crate::sql::parse::{unquote, unquoted};
use crate::vdbe::program::{Opcode, Program, P4};
use sqlite3_parser::ast::{Stmt, TransactionType};

/// Compile a transaction-control statement.
pub fn compile_txn(c: &mut Compiler<'_>, stmt: &Stmt<'_>, _prog: &mut Program) -> Result<()> {
    c.b.add(Opcode::Init, 0, 1, 0);
    match stmt {
        Stmt::Begin(ty, _) => {
            // The locks first, as SQLite orders it: a BEGIN IMMEDIATE that
            // finds the database locked fails before it has switched
            // autocommit off, so the connection is left as it was (and a
            // busy handler's retry runs the whole statement again).
            match ty {
                Some(TransactionType::Immediate) => {
                    c.b.add(Opcode::Transaction, 0, 1, 0);
                }
                Some(TransactionType::Exclusive) => {
                    c.b.add(Opcode::Transaction, 0, 2, 0);
                }
                _ => {}
            }
            c.b.add(Opcode::AutoCommit, 0, 0, 0);
        }
        Stmt::Commit(_) => {
            c.fk_commit_check(None)?;
            c.b.add(Opcode::AutoCommit, 1, 0, 0);
        }
        Stmt::Rollback { savepoint_name: None, .. } => {
            c.b.add(Opcode::AutoCommit, 1, 1, 0);
        }
        Stmt::Rollback { savepoint_name: Some(n), .. } => {
            c.b.add4(Opcode::Savepoint, 2, 0, 0, P4::text(unquote(n.0)), 0);
        }
        Stmt::Savepoint(n) => {
            c.b.add4(Opcode::Savepoint, 0, 0, 0, P4::text(unquote(n.0)), 0);
        }
        Stmt::Release(n) => {
            c.fk_commit_check(Some(&unquoted(n.0)))?;
            c.b.add4(Opcode::Savepoint, 1, 0, 0, P4::text(unquote(n.0)), 0);
        }
        _ => {}
    }
    c.b.add(Opcode::Halt, 0, 0, 0);
    Ok(())
}
