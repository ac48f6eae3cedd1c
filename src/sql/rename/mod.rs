//! ALTER TABLE RENAME's edit of stored SQL: which tokens of a CREATE
//! statement name the renamed table or column, and the text with just
//! those tokens replaced.
//!
//! The statement is parsed from a tagged copy of its text (`tagged`: each
//! identifier carries its token's index), walked with SQL's name scopes
//! (`walk`), and the original text is edited token by token: everything
//! else (spacing, comments, other names, quoting) stays as written.
//! Quoting of the new name follows SQLite: a renamed table is always
//! written `"new"`; a renamed column is written as given in ALTER TABLE
//! when that was quoted, else bare where the old token was bare and
//! `"new"` where it was quoted.

mod tagged;
mod walk;

pub use walk::Target;

use crate::sql::parse::with_first_statement;
use crate::sql::schema::Schema;
use sqlite3_parser::ast::Cmd;
use sqlite3_parser::dialect::TokenType;

/// How the new name is written.
pub struct NewName<'a> {
    /// The new name (unquoted).
    pub name: &'a str,
    /// Always written quoted.
    pub always_quoted: bool,
}

/// `sql` (a CREATE statement of database `home_db`) with every token
/// naming `target` replaced by the new name: `Ok(None)` when nothing names
/// it, `Err(message)` when a name in it resolves to nothing (SQLite's
/// message, e.g. `no such table: main.t2`).
pub fn rewrite(sql: &str, home_db: usize, schema: &Schema, db_names: &[String], target: &Target, new: &NewName<'_>) -> Result<Option<String>, String> {
    let tagged = tagged::tag(sql);
    let mut walker = walk::Walker::new(schema, db_names, target, home_db);
    let names = tagged.toks.iter().filter(|t| matches!(t.kind, TokenType::TK_ID | TokenType::TK_STRING));
    walker.count_names(names.map(|t| &sql[t.start..t.end]));
    let parsed = with_first_statement(tagged.text.as_bytes(), |cmd, _| {
        if let Some(Cmd::Stmt(stmt)) = cmd {
            walker.statement(stmt);
        }
        Ok(())
    });
    if let Err(e) = parsed {
        return Err(e.message);
    }
    if let Some(e) = walker.error.filter(|_| !target.legacy) {
        return Err(e);
    }
    // RENAME COLUMN also writes double-quoted strings as strings.
    let strings = if target.column.is_some() { walker.strings } else { Vec::new() };
    let mut edits: Vec<(usize, bool)> = walker.hits.into_iter().map(|i| (i, true)).chain(strings.into_iter().map(|i| (i, false))).collect();
    if edits.is_empty() {
        return Ok(None);
    }
    crate::util::cold_sort::sort(&mut edits);
    edits.dedup_by_key(|e| e.0);
    let quoted = format!("\"{}\"", new.name.replace('"', "\"\""));
    let mut out = String::with_capacity(sql.len() + edits.len() * new.name.len());
    let mut last = 0;
    for (i, is_name) in edits {
        let Some(t) = tagged.toks.get(i) else { continue };
        out.push_str(&sql[last..t.start]);
        let old = &sql[t.start..t.end];
        if !is_name {
            let text = crate::sql::parse::unquote(old);
            out.push('\'');
            out.push_str(&text.replace('\'', "''"));
            out.push('\'');
        } else if new.always_quoted || !old.as_bytes().first().is_some_and(|&b| is_id_char(b)) {
            out.push_str(&quoted);
            // (A quote right after would otherwise join the two.)
            if sql.as_bytes().get(t.end) == Some(&b'"') {
                out.push(' ');
            }
        } else {
            out.push_str(new.name);
        }
        last = t.end;
    }
    out.push_str(&sql[last..]);
    Ok(Some(out))
}

/// A byte that may appear in an unquoted identifier.
fn is_id_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80
}
