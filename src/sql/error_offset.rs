//! # Where in the SQL a prepare error is (`sqlite3_error_offset`)
//!
//! SQLite reports the byte offset of the token an error is about for
//! syntax errors and for names that do not resolve (columns, functions),
//! and -1 otherwise (unknown tables, incomplete input, an unknown column
//! on the left of an UPDATE's `=`). Errors do not carry positions through
//! code generation here, so the offset is recovered afterwards from the
//! message and the statement's tokens: a syntax error by parsing again up
//! to the failure, a name by finding its first use as an identifier.

use crate::error::Error;
use crate::sql::parse::{syntax_error_offset, tokens, unquote, Tok};
use crate::util::ascii::AsciiLower;
use sqlite3_parser::dialect::TokenType;

/// The offset `sqlite3_error_offset` reports for `err`, raised while
/// preparing the first statement of `sql`.
pub fn locate(sql: &[u8], err: &Error) -> Option<usize> {
    let m = err.message.as_str();
    if (m.starts_with("near \"") && m.ends_with("\": syntax error")) || m.starts_with("unrecognized token: ") {
        return syntax_error_offset(sql);
    }
    if let Some(name) = m.strip_prefix("no such column: ").or_else(|| m.strip_prefix("ambiguous column name: ")) {
        let (qualifier, column) = match name.rsplit_once('.') {
            Some((q, c)) => (Some(q), c),
            None => (None, name),
        };
        return find_name(sql, qualifier, column, false);
    }
    if let Some(name) = m.strip_prefix("no such function: ") {
        return find_name(sql, None, name, true);
    }
    None
}

/// An identifier token (a keyword used as a name included), not a literal.
fn is_name(sql: &[u8], t: &Tok) -> bool {
    t.kind == TokenType::TK_ID || sql[t.start..t.end].iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_')
}

/// First use of `[qualifier.]name` as an identifier (followed by `(` for a
/// function). An UPDATE's assignment targets do not count: SQLite reports
/// no offset for them.
fn find_name(sql: &[u8], qualifier: Option<&str>, name: &str, call: bool) -> Option<usize> {
    let toks: Vec<Tok> = tokens(sql).collect::<Vec<_>>();
    let text = |t: &Tok| unquote(&String::from_utf8_lossy(&sql[t.start..t.end]));
    let is_update = toks.first().is_some_and(|t| t.kind == TokenType::TK_UPDATE);
    for (i, t) in toks.iter().enumerate() {
        if !is_name(sql, t) || !text(t).eq_ci(name) {
            continue;
        }
        let next = toks.get(i + 1).map(|n| n.kind);
        let prev = i.checked_sub(1).map(|p| toks[p].kind);
        if call != (next == Some(TokenType::TK_LP)) {
            continue;
        }
        if is_update && next == Some(TokenType::TK_EQ) && matches!(prev, Some(TokenType::TK_SET | TokenType::TK_COMMA)) {
            continue;
        }
        match qualifier {
            Some(q) => {
                if i >= 2 && prev == Some(TokenType::TK_DOT) && text(&toks[i - 2]).eq_ci(q) {
                    return Some(toks[i - 2].start);
                }
            }
            None if prev != Some(TokenType::TK_DOT) => return Some(t.start),
            None => {}
        }
    }
    None
}
