//! # Parameter numbering
//!
//! SQLite numbers parameters while parsing, in source order: `?` takes
//! the next number, `?NNN` takes NNN (later `?` continue after the
//! largest), `:name`/`@name`/`$name` take the next number at their first
//! appearance and keep it. Code is not generated in source order here (an
//! UPDATE collects the rows its WHERE selects before computing its SET
//! expressions; a CTE is compiled again at each use; some clauses are
//! re-parsed from their text), so the numbers are fixed before compiling:
//! every anonymous `?` of the statement is rewritten to a numbered form
//! marked as anonymous ([`ANONYMOUS_PREFIX`]), and every name is
//! registered in order.
//!
//! Invariant: the rewritten text differs from the original only inside
//! those `?` tokens; everything that reads source text (column names,
//! `sqlite_schema.sql`, error offsets) keeps using the original.

use crate::sql::parse::tokens;
use sqlite3_parser::dialect::TokenType;

/// Digits an anonymous `?` is rewritten with, before its number
/// (`?` → `?00000003`): a parameter numbered so has no name.
pub const ANONYMOUS_PREFIX: &str = "0000000";

/// The numbering of a statement's parameters.
pub struct Numbering {
    /// The statement with each anonymous `?` numbered, when it has any.
    pub text: Option<Vec<u8>>,
    /// Parameter names by number (index 0 unused; `None`: anonymous).
    pub names: Vec<Option<String>>,
}

/// Number the parameters of one statement's text.
pub fn number(sql: &[u8]) -> Numbering {
    let mut names: Vec<Option<String>> = vec![None];
    let mut out = Vec::new();
    let mut copied = 0;
    let mut any_anonymous = false;
    // Every parameter starts with one of these bytes: without any, there
    // is nothing to number (and no need to tokenize).
    if !sql.iter().any(|b| matches!(b, b'?' | b':' | b'@' | b'$' | b'#')) {
        return Numbering { text: None, names };
    }
    for t in tokens(sql) {
        if t.kind != TokenType::TK_VARIABLE {
            continue;
        }
        let text = String::from_utf8_lossy(&sql[t.start..t.end]).into_owned();
        if text == "?" {
            names.push(None);
            out.extend_from_slice(&sql[copied..t.start]);
            out.extend_from_slice(format!("?{ANONYMOUS_PREFIX}{}", names.len() - 1).as_bytes());
            copied = t.end;
            any_anonymous = true;
        } else if let Some(digits) = text.strip_prefix('?') {
            // Out of range numbers are left for the compiler to refuse.
            if let Ok(n) = digits.parse::<usize>() {
                if (1..=32766).contains(&n) {
                    while names.len() <= n {
                        names.push(None);
                    }
                    if names[n].is_none() {
                        names[n] = Some(text);
                    }
                }
            }
        } else if !names.iter().any(|n| n.as_deref() == Some(text.as_str())) {
            names.push(Some(text));
        }
    }
    if !any_anonymous {
        return Numbering { text: None, names };
    }
    out.extend_from_slice(&sql[copied..]);
    Numbering { text: Some(out), names }
}

/// The number of an anonymous parameter in its rewritten form (the
/// parser's name for it, without the `?`).
pub fn anonymous_number(name: &str) -> Option<usize> {
    let digits = name.strip_prefix(ANONYMOUS_PREFIX)?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// `e` as SQL text with each numbered anonymous parameter shown as the
/// `?` it was written as (column names made from expression text).
pub fn expr_text(e: &sqlite3_parser::ast::Expr<'_>) -> String {
    let text = e.to_string();
    let marker = format!("?{ANONYMOUS_PREFIX}");
    if !text.contains(&marker) {
        return text;
    }
    let mut out = String::new();
    let mut rest = text.as_str();
    while let Some(at) = rest.find(&marker) {
        out.push_str(&rest[..at + 1]);
        rest = rest[at + marker.len()..].trim_start_matches(|c: char| c.is_ascii_digit());
    }
    out.push_str(rest);
    out
}
