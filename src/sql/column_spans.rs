//! # Column definitions as written
//!
//! SQLite keeps a column's declared type and its DEFAULT as the source
//! text of the CREATE TABLE statement (what `PRAGMA table_info` and
//! `sqlite3_column_decltype` show: `DECIMAL(10, 2)`, `varchar ( 20 )`,
//! `current_timestamp`, `-1.5`, `1 + 2` from `DEFAULT (1 + 2)`), while the
//! parser's AST only prints them back normalized. This module finds those
//! spans in the statement's tokens.
//!
//! Rules (SQLite's grammar): the type is the run of names after the column
//! name, with an optional `( n [, m] )`, up to the first constraint
//! keyword; it is shown as written, except that the standard type names
//! of STRICT tables (`INT`, `INTEGER`, `REAL`, `TEXT`, `BLOB`, `ANY`) are
//! shown in upper case whatever their case in the source. A DEFAULT is
//! the text inside its parentheses, or the signed term after it, trimmed.
//!
//! Invariant: [`column_spans`] returns one entry per column definition, or
//! `None` when the text is not a column-list CREATE TABLE it can read
//! (callers then keep the AST's text) (checked: column_spans_per_column).

use crate::sql::parse::{tokens, Tok};
use crate::util::ascii::AsciiLower;
use sqlite3_parser::dialect::TokenType;
use TokenType::*;

/// The source text of one column definition's type and DEFAULT.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ColumnSpans {
    /// The declared type (None: no type).
    pub decltype: Option<String>,
    /// The DEFAULT expression's text (None: no DEFAULT).
    pub default: Option<String>,
}

/// Keywords that start a column constraint (and so end the type).
fn starts_constraint(k: TokenType) -> bool {
    matches!(k, TK_CONSTRAINT | TK_PRIMARY | TK_NOT | TK_NULL | TK_UNIQUE | TK_CHECK | TK_DEFAULT | TK_COLLATE | TK_REFERENCES | TK_GENERATED | TK_AS | TK_ON)
}

/// Keywords that start a table constraint (the end of the column list).
fn starts_table_constraint(k: TokenType) -> bool {
    matches!(k, TK_CONSTRAINT | TK_PRIMARY | TK_UNIQUE | TK_CHECK | TK_FOREIGN)
}

/// The standard type names, shown in upper case.
const STANDARD_TYPES: [&str; 6] = ["ANY", "BLOB", "INT", "INTEGER", "REAL", "TEXT"];

/// A type that starts quoted is its first quoted name only (SQLite
/// dequotes the type's text in place, which ends it at the closing quote).
/// The same holds for an unnamed CHECK constraint's text used as its name
/// in "CHECK constraint failed: ...": `"value" >= 0` reads `value`.
pub(crate) fn dequote(t: &str) -> String {
    let close = match t.chars().next() {
        Some('"') => '"',
        Some('\'') => '\'',
        Some('`') => '`',
        Some('[') => ']',
        _ => return t.to_string(),
    };
    let mut out = String::new();
    let mut chars = t[1..].chars().peekable();
    while let Some(c) = chars.next() {
        if c == close {
            if close != ']' && chars.peek() == Some(&close) {
                chars.next();
            } else {
                break;
            }
        }
        out.push(c);
    }
    out
}

fn text(sql: &[u8], start: usize, end: usize) -> String {
    String::from_utf8_lossy(&sql[start..end]).trim().to_string()
}

/// The type and DEFAULT spans of each column of the CREATE TABLE in `sql`.
pub fn column_spans(sql: &[u8]) -> Option<Vec<ColumnSpans>> {
    let toks: Vec<Tok> = tokens(sql).collect::<Vec<_>>();
    // The column list: the first parenthesis of the statement.
    let open = toks.iter().position(|t| t.kind == TK_LP)?;
    if toks[..open].iter().any(|t| t.kind == TK_AS) {
        return None;
    }
    // Split the list at top-level commas.
    let mut items: Vec<&[Tok]> = Vec::new();
    let (mut depth, mut from) = (0, open + 1);
    let mut close = None;
    for (i, t) in toks.iter().enumerate().skip(open + 1) {
        match t.kind {
            TK_LP => depth += 1,
            TK_RP if depth == 0 => {
                items.push(&toks[from..i]);
                close = Some(i);
                break;
            }
            TK_RP => depth -= 1,
            TK_COMMA if depth == 0 => {
                items.push(&toks[from..i]);
                from = i + 1;
            }
            _ => {}
        }
    }
    close?;
    let mut out = Vec::new();
    for item in items {
        let first = item.first()?;
        if starts_table_constraint(first.kind) {
            break;
        }
        out.push(one_column(sql, &item[1..]));
    }
    Some(out)
}

/// The spans of one column definition, its name already taken off.
fn one_column(sql: &[u8], toks: &[Tok]) -> ColumnSpans {
    let mut spans = ColumnSpans::default();
    // The type: names, then an optional parenthesized size.
    let mut i = 0;
    while i < toks.len() && !starts_constraint(toks[i].kind) && toks[i].kind != TK_LP {
        i += 1;
    }
    if i > 0 && i < toks.len() && toks[i].kind == TK_LP {
        if let Some(rp) = toks[i..].iter().position(|t| t.kind == TK_RP) {
            i += rp + 1;
        }
    }
    if i > 0 {
        let written = dequote(&text(sql, toks[0].start, toks[i - 1].end));
        let standard = STANDARD_TYPES.iter().find(|s| s.eq_ci(&written));
        spans.decltype = Some(standard.map_or(written, |s| s.to_string()));
    }
    // The DEFAULT, wherever it stands among the constraints.
    let mut depth = 0;
    while i < toks.len() {
        match toks[i].kind {
            TK_LP => depth += 1,
            TK_RP => depth -= 1,
            TK_DEFAULT if depth == 0 && i + 1 < toks.len() => {
                let next = toks[i + 1];
                spans.default = match next.kind {
                    TK_LP => {
                        let mut d = 0;
                        let rp = toks[i + 1..].iter().position(|t| {
                            match t.kind {
                                TK_LP => d += 1,
                                TK_RP => d -= 1,
                                _ => {}
                            }
                            d == 0
                        });
                        rp.map(|rp| text(sql, next.end, toks[i + 1 + rp].start))
                    }
                    TK_MINUS | TK_PLUS => toks.get(i + 2).map(|term| text(sql, next.start, term.end)),
                    _ => Some(text(sql, next.start, next.end)),
                };
            }
            _ => {}
        }
        i += 1;
    }
    spans
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spans(sql: &str) -> Vec<(Option<String>, Option<String>)> {
        column_spans(sql.as_bytes()).unwrap().into_iter().map(|s| (s.decltype, s.default)).collect()
    }

    fn s(x: &str) -> Option<String> {
        Some(x.to_string())
    }

    #[test]
    fn types_and_defaults_as_written() {
        let got = spans("CREATE TABLE t(a DECIMAL(10, 2) default current_timestamp, b text default 'x''y', c default (1 + 2), d default -1.5, e   varchar ( 20 )  not null, f INT default +3, g default (  'a'||'b' ), h, primary key(e, a))");
        assert_eq!(
            got,
            vec![
                (s("DECIMAL(10, 2)"), s("current_timestamp")),
                (s("TEXT"), s("'x''y'")),
                (None, s("1 + 2")),
                (None, s("-1.5")),
                (s("varchar ( 20 )"), None),
                (s("INT"), s("+3")),
                (None, s("'a'||'b'")),
                (None, None),
            ]
        );
    }

    #[test]
    fn constraints_before_the_default_and_quoted_names() {
        let got = spans("CREATE TABLE \"x(y\"(\"a,b\" unsigned big int CONSTRAINT c NOT NULL DEFAULT (x'00') CHECK(a > (1)), [c] integer primary key)");
        // invariant: column_spans_per_column
        assert_eq!(got, vec![(s("unsigned big int"), s("x'00'")), (s("INTEGER"), None)]);
        // invariant: column_spans_per_column
        assert_eq!(column_spans(b"CREATE TABLE t AS SELECT 1"), None);
    }
}
