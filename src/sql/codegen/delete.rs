//! DELETE: without WHERE every tree of the table is cleared at once (the
//! rows still count as changes); with WHERE the matching rowids are
//! collected first, then each row and its index entries are removed.

use super::update::collect_rowids;
use super::Compiler;
use crate::error::{Error, Result};
use crate::sql::parse::unquote;
use crate::vdbe::exec::write::OPFLAG_NCHANGE;
use crate::vdbe::program::{Opcode, Program, P4};
use sqlite3_parser::ast::Stmt;

/// Compile a DELETE.
pub fn compile_delete(c: &mut Compiler<'_>, stmt: &Stmt<'_>, prog: &mut Program) -> Result<()> {
    let Stmt::Delete { with, tbl_name, where_clause, returning, order_by, limit, .. } = stmt else {
        return Err(Error::sql("not a DELETE"));
    };
    if returning.is_some() || order_by.is_some() || limit.is_some() || with.is_some() {
        return Err(Error::unsupported("DELETE with RETURNING, ORDER BY, LIMIT or WITH"));
    }
    let table = c.writable_table(&unquote(tbl_name.name.0))?;
    let alias = tbl_name.alias.as_ref().map(|a| unquote(a.0));
    let init = c.begin_program();
    c.writes = true;
    match where_clause {
        None => {
            for idx in c.schema.indexes_of(&table.name) {
                c.b.add(Opcode::Clear, idx.root as i32, 0, 0);
            }
            c.b.add4(Opcode::Clear, table.root as i32, 0, 1, P4::Table(table.name.clone()), 0);
        }
        Some(w) => {
            let t = c.open_write_target(table.clone())?;
            let tmp = collect_rowids(c, &table, alias, Some(w))?;
            let end = c.b.label();
            c.b.add(Opcode::Rewind, tmp, end, 0);
            let top = c.b.here();
            let next = c.b.label();
            let rid = c.b.reg();
            c.b.add(Opcode::Column, tmp, 0, rid);
            c.b.add(Opcode::NotExists, t.cursor, next, rid);
            c.delete_current_row(&t, true);
            c.b.bind(next);
            c.b.add(Opcode::Next, tmp, top as i32, 0);
            c.b.bind(end);
            let _ = OPFLAG_NCHANGE;
        }
    }
    c.end_program(init, Some(true));
    prog.counts_changes = true;
    Ok(())
}
