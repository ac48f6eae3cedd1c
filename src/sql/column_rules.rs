//! Rules about column definitions that CREATE TABLE, ALTER TABLE and the
//! writes all apply: which constraints a generated column may carry (and
//! SQLite's message when it breaks one), and whether a stored expression
//! (a generated column's, a CHECK's) names a column.

use crate::error::Error;
use crate::util::ascii::AsciiLower;

/// The generated columns each generated column's expression names, found
/// by whole-word match outside string literals (a name inside a quoted
/// identifier still counts, as it refers to that column).
pub fn references(expr: &str, name: &str) -> bool {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_string = false;
    for ch in expr.chars() {
        if in_string {
            in_string = ch != '\'';
            continue;
        }
        if ch == '\'' {
            in_string = true;
        }
        if ch.is_alphanumeric() || ch == '_' || !ch.is_ascii() {
            cur.push(ch);
        } else if !cur.is_empty() {
            words.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        words.push(cur);
    }
    words.iter().any(|w| w.eq_ci(name))
}

/// The error SQLite's parser gives for a column definition whose
/// constraints clash with GENERATED ALWAYS AS, in the order written: a
/// PRIMARY KEY anywhere, a DEFAULT after the expression ("cannot use
/// DEFAULT ...") or before it ("error in generated column ...").
pub fn definition_error(cd: &sqlite3_parser::ast::ColumnDefinition<'_>) -> Option<Error> {
    use sqlite3_parser::ast::ColumnConstraint;
    let name = crate::sql::parse::unquote(cd.col_name.0);
    let generated = cd.constraints.iter().any(|c| matches!(c.constraint, ColumnConstraint::Generated { .. }));
    if !generated {
        return None;
    }
    let mut seen_generated = false;
    let mut seen_default = false;
    for c in cd.constraints.iter() {
        match &c.constraint {
            ColumnConstraint::PrimaryKey { .. } => return Some(Error::sql("generated columns cannot be part of the PRIMARY KEY")),
            ColumnConstraint::Default(_) if seen_generated => return Some(Error::sql("cannot use DEFAULT on a generated column")),
            ColumnConstraint::Default(_) => seen_default = true,
            ColumnConstraint::Generated { .. } if seen_default => return Some(Error::sql(format!("error in generated column \"{name}\""))),
            ColumnConstraint::Generated { .. } => seen_generated = true,
            _ => {}
        }
    }
    None
}
