//! The check SQLite makes as it reads a schema: the CHECK constraints,
//! generated columns and index expressions of a non-TEMP table are
//! resolved then, so a call there to a function registered
//! `SQLITE_DIRECTONLY`, or to one not registered `SQLITE_INNOCUOUS` while
//! `PRAGMA trusted_schema` is off, makes the whole schema unreadable
//! ("malformed database schema (x) - unsafe use of f()"). View and
//! trigger bodies and DEFAULT values are checked only where they are
//! used (`sql/codegen/schema_trust.rs`).

use crate::sql::schema::Schema;
use crate::util::ascii::AsciiLower;
use crate::vdbe::func::FunctionRegistry;

/// The database number of TEMP, whose objects the application made.
const TEMP_DB: usize = 1;

/// The first schema object of `schemas` (per database, by number) whose
/// stored expressions call a function the schema may not call, in the
/// order SQLite reads them: (object name, function name as written).
pub(super) fn first_unsafe_call(schemas: &[Schema], funcs: &FunctionRegistry, trusted: bool) -> Option<(String, String)> {
    for (db, s) in schemas.iter().enumerate() {
        if db == TEMP_DB {
            continue;
        }
        for (ty, name, _, _, _) in &s.rows {
            let key = name.ascii_lower();
            let texts: Vec<&str> = match ty.as_str() {
                "table" => match s.tables.get(&key) {
                    Some(t) => {
                        t.checks.iter().map(|(_, c)| c.as_str()).chain(t.columns.iter().filter_map(|c| c.generated.as_ref().map(|g| g.expr.as_str()))).collect()
                    }
                    None => continue,
                },
                "index" => match s.indexes.get(&key) {
                    Some(i) => i.where_sql.iter().map(String::as_str).chain(i.columns.iter().filter_map(|c| c.expr.as_deref())).collect(),
                    None => continue,
                },
                _ => continue,
            };
            for text in texts {
                if let Some(f) = unsafe_call(text, funcs, trusted) {
                    return Some((name.clone(), f));
                }
            }
        }
    }
    None
}

/// The first call in expression `text` the schema may not make.
fn unsafe_call(text: &str, funcs: &FunctionRegistry, trusted: bool) -> Option<String> {
    use sqlite3_parser::ast::Expr;
    crate::sql::parse::with_expr(text, |e| {
        let mut found = None;
        crate::sql::model::expr_shape::walk(e, &mut |x| {
            let call = match x {
                Expr::FunctionCall { name, args, .. } => Some((name, args.as_ref().map_or(0, |a| a.len()))),
                Expr::FunctionCallStar { name, .. } => Some((name, 0)),
                _ => None,
            };
            if let Some((name, n)) = call {
                let fname = crate::sql::parse::unquoted(name.0);
                if let Some(d) = funcs.find(&fname, n) {
                    if d.flags.direct_only || (!d.flags.innocuous && !trusted) {
                        found = found.take().or(Some(fname.into_owned()));
                    }
                }
            }
            found.is_none()
        });
        Ok(found)
    })
    .unwrap_or(None)
}
