//! VACUUM: compiled to no instructions, only a description of what to do
//! ([`Vacuum`]). The connection runs it (`connection/vacuum.rs`): a copy of
//! every table and index into a fresh database, then a page-by-page copy
//! back, which is not something a bytecode program of one connection does.

use crate::error::{Error, Result};
use crate::sql::codegen::Compiler;
use crate::sql::parse::unquote;
use crate::vdbe::program::{Vacuum, VacuumInto};
use sqlite3_parser::ast::{Expr, Literal, Name};

/// The schema and the `INTO` target of a VACUUM statement.
pub fn target(c: &mut Compiler<'_>, schema: Option<&Name<'_>>, into: Option<&Expr<'_>>) -> Result<Vacuum> {
    let schema = schema.map_or_else(|| "main".to_string(), |n| unquote(n.0));
    if c.db_index(&schema).is_none() {
        return Err(Error::sql(format!("unknown database {schema}")));
    }
    let into = match into {
        None => None,
        Some(Expr::Literal(Literal::String(s))) => Some(VacuumInto::File(unquote(s))),
        Some(Expr::Variable(name)) => Some(VacuumInto::Param(c.variable(name)? as usize)),
        Some(_) => return Err(Error::unsupported("VACUUM INTO with a computed filename")),
    };
    c.stmt.writes = true;
    Ok(Vacuum { schema, into })
}
